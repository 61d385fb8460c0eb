/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_policy: libFuzzer on the policy file (conf/conf.c) and the
 * decisions made with it (egress/).  The input is a policy, then
 * optionally a line "%%" and targets, one a line, as requests name them
 * (host:port, [v6]:port, URLs, bare hosts).  The hosts and addresses of
 * the policy's own rules are judged too.  Beyond not crashing:
 *  - what conf_format prints parses again, and prints the same;
 *  - a host or address a deny rule matches is never allowed;
 *  - a private or metadata address is allowed only as the policy says
 *    (an allow rule, allow_loopback, exempt);
 *  - an IP address spelt as a host is judged as that address, never as a
 *    name; a normalized target parses back to itself.
 * No I/O.  Built by `make fuzz-policy`, not by make check.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "egress/egress.h"
#include "tests/fuzz.h"


#define MAX_TARGETS	64
#define MAX_ADDRS	8

struct run {
	const struct conf	*conf;
	struct egress_listener	 listen[CONF_MAX_LISTEN];
	size_t			 nlisten;
	struct egress_addr	 addrs[MAX_ADDRS];	/* "resolved" */
	size_t			 naddrs;
};

static bool
port_matches(const struct egress_rule *r, uint16_t port)
{
	return r->port == 0 || r->port == port;
}

/* Does the rule's prefix cover the address?  Bit by bit, not the index. */
static bool
covers(const struct egress_rule *r, const struct egress_addr *a)
{
	unsigned i;

	if (r->kind != EGRESS_RULE_CIDR)
		return false;
	for (i = 0; i < r->plen; i++)
		if ((a->b[i / 8] ^ r->addr.b[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

static bool
names(const struct egress_rule *r, const char *host)
{
	size_t hl = strlen(host), sl = strlen(r->host);

	if (r->kind == EGRESS_RULE_HOST)
		return strcmp(host, r->host) == 0;
	if (r->kind == EGRESS_RULE_WILDCARD)
		return hl > sl + 1 && host[hl - sl - 1] == '.' &&
		    strcmp(host + hl - sl, r->host) == 0;
	return false;
}

/* Some rule of the kind matches (allow or deny). */
static bool
rule_for_addr(const struct egress_policy *p, bool allow, bool exact,
    const struct egress_addr *a, uint16_t port)
{
	const struct egress_rule *r;
	size_t i;

	for (i = 0; i < egress_policy_nrules(p); i++) {
		r = egress_policy_rule(p, i);
		if (r->allow == allow && port_matches(r, port) &&
		    covers(r, a) && (!exact || r->plen == 128))
			return true;
	}
	return false;
}

static bool
deny_for_name(const struct egress_policy *p, const char *host, uint16_t port)
{
	const struct egress_rule *r;
	size_t i;

	for (i = 0; i < egress_policy_nrules(p); i++) {
		r = egress_policy_rule(p, i);
		if (!r->allow && port_matches(r, port) && names(r, host))
			return true;
	}
	return false;
}

/* An exempt CIDR (taken out of the special-purpose registry) holds it. */
static bool
exempt(const struct egress_policy *p, const struct egress_addr *a)
{
	size_t i;

	for (i = 0; i < egress_policy_nexempts(p); i++)
		if (covers(egress_policy_exempt(p, i), a))
			return true;
	return false;
}

/* An address the verdict allowed: the policy must allow it. */
static void
check_allowed_addr(const struct egress_policy *p, const struct egress_addr *a,
    uint16_t port)
{
	CHECK(!rule_for_addr(p, false, false, a, port));
	if (egress_addr_is_metadata(a))
		CHECK(rule_for_addr(p, true, true, a, port));
	if (egress_policy_block_private(p) && egress_registry_lookup(a) &&
	    !(egress_policy_allow_loopback(p) && egress_addr_is_loopback(a)) &&
	    !exempt(p, a))
		CHECK(rule_for_addr(p, true, false, a, port));
}

static void
check_verdict(const struct egress_verdict *v)
{
	CHECK(v->decision == EGRESS_ALLOW || v->decision == EGRESS_DENY ||
	    v->decision == EGRESS_RESOLVE);
	CHECK(v->reason < EGRESS_R_COUNT);
	if (v->reason == EGRESS_R_DENY_RULE)
		CHECK(v->decision == EGRESS_DENY && v->rule != NULL &&
		    !v->rule->allow);
	if (v->reason == EGRESS_R_ALLOW_RULE)
		CHECK(v->decision != EGRESS_DENY && v->rule != NULL &&
		    v->rule->allow);
	if (v->decision == EGRESS_ALLOW)
		CHECK(v->reason == EGRESS_R_ALLOW_RULE ||
		    v->reason == EGRESS_R_DEFAULT_ALLOW);
}

static void
judge(const struct run *run, const struct egress_target *t)
{
	const struct egress_policy *p = run->conf->policy;
	struct egress_verdict v, fin;
	size_t i;

	egress_judge_target(p, t, run->listen, run->nlisten, &v);
	check_verdict(&v);
	if (t->port == 0 || t->host[0] == '\0') {
		CHECK(v.decision == EGRESS_DENY);
		return;
	}
	if (t->is_addr) {
		CHECK(v.decision != EGRESS_RESOLVE);
		if (v.decision == EGRESS_ALLOW)
			check_allowed_addr(p, &t->addr, t->port);
		return;
	}
	if (deny_for_name(p, t->host, t->port))
		CHECK(v.decision == EGRESS_DENY);
	if (v.decision != EGRESS_RESOLVE)
		CHECK(v.decision == EGRESS_DENY);	/* a name needs DNS */
	egress_judge_addrs(p, t, &v, run->addrs, run->naddrs, run->listen,
	    run->nlisten, &fin);
	check_verdict(&fin);
	CHECK(fin.decision != EGRESS_RESOLVE);
	if (v.decision != EGRESS_RESOLVE)
		CHECK(fin.decision == v.decision && fin.reason == v.reason);
	if (run->naddrs == 0)
		CHECK(fin.decision == EGRESS_DENY);
	if (fin.decision == EGRESS_ALLOW)
		for (i = 0; i < run->naddrs; i++)
			check_allowed_addr(p, &run->addrs[i], t->port);
}

/* host:port from a target, as a request would spell it. */
static void
target_text(const struct egress_target *t, char *buf, size_t len)
{
	bool v6 = t->is_addr && !egress_addr_is_v4(&t->addr);

	snprintf(buf, len, v6 ? "[%s]:%u" : "%s:%u", t->host, t->port);
}

/* An IP spelling a libc parser takes is that address, never a name. */
static void
check_ip_spelling(const char *s, size_t len, const struct egress_target *t)
{
	struct egress_addr a;
	struct in_addr in4;
	uint8_t in6[16];
	char buf[512];

	if (len >= sizeof(buf))
		return;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (len >= 2 && buf[0] == '[' && buf[len - 1] == ']') {
		buf[len - 1] = '\0';
		if (inet_pton(AF_INET6, buf + 1, in6) == 1) {
			egress_addr_from_v6(&a, in6);
			CHECK(t->is_addr &&
			    memcmp(&a, &t->addr, sizeof(a)) == 0);
		}
		return;
	}
	if (inet_aton(buf, &in4) == 1) {
		egress_addr_from_v4(&a, ntohl(in4.s_addr));
		CHECK(t->is_addr && memcmp(&a, &t->addr, sizeof(a)) == 0);
	}
	if (inet_pton(AF_INET6, buf, in6) == 1) {
		egress_addr_from_v6(&a, in6);
		CHECK(t->is_addr && memcmp(&a, &t->addr, sizeof(a)) == 0);
	}
	if (!t->is_addr) {
		CHECK(inet_aton(t->host, &in4) == 0);
		CHECK(inet_pton(AF_INET6, t->host, in6) == 0);
	}
}

/* One target line: as a host, and as a target. */
static void
check_line(const struct run *run, const char *s, size_t len)
{
	struct egress_target t, again;
	const char *err;
	char text[EGRESS_HOST_MAX + 16];

	if (egress_host_parse(s, len, &t, &err) == 0) {
		CHECK(t.host[0] != '\0');
		check_ip_spelling(s, len, &t);
		/* Normalized once is normalized. */
		CHECK(egress_host_parse(t.host, strlen(t.host), &again,
		    &err) == 0 && fuzz_same_target(&t, &again));
		t.port = 443;
		judge(run, &t);
	}
	if (egress_target_parse(s, len, &t, &err) == 0) {
		CHECK(t.port != 0 && t.host[0] != '\0');
		target_text(&t, text, sizeof(text));
		CHECK(egress_target_parse(text, strlen(text), &again,
		    &err) == 0 && fuzz_same_target(&t, &again));
		judge(run, &t);
	}
}

/* The rules' own hosts and addresses, on their own port or another. */
static void
judge_rules(const struct run *run)
{
	const struct egress_policy *p = run->conf->policy;
	const struct egress_rule *r;
	struct egress_target t;
	const char *err;
	char name[EGRESS_HOST_MAX + 3];
	size_t i;

	for (i = 0; i < egress_policy_nrules(p) && i < MAX_TARGETS; i++) {
		r = egress_policy_rule(p, i);
		memset(&t, 0, sizeof(t));
		if (r->kind == EGRESS_RULE_CIDR) {
			t.is_addr = true;
			t.addr = r->addr;
			egress_addr_format(&t.addr, t.host, sizeof(t.host));
		} else {
			snprintf(name, sizeof(name), "%s%s",
			    r->kind == EGRESS_RULE_WILDCARD ? "a." : "",
			    r->host);
			if (egress_host_parse(name, strlen(name), &t,
			    &err) == -1)
				continue;	/* "a." made it too long */
		}
		t.port = r->port ? r->port : 80;
		judge(run, &t);
		t.port = t.port == 1 ? 2 : t.port - 1;
		judge(run, &t);
	}
}

static bool
same_rule(const struct egress_rule *a, const struct egress_rule *b)
{
	return a->kind == b->kind && a->allow == b->allow &&
	    a->port == b->port && a->plen == b->plen &&
	    memcmp(&a->addr, &b->addr, sizeof(a->addr)) == 0 &&
	    strcmp(a->host, b->host) == 0;
}

/* conf_format prints a policy that parses to the same text. */
static void
check_format(const struct conf *c)
{
	struct conf *c2;
	char err[CONF_ERR_MAX], *text, *again;
	size_t i;

	if ((text = conf_format(c)) == NULL)
		abort();
	if ((c2 = conf_parse("formatted", text, strlen(text), err,
	    sizeof(err))) == NULL)
		abort();
	if ((again = conf_format(c2)) == NULL)
		abort();
	CHECK(strcmp(text, again) == 0);
	CHECK(egress_policy_nrules(c->policy) ==
	    egress_policy_nrules(c2->policy));
	for (i = 0; i < egress_policy_nrules(c->policy); i++)
		CHECK(same_rule(egress_policy_rule(c->policy, i),
		    egress_policy_rule(c2->policy, i)));
	CHECK(egress_policy_nexempts(c->policy) ==
	    egress_policy_nexempts(c2->policy));
	for (i = 0; i < egress_policy_nexempts(c->policy); i++)
		CHECK(same_rule(egress_policy_exempt(c->policy, i),
		    egress_policy_exempt(c2->policy, i)));
	free(again);
	free(text);
	conf_free(c2);
}

/* The addresses DNS "answers": the policy's and the targets' own. */
static void
collect_addrs(struct run *run, const char *s, const char *end)
{
	const struct egress_policy *p = run->conf->policy;
	const struct egress_rule *r;
	struct egress_target t;
	const char *nl, *err;
	size_t i;

	for (i = 0; i < egress_policy_nrules(p) && run->naddrs < MAX_ADDRS;
	    i++) {
		r = egress_policy_rule(p, i);
		if (r->kind == EGRESS_RULE_CIDR)
			run->addrs[run->naddrs++] = r->addr;
	}
	for (; s < end && run->naddrs < MAX_ADDRS; s = nl < end ? nl + 1 :
	    end) {
		if ((nl = memchr(s, '\n', end - s)) == NULL)
			nl = end;
		if (egress_host_parse(s, nl - s, &t, &err) == 0 && t.is_addr)
			run->addrs[run->naddrs++] = t.addr;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data, *end = in + size, *sep, *targets;
	const char *s, *nl;
	char err[CONF_ERR_MAX];
	struct conf *c;
	struct run run;
	size_t i, plen, n = 0;

	/* POLICY [\n%%\nTARGETS], or %%\nTARGETS for the default policy. */
	if (size >= 3 && memcmp(in, "%%\n", 3) == 0) {
		plen = 0;
		targets = in + 3;
	} else if ((sep = memmem(in, size, "\n%%\n", 4)) != NULL) {
		plen = (size_t)(sep - in) + 1;
		targets = sep + 4;
	} else {
		plen = size;
		targets = end;
	}
	err[0] = '\0';
	if ((c = conf_parse("fuzz", in, plen, err, sizeof(err))) == NULL) {
		/* Refused: said where.  Targets are judged by the default. */
		CHECK(strncmp(err, "fuzz:", 5) == 0);
		if ((c = conf_new("default")) == NULL)
			abort();
	} else
		check_format(c);

	memset(&run, 0, sizeof(run));
	run.conf = c;
	for (i = 0; i < c->nlisten; i++) {
		run.listen[i].addr = c->listen[i].addr;
		run.listen[i].port = c->listen[i].port;
	}
	run.nlisten = c->nlisten;
	s = targets;
	collect_addrs(&run, s, end);
	judge_rules(&run);
	for (; s < end && n < MAX_TARGETS; s = nl < end ? nl + 1 : end, n++) {
		if ((nl = memchr(s, '\n', end - s)) == NULL)
			nl = end;
		check_line(&run, s, nl - s);
	}
	conf_free(c);
	return 0;
}
