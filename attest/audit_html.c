/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit --html: the summary as one self-contained page a person looks at
 * rather than reads.  No script, no font, no style sheet and no image
 * from anywhere: inline SVG and CSS only, so the file opens the same
 * offline, from a CI artifact or an e-mail; it names no URL at all, not
 * even a namespace's.  The page is well-formed XML as well as HTML, and
 * every figure carries a data-key naming the
 * member of audit --json it equals, so a test can hold one to the other.
 * Everything a log said is escaped: plain ASCII, the rest \xNN, as on a
 * terminal.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "attest/attest.h"
#include "attest/audit_int.h"

#define BARS_MAX	60	/* columns of the timeline */
#define CHART_W		720
#define CHART_H		160
#define ROW_H		18
#define COLOR_ALLOW	"#2e7d32"
#define COLOR_DENY	"#c62828"
#define COLOR_REPORT	"#ef6c00"

/*
 * Text from a log, for HTML (an attribute's value too): markup escaped,
 * the rest as on a terminal.
 */
static void
put_attr(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			if (*p > 0x20 && *p < 0x7f && *p != '\\')
				putc(*p, f);
			else
				fprintf(f, "\\x%02x", *p);
		}
	}
}

/* The same as text: an empty name shown as "". */
static void
put_esc(FILE *f, const char *s)
{
	if (*s == '\0')
		fputs("&quot;&quot;", f);
	put_attr(f, s);
}

/*
 * A figure, and what of audit --json it equals: the member key, and for
 * a list or a map, the name of its entry (a host, a program, a reason).
 */
static void
put_num_in(FILE *f, const char *key, const char *parent, const char *name,
    uint64_t n)
{
	fprintf(f, "<span class=\"n\" data-key=\"%s\"", key);
	if (parent != NULL) {
		fputs(" data-parent=\"", f);
		put_attr(f, parent);
		putc('"', f);
	}
	if (name != NULL) {
		fputs(" data-name=\"", f);
		put_attr(f, name);
		putc('"', f);
	}
	fprintf(f, ">%" PRIu64 "</span>", n);
}

static void
put_num(FILE *f, const char *key, const char *name, uint64_t n)
{
	put_num_in(f, key, NULL, name, n);
}

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;"
    "max-width:60em}"
    "h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em}"
    "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;"
    "vertical-align:top}th{border-bottom:1px solid #ccc}"
    ".n{font-variant-numeric:tabular-nums}.k{font-family:monospace}"
    ".bar{display:inline-block;height:10px}"
    ".allow{background:" COLOR_ALLOW "}.deny{background:" COLOR_DENY "}"
    ".report{background:" COLOR_REPORT "}.any{background:#607d8b}"
    ".none{color:#777}";

static void
head(FILE *f, const struct audit *a)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head>"
	    "<meta charset=\"utf-8\"/>"
	    "<title>harn-egressd audit</title><style>", f);
	fputs(style, f);
	fputs("</style></head><body>\n<h1>harn-egressd audit</h1>\n<p>", f);
	put_num(f, "records", NULL, a->records);
	fputs(" records (", f);
	put_num(f, "malformed", NULL, a->malformed);
	fputs(" malformed), ", f);
	put_num(f, "runs", NULL, json_object_size(a->runs));
	fputs(" runs: ", f);
	put_num(f, "decisions", "allow", a->decisions[1]);
	fputs(" allowed, ", f);
	put_num(f, "decisions", "deny", a->decisions[0]);
	fputs(" refused.</p>\n", f);
}

/* "2026-12-02T15:30:00" as seconds since the epoch; -1: not that. */
static int64_t
second_of(const char *s)
{
	struct tm tm;
	char *end;

	memset(&tm, 0, sizeof(tm));
	if ((end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL ||
	    *end != '\0')
		return -1;
	return (int64_t)timegm(&tm);
}

/* A bucket width that leaves at most BARS_MAX columns, a round one. */
static int64_t
bucket_width(int64_t span)
{
	static const int64_t widths[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300,
	    600, 900, 1800, 3600, 7200, 21600, 43200, 86400, 604800 };
	size_t i;

	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (span / widths[i] < BARS_MAX)
			return widths[i];
	return span / BARS_MAX + 1;
}

static void
put_time(FILE *f, int64_t t)
{
	char buf[32];
	struct tm tm;
	time_t tt = (time_t)t;

	if (gmtime_r(&tt, &tm) != NULL &&
	    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm) > 0)
		fprintf(f, "%s UTC", buf);
}

/* Decisions over time: allowed and refused, stacked, per bucket. */
static int
timeline(FILE *f, const struct audit *a)
{
	uint64_t allow[BARS_MAX] = { 0 }, deny[BARS_MAX] = { 0 }, top = 0;
	int64_t t, first = INT64_MAX, last = INT64_MIN, width;
	const char *key;
	json_t *v;
	double x, w, ha, hd;
	size_t i;

	json_object_foreach(a->seconds, key, v) {
		if ((t = second_of(key)) == -1)
			continue;
		first = t < first ? t : first;
		last = t > last ? t : last;
	}
	fputs("<h2>Decisions over time</h2>\n", f);
	if (first > last) {
		fputs("<p class=\"none\">none</p>\n", f);
		return 0;
	}
	width = bucket_width(last - first);
	json_object_foreach(a->seconds, key, v) {
		if ((t = second_of(key)) == -1)
			continue;
		i = (size_t)((t - first) / width);
		allow[i] += (uint64_t)json_integer_value(json_array_get(v, 1));
		deny[i] += (uint64_t)json_integer_value(json_array_get(v, 0));
	}
	for (i = 0; i < BARS_MAX; i++)
		top = allow[i] + deny[i] > top ? allow[i] + deny[i] : top;
	fprintf(f, "<svg width=\"%d\" "
	    "height=\"%d\" role=\"img\"><title>allowed (green) and refused "
	    "(red) per %" PRId64 " s</title>\n", CHART_W, CHART_H + 20, width);
	w = (double)CHART_W / BARS_MAX;
	for (i = 0; i < BARS_MAX && first + (int64_t)i * width <= last; i++) {
		if (allow[i] + deny[i] == 0 || top == 0)
			continue;
		x = (double)i * w;
		ha = (double)CHART_H * (double)allow[i] / (double)top;
		hd = (double)CHART_H * (double)deny[i] / (double)top;
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		    "height=\"%.1f\" fill=\"" COLOR_ALLOW "\"><title>%" PRIu64
		    " allowed</title></rect>", x, CHART_H - ha, w - 1, ha,
		    allow[i]);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		    "height=\"%.1f\" fill=\"" COLOR_DENY "\"><title>%" PRIu64
		    " refused</title></rect>\n", x, CHART_H - ha - hd, w - 1,
		    hd, deny[i]);
	}
	fprintf(f, "<text x=\"0\" y=\"%d\" font-size=\"11\">", CHART_H + 15);
	put_time(f, first);
	fprintf(f, "</text><text x=\"%d\" y=\"%d\" font-size=\"11\" "
	    "text-anchor=\"end\">", CHART_W, CHART_H + 15);
	put_time(f, last + width - 1);
	fprintf(f, "</text></svg>\n<p>%" PRId64 " s a column; the tallest "
	    "holds %" PRIu64 ".</p>\n", width, top);
	return 0;
}

/* A row's bar, its length the share of the largest. */
static void
put_bar(FILE *f, const char *cls, uint64_t n, uint64_t max)
{
	fprintf(f, "<span class=\"bar %s\" style=\"width:%upx\"></span>", cls,
	    max > 0 ? (unsigned)(1 + 200 * n / max) : 1);
}

/* Refusals by reason, and what report mode let through by would. */
static void
reasons(FILE *f, const struct audit *a)
{
	uint64_t max = 0;
	int r;
	bool any = false;

	fputs("<h2>Decisions by reason</h2>\n<table>", f);
	for (r = EGRESS_R_NONE + 1; r < EGRESS_R_COUNT; r++)
		max = a->by_reason[r] > max ? a->by_reason[r] : max;
	for (r = EGRESS_R_NONE + 1; r < EGRESS_R_COUNT; r++) {
		if (a->by_reason[r] == 0)
			continue;
		any = true;
		fprintf(f, "<tr><td class=\"k\">%s</td><td>",
		    egress_reason_name(r));
		put_num(f, "by_reason", egress_reason_name(r), a->by_reason[r]);
		fputs("</td><td>", f);
		put_bar(f, r == EGRESS_R_ALLOW_RULE ||
		    r == EGRESS_R_DEFAULT_ALLOW ? "allow" :
		    r == EGRESS_R_REPORT_ONLY ? "report" : "deny",
		    a->by_reason[r], max);
		fputs("</td></tr>\n", f);
	}
	fputs(any ? "</table>\n" :
	    "<tr><td class=\"none\">none</td></tr></table>\n", f);
}

/*
 * The top entries of a map of counts, as rows: key, count, bar.  parent:
 * the entry of a list the map belongs to (a program's hosts), or NULL.
 */
static int
top_rows(FILE *f, const json_t *map, const char *json_key,
    const char *parent, const char *cls, size_t top)
{
	struct audit_rank *t;
	size_t i, n;

	if ((t = audit_ranked(map, NULL, &n)) == NULL)
		return -1;
	fputs("<table>", f);
	if (n == 0 || top == 0)
		fputs("<tr><td class=\"none\">none</td></tr>", f);
	for (i = 0; i < n && i < top; i++) {
		fputs("<tr><td class=\"k\">", f);
		put_esc(f, t[i].key);
		fputs("</td><td>", f);
		put_num_in(f, json_key, parent, t[i].key, (uint64_t)t[i].n);
		fputs("</td><td>", f);
		put_bar(f, cls, (uint64_t)t[i].n, (uint64_t)t[0].n);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	if (n > top && top > 0)
		fprintf(f, "<p class=\"none\">and %zu more</p>\n", n - top);
	free(t);
	return 0;
}

/* What report mode let through: target, count, what enforcing says. */
static int
reported(FILE *f, const struct audit *a, size_t top)
{
	struct audit_rank *t;
	const char *key;
	json_t *v;
	size_t i, n;

	fputs("<h2>Let through by report mode (enforcing refuses these)</h2>\n"
	    "<table>", f);
	if ((t = audit_ranked(a->reported, "count", &n)) == NULL)
		return -1;
	if (n == 0)
		fputs("<tr><td class=\"none\">none</td></tr>", f);
	for (i = 0; i < n && i < top; i++) {
		fputs("<tr><td class=\"k\">", f);
		put_esc(f, t[i].key);
		fputs("</td><td>", f);
		put_num(f, "report_only", t[i].key, (uint64_t)t[i].n);
		fputs("</td><td class=\"k\">", f);
		json_object_foreach(json_object_get(t[i].value, "would"), key,
		    v)
			fprintf(f, "%s ", key);	/* reason names, checked */
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	free(t);
	return 0;
}

/* By process: allowed, refused, and its top hosts. */
static int
processes(FILE *f, const struct audit *a, size_t top)
{
	struct audit_rank *t;
	size_t i, n;

	fputs("<h2>By process (run mode)</h2>\n<p>", f);
	put_num(f, "owned", NULL, a->owned);
	fputs(" of the proxied decisions say which confined process asked."
	    "</p>\n<table><tr><th>program</th><th>allowed</th><th>refused"
	    "</th><th>hosts</th></tr>\n", f);
	if ((t = audit_ranked(a->exes, "count", &n)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		fputs("<tr><td class=\"k\">", f);
		put_esc(f, t[i].key);
		fputs("</td><td>", f);
		put_num(f, "by_exe.allow", t[i].key,
		    (uint64_t)audit_int(t[i].value, "allow"));
		fputs("</td><td>", f);
		put_num(f, "by_exe.deny", t[i].key,
		    (uint64_t)audit_int(t[i].value, "deny"));
		fputs("</td><td>", f);
		if (top_rows(f, json_object_get(t[i].value, "hosts"),
		    "by_exe.top_hosts", t[i].key, "any", top) == -1) {
			free(t);
			return -1;
		}
		fputs("</td></tr>\n", f);
	}
	if (n == 0)
		fputs("<tr><td class=\"none\">none</td></tr>", f);
	fputs("</table>\n", f);
	free(t);
	return 0;
}

/* Attempts around the proxy, by process and endpoint. */
static int
direct(FILE *f, const struct audit *a, size_t top)
{
	struct audit_rank *t;
	const char *key;
	json_t *v;
	size_t i, n;

	fputs("<h2>Refused around the proxy (not_through_proxy)</h2>\n"
	    "<table><tr><th>program</th><th>pids</th><th>refused</th>"
	    "<th>endpoints</th></tr>\n", f);
	if ((t = audit_ranked(a->direct, "count", &n)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		fputs("<tr><td class=\"k\">", f);
		if (t[i].key[0] == '\0')
			fputs("(not known)", f);
		else
			put_esc(f, t[i].key);
		fputs("</td><td class=\"k\">", f);
		json_object_foreach(json_object_get(t[i].value, "pids"), key,
		    v) {
			put_esc(f, key);
			putc(' ', f);
		}
		fputs("</td><td>", f);
		put_num(f, "direct", t[i].key, (uint64_t)t[i].n);
		fputs("</td><td>", f);
		if (top_rows(f, json_object_get(t[i].value, "endpoints"),
		    "direct.endpoints", t[i].key, "deny", top) == -1) {
			free(t);
			return -1;
		}
		fputs("</td></tr>\n", f);
	}
	if (n == 0)
		fputs("<tr><td class=\"none\">none</td></tr>", f);
	fputs("</table>\n", f);
	free(t);
	return 0;
}

/* A row per host or program: out, in, connections, a bar of out + in. */
static int
bytes_rows(FILE *f, const json_t *map, const char *list, const char *what,
    size_t top)
{
	static const char *const cols[] = { "out", "in", "connections" };
	char key[40];
	struct audit_rank *t;
	size_t i, c, n;

	if ((t = audit_ranked(map, "total", &n)) == NULL)
		return -1;
	fprintf(f, "<table><tr><th>%s</th><th>bytes out</th><th>bytes in"
	    "</th><th>connections</th><th></th></tr>\n", what);
	for (i = 0; i < n && i < top; i++) {
		fputs("<tr><td class=\"k\">", f);
		put_esc(f, t[i].key);
		fputs("</td>", f);
		for (c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
			snprintf(key, sizeof(key), "bytes.%s.%s", list,
			    cols[c]);
			fputs("<td>", f);
			put_num(f, key, t[i].key,
			    (uint64_t)audit_int(t[i].value, cols[c]));
			fputs("</td>", f);
		}
		fputs("<td>", f);
		put_bar(f, "any", (uint64_t)t[i].n, (uint64_t)t[0].n);
		fputs("</td></tr>\n", f);
	}
	if (n == 0 || top == 0)
		fputs("<tr><td class=\"none\">none</td></tr>", f);
	fputs("</table>\n", f);
	if (n > top && top > 0)
		fprintf(f, "<p class=\"none\">and %zu more</p>\n", n - top);
	free(t);
	return 0;
}

/* Close lines (SPEC 5): the totals, then by host and by program. */
static int
bytes(FILE *f, const struct audit *a, size_t top)
{
	fputs("<h2>Bytes of closed connections</h2>\n<p>", f);
	put_num(f, "bytes.out", NULL, a->bytes.out);
	fputs(" bytes out (client to origin), ", f);
	put_num(f, "bytes.in", NULL, a->bytes.in);
	fputs(" bytes in, over ", f);
	put_num(f, "bytes.connections", NULL, a->bytes.connections);
	fputs(" connections (", f);
	put_num(f, "bytes.ms", NULL, a->bytes.ms);
	fputs(" ms); no program known for ", f);
	put_num(f, "bytes.unattributed.connections", NULL,
	    a->unattributed.connections);
	fputs(" of them (", f);
	put_num(f, "bytes.unattributed.out", NULL, a->unattributed.out);
	fputs(" out, ", f);
	put_num(f, "bytes.unattributed.in", NULL, a->unattributed.in);
	fprintf(f, " in).%s</p>\n<h2>Bytes by host</h2>\n",
	    a->bytes_saturated ? " A sum reached 2^63-1 and was held there." :
	    "");
	if (bytes_rows(f, a->bytes_hosts, "by_host", "host", top) == -1)
		return -1;
	fputs("<h2>Bytes by program</h2>\n", f);
	return bytes_rows(f, a->bytes_exes, "by_exe", "program", top);
}

int
audit_html(const struct audit *a, FILE *f, size_t top)
{
	head(f, a);
	if (timeline(f, a) == -1)
		return -1;
	reasons(f, a);
	fputs("<h2>Top allowed hosts</h2>\n", f);
	if (top_rows(f, a->hosts[1], "top_allowed", NULL, "allow", top) == -1)
		return -1;
	fputs("<h2>Top refused hosts</h2>\n", f);
	if (top_rows(f, a->hosts[0], "top_denied", NULL, "deny", top) == -1 ||
	    reported(f, a, top) == -1 || processes(f, a, top) == -1 ||
	    direct(f, a, top) == -1 || bytes(f, a, top) == -1)
		return -1;
	fputs("<p class=\"none\">harn-egressd audit --html; the same figures: "
	    "audit --json.</p>\n</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}
