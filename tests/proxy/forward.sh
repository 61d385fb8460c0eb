#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The proxy in service mode (SPEC 2, 3, 4, 5): HTTP forwarding, CONNECT,
# SOCKS5, pinned DNS, keep-alive and request smuggling, on the main
# proxy.
# The fixture (DNS, origins, canaries) and the run: tests/proxy/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/forward.sh
# PROXY_AREAS="AREA..." runs only those.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"

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
		    "peers: $*" "log lines: $(($(decision_lines "$TMP/main.log") - LOG_MARK))" "$(show)"
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


# What these areas give, in their decision logs.
PX_REASONS="allow_rule deny_rule no_allow_rule private_address
metadata_address dns_failure invalid_target invalid_request
unsupported_command connect_failed"
PX_PROTOCOLS="http http_connect socks5"
PX_MAIN=1
proxy_suite http connect socks dns keepalive smuggle
