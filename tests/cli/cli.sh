#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The policy author's commands: check and explain, their exit codes and
# messages, and the environment policy.
set -eu
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

EX="$top_srcdir/conf/egress.conf.example"

expect_rc "--version exits 0" 0 "$EGRESSD" --version
expect_grep "--version names the program" "$TMP/out" '^harn-egressd [0-9]'

# --help: every command and option, one line each (SPEC 2), the same set
# of options as the man page and as the getopt tables the program parses.
expect_rc "--help exits 0" 0 "$EGRESSD" --help
cp "$TMP/out" "$TMP/help"
expect_rc "-h exits 0" 0 "$EGRESSD" -h
if cmp -s "$TMP/out" "$TMP/help"; then ok "-h prints --help"; else
	not_ok "-h prints --help"; fi
if [ -s "$TMP/err" ]; then
	not_ok "--help says nothing on stderr" "$(head -c 300 "$TMP/err")"
else
	ok "--help says nothing on stderr"
fi
n=$(awk 'length($0) > 80' "$TMP/help" | wc -l)
if [ "$n" -eq 0 ]; then ok "--help fits 80 columns"; else
	not_ok "--help fits 80 columns" "$(awk 'length($0) > 80' "$TMP/help")"; fi
for cmd in check explain verify audit doctor keygen; do
	expect_grep "--help: a usage line and a line that says what $cmd does" \
	    "$TMP/help" "^  $cmd  "
	expect_grep "--help: $cmd's usage line" "$TMP/help" \
	    "^ +harn-egressd $cmd "
done
expect_grep "--help: audit --suggest --full" "$TMP/help" \
    '^ +harn-egressd audit +--suggest \[--full\]'
expect_grep "--help: audit --html" "$TMP/help" '^ +harn-egressd audit .*--html FILE'
expect_grep "--help: doctor --policy" "$TMP/help" '^ +harn-egressd doctor +\[--json\] \[--policy FILE\]'
# Options the man page documents: its SYNOPSIS, the heading of each .TP
# entry (SERVICE MODE, RUN MODE's Options, ATTESTATION REPORT) and the
# macro lines of COMMANDS (the subcommands' flags); not the options of
# other programs its prose mentions (git's --no-hardlinks).
awk '/^\.SH / { sec = $0 }
    prev == ".TP" || sec == ".SH SYNOPSIS" || (sec == ".SH COMMANDS" && /^\./)
    { prev = $0 }' "$top_srcdir/man/harn-egressd.8" |
    grep -o '\\-\\-[a-z][a-z\\-]*' | sed 's/\\-/-/g' | sort -u >"$TMP/opts.man"
grep -o -- '--[a-z][a-z-]*' "$TMP/help" | sort -u >"$TMP/opts.help"
# What the program parses: each getopt_long table of cli/, and main.c's
# --version and --help.
{ grep -ho '{ "[a-z][a-z-]*", [a-z]*_argument' "$top_srcdir"/cli/*.c |
    sed 's/^{ "\([^"]*\)".*/--\1/'; echo --version; echo --help; } |
    sort -u >"$TMP/opts.getopt"
missing() {	# missing NAME FROM IN: the lines of FROM not in IN
	comm -23 "$2" "$3" >"$TMP/missing" || true
	if [ -s "$TMP/missing" ]; then
		not_ok "$1" "$(tr '\n' ' ' <"$TMP/missing")"
	else
		ok "$1 ($(wc -l <"$2") options)"
	fi
}
if [ "$(wc -l <"$TMP/opts.man")" -ge 30 ]; then
	ok "the man page's options are found ($(wc -l <"$TMP/opts.man"))"
else
	not_ok "the man page's options are found" "$(cat "$TMP/opts.man")"
fi
missing "--help names every option of harn-egressd(8)" "$TMP/opts.man" "$TMP/opts.help"
missing "harn-egressd(8) documents every option --help names" "$TMP/opts.help" "$TMP/opts.man"
missing "--help names every option the program parses" "$TMP/opts.getopt" "$TMP/opts.help"
missing "the program parses every option --help names" "$TMP/opts.help" "$TMP/opts.getopt"

expect_rc "check accepts the example policy" 0 "$EGRESSD" check --policy "$EX"
expect_grep "check prints the default" "$TMP/out" '^default deny$'
expect_grep "check prints normalized rules" "$TMP/out" '^allow deb\.debian\.org:443$'
expect_grep "check shows timeouts" "$TMP/out" '^connect_timeout 15s$'

# check's output is itself a policy that checks to the same text.
sed -n '2,$p' "$TMP/out" > "$TMP/again.conf"
cp "$TMP/out" "$TMP/first"
expect_rc "check output parses again" 0 "$EGRESSD" check --policy "$TMP/again.conf"
if [ "$(sed -n '2,$p' "$TMP/first")" = "$(sed -n '2,$p' "$TMP/out")" ]; then
	ok "check output is a fixed point"
else
	not_ok "check output is a fixed point"
fi

# The README's service-mode examples are what the example policy admits.
expect_rc "explain the README's examples" 0 "$EGRESSD" explain --policy "$EX" \
    https://github.com/ http://deb.debian.org/
expect_grep "example policy: CONNECT github.com" "$TMP/out" \
    '^https://github\.com/ resolve allow_rule allow github\.com:443 '
expect_grep "example policy: forwarding to deb.debian.org (apt's http)" "$TMP/out" \
    '^http://deb\.debian\.org/ resolve allow_rule allow deb\.debian\.org:80 '

# Bad policies: exit 2, FILE:LINE: on stderr, nothing on stdout.
bad() {
	printf '%b' "$2" > "$TMP/bad.conf"
	expect_rc "bad policy: $1" 2 "$EGRESSD" check --policy "$TMP/bad.conf"
	expect_grep "bad policy names file and line: $1" "$TMP/err" \
	    "^harn-egressd: $TMP/bad.conf:$3: "
	if [ -s "$TMP/out" ]; then
		not_ok "bad policy prints nothing on stdout: $1"
	else
		ok "bad policy prints nothing on stdout: $1"
	fi
}
bad "unknown directive" '# comment\n\nallw example.com\n' 3
bad "bad default" 'default maybe\n' 1
bad "repeated default" 'default deny\ndefault allow\n' 2
bad "bad rule" 'allow ok.example\nallow a..b\n' 2
bad "ftp scheme" 'allow ftp://example.com\n' 1
bad "port zero" 'allow example.com:0\n' 1
bad "leading zero port" 'allow example.com:080\n' 1
bad "bare IPv6" 'deny 2001:db8::1\n' 1
bad "host bits" 'allow 10.0.0.1/8\n' 1
bad "duration without unit" 'connect_timeout 15\n' 1
bad "missing value" 'allow\n' 1
bad "two values" 'block_private on off\n' 1
bad "NUL byte" 'allow a.com\n\0\n' 2
expect_rc "a missing policy file is a usage error" 2 \
    "$EGRESSD" check --policy "$TMP/does-not-exist"
expect_grep "a missing policy file is named" "$TMP/err" 'does-not-exist: No such file'

# Environment policy (SPEC 3.4).
expect_rc "env policy" 0 env HARN_EGRESS_ALLOW='a.example, *.b.example;10.0.0.0/8' \
    HARN_EGRESS_DEFAULT=deny "$EGRESSD" check
expect_grep "env policy rules" "$TMP/out" '^allow \*\.b\.example$'
expect_grep "env policy source" "$TMP/out" 'from env'
expect_rc "env policy even empty" 0 env HARN_EGRESS_DENY= "$EGRESSD" check
expect_grep "empty env policy source" "$TMP/out" 'from env'
expect_rc "env and file conflict" 2 env HARN_EGRESS_ALLOW=x.example \
    "$EGRESSD" check --policy "$EX"
expect_grep "conflict message" "$TMP/err" 'policy already configured from'
expect_rc "env bad default" 2 env HARN_EGRESS_DEFAULT=maybe "$EGRESSD" check
expect_grep "env bad default names the variable" "$TMP/err" '^harn-egressd: HARN_EGRESS_DEFAULT: '
expect_rc "env bad rule" 2 env HARN_EGRESS_ALLOW='ok.example,bad..example' "$EGRESSD" check
expect_grep "env bad rule names the variable" "$TMP/err" '^harn-egressd: HARN_EGRESS_ALLOW: '
expect_rc "env bad boolean" 2 env HARN_EGRESS_BLOCK_PRIVATE=yes "$EGRESSD" check
expect_rc "no policy at all is the default" 0 "$EGRESSD" check
expect_grep "default policy denies" "$TMP/out" '^default deny$'

# explain: one line per target, exit 0 whatever the decisions.
cat > "$TMP/p.conf" <<'P'
allow api.example.com:443 *.github.com
allow 203.0.113.0/24
deny gist.github.com
P
expect_rc "explain exits 0" 0 "$EGRESSD" explain --policy "$TMP/p.conf" \
    api.example.com:443 https://api.example.com/x api.example.com:80 \
    a.github.com:22 github.com:443 gist.github.com:443 2130706433:80 \
    0x7f.1:80 'bad..host:80' 'ftp://x/' 203.0.113.9:80 169.254.169.254:80 \
    'evil.com' "$(printf 'a\nb:80')"
n=$(wc -l < "$TMP/out")
if [ "$n" -eq 14 ]; then ok "explain prints one line per target"; else
	not_ok "explain prints one line per target" "got $n lines"; fi
expect_grep "explain host rule" "$TMP/out" '^api\.example\.com:443 resolve allow_rule allow api\.example\.com:443 \(the addresses decide: explain --resolve\)$'
expect_grep "explain URL target" "$TMP/out" '^https://api\.example\.com/x resolve allow_rule'
expect_grep "explain port-scoped rule" "$TMP/out" '^api\.example\.com:80 resolve address_rules \(the addresses decide: explain --resolve\)$'
expect_grep "explain wildcard" "$TMP/out" '^a\.github\.com:22 resolve allow_rule allow \*\.github\.com \(the addresses decide: explain --resolve\)$'
expect_grep "explain apex is not the wildcard" "$TMP/out" '^github\.com:443 resolve address_rules \(the addresses decide: explain --resolve\)$'
expect_grep "explain deny beats allow" "$TMP/out" '^gist\.github\.com:443 deny deny_rule deny gist\.github\.com$'
expect_grep "explain numeric spelling" "$TMP/out" '^2130706433:80 deny private_address \(special-purpose 127\.0\.0\.0/8; see allow_loopback in egress\.conf\(5\)\)$'
expect_grep "explain hex spelling" "$TMP/out" '^0x7f\.1:80 deny private_address \(special-purpose 127\.0\.0\.0/8; see allow_loopback in egress\.conf\(5\)\)$'
expect_grep "explain bad host" "$TMP/out" '^bad\.\.host:80 deny invalid_target \(host has an empty label\)$'
expect_grep "explain bad scheme" "$TMP/out" '^ftp://x/ deny invalid_target \(only http:// and https:// URLs are targets\)$'
expect_grep "explain CIDR allow" "$TMP/out" '^203\.0\.113\.9:80 allow allow_rule allow 203\.0\.113\.0/24$'
expect_grep "explain metadata" "$TMP/out" '^169\.254\.169\.254:80 deny metadata_address$'
expect_grep "explain target without port" "$TMP/out" '^evil\.com deny invalid_target \(missing port: give HOST:PORT or a URL\)$'
expect_grep "explain masks a newline in a target" "$TMP/out" '^a\?b:80 deny invalid_target \('

# mode report (SPEC 3.1): check and explain say so; the rules' refusals
# are report_only, with what enforcing would say; the rest still refuses.
printf 'mode report\nallow api.example.com:443\ndeny gist.github.com\n' >"$TMP/report.conf"
expect_rc "check of a report-mode policy" 0 "$EGRESSD" check --policy "$TMP/report.conf"
expect_grep "check says report mode" "$TMP/out" '^# harn-egressd: policy from .* is valid \(2 rules, report mode: nothing its rules refuse is refused\)$'
expect_grep "check prints mode report" "$TMP/out" '^mode report$'
expect_rc "explain under mode report" 0 "$EGRESSD" explain --policy "$TMP/report.conf" \
    other.example:443 gist.github.com:443 93.184.216.34:443 10.0.0.1:443 169.254.169.254:80
expect_grep "explain says report mode on stderr" "$TMP/err" '^harn-egressd: policy in report mode: '
expect_grep "explain: no allow rule, let through" "$TMP/out" '^other\.example:443 resolve report_only \(mode report: enforcing would refuse it, no_allow_rule; the addresses may still refuse it: explain --resolve\)$'
expect_grep "explain: a deny rule, let through" "$TMP/out" '^gist\.github\.com:443 resolve report_only deny gist\.github\.com \(mode report: enforcing would refuse it, deny_rule; '
expect_grep "explain: an address, let through" "$TMP/out" '^93\.184\.216\.34:443 allow report_only \(mode report: enforcing would refuse it, no_allow_rule\)$'
expect_grep "explain: private still refused" "$TMP/out" '^10\.0\.0\.1:443 deny private_address'
expect_grep "explain: metadata still refused" "$TMP/out" '^169\.254\.169\.254:80 deny metadata_address$'
printf 'mode audit\n' >"$TMP/badmode.conf"
expect_rc "mode audit is a policy error" 2 "$EGRESSD" check --policy "$TMP/badmode.conf"
expect_grep "... naming the line" "$TMP/err" "badmode\.conf:1: mode: 'audit' is not report or enforce"
expect_rc "audit --suggest with --json is a usage error" 2 "$EGRESSD" audit --suggest --json
expect_rc "doctor --policy of a missing file" 2 "$EGRESSD" doctor --policy "$TMP/none.conf"

printf 'allow a.example\n' > "$TMP/n.conf"
expect_rc "explain without CIDR rules" 0 "$EGRESSD" explain --policy "$TMP/n.conf" b.example:443
expect_grep "no allow rule, no resolve" "$TMP/out" '^b\.example:443 deny no_allow_rule$'
expect_rc "explain without targets is a usage error" 2 "$EGRESSD" explain --policy "$TMP/n.conf"

# explain --resolve: the proxy's resolver and verdicts, against a DNS
# server of our own on loopback.
cat > "$TMP/zone" <<'Z'
pub.test A 93.184.216.34
priv.test A 10.0.0.7
mixed.test A 93.184.216.34
mixed.test A 192.168.1.9
gone.test NXDOMAIN
doc.test A 203.0.113.80
undoc.test A 203.0.113.81
Z
i=1
while [ $i -le 70 ]; do echo "huge.test A 93.184.216.$i"; i=$((i + 1)); done >> "$TMP/zone"
python3 "$top_srcdir/tests/dnsd.py" --zone "$TMP/zone" \
    --port-file "$TMP/dnsport" --log "$TMP/dnsq" 2>"$TMP/dnsd.err" &
DNSD_PID=$!
stop_dnsd() { kill "$DNSD_PID"; }
at_exit stop_dnsd
i=0
while [ ! -s "$TMP/dnsport" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
cat > "$TMP/r.conf" <<P
resolver 127.0.0.1:$(cat "$TMP/dnsport")
dns_timeout 2s
allow pub.test:443 priv.test:443 mixed.test:443 gone.test:443 huge.test:443
deny never.test
P
expect_rc "explain --resolve exits 0" 0 "$EGRESSD" explain --policy "$TMP/r.conf" \
    --resolve pub.test:443 priv.test:443 mixed.test:443 gone.test:443 \
    never.test:443 other.test:443 huge.test:443
expect_grep "resolve: public answer allowed" "$TMP/out" \
    '^pub\.test:443 allow allow_rule allow pub\.test:443 addr=93\.184\.216\.34$'
expect_grep "resolve: private answer denied" "$TMP/out" \
    '^priv\.test:443 deny private_address addr=10\.0\.0\.7 \(special-purpose 10\.0\.0\.0/8; see exempt in egress\.conf\(5\)\)$'
expect_grep "resolve: one private answer denies all" "$TMP/out" \
    '^mixed\.test:443 deny private_address addr=192\.168\.1\.9 \(special-purpose 192\.168\.0\.0/16; see exempt in egress\.conf\(5\)\)$'
expect_grep "resolve: NXDOMAIN is dns_failure" "$TMP/out" '^gone\.test:443 deny dns_failure$'
expect_grep "resolve: an answer too large to judge whole is refused" "$TMP/out" \
    '^huge\.test:443 deny dns_failure$'
expect_grep "resolve: deny rule" "$TMP/out" '^never\.test:443 deny deny_rule'
expect_grep "resolve: no allow rule" "$TMP/out" '^other\.test:443 deny no_allow_rule$'
# exempt (a network whose DNS answers in documentation space): the address
# is judged as a public one; it admits nothing by itself, and a name no
# host rule admits is still not looked up.
cat > "$TMP/x.conf" <<P
resolver 127.0.0.1:$(cat "$TMP/dnsport")
dns_timeout 2s
allow doc.test:443
exempt 203.0.113.0/24
P
: >"$TMP/dnsq.before"
cp "$TMP/dnsq" "$TMP/dnsq.before"
expect_rc "explain --resolve with exempt exits 0" 0 "$EGRESSD" explain \
    --policy "$TMP/x.conf" --resolve doc.test:443 doc.test:80 \
    203.0.113.80:443 undoc.test:443 10.0.0.7:443
expect_grep "exempt: the exempt answer is served, and says why" "$TMP/out" \
    '^doc\.test:443 allow allow_rule allow doc\.test:443 addr=203\.0\.113\.80 \(special-purpose 203\.0\.113\.0/24, exempt 203\.0\.113\.0/24\)$'
expect_grep "exempt: another port is still no_allow_rule" "$TMP/out" \
    '^doc\.test:80 deny no_allow_rule$'
expect_grep "exempt: an exempt literal with no allow rule is no_allow_rule" "$TMP/out" \
    '^203\.0\.113\.80:443 deny no_allow_rule$'
expect_grep "exempt: an unlisted name is still a clean no_allow_rule" "$TMP/out" \
    '^undoc\.test:443 deny no_allow_rule$'
expect_grep "exempt: other special-purpose space is still refused" "$TMP/out" \
    '^10\.0\.0\.7:443 deny private_address'
if grep -q '^undoc\.test' "$TMP/dnsq"; then
	not_ok "exempt: an unlisted name is not looked up"
else
	ok "exempt: an unlisted name is not looked up"
fi
sed 's/^exempt .*/# no exempt/' "$TMP/x.conf" >"$TMP/x0.conf"
expect_rc "explain --resolve without exempt exits 0" 0 "$EGRESSD" explain \
    --policy "$TMP/x0.conf" --resolve doc.test:443
expect_grep "without exempt: refused, and the line names exempt" "$TMP/out" \
    '^doc\.test:443 deny private_address addr=203\.0\.113\.80 \(special-purpose 203\.0\.113\.0/24; see exempt in egress\.conf\(5\)\)$'
for bad in 169.254.0.0/16 '[fd00:ec2::]/64' '0.0.0.0/0' 'name.test' '10.0.0.0/8:443'; do
	printf 'exempt %s\n' "$bad" >"$TMP/xb.conf"
	expect_rc "exempt $bad: policy error" 2 "$EGRESSD" check --policy "$TMP/xb.conf"
done
expect_grep "exempt with a port: says it takes none" "$TMP/err" \
    "xb.conf:1: exempt '10.0.0.0/8:443': an exempt address takes no port"
printf 'exempt 169.254.169.254\n' >"$TMP/xb.conf"
expect_rc "exempt of the metadata address: policy error" 2 "$EGRESSD" check --policy "$TMP/xb.conf"
expect_grep "exempt of the metadata address: says so" "$TMP/err" \
    'holds the metadata address 169\.254\.169\.254, which cannot be exempted'
expect_no_grep "no DNS query for a denied name" "$TMP/dnsq" "never.test"
expect_no_grep "no DNS query for an unadmitted name" "$TMP/dnsq" "other.test"
expect_grep "the admitted name was asked" "$TMP/dnsq" '^pub\.test A'

# Command-line edges: one line each, prefixed, with the likely intent.
one_line() {
	if [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^harn-egressd: ' "$TMP/err"; then
		ok "$1: one line, prefixed harn-egressd:"
	else
		not_ok "$1: one line, prefixed harn-egressd:" "$(cat "$TMP/err")"
	fi
}
expect_rc "--polcy: usage error" 2 "$EGRESSD" --polcy "$EX"
one_line "--polcy"
expect_grep "--polcy: names the nearest option" "$TMP/err" \
    '^harn-egressd: unknown option --polcy \(did you mean --policy\?\)$'
expect_rc "--policy without a value: usage error" 2 "$EGRESSD" --policy
one_line "--policy without a value"
expect_grep "--policy without a value: says so" "$TMP/err" '--policy needs a value'
expect_rc "check --zz: usage error" 2 "$EGRESSD" check --zz
one_line "check --zz"
expect_rc "chek: usage error" 2 "$EGRESSD" chek --policy "$EX"
one_line "chek"
expect_grep "chek: names the nearest command and the rest" "$TMP/err" \
    "unknown command 'chek' \(did you mean 'check'\? commands: check explain verify audit doctor keygen"
expect_rc "a command without --: usage error" 2 "$EGRESSD" curl http://x/
expect_grep "a command without --: says how to run it" "$TMP/err" \
    'to run it confined: harn-egressd --policy FILE -- curl'
printf 'allow *github.com\n' >"$TMP/w.conf"
expect_rc "allow *github.com: policy error" 2 "$EGRESSD" check --policy "$TMP/w.conf"
expect_grep "allow *github.com: suggests *.github.com" "$TMP/err" \
    "w.conf:1: allow rule '\*github\.com': a wildcard is \*\.suffix: did you mean '\*\.github\.com'\?"
# A port file that cannot be written: exit 1, and no listener announced.
expect_rc "--port-file in a missing directory: exit 1" 1 "$EGRESSD" \
    --policy "$EX" --port-file "$TMP/nonexistent/port"
if grep -q listening "$TMP/out"; then
	not_ok "--port-file in a missing directory: nothing announced" "$(cat "$TMP/out")"
else
	ok "--port-file in a missing directory: nothing announced"
fi
# A listener other hosts can reach: allowed, with one warning line.
"$EGRESSD" --policy "$EX" --listen 0.0.0.0:0 --port-file "$TMP/any.port" \
    >"$TMP/any.out" 2>"$TMP/any.err" &
anyp=$!
i=0
while [ ! -s "$TMP/any.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill "$anyp" 2>/dev/null
wait "$anyp" 2>/dev/null || true
expect_grep "--listen 0.0.0.0: warns" "$TMP/any.err" \
    '^harn-egressd: warning: listening on 0\.0\.0\.0:[0-9]+: reachable from other hosts$'
# A signing key others can read is refused, as ssh refuses one.
expect_rc "keygen" 0 "$EGRESSD" keygen --out "$TMP/sk"
chmod 640 "$TMP/sk"
expect_rc "--sign-key readable by its group: usage error" 2 "$EGRESSD" \
    --policy "$EX" --attest "$TMP/sk.report" --sign-key "$TMP/sk"
expect_grep "--sign-key readable by its group: says why and what to do" \
    "$TMP/err" 'permissions 0640 are too open: the private key must be readable by its owner only \(chmod 600 '
if [ -e "$TMP/sk.report" ]; then
	not_ok "--sign-key refused: no report written"
else
	ok "--sign-key refused: no report written"
fi

# The man pages are the reference: every long option of service and run
# mode, every policy directive and every decision reason is in them.
missing=""
for o in $(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", \(required\|no\)_argument.*/\1/p' \
    "$top_srcdir/cli/options.c"); do
	grep -q -e "\\\\-\\\\-$o" -e "--$o" "$top_srcdir/man/harn-egressd.8" ||
	    missing="$missing --$o"
done
for d in $(sed -n 's/^[[:space:]]*{ "\([a-z_]*\)", [0-9].*/\1/p' "$top_srcdir/conf/conf.c"); do
	grep -qw -- "$d" "$top_srcdir/man/egress.conf.5" || missing="$missing $d"
done
for r in $(sed -n 's/^[[:space:]]*\[EGRESS_R_[A-Z_]*\] = "\([a-z_]*\)",/\1/p' \
    "$top_srcdir/egress/judge.c"); do
	grep -qw -- "$r" "$top_srcdir/man/harn-egressd.8" || missing="$missing $r"
done
n_opts=$(grep -c '_argument' "$top_srcdir/cli/options.c")
if [ -z "$missing" ] && [ "$n_opts" -gt 10 ]; then
	ok "man pages name every option, directive and reason"
else
	not_ok "man pages name every option, directive and reason" "missing:$missing"
fi

# Every member of a real report is described in ATTESTATION REPORT, by
# its dotted name: a run-mode report (signed) and a service-mode one.
man_section() {
	# $1: section title: the roff text from .SH $1 to the next .SH.
	awk -v t=".SH $1" '$0 == t { on = 1; next } /^\.SH / { on = 0 } on' \
	    "$top_srcdir/man/harn-egressd.8"
}
man_section "ATTESTATION REPORT" > "$TMP/man-report"
"$EGRESSD" keygen --out "$TMP/mk" >/dev/null
printf 'default deny\n' > "$TMP/mp.conf"
mkdir -p "$TMP/mws"
"$EGRESSD" --policy "$TMP/mp.conf" --workspace "$TMP/mws" \
    --attest "$TMP/mr-run.json" --sign-key "$TMP/mk" -- true 2>"$TMP/err" ||
    cat "$TMP/err"
"$EGRESSD" --policy "$TMP/mp.conf" --attest "$TMP/mr-svc.json" \
    --port-file "$TMP/mport" >/dev/null 2>&1 &
mpid=$!
BG_PIDS="$BG_PIDS $mpid"
wait_file "$TMP/mport" 50 "$mpid" || true
kill -TERM "$mpid" 2>/dev/null || true
wait_gone "$mpid" 50 || true
members=$($PY -c '
import json, sys
def walk(o, pre):
    for k, v in o.items():
        p = pre + k
        if isinstance(v, dict) and k != "by_reason":
            walk(v, p + ".")
        else:
            print(p)
for f in sys.argv[1:]:
    walk(json.load(open(f)), "")
' "$TMP/mr-run.json" "$TMP/mr-svc.json" | sort -u)
missing=""
for m in $members; do
	grep -qF -- "$m" "$TMP/man-report" || missing="$missing $m"
done
if [ -n "$members" ] && [ -z "$missing" ] &&
    echo "$members" | grep -qx 'signature.key_id' &&
    echo "$members" | grep -qx 'log.complete'; then
	ok "man page describes every report member ($(echo $members | wc -w))"
else
	not_ok "man page describes every report member" "missing:$missing" \
	    "members: $(echo $members)"
fi

# Every exit status a command gives is in EXIT STATUS, under that command.
man_section "EXIT STATUS" > "$TMP/man-exit"
man_exit() {
	# $1: the entry (.B "service mode", .B check...), $2: the status seen.
	awk -v e=".B $1" '$0 == e { on = 1; next } /^\.TP/ { on = 0 } on' \
	    "$TMP/man-exit" > "$TMP/man-entry"
	pat=$2
	[ "$2" -gt 128 ] && pat='128\+'
	case "$1:$2" in
	'"run mode":'[4-9]|'"run mode":'[1-9][0-9]) pat="command's own exit status" ;;
	esac
	if [ -s "$TMP/man-entry" ] && grep -Eq -- "(^|[^0-9])$pat([^0-9]|$)" \
	    "$TMP/man-entry"; then
		ok "EXIT STATUS names $1 exiting $2"
	else
		not_ok "EXIT STATUS names $1 exiting $2" \
		    "entry: $(cat "$TMP/man-entry")"
	fi
}
# exit_seen ENTRY WANT CMD...: CMD exits WANT, and the man page says so.
exit_seen() {
	entry=$1 want=$2
	shift 2
	expect_rc "$entry exits $want: $*" "$want" "$@"
	man_exit "$entry" "$want"
}
printf 'allw x\n' > "$TMP/mbad.conf"
exit_seen check 0 "$EGRESSD" check --policy "$TMP/mp.conf"
exit_seen check 2 "$EGRESSD" check --policy "$TMP/mbad.conf"
exit_seen explain 0 "$EGRESSD" explain --policy "$TMP/mp.conf" x.example:1
exit_seen explain 2 "$EGRESSD" explain --policy "$TMP/mbad.conf" x.example:1
exit_seen verify 0 "$EGRESSD" verify --pubkey "$TMP/mk.pub" "$TMP/mr-run.json"
sed 's/"code":0/"code":1/' "$TMP/mr-run.json" > "$TMP/mr-bad.json"
exit_seen verify 1 "$EGRESSD" verify --pubkey "$TMP/mk.pub" "$TMP/mr-bad.json"
exit_seen verify 2 "$EGRESSD" verify "$TMP/mr-run.json"
: > "$TMP/empty.log"
exit_seen audit 0 "$EGRESSD" audit "$TMP/empty.log"
exit_seen audit 1 "$EGRESSD" audit "$TMP/no-such.log"
exit_seen audit 2 "$EGRESSD" audit --top
exit_seen doctor 0 "$EGRESSD" doctor
exit_seen doctor 2 "$EGRESSD" doctor --jsn
exit_seen keygen 0 "$EGRESSD" keygen --out "$TMP/mk2"
exit_seen keygen 1 "$EGRESSD" keygen --out "$TMP/mk2"
exit_seen keygen 2 "$EGRESSD" keygen
exit_seen '"run mode"' 7 "$EGRESSD" --policy "$TMP/mp.conf" --no-sandbox --workspace "$TMP/mws" \
    -- sh -c 'exit 7'
exit_seen '"run mode"' 137 "$EGRESSD" --policy "$TMP/mp.conf" --no-sandbox --workspace "$TMP/mws" \
    -- sh -c 'kill -9 $$'
exit_seen '"run mode"' 127 "$EGRESSD" --policy "$TMP/mp.conf" --no-sandbox --workspace "$TMP/mws" \
    -- "$TMP/no-such-command"
printf '#!/bin/sh\n' > "$TMP/noexec"
exit_seen '"run mode"' 126 "$EGRESSD" --policy "$TMP/mp.conf" --no-sandbox --workspace "$TMP/mws" \
    -- "$TMP/noexec"
exit_seen '"run mode"' 2 "$EGRESSD" --policy "$TMP/mbad.conf" --workspace "$TMP/mws" -- true
exit_seen '"service mode"' 2 "$EGRESSD" --policy "$TMP/mbad.conf"
exit_seen '"service mode"' 1 "$EGRESSD" --policy "$TMP/mp.conf" \
    --port-file "$TMP/no-such-dir/port"
man_exit '"run mode"' 3
man_exit '"service mode"' 0

# Unconfined, the command keeps its own $HOME: no temporary or cache
# directories in the workspace, no ~/.npmrc stand-in, and TMPDIR may be
# passed; only the proxy variables are set.  The confined run beside it
# is the control.
mkdir -p "$TMP/uhome"
printf 'registry=http://registry.invalid/\n_authToken=planted\n' \
    >"$TMP/uhome/.npmrc"
for mode in --no-sandbox "--profile unrestricted"; do
	rm -rf "$TMP/uws" && mkdir "$TMP/uws"
	# shellcheck disable=SC2086
	HOME="$TMP/uhome" TMPDIR=/var/tmp "$EGRESSD" --policy "$TMP/mp.conf" \
	    $mode --env TMPDIR --workspace "$TMP/uws" -- sh -c \
	    'echo "t=$TMPDIR c=$npm_config_cache n=$NPM_CONFIG_USERCONFIG p=$HTTPS_PROXY"' \
	    >"$TMP/uout" 2>"$TMP/err" || echo "exit $?" >>"$TMP/uout"
	if [ -z "$(ls -A "$TMP/uws")" ] &&
	    grep -q '^t=/var/tmp c= n= p=http://127\.0\.0\.1:[0-9]*$' "$TMP/uout"; then
		ok "$mode: the workspace untouched, TMPDIR passed, proxy set"
	else
		not_ok "$mode: the workspace untouched, TMPDIR passed, proxy set" \
		    "$(ls -A "$TMP/uws"; cat "$TMP/uout" "$TMP/err")"
	fi
done
# Confined, TMPDIR and the stand-in are the run's own, outside the
# workspace, which is left as it was; --env TMPDIR=DIR is kept.
rm -rf "$TMP/uws" && mkdir "$TMP/uws"
HOME="$TMP/uhome" "$EGRESSD" --policy "$TMP/mp.conf" \
    --workspace "$TMP/uws" -- sh -c \
    'echo "t=$TMPDIR n=$NPM_CONFIG_USERCONFIG"; grep -c planted "$NPM_CONFIG_USERCONFIG"' \
    >"$TMP/uout" 2>"$TMP/err" || echo "exit $?" >>"$TMP/uout"
if grep -q 'not enforced: network confinement' "$TMP/err"; then
	skip "confined control: this host has no confinement ($(head -n 1 "$TMP/err"))"
elif [ -z "$(ls -A "$TMP/uws")" ] &&
    grep -q '^t=/[^ ]*/tmp n=/[^ ]*/npmrc$' "$TMP/uout" &&
    ! grep -q "=$TMP/uws" "$TMP/uout" && grep -qx 0 "$TMP/uout"; then
	ok "confined: TMPDIR and the npmrc stand-in (no token) outside the workspace, which is left empty"
else
	not_ok "confined: TMPDIR and the npmrc stand-in outside the workspace" \
	    "$(ls -A "$TMP/uws"; cat "$TMP/uout" "$TMP/err")"
fi
mkdir -p "$TMP/utmp"
HOME="$TMP/uhome" TMPDIR="$TMP/utmp" "$EGRESSD" --policy "$TMP/mp.conf" \
    --env TMPDIR --workspace "$TMP/uws" -- sh -c 'echo "t=$TMPDIR"' \
    >"$TMP/uout" 2>"$TMP/err" || echo "exit $?" >>"$TMP/uout"
if grep -q 'not enforced: network confinement' "$TMP/err"; then
	skip "confined --env TMPDIR: this host has no confinement"
elif grep -qx "t=$TMP/utmp" "$TMP/uout" && [ -z "$(ls -A "$TMP/uws")" ]; then
	ok "confined: --env TMPDIR passes the caller's TMPDIR (granted writable)"
else
	not_ok "confined: --env TMPDIR passes the caller's TMPDIR" \
	    "$(cat "$TMP/uout" "$TMP/err")"
fi

# The policy is read again by the next run (and at SIGHUP): a command
# that could rewrite it would widen what the next run allows.  The
# control: unconfined, the command does rewrite it.
mkdir -p "$TMP/pws" "$TMP/pout"
printf 'default deny\n' >"$TMP/pws/egress.conf"
"$EGRESSD" --policy "$TMP/pws/egress.conf" --no-sandbox --workspace "$TMP/pws" \
    -- sh -c 'echo "default allow" > egress.conf' >/dev/null 2>&1 || true
if grep -q 'default allow' "$TMP/pws/egress.conf"; then
	ok "control: an unconfined command rewrites a policy in its workspace"
else
	not_ok "control: an unconfined command rewrites a policy in its workspace"
fi
printf 'default deny\n' >"$TMP/pws/egress.conf"
ln -sfn "$TMP/pws/egress.conf" "$TMP/pout/link.conf"
ln -sfn "$TMP/pws" "$TMP/pout/dirlink"
mkdir -p "$TMP/pws/sub"
printf 'default deny\n' >"$TMP/pws/sub/p.conf"
for pol in "$TMP/pws/egress.conf" "$TMP/pout/link.conf" \
    "$TMP/pout/dirlink/egress.conf"; do
	expect_rc "--policy $pol in the command's reach: usage error" 2 \
	    "$EGRESSD" --policy "$pol" --workspace "$TMP/pws" \
	    -- sh -c 'echo "default allow" > egress.conf'
	expect_grep "--policy $pol: says why and what to do" "$TMP/err" \
	    '^harn-egressd: --policy .*: inside a root the command can write.*outside the workspace'
done
expect_rc "--policy in a --write-root: usage error" 2 "$EGRESSD" \
    --policy "$TMP/pws/sub/p.conf" --workspace "$TMP/mws" \
    --write-root "$TMP/pws/sub" -- true
if grep -q 'default deny' "$TMP/pws/egress.conf"; then
	ok "--policy in reach: nothing ran, the policy is as it was"
else
	not_ok "--policy in reach: nothing ran, the policy is as it was"
fi
cp "$TMP/pws/egress.conf" "$TMP/pout/egress.conf"
expect_rc "--policy outside the workspace: runs" 0 "$EGRESSD" \
    --policy "$TMP/pout/egress.conf" --workspace "$TMP/pws" -- true

# A policy or log with another hard link in the workspace: writing that
# name writes the file.  (The command cannot link them itself; a
# workspace made with cp -al can come so.)
ln -f "$TMP/pout/egress.conf" "$TMP/pws/hard.conf"
echo '{"planted":1}' >"$TMP/pout/run.log"
ln -f "$TMP/pout/run.log" "$TMP/pws/hard.log"
expect_rc "--policy with a hard link in the workspace: usage error" 2 \
    "$EGRESSD" --policy "$TMP/pout/egress.conf" --workspace "$TMP/pws" \
    -- sh -c 'echo "default allow" > hard.conf'
expect_grep "--policy with a hard link: says why" "$TMP/err" \
    '^harn-egressd: --policy .*: has 2 hard links'
expect_rc "--log with a hard link in the workspace: usage error" 2 \
    "$EGRESSD" --policy "$TMP/mp.conf" --log "$TMP/pout/run.log" \
    --workspace "$TMP/pws" -- sh -c 'echo "{\"forged\":1}" >> hard.log'
if grep -q 'default deny' "$TMP/pout/egress.conf" &&
    ! grep -q forged "$TMP/pout/run.log"; then
	ok "hard links refused: nothing ran, neither file changed"
else
	not_ok "hard links refused: nothing ran, neither file changed"
fi
rm -f "$TMP/pws/hard.conf" "$TMP/pws/hard.log"
expect_rc "the same policy and log, their other links gone: runs" 0 \
    "$EGRESSD" --policy "$TMP/pout/egress.conf" --log "$TMP/pout/run.log" \
    --workspace "$TMP/pws" -- true

# A root given through a symlink: one a command made in its workspace in
# an earlier run would lead the next run's roots anywhere.  Refused, with
# the path it leads to; given as that path, it is taken.
rm -rf "$TMP/lws" && mkdir -p "$TMP/lws/real" "$TMP/ltarget"
"$EGRESSD" --policy "$TMP/mp.conf" --workspace "$TMP/lws" -- sh -c \
    "ln -s '$TMP/ltarget' out" 2>/dev/null || true
[ -L "$TMP/lws/out" ] || ln -s "$TMP/ltarget" "$TMP/lws/out"
for opt in --workspace --write-root --read-only-root --unix-socket-root; do
	ws_opt="--workspace $TMP/lws"
	[ "$opt" = --workspace ] && ws_opt=""
	# shellcheck disable=SC2086
	expect_rc "$opt through a symlink in the workspace: usage error" 2 \
	    "$EGRESSD" --policy "$TMP/mp.conf" $ws_opt "$opt" "$TMP/lws/out" \
	    -- sh -c ": > '$TMP/ltarget/ran'"
	expect_grep "$opt through a symlink: names where it leads" "$TMP/err" \
	    "leads through a symbolic link to $TMP/ltarget.*give $TMP/ltarget itself"
done
expect_rc "a path through a symlinked directory: usage error" 2 \
    "$EGRESSD" --policy "$TMP/mp.conf" --workspace "$TMP/lws/out/../lws/real" \
    -- true
if [ -e "$TMP/ltarget/ran" ]; then
	not_ok "roots through a symlink: nothing ran"
else
	ok "roots through a symlink: nothing ran"
fi
expect_rc "the same root given as where it leads: runs" 0 "$EGRESSD" \
    --policy "$TMP/mp.conf" --workspace "$TMP/lws" --write-root "$TMP/ltarget" \
    -- true
expect_rc "a root given with ., .. and //: runs" 0 "$EGRESSD" \
    --policy "$TMP/mp.conf" --workspace "$TMP//lws/./real/../real/" -- true

# The same directory by a second name (a bind mount: a volume mounted
# twice): in reach by that name too.  In a mount namespace of the test's
# own (a user namespace as well when not root).
in_mntns() {
	if [ "$(id -u)" -eq 0 ]; then
		unshare -m "$@"
	else
		unshare -rm "$@"
	fi
}
if in_mntns true 2>/dev/null; then
	rm -rf "$TMP/bws" "$TMP/balias" "$TMP/bsub" "$TMP/bout" "$TMP/bout2"
	mkdir -p "$TMP/bws/inner" "$TMP/balias" "$TMP/bsub" "$TMP/bout" "$TMP/bout2"
	printf 'default deny\n' >"$TMP/bws/p.conf"
	printf 'default deny\n' >"$TMP/bws/inner/q.conf"
	printf 'default deny\n' >"$TMP/bout/p.conf"
	cat >"$TMP/bind.sh" <<EOF
mount --bind "$TMP/bws" "$TMP/balias" &&
mount --bind "$TMP/bws/inner" "$TMP/bsub" &&
mount --bind "$TMP/bout" "$TMP/bout2" || exit 9
"$EGRESSD" --policy "$TMP/balias/p.conf" --workspace "$TMP/bws" -- true 2>&1; echo "rc=\$? policy-alias"
"$EGRESSD" --policy "$TMP/bws/p.conf" --workspace "$TMP/balias" -- true 2>&1; echo "rc=\$? workspace-alias"
"$EGRESSD" --policy "$TMP/bsub/q.conf" --workspace "$TMP/bws" -- true 2>&1; echo "rc=\$? subdir-alias"
"$EGRESSD" --policy "$TMP/bout/p.conf" --log "$TMP/balias/d.log" --workspace "$TMP/bws" -- true 2>&1; echo "rc=\$? log-alias"
"$EGRESSD" --policy "$TMP/bout2/p.conf" --log "$TMP/bout2/d.log" --workspace "$TMP/bws" -- true 2>&1; echo "rc=\$? outside-alias"
EOF
	in_mntns sh "$TMP/bind.sh" >"$TMP/bind.out" 2>&1
	for c in policy-alias workspace-alias subdir-alias log-alias; do
		if grep -q "^rc=2 $c\$" "$TMP/bind.out"; then
			ok "bind mount, $c: in reach by its second name (exit 2)"
		else
			not_ok "bind mount, $c: in reach by its second name (exit 2)" \
			    "$(cat "$TMP/bind.out")"
		fi
	done
	if grep -q "^rc=0 outside-alias\$" "$TMP/bind.out"; then
		ok "bind mount of a directory outside the roots: runs"
	else
		not_ok "bind mount of a directory outside the roots: runs" \
		    "$(cat "$TMP/bind.out")"
	fi
else
	skip "bind-mount aliases: no mount namespace for this user here (unshare -m/-rm)"
fi

# A workspace or write root at (or above) the user's home would let the
# command leave what runs at the next login.
uhome=$(getent passwd "$(id -u)" | cut -d: -f6)
if [ -n "$uhome" ] && [ -d "$uhome" ] && [ "$uhome" != / ]; then
	rm -f "$uhome/.harn-home-probe"
	expect_rc "--workspace at the home directory ($uhome): usage error" 2 \
	    "$EGRESSD" --policy "$TMP/mp.conf" --workspace "$uhome" \
	    -- touch "$uhome/.harn-home-probe"
	expect_grep "--workspace at home: says why and what to do" "$TMP/err" \
	    'is or holds the home directory .*give --workspace DIR'
	expect_rc "--write-root at the home directory: usage error" 2 \
	    "$EGRESSD" --policy "$TMP/mp.conf" --workspace "$TMP/mws" \
	    --write-root "$uhome" -- touch "$uhome/.harn-home-probe"
	if [ -e "$uhome/.harn-home-probe" ]; then
		not_ok "home directory refused: nothing was written there"
		rm -f "$uhome/.harn-home-probe"
	else
		ok "home directory refused: nothing was written there"
	fi
else
	skip "workspace at the home directory: this user has none ($uhome)"
fi

# The systemd unit verifies, with the binary where make install puts it
# (here: this build's) and the man pages it names.
if command -v systemd-analyze >/dev/null 2>&1 && command -v man >/dev/null 2>&1; then
	mkdir -p "$TMP/man/man5" "$TMP/man/man8"
	cp "$top_srcdir/man/egress.conf.5" "$TMP/man/man5/"
	cp "$top_srcdir/man/harn-egressd.8" "$TMP/man/man8/"
	sed "s|/usr/local/bin/harn-egressd|$EGRESSD|g" \
	    "$top_srcdir/contrib/harn-egressd.service" >"$TMP/harn-egressd.service"
	expect_rc "systemd-analyze verify: the unit" 0 env MANPATH="$TMP/man" \
	    systemd-analyze verify "$TMP/harn-egressd.service"
	if [ -s "$TMP/err" ]; then
		not_ok "systemd-analyze verify: nothing to say" "$(head -c 600 "$TMP/err")"
	else
		ok "systemd-analyze verify: nothing to say"
	fi
	# The unit starts without a key; the signing drop-in adds one.
	grep -v '^#' "$TMP/harn-egressd.service" >"$TMP/unit.settings"
	expect_no_grep "the unit loads no credential" "$TMP/unit.settings" \
	    LoadCredential
	mkdir -p "$TMP/harn-egressd.service.d"
	cp "$top_srcdir/contrib/harn-egressd.service.d/signing.conf" \
	    "$TMP/harn-egressd.service.d/"
	expect_rc "systemd-analyze verify: the unit with the signing drop-in" 0 \
	    env MANPATH="$TMP/man" systemd-analyze verify "$TMP/harn-egressd.service"
	if [ -s "$TMP/err" ]; then
		not_ok "systemd-analyze verify: the drop-in, nothing to say" \
		    "$(head -c 600 "$TMP/err")"
	else
		ok "systemd-analyze verify: the drop-in, nothing to say"
	fi
else
	skip "systemd-analyze verify: systemd-analyze or man is not installed"
fi

# A path outside the roots is out of the command's sight, and tools say
# it "does not exist" (git clone of a local repository): once the command
# failed, one line names the path and the options that grant it.  The
# control: granted with --read-only-root, the same clone works and no
# line is said.
if command -v git >/dev/null 2>&1; then
	mkdir -p "$TMP/gout" "$TMP/ghome"
	git init -q --bare "$TMP/gout/repo.git"
	# As root in namespaces the command is uid 65533 and a read-only root
	# keeps its owner, root, which git calls dubious: safe.directory.
	printf '[safe]\n\tdirectory = *\n' >"$TMP/gout/gitconfig"
	for c in namespaces landlock; do
		rm -rf "$TMP/gws" && mkdir "$TMP/gws"
		rc=0
		HOME="$TMP/ghome" "$EGRESSD" --policy "$TMP/mp.conf" \
		    --confinement "$c" --workspace "$TMP/gws" -- git clone -q \
		    "$TMP/gout/repo.git" "$TMP/gws/c" >"$TMP/g.out" 2>&1 || rc=$?
		if [ "$rc" -eq 3 ]; then
			skip "$c: cannot attach here: $(head -c 300 "$TMP/g.out")"
			continue
		fi
		if [ "$rc" -ne 0 ] && grep -q 'does not exist' "$TMP/g.out" &&
		    grep -qx "harn-egressd: note: argument 3 of the command names a path outside the roots the sandbox grants: the command cannot see it (a tool may say it does not exist); grant it with --read-only-root DIR or --write-root DIR" \
		    "$TMP/g.out" && ! grep -q "^harn-egressd: .*gout" "$TMP/g.out"; then
			ok "$c: git clone of a repository outside the roots fails (exit $rc), and a line says why"
		else
			not_ok "$c: git clone of a repository outside the roots fails, and a line says why" \
			    "exit $rc: $(head -c 600 "$TMP/g.out")"
		fi
		rm -rf "$TMP/gws" && mkdir "$TMP/gws"
		rc=0
		GIT_CONFIG_GLOBAL=$TMP/gout/gitconfig \
		HOME="$TMP/ghome" "$EGRESSD" --policy "$TMP/mp.conf" \
		    --confinement "$c" --workspace "$TMP/gws" \
		    --read-only-root "$TMP/gout" --env GIT_CONFIG_GLOBAL -- \
		    git clone -q "$TMP/gout/repo.git" "$TMP/gws/c" >"$TMP/g.out" \
		    2>&1 || rc=$?
		if [ "$rc" -eq 0 ] && [ -d "$TMP/gws/c/.git" ] &&
		    ! grep -q '^harn-egressd: note:' "$TMP/g.out"; then
			ok "$c: granted with --read-only-root, the clone works and no line is said"
		else
			not_ok "$c: granted with --read-only-root, the clone works and no line is said" \
			    "exit $rc: $(head -c 600 "$TMP/g.out")"
		fi
	done
	# A command that fails on its own: no line for a path in its reach
	# (the workspace, a system root), nor for one that does not exist.
	rc=0
	HOME="$TMP/ghome" "$EGRESSD" --policy "$TMP/mp.conf" \
	    --workspace "$TMP/gws" -- sh -c 'exit 5' sh "$TMP/gws" /usr/bin \
	    "$TMP/gout/none" >"$TMP/g.out" 2>&1 || rc=$?
	if [ "$rc" -eq 5 ] && ! grep -q '^harn-egressd: note:' "$TMP/g.out"; then
		ok "no line for paths in the command's reach or not there"
	else
		not_ok "no line for paths in the command's reach or not there" \
		    "exit $rc: $(head -c 600 "$TMP/g.out")"
	fi
else
	skip "git clone outside the roots: git is not installed"
fi

# Run-mode options: a bad value, or no command to apply them to, is a
# usage error before anything starts.
expect_rc "--confinement bogus: usage error" 2 "$EGRESSD" --policy "$EX" \
    --confinement bogus -- true
expect_grep "--confinement bogus: says what it wants" "$TMP/err" \
    'want auto, namespaces or landlock'
expect_rc "--confinement without a command: usage error" 2 "$EGRESSD" \
    --policy "$EX" --confinement landlock
expect_grep "--confinement without a command: says it is for run mode" \
    "$TMP/err" '^harn-egressd: --confinement is for run mode'
expect_rc "--profile without a command: usage error" 2 "$EGRESSD" \
    --policy "$EX" --profile os_hardened

finish
