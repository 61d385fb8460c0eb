# SPDX-License-Identifier: Apache-2.0
# What the proxy suites (tests/proxy/*.sh) share: the fixture, the
# helpers, the main proxy some of them run their areas on, the audit of
# their decision logs and the run.  A suite sources tests/lib.sh, then
# this, defines its areas and ends with proxy_suite AREA...
#
# The proxy in service mode, end to end (SPEC 2, 3, 4, 5): HTTP forwarding,
# CONNECT, SOCKS5, pinned DNS, refusals, limits, the decision log, signals.
#
# Everything runs on loopback: tests/dnsd.py answers the proxy's DNS
# questions, tests/pyhelpers.py provides the origins (HTTP, TLS, a byte
# transfer peer), canary listeners that must never be reached, and the raw
# clients.  Each area is a function; areas that need their own policy start
# their own proxy.  Every server started here is stopped at exit, and every
# client has a timeout.


H="$top_srcdir/tests/pyhelpers.py"
DNSD="$top_srcdir/tests/dnsd.py"

# ------------------------------------------------------------------ helpers


now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# start_server NAME SUBCOMMAND ARGS...: a pyhelpers server; sets SRV_PORT.
start_server() {
	sname=$1
	shift
	rm -f "$TMP/$sname.port"
	$PY "$H" "$@" --port-file "$TMP/$sname.port" \
	    >"$TMP/$sname.out" 2>&1 &
	spid=$!
	BG_PIDS="$BG_PIDS $spid"
	SRV_PORT=""
	if wait_file "$TMP/$sname.port" 50 "$spid"; then
		SRV_PORT=$(head -n1 "$TMP/$sname.port")
		return 0
	fi
	not_ok "test server $sname starts" "$(head -c 600 "$TMP/$sname.out")"
	return 1
}

# start_proxy NAME POLICY [ARGS...]: start one proxy instance on
# 127.0.0.1:0 with --port-file and --log $TMP/NAME.log; sets PX_PID and
# PX_PORT.  Reports and returns 1 when it does not come up.
start_proxy() {
	pname=$1 ppol=$2
	shift 2
	rm -f "$TMP/$pname.port"
	"$EGRESSD" --policy "$ppol" --listen 127.0.0.1:0 \
	    --port-file "$TMP/$pname.port" --log "$TMP/$pname.log" "$@" \
	    >"$TMP/$pname.stdout" 2>"$TMP/$pname.stderr" &
	PX_PID=$!
	BG_PIDS="$BG_PIDS $PX_PID"
	PX_LOGS="$PX_LOGS $TMP/$pname.log"
	PX_PORT=""
	if wait_file "$TMP/$pname.port" 50 "$PX_PID"; then
		PX_PORT=$(head -n1 "$TMP/$pname.port")
		# The stdout line is flushed once accepting.
		wait_file "$TMP/$pname.stdout" 20 "$PX_PID" || true
		return 0
	fi
	if alive "$PX_PID"; then
		kill "$PX_PID" 2>/dev/null
		prc="still running after 5 s"
	else
		wait "$PX_PID"
		prc="exit $?"
	fi
	not_ok "$pname: the proxy starts (--port-file written)" "$prc" \
	    "stdout: $(head -c 300 "$TMP/$pname.stdout")" \
	    "stderr: $(head -c 300 "$TMP/$pname.stderr")"
	return 1
}

# stop_proxy NAME PID: SIGTERM, wait (bounded); sets STOP_RC (-1: hung).
stop_proxy() {
	STOP_RC=-1
	kill -TERM "$2" 2>/dev/null || true
	if wait_gone "$2" 60; then
		wait "$2"
		STOP_RC=$?
	else
		kill -9 "$2" 2>/dev/null || true
	fi
}

CURL() {
	curl -q -sS --max-time 5 --noproxy '' "$@"
}

# http_code PORT URL: the status a forwarded GET through the proxy gets.
http_code() {
	CURL -x "http://127.0.0.1:$1" -o /dev/null -w '%{http_code}' "$2" \
	    2>/dev/null
}

# raw PORT REQ...: one connection, one response read per request, summary
# in $TMP/raw.out.
raw() {
	rport=$1
	shift
	$PY "$H" raw --proxy "$rport" "$@" >"$TMP/raw.out" 2>&1 || true
}

# field KEY [FILE]: the value of the first "KEY value" line.
field() {
	sed -n "s/^$1 //p" "${2:-$TMP/raw.out}" | head -n1
}

# section N: response N of $TMP/raw.out into $TMP/sec.out
section() {
	awk -v n="$1" '/^--- response /{c=$3} c==n' "$TMP/raw.out" >"$TMP/sec.out"
}

show() {
	head -c 700 "${1:-$TMP/raw.out}"
}

# refusal NAME PORT STATUS REASON-ERE REQ...: the proxy answers STATUS with
# X-Harn-Egress-Reason matching REASON-ERE, Connection: close, a one-line
# body, and closes the connection.
refusal() {
	fname=$1 fport=$2 fst=$3 frs=$4
	shift 4
	raw "$fport" "$@"
	check_refusal "$fname" "$fst" "$frs" "$TMP/raw.out"
}

check_refusal() {
	missing=""
	grep -q "^status $2\$" "$4" || missing="$missing status-$2"
	grep -Eq "^header x-harn-egress-reason: ($3)\$" "$4" ||
	    missing="$missing reason=$3"
	grep -Eiq '^header connection: (.*[ ,])?close([ ,].*)?$' "$4" ||
	    missing="$missing connection-close"
	grep -Eq '^body [^\\]+(\\n)?$' "$4" || missing="$missing one-line-body"
	grep -q '^closed yes' "$4" || missing="$missing closed-after"
	if [ -z "$missing" ]; then
		ok "$1"
	else
		not_ok "$1" "missing:$missing" "$(show "$4")"
	fi
}

# expect_status NAME STATUS: $TMP/raw.out (or $TMP/sec.out) has STATUS.
expect_status() {
	if grep -q "^status $2\$" "${3:-$TMP/raw.out}"; then
		ok "$1"
	else
		not_ok "$1" "want status $2" "$(show "${3:-$TMP/raw.out}")"
	fi
}

# socks PORT ARGS...: a SOCKS5 exchange, summary in $TMP/socks.out.
socks() {
	sport=$1
	shift
	$PY "$H" socks5 --proxy "$sport" "$@" >"$TMP/socks.out" 2>&1 || true
}

# socks_reply NAME CODE PORT ARGS...: the SOCKS5 reply code is CODE (hex).
socks_reply() {
	sname=$1 scode=$2
	shift 2
	socks "$@"
	if grep -q "^reply 05 $scode " "$TMP/socks.out"; then
		ok "$sname"
	else
		not_ok "$sname" "want reply 05 $scode" "$(show "$TMP/socks.out")"
	fi
}

# same_body NAME FILE WANT: FILE holds exactly the bytes WANT (printf %b).
same_body() {
	printf '%b' "$3" >"$TMP/want.body"
	if cmp -s "$2" "$TMP/want.body"; then
		ok "$1"
	else
		not_ok "$1" "body differs: $(head -c 300 "$2" | od -c | head -5)" \
		    "stderr: $(head -c 300 "$TMP/curl.err" 2>/dev/null)"
	fi
}

# no_lines NAME FILE: FILE exists and is empty.
no_lines() {
	if [ ! -e "$2" ]; then
		not_ok "$1" "$2 does not exist (listener not started?)"
	elif [ -s "$2" ]; then
		not_ok "$1" "$(head -5 "$2")"
	else
		ok "$1"
	fi
}

# hup_wait PID STDERR: SIGHUP, then wait (up to 5 s) for the line that
# says what became of it.
hup_wait() {
	hn=$(grep -Ec '^harn-egressd: SIGHUP: (policy re-read|keeping|no policy)' "$2" || true)
	kill -HUP "$1"
	wait_count "$2" '^harn-egressd: SIGHUP: (policy re-read|keeping|no policy)' \
	    $((hn + 1)) 50 || true
}

# ------------------------------------------------------------- the fixture

ZONE="$TMP/zone"
write_zone() {
	cat >"$ZONE.tmp" <<EOF
good.test      A 127.0.0.1
other.test     A 127.0.0.1
tls.test       A 127.0.0.1
xfer.test      A 127.0.0.1
once.test      A 127.0.0.1
viaip.test     A 127.0.0.1
v6.test        AAAA ::1
wild.test      A 127.0.0.1
a.wild.test    A 127.0.0.1
b.a.wild.test  A 127.0.0.1
refused.test   A 127.0.0.1
late.test      A 127.0.0.1
late.test      DELAY 300
rebind.test    A $1
private.test   A 10.0.0.1
private2.test  A 192.168.7.7
meta.test      A 169.254.169.254
mixed.test     A 127.0.0.3
mixed.test     A 10.0.0.1
mixed6.test    A 127.0.0.3
mixed6.test    AAAA fd00::1
canary.test    A 127.0.0.2
blocked.test   A 127.0.0.2
nope.test      A 127.0.0.2
gone.test      NXDOMAIN
fail.test      SERVFAIL
slow.test      DROP
bare.test      NODATA
mapped.test    AAAA ::ffff:127.0.0.2
mapped10.test  AAAA ::ffff:10.0.0.1
zero.test      A 0.0.0.0
exempt.test    A 127.0.0.4
unlisted.test  A 127.0.0.4
fallback.test  A 127.1.0.9
fallback.test  A 127.0.0.1
*.burst.test   A 127.0.0.1
EOF
	# Over 512 bytes of answers: dnsd truncates, the resolver retries on TCP.
	echo "many.test A 127.0.0.1" >>"$ZONE.tmp"
	i=1
	while [ $i -le 40 ]; do
		[ $i -gt 1 ] && echo "many.test A 127.1.0.$i"
		echo "manybad.test A 127.1.0.$i"
		i=$((i + 1))
	done >>"$ZONE.tmp"
	echo "manybad.test A 10.0.0.1" >>"$ZONE.tmp"
	mv "$ZONE.tmp" "$ZONE"
}
write_zone 127.0.0.1

setup_fixture() {
	FIXTURE=ok
	: >"$TMP/dns.log"
	$PY "$DNSD" --zone "$ZONE" --port-file "$TMP/dns.port" \
	    --log "$TMP/dns.log" >"$TMP/dnsd.out" 2>&1 &
	p=$!
	BG_PIDS="$BG_PIDS $p"
	if wait_file "$TMP/dns.port" 50 "$p"; then
		DNS=$(head -n1 "$TMP/dns.port")
	else
		not_ok "dnsd starts" "$(head -c 400 "$TMP/dnsd.out")"
		DNS=1
		FIXTURE=bad
	fi
	start_server origin origin --log "$TMP/origin.log" || FIXTURE=bad
	ORIGIN=${SRV_PORT:-1}
	# Canaries on the same port as the origin, other loopback addresses:
	# a proxy that connects anywhere but the checked address hits them.
	start_server canary2 canary --bind 127.0.0.2 --port "$ORIGIN" \
	    --log "$TMP/canary2.log" || FIXTURE=bad
	start_server canary3 canary --bind 127.0.0.3 --port "$ORIGIN" \
	    --log "$TMP/canary3.log" || FIXTURE=bad
	start_server origin6 origin --bind ::1 --log "$TMP/origin6.log" || FIXTURE=bad
	ORIGIN6=${SRV_PORT:-1}
	start_server xferd xferd || FIXTURE=bad
	XFER=${SRV_PORT:-1}
	if openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
	    -subj /CN=tls.test -keyout "$TMP/tls.key" -out "$TMP/tls.crt" \
	    >"$TMP/openssl.out" 2>&1; then
		start_server tls tlsorigin --cert "$TMP/tls.crt" \
		    --key "$TMP/tls.key" --log "$TMP/tls.log" || FIXTURE=bad
		TLS=${SRV_PORT:-1}
	else
		not_ok "self-signed certificate" "$(head -c 400 "$TMP/openssl.out")"
		TLS=1
	fi
	start_server tarpit tarpit || FIXTURE=bad
	TARPIT=${SRV_PORT:-1}
	# A port nobody listens on: connections to it are refused.
	CLOSED=$($PY "$H" freeport)
	if [ "$FIXTURE" = ok ]; then
		ok "fixture: dnsd, origin, canaries, transfer peer, TLS origin, tarpit"
	fi
}

# The main policy: loopback origins admitted by host rules, no IP/CIDR
# allow rule (so unlisted names are never resolved).
policy_main() {
	cat <<EOF
# the proxy suites' main policy
default deny
block_private on
allow_loopback on
resolver 127.0.0.1:$DNS
dns_timeout 500ms
connect_timeout 2s
header_timeout 500ms
drain_timeout 2s
max_header_bytes 2048
allow good.test other.test tls.test xfer.test once.test refused.test late.test
allow rebind.test private.test private2.test meta.test mixed.test
allow mixed6.test canary.test gone.test fail.test slow.test bare.test
allow fallback.test v6.test mapped.test mapped10.test zero.test many.test manybad.test
deny blocked.test 127.0.0.2
EOF
}

# --------------------------------------------------------------- the areas

area_start() {
	policy_main >"$TMP/main.conf"
	MP=1
	if start_proxy main "$TMP/main.conf"; then
		MP=$PX_PORT
		MAIN_PID=$PX_PID
		ok "main: the proxy starts and writes its port"
	else
		MAIN_PID=""
		return 0
	fi
	if grep -qx "harn-egressd: listening on 127.0.0.1:$MP" "$TMP/main.stdout"; then
		ok "main: stdout says 'harn-egressd: listening on 127.0.0.1:$MP'"
	else
		not_ok "main: stdout listening line" "$(head -c 300 "$TMP/main.stdout")"
	fi
	if [ "$(wc -l <"$TMP/main.port")" -eq 1 ] &&
	    grep -Eqx '[1-9][0-9]*' "$TMP/main.port"; then
		ok "main: port file is one line with the port"
	else
		not_ok "main: port file is one line with the port" \
		    "$(od -c "$TMP/main.port" | head -3)"
	fi
}

# origin_peers PATH...: the origin's client port for each path's answered
# request ("-" when none), in order; "dropped:PORT" words for requests the
# origin read and dropped.
origin_peers() {
	$PY -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
out = []
for p in sys.argv[2:]:
    m = [r for r in recs if r["path"] == p and not r.get("dropped")]
    d = [r for r in recs if r["path"] == p and r.get("dropped")]
    out.append(str(m[-1]["peer"]) if m else "-")
    out += ["dropped:%d" % r["peer"] for r in d]
print(" ".join(out))' "$TMP/origin.log" "$@"
}

# get PATH [HOST]: a keep-alive GET of PATH through the proxy, for raw.
get() {
	printf 'GET http://%s:%s%s HTTP/1.1\\r\\nHost: %s:%s\\r\\n\\r\\n' \
	    "${2:-good.test}" "$ORIGIN" "$1" "${2:-good.test}" "$ORIGIN"
}

# responses N: raw's last run got N responses, all 200, none closed.
responses() {
	[ "$(grep -c '^status 200$' "$TMP/raw.out")" -eq "$1" ] &&
	    [ "$(grep -c '^--- response' "$TMP/raw.out")" -eq "$1" ] &&
	    ! grep -q '^--- stopped' "$TMP/raw.out"
}

# decisions FILE N: FILE gained exactly N decision lines since mark_log.
# A line is written before its answer is sent: once the client has its
# answers, their lines are in the file.  Close lines (SPEC 5) come when a
# connection ends, which may be later: not counted here.
decision_lines() {
	grep -c '"decision":' "$1" || true
}
mark_log() {
	LOG_MARK=$(decision_lines "$1")
}
decisions() {
	[ $(($(decision_lines "$1") - LOG_MARK)) -eq "$2" ]
}

area_main_end() {
	[ -n "$MAIN_PID" ] || return 0
	if alive "$MAIN_PID"; then
		ok "main: still running after every test"
	else
		not_ok "main: still running after every test" "$(tail -c 500 "$TMP/main.stderr")"
	fi
	t0=$(now_ms)
	stop_proxy main "$MAIN_PID"
	t1=$(now_ms)
	if [ "$STOP_RC" -eq 0 ]; then ok "main: SIGTERM exit 0"; else
		not_ok "main: SIGTERM exit 0" "exit $STOP_RC"; fi
	if [ $((t1 - t0)) -lt 1500 ]; then
		ok "main: with nothing open, SIGTERM exits at once ($((t1 - t0)) ms)"
	else
		not_ok "main: with nothing open, SIGTERM exits at once" "$((t1 - t0)) ms"
	fi
	if $PY "$H" logcheck "$TMP/main.log" >"$TMP/lc.out" 2>&1; then
		ok "main: every decision-log line well-formed ($(tail -n1 "$TMP/lc.out"))"
	else
		not_ok "main: every decision-log line well-formed" "$(head -c 1500 "$TMP/lc.out")"
	fi
	if grep -q '"decision"' "$TMP/main.stdout" "$TMP/main.stderr"; then
		not_ok "main: no decision on stdout/stderr with --log FILE"
	else
		ok "main: no decision on stdout/stderr with --log FILE"
	fi
}

# Every decision log the suite's proxies wrote, as audit reads it (issue
# 22): each line counts (none malformed), and together they hold every
# protocol (PX_PROTOCOLS) and every reason (PX_REASONS) the suite's areas
# give; together the suites give every one the proxy has.
PX_LOGS=""
area_audit() {
	logs=""
	for l in $PX_LOGS "$TMP/fds.log"; do
		[ -f "$l" ] && [ -s "$l" ] && logs="$logs $l"
	done
	# shellcheck disable=SC2086
	audit_logs "audit: every line the proxies wrote counts" $logs
	$PY - "$TMP/audit.json" "$PX_REASONS" "$PX_PROTOCOLS" \
	    >"$TMP/audit.cover" 2>&1 <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
want = sys.argv[2].split()
miss = [r for r in want if not j["by_reason"].get(r)]
miss += [p for p in sys.argv[3].split()
         if not j["by_protocol"].get(p)]
print(" ".join(miss) if miss else "%d records" % j["records"])
sys.exit(1 if miss else 0)
EOF
	if [ $? -eq 0 ]; then
		ok "audit: the logs hold every protocol and every reason the areas give ($(cat "$TMP/audit.cover"))"
	else
		not_ok "audit: the logs hold every protocol and every reason the areas give" \
		    "missing: $(cat "$TMP/audit.cover")"
	fi
}

# ------------------------------------------------------------------ the run

# proxy_suite AREA...: the fixture, the main proxy (PX_MAIN=1: the areas
# run on it, when it started), each area, then the audit of every log the
# suite's proxies wrote and the sanitizers' word.  PROXY_AREAS="limits
# dlog" runs only those (while working on them).
proxy_suite() {
	setup_fixture
	[ -n "${PX_MAIN:-}" ] && area_start
	if [ -n "${PROXY_AREAS:-}" ]; then
		echo "# only the areas: $PROXY_AREAS"
		for a in $PROXY_AREAS; do
			"area_$a"
		done
	elif [ -z "${PX_MAIN:-}" ] || [ -n "$MAIN_PID" ]; then
		for a in "$@"; do
			"area_$a"
		done
	fi
	[ -n "${PX_MAIN:-}" ] && area_main_end
	[ -z "${PROXY_AREAS:-}" ] && area_audit

	# Under sanitizers: nothing reported by any proxy instance.
	if cat "$TMP"/*.stderr 2>/dev/null | grep -Eq 'Sanitizer|runtime error:'; then
		not_ok "no sanitizer report from any proxy instance" \
		    "$(grep -E -A3 'Sanitizer|runtime error:' "$TMP"/*.stderr | head -20)"
	else
		ok "no sanitizer report from any proxy instance"
	fi

	finish
}
