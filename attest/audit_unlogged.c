/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The decision log's one line for refusals answered without their own
 * (SPEC 5 log_wait): {"ts":...,"event":"unlogged","count":N,
 * "reasons":{"deny_rule":n,...}[,"run":...]}.  Not a decision of its own:
 * it counts N refusals by reason, each reason a known refusal's, the
 * counts adding up to N.
 */
#include <stdio.h>
#include <string.h>

#include "attest/audit_int.h"

/* Is o an "unlogged" line?  Its shape checked, its counts added: 0. */
int
audit_unlogged(struct audit *a, json_t *o, char *why, size_t whylen)
{
	json_t *reasons = json_object_get(o, "reasons"), *v;
	json_int_t total = 0, n = json_integer_value(json_object_get(o,
	    "count"));
	const char *key, *ev = json_string_value(json_object_get(o,
	    "event"));
	uint64_t by[EGRESS_R_COUNT] = { 0 };
	int r;

	json_object_foreach(o, key, v)
		if (strcmp(key, "ts") != 0 && strcmp(key, "event") != 0 &&
		    strcmp(key, "count") != 0 && strcmp(key, "reasons") != 0 &&
		    strcmp(key, "run") != 0)
			goto bad;
	if (ev == NULL || strcmp(ev, "unlogged") != 0 ||
	    !json_is_string(json_object_get(o, "ts")) ||
	    !json_is_integer(json_object_get(o, "count")) || n < 1 ||
	    !json_is_object(reasons) || (json_object_get(o, "run") != NULL &&
	    !json_is_string(json_object_get(o, "run"))))
		goto bad;
	json_object_foreach(reasons, key, v) {
		for (r = EGRESS_R_NONE + 1; r < EGRESS_R_COUNT; r++)
			if (strcmp(key, egress_reason_name(r)) == 0)
				break;
		if (r == EGRESS_R_COUNT || r == EGRESS_R_ALLOW_RULE ||
		    r == EGRESS_R_DEFAULT_ALLOW || r == EGRESS_R_REPORT_ONLY ||
		    !json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > n)
			goto bad;
		by[r] = (uint64_t)json_integer_value(v);
		total += json_integer_value(v);
	}
	if (total != n)
		goto bad;
	a->records++;
	if (json_object_get(o, "run") != NULL)
		a->run_records++;
	a->decisions[0] += (uint64_t)n;
	for (r = 0; r < EGRESS_R_COUNT; r++)
		a->by_reason[r] += by[r];
	return 0;
bad:
	snprintf(why, whylen, "malformed \"event\" line (only \"close\", or "
	    "\"unlogged\" with ts, count, reasons adding up to it, run)");
	return -1;
}
