/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every connection reads of the proxy it belongs to: the policy
 * generation it holds, the connection limit, the out-of-descriptors
 * notice.  Apart from proxy.c (listeners, reload, drain), which calls
 * conn.c, so that conn.c and outbound.c need nothing of proxy.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "proxy/internal.h"

#define FDS_SAY_S	10	/* "out of descriptors", at most this often */

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

bool
conn_over_limit(const struct proxy *px)
{
	/* The one deciding is counted itself. */
	return px->nactive > px->gen->conf->max_connections;
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
