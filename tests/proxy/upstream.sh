#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A parent proxy (SPEC 8.3): with `upstream http://ADDR:PORT` every
# allowed connection (CONNECT, forwarding, SOCKS5) is made through
# Debian's tinyproxy on loopback, which is asked for the checked address;
# it never hears of a refused request; a parent that refuses or is not
# there is the request's connect_failed and the origin sees nothing
# (never a way around it); upstream_resolve parent sends the name, and
# address rules then judge address literals only.
# The fixture (DNS, origins) and the run: tests/proxy/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/upstream.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"

# parent NAME [DIRECTIVE...]: a tinyproxy of the test's own on loopback;
# its port in TP, its log $TMP/NAME.tp.log.
parent() {
	tname=$1
	shift
	TP=$($PY "$H" freeport)
	{
		echo "Port $TP"
		echo "Listen 127.0.0.1"
		echo "Timeout 30"
		echo "LogFile \"$TMP/$tname.tp.log\""
		echo "LogLevel Connect"
		echo "MaxClients 20"
		echo "Allow 127.0.0.1"
		echo "DisableViaHeader Yes"
		for d in "$@"; do
			echo "$d"
		done
	} >"$TMP/$tname.tp.conf"
	: >"$TMP/$tname.tp.log"
	chmod 666 "$TMP/$tname.tp.log"
	tinyproxy -d -c "$TMP/$tname.tp.conf" >"$TMP/$tname.tp.out" 2>&1 &
	TPID=$!
	BG_PIDS="$BG_PIDS $TPID"
	n=0
	while ! $PY -c "import socket; socket.create_connection(('127.0.0.1',$TP),1)" 2>/dev/null; do
		if [ $n -ge 100 ] || ! alive "$TPID"; then
			not_ok "tinyproxy $tname starts" "$(head -c 400 "$TMP/$tname.tp.out")"
			return 1
		fi
		sleep 0.1
		n=$((n + 1))
	done
}

origin_hits() {
	grep -c '' "$TMP/origin.log" 2>/dev/null || echo 0
}

area_local() {
	if ! command -v tinyproxy >/dev/null 2>&1; then
		not_ok "tinyproxy is installed (Debian's tinyproxy package)"
		return 0
	fi
	parent tp1 || return 0
	{
		policy_main
		echo "upstream http://127.0.0.1:$TP"
	} >"$TMP/up.conf"
	start_proxy up "$TMP/up.conf" || return 0
	UP=$PX_PORT
	before=$(origin_hits)
	CURL -p -x "http://127.0.0.1:$UP" -o "$TMP/up-connect.out" \
	    "http://good.test:$ORIGIN/" 2>"$TMP/up-connect.err" || true
	expect_grep "local: a CONNECT through the parent reaches the origin" \
	    "$TMP/up-connect.out" "^hello from origin"
	wait_grep "$TMP/tp1.tp.log" "CONNECT 127\.0\.0\.1:$ORIGIN " 50 || true
	expect_grep "local: the parent was asked for the checked address, not the name" \
	    "$TMP/tp1.tp.log" "CONNECT 127\.0\.0\.1:$ORIGIN "
	expect_no_grep "local: and never told the name" "$TMP/tp1.tp.log" \
	    "good\.test"
	expect_grep "local: the decision line is the proxy's, with the checked address" \
	    "$TMP/up.log" "\"protocol\":\"http_connect\",\"host\":\"good.test\",\"port\":$ORIGIN,\"decision\":\"allow\",\"reason\":\"allow_rule\",\"addr\":\"127.0.0.1\""
	n1=$(grep -c "CONNECT 127\.0\.0\.1:$ORIGIN " "$TMP/tp1.tp.log" || true)
	CURL -x "http://127.0.0.1:$UP" -o "$TMP/up-get.out" \
	    "http://good.test:$ORIGIN/" 2>"$TMP/up-get.err" || true
	expect_grep "local: a forwarded GET through the parent gets the origin's answer" \
	    "$TMP/up-get.out" "^hello from origin"
	socks "$UP" --host good.test --dport "$ORIGIN"
	expect_grep "local: SOCKS5 through the parent succeeds" \
	    "$TMP/socks.out" '^reply 05 00'
	wait_count "$TMP/tp1.tp.log" "CONNECT 127\.0\.0\.1:$ORIGIN " $((n1 + 2)) 50 || true
	expect_rc "local: the forwarded GET and SOCKS5 went through the parent too (CONNECT each)" \
	    0 test "$(grep -c "CONNECT 127\.0\.0\.1:$ORIGIN " "$TMP/tp1.tp.log")" -ge $((n1 + 2))
	lines=$(grep -c '' "$TMP/tp1.tp.log")
	expect_rc "local: a refused name is refused here (403)" 0 test \
	    "$(http_code "$UP" "http://nope.test:$ORIGIN/" || true)" = 403
	expect_rc "local: a private address is refused here (403)" 0 test \
	    "$(CURL -p -x "http://127.0.0.1:$UP" -o /dev/null -w \
	    '%{http_connect}' "http://10.1.2.3:$ORIGIN/" 2>/dev/null || true)" = 403
	expect_rc "local: the parent heard nothing of either" 0 test \
	    "$(grep -c '' "$TMP/tp1.tp.log")" -eq "$lines"
	expect_rc "local: the origin saw only what was allowed" 0 test \
	    "$(origin_hits)" -ge $((before + 1))
}

area_fails() {
	parent tp2 "ConnectPort 443" || return 0
	{
		policy_main
		echo "upstream http://127.0.0.1:$TP"
	} >"$TMP/upr.conf"
	start_proxy upr "$TMP/upr.conf" || return 0
	before=$(origin_hits)
	expect_rc "fails: a parent that refuses (ConnectPort 443): 502" 0 \
	    test "$(CURL -p -x "http://127.0.0.1:$PX_PORT" -o /dev/null -w \
	    '%{http_connect}' "http://good.test:$ORIGIN/" 2>/dev/null || true)" = 502
	expect_grep "fails: logged connect_failed" "$TMP/upr.log" \
	    "\"host\":\"good.test\",\"port\":$ORIGIN,\"decision\":\"deny\",\"reason\":\"connect_failed\""
	stop_proxy upr "$PX_PID"
	# A parent that is not there.
	gone=$($PY "$H" freeport)
	{
		policy_main
		echo "upstream http://127.0.0.1:$gone"
	} >"$TMP/upg.conf"
	start_proxy upg "$TMP/upg.conf" || return 0
	expect_rc "fails: a parent that is not there: 502" 0 test \
	    "$(CURL -p -x "http://127.0.0.1:$PX_PORT" -o /dev/null -w \
	    '%{http_connect}' "http://good.test:$ORIGIN/" 2>/dev/null || true)" = 502
	expect_grep "fails: logged connect_failed" "$TMP/upg.log" \
	    "\"decision\":\"deny\",\"reason\":\"connect_failed\""
	expect_rc "fails: the origin saw nothing: never a way around the parent" \
	    0 test "$(origin_hits)" -eq "$before"
	stop_proxy upg "$PX_PID"
}

area_parent() {
	parent tp3 || return 0
	{
		echo "default deny"
		echo "allow_loopback on"
		echo "resolver 127.0.0.1:$DNS"
		echo "allow localhost:$ORIGIN"
		echo "allow 127.0.0.2"
		echo "upstream http://127.0.0.1:$TP"
		echo "upstream_resolve parent"
	} >"$TMP/upp.conf"
	"$EGRESSD" check --policy "$TMP/upp.conf" >"$TMP/upp.check" 2>&1 || true
	expect_grep "parent: check says address rules judge literals only" \
	    "$TMP/upp.check" "address rules judge address literals only"
	start_proxy upp "$TMP/upp.conf" --attest "$TMP/upp.report" || return 0
	dns_before=$(grep -c '' "$TMP/dns.log" || true)
	CURL -p -x "http://127.0.0.1:$PX_PORT" -o "$TMP/upp.out" \
	    "http://localhost:$ORIGIN/" 2>/dev/null || true
	expect_grep "parent: the name's CONNECT reaches the origin" \
	    "$TMP/upp.out" "^hello from origin"
	wait_grep "$TMP/tp3.tp.log" "CONNECT localhost:$ORIGIN " 50 || true
	expect_grep "parent: the parent was asked for the name" \
	    "$TMP/tp3.tp.log" "CONNECT localhost:$ORIGIN "
	expect_rc "parent: and the proxy looked nothing up" 0 test \
	    "$(grep -c '' "$TMP/dns.log" || true)" -eq "$dns_before"
	# A name only an address rule could admit: refused, never resolved.
	expect_rc "parent: a name an address rule alone could admit: 403" 0 \
	    test "$(http_code "$PX_PORT" "http://good.test:$ORIGIN/" || true)" = 403
	expect_grep "parent: no_allow_rule" "$TMP/upp.log" \
	    "\"host\":\"good.test\".*\"reason\":\"no_allow_rule\""
	stop_proxy upp "$PX_PID"
	expect_rc "parent: the report says upstream and upstream_resolve parent" 0 \
	    $PY -c 'import json,sys; p=json.load(open(sys.argv[1]))["policy"]
sys.exit(0 if p["upstream"] == "http://127.0.0.1:" + sys.argv[2] and p["upstream_resolve"] == "parent" else 1)' \
	    "$TMP/upp.report" "$TP"
}

PX_REASONS="allow_rule no_allow_rule private_address connect_failed"
PX_PROTOCOLS="http http_connect socks5"
proxy_suite local fails parent
