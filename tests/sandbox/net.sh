#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run mode's sandbox (SPEC 6), the network: TCP, UDP and unix sockets
# toward the host, each with its control and the canary's word; and a
# run's life (exit statuses, signals, the decision log those attempts
# wrote).
# The probe, the controls and the passes (root, nobody, landlock):
# tests/sandbox/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/net.sh
# HARN_EGRESSD=/path/to/binary overrides the binary under test.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/sandbox/lib.sh"

# ------------------------------------------------------------------ network

net_checks() {
	net_esc "tcp 127.0.0.1 (host loopback)" tcp 127.0.0.1 "$P_TCP4"
	net_esc "tcp 127.0.0.2" tcp 127.0.0.2 "$P_TCP4B"
	if [ -n "$P_TCP6" ]; then
		net_esc "tcp [::1]" tcp ::1 "$P_TCP6"
	else
		skip "tcp [::1]: no IPv6 loopback on this host"
	fi
	if [ -n "$HOST_IP" ] && [ -n "${P_HOST:-}" ]; then
		net_esc "tcp host address $HOST_IP" tcp "$HOST_IP" "$P_HOST"
	else
		skip "tcp host address: no non-loopback IPv4 address"
	fi
	net_esc "udp 127.0.0.1 echo" udp 127.0.0.1 "$P_UDP"
	for a in $SOCK_ARGS; do
		kind=${a%%:*} path=${a#*:}
		case $path in
		"$WS"/*) continue ;;	# the user's grant: checked below
		esac
		if [ "$kind" = dgram ]; then
			net_esc "unix datagram to a host socket $path" \
			    unix-dgram "$path"
		elif [ "$kind" = abstract ]; then
			net_esc "abstract unix socket @$path" unix-abstract "$path"
		elif [ "$kind" = unix600 ]; then
			net_esc "unix socket only its owner may use, $path" \
			    unix-path "$path"
		else
			net_esc "unix socket $path" unix-path "$path"
		fi
	done
	[ -w /run ] || skip "unix socket under /run: /run is not writable by $(id -un)"
	if [ "$(sysctl_val net/mptcp/enabled)" = 1 ]; then
		net_esc "mptcp 127.0.0.1" mptcp 127.0.0.1 "$P_TCP4" &&
		    layer "seccomp refuses socket(IPPROTO_MPTCP)" \
		    '^BLOCKED mptcp:socket EPERM'
		net_esc "mptcp 127.0.0.1 (protocol with upper 32 bits set)" \
		    mptcp-hi 127.0.0.1 "$P_TCP4" &&
		    layer "seccomp masks the upper 32 bits (mptcp)" \
		    '^BLOCKED mptcp-hi:socket EPERM'
	else
		skip "mptcp: net.mptcp.enabled=$(sysctl_val net/mptcp/enabled)"
	fi
	net_esc "tcp fast open: sendto(MSG_FASTOPEN)" tfo 127.0.0.1 "$P_TCP4" &&
	    layer "seccomp refuses sendto(MSG_FASTOPEN)" '^BLOCKED tfo:sendto EPERM'
	net_esc "tcp fast open: MSG_FASTOPEN with upper 32 bits set" \
	    tfo-hi 127.0.0.1 "$P_TCP4" &&
	    layer "seccomp masks the upper 32 bits (MSG_FASTOPEN)" \
	    '^BLOCKED tfo-hi:sendto EPERM'
	net_esc "tcp fast open: TCP_FASTOPEN_CONNECT" tfo-connect 127.0.0.1 \
	    "$P_TCP4"

	# Socket families SPEC 6.2 refuses.
	if [ "$(id -u)" -eq 0 ]; then
		rmode=direct
	elif unshare -rn true 2>/dev/null; then
		rmode=userns
	else
		rmode=""
	fi
	if [ -n "$rmode" ]; then
		esc "$rmode" "raw socket (AF_INET SOCK_RAW ICMP)" raw &&
		    layer "raw socket refused with EPERM" '^BLOCKED raw:socket EPERM'
		esc "$rmode" "AF_PACKET socket" packet
		esc "$rmode" "AF_PACKET socket (family with upper 32 bits set)" \
		    packet-hi
	else
		skip "raw socket: needs CAP_NET_RAW (not root, no unshare -rn)"
		skip "AF_PACKET socket: needs CAP_NET_RAW (not root, no unshare -rn)"
		skip "AF_PACKET socket (hi): needs CAP_NET_RAW"
	fi
	esc direct "AF_NETLINK NETLINK_AUDIT socket" netlink-audit &&
	    layer "seccomp refuses AF_NETLINK other than route" \
	    '^BLOCKED netlink-audit:socket EPERM'
	if "$ESC" vsock >/dev/null 2>&1; then
		skip "AF_VSOCK socket: $("$ESC" vsock | cut -d' ' -f3) on this host"
	else
		esc direct "AF_VSOCK socket" vsock
	fi
	if "$ESC" alg >/dev/null 2>&1; then
		skip "AF_ALG socket: $("$ESC" alg | cut -d' ' -f3) on this host"
	else
		esc direct "AF_ALG socket" alg
	fi

	# Allowed inside: route netlink (only lo), the child's own sockets.
	run_out "$TMP/box.out" box -- "$ESC" netlink-route
	if [ "$CONF" = landlock ]; then
		# No network namespace: the host's links, read-only.
		if [ "$RC" -eq 0 ] && grep -q '^ALLOWED netlink-route links=.*lo' "$TMP/box.out"; then
			ok "route netlink allowed inside (the host's links: $(cut -d= -f2 "$TMP/box.out"))"
		else
			not_ok "route netlink allowed inside" \
			    "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
	elif [ "$RC" -eq 0 ] && grep -q '^ALLOWED netlink-route links=lo$' "$TMP/box.out"; then
		ok "route netlink allowed inside; the only link is lo"
	else
		not_ok "route netlink allowed inside; the only link is lo" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	# Its own: the workspace, its TMPDIR (the run's private directory,
	# outside the workspace), its private /tmp (namespaces).
	own_tmp=TMPDIR
	[ "$CONF" = namespaces ] && own_tmp="/tmp TMPDIR"
	for a in socketpair "unix-self $WS" tcp-self; do
		# shellcheck disable=SC2086
		run_out "$TMP/box.out" box -- "$ESC" $a
		if [ "$RC" -eq 0 ] && grep -q '^ALLOWED ' "$TMP/box.out"; then
			ok "the child's own sockets work: $a"
		else
			not_ok "the child's own sockets work: $a" \
			    "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
	done
	for d in $own_tmp; do
		if [ "$d" = TMPDIR ]; then
			run_out "$TMP/box.out" box -- sh -c \
			    'exec "$0" unix-self "$TMPDIR"' "$ESC"
		else
			run_out "$TMP/box.out" box -- "$ESC" unix-self "$d"
		fi
		if [ "$RC" -eq 0 ] && grep -q '^ALLOWED ' "$TMP/box.out"; then
			ok "the child's own sockets work: unix-self in its $d"
		else
			not_ok "the child's own sockets work: unix-self in its $d" \
			    "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
	done
	# A socket inside a granted root is reachable: the user's grant.
	run_out "$TMP/box.out" box -- "$ESC" unix-path "$WS/ws.sock" S-ws-sock
	if [ "$RC" -eq 10 ]; then
		ok "a unix socket inside the workspace is reachable (grant)"
	else
		not_ok "a unix socket inside the workspace is reachable (grant)" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi

	# The managed path: the proxy, by each of its variables.  NO_PROXY
	# names loopback (CMD's own); the allowed origin is the host's, so
	# these clients are told not to bypass the proxy.
	run_out "$TMP/box.out" box -- sh -c \
	    'curl -sS -m 5 --noproxy "" -o /dev/null -w "%{http_code}\n" http://127.0.0.1:'"$P_ORIGIN"'/via-http-proxy'
	if [ "$RC" -eq 0 ] && [ "$(cat "$TMP/box.out")" = 200 ]; then
		ok "proxy path from inside (http_proxy): HTTP 200 from the allowed origin"
	else
		not_ok "proxy path from inside (http_proxy): HTTP 200 from the allowed origin" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	run_out "$TMP/box.out" box -- sh -c \
	    'curl -sS -m 5 --noproxy "" -p -x "$HTTPS_PROXY" -o /dev/null -w "%{http_code}\n" http://127.0.0.1:'"$P_ORIGIN"'/via-connect'
	if [ "$RC" -eq 0 ] && [ "$(cat "$TMP/box.out")" = 200 ]; then
		ok "proxy path from inside (CONNECT via HTTPS_PROXY): HTTP 200"
	else
		not_ok "proxy path from inside (CONNECT via HTTPS_PROXY): HTTP 200" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	run_out "$TMP/box.out" box -- sh -c \
	    'curl -sS -m 5 --noproxy "" -x "$ALL_PROXY" -o /dev/null -w "%{http_code}\n" http://127.0.0.1:'"$P_ORIGIN"'/via-socks'
	if [ "$RC" -eq 0 ] && [ "$(cat "$TMP/box.out")" = 200 ]; then
		ok "proxy path from inside (SOCKS5 via ALL_PROXY): HTTP 200"
	else
		not_ok "proxy path from inside (SOCKS5 via ALL_PROXY): HTTP 200" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	expect_grep "the origin saw the three proxied requests" "$TMP/canary.log" \
	    'origin P_ORIGIN GET /via-socks'
	# The proxy still judges: the canary port is not allowed.
	run_out "$TMP/box.out" box -- sh -c \
	    'curl -sS -m 5 --noproxy "" -o /dev/null -w "%{http_code}\n" http://127.0.0.1:'"$P_TCP4"'/S-via-proxy-denied'
	# The terminal hears of it too (SPEC 6.1), --log or not.
	if grep -qx 403 "$TMP/box.out" && grep -q "^harn-egressd: refused http 127\.0\.0\.1:$P_TCP4: no_allow_rule" "$TMP/box.out"; then
		ok "proxy from inside refuses a port the policy does not allow (403)"
	else
		not_ok "proxy from inside refuses a port the policy does not allow (403)" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	SANDBOX_TAGS="$SANDBOX_TAGS S-via-proxy-denied"

	# The child's own loopback server (inside its namespace, or on the
	# host's loopback: a port the broker finds its processes hold).  An
	# ephemeral port: Landlock (ABI >= 4) lets landlock bind no other.
	run_out "$TMP/box.out" box -- sh -c '
		"$0" -S -c "import http.server as h; s = h.HTTPServer((\"127.0.0.1\", 0), h.SimpleHTTPRequestHandler); open(__import__(\"os\").environ[\"TMPDIR\"] + \"/port\", \"w\").write(str(s.server_port)); s.serve_forever()" >/dev/null 2>&1 &
		i=0
		while [ $i -lt 200 ]; do
			p=$(cat "$TMPDIR/port" 2>/dev/null) &&
			c=$(curl -s -m 2 --noproxy "*" -o /dev/null -w "%{http_code}" http://127.0.0.1:$p/) &&
			    [ "$c" = 200 ] && { echo served; kill $!; exit 0; }
			sleep 0.1
			i=$((i + 1))
		done
		echo "port ${p:-none}, last answer ${c:-none}"
		kill $!
		exit 1' "$PYIN"
	if [ "$RC" -eq 0 ] && grep -q served "$TMP/box.out"; then
		ok "the child's own loopback server (python http.server) answers inside"
	else
		not_ok "the child's own loopback server (python http.server) answers inside" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
}

sock_checks() {
	# A socket of the user's own grant: reachable with --unix-socket-root.
	if [ -n "$OUT" ]; then
		run_out "$TMP/box.out" box --unix-socket-root "$OUT" -- "$ESC" \
		    unix-path "$OUT/lib.sock" S-sockroot
		if [ "$RC" -eq 10 ]; then
			ok "--unix-socket-root DIR makes its sockets reachable"
		else
			not_ok "--unix-socket-root DIR makes its sockets reachable" \
			    "exit $RC: $(first_line "$TMP/box.out")"
		fi
		# A symlink in the workspace to a socket outside the roots.
		ln -sfn "$OUT/lib.sock" "$WS/link.sock"
		control direct "a symlink in the workspace to an outside socket" \
		    unix-path "$WS/link.sock" C-link-sock &&
		    confined "a symlink in the workspace to an outside socket" \
		    unix-path "$WS/link.sock" S-link-sock &&
		    layer "the broker resolves beneath the root (EACCES)" \
		    '^BLOCKED unix-path:.* EACCES'
		SANDBOX_TAGS="$SANDBOX_TAGS S-link-sock"
		rm -f "$WS/link.sock"
		# The same path through /proc/self/root, and relative ../..
		confined "an outside socket through /proc/self/root" unix-path \
		    "/proc/self/root$OUT/lib.sock" S-proc-root
		SANDBOX_TAGS="$SANDBOX_TAGS S-proc-root"
		# From a second thread, from a vfork()ed child.
		control direct "an outside socket from a thread" unix-thread \
		    "$OUT/lib.sock" C-thread &&
		    confined "an outside socket from a thread" unix-thread \
		    "$OUT/lib.sock" S-thread
		control direct "an outside socket from a vfork()ed child" \
		    unix-vfork "$OUT/lib.sock" C-vfork &&
		    confined "an outside socket from a vfork()ed child" \
		    unix-vfork "$OUT/lib.sock" S-vfork
		SANDBOX_TAGS="$SANDBOX_TAGS S-thread S-vfork"
		# Another thread rewrites the address while connect() waits for
		# the broker: thousands of tries, none may reach the host socket.
		# The control stops at its first escape, after at most as many
		# tries (a fixed 200 could all land on ws.sock under load).
		control direct "a racing rewrite of the address (unconfined)" \
		    unix-race-first "$WS/ws.sock" "$OUT/lib.sock" 3000 C-race
		confined "a racing rewrite of the address, 3000 connects" \
		    unix-race "$WS/ws.sock" "$OUT/lib.sock" 3000 S-race &&
		    layer "every connect reached the allowed socket or none" \
		    '^BLOCKED unix-race:.* NONE_OF_3000 \([0-9]+ reached'
		SANDBOX_TAGS="$SANDBOX_TAGS S-race"
	else
		skip "sockets outside every grant: no directory to use"
	fi
	# A socket in the workspace only another user may use: the broker
	# connects as the command (uid 65533), which may not.  (The caller's
	# own files there are the command's, through the idmapped mount.)
	if [ "$(id -u)" -eq 0 ]; then
		chown nobody "$WS/root600.sock"
		control direct "a 0600 socket of another user in the workspace" \
		    unix-path "$WS/root600.sock" C-other600 &&
		    confined "a 0600 socket of another user in the workspace" \
		    unix-path "$WS/root600.sock" S-other600 &&
		    layer "its permissions are the command's to meet" \
		    '^BLOCKED unix-path:.* EACCES'
		SANDBOX_TAGS="$SANDBOX_TAGS S-other600"
	fi
}
# ------------------------------------------------------------------ lifecycle

life_checks() {
	run_out "$TMP/box.out" box -- sh -c 'exit 7'
	[ "$RC" -eq 7 ] && ok "exit status: 7 passes through" ||
	    not_ok "exit status: 7 passes through" "exit $RC"
	run_out "$TMP/box.out" box -- sh -c 'kill -TERM $$'
	[ "$RC" -eq 143 ] && ok "exit status: SIGTERM is 143" ||
	    not_ok "exit status: SIGTERM is 143" "exit $RC"
	run_out "$TMP/box.out" box -- harn-no-such-command-xyz
	[ "$RC" -eq 127 ] && ok "exit status: command not found is 127" ||
	    not_ok "exit status: command not found is 127" "exit $RC"
	run_out "$TMP/box.out" box -- "$WS/noexec.sh"
	[ "$RC" -eq 126 ] && ok "exit status: not executable is 126" ||
	    not_ok "exit status: not executable is 126" "exit $RC"
	rm -f "$WS/nochild.mark"
	run_out "$TMP/box.out" env HOME="$H" "$EGRESSD" --policy "$POL" \
	    --workspace "$TMP/no-such-workspace" --write-root "$WS" -- \
	    sh -c "echo ran > '$WS/nochild.mark'"
	if [ "$RC" -eq 2 ] && [ ! -e "$WS/nochild.mark" ]; then
		ok "a workspace that does not exist: exit 2, no child"
	else
		not_ok "a workspace that does not exist: exit 2, no child" "exit $RC"
	fi
	rm -f "$WS/nochild.mark"
	run_out "$TMP/box.out" box --read-only-root "$H/ok.txt" -- \
	    sh -c "echo ran > nochild.mark"
	if [ "$RC" -eq 2 ] && [ ! -e "$WS/nochild.mark" ]; then
		ok "--read-only-root on a file: exit 2, no child"
	else
		not_ok "--read-only-root on a file: exit 2, no child" "exit $RC"
	fi

	# SIGTERM to harn-egressd reaches the command.
	rm -f "$WS/term.mark" "$WS/ready.mark"
	box_exec -- sh -c 'trap "echo term > term.mark; exit 0" TERM; echo > ready.mark; sleep 30 & wait' \
	    >"$TMP/term.out" 2>&1 &
	hp=$!
	if wait_file "$WS/ready.mark" 50; then
		t0=$(now_ms)
		kill -TERM "$hp"
		if wait_gone "$hp" 50; then
			wait "$hp"
			trc=$?
			ok "SIGTERM: harn-egressd exits promptly ($(($(now_ms) - t0)) ms, exit $trc)"
		else
			not_ok "SIGTERM: harn-egressd exits promptly" "still running after 5 s"
			kill -9 "$hp" 2>/dev/null
		fi
		if [ -s "$WS/term.mark" ]; then
			ok "SIGTERM is forwarded to the command (its trap ran)"
		else
			not_ok "SIGTERM is forwarded to the command (its trap ran)" \
			    "$(head -c 300 "$TMP/term.out")"
		fi
	else
		not_ok "SIGTERM: the command starts" "$(head -c 300 "$TMP/term.out")"
		kill -9 "$hp" 2>/dev/null
	fi

	# A background process does not outlive the run.  The duration is
	# unique to this run, so pgrep finds only ours.
	dur=3000.$$$(id -u)
	cpid=$(sh -c "sleep $dur >/dev/null 2>&1 & echo \$!")
	sleep 0.1
	if pgrep -f "^sleep $dur\$" >/dev/null; then
		ok "control: an unconfined 'sleep $dur &' outlives its shell"
	else
		not_ok "control: an unconfined 'sleep $dur &' outlives its shell" \
		    "pgrep does not see it"
	fi
	kill "$cpid" 2>/dev/null
	dur=3001.$$$(id -u)
	run_out "$TMP/box.out" box -- sh -c "sleep $dur & exit 0"
	sleep 0.2
	left=$(pgrep -f "^sleep $dur\$")
	if [ -n "$left" ]; then
		not_ok "no 'sleep $dur' left after harn-egressd returns" \
		    "pids: $left"
		# shellcheck disable=SC2086
		kill $left 2>/dev/null
	else
		ok "no 'sleep $dur' left after harn-egressd returns (exit $RC)"
	fi

	# Every decision line carries the run id.
	if [ -s "$TMP/decisions.log" ]; then
		n=$(grep -c . "$TMP/decisions.log")
		bad=$(grep -cvE '"run":"[0-9a-f]{32}"' "$TMP/decisions.log")
		if [ "$bad" -eq 0 ]; then
			ok "decision log: all $n lines carry \"run\":\"<32 hex>\""
		else
			not_ok "decision log: every line carries \"run\"" \
			    "$bad of $n lines without it" "$(grep -vE '"run":"[0-9a-f]{32}"' "$TMP/decisions.log" | head -2)"
		fi
	else
		not_ok "decision log: written in run mode" "$TMP/decisions.log is empty"
	fi
}

sandbox_suite net net_checks life_checks sock_checks
