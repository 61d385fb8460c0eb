#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The proxy in service mode (SPEC 2, 3, 4, 5): HTTP framing: smuggling,
# bodies, urgent data, HEAD refusals and pipelined requests.
# The fixture (DNS, origins, canaries) and the run: tests/proxy/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/http.sh
# PROXY_AREAS="AREA..." runs only those.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"

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
	$PY "$top_srcdir/tests/proxy/bodies.py" --proxy "$PX_PORT" --host good.test \
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
		not_ok "bodies: tests/proxy/bodies.py ran (exit $brc, $nb checks)" \
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
	$PY "$top_srcdir/tests/proxy/urgent.py" --proxy "$PX_PORT" --host good.test \
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
		not_ok "urgent: tests/proxy/urgent.py ran its 6 checks (exit $urc, $nu)" \
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

# What these areas give, in their decision logs.
PX_REASONS="allow_rule default_allow deny_rule no_allow_rule private_address metadata_address dns_failure invalid_target invalid_request unsupported_command proxy_loop connect_failed connect_timeout limit_exceeded log_unavailable shutting_down"
PX_PROTOCOLS="http http_connect socks5"
proxy_suite smuggle bodies urgent http22
