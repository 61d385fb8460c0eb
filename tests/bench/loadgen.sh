#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench/loadgen counts what it sends and receives: held against an origin
# of the test's own (tests/bench/countd.py), which counts the other end, directly
# and through harn-egressd (CONNECT, SOCKS5, forwarding), each framing of a
# body, keep-alive 1 and N, a count and a duration, bulk, idle memory, and
# each kind of error it names.  Loopback only; no peer proxy is needed.
#
# Standalone:
#   top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/bench/loadgen.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

LG="$top_builddir/bench/loadgen"
COUNTD="$top_srcdir/tests/bench/countd.py"

# start_origin NAME: a counting origin; sets O_PID and O_PORT.
start_origin() {
	$PY "$COUNTD" --port-file "$TMP/$1.port" --stats "$TMP/$1.stats" \
	    >"$TMP/$1.oout" 2>&1 &
	O_PID=$!
	BG_PIDS="$BG_PIDS $O_PID"
	O_PORT=""
	if wait_file "$TMP/$1.port" 50 "$O_PID"; then
		O_PORT=$(head -n1 "$TMP/$1.port")
		return 0
	fi
	not_ok "$1: the origin starts" "$(head -c 400 "$TMP/$1.oout")"
	return 1
}

# stop_origin NAME: its counts, once its connections have ended, into
# $TMP/NAME.stats ("conns=C requests=R rx=B tx=B").
stop_origin() {
	kill -TERM "$O_PID" 2>/dev/null
	wait_file "$TMP/$1.stats" 150 "$O_PID" ||
	    not_ok "$1: the origin writes its counts" \
	    "$(head -c 400 "$TMP/$1.oout")"
}

# lg NAME ARGS...: loadgen, its output in $TMP/NAME.out.
lg() {
	lgname=$1
	shift
	timeout 120 "$LG" "$@" >"$TMP/$lgname.out" 2>&1
	lg_rc=$?
	grep '^RESULT ' "$TMP/$lgname.out" >"$TMP/$lgname.res"
}

# val NAME KEY: KEY's value in loadgen's RESULT (lg) or the origin's counts.
val() {
	tr ' ' '\n' <"$TMP/$1.res" 2>/dev/null | sed -n "s/^$2=//p" | head -n1
}
oval() {
	tr ' ' '\n' <"$TMP/$1.stats" 2>/dev/null | sed -n "s/^$2=//p"
}

# expect NAME WHAT GOT WANT: GOT = WANT (numbers).
expect() {
	if [ -n "$3" ] && [ "$3" = "$4" ]; then
		ok "$1: $2 = $4"
	else
		not_ok "$1: $2 = $4" "got '$3'" "$(head -c 1500 "$TMP/$1.out")"
	fi
}

# expect_clean NAME N: N requests, N responses, all ok, no error.
expect_clean() {
	expect "$1" "loadgen exit status" "$lg_rc" 0
	expect "$1" requests "$(val "$1" requests)" "$2"
	expect "$1" responses "$(val "$1" responses)" "$2"
	expect "$1" "ok responses" "$(val "$1" ok)" "$2"
	expect "$1" errors "$(val "$1" errors)" 0
}

# expect_bytes NAME: the client's bytes (less any proxy handshake) are
# what the origin received and sent.
expect_bytes() {
	expect "$1" "bytes sent, the origin's received" \
	    "$(($(val "$1" tx) - $(val "$1" hs_tx)))" "$(oval "$1" rx)"
	expect "$1" "bytes received, the origin's sent" \
	    "$(($(val "$1" rx) - $(val "$1" hs_rx)))" "$(oval "$1" tx)"
}

# direct NAME N LOADGEN-ARGS...: a run straight to a fresh origin.
direct() {
	dname=$1
	shift
	start_origin "$dname" || return 1
	lg "$dname" --target "127.0.0.1:$O_PORT" "$@"
	stop_origin "$dname"
}

# ------------------------------------------------------------ direct

# Content-Length, one request a connection.
direct dcl --path /cl/100 -n 1000 -c 4 -k 1
expect_clean dcl 1000
expect dcl "origin requests" "$(oval dcl requests)" 1000
expect dcl "origin connections" "$(oval dcl conns)" 1000
expect dcl connections "$(val dcl connects)" 1000
expect dcl "body bytes" "$(val dcl body)" 100000
expect_bytes dcl

# Chunked, 10 requests a connection.
direct dchunk --path /chunked/2500 -n 1000 -c 4 -k 10
expect_clean dchunk 1000
expect dchunk "origin requests" "$(oval dchunk requests)" 1000
expect dchunk "origin connections" "$(oval dchunk conns)" \
    "$(val dchunk connects)"
expect dchunk "body bytes" "$(val dchunk body)" 2500000
expect_bytes dchunk

# A body that ends with the connection.
direct deof --path /eof/300 -n 200 -c 2 -k 5
expect_clean deof 200
expect deof "body bytes" "$(val deof body)" 60000
expect deof "origin connections" "$(oval deof conns)" 200
expect_bytes deof

# A duration: whatever was sent was answered and counted at both ends.
direct ddur --path /cl/10 -d 1 -c 4 -k 5
expect ddur "loadgen exit status" "$lg_rc" 0
expect ddur errors "$(val ddur errors)" 0
expect ddur "origin requests" "$(oval ddur requests)" "$(val ddur requests)"
expect ddur responses "$(val ddur responses)" "$(val ddur requests)"
if [ "$(val ddur requests)" -gt 20 ] 2>/dev/null; then
	ok "ddur: more than 20 requests in 1 s"
else
	not_ok "ddur: more than 20 requests in 1 s" "$(cat "$TMP/ddur.out")"
fi
expect_bytes ddur

# Bulk: each body the length asked for, and its rate.
direct dbulk --bulk 4194304 --path /cl/4194304 -n 3
expect_clean dbulk 3
expect dbulk "body bytes" "$(val dbulk body)" 12582912
expect_bytes dbulk
case $(val dbulk body_mbps) in
''|0.0) not_ok "dbulk: a body rate" "$(cat "$TMP/dbulk.out")" ;;
*) ok "dbulk: a body rate ($(val dbulk body_mbps) MB/s)" ;;
esac

# ------------------------------------------------------------ errors

direct etrunc --path /trunc/300 -n 20 -c 2
expect etrunc responses "$(val etrunc responses)" 0
expect etrunc "failed requests" "$(val etrunc failed)" 20
expect etrunc "eof errors" "$(val etrunc err_eof)" 20
expect etrunc errors "$(val etrunc errors)" 20

direct estatus --path /status/503 -n 10 -c 2 -k 5
expect estatus responses "$(val estatus responses)" 10
expect estatus "ok responses" "$(val estatus ok)" 0
expect estatus "status errors" "$(val estatus err_status)" 10

direct ebody --bulk 1000 --path /cl/999 -n 2
expect ebody responses "$(val ebody responses)" 2
expect ebody "ok responses" "$(val ebody ok)" 0
expect ebody "body errors" "$(val ebody err_body)" 2

direct estall --path /stall/100 -n 2 -c 2 --timeout 0.3
expect estall "timeout errors" "$(val estall err_timeout)" 2
expect estall "failed requests" "$(val estall failed)" 2

direct enoclose --path /noclose/100 -n 2 -c 2 --timeout 0.3
expect enoclose "ok responses" "$(val enoclose ok)" 2
expect enoclose "noclose errors" "$(val enoclose err_noclose)" 2
expect enoclose "failed requests" "$(val enoclose failed)" 0

# Nothing listens: connect errors, every request failed.
$PY -S -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0));
print(s.getsockname()[1])' >"$TMP/free.port"
lg econn --target "127.0.0.1:$(cat "$TMP/free.port")" -n 5 -c 1
expect econn "connect errors" "$(val econn err_connect)" 5
expect econn "failed requests" "$(val econn failed)" 5

# ------------------------------------------------------------ harn-egressd

printf 'allow_loopback on\nallow 127.0.0.1\n' >"$TMP/p.conf"
"$EGRESSD" --policy "$TMP/p.conf" --listen 127.0.0.1:0 \
    --port-file "$TMP/px.port" --log "$TMP/px.log" >"$TMP/px.out" 2>&1 &
PX_PID=$!
BG_PIDS="$BG_PIDS $PX_PID"
if ! wait_file "$TMP/px.port" 50 "$PX_PID"; then
	not_ok "harn-egressd starts" "$(head -c 400 "$TMP/px.out")"
	finish
	exit
fi
PX="127.0.0.1:$(head -n1 "$TMP/px.port")"

# proxied NAME MODE N ARGS...: through harn-egressd to a fresh origin.
proxied() {
	pname=$1 pmode=$2 pn=$3
	shift 3
	direct "$pname" --mode "$pmode" --proxy "$PX" --path /cl/100 -n "$pn" \
	    -c 8 "$@"
	expect_clean "$pname" "$pn"
	expect "$pname" "origin requests" "$(oval "$pname" requests)" "$pn"
	expect "$pname" "body bytes" "$(val "$pname" body)" "$((pn * 100))"
}

for m in connect socks5; do
	for k in 1 10; do
		proxied "$m$k" "$m" 500 -k "$k"
		# A tunnel carries the bytes as they are.
		expect_bytes "$m$k"
		expect "$m$k" "tunnels, the origin's connections" \
		    "$(val "$m$k" tunnels)" "$(oval "$m$k" conns)"
	done
done
expect connect1 "tunnels" "$(val connect1 tunnels)" 500
proxied forward1 forward 500 -k 1
proxied forward10 forward 500 -k 10
# The proxy rewrites a forwarded head, so bytes differ: but not the count
# of connections it kept to the origin for one client connection.
expect forward10 connections "$(val forward10 connects)" \
    "$(oval forward10 conns)"

# Idle: each held, each answers the probe, and the proxy's memory read.
for m in connect socks5 forward; do
	direct "idle$m" --mode "$m" --proxy "$PX" --path /cl/100 --idle 40 \
	    --hold 0.2 --pid "$PX_PID"
	expect "idle$m" "loadgen exit status" "$lg_rc" 0
	expect "idle$m" established "$(val "idle$m" established)" 40
	expect "idle$m" "open after the hold" "$(val "idle$m" alive)" 40
	expect "idle$m" "answers to the probe" "$(val "idle$m" probe_ok)" 40
	expect "idle$m" "proxy processes" "$(val "idle$m" nprocs)" 1
	expect "idle$m" errors "$(val "idle$m" errors)" 0
	# forward: one request to set up, one to probe.
	expect "idle$m" "origin requests" "$(oval "idle$m" requests)" \
	    "$([ "$m" = forward ] && echo 80 || echo 40)"
	if [ "$(val "idle$m" rss_before)" -gt 0 ] 2>/dev/null; then
		per=$(val "idle$m" rss_per_kib)
		ok "idle$m: the proxy's RSS ($per KiB a connection)"
	else
		not_ok "idle$m: the proxy's RSS" "$(cat "$TMP/idle$m.out")"
	fi
done

# A refusal: a CONNECT the policy denies is a proxy error.
lg refused --mode connect --proxy "$PX" --target 127.0.0.2:80 -n 3 -c 1
expect refused "proxy errors" "$(val refused err_proxy)" 3
expect refused "failed requests" "$(val refused failed)" 3

# ------------------------------------------------------------ loopback only

# Refused before any socket exists.  Run where no other address could be
# reached even if that broke: a network namespace with no route.
if unshare -rn true 2>/dev/null; then
	for a in "--proxy 10.0.0.1:3128 --mode connect" \
	    "--target 192.0.2.1:80" "--proxy localhost:3128 --mode socks5"; do
		# shellcheck disable=SC2086
		unshare -rn "$LG" $a -n 1 >"$TMP/guard.out" 2>&1
		grc=$?
		if [ $grc -eq 2 ] &&
		    grep -q 'loopback\|IPv4' "$TMP/guard.out"; then
			ok "refuses $a"
		else
			not_ok "refuses $a" "exit $grc" \
			    "$(cat "$TMP/guard.out")"
		fi
	done
else
	why="unshare -rn (a network namespace) is not allowed here"
	skip "the loopback-only refusals: $why"
fi

finish
