#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The proxy in service mode (SPEC 2, 3, 4, 5): HTTP framing: bodies,
# urgent data, HEAD refusals and pipelined requests.
# The fixture (DNS, origins, canaries) and the run: tests/proxy/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/http.sh
# PROXY_AREAS="AREA..." runs only those.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"

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
	if [ "$(grep -c "\"host\":\"good.test\",\"port\":$O,\"decision\"" "$TMP/h22.log")" -eq 2 ] &&
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
PX_REASONS="allow_rule no_allow_rule dns_failure"
PX_PROTOCOLS="http http_connect socks5"
proxy_suite bodies urgent http22
