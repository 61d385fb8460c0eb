#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Programs that ignore the proxy (SPEC 6.6): a TCP connect of the command
# to anything but the proxy and its own loopback servers is carried
# through the proxy and decided by the policy, and its name lookups are
# answered by harn-egressd (a DNS server of the test's own behind the
# proxy's resolver line, which must never hear of a refused name), in the landlock
# confinement (as the host lets us, and under tests/dockerish.c, a
# default Docker container: no pidfd_getfd, so the broker's fresh
# sockets) and in namespaces; as root and then as nobody.
#
# A non-blocking connect is a real one's (SPEC 6.6): EINPROGRESS at once,
# then writable (EPOLLOUT) when the proxy has decided, SO_ERROR 0 or
# ECONNREFUSED (transparent.py's strict client says each step).  That the
# socket is not writable before the decision is checked where the
# decision is held back for a known reason: the test's DNS server holds
# the answer for one name until the client, having looked, creates a
# file (dnsd.py's HOLD).  Nothing here waits a fixed time; what depends on
# time is said by the client and judged only within 150 ms of the connect
# (a decision slower than about 200 ms may leave the socket writable
# before it: then a refusal shows at the first recv or send).
#
# The origins are ours, on the host's loopback (a banner server, an HTTP
# answer, a TLS server).  Off loopback the command only tries addresses
# of TEST-NET-1 that no policy here admits: the proxy refuses them before
# any connect, so nothing leaves the machine even with a bug.  In landlock
# UDP questions name loopback addresses only (127.0.0.53, ::1, the test's
# DNS server), and those a resolver sends where /etc/resolv.conf says are
# asked in a network namespace of the test's own, where lo is all there is.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/transparent.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
set +e
EGRESSD=${HARN_EGRESSD:-$EGRESSD}
PASS=${HARN_TRANSPARENT_PASS:-auto}
H="$top_srcdir/tests/sandbox/transparent.py"
export LANG=C

# origin NAME: one of our origins, its port in $PORT.
origin() {
	$PY "$H" origin "$TMP/orig" "$1" >"$TMP/orig/$1.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	wait_file "$TMP/orig/$1.port" 100 $! || return 1
	PORT=$(cat "$TMP/orig/$1.port")
}

# tls_origin: openssl s_server with a certificate of the test's own.
tls_origin() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost \
	    -keyout "$TMP/orig/key.pem" -out "$TMP/orig/cert.pem" \
	    >/dev/null 2>&1 || return 1
	TPORT=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	(cd "$TMP/orig" && exec openssl s_server -quiet -www -accept \
	    "127.0.0.1:$TPORT" -cert cert.pem -key key.pem) \
	    >"$TMP/orig/tls.out" 2>&1 </dev/null &
	BG_PIDS="$BG_PIDS $!"
	tn=0
	while ! $PY -c "import socket; socket.create_connection(('127.0.0.1',$TPORT),1)" 2>/dev/null; do
		[ $tn -ge 100 ] && return 1
		sleep 0.1
		tn=$((tn + 1))
	done
}

# dns_server: the test's own DNS server behind the proxy's resolver line:
# app.test and bad.test are 127.0.0.1 there; every question in qlog.
dns_server() {
	printf 'app.test A 127.0.0.1\nbad.test A 127.0.0.1\n' >"$TMP/orig/zone"
	$PY "$top_srcdir/tests/dnsd.py" --zone "$TMP/orig/zone" \
	    --port-file "$TMP/orig/dns.port" --log "$TMP/orig/qlog" \
	    >"$TMP/orig/dnsd.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	wait_file "$TMP/orig/dns.port" 100 $! || return 1
	DNSPORT=$(cat "$TMP/orig/dns.port")
}

# names C LAUNCH NAME: lookups and connects by name inside (SPEC 6.6).
names() {
	nc=$1 nl=$2 n=$3
	POL=$TMP/policy/$n-names.conf
	printf 'resolver 127.0.0.1:%s\nallow_loopback on\nallow app.test:%s\n' \
	    "$DNSPORT" "$OPORT" >"$POL"
	run "$nc" "$nl" "$POL" "$O-getent.out" -- getent hosts app.test
	expect_grep "$n: getent hosts gives an allowed name an address of 198.18.0.0/15" \
	    "$O-getent.out" "^198\.1[89]\.[0-9]+\.[0-9]+ +app\.test$"
	run "$nc" "$nl" "$POL" "$O-getent-bad.out" -- getent hosts bad.test
	expect_rc "$n: getent hosts fails for a name no rule admits" 0 \
	    test ! -s "$O-getent-bad.out"
	expect_rc "$n: with one dns deny line for it" 0 test "$(grep -c \
	    '"protocol":"dns","host":"bad.test","port":0,"decision":"deny","reason":"no_allow_rule"' \
	    "$O-getent-bad.out.log")" -eq 1
	expect_no_grep "$n: and the test's DNS server was never asked for it" \
	    "$TMP/orig/qlog" "^bad\.test"
	run "$nc" "$nl" "$POL" "$O-byname.out" -- $PYIN -S \
	    "$DIR/transparent.py" client app.test "$OPORT" blocking
	expect_grep "$n: a raw socket to an allowed name and port reaches the origin" \
	    "$O-byname.out" "^ok 198\.1[89]\.[0-9.]+:$OPORT SSH-2.0-origin echo:ping$"
	expect_grep "$n: its line names the name, resolved and checked by the proxy" \
	    "$O-byname.out.log" "\"protocol\":\"transparent\",\"host\":\"app.test\",\"port\":$OPORT,\"decision\":\"allow\",\"reason\":\"allow_rule\",\"addr\":\"127.0.0.1\""
	expect_grep "$n: its close line names the name and counts 4 bytes out, 25 in" \
	    "$O-byname.out.log" "\"event\":\"close\",\"conn\":[0-9]+,\"protocol\":\"transparent\",\"host\":\"app.test\",\"port\":$OPORT,\"bytes_out\":4,\"bytes_in\":25,"
	run "$nc" "$nl" "$POL" "$O-byname-strict.out" -- $PYIN -S \
	    "$DIR/transparent.py" client app.test "$OPORT" strict
	strict_allowed "$n: by name" "$O-byname-strict.out"
	expect_grep "$n: by name, non-blocking: the origin's banner and echo end to end, getpeername the address asked" \
	    "$O-byname-strict.out" "^ok 198\.1[89]\.[0-9.]+:$OPORT SSH-2.0-origin echo:ping$"
	held "$nc" "$nl" "$n"
	run "$nc" "$nl" "$POL" "$O-curlname.out" -- curl -sS --noproxy '*' \
	    --max-time 20 "http://app.test:$OPORT/"
	expect_grep "$n: curl --noproxy '*' by name gets the origin's answer" \
	    "$O-curlname.out" "^hello from the origin$"
	run "$nc" "$nl" "$POL" "$O-urllib.out" -- $PYIN -S \
	    "$DIR/transparent.py" urllib "http://app.test:$OPORT/"
	expect_grep "$n: python's urllib with no proxy, by name, gets the origin's answer" \
	    "$O-urllib.out" "^hello from the origin$"
	if command -v node >/dev/null 2>&1; then
		run "$nc" "$nl" "$POL" "$O-nodename.out" -- node -e \
		    "fetch('http://app.test:$OPORT/').then(r => r.text()).then(t => process.stdout.write(t), e => { console.log('failed', e.cause ? e.cause.code : e); })"
		expect_grep "$n: node's fetch by name gets the origin's answer" \
		    "$O-nodename.out" "^hello from the origin$"
	else
		skip "$n: node is not installed"
	fi
	run "$nc" "$nl" "$POL" "$O-byname-bad.out" -- $PYIN -S \
	    "$DIR/transparent.py" client app.test "$DPORT" blocking
	expect_grep "$n: an allowed name on a port no rule admits is ECONNREFUSED" \
	    "$O-byname-bad.out" "^refused ECONNREFUSED$"
	expect_grep "$n: with a transparent deny line" "$O-byname-bad.out.log" \
	    "\"protocol\":\"transparent\",\"host\":\"app.test\",\"port\":$DPORT,\"decision\":\"deny\""
	# The proxy's own port, by a name the policy admits on every port:
	# never a way round (proxy_loop).
	printf 'resolver 127.0.0.1:%s\nallow_loopback on\nallow app.test\n' \
	    "$DNSPORT" >"$TMP/policy/$n-any.conf"
	run "$nc" "$nl" "$TMP/policy/$n-any.conf" "$O-loop.out" -- $PYIN -S \
	    "$DIR/transparent.py" client app.test proxy blocking
	expect_grep "$n: the proxy's own port through a name it admits is ECONNREFUSED" \
	    "$O-loop.out" "^refused ECONNREFUSED$"
	expect_grep "$n: with a proxy_loop line" "$O-loop.out.log" \
	    "\"protocol\":\"transparent\",\"host\":\"app.test\".*\"decision\":\"deny\",\"reason\":\"proxy_loop\""
}

# held C LAUNCH NAME: decisions held back (SPEC 6.6): the test's DNS
# server holds its answer for held-NAME.test (127.0.0.1) and
# heldno-NAME.test (NXDOMAIN) until the strict client, having looked at
# its socket right after the connect, creates the file the hold waits for
# (dnsd.py answers anyway 2 s after the question).  The proxy resolves
# each name when it decides (a run of its own each time: nothing cached).
held() {
	nc=$1 nl=$2 n=$3
	rm -f "$DIR/release-ok" "$DIR/release-no"
	{
		cat "$TMP/orig/zone"
		printf 'held-%s.test A 127.0.0.1\nheld-%s.test HOLD %s\n' \
		    "$n" "$n" "$DIR/release-ok"
		printf 'heldno-%s.test NXDOMAIN\nheldno-%s.test HOLD %s\n' \
		    "$n" "$n" "$DIR/release-no"
	} >"$TMP/orig/zone.tmp" && mv "$TMP/orig/zone.tmp" "$TMP/orig/zone"
	HPOL=$TMP/policy/$n-held.conf
	printf 'resolver 127.0.0.1:%s\nallow_loopback on\nallow held-%s.test:%s\nallow heldno-%s.test:%s\n' \
	    "$DNSPORT" "$n" "$OPORT" "$n" "$OPORT" >"$HPOL"
	run "$nc" "$nl" "$HPOL" "$O-held.out" -- $PYIN -S \
	    "$DIR/transparent.py" client "held-$n.test" "$OPORT" \
	    "strict:$DIR/release-ok"
	expect_grep "$n: held: the proxy asked the test's DNS server (its answer held)" \
	    "$TMP/orig/qlog" "^held-$n\.test A$"
	strict_allowed "$n: held, allowed" "$O-held.out"
	strict_held "$n: held, allowed" "$O-held.out"
	expect_grep "$n: held, allowed, non-blocking: then the origin's banner and echo end to end" \
	    "$O-held.out" "^ok 198\.1[89]\.[0-9.]+:$OPORT SSH-2.0-origin echo:ping$"
	expect_grep "$n: held, allowed: its line says transparent, allow, the address the held answer gave" \
	    "$O-held.out.log" "\"protocol\":\"transparent\",\"host\":\"held-$n.test\",\"port\":$OPORT,\"decision\":\"allow\",\"reason\":\"allow_rule\",\"addr\":\"127.0.0.1\""
	run "$nc" "$nl" "$HPOL" "$O-heldno.out" -- $PYIN -S \
	    "$DIR/transparent.py" client "heldno-$n.test" "$OPORT" \
	    "strict:$DIR/release-no"
	expect_grep "$n: held, refused: the proxy asked the test's DNS server (its answer held)" \
	    "$TMP/orig/qlog" "^heldno-$n\.test A$"
	strict_refused "$n: held, refused" "$O-heldno.out"
	strict_held "$n: held, refused" "$O-heldno.out"
	expect_grep "$n: held, refused: ECONNREFUSED" "$O-heldno.out" \
	    "$(refused_re "$O-heldno.out")"
	expect_grep "$n: held, refused: its line says transparent, deny" \
	    "$O-heldno.out.log" "\"protocol\":\"transparent\",\"host\":\"heldno-$n.test\",\"port\":$OPORT,\"decision\":\"deny\""
}

# ws NAME: a fresh workspace with the helper and the CA in it.
ws() {
	DIR=$TMP/ws-$1
	rm -rf "$DIR"
	mkdir -p "$DIR"
	cp "$H" "$DIR/transparent.py"
	cp "$TMP/orig/cert.pem" "$DIR/ca.pem" 2>/dev/null
	mkdir -p "$TMP/runs"
	O=$TMP/runs/$1
	chmod 777 "$DIR"
	chmod 644 "$DIR"/*
}

# run C LAUNCH POLICY OUT -- ARGS: ARGS confined (C: landlock or
# namespaces), its output in OUT, its log in OUT.log (outside the
# workspace: the log may not lie where the command writes).
run() {
	rc=$1 rl=$2 rp=$3 ro=$4
	shift 5
	# shellcheck disable=SC2086
	$rl "$EGRESSD" --quiet --policy "$rp" --workspace "$DIR" \
	    --log "$ro.log" --confinement "$rc" -- "$@" >"$ro" 2>"$ro.err" ||
	    true	# what it says is checked, not its status (expect_rc's set -e)
}

seen() {
	grep -c '' "$TMP/orig/$1.seen" 2>/dev/null || echo 0
}

# flat OUT: OUT's lines on one (for a check of several in their order).
flat() {
	tr '\n' ' ' <"$1" >"$1.flat"
}

# refused_re OUT: what a refused client ends with.  transparent.py's
# strict client whose answer came 150 ms or more after its connect (its
# "late" line) may have found its socket writable first (SO_ERROR 0), and
# been refused at its first recv, by a reset (harn-egressd(8)).
refused_re() {
	if grep -q '^late ' "$1" 2>/dev/null; then
		echo '^refused ECONNRE(FUSED|SET)( at recv)?$'
	else
		echo '^refused ECONNREFUSED$'
	fi
}

# strict_allowed N OUT: a strict client's connect, allowed (SPEC 6.6).
strict_allowed() {
	expect_grep "$1: non-blocking: connect() returns EINPROGRESS at once" \
	    "$2" "^connect EINPROGRESS$"
	expect_grep "$1: non-blocking: then EPOLLOUT alone (no EPOLLERR, no EPOLLHUP) within 20 s, SO_ERROR 0" \
	    "$2" "^event OUT so_error 0$"
}

# strict_refused N OUT: a strict client's connect, refused (SPEC 6.6).
strict_refused() {
	expect_grep "$1: non-blocking: connect() returns EINPROGRESS at once" \
	    "$2" "^connect EINPROGRESS$"
	if grep -q '^late ' "$2"; then
		skip "$1: non-blocking: then EPOLLOUT with EPOLLERR, SO_ERROR ECONNREFUSED: not judged, the event came $(sed -n 's/^late //p' "$2") ms after the connect (150 ms or more: the socket may be writable before a refusal)"
		return
	fi
	expect_grep "$1: non-blocking: then EPOLLOUT with EPOLLERR within 20 s, SO_ERROR ECONNREFUSED" \
	    "$2" "^event OUT\|ERR(\|HUP)? so_error ECONNREFUSED$"
}

# strict_held N OUT: the strict client looked at once, while the test's
# DNS server held the answer the proxy's decision waits for.
strict_held() {
	if grep -q '^before unchecked ' "$2"; then
		skip "$1: non-blocking: not writable before the decision: not judged, the client looked $(sed -n 's/^before unchecked //p' "$2") after the connect (150 ms or more)"
		return
	fi
	expect_grep "$1: non-blocking: not writable (no EPOLLOUT, EPOLLERR or EPOLLHUP) while the decision waits for a held DNS answer" \
	    "$2" "^before not-writable$"
}

# holding N CONF LAUNCH POL: a held connect attacked (SPEC 6.6).  A
# program that writes before its connect is done has its bytes reach the
# allowed origin after the decision, whole and after nothing of ours; a
# client of the proxy offering the broker's method is never held.
# In namespaces, 127.0.0.1 is the command's own: the origin is not
# reached there (names() reaches it by name).
holding() {
	if [ "$2" != namespaces ]; then
		run "$2" "$3" "$4" "$O-early.out" -- $PYIN -S \
		    "$DIR/transparent.py" early 127.0.0.1 "$OPORT"
		expect_grep "$1: bytes written before the decision reach the allowed origin after it, nothing of the broker's before them" \
		    "$O-early.out" "^ok 127.0.0.1:$OPORT echo:ping$"
	fi
	run "$2" "$3" "$4" "$O-holdask.out" -- $PYIN -S "$DIR/transparent.py" \
	    holdask
	expect_grep "$1: a client of the proxy offering the broker's method X'8A' is not held (FF alone, 00 with no-auth)" \
	    "$O-holdask.out" "^holdask FF 00$"
}

# strict_control: unconfined, the strict client says what a real
# non-blocking connect does (to the allowed origin, to a free port).
strict_control() {
	$PY "$H" client 127.0.0.1 "$OPORT" strict >"$TMP/strict-control.out" 2>&1
	flat "$TMP/strict-control.out"
	expect_grep "control: unconfined, the strict client: EINPROGRESS, EPOLLOUT alone, SO_ERROR 0, the origin's banner and echo" \
	    "$TMP/strict-control.out.flat" "^connect EINPROGRESS before [^ ]+( [^ ]+)? event OUT so_error 0 (late [0-9]+ )?ok 127.0.0.1:$OPORT SSH-2.0-origin echo:ping $"
	$PY "$H" client 127.0.0.1 "$FREEPORT" strict >"$TMP/strict-control-free.out" 2>&1
	flat "$TMP/strict-control-free.out"
	expect_grep "control: unconfined, the strict client to a free port: EINPROGRESS, EPOLLOUT with EPOLLERR, SO_ERROR ECONNREFUSED" \
	    "$TMP/strict-control-free.out.flat" "^connect EINPROGRESS before [^ ]+( [^ ]+)? event OUT\|ERR(\|HUP)? so_error ECONNREFUSED (late [0-9]+ )?refused ECONNREFUSED $"
}


# standins N LAUNCH: UDP in the landlock confinement (SPEC 6.6).  The
# command never holds a UDP socket there: each is a stand-in whose only
# peer is the run's answerer, and the broker makes it look like UDP (in
# a default container, without pidfd_getfd, on a reference it holds).  Its
# questions go to 127.0.0.53:53 (a loopback address: even a bug that let
# a datagram out would reach nothing but this host); the refused ones to
# the test's own DNS server, which answers whoever reaches it.
standins() {
	n=$1 l=$2
	P=$TMP/policy/$n-udp.conf
	printf 'resolver 127.0.0.1:%s\nallow_loopback on\nallow app.test:%s\n' \
	    "$DNSPORT" "$OPORT" >"$P"
	for how in connect sendto read dup nonblock blocking; do
		run landlock "$l" "$P" "$O-udp-$how.out" -- $PYIN -S \
		    "$DIR/transparent.py" udp 127.0.0.53 53 app.test "$how"
		expect_grep "$n: UDP ($how) to 127.0.0.53:53 is answered by the run, from 127.0.0.53:53, with an address of the range" \
		    "$O-udp-$how.out" "^answer 127.0.0.53:53 0 198\.1[89]\.[0-9]+\.[0-9]+$"
	done
	if [ -e /proc/net/if_inet6 ]; then
		run landlock "$l" "$P" "$O-udp6.out" -- $PYIN -S \
		    "$DIR/transparent.py" udp ::1 53 app.test connect
		expect_grep "$n: UDP over IPv6 to [::1]:53 is answered from ::1:53" \
		    "$O-udp6.out" "^answer ::1:53 0 198\.1[89]\.[0-9]+\.[0-9]+$"
	else
		skip "$n: UDP over IPv6: no IPv6 here"
	fi
	# More stand-ins than are kept at once, one after the other: each
	# closed one is let go (by the broker, and by the answerer).
	run landlock "$l" "$P" "$O-udp-many.out" -- $PYIN -S \
	    "$DIR/transparent.py" udpmany 127.0.0.53 53 app.test 400
	expect_grep "$n: 400 sockets one after the other: every one answered" \
	    "$O-udp-many.out" "^answered 400 of 400$"
	run landlock "$l" "$P" "$O-udp-bad.out" -- $PYIN -S \
	    "$DIR/transparent.py" udp 127.0.0.53 53 udp-bad.test sendto
	expect_grep "$n: a name no rule admits is NXDOMAIN over UDP" \
	    "$O-udp-bad.out" "^answer 127.0.0.53:53 3$"
	expect_grep "$n: with one dns deny line (no pid: a datagram has no owner)" \
	    "$O-udp-bad.out.log" '"protocol":"dns","host":"udp-bad.test","port":0,"decision":"deny","reason":"no_allow_rule","run":"[0-9a-f]*"}$'
	run landlock "$l" "$P" "$O-udp-timeout.out" -- $PYIN -S \
	    "$DIR/transparent.py" udp 127.0.0.53 53 app.test timeout
	expect_grep "$n: a blocking recvfrom with nothing to come ends at its SO_RCVTIMEO (EAGAIN)" \
	    "$O-udp-timeout.out" "^failed EAGAIN$"
	# Not DNS: the test's DNS server's own port, which the control
	# reached.  Refused and said, whatever names the address.
	for how in sendto connect dup; do
		run landlock "$l" "$P" "$O-udpx-$how.out" -- $PYIN -S \
		    "$DIR/transparent.py" udp 127.0.0.1 "$DNSPORT" \
		    "udp-$n-$how.test" "$how"
		expect_grep "$n: UDP ($how) to a loopback port that is not 53 is refused EACCES" \
		    "$O-udpx-$how.out" "^failed EACCES$"
		expect_grep "$n: with a direct not_through_proxy line, pid and exe" \
		    "$O-udpx-$how.out.log" "\"protocol\":\"direct\",\"host\":\"\",\"port\":$DNSPORT,\"decision\":\"deny\",\"reason\":\"not_through_proxy\",\"addr\":\"127.0.0.1\".*\"pid\":[0-9]+,\"exe\":\"/"
	done
	# A real UDP socket handed in (standard input, bash's /dev/udp): its
	# sendto() may not go where it likes.  The control sends unconfined.
	bash -c 'p=$1; shift; exec "$@" 0</dev/udp/127.0.0.1/"$p"' sh \
	    "$DNSPORT" $PY "$H" udp 127.0.0.1 "$DNSPORT" "udp-control-$n-stdin.test" \
	    stdin >"$O-stdin-control.out" 2>&1 || true
	expect_grep "$n: control: unconfined, a UDP socket given as stdin reaches the test's DNS server" \
	    "$TMP/orig/qlog" "^udp-control-$n-stdin\.test"
	# shellcheck disable=SC2086
	bash -c 'p=$1; shift; exec "$@" 0</dev/udp/127.0.0.1/"$p"' sh \
	    "$DNSPORT" $l "$EGRESSD" --quiet --policy "$P" --workspace "$DIR" \
	    --log "$O-stdin.out.log" --confinement landlock -- $PYIN -S \
	    "$DIR/transparent.py" udp 127.0.0.1 "$DNSPORT" \
	    "udp-$n-stdin.test" stdin >"$O-stdin.out" 2>&1 || true
	expect_grep "$n: a UDP socket given as stdin may not sendto (EPERM)" \
	    "$O-stdin.out" "^failed EPERM$"
	expect_grep "$n: with a direct not_through_proxy line" \
	    "$O-stdin.out.log" "\"protocol\":\"direct\",\"host\":\"\",\"port\":$DNSPORT,\"decision\":\"deny\",\"reason\":\"not_through_proxy\""
	# sendmsg names its address where no filter can read it: the
	# stand-in's only peer is the run's answerer, which answers (this
	# name no rule admits: NXDOMAIN); the address named hears nothing.
	run landlock "$l" "$P" "$O-udpx-sendmsg.out" -- $PYIN -S \
	    "$DIR/transparent.py" udp 127.0.0.1 "$DNSPORT" \
	    "udp-$n-sendmsg.test" sendmsg
	expect_grep "$n: sendmsg to another address: the run's answerer answers (NXDOMAIN)" \
	    "$O-udpx-sendmsg.out" "^answer - 3$"
	expect_no_grep "$n: the test's DNS server heard none of them" \
	    "$TMP/orig/qlog" "^udp-$n-"
	resolvers "$n" "$P" "$l"
}

# resolvers N POLICY LAUNCH: glibc (without use-vc) and musl over UDP to the
# server /etc/resolv.conf names, in a network and mount namespace of the
# test's own: lo alone (nothing could leave, even by a bug) and a
# resolv.conf naming 127.0.0.53 bound over the host's, in that namespace
# only.  Root's: the namespaces need CAP_SYS_ADMIN.
resolvers() {
	if [ "$(id -u)" -ne 0 ]; then
		skip "$1: glibc and musl over UDP: the test's own resolv.conf needs a mount namespace (root's pass)"
		return
	fi
	cc -O1 -o "$DIR/lookup-glibc" "$top_srcdir/tests/sandbox/lookup.c" \
	    2>"$TMP/cc-lookup.err" || { not_ok "lookup.c builds" \
	    "$(head -c 300 "$TMP/cc-lookup.err")"; return; }
	libs=glibc
	if command -v musl-gcc >/dev/null 2>&1 && musl-gcc -static -O1 \
	    -o "$DIR/lookup-musl" "$top_srcdir/tests/sandbox/lookup.c" \
	    2>>"$TMP/cc-lookup.err"; then
		libs="glibc musl"
	else
		skip "$1: musl over UDP: musl-gcc (Debian's musl-tools) is not here"
	fi
	printf 'nameserver 127.0.0.53\noptions timeout:2 attempts:2\n' \
	    >"$TMP/resolv.conf"
	for lib in $libs; do
		for name in app.test bad.test; do
			out=$O-lookup-$lib-$name.out
			# shellcheck disable=SC2086
			unshare -n -m sh -c 'ip link set lo up &&
			    mount --bind "$1" /etc/resolv.conf && shift &&
			    exec "$@"' sh "$TMP/resolv.conf" $3 "$EGRESSD" --quiet \
			    --policy "$2" --workspace "$DIR" --log "$out.log" \
			    --confinement landlock -- env -u RES_OPTIONS \
			    "./lookup-$lib" "$name" >"$out" 2>"$out.err" ||
			    true	# what it says is checked (expect_rc's set -e)
		done
		expect_grep "$1: $lib over UDP (no use-vc) gives an allowed name an address of the range" \
		    "$O-lookup-$lib-app.test.out" "^app\.test 198\.1[89]\.[0-9]+\.[0-9]+$"
		expect_grep "$1: $lib over UDP: a name no rule admits fails" \
		    "$O-lookup-$lib-bad.test.out" "^failed "
		expect_grep "$1: $lib over UDP: with a dns deny line" \
		    "$O-lookup-$lib-bad.test.out.log" '"protocol":"dns","host":"bad.test","port":0,"decision":"deny"'
	done
}

# landlockish NAME LAUNCH: the landlock confinement, as the host lets us
# or in a default container.
landlockish() {
	n=$1 l=$2
	ws "$n"
	POL=$TMP/policy/$n.conf
	printf 'default deny\nallow_loopback on\nallow 127.0.0.1:%s\nallow 127.0.0.1:%s\n' \
	    "$OPORT" "$TPORT" >"$POL"
	for mode in blocking epoll strict; do
		run landlock "$l" "$POL" "$O-$mode.out" -- $PYIN -S \
		    "$DIR/transparent.py" client 127.0.0.1 "$OPORT" "$mode"
		[ "$mode" = strict ] &&
		    strict_allowed "$n: an allowed origin" "$O-$mode.out"
		expect_grep "$n: a $mode raw socket reaches an allowed origin, its banner and echo end to end, getpeername the origin" \
		    "$O-$mode.out" "^ok 127.0.0.1:$OPORT SSH-2.0-origin echo:ping$"
		expect_grep "$n: its line says transparent, allow, the port, pid and exe" \
		    "$O-$mode.out.log" "\"protocol\":\"transparent\",\"host\":\"127.0.0.1\",\"port\":$OPORT,\"decision\":\"allow\",\"reason\":\"allow_rule\".*\"pid\":[0-9]+,\"exe\":\"/"
		# The origin's banner (16 bytes) and echo (9), the client's
		# ping (4): SPEC 5's close line counts exactly these.
		cn=$(sed -n 's/.*"decision":"allow".*"conn":\([0-9]*\).*/\1/p' \
		    "$O-$mode.out.log" | head -n1)
		expect_grep "$n: its close line: the same conn, 4 bytes out, 25 in, run and pid" \
		    "$O-$mode.out.log" "^\\{\"ts\":\"[^\"]+\",\"event\":\"close\",\"conn\":${cn:-none},\"protocol\":\"transparent\",\"host\":\"127.0.0.1\",\"port\":$OPORT,\"bytes_out\":4,\"bytes_in\":25,\"ms\":[0-9]+,\"run\":\"[^\"]+\",\"pid\":[0-9]+\\}$"
	done
	run landlock "$l" "$POL" "$O-tls.out" -- $PYIN -S \
	    "$DIR/transparent.py" client 127.0.0.1 "$TPORT" "tls:$DIR/ca.pem"
	expect_grep "$n: a TLS handshake with an allowed origin completes end to end" \
	    "$O-tls.out" "^ok 127.0.0.1:$TPORT tls TLSv1.[23] HTTP/1.0_200_ok"
	run landlock "$l" "$POL" "$O-curl.out" -- curl -sS --noproxy '*' \
	    --max-time 20 "http://127.0.0.1:$OPORT/"
	expect_grep "$n: curl --noproxy '*' gets the origin's answer" \
	    "$O-curl.out" "^hello from the origin$"
	if command -v node >/dev/null 2>&1; then
		run landlock "$l" "$POL" "$O-node.out" -- env -u HTTP_PROXY \
		    -u http_proxy -u HTTPS_PROXY -u https_proxy -u ALL_PROXY \
		    -u all_proxy node -e "fetch('http://127.0.0.1:$OPORT/').then(r => r.text()).then(t => process.stdout.write(t), e => { console.log('failed', e.cause ? e.cause.code : e); })"
		expect_grep "$n: node's fetch without the proxy variables gets the origin's answer" \
		    "$O-node.out" "^hello from the origin$"
	else
		skip "$n: node is not installed"
	fi
	# The control: unconfined, the origin the policy names nowhere is
	# reached; confined, refused before it sees a connection.
	$PY "$H" client 127.0.0.1 "$DPORT" blocking >"$O-control.out" 2>&1
	expect_grep "$n: control: unconfined, the unlisted origin is reached" \
	    "$O-control.out" "^ok 127.0.0.1:$DPORT "
	before=$(seen denied)
	for mode in blocking epoll strict; do
		run landlock "$l" "$POL" "$O-deny-$mode.out" -- $PYIN -S \
		    "$DIR/transparent.py" client 127.0.0.1 "$DPORT" "$mode"
		[ "$mode" = strict ] &&
		    strict_refused "$n: no rule admits" "$O-deny-$mode.out"
		expect_grep "$n: a $mode connect to an origin no rule admits is ECONNREFUSED" \
		    "$O-deny-$mode.out" "$(refused_re "$O-deny-$mode.out")"
		expect_grep "$n: and its line says transparent, deny, no_allow_rule" \
		    "$O-deny-$mode.out.log" "\"protocol\":\"transparent\",\"host\":\"127.0.0.1\",\"port\":$DPORT,\"decision\":\"deny\",\"reason\":\"no_allow_rule\""
	done
	# Written before the decision (TCP_NODELAY sends the held byte):
	# it waits in the proxy, never reaches a refused origin.
	run landlock "$l" "$POL" "$O-deny-early.out" -- $PYIN -S \
	    "$DIR/transparent.py" early 127.0.0.1 "$DPORT"
	expect_grep "$n: bytes written before a refusal: the connect is refused" \
	    "$O-deny-early.out" "^refused (ECONNREFUSED|ECONNRESET|EPIPE)$"
	expect_rc "$n: the refused origin saw no connection of the run" 0 \
	    test "$(seen denied)" -eq "$before"
	holding "$n" landlock "$l" "$POL"
	# Report mode lets it through, and says what enforcing would do.
	printf 'mode report\nallow_loopback on\n' >"$TMP/policy/$n-report.conf"
	run landlock "$l" "$TMP/policy/$n-report.conf" "$O-report.out" -- \
	    $PYIN -S "$DIR/transparent.py" client 127.0.0.1 "$DPORT" blocking
	expect_grep "$n: report mode lets a transparent connect through" \
	    "$O-report.out" "^ok 127.0.0.1:$DPORT SSH-2.0-origin"
	expect_grep "$n: with report_only and would" "$O-report.out.log" \
	    "\"protocol\":\"transparent\".*\"reason\":\"report_only\",\"would\":\"no_allow_rule\""
	# A loopback port nobody listens on: ECONNREFUSED, as the kernel says.
	run landlock "$l" "$POL" "$O-none.out" -- $PYIN -S \
	    "$DIR/transparent.py" client 127.0.0.1 "$FREEPORT" blocking
	expect_grep "$n: a loopback port nobody listens on is ECONNREFUSED" \
	    "$O-none.out" "^refused ECONNREFUSED$"
	expect_no_grep "$n: and not logged" "$O-none.out.log" "\"port\":$FREEPORT,"
	names landlock "$l" "$n"
	# The control: unconfined, a UDP question reaches the test's own DNS
	# server (on loopback, not port 53), which answers it.
	expect_grep "$n: control: unconfined, a UDP question reaches the test's DNS server" \
	    "$TMP/udp-control.out" "^answer 127.0.0.1:$DNSPORT [0-9]"
	expect_grep "$n: control: which heard it" "$TMP/orig/qlog" \
	    "^udp-control\.test"
	standins "$n" "$l"
	# transparent off: the refusal of 6.1 (EACCES, a direct line).
	printf 'transparent off\nallow_loopback on\nallow 127.0.0.1:%s\n' \
	    "$DPORT" >"$TMP/policy/$n-off.conf"
	run landlock "$l" "$TMP/policy/$n-off.conf" "$O-off.out" -- $PYIN -S \
	    "$DIR/transparent.py" client 127.0.0.1 "$DPORT" blocking
	expect_grep "$n: transparent off: a connect elsewhere is refused EACCES" \
	    "$O-off.out" "^refused EACCES$"
	expect_grep "$n: with a direct not_through_proxy line" "$O-off.out.log" \
	    "\"protocol\":\"direct\".*\"reason\":\"not_through_proxy\""
	run landlock "$l" "$TMP/policy/$n-off.conf" "$O-off-udp.out" -- \
	    $PYIN -S "$DIR/transparent.py" udp 127.0.0.53 53 app.test sendto
	expect_grep "$n: transparent off: no stand-ins, a UDP socket is refused" \
	    "$O-off-udp.out" "^failed EPERM$"
}

# udp_names: in namespaces, a resolver's datagrams to whichever server
# (the host's resolv.conf, a loopback cache, an address of its own) are
# answered by harn-egressd, from the address asked (SPEC 6.6).  The
# namespace has no way out: 192.0.2.1 and 2001:db8::1 exist only there.
udp_names() {
	POL=$TMP/policy/ns-udp.conf
	printf 'resolver 127.0.0.1:%s\nallow_loopback on\nallow app.test:%s\n' \
	    "$DNSPORT" "$OPORT" >"$POL"
	run namespaces "" "$POL" "$O-udp-getent.out" -- env -u RES_OPTIONS \
	    getent hosts app.test
	expect_grep "namespaces: glibc over UDP to the host's resolv.conf server: an address of the range" \
	    "$O-udp-getent.out" "^198\.1[89]\.[0-9]+\.[0-9]+ +app\.test$"
	servers="127.0.0.53 192.0.2.1"
	[ -e /proc/net/if_inet6 ] && servers="$servers ::1 2001:db8::1"
	for srv in $servers; do
		for how in connect sendto; do
			run namespaces "" "$POL" "$O-udp-$how.out" -- $PYIN -S \
			    "$DIR/transparent.py" udp "$srv" 53 app.test "$how"
			expect_grep "namespaces: UDP ($how) to $srv:53 is answered from $srv:53 with an address of the range" \
			    "$O-udp-$how.out" "^answer $srv:53 0 198\.1[89]\.[0-9]+\.[0-9]+$"
		done
	done
	run namespaces "" "$POL" "$O-udp-bad.out" -- $PYIN -S \
	    "$DIR/transparent.py" udp 192.0.2.1 53 udp-bad.test sendto
	expect_grep "namespaces: a name no rule admits is NXDOMAIN over UDP" \
	    "$O-udp-bad.out" "^answer 192.0.2.1:53 3$"
	expect_grep "namespaces: with one dns deny line (no pid: a datagram has no owner)" \
	    "$O-udp-bad.out.log" '"protocol":"dns","host":"udp-bad.test","port":0,"decision":"deny","reason":"no_allow_rule","run":"[0-9a-f]*"}$'
	expect_no_grep "namespaces: and the test's DNS server heard nothing of it" \
	    "$TMP/orig/qlog" "^udp-bad\.test"
	# UDP that is not DNS stays refused: a direct line.
	run namespaces "" "$POL" "$O-udp-other.out" -- $PYIN -S \
	    "$DIR/transparent.py" udp 192.0.2.1 5353 app.test connect
	expect_grep "namespaces: UDP to another port off loopback is refused" \
	    "$O-udp-other.out" "^failed ENETUNREACH$"
	expect_grep "namespaces: with a direct not_through_proxy line" \
	    "$O-udp-other.out.log" '"protocol":"direct","host":"","port":5353,"decision":"deny","reason":"not_through_proxy","addr":"192.0.2.1"'
	# transparent off: no answerer, no UDP.
	printf 'transparent off\nresolver 127.0.0.1:%s\nallow app.test\n' \
	    "$DNSPORT" >"$TMP/policy/ns-udp-off.conf"
	run namespaces "" "$TMP/policy/ns-udp-off.conf" "$O-udp-off.out" -- \
	    $PYIN -S "$DIR/transparent.py" udp 127.0.0.53 53 app.test sendto
	expect_grep "namespaces: transparent off: a UDP socket is refused" \
	    "$O-udp-off.out" "^failed EPERM$"
}

namespaces() {
	ws ns
	POL=$TMP/policy/ns.conf
	printf 'default deny\nallow_loopback on\nallow 127.0.0.1:%s\n' \
	    "$OPORT" >"$POL"
	"$EGRESSD" --policy "$POL" --confinement namespaces --workspace "$DIR" \
	    -- true >"$TMP/ns-probe.out" 2>&1
	if [ $? -ne 0 ]; then
		skip "namespaces cannot attach here: $(head -c 300 "$TMP/ns-probe.out")"
		return
	fi
	holding namespaces namespaces "" "$POL"
	for mode in blocking epoll strict; do
		run namespaces "" "$POL" "$O-off-$mode.out" -- $PYIN -S \
		    "$DIR/transparent.py" client 192.0.2.1 9 "$mode"
		[ "$mode" = strict ] && strict_refused \
		    "namespaces: off loopback, no rule admits" "$O-off-$mode.out"
		expect_grep "namespaces: a $mode connect off loopback no rule admits is ECONNREFUSED" \
		    "$O-off-$mode.out" "$(refused_re "$O-off-$mode.out")"
		expect_grep "namespaces: and its line says transparent, deny" \
		    "$O-off-$mode.out.log" "\"protocol\":\"transparent\",\"host\":\"192.0.2.1\",\"port\":9,\"decision\":\"deny\""
	done
	# Loopback in the namespace is the command's own: nothing there.
	run namespaces "" "$POL" "$O-lo.out" -- $PYIN -S \
	    "$DIR/transparent.py" client 127.0.0.1 "$OPORT" blocking
	expect_grep "namespaces: 127.0.0.1 is the namespace's own (nothing listens)" \
	    "$O-lo.out" "^refused ECONNREFUSED$"
	expect_no_grep "namespaces: and nothing went through the proxy" \
	    "$O-lo.out.log" "transparent"
	names namespaces "" namespaces
	udp_names
	printf 'transparent off\nallow_loopback on\n' >"$TMP/policy/ns-off.conf"
	run namespaces "" "$TMP/policy/ns-off.conf" "$O-off.out" -- $PYIN -S \
	    "$DIR/transparent.py" client 192.0.2.1 9 blocking
	expect_grep "namespaces: transparent off: off loopback is ENETUNREACH" \
	    "$O-off.out" "^refused ENETUNREACH$"
	expect_grep "namespaces: with a direct not_through_proxy line" \
	    "$O-off.out.log" "\"protocol\":\"direct\".*\"reason\":\"not_through_proxy\""
}

suite() {
	echo "# pass: $1 (uid $(id -u))"
	mkdir -p "$TMP/orig" "$TMP/policy"
	chmod 711 "$TMP"
	origin allowed || { not_ok "the allowed origin starts"; return; }
	OPORT=$PORT
	origin denied || { not_ok "the unlisted origin starts"; return; }
	DPORT=$PORT
	tls_origin || { not_ok "the TLS origin starts"; return; }
	dns_server || { not_ok "the test's DNS server starts"; return; }
	$PY "$H" udp 127.0.0.1 "$DNSPORT" udp-control.test sendto \
	    >"$TMP/udp-control.out" 2>&1
	FREEPORT=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	strict_control
	echo "default deny" >"$TMP/policy/probe.conf"
	mkdir -p "$TMP/probe-ws"
	if "$EGRESSD" --policy "$TMP/policy/probe.conf" --confinement landlock \
	    --workspace "$TMP/probe-ws" -- true >"$TMP/probe.out" 2>&1; then
		landlockish landlock ""
		if cc -O1 -o "$TMP/dockerish" "$top_srcdir/tests/dockerish.c" \
		    -lseccomp 2>"$TMP/cc.err"; then
			landlockish container "$TMP/dockerish --"
		else
			not_ok "the container launcher builds" "$(head -c 600 "$TMP/cc.err")"
		fi
	else
		skip "landlock cannot attach here: $(head -c 300 "$TMP/probe.out")"
	fi
	namespaces
}

if [ "$PASS" = unprivileged ] || [ "$(id -u)" -ne 0 ]; then
	suite unprivileged
else
	suite root
	if id nobody >/dev/null 2>&1; then
		nobody_pass sandbox/transparent HARN_TRANSPARENT_PASS \
		    "$top_srcdir/tests/sandbox/transparent.py" \
		    "$top_srcdir/tests/dnsd.py" "$top_srcdir/tests/dockerish.c" \
		    "$top_srcdir/tests/sandbox/lookup.c"
	else
		skip "unprivileged pass: no user 'nobody'"
	fi
fi
finish
