/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The decision log (dlog.c), part of the proxy's interface (proxy.h
 * includes it): a header of its own so that the files of proxy/ that
 * write decisions need nothing of proxy.c.
 */
#ifndef PROXY_DLOG_H
#define PROXY_DLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "egress/egress.h"

struct event_base;
struct dlog;

/*
 * The decision log: JSON lines to a file descriptor, each written when its
 * decision is made (before anything the decision answers is sent), with a
 * running SHA-256 and count of exactly the bytes written (for the
 * attestation).
 */
struct dlog_totals {
	uint64_t	 records;
	uint64_t	 bytes;
	uint64_t	 allow, deny;
	uint64_t	 by_reason[EGRESS_R_COUNT];
	uint64_t	 lost;		/* records that could not be written */
	unsigned char	 sha256[32];
	bool		 complete;	/* every record written and digested */
};

/*
 * fd is written to, never closed here; -1: no log, only the totals (and
 * refusals said on stderr).  run_id may be NULL.
 */
struct dlog	*dlog_new(struct event_base *, int fd, const char *run_id);
void		 dlog_free(struct dlog *);	/* finishes */
/*
 * Write to fd from now on (the log was rotated): what the old one takes
 * at once is written there, the rest to fd, each line whole to exactly
 * one.  Returns the old fd, for the caller to close, or -1 (fd not
 * taken: the old one stays).  The digest and counts go on across files.
 */
int		 dlog_reopen(struct dlog *, int fd);
unsigned	 dlog_reopened(const struct dlog *);
/* The last writes (a slow reader waited for a moment), then the count. */
void		 dlog_finish(struct dlog *);
void		 dlog_totals(struct dlog *, struct dlog_totals *);
/* May a new request be admitted (the log has not failed, or serve is
 * set)?  A log that is only behind admits: the request waits at its line. */
bool		 dlog_admits(struct dlog *, bool serve);

enum proxy_protocol {
	PROXY_HTTP,
	PROXY_HTTP_CONNECT,
	PROXY_SOCKS5,
	PROXY_TRANSPARENT,	/* run mode: SOCKS5 from the broker (SPEC 6.6) */
	PROXY_DNS		/* run mode: a name lookup refused (SPEC 6.6) */
};

/*
 * One decision, as its line says it (SPEC 5).  host may be "" and port 0
 * when the request never named a valid target; addr is the address
 * connected (allow) or judged (a deny decided on one), else NULL; would,
 * on report_only, what enforcing would have said; pid and exe, in run
 * mode, the confined process that opened the connection (0, NULL: not
 * known); conn, on allow, the connection's id for its close line (0:
 * none).
 */
struct dlog_entry {
	enum proxy_protocol		 proto;
	const char			*host;
	uint16_t			 port;
	bool				 allow;
	enum egress_reason		 reason;
	enum egress_reason		 would;
	const struct egress_addr	*addr;
	pid_t				 pid;
	const char			*exe;
	uint64_t			 conn;	/* allow: its connection; 0 */
};

/*
 * Record one decision, before anything it answers or lets through is
 * sent: its line is handed to the kernel now.
 * 0: the decision stands (its line written; or no log, only counted; or
 * serve, log_failure_action serve: held for later, or lost and counted).
 * -1: the log cannot take the line, and the request is to be refused
 * log_unavailable instead; that refusal is what is recorded, counted in
 * the one "unlogged" line written once the log takes lines again.
 */
int		 dlog_decision(struct dlog *, const struct dlog_entry *,
		    bool serve);
/*
 * The same, for a caller that can wait (SPEC 5 log_wait): a line the log
 * cannot take now (its reader is behind) is queued, allowed requests'
 * lines ahead of refusals', and 1 is returned with *wp: cb(arg, rc) is
 * called later from the loop, exactly once unless dlog_wait_cancel comes
 * first.  rc 0: the line was written, the decision stands; or, for a
 * refusal, not within wait_ms: it is answered anyway.  rc -1: an allowed
 * request's line not within wait_ms: refused log_unavailable instead.
 * What was not written is counted, and one line with the count and
 * reasons ("event":"unlogged") is written once the log catches up.  0
 * and -1 returned at once mean the same, without waiting (-1 for a
 * refusal too: a log that failed refuses everything log_unavailable).
 */
struct dlog_wait;
typedef void	(*dlog_wait_cb)(void *arg, int rc);
int		 dlog_decision_wait(struct dlog *, const struct dlog_entry *,
		    bool serve, uint32_t wait_ms, dlog_wait_cb, void *arg,
		    struct dlog_wait **wp);
/* The request is gone: cb is not called; its line is written as queued. */
void		 dlog_wait_cancel(struct dlog_wait *);

/*
 * Decisions by protocol (PROXY_*, and DLOG_DIRECT for SPEC 5's direct
 * refusals), decision (1: allow) and reason, and the lines held to be
 * written later: what metrics count (SPEC 8.1).
 */
/*
 * An allowed connection has ended (SPEC 5's close line): not a decision,
 * so not counted as one; written after every line before it, or held
 * when the log is behind, or lost and counted.  out: client to origin.
 */
struct dlog_close {
	enum proxy_protocol	 proto;
	const char		*host;
	uint16_t		 port;
	uint64_t		 conn;
	uint64_t		 bytes_out, bytes_in;
	uint64_t		 ms;
	pid_t			 pid;		/* 0: not known */
};
void		 dlog_close(struct dlog *, const struct dlog_close *);

#define DLOG_DIRECT	(PROXY_DNS + 1)
#define DLOG_PROTOCOLS	(PROXY_DNS + 2)
struct dlog_counts {
	uint64_t	 by[DLOG_PROTOCOLS][2][EGRESS_R_COUNT];
	uint64_t	 held;
};
const struct dlog_counts *dlog_counts(const struct dlog *);
/* "http", ..., "direct": as the log's lines say it; "" for no such. */
const char	*dlog_protocol_name(unsigned proto);

/*
 * fn is told of every decision once it is recorded (run mode's terminal,
 * SPEC 6.1); without a log it also replaces the stderr line of each.
 */
void		 dlog_observe(struct dlog *,
		    void (*fn)(void *, const struct dlog_entry *), void *arg);

/*
 * Record count refusals (folded into one line when count > 1) of a run's
 * confined process toward addr:port that went around the proxy (SPEC 5's
 * not_through_proxy).  pid 0, exe NULL: not known.  inbound: a connection
 * of addr's to port of the process's, refused ("direction":"inbound").
 */
void		 dlog_direct(struct dlog *, const char *addr, uint16_t port,
		    pid_t pid, const char *exe, uint64_t count, bool inbound);

#endif
