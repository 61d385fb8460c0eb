/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The decision log's lines, as text (dlogline.h).  Every value is a fixed
 * word, a number, a normalized host (a-z 0-9 . - _) or an address, so
 * nothing needs escaping but a program's path, and no request text (path,
 * query, header, userinfo) ever reaches this file's inputs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "proxy/dlogline.h"

const char *const dlog_protocol_names[] = {
	[PROXY_HTTP] = "http",
	[PROXY_HTTP_CONNECT] = "http_connect",
	[PROXY_SOCKS5] = "socks5",
	[PROXY_TRANSPARENT] = "transparent",
	[PROXY_DNS] = "dns",
};

/* The length of the UTF-8 sequence at p, or 0 when it is not one. */
static size_t
utf8_len(const unsigned char *p)
{
	size_t n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2, i;

	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* 2026-12-02T15:30:00.123Z */
static void
format_ts(char *buf, size_t len)
{
	struct timeval tv;
	struct tm tm;

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (long)(tv.tv_usec / 1000));
}

const char *
dlog_safe_host(const char *h)
{
	const char *p;

	for (p = h; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '.' || *p == '-' || *p == '_' || *p == ':'))
			return "";
	return h;
}


/*
 * A JSON string's inside: the quote, the backslash and control
 * characters escaped; a byte that is not UTF-8 as \u00XX (a path may
 * hold anything).  Cut short, never cut inside an escape.
 */
static void
json_chars(const char *s, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, k, need;
	char esc[8];

	for (; *p != '\0'; p += k) {
		k = 1;
		if (*p == '"' || *p == '\\')
			snprintf(esc, sizeof(esc), "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f || *p >= 0x80) {
			k = *p >= 0xc2 && *p <= 0xf4 ? utf8_len(p) : 0;
			if (k > 1) {
				if (o + k >= len)
					break;
				memcpy(out + o, p, k);
				o += k;
				continue;
			}
			k = 1;
			snprintf(esc, sizeof(esc), "\\u%04X", *p);
		} else
			snprintf(esc, sizeof(esc), "%c", *p);
		need = strlen(esc);
		if (o + need >= len)
			break;
		memcpy(out + o, esc, need);
		o += need;
	}
	out[o] = '\0';
}

size_t
dlog_format_line(const char *run_id, char *line, size_t len,
    const struct dlog_entry *e)
{
	char ts[64], a[EGRESS_ADDRSTR_MAX] = "", run[64] = "", would[48] = "";
	char who[1700] = "", x[1600], conn[32] = "";
	int n;

	format_ts(ts, sizeof(ts));
	if (e->addr != NULL)
		egress_addr_format(e->addr, a, sizeof(a));
	if (e->allow && e->conn != 0)
		snprintf(conn, sizeof(conn), ",\"conn\":%ju",
		    (uintmax_t)e->conn);
	if (e->reason == EGRESS_R_REPORT_ONLY)
		snprintf(would, sizeof(would), ",\"would\":\"%s\"",
		    egress_reason_name(e->would));
	if (run_id[0] != '\0')
		snprintf(run, sizeof(run), ",\"run\":\"%s\"", run_id);
	if (e->pid > 0 && e->exe != NULL && e->exe[0] != '\0') {
		json_chars(e->exe, x, sizeof(x));
		snprintf(who, sizeof(who), ",\"pid\":%ld,\"exe\":\"%s\"",
		    (long)e->pid, x);
	} else if (e->pid > 0)
		snprintf(who, sizeof(who), ",\"pid\":%ld", (long)e->pid);
	n = snprintf(line, len, "{\"ts\":\"%s\",\"protocol\":\"%s\","
	    "\"host\":\"%s\",\"port\":%u,\"decision\":\"%s\","
	    "\"reason\":\"%s\"%s%s%s%s%s%s%s}\n", ts,
	    dlog_protocol_names[e->proto], dlog_safe_host(e->host), e->port,
	    e->allow ? "allow" : "deny", egress_reason_name(e->reason), would,
	    a[0] ? ",\"addr\":\"" : "", a, a[0] ? "\"" : "", conn, run, who);
	if (n < 0 || (size_t)n >= len)
		return 0;
	return (size_t)n;
}

size_t
dlog_format_direct(const char *run_id, char *line, size_t len,
    const char *addr, uint16_t port, pid_t pid, const char *exe,
    uint64_t count, bool inbound)
{
	/*
	 * Each field escaped into a bound of its own, cut short if need be
	 * (json_chars never cuts an escape): the line always fits, so a name
	 * of control characters cannot keep a refusal out of the log.
	 */
	char ts[64], a[400], x[800], run[64] = "", who[900] = "";
	char n_[32] = "";
	int n;

	format_ts(ts, sizeof(ts));
	json_chars(addr, a, sizeof(a));
	if (run_id[0] != '\0')
		snprintf(run, sizeof(run), ",\"run\":\"%s\"", run_id);
	if (pid > 0 && exe != NULL && exe[0] != '\0') {
		json_chars(exe, x, sizeof(x));
		snprintf(who, sizeof(who), ",\"pid\":%ld,\"exe\":\"%s\"",
		    (long)pid, x);
	} else if (pid > 0)
		snprintf(who, sizeof(who), ",\"pid\":%ld", (long)pid);
	if (count > 1)
		snprintf(n_, sizeof(n_), ",\"count\":%ju", (uintmax_t)count);
	n = snprintf(line, len, "{\"ts\":\"%s\",\"protocol\":"
	    "\"direct\",\"host\":\"\",\"port\":%u,\"decision\":\"deny\","
	    "\"reason\":\"not_through_proxy\",\"addr\":\"%s\"%s%s%s%s}\n", ts,
	    port, a, inbound ? ",\"direction\":\"inbound\"" : "", run, who,
	    n_);
	if (n < 0 || (size_t)n >= len)
		return 0;	/* not reached: the fields are bounded */
	return (size_t)n;
}

size_t
dlog_format_close(const char *run_id, char *line, size_t len,
    const struct dlog_close *e)
{
	char ts[64], run[64] = "", pid[32] = "";
	int n;

	format_ts(ts, sizeof(ts));
	if (run_id[0] != '\0')
		snprintf(run, sizeof(run), ",\"run\":\"%s\"", run_id);
	if (e->pid > 0)
		snprintf(pid, sizeof(pid), ",\"pid\":%ld", (long)e->pid);
	n = snprintf(line, len, "{\"ts\":\"%s\",\"event\":\"close\","
	    "\"conn\":%ju,\"protocol\":\"%s\",\"host\":\"%s\",\"port\":%u,"
	    "\"bytes_out\":%ju,\"bytes_in\":%ju,\"ms\":%ju%s%s}\n", ts,
	    (uintmax_t)e->conn, dlog_protocol_names[e->proto],
	    dlog_safe_host(e->host), e->port, (uintmax_t)e->bytes_out,
	    (uintmax_t)e->bytes_in, (uintmax_t)e->ms, run, pid);
	if (n < 0 || (size_t)n >= len)
		return 0;
	return (size_t)n;
}

size_t
dlog_format_unlogged(const char *run_id, char *line, size_t len,
    uint64_t count, const uint64_t *by_reason)
{
	char ts[64], run[64] = "", reasons[1024] = "";
	size_t o = 0;
	int r, n;

	format_ts(ts, sizeof(ts));
	if (run_id[0] != '\0')
		snprintf(run, sizeof(run), ",\"run\":\"%s\"", run_id);
	for (r = EGRESS_R_NONE + 1; r < EGRESS_R_COUNT; r++) {
		if (by_reason[r] == 0)
			continue;
		n = snprintf(reasons + o, sizeof(reasons) - o, "%s\"%s\":%ju",
		    o > 0 ? "," : "", egress_reason_name(r),
		    (uintmax_t)by_reason[r]);
		if (n < 0 || (size_t)n >= sizeof(reasons) - o)
			return 0;
		o += (size_t)n;
	}
	n = snprintf(line, len, "{\"ts\":\"%s\",\"event\":\"unlogged\","
	    "\"count\":%ju,\"reasons\":{%s}%s}\n", ts, (uintmax_t)count,
	    reasons, run);
	if (n < 0 || (size_t)n >= len)
		return 0;
	return (size_t)n;
}
