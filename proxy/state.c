/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every connection reads of the proxy it belongs to: the policy
 * generation it holds, the connection limit, the out-of-descriptors
 * notice.  Apart from proxy.c (listeners, reload, drain), which calls
 * conn.c, so that conn.c and outbound.c need nothing of proxy.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "proxy/internal.h"
#include "proxy/shed.h"

#define FDS_SAY_S	10	/* "out of descriptors", at most this often */
#define TRIM_DELAY_MS	1000	/* after the fall, before memory goes back */
#define SHED_LOOK	8	/* candidates looked at for one to shed */

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

/*
 * Bytes are there that the loop has not looked at yet: a client that
 * sent its request while others were accepted in the same pass.
 */
static bool
has_unread(const struct conn *c)
{
	char b;

	if (c->state != CONN_SNIFF && c->state != CONN_IDLE)
		return false;	/* a head under way: judged by its age */
	if (c->bev != NULL &&
	    evbuffer_get_length(bufferevent_get_input(c->bev)) > 0)
		return true;
	return recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

/*
 * The oldest connection without a head, c aside, that has not sent bytes
 * the loop is yet to read: those go to the back (read within this pass,
 * they leave the queue).  A few looked at, then none: in a burst of
 * clients that all sent their requests, none is shed for another.
 */
static struct conn *
shed_victim(struct proxy *px, const struct conn *c)
{
	struct conn *v;
	int i;

	for (i = 0; i < SHED_LOOK; i++) {
		if ((v = TAILQ_FIRST(&px->headless)) == c)
			v = TAILQ_NEXT(v, hl_entry);
		if (v == NULL || !has_unread(v))
			return v;
		TAILQ_REMOVE(&px->headless, v, hl_entry);
		TAILQ_INSERT_TAIL(&px->headless, v, hl_entry);
	}
	return NULL;
}

/*
 * Past the line, the count is a guess (descriptors held apart from the
 * connections come and go): whether a request's share (SHED_REQ_FDS) is
 * left is asked of the kernel, at the cost of a few dups and closes,
 * only then.
 */
static bool
fd_left(int fd)
{
	int probe[SHED_REQ_FDS], i, n;
	bool left = true;

	for (n = 0; n < SHED_REQ_FDS; n++)
		if ((probe[n] = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1) {
			left = errno != EMFILE && errno != ENFILE;
			break;
		}
	for (i = 0; i < n; i++)
		(void)close(probe[i]);
	return left;
}

/*
 * A connection shed is closed without a word: it has no complete request
 * to answer, and a 408 or 503 would cost a log line (an attacker's every
 * silent connection a line, item 5's trouble) and a write to a client
 * that may never read it, to tell it what header_timeout tells a silent
 * client: nothing.  Its client sees the connection close, as at
 * header_timeout; a browser or library opens another.
 */
void
conn_make_room(struct conn *c, long fd)
{
	struct proxy *px = c->px;
	struct shed_load l = { .active = px->nactive,
	    .max = px->gen->conf->max_connections, .fd = fd,
	    .conns = px->nconns, .fd_base = px->fd_base,
	    .fd_limit = px->fd_limit };
	unsigned need = shed_need(&l);
	struct conn *v;

	if ((need & SHED_FDS) && fd != -1 && !fd_left(fd))
		need |= SHED_NONE_LEFT;
	while (need != 0 && (v = shed_victim(px, c)) != NULL) {
		conn_close(v);
		l.active = px->nactive;
		l.conns = px->nconns;
		l.fd = -1;	/* a lower one is free now: it says no more */
		/* And that one is left for c's origin. */
		need = shed_need(&l) & ~SHED_NONE_LEFT;
	}
	/*
	 * Took the last descriptor, none to shed: no origin could be
	 * connected for it; refused at its first byte, as over the limit.
	 */
	if (need & SHED_NONE_LEFT)
		c->fds_gone = true;
	c->over_limit = (need & SHED_SLOT) != 0 || c->fds_gone;
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
