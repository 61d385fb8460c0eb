/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every connection reads of the proxy it belongs to: the policy
 * generation it holds, the connection limit, the out-of-descriptors
 * notice; and memory given back after a peak of connections.  Apart
 * from proxy.c (listeners, reload, drain), which calls conn.c, so that
 * conn.c and outbound.c need nothing of proxy.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "proxy/internal.h"
#include "proxy/shed.h"

#define FDS_SAY_S	10	/* "out of descriptors", at most this often */
#define TRIM_DELAY_MS	1000	/* after the fall, before memory goes back */

struct gen *
gen_hold(struct gen *g)
{
	g->refs++;
	return g;
}

void
gen_release(struct gen *g)
{
	if (g == NULL || --g->refs > 0)
		return;
	dns_resolver_free(g->dns);
	conf_free(g->conf);
	free(g);
}

/*
 * glibc keeps what a peak freed in its arenas: after 10,000 tunnels the
 * heap stays at its peak size for good.  malloc_trim(0) gives the free
 * pages of every arena back, but walks the heap to do it, so it is not
 * called per close: once the count has fallen far below a peak worth it
 * (shed_trim_due), a second later (the closes of a burst together), and
 * then not again until a new peak.
 */
static void
trim_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct proxy *px = arg;

	if (!shed_trim_due(px->nconns, px->peak))
		return;
#ifdef __GLIBC__
	(void)malloc_trim(0);
#endif
	px->peak = px->nconns;
}

void
proxy_mem_note(struct proxy *px)
{
	struct timeval tv = ms_timeval(TRIM_DELAY_MS);

	if (px->nconns > px->peak) {
		px->peak = px->nconns;
		return;
	}
	if (!shed_trim_due(px->nconns, px->peak))
		return;
	if (px->trim_timer == NULL &&
	    (px->trim_timer = evtimer_new(px->base, trim_cb, px)) == NULL)
		return;		/* kept, then: only memory */
	if (!evtimer_pending(px->trim_timer, NULL))
		(void)evtimer_add(px->trim_timer, &tv);
}

/* Said at most every few seconds: descriptors ran out. */
void
proxy_say_out_of_fds(struct proxy *px)
{
	struct timeval now;
	struct rlimit rl;

	(void)gettimeofday(&now, NULL);
	if (px->fds_said.tv_sec != 0 && now.tv_sec - px->fds_said.tv_sec <
	    FDS_SAY_S)
		return;
	px->fds_said = now;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		rl.rlim_cur = 0;
	fprintf(stderr, "harn-egressd: out of file descriptors (limit %ju, "
	    "%u clients): new clients are refused with 503 limit_exceeded "
	    "until some close\n", (uintmax_t)rl.rlim_cur, px->nconns);
}
