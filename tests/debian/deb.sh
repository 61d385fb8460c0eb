#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Debian package, as a user gets it: build it with dpkg-buildpackage
# from a clean copy of this tree, check it with lintian, install it with
# apt-get, run the installed program (--version, doctor, check, explain),
# find its man pages and guides, verify its unit and run its service as
# the unit does (with no key, then with the signing drop-in), then purge
# it and check that nothing of it is left.
#
# Needs root: it installs packages (the build tools when missing, then
# harn-egressd itself).  Exits 77 (skip) when not root, when
# dpkg-buildpackage cannot be had, or when harn-egressd is installed
# already or a harn-egressd service has left logs or state here (the
# test's purge would remove them).  Takes about a minute.
#   sh tests/debian/deb.sh          (KEEP_TMP=1 keeps the build and its logs)
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd -P)
PKG=harn-egressd

# apt-get's output, until lib.sh's $TMP exists.
APT_LOG=$(mktemp "${TMPDIR:-/tmp}/harn-deb-apt.XXXXXX")

skip_all() {
	rm -f "$APT_LOG"
	echo "1..0 # SKIP $*"
	exit 77
}

[ "$(id -u)" -eq 0 ] || skip_all "not root: installing a package needs root"
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1
then
	skip_all "no apt-get or dpkg: not a Debian system"
fi
[ -f "$top/debian/control" ] || skip_all "no debian/ in $top"
# pkg_present: harn-egressd is installed, or half so, or removed with its
# configuration kept: anything but purged or never installed.
pkg_present() {
	case "$(dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null || true)" in
	"" | *" not-installed") return 1 ;;
	esac
	return 0
}
if pkg_present; then
	skip_all "$PKG is installed on this machine already; this test would" \
	    "replace and purge it (dpkg --purge $PKG first, if it is a" \
	    "leftover of an interrupted run)"
fi

# Purging removes the service's logs and state: never those of a
# harn-egressd installed otherwise (make install and the same unit).
for d in /var/log/harn-egressd /var/lib/harn-egressd \
    /var/log/private/harn-egressd /var/lib/private/harn-egressd; do
	if [ -e "$d" ] || [ -L "$d" ]; then
		skip_all "$d exists (a harn-egressd service ran here); purging" \
		    "the package would remove it"
	fi
done

export DEBIAN_FRONTEND=noninteractive
# Other sessions on this machine may be installing packages: apt-get waits
# for the dpkg lock rather than failing.
APT="apt-get -o DPkg::Lock::Timeout=600"
APT_UPDATED=""
# apt_install PKG...: install what is missing (update the lists once, on
# the first failure).  1 when apt-get fails.
apt_install() {
	need=""
	for p in "$@"; do
		case "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" in
		installed | triggers-pending | triggers-awaited) ;;
		*) need="$need $p" ;;
		esac
	done
	[ -n "$need" ] || return 0
	echo "# apt-get install$need"
	# shellcheck disable=SC2086
	$APT install -y -qq --no-install-recommends $need \
	    >"$APT_LOG" 2>&1 && return 0
	[ -z "$APT_UPDATED" ] || return 1
	APT_UPDATED=1
	$APT update -qq >/dev/null 2>&1 || return 1
	# shellcheck disable=SC2086
	$APT install -y -qq --no-install-recommends $need \
	    >"$APT_LOG" 2>&1
}

# dpkg_wait ARG...: dpkg ARG..., tried again every 2 s for up to 10
# minutes while another dpkg or apt-get holds the lock.
dpkg_wait() {
	dn=0
	while :; do
		if dpkg "$@" 2>"$TMP/dpkg.err"; then
			return 0
		fi
		if [ $dn -ge 300 ] || ! grep -q 'lock' "$TMP/dpkg.err"; then
			cat "$TMP/dpkg.err" >&2
			return 1
		fi
		dn=$((dn + 1))
		sleep 2
	done
}

# The build tools; man-db for man -w.  The package's own Build-Depends
# come from debian/control below (apt-get build-dep).
apt_install dpkg-dev || true
command -v dpkg-buildpackage >/dev/null 2>&1 ||
    skip_all "dpkg-buildpackage is missing and apt-get could not install" \
    "dpkg-dev: $(tail -1 "$APT_LOG")"
# lib.sh runs python3, as every test does (scripts/bootstrap.sh installs it).
command -v python3 >/dev/null 2>&1 || apt_install python3 ||
    skip_all "no python3 for tests/lib.sh: $(tail -1 "$APT_LOG")"

. "$top/tests/lib.sh"
mv "$APT_LOG" "$TMP/apt.log"
APT_LOG="$TMP/apt.log"

if apt_install debhelper lintian man-db; then
	ok "build tools installed (debhelper, lintian, man-db)"
else
	not_ok "build tools installed (debhelper, lintian, man-db)" \
	    "$(tail -5 "$APT_LOG")"
fi

# A clean copy: the files git knows of and the new ones it does not
# ignore (so no build/, no earlier package build), or, outside a git
# checkout (an unpacked release tarball), the tree less its build
# directories.
VERSION=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
SRC="$TMP/src/$PKG-$VERSION"
mkdir -p "$SRC"
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
	# (A tracked file deleted in the work tree is left out.)
	(cd "$top" && git ls-files -z -c -o --exclude-standard) >"$TMP/files"
	(cd "$top" && tar --null --no-recursion --ignore-failed-read \
	    -cf "$TMP/src.tar" -T "$TMP/files" 2>/dev/null)
else
	(cd "$top" && tar --exclude=./build --exclude='./build-*' \
	    --exclude=./debian/build --exclude=./debian/tmp \
	    --exclude=./debian/$PKG --exclude=./debian/.debhelper \
	    -cf "$TMP/src.tar" .)
fi
tar -C "$SRC" -xf "$TMP/src.tar"
rm -f "$TMP/src.tar"

# The package's Build-Depends, when this machine lacks some of them.
if ! (cd "$SRC" && dpkg-checkbuilddeps >/dev/null 2>&1); then
	echo "# apt-get build-dep (debian/control's Build-Depends)"
	(cd "$SRC" && $APT build-dep -y -qq ./ >"$APT_LOG" 2>&1) ||
	    { $APT update -qq >/dev/null 2>&1 &&
	    (cd "$SRC" && $APT build-dep -y -qq ./ >"$APT_LOG" 2>&1); } ||
	    true
fi

# Build: the binary package only, unsigned, with debian/rules' quick unit
# tests (the full suite is scripts/test.sh's).
set +e
(cd "$SRC" && dpkg-buildpackage -us -uc -b -j"$(nproc)") \
    >"$TMP/build.log" 2>&1
rc=$?
set -e
DEB="$TMP/src/${PKG}_${VERSION}_$(dpkg --print-architecture).deb"
CHANGES="$TMP/src/${PKG}_${VERSION}_$(dpkg --print-architecture).changes"
if [ "$rc" -eq 0 ] && [ -f "$DEB" ] && [ -f "$CHANGES" ]; then
	ok "dpkg-buildpackage -us -uc -b builds $(basename "$DEB")"
else
	not_ok "dpkg-buildpackage -us -uc -b" "exit $rc; the log's end:" \
	    "$(tail -40 "$TMP/build.log")"
	finish
	exit 1
fi
expect_grep "the build ran the unit tests, all passed" "$TMP/build.log" \
    '^# PASS: +[1-9]'
expect_grep "no unit test failed" "$TMP/build.log" '^# FAIL: +0$'

# lintian: nothing at error or warning level that is not overridden.  The
# tags are judged here, not by --fail-on, which with --show-overrides
# counts the overridden ones too (lintian 2.116).
set +e
lintian --fail-on none --show-overrides "$CHANGES" >"$TMP/lintian" 2>&1
rc=$?
set -e
grep -v '^running with root privileges' "$TMP/lintian" | sed 's/^/# lintian: /'
if [ "$rc" -eq 0 ] && ! grep -q '^[EW]: ' "$TMP/lintian"; then
	ok "lintian: no error or warning that is not overridden"
else
	not_ok "lintian: no error or warning that is not overridden" "exit $rc"
fi
# The copyright is declared (Apache-2.0, debian/copyright): no tag about
# it, overridden ("O:") or not.
if grep -Eq '^[EWO]: .*copyright' "$TMP/lintian"; then
	not_ok "lintian: no copyright tag, not even an overridden one" \
	    "$(grep -E '^[EWO]: .*copyright' "$TMP/lintian")"
else
	ok "lintian: no copyright tag, not even an overridden one"
fi

# What the .deb carries.
dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\./|/|' >"$TMP/contents"
for f in /usr/bin/harn-egressd /usr/share/man/man8/harn-egressd.8.gz \
    /usr/share/man/man5/egress.conf.5.gz \
    /lib/systemd/system/harn-egressd.service /etc/harn-egressd/egress.conf \
    /usr/share/doc/harn-egressd/examples/egress.conf.example \
    /etc/logrotate.d/harn-egressd /usr/share/doc/harn-egressd/README.Debian \
    /usr/share/doc/harn-egressd/copyright \
    /usr/share/doc/harn-egressd/examples/signing.conf; do
	expect_grep "the package has $f" "$TMP/contents" "^$f\$"
done
# The guides, each of the tree's docs/ pages, as Markdown (not .md.gz), in
# the tree's layout: their relative links to one another still work.
guides=""
for f in README.md NOTICE $(cd "$top" && ls docs/*.md); do
	grep -qx "/usr/share/doc/$PKG/$f" "$TMP/contents" || guides="$guides $f"
done
if [ -z "$guides" ]; then
	ok "the package has the guides in /usr/share/doc/$PKG/ (README.md, NOTICE, docs/*.md)"
else
	not_ok "the package has the guides in /usr/share/doc/$PKG/" "missing:$guides"
fi

# Install it; from here on, the trap purges it whatever happens.
purge_pkg() {
	if pkg_present; then
		echo "# cleanup: dpkg --purge $PKG"
		dpkg_wait --purge "$PKG" >/dev/null 2>&1 || true
	fi
}
at_exit purge_pkg
set +e
$APT install -y -qq "$DEB" >"$TMP/install.log" 2>&1
rc=$?
set -e
if [ "$rc" -eq 0 ]; then
	ok "apt-get install ./$(basename "$DEB")"
else
	not_ok "apt-get install ./$(basename "$DEB")" "exit $rc" \
	    "$(tail -20 "$TMP/install.log")"
	finish
	exit 1
fi

B=/usr/bin/harn-egressd
expect_rc "installed --version exits 0" 0 "$B" --version
expect_grep "installed --version is the package's" "$TMP/out" \
    "^harn-egressd $VERSION\$"
if [ "$(command -v harn-egressd)" = "$B" ]; then
	ok "harn-egressd on PATH is $B"
else
	not_ok "harn-egressd on PATH is $B" "found: $(command -v harn-egressd)"
fi

expect_rc "doctor exits 0" 0 harn-egressd doctor
sed -n '/^confinements/,/^confinement by profile/p' "$TMP/out" >"$TMP/conf"
sed 's/^/# doctor: /' "$TMP/conf"
for c in namespaces landlock; do
	expect_grep "doctor: a trial line for the $c confinement" "$TMP/conf" \
	    "^  $c +(attaches|no: .+)\$"
done

CONF=/etc/harn-egressd/egress.conf
EX=/usr/share/doc/harn-egressd/examples/egress.conf.example
expect_rc "check --policy $CONF" 0 harn-egressd check --policy "$CONF"
expect_grep "the installed policy has no rule" "$TMP/out" '\(0 rules\)$'
expect_grep "the installed policy denies by default" "$TMP/out" '^default deny$'
expect_rc "explain on the installed policy" 0 \
    harn-egressd explain --policy "$CONF" https://github.com/
expect_grep "the installed policy lets nothing through" "$TMP/out" \
    '^https://github\.com/ deny no_allow_rule'
expect_rc "check --policy the installed example" 0 \
    harn-egressd check --policy "$EX"
expect_grep "the installed example's rules" "$TMP/out" \
    '^allow deb\.debian\.org:443$'
if dpkg-query -W -f='${Conffiles}\n' "$PKG" | grep -q "^ $CONF "; then
	ok "$CONF is a conffile"
else
	not_ok "$CONF is a conffile" "$(dpkg-query -W -f='${Conffiles}' "$PKG")"
fi

# man -w: the pages where man finds them (unless dpkg was told to drop
# man pages, as slimmed-down images do).
if ! command -v man >/dev/null 2>&1; then
	skip "man -w: no man (man-db not installed)"
elif grep -qs '^path-exclude.*/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
	skip "man -w: dpkg excludes /usr/share/man on this machine"
else
	expect_rc "man -w harn-egressd" 0 man -w harn-egressd
	expect_grep "man -w harn-egressd: section 8" "$TMP/out" \
	    '^/usr/share/man/man8/harn-egressd\.8\.gz$'
	expect_rc "man -w egress.conf" 0 man -w egress.conf
	expect_grep "man -w egress.conf: section 5" "$TMP/out" \
	    '^/usr/share/man/man5/egress\.conf\.5\.gz$'
fi

# The unit: where Debian 12 keeps units, running the installed binary,
# valid for systemd, neither enabled nor started by the installation
# (the installed policy denies everything), and its log is the one
# logrotate rotates.
UNIT=/lib/systemd/system/harn-egressd.service
expect_grep "the unit runs /usr/bin/harn-egressd" "$UNIT" \
    '^ExecStart=/usr/bin/harn-egressd '
expect_no_grep "the unit names no /usr/local path" "$UNIT" /usr/local
if command -v systemd-analyze >/dev/null 2>&1; then
	expect_rc "systemd-analyze verify $UNIT" 0 systemd-analyze verify "$UNIT"
	if [ -s "$TMP/err" ]; then
		sed 's/^/# systemd-analyze: /' "$TMP/err"
	fi
else
	skip "systemd-analyze verify: no systemd-analyze (systemd not installed)"
fi
enabled=$(find /etc/systemd/system -name 'harn-egressd.service' 2>/dev/null)
if [ -z "$enabled" ]; then
	ok "the installation did not enable the service"
else
	not_ok "the installation did not enable the service" "$enabled"
fi
log=$(grep -v '^#' "$UNIT" | sed -n 's/.*--log \(\/[^ ]*\).*/\1/p')
expect_grep "logrotate rotates the unit's log ($log)" \
    /etc/logrotate.d/harn-egressd "^$log \{\$"
if command -v logrotate >/dev/null 2>&1; then
	expect_rc "logrotate -d /etc/logrotate.d/harn-egressd" 0 \
	    logrotate -d /etc/logrotate.d/harn-egressd
else
	skip "logrotate -d: no logrotate (not installed)"
fi

# The service starts without a signing key: the unit loads no credential
# and passes no --sign-key; signing is the operator's to turn on, with the
# example drop-in (LoadCredential= and SIGN_ARGS), which verifies with it.
DROPIN=/usr/share/doc/$PKG/examples/signing.conf
grep -v '^#' "$UNIT" >"$TMP/unit.settings"
expect_no_grep "the unit loads no credential" "$TMP/unit.settings" \
    LoadCredential
expect_no_grep "the unit passes no --sign-key" "$TMP/unit.settings" --sign-key
mkdir -p "$TMP/unit/$PKG.service.d"
cp "$UNIT" "$TMP/unit/"
cp "$DROPIN" "$TMP/unit/$PKG.service.d/"
if command -v systemd-analyze >/dev/null 2>&1; then
	expect_rc "systemd-analyze verify: the unit with the signing drop-in" 0 \
	    systemd-analyze verify "$TMP/unit/$PKG.service"
	if [ -s "$TMP/err" ]; then
		not_ok "systemd-analyze verify: the drop-in, nothing to say" \
		    "$(head -c 600 "$TMP/err")"
	else
		ok "systemd-analyze verify: the drop-in, nothing to say"
	fi
else
	skip "systemd-analyze verify: no systemd-analyze (systemd not installed)"
fi

# unitexec.py KEY LISTEN PORTFILE CREDS UNITFILE...: run the unit's KEY=
# command (ExecStartPre, ExecStart) as systemd would, with no systemd here:
# the files' Environment= in order, "$VAR" a word split into words,
# "${VAR}" inside one, %d the credentials directory CREDS, where each
# LoadCredential=ID:PATH is copied (PATH from $CRED_<ID> when set: the
# test's key, never one in /etc).  The --listen address is LISTEN (a free
# port here, not 3128) and --port-file PORTFILE is added ("-": neither).
cat >"$TMP/unitexec.py" <<'PYEOF'
import os, re, shlex, shutil, sys

key, listen, portfile, creds = sys.argv[1:5]
env, cmds, loads = {}, [], []
for path in sys.argv[5:]:
    text = re.sub(r'\\\n', ' ', open(path).read())
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in '#;[' or '=' not in line:
            continue
        k, v = line.split('=', 1)
        v = v.replace('%d', creds).replace('%%', '%')
        if k == 'Environment':
            env.update(w.split('=', 1) for w in shlex.split(v))
        elif k == 'LoadCredential':
            loads.append(v.split(':', 1))
        elif k == key:
            cmds.append(v.lstrip('-@:+!'))
if len(cmds) != 1:
    sys.exit('unitexec: %d %s= lines' % (len(cmds), key))
if loads:
    os.makedirs(creds, mode=0o700)
    for cid, src in loads:
        dst = os.path.join(creds, cid)
        shutil.copyfile(os.environ.get('CRED_' + cid.replace('.', '_'), src),
                        dst)
        os.chmod(dst, 0o400)
    env['CREDENTIALS_DIRECTORY'] = creds
argv = []
for w in shlex.split(cmds[0]):
    m = re.fullmatch(r'\$([A-Za-z_]\w*)', w)
    if m:
        argv += shlex.split(env.get(m.group(1), ''))
    else:
        argv.append(re.sub(r'\$\{(\w+)\}', lambda m: env.get(m.group(1), ''), w))
if portfile != '-':
    argv[argv.index('--listen') + 1] = listen
    argv += ['--port-file', portfile]
os.execve(argv[0], argv, {'PATH': '/usr/bin:/bin', **env})
PYEOF
# svc_run NAME FILE...: the unit's ExecStart (FILE...: the unit and its
# drop-ins) in the background; one CONNECT the installed policy refuses
# (to loopback: nothing leaves the machine), then SIGTERM as systemctl
# stop sends.  1 when it did not come up or did not stop with exit 0.
svc_run() {
	sname=$1
	shift
	rm -f "$TMP/$sname.port"
	CRED_report_key=$TMP/report.key $PY "$TMP/unitexec.py" ExecStart \
	    127.0.0.1:0 "$TMP/$sname.port" "$TMP/$sname.creds" "$@" \
	    >"$TMP/$sname.out" 2>"$TMP/$sname.err" &
	spid=$!
	BG_PIDS="$BG_PIDS $spid"
	if ! wait_file "$TMP/$sname.port" 50 "$spid"; then
		not_ok "$sname: the service comes up" \
		    "$(head -c 600 "$TMP/$sname.err")"
		return 1
	fi
	ok "$sname: the service comes up ($(head -n1 "$TMP/$sname.out"))"
	$PY -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5)
s.settimeout(5)
s.sendall(b"CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n")
print(s.recv(200).split(b"\r\n")[0].decode())' "$(head -n1 "$TMP/$sname.port")" \
	    >"$TMP/$sname.connect" 2>&1 || true
	expect_grep "$sname: the installed policy refuses CONNECT 127.0.0.1:9" \
	    "$TMP/$sname.connect" '^HTTP/1\.1 403 '
	kill -TERM "$spid"
	if ! wait_gone "$spid" 150; then
		not_ok "$sname: SIGTERM stops the service"
		return 1
	fi
	src=0
	wait "$spid" || src=$?
	if [ "$src" -eq 0 ]; then
		ok "$sname: SIGTERM stops the service, exit 0"
	else
		not_ok "$sname: SIGTERM stops the service, exit 0" "exit $src" \
		    "$(head -c 600 "$TMP/$sname.err")"
	fi
}

# What the service would have left, laid out as systemd does for a
# DynamicUser= unit (LogsDirectory=, StateDirectory=): purge removes it.
rm_private() {
	rm -rf /var/log/private/harn-egressd /var/lib/private/harn-egressd \
	    /var/log/harn-egressd /var/lib/harn-egressd
	for d in $MADE_PRIVATE; do
		rmdir "$d" 2>/dev/null || true
	done
}
MADE_PRIVATE=""
for v in /var/log /var/lib; do
	if [ ! -d "$v/private" ]; then
		mkdir -m 0700 "$v/private"
		MADE_PRIVATE="$MADE_PRIVATE $v/private"
	fi
	mkdir "$v/private/harn-egressd"
	ln -s private/harn-egressd "$v/harn-egressd"
done
at_exit rm_private

# The service as the unit runs it, with no key: ExecStartPre, then
# ExecStart in the directories made above as systemd makes them.  Then
# with the signing drop-in and the test's key: verify accepts that report
# and refuses the unsigned one (the control).
expect_rc "ExecStartPre: the unit's policy check passes" 0 \
    $PY "$TMP/unitexec.py" ExecStartPre - - "$TMP/pre.creds" "$UNIT"
REPORT=/var/lib/harn-egressd/report.json
if svc_run nokey "$UNIT"; then
	expect_grep "nokey: it wrote the report" "$TMP/nokey.err" \
	    "^harn-egressd: report $REPORT "
	expect_no_grep "nokey: the report is unsigned" "$REPORT" '"signature"'
	expect_grep "nokey: the refusal is in the unit's log" "$log" \
	    '"decision":"deny"'
	cp "$REPORT" "$TMP/unsigned.json"
fi
expect_rc "keygen: the test's key, in $TMP" 0 \
    harn-egressd keygen --out "$TMP/report.key"
if svc_run signing "$UNIT" "$DROPIN"; then
	expect_rc "signing: verify accepts the report" 0 \
	    harn-egressd verify --pubkey "$TMP/report.key.pub" --log "$log" \
	    "$REPORT"
	if [ -f "$TMP/unsigned.json" ]; then
		expect_rc "nokey: verify refuses the unsigned report (control)" 1 \
		    harn-egressd verify --pubkey "$TMP/report.key.pub" \
		    --log "$log" "$TMP/unsigned.json"
	fi
fi
echo '{"decision":"deny"}' >/var/log/harn-egressd/decisions.log
echo '{"decision":"deny"}' >/var/log/harn-egressd/decisions.log.1
echo '{}' >/var/lib/harn-egressd/report.json

# Purge: nothing of the package is left.
expect_rc "dpkg --purge $PKG" 0 dpkg_wait --purge "$PKG"
expect_rc "dpkg -L $PKG: not installed" 1 dpkg -L "$PKG"
left=""
while read -r f; do
	[ -d "$f" ] && [ ! -L "$f" ] && continue
	if [ -e "$f" ] || [ -L "$f" ]; then
		left="$left $f"
	fi
done <"$TMP/contents"
for d in /etc/harn-egressd /usr/share/doc/harn-egressd \
    /var/log/harn-egressd /var/lib/harn-egressd \
    /var/log/private/harn-egressd /var/lib/private/harn-egressd; do
	if [ -e "$d" ] || [ -L "$d" ]; then
		left="$left $d"
	fi
done
if [ -z "$left" ]; then
	ok "after purge no file of the package, nor its logs and state, is left"
else
	not_ok "after purge no file of the package, nor its logs and state, is left" \
	    "$left"
fi
if [ ! -e /usr/bin/harn-egressd ]; then
	ok "after purge /usr/bin/harn-egressd is gone"
else
	not_ok "after purge /usr/bin/harn-egressd is gone"
fi
state=$(grep -rls harn-egressd /var/lib/systemd/deb-systemd-helper-enabled \
    /var/lib/systemd/deb-systemd-helper-masked 2>/dev/null || true)
if [ -z "$state" ]; then
	ok "after purge deb-systemd-helper keeps no state for the unit"
else
	not_ok "after purge deb-systemd-helper keeps no state for the unit" \
	    "$state"
fi

finish
