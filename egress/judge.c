/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The decision order of SPEC 3.3.  Steps 2-4 judge the name; step 6 judges
 * every address, the first failure denying the whole request.
 */
#include <stdio.h>
#include <string.h>

#include "egress/egress.h"
#include "egress/policy.h"

static const char *const reason_names[EGRESS_R_COUNT] = {
	[EGRESS_R_NONE] = "none",
	[EGRESS_R_ALLOW_RULE] = "allow_rule",
	[EGRESS_R_DEFAULT_ALLOW] = "default_allow",
	[EGRESS_R_DENY_RULE] = "deny_rule",
	[EGRESS_R_NO_ALLOW_RULE] = "no_allow_rule",
	[EGRESS_R_PRIVATE_ADDRESS] = "private_address",
	[EGRESS_R_METADATA_ADDRESS] = "metadata_address",
	[EGRESS_R_DNS_FAILURE] = "dns_failure",
	[EGRESS_R_INVALID_TARGET] = "invalid_target",
	[EGRESS_R_INVALID_REQUEST] = "invalid_request",
	[EGRESS_R_UNSUPPORTED_COMMAND] = "unsupported_command",
	[EGRESS_R_PROXY_LOOP] = "proxy_loop",
	[EGRESS_R_CONNECT_FAILED] = "connect_failed",
	[EGRESS_R_CONNECT_TIMEOUT] = "connect_timeout",
	[EGRESS_R_LIMIT_EXCEEDED] = "limit_exceeded",
	[EGRESS_R_LOG_UNAVAILABLE] = "log_unavailable",
	[EGRESS_R_NOT_THROUGH_PROXY] = "not_through_proxy",
	[EGRESS_R_SHUTTING_DOWN] = "shutting_down",
	[EGRESS_R_REPORT_ONLY] = "report_only",
};

const char *
egress_reason_name(enum egress_reason r)
{
	if ((unsigned)r >= EGRESS_R_COUNT)
		return "none";
	return reason_names[r];
}

static void
verdict(struct egress_verdict *v, enum egress_decision d,
    enum egress_reason r, const struct egress_rule *rule)
{
	v->decision = d;
	v->reason = r;
	v->rule = rule;
	v->would = EGRESS_R_NONE;
}

/*
 * A refusal by the host and address rules (no_allow_rule, deny_rule):
 * final when enforcing; under mode report, let through as report_only
 * (decision: EGRESS_RESOLVE before the addresses are judged, else allow).
 */
static bool
rules_refuse(const struct egress_policy *p, struct egress_verdict *v,
    enum egress_decision d, enum egress_reason r,
    const struct egress_rule *rule)
{
	if (!p->report) {
		verdict(v, EGRESS_DENY, r, rule);
		return true;
	}
	verdict(v, d, EGRESS_R_REPORT_ONLY, rule);
	v->would = r;
	return false;
}

static bool
addr_unspecified(const struct egress_addr *a)
{
	static const struct egress_addr any6;
	struct egress_addr any4;

	egress_addr_from_v4(&any4, 0);
	return memcmp(a, &any6, sizeof(*a)) == 0 ||
	    memcmp(a, &any4, sizeof(*a)) == 0;
}

/*
 * A connection to one of our own listeners would loop.  A wildcard
 * listener matches loopback and unspecified targets here; the caller
 * lists the host's other addresses as listeners of their own.
 */
static bool
is_proxy_loop(const struct egress_addr *a, uint16_t port,
    const struct egress_listener *l, size_t nl)
{
	size_t i;

	for (i = 0; i < nl; i++) {
		if (l[i].port != port)
			continue;
		if (memcmp(&l[i].addr, a, sizeof(*a)) == 0 ||
		    addr_unspecified(a))
			return true;
		if (egress_addr_is_loopback(a) &&
		    (egress_addr_is_loopback(&l[i].addr) ||
		    addr_unspecified(&l[i].addr)))
			return true;
	}
	return false;
}

/* Step 6(a): a deny rule covers the address or an IPv4 it embeds. */
static const struct egress_rule *
deny_covers(const struct egress_policy *p, const struct egress_addr *a,
    uint16_t port)
{
	struct egress_addr emb[EGRESS_EMBED_MAX];
	const struct egress_rule *r;
	size_t i, n;

	if ((r = rule_index_addr(p->deny, a, port)) != NULL)
		return r;
	n = egress_addr_embedded_v4(a, emb);
	for (i = 0; i < n; i++)
		if ((r = rule_index_addr(p->deny, &emb[i], port)) != NULL)
			return r;
	return NULL;
}

static bool
is_metadata(const struct egress_addr *a)
{
	struct egress_addr emb[EGRESS_EMBED_MAX];
	size_t i, n;

	if (egress_addr_is_metadata(a))
		return true;
	n = egress_addr_embedded_v4(a, emb);
	for (i = 0; i < n; i++)
		if (egress_addr_is_metadata(&emb[i]))
			return true;
	return false;
}

/*
 * Special-purpose, and not lifted by an exempt.  An exempt address that
 * carries an IPv4 one (NAT64 above all: a DNS64 network answers in
 * 64:ff9b::/96 for every name) still has that address judged: the gateway
 * would reach it.
 */
const char *
egress_special_block(const struct egress_policy *p,
    const struct egress_addr *a, struct egress_addr *which)
{
	struct egress_addr emb[EGRESS_EMBED_MAX];
	const char *block;
	size_t i, n;

	if ((block = egress_registry_lookup(a)) == NULL)
		return NULL;
	if (egress_policy_exempts(p, a) == NULL) {
		*which = *a;
		return block;
	}
	n = egress_addr_embedded_v4(a, emb);
	for (i = 0; i < n; i++)
		if ((block = egress_registry_lookup(&emb[i])) != NULL &&
		    egress_policy_exempts(p, &emb[i]) == NULL) {
			*which = emb[i];
			return block;
		}
	return NULL;
}

int
egress_special_hint(const struct egress_policy *p,
    const struct egress_addr *a, char *buf, size_t len)
{
	struct egress_addr which;
	char w[EGRESS_ADDRSTR_MAX];
	const char *block;

	if (len > 0)
		buf[0] = '\0';
	if ((block = egress_special_block(p, a, &which)) == NULL)
		return 0;
	if (memcmp(&which, a, sizeof(which)) != 0) {
		egress_addr_format(&which, w, sizeof(w));
		return snprintf(buf, len, "carries %s, special-purpose %s; "
		    "see exempt in egress.conf(5)", w, block);
	}
	return snprintf(buf, len, "special-purpose %s; see %s in "
	    "egress.conf(5)", block, egress_addr_is_loopback(a) ?
	    "allow_loopback" : "exempt");
}

/*
 * Step 6 for one address.  host_rule is the host allow rule that admitted
 * the request, if any; pending, the verdict before the addresses (under
 * mode report it may already be report_only, by a host deny rule or for
 * want of an admission).  On success, returns true and the rule to credit.
 */
static bool
judge_one(const struct egress_policy *p, const struct egress_target *t,
    const struct egress_rule *host_rule, const struct egress_verdict *pending,
    const struct egress_addr *a, const struct egress_listener *l, size_t nl,
    struct egress_verdict *v)
{
	const struct egress_rule *deny, *allow;
	struct egress_verdict would;
	struct egress_addr carried;

	/* A host deny rule let through decides what would have been said. */
	memset(&would, 0, sizeof(would));
	if (pending != NULL && pending->reason == EGRESS_R_REPORT_ONLY &&
	    pending->would == EGRESS_R_DENY_RULE)
		would = *pending;
	if (is_proxy_loop(a, t->port, l, nl)) {
		verdict(v, EGRESS_DENY, EGRESS_R_PROXY_LOOP, NULL);
		return false;
	}
	if ((deny = deny_covers(p, a, t->port)) != NULL &&
	    would.would == EGRESS_R_NONE && rules_refuse(p, &would,
	    EGRESS_ALLOW, EGRESS_R_DENY_RULE, deny)) {
		*v = would;
		return false;
	}
	allow = rule_index_addr(p->allow, a, t->port);
	if (is_metadata(a) && (allow == NULL || allow->plen != 128)) {
		verdict(v, EGRESS_DENY, EGRESS_R_METADATA_ADDRESS, NULL);
		return false;
	}
	/* An exempt address is judged as a public one from here on. */
	if (p->block_private && allow == NULL &&
	    egress_special_block(p, a, &carried) != NULL &&
	    !(p->allow_loopback && egress_addr_is_loopback(a))) {
		verdict(v, EGRESS_DENY, EGRESS_R_PRIVATE_ADDRESS, NULL);
		return false;
	}
	if (would.would != EGRESS_R_NONE) {
		*v = would;
		v->decision = EGRESS_ALLOW;
	} else if (host_rule != NULL)
		verdict(v, EGRESS_ALLOW, EGRESS_R_ALLOW_RULE, host_rule);
	else if (allow != NULL)
		verdict(v, EGRESS_ALLOW, EGRESS_R_ALLOW_RULE, allow);
	else if (p->default_allow)
		verdict(v, EGRESS_ALLOW, EGRESS_R_DEFAULT_ALLOW, NULL);
	else if (rules_refuse(p, v, EGRESS_ALLOW, EGRESS_R_NO_ALLOW_RULE,
	    NULL))
		return false;
	return true;
}

void
egress_judge_target(const struct egress_policy *p,
    const struct egress_target *t, const struct egress_listener *l,
    size_t nl, struct egress_verdict *v)
{
	const struct egress_rule *r;

	memset(v, 0, sizeof(*v));
	if (t->host[0] == '\0' || t->port == 0) {
		verdict(v, EGRESS_DENY, EGRESS_R_INVALID_TARGET, NULL);
		return;
	}
	if (t->is_addr) {
		judge_one(p, t, NULL, NULL, &t->addr, l, nl, v);
		return;
	}
	if ((r = rule_index_host(p->deny, t->host, t->port)) != NULL) {
		(void)rules_refuse(p, v, EGRESS_RESOLVE, EGRESS_R_DENY_RULE, r);
		return;
	}
	r = rule_index_host(p->allow, t->host, t->port);
	if (r != NULL)
		verdict(v, EGRESS_RESOLVE, EGRESS_R_ALLOW_RULE, r);
	else if (p->default_allow)
		verdict(v, EGRESS_RESOLVE, EGRESS_R_DEFAULT_ALLOW, NULL);
	else if (rule_index_has_addr_rules(p->allow, t->port))
		verdict(v, EGRESS_RESOLVE, EGRESS_R_NONE, NULL);
	else
		(void)rules_refuse(p, v, EGRESS_RESOLVE,
		    EGRESS_R_NO_ALLOW_RULE, NULL);
}

void
egress_judge_addrs(const struct egress_policy *p,
    const struct egress_target *t, const struct egress_verdict *pending,
    const struct egress_addr *addrs, size_t naddrs,
    const struct egress_listener *l, size_t nl, struct egress_verdict *v)
{
	struct egress_verdict first;
	const struct egress_rule *host_rule;
	size_t i;

	*v = *pending;
	if (v->decision != EGRESS_RESOLVE)
		return;
	host_rule = v->reason == EGRESS_R_ALLOW_RULE ? v->rule : NULL;
	if (naddrs == 0) {
		verdict(v, EGRESS_DENY, EGRESS_R_DNS_FAILURE, NULL);
		return;
	}
	memset(&first, 0, sizeof(first));
	for (i = 0; i < naddrs; i++) {
		if (!judge_one(p, t, host_rule, pending, &addrs[i], l, nl, v)) {
			v->addr_index = i;
			return;
		}
		/*
		 * The first address's verdict, unless a later one is one that
		 * enforcing would have refused the whole request for.
		 */
		if (i == 0 || (v->reason == EGRESS_R_REPORT_ONLY &&
		    first.reason != EGRESS_R_REPORT_ONLY))
			first = *v;
	}
	*v = first;
}

void
egress_judge_parent(const struct egress_policy *p,
    const struct egress_verdict *pending, struct egress_verdict *v)
{
	*v = *pending;
	if (v->decision != EGRESS_RESOLVE)
		return;
	/* Only an address rule could have admitted it: none judges it. */
	if (v->reason == EGRESS_R_NONE &&
	    rules_refuse(p, v, EGRESS_ALLOW, EGRESS_R_NO_ALLOW_RULE, NULL))
		return;
	v->decision = EGRESS_ALLOW;
}
