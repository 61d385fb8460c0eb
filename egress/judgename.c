/* SPDX-License-Identifier: Apache-2.0 */
/*
 * egress_judge_name: does SPEC 3.3 admit a name on some port, before any
 * address is judged?  Run mode's DNS answerer (SPEC 6.6) gives a name an
 * address only then: a program asks for a name long before it says
 * which port it wants, so the question is "could any connection to this
 * name get past steps 1-4".
 */
#include <string.h>

#include "egress/egress.h"

#define PORT_WORDS	(65536 / 64)

static bool
admits(const struct egress_verdict *v)
{
	return v->decision == EGRESS_ALLOW || v->decision == EGRESS_RESOLVE;
}

static bool
port_named(const uint64_t *named, uint16_t port)
{
	return (named[port / 64] >> (port % 64)) & 1;
}

/*
 * Mark every port a rule names; returns the lowest port none names, or 0
 * when all 65535 are (no real policy, but then every port is tried).
 */
static uint16_t
mark_ports(const struct egress_policy *p, uint64_t *named)
{
	const struct egress_rule *r;
	size_t i, n = egress_policy_nrules(p);
	unsigned port;

	memset(named, 0, PORT_WORDS * sizeof(*named));
	for (i = 0; i < n; i++) {
		r = egress_policy_rule(p, i);
		named[r->port / 64] |= (uint64_t)1 << (r->port % 64);
	}
	for (port = 1; port <= 65535; port++)
		if (!port_named(named, (uint16_t)port))
			return (uint16_t)port;
	return 0;
}

void
egress_judge_name(const struct egress_policy *p, const char *name,
    struct egress_verdict *v)
{
	uint64_t named[PORT_WORDS];
	struct egress_verdict try;
	struct egress_target t;
	const struct egress_rule *r;
	const char *err;
	uint16_t free_port;
	bool refused = false;
	size_t i, n;

	memset(v, 0, sizeof(*v));
	/* A name that reads as an address is never a name (SPEC 3.2). */
	if (egress_host_parse(name, strlen(name), &t, &err) == -1 ||
	    t.is_addr) {
		v->decision = EGRESS_DENY;
		v->reason = EGRESS_R_INVALID_TARGET;
		return;
	}
	/*
	 * A port no rule names stands for every such port: port-0 rules and
	 * the default.  Its refusal is the one reported: it is what holds for
	 * the name as a whole (a port-0 deny rule, or no allow rule), where a
	 * port-scoped deny (deny a.example:22) speaks for one port only.
	 */
	if ((free_port = mark_ports(p, named)) != 0) {
		t.port = free_port;
		egress_judge_target(p, &t, NULL, 0, v);
		if (admits(v))
			return;
		refused = true;
	}
	n = egress_policy_nrules(p);
	for (i = 0; i < n; i++) {
		r = egress_policy_rule(p, i);
		if (r->port == 0 || !port_named(named, r->port))
			continue;
		/* Each port once. */
		named[r->port / 64] &= ~((uint64_t)1 << (r->port % 64));
		t.port = r->port;
		egress_judge_target(p, &t, NULL, 0, &try);
		if (admits(&try)) {
			*v = try;
			return;
		}
		if (!refused) {
			*v = try;
			refused = true;
		}
	}
	if (!refused) {
		/* No rule, no free port: cannot happen; refuse all the same. */
		v->decision = EGRESS_DENY;
		v->reason = EGRESS_R_NO_ALLOW_RULE;
	}
}
