#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Nothing comes in (SPEC 6.5): in the landlock confinement the command's
# loopback is the host's, so a listener of the command's must hand it
# only connections of its own processes, and it may not share a port
# with a host service (SO_REUSEPORT).  tests/sandbox/inbound.py plays each side.
#
# For each attack the control runs the same command unconfined and the
# attack must get in; then confined, where it must not, while the
# command's own clients (this process and a child) are served, with each
# way of accepting (blocking, a thread, select, epoll), IPv4 and IPv6.
# Landlock as the host lets us, and under tests/dockerish.c (a default
# Docker container: no pidfd_getfd, so the broker's own sockets), as root
# (the outsider also of another uid, setpriv) and then as nobody (su).
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/inbound.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
set +e
EGRESSD=${HARN_EGRESSD:-$EGRESSD}
PASS=${HARN_INBOUND_PASS:-auto}
H_IN="$top_srcdir/tests/sandbox/inbound.py"
SECRET=inbound-secret-$$-$(date +%s%N)
export LANG=C

# ws NAME: a fresh workspace (DIR) with the helper in it (the command
# reads nothing of ours outside it).
ws() {
	DIR=$TMP/ws-$1
	rm -rf "$DIR"
	mkdir -p "$DIR"
	cp "$top_srcdir/tests/sandbox/inbound.py" "$DIR/inbound.py"
	chmod 777 "$DIR"
	chmod 644 "$DIR/inbound.py"
	H_IN=$DIR/inbound.py
}

# start_inside LAUNCH... -- MODE FAMILY: the command in the background,
# its server's port in $PORT.  LAUNCH empty: unconfined (the control).
start_inside() {
	set -- "$@"
	if [ "$1" = "--" ]; then
		shift
		(cd "$DIR" && exec $PYIN -S "$H_IN" inside "$DIR" "$@" \
		    >"$DIR/inside.out" 2>&1) &
	else
		launch=$1
		shift 2
		# shellcheck disable=SC2086
		(exec $launch "$EGRESSD" --policy "$POL" --workspace "$DIR" \
		    --log "$DIR/../$(basename "$DIR").log" \
		    --confinement landlock -- $PYIN -S "$H_IN" inside "$DIR" \
		    "$@" >"$DIR/inside.out" 2>"$DIR/inside.err") &
	fi
	INSIDE=$!
	BG_PIDS="$BG_PIDS $INSIDE"
	if ! wait_file "$DIR/port" 100 "$INSIDE"; then
		PORT=""
		return 1
	fi
	PORT=$(cat "$DIR/port")
	return 0
}

# outsider WHO FAMILY: a process outside the run connects with the secret.
outsider() {
	case $1 in
	same)	$PY "$H_IN" outside "$PORT" "$SECRET-$1" "$2" ;;
	other)	setpriv --reuid=1 --regid=1 --clear-groups \
		    $PY "$H_IN" outside "$PORT" "$SECRET-$1" "$2" ;;
	esac >"$DIR/outside-$1.out" 2>&1
}

# end_inside: let the command's own clients talk, wait for its end.
end_inside() {
	: >"$DIR/go"
	wait_gone "$INSIDE" 300
}

# control WHO MODE FAMILY: unconfined, the outsider gets in.
control() {
	ws "control-$1-$2-$3"
	if ! start_inside -- "$2" "$3"; then
		not_ok "control ($1, $2, IPv$3): the server starts" \
		    "$(head -c 400 "$DIR/inside.out")"
		return
	fi
	outsider "$1" "$3"
	end_inside
	if grep -q "$SECRET-$1" "$DIR/got" 2>/dev/null; then
		ok "control ($1 uid, $2, IPv$3): unconfined, an outsider's connection reaches the command"
	else
		not_ok "control ($1 uid, $2, IPv$3): unconfined, an outsider's connection reaches the command" \
		    "$(cat "$DIR/outside-$1.out" "$DIR/inside.out" | head -c 600)"
	fi
}

# confined LABEL LAUNCH WHO MODE FAMILY: the outsider is reset, unread;
# the command's own clients are served; the refusal is logged and said.
confined() {
	cl=$1 launch=$2 who=$3 mode=$4 fam=$5
	ws "$cl-$who-$mode-$fam"
	log=$TMP/$(basename "$DIR").log
	name="$cl ($who uid, $mode, IPv$fam)"
	if ! start_inside "$launch" -- "$mode" "$fam"; then
		not_ok "$name: the confined server starts" \
		    "$(cat "$DIR/inside.out" "$DIR/inside.err" | head -c 600)"
		return
	fi
	outsider "$who" "$fam"
	end_inside
	if grep -q "$SECRET" "$DIR/got" 2>/dev/null; then
		not_ok "$name: an outsider's connection never reaches the command" \
		    "$(cat "$DIR/got")"
	elif ! grep -q '^outside: reset' "$DIR/outside-$who.out"; then
		not_ok "$name: an outsider's connection is reset" \
		    "$(head -c 400 "$DIR/outside-$who.out")"
	else
		ok "$name: an outsider's connection is reset, unread"
	fi
	expect_grep "$name: the command's own clients (itself, a child) are served" \
	    "$DIR/inside.out" "answers \\['echo:OWN-1', 'echo:OWN-2', 'echo:OWN-3'\\]"
	expect_grep "$name: the refusal is a not_through_proxy line, inbound, with the peer and the process" \
	    "$log" "\"protocol\":\"direct\",\"host\":\"\",\"port\":$PORT,\"decision\":\"deny\",\"reason\":\"not_through_proxy\",\"addr\":\"(127\\.0\\.0\\.1|::1)\",\"direction\":\"inbound\",\"run\":\"[0-9a-f]+\",\"pid\":[0-9]+,\"exe\":\"[^\"]+python"
	expect_grep "$name: ... and said on stderr" "$DIR/inside.err" \
	    "refused a connection from (127\\.0\\.0\\.1|::1) to port $PORT of [0-9]+"
	expect_no_grep "$name: the secret is not in the decision log" "$log" \
	    "$SECRET"
}

# reuseport LABEL LAUNCH: a host service started later on the command's
# port with SO_REUSEPORT gets none of its clients taken.
reuseport() {
	rl=$1 launch=$2
	ws "reuse-$rl"
	if [ -z "$launch" ]; then
		(cd "$DIR" && exec $PYIN -S "$H_IN" reuse "$DIR" \
		    >"$DIR/inside.out" 2>&1) &
	else
		# shellcheck disable=SC2086
		(exec $launch "$EGRESSD" --policy "$POL" --workspace "$DIR" \
		    --log "$TMP/reuse-$rl.log" --confinement landlock -- \
		    $PYIN -S "$H_IN" reuse "$DIR" >"$DIR/inside.out" \
		    2>"$DIR/inside.err") &
	fi
	INSIDE=$!
	BG_PIDS="$BG_PIDS $INSIDE"
	if ! wait_file "$DIR/port" 100 "$INSIDE"; then
		not_ok "$rl: the server starts" \
		    "$(cat "$DIR/inside.out" "$DIR/inside.err" 2>/dev/null | head -c 600)"
		return
	fi
	PORT=$(cat "$DIR/port")
	$PY "$H_IN" service "$PORT" "$DIR" 20 "$SECRET-svc" \
	    >"$DIR/service.out" 2>&1
	: >"$DIR/go"
	wait_gone "$INSIDE" 300
	if [ -z "$launch" ]; then
		if grep -q "$SECRET-svc" "$DIR/got" 2>/dev/null; then
			ok "control (reuseport): unconfined, the command takes $(grep -c "$SECRET-svc" "$DIR/got") of 20 of a later host service's clients"
		else
			not_ok "control (reuseport): unconfined, the command takes a later host service's clients" \
			    "$(cat "$DIR/inside.out" "$DIR/service.out" | head -c 600)"
		fi
		return
	fi
	expect_grep "$rl: SO_REUSEPORT is refused (EPERM)" "$DIR/inside.out" \
	    "^reuse: SO_REUSEPORT refused errno 1$"
	expect_grep "$rl: ... and said on stderr" "$DIR/inside.err" \
	    "refused SO_REUSEPORT from pid [0-9]+"
	if grep -q "$SECRET-svc" "$DIR/got" 2>/dev/null; then
		not_ok "$rl: none of the host service's clients reach the command" \
		    "$(cat "$DIR/got" "$DIR/service.out" | head -c 600)"
	else
		ok "$rl: none of the host service's clients reach the command ($(cat "$DIR/service.out"))"
	fi
}

# own_tools LABEL LAUNCH: a test suite's real server and client, as they
# are: python's http.server and curl (directly: NO_PROXY), node's http
# (libuv's epoll) server and client.
own_tools() {
	tl=$1 launch=$2
	ws "tools-$tl"
	cat >"$DIR/job.sh" <<EOF
#!/bin/sh
cd "$DIR"
echo hello-own >index.html
$PYIN -u -m http.server --bind 127.0.0.1 0 >http.out 2>&1 &
n=0
while ! grep -q 'port [0-9]' http.out && [ \$n -lt 100 ]; do sleep 0.1; n=\$((n+1)); done
p=\$(sed -n 's/.*port \([0-9]*\).*/\1/p' http.out | head -1)
curl -sS --max-time 10 "http://127.0.0.1:\$p/index.html"
kill %1
EOF
	if command -v node >/dev/null 2>&1; then
		cat >>"$DIR/job.sh" <<'EOF'
node -e '
const http = require("http");
const s = http.createServer((q, r) => r.end("node-own\n"));
s.listen(0, "127.0.0.1", () => {
  http.get({host: "127.0.0.1", port: s.address().port, path: "/"}, (r) => {
    let b = ""; r.on("data", (c) => b += c);
    r.on("end", () => { process.stdout.write(b); s.close(); });
  });
});'
EOF
	fi
	chmod 755 "$DIR/job.sh"
	# shellcheck disable=SC2086
	$launch "$EGRESSD" --policy "$POL" --workspace "$DIR" \
	    --log "$TMP/tools-$tl.log" --confinement landlock -- \
	    "$DIR/job.sh" >"$DIR/tools.out" 2>"$DIR/tools.err"
	expect_grep "$tl: python's http.server and curl, both in the run, talk" \
	    "$DIR/tools.out" "^hello-own$"
	if command -v node >/dev/null 2>&1; then
		expect_grep "$tl: node's http server and client (epoll) talk" \
		    "$DIR/tools.out" "^node-own$"
	else
		skip "$tl: node is not installed"
	fi
	expect_no_grep "$tl: nothing of the run's own was refused" \
	    "$TMP/tools-$tl.log" '"direction":"inbound"'
}

suite() {
	echo "# pass: $1 (uid $(id -u))"
	POL=$TMP/policy/egress.conf
	mkdir -p "$TMP/policy"
	echo "default deny" >"$POL"
	mkdir -p "$TMP/probe-ws"
	"$EGRESSD" --policy "$POL" --confinement landlock --profile os_hardened \
	    --workspace "$TMP/probe-ws" -- true >"$TMP/probe.out" 2>&1
	if [ $? -ne 0 ]; then
		skip "landlock cannot attach here: $(head -c 300 "$TMP/probe.out")"
		return
	fi
	if ! cc -O1 -o "$TMP/dockerish" "$top_srcdir/tests/dockerish.c" \
	    -lseccomp 2>"$TMP/cc.err"; then
		not_ok "the container launcher builds" "$(head -c 600 "$TMP/cc.err")"
		return
	fi
	# The command may run as another uid than ours (65533): it must
	# reach its workspace; our files in TMP stay unreadable to it.
	chmod 711 "$TMP"
	whos=same
	[ "$1" = root ] && whos="same other"
	for who in $whos; do
		control "$who" blocking 4
	done
	control same epoll 6
	for who in $whos; do
		for mode in blocking select epoll; do
			confined landlock "" "$who" "$mode" 4
		done
		confined landlock "" "$who" epoll 6
		confined container "$TMP/dockerish --" "$who" blocking 4
		confined container "$TMP/dockerish --" "$who" epoll 6
	done
	reuseport control ""
	reuseport landlock " "
	reuseport container "$TMP/dockerish --"
	own_tools landlock ""
	own_tools container "$TMP/dockerish --"
}

if [ "$PASS" = unprivileged ] || [ "$(id -u)" -ne 0 ]; then
	suite unprivileged
else
	suite root
	if id nobody >/dev/null 2>&1; then
		nobody_pass sandbox/inbound HARN_INBOUND_PASS \
		    "$top_srcdir/tests/sandbox/inbound.py" "$top_srcdir/tests/dockerish.c"
	else
		skip "unprivileged pass: no user 'nobody'"
	fi
fi
finish
