/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The audit's summary as text for a person and as JSON for a program:
 * totals by decision, reason and protocol, the top hosts, what report
 * mode let through, the proxied decisions by process, and the refusals
 * around the proxy.  Everything a line said is escaped: plain ASCII on a
 * terminal, JSON_ENSURE_ASCII in JSON.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/attest.h"
#include "attest/audit_int.h"

#define NAME_W		19	/* "unsupported_command" */

/* ---------------------------------------------------------------- */
/* Text. */

static int
digits(uint64_t n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* Text from a log as a terminal can show it: plain ASCII, the rest \xNN. */
static void
put_text(FILE *f, const char *s)
{
	const unsigned char *p;

	if (*s == '\0')
		fputs("\"\"", f);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p > 0x20 && *p < 0x7f && *p != '\\')
			putc(*p, f);
		else
			fprintf(f, "\\x%02x", *p);
	}
}

static void
text_counts(FILE *f, const char *title, const uint64_t *n,
    const char *(*name)(int), int from, int to, int w)
{
	bool any = false;
	int i;

	fprintf(f, "\n%s:", title);
	for (i = from; i < to; i++) {
		if (n[i] == 0)
			continue;
		fprintf(f, "\n  %-*s %*" PRIu64, NAME_W, name(i), w, n[i]);
		any = true;
	}
	fputs(any ? "\n" : " none\n", f);
}

static const char *
reason_name(int i)
{
	return egress_reason_name(i);
}

static const char *
protocol_name(int i)
{
	return audit_protocol_names[i];
}

/* The top entries of a map of counts, one a line, indented. */
static int
text_top(FILE *f, const json_t *map, size_t top, int w, const char *indent)
{
	struct audit_rank *t;
	size_t i, n;

	if ((t = audit_ranked(map, NULL, &n)) == NULL)
		return -1;
	for (i = 0; i < n && i < top; i++) {
		fprintf(f, "%s%*" PRId64 "  ", indent, w, (int64_t)t[i].n);
		put_text(f, t[i].key);
		putc('\n', f);
	}
	if (n > top && top > 0)
		fprintf(f, "%s(%zu more)\n", indent, n - top);
	free(t);
	return 0;
}

static int
text_hosts(FILE *f, const char *title, const json_t *map, size_t top, int w)
{
	fprintf(f, "\n%s:%s", title, json_object_size(map) == 0 ? " none\n" :
	    "\n");
	return text_top(f, map, top, w, "  ");
}

/* What report mode let through: target, count, what enforcing said. */
static int
text_reported(const struct audit *a, FILE *f, size_t top, int w)
{
	struct audit_rank *t;
	const char *key;
	json_t *v;
	size_t i, n;

	fprintf(f, "\nreport mode let through (enforcing refuses these):%s",
	    json_object_size(a->reported) == 0 ? " none\n" : "\n");
	if ((t = audit_ranked(a->reported, "count", &n)) == NULL)
		return -1;
	for (i = 0; i < n && i < top; i++) {
		fprintf(f, "  %*" PRId64 "  ", w, (int64_t)t[i].n);
		put_text(f, t[i].key);
		json_object_foreach(json_object_get(t[i].value, "would"), key,
		    v)
			fprintf(f, " %s", key);	/* a reason name, checked */
		putc('\n', f);
	}
	if (n > top && top > 0)
		fprintf(f, "  (%zu more; audit --suggest lists them all)\n",
		    n - top);
	free(t);
	return 0;
}

/* The proxied decisions of runs, by the process that asked. */
static int
text_exes(const struct audit *a, FILE *f, size_t top, int w)
{
	struct audit_rank *t;
	uint64_t proxied;
	size_t i, n;

	proxied = a->decisions[0] + a->decisions[1] - a->by_protocol[P_DIRECT];
	fprintf(f, "\nby process (%" PRIu64 " of %" PRIu64 " proxied "
	    "decisions say which):%s", a->owned, proxied,
	    json_object_size(a->exes) == 0 ? " none\n" : "\n");
	if ((t = audit_ranked(a->exes, "count", &n)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		fputs("  ", f);
		put_text(f, t[i].key);
		fprintf(f, ": allow %" PRId64 ", deny %" PRId64 "\n",
		    (int64_t)audit_int(t[i].value, "allow"),
		    (int64_t)audit_int(t[i].value, "deny"));
		if (text_top(f, json_object_get(t[i].value, "hosts"), top, w,
		    "    ") == -1) {
			free(t);
			return -1;
		}
	}
	free(t);
	return 0;
}

/* The pids a map holds, "1, 2, 3" (a few, then how many more). */
static void
put_pids(FILE *f, const json_t *pids)
{
	const char *key;
	json_t *v;
	size_t i = 0, n = json_object_size(pids);

	if (n == 0)
		return;
	fputs(n == 1 ? " (pid " : " (pids ", f);
	json_object_foreach((json_t *)pids, key, v) {
		if (i == 5) {
			fprintf(f, " and %zu more", n - i);
			break;
		}
		fprintf(f, "%s", i++ > 0 ? ", " : "");
		put_text(f, key);
	}
	putc(')', f);
}

/* Refusals around the proxy (run mode), by process, then endpoint. */
static int
text_direct(const struct audit *a, FILE *f, size_t top, int w)
{
	struct audit_rank *t;
	size_t i, n;

	fprintf(f, "\naround the proxy (not_through_proxy), by process:%s",
	    json_object_size(a->direct) == 0 ? " none\n" : "\n");
	if ((t = audit_ranked(a->direct, "count", &n)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		fputs("  ", f);
		if (t[i].key[0] == '\0')
			fputs("(process not known)", f);
		else
			put_text(f, t[i].key);
		put_pids(f, json_object_get(t[i].value, "pids"));
		fprintf(f, ": %" PRId64 " refused\n", (int64_t)t[i].n);
		if (text_top(f, json_object_get(t[i].value, "endpoints"), top,
		    w, "    ") == -1) {
			free(t);
			return -1;
		}
	}
	free(t);
	return 0;
}

/* Bytes of closed connections, by host or program, most first. */
static int
text_bytes_top(const struct audit *a, FILE *f, const json_t *map,
    size_t top)
{
	struct audit_rank *t;
	int wb = digits(a->bytes.out > a->bytes.in ? a->bytes.out :
	    a->bytes.in), wc = digits(a->bytes.connections);
	size_t i, n;

	if ((t = audit_ranked(map, "total", &n)) == NULL)
		return -1;
	for (i = 0; i < n && i < top; i++) {
		fprintf(f, "  out %*" PRId64 "  in %*" PRId64 "  conns %*"
		    PRId64 "  ", wb, (int64_t)audit_int(t[i].value, "out"), wb,
		    (int64_t)audit_int(t[i].value, "in"), wc,
		    (int64_t)audit_int(t[i].value, "connections"));
		put_text(f, t[i].key);
		putc('\n', f);
	}
	if (n > top)
		fprintf(f, "  (%zu more)\n", n - top);
	free(t);
	return 0;
}

/* Close lines (SPEC 5), when the logs had any: by host, by program. */
static int
text_bytes(const struct audit *a, FILE *f, size_t top)
{
	fputs("\nbytes by host:\n", f);
	if (text_bytes_top(a, f, a->bytes_hosts, top) == -1)
		return -1;
	fprintf(f, "\nbytes by program (%" PRIu64 " of %" PRIu64 " "
	    "connections say which; unattributed: out %" PRIu64 ", in %"
	    PRIu64 ", %" PRIu64 " connections):%s", a->bytes.connections -
	    a->unattributed.connections, a->bytes.connections,
	    a->unattributed.out, a->unattributed.in,
	    a->unattributed.connections,
	    json_object_size(a->bytes_exes) == 0 ? " none\n" : "\n");
	return text_bytes_top(a, f, a->bytes_exes, top);
}

int
audit_print_text(const struct audit *a, FILE *f, size_t top)
{
	int w = digits(a->decisions[0] + a->decisions[1]);

	fprintf(f, "records %" PRIu64 " (malformed %" PRIu64 ")\n",
	    a->records, a->malformed);
	fprintf(f, "runs %zu\n", json_object_size(a->runs));
	/*
	 * What a record says of its origin is all this can go by: a run's
	 * records exactly, and nothing else claiming its id, are what
	 * verify --log checks against the run's report.
	 */
	fprintf(f, "attributed: %" PRIu64 " to runs by the run id they carry, "
	    "%" PRIu64 " to services (no run id), %" PRIu64 " malformed to "
	    "nothing; verify --log checks a run's records against its "
	    "report\n", a->run_records, a->records - a->run_records,
	    a->malformed);
	fprintf(f, "decisions: allow %" PRIu64 ", deny %" PRIu64 "\n",
	    a->decisions[1], a->decisions[0]);
	text_counts(f, "by reason", a->by_reason, reason_name,
	    EGRESS_R_NONE + 1, EGRESS_R_COUNT, w);
	text_counts(f, "by protocol", a->by_protocol, protocol_name, 0,
	    P_COUNT, w);
	if (a->by_reason[EGRESS_R_REPORT_ONLY] > 0)
		text_counts(f, "report_only, by what enforcing says",
		    a->would, reason_name, EGRESS_R_NONE + 1, EGRESS_R_COUNT,
		    w);
	if (a->bytes.connections > 0)
		fprintf(f, "\nbytes of closed connections: out %" PRIu64 ", in %"
		    PRIu64 ", %" PRIu64 " connections, %" PRIu64 " ms%s\n",
		    a->bytes.out, a->bytes.in, a->bytes.connections,
		    a->bytes.ms, a->bytes_saturated ? " (a sum reached "
		    "2^63-1 and was held there)" : "");
	if (top == 0)
		return 0;
	if (text_hosts(f, "top allowed hosts", a->hosts[1], top, w) == -1 ||
	    text_hosts(f, "top denied hosts", a->hosts[0], top, w) == -1 ||
	    text_reported(a, f, top, w) == -1 ||
	    text_exes(a, f, top, w) == -1 ||
	    text_direct(a, f, top, w) == -1)
		return -1;
	if (a->bytes.connections > 0 && text_bytes(a, f, top) == -1)
		return -1;
	return 0;
}

/* ---------------------------------------------------------------- */
/* JSON. */

static int
set_count(json_t *o, const char *key, uint64_t n)
{
	return json_object_set_new(o, key, json_integer((json_int_t)n));
}

static json_t *
json_counts(const uint64_t *n, const char *(*name)(int), int from, int to)
{
	json_t *o;
	int i;

	if ((o = json_object()) == NULL)
		return NULL;
	for (i = from; i < to; i++)
		if (set_count(o, name(i), n[i]) == -1) {
			json_decref(o);
			return NULL;
		}
	return o;
}

/* What one ranked entry of a map becomes in a list. */
typedef json_t *(*entry_fn)(const struct audit_rank *, const char *name,
    size_t top);

/*
 * A map as a list, most counted first: at most limit entries, each made
 * by entry (name and top passed on to it).  NULL when out of memory.
 */
static json_t *
json_list(const json_t *map, const char *count_key, size_t limit,
    entry_fn entry, const char *name, size_t top)
{
	struct audit_rank *t;
	json_t *arr;
	size_t i, n;

	if ((arr = json_array()) == NULL)
		return NULL;
	if ((t = audit_ranked(map, count_key, &n)) == NULL) {
		json_decref(arr);
		return NULL;
	}
	for (i = 0; i < n && i < limit; i++)
		if (json_array_append_new(arr, entry(&t[i], name, top)) ==
		    -1) {
			json_decref(arr);
			arr = NULL;
			break;
		}
	free(t);
	return arr;
}

/* {name: key, "count": n} */
static json_t *
counted(const struct audit_rank *r, const char *name, size_t top)
{
	(void)top;
	return json_pack("{s:s, s:I}", name, r->key, "count", r->n);
}

/* The top entries of a map of counts. */
static json_t *
json_top(const json_t *map, const char *name, size_t top)
{
	return json_list(map, NULL, top, counted, name, top);
}

/* Report mode's let-through targets: {host, port, count, would}. */
static json_t *
reported_entry(const struct audit_rank *r, const char *name, size_t top)
{
	(void)name;
	(void)top;
	return json_incref(r->value);
}

/* By process: {exe, allow, deny, count, top_hosts}. */
static json_t *
exe_entry(const struct audit_rank *r, const char *name, size_t top)
{
	(void)name;
	return json_pack("{s:s, s:I, s:I, s:I, s:o}", "exe", r->key,
	    "allow", audit_int(r->value, "allow"), "deny",
	    audit_int(r->value, "deny"), "count", r->n, "top_hosts",
	    json_top(json_object_get(r->value, "hosts"), "host", top));
}

/* Around the proxy: {exe, count, pids, endpoints}. */
static json_t *
direct_entry(const struct audit_rank *r, const char *name, size_t top)
{
	const char *key;
	json_t *pids, *v;

	(void)name;
	if ((pids = json_array()) == NULL)
		return NULL;
	json_object_foreach(json_object_get(r->value, "pids"), key, v)
		if (json_array_append_new(pids,
		    json_integer(strtoll(key, NULL, 10))) == -1) {
			json_decref(pids);
			return NULL;
		}
	return json_pack("{s:s, s:I, s:o, s:o}", "exe", r->key, "count",
	    r->n, "pids", pids, "endpoints", json_top(json_object_get(r->value,
	    "endpoints"), "endpoint", top));
}

/* Bytes by host or program: {name: key, out, in, connections, ms}. */
static json_t *
bytes_entry(const struct audit_rank *r, const char *name, size_t top)
{
	(void)top;
	return json_pack("{s:s, s:I, s:I, s:I, s:I}", name, r->key, "out",
	    audit_int(r->value, "out"), "in", audit_int(r->value, "in"),
	    "connections", audit_int(r->value, "connections"), "ms",
	    audit_int(r->value, "ms"));
}

static json_t *
json_sums(const struct audit_bytes *b)
{
	return json_pack("{s:I, s:I, s:I, s:I}", "out", (json_int_t)b->out,
	    "in", (json_int_t)b->in, "connections",
	    (json_int_t)b->connections, "ms", (json_int_t)b->ms);
}

/*
 * Close lines: {out, in, connections, ms, saturated, unattributed: {out,
 * in, connections, ms}, by_host: [...], by_exe: [...]}, the lists top.
 */
static json_t *
json_bytes(const struct audit *a, size_t top)
{
	json_t *o;

	if ((o = json_sums(&a->bytes)) == NULL)
		return NULL;
	if (json_object_set_new(o, "saturated",
	    json_boolean(a->bytes_saturated)) == -1 ||
	    json_object_set_new(o, "unattributed",
	    json_sums(&a->unattributed)) == -1 ||
	    json_object_set_new(o, "by_host", json_list(a->bytes_hosts,
	    "total", top, bytes_entry, "host", top)) == -1 ||
	    json_object_set_new(o, "by_exe", json_list(a->bytes_exes,
	    "total", top, bytes_entry, "exe", top)) == -1) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
audit_print_json(const struct audit *a, FILE *f, size_t top)
{
	json_t *o, *d;
	int rv = -1;

	if ((o = json_object()) == NULL)
		return -1;
	if ((d = json_object()) == NULL ||
	    json_object_set_new(o, "decisions", d) == -1 ||
	    set_count(d, "allow", a->decisions[1]) == -1 ||
	    set_count(d, "deny", a->decisions[0]) == -1)
		goto fail;
	if (set_count(o, "records", a->records) == -1 ||
	    set_count(o, "malformed", a->malformed) == -1 ||
	    set_count(o, "run_records", a->run_records) == -1 ||
	    set_count(o, "service_records", a->records - a->run_records) ==
	    -1 ||
	    set_count(o, "runs", json_object_size(a->runs)) == -1 ||
	    set_count(o, "owned", a->owned) == -1)
		goto fail;
	if (json_object_set_new(o, "by_reason", json_counts(a->by_reason,
	    reason_name, EGRESS_R_NONE + 1, EGRESS_R_COUNT)) == -1 ||
	    /* The two reasons report mode lets through, next in the enum. */
	    json_object_set_new(o, "would", json_counts(a->would,
	    reason_name, EGRESS_R_DENY_RULE, EGRESS_R_NO_ALLOW_RULE + 1)) ==
	    -1 ||
	    json_object_set_new(o, "by_protocol", json_counts(a->by_protocol,
	    protocol_name, 0, P_COUNT)) == -1)
		goto fail;
	if (json_object_set_new(o, "top_allowed",
	    json_top(a->hosts[1], "host", top)) == -1 ||
	    json_object_set_new(o, "top_denied",
	    json_top(a->hosts[0], "host", top)) == -1 ||
	    json_object_set_new(o, "report_only", json_list(a->reported,
	    "count", top, reported_entry, NULL, top)) == -1 ||
	    json_object_set_new(o, "by_exe", json_list(a->exes, "count",
	    SIZE_MAX, exe_entry, NULL, top)) == -1 ||
	    json_object_set_new(o, "direct", json_list(a->direct, "count",
	    SIZE_MAX, direct_entry, NULL, top)) == -1 ||
	    json_object_set_new(o, "bytes", json_bytes(a, top)) == -1)
		goto fail;
	/* ASCII only: a forged host cannot put a raw escape on a terminal. */
	if (json_dumpf(o, f, JSON_INDENT(2) | JSON_SORT_KEYS |
	    JSON_ENSURE_ASCII) == -1 || putc('\n', f) == EOF)
		goto fail;
	rv = 0;
fail:
	json_decref(o);
	return rv;
}
