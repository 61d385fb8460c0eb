#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The proxy in service mode (SPEC 2, 3, 4, 5): policies: IP literals,
# ports, default allow, listeners, actionable refusals, bad and
# environment policies.
# The fixture (DNS, origins, canaries) and the run: tests/proxy/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/policy.sh
# PROXY_AREAS="AREA..." runs only those.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"

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

# What these areas give, in their decision logs.
PX_REASONS="allow_rule default_allow deny_rule no_allow_rule private_address
metadata_address invalid_request proxy_loop connect_timeout"
PX_PROTOCOLS="http http_connect socks5"
proxy_suite iplit ports default listen actionable badpolicy envpolicy
