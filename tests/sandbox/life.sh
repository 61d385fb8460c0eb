#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run mode's sandbox (SPEC 6), a run's life: exit statuses, signals,
# profiles, doctor, and the odd ones (a workspace in $HOME, hard links).
# The probe, the controls and the passes (root, nobody, landlock):
# tests/sandbox/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/life.sh
# HARN_EGRESSD=/path/to/binary overrides the binary under test.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/sandbox/lib.sh"

# ------------------------------------------------------------------ lifecycle

life_checks() {
	run_out "$TMP/box.out" box -- sh -c 'exit 7'
	[ "$RC" -eq 7 ] && ok "exit status: 7 passes through" ||
	    not_ok "exit status: 7 passes through" "exit $RC"
	run_out "$TMP/box.out" box -- sh -c 'kill -TERM $$'
	[ "$RC" -eq 143 ] && ok "exit status: SIGTERM is 143" ||
	    not_ok "exit status: SIGTERM is 143" "exit $RC"
	run_out "$TMP/box.out" box -- harn-no-such-command-xyz
	[ "$RC" -eq 127 ] && ok "exit status: command not found is 127" ||
	    not_ok "exit status: command not found is 127" "exit $RC"
	run_out "$TMP/box.out" box -- "$WS/noexec.sh"
	[ "$RC" -eq 126 ] && ok "exit status: not executable is 126" ||
	    not_ok "exit status: not executable is 126" "exit $RC"
	rm -f "$WS/nochild.mark"
	run_out "$TMP/box.out" env HOME="$H" "$EGRESSD" --policy "$POL" \
	    --workspace "$TMP/no-such-workspace" --write-root "$WS" -- \
	    sh -c "echo ran > '$WS/nochild.mark'"
	if [ "$RC" -eq 2 ] && [ ! -e "$WS/nochild.mark" ]; then
		ok "a workspace that does not exist: exit 2, no child"
	else
		not_ok "a workspace that does not exist: exit 2, no child" "exit $RC"
	fi
	rm -f "$WS/nochild.mark"
	run_out "$TMP/box.out" box --read-only-root "$H/ok.txt" -- \
	    sh -c "echo ran > nochild.mark"
	if [ "$RC" -eq 2 ] && [ ! -e "$WS/nochild.mark" ]; then
		ok "--read-only-root on a file: exit 2, no child"
	else
		not_ok "--read-only-root on a file: exit 2, no child" "exit $RC"
	fi

	# SIGTERM to harn-egressd reaches the command.
	rm -f "$WS/term.mark" "$WS/ready.mark"
	box_exec -- sh -c 'trap "echo term > term.mark; exit 0" TERM; echo > ready.mark; sleep 30 & wait' \
	    >"$TMP/term.out" 2>&1 &
	hp=$!
	if wait_file "$WS/ready.mark" 50; then
		t0=$(now_ms)
		kill -TERM "$hp"
		if wait_gone "$hp" 50; then
			wait "$hp"
			trc=$?
			ok "SIGTERM: harn-egressd exits promptly ($(($(now_ms) - t0)) ms, exit $trc)"
		else
			not_ok "SIGTERM: harn-egressd exits promptly" "still running after 5 s"
			kill -9 "$hp" 2>/dev/null
		fi
		if [ -s "$WS/term.mark" ]; then
			ok "SIGTERM is forwarded to the command (its trap ran)"
		else
			not_ok "SIGTERM is forwarded to the command (its trap ran)" \
			    "$(head -c 300 "$TMP/term.out")"
		fi
	else
		not_ok "SIGTERM: the command starts" "$(head -c 300 "$TMP/term.out")"
		kill -9 "$hp" 2>/dev/null
	fi

	# A background process does not outlive the run.  The duration is
	# unique to this run, so pgrep finds only ours.
	dur=3000.$$$(id -u)
	cpid=$(sh -c "sleep $dur >/dev/null 2>&1 & echo \$!")
	sleep 0.1
	if pgrep -f "^sleep $dur\$" >/dev/null; then
		ok "control: an unconfined 'sleep $dur &' outlives its shell"
	else
		not_ok "control: an unconfined 'sleep $dur &' outlives its shell" \
		    "pgrep does not see it"
	fi
	kill "$cpid" 2>/dev/null
	dur=3001.$$$(id -u)
	run_out "$TMP/box.out" box -- sh -c "sleep $dur & exit 0"
	sleep 0.2
	left=$(pgrep -f "^sleep $dur\$")
	if [ -n "$left" ]; then
		not_ok "no 'sleep $dur' left after harn-egressd returns" \
		    "pids: $left"
		# shellcheck disable=SC2086
		kill $left 2>/dev/null
	else
		ok "no 'sleep $dur' left after harn-egressd returns (exit $RC)"
	fi

	# Every decision line carries the run id.
	if [ -s "$TMP/decisions.log" ]; then
		n=$(grep -c . "$TMP/decisions.log")
		bad=$(grep -cvE '"run":"[0-9a-f]{32}"' "$TMP/decisions.log")
		if [ "$bad" -eq 0 ]; then
			ok "decision log: all $n lines carry \"run\":\"<32 hex>\""
		else
			not_ok "decision log: every line carries \"run\"" \
			    "$bad of $n lines without it" "$(grep -vE '"run":"[0-9a-f]{32}"' "$TMP/decisions.log" | head -2)"
		fi
	else
		not_ok "decision log: written in run mode" "$TMP/decisions.log is empty"
	fi
}

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

sandbox_suite life life_checks profile_checks doctor_checks misc_checks
