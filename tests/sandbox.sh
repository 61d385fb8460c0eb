#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run mode's sandbox (SPEC 2 exit codes, SPEC 6): escape attempts from
# inside the confined command, each paired with an unconfined control.
#
# tests/escape.c is the probe: one attempt per run, "ESCAPED ..." (exit 10)
# or "BLOCKED ... ERRNO" (exit 0).  For every escape probe the control runs
# the same attempt unconfined and must ESCAPE (a probe that cannot notice
# an escape never passes); then the confined run must be BLOCKED, and the
# canary (the host-side listener the attempt aims at) must have seen no
# connection.  Where the host cannot give the control its power (a kernel
# feature off, a privilege the pass lacks) the check is skipped, naming
# what is missing.  A second line for some probes ("layer: ...") names
# the mechanism SPEC 6.2 expects to stop it (seccomp's EPERM at the
# syscall, Landlock's EACCES), so a block by the wrong layer shows.
#
# The suite runs as root (when the script is run as root) and then again
# as nobody (su), which exercises the user namespace; without root, only
# the unprivileged pass runs.  All traffic stays on loopback (and the
# host's own address, which never leaves the machine).
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox.sh
# HARN_EGRESSD=/path/to/binary overrides the binary under test.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set +e
EGRESSD=${HARN_EGRESSD:-$EGRESSD}
PASS=${HARN_SANDBOX_PASS:-auto}
# namespaces: as the host lets us; landlock: under tests/dockerish.c, a
# default Docker container's seccomp profile and capabilities, where
# namespaces cannot attach and auto must choose landlock.
CONF=${HARN_SANDBOX_CONFINEMENT:-namespaces}
LAUNCH=""
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy \
    no_proxy NO_PROXY LD_PRELOAD GLIBC_TUNABLES SSH_AUTH_SOCK \
    XDG_RUNTIME_DIR 2>/dev/null || true
export LANG=C

# The interpreter itself, not a version-manager shim (with site: some
# checks here want it); PYIN, for inside the sandbox, is lib.sh's.
PY=$(${PYTHON:-python3} -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -n "$PY" ] || PY=python3

# ------------------------------------------------------------------ helpers


now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

first_line() {
	head -n 1 "$1" | cut -c1-200
}

# box [OPTION...] -- CMD...: the binary under test, confined, with the
# fake HOME, the policy, the workspace, the decision log.  The planted
# SECRET_TOKEN is in its environment.
# BOX_ENV: more NAME=VALUE words for its environment (no glob characters).
BOX_ENV=""
box() {
	# shellcheck disable=SC2086
	env HOME="$H" SECRET_TOKEN="$ENV_SECRET" $BOX_ENV $LAUNCH "$EGRESSD" \
	    --policy "$POL" --workspace "$WS" --log "$TMP/decisions.log" "$@"
}
# The same, replacing the calling (sub)shell: for `box_exec ... &`, whose
# $! is then harn-egressd itself.
box_exec() {
	# shellcheck disable=SC2086
	exec env HOME="$H" SECRET_TOKEN="$ENV_SECRET" ${BOX_TMPDIR:+TMPDIR=$BOX_TMPDIR} $LAUNCH "$EGRESSD" \
	    --policy "$POL" --workspace "$WS" --log "$TMP/decisions.log" "$@"
}

# run_out FILE CMD...: run, stdout+stderr to FILE; sets RC.
run_out() {
	rof=$1
	shift
	"$@" >"$rof" 2>&1
	RC=$?
	# A plain user's landlock run says this every time (proc_checks
	# checks it once); the probes' output is what the checks read.
	[ -n "$QUIET_LINE" ] && sed -i "/$QUIET_LINE/d" "$rof"
	return 0
}
QUIET_LINE=""

# wait_tag TAG: the canary recorded TAG (within 3 s).
wait_tag() {
	wn=0
	while ! grep -Fq -- " $1" "$TMP/canary.log" 2>/dev/null; do
		[ $wn -ge 30 ] && return 1
		sleep 0.1
		wn=$((wn + 1))
	done
	return 0
}

# control MODE LABEL PROBE ARGS...: the attempt, unconfined, must ESCAPE.
# MODE: direct (as this pass's user), or userns (in `unshare -rnm`: the
# root-in-a-user-namespace the sandbox's own set-up holds, for probes that
# need a capability in the unprivileged pass).  Returns 0 when it escaped.
control() {
	cmode=$1 clabel=$2
	shift 2
	case $cmode in
	direct)	run_out "$TMP/control.out" env HOME="$H" \
		    SECRET_TOKEN="$ENV_SECRET" "$ESC" "$@" ;;
	userns)	run_out "$TMP/control.out" unshare -rnm "$ESC" "$@" ;;
	esac
	if [ "$RC" -eq 10 ] && grep -q '^ESCAPED ' "$TMP/control.out"; then
		ok "control ($cmode) escapes: $clabel: $(first_line "$TMP/control.out")"
		return 0
	fi
	not_ok "control ($cmode) escapes: $clabel" \
	    "exit $RC, want 10 (ESCAPED): $ESC $*" \
	    "output: $(head -c 400 "$TMP/control.out")"
	return 1
}

# confined LABEL [OPTION... --] PROBE ARGS...: must be BLOCKED (exit 0).
# Leaves the probe's output in $TMP/box.out; returns 0 when blocked.
confined() {
	blabel=$1
	shift
	run_out "$TMP/box.out" box -- "$ESC" "$@"
	if [ "$RC" -eq 0 ] && grep -q '^BLOCKED ' "$TMP/box.out"; then
		ok "confined blocked: $blabel: $(first_line "$TMP/box.out")"
		return 0
	fi
	not_ok "confined blocked: $blabel" \
	    "exit $RC, want 0 (BLOCKED): $ESC $*" \
	    "output: $(head -c 400 "$TMP/box.out")"
	return 1
}

# confined_opts LABEL OPTIONS... -- PROBE ARGS...: as confined, with options.
confined_opts() {
	blabel=$1
	shift
	run_out "$TMP/box.out" box "$@"
	if [ "$RC" -eq 0 ] && grep -q '^BLOCKED ' "$TMP/box.out"; then
		ok "confined blocked: $blabel: $(first_line "$TMP/box.out")"
		return 0
	fi
	not_ok "confined blocked: $blabel" "exit $RC, want 0 (BLOCKED): $*" \
	    "output: $(head -c 400 "$TMP/box.out")"
	return 1
}

# layer NAME ERE: the last confined probe was stopped where SPEC says.
layer() {
	if grep -Eq -- "$2" "$TMP/box.out"; then
		ok "layer: $1"
	else
		not_ok "layer: $1" "want /$2/, got: $(first_line "$TMP/box.out")"
	fi
}

# esc MODE LABEL PROBE ARGS...: control, then confined.
esc() {
	emode=$1 elabel=$2
	shift 2
	control "$emode" "$elabel" "$@" || return 1
	confined "$elabel" "$@"
}

# net_esc LABEL PROBE HOST PORT: network attempt at a canary; the control
# must reach it (canary records the control's tag), the confined one must
# not (checked at the end, in canary_final).
SANDBOX_TAGS=""
net_esc() {
	nlabel=$1 nprobe=$2
	shift 2
	NTAG=$(echo "$nlabel" | tr -c 'A-Za-z0-9\n' '-')
	if control direct "$nlabel" "$nprobe" "$@" "C-$NTAG"; then
		if wait_tag "C-$NTAG"; then
			ok "canary recorded the control: $nlabel"
		else
			not_ok "canary recorded the control: $nlabel" \
			    "no 'C-$NTAG' in the canary log"
		fi
	else
		return 1
	fi
	SANDBOX_TAGS="$SANDBOX_TAGS S-$NTAG"
	confined "$nlabel" "$nprobe" "$@" "S-$NTAG"
}

FINAL_N=0
canary_final() {
	# A marker sent last: once the canary recorded it, it recorded what
	# reached it before (each connection as its first line comes).
	FINAL_N=$((FINAL_N + 1))
	$PY -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(sys.argv[2].encode() + b"\n")
s.close()' "$P_TCP4" "final-$FINAL_N" 2>/dev/null
	wait_tag "final-$FINAL_N" ||
	    not_ok "the canary records a marker sent after the probes"
	for t in $SANDBOX_TAGS; do
		if grep -Fq -- " $t" "$TMP/canary.log"; then
			not_ok "canary saw no connection from inside: $t" \
			    "$(grep -F -- " $t" "$TMP/canary.log" | head -3)"
		else
			ok "canary saw no connection from inside: $t"
		fi
	done
}

sysctl_val() {
	cat "/proc/sys/$1" 2>/dev/null || echo absent
}

# ------------------------------------------------------------------ set-up

# in_pty FILE CMD...: CMD with a new pty as its controlling terminal and
# stdio (a terminal harn-egressd is started on), its output to FILE.
in_pty() {
	ipf=$1
	shift
	$PY -c '
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
os.waitpid(pid, 0)
sys.stdout.write(out.decode("ascii", "replace").replace("\r", ""))' "$@" >"$ipf" 2>&1
	[ -n "$QUIET_LINE" ] && sed -i "/$QUIET_LINE/d" "$ipf"
	return 0
}

# ws_own PATH...: made by this pass, the command's to write (a root
# caller's landlock command is uid 65533 on disk).
ws_own() {
	if [ "$CONF" = landlock ] && [ "$(id -u)" -eq 0 ]; then
		chown 65533:65533 "$@"
	fi
}

# The canaries: TCP on 127.0.0.1, 127.0.0.2, [::1] and the host's own
# address; a UDP echo; pathname and abstract unix servers; an HTTP origin.
# Each connection is one line in canary.log: "KIND NAME TAG".
write_canary() {
	cat >"$TMP/canary.py" <<'EOF'
import os, signal, socket, sys, threading
d = sys.argv[1]
log = open(os.path.join(d, "canary.log"), "a", buffering=1)
lock = threading.Lock()
signal.signal(signal.SIGTERM, lambda *a: os._exit(0))

def rec(line):
    with lock:
        log.write(line + "\n")
        log.flush()

def first_line(c):
    c.settimeout(1.0)
    data = b""
    try:
        while b"\n" not in data and len(data) < 4096:
            b = c.recv(4096)
            if not b:
                break
            data += b
    except OSError:
        pass
    return data

def handle(c, kind, name):
    data = first_line(c)
    if kind == "origin":
        rec("origin %s %s" % (name, data.split(b"\r\n")[0].decode("ascii", "replace")))
        try:
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n"
                      b"Connection: close\r\n\r\norigin-ok\n")
        except OSError:
            pass
    else:
        tag = data.decode("ascii", "replace").strip() or "-"
        rec("%s %s %s" % (kind, name, tag))
    c.close()

def serve(s, kind, name):
    while True:
        c, _ = s.accept()
        threading.Thread(target=handle, args=(c, kind, name), daemon=True).start()

def udp(s):
    while True:
        data, peer = s.recvfrom(4096)
        rec("udp u4 %s" % data.decode("ascii", "replace"))
        s.sendto(data, peer)

env = []
def tcp(var, fam, addr, kind="tcp"):
    try:
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.bind((addr, 0))
        s.listen(64)
    except OSError as e:
        env.append("%s=" % var)
        sys.stderr.write("canary: %s %s: %s\n" % (var, addr, e))
        return
    env.append("%s=%d" % (var, s.getsockname()[1]))
    threading.Thread(target=serve, args=(s, kind, var), daemon=True).start()

tcp("P_TCP4", socket.AF_INET, "127.0.0.1")
tcp("P_TCP4B", socket.AF_INET, "127.0.0.2")
tcp("P_TCP6", socket.AF_INET6, "::1")
tcp("P_ORIGIN", socket.AF_INET, "127.0.0.1", "origin")
# The host's own address: a UDP connect sends nothing.
hostip = ""
try:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.connect(("192.0.2.1", 9))
    hostip = u.getsockname()[0]
    u.close()
except OSError:
    pass
if hostip and not hostip.startswith("127."):
    env.append("HOST_IP=%s" % hostip)
    tcp("P_HOST", socket.AF_INET, hostip)
else:
    env.append("HOST_IP=")
# A process's own netlink socket: reached by its port id, not the kernel.
try:
    nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    nl.bind((0, 0))
    env.append("P_NETLINK=%d" % nl.getsockname()[0])
    def netlink():
        while True:
            data = nl.recv(4096)
            rec("netlink nl %s" % data.decode("ascii", "replace").strip())
    threading.Thread(target=netlink, daemon=True).start()
except OSError as e:
    env.append("P_NETLINK=")
us = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
us.bind(("127.0.0.1", 0))
env.append("P_UDP=%d" % us.getsockname()[1])
threading.Thread(target=udp, args=(us,), daemon=True).start()
def dgram(s, path):
    while True:
        data = s.recv(4096)
        rec("dgram %s %s" % (path, data.decode("ascii", "replace").strip()))

for a in sys.argv[2:]:
    kind, _, path = a.partition(":")
    if kind == "dgram":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(path)
        os.chmod(path, 0o666)
        threading.Thread(target=dgram, args=(s, path), daemon=True).start()
        continue
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if kind == "abstract":
        s.bind("\0" + path)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass
        s.bind(path)
        os.chmod(path, 0o600 if kind == "unix600" else 0o666)
    s.listen(64)
    threading.Thread(target=serve, args=(s, kind, path), daemon=True).start()
tmp = os.path.join(d, "canary.env.tmp")
with open(tmp, "w") as f:
    f.write("\n".join(env) + "\n")
os.replace(tmp, os.path.join(d, "canary.env"))
signal.pause()
EOF
}

setup() {
	WS=$TMP/ws
	H=$TMP/home
	mkdir -p "$WS/.bin" "$H/.ssh" "$H/.aws" "$H/.config/gh" \
	    "$H/.config/other" "$H/.config/extra" "$H/.docker/desktop" \
	    "$H/.gnupg" "$TMP/roroot" "$TMP/rwroot"
	chmod 700 "$H/.gnupg"
	SECRET="HARN-FAKE-CREDENTIAL-$$-$(date +%s%N)"
	ENV_SECRET="harn-env-secret-$$"
	printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$SECRET" \
	    >"$H/.ssh/id_rsa"
	printf '[default]\naws_secret_access_key = %s\n' "$SECRET" \
	    >"$H/.aws/credentials"
	printf 'github.com:\n  oauth_token: %s\n' "$SECRET" \
	    >"$H/.config/gh/hosts.yml"
	printf 'github.com:\n  user: control\n' >"$H/.config/gh/config.yml"
	printf '{"auths":{"x":{"auth":"%s"}}}\n' "$SECRET" \
	    >"$H/.docker/config.json"
	printf 'machine example.com password %s\n' "$SECRET" >"$H/.netrc"
	printf 'extra %s\n' "$SECRET" >"$H/.config/extra/secret.txt"
	echo "control-ok-home" >"$H/ok.txt"
	echo "control-ok-config" >"$H/.config/other/ok.txt"
	echo "read-only-root-file" >"$TMP/roroot/ro.txt"
	ln -s "$H/.ssh/id_rsa" "$WS/key-link"
	printf '#!/bin/sh\nexit 0\n' >"$WS/noexec.sh"
	chmod 644 "$WS/noexec.sh"
	ESC=$WS/.bin/escape
	if ! cc -O1 -pthread -o "$ESC" "$top_srcdir/tests/escape.c" 2>"$TMP/cc.err"; then
		not_ok "the probe builds" "$(head -c 600 "$TMP/cc.err")"
		return 1
	fi
	chmod 755 "$ESC"
	if ! cc -O1 -o "$TMP/dockerish" "$top_srcdir/tests/dockerish.c" \
	    -lseccomp 2>"$TMP/cc.err"; then
		not_ok "the container launcher builds" \
		    "$(head -c 600 "$TMP/cc.err")"
		return 1
	fi
	chmod 755 "$TMP/dockerish"
	if [ "$CONF" = landlock ]; then
		LAUNCH="$TMP/dockerish --"
		if [ "$(id -u)" -eq 0 ]; then
			# A workspace uid 65533 can write: a root caller's
			# command runs as that uid (profile_checks tries one it
			# cannot).
			chmod 711 "$TMP"
			chown 65533:65533 "$WS"
		else
			QUIET_LINE='^harn-egressd: sandbox: not enforced: capability bounding set ('
		fi
	fi
	# A directory outside every grant and every private dir.
	if [ -n "${HARN_OUTSIDE_DIR:-}" ]; then
		OUT=$HARN_OUTSIDE_DIR
	elif [ "$(id -u)" -eq 0 ] && OUT=$(mktemp -d /var/lib/harn-test.XXXXXX 2>/dev/null); then
		OUTSIDE_OWNED=$OUT
		at_exit rm_outside
	elif OUT=$(mktemp -d "$HOME/.harn-test-outside.XXXXXX" 2>/dev/null); then
		OUTSIDE_OWNED=$OUT
		at_exit rm_outside
	else
		OUT=""
	fi
	[ -n "$OUT" ] && echo "outside-readable" >"$OUT/readable.txt"
	# Searchable by anyone, so that what stops the command is the sandbox.
	[ -n "${OUTSIDE_OWNED:-}" ] && chmod 755 "$OUT"
	# Unix sockets of "host processes" in the places SPEC 6.1 names.
	mkdir -p "$H/.cache"
	SOCK_ARGS="dgram:$TMP/log.sock unix:$TMP/host.sock unix:$WS/ws.sock unix:$H/.gnupg/S.gpg-agent unix:$H/.docker/desktop/docker.sock abstract:harn-canary-$$ unix:$H/.cache/app.sock unix600:$WS/root600.sock"
	# Outside every private directory and every grant (/var/lib, or the
	# pass's own outside directory), and one only its owner may use.
	[ -n "$OUT" ] && SOCK_ARGS="$SOCK_ARGS unix:$OUT/lib.sock unix600:$OUT/own600.sock"
	SOCK_DIRS=""
	for base in /tmp /var/tmp /run /dev/shm; do
		d=$(mktemp -d "$base/harn-sock.XXXXXX" 2>/dev/null) || continue
		SOCK_DIRS="$SOCK_DIRS $d"
		SOCK_ARGS="$SOCK_ARGS unix:$d/s.sock"
	done
	at_exit rm_sock_dirs
	write_canary
	# shellcheck disable=SC2086
	$PY -S "$TMP/canary.py" "$TMP" $SOCK_ARGS >"$TMP/canary.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	if ! wait_file "$TMP/canary.env" 50; then
		not_ok "the canaries start" "$(head -c 600 "$TMP/canary.out")"
		return 1
	fi
	. "$TMP/canary.env"
	printf 'default deny\nallow_loopback on\nallow 127.0.0.1:%s\n' \
	    "$P_ORIGIN" >"$TMP/policy.conf"
	POL=$TMP/policy.conf
	cc -shared -fPIC -o "$TMP/empty.so" -x c /dev/null 2>/dev/null
	return 0
}

rm_outside() {
	[ -n "${OUTSIDE_OWNED:-}" ] && rm -rf "$OUTSIDE_OWNED"
}
rm_sock_dirs() {
	for d in $SOCK_DIRS; do
		rm -rf "$d"
	done
}

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
	# command's would be its own pty's, tests/pty.sh).
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

# ------------------------------------------------------------------ filesystem

fs_checks() {
	for f in .ssh/id_rsa .aws/credentials .config/gh/hosts.yml \
	    .docker/config.json .netrc; do
		if control direct "read ~/$f" read "$H/$f"; then
			grep -Fq "$SECRET" "$TMP/control.out" ||
			    not_ok "the control read the planted secret in ~/$f"
			# A denied file may read as the empty /dev/null that
			# masks it; a denied directory must be refused.
			confined "read ~/$f" read "$H/$f" &&
			case $f in
			.ssh/*|.aws/*)
				# shellcheck disable=SC2088
				layer "~/${f%%/*} is refused (EACCES)" \
				    "^BLOCKED read:$H/$f EACCES" ;;
			esac
			if grep -Fq "$SECRET" "$TMP/box.out"; then
				not_ok "the secret of ~/$f does not leak" "$(first_line "$TMP/box.out")"
			fi
		fi
	done
	esc direct "list ~/.ssh" list "$H/.ssh"
	esc direct "list ~/.aws" list "$H/.aws"
	esc direct "read ~/.ssh/id_rsa through a symlink in the workspace" \
	    read "$WS/key-link"
	control direct "read a --read-deny-root file" read "$H/.config/extra/secret.txt" &&
	    confined_opts "read a --read-deny-root file" \
	    --read-deny-root "$H/.config/extra/secret.txt" -- \
	    "$ESC" read "$H/.config/extra/secret.txt"
	control direct "read a file in a --read-deny-root dir" read "$H/.config/extra/secret.txt" &&
	    confined_opts "read a file in a --read-deny-root dir" \
	    --read-deny-root "$H/.config/extra" -- \
	    "$ESC" read "$H/.config/extra/secret.txt"

	# Control files next to the denied ones stay readable.
	for f in ok.txt .config/other/ok.txt .config/gh/config.yml; do
		run_out "$TMP/box.out" box -- "$ESC" read "$H/$f"
		if [ "$RC" -eq 10 ]; then
			ok "readable inside: ~/$f"
		else
			not_ok "readable inside: ~/$f" "exit $RC: $(first_line "$TMP/box.out")"
		fi
	done
	run_out "$TMP/box.out" box --profile workspace_paths -- "$ESC" read "$H/ok.txt"
	if [ "$RC" -eq 0 ]; then
		ok "workspace_paths: \$HOME is not readable: $(first_line "$TMP/box.out")"
	else
		not_ok "workspace_paths: \$HOME is not readable" \
		    "exit $RC: $(first_line "$TMP/box.out")"
	fi

	# Writes: inside the workspace yes, anywhere else no.
	rm -f "$WS/inside.txt"
	run_out "$TMP/box.out" box -- "$ESC" write "$WS/inside.txt"
	if [ "$RC" -eq 10 ] && grep -q harn-escape-write "$WS/inside.txt" 2>/dev/null; then
		ok "writing inside the workspace works"
	else
		not_ok "writing inside the workspace works" \
		    "exit $RC: $(first_line "$TMP/box.out")"
	fi
	esc direct "write into \$HOME (read-only)" write "$H/new-in-home.txt" &&
	    layer "a write in \$HOME is refused (Landlock EACCES, or the read-only mount's EROFS)" '^BLOCKED write:.* (EACCES|EROFS)'
	rm -f "$H/new-in-home.txt"
	[ -e "$H/new-in-home.txt" ] && not_ok "no file appeared in \$HOME"
	if [ -n "$OUT" ]; then
		esc direct "write outside every grant ($OUT)" write "$OUT/new.txt"
		rm -f "$OUT/new.txt"
		esc direct "read outside every grant ($OUT)" read "$OUT/readable.txt"
	else
		skip "write outside every grant: no directory to use"
	fi
	esc direct "write into the read-only root" write "$TMP/roroot/new.txt"
	rm -f "$TMP/roroot/new.txt"
	run_out "$TMP/box.out" box --read-only-root "$TMP/roroot" -- "$ESC" read "$TMP/roroot/ro.txt"
	if [ "$RC" -eq 10 ]; then
		ok "--read-only-root is readable"
	else
		not_ok "--read-only-root is readable" "exit $RC: $(first_line "$TMP/box.out")"
	fi
	confined_opts "--read-only-root is not writable" --read-only-root \
	    "$TMP/roroot" -- "$ESC" write "$TMP/roroot/new.txt"
	run_out "$TMP/box.out" box --write-root "$TMP/rwroot" -- "$ESC" write "$TMP/rwroot/new.txt"
	if [ "$RC" -eq 10 ] && [ -s "$TMP/rwroot/new.txt" ]; then
		ok "--write-root is writable"
	else
		not_ok "--write-root is writable" "exit $RC: $(first_line "$TMP/box.out")"
	fi
	# A read-only root inside the workspace stays read-only.
	mkdir -p "$WS/vendor"
	echo vendored >"$WS/vendor/lib.txt"
	control direct "write into a --read-only-root inside the workspace" \
	    write "$WS/vendor/new.txt" &&
	    confined_opts "write into a --read-only-root inside the workspace" \
	    --read-only-root "$WS/vendor" -- "$ESC" write "$WS/vendor/new.txt"
	rm -f "$WS/vendor/new.txt"
	# A denied file inside the workspace: unreadable, and the workspace
	# stays writable around it.
	echo "ws-secret $SECRET" >"$WS/secret.env"
	control direct "read a --read-deny-root file inside the workspace" \
	    read "$WS/secret.env" &&
	    confined_opts "read a --read-deny-root file inside the workspace" \
	    --read-deny-root "$WS/secret.env" -- "$ESC" read "$WS/secret.env"
	# Beside it, what was there keeps its grant, and so does every
	# directory below; a new file made directly in the directory that
	# holds a denied path cannot be opened (Landlock cannot grant a
	# directory without all below it; the price of a denial that holds
	# when the host replaces the file during the run).
	echo before >"$WS/beside.txt"
	mkdir -p "$WS/sub"
	ws_own "$WS/beside.txt" "$WS/sub"
	rm -f "$WS/new-beside-denied.txt" "$WS/sub/new.txt"
	run_out "$TMP/box.out" box --read-deny-root "$WS/secret.env" -- \
	    "$ESC" write "$WS/beside.txt"
	if [ "$RC" -eq 10 ] && grep -q harn-escape-write "$WS/beside.txt"; then
		ok "a file beside a denied one in the workspace stays writable"
	else
		not_ok "a file beside a denied one in the workspace stays writable" \
		    "exit $RC: $(first_line "$TMP/box.out")"
	fi
	run_out "$TMP/box.out" box --read-deny-root "$WS/secret.env" -- \
	    "$ESC" write "$WS/sub/new.txt"
	if [ "$RC" -eq 10 ] && [ -s "$WS/sub/new.txt" ]; then
		ok "a new file in a directory below stays writable"
	else
		not_ok "a new file in a directory below stays writable" \
		    "exit $RC: $(first_line "$TMP/box.out")"
	fi
	run_out "$TMP/box.out" box --read-deny-root "$WS/secret.env" -- \
	    "$ESC" write "$WS/new-beside-denied.txt"
	if [ "$RC" -eq 0 ] && grep -q '^BLOCKED write:.* EACCES' "$TMP/box.out"; then
		ok "a new file directly beside a denied one: EACCES (documented)"
	else
		not_ok "a new file directly beside a denied one: EACCES (documented)" \
		    "exit $RC: $(first_line "$TMP/box.out")"
	fi
	rm -rf "$WS/beside.txt" "$WS/sub"
	rm -f "$WS/secret.env" "$WS/new-beside-denied.txt"
	# /tmp inside is private: a write there never reaches the host's;
	# and it is the command's own writable /tmp.
	hostname_tmp=/tmp/harn-private-probe-$$
	run_out "$TMP/box.out" box -- "$ESC" write "$hostname_tmp"
	if [ -e "$hostname_tmp" ]; then
		not_ok "a write to /tmp inside never reaches the host's /tmp" \
		    "$hostname_tmp appeared on the host"
		rm -f "$hostname_tmp"
	else
		ok "a write to /tmp inside never reaches the host's /tmp ($(first_line "$TMP/box.out"))"
	fi
	# ($HOME is under /tmp in this suite: its denied paths are hidden by
	# skeletons, and /tmp stays whole; tests/identity.sh tries that.)
	for d in /tmp /var/tmp /run; do
		run_out "$TMP/box.out" box --profile workspace_paths -- "$ESC" \
		    write "$d/harn-private-probe-$$"
		if [ "$CONF" = landlock ]; then
			# The host's own: neither private nor granted.
			if [ "$RC" -eq 0 ] && grep -q '^BLOCKED write:.* EACCES' "$TMP/box.out"; then
				ok "$d is not writable (landlock: the host's, not granted)"
			else
				not_ok "$d is not writable (landlock)" \
				    "exit $RC: $(first_line "$TMP/box.out")"
			fi
		elif [ "$RC" -eq 10 ]; then
			ok "$d inside is writable (private)"
		else
			not_ok "$d inside is writable (private)" \
			    "$(first_line "$TMP/box.out")"
		fi
		[ -e "$d/harn-private-probe-$$" ] && {
			not_ok "a write to $d inside never reaches the host's"
			rm -f "$d/harn-private-probe-$$"
		}
	done
	# /dev/shm is shared with the host unless made private.
	if shm=$(mktemp -d /dev/shm/harn-shm.XXXXXX 2>/dev/null); then
		esc direct "write into the host's /dev/shm" write "$shm/new.txt"
		rm -rf "$shm"
	else
		skip "write into /dev/shm: not writable on this host"
	fi
}

# ------------------------------------------------------------------ environment

env_checks() {
	planted="LD_PRELOAD=$TMP/empty.so GLIBC_TUNABLES=glibc.malloc.check=0 SSH_AUTH_SOCK=/tmp/agent.sock NO_PROXY=planted.example no_proxy=planted.example XDG_RUNTIME_DIR=/run/user/0"
	for v in SECRET_TOKEN LD_PRELOAD GLIBC_TUNABLES SSH_AUTH_SOCK \
	    XDG_RUNTIME_DIR; do
		# shellcheck disable=SC2086
		run_out "$TMP/control.out" env $planted \
		    SECRET_TOKEN="$ENV_SECRET" "$ESC" env "$v"
		if [ "$RC" -ne 10 ]; then
			not_ok "control (direct) escapes: env $v" \
			    "exit $RC: $(first_line "$TMP/control.out")"
			continue
		fi
		ok "control (direct) escapes: env $v"
		BOX_ENV=$planted
		run_out "$TMP/box.out" box -- "$ESC" env "$v"
		BOX_ENV=""
		if [ "$RC" -eq 0 ]; then
			ok "confined blocked: env $v is not passed"
		else
			not_ok "confined blocked: env $v is not passed" \
			    "exit $RC: $(first_line "$TMP/box.out")"
		fi
	done
	# NO_PROXY: CMD's own loopback, never the caller's list (not even
	# with --env); NODE_USE_ENV_PROXY so that Node's fetch uses the proxy.
	BOX_ENV=$planted
	run_out "$TMP/box.out" box --env NO_PROXY -- sh -c \
	    'printf "%s|%s|%s\n" "$NO_PROXY" "$no_proxy" "$NODE_USE_ENV_PROXY"'
	BOX_ENV=""
	if [ "$(cat "$TMP/box.out")" = "localhost,127.0.0.1,::1|localhost,127.0.0.1,::1|1" ]; then
		ok "NO_PROXY=localhost,127.0.0.1,::1 (the caller's never), NODE_USE_ENV_PROXY=1"
	else
		not_ok "NO_PROXY=localhost,127.0.0.1,::1 (the caller's never), NODE_USE_ENV_PROXY=1" \
		    "exit $RC: $(cat "$TMP/box.out")"
	fi
	# A test suite's own server on loopback: reached directly through
	# NO_PROXY (before, the proxy refused it private_address).
	run_out "$TMP/box.out" box -- python3 -c '
import http.server, threading, urllib.request
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"own")
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
threading.Thread(target=s.serve_forever, daemon=True).start()
print(urllib.request.urlopen("http://127.0.0.1:%d/" % s.server_port, timeout=5).read().decode())'
	if [ "$RC" -eq 0 ] && [ "$(cat "$TMP/box.out")" = own ]; then
		ok "CMD's own loopback server is reached with the proxy variables set"
	else
		not_ok "CMD's own loopback server is reached with the proxy variables set" \
		    "exit $RC: $(head -c 600 "$TMP/box.out")"
	fi
	# A tool under $HOME (a pyenv shim): worktree grants $HOME
	# read-execute, so it runs; workspace_paths does not grant $HOME:
	# 126 (or 127 where $HOME is not even there) and one line saying
	# which and why, not silence.
	mkdir -p "$H/.pyenv/shims"
	printf '#!/bin/sh\necho shim-ran\n' >"$H/.pyenv/shims/harn-shim"
	chmod 755 "$H/.pyenv/shims/harn-shim"
	BOX_ENV="PATH=$H/.pyenv/shims:$PATH"
	run_out "$TMP/box.out" box -- harn-shim
	shim_ctl=$(cat "$TMP/box.out")
	run_out "$TMP/box.out" box --profile workspace_paths -- harn-shim
	BOX_ENV=""
	if [ "$shim_ctl" = shim-ran ]; then
		ok "a tool under \$HOME (a pyenv shim) runs"
	else
		not_ok "a tool under \$HOME (a pyenv shim) runs" "$shim_ctl"
	fi
	if { [ "$RC" -eq 126 ] || [ "$RC" -eq 127 ]; } &&
	    grep -q '^harn-egressd: cannot run [^ ]*harn-shim: .*see --read-only-root)$' "$TMP/box.out"; then
		ok "a tool under \$HOME the profile hides: exit $RC and a line saying why ($(first_line "$TMP/box.out"))"
	else
		not_ok "a tool under \$HOME the profile hides: 126/127 and a line saying why" \
		    "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
	# ~/.npmrc is denied, but npm keeps its settings: a stand-in without
	# the credential lines (NPM_CONFIG_USERCONFIG), and the caches in the
	# run's private directory, outside the workspace.  The planted token
	# must reach neither CMD nor the workspace.
	had_npmrc=no
	[ -e "$H/.npmrc" ] && had_npmrc=yes && mv "$H/.npmrc" "$H/.npmrc.saved"
	npm_secret="npm-token-$$-planted"
	printf 'registry=https://npm.example.test/\n//npm.example.test/:_authToken=%s\n_auth=%s\nalways-auth=true\n' \
	    "$npm_secret" "$npm_secret" >"$H/.npmrc"
	run_out "$TMP/box.out" box -- sh -c \
	    'cat "$NPM_CONFIG_USERCONFIG"; echo "cache=$npm_config_cache"; cat ~/.npmrc 2>/dev/null'
	if grep -q '^registry=https://npm.example.test/$' "$TMP/box.out" &&
	    grep -q '^always-auth=true$' "$TMP/box.out" &&
	    grep -q '^cache=/.*/cache/npm$' "$TMP/box.out" &&
	    ! grep -q "^cache=$WS/" "$TMP/box.out" &&
	    ! grep -q "$npm_secret" "$TMP/box.out" &&
	    ! grep -rq "$npm_secret" "$WS" 2>/dev/null; then
		ok "~/.npmrc: settings through a stand-in, no credential line inside or in the workspace"
	else
		not_ok "~/.npmrc: settings through a stand-in, no credential line inside or in the workspace" \
		    "exit $RC: $(head -c 500 "$TMP/box.out")"
	fi
	# The same with a real npm: the settings it reads inside are the ones
	# it reads outside, the credentials are not there.
	npm_show='npm config get registry always-auth 2>/dev/null; npm config list 2>/dev/null | grep -c "(protected)"'
	if command -v npm >/dev/null 2>&1; then
		env HOME="$H" npm_config_cache="$TMP/npm-cache" sh -c "$npm_show" \
		    >"$TMP/npm.out" 2>&1
		run_out "$TMP/box.out" box -- sh -c "$npm_show"
		# Outside: the settings, then the two credentials npm protects.
		# Inside: the same settings, no credential at all.
		if [ "$(cat "$TMP/npm.out")" = "$(printf 'registry=https://npm.example.test/\nalways-auth=true\n2')" ] &&
		    [ "$(cat "$TMP/box.out")" = "$(printf 'registry=https://npm.example.test/\nalways-auth=true\n0')" ] &&
		    ! grep -rq "$npm_secret" "$WS" 2>/dev/null; then
			ok "npm config: the same settings inside and out, its protected credentials only outside"
		else
			not_ok "npm config: the same settings inside and out, its protected credentials only outside" \
			    "outside: $(cat "$TMP/npm.out")" "inside (exit $RC): $(head -c 500 "$TMP/box.out")"
		fi
	else
		skip "npm config inside and out: npm is not installed (scripts/bootstrap.sh installs it)"
	fi
	rm -f "$H/.npmrc"
	[ "$had_npmrc" = yes ] && mv "$H/.npmrc.saved" "$H/.npmrc"
	BOX_ENV="HARN_PASS_ME=1"
	run_out "$TMP/box.out" box --env HARN_PASS_ME -- "$ESC" env HARN_PASS_ME
	BOX_ENV=""
	if [ "$RC" -eq 10 ]; then
		ok "--env NAME passes NAME"
	else
		not_ok "--env NAME passes NAME" "exit $RC: $(first_line "$TMP/box.out")"
	fi
	for v in LD_PRELOAD LD_LIBRARY_PATH GLIBC_TUNABLES SSH_AUTH_SOCK; do
		rm -f "$WS/env-usage.mark"
		BOX_ENV="$v=x"
		run_out "$TMP/box.out" box --env "$v" -- sh -c 'echo ran > env-usage.mark'
		BOX_ENV=""
		if [ "$RC" -eq 2 ] && [ ! -e "$WS/env-usage.mark" ]; then
			ok "--env $v is a usage error (exit 2, nothing run)"
		else
			not_ok "--env $v is a usage error (exit 2, nothing run)" \
			    "exit $RC: $(first_line "$TMP/box.out")"
		fi
	done
	run_out "$TMP/box.out" box -- sh -c 'printf "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n" "$HTTP_PROXY" "$HTTPS_PROXY" "$http_proxy" "$https_proxy" "$ALL_PROXY" "$all_proxy" "$TMPDIR" "$TMP" "$TEMP" "$XDG_CACHE_HOME"'
	IFS='|' read -r hp hsp lhp lhsp ap lap td tm te xc <"$TMP/box.out"
	case $hp in
	http://127.0.0.1:[0-9]*)
		if [ "$hsp" = "$hp" ] && [ "$lhp" = "$hp" ] && [ "$lhsp" = "$hp" ] &&
		    [ "$ap" = "socks5h://127.0.0.1:${hp##*:}" ] && [ "$lap" = "$ap" ]; then
			ok "proxy variables: $hp, $ap"
		else
			not_ok "proxy variables" "$(cat "$TMP/box.out")"
		fi ;;
	*)	not_ok "proxy variables" "exit $RC: $(cat "$TMP/box.out")" ;;
	esac
	case $td in
	"$WS" | "$WS"/* | "") inws=yes ;;
	*) inws=no ;;
	esac
	if [ "$inws" = no ] && [ "$tm" = "$td" ] && [ "$te" = "$td" ] &&
	    [ "${td%/tmp}" = "${xc%/cache}" ] && [ "$xc" != "$td" ]; then
		ok "TMPDIR/TMP/TEMP and XDG_CACHE_HOME in the run's private directory, outside the workspace ($td)"
	else
		not_ok "TMPDIR/TMP/TEMP and XDG_CACHE_HOME in the run's private directory, outside the workspace" \
		    "$(cat "$TMP/box.out")"
	fi
	BOX_ENV="FOO_UNLISTED=1 LC_ALL=C"
	run_out "$TMP/box.out" box -- sh -c 'env | cut -d= -f1 | sort | tr "\n" " "'
	BOX_ENV=""
	extra=""
	for n in $(cat "$TMP/box.out"); do
		case $n in
		PATH|HOME|USER|LOGNAME|SHELL|TERM|LANG|LC_*|TZ|PWD|SHLVL|_) ;;
		HTTP_PROXY|HTTPS_PROXY|http_proxy|https_proxy|ALL_PROXY|all_proxy) ;;
		NO_PROXY|no_proxy|NODE_USE_ENV_PROXY) ;;
		TMPDIR|TMP|TEMP|XDG_CACHE_HOME|NPM_CONFIG_USERCONFIG) ;;
		npm_config_cache|PIP_CACHE_DIR|GOCACHE|GOMODCACHE|YARN_CACHE_FOLDER) ;;
		*) extra="$extra $n" ;;
		esac
	done
	if [ "$RC" -eq 0 ] && [ -z "$extra" ]; then
		ok "the environment is the baseline allowlist only"
	else
		not_ok "the environment is the baseline allowlist only" "extra:$extra"
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

doctor_checks() {
	# shellcheck disable=SC2086
	run_out "$TMP/doctor.out" $LAUNCH "$EGRESSD" doctor --json
	if [ "$RC" -eq 0 ] && $PY -S -c '
import json, sys
d = json.load(open(sys.argv[1]))
missing = [k for k in ("landlock_abi", "seccomp", "mechanisms", "confinements", "profiles", "limits") if k not in d]
missing += [m for m in ("linux_namespaces", "linux_landlock", "linux_seccomp") if "attaches" not in d.get("mechanisms", {}).get(m, {})]
missing += [c for c in ("namespaces", "landlock") if "attaches" not in d.get("confinements", {}).get(c, {})]
missing += [p for p in ("os_hardened", "worktree") if "process_network_mode" not in d.get("profiles", {}).get(p, {})]
sys.exit(1 if missing else 0)' "$TMP/doctor.out" 2>/dev/null; then
		ok "doctor --json: mechanisms, confinements, profiles and limits"
	else
		not_ok "doctor --json: mechanisms, confinements, profiles and limits" \
		    "exit $RC: $(head -c 400 "$TMP/doctor.out")"
	fi
	# Per confinement, what this pass should find (tried, not guessed).
	want_ns=true
	[ "$CONF" = landlock ] && want_ns=false
	got=$($PY -S -c '
import json, sys
d = json.load(open(sys.argv[1]))["confinements"]
print("%s %s" % (str(d["namespaces"]["attaches"]).lower(), str(d["landlock"]["attaches"]).lower()))' "$TMP/doctor.out" 2>/dev/null)
	if [ "$got" = "$want_ns true" ]; then
		ok "doctor: namespaces attaches: $want_ns, landlock attaches: true"
	else
		not_ok "doctor: namespaces $want_ns, landlock true" "got: $got"
	fi
	# Its answer and a real run's never disagree.
	for prof in worktree os_hardened; do
		dc=$($PY -S -c '
import json, sys
print(json.load(open(sys.argv[1]))["profiles"][sys.argv[2]]["confinement"])' "$TMP/doctor.out" "$prof" 2>/dev/null)
		rm -f "$TMP/doc-run.json"
		run_out "$TMP/box.out" box --profile "$prof" --attest "$TMP/doc-run.json" -- true
		rc=$($PY -S -c '
import json, sys
print(json.load(open(sys.argv[1]))["sandbox"]["confinement"])' "$TMP/doc-run.json" 2>/dev/null)
		if [ -n "$dc" ] && [ "$dc" = "$rc" ]; then
			ok "doctor and a real run agree ($prof: $dc)"
		else
			not_ok "doctor and a real run agree ($prof)" \
			    "doctor: '$dc', the run's report: '$rc'" "$(head -c 300 "$TMP/box.out")"
		fi
	done
	# shellcheck disable=SC2086
	run_out "$TMP/doctor.out" $LAUNCH "$EGRESSD" doctor
	if [ "$RC" -eq 0 ] && grep -q '^confinements (a trial run of each):' "$TMP/doctor.out"; then
		ok "doctor: prints what the host can enforce, per confinement"
	else
		not_ok "doctor: prints what the host can enforce, per confinement" \
		    "exit $RC: $(head -c 300 "$TMP/doctor.out")"
	fi
}

# Profiles where neither confinement attaches: a default Docker container
# (no namespaces) on a kernel without Landlock (HARN_EGRESSD_LANDLOCK_ABI=0
# has harn-egressd take it as absent).  os_hardened must refuse with a
# record naming both confinements and run nothing; worktree must run and
# say each thing it could not enforce, once.
profile_checks() {
	# The pass's own: without a confinement a root caller's command is
	# root without capabilities, which another uid's 0700 would stop.
	PW=$TMP/prof-ws
	mkdir -p "$PW"
	chmod 700 "$PW"
	rm -f "$PW/hardened-ran" "$PW/worktree-ran"
	run_out "$TMP/prof.out" env HOME="$H" HARN_EGRESSD_LANDLOCK_ABI=0 \
	    "$TMP/dockerish" -- "$EGRESSD" --policy "$POL" \
	    --profile os_hardened --workspace "$PW" -- sh -c ': > hardened-ran'
	if [ "$RC" -eq 3 ] && [ ! -e "$PW/hardened-ran" ]; then
		ok "os_hardened, no namespaces and no Landlock: exit 3, nothing ran"
	else
		not_ok "os_hardened, no namespaces and no Landlock: exit 3, nothing ran" \
		    "exit $RC: $(head -c 600 "$TMP/prof.out")"
	fi
	expect_grep "os_hardened refusal record names the missing mechanism" \
	    "$TMP/prof.out" '"schema":"harn.process.sandbox_refusal.v1"'
	expect_grep "refusal record: a kernel mechanism that cannot attach" \
	    "$TMP/prof.out" '"sandbox_mechanism":\{[^}]*"availability":"(entry_point_cannot_attach|absent_on_host)"[^}]*"mechanism":"linux_(namespaces|seccomp|landlock)"'
	expect_grep "refusal record: reason unsupported_fail_closed" \
	    "$TMP/prof.out" '"reason":"unsupported_fail_closed"'
	expect_grep "refusal record: confinements_tried names both" \
	    "$TMP/prof.out" '"confinements_tried":\[\{[^]]*"confinement":"namespaces"[^]]*"confinement":"landlock"'
	run_out "$TMP/prof.out" env HOME="$H" HARN_EGRESSD_LANDLOCK_ABI=0 \
	    "$TMP/dockerish" -- "$EGRESSD" --policy "$POL" \
	    --profile worktree --workspace "$PW" -- sh -c ': > worktree-ran'
	if [ "$RC" -eq 0 ] && [ -e "$PW/worktree-ran" ]; then
		ok "worktree, no namespaces and no Landlock: runs"
	else
		not_ok "worktree, no namespaces and no Landlock: runs" \
		    "exit $RC: $(head -c 600 "$TMP/prof.out")"
	fi
	expect_grep "worktree says what it could not enforce" "$TMP/prof.out" \
	    '^harn-egressd: sandbox: not enforced: network confinement \('
	n=$(grep -c '^harn-egressd: sandbox: not enforced: landlock (' "$TMP/prof.out")
	if [ "$n" -eq 1 ]; then
		ok "worktree says each thing it could not enforce once (landlock: once)"
	else
		not_ok "worktree says each thing it could not enforce once" \
		    "landlock said $n times: $(head -c 600 "$TMP/prof.out")"
	fi
	rm -rf "$PW"
}

# ------------------------------------------------------------------ escapes
#
# The classes found from outside (issue 10), each with its control.

# meta_esc LABEL PROBE PATH [ARG]: the control changes PATH's metadata, the
# confined run must not; the change is undone after the control.
meta_esc() {
	mlabel=$1 mprobe=$2 mpath=$3
	shift 3
	mmode=$(stat -c %a "$mpath")
	control direct "$mlabel" "$mprobe" "$mpath" "$@" || return 1
	chmod "$mmode" "$mpath"
	confined "$mlabel" "$mprobe" "$mpath" "$@"
	if [ "$(stat -c %a "$mpath")" != "$mmode" ]; then
		not_ok "$mlabel: the mode on disk is unchanged" \
		    "$(stat -c %a "$mpath"), was $mmode"
		chmod "$mmode" "$mpath"
	fi
}

meta_checks() {
	# A file of this pass's user outside every grant.
	if [ -n "$OUT" ]; then
		echo meta >"$OUT/meta.txt"
		meta_esc "chmod 0700 a file of ours outside every grant" chmod \
		    "$OUT/meta.txt" 700 &&
		    layer "outside the grants every mount is read-only (or not even reachable)" \
		    '^BLOCKED chmod:.* (EROFS|EACCES)'
		meta_esc "chmod 4755 a file of ours outside every grant" chmod \
		    "$OUT/meta.txt" 4755
		meta_esc "chown a file of ours outside every grant" chown \
		    "$OUT/meta.txt"
		meta_esc "utime a file of ours outside every grant" utime \
		    "$OUT/meta.txt"
		# The probe exits 10 when setxattr works (ESCAPED), 0 when
		# the filesystem refuses it (BLOCKED: no user xattrs here).
		"$ESC" xattr "$OUT/meta.txt" >"$TMP/xattr.out" 2>&1
		if [ $? -eq 10 ]; then
			meta_esc "setxattr on a file of ours outside every grant" \
			    xattr "$OUT/meta.txt"
		else
			skip "setxattr outside every grant: $(awk '{ print $NF }' "$TMP/xattr.out") on this filesystem"
		fi
	else
		skip "metadata outside every grant: no directory to use"
	fi
	# $HOME is granted read-only: its files' metadata too.
	meta_esc "chmod a file in \$HOME (read-only grant)" chmod "$H/ok.txt" 600
	meta_esc "utime a file in \$HOME (read-only grant)" utime "$H/ok.txt"
	# A root file under a system root: the critical one (a setuid root
	# binary any local user then runs).
	if [ "$(id -u)" -eq 0 ] && [ -d /usr/local/lib ]; then
		f=$(mktemp /usr/local/lib/harn-probe.XXXXXX)
		chmod 755 "$f"
		meta_esc "chmod 4755 a root file under /usr (as root)" chmod "$f" 4755
		meta_esc "chown a root file under /usr (as root)" chown "$f"
		rm -f "$f"
	else
		skip "a root file under /usr: this pass is not root"
	fi
	# A set-user-ID file made in the workspace would run as its owner on
	# disk (the caller) for anyone who can reach it.
	rm -f "$WS/suid"
	control direct "a set-user-ID file made in the workspace" \
	    setuid-file "$WS/suid"
	rm -f "$WS/suid"
	confined "a set-user-ID file made in the workspace" setuid-file \
	    "$WS/suid" && layer "seccomp refuses a set-user-ID mode" \
	    '^BLOCKED setuid-file:(open|fchmod) EPERM'
	if [ -e "$WS/suid" ] && [ -u "$WS/suid" ]; then
		not_ok "no set-user-ID file was left in the workspace" \
		    "$(ls -l "$WS/suid")"
	fi
	rm -f "$WS/suid"
	# What the command makes in the workspace is the caller's on disk.
	rm -f "$WS/owned.txt"
	run_out "$TMP/box.out" box -- "$ESC" write "$WS/owned.txt"
	if [ "$CONF" = landlock ] && [ "$(id -u)" -eq 0 ]; then
		# No idmapped mount: the command's own uid, on disk too.
		if [ "$RC" -eq 10 ] && [ "$(stat -c %u "$WS/owned.txt")" = 65533 ]; then
			ok "a file the command makes in the workspace is uid 65533's on disk (landlock)"
		else
			not_ok "a file the command makes in the workspace is uid 65533's on disk (landlock)" \
			    "exit $RC, owner $(stat -c %u "$WS/owned.txt" 2>/dev/null)"
		fi
	elif [ "$RC" -eq 10 ] && [ "$(stat -c %u "$WS/owned.txt")" = "$(id -u)" ]; then
		ok "a file the command makes in the workspace is the caller's on disk (uid $(id -u))"
	else
		not_ok "a file the command makes in the workspace is the caller's on disk" \
		    "exit $RC, owner $(stat -c %u "$WS/owned.txt" 2>&1)"
	fi
	rm -f "$WS/owned.txt"
	run_out "$TMP/box.out" box -- sh -c 'id -u'
	if [ "$(id -u)" -eq 0 ] && [ "$(cat "$TMP/box.out")" = 65533 ]; then
		ok "a root caller's command runs as uid 65533"
	elif [ "$(id -u)" -ne 0 ] && [ "$(cat "$TMP/box.out")" = "$(id -u)" ]; then
		ok "a plain caller's command keeps its uid ($(id -u))"
	else
		not_ok "the command's uid" "$(head -c 200 "$TMP/box.out")"
	fi
	# Root-only files stay unreadable: the command is not root.
	if [ "$(id -u)" -eq 0 ]; then
		esc direct "read /etc/shadow (root-only)" read /etc/shadow &&
		    layer "/etc/shadow: EACCES for uid 65533" \
		    '^BLOCKED read:/etc/shadow EACCES'
	else
		skip "root-only files: this pass is not root"
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

# A second home whose credentials are symlinks into a dotfiles checkout.
dotfiles_home() {
	H2=$TMP/home2
	rm -rf "$H2"
	mkdir -p "$H2/dotfiles/aws" "$H2/dotfiles/config"
	printf '[default]\naws_secret_access_key = %s\n' "$SECRET" \
	    >"$H2/dotfiles/aws/credentials"
	ln -s dotfiles/aws "$H2/.aws"
	echo "env-secret $SECRET" >"$H2/dotfiles/config/real.env"
	ln -s config/real.env "$H2/dotfiles/.env"
	echo "readable" >"$H2/dotfiles/readme.txt"
	mkdir -p "$H2/dotfiles/.bin" "$H2/sync"
	cp "$ESC" "$H2/dotfiles/.bin/escape"
	ESC2=$H2/dotfiles/.bin/escape
}

# box2 WS [OPTION...] -- CMD...: box with HOME=$H2 and workspace WS.
box2() {
	b2ws=$1
	shift
	env HOME="$H2" "$EGRESSD" --policy "$POL" --workspace "$b2ws" \
	    --log "$TMP/decisions.log" "$@"
}

symlink_checks() {
	dotfiles_home
	for ws in "$H2/dotfiles" "$H2"; do
		control direct "read a credential behind ~/.aws -> dotfiles/aws" \
		    read "$H2/dotfiles/aws/credentials" || continue
		run_out "$TMP/box.out" box2 "$ws" -- "$ESC2" read \
		    "$H2/dotfiles/aws/credentials"
		if [ "$RC" -eq 0 ] && ! grep -Fq "$SECRET" "$TMP/box.out"; then
			ok "workspace $ws: the target of ~/.aws is denied too ($(first_line "$TMP/box.out"))"
		else
			not_ok "workspace $ws: the target of ~/.aws is denied too" \
			    "exit $RC: $(first_line "$TMP/box.out")"
		fi
		run_out "$TMP/box.out" box2 "$ws" -- "$ESC2" read \
		    "$H2/.aws/credentials"
		if [ "$RC" -eq 0 ] && ! grep -Fq "$SECRET" "$TMP/box.out"; then
			ok "workspace $ws: ~/.aws/credentials itself is denied"
		else
			not_ok "workspace $ws: ~/.aws/credentials itself is denied" \
			    "exit $RC: $(first_line "$TMP/box.out")"
		fi
	done
	run_out "$TMP/box.out" box2 "$H2/dotfiles" -- "$ESC2" read \
	    "$H2/dotfiles/readme.txt"
	[ "$RC" -eq 10 ] && ok "beside it, the dotfiles stay readable" ||
	    not_ok "beside it, the dotfiles stay readable" "$(first_line "$TMP/box.out")"
	# --read-deny-root WS/.env, where .env is a symlink.
	control direct "read WS/.env -> config/real.env" read \
	    "$H2/dotfiles/config/real.env" &&
	    run_out "$TMP/box.out" box2 "$H2/dotfiles" --read-deny-root \
	    "$H2/dotfiles/.env" -- "$ESC2" read "$H2/dotfiles/config/real.env"
	if [ "$RC" -eq 0 ] && ! grep -Fq "$SECRET" "$TMP/box.out"; then
		ok "--read-deny-root a symlink: its target is denied ($(first_line "$TMP/box.out"))"
	else
		not_ok "--read-deny-root a symlink: its target is denied" \
		    "exit $RC: $(first_line "$TMP/box.out")"
	fi
}

# late_read LABEL WS PATH ACTION [OPTION...]: CMD waits, the host does
# ACTION (a shell command) while it runs, then CMD reads PATH.  The two
# meet in WS/sync, a directory made before (in a workspace at ~, a new
# file directly in ~ could not be opened, see fs_checks).
late_read() {
	llabel=$1 lws=$2 lpath=$3 laction=$4
	shift 4
	mkdir -p "$lws/sync"
	rm -f "$lws/sync/go" "$lws/sync/waiting"
	box2 "$lws" "$@" -- sh -c 'echo up > "$2/waiting" || exit 9; i=0; while [ ! -e "$2/go" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; exec "$0" read "$1"' \
	    "$ESC2" "$lpath" "$lws/sync" >"$TMP/late.out" 2>&1 &
	lpid=$!
	wait_file "$lws/sync/waiting" 50 "$lpid" >/dev/null || true
	eval "$laction"
	: >"$lws/sync/go"
	wait "$lpid"
	lrc=$?
	if [ "$lrc" -eq 0 ] && grep -q '^BLOCKED read:' "$TMP/late.out" &&
	    ! grep -Fq "$SECRET" "$TMP/late.out"; then
		ok "$llabel ($(first_line "$TMP/late.out"))"
	else
		not_ok "$llabel" "exit $lrc: $(head -c 300 "$TMP/late.out")"
	fi
	rm -rf "$lws/sync"
}

late_checks() {
	dotfiles_home
	mkdir -p "$H2/.config/gh" "$H2/proj"
	printf 'x: 1\n' >"$H2/.config/gh/config.yml"
	printf 'github.com:\n  oauth_token: %s\n' "$SECRET" >"$TMP/hosts.new"
	control direct "read ~/.config/gh/hosts.yml once it exists" read \
	    "$TMP/hosts.new" &&
	    late_read "~/.config/gh/hosts.yml made during the run is denied" \
	    "$H2/proj" "$H2/.config/gh/hosts.yml" \
	    "cp '$TMP/hosts.new' '$H2/.config/gh/hosts.yml'"
	rm -f "$H2/.config/gh/hosts.yml"
	# The workspace at ~, ~/.netrc masked, replaced by the host's mv.
	printf 'machine old password old\n' >"$H2/.netrc"
	printf 'machine new password %s\n' "$SECRET" >"$TMP/netrc.new"
	late_read "workspace at ~: ~/.netrc replaced by mv on the host stays denied" \
	    "$H2" "$H2/.netrc" "mv '$TMP/netrc.new' '$H2/.netrc'"
	rm -f "$H2/.netrc"
	# And created there during the run.
	printf 'machine new password %s\n' "$SECRET" >"$TMP/netrc.new"
	late_read "workspace at ~: ~/.netrc made during the run is denied" \
	    "$H2" "$H2/.netrc" "mv '$TMP/netrc.new' '$H2/.netrc'"
	rm -f "$H2/.netrc"
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

misc_checks() {
	# A workspace inside $HOME is writable, though $HOME is not.
	mkdir -p "$H/proj/.bin"
	cp "$ESC" "$H/proj/.bin/escape"
	rm -f "$H/proj/new.txt"
	run_out "$TMP/box.out" env HOME="$H" "$EGRESSD" --policy "$POL" \
	    --workspace "$H/proj" -- "$H/proj/.bin/escape" write "$H/proj/new.txt"
	if [ "$RC" -eq 10 ] && [ -s "$H/proj/new.txt" ]; then
		ok "a workspace inside \$HOME is writable"
	else
		not_ok "a workspace inside \$HOME is writable" "exit $RC: $(first_line "$TMP/box.out")"
	fi
	rm -rf "$H/proj"
	# A host process of the same user: killable unconfined, not confined.
	sleep 30 &
	kp=$!
	esc direct "SIGKILL a host process of the same user" kill-pid "$kp"
	kill "$kp" 2>/dev/null
	# harn-egressd killed: nothing of the command's survives it.
	dur=3002.$$$(id -u)
	rm -f "$WS/started"
	# Its private directory (landlock) in one of ours: not left in /tmp.
	mkdir -p "$TMP/killed" && chmod 755 "$TMP/killed"
	BOX_TMPDIR=$TMP/killed
	box_exec -- sh -c "sleep $dur & echo up > started; wait" >/dev/null 2>&1 &
	hp=$!
	BOX_TMPDIR=""
	if wait_file "$WS/started" 50 "$hp"; then
		kill -KILL "$hp"
		sleep 0.5
		if pgrep -f "^sleep $dur\$" >/dev/null; then
			not_ok "harn-egressd killed: the command's processes end too" \
			    "$(pgrep -af "^sleep $dur\$")"
			pkill -f "^sleep $dur\$"
		else
			ok "harn-egressd killed: the command's processes end too"
		fi
	else
		not_ok "harn-egressd killed: the command started"
		kill -KILL "$hp" 2>/dev/null
	fi
	# A symlink an earlier command left in the workspace as .harn-tmp
	# (where earlier versions put TMPDIR) leads nowhere: nothing of the
	# run's goes through it.
	mkdir -p "$TMP/planted-target"
	ln -sfn "$TMP/planted-target" "$WS/.harn-tmp"
	run_out "$TMP/box.out" box -- sh -c 'echo x > "$TMPDIR/f"'
	if [ "$RC" -eq 0 ] && [ -z "$(ls -A "$TMP/planted-target")" ]; then
		ok "a symlink left as .harn-tmp: not followed, TMPDIR is elsewhere"
	else
		not_ok "a symlink left as .harn-tmp: not followed, TMPDIR is elsewhere" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	rm -f "$WS/.harn-tmp"
	# A writable root that holds the system would make the command its owner.
	rm -f "$WS/sys.mark"
	run_out "$TMP/box.out" env HOME="$H" "$EGRESSD" --policy "$POL" \
	    --workspace / -- sh -c "echo ran > '$WS/sys.mark'"
	if [ "$RC" -eq 2 ] && [ ! -e "$WS/sys.mark" ] &&
	    grep -q 'a system directory' "$TMP/box.out"; then
		ok "--workspace /: a usage error, nothing ran"
	else
		not_ok "--workspace /: a usage error, nothing ran" "exit $RC: $(first_line "$TMP/box.out")"
	fi
	run_out "$TMP/box.out" box --write-root /usr -- true
	[ "$RC" -eq 2 ] && ok "--write-root /usr: a usage error" ||
	    not_ok "--write-root /usr: a usage error" "exit $RC"
	# A denied file with another hard link: said, and refused by os_hardened.
	echo "linked $SECRET" >"$WS/linked.env"
	ln "$WS/linked.env" "$WS/linked-copy"
	run_out "$TMP/box.out" box --read-deny-root "$WS/linked.env" -- true
	expect_grep "a denied file with another hard link is said" "$TMP/box.out" \
	    'not enforced: denied file .*linked.env has 2 hard links'
	run_out "$TMP/box.out" box --profile os_hardened --read-deny-root \
	    "$WS/linked.env" -- true
	[ "$RC" -eq 3 ] && ok "os_hardened refuses a denied file with other hard links" ||
	    not_ok "os_hardened refuses a denied file with other hard links" "exit $RC"
	rm -f "$WS/linked.env" "$WS/linked-copy"
}

# box_home HOME WS [OPTION...] -- CMD...: box with another HOME and
# workspace.
box_home() {
	bhome=$1 bws=$2
	shift 2
	# shellcheck disable=SC2086
	env HOME="$bhome" $LAUNCH "$EGRESSD" --policy "$POL" --workspace "$bws" \
	    --log "$TMP/decisions.log" "$@"
}

# standin_read LABEL HOME WS: the stand-in for ~/.npmrc the command gets
# holds nothing of the planted file outside.
standin_read() {
	run_out "$TMP/box.out" box_home "$2" "$3" -- sh -c \
	    'echo "cfg=$NPM_CONFIG_USERCONFIG"; cat "$NPM_CONFIG_USERCONFIG" 2>/dev/null; :'
	if [ "$RC" -eq 0 ] && ! grep -Fq "$SECRET" "$TMP/box.out" &&
	    ! grep -rFq "$SECRET" "$3" 2>/dev/null; then
		ok "$1: no stand-in made through it ($(first_line "$TMP/box.out"))"
	else
		not_ok "$1: no stand-in made through it" \
		    "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
}

# harn-egressd reads ~/.npmrc for the command (the stand-in).  A link the
# command could have left on the way must not make it read any other file
# for it: the workspace at ~, ~ below the workspace, and a dotfile link
# into the workspace.
standin_checks() {
	sfile=$TMP/standin-secret
	printf 'stolen=%s\n' "$SECRET" >"$sfile"
	chmod 600 "$sfile"
	control direct "read a file outside the workspace (the link's target)" \
	    read "$sfile" || return 0
	H3=$TMP/home3
	rm -rf "$H3" && mkdir -p "$H3" && chmod 777 "$H3"
	# Planted by the command itself where it may (namespaces), else by a
	# step before it.
	run_out "$TMP/box.out" box_home "$H3" "$H3" -- ln -s "$sfile" "$H3/.npmrc"
	[ -L "$H3/.npmrc" ] || ln -s "$sfile" "$H3/.npmrc"
	standin_read "workspace at ~, ~/.npmrc a link to a file outside" "$H3" "$H3"
	rm -rf "$H3" && mkdir -p "$H3/a/home" && chmod -R 777 "$H3"
	ln -s "$sfile" "$H3/a/home/.npmrc"
	standin_read "~ below the workspace, ~/.npmrc a link to a file outside" \
	    "$H3/a/home" "$H3"
	rm -rf "$H3/a/home" "$TMP/sdir" && mkdir -p "$TMP/sdir"
	cp "$sfile" "$TMP/sdir/.npmrc"
	ln -s "$TMP/sdir" "$H3/a/home"
	standin_read "~ a link in the workspace to the directory of a file named .npmrc" \
	    "$H3/a/home" "$H3"
	rm -rf "$H3" && mkdir -p "$H3" "$TMP/home4/dotfiles" && chmod 777 "$H3"
	ln -sfn "$H3/npmrc" "$TMP/home4/.npmrc"
	ln -s "$sfile" "$H3/npmrc"
	standin_read "~/.npmrc a dotfile link into the workspace, replaced there by a link" \
	    "$TMP/home4" "$H3"
	# The control: a dotfile link out of the command's reach is followed.
	printf 'registry=https://npm.example.test/\n_authToken=%s\n' "$SECRET" \
	    >"$TMP/home4/dotfiles/npmrc"
	ln -sfn dotfiles/npmrc "$TMP/home4/.npmrc"
	run_out "$TMP/box.out" box_home "$TMP/home4" "$H3" -- sh -c \
	    'cat "$NPM_CONFIG_USERCONFIG"'
	if [ "$RC" -eq 0 ] &&
	    grep -q '^registry=https://npm.example.test/$' "$TMP/box.out" &&
	    ! grep -Fq "$SECRET" "$TMP/box.out"; then
		ok "~/.npmrc a dotfile link out of reach: followed, its settings in the stand-in"
	else
		not_ok "~/.npmrc a dotfile link out of reach: followed, its settings in the stand-in" \
		    "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
	rm -rf "$H3" "$TMP/home4" "$TMP/sdir" "$sfile"
}

# $HOME written other than canonically (a trailing slash, //, ., ..):
# the credential files below it are denied all the same.
home_form_checks() {
	control direct "read ~/.ssh/id_rsa" read "$H/.ssh/id_rsa" || return 0
	for hf in "$H/" "/$H" "$H/." "$H/../$(basename "$H")"; do
		run_out "$TMP/box.out" box_home "$hf" "$WS" -- "$ESC" read \
		    "$H/.ssh/id_rsa"
		if [ "$RC" -eq 0 ] && grep -q '^BLOCKED ' "$TMP/box.out" &&
		    ! grep -Fq "$SECRET" "$TMP/box.out"; then
			ok "HOME=$hf: ~/.ssh/id_rsa denied ($(first_line "$TMP/box.out"))"
		else
			not_ok "HOME=$hf: ~/.ssh/id_rsa denied" \
			    "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
	done
}

# Another run's command, whose workspace holds this run's --write-root,
# swaps that root for a link to a directory outside between the check
# and the set-up: the root set up must be the directory checked, or the
# run must not start.  (Before: landlock granted the link's target in
# about half of the runs.)
race_checks() {
	RW=$TMP/race-ws
	rm -rf "$RW" "$TMP/race-target" "$TMP/race-stop"
	mkdir -p "$RW/sub" "$TMP/race-target"
	(cd "$RW" && while [ ! -e "$TMP/race-stop" ]; do
		mv sub sub.real 2>/dev/null
		ln -s "$TMP/race-target" sub 2>/dev/null
		rm -f sub 2>/dev/null
		mv sub.real sub 2>/dev/null
	done) &
	swapper=$!
	rn=0 ran=0 held=0 out=0
	while [ $rn -lt 60 ]; do
		env HOME="$H" $LAUNCH "$EGRESSD" --policy "$POL" --workspace "$RW" \
		    --write-root "$RW/sub" -- sh -c \
		    'echo x > "$0/sub/x" 2>/dev/null; exit 0' "$RW" \
		    >"$TMP/race.out" 2>&1
		case $? in
		0) ran=$((ran + 1)) ;;
		*) grep -q 'no longer the directory that was checked\|leads through a symbolic link' \
		    "$TMP/race.out" && held=$((held + 1)) ;;
		esac
		[ -e "$TMP/race-target/x" ] && out=$((out + 1))
		rm -f "$TMP/race-target/x"
		rn=$((rn + 1))
	done
	: >"$TMP/race-stop"
	wait "$swapper" 2>/dev/null
	if [ $out -eq 0 ] && [ $held -gt 0 ]; then
		ok "a root swapped for a link during set-up: never the link's target (60 runs: $ran ran, $held refused, saying why)"
	else
		not_ok "a root swapped for a link during set-up: never the link's target" \
		    "60 runs: $out wrote outside, $ran ran, $held refused saying why"
	fi
	rm -rf "$RW" "$TMP/race-target" "$TMP/race-stop"
}

escape_checks() {
	meta_checks
	race_checks
	home_form_checks
	standin_checks
	sock_checks
	symlink_checks
	late_checks
	tty_checks
	limit_checks
	misc_checks
}

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
	confined "ABI 3: tcp 127.0.0.1 (host loopback)" tcp 127.0.0.1 "$P_TCP4" S-abi3-tcp &&
	    layer "ABI 3: the broker refuses it (EACCES)" '^BLOCKED tcp:connect EACCES'
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

# control_or_skip LABEL WHY PROBE ARGS...: the attempt, unconfined; a
# control this pass cannot make escape (a capability it lacks) is a skip
# naming WHY, not a failure.  Returns 0 when it escaped.
control_or_skip() {
	cslabel=$1 cswhy=$2
	shift 2
	run_out "$TMP/control.out" env HOME="$H" "$ESC" "$@"
	if [ "$RC" -eq 10 ] && grep -q '^ESCAPED ' "$TMP/control.out"; then
		ok "control (direct) escapes: $cslabel: $(first_line "$TMP/control.out")"
		return 0
	fi
	skip "$cslabel: the control cannot here ($cswhy): $(first_line "$TMP/control.out")"
	return 1
}

# direct_line ADDR PORT LABEL: the decision log has a not_through_proxy
# line for ADDR:PORT naming the process.
direct_line() {
	if grep '"protocol":"direct"' "$TMP/decisions.log" 2>/dev/null |
	    grep '"reason":"not_through_proxy"' | grep -F "\"addr\":\"$1\"" |
	    grep -F "\"port\":$2," | grep -q '"pid":[0-9]*,"exe":"[^"]*escape"'; then
		ok "not_through_proxy line: $3"
	else
		not_ok "not_through_proxy line: $3" \
		    "no line for $1:$2 in: $(grep '"direct"' "$TMP/decisions.log" 2>/dev/null | tail -3)"
	fi
}

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
	# The refusals are folded: 40 connects in a second, two lines.
	rm -f "$TMP/fold.log" "$TMP/fold.json"
	env HOME="$H" $LAUNCH "$EGRESSD" --policy "$POL" --workspace "$WS" \
	    --log "$TMP/fold.log" --attest "$TMP/fold.json" -- "$PYIN" -c '
import socket
for i in range(40):
    s = socket.socket()
    try:
        s.bind(("0.0.0.0", 0))
    except OSError:
        pass
    s.close()
' >"$TMP/fold.out" 2>&1
	lines=$(grep -c '"not_through_proxy"' "$TMP/fold.log" 2>/dev/null)
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
	if [ "$lines" = 2 ] && [ "$total" = 40 ] && [ "$counted" = 40 ]; then
		ok "40 refusals in a second: 2 lines (one with count), 40 in the report"
	else
		not_ok "40 refusals in a second: folded, all counted" \
		    "lines $lines, total $total, report $counted: $(head -c 300 "$TMP/fold.out")"
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
		if grep -q '"not_through_proxy"' "$TMP/long.log" &&
		    grep -q '"not_through_proxy":1' "$TMP/long.json"; then
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
		# SO_REUSEPORT itself is refused first (tests/inbound.sh
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

landlock_checks() {
	broker_attacks
	signal_attacks
	old_abi_checks
	root_ws_checks
	fallback_checks
}

suite() {
	echo "# pass: $1 (uid $(id -u)), confinement: $CONF, binary: $EGRESSD"
	setup || return
	net_checks
	proc_checks
	fs_checks
	env_checks
	life_checks
	profile_checks
	doctor_checks
	escape_checks
	least_privilege_checks
	[ "$CONF" = landlock ] && landlock_checks
	canary_final
}

# ------------------------------------------------------------------ the passes

# The same script as nobody; its lines come back prefixed "nobody: ".
nobody_pass() {
	NB=$(mktemp -d /tmp/harn-nobody.XXXXXX)
	NB_DIR=$NB
	at_exit rm_nobody
	chmod 755 "$NB"
	mkdir -p "$NB/src/tests" "$NB/tmp"
	cp "$top_srcdir/tests/sandbox.sh" "$top_srcdir/tests/lib.sh" \
	    "$top_srcdir/tests/escape.c" "$top_srcdir/tests/dockerish.c" \
	    "$NB/src/tests/"
	cp "$EGRESSD" "$NB/harn-egressd"
	NB_OUT=$(mktemp -d /var/lib/harn-test.XXXXXX 2>/dev/null) || NB_OUT=""
	NB_OUTSIDE=$NB_OUT
	chmod -R a+rX "$NB"
	chmod 755 "$NB/harn-egressd"
	[ -n "$NB_OUT" ] && chmod 755 "$NB_OUT" && chown nobody "$NB_OUT"
	chown -R nobody "$NB"
	if [ "$CONF" = namespaces ] && command -v unshare >/dev/null &&
	    ! su nobody -s /bin/sh -c "unshare -U true" >/dev/null 2>&1; then
		skip "unprivileged pass: user namespaces unavailable to nobody (user.max_user_namespaces=$(sysctl_val user/max_user_namespaces), kernel.unprivileged_userns_clone=$(sysctl_val kernel/unprivileged_userns_clone))"
		return
	fi
	su nobody -s /bin/sh -c "cd '$NB' && env -i PATH=/usr/local/bin:/usr/bin:/bin \
	    TMPDIR='$NB/tmp' HOME='$NB' LANG=C PYTHON='$PYIN' \
	    HARN_SANDBOX_PASS=unprivileged HARN_EGRESSD='$NB/harn-egressd' \
	    HARN_SANDBOX_CONFINEMENT='$CONF' \
	    HARN_OUTSIDE_DIR='$NB_OUT' top_srcdir='$NB/src' top_builddir='$NB' \
	    sh '$NB/src/tests/sandbox.sh'" >"$TMP/nobody.out" 2>&1
	relay "nobody: " "$TMP/nobody.out" $?
}
rm_nobody() {
	rm -rf "$NB_DIR"
	[ -n "${NB_OUTSIDE:-}" ] && rm -rf "$NB_OUTSIDE"
}

# The same script under the container launcher: "landlock: " lines.
landlock_pass() {
	env HARN_SANDBOX_CONFINEMENT=landlock HARN_SANDBOX_PASS="$PASS" \
	    HARN_EGRESSD="$EGRESSD" sh "$top_srcdir/tests/sandbox.sh" \
	    >"$TMP/landlock.out" 2>&1
	relay "landlock: " "$TMP/landlock.out" $?
}

T0=$(now_ms)
if [ "$PASS" = unprivileged ] || [ "$(id -u)" -ne 0 ]; then
	suite unprivileged
else
	suite root
	if id nobody >/dev/null 2>&1; then
		nobody_pass
	else
		skip "unprivileged pass: no user 'nobody'"
	fi
fi
# Once, from the top: the whole suite again in the landlock confinement.
if [ -z "${HARN_SANDBOX_CONFINEMENT:-}" ] && [ "$PASS" != unprivileged ]; then
	landlock_pass
fi
echo "# $(($(now_ms) - T0)) ms"
finish
