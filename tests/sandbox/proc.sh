#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run mode's sandbox (SPEC 6), processes: /proc, signals, ptrace,
# terminals, limits.
# The probe, the controls and the passes (root, nobody, landlock):
# tests/sandbox/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/proc.sh
# HARN_EGRESSD=/path/to/binary overrides the binary under test.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/sandbox/lib.sh"

# ------------------------------------------------------------------ process

proc_checks() {
	iod=$(sysctl_val kernel/io_uring_disabled)
	if [ "$iod" = 2 ]; then
		skip "io_uring: kernel.io_uring_disabled=2"
	elif [ "$iod" = 1 ] && [ "$(id -u)" -ne 0 ]; then
		skip "io_uring: kernel.io_uring_disabled=1 (unprivileged)"
	else
		esc direct "io_uring_setup" io_uring &&
		    layer "seccomp refuses io_uring_setup" '^BLOCKED io_uring:setup EPERM'
	fi

	# ptrace: a sibling the control may attach to; inside, init (pid 1)
	# and a sibling of the probe.
	sleep 30 &
	tp=$!
	control direct "ptrace a same-user process" ptrace "$tp" &&
	    confined "ptrace pid 1 (the namespace's init) or its mem" ptrace 1
	control direct "PTRACE_ATTACH a same-user process" ptrace-attach "$tp"
	cr=$?
	# SIGKILL: a tracee the control detached from may be left stopped,
	# and SIGTERM would wait for a SIGCONT that never comes.
	kill -KILL "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
	if [ $cr -eq 0 ]; then
		run_out "$TMP/box.out" box -- sh -c 'sleep 5 & exec "$0" ptrace-attach $!' "$ESC"
		if [ "$RC" -eq 0 ] && grep -q '^BLOCKED ptrace-attach:attach EPERM' "$TMP/box.out"; then
			ok "confined blocked: PTRACE_ATTACH a sibling: seccomp EPERM"
		else
			not_ok "confined blocked: PTRACE_ATTACH a sibling: seccomp EPERM" \
			    "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
	fi
	esc direct "PTRACE_TRACEME" traceme &&
	    layer "seccomp refuses ptrace" '^BLOCKED traceme:traceme EPERM'

	# Namespaces.
	esc direct "unshare(CLONE_NEWUSER)" userns &&
	    layer "seccomp refuses unshare" '^BLOCKED userns:unshare EPERM'
	esc direct "unshare(CLONE_NEWNET) (with CLONE_NEWUSER)" netns
	esc direct "clone(CLONE_NEWUSER)" clone-userns &&
	    layer "seccomp refuses namespace clone flags" \
	    '^BLOCKED clone-userns:clone EPERM'
	esc direct "clone3(CLONE_NEWUSER)" clone3 &&
	    layer "clone3 is ENOSYS" '^BLOCKED clone3:clone3 ENOSYS'

	# TIOCSTI, on a pty the probe makes its controlling tty.
	if [ "$(id -u)" -ne 0 ] && [ "$(sysctl_val dev/tty/legacy_tiocsti)" = 0 ]; then
		skip "TIOCSTI: dev.tty.legacy_tiocsti=0 (needs CAP_SYS_ADMIN)"
	elif [ "$CONF" = landlock ]; then
		# No /dev/ptmx to make one: the terminal harn-egressd was
		# started on is the one to attack (the command's stdin is then
		# harn-egressd's pty, on which TIOCSTI is refused all the same).
		for t in tiocsti tiocsti-hi; do
			in_pty "$TMP/control.out" "$ESC" "$t"
			# (What it injected echoes in front of its line.)
			if grep -q "ESCAPED $t:" "$TMP/control.out"; then
				ok "control (pty) escapes: ioctl(TIOCSTI) on its terminal: $(first_line "$TMP/control.out")"
				in_pty "$TMP/box.out" env HOME="$H" $LAUNCH "$EGRESSD" \
				    --policy "$POL" --workspace "$WS" -- "$ESC" "$t"
				layer "TIOCSTI on the caller's terminal is refused ($t)" \
				    "^BLOCKED $t:[a-z0-9-]+ EPERM"
			else
				not_ok "control (pty) escapes: ioctl(TIOCSTI) on its terminal" \
				    "$(head -c 300 "$TMP/control.out")"
			fi
		done
	else
		esc direct "ioctl(TIOCSTI)" tiocsti &&
		    layer "seccomp refuses TIOCSTI" '^BLOCKED tiocsti:[a-z-]+ EPERM'
		esc direct "ioctl(TIOCSTI) (request with upper 32 bits set)" \
		    tiocsti-hi &&
		    layer "seccomp masks the upper 32 bits (TIOCSTI)" \
		    '^BLOCKED tiocsti-hi:[a-z-]+ EPERM'
	fi

	# The rest of SPEC 6.2's list.
	esc direct "add_key" keyctl &&
	    layer "seccomp refuses add_key" '^BLOCKED keyctl:add_key EPERM'
	if [ "$(id -u)" -ne 0 ] && [ "$(sysctl_val kernel/unprivileged_bpf_disabled)" != 0 ]; then
		skip "bpf: kernel.unprivileged_bpf_disabled=$(sysctl_val kernel/unprivileged_bpf_disabled)"
	else
		esc direct "bpf(BPF_MAP_CREATE)" bpf
	fi
	pp=$(sysctl_val kernel/perf_event_paranoid)
	if [ "$(id -u)" -ne 0 ] && [ "$pp" != absent ] && [ "$pp" -gt 2 ]; then
		skip "perf_event_open: kernel.perf_event_paranoid=$pp"
	else
		esc direct "perf_event_open" perf &&
		    layer "seccomp refuses perf_event_open" '^BLOCKED perf:perf_event_open EPERM'
	fi
	esc direct "userfaultfd" userfaultfd &&
	    layer "seccomp refuses userfaultfd" '^BLOCKED userfaultfd:userfaultfd EPERM'
	esc direct "process_vm_readv" process_vm_readv &&
	    layer "seccomp refuses process_vm_readv" '^BLOCKED process_vm_readv:self EPERM'
	if [ "$(id -u)" -eq 0 ]; then
		esc direct "mount tmpfs" mount
		esc direct "open_by_handle_at" open_by_handle_at
	else
		if unshare -rm true 2>/dev/null; then
			esc userns "mount tmpfs" mount
		else
			skip "mount: needs CAP_SYS_ADMIN (not root, no unshare -rm)"
		fi
		skip "open_by_handle_at: needs CAP_DAC_READ_SEARCH in the initial namespace"
	fi
	"$ESC" ia32 >"$TMP/control.out" 2>&1
	if grep -q '^ESCAPED' "$TMP/control.out"; then
		esc direct "a foreign ABI (int 0x80)" ia32 &&
		    layer "a foreign ABI is killed (SIGSYS)" '^BLOCKED ia32:int80 SIGSYS'
	else
		skip "foreign ABI: no ia32 syscalls here ($(first_line "$TMP/control.out"))"
	fi

	# Capabilities, no_new_privs, seccomp mode.
	if control direct "capabilities/no_new_privs/seccomp state" caps; then
		run_out "$TMP/box.out" box -- "$ESC" caps
		if [ -n "$QUIET_LINE" ]; then
			# No user namespace, no CAP_SETPCAP: the bounding set
			# stays (no_new_privs keeps exec from using it), and the
			# run says so.
			if grep -Eq 'Cap(Inh|Prm|Eff|Amb)' "$TMP/box.out"; then
				not_ok "confined: capability sets empty but the bounding set" "$(first_line "$TMP/box.out")"
			else
				ok "confined: capability sets empty but the bounding set"
			fi
			box -- true 2>"$TMP/box.err"
			expect_grep "the run says the bounding set is not enforced" \
			    "$TMP/box.err" '^harn-egressd: sandbox: not enforced: capability bounding set \('

		elif grep -q 'Cap' "$TMP/box.out"; then
			not_ok "confined: all capability sets empty" "$(first_line "$TMP/box.out")"
		else
			ok "confined: all capability sets empty"
		fi
		if grep -q 'NoNewPrivs' "$TMP/box.out"; then
			not_ok "confined: no_new_privs is 1" "$(first_line "$TMP/box.out")"
		else
			ok "confined: no_new_privs is 1"
		fi
		if grep -q 'Seccomp' "$TMP/box.out"; then
			not_ok "confined: seccomp mode 2 (filter)" "$(first_line "$TMP/box.out")"
		else
			ok "confined: seccomp mode 2 (filter)"
		fi
	fi

	# An fd the parent shell had open.
	echo inherited >"$TMP/fd7.txt"
	exec 7<"$TMP/fd7.txt"
	esc direct "inherited fd 7" fd 7 &&
	    layer "fd 7 is closed" '^BLOCKED fd:7 EBADF'
	exec 7<&-

	# A new session, no controlling tty (stdin no terminal: on one, the
	# command's would be its own pty's, tests/cli/pty.sh).
	run_out "$TMP/box.out" box -- sh -c \
	    'read pid comm st ppid pgrp sid tty rest </proc/self/stat; echo "$pid $sid $tty"' \
	    </dev/null
	# shellcheck disable=SC2046
	set -- $(cat "$TMP/box.out")
	if [ "$RC" -eq 0 ] && [ "$#" -eq 3 ] && [ "$1" = "$2" ] && [ "$3" = 0 ]; then
		ok "a new session without a controlling tty (pid=sid=$1, tty 0)"
	else
		not_ok "a new session without a controlling tty" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi

	# The PID namespace: a few low pids only.
	run_out "$TMP/box.out" box -- sh -c 'ls /proc | grep -E "^[0-9]+$"'
	np=$(grep -c . "$TMP/box.out")
	maxp=$(sort -n "$TMP/box.out" | tail -n 1)
	if [ "$CONF" = landlock ]; then
		skip "/proc's own pids: landlock makes no PID namespace (the host's $np pids are listed; their environ, mem and signals are checked below)"
	elif [ "$RC" -eq 0 ] && [ "$np" -ge 1 ] && [ "$np" -le 8 ] && [ "${maxp:-999}" -lt 50 ]; then
		ok "/proc inside shows only the namespace's own pids ($(tr '\n' ' ' <"$TMP/box.out"))"
	else
		not_ok "/proc inside shows only the namespace's own pids" \
		    "exit $RC: $(tr '\n' ' ' <"$TMP/box.out" | head -c 300)"
	fi

	# /proc/PID/environ: the control reads a same-user process's; inside,
	# neither init's nor the proxy's (host pid) is readable.
	SECRET_TOKEN=$ENV_SECRET sleep 30 &
	tp=$!
	sleep 0.1
	control direct "read /proc/PID/environ of a same-user process" \
	    environ-of "$tp"
	cr=$?
	grep -q 'SECRET_TOKEN' "$TMP/control.out" ||
	    not_ok "the environ control saw the planted SECRET_TOKEN" \
	    "$(first_line "$TMP/control.out")"
	kill "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
	if [ $cr -eq 0 ]; then
		confined "/proc/1/environ (the namespace's init)" environ-of 1
		rm -f "$WS/proxy.pid"
		box_exec -- sh -c 'i=0; while [ ! -s proxy.pid ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; exec "$0" environ-of "$(cat proxy.pid)"' "$ESC" >"$TMP/box.out" 2>&1 &
		ppid_px=$!	# harn-egressd itself (box_exec execs it)
		echo "$ppid_px" >"$WS/proxy.pid"
		wait "$ppid_px"
		if grep -q '^BLOCKED environ-of' "$TMP/box.out"; then
			ok "the proxy's /proc/$ppid_px/environ is not readable inside: $(first_line "$TMP/box.out")"
		else
			not_ok "the proxy's /proc/$ppid_px/environ is not readable inside" \
			    "$(head -c 300 "$TMP/box.out")"
		fi
	fi
}

tty_checks() {
	# Another session's terminal: a pty the caller holds.
	$PY -c '
import os, pty, sys, time
m, s = pty.openpty()
sys.stdout.write(os.ttyname(s) + "\n"); sys.stdout.flush()
time.sleep(30)' >"$TMP/pty.name" 2>/dev/null &
	ptyp=$!
	BG_PIDS="$BG_PIDS $ptyp"
	wait_file "$TMP/pty.name" 30 "$ptyp" >/dev/null || true
	pts=$(head -n 1 "$TMP/pty.name")
	if [ -n "$pts" ]; then
		esc direct "open another session's terminal $pts" open-rw "$pts"
		run_out "$TMP/box.out" box -- sh -c 'ls /dev/pts | tr "\n" " "'
		if [ "$CONF" = landlock ]; then
			# The host's /dev/pts holds the user's other terminals:
			# not granted, so no new terminal either.
			if grep -q 'Permission denied' "$TMP/box.out"; then
				ok "the host's /dev/pts is not listable (landlock)"
			else
				not_ok "the host's /dev/pts is not listable (landlock)" \
				    "$(cat "$TMP/box.out")"
			fi
			run_out "$TMP/box.out" box -- "$PYIN" -c 'import os, pty; m, s = pty.openpty(); print(os.ttyname(s))'
			if [ "$RC" -ne 0 ] && grep -q 'out of pty devices' "$TMP/box.out"; then
				ok "no terminal of its own (landlock: /dev/ptmx is not granted)"
			else
				not_ok "no terminal of its own (landlock)" \
				    "exit $RC: $(head -c 300 "$TMP/box.out")"
			fi
		else
			if [ "$(cat "$TMP/box.out")" = "ptmx " ]; then
				ok "the command's /dev/pts is its own (only ptmx)"
			else
				not_ok "the command's /dev/pts is its own" "$(cat "$TMP/box.out")"
			fi
			run_out "$TMP/box.out" box -- "$PYIN" -c 'import os, pty; m, s = pty.openpty(); print(os.ttyname(s))'
			if [ "$RC" -eq 0 ] && grep -q '^/dev/pts/0$' "$TMP/box.out"; then
				ok "the command can make a terminal of its own (/dev/pts/0)"
			else
				not_ok "the command can make a terminal of its own" \
				    "exit $RC: $(head -c 300 "$TMP/box.out")"
			fi
		fi
	else
		skip "terminals: no pty could be made here"
	fi
	kill "$ptyp" 2>/dev/null
}

limit_checks() {
	# Processes: 1000 at once go through unconfined, not confined.
	if [ "$(id -u)" -ne 0 ] && [ "$(ulimit -u)" != unlimited ] &&
	    [ "$(ulimit -u)" -lt 1200 ]; then
		skip "1000 processes: this user's own limit is $(ulimit -u)"
	else
		esc direct "1000 processes at once" forks 1000 &&
		    layer "RLIMIT_NPROC (default 512) stops them" \
		    '^BLOCKED forks:1000 EAGAIN after 5[0-9][0-9]'
		run_out "$TMP/box.out" box --max-procs 1500 -- "$ESC" forks 1000
		if [ "$RC" -eq 10 ]; then
			ok "--max-procs 1500 lets 1000 through"
		else
			not_ok "--max-procs 1500 lets 1000 through" "$(first_line "$TMP/box.out")"
		fi
	fi
	if [ "$CONF" = landlock ]; then
		run_out "$TMP/box.out" box --tmpfs-size 8m -- true
		expect_grep "--tmpfs-size in landlock: a not-enforced line" \
		    "$TMP/box.out" '^harn-egressd: sandbox: not enforced: --tmpfs-size \('
		skip "private tmpfs sizes: landlock makes no private tmpfs (/tmp and /run are the host's, not granted)"
		memory_checks
		return
	fi
	# Each private tmpfs is bounded.
	control direct "fill /var/tmp with 16 MiB" fill /var/tmp 16
	run_out "$TMP/box.out" box --tmpfs-size 8m -- "$ESC" fill /var/tmp 16
	if [ "$RC" -eq 0 ] && grep -q '^BLOCKED fill:/var/tmp ENOSPC after [78] MiB' "$TMP/box.out"; then
		ok "--tmpfs-size 8m: /var/tmp is full at 8 MiB"
	else
		not_ok "--tmpfs-size 8m: /var/tmp is full at 8 MiB" "exit $RC: $(first_line "$TMP/box.out")"
	fi
	run_out "$TMP/box.out" box -- sh -c 'grep " /dev/shm " /proc/self/mountinfo'
	if grep -q 'size=524288k' "$TMP/box.out"; then
		ok "the default cap on each private tmpfs is 512 MiB"
	else
		not_ok "the default cap on each private tmpfs is 512 MiB" "$(head -c 300 "$TMP/box.out")"
	fi
	memory_checks
}

memory_checks() {
	run_out "$TMP/box.out" box --max-memory 64m -- true
	if "$EGRESSD" doctor --json | grep -q '"max_memory": true'; then
		[ "$RC" -eq 0 ] && ok "--max-memory where cgroup v2 is delegated" ||
		    not_ok "--max-memory where cgroup v2 is delegated" "exit $RC"
	else
		expect_grep "--max-memory where it cannot be applied: a not-enforced line" \
		    "$TMP/box.out" '^harn-egressd: sandbox: not enforced: --max-memory \('
		run_out "$TMP/box.out" box --profile os_hardened --max-memory 64m -- true
		[ "$RC" -eq 3 ] && ok "--max-memory with os_hardened where it cannot be applied: refused (exit 3)" ||
		    not_ok "--max-memory with os_hardened where it cannot be applied: refused" "exit $RC"
	fi
}

sandbox_suite proc proc_checks tty_checks limit_checks
