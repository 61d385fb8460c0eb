#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Observe, then enforce (SPEC 3.1, 5): a CI job run confined in report
# mode, its log turned into rules by `audit --suggest` and into a whole
# policy by `audit --suggest --full`, the same job enforced with that
# policy; and which process asked, on every line.
#
# The job is a shell script that runs curl (HTTP forwarding, CONNECT and
# SOCKS5), python (urllib) and a python process that tries to go around
# the proxy (a unix socket of the host's, outside the workspace).  Names
# come from tests/dnsd.py on loopback; the origin is on loopback too.
# They resolve to 127.0.0.1 (report mode runs with allow_loopback on), but
# zero.test to 0.0.0.0: special-purpose 0.0.0.0/8, which block_private
# refuses (private_address, in report mode too) and only an exempt lifts,
# and which the kernel connects to loopback, so the origin answers it.
# unused.test, which the job never asks for, is at 127.0.0.2: the job's
# request to the literal 127.0.0.1 makes --full allow 127.0.0.1:PORT, an
# address rule, which admits every name resolving to it (SPEC 3.3, 6d).
#
# Each confinement (namespaces, landlock), as root and then as nobody
# (su; the script again, with copies nobody may read).
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/observe.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
set +e
EGRESSD=${HARN_EGRESSD:-$EGRESSD}
PASS=${HARN_OBSERVE_PASS:-auto}
H_PY="$top_srcdir/tests/pyhelpers.py"
DNSD="$top_srcdir/tests/dnsd.py"
export LANG=C

# ------------------------------------------------------------------ fixture

setup() {
	printf '%s\n' "good.test A 127.0.0.1" "connect.test A 127.0.0.1" \
	    "socks.test A 127.0.0.1" "py.test A 127.0.0.1" \
	    "unused.test A 127.0.0.2" "zero.test A 0.0.0.0" >"$TMP/zone"
	$PY "$DNSD" --zone "$TMP/zone" --port-file "$TMP/dns.port" \
	    >"$TMP/dnsd.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	$PY "$H_PY" origin --port-file "$TMP/origin.port" \
	    >"$TMP/origin.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	# The host service the job tries to reach around the proxy: in the
	# home directory, which the command sees (read-only) in both
	# confinements, unlike the host's /tmp.
	mkdir -p "$TMP/home"
	CANARY=$TMP/home/canary.sock
	$PY -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(8)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept()
    with open(sys.argv[2], "a") as f:
        f.write("connected\n")
    c.close()
' "$CANARY" "$TMP/canary.log" >"$TMP/canary.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	wait_file "$TMP/dns.port" 50 >/dev/null
	wait_file "$TMP/origin.port" 50 >/dev/null
	wn=0
	while [ ! -e "$TMP/canary.log" ] && [ $wn -lt 50 ]; do
		sleep 0.1
		wn=$((wn + 1))
	done
	if [ ! -s "$TMP/dns.port" ] || [ ! -s "$TMP/origin.port" ] ||
	    [ ! -e "$TMP/canary.log" ]; then
		not_ok "fixture: dnsd, origin and the unix canary start" \
		    "$(cat "$TMP/dnsd.out" "$TMP/origin.out" "$TMP/canary.out" | head -c 600)"
		return 1
	fi
	DNS=$(cat "$TMP/dns.port")
	OPORT=$(cat "$TMP/origin.port")
	ok "fixture: dnsd, origin and the unix canary start"
	return 0
}

# job WS EXTRA: the CI job's script in workspace WS; with EXTRA, one more
# request, to an address literal (never in a plain suggestion; --full
# gives it its own allow ADDR:PORT line).
job() {
	cat >"$1/job.sh" <<EOF
#!/bin/sh
# Through the proxy the environment names: HTTP forwarding, CONNECT, SOCKS5.
curl -sS -o /dev/null -w 'curl-http %{http_code}\n' http://good.test:$OPORT/a
curl -sS -p -o /dev/null -w 'curl-connect %{http_code}\n' http://connect.test:$OPORT/b
curl -sS -x "socks5h://\${HTTP_PROXY#http://}" -o /dev/null \\
    -w 'curl-socks %{http_code}\n' http://socks.test:$OPORT/c
$PYIN -c 'import urllib.request as u; print("py-http", u.urlopen("http://py.test:$OPORT/d", timeout=10).status)'
# A name in a special-purpose range: refused until an exempt lifts it.
curl -sS -o /dev/null -w 'curl-zero %{http_code}\n' http://zero.test:$OPORT/f
# Around the proxy: the host's service on a unix socket.
$PYIN -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
    print("direct connected")
except OSError as e:
    print("direct refused", e.errno)
' "$CANARY"
EOF
	if [ -n "$2" ]; then
		echo "curl -sS --noproxy '' -x \"\$HTTP_PROXY\" -o /dev/null -w 'curl-literal %{http_code}\n' http://127.0.0.1:$OPORT/e" \
		    >>"$1/job.sh"
	fi
	chmod 755 "$1/job.sh"
}

SETTINGS=""
# run NAME CONF POLICY LOG [ATTEST] -- CMD...: confined in CONF; output in
# $TMP/NAME.out (stdout) and $TMP/NAME.err; sets RC.
run() {
	rname=$1 rconf=$2 rpol=$3 rlog=$4
	shift 4
	rattest=""
	if [ "$1" != "--" ]; then
		rattest=$1
		shift
	fi
	shift
	# shellcheck disable=SC2086
	env HOME="$TMP/home" "$EGRESSD" --policy "$rpol" \
	    --confinement "$rconf" --workspace "$WS" \
	    --log "$rlog" ${rattest:+--attest "$rattest"} -- "$@" \
	    >"$TMP/$rname.out" 2>"$TMP/$rname.err"
	RC=$?
}

# check_lines NAME LOG MODE: every line of the job's log as it should be
# (MODE report: the report run; enforce: the enforced one).
check_lines() {
	$PY - "$2" "$3" "$OPORT" "$CANARY" >"$TMP/lines.out" 2>&1 <<'EOF'
import json, os, sys
log, mode, oport, canary = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
lines = [json.loads(l) for l in open(log)]
want = {"good.test": ("http", "curl"), "connect.test": ("http_connect", "curl"),
        "socks.test": ("socks5", "curl"), "py.test": ("http", "python3"),
        "zero.test": ("http", "curl"), "127.0.0.1": ("http", "curl")}
bad, seen, pids = [], set(), set()
for l in lines:
    if l.get("event") == "close":
        continue    # an allowed connection's end (SPEC 5), not a decision
    if l["protocol"] == "direct":
        ok = (l["decision"] == "deny" and l["reason"] == "not_through_proxy"
              and l["addr"] == "unix:" + canary and l.get("pid", 0) > 0
              and os.path.basename(l.get("exe", "")).startswith("python3"))
        if not ok:
            bad.append("direct line: %s" % l)
        seen.add("direct")
        continue
    h = l["host"]
    if h not in want:
        bad.append("unexpected host: %s" % l)
        continue
    proto, prog = want[h]
    seen.add(h)
    if l["protocol"] != proto or l["port"] != oport:
        bad.append("%s: protocol %s port %s" % (h, l["protocol"], l["port"]))
    if mode == "report" and h == "zero.test":
        # The special-purpose block refuses in report mode too.
        if (l["decision"], l["reason"], l.get("addr")) != ("deny", "private_address", "0.0.0.0"):
            bad.append("zero.test: %s %s addr %s" % (l["decision"], l["reason"], l.get("addr")))
    elif l["decision"] != "allow":
        bad.append("%s refused: %s" % (h, l["reason"]))
    elif mode == "report":
        r = "allow_rule" if h == "good.test" else "report_only"
        if l["reason"] != r or (r == "report_only") != ("would" in l):
            bad.append("%s: reason %s would %s" % (h, l["reason"], l.get("would")))
        if r == "report_only" and l["would"] != "no_allow_rule":
            bad.append("%s: would %s" % (h, l["would"]))
    elif l["reason"] != "allow_rule" or "would" in l:
        bad.append("%s: reason %s" % (h, l["reason"]))
    # Which process asked: the host's pid of a process of that program.
    if l.get("pid", 0) <= 0 or not os.path.basename(l.get("exe", "")).startswith(prog):
        bad.append("%s: pid %s exe %s, want %s" % (h, l.get("pid"), l.get("exe"), prog))
    pids.add(l.get("pid"))
missing = set(want) | {"direct"}
missing -= seen
if missing:
    bad.append("no line for %s" % ", ".join(sorted(missing)))
if len(pids) < len(want):
    bad.append("%d pids for %d requests by as many processes" % (len(pids), len(want)))
print("; ".join(bad) or "%d lines, each with its process" % len(lines))
sys.exit(1 if bad else 0)
EOF
	if [ $? -eq 0 ]; then
		ok "$1: $(cat "$TMP/lines.out")"
	else
		not_ok "$1" "$(head -c 900 "$TMP/lines.out")" \
		    "log: $(head -c 900 "$2")"
	fi
}

# expect_out NAME FILE LINE...: the job printed each LINE.
expect_out() {
	eo_name=$1 eo_file=$2
	shift 2
	eo_miss=""
	for l in "$@"; do
		grep -qx -- "$l" "$eo_file" || eo_miss="$eo_miss [$l]"
	done
	if [ -z "$eo_miss" ]; then
		ok "$eo_name"
	else
		not_ok "$eo_name" "missing:$eo_miss" "stdout: $(head -c 500 "$eo_file")" \
		    "stderr: $(head -c 500 "$TMP/$(basename "$eo_file" .out).err")"
	fi
}

# ------------------------------------------------------------------ a pass

observe() {
	c=$1
	WS=$TMP/ws-$c
	rm -rf "$WS"
	mkdir -p "$WS"
	job "$WS" extra
	: >"$TMP/canary.log"
	SETTINGS="allow_loopback on
resolver 127.0.0.1:$DNS"
	printf 'mode report\n%s\nallow good.test:%s\n' "$SETTINGS" "$OPORT" \
	    >"$TMP/report-$c.conf"
	rm -f "$TMP/report-$c.log" "$TMP/report-$c.json"
	run "report-$c" "$c" "$TMP/report-$c.conf" "$TMP/report-$c.log" \
	    "$TMP/report-$c.json" -- sh "$WS/job.sh"
	if [ "$RC" -ne 0 ]; then
		not_ok "$c: the job runs in report mode" "exit $RC" \
		    "$(head -c 600 "$TMP/report-$c.err")"
		return
	fi
	expect_out "$c: report mode lets every request through but the special-purpose address; the direct attempt is refused" \
	    "$TMP/report-$c.out" "curl-http 200" "curl-connect 200" \
	    "curl-socks 200" "py-http 200" "curl-literal 200" "curl-zero 403" \
	    "direct refused 13"
	expect_grep "$c: one stderr line says report mode is not enforcing" \
	    "$TMP/report-$c.err" '^harn-egressd: policy in report mode: NOT ENFORCING'
	check_lines "$c: report run: each line says who asked, report_only says what enforcing would" \
	    "$TMP/report-$c.log" report
	if [ -s "$TMP/canary.log" ]; then
		not_ok "$c: the host's unix service saw no connection" \
		    "$(cat "$TMP/canary.log")"
	else
		ok "$c: the host's unix service saw no connection"
	fi
	if $PY -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(j["policy"]["mode"] != "report")' \
	    "$TMP/report-$c.json"; then
		ok "$c: the report says policy.mode report"
	else
		not_ok "$c: the report says policy.mode report" \
		    "$(head -c 400 "$TMP/report-$c.json")"
	fi
	audit_logs "$c: audit counts every line of the report run" \
	    "$TMP/report-$c.log"
	"$EGRESSD" audit "$TMP/report-$c.log" >"$TMP/audit-$c.txt" 2>&1
	expect_grep "$c: audit: decisions by process (curl)" "$TMP/audit-$c.txt" \
	    '^  /usr/bin/curl: allow 4, deny 1$'
	expect_grep "$c: audit: the direct attempt, by process and endpoint" \
	    "$TMP/audit-$c.txt" "^ +1  unix:$CANARY\$"
	expect_grep "$c: audit: what report mode let through" \
	    "$TMP/audit-$c.txt" "^ +1  py\\.test:$OPORT no_allow_rule\$"
	# The suggestion, checked, and enforced.
	"$EGRESSD" audit --suggest "$TMP/report-$c.log" >"$TMP/suggest-$c.conf" \
	    2>"$TMP/suggest-$c.err"
	if [ $? -eq 0 ] && [ "$(grep '^allow ' "$TMP/suggest-$c.conf" | sed 's/  #.*//' | sort | tr '\n' ' ')" = \
	    "allow connect.test:$OPORT allow good.test:$OPORT allow py.test:$OPORT allow socks.test:$OPORT " ]; then
		ok "$c: audit --suggest: one allow line for each host the job used"
	else
		not_ok "$c: audit --suggest: one allow line for each host the job used" \
		    "$(head -c 900 "$TMP/suggest-$c.conf")" "$(head -c 300 "$TMP/suggest-$c.err")"
	fi
	if grep -E '^allow .*(127\.|\[::1\]|10\.|169\.254\.)' "$TMP/suggest-$c.conf" >/dev/null; then
		not_ok "$c: the suggestion names no loopback, private or metadata address" \
		    "$(grep '^allow ' "$TMP/suggest-$c.conf")"
	else
		ok "$c: the suggestion names no loopback, private or metadata address"
	fi
	expect_grep "$c: the address literal is left out, and said so" \
	    "$TMP/suggest-$c.conf" '^# Left out: 1 special-purpose or metadata address'
	expect_grep "$c: zero.test, refused private_address, is left out, and said so" \
	    "$TMP/suggest-$c.conf" '^# Left out: 1 target refused private_address \(audit --suggest --full$'
	{ echo "$SETTINGS"; cat "$TMP/suggest-$c.conf"; } >"$TMP/plain-$c.conf"
	expect_rc "$c: check accepts the suggestion with the report run's settings" \
	    0 "$EGRESSD" check --policy "$TMP/plain-$c.conf"
	# --full: a whole policy; the only line added is the resolver, which
	# no log holds (the test's own DNS server).
	"$EGRESSD" audit --suggest --full "$TMP/report-$c.log" \
	    >"$TMP/full-$c.conf" 2>"$TMP/full-$c.err"
	expect_rc "$c: check accepts audit --suggest --full as it is" 0 \
	    "$EGRESSD" check --policy "$TMP/full-$c.conf"
	if [ "$(grep -v '^#' "$TMP/full-$c.conf" | sed 's/  #.*//' | sort | tr '\n' ' ')" = \
	    "allow 127.0.0.1:$OPORT allow connect.test:$OPORT allow good.test:$OPORT allow py.test:$OPORT allow socks.test:$OPORT allow zero.test:$OPORT allow_loopback on block_private on default deny exempt 0.0.0.0/8 mode enforce " ]; then
		ok "$c: --full: default deny, the settings the addresses need, an allow line for each target the job asked for"
	else
		not_ok "$c: --full: default deny, the settings the addresses need, an allow line for each target" \
		    "$(head -c 1500 "$TMP/full-$c.conf")" "$(head -c 300 "$TMP/full-$c.err")"
	fi
	# The exempt is a security decision: its comment names who needs it.
	if $PY - "$TMP/full-$c.conf" "zero.test:$OPORT" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("exempt 0.0.0.0/8")
above = []
while i > 0 and lines[i - 1].startswith("#"):
    i -= 1
    above.insert(0, lines[i])
text = "\n".join(above)
sys.exit(0 if "#   %s (0.0.0.0)" % sys.argv[2] in above and "security decision" in text else 1)
EOF
	then
		ok "$c: --full: the exempt's comment names zero.test and says it is a security decision"
	else
		not_ok "$c: --full: the exempt's comment names zero.test and says it is a security decision" \
		    "$(head -c 1500 "$TMP/full-$c.conf")"
	fi
	{ cat "$TMP/full-$c.conf"; echo "resolver 127.0.0.1:$DNS"; } \
	    >"$TMP/enforce-$c.conf"
	# The control: without its exempt line, zero.test stays refused.
	grep -vx 'exempt 0\.0\.0\.0/8' "$TMP/enforce-$c.conf" >"$TMP/noexempt-$c.conf"
	"$EGRESSD" explain --resolve --policy "$TMP/noexempt-$c.conf" \
	    "zero.test:$OPORT" >"$TMP/noexempt-$c.out" 2>&1
	"$EGRESSD" explain --resolve --policy "$TMP/enforce-$c.conf" \
	    "zero.test:$OPORT" >>"$TMP/noexempt-$c.out" 2>&1
	if grep -q "^zero\.test:$OPORT deny private_address .*addr=0\.0\.0\.0" "$TMP/noexempt-$c.out" &&
	    grep -q "^zero\.test:$OPORT allow allow_rule allow zero\.test:$OPORT addr=0\.0\.0\.0" "$TMP/noexempt-$c.out"; then
		ok "$c: --full: zero.test passes by its exempt line, and is refused without it"
	else
		not_ok "$c: --full: zero.test passes by its exempt line, and is refused without it" \
		    "$(head -c 600 "$TMP/noexempt-$c.out")"
	fi
	job "$WS" extra
	rm -f "$TMP/enforce-$c.log"
	run "enforce-$c" "$c" "$TMP/enforce-$c.conf" "$TMP/enforce-$c.log" \
	    -- sh "$WS/job.sh"
	expect_out "$c: enforced with --full: every request the report run asked for passes, zero.test's too" \
	    "$TMP/enforce-$c.out" "curl-http 200" "curl-connect 200" \
	    "curl-socks 200" "py-http 200" "curl-zero 200" "curl-literal 200" \
	    "direct refused 13"
	if grep '"decision":"deny"' "$TMP/enforce-$c.log" |
	    grep -qv '"protocol":"direct"'; then
		not_ok "$c: enforced with --full: zero refusals" \
		    "$(grep '"decision":"deny"' "$TMP/enforce-$c.log" | head -3)"
	else
		ok "$c: enforced with --full: zero refusals (the direct attempt aside: no policy admits it)"
	fi
	check_lines "$c: enforced run: allow_rule, each line with its process" \
	    "$TMP/enforce-$c.log" enforce
	rm -f "$TMP/unused-$c.log"
	run "unused-$c" "$c" "$TMP/enforce-$c.conf" "$TMP/unused-$c.log" \
	    -- curl -sS -o /dev/null -w 'curl-unused %{http_code}\n' \
	    "http://unused.test:$OPORT/"
	expect_out "$c: a host the job did not use stays refused (403)" \
	    "$TMP/unused-$c.out" "curl-unused 403"
	expect_grep "$c: ... logged no_allow_rule, with curl as who asked" \
	    "$TMP/unused-$c.log" '"host":"unused\.test".*"decision":"deny","reason":"no_allow_rule".*"pid":[0-9]+,"exe":"/usr/bin/curl"'
}

suite() {
	echo "# pass: $1 (uid $(id -u))"
	setup || return
	: >"$TMP/empty.conf"
	mkdir -p "$TMP/probe-ws"
	for c in namespaces landlock; do
		# Exit 3: os_hardened's refusal where c cannot attach here.
		"$EGRESSD" --policy "$TMP/empty.conf" --confinement "$c" \
		    --profile os_hardened --workspace "$TMP/probe-ws" -- true \
		    >"$TMP/probe-$c.out" 2>&1
		case $? in
		0)	observe "$c" ;;
		3)	skip "$c: cannot attach here: $(head -c 300 "$TMP/probe-$c.out")" ;;
		*)	not_ok "$c: a confined true runs" \
			    "$(head -c 400 "$TMP/probe-$c.out")" ;;
		esac
	done
}

if [ "$PASS" = unprivileged ] || [ "$(id -u)" -ne 0 ]; then
	suite unprivileged
else
	suite root
	if id nobody >/dev/null 2>&1; then
		nobody_pass sandbox/observe HARN_OBSERVE_PASS \
		    "$top_srcdir/tests/dnsd.py" "$top_srcdir/tests/pyhelpers.py"
	else
		skip "unprivileged pass: no user 'nobody'"
	fi
fi
finish
