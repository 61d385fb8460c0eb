/* SPDX-License-Identifier: Apache-2.0 */
/* The policy's inside, shared by policy.c and judge.c only. */
#ifndef EGRESS_POLICY_H
#define EGRESS_POLICY_H

#include "egress/index.h"

struct egress_policy {
	bool			 default_allow;
	bool			 block_private;
	bool			 allow_loopback;
	bool			 report;	/* mode report */
	struct egress_rule	**rules;	/* owned, in policy order */
	size_t			 nrules, caprules;
	struct rule_index	*allow;
	struct rule_index	*deny;
	/* exempt: out of the special-purpose registry; CIDRs, any port. */
	struct egress_rule	**exempts;	/* owned, in policy order */
	size_t			 nexempts, capexempts;
	struct rule_index	*exempt;
};

#endif
