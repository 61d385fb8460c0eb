#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Attestation reports (SPEC 7): keygen, the report of a run and of a
# service, verify refusing every altered report, a wrong key, an unsigned
# report and an altered log, and the secrets that never reach a report.
#
# The report's canonical form and signature are also checked without
# harn-egressd: tests/attest/attestcheck.py re-encodes the report with Python's
# json module and the openssl command line checks the signature.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

AC="$top_srcdir/tests/attest/attestcheck.py"
PH="$top_srcdir/tests/pyhelpers.py"

KEYS=$TMP/keys
WS=$TMP/ws
mkdir -p "$KEYS" "$WS" "$TMP/home"
K=$KEYS/k


# fields NAME REPORT CHECK...: members of REPORT have these JSON values.
fields() {
	fname=$1
	shift
	if $PY "$AC" fields "$@" >"$TMP/fields.out" 2>&1; then
		ok "$fname"
	else
		not_ok "$fname" "$(cat "$TMP/fields.out")"
	fi
}

# verify_fails NAME CHECK REPORT [ARGS...]: verify exits 1 naming CHECK.
verify_fails() {
	vname=$1 vcheck=$2 vrep=$3
	shift 3
	expect_rc "$vname: verify fails" 1 "$EGRESSD" verify --pubkey \
	    "$K.pub" "$@" "$vrep"
	expect_grep "$vname: verify names the check ($vcheck)" "$TMP/err" \
	    "FAILED $vcheck:"
}

sha() {
	$PY "$AC" sha256 "$1"
}

# ------------------------------------------------------------------ keygen

expect_rc "keygen" 0 "$EGRESSD" keygen --out "$K"
if [ "$(stat -c %a "$K")" = 600 ]; then
	ok "keygen: private key mode 0600"
else
	not_ok "keygen: private key mode 0600" "mode $(stat -c %a "$K")"
fi
expect_grep "keygen: private key is PKCS#8 PEM" "$K" '^-----BEGIN PRIVATE KEY-----$'
expect_grep "keygen: public key is SubjectPublicKeyInfo PEM" "$K.pub" \
    '^-----BEGIN PUBLIC KEY-----$'
expect_rc "keygen: openssl reads the private key" 0 openssl pkey -in "$K" -noout
expect_rc "keygen: openssl reads an Ed25519 public key" 0 \
    openssl pkey -pubin -in "$K.pub" -noout -text
expect_grep "keygen: the key is Ed25519" "$TMP/out" 'ED25519'
before=$(sha "$K")
expect_rc "keygen never overwrites a key" 1 "$EGRESSD" keygen --out "$K"
expect_grep "keygen says it did not overwrite" "$TMP/err" 'not overwritten'
if [ "$(sha "$K")" = "$before" ]; then
	ok "keygen: the existing key is unchanged"
else
	not_ok "keygen: the existing key is unchanged"
fi
expect_rc "keygen without --out is a usage error" 2 "$EGRESSD" keygen
expect_rc "a second key" 0 "$EGRESSD" keygen --out "$KEYS/other"

# ------------------------------------------------------------------ a run

rm -f "$TMP/origin.port"
$PY "$PH" origin --port-file "$TMP/origin.port" >"$TMP/origin.out" 2>&1 &
BG_PIDS="$BG_PIDS $!"
wait_file "$TMP/origin.port" 50 || not_ok "the origin starts"
OPORT=$(cat "$TMP/origin.port")
POL=$TMP/policy.conf
printf 'allow_loopback on\nallow 127.0.0.1:%s\n' "$OPORT" >"$POL"

ARG_SECRET="harn-argv-secret-$$-$(date +%s%N)"
SCRIPT="curl -q -s --noproxy '' -o /dev/null --max-time 5 http://127.0.0.1:$OPORT/;
curl -q -s -o /dev/null --max-time 5 http://denied.example/; exit 0"
box() {
	env HOME="$TMP/home" "$EGRESSD" --policy "$POL" --workspace "$WS" "$@"
}

expect_rc "run mode with --attest and --sign-key" 0 box \
    --log "$TMP/run.log" --attest "$TMP/run.json" --sign-key "$K" \
    -- sh -c "$SCRIPT" "$ARG_SECRET"
cp "$TMP/out" "$TMP/run.out"
cp "$TMP/err" "$TMP/run.err"
expect_rc "verify: a signed report and its log" 0 "$EGRESSD" verify \
    --pubkey "$K.pub" --log "$TMP/run.log" "$TMP/run.json"
expect_grep "verify says what held" "$TMP/out" 'ok: schema, canonical, signature, key_id, log_sha256, log_records'
# log_records counts close lines too (SPEC 5): the allowed curl's is there.
expect_grep "the run's log holds the allowed connection's close line" \
    "$TMP/run.log" '"event":"close","conn":[0-9]+,"protocol":"http","host":"127.0.0.1",.*"run":"'
expect_rc "verify without --log" 0 "$EGRESSD" verify --pubkey "$K.pub" \
    "$TMP/run.json"
# Each confinement is named in its report, and verifies.
for c in namespaces landlock; do
	expect_rc "run mode, --confinement $c, signed" 0 box \
	    --confinement "$c" --attest "$TMP/run-$c.json" --sign-key "$K" \
	    -- true
	expect_grep "the report names the $c confinement" "$TMP/run-$c.json" \
	    '"confinement":"'"$c"'"'
	expect_rc "verify: a $c report" 0 "$EGRESSD" verify --pubkey "$K.pub" \
	    "$TMP/run-$c.json"
done

fields "report: the command as argv0 and a digest" "$TMP/run.json" \
    'schema="harn.egress.attestation.v1"' 'command.argv0="sh"' \
    "command.argv_sha256=\"$($PY "$AC" argvsha sh -c "$SCRIPT" "$ARG_SECRET")\"" \
    'exit.code=0' 'exit.signal=null' 'tool.name="harn-egressd"' \
    "host.kernel=\"$(uname -r)\"" "host.arch=\"$(uname -m)\""
fields "report: the policy" "$TMP/run.json" \
    "policy.source=\"$(realpath "$POL")\"" \
    "policy.sha256=\"$(sha "$POL")\"" 'policy.default="deny"' \
    'policy.rules=1' 'policy.block_private=true' \
    'policy.allow_loopback=true'
fields "report: the decisions" "$TMP/run.json" 'decisions.allow=1' \
    'decisions.deny=1' \
    'decisions.by_reason={"allow_rule":1,"no_allow_rule":1}'
# Two decisions and the allowed connection's close line: 3 records.
fields "report: the log's digest and records" "$TMP/run.json" \
    "log.sha256=\"$(sha "$TMP/run.log")\"" \
    "log.records=$(wc -l <"$TMP/run.log")" 'log.records=3' 'log.offset=0'
fields "report: the sandbox in force" "$TMP/run.json" \
    'sandbox.backend="linux"' 'sandbox.profile="worktree"' \
    'sandbox.process_network_mode="managed"' 'sandbox.seccomp=true'
RUN_ID=$($PY "$AC" get "$TMP/run.json" run_id | tr -d '"')
# Two decisions and the allowed connection's close line.
if [ "$(grep -c "\"run\":\"$RUN_ID\"" "$TMP/run.log")" -eq 3 ]; then
	ok "report: its run id is on every log line"
else
	not_ok "report: its run id is on every log line" "$RUN_ID" \
	    "$(cat "$TMP/run.log")"
fi
if ls -A "$TMP" | grep -q '\.tmp$'; then
	not_ok "no temporary file is left beside the report" "$(ls -A "$TMP")"
else
	ok "no temporary file is left beside the report"
fi

# The signature, checked without harn-egressd.
if $PY "$AC" canon "$TMP/run.json" "$TMP/msg" "$TMP/sig" >"$TMP/canon.out"; then
	ok "the report file is in canonical form (Python's reading)"
else
	not_ok "the report file is in canonical form (Python's reading)" \
	    "$(cat "$TMP/canon.out")"
fi
expect_rc "openssl verifies the signature over the canonical form" 0 \
    openssl pkeyutl -verify -pubin -inkey "$K.pub" -rawin -in "$TMP/msg" \
    -sigfile "$TMP/sig"
printf ' ' >>"$TMP/msg"
expect_rc "openssl refuses the signature over other bytes (control)" 1 \
    openssl pkeyutl -verify -pubin -inkey "$K.pub" -rawin -in "$TMP/msg" \
    -sigfile "$TMP/sig"

for f in "$TMP/run.json" "$TMP/run.log" "$TMP/run.out" "$TMP/run.err"; do
	expect_no_grep "the argument secret is not in $(basename "$f")" "$f" \
	    "$ARG_SECRET"
done

# ------------------------------------------------------------------ tampering

mkdir -p "$TMP/tampered"
n=$($PY "$AC" tamper "$TMP/run.json" "$TMP/tampered")
passed=""
i=1
while [ "$i" -le "$n" ]; do
	set +e
	"$EGRESSD" verify --pubkey "$K.pub" "$TMP/tampered/$i.json" \
	    >/dev/null 2>"$TMP/tamper.err"
	rc=$?
	set -e
	if [ "$rc" -ne 1 ] || ! grep -Eq 'FAILED (signature|schema):' \
	    "$TMP/tamper.err"; then
		passed="$passed $i"
	fi
	i=$((i + 1))
done
set +e
if [ "$n" -gt 40 ] && [ -z "$passed" ]; then
	ok "each of $n altered reports (every value, every member) fails verify"
else
	not_ok "each of $n altered reports fails verify" "accepted:$passed"
fi

verify_fails "another key" key_id "$TMP/run.json" --pubkey "$KEYS/other.pub"
printf 'not json\n' >"$TMP/notjson.json"
verify_fails "a file that is not JSON" json "$TMP/notjson.json"
sed 's/harn.egress.attestation.v1/harn.egress.attestation.v0/' \
    "$TMP/run.json" >"$TMP/schema.json"
verify_fails "another schema" schema "$TMP/schema.json"
expect_rc "verify without --pubkey is a usage error" 2 "$EGRESSD" verify \
    "$TMP/run.json"
printf 'hello\n' >"$TMP/junk.pub"
expect_rc "verify with a malformed public key is a usage error" 2 \
    "$EGRESSD" verify --pubkey "$TMP/junk.pub" "$TMP/run.json"
expect_grep "the malformed key is named" "$TMP/err" 'junk.pub: not a PEM public key'
expect_rc "verify with a private key as --pubkey is a usage error" 2 \
    "$EGRESSD" verify --pubkey "$K" "$TMP/run.json"
expect_rc "verify of a missing report fails" 1 "$EGRESSD" verify \
    --pubkey "$K.pub" "$TMP/missing.json"

# The log: one line changed, added, removed.
sed 's/denied\.example/denief.example/' "$TMP/run.log" >"$TMP/changed.log"
verify_fails "a log with a line changed" log_sha256 "$TMP/run.json" \
    --log "$TMP/changed.log"
cat "$TMP/run.log" >"$TMP/added.log"
sed -n 1p "$TMP/run.log" >>"$TMP/added.log"
verify_fails "a log with a line added" log_records "$TMP/run.json" \
    --log "$TMP/added.log"
sed 1d "$TMP/run.log" >"$TMP/removed.log"
verify_fails "a log with a line removed" log_records "$TMP/run.json" \
    --log "$TMP/removed.log"
sed '1!d' "$TMP/run.log" >"$TMP/swapped.log"
sed 1d "$TMP/run.log" | cat - "$TMP/swapped.log" >"$TMP/reordered.log"
verify_fails "a log with its lines reordered" log_sha256 "$TMP/run.json" \
    --log "$TMP/reordered.log"

# An appended log: the second run's report covers its own bytes.
expect_rc "a second run appends to the same log" 0 box \
    --log "$TMP/run.log" --attest "$TMP/run2.json" --sign-key "$K" \
    -- sh -c "$SCRIPT"
expect_rc "verify: the second run's records in the appended log" 0 \
    "$EGRESSD" verify --pubkey "$K.pub" --log "$TMP/run.log" "$TMP/run2.json"
expect_rc "verify: the first run's records, with a later run after them" 0 \
    "$EGRESSD" verify --pubkey "$K.pub" --log "$TMP/run.log" "$TMP/run.json"
grep "\"run\":\"$RUN_ID\"" "$TMP/run.log" | head -1 >"$TMP/again.log"
cat "$TMP/run.log" "$TMP/again.log" >"$TMP/runafter.log"
verify_fails "a record of the run after its last one" log_records \
    "$TMP/run.json" --log "$TMP/runafter.log"
# Another run's lines before this run's are not this report's to vouch for;
# its own bytes, changed in place, are.
sed '1s/denied\.example/denief.example/; 2s/denied\.example/denief.example/' \
    "$TMP/run.log" >"$TMP/prefix.log"
expect_rc "verify: the second run, with the first run's lines altered" 0 \
    "$EGRESSD" verify --pubkey "$K.pub" --log "$TMP/prefix.log" "$TMP/run2.json"
sed '$s/denied\.example/denief.example/' "$TMP/run.log" >"$TMP/suffix.log"
verify_fails "the second run, its own last line altered" log_sha256 \
    "$TMP/run2.json" --log "$TMP/suffix.log"

# Unsigned.
expect_rc "a run with --attest and no key" 0 box --log "$TMP/u.log" \
    --attest "$TMP/unsigned.json" -- true
expect_no_grep "the unsigned report has no signature" "$TMP/unsigned.json" \
    '"signature"'
verify_fails "an unsigned report" signed "$TMP/unsigned.json"

# --log - in run mode: stderr is the command's too, so a line it wrote
# there could pass for a decision.  Refused before anything starts; and
# the control: the same line on stderr does look like one.
rm -f "$WS/ran" "$TMP/stderr.json"
expect_rc "run mode refuses --log - (stderr is the command's too)" 2 box \
    --log - --attest "$TMP/stderr.json" -- sh -c ': > ran'
if [ -e "$WS/ran" ] || [ -e "$TMP/stderr.json" ]; then
	not_ok "--log - in run mode: nothing ran, no report"
else
	ok "--log - in run mode: nothing ran, no report"
fi
expect_grep "the refusal says why" "$TMP/err" 'stderr is the command.s too'
# Without --log: no decision log at all; the refusals are said on stderr
# as diagnostics, and the report counts the decisions but no records.
printf '%s\n' '{"ts":"2026-12-02T15:30:00.123Z","protocol":"http","host":"forged.example","port":80,"decision":"allow","reason":"allow_rule"}' >"$WS/forged.line"
expect_rc "a run without --log" 0 box --attest "$TMP/nolog.json" \
    --sign-key "$K" -- sh -c "cat forged.line >&2; $SCRIPT"
rm -f "$WS/forged.line"
expect_grep "without --log: a refusal is said for people" "$TMP/err" \
    "^harn-egressd: refused http denied\\.example:80: no_allow_rule: the policy line 'allow denied\\.example:80' would admit it$"
fields "without --log: the report counts 1 allow, 1 deny, and 0 records" \
    "$TMP/nolog.json" 'decisions.allow=1' 'decisions.deny=1' \
    'log.records=0' 'log.offset=null'
grep '^{"ts"' "$TMP/err" >"$TMP/forged.log" || true
expect_grep "the command wrote a decision-looking line on stderr" "$TMP/forged.log" forged.example
verify_fails "the command's own line on stderr, offered as the log" \
    log "$TMP/nolog.json" --log "$TMP/forged.log"
expect_grep "verify: the run kept no decision log" "$TMP/err" \
    'kept no decision log'
expect_rc "verify: the run without a log, without --log" 0 "$EGRESSD" \
    verify --pubkey "$K.pub" "$TMP/nolog.json"

# ------------------------------------------------------------------ ends

expect_rc "a command killed by a signal: 128+9" 137 box --log "$TMP/k.log" \
    --attest "$TMP/killed.json" --sign-key "$K" -- sh -c 'kill -KILL $$'
fields "report: killed by signal 9" "$TMP/killed.json" 'exit.code=137' \
    'exit.signal=9'
expect_rc "verify: the killed run's report" 0 "$EGRESSD" verify --pubkey \
    "$K.pub" --log "$TMP/k.log" "$TMP/killed.json"
expect_rc "a command that is not found: 127" 127 box --log "$TMP/nf.log" \
    --attest "$TMP/notfound.json" -- /nonexistent/command
fields "report: exit 127, and no sandbox: nothing ran" "$TMP/notfound.json" \
    'exit.code=127' 'command.argv0="/nonexistent/command"' 'sandbox=null'

# A command's own exit 2 is its status, not a usage error: it is reported,
# and an older report at the same path does not survive.
printf 'stale\n' >"$TMP/exit2.json"
expect_rc "a command that exits 2" 2 box --log "$TMP/e2.log" \
    --attest "$TMP/exit2.json" --sign-key "$K" -- sh -c 'exit 2'
fields "report: exit 2" "$TMP/exit2.json" 'exit.code=2'
expect_rc "verify: the exit-2 run's report" 0 "$EGRESSD" verify --pubkey \
    "$K.pub" --log "$TMP/e2.log" "$TMP/exit2.json"

# ------------------------------------------------------------------ bad keys

printf 'garbage\n' >"$TMP/bad.pem"
openssl genpkey -algorithm ed25519 -aes256 -pass pass:x -out "$TMP/enc.pem" 2>/dev/null
openssl genpkey -algorithm rsa -pkeyopt rsa_keygen_bits:1024 -out "$TMP/rsa.pem" 2>/dev/null
for bad in bad enc rsa missing; do
	rm -f "$WS/ran" "$TMP/bad.json"
	expect_rc "run mode, --sign-key $bad: usage error" 2 box --log \
	    "$TMP/bad.log" --attest "$TMP/bad.json" --sign-key "$TMP/$bad.pem" \
	    -- sh -c ': > ran'
	if [ -e "$WS/ran" ] || [ -e "$TMP/bad.json" ]; then
		not_ok "--sign-key $bad: no child ran, no report was written"
	else
		ok "--sign-key $bad: no child ran, no report was written"
	fi
done
box --log "$TMP/bad.log" --attest "$TMP/bad.json" --sign-key "$TMP/enc.pem" \
    -- true 2>"$TMP/enc.err" || true
expect_grep "an encrypted key is refused as such" "$TMP/enc.err" 'encrypted keys are not supported'
box --log "$TMP/bad.log" --attest "$TMP/bad.json" --sign-key "$TMP/rsa.pem" \
    -- true 2>"$TMP/rsa.err" || true
expect_grep "an RSA key is refused" "$TMP/rsa.err" 'not an Ed25519 key'
expect_rc "service mode, a bad key: usage error" 2 "$EGRESSD" --policy "$POL" \
    --attest "$TMP/bad.json" --sign-key "$TMP/bad.pem"
expect_no_grep "service mode, a bad key: no listener" "$TMP/out" 'listening'
expect_rc "--sign-key without --attest: usage error" 2 box --log "$TMP/bad.log" \
    --sign-key "$K" -- true
rm -f "$WS/ran"
for mode in --no-sandbox "--profile unrestricted"; do
	# shellcheck disable=SC2086
	expect_rc "--sign-key with $mode: usage error (the key is readable)" 2 \
	    box --log "$TMP/bad.log" --attest "$TMP/bad.json" --sign-key "$K" \
	    $mode -- sh -c ': > ran'
done
if [ -e "$WS/ran" ] || [ -e "$TMP/bad.json" ]; then
	not_ok "--sign-key unsandboxed: nothing ran, no report"
else
	ok "--sign-key unsandboxed: nothing ran, no report"
fi
cp "$K" "$KEYS/victim"
before=$(sha "$KEYS/victim")
expect_rc "--attest naming the signing key: usage error" 2 box \
    --log "$TMP/bad.log" --attest "$KEYS/victim" --sign-key "$KEYS/victim" -- true
if [ "$(sha "$KEYS/victim")" = "$before" ]; then
	ok "--attest naming the signing key: the key is intact"
else
	not_ok "--attest naming the signing key: the key is intact"
fi
expect_rc "--attest naming the log: usage error" 2 box \
    --log "$TMP/same.log" --attest "$TMP/same.log" -- true
expect_rc "--attest with a name too long for its temporary file: usage error" \
    2 box --log "$TMP/bad.log" --attest "$TMP/$(printf '%0250d' 0)" -- true
expect_rc "a command name that is not UTF-8: usage error with --attest" 2 \
    box --log "$TMP/bad.log" --attest "$TMP/bad.json" -- "$(printf 'x\377')"
expect_rc "--attest into a missing directory: usage error" 2 box \
    --log "$TMP/bad.log" --attest "$TMP/nodir/r.json" -- sh -c ': > ran'
if [ -e "$WS/ran" ]; then
	not_ok "--attest into a missing directory: nothing ran"
else
	ok "--attest into a missing directory: nothing ran"
fi

# ------------------------------------------------------------------ the child

# The signing key, even inside the workspace, is denied to the command.
cp "$K" "$WS/ws-key"
echo "control-readable" >"$WS/control.txt"
box --log "$TMP/c.log" --attest "$TMP/c.json" --sign-key "$WS/ws-key" \
    -- sh -c 'cat control.txt; cat ws-key' >"$TMP/keyread.out" 2>&1 || true
expect_grep "the command reads a file beside the key (control)" \
    "$TMP/keyread.out" 'control-readable'
expect_no_grep "the command cannot read the signing key" "$TMP/keyread.out" \
    'PRIVATE KEY'
box --log "$TMP/c.log" -- sh -c 'cat ws-key' >"$TMP/keyread.out" 2>&1 || true
expect_grep "without --sign-key the same file is readable (control)" \
    "$TMP/keyread.out" 'PRIVATE KEY'

# The report, the log and the port file, inside a root the command can
# write: it could have left a symlink there in an earlier run (or write
# into the log now).  Refused before anything starts.
mkdir -p "$TMP/rw" "$TMP/outside"
ln -sfn "$TMP/outside" "$WS/link-out"
for spec in "--attest $WS/report.json" "--attest $TMP/rw/r.json" \
    "--log $WS/d.log" "--port-file $WS/port" \
    "--attest $WS/link-out/r.json" "--log $WS/sub/../d.log"; do
	rm -f "$WS/ran"
	# shellcheck disable=SC2086
	expect_rc "in reach of the command: $spec: usage error" 2 box \
	    --write-root "$TMP/rw" $spec -- sh -c ': > ran'
	[ -e "$WS/ran" ] && not_ok "in reach of the command: $spec: nothing ran"
	expect_grep "in reach of the command: $spec: says why" "$TMP/err" \
	    'inside a root the command can write'
done
# The control: the same outputs outside its roots work.
expect_rc "outside its roots: --attest, --log, --port-file" 0 box \
    --attest "$TMP/outside/r.json" --log "$TMP/outside/d.log" \
    --port-file "$TMP/outside/port" -- true
expect_grep "run mode writes the port file" "$TMP/outside/port" '^[0-9]+$'
# A symlink at the log's own path is never followed.
ln -sfn "$TMP/outside/target.log" "$TMP/outside/link.log"
expect_rc "--log through a symlink: usage error" 2 box \
    --log "$TMP/outside/link.log" -- true
[ -e "$TMP/outside/target.log" ] &&
    not_ok "--log through a symlink: the target was not created"
rm -f "$WS/link-out"

# A refused spawn still gets a report: os_hardened where neither
# confinement attaches (a container that makes no namespaces, on a kernel
# without Landlock: tests/dockerish.c, HARN_EGRESSD_LANDLOCK_ABI=0).
if cc -O1 -o "$TMP/dockerish" "$top_srcdir/tests/dockerish.c" -lseccomp \
    2>"$TMP/cc.err"; then
	"$EGRESSD" keygen --out "$TMP/inner-key" >/dev/null
	rm -f "$WS/ran"
	expect_rc "os_hardened refused where no confinement attaches: exit 3" 3 \
	    env HOME="$TMP/home" HARN_EGRESSD_LANDLOCK_ABI=0 "$TMP/dockerish" \
	    -- "$EGRESSD" --policy "$POL" --workspace "$WS" \
	    --profile os_hardened --log "$TMP/inner.log" \
	    --attest "$TMP/refused.json" --sign-key "$TMP/inner-key" -- \
	    sh -c ': > ran'
	[ -e "$WS/ran" ] && not_ok "the refused spawn ran nothing"
	fields "report of a refused spawn" "$TMP/refused.json" \
	    'sandbox.process_network_mode="unsupported_fail_closed"' \
	    'sandbox.profile="os_hardened"' 'exit=null' 'command.argv0="sh"' \
	    'decisions.allow=0' 'log.records=0'
	expect_rc "verify: the refused spawn's report" 0 "$EGRESSD" verify \
	    --pubkey "$TMP/inner-key.pub" --log "$TMP/inner.log" \
	    "$TMP/refused.json"
else
	not_ok "the container launcher builds" "$(head -c 400 "$TMP/cc.err")"
fi

# Unprivileged (root runs this part as nobody): the user namespace is in
# the report too.
nobody_report() {
	NB=$(mktemp -d /tmp/harn-attest-nobody.XXXXXX)
	at_exit rm_nobody
	cp "$EGRESSD" "$NB/harn-egressd"
	cp "$K" "$NB/k"
	cp "$K.pub" "$NB/k.pub"
	printf 'default deny\n' >"$NB/p.conf"
	chown -R nobody "$NB"
	chmod 755 "$NB" "$NB/harn-egressd"
	mkdir -p "$NB/ws"
	chown nobody "$NB/ws"
	su nobody -s /bin/sh -c "cd '$NB' && env -i PATH=/usr/bin:/bin \
	    HOME='$NB' ./harn-egressd --policy p.conf --workspace '$NB/ws' \
	    --log l.log --attest r.json --sign-key k -- true" \
	    >"$TMP/nobody.out" 2>&1
	fields "nobody: the report names the user namespace" "$NB/r.json" \
	    'sandbox.namespaces=["ipc","mount","net","pid","user"]' \
	    'sandbox.process_network_mode="managed"' 'exit.code=0'
	expect_rc "nobody: verify" 0 "$EGRESSD" verify --pubkey "$NB/k.pub" \
	    --log "$NB/l.log" "$NB/r.json"
}
rm_nobody() {
	rm -rf "$NB"
}
if [ "$(id -u)" -ne 0 ]; then
	fields "unprivileged: the report names the user namespace" \
	    "$TMP/run.json" 'sandbox.namespaces=["ipc","mount","net","pid","user"]'
elif ! id nobody >/dev/null 2>&1; then
	skip "unprivileged report: no user 'nobody'"
elif ! su nobody -s /bin/sh -c "unshare -U true" >/dev/null 2>&1; then
	skip "unprivileged report: user namespaces unavailable to nobody"
else
	fields "root: the report names the user namespace (its own, as uid 65533)" \
	    "$TMP/run.json" 'sandbox.namespaces=["ipc","mount","net","pid","user"]'
	nobody_report
fi

# ------------------------------------------------------------------ service

rm -f "$TMP/svc.port"
"$EGRESSD" --policy "$POL" --port-file "$TMP/svc.port" --log "$TMP/svc.log" \
    --attest "$TMP/svc.json" --sign-key "$K" >"$TMP/svc.out" 2>"$TMP/svc.err" &
SPID=$!
BG_PIDS="$BG_PIDS $SPID"
if wait_file "$TMP/svc.port" 50 "$SPID"; then
	SPORT=$(cat "$TMP/svc.port")
	curl -q -s -o /dev/null --max-time 5 -x "http://127.0.0.1:$SPORT" \
	    "http://127.0.0.1:$OPORT/" || true
	printf 'allow_loopback on\nallow 127.0.0.1:%s\nallow example.org\n' \
	    "$OPORT" >"$POL.new"
	cp "$POL.new" "$POL"
	kill -HUP "$SPID"
	n=0
	while ! grep -q 're-read' "$TMP/svc.err" && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	kill -TERM "$SPID"
	src=0
	wait "$SPID" || src=$?
	if [ "$src" -eq 0 ]; then ok "service mode exits 0 on SIGTERM"; else
		not_ok "service mode exits 0 on SIGTERM" "exit $src"; fi
	fields "service report: no command, sandbox or exit" "$TMP/svc.json" \
	    'command=null' 'sandbox=null' 'exit=null' \
	    "proxy.listen=[\"127.0.0.1:$SPORT\"]" 'decisions.allow=1' \
	    'log.records=2'
	fields "service report: the policy in force at the end" "$TMP/svc.json" \
	    'policy.reloads=1' 'policy.rules=2' "policy.sha256=\"$(sha "$POL")\""
	expect_rc "verify: the service's report and log" 0 "$EGRESSD" verify \
	    --pubkey "$K.pub" --log "$TMP/svc.log" "$TMP/svc.json"
else
	not_ok "service mode with --attest starts" "$(cat "$TMP/svc.err")"
fi

# The logs the proxy wrote here (not the forged ones): audit counts every
# line.
logs=""
for l in run u k nf e2 svc; do
	[ -s "$TMP/$l.log" ] && logs="$logs $TMP/$l.log"
done
# shellcheck disable=SC2086
audit_logs "audit counts every line the runs and the service wrote" $logs

finish
