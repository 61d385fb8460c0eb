#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run mode's sandbox (SPEC 6), what only the landlock confinement has to
# hold by itself.
# The probe, the controls and the passes (root, nobody, landlock):
# tests/sandbox/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/landlock.sh
# HARN_EGRESSD=/path/to/binary overrides the binary under test.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/sandbox/lib.sh"

# ------------------------------------------------------------------ landlock
#
# What only the landlock confinement has to hold by itself (SPEC 6.5):
# the connect broker under attack, signals and ptrace of what is outside,
# an older kernel's Landlock (ABI 3, Debian 12's), a root caller whose
# workspace uid 65533 cannot write, and the fallback when the namespaces'
# set-up fails part-way.

# in_box LABEL SCRIPT [ARG...]: sh -c SCRIPT confined, with $0 the probe;
# must print a BLOCKED line (exit 0).
in_box() {
	iblabel=$1 ibscript=$2
	shift 2
	run_out "$TMP/box.out" box -- sh -c "$ibscript" "$ESC" "$@"
	if [ "$RC" -eq 0 ] && grep -q '^BLOCKED ' "$TMP/box.out"; then
		ok "confined blocked: $iblabel: $(first_line "$TMP/box.out")"
	else
		not_ok "confined blocked: $iblabel" \
		    "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
}

# squat_check [LABEL]: a listener of the command's own on 127.0.0.2 does
# not make a host listener on the same port its own.
squat_check() {
	run_out "$TMP/box.out" box -- "$PYIN" -c '
import socket, sys
p = int(sys.argv[1])
l = socket.socket()
try:
    l.bind(("127.0.0.2", p)); l.listen(4)
except OSError as e:
    held = []
    for f in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            for line in open(f).readlines()[1:]:
                la = line.split()[1]
                if int(la.split(":")[1], 16) == p:
                    held.append(la + "/" + line.split()[3])
        except OSError:
            pass
    print("BLOCKED squat:bind", e.errno, " ".join(held)); sys.exit(0)
c = socket.socket()
try:
    c.connect(("127.0.0.1", p)); c.sendall(b"S-squat\n"); print("ESCAPED squat")
except OSError as e:
    print("BLOCKED squat:connect", e.errno)' "$P_TCP4"
	if grep -q '^BLOCKED squat' "$TMP/box.out"; then
		ok "a listener of its own on the port does not open a host one${1:-}: $(first_line "$TMP/box.out")"
	else
		not_ok "a listener of its own on the port does not open a host one${1:-}" \
		    "$(head -c 300 "$TMP/box.out")"
	fi
	SANDBOX_TAGS="$SANDBOX_TAGS S-squat"
}

broker_attacks() {
	# Another thread rewrites the address while connect() waits for the
	# broker: it decides on its own copy, and connects that.
	if control direct "tcp-race: a thread flips the port" tcp-race \
	    "$P_ORIGIN" "$P_TCP4" 300 C-tcp-race; then
		in_box "tcp-race: 3000 connects to the proxy, a thread flipping the port to a host listener" \
		    'exec "$0" tcp-race "${HTTP_PROXY##*:}" "$1" 3000 S-tcp-race' "$P_TCP4"
		expect_grep "tcp-race: the connects to the proxy went through" \
		    "$TMP/box.out" 'NONE_OF_3000 \([1-9][0-9]* reached'
		SANDBOX_TAGS="$SANDBOX_TAGS S-tcp-race"
	fi
	# Blocking semantics kept: non-blocking, its options, EINPROGRESS.
	run_out "$TMP/box.out" box -- sh -c \
	    'exec "$0" tcp-nonblock 127.0.0.1 "${HTTP_PROXY##*:}"' "$ESC"
	if [ "$RC" -eq 0 ] && grep -q '^ALLOWED tcp-nonblock:.* kept' "$TMP/box.out"; then
		ok "a non-blocking connect to the proxy: $(first_line "$TMP/box.out")"
	else
		not_ok "a non-blocking connect to the proxy keeps its semantics" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	squat_check
	# Without pidfd_getfd (this launcher) the broker connects a fresh
	# socket in the caller's place: one already in an epoll set cannot be
	# swapped (the set watches the file).  It fails, and says why; an
	# event loop that registers after connect() (asyncio, libuv, Go)
	# works.
	run_out "$TMP/box.out" box -- "$PYIN" -c '
import errno, os, select, socket
p = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
s = socket.socket(); s.setblocking(False)
e = select.epoll(); e.register(s.fileno(), select.EPOLLOUT)
try:
    s.connect(("127.0.0.1", p)); print("connected")
except BlockingIOError:
    print("EINPROGRESS")
except OSError as x:
    print(errno.errorcode[x.errno])'
	if grep -Eq '^(EOPNOTSUPP|ENOTSUP)$' "$TMP/box.out" &&
	    grep -q 'connect broker: pid [0-9]* put fd [0-9]* in an epoll set before connect()' "$TMP/box.out"; then
		ok "epoll before connect(), no pidfd_getfd: EOPNOTSUPP, and harn-egressd says why"
	else
		not_ok "epoll before connect(), no pidfd_getfd: EOPNOTSUPP, and harn-egressd says why" \
		    "$(head -c 400 "$TMP/box.out")"
	fi
	BOX_ENV="P=$P_ORIGIN"
	run_out "$TMP/box.out" box --env P -- "$PYIN" -c '
import asyncio, os
async def main():
    p = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
    r, w = await asyncio.open_connection("127.0.0.1", p)
    a = b"127.0.0.1:" + os.environ["P"].encode()
    w.write(b"GET http://" + a + b"/asyncio HTTP/1.1\r\nHost: " + a + b"\r\nConnection: close\r\n\r\n")
    print((await r.readline()).decode().strip())
asyncio.run(main())'
	BOX_ENV=""
	if grep -q '^HTTP/1.1 200' "$TMP/box.out"; then
		ok "asyncio (registers after connect()) reaches the proxy: $(first_line "$TMP/box.out")"
	else
		not_ok "asyncio (registers after connect()) reaches the proxy" \
		    "$(head -c 400 "$TMP/box.out")"
	fi
	# The broker's own resources: 300 connects waiting on a full
	# backlog; it holds at most its cap, the rest fail, the proxy goes on.
	run_out "$TMP/box.out" box -- "$PYIN" -c '
import socket, subprocess, sys, threading, time
l = socket.socket(socket.AF_UNIX)
import os; sock = os.environ["TMPDIR"] + "/full.sock"
l.bind(sock); l.listen(0)
res = []
def f():
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(sock); res.append("connected")
    except OSError as e:
        res.append(e.strerror)
for i in range(300):
    threading.Thread(target=f, daemon=True).start()
time.sleep(2)
code = subprocess.run(["curl", "-s", "-m", "5", "--noproxy", "", "-o", "/dev/null", "-w",
    "%{http_code}", "http://127.0.0.1:%s/during-flood" % sys.argv[1]],
    capture_output=True).stdout.decode()
print("proxy", code, "failed", sorted(set(r for r in res if r != "connected")))
sys.stdout.flush()
import os; os._exit(0)' "$P_ORIGIN"
	if grep -q '^proxy 200 failed .*Resource temporarily unavailable' "$TMP/box.out"; then
		ok "300 waiting connects: the broker caps them, the proxy serves on ($(first_line "$TMP/box.out"))"
	else
		not_ok "300 waiting connects: the broker caps them, the proxy serves on" \
		    "$(head -c 300 "$TMP/box.out")"
	fi
	# harn-egressd killed while the command keeps connecting: nothing
	# gets through, and nothing is left.
	rm -f "$WS/started"
	dur=3003.$$$(id -u)
	BOX_TMPDIR=$TMP/killed
	box_exec -- sh -c 'echo up > started; while :; do "$0" tcp 127.0.0.1 "$1" S-after-kill >/dev/null; done & sleep '"$dur"'; wait' "$ESC" "$P_TCP4" >/dev/null 2>&1 &
	hp=$!
	BOX_TMPDIR=""
	if wait_file "$WS/started" 50 "$hp"; then
		sleep 0.3
		kill -KILL "$hp"
		sleep 0.5
		if pgrep -f "sleep $dur" >/dev/null || pgrep -f "S-after-kill" >/dev/null; then
			not_ok "harn-egressd killed mid-run: the command's processes end" \
			    "$(pgrep -af "sleep $dur|S-after-kill" | head -3)"
			pkill -f "sleep $dur"
			pkill -f "S-after-kill"
		else
			ok "harn-egressd killed mid-run: the command's processes end"
		fi
	else
		not_ok "harn-egressd killed mid-run: the command started"
		kill -KILL "$hp" 2>/dev/null
	fi
	SANDBOX_TAGS="$SANDBOX_TAGS S-after-kill"
}

# signal_attacks [ABI]: signals and ptrace toward what is outside.
signal_attacks() {
	sa=${1:+ (Landlock ABI $1)}
	BOX_ENV=${1:+HARN_EGRESSD_LANDLOCK_ABI=$1}
	setsid sleep 60 &
	sleep 0.1
	tp=$(pgrep -n -f '^sleep 60$')
	for p in kill-pgrp pidfd-kill setown; do
		arg=$tp
		[ "$p" = kill-pgrp ] && arg=$tp	# its own group (setsid)
		setsid sleep 60 &
		sleep 0.1
		cp=$(pgrep -n -f '^sleep 60$')
		[ "$p" = kill-pgrp ] || arg=$cp
		control direct "$p a host process" "$p" "$cp"
		sleep 0.2
		if kill -0 "$cp" 2>/dev/null; then
			not_ok "control: $p killed the host process" "pid $cp alive"
			kill "$cp" 2>/dev/null
		fi
		confined "$p a host process$sa" "$p" "$tp"
		if ! kill -0 "$tp" 2>/dev/null; then
			not_ok "the host process outlives the confined $p$sa"
			setsid sleep 60 &
			sleep 0.1
			tp=$(pgrep -n -f '^sleep 60$')
		fi
	done
	kill "$tp" 2>/dev/null
	# harn-egressd itself, and init: found up the command's parents.
	for p in kill-pid ptrace environ-of; do
		in_box "$p harn-egressd itself$sa" \
		    's=$(cut -d" " -f4 /proc/$PPID/stat); h=$(cut -d" " -f4 /proc/$s/stat); exec "$0" '"$p"' "$h"'
	done
	in_box "kill-pid its init (the subreaper)$sa" 'exec "$0" kill-pid "$PPID"'
	BOX_ENV=""
}

# Landlock ABI 3 (Debian 12's kernel): no network rights, no scopes; the
# broker alone refuses what those would.
old_abi_checks() {
	BOX_ENV="HARN_EGRESSD_LANDLOCK_ABI=3"
	run_out "$TMP/box.out" box --attest "$TMP/abi3.json" -- true
	if grep -q '"landlock_abi":3' "$TMP/abi3.json" 2>/dev/null; then
		ok "HARN_EGRESSD_LANDLOCK_ABI=3: the report says ABI 3"
	else
		not_ok "HARN_EGRESSD_LANDLOCK_ABI=3: the report says ABI 3" \
		    "$(head -c 300 "$TMP/box.out")"
	fi
	# A host loopback port: carried through the proxy, which refuses it
	# (transparent, SPEC 6.6; the canary sees nothing either way).
	confined "ABI 3: tcp 127.0.0.1 (host loopback)" tcp 127.0.0.1 "$P_TCP4" S-abi3-tcp &&
	    layer "ABI 3: the proxy refuses it (ECONNREFUSED)" '^BLOCKED tcp:connect ECONNREFUSED'
	confined "ABI 3: abstract unix socket" unix-abstract "harn-canary-$$" S-abi3-abs &&
	    layer "ABI 3: the broker refuses it (EACCES)" '^BLOCKED unix-abstract:[^ ]+ EACCES'
	SANDBOX_TAGS="$SANDBOX_TAGS S-abi3-tcp S-abi3-abs"
	# No network rights: a fixed port binds, and the broker still
	# refuses the host's listener beside it.
	squat_check " (Landlock ABI 3)"
	expect_grep "ABI 3: the fixed port bound (no Landlock network rights)" \
	    "$TMP/box.out" '^BLOCKED squat:connect'
	BOX_ENV=""
	signal_attacks 3
}

# A root caller whose workspace uid 65533 cannot write (the common CI
# container: root, a workspace root owns), or who cannot become 65533
# (docker run --cap-drop ALL): the command keeps uid 0 without any
# capability.  Managed all the same: it reads nothing only root may read
# outside its roots, its forks are counted, no SysV IPC is left to it.
root_ws_checks() {
	[ "$(id -u)" -eq 0 ] || return 0
	RW=$TMP/root-ws
	mkdir -p "$RW"
	chmod 700 "$RW"
	cp "$ESC" "$RW/escape"
	rootbox() {
		env HOME=/root $LAUNCH "$EGRESSD" --policy "$POL" \
		    --workspace "$RW" --log "$TMP/root.log" "$@"
	}
	run_out "$TMP/box.out" rootbox --attest "$TMP/root.json" -- sh -c 'id -u'
	if [ "$RC" -eq 0 ] && grep -q '^0$' "$TMP/box.out" &&
	    ! grep -q 'not enforced: file ownership' "$TMP/box.out" &&
	    grep -q '"process_network_mode":"managed"' "$TMP/root.json"; then
		ok "a root-owned workspace: the command keeps uid 0, managed"
	else
		not_ok "a root-owned workspace: the command keeps uid 0, managed" \
		    "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
	rm -f "$RW/ran"
	run_out "$TMP/box.out" rootbox --profile os_hardened -- sh -c ': > ran'
	if [ "$RC" -eq 0 ] && [ -e "$RW/ran" ]; then
		ok "os_hardened runs a root-owned workspace (managed)"
	else
		not_ok "os_hardened runs a root-owned workspace" \
		    "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
	run_out "$TMP/box.out" rootbox -- "$RW/escape" caps
	if [ "$RC" -eq 0 ] && grep -q '^BLOCKED ' "$TMP/box.out"; then
		ok "uid 0 kept: no capability, no_new_privs, seccomp"
	else
		not_ok "uid 0 kept: no capability" "$(head -c 300 "$TMP/box.out")"
	fi
	# What only root may read: the control reads it, the command not.
	SECRET_ETC=$(mktemp /etc/harn-test-secret.XXXXXX)
	echo root-only >"$SECRET_ETC"
	chmod 600 "$SECRET_ETC"
	SECRET_DIR=$(mktemp -d /opt/harn-test-private.XXXXXX)
	chmod 700 "$SECRET_DIR"
	echo root-only >"$SECRET_DIR/key"
	chmod 644 "$SECRET_DIR/key"
	for f in /etc/shadow "$SECRET_ETC" "$SECRET_DIR/key" \
	    $(ls /etc/ssh/ssh_host_*_key 2>/dev/null | head -1); do
		control direct "root reads $f" read "$f" || continue
		run_out "$TMP/box.out" rootbox -- "$RW/escape" read "$f"
		if [ "$RC" -eq 0 ] && grep -q '^BLOCKED read:.* EACCES' "$TMP/box.out"; then
			ok "uid 0 kept: $f (only root may read) denied (Landlock, EACCES)"
		else
			not_ok "uid 0 kept: $f denied" "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
	done
	run_out "$TMP/box.out" rootbox -- "$RW/escape" list /root
	if [ "$(stat -c %a /root)" = 700 ]; then
		if [ "$RC" -eq 0 ] && grep -q '^BLOCKED ' "$TMP/box.out"; then
			ok "uid 0 kept: root's home (0700) denied"
		else
			not_ok "uid 0 kept: root's home denied" "$(head -c 300 "$TMP/box.out")"
		fi
	else
		skip "root's home: /root is $(stat -c %a /root), others may read it"
	fi
	run_out "$TMP/box.out" rootbox -- "$RW/escape" read /etc/passwd
	if [ "$RC" -eq 10 ]; then
		ok "uid 0 kept: what others may read (/etc/passwd) still reads"
	else
		not_ok "uid 0 kept: /etc/passwd still reads" "$(head -c 300 "$TMP/box.out")"
	fi
	rm -rf "$SECRET_ETC" "$SECRET_DIR"
	# Forks one after another: as many as wanted, whatever the limit.
	run_out "$TMP/box.out" rootbox --max-procs 40 -- "$RW/escape" seqfork 300
	if [ "$RC" -eq 0 ] && grep -q '^ALLOWED seqfork' "$TMP/box.out"; then
		ok "uid 0 kept: 300 forks one at a time under --max-procs 40"
	else
		not_ok "uid 0 kept: 300 forks one at a time under --max-procs 40" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	# --max-procs holds, though uid 0 is exempt from RLIMIT_NPROC.
	control direct "root forks 150 processes" forks 150
	run_out "$TMP/box.out" rootbox --max-procs 40 -- "$RW/escape" forks 150
	if [ "$RC" -eq 0 ] && grep -Eq '^BLOCKED forks:150 EAGAIN after ([0-9]|[1-3][0-9])$' "$TMP/box.out"; then
		ok "uid 0 kept: --max-procs 40 holds ($(first_line "$TMP/box.out"))"
	else
		not_ok "uid 0 kept: --max-procs 40 holds" "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	# Root's SysV shared memory, another root process, another owner.
	if SHMID=$(ipcmk -M 4096 -p 0600 2>/dev/null | grep -o '[0-9]*$'); then
		control direct "attach root's SysV shared memory ($SHMID)" shmat "$SHMID"
		run_out "$TMP/box.out" rootbox -- "$RW/escape" shmat "$SHMID"
		if [ "$RC" -eq 0 ] && grep -q '^BLOCKED shmat:.* EPERM' "$TMP/box.out"; then
			ok "uid 0 kept: root's SysV shared memory refused (EPERM)"
		else
			not_ok "uid 0 kept: root's SysV shared memory refused" \
			    "$(head -c 300 "$TMP/box.out")"
		fi
		ipcrm -m "$SHMID" 2>/dev/null
	else
		skip "SysV shared memory: ipcmk is not there"
	fi
	sleep 120 &
	VICTIM=$!
	BG_PIDS="$BG_PIDS $VICTIM"
	for p in renice prlimit; do
		run_out "$TMP/box.out" rootbox -- "$RW/escape" "$p" "$VICTIM"
		if [ "$RC" -eq 0 ] && grep -q "^BLOCKED $p:.* EPERM" "$TMP/box.out"; then
			ok "uid 0 kept: $p of a root process outside refused (EPERM)"
		else
			not_ok "uid 0 kept: $p of a root process outside refused" \
			    "$(head -c 300 "$TMP/box.out")"
		fi
	done
	kill "$VICTIM" 2>/dev/null
	echo x >"$RW/owned"
	for p in "chown-to 4242" setcap trusted-xattr; do
		# shellcheck disable=SC2086
		run_out "$TMP/box.out" rootbox -- "$RW/escape" $p "$RW/owned"
		if [ "$RC" -eq 0 ] && grep -q '^BLOCKED ' "$TMP/box.out"; then
			ok "uid 0 kept: $p refused ($(first_line "$TMP/box.out"))"
		else
			not_ok "uid 0 kept: $p refused" "$(head -c 300 "$TMP/box.out")"
		fi
	done
	# docker run --cap-drop ALL: no capability to become anyone else.
	run_out "$TMP/box.out" env HOME=/root "$TMP/dockerish" --cap-drop-all -- \
	    "$EGRESSD" --policy "$POL" --workspace "$RW" --attest "$TMP/drop.json" \
	    -- sh -c 'id -u; cat /etc/shadow'
	if [ "$RC" -ne 0 ] && grep -q '^0$' "$TMP/box.out" &&
	    grep -q '"confinement":"landlock"' "$TMP/drop.json" &&
	    grep -q 'shadow: Permission denied' "$TMP/box.out"; then
		ok "--cap-drop ALL: runs managed (landlock), uid 0, /etc/shadow denied"
	else
		not_ok "--cap-drop ALL: runs managed" "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
	run_out "$TMP/box.out" "$TMP/dockerish" --cap-drop-all -- "$EGRESSD" doctor
	if grep -Eq '^  landlock +attaches' "$TMP/box.out" &&
	    grep -Eq '^  worktree +landlock' "$TMP/box.out"; then
		ok "--cap-drop ALL: doctor says landlock attaches, as a run finds"
	else
		not_ok "--cap-drop ALL: doctor agrees with a run" "$(head -c 600 "$TMP/box.out")"
	fi
	rm -rf "$RW"
}

# The namespaces' set-up failing part-way (a container that lets a user
# namespace be made but not a /proc be mounted): landlock, every time.
fallback_checks() {
	[ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1 || {
		skip "set-up failing part-way: needs root (to mask /proc) and a user nobody"
		return 0
	}
	MP=$(mktemp -d /tmp/harn-mp.XXXXXX)
	cp "$EGRESSD" "$MP/harn-egressd"
	printf 'default deny\n' >"$MP/p.conf"
	mkdir "$MP/ws"
	chmod 755 "$MP"
	chown -R nobody "$MP"
	bad=0 n=0
	while [ $n -lt 30 ]; do
		rm -f "$MP/a.json"
		"$TMP/dockerish" --mask-proc --seccomp-unconfined -- su nobody -s /bin/sh \
		    -c "cd $MP/ws && $MP/harn-egressd --policy $MP/p.conf --attest $MP/a.json -- true" \
		    >"$TMP/fb.out" 2>&1
		frc=$?
		if [ $frc -ne 0 ] || ! grep -q '"confinement":"landlock"' "$MP/a.json" 2>/dev/null; then
			bad=$((bad + 1))
			cp "$TMP/fb.out" "$TMP/fb.bad"
		fi
		n=$((n + 1))
	done
	if [ $bad -eq 0 ]; then
		ok "the /proc mount refused after the namespaces were made: landlock, 30 of 30 runs"
	else
		not_ok "the /proc mount refused after the namespaces were made: landlock every time" \
		    "$bad of 30 runs did not" "$(head -c 400 "$TMP/fb.bad")"
	fi
	rm -rf "$MP"
}

SB_LANDLOCK_ONLY=1
sandbox_suite landlock broker_attacks signal_attacks old_abi_checks root_ws_checks fallback_checks
