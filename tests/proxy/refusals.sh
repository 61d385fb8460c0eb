#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The proxy in service mode (SPEC 2, 3, 4, 5): refusals, names never
# resolved, the canaries, malformed and hostile clients, tunnels and
# back-pressure, on the main proxy.
# The fixture (DNS, origins, canaries) and the run: tests/proxy/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/refusals.sh
# PROXY_AREAS="AREA..." runs only those.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"

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
	# The three that left during DNS are decided (dns_failure, abandoned
	# at once) all the same.
	if wait_count "$TMP/main.log" '"host":"slow.test"' $((nslow + 3)) 50; then
		ok "robust: requests whose clients left during DNS are decided and logged"
	else
		not_ok "robust: requests whose clients left during DNS are decided and logged" \
		    "$(grep slow.test "$TMP/main.log")"
	fi
	# A client that waits for the whole connect phase: 504.
	refusal "robust: a connect that times out (a tarpit): 504 connect_timeout" \
	    "$MP" 504 connect_timeout \
	    "CONNECT refused.test:$TARPIT HTTP/1.1\r\n\r\n"
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

# What these areas give, in their decision logs.
PX_REASONS="allow_rule deny_rule no_allow_rule dns_failure invalid_target
invalid_request proxy_loop connect_failed connect_timeout"
PX_PROTOCOLS="http http_connect socks5"
PX_MAIN=1
proxy_suite nodns canary refusals robust tunnels backpressure
