/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_conf: the policy file (SPEC 3.1), the environment policy (SPEC 3.4)
 * and the effective policy's text.  Every test walks a table; a failing
 * row is named with its input, and the other rows still run.
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


#include "conf/conf.h"
#include "egress/egress.h"
#include "tests/rows.h"

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))
#define NAME		"test.conf"

/* ---------------------------------------------------------------- */
/* Helpers. */

/* Parse an exact-size copy (no NUL after it). */
static struct conf *
parse_len(const char *text, size_t len, char *err, size_t errlen)
{
	struct conf *c;
	char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, text, len);
	err[0] = '\0';
	c = conf_parse(NAME, copy, len, err, errlen);
	free(copy);
	return c;
}

/* Does the formatted policy hold this exact line? */
static bool
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

static void
check_lines(const struct conf *c, const char *l1, const char *l2)
{
	char *text = conf_format(c);

	CHECK(text != NULL, "conf_format failed");
	if (l1 != NULL && !has_line(text, l1)) {
		CHECK(false, "no line '%s' in:\n%s", l1, text);
	}
	if (l2 != NULL && !has_line(text, l2)) {
		CHECK(false, "no line '%s' in:\n%s", l2, text);
	}
	free(text);
}

/* ---------------------------------------------------------------- */
/* Defaults: exactly SPEC 2, 3.1 and 4. */

static const char default_text[] =
	"default deny\n"
	"block_private on\n"
	"allow_loopback off\n"
	"mode enforce\n"
	"transparent on\n"
	"# resolver: the system's (/etc/resolv.conf)\n"
	"# listen: 127.0.0.1:0 unless --listen is given\n"
	"connect_timeout 15s\n"
	"dns_timeout 5s\n"
	"header_timeout 10s\n"
	"idle_timeout 5m\n"
	"drain_timeout 10s\n"
	"max_connections 4096\n"
	"max_header_bytes 65536\n"
	"# listen_backlog: max_connections, at most net.core.somaxconn\n"
	"log_failure_action refuse\n"
	"log_wait 1s\n";

static void
check_defaults(const struct conf *c, const char *source)
{
	char *text;

	assert_string_equal(c->source, source);
	assert_non_null(c->policy);
	assert_false(egress_policy_default_allow(c->policy));
	assert_true(egress_policy_block_private(c->policy));
	assert_false(egress_policy_allow_loopback(c->policy));
	assert_false(egress_policy_report(c->policy));
	assert_int_equal(egress_policy_nrules(c->policy), 0);
	assert_int_equal(c->nlisten, 0);
	assert_int_equal(c->nresolver, 0);
	assert_int_equal(c->connect_timeout, 15000);
	assert_int_equal(c->dns_timeout, 5000);
	assert_int_equal(c->header_timeout, 10000);
	assert_int_equal(c->idle_timeout, 300000);
	assert_int_equal(c->drain_timeout, 10000);
	assert_int_equal(c->max_connections, 4096);
	assert_int_equal(c->max_header_bytes, 65536);
	assert_false(c->log_failure_serve);
	assert_int_equal(c->log_wait, 1000);
	assert_true(c->transparent);
	assert_non_null(text = conf_format(c));
	assert_string_equal(text, default_text);
	free(text);
}

static void
test_defaults(void **state)
{
	static const char comments[] = "# nothing\n\n   \n\t# more\r\n";
	char err[CONF_ERR_MAX];
	struct conf *c;

	(void)state;
	assert_non_null(c = conf_new("somewhere"));
	check_defaults(c, "somewhere");
	conf_free(c);
	/* An empty file, or one of comments, is the same policy. */
	assert_non_null(c = conf_parse(NAME, "", 0, err, sizeof(err)));
	check_defaults(c, NAME);
	assert_int_equal(c->nbytes, 0);
	conf_free(c);
	c = conf_parse(NAME, comments, strlen(comments), err, sizeof(err));
	assert_non_null(c);
	check_defaults(c, NAME);
	assert_int_equal(c->nbytes, strlen(comments));
	assert_memory_equal(c->bytes, comments, strlen(comments));
	conf_free(c);
	conf_free(NULL);
}

/* ---------------------------------------------------------------- */
/* Every directive with its values. */

#define NO_FIELD	((size_t)-1)
#define F(f)		offsetof(struct conf, f)

struct accept_case {
	const char	*text;
	size_t		 field;		/* a uint32_t of struct conf */
	uint32_t	 value;
	int		 nrules;	/* -1: not checked */
	const char	*line1, *line2;	/* lines conf_format prints */
};

#define A_LINE(t, l1, l2)	{ t, NO_FIELD, 0, -1, l1, l2 }
#define A_RULES(t, n, l1, l2)	{ t, NO_FIELD, 0, n, l1, l2 }
#define A_NUM(t, f, v, l)	{ t, F(f), v, -1, l, NULL }

static const struct accept_case accept_cases[] = {
	A_LINE("default deny", "default deny", NULL),
	A_LINE("default allow", "default allow", NULL),
	A_LINE("block_private on", "block_private on", NULL),
	A_LINE("block_private off", "block_private off", NULL),
	A_LINE("allow_loopback on", "allow_loopback on", NULL),
	A_LINE("allow_loopback off", "allow_loopback off", NULL),
	A_LINE("log_failure_action serve", "log_failure_action serve", NULL),
	A_LINE("mode report", "mode report", "# report mode: what the rules "
	    "refuse is let through and logged report_only"),
	A_LINE("mode enforce", "mode enforce", NULL),
	A_LINE("transparent off", "transparent off", NULL),
	A_LINE("transparent on", "transparent on", NULL),
	A_LINE("upstream http://127.0.0.1:3128", "upstream http://127.0.0.1:3128",
	    "upstream_resolve local"),
	A_LINE("upstream http://[::1]:8080/", "upstream http://[::1]:8080",
	    NULL),
	A_LINE("upstream http://127.0.0.1:3128\nupstream_resolve parent",
	    "# upstream_resolve parent: names go to the parent unresolved; "
	    "address rules judge address literals only",
	    "upstream_resolve parent"),
	A_LINE("transparent off # proxy-aware programs only", "transparent off",
	    NULL),
	A_LINE("mode report # first run\r\n", "mode report", NULL),
	A_LINE("listen_backlog 512", "listen_backlog 512", NULL),
	A_LINE("log_failure_action refuse", "log_failure_action refuse",
	    NULL),
	A_RULES("allow api.example.com:443", 1, "allow api.example.com:443",
	    NULL),
	A_RULES("allow *.github.com", 1, "allow *.github.com", NULL),
	A_RULES("allow 140.82.112.0/20", 1, "allow 140.82.112.0/20", NULL),
	A_RULES("deny  blocked.example.com", 1, "deny blocked.example.com",
	    NULL),
	A_RULES("deny  [2001:db8::]/32:443", 1, "deny [2001:db8::]/32:443",
	    NULL),
	A_RULES("allow https://Example.COM/", 1, "allow example.com:443",
	    NULL),
	A_RULES("allow a.example b.example c.example", 3, "allow a.example",
	    "allow c.example"),
	A_RULES("deny a.example\t10.0.0.0/8  [::1]", 3, "deny 10.0.0.0/8",
	    "deny [::1]"),
	A_RULES("allow a.example\nallow a.example", 2, "allow a.example",
	    NULL),
	A_RULES("allow a.example\ndeny b.example\nallow c.example:80", 3,
	    "deny b.example", "allow c.example:80"),
	A_LINE("resolver 127.0.0.1:5353", "resolver 127.0.0.1:5353", NULL),
	A_LINE("resolver 127.0.0.1", "resolver 127.0.0.1:53", NULL),
	A_LINE("resolver [::1]:53", "resolver [::1]:53", NULL),
	A_LINE("resolver [::1]", "resolver [::1]:53", NULL),
	A_LINE("resolver 1.1.1.1\nresolver 8.8.8.8:5353",
	    "resolver 1.1.1.1:53", "resolver 8.8.8.8:5353"),
	A_LINE("listen 127.0.0.1:0", "listen 127.0.0.1:0", NULL),
	A_LINE("listen 127.0.0.1:8080", "listen 127.0.0.1:8080", NULL),
	A_LINE("listen [::1]:0", "listen [::1]:0", NULL),
	A_LINE("listen 127.0.0.1:1\nlisten [::1]:65535",
	    "listen 127.0.0.1:1", "listen [::1]:65535"),
	A_NUM("connect_timeout 15s", connect_timeout, 15000,
	    "connect_timeout 15s"),
	A_NUM("connect_timeout 250ms", connect_timeout, 250,
	    "connect_timeout 250ms"),
	A_NUM("connect_timeout 1ms", connect_timeout, 1,
	    "connect_timeout 1ms"),
	A_NUM("connect_timeout 2m", connect_timeout, 120000,
	    "connect_timeout 2m"),
	A_NUM("connect_timeout 1500ms", connect_timeout, 1500,
	    "connect_timeout 1500ms"),
	A_NUM("connect_timeout 86400s", connect_timeout, 86400000,
	    "connect_timeout 1440m"),
	A_NUM("connect_timeout 1440m", connect_timeout, 86400000,
	    "connect_timeout 1440m"),
	A_NUM("connect_timeout 86400000ms", connect_timeout, 86400000,
	    NULL),
	A_NUM("dns_timeout 3s", dns_timeout, 3000, "dns_timeout 3s"),
	A_NUM("header_timeout 500ms", header_timeout, 500,
	    "header_timeout 500ms"),
	A_NUM("idle_timeout 10m", idle_timeout, 600000, "idle_timeout 10m"),
	A_NUM("idle_timeout 90s", idle_timeout, 90000, "idle_timeout 90s"),
	A_NUM("drain_timeout 30s", drain_timeout, 30000,
	    "drain_timeout 30s"),
	A_NUM("drain_timeout 0s", drain_timeout, 0, "drain_timeout 0ms"),
	A_NUM("drain_timeout 0ms", drain_timeout, 0, "drain_timeout 0ms"),
	A_NUM("log_wait 250ms", log_wait, 250, "log_wait 250ms"),
	A_NUM("log_wait 0s", log_wait, 0, "log_wait 0ms"),
	A_NUM("log_wait 1m", log_wait, 60000, "log_wait 1m"),
	A_NUM("max_connections 1", max_connections, 1, "max_connections 1"),
	A_NUM("max_connections 4096", max_connections, 4096, NULL),
	A_NUM("max_connections 1000000", max_connections, 1000000, NULL),
	A_NUM("max_header_bytes 1024", max_header_bytes, 1024,
	    "max_header_bytes 1024"),
	A_NUM("max_header_bytes 1048576", max_header_bytes, 1048576, NULL),
	/* Comments, blank lines, blanks, CRLF, no final newline. */
	A_LINE("# a comment\n\n   \n\t\ndefault allow # trailing\n",
	    "default allow", NULL),
	A_LINE("default allow#comment", "default allow", NULL),
	A_LINE("default allow\r\nblock_private off\r\n", "default allow",
	    "block_private off"),
	A_LINE("\r\n  default allow  \r\n\r\n", "default allow", NULL),
	A_RULES("\tallow\ta.example\t# and b.example\n", 1,
	    "allow a.example", NULL),
	A_RULES("allow a.example b.example\r\n", 2, "allow b.example", NULL),
	A_NUM("connect_timeout 3s\r\n", connect_timeout, 3000, NULL),
	/* The example of SPEC 3.1, as written there. */
	A_RULES("default deny            # allow | deny  (default: deny)\n"
	    "block_private on        # on | off\n"
	    "allow_loopback off      # on | off\n"
	    "allow api.example.com:443\n"
	    "allow *.github.com\n"
	    "allow 140.82.112.0/20\n"
	    "deny  blocked.example.com\n"
	    "deny  [2001:db8::]/32:443\n"
	    "resolver 127.0.0.1:5353 # repeatable\n"
	    "listen 127.0.0.1:0      # same as --listen\n"
	    "connect_timeout 15s     # also dns_timeout, header_timeout,\n"
	    "                        # drain_timeout; units ms, s, m\n"
	    "max_connections 4096\n"
	    "max_header_bytes 65536\n", 5, "resolver 127.0.0.1:5353",
	    "listen 127.0.0.1:0"),
};

static void
accept_row(const void *row)
{
	const struct accept_case *a = row;
	char err[CONF_ERR_MAX];
	struct conf *c;
	uint32_t got;
	size_t n;

	c = parse_len(a->text, strlen(a->text), err, sizeof(err));
	CHECK(c != NULL, "refused: %s", err);
	if (a->field != NO_FIELD) {
		memcpy(&got, (const char *)c + a->field, sizeof(got));
		CHECK(got == a->value, "value %u, want %u", got, a->value);
	}
	n = egress_policy_nrules(c->policy);
	if (a->nrules >= 0)
		CHECK(n == (size_t)a->nrules, "%zu rules, want %d", n,
		    a->nrules);
	check_lines(c, a->line1, a->line2);
	CHECK(c->nbytes == strlen(a->text) &&
	    memcmp(c->bytes, a->text, c->nbytes) == 0, "bytes not kept");
	conf_free(c);
}

static void
test_accept(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(accept_cases); i++) {
		row_begin("accept_cases", i, accept_cases[i].text,
		    strlen(accept_cases[i].text));
		row_run(accept_row, &accept_cases[i]);
	}
	rows_done("accept_cases");
}

/* Rules keep their line numbers. */
static void
test_rule_lines(void **state)
{
	static const char text[] = "# rules\n\nallow a.example b.example\n"
	    "deny c.example\r\n";
	char err[CONF_ERR_MAX];
	const struct egress_rule *r;
	struct conf *c;

	(void)state;
	assert_non_null(c = conf_parse(NAME, text, strlen(text), err,
	    sizeof(err)));
	assert_int_equal(egress_policy_nrules(c->policy), 3);
	r = egress_policy_rule(c->policy, 0);
	assert_string_equal(r->host, "a.example");
	assert_true(r->allow);
	assert_int_equal(r->line, 3);
	r = egress_policy_rule(c->policy, 1);
	assert_string_equal(r->host, "b.example");
	assert_int_equal(r->line, 3);
	r = egress_policy_rule(c->policy, 2);
	assert_string_equal(r->host, "c.example");
	assert_false(r->allow);
	assert_int_equal(r->line, 4);
	conf_free(c);
}

/* ---------------------------------------------------------------- */
/* Every error: NULL, and "NAME:LINE: " naming what is wrong. */

struct error_case {
	const char	*text;
	size_t		 len;		/* 0: strlen */
	unsigned	 line;
	const char	*what;		/* a substring of the message */
};

#define E(t, l, w)	{ t, 0, l, w }

#define L8(s)	s s s s s s s s
#define LISTEN17	L8("listen 127.0.0.1:1\n") L8("listen 127.0.0.1:2\n") \
			"listen 127.0.0.1:3\n"
#define RESOLVER9	L8("resolver 127.0.0.1\n") "resolver 127.0.0.2\n"

static const struct error_case error_cases[] = {
	/* Unknown directives. */
	E("bogus on", 1, "unknown directive 'bogus'"),
	E("\n\nDefault deny", 3, "unknown directive"),
	E("default deny\nallow_private on", 2, "unknown directive"),
	E("allow_loopback on\n# fine\nblock-private on", 3,
	    "unknown directive"),
	E("*.example.com", 1, "unknown directive"),
	/* Switches: bad, missing, extra and repeated values. */
	E("default maybe", 1, "default"),
	E("default Allow", 1, "default"),
	E("default", 1, "needs a value"),
	E("default # allow", 1, "needs a value"),
	E("default allow deny", 1, "one value"),
	E("default allow\ndefault deny", 2, "twice"),
	E("default allow\ndefault allow", 2, "twice"),
	E("block_private yes", 1, "block_private"),
	E("block_private 1", 1, "block_private"),
	E("block_private", 1, "needs a value"),
	E("block_private on off", 1, "one value"),
	E("block_private on\nblock_private on", 2, "twice"),
	E("allow_loopback true", 1, "allow_loopback"),
	E("allow_loopback", 1, "needs a value"),
	E("allow_loopback on\n\nallow_loopback off", 3, "twice"),
	E("mode audit", 1, "is not report or enforce"),
	E("mode Report", 1, "is not report or enforce"),
	E("mode", 1, "needs a value"),
	E("mode report enforce", 1, "one value"),
	E("mode report\nmode enforce", 2, "twice"),
	E("log_failure_action ignore", 1, "is not serve or refuse"),
	E("upstream proxy.example:3128", 1, "want http://ADDR:PORT"),
	E("upstream http://proxy.example:3128", 1, "not a name"),
	E("upstream http://u:secret@127.0.0.1:3128", 1,
	    "credentials in the URL are not supported"),
	E("upstream https://127.0.0.1:3128", 1, "want http://ADDR:PORT"),
	E("upstream http://127.0.0.1", 1, "want http://ADDR:PORT"),
	E("upstream http://127.0.0.1:3128/path", 1, "want http://ADDR:PORT"),
	E("upstream_resolve remote", 1, "is not parent or local"),
	E("transparent yes", 1, "'yes' is not on or off"),
	E("transparent On", 1, "is not on or off"),
	E("transparent", 1, "needs a value"),
	E("transparent on off", 1, "one value"),
	E("transparent on\ntransparent off", 2, "twice"),
	E("log_failure_action", 1, "needs a value"),
	/* Rules. */
	E("allow", 1, "needs a value"),
	E("deny", 1, "needs a value"),
	E("allow ftp://a.example", 1, "ftp://a.example"),
	E("allow a..b", 1, "a..b"),
	E("allow good.example bad..example", 1, "bad..example"),
	E("deny 10.0.0.1/8", 1, "10.0.0.1/8"),
	E("deny 10.0.0.0/33", 1, "10.0.0.0/33"),
	E("allow example.com:0", 1, "example.com:0"),
	E("allow example.com:65536", 1, "example.com:65536"),
	E("allow example.com:01", 1, "example.com:01"),
	E("allow *", 1, "'*'"),
	E("allow *.1.2.3.4", 1, "*.1.2.3.4"),
	E("allow 2001:db8::1", 1, "2001:db8::1"),
	E("allow https://a.example/path", 1, "a.example/path"),
	E("allow https://u@a.example", 1, "u@a.example"),
	E("allow ex\xc3\xa4mple.com", 1, "ex??mple.com"),
	E("allow a.example\nallow b.example\ndeny c..example", 3,
	    "c..example"),
	/* Durations. */
	E("connect_timeout 15", 1, "connect_timeout"),
	E("connect_timeout 15h", 1, "connect_timeout"),
	E("connect_timeout 15S", 1, "connect_timeout"),
	E("connect_timeout 1.5s", 1, "connect_timeout"),
	E("connect_timeout s", 1, "connect_timeout"),
	E("connect_timeout -1s", 1, "connect_timeout"),
	E("connect_timeout 0s", 1, "between"),
	E("connect_timeout 0ms", 1, "between"),
	E("connect_timeout 86401s", 1, "between"),
	E("connect_timeout 1441m", 1, "between"),
	E("connect_timeout 86400001ms", 1, "between"),
	E("connect_timeout 99999999999999999999ms", 1, "between"),
	E("connect_timeout 0000000000000000000001s", 1, "connect_timeout"),
	E("connect_timeout 015s", 1, "connect_timeout"),
	E("drain_timeout 00s", 1, "drain_timeout"),
	E("connect_timeout 15 s", 1, "one value"),
	E("connect_timeout", 1, "needs a value"),
	E("connect_timeout 1s\nconnect_timeout 2s", 2, "twice"),
	E("dns_timeout 0m", 1, "between"),
	E("dns_timeout 5", 1, "dns_timeout"),
	E("header_timeout 0s", 1, "between"),
	E("idle_timeout 1d", 1, "idle_timeout"),
	E("idle_timeout 1441m", 1, "between"),
	E("drain_timeout 10", 1, "drain_timeout"),
	E("drain_timeout 86401s", 1, "between"),
	E("drain_timeout 1s\ndrain_timeout 1s", 2, "twice"),
	E("log_wait 61s", 1, "between"),
	E("log_wait 1", 1, "log_wait"),
	E("log_wait", 1, "needs a value"),
	E("log_wait 1s\nlog_wait 1s", 2, "twice"),
	/* Numbers. */
	E("max_connections 0", 1, "between"),
	E("max_connections 1000001", 1, "between"),
	E("max_connections 01", 1, "max_connections"),
	E("max_connections -1", 1, "max_connections"),
	E("max_connections 1k", 1, "max_connections"),
	E("max_connections 4096.0", 1, "max_connections"),
	E("max_connections 99999999999", 1, "max_connections"),
	E("max_connections 999999999999999999999", 1, "max_connections"),
	E("max_connections 1 2", 1, "one value"),
	E("max_connections", 1, "needs a value"),
	E("max_header_bytes 1023", 1, "between"),
	E("max_header_bytes 1048577", 1, "between"),
	E("max_header_bytes 64k", 1, "max_header_bytes"),
	E("max_header_bytes 2048\nmax_header_bytes 2048", 2, "twice"),
	/* Listen and resolver. */
	E("listen localhost:80", 1, "listen"),
	E("listen 127.0.0.1", 1, "listen"),
	E("listen 127.0.0.1:", 1, "listen"),
	E("listen 127.0.0.1:65536", 1, "listen"),
	E("listen 127.0.0.1:00", 1, "listen"),
	E("listen 127.0.0.1:+80", 1, "listen"),
	E("listen ::1:80", 1, "listen"),
	E("listen [::1]", 1, "listen"),
	E("listen [::1]:", 1, "listen"),
	E("listen [::1", 1, "listen"),
	E("listen [::1]x80", 1, "listen"),
	E("listen [127.0.0.1]:80", 1, "listen"),
	E("listen 127.0.0.1:80 127.0.0.2:80", 1, "one value"),
	E("listen", 1, "needs a value"),
	E(LISTEN17, 17, "listen"),
	E("resolver example.com", 1, "resolver"),
	E("resolver 127.0.0.1:0", 1, "resolver"),
	E("resolver [::1", 1, "resolver"),
	E("resolver 1.2.3.4:x", 1, "resolver"),
	E("resolver ::1", 1, "resolver"),
	E("resolver 1.2.3.4 5.6.7.8", 1, "one value"),
	E("resolver", 1, "needs a value"),
	E(RESOLVER9, 9, "resolver"),
	/* NUL bytes; line counting with CRLF and comments. */
	{ "default deny\nallow a\0b\n", 23, 2, "NUL" },
	{ "\0", 1, 1, "NUL" },
	{ "# x\n# y\n\n# \0\n", 13, 4, "NUL" },
	E("allow a.example\r\nbogus\r\n", 2, "unknown directive"),
	E("# only a comment\ndefault deny # ok\n  bogus", 3,
	    "unknown directive"),
	E("default deny\n\n\n\n\n\n\n\n\ndefault allow", 10, "twice"),
	E("default deny\r\r\nbogus", 2, "unknown directive"),
	E("default\vallow", 1, "unknown directive"),
};

static void
error_row(const void *row)
{
	const struct error_case *e = row;
	char err[CONF_ERR_MAX], want[64];
	size_t len = e->len ? e->len : strlen(e->text);
	struct conf *c;

	c = parse_len(e->text, len, err, sizeof(err));
	if (c != NULL)
		conf_free(c);
	CHECK(c == NULL, "accepted");
	snprintf(want, sizeof(want), "%s:%u: ", NAME, e->line);
	CHECK(strncmp(err, want, strlen(want)) == 0,
	    "message '%s' does not start '%s'", err, want);
	CHECK(strlen(err) > strlen(want), "message says nothing: '%s'", err);
	CHECK(strstr(err, e->what) != NULL, "message '%s' lacks '%s'", err,
	    e->what);
	CHECK(strchr(err, '\n') == NULL, "message is not one line: '%s'",
	    err);
}

static void
test_errors(void **state)
{
	const struct error_case *e;
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(error_cases); i++) {
		e = &error_cases[i];
		row_begin("error_cases", i, e->text,
		    e->len ? e->len : strlen(e->text));
		row_run(error_row, e);
	}
	rows_done("error_cases");
}

/* A short error buffer gets a cut, terminated message. */
static void
test_error_truncated(void **state)
{
	char err[12];

	(void)state;
	memset(err, 'x', sizeof(err));
	assert_null(conf_parse(NAME, "bogus", 5, err, sizeof(err)));
	assert_int_equal(strlen(err), sizeof(err) - 1);
	assert_memory_equal(err, NAME ":1: ", sizeof(err) - 1);
}

/* ---------------------------------------------------------------- */
/* conf_format: what it prints parses again to the same text. */

static const char *const roundtrip_cases[] = {
	"",
	"default allow\nblock_private off\nallow_loopback on",
	"mode report\nallow a.example",
	"allow API.Example.COM.:443 *.GitHub.com https://x.example/\n"
	"deny [2001:DB8::]/32:443 10.0.0.0/8 2130706433 0x7f.1:80\n",
	"allow [::ffff:10.0.0.0]/104 [::ffff:1.2.3.4] [::]/0 0.0.0.0/0",
	"allow http://[2001:db8::1] https://[2001:db8::2]:8443/",
	"resolver 127.0.0.1\nresolver [::1]:5353\nlisten 127.0.0.1:0\n"
	"listen [::1]:8080",
	"connect_timeout 1ms\ndns_timeout 61s\nheader_timeout 60000ms\n"
	"idle_timeout 1440m\ndrain_timeout 0s",
	"max_connections 1\nmax_header_bytes 1048576",
	"drain_timeout 1500ms\nconnect_timeout 120s",
	"allow " "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij."
	    "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij.example:65535",
};

static char *
format_of(const char *text, char *err, size_t errlen)
{
	struct conf *c;
	char *out;

	c = parse_len(text, strlen(text), err, errlen);
	CHECK(c != NULL, "does not parse: %s", err);
	out = conf_format(c);
	conf_free(c);
	CHECK(out != NULL, "conf_format failed");
	return out;
}

static void
roundtrip_row(const void *row)
{
	const char *text = *(const char *const *)row;
	char err[CONF_ERR_MAX], *once, *twice;

	once = format_of(text, err, sizeof(err));
	twice = format_of(once, err, sizeof(err));
	if (strcmp(once, twice) != 0) {
		CHECK(false, "format changed:\n%s---\n%s", once, twice);
	}
	free(once);
	free(twice);
}

static void
test_format_roundtrip(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(roundtrip_cases); i++) {
		row_begin("roundtrip_cases", i, roundtrip_cases[i],
		    strlen(roundtrip_cases[i]));
		row_run(roundtrip_row, &roundtrip_cases[i]);
	}
	rows_done("roundtrip_cases");
}

/* One full text, to pin the format. */
static void
test_format_exact(void **state)
{
	static const char in[] =
	    "allow_loopback on\nallow B.example:80 *.c.example\n"
	    "deny 10.0.0.0/8\nresolver 1.1.1.1\nlisten [::1]:0\n"
	    "idle_timeout 90s\ndrain_timeout 0s\nconnect_timeout 1500ms\n"
	    "default allow\ntransparent off\n";
	static const char want[] =
	    "default allow\nblock_private on\nallow_loopback on\n"
	    "mode enforce\ntransparent off\nresolver 1.1.1.1:53\n"
	    "listen [::1]:0\n"
	    "connect_timeout 1500ms\ndns_timeout 5s\nheader_timeout 10s\n"
	    "idle_timeout 90s\ndrain_timeout 0ms\nmax_connections 4096\n"
	    "max_header_bytes 65536\n"
	    "# listen_backlog: max_connections, at most net.core.somaxconn\n"
	    "log_failure_action refuse\nlog_wait 1s\n"
	    "allow b.example:80\nallow *.c.example\ndeny 10.0.0.0/8\n";
	char err[CONF_ERR_MAX];
	struct conf *c;
	char *out;

	(void)state;
	assert_non_null(c = conf_parse(NAME, in, strlen(in), err,
	    sizeof(err)));
	assert_non_null(out = conf_format(c));
	assert_string_equal(out, want);
	free(out);
	conf_free(c);
}

/* ---------------------------------------------------------------- */
/* conf_sockaddr_parse and _format. */

struct sockaddr_case {
	const char	*in;
	uint16_t	 defport;
	bool		 zero_ok;
	const char	*out;		/* NULL: refused */
};

static const struct sockaddr_case sockaddr_cases[] = {
	{ "127.0.0.1:53", 0, false, "127.0.0.1:53" },
	{ "127.0.0.1", 53, false, "127.0.0.1:53" },
	{ "127.0.0.1", 0, false, NULL },
	{ "127.0.0.1:0", 0, true, "127.0.0.1:0" },
	{ "127.0.0.1:0", 53, false, NULL },
	{ "127.0.0.1:00", 0, true, NULL },
	{ "127.0.0.1:65535", 0, false, "127.0.0.1:65535" },
	{ "127.0.0.1:65536", 0, true, NULL },
	{ "[::1]:8080", 0, false, "[::1]:8080" },
	{ "[::1]", 53, false, "[::1]:53" },
	{ "[::ffff:127.0.0.1]:80", 0, false, "127.0.0.1:80" },
	{ "[2001:DB8::1]:80", 0, false, "[2001:db8::1]:80" },
	{ "2130706433:80", 0, false, "127.0.0.1:80" },
	{ "::1", 53, false, NULL },
	{ "::1:53", 0, false, NULL },
	{ "[::1]53", 0, false, NULL },
	{ "[::1", 53, false, NULL },
	{ "[127.0.0.1]:53", 0, false, NULL },
	{ "localhost:53", 0, false, NULL },
	{ "localhost", 53, false, NULL },
	{ ":53", 0, false, NULL },
	{ "", 53, false, NULL },
	{ "1.2.3.4:", 53, false, NULL },
	{ "1.2.3.4:-1", 53, false, NULL },
};

static void
sockaddr_row(const void *row)
{
	const struct sockaddr_case *c = row;
	struct conf_sockaddr sa;
	const char *err = NULL;
	char out[64], *copy;
	size_t len = strlen(c->in);
	int rc;

	copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, c->in, len);
	rc = conf_sockaddr_parse(copy, len, c->defport, c->zero_ok, &sa,
	    &err);
	free(copy);
	if (c->out == NULL) {
		CHECK(rc == -1, "accepted");
		CHECK(err != NULL, "no error message");
		return;
	}
	CHECK(rc == 0, "refused: %s", err);
	conf_sockaddr_format(&sa, out, sizeof(out));
	CHECK(strcmp(out, c->out) == 0, "'%s', want '%s'", out, c->out);
}

static void
test_sockaddr(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(sockaddr_cases); i++) {
		row_begin("sockaddr_cases", i, sockaddr_cases[i].in,
		    strlen(sockaddr_cases[i].in));
		row_run(sockaddr_row, &sockaddr_cases[i]);
	}
	rows_done("sockaddr_cases");
}

/* ---------------------------------------------------------------- */
/* The environment policy (SPEC 3.4), with a fake getenv. */

enum { V_ALLOW, V_DENY, V_DEFAULT, V_BLOCK, V_LOOP, V_COUNT };

struct env_case {
	const char	*vars[V_COUNT];	/* NULL: unset */
	int		 rv;
	const char	*errvar;	/* rv -1: the message starts "VAR: " */
	int		 nrules;	/* -1: not checked */
	const char	*line1, *line2;
};

#define ENV(a, d, df, b, l)	{ a, d, df, b, l }
#define ENV_OK(v, n, l1, l2)	{ v, 1, NULL, n, l1, l2 }
#define ENV_BAD(v, var)		{ v, -1, var, -1, NULL, NULL }

static const struct env_case env_cases[] = {
	{ ENV(NULL, NULL, NULL, NULL, NULL), 0, NULL, -1, NULL, NULL },
	/* Any variable set, even empty, installs a policy. */
	ENV_OK(ENV("", NULL, NULL, NULL, NULL), 0, "default deny",
	    "block_private on"),
	ENV_OK(ENV(NULL, "", NULL, NULL, NULL), 0, "default deny",
	    "allow_loopback off"),
	ENV_OK(ENV(NULL, NULL, "deny", NULL, NULL), 0, "default deny", NULL),
	ENV_OK(ENV(NULL, NULL, "allow", NULL, NULL), 0, "default allow",
	    NULL),
	ENV_OK(ENV(NULL, NULL, NULL, "on", NULL), 0, "block_private on",
	    NULL),
	ENV_OK(ENV(NULL, NULL, NULL, "true", NULL), 0, "block_private on",
	    NULL),
	ENV_OK(ENV(NULL, NULL, NULL, "1", NULL), 0, "block_private on",
	    NULL),
	ENV_OK(ENV(NULL, NULL, NULL, "off", NULL), 0, "block_private off",
	    NULL),
	ENV_OK(ENV(NULL, NULL, NULL, "false", NULL), 0, "block_private off",
	    NULL),
	ENV_OK(ENV(NULL, NULL, NULL, "0", NULL), 0, "block_private off",
	    NULL),
	ENV_OK(ENV(NULL, NULL, NULL, NULL, "on"), 0, "allow_loopback on",
	    NULL),
	ENV_OK(ENV(NULL, NULL, NULL, NULL, "true"), 0, "allow_loopback on",
	    NULL),
	ENV_OK(ENV(NULL, NULL, NULL, NULL, "1"), 0, "allow_loopback on",
	    NULL),
	ENV_OK(ENV(NULL, NULL, NULL, NULL, "off"), 0, "allow_loopback off",
	    NULL),
	ENV_OK(ENV(NULL, NULL, NULL, NULL, "false"), 0,
	    "allow_loopback off", NULL),
	ENV_OK(ENV(NULL, NULL, NULL, NULL, "0"), 0, "allow_loopback off",
	    NULL),
	/* Rule lists: split on , ; and newline; blanks trimmed. */
	ENV_OK(ENV("a.example", NULL, NULL, NULL, NULL), 1,
	    "allow a.example", NULL),
	ENV_OK(ENV("a.example,b.example;c.example\nd.example", NULL, NULL,
	    NULL, NULL), 4, "allow a.example", "allow d.example"),
	ENV_OK(ENV(" a.example , b.example ;; \n\n,", NULL, NULL, NULL,
	    NULL), 2, "allow a.example", "allow b.example"),
	ENV_OK(ENV("\ta.example\r\n", NULL, NULL, NULL, NULL), 1,
	    "allow a.example", NULL),
	ENV_OK(ENV(",;\n", NULL, NULL, NULL, NULL), 0, NULL, NULL),
	ENV_OK(ENV("https://Example.COM/", "*.bad.example", NULL, NULL,
	    NULL), 2, "allow example.com:443", "deny *.bad.example"),
	ENV_OK(ENV(NULL, "10.0.0.0/8;[2001:db8::]/32:443", NULL, NULL, NULL),
	    2, "deny 10.0.0.0/8", "deny [2001:db8::]/32:443"),
	ENV_OK(ENV("a.example", "b.example", "allow", "off", "on"), 2,
	    "default allow", "block_private off"),
	/* Bad values name their variable. */
	ENV_BAD(ENV(NULL, NULL, "maybe", NULL, NULL), "HARN_EGRESS_DEFAULT"),
	ENV_BAD(ENV(NULL, NULL, "Allow", NULL, NULL), "HARN_EGRESS_DEFAULT"),
	ENV_BAD(ENV(NULL, NULL, "", NULL, NULL), "HARN_EGRESS_DEFAULT"),
	ENV_BAD(ENV(NULL, NULL, " allow", NULL, NULL),
	    "HARN_EGRESS_DEFAULT"),
	ENV_BAD(ENV(NULL, NULL, NULL, "yes", NULL),
	    "HARN_EGRESS_BLOCK_PRIVATE"),
	ENV_BAD(ENV(NULL, NULL, NULL, "ON", NULL),
	    "HARN_EGRESS_BLOCK_PRIVATE"),
	ENV_BAD(ENV(NULL, NULL, NULL, "", NULL),
	    "HARN_EGRESS_BLOCK_PRIVATE"),
	ENV_BAD(ENV(NULL, NULL, NULL, NULL, "2"),
	    "HARN_EGRESS_ALLOW_LOOPBACK"),
	ENV_BAD(ENV(NULL, NULL, NULL, NULL, "no"),
	    "HARN_EGRESS_ALLOW_LOOPBACK"),
	ENV_BAD(ENV("a..b", NULL, NULL, NULL, NULL), "HARN_EGRESS_ALLOW"),
	ENV_BAD(ENV("a.example,bad..example", NULL, NULL, NULL, NULL),
	    "HARN_EGRESS_ALLOW"),
	ENV_BAD(ENV("a.example b.example", NULL, NULL, NULL, NULL),
	    "HARN_EGRESS_ALLOW"),
	ENV_BAD(ENV("ftp://a.example", NULL, NULL, NULL, NULL),
	    "HARN_EGRESS_ALLOW"),
	ENV_BAD(ENV("*", NULL, NULL, NULL, NULL), "HARN_EGRESS_ALLOW"),
	ENV_BAD(ENV(NULL, "10.0.0.1/8", NULL, NULL, NULL),
	    "HARN_EGRESS_DENY"),
	ENV_BAD(ENV("a.example", "b.example:0", NULL, NULL, NULL),
	    "HARN_EGRESS_DENY"),
};

static const struct env_case *env_row_now;

static const char *
fake_getenv(const char *name)
{
	size_t i;

	for (i = 0; i < V_COUNT; i++)
		if (strcmp(name, conf_env_vars[i]) == 0)
			return env_row_now->vars[i];
	return NULL;
}

static void
env_check_policy(const struct env_case *e, const struct conf *c)
{
	size_t n = egress_policy_nrules(c->policy);

	CHECK(strcmp(c->source, "env") == 0, "source '%s'", c->source);
	CHECK(e->nrules < 0 || n == (size_t)e->nrules, "%zu rules, want %d",
	    n, e->nrules);
	/* Everything else keeps its default. */
	CHECK(c->nlisten == 0 && c->nresolver == 0, "listen or resolver set");
	CHECK(c->connect_timeout == 15000 && c->dns_timeout == 5000 &&
	    c->header_timeout == 10000 && c->idle_timeout == 300000 &&
	    c->drain_timeout == 10000 && c->max_connections == 4096 &&
	    c->max_header_bytes == 65536, "a limit is not its default");
	check_lines(c, e->line1, e->line2);
}

static void
env_row(const void *row)
{
	const struct env_case *e = row;
	struct conf *c = (struct conf *)1;
	char err[CONF_ERR_MAX] = "", want[64];
	int rv;

	env_row_now = e;
	rv = conf_from_env(fake_getenv, &c, err, sizeof(err));
	CHECK(rv == e->rv, "returned %d, want %d (%s)", rv, e->rv, err);
	if (rv != 1) {
		CHECK(c == NULL, "*out set on %d", rv);
		if (rv == -1) {
			snprintf(want, sizeof(want), "%s: ", e->errvar);
			CHECK(strncmp(err, want, strlen(want)) == 0,
			    "message '%s' does not start '%s'", err, want);
		}
		return;
	}
	CHECK(c != NULL, "no policy");
	env_check_policy(e, c);
	conf_free(c);
}

static void
test_env(void **state)
{
	char in[512];
	size_t i, v;
	int o;

	(void)state;
	for (i = 0; i < NELEM(env_cases); i++) {
		o = 0;
		for (v = 0; v < V_COUNT; v++)
			o += snprintf(in + o, sizeof(in) - (size_t)o, "%s%s=%s",
			    v ? " " : "", conf_env_vars[v] + 12,
			    env_cases[i].vars[v] ? env_cases[i].vars[v] :
			    "(unset)");
		row_begin("env_cases", i, in, strlen(in));
		row_run(env_row, &env_cases[i]);
	}
	rows_done("env_cases");
}

/* The variables, in the order the fake getenv assumes. */
static void
test_env_vars(void **state)
{
	(void)state;
	assert_string_equal(conf_env_vars[V_ALLOW], "HARN_EGRESS_ALLOW");
	assert_string_equal(conf_env_vars[V_DENY], "HARN_EGRESS_DENY");
	assert_string_equal(conf_env_vars[V_DEFAULT], "HARN_EGRESS_DEFAULT");
	assert_string_equal(conf_env_vars[V_BLOCK],
	    "HARN_EGRESS_BLOCK_PRIVATE");
	assert_string_equal(conf_env_vars[V_LOOP],
	    "HARN_EGRESS_ALLOW_LOOPBACK");
	assert_null(conf_env_vars[V_COUNT]);
}

/* The environment policy's bytes: each set variable, NAME=VALUE. */
static void
test_env_bytes(void **state)
{
	static const struct env_case e = {
		ENV("a.example", NULL, "allow", NULL, "on"), 1, NULL, 1, NULL,
		NULL
	};
	static const char want[] = "HARN_EGRESS_ALLOW=a.example\n"
	    "HARN_EGRESS_DEFAULT=allow\nHARN_EGRESS_ALLOW_LOOPBACK=on\n";
	char err[CONF_ERR_MAX];
	struct conf *c;

	(void)state;
	env_row_now = &e;
	assert_int_equal(conf_from_env(fake_getenv, &c, err, sizeof(err)),
	    1);
	assert_int_equal(c->nbytes, strlen(want));
	assert_memory_equal(c->bytes, want, strlen(want));
	conf_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_rule_lines),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_truncated),
		cmocka_unit_test(test_format_roundtrip),
		cmocka_unit_test(test_format_exact),
		cmocka_unit_test(test_sockaddr),
		cmocka_unit_test(test_env_vars),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_env_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
