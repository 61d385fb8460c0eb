/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dnsserve: run mode's answerer (SPEC 6.6) without a socket: the
 * fake-address table (dns/fake.c) and dns_serve (dns/serve.c) against
 * hand-made queries, every answer decoded back here, independently of the
 * code under test.
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
#include "dns/dns.h"
#include "egress/egress.h"

#define T_A	1
#define T_MX	15
#define T_TXT	16
#define T_AAAA	28
#define T_ANY	255

/* ---------------------------------------------------------------- */
/* Helpers: policies, queries, and a decoder of answers. */

static struct conf *
policy_of(const char *text)
{
	char err[CONF_ERR_MAX];
	struct conf *c;

	c = conf_parse("t.conf", text, strlen(text), err, sizeof(err));
	if (c == NULL)
		fail_msg("bad policy in a test: %s", err);
	return c;
}

static void
v4(struct egress_addr *a, const char *s)
{
	uint32_t n;

	assert_int_equal(inet_pton(AF_INET, s, &n), 1);
	egress_addr_from_v4(a, ntohl(n));
}

static void
v4_text(const struct egress_addr *a, char *buf)
{
	uint32_t n = htonl(egress_addr_v4(a));

	assert_true(egress_addr_is_v4(a));
	assert_non_null(inet_ntop(AF_INET, &n, buf, INET_ADDRSTRLEN));
}

/*
 * A query: header (ID, flags, QDCOUNT 1, other counts 0), then name in
 * dotted text turned into labels exactly as given (case kept), type,
 * class IN.  Returns its length; *qlen: the question's.
 */
static size_t
query(uint8_t *b, uint16_t id, uint16_t flags, const char *name,
    uint16_t qtype, size_t *qlen)
{
	size_t o = 12, l;
	const char *p = name, *dot;

	memset(b, 0, 12);
	b[0] = (uint8_t)(id >> 8);
	b[1] = (uint8_t)id;
	b[2] = (uint8_t)(flags >> 8);
	b[3] = (uint8_t)flags;
	b[5] = 1;
	while (*p != '\0') {
		dot = strchr(p, '.');
		l = dot ? (size_t)(dot - p) : strlen(p);
		b[o++] = (uint8_t)l;
		memcpy(b + o, p, l);
		o += l;
		p += l + (dot != NULL);
	}
	b[o++] = 0;
	b[o++] = (uint8_t)(qtype >> 8);
	b[o++] = (uint8_t)qtype;
	b[o++] = 0;
	b[o++] = 1;
	if (qlen != NULL)
		*qlen = o - 12;
	return o;
}

struct decoded {
	uint16_t	id;
	bool		qr, aa, tc, rd, ra;
	unsigned	opcode, rcode;
	uint16_t	qd, an, ns, ar;
	/* The answer record, when an == 1. */
	uint16_t	ptr, type, class, rdlen;
	uint32_t	ttl;
	char		addr[INET_ADDRSTRLEN];
};

/* Decode an answer whose question must be qlen bytes equal to q's. */
static void
decode(const uint8_t *b, size_t len, const uint8_t *q, size_t qlen,
    struct decoded *d)
{
	const uint8_t *r;

	memset(d, 0, sizeof(*d));
	assert_true(len >= 12);
	d->id = (uint16_t)(b[0] << 8 | b[1]);
	d->qr = b[2] & 0x80;
	d->opcode = (b[2] >> 3) & 0xf;
	d->aa = b[2] & 0x04;
	d->tc = b[2] & 0x02;
	d->rd = b[2] & 0x01;
	d->ra = b[3] & 0x80;
	assert_int_equal(b[3] & 0x70, 0);	/* Z, AD, CD */
	d->rcode = b[3] & 0xf;
	d->qd = (uint16_t)(b[4] << 8 | b[5]);
	d->an = (uint16_t)(b[6] << 8 | b[7]);
	d->ns = (uint16_t)(b[8] << 8 | b[9]);
	d->ar = (uint16_t)(b[10] << 8 | b[11]);
	assert_int_equal(d->ns, 0);
	assert_int_equal(d->ar, 0);
	if (d->qd == 0) {
		assert_int_equal(d->an, 0);
		assert_int_equal(len, 12);
		return;
	}
	assert_int_equal(d->qd, 1);
	assert_true(len >= 12 + qlen);
	assert_memory_equal(b + 12, q + 12, qlen);
	if (d->an == 0) {
		assert_int_equal(len, 12 + qlen);
		return;
	}
	assert_int_equal(d->an, 1);
	assert_int_equal(len, 12 + qlen + 16);
	r = b + 12 + qlen;
	d->ptr = (uint16_t)(r[0] << 8 | r[1]);
	d->type = (uint16_t)(r[2] << 8 | r[3]);
	d->class = (uint16_t)(r[4] << 8 | r[5]);
	d->ttl = (uint32_t)r[6] << 24 | (uint32_t)r[7] << 16 |
	    (uint32_t)r[8] << 8 | r[9];
	d->rdlen = (uint16_t)(r[10] << 8 | r[11]);
	assert_non_null(inet_ntop(AF_INET, r + 12, d->addr, sizeof(d->addr)));
}

/* An answer's fixed part: echoes, QR, AA, RA, opcode QUERY. */
static void
check_fixed(const struct decoded *d, uint16_t id, bool rd)
{
	assert_int_equal(d->id, id);
	assert_true(d->qr);
	assert_true(d->aa);
	assert_true(d->ra);
	assert_int_equal(d->opcode, 0);
	assert_int_equal(d->rd, rd);
}

struct fixture {
	struct conf	*conf;
	struct dns_fake	*fake;
	uint8_t		 q[600], out[600];
	size_t		 qlen, len, used;
	struct dns_served s;
	struct decoded	 d;
};

static void
fx_init(struct fixture *fx, const char *policy)
{
	memset(fx, 0, sizeof(*fx));
	fx->conf = policy_of(policy);
	assert_non_null(fx->fake = dns_fake_new());
}

static void
fx_done(struct fixture *fx)
{
	dns_fake_free(fx->fake);
	conf_free(fx->conf);
}

/* Serve fx->q (fx->len bytes, copied to the heap at exactly its size). */
static enum dns_served_kind
fx_serve(struct fixture *fx, size_t outlen)
{
	enum dns_served_kind k;
	uint8_t *m = malloc(fx->len ? fx->len : 1);

	assert_non_null(m);
	memcpy(m, fx->q, fx->len);
	memset(fx->out, 0xee, sizeof(fx->out));
	k = dns_serve(fx->fake, fx->conf->policy, m, fx->len, fx->out, outlen,
	    &fx->used, &fx->s);
	free(m);
	assert_int_equal(k, fx->s.kind);
	assert_true(fx->used <= outlen);
	if (k == DNS_SERVED_DROP)
		assert_int_equal(fx->used, 0);
	return k;
}

/* Ask NAME/qtype with RD set; decode the answer. */
static enum dns_served_kind
ask(struct fixture *fx, uint16_t id, const char *name, uint16_t qtype)
{
	enum dns_served_kind k;

	fx->len = query(fx->q, id, 0x0100, name, qtype, &fx->qlen);
	k = fx_serve(fx, sizeof(fx->out));
	assert_int_not_equal(k, DNS_SERVED_DROP);
	decode(fx->out, fx->used, fx->q, fx->qlen, &fx->d);
	check_fixed(&fx->d, id, true);
	assert_int_equal(fx->d.rcode, fx->s.rcode);
	assert_false(fx->d.tc);
	return k;
}

/* ---------------------------------------------------------------- */
/* The table. */

static void
test_fake_stable_distinct_reverse(void **state)
{
	struct egress_addr a1, a2, b, first;
	struct dns_fake *f;
	char t[INET_ADDRSTRLEN];

	(void)state;
	assert_non_null(f = dns_fake_new());
	assert_int_equal(dns_fake_addr(f, "a.example", &a1), 0);
	v4_text(&a1, t);
	assert_string_equal(t, "198.18.0.1");
	assert_int_equal(dns_fake_addr(f, "b.example", &b), 0);
	v4_text(&b, t);
	assert_string_equal(t, "198.18.0.2");
	assert_int_equal(dns_fake_addr(f, "a.example", &a2), 0);
	assert_memory_equal(&a1, &a2, sizeof(a1));
	assert_int_equal(dns_fake_count(f), 2);
	assert_string_equal(dns_fake_name(f, &a1), "a.example");
	assert_string_equal(dns_fake_name(f, &b), "b.example");
	/* In the range, not given: no name. */
	v4(&first, "198.18.0.3");
	assert_null(dns_fake_name(f, &first));
	v4(&first, "198.18.0.0");
	assert_null(dns_fake_name(f, &first));
	v4(&first, "198.19.255.255");
	assert_null(dns_fake_name(f, &first));
	/* Not a name: nothing given. */
	assert_int_equal(dns_fake_addr(f, "", &first), -1);
	assert_int_equal(dns_fake_count(f), 2);
	dns_fake_free(f);
	dns_fake_free(NULL);
}

static void
test_fake_range(void **state)
{
	static const struct {
		const char	*addr;
		bool		 in;
	} rows[] = {
		{ "198.18.0.0", true }, { "198.18.0.1", true },
		{ "198.19.255.255", true }, { "198.18.200.7", true },
		{ "198.17.255.255", false }, { "198.20.0.0", false },
		{ "10.0.0.1", false }, { "0.0.0.0", false },
		{ "::ffff:198.18.0.1", true }, { "::ffff:198.20.0.1", false },
		{ "2001:db8::1", false }, { "::c612:1", false },
		{ "64:ff9b::c612:1", false },
	};
	struct egress_addr a;
	uint8_t b[16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_int_equal(inet_pton(AF_INET6, rows[i].addr, b) == 1 ||
		    inet_pton(AF_INET, rows[i].addr, b) == 1, 1);
		if (strchr(rows[i].addr, ':') != NULL)
			egress_addr_from_v6(&a, b);
		else
			v4(&a, rows[i].addr);
		if (dns_fake_in_range(&a) != rows[i].in)
			fail_msg("%s: in range %d", rows[i].addr, !rows[i].in);
	}
}

/* 131070 names fill it; the next is refused, the others still answer. */
static void
test_fake_exhausted(void **state)
{
	struct egress_addr a, last;
	struct dns_fake *f;
	char name[32], t[INET_ADDRSTRLEN];
	unsigned i;

	(void)state;
	assert_non_null(f = dns_fake_new());
	for (i = 0; i < DNS_FAKE_MAX; i++) {
		snprintf(name, sizeof(name), "n%u.example", i);
		assert_int_equal(dns_fake_addr(f, name, &last), 0);
		assert_true(dns_fake_in_range(&last));
	}
	v4_text(&last, t);
	assert_string_equal(t, "198.19.255.254");
	assert_string_equal(dns_fake_name(f, &last), "n131069.example");
	assert_int_equal(dns_fake_count(f), DNS_FAKE_MAX);
	assert_int_equal(dns_fake_addr(f, "one-more.example", &a), -1);
	assert_int_equal(dns_fake_addr(f, "n7.example", &a), 0);
	v4_text(&a, t);
	assert_string_equal(t, "198.18.0.8");
	assert_string_equal(dns_fake_name(f, &a), "n7.example");
	v4(&a, "198.18.1.0");	/* x.x.x.0 is a host address of a /15 */
	assert_string_equal(dns_fake_name(f, &a), "n255.example");
	dns_fake_free(f);
}

/* ---------------------------------------------------------------- */
/* Answers. */

static void
test_serve_a(void **state)
{
	struct fixture fx;
	struct egress_addr want;
	char t[INET_ADDRSTRLEN];

	(void)state;
	fx_init(&fx, "allow a.example:443");
	/* Mixed case as a resolver randomises it: echoed as sent. */
	assert_int_equal(ask(&fx, 0x1234, "A.eXample", T_A), DNS_SERVED_ADDR);
	assert_string_equal(fx.s.name, "a.example");
	assert_int_equal(fx.s.qtype, T_A);
	assert_int_equal(fx.d.rcode, 0);
	assert_int_equal(fx.d.an, 1);
	assert_int_equal(fx.d.ptr, 0xc00c);
	assert_int_equal(fx.d.type, T_A);
	assert_int_equal(fx.d.class, 1);
	assert_int_equal(fx.d.ttl, DNS_FAKE_TTL);
	assert_int_equal(fx.d.rdlen, 4);
	assert_string_equal(fx.d.addr, "198.18.0.1");
	v4_text(&fx.s.addr, t);
	assert_string_equal(t, "198.18.0.1");
	assert_int_equal(fx.s.verdict.decision, EGRESS_RESOLVE);
	assert_int_equal(fx.s.verdict.reason, EGRESS_R_ALLOW_RULE);
	/* The same name, another spelling: the same address. */
	assert_int_equal(ask(&fx, 7, "a.example.", T_A), DNS_SERVED_ADDR);
	assert_string_equal(fx.d.addr, "198.18.0.1");
	assert_non_null(dns_fake_name(fx.fake, &fx.s.addr));
	assert_string_equal(dns_fake_name(fx.fake, &fx.s.addr), "a.example");
	assert_int_equal(dns_fake_addr(fx.fake, "a.example", &want), 0);
	assert_memory_equal(&want, &fx.s.addr, sizeof(want));
	fx_done(&fx);
}

/* Admitted names: only A gets a record. */
static void
test_serve_empty(void **state)
{
	static const uint16_t types[] = { T_AAAA, T_MX, T_TXT, T_ANY, 5, 12,
	    33, 65, 0 };
	struct fixture fx;
	size_t i;

	(void)state;
	fx_init(&fx, "allow *.example");
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		assert_int_equal(ask(&fx, (uint16_t)i, "x.example", types[i]),
		    DNS_SERVED_EMPTY);
		assert_int_equal(fx.d.rcode, 0);
		assert_int_equal(fx.d.an, 0);
		assert_int_equal(fx.s.qtype, types[i]);
		assert_string_equal(fx.s.name, "x.example");
	}
	/* No address was given for them. */
	assert_int_equal(dns_fake_count(fx.fake), 0);
	/* Class CHAOS, type A: no record either. */
	fx.len = query(fx.q, 9, 0x0100, "x.example", T_A, &fx.qlen);
	fx.q[fx.len - 1] = 3;
	assert_int_equal(fx_serve(&fx, sizeof(fx.out)), DNS_SERVED_EMPTY);
	decode(fx.out, fx.used, fx.q, fx.qlen, &fx.d);
	assert_int_equal(fx.d.an, 0);
	fx_done(&fx);
}

/* Not admitted: NXDOMAIN for every type, the verdict says why. */
static void
test_serve_refused(void **state)
{
	static const uint16_t types[] = { T_A, T_AAAA, T_MX, T_ANY };
	struct fixture fx;
	size_t i;

	(void)state;
	fx_init(&fx, "allow a.example\ndeny *.bad.example");
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		assert_int_equal(ask(&fx, 0xbeef, "B.example", types[i]),
		    DNS_SERVED_REFUSED);
		assert_int_equal(fx.d.rcode, 3);
		assert_int_equal(fx.d.an, 0);
		assert_string_equal(fx.s.name, "b.example");
		assert_int_equal(fx.s.verdict.decision, EGRESS_DENY);
		assert_int_equal(fx.s.verdict.reason, EGRESS_R_NO_ALLOW_RULE);
		assert_null(fx.s.verdict.rule);
	}
	assert_int_equal(ask(&fx, 1, "x.bad.example", T_A),
	    DNS_SERVED_REFUSED);
	assert_int_equal(fx.s.verdict.reason, EGRESS_R_DENY_RULE);
	assert_non_null(fx.s.verdict.rule);
	assert_int_equal(fx.s.verdict.rule->line, 2);
	/* An address literal asked as a name: refused, never given one. */
	assert_int_equal(ask(&fx, 2, "127.0.0.1", T_A), DNS_SERVED_REFUSED);
	assert_int_equal(fx.s.verdict.reason, EGRESS_R_INVALID_TARGET);
	assert_int_equal(dns_fake_count(fx.fake), 0);
	fx_done(&fx);
}

/* Report mode and CIDR-only policies admit names; default allow too. */
static void
test_serve_admitting_policies(void **state)
{
	static const struct {
		const char		*policy;
		enum egress_reason	 reason;
	} rows[] = {
		{ "mode report", EGRESS_R_REPORT_ONLY },
		{ "allow 140.82.112.0/20", EGRESS_R_NONE },
		{ "default allow\ndeny other.example", EGRESS_R_DEFAULT_ALLOW },
	};
	struct fixture fx;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		fx_init(&fx, rows[i].policy);
		assert_int_equal(ask(&fx, 3, "github.com", T_A),
		    DNS_SERVED_ADDR);
		assert_string_equal(fx.d.addr, "198.18.0.1");
		assert_int_equal(fx.s.verdict.decision, EGRESS_RESOLVE);
		assert_int_equal(fx.s.verdict.reason, rows[i].reason);
		fx_done(&fx);
	}
}

/* Serve fx.q as it stands; the answer must be an error of rcode. */
static void
expect_error(struct fixture *fx, unsigned rcode, const char *what)
{
	enum dns_served_kind k = fx_serve(fx, sizeof(fx->out));

	if (k != DNS_SERVED_ERROR)
		fail_msg("%s: kind %d, want an error", what, k);
	decode(fx->out, fx->used, fx->q, 0, &fx->d);
	if (fx->d.rcode != rcode || fx->d.qd != 0 || fx->d.an != 0)
		fail_msg("%s: rcode %u qd %u an %u, want rcode %u", what,
		    fx->d.rcode, fx->d.qd, fx->d.an, rcode);
	assert_int_equal(fx->d.id, (uint16_t)(fx->q[0] << 8 | fx->q[1]));
	assert_true(fx->d.qr && fx->d.aa && fx->d.ra);
	assert_string_equal(fx->s.name, "");
}

static void
test_serve_drop(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, "default allow");
	fx.len = 0;
	assert_int_equal(fx_serve(&fx, sizeof(fx.out)), DNS_SERVED_DROP);
	fx.q[0] = 0x12;
	fx.len = 1;
	assert_int_equal(fx_serve(&fx, sizeof(fx.out)), DNS_SERVED_DROP);
	/* A response (QR set), whole or cut short. */
	fx.len = query(fx.q, 5, 0x8180, "a.example", T_A, NULL);
	assert_int_equal(fx_serve(&fx, sizeof(fx.out)), DNS_SERVED_DROP);
	fx.len = 3;
	assert_int_equal(fx_serve(&fx, sizeof(fx.out)), DNS_SERVED_DROP);
	/* No room for even a header. */
	fx.len = query(fx.q, 5, 0x0100, "a.example", T_A, NULL);
	assert_int_equal(fx_serve(&fx, 11), DNS_SERVED_DROP);
	assert_int_equal(dns_fake_count(fx.fake), 1);
	fx_done(&fx);
}

static void
test_serve_formerr(void **state)
{
	static const struct {
		const char	*what;
		const char	*qname;	/* wire bytes after the header */
		size_t		 len;	/* of qname, type and class */
	} bad[] = {
		{ "pointer", "\xc0\x0c\x00\x01\x00\x01", 6 },
		{ "pointer after a label", "\x01" "a\xc0\x0c\x00\x01\x00\x01",
		    8 },
		{ "extended label 0x40", "\x41" "a\x00\x00\x01\x00\x01", 7 },
		{ "label type 0x80", "\x81" "a\x00\x00\x01\x00\x01", 7 },
		{ "dot in a label", "\x03" "a.b\x00\x00\x01\x00\x01", 9 },
		{ "space", "\x03" "a b\x00\x00\x01\x00\x01", 9 },
		{ "non-ASCII", "\x03" "a\xc3\xa9\x00\x00\x01\x00\x01", 9 },
		{ "NUL in a label", "\x03" "a\x00" "b\x00\x00\x01\x00\x01", 9 },
		{ "root", "\x00\x00\x01\x00\x01", 5 },
		{ "label past the end", "\x09" "a", 2 },
		{ "no end of name", "\x01" "a", 2 },
		{ "no type", "\x01" "a\x00", 3 },
		{ "no class", "\x01" "a\x00\x00\x01", 5 },
		{ "half a class", "\x01" "a\x00\x00\x01\x00", 6 },
		{ "nothing", "", 0 },
	};
	struct fixture fx;
	size_t i, n;

	(void)state;
	fx_init(&fx, "default allow");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fx.len = query(fx.q, (uint16_t)(0x4000 + i), 0x0100, "", T_A,
		    NULL) - 5;
		memcpy(fx.q + fx.len, bad[i].qname, bad[i].len);
		fx.len += bad[i].len;
		expect_error(&fx, 1, bad[i].what);
		assert_true(fx.d.rd);
	}
	/* A header cut short: ID echoed, RD copied when there. */
	for (n = 2; n < 12; n++) {
		fx.len = query(fx.q, 0xabcd, 0x0100, "a.example", T_A, NULL);
		fx.len = n;
		expect_error(&fx, 1, "short header");
		assert_int_equal(fx.d.rd, n > 2);
	}
	/* QDCOUNT other than 1. */
	for (n = 0; n < 4; n++) {
		if (n == 1)
			continue;
		fx.len = query(fx.q, 77, 0x0100, "a.example", T_A, NULL);
		fx.q[5] = (uint8_t)n;
		expect_error(&fx, 1, "qdcount");
	}
	fx.len = query(fx.q, 77, 0x0100, "a.example", T_A, NULL);
	fx.q[4] = 1;	/* 257 */
	expect_error(&fx, 1, "qdcount 257");
	assert_int_equal(dns_fake_count(fx.fake), 0);
	fx_done(&fx);
}

/* 253 characters is the longest name; 254 is refused. */
static void
test_serve_long_names(void **state)
{
	char name[300];
	struct fixture fx;

	(void)state;
	fx_init(&fx, "default allow");
	memset(name, 'a', sizeof(name));
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	assert_int_equal(ask(&fx, 1, name, T_A), DNS_SERVED_ADDR);
	assert_int_equal(strlen(fx.s.name), 253);
	assert_int_equal(fx.qlen, 255 + 4);
	name[253] = 'a';
	name[254] = '\0';
	fx.len = query(fx.q, 2, 0x0100, name, T_A, NULL);
	expect_error(&fx, 1, "254 characters");
	/* A label of 64 cannot be written: 0x40 is an extended type. */
	memset(name, 'b', 64);
	name[64] = '\0';
	fx.len = query(fx.q, 3, 0x0100, name, T_A, NULL);
	expect_error(&fx, 1, "label of 64");
	fx_done(&fx);
}

static void
test_serve_notimp(void **state)
{
	static const unsigned opcodes[] = { 1, 2, 4, 5, 15 };
	struct fixture fx;
	size_t i;

	(void)state;
	fx_init(&fx, "default allow");
	for (i = 0; i < sizeof(opcodes) / sizeof(opcodes[0]); i++) {
		fx.len = query(fx.q, 0x5151, (uint16_t)(opcodes[i] << 11),
		    "a.example", T_A, NULL);
		expect_error(&fx, 4, "opcode");
		assert_false(fx.d.rd);
		assert_int_equal(fx.d.opcode, 0);
	}
	fx_done(&fx);
}

/*
 * A query as dig 9.18 sends it, EDNS0 OPT (with a cookie) in the
 * additional section: answered, without an OPT.
 */
static void
test_serve_edns(void **state)
{
	static const uint8_t dig[] = {
		0x9c, 0x2e, 0x01, 0x20, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x01, 0x01, 'a', 0x07, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
		0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x29, 0x04, 0xd0,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x0a, 0x00, 0x08,
		0x8a, 0x1f, 0x3c, 0x51, 0x6b, 0x02, 0x77, 0x90,
	};
	struct fixture fx;

	(void)state;
	fx_init(&fx, "allow a.example:5432");
	memcpy(fx.q, dig, sizeof(dig));
	fx.len = sizeof(dig);
	assert_int_equal(fx_serve(&fx, 512), DNS_SERVED_ADDR);
	decode(fx.out, fx.used, fx.q, 15, &fx.d);
	check_fixed(&fx.d, 0x9c2e, true);
	assert_int_equal(fx.d.an, 1);
	assert_string_equal(fx.d.addr, "198.18.0.1");
	/* RD clear stays clear; the AD bit asked for is not set. */
	fx.q[2] = 0x00;
	assert_int_equal(fx_serve(&fx, 512), DNS_SERVED_ADDR);
	decode(fx.out, fx.used, fx.q, 15, &fx.d);
	check_fixed(&fx.d, 0x9c2e, false);
	fx_done(&fx);
}

/* What does not fit: TC set, no records. */
static void
test_serve_truncated(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, "allow a.example");
	fx.len = query(fx.q, 0x7777, 0x0100, "a.example", T_A, &fx.qlen);
	assert_int_equal(fx_serve(&fx, 12 + fx.qlen + 16), DNS_SERVED_ADDR);
	assert_false(fx.s.truncated);
	assert_int_equal(fx.used, 12 + fx.qlen + 16);
	assert_int_equal(fx_serve(&fx, 12 + fx.qlen + 15), DNS_SERVED_ADDR);
	assert_true(fx.s.truncated);
	decode(fx.out, fx.used, fx.q, fx.qlen, &fx.d);
	check_fixed(&fx.d, 0x7777, true);
	assert_true(fx.d.tc);
	assert_int_equal(fx.d.an, 0);
	assert_int_equal(fx.d.qd, 1);
	assert_int_equal(fx_serve(&fx, 12 + fx.qlen - 1), DNS_SERVED_ADDR);
	decode(fx.out, fx.used, fx.q, 0, &fx.d);
	assert_true(fx.d.tc);
	assert_int_equal(fx.d.qd, 0);
	assert_int_equal(fx.used, 12);
	/* An NXDOMAIN fits where an A record does not. */
	fx.len = query(fx.q, 0x7778, 0x0100, "b.example", T_A, &fx.qlen);
	assert_int_equal(fx_serve(&fx, 12 + fx.qlen), DNS_SERVED_REFUSED);
	assert_false(fx.s.truncated);
	decode(fx.out, fx.used, fx.q, fx.qlen, &fx.d);
	assert_false(fx.d.tc);
	assert_int_equal(fx.d.rcode, 3);
	fx_done(&fx);
}

/* The range used up: SERVFAIL for a new name, never a wrong address. */
static void
test_serve_exhausted(void **state)
{
	struct egress_addr a;
	struct fixture fx;
	char name[32];
	unsigned i;

	(void)state;
	fx_init(&fx, "default allow");
	for (i = 0; i < DNS_FAKE_MAX; i++) {
		snprintf(name, sizeof(name), "n%u.example", i);
		assert_int_equal(dns_fake_addr(fx.fake, name, &a), 0);
	}
	assert_int_equal(ask(&fx, 1, "new.example", T_A), DNS_SERVED_ERROR);
	assert_int_equal(fx.d.rcode, 2);
	assert_int_equal(fx.d.qd, 1);
	assert_int_equal(fx.d.an, 0);
	assert_string_equal(fx.s.name, "new.example");
	assert_int_equal(ask(&fx, 2, "new.example", T_AAAA), DNS_SERVED_EMPTY);
	assert_int_equal(ask(&fx, 3, "n5.example", T_A), DNS_SERVED_ADDR);
	assert_string_equal(fx.d.addr, "198.18.0.6");
	fx_done(&fx);
}

static void
test_tcp_len(void **state)
{
	uint8_t b[2] = { 0, 0 };

	(void)state;
	assert_int_equal(dns_tcp_len(b, 0), -1);
	assert_int_equal(dns_tcp_len(b, 1), -1);
	assert_int_equal(dns_tcp_put_len(b, 0x1234), 0);
	assert_int_equal(b[0], 0x12);
	assert_int_equal(b[1], 0x34);
	assert_int_equal(dns_tcp_len(b, 2), 0x1234);
	assert_int_equal(dns_tcp_put_len(b, 65535), 0);
	assert_int_equal(dns_tcp_len(b, 2), 65535);
	assert_int_equal(dns_tcp_put_len(b, 65536), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fake_stable_distinct_reverse),
		cmocka_unit_test(test_fake_range),
		cmocka_unit_test(test_fake_exhausted),
		cmocka_unit_test(test_serve_a),
		cmocka_unit_test(test_serve_empty),
		cmocka_unit_test(test_serve_refused),
		cmocka_unit_test(test_serve_admitting_policies),
		cmocka_unit_test(test_serve_drop),
		cmocka_unit_test(test_serve_formerr),
		cmocka_unit_test(test_serve_long_names),
		cmocka_unit_test(test_serve_notimp),
		cmocka_unit_test(test_serve_edns),
		cmocka_unit_test(test_serve_truncated),
		cmocka_unit_test(test_serve_exhausted),
		cmocka_unit_test(test_tcp_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
