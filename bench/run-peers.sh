#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The peer table: this build of harn-egressd side by side with tinyproxy,
# squid, dante and microsocks (Debian's packages) and with direct loopback,
# under the same load from bench/loadgen, against one nginx origin.  Loopback
# only.  Every process it starts (by PID) is stopped when it ends, also on
# Ctrl-C; its configs, origin files and logs live in a temporary directory
# that goes too.  A peer that is not installed gets a row that says so.
#
#   sh bench/run-peers.sh            (scripts/bench.sh peers builds, then this)
#
# Needs: apt-get install nginx-light tinyproxy squid dante-server microsocks
# (nginx is the origin and required; each of the others is optional).
#
# Knobs (environment, defaults in brackets):
#   REPS [3]          repetitions, interleaved; a cell is their median
#   DUR [4]           seconds per rate run
#   CONC [50]         connections in the closed loop
#   KA [100]          requests per connection in the keep-alive run
#   BULK_BYTES [104857600]  the bulk body (/big); BULK_N [3] bodies in turn
#   IDLE_N [1000]     idle connections held for the memory run; IDLE_HOLD [3] s
#   PEERS ["harn-egressd tinyproxy squid dante microsocks"]  rows, in order
#   PORT_BASE [18080] origin on PORT_BASE..+7; proxies on PORT_BASE+10..+14
#   SRC_IPS [1]       loadgen binds 127.0.0.1 .. 127.0.0.SRC_IPS
#   PIN [1]           proxy on CPU PROXY_CPU [1], loadgen and origin on
#                     LG_CPU [0] (taskset); PIN=0: no pinning
#   OUT               also write the table to this file
#   LOADGEN, EGRESSD  the binaries [build/bench/loadgen, build/harn-egressd]
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
LOADGEN=${LOADGEN:-$top/build/bench/loadgen}
EGRESSD=${EGRESSD:-$top/build/harn-egressd}
REPS=${REPS:-3}
DUR=${DUR:-4}
CONC=${CONC:-50}
KA=${KA:-100}
BULK_BYTES=${BULK_BYTES:-104857600}
BULK_N=${BULK_N:-3}
IDLE_N=${IDLE_N:-1000}
IDLE_HOLD=${IDLE_HOLD:-3}
PEERS=${PEERS:-"harn-egressd tinyproxy squid dante microsocks"}
PORT_BASE=${PORT_BASE:-18080}
SRC_IPS=${SRC_IPS:-1}
PIN=${PIN:-1}
LG_CPU=${LG_CPU:-0}
PROXY_CPU=${PROXY_CPU:-1}
OUT=${OUT:-}
ORIGIN_PORTS=8

log() {
	printf '[%s] %s\n' "$(date +%T)" "$*" >&2
}

die() {
	echo "run-peers.sh: $*" >&2
	exit 2
}

for b in "$LOADGEN" "$EGRESSD"; do
	[ -x "$b" ] || die "$b is not built: sh scripts/bootstrap.sh"
done

# ------------------------------------------------------------ processes

STARTED=""
TMPD=""

# alive PID: it exists and is not a zombie.
alive() {
	[ -r "/proc/$1/stat" ] || return 1
	! sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^[ZX]'
}

descendants() {
	for dk in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		echo "$dk"
		descendants "$dk"
	done
}

# stop PID: SIGTERM to it, SIGKILL to it and its children after 5 s.
stop() {
	sp_kids=$(descendants "$1")
	kill -TERM "$1" 2>/dev/null
	sp_n=0
	while alive "$1" && [ $sp_n -lt 50 ]; do
		sleep 0.1
		sp_n=$((sp_n + 1))
	done
	for sp in "$1" $sp_kids; do
		alive "$sp" && kill -KILL "$sp" 2>/dev/null
	done
	wait "$1" 2>/dev/null
	STARTED=$(echo "$STARTED" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
	return 0
}

cleanup() {
	trap - EXIT INT TERM
	for pid in $STARTED; do
		stop "$pid"
	done
	[ -n "$TMPD" ] && rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# wait_listen PORT PID: until PORT listens (10 s at most, while PID lives).
wait_listen() {
	wl_n=0
	while ! listening "$1"; do
		alive "$2" || return 1
		[ $wl_n -ge 100 ] && return 1
		sleep 0.1
		wl_n=$((wl_n + 1))
	done
	return 0
}

# find_bin NAME: the path of a peer's program, also in sbin for non-root.
find_bin() {
	command -v "$1" 2>/dev/null && return 0
	for fd in /usr/sbin /sbin /usr/local/sbin; do
		[ -x "$fd/$1" ] && echo "$fd/$1" && return 0
	done
	return 1
}

pkg_version() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo '?'
}

# ------------------------------------------------------------ set-up

NGINX=$(find_bin nginx) || die "nginx (the origin) is not installed:" \
    "apt-get install nginx-light tinyproxy squid dante-server microsocks"
command -v ss >/dev/null 2>&1 || die "ss is needed: apt-get install iproute2"
pin_lg="" pin_px=""
if [ "$PIN" = 1 ]; then
	if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
		pin_lg="taskset -c $LG_CPU"
		pin_px="taskset -c $PROXY_CPU"
	else
		log "not pinned: needs taskset and 2 CPUs"
		PIN=0
	fi
fi
last_origin=$((PORT_BASE + ORIGIN_PORTS - 1))
for p in $(seq "$PORT_BASE" "$last_origin"); do
	listening "$p" && die "port $p (the origin's) is in use: set PORT_BASE"
done
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null
root=0
[ "$(id -u)" -eq 0 ] && root=1

TMPD=$(mktemp -d "${TMPDIR:-/tmp}/harn-peers.XXXXXX") || exit 1
# Peers running as nobody or proxy read and write here.
chmod 755 "$TMPD"
mkdir "$TMPD/www" "$TMPD/logs" "$TMPD/ngx"
chmod 1777 "$TMPD/logs"
RESULTS=$TMPD/results
: >"$RESULTS"

{ head -c 99 /dev/zero | tr '\0' s; echo; } >"$TMPD/www/small"
head -c "$BULK_BYTES" /dev/zero >"$TMPD/www/big"
chmod 644 "$TMPD/www/small" "$TMPD/www/big"

listens=""
for p in $(seq "$PORT_BASE" "$last_origin"); do
	listens="$listens        listen 127.0.0.1:$p backlog=4096;
"
done
cat >"$TMPD/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes 1;
worker_rlimit_nofile 65536;
pid $TMPD/ngx/nginx.pid;
error_log $TMPD/logs/nginx.log error;
events { worker_connections 20000; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path $TMPD/ngx/body;
    proxy_temp_path $TMPD/ngx/proxy;
    fastcgi_temp_path $TMPD/ngx/fastcgi;
    uwsgi_temp_path $TMPD/ngx/uwsgi;
    scgi_temp_path $TMPD/ngx/scgi;
    server {
$listens        root $TMPD/www;
        location / { }
    }
}
EOF

# Each proxy: loopback clients, loopback origin, logging errors only
# (harn-egressd writes its decision log, as it does in service).
cat >"$TMPD/harn-egressd.conf" <<EOF
allow_loopback on
allow 127.0.0.1
max_connections 20000
EOF

{
	echo "Port $((PORT_BASE + 11))"
	echo "Listen 127.0.0.1"
	[ $root = 1 ] && echo "User nobody" && echo "Group nogroup"
	echo "Timeout 600"
	echo "MaxClients 20000"
	echo "LogLevel Error"
	echo "LogFile \"$TMPD/logs/tinyproxy.log\""
	echo "Allow 127.0.0.1"
	for p in $(seq "$PORT_BASE" "$last_origin"); do
		echo "ConnectPort $p"
	done
} >"$TMPD/tinyproxy.conf"

{
	echo "http_port 127.0.0.1:$((PORT_BASE + 12))"
	echo "pid_filename $TMPD/logs/squid.pid"
	[ $root = 1 ] && echo "cache_effective_user proxy"
	cat <<EOF
acl bench_dst dst 127.0.0.1
acl bench_ports port $PORT_BASE-$last_origin
http_access allow localhost bench_dst bench_ports
http_access deny all
cache deny all
cache_mem 8 MB
access_log none
cache_store_log none
cache_log $TMPD/logs/squid.log
debug_options ALL,0
logfile_rotate 0
max_filedescriptors 65536
coredump_dir $TMPD/logs
shutdown_lifetime 0 seconds
pinger_enable off
dns_nameservers 127.0.0.1
visible_hostname harn-bench.invalid
EOF
} >"$TMPD/squid.conf"

{
	echo "logoutput: $TMPD/logs/danted.log"
	echo "internal: 127.0.0.1 port = $((PORT_BASE + 13))"
	echo "external: 127.0.0.1"
	echo "clientmethod: none"
	echo "socksmethod: none"
	if [ $root = 1 ]; then
		echo "user.privileged: root"
		echo "user.unprivileged: nobody"
	fi
	cat <<EOF
client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }
socks pass { from: 127.0.0.0/8 to: 127.0.0.1/32 command: connect }
socks block { from: 0.0.0.0/0 to: 0.0.0.0/0 }
EOF
} >"$TMPD/danted.conf"

# ------------------------------------------------------------ peers

# peer_port PEER, peer_modes PEER, peer_pkg PEER, peer_bin PEER
peer_port() {
	case $1 in
	harn-egressd) echo $((PORT_BASE + 10)) ;;
	tinyproxy) echo $((PORT_BASE + 11)) ;;
	squid) echo $((PORT_BASE + 12)) ;;
	dante) echo $((PORT_BASE + 13)) ;;
	microsocks) echo $((PORT_BASE + 14)) ;;
	esac
}

peer_modes() {
	case $1 in
	harn-egressd) echo "connect forward socks5" ;;
	tinyproxy|squid) echo "connect forward" ;;
	dante|microsocks) echo "socks5" ;;
	esac
}

peer_pkg() {
	case $1 in
	dante) echo dante-server ;;
	*) echo "$1" ;;
	esac
}

peer_bin() {
	case $1 in
	harn-egressd) echo "$EGRESSD" ;;
	dante) find_bin danted ;;
	*) find_bin "$1" ;;
	esac
}

# start_peer PEER: sets PX_PID; 1 (logged) when it does not come up.
start_peer() {
	sp_port=$(peer_port "$1")
	sp_bin=$(peer_bin "$1")
	if listening "$sp_port"; then
		log "$1: port $sp_port is in use"
		return 1
	fi
	case $1 in
	harn-egressd)
		rm -f "$TMPD/logs/harn-egressd.log"
		$pin_px "$sp_bin" --policy "$TMPD/harn-egressd.conf" \
		    --listen "127.0.0.1:$sp_port" \
		    --log "$TMPD/logs/harn-egressd.log" \
		    >>"$TMPD/logs/harn-egressd.out" 2>&1 & ;;
	tinyproxy)
		$pin_px "$sp_bin" -d -c "$TMPD/tinyproxy.conf" \
		    >>"$TMPD/logs/tinyproxy.out" 2>&1 & ;;
	squid)
		$pin_px "$sp_bin" -N -f "$TMPD/squid.conf" \
		    >>"$TMPD/logs/squid.out" 2>&1 & ;;
	dante)
		$pin_px "$sp_bin" -f "$TMPD/danted.conf" \
		    -p "$TMPD/logs/danted.pid" \
		    >>"$TMPD/logs/danted.out" 2>&1 & ;;
	microsocks)
		$pin_px "$sp_bin" -i 127.0.0.1 -p "$sp_port" \
		    >>"$TMPD/logs/microsocks.out" 2>&1 & ;;
	esac
	PX_PID=$!
	STARTED="$STARTED $PX_PID"
	if ! wait_listen "$sp_port" "$PX_PID"; then
		log "$1 did not start: $(tail -n 3 "$TMPD/logs/$1.out" \
		    "$TMPD/logs/$1.log" 2>/dev/null | tr '\n' ' ')"
		stop "$PX_PID"
		return 1
	fi
	return 0
}

# record REP PEER MODE MEASURE WHAT...: a line of the results.
record() {
	rec_r=$1 rec_p=$2 rec_m=$3 rec_w=$4
	shift 4
	printf '%s\t%s\t%s\t%s\t%s\n' "$rec_r" "$rec_p" "$rec_m" "$rec_w" "$*" \
	    >>"$RESULTS"
}

# measure REP PEER MODE MEASURE LOADGEN-ARGS...
measure() {
	ms_r=$1 ms_p=$2 ms_m=$3 ms_w=$4
	shift 4
	ms_line=$($pin_lg "$LOADGEN" -q --mode "$ms_m" \
	    --target "127.0.0.1:$PORT_BASE" --target-ports "$ORIGIN_PORTS" \
	    --src-ips "$SRC_IPS" "$@" 2>>"$TMPD/logs/loadgen.err" |
	    grep '^RESULT ')
	if [ -z "$ms_line" ]; then
		log "  $ms_p $ms_m $ms_w: no result ($(tail -n 1 \
		    "$TMPD/logs/loadgen.err"))"
		return
	fi
	record "$ms_r" "$ms_p" "$ms_m" "$ms_w" "$ms_line"
	log "  $ms_p $ms_m $ms_w: $(echo "$ms_line" | tr ' ' '\n' |
	    grep -E '^(rps|body_mbps|rss_per_kib|alive|errors|pcpu)=' |
	    tr '\n' ' ')"
}

# run_all REP PEER MODE [PID]: the four measures; idle first, on a fresh
# process whose heap earlier load has not grown.  ra_px and ra_pidarg are
# an option and its value each, or empty: split on purpose.
# shellcheck disable=SC2086
run_all() {
	ra_r=$1 ra_p=$2 ra_m=$3 ra_pid=${4:-}
	ra_px="" ra_pidarg=""
	if [ "$ra_m" != direct ]; then
		ra_px="--proxy 127.0.0.1:$(peer_port "$ra_p")"
		ra_pidarg="--pid $ra_pid"
		measure "$ra_r" "$ra_p" "$ra_m" idle $ra_px $ra_pidarg \
		    --idle "$IDLE_N" --hold "$IDLE_HOLD"
	fi
	measure "$ra_r" "$ra_p" "$ra_m" ka1 $ra_px $ra_pidarg -c "$CONC" \
	    -d "$DUR" -k 1
	measure "$ra_r" "$ra_p" "$ra_m" kahigh $ra_px $ra_pidarg -c "$CONC" \
	    -d "$DUR" -k "$KA"
	measure "$ra_r" "$ra_p" "$ra_m" bulk $ra_px $ra_pidarg -c 1 \
	    -n "$BULK_N" --bulk "$BULK_BYTES"
}

# ------------------------------------------------------------ the runs

$pin_lg "$NGINX" -p "$TMPD/ngx" -c "$TMPD/nginx.conf" \
    >"$TMPD/logs/nginx.out" 2>&1 &
NGINX_PID=$!
STARTED="$STARTED $NGINX_PID"
wait_listen "$last_origin" "$NGINX_PID" || die "nginx did not start:" \
    "$(cat "$TMPD/logs/nginx.out" "$TMPD/logs/nginx.log" 2>/dev/null)"
cat "$TMPD/www/big" >/dev/null		# into the page cache

available=""
for peer in $PEERS; do
	if [ -z "$(peer_modes "$peer")" ]; then
		log "unknown peer $peer (PEERS: harn-egressd tinyproxy squid" \
		    "dante microsocks)"
		continue
	fi
	if ! peer_bin "$peer" >/dev/null; then
		for m in $(peer_modes "$peer"); do
			record 0 "$peer" "$m" missing "not installed" \
			    "(apt-get install $(peer_pkg "$peer"))"
		done
		continue
	fi
	available="$available $peer"
done

t_start=$(date +%s)
load_start=$(cut -d' ' -f1 /proc/loadavg)
for rep in $(seq 1 "$REPS"); do
	log "repetition $rep of $REPS"
	run_all "$rep" direct direct
	for peer in $available; do
		for m in $(peer_modes "$peer"); do
			if start_peer "$peer"; then
				log "$peer $m (pid $PX_PID)"
				run_all "$rep" "$peer" "$m" "$PX_PID"
				stop "$PX_PID"
			else
				record "$rep" "$peer" "$m" missing \
				    "did not start"
			fi
		done
	done
done
log "the runs took $(($(date +%s) - t_start)) s"
load_end=$(cut -d' ' -f1 /proc/loadavg)

# ------------------------------------------------------------ the table

versions=""
for peer in $available; do
	[ "$peer" = harn-egressd ] && continue
	versions="$versions $peer $(pkg_version "$(peer_pkg "$peer")"),"
done
ours=$("$EGRESSD" --version 2>/dev/null | head -n 1 | sed 's/^harn-egressd //')
ngx_version=$("$NGINX" -v 2>&1 | sed 's|.*nginx/||')
{
	echo "# harn-egressd $ours against its peers," \
	    "$(date -u +%Y-%m-%dT%H:%MZ); $(nproc) CPUs, Linux $(uname -r)"
	echo "# peers (Debian):${versions%,}; origin nginx $ngx_version on" \
	    "127.0.0.1:$PORT_BASE-$last_origin (/small: a 100-byte body)"
	if [ "$PIN" = 1 ]; then
		echo "# pinned: each proxy (all its threads and processes)" \
		    "on CPU $PROXY_CPU, loadgen and the origin on CPU $LG_CPU"
	else
		echo "# not pinned"
	fi
	echo "# closed loop, c=$CONC, ${DUR} s a run, $REPS repetitions" \
	    "interleaved; a cell: the median; spread: (max-min)/median"
	echo "# x best: to the best of the other proxies in that mode" \
	    "(harn-egressd is not one of them); x direct: to direct loopback"
	echo "# pcpu: the proxy's CPU, % of one core; harn-egressd writes its" \
	    "decision log to a file, the peers log errors only"
	echo "# load average (1 min) as the runs began and ended:" \
	    "$load_start, $load_end (other work widens the spread)"
	awk -F'\t' -v peers="$PEERS" -v ka="$KA" -v conc="$CONC" \
	    -v bulk="$BULK_BYTES" -v bulkn="$BULK_N" -v idlen="$IDLE_N" \
	    -v hold="$IDLE_HOLD" -f "$here/table.awk" "$RESULTS"
} >"$TMPD/table"
cat "$TMPD/table"
[ -n "$OUT" ] && cp "$TMPD/table" "$OUT"
exit 0
