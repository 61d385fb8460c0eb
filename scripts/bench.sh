#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Benchmarks, printed side by side with peers; figures, not pass/fail.
#   scripts/bench.sh            decisions/s, then the proxy peer table
#   scripts/bench.sh decide     decisions/s only
#   scripts/bench.sh sandbox    a confined /bin/true, and a connect()
#                               through the connect broker, against none,
#                               in each confinement (landlock also as in a
#                               default Docker container: tests/dockerish.c)
#   scripts/bench.sh tunnels    new tunnels/s through the proxy from a
#                               command inside each confinement
#                               (bench/loadgen, an nginx origin)
#   scripts/bench.sh peers      the peer table only (about 7 minutes):
#                               bench/run-peers.sh, this build beside
#                               tinyproxy, squid, dante, microsocks and
#                               direct loopback (bench/README.md)
#   scripts/bench.sh transparent  from a command inside each confinement:
#                               a connect carried through the proxy (a
#                               program that ignores it) against CONNECT
#                               through the proxy, to the same origin;
#                               a name lookup inside (answered by the
#                               run) against one on the host
#   scripts/bench.sh deadnames  a legitimate CONNECT to an address literal,
#                               one every 50 ms, while 15,000 requests
#                               each for a name of its own are held on a
#                               resolver that never answers (issue 33):
#                               its p50/p99/max, the proxy's CPU and RSS
#                               (EGRESSD=path: another build's binary)
#   scripts/bench.sh slowlog    a legitimate client's CONNECT latency while
#                               the --log - reader takes 80 KB/s and 32
#                               clients send refused requests (8 more
#                               allowed ones), then after (issue 33
#                               item 5; EGRESSD=path: another build's)
#   scripts/bench.sh loglat     from an answer to its decision line in the
#                               --log file: median and max, idle and under
#                               load (EGRESSD=path: another build's binary)
#   scripts/bench.sh silence    a legitimate client's CONNECT, one every
#                               0.2 s, while 1500 silent connections are
#                               kept up (400 a second) against
#                               max_connections 1000: answered and p50/p99
#                               (EGRESSD=path: another build's binary)
#   scripts/bench.sh trickle    the proxy's CPU per CONNECT head sent 1-2
#                               bytes per TCP segment, for heads of 4, 16,
#                               64 and 256 KiB (it must grow linearly), and
#                               a legitimate client's CONNECT latency (one
#                               per 0.2 s) idle and meanwhile (issue 33;
#                               EGRESSD=path: another build's binary)
# The peer table needs, once:
#   apt-get install nginx-light tinyproxy squid dante-server microsocks
# Knobs of bench/run-peers.sh (REPS, DUR, PEERS, ...) pass through.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}

case $what in
all|tunnels|peers|decide|sandbox|loglat|transparent|deadnames|slowlog|silence|trickle) ;;
*) echo "usage: scripts/bench.sh [decide|sandbox|tunnels|peers|loglat|transparent|deadnames|slowlog|silence|trickle]" >&2; exit 2 ;;
esac

sh "$top/scripts/bootstrap.sh" >/dev/null

if [ "$what" = all ] || [ "$what" = decide ]; then
	[ -x "$top/build/tests/egress/bench_decide" ] ||
	    make -C "$top/build" tests/egress/bench_decide >/dev/null
	"$top/build/tests/egress/bench_decide"
fi
if [ "$what" = all ] || [ "$what" = deadnames ]; then
	dn=$(mktemp -d "${TMPDIR:-/tmp}/harn-deadnames.XXXXXX")
	fc="$top/tests/proxy/fairconn.py"
	python3 "$fc" silent --port-file "$dn/dns.port" --log "$dn/dns.log" &
	dnpids=$!
	python3 "$top/tests/pyhelpers.py" origin --port-file "$dn/origin.port" \
	    --log /dev/null >/dev/null 2>&1 &
	dnpids="$dnpids $!"
	n=0
	while { [ ! -s "$dn/dns.port" ] || [ ! -s "$dn/origin.port" ]; } &&
	    [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	printf 'default deny\nallow_loopback on\nresolver 127.0.0.1:%s\ndns_timeout 20s\nmax_connections 19000\nallow *.dead.test\nallow 127.0.0.1\n' \
	    "$(cat "$dn/dns.port")" >"$dn/p.conf"
	(ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
	"${EGRESSD:-$top/build/harn-egressd}" --policy "$dn/p.conf" \
	    --listen 127.0.0.1:0 --port-file "$dn/port" --log "$dn/log" \
	    >/dev/null 2>&1 &
	echo $! >"$dn/pid"
	n=0
	while [ ! -s "$dn/port" ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	dnp=$(cat "$dn/port")
	python3 "$fc" legit --proxy "$dnp" --n 40 --interval 0.05 \
	    --target "127.0.0.1:$(cat "$dn/origin.port")" >"$dn/idle.out"
	python3 "$fc" legit --proxy "$dnp" --interval 0.05 \
	    --target "127.0.0.1:$(cat "$dn/origin.port")" \
	    --stop-file "$dn/stop" >"$dn/busy.out" &
	lgp=$!
	python3 "$fc" flood --proxy "$dnp" --n 15000 --names 'b%d.dead.test' \
	    --ready "$dn/ready" --stop-file "$dn/stop" --hold 60 >/dev/null &
	flp=$!
	n=0
	while [ ! -s "$dn/ready" ] && [ $n -lt 900 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	sleep 1		# the legitimate client, with every lookup held
	pid=$(cat "$dn/pid")
	echo "== deadnames: a CONNECT to 127.0.0.1 every 50 ms (${EGRESSD:-this build})"
	echo "   idle:   $(sed -n 's/^p50_ms //p' "$dn/idle.out") ms p50, $(sed -n 's/^p99_ms //p' "$dn/idle.out") ms p99"
	echo "   proxy while 15,000 lookups are held: $(sed -n 's/^VmRSS:[[:space:]]*//p' "/proc/$pid/status") RSS, $(ps -o cputime= -p "$pid") CPU; $(cat "$dn/ready")"
	touch "$dn/stop"
	wait "$lgp" "$flp" || true
	echo "   attack: $(sed -n 's/^p50_ms //p' "$dn/busy.out") ms p50, $(sed -n 's/^p99_ms //p' "$dn/busy.out") ms p99, $(sed -n 's/^max_ms //p' "$dn/busy.out") ms max; $(sed -n 's/^statuses //p' "$dn/busy.out")"
	kill "$pid" 2>/dev/null)
	# shellcheck disable=SC2086
	kill $dnpids 2>/dev/null
	wait 2>/dev/null
	rm -rf "$dn"
fi
if [ "$what" = all ] || [ "$what" = loglat ]; then
	make -C "$top/build" tests/proxy/bench_loglat >/dev/null
	ll=$(mktemp -d "${TMPDIR:-/tmp}/harn-loglat.XXXXXX")
	printf 'default deny\nmax_connections 20000\n' >"$ll/p.conf"
	"${EGRESSD:-$top/build/harn-egressd}" --policy "$ll/p.conf" \
	    --listen 127.0.0.1:0 --port-file "$ll/port" --log "$ll/log" \
	    >/dev/null 2>&1 &
	llpid=$!
	n=0
	while [ ! -s "$ll/port" ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	echo "== from an answer to its line in the --log file (${EGRESSD:-this build})"
	"$top/build/tests/proxy/bench_loglat" "$(cat "$ll/port")" "$ll/log" || true
	kill "$llpid" 2>/dev/null
	wait "$llpid" 2>/dev/null
	rm -rf "$ll"
fi
if [ "$what" = all ] || [ "$what" = slowlog ]; then
	sl=$(mktemp -d "${TMPDIR:-/tmp}/harn-slowlog.XXXXXX")
	python3 "$top/bench/transparent.py" origin "$sl/oport" &
	slo=$!
	printf 'good.test A 127.0.0.1\n' >"$sl/zone"
	python3 "$top/tests/dnsd.py" --zone "$sl/zone" --port-file "$sl/dport" &
	sld=$!
	n=0
	while { [ ! -s "$sl/oport" ] || [ ! -s "$sl/dport" ]; } && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	op=$(cat "$sl/oport")
	printf 'resolver 127.0.0.1:%s\nallow_loopback on\nallow good.test:%s\n' \
	    "$(cat "$sl/dport")" "$op" >"$sl/p.conf"
	mkfifo "$sl/fifo"
	python3 "$top/tests/proxy/fairlog.py" reader --rate 80000 \
	    --out "$sl/copy" <"$sl/fifo" &
	slr=$!
	"${EGRESSD:-$top/build/harn-egressd}" --policy "$sl/p.conf" \
	    --listen 127.0.0.1:0 --port-file "$sl/port" --log - \
	    >/dev/null 2>"$sl/fifo" &
	slp=$!
	n=0
	while [ ! -s "$sl/port" ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	echo "== a CONNECT every 0.2 s, log reader at 80 KB/s, 32 refused + 8 allowed clients for 8 s, then 4 s after (${EGRESSD:-this build})"
	python3 "$top/tests/proxy/fairlog.py" load --proxy "$(cat "$sl/port")" \
	    --origin "$op" --seconds 8 --after 4 --attackers 32 --allowed 8 || true
	kill "$slp" "$slo" "$sld" 2>/dev/null
	wait "$slp" "$slo" "$sld" 2>/dev/null
	kill "$slr" 2>/dev/null
	wait "$slr" 2>/dev/null
	rm -rf "$sl"
fi
if [ "$what" = all ] || [ "$what" = silence ]; then
	sb=$(mktemp -d "${TMPDIR:-/tmp}/harn-silence.XXXXXX")
	fs="$top/tests/proxy/fair_slots.py"
	python3 "$fs" origin --port-file "$sb/oport" --seconds 60 \
	    --stop "$sb/stop" --every 3600 &
	sbo=$!
	n=0
	while [ ! -s "$sb/oport" ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	printf 'allow_loopback on\nallow 127.0.0.1\nheader_timeout 60s\nmax_connections 1000\n' \
	    >"$sb/p.conf"
	"${EGRESSD:-$top/build/harn-egressd}" --policy "$sb/p.conf" \
	    --listen 127.0.0.1:0 --port-file "$sb/port" --log "$sb/log" \
	    >/dev/null 2>&1 &
	sbp=$!
	n=0
	while [ ! -s "$sb/port" ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	python3 "$fs" silent --proxy "$(cat "$sb/port")" --n 1500 --rate 400 \
	    --seconds 60 --ready "$sb/ready" --stop "$sb/stop" >"$sb/silent" &
	sba=$!
	n=0
	while [ ! -s "$sb/ready" ] && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	echo "== a legitimate CONNECT every 0.2 s, 1500 silent connections against max_connections 1000 (${EGRESSD:-this build})"
	python3 "$fs" legit --proxy "$(cat "$sb/port")" --n 50 --every 0.2 \
	    --timeout 5 --target "127.0.0.1:$(cat "$sb/oport")" |
	    sed -n 's/^summary /legitimate client: /p'
	: >"$sb/stop"
	wait "$sba"
	cat "$sb/silent"
	kill "$sbp" 2>/dev/null
	wait "$sbp" "$sbo" 2>/dev/null
	rm -rf "$sb"
fi
if [ "$what" = all ] || [ "$what" = trickle ]; then
	tk=$(mktemp -d "${TMPDIR:-/tmp}/harn-trickle.XXXXXX")
	printf 'default deny\nallow_loopback on\nallow 127.0.0.1\nheader_timeout 60s\nmax_header_bytes 262144\n' >"$tk/p.conf"
	python3 "$top/tests/pyhelpers.py" origin --port-file "$tk/oport" \
	    >/dev/null 2>&1 &
	tkopid=$!
	"${EGRESSD:-$top/build/harn-egressd}" --policy "$tk/p.conf" \
	    --listen 127.0.0.1:0 --port-file "$tk/port" --log "$tk/log" \
	    >/dev/null 2>&1 &
	tkpid=$!
	n=0
	while { [ ! -s "$tk/port" ] || [ ! -s "$tk/oport" ]; } && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	fh="$top/tests/proxy/fairhead.py"
	tgt="127.0.0.1:$(cat "$tk/oport")"
	echo "== trickled heads, 1-2 bytes per segment (${EGRESSD:-this build})"
	python3 "$fh" legit --proxy "$(cat "$tk/port")" --target "$tgt" \
	    --seconds 2 | sed -n 's/^\(p50_ms\|p99_ms\)/idle legitimate CONNECT \1/p'
	python3 "$fh" legit --proxy "$(cat "$tk/port")" --target "$tgt" \
	    --seconds 600 --stop "$tk/stop" >"$tk/legit.out" 2>&1 &
	tklpid=$!
	# 256 KiB of heads per length, so the clock's ticks average out.
	for k in 4 16 64 256; do
		python3 "$fh" trickles --proxy "$(cat "$tk/port")" \
		    --pid "$tkpid" --target "$tgt" --size $((k * 1024)) \
		    --repeat $((256 / k)) --timeout 120 || true
	done
	: >"$tk/stop"
	wait "$tklpid" || true
	sed -n 's/^\(connects\|failed\|p50_ms\|p99_ms\|max_ms\)/legitimate CONNECT meanwhile: \1/p' "$tk/legit.out"
	kill "$tkpid" "$tkopid" 2>/dev/null
	wait "$tkpid" "$tkopid" 2>/dev/null || true
	rm -rf "$tk"
fi
if [ "$what" = all ] || [ "$what" = transparent ]; then
	tb=$(mktemp -d "${TMPDIR:-/tmp}/harn-transparent.XXXXXX")
	mkdir "$tb/ws"
	cp "$top/bench/transparent.py" "$tb/ws/"
	chmod -R a+rX "$tb"
	python3 "$top/bench/transparent.py" origin "$tb/oport" &
	tbo=$!
	printf 'app.test A 127.0.0.1\n' >"$tb/zone"
	python3 "$top/tests/dnsd.py" --zone "$tb/zone" --port-file "$tb/dport" &
	tbd=$!
	n=0
	while { [ ! -s "$tb/oport" ] || [ ! -s "$tb/dport" ]; } && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	op=$(cat "$tb/oport")
	printf 'resolver 127.0.0.1:%s\nallow_loopback on\nallow app.test:%s\n' \
	    "$(cat "$tb/dport")" "$op" >"$tb/p.conf"
	for c in namespaces landlock; do
		echo "== transparent, $c: to app.test:$op (loopback), 500 each way"
		(cd "$tb/ws" && "${EGRESSD:-$top/build/harn-egressd}" --quiet \
		    --policy "$tb/p.conf" --confinement "$c" --workspace "$tb/ws" \
		    -- sh -c "python3 transparent.py connect app.test $op 500 &&
		    python3 transparent.py lookup app.test 500 &&
		    if [ $c = namespaces ]; then echo '-- over UDP:' &&
		    env -u RES_OPTIONS python3 transparent.py lookup app.test 500;
		    fi &&
		    python3 transparent.py udpask 127.0.0.53 53 app.test 500") ||
		    true
	done
	echo "== on the host"
	python3 "$top/bench/transparent.py" lookup localhost 500
	python3 "$top/bench/transparent.py" tcpquery "$(cat "$tb/dport")" app.test 500
	python3 "$top/bench/transparent.py" udpquery "$(cat "$tb/dport")" app.test 500
	kill "$tbo" "$tbd" 2>/dev/null
	wait "$tbo" "$tbd" 2>/dev/null
	rm -rf "$tb"
fi
if [ "$what" = all ] || [ "$what" = sandbox ] || [ "$what" = tunnels ]; then
	make -C "$top/build" tests/sandbox/bench_broker >/dev/null
	# The policies beside the workspace: one inside it is refused.
	base=$(mktemp -d "${TMPDIR:-/tmp}/harn-bench.XXXXXX")
	ws=$base/ws
	mkdir "$ws"
	printf 'default deny\n' >"$base/p.conf"
	cp "$top/build/tests/sandbox/bench_broker" "$ws/bench_broker"
	cc -O1 -o "$ws/dockerish" "$top/tests/dockerish.c" -lseccomp
	egressd=${EGRESSD:-$top/build/harn-egressd}
	# A root caller's command runs as uid 65533 in landlock where that
	# uid can write the workspace: as in a real run, it can here.
	[ "$(id -u)" -eq 0 ] && chmod 711 "$base" "$ws" &&
	    chown 65533:65533 "$ws"
fi
if [ "$what" = all ] || [ "$what" = sandbox ]; then
	echo "== connect(): unconfined"
	(cd "$ws" && ./bench_broker 3000)
	for c in namespaces landlock; do
		echo "== connect(): confined, $c (every call through the connect broker)"
		(cd "$ws" && "$egressd" --policy "$base/p.conf" --confinement "$c" \
		    --workspace "$ws" -- ./bench_broker 3000 2>/dev/null)
	done
	echo "== connect(): confined, landlock in a default Docker container (no pidfd_getfd)"
	(cd "$ws" && ./dockerish -- "$egressd" --policy "$base/p.conf" \
	    --workspace "$ws" -- ./bench_broker 3000 2>/dev/null)
	if command -v hyperfine >/dev/null 2>&1; then
		echo "== a confined /bin/true, in each confinement, against an unconfined one"
		(cd "$ws" && hyperfine -N -w 5 -r 50 \
		    "$egressd --policy $base/p.conf --confinement namespaces -- /bin/true" \
		    "$egressd --policy $base/p.conf --confinement landlock -- /bin/true" \
		    "./dockerish -- $egressd --policy $base/p.conf -- /bin/true" \
		    "$egressd --policy $base/p.conf --no-sandbox -- /bin/true" \
		    2>&1 | grep -E 'Benchmark|Time')
	else
		echo "(hyperfine is not installed: apt-get install hyperfine)"
	fi
fi
# tunnel_cpu CONFINEMENT: µs of CPU per tunnel of harn-egressd and of the
# command's init (its broker), read before the command ends.
tunnel_cpu() {
	rm -f "$ws/tc.res" "$ws/tc.go"
	(cd "$ws" && exec "$egressd" --policy "$base/t.conf" --confinement "$1" \
	    --workspace "$ws" -- sh -c './loadgen --mode connect --proxy "${HTTP_PROXY#http://}" --target 127.0.0.1:18080 --target-ports 4 -c 20 -n 20000 -k 1 -q >tc.res 2>&1; while [ ! -e tc.go ]; do sleep 0.05; done' \
	    >/dev/null 2>&1) &
	tcp=$!
	n=0
	until grep -q '^RESULT' "$ws/tc.res" 2>/dev/null || [ $n -ge 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	tcs=$(pgrep -P "$tcp" | head -n 1)
	tci=$(pgrep -P "${tcs:-0}" | head -n 1)
	tcm=$(awk '{ print $14 + $15 }' "/proc/$tcp/stat" 2>/dev/null)
	tcb=$(awk '{ print $14 + $15 }' "/proc/${tci:-0}/stat" 2>/dev/null)
	touch "$ws/tc.go"
	wait "$tcp"
	tct=$(grep -o 'tunnels=[0-9]*' "$ws/tc.res" | cut -d= -f2)
	if [ -z "$tct" ] || [ "$tct" -eq 0 ] || [ -z "$tcm" ] || [ -z "$tcb" ]; then
		echo "no figure: $(head -c 200 "$ws/tc.res")"
		return
	fi
	hz=$(getconf CLK_TCK)
	echo "proxy $((tcm * 1000000 / hz / tct)) us  broker $((tcb * 1000000 / hz / tct)) us  ($tct tunnels)"
}

# loadgen's RESULT line, the figures that matter here.
result() {
	awk '/^RESULT / {
		for (i = 2; i <= NF; i++) {
			eq = index($i, "=")
			v[substr($i, 1, eq - 1)] = substr($i, eq + 1)
		}
		printf "%s tunnels/s  p50 %s ms  p99 %s ms  errors %s\n",
		    v["rps"], v["p50"], v["p99"], v["errors"]
	}'
}
if [ "$what" = all ] || [ "$what" = tunnels ]; then
	for p in nginx-light; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		    grep -q "install ok installed" ||
		    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		    --no-install-recommends "$p"
	done
	make -C "$top/build" bench/loadgen >/dev/null
	cp "$top/build/bench/loadgen" "$ws/loadgen"
	mkdir -p "$ws/www" "$ws/ngx"
	head -c 100 /dev/zero | tr '\0' x >"$ws/www/small"
	cat >"$ws/nginx.conf" <<NGX
daemon off;
worker_processes 1;
pid $ws/ngx/nginx.pid;
error_log $ws/ngx/error.log error;
events { worker_connections 8192; }
http {
    access_log off;
    client_body_temp_path $ws/ngx/body;
    proxy_temp_path $ws/ngx/proxy;
    fastcgi_temp_path $ws/ngx/fastcgi;
    uwsgi_temp_path $ws/ngx/uwsgi;
    scgi_temp_path $ws/ngx/scgi;
    server {
        listen 127.0.0.1:18080 backlog=4096; listen 127.0.0.1:18081 backlog=4096;
        listen 127.0.0.1:18082 backlog=4096; listen 127.0.0.1:18083 backlog=4096;
        root $ws/www;
        location / { }
    }
}
NGX
	nginx -p "$ws/ngx" -c "$ws/nginx.conf" &
	ngx=$!
	# Until its last port listens (10 s at most).
	n=0
	until ss -Hltn "sport = :18083" | grep -q . || [ $n -ge 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	printf 'allow_loopback on\nallow 127.0.0.1:18080 127.0.0.1:18081 127.0.0.1:18082 127.0.0.1:18083\nmax_connections 20000\n' \
	    >"$base/t.conf"
	dur=${DUR:-4}
	# The same blocking client everywhere (bench_broker tunnels), and
	# loadgen (epoll) where it can run: without pidfd_getfd a socket put in
	# an epoll set before connect() cannot be brokered (EOPNOTSUPP).
	bt='exec ./bench_broker tunnels 18080 16 '"$dur"
	lg='exec ./loadgen --mode connect --proxy "${HTTP_PROXY#http://}" -c 50 -d '"$dur"' --keepalive 1 --target-ports 4'
	echo "== new tunnels through the proxy, from a command inside (${dur}s each)"
	for c in namespaces landlock; do
		printf '%-40s ' "$c, 16 blocking threads"
		(cd "$ws" && "$egressd" --policy "$base/t.conf" --confinement "$c" \
		    --workspace "$ws" -- sh -c "$bt" 2>/dev/null)
	done
	printf '%-40s ' "landlock (Docker-like), 16 threads"
	(cd "$ws" && ./dockerish -- "$egressd" --policy "$base/t.conf" \
	    --workspace "$ws" -- sh -c "$bt" 2>/dev/null)
	for c in namespaces landlock; do
		printf '%-40s ' "$c, loadgen ka1 c=50"
		(cd "$ws" && "$egressd" --policy "$base/t.conf" --confinement "$c" \
		    --workspace "$ws" -- sh -c "$lg" 2>/dev/null | result)
	done
	# What each tunnel costs harn-egressd and the broker (CPU, from
	# /proc, while the command waits at its end): the figure that the
	# decision log's pid and exe add to (EGRESSD=path: another build).
	echo "== CPU per tunnel: the proxy and the broker (20000 tunnels, c=20)"
	for c in namespaces landlock; do
		printf '%-40s ' "$c"
		tunnel_cpu "$c"
	done
	kill "$ngx" 2>/dev/null
	wait "$ngx" 2>/dev/null
fi
[ -n "${base:-}" ] && rm -rf "$base"
[ "$what" = all ] || [ "$what" = peers ] || exit 0

# Peers not installed get a row that says so; nginx (the origin) is needed.
sh "$top/bench/run-peers.sh"
