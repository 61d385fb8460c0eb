/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who gives way when slots or descriptors run short (SPEC 4 "Limits"),
 * and when memory goes back after a peak.  Pure: counts in, a verdict
 * out; conn.c and state.c do the closing and the trimming.
 */
#ifndef PROXY_SHED_H
#define PROXY_SHED_H

#include <stdbool.h>
#include <stdint.h>

/*
 * What one connection can hold at most: its client and origin sockets,
 * and, splicing a tunnel both ways, a pipe (two descriptors) each way.
 */
#define SHED_CONN_FDS	6
/*
 * Descriptors kept free for what an admitted request still needs (its
 * origin socket) and for the listener's next accept: past this line, a
 * connection without a complete head gives way, and a tunnel makes no
 * new pipe (it copies instead).
 */
#define SHED_FD_RESERVE	32

/*
 * What an admitted request still takes: its lookup's sockets (A and AAAA,
 * a fresh one each) and its origin's.
 */
#define SHED_REQ_FDS	3

/* shed_need's verdict: why a connection should give way now (bits). */
#define SHED_SLOT	0x1	/* more than max_connections are counted */
#define SHED_FDS	0x2	/* descriptors are running short */
#define SHED_NONE_LEFT	0x4	/* too few left for a request (SHED_REQ_FDS) */

/*
 * Descriptors in use are not counted as such: at least as many as the
 * number of the one just taken (they are handed out lowest first), and at
 * least one a connection beside those held with none open (fd_base).
 */
struct shed_load {
	unsigned	 active;	/* counted toward max_connections */
	unsigned	 max;		/* max_connections */
	long		 fd;		/* the descriptor just taken, or -1 */
	unsigned	 conns;		/* connections open (a socket each) */
	long		 fd_base;	/* descriptors in use with none open */
	long		 fd_limit;	/* RLIMIT_NOFILE's soft limit; 0: none */
};

/* SHED_SLOT | SHED_FDS, or 0: nobody need give way. */
unsigned	shed_need(const struct shed_load *);

/* The descriptors max_connections connections can hold, with the reserve. */
uint64_t	shed_fd_budget(unsigned max_connections);

/*
 * Past this descriptor a tunnel makes no pipe, and a connection without
 * a head gives way; fd_limit 0 (unknown): no line.
 */
long		shed_fd_ceiling(long fd_limit);

/*
 * Memory back to the system (malloc_trim): once connections, after
 * having reached SHED_TRIM_PEAK, fall to a SHED_TRIM_LOW-th of their peak.
 */
#define SHED_TRIM_PEAK	64
#define SHED_TRIM_LOW	8
bool		shed_trim_due(unsigned nconns, unsigned peak);

#endif
