#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Readiness for systemd (SPEC 8.2): service mode tells the test's own
# NOTIFY_SOCKET (tests/cli/notifyrecv.py, a path and an abstract name)
# READY=1 once every listener accepts, RELOADING=1 with MONOTONIC_USEC then
# READY=1 around SIGHUP, STOPPING=1 at the drain; a socket that is not
# there, or a value that is no socket, never stops the proxy.  Run mode
# never hands NOTIFY_SOCKET to CMD, and a confined CMD given the socket's
# path cannot send to it (the control: unconfined, it can).  The unit in
# contrib/ is Type=notify and scores at most 1.5 in systemd-analyze
# security.  As root, then again as nobody.
set -eu
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

EGRESSD=${HARN_EGRESSD:-$EGRESSD}
RECV="$top_srcdir/tests/cli/notifyrecv.py"
POL="$TMP/egress.conf"
printf 'default deny\n' >"$POL"
# Run mode's workspace: a directory of its own, the policy outside it.
WS="$TMP/ws"
mkdir -p "$WS"

# recv NAME SOCKET [STDOUT]: the receiver on SOCKET, its lines in
# $TMP/NAME.log; RECV_PID.
recv() {
	: >"$TMP/$1.log"
	$PY "$RECV" --socket "$2" --log "$TMP/$1.log" --bound "$TMP/$1.bound" \
	    ${3:+--stdout "$3"} 2>"$TMP/$1.recv.err" &
	RECV_PID=$!
	BG_PIDS="$BG_PIDS $RECV_PID"
	if ! wait_file "$TMP/$1.bound" 100 "$RECV_PID"; then
		echo "# receiver did not bind: $(head -c 300 "$TMP/$1.recv.err")"
		return 1
	fi
}

# serve NAME NOTIFY_SOCKET [ARG...]: service mode; SRV_PID, its stdout in
# $TMP/NAME.out and stderr in $TMP/NAME.err.
serve() {
	sn=$1 sv=$2
	shift 2
	NOTIFY_SOCKET=$sv "$EGRESSD" --policy "$POL" "$@" \
	    >"$TMP/$sn.out" 2>"$TMP/$sn.err" &
	SRV_PID=$!
	BG_PIDS="$BG_PIDS $SRV_PID"
}

# states NAME: the log's state assignments in order, one line.
states() {
	grep -Eo '^(READY|RELOADING|STOPPING)=1' "$TMP/$1.log" | tr '\n' ' ' |
	    sed 's/ $//'
}

# expect_states NAME WANT: the log says WANT, in that order, and no more.
expect_states() {
	got=$(states "$1")
	if [ "$got" = "$2" ]; then
		ok "$1: in order: $2"
	else
		not_ok "$1: in order: $2" "got: $got" "$(head -c 800 "$TMP/$1.log")"
	fi
}

# stop_srv NAME: SIGTERM; STOPPING=1 arrives and the proxy exits 0.
stop_srv() {
	kill -TERM "$SRV_PID"
	if wait_grep "$TMP/$1.log" '^STOPPING=1 \| STATUS=draining open connections$' 100; then
		ok "$1: SIGTERM: STOPPING=1 with a STATUS line"
	else
		not_ok "$1: SIGTERM: STOPPING=1 with a STATUS line" \
		    "$(head -c 800 "$TMP/$1.log")"
	fi
	set +e
	wait "$SRV_PID"
	src=$?
	set -e
	if [ "$src" -eq 0 ]; then ok "$1: the drain ends, exit 0"; else
		not_ok "$1: the drain ends, exit 0" "exit $src" \
		    "$(head -c 400 "$TMP/$1.err")"; fi
}

# ready NAME N: READY=1 came, and every one of the N listeners accepted a
# connection when it did.
ready() {
	if wait_grep "$TMP/$1.log" '^READY=1' 100 "$SRV_PID"; then
		ok "$1: READY=1 once listening"
	else
		not_ok "$1: READY=1 once listening" "$(head -c 400 "$TMP/$1.err")"
		return 0
	fi
	s="listener"
	[ "$2" -eq 1 ] || s="listeners"
	wait_grep "$TMP/$1.log" '^PROBE' 50 || true
	expect_grep "$1: each listener accepts when READY=1 arrives" \
	    "$TMP/$1.log" "^PROBE connect ok \\($2 listeners\\)$"
	expect_grep "$1: READY=1 says how many listeners, nothing else" \
	    "$TMP/$1.log" "^READY=1 \\| STATUS=accepting on $2 $s$"
}

# --- a socket file: start, reload, a failed reload, stop -------------------
if recv path "$TMP/notify.sock" "$TMP/path.out"; then
	serve path "$TMP/notify.sock"
	ready path 1
	kill -HUP "$SRV_PID"
	if wait_count "$TMP/path.log" '^READY=1' 2 100; then
		ok "path: SIGHUP: READY=1 again after the reload"
	else
		not_ok "path: SIGHUP: READY=1 again after the reload" \
		    "$(head -c 800 "$TMP/path.log")"
	fi
	expect_grep "path: RELOADING=1 with MONOTONIC_USEC and a STATUS line" \
	    "$TMP/path.log" \
	    '^RELOADING=1 \| MONOTONIC_USEC=[0-9]+ \| STATUS=re-reading the policy$'
	expect_grep "path: MONOTONIC_USEC is CLOCK_MONOTONIC at the reload" \
	    "$TMP/path.log" '^MONO ok$'
	expect_grep "path: READY=1 after the reload says it was re-read" \
	    "$TMP/path.log" \
	    '^READY=1 \| STATUS=policy re-read; accepting on 1 listener$'
	expect_states path "READY=1 RELOADING=1 READY=1"
	# A policy that does not parse: the old one stays, and systemd still
	# hears READY=1 (it would wait for it), saying so.
	printf 'default maybe\n' >"$POL"
	kill -HUP "$SRV_PID"
	wait_count "$TMP/path.log" '^READY=1' 3 100 || true
	expect_grep "path: a failed reload: READY=1, the policy in force kept" \
	    "$TMP/path.log" '^READY=1 \| STATUS=reload failed, the policy in force kept; accepting on 1 listener$'
	printf 'default deny\n' >"$POL"
	if alive "$SRV_PID"; then ok "path: still serving after a failed reload"
	else not_ok "path: still serving after a failed reload"; fi
	stop_srv path
	expect_states path \
	    "READY=1 RELOADING=1 READY=1 RELOADING=1 READY=1 STOPPING=1"
	# STATUS= is for an operator's eye: no address, no file name.
	if grep -E '127\.0\.0\.1|/|egress\.conf' "$TMP/path.log" |
	    grep -v '^PROBE' | grep -q .; then
		not_ok "path: no address or path in any message" \
		    "$(grep -E '127|/' "$TMP/path.log" | head -3)"
	else
		ok "path: no address or path in any message"
	fi
	expect_no_grep "path: nothing said on stderr of NOTIFY_SOCKET" \
	    "$TMP/path.err" "NOTIFY_SOCKET"
else
	not_ok "path: the test's socket is bound" \
	    "$(head -c 300 "$TMP/path.recv.err")"
fi

# --- an abstract socket, two listeners ------------------------------------
ABS="@harn-notify-test-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
if recv abstract "$ABS" "$TMP/abstract.out"; then
	serve abstract "$ABS" --listen 127.0.0.1:0 --listen 127.0.0.1:0
	ready abstract 2
	kill -HUP "$SRV_PID"
	wait_count "$TMP/abstract.log" '^READY=1' 2 100 || true
	expect_grep "abstract: RELOADING=1 with MONOTONIC_USEC" \
	    "$TMP/abstract.log" '^RELOADING=1 \| MONOTONIC_USEC=[0-9]+'
	stop_srv abstract
	expect_states abstract "READY=1 RELOADING=1 READY=1 STOPPING=1"
else
	not_ok "abstract: the test's socket is bound" \
	    "$(head -c 300 "$TMP/abstract.recv.err")"
fi

# --- nobody listening: the proxy serves all the same -----------------------
# no_socket NAME VALUE WHY: NOTIFY_SOCKET=VALUE; stderr says WHY (never
# the value); the proxy accepts, reloads and drains as ever.
no_socket() {
	serve "$1" "$2" --port-file "$TMP/$1.port"
	if wait_grep "$TMP/$1.err" "$3" 100 "$SRV_PID"; then
		ok "$1: one stderr line: $3"
	else
		not_ok "$1: one stderr line: $3" "$(head -c 400 "$TMP/$1.err")"
	fi
	expect_no_grep "$1: the variable's value is not printed" "$TMP/$1.err" "$2"
	if wait_file "$TMP/$1.port" 100 "$SRV_PID" && $PY -c '
import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
' "$(cat "$TMP/$1.port")" 2>"$TMP/$1.conn"; then
		ok "$1: the proxy accepts connections"
	else
		not_ok "$1: the proxy accepts connections" \
		    "$(head -c 300 "$TMP/$1.conn") $(head -c 300 "$TMP/$1.err")"
	fi
	kill -HUP "$SRV_PID"
	if wait_grep "$TMP/$1.err" 'SIGHUP: policy re-read' 100 "$SRV_PID"; then
		ok "$1: SIGHUP re-reads the policy"
	else
		not_ok "$1: SIGHUP re-reads the policy" "$(head -c 400 "$TMP/$1.err")"
	fi
	kill -TERM "$SRV_PID"
	set +e
	wait "$SRV_PID"
	src=$?
	set -e
	if [ "$src" -eq 0 ]; then ok "$1: SIGTERM drains, exit 0"; else
		not_ok "$1: SIGTERM drains, exit 0" "exit $src" \
		    "$(head -c 400 "$TMP/$1.err")"; fi
}
no_socket absent "$TMP/nobody-here.sock" \
    '^harn-egressd: NOTIFY_SOCKET: READY=1 not sent: No such file'
no_socket relative "relative.sock" \
    '^harn-egressd: NOTIFY_SOCKET: neither a socket path nor @name'
if wait_grep "$TMP/absent.err" 'NOTIFY_SOCKET: RELOADING=1 not sent' 10 &&
    grep -q 'NOTIFY_SOCKET: STOPPING=1 not sent' "$TMP/absent.err"; then
	ok "absent: each message not sent is one stderr line"
else
	not_ok "absent: each message not sent is one stderr line" \
	    "$(head -c 600 "$TMP/absent.err")"
fi

# --- run mode: CMD never speaks for us -------------------------------------
# NOTIFY_SOCKET is not CMD's to have: a usage error to pass it, and the
# caller's value never reaches CMD's environment.
# From the workspace: a build that runs the command anyway leaves its
# files there, not in the caller's directory.
expect_rc "run mode: --env NOTIFY_SOCKET is a usage error" 2 \
    sh -c 'cd "$1" && shift && exec "$@"' sh "$WS" \
    "$EGRESSD" --policy "$POL" --env NOTIFY_SOCKET -- true
expect_grep "run mode: --env NOTIFY_SOCKET says why" "$TMP/err" \
    '^harn-egressd: --env NOTIFY_SOCKET: never passed to the command$'
for mode in confined unconfined; do
	flag=""
	[ $mode = confined ] || flag=--no-sandbox
	(cd "$WS" && NOTIFY_SOCKET="$TMP/notify.sock" "$EGRESSD" \
	    --policy "$POL" $flag -- /bin/sh -c \
	    'echo "NOTIFY_SOCKET=${NOTIFY_SOCKET-unset}"') \
	    >"$TMP/env.$mode" 2>"$TMP/env.$mode.err" || true
	expect_grep "run mode, $mode: CMD's environment has no NOTIFY_SOCKET" \
	    "$TMP/env.$mode" '^NOTIFY_SOCKET=unset$'
done
# The attack: CMD given the socket's path sends READY=1 itself.  Confined,
# no unix datagram socket can be made; the control, unconfined, reaches
# the test's socket.  Both run before the receiver's log is read; a
# datagram queue is first in, first out.
SEND='import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(("READY=1\nSTATUS=" + sys.argv[2]).encode(), sys.argv[1])
print("sent")'
if recv attack "$TMP/attack.sock"; then
	for mode in confined unconfined; do
		flag=""
		[ $mode = confined ] || flag=--no-sandbox
		(cd "$WS" && "$EGRESSD" --policy "$POL" $flag -- "$PYIN" -S -c \
		    "$SEND" "$TMP/attack.sock" "from-$mode") \
		    >"$TMP/attack.$mode" 2>"$TMP/attack.$mode.err" || true
	done
	if wait_grep "$TMP/attack.log" 'STATUS=from-unconfined' 100; then
		ok "control: unconfined, CMD reaches the socket it is given"
	else
		not_ok "control: unconfined, CMD reaches the socket it is given" \
		    "$(head -c 400 "$TMP/attack.unconfined.err")"
	fi
	expect_no_grep "attack: confined, CMD's datagram never arrives" \
	    "$TMP/attack.log" "from-confined"
	expect_grep "attack: confined, CMD cannot make the socket" \
	    "$TMP/attack.confined.err" 'PermissionError|Operation not permitted'
else
	not_ok "attack: the test's socket is bound" \
	    "$(head -c 300 "$TMP/attack.recv.err")"
fi

# --- the unit --------------------------------------------------------------
UNIT="$top_srcdir/contrib/harn-egressd.service"
unit_checks() {
	expect_grep "unit: Type=notify" "$UNIT" '^Type=notify$'
	expect_grep "unit: only the main process may notify" "$UNIT" \
	    '^NotifyAccess=main$'
	expect_grep "unit: ExecReload sends SIGHUP" "$UNIT" \
	    '^ExecReload=/bin/kill -HUP \$MAINPID$'
	# Starts without a key: no credential, and SIGN_ARGS empty unless the
	# signing drop-in sets it.
	expect_grep "unit: no signing key by default" "$UNIT" '^Environment=SIGN_ARGS=$'
	if grep -Eq '^(LoadCredential|SetCredential|ImportCredential)' "$UNIT"; then
		not_ok "unit: no credential it would need to start" \
		    "$(grep -E '^[A-Za-z]*Credential' "$UNIT")"
	else
		ok "unit: no credential it would need to start"
	fi
	if ! command -v systemd-analyze >/dev/null 2>&1; then
		skip "unit: systemd-analyze security: no systemd-analyze here"
		return 0
	fi
	if ! systemd-analyze security --offline=yes "$UNIT" \
	    >"$TMP/analyze" 2>&1; then
		if grep -q 'unrecognized option' "$TMP/analyze"; then
			skip "unit: systemd-analyze here cannot score a unit file offline ($(systemd-analyze --version | head -1))"
		else
			not_ok "unit: systemd-analyze security --offline=yes" \
			    "$(tail -5 "$TMP/analyze")"
		fi
		return 0
	fi
	# Every line understood by this systemd (252 would ignore
	# Type=notify-reload, and the unit would run as Type=simple): a copy
	# whose ExecStart is this build's binary, loaded by a test manager.
	mkdir -p "$TMP/unit"
	sed "s|/usr/local/bin/harn-egressd|$EGRESSD|g" "$UNIT" \
	    >"$TMP/unit/harn-egressd.service"
	if systemd-analyze verify --man=no "$TMP/unit/harn-egressd.service" \
	    >"$TMP/verify" 2>&1 && ! [ -s "$TMP/verify" ]; then
		ok "unit: systemd-analyze verify: every line understood"
	else
		not_ok "unit: systemd-analyze verify: every line understood" \
		    "$(head -c 600 "$TMP/verify")"
	fi
	score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' \
	    "$TMP/analyze")
	if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 1.5) }'; then
		ok "unit: systemd-analyze security scores $score (at most 1.5)"
	else
		not_ok "unit: systemd-analyze security scores at most 1.5" \
		    "score '$score'" "$(grep '✗' "$TMP/analyze" | head -20)"
	fi
}
if [ "${HARN_NOTIFY_PASS:-}" = unprivileged ]; then
	:	# the unit is a file: scored once, in the first pass
else
	unit_checks
fi

# --- again as nobody --------------------------------------------------------
if [ "$(id -u)" -eq 0 ] && [ "${HARN_NOTIFY_PASS:-}" != unprivileged ]; then
	if id nobody >/dev/null 2>&1; then
		# || true: not to leave at a failed pass (set -e) before its
		# lines are ours.
		nobody_pass cli/notify HARN_NOTIFY_PASS \
		    "$top_srcdir/tests/cli/notifyrecv.py" || true
	else
		skip "unprivileged pass: no user 'nobody'"
	fi
fi
finish
