#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# No client takes the proxy from the others while requests connect (SPEC 4
# Limits; issue 33 items 3 and 4):
#  - leave: clients that leave mid-connect (their names asked of a resolver
#    that never answers) free their slots at once, each request has its
#    one line, and their lookups are not sent again;
#  - flood: 15,000 lookups held on a resolver that never answers (opened
#    at 3,000 a second: what is measured is the lookups, not a backlog of
#    connections not yet accepted, which is issue 33's item 1): lookups
#    are capped (limit_exceeded past the cap), the proxy's RSS stays
#    bounded, and a legitimate CONNECT to an address literal is answered
#    all along;
#  - phase: connect_timeout bounds the whole connect phase: a name with 8
#    addresses whose connects time out (tarpits: a full accept queue, on
#    127.0.9.1-8) is answered 504 after one connect_timeout, not eight.
# The legitimate client's bound: every CONNECT answered 200 within 2 s
# (the goal is p99 under 100 ms; a 2-core machine busy with other work
# gets slack); the measured p50/p99 are printed as "# " lines.
# Loopback only.  As root, then again as nobody.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/fair_connect.sh
# PROXY_AREAS="AREA..." runs only those.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"

FC="$top_srcdir/tests/proxy/fairconn.py"
BOUND_MS=2000

# dead8.test: eight addresses, each a tarpit (area_phase).
i=1
while [ $i -le 8 ]; do
	echo "dead8.test A 127.0.9.$i"
	i=$((i + 1))
done >>"$ZONE"

# A resolver that reads every query and never answers; sets SILENT.
start_silent() {
	: >"$TMP/silent.log"
	rm -f "$TMP/silent.port"
	$PY "$FC" silent --port-file "$TMP/silent.port" \
	    --log "$TMP/silent.log" >"$TMP/silent.out" 2>&1 &
	sp=$!
	BG_PIDS="$BG_PIDS $sp"
	SILENT=1
	if wait_file "$TMP/silent.port" 50 "$sp"; then
		SILENT=$(head -n1 "$TMP/silent.port")
		return 0
	fi
	not_ok "the silent resolver starts" "$(cat "$TMP/silent.out")"
	return 1
}

# fair_policy DNS_TIMEOUT MAX_CONNECTIONS: names under dead.test asked of
# the silent resolver; the legitimate client's address literal allowed.
fair_policy() {
	cat <<EOF
default deny
allow_loopback on
resolver 127.0.0.1:$SILENT
dns_timeout $1
connect_timeout 2s
max_connections $2
allow *.dead.test
allow 127.0.0.1
EOF
}

# legit_check NAME FILE: every try of fairconn legit's output FILE was
# answered 200 within the bound; its p50/p99 printed.
legit_check() {
	lt=$(sed -n 's/^tries //p' "$2")
	la=$(sed -n 's/^answered //p' "$2")
	lmax=$(sed -n 's/^max_ms //p' "$2")
	echo "# $1: p50 $(sed -n 's/^p50_ms //p' "$2") ms, p99 $(sed -n 's/^p99_ms //p' "$2") ms, max ${lmax:-?} ms over ${lt:-0} CONNECTs"
	if [ -n "$lt" ] && [ "$lt" -gt 0 ] && [ "$la" = "$lt" ] &&
	    [ "${lmax%.*}" -lt "$BOUND_MS" ]; then
		ok "$1: every legitimate CONNECT answered 200 within ${BOUND_MS} ms ($la)"
	else
		not_ok "$1: every legitimate CONNECT answered 200 within ${BOUND_MS} ms" \
		    "$(cat "$2")"
	fi
}

# count_lines FILE ERE: lines of FILE matching ERE.
count_lines() {
	grep -Ec -- "$2" "$1" 2>/dev/null || true
}

area_leave() {
	start_silent || return 0
	# dns_timeout 2s: c-ares sends each query again after 1 s.
	fair_policy 2s 16 >"$TMP/leave.conf"
	start_proxy leave "$TMP/leave.conf" || return 0
	LVP=$PX_PORT
	LVPID=$PX_PID
	# As many requests as slots, CONNECT and SOCKS5; they leave once the
	# resolver has been asked each name (a quarter with a reset).
	$PY "$FC" leave --proxy "$LVP" --n 16 --names 'l%d.dead.test' \
	    --dnslog "$TMP/silent.log" --timeout 10 >"$TMP/leave.out" 2>&1
	if grep -q '^seen 16$' "$TMP/leave.out"; then
		ok "leave: 16 requests (of max_connections 16) wait on a resolver that never answers"
	else
		not_ok "leave: 16 requests wait on a resolver that never answers" \
		    "$(cat "$TMP/leave.out")"
	fi
	asked=$(count_lines "$TMP/silent.log" '^l[0-9]+\.dead\.test ')
	# Their clients have gone: a legitimate client is served at once.
	$PY "$FC" legit --proxy "$LVP" --target "127.0.0.1:$ORIGIN" --n 10 \
	    --interval 0.02 >"$TMP/leave.legit" 2>&1
	if grep -q '^statuses 200=10$' "$TMP/leave.legit"; then
		ok "leave: once they left, 10 legitimate CONNECTs get 200 at once"
	else
		not_ok "leave: once they left, 10 legitimate CONNECTs get 200 at once" \
		    "$(cat "$TMP/leave.legit")"
	fi
	legit_check "leave" "$TMP/leave.legit"
	# One line each: deny, dns_failure (abandoned while the name was being
	# looked up), no address (none was judged).
	wait_count "$TMP/leave.log" '"host":"l[0-9]+\.dead\.test"' 16 50 || true
	nl=$(count_lines "$TMP/leave.log" '"host":"l[0-9]+\.dead\.test"')
	nc=$(count_lines "$TMP/leave.log" '"host":"l[0-9]+\.dead\.test","port":443,"decision":"deny","reason":"dns_failure"}')
	np=$(grep -E '"host":"l[0-9]+\.dead\.test"' "$TMP/leave.log" |
	    sed 's/.*"protocol":"\([a-z_0-9]*\)".*/\1/' | sort -u | tr '\n' ' ')
	if [ "$nl" -eq 16 ] && [ "$nc" -eq 16 ] &&
	    [ "$np" = "http_connect socks5 " ]; then
		ok "leave: each abandoned request has one line: deny dns_failure (CONNECT and SOCKS5)"
	else
		not_ok "leave: each abandoned request has one line: deny dns_failure" \
		    "lines $nl, dns_failure $nc, protocols $np" \
		    "$(grep -E '"host":"l[0-9]' "$TMP/leave.log" | head -3)"
	fi
	# Their lookups were cancelled: a lookup still wanted (probe) is sent
	# again after 1 s; by then theirs would have been too.
	$PY "$FC" legit --proxy "$LVP" --target "probe.dead.test:443" --n 1 \
	    --timeout 5 >"$TMP/probe.out" 2>&1 &
	pp=$!
	BG_PIDS="$BG_PIDS $pp"
	if wait_count "$TMP/silent.log" '^probe\.dead\.test 1$' 2 50; then
		again=$(count_lines "$TMP/silent.log" '^l[0-9]+\.dead\.test ')
		if [ "$again" -eq "$asked" ]; then
			ok "leave: the lookups of the requests abandoned are not sent again ($asked queries)"
		else
			not_ok "leave: the lookups of the requests abandoned are not sent again" \
			    "$asked queries when they left, $again after a retransmit"
		fi
	else
		not_ok "leave: a lookup still wanted is sent again (the probe)" \
		    "$(grep -c probe "$TMP/silent.log") probe queries"
	fi
	kill "$pp" 2>/dev/null
	stop_proxy leave "$LVPID"
	if [ "$STOP_RC" -eq 0 ]; then ok "leave: SIGTERM exit 0"; else
		not_ok "leave: SIGTERM exit 0" "exit $STOP_RC"; fi
}

area_flood() {
	start_silent || return 0
	N=15000
	# The flood's connections and the proxy's: within the hard limit.
	ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
	if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((N + 500)) ]; then
		N=$(($(ulimit -n) - 500))
		echo "# flood: descriptors allow $N held requests only"
	fi
	fair_policy 20s 19000 >"$TMP/flood.conf"
	start_proxy flood "$TMP/flood.conf" || return 0
	FLP=$PX_PORT
	FLPID=$PX_PID
	rm -f "$TMP/flood.stop" "$TMP/flood.ready" "$TMP/legit.ready"
	$PY "$FC" legit --proxy "$FLP" --target "127.0.0.1:$ORIGIN" \
	    --interval 0.05 --stop-file "$TMP/flood.stop" \
	    --ready "$TMP/legit.ready" >"$TMP/flood.legit" 2>&1 &
	lp=$!
	BG_PIDS="$BG_PIDS $lp"
	wait_file "$TMP/legit.ready" 50 "$lp" || true
	$PY "$FC" flood --proxy "$FLP" --n "$N" --names 'f%d.dead.test' \
	    --ready "$TMP/flood.ready" --stop-file "$TMP/flood.stop" --hold 60 \
	    --rate 3000 \
	    >"$TMP/flood.out" 2>&1 &
	fp=$!
	BG_PIDS="$BG_PIDS $fp"
	if wait_file "$TMP/flood.ready" 900 "$fp"; then
		ok "flood: $(cat "$TMP/flood.ready") (each a name of its own)"
	else
		not_ok "flood: the flood's requests are sent" "$(cat "$TMP/flood.out")"
	fi
	rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$FLPID/status")
	# Let the legitimate client see the proxy with every lookup held.
	wait_count "$TMP/flood.log" '"host":"127\.0\.0\.1"' \
	    $(($(count_lines "$TMP/flood.log" '"host":"127\.0\.0\.1"') + 10)) 100 || true
	touch "$TMP/flood.stop"
	wait "$lp"
	wait "$fp"
	legit_check "flood" "$TMP/flood.legit"
	echo "# flood: proxy RSS ${rss:-?} kB with the flood held"
	# Measured: 50-76 MiB here; the landed build, 140-154 MiB.
	if sanitized; then
		skip "flood: the RSS bound: under AddressSanitizer the resident memory is mostly the sanitizer's (${rss:-?} kB); checked in the normal build"
	elif [ -n "$rss" ] && [ "$rss" -lt 114688 ]; then
		ok "flood: the proxy's RSS stays bounded (${rss} kB < 112 MiB)"
	else
		not_ok "flood: the proxy's RSS stays bounded (< 112 MiB)" "${rss:-?} kB"
	fi
	asked=$($PY -c '
import sys
print(len({l.split()[0] for l in open(sys.argv[1]) if l.startswith("f")}))' \
	    "$TMP/silent.log")
	if [ "$asked" -le 4096 ] && [ "$asked" -gt 0 ]; then
		ok "flood: outstanding lookups capped ($asked names asked, cap 4096)"
	else
		not_ok "flood: outstanding lookups capped at 4096" "$asked names asked"
	fi
	nlim=$(count_lines "$TMP/flood.log" '"host":"f[0-9]+\.dead\.test".*"reason":"limit_exceeded"')
	if [ "$nlim" -ge $((N - 4096)) ]; then
		ok "flood: past the cap, limit_exceeded ($nlim)"
	else
		not_ok "flood: past the cap, limit_exceeded" "$nlim of $((N - 4096))"
	fi
	# Every flood request gets its one line (refused, or abandoned).
	wait_count "$TMP/flood.log" '"host":"f[0-9]+\.dead\.test"' "$N" 100 || true
	nf=$(count_lines "$TMP/flood.log" '"host":"f[0-9]+\.dead\.test"')
	if [ "$nf" -eq "$N" ]; then
		ok "flood: one line per flood request ($nf)"
	else
		not_ok "flood: one line per flood request" "$nf of $N"
	fi
	stop_proxy flood "$FLPID"
	if [ "$STOP_RC" -eq 0 ]; then ok "flood: SIGTERM exit 0"; else
		not_ok "flood: SIGTERM exit 0" "exit $STOP_RC"; fi
}

area_phase() {
	# Eight tarpits on one port, 127.0.9.1-8: connects to them time out.
	start_server tarpit1 tarpit --bind 127.0.9.1 || return 0
	TP=$SRV_PORT
	i=2
	while [ $i -le 8 ]; do
		start_server "tarpit$i" tarpit --bind "127.0.9.$i" --port "$TP" ||
		    return 0
		i=$((i + 1))
	done
	cat >"$TMP/phase.conf" <<EOF
default deny
allow_loopback on
resolver 127.0.0.1:$DNS
connect_timeout 500ms
allow dead8.test
EOF
	start_proxy phase "$TMP/phase.conf" || return 0
	t0=$(now_ms)
	refusal "phase: 8 addresses that time out: 504 connect_timeout" \
	    "$PX_PORT" 504 connect_timeout \
	    "CONNECT dead8.test:$TP HTTP/1.1\r\nHost: dead8.test:$TP\r\n\r\n"
	t1=$(now_ms)
	if [ $((t1 - t0)) -lt 2000 ] && [ $((t1 - t0)) -ge 450 ]; then
		ok "phase: ... after one connect_timeout of 500 ms for all 8 ($((t1 - t0)) ms, not 8 x 500)"
	else
		not_ok "phase: ... after one connect_timeout of 500 ms for all 8" \
		    "$((t1 - t0)) ms"
	fi
	t0=$(now_ms)
	socks "$PX_PORT" --host dead8.test --dport "$TP"
	t1=$(now_ms)
	if grep -q '^reply 05 06 ' "$TMP/socks.out" && [ $((t1 - t0)) -lt 2000 ]; then
		ok "phase: SOCKS5 the same: reply 06 in $((t1 - t0)) ms"
	else
		not_ok "phase: SOCKS5 the same: reply 06 within 2 s" \
		    "$((t1 - t0)) ms" "$(show "$TMP/socks.out")"
	fi
	expect_grep "phase: the line names the last address tried" "$TMP/phase.log" \
	    '"host":"dead8\.test".*"decision":"deny","reason":"connect_timeout","addr":"127\.0\.9\.[1-8]"'
	stop_proxy phase "$PX_PID"
}

area_nobody() {
	if [ "$(id -u)" -ne 0 ] || [ -n "${FAIR_PASS:-}" ]; then
		return 0
	fi
	nobody_pass proxy/fair_connect FAIR_PASS \
	    "$top_srcdir/tests/proxy/lib.sh" "$top_srcdir/tests/pyhelpers.py" \
	    "$top_srcdir/tests/dnsd.py" "$FC"
}

# What these areas give, in their decision logs.
PX_REASONS="allow_rule dns_failure connect_timeout limit_exceeded"
PX_PROTOCOLS="http_connect socks5"
proxy_suite leave flood phase nobody
