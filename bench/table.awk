# SPDX-License-Identifier: Apache-2.0
# The peer table from run-peers.sh's results: one line a run,
#   REP <tab> PEER <tab> MODE <tab> MEASURE <tab> loadgen's RESULT line
# (MEASURE missing: the text says why there are no figures).
# Variables: peers (row order), ka, conc, bulk, bulkn, idlen, hold.

# The value of key in a RESULT line ("" if absent).
function kv(s, key,    n, a, i, eq) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) {
		eq = index(a[i], "=")
		if (eq > 1 && substr(a[i], 1, eq - 1) == key)
			return substr(a[i], eq + 1)
	}
	return ""
}

# Sorts the numbers of a space-separated list into s[1..n]; returns n.
function sorted(list, s,    n, i, j, t) {
	n = split(list, s, " ")
	for (i = 2; i <= n; i++) {
		t = s[i] + 0
		for (j = i - 1; j >= 1 && s[j] + 0 > t; j--)
			s[j + 1] = s[j]
		s[j + 1] = t
	}
	return n
}

function median(list,    s, n) {
	n = sorted(list, s)
	if (n == 0)
		return ""
	if (n % 2)
		return s[(n + 1) / 2] + 0
	return (s[n / 2] + s[n / 2 + 1]) / 2
}

# (max - min) / median, in percent.
function spread(list,    s, n, m) {
	n = sorted(list, s)
	m = median(list)
	return (n > 0 && m > 0) ? (s[n] - s[1]) / m * 100 : 0
}

function slashed(list) {
	gsub(/ /, "/", list)
	return list == "" ? "-" : list
}

# Appends v to the list arr[k] (tested first: mawk makes arr[k] before
# it evaluates the right-hand side of an assignment to it).
function add(arr, k, v) {
	if (k in arr)
		arr[k] = arr[k] " " v
	else
		arr[k] = v
}

{
	peer = $2; mode = $3; what = $4; r = $5
	k = peer SUBSEP mode
	seen[k] = 1
	if (what == "missing") {
		missing[k] = r
		next
	}
	has_data[k] = 1
	kw = k SUBSEP what
	errs[kw] += kv(r, "errors")
	if (kv(r, "pcpu") != "")
		add(pcpu, kw, kv(r, "pcpu"))
	if (what == "idle") {
		add(alive, k, kv(r, "alive"))
		add(probe, k, kv(r, "probe_ok"))
		if (kv(r, "alive") + 0 > 0 && kv(r, "rss_per_kib") != "") {
			add(val, kw, kv(r, "rss_per_kib"))
			add(pss, k, kv(r, "pss_per_kib"))
		}
		add(raw, kw, kv(r, "alive") > 0 ? kv(r, "rss_per_kib") : "n/a")
		next
	}
	v = (what == "bulk") ? kv(r, "body_mbps") : kv(r, "rps")
	add(val, kw, v)
	add(raw, kw, sprintf("%.0f", v))
	add(p50, kw, kv(r, "p50"))
	add(p99, kw, kv(r, "p99"))
}

# The best median of the other proxies (not harn-egressd) in a mode;
# lowest: smaller is better.
function best(mode, what, lowest,    i, b, m, kw) {
	b = ""
	for (i = 1; i <= npeers; i++) {
		if (plist[i] == "harn-egressd")
			continue
		kw = plist[i] SUBSEP mode SUBSEP what
		if (!(kw in val))
			continue
		m = median(val[kw])
		if (b == "" || (lowest ? m < b : m > b))
			b = m
	}
	return b
}

function ratio(a, b) {
	return (b != "" && b > 0) ? sprintf("%.2f", a / b) : "-"
}

# A row with no figures at all says why (one repetition that did not
# start leaves the others' figures).
function row_missing(peer, mode,    k) {
	k = peer SUBSEP mode
	if (!(k in missing) || (k in has_data))
		return 0
	printf "%-13s %-8s %s\n", peer, mode, missing[k]
	return 1
}

# One row of a rate section.
function rate_row(peer, mode, what,    kw, m, b, d, pc) {
	if (row_missing(peer, mode))
		return
	kw = peer SUBSEP mode SUBSEP what
	if (!(kw in val)) {
		printf "%-13s %-8s no result\n", peer, mode
		return
	}
	m = median(val[kw])
	b = (mode == "direct") ? "" : best(mode, what, 0)
	d = median(val["direct" SUBSEP "direct" SUBSEP what])
	pc = (kw in pcpu) ? sprintf("%.0f", median(pcpu[kw])) : "-"
	if (what == "bulk")
		printf "%-13s %-8s %9.0f %6.1f%% %6s %6s %5s %6d\n", peer, mode,
		    m, spread(val[kw]), ratio(m, b), ratio(m, d), pc, errs[kw]
	else
		printf "%-13s %-8s %9.0f %6.1f%% %6s %6s %8.3f %8.3f %5s %6d\n",
		    peer, mode, m, spread(val[kw]), ratio(m, b), ratio(m, d),
		    median(p50[kw]), median(p99[kw]), pc, errs[kw]
}

function idle_row(peer, mode,    k, kw, m, b) {
	if (row_missing(peer, mode))
		return
	k = peer SUBSEP mode
	kw = k SUBSEP "idle"
	if (!(kw in val)) {
		printf "%-13s %-8s n/a: open after the hold %s of %d\n", peer,
		    mode, (k in alive) ? median(alive[k]) : 0, idlen
		return
	}
	m = median(val[kw])
	b = best(mode, "idle", 1)
	printf "%-13s %-8s %9.1f %6.1f%% %6s %9.1f %6d %6d\n", peer, mode, m,
	    spread(val[kw]), ratio(m, b), median(pss[k]), median(alive[k]),
	    median(probe[k])
}

# Every row of a section: direct first (rates), then mode by mode.
function section(what,    mi, i) {
	if (what != "idle" && ("direct" SUBSEP "direct") in seen)
		rate_row("direct", "direct", what)
	for (mi = 1; mi <= 3; mi++)
		for (i = 1; i <= npeers; i++)
			if ((plist[i] SUBSEP mlist[mi]) in seen) {
				if (what == "idle")
					idle_row(plist[i], mlist[mi])
				else
					rate_row(plist[i], mlist[mi], what)
			}
}

END {
	npeers = split(peers, plist, " ")
	split("connect forward socks5", mlist, " ")
	hdr = sprintf("%-13s %-8s %9s %7s %6s %6s %8s %8s %5s %6s", "peer",
	    "mode", "req/s", "spread", "x best", "x dir", "p50 ms", "p99 ms",
	    "pcpu", "errors")

	printf "\n== new tunnels/s, keep-alive 1: a new tunnel (forward: a new"
	printf " connection) for each request, c=%d\n%s\n", conc, hdr
	section("ka1")

	printf "\n== keep-alive: requests/s, %d requests a tunnel or " \
	    "connection, c=%d\n%s\n", ka, conc, hdr
	section("kahigh")

	printf "\n== bulk: MB/s of a %d-byte body (%.0f MiB) through one " \
	    "tunnel or connection, %d in turn (1 MB = 10^6 B)\n", bulk,
	    bulk / 1048576, bulkn
	printf "%-13s %-8s %9s %7s %6s %6s %5s %6s\n", "peer", "mode", "MB/s",
	    "spread", "x best", "x dir", "pcpu", "errors"
	section("bulk")

	printf "\n== idle memory: proxy KiB per open connection, %d held %s s" \
	    " (RSS of its processes; PSS beside it; lower is better)\n",
	    idlen, hold
	printf "%-13s %-8s %9s %7s %6s %9s %6s %6s\n", "peer", "mode",
	    "RSS KiB", "spread", "x best", "PSS KiB", "open", "probe"
	section("idle")

	printf "\n# each repetition (ka1 req/s | ka%d req/s | bulk MB/s | " \
	    "idle RSS KiB):\n", ka
	for (k in seen) {
		split(k, pm, SUBSEP)
		if (!(k in has_data))
			continue
		line[k] = sprintf("#   %-13s %-8s %-20s %-20s %-14s %s", pm[1],
		    pm[2], slashed(raw[k SUBSEP "ka1"]),
		    slashed(raw[k SUBSEP "kahigh"]),
		    slashed(raw[k SUBSEP "bulk"]),
		    slashed(raw[k SUBSEP "idle"]))
	}
	if (("direct" SUBSEP "direct") in line)
		print line["direct" SUBSEP "direct"]
	for (mi = 1; mi <= 3; mi++)
		for (i = 1; i <= npeers; i++)
			if ((plist[i] SUBSEP mlist[mi]) in line)
				print line[plist[i] SUBSEP mlist[mi]]
}
