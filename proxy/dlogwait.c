/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decisions whose answers wait for their lines (SPEC 5, log_wait).  A log
 * whose reader is behind for a moment (a burst filled the pipe) delays an
 * answer instead of refusing it: the line is queued and the answer goes
 * out once the log took it.  Allowed requests' lines are written before
 * refusals' (and before lines that wait for no one), so refusals, an
 * attacker's included, never keep the log behind for allowed requests.
 * A line not taken within log_wait: an allowed request is refused
 * log_unavailable, a refusal answered anyway, each counted; one line
 * ("event":"unlogged") says how many and why when the log catches up.
 * Memory is bounded: at most MAX_WAITING lines wait; past that a
 * decision is treated as not taken at once.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxy/dlogint.h"
#include "proxy/mstime.h"

#define MAX_WAITING	1024		/* lines queued, about 2.4 KB each */

static void
wait_free(struct dlog_wait *w)
{
	free(w->exe);
	free(w);
}

/* The done queue's callbacks, from the loop: never inside a caller. */
static void
call_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct dlog *l = arg;
	struct dlog_wait *w;

	while ((w = TAILQ_FIRST(&l->doneq)) != NULL) {
		TAILQ_REMOVE(&l->doneq, w, entry);
		if (w->cb != NULL)
			w->cb(w->arg, w->rc);
		wait_free(w);
	}
}

/* Out of its queue, with its outcome, to be told. */
void
dlog_wait_resolve(struct dlog *l, struct dlog_waitq *q, struct dlog_wait *w, int rc)
{
	TAILQ_REMOVE(q, w, entry);
	l->nwaiting--;
	if (rc == 0) {
		dlog_count(l, w->e.allow, w->e.reason);
		dlog_observed(l, &w->e);
	} else
		rc = dlog_unwritten(l, &w->e, true);
	w->rc = rc;
	TAILQ_INSERT_TAIL(&l->doneq, w, entry);
	event_active(l->call, 0, 0);
}

void
dlog_wait_arm(struct dlog *l)
{
	struct dlog_waitq *qs[2] = { &l->allowq, &l->refuseq };
	uint64_t first = UINT64_MAX, now = mono_ms();
	struct timeval tv;
	struct dlog_wait *w;
	int i;

	for (i = 0; i < 2; i++)
		TAILQ_FOREACH(w, qs[i], entry)
			if (w->deadline < first)
				first = w->deadline;
	if (first == UINT64_MAX) {
		evtimer_del(l->expire);
		return;
	}
	tv = ms_timeval(first > now ? first - now : 0);
	(void)evtimer_add(l->expire, &tv);
}

/* log_wait passed for the oldest: not taken in time. */
static void
expire_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct dlog_waitq *qs[2];
	struct dlog *l = arg;
	struct dlog_wait *w, *next;
	uint64_t now = mono_ms();
	int i;

	qs[0] = &l->allowq;
	qs[1] = &l->refuseq;
	for (i = 0; i < 2; i++)
		for (w = TAILQ_FIRST(qs[i]); w != NULL; w = next) {
			next = TAILQ_NEXT(w, entry);
			if (w->deadline <= now)
				dlog_wait_resolve(l, qs[i], w, -1);
		}
	dlog_wait_arm(l);
}

int
dlog_wait_init(struct dlog *l)
{
	TAILQ_INIT(&l->allowq);
	TAILQ_INIT(&l->refuseq);
	TAILQ_INIT(&l->doneq);
	l->expire = evtimer_new(l->base, expire_cb, l);
	l->call = event_new(l->base, -1, 0, call_cb, l);
	return l->expire == NULL || l->call == NULL ? -1 : 0;
}

void
dlog_wait_free(struct dlog *l)
{
	struct dlog_waitq *qs[3] = { &l->allowq, &l->refuseq, &l->doneq };
	struct dlog_wait *w;
	int i;

	for (i = 0; i < 3; i++)
		while ((w = TAILQ_FIRST(qs[i])) != NULL) {
			TAILQ_REMOVE(qs[i], w, entry);
			wait_free(w);
		}
	l->nwaiting = 0;
	if (l->expire != NULL)
		event_free(l->expire);
	if (l->call != NULL)
		event_free(l->call);
}



int
dlog_unwritten(struct dlog *l, const struct dlog_entry *e, bool waited)
{
	struct dlog_entry refused = *e;
	int rc = e->allow || !waited ? -1 : 0;

	/*
	 * A refusal that waited its log_wait is answered as decided; any
	 * other decision the log did not take is refused log_unavailable.
	 */
	if (e->allow || !waited) {
		refused.allow = false;
		refused.reason = EGRESS_R_LOG_UNAVAILABLE;
		refused.would = EGRESS_R_NONE;
		refused.addr = NULL;
	}
	dlog_count(l, false, refused.reason);
	l->unlogged++;
	if ((unsigned)refused.reason < EGRESS_R_COUNT)
		l->unlogged_by[refused.reason]++;
	dlog_observed(l, &refused);
	return rc;
}

uint64_t
dlog_wait_lose(struct dlog *l, bool end)
{
	uint64_t n = 0;

	while (TAILQ_FIRST(&l->allowq) != NULL)
		dlog_wait_resolve(l, &l->allowq, TAILQ_FIRST(&l->allowq), -1);
	while (TAILQ_FIRST(&l->refuseq) != NULL)
		dlog_wait_resolve(l, &l->refuseq, TAILQ_FIRST(&l->refuseq), -1);
	dlog_wait_arm(l);
	if (end) {
		/* Decisions whose one line never came: records lost. */
		n = l->unlogged;
		l->unlogged = 0;
		memset(l->unlogged_by, 0, sizeof(l->unlogged_by));
	}
	return n;
}

/* A copy of the decision that outlives the caller's strings. */
static struct dlog_wait *
wait_new(const struct dlog_entry *e, const char *line, size_t n)
{
	struct dlog_wait *w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	w->e = *e;
	snprintf(w->host, sizeof(w->host), "%s", e->host);
	w->e.host = w->host;
	if (e->addr != NULL) {
		w->addr = *e->addr;
		w->e.addr = &w->addr;
	}
	if (e->exe != NULL && (w->exe = strdup(e->exe)) == NULL) {
		free(w);
		return NULL;
	}
	w->e.exe = w->exe;
	memcpy(w->line, line, n);
	w->len = n;
	return w;
}

int
dlog_wait_queue(struct dlog *l, const struct dlog_entry *e, const char *line,
    size_t n, uint32_t wait_ms, dlog_wait_cb cb, void *arg,
    struct dlog_wait **wp)
{
	struct dlog_wait *w;

	if (l->nwaiting >= MAX_WAITING || (w = wait_new(e, line, n)) == NULL)
		return -1;
	w->deadline = mono_ms() + wait_ms;
	w->cb = cb;
	w->arg = arg;
	TAILQ_INSERT_TAIL(e->allow ? &l->allowq : &l->refuseq, w, entry);
	l->nwaiting++;
	if (!evtimer_pending(l->expire, NULL))
		dlog_wait_arm(l);
	*wp = w;
	return 0;
}

void
dlog_wait_cancel(struct dlog_wait *w)
{
	if (w != NULL)
		w->cb = NULL;
}
