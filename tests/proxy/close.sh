#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Close lines (SPEC 5; issue 34): every allowed connection's decision line
# carries "conn":N, and when the connection ends one more line with the
# same conn says its bytes each way and its milliseconds.  The counts must
# equal what the test's own peers sent and received: a CONNECT and a
# SOCKS5 tunnel (bytes sent with the request, early, included), HTTP
# forwarding of several exchanges on one client connection (bodies by
# Content-Length and chunked, both ways, long enough to go by splice),
# and a refused exchange on it that adds nothing.  A refusal carries no
# conn; a connection a drain cuts still gets its close line; so does one
# report mode lets through.
# Loopback only, by address (no names, no DNS).  Run as root, then again
# as nobody.  (Transparent connections: tests/sandbox/transparent.sh.)
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/close.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"
EGRESSD=${HARN_EGRESSD:-$EGRESSD}
C="$top_srcdir/tests/proxy/closebytes.py"
PASS=${HARN_CLOSE_PASS:-}
LOG=$TMP/close.log	# start_proxy close writes it

# last_conn PROTOCOL: the conn of the newest allow line of PROTOCOL.
last_conn() {
	grep "\"protocol\":\"$1\".*\"decision\":\"allow\"" "$LOG" | tail -n1 |
	    sed -n 's/.*"conn":\([0-9]*\).*/\1/p'
}

# close_of N: wait for conn N's close line; in $TMP/close.line.
close_of() {
	wait_grep "$LOG" "\"event\":\"close\",\"conn\":$1," 100 || true
	grep "\"event\":\"close\",\"conn\":$1," "$LOG" >"$TMP/close.line" ||
	    true
}

# num KEY: the number KEY has in $TMP/close.line.
num() {
	sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$TMP/close.line"
}

# bytes_are NAME OUT IN: the close line says OUT and IN bytes.
bytes_are() {
	if [ "$(num bytes_out)" = "$2" ] && [ "$(num bytes_in)" = "$3" ]; then
		ok "$1: bytes_out $2, bytes_in $3, as the peers counted"
	else
		not_ok "$1: the close line counts what the peers counted" \
		    "want out $2 in $3" "line: $(cat "$TMP/close.line")"
	fi
}

area_tunnels() {
	for via in connect socks5; do
		for early in "" --early; do
			n="$via${early:+ early}"
			$PY "$H" xfer --proxy "$PP" --via "$via" $early \
			    --host 127.0.0.1 --port "$XFERD" --up 300000 \
			    --down 700000 >"$TMP/xfer.out" 2>&1 || true
			expect_grep "$n: the transfer is whole" \
			    "$TMP/xfer.out" "^ok up=300000 down=700000"
			proto=http_connect
			[ "$via" = socks5 ] && proto=socks5
			cn=$(last_conn "$proto")
			close_of "${cn:-x}"
			expect_grep "$n: one close line with the allow line's conn ($cn), protocol, host and port" \
			    "$TMP/close.line" "^\\{\"ts\":\"[^\"]+\",\"event\":\"close\",\"conn\":$cn,\"protocol\":\"$proto\",\"host\":\"127.0.0.1\",\"port\":$XFERD,\"bytes_out\":[0-9]+,\"bytes_in\":[0-9]+,\"ms\":[0-9]+\\}$"
			# xfer: an 8-byte length, then the payload; the
			# origin answers its length, payload and 64 bytes
			# of digests.
			bytes_are "$n" $((8 + 300000)) $((8 + 700000 + 64))
		done
	done
}

# forward NAME EXPECT-RESPONSES ARGS...: one client connection; its
# close line against what the origin received and the client got of the
# first EXPECT-RESPONSES responses.
forward() {
	fname=$1 fwant=$2
	shift 2
	: >"$TMP/origin.counts"
	$PY "$C" client --proxy "$PP" "$@" >"$TMP/client.out" 2>&1 || true
	if ! grep -q '^sent ' "$TMP/client.out"; then
		not_ok "$fname: the client's exchanges" "$(cat "$TMP/client.out")"
		return
	fi
	cn=$(last_conn http)
	close_of "${cn:-x}"
	wait_lines "$TMP/origin.counts" 1 100 || true
	expect_rc "$fname: every allow line of the connection carries its conn" 0 \
	    test "$(grep -Ec "\"decision\":\"allow\".*\"conn\":$cn[,}]" "$LOG")" -eq "$fwant"
	rx=$(awk '{s += $2} END {print s + 0}' "$TMP/origin.counts")
	got=$(awk -v k="$fwant" '$1 == "response" && $2 < k {s += $3} END {print s + 0}' \
	    "$TMP/client.out")
	bytes_are "$fname" "$rx" "$got"
}

area_forward() {
	u=http://127.0.0.1:$FORIGIN
	forward "forward, 3 exchanges, Content-Length both ways" 3 \
	    --url "$u/n/10" --url "$u/n/200000" --url "$u/n/50000" --up 90000
	forward "forward, chunked both ways" 2 \
	    --url "$u/c/150000" --url "$u/c/3" --up 70000 --chunked
	forward "forward, GETs, then a refused one (adds nothing)" 2 \
	    --url "$u/n/100" --url "$u/c/64000" --url "http://127.0.0.2:9/n/1"
	expect_grep "forward: the refused exchange's line" "$LOG" \
	    '"host":"127.0.0.2","port":9,"decision":"deny","reason":"no_allow_rule"'
}

area_pairs() {
	$PY "$H" logcheck "$LOG" >"$TMP/check.out" 2>&1 || true
	expect_grep "every close line follows its allow line, once, same target; no refusal carries a conn" \
	    "$TMP/check.out" "^[0-9]+ records, [1-9][0-9]* close lines, 0 unclosed, 0 problems$"
	ids=$(sed -n 's/.*"decision":"allow".*"conn":\([0-9]*\).*/\1/p' "$LOG" |
	    uniq | sort -n | uniq -d)
	expect_rc "conn ids are not reused by another connection" 0 test -z "$ids"
}

# Report mode (SPEC 3.1): what it lets through is an allowed connection
# too, with its conn and its close line; what it still refuses has none.
area_report() {
	printf 'mode report\nallow_loopback on\nallow 127.0.0.1:%s\n' \
	    "$FORIGIN" >"$TMP/report.conf"
	start_proxy rep "$TMP/report.conf" || return 0
	$PY "$H" xfer --proxy "$PX_PORT" --via socks5 --host 127.0.0.1 \
	    --port "$XFERD" --up 1000 --down 2000 >"$TMP/xfer.out" 2>&1 || true
	expect_grep "report: the transfer the rules would refuse goes through" \
	    "$TMP/xfer.out" "^ok up=1000 down=2000"
	expect_grep "report: its allow line says report_only, would, and a conn" \
	    "$TMP/rep.log" "\"port\":$XFERD,\"decision\":\"allow\",\"reason\":\"report_only\",\"would\":\"no_allow_rule\",\"addr\":\"127.0.0.1\",\"conn\":1\\}$"
	wait_grep "$TMP/rep.log" '"event":"close","conn":1,' 100 || true
	grep '"event":"close","conn":1,' "$TMP/rep.log" >"$TMP/close.line" ||
	    true
	bytes_are "report: its close line" $((8 + 1000)) $((8 + 2000 + 64))
	stop_proxy rep "$PX_PID"
}

# cserver NAME SUBCOMMAND ARGS...: a closebytes.py server; sets SRV_PORT.
cserver() {
	csname=$1
	shift
	$PY "$C" "$@" --port-file "$TMP/$csname.port" >"$TMP/$csname.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	SRV_PORT=""
	if wait_file "$TMP/$csname.port" 50 $!; then
		SRV_PORT=$(head -n1 "$TMP/$csname.port")
		return 0
	fi
	not_ok "test server $csname starts" "$(head -c 600 "$TMP/$csname.out")"
	return 1
}

# A tunnel still open when the proxy drains is cut, and still closed in
# the log, with what it had moved.
area_drain() {
	cserver echo echo || return 0
	start_proxy drain "$TMP/close.conf" || return 0
	rm -f "$TMP/ready"
	$PY "$C" hold --proxy "$PX_PORT" --port "$SRV_PORT" --bytes 40000 \
	    --ready "$TMP/ready" >"$TMP/hold.out" 2>&1 &
	hp=$!
	BG_PIDS="$BG_PIDS $hp"
	if ! wait_file "$TMP/ready" 100 "$hp"; then
		not_ok "drain: the held tunnel is up" "$(cat "$TMP/hold.out")"
		return 0
	fi
	stop_proxy drain "$PX_PID"
	expect_rc "drain: the proxy stops" 0 test "$STOP_RC" -ne -1
	grep '"event":"close"' "$TMP/drain.log" >"$TMP/close.line" || true
	bytes_are "drain: the cut tunnel's close line" 40000 40000
	wait_gone "$hp" 50 || kill "$hp" 2>/dev/null || true
}

# Drained in 1 s: the drain area cuts a tunnel that would never end.
cat >"$TMP/close.conf" <<EOF
default deny
allow_loopback on
allow 127.0.0.1
drain_timeout 1s
EOF
if start_server xferd xferd && XFERD=$SRV_PORT &&
    cserver forigin origin --log "$TMP/origin.counts" &&
    FORIGIN=$SRV_PORT && start_proxy close "$TMP/close.conf"; then
	PP=$PX_PORT
	area_tunnels
	area_forward
	area_pairs
	area_drain
	area_report
	audit_logs "audit: every line counts, close lines too" "$LOG" \
	    "$TMP/drain.log" "$TMP/rep.log"
fi
if cat "$TMP"/*.stderr 2>/dev/null | grep -Eq 'Sanitizer|runtime error:'; then
	not_ok "close: no sanitizer report" \
	    "$(grep -E -A3 'Sanitizer|runtime error:' "$TMP"/*.stderr | head -20)"
else
	ok "close: no sanitizer report"
fi
if [ "$PASS" != unprivileged ] && [ "$(id -u)" -eq 0 ]; then
	if id nobody >/dev/null 2>&1; then
		nobody_pass proxy/close HARN_CLOSE_PASS \
		    "$top_srcdir/tests/proxy/lib.sh" "$top_srcdir/tests/pyhelpers.py" \
		    "$top_srcdir/tests/dnsd.py" "$C"
	else
		skip "unprivileged pass: no user 'nobody'"
	fi
fi
finish
