/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A policy: three switches, the rules and the exempt addresses, in the
 * order they were given, indexed for lookup.
 */
#include <stdlib.h>
#include <string.h>

#include "egress/egress.h"
#include "egress/index.h"
#include "egress/policy.h"

struct egress_policy *
egress_policy_new(void)
{
	struct egress_policy *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->block_private = true;
	p->allow = rule_index_new();
	p->deny = rule_index_new();
	p->exempt = rule_index_new();
	if (p->allow == NULL || p->deny == NULL || p->exempt == NULL) {
		egress_policy_free(p);
		return NULL;
	}
	return p;
}

void
egress_policy_free(struct egress_policy *p)
{
	size_t i;

	if (p == NULL)
		return;
	rule_index_free(p->allow);
	rule_index_free(p->deny);
	rule_index_free(p->exempt);
	for (i = 0; i < p->nrules; i++)
		free(p->rules[i]);
	free(p->rules);
	for (i = 0; i < p->nexempts; i++)
		free(p->exempts[i]);
	free(p->exempts);
	free(p);
}

/* Copy r into an owned list and an index: NULL on allocation failure. */
static int
rules_add(struct egress_rule ***list, size_t *n, size_t *cap,
    struct rule_index *ix, const struct egress_rule *r)
{
	struct egress_rule **v, *copy;
	size_t ncap;

	if (*n == *cap) {
		ncap = *cap ? *cap * 2 : 16;
		if ((v = reallocarray(*list, ncap, sizeof(*v))) == NULL)
			return -1;
		*list = v;
		*cap = ncap;
	}
	if ((copy = malloc(sizeof(*copy))) == NULL)
		return -1;
	*copy = *r;
	if (rule_index_add(ix, copy) == -1) {
		free(copy);
		return -1;
	}
	(*list)[(*n)++] = copy;
	return 0;
}

int
egress_policy_add(struct egress_policy *p, const struct egress_rule *r)
{
	return rules_add(&p->rules, &p->nrules, &p->caprules,
	    r->allow ? p->allow : p->deny, r);
}

int
egress_policy_add_exempt(struct egress_policy *p, const struct egress_rule *r)
{
	if (r->kind != EGRESS_RULE_CIDR || r->port != 0)
		return -1;
	return rules_add(&p->exempts, &p->nexempts, &p->capexempts,
	    p->exempt, r);
}

const struct egress_rule *
egress_policy_exempts(const struct egress_policy *p,
    const struct egress_addr *a)
{
	return p->nexempts ? rule_index_addr(p->exempt, a, 0) : NULL;
}

size_t
egress_policy_nexempts(const struct egress_policy *p)
{
	return p->nexempts;
}

const struct egress_rule *
egress_policy_exempt(const struct egress_policy *p, size_t i)
{
	return i < p->nexempts ? p->exempts[i] : NULL;
}

void
egress_policy_set_default_allow(struct egress_policy *p, bool v)
{
	p->default_allow = v;
}

void
egress_policy_set_block_private(struct egress_policy *p, bool v)
{
	p->block_private = v;
}

void
egress_policy_set_allow_loopback(struct egress_policy *p, bool v)
{
	p->allow_loopback = v;
}

void
egress_policy_set_report(struct egress_policy *p, bool v)
{
	p->report = v;
}

bool
egress_policy_report(const struct egress_policy *p)
{
	return p->report;
}

bool
egress_policy_default_allow(const struct egress_policy *p)
{
	return p->default_allow;
}

bool
egress_policy_block_private(const struct egress_policy *p)
{
	return p->block_private;
}

bool
egress_policy_allow_loopback(const struct egress_policy *p)
{
	return p->allow_loopback;
}

size_t
egress_policy_nrules(const struct egress_policy *p)
{
	return p->nrules;
}

const struct egress_rule *
egress_policy_rule(const struct egress_policy *p, size_t i)
{
	return i < p->nrules ? p->rules[i] : NULL;
}
