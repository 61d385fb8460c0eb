#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The whole test suite: install what is missing, build with warnings as
# errors, run every test, then the unit tests again under AddressSanitizer
# and UndefinedBehaviorSanitizer.  Exits non-zero when anything fails.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh scripts/bootstrap.sh

status=0
failures() {
	# $1: build directory.  Each test that failed, its failing checks and
	# the end of its log: printed last, so a CI page that keeps only the
	# tail of the output still says what failed.
	for trs in "$1"/tests/*/*.trs; do
		[ -f "$trs" ] || continue
		grep -qE '^:test-result: (FAIL|ERROR|XPASS)' "$trs" || continue
		log=${trs%.trs}.log
		echo "-- FAILED: ${log#"$1"/} (in $1)"
		grep -E '^not ok|^\[  FAILED  \]|^\[  ERROR   \]' "$log" || true
		echo "-- its last 40 lines:"
		tail -n 40 "$log" || true
	done
}
summarize() {
	# $1: build directory.  Print each runner's own summary, then totals.
	for log in "$1"/tests/*/*.log; do
		[ -f "$log" ] || continue
		grep -hE '^\[ *(PASSED|FAILED|SKIPPED|==========) *\]|^(ok|not ok|SKIP|PASS|FAIL)' \
		    "$log" | sed "s|^|$(basename "$log" .log): |" || true
	done
	pass=$(cat "$1"/tests/*/*.trs 2>/dev/null | grep -c '^:test-result: PASS' || true)
	fail=$(cat "$1"/tests/*/*.trs 2>/dev/null | grep -cE '^:test-result: (FAIL|ERROR|XPASS)' || true)
	skip=$(cat "$1"/tests/*/*.trs 2>/dev/null | grep -c '^:test-result: SKIP' || true)
	echo "$2: $pass passed, $fail failed, $skip skipped"
}

echo "== make check (build)"
if ! make -C build check; then
	status=1
	cat build/test-suite.log || true
fi
summarize build "suites"

echo "== unit tests and the proxy suites under ASan+UBSan (build-san)"
mkdir -p build-san
cd build-san
if [ ! -f Makefile ] || [ ../configure -nt Makefile ]; then
	../configure --enable-werror \
	    CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
	    LDFLAGS="-fsanitize=address,undefined" >/dev/null
fi
make -j"$(nproc)" >/dev/null
UNIT="$(make -s print-unit-tests) $(make -s print-proxy-tests) tests/attest/audit.sh"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if ! make check TESTS="$UNIT" >/dev/null; then
	status=1
	cat test-suite.log || true
fi
cd "$top"
summarize build-san "sanitizers"
if [ "$status" -ne 0 ]; then
	echo "== what failed"
	failures build
	failures build-san
fi
exit $status
