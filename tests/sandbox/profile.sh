#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run mode's sandbox (SPEC 6), the profiles and doctor, and the odd ones
# (a workspace in $HOME, hard links).
# The probe, the controls and the passes (root, nobody, landlock):
# tests/sandbox/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/profile.sh
# HARN_EGRESSD=/path/to/binary overrides the binary under test.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/sandbox/lib.sh"

# ------------------------------------------------------------------ profiles

doctor_checks() {
	# shellcheck disable=SC2086
	run_out "$TMP/doctor.out" $LAUNCH "$EGRESSD" doctor --json
	if [ "$RC" -eq 0 ] && $PY -S -c '
import json, sys
d = json.load(open(sys.argv[1]))
missing = [k for k in ("landlock_abi", "seccomp", "mechanisms", "confinements", "profiles", "limits") if k not in d]
missing += [m for m in ("linux_namespaces", "linux_landlock", "linux_seccomp") if "attaches" not in d.get("mechanisms", {}).get(m, {})]
missing += [c for c in ("namespaces", "landlock") if "attaches" not in d.get("confinements", {}).get(c, {})]
missing += [p for p in ("os_hardened", "worktree") if "process_network_mode" not in d.get("profiles", {}).get(p, {})]
sys.exit(1 if missing else 0)' "$TMP/doctor.out" 2>/dev/null; then
		ok "doctor --json: mechanisms, confinements, profiles and limits"
	else
		not_ok "doctor --json: mechanisms, confinements, profiles and limits" \
		    "exit $RC: $(head -c 400 "$TMP/doctor.out")"
	fi
	# Per confinement, what this pass should find (tried, not guessed).
	want_ns=true
	[ "$CONF" = landlock ] && want_ns=false
	got=$($PY -S -c '
import json, sys
d = json.load(open(sys.argv[1]))["confinements"]
print("%s %s" % (str(d["namespaces"]["attaches"]).lower(), str(d["landlock"]["attaches"]).lower()))' "$TMP/doctor.out" 2>/dev/null)
	if [ "$got" = "$want_ns true" ]; then
		ok "doctor: namespaces attaches: $want_ns, landlock attaches: true"
	else
		not_ok "doctor: namespaces $want_ns, landlock true" "got: $got"
	fi
	# Its answer and a real run's never disagree.
	for prof in worktree os_hardened; do
		dc=$($PY -S -c '
import json, sys
print(json.load(open(sys.argv[1]))["profiles"][sys.argv[2]]["confinement"])' "$TMP/doctor.out" "$prof" 2>/dev/null)
		rm -f "$TMP/doc-run.json"
		run_out "$TMP/box.out" box --profile "$prof" --attest "$TMP/doc-run.json" -- true
		rc=$($PY -S -c '
import json, sys
print(json.load(open(sys.argv[1]))["sandbox"]["confinement"])' "$TMP/doc-run.json" 2>/dev/null)
		if [ -n "$dc" ] && [ "$dc" = "$rc" ]; then
			ok "doctor and a real run agree ($prof: $dc)"
		else
			not_ok "doctor and a real run agree ($prof)" \
			    "doctor: '$dc', the run's report: '$rc'" "$(head -c 300 "$TMP/box.out")"
		fi
	done
	# shellcheck disable=SC2086
	run_out "$TMP/doctor.out" $LAUNCH "$EGRESSD" doctor
	if [ "$RC" -eq 0 ] && grep -q '^confinements (a trial run of each):' "$TMP/doctor.out"; then
		ok "doctor: prints what the host can enforce, per confinement"
	else
		not_ok "doctor: prints what the host can enforce, per confinement" \
		    "exit $RC: $(head -c 300 "$TMP/doctor.out")"
	fi
}

# Profiles where neither confinement attaches: a default Docker container
# (no namespaces) on a kernel without Landlock (HARN_EGRESSD_LANDLOCK_ABI=0
# has harn-egressd take it as absent).  os_hardened must refuse with a
# record naming both confinements and run nothing; worktree must run and
# say each thing it could not enforce, once.
profile_checks() {
	# The pass's own: without a confinement a root caller's command is
	# root without capabilities, which another uid's 0700 would stop.
	PW=$TMP/prof-ws
	mkdir -p "$PW"
	chmod 700 "$PW"
	rm -f "$PW/hardened-ran" "$PW/worktree-ran"
	run_out "$TMP/prof.out" env HOME="$H" HARN_EGRESSD_LANDLOCK_ABI=0 \
	    "$TMP/dockerish" -- "$EGRESSD" --policy "$POL" \
	    --profile os_hardened --workspace "$PW" -- sh -c ': > hardened-ran'
	if [ "$RC" -eq 3 ] && [ ! -e "$PW/hardened-ran" ]; then
		ok "os_hardened, no namespaces and no Landlock: exit 3, nothing ran"
	else
		not_ok "os_hardened, no namespaces and no Landlock: exit 3, nothing ran" \
		    "exit $RC: $(head -c 600 "$TMP/prof.out")"
	fi
	expect_grep "os_hardened refusal record names the missing mechanism" \
	    "$TMP/prof.out" '"schema":"harn.process.sandbox_refusal.v1"'
	expect_grep "refusal record: a kernel mechanism that cannot attach" \
	    "$TMP/prof.out" '"sandbox_mechanism":\{[^}]*"availability":"(entry_point_cannot_attach|absent_on_host)"[^}]*"mechanism":"linux_(namespaces|seccomp|landlock)"'
	expect_grep "refusal record: reason unsupported_fail_closed" \
	    "$TMP/prof.out" '"reason":"unsupported_fail_closed"'
	expect_grep "refusal record: confinements_tried names both" \
	    "$TMP/prof.out" '"confinements_tried":\[\{[^]]*"confinement":"namespaces"[^]]*"confinement":"landlock"'
	run_out "$TMP/prof.out" env HOME="$H" HARN_EGRESSD_LANDLOCK_ABI=0 \
	    "$TMP/dockerish" -- "$EGRESSD" --policy "$POL" \
	    --profile worktree --workspace "$PW" -- sh -c ': > worktree-ran'
	if [ "$RC" -eq 0 ] && [ -e "$PW/worktree-ran" ]; then
		ok "worktree, no namespaces and no Landlock: runs"
	else
		not_ok "worktree, no namespaces and no Landlock: runs" \
		    "exit $RC: $(head -c 600 "$TMP/prof.out")"
	fi
	expect_grep "worktree says what it could not enforce" "$TMP/prof.out" \
	    '^harn-egressd: sandbox: not enforced: network confinement \('
	n=$(grep -c '^harn-egressd: sandbox: not enforced: landlock (' "$TMP/prof.out")
	if [ "$n" -eq 1 ]; then
		ok "worktree says each thing it could not enforce once (landlock: once)"
	else
		not_ok "worktree says each thing it could not enforce once" \
		    "landlock said $n times: $(head -c 600 "$TMP/prof.out")"
	fi
	rm -rf "$PW"
}

misc_checks() {
	# A workspace inside $HOME is writable, though $HOME is not.
	mkdir -p "$H/proj/.bin"
	cp "$ESC" "$H/proj/.bin/escape"
	rm -f "$H/proj/new.txt"
	run_out "$TMP/box.out" env HOME="$H" "$EGRESSD" --policy "$POL" \
	    --workspace "$H/proj" -- "$H/proj/.bin/escape" write "$H/proj/new.txt"
	if [ "$RC" -eq 10 ] && [ -s "$H/proj/new.txt" ]; then
		ok "a workspace inside \$HOME is writable"
	else
		not_ok "a workspace inside \$HOME is writable" "exit $RC: $(first_line "$TMP/box.out")"
	fi
	rm -rf "$H/proj"
	# A host process of the same user: killable unconfined, not confined.
	sleep 30 &
	kp=$!
	esc direct "SIGKILL a host process of the same user" kill-pid "$kp"
	kill "$kp" 2>/dev/null
	# harn-egressd killed: nothing of the command's survives it.
	dur=3002.$$$(id -u)
	rm -f "$WS/started"
	# Its private directory (landlock) in one of ours: not left in /tmp.
	mkdir -p "$TMP/killed" && chmod 755 "$TMP/killed"
	BOX_TMPDIR=$TMP/killed
	box_exec -- sh -c "sleep $dur & echo up > started; wait" >/dev/null 2>&1 &
	hp=$!
	BOX_TMPDIR=""
	if wait_file "$WS/started" 50 "$hp"; then
		kill -KILL "$hp"
		sleep 0.5
		if pgrep -f "^sleep $dur\$" >/dev/null; then
			not_ok "harn-egressd killed: the command's processes end too" \
			    "$(pgrep -af "^sleep $dur\$")"
			pkill -f "^sleep $dur\$"
		else
			ok "harn-egressd killed: the command's processes end too"
		fi
	else
		not_ok "harn-egressd killed: the command started"
		kill -KILL "$hp" 2>/dev/null
	fi
	# A symlink an earlier command left in the workspace as .harn-tmp
	# (where earlier versions put TMPDIR) leads nowhere: nothing of the
	# run's goes through it.
	mkdir -p "$TMP/planted-target"
	ln -sfn "$TMP/planted-target" "$WS/.harn-tmp"
	run_out "$TMP/box.out" box -- sh -c 'echo x > "$TMPDIR/f"'
	if [ "$RC" -eq 0 ] && [ -z "$(ls -A "$TMP/planted-target")" ]; then
		ok "a symlink left as .harn-tmp: not followed, TMPDIR is elsewhere"
	else
		not_ok "a symlink left as .harn-tmp: not followed, TMPDIR is elsewhere" \
		    "exit $RC: $(head -c 300 "$TMP/box.out")"
	fi
	rm -f "$WS/.harn-tmp"
	# A writable root that holds the system would make the command its owner.
	rm -f "$WS/sys.mark"
	run_out "$TMP/box.out" env HOME="$H" "$EGRESSD" --policy "$POL" \
	    --workspace / -- sh -c "echo ran > '$WS/sys.mark'"
	if [ "$RC" -eq 2 ] && [ ! -e "$WS/sys.mark" ] &&
	    grep -q 'a system directory' "$TMP/box.out"; then
		ok "--workspace /: a usage error, nothing ran"
	else
		not_ok "--workspace /: a usage error, nothing ran" "exit $RC: $(first_line "$TMP/box.out")"
	fi
	run_out "$TMP/box.out" box --write-root /usr -- true
	[ "$RC" -eq 2 ] && ok "--write-root /usr: a usage error" ||
	    not_ok "--write-root /usr: a usage error" "exit $RC"
	# A denied file with another hard link: said, and refused by os_hardened.
	echo "linked $SECRET" >"$WS/linked.env"
	ln "$WS/linked.env" "$WS/linked-copy"
	run_out "$TMP/box.out" box --read-deny-root "$WS/linked.env" -- true
	expect_grep "a denied file with another hard link is said" "$TMP/box.out" \
	    'not enforced: denied file .*linked.env has 2 hard links'
	run_out "$TMP/box.out" box --profile os_hardened --read-deny-root \
	    "$WS/linked.env" -- true
	[ "$RC" -eq 3 ] && ok "os_hardened refuses a denied file with other hard links" ||
	    not_ok "os_hardened refuses a denied file with other hard links" "exit $RC"
	rm -f "$WS/linked.env" "$WS/linked-copy"
}

sandbox_suite profile profile_checks doctor_checks misc_checks
