/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proxy's metrics (SPEC 8.1), in the exposition Prometheus scrapes:
 * what is counted (latency histograms here, decisions and log lines by
 * dlog.c), one scrape's view of it, its text, and what a scrape asked
 * for (metrics_http_judge).  Formatting and judging are apart
 * from serving (metricsd.c) so that it is tested without sockets.
 *
 * Conventions: the harn_egressd_ prefix, counters ending _total, units in
 * names, and no label whose values a client chooses: protocols, reasons
 * and decisions are the log's own fixed words; no host, path or program.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "proxy/internal.h"

/* From half a millisecond (a loopback connect) to connect_timeout's 15 s. */
const double metrics_le[METRICS_BUCKETS] = {
	0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
	2.5, 5, 15
};

double
metrics_now(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
metrics_observe(struct metrics_hist *h, double seconds)
{
	size_t i;

	if (seconds < 0)
		seconds = 0;
	for (i = 0; i < METRICS_BUCKETS; i++)
		if (seconds <= metrics_le[i])
			h->bucket[i]++;
	h->count++;
	h->sum += seconds;
}

/* The process's descriptors, counted in /proc/self/fd; -1 unknown. */
static long
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	(void)closedir(d);
	return n - 1;	/* the directory's own */
}

static uint64_t
resident_bytes(void)
{
	unsigned long size, rss;
	FILE *f = fopen("/proc/self/statm", "re");
	long page = sysconf(_SC_PAGESIZE);
	int n;

	if (f == NULL)
		return 0;
	n = fscanf(f, "%lu %lu", &size, &rss);
	(void)fclose(f);
	return n == 2 && page > 0 ? (uint64_t)rss * (uint64_t)page : 0;
}

void
proxy_metrics_reload(struct proxy *px, bool ok)
{
	if (ok) {
		px->metrics.reloads_ok++;
		px->metrics.generation++;
	} else
		px->metrics.reloads_failed++;
}

void
metrics_view_of(struct proxy *px, struct metrics_view *v)
{
	memset(v, 0, sizeof(*v));
	v->counts = dlog_counts(px->log);
	dlog_totals(px->log, &v->totals);
	v->conns_open = px->nconns;
	v->m = &px->metrics;
	v->fds = open_fds();
	v->rss = resident_bytes();
}

/* HELP and TYPE; a counter's TYPE names the family or the sample. */
static int
family(struct evbuffer *b, bool om, const char *name, const char *type,
    const char *help)
{
	bool counter = strcmp(type, "counter") == 0;

	return evbuffer_add_printf(b, "# HELP %s%s %s\n# TYPE %s%s %s\n",
	    name, counter && !om ? "_total" : "", help, name,
	    counter && !om ? "_total" : "", type) < 0 ? -1 : 0;
}

static int
decisions(struct evbuffer *b, bool om, const struct dlog_counts *c)
{
	unsigned p, a, r;

	if (family(b, om, "harn_egressd_decisions", "counter",
	    "Decisions by protocol, decision and reason, as logged.") == -1)
		return -1;
	for (p = 0; p < DLOG_PROTOCOLS; p++)
		for (a = 0; a < 2; a++)
			for (r = 0; r < EGRESS_R_COUNT; r++) {
				if (c->by[p][a][r] == 0)
					continue;
				if (evbuffer_add_printf(b, "harn_egressd_"
				    "decisions_total{protocol=\"%s\","
				    "decision=\"%s\",reason=\"%s\"} %" PRIu64
				    "\n", dlog_protocol_name(p), a ? "allow" :
				    "deny", egress_reason_name(r),
				    c->by[p][a][r]) < 0)
					return -1;
			}
	return 0;
}

static int
histogram(struct evbuffer *b, bool om, const char *name, const char *help,
    const struct metrics_hist *h)
{
	size_t i;

	if (family(b, om, name, "histogram", help) == -1)
		return -1;
	for (i = 0; i < METRICS_BUCKETS; i++)
		if (evbuffer_add_printf(b, "%s_bucket{le=\"%g\"} %" PRIu64 "\n",
		    name, metrics_le[i], h->bucket[i]) < 0)
			return -1;
	return evbuffer_add_printf(b, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n"
	    "%s_sum %.6f\n%s_count %" PRIu64 "\n", name, h->count, name,
	    h->sum, name, h->count) < 0 ? -1 : 0;
}

static int
traffic(struct evbuffer *b, bool om, const struct metrics_view *v)
{
	const struct proxy_metrics *m = v->m;

	if (family(b, om, "harn_egressd_connections_open", "gauge",
	    "Client connections open now.") == -1 ||
	    evbuffer_add_printf(b, "harn_egressd_connections_open %u\n",
	    v->conns_open) < 0 ||
	    family(b, om, "harn_egressd_transferred_bytes", "counter",
	    "Bytes of ended connections: out is client to origin.") == -1 ||
	    evbuffer_add_printf(b, "harn_egressd_transferred_bytes_total"
	    "{direction=\"out\"} %" PRIu64 "\nharn_egressd_transferred_bytes_"
	    "total{direction=\"in\"} %" PRIu64 "\n", m->bytes_out,
	    m->bytes_in) < 0)
		return -1;
	if (histogram(b, om, "harn_egressd_dns_lookup_seconds",
	    "Name lookups, from asked to answered.", &m->dns) == -1 ||
	    histogram(b, om, "harn_egressd_connect_seconds",
	    "Connects to origins, first attempt to connected.",
	    &m->connect) == -1)
		return -1;
	return 0;
}

static int
upkeep(struct evbuffer *b, bool om, const struct metrics_view *v)
{
	const struct proxy_metrics *m = v->m;

	if (family(b, om, "harn_egressd_log_lines", "counter",
	    "Decision log lines: written, held to be written later, lost.") ==
	    -1 || evbuffer_add_printf(b, "harn_egressd_log_lines_total{state="
	    "\"written\"} %" PRIu64 "\nharn_egressd_log_lines_total{state="
	    "\"held\"} %" PRIu64 "\nharn_egressd_log_lines_total{state="
	    "\"lost\"} %" PRIu64 "\n", v->totals.records, v->counts->held,
	    v->totals.lost) < 0)
		return -1;
	if (family(b, om, "harn_egressd_policy_reloads", "counter",
	    "Policy reloads (SIGHUP) by result.") == -1 ||
	    evbuffer_add_printf(b, "harn_egressd_policy_reloads_total{result="
	    "\"ok\"} %" PRIu64 "\nharn_egressd_policy_reloads_total{result="
	    "\"failed\"} %" PRIu64 "\n", m->reloads_ok, m->reloads_failed) <
	    0 || family(b, om, "harn_egressd_policy_generation", "gauge",
	    "The policy in force: 1, and one more each reload.") == -1 ||
	    evbuffer_add_printf(b, "harn_egressd_policy_generation %" PRIu64
	    "\n", m->generation) < 0)
		return -1;
	if (v->fds >= 0 && (family(b, om, "harn_egressd_process_open_fds",
	    "gauge", "Descriptors the process holds.") == -1 ||
	    evbuffer_add_printf(b, "harn_egressd_process_open_fds %ld\n",
	    v->fds) < 0))
		return -1;
	if (v->rss > 0 && (family(b, om,
	    "harn_egressd_process_resident_memory_bytes", "gauge",
	    "Resident memory.") == -1 || evbuffer_add_printf(b,
	    "harn_egressd_process_resident_memory_bytes %" PRIu64 "\n",
	    v->rss) < 0))
		return -1;
	return 0;
}

int
metrics_format(struct evbuffer *b, const struct metrics_view *v, bool om)
{
	if (decisions(b, om, v->counts) == -1 || traffic(b, om, v) == -1 ||
	    upkeep(b, om, v) == -1)
		return -1;
	return om && evbuffer_add_printf(b, "# EOF\n") < 0 ? -1 : 0;
}

/* Pure: the request, not the socket (metricsd.c serves it). */
int
metrics_http_judge(const char *head, size_t len, bool *head_only, bool *om)
{
	const char *eol = memchr(head, '\n', len), *p;
	size_t n;

	*head_only = *om = false;
	if (eol == NULL)
		return 400;
	n = (size_t)(eol - head);
	if (n >= 4 && memcmp(head, "GET ", 4) == 0)
		p = head + 4;
	else if (n >= 5 && memcmp(head, "HEAD ", 5) == 0) {
		p = head + 5;
		*head_only = true;
	} else
		return memchr(head, ' ', n) != NULL ? 405 : 400;
	if ((size_t)(eol - p) < 9 || memcmp(p, "/metrics", 8) != 0 ||
	    (p[8] != ' ' && p[8] != '?'))
		return 404;
	/* Prometheus asks for OpenMetrics; curl and promtool get text. */
	for (p = eol + 1; p < head + len; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(head + len - p))) == NULL)
			break;
		if ((size_t)(eol - p) > 7 && strncasecmp(p, "accept:", 7) == 0 &&
		    memmem(p, (size_t)(eol - p),
		    "application/openmetrics-text", 28) != NULL)
			*om = true;
	}
	return 200;
}
