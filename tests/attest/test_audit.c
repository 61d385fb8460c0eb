/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_audit: summaries of decision logs (SPEC 5).  Valid records are
 * counted by decision, reason, protocol and host; every kind of malformed
 * line is refused with a reason that quotes nothing unsafe; the output
 * parses back; and mutated logs, thousands of lines of them, never crash
 * the counter and always add up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "attest/attest.h"
#include "egress/egress.h"
#include "tests/rows.h"

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))
#define WHY_MAX		256
#define ROBUST_LINES	20000

static const char *const protocols[] = { "http", "http_connect", "socks5" };

/* ---------------------------------------------------------------- */
/* Helpers. */

/* Count an exact-size copy: no NUL after it, so over-reads are caught. */
static int
feed(struct audit *a, const char *line, size_t len, char *why,
    size_t whylen)
{
	char *copy = malloc(len ? len : 1);
	int rv;

	assert_non_null(copy);
	memcpy(copy, line, len);
	rv = audit_line(a, copy, len, why, whylen);
	free(copy);
	return rv;
}

static int
feed_str(struct audit *a, const char *line)
{
	char why[WHY_MAX];

	return feed(a, line, strlen(line), why, sizeof(why));
}

/* A record as the proxy writes it, with extra keys before the brace. */
static const char *
record(const char *protocol, const char *host, long port,
    const char *decision, const char *reason, const char *extra)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf), "{\"ts\":\"2026-12-02T15:30:00.123Z\","
	    "\"protocol\":\"%s\",\"host\":\"%s\",\"port\":%ld,"
	    "\"decision\":\"%s\",\"reason\":\"%s\"%s}", protocol, host, port,
	    decision, reason, extra);
	return buf;
}

static bool
allows(enum egress_reason r)
{
	return r == EGRESS_R_ALLOW_RULE || r == EGRESS_R_DEFAULT_ALLOW ||
	    r == EGRESS_R_REPORT_ONLY;
}

/* The printed summary, text or JSON, as one string. */
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

/* The JSON summary, parsed back. */
static json_t *
summary(const struct audit *a, size_t top)
{
	json_error_t e;
	json_t *j;
	char *text = printed(a, true, top);

	j = json_loads(text, 0, &e);
	if (j == NULL)
		fail_msg("summary does not parse: %s\n%s", e.text, text);
	free(text);
	return j;
}

/* A number of the summary: num(j, "records", NULL), num(j, "by_reason", "x"). */
static json_int_t
num(json_t *j, const char *key, const char *sub)
{
	json_t *v = json_object_get(j, key);

	if (sub != NULL)
		v = json_object_get(v, sub);
	if (!json_is_integer(v))
		fail_msg("summary has no integer %s%s%s", key,
		    sub ? "." : "", sub ? sub : "");
	return json_integer_value(v);
}

static bool
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* ---------------------------------------------------------------- */
/*
 * Valid records: every protocol with every reason, with "addr" where SPEC
 * 5 puts one: on an allow, and on a deny decided on an address.
 */

static bool
judged_on_addr(int r)
{
	return r == EGRESS_R_DENY_RULE || r == EGRESS_R_NO_ALLOW_RULE ||
	    r == EGRESS_R_PRIVATE_ADDRESS || r == EGRESS_R_METADATA_ADDRESS ||
	    r == EGRESS_R_PROXY_LOOP || r == EGRESS_R_CONNECT_FAILED ||
	    r == EGRESS_R_CONNECT_TIMEOUT;
}

static void
test_valid(void **state)
{
	struct audit *a;
	json_t *j;
	size_t p;
	int k, r, n = 0, nallow = 0;

	(void)state;
	assert_non_null(a = audit_new());
	for (p = 0; p < NELEM(protocols); p++)
		for (r = EGRESS_R_NONE + 1; r < EGRESS_R_COUNT; r++) {
			if (r == EGRESS_R_NOT_THROUGH_PROXY)
				continue;	/* direct lines, below */
			/* protocol p, reason r: p + 1 times each */
			for (k = 0; k <= (int)p; k++) {
				assert_int_equal(feed_str(a, record(
				    protocols[p], "api.example.com", 443,
				    allows(r) ? "allow" : "deny",
				    egress_reason_name(r),
				    r == EGRESS_R_REPORT_ONLY ?
				    ",\"addr\":\"93.184.216.34\","
				    "\"would\":\"no_allow_rule\"" : allows(r) ||
				    (judged_on_addr(r) && k == 0) ?
				    ",\"addr\":\"93.184.216.34\"" : "")), 0);
				n++;
				nallow += allows(r);
			}
		}
	/* Direct: one line, and one that folds 5 refusals into it. */
	assert_int_equal(feed_str(a, record("direct", "", 0, "deny",
	    "not_through_proxy", ",\"addr\":\"unix:/run/x.sock\","
	    "\"pid\":42,\"exe\":\"/usr/bin/x\"")), 0);
	assert_int_equal(feed_str(a, record("direct", "", 8080, "deny",
	    "not_through_proxy", ",\"addr\":\"0.0.0.0\",\"count\":5")), 0);
	n += 2;
	j = summary(a, 10);
	assert_int_equal(num(j, "records", NULL), n);
	assert_int_equal(num(j, "malformed", NULL), 0);
	assert_int_equal(num(j, "runs", NULL), 0);
	assert_int_equal(num(j, "run_records", NULL), 0);
	assert_int_equal(num(j, "service_records", NULL), n);
	assert_int_equal(num(j, "decisions", "allow"), nallow);
	assert_int_equal(num(j, "decisions", "deny"), n - 2 + 6 - nallow);
	for (p = 0; p < NELEM(protocols); p++)
		assert_int_equal(num(j, "by_protocol", protocols[p]),
		    (json_int_t)(p + 1) * (EGRESS_R_COUNT - 2));
	assert_int_equal(num(j, "by_protocol", "direct"), 6);
	for (r = EGRESS_R_NONE + 1; r < EGRESS_R_COUNT; r++)
		assert_int_equal(num(j, "by_reason", egress_reason_name(r)),
		    r == EGRESS_R_NOT_THROUGH_PROXY ? 6 : 1 + 2 + 3);
	/* Exactly the SPEC's names: no "none", nothing else. */
	assert_int_equal(json_object_size(json_object_get(j, "by_reason")),
	    EGRESS_R_COUNT - 1);
	/* Every protocol of SPEC 5, run mode's transparent and dns too. */
	assert_int_equal(json_object_size(json_object_get(j, "by_protocol")),
	    6);
	assert_int_equal(num(j, "by_protocol", "transparent"), 0);
	assert_int_equal(num(j, "by_protocol", "dns"), 0);
	json_decref(j);
	audit_free(a);
}

/* Optional keys, key order, spacing and a CR before the newline. */
static void
test_valid_forms(void **state)
{
	static const char *const lines[] = {
		"{\"ts\":\"t\",\"protocol\":\"http\",\"host\":\"\",\"port\":0,"
		    "\"decision\":\"deny\",\"reason\":\"invalid_request\"}",
		"{\"reason\":\"deny_rule\",\"decision\":\"deny\",\"port\":80,"
		    "\"host\":\"x.example\",\"protocol\":\"http\",\"ts\":\"t\"}",
		" { \"ts\" : \"t\" , \"protocol\" : \"socks5\", \"host\": "
		    "\"2001:db8::1\", \"port\": 65535, \"decision\": \"allow\","
		    " \"reason\": \"default_allow\", \"addr\": \"2001:db8::1\","
		    " \"run\": \"0123456789abcdef0123456789abcdef\" }\r",
		"{\"ts\":\"t\",\"protocol\":\"http_connect\",\"host\":\"a\","
		    "\"port\":1,\"decision\":\"allow\",\"reason\":\"allow_rule\","
		    "\"run\":\"r2\"}",
		"{\"ts\":\"t\",\"protocol\":\"http_connect\",\"host\":\"a\","
		    "\"port\":1,\"decision\":\"allow\",\"reason\":\"allow_rule\","
		    "\"run\":\"r2\"}\t",
	};
	char why[WHY_MAX];
	struct audit *a;
	json_t *j;
	size_t i;

	(void)state;
	assert_non_null(a = audit_new());
	for (i = 0; i < NELEM(lines); i++) {
		why[0] = '\0';
		if (feed(a, lines[i], strlen(lines[i]), why, sizeof(why)) != 0)
			fail_msg("line %zu refused: %s", i, why);
	}
	j = summary(a, 10);
	assert_int_equal(num(j, "records", NULL), NELEM(lines));
	assert_int_equal(num(j, "runs", NULL), 2);
	assert_int_equal(num(j, "decisions", "allow"), 3);
	json_decref(j);
	audit_free(a);
}

/* ---------------------------------------------------------------- */
/* Malformed lines. */

#define GOOD_HEAD	"{\"ts\":\"t\",\"protocol\":\"http\",\"host\":\"h\","
#define GOOD_TAIL	"\"port\":80,\"decision\":\"deny\",\"reason\":\"deny_rule\""
#define GOOD		GOOD_HEAD GOOD_TAIL
#define NUL_LINE	GOOD_HEAD "\"port\":80\0,\"decision\":\"deny\"," \
			    "\"reason\":\"deny_rule\"}"

struct bad_row {
	const char	*line;
	size_t		 len;	/* 0: strlen */
	const char	*why;	/* a substring of the reason given */
};

static const struct bad_row bad_rows[] = {
	{ "", 0, "empty line" },
	{ "not json", 0, "not JSON" },
	{ "   ", 0, "not JSON" },
	{ "{", 0, "not JSON (truncated" },
	{ GOOD_HEAD "\"port\":", 0, "not JSON (truncated" },
	{ GOOD "} x", 0, "not JSON (text after the value" },
	{ GOOD "}" GOOD "}", 0, "not JSON (text after the value" },
	{ "{'ts':'t'}", 0, "not JSON" },
	{ "[" GOOD "}]", 0, "not an object" },
	{ "42", 0, "not an object" },
	{ "\"a string\"", 0, "not an object" },
	{ "null", 0, "not an object" },
	{ "{}", 0, "no \"ts\"" },
	{ "{\"ts\":\"t\"}", 0, "no \"protocol\"" },
	{ "{\"ts\":\"t\",\"protocol\":\"http\"}", 0, "no \"host\"" },
	{ GOOD_HEAD "\"decision\":\"deny\",\"reason\":\"deny_rule\"}", 0,
	    "no \"port\"" },
	{ GOOD_HEAD "\"port\":80,\"reason\":\"deny_rule\"}", 0,
	    "no \"decision\"" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\"}", 0,
	    "no \"reason\"" },
	{ "{\"ts\":1,\"protocol\":\"http\",\"host\":\"h\"," GOOD_TAIL "}", 0,
	    "\"ts\" is not a string" },
	{ "{\"ts\":\"t\",\"protocol\":[],\"host\":\"h\"," GOOD_TAIL "}", 0,
	    "\"protocol\" is not a string" },
	{ "{\"ts\":\"t\",\"protocol\":\"http\",\"host\":null," GOOD_TAIL "}",
	    0, "\"host\" is not a string" },
	{ GOOD_HEAD "\"port\":\"80\",\"decision\":\"deny\","
	    "\"reason\":\"deny_rule\"}", 0, "\"port\" is not an integer" },
	{ GOOD_HEAD "\"port\":80.0,\"decision\":\"deny\","
	    "\"reason\":\"deny_rule\"}", 0, "\"port\" is not an integer" },
	{ GOOD_HEAD "\"port\":true,\"decision\":\"deny\","
	    "\"reason\":\"deny_rule\"}", 0, "\"port\" is not an integer" },
	{ GOOD_HEAD "\"port\":80,\"decision\":false,"
	    "\"reason\":\"deny_rule\"}", 0, "\"decision\" is not a string" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\","
	    "\"reason\":{}}", 0, "\"reason\" is not a string" },
	{ GOOD ",\"addr\":1}", 0, "\"addr\" is not a string" },
	{ GOOD ",\"run\":{\"a\":1}}", 0, "\"run\" is not a string" },
	{ "{\"ts\":\"t\",\"protocol\":\"ftp\",\"host\":\"h\"," GOOD_TAIL "}",
	    0, "unknown protocol \"ftp\"" },
	{ "{\"ts\":\"t\",\"protocol\":\"HTTP\",\"host\":\"h\"," GOOD_TAIL "}",
	    0, "unknown protocol" },
	{ "{\"ts\":\"t\",\"protocol\":\"\",\"host\":\"h\"," GOOD_TAIL "}",
	    0, "unknown protocol" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"maybe\","
	    "\"reason\":\"deny_rule\"}", 0, "unknown decision \"maybe\"" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\",\"reason\":\"x\"}", 0,
	    "unknown reason \"x\"" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\",\"reason\":\"none\"}",
	    0, "unknown reason \"none\"" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\","
	    "\"reason\":\"deny_rule \"}", 0, "unknown reason" },
	{ GOOD_HEAD "\"port\":-1,\"decision\":\"deny\","
	    "\"reason\":\"deny_rule\"}", 0, "port out of range" },
	{ GOOD_HEAD "\"port\":65536,\"decision\":\"deny\","
	    "\"reason\":\"deny_rule\"}", 0, "port out of range" },
	{ GOOD_HEAD "\"port\":9223372036854775807,\"decision\":\"deny\","
	    "\"reason\":\"deny_rule\"}", 0, "port out of range" },
	{ GOOD_HEAD "\"port\":-9223372036854775808,\"decision\":\"deny\","
	    "\"reason\":\"deny_rule\"}", 0, "port out of range" },
	{ GOOD_HEAD "\"port\":99999999999999999999999,\"decision\":\"deny\","
	    "\"reason\":\"deny_rule\"}", 0, "number out of range" },
	{ GOOD_HEAD "\"port\":1e999,\"decision\":\"deny\","
	    "\"reason\":\"deny_rule\"}", 0, "number out of range" },
	{ GOOD ",\"port\":80}", 0, "duplicate key" },
	{ GOOD ",\"run\":\"a\",\"run\":\"a\"}", 0, "duplicate key" },
	{ GOOD ",\"extra\":1}", 0, "unknown key \"extra\"" },
	{ GOOD ",\"\":1}", 0, "unknown key" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"allow\","
	    "\"reason\":\"deny_rule\"}", 0,
	    "reason deny_rule with decision allow" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\","
	    "\"reason\":\"allow_rule\"}", 0,
	    "reason allow_rule with decision deny" },
	/* A direct line (run mode's refusals around the proxy). */
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\","
	    "\"reason\":\"not_through_proxy\"}", 0,
	    "reason not_through_proxy with protocol http" },
	{ "{\"ts\":\"t\",\"protocol\":\"direct\",\"host\":\"\"," GOOD_TAIL "}",
	    0, "reason deny_rule with protocol direct" },
	{ "{\"ts\":\"t\",\"protocol\":\"direct\",\"host\":\"\",\"port\":0,"
	    "\"decision\":\"deny\",\"reason\":\"not_through_proxy\","
	    "\"count\":1}", 0, "\"count\" below 2" },
	{ GOOD ",\"count\":5}", 0, "\"count\" on a http line" },
	{ GOOD ",\"pid\":\"12\"}", 0, "\"pid\" is not an integer" },
	{ GOOD ",\"exe\":12}", 0, "\"exe\" is not a string" },
	{ GOOD ",\"pid\":0}", 0, "\"pid\" below 1" },
	{ GOOD ",\"pid\":-4}", 0, "\"pid\" below 1" },
	/* Report mode's lines (SPEC 3.1). */
	{ GOOD ",\"would\":\"no_allow_rule\"}", 0,
	    "\"would\" with reason deny_rule" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"allow\","
	    "\"reason\":\"report_only\"}", 0, "report_only without \"would\"" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\","
	    "\"reason\":\"report_only\",\"would\":\"deny_rule\"}", 0,
	    "reason report_only with decision deny" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"allow\","
	    "\"reason\":\"report_only\",\"would\":\"private_address\"}", 0,
	    "\"would\" is not no_allow_rule or deny_rule \"private_address\"" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"allow\","
	    "\"reason\":\"report_only\",\"would\":\"\\u001b[2J\"}", 0,
	    "\"would\" is not no_allow_rule or deny_rule" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"allow\","
	    "\"reason\":\"report_only\",\"would\":7}", 0,
	    "\"would\" is not a string" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"allow\","
	    "\"reason\":\"allow_rule\",\"would\":\"deny_rule\"}", 0,
	    "\"would\" with reason allow_rule" },
	/* Reasons decided before any address is judged have none. */
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\",\"reason\":"
	    "\"dns_failure\",\"addr\":\"1.2.3.4\"}", 0,
	    "\"addr\" with reason dns_failure" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\",\"reason\":"
	    "\"invalid_target\",\"addr\":\"1.2.3.4\"}", 0,
	    "\"addr\" with reason invalid_target" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\",\"reason\":"
	    "\"invalid_request\",\"addr\":\"1.2.3.4\"}", 0,
	    "\"addr\" with reason invalid_request" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\",\"reason\":"
	    "\"unsupported_command\",\"addr\":\"1.2.3.4\"}", 0,
	    "\"addr\" with reason unsupported_command" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\",\"reason\":"
	    "\"limit_exceeded\",\"addr\":\"1.2.3.4\"}", 0,
	    "\"addr\" with reason limit_exceeded" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\",\"reason\":"
	    "\"log_unavailable\",\"addr\":\"1.2.3.4\"}", 0,
	    "\"addr\" with reason log_unavailable" },
	{ GOOD_HEAD "\"port\":80,\"decision\":\"deny\",\"reason\":"
	    "\"shutting_down\",\"addr\":\"1.2.3.4\"}", 0,
	    "\"addr\" with reason shutting_down" },
	/* The one line for refusals answered without theirs (log_wait). */
	{ "{\"ts\":\"t\",\"event\":\"close\",\"count\":1,\"reasons\":"
	    "{\"deny_rule\":1}}", 0, "malformed \"event\" line" },
	{ "{\"ts\":\"t\",\"event\":\"unlogged\",\"count\":3,\"reasons\":"
	    "{\"deny_rule\":2}}", 0, "malformed \"event\" line" },
	{ "{\"ts\":\"t\",\"event\":\"unlogged\",\"count\":1,\"reasons\":"
	    "{\"allow_rule\":1}}", 0, "malformed \"event\" line" },
	{ "{\"ts\":\"t\",\"event\":\"unlogged\",\"count\":1,\"reasons\":"
	    "{\"nope\":1}}", 0, "malformed \"event\" line" },
	{ "{\"ts\":\"t\",\"event\":\"unlogged\",\"count\":1,\"reasons\":"
	    "{\"deny_rule\":1},\"host\":\"h\"}", 0, "malformed \"event\" line" },
	{ "{\"ts\":\"t\",\"event\":\"unlogged\",\"count\":0,\"reasons\":"
	    "{}}", 0, "malformed \"event\" line" },
	{ NUL_LINE, sizeof(NUL_LINE) - 1, "NUL at byte" },
	{ "\0", 1, "NUL at byte 0" },
	{ "{\"ts\":\"t\\u0000\",\"protocol\":\"http\",\"host\":\"h\","
	    GOOD_TAIL "}", 0, "NUL character" },
	{ "{\"ts\\u0000\":\"t\",\"protocol\":\"http\",\"host\":\"h\","
	    GOOD_TAIL "}", 0, "NUL character" },
	{ "{\"ts\":\"\xff\",\"protocol\":\"http\",\"host\":\"h\","
	    GOOD_TAIL "}", 0, "invalid UTF-8" },
	{ "{\"ts\":\"\xc0\x80\",\"protocol\":\"http\",\"host\":\"h\","
	    GOOD_TAIL "}", 0, "invalid UTF-8" },
	{ "{\"ts\":\"\\ud800\",\"protocol\":\"http\",\"host\":\"h\","
	    GOOD_TAIL "}", 0, "not JSON" },
};

static void
bad_row(const void *arg)
{
	const struct bad_row *row = arg;
	size_t len = row->len ? row->len : strlen(row->line);
	char why[WHY_MAX];
	struct audit *a;
	json_t *j;

	a = audit_new();
	CHECK(a != NULL, "audit_new");
	why[0] = '\0';
	CHECK(feed(a, row->line, len, why, sizeof(why)) == -1, "accepted");
	CHECK(strstr(why, row->why) != NULL, "why '%s', want '%s'", why,
	    row->why);
	CHECK(printable(why), "why has unprintable bytes");
	j = summary(a, 10);
	CHECK(num(j, "records", NULL) == 0, "counted as a record");
	CHECK(num(j, "malformed", NULL) == 1, "not counted as malformed");
	CHECK(json_array_size(json_object_get(j, "top_denied")) == 0,
	    "host counted");
	json_decref(j);
	audit_free(a);
}

static void
test_malformed(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(bad_rows); i++) {
		const struct bad_row *r = &bad_rows[i];

		row_begin("bad_rows", i, r->line, r->len ? r->len :
		    strlen(r->line));
		row_run(bad_row, r);
	}
	rows_done("bad_rows");
}

/* One line for refusals answered without theirs: its counts, by reason. */
static void
test_unlogged(void **state)
{
	struct audit *a;
	json_t *j;

	(void)state;
	assert_non_null(a = audit_new());
	assert_int_equal(feed_str(a, "{\"ts\":\"2026-12-06T19:00:00.000Z\","
	    "\"event\":\"unlogged\",\"count\":5,\"reasons\":{\"deny_rule\":"
	    "2,\"log_unavailable\":3},\"run\":\"r1\"}"), 0);
	j = summary(a, 10);
	assert_int_equal(num(j, "records", NULL), 1);
	assert_int_equal(num(j, "malformed", NULL), 0);
	assert_int_equal(num(j, "decisions", "deny"), 5);
	assert_int_equal(num(j, "decisions", "allow"), 0);
	assert_int_equal(num(j, "by_reason", "deny_rule"), 2);
	assert_int_equal(num(j, "by_reason", "log_unavailable"), 3);
	json_decref(j);
	audit_free(a);
}

/* Deep nesting, within and beyond jansson's limit, fails cleanly. */
static void
test_nested(void **state)
{
	static const size_t depths[] = { 100, 2047, 2049, 100000, 1000000 };
	char why[WHY_MAX], *s;
	struct audit *a;
	size_t d, i, len;

	(void)state;
	assert_non_null(a = audit_new());
	for (d = 0; d < NELEM(depths); d++) {
		len = 2 * depths[d] + 16;
		assert_non_null(s = malloc(len));
		/* {"run": [[[ ... ]]] } */
		len = (size_t)snprintf(s, len, "{\"run\":");
		for (i = 0; i < depths[d]; i++)
			s[len++] = '[';
		for (i = 0; i < depths[d]; i++)
			s[len++] = ']';
		s[len++] = '}';
		why[0] = '\0';
		assert_int_equal(feed(a, s, len, why, sizeof(why)), -1);
		if (depths[d] > 2048 && strstr(why, "nested too deeply") ==
		    NULL)
			fail_msg("depth %zu: why '%s'", depths[d], why);
		/* And unclosed: the same, without the closing half. */
		assert_int_equal(feed(a, s, len / 2, why, sizeof(why)), -1);
		free(s);
	}
	audit_free(a);
}

/* Whatever a forged line holds, why shows none of it but plain names. */
static void
test_no_echo(void **state)
{
	static const char *const lines[] = {
		"AKIASECRETSECRET \x1b]0;pwned\x07",
		"{\"AKIASECRETSECRET\":1}",
		GOOD ",\"akiasecret\x1b[2J\":1}",
		GOOD_HEAD "\"port\":80,\"decision\":\"deny\","
		    "\"reason\":\"AKIASECRETSECRET\"}",
		GOOD_HEAD "\"port\":80,\"decision\":\"deny\","
		    "\"reason\":\"akiasecretsecretakiasecretsecretakiasecret\"}",
		GOOD_HEAD "\"port\":80,\"decision\":\"deny\","
		    "\"reason\":\"\\u001b[2J\"}",
		"{\"ts\":\"t\",\"protocol\":\"\xe2\x80\xae\",\"host\":\"h\","
		    GOOD_TAIL "}",
		"{\"ts\":\"AKIASECRETSECRET\"",
		"[\"AKIASECRETSECRET\"]",
	};
	char why[WHY_MAX];
	struct audit *a;
	size_t i;

	(void)state;
	assert_non_null(a = audit_new());
	for (i = 0; i < NELEM(lines); i++) {
		why[0] = '\0';
		assert_int_equal(feed(a, lines[i], strlen(lines[i]), why,
		    sizeof(why)), -1);
		if (!printable(why) || strcasestr(why, "secret") != NULL ||
		    strstr(why, "[2J") != NULL)
			fail_msg("line %zu: why '%s' quotes the line", i, why);
	}
	audit_free(a);
}

/* why may be short, or absent. */
static void
test_why_sizes(void **state)
{
	char why[8];
	struct audit *a;
	json_t *j;

	(void)state;
	assert_non_null(a = audit_new());
	memset(why, 'x', sizeof(why));
	assert_int_equal(audit_line(a, "nope", 4, why, sizeof(why)), -1);
	assert_int_equal(strlen(why), sizeof(why) - 1);
	assert_int_equal(audit_line(a, "nope", 4, NULL, 0), -1);
	assert_int_equal(audit_line(a, "nope", 4, why, 0), -1);
	assert_int_equal(audit_line(a, "", 0, NULL, 0), -1);
	assert_int_equal(audit_line(a, GOOD "}", strlen(GOOD "}"), NULL, 0),
	    0);
	j = summary(a, 10);
	assert_int_equal(num(j, "malformed", NULL), 4);
	assert_int_equal(num(j, "records", NULL), 1);
	json_decref(j);
	audit_free(a);
}

/* ---------------------------------------------------------------- */
/* Top hosts: most requested first, ties by name, at most N. */

static void
add_hosts(struct audit *a, const char *host, int n, bool allow)
{
	while (n-- > 0)
		assert_int_equal(feed_str(a, record("http_connect", host, 443,
		    allow ? "allow" : "deny", allow ? "allow_rule" :
		    "no_allow_rule", "")), 0);
}

static void
check_top(json_t *j, const char *list, const char *const *hosts,
    const int *counts, size_t n)
{
	json_t *arr = json_object_get(j, list), *e;
	size_t i;

	assert_true(json_is_array(arr));
	if (json_array_size(arr) != n)
		fail_msg("%s has %zu hosts, want %zu", list,
		    json_array_size(arr), n);
	json_array_foreach(arr, i, e) {
		assert_int_equal(json_object_size(e), 2);
		assert_string_equal(json_string_value(json_object_get(e,
		    "host")), hosts[i]);
		assert_int_equal(json_integer_value(json_object_get(e,
		    "count")), counts[i]);
	}
}

static void
test_top(void **state)
{
	static const char *const allowed[] = { "b.example", "a.example",
	    "c.example", "d.example" };
	static const int acounts[] = { 5, 3, 3, 1 };
	static const char *const denied[] = { "", "z.example" };
	static const int dcounts[] = { 2, 2 };
	struct audit *a;
	json_t *j;

	(void)state;
	assert_non_null(a = audit_new());
	/* Fed in an order that is not the answer. */
	add_hosts(a, "d.example", 1, true);
	add_hosts(a, "c.example", 3, true);
	add_hosts(a, "z.example", 2, false);
	add_hosts(a, "b.example", 5, true);
	add_hosts(a, "a.example", 3, true);
	add_hosts(a, "", 2, false);
	/* The same host denied is counted apart from it allowed. */
	add_hosts(a, "a.example", 0, false);

	j = summary(a, 10);
	check_top(j, "top_allowed", allowed, acounts, 4);
	check_top(j, "top_denied", denied, dcounts, 2);
	json_decref(j);
	j = summary(a, 2);
	check_top(j, "top_allowed", allowed, acounts, 2);
	check_top(j, "top_denied", denied, dcounts, 2);
	json_decref(j);
	j = summary(a, 1);
	check_top(j, "top_allowed", allowed, acounts, 1);
	check_top(j, "top_denied", denied, dcounts, 1);
	json_decref(j);
	j = summary(a, 0);
	check_top(j, "top_allowed", allowed, acounts, 0);
	check_top(j, "top_denied", denied, dcounts, 0);
	assert_int_equal(num(j, "records", NULL), 16);
	json_decref(j);
	audit_free(a);
}

/* ---------------------------------------------------------------- */
/* The text summary, exactly. */

static const char text_want[] =
	"records 7 (malformed 2)\n"
	"runs 2\n"
	"attributed: 3 to runs by the run id they carry, 4 to services (no "
	"run id), 2 malformed to nothing; verify --log checks a run's records "
	"against its report\n"
	"decisions: allow 4, deny 3\n"
	"\n"
	"by reason:\n"
	"  allow_rule          3\n"
	"  default_allow       1\n"
	"  no_allow_rule       1\n"
	"  invalid_request     1\n"
	"  connect_timeout     1\n"
	"\n"
	"by protocol:\n"
	"  http                2\n"
	"  http_connect        4\n"
	"  socks5              1\n"
	"\n"
	"top allowed hosts:\n"
	"  3  api.example.com\n"
	"  1  x\\x1b[2J\\x07\\x5c\\x20\\xc3\\xa9\n"
	"\n"
	"top denied hosts:\n"
	"  1  \"\"\n"
	"  1  evil.example\n"
	"  1  slow.example\n"
	"\n"
	"report mode let through (enforcing refuses these): none\n"
	"\n"
	"by process (0 of 7 proxied decisions say which): none\n"
	"\n"
	"around the proxy (not_through_proxy), by process: none\n";

static void
test_text(void **state)
{
	struct audit *a;
	char *text, *p;

	(void)state;
	assert_non_null(a = audit_new());
	assert_int_equal(feed_str(a, record("http_connect", "api.example.com",
	    443, "allow", "allow_rule", ",\"run\":\"r1\"")), 0);
	assert_int_equal(feed_str(a, record("http_connect", "api.example.com",
	    443, "allow", "allow_rule", ",\"run\":\"r2\"")), 0);
	assert_int_equal(feed_str(a, record("http", "api.example.com", 80,
	    "allow", "allow_rule", ",\"run\":\"r1\"")), 0);
	/* A forged host: escapes, a backslash, a space, UTF-8. */
	assert_int_equal(feed_str(a, record("socks5",
	    "x\\u001b[2J\\u0007\\\\ \xc3\xa9", 1, "allow", "default_allow",
	    "")), 0);
	assert_int_equal(feed_str(a, record("http_connect", "evil.example",
	    443, "deny", "no_allow_rule", "")), 0);
	assert_int_equal(feed_str(a, record("http_connect", "slow.example",
	    443, "deny", "connect_timeout", "")), 0);
	assert_int_equal(feed_str(a, record("http", "", 0, "deny",
	    "invalid_request", "")), 0);
	assert_int_equal(feed_str(a, "junk"), -1);
	assert_int_equal(feed_str(a, ""), -1);
	text = printed(a, false, 10);
	if (strcmp(text, text_want) != 0)
		fail_msg("text summary:\n%s\nwant:\n%s", text, text_want);
	/* Nothing raw reaches the terminal, in JSON either. */
	free(text);
	text = printed(a, true, 10);
	for (p = text; *p != '\0'; p++)
		if (*p != '\n' && ((unsigned char)*p < 0x20 ||
		    (unsigned char)*p >= 0x7f))
			fail_msg("raw byte 0x%02x in JSON", (unsigned char)*p);
	assert_non_null(strstr(text, "\\u001B[2J\\u0007\\\\ \\u00E9"));
	free(text);
	/* --top 0: totals only. */
	text = printed(a, false, 0);
	assert_null(strstr(text, "hosts"));
	free(text);
	audit_free(a);
}

/* An empty summary: zero totals, empty lists, "none". */
static void
test_empty(void **state)
{
	static const char want[] =
		"records 0 (malformed 0)\n"
		"runs 0\n"
		"attributed: 0 to runs by the run id they carry, 0 to services "
		"(no run id), 0 malformed to nothing; verify --log checks a "
		"run's records against its report\n"
		"decisions: allow 0, deny 0\n"
		"\n"
		"by reason: none\n"
		"\n"
		"by protocol: none\n"
		"\n"
		"top allowed hosts: none\n"
		"\n"
		"top denied hosts: none\n"
		"\n"
		"report mode let through (enforcing refuses these): none\n"
		"\n"
		"by process (0 of 0 proxied decisions say which): none\n"
		"\n"
		"around the proxy (not_through_proxy), by process: none\n";
	struct audit *a;
	char *text;
	json_t *j;
	int r;

	(void)state;
	assert_non_null(a = audit_new());
	text = printed(a, false, 10);
	assert_string_equal(text, want);
	free(text);
	j = summary(a, 10);
	assert_int_equal(num(j, "records", NULL), 0);
	assert_int_equal(num(j, "malformed", NULL), 0);
	assert_int_equal(num(j, "runs", NULL), 0);
	assert_int_equal(num(j, "run_records", NULL), 0);
	assert_int_equal(num(j, "service_records", NULL), 0);
	assert_int_equal(num(j, "decisions", "allow"), 0);
	assert_int_equal(num(j, "decisions", "deny"), 0);
	for (r = EGRESS_R_NONE + 1; r < EGRESS_R_COUNT; r++)
		assert_int_equal(num(j, "by_reason", egress_reason_name(r)), 0);
	assert_int_equal(num(j, "by_protocol", "socks5"), 0);
	assert_int_equal(json_array_size(json_object_get(j, "top_allowed")),
	    0);
	assert_int_equal(num(j, "owned", NULL), 0);
	assert_int_equal(num(j, "would", "no_allow_rule"), 0);
	assert_int_equal(json_array_size(json_object_get(j, "report_only")),
	    0);
	assert_int_equal(json_array_size(json_object_get(j, "by_exe")), 0);
	assert_int_equal(json_array_size(json_object_get(j, "direct")), 0);
	assert_int_equal(json_object_size(j), 16);	/* bytes: close lines */
	json_decref(j);
	audit_free(a);
	audit_free(NULL);
}

/* ---------------------------------------------------------------- */
/* Runs: report mode, processes, and refusals around the proxy. */

#define RUN	",\"run\":\"0123456789abcdef0123456789abcdef\""
#define CURL	",\"pid\":41,\"exe\":\"/usr/bin/curl\""
#define PY	",\"pid\":42,\"exe\":\"/usr/bin/python3.11\""
#define NC	",\"pid\":43,\"exe\":\"/usr/bin/nc\""

static const char run_text_want[] =
	"\n"
	"report mode let through (enforcing refuses these):\n"
	"   3  pypi.test:443 no_allow_rule\n"
	"   1  [2001:db8::7]:443 deny_rule\n"
	"\n"
	"by process (6 of 7 proxied decisions say which):\n"
	"  /usr/bin/curl: allow 3, deny 1\n"
	"     2  pypi.test\n"
	"     1  2001:db8::7\n"
	"     1  bad.test\n"
	"  /usr/bin/python3.11: allow 2, deny 0\n"
	"     1  files.test\n"
	"     1  pypi.test\n"
	"\n"
	"around the proxy (not_through_proxy), by process:\n"
	"  /usr/bin/nc (pid 43): 6 refused\n"
	"     5  127.0.0.1:5432\n"
	"     1  unix:/run/postgresql/.s.PGSQL.5432\n"
	"  (process not known): 1 refused\n"
	"     1  [::1]:6379\n";

static void
test_runs(void **state)
{
	struct audit *a;
	char *text, *at;
	json_t *j, *e;

	(void)state;
	assert_non_null(a = audit_new());
	assert_int_equal(feed_str(a, record("http_connect", "pypi.test", 443,
	    "allow", "report_only", ",\"would\":\"no_allow_rule\","
	    "\"addr\":\"192.0.2.1\"" RUN CURL)), 0);
	assert_int_equal(feed_str(a, record("http_connect", "pypi.test", 443,
	    "allow", "report_only", ",\"would\":\"no_allow_rule\"" RUN CURL)),
	    0);
	assert_int_equal(feed_str(a, record("http_connect", "pypi.test", 443,
	    "allow", "report_only", ",\"would\":\"no_allow_rule\"" RUN PY)),
	    0);
	assert_int_equal(feed_str(a, record("socks5", "2001:db8::7", 443,
	    "allow", "report_only", ",\"would\":\"deny_rule\"" RUN CURL)), 0);
	assert_int_equal(feed_str(a, record("http", "files.test", 80,
	    "allow", "allow_rule", RUN PY)), 0);
	assert_int_equal(feed_str(a, record("http", "bad.test", 80,
	    "deny", "private_address", ",\"addr\":\"10.0.0.1\"" RUN CURL)), 0);
	/* The process had gone: no pid, no exe. */
	assert_int_equal(feed_str(a, record("http", "late.test", 80,
	    "allow", "allow_rule", RUN)), 0);
	assert_int_equal(feed_str(a, record("direct", "", 5432, "deny",
	    "not_through_proxy", ",\"addr\":\"127.0.0.1\",\"count\":4"
	    RUN NC)), 0);
	assert_int_equal(feed_str(a, record("direct", "", 5432, "deny",
	    "not_through_proxy", ",\"addr\":\"127.0.0.1\"" RUN NC)), 0);
	assert_int_equal(feed_str(a, record("direct", "", 0, "deny",
	    "not_through_proxy", ",\"addr\":\"unix:/run/postgresql/"
	    ".s.PGSQL.5432\"" RUN NC)), 0);
	assert_int_equal(feed_str(a, record("direct", "", 6379, "deny",
	    "not_through_proxy", ",\"addr\":\"::1\"" RUN)), 0);
	text = printed(a, false, 10);
	if ((at = strstr(text, "\nreport mode let through")) == NULL ||
	    strcmp(at, run_text_want) != 0)
		fail_msg("text summary:\n%s\nwant at its end:\n%s", text,
		    run_text_want);
	assert_non_null(strstr(text, "report_only, by what enforcing says:\n"
	    "  deny_rule            1\n"
	    "  no_allow_rule        3\n"));
	free(text);
	j = summary(a, 10);
	assert_int_equal(num(j, "owned", NULL), 6);
	assert_int_equal(num(j, "would", "no_allow_rule"), 3);
	assert_int_equal(num(j, "would", "deny_rule"), 1);
	assert_int_equal(num(j, "by_reason", "report_only"), 4);
	assert_int_equal(num(j, "by_reason", "not_through_proxy"), 7);
	e = json_array_get(json_object_get(j, "report_only"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "host")),
	    "pypi.test");
	assert_int_equal(num(e, "port", NULL), 443);
	assert_int_equal(num(e, "count", NULL), 3);
	assert_int_equal(num(e, "would", "no_allow_rule"), 3);
	e = json_array_get(json_object_get(j, "by_exe"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "exe")),
	    "/usr/bin/curl");
	assert_int_equal(num(e, "allow", NULL), 3);
	assert_int_equal(num(e, "deny", NULL), 1);
	e = json_array_get(json_object_get(e, "top_hosts"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "host")),
	    "pypi.test");
	assert_int_equal(num(e, "count", NULL), 2);
	e = json_array_get(json_object_get(j, "direct"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "exe")),
	    "/usr/bin/nc");
	assert_int_equal(num(e, "count", NULL), 6);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(e,
	    "pids"), 0)), 43);
	e = json_array_get(json_object_get(e, "endpoints"), 0);
	assert_string_equal(json_string_value(json_object_get(e,
	    "endpoint")), "127.0.0.1:5432");
	assert_int_equal(num(e, "count", NULL), 5);
	e = json_array_get(json_object_get(j, "direct"), 1);
	assert_string_equal(json_string_value(json_object_get(e, "exe")), "");
	json_decref(j);
	/* --top 1: one host a process, one endpoint, the rest counted. */
	text = printed(a, false, 1);
	assert_non_null(strstr(text, "  /usr/bin/curl: allow 3, deny 1\n"
	    "     2  pypi.test\n    (2 more)\n"));
	assert_non_null(strstr(text, "top denied hosts:\n   1  bad.test\n\n"));
	free(text);
	audit_free(a);
}

/* ---------------------------------------------------------------- */
/* audit --suggest: a policy admitting what the logs asked for. */

static char *
paged(const struct audit *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(audit_html(a, f, 5), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *
suggested(const struct audit *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(audit_suggest(a, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/*
 * Whatever the logs said: comments and allow lines only, printable, each
 * rule one that parses, names one host or one address (no wildcard, no
 * prefix), never a special-purpose or metadata address; returns how many.
 */
static size_t
check_suggestion(const char *text)
{
	char line[1024], *hash;
	const char *p, *nl, *err;
	struct egress_rule r;
	size_t n = 0, len;

	for (p = text; *p != '\0'; p = nl + 1) {
		assert_non_null(nl = strchr(p, '\n'));
		len = (size_t)(nl - p);
		assert_true(len < sizeof(line));
		memcpy(line, p, len);
		line[len] = '\0';
		if (!printable(line))
			fail_msg("unprintable suggestion line: %s", line);
		if (line[0] == '#')
			continue;
		if (strncmp(line, "allow ", 6) != 0)
			fail_msg("suggestion line: %s", line);
		if ((hash = strstr(line, "  # ")) == NULL)
			fail_msg("no comment: %s", line);
		*hash = '\0';
		if (egress_rule_parse(line + 6, strlen(line + 6), true, &r,
		    &err) == -1)
			fail_msg("suggested rule does not parse (%s): %s", err,
			    line);
		assert_int_not_equal(r.kind, EGRESS_RULE_WILDCARD);
		assert_int_not_equal(r.port, 0);
		if (r.kind == EGRESS_RULE_CIDR) {
			assert_int_equal(r.plen, 128);
			if (egress_registry_lookup(&r.addr) != NULL ||
			    egress_addr_is_metadata(&r.addr))
				fail_msg("special-purpose suggestion: %s",
				    line);
		}
		n++;
	}
	return n;
}

static const char suggest_want[] =
	"# harn-egressd audit --suggest: 5 targets the logs asked for, in 9 "
	"decisions.\n"
	"# Review each line, then add them to your policy in place of mode "
	"report.\n"
	"# Settings (resolver, allow_loopback, timeouts) are not in the logs: "
	"keep yours.\n"
	"# Left out: 3 special-purpose or metadata addresses (never "
	"suggested; see exempt in egress.conf(5)).\n"
	"# Left out: 2 targets no rule can name.\n"
	"# Left out: 1 target refused private_address (audit --suggest "
	"--full\n# says what would lift it).\n"
	"# 3 hosts under pypi.test (a.pypi.test, b.pypi.test, files.pypi.test):"
	" a person who trusts all of pypi.test may write allow *.pypi.test "
	"instead\n"
	"allow [2606:2800::1]:443  # 1 request: report_only (would: "
	"no_allow_rule) 1\n"
	"allow a.pypi.test:443  # 1 request: no_allow_rule 1\n"
	"allow b.pypi.test:443  # 1 request: deny_rule 1; a deny rule of the "
	"policy refuses it, and an allow does not lift a deny\n"
	"allow files.pypi.test:443  # 4 requests: allow_rule 2, default_allow "
	"1, report_only (would: deny_rule) 1; a deny rule of the policy "
	"refuses it, and an allow does not lift a deny\n"
	"allow files.pypi.test:8443  # 2 requests: allow_rule 2\n";

static void
test_suggest(void **state)
{
	struct audit *a;
	char *text;

	(void)state;
	assert_non_null(a = audit_new());
	text = suggested(a);
	assert_int_equal(check_suggestion(text), 0);
	assert_non_null(strstr(text, "0 targets"));
	free(text);
	/* Asked for: allowed, let through, refused by the rules. */
	assert_int_equal(feed_str(a, record("http_connect", "Files.PyPI.test.",
	    443, "allow", "allow_rule", "")), 0);
	assert_int_equal(feed_str(a, record("http_connect", "files.pypi.test",
	    443, "allow", "allow_rule", RUN CURL)), 0);
	assert_int_equal(feed_str(a, record("http", "files.pypi.test", 443,
	    "allow", "default_allow", "")), 0);
	assert_int_equal(feed_str(a, record("socks5", "files.pypi.test", 443,
	    "allow", "report_only", ",\"would\":\"deny_rule\"")), 0);
	assert_int_equal(feed_str(a, record("socks5", "files.pypi.test", 8443,
	    "allow", "allow_rule", "")), 0);
	assert_int_equal(feed_str(a, record("socks5", "files.pypi.test", 8443,
	    "deny", "connect_failed", "")), 0);
	assert_int_equal(feed_str(a, record("socks5", "files.pypi.test", 8443,
	    "allow", "allow_rule", "")), 0);
	assert_int_equal(feed_str(a, record("http_connect", "a.pypi.test", 443,
	    "deny", "no_allow_rule", "")), 0);
	assert_int_equal(feed_str(a, record("http_connect", "b.pypi.test", 443,
	    "deny", "deny_rule", "")), 0);
	assert_int_equal(feed_str(a, record("socks5", "2606:2800::1", 443,
	    "allow", "report_only", ",\"would\":\"no_allow_rule\"")), 0);
	/* Never suggested: special-purpose and metadata addresses. */
	assert_int_equal(feed_str(a, record("socks5", "10.0.0.1", 443,
	    "allow", "report_only", ",\"would\":\"no_allow_rule\"")), 0);
	assert_int_equal(feed_str(a, record("socks5", "168.63.129.16", 80,
	    "allow", "allow_rule", "")), 0);
	assert_int_equal(feed_str(a, record("http", "127.0.0.1", 8080,
	    "allow", "allow_rule", "")), 0);
	/* Forged hosts: a newline and a rule, a wildcard. */
	assert_int_equal(feed_str(a, record("socks5", "x.test\\nallow *", 443,
	    "allow", "allow_rule", "")), 0);
	assert_int_equal(feed_str(a, record("socks5", "*.test", 443,
	    "allow", "allow_rule", "")), 0);
	/* Not asked for in a way a rule answers: refused otherwise. */
	assert_int_equal(feed_str(a, record("http", "priv.test", 80,
	    "deny", "private_address", "")), 0);
	assert_int_equal(feed_str(a, record("http", "gone.test", 80,
	    "deny", "dns_failure", "")), 0);
	assert_int_equal(feed_str(a, record("direct", "", 5432, "deny",
	    "not_through_proxy", ",\"addr\":\"93.184.216.34\"")), 0);
	text = suggested(a);
	if (strcmp(text, suggest_want) != 0)
		fail_msg("suggestion:\n%s\nwant:\n%s", text, suggest_want);
	assert_int_equal(check_suggestion(text), 5);
	free(text);
	audit_free(a);
}

/* ---------------------------------------------------------------- */
/* Robustness: random and mutated lines never crash, and add up. */

static uint64_t rng_state;

/* xorshift64*: small, and the same everywhere for a given seed. */
static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static size_t
pick(size_t n)
{
	return (size_t)(rng() % n);
}

/* A valid record, most of the time with a host from a small set. */
static size_t
make_valid(char *buf, size_t cap)
{
	static const char *const hosts[] = { "a.example", "b.example", "",
	    "10.0.0.1", "2001:db8::1", "x\\u001b" };
	int r = 1 + (int)pick(EGRESS_R_COUNT - 1);
	char extra[96] = "";

	if (allows(r) && pick(2))
		snprintf(extra, sizeof(extra), ",\"addr\":\"93.184.216.%zu\"",
		    pick(256));
	if (pick(3) == 0)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
		    ",\"run\":\"run%zu\"", pick(4));
	return (size_t)snprintf(buf, cap, "%s", record(
	    protocols[pick(NELEM(protocols))], hosts[pick(NELEM(hosts))],
	    (long)pick(65536), allows(r) ? "allow" : "deny",
	    egress_reason_name(r), extra));
}

/* Bytes a mutation inserts: JSON's own, and the awkward ones. */
static char
some_byte(void)
{
	static const char interesting[] = "{}[]\":,\\-0123456789eE.tfn u";

	switch (pick(4)) {
	case 0:
		return (char)pick(256);
	case 1:
		return "\0\x1b\xff\xc3\x80\n\r"[pick(7)];
	default:
		return interesting[pick(sizeof(interesting) - 1)];
	}
}

/* Mutate buf[0..len) in place; returns the new length (< cap). */
static size_t
mutate(char *buf, size_t len, size_t cap)
{
	size_t i, n, at, k, rounds = 1 + pick(4);

	for (k = 0; k < rounds; k++) {
		at = len ? pick(len) : 0;
		switch (pick(6)) {
		case 0:		/* flip a bit */
			if (len)
				buf[at] ^= (char)(1u << pick(8));
			break;
		case 1:		/* truncate */
			len = at;
			break;
		case 2:		/* insert bytes */
			n = 1 + pick(8);
			if (len + n >= cap)
				break;
			memmove(buf + at + n, buf + at, len - at);
			for (i = 0; i < n; i++)
				buf[at + i] = some_byte();
			len += n;
			break;
		case 3:		/* delete bytes */
			n = pick(len - at + 1);
			memmove(buf + at, buf + at + n, len - at - n);
			len -= n;
			break;
		case 4:		/* duplicate a span: duplicate keys, nesting */
			n = pick(len - at + 1);
			if (len + n >= cap)
				break;
			memmove(buf + at + n, buf + at, len - at);
			len += n;
			break;
		default:	/* replace a byte */
			if (len)
				buf[at] = some_byte();
			break;
		}
	}
	return len;
}

static size_t
make_random(char *buf, size_t cap)
{
	size_t i, n = pick(cap < 200 ? cap : 200);

	for (i = 0; i < n; i++)
		buf[i] = some_byte();
	return n;
}

static void
test_robust(void **state)
{
	char buf[2048], why[WHY_MAX];
	uint64_t seed, records = 0, malformed = 0, fed;
	const char *env = getenv("AUDIT_SEED");
	struct audit *a;
	size_t len;
	json_t *j;
	char *text;
	int rv;

	(void)state;
	seed = env != NULL ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
	print_message("test_robust: AUDIT_SEED=%llu\n",
	    (unsigned long long)seed);
	rng_state = seed ? seed : 1;
	assert_non_null(a = audit_new());
	for (fed = 0; fed < ROBUST_LINES; fed++) {
		switch (pick(8)) {
		case 0:
			len = make_random(buf, sizeof(buf));
			break;
		case 1:
			len = make_valid(buf, sizeof(buf));
			break;
		default:
			len = mutate(buf, make_valid(buf, sizeof(buf) / 2),
			    sizeof(buf));
			break;
		}
		why[0] = '\0';
		rv = feed(a, buf, len, why, sizeof(why));
		if (rv == 0)
			records++;
		else if (rv == -1 && why[0] != '\0' && printable(why))
			malformed++;
		else
			fail_msg("seed %llu, line %llu: rv %d, why '%s'",
			    (unsigned long long)seed,
			    (unsigned long long)fed, rv, why);
	}
	j = summary(a, 5);
	assert_int_equal(num(j, "records", NULL), records);
	assert_int_equal(num(j, "malformed", NULL), malformed);
	assert_int_equal(records + malformed, fed);
	assert_int_equal(num(j, "decisions", "allow") +
	    num(j, "decisions", "deny"), records);
	json_decref(j);
	text = printed(a, false, 5);
	free(text);
	text = suggested(a);
	check_suggestion(text);
	free(text);
	/* The page: plain ASCII whatever the lines said. */
	text = paged(a);
	for (len = 0; text[len] != '\0'; len++)
		if (text[len] != '\n' && (text[len] < 0x20 ||
		    (unsigned char)text[len] >= 0x7f))
			fail_msg("seed %llu: byte 0x%02x in the page",
			    (unsigned long long)seed, (unsigned char)text[len]);
	free(text);
	print_message("test_robust: %llu lines, %llu records, %llu "
	    "malformed\n", (unsigned long long)fed,
	    (unsigned long long)records, (unsigned long long)malformed);
	audit_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_valid_forms),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_unlogged),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_no_echo),
		cmocka_unit_test(test_why_sizes),
		cmocka_unit_test(test_top),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_robust),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
