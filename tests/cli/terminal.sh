#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run mode tells the terminal what it refused (SPEC 6.1), --log or not:
# the first refusal of each target is one stderr line with the reason and
# what would admit it (the allow line; the exempt for a private range);
# at exit one summary (by reason, the targets, where the log is);
# --quiet silences both.  Names come from tests/dnsd.py on loopback; the
# private address a name resolves to is refused before any connect.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/cli/terminal.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
set +e
EGRESSD=${HARN_EGRESSD:-$EGRESSD}
DNSD="$top_srcdir/tests/dnsd.py"
export LANG=C

printf '%s\n' "priv.test A 10.9.8.7" "ok.test A 127.0.0.1" >"$TMP/zone"
$PY "$DNSD" --zone "$TMP/zone" --port-file "$TMP/dns.port" \
    >"$TMP/dnsd.out" 2>&1 &
BG_PIDS="$BG_PIDS $!"
if ! wait_file "$TMP/dns.port" 50; then
	not_ok "fixture: dnsd starts" "$(head -c 400 "$TMP/dnsd.out")"
	finish
	exit
fi
mkdir -p "$TMP/policy" "$TMP/ws" "$TMP/home"
# A host service the job tries to reach around the proxy: a unix socket
# in the home directory, which the command sees in both confinements.
$PY -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
open(sys.argv[2], "w").write("up")
while True:
    s.accept()[0].close()
' "$TMP/home/canary.sock" "$TMP/canary.up" >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
wait_file "$TMP/canary.up" 50 >/dev/null
cat >"$TMP/policy/egress.conf" <<EOF
default deny
resolver 127.0.0.1:$(cat "$TMP/dns.port")
allow priv.test:443
EOF
# The job: two refused CONNECTs to one host, one to another, a name that
# resolves into a private range, and a connection around the proxy.
cat >"$TMP/ws/job.sh" <<'EOF'
#!/bin/sh
for t in nope.test:443 nope.test:443 other.test:8443 priv.test:443; do
	curl -s -o /dev/null -w "curl $t %{http_code}\n" -p -x "$HTTPS_PROXY" \
	    "http://$t/" || true
done
python3 -S -c '
import os, socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(os.environ["HOME"] + "/canary.sock")
except OSError as e:
    print("direct", e.errno)'
echo job-done
EOF
chmod 755 "$TMP/ws/job.sh"

job() {
	HOME=$TMP/home "$EGRESSD" --policy "$TMP/policy/egress.conf" \
	    --workspace "$TMP/ws" "$@" -- "$TMP/ws/job.sh" >"$TMP/job.out" \
	    2>"$TMP/job.err"
	JRC=$?
}

check_lines() {
	label=$1 logword=$2
	if [ "$JRC" -ne 0 ] || ! grep -q '^job-done$' "$TMP/job.out"; then
		not_ok "$label: the job runs" "exit $JRC: $(head -c 600 "$TMP/job.err")"
		return
	fi
	expect_grep "$label: a refused CONNECT is said with the line that would admit it" \
	    "$TMP/job.err" "^harn-egressd: refused http_connect nope\\.test:443: no_allow_rule: the policy line 'allow nope\\.test:443' would admit it$"
	n=$(grep -c 'refused http_connect nope\.test:443' "$TMP/job.err")
	if [ "$n" -eq 1 ]; then
		ok "$label: ... once, though it was refused twice"
	else
		not_ok "$label: ... once, though it was refused twice" "$n lines"
	fi
	expect_grep "$label: a name in a private range: the exempt that would admit it" \
	    "$TMP/job.err" "^harn-egressd: refused http_connect priv\\.test:443: private_address \\(10\\.9\\.8\\.7\\): .*exempt"
	expect_grep "$label: a connection around the proxy is said" \
	    "$TMP/job.err" "refused a direct connection to unix:$TMP/home/canary\\.sock"
	expect_grep "$label: the exit summary: by reason, the targets, $logword" \
	    "$TMP/job.err" "^harn-egressd: 5 refused \\(no_allow_rule 3, private_address 1, not_through_proxy 1\\): nope\\.test:443, other\\.test:8443, priv\\.test:443, unix:$TMP/home/canary\\.sock; $logword"
	last=$(tail -n 1 "$TMP/job.err")
	case $last in
	"harn-egressd: 5 refused"*) ok "$label: ... as the last line" ;;
	*) not_ok "$label: ... as the last line" "last: $last" ;;
	esac
}

job --log "$TMP/run.log"
check_lines "--log FILE" "decision log: $TMP/run\\.log"
expect_no_grep "--log FILE: the decision lines stay in the log" \
    "$TMP/job.err" '"decision"'
job
check_lines "no --log" "no decision log"
job --log "$TMP/run2.log" --quiet
if [ "$JRC" -eq 0 ] && grep -q '^job-done$' "$TMP/job.out" &&
    ! grep -q 'refused' "$TMP/job.err"; then
	ok "--quiet: no refusal line, no summary"
else
	not_ok "--quiet: no refusal line, no summary" \
	    "exit $JRC: $(head -c 600 "$TMP/job.err")"
fi
expect_grep "--quiet: the log still has every refusal" "$TMP/run2.log" \
    '"host":"nope\.test","port":443,"decision":"deny","reason":"no_allow_rule"'
# Nothing refused: nothing said.
printf '#!/bin/sh\necho fine\n' >"$TMP/ws/fine.sh"
chmod 755 "$TMP/ws/fine.sh"
"$EGRESSD" --policy "$TMP/policy/egress.conf" --workspace "$TMP/ws" \
    --log "$TMP/run3.log" -- "$TMP/ws/fine.sh" >"$TMP/fine.out" 2>"$TMP/fine.err"
if [ $? -eq 0 ] && ! grep -q 'refused' "$TMP/fine.err"; then
	ok "nothing refused: no summary"
else
	not_ok "nothing refused: no summary" "$(head -c 400 "$TMP/fine.err")"
fi
finish
