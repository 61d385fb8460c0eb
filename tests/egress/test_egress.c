/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_egress: the decision engine against SPEC 3.2, 3.3, 3.5 and 5.
 * Every test walks a table; a failure names the table, the row and the
 * row's input.  Parsers are fed exact-size heap copies without a NUL, so
 * a sanitizer build catches any read past the given length.
 */
#include <arpa/inet.h>

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
#define MAX_ADDRS	8

/* ---------------------------------------------------------------- */
/* Helpers. */

/* An exact-size copy: no NUL after it, so over-reads are caught. */
static char *
xdup(const char *s, size_t len)
{
	char *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, s, len);
	return p;
}

/* A test address from its text, independent of the code under test. */
static bool
addr_of(const char *s, struct egress_addr *a)
{
	uint8_t b[16];
	uint32_t v4;

	if (inet_pton(AF_INET, s, &v4) == 1) {
		egress_addr_from_v4(a, ntohl(v4));
		return true;
	}
	if (inet_pton(AF_INET6, s, b) == 1) {
		egress_addr_from_v6(a, b);
		return true;
	}
	return false;
}

static void
must_addr(const char *s, struct egress_addr *a)
{
	if (!addr_of(s, a))
		fail_msg("bad address in a test table: %s", s);
}

/* Add d (+1 or -1) to a 128-bit address, wrapping. */
static void
addr_step(struct egress_addr *a, int d)
{
	int i;

	for (i = 15; i >= 0; i--) {
		a->b[i] = (uint8_t)(a->b[i] + d);
		if ((d > 0 && a->b[i] != 0) || (d < 0 && a->b[i] != 0xff))
			break;
	}
}

static struct conf *
policy_parse(const char *text)
{
	char err[CONF_ERR_MAX];
	struct conf *c;

	c = conf_parse("test.conf", text, strlen(text), err, sizeof(err));
	CHECK(c != NULL, "policy does not parse: %s", err);
	return c;
}

static const char *
decision_name(enum egress_decision d)
{
	switch (d) {
	case EGRESS_DENY:
		return "deny";
	case EGRESS_ALLOW:
		return "allow";
	case EGRESS_RESOLVE:
		return "resolve";
	}
	return "?";
}

/* ---------------------------------------------------------------- */
/* Rules: parse, normalize, format, parse again. */

#define S10	"abcdefghij"
#define L61	S10 S10 S10 S10 S10 S10 "k"
#define L62	L61 "l"
#define L63	L62 "m"
#define L64	L63 "n"
#define N253	L63 "." L63 "." L63 "." L61
#define N254	L63 "." L63 "." L63 "." L62

struct rule_case {
	const char		*in;
	bool			 ok;
	enum egress_rule_kind	 kind;
	const char		*out;	/* the normalized text */
};

#define R_HOST(i, o)	{ i, true, EGRESS_RULE_HOST, o }
#define R_WILD(i, o)	{ i, true, EGRESS_RULE_WILDCARD, o }
#define R_CIDR(i, o)	{ i, true, EGRESS_RULE_CIDR, o }
#define R_BAD(i)	{ i, false, EGRESS_RULE_HOST, NULL }

static const struct rule_case rule_cases[] = {
	/* Exact hosts; case and one trailing dot. */
	R_HOST("api.example.com", "api.example.com"),
	R_HOST("API.Example.COM.", "api.example.com"),
	R_HOST("api.example.com:443", "api.example.com:443"),
	R_HOST("Api.Example.Com.:8080", "api.example.com:8080"),
	R_HOST("localhost", "localhost"),
	R_HOST("a-b_c.example", "a-b_c.example"),
	R_HOST("xn--bcher-kva.example", "xn--bcher-kva.example"),
	R_HOST("1password.com", "1password.com"),
	R_HOST("example.com1", "example.com1"),
	R_HOST(L63 ".example", L63 ".example"),
	R_HOST(N253, N253),
	R_HOST(N253 ".", N253),
	R_HOST("example.com:1", "example.com:1"),
	R_HOST("example.com:65535", "example.com:65535"),
	/* Wildcards. */
	R_WILD("*.example.com", "*.example.com"),
	R_WILD("*.Example.COM.", "*.example.com"),
	R_WILD("*.example.com:443", "*.example.com:443"),
	R_WILD("*.com", "*.com"),
	/* Addresses. */
	R_CIDR("203.0.113.7", "203.0.113.7"),
	R_CIDR("203.0.113.7:443", "203.0.113.7:443"),
	R_CIDR("203.0.113.7/32", "203.0.113.7"),
	R_CIDR("[2001:db8::1]", "[2001:db8::1]"),
	R_CIDR("[2001:DB8:0:0::1]:443", "[2001:db8::1]:443"),
	R_CIDR("[2001:db8::1]/128", "[2001:db8::1]"),
	R_CIDR("[::ffff:203.0.113.7]", "203.0.113.7"),
	R_CIDR("2130706433", "127.0.0.1"),
	R_CIDR("0x7f.1:80", "127.0.0.1:80"),
	/* CIDRs. */
	R_CIDR("203.0.113.0/24", "203.0.113.0/24"),
	R_CIDR("203.0.113.0/24:443", "203.0.113.0/24:443"),
	R_CIDR("10.0.0.0/8", "10.0.0.0/8"),
	R_CIDR("0.0.0.0/0", "0.0.0.0/0"),
	R_CIDR("203.0.113.6/31", "203.0.113.6/31"),
	R_CIDR("[2001:db8::]/32", "[2001:db8::]/32"),
	R_CIDR("[2001:DB8::]/32:443", "[2001:db8::]/32:443"),
	R_CIDR("[::]/0", "[::]/0"),
	R_CIDR("[fe80::]/10", "[fe80::]/10"),
	R_CIDR("[::ffff:10.0.0.0]/104", "10.0.0.0/8"),
	/* URLs: the scheme's port, or the explicit one. */
	R_HOST("http://example.com", "example.com:80"),
	R_HOST("https://example.com", "example.com:443"),
	R_HOST("https://example.com/", "example.com:443"),
	R_HOST("HTTPS://Example.COM.:8443/", "example.com:8443"),
	R_HOST("http://example.com:8080", "example.com:8080"),
	R_WILD("https://*.example.com", "*.example.com:443"),
	R_CIDR("http://[2001:db8::1]", "[2001:db8::1]:80"),
	R_CIDR("https://[2001:db8::1]:8443/", "[2001:db8::1]:8443"),
	R_CIDR("https://203.0.113.7", "203.0.113.7:443"),
	/* Schemes other than http(s). */
	R_BAD("ftp://example.com"),
	R_BAD("ws://example.com"),
	R_BAD("file:///etc/passwd"),
	/* IPv6 without brackets. */
	R_BAD("2001:db8::1"),
	R_BAD("::1"),
	R_BAD("2001:db8::/32"),
	R_BAD("::ffff:10.0.0.0/8"),
	R_BAD("[1.2.3.4]"),
	R_BAD("[2001:db8::1"),
	R_BAD("[2001:db8::1]x"),
	R_BAD("[fe80::1%eth0]"),
	/* Prefixes. */
	R_BAD("10.0.0.1/8"),
	R_BAD("[2001:db8::1]/32"),
	R_BAD("[::ffff:10.0.0.0]/8"),
	R_BAD("10.0.0.0/33"),
	R_BAD("[2001:db8::]/129"),
	R_BAD("10.0.0.0/08"),
	R_BAD("10.0.0.0/"),
	R_BAD("10.0.0.0/-1"),
	R_BAD("10.0.0.0/8/8"),
	R_BAD("example.com/8"),
	R_BAD("10.0.0.0/8:"),
	/* Ports. */
	R_BAD("example.com:0"),
	R_BAD("example.com:65536"),
	R_BAD("example.com:+1"),
	R_BAD("example.com:01"),
	R_BAD("example.com:-1"),
	R_BAD("example.com:"),
	R_BAD("example.com:4a3"),
	R_BAD("example.com:443:80"),
	R_BAD("10.0.0.0/8:0"),
	R_BAD("[2001:db8::1]:0"),
	R_BAD("https://example.com:0"),
	/* Names. */
	R_BAD(""),
	R_BAD("."),
	R_BAD("a..b"),
	R_BAD(".example.com"),
	R_BAD("example.com.."),
	R_BAD(L64 ".example"),
	R_BAD(N254),
	R_BAD(N254 "."),
	R_BAD("ex\xc3\xa4mple.com"),
	R_BAD("bad\x80host"),
	R_BAD("exa mple.com"),
	R_BAD("exa%mple.com"),
	R_BAD("user@example.com"),
	R_BAD("example.123"),
	R_BAD("1.2.3.0x1g"),
	R_BAD("08.0.0.1"),
	R_BAD("1.2.3.4.5"),
	/* Wildcards. */
	R_BAD("*"),
	R_BAD("*.1.2.3.4"),
	R_BAD("*.[2001:db8::1]"),
	R_BAD("*."),
	R_BAD("*.*.example.com"),
	R_BAD("a.*.example.com"),
	R_BAD("*example.com"),
	R_BAD("**.example.com"),
	/* URLs with more than an origin. */
	R_BAD("https://example.com/path"),
	R_BAD("https://example.com//"),
	R_BAD("https://example.com?q"),
	R_BAD("https://example.com#f"),
	R_BAD("https://user@example.com"),
	R_BAD("https://user:pw@example.com"),
	R_BAD("https://"),
	R_BAD("https://10.0.0.0/8"),
};

static bool
rule_same(const struct egress_rule *a, const struct egress_rule *b)
{
	return a->kind == b->kind && a->allow == b->allow &&
	    a->port == b->port && a->plen == b->plen &&
	    memcmp(&a->addr, &b->addr, sizeof(a->addr)) == 0 &&
	    strcmp(a->host, b->host) == 0;
}

static void
rule_roundtrip(const struct egress_rule *r, const char *text)
{
	struct egress_rule again;
	char out[EGRESS_HOST_MAX + 16];
	const char *err = NULL;
	char *copy;
	int rc;

	copy = xdup(text, strlen(text));
	rc = egress_rule_parse(copy, strlen(text), r->allow, &again, &err);
	free(copy);
	CHECK(rc == 0, "formatted '%s' does not parse again: %s", text, err);
	egress_rule_format(&again, out, sizeof(out));
	CHECK(strcmp(out, text) == 0, "round trip: '%s' became '%s'", text,
	    out);
	CHECK(rule_same(r, &again), "round trip of '%s' changed the rule",
	    text);
}

static void
rule_case_run(const struct rule_case *c, bool allow)
{
	struct egress_rule r;
	char out[EGRESS_HOST_MAX + 16];
	const char *err = NULL;
	size_t len = strlen(c->in);
	char *copy = xdup(c->in, len);
	int rc;

	rc = egress_rule_parse(copy, len, allow, &r, &err);
	free(copy);
	if (!c->ok) {
		CHECK(rc == -1, "accepted an invalid rule");
		CHECK(err != NULL && *err != '\0', "no error message");
		return;
	}
	CHECK(rc == 0, "refused: %s", err);
	CHECK(r.allow == allow, "allow flag %d, want %d", r.allow, allow);
	CHECK(r.kind == c->kind, "kind %d, want %d", r.kind, c->kind);
	egress_rule_format(&r, out, sizeof(out));
	CHECK(strcmp(out, c->out) == 0, "formatted '%s', want '%s'", out,
	    c->out);
	rule_roundtrip(&r, out);
}

static void
rule_row(const void *row)
{
	rule_case_run(row, true);
	rule_case_run(row, false);
}

static void
test_rule_parse(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(rule_cases); i++) {
		row_begin("rule_cases", i, rule_cases[i].in,
		    strlen(rule_cases[i].in));
		row_run(rule_row, &rule_cases[i]);
	}
	rows_done("rule_cases");
}

/* ---------------------------------------------------------------- */
/* Ports. */

struct port_case {
	const char	*in;
	int		 rc;
	uint16_t	 port;
};

static const struct port_case port_cases[] = {
	{ "1", 0, 1 },
	{ "80", 0, 80 },
	{ "443", 0, 443 },
	{ "65535", 0, 65535 },
	{ "0", -1, 0 },
	{ "00", -1, 0 },
	{ "01", -1, 0 },
	{ "65536", -1, 0 },
	{ "99999", -1, 0 },
	{ "100000", -1, 0 },
	{ "+1", -1, 0 },
	{ "-1", -1, 0 },
	{ " 1", -1, 0 },
	{ "1 ", -1, 0 },
	{ "1a", -1, 0 },
	{ "0x50", -1, 0 },
	{ "", -1, 0 },
};

static void
port_row(const void *row)
{
	const struct port_case *c = row;
	uint16_t port = 7;
	char *copy;
	int rc;

	copy = xdup(c->in, strlen(c->in));
	rc = egress_port_parse(copy, strlen(c->in), &port);
	free(copy);
	CHECK(rc == c->rc, "returned %d, want %d", rc, c->rc);
	if (rc == 0)
		CHECK(port == c->port, "port %u, want %u", port, c->port);
	else
		CHECK(port == 7, "port written on failure: %u", port);
}

static void
test_port_parse(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(port_cases); i++) {
		row_begin("port_cases", i, port_cases[i].in,
		    strlen(port_cases[i].in));
		row_run(port_row, &port_cases[i]);
	}
	rows_done("port_cases");
}

/* ---------------------------------------------------------------- */
/* Hosts: names, and every numeric spelling (SPEC 3.2). */

struct host_case {
	const char	*in;
	bool		 ok;
	bool		 is_addr;
	const char	*host;
};

#define H_ADDR(i, h)	{ i, true, true, h }
#define H_NAME(i, h)	{ i, true, false, h }
#define H_BAD(i)	{ i, false, false, NULL }

static const struct host_case host_cases[] = {
	/* Every spelling of 127.0.0.1 a libc parser accepts. */
	H_ADDR("127.0.0.1", "127.0.0.1"),
	H_ADDR("2130706433", "127.0.0.1"),
	H_ADDR("0x7f.1", "127.0.0.1"),
	H_ADDR("0177.0.0.1", "127.0.0.1"),
	H_ADDR("127.1", "127.0.0.1"),
	H_ADDR("0x7f000001", "127.0.0.1"),
	H_ADDR("0X7F000001", "127.0.0.1"),
	H_ADDR("127.0.1", "127.0.0.1"),
	H_ADDR("017700000001", "127.0.0.1"),
	H_ADDR("0x7f.0x0.0x0.0x1", "127.0.0.1"),
	H_ADDR("0177.0.0.01", "127.0.0.1"),
	H_ADDR("127.0.0.1.", "127.0.0.1"),
	H_ADDR("0", "0.0.0.0"),
	H_ADDR("0xffffffff", "255.255.255.255"),
	H_ADDR("4294967295", "255.255.255.255"),
	H_ADDR("10.0.65535", "10.0.255.255"),
	H_ADDR("10.16777215", "10.255.255.255"),
	/* Refused spellings: never a name. */
	H_BAD("08.0.0.1"),
	H_BAD("09"),
	H_BAD("1.2.3.4.5"),
	H_BAD("256.0.0.1"),
	H_BAD("1.256.0.1"),
	H_BAD("1.2.256.1"),
	H_BAD("1.2.3.256"),
	H_BAD("1.2.65536"),
	H_BAD("1.16777216"),
	H_BAD("0x"),
	H_BAD("0x.1"),
	H_BAD("4294967296"),
	H_BAD("0x100000000"),
	H_BAD("99999999999999999999"),
	H_BAD("example.123"),
	H_BAD("example.0x1"),
	H_BAD("1.2.3.0x1g"),
	H_BAD("1.2.3.4a"),
	H_BAD("0xg.1"),
	H_BAD("1..2.3"),
	/* IPv6, with or without brackets; mapped is the IPv4 it carries. */
	H_ADDR("[::1]", "::1"),
	H_ADDR("::1", "::1"),
	H_ADDR("[2001:DB8:0::1]", "2001:db8::1"),
	H_ADDR("[::ffff:10.0.0.1]", "10.0.0.1"),
	H_ADDR("[::ffff:a00:1]", "10.0.0.1"),
	H_ADDR("[::]", "::"),
	H_BAD("[1.2.3.4]"),
	H_BAD("[]"),
	H_BAD("["),
	H_BAD("[::1"),
	H_BAD("::1]"),
	H_BAD("[fe80::1%eth0]"),
	H_BAD("[fe80::1%25eth0]"),
	H_BAD("[::1]x"),
	H_BAD("[[::1]]"),
	H_BAD("1:2:3:4:5:6:7:8:9"),
	/* Names. */
	H_NAME("example.com", "example.com"),
	H_NAME("EXAMPLE.Com.", "example.com"),
	H_NAME("a-b_c.example", "a-b_c.example"),
	H_NAME("0x7f.example", "0x7f.example"),
	H_NAME("127.0.0.1.example", "127.0.0.1.example"),
	H_NAME("example.com1", "example.com1"),
	H_NAME(N253, N253),
	H_NAME(N253 ".", N253),
	H_BAD(N254),
	H_BAD(L64 ".example"),
	H_BAD(""),
	H_BAD("."),
	H_BAD(".."),
	H_BAD("a..b"),
	H_BAD("example.com.."),
	H_BAD("ex\xc3\xa4mple.com"),
	H_BAD("exa mple.com"),
	H_BAD("*.example.com"),
	H_BAD("user@example.com"),
	H_BAD("example.com/"),
};

static void
host_row(const void *row)
{
	const struct host_case *c = row;
	struct egress_target t;
	const char *err = NULL;
	size_t len = strlen(c->in);
	char *copy = xdup(c->in, len);
	int rc;

	rc = egress_host_parse(copy, len, &t, &err);
	free(copy);
	if (!c->ok) {
		CHECK(rc == -1, "accepted as %s '%s'",
		    t.is_addr ? "address" : "name", t.host);
		CHECK(err != NULL, "no error message");
		return;
	}
	CHECK(rc == 0, "refused: %s", err);
	CHECK(t.is_addr == c->is_addr, "is_addr %d, want %d", t.is_addr,
	    c->is_addr);
	CHECK(strcmp(t.host, c->host) == 0, "host '%s', want '%s'", t.host,
	    c->host);
}

static void
test_host_parse(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(host_cases); i++) {
		row_begin("host_cases", i, host_cases[i].in,
		    strlen(host_cases[i].in));
		row_run(host_row, &host_cases[i]);
	}
	rows_done("host_cases");
}

/* ---------------------------------------------------------------- */
/* Targets: host:port, [v6]:port, http(s) URLs. */

struct target_case {
	const char	*in;
	bool		 ok;
	bool		 is_addr;
	const char	*host;
	uint16_t	 port;
};

#define T_OK(i, a, h, p)	{ i, true, a, h, p }
#define T_BAD(i)		{ i, false, false, NULL, 0 }

static const struct target_case target_cases[] = {
	T_OK("example.com:443", false, "example.com", 443),
	T_OK("Example.COM.:80", false, "example.com", 80),
	T_OK("https://example.com/", false, "example.com", 443),
	T_OK("https://example.com", false, "example.com", 443),
	T_OK("http://example.com", false, "example.com", 80),
	T_OK("HTTP://Example.com:8080/a/b?c#d", false, "example.com", 8080),
	T_OK("https://h.example?@evil.example", false, "h.example", 443),
	T_OK("https://h.example#@evil.example", false, "h.example", 443),
	T_OK("203.0.113.7:443", true, "203.0.113.7", 443),
	T_OK("2130706433:80", true, "127.0.0.1", 80),
	T_OK("0x7f.1:80", true, "127.0.0.1", 80),
	T_OK("[2001:db8::1]:443", true, "2001:db8::1", 443),
	T_OK("[::ffff:10.0.0.1]:80", true, "10.0.0.1", 80),
	T_OK("https://[2001:db8::1]/", true, "2001:db8::1", 443),
	T_OK("http://[2001:db8::1]:8080/", true, "2001:db8::1", 8080),
	T_OK("http://203.0.113.7/", true, "203.0.113.7", 80),
	T_BAD("example.com"),
	T_BAD("example.com:"),
	T_BAD("example.com:0"),
	T_BAD("example.com:65536"),
	T_BAD("example.com:+443"),
	T_BAD("example.com:0443"),
	T_BAD("example.com:443/path"),
	T_BAD("2001:db8::1:443"),
	T_BAD("[2001:db8::1]"),
	T_BAD("[2001:db8::1]443"),
	T_BAD("[1.2.3.4]:80"),
	T_BAD("ftp://example.com/"),
	T_BAD("gopher://example.com:70/"),
	T_BAD("https://user@example.com/"),
	T_BAD("https://user:pw@example.com/"),
	T_BAD("http://example.com:80@evil.example/"),
	T_BAD("https://"),
	T_BAD("https:///"),
	T_BAD("//example.com:443"),
	T_BAD("exa mple.com:443"),
	T_BAD("a..b:443"),
	T_BAD("1.2.3.0x1g:80"),
	T_BAD("08.0.0.1:80"),
	T_BAD(":443"),
	T_BAD(""),
};

static void
target_row(const void *row)
{
	const struct target_case *c = row;
	struct egress_target t;
	const char *err = NULL;
	size_t len = strlen(c->in);
	char *copy = xdup(c->in, len);
	int rc;

	rc = egress_target_parse(copy, len, &t, &err);
	free(copy);
	if (!c->ok) {
		CHECK(rc == -1, "accepted as '%s' port %u", t.host, t.port);
		CHECK(err != NULL, "no error message");
		return;
	}
	CHECK(rc == 0, "refused: %s", err);
	CHECK(t.is_addr == c->is_addr, "is_addr %d", t.is_addr);
	CHECK(strcmp(t.host, c->host) == 0, "host '%s', want '%s'", t.host,
	    c->host);
	CHECK(t.port == c->port, "port %u, want %u", t.port, c->port);
}

static void
test_target_parse(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(target_cases); i++) {
		row_begin("target_cases", i, target_cases[i].in,
		    strlen(target_cases[i].in));
		row_run(target_row, &target_cases[i]);
	}
	rows_done("target_cases");
}

/* ---------------------------------------------------------------- */
/* Reasons: exactly the strings of SPEC 5. */

struct reason_case {
	enum egress_reason	 r;
	const char		*name;
};

static const struct reason_case reason_cases[] = {
	{ EGRESS_R_ALLOW_RULE, "allow_rule" },
	{ EGRESS_R_DEFAULT_ALLOW, "default_allow" },
	{ EGRESS_R_DENY_RULE, "deny_rule" },
	{ EGRESS_R_NO_ALLOW_RULE, "no_allow_rule" },
	{ EGRESS_R_PRIVATE_ADDRESS, "private_address" },
	{ EGRESS_R_METADATA_ADDRESS, "metadata_address" },
	{ EGRESS_R_DNS_FAILURE, "dns_failure" },
	{ EGRESS_R_INVALID_TARGET, "invalid_target" },
	{ EGRESS_R_INVALID_REQUEST, "invalid_request" },
	{ EGRESS_R_UNSUPPORTED_COMMAND, "unsupported_command" },
	{ EGRESS_R_PROXY_LOOP, "proxy_loop" },
	{ EGRESS_R_CONNECT_FAILED, "connect_failed" },
	{ EGRESS_R_CONNECT_TIMEOUT, "connect_timeout" },
	{ EGRESS_R_LIMIT_EXCEEDED, "limit_exceeded" },
	{ EGRESS_R_LOG_UNAVAILABLE, "log_unavailable" },
	{ EGRESS_R_SHUTTING_DOWN, "shutting_down" },
	{ EGRESS_R_NOT_THROUGH_PROXY, "not_through_proxy" },
	{ EGRESS_R_REPORT_ONLY, "report_only" },
	{ EGRESS_R_NONE, "none" },
	{ EGRESS_R_COUNT, "none" },
};

static void
reason_row(const void *row)
{
	const struct reason_case *c = row;
	const char *got = egress_reason_name(c->r);

	CHECK(got != NULL && strcmp(got, c->name) == 0, "name '%s'",
	    got ? got : "(null)");
}

static void
test_reason_names(void **state)
{
	size_t i;

	(void)state;
	/* Every log reason is in the table, once. */
	assert_int_equal(NELEM(reason_cases), EGRESS_R_COUNT + 1);
	for (i = 0; i < NELEM(reason_cases); i++) {
		row_begin("reason_cases", i, reason_cases[i].name,
		    strlen(reason_cases[i].name));
		row_run(reason_row, &reason_cases[i]);
	}
	rows_done("reason_cases");
}

/* ---------------------------------------------------------------- */
/* Decisions: policy text, target, resolved addresses, listeners. */

struct judge_case {
	const char		*policy;
	const char		*target;
	const char		*addrs;		/* NULL: the target alone */
	const char		*listeners;	/* "addr:port,[v6]:port" */
	enum egress_decision	 decision;
	const char		*reason;
	size_t			 index;		/* judge_addrs: the denying one */
	const char		*rule;		/* if set: the deciding rule */
};

#define DENY	EGRESS_DENY
#define ALLOW	EGRESS_ALLOW
#define RESOLVE	EGRESS_RESOLVE

#define J(p, t, d, r)		{ p, t, NULL, NULL, d, r, 0, NULL }
#define JR(p, t, d, r, rule)	{ p, t, NULL, NULL, d, r, 0, rule }
#define JA(p, t, a, d, r, i)	{ p, t, a, NULL, d, r, i, NULL }
#define JAR(p, t, a, d, r, rule) { p, t, a, NULL, d, r, 0, rule }
#define JL(p, t, l, d, r)	{ p, t, NULL, l, d, r, 0, NULL }
#define JAL(p, t, a, l, d, r, i) { p, t, a, l, d, r, i, NULL }

static size_t
addrs_parse(const char *list, struct egress_addr *out)
{
	char buf[512], *tok, *save = NULL;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		assert_true(n < MAX_ADDRS);
		must_addr(tok, &out[n++]);
	}
	return n;
}

/* "127.0.0.1:8080" or "[::]:8080". */
static void
listener_parse(char *s, struct egress_listener *l)
{
	char *colon = strrchr(s, ':');

	assert_non_null(colon);
	*colon = '\0';
	l->port = (uint16_t)atoi(colon + 1);
	if (s[0] == '[') {
		s[strlen(s) - 1] = '\0';
		s++;
	}
	must_addr(s, &l->addr);
}

static size_t
listeners_parse(const char *list, struct egress_listener *out)
{
	char buf[512], *tok, *save = NULL;
	size_t n = 0;

	if (list == NULL)
		return 0;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		assert_true(n < MAX_ADDRS);
		listener_parse(tok, &out[n++]);
	}
	return n;
}

/* A verdict's reason as the tables name it: report_only/WOULD. */
static void
reason_text(const struct egress_verdict *v, char *buf, size_t len)
{
	if (v->reason == EGRESS_R_REPORT_ONLY)
		snprintf(buf, len, "report_only/%s",
		    egress_reason_name(v->would));
	else {
		snprintf(buf, len, "%s", egress_reason_name(v->reason));
		CHECK(v->would == EGRESS_R_NONE, "%s with would %s", buf,
		    egress_reason_name(v->would));
	}
}

static void
verdict_check(const struct judge_case *c, const struct egress_verdict *v)
{
	char reason[64], rule[EGRESS_HOST_MAX + 24] = "";
	bool by_rule;

	reason_text(v, reason, sizeof(reason));
	if (v->rule != NULL) {
		snprintf(rule, sizeof(rule), "%s ", v->rule->allow ? "allow" :
		    "deny");
		egress_rule_format(v->rule, rule + strlen(rule),
		    sizeof(rule) - strlen(rule));
	}
	CHECK(v->decision == c->decision && strcmp(reason, c->reason) == 0,
	    "got %s %s [%s], want %s %s", decision_name(v->decision), reason,
	    rule, decision_name(c->decision), c->reason);
	by_rule = v->reason == EGRESS_R_ALLOW_RULE ||
	    v->reason == EGRESS_R_DENY_RULE || v->would == EGRESS_R_DENY_RULE;
	CHECK(by_rule == (v->rule != NULL), "%s with rule '%s'", reason,
	    rule);
	if (c->rule != NULL)
		CHECK(strcmp(rule, c->rule) == 0, "rule '%s', want '%s'",
		    rule, c->rule);
	if (c->addrs != NULL && v->decision == EGRESS_DENY)
		CHECK(v->addr_index == c->index, "addr_index %zu, want %zu",
		    v->addr_index, c->index);
}

/*
 * One row's verdict under policy text (the row's, or another).  The
 * policy is returned: the verdict's rule lives in it.
 */
static struct conf *
judge_with(const struct judge_case *c, const char *policy,
    struct egress_verdict *v, bool *asked)
{
	struct egress_listener ls[MAX_ADDRS];
	struct egress_addr addrs[MAX_ADDRS];
	struct egress_target t;
	struct egress_verdict pending;
	const char *err = NULL;
	struct conf *conf;
	size_t nl, na;
	int rc;

	conf = policy_parse(policy);
	nl = listeners_parse(c->listeners, ls);
	rc = egress_target_parse(c->target, strlen(c->target), &t, &err);
	if (strcmp(c->reason, "invalid_target") == 0)
		CHECK(rc == -1, "target parsed as '%s' port %u", t.host,
		    t.port);
	else
		CHECK(rc == 0, "target does not parse: %s", err);
	egress_judge_target(conf->policy, &t, ls, nl, v);
	*asked = v->decision == EGRESS_RESOLVE;
	if (c->addrs != NULL && *asked) {
		na = addrs_parse(c->addrs, addrs);
		pending = *v;
		egress_judge_addrs(conf->policy, &t, &pending, addrs, na, ls,
		    nl, v);
	}
	return conf;
}

/* A verdict's rule as text ("" when none). */
static void
rule_text(const struct egress_verdict *v, char *buf, size_t len)
{
	buf[0] = '\0';
	if (v->rule == NULL)
		return;
	snprintf(buf, len, "%s ", v->rule->allow ? "allow" : "deny");
	egress_rule_format(v->rule, buf + strlen(buf), len - strlen(buf));
}

static bool
rules_reason(enum egress_reason r)
{
	return r == EGRESS_R_NO_ALLOW_RULE || r == EGRESS_R_DENY_RULE;
}

/*
 * The same row under mode report (SPEC 3.1): what enforcing allows is
 * allowed alike; a refusal by the rules becomes report_only with it as
 * would (resolve first, when no address was judged yet), or a refusal
 * report mode keeps (a later address that is special-purpose); any
 * other refusal stands as it was.
 */
static void
report_check(const struct judge_case *c, const struct egress_verdict *e)
{
	char policy[1024], erule[EGRESS_HOST_MAX + 24];
	char rrule[EGRESS_HOST_MAX + 24];
	struct egress_verdict r;
	struct conf *conf;
	bool asked;

	if (strstr(c->policy, "mode ") != NULL)
		return;
	snprintf(policy, sizeof(policy), "mode report\n%s", c->policy);
	conf = judge_with(c, policy, &r, &asked);
	rule_text(e, erule, sizeof(erule));
	rule_text(&r, rrule, sizeof(rrule));
	conf_free(conf);
	if (e->decision != EGRESS_DENY || !rules_reason(e->reason)) {
		CHECK(r.decision == e->decision && r.reason == e->reason &&
		    strcmp(rrule, erule) == 0 && r.would == EGRESS_R_NONE,
		    "mode report: %s %s [%s], enforced %s %s [%s]",
		    decision_name(r.decision), egress_reason_name(r.reason),
		    rrule, decision_name(e->decision),
		    egress_reason_name(e->reason), erule);
		return;
	}
	/*
	 * A deny rule's address may be special-purpose too (6a comes before
	 * 6c); a later address may be one.
	 */
	if (r.decision == EGRESS_DENY) {
		CHECK(!rules_reason(r.reason) && (r.addr_index > e->addr_index ||
		    (e->reason == EGRESS_R_DENY_RULE && r.addr_index ==
		    e->addr_index)), "mode report: deny %s at "
		    "%zu, enforced deny %s at %zu", egress_reason_name(r.reason),
		    r.addr_index, egress_reason_name(e->reason), e->addr_index);
		return;
	}
	CHECK(r.reason == EGRESS_R_REPORT_ONLY && r.would == e->reason &&
	    (r.decision == EGRESS_ALLOW || (r.decision == EGRESS_RESOLVE &&
	    c->addrs == NULL)),
	    "mode report: %s %s/%s, enforced deny %s",
	    decision_name(r.decision), egress_reason_name(r.reason),
	    egress_reason_name(r.would), egress_reason_name(e->reason));
	CHECK((r.would == EGRESS_R_DENY_RULE) == (rrule[0] != '\0') &&
	    strcmp(rrule, erule) == 0, "mode report: would %s with rule "
	    "'%s', enforced '%s'", egress_reason_name(r.would), rrule, erule);
}

static void
judge_row(const void *row)
{
	const struct judge_case *c = row;
	struct egress_verdict v;
	struct conf *conf;
	bool asked;

	conf = judge_with(c, c->policy, &v, &asked);
	if (c->addrs != NULL)
		CHECK(asked, "judge_target: %s %s, want resolve",
		    decision_name(v.decision), egress_reason_name(v.reason));
	verdict_check(c, &v);
	report_check(c, &v);
	conf_free(conf);
}

static void
judge_table(const char *name, const struct judge_case *t, size_t n)
{
	char in[1024];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(in, sizeof(in), "%s | %s | %s | %s", t[i].policy,
		    t[i].target, t[i].addrs ? t[i].addrs : "-",
		    t[i].listeners ? t[i].listeners : "-");
		row_begin(name, i, in, strlen(in));
		row_run(judge_row, &t[i]);
	}
	rows_done(name);
}

/* Wildcard vs apex, suffixes, case and dots, ports, deny over allow. */
static const struct judge_case match_cases[] = {
	JR("allow *.example.com", "a.example.com:443", RESOLVE, "allow_rule",
	    "allow *.example.com"),
	J("allow *.example.com", "a.b.example.com:443", RESOLVE,
	    "allow_rule"),
	J("allow *.example.com", "A.B.Example.COM.:443", RESOLVE,
	    "allow_rule"),
	J("allow *.example.com", "example.com:443", DENY, "no_allow_rule"),
	J("allow *.example.com", "example.com.:443", DENY, "no_allow_rule"),
	J("allow *.example.com", "notexample.com:443", DENY,
	    "no_allow_rule"),
	J("allow *.example.com", "a.notexample.com:443", DENY,
	    "no_allow_rule"),
	J("allow *.example.com", "example.com.evil.test:443", DENY,
	    "no_allow_rule"),
	J("allow *.example.com", "aexample.com:443", DENY, "no_allow_rule"),
	J("allow example.com", "notexample.com:443", DENY, "no_allow_rule"),
	J("allow example.com", "a.example.com:443", DENY, "no_allow_rule"),
	J("allow example.com", "example.co:443", DENY, "no_allow_rule"),
	J("allow example.com", "example.com.au:443", DENY, "no_allow_rule"),
	JR("allow example.com", "EXAMPLE.COM.:443", RESOLVE, "allow_rule",
	    "allow example.com"),
	J("allow Example.COM.", "example.com:443", RESOLVE, "allow_rule"),
	J("allow example.com *.example.com", "example.com:443", RESOLVE,
	    "allow_rule"),
	/* Port-scoped rules. */
	J("allow x.example:443", "x.example:443", RESOLVE, "allow_rule"),
	J("allow x.example:443", "x.example:80", DENY, "no_allow_rule"),
	J("allow *.example.com:443", "a.example.com:80", DENY,
	    "no_allow_rule"),
	J("allow https://example.com", "example.com:443", RESOLVE,
	    "allow_rule"),
	J("allow https://example.com", "example.com:80", DENY,
	    "no_allow_rule"),
	J("allow http://example.com", "example.com:80", RESOLVE,
	    "allow_rule"),
	J("allow http://example.com", "example.com:443", DENY,
	    "no_allow_rule"),
	J("allow 93.184.216.34:443", "93.184.216.34:443", ALLOW,
	    "allow_rule"),
	J("allow 93.184.216.34:443", "93.184.216.34:80", DENY,
	    "no_allow_rule"),
	J("allow [2606:2800::]/32:443", "[2606:2800::1]:80", DENY,
	    "no_allow_rule"),
	J("allow [2606:2800::]/32:443", "[2606:2800::1]:443", ALLOW,
	    "allow_rule"),
	/* Host deny over host allow: no DNS query. */
	JR("allow example.com\ndeny example.com", "example.com:443", DENY,
	    "deny_rule", "deny example.com"),
	J("deny example.com\nallow example.com", "example.com:443", DENY,
	    "deny_rule"),
	J("default allow\ndeny example.com", "example.com:443", DENY,
	    "deny_rule"),
	J("default allow\ndeny EXAMPLE.com.", "Example.Com.:443", DENY,
	    "deny_rule"),
	JR("allow *.example.com\ndeny bad.example.com", "bad.example.com:443",
	    DENY, "deny_rule", "deny bad.example.com"),
	J("allow *.example.com\ndeny bad.example.com",
	    "good.example.com:443", RESOLVE, "allow_rule"),
	J("allow bad.example.com\ndeny *.example.com", "bad.example.com:443",
	    DENY, "deny_rule"),
	J("default allow\ndeny *.example.com", "a.b.example.com:443", DENY,
	    "deny_rule"),
	J("default allow\ndeny *.example.com", "example.com:443", RESOLVE,
	    "default_allow"),
	J("default allow\ndeny *.example.com", "notexample.com:443",
	    RESOLVE, "default_allow"),
	J("default allow\ndeny example.com", "notexample.com:443", RESOLVE,
	    "default_allow"),
	J("allow example.com\ndeny example.com:443", "example.com:443", DENY,
	    "deny_rule"),
	J("allow example.com\ndeny example.com:443", "example.com:80",
	    RESOLVE, "allow_rule"),
	J("deny example.com\nallow 93.184.216.0/24", "example.com:443", DENY,
	    "deny_rule"),
	J("deny example.com\ndefault allow\nallow 0.0.0.0/0",
	    "example.com:443", DENY, "deny_rule"),
	/* CIDR deny over CIDR allow, whichever is narrower. */
	JR("allow 10.0.0.0/8\ndeny 10.0.0.5\nblock_private off",
	    "10.0.0.5:80", DENY, "deny_rule", "deny 10.0.0.5"),
	JR("allow 10.0.0.0/8\ndeny 10.0.0.5\nblock_private off",
	    "10.0.0.6:80", ALLOW, "allow_rule", "allow 10.0.0.0/8"),
	J("deny 10.0.0.0/8\nallow 10.0.0.5", "10.0.0.5:80", DENY,
	    "deny_rule"),
	J("deny 10.0.0.0/8\nallow 10.0.0.5\nblock_private off",
	    "10.0.0.5:80", DENY, "deny_rule"),
	J("allow [2001:db8::]/32\ndeny [2001:db8:1::]/48",
	    "[2001:db8:1::5]:443", DENY, "deny_rule"),
	J("allow [2001:db8::]/32\ndeny [2001:db8:1::]/48",
	    "[2001:db8:2::5]:443", ALLOW, "allow_rule"),
	J("default allow\nblock_private off\ndeny [2001:db8::]/32:443",
	    "[2001:db8::1]:443", DENY, "deny_rule"),
	J("default allow\nblock_private off\ndeny [2001:db8::]/32:443",
	    "[2001:db8::1]:80", ALLOW, "default_allow"),
	/* Prefixes that end inside a byte. */
	J("allow 140.82.112.0/20", "140.82.112.0:443", ALLOW, "allow_rule"),
	J("allow 140.82.112.0/20", "140.82.127.255:443", ALLOW,
	    "allow_rule"),
	J("allow 140.82.112.0/20", "140.82.128.0:443", DENY,
	    "no_allow_rule"),
	J("allow 140.82.112.0/20", "140.82.111.255:443", DENY,
	    "no_allow_rule"),
	J("allow 93.184.216.34/31", "93.184.216.35:443", ALLOW,
	    "allow_rule"),
	J("allow 93.184.216.34/31", "93.184.216.36:443", DENY,
	    "no_allow_rule"),
	J("allow [2606:2800::]/23", "[2606:29ff::1]:443", ALLOW,
	    "allow_rule"),
	J("allow [2606:2800::]/23", "[2606:2a00::1]:443", DENY,
	    "no_allow_rule"),
	J("block_private off\ndefault allow\ndeny 172.16.0.0/12",
	    "172.31.255.255:80", DENY, "deny_rule"),
	J("block_private off\ndefault allow\ndeny 172.16.0.0/12",
	    "172.32.0.0:80", ALLOW, "default_allow"),
	J("block_private off\ndefault allow\ndeny 172.16.0.0/12",
	    "172.15.255.255:80", ALLOW, "default_allow"),
	J("block_private off\ndefault allow\ndeny [2001:db8::]/33",
	    "[2001:db8:7fff::1]:80", DENY, "deny_rule"),
	J("block_private off\ndefault allow\ndeny [2001:db8::]/33",
	    "[2001:db8:8000::1]:80", ALLOW, "default_allow"),
	/* The longest prefix decides, port by port. */
	JR("allow 93.184.0.0/16\nallow 93.184.216.0/24:443",
	    "93.184.216.34:443", ALLOW, "allow_rule",
	    "allow 93.184.216.0/24:443"),
	JR("allow 93.184.0.0/16\nallow 93.184.216.0/24:443",
	    "93.184.216.34:80", ALLOW, "allow_rule", "allow 93.184.0.0/16"),
	/* A numeric spelling cannot slip past an address rule. */
	J("default allow\nblock_private off\ndeny 127.0.0.1",
	    "2130706433:80", DENY, "deny_rule"),
	J("default allow\nblock_private off\ndeny 127.0.0.1", "0x7f.1:80",
	    DENY, "deny_rule"),
	J("default allow\nblock_private off\ndeny 127.0.0.0/8",
	    "0177.0.0.1:80", DENY, "deny_rule"),
	/* A CIDR deny applies to resolved answers too. */
	JA("allow example.com\ndeny 93.184.216.0/24", "example.com:443",
	    "93.184.216.34", DENY, "deny_rule", 0),
	JA("allow example.com\ndeny 93.184.216.0/24:80", "example.com:443",
	    "93.184.216.34", ALLOW, "allow_rule", 0),
	JA("allow example.com\ndeny 10.0.0.0/8", "example.com:443",
	    "10.0.0.1", DENY, "deny_rule", 0),
};

static void
test_match(void **state)
{
	(void)state;
	judge_table("match_cases", match_cases, NELEM(match_cases));
}

/* SPEC 3.3 step by step, and the reasons of SPEC 5. */
static const struct judge_case decision_cases[] = {
	/* Step 4: no admission means no DNS query. */
	J("", "example.com:443", DENY, "no_allow_rule"),
	J("allow other.example", "example.com:443", DENY, "no_allow_rule"),
	J("allow other.example\ndeny 1.2.3.4", "example.com:443", DENY,
	    "no_allow_rule"),
	J("block_private off\nallow_loopback on", "example.com:443", DENY,
	    "no_allow_rule"),
	/* Only address allow rules: resolve, then judge the addresses. */
	J("allow 93.184.216.0/24", "example.com:443", RESOLVE, "none"),
	J("allow [2606:2800::]/32", "example.com:443", RESOLVE, "none"),
	JAR("allow 93.184.216.0/24", "example.com:443", "93.184.216.34",
	    ALLOW, "allow_rule", "allow 93.184.216.0/24"),
	JA("allow 93.184.216.0/24", "example.com:443", "1.1.1.1", DENY,
	    "no_allow_rule", 0),
	JA("allow 93.184.216.0/24", "example.com:443",
	    "93.184.216.34,1.1.1.1", DENY, "no_allow_rule", 1),
	/* Default allow. */
	J("default allow", "example.com:443", RESOLVE, "default_allow"),
	JA("default allow", "example.com:443", "93.184.216.34", ALLOW,
	    "default_allow", 0),
	J("default allow", "93.184.216.34:443", ALLOW, "default_allow"),
	J("default allow", "[2606:2800:220:1::1]:443", ALLOW,
	    "default_allow"),
	J("default allow", "10.0.0.1:443", DENY, "private_address"),
	J("default allow\nblock_private off", "10.0.0.1:443", ALLOW,
	    "default_allow"),
	J("default deny", "93.184.216.34:443", DENY, "no_allow_rule"),
	J("", "93.184.216.34:443", DENY, "no_allow_rule"),
	/* A host allow rule: the rule is credited for every address. */
	JAR("allow example.com", "example.com:443", "93.184.216.34", ALLOW,
	    "allow_rule", "allow example.com"),
	JAR("allow example.com\nallow 93.184.216.0/24", "example.com:443",
	    "93.184.216.34", ALLOW, "allow_rule", "allow example.com"),
	JA("allow example.com", "example.com:443",
	    "93.184.216.34,2606:2800:220:1::1", ALLOW, "allow_rule", 0),
	/* Mixed answers: the first failure denies them all. */
	JA("allow example.com", "example.com:443", "93.184.216.34,10.0.0.1",
	    DENY, "private_address", 1),
	JA("allow example.com", "example.com:443", "10.0.0.1,93.184.216.34",
	    DENY, "private_address", 0),
	JA("allow example.com", "example.com:443",
	    "93.184.216.34,1.1.1.1,2001:db8::1", DENY, "private_address", 2),
	JA("allow example.com", "example.com:443",
	    "93.184.216.34,::ffff:192.168.1.1", DENY, "private_address", 1),
	JA("allow example.com", "example.com:443",
	    "93.184.216.34,169.254.169.254", DENY, "metadata_address", 1),
	JA("default allow", "example.com:443", "93.184.216.34,127.0.0.1",
	    DENY, "private_address", 1),
	/* No answer. */
	JA("allow example.com", "example.com:443", "", DENY, "dns_failure",
	    0),
	JA("default allow", "example.com:443", "", DENY, "dns_failure", 0),
	JA("allow 93.184.216.0/24", "example.com:443", "", DENY,
	    "dns_failure", 0),
	/* Loopback: allow_loopback lifts the block only. */
	J("", "127.0.0.1:8080", DENY, "private_address"),
	J("allow_loopback on", "127.0.0.1:8080", DENY, "no_allow_rule"),
	J("allow_loopback on", "[::1]:8080", DENY, "no_allow_rule"),
	J("allow_loopback on\nallow 127.0.0.1:8080", "127.0.0.1:8080", ALLOW,
	    "allow_rule"),
	J("allow_loopback on\nallow 127.0.0.1:8080", "127.0.0.1:8081", DENY,
	    "no_allow_rule"),
	J("allow 127.0.0.1:8080", "127.0.0.1:8080", ALLOW, "allow_rule"),
	J("allow_loopback on\ndefault allow", "127.0.0.1:8080", ALLOW,
	    "default_allow"),
	J("allow_loopback on\ndefault allow", "127.9.9.9:8080", ALLOW,
	    "default_allow"),
	J("allow_loopback on\ndefault allow", "[::1]:8080", ALLOW,
	    "default_allow"),
	J("allow_loopback on\ndefault allow", "10.0.0.1:8080", DENY,
	    "private_address"),
	J("allow_loopback on\ndefault allow", "[::2]:8080", DENY,
	    "private_address"),
	J("allow_loopback on\ndefault allow\ndeny 127.0.0.1", "127.0.0.1:80",
	    DENY, "deny_rule"),
	JA("allow localhost", "localhost:8080", "127.0.0.1", DENY,
	    "private_address", 0),
	JA("allow_loopback on\nallow localhost", "localhost:8080",
	    "127.0.0.1,::1", ALLOW, "allow_rule", 0),
	JA("allow_loopback on\nallow localhost", "localhost:8080",
	    "127.0.0.1,10.0.0.1", DENY, "private_address", 1),
	/* Proxy loops, whatever the rules say. */
	JL("allow_loopback on\nallow 127.0.0.1", "127.0.0.1:8080",
	    "127.0.0.1:8080", DENY, "proxy_loop"),
	JL("allow_loopback on\nallow 127.0.0.1", "127.0.0.1:8081",
	    "127.0.0.1:8080", ALLOW, "allow_rule"),
	JL("allow_loopback on\nallow 127.0.0.1", "127.0.0.1:8080",
	    "0.0.0.0:8080", DENY, "proxy_loop"),
	JL("block_private off\ndefault allow", "0.0.0.0:8080",
	    "0.0.0.0:8080", DENY, "proxy_loop"),
	JL("block_private off\ndefault allow", "0.0.0.0:8080",
	    "127.0.0.1:8080", DENY, "proxy_loop"),
	JL("block_private off\ndefault allow", "[::]:8080", "127.0.0.1:8080",
	    DENY, "proxy_loop"),
	JL("block_private off\ndefault allow", "[::1]:8080", "[::1]:8080",
	    DENY, "proxy_loop"),
	JL("block_private off\ndefault allow", "[::1]:8080", "[::]:8080",
	    DENY, "proxy_loop"),
	JL("block_private off\ndefault allow", "0.0.0.0:8081",
	    "0.0.0.0:8080", ALLOW, "default_allow"),
	JL("block_private off\ndefault allow", "192.0.2.10:3128",
	    "192.0.2.10:3128", DENY, "proxy_loop"),
	JL("block_private off\ndefault allow", "192.0.2.10:3129",
	    "192.0.2.10:3128", ALLOW, "default_allow"),
	JL("block_private off\ndefault allow", "192.0.2.11:3128",
	    "192.0.2.10:3128", ALLOW, "default_allow"),
	JL("block_private off\ndefault allow", "192.0.2.10:3128",
	    "127.0.0.1:1,192.0.2.10:3128", DENY, "proxy_loop"),
	JL("block_private off\nallow 127.0.0.1\ndeny 127.0.0.1",
	    "127.0.0.1:8080", "127.0.0.1:8080", DENY, "proxy_loop"),
	JAL("allow example.com\nallow_loopback on", "example.com:443",
	    "93.184.216.34,127.0.0.1", "127.0.0.1:443", DENY, "proxy_loop", 1),
	JAL("allow example.com\nallow_loopback on", "example.com:443",
	    "127.0.0.1", "127.0.0.1:8080", ALLOW, "allow_rule", 0),
	/* Step 1: invalid targets. */
	J("default allow", "exa mple.com:443", DENY, "invalid_target"),
	J("default allow", "example.com", DENY, "invalid_target"),
	J("default allow", "example.com:0", DENY, "invalid_target"),
	J("default allow", "ftp://example.com/", DENY, "invalid_target"),
	J("default allow", "https://u@example.com/", DENY, "invalid_target"),
	J("default allow", "1.2.3.0x1g:80", DENY, "invalid_target"),
	J("default allow", "256.0.0.1:80", DENY, "invalid_target"),
	J("default allow", "2001:db8::1:80", DENY, "invalid_target"),
	J("default allow", "", DENY, "invalid_target"),
};

/* exempt (SPEC 3.1): out of the registry, judged as public; admits nothing. */
static const struct judge_case exempt_cases[] = {
	JA("allow npm.test\nexempt 203.0.113.0/24", "npm.test:443",
	    "203.0.113.80", ALLOW, "allow_rule", 0),
	JA("allow npm.test", "npm.test:443", "203.0.113.80", DENY,
	    "private_address", 0),
	/* Nothing by itself: a name no rule admits is never resolved. */
	J("exempt 203.0.113.0/24", "npm.test:443", DENY, "no_allow_rule"),
	J("exempt 203.0.113.0/24", "203.0.113.80:443", DENY,
	    "no_allow_rule"),
	J("default allow\nexempt 203.0.113.0/24", "203.0.113.80:443", ALLOW,
	    "default_allow"),
	J("default allow", "203.0.113.80:443", DENY, "private_address"),
	/* Other rules still apply to it, ports included. */
	J("allow 203.0.113.0/24:443\nexempt 203.0.113.0/24",
	    "203.0.113.80:80", DENY, "no_allow_rule"),
	J("default allow\nexempt 203.0.113.0/24\ndeny 203.0.113.80",
	    "203.0.113.80:443", DENY, "deny_rule"),
	JA("allow npm.test\nexempt 203.0.113.0/24\ndeny 203.0.113.80",
	    "npm.test:443", "203.0.113.80", DENY, "deny_rule", 0),
	/* Only what it names: one exempt answer does not carry another. */
	JA("allow npm.test\nexempt 203.0.113.0/24", "npm.test:443",
	    "203.0.113.80,10.0.0.1", DENY, "private_address", 1),
	JA("allow npm.test\nexempt 203.0.113.80", "npm.test:443",
	    "203.0.113.81", DENY, "private_address", 0),
	/* IPv6, and the IPv4 an address carries. */
	JA("allow npm.test\nexempt [2001:db8::]/32", "npm.test:443",
	    "2001:db8::80", ALLOW, "allow_rule", 0),
	J("default allow\nexempt 203.0.113.0/24", "[::ffff:203.0.113.80]:443",
	    ALLOW, "default_allow"),
	/* Metadata stays refused, whatever embeds it. */
	J("default allow\nexempt [64:ff9b::]/96", "[64:ff9b::a9fe:a9fe]:80",
	    DENY, "metadata_address"),
	J("default allow\nexempt [64:ff9b::]/96", "[64:ff9b::a00:1]:80",
	    DENY, "private_address"),
	J("default allow\nexempt [64:ff9b::]/96", "[64:ff9b::5db8:d822]:80",
	    ALLOW, "default_allow"),
	JA("allow npm.test\nexempt [64:ff9b::]/96", "npm.test:443",
	    "64:ff9b::cb00:7150", DENY, "private_address", 0),
	JA("allow npm.test\nexempt [64:ff9b::]/96 203.0.113.0/24",
	    "npm.test:443", "64:ff9b::cb00:7150", ALLOW, "allow_rule", 0),
	/* The proxy's own listener comes first. */
	JL("default allow\nexempt 127.0.0.2", "127.0.0.2:8080",
	    "127.0.0.2:8080", DENY, "proxy_loop"),
};

static void
test_exempt(void **state)
{
	(void)state;
	judge_table("exempt_cases", exempt_cases, NELEM(exempt_cases));
}

/* mode report (SPEC 3.1): the rules' refusals let through, nothing else. */
static const struct judge_case report_cases[] = {
	J("mode enforce", "example.com:443", DENY, "no_allow_rule"),
	J("mode report", "example.com:443", RESOLVE,
	    "report_only/no_allow_rule"),
	JA("mode report", "example.com:443", "93.184.216.34", ALLOW,
	    "report_only/no_allow_rule", 0),
	JA("mode report", "example.com:443", "93.184.216.34,10.0.0.1", DENY,
	    "private_address", 1),
	JA("mode report", "example.com:443", "169.254.169.254", DENY,
	    "metadata_address", 0),
	JA("mode report\nblock_private off", "example.com:443",
	    "169.254.169.254", DENY, "metadata_address", 0),
	JA("mode report", "example.com:443", "::1", DENY, "private_address",
	    0),
	J("mode report\nallow example.com", "example.com:443", RESOLVE,
	    "allow_rule"),
	JR("mode report\ndeny example.com", "example.com:443", RESOLVE,
	    "report_only/deny_rule", "deny example.com"),
	JAR("mode report\ndeny example.com", "example.com:443",
	    "93.184.216.34", ALLOW, "report_only/deny_rule",
	    "deny example.com"),
	JAR("mode report\nallow example.com\ndeny example.com",
	    "example.com:443", "93.184.216.34", ALLOW,
	    "report_only/deny_rule", "deny example.com"),
	JA("mode report\ndeny example.com", "example.com:443", "10.0.0.1",
	    DENY, "private_address", 0),
	JAR("mode report\nallow example.com\ndeny 93.184.216.0/24",
	    "example.com:443", "93.184.216.34", ALLOW,
	    "report_only/deny_rule", "deny 93.184.216.0/24"),
	JAR("mode report\nallow example.com\ndeny 93.184.216.0/24",
	    "example.com:443", "1.1.1.1,93.184.216.34", ALLOW,
	    "report_only/deny_rule", "deny 93.184.216.0/24"),
	JAR("mode report\nallow example.com\ndeny 93.184.216.0/24",
	    "example.com:443", "1.1.1.1,8.8.8.8", ALLOW, "allow_rule",
	    "allow example.com"),
	JAR("mode report\nallow 140.82.112.0/20", "github.com:443",
	    "140.82.112.3", ALLOW, "allow_rule", "allow 140.82.112.0/20"),
	JA("mode report\nallow 140.82.112.0/20", "github.com:443",
	    "1.2.3.4", ALLOW, "report_only/no_allow_rule", 0),
	J("mode report", "93.184.216.34:443", ALLOW,
	    "report_only/no_allow_rule"),
	JR("mode report\ndeny 93.184.216.0/24", "93.184.216.34:443", ALLOW,
	    "report_only/deny_rule", "deny 93.184.216.0/24"),
	J("mode report", "10.0.0.1:443", DENY, "private_address"),
	J("mode report\ndeny 10.0.0.0/8", "10.0.0.1:443", DENY,
	    "private_address"),
	J("deny 10.0.0.0/8", "10.0.0.1:443", DENY, "deny_rule"),
	J("mode report\nblock_private off", "10.0.0.1:443", ALLOW,
	    "report_only/no_allow_rule"),
	J("mode report\nallow_loopback on", "127.0.0.1:5432", ALLOW,
	    "report_only/no_allow_rule"),
	JL("mode report\nblock_private off", "127.0.0.1:8080",
	    "127.0.0.1:8080", DENY, "proxy_loop"),
	J("mode report", "[fd00:ec2::254]:80", DENY, "metadata_address"),
	J("mode report", ":443", DENY, "invalid_target"),
};

static void
test_report(void **state)
{
	(void)state;
	judge_table("report_cases", report_cases, NELEM(report_cases));
}

static void
test_decisions(void **state)
{
	(void)state;
	judge_table("decision_cases", decision_cases, NELEM(decision_cases));
}

/* ---------------------------------------------------------------- */
/* Every embedded-IPv4 form of 10.0.0.1 (SPEC 3.3, 3.5). */

#define EMBED_ROWS(t)							\
	J("", t, DENY, "private_address"),				\
	J("default allow", t, DENY, "private_address"),			\
	J("allow 10.0.0.0/8", t, DENY, "private_address"),		\
	J("block_private off\ndefault allow", t, ALLOW, "default_allow"), \
	J("block_private off\ndefault allow\ndeny 10.0.0.0/8", t, DENY,	\
	    "deny_rule"),						\
	J("block_private off\ndefault allow\ndeny 10.0.0.1", t, DENY,	\
	    "deny_rule"),						\
	J("block_private off\nallow [::]/0\ndeny 10.0.0.0/8", t, DENY,	\
	    "deny_rule"),						\
	J("block_private off\ndefault allow\ndeny 10.0.0.0/8:80", t,	\
	    ALLOW, "default_allow")

static const struct judge_case embed_cases[] = {
	/* Mapped: the IPv4 address itself, for every rule. */
	J("", "[::ffff:10.0.0.1]:443", DENY, "private_address"),
	JR("allow 10.0.0.0/8", "[::ffff:10.0.0.1]:443", ALLOW, "allow_rule",
	    "allow 10.0.0.0/8"),
	J("allow 10.0.0.1:443", "[::ffff:a00:1]:443", ALLOW, "allow_rule"),
	J("allow [::ffff:10.0.0.0]/104", "10.0.0.1:443", ALLOW,
	    "allow_rule"),
	JR("block_private off\ndefault allow\ndeny 10.0.0.0/8",
	    "[::ffff:10.0.0.1]:443", DENY, "deny_rule", "deny 10.0.0.0/8"),
	J("deny 10.0.0.0/8\nallow 10.0.0.0/8", "[::ffff:10.0.0.1]:443", DENY,
	    "deny_rule"),
	JA("allow example.com", "example.com:443", "::ffff:10.0.0.1", DENY,
	    "private_address", 0),
	JA("allow 10.0.0.0/8", "example.com:443", "::ffff:10.0.0.1", ALLOW,
	    "allow_rule", 0),
	/* IPv4-compatible ::/96. */
	EMBED_ROWS("[::10.0.0.1]:443"),
	EMBED_ROWS("[::a00:1]:443"),
	/* NAT64 64:ff9b::/96. */
	EMBED_ROWS("[64:ff9b::a00:1]:443"),
	EMBED_ROWS("[64:ff9b::10.0.0.1]:443"),
	/* Local-use NAT64 64:ff9b:1::/48, both layouts. */
	EMBED_ROWS("[64:ff9b:1:a00:0:100::]:443"),
	EMBED_ROWS("[64:ff9b:1::a00:1]:443"),
	/* 6to4. */
	EMBED_ROWS("[2002:a00:1::]:443"),
	EMBED_ROWS("[2002:a00:1:1::1]:443"),
	/* Teredo: the server, and the obfuscated client. */
	EMBED_ROWS("[2001:0:a00:1:0:0:a247:27dd]:443"),
	EMBED_ROWS("[2001:0:4136:e378:8000:63bf:f5ff:fffe]:443"),
	/* A deny on a public embedded address. */
	J("block_private off\ndefault allow\ndeny 203.0.113.7",
	    "[2001:0:cb00:7107::]:443", DENY, "deny_rule"),
	J("block_private off\ndefault allow\ndeny 203.0.113.7",
	    "[2001:0:4136:e378::34ff:8ef8]:443", DENY, "deny_rule"),
	J("block_private off\ndefault allow\ndeny 203.0.113.7",
	    "[64:ff9b::cb00:7107]:443", DENY, "deny_rule"),
	J("block_private off\ndefault allow\ndeny 203.0.113.7",
	    "[2002:cb00:7107::1]:443", DENY, "deny_rule"),
	J("block_private off\ndefault allow\ndeny 203.0.113.7",
	    "[::203.0.113.7]:443", DENY, "deny_rule"),
	J("block_private off\ndefault allow\ndeny 203.0.113.7",
	    "[2002:cb00:7108::1]:443", ALLOW, "default_allow"),
	/* The same through resolution. */
	JA("allow example.com\nblock_private off\ndeny 10.0.0.0/8",
	    "example.com:443", "93.184.216.34,2002:a00:1::", DENY, "deny_rule",
	    1),
	JA("allow example.com\nblock_private off\ndeny 10.0.0.0/8",
	    "example.com:443", "64:ff9b::a00:1", DENY, "deny_rule", 0),
	JA("allow example.com", "example.com:443",
	    "93.184.216.34,64:ff9b::5db8:d822", DENY, "private_address", 1),
	JA("allow example.com", "example.com:443",
	    "2606:2800:220:1::1,2001:0:4136:e378:8000:63bf:a247:27dd", DENY,
	    "private_address", 1),
};

static void
test_embedded_decisions(void **state)
{
	(void)state;
	judge_table("embed_cases", embed_cases, NELEM(embed_cases));
}

struct embed_case {
	const char	*addr;
	size_t		 n;
	const char	*v4[EGRESS_EMBED_MAX];
};

static const struct embed_case embed_addr_cases[] = {
	{ "::ffff:10.0.0.1", 0, { NULL, NULL } },
	{ "10.0.0.1", 0, { NULL, NULL } },
	{ "::a00:1", 1, { "10.0.0.1", NULL } },
	{ "::1", 1, { "0.0.0.1", NULL } },
	{ "64:ff9b::a00:1", 1, { "10.0.0.1", NULL } },
	{ "64:ff9b:1:a00:0:100::", 2, { "10.0.0.1", "0.0.0.0" } },
	{ "64:ff9b:1::a00:1", 2, { "0.0.0.0", "10.0.0.1" } },
	{ "64:ff9b:1:c0a8:1:100:a00:1", 2, { "192.168.1.1", "10.0.0.1" } },
	{ "2002:a00:1::", 1, { "10.0.0.1", NULL } },
	{ "2002:cb00:7107:1::5", 1, { "203.0.113.7", NULL } },
	{ "2001:0:4136:e378:8000:63bf:f5ff:fffe", 2,
	    { "65.54.227.120", "10.0.0.1" } },
	{ "2001:0:a00:1::", 2, { "10.0.0.1", "255.255.255.255" } },
	{ "2001:db8::a00:1", 0, { NULL, NULL } },
	{ "2001:1::a00:1", 0, { NULL, NULL } },
	{ "2606:4700::a00:1", 0, { NULL, NULL } },
	{ "64:ff9b:2::a00:1", 0, { NULL, NULL } },
	{ "2003:a00:1::", 0, { NULL, NULL } },
	{ "::1:a00:1", 0, { NULL, NULL } },
};

static void
embed_addr_row(const void *row)
{
	const struct embed_case *c = row;
	struct egress_addr a, out[EGRESS_EMBED_MAX], want;
	char got[EGRESS_ADDRSTR_MAX];
	size_t n, k;

	must_addr(c->addr, &a);
	n = egress_addr_embedded_v4(&a, out);
	CHECK(n == c->n, "%zu embedded addresses, want %zu", n, c->n);
	for (k = 0; k < n; k++) {
		must_addr(c->v4[k], &want);
		egress_addr_format(&out[k], got, sizeof(got));
		CHECK(memcmp(&out[k], &want, sizeof(want)) == 0,
		    "embedded[%zu] %s, want %s", k, got, c->v4[k]);
	}
}

static void
test_embedded_addrs(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(embed_addr_cases); i++) {
		row_begin("embed_addr_cases", i, embed_addr_cases[i].addr,
		    strlen(embed_addr_cases[i].addr));
		row_run(embed_addr_row, &embed_addr_cases[i]);
	}
	rows_done("embed_addr_cases");
}

/* ---------------------------------------------------------------- */
/* The registry: every block, its edges and its neighbours (SPEC 3.5). */

struct block_case {
	const char	*name;
	const char	*first, *last;
};

#define FF6	"ffff:ffff:ffff:ffff:ffff:ffff"

static const struct block_case block_cases[] = {
	{ "0.0.0.0/8", "0.0.0.0", "0.255.255.255" },
	{ "10.0.0.0/8", "10.0.0.0", "10.255.255.255" },
	{ "100.64.0.0/10", "100.64.0.0", "100.127.255.255" },
	{ "127.0.0.0/8", "127.0.0.0", "127.255.255.255" },
	{ "169.254.0.0/16", "169.254.0.0", "169.254.255.255" },
	{ "172.16.0.0/12", "172.16.0.0", "172.31.255.255" },
	{ "192.0.0.0/24", "192.0.0.0", "192.0.0.255" },
	{ "192.0.2.0/24", "192.0.2.0", "192.0.2.255" },
	{ "192.31.196.0/24", "192.31.196.0", "192.31.196.255" },
	{ "192.52.193.0/24", "192.52.193.0", "192.52.193.255" },
	{ "192.88.99.0/24", "192.88.99.0", "192.88.99.255" },
	{ "192.168.0.0/16", "192.168.0.0", "192.168.255.255" },
	{ "192.175.48.0/24", "192.175.48.0", "192.175.48.255" },
	{ "198.18.0.0/15", "198.18.0.0", "198.19.255.255" },
	{ "198.51.100.0/24", "198.51.100.0", "198.51.100.255" },
	{ "203.0.113.0/24", "203.0.113.0", "203.0.113.255" },
	{ "224.0.0.0/4", "224.0.0.0", "239.255.255.255" },
	{ "240.0.0.0/4", "240.0.0.0", "255.255.255.255" },
	{ "255.255.255.255/32", "255.255.255.255", "255.255.255.255" },
	{ "::/128", "::", "::" },
	{ "::1/128", "::1", "::1" },
	{ "::/96", "::", "::ffff:ffff" },
	{ "64:ff9b::/96", "64:ff9b::", "64:ff9b::ffff:ffff" },
	{ "64:ff9b:1::/48", "64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff" },
	{ "100::/64", "100::", "100::ffff:ffff:ffff:ffff" },
	{ "100:0:0:1::/64", "100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff" },
	{ "2001::/32", "2001::", "2001:0:" FF6 },
	{ "2001:db8::/32", "2001:db8::", "2001:db8:" FF6 },
	{ "2001::/23", "2001::", "2001:1ff:" FF6 },
	{ "2002::/16", "2002::", "2002:ffff:" FF6 },
	{ "2620:4f:8000::/48", "2620:4f:8000::",
	    "2620:4f:8000:ffff:ffff:ffff:ffff:ffff" },
	{ "3fff::/20", "3fff::", "3fff:fff:" FF6 },
	{ "5f00::/16", "5f00::", "5f00:ffff:" FF6 },
	{ "fc00::/7", "fc00::", "fdff:ffff:" FF6 },
	{ "fe80::/10", "fe80::", "febf:ffff:" FF6 },
	{ "fec0::/10", "fec0::", "feff:ffff:" FF6 },
	{ "ff00::/8", "ff00::", "ffff:ffff:" FF6 },
	{ "::/3", "::", "1fff:ffff:" FF6 },
	{ "4000::/2", "4000::", "7fff:ffff:" FF6 },
	{ "8000::/1", "8000::", "ffff:ffff:" FF6 },
};

static bool
name_is(const char *got, const char *want)
{
	return got != NULL && strcmp(got, want) == 0;
}

static void
neighbour_check(const struct block_case *c, const struct egress_addr *edge,
    int d)
{
	struct egress_addr n = *edge;
	char text[EGRESS_ADDRSTR_MAX];
	const char *got;

	addr_step(&n, d);
	egress_addr_format(&n, text, sizeof(text));
	got = egress_registry_lookup(&n);
	CHECK(!name_is(got, c->name), "neighbour %s is in the block", text);
}

static void
block_row(const void *row)
{
	const struct block_case *c = row;
	struct egress_addr first, last;
	const char *nf, *nl;

	must_addr(c->first, &first);
	must_addr(c->last, &last);
	nf = egress_registry_lookup(&first);
	nl = egress_registry_lookup(&last);
	CHECK(nf != NULL, "first address %s not in the registry", c->first);
	CHECK(nl != NULL, "last address %s not in the registry", c->last);
	CHECK(name_is(nf, c->name) || name_is(nl, c->name),
	    "neither edge is named %s (%s, %s)", c->name, nf, nl);
	neighbour_check(c, &first, -1);
	neighbour_check(c, &last, +1);
}

static void
test_registry_blocks(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(block_cases); i++) {
		row_begin("block_cases", i, block_cases[i].name,
		    strlen(block_cases[i].name));
		row_run(block_row, &block_cases[i]);
	}
	rows_done("block_cases");
}

struct lookup_case {
	const char	*addr;
	const char	*name;	/* NULL: not in the registry */
};

static const struct lookup_case lookup_cases[] = {
	{ "10.1.2.3", "10.0.0.0/8" },
	{ "::ffff:10.1.2.3", "10.0.0.0/8" },
	{ "127.0.0.1", "127.0.0.0/8" },
	{ "169.254.169.254", "169.254.0.0/16" },
	{ "255.255.255.255", "255.255.255.255/32" },
	{ "255.255.255.254", "240.0.0.0/4" },
	{ "::", "::/128" },
	{ "::1", "::1/128" },
	{ "::2", "::/96" },
	{ "2001::1", "2001::/32" },
	{ "2001:1::1", "2001::/23" },
	{ "2001:db8::1", "2001:db8::/32" },
	{ "fd00:ec2::254", "fc00::/7" },
	{ "::ffff:0:a00:1", "::/3" },
	{ "1.1.1.1", NULL },
	{ "8.8.8.8", NULL },
	{ "93.184.216.34", NULL },
	{ "100.63.255.255", NULL },
	{ "100.128.0.0", NULL },
	{ "172.15.255.255", NULL },
	{ "172.32.0.0", NULL },
	{ "168.63.129.16", NULL },
	{ "2606:4700::1111", NULL },
	{ "2001:4860:4860::8888", NULL },
	{ "2000::", NULL },
	{ "3ffe:ffff::", NULL },
};

static void
lookup_row(const void *row)
{
	const struct lookup_case *c = row;
	struct egress_addr a;
	const char *got;

	must_addr(c->addr, &a);
	got = egress_registry_lookup(&a);
	if (c->name == NULL)
		CHECK(got == NULL, "in the registry as %s", got);
	else
		CHECK(name_is(got, c->name), "named %s, want %s",
		    got ? got : "(none)", c->name);
}

static void
test_registry_lookup(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(lookup_cases); i++) {
		row_begin("lookup_cases", i, lookup_cases[i].addr,
		    strlen(lookup_cases[i].addr));
		row_run(lookup_row, &lookup_cases[i]);
	}
	rows_done("lookup_cases");
}

/* Metadata and loopback predicates, with their neighbours. */
struct pred_case {
	const char	*addr;
	bool		 metadata;
	bool		 loopback;
};

static const struct pred_case pred_cases[] = {
	{ "169.254.169.254", true, false },
	{ "::ffff:169.254.169.254", true, false },
	{ "169.254.169.253", false, false },
	{ "169.254.169.255", false, false },
	{ "169.254.170.2", true, false },
	{ "169.254.170.1", false, false },
	{ "169.254.170.3", false, false },
	{ "100.100.100.200", true, false },
	{ "100.100.100.199", false, false },
	{ "100.100.100.201", false, false },
	{ "168.63.129.16", true, false },
	{ "168.63.129.15", false, false },
	{ "168.63.129.17", false, false },
	{ "192.0.0.192", true, false },
	{ "192.0.0.191", false, false },
	{ "192.0.0.193", false, false },
	{ "fd00:ec2::254", true, false },
	{ "fd00:ec2::253", false, false },
	{ "fd00:ec2::255", false, false },
	{ "fd00:ec2::1:254", false, false },
	{ "127.0.0.1", false, true },
	{ "127.0.0.0", false, true },
	{ "127.255.255.255", false, true },
	{ "::ffff:127.0.0.1", false, true },
	{ "126.255.255.255", false, false },
	{ "128.0.0.0", false, false },
	{ "::1", false, true },
	{ "::", false, false },
	{ "::2", false, false },
	{ "0.0.0.0", false, false },
	{ "64:ff9b::7f00:1", false, false },
};

static void
pred_row(const void *row)
{
	const struct pred_case *c = row;
	struct egress_addr a;
	bool m, l;

	must_addr(c->addr, &a);
	m = egress_addr_is_metadata(&a);
	l = egress_addr_is_loopback(&a);
	CHECK(m == c->metadata, "metadata %d, want %d", m, c->metadata);
	CHECK(l == c->loopback, "loopback %d, want %d", l, c->loopback);
}

static void
test_predicates(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(pred_cases); i++) {
		row_begin("pred_cases", i, pred_cases[i].addr,
		    strlen(pred_cases[i].addr));
		row_run(pred_row, &pred_cases[i]);
	}
	rows_done("pred_cases");
}

/*
 * Metadata addresses: refused even with block_private off, lifted by an
 * exact allow rule only.
 */
#define META_ROWS(t, exact, wide)					\
	J("", t, DENY, "metadata_address"),				\
	J("default allow", t, DENY, "metadata_address"),		\
	J("block_private off\ndefault allow", t, DENY,			\
	    "metadata_address"),					\
	J("block_private off\nallow " wide, t, DENY,			\
	    "metadata_address"),					\
	J("allow " wide, t, DENY, "metadata_address"),			\
	J("block_private off\ndefault allow\nallow " exact ":443", t,	\
	    DENY, "metadata_address"),					\
	JR("block_private off\nallow " exact, t, ALLOW, "allow_rule",	\
	    "allow " exact),						\
	J("allow " exact, t, ALLOW, "allow_rule"),			\
	J("allow " exact ":80", t, ALLOW, "allow_rule"),		\
	J("allow " exact "\nallow " wide, t, ALLOW, "allow_rule"),	\
	J("allow " exact "\ndeny " wide, t, DENY, "deny_rule")

static const struct judge_case meta_cases[] = {
	META_ROWS("169.254.169.254:80", "169.254.169.254",
	    "169.254.169.254/31"),
	META_ROWS("169.254.170.2:80", "169.254.170.2", "169.254.170.2/31"),
	META_ROWS("100.100.100.200:80", "100.100.100.200",
	    "100.100.100.200/31"),
	META_ROWS("168.63.129.16:80", "168.63.129.16", "168.63.129.16/31"),
	META_ROWS("192.0.0.192:80", "192.0.0.192", "192.0.0.192/31"),
	META_ROWS("[fd00:ec2::254]:80", "[fd00:ec2::254]",
	    "[fd00:ec2::254]/127"),
	J("block_private off\nallow 169.254.0.0/16", "169.254.169.254:80",
	    DENY, "metadata_address"),
	J("block_private off\nallow 0.0.0.0/0", "169.254.169.254:80", DENY,
	    "metadata_address"),
	J("block_private off\nallow [::]/0", "[fd00:ec2::254]:80", DENY,
	    "metadata_address"),
	J("block_private off\nallow [fd00:ec2::]/32", "[fd00:ec2::254]:80",
	    DENY, "metadata_address"),
	J("block_private off\ndefault allow", "[::ffff:169.254.169.254]:80",
	    DENY, "metadata_address"),
	J("block_private off\ndefault allow", "2852039166:80", DENY,
	    "metadata_address"),
	J("block_private off\ndefault allow", "0xa9fea9fe:80", DENY,
	    "metadata_address"),
	J("block_private off\ndefault allow", "[64:ff9b::a9fe:a9fe]:80",
	    DENY, "metadata_address"),
	J("block_private off\ndefault allow", "[2002:a9fe:a9fe::]:80", DENY,
	    "metadata_address"),
	J("block_private off\ndefault allow", "169.254.169.253:80", ALLOW,
	    "default_allow"),
	J("default allow", "169.254.169.253:80", DENY, "private_address"),
	JA("allow example.com\nblock_private off", "example.com:80",
	    "169.254.169.254", DENY, "metadata_address", 0),
	JA("default allow\nblock_private off", "example.com:80",
	    "93.184.216.34,fd00:ec2::254", DENY, "metadata_address", 1),
	JA("allow example.com\nallow 169.254.169.254", "example.com:80",
	    "169.254.169.254", ALLOW, "allow_rule", 0),
};

static void
test_metadata(void **state)
{
	(void)state;
	judge_table("meta_cases", meta_cases, NELEM(meta_cases));
}

/* ---------------------------------------------------------------- */
/* The policy object. */

static void
test_policy_object(void **state)
{
	struct egress_policy *p;
	struct egress_rule r;
	const char *err;

	(void)state;
	assert_non_null(p = egress_policy_new());
	assert_false(egress_policy_default_allow(p));
	assert_true(egress_policy_block_private(p));
	assert_false(egress_policy_allow_loopback(p));
	assert_int_equal(egress_policy_nrules(p), 0);
	assert_null(egress_policy_rule(p, 0));
	egress_policy_set_default_allow(p, true);
	egress_policy_set_block_private(p, false);
	egress_policy_set_allow_loopback(p, true);
	assert_true(egress_policy_default_allow(p));
	assert_false(egress_policy_block_private(p));
	assert_true(egress_policy_allow_loopback(p));
	assert_int_equal(egress_rule_parse("a.example", 9, true, &r, &err), 0);
	assert_int_equal(egress_policy_add(p, &r), 0);
	assert_int_equal(egress_rule_parse("b.example", 9, false, &r, &err), 0);
	assert_int_equal(egress_policy_add(p, &r), 0);
	strcpy(r.host, "changed");	/* the policy holds a copy */
	assert_int_equal(egress_policy_nrules(p), 2);
	assert_string_equal(egress_policy_rule(p, 0)->host, "a.example");
	assert_true(egress_policy_rule(p, 0)->allow);
	assert_string_equal(egress_policy_rule(p, 1)->host, "b.example");
	assert_false(egress_policy_rule(p, 1)->allow);
	assert_null(egress_policy_rule(p, 2));
	egress_policy_free(p);
	egress_policy_free(NULL);
}

/* Targets not made by the parser: no host or no port is invalid. */
static void
test_judge_raw_target(void **state)
{
	struct egress_policy *p;
	struct egress_target t;
	struct egress_verdict v;

	(void)state;
	assert_non_null(p = egress_policy_new());
	egress_policy_set_default_allow(p, true);
	memset(&t, 0, sizeof(t));
	t.port = 80;
	egress_judge_target(p, &t, NULL, 0, &v);
	assert_int_equal(v.decision, EGRESS_DENY);
	assert_string_equal(egress_reason_name(v.reason), "invalid_target");
	strcpy(t.host, "example.com");
	t.port = 0;
	egress_judge_target(p, &t, NULL, 0, &v);
	assert_int_equal(v.decision, EGRESS_DENY);
	assert_string_equal(egress_reason_name(v.reason), "invalid_target");
	t.port = 80;
	egress_judge_target(p, &t, NULL, 0, &v);
	assert_int_equal(v.decision, EGRESS_RESOLVE);
	/* A final verdict passes through judge_addrs unchanged. */
	t.port = 0;
	egress_judge_target(p, &t, NULL, 0, &v);
	egress_judge_addrs(p, &t, &v, NULL, 0, NULL, 0, &v);
	assert_string_equal(egress_reason_name(v.reason), "invalid_target");
	egress_policy_free(p);
}

/* Many rules: lookups still find the right one. */
static void
test_many_rules(void **state)
{
	struct egress_policy *p;
	struct egress_target t;
	struct egress_verdict v;
	struct egress_rule r;
	const char *err;
	char buf[64];
	int i, n;

	(void)state;
	assert_non_null(p = egress_policy_new());
	for (i = 0; i < 2000; i++) {
		n = snprintf(buf, sizeof(buf), "h%d.example:%d", i, 1 + i % 7);
		assert_int_equal(egress_rule_parse(buf, (size_t)n, true, &r,
		    &err), 0);
		assert_int_equal(egress_policy_add(p, &r), 0);
	}
	for (i = 0; i < 2000; i++) {
		n = snprintf(buf, sizeof(buf), "H%d.Example.:%d", i,
		    1 + i % 7);
		assert_int_equal(egress_target_parse(buf, (size_t)n, &t, &err),
		    0);
		egress_judge_target(p, &t, NULL, 0, &v);
		assert_int_equal(v.decision, EGRESS_RESOLVE);
		assert_ptr_equal(v.rule, egress_policy_rule(p, (size_t)i));
		t.port = (uint16_t)(1 + (i + 1) % 7);
		egress_judge_target(p, &t, NULL, 0, &v);
		assert_int_equal(v.reason, EGRESS_R_NO_ALLOW_RULE);
	}
	egress_policy_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_parse),
		cmocka_unit_test(test_port_parse),
		cmocka_unit_test(test_host_parse),
		cmocka_unit_test(test_target_parse),
		cmocka_unit_test(test_reason_names),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_decisions),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_exempt),
		cmocka_unit_test(test_embedded_decisions),
		cmocka_unit_test(test_embedded_addrs),
		cmocka_unit_test(test_registry_blocks),
		cmocka_unit_test(test_registry_lookup),
		cmocka_unit_test(test_predicates),
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_policy_object),
		cmocka_unit_test(test_judge_raw_target),
		cmocka_unit_test(test_many_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
