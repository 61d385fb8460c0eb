#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The proxy in service mode, end to end (SPEC 2, 3, 4, 5): HTTP forwarding,
# CONNECT, SOCKS5, pinned DNS, refusals, limits, the decision log, signals.
#
# Everything runs on loopback: tests/dnsd.py answers the proxy's DNS
# questions, tests/pyhelpers.py provides the origins (HTTP, TLS, a byte
# transfer peer), canary listeners that must never be reached, and the raw
# clients.  Each area is a function; areas that need their own policy start
# their own proxy.  Every server started here is stopped at exit, and every
# client has a timeout.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy.sh
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

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
	hn=$(grep -Ec '^harn-egressd: SIGHUP: (policy re-read|keeping|no policy)' "$2")
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
# proxy.sh main policy
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

area_http() {
	http_proxy="http://127.0.0.1:$MP" CURL -o "$TMP/b.out" \
	    "http://good.test:$ORIGIN/" 2>"$TMP/curl.err"
	same_body "http: GET via http_proxy, body exact" "$TMP/b.out" \
	    'hello from origin\n'

	# What the origin sees.
	raw "$MP" "GET http://good.test:$ORIGIN/hdr-check HTTP/1.1\r\nHost: good.test:$ORIGIN\r\nProxy-Authorization: Basic dXNlcjpwYXNz\r\nProxy-Connection: keep-alive\r\nAuthorization: Bearer tok-123\r\nCookie: a=1; b=2\r\nConnection: X-Hop\r\nX-Hop: hop\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\nUpgrade: h2c\r\nX-End: e2e\r\n\r\n"
	expect_status "http: request with credentials forwarded" 200
	$PY "$H" originhdr "$TMP/origin.log" /hdr-check >"$TMP/hdr.out" 2>&1
	expect_no_grep "http: origin saw no Proxy-Authorization" "$TMP/hdr.out" \
	    "proxy-authorization:"
	expect_no_grep "http: origin saw no Proxy-Connection" "$TMP/hdr.out" \
	    "proxy-connection:"
	expect_grep "http: origin saw Authorization unchanged" "$TMP/hdr.out" \
	    '^authorization: Bearer tok-123$'
	expect_grep "http: origin saw Cookie unchanged" "$TMP/hdr.out" \
	    '^cookie: a=1; b=2$'
	expect_grep "http: origin saw end-to-end X-End" "$TMP/hdr.out" \
	    '^x-end: e2e$'
	expect_no_grep "http: header named in Connection removed" "$TMP/hdr.out" \
	    "x-hop:"
	expect_no_grep "http: Keep-Alive removed" "$TMP/hdr.out" "keep-alive: timeout"
	expect_no_grep "http: TE (hop-by-hop) removed" "$TMP/hdr.out" "te: trailers"
	expect_no_grep "http: Upgrade (hop-by-hop) removed" "$TMP/hdr.out" "upgrade: h2c"
	expect_grep "http: origin saw Host good.test" "$TMP/hdr.out" \
	    "^host: good\\.test:$ORIGIN\$"
	if grep -q '"path": "/hdr-check"' "$TMP/origin.log"; then
		ok "http: origin got the origin-form target"
	else
		not_ok "http: origin got the origin-form target" \
		    "$(grep hdr-check "$TMP/origin.log" | head -c 300)"
	fi

	# One kept-alive client connection, two hosts, two decisions.
	raw "$MP" "GET http://good.test:$ORIGIN/ka1 HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n" \
	    "GET http://nope.test:$ORIGIN/ka2 HTTP/1.1\r\nHost: nope.test:$ORIGIN\r\n\r\n"
	section 1
	expect_status "keep-alive: first request (allowed host) 200" 200 "$TMP/sec.out"
	section 2
	check_refusal "keep-alive: second request (other host) decided anew: 403 no_allow_rule" \
	    403 no_allow_rule "$TMP/sec.out"
	if grep -q '/ka2' "$TMP/origin.log"; then
		not_ok "keep-alive: denied second request never reached the origin"
	else
		ok "keep-alive: denied second request never reached the origin"
	fi
	raw "$MP" "GET http://good.test:$ORIGIN/ka3 HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n" \
	    "GET http://other.test:$ORIGIN/ka4 HTTP/1.1\r\nHost: other.test:$ORIGIN\r\n\r\n"
	section 2
	expect_status "keep-alive: two allowed hosts, second 200" 200 "$TMP/sec.out"
	$PY "$H" originhdr "$TMP/origin.log" /ka4 >"$TMP/hdr.out" 2>&1
	expect_grep "keep-alive: second request went out for other.test" \
	    "$TMP/hdr.out" "^host: other\\.test:$ORIGIN\$"

	# A body is forwarded.
	raw "$MP" "POST http://good.test:$ORIGIN/post HTTP/1.1\r\nHost: good.test:$ORIGIN\r\nContent-Length: 11\r\n\r\nhello=world"
	expect_status "http: POST with Content-Length forwarded" 200
	if grep -q '"path": "/post".*"body_len": 11' "$TMP/origin.log"; then
		ok "http: origin got the 11-byte body"
	else
		not_ok "http: origin got the 11-byte body" "$(grep /post "$TMP/origin.log")"
	fi

	# Pipelined: both requests in one write, the second decided anew.
	raw "$MP" --pipeline \
	    "POST http://good.test:$ORIGIN/pipe1 HTTP/1.1\r\nHost: good.test:$ORIGIN\r\nContent-Length: 5\r\n\r\nhello" \
	    "GET http://nope.test:$ORIGIN/pipe2 HTTP/1.1\r\nHost: nope.test:$ORIGIN\r\n\r\n"
	section 1
	expect_status "pipelined: first request 200" 200 "$TMP/sec.out"
	section 2
	check_refusal "pipelined: second request (other host) 403 no_allow_rule" \
	    403 no_allow_rule "$TMP/sec.out"
	if grep -q '/pipe2' "$TMP/origin.log"; then
		not_ok "pipelined: denied second request never reached the origin"
	else
		ok "pipelined: denied second request never reached the origin"
	fi
	# A chunked body followed by a request for another host: decided anew.
	raw "$MP" --pipeline \
	    "POST http://good.test:$ORIGIN/chunk-then HTTP/1.1\r\nHost: good.test:$ORIGIN\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" \
	    "GET http://nope.test:$ORIGIN/smuggle HTTP/1.1\r\nHost: nope.test:$ORIGIN\r\n\r\n"
	section 2
	check_refusal "pipelined after a chunked body: 403 no_allow_rule" 403 \
	    no_allow_rule "$TMP/sec.out"
	# Framing headers named in Connection (issue 12): they would be
	# dropped as hop-by-hop while the body is framed by them, and the
	# rest would reach the origin as a request nobody decided.  Refused.
	raw "$MP" "POST http://good.test:$ORIGIN/cl-named HTTP/1.1\r\nHost: good.test:$ORIGIN\r\nConnection: Content-Length\r\nContent-Length: 52\r\n\r\nGET /smuggled-cl HTTP/1.1\r\nHost: other.internal\r\n\r\n"
	check_refusal "Connection: Content-Length is refused (400)" 400 \
	    invalid_request "$TMP/raw.out"
	raw "$MP" "POST http://good.test:$ORIGIN/te-named HTTP/1.1\r\nHost: good.test:$ORIGIN\r\nConnection: keep-alive, Transfer-Encoding\r\nTransfer-Encoding: chunked\r\n\r\n34\r\nGET /smuggled-te HTTP/1.1\r\nHost: other.internal\r\n\r\n\r\n0\r\n\r\n"
	check_refusal "Connection: Transfer-Encoding is refused (400)" 400 \
	    invalid_request "$TMP/raw.out"
	# Refused at the head: nothing was sent to the origin, nothing to wait
	# for.
	if grep -Eq '/smuggled-(cl|te)|/(cl|te)-named' "$TMP/origin.log"; then
		not_ok "no request with named framing headers reached the origin" \
		    "$(grep -E 'smuggled|named' "$TMP/origin.log" | cut -c1-200)"
	else
		ok "no request with named framing headers reached the origin"
	fi
	# A head that ends in "\n\r\n" ends there, for the proxy as for
	# the parser: what follows is the next request, decided and answered.
	raw "$MP" --pipeline \
	    "GET http://good.test:$ORIGIN/lfcrlf1 HTTP/1.1\nHost: good.test:$ORIGIN\n\r\n" \
	    "GET http://nope.test:$ORIGIN/lfcrlf2 HTTP/1.1\r\nHost: nope.test:$ORIGIN\r\n\r\n"
	section 1
	expect_status "a head ending in LF CR LF: answered (200)" 200 "$TMP/sec.out"
	section 2
	check_refusal "the request after it is decided anew (403)" 403 \
	    no_allow_rule "$TMP/sec.out"
	# A client that half-closes after a keep-alive request gets the
	# response the origin sent.
	raw "$MP" --shut "GET http://good.test:$ORIGIN/halfclose HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n"
	expect_status "half-close after a keep-alive request: the 200 arrives" 200
	# An origin's status line with no code: 502, and nothing read past
	# the head (ASan watches in scripts/test.sh).
	rm -f "$TMP/rawresp.port"
	$PY "$H" rawresp --port-file "$TMP/rawresp.port" \
	    --response 'HTTP/1.0 \r\n\r\n' >/dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	if wait_file "$TMP/rawresp.port" 50; then
		RP=$(cat "$TMP/rawresp.port")
		raw "$MP" "GET http://good.test:$RP/blank HTTP/1.1\r\nHost: good.test:$RP\r\n\r\n"
		expect_status "an origin's blank status line: 502" 502
		raw "$MP" "GET http://good.test:$ORIGIN/after-blank HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n"
		expect_status "the proxy serves on after it" 200
	else
		not_ok "the raw-response origin starts"
	fi
	# A broken chunk size: refused (400), never passed on as a request.
	# The origin logs /badchunk once it has read all the proxy sent it.
	raw "$MP" "POST http://good.test:$ORIGIN/badchunk HTTP/1.1\r\nHost: good.test:$ORIGIN\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nGET http://nope.test:$ORIGIN/smuggle2 HTTP/1.1\r\nHost: nope.test:$ORIGIN\r\n\r\n"
	check_refusal "http: a broken chunk size: 400" 400 invalid_request \
	    "$TMP/raw.out"
	wait_grep "$TMP/origin.log" '"/badchunk"' 50 || true
	if grep -q '/smuggle' "$TMP/origin.log"; then
		not_ok "http: no smuggled request reached the origin" \
		    "$(grep /smuggle "$TMP/origin.log" | cut -c1-200)"
	else
		ok "http: no smuggled request reached the origin"
	fi
	raw "$MP" "POST http://good.test:$ORIGIN/chunked HTTP/1.1\r\nHost: good.test:$ORIGIN\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
	expect_status "http: chunked POST forwarded" 200
	if grep -q '"path": "/chunked".*"body_len": 11' "$TMP/origin.log"; then
		ok "http: origin got the 11-byte chunked body"
	else
		not_ok "http: origin got the 11-byte chunked body" "$(grep /chunked "$TMP/origin.log")"
	fi
	CURL -x "http://127.0.0.1:$MP" -o "$TMP/b.out" \
	    "http://good.test:$ORIGIN/size/5000000" 2>"$TMP/curl.err"
	n=$(wc -c <"$TMP/b.out")
	if [ "$n" -eq 5000000 ]; then
		ok "http: a 5 MB response arrives whole"
	else
		not_ok "http: a 5 MB response arrives whole" "got $n bytes" "$(cat "$TMP/curl.err")"
	fi
	head -c 4194304 /dev/urandom >"$TMP/up.bin"
	CURL -x "http://127.0.0.1:$MP" -o /dev/null --data-binary "@$TMP/up.bin" \
	    "http://good.test:$ORIGIN/upload" 2>"$TMP/curl.err"
	if grep -q '"path": "/upload".*"body_len": 4194304' "$TMP/origin.log"; then
		ok "http: a 4 MiB POST body arrives whole (Expect: 100-continue)"
	else
		not_ok "http: a 4 MiB POST body arrives whole" \
		    "$(grep /upload "$TMP/origin.log" | cut -c1-300)" "$(cat "$TMP/curl.err")"
	fi
	raw "$MP" "GET http://good.test:80/p80 HTTP/1.1\r\nHost: good.test\r\n\r\n"
	if grep -q '^status 400$' "$TMP/raw.out"; then
		not_ok "http: Host may leave out the default port (not 400)" "$(show)"
	else
		ok "http: Host may leave out the default port (not 400)"
	fi

	raw "$MP" --close-wait 2 "GET http://good.test:$ORIGIN/cc HTTP/1.1\r\nHost: good.test:$ORIGIN\r\nConnection: close\r\n\r\n"
	if grep -q '^status 200$' "$TMP/raw.out" && grep -q '^closed yes' "$TMP/raw.out"; then
		ok "http: client's Connection: close honoured"
	else
		not_ok "http: client's Connection: close honoured" "$(show)"
	fi
	CURL -x "http://127.0.0.1:$MP" -o "$TMP/b.out" "http://v6.test:$ORIGIN6/v6" \
	    2>"$TMP/curl.err"
	same_body "http: a name with only AAAA ::1 is served over IPv6" "$TMP/b.out" \
	    'hello from origin\n'
	raw "$MP" "GET http://good.test:$ORIGIN HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n"
	if grep -q '^status 200$' "$TMP/raw.out" && grep -q '^body hello from origin' "$TMP/raw.out"; then
		ok "http: URL without a path is served"
	else
		not_ok "http: URL without a path is served" "$(show)"
	fi
	raw "$MP" "GET http://good.test:$ORIGIN/noclen HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n"
	if grep -q '^body close-delimited body\\n$' "$TMP/raw.out" &&
	    ! grep -q '^error' "$TMP/raw.out"; then
		ok "http: a close-delimited response is relayed whole"
	else
		not_ok "http: a close-delimited response is relayed whole" "$(show)"
	fi
	raw "$MP" "GET http://good.test:$ORIGIN/chunkedresp HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n" \
	    "GET http://good.test:$ORIGIN/after-chunked HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n"
	section 1
	if grep -q '^body chunked response body\\n$' "$TMP/sec.out"; then
		ok "http: a chunked response is relayed"
	else
		not_ok "http: a chunked response is relayed" "$(show)"
	fi
	section 2
	expect_status "http: ... and the connection stays usable" 200 "$TMP/sec.out"
	raw "$MP" "HEAD http://good.test:$ORIGIN/head HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n" \
	    "GET http://good.test:$ORIGIN/after-head HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n"
	section 2
	if grep -q '^status 200$' "$TMP/sec.out" &&
	    grep -q '^body hello from origin' "$TMP/sec.out"; then
		ok "http: HEAD (Content-Length, no body) then GET on one connection"
	else
		not_ok "http: HEAD (Content-Length, no body) then GET on one connection" "$(show)"
	fi

	$PY "$H" urllib --proxy "$MP" "http://good.test:$ORIGIN/" >"$TMP/b.out" 2>&1
	same_body "http: python urllib ProxyHandler, body exact" "$TMP/b.out" \
	    'hello from origin\n'
}

area_connect() {
	https_proxy="http://127.0.0.1:$MP" CURL -k -o "$TMP/b.out" \
	    "https://tls.test:$TLS/" 2>"$TMP/curl.err"
	same_body "connect: curl https via https_proxy (CONNECT), TLS body" \
	    "$TMP/b.out" 'hello over tls\n'
	CURL -p -x "http://127.0.0.1:$MP" -o "$TMP/b.out" \
	    "http://good.test:$ORIGIN/" 2>"$TMP/curl.err"
	same_body "connect: curl -p (CONNECT tunnel) to the HTTP origin" \
	    "$TMP/b.out" 'hello from origin\n'
	raw "$MP" "CONNECT good.test:$ORIGIN HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n"
	if grep -Eq '^statusline HTTP/1\.[01] 200' "$TMP/raw.out"; then
		ok "connect: 200 Connection established"
	else
		not_ok "connect: 200 Connection established" "$(show)"
	fi
	if $PY "$H" xfer --proxy "$MP" --via connect --host xfer.test \
	    --port "$XFER" --up 65536 --down 65536 --early >"$TMP/x.out" 2>&1; then
		ok "connect: bytes sent with the CONNECT request are forwarded"
	else
		not_ok "connect: bytes sent with the CONNECT request are forwarded" \
		    "$(cat "$TMP/x.out")"
	fi
}

area_socks() {
	CURL -x "socks5h://127.0.0.1:$MP" -o "$TMP/b.out" \
	    "http://good.test:$ORIGIN/" 2>"$TMP/curl.err"
	same_body "socks5: curl socks5h:// (domain), body exact" "$TMP/b.out" \
	    'hello from origin\n'
	socks "$MP" --atyp 3 --host good.test --dport "$ORIGIN" --http /
	expect_grep "socks5: success reply is 05 00 00 01 00 00 00 00 00 00" \
	    "$TMP/socks.out" '^reply 05 00 00 01 00 00 00 00 00 00$'
	expect_grep "socks5: HTTP through the SOCKS5 tunnel" "$TMP/socks.out" \
	    '^body hello from origin'
	# A client that does not wait for the method reply: greeting, request
	# and its first bytes in one write, answered in one go.
	socks "$MP" --pipeline --atyp 3 --host good.test --dport "$ORIGIN" \
	    --http /socks-pipelined
	if grep -q '^method 05 00$' "$TMP/socks.out" &&
	    grep -q '^reply 05 00 00 01 00 00 00 00 00 00$' "$TMP/socks.out" &&
	    grep -q '^body hello from origin' "$TMP/socks.out"; then
		ok "socks5: greeting, request and GET in one write: 05 00, 00, the response"
	else
		not_ok "socks5: greeting, request and GET in one write" \
		    "$(cat "$TMP/socks.out")"
	fi
	socks "$MP" --methods 0200 --atyp 3 --host good.test --dport "$ORIGIN"
	expect_grep "socks5: no-auth picked from a longer method list" \
	    "$TMP/socks.out" '^method 05 00$'
	socks "$MP" --methods 02
	expect_grep "socks5: username/password only: 05 FF" "$TMP/socks.out" \
	    '^method 05 ff$'
	expect_grep "socks5: ... and closed" "$TMP/socks.out" '^closed yes'
	socks "$MP" --methods 0102
	expect_grep "socks5: GSSAPI+userpass: 05 FF" "$TMP/socks.out" '^method 05 ff$'
	socks "$MP" --methods ''
	expect_grep "socks5: zero methods offered: 05 FF" "$TMP/socks.out" '^method 05 ff$'
	socks_reply "socks5: IPv4-mapped IPv6 of the denied IP: 02" 02 "$MP" \
	    --atyp 4 --host ::ffff:127.0.0.2 --dport "$ORIGIN"
	socks "$MP" --host GOOD.Test. --dport "$ORIGIN" --hosthdr good.test --http /
	expect_grep "socks5: domain normalized (GOOD.Test.)" "$TMP/socks.out" \
	    '^reply 05 00 00 01 00 00 00 00 00 00$'
	socks_reply "socks5: BIND: 07" 07 "$MP" --cmd 2 --host good.test --dport "$ORIGIN"
	socks_reply "socks5: UDP ASSOCIATE: 07" 07 "$MP" --cmd 3 --atyp 1 \
	    --host 0.0.0.0 --dport 0
	socks_reply "socks5: unknown address type 02: 08" 08 "$MP" \
	    --rawreq 050100027f0000010050
	socks_reply "socks5: unknown address type 05: 08" 08 "$MP" \
	    --rawreq 0501000500000000000000000000000000000000000050
	socks_reply "socks5: no allow rule: 02" 02 "$MP" --host nope.test --dport 80
	socks_reply "socks5: deny rule: 02" 02 "$MP" --host blocked.test --dport 80
	socks_reply "socks5: private address: 02" 02 "$MP" --host private.test --dport 80
	socks_reply "socks5: invalid target a..b: 02" 02 "$MP" --host a..b --dport 80
	socks_reply "socks5: port 0: 02" 02 "$MP" --host good.test --dport 0
	socks_reply "socks5: IPv6 loopback literal, not admitted: 02" 02 "$MP" \
	    --atyp 4 --host ::1 --dport "$ORIGIN"
	socks_reply "socks5: NXDOMAIN: 04" 04 "$MP" --host gone.test --dport 80
	socks_reply "socks5: connection refused: 05" 05 "$MP" --host refused.test \
	    --dport "$CLOSED"
}

area_dns() {
	refusal "dns: name -> 10.0.0.1: 403 private_address" "$MP" 403 \
	    private_address "GET http://private.test/ HTTP/1.1\r\nHost: private.test\r\n\r\n"
	refusal "dns: name -> 192.168.7.7: 403 private_address" "$MP" 403 \
	    private_address "GET http://private2.test/ HTTP/1.1\r\nHost: private2.test\r\n\r\n"
	refusal "dns: CONNECT name -> 10.0.0.1: 403 private_address" "$MP" 403 \
	    private_address "CONNECT private.test:443 HTTP/1.1\r\nHost: private.test:443\r\n\r\n"
	refusal "dns: name -> 169.254.169.254: 403 metadata_address" "$MP" 403 \
	    metadata_address "GET http://meta.test/ HTTP/1.1\r\nHost: meta.test\r\n\r\n"
	refusal "dns: mixed A 127.0.0.3 + A 10.0.0.1 denied whole" "$MP" 403 \
	    private_address "GET http://mixed.test:$ORIGIN/mixed-marker HTTP/1.1\r\nHost: mixed.test:$ORIGIN\r\n\r\n"
	refusal "dns: mixed A 127.0.0.3 + AAAA fd00::1 denied whole" "$MP" 403 \
	    private_address "CONNECT mixed6.test:$ORIGIN HTTP/1.1\r\nHost: mixed6.test:$ORIGIN\r\n\r\n"
	socks_reply "dns: socks5 mixed answers: 02" 02 "$MP" --host mixed.test \
	    --dport "$ORIGIN"
	refusal "dns: AAAA ::ffff:127.0.0.2 is the denied IPv4: 403 deny_rule" "$MP" \
	    403 deny_rule "GET http://mapped.test:$ORIGIN/ HTTP/1.1\r\nHost: mapped.test:$ORIGIN\r\n\r\n"
	refusal "dns: AAAA ::ffff:10.0.0.1: 403 private_address" "$MP" 403 \
	    private_address "GET http://mapped10.test/ HTTP/1.1\r\nHost: mapped10.test\r\n\r\n"
	refusal "dns: A 0.0.0.0: 403 private_address" "$MP" 403 private_address \
	    "GET http://zero.test:$ORIGIN/ HTTP/1.1\r\nHost: zero.test:$ORIGIN\r\n\r\n"
	CURL -x "http://127.0.0.1:$MP" -o "$TMP/b.out" "http://many.test:$ORIGIN/many" \
	    2>"$TMP/curl.err"
	same_body "dns: 40 A records (answer over TCP) served" "$TMP/b.out" \
	    'hello from origin\n'
	# (fail-closed on an answer too big to judge, 502 dns_failure, is fine)
	refusal "dns: 40 loopback A records and a last 10.0.0.1: denied whole" "$MP" \
	    '[45]0[32]' 'private_address|dns_failure' "GET http://manybad.test:$ORIGIN/ HTTP/1.1\r\nHost: manybad.test:$ORIGIN\r\n\r\n"
	no_lines "dns: the mixed answers' loopback address was never connected" \
	    "$TMP/canary3.log"
	refusal "dns: NXDOMAIN: 502 dns_failure" "$MP" 502 dns_failure \
	    "GET http://gone.test/ HTTP/1.1\r\nHost: gone.test\r\n\r\n"
	refusal "dns: SERVFAIL: 502 dns_failure" "$MP" 502 dns_failure \
	    "GET http://fail.test/ HTTP/1.1\r\nHost: fail.test\r\n\r\n"
	refusal "dns: NODATA: 502 dns_failure" "$MP" 502 dns_failure \
	    "CONNECT bare.test:443 HTTP/1.1\r\nHost: bare.test:443\r\n\r\n"
	refusal "dns: no answer (DROP): 502 dns_failure" "$MP" 502 dns_failure \
	    "GET http://slow.test/ HTTP/1.1\r\nHost: slow.test\r\n\r\n"
	el=$(field elapsed)
	if [ -n "$el" ] && $PY -c "import sys; sys.exit(0 if float('$el') < 3.0 else 1)"; then
		ok "dns: DROP answered promptly with dns_timeout 500ms (${el}s)"
	else
		not_ok "dns: DROP answered promptly with dns_timeout 500ms" "elapsed ${el:-none}"
	fi
	socks_reply "dns: socks5 DROP: 04" 04 "$MP" --host slow.test --dport 80

	# Connect in order: the first checked address refuses, the second serves.
	CURL -x "http://127.0.0.1:$MP" -o "$TMP/b.out" \
	    "http://fallback.test:$ORIGIN/fallback" 2>"$TMP/curl.err"
	same_body "dns: first address refuses, the next checked one serves" \
	    "$TMP/b.out" 'hello from origin\n'

	# One resolution per request.
	CURL -x "http://127.0.0.1:$MP" -o "$TMP/b.out" "http://once.test:$ORIGIN/once" \
	    2>"$TMP/curl.err"
	same_body "dns: once.test served" "$TMP/b.out" 'hello from origin\n'
	na=$(grep -c '^once\.test A$' "$TMP/dns.log")
	n6=$(grep -c '^once\.test AAAA$' "$TMP/dns.log")
	if [ "$na" -eq 1 ] && [ "$n6" -le 1 ]; then
		ok "dns: one request, one A question (A=$na AAAA=$n6)"
	else
		not_ok "dns: one request, one A question" "A=$na AAAA=$n6"
	fi

	# Rebinding: between two requests the name moves to the canary, which a
	# deny rule covers.  The second request goes only to a checked address.
	CURL -x "http://127.0.0.1:$MP" -o "$TMP/b.out" \
	    "http://rebind.test:$ORIGIN/rebind1" 2>"$TMP/curl.err"
	same_body "rebind: first answer (127.0.0.1) served" "$TMP/b.out" \
	    'hello from origin\n'
	write_zone 127.0.0.2
	raw "$MP" "GET http://rebind.test:$ORIGIN/rebind2 HTTP/1.1\r\nHost: rebind.test:$ORIGIN\r\n\r\n"
	st=$(field status)
	if [ "$st" = 403 ] && grep -q '^header x-harn-egress-reason: deny_rule$' "$TMP/raw.out"; then
		ok "rebind: second request judged on the new answer: 403 deny_rule"
	elif [ "$st" = 200 ] && grep -q '"path": "/rebind2"' "$TMP/origin.log"; then
		ok "rebind: second request (cached answer) went to the checked origin"
	else
		not_ok "rebind: second request denied or served by the checked origin" "$(show)"
	fi
	no_lines "rebind: the rebound address (canary 127.0.0.2) was never connected" \
	    "$TMP/canary2.log"
	write_zone 127.0.0.1
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
# answers, their lines are in the file.
mark_log() {
	LOG_MARK=$(wc -l <"$1")
}
decisions() {
	[ $(($(wc -l <"$1") - LOG_MARK)) -eq "$2" ]
}

area_keepalive() {
	# A client's requests in a row share one origin connection, each
	# decided anew, one log line each.
	mark_log "$TMP/main.log"
	raw "$MP" "$(get /ka1)" "$(get /ka2)" "$(get /ka3)"
	set -- $(origin_peers /ka1 /ka2 /ka3)
	if responses 3 && [ "$1" != - ] && [ "$1" = "$2" ] && [ "$2" = "$3" ] &&
	    decisions "$TMP/main.log" 3; then
		ok "keep-alive: three GETs on one client connection, one origin connection ($1), three log lines"
	else
		not_ok "keep-alive: three GETs, one origin connection, three log lines" \
		    "peers: $*" "log lines: $(($(wc -l <"$TMP/main.log") - LOG_MARK))" "$(show)"
	fi
	# Another host on the same origin port: not the same target, not reused.
	raw "$MP" "$(get /kh1)" "$(get /kh2 other.test)"
	set -- $(origin_peers /kh1 /kh2)
	if responses 2 && [ "$1" != - ] && [ "$2" != - ] && [ "$1" != "$2" ]; then
		ok "keep-alive: a request for another host gets its own connection"
	else
		not_ok "keep-alive: a request for another host gets its own connection" \
		    "peers: $*" "$(show)"
	fi
	# A request that could not be sent again (a POST) never goes on a kept
	# connection; its own connection may be kept for the next GET.
	raw "$MP" "$(get /kp1)" \
	    "POST http://good.test:$ORIGIN/kp2 HTTP/1.1\r\nHost: good.test:$ORIGIN\r\nContent-Length: 2\r\n\r\nhi" \
	    "$(get /kp3)"
	set -- $(origin_peers /kp1 /kp2 /kp3)
	if responses 3 && [ "$1" != - ] && [ "$2" != - ] && [ "$1" != "$2" ] &&
	    [ "$2" = "$3" ]; then
		ok "keep-alive: a POST gets a new connection, never a kept one"
	else
		not_ok "keep-alive: a POST gets a new connection, never a kept one" \
		    "peers: $*" "$(show)"
	fi
	# Two clients at once never share an origin connection.
	$PY "$H" raw --proxy "$MP" --gap 0.4 "$(get /kc-a1)" "$(get /kc-a2)" \
	    >"$TMP/raw-a.out" 2>&1 &
	ka=$!
	$PY "$H" raw --proxy "$MP" --gap 0.4 "$(get /kc-b1)" "$(get /kc-b2)" \
	    >"$TMP/raw-b.out" 2>&1 &
	kb=$!
	wait "$ka" "$kb" 2>/dev/null || true
	set -- $(origin_peers /kc-a1 /kc-a2 /kc-b1 /kc-b2)
	if [ "$1" != - ] && [ "$3" != - ] && [ "$1" = "$2" ] && [ "$3" = "$4" ] &&
	    [ "$1" != "$3" ]; then
		ok "keep-alive: two clients at once, each its own origin connection ($1, $3)"
	else
		not_ok "keep-alive: two clients at once, each its own origin connection" \
		    "peers: $*"
	fi
	# The origin closes a kept connection while the client is idle: the
	# next request is not lost, it goes on a new connection.
	mark_log "$TMP/main.log"
	raw "$MP" --gap 0.3 "$(get /closeafter-1)" "$(get /kx2)"
	set -- $(origin_peers /closeafter-1 /kx2)
	if responses 2 && [ "$1" != - ] && [ "$2" != - ] && [ "$1" != "$2" ] &&
	    decisions "$TMP/main.log" 2; then
		ok "keep-alive: a connection the origin closed is not reused; the next request is served"
	else
		not_ok "keep-alive: a connection the origin closed is not reused" \
		    "peers: $*" "$(show)"
	fi
	# An origin that sent more than its response (a second response nobody
	# asked for): its connection is not reused, and the client's next
	# request gets its own answer, never those bytes.
	raw "$MP" "$(get /extra-1)" "$(get /kx-after-extra)"
	set -- $(origin_peers /extra-1 /kx-after-extra)
	if responses 2 && ! grep -q 'smuggled' "$TMP/raw.out" &&
	    [ "$1" != - ] && [ "$2" != - ] && [ "$1" != "$2" ]; then
		ok "keep-alive: bytes an origin sent unasked never answer the next request; its connection is not reused"
	else
		not_ok "keep-alive: bytes an origin sent unasked never answer the next request" \
		    "peers: $*" "$(show)"
	fi
	# It closes while the next request is decided (its name takes 300 ms
	# to resolve): the request goes on a new connection to the address
	# its decision allowed.
	mark_log "$TMP/main.log"
	raw "$MP" "$(get /closelater-1 late.test)" "$(get /kd2 late.test)"
	set -- $(origin_peers /closelater-1 /kd2)
	if responses 2 && [ "$1" != - ] && [ "$2" != - ] && [ "$1" != "$2" ] &&
	    decisions "$TMP/main.log" 2; then
		ok "keep-alive: a kept connection closed while the next request was decided: a new one, the request served"
	else
		not_ok "keep-alive: a kept connection closed while the next request was decided" \
		    "peers: $*" "$(show)"
	fi
	# The origin closes it just as the next request comes, unanswered: a
	# GET is sent again, once, on a new connection; one log line each.
	mark_log "$TMP/main.log"
	raw "$MP" "$(get /dropnext-1)" "$(get /kr2)"
	set -- $(origin_peers /dropnext-1 /kr2)
	if responses 2 && [ $# -eq 3 ] && [ "$3" = "dropped:$1" ] &&
	    [ "$2" != - ] && [ "$2" != "$1" ] && decisions "$TMP/main.log" 2; then
		ok "keep-alive: a GET the origin dropped on a kept connection is sent again on a new one"
	else
		not_ok "keep-alive: a GET the origin dropped on a kept connection is sent again" \
		    "peers: $*" "$(show)"
	fi
	# A POST after it is never on the kept connection: sent once.
	raw "$MP" "$(get /dropnext-2)" \
	    "POST http://good.test:$ORIGIN/kr-post HTTP/1.1\r\nHost: good.test:$ORIGIN\r\nContent-Length: 2\r\n\r\nhi"
	set -- $(origin_peers /dropnext-2 /kr-post)
	if responses 2 && [ $# -eq 2 ] && [ "$2" != - ] && [ "$2" != "$1" ]; then
		ok "keep-alive: a POST is never replayed: sent once, on a new connection"
	else
		not_ok "keep-alive: a POST is never replayed" "peers: $*" "$(show)"
	fi
	# The name moves between two requests of one client: the second goes
	# where its own decision points (the canary at 127.0.0.3), never on
	# the connection to the first address.  (The gap is within the main
	# policy's header_timeout, which bounds a kept-alive client's idling.)
	: >"$TMP/canary3.log"
	$PY "$H" raw --proxy "$MP" --gap 0.4 "$(get /kb1 rebind.test)" \
	    "$(get /kb2 rebind.test)" >"$TMP/raw.out" 2>&1 &
	kr=$!
	n=0
	while ! grep -q '"/kb1"' "$TMP/origin.log" && [ $n -lt 100 ]; do
		sleep 0.02
		n=$((n + 1))
	done
	write_zone 127.0.0.3
	wait "$kr" 2>/dev/null || true
	write_zone 127.0.0.1
	if [ "$(origin_peers /kb1)" != - ] && [ "$(origin_peers /kb2)" = - ] &&
	    grep -q '^status 502$' "$TMP/raw.out" && [ -s "$TMP/canary3.log" ]; then
		ok "keep-alive: a name that moved between requests: the second went to its new address, not the kept connection"
	else
		not_ok "keep-alive: a name that moved: the second went to its new address" \
		    "peers: $(origin_peers /kb1 /kb2)" "canary3: $(cat "$TMP/canary3.log")" "$(show)"
	fi
	: >"$TMP/canary3.log"
	# A reload that stops allowing the host stops the reuse at once: the
	# next request on the same client connection is refused, and never
	# reaches the origin on the kept connection.
	printf 'allow_loopback on\nresolver 127.0.0.1:%s\nallow good.test\n' \
	    "$DNS" >"$TMP/kahup.conf"
	if start_proxy kahup "$TMP/kahup.conf"; then
		printf 'allow_loopback on\nresolver 127.0.0.1:%s\nallow other.test\n' \
		    "$DNS" >"$TMP/kahup.conf"
		raw "$PX_PORT" --hup "$PX_PID" "$(get /khr1)" "$(get /khr2)"
		set -- $(origin_peers /khr1 /khr2)
		if [ "$1" != - ] && [ "$2" = - ] && [ $# -eq 2 ] &&
		    grep -q '^status 200$' "$TMP/raw.out" &&
		    grep -q '^header x-harn-egress-reason: no_allow_rule$' "$TMP/raw.out"; then
			ok "keep-alive: a reload that stops allowing the host: the next request is refused, the kept connection unused"
		else
			not_ok "keep-alive: a reload that stops allowing the host stops reuse" \
			    "peers: $*" "$(show)"
		fi
		stop_proxy kahup "$PX_PID"
	fi
}

area_nodns() {
	refusal "no-dns: unlisted name: 403 no_allow_rule" "$MP" 403 no_allow_rule \
	    "GET http://nope.test:$ORIGIN/ HTTP/1.1\r\nHost: nope.test:$ORIGIN\r\n\r\n"
	refusal "no-dns: CONNECT unlisted name: 403 no_allow_rule" "$MP" 403 \
	    no_allow_rule "CONNECT nope.test:443 HTTP/1.1\r\nHost: nope.test:443\r\n\r\n"
	socks_reply "no-dns: socks5 unlisted name: 02" 02 "$MP" --host nope.test \
	    --dport "$ORIGIN"
	CURL -x "http://127.0.0.1:$MP" -o /dev/null -w '%{http_code}' \
	    "http://sub.good.test:$ORIGIN/" >"$TMP/code.out" 2>/dev/null
	if [ "$(cat "$TMP/code.out")" = 403 ]; then
		ok "no-dns: a subdomain of an exact rule is not admitted (403)"
	else
		not_ok "no-dns: a subdomain of an exact rule is not admitted (403)" \
		    "got $(cat "$TMP/code.out")"
	fi
	expect_no_grep "no-dns: no DNS question for the unlisted name" \
	    "$TMP/dns.log" "nope.test"
	expect_no_grep "no-dns: no DNS question for its subdomain" \
	    "$TMP/dns.log" "sub.good.test"
	refusal "no-dns: deny rule: 403 deny_rule" "$MP" 403 deny_rule \
	    "GET http://blocked.test:$ORIGIN/ HTTP/1.1\r\nHost: blocked.test:$ORIGIN\r\n\r\n"
	refusal "no-dns: deny rule, upper case and trailing dot: 403 deny_rule" \
	    "$MP" 403 deny_rule \
	    "CONNECT BLOCKED.Test.:443 HTTP/1.1\r\nHost: BLOCKED.Test.:443\r\n\r\n"
	socks_reply "no-dns: socks5 deny rule: 02" 02 "$MP" --host blocked.test \
	    --dport "$ORIGIN"
	expect_no_grep "no-dns: no DNS question for the denied name" \
	    "$TMP/dns.log" "blocked.test"
}

area_canary() {
	refusal "canary: GET to the denied IP: 403 deny_rule" "$MP" 403 deny_rule \
	    "GET http://127.0.0.2:$ORIGIN/ HTTP/1.1\r\nHost: 127.0.0.2:$ORIGIN\r\n\r\n"
	refusal "canary: CONNECT to the denied IP: 403 deny_rule" "$MP" 403 deny_rule \
	    "CONNECT 127.0.0.2:$ORIGIN HTTP/1.1\r\nHost: 127.0.0.2:$ORIGIN\r\n\r\n"
	refusal "canary: numeric spelling 2130706434 of the denied IP" "$MP" 403 \
	    deny_rule "GET http://2130706434:$ORIGIN/ HTTP/1.1\r\nHost: 2130706434:$ORIGIN\r\n\r\n"
	refusal "canary: hex spelling 0x7f.0.0.2 refused" "$MP" '40[03]' \
	    'deny_rule|invalid_target' \
	    "CONNECT 0x7f.0.0.2:$ORIGIN HTTP/1.1\r\nHost: 0x7f.0.0.2:$ORIGIN\r\n\r\n"
	refusal "canary: IPv4-mapped [::ffff:127.0.0.2] refused" "$MP" 403 \
	    deny_rule "CONNECT [::ffff:127.0.0.2]:$ORIGIN HTTP/1.1\r\nHost: [::ffff:127.0.0.2]:$ORIGIN\r\n\r\n"
	refusal "canary: allowed name whose address is denied: 403 deny_rule" \
	    "$MP" 403 deny_rule \
	    "GET http://canary.test:$ORIGIN/ HTTP/1.1\r\nHost: canary.test:$ORIGIN\r\n\r\n"
	socks_reply "canary: socks5 IPv4 to the denied IP: 02" 02 "$MP" --atyp 1 \
	    --host 127.0.0.2 --dport "$ORIGIN"
	socks_reply "canary: socks5 domain resolving to it, no rule: 02" 02 "$MP" \
	    --host nope.test --dport "$ORIGIN"
	refusal "canary: loopback IP literal without admission: 403 no_allow_rule" \
	    "$MP" 403 no_allow_rule \
	    "GET http://127.0.0.3:$ORIGIN/ HTTP/1.1\r\nHost: 127.0.0.3:$ORIGIN\r\n\r\n"
	socks_reply "canary: socks5 IPv4 loopback without admission: 02" 02 "$MP" \
	    --atyp 1 --host 127.0.0.3 --dport "$ORIGIN"
	refusal "canary: own listener (proxy_loop) refused" "$MP" 403 proxy_loop \
	    "GET http://good.test:$MP/ HTTP/1.1\r\nHost: good.test:$MP\r\n\r\n"
	refusal "canary: 0.0.0.0 with the proxy's port refused" "$MP" 403 \
	    proxy_loop "CONNECT 0.0.0.0:$MP HTTP/1.1\r\nHost: 0.0.0.0:$MP\r\n\r\n"
	refusal "canary: CONNECT [::1] literal without admission: 403 no_allow_rule" \
	    "$MP" 403 no_allow_rule \
	    "CONNECT [::1]:$ORIGIN HTTP/1.1\r\nHost: [::1]:$ORIGIN\r\n\r\n"
	refusal "canary: 127.0.0.1 with the proxy's port: proxy_loop" "$MP" 403 \
	    proxy_loop "CONNECT 127.0.0.1:$MP HTTP/1.1\r\nHost: 127.0.0.1:$MP\r\n\r\n"
	for v6 in '::127.0.0.2' '64:ff9b::7f00:2' '2002:7f00:2::1' \
	    '64:ff9b:1::7f00:2'; do
		refusal "canary: [$v6] embeds the denied IPv4: 403 deny_rule" "$MP" 403 \
		    deny_rule "CONNECT [$v6]:$ORIGIN HTTP/1.1\r\nHost: [$v6]:$ORIGIN\r\n\r\n"
	done
	no_lines "canary: 127.0.0.2 listener never reached" "$TMP/canary2.log"
	no_lines "canary: 127.0.0.3 listener never reached" "$TMP/canary3.log"
}

area_refusals() {
	O=$ORIGIN
	G="good.test:$O"
	refusal "refuse: garbage request line: 400 invalid_request" "$MP" 400 \
	    invalid_request "FOO\r\n\r\n"
	refusal "refuse: request line without version: 400" "$MP" 400 \
	    invalid_request "GET http://$G/\r\n\r\n"
	refusal "refuse: origin-form GET to the proxy: 400" "$MP" 400 \
	    'invalid_request|invalid_target' "GET / HTTP/1.1\r\nHost: $G\r\n\r\n"
	refusal "refuse: CONNECT a..b:443: 400 invalid_target" "$MP" 400 \
	    invalid_target "CONNECT a..b:443 HTTP/1.1\r\nHost: a..b:443\r\n\r\n"
	refusal "refuse: CONNECT host:0: 400 invalid_target" "$MP" 400 \
	    invalid_target "CONNECT good.test:0 HTTP/1.1\r\nHost: good.test:0\r\n\r\n"
	refusal "refuse: CONNECT host:99999: 400 invalid_target" "$MP" 400 \
	    invalid_target "CONNECT good.test:99999 HTTP/1.1\r\nHost: good.test:99999\r\n\r\n"
	refusal "refuse: CONNECT host:0443 (leading zero): 400 invalid_target" \
	    "$MP" 400 invalid_target \
	    "CONNECT good.test:0443 HTTP/1.1\r\nHost: good.test:0443\r\n\r\n"
	refusal "refuse: CONNECT host:+443: 400 invalid_target" "$MP" 400 \
	    invalid_target "CONNECT good.test:+443 HTTP/1.1\r\nHost: good.test:+443\r\n\r\n"
	refusal "refuse: CONNECT without port: 400" "$MP" 400 \
	    'invalid_target|invalid_request' \
	    "CONNECT good.test HTTP/1.1\r\nHost: good.test\r\n\r\n"
	refusal "refuse: label over 63: 400 invalid_target" "$MP" 400 invalid_target \
	    "CONNECT $(printf '%070d' 0 | tr 0 a).test:443 HTTP/1.1\r\n\r\n"
	refusal "refuse: https:// in absolute form: 400 invalid_request" "$MP" 400 \
	    invalid_request "GET https://good.test/ HTTP/1.1\r\nHost: good.test\r\n\r\n"
	refusal "refuse: ftp:// in absolute form: 400" "$MP" 400 \
	    'invalid_request|invalid_target' "GET ftp://good.test/ HTTP/1.1\r\n\r\n"
	refusal "refuse: userinfo in URL: 400 invalid_request" "$MP" 400 \
	    invalid_request "GET http://u:p@$G/ HTTP/1.1\r\nHost: $G\r\n\r\n"
	refusal "refuse: two Host headers: 400 invalid_request" "$MP" 400 \
	    invalid_request "GET http://$G/ HTTP/1.1\r\nHost: $G\r\nHost: $G\r\n\r\n"
	refusal "refuse: Host naming another host: 400 invalid_request" "$MP" 400 \
	    invalid_request "GET http://$G/ HTTP/1.1\r\nHost: other.test:$O\r\n\r\n"
	refusal "refuse: Host naming another port: 400 invalid_request" "$MP" 400 \
	    invalid_request "GET http://$G/ HTTP/1.1\r\nHost: good.test:1$O\r\n\r\n"
	refusal "refuse: Content-Length and Transfer-Encoding: 400 invalid_request" \
	    "$MP" 400 invalid_request \
	    "POST http://$G/ HTTP/1.1\r\nHost: $G\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
	refusal "refuse: two Content-Length: 400 invalid_request" "$MP" 400 \
	    invalid_request "POST http://$G/ HTTP/1.1\r\nHost: $G\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello"
	refusal "refuse: unknown Transfer-Encoding: 400 invalid_request" "$MP" 400 \
	    invalid_request "POST http://$G/ HTTP/1.1\r\nHost: $G\r\nTransfer-Encoding: bogus\r\n\r\n"
	refusal "refuse: negative Content-Length: 400" "$MP" 400 invalid_request \
	    "POST http://$G/ HTTP/1.1\r\nHost: $G\r\nContent-Length: -1\r\n\r\n"
	refusal "refuse: Content-Length list '5, 5': 400" "$MP" 400 invalid_request \
	    "POST http://$G/ HTTP/1.1\r\nHost: $G\r\nContent-Length: 5, 5\r\n\r\nhello"
	refusal "refuse: Content-Length not a number: 400" "$MP" 400 invalid_request \
	    "POST http://$G/ HTTP/1.1\r\nHost: $G\r\nContent-Length: 5x\r\n\r\nhello"
	refusal "refuse: space before colon in a header: 400" "$MP" 400 invalid_request \
	    "POST http://$G/ HTTP/1.1\r\nHost: $G\r\nContent-Length : 5\r\n\r\nhello"
	refusal "refuse: Transfer-Encoding 'chunked, chunked' or gzip: 400" "$MP" 400 \
	    invalid_request "POST http://$G/ HTTP/1.1\r\nHost: $G\r\nTransfer-Encoding: gzip\r\n\r\n"
	refusal "refuse: CR inside a header name: 400" "$MP" 400 invalid_request \
	    "GET http://$G/ HTTP/1.1\r\nHost: $G\r\nX-A\rB: c\r\n\r\n"
	big=$(printf '%03000d' 0)
	refusal "refuse: request line over max_header_bytes: 4xx invalid_request" \
	    "$MP" '4[0-9][0-9]' invalid_request "GET http://$G/$big HTTP/1.1\r\nHost: $G\r\n\r\n"
	refusal "refuse: HTTP/2 preface: 400 invalid_request" "$MP" 400 invalid_request \
	    "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	refusal "refuse: headers over max_header_bytes 2048: 431 invalid_request" \
	    "$MP" 431 invalid_request \
	    "GET http://$G/ HTTP/1.1\r\nHost: $G\r\nX-Big: $big\r\n\r\n"
	refusal "refuse: many small headers over 2048: 431" "$MP" 431 invalid_request \
	    "GET http://$G/ HTTP/1.1\r\nHost: $G\r\n$(i=0; while [ $i -lt 100 ]; do printf 'X-H%d: 0123456789abcdef\\r\\n' $i; i=$((i+1)); done)\r\n"
	# The default max_header_bytes (64 KiB) with a client that streams
	# header lines and never ends them: 431 at once, not 408 later.
	printf 'default deny\nallow good.test\nresolver 127.0.0.1:%s\nheader_timeout 5s\n' \
	    "$DNS" >"$TMP/hb.conf"
	if start_proxy hb "$TMP/hb.conf"; then
		$PY -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
t0 = time.monotonic()
s.sendall(b"GET http://good.test/ HTTP/1.1\r\nHost: good.test\r\n")
line = b"X-Stream: " + b"a" * 1000 + b"\r\n"
s.settimeout(8)
status = b""
try:
    for i in range(264):
        s.sendall(line)
except OSError:
    pass
try:
    status = s.recv(64).split(b"\r\n")[0]
except OSError as e:
    status = str(e).encode()
print(status.decode("latin-1"), "%.2f" % (time.monotonic() - t0))' "$PX_PORT" >"$TMP/hb.out" 2>&1
		hbs=$(awk '{print $2}' "$TMP/hb.out")
		hbt=$(awk '{print $NF}' "$TMP/hb.out")
		if [ "$hbs" = 431 ] && $PY -c "import sys; sys.exit(0 if float('${hbt:-9}') < 2 else 1)"; then
			ok "refuse: endless headers at the default max_header_bytes: 431 at once (${hbt}s)"
		else
			not_ok "refuse: endless headers at the default max_header_bytes: 431 at once" \
			    "$(cat "$TMP/hb.out")"
		fi
		stop_proxy hb "$PX_PID"
	fi
	refusal "refuse: partial headers, header_timeout 500ms: 408 invalid_request" \
	    "$MP" 408 invalid_request "GET http://$G/ HTTP/1.1\r\nHost: goo"
	el=$(field elapsed)
	if [ -n "$el" ] && $PY -c "import sys; sys.exit(0 if 0.3 <= float('$el') < 3.0 else 1)"; then
		ok "refuse: 408 came after about header_timeout (${el}s)"
	else
		not_ok "refuse: 408 came after about header_timeout" "elapsed ${el:-none}"
	fi
	# A client that sends nothing at all: 408, or at least closed in time.
	raw "$MP" ""
	el=$(field elapsed)
	if grep -q '^status 408$' "$TMP/raw.out"; then
		check_refusal "refuse: silent connection: 408 invalid_request" 408 \
		    invalid_request "$TMP/raw.out"
	elif grep -q '^status none' "$TMP/raw.out" &&
	    ! grep -q 'error timeout' "$TMP/raw.out"; then
		ok "refuse: silent connection closed at header_timeout (${el}s, no 408)"
	else
		not_ok "refuse: silent connection: 408 or closed" "$(show)"
	fi
	refusal "refuse: SOCKS4 first byte 04: HTTP 400" "$MP" 400 invalid_request \
	    '\x04\x01\x00\x50\x7f\x00\x00\x01user\x00'
	refusal "refuse: socks4a-ish to a name: HTTP 400" "$MP" 400 invalid_request \
	    '\x04\x01\x00\x50\x00\x00\x00\x01\x00good.test\x00'
	refusal "refuse: port 65536 in URL: 400 invalid_target" "$MP" 400 \
	    invalid_target "GET http://good.test:65536/ HTTP/1.1\r\nHost: good.test:65536\r\n\r\n"
	refusal "refuse: empty port in URL: 400" "$MP" 400 \
	    'invalid_target|invalid_request' "GET http://good.test:/ HTTP/1.1\r\n\r\n"
	refusal "refuse: connection refused: 502 connect_failed" "$MP" 502 \
	    connect_failed "GET http://refused.test:$CLOSED/ HTTP/1.1\r\nHost: refused.test:$CLOSED\r\n\r\n"
	refusal "refuse: CONNECT connection refused: 502 connect_failed" "$MP" 502 \
	    connect_failed "CONNECT refused.test:$CLOSED HTTP/1.1\r\nHost: refused.test:$CLOSED\r\n\r\n"
}

area_robust() {
	O=$ORIGIN
	refusal "robust: NUL in CONNECT host: 400" "$MP" 400 \
	    'invalid_target|invalid_request' \
	    "CONNECT good.test\x00.evil:443 HTTP/1.1\r\n\r\n"
	refusal "robust: bare CR in CONNECT host: 400" "$MP" 400 \
	    'invalid_target|invalid_request' \
	    "CONNECT good\r.test:443 HTTP/1.1\r\n\r\n"
	refusal "robust: NUL in URL host: 400" "$MP" 400 \
	    'invalid_target|invalid_request' \
	    "GET http://good.test\x00x:$O/ HTTP/1.1\r\n\r\n"
	refusal "robust: LF inside request line: 400" "$MP" 400 \
	    'invalid_target|invalid_request' \
	    "GET http://good.test\n.evil:$O/ HTTP/1.1\r\n\r\n"
	refusal "robust: NUL in Host header: 400" "$MP" 400 \
	    'invalid_target|invalid_request' \
	    "GET http://good.test:$O/ HTTP/1.1\r\nHost: good.test\x00:$O\r\n\r\n"
	refusal "robust: percent-encoded host: 400" "$MP" 400 \
	    'invalid_target|invalid_request' \
	    "GET http://good%2etest:$O/ HTTP/1.1\r\n\r\n"
	refusal "robust: extra word in request line: 400" "$MP" 400 invalid_request \
	    "GET http://good.test:$O/ HTTP/1.1 x\r\n\r\n"
	refusal "robust: port with letters: 400 invalid_target" "$MP" 400 \
	    invalid_target "CONNECT good.test:44x HTTP/1.1\r\n\r\n"
	refusal "robust: negative port: 400 invalid_target" "$MP" 400 \
	    invalid_target "CONNECT good.test:-1 HTTP/1.1\r\n\r\n"
	refusal "robust: binary junk: 400" "$MP" 400 invalid_request \
	    '\xff\xfe\x00\x01\x02junk\r\n\r\n'
	socks_reply "robust: socks5 NUL in domain: 02" 02 "$MP" \
	    --host 'good.test\x00.evil' --dport "$O"
	socks_reply "robust: socks5 CRLF in domain: 02" 02 "$MP" \
	    --host 'good\r\n.test' --dport "$O"
	socks_reply "robust: socks5 empty domain: 02" 02 "$MP" --host '' --dport "$O"
	refusal "robust: IPv6 zone id: 400 invalid_target" "$MP" 400 invalid_target \
	    "CONNECT [fe80::1%eth0]:443 HTTP/1.1\r\n\r\n"
	refusal "robust: CONNECT 127.1 (short form) judged as 127.0.0.1" "$MP" 403 \
	    no_allow_rule "CONNECT 127.1:$O HTTP/1.1\r\nHost: 127.1:$O\r\n\r\n"
	refusal "robust: CONNECT 0177.0.0.1 (octal) refused" "$MP" '40[03]' \
	    'no_allow_rule|invalid_target' "CONNECT 0177.0.0.1:$O HTTP/1.1\r\nHost: 0177.0.0.1:$O\r\n\r\n"
	refusal "robust: GET 0x7f000001 refused" "$MP" '40[03]' \
	    'no_allow_rule|invalid_target' "GET http://0x7f000001:$O/ HTTP/1.1\r\nHost: 0x7f000001:$O\r\n\r\n"
	socks_reply "robust: socks5 domain '127.0.0.2' is the address: 02" 02 "$MP" \
	    --host 127.0.0.2 --dport "$O"
	socks_reply "robust: socks5 domain '2130706434': 02" 02 "$MP" \
	    --host 2130706434 --dport "$O"
	if grep -Eq '^[0-9]|^0x' "$TMP/dns.log"; then
		not_ok "robust: no numeric spelling was sent to DNS" "$(grep -E '^[0-9]|^0x' "$TMP/dns.log")"
	else
		ok "robust: no numeric spelling was sent to DNS"
	fi
	no_lines "robust: canary 127.0.0.2 still untouched" "$TMP/canary2.log"
	# header_timeout bounds the whole head, however it trickles in.
	$PY "$H" trickle --proxy "$MP" --interval 0.1 --seconds 4 \
	    --head "GET http://good.test:$O/ HTTP/1.1\r\nX-Slow: " >"$TMP/t.out" 2>&1
	el=$(field elapsed "$TMP/t.out")
	if grep -q '^status 408$' "$TMP/t.out" &&
	    $PY -c "import sys; sys.exit(0 if float('$el') < 1.5 else 1)"; then
		ok "robust: a trickling head still gets 408 at header_timeout (${el}s)"
	else
		not_ok "robust: a trickling head still gets 408 at header_timeout" "$(cat "$TMP/t.out")"
	fi
	# Clients that leave mid-way: during DNS, during connect, mid-body.
	nslow=$(grep -c '"host":"slow.test"' "$TMP/main.log")
	$PY "$H" abort --proxy "$MP" --after 0.1 \
	    "GET http://slow.test/ HTTP/1.1\r\nHost: slow.test\r\n\r\n" 2>/dev/null
	$PY "$H" abort --proxy "$MP" --after 0.1 --rst \
	    "CONNECT slow.test:443 HTTP/1.1\r\n\r\n" 2>/dev/null
	$PY "$H" abort --proxy "$MP" --after 0.2 \
	    "CONNECT refused.test:$TARPIT HTTP/1.1\r\n\r\n" 2>/dev/null
	$PY "$H" abort --proxy "$MP" --after 0.1 --rst \
	    "GET http://good.test:$O/size/20000000 HTTP/1.1\r\nHost: good.test:$O\r\n\r\n" 2>/dev/null
	$PY "$H" abort --proxy "$MP" --after 0.1 --rst \
	    "POST http://good.test:$O/partial HTTP/1.1\r\nHost: good.test:$O\r\nContent-Length: 100000\r\n\r\nabc" 2>/dev/null
	$PY "$H" abort --proxy "$MP" --after 0.1 '\x05\x01\x00\x05\x01\x00\x03\x09slow.test\x00\x50' 2>/dev/null
	# The three that left during DNS are decided (dns_failure) all the same.
	if wait_count "$TMP/main.log" '"host":"slow.test"' $((nslow + 3)) 50; then
		ok "robust: requests whose clients left during DNS are decided and logged"
	else
		not_ok "robust: requests whose clients left during DNS are decided and logged" \
		    "$(grep slow.test "$TMP/main.log")"
	fi
	# A SOCKS5 exchange that arrives one byte at a time.
	$PY - "$MP" "$O" <<'PYX' >"$TMP/frag.out" 2>&1
import socket, struct, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
def slow(b):
    for x in b:
        s.send(bytes([x]))
        time.sleep(0.005)
slow(b"\x05\x01\x00")
print("method", s.recv(2).hex())
slow(b"\x05\x01\x00\x03\x09good.test" + struct.pack("!H", int(sys.argv[2])))
print("reply", s.recv(10).hex())
PYX
	if grep -q '^method 0500$' "$TMP/frag.out" &&
	    grep -q '^reply 05000001000000000000$' "$TMP/frag.out"; then
		ok "robust: SOCKS5 greeting and request one byte at a time"
	else
		not_ok "robust: SOCKS5 greeting and request one byte at a time" "$(cat "$TMP/frag.out")"
	fi
	# Truncated SOCKS5 exchanges, then silence.
	$PY - "$MP" <<'EOF' >"$TMP/t.out" 2>&1 || true
import socket, sys
for data in (b"\x05", b"\x05\x05\x00", b"\x05\x01\x00\x05\x01\x00\x03\x20ab"):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    try:
        while s.recv(100):
            pass
    except OSError:
        pass
    s.close()
EOF
	# The accept queue is max_connections deep (at most somaxconn), not
	# libevent's 128 (issue 12).
	bl=$(ss -ltnH "sport = :$MP" 2>/dev/null | awk '{print $3; exit}')
	smc=$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo 4096)
	want=4096
	[ "$smc" -lt "$want" ] && want=$smc
	if [ -z "$bl" ]; then
		skip "robust: listen backlog: ss cannot show it here"
	elif [ "$bl" -eq "$want" ]; then
		ok "robust: listen backlog $bl (max_connections, at most somaxconn)"
	else
		not_ok "robust: listen backlog is max_connections" "ss says $bl, want $want"
	fi
	$PY "$H" burst --proxy "$MP" --n 100 "http://good.test:$O/burst" >"$TMP/burst.out" 2>&1
	if grep -q '^100 of 100 ok' "$TMP/burst.out"; then
		ok "robust: 100 concurrent clients all served"
	else
		not_ok "robust: 100 concurrent clients all served" "$(cat "$TMP/burst.out")"
	fi
	if alive "$MAIN_PID" && CURL -x "http://127.0.0.1:$MP" -o "$TMP/b.out" \
	    "http://good.test:$O/after-junk" 2>"$TMP/curl.err"; then
		same_body "robust: after all that, a good request is served" \
		    "$TMP/b.out" 'hello from origin\n'
	else
		not_ok "robust: after all that, a good request is served" \
		    "$(cat "$TMP/curl.err")" "stderr: $(tail -c 400 "$TMP/main.stderr")"
	fi
}

area_tunnels() {
	if $PY "$H" xfer --timeout 15 --proxy "$MP" --via connect --host xfer.test \
	    --port "$XFER" --up 8388608 --down 6291456 >"$TMP/x.out" 2>&1; then
		ok "tunnel: CONNECT 8 MiB up, 6 MiB down, byte-exact ($(cat "$TMP/x.out"))"
	else
		not_ok "tunnel: CONNECT 8 MiB up, 6 MiB down, byte-exact" "$(cat "$TMP/x.out")"
	fi
	if $PY "$H" xfer --timeout 15 --proxy "$MP" --via socks5 --host xfer.test \
	    --port "$XFER" --up 6291456 --down 8388608 >"$TMP/x.out" 2>&1; then
		ok "tunnel: SOCKS5 6 MiB up, 8 MiB down, byte-exact ($(cat "$TMP/x.out"))"
	else
		not_ok "tunnel: SOCKS5 6 MiB up, 8 MiB down, byte-exact" "$(cat "$TMP/x.out")"
	fi
	# Half-close: the upload ends first, the download keeps flowing.
	if $PY "$H" xfer --timeout 15 --proxy "$MP" --via connect --host xfer.test \
	    --port "$XFER" --up 10 --down 4194304 >"$TMP/x.out" 2>&1; then
		ok "tunnel: half-close honoured (tiny upload, 4 MiB download)"
	else
		not_ok "tunnel: half-close honoured" "$(cat "$TMP/x.out")"
	fi
	# Several at once.
	i=1
	xpids=""
	while [ $i -le 4 ]; do
		via=connect
		[ $((i % 2)) -eq 0 ] && via=socks5
		$PY "$H" xfer --timeout 15 --proxy "$MP" --via $via --host xfer.test \
		    --port "$XFER" --up 2097152 --down 2097152 >"$TMP/xc$i.out" 2>&1 &
		xpids="$xpids $!"
		i=$((i + 1))
	done
	fails=0
	for p in $xpids; do
		wait "$p" || fails=$((fails + 1))
	done
	if [ $fails -eq 0 ]; then
		ok "tunnel: four concurrent 2 MiB transfers, byte-exact"
	else
		not_ok "tunnel: four concurrent 2 MiB transfers" "$(cat "$TMP"/xc*.out)"
	fi
}

# A slow reader: the proxy buffers at most a bounded amount (SPEC 4, Limits).
area_backpressure() {
	if $PY "$H" slowread --timeout 20 --proxy "$MP" --pid "$MAIN_PID" --via http \
	    --host good.test --port "$ORIGIN" --size 80000000 --sleep 1.5 \
	    >"$TMP/sr.out" 2>&1; then
		ok "backpressure: HTTP 80 MB to a stalled reader ($(head -n1 "$TMP/sr.out"))"
	else
		not_ok "backpressure: HTTP 80 MB to a stalled reader" "$(cat "$TMP/sr.out")"
	fi
	if $PY "$H" slowread --timeout 20 --proxy "$MP" --pid "$MAIN_PID" --via connect \
	    --host xfer.test --port "$XFER" --size 80000000 --sleep 1.5 \
	    >"$TMP/sr.out" 2>&1; then
		ok "backpressure: tunnel 80 MB to a stalled reader ($(head -n1 "$TMP/sr.out"))"
	else
		not_ok "backpressure: tunnel 80 MB to a stalled reader" "$(cat "$TMP/sr.out")"
	fi
}

# A policy with an IP allow rule: IP literals are admitted by address, and
# names are resolved (only addresses can be judged against such a rule).
# block_private off; short connect and idle timeouts.
area_iplit() {
	{
		policy_main | grep -v -e '^allow' -e '^block_private' \
		    -e '^connect_timeout'
		echo "block_private off"
		echo "connect_timeout 1s"
		echo "idle_timeout 1s"
		echo "allow 127.0.0.1"
	} >"$TMP/ip.conf"
	start_proxy ip "$TMP/ip.conf" || return 0
	IPP=$PX_PORT
	O=$ORIGIN
	CURL --socks5 "127.0.0.1:$IPP" -o "$TMP/b.out" \
	    "http://127.0.0.1:$O/" 2>"$TMP/curl.err"
	same_body "ip: curl --socks5 (IPv4 address type), body exact" "$TMP/b.out" \
	    'hello from origin\n'
	# (raw: curl would rewrite the number itself)
	raw "$IPP" "GET http://2130706433:$O/numeric HTTP/1.1\r\nHost: 2130706433:$O\r\n\r\n"
	if grep -q '^status 200$' "$TMP/raw.out" &&
	    grep -q '^body hello from origin' "$TMP/raw.out"; then
		ok "ip: numeric spelling 2130706433 is 127.0.0.1 (served)"
	else
		not_ok "ip: numeric spelling 2130706433 is 127.0.0.1 (served)" "$(show)"
	fi
	if $PY "$H" xfer --timeout 15 --proxy "$IPP" --via socks5 --host 127.0.0.1 \
	    --port "$XFER" --up 3145728 --down 3145728 >"$TMP/x.out" 2>&1; then
		ok "ip: SOCKS5 IPv4 tunnel, 3 MiB each way, byte-exact"
	else
		not_ok "ip: SOCKS5 IPv4 tunnel byte-exact" "$(cat "$TMP/x.out")"
	fi
	refusal "ip: allowed IP but denied IP rule still wins" "$IPP" 403 deny_rule \
	    "CONNECT 127.0.0.2:$O HTTP/1.1\r\nHost: 127.0.0.2:$O\r\n\r\n"
	CURL -x "http://127.0.0.1:$IPP" -o "$TMP/b.out" "http://viaip.test:$O/viaip" \
	    2>"$TMP/curl.err"
	same_body "ip: a name without host rule, admitted by its address" \
	    "$TMP/b.out" 'hello from origin\n'
	refusal "ip: metadata name, block_private off: 403 metadata_address" \
	    "$IPP" 403 metadata_address \
	    "GET http://meta.test/ HTTP/1.1\r\nHost: meta.test\r\n\r\n"
	refusal "ip: metadata literal, block_private off: 403 metadata_address" \
	    "$IPP" 403 metadata_address \
	    "GET http://169.254.169.254/latest HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n"
	refusal "ip: private name, block_private off, not covered: 403 no_allow_rule" \
	    "$IPP" 403 no_allow_rule \
	    "GET http://private.test/ HTTP/1.1\r\nHost: private.test\r\n\r\n"
	refusal "ip: connect timeout: 504 connect_timeout" "$IPP" 504 \
	    connect_timeout "CONNECT 127.0.0.1:$TARPIT HTTP/1.1\r\nHost: 127.0.0.1:$TARPIT\r\n\r\n"
	el=$(field elapsed)
	if [ -n "$el" ] && $PY -c "import sys; sys.exit(0 if 0.8 <= float('$el') < 4.0 else 1)"; then
		ok "ip: 504 after about connect_timeout 1s (${el}s)"
	else
		not_ok "ip: 504 after about connect_timeout 1s" "elapsed ${el:-none}"
	fi
	socks_reply "ip: socks5 connect timeout: 06" 06 "$IPP" --atyp 1 \
	    --host 127.0.0.1 --dport "$TARPIT"
	t0=$(now_ms)
	$PY "$H" raw --proxy "$IPP" --close-wait 4 \
	    "CONNECT 127.0.0.1:$O HTTP/1.1\r\nHost: 127.0.0.1:$O\r\n\r\n" \
	    >"$TMP/raw.out" 2>&1
	t1=$(now_ms)
	if grep -q '^status 200$' "$TMP/raw.out" && grep -q '^closed yes' "$TMP/raw.out" &&
	    [ $((t1 - t0)) -lt 3500 ]; then
		ok "ip: an idle tunnel is closed at idle_timeout 1s ($((t1 - t0)) ms)"
	else
		not_ok "ip: an idle tunnel is closed at idle_timeout 1s" \
		    "$((t1 - t0)) ms" "$(show)"
	fi
	# A forwarding client that stops reading a large response: closed at
	# idle_timeout, not held (issue 12).  After 3.5 s (idle_timeout 1s)
	# the proxy's side of it is no longer established.
	rm -f "$TMP/stall.port" "$TMP/stall.go"
	$PY -c '
import os, socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
a = sys.argv[2].encode()
s.sendall(b"GET http://127.0.0.1:" + a + b"/size/8000000 HTTP/1.1\r\nHost: 127.0.0.1:" + a + b"\r\n\r\n")
open(sys.argv[3], "w").write(str(s.getsockname()[1]))
while not os.path.exists(sys.argv[4]):
    time.sleep(0.1)
s.close()' "$IPP" "$O" "$TMP/stall.port" "$TMP/stall.go" >"$TMP/stall.out" 2>&1 &
	sp=$!
	wait_file "$TMP/stall.port" 50 "$sp" || true
	cport=$(cat "$TMP/stall.port" 2>/dev/null)
	# Closed within a few idle_timeouts: looked at every 0.1 s, up to 5 s.
	n=0
	while held=$(ss -tnH state established "( sport = :$IPP and dport = :${cport:-1} )" 2>/dev/null | grep -c .) &&
	    [ "$held" -gt 0 ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	: >"$TMP/stall.go"
	wait "$sp" 2>/dev/null
	if [ -n "$cport" ] && [ "$held" -eq 0 ]; then
		ok "ip: a forwarding client that stops reading is closed at idle_timeout"
	else
		not_ok "ip: a forwarding client that stops reading is closed at idle_timeout" \
		    "client port '${cport:-}', still established: $held"
	fi
	stop_proxy ip "$PX_PID"
	if grep -q '^viaip\.test A$' "$TMP/dns.log"; then
		ok "ip: with an IP allow rule, an unlisted name is resolved"
	else
		not_ok "ip: with an IP allow rule, an unlisted name is resolved"
	fi
	$PY "$H" logcheck "$TMP/ip.log" \
	    --expect "socks5|127.0.0.1|$O|allow|allow_rule|127.0.0.1" \
	    --expect "http|127.0.0.1|$O|allow|allow_rule|127.0.0.1" \
	    --expect "socks5|127.0.0.1|$XFER|allow|allow_rule|127.0.0.1" \
	    --expect "http_connect|127.0.0.2|$O|deny|deny_rule|127.0.0.2" \
	    --expect "http|viaip.test|$O|allow|allow_rule|127.0.0.1" \
	    --expect "http|meta.test|80|deny|metadata_address|169.254.169.254" \
	    --expect "http|169.254.169.254|80|deny|metadata_address|169.254.169.254" \
	    --expect "http|private.test|80|deny|no_allow_rule|10.0.0.1" \
	    --expect "http_connect|127.0.0.1|$TARPIT|deny|connect_timeout|127.0.0.1" \
	    --expect "socks5|127.0.0.1|$TARPIT|deny|connect_timeout|127.0.0.1" \
	    --expect "http_connect|127.0.0.1|$O|allow|allow_rule|127.0.0.1" \
	    --expect "http|127.0.0.1|$O|allow|allow_rule|127.0.0.1" \
	    >"$TMP/lc.out" 2>&1
	if [ $? -eq 0 ]; then
		ok "ip: log records as expected; 2130706433 logged as 127.0.0.1"
	else
		not_ok "ip: log records as expected; 2130706433 logged as 127.0.0.1" \
		    "$(cat "$TMP/lc.out")"
	fi
}

# Port-scoped and wildcard rules, end to end.
area_ports() {
	cat >"$TMP/ports.conf" <<EOF
allow_loopback on
resolver 127.0.0.1:$DNS
allow good.test:$ORIGIN
allow other.test *.wild.test
deny other.test:$ORIGIN
EOF
	start_proxy ports "$TMP/ports.conf" || return 0
	PP=$PX_PORT
	na=$(grep -c '^good\.test A$' "$TMP/dns.log")
	CURL -x "http://127.0.0.1:$PP" -o "$TMP/b.out" "http://good.test:$ORIGIN/" \
	    2>"$TMP/curl.err"
	same_body "ports: port-scoped allow, that port: served" "$TMP/b.out" \
	    'hello from origin\n'
	refusal "ports: port-scoped allow, other port: 403 no_allow_rule" "$PP" 403 \
	    no_allow_rule "CONNECT good.test:$XFER HTTP/1.1\r\nHost: good.test:$XFER\r\n\r\n"
	nb=$(grep -c '^good\.test A$' "$TMP/dns.log")
	if [ $((nb - na)) -eq 1 ]; then
		ok "ports: no DNS question for the port the rule does not name"
	else
		not_ok "ports: no DNS question for the port the rule does not name" \
		    "$((nb - na)) A questions for good.test, want 1"
	fi
	refusal "ports: port-scoped deny beats a host allow: 403 deny_rule" "$PP" 403 \
	    deny_rule "GET http://other.test:$ORIGIN/ HTTP/1.1\r\nHost: other.test:$ORIGIN\r\n\r\n"
	if $PY "$H" xfer --proxy "$PP" --via connect --host other.test --port "$XFER" \
	    --up 1000 --down 1000 >"$TMP/x.out" 2>&1; then
		ok "ports: ... and the same host on another port is served"
	else
		not_ok "ports: ... and the same host on another port is served" "$(cat "$TMP/x.out")"
	fi
	CURL -x "http://127.0.0.1:$PP" -o "$TMP/b.out" "http://a.wild.test:$ORIGIN/" \
	    2>"$TMP/curl.err"
	same_body "ports: *.wild.test admits a.wild.test" "$TMP/b.out" 'hello from origin\n'
	CURL -x "socks5h://127.0.0.1:$PP" -o "$TMP/b.out" "http://b.a.wild.test:$ORIGIN/" \
	    2>"$TMP/curl.err"
	same_body "ports: *.wild.test admits b.a.wild.test" "$TMP/b.out" 'hello from origin\n'
	refusal "ports: *.wild.test does not admit wild.test" "$PP" 403 no_allow_rule \
	    "GET http://wild.test:$ORIGIN/ HTTP/1.1\r\nHost: wild.test:$ORIGIN\r\n\r\n"
	if grep -Eq '^wild\.test (A|AAAA)$' "$TMP/dns.log"; then
		not_ok "ports: no DNS question for wild.test"
	else
		ok "ports: no DNS question for wild.test"
	fi
	stop_proxy ports "$PX_PID"
}

# default allow: names need no rule; the registry and deny rules still hold.
area_default() {
	cat >"$TMP/dflt.conf" <<EOF
default allow
allow_loopback on
resolver 127.0.0.1:$DNS
deny blocked.test
EOF
	start_proxy dflt "$TMP/dflt.conf" || return 0
	CURL -x "http://127.0.0.1:$PX_PORT" -o "$TMP/b.out" \
	    "http://good.test:$ORIGIN/" 2>"$TMP/curl.err"
	same_body "default allow: an unlisted name is served" "$TMP/b.out" \
	    'hello from origin\n'
	refusal "default allow: private address still 403" "$PX_PORT" 403 \
	    private_address "GET http://private.test/ HTTP/1.1\r\nHost: private.test\r\n\r\n"
	refusal "default allow: deny rule still 403" "$PX_PORT" 403 deny_rule \
	    "GET http://blocked.test/ HTTP/1.1\r\nHost: blocked.test\r\n\r\n"
	stop_proxy dflt "$PX_PID"
	if $PY "$H" logcheck "$TMP/dflt.log" \
	    --expect "http|good.test|$ORIGIN|allow|default_allow|127.0.0.1" \
	    --expect "http|private.test|80|deny|private_address|10.0.0.1" \
	    --expect "http|blocked.test|80|deny|deny_rule|" >"$TMP/lc.out" 2>&1; then
		ok "default allow: logged as default_allow"
	else
		not_ok "default allow: logged as default_allow" "$(cat "$TMP/lc.out")"
	fi
}

# Two listeners (IPv4 and IPv6); the command line wins over 'listen'.
area_listen() {
	fp=$($PY "$H" freeport)
	{
		policy_main
		echo "listen 127.0.0.1:$fp"
	} >"$TMP/two.conf"
	start_proxy two "$TMP/two.conf" --listen '[::1]:0' || return 0
	P1=$PX_PORT
	P2=$(sed -n 's/^harn-egressd: listening on \[::1\]:\([0-9]*\)$/\1/p' "$TMP/two.stdout")
	if grep -qx "harn-egressd: listening on 127.0.0.1:$P1" "$TMP/two.stdout" &&
	    [ -n "$P2" ] && [ "$(wc -l <"$TMP/two.stdout")" -eq 2 ]; then
		ok "listen: one stdout line per listener, IPv6 as [::1]:PORT"
	else
		not_ok "listen: one stdout line per listener, IPv6 as [::1]:PORT" \
		    "$(cat "$TMP/two.stdout")"
		P2=1
	fi
	if grep -q ":$fp\$" "$TMP/two.stdout"; then
		not_ok "listen: --listen wins over the policy's listen"
	else
		ok "listen: --listen wins over the policy's listen"
	fi
	CURL -x "http://[::1]:$P2" -o "$TMP/b.out" "http://good.test:$ORIGIN/" \
	    2>"$TMP/curl.err"
	same_body "listen: served on the IPv6 listener" "$TMP/b.out" \
	    'hello from origin\n'
	refusal "listen: the other listener's port is proxy_loop" "$P1" 403 \
	    proxy_loop "GET http://good.test:$P2/ HTTP/1.1\r\nHost: good.test:$P2\r\n\r\n"
	refusal "listen: [::1] with the IPv6 listener's port is proxy_loop" "$P1" \
	    403 proxy_loop "CONNECT [::1]:$P2 HTTP/1.1\r\nHost: [::1]:$P2\r\n\r\n"
	stop_proxy two "$PX_PID"
}

area_limits() {
	{
		policy_main | grep -v '^header_timeout'
		echo "max_connections 2"
	} >"$TMP/lim.conf"
	start_proxy lim "$TMP/lim.conf" || return 0
	LP=$PX_PORT
	LPID=$PX_PID
	$PY "$H" hold --proxy "$LP" --n 2 --target "good.test:$ORIGIN" \
	    --ready "$TMP/hold.ready" --seconds 20 >"$TMP/hold.out" 2>&1 &
	hpid=$!
	BG_PIDS="$BG_PIDS $hpid"
	if wait_file "$TMP/hold.ready" 50 "$hpid" && grep -q '^ready 2' "$TMP/hold.ready"; then
		ok "limits: two tunnels held open"
	else
		not_ok "limits: two tunnels held open" "$(cat "$TMP/hold.ready" "$TMP/hold.out" 2>/dev/null)"
	fi
	refusal "limits: third HTTP client: 503 limit_exceeded" "$LP" 503 \
	    limit_exceeded "GET http://good.test:$ORIGIN/ HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n"
	socks "$LP" --host good.test --dport "$ORIGIN"
	expect_grep "limits: third SOCKS5 greeting: 05 FF" "$TMP/socks.out" '^method 05 ff$'
	expect_grep "limits: ... and closed" "$TMP/socks.out" '^closed yes'
	kill "$hpid" 2>/dev/null
	wait_gone "$hpid" 30 || true
	n=0
	while :; do
		CURL -x "http://127.0.0.1:$LP" -o "$TMP/b.out" \
		    "http://good.test:$ORIGIN/" 2>"$TMP/curl.err" && break
		n=$((n + 1))
		[ $n -ge 10 ] && break
		sleep 0.2
	done
	same_body "limits: slots free again once the tunnels close" "$TMP/b.out" \
	    'hello from origin\n'
	stop_proxy lim "$LPID"
	if [ "$STOP_RC" -eq 0 ]; then ok "limits: SIGTERM exit 0"; else
		not_ok "limits: SIGTERM exit 0" "exit $STOP_RC"; fi
	nl=$(grep -c '"limit_exceeded"' "$TMP/lim.log")
	if [ "$nl" -eq 2 ]; then
		ok "limits: two limit_exceeded records"
	else
		not_ok "limits: two limit_exceeded records" "got $nl" "$(cat "$TMP/lim.log")"
	fi
	if $PY "$H" logcheck "$TMP/lim.log" >"$TMP/lc.out" 2>&1; then
		ok "limits: log well-formed"
	else
		not_ok "limits: log well-formed" "$(cat "$TMP/lc.out")"
	fi

	# Churn below the limit (issue 12): max_connections 100, 90 clients
	# each opening a new connection per request: not one 503.
	{
		policy_main | grep -v '^header_timeout'
		echo "max_connections 100"
	} >"$TMP/churn.conf"
	if start_proxy churn "$TMP/churn.conf"; then
		$PY "$H" churn --proxy "$PX_PORT" --n 90 --seconds 3 \
		    "http://good.test:$ORIGIN/churn" >"$TMP/churn.out" 2>&1
		if grep -q 'oserror\|503' "$TMP/churn.out" ||
		    ! grep -q '200=' "$TMP/churn.out"; then
			not_ok "limits: churn of 90 under max_connections 100: no 503" \
			    "$(cat "$TMP/churn.out")"
		else
			ok "limits: churn of 90 under max_connections 100: no 503 ($(cat "$TMP/churn.out"))"
		fi
		# The race itself, made certain: 100 clients held, then while
		# the proxy is stopped 50 close and 50 new ones send a request.
		# Every close is pending when the new ones arrive.
		$PY "$H" swap --proxy "$PX_PORT" --pid "$PX_PID" --n 100 \
		    --swap 50 "http://good.test:$ORIGIN/swap" >"$TMP/swap.out" 2>&1
		if [ "$(cat "$TMP/swap.out")" = "200=50" ]; then
			ok "limits: 50 closed and 50 opened at once at max_connections 100: all served"
		else
			not_ok "limits: 50 closed and 50 opened at once at max_connections 100: all served" \
			    "$(cat "$TMP/swap.out")"
		fi
		stop_proxy churn "$PX_PID"
	fi

	# Out of descriptors (issue 12): said at start and when it happens,
	# and the clients waiting are refused 503, not left in the queue.
	{
		policy_main | grep -v '^header_timeout'
		echo "header_timeout 10s"
		echo "max_connections 1000"
	} >"$TMP/fds.conf"
	rm -f "$TMP/fds.port"
	(ulimit -n 48 && exec "$EGRESSD" --policy "$TMP/fds.conf" \
	    --listen 127.0.0.1:0 --port-file "$TMP/fds.port" \
	    --log "$TMP/fds.log") >"$TMP/fds.stdout" 2>"$TMP/fds.stderr" &
	fpid=$!
	BG_PIDS="$BG_PIDS $fpid"
	if wait_file "$TMP/fds.port" 50 "$fpid"; then
		FDP=$(head -n1 "$TMP/fds.port")
		expect_grep "fds: a limit short of max_connections is said at start" \
		    "$TMP/fds.stderr" 'warning: [0-9]+ file descriptors cannot serve max_connections 1000'
		# Idle clients take every descriptor.
		$PY -c '
import socket, sys, time
held = []
for i in range(80):
    try:
        held.append(socket.create_connection(("127.0.0.1", int(sys.argv[1]))))
    except OSError:
        break
open(sys.argv[2], "w").write("%d\n" % len(held))
time.sleep(8)' "$FDP" "$TMP/fds.ready" &
		hp=$!
		wait_file "$TMP/fds.ready" 50 "$hp" || true
		# Out of descriptors once the held clients are accepted: said.
		wait_grep "$TMP/fds.stderr" 'out of file descriptors' 50 || true
		t0=$(now_ms)
		raw "$FDP" "GET http://good.test:$ORIGIN/fds HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n"
		t1=$(now_ms)
		if grep -q '^status 503$' "$TMP/raw.out" &&
		    grep -q '^header x-harn-egress-reason: limit_exceeded$' "$TMP/raw.out" &&
		    [ $((t1 - t0)) -lt 3000 ]; then
			ok "fds: out of descriptors, a new client gets 503 limit_exceeded ($((t1 - t0)) ms)"
		else
			not_ok "fds: out of descriptors, a new client gets 503 limit_exceeded" \
			    "$((t1 - t0)) ms" "$(show)"
		fi
		expect_grep "fds: said on stderr" "$TMP/fds.stderr" \
		    'out of file descriptors \(limit [0-9]+'
		# A SOCKS5 greeting waiting there (sent while the proxy was
		# stopped, so it is there before the proxy looks) gets 05 FF.
		got=$($PY -c '
import os, signal, socket, sys
pid, port = int(sys.argv[1]), int(sys.argv[2])
os.kill(pid, signal.SIGSTOP)
try:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"\x05\x01\x00")
finally:
    os.kill(pid, signal.SIGCONT)
print(s.recv(16).hex())' "$fpid" "$FDP" 2>&1)
		if [ "$got" = "05ff" ]; then
			ok "fds: out of descriptors, a SOCKS5 greeting gets 05 FF"
		else
			not_ok "fds: out of descriptors, a SOCKS5 greeting gets 05 FF" "$got"
		fi
		kill "$hp" 2>/dev/null
		wait "$hp" 2>/dev/null
		# Descriptors come back as the proxy sees the held clients go.
		n=0
		while raw "$FDP" "GET http://good.test:$ORIGIN/fds2 HTTP/1.1\r\nHost: good.test:$ORIGIN\r\n\r\n" &&
		    ! grep -q '^status 200$' "$TMP/raw.out" && [ $n -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		expect_status "fds: descriptors back, served again" 200
		if grep -q '"reason":"connect_failed"' "$TMP/fds.log"; then
			not_ok "fds: no local shortage logged as the origin's connect_failed" \
			    "$(grep connect_failed "$TMP/fds.log" | head -2)"
		else
			ok "fds: no local shortage logged as the origin's connect_failed"
		fi
		kill "$fpid" 2>/dev/null
		wait "$fpid" 2>/dev/null
	else
		not_ok "fds: the proxy starts under ulimit -n 48" "$(cat "$TMP/fds.stderr")"
	fi
}

# Exactly one record per request, the expected reasons, in order.
area_dlog() {
	policy_main >"$TMP/dl.conf"
	start_proxy dl "$TMP/dl.conf" || return 0
	DP=$PX_PORT
	DPID=$PX_PID
	O=$ORIGIN
	CURL -x "http://127.0.0.1:$DP" -o /dev/null "http://good.test:$O/" 2>/dev/null
	raw "$DP" "GET http://nope.test/ HTTP/1.1\r\nHost: nope.test\r\n\r\n"
	raw "$DP" "CONNECT blocked.test:443 HTTP/1.1\r\nHost: blocked.test:443\r\n\r\n"
	socks "$DP" --host gone.test --dport 80
	raw "$DP" "GET http://2130706433:$O/ HTTP/1.1\r\nHost: 2130706433:$O\r\n\r\n"
	raw "$DP" "FOO\r\n\r\n"
	socks "$DP" --cmd 2 --host good.test --dport "$O"
	raw "$DP" "CONNECT a..b:443 HTTP/1.1\r\nHost: a..b:443\r\n\r\n"
	socks "$DP" --host refused.test --dport "$CLOSED"
	raw "$DP" "GET http://good.test:$DP/ HTTP/1.1\r\nHost: good.test:$DP\r\n\r\n"
	raw "$DP" "GET http://private.test/ HTTP/1.1\r\nHost: private.test\r\n\r\n"
	raw "$DP" "GET http://meta.test/ HTTP/1.1\r\nHost: meta.test\r\n\r\n"
	raw "$DP" "GET https://good.test/ HTTP/1.1\r\nHost: good.test\r\n\r\n"
	CURL -k -p -x "http://127.0.0.1:$DP" -o /dev/null "https://tls.test:$TLS/" 2>/dev/null
	socks "$DP" --atyp 1 --host 127.0.0.2 --dport "$O"
	raw "$DP" "GET http://GOOD.TEST.:$O/ HTTP/1.0\r\n\r\n"
	raw "$DP" "GET http://good.test:$O/ HTTP/1.1\r\nHost: good.test:$O\r\nX-Big: $(printf '%03000d' 0)\r\n\r\n"
	socks "$DP" --atyp 1 --host 127.0.0.1 --dport "$O"
	raw "$DP" "GET http://0x7f.1:$O/ HTTP/1.0\r\n\r\n"
	socks "$DP" --cmd 3 --atyp 1 --host 0.0.0.0 --dport 0
	$PY "$H" abort --proxy "$DP" --after 0.1 \
	    "GET http://slow.test/ HTTP/1.1\r\nHost: slow.test\r\n\r\n" 2>/dev/null
	# Its client left; it is decided at dns_timeout all the same, before
	# the next request (the records are checked in order).
	wait_grep "$TMP/dl.log" '"host":"slow.test"' 50 || true
	raw "$DP" "GET http://good.test:$O/k1 HTTP/1.1\r\nHost: good.test:$O\r\n\r\n" \
	    "GET http://nope.test:$O/k2 HTTP/1.1\r\nHost: nope.test:$O\r\n\r\n"
	raw "$DP" "CONNECT [0:0:0::1]:$O HTTP/1.1\r\n\r\n"
	raw "$DP" 'CONNECT a"b\\c:443 HTTP/1.1\r\n\r\n'
	raw "$DP" 'CONNECT a\x01b:443 HTTP/1.1\r\n\r\n'
	raw "$DP" 'CONNECT b\xfccher.test:443 HTTP/1.1\r\n\r\n'
	socks "$DP" --host 'x"y\\z\x7f' --dport 80
	stop_proxy dl "$DPID"
	$PY "$H" logcheck "$TMP/dl.log" \
	    --expect "http|good.test|$O|allow|allow_rule|127.0.0.1" \
	    --expect "http|nope.test|80|deny|no_allow_rule|" \
	    --expect "http_connect|blocked.test|443|deny|deny_rule|" \
	    --expect "socks5|gone.test|80|deny|dns_failure|" \
	    --expect "http|127.0.0.1|$O|deny|no_allow_rule|127.0.0.1" \
	    --expect "http||0|deny|invalid_request|" \
	    --expect "socks5|*|*|deny|unsupported_command|" \
	    --expect "http_connect,http|*|*|deny|invalid_target|" \
	    --expect "socks5|refused.test|$CLOSED|deny|connect_failed|127.0.0.1" \
	    --expect "http|good.test|$DP|deny|proxy_loop|127.0.0.1" \
	    --expect "http|private.test|80|deny|private_address|10.0.0.1" \
	    --expect "http|meta.test|80|deny|metadata_address|169.254.169.254" \
	    --expect "http|*|*|deny|invalid_request|" \
	    --expect "http_connect|tls.test|$TLS|allow|allow_rule|127.0.0.1" \
	    --expect "socks5|127.0.0.2|$O|deny|deny_rule|127.0.0.2" \
	    --expect "http|good.test|$O|allow|allow_rule|127.0.0.1" \
	    --expect "http|*|*|deny|invalid_request|" \
	    --expect "socks5|127.0.0.1|$O|deny|no_allow_rule|127.0.0.1" \
	    --expect "http|127.0.0.1|$O|deny|no_allow_rule,invalid_target|127.0.0.1," \
	    --expect "socks5|*|*|deny|unsupported_command|" \
	    --expect "http|slow.test|80|deny|*|" \
	    --expect "http|good.test|$O|allow|allow_rule|127.0.0.1" \
	    --expect "http|nope.test|$O|deny|no_allow_rule|" \
	    --expect "http_connect|::1|$O|deny|no_allow_rule|::1" \
	    --expect "http_connect,http|*|*|deny|invalid_target,invalid_request|" \
	    --expect "http_connect,http|*|*|deny|invalid_target,invalid_request|" \
	    --expect "http_connect,http|*|*|deny|invalid_target,invalid_request|" \
	    --expect "socks5|*|*|deny|invalid_target|" \
	    >"$TMP/lc.out" 2>&1
	if [ $? -eq 0 ]; then
		ok "dlog: one well-formed record per request, reasons as expected"
	else
		not_ok "dlog: one well-formed record per request, reasons as expected" \
		    "$(head -c 2500 "$TMP/lc.out")"
	fi
	if [ "$STOP_RC" -eq 0 ]; then ok "dlog: SIGTERM exit 0"; else
		not_ok "dlog: SIGTERM exit 0" "exit $STOP_RC"; fi
	if [ -s "$TMP/dl.stderr" ] && grep -q '"decision"' "$TMP/dl.stderr"; then
		not_ok "dlog: with --log FILE, no decision on stderr" "$(head -3 "$TMP/dl.stderr")"
	else
		ok "dlog: with --log FILE, no decision on stderr"
	fi
	# --log appends.
	printf '%s\n' "$(head -n1 "$TMP/dl.log")" >"$TMP/app.log"
	cp "$TMP/app.log" "$TMP/app.first"
	policy_main >"$TMP/app.conf"
	if start_proxy app "$TMP/app.conf"; then
		raw "$PX_PORT" "GET http://nope.test/ HTTP/1.1\r\nHost: nope.test\r\n\r\n"
		stop_proxy app "$PX_PID"
		if [ "$(wc -l <"$TMP/app.log")" -eq 2 ] &&
		    [ "$(head -n1 "$TMP/app.log")" = "$(cat "$TMP/app.first")" ]; then
			ok "dlog: --log appends"
		else
			not_ok "dlog: --log appends" "$(cat "$TMP/app.log")"
		fi
	fi
}

# The decision line before the answer (issue 22): a line is handed to the
# kernel before anything its decision answers or lets through is sent.  A
# proxy SIGKILLed right after a burst (refusals, CONNECT, forwarding,
# SOCKS5, each to a host of its own) leaves no answered request without
# its line, with a file log and with --log - on a pipe; a log file
# deleted mid-run leaves none either: from then on requests are refused
# log_unavailable.
area_logorder() {
	{ policy_main; echo "allow *.burst.test"; } >"$TMP/lo.conf"
	for nc in 20:1 2000:16 10000:32; do
		n=${nc%:*} c=${nc#*:}
		start_proxy "lo$n" "$TMP/lo.conf" || continue
		$PY "$H" logburst --proxy "$PX_PORT" --n "$n" --c "$c" \
		    --port "$ORIGIN" --allow-domain burst.test \
		    --log "$TMP/lo$n.log" --kill "$PX_PID" >"$TMP/lo.out" 2>&1
		if [ $? -eq 0 ]; then
			ok "log order: SIGKILL after $n answers (c=$c): each has its line ($(head -n1 "$TMP/lo.out"))"
		else
			not_ok "log order: SIGKILL after $n answers (c=$c): each has its line" \
			    "$(head -c 600 "$TMP/lo.out")"
		fi
		wait "$PX_PID" 2>/dev/null
	done

	# --log -: stderr, a pipe to a reader that writes a file.
	rm -f "$TMP/lo.fifo" "$TMP/lopipe.port"
	mkfifo "$TMP/lo.fifo"
	cat "$TMP/lo.fifo" >"$TMP/lopipe.log" &
	rdr=$!
	BG_PIDS="$BG_PIDS $rdr"
	"$EGRESSD" --policy "$TMP/lo.conf" --listen 127.0.0.1:0 \
	    --port-file "$TMP/lopipe.port" --log - >/dev/null 2>"$TMP/lo.fifo" &
	ppid=$!
	BG_PIDS="$BG_PIDS $ppid"
	if wait_file "$TMP/lopipe.port" 50 "$ppid"; then
		$PY "$H" logburst --proxy "$(cat "$TMP/lopipe.port")" --n 2000 \
		    --c 16 --port "$ORIGIN" --allow-domain burst.test \
		    --log "$TMP/lopipe.log" --kill "$ppid" --reader "$rdr" \
		    >"$TMP/lo.out" 2>&1
		if [ $? -eq 0 ]; then
			ok "log order: --log - on a pipe, SIGKILL after 2000 answers: each has its line ($(head -n1 "$TMP/lo.out"))"
		else
			not_ok "log order: --log - on a pipe, SIGKILL after 2000 answers: each has its line" \
			    "$(head -c 600 "$TMP/lo.out")"
		fi
	else
		not_ok "log order: the proxy with --log - starts"
	fi
	kill "$ppid" "$rdr" 2>/dev/null
	wait "$ppid" "$rdr" 2>/dev/null

	# The log file deleted after 1000 answers, 3000 in all: each one
	# answered has its line (read through a descriptor held open), or
	# was refused log_unavailable.
	if start_proxy lodel "$TMP/lo.conf"; then
		$PY "$H" logburst --proxy "$PX_PORT" --n 3000 --c 16 \
		    --port "$ORIGIN" --allow-domain burst.test \
		    --log "$TMP/lodel.log" --delete-after 1000 >"$TMP/lo.out" 2>&1
		if [ $? -eq 0 ]; then
			ok "log order: the log deleted mid-run: every answer has its line or is log_unavailable ($(head -n1 "$TMP/lo.out"))"
		else
			not_ok "log order: the log deleted mid-run: every answer has its line or is log_unavailable" \
			    "$(head -c 600 "$TMP/lo.out")"
		fi
		stop_proxy lodel "$PX_PID"
	fi
}

# Request smuggling through chunk lines (issue 22): a strict origin (RFC
# 9112) and a lenient one (a line also ends at a bare CR or LF, a chunk
# size is its leading hex digits: node's insecureHTTPParser) each see
# exactly the requests the decision log allowed, one connection at a time;
# a chunk line that is not one is refused 400 and none of it is relayed.
area_smuggle() {
	policy_main >"$TMP/sm.conf"
	start_server strict parseorigin --mode strict --log "$TMP/strict.log" ||
	    return 0
	SO=$SRV_PORT
	start_server lenient parseorigin --mode lenient --log "$TMP/lenient.log" ||
	    return 0
	LO=$SRV_PORT
	start_proxy sm "$TMP/sm.conf" || return 0
	SMP=$PX_PORT
	long=$(head -c 40000 /dev/zero | tr '\0' a)
	for o in "strict $SO" "lenient $LO"; do
		set -- $o
		name=$1 P=$2
		G="good.test:$P"
		pre="POST http://$G/"
		post=" HTTP/1.1\r\nHost: $G\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
		# The issue's shape: a bare CR inside a chunk extension.
		raw "$SMP" "${pre}bare-cr${post}2;a\rzz\r0\r\rGET /smuggled HTTP/1.0\r\n\r\n\r\n0\r\n\r\n"
		check_refusal "smuggle ($name): a bare CR in a chunk extension: 400" \
		    400 invalid_request "$TMP/raw.out"
		raw "$SMP" "${pre}trailer-cr${post}0\r\nT: x\r\rGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
		check_refusal "smuggle ($name): a bare CR in a trailer: 400" \
		    400 invalid_request "$TMP/raw.out"
		raw "$SMP" "${pre}size-junk${post}5 zz\r\nhello\r\n0\r\n\r\n"
		check_refusal "smuggle ($name): '5 zz' is no chunk size: 400" \
		    400 invalid_request "$TMP/raw.out"
		# The same past the splice threshold: a long chunk's data goes by
		# splice (proxy/span.c), then the line after it is checked.  Its
		# head was allowed, so the origin sees the POST begin (one more
		# request below), but nothing of the bad line or after it.
		raw "$SMP" "${pre}long-bare-cr${post}9c40\r\n$long\r\n2;a\rzz\r0\r\rGET /smuggled HTTP/1.0\r\n\r\n\r\n0\r\n\r\n"
		check_refusal "smuggle ($name): a bare CR in the chunk line after a long chunk's data: 400" \
		    400 invalid_request "$TMP/raw.out"
		raw "$SMP" "${pre}ext-ok${post}5 ; a=b ;c=\"d e\"\r\nhello\r\n0;x=y\r\nT: v\r\n\r\n"
		expect_status "smuggle ($name): valid chunk extensions and a trailer: forwarded (200)" 200
		raw "$SMP" "GET http://$G/end HTTP/1.1\r\nHost: $G\r\nConnection: close\r\n\r\n"
		expect_status "smuggle ($name): the origin serves on" 200
		# One connection at a time: /end read means all before it was.
		if ! wait_grep "$TMP/$name.log" '"/end"' 50; then
			not_ok "smuggle ($name): the origin read /end" "$(cat "$TMP/$name.log")"
			continue
		fi
		seen=$(grep -c . "$TMP/$name.log")
		allowed=$(grep -c "\"port\":$P,\"decision\":\"allow\"" "$TMP/sm.log")
		if [ "$seen" -eq "$allowed" ] && [ "$seen" -eq 6 ] &&
		    ! grep -q smuggled "$TMP/$name.log"; then
			ok "smuggle ($name): the origin saw exactly the $allowed requests the log allowed"
		else
			not_ok "smuggle ($name): the origin saw exactly the requests the log allowed" \
			    "seen $seen, allowed $allowed, want 6" "$(cat "$TMP/$name.log")"
		fi
	done
	stop_proxy sm "$PX_PID"

	# A chunk line in a response that is not one: not a byte of it
	# reaches the client, which gets the head and then the end; also
	# after a long chunk whose data went by splice.
	# Each case: a label, the response's body, and what of it may reach
	# the client (a chunk and its data before the line at fault).
	for bad in 'data-end|3\r\nabc HTTP/1.1\r\n\r\n|3\r\nabc' \
	    '0x3|0x3\r\nabc\r\n0\r\n\r\n|' \
	    '5-zz|5 zz\r\nhello\r\n0\r\n\r\n|' \
	    'bare-cr|2;a\rzz\r0\r\r\n|' \
	    'trailer-cr|2\r\nzz\r\n0\r\nT: x\rGET / HTTP/1.1\r\n\r\n|2\r\nzz\r\n0\r\n' \
	    "long-bare-cr|9c40\r\n$long\r\n2;a\rzz\r0\r\r\n|9c40\r\n$long\r\n"; do
		label=${bad%%|*}
		bad=${bad#*|}
		allowed=${bad#*|}
		bad=${bad%%|*}
		rm -f "$TMP/badresp.port"
		$PY "$H" rawresp --port-file "$TMP/badresp.port" --response \
		    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n$bad" \
		    >/dev/null 2>&1 &
		rpid=$!
		BG_PIDS="$BG_PIDS $rpid"
		if ! wait_file "$TMP/badresp.port" 50 "$rpid"; then
			not_ok "bad response chunk line: the origin starts"
			continue
		fi
		BP=$(cat "$TMP/badresp.port")
		$PY -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(("GET http://good.test:%s/ HTTP/1.1\r\nHost: good.test:%s\r\n\r\n"
           % (sys.argv[2], sys.argv[2])).encode())
got = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    got += d
head, sep, rest = got.partition(b"\r\n\r\n")
want = sys.argv[3].encode().decode("unicode_escape").encode("latin-1")
print("%s %r" % ("as-expected" if head.startswith(b"HTTP/1.1 200") and sep
                 and rest == want else "not", got))' "$MP" "$BP" "$allowed" \
		    >"$TMP/badresp.out" 2>&1
		if grep -q "^as-expected " "$TMP/badresp.out"; then
			ok "a response's bad chunk line ($label): the client gets the head and what came before, none of the line"
		else
			not_ok "a response's bad chunk line ($label): the client gets the head and what came before, none of the line" \
			    "$(cat "$TMP/badresp.out")"
		fi
		kill "$rpid" 2>/dev/null
	done
}

# Bodies through forwarding, byte for byte (issue 25: long stretches go
# by splice): lengths at and around every buffer's size, both ways; a
# request pipelined behind a body, sent with it or while it streams; bytes
# an origin sends past its Content-Length; many small chunks and long
# ones; a response until close; half-closes after and inside a body.
# Each answer's decision line is in the log when it arrives, and long
# bodies do not pass through the proxy's reads and writes.
area_bodies() {
	# Its own proxy: a client checking 32 MiB between two requests on
	# one connection may take longer than the main one's header_timeout.
	policy_main | grep -v '^header_timeout' >"$TMP/bodies.conf"
	start_proxy bodies "$TMP/bodies.conf" || return 0
	$PY "$top_srcdir/tests/bodies.py" --proxy "$PX_PORT" --host good.test \
	    --log "$TMP/bodies.log" --pid "$PX_PID" >"$TMP/bodies.out" 2>&1
	brc=$?
	nb=0
	nbad=0
	while IFS= read -r bline; do
		case $bline in
		"ok "*) ok "bodies: ${bline#ok }" ;;
		"not ok "*)
			not_ok "bodies: ${bline#not ok }"
			nbad=$((nbad + 1)) ;;
		"skip "*) skip "bodies: ${bline#skip }" ;;
		*) continue ;;
		esac
		nb=$((nb + 1))
	done <"$TMP/bodies.out"
	# A crash says so, not only by the checks it never printed.
	if [ "$nb" -eq 0 ] || { [ "$brc" -ne 0 ] && [ "$nbad" -eq 0 ]; }; then
		not_ok "bodies: tests/bodies.py ran (exit $brc, $nb checks)" \
		    "$(tail -n 5 "$TMP/bodies.out")"
	fi
	stop_proxy bodies "$PX_PID"
	if [ "$STOP_RC" -eq 0 ]; then
		ok "bodies: the proxy ran through them all and exits 0"
	else
		not_ok "bodies: the proxy ran through them all and exits 0" \
		    "exit $STOP_RC" "$(tail -n 5 "$TMP/bodies.stderr")"
	fi
}

# HTTP details of issue 22: the proxy's own answers to HEAD carry no
# body; requests a client pipelined before its half-close are each
# decided, logged and answered; a CONNECT refused at max_connections is
# logged with what it asked for.  Each decision's line is in the file
# when its answer arrives.
# TCP urgent data (MSG_OOB) through tunnels and forwarded bodies, each
# way: splice never passes the urgent mark, so a proxy that splices must
# step over it, not spin with the rest of the stream stuck behind it.
area_urgent() {
	policy_main >"$TMP/urgent.conf"
	start_proxy urgent "$TMP/urgent.conf" || return 0
	$PY "$top_srcdir/tests/urgent.py" --proxy "$PX_PORT" --host good.test \
	    --pid "$PX_PID" >"$TMP/urgent.out" 2>&1
	urc=$?
	nu=0
	while IFS= read -r uline; do
		case $uline in
		"ok "*) ok "urgent: ${uline#ok }" ;;
		"not ok "*) not_ok "urgent: ${uline#not ok }" ;;
		*) continue ;;
		esac
		nu=$((nu + 1))
	done <"$TMP/urgent.out"
	if [ "$nu" -ne 6 ]; then
		not_ok "urgent: tests/urgent.py ran its 6 checks (exit $urc, $nu)" \
		    "$(tail -n 5 "$TMP/urgent.out")"
	fi
	stop_proxy urgent "$PX_PID"
	if [ "$STOP_RC" -eq 0 ]; then
		ok "urgent: the proxy exits 0 after them"
	else
		not_ok "urgent: the proxy exits 0 after them" "exit $STOP_RC"
	fi
}

area_http22() {
	policy_main >"$TMP/h22.conf"
	start_proxy h22 "$TMP/h22.conf" || return 0
	HP=$PX_PORT
	O=$ORIGIN
	raw "$HP" --close-wait 2 "HEAD http://nope.test/ HTTP/1.1\r\nHost: nope.test\r\n\r\n"
	if grep -q '^status 403$' "$TMP/raw.out" &&
	    grep -q '^header content-length: [1-9]' "$TMP/raw.out" &&
	    grep -q '^closed yes$' "$TMP/raw.out" &&
	    ! grep -q '^trailing' "$TMP/raw.out"; then
		ok "HEAD refused (403): Content-Length, no body"
	else
		not_ok "HEAD refused (403): Content-Length, no body" "$(show)"
	fi
	raw "$HP" --close-wait 2 "HEAD http://gone.test/ HTTP/1.1\r\nHost: gone.test\r\n\r\n"
	if grep -q '^status 502$' "$TMP/raw.out" && grep -q '^closed yes$' "$TMP/raw.out" &&
	    ! grep -q '^trailing' "$TMP/raw.out"; then
		ok "HEAD refused (502 dns_failure): no body"
	else
		not_ok "HEAD refused (502 dns_failure): no body" "$(show)"
	fi
	expect_grep "the 502's line was in the log when it arrived" "$TMP/h22.log" \
	    '"host":"gone.test","port":80,"decision":"deny","reason":"dns_failure"'
	raw "$HP" --pipeline --shut \
	    "GET http://good.test:$O/pipe-a HTTP/1.1\r\nHost: good.test:$O\r\n\r\n" \
	    "GET http://good.test:$O/pipe-b HTTP/1.1\r\nHost: good.test:$O\r\n\r\n" \
	    "GET http://nope.test:$O/pipe-c HTTP/1.1\r\nHost: nope.test:$O\r\n\r\n"
	section 1
	expect_status "half-close after 3 pipelined requests: the first answered (200)" 200 "$TMP/sec.out"
	section 2
	expect_status "... the second too (200)" 200 "$TMP/sec.out"
	section 3
	check_refusal "... and the third decided and refused (403)" 403 \
	    no_allow_rule "$TMP/sec.out"
	if [ "$(grep -c "\"host\":\"good.test\",\"port\":$O," "$TMP/h22.log")" -eq 2 ] &&
	    grep -q "\"host\":\"nope.test\",\"port\":$O," "$TMP/h22.log"; then
		ok "... each with its line, there when its answer came"
	else
		not_ok "... each with its line, there when its answer came" "$(cat "$TMP/h22.log")"
	fi
	stop_proxy h22 "$PX_PID"

	{
		policy_main | grep -v '^header_timeout'
		echo "max_connections 1"
	} >"$TMP/h22l.conf"
	start_proxy h22l "$TMP/h22l.conf" || return 0
	$PY "$H" hold --proxy "$PX_PORT" --n 1 --target "good.test:$O" \
	    --ready "$TMP/h22.ready" --seconds 20 >"$TMP/h22hold.out" 2>&1 &
	hpid=$!
	BG_PIDS="$BG_PIDS $hpid"
	if wait_file "$TMP/h22.ready" 50 "$hpid"; then
		refusal "over max_connections: CONNECT refused 503" "$PX_PORT" 503 \
		    limit_exceeded "CONNECT good.test:443 HTTP/1.1\r\nHost: good.test:443\r\n\r\n"
		expect_grep "... logged with what it asked for" "$TMP/h22l.log" \
		    '"protocol":"http_connect","host":"good.test","port":443,"decision":"deny","reason":"limit_exceeded"'
		raw "$PX_PORT" --close-wait 2 "HEAD http://good.test:$O/ HTTP/1.1\r\nHost: good.test:$O\r\n\r\n"
		if grep -q '^status 503$' "$TMP/raw.out" && ! grep -q '^trailing' "$TMP/raw.out"; then
			ok "over max_connections: HEAD refused 503, no body"
		else
			not_ok "over max_connections: HEAD refused 503, no body" "$(show)"
		fi
		expect_grep "... logged with its URL's host and port" "$TMP/h22l.log" \
		    "\"protocol\":\"http\",\"host\":\"good.test\",\"port\":$O,\"decision\":\"deny\",\"reason\":\"limit_exceeded\""
		socks "$PX_PORT" --pipeline --host other.test --dport "$O"
		expect_grep "over max_connections: a SOCKS5 greeting with its request: 05 FF" \
		    "$TMP/socks.out" '^method 05 ff$'
		expect_grep "... logged with the request's target" "$TMP/h22l.log" \
		    "\"protocol\":\"socks5\",\"host\":\"other.test\",\"port\":$O,\"decision\":\"deny\",\"reason\":\"limit_exceeded\""
	else
		not_ok "over max_connections: a tunnel held" "$(cat "$TMP/h22hold.out")"
	fi
	kill "$hpid" 2>/dev/null
	stop_proxy h22l "$PX_PID"
}

# The decision log's faults (issue 12): the loop never waits on it, a
# line is whole or absent, every record it could not take is counted
# (stderr, the report's log.lost), and while it fails or is behind new
# requests are refused with 503 log_unavailable (log_failure_action
# refuse, the default) or served (serve).

# lf_get NAME PORT PATH: one allowed request; its status in $LF_STATUS.
lf_get() {
	LF_STATUS=$(curl -q -s --max-time 3 --noproxy '' -o /dev/null \
	    -D "$TMP/$1.hdr" -w '%{http_code}' -x "http://127.0.0.1:$2" \
	    "http://good.test:$ORIGIN/$3" 2>/dev/null)
}

# lf_report NAME: the report's log.lost and log.complete, "LOST COMPLETE".
lf_report() {
	$PY -c 'import json,sys; l=json.load(open(sys.argv[1]))["log"]; print(l["lost"], str(l["complete"]).lower())' \
	    "$TMP/$1.json" 2>/dev/null
}

# lf_whole FILE: every line of FILE is a whole JSON record.
lf_whole() {
	$PY -c '
import json, sys
d = open(sys.argv[1], "rb").read()
if d and not d.endswith(b"\n"):
    sys.exit("torn last line: %r" % d[-80:])
for i, ln in enumerate(d.splitlines()):
    try:
        json.loads(ln)
    except ValueError:
        sys.exit("line %d is not a record: %r" % (i + 1, ln[:120]))' "$1"
}

area_logfault() {
	policy_main >"$TMP/lf.conf"
	{ policy_main; echo "log_failure_action serve"; } >"$TMP/lfs.conf"

	# A reader that stops: requests are still answered, SIGTERM works,
	# and what it never took is counted.
	rm -f "$TMP/stall.fifo"
	mkfifo "$TMP/stall.fifo"
	$PY -c 'import os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); time.sleep(30)' \
	    "$TMP/stall.fifo" &
	rdr=$!
	BG_PIDS="$BG_PIDS $rdr"
	if start_proxy stall "$TMP/lf.conf" --log "$TMP/stall.fifo" \
	    --attest "$TMP/stall.json"; then
		SP=$PX_PORT
		urls=$(i=0; while [ $i -lt 600 ]; do printf 'http://good.test:%s/s%d ' "$ORIGIN" $i; i=$((i + 1)); done)
		# shellcheck disable=SC2086
		curl -q -s --max-time 20 --noproxy '' -o /dev/null \
		    -x "http://127.0.0.1:$SP" $urls 2>/dev/null
		t0=$(now_ms)
		lf_get stall "$SP" after-stall
		t1=$(now_ms)
		if [ -n "$LF_STATUS" ] && [ "$LF_STATUS" != 000 ] &&
		    [ $((t1 - t0)) -lt 2000 ]; then
			ok "log reader stopped: a new request is answered ($LF_STATUS in $((t1 - t0)) ms)"
		else
			not_ok "log reader stopped: a new request is answered" \
			    "status '$LF_STATUS' after $((t1 - t0)) ms"
		fi
		t0=$(now_ms)
		stop_proxy stall "$PX_PID"
		t1=$(now_ms)
		if [ "$STOP_RC" -ne -1 ] && [ $((t1 - t0)) -lt 4000 ]; then
			ok "log reader stopped: SIGTERM ends the proxy ($((t1 - t0)) ms)"
		else
			not_ok "log reader stopped: SIGTERM ends the proxy" \
			    "rc $STOP_RC after $((t1 - t0)) ms"
		fi
		expect_grep "log reader stopped: the records not written are said" \
		    "$TMP/stall.stderr" '^harn-egressd: decision log: [0-9]+ records not written'
		set -- $(lf_report stall)
		if [ "${1:-0}" -gt 0 ] && [ "${2:-}" = false ]; then
			ok "log reader stopped: the report counts them (log.lost $1, complete false)"
		else
			not_ok "log reader stopped: the report counts them" "lost '${1:-}' complete '${2:-}'"
		fi
	fi
	kill "$rdr" 2>/dev/null

	# A reader that falls behind, then catches up: while the pipe is full
	# requests are refused (503 log_unavailable); their lines are held
	# and written, in order, once it reads again; then it is served, and
	# nothing was lost.
	rm -f "$TMP/slow.fifo" "$TMP/slow.go"
	mkfifo "$TMP/slow.fifo"
	$PY -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
with open(sys.argv[3], "wb") as out:
    while True:
        d = os.read(fd, 65536)
        if not d:
            break
        out.write(d)
        out.flush()' "$TMP/slow.fifo" "$TMP/slow.go" "$TMP/slowcopy.log" &
	rdr=$!
	BG_PIDS="$BG_PIDS $rdr"
	if start_proxy slow "$TMP/lf.conf" --log "$TMP/slow.fifo" \
	    --attest "$TMP/slow.json"; then
		urls=$(i=0; while [ $i -lt 600 ]; do printf 'http://good.test:%s/w%d ' "$ORIGIN" $i; i=$((i + 1)); done)
		# shellcheck disable=SC2086
		curl -q -s --max-time 20 --noproxy '' -o /dev/null \
		    -x "http://127.0.0.1:$PX_PORT" $urls 2>/dev/null
		lf_get slow "$PX_PORT" while-behind
		if [ "$LF_STATUS" = 503 ] &&
		    grep -qi '^x-harn-egress-reason: log_unavailable' "$TMP/slow.hdr"; then
			ok "log reader behind: 503 log_unavailable"
		else
			not_ok "log reader behind: 503 log_unavailable" "status $LF_STATUS"
		fi
		: >"$TMP/slow.go"
		n=0
		while lf_get slow "$PX_PORT" caught-up &&
		    [ "$LF_STATUS" != 200 ] && [ $n -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		if [ "$LF_STATUS" = 200 ]; then
			ok "log reader behind: served again once it reads"
		else
			not_ok "log reader behind: served again once it reads" "status $LF_STATUS"
		fi
		stop_proxy slow "$PX_PID"
		wait "$rdr" 2>/dev/null
		set -- $(lf_report slow)
		if [ "${1:-}" = 0 ] && [ "${2:-}" = true ] &&
		    grep -q '"reason":"log_unavailable"' "$TMP/slowcopy.log" &&
		    lf_whole "$TMP/slowcopy.log" >"$TMP/whole.out" 2>&1; then
			ok "log reader behind: the refusals' lines came late, whole, none lost ($(grep -c log_unavailable "$TMP/slowcopy.log") of them)"
		else
			not_ok "log reader behind: the refusals' lines came late, whole, none lost" \
			    "lost '${1:-}' complete '${2:-}'" "$(cat "$TMP/whole.out")"
		fi
		PX_LOGS="$PX_LOGS $TMP/slowcopy.log"
	fi
	kill "$rdr" 2>/dev/null

	# A reader that goes away: refused from then on (503
	# log_unavailable), or, with log_failure_action serve, served.
	for pol in lf lfs; do
		rm -f "$TMP/gone.fifo"
		mkfifo "$TMP/gone.fifo"
		$PY -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.read(fd, 1)' \
		    "$TMP/gone.fifo" &
		rdr=$!
		BG_PIDS="$BG_PIDS $rdr"
		start_proxy gone "$TMP/$pol.conf" --log "$TMP/gone.fifo" \
		    --attest "$TMP/gone.json" || continue
		lf_get gone "$PX_PORT" g1
		wait "$rdr" 2>/dev/null
		# The next line meets the closed pipe: that request is refused.
		lf_get gone "$PX_PORT" g2
		g2=$LF_STATUS
		lf_get gone "$PX_PORT" g3
		if [ "$pol" = lf ]; then
			if [ "$g2" = 503 ] && [ "$LF_STATUS" = 503 ] &&
			    grep -qi '^x-harn-egress-reason: log_unavailable' "$TMP/gone.hdr"; then
				ok "log reader gone: 503 log_unavailable, from the first request after"
			else
				not_ok "log reader gone: 503 log_unavailable, from the first request after" \
				    "status $g2, then $LF_STATUS: $(head -c 300 "$TMP/gone.hdr")"
			fi
		elif [ "$g2" = 200 ] && [ "$LF_STATUS" = 200 ]; then
			ok "log reader gone, log_failure_action serve: served (200)"
		else
			not_ok "log reader gone, log_failure_action serve: served (200)" \
			    "status $LF_STATUS"
		fi
		stop_proxy gone "$PX_PID"
		expect_grep "log reader gone ($pol): said on stderr" "$TMP/gone.stderr" \
		    '^harn-egressd: decision log: Broken pipe; new requests are refused'
		set -- $(lf_report gone)
		if [ "${1:-0}" -gt 0 ]; then
			ok "log reader gone ($pol): log.lost $1 in the report"
		else
			not_ok "log reader gone ($pol): log.lost in the report" "lost '${1:-}'"
		fi
	done

	# The log file deleted: said, and refused.
	if start_proxy del "$TMP/lf.conf" --log "$TMP/del.log"; then
		lf_get del "$PX_PORT" d1
		rm -f "$TMP/del.log"
		lf_get del "$PX_PORT" d2
		d2=$LF_STATUS
		lf_get del "$PX_PORT" d3
		if [ "$d2" = 503 ] && [ "$LF_STATUS" = 503 ]; then
			ok "log file deleted: 503 log_unavailable, from the first request after"
		else
			not_ok "log file deleted: 503 log_unavailable, from the first request after" \
			    "status $d2, then $LF_STATUS"
		fi
		# SIGHUP opens a new file at the path: the very next request
		# is served, and its line is there.
		hup_wait "$PX_PID" "$TMP/del.stderr"
		lf_get del "$PX_PORT" d4
		if [ "$LF_STATUS" = 200 ] && grep -q '"decision":"allow"' "$TMP/del.log"; then
			ok "log file deleted, then SIGHUP: the next request served and logged"
		else
			not_ok "log file deleted, then SIGHUP: the next request served and logged" \
			    "status $LF_STATUS" "$(cat "$TMP/del.log" 2>&1)"
		fi
		stop_proxy del "$PX_PID"
		expect_grep "log file deleted: said on stderr" "$TMP/del.stderr" \
		    'decision log: the log file was deleted'
	fi

	# A full disk: no torn line, refused while full, writing again when
	# space is back, the loss counted.
	if [ "$(id -u)" -ne 0 ]; then
		skip "log on a full tmpfs: mounting one needs root"
		return 0
	fi
	FD=$TMP/fulldisk
	mkdir -p "$FD"
	if ! mount -t tmpfs -o size=64k tmpfs "$FD" 2>/dev/null; then
		skip "log on a full tmpfs: mount refused here"
		return 0
	fi
	head -c 57344 /dev/zero >"$FD/fill" 2>/dev/null
	if start_proxy full "$TMP/lf.conf" --log "$FD/full.log" \
	    --attest "$TMP/full.json"; then
		urls=$(i=0; while [ $i -lt 200 ]; do printf 'http://good.test:%s/f%d ' "$ORIGIN" $i; i=$((i + 1)); done)
		# shellcheck disable=SC2086
		curl -q -s --max-time 20 --noproxy '' -o /dev/null \
		    -x "http://127.0.0.1:$PX_PORT" $urls 2>/dev/null
		lf_get full "$PX_PORT" while-full
		if [ "$LF_STATUS" = 503 ]; then
			ok "log on a full disk: 503 log_unavailable"
		else
			not_ok "log on a full disk: 503 log_unavailable" "status $LF_STATUS"
		fi
		if lf_whole "$FD/full.log" >"$TMP/whole.out" 2>&1; then
			ok "log on a full disk: every line whole ($(wc -l <"$FD/full.log") lines)"
		else
			not_ok "log on a full disk: every line whole" "$(cat "$TMP/whole.out")"
		fi
		rm -f "$FD/fill"
		# Served again once a line goes in: up to 5 s.
		n=0
		while lf_get full "$PX_PORT" space-back &&
		    [ "$LF_STATUS" != 200 ] && [ $n -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		if [ "$LF_STATUS" = 200 ]; then
			ok "log on a full disk: space back, served again"
		else
			not_ok "log on a full disk: space back, served again" "status $LF_STATUS"
		fi
		stop_proxy full "$PX_PID"
		if lf_whole "$FD/full.log" >"$TMP/whole.out" 2>&1; then
			ok "log on a full disk: still every line whole after recovery"
		else
			not_ok "log on a full disk: still every line whole after recovery" \
			    "$(cat "$TMP/whole.out")"
		fi
		expect_grep "log on a full disk: said" "$TMP/full.stderr" \
		    'decision log: No space left on device; new requests are refused'
		expect_grep "log on a full disk: writing again, said" "$TMP/full.stderr" \
		    'decision log: writing again'
		# Held while the disk was full, written when space came back.
		set -- $(lf_report full)
		if [ "${1:-}" = 0 ] && [ "${2:-}" = true ]; then
			ok "log on a full disk: nothing lost once space came back (log.lost 0, complete)"
		else
			not_ok "log on a full disk: nothing lost once space came back" \
			    "lost '${1:-}' complete '${2:-}'"
		fi
	fi
	umount "$FD" 2>/dev/null
}

area_secrets() {
	policy_main >"$TMP/sec.conf"
	SECRET_ENV_VALUE=SECRET-ENV-7f3a
	export SECRET_ENV_VALUE
	start_proxy sec "$TMP/sec.conf" || { unset SECRET_ENV_VALUE; return 0; }
	unset SECRET_ENV_VALUE
	SP=$PX_PORT
	SPID=$PX_PID
	O=$ORIGIN
	pa=$(printf 'puser:SECRET-PROXYPASS-7f3a' | base64)
	ca=$(printf 'cuser:SECRET-CONNECTPASS-7f3a' | base64)
	ua=$(printf 'SECRET-USERINFO-7f3a:pw' | base64)
	CURL -x "http://puser:SECRET-PROXYPASS-7f3a@127.0.0.1:$SP" \
	    -H "Authorization: Bearer SECRET-AUTH-7f3a" -b "sid=SECRET-COOKIE-7f3a" \
	    -o "$TMP/b.out" "http://good.test:$O/SECRET-PATH-7f3a?q=SECRET-QUERY-7f3a" \
	    2>"$TMP/curl.err"
	same_body "secrets: request with planted secrets served" "$TMP/b.out" \
	    'hello from origin\n'
	CURL -x "http://puser:SECRET-PROXYPASS-7f3a@127.0.0.1:$SP" -o /dev/null \
	    "http://nope.test:$O/SECRET-DENIEDPATH-7f3a?SECRET-DENIEDQUERY-7f3a" \
	    2>/dev/null
	CURL -x "http://127.0.0.1:$SP" -o /dev/null \
	    -H "Cookie: SECRET-PRIVCOOKIE-7f3a" \
	    "http://private.test/SECRET-PRIVPATH-7f3a" 2>/dev/null
	CURL -x "http://127.0.0.1:$SP" -o /dev/null \
	    "http://SECRET-USERINFO-7f3a:pw@good.test:$O/x" 2>/dev/null
	raw "$SP" "GET http://SECRET-RAWUSER-7f3a:SECRET-RAWPASS-7f3a@good.test:$O/ HTTP/1.1\r\nHost: good.test:$O\r\n\r\n"
	raw "$SP" "CONNECT good.test:$O HTTP/1.1\r\nHost: good.test:$O\r\nProxy-Authorization: Basic $ca\r\n\r\n"
	raw "$SP" "GET http://good.test:$O/SECRET-BADLINE-7f3a HTTP/1.1 x\r\n\r\n"
	raw "$SP" "GET http://good.test:$O/SECRET-BIGPATH-7f3a HTTP/1.1\r\nX-Big: SECRET-BIGHDR-7f3a$(printf '%03000d' 0)\r\n\r\n"
	raw "$SP" "GET http://good.test:$O/SECRET-SLOWPATH-7f3a HTTP/1.1\r\nCookie: SECRET-SLOWCOOKIE-7f3a"
	raw "$SP" "POST http://good.test:$O/p HTTP/1.1\r\nHost: good.test:$O\r\nContent-Length: 19\r\n\r\nSECRET-BODY-7f3a..."
	raw "$SP" "POST http://good.test:$O/p HTTP/1.1\r\nHost: good.test:$O\r\nContent-Length: 19\r\nTransfer-Encoding: chunked\r\n\r\nSECRET-BADBODY-7f3a"
	raw "$SP" "GET http://good.test:$O/SECRET-HOSTMISMATCH-7f3a HTTP/1.1\r\nHost: other.test\r\n\r\n"
	stop_proxy sec "$SPID"
	for f in log stdout stderr; do
		found=""
		for s in SECRET-PATH-7f3a SECRET-QUERY-7f3a SECRET-AUTH-7f3a \
		    SECRET-COOKIE-7f3a SECRET-PROXYPASS-7f3a "$pa" \
		    SECRET-DENIEDPATH-7f3a SECRET-DENIEDQUERY-7f3a \
		    SECRET-PRIVCOOKIE-7f3a SECRET-PRIVPATH-7f3a \
		    SECRET-USERINFO-7f3a "$ua" SECRET-RAWUSER-7f3a SECRET-RAWPASS-7f3a \
		    SECRET-CONNECTPASS-7f3a "$ca" SECRET-BADLINE-7f3a \
		    SECRET-BIGPATH-7f3a SECRET-BIGHDR-7f3a SECRET-SLOWPATH-7f3a \
		    SECRET-SLOWCOOKIE-7f3a SECRET-BODY-7f3a SECRET-BADBODY-7f3a \
		    SECRET-HOSTMISMATCH-7f3a SECRET-ENV-7f3a 7f3a; do
			grep -Fq -- "$s" "$TMP/sec.$f" && found="$found $s"
		done
		if [ -z "$found" ]; then
			ok "secrets: none in the proxy's $f"
		else
			not_ok "secrets: none in the proxy's $f" "found:$found" \
			    "$(grep -F 7f3a "$TMP/sec.$f" | head -3 | cut -c1-300)"
		fi
	done
	if [ -s "$TMP/sec.log" ] && $PY "$H" logcheck "$TMP/sec.log" >"$TMP/lc.out" 2>&1; then
		ok "secrets: the log was written and is well-formed"
	else
		not_ok "secrets: the log was written and is well-formed" "$(cat "$TMP/lc.out")"
	fi
}

area_signals() {
	# SIGHUP: a broken file keeps the old policy; a valid one takes effect.
	cat >"$TMP/hup.conf" <<EOF
allow_loopback on
resolver 127.0.0.1:$DNS
drain_timeout 2s
allow good.test xfer.test
EOF
	if start_proxy hup "$TMP/hup.conf"; then
		HP=$PX_PORT
		HPID=$PX_PID
		code() {
			CURL -x "http://127.0.0.1:$HP" -o /dev/null -w '%{http_code}' \
			    "http://$1:$ORIGIN/" 2>/dev/null
		}
		c1=$(code good.test)
		printf 'allow_loopback on\nresolver 127.0.0.1:%s\nallow good.test other.test xfer.test\nallw nothing\n' \
		    "$DNS" >"$TMP/hup.conf.new"
		mv "$TMP/hup.conf.new" "$TMP/hup.conf"
		: >"$TMP/hup.stderr.before"
		cp "$TMP/hup.stderr" "$TMP/hup.stderr.before"
		hup_wait "$HPID" "$TMP/hup.stderr"
		c2=$(code good.test)
		c3=$(code other.test)
		if alive "$HPID" && [ "$c1" = 200 ] && [ "$c2" = 200 ] && [ "$c3" = 403 ]; then
			ok "sighup: broken policy: old policy stays (good 200, other 403)"
		else
			not_ok "sighup: broken policy: old policy stays" \
			    "before $c1, after: good $c2 other $c3, alive: $(alive "$HPID" && echo yes || echo no)"
		fi
		if grep -q '^harn-egressd: .*hup\.conf:4' "$TMP/hup.stderr" &&
		    ! cmp -s "$TMP/hup.stderr" "$TMP/hup.stderr.before"; then
			ok "sighup: stderr says why (names hup.conf:4)"
		else
			not_ok "sighup: stderr says why (names hup.conf:4)" \
			    "$(cat "$TMP/hup.stderr")"
		fi
		# A tunnel opened under the old policy outlives the reload.
		$PY "$H" xfer --timeout 10 --proxy "$HP" --via connect --host xfer.test \
		    --port "$XFER" --up 1048576 --down 1048576 --pause 1.0 \
		    --ready "$TMP/xh.ready" >"$TMP/xh.out" 2>&1 &
		xhpid=$!
		BG_PIDS="$BG_PIDS $xhpid"
		wait_file "$TMP/xh.ready" 50 "$xhpid" || true
		printf 'allow_loopback on\nresolver 127.0.0.1:%s\nallow other.test\n' \
		    "$DNS" >"$TMP/hup.conf.new"
		mv "$TMP/hup.conf.new" "$TMP/hup.conf"
		hup_wait "$HPID" "$TMP/hup.stderr"
		c4=$(code other.test)
		c5=$(code good.test)
		if alive "$HPID" && [ "$c4" = 200 ] && [ "$c5" = 403 ]; then
			ok "sighup: changed policy applies to new requests (other 200, good 403)"
		else
			not_ok "sighup: changed policy applies to new requests" \
			    "other $c4 good $c5"
		fi
		if wait_gone "$xhpid" 80 && wait "$xhpid"; then
			ok "sighup: a tunnel opened before the reload completes ($(cat "$TMP/xh.out"))"
		else
			not_ok "sighup: a tunnel opened before the reload completes" "$(cat "$TMP/xh.out")"
		fi
		rm -f "$TMP/hup.conf"
		cp "$TMP/hup.stderr" "$TMP/hup.stderr.before"
		hup_wait "$HPID" "$TMP/hup.stderr"
		c6=$(code other.test)
		if alive "$HPID" && [ "$c6" = 200 ] &&
		    ! cmp -s "$TMP/hup.stderr" "$TMP/hup.stderr.before"; then
			ok "sighup: policy file gone: old policy stays, stderr says so"
		else
			not_ok "sighup: policy file gone: old policy stays, stderr says so" \
			    "other $c6" "$(cat "$TMP/hup.stderr")"
		fi
		stop_proxy hup "$HPID"
		if [ "$STOP_RC" -eq 0 ]; then ok "sighup: then SIGTERM exit 0"; else
			not_ok "sighup: then SIGTERM exit 0" "exit $STOP_RC"; fi
	fi

	# SIGTERM: stop accepting, let open tunnels finish within drain_timeout.
	cat >"$TMP/term.conf" <<EOF
allow_loopback on
resolver 127.0.0.1:$DNS
drain_timeout 2s
allow xfer.test good.test
EOF
	start_proxy term "$TMP/term.conf" || return 0
	TP=$PX_PORT
	TPID=$PX_PID
	$PY "$H" xfer --timeout 10 --proxy "$TP" --via connect --host xfer.test \
	    --port "$XFER" --up 1048576 --down 1048576 --pause 1.0 \
	    --ready "$TMP/xt.ready" >"$TMP/xt.out" 2>&1 &
	xpid=$!
	BG_PIDS="$BG_PIDS $xpid"
	$PY "$H" hold --proxy "$TP" --n 1 --target "good.test:$ORIGIN" \
	    --ready "$TMP/ht.ready" --seconds 20 >"$TMP/ht.out" 2>&1 &
	hpid=$!
	BG_PIDS="$BG_PIDS $hpid"
	wait_file "$TMP/xt.ready" 50 "$xpid" || true
	wait_file "$TMP/ht.ready" 50 "$hpid" || true
	t0=$(now_ms)
	kill -TERM "$TPID"
	# The listener closes as the drain begins: looked at, up to 5 s.
	$PY -c '
import socket, sys, time
for _ in range(50):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()
    except ConnectionRefusedError:
        break
    time.sleep(0.1)' "$TP"
	if CURL -x "http://127.0.0.1:$TP" -o /dev/null --max-time 2 \
	    "http://good.test:$ORIGIN/" 2>/dev/null; then
		not_ok "sigterm: no new request is served while draining"
	else
		ok "sigterm: no new request is served while draining"
	fi
	if wait_gone "$xpid" 80 && wait "$xpid"; then
		ok "sigterm: the open tunnel finished during the drain ($(cat "$TMP/xt.out"))"
	else
		not_ok "sigterm: the open tunnel finished during the drain" "$(cat "$TMP/xt.out")"
	fi
	if wait_gone "$TPID" 60; then
		t1=$(now_ms)
		wait "$TPID"
		trc=$?
		if [ "$trc" -eq 0 ]; then ok "sigterm: exit status 0"; else
			not_ok "sigterm: exit status 0" "exit $trc" "$(tail -c 300 "$TMP/term.stderr")"; fi
		if [ $((t1 - t0)) -lt 4500 ]; then
			ok "sigterm: a lingering tunnel is cut at drain_timeout 2s ($((t1 - t0)) ms)"
		else
			not_ok "sigterm: a lingering tunnel is cut at drain_timeout 2s" "$((t1 - t0)) ms"
		fi
	else
		not_ok "sigterm: exit status 0" "still running 6 s after SIGTERM"
		kill -9 "$TPID" 2>/dev/null
	fi
	kill "$hpid" 2>/dev/null || true
}

# Refusals people can act on (SPEC 4): the reason phrase names
# harn-egressd and the reason, which wget and Python print; the body is one
# line with the target, the reason, the address judged and what to do.
# And exempt (SPEC 3.1): an address out of the special-purpose registry.
area_actionable() {
	start_server origin4 origin --bind 127.0.0.4 --log "$TMP/origin4.log" ||
	    return 0
	O4=$SRV_PORT
	cat >"$TMP/act.conf" <<EOF
resolver 127.0.0.1:$DNS
allow exempt.test good.test:443
EOF
	start_proxy act "$TMP/act.conf" || return 0
	AP=$PX_PORT
	out=$(CURL -x "http://127.0.0.1:$AP" -w ' %{http_code}' \
	    "http://exempt.test:$O4/x" 2>&1)
	want="harn-egressd: refused exempt.test:$O4: private_address 127.0.0.4 (special-purpose 127.0.0.0/8; see allow_loopback in egress.conf(5))"
	if [ "$out" = "$want
 403" ]; then
		ok "actionable: curl shows the body: target, reason, address, what to do"
	else
		not_ok "actionable: curl shows the body: target, reason, address, what to do" \
		    "got: $out" "want: $want"
	fi
	CURL -v -x "http://127.0.0.1:$AP" "https://nope.test:$O4/" \
	    >"$TMP/act.curl" 2>&1
	expect_grep "actionable: curl CONNECT: the reason phrase names harn-egressd" \
	    "$TMP/act.curl" '^< HTTP/1.1 403 Forbidden by harn-egressd: no_allow_rule'
	if command -v wget >/dev/null 2>&1; then
		wget -nv -O /dev/null -e use_proxy=yes \
		    -e "http_proxy=http://127.0.0.1:$AP" \
		    "http://nope.test:$O4/" >"$TMP/act.wget" 2>&1
		expect_grep "actionable: wget prints the reason" "$TMP/act.wget" \
		    'ERROR 403: Forbidden by harn-egressd: no_allow_rule'
		wget -nv -O /dev/null -e use_proxy=yes \
		    -e "https_proxy=http://127.0.0.1:$AP" \
		    "https://nope.test:$O4/" >"$TMP/act.wget2" 2>&1
		expect_grep "actionable: wget over CONNECT prints the reason" \
		    "$TMP/act.wget2" \
		    'Proxy tunneling failed: Forbidden by harn-egressd: no_allow_rule'
	else
		skip "actionable: wget: wget is not installed"
	fi
	$PY -c '
import sys, urllib.request as u
p = "http://127.0.0.1:" + sys.argv[1]
o = u.build_opener(u.ProxyHandler({"http": p, "https": p}))
for url in sys.argv[2:]:
    try:
        o.open(url, timeout=5)
        print("served")
    except Exception as e:
        print(getattr(e, "reason", e))
' "$AP" "http://nope.test:$O4/" "https://nope.test:$O4/" >"$TMP/act.py" 2>&1
	expect_grep "actionable: Python urllib prints the reason" "$TMP/act.py" \
	    '^Forbidden by harn-egressd: no_allow_rule$'
	expect_grep "actionable: Python urllib over CONNECT prints the reason" \
	    "$TMP/act.py" '^Tunnel connection failed: 403 Forbidden by harn-egressd: no_allow_rule$'
	CURL "http://127.0.0.1:$AP/" >"$TMP/act.origin" 2>&1
	expect_grep "actionable: origin-form: told to use the proxy as a proxy" \
	    "$TMP/act.origin" 'refused: invalid_request \(not a proxy request: send GET http://host/path or CONNECT host:port to harn-egressd\)'
	raw "$AP" "GET https://good.test:443/ HTTP/1.1\r\nHost: good.test\r\n\r\n"
	expect_grep "actionable: GET https://: told to use CONNECT" \
	    "$TMP/raw.out" 'use CONNECT for https'
	stop_proxy act "$PX_PID"
	expect_grep "actionable: the deny line carries the address judged" \
	    "$TMP/act.log" '"host":"exempt.test","port":'"$O4"',"decision":"deny","reason":"private_address","addr":"127.0.0.4"'

	# exempt: the address is judged as a public one; it admits nothing
	# by itself, and a name no rule admits is not even looked up.
	printf 'exempt 127.0.0.4\n' >>"$TMP/act.conf"
	: >"$TMP/dns.log"
	start_proxy act2 "$TMP/act.conf" || return 0
	code=$(http_code "$PX_PORT" "http://exempt.test:$O4/x")
	if [ "$code" = 200 ] && grep -q '"/x"\|/x' "$TMP/origin4.log"; then
		ok "exempt: the exempt address is served (200 from 127.0.0.4)"
	else
		not_ok "exempt: the exempt address is served" "status $code" \
		    "$(tail -3 "$TMP/origin4.log")"
	fi
	code=$(http_code "$PX_PORT" "http://unlisted.test:$O4/x")
	if [ "$code" = 403 ] && ! grep -q '^unlisted\.test' "$TMP/dns.log"; then
		ok "exempt: a name no rule allows is still 403 and never looked up"
	else
		not_ok "exempt: a name no rule allows is still 403 and never looked up" \
		    "status $code" "$(cat "$TMP/dns.log")"
	fi
	code=$(http_code "$PX_PORT" "http://127.0.0.4:$O4/x")
	if [ "$code" = 403 ]; then
		ok "exempt: the address itself, with no allow rule: 403"
	else
		not_ok "exempt: the address itself, with no allow rule: 403" "status $code"
	fi
	stop_proxy act2 "$PX_PID"
	printf 'exempt 127.0.0.0/8\n' >>"$TMP/act.conf"
	"$EGRESSD" --policy "$TMP/act.conf" --listen 127.0.0.1:0 \
	    >"$TMP/act3.out" 2>"$TMP/act3.err" &
	a3=$!
	if wait_gone "$a3" 30; then
		wait "$a3"
		a3rc=$?
	else
		kill "$a3"
		a3rc=running
	fi
	if [ "$a3rc" = 2 ] && ! grep -q listening "$TMP/act3.out" &&
	    grep -q "exempt 127.0.0.0/8 holds 127.0.0.1, where the proxy listens" "$TMP/act3.err"; then
		ok "exempt: an exempt holding the listener: exit 2, nothing opened"
	else
		not_ok "exempt: an exempt holding the listener: exit 2, nothing opened" \
		    "exit $a3rc" "$(cat "$TMP/act3.out" "$TMP/act3.err")"
	fi
}

# Log rotation by rename (issue 13): SIGHUP reopens --log FILE; each line
# is written whole to exactly one file, and the report's digest covers
# the files joined in order.
area_rotate() {
	policy_main >"$TMP/rot.conf"
	start_proxy rot "$TMP/rot.conf" --attest "$TMP/rot.report" || return 0
	RP=$PX_PORT
	CURL -x "http://127.0.0.1:$RP" -o /dev/null "http://good.test:$ORIGIN/r1" 2>/dev/null
	raw "$RP" "GET http://nope.test/ HTTP/1.1\r\nHost: nope.test\r\n\r\n"
	mv "$TMP/rot.log" "$TMP/rot.log.1"
	hup_wait "$PX_PID" "$TMP/rot.stderr"
	CURL -x "http://127.0.0.1:$RP" -o /dev/null "http://good.test:$ORIGIN/r2" 2>/dev/null
	stop_proxy rot "$PX_PID"
	n1=$(grep -c . "$TMP/rot.log.1" 2>/dev/null || true)
	n2=$(grep -c . "$TMP/rot.log" 2>/dev/null || true)
	if [ "$n1" = 2 ] && [ "$n2" = 1 ] &&
	    $PY "$H" logcheck "$TMP/rot.log.1" >/dev/null 2>&1 &&
	    $PY "$H" logcheck "$TMP/rot.log" >/dev/null 2>&1; then
		ok "rotate: SIGHUP reopens the log: 2 lines before, 1 after, all whole"
	else
		not_ok "rotate: SIGHUP reopens the log: 2 lines before, 1 after, all whole" \
		    "before: $n1, after: $n2" "$(cat "$TMP/rot.stderr")"
	fi
	if $PY -c '
import hashlib, json, sys
r = json.load(open(sys.argv[1]))
data = open(sys.argv[2], "rb").read() + open(sys.argv[3], "rb").read()
log = r["log"]
ok = (hashlib.sha256(data[log["offset"]:]).hexdigest() == log["sha256"]
      and log["records"] == 3 and log["lost"] == 0)
sys.exit(0 if ok else 1)' "$TMP/rot.report" "$TMP/rot.log.1" "$TMP/rot.log" \
	    2>"$TMP/rot.py.err"; then
		ok "rotate: the report's digest and count cover the files joined"
	else
		not_ok "rotate: the report's digest and count cover the files joined" \
		    "$(cat "$TMP/rot.py.err")" "$(head -c 600 "$TMP/rot.report")"
	fi
	expect_grep "rotate: stderr says the log was reopened and how to verify" \
	    "$TMP/rot.stderr" 'reopened 1 times \(SIGHUP\).*join the files in order'
}

# SIGTERM with clients in every state (issue 12): nothing new admitted,
# a kept-alive client let go, requests still connecting at the end of the
# drain refused 503 / SOCKS5 01 with their log line.
area_drain() {
	cat >"$TMP/drain.conf" <<EOF
allow_loopback on
block_private off
resolver 127.0.0.1:$DNS
drain_timeout 2s
connect_timeout 10s
allow good.test 127.0.0.1
EOF
	start_proxy drain "$TMP/drain.conf" || return 0
	$PY "$H" drain --proxy "$PX_PORT" --pid "$PX_PID" --timeout 8 \
	    --pending "127.0.0.1:$TARPIT" "http://good.test:$ORIGIN/drain" \
	    >"$TMP/drain.out" 2>&1
	dpid=$PX_PID
	wait_gone "$dpid" 80
	wait "$dpid"
	drc=$?
	field_of() { sed -n "s/^$1: //p" "$TMP/drain.out"; }
	if field_of idle | grep -Eq '^eof in [0-9]{1,3} ms$'; then
		ok "drain: a kept-alive client between requests is let go at once ($(field_of idle))"
	else
		not_ok "drain: a kept-alive client between requests is let go at once" \
		    "$(cat "$TMP/drain.out")"
	fi
	if [ "$(field_of fresh)" = "503 shutting_down" ]; then
		ok "drain: a request arriving after SIGTERM: 503 shutting_down"
	else
		not_ok "drain: a request arriving after SIGTERM: 503 shutting_down" \
		    "$(cat "$TMP/drain.out")"
	fi
	# A response relayed before SIGTERM may arrive after it, and one
	# request may be admitted before the loop has handled the signal
	# (its response says Connection: close): at most two, then the
	# connection ends.  (Before the fix: thousands.)
	if field_of loop | grep -Eq '^([01] after, last connection (close|-)|2 after, last connection close), then eof$'; then
		ok "drain: a looping kept-alive client gets at most the responses in flight, then the connection ends ($(field_of loop))"
	else
		not_ok "drain: a looping kept-alive client gets at most the responses in flight, then the connection ends" \
		    "$(cat "$TMP/drain.out")"
	fi
	if field_of http | grep -Eq '^503 shutting_down at (1[89][0-9][0-9]|2[0-9][0-9][0-9]) ms$'; then
		ok "drain: a CONNECT still connecting at drain_timeout 2s: 503 shutting_down ($(field_of http))"
	else
		not_ok "drain: a CONNECT still connecting at drain_timeout 2s: 503 shutting_down" \
		    "$(cat "$TMP/drain.out")"
	fi
	if field_of socks | grep -Eq '^05 01 at [0-9]+ ms$'; then
		ok "drain: a SOCKS5 request still connecting: reply 01 ($(field_of socks))"
	else
		not_ok "drain: a SOCKS5 request still connecting: reply 01" \
		    "$(cat "$TMP/drain.out")"
	fi
	if [ "$drc" -eq 0 ]; then ok "drain: exit 0"; else
		not_ok "drain: exit 0" "exit $drc" "$(tail -5 "$TMP/drain.stderr")"; fi
	# The looping client may add an allow or a shutting_down of its own.
	if $PY "$H" logcheck "$TMP/drain.log" >"$TMP/drainlc.out" 2>&1 &&
	    $PY -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
got = [(r["protocol"], r["host"], r["port"]) for r in recs
       if r["reason"] == "shutting_down" and r["decision"] == "deny"]
want = [("http_connect", "127.0.0.1", int(sys.argv[2])),
        ("socks5", "127.0.0.1", int(sys.argv[2])),
        ("http", "good.test", int(sys.argv[3]))]
sys.exit(0 if all(w in got for w in want) and len(got) <= 4 else 1)
' "$TMP/drain.log" "$TARPIT" "$ORIGIN" >>"$TMP/drainlc.out" 2>&1; then
		ok "drain: each refused request has its log line"
	else
		not_ok "drain: each refused request has its log line" \
		    "$(cat "$TMP/drainlc.out")" "$(cat "$TMP/drain.log")"
	fi
}

area_badpolicy() {
	printf 'allow good.test\nallow a..b\n' >"$TMP/bad.conf"
	fp=$($PY "$H" freeport)
	rm -f "$TMP/bad.port"
	timeout 10 "$EGRESSD" --policy "$TMP/bad.conf" --listen "127.0.0.1:$fp" \
	    --port-file "$TMP/bad.port" >"$TMP/bad.stdout" 2>"$TMP/bad.stderr"
	brc=$?
	if [ "$brc" -eq 2 ]; then ok "bad policy: service mode exits 2"; else
		not_ok "bad policy: service mode exits 2" "exit $brc"; fi
	expect_grep "bad policy: stderr names FILE:LINE" "$TMP/bad.stderr" \
	    "^harn-egressd: $TMP/bad.conf:2: "
	if [ "$(wc -l <"$TMP/bad.stderr")" -eq 1 ]; then
		ok "bad policy: the error is one line"
	else
		not_ok "bad policy: the error is one line" "$(cat "$TMP/bad.stderr")"
	fi
	if [ ! -e "$TMP/bad.port" ] && ! grep -q listening "$TMP/bad.stdout"; then
		ok "bad policy: no port file, no listening line"
	else
		not_ok "bad policy: no port file, no listening line" "$(cat "$TMP/bad.stdout")"
	fi
	if $PY -c "import socket,sys; socket.create_connection(('127.0.0.1', $fp), timeout=2)" \
	    2>/dev/null; then
		not_ok "bad policy: nothing listening on the port"
	else
		ok "bad policy: nothing listening on the port"
	fi
	timeout 10 "$EGRESSD" --policy "$TMP/missing.conf" --listen 127.0.0.1:0 \
	    >"$TMP/bad.stdout" 2>"$TMP/bad.stderr"
	brc=$?
	if [ "$brc" -eq 2 ]; then ok "bad policy: missing policy file exits 2"; else
		not_ok "bad policy: missing policy file exits 2" "exit $brc"; fi
	printf 'allow good.test\n' >"$TMP/ok.conf"
	timeout 10 "$EGRESSD" --policy "$TMP/ok.conf" --listen 127.0.0.1:99999 \
	    >"$TMP/bad.stdout" 2>"$TMP/bad.stderr"
	brc=$?
	if [ "$brc" -eq 2 ]; then ok "bad policy: --listen port 99999 exits 2"; else
		not_ok "bad policy: --listen port 99999 exits 2" "exit $brc"; fi
}

# The environment policy in service mode, and the decision log on stderr
# when --log is not given.
area_envpolicy() {
	rm -f "$TMP/env.port"
	env HARN_EGRESS_ALLOW="127.0.0.1:$ORIGIN" HARN_EGRESS_ALLOW_LOOPBACK=on \
	    "$EGRESSD" --listen 127.0.0.1:0 --port-file "$TMP/env.port" \
	    >"$TMP/env.stdout" 2>"$TMP/env.stderr" &
	EPID=$!
	BG_PIDS="$BG_PIDS $EPID"
	if ! wait_file "$TMP/env.port" 50 "$EPID"; then
		not_ok "env: service mode with HARN_EGRESS_ALLOW starts" \
		    "$(head -c 400 "$TMP/env.stderr")"
		return 0
	fi
	ok "env: service mode with HARN_EGRESS_ALLOW starts"
	EP=$(head -n1 "$TMP/env.port")
	CURL --socks5 "127.0.0.1:$EP" -o "$TMP/b.out" "http://127.0.0.1:$ORIGIN/" \
	    2>"$TMP/curl.err"
	same_body "env: the variable's rule admits 127.0.0.1:$ORIGIN" "$TMP/b.out" \
	    'hello from origin\n'
	refusal "env: other ports are not admitted" "$EP" 403 no_allow_rule \
	    "CONNECT 127.0.0.1:$XFER HTTP/1.1\r\nHost: 127.0.0.1:$XFER\r\n\r\n"
	stop_proxy env "$EPID"
	grep '^{' "$TMP/env.stderr" >"$TMP/env.dlog"
	if $PY "$H" logcheck "$TMP/env.dlog" \
	    --expect "socks5|127.0.0.1|$ORIGIN|allow|allow_rule|127.0.0.1" \
	    --expect "http_connect|127.0.0.1|$XFER|deny|no_allow_rule|127.0.0.1" \
	    >"$TMP/lc.out" 2>&1; then
		ok "env: without --log, decisions go to stderr as JSON lines"
	else
		not_ok "env: without --log, decisions go to stderr as JSON lines" \
		    "$(cat "$TMP/lc.out")" "$(head -c 500 "$TMP/env.stderr")"
	fi
	if [ "$STOP_RC" -eq 0 ]; then ok "env: SIGTERM exit 0"; else
		not_ok "env: SIGTERM exit 0" "exit $STOP_RC"; fi
	printf 'allow good.test\n' >"$TMP/envc.conf"
	env HARN_EGRESS_ALLOW=good.test timeout 10 "$EGRESSD" --policy "$TMP/envc.conf" \
	    --listen 127.0.0.1:0 --port-file "$TMP/envc.port" \
	    >"$TMP/envc.stdout" 2>"$TMP/envc.stderr"
	erc=$?
	if [ "$erc" -eq 2 ] && [ ! -e "$TMP/envc.port" ] &&
	    grep -q 'policy already configured from' "$TMP/envc.stderr"; then
		ok "env: file and variable both: exit 2, nothing listening"
	else
		not_ok "env: file and variable both: exit 2, nothing listening" \
		    "exit $erc" "$(head -c 300 "$TMP/envc.stderr")"
	fi
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

# Every decision log the proxies above wrote, as audit reads it (issue
# 22): each line counts (none malformed), and together they hold every
# protocol and every reason the proxy gives.
PX_LOGS=""
area_audit() {
	logs=""
	for l in $PX_LOGS "$TMP/fds.log"; do
		[ -f "$l" ] && [ -s "$l" ] && logs="$logs $l"
	done
	# shellcheck disable=SC2086
	audit_logs "audit: every line the proxies wrote counts" $logs
	$PY - "$TMP/audit.json" >"$TMP/audit.cover" 2>&1 <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
want = ("allow_rule default_allow deny_rule no_allow_rule private_address "
        "metadata_address dns_failure invalid_target invalid_request "
        "unsupported_command proxy_loop connect_failed connect_timeout "
        "limit_exceeded log_unavailable shutting_down").split()
miss = [r for r in want if not j["by_reason"].get(r)]
miss += [p for p in ("http", "http_connect", "socks5")
         if not j["by_protocol"].get(p)]
print(" ".join(miss) if miss else "%d records" % j["records"])
sys.exit(1 if miss else 0)
EOF
	if [ $? -eq 0 ]; then
		ok "audit: the logs hold every protocol and every reason ($(cat "$TMP/audit.cover"))"
	else
		not_ok "audit: the logs hold every protocol and every reason" \
		    "missing: $(cat "$TMP/audit.cover")"
	fi
}

# ------------------------------------------------------------------ the run

setup_fixture
area_start
# PROXY_AREAS="limits dlog" runs only those (while working on them).
if [ -n "${PROXY_AREAS:-}" ]; then
	echo "# only the areas: $PROXY_AREAS"
	for a in $PROXY_AREAS; do
		"area_$a"
	done
else
	if [ -n "$MAIN_PID" ]; then
		area_http
		area_connect
		area_socks
		area_dns
		area_keepalive
		area_nodns
		area_canary
		area_refusals
		area_robust
		area_tunnels
		area_backpressure
	fi
	area_iplit
	area_default
	area_ports
	area_listen
	area_limits
	area_dlog
	area_logorder
	area_smuggle
	area_bodies
	area_urgent
	area_http22
	area_rotate
	area_logfault
	area_secrets
	area_signals
	area_actionable
	area_drain
	area_badpolicy
	area_envpolicy
fi
area_main_end
[ -z "${PROXY_AREAS:-}" ] && area_audit

# Under sanitizers: nothing reported by any proxy instance.
if cat "$TMP"/*.stderr 2>/dev/null | grep -Eq 'Sanitizer|runtime error:'; then
	not_ok "no sanitizer report from any proxy instance" \
	    "$(grep -E -A3 'Sanitizer|runtime error:' "$TMP"/*.stderr | head -20)"
else
	ok "no sanitizer report from any proxy instance"
fi

finish
