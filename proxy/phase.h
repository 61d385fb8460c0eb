/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A phase's budget (SPEC 4 Limits: connect_timeout bounds the whole
 * connect phase, every address tried).  Pure, so it is unit-tested.
 */
#ifndef PROXY_PHASE_H
#define PROXY_PHASE_H

#include <stdint.h>

/*
 * Milliseconds left of a phase that began at start (ms, monotonic) with
 * budget total, at now; 0 once it is spent.  A clock seen going back
 * counts as no time passed: it never grants more than total.
 */
static inline uint64_t
phase_left_ms(int64_t start, int64_t now, uint64_t total)
{
	/* Unsigned: the difference of any two int64_t fits, no overflow. */
	uint64_t spent = now > start ? (uint64_t)now - (uint64_t)start : 0;

	return spent >= total ? 0 : total - spent;
}

#endif
