/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_dnsserve: libFuzzer on run mode's answerer (dns/serve.c, dns/fake.c,
 * egress_judge_name).  The input: a byte choosing the policy, a byte
 * choosing the answer buffer's size (0: 512, else that many bytes), then
 * one DNS message as the command may send it.  Beyond not crashing:
 * nothing is written past the buffer; a response is never answered; every
 * answer echoes the ID, RD and the question as sent; an address is given
 * only to a name the policy admits, from the range, and it maps back to
 * that name; a refused name is one the policy refuses; the same message
 * served again gets the same bytes.
 * Built by `make fuzz-dnsserve`, not by make check.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dns/dns.h"
#include "egress/egress.h"
#include "tests/fuzz.h"

static const char *const policies[][4] = {
	{ "+a.example:443", "+*.b.example", "-x.b.example", NULL },
	{ "-bad.example:22", "-*.evil.example", NULL, NULL },	/* default allow */
	{ "+a.example", NULL, NULL, NULL },			/* mode report */
	{ "+10.0.0.0/8:5432", "-db.example", NULL, NULL },
};
#define NPOLICIES	(sizeof(policies) / sizeof(policies[0]))

static struct egress_policy *
policy(size_t i)
{
	static struct egress_policy *p[NPOLICIES];
	struct egress_rule r;
	const char *err, *s;
	size_t k;

	if (p[i] != NULL)
		return p[i];
	if ((p[i] = egress_policy_new()) == NULL)
		abort();
	for (k = 0; k < 4 && (s = policies[i][k]) != NULL; k++)
		if (egress_rule_parse(s + 1, strlen(s + 1), s[0] == '+', &r,
		    &err) == -1 || egress_policy_add(p[i], &r) == -1)
			abort();
	egress_policy_set_default_allow(p[i], i == 1);
	egress_policy_set_report(p[i], i == 2);
	return p[i];
}

static bool
admits(const struct egress_policy *p, const char *name)
{
	struct egress_verdict v;

	egress_judge_name(p, name, &v);
	return v.decision != EGRESS_DENY;
}

/* The question's wire length (name, type, class), 0 when malformed. */
static size_t
question_len(const uint8_t *m, size_t len)
{
	size_t o = 12;

	while (o < len && m[o] != 0 && !(m[o] & 0xc0))
		o += 1 + m[o];
	return o < len && m[o] == 0 && o + 5 <= len ? o + 5 - 12 : 0;
}

static void
check_served(const struct egress_policy *p, struct dns_fake *f,
    const uint8_t *m, size_t len, const uint8_t *out, size_t used,
    const struct dns_served *s)
{
	size_t i, qd, an, qlen;

	CHECK(used >= 12);
	CHECK(out[0] == m[0] && out[1] == m[1]);
	CHECK((out[2] & 0x80) && (out[2] & 0x04) && (out[3] & 0x80));
	CHECK((out[2] & 0x78) == 0 && (out[3] & 0x70) == 0);
	CHECK((out[2] & 0x01) == (len > 2 ? (m[2] & 0x01) : 0));
	CHECK(((out[2] & 0x02) != 0) == s->truncated);
	CHECK((out[3] & 0x0f) == s->rcode);
	CHECK(out[8] == 0 && out[9] == 0 && out[10] == 0 && out[11] == 0);
	qd = (size_t)out[4] << 8 | out[5];
	an = (size_t)out[6] << 8 | out[7];
	CHECK(qd <= 1 && an <= qd);
	if (qd == 1) {
		qlen = question_len(m, len);
		CHECK(qlen > 0 && used >= 12 + qlen);
		CHECK(memcmp(out + 12, m + 12, qlen) == 0);
		CHECK(used == 12 + qlen + 16 * an);
	} else
		CHECK(used == 12);
	for (i = 0; s->name[i] != '\0'; i++)
		CHECK((s->name[i] >= 'a' && s->name[i] <= 'z') ||
		    (s->name[i] >= '0' && s->name[i] <= '9') ||
		    s->name[i] == '-' || s->name[i] == '_' || s->name[i] == '.');
	CHECK(i <= EGRESS_HOST_MAX);
	switch (s->kind) {
	case DNS_SERVED_ADDR:
		CHECK(s->rcode == 0 && s->qtype == 1 && admits(p, s->name));
		CHECK(dns_fake_in_range(&s->addr));
		CHECK(strcmp(dns_fake_name(f, &s->addr), s->name) == 0);
		CHECK(an == 1 || s->truncated);
		if (an == 1)
			CHECK(memcmp(out + used - 4, s->addr.b + 12, 4) == 0);
		break;
	case DNS_SERVED_EMPTY:
		CHECK(s->rcode == 0 && an == 0 && admits(p, s->name));
		break;
	case DNS_SERVED_REFUSED:
		CHECK(s->rcode == 3 && an == 0 && !admits(p, s->name));
		CHECK(s->verdict.decision == EGRESS_DENY);
		break;
	case DNS_SERVED_ERROR:
		CHECK(s->rcode == 1 || s->rcode == 2 || s->rcode == 4);
		CHECK(an == 0);
		break;
	default:
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[512], again[512];
	struct dns_served s, s2;
	const struct egress_policy *p;
	struct dns_fake *f;
	size_t outlen, used, used2, len;
	uint8_t *m;

	if (size < 2 || size > 65535 + 2)
		return 0;
	p = policy(data[0] % NPOLICIES);
	outlen = data[1] == 0 ? sizeof(out) : data[1];
	len = size - 2;
	/* Exactly the message's bytes: ASan sees any read past them. */
	if ((m = malloc(len ? len : 1)) == NULL ||
	    (f = dns_fake_new()) == NULL)
		abort();
	memcpy(m, data + 2, len);
	CHECK(dns_serve(f, p, m, len, out, outlen, &used, &s) == s.kind);
	CHECK(used <= outlen);
	if (len < 2 || (len > 2 && (m[2] & 0x80)))
		CHECK(s.kind == DNS_SERVED_DROP);
	if (s.kind == DNS_SERVED_DROP)
		CHECK(used == 0);
	else
		check_served(p, f, m, len, out, used, &s);
	/* Served again: the same answer, the same address. */
	CHECK(dns_serve(f, p, m, len, again, outlen, &used2, &s2) == s.kind);
	CHECK(used2 == used && memcmp(out, again, used) == 0);
	CHECK(memcmp(&s.addr, &s2.addr, sizeof(s.addr)) == 0);
	dns_fake_free(f);
	free(m);
	return 0;
}
