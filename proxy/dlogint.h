/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The decision log's inside, shared by dlog.c (the descriptor, the digest,
 * lines that wait for no one) and dlogwait.c (decisions whose answers wait
 * for their lines).  Internal to those two files.
 */
#ifndef PROXY_DLOGINT_H
#define PROXY_DLOGINT_H

#include <sys/queue.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <openssl/evp.h>

#include "proxy/dlog.h"
#include "proxy/dlogline.h"

enum dlog_state {
	LOG_OK,
	LOG_BEHIND,	/* a pipe or socket full: its reader is behind */
	LOG_FAILED	/* a write failed (ENOSPC, EPIPE, ...); tried again */
};

/*
 * A decision whose answer waits for its line (dlog_decision_wait): queued
 * until the log takes the line or log_wait passes, then moved to the done
 * queue, whose callbacks run from the loop, never from inside a call of
 * the caller's.  Freed by dlogwait.c once resolved and told (or cancelled).
 */
struct dlog_wait {
	TAILQ_ENTRY(dlog_wait)	 entry;
	uint64_t		 deadline;	/* CLOCK_MONOTONIC, ms */
	dlog_wait_cb		 cb;		/* NULL: the request is gone */
	void			*arg;
	int			 rc;		/* 0 written, -1 not in time */
	struct dlog_entry	 e;		/* points into the fields below */
	char			 host[EGRESS_HOST_MAX + 1];
	struct egress_addr	 addr;
	char			*exe;
	size_t			 len;
	char			 line[DLOG_LINE_MAX];
};
TAILQ_HEAD(dlog_waitq, dlog_wait);

struct dlog {
	struct event_base	*base;
	int			 fd;
	unsigned		 reopened;	/* SIGHUP: a new file, times */
	bool			 regular;	/* a file: a torn line is cut */
	bool			 dead;		/* deleted: nothing more to try */
	char			 run_id[40];
	struct evbuffer		*torn;		/* a line's rest: before all */
	struct evbuffer		*held;		/* lines that may come late */
	struct evbuffer		*late;		/* close lines: after all else */
	struct event		*retry;		/* a failed log, tried again */
	struct event		*writable;	/* a pipe or socket that was full */
	EVP_MD_CTX		*sha;
	struct dlog_totals	 totals;
	enum dlog_state		 state;
	char			 why[128];	/* of the state, for stderr */
	time_t			 behind_said;	/* when "behind" was last said */
	uint64_t		 lost_said;	/* lost when last said */
	bool			 sha_failed;	/* the digest is not whole */
	struct dlog_counts	 counts;	/* for metrics (SPEC 8.1) */
	/* Run mode's terminal: each decision, once recorded. */
	void			(*observe)(void *, const struct dlog_entry *);
	void			*observe_arg;
	/* dlogwait.c: allowed requests' lines go before refusals'. */
	uint32_t		 wait_ms;	/* log_wait */
	struct dlog_waitq	 allowq, refuseq, doneq;
	size_t			 nwaiting;	/* in allowq and refuseq */
	struct event		*expire;	/* the oldest's log_wait */
	struct event		*call;		/* doneq's callbacks */
	/* Refusals answered without their line, for the one line. */
	uint64_t		 unlogged;
	uint64_t		 unlogged_by[EGRESS_R_COUNT];
};

/*
 * The files, from the bottom: dlogcount.c (a decision recorded: counted,
 * observed), dlogline.c (lines formatted), dlogwait.c (the queues of
 * decisions waiting for their lines), dlog.c (the log: writing, its
 * states, the public calls).  Each calls only those below it.
 */

/* dlog.c */
/* Write everything that goes before a new line: all of it, or (allowed)
 * only what an allowed line may not pass.  0 when nothing is left. */
int	 dlog_flush_before(struct dlog *, bool allowed);
/* One line (or chunk of whole lines) now: 0, or -1 (the state said). */
int	 dlog_put_line(struct dlog *, const char *, size_t);

/* dlogcount.c */
void	 dlog_count(struct dlog *, bool allow, enum egress_reason);
void	 dlog_observed(struct dlog *, const struct dlog_entry *);

/* dlogwait.c */
int	 dlog_wait_init(struct dlog *);
void	 dlog_wait_free(struct dlog *);
/*
 * Queue a decision's line to wait up to wait_ms (*wp: its handle): 0, or
 * -1 when no more may wait (or out of memory).
 */
int	 dlog_wait_queue(struct dlog *, const struct dlog_entry *,
	    const char *line, size_t n, uint32_t wait_ms, dlog_wait_cb,
	    void *arg, struct dlog_wait **wp);
/* w out of q, with its outcome (0 written, -1 not), to be told. */
void	 dlog_wait_resolve(struct dlog *, struct dlog_waitq *,
	    struct dlog_wait *, int rc);
/* The timer for the oldest deadline of what waits. */
void	 dlog_wait_arm(struct dlog *);
/*
 * A decision whose line was not written, counted for the one line: -1,
 * refused log_unavailable; but a refusal that waited its log_wait
 * (waited) is answered as decided: 0.
 */
int	 dlog_unwritten(struct dlog *, const struct dlog_entry *, bool waited);
/*
 * The log can take nothing: queued lines are not taken in time.  At the
 * end, also the refusals owed their one line: returned, to be lost.
 */
uint64_t dlog_wait_lose(struct dlog *, bool end);

#endif
