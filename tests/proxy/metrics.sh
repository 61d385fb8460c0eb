#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Metrics (SPEC 8.1): --metrics serves OpenMetrics at /metrics on loopback
# or a unix socket; Debian's promtool passes the text; Debian's Prometheus
# scrapes it on loopback and its query API returns what this suite's own
# requests moved; anything but loopback is a usage error.
# The fixture (DNS, origins) and the run: tests/proxy/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/metrics.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"

# scrape URL OUT [ACCEPT]: one GET of the metrics.
scrape() {
	curl -q -sS --max-time 5 --noproxy '*' ${3:+-H "Accept: $3"} \
	    -o "$2" -D "$2.head" "$1" 2>"$2.err" || true
}

# metric FILE NAME{LABELS}: the value of one sample, or "".
metric() {
	awk -v s="$2" 'index($0, s " ") == 1 { print $2 }' "$1"
}

area_usage() {
	policy_main >"$TMP/met.conf"
	for bad in 0.0.0.0:9100 192.0.2.1:9100 unix:relative/path nonsense; do
		"$EGRESSD" --policy "$TMP/met.conf" --metrics "$bad" \
		    --listen 127.0.0.1:0 >"$TMP/usage.out" 2>&1 &
		up=$!
		BG_PIDS="$BG_PIDS $up"
		wait_gone "$up" 50 || kill "$up" 2>/dev/null
		rc=0
		wait "$up" 2>/dev/null || rc=$?
		expect_rc "usage: --metrics $bad: exit 2, nothing started" 0 \
		    test "$rc" -eq 2
		expect_no_grep "usage: --metrics $bad: no listener announced" \
		    "$TMP/usage.out" "listening on"
	done
}

area_serve() {
	start_proxy met "$TMP/met.conf" --metrics 127.0.0.1:0 || return 0
	MPX=$PX_PORT
	wait_grep "$TMP/met.stdout" "^harn-egressd: metrics on 127\.0\.0\.1:[0-9]+$" 50 "$PX_PID" ||
	    { not_ok "serve: stdout says where the metrics are" "$(cat "$TMP/met.stdout")"; return 0; }
	ok "serve: stdout says where the metrics are"
	MADDR=$(sed -n 's/^harn-egressd: metrics on //p' "$TMP/met.stdout")
	# The suite's own traffic: 3 CONNECTs allowed, 2 refused, 1 GET.
	for i in 1 2 3; do
		CURL -p -x "http://127.0.0.1:$MPX" -o /dev/null \
		    "http://good.test:$ORIGIN/" || true
	done
	for i in 1 2; do
		CURL -p -x "http://127.0.0.1:$MPX" -o /dev/null \
		    "http://nope.test:$ORIGIN/" 2>/dev/null || true
	done
	CURL -x "http://127.0.0.1:$MPX" -o /dev/null "http://good.test:$ORIGIN/" || true
	# 6 decisions, and the 4 allowed connections' close lines.
	wait_count "$TMP/met.log" '"event":"close"' 4 100 || true
	scrape "http://$MADDR/metrics" "$TMP/m.txt"
	expect_grep "serve: the text format without Accept" "$TMP/m.txt.head" \
	    "^Content-Type: text/plain; version=0.0.4"
	expect_rc "serve: three allowed CONNECTs counted" 0 test "$(metric \
	    "$TMP/m.txt" 'harn_egressd_decisions_total{protocol="http_connect",decision="allow",reason="allow_rule"}')" = 3
	expect_rc "serve: two refused CONNECTs counted" 0 test "$(metric \
	    "$TMP/m.txt" 'harn_egressd_decisions_total{protocol="http_connect",decision="deny",reason="no_allow_rule"}')" = 2
	expect_rc "serve: three connects in the latency histogram" 0 test \
	    "$(metric "$TMP/m.txt" 'harn_egressd_connect_seconds_count')" -ge 3
	expect_rc "serve: and lookups in the DNS one" 0 test \
	    "$(metric "$TMP/m.txt" 'harn_egressd_dns_lookup_seconds_count')" -ge 3
	for d in out in; do
		sum=$(sed -n "s/.*\"event\":\"close\".*\"bytes_$d\":\([0-9]*\).*/\1/p" \
		    "$TMP/met.log" | awk '{s += $1} END {print s + 0}')
		expect_rc "serve: bytes $d, the close lines' sum ($sum)" 0 test \
		    "$(metric "$TMP/m.txt" "harn_egressd_transferred_bytes_total{direction=\"$d\"}")" = "$sum"
	done
	expect_rc "serve: bytes came back" 0 test "$(metric "$TMP/m.txt" \
	    'harn_egressd_transferred_bytes_total{direction="in"}')" -gt 0
	expect_rc "serve: ten lines written" 0 test "$(metric "$TMP/m.txt" \
	    'harn_egressd_log_lines_total{state="written"}')" -ge 10
	expect_no_grep "serve: no host is a label" "$TMP/m.txt" "good\.test|nope\.test"
	if command -v promtool >/dev/null 2>&1; then
		pr=0
		promtool check metrics <"$TMP/m.txt" >"$TMP/promtool.out" 2>&1 ||
		    pr=$?
		expect_rc "serve: promtool check metrics passes" 0 test $pr -eq 0
		[ -s "$TMP/promtool.out" ] && echo "# promtool: $(head -c 300 "$TMP/promtool.out")"
	else
		not_ok "serve: promtool is installed (Debian's prometheus package)"
	fi
	scrape "http://$MADDR/metrics" "$TMP/m.om" \
	    "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"
	expect_grep "serve: OpenMetrics when asked" "$TMP/m.om.head" \
	    "^Content-Type: application/openmetrics-text; version=1.0.0"
	expect_grep "serve: which ends with # EOF" "$TMP/m.om" "^# EOF$"
	scrape "http://$MADDR/other" "$TMP/m.404"
	expect_grep "serve: another path is 404" "$TMP/m.404.head" "^HTTP/1.1 404"
	# A reload, then a bad one: counted, and the generation moves once.
	hup_wait "$PX_PID" "$TMP/met.stderr"
	cp "$TMP/met.conf" "$TMP/met.good"
	echo "this is not a directive" >>"$TMP/met.conf"
	hup_wait "$PX_PID" "$TMP/met.stderr"
	cp "$TMP/met.good" "$TMP/met.conf"
	scrape "http://$MADDR/metrics" "$TMP/m2.txt"
	expect_rc "serve: a failed reload counted" 0 test "$(metric \
	    "$TMP/m2.txt" 'harn_egressd_policy_reloads_total{result="failed"}')" = 1
	expect_rc "serve: the generation is 2 after one good reload" 0 test \
	    "$(metric "$TMP/m2.txt" 'harn_egressd_policy_generation')" = 2
	prometheus_scrapes
}

# Debian's Prometheus scrapes us; its API returns our counters.
prometheus_scrapes() {
	if ! command -v prometheus >/dev/null 2>&1; then
		not_ok "prometheus: installed (Debian's prometheus package)"
		return 0
	fi
	PP=$($PY "$H" freeport)
	mkdir -p "$TMP/prom"
	cat >"$TMP/prom/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: harn
    static_configs:
      - targets: ['$MADDR']
EOF
	prometheus --config.file="$TMP/prom/prometheus.yml" \
	    --storage.tsdb.path="$TMP/prom/data" \
	    --web.listen-address="127.0.0.1:$PP" >"$TMP/prom.out" 2>&1 &
	ppid=$!
	BG_PIDS="$BG_PIDS $ppid"
	q='harn_egressd_decisions_total{protocol="http_connect",decision="allow",reason="allow_rule"}'
	n=0 got=""
	while [ $n -lt 300 ] && alive "$ppid"; do
		got=$(curl -q -sS --max-time 2 --noproxy '*' -G \
		    "http://127.0.0.1:$PP/api/v1/query" --data-urlencode \
		    "query=$q" 2>/dev/null | $PY -c 'import json,sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")' 2>/dev/null || true)
		[ -n "$got" ] && break
		sleep 0.1
		n=$((n + 1))
	done
	expect_rc "prometheus: its query API returns the three allowed CONNECTs" \
	    0 test "$got" = 3
	up=$(curl -q -sS --max-time 2 --noproxy '*' -G \
	    "http://127.0.0.1:$PP/api/v1/query" --data-urlencode 'query=up' |
	    $PY -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null || true)
	expect_rc "prometheus: the target is up" 0 test "$up" = 1
	kill "$ppid" 2>/dev/null
	wait_gone "$ppid" 50 || true
}

area_unix() {
	start_proxy metu "$TMP/met.conf" --metrics "unix:$TMP/metrics.sock" ||
	    return 0
	scrape_ok=1
	n=0
	while [ $n -lt 50 ] && [ ! -S "$TMP/metrics.sock" ]; do
		sleep 0.1
		n=$((n + 1))
	done
	curl -q -sS --max-time 5 --unix-socket "$TMP/metrics.sock" \
	    -o "$TMP/mu.txt" "http://localhost/metrics" 2>"$TMP/mu.err" &&
	    scrape_ok=0
	expect_rc "unix: a scrape over unix:PATH" 0 test $scrape_ok -eq 0
	expect_grep "unix: with the open connections gauge" "$TMP/mu.txt" \
	    "^harn_egressd_connections_open [0-9]+$"
	expect_rc "unix: the socket is not for others" 0 test \
	    "$(stat -c %a "$TMP/metrics.sock")" = 660
	stop_proxy metu "$PX_PID"
	expect_rc "unix: the socket is removed at exit" 0 test ! -e "$TMP/metrics.sock"
}

# Another local user holds 300 idle connections to the metrics port: the
# proxy holds at most 16 of them (the landed evhttp server took every
# one, descriptors max_connections counts on), and a scrape still works,
# as does a proxied request.
area_flood() {
	start_proxy metf "$TMP/met.conf" --metrics 127.0.0.1:0 || return 0
	wait_grep "$TMP/metf.stdout" "^harn-egressd: metrics on " 50 "$PX_PID" ||
	    true
	FADDR=$(sed -n 's/^harn-egressd: metrics on //p' "$TMP/metf.stdout")
	fd0=$(ls "/proc/$PX_PID/fd" | grep -c '')
	rm -f "$TMP/flood.ready" "$TMP/flood.stop"
	$PY - "${FADDR%:*}" "${FADDR##*:}" "$TMP/flood.ready" "$TMP/flood.stop" \
	    >"$TMP/flood.out" 2>&1 <<'EOF' &
import os, socket, sys, time
held = []
for i in range(300):
    try:
        held.append(socket.create_connection((sys.argv[1], int(sys.argv[2])), 2))
    except OSError as e:
        print("connect %d: %s" % (i, e))
open(sys.argv[3], "w").write("%d\n" % len(held))
t = time.monotonic()
while not os.path.exists(sys.argv[4]) and time.monotonic() - t < 60:
    time.sleep(0.05)
EOF
	fp=$!
	BG_PIDS="$BG_PIDS $fp"
	wait_file "$TMP/flood.ready" 200 "$fp" || true
	scrape "http://$FADDR/metrics" "$TMP/mf.txt"
	expect_grep "flood: a scrape during the flood is answered" \
	    "$TMP/mf.txt.head" "^HTTP/1.1 200"
	fd1=$(ls "/proc/$PX_PID/fd" | grep -c '')
	echo "# descriptors: $fd0 before, $fd1 with 300 idle metrics connections"
	expect_rc "flood: the proxy holds at most 16 of them ($fd0 -> $fd1 descriptors)" \
	    0 test "$fd1" -le $((fd0 + 16 + 2))
	expect_rc "flood: a proxied request is served meanwhile" 0 test \
	    "$(http_code "$PX_PORT" "http://good.test:$ORIGIN/")" = 200
	: >"$TMP/flood.stop"
	wait_gone "$fp" 100 || kill "$fp" 2>/dev/null || true
	stop_proxy metf "$PX_PID"
}

PX_REASONS="allow_rule no_allow_rule"
PX_PROTOCOLS="http http_connect"
proxy_suite usage serve unix flood
