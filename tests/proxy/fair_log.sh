#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A decision-log reader that falls behind refuses no one (issue 33 item 5,
# SPEC 5 log_unavailable and log_wait).  The proxy's `--log -` goes into a
# pipe read by the test's own reader (tests/proxy/fairlog.py): a fast one,
# and one at 80 KB/s.  A burst of requests, refused ones included, while a
# legitimate client makes one CONNECT every 0.2 s: with the fast reader no
# request gets 503; with the slow one the legitimate client is answered
# during the burst and after it within log_wait (1 s) + 1 s, never refused
# for tens of seconds; each answered CONNECT has its line; the refusals
# the log could not take in time are counted in "unlogged" lines whose
# counts add up.  Bounded: about 25 s a pass.  Then again as nobody.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/fair_log.sh
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"

FL="$top_srcdir/tests/proxy/fairlog.py"
BOUND_MS=2000

# fl_start NAME RATE [PIPE_BYTES]: the proxy with --log - (its stderr) into
# a fifo read at RATE bytes a second (0: at once), copied to
# $TMP/NAME.copy; sets PX_PID, PX_PORT, FL_RDR.
fl_start() {
	fname=$1 frate=$2
	rm -f "$TMP/$fname.fifo" "$TMP/$fname.port"
	mkfifo "$TMP/$fname.fifo"
	$PY "$FL" reader --rate "$frate" --out "$TMP/$fname.copy" \
	    --pipe-size "${3:-0}" <"$TMP/$fname.fifo" &
	FL_RDR=$!
	BG_PIDS="$BG_PIDS $FL_RDR"
	"$EGRESSD" --policy "$TMP/fl.conf" --listen 127.0.0.1:0 \
	    --port-file "$TMP/$fname.port" --log - \
	    >"$TMP/$fname.stdout" 2>"$TMP/$fname.fifo" &
	PX_PID=$!
	BG_PIDS="$BG_PIDS $PX_PID"
	PX_PORT=""
	if wait_file "$TMP/$fname.port" 50 "$PX_PID"; then
		PX_PORT=$(head -n1 "$TMP/$fname.port")
		return 0
	fi
	not_ok "$fname: the proxy with --log - starts"
	return 1
}

# fl_stop: SIGTERM, then the reader takes the rest to EOF (bounded).
fl_stop() {
	kill -TERM "$PX_PID" 2>/dev/null
	wait_gone "$PX_PID" 100 || kill -KILL "$PX_PID" 2>/dev/null
	wait_gone "$FL_RDR" 600 || kill "$FL_RDR" 2>/dev/null
}

# group NAME: that line of the load's output.
group() {
	grep "^$1 " "$TMP/fl.out"
}

# no_refusal NAME: every answer in group NAME is 200 (and there are some).
no_refusal() {
	group "$1" | grep -Eq '^[a-z-]+ n=[1-9][0-9]* 200=[0-9]+ p50'
}

# within NAME MS: the group's slowest answer took under MS.
within() {
	m=$(group "$1" | sed 's/.* max=\([0-9]*\).*/\1/')
	[ -n "$m" ] && [ "$m" -lt "$2" ]
}

# A reader that keeps up (200 KB/s, more than the burst writes), on a
# pipe of one page: a burst fills it for a moment, again and again.
area_fast() {
	fl_start fast 200000 4096 || return 0
	$PY "$FL" load --proxy "$PX_PORT" --origin "$ORIGIN" --seconds 4 \
	    --after 1 --allowed 32 --attackers 16 >"$TMP/fl.out" 2>&1
	if no_refusal allowed && no_refusal legit-during &&
	    no_refusal legit-after; then
		ok "fast reader: a burst of 32 clients (16 more refused): no 503 ($(group allowed))"
	else
		not_ok "fast reader: a burst of 32 clients (16 more refused): no 503" \
		    "$(cat "$TMP/fl.out")"
	fi
	echo "# fast reader: $(group legit-during)"
	fl_stop
}

area_slow() {
	fl_start slow 80000 || return 0
	$PY "$FL" load --proxy "$PX_PORT" --origin "$ORIGIN" --seconds 8 \
	    --after 4 --allowed 8 --attackers 32 >"$TMP/fl.out" 2>&1
	echo "# slow reader (80 KB/s): $(group legit-during)"
	echo "# slow reader (80 KB/s): $(group legit-after)"
	echo "# slow reader (80 KB/s): $(group allowed); $(group refused)"
	if no_refusal legit-during && within legit-during "$BOUND_MS"; then
		ok "slow reader: during the burst every legitimate CONNECT answered 200 within $BOUND_MS ms"
	else
		not_ok "slow reader: during the burst every legitimate CONNECT answered 200 within $BOUND_MS ms" \
		    "$(cat "$TMP/fl.out")"
	fi
	if no_refusal legit-after && within legit-after "$BOUND_MS"; then
		ok "slow reader: after the burst every legitimate CONNECT answered 200 within $BOUND_MS ms"
	else
		not_ok "slow reader: after the burst every legitimate CONNECT answered 200 within $BOUND_MS ms" \
		    "$(cat "$TMP/fl.out")"
	fi
	fl_stop
	answered=0
	for g in legit-during legit-after allowed; do
		n=$(group "$g" | sed -n 's/.* 200=\([0-9]*\).*/\1/p')
		answered=$((answered + ${n:-0}))
	done
	if $PY "$FL" check "$TMP/slow.copy" >"$TMP/flc.out" 2>&1; then
		ok "slow reader: every line whole, the unlogged counts add up ($(cat "$TMP/flc.out"))"
	else
		not_ok "slow reader: every line whole, the unlogged counts add up" \
		    "$(tail -c 800 "$TMP/flc.out")"
	fi
	allow=$(sed -n 's/.* allow=\([0-9]*\).*/\1/p' "$TMP/flc.out")
	if [ "${allow:-0}" -ge "$answered" ] && [ "$answered" -gt 0 ]; then
		ok "slow reader: each of the $answered CONNECTs answered 200 has its line ($allow allow lines)"
	else
		not_ok "slow reader: each CONNECT answered 200 has its line" \
		    "answered $answered, allow lines ${allow:-none}"
	fi
	unl=$(sed -n 's/.* unlogged=\([0-9]*\).*/\1/p' "$TMP/flc.out")
	if [ "${unl:-0}" -gt 0 ] &&
	    grep -q '"event":"unlogged","count":[0-9]*,"reasons":{[^}]*"no_allow_rule":' "$TMP/slow.copy"; then
		ok "slow reader: the refusals the log could not take in time are counted in $(grep -c '"event":"unlogged"' "$TMP/slow.copy") line(s) ($unl refusals)"
	else
		not_ok "slow reader: the refusals the log could not take in time are counted" \
		    "unlogged ${unl:-none}" "$(grep -v '^{' "$TMP/slow.copy" | head -5)"
	fi
	PX_LOGS="$PX_LOGS $TMP/slow.copy"
}

# The logs here are --log - (stderr): audit reads only the decision lines.
PX_REASONS="allow_rule no_allow_rule"
PX_PROTOCOLS="http http_connect"
if [ -z "${HARN_FAIRLOG_PASS:-}" ] && [ "$(id -u)" = 0 ] &&
    id nobody >/dev/null 2>&1; then
	FL_NOBODY=1
fi
setup_fixture
policy_main >"$TMP/fl.conf"
area_fast
area_slow
for l in $PX_LOGS; do
	grep -v '^harn-egressd: ' "$l" >"$l.lines"
done
PX_LOGS=$(for l in $PX_LOGS; do printf '%s.lines ' "$l"; done)
area_audit
if [ -n "${FL_NOBODY:-}" ]; then
	nobody_pass proxy/fair_log HARN_FAIRLOG_PASS \
	    "$top_srcdir/tests/proxy/lib.sh" "$top_srcdir/tests/proxy/fairlog.py" \
	    "$top_srcdir/tests/pyhelpers.py" "$top_srcdir/tests/dnsd.py"
fi
finish
