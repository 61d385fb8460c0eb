#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# In-toto attestations (SPEC 7.1): --attest-format dsse in run mode (a
# confined command's output is the statement's subject) and in service
# mode (the decision log is), verify of envelopes and of subject files,
# what happens to a subject that cannot be taken at exit, and the usage
# errors.
#
# The envelope is also verified without harn-egressd: the PAE is built
# here with printf from DSSE's definition and checked by `openssl pkeyutl
# -verify -rawin` with the public key, and by securesystemslib's Ed25519
# (Debian's python3-securesystemslib) where it is installed.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

AC="$top_srcdir/tests/attest/attestcheck.py"
PH="$top_srcdir/tests/pyhelpers.py"

KEYS=$TMP/keys
WS=$TMP/ws
mkdir -p "$KEYS" "$WS" "$TMP/home"
K=$KEYS/k

# statement NAME ENVELOPE CHECK...: the statement's members have these
# JSON values.
statement() {
	sname=$1
	shift
	if $PY "$AC" statement "$@" >"$TMP/fields.out" 2>&1; then
		ok "$sname"
	else
		not_ok "$sname" "$(cat "$TMP/fields.out")"
	fi
}

# verify_fails NAME CHECK ENVELOPE [ARGS...]: verify exits 1 naming CHECK.
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

# openssl_pae NAME ENVELOPE: the envelope's signature, checked by openssl
# over a PAE built here, and refused over other bytes.
openssl_pae() {
	oname=$1
	parts=$TMP/parts.$$
	rm -rf "$parts"
	mkdir -p "$parts"
	if ! $PY "$AC" dsse "$2" "$parts" >"$TMP/dsse.out" 2>&1; then
		not_ok "$oname: the envelope and its payload are canonical" \
		    "$(cat "$TMP/dsse.out")"
		return
	fi
	ok "$oname: the envelope and its payload are canonical"
	ptype=$(cat "$parts/type")
	# DSSE's PAE: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body.
	{
		printf 'DSSEv1 %d %s %d ' "$(printf %s "$ptype" | wc -c)" \
		    "$ptype" "$(wc -c <"$parts/payload")"
		cat "$parts/payload"
	} >"$parts/pae"
	expect_rc "$oname: openssl verifies the signature over the PAE" 0 \
	    openssl pkeyutl -verify -pubin -inkey "$K.pub" -rawin \
	    -in "$parts/pae" -sigfile "$parts/sig"
	expect_grep "$oname: openssl says so" "$TMP/out" \
	    'Signature Verified Successfully'
	# Controls: the payload alone, and the PAE of one byte more.
	expect_rc "$oname: openssl refuses the payload without PAE (control)" \
	    1 openssl pkeyutl -verify -pubin -inkey "$K.pub" -rawin \
	    -in "$parts/payload" -sigfile "$parts/sig"
	printf ' ' >>"$parts/pae"
	expect_rc "$oname: openssl refuses the PAE of other bytes (control)" \
	    1 openssl pkeyutl -verify -pubin -inkey "$K.pub" -rawin \
	    -in "$parts/pae" -sigfile "$parts/sig"
	if [ "$(cat "$parts/keyid")" = "$($PY "$AC" keyid "$K.pub")" ]; then
		ok "$oname: keyid is the SHA-256 of the raw public key"
	else
		not_ok "$oname: keyid is the SHA-256 of the raw public key" \
		    "$(cat "$parts/keyid")"
	fi
}

# A Python that has securesystemslib: the one tests use, else Debian's.
SSLIB_PY=""
for p in "${PYTHON:-python3}" /usr/bin/python3; do
	if "$p" -c 'import securesystemslib.signer' >/dev/null 2>&1; then
		SSLIB_PY=$p
		break
	fi
done

# sslib NAME ENVELOPE: securesystemslib verifies it; and refuses it with
# its payload altered.
sslib() {
	if [ -z "$SSLIB_PY" ]; then
		skip "$1: securesystemslib is not installed (Debian:" \
		    "apt-get install python3-securesystemslib)"
		return
	fi
	expect_rc "$1: securesystemslib's Ed25519 verifies the envelope" 0 \
	    "$SSLIB_PY" "$AC" sslib "$2" "$K.pub"
	$PY - "$2" "$TMP/sslib-bad.json" <<'EOF'
import base64, json, sys
env = json.load(open(sys.argv[1]))
body = base64.b64decode(env["payload"]).replace(b'"deny":', b'"deny":1', 1)
env["payload"] = base64.b64encode(body).decode()
json.dump(env, open(sys.argv[2], "w"))
EOF
	expect_rc "$1: securesystemslib refuses an altered payload (control)" \
	    1 "$SSLIB_PY" "$AC" sslib "$TMP/sslib-bad.json" "$K.pub"
}

expect_rc "keygen" 0 "$EGRESSD" keygen --out "$K"
expect_rc "a second key" 0 "$EGRESSD" keygen --out "$KEYS/other"

rm -f "$TMP/origin.port"
$PY "$PH" origin --port-file "$TMP/origin.port" >"$TMP/origin.out" 2>&1 &
BG_PIDS="$BG_PIDS $!"
wait_file "$TMP/origin.port" 50 || not_ok "the origin starts"
OPORT=$(cat "$TMP/origin.port")
POL=$TMP/policy.conf
printf 'allow_loopback on\nallow 127.0.0.1:%s\n' "$OPORT" >"$POL"

box() {
	env HOME="$TMP/home" "$EGRESSD" --policy "$POL" --workspace "$WS" "$@"
}

# A build: one request allowed, one denied, and an output.
BUILD="curl -q -s --noproxy '' -o /dev/null --max-time 5 http://127.0.0.1:$OPORT/;
curl -q -s -o /dev/null --max-time 5 http://denied.example/;
mkdir -p dist && printf 'built by the command\n' >dist/app.bin"

# ------------------------------------------------------------------ run mode

for c in namespaces landlock; do
	rm -rf "$WS/dist" "$TMP/run-$c.log"
	expect_rc "run mode, $c: --attest-format dsse with an output as subject" \
	    0 box --confinement "$c" --log "$TMP/run-$c.log" \
	    --attest "$TMP/run-$c.dsse.json" --attest-format dsse \
	    --sign-key "$K" --attest-subject "$WS/dist/app.bin" \
	    -- sh -c "$BUILD"
	expect_rc "run mode, $c: verify the envelope, its log and the output" \
	    0 "$EGRESSD" verify --pubkey "$K.pub" --log "$TMP/run-$c.log" \
	    --subject "$WS/dist/app.bin" "$TMP/run-$c.dsse.json"
	expect_grep "run mode, $c: verify says what held" "$TMP/out" \
	    'ok: envelope, signature, key_id, statement, canonical, schema, subjects, log_sha256, log_records, subject_sha256$'
	statement "run mode, $c: the statement" "$TMP/run-$c.dsse.json" \
	    '_type="https://in-toto.io/Statement/v1"' \
	    'predicateType="https://harn-egressd.dev/attestation/v1"' \
	    "subject=[{\"name\":\"$WS/dist/app.bin\",\"digest\":{\"sha256\":\"$(sha "$WS/dist/app.bin")\"}}]" \
	    'predicate.schema="harn.egress.attestation.v1"' \
	    "predicate.sandbox.confinement=\"$c\"" \
	    'predicate.sandbox.process_network_mode="managed"' \
	    'predicate.command.argv0="sh"' 'predicate.exit.code=0' \
	    'predicate.decisions.allow=1' 'predicate.decisions.deny=1' \
	    "predicate.log.sha256=\"$(sha "$TMP/run-$c.log")\"" \
	    'predicate.log.records=3' 'predicate.subjects_refused=[]' \
	    'predicate.signature="<missing>"'
done
RUN=$TMP/run-namespaces.dsse.json
openssl_pae "run mode" "$RUN"
sslib "run mode" "$RUN"
if ls -A "$TMP" | grep -q '\.tmp$'; then
	not_ok "no temporary file is left beside the envelope" "$(ls -A "$TMP")"
else
	ok "no temporary file is left beside the envelope"
fi

# The subject changed after the run, a file the statement does not list,
# and a verifier's copy elsewhere (found by its last part).
mkdir -p "$TMP/copy"
cp "$WS/dist/app.bin" "$TMP/copy/app.bin"
expect_rc "verify: a copy of the output elsewhere, by its last part" 0 \
    "$EGRESSD" verify --pubkey "$K.pub" --subject "$TMP/copy/app.bin" \
    "$TMP/run-landlock.dsse.json"
printf 'changed\n' >>"$TMP/copy/app.bin"
verify_fails "an output changed since" subject_sha256 \
    "$TMP/run-landlock.dsse.json" --subject "$TMP/copy/app.bin"
verify_fails "a file the statement does not list" subjects \
    "$TMP/run-landlock.dsse.json" --subject "$POL"
verify_fails "another key" key_id "$RUN" --pubkey "$KEYS/other.pub"
sed 's/"keyid":"[0-9a-f]/"keyid":"x/' "$RUN" >"$TMP/keyid.json"
verify_fails "an altered keyid" key_id "$TMP/keyid.json"
$PY - "$RUN" "$TMP/sig.json" <<'EOF'
import base64, json, sys
env = json.load(open(sys.argv[1]))
sig = bytearray(base64.b64decode(env["signatures"][0]["sig"]))
sig[5] ^= 1
env["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
json.dump(env, open(sys.argv[2], "w"))
EOF
verify_fails "an altered signature" signature "$TMP/sig.json"
verify_fails "an empty file as the log" log_records "$RUN" \
    --log /dev/null

# A store may keep the envelope spelled otherwise: it is the same.
$PY -c 'import json, sys; json.dump(json.load(open(sys.argv[1])),
    open(sys.argv[2], "w"), indent=4)' "$RUN" "$TMP/pretty.json"
expect_rc "verify: the envelope pretty-printed" 0 "$EGRESSD" verify \
    --pubkey "$K.pub" "$TMP/pretty.json"

# Every value of the statement altered under the same signature.
mkdir -p "$TMP/tampered"
n=$($PY "$AC" dssetamper "$RUN" "$TMP/tampered")
passed=""
i=1
while [ "$i" -le "$n" ]; do
	rc=0
	"$EGRESSD" verify --pubkey "$K.pub" "$TMP/tampered/$i.json" \
	    >/dev/null 2>"$TMP/tamper.err" || rc=$?
	if [ "$rc" -ne 1 ] || ! grep -q 'FAILED signature:' \
	    "$TMP/tamper.err"; then
		passed="$passed $i"
	fi
	i=$((i + 1))
done
if [ "$n" -gt 40 ] && [ -z "$passed" ]; then
	ok "each of $n altered statements fails verify's signature check"
else
	not_ok "each of $n altered statements fails verify" "accepted:$passed"
fi

# The JSON form still verifies, and has no subjects to check.
expect_rc "run mode, --attest-format json" 0 box --log "$TMP/j.log" \
    --attest "$TMP/j.json" --attest-format json --sign-key "$K" -- true
expect_grep "the JSON form is the report of SPEC 7" "$TMP/j.json" \
    '^\{"command":.*"schema":"harn.egress.attestation.v1".*"signature":'
expect_rc "verify: the JSON form" 0 "$EGRESSD" verify --pubkey "$K.pub" \
    --log "$TMP/j.log" "$TMP/j.json"
expect_grep "verify: the JSON form's checks" "$TMP/out" \
    'ok: schema, canonical, signature, key_id, log_sha256, log_records$'
verify_fails "a JSON report given --subject" subjects "$TMP/j.json" \
    --subject "$TMP/j.log"

# ------------------------------------------------------------------ default

expect_rc "run mode, dsse without --attest-subject: the log is the subject" \
    0 box --log "$TMP/d.log" --attest "$TMP/d.dsse.json" --attest-format \
    dsse --sign-key "$K" -- sh -c "$BUILD"
statement "the default subject: the decision log, named as given" \
    "$TMP/d.dsse.json" "subject.0.name=\"$TMP/d.log\"" \
    "subject.0.digest.sha256=\"$(sha "$TMP/d.log")\"" \
    'predicate.log.records=3'
expect_rc "verify: the log as log and as subject" 0 "$EGRESSD" verify \
    --pubkey "$K.pub" --log "$TMP/d.log" --subject "$TMP/d.log" \
    "$TMP/d.dsse.json"

# ------------------------------------------------------------------ refused
# (The command's attacks on a subject, as root and as nobody: subjects.sh.)

# The build produced no output but exited 0: the envelope is written and
# says so, harn-egressd exits 1, and verify fails the statement.
rm -rf "$WS/dist"
expect_rc "an output missing at exit, the command exited 0: exit 1" 1 box \
    --log "$TMP/m.log" --attest "$TMP/m.dsse.json" --attest-format dsse \
    --sign-key "$K" --attest-subject "$WS/dist/app.bin" \
    --attest-subject "$TMP/m.log" -- true
expect_grep "the missing output is said on stderr" "$TMP/err" \
    "attest-subject $WS/dist/app.bin: refused at exit \(not_found\): No such file or directory; listed in subjects_refused"
statement "the statement lists the missing output as refused" \
    "$TMP/m.dsse.json" "subject.0.name=\"$TMP/m.log\"" \
    "predicate.subjects_refused=[{\"name\":\"$WS/dist/app.bin\",\"reason\":\"not_found\"}]"
verify_fails "a statement with a refused subject" subjects "$TMP/m.dsse.json"
# Neither the refused subject nor the statement's other one is vouched
# for: what the command did to one makes the run's evidence doubtful.
printf 'x\n' >"$TMP/app.bin"
verify_fails "verify --subject of the refused one" subjects \
    "$TMP/m.dsse.json" --subject "$TMP/app.bin"
verify_fails "verify --subject of the one taken beside it" subjects \
    "$TMP/m.dsse.json" --subject "$TMP/m.log"
openssl_pae "the statement with a refused subject" "$TMP/m.dsse.json"
# The command's own failure, which may be why: its status stands.
expect_rc "an output missing, the command exited 5: exit 5" 5 box \
    --log "$TMP/m5.log" --attest "$TMP/m5.dsse.json" --attest-format dsse \
    --sign-key "$K" --attest-subject "$WS/dist/app.bin" -- sh -c 'exit 5'
statement "exit 5: the report says the command's status" \
    "$TMP/m5.dsse.json" 'predicate.exit.code=5' 'subject=[]'

# The command leaves a link at the output's name, to a file it may not
# read: not followed (its digest would be published), nor is a FIFO read
# (that would hang the exit).
printf 'machine example.com login u password hunter2\n' >"$TMP/home/.netrc"
expect_rc "a link left at the subject's name: exit 1" 1 box --log \
    "$TMP/l.log" --attest "$TMP/l.dsse.json" --attest-format dsse \
    --sign-key "$K" --attest-subject "$WS/dist/app.bin" \
    -- sh -c "mkdir -p dist && ln -sf '$TMP/home/.netrc' dist/app.bin"
statement "the link is not followed" "$TMP/l.dsse.json" \
    "predicate.subjects_refused=[{\"name\":\"$WS/dist/app.bin\",\"reason\":\"symlink\"}]"
$PY "$AC" dsse "$TMP/l.dsse.json" "$TMP" >/dev/null 2>&1 || true
expect_no_grep "the link's target's digest is nowhere in the statement" \
    "$TMP/payload" "$(sha "$TMP/home/.netrc")"
rm -rf "$WS/dist"
expect_rc "a FIFO left at the subject's name: exit 1, at once" 1 \
    timeout 60 env HOME="$TMP/home" "$EGRESSD" --policy "$POL" \
    --workspace "$WS" --log "$TMP/f.log" --attest "$TMP/f.dsse.json" \
    --attest-format dsse --sign-key "$K" --attest-subject "$WS/dist/app.bin" \
    -- sh -c 'mkdir -p dist && mkfifo dist/app.bin'
statement "the FIFO is not read" "$TMP/f.dsse.json" \
    "predicate.subjects_refused=[{\"name\":\"$WS/dist/app.bin\",\"reason\":\"not_regular\"}]"
rm -rf "$WS/dist"
# The control: the same output, a file, is taken.
expect_rc "the same output as a file (control)" 0 box --log "$TMP/c.log" \
    --attest "$TMP/c.dsse.json" --attest-format dsse --sign-key "$K" \
    --attest-subject "$WS/dist/app.bin" \
    -- sh -c "mkdir -p dist && printf 'x\n' >dist/app.bin"
statement "the control: the file is a subject" "$TMP/c.dsse.json" \
    "subject.0.digest.sha256=\"$(sha "$WS/dist/app.bin")\""

# ------------------------------------------------------------------ usage

# usage NAME PATTERN ARGS...: run mode with ARGS is a usage error saying
# PATTERN; nothing ran and no report was written.
usage() {
	uname=$1 upat=$2
	shift 2
	rm -f "$WS/ran" "$TMP/u.json"
	expect_rc "usage error: $uname" 2 box --attest "$TMP/u.json" "$@" \
	    -- sh -c ': > ran'
	expect_grep "usage error: $uname: says why" "$TMP/err" "$upat"
	if [ -e "$WS/ran" ] || [ -e "$TMP/u.json" ]; then
		not_ok "usage error: $uname: nothing ran, no report"
	else
		ok "usage error: $uname: nothing ran, no report"
	fi
}
usage "dsse without a key" 'an envelope must be signed' --log "$TMP/u.log" \
    --attest-format dsse
usage "dsse without a subject or a log file" \
    'no subject \(add --attest-subject FILE' --attest-format dsse \
    --sign-key "$K"
usage "the report as a subject" 'is the report' --log "$TMP/u.log" \
    --attest-format dsse --sign-key "$K" --attest-subject "$TMP/u.json"
usage "the signing key as a subject" 'is the signing key' --log \
    "$TMP/u.log" --attest-format dsse --sign-key "$K" --attest-subject "$K"
usage "a subject given twice" 'given twice' --log "$TMP/u.log" \
    --attest-format dsse --sign-key "$K" --attest-subject "$TMP/a" \
    --attest-subject "$TMP/a"
usage "a subject name that is not UTF-8" 'not UTF-8' --log "$TMP/u.log" \
    --attest-format dsse --sign-key "$K" \
    --attest-subject "$TMP/$(printf 'x\377')"
# A subject is the command's output: beneath the workspace or a
# --write-root, named without '..', never where the command was denied.
usage "a subject outside the workspace and the write roots" \
    'not beneath the workspace' --log "$TMP/u.log" --attest-format dsse \
    --sign-key "$K" --attest-subject "$TMP/elsewhere.bin"
usage "a subject named with '..'" "a '\.\.' component" --log "$TMP/u.log" \
    --attest-format dsse --sign-key "$K" \
    --attest-subject "$WS/dist/../dist/app.bin"
usage "a subject under --read-deny-root" 'under --read-deny-root' \
    --log "$TMP/u.log" --attest-format dsse --sign-key "$K" \
    --read-deny-root "$WS/private" --attest-subject "$WS/private/key.pem"
usage "--attest-subject-max 0" 'want a size of at least 1 bytes' \
    --log "$TMP/u.log" --attest-format dsse --sign-key "$K" \
    --attest-subject-max 0
usage "--attest-subject-max 2x" 'want a size' --log "$TMP/u.log" \
    --attest-format dsse --sign-key "$K" --attest-subject-max 2x
usage "--attest-subject-max in the JSON form" \
    'attest-subject-max: the JSON report has no subjects' --log "$TMP/u.log" \
    --attest-subject-max 1g
usage "--attest-format xml" 'want json or dsse' --attest-format xml
usage "--attest-subject in the JSON form" 'the JSON report has no subjects' \
    --log "$TMP/u.log" --attest-subject "$WS/dist/app.bin"
usage "--attest-subject with --attest-format json" \
    'the JSON report has no subjects' --log "$TMP/u.log" \
    --attest-format json --attest-subject "$WS/dist/app.bin"
expect_rc "usage error: --attest-format without --attest" 2 box \
    --log "$TMP/u.log" --attest-format dsse -- true
expect_grep "usage error: --attest-format without --attest: says why" \
    "$TMP/err" 'no report to write'
expect_rc "usage error: --attest-subject without --attest" 2 box \
    --log "$TMP/u.log" --attest-subject "$TMP/u.log" -- true
expect_grep "usage error: --attest-subject without --attest: says why" \
    "$TMP/err" 'no report to name it'
expect_rc "usage error: --attest-subject-max without --attest" 2 box \
    --log "$TMP/u.log" --attest-subject-max 1m -- true
expect_grep "usage error: --attest-subject-max without --attest: says why" \
    "$TMP/err" 'no report to take subjects for'
expect_rc "verify --subject without --pubkey is a usage error" 2 \
    "$EGRESSD" verify --subject "$WS/dist/app.bin" "$RUN"

# ------------------------------------------------------------------ service

rm -f "$TMP/svc.port"
"$EGRESSD" --policy "$POL" --port-file "$TMP/svc.port" --log "$TMP/svc.log" \
    --attest "$TMP/svc.dsse.json" --attest-format dsse --sign-key "$K" \
    >"$TMP/svc.out" 2>"$TMP/svc.err" &
SPID=$!
BG_PIDS="$BG_PIDS $SPID"
if wait_file "$TMP/svc.port" 50 "$SPID"; then
	SPORT=$(cat "$TMP/svc.port")
	curl -q -s -o /dev/null --max-time 5 -x "http://127.0.0.1:$SPORT" \
	    "http://127.0.0.1:$OPORT/" || true
	kill -TERM "$SPID"
	src=0
	wait "$SPID" || src=$?
	if [ "$src" -eq 0 ]; then ok "service mode exits 0 on SIGTERM"; else
		not_ok "service mode exits 0 on SIGTERM" "exit $src" \
		    "$(cat "$TMP/svc.err")"; fi
	statement "service mode: the log is the subject" "$TMP/svc.dsse.json" \
	    "subject.0.name=\"$TMP/svc.log\"" \
	    "subject.0.digest.sha256=\"$(sha "$TMP/svc.log")\"" \
	    'predicate.command=null' 'predicate.sandbox=null' \
	    'predicate.exit=null' 'predicate.decisions.allow=1' \
	    "predicate.proxy.listen=[\"127.0.0.1:$SPORT\"]"
	expect_rc "service mode: verify the envelope, its log and subject" 0 \
	    "$EGRESSD" verify --pubkey "$K.pub" --log "$TMP/svc.log" \
	    --subject "$TMP/svc.log" "$TMP/svc.dsse.json"
	openssl_pae "service mode" "$TMP/svc.dsse.json"
	sslib "service mode" "$TMP/svc.dsse.json"
else
	not_ok "service mode with --attest-format dsse starts" \
	    "$(cat "$TMP/svc.err")"
fi
expect_rc "service mode, dsse, decision lines on stderr and no subject: usage" \
    2 "$EGRESSD" --policy "$POL" --attest "$TMP/svc2.json" \
    --attest-format dsse --sign-key "$K"
expect_no_grep "service mode, the usage error: no listener" "$TMP/out" \
    'listening'

finish
