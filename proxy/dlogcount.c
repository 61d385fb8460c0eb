/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the decision log counts of each decision once it is recorded (its
 * line written, or counted as not): the report's totals, the metrics'
 * counts (SPEC 8.1), and the run's terminal told (after the line, never
 * before: SPEC 5).  Below dlog.c and dlogwait.c, which both record.
 */
#include "proxy/dlogint.h"

void
dlog_count(struct dlog *l, bool allow, enum egress_reason reason)
{
	if (allow)
		l->totals.allow++;
	else
		l->totals.deny++;
	if ((unsigned)reason < EGRESS_R_COUNT)
		l->totals.by_reason[reason]++;
}

/* After the line: the terminal's turn (never before, SPEC 5). */
void
dlog_observed(struct dlog *l, const struct dlog_entry *e)
{
	if ((unsigned)e->proto < DLOG_PROTOCOLS &&
	    (unsigned)e->reason < EGRESS_R_COUNT)
		l->counts.by[e->proto][e->allow][e->reason]++;
	if (l->observe != NULL)
		l->observe(l->observe_arg, e);
}

const struct dlog_counts *
dlog_counts(const struct dlog *l)
{
	return &l->counts;
}

const char *
dlog_protocol_name(unsigned proto)
{
	if (proto == DLOG_DIRECT)
		return "direct";
	return proto < DLOG_DIRECT ? dlog_protocol_names[proto] : "";
}
