#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A trickled head costs linear time (issue 33 item 2; SPEC 4 "Limits": no
# client can take the proxy from the others).  One client sends a 64 KiB
# CONNECT head 1-2 bytes per TCP segment while a legitimate client makes a
# CONNECT every 0.2 s: every legitimate CONNECT is answered within 2 s
# (the goal is p99 < 100 ms; measured p50/p99 are printed), and the
# proxy's CPU time for the trickled head stays under FAIR_CPU_MS (the
# landed build took 127-580 ms for it, searching the whole head again at
# every read and waking for every segment; a whole head takes ~1 ms).
# Also (issue 33, "Also"): CONNECT's 200 goes after whatever is queued for
# the client before it, and whole (area_tunnel_order).
# Loopback only: the CONNECT target is an origin of the test's own, by
# address (no names, so no DNS).  Run as root, then again as nobody.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/fair_head.sh
# HARN_EGRESSD=/path/to/binary overrides the binary under test.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"
EGRESSD=${HARN_EGRESSD:-$EGRESSD}
F="$top_srcdir/tests/proxy/fairhead.py"
PASS=${HARN_FAIR_HEAD_PASS:-}

# Generous for a busy 2-core machine: paced reads take 10-70 ms here.
FAIR_CPU_MS=${FAIR_CPU_MS:-150}
LEGIT_MAX_MS=2000

fair_policy() {
	cat <<EOF
default deny
allow_loopback on
allow 127.0.0.1
header_timeout 30s
max_header_bytes 65536
EOF
}

# legit_start / legit_stop: the legitimate client, one CONNECT per 0.2 s.
legit_start() {
	rm -f "$TMP/legit.stop" "$TMP/legit.ready"
	$PY "$F" legit --proxy "$1" --target "127.0.0.1:$ORIGIN" --every 0.2 \
	    --seconds 60 --timeout 5 --stop "$TMP/legit.stop" \
	    --ready "$TMP/legit.ready" >"$TMP/legit.out" 2>&1 &
	LEGIT_PID=$!
	BG_PIDS="$BG_PIDS $LEGIT_PID"
	wait_file "$TMP/legit.ready" 50 "$LEGIT_PID"
}
legit_stop() {
	: >"$TMP/legit.stop"
	wait_gone "$LEGIT_PID" 150 || kill "$LEGIT_PID" 2>/dev/null
	wait "$LEGIT_PID" 2>/dev/null
}

area_trickle() {
	fair_policy >"$TMP/fair.conf"
	start_proxy fair "$TMP/fair.conf" || return 0
	FP=$PX_PORT
	FPID=$PX_PID
	$PY "$F" whole --proxy "$FP" --pid "$FPID" \
	    --target "127.0.0.1:$ORIGIN" >"$TMP/whole.out" 2>&1
	echo "# a whole 64 KiB head: $(field cpu_ms "$TMP/whole.out") ms of CPU"

	if ! legit_start "$FP"; then
		not_ok "fair_head: the legitimate client starts" "$(cat "$TMP/legit.out")"
		return 0
	fi
	$PY "$F" trickle --proxy "$FP" --pid "$FPID" --size 65536 \
	    --target "127.0.0.1:$ORIGIN" >"$TMP/trickle.out" 2>&1
	legit_stop

	if [ "$(field status "$TMP/trickle.out")" = 200 ]; then
		ok "fair_head: the trickled 64 KiB CONNECT head is read whole and answered 200 ($(field segments "$TMP/trickle.out") segments, $(field elapsed_ms "$TMP/trickle.out") ms)"
	else
		not_ok "fair_head: the trickled 64 KiB CONNECT head is answered 200" \
		    "$(cat "$TMP/trickle.out")"
	fi
	cpu=$(field cpu_ms "$TMP/trickle.out")
	echo "# the trickled 64 KiB head: ${cpu:-?} ms of the proxy's CPU (bound $FAIR_CPU_MS)"
	if [ -n "$cpu" ] && [ "$cpu" -lt "$FAIR_CPU_MS" ]; then
		ok "fair_head: the trickled head costs under $FAIR_CPU_MS ms of CPU ($cpu ms)"
	else
		not_ok "fair_head: the trickled head costs under $FAIR_CPU_MS ms of CPU" \
		    "${cpu:-none}" "$(tr '\n' ' ' <"$TMP/trickle.out")"
	fi

	echo "# legitimate CONNECTs meanwhile: $(field connects "$TMP/legit.out"), p50 $(field p50_ms "$TMP/legit.out") ms, p99 $(field p99_ms "$TMP/legit.out") ms, max $(field max_ms "$TMP/legit.out") ms (goal p99 < 100 ms)"
	n=$(field connects "$TMP/legit.out")
	bad=$(sed -n 's/^failed \([0-9]*\).*/\1/p' "$TMP/legit.out")
	mx=$(field max_ms "$TMP/legit.out")
	if [ "${n:-0}" -ge 3 ] && [ "${bad:-1}" -eq 0 ] &&
	    [ "${mx%.*}" -ge 0 ] && [ "${mx%.*}" -lt "$LEGIT_MAX_MS" ]; then
		ok "fair_head: every legitimate CONNECT meanwhile answered 200 within $LEGIT_MAX_MS ms ($n, max $mx ms)"
	else
		not_ok "fair_head: every legitimate CONNECT meanwhile answered 200 within $LEGIT_MAX_MS ms" \
		    "$(cat "$TMP/legit.out")"
	fi

	stop_proxy fair "$FPID"
	if [ "$STOP_RC" -eq 0 ]; then ok "fair_head: SIGTERM exit 0"; else
		not_ok "fair_head: SIGTERM exit 0" "exit $STOP_RC"; fi
	# Each CONNECT has its line; the padded head's bytes are in none.
	if $PY "$H" logcheck "$TMP/fair.log" >"$TMP/lc.out" 2>&1 &&
	    ! grep -q 'X-Pad\|aaaaaaaa' "$TMP/fair.log"; then
		ok "fair_head: the decision log is well-formed, no head bytes in it"
	else
		not_ok "fair_head: the decision log is well-formed, no head bytes in it" \
		    "$(head -c 600 "$TMP/lc.out")"
	fi
}

# order NAME [--pipeline]: fairhead.py order through the proxy on $OP.
order() {
	oname=$1
	shift
	$PY "$F" order --proxy "$OP" --target "127.0.0.1:$ORIGIN" --timeout 5 \
	    "$@" >"$TMP/$oname.out" 2>&1
}

# CONNECT's 200 goes after what is queued for the client before it, and
# whole, however full the client's socket is: conn_start_tunnel sends it
# with one send() and frees the client's queue, so a pipelined response
# still queued was lost and the 200 jumped ahead of it, and a socket with
# room for part of the 200 closed the connection.  A full socket is made
# certain with tests/proxy/sendshim.c (LD_PRELOAD): without it (the
# control) both orders hold on any build.
area_tunnel_order() {
	if ! cc -O1 -shared -fPIC -o "$TMP/sendshim.so" \
	    "$top_srcdir/tests/proxy/sendshim.c" -ldl >"$TMP/cc.out" 2>&1; then
		not_ok "tunnel: tests/proxy/sendshim.c builds" "$(head -c 400 "$TMP/cc.out")"
		return 0
	fi
	fair_policy >"$TMP/ord.conf"
	if start_proxy ord "$TMP/ord.conf"; then
		OP=$PX_PORT
		order ordc --pipeline
		expect_grep "tunnel: control, no shim: a GET's response, then CONNECT's 200, then the tunnel ($(field answers "$TMP/ordc.out"))" \
		    "$TMP/ordc.out" '^order ok$'
		stop_proxy ord "$PX_PID"
	fi
	# Under ASan the shim comes before the sanitizer's runtime: allowed.
	fh_asan=${ASAN_OPTIONS:-}
	export ASAN_OPTIONS="$fh_asan${fh_asan:+:}verify_asan_link_order=0"
	export LD_PRELOAD="$TMP/sendshim.so" SHIM_SHORT_200=1
	start_proxy short "$TMP/ord.conf"
	rc=$?
	unset LD_PRELOAD SHIM_SHORT_200
	if [ $rc -eq 0 ]; then
		OP=$PX_PORT
		order short
		expect_grep "tunnel: a client socket with room for 10 bytes of the 200: the rest follows, then the tunnel ($(field answers "$TMP/short.out"))" \
		    "$TMP/short.out" '^order ok$'
		stop_proxy short "$PX_PID"
	fi
	export LD_PRELOAD="$TMP/sendshim.so" SHIM_STALL_MS=400
	start_proxy stall "$TMP/ord.conf"
	rc=$?
	unset LD_PRELOAD SHIM_STALL_MS
	export ASAN_OPTIONS="$fh_asan"
	if [ $rc -eq 0 ]; then
		OP=$PX_PORT
		order stall --pipeline
		expect_grep "tunnel: a GET's response still queued when the pipelined CONNECT is allowed: the response whole, then the 200, then the tunnel ($(field answers "$TMP/stall.out"))" \
		    "$TMP/stall.out" '^order ok$'
		stop_proxy stall "$PX_PID"
		if grep -q '"http_connect".*"allow"' "$TMP/stall.log"; then
			ok "tunnel: the CONNECT has its allow line"
		else
			not_ok "tunnel: the CONNECT has its allow line" "$(cat "$TMP/stall.log")"
		fi
	fi
}

if start_server origin origin --log "$TMP/origin.log"; then
	ORIGIN=$SRV_PORT
	area_trickle
	area_tunnel_order
fi
if cat "$TMP"/*.stderr 2>/dev/null | grep -Eq 'Sanitizer|runtime error:'; then
	not_ok "fair_head: no sanitizer report" \
	    "$(grep -E -A3 'Sanitizer|runtime error:' "$TMP"/*.stderr | head -20)"
else
	ok "fair_head: no sanitizer report"
fi
if [ "$PASS" != unprivileged ] && [ "$(id -u)" -eq 0 ]; then
	if id nobody >/dev/null 2>&1; then
		nobody_pass proxy/fair_head HARN_FAIR_HEAD_PASS \
		    "$top_srcdir/tests/proxy/lib.sh" "$top_srcdir/tests/pyhelpers.py" \
		    "$top_srcdir/tests/dnsd.py" "$F" \
		    "$top_srcdir/tests/proxy/sendshim.c"
	else
		skip "unprivileged pass: no user 'nobody'"
	fi
fi
finish
