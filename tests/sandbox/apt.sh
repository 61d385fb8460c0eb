#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# apt-get through harn-egressd, as README.md and harn-egressd(8) say to:
# in run mode with apt's state in the workspace (as root and as nobody, in
# both confinements), and in service mode with apt's proxy option.  The
# repository is a local one on loopback, reached by name through the test
# resolver; the host's own apt state must come out untouched.
set -eu
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

for t in apt-get dpkg-deb; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "# SKIP: $t is not installed (not a Debian system)"
		exit 77
	fi
done

# A package, a flat repository holding it, a server for it, a name for it.
R=$TMP/repo
mkdir -p "$R/pkg/DEBIAN" "$R/pkg/usr/share/harn-apt-test" "$R/www"
printf 'Package: harn-apt-test\nVersion: 1.0\nArchitecture: all\nMaintainer: harn-egressd tests <tests@harn.invalid>\nDescription: a package for the harn-egressd tests\n' \
    >"$R/pkg/DEBIAN/control"
echo "harn apt test" >"$R/pkg/usr/share/harn-apt-test/hello"
dpkg-deb -Zgzip --root-owner-group --build "$R/pkg" \
    "$R/www/harn-apt-test_1.0_all.deb" >/dev/null
$PY - "$R/www" <<'EOF'
import email.utils, hashlib, os, sys
www = sys.argv[1]
deb = "harn-apt-test_1.0_all.deb"
data = open(os.path.join(www, deb), "rb").read()
ctl = open(os.path.join(www, "..", "pkg", "DEBIAN", "control")).read()
pk = ctl + "Filename: ./%s\nSize: %d\nSHA256: %s\n\n" % (
    deb, len(data), hashlib.sha256(data).hexdigest())
open(os.path.join(www, "Packages"), "w").write(pk)
rel = ("Origin: harn-test\nLabel: harn-test\nSuite: test\nCodename: test\n"
       "Date: %s\nArchitectures: all amd64 arm64 i386\nSHA256:\n %s %d Packages\n"
       % (email.utils.formatdate(usegmt=True),
          hashlib.sha256(pk.encode()).hexdigest(), len(pk)))
open(os.path.join(www, "Release"), "w").write(rel)
EOF
$PY -c '
import functools, http.server, os, signal, sys
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
    functools.partial(H, directory=sys.argv[1]))
open(sys.argv[2] + ".tmp", "w").write("%d\n" % s.server_port)
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
s.serve_forever()' "$R/www" "$TMP/repo.port" &
BG_PIDS="$BG_PIDS $!"
echo "repo.harn.test A 127.0.0.1" >"$TMP/zone"
$PY "$top_srcdir/tests/dnsd.py" --zone "$TMP/zone" --port-file "$TMP/dns.port" &
BG_PIDS="$BG_PIDS $!"
wait_file "$TMP/repo.port" 50 && wait_file "$TMP/dns.port" 50 || {
	not_ok "the repository and the resolver start"
	finish
	exit 1
}
RPORT=$(cat "$TMP/repo.port")
DPORT=$(cat "$TMP/dns.port")

# Where the test's runs live: one place readable by nobody too.
D=$(mktemp -d /tmp/harn-apt.XXXXXX)
at_exit rm_d
rm_d() { rm -rf "$D"; }
chmod 755 "$D"
cp "$EGRESSD" "$D/harn-egressd"
chmod 755 "$D/harn-egressd"
printf 'allow repo.harn.test:%s\nallow_loopback on\nresolver 127.0.0.1:%s\n' \
    "$RPORT" "$DPORT" >"$D/policy.conf"
chmod 644 "$D/policy.conf"

# ws_setup WS: a workspace with the recipe's apt.conf.  The recipe's lines
# first; then, for the test only, the local repository as the only source.
ws_setup() {
	mkdir -p "$1/sources.list.d"
	cat >"$1/apt-ws.conf" <<EOF
Dir::State "$1/.apt/state";
Dir::State::status "/var/lib/dpkg/status";
Dir::Cache "$1/.apt/cache";
APT::Sandbox::User "root";
Debug::NoLocking "true";
Dir::Etc::SourceList "$1/sources.list";
Dir::Etc::SourceParts "$1/sources.list.d";
Acquire::Languages "none";
EOF
	echo "deb [trusted=yes] http://repo.harn.test:$RPORT/ ./" \
	    >"$1/sources.list"
}
RECIPE='mkdir -p .apt/state/lists/partial .apt/cache/archives/partial &&
apt-get -c apt-ws.conf update && apt-get -c apt-ws.conf install --download-only -y harn-apt-test'

host_lists_before=$(ls /var/lib/apt/lists 2>/dev/null | sort | cksum)
host_archives_before=$(ls /var/cache/apt/archives 2>/dev/null | sort | cksum)

# run_recipe LABEL USER CONFINEMENT
run_recipe() {
	label=$1 user=$2 conf=$3
	WS=$D/ws-$user-$conf
	mkdir -p "$WS"
	ws_setup "$WS"
	chmod -R a+rX "$WS"
	[ "$user" = root ] || chown -R "$user" "$WS"
	log=$D/log-$user-$conf
	cmd="cd '$WS' && '$D/harn-egressd' --policy '$D/policy.conf' \
	    --workspace '$WS' --read-only-root /var/lib/dpkg --log '$log' \
	    --confinement $conf -- sh -c '$RECIPE'"
	set +e
	if [ "$user" = root ]; then
		sh -c "$cmd" >"$TMP/run.out" 2>&1
	else
		: >"$log"
		chown "$user" "$log"
		su "$user" -s /bin/sh -c "export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME='$D'; $cmd" \
		    >"$TMP/run.out" 2>&1
	fi
	rc=$?
	set -e
	deb=$WS/.apt/cache/archives/harn-apt-test_1.0_all.deb
	if [ $rc -eq 0 ] && cmp -s "$deb" "$R/www/harn-apt-test_1.0_all.deb"; then
		ok "$label: apt-get update and install --download-only in run mode"
	else
		not_ok "$label: apt-get update and install --download-only in run mode" \
		    "exit $rc" "$(tail -c 800 "$TMP/run.out")"
	fi
	if grep -q "\"protocol\":\"http\",\"host\":\"repo.harn.test\",\"port\":$RPORT,\"decision\":\"allow\"" "$log" &&
	    ! grep -q '"decision":"deny"' "$log"; then
		ok "$label: every fetch went through the proxy and was allowed ($(grep -c . "$log") lines)"
	else
		not_ok "$label: every fetch went through the proxy and was allowed" \
		    "$(head -c 600 "$log")"
	fi
}

if [ "$(id -u)" -ne 0 ]; then
	echo "# not root: only this user's runs"
	run_recipe "$(id -un), namespaces" "$(id -un)" namespaces
	run_recipe "$(id -un), landlock" "$(id -un)" landlock
else
	for c in namespaces landlock; do
		run_recipe "root, $c" root "$c"
		if id nobody >/dev/null 2>&1; then
			run_recipe "nobody, $c" nobody "$c"
		else
			skip "nobody, $c: no user 'nobody'"
		fi
	done
fi

# Service mode: the host's apt (here with the test's state) sends its
# fetches to the proxy with Acquire::http::Proxy.
"$EGRESSD" --policy "$D/policy.conf" --port-file "$TMP/svc.port" \
    --log "$TMP/svc.log" >/dev/null 2>&1 &
svc=$!
BG_PIDS="$BG_PIDS $svc"
if wait_file "$TMP/svc.port" 50 "$svc"; then
	WS=$D/ws-service
	mkdir -p "$WS"
	ws_setup "$WS"
	set +e
	(cd "$WS" && mkdir -p .apt/state/lists/partial .apt/cache/archives/partial &&
	    apt-get -c apt-ws.conf -o "Acquire::http::Proxy=http://127.0.0.1:$(cat "$TMP/svc.port")" update &&
	    apt-get -c apt-ws.conf -o "Acquire::http::Proxy=http://127.0.0.1:$(cat "$TMP/svc.port")" \
	    install --download-only -y harn-apt-test) >"$TMP/svc.out" 2>&1
	rc=$?
	set -e
	if [ $rc -eq 0 ] && [ -f "$WS/.apt/cache/archives/harn-apt-test_1.0_all.deb" ] &&
	    grep -q '"host":"repo.harn.test".*"decision":"allow"' "$TMP/svc.log"; then
		ok "service mode: apt-get with Acquire::http::Proxy, each fetch decided and logged"
	else
		not_ok "service mode: apt-get with Acquire::http::Proxy" "exit $rc" \
		    "$(tail -c 600 "$TMP/svc.out")" "log: $(head -c 300 "$TMP/svc.log")"
	fi
else
	not_ok "service mode: the proxy starts"
fi

# Every line the proxies wrote above is a record audit counts (run mode's
# lines carry the run id).
logs=""
for l in "$D"/log-* "$TMP/svc.log"; do
	[ -s "$l" ] && logs="$logs $l"
done
# shellcheck disable=SC2086
audit_logs "audit counts every line of these runs' decision logs" $logs

# The host's apt state is not the command's: a write root into it is
# refused before anything starts, and none of the runs above changed it.
WS=$D/ws-refused
mkdir -p "$WS"
for root in /var/lib/apt/lists /var/cache/apt /var/lib/dpkg /var; do
	[ -d "$root" ] || continue
	expect_rc "--write-root $root: refused, nothing started" 2 \
	    "$EGRESSD" --policy "$D/policy.conf" --workspace "$WS" \
	    --write-root "$root" -- true
	expect_grep "--write-root $root: says why and what to do instead" \
	    "$TMP/err" "package manager's state: root's apt and dpkg would trust .*give apt its own state in the workspace"
done
if [ "$(ls /var/lib/apt/lists 2>/dev/null | sort | cksum)" = "$host_lists_before" ] &&
    [ "$(ls /var/cache/apt/archives 2>/dev/null | sort | cksum)" = "$host_archives_before" ] &&
    ! ls /var/lib/apt/lists | grep -q 'repo.harn.test'; then
	ok "the host's apt lists and archives are as they were"
else
	not_ok "the host's apt lists and archives are as they were" \
	    "$(ls /var/lib/apt/lists | grep repo.harn.test)"
fi
finish
