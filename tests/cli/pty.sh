#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run mode's terminal (SPEC 6.1): when harn-egressd's standard streams are
# a terminal, the command runs on a pseudo-terminal of its own that
# harn-egressd relays, so nothing it does to its terminal (modes, line
# discipline, ioctls) reaches the caller's, which is put back exactly as
# it was however the run ends.
#
# tests/cli/ptyrun.py plays the user's terminal: it runs harn-egressd as the
# leader of a session whose controlling terminal is a pty of its own,
# types, signals, and reports that terminal's modes during and after the
# run.  Each attack has a control: the same command run on that terminal
# without harn-egressd, which must change it.
#
# Each confinement (namespaces, landlock), as root and then as nobody
# (su; the script again, with copies nobody may read).
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/cli/pty.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
set +e
EGRESSD=${HARN_EGRESSD:-$EGRESSD}
PASS=${HARN_PTY_PASS:-auto}
RUNPTY=$top_srcdir/tests/cli/ptyrun.py
CR=$(printf '\r')
export LANG=C

# term NAME [STEP...] -- CMD...: CMD on ptyrun's terminal (within 30 s),
# "box CONF CMD..." for harn-egressd confined in CONF running CMD;
# its report in $TMP/NAME.rep, what the terminal showed in $TMP/NAME.out.
# With TPID set, steps that signal or look at a process wait for the pid
# that file names.
TPID=""
term() {
	tname=$1
	shift
	targs=""
	while [ "$1" != "--" ]; do
		targs="$targs --step $1"
		shift
	done
	shift
	if [ "$1" = box ]; then
		tconf=$2
		shift 2
		set -- "$EGRESSD" --policy "$POL" --confinement "$tconf" \
		    --workspace "$WS" -- "$@"
	fi
	# shellcheck disable=SC2086
	$PY "$RUNPTY" --timeout 30 --out "$TMP/$tname.out" \
	    ${TPID:+--pid-file "$TPID"} $targs -- "$@" \
	    >"$TMP/$tname.rep" 2>"$TMP/$tname.err"
	TRC=$?
}

# has NAME ERE: a line of NAME's report matches.
has() {
	grep -Eq -- "$2" "$TMP/$1.rep"
}

# expect NAME LABEL ERE...: every ERE matches a line of NAME's report.
expect() {
	ename=$1 elabel=$2
	shift 2
	for e in "$@"; do
		if ! has "$ename" "$e"; then
			not_ok "$elabel" "no line matches /$e/ (ptyrun exit $TRC):" \
			    "$(cat "$TMP/$ename.rep")" \
			    "terminal: $(head -c 400 "$TMP/$ename.out" | tr -d '\r')" \
			    "stderr: $(head -c 300 "$TMP/$ename.err")"
			return 1
		fi
	done
	ok "$elabel"
}

# shows NAME LABEL ERE: what the terminal showed has a line matching.
shows() {
	if tr -d '\r' <"$TMP/$1.out" | grep -Eq -- "$3"; then
		ok "$2"
	else
		not_ok "$2" "no line matches /$3/ on the terminal:" \
		    "$(head -c 600 "$TMP/$1.out" | tr -d '\r')" \
		    "$(cat "$TMP/$1.rep")"
	fi
}

RESTORED='^final echo=on icanon=on same=yes ldisc=0$'
RAW='echo=off icanon=off same=no ldisc=0$'
STTY_ATTACK="stty -echo"
# Modes and a line discipline (N_NULL, 27) on its stdin; exit 0 only when
# the kernel took both.
IOCTL_ATTACK='
import fcntl, struct, termios
a = termios.tcgetattr(0)
a[3] &= ~(termios.ECHO | termios.ICANON)
termios.tcsetattr(0, termios.TCSANOW, a)
fcntl.ioctl(0, 0x5423, struct.pack("i", 27))
assert struct.unpack("i", fcntl.ioctl(0, 0x5424, struct.pack("i", 0)))[0] == 27
'
# A character pushed into its terminal's input.
STI_ATTACK='
import errno, fcntl, termios
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"#")
    print("sti-ok")
except OSError as e:
    print("sti-refused", errno.errorcode[e.errno])
'
WAIT_LINE='
import sys
print("ready", flush=True)
print("got:" + sys.stdin.readline().strip(), flush=True)
'
# The same, and then one more line before it ends.
TWO_LINES="$WAIT_LINE"'sys.stdin.readline()
'
# (The handler writes by itself: print() may be inside the "ready" one.)
INTR='
import os, signal, sys
signal.signal(signal.SIGINT, lambda *a: (os.write(1, b"SIGINT\n"), os._exit(7)))
print("ready", flush=True)
sys.stdin.read()
'
TTY_SEEN='
import os, termios
print("isatty", *[os.isatty(i) for i in range(3)])
t = os.open("/dev/tty", os.O_RDWR)
termios.tcgetattr(t)
os.write(t, b"via-devtty\n")
print("ctty", os.getsid(0) == os.getpid(), os.tcgetpgrp(t) == os.getpgrp())
'
# Its terminal's size, then again at SIGWINCH.
WINCH='
import fcntl, signal, struct, termios
def size():
    r, c, _, _ = struct.unpack("HHHH", fcntl.ioctl(0, termios.TIOCGWINSZ, bytes(8)))
    return "%d %d" % (r, c)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGWINCH])
print("size", size(), flush=True)
signal.sigwait([signal.SIGWINCH])
print("winch", size(), flush=True)
'

# ------------------------------------------------------------------ checks

# The attacks on their own: the caller's terminal is changed.
controls() {
	term ctl-stty -- sh -c "$STTY_ATTACK"
	expect ctl-stty "control: stty -echo on the caller's terminal turns its echo off" \
	    '^rc=0$' '^final echo=off icanon=on same=no ldisc=0$'
	term ctl-ioctl -- "$PYIN" -c "$IOCTL_ATTACK"
	expect ctl-ioctl "control: termios and TIOCSETD on the caller's terminal stick (N_NULL)" \
	    '^rc=0$' '^final .* same=no ldisc=27$'
	term ctl-sti -- "$PYIN" -c "$STI_ATTACK"
	STI_CONTROL=no
	# (The character it pushed is echoed in front of its line.)
	if tr -d '\r' <"$TMP/ctl-sti.out" | grep -q 'sti-ok$'; then
		ok "control: TIOCSTI on the caller's terminal pushes input"
		STI_CONTROL=yes
	else
		# dev.tty.legacy_tiocsti=0: only CAP_SYS_ADMIN may.
		skip "control: TIOCSTI refused here even unconfined ($(tr -d '\r' <"$TMP/ctl-sti.out" | head -c 100); dev.tty.legacy_tiocsti=$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null))"
	fi
	# The leak check sees the caller's terminal where it is held
	# (ptyrun lists CMD's descendants: a shell in between, not exec'd).
	term ctl-fds wait:ready "fds:$TMP/ctl-fds.fds" 'send:\r' -- \
	    sh -c "\"$PYIN\" -c '$WAIT_LINE'; :"
	crdev=$(sed -n 's/^tty_rdev=//p' "$TMP/ctl-fds.rep")
	if [ -n "$crdev" ] && grep -Eq "^[0-9]+ python3 [012] $crdev\$" \
	    "$TMP/ctl-fds.fds"; then
		ok "control: the caller's terminal ($crdev) is found on an unconfined command's fds"
	else
		not_ok "control: the caller's terminal is found on an unconfined command's fds" \
		    "tty $crdev; fds: $(cat "$TMP/ctl-fds.fds")"
	fi
}

attacks() {
	c=$1
	term "$c-stty" -- box "$c" sh -c "$STTY_ATTACK"
	expect "$c-stty" "$c: stty -echo (it succeeds) leaves the caller's terminal as it was" \
	    '^rc=0$' "$RESTORED"
	term "$c-ioctl" -- box "$c" "$PYIN" -c "$IOCTL_ATTACK"
	expect "$c-ioctl" "$c: termios and TIOCSETD (they succeed) leave the caller's terminal and line discipline as they were" \
	    '^rc=0$' "$RESTORED"
	if [ "$STI_CONTROL" = yes ]; then
		term "$c-sti" -- box "$c" "$PYIN" -c "$STI_ATTACK"
		shows "$c-sti" "$c: TIOCSTI on its own terminal is still refused (seccomp EPERM)" \
		    '^sti-refused EPERM$'
	fi
}

io() {
	c=$1
	term "$c-io" 'wait:name\? ' probe:during 'send:hello\r' -- \
	    box "$c" sh -c 'printf "name? "; read x; echo "got:$x"'
	expect "$c-io" "$c: raw while relaying, restored after, the caller's description left blocking" \
	    "^probe during $RAW" '^rc=0$' "$RESTORED" '^nonblock=no$'
	shows "$c-io" "$c: what is typed reaches the command (echoed by its terminal), its output the caller" \
	    '^name\? hello$'
	shows "$c-io" "$c: ... and it read the line" '^got:hello$'
	term "$c-intr" wait:ready 'send:\x03' -- box "$c" "$PYIN" -c "$INTR"
	expect "$c-intr" "$c: ^C typed goes through the pty: the command's SIGINT handler, its exit status (7)" \
	    '^rc=7$' "$RESTORED"
	shows "$c-intr" "$c: ... which printed" '^\^?C?SIGINT$'
	term "$c-winch" 'wait:size ' winsize:40x120 wait:winch -- \
	    box "$c" "$PYIN" -c "$WINCH"
	shows "$c-winch" "$c: the command's terminal starts with the caller's size (24x80)" \
	    '^size 24 80$'
	shows "$c-winch" "$c: the caller's terminal resized: SIGWINCH and the new size reach the command (40x120)" \
	    '^winch 40 120$'
}

tty_seen() {
	c=$1
	term "$c-tty" -- box "$c" "$PYIN" -c "$TTY_SEEN"
	shows "$c-tty" "$c: the command's stdin, stdout and stderr are terminals" \
	    '^isatty True True True$'
	shows "$c-tty" "$c: /dev/tty opens (its controlling terminal), and shows" \
	    '^via-devtty$'
	shows "$c-tty" "$c: it leads its session, in the foreground of its terminal" \
	    '^ctty True True$'
	term "$c-fds" wait:ready "fds:$TMP/$c-fds.fds" 'send:\r' -- \
	    box "$c" "$PYIN" -c "$WAIT_LINE"
	rdev=$(sed -n 's/^tty_rdev=//p' "$TMP/$c-fds.rep")
	f=$TMP/$c-fds.fds
	if [ -z "$rdev" ] || ! grep -Eq '^[0-9]+ python3 0 ' "$f"; then
		not_ok "$c: the command's descriptors are listed" \
		    "tty $rdev; $(cat "$f" 2>/dev/null) $(cat "$TMP/$c-fds.rep")"
	elif grep -Eq " ($rdev|5:2)\$" "$f"; then
		not_ok "$c: no process of the run holds the caller's terminal ($rdev) or a pty master (5:2)" \
		    "$(grep -E " ($rdev|5:2)\$" "$f")"
	else
		ok "$c: no process of the run holds the caller's terminal ($rdev) or a pty master ($(grep -c unreadable "$f") unreadable: non-dumpable)"
	fi
	# The command's 0-2: one pts, the same on all three, not the caller's.
	cmd_ttys=$(grep -E '^[0-9]+ python3 [012] ' "$f" | awk '{print $4}' |
	    sort -u)
	case $cmd_ttys in
	136:*|137:*|138:*|139:*|140:*|141:*|142:*|143:*)
		if [ "$cmd_ttys" != "$rdev" ] && [ "$(echo "$cmd_ttys" | wc -l)" -eq 1 ]; then
			ok "$c: the command's 0, 1 and 2 are one pseudo-terminal of its own ($cmd_ttys)"
		else
			not_ok "$c: the command's 0, 1 and 2 are one pseudo-terminal of its own" "$cmd_ttys"
		fi ;;
	*)	not_ok "$c: the command's 0, 1 and 2 are one pseudo-terminal of its own" \
		    "$cmd_ttys; $(cat "$f")" ;;
	esac
}

streams() {
	c=$1
	# Nothing a terminal: no pty, the pipe is the command's.
	$PY -c '
import os, subprocess, sys
r, w = os.pipe()
print("pipe_ino=%d" % os.fstat(w).st_ino, flush=True)
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=w,
                     stderr=subprocess.DEVNULL)
os.close(w)
out = b""
while True:
    b = os.read(r, 4096)
    if not b:
        break
    out += b
sys.stdout.write(out.decode())
print("rc=%d" % p.wait(timeout=30))
' "$EGRESSD" --policy "$POL" --confinement "$c" --workspace "$WS" -- \
	    "$PYIN" -c 'import os; print("isatty", *[os.isatty(i) for i in range(3)]); print("ino=%d" % os.fstat(1).st_ino)' \
	    >"$TMP/$c-pipe.rep" 2>&1
	pino=$(sed -n 's/^pipe_ino=//p' "$TMP/$c-pipe.rep")
	TRC=0
	expect "$c-pipe" "$c: no terminal anywhere: no pty, the command's stdout is the caller's pipe" \
	    '^isatty False False False$' "^ino=$pino\$" '^rc=0$'
	# Mixed: the terminal's streams on the pty, the pipe as it is.
	$PY "$RUNPTY" --timeout 30 --out "$TMP/$c-mixed.out" \
	    --stdout-pipe "$TMP/$c-mixed.pipe" -- "$EGRESSD" --policy "$POL" \
	    --confinement "$c" --workspace "$WS" -- "$PYIN" -c \
	    'import os; print("isatty", *[os.isatty(i) for i in range(3)]); print("ino=%d" % os.fstat(1).st_ino)' \
	    >"$TMP/$c-mixed.rep" 2>"$TMP/$c-mixed.err"
	TRC=$?
	cat "$TMP/$c-mixed.pipe" >>"$TMP/$c-mixed.rep"
	pino=$(sed -n 's/^pipe_ino=//p' "$TMP/$c-mixed.rep")
	expect "$c-mixed" "$c: stdout a pipe, stdin and stderr the terminal: the pipe passes as it is, the others are the pty" \
	    '^isatty True False True$' "^ino=$pino\$" '^rc=0$' "$RESTORED"
}

endings() {
	c=$1
	term "$c-exit" -- box "$c" sh -c 'exit 42'
	expect "$c-exit" "$c: the exit status is kept (42)" '^rc=42$' "$RESTORED"
	term "$c-killed" wait:ready probe:during 'send:\r' -- box "$c" sh -c \
	    'echo ready; read x; kill -9 $$'
	expect "$c-killed" "$c: the command killed (SIGKILL): 137, the terminal restored" \
	    '^rc=137$' "^probe during $RAW" "$RESTORED"
	for s in TERM HUP INT; do
		case $s in TERM) n=143 ;; HUP) n=129 ;; INT) n=130 ;; esac
		term "$c-sig$s" wait:ready probe:during "kill:$s" -- \
		    box "$c" "$PYIN" -c "$WAIT_LINE"
		expect "$c-sig$s" "$c: harn-egressd sent SIG$s mid-run: raw before, restored after ($n)" \
		    "^probe during $RAW" "^rc=$n\$" "$RESTORED"
	done
	# Output still in the pty when the command ends is shown.
	term "$c-drain" -- box "$c" sh -c \
	    'i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done'
	expect "$c-drain" "$c: 2000 lines written just before the end: exit 0" \
	    '^rc=0$' "$RESTORED"
	shows "$c-drain" "$c: ... the last of them reaches the terminal" \
	    '^line 1999$'
}

jobs_() {
	c=$1
	# Stopped from outside (SIGTSTP): the terminal goes back first, and
	# raw again on SIGCONT.
	term "$c-tstp" wait:ready probe:raw kill:TSTP state:T probe:stopped \
	    kill:CONT state:not-T 'send:typed\r' wait:got probe:cont 'send:\r' \
	    -- box "$c" "$PYIN" -c "$TWO_LINES"
	expect "$c-tstp" "$c: SIGTSTP puts the caller's terminal back before stopping, SIGCONT takes it again" \
	    "^probe raw $RAW" '^probe stopped echo=on icanon=on same=yes' \
	    "^probe cont $RAW" '^rc=0$' "$RESTORED"
	# In the background of the caller's terminal: its modes are not
	# touched (no SIGTTOU stop either), its input not read.
	if ! command -v bash >/dev/null 2>&1; then
		skip "$c: in the background: no bash here for job control"
		return
	fi
	TPID=$TMP/$c-bg.pid
	term "$c-bg" wait:ready probe:during kill:TERM -- bash -m -c \
	    '"$@" & echo $! >"$0"; wait $!' "$TMP/$c-bg.pid" \
	    "$EGRESSD" --policy "$POL" --confinement "$c" --workspace "$WS" \
	    -- "$PYIN" -c "$WAIT_LINE"
	TPID=""
	expect "$c-bg" "$c: run in the background, the caller's terminal is left alone" \
	    '^probe during echo=on icanon=on same=yes ldisc=0$' '^rc=143$' \
	    "$RESTORED"
}

own_lines() {
	c=$1
	# A refusal's line while the terminal is raw still starts a line.
	term "$c-lines" -- box "$c" "$PYIN" -c '
import urllib.request, urllib.error
try:
    urllib.request.urlopen("http://blocked.test/", timeout=10)
except urllib.error.HTTPError as e:
    print("status", e.code)
'
	if grep -q "^harn-egressd: refused http blocked.test:80: no_allow_rule: the policy line 'allow blocked.test:80' would admit it$CR\$" \
	    "$TMP/$c-lines.out" && grep -q "^status 403$CR\$" "$TMP/$c-lines.out"; then
		ok "$c: our own stderr lines end in CR LF while the terminal is raw"
	else
		not_ok "$c: our own stderr lines end in CR LF while the terminal is raw" \
		    "$(od -c "$TMP/$c-lines.out" | head -20)"
	fi
}

# Run by another user (su nobody) on root's terminal, which that user may
# not open again: harn-egressd relays through the caller's descriptions.
su_caller() {
	c=$1
	if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1 ||
	    ! command -v su >/dev/null 2>&1; then
		return
	fi
	SU=$(mktemp -d /tmp/harn-pty-su.XXXXXX)
	SU_DIR=$SU
	at_exit rm_su
	mkdir "$SU/ws"
	: >"$SU/empty.conf"
	cp "$EGRESSD" "$SU/harn-egressd"
	chmod 755 "$SU" "$SU/harn-egressd"
	chmod 644 "$SU/empty.conf"
	chown nobody "$SU/ws"
	term "$c-su" 'wait:name\? ' probe:during 'send:hello\r' -- su nobody \
	    -s /bin/sh -c "'$SU/harn-egressd' --policy '$SU/empty.conf' \
	    --confinement $c --workspace '$SU/ws' -- sh -c \
	    'printf \"name? \"; read x; echo \"got:\$x\"'"
	expect "$c-su" "$c: su nobody on root's terminal (no description of its own): relayed, raw, restored, left blocking" \
	    "^probe during $RAW" '^rc=0$' "$RESTORED" '^nonblock=no$'
	shows "$c-su" "$c: ... what is typed reaches the command" '^got:hello$'
}
rm_su() {
	rm -rf "$SU_DIR"
}

suite() {
	echo "# pass: $1 (uid $(id -u))"
	WS=$TMP/ws
	POL=$TMP/empty.conf
	mkdir -p "$WS"
	: >"$POL"
	controls
	for c in namespaces landlock; do
		# Exit 3: os_hardened's refusal where c cannot attach here.
		"$EGRESSD" --policy "$POL" --confinement "$c" \
		    --profile os_hardened --workspace "$WS" -- true \
		    </dev/null >"$TMP/probe-$c.out" 2>&1
		case $? in
		0)	;;
		3)	skip "$c: cannot attach here: $(head -c 300 "$TMP/probe-$c.out")"
			continue ;;
		*)	not_ok "$c: a confined true runs" \
			    "$(head -c 400 "$TMP/probe-$c.out")"
			continue ;;
		esac
		attacks "$c"
		io "$c"
		tty_seen "$c"
		streams "$c"
		endings "$c"
		jobs_ "$c"
		own_lines "$c"
		su_caller "$c"
	done
}

if [ "$PASS" = unprivileged ] || [ "$(id -u)" -ne 0 ]; then
	suite unprivileged
else
	suite root
	if id nobody >/dev/null 2>&1; then
		nobody_pass cli/pty HARN_PTY_PASS "$top_srcdir/tests/cli/ptyrun.py"
	else
		skip "unprivileged pass: no user 'nobody'"
	fi
fi
finish
