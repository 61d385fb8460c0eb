#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The proxy in service mode (SPEC 2, 3, 4, 5): the decision log: its
# lines, their order, rotation, a failing log, and no secrets in it.
# The fixture (DNS, origins, canaries) and the run: tests/proxy/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/proxy/log.sh
# PROXY_AREAS="AREA..." runs only those.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/proxy/lib.sh"

# Exactly one record per request, the expected reasons, in order.
area_dlog() {
	policy_main >"$TMP/dl.conf"
	start_proxy dl "$TMP/dl.conf" || return 0
	DP=$PX_PORT
	DPID=$PX_PID
	O=$ORIGIN
	CURL -x "http://127.0.0.1:$DP" -o /dev/null "http://good.test:$O/" 2>/dev/null
	raw "$DP" "GET http://nope.test/ HTTP/1.1\r\nHost: nope.test\r\n\r\n"
	raw "$DP" "CONNECT blocked.test:443 HTTP/1.1\r\nHost: blocked.test:443\r\n\r\n"
	socks "$DP" --host gone.test --dport 80
	raw "$DP" "GET http://2130706433:$O/ HTTP/1.1\r\nHost: 2130706433:$O\r\n\r\n"
	raw "$DP" "FOO\r\n\r\n"
	socks "$DP" --cmd 2 --host good.test --dport "$O"
	raw "$DP" "CONNECT a..b:443 HTTP/1.1\r\nHost: a..b:443\r\n\r\n"
	socks "$DP" --host refused.test --dport "$CLOSED"
	raw "$DP" "GET http://good.test:$DP/ HTTP/1.1\r\nHost: good.test:$DP\r\n\r\n"
	raw "$DP" "GET http://private.test/ HTTP/1.1\r\nHost: private.test\r\n\r\n"
	raw "$DP" "GET http://meta.test/ HTTP/1.1\r\nHost: meta.test\r\n\r\n"
	raw "$DP" "GET https://good.test/ HTTP/1.1\r\nHost: good.test\r\n\r\n"
	CURL -k -p -x "http://127.0.0.1:$DP" -o /dev/null "https://tls.test:$TLS/" 2>/dev/null
	socks "$DP" --atyp 1 --host 127.0.0.2 --dport "$O"
	raw "$DP" "GET http://GOOD.TEST.:$O/ HTTP/1.0\r\n\r\n"
	raw "$DP" "GET http://good.test:$O/ HTTP/1.1\r\nHost: good.test:$O\r\nX-Big: $(printf '%03000d' 0)\r\n\r\n"
	socks "$DP" --atyp 1 --host 127.0.0.1 --dport "$O"
	raw "$DP" "GET http://0x7f.1:$O/ HTTP/1.0\r\n\r\n"
	socks "$DP" --cmd 3 --atyp 1 --host 0.0.0.0 --dport 0
	$PY "$H" abort --proxy "$DP" --after 0.1 \
	    "GET http://slow.test/ HTTP/1.1\r\nHost: slow.test\r\n\r\n" 2>/dev/null
	# Its client left; it is decided at dns_timeout all the same, before
	# the next request (the records are checked in order).
	wait_grep "$TMP/dl.log" '"host":"slow.test"' 50 || true
	raw "$DP" "GET http://good.test:$O/k1 HTTP/1.1\r\nHost: good.test:$O\r\n\r\n" \
	    "GET http://nope.test:$O/k2 HTTP/1.1\r\nHost: nope.test:$O\r\n\r\n"
	raw "$DP" "CONNECT [0:0:0::1]:$O HTTP/1.1\r\n\r\n"
	raw "$DP" 'CONNECT a"b\\c:443 HTTP/1.1\r\n\r\n'
	raw "$DP" 'CONNECT a\x01b:443 HTTP/1.1\r\n\r\n'
	raw "$DP" 'CONNECT b\xfccher.test:443 HTTP/1.1\r\n\r\n'
	socks "$DP" --host 'x"y\\z\x7f' --dport 80
	stop_proxy dl "$DPID"
	$PY "$H" logcheck "$TMP/dl.log" \
	    --expect "http|good.test|$O|allow|allow_rule|127.0.0.1" \
	    --expect "http|nope.test|80|deny|no_allow_rule|" \
	    --expect "http_connect|blocked.test|443|deny|deny_rule|" \
	    --expect "socks5|gone.test|80|deny|dns_failure|" \
	    --expect "http|127.0.0.1|$O|deny|no_allow_rule|127.0.0.1" \
	    --expect "http||0|deny|invalid_request|" \
	    --expect "socks5|*|*|deny|unsupported_command|" \
	    --expect "http_connect,http|*|*|deny|invalid_target|" \
	    --expect "socks5|refused.test|$CLOSED|deny|connect_failed|127.0.0.1" \
	    --expect "http|good.test|$DP|deny|proxy_loop|127.0.0.1" \
	    --expect "http|private.test|80|deny|private_address|10.0.0.1" \
	    --expect "http|meta.test|80|deny|metadata_address|169.254.169.254" \
	    --expect "http|*|*|deny|invalid_request|" \
	    --expect "http_connect|tls.test|$TLS|allow|allow_rule|127.0.0.1" \
	    --expect "socks5|127.0.0.2|$O|deny|deny_rule|127.0.0.2" \
	    --expect "http|good.test|$O|allow|allow_rule|127.0.0.1" \
	    --expect "http|*|*|deny|invalid_request|" \
	    --expect "socks5|127.0.0.1|$O|deny|no_allow_rule|127.0.0.1" \
	    --expect "http|127.0.0.1|$O|deny|no_allow_rule,invalid_target|127.0.0.1," \
	    --expect "socks5|*|*|deny|unsupported_command|" \
	    --expect "http|slow.test|80|deny|*|" \
	    --expect "http|good.test|$O|allow|allow_rule|127.0.0.1" \
	    --expect "http|nope.test|$O|deny|no_allow_rule|" \
	    --expect "http_connect|::1|$O|deny|no_allow_rule|::1" \
	    --expect "http_connect,http|*|*|deny|invalid_target,invalid_request|" \
	    --expect "http_connect,http|*|*|deny|invalid_target,invalid_request|" \
	    --expect "http_connect,http|*|*|deny|invalid_target,invalid_request|" \
	    --expect "socks5|*|*|deny|invalid_target|" \
	    >"$TMP/lc.out" 2>&1
	if [ $? -eq 0 ]; then
		ok "dlog: one well-formed record per request, reasons as expected"
	else
		not_ok "dlog: one well-formed record per request, reasons as expected" \
		    "$(head -c 2500 "$TMP/lc.out")"
	fi
	if [ "$STOP_RC" -eq 0 ]; then ok "dlog: SIGTERM exit 0"; else
		not_ok "dlog: SIGTERM exit 0" "exit $STOP_RC"; fi
	if [ -s "$TMP/dl.stderr" ] && grep -q '"decision"' "$TMP/dl.stderr"; then
		not_ok "dlog: with --log FILE, no decision on stderr" "$(head -3 "$TMP/dl.stderr")"
	else
		ok "dlog: with --log FILE, no decision on stderr"
	fi
	# --log appends.
	printf '%s\n' "$(head -n1 "$TMP/dl.log")" >"$TMP/app.log"
	cp "$TMP/app.log" "$TMP/app.first"
	policy_main >"$TMP/app.conf"
	if start_proxy app "$TMP/app.conf"; then
		raw "$PX_PORT" "GET http://nope.test/ HTTP/1.1\r\nHost: nope.test\r\n\r\n"
		stop_proxy app "$PX_PID"
		if [ "$(wc -l <"$TMP/app.log")" -eq 2 ] &&
		    [ "$(head -n1 "$TMP/app.log")" = "$(cat "$TMP/app.first")" ]; then
			ok "dlog: --log appends"
		else
			not_ok "dlog: --log appends" "$(cat "$TMP/app.log")"
		fi
	fi
}

# The decision line before the answer (issue 22): a line is handed to the
# kernel before anything its decision answers or lets through is sent.  A
# proxy SIGKILLed right after a burst (refusals, CONNECT, forwarding,
# SOCKS5, each to a host of its own) leaves no answered request without
# its line, with a file log and with --log - on a pipe; a log file
# deleted mid-run leaves none either: from then on requests are refused
# log_unavailable.
area_logorder() {
	{ policy_main; echo "allow *.burst.test"; } >"$TMP/lo.conf"
	for nc in 20:1 2000:16 10000:32; do
		n=${nc%:*} c=${nc#*:}
		start_proxy "lo$n" "$TMP/lo.conf" || continue
		$PY "$H" logburst --proxy "$PX_PORT" --n "$n" --c "$c" \
		    --port "$ORIGIN" --allow-domain burst.test \
		    --log "$TMP/lo$n.log" --kill "$PX_PID" >"$TMP/lo.out" 2>&1
		if [ $? -eq 0 ]; then
			ok "log order: SIGKILL after $n answers (c=$c): each has its line ($(head -n1 "$TMP/lo.out"))"
		else
			not_ok "log order: SIGKILL after $n answers (c=$c): each has its line" \
			    "$(head -c 600 "$TMP/lo.out")"
		fi
		wait "$PX_PID" 2>/dev/null
	done

	# --log -: stderr, a pipe to a reader that writes a file.
	rm -f "$TMP/lo.fifo" "$TMP/lopipe.port"
	mkfifo "$TMP/lo.fifo"
	cat "$TMP/lo.fifo" >"$TMP/lopipe.log" &
	rdr=$!
	BG_PIDS="$BG_PIDS $rdr"
	"$EGRESSD" --policy "$TMP/lo.conf" --listen 127.0.0.1:0 \
	    --port-file "$TMP/lopipe.port" --log - >/dev/null 2>"$TMP/lo.fifo" &
	ppid=$!
	BG_PIDS="$BG_PIDS $ppid"
	if wait_file "$TMP/lopipe.port" 50 "$ppid"; then
		$PY "$H" logburst --proxy "$(cat "$TMP/lopipe.port")" --n 2000 \
		    --c 16 --port "$ORIGIN" --allow-domain burst.test \
		    --log "$TMP/lopipe.log" --kill "$ppid" --reader "$rdr" \
		    >"$TMP/lo.out" 2>&1
		if [ $? -eq 0 ]; then
			ok "log order: --log - on a pipe, SIGKILL after 2000 answers: each has its line ($(head -n1 "$TMP/lo.out"))"
		else
			not_ok "log order: --log - on a pipe, SIGKILL after 2000 answers: each has its line" \
			    "$(head -c 600 "$TMP/lo.out")"
		fi
	else
		not_ok "log order: the proxy with --log - starts"
	fi
	kill "$ppid" "$rdr" 2>/dev/null
	wait "$ppid" "$rdr" 2>/dev/null

	# The log file deleted after 1000 answers, 3000 in all: each one
	# answered has its line (read through a descriptor held open), or
	# was refused log_unavailable.
	if start_proxy lodel "$TMP/lo.conf"; then
		$PY "$H" logburst --proxy "$PX_PORT" --n 3000 --c 16 \
		    --port "$ORIGIN" --allow-domain burst.test \
		    --log "$TMP/lodel.log" --delete-after 1000 >"$TMP/lo.out" 2>&1
		if [ $? -eq 0 ]; then
			ok "log order: the log deleted mid-run: every answer has its line or is log_unavailable ($(head -n1 "$TMP/lo.out"))"
		else
			not_ok "log order: the log deleted mid-run: every answer has its line or is log_unavailable" \
			    "$(head -c 600 "$TMP/lo.out")"
		fi
		stop_proxy lodel "$PX_PID"
	fi
}

# The decision log's faults (issue 12): the loop never waits on it, a
# line is whole or absent, every record it could not take is counted
# (stderr, the report's log.lost), and while it fails or is behind new
# requests are refused with 503 log_unavailable (log_failure_action
# refuse, the default) or served (serve).

# lf_get NAME PORT PATH: one allowed request; its status in $LF_STATUS.
lf_get() {
	LF_STATUS=$(curl -q -s --max-time 3 --noproxy '' -o /dev/null \
	    -D "$TMP/$1.hdr" -w '%{http_code}' -x "http://127.0.0.1:$2" \
	    "http://good.test:$ORIGIN/$3" 2>/dev/null)
}

# lf_report NAME: the report's log.lost and log.complete, "LOST COMPLETE".
lf_report() {
	$PY -c 'import json,sys; l=json.load(open(sys.argv[1]))["log"]; print(l["lost"], str(l["complete"]).lower())' \
	    "$TMP/$1.json" 2>/dev/null
}

# lf_whole FILE: every line of FILE is a whole JSON record.
lf_whole() {
	$PY -c '
import json, sys
d = open(sys.argv[1], "rb").read()
if d and not d.endswith(b"\n"):
    sys.exit("torn last line: %r" % d[-80:])
for i, ln in enumerate(d.splitlines()):
    try:
        json.loads(ln)
    except ValueError:
        sys.exit("line %d is not a record: %r" % (i + 1, ln[:120]))' "$1"
}

area_logfault() {
	# log_wait 0: a line the log cannot take at once is not waited for,
	# so these faults show at once (tests/proxy/fair_log.sh: the wait).
	{ policy_main; echo "log_wait 0ms"; } >"$TMP/lf.conf"
	{ policy_main; echo "log_failure_action serve"; } >"$TMP/lfs.conf"

	# A reader that stops: requests are still answered, SIGTERM works,
	# and what it never took is counted.
	rm -f "$TMP/stall.fifo"
	mkfifo "$TMP/stall.fifo"
	$PY -c 'import os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); time.sleep(30)' \
	    "$TMP/stall.fifo" &
	rdr=$!
	BG_PIDS="$BG_PIDS $rdr"
	if start_proxy stall "$TMP/lf.conf" --log "$TMP/stall.fifo" \
	    --attest "$TMP/stall.json"; then
		SP=$PX_PORT
		urls=$(i=0; while [ $i -lt 600 ]; do printf 'http://good.test:%s/s%d ' "$ORIGIN" $i; i=$((i + 1)); done)
		# shellcheck disable=SC2086
		curl -q -s --max-time 20 --noproxy '' -o /dev/null \
		    -x "http://127.0.0.1:$SP" $urls 2>/dev/null
		t0=$(now_ms)
		lf_get stall "$SP" after-stall
		t1=$(now_ms)
		if [ -n "$LF_STATUS" ] && [ "$LF_STATUS" != 000 ] &&
		    [ $((t1 - t0)) -lt 2000 ]; then
			ok "log reader stopped: a new request is answered ($LF_STATUS in $((t1 - t0)) ms)"
		else
			not_ok "log reader stopped: a new request is answered" \
			    "status '$LF_STATUS' after $((t1 - t0)) ms"
		fi
		t0=$(now_ms)
		stop_proxy stall "$PX_PID"
		t1=$(now_ms)
		if [ "$STOP_RC" -ne -1 ] && [ $((t1 - t0)) -lt 4000 ]; then
			ok "log reader stopped: SIGTERM ends the proxy ($((t1 - t0)) ms)"
		else
			not_ok "log reader stopped: SIGTERM ends the proxy" \
			    "rc $STOP_RC after $((t1 - t0)) ms"
		fi
		expect_grep "log reader stopped: the records not written are said" \
		    "$TMP/stall.stderr" '^harn-egressd: decision log: [0-9]+ records not written'
		set -- $(lf_report stall)
		if [ "${1:-0}" -gt 0 ] && [ "${2:-}" = false ]; then
			ok "log reader stopped: the report counts them (log.lost $1, complete false)"
		else
			not_ok "log reader stopped: the report counts them" "lost '${1:-}' complete '${2:-}'"
		fi
	fi
	kill "$rdr" 2>/dev/null

	# A reader that falls behind, then catches up: while the pipe is full
	# requests are refused (503 log_unavailable, at once: log_wait 0),
	# counted in one "unlogged" line written once it reads again; then
	# it is served, and nothing was lost.
	rm -f "$TMP/slow.fifo" "$TMP/slow.go"
	mkfifo "$TMP/slow.fifo"
	$PY -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
with open(sys.argv[3], "wb") as out:
    while True:
        d = os.read(fd, 65536)
        if not d:
            break
        out.write(d)
        out.flush()' "$TMP/slow.fifo" "$TMP/slow.go" "$TMP/slowcopy.log" &
	rdr=$!
	BG_PIDS="$BG_PIDS $rdr"
	if start_proxy slow "$TMP/lf.conf" --log "$TMP/slow.fifo" \
	    --attest "$TMP/slow.json"; then
		urls=$(i=0; while [ $i -lt 600 ]; do printf 'http://good.test:%s/w%d ' "$ORIGIN" $i; i=$((i + 1)); done)
		# shellcheck disable=SC2086
		curl -q -s --max-time 20 --noproxy '' -o /dev/null \
		    -x "http://127.0.0.1:$PX_PORT" $urls 2>/dev/null
		lf_get slow "$PX_PORT" while-behind
		if [ "$LF_STATUS" = 503 ] &&
		    grep -qi '^x-harn-egress-reason: log_unavailable' "$TMP/slow.hdr"; then
			ok "log reader behind: 503 log_unavailable"
		else
			not_ok "log reader behind: 503 log_unavailable" "status $LF_STATUS"
		fi
		: >"$TMP/slow.go"
		n=0
		while lf_get slow "$PX_PORT" caught-up &&
		    [ "$LF_STATUS" != 200 ] && [ $n -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		if [ "$LF_STATUS" = 200 ]; then
			ok "log reader behind: served again once it reads"
		else
			not_ok "log reader behind: served again once it reads" "status $LF_STATUS"
		fi
		stop_proxy slow "$PX_PID"
		wait "$rdr" 2>/dev/null
		set -- $(lf_report slow)
		if [ "${1:-}" = 0 ] && [ "${2:-}" = true ] &&
		    grep -Eq '"reason":"log_unavailable"|"event":"unlogged".*"log_unavailable":[1-9]' "$TMP/slowcopy.log" &&
		    lf_whole "$TMP/slowcopy.log" >"$TMP/whole.out" 2>&1; then
			ok "log reader behind: the refusals' lines came late, whole, none lost ($(grep -c log_unavailable "$TMP/slowcopy.log") of them)"
		else
			not_ok "log reader behind: the refusals' lines came late, whole, none lost" \
			    "lost '${1:-}' complete '${2:-}'" "$(cat "$TMP/whole.out")"
		fi
		PX_LOGS="$PX_LOGS $TMP/slowcopy.log"
	fi
	kill "$rdr" 2>/dev/null

	# A reader that goes away: refused from then on (503
	# log_unavailable), or, with log_failure_action serve, served.
	for pol in lf lfs; do
		rm -f "$TMP/gone.fifo"
		mkfifo "$TMP/gone.fifo"
		$PY -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.read(fd, 1)' \
		    "$TMP/gone.fifo" &
		rdr=$!
		BG_PIDS="$BG_PIDS $rdr"
		start_proxy gone "$TMP/$pol.conf" --log "$TMP/gone.fifo" \
		    --attest "$TMP/gone.json" || continue
		lf_get gone "$PX_PORT" g1
		wait "$rdr" 2>/dev/null
		# The next line meets the closed pipe: that request is refused.
		lf_get gone "$PX_PORT" g2
		g2=$LF_STATUS
		lf_get gone "$PX_PORT" g3
		if [ "$pol" = lf ]; then
			if [ "$g2" = 503 ] && [ "$LF_STATUS" = 503 ] &&
			    grep -qi '^x-harn-egress-reason: log_unavailable' "$TMP/gone.hdr"; then
				ok "log reader gone: 503 log_unavailable, from the first request after"
			else
				not_ok "log reader gone: 503 log_unavailable, from the first request after" \
				    "status $g2, then $LF_STATUS: $(head -c 300 "$TMP/gone.hdr")"
			fi
		elif [ "$g2" = 200 ] && [ "$LF_STATUS" = 200 ]; then
			ok "log reader gone, log_failure_action serve: served (200)"
		else
			not_ok "log reader gone, log_failure_action serve: served (200)" \
			    "status $LF_STATUS"
		fi
		stop_proxy gone "$PX_PID"
		expect_grep "log reader gone ($pol): said on stderr" "$TMP/gone.stderr" \
		    '^harn-egressd: decision log: Broken pipe; new requests are refused'
		set -- $(lf_report gone)
		if [ "${1:-0}" -gt 0 ]; then
			ok "log reader gone ($pol): log.lost $1 in the report"
		else
			not_ok "log reader gone ($pol): log.lost in the report" "lost '${1:-}'"
		fi
	done

	# The log file deleted: said, and refused.
	if start_proxy del "$TMP/lf.conf" --log "$TMP/del.log"; then
		lf_get del "$PX_PORT" d1
		rm -f "$TMP/del.log"
		lf_get del "$PX_PORT" d2
		d2=$LF_STATUS
		lf_get del "$PX_PORT" d3
		if [ "$d2" = 503 ] && [ "$LF_STATUS" = 503 ]; then
			ok "log file deleted: 503 log_unavailable, from the first request after"
		else
			not_ok "log file deleted: 503 log_unavailable, from the first request after" \
			    "status $d2, then $LF_STATUS"
		fi
		# SIGHUP opens a new file at the path: the very next request
		# is served, and its line is there.
		hup_wait "$PX_PID" "$TMP/del.stderr"
		lf_get del "$PX_PORT" d4
		if [ "$LF_STATUS" = 200 ] && grep -q '"decision":"allow"' "$TMP/del.log"; then
			ok "log file deleted, then SIGHUP: the next request served and logged"
		else
			not_ok "log file deleted, then SIGHUP: the next request served and logged" \
			    "status $LF_STATUS" "$(cat "$TMP/del.log" 2>&1)"
		fi
		stop_proxy del "$PX_PID"
		expect_grep "log file deleted: said on stderr" "$TMP/del.stderr" \
		    'decision log: the log file was deleted'
	fi

	# A full disk: no torn line, refused while full, writing again when
	# space is back, the loss counted.
	if [ "$(id -u)" -ne 0 ]; then
		skip "log on a full tmpfs: mounting one needs root"
		return 0
	fi
	FD=$TMP/fulldisk
	mkdir -p "$FD"
	if ! mount -t tmpfs -o size=64k tmpfs "$FD" 2>/dev/null; then
		skip "log on a full tmpfs: mount refused here"
		return 0
	fi
	head -c 57344 /dev/zero >"$FD/fill" 2>/dev/null
	if start_proxy full "$TMP/lf.conf" --log "$FD/full.log" \
	    --attest "$TMP/full.json"; then
		urls=$(i=0; while [ $i -lt 200 ]; do printf 'http://good.test:%s/f%d ' "$ORIGIN" $i; i=$((i + 1)); done)
		# shellcheck disable=SC2086
		curl -q -s --max-time 20 --noproxy '' -o /dev/null \
		    -x "http://127.0.0.1:$PX_PORT" $urls 2>/dev/null
		lf_get full "$PX_PORT" while-full
		if [ "$LF_STATUS" = 503 ]; then
			ok "log on a full disk: 503 log_unavailable"
		else
			not_ok "log on a full disk: 503 log_unavailable" "status $LF_STATUS"
		fi
		if lf_whole "$FD/full.log" >"$TMP/whole.out" 2>&1; then
			ok "log on a full disk: every line whole ($(wc -l <"$FD/full.log") lines)"
		else
			not_ok "log on a full disk: every line whole" "$(cat "$TMP/whole.out")"
		fi
		rm -f "$FD/fill"
		# Served again once a line goes in: up to 5 s.
		n=0
		while lf_get full "$PX_PORT" space-back &&
		    [ "$LF_STATUS" != 200 ] && [ $n -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		if [ "$LF_STATUS" = 200 ]; then
			ok "log on a full disk: space back, served again"
		else
			not_ok "log on a full disk: space back, served again" "status $LF_STATUS"
		fi
		stop_proxy full "$PX_PID"
		if lf_whole "$FD/full.log" >"$TMP/whole.out" 2>&1; then
			ok "log on a full disk: still every line whole after recovery"
		else
			not_ok "log on a full disk: still every line whole after recovery" \
			    "$(cat "$TMP/whole.out")"
		fi
		expect_grep "log on a full disk: said" "$TMP/full.stderr" \
		    'decision log: No space left on device; new requests are refused'
		expect_grep "log on a full disk: writing again, said" "$TMP/full.stderr" \
		    'decision log: writing again'
		# Held while the disk was full, written when space came back.
		set -- $(lf_report full)
		if [ "${1:-}" = 0 ] && [ "${2:-}" = true ]; then
			ok "log on a full disk: nothing lost once space came back (log.lost 0, complete)"
		else
			not_ok "log on a full disk: nothing lost once space came back" \
			    "lost '${1:-}' complete '${2:-}'"
		fi
	fi
	umount "$FD" 2>/dev/null
}

area_secrets() {
	policy_main >"$TMP/sec.conf"
	SECRET_ENV_VALUE=SECRET-ENV-7f3a
	export SECRET_ENV_VALUE
	start_proxy sec "$TMP/sec.conf" || { unset SECRET_ENV_VALUE; return 0; }
	unset SECRET_ENV_VALUE
	SP=$PX_PORT
	SPID=$PX_PID
	O=$ORIGIN
	pa=$(printf 'puser:SECRET-PROXYPASS-7f3a' | base64)
	ca=$(printf 'cuser:SECRET-CONNECTPASS-7f3a' | base64)
	ua=$(printf 'SECRET-USERINFO-7f3a:pw' | base64)
	CURL -x "http://puser:SECRET-PROXYPASS-7f3a@127.0.0.1:$SP" \
	    -H "Authorization: Bearer SECRET-AUTH-7f3a" -b "sid=SECRET-COOKIE-7f3a" \
	    -o "$TMP/b.out" "http://good.test:$O/SECRET-PATH-7f3a?q=SECRET-QUERY-7f3a" \
	    2>"$TMP/curl.err"
	same_body "secrets: request with planted secrets served" "$TMP/b.out" \
	    'hello from origin\n'
	CURL -x "http://puser:SECRET-PROXYPASS-7f3a@127.0.0.1:$SP" -o /dev/null \
	    "http://nope.test:$O/SECRET-DENIEDPATH-7f3a?SECRET-DENIEDQUERY-7f3a" \
	    2>/dev/null
	CURL -x "http://127.0.0.1:$SP" -o /dev/null \
	    -H "Cookie: SECRET-PRIVCOOKIE-7f3a" \
	    "http://private.test/SECRET-PRIVPATH-7f3a" 2>/dev/null
	CURL -x "http://127.0.0.1:$SP" -o /dev/null \
	    "http://SECRET-USERINFO-7f3a:pw@good.test:$O/x" 2>/dev/null
	raw "$SP" "GET http://SECRET-RAWUSER-7f3a:SECRET-RAWPASS-7f3a@good.test:$O/ HTTP/1.1\r\nHost: good.test:$O\r\n\r\n"
	raw "$SP" "CONNECT good.test:$O HTTP/1.1\r\nHost: good.test:$O\r\nProxy-Authorization: Basic $ca\r\n\r\n"
	raw "$SP" "GET http://good.test:$O/SECRET-BADLINE-7f3a HTTP/1.1 x\r\n\r\n"
	raw "$SP" "GET http://good.test:$O/SECRET-BIGPATH-7f3a HTTP/1.1\r\nX-Big: SECRET-BIGHDR-7f3a$(printf '%03000d' 0)\r\n\r\n"
	raw "$SP" "GET http://good.test:$O/SECRET-SLOWPATH-7f3a HTTP/1.1\r\nCookie: SECRET-SLOWCOOKIE-7f3a"
	raw "$SP" "POST http://good.test:$O/p HTTP/1.1\r\nHost: good.test:$O\r\nContent-Length: 19\r\n\r\nSECRET-BODY-7f3a..."
	raw "$SP" "POST http://good.test:$O/p HTTP/1.1\r\nHost: good.test:$O\r\nContent-Length: 19\r\nTransfer-Encoding: chunked\r\n\r\nSECRET-BADBODY-7f3a"
	raw "$SP" "GET http://good.test:$O/SECRET-HOSTMISMATCH-7f3a HTTP/1.1\r\nHost: other.test\r\n\r\n"
	stop_proxy sec "$SPID"
	for f in log stdout stderr; do
		found=""
		for s in SECRET-PATH-7f3a SECRET-QUERY-7f3a SECRET-AUTH-7f3a \
		    SECRET-COOKIE-7f3a SECRET-PROXYPASS-7f3a "$pa" \
		    SECRET-DENIEDPATH-7f3a SECRET-DENIEDQUERY-7f3a \
		    SECRET-PRIVCOOKIE-7f3a SECRET-PRIVPATH-7f3a \
		    SECRET-USERINFO-7f3a "$ua" SECRET-RAWUSER-7f3a SECRET-RAWPASS-7f3a \
		    SECRET-CONNECTPASS-7f3a "$ca" SECRET-BADLINE-7f3a \
		    SECRET-BIGPATH-7f3a SECRET-BIGHDR-7f3a SECRET-SLOWPATH-7f3a \
		    SECRET-SLOWCOOKIE-7f3a SECRET-BODY-7f3a SECRET-BADBODY-7f3a \
		    SECRET-HOSTMISMATCH-7f3a SECRET-ENV-7f3a 7f3a; do
			grep -Fq -- "$s" "$TMP/sec.$f" && found="$found $s"
		done
		if [ -z "$found" ]; then
			ok "secrets: none in the proxy's $f"
		else
			not_ok "secrets: none in the proxy's $f" "found:$found" \
			    "$(grep -F 7f3a "$TMP/sec.$f" | head -3 | cut -c1-300)"
		fi
	done
	if [ -s "$TMP/sec.log" ] && $PY "$H" logcheck "$TMP/sec.log" >"$TMP/lc.out" 2>&1; then
		ok "secrets: the log was written and is well-formed"
	else
		not_ok "secrets: the log was written and is well-formed" "$(cat "$TMP/lc.out")"
	fi
}

# Log rotation by rename (issue 13): SIGHUP reopens --log FILE; each line
# is written whole to exactly one file, and the report's digest covers
# the files joined in order.
area_rotate() {
	policy_main >"$TMP/rot.conf"
	start_proxy rot "$TMP/rot.conf" --attest "$TMP/rot.report" || return 0
	RP=$PX_PORT
	CURL -x "http://127.0.0.1:$RP" -o /dev/null "http://good.test:$ORIGIN/r1" 2>/dev/null
	raw "$RP" "GET http://nope.test/ HTTP/1.1\r\nHost: nope.test\r\n\r\n"
	mv "$TMP/rot.log" "$TMP/rot.log.1"
	hup_wait "$PX_PID" "$TMP/rot.stderr"
	CURL -x "http://127.0.0.1:$RP" -o /dev/null "http://good.test:$ORIGIN/r2" 2>/dev/null
	stop_proxy rot "$PX_PID"
	# Decisions: 2 before, 1 after; the two allowed connections' close
	# lines land in the file open when each ended.
	n1=$(decision_lines "$TMP/rot.log.1" 2>/dev/null)
	n2=$(decision_lines "$TMP/rot.log" 2>/dev/null)
	nc=$(cat "$TMP/rot.log.1" "$TMP/rot.log" | grep -c '"event":"close"' ||
	    true)
	if [ "$n1" = 2 ] && [ "$n2" = 1 ] && [ "$nc" = 2 ] &&
	    $PY "$H" logcheck "$TMP/rot.log.1" >/dev/null 2>&1 &&
	    $PY "$H" logcheck "$TMP/rot.log" >/dev/null 2>&1; then
		ok "rotate: SIGHUP reopens the log: 2 lines before, 1 after, all whole"
	else
		not_ok "rotate: SIGHUP reopens the log: 2 lines before, 1 after, all whole" \
		    "before: $n1, after: $n2, close lines: $nc" \
		    "$(cat "$TMP/rot.stderr")"
	fi
	if $PY -c '
import hashlib, json, sys
r = json.load(open(sys.argv[1]))
data = open(sys.argv[2], "rb").read() + open(sys.argv[3], "rb").read()
log = r["log"]
ok = (hashlib.sha256(data[log["offset"]:]).hexdigest() == log["sha256"]
      and log["records"] == 5 and log["lost"] == 0)
sys.exit(0 if ok else 1)' "$TMP/rot.report" "$TMP/rot.log.1" "$TMP/rot.log" \
	    2>"$TMP/rot.py.err"; then
		ok "rotate: the report's digest and count cover the files joined"
	else
		not_ok "rotate: the report's digest and count cover the files joined" \
		    "$(cat "$TMP/rot.py.err")" "$(head -c 600 "$TMP/rot.report")"
	fi
	expect_grep "rotate: stderr says the log was reopened and how to verify" \
	    "$TMP/rot.stderr" 'reopened 1 times \(SIGHUP\).*join the files in order'
}

# What these areas give, in their decision logs.
PX_REASONS="allow_rule deny_rule no_allow_rule private_address
metadata_address dns_failure invalid_target invalid_request
unsupported_command proxy_loop connect_failed log_unavailable"
PX_PROTOCOLS="http http_connect socks5"
proxy_suite dlog logorder logfault secrets rotate
