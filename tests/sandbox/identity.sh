#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Whose files the command may change and read (SPEC 6.1, 6.4, 6.5), in
# both confinements, as root and then as nobody (su; the script again,
# with copies nobody may read):
#
#   turns      one identity for the workspace: a root-owned workspace
#              anyone may write (0777, a checkout in /tmp) is root's in
#              landlock as in namespaces: npm install of a local tarball
#              works, an existing root-owned file changes; runs of the two
#              confinements take turns, each changing what the other made,
#              which is owned the same way on disk; a workspace uid 65533
#              owns, and (as nobody) the caller's own
#   rootfiles  a root caller's files only root may read stay unreadable
#              under a $HOME the command is given, also one made during
#              the run (namespaces); a workspace in root's 0700 home works
#              in both, and nothing else of that home shows
#   private    a $HOME and a workspace under /var/tmp: the private /var/tmp
#              stays writable (and its new files readable), nothing
#              reaches the host's, and the credentials there stay denied,
#              also one made or replaced on the host during the run
#   record     os_hardened refused where namespaces fail at entry (their
#              /proc mount, which the quick probe cannot see) and there is
#              no Landlock: confinements_tried names both
#
# Every check that the command is kept from something has its control:
# the same read or write, unconfined, succeeds.  Nothing goes to the
# network: the policy refuses everything, npm is offline with its
# registry on a closed loopback port.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/identity.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
set +e
EGRESSD=${HARN_EGRESSD:-$EGRESSD}
PASS=${HARN_IDENTITY_PASS:-auto}
export LANG=C
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy \
    no_proxy NO_PROXY 2>/dev/null || true
ME=$(id -u)
# The pass's own directories: reachable by the command (uid 65533, for
# a root caller in landlock) on the way to its workspaces.
chmod 711 "$TMP"
printf 'default deny\n' >"$TMP/policy.conf"
POL=$TMP/policy.conf
HM=$TMP/home
mkdir -p "$HM"
chmod 755 "$HM"
NPMENV="npm_config_registry=http://127.0.0.1:9/ npm_config_update_notifier=false npm_config_audit=false npm_config_fund=false"

# box CONF WS [OPTION...] -- CMD...: confined; stdout+stderr in
# $TMP/box.out, RC set.
box() {
	bconf=$1 bws=$2
	shift 2
	env HOME="${BOX_HOME:-$HM}" "$EGRESSD" --policy "$POL" \
	    --confinement "$bconf" --workspace "$bws" "$@" >"$TMP/box.out" 2>&1
	RC=$?
}

# mkws MODE [OWNER]: a new workspace under $TMP, echoed.
mkws() {
	w=$(mktemp -d "$TMP/ws.XXXXXX") || return 1
	[ -n "${2:-}" ] && chown "$2" "$w"
	chmod "$1" "$w"
	echo "$w"
}

landlock_here() {
	"$EGRESSD" doctor --json >"$TMP/doctor.json" 2>/dev/null
	grep -q '"landlock_abi": [1-9]' "$TMP/doctor.json"
}

# ------------------------------------------------------------------ turns

# The tarballs npm installs: packages the test makes, as npm pack would
# (package/ at the top), made with tar so that npm writes nothing of the
# host's (its cache, its logs).
make_pkgs() {
	for n in tinya tinyb; do
		mkdir -p "$TMP/pkg/$n/package"
		printf '{"name":"%s","version":"1.0.0","main":"index.js"}\n' \
		    "$n" >"$TMP/pkg/$n/package/package.json"
		echo "module.exports = '$n'" >"$TMP/pkg/$n/package/index.js"
		tar -czf "$TMP/$n.tgz" -C "$TMP/pkg/$n" package || return 1
	done
	chmod 644 "$TMP"/tiny*.tgz
}

# npm_in CONF WS PKG: npm install of a local tarball, offline.
npm_in() {
	cp "$TMP/$3.tgz" "$2/" 2>/dev/null
	box "$1" "$2" -- sh -c "$NPMENV npm install --offline ./$3.tgz"
}

npm_checks() {
	command -v npm >/dev/null || {
		skip "npm install: npm is not installed"
		return
	}
	make_pkgs || {
		not_ok "the test's packages are made"
		return
	}
	if [ "$ME" -eq 0 ]; then
		W=$(mkws 777)
		printf '{"name":"app","version":"1.0.0"}\n' >"$W/package.json"
		npm_in landlock "$W" tinya
		if [ "$RC" -eq 0 ] && [ -d "$W/node_modules/tinya" ] &&
		    grep -q tinya "$W/package.json"; then
			ok "landlock, root, a root-owned 0777 workspace: npm install changes root's package.json"
		else
			not_ok "landlock, root, a root-owned 0777 workspace: npm install changes root's package.json" \
			    "exit $RC: $(tail -c 600 "$TMP/box.out")"
		fi
	fi
	# Turns: namespaces installs, landlock installs on top of it.
	W=$(mkws 755)
	[ "$ME" -eq 0 ] && chmod 777 "$W"
	printf '{"name":"app","version":"1.0.0"}\n' >"$W/package.json"
	npm_in namespaces "$W" tinya
	nrc=$RC
	npm_in landlock "$W" tinyb
	if [ "$nrc" -eq 0 ] && [ "$RC" -eq 0 ] &&
	    [ -d "$W/node_modules/tinya" ] && [ -d "$W/node_modules/tinyb" ] &&
	    grep -q tinya "$W/package.json" && grep -q tinyb "$W/package.json" &&
	    [ "$(stat -c %u "$W/node_modules/tinya")" = "$(stat -c %u "$W/node_modules/tinyb")" ]; then
		ok "npm install in namespaces, then in landlock, in one workspace (owner $(stat -c %u "$W/node_modules/tinyb") both)"
	else
		not_ok "npm install in namespaces, then in landlock, in one workspace" \
		    "exits $nrc, $RC: $(tail -c 600 "$TMP/box.out")" \
		    "$(ls -ln "$W/node_modules" 2>&1 | head -5)"
	fi
}

# turns LABEL WS WANT_UID: each confinement changes what the other made;
# what each makes is WANT_UID's on disk.
turns() {
	tlabel=$1 tw=$2 twant=$3
	echo base >"$tw/existing"
	chown --reference="$tw" "$tw/existing"
	chmod 644 "$tw/existing"
	box namespaces "$tw" -- sh -c 'echo ns >> existing && mkdir ns-dir &&
	    echo ns > ns-dir/f && echo ns > ns-made'
	r1=$RC
	box landlock "$tw" -- sh -c 'echo ll >> existing && echo ll >> ns-made &&
	    echo ll >> ns-dir/f && echo x > ns-dir/g && echo ll > ll-made'
	r2=$RC
	box namespaces "$tw" -- sh -c 'echo ns >> ll-made && rm ns-dir/g &&
	    mv ll-made ll-moved'
	r3=$RC
	o1=$(stat -c %u "$tw/ns-made" 2>/dev/null)
	o2=$(stat -c %u "$tw/ll-moved" 2>/dev/null)
	if [ "$r1$r2$r3" = 000 ] &&
	    [ "$(cat "$tw/existing" | tr '\n' ' ')" = "base ns ll " ] &&
	    [ "$(cat "$tw/ns-made" | tr '\n' ' ')" = "ns ll " ] &&
	    [ "$(cat "$tw/ll-moved" | tr '\n' ' ')" = "ll ns " ] &&
	    [ ! -e "$tw/ns-dir/g" ] && [ "$o1" = "$twant" ] && [ "$o2" = "$twant" ]; then
		ok "$tlabel: namespaces and landlock take turns; what each makes is uid $twant's on disk"
	else
		not_ok "$tlabel: namespaces and landlock take turns" \
		    "exits $r1 $r2 $r3; owners $o1 $o2, want $twant" \
		    "$(tail -c 400 "$TMP/box.out")"
	fi
}

turn_checks() {
	if [ "$ME" -eq 0 ]; then
		# Root's files there: the control (another uid, as uid 65533
		# would be) cannot change one, root can.
		W=$(mkws 777)
		echo base >"$W/rootfile"
		chmod 644 "$W/rootfile"
		if su nobody -s /bin/sh -c "echo x >> '$W/rootfile'" 2>/dev/null; then
			not_ok "control: another uid cannot change root's file in a 0777 workspace"
		else
			ok "control: another uid cannot change root's file in a 0777 workspace"
		fi
		box landlock "$W" -- sh -c 'id -u; echo ll >> rootfile'
		if [ "$RC" -eq 0 ] && grep -q '^0$' "$TMP/box.out" &&
		    [ "$(tail -n 1 "$W/rootfile")" = ll ]; then
			ok "landlock, root, a root-owned 0777 workspace: uid 0 (no capability), root's file changes"
		else
			not_ok "landlock, root, a root-owned 0777 workspace: root's file changes" \
			    "exit $RC: $(head -c 400 "$TMP/box.out")"
		fi
		cp "$TMP/caps" "$W/caps"
		box landlock "$W" -- "$W/caps"
		if [ "$RC" -eq 0 ] && grep -q '^CapEff:	0*$' "$TMP/box.out" &&
		    grep -q '^CapBnd:	0*$' "$TMP/box.out"; then
			ok "landlock, root-owned 0777 workspace: no capability kept"
		else
			not_ok "landlock, root-owned 0777 workspace: no capability kept" \
			    "$(head -c 400 "$TMP/box.out")"
		fi
		turns "root, a root-owned 0777 workspace" "$(mkws 777)" 0
		turns "root, a workspace uid 65533 owns" "$(mkws 755 65533:65533)" 65533
	else
		turns "$(id -un), its own workspace" "$(mkws 755)" "$ME"
	fi
	npm_checks
}

# ------------------------------------------------------------------ rootfiles

# late_read CONF WS FILE MAKE: the command waits (bounded) until the test
# has run MAKE on the host, then reads FILE; output in $TMP/box.out.
late_read() {
	lconf=$1 lws=$2 lfile=$3 lmake=$4
	rm -f "$lws/started" "$lws/go"
	(box "$lconf" "$lws" -- sh -c 'echo started > started; i=0
	    while [ ! -e go ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	    cat "$1"' sh "$lfile"; echo "$RC" >"$TMP/late.rc") &
	lpid=$!
	if wait_file "$lws/started" 100 "$lpid"; then
		eval "$lmake"
		: >"$lws/go"
	fi
	wait "$lpid"
	RC=$(cat "$TMP/late.rc")
}

# Root's own directories for a $HOME, outside the private ones (/tmp), so
# that what keeps the command out is the mode of what is there.
rm_roothomes() {
	rm -rf "$RH_DIR" "$H7_DIR"
}

rootfile_checks() {
	[ "$ME" -eq 0 ] || return 0
	RH=$(mktemp -d /var/lib/harn-ident-home.XXXXXX) || {
		not_ok "a directory of ours under /var/lib"
		return
	}
	H7=$(mktemp -d /var/lib/harn-ident-home7.XXXXXX)
	RH_DIR=$RH H7_DIR=$H7
	at_exit rm_roothomes
	chmod 755 "$RH"
	SECRET="root-only-$$-$(date +%s%N)"
	echo "$SECRET" >"$RH/secret"
	chmod 600 "$RH/secret"
	echo world-readable >"$RH/public"
	chmod 644 "$RH/public"
	if cat "$RH/secret" | grep -q "$SECRET"; then
		ok "control: root reads its 0600 file in \$HOME ($RH)"
	else
		not_ok "control: root reads its 0600 file in \$HOME"
	fi
	W=$(mkws 700)
	for c in namespaces landlock; do
		BOX_HOME=$RH box "$c" "$W" -- sh -c 'cat "$HOME/secret"'
		if [ "$RC" -ne 0 ] && ! grep -q "$SECRET" "$TMP/box.out" &&
		    grep -q 'Permission denied' "$TMP/box.out"; then
			ok "$c, root: its 0600 file under \$HOME is not readable (EACCES)"
		else
			not_ok "$c, root: its 0600 file under \$HOME is not readable" \
			    "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
		BOX_HOME=$RH box "$c" "$W" -- sh -c 'cat "$HOME/public"'
		if [ "$RC" -eq 0 ] && grep -q '^world-readable$' "$TMP/box.out"; then
			ok "$c, root: a world-readable file under \$HOME reads"
		else
			not_ok "$c, root: a world-readable file under \$HOME reads" \
			    "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
	done
	# One that root makes there during the run: the mode keeps it, not
	# a walk.  (In a directory that holds no denied path, which Landlock
	# grants whole.)
	mkdir "$RH/sub"
	chmod 755 "$RH/sub"
	BOX_HOME=$RH late_read namespaces "$W" "$RH/sub/late" \
	    "echo '$SECRET' > '$RH/sub/late'; chmod 600 '$RH/sub/late'"
	if grep -q "$SECRET" "$RH/sub/late" && [ "$RC" -ne 0 ] &&
	    ! grep -q "$SECRET" "$TMP/box.out"; then
		ok "namespaces, root: a 0600 file root makes under \$HOME during the run is not readable"
	else
		not_ok "namespaces, root: a 0600 file root makes under \$HOME during the run is not readable" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	# A workspace in root's 0700 home: it works there; nothing else of
	# that home shows (nothing else of it is another user's to read).
	mkdir "$H7/proj"
	echo world-readable >"$H7/public"
	chmod 644 "$H7/public"
	echo "$SECRET" >"$H7/secret"
	chmod 600 "$H7/secret"
	chmod 700 "$H7"
	for c in namespaces landlock; do
		rm -f "$H7/proj/made"
		BOX_HOME=$H7 box "$c" "$H7/proj" -- sh -c 'echo made > made &&
		    cat made; cat "$HOME/secret"; cat "$HOME/public"; ls "$HOME"'
		if grep -q '^made$' "$TMP/box.out" && [ -s "$H7/proj/made" ] &&
		    ! grep -q "$SECRET" "$TMP/box.out" &&
		    ! grep -q '^world-readable$' "$TMP/box.out"; then
			ok "$c, root: a workspace in root's 0700 home works; nothing else of the home reads"
		else
			not_ok "$c, root: a workspace in root's 0700 home works; nothing else of it reads" \
			    "exit $RC: $(head -c 400 "$TMP/box.out")"
		fi
	done
}

# ------------------------------------------------------------------ private

private_checks() {
	PD=$(mktemp -d /var/tmp/harn-ident.XXXXXX) || {
		not_ok "a directory of ours under /var/tmp"
		return
	}
	PRIV_DIR=$PD
	at_exit rm_private
	chmod 755 "$PD"
	mkdir -p "$PD/ws" "$PD/home/.ssh" "$PD/home/bin"
	SECRET="cred-$$-$(date +%s%N)"
	echo "$SECRET" >"$PD/home/.ssh/id_rsa"
	echo "$SECRET" >"$PD/home/.netrc"
	printf '#!/bin/sh\necho tool-ran\n' >"$PD/home/bin/tool"
	chmod 755 "$PD/home/bin/tool"
	NEW=harn-ident-new-$$
	rm -f "/var/tmp/$NEW"
	BOX_HOME=$PD/home box namespaces "$PD/ws" -- sh -c "
	    echo private > /var/tmp/$NEW && cat /var/tmp/$NEW &&
	    mkdir /var/tmp/$NEW.d && echo ws > in-ws && \$HOME/bin/tool"
	if [ "$RC" -eq 0 ] && grep -q '^private$' "$TMP/box.out" &&
	    grep -q '^tool-ran$' "$TMP/box.out" && [ -s "$PD/ws/in-ws" ]; then
		ok "\$HOME and workspace under /var/tmp: the private /var/tmp is writable, its files read; the workspace too; tools in \$HOME run"
	else
		not_ok "\$HOME and workspace under /var/tmp: the private /var/tmp is writable" \
		    "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
	if [ -e "/var/tmp/$NEW" ] || [ -e "/var/tmp/$NEW.d" ]; then
		not_ok "the private /var/tmp's file never reaches the host's"
		rm -rf "/var/tmp/$NEW" "/var/tmp/$NEW.d"
	else
		ok "the private /var/tmp's file never reaches the host's"
	fi
	for f in .ssh/id_rsa .netrc; do
		if grep -q "$SECRET" "$PD/home/$f"; then
			ok "control: reads ~/$f under /var/tmp"
		else
			not_ok "control: reads ~/$f under /var/tmp"
		fi
		# A denied file may read as the empty /dev/null that masks it;
		# a denied directory is refused.
		BOX_HOME=$PD/home box namespaces "$PD/ws" -- cat "$PD/home/$f"
		if ! grep -q "$SECRET" "$TMP/box.out" && { [ "$f" = .netrc ] ||
		    grep -q 'Permission denied' "$TMP/box.out"; }; then
			ok "~/$f under /var/tmp: not readable ($(head -n 1 "$TMP/box.out" | cut -c1-80))"
		else
			not_ok "~/$f under /var/tmp: not readable" \
			    "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
	done
	# Made, and replaced, on the host while the command runs.
	BOX_HOME=$PD/home late_read namespaces "$PD/ws" "$PD/home/.aws/credentials" \
	    "mkdir -p '$PD/home/.aws'; echo '$SECRET' > '$PD/home/.aws/credentials'"
	if grep -q "$SECRET" "$PD/home/.aws/credentials" && [ "$RC" -ne 0 ] &&
	    ! grep -q "$SECRET" "$TMP/box.out"; then
		ok "~/.aws/credentials made on the host during the run: not readable"
	else
		not_ok "~/.aws/credentials made on the host during the run: not readable" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	BOX_HOME=$PD/home late_read namespaces "$PD/ws" "$PD/home/.netrc" \
	    "echo '$SECRET-2' > '$PD/home/.netrc.new'; mv '$PD/home/.netrc.new' '$PD/home/.netrc'"
	if grep -q "$SECRET-2" "$PD/home/.netrc" && [ "$RC" -ne 0 ] &&
	    ! grep -q "$SECRET" "$TMP/box.out"; then
		ok "~/.netrc replaced on the host during the run: not readable"
	else
		not_ok "~/.netrc replaced on the host during the run: not readable" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
}
rm_private() {
	rm -rf "$PRIV_DIR"
}

# ------------------------------------------------------------------ record

record_checks() {
	[ "$ME" -eq 0 ] && id nobody >/dev/null 2>&1 || return 0
	cc -O1 -o "$TMP/dockerish" "$top_srcdir/tests/dockerish.c" -lseccomp \
	    2>"$TMP/cc.err" || {
		not_ok "the container launcher builds" "$(head -c 300 "$TMP/cc.err")"
		return
	}
	MP=$(mktemp -d /tmp/harn-ident-mp.XXXXXX)
	MP_DIR=$MP
	at_exit rm_mp
	cp "$EGRESSD" "$MP/harn-egressd"
	cp "$POL" "$MP/p.conf"
	mkdir "$MP/ws"
	chmod 755 "$MP"
	chown -R nobody "$MP"
	# A /proc that cannot be mounted in a user namespace: the namespaces'
	# set-up fails at entry, which unshare(0) does not show.
	"$TMP/dockerish" --mask-proc --seccomp-unconfined -- su nobody -s /bin/sh \
	    -c "cd $MP/ws && HARN_EGRESSD_LANDLOCK_ABI=0 $MP/harn-egressd \
	    --policy $MP/p.conf --profile os_hardened -- true" >"$TMP/rec.out" 2>&1
	rrc=$?
	if [ "$rrc" -eq 3 ] && $PY - "$TMP/rec.out" <<'EOF'
import json, sys
for l in open(sys.argv[1]):
    if '"harn.process.sandbox_refusal.v1"' not in l:
        continue
    t = json.loads(l).get("confinements_tried", [])
    ok = (len(t) == 2 and t[0]["confinement"] == "namespaces"
          and t[0]["mechanism"] == "linux_namespaces"
          and t[0]["availability"] == "entry_point_cannot_attach"
          and t[1]["confinement"] == "landlock"
          and t[1]["mechanism"] == "linux_landlock"
          and t[1]["availability"] == "absent_on_host")
    sys.exit(0 if ok else 1)
sys.exit(1)
EOF
	then
		ok "os_hardened, namespaces refused at entry, no Landlock: exit 3, confinements_tried names both"
	else
		not_ok "os_hardened, namespaces refused at entry, no Landlock: confinements_tried names both" \
		    "exit $rrc: $(head -c 600 "$TMP/rec.out")"
	fi
}
rm_mp() {
	rm -rf "$MP_DIR"
}

# ------------------------------------------------------------------ passes

suite() {
	echo "# pass: $1 (uid $ME), binary: $EGRESSD"
	if ! landlock_here; then
		skip "both confinements: this kernel has no Landlock"
		return
	fi
	# What the command holds: its capability sets.
	printf '#!/bin/sh\ngrep -E "^Cap(Eff|Bnd):" /proc/self/status\n' >"$TMP/caps"
	chmod 755 "$TMP/caps"
	turn_checks
	rootfile_checks
	private_checks
	record_checks
}

if [ "$PASS" = unprivileged ] || [ "$ME" -ne 0 ]; then
	suite unprivileged
else
	suite root
	if id nobody >/dev/null 2>&1; then
		nobody_pass sandbox/identity HARN_IDENTITY_PASS \
		    "$top_srcdir/tests/dockerish.c"
	else
		skip "unprivileged pass: no user 'nobody'"
	fi
fi
finish
