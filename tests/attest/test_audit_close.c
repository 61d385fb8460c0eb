/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_audit_close: the decision log's close lines (SPEC 5).  Their bytes
 * are summed per host and per program (the exe of the allow line with the
 * same conn and run, the newest such line winning), they count as records
 * but never as decisions, every other shape is malformed, and sums stop
 * at INT64_MAX rather than wrap.  (test_audit.c has the decision lines.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "attest/attest.h"
#include "egress/egress.h"
#include "tests/rows.h"

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))
#define WHY_MAX		256
#define RUN		",\"run\":\"0123456789abcdef0123456789abcdef\""
#define RUN2		",\"run\":\"fedcba9876543210fedcba9876543210\""
#define CURL		",\"pid\":41,\"exe\":\"/usr/bin/curl\""
#define PY		",\"pid\":42,\"exe\":\"/usr/bin/python3\""

/* Fed as an exact-size copy: no NUL after it, so over-reads are caught. */
static int
feed_why(struct audit *a, const char *line, char *why, size_t whylen)
{
	size_t len = strlen(line);
	char *copy = malloc(len ? len : 1);
	int rv;

	assert_non_null(copy);
	memcpy(copy, line, len);
	rv = audit_line(a, copy, len, why, whylen);
	free(copy);
	return rv;
}

static void
feed_ok(struct audit *a, const char *line)
{
	char why[WHY_MAX] = "";

	if (feed_why(a, line, why, sizeof(why)) != 0)
		fail_msg("refused (%s): %s", why, line);
}

/* An allow line as the proxy writes it, extra before the brace. */
static const char *
allow(const char *host, const char *extra)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "{\"ts\":\"2026-12-06T10:00:00.000Z\","
	    "\"protocol\":\"http_connect\",\"host\":\"%s\",\"port\":443,"
	    "\"decision\":\"allow\",\"reason\":\"allow_rule\","
	    "\"addr\":\"127.0.0.1\"%s}", host, extra);
	return buf;
}

/* A close line as the proxy writes it, extra before the brace. */
static const char *
closed(long conn, const char *host, long out, long in, long ms,
    const char *extra)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "{\"ts\":\"2026-12-06T10:00:01.000Z\","
	    "\"event\":\"close\",\"conn\":%ld,\"protocol\":\"http_connect\","
	    "\"host\":\"%s\",\"port\":443,\"bytes_out\":%ld,\"bytes_in\":%ld,"
	    "\"ms\":%ld%s}", conn, host, out, in, ms, extra);
	return buf;
}

static char *
printed(const struct audit *a, bool json, size_t top)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(audit_print(a, f, json, top), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static json_t *
summary(const struct audit *a, size_t top)
{
	json_error_t e;
	json_t *j;
	char *text = printed(a, true, top);

	if ((j = json_loads(text, 0, &e)) == NULL)
		fail_msg("summary does not parse: %s\n%s", e.text, text);
	free(text);
	return j;
}

/* An integer at a path of the summary: at(j, "bytes", "out", NULL). */
static json_int_t
at(json_t *j, ...)
{
	const char *key;
	va_list ap;

	va_start(ap, j);
	while ((key = va_arg(ap, const char *)) != NULL)
		j = json_object_get(j, key);
	va_end(ap);
	if (!json_is_integer(j))
		fail_msg("no integer there");
	return json_integer_value(j);
}

/* The entry of bytes.LIST whose NAME member is value; fails if none. */
static json_t *
bytes_of(json_t *j, const char *list, const char *name, const char *value)
{
	json_t *arr = json_object_get(json_object_get(j, "bytes"), list), *e;
	size_t i;

	json_array_foreach(arr, i, e)
		if (strcmp(json_string_value(json_object_get(e, name)),
		    value) == 0)
			return e;
	fail_msg("no %s %s in bytes.%s", name, value, list);
	return NULL;
}

/* ---------------------------------------------------------------- */

/* Summed per host and per program; records, but never decisions. */
static void
test_sums(void **state)
{
	struct audit *a;
	json_t *j, *e;

	(void)state;
	assert_non_null(a = audit_new());
	feed_ok(a, allow("a.test", ",\"conn\":1" RUN CURL));
	feed_ok(a, allow("b.test", ",\"conn\":2" RUN PY));
	/* Report mode's allow lines carry conn too. */
	feed_ok(a, "{\"ts\":\"2026-12-06T10:00:00.000Z\",\"protocol\":"
	    "\"socks5\",\"host\":\"c.test\",\"port\":443,\"decision\":"
	    "\"allow\",\"reason\":\"report_only\",\"would\":"
	    "\"no_allow_rule\",\"addr\":\"127.0.0.1\",\"conn\":3" RUN CURL
	    "}");
	feed_ok(a, closed(1, "a.test", 100, 2000, 30, RUN ",\"pid\":41"));
	feed_ok(a, closed(2, "b.test", 10, 20, 5, RUN));
	feed_ok(a, "{\"ts\":\"2026-12-06T10:00:02.000Z\",\"event\":\"close\","
	    "\"conn\":3,\"protocol\":\"socks5\",\"host\":\"c.test\",\"port\":"
	    "443,\"bytes_out\":1,\"bytes_in\":2,\"ms\":0" RUN ",\"pid\":41}");
	/* No decision line in the input: no program, none invented. */
	feed_ok(a, closed(9, "a.test", 7, 8, 1, RUN));
	/* Service mode's conn 1 is not the run's conn 1. */
	feed_ok(a, closed(1, "d.test", 1000, 1, 2, ""));
	j = summary(a, 10);
	assert_int_equal(at(j, "records", NULL), 8);
	assert_int_equal(at(j, "run_records", NULL), 7);
	assert_int_equal(at(j, "malformed", NULL), 0);
	assert_int_equal(at(j, "runs", NULL), 1);
	/* Not decisions: nothing of them in the decisions' counts. */
	assert_int_equal(at(j, "decisions", "allow", NULL), 3);
	assert_int_equal(at(j, "decisions", "deny", NULL), 0);
	assert_int_equal(at(j, "by_reason", "allow_rule", NULL), 2);
	assert_int_equal(at(j, "by_protocol", "http_connect", NULL), 2);
	assert_int_equal(at(j, "by_protocol", "socks5", NULL), 1);
	assert_int_equal(json_array_size(json_object_get(j, "top_allowed")),
	    3);
	assert_int_equal(at(j, "bytes", "out", NULL), 1118);
	assert_int_equal(at(j, "bytes", "in", NULL), 2031);
	assert_int_equal(at(j, "bytes", "connections", NULL), 5);
	assert_int_equal(at(j, "bytes", "ms", NULL), 38);
	assert_false(json_is_true(json_object_get(json_object_get(j,
	    "bytes"), "saturated")));
	assert_int_equal(at(j, "bytes", "unattributed", "out", NULL), 1007);
	assert_int_equal(at(j, "bytes", "unattributed", "in", NULL), 9);
	assert_int_equal(at(j, "bytes", "unattributed", "connections", NULL),
	    2);
	e = bytes_of(j, "by_host", "host", "a.test");
	assert_int_equal(at(e, "out", NULL), 107);
	assert_int_equal(at(e, "in", NULL), 2008);
	assert_int_equal(at(e, "connections", NULL), 2);
	assert_int_equal(at(e, "ms", NULL), 31);
	e = bytes_of(j, "by_exe", "exe", "/usr/bin/curl");
	assert_int_equal(at(e, "out", NULL), 101);
	assert_int_equal(at(e, "in", NULL), 2002);
	assert_int_equal(at(e, "connections", NULL), 2);
	e = bytes_of(j, "by_exe", "exe", "/usr/bin/python3");
	assert_int_equal(at(e, "out", NULL), 10);
	assert_int_equal(at(e, "connections", NULL), 1);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j,
	    "bytes"), "by_exe")), 2);
	/* Ranked by out + in: a.test (2115), then d.test (1001). */
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(json_object_get(j, "bytes"), "by_host"), 0),
	    "host")), "a.test");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(json_object_get(j, "bytes"), "by_host"), 1),
	    "host")), "d.test");
	json_decref(j);
	/* --top 1: one host, one program. */
	j = summary(a, 1);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j,
	    "bytes"), "by_host")), 1);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j,
	    "bytes"), "by_exe")), 1);
	json_decref(j);
	audit_free(a);
}

/* Numbers reused, forwarding's shared conn, a line naming no program. */
static void
test_conn_reuse(void **state)
{
	struct audit *a;
	json_t *j;

	(void)state;
	assert_non_null(a = audit_new());
	/* A later process took the number: the newest line wins. */
	feed_ok(a, allow("a.test", ",\"conn\":5" RUN CURL));
	feed_ok(a, allow("a.test", ",\"conn\":5" RUN PY));
	feed_ok(a, closed(5, "a.test", 1, 1, 1, RUN));
	/* Its entry went with its close line: a second is unattributed. */
	feed_ok(a, closed(5, "a.test", 2, 2, 1, RUN));
	/* A newer line without exe: no program, not the older one's. */
	feed_ok(a, allow("a.test", ",\"conn\":5" RUN CURL));
	feed_ok(a, allow("a.test", ",\"conn\":5" RUN ",\"pid\":44"));
	feed_ok(a, closed(5, "a.test", 4, 4, 1, RUN));
	/* Forwarding: three exchanges on one client connection, one close. */
	feed_ok(a, allow("a.test", ",\"conn\":6" RUN CURL));
	feed_ok(a, allow("b.test", ",\"conn\":6" RUN CURL));
	feed_ok(a, allow("c.test", ",\"conn\":6" RUN CURL));
	feed_ok(a, closed(6, "a.test", 8, 8, 1, RUN));
	/* Another run's conn 6 is another connection. */
	feed_ok(a, allow("a.test", ",\"conn\":6" RUN2 PY));
	feed_ok(a, closed(6, "a.test", 16, 16, 1, RUN2));
	j = summary(a, 10);
	assert_int_equal(at(j, "records", NULL), 13);
	assert_int_equal(at(j, "decisions", "allow", NULL), 8);
	assert_int_equal(at(j, "bytes", "connections", NULL), 5);
	assert_int_equal(at(j, "bytes", "unattributed", "connections", NULL),
	    2);
	assert_int_equal(at(j, "bytes", "unattributed", "out", NULL), 6);
	assert_int_equal(at(bytes_of(j, "by_exe", "exe", "/usr/bin/python3"),
	    "out", NULL), 17);
	assert_int_equal(at(bytes_of(j, "by_exe", "exe", "/usr/bin/python3"),
	    "connections", NULL), 2);
	assert_int_equal(at(bytes_of(j, "by_exe", "exe", "/usr/bin/curl"),
	    "out", NULL), 8);
	assert_int_equal(at(bytes_of(j, "by_exe", "exe", "/usr/bin/curl"),
	    "connections", NULL), 1);
	json_decref(j);
	audit_free(a);
}

/* ---------------------------------------------------------------- */
/* Malformed: any other shape, and conn where it does not belong. */

#define C_HEAD	"{\"ts\":\"t\",\"event\":\"close\","
#define C_CONN	"\"conn\":1,"
#define C_PROTO	"\"protocol\":\"http\","
#define C_HOST	"\"host\":\"a.test\","
#define C_PORT	"\"port\":80,"
#define C_OUT	"\"bytes_out\":1,"
#define C_IN	"\"bytes_in\":2,"
#define C_MS	"\"ms\":3"
#define C_GOOD	C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT C_IN C_MS "}"
#define D_HEAD	"{\"ts\":\"t\",\"protocol\":\"http\",\"host\":\"a.test\"," \
		"\"port\":80,"

struct bad_row {
	const char	*line;
	const char	*why;	/* a part of what audit_line says */
};

static const struct bad_row bad_rows[] = {
	/* A member missing. */
	{ "{\"event\":\"close\"," C_CONN C_PROTO C_HOST C_PORT C_OUT C_IN C_MS
	    "}", "no \"ts\"" },
	{ C_HEAD C_PROTO C_HOST C_PORT C_OUT C_IN C_MS "}", "no \"conn\"" },
	{ C_HEAD C_CONN C_HOST C_PORT C_OUT C_IN C_MS "}", "no \"protocol\"" },
	{ C_HEAD C_CONN C_PROTO C_PORT C_OUT C_IN C_MS "}", "no \"host\"" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_OUT C_IN C_MS "}", "no \"port\"" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_IN C_MS "}",
	    "no \"bytes_out\"" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT C_MS "}",
	    "no \"bytes_in\"" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT "\"bytes_in\":2}",
	    "no \"ms\"" },
	/* A member too many: a decision's, or anything else. */
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT C_IN C_MS
	    ",\"exe\":\"/bin/sh\"}", "unknown key" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT C_IN C_MS
	    ",\"decision\":\"allow\"}", "unknown key" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT C_IN C_MS
	    ",\"SECRET\":\"hunter2\"}", "unknown key" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT C_IN C_MS
	    ",\"count\":2}", "unknown key" },
	/* Wrong types, wrong values. */
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT "\"bytes_out\":-1," C_IN C_MS
	    "}", "below 0" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT "\"bytes_in\":-5," C_MS
	    "}", "below 0" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT C_IN "\"ms\":-1}",
	    "below 0" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT "\"bytes_out\":\"1\"," C_IN C_MS
	    "}", "\"bytes_out\" is not an integer" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT "\"bytes_out\":1.5," C_IN C_MS
	    "}", "\"bytes_out\" is not an integer" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT C_IN "\"ms\":null}",
	    "\"ms\" is not an integer" },
	{ C_HEAD "\"conn\":\"1\"," C_PROTO C_HOST C_PORT C_OUT C_IN C_MS "}",
	    "\"conn\" is not an integer" },
	{ C_HEAD "\"conn\":0," C_PROTO C_HOST C_PORT C_OUT C_IN C_MS "}",
	    "\"conn\" below 1" },
	{ C_HEAD "\"conn\":-3," C_PROTO C_HOST C_PORT C_OUT C_IN C_MS "}",
	    "\"conn\" below 1" },
	{ C_HEAD C_CONN "\"protocol\":\"dns\"," C_HOST C_PORT C_OUT C_IN C_MS
	    "}", "protocol is not" },
	{ C_HEAD C_CONN "\"protocol\":\"direct\"," C_HOST C_PORT C_OUT C_IN
	    C_MS "}", "protocol is not" },
	{ C_HEAD C_CONN "\"protocol\":\"ftp\"," C_HOST C_PORT C_OUT C_IN C_MS
	    "}", "protocol is not" },
	{ C_HEAD C_CONN C_PROTO C_HOST "\"port\":0," C_OUT C_IN C_MS "}",
	    "port out of range" },
	{ C_HEAD C_CONN C_PROTO C_HOST "\"port\":65536," C_OUT C_IN C_MS "}",
	    "port out of range" },
	{ C_HEAD C_CONN C_PROTO "\"host\":7," C_PORT C_OUT C_IN C_MS "}",
	    "\"host\" is not a string" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT C_IN C_MS ",\"run\":1}",
	    "\"run\" is not a string" },
	{ C_HEAD C_CONN C_PROTO C_HOST C_PORT C_OUT C_IN C_MS ",\"pid\":0}",
	    "\"pid\" below 1" },
	{ "{\"ts\":1,\"event\":\"close\"," C_CONN C_PROTO C_HOST C_PORT C_OUT
	    C_IN C_MS "}", "\"ts\" is not a string" },
	/* Not the event. */
	{ "{\"ts\":\"t\",\"event\":\"closed\"," C_CONN C_PROTO C_HOST C_PORT
	    C_OUT C_IN C_MS "}", "malformed \"event\" line" },
	{ "{\"ts\":\"t\",\"event\":\"Close\"," C_CONN C_PROTO C_HOST C_PORT
	    C_OUT C_IN C_MS "}", "malformed \"event\" line" },
	{ "{\"ts\":\"t\",\"event\":1," C_CONN C_PROTO C_HOST C_PORT C_OUT C_IN
	    C_MS "}", "malformed \"event\" line" },
	/* conn on a decision line: only an allow's, at least 1. */
	{ D_HEAD "\"decision\":\"deny\",\"reason\":\"deny_rule\",\"conn\":3}",
	    "\"conn\" on a deny line" },
	{ D_HEAD "\"decision\":\"deny\",\"reason\":\"connect_failed\","
	    "\"addr\":\"127.0.0.1\",\"conn\":3}", "\"conn\" on a deny line" },
	{ D_HEAD "\"decision\":\"allow\",\"reason\":\"allow_rule\","
	    "\"conn\":0}", "\"conn\" below 1" },
	{ D_HEAD "\"decision\":\"allow\",\"reason\":\"allow_rule\","
	    "\"conn\":\"7\"}", "\"conn\" is not an integer" },
	/* A decision line is not a close line, nor the other way. */
	{ D_HEAD "\"decision\":\"allow\",\"reason\":\"allow_rule\","
	    "\"bytes_out\":1}", "unknown key" },
};

static void
bad_row(const void *arg)
{
	const struct bad_row *row = arg;
	char why[WHY_MAX] = "";
	struct audit *a;
	json_t *j;

	a = audit_new();
	CHECK(a != NULL, "audit_new");
	CHECK(feed_why(a, row->line, why, sizeof(why)) == -1, "accepted");
	CHECK(strstr(why, row->why) != NULL, "why '%s', want '%s'", why,
	    row->why);
	CHECK(strstr(why, "hunter2") == NULL && strstr(why, "SECRET") == NULL,
	    "why echoes the line: %s", why);
	j = summary(a, 10);
	CHECK(at(j, "records", NULL) == 0, "counted as a record");
	CHECK(at(j, "malformed", NULL) == 1, "not counted as malformed");
	CHECK(at(j, "decisions", "allow", NULL) == 0, "counted as a decision");
	CHECK(at(j, "bytes", "connections", NULL) == 0, "bytes counted");
	CHECK(json_array_size(json_object_get(json_object_get(j, "bytes"),
	    "by_host")) == 0, "host counted");
	json_decref(j);
	audit_free(a);
}

static void
test_malformed(void **state)
{
	size_t i;

	(void)state;
	/* The row all the others break is itself good. */
	{
		struct audit *a = audit_new();

		assert_non_null(a);
		feed_ok(a, C_GOOD);
		audit_free(a);
	}
	for (i = 0; i < NELEM(bad_rows); i++) {
		row_begin("bad_rows", i, bad_rows[i].line,
		    strlen(bad_rows[i].line));
		row_run(bad_row, &bad_rows[i]);
	}
	rows_done("bad_rows");
}

/* Sums held at INT64_MAX, and said so, rather than wrapped. */
static void
test_saturate(void **state)
{
	char line[512];
	struct audit *a;
	json_t *j;
	int i;

	(void)state;
	assert_non_null(a = audit_new());
	feed_ok(a, allow("a.test", ",\"conn\":1" RUN CURL));
	for (i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), C_HEAD "\"conn\":1," C_PROTO
		    C_HOST C_PORT "\"bytes_out\":%lld,\"bytes_in\":1,\"ms\":1"
		    RUN "}", (long long)INT64_MAX - 1);
		feed_ok(a, line);
	}
	j = summary(a, 10);
	assert_true(json_is_true(json_object_get(json_object_get(j, "bytes"),
	    "saturated")));
	assert_int_equal(at(j, "bytes", "out", NULL), INT64_MAX);
	assert_int_equal(at(j, "bytes", "in", NULL), 3);
	assert_int_equal(at(bytes_of(j, "by_host", "host", "a.test"), "out",
	    NULL), INT64_MAX);
	assert_int_equal(at(bytes_of(j, "by_exe", "exe", "/usr/bin/curl"),
	    "out", NULL), INT64_MAX - 1);
	json_decref(j);
	audit_free(a);
}

/* Text: the sections, escaped; --top; none at all without close lines. */
static void
test_text(void **state)
{
	static const char want[] =
	    "\nbytes by host:\n"
	    "  out 1000  in 2000  conns 1  x\\x1b[2Jy\n"
	    "  out   10  in   20  conns 1  b.test\n"
	    "\n"
	    "bytes by program (1 of 2 connections say which; unattributed: "
	    "out 1000, in 2000, 1 connections):\n"
	    "  out   10  in   20  conns 1  /usr/bin/curl\n";
	struct audit *a;
	char *text;

	(void)state;
	assert_non_null(a = audit_new());
	feed_ok(a, allow("b.test", ",\"conn\":2" RUN CURL));
	text = printed(a, false, 10);
	assert_null(strstr(text, "bytes"));
	free(text);
	feed_ok(a, closed(2, "b.test", 10, 20, 5, RUN));
	feed_ok(a, closed(3, "x\\u001b[2Jy", 1000, 2000, 5, ""));
	text = printed(a, false, 10);
	assert_non_null(strstr(text, "\nbytes of closed connections: out "
	    "1010, in 2020, 2 connections, 10 ms\n"));
	if (strlen(text) < strlen(want) ||
	    strcmp(text + strlen(text) - strlen(want), want) != 0)
		fail_msg("text summary:\n%s\nwant at its end:\n%s", text, want);
	assert_null(strchr(text, '\033'));
	free(text);
	text = printed(a, false, 1);
	assert_non_null(strstr(text, "  (1 more)\n"));
	assert_null(strstr(text, "conns 1  b.test"));
	free(text);
	/* --top 0: the totals only. */
	text = printed(a, false, 0);
	assert_non_null(strstr(text, "bytes of closed connections"));
	assert_null(strstr(text, "bytes by host"));
	free(text);
	audit_free(a);
}

/* The page: the figures, with what of --json each is; names escaped. */
static void
test_html(void **state)
{
	char *buf = NULL;
	struct audit *a;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(a = audit_new());
	feed_ok(a, allow("b.test", ",\"conn\":2" RUN
	    ",\"pid\":4,\"exe\":\"/bin/<b>\\\"x\\\"\""));
	feed_ok(a, closed(2, "b.test", 10, 20, 5, RUN));
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(audit_html(a, f, 10), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "<span class=\"n\" data-key=\"bytes.out\""
	    ">10</span>"));
	assert_non_null(strstr(buf, "data-key=\"bytes.by_host.in\" "
	    "data-name=\"b.test\">20</span>"));
	assert_non_null(strstr(buf, "data-key=\"bytes.by_exe.out\" "
	    "data-name=\"/bin/&lt;b&gt;&quot;x&quot;\">10</span>"));
	assert_null(strstr(buf, "<b>"));
	free(buf);
	audit_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums),
		cmocka_unit_test(test_conn_reuse),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_saturate),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_html),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
