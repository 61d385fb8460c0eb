#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The statement's subjects against the confined command (SPEC 7.1): what
# the command leaves at a subject's name is taken at exit with no more
# rights than it had, without following a link anywhere on the path, only
# when it is a regular file of at most --attest-subject-max bytes, never
# blocking; anything else is refused with its reason, said on stderr, and
# the envelope is still written and signed.
#
#   (a) a directory on the subject's path swapped for a link to a
#       directory holding a file only the caller may read;
#   (a2) a file the command could not read moved to the subject's name;
#   (b) a sparse file far over the limit, (c) a FIFO: refused at once;
#   (d) an output as it should be: taken, and verify --subject passes;
#   (e) root: an output only its owner may read, in a workspace of another
#       user's (the command's rights there are that user's);
#   (f) root: a subject on a hung filesystem (tests/attest/hungfs.c, FUSE whose
#       reads are never answered): its reader is ended, the exit is not
#       held.
#
# Each confinement (namespaces, landlock), as root and then as nobody
# (su; the script again, with copies nobody may read).
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/attest/subjects.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
set +e
PASS=${HARN_SUBJECTS_PASS:-auto}
AC="$top_srcdir/tests/attest/attestcheck.py"
export LANG=C

K=$TMP/keys/k
POL=$TMP/policy.conf
SECRET=$TMP/secret
mkdir -p "$TMP/keys" "$SECRET" "$TMP/home"
printf 'default deny\n' >"$POL"
"$EGRESSD" keygen --out "$K" >/dev/null 2>&1 || not_ok "keygen"
# A file only the caller may read, outside every root of the command.
printf 'only %s may read this (%s)\n' "$(id -un)" "$$" >"$SECRET/shadow"
chmod 600 "$SECRET/shadow"
SECRET_SHA=$(sha256sum <"$SECRET/shadow" | cut -d' ' -f1)

sha() {
	sha256sum <"$1" | cut -d' ' -f1
}

# box C NAME ARGS... -- CMD: run mode in confinement C, the envelope in
# $TMP/NAME.json, the log in $TMP/NAME.log.  HOME (readable by the
# command) is one of the test's own, beside the secret, not above it.
box() {
	bc=$1 bn=$2
	shift 2
	env HOME="$TMP/home" "$EGRESSD" --policy "$POL" --workspace "$WS" \
	    --confinement "$bc" \
	    --log "$TMP/$bn.log" --attest "$TMP/$bn.json" --attest-format dsse \
	    --sign-key "$K" "$@"
}

# statement NAME ENVELOPE CHECK...: the statement's members have these
# JSON values.
statement() {
	sname=$1
	shift
	if $PY "$AC" statement "$@" >"$TMP/fields.out" 2>&1; then
		ok "$sname: the statement"
	else
		not_ok "$sname: the statement" "$(cat "$TMP/fields.out")"
	fi
}

# signed NAME ENVELOPE: the envelope is signed, checked without
# harn-egressd (openssl over DSSE's PAE), and verify fails it only at its
# last check, subjects, naming the refused one.
signed() {
	parts=$TMP/parts
	rm -rf "$parts"
	mkdir -p "$parts"
	$PY "$AC" dsse "$2" "$parts" >/dev/null 2>&1 || true
	ptype=$(cat "$parts/type" 2>/dev/null) || true
	{
		printf 'DSSEv1 %d %s %d ' "$(printf %s "$ptype" | wc -c)" \
		    "$ptype" "$(wc -c <"$parts/payload")"
		cat "$parts/payload"
	} >"$parts/pae" 2>/dev/null || true
	expect_rc "$1: the envelope's signature holds (openssl)" 0 \
	    openssl pkeyutl -verify -pubin -inkey "$K.pub" -rawin \
	    -in "$parts/pae" -sigfile "$parts/sig"
	expect_rc "$1: verify fails the statement" 1 "$EGRESSD" verify \
	    --pubkey "$K.pub" "$2"
	expect_grep "$1: at its subjects check, after the signature's" \
	    "$TMP/err" "FAILED subjects: 1 subject\(s\) refused at exit, the first $3 \($4\)"
}

# ------------------------------------------------------------------ cases

# (a) The command swaps a directory on the subject's path for a link to a
# directory holding a file only the caller may read.
attack_link() {
	c=$1
	rm -rf "$WS"
	mkdir -p "$WS/out"
	rc=0
	box "$c" "a-$c" --attest-subject "$WS/out/shadow" -- sh -c \
	    "rm -rf out && ln -s '$SECRET' out && cat out/shadow >stolen" \
	    >"$TMP/out" 2>"$TMP/err" || rc=$?
	# Controls: the path leads to the file, read as the caller; the
	# command could not read it through the link.
	if [ "$(sha "$WS/out/shadow" 2>/dev/null)" = "$SECRET_SHA" ]; then
		ok "$c: (a) control: the path leads to the secret, read unconfined"
	else
		not_ok "$c: (a) control: the path leads to the secret" \
		    "$(ls -l "$WS" 2>&1)"
	fi
	if [ -s "$WS/stolen" ]; then
		not_ok "$c: (a) control: the command could not read it" \
		    "$(cat "$WS/stolen")"
	else
		ok "$c: (a) control: the command could not read it"
	fi
	if [ "$rc" -eq 1 ]; then ok "$c: (a) exit 1 (a subject refused)"; else
		not_ok "$c: (a) exit 1 (a subject refused)" "exit $rc" \
		    "$(head -c 600 "$TMP/err")"; fi
	expect_grep "$c: (a) said on stderr, with the reason" "$TMP/err" \
	    "attest-subject $WS/out/shadow: refused at exit \(symlink\)"
	statement "$c: (a)" "$TMP/a-$c.json" 'subject=[]' \
	    "predicate.subjects_refused=[{\"name\":\"$WS/out/shadow\",\"reason\":\"symlink\"}]"
	$PY "$AC" dsse "$TMP/a-$c.json" "$TMP" >/dev/null 2>&1 || true
	expect_no_grep "$c: (a) the secret's digest is nowhere in the statement" \
	    "$TMP/payload" "$SECRET_SHA"
	signed "$c: (a)" "$TMP/a-$c.json" "$WS/out/shadow" symlink
}

# (a2) A file the command could not read (mode 0), moved by the command to
# the subject's name: read with the command's rights, it is refused.
attack_mode() {
	c=$1
	rm -rf "$WS"
	mkdir -p "$WS/ops"
	printf 'token %s\n' "$$" >"$WS/ops/token"
	chmod 0 "$WS/ops/token"
	tsha=$(sha "$WS/ops/token" 2>/dev/null) || tsha=""
	rc=0
	box "$c" "m-$c" --attest-subject "$WS/dist/app.bin" -- sh -c \
	    "cat ops/token >stolen; mkdir -p dist && mv ops/token dist/app.bin" \
	    >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ -s "$WS/stolen" ] || [ ! -e "$WS/dist/app.bin" ]; then
		not_ok "$c: (a2) control: the command moved it but could not read it" \
		    "$(cat "$WS/stolen" 2>&1)" "$(head -c 400 "$TMP/err")"
	else
		ok "$c: (a2) control: the command moved it but could not read it"
	fi
	if [ "$rc" -eq 1 ]; then ok "$c: (a2) exit 1"; else
		not_ok "$c: (a2) exit 1" "exit $rc" "$(head -c 600 "$TMP/err")"; fi
	statement "$c: (a2)" "$TMP/m-$c.json" 'subject=[]' \
	    "predicate.subjects_refused=[{\"name\":\"$WS/dist/app.bin\",\"reason\":\"permission\"}]"
	expect_grep "$c: (a2) said on stderr, with whose rights" "$TMP/err" \
	    "refused at exit \(permission\).*as the command could"
	if [ -n "$tsha" ]; then
		$PY "$AC" dsse "$TMP/m-$c.json" "$TMP" >/dev/null 2>&1 || true
		expect_no_grep "$c: (a2) its digest is nowhere in the statement" \
		    "$TMP/payload" "$tsha"
	fi
}

# (b) A sparse file far over the limit, (c) a FIFO: refused at once (the
# run ends well within 10 s: timeout's 124 otherwise).
not_read() {
	c=$1
	rm -rf "$WS"
	mkdir -p "$WS"
	expect_rc "$c: (b) a sparse 64 GiB output: exit 1 within 10 s" 1 \
	    timeout 10 env HOME="$TMP/home" "$EGRESSD" --policy "$POL" \
	    --workspace "$WS" --confinement "$c" --log "$TMP/b-$c.log" \
	    --attest "$TMP/b-$c.json" \
	    --attest-format dsse --sign-key "$K" \
	    --attest-subject "$WS/dist/app.bin" \
	    -- sh -c 'mkdir -p dist && truncate -s 64G dist/app.bin'
	expect_grep "$c: (b) said on stderr" "$TMP/err" \
	    'refused at exit \(too_large\): 68719476736 bytes, more than --attest-subject-max \(1073741824\)'
	statement "$c: (b)" "$TMP/b-$c.json" 'subject=[]' \
	    "predicate.subjects_refused=[{\"name\":\"$WS/dist/app.bin\",\"reason\":\"too_large\"}]"
	rm -rf "$WS/dist"
	expect_rc "$c: (c) a FIFO at the name: exit 1 within 10 s" 1 \
	    timeout 10 env HOME="$TMP/home" "$EGRESSD" --policy "$POL" \
	    --workspace "$WS" --confinement "$c" --log "$TMP/c-$c.log" \
	    --attest "$TMP/c-$c.json" \
	    --attest-format dsse --sign-key "$K" \
	    --attest-subject "$WS/dist/app.bin" \
	    -- sh -c 'mkdir -p dist && mkfifo dist/app.bin'
	statement "$c: (c)" "$TMP/c-$c.json" 'subject=[]' \
	    "predicate.subjects_refused=[{\"name\":\"$WS/dist/app.bin\",\"reason\":\"not_regular\"}]"
	# The limit itself: 4096 bytes taken under 4k, 4097 refused.
	rm -rf "$WS/dist"
	expect_rc "$c: (b) --attest-subject-max 4k: 4096 bytes taken, 4097 refused" \
	    1 box "$c" "k-$c" --attest-subject-max 4k \
	    --attest-subject "$WS/dist/4096" --attest-subject "$WS/dist/4097" \
	    -- sh -c 'mkdir -p dist && head -c 4096 /dev/zero >dist/4096 &&
	    head -c 4097 /dev/zero >dist/4097'
	statement "$c: (b) at the limit" "$TMP/k-$c.json" \
	    "subject=[{\"name\":\"$WS/dist/4096\",\"digest\":{\"sha256\":\"$(sha "$WS/dist/4096")\"}}]" \
	    "predicate.subjects_refused=[{\"name\":\"$WS/dist/4097\",\"reason\":\"too_large\"}]"
}

# (d) An output as it should be, by an absolute name, by one relative to
# the working directory, and in a --write-root: taken, and verified.
taken() {
	c=$1
	rm -rf "$WS" "$TMP/wr"
	mkdir -p "$WS" "$TMP/wr"
	rc=0
	(cd "$WS" && box "$c" "d-$c" --write-root "$TMP/wr" \
	    --attest-subject "$WS/dist/app.bin" --attest-subject ./dist//lib.a \
	    --attest-subject "$TMP/wr/pkg.tar" -- sh -c \
	    "mkdir -p dist && printf 'built\n' >dist/app.bin &&
	    printf 'lib\n' >dist/lib.a && printf 'pkg\n' >'$TMP/wr/pkg.tar'") \
	    >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ "$rc" -eq 0 ]; then ok "$c: (d) exit 0"; else
		not_ok "$c: (d) exit 0" "exit $rc" "$(head -c 600 "$TMP/err")"; fi
	statement "$c: (d)" "$TMP/d-$c.json" \
	    "subject.0={\"name\":\"$WS/dist/app.bin\",\"digest\":{\"sha256\":\"$(sha "$WS/dist/app.bin")\"}}" \
	    "subject.1={\"name\":\"./dist//lib.a\",\"digest\":{\"sha256\":\"$(sha "$WS/dist/lib.a")\"}}" \
	    "subject.2={\"name\":\"$TMP/wr/pkg.tar\",\"digest\":{\"sha256\":\"$(sha "$TMP/wr/pkg.tar")\"}}" \
	    'predicate.subjects_refused=[]'
	expect_rc "$c: (d) verify --subject passes" 0 "$EGRESSD" verify \
	    --pubkey "$K.pub" --subject "$WS/dist/app.bin" \
	    --subject "$TMP/wr/pkg.tar" "$TMP/d-$c.json"
	printf 'other\n' >"$TMP/wr/pkg.tar"
	expect_rc "$c: (d) verify --subject fails a changed output (control)" \
	    1 "$EGRESSD" verify --pubkey "$K.pub" --subject "$TMP/wr/pkg.tar" \
	    "$TMP/d-$c.json"
}

# (e) Root: a workspace of another user's (nobody), an output only its
# owner may read: the command's rights there are that owner's.
owner_only() {
	c=$1
	rm -rf "$WS"
	mkdir -p "$WS"
	chown nobody "$WS"
	chmod 0777 "$WS"
	expect_rc "$c: (e) an output only its owner may read: exit 0" 0 \
	    box "$c" "e-$c" --attest-subject "$WS/dist/app.bin" -- sh -c \
	    'umask 077 && mkdir -p dist && printf "mine\n" >dist/app.bin'
	statement "$c: (e)" "$TMP/e-$c.json" \
	    "subject=[{\"name\":\"$WS/dist/app.bin\",\"digest\":{\"sha256\":\"$(sha "$WS/dist/app.bin")\"}}]"
}

# (f) A subject on a filesystem that hangs: the reader is ended after 10 s
# without progress and the subject refused; the run ends.
HUNG_PID=""
HUNG_READER=""
hung_fs() {
	c=$1
	if ! cc -O1 -o "$TMP/hungfs" "$top_srcdir/tests/attest/hungfs.c" \
	    2>"$TMP/cc.err"; then
		not_ok "(f) the hung filesystem builds" "$(cat "$TMP/cc.err")"
		return
	fi
	rm -rf "$WS"
	mkdir -p "$WS/hung"
	"$TMP/hungfs" "$WS/hung" "$TMP/hung.state" 2>"$TMP/hung.err" &
	HUNG_PID=$!
	at_exit unmount_hung
	if ! wait_grep "$TMP/hung.state" '^mounted' 50 "$HUNG_PID"; then
		if grep -q 'No such device' "$TMP/hung.err"; then
			skip "(f) this kernel has no FUSE: $(cat "$TMP/hung.err")"
		else
			not_ok "(f) the hung filesystem mounts" \
			    "$(cat "$TMP/hung.err")"
		fi
		return
	fi
	# Control: a plain reader is held, past any signal (a FUSE read
	# sent to the daemon waits it out), until the mount goes.
	cat "$WS/hung/app.bin" >/dev/null 2>&1 &
	HUNG_READER=$!
	if wait_grep "$TMP/hung.state" '^read' 50 && alive "$HUNG_READER"; then
		ok "$c: (f) control: a plain reader of it is held"
	else
		not_ok "$c: (f) control: a plain reader of it is held" \
		    "$(cat "$TMP/hung.state")"
	fi
	# In the background: a reader that is never ended would hold even
	# timeout(1), which waits for what it signals.
	env HOME="$TMP/home" "$EGRESSD" --policy "$POL" --workspace "$WS" \
	    --confinement "$c" --log "$TMP/f-$c.log" --attest "$TMP/f-$c.json" \
	    --attest-format dsse --sign-key "$K" \
	    --attest-subject "$WS/hung/app.bin" -- true \
	    >"$TMP/out" 2>"$TMP/err" &
	run=$!
	rc=held
	if wait_gone "$run" 600; then
		rc=0
		wait "$run" || rc=$?
	fi
	if [ "$rc" = 1 ]; then
		ok "$c: (f) a subject on it: exit 1 within 60 s, not held"
	else
		not_ok "$c: (f) a subject on it: exit 1 within 60 s, not held" \
		    "exit $rc" "$(head -c 600 "$TMP/err")"
	fi
	expect_grep "$c: (f) said on stderr" "$TMP/err" \
	    'refused at exit \(timeout\): not read in time'
	statement "$c: (f)" "$TMP/f-$c.json" 'subject=[]' \
	    "predicate.subjects_refused=[{\"name\":\"$WS/hung/app.bin\",\"reason\":\"timeout\"}]"
	unmount_hung
}
# The daemon ended, the mount gone: what waited on it (the control's
# reader, harn-egressd's ended one) is let go.
unmount_hung() {
	[ -n "$HUNG_PID" ] || return 0
	umount -l "$WS/hung" 2>/dev/null || true
	kill "$HUNG_PID" 2>/dev/null || true
	[ -z "$HUNG_READER" ] || wait_gone "$HUNG_READER" 50 || true
	HUNG_PID=""
}

suite() {
	hung=""
	mkdir -p "$TMP/probe-ws"
	for c in namespaces landlock; do
		WS=$TMP/ws-$c
		# Exit 3: os_hardened's refusal where c cannot attach here.
		prc=0
		"$EGRESSD" --policy "$POL" --confinement "$c" \
		    --profile os_hardened --workspace "$TMP/probe-ws" -- true \
		    >"$TMP/probe-$c.out" 2>&1 || prc=$?
		case $prc in
		0)	;;
		3)	skip "$c: cannot attach here: $(head -c 300 "$TMP/probe-$c.out")"
			continue ;;
		*)	not_ok "$c: a confined true runs" \
			    "$(head -c 400 "$TMP/probe-$c.out")"
			continue ;;
		esac
		attack_link "$c"
		attack_mode "$c"
		not_read "$c"
		taken "$c"
		if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
			owner_only "$c"
		fi
		# Once: it takes the 10 s it proves are enough.
		if [ "$(id -u)" -eq 0 ] && [ -z "$hung" ]; then
			hung_fs "$c"
			hung=1
		fi
	done
}

suite
if [ "$PASS" != unprivileged ] && [ "$(id -u)" -eq 0 ]; then
	if id nobody >/dev/null 2>&1; then
		nobody_pass attest/subjects HARN_SUBJECTS_PASS \
		    "$top_srcdir/tests/attest/attestcheck.py"
	else
		skip "unprivileged pass: no user 'nobody'"
	fi
fi
finish
