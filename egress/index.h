/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Rule lookup whose cost does not grow with the number of rules: exact
 * names in a hash table, wildcards by label suffix in a second one, and
 * addresses in a binary prefix tree.  Internal to egress/.
 */
#ifndef EGRESS_INDEX_H
#define EGRESS_INDEX_H

#include "egress/egress.h"

struct rule_index;

struct rule_index	*rule_index_new(void);
void			 rule_index_free(struct rule_index *);
/* The rule must outlive the index.  -1 on allocation failure. */
int			 rule_index_add(struct rule_index *,
			    const struct egress_rule *);
/* Exact name first, then the longest wildcard suffix; NULL if none. */
const struct egress_rule *rule_index_host(const struct rule_index *,
			    const char *host, uint16_t port);
/* The longest prefix covering the address; NULL if none. */
const struct egress_rule *rule_index_addr(const struct rule_index *,
			    const struct egress_addr *, uint16_t port);
/* Could an address rule apply to this port at all? */
bool			 rule_index_has_addr_rules(const struct rule_index *,
			    uint16_t port);

#endif
