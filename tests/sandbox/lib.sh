# SPDX-License-Identifier: Apache-2.0
# What the sandbox escape suites share (net, proc, fs, home, profile,
# privilege, landlock): the fixture, the probe's helpers and the passes.
# A suite sources tests/lib.sh, then this, defines its checks and ends
# with sandbox_suite NAME CHECKS...
#
# Run mode's sandbox (SPEC 2 exit codes, SPEC 6): escape attempts from
# inside the confined command, each paired with an unconfined control.
#
# tests/sandbox/escape.c is the probe: one attempt per run, "ESCAPED ..." (exit 10)
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
	if ! cc -O1 -pthread -o "$ESC" "$top_srcdir/tests/sandbox/escape.c" 2>"$TMP/cc.err"; then
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

# ------------------------------------------------------------------ the passes

# The same suite as nobody (lib.sh's nobody_pass); its lines come back
# prefixed "nobody: ".  Its directory outside every grant is made here, in
# /var/lib, where nobody may not make one.
sandbox_nobody_pass() {
	if [ "$CONF" = namespaces ] && command -v unshare >/dev/null &&
	    ! su nobody -s /bin/sh -c "unshare -U true" >/dev/null 2>&1; then
		skip "unprivileged pass: user namespaces unavailable to nobody (user.max_user_namespaces=$(sysctl_val user/max_user_namespaces), kernel.unprivileged_userns_clone=$(sysctl_val kernel/unprivileged_userns_clone))"
		return
	fi
	NB_OUT=$(mktemp -d /var/lib/harn-test.XXXXXX 2>/dev/null) || NB_OUT=""
	NB_OUTSIDE=$NB_OUT
	at_exit rm_nb_outside
	[ -n "$NB_OUT" ] && chmod 755 "$NB_OUT" && chown nobody "$NB_OUT"
	NP_ENV="HARN_SANDBOX_CONFINEMENT='$CONF' HARN_OUTSIDE_DIR='$NB_OUT'"
	nobody_pass "sandbox/$SB_NAME" HARN_SANDBOX_PASS \
	    "$top_srcdir/tests/sandbox/lib.sh" \
	    "$top_srcdir/tests/sandbox/escape.c" "$top_srcdir/tests/dockerish.c"
	NP_ENV=""
}
rm_nb_outside() {
	[ -n "${NB_OUTSIDE:-}" ] && rm -rf "$NB_OUTSIDE"
}

# The same suite under the container launcher: "landlock: " lines.
landlock_pass() {
	env HARN_SANDBOX_CONFINEMENT=landlock HARN_SANDBOX_PASS="$PASS" \
	    HARN_EGRESSD="$EGRESSD" sh "$top_srcdir/tests/sandbox/$SB_NAME.sh" \
	    >"$TMP/landlock.out" 2>&1
	relay "landlock: " "$TMP/landlock.out" $?
}

# sandbox_pass WHO CHECKS...: the set-up, each check, the canary's word.
sandbox_pass() {
	echo "# pass: $1 (uid $(id -u)), confinement: $CONF, binary: $EGRESSD"
	shift
	setup || return
	for sp_check in "$@"; do
		"$sp_check"
	done
	canary_final
}

# sandbox_suite NAME CHECKS...: tests/sandbox/NAME.sh's passes: as this
# user (as root, then again as nobody), then, once from the top, all of it
# again in the landlock confinement.  With SB_LANDLOCK_ONLY=1 the CHECKS
# hold only in the landlock confinement: no namespaces pass.
sandbox_suite() {
	SB_NAME=$1
	shift
	T0=$(now_ms)
	if [ -n "${SB_LANDLOCK_ONLY:-}" ] && [ "$CONF" != landlock ]; then
		echo "# the namespaces confinement: nothing here (landlock's own checks)"
	elif [ "$PASS" = unprivileged ] || [ "$(id -u)" -ne 0 ]; then
		sandbox_pass unprivileged "$@"
	else
		sandbox_pass root "$@"
		if id nobody >/dev/null 2>&1; then
			sandbox_nobody_pass
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
}
