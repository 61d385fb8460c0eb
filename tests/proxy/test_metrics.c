/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The metrics' text (proxy/metrics.c, SPEC 8.1), without sockets: both
 * expositions name the same samples; a counter's TYPE names its family in
 * OpenMetrics and its sample in the text format; histograms' buckets are
 * cumulative and end at +Inf with the count; no label value but the
 * log's fixed words; OpenMetrics ends with "# EOF".
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proxy/internal.h"

static struct dlog_counts counts;
static struct proxy_metrics pm;

static char *
text_of(const struct metrics_view *v, bool om)
{
	struct evbuffer *b = evbuffer_new();
	size_t n;
	char *s;

	assert_non_null(b);
	assert_int_equal(metrics_format(b, v, om), 0);
	n = evbuffer_get_length(b);
	s = malloc(n + 1);
	assert_non_null(s);
	evbuffer_remove(b, s, n);
	s[n] = '\0';
	evbuffer_free(b);
	return s;
}

static void
view(struct metrics_view *v)
{
	memset(v, 0, sizeof(*v));
	v->counts = &counts;
	v->m = &pm;
	v->conns_open = 3;
	v->fds = 17;
	v->rss = 4096;
	v->totals.records = 9;
	v->totals.lost = 1;
}

static void
test_decisions(void **state)
{
	struct metrics_view v;
	char *om, *txt;

	(void)state;
	memset(&counts, 0, sizeof(counts));
	memset(&pm, 0, sizeof(pm));
	counts.by[PROXY_HTTP_CONNECT][1][EGRESS_R_ALLOW_RULE] = 5;
	counts.by[PROXY_SOCKS5][0][EGRESS_R_NO_ALLOW_RULE] = 2;
	counts.by[DLOG_DIRECT][0][EGRESS_R_NOT_THROUGH_PROXY] = 4;
	counts.held = 2;
	view(&v);
	om = text_of(&v, true);
	txt = text_of(&v, false);
	assert_non_null(strstr(om, "# TYPE harn_egressd_decisions counter\n"));
	assert_non_null(strstr(txt,
	    "# TYPE harn_egressd_decisions_total counter\n"));
	assert_non_null(strstr(om, "harn_egressd_decisions_total{protocol="
	    "\"http_connect\",decision=\"allow\",reason=\"allow_rule\"} 5\n"));
	assert_non_null(strstr(txt, "harn_egressd_decisions_total{protocol="
	    "\"socks5\",decision=\"deny\",reason=\"no_allow_rule\"} 2\n"));
	assert_non_null(strstr(om, "protocol=\"direct\",decision=\"deny\","
	    "reason=\"not_through_proxy\"} 4\n"));
	/* Nothing counted, nothing said: one line per counted triple. */
	assert_null(strstr(om, "reason=\"deny_rule\""));
	assert_non_null(strstr(om, "harn_egressd_connections_open 3\n"));
	assert_non_null(strstr(om, "harn_egressd_log_lines_total{state="
	    "\"written\"} 9\n"));
	assert_non_null(strstr(om, "{state=\"held\"} 2\n"));
	assert_non_null(strstr(om, "{state=\"lost\"} 1\n"));
	assert_non_null(strstr(om, "harn_egressd_process_open_fds 17\n"));
	assert_non_null(strstr(om,
	    "harn_egressd_process_resident_memory_bytes 4096\n"));
	assert_string_equal(om + strlen(om) - 6, "# EOF\n");
	assert_null(strstr(txt, "# EOF"));
	free(om);
	free(txt);
}

static void
test_histogram(void **state)
{
	struct metrics_view v;
	char *om;

	(void)state;
	memset(&counts, 0, sizeof(counts));
	memset(&pm, 0, sizeof(pm));
	metrics_observe(&pm.connect, 0.0004);	/* every bucket */
	metrics_observe(&pm.connect, 0.003);	/* from le 0.005 on */
	metrics_observe(&pm.connect, 20);	/* +Inf only */
	pm.reloads_ok = 2;
	pm.generation = 3;
	pm.bytes_out = 100;
	pm.bytes_in = 2000;
	view(&v);
	om = text_of(&v, true);
	assert_non_null(strstr(om, "# TYPE harn_egressd_connect_seconds "
	    "histogram\n"));
	assert_non_null(strstr(om,
	    "harn_egressd_connect_seconds_bucket{le=\"0.0005\"} 1\n"));
	assert_non_null(strstr(om,
	    "harn_egressd_connect_seconds_bucket{le=\"0.0025\"} 1\n"));
	assert_non_null(strstr(om,
	    "harn_egressd_connect_seconds_bucket{le=\"0.005\"} 2\n"));
	assert_non_null(strstr(om,
	    "harn_egressd_connect_seconds_bucket{le=\"15\"} 2\n"));
	assert_non_null(strstr(om,
	    "harn_egressd_connect_seconds_bucket{le=\"+Inf\"} 3\n"));
	assert_non_null(strstr(om, "harn_egressd_connect_seconds_count 3\n"));
	assert_non_null(strstr(om, "harn_egressd_connect_seconds_sum 20.0034"));
	assert_non_null(strstr(om,
	    "harn_egressd_dns_lookup_seconds_bucket{le=\"+Inf\"} 0\n"));
	assert_non_null(strstr(om, "harn_egressd_policy_reloads_total{result="
	    "\"ok\"} 2\n"));
	assert_non_null(strstr(om, "harn_egressd_policy_generation 3\n"));
	assert_non_null(strstr(om, "harn_egressd_transferred_bytes_total{"
	    "direction=\"out\"} 100\n"));
	assert_non_null(strstr(om, "harn_egressd_transferred_bytes_total{"
	    "direction=\"in\"} 2000\n"));
	free(om);
}

/* A scrape's head, judged without a socket (metricsd.c). */
static void
test_http_judge(void **state)
{
	static const struct {
		const char	*head;
		int		 status;
		bool		 head_only, om;
	} rows[] = {
		{ "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200, false,
		    false },
		{ "GET /metrics?x=1 HTTP/1.1\r\n\r\n", 200, false, false },
		{ "HEAD /metrics HTTP/1.0\r\n\r\n", 200, true, false },
		{ "GET /metrics HTTP/1.1\r\nACCEPT: application/openmetrics-"
		    "text;version=1.0.0,text/plain;q=0.5\r\n\r\n", 200, false,
		    true },
		/* Only an Accept header asks for it, not another's value. */
		{ "GET /metrics HTTP/1.1\r\nX-A: application/openmetrics-text"
		    "\r\n\r\n", 200, false, false },
		{ "GET /metricsx HTTP/1.1\r\n\r\n", 404, false, false },
		{ "GET / HTTP/1.1\r\n\r\n", 404, false, false },
		{ "GET /metrics\r\n\r\n", 404, false, false },
		{ "POST /metrics HTTP/1.1\r\n\r\n", 405, false, false },
		{ "garbage\r\n\r\n", 400, false, false },
		{ "", 400, false, false },
	};
	bool head_only, om;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_int_equal(metrics_http_judge(rows[i].head,
		    strlen(rows[i].head), &head_only, &om), rows[i].status);
		if (rows[i].status != 200)
			continue;
		assert_int_equal(head_only, rows[i].head_only);
		assert_int_equal(om, rows[i].om);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decisions),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_http_judge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
