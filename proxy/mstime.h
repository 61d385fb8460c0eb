/* SPDX-License-Identifier: Apache-2.0 */
/* Milliseconds (the conf's timeouts) as libevent wants them.  Internal. */
#ifndef PROXY_MSTIME_H
#define PROXY_MSTIME_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

static inline struct timeval
ms_timeval(uint64_t ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) *
	    1000 };

	return tv;
}

/*
 * Milliseconds of CLOCK_MONOTONIC, for deadlines: a step of the wall
 * clock neither ends nor stretches them.
 */
static inline uint64_t
mono_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

#endif
