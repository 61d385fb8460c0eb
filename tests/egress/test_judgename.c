/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_judgename: egress_judge_name (SPEC 6.6 over 3.3), the question run
 * mode's DNS answerer asks: does any port of this name get past steps 1-4?
 * Each row is also checked against egress_judge_target on every port
 * 1-65535: admitted exactly when some port admits.
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
#define ADMIT		EGRESS_RESOLVE

struct name_row {
	const char		*policy;
	const char		*name;
	enum egress_decision	 decision;
	enum egress_reason	 reason;
	enum egress_reason	 would;
	unsigned		 rule_line;	/* 0: no rule */
};

#define R_ALLOW		EGRESS_R_ALLOW_RULE
#define R_DEFAULT	EGRESS_R_DEFAULT_ALLOW
#define R_DENY		EGRESS_R_DENY_RULE
#define R_NOALLOW	EGRESS_R_NO_ALLOW_RULE
#define R_INVALID	EGRESS_R_INVALID_TARGET
#define R_REPORT	EGRESS_R_REPORT_ONLY
#define R_NONE		EGRESS_R_NONE
#define DENY		EGRESS_DENY

static const struct name_row name_rows[] = {
	/* Exact host. */
	{ "allow a.example", "a.example", ADMIT, R_ALLOW, R_NONE, 1 },
	{ "allow a.example", "b.example", DENY, R_NOALLOW, R_NONE, 0 },
	{ "allow a.example", "x.a.example", DENY, R_NOALLOW, R_NONE, 0 },
	/* Normalized like a request's host. */
	{ "allow a.example", "A.Example.", ADMIT, R_ALLOW, R_NONE, 1 },
	/* Wildcard: strict subdomains only. */
	{ "allow *.example.com", "x.example.com", ADMIT, R_ALLOW, R_NONE, 1 },
	{ "allow *.example.com", "a.b.example.com", ADMIT, R_ALLOW, R_NONE,
	    1 },
	{ "allow *.example.com", "example.com", DENY, R_NOALLOW, R_NONE, 0 },
	/* A rule for one port admits the name (the port comes later). */
	{ "allow a.example:5432", "a.example", ADMIT, R_ALLOW, R_NONE, 1 },
	{ "allow a.example:5432", "b.example", DENY, R_NOALLOW, R_NONE, 0 },
	{ "allow https://a.example", "a.example", ADMIT, R_ALLOW, R_NONE, 1 },
	{ "allow *.svc.example:6379\nallow b.example:1", "x.svc.example",
	    ADMIT, R_ALLOW, R_NONE, 1 },
	{ "allow b.example:1\nallow c.example:2", "c.example", ADMIT,
	    R_ALLOW, R_NONE, 2 },
	{ "allow b.example:1\nallow c.example:2", "d.example", DENY,
	    R_NOALLOW, R_NONE, 0 },
	/* Deny rules. */
	{ "default allow\ndeny bad.example", "bad.example", DENY, R_DENY,
	    R_NONE, 2 },
	{ "default allow\ndeny *.bad.example", "x.bad.example", DENY, R_DENY,
	    R_NONE, 2 },
	{ "deny a.example\nallow a.example:443", "a.example", DENY, R_DENY,
	    R_NONE, 1 },
	{ "default allow\ndeny bad.example", "good.example", ADMIT, R_DEFAULT,
	    R_NONE, 0 },
	/* A deny rule with a port refuses that port only. */
	{ "default allow\ndeny bad.example:22", "bad.example", ADMIT,
	    R_DEFAULT, R_NONE, 0 },
	{ "allow bad.example\ndeny bad.example:22", "bad.example", ADMIT,
	    R_ALLOW, R_NONE, 1 },
	/* Refused everywhere: the reason of a port no rule names. */
	{ "deny a.example:443\nallow a.example:443", "a.example", DENY,
	    R_NOALLOW, R_NONE, 0 },
	/* Default allow. */
	{ "default allow", "anything.example", ADMIT, R_DEFAULT, R_NONE, 0 },
	{ "default deny", "anything.example", DENY, R_NOALLOW, R_NONE, 0 },
	{ "", "anything.example", DENY, R_NOALLOW, R_NONE, 0 },
	/* Report mode admits what the rules would refuse. */
	{ "mode report", "a.example", ADMIT, R_REPORT, R_NOALLOW, 0 },
	{ "mode report\ndeny a.example", "a.example", ADMIT, R_REPORT, R_DENY,
	    2 },
	{ "mode report\nallow a.example", "a.example", ADMIT, R_ALLOW,
	    R_NONE, 2 },
	/* Only a CIDR rule can admit it: resolve, judge the addresses. */
	{ "allow 140.82.112.0/20", "github.com", ADMIT, R_NONE, R_NONE, 0 },
	{ "allow 10.0.0.0/8:5432", "db.example", ADMIT, R_NONE, R_NONE, 0 },
	{ "allow [2001:db8::]/32", "v6.example", ADMIT, R_NONE, R_NONE, 0 },
	{ "deny db.example\nallow 10.0.0.0/8", "db.example", DENY, R_DENY,
	    R_NONE, 1 },
	/* An exempt admits nothing; a deny CIDR admits nothing. */
	{ "exempt 10.0.0.0/8", "a.example", DENY, R_NOALLOW, R_NONE, 0 },
	{ "deny 10.0.0.0/8", "a.example", DENY, R_NOALLOW, R_NONE, 0 },
	/* Not names: never given an address. */
	{ "default allow", "1.2.3.4", DENY, R_INVALID, R_NONE, 0 },
	{ "default allow", "127.1", DENY, R_INVALID, R_NONE, 0 },
	{ "default allow", "a.0x7f", DENY, R_INVALID, R_NONE, 0 },
	{ "default allow", "::1", DENY, R_INVALID, R_NONE, 0 },
	{ "default allow", "a..b", DENY, R_INVALID, R_NONE, 0 },
	{ "default allow", "", DENY, R_INVALID, R_NONE, 0 },
	{ "default allow", "a b.example", DENY, R_INVALID, R_NONE, 0 },
	{ "mode report", "a..b", DENY, R_INVALID, R_NONE, 0 },
};

static struct conf *
policy_of(const char *text)
{
	char err[CONF_ERR_MAX];
	struct conf *c;

	c = conf_parse("t.conf", text, strlen(text), err, sizeof(err));
	if (c == NULL)
		fail_msg("bad policy in a test table: %s", err);
	return c;
}

static bool
admits(const struct egress_verdict *v)
{
	return v->decision == EGRESS_ALLOW || v->decision == EGRESS_RESOLVE;
}

/* Admitted exactly when egress_judge_target admits some port. */
static void
check_every_port(const struct egress_policy *p, const char *name,
    bool admitted)
{
	struct egress_target t;
	struct egress_verdict v;
	const char *err;
	bool some = false;
	unsigned port;

	if (egress_host_parse(name, strlen(name), &t, &err) == -1 ||
	    t.is_addr) {
		CHECK(!admitted, "admitted a name that is not one");
		return;
	}
	for (port = 1; port <= 65535 && !some; port++) {
		t.port = (uint16_t)port;
		egress_judge_target(p, &t, NULL, 0, &v);
		some = admits(&v);
	}
	CHECK(some == admitted, "judge_target admits on some port: %d, "
	    "judge_name: %d", some, admitted);
}

static void
name_row(const void *arg)
{
	const struct name_row *r = arg;
	struct egress_verdict v;
	struct conf *c = policy_of(r->policy);

	memset(&v, 0xa5, sizeof(v));
	egress_judge_name(c->policy, r->name, &v);
	CHECK(v.decision == r->decision, "decision %d, want %d", v.decision,
	    r->decision);
	CHECK(v.reason == r->reason, "reason %s, want %s",
	    egress_reason_name(v.reason), egress_reason_name(r->reason));
	CHECK(v.would == r->would, "would %s, want %s",
	    egress_reason_name(v.would), egress_reason_name(r->would));
	if (r->rule_line == 0)
		CHECK(v.rule == NULL, "a rule (line %u), want none",
		    v.rule->line);
	else
		CHECK(v.rule != NULL && v.rule->line == r->rule_line,
		    "rule line %u, want %u", v.rule ? v.rule->line : 0,
		    r->rule_line);
	check_every_port(c->policy, r->name, admits(&v));
	conf_free(c);
}

static void
test_judge_name(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(name_rows); i++) {
		row_begin("name_rows", i, name_rows[i].name,
		    strlen(name_rows[i].name));
		row_run(name_row, &name_rows[i]);
	}
	rows_done("name_rows");
}

/*
 * Many rules on many ports: each distinct port is judged once, and a name
 * allowed only on the last port of thousands is still found.
 */
static void
test_many_ports(void **state)
{
	char *text, *p;
	struct egress_verdict v;
	struct conf *c;
	size_t cap = 40000 * 32;
	unsigned port;

	(void)state;
	assert_non_null(text = malloc(cap));
	p = text;
	for (port = 1; port <= 40000; port++)
		p += sprintf(p, "allow h%u.example:%u\n", port, port);
	c = policy_of(text);
	egress_judge_name(c->policy, "h40000.example", &v);
	assert_int_equal(v.decision, EGRESS_RESOLVE);
	assert_non_null(v.rule);
	assert_int_equal(v.rule->port, 40000);
	egress_judge_name(c->policy, "nope.example", &v);
	assert_int_equal(v.decision, EGRESS_DENY);
	assert_int_equal(v.reason, EGRESS_R_NO_ALLOW_RULE);
	conf_free(c);
	free(text);
}

/* upstream_resolve parent (SPEC 8.3): a name's own rules alone decide. */
static void
test_judge_parent(void **state)
{
	static const struct {
		const char		*policy, *host;
		enum egress_decision	 want;
		enum egress_reason	 reason;
	} rows[] = {
		{ "allow a.example", "a.example", EGRESS_ALLOW,
		    EGRESS_R_ALLOW_RULE },
		{ "default allow", "b.example", EGRESS_ALLOW,
		    EGRESS_R_DEFAULT_ALLOW },
		{ "default allow\ndeny b.example", "b.example", EGRESS_DENY,
		    EGRESS_R_DENY_RULE },
		{ "allow 10.0.0.0/8", "c.example", EGRESS_DENY,
		    EGRESS_R_NO_ALLOW_RULE },
		{ "mode report\nallow 10.0.0.0/8", "c.example", EGRESS_ALLOW,
		    EGRESS_R_REPORT_ONLY },
		{ "allow a.example", "z.example", EGRESS_DENY,
		    EGRESS_R_NO_ALLOW_RULE },
	};
	struct egress_target t;
	struct egress_verdict pending, v;
	const char *err;
	struct conf *c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		c = policy_of(rows[i].policy);
		assert_int_equal(egress_host_parse(rows[i].host,
		    strlen(rows[i].host), &t, &err), 0);
		t.port = 443;
		egress_judge_target(c->policy, &t, NULL, 0, &pending);
		egress_judge_parent(c->policy, &pending, &v);
		if (v.decision != rows[i].want || v.reason != rows[i].reason)
			fail_msg("row %zu (%s / %s): decision %d reason %s",
			    i, rows[i].policy, rows[i].host, v.decision,
			    egress_reason_name(v.reason));
		conf_free(c);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge_name),
		cmocka_unit_test(test_many_ports),
		cmocka_unit_test(test_judge_parent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
