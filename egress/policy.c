/*
 * A policy: three switches and the rules, in the order they were given,
 * indexed for lookup.
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
	if (p->allow == NULL || p->deny == NULL) {
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
	for (i = 0; i < p->nrules; i++)
		free(p->rules[i]);
	free(p->rules);
	free(p);
}

int
egress_policy_add(struct egress_policy *p, const struct egress_rule *r)
{
	struct egress_rule **v, *copy;
	size_t cap;

	if (p->nrules == p->caprules) {
		cap = p->caprules ? p->caprules * 2 : 16;
		v = reallocarray(p->rules, cap, sizeof(*v));
		if (v == NULL)
			return -1;
		p->rules = v;
		p->caprules = cap;
	}
	if ((copy = malloc(sizeof(*copy))) == NULL)
		return -1;
	*copy = *r;
	if (rule_index_add(r->allow ? p->allow : p->deny, copy) == -1) {
		free(copy);
		return -1;
	}
	p->rules[p->nrules++] = copy;
	return 0;
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
