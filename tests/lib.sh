# SPDX-License-Identifier: Apache-2.0
# Shared helpers for the shell tests: TAP-like output, assertions, cleanup.
# Each test script sources this, calls the checks, and ends with `finish`.

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
EGRESSD="$top_builddir/harn-egressd"
T_PASS=0
T_FAIL=0
T_SKIP=0
T_N=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/harn-test.XXXXXX")
T_CLEANUP=""
# The interpreter itself, not a version-manager shim, and -S: the helpers
# need the standard library only, and each check starts one.
PY="$(${PYTHON:-python3} -c 'import sys; print(sys.executable)') -S"
# Inside run mode's sandbox only system roots are readable: the system's
# python for commands run there.
PYIN=python3
for p in /usr/bin/python3 /usr/local/bin/python3; do
	if [ -x "$p" ]; then
		PYIN=$p
		break
	fi
done
# The tests choose their proxies; the caller's never leak in.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy \
    no_proxy NO_PROXY 2>/dev/null || true

# Background processes (servers, proxies) add their pid to BG_PIDS; each
# is sent SIGTERM at exit, then SIGKILL if it lingers.
BG_PIDS=""
stop_bg() {
	for p in $BG_PIDS; do
		kill "$p" 2>/dev/null || true
	done
	for p in $BG_PIDS; do
		n=0
		while alive "$p" && [ $n -lt 20 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		kill -9 "$p" 2>/dev/null || true
	done
}

cleanup() {
	stop_bg
	for c in $T_CLEANUP; do
		eval "$c" 2>/dev/null || true
	done
	if [ -n "${KEEP_TMP:-}" ]; then
		echo "# KEEP_TMP: files kept in $TMP"
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT INT TERM

# at_exit CMD: run CMD (one word, e.g. a function name) when the script ends.
at_exit() {
	T_CLEANUP="$1 $T_CLEANUP"
}

ok() {
	T_N=$((T_N + 1))
	T_PASS=$((T_PASS + 1))
	echo "ok $T_N - $1"
}

not_ok() {
	T_N=$((T_N + 1))
	T_FAIL=$((T_FAIL + 1))
	echo "not ok $T_N - $1"
	shift
	# Every line quoted, so that none of it reads as a result (relay).
	for line in "$@"; do
		printf '%s\n' "$line" | sed 's/^/#   /'
	done
}

skip() {
	T_N=$((T_N + 1))
	T_SKIP=$((T_SKIP + 1))
	echo "ok $T_N - SKIP $1"
}

# expect_rc NAME WANT CMD...: run CMD, check its exit status.
# Leaves stdout in $TMP/out and stderr in $TMP/err.
expect_rc() {
	name=$1 want=$2
	shift 2
	set +e
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	set -e
	if [ "$rc" -eq "$want" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, want $want: $*" \
		    "stdout: $(head -c 400 "$TMP/out")" \
		    "stderr: $(head -c 400 "$TMP/err")"
	fi
}

# expect_grep NAME FILE PATTERN: FILE has a line matching PATTERN (ERE).
expect_grep() {
	if grep -Eq -- "$3" "$2"; then
		ok "$1"
	else
		not_ok "$1" "no line matches /$3/ in:" "$(head -c 600 "$2")"
	fi
}

# expect_no_grep NAME FILE PATTERN: no line of FILE matches (fixed string).
expect_no_grep() {
	if grep -Fq -- "$3" "$2"; then
		not_ok "$1" "found '$3' in $2:" "$(grep -F -- "$3" "$2" | head -3)"
	else
		ok "$1"
	fi
}

# sanitized: the harn-egressd under test is built with AddressSanitizer,
# whose memory (shadow, redzones, quarantine) is not the proxy's own: a
# bound on resident memory is checked in the normal build.
sanitized() {
	ldd "${HARN_EGRESSD:-$EGRESSD}" 2>/dev/null | grep -q libasan ||
	    nm -D "${HARN_EGRESSD:-$EGRESSD}" 2>/dev/null | grep -q ' __asan_init'
}

# alive PID: the process exists and is not a zombie.
alive() {
	[ -r "/proc/$1/stat" ] || return 1
	! sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^[ZX]'
}

# wait_gone PID TENTHS: wait until PID has exited; 1 when it has not.
wait_gone() {
	wn=0
	while alive "$1"; do
		[ $wn -ge "$2" ] && return 1
		sleep 0.1
		wn=$((wn + 1))
	done
	return 0
}

# wait_file FILE TENTHS [PID]: wait for FILE to be non-empty (while PID lives).
wait_file() {
	wn=0
	while [ ! -s "$1" ]; do
		[ $wn -ge "$2" ] && return 1
		if [ $# -ge 3 ] && ! alive "$3"; then
			sleep 0.1
			[ -s "$1" ] && return 0
			return 1
		fi
		sleep 0.1
		wn=$((wn + 1))
	done
	return 0
}

# wait_grep FILE ERE TENTHS [PID]: wait until a line of FILE matches ERE
# (while PID lives); 1 when none does in time.  For files another process
# writes: a test waits for what it expects, never for a fixed time.
wait_grep() {
	wn=0
	while ! grep -Eq -- "$2" "$1" 2>/dev/null; do
		[ $wn -ge "$3" ] && return 1
		if [ $# -ge 4 ] && ! alive "$4"; then
			grep -Eq -- "$2" "$1" 2>/dev/null
			return
		fi
		sleep 0.1
		wn=$((wn + 1))
	done
	return 0
}

# wait_count FILE ERE N TENTHS: wait until at least N lines of FILE match.
wait_count() {
	wn=0
	while [ "$(grep -Ec -- "$2" "$1" 2>/dev/null || true)" -lt "$3" ]; do
		[ $wn -ge "$4" ] && return 1
		sleep 0.1
		wn=$((wn + 1))
	done
	return 0
}

# wait_lines FILE N TENTHS: wait until FILE has at least N lines.
wait_lines() {
	wn=0
	while [ "$(grep -c '' "$1" 2>/dev/null || true)" -lt "$2" ]; do
		[ $wn -ge "$3" ] && return 1
		sleep 0.1
		wn=$((wn + 1))
	done
	return 0
}

# audit_logs NAME LOG...: `harn-egressd audit` counts every line of these
# decision logs, which a proxy wrote: none malformed, as many records as
# lines.  Its JSON summary is left in $TMP/audit.json.
audit_logs() {
	aname=$1
	shift
	if [ $# -eq 0 ]; then
		not_ok "$aname" "no decision log to audit"
		return
	fi
	"$EGRESSD" audit --json --top 0 "$@" >"$TMP/audit.json" \
	    2>"$TMP/audit.err"
	arc=$?
	alines=$(cat "$@" | grep -c '' || true)
	if $PY - "$TMP/audit.json" "$alines" "$arc" >"$TMP/audit.out" 2>&1 <<'EOF'
import json, sys
lines, rc = int(sys.argv[2]), int(sys.argv[3])
try:
    j = json.load(open(sys.argv[1]))
except ValueError as e:
    sys.exit("no summary: %s" % e)
bad = ["exit %d" % rc] if rc != 0 else []
if j["malformed"]:
    bad.append("%d malformed" % j["malformed"])
if j["records"] != lines:
    bad.append("%d records of %d lines" % (j["records"], lines))
print("; ".join(bad) or "%d records, every line counted" % lines)
sys.exit(1 if bad else 0)
EOF
	then
		ok "$aname ($(cat "$TMP/audit.out"))"
	else
		not_ok "$aname" "$(cat "$TMP/audit.out")" \
		    "$(head -c 600 "$TMP/audit.err")"
	fi
}

finish() {
	echo "1..$T_N"
	echo "$T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ "$T_FAIL" -eq 0 ]
}

# relay PREFIX FILE RC: a sub-pass's TAP lines, as ours, prefixed.
relay() {
	done_line=0
	while IFS= read -r line; do
		case $line in
		"ok "*" - SKIP "*) skip "$1${line#* - SKIP }" ;;
		"ok "*) ok "$1${line#* - }" ;;
		"not ok "*) not_ok "$1${line#* - }" ;;
		"1.."*) done_line=1 ;;
		*) echo "$line" ;;
		esac
	done <"$2"
	if [ $done_line -eq 0 ]; then
		not_ok "$1the pass ran to its end" "exit $3"
	fi
}

# nobody_pass NAME PASSVAR [FILE...]: tests/NAME.sh (NAME: ROOM/SUITE)
# again as nobody, from copies nobody may read (the script, lib.sh, each
# FILE, a path under $top_srcdir copied to the same place under the copy's,
# the binary), with PASSVAR=unprivileged and the caller's NP_ENV (NAME='VALUE'
# words); its lines come back as ours, prefixed "nobody: ".
nobody_pass() {
	np_name=$1 np_var=$2
	shift 2
	NB=$(mktemp -d "/tmp/harn-$(echo "$np_name" | tr / -).XXXXXX")
	NB_DIR=$NB
	at_exit rm_nobody
	mkdir -p "$NB/tmp"
	for np_f in "$top_srcdir/tests/$np_name.sh" "$top_srcdir/tests/lib.sh" \
	    "$@"; do
		np_rel=${np_f#"$top_srcdir"/}
		mkdir -p "$NB/src/$(dirname "$np_rel")"
		cp "$np_f" "$NB/src/$np_rel"
	done
	cp "$EGRESSD" "$NB/harn-egressd"
	chmod -R a+rX "$NB"
	chown -R nobody "$NB"
	# Its status is relay's to judge: a failing pass must not end this
	# script here, unsaid, when an expect_rc before left set -e on.
	np_rc=0
	su nobody -s /bin/sh -c "cd '$NB' && env -i \
	    PATH=/usr/local/bin:/usr/bin:/bin TMPDIR='$NB/tmp' HOME='$NB' \
	    LANG=C PYTHON='$PYIN' $np_var=unprivileged ${NP_ENV:-} \
	    HARN_EGRESSD='$NB/harn-egressd' top_srcdir='$NB/src' \
	    top_builddir='$NB' sh '$NB/src/tests/$np_name.sh'" \
	    </dev/null >"$TMP/nobody.out" 2>&1 || np_rc=$?
	relay "nobody: " "$TMP/nobody.out" $np_rc
}
rm_nobody() {
	rm -rf "$NB_DIR"
}
