/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_suggest: audit --suggest --full (a whole policy from decision
 * logs).  What it prints is read back by the policy parser and judged by
 * the decision engine: every target the logs asked for is allowed (names
 * on the addresses they reached, through the allow_loopback and exempt
 * lines the output holds), what was not asked for stays refused, a
 * metadata address is never reachable, and each setting that lifts the
 * special-purpose block names who needs it.  Random logs always give a
 * policy that parses.
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

#include "attest/attest.h"
#include "conf/conf.h"
#include "egress/egress.h"

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))
#define ROBUST_LOGS	300
#define ROBUST_LINES	60

/* A record as the proxy writes it, with extra keys before the brace. */
static void
feed(struct audit *a, const char *protocol, const char *host, long port,
    const char *decision, const char *reason, const char *extra)
{
	char buf[1024], why[256];

	snprintf(buf, sizeof(buf), "{\"ts\":\"2026-12-02T15:30:00.123Z\","
	    "\"protocol\":\"%s\",\"host\":\"%s\",\"port\":%ld,"
	    "\"decision\":\"%s\",\"reason\":\"%s\"%s}", protocol, host, port,
	    decision, reason, extra);
	if (audit_line(a, buf, strlen(buf), why, sizeof(why)) == -1)
		fail_msg("record refused (%s): %s", why, buf);
}

static char *
full(const struct audit *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(audit_suggest_full(a, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The output as the policy parser reads it; fails the test otherwise. */
static struct conf *
parsed(const char *text)
{
	char err[CONF_ERR_MAX];
	struct conf *c;
	const char *p;

	for (p = text; *p != '\0'; p++)
		if (*p != '\n' && ((unsigned char)*p < 0x20 ||
		    (unsigned char)*p >= 0x7f))
			fail_msg("byte 0x%02x in:\n%s", (unsigned char)*p,
			    text);
	if ((c = conf_parse("suggested", text, strlen(text), err,
	    sizeof(err))) == NULL)
		fail_msg("check refuses it: %s\n%s", err, text);
	assert_false(egress_policy_default_allow(c->policy));
	assert_true(egress_policy_block_private(c->policy));
	assert_false(egress_policy_report(c->policy));
	return c;
}

/*
 * The verdict on target reaching addr (NULL: a literal, or a refusal
 * before any address), as the proxy would give it.
 */
static struct egress_verdict
judge(const struct conf *c, const char *target, const char *addr)
{
	struct egress_target t, at;
	struct egress_verdict v, w;
	const char *err;

	if (egress_target_parse(target, strlen(target), &t, &err) == -1)
		fail_msg("target %s: %s", target, err);
	egress_judge_target(c->policy, &t, NULL, 0, &v);
	if (v.decision != EGRESS_RESOLVE)
		return v;
	assert_non_null(addr);
	if (egress_host_parse(addr, strlen(addr), &at, &err) == -1)
		fail_msg("addr %s: %s", addr, err);
	egress_judge_addrs(c->policy, &t, &v, &at.addr, 1, NULL, 0, &w);
	return w;
}

static void
expect(const struct conf *c, const char *target, const char *addr,
    enum egress_decision d, enum egress_reason r, const char *text)
{
	struct egress_verdict v = judge(c, target, addr);

	if (v.decision != d || v.reason != r)
		fail_msg("%s at %s: %s, want %s\n%s", target, addr ? addr : "-",
		    egress_reason_name(v.reason), egress_reason_name(r), text);
}

/* line is in text, and the comment block above it holds each of words. */
static void
commented(const char *text, const char *line, const char *const *words,
    size_t n)
{
	char want[256];
	const char *at, *start;
	size_t i;

	snprintf(want, sizeof(want), "\n%s\n", line);
	if ((at = strstr(text, want)) == NULL)
		fail_msg("no line '%s' in:\n%s", line, text);
	/* Back over the comment lines just above it. */
	for (start = at; start > text; ) {
		const char *prev = start - 1;

		while (prev > text && prev[-1] != '\n')
			prev--;
		if (*prev != '#')
			break;
		start = prev;
	}
	for (i = 0; i < n; i++)
		if (memmem(start, (size_t)(at - start), words[i],
		    strlen(words[i])) == NULL)
			fail_msg("'%s' is not said above '%s':\n%s", words[i],
			    line, text);
}

/* Whatever a name's rules, at a metadata address it is refused. */
static void
refused(const struct conf *c, const char *host, const char *text)
{
	static const char *const meta[] = { "169.254.169.254",
	    "fd00:ec2::254", "64:ff9b::a9fe:a9fe" };
	struct egress_target t;
	struct egress_verdict v;
	const char *err;
	char target[300];
	size_t i, p;

	if (egress_host_parse(host, strlen(host), &t, &err) == -1 ||
	    t.is_addr)
		return;		/* not a name */
	for (p = 1; p <= 443; p += 221)
		for (i = 0; i < NELEM(meta); i++) {
			snprintf(target, sizeof(target), "%s:%zu", host, p);
			v = judge(c, target, meta[i]);
			if (v.decision != EGRESS_DENY)
				fail_msg("%s at %s: %s\n%s", target, meta[i],
				    egress_reason_name(v.reason), text);
		}
}

static void
test_full_empty(void **state)
{
	struct audit *a;
	struct conf *c;
	char *text;

	(void)state;
	assert_non_null(a = audit_new());
	text = full(a);
	c = parsed(text);
	assert_false(egress_policy_allow_loopback(c->policy));
	assert_int_equal(egress_policy_nrules(c->policy), 0);
	assert_int_equal(egress_policy_nexempts(c->policy), 0);
	assert_non_null(strstr(text, "\ndefault deny\n"));
	conf_free(c);
	free(text);
	audit_free(a);
}

/* A log of every kind of target --full answers, or leaves out. */
static void
feed_mixed(struct audit *a)
{
	/* Allowed, through allow_loopback and report mode. */
	feed(a, "http", "good.test", 8080, "allow", "allow_rule",
	    ",\"addr\":\"127.0.0.1\"");
	feed(a, "http", "py.test", 8080, "allow", "report_only",
	    ",\"would\":\"no_allow_rule\",\"addr\":\"127.0.0.1\"");
	feed(a, "socks5", "pub.test", 443, "allow", "report_only",
	    ",\"would\":\"no_allow_rule\",\"addr\":\"93.184.216.34\"");
	/* Refused by the special-purpose block: an exempt each range. */
	feed(a, "http", "zero.test", 8080, "deny", "private_address",
	    ",\"addr\":\"0.0.0.0\"");
	feed(a, "http_connect", "corp.test", 443, "deny", "private_address",
	    ",\"addr\":\"10.1.2.3\"");
	feed(a, "http_connect", "corp2.test", 443, "deny", "private_address",
	    ",\"addr\":\"10.9.9.9\"");
	/* Its block holds 169.254.169.254: only the address is exempt. */
	feed(a, "http_connect", "ll.test", 443, "deny", "private_address",
	    ",\"addr\":\"169.254.3.3\"");
	/* NAT64 carrying 10.0.0.5: its own block and the one it carries. */
	feed(a, "http_connect", "nat.test", 443, "deny", "private_address",
	    ",\"addr\":\"64:ff9b::a00:5\"");
	/* Literals: their own allow ADDR:PORT. */
	feed(a, "socks5", "10.0.0.1", 22, "deny", "private_address",
	    ",\"addr\":\"10.0.0.1\"");
	feed(a, "http", "127.0.0.1", 8080, "allow", "report_only",
	    ",\"would\":\"no_allow_rule\",\"addr\":\"127.0.0.1\"");
	/* Admitted, its connect failed; refused by a deny rule. */
	feed(a, "http", "down.test", 80, "deny", "connect_failed",
	    ",\"addr\":\"93.184.216.35\"");
	feed(a, "http", "evil.test", 80, "deny", "deny_rule", "");
	/* Never admitted: metadata, a loopback inside NAT64, no answer. */
	feed(a, "http", "169.254.169.254", 80, "deny", "metadata_address",
	    ",\"addr\":\"169.254.169.254\"");
	feed(a, "http", "meta.test", 80, "allow", "allow_rule",
	    ",\"addr\":\"169.254.169.254\"");
	feed(a, "http", "nat2.test", 443, "deny", "private_address",
	    ",\"addr\":\"64:ff9b::7f00:1\"");
	feed(a, "http", "gone.test", 80, "deny", "dns_failure", "");
	feed(a, "direct", "", 5432, "deny", "not_through_proxy",
	    ",\"addr\":\"10.0.0.9\"");
	/* A forged address says nothing. */
	feed(a, "http", "forged.test", 80, "deny", "private_address",
	    ",\"addr\":\"exempt 0.0.0.0/0\"");
}

/* Every target asked for passes, on the address it reached. */
static void
check_passes(const struct conf *c, const char *text)
{
	expect(c, "good.test:8080", "127.0.0.1", EGRESS_ALLOW,
	    EGRESS_R_ALLOW_RULE, text);
	expect(c, "py.test:8080", "127.0.0.1", EGRESS_ALLOW,
	    EGRESS_R_ALLOW_RULE, text);
	expect(c, "pub.test:443", "93.184.216.34", EGRESS_ALLOW,
	    EGRESS_R_ALLOW_RULE, text);
	expect(c, "zero.test:8080", "0.0.0.0", EGRESS_ALLOW,
	    EGRESS_R_ALLOW_RULE, text);
	expect(c, "corp.test:443", "10.1.2.3", EGRESS_ALLOW,
	    EGRESS_R_ALLOW_RULE, text);
	expect(c, "corp2.test:443", "10.9.9.9", EGRESS_ALLOW,
	    EGRESS_R_ALLOW_RULE, text);
	expect(c, "ll.test:443", "169.254.3.3", EGRESS_ALLOW,
	    EGRESS_R_ALLOW_RULE, text);
	expect(c, "nat.test:443", "64:ff9b::a00:5", EGRESS_ALLOW,
	    EGRESS_R_ALLOW_RULE, text);
	expect(c, "10.0.0.1:22", NULL, EGRESS_ALLOW, EGRESS_R_ALLOW_RULE,
	    text);
	expect(c, "127.0.0.1:8080", NULL, EGRESS_ALLOW, EGRESS_R_ALLOW_RULE,
	    text);
	expect(c, "down.test:80", "93.184.216.35", EGRESS_ALLOW,
	    EGRESS_R_ALLOW_RULE, text);
	expect(c, "evil.test:80", "93.184.216.36", EGRESS_ALLOW,
	    EGRESS_R_ALLOW_RULE, text);

}

/* What was not asked for, or cannot be, stays refused. */
static void
check_refused(const struct conf *c, const char *text)
{
	expect(c, "169.254.169.254:80", NULL, EGRESS_DENY,
	    EGRESS_R_METADATA_ADDRESS, text);
	expect(c, "meta.test:80", "169.254.169.254", EGRESS_DENY,
	    EGRESS_R_METADATA_ADDRESS, text);
	expect(c, "ll.test:443", "169.254.169.254", EGRESS_DENY,
	    EGRESS_R_METADATA_ADDRESS, text);
	expect(c, "ll.test:443", "169.254.3.4", EGRESS_DENY,
	    EGRESS_R_PRIVATE_ADDRESS, text);
	expect(c, "nat2.test:443", "64:ff9b::7f00:1", EGRESS_DENY,
	    EGRESS_R_PRIVATE_ADDRESS, text);
	expect(c, "gone.test:80", "93.184.216.34", EGRESS_DENY,
	    EGRESS_R_NO_ALLOW_RULE, text);
	expect(c, "unused.test:443", "10.1.2.3", EGRESS_DENY,
	    EGRESS_R_NO_ALLOW_RULE, text);
	/* An exempt admits nothing by itself. */
	expect(c, "10.1.2.4:443", NULL, EGRESS_DENY, EGRESS_R_NO_ALLOW_RULE,
	    text);
	expect(c, "corp.test:444", "10.1.2.3", EGRESS_DENY,
	    EGRESS_R_NO_ALLOW_RULE, text);
	expect(c, "forged.test:80", "192.168.1.1", EGRESS_DENY,
	    EGRESS_R_PRIVATE_ADDRESS, text);

}

/* Each setting that lifts the block says who needs it, and why. */
static void
check_comments(const struct conf *c, const char *text)
{
	static const char *const loop[] = { "security decision",
	    "good.test:8080 (127.0.0.1)", "py.test:8080 (127.0.0.1)" };
	static const char *const ten[] = { "security decision",
	    "corp.test:443 (10.1.2.3)", "corp2.test:443 (10.9.9.9)",
	    "nat.test:443 (64:ff9b::a00:5)" };
	static const char *const zero[] = { "security decision",
	    "zero.test:8080 (0.0.0.0)" };
	static const char *const ll[] = { "security decision",
	    "ll.test:443 (169.254.3.3)", "holds a metadata address" };
	static const char *const lit[] = { "Special-purpose 10.0.0.0/8" };
	commented(text, "allow_loopback on", loop, NELEM(loop));
	commented(text, "exempt 10.0.0.0/8", ten, NELEM(ten));
	commented(text, "exempt 0.0.0.0/8", zero, NELEM(zero));
	commented(text, "exempt 169.254.3.3", ll, NELEM(ll));
	commented(text, "exempt [64:ff9b::]/96", ten + 3, 1);
	commented(text, "allow 10.0.0.1:22  # 1 request: private_address 1",
	    lit, NELEM(lit));
	assert_int_equal(egress_policy_nexempts(c->policy), 4);
	assert_null(strstr(text, "\nallow 169.254.169.254"));
	assert_null(strstr(text, "\nallow gone.test"));
	assert_non_null(strstr(text, "#   meta.test:80 (169.254.169.254)\n"));
	assert_non_null(strstr(text, "#   nat2.test:443 (64:ff9b::7f00:1)\n"));
	assert_non_null(strstr(text, "dns_failure 1"));
	assert_null(strstr(text, "0.0.0.0/0"));
}

static void
test_full_policy(void **state)
{
	struct audit *a;
	struct conf *c;
	char *text;

	(void)state;
	assert_non_null(a = audit_new());
	feed_mixed(a);
	text = full(a);
	c = parsed(text);
	check_passes(c, text);
	check_refused(c, text);
	check_comments(c, text);
	conf_free(c);
	free(text);
	audit_free(a);
}

/* ---------------------------------------------------------------- */
/* Random logs: the output is a policy every time. */

static uint64_t rng_state;

static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

#define PICK(t)	((t)[rng() % NELEM(t)])

static void
test_full_robust(void **state)
{
	static const char *const hosts[] = { "a.test", "b.a.test", "c.a.test",
	    "d.a.test", "10.0.0.1", "127.0.0.1", "::1", "fe80::1",
	    "169.254.169.254", "93.184.216.34", "2606:2800::1", "*.x.test",
	    "x\\nallow *", "", "0.0.0.0", "64:ff9b::a9fe:a9fe" };
	static const char *const addrs[] = { "", ",\"addr\":\"127.0.0.1\"",
	    ",\"addr\":\"10.2.3.4\"", ",\"addr\":\"fd00:ec2::254\"",
	    ",\"addr\":\"fd00::1\"", ",\"addr\":\"169.254.169.254\"",
	    ",\"addr\":\"100.64.1.1\"", ",\"addr\":\"100.100.100.200\"",
	    ",\"addr\":\"192.0.0.9\"", ",\"addr\":\"64:ff9b::7f00:1\"",
	    ",\"addr\":\"2002:a00:1::\"", ",\"addr\":\"::ffff:10.0.0.1\"",
	    ",\"addr\":\"93.184.216.34\"", ",\"addr\":\"nonsense\"",
	    ",\"addr\":\"255.255.255.255\"", ",\"addr\":\"ff02::1\"" };
	static const struct { const char *d, *r, *x; } kinds[] = {
		{ "allow", "allow_rule", "" },
		{ "allow", "default_allow", "" },
		{ "allow", "report_only", ",\"would\":\"no_allow_rule\"" },
		{ "allow", "report_only", ",\"would\":\"deny_rule\"" },
		{ "deny", "no_allow_rule", "" },
		{ "deny", "deny_rule", "" },
		{ "deny", "private_address", "" },
		{ "deny", "connect_failed", "" },
		{ "deny", "connect_timeout", "" },
		{ "deny", "metadata_address", "" },
	};
	struct audit *a;
	struct conf *c;
	char extra[128], *text;
	size_t i, k, n;

	(void)state;
	for (k = 0; k < ROBUST_LOGS; k++) {
		rng_state = 0x9e3779b97f4a7c15ULL + k;
		assert_non_null(a = audit_new());
		for (i = 0; i < ROBUST_LINES; i++) {
			size_t kind = rng() % NELEM(kinds);
			char why[256], line[1024];

			snprintf(extra, sizeof(extra), "%s%s", kinds[kind].x,
			    PICK(addrs));
			snprintf(line, sizeof(line), "{\"ts\":\"t\","
			    "\"protocol\":\"%s\",\"host\":\"%s\",\"port\":%d,"
			    "\"decision\":\"%s\",\"reason\":\"%s\"%s}",
			    rng() % 2 ? "http" : "socks5", PICK(hosts),
			    (int)(rng() % 3) * 221 + 1,
			    kinds[kind].d, kinds[kind].r, extra);
			(void)audit_line(a, line, strlen(line), why,
			    sizeof(why));
		}
		text = full(a);
		c = parsed(text);
		/* No rule of it admits a metadata address. */
		for (n = 0; n < egress_policy_nrules(c->policy); n++) {
			const struct egress_rule *r =
			    egress_policy_rule(c->policy, n);

			assert_true(r->allow);
			assert_int_not_equal(r->kind, EGRESS_RULE_WILDCARD);
			if (r->kind == EGRESS_RULE_CIDR)
				assert_false(egress_addr_is_metadata(&r->addr));
		}
		expect(c, "169.254.169.254:80", NULL, EGRESS_DENY,
		    EGRESS_R_METADATA_ADDRESS, text);
		for (n = 0; n < NELEM(hosts); n++)
			refused(c, hosts[n], text);
		conf_free(c);
		free(text);
		audit_free(a);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_empty),
		cmocka_unit_test(test_full_policy),
		cmocka_unit_test(test_full_robust),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
