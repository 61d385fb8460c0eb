#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run mode's sandbox (SPEC 6), the filesystem: reads and writes outside
# the grants, metadata, a racing root, symlinks, files made during the
# run.
# The probe, the controls and the passes (root, nobody, landlock):
# tests/sandbox/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/fs.sh
# HARN_EGRESSD=/path/to/binary overrides the binary under test.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/sandbox/lib.sh"

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
	# skeletons, and /tmp stays whole; tests/sandbox/identity.sh tries that.)
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

sandbox_suite fs fs_checks meta_checks race_checks symlink_checks late_checks
