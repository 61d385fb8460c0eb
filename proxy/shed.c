/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shedding decision (shed.h): pure, unit-tested in
 * tests/proxy/test_shed.c.
 */
#include "proxy/shed.h"

long
shed_fd_ceiling(long fd_limit)
{
	if (fd_limit <= 0)
		return 0;
	/* A tiny limit keeps at least a few descriptors below the line. */
	if (fd_limit <= 2 * SHED_FD_RESERVE)
		return fd_limit / 2;
	return fd_limit - SHED_FD_RESERVE;
}

unsigned
shed_need(const struct shed_load *l)
{
	unsigned need = 0;
	long ceiling = shed_fd_ceiling(l->fd_limit);
	long used = l->fd_base + (long)l->conns;

	if (l->active > l->max)
		need |= SHED_SLOT;
	/*
	 * Descriptors are handed out lowest first: the one just taken being
	 * past the line means at least that many are in use.  Not the other
	 * way round: one shed frees a low one for the next accept, so the
	 * connections are counted too.
	 */
	if (l->fd >= used)
		used = l->fd + 1;
	if (ceiling > 0 && used > ceiling)
		need |= SHED_FDS;
	/* A lower bound at the limit: surely none left (the caller asks). */
	if (l->fd_limit > 0 && used >= l->fd_limit)
		need |= SHED_NONE_LEFT;
	return need;
}

uint64_t
shed_fd_budget(unsigned max_connections)
{
	return (uint64_t)max_connections * SHED_CONN_FDS + SHED_FD_RESERVE * 2;
}

bool
shed_trim_due(unsigned nconns, unsigned peak)
{
	return peak >= SHED_TRIM_PEAK && nconns <= peak / SHED_TRIM_LOW;
}
