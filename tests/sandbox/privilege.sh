#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run mode's sandbox (SPEC 6), least privilege (issue 21): what got out of
# the landed build, and what the landlock confinement shares with the
# host.
# The probe, the controls and the passes (root, nobody, landlock):
# tests/sandbox/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/privilege.sh
# HARN_EGRESSD=/path/to/binary overrides the binary under test.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/sandbox/lib.sh"

# What got out of the landed build (issue 21), each with its control, in
# both confinements, as root and as nobody.
least_privilege_checks() {
	# A set-ID mode through a call the filter did not name (fchmodat2).
	rm -f "$WS/fcm"
	control direct "fchmodat2 06755 on a file the command makes" \
	    fchmodat2 "$WS/fcm"
	rm -f "$WS/fcm"
	confined "fchmodat2 06755 on a file the command makes" fchmodat2 \
	    "$WS/fcm" && layer "fchmodat2: seccomp refuses a set-ID mode (EPERM)" \
	    '^BLOCKED fchmodat2:.* EPERM'
	if [ -u "$WS/fcm" ] || [ -g "$WS/fcm" ]; then
		not_ok "no set-ID file was left by fchmodat2" "$(ls -l "$WS/fcm")"
	fi
	rm -f "$WS/fcm"
	# What the broker would do with its own privileges: a file
	# capability, a trusted.* attribute, another owner.
	for p in "setcap:a file capability (cap_setuid,cap_setgid+ep):CAP_SETFCAP" \
	    "trusted-xattr:a trusted.* attribute:CAP_SYS_ADMIN"; do
		probe=${p%%:*} rest=${p#*:} label=${rest%%:*} need=${rest#*:}
		echo x >"$WS/meta-$probe"
		if control_or_skip "$label" "this pass holds no $need" "$probe" \
		    "$WS/meta-$probe"; then
			rm -f "$WS/meta-$probe"
			echo x >"$WS/meta-$probe"
			confined "$label on a file in the workspace" "$probe" \
			    "$WS/meta-$probe"
		fi
		if $PY -c 'import os, sys; os.getxattr(sys.argv[1], "security.capability")' \
		    "$WS/meta-$probe" 2>/dev/null; then
			not_ok "$label: nothing set on disk" \
			    "$(getfattr -d -m - "$WS/meta-$probe" 2>&1 | head -3)"
		fi
		rm -f "$WS/meta-$probe"
	done
	echo x >"$WS/meta-chown"
	if control_or_skip "chown a workspace file to uid 4242" \
	    "this pass holds no CAP_CHOWN" chown-to 4242 "$WS/meta-chown"; then
		chown --reference="$WS" "$WS/meta-chown" 2>/dev/null
		confined "chown a workspace file to uid 4242" chown-to 4242 \
		    "$WS/meta-chown"
		if [ "$(stat -c %u "$WS/meta-chown")" = 4242 ]; then
			not_ok "chown to 4242: the owner on disk is unchanged" \
			    "$(ls -ln "$WS/meta-chown")"
		fi
	fi
	rm -f "$WS/meta-chown"
	# Netlink to another process's socket, by its port id.
	if [ -n "${P_NETLINK:-}" ]; then
		if control_or_skip "netlink to a host process (port id $P_NETLINK)" \
		    "unicast to a process needs CAP_NET_ADMIN" netlink-peer \
		    "$P_NETLINK" C-netlink; then
			if wait_tag C-netlink; then
				ok "canary recorded the control: netlink"
			else
				not_ok "canary recorded the control: netlink" \
				    "no C-netlink in the canary log"
			fi
			confined "netlink to a host process" netlink-peer \
			    "$P_NETLINK" S-netlink
			SANDBOX_TAGS="$SANDBOX_TAGS S-netlink"
		fi
	else
		skip "netlink to a host process: the canary has no netlink socket"
	fi
	# Nothing inbound: a wildcard bind, listen() on an unbound socket.
	# Two ports free now, below the ephemeral range (no connect takes
	# them meanwhile): other suites run beside this one.
	PORT_ANY=$($PY -c '
import random, socket
for _ in range(200):
    p = random.randrange(10000, 32000)
    held = []
    try:
        for q in (p, p + 1):
            s = socket.socket()
            held.append(s)
            s.bind(("0.0.0.0", q))
    except OSError:
        continue
    finally:
        for s in held:
            s.close()
    print(p)
    break')
	control direct "bind 0.0.0.0:$PORT_ANY" bind-any "$PORT_ANY"
	confined "bind 0.0.0.0:$PORT_ANY (every address: a way in)" bind-any \
	    "$PORT_ANY" && layer "bind 0.0.0.0: the broker refuses it (EACCES)" \
	    '^BLOCKED bind-any:[0-9]+ EACCES'
	direct_line 0.0.0.0 "$PORT_ANY" "bind 0.0.0.0"
	expect_grep "stderr says to bind loopback" "$TMP/box.out" \
	    "^harn-egressd: refused a bind to 0\.0\.0\.0:$PORT_ANY from [0-9]+ \(.*escape\): .*loopback only"
	control direct "listen() on an unbound socket" listen-unbound
	confined "listen() on an unbound socket (the kernel would bind every address)" \
	    listen-unbound && layer "listen unbound: the broker refuses it (EACCES)" \
	    '^BLOCKED listen-unbound:listen EACCES'
	direct_line 0.0.0.0 0 "listen() on an unbound socket"
	# A test server on a fixed loopback port works (worktree).
	PORT_LO=$((PORT_ANY + 1))
	run_out "$TMP/box.out" box -- "$ESC" bind-addr 127.0.0.1 "$PORT_LO"
	if [ "$RC" -eq 0 ] && grep -q '^ALLOWED bind-addr' "$TMP/box.out"; then
		ok "a server on a fixed loopback port ($PORT_LO) works"
	else
		not_ok "a server on a fixed loopback port works" \
		    "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
	run_out "$TMP/box.out" box -- "$ESC" bind-addr ::1 "$PORT_LO"
	if [ "$RC" -eq 0 ] && grep -q '^ALLOWED bind-addr' "$TMP/box.out"; then
		ok "a server on ::1 works"
	else
		not_ok "a server on ::1 works" "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
	# A process of the same uid outside: not the command's to renice or
	# to limit.
	sleep 120 &
	VICTIM=$!
	BG_PIDS="$BG_PIDS $VICTIM"
	esc direct "renice a host process ($VICTIM)" renice "$VICTIM"
	esc direct "prlimit a host process ($VICTIM)" prlimit "$VICTIM"
	kill "$VICTIM" 2>/dev/null
	# The refusals are folded: the first of each second is a line, the
	# rest of that second one more line with their count.  40 binds take
	# well under a second on an idle machine (2 lines); a busy one may
	# spread them over more seconds, so the bound is the seconds they
	# took, which the command measures itself.
	rm -f "$TMP/fold.log" "$TMP/fold.json"
	env HOME="$H" $LAUNCH "$EGRESSD" --policy "$POL" --workspace "$WS" \
	    --log "$TMP/fold.log" --attest "$TMP/fold.json" -- "$PYIN" -c '
import socket, time
t = time.monotonic()
for i in range(40):
    s = socket.socket()
    try:
        s.bind(("0.0.0.0", 0))
    except OSError:
        pass
    s.close()
print("took %d" % int(time.monotonic() - t))
' >"$TMP/fold.out" 2>&1
	lines=$(grep -c '"not_through_proxy"' "$TMP/fold.log" 2>/dev/null)
	took=$(sed -n 's/^took \([0-9]*\)$/\1/p' "$TMP/fold.out")
	total=$($PY -c '
import json, sys
n = 0
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d.get("reason") == "not_through_proxy":
        n += d.get("count", 1)
print(n)' "$TMP/fold.log" 2>/dev/null)
	counted=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["decisions"]["by_reason"].get("not_through_proxy", 0))' \
	    "$TMP/fold.json" 2>/dev/null)
	# At most two lines for each second begun (a window opens at most
	# once a second, and a window is one line, or two with its count).
	if [ -n "$took" ] && [ "${lines:-0}" -ge 2 ] &&
	    [ "$lines" -le $((2 * (took + 2))) ] && [ "$lines" -lt 40 ] &&
	    [ "$total" = 40 ] && [ "$counted" = 40 ]; then
		ok "40 refusals in ${took}s: $lines lines (each second's first, then its count), 40 in the report"
	else
		not_ok "40 refusals: folded, all counted" \
		    "lines $lines, took ${took}s, total $total, report $counted: $(head -c 300 "$TMP/fold.out")"
	fi
	n=$(grep -c 'refused a bind to 0.0.0.0:0' "$TMP/fold.out")
	if [ "$n" = 1 ]; then
		ok "the endpoint is said once on stderr"
	else
		not_ok "the endpoint is said once on stderr" "said $n times"
	fi
	# A refused connect whose line would be long (a program name of 200
	# control bytes, each escaped): still a line, still counted.
	if [ -n "$HOST_IP" ] && [ -n "${P_HOST:-}" ]; then
		LONG=$(printf 'x%200s' '' | tr ' ' '\001')
		cp "$ESC" "$WS/$LONG"
		rm -f "$TMP/long.log" "$TMP/long.json"
		env HOME="$H" $LAUNCH "$EGRESSD" --policy "$POL" --workspace \
		    "$WS" --log "$TMP/long.log" --attest "$TMP/long.json" -- \
		    "$WS/$LONG" tcp "$HOST_IP" "$P_HOST" S-long >"$TMP/long.out" 2>&1
		SANDBOX_TAGS="$SANDBOX_TAGS S-long"
		# A host address: carried through the proxy and refused there
		# (transparent, SPEC 6.6), or refused by the broker.
		if grep -q '"decision":"deny"' "$TMP/long.log" &&
		    grep -Eq '"deny":1[,}]' "$TMP/long.json"; then
			ok "a refusal by a program with a long name: logged and counted"
		else
			not_ok "a refusal by a program with a long name: logged and counted" \
			    "$(head -c 300 "$TMP/long.log") / $(head -c 300 "$TMP/long.out")"
		fi
		if grep -q "$(printf '\001')" "$TMP/long.out"; then
			not_ok "stderr carries no raw control byte of a program's name"
		else
			ok "stderr carries no raw control byte of a program's name"
		fi
		rm -f "$WS/$LONG"
	fi
	# A unix connect through a link out of the workspace: refused, logged.
	if [ -n "$OUT" ]; then
		ln -sfn "$OUT" "$WS/outlink"
		confined "a unix socket through a link out of the workspace" \
		    unix-path "$WS/outlink/lib.sock" S-outlink
		SANDBOX_TAGS="$SANDBOX_TAGS S-outlink"
		if grep -F "\"addr\":\"unix:$WS/outlink/lib.sock\"" \
		    "$TMP/decisions.log" | grep -q not_through_proxy; then
			ok "not_through_proxy line: a unix socket through a link out"
		else
			not_ok "not_through_proxy line: a unix socket through a link out" \
			    "$(grep direct "$TMP/decisions.log" | tail -2)"
		fi
		rm -f "$WS/outlink"
	fi
	[ "$CONF" = landlock ] && landlock_host_checks
	# Unconfined, a root caller's command is the caller: it enters a
	# workspace only uid 65533 may (its capabilities are kept).
	if [ "$(id -u)" -eq 0 ] && [ "$CONF" = namespaces ]; then
		UW=$TMP/unconfined-ws
		mkdir -p "$UW"
		chown 65533:65533 "$UW"
		chmod 700 "$UW"
		for o in --no-sandbox "--profile unrestricted"; do
			rm -f "$UW/ran"
			# shellcheck disable=SC2086
			run_out "$TMP/box.out" env HOME="$H" "$EGRESSD" --policy \
			    "$POL" --workspace "$UW" $o -- sh -c ': > ran'
			if [ "$RC" -eq 0 ] && [ -e "$UW/ran" ]; then
				ok "$o, root, a 65533 0700 workspace: runs"
			else
				not_ok "$o, root, a 65533 0700 workspace: runs" \
				    "exit $RC: $(head -c 300 "$TMP/box.out")"
			fi
		done
		rm -rf "$UW"
	fi
	# $HOME at a private directory: that stays the command's own, empty
	# and writable (SPEC 6.1); $HOME is read-only everywhere else.
	if [ "$CONF" = namespaces ]; then
		run_out "$TMP/box.out" env HOME=/var/tmp "$EGRESSD" --policy \
		    "$POL" --workspace "$WS" -- sh -c \
		    ': > /var/tmp/harn-w && mkdir /var/tmp/harn-d && echo w-ok'
		if [ "$RC" -eq 0 ] && grep -q '^w-ok$' "$TMP/box.out"; then
			ok "HOME=/var/tmp: the private /var/tmp is writable"
		else
			not_ok "HOME=/var/tmp: the private /var/tmp is writable" \
			    "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
	fi
}

# What the landlock confinement shares with the host (its IPC namespace,
# the host's processes, ports, files) and what no Landlock right covers
# on older kernels (HARN_EGRESSD_LANDLOCK_ABI lowers it as they have it).
landlock_host_checks() {
	# A /proc/PID directory serves as a pidfd: without Landlock's
	# signal scope (ABI < 6) only the broker stands in the way.
	sleep 120 &
	V=$!
	control direct "pidfd_send_signal through /proc/PID" pidfd-proc "$V"
	wait "$V" 2>/dev/null
	sleep 120 &
	V=$!
	BG_PIDS="$BG_PIDS $V"
	BOX_ENV="HARN_EGRESSD_LANDLOCK_ABI=5"
	confined "pidfd_send_signal through /proc/PID (Landlock ABI 5: no signal scope)" \
	    pidfd-proc "$V"
	BOX_ENV=""
	if kill -0 "$V" 2>/dev/null; then
		ok "the host process outlives pidfd_send_signal (ABI 5)"
	else
		not_ok "the host process outlives pidfd_send_signal (ABI 5)"
	fi
	kill -KILL "$V" 2>/dev/null
	# truncate(2): no Landlock right before ABI 3.
	if [ -n "$OUT" ]; then
		echo 0123456789 >"$OUT/trunc.txt"
		control direct "truncate a file of ours outside every grant" \
		    truncate "$OUT/trunc.txt" 1
		echo 0123456789 >"$OUT/trunc.txt"
		BOX_ENV="HARN_EGRESSD_LANDLOCK_ABI=2"
		confined "truncate a file of ours outside every grant (Landlock ABI 2)" \
		    truncate "$OUT/trunc.txt" 1
		BOX_ENV=""
		if [ "$(wc -c <"$OUT/trunc.txt")" -eq 11 ]; then
			ok "truncate (ABI 2): the file is whole"
		else
			not_ok "truncate (ABI 2): the file is whole" \
			    "$(wc -c <"$OUT/trunc.txt") bytes"
		fi
		# File flags by ioctl on a descriptor opened to read.
		echo flags >"$OUT/flags.txt"
		if control_or_skip "chattr nodump on a file of ours" \
		    "the filesystem has no flags" chattr "$OUT/flags.txt"; then
			chattr -d "$OUT/flags.txt" 2>/dev/null
			confined "chattr nodump on a file of ours outside every grant" \
			    chattr "$OUT/flags.txt"
		fi
	fi
	# The host's SysV IPC: a segment open to all.
	if SHMID=$(ipcmk -M 4096 -p 0666 2>/dev/null | grep -o '[0-9]*$'); then
		esc direct "attach a host SysV segment open to all ($SHMID)" \
		    shmat "$SHMID"
		ipcrm -m "$SHMID" 2>/dev/null
	else
		skip "host SysV IPC: ipcmk is not there"
	fi
	# A host service sharing its port with SO_REUSEPORT: the kernel
	# would hand a listener of the command's part of its clients.
	rm -f "$TMP/reuse.port"
	$PY -c '
import os, socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("127.0.0.1", 0))
s.listen(4)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)' "$TMP/reuse.port" &
	RP=$!
	BG_PIDS="$BG_PIDS $RP"
	if wait_file "$TMP/reuse.port" 50; then
		RPORT=$(cat "$TMP/reuse.port")
		control direct "SO_REUSEPORT on a host service's port" \
		    bind-reuseport 127.0.0.1 "$RPORT"
		# SO_REUSEPORT itself is refused first (tests/sandbox/inbound.sh
		# holds the other order: the host service started later).
		confined "SO_REUSEPORT on a host service's port (its clients would come in)" \
		    bind-reuseport 127.0.0.1 "$RPORT" &&
		    layer "the broker refuses SO_REUSEPORT (EPERM), said on stderr" \
		    '^BLOCKED bind-reuseport:setsockopt EPERM' &&
		    layer "... said on stderr" 'refused SO_REUSEPORT from pid'
		# Without it, the bind to the service's port: refused too.
		confined "a bind to a host service's port" \
		    bind-port "$RPORT" &&
		    layer "the broker refuses the port (EADDRINUSE)" \
		    '^BLOCKED bind-port:bind EADDRINUSE'
		direct_line 127.0.0.1 "$RPORT" "a host service's port"
	else
		not_ok "the SO_REUSEPORT host service starts"
	fi
	kill "$RP" 2>/dev/null
}

sandbox_suite privilege least_privilege_checks
