/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How the seccomp filters' rules are written: exact, by masked
 * comparison of an argument, and "allowed unless the argument is one of
 * ..." as the complement of that set.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sandbox/seccomp_int.h"

int
sc_fail(char *err, size_t errlen, const char *what, const char *name, int rc)
{
	if (name != NULL)
		snprintf(err, errlen, "seccomp: %s %s: %s", what, name,
		    strerror(-rc));
	else
		snprintf(err, errlen, "seccomp: %s: %s", what, strerror(-rc));
	return -1;
}

struct scmp_arg_cmp
sc_masked(unsigned int arg, uint64_t mask, uint64_t datum)
{
	return SCMP_CMP64(arg, SCMP_CMP_MASKED_EQ, mask, datum & mask);
}

/* Exact: never a rule libseccomp rewrote behind our back. */
int
sc_rule(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned int n,
    const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_exact_array(ctx, action, nr, n, cmp);
}

int
sc_allow_if(scmp_filter_ctx ctx, int nr, unsigned int arg, uint64_t mask,
    uint64_t datum)
{
	struct scmp_arg_cmp cmp = sc_masked(arg, mask, datum);

	return sc_rule(ctx, SCMP_ACT_ALLOW, nr, 1, &cmp);
}

static int
set_has_prefix(const uint32_t *set, size_t n, uint32_t mask, uint32_t prefix)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((set[i] & mask) == prefix)
			return 1;
	return 0;
}

/*
 * One level of a walk down the binary trie of set[]: prefix fixes the top
 * depth bits.  A child that leads to no member of set[] is a block of the
 * complement, given action by one rule on the top depth + 1 bits; a
 * child that does is walked further, down to the member itself, which
 * gets no rule.
 * The blocks are disjoint and cover every 32-bit value outside set[], in
 * at most 32 rules per member.
 */
int
sc_act_walk(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned int arg,
    const uint32_t *set, size_t n, int depth, uint32_t prefix)
{
	uint32_t bit, mask, p;
	int b, rc;

	bit = UINT32_C(1) << (31 - depth);
	mask = ~(bit - 1);
	for (b = 0; b < 2; b++) {
		p = prefix | (b ? bit : 0);
		if (!set_has_prefix(set, n, mask, p)) {
			struct scmp_arg_cmp cmp = sc_masked(arg, mask, p);

			rc = sc_rule(ctx, action, nr, 1, &cmp);
		} else if (depth < 31)
			rc = sc_act_walk(ctx, action, nr, arg, set, n,
			    depth + 1, p);
		else
			rc = 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Allow nr unless the low 32 bits of argument arg are in set[]. */
int
sc_allow_unless(scmp_filter_ctx ctx, int nr, unsigned int arg,
    const uint32_t *set, size_t n)
{
	return sc_act_walk(ctx, SCMP_ACT_ALLOW, nr, arg, set, n, 0, 0);
}
