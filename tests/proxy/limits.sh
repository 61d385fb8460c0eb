#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The proxy in service mode (SPEC 2, 3, 4, 5): limits and faults, signals
# (reload, stop) and the drain.
# The fixture (DNS, origins, canaries) and the run: tests/proxy/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/limits.sh
# PROXY_AREAS="AREA..." runs only those.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"

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
		# Tunnels take every descriptor, opened one by one until one
		# is refused (silent clients would not: a connection without a
		# head is shed first, SPEC 4).
		$PY -c '
import socket, sys, time
held = []
req = ("CONNECT good.test:%s HTTP/1.1\r\nHost: good.test\r\n\r\n" %
       sys.argv[3]).encode()
for i in range(80):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
        s.sendall(req)
        if b" 200 " not in s.recv(4096).split(b"\r\n")[0] + b" ":
            break
        held.append(s)
    except OSError:
        break
open(sys.argv[2], "w").write("%d\n" % len(held))
time.sleep(8)' "$FDP" "$TMP/fds.ready" "$ORIGIN" &
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
recs = [r for r in map(json.loads, open(sys.argv[1])) if "decision" in r]
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

# What these areas give, in their decision logs.
PX_REASONS="allow_rule no_allow_rule limit_exceeded shutting_down"
PX_PROTOCOLS="http http_connect socks5"
proxy_suite limits signals drain
