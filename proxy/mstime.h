/* SPDX-License-Identifier: Apache-2.0 */
/* Milliseconds (the conf's timeouts) as libevent wants them.  Internal. */
#ifndef PROXY_MSTIME_H
#define PROXY_MSTIME_H

#include <stdint.h>
#include <sys/time.h>

static inline struct timeval
ms_timeval(uint64_t ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) *
	    1000 };

	return tv;
}

#endif
