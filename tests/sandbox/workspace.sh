#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Nothing of harn-egressd's is left in the workspace (SPEC 6.3): a run in a
# git checkout leaves `git status --porcelain` exactly as the command
# itself makes it, in both confinements, as root (a root-owned checkout,
# and in landlock one uid 65533 owns) and then as nobody (su; the script
# again):
#
#   tools     npm install of a local tarball, pip download and pip install
#             --target of a local wheel, git clone of a local repository
#             and make with a Makefile that writes in $TMPDIR: the status
#             after each is the one the same command leaves unconfined
#             (the control, run in a fresh checkout), and nothing named
#             .harn-* is there
#   private   TMPDIR, XDG_CACHE_HOME, the caches and the npmrc stand-in
#             lie outside the workspace; in landlock their directory is
#             there during the run (the control) and gone after it, also
#             when harn-egressd is sent SIGTERM mid-run; a symlink the
#             command plants there, to a file and to a directory of the
#             test's, is not followed at removal (the targets survive);
#             another uid (1) cannot list or plant in it while root can
#   keep      --env XDG_CACHE_HOME=D and --cache-dir D keep npm's cache in
#             D across two runs (the second finds the first's content;
#             the control: without them it finds none); --env TMPDIR=D
#             is the command's TMPDIR, TMP and TEMP, and what it leaves
#             there stays
#   usage     --cache-dir and --env of a directory variable take the
#             refusals of --write-root (a system directory, $HOME, a
#             missing or relative one), exit 2 and nothing run; the
#             caller's value is not printed; --env HTTP_PROXY=... is
#             refused
#
# Nothing goes to the network: the policy refuses everything, npm is
# offline with its registry on a closed loopback port, pip takes
# --no-index.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/workspace.sh
# HARN_EGRESSD=/path/to/harn-egressd tests another build.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
set +e
EGRESSD=${HARN_EGRESSD:-$EGRESSD}
PASS=${HARN_WORKSPACE_PASS:-auto}
export LANG=C
ME=$(id -u)
# On the way to the workspaces, for a command running as uid 65533.
chmod 711 "$TMP"
printf 'default deny\n' >"$TMP/policy.conf"
POL=$TMP/policy.conf
# A home of the test's: git's settings (a repository another uid owns is
# safe to clone), and the unconfined controls' caches.
HM=$TMP/home
mkdir -p "$HM"
printf '[safe]\n\tdirectory = *\n[user]\n\tname = t\n\temail = t@example.invalid\n' \
    >"$HM/.gitconfig"
# A private registry's token: the stand-in the command gets holds the rest.
printf 'registry=http://127.0.0.1:9/\n//127.0.0.1:9/:_authToken=planted\n' \
    >"$HM/.npmrc"
chmod -R a+rX "$HM"
export HOME="$HM" GIT_CONFIG_NOSYSTEM=1
NPMENV="npm_config_registry=http://127.0.0.1:9/ npm_config_update_notifier=false npm_config_audit=false npm_config_fund=false"

# box CONF WS [OPTION...] -- CMD...: confined; stdout+stderr in
# $TMP/box.out, RC set.
box() {
	bconf=$1 bws=$2
	shift 2
	"$EGRESSD" --policy "$POL" --confinement "$bconf" --workspace "$bws" \
	    "$@" >"$TMP/box.out" 2>&1
	RC=$?
}

attaches() {
	"$EGRESSD" doctor --json 2>/dev/null | $PY -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["confinements"][sys.argv[1]]["attaches"] else 1)' "$1"
}

status() {
	git -C "$1" status --porcelain 2>&1
}

# ------------------------------------------------------------------ the checkout

# The template: a package.json, a tarball npm installs, a Makefile that
# writes in $TMPDIR.  npm pack's layout, made with tar so that npm writes
# nothing of the host's.
make_template() {
	T=$TMP/tpl
	mkdir -p "$TMP/pkg/package" "$T" || return 1
	printf '{"name":"tinya","version":"1.0.0","main":"index.js"}\n' \
	    >"$TMP/pkg/package/package.json"
	echo "module.exports = 'tinya'" >"$TMP/pkg/package/index.js"
	tar -czf "$T/tinya.tgz" -C "$TMP/pkg" package || return 1
	printf '{"name":"app","version":"1.0.0"}\n' >"$T/package.json"
	printf 'all:\n\techo made > "$${TMPDIR:?}/made.$$$$" && cp "$$TMPDIR/made.$$$$" out.txt && rm "$$TMPDIR/made.$$$$"\n' \
	    >"$T/Makefile"
	git -C "$T" init -q && git -C "$T" add -A &&
	    git -C "$T" commit -qm template || return 1
	# The wheel pip takes, by hand (a zip): no build tool needed.
	mkdir -p "$TMP/wheels"
	$PY - "$TMP/wheels" <<'EOF' || return 1
import base64, hashlib, sys, zipfile
n, v = "tinyw", "1.0"
files = {n + ".py": b"X = 1\n",
         "%s-%s.dist-info/METADATA" % (n, v):
             ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (n, v)).encode(),
         "%s-%s.dist-info/WHEEL" % (n, v):
             b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = ["%s,sha256=%s,%d" % (k, base64.urlsafe_b64encode(
    hashlib.sha256(b).digest()).rstrip(b"=").decode(), len(b))
    for k, b in files.items()]
rec.append("%s-%s.dist-info/RECORD,," % (n, v))
files["%s-%s.dist-info/RECORD" % (n, v)] = ("\n".join(rec) + "\n").encode()
with zipfile.ZipFile("%s/%s-%s-py3-none-any.whl" % (sys.argv[1], n, v), "w") as z:
    for k, b in files.items():
        z.writestr(k, b)
EOF
	# The repository git clones: outside the workspace, granted.
	git init -q "$TMP/src" && echo a >"$TMP/src/a" &&
	    git -C "$TMP/src" add a && git -C "$TMP/src" commit -qm a || return 1
	chmod -R a+rX "$T" "$TMP/wheels" "$TMP/src" "$TMP/pkg"
	mkdir -p "$TMP/ctltmp"
}

# checkout [OWNER]: a fresh clone of the template, echoed.
checkout() {
	c=$(mktemp -d "$TMP/ws.XXXXXX") && rmdir "$c" &&
	    git clone -q "$TMP/tpl" "$c" || return 1
	[ -n "${1:-}" ] && chown -R "$1" "$c"
	chmod 755 "$c"
	echo "$c"
}

# The tools, each one command line: NAME, options, command.
tool_cmd() {
	case $1 in
	npm) echo "$NPMENV npm install --offline ./tinya.tgz" ;;
	pip) echo "$PYIN -m pip download -q --no-index --find-links $TMP/wheels -d dl tinyw && $PYIN -m pip install -q --no-index --find-links $TMP/wheels --target site tinyw" ;;
	git) echo "git clone -q $TMP/src sub" ;;
	make) echo "make -s" ;;
	esac
}

# tool_run CONF WS TOOL [OPTION...]: the tool in WS; CONF "none" runs it
# by itself, without harn-egressd (the control, with a TMPDIR of the
# test's).
tool_run() {
	rconf=$1 rws=$2 rtool=$3
	shift 3
	if [ "$rconf" = none ]; then
		(cd "$rws" && env TMPDIR="$TMP/ctltmp" sh -c "$(tool_cmd "$rtool")") \
		    >"$TMP/box.out" 2>&1
		RC=$?
	else
		box "$rconf" "$rws" --read-only-root "$TMP/wheels" \
		    --read-only-root "$TMP/src" "$@" -- sh -c "$(tool_cmd "$rtool")"
	fi
}

CONTROLS=""
# control TOOL: the status the tool leaves unconfined, in $TMP/want.TOOL.
control() {
	case " $CONTROLS " in *" $1 "*) return 0 ;; esac
	cw=$(checkout) || return 1
	tool_run none "$cw" "$1"
	status "$cw" >"$TMP/want.$1"
	if [ "$RC" -ne 0 ] || [ ! -s "$TMP/want.$1" ]; then
		not_ok "control: $1 unconfined changes the checkout" \
		    "exit $RC: $(tail -c 400 "$TMP/box.out")" "$(cat "$TMP/want.$1")"
		return 1
	fi
	ok "control: $1 unconfined leaves: $(tr '\n' ' ' <"$TMP/want.$1")"
	CONTROLS="$CONTROLS $1"
}

tools_in() {
	tlabel=$1 tconf=$2 towner=$3
	for t in npm pip git make; do
		if [ "$t" = npm ] && ! command -v npm >/dev/null; then
			skip "$tlabel: npm: npm is not installed"
			continue
		fi
		control "$t" || continue
		w=$(checkout "$towner") || {
			not_ok "$tlabel: a checkout is made"
			continue
		}
		tool_run "$tconf" "$w" "$t"
		got=$(status "$w")
		harn=$(ls -A "$w" | grep '^\.harn' | tr '\n' ' ')
		if [ "$RC" -eq 0 ] && [ "$got" = "$(cat "$TMP/want.$t")" ] &&
		    [ -z "$harn" ]; then
			ok "$tlabel: $t: git status is what $t made, nothing of ours"
		else
			not_ok "$tlabel: $t: git status is what $t made, nothing of ours" \
			    "exit $RC: $(tail -c 300 "$TMP/box.out")" \
			    "status: $(echo "$got" | tr '\n' ' ')" \
			    "want: $(tr '\n' ' ' <"$TMP/want.$t")" "in it: $harn"
		fi
	done
}

tool_checks() {
	for c in namespaces landlock; do
		if ! attaches "$c"; then
			skip "$c: the confinement does not attach here (doctor)"
			continue
		fi
		if [ "$ME" -eq 0 ]; then
			tools_in "$c, root, a root-owned checkout" "$c" ""
			tools_in "$c, root, a checkout uid 65533 owns" "$c" 65533:65533
		else
			tools_in "$c, $(id -un), its own checkout" "$c" ""
		fi
	done
}

# ------------------------------------------------------------------ private

# The command's directories, printed by it: T= TMPDIR, X= XDG_CACHE_HOME,
# N= npm_config_cache, P= PIP_CACHE_DIR, U= NPM_CONFIG_USERCONFIG.
SHOW='echo "T=$TMPDIR"; echo "X=$XDG_CACHE_HOME"; echo "N=$npm_config_cache"
echo "P=$PIP_CACHE_DIR"; echo "U=$NPM_CONFIG_USERCONFIG"'

val() {
	sed -n "s/^$1=//p" "$2" | head -n 1
}

# outside_ws LABEL WS FILE: each directory the command was given lies
# outside WS (and is set).
outside_ws() {
	bad=""
	for k in T X N P U; do
		v=$(val "$k" "$3")
		case $v in
		"" | "$2" | "$2"/*) bad="$bad $k=$v" ;;
		esac
	done
	if [ -z "$bad" ]; then
		ok "$1: TMPDIR, XDG_CACHE_HOME, the caches, the npmrc stand-in outside the workspace ($(val T "$3"))"
	else
		not_ok "$1: TMPDIR, XDG_CACHE_HOME, the caches, the npmrc stand-in outside the workspace" \
		    "$bad" "$(head -c 300 "$3")"
	fi
}

# A run in the background that shows its directories, plants links,
# makes a directory it may not search, and waits to be ended.
PLANT='echo "$TMPDIR" > "$TMPDIR/../here"; ln -s "$1" "$TMPDIR/link"
ln -s "$2" "$TMPDIR/dirlink"; mkdir -p "$TMPDIR/shut/in"; touch "$TMPDIR/shut/in/f"
chmod 000 "$TMPDIR/shut"; echo ready; i=0
while [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done'

private_checks() {
	# The files a removal that followed links would take.
	echo victim >"$TMP/victim"
	mkdir -p "$TMP/victimdir"
	echo victim >"$TMP/victimdir/f"
	chmod 644 "$TMP/victim" "$TMP/victimdir/f"
	for c in namespaces landlock; do
		attaches "$c" || {
			skip "$c: the confinement does not attach here (doctor)"
			continue
		}
		w=$(checkout) || continue
		box "$c" "$w" -- sh -c "$SHOW"
		outside_ws "$c" "$w" "$TMP/box.out"
		if [ "$c" = namespaces ]; then
			if [ ! -e "$(val T "$TMP/box.out")" ]; then
				ok "namespaces: its TMPDIR is its own tmpfs's, not on the host"
			else
				not_ok "namespaces: its TMPDIR is its own tmpfs's, not on the host" \
				    "$(val T "$TMP/box.out") exists here"
			fi
		fi
		sigterm_run "$c" "$w"
		if [ -n "$(status "$w")" ] || ls -A "$w" | grep -q '^\.harn'; then
			not_ok "$c: after the runs, the checkout is as it was" \
			    "$(status "$w" | tr '\n' ' ') $(ls -A "$w" | tr '\n' ' ')"
		else
			ok "$c: after the runs, the checkout is as it was"
		fi
	done
}

# sigterm_run CONF WS: the background run; its directory (landlock) is
# there during the run, private, and gone once harn-egressd is SIGTERMed.
# harn-egressd's own TMPDIR is a directory of the test's, so the run's
# directory is found there, and nothing else may be left in it.
sigterm_run() {
	sc=$1 sw=$2
	base=$TMP/base.$sc
	mkdir -p "$base"
	chmod 755 "$base"
	rm -f "$TMP/bg.out"
	env TMPDIR="$base" "$EGRESSD" --policy "$POL" --confinement "$sc" \
	    --workspace "$sw" -- sh -c "$PLANT" sh "$TMP/victim" "$TMP/victimdir" \
	    >"$TMP/bg.out" 2>&1 &
	spid=$!
	if ! wait_grep "$TMP/bg.out" '^ready$' 100 "$spid"; then
		not_ok "$sc: the run plants its links" "$(head -c 300 "$TMP/bg.out")"
		kill "$spid" 2>/dev/null
		wait "$spid"
		return
	fi
	run=""
	if [ "$sc" = landlock ]; then
		# The run's directory: its TMPDIR's parent, inside ours.
		run=$(ls -d "$base"/harn-egressd.* 2>/dev/null)
		if [ -d "$run" ] && [ -f "$run/run/here" ] &&
		    [ "$(readlink "$run/run/tmp/link")" = "$TMP/victim" ]; then
			ok "landlock: during the run its directory is there ($run), the link planted"
		else
			not_ok "landlock: during the run its directory is there, the link planted" \
			    "found '$run'" "$(head -c 300 "$TMP/bg.out")"
		fi
		other_uid "$run"
	fi
	kill -TERM "$spid"
	wait "$spid"
	src=$?
	if [ "$src" -ne 143 ]; then
		not_ok "$sc: SIGTERM ends the run (exit 143)" "exit $src: $(head -c 300 "$TMP/bg.out")"
	elif [ -n "$(ls -A "$base")" ]; then
		not_ok "$sc: SIGTERM mid-run: the run's directory is gone" \
		    "left: $(ls -A "$base" | tr '\n' ' ')"
	else
		ok "$sc: SIGTERM mid-run (exit 143): the run's directory is gone${run:+ ($run)}"
	fi
	if [ "$(cat "$TMP/victim")" = victim ] && [ "$(cat "$TMP/victimdir/f")" = victim ]; then
		ok "$sc: the planted links were not followed: the file and the directory they name are whole"
	else
		not_ok "$sc: the planted links were not followed" \
		    "$(ls -l "$TMP/victim" "$TMP/victimdir" 2>&1)"
	fi
	# SIGTERM as soon as it starts (while the command is set up, at
	# different moments): nothing is left either.
	left=""
	for d in 0 0.01 0.02 0.05 0.1 0.2; do
		env TMPDIR="$base" "$EGRESSD" --policy "$POL" --confinement "$sc" \
		    --workspace "$sw" -- sleep 5 >/dev/null 2>&1 &
		epid=$!
		sleep "$d"
		kill -TERM "$epid"
		wait "$epid"
		[ -n "$(ls -A "$base")" ] && left="$left after ${d}s: $(ls -A "$base" | tr '\n' ' ')"
	done
	# ... nor a process of the run (each of harn-egressd's children
	# carries its command line, which names the workspace).
	wn=0
	while [ -n "$(run_procs "$sw")" ] && [ $wn -lt 50 ]; do
		sleep 0.1
		wn=$((wn + 1))
	done
	for p in $(run_procs "$sw"); do
		left="$left process $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-80)) lives on;"
		kill -KILL "$p" 2>/dev/null
	done
	if [ -z "$left" ]; then
		ok "$sc: SIGTERM while the run starts: nothing is left, no process of the run"
	else
		not_ok "$sc: SIGTERM while the run starts: nothing is left" "$left"
	fi
	[ "$sc" = landlock ] && sigkill_run "$sw" "$base"
}

# run_procs WS: the pids whose command line names WS (never a reader's
# own: the name is looked for in what tr reads, not in its arguments).
run_procs() {
	for f in /proc/[0-9]*/cmdline; do
		case $(tr '\0' ' ' <"$f" 2>/dev/null) in
		*" $1 "*) f=${f#/proc/}; echo "${f%/cmdline}" ;;
		esac
	done
}

# sigkill_run WS BASE: harn-egressd killed (SIGKILL) mid-run cannot
# remove its directory; the command's init, as the command, empties and
# removes it (a command of the caller's uid, or root's that keeps uid 0).
sigkill_run() {
	rm -f "$TMP/bg.out"
	env TMPDIR="$2" "$EGRESSD" --policy "$POL" --confinement landlock \
	    --workspace "$1" -- sh -c "$PLANT" sh "$TMP/victim" "$TMP/victimdir" \
	    >"$TMP/bg.out" 2>&1 &
	kpid=$!
	if ! wait_grep "$TMP/bg.out" '^ready$' 100 "$kpid"; then
		not_ok "landlock: SIGKILL: the run starts" "$(head -c 300 "$TMP/bg.out")"
		kill "$kpid" 2>/dev/null
		wait "$kpid"
		return
	fi
	was=$(ls -A "$2")
	kill -KILL "$kpid"
	wait "$kpid"
	n=0
	while [ -n "$(ls -A "$2")" ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if [ -n "$was" ] && [ -z "$(ls -A "$2")" ] &&
	    [ "$(cat "$TMP/victimdir/f")" = victim ] && [ "$(cat "$TMP/victim")" = victim ]; then
		ok "landlock: harn-egressd SIGKILLed: the command's init removes the run's directory ($was), links not followed"
	else
		not_ok "landlock: harn-egressd SIGKILLed: the command's init removes the run's directory" \
		    "was: '$was', left: $(ls -AR "$2" | head -c 300)"
	fi
}

# other_uid DIR: uid 1 cannot list or plant in the run's directory; root
# (the control) lists it.
other_uid() {
	if [ "$ME" -ne 0 ] || ! command -v setpriv >/dev/null; then
		skip "landlock: another uid cannot read the run's directory: needs root (setpriv) to be another uid"
		return
	fi
	[ -n "$1" ] || return
	if ls "$1/run/tmp" | grep -q '^link$'; then
		ok "control: root lists the run's directory"
	else
		not_ok "control: root lists the run's directory"
	fi
	if setpriv --reuid=1 --regid=1 --clear-groups -- ls "$1/run/tmp" \
	    >/dev/null 2>&1 || setpriv --reuid=1 --regid=1 --clear-groups -- \
	    ls "$1" >/dev/null 2>&1 || setpriv --reuid=1 --regid=1 \
	    --clear-groups -- sh -c "echo x > '$1/run/tmp/planted'" 2>/dev/null ||
	    setpriv --reuid=1 --regid=1 --clear-groups -- \
	    sh -c "echo x > '$1/planted'" 2>/dev/null; then
		not_ok "landlock: uid 1 cannot list the run's directory or plant in it"
	else
		ok "landlock: uid 1 cannot list the run's directory or plant in it"
	fi
}

# ------------------------------------------------------------------ keep

# keep_npm LABEL CONF OPTION...: npm's cache in the directory OPTION names,
# across two runs; the second finds the first's content.
keep_npm() {
	klabel=$1 kconf=$2
	shift 2
	w1=$(checkout) && w2=$(checkout) || return
	box "$kconf" "$w1" "$@" -- sh -c "$NPMENV npm install --offline ./tinya.tgz"
	r1=$RC
	box "$kconf" "$w2" "$@" -- sh -c "$NPMENV npm cache verify"
	if [ "$r1" -eq 0 ] && [ "$RC" -eq 0 ] &&
	    grep -q '^Content verified: [1-9]' "$TMP/box.out" &&
	    [ "$(status "$w1")" = "$(cat "$TMP/want.npm")" ] &&
	    [ -z "$(status "$w2")" ]; then
		ok "$kconf: $klabel keeps npm's cache across runs ($(grep '^Content verified' "$TMP/box.out")); the checkouts clean"
	else
		not_ok "$kconf: $klabel keeps npm's cache across runs" \
		    "exits $r1 $RC: $(tail -c 300 "$TMP/box.out")" \
		    "status: $(status "$w1" | tr '\n' ' ')| $(status "$w2" | tr '\n' ' ')"
	fi
}

keep_checks() {
	for c in namespaces landlock; do
		attaches "$c" || continue
		if command -v npm >/dev/null && control npm; then
			# The control: by default the cache goes with the run.
			keep_npm_default "$c"
			mkdir -p "$TMP/xdg-$c" "$TMP/cache-$c"
			keep_npm "--env XDG_CACHE_HOME=D" "$c" --env "XDG_CACHE_HOME=$TMP/xdg-$c"
			if [ -d "$TMP/xdg-$c/npm/_cacache" ]; then
				ok "$c: npm's cache is in D/npm"
			else
				not_ok "$c: npm's cache is in D/npm" "$(ls -A "$TMP/xdg-$c")"
			fi
			keep_npm "--cache-dir D" "$c" --cache-dir "$TMP/cache-$c"
		else
			skip "$c: npm's cache kept: npm is not installed"
		fi
		mkdir -p "$TMP/td-$c"
		w=$(checkout) || continue
		box "$c" "$w" --env "TMPDIR=$TMP/td-$c" -- sh -c \
		    'echo kept > "$TMPDIR/kept"; echo "$TMPDIR|$TMP|$TEMP"'
		if [ "$RC" -eq 0 ] && [ "$(cat "$TMP/td-$c/kept" 2>/dev/null)" = kept ] &&
		    grep -qx "$TMP/td-$c|$TMP/td-$c|$TMP/td-$c" "$TMP/box.out" &&
		    [ -z "$(status "$w")" ]; then
			ok "$c: --env TMPDIR=D is TMPDIR, TMP and TEMP, writable, kept"
		else
			not_ok "$c: --env TMPDIR=D is TMPDIR, TMP and TEMP, writable, kept" \
			    "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
	done
}

keep_npm_default() {
	w1=$(checkout) && w2=$(checkout) || return
	box "$1" "$w1" -- sh -c "$NPMENV npm install --offline ./tinya.tgz"
	r1=$RC
	box "$1" "$w2" -- sh -c "$NPMENV npm cache verify"
	if [ "$r1" -eq 0 ] && [ "$RC" -eq 0 ] &&
	    grep -q '^Content verified: 0 ' "$TMP/box.out"; then
		ok "control: $1: without them, the next run's npm cache is empty"
	else
		not_ok "control: $1: without them, the next run's npm cache is empty" \
		    "exits $r1 $RC: $(tail -c 300 "$TMP/box.out")"
	fi
}

# ------------------------------------------------------------------ usage

# refused LABEL OPTION...: exit 2, nothing run (the caller's environment
# plus $REFUSE_ENV).
REFUSE_ENV=""
refused() {
	rlabel=$1
	shift
	w=$(checkout) || return
	# shellcheck disable=SC2086
	env $REFUSE_ENV "$EGRESSD" --policy "$POL" --workspace "$w" "$@" -- sh -c \
	    'echo ran > ran.mark' >"$TMP/box.out" 2>&1
	RC=$?
	if [ "$RC" -eq 2 ] && [ ! -e "$w/ran.mark" ] &&
	    grep -q '^harn-egressd: ' "$TMP/box.out"; then
		ok "$rlabel: exit 2, nothing run ($(head -n 1 "$TMP/box.out" | cut -c1-110))"
	else
		not_ok "$rlabel: exit 2, nothing run" "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
}

usage_checks() {
	refused "--cache-dir /usr" --cache-dir /usr
	refused "--cache-dir of a missing directory" --cache-dir "$TMP/no-such"
	refused "--env TMPDIR=/etc" --env TMPDIR=/etc
	refused "--env XDG_CACHE_HOME=relative" --env XDG_CACHE_HOME=rel
	refused "--env npm_config_cache=/var/lib/dpkg" --env npm_config_cache=/var/lib/dpkg
	refused "--env HTTP_PROXY=..." --env HTTP_PROXY=http://127.0.0.1:9/
	if [ "$ME" -eq 0 ] && [ -d /root ]; then
		refused "--env XDG_CACHE_HOME=/root (the caller's home)" \
		    --env XDG_CACHE_HOME=/root
	fi
	# The caller's value: refused by name, never printed.
	REFUSE_ENV=TMPDIR=/etc
	refused "--env TMPDIR, the caller's TMPDIR=/etc" --env TMPDIR
	REFUSE_ENV=""
	if grep -q /etc "$TMP/box.out"; then
		not_ok "the caller's value is not printed" "$(head -c 300 "$TMP/box.out")"
	else
		ok "the caller's value is not printed"
	fi
}

# ------------------------------------------------------------------ passes

suite() {
	echo "# pass: $1 (uid $ME), binary: $EGRESSD"
	make_template || {
		not_ok "the test's checkout, packages and repository are made"
		return
	}
	tool_checks
	private_checks
	keep_checks
	usage_checks
}

if [ "$PASS" = unprivileged ] || [ "$ME" -ne 0 ]; then
	suite unprivileged
else
	suite root
	if id nobody >/dev/null 2>&1; then
		nobody_pass sandbox/workspace HARN_WORKSPACE_PASS
	else
		skip "unprivileged pass: no user 'nobody'"
	fi
fi
finish
