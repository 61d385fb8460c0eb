/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proxy: HTTP CONNECT, HTTP forwarding and SOCKS5 on one port (SPEC 4),
 * each request decided by egress/, names resolved once by dns/, every
 * decision written to the decision log (SPEC 5).
 */
#ifndef PROXY_PROXY_H
#define PROXY_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf/conf.h"

struct event_base;
struct proxy;
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
/* May a new request be admitted (the log keeps up, or serve is set)? */
bool		 dlog_admits(struct dlog *, bool serve);

enum proxy_protocol {
	PROXY_HTTP,
	PROXY_HTTP_CONNECT,
	PROXY_SOCKS5
};

/*
 * One decision, as its line says it (SPEC 5).  host may be "" and port 0
 * when the request never named a valid target; addr is the address
 * connected (allow) or judged (a deny decided on one), else NULL; would,
 * on report_only, what enforcing would have said; pid and exe, in run
 * mode, the confined process that opened the connection (0, NULL: not
 * known).
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
};

/*
 * Record one decision, before anything it answers or lets through is
 * sent: its line is handed to the kernel now.
 * 0: the decision stands (its line written; or no log, only counted; or
 * serve, log_failure_action serve: held for later, or lost and counted).
 * -1: the log cannot take the line, and the request is to be refused
 * log_unavailable instead; that refusal is what is recorded (its line
 * may come later: held, written once the log takes lines again).
 */
int		 dlog_decision(struct dlog *, const struct dlog_entry *,
		    bool serve);
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

/*
 * The event loop the proxy wants: epoll changes coalesced within a loop
 * pass, since every connection hands its sockets from one event to
 * another (a bufferevent, a connect, a tunnel).
 */
struct event_base *proxy_event_base_new(void);

/*
 * The proxy.  It owns every conf handed to it (proxy_new, proxy_reload)
 * and frees each once no request under way uses it.
 */
struct proxy	*proxy_new(struct event_base *, struct conf *,
		    struct dlog *, char *err, size_t errlen);
void		 proxy_free(struct proxy *);

/*
 * Run mode: who opened a connection the proxy accepted (SPEC 5's pid and
 * exe), asked once at each accept; 0, or -1 when it cannot be known.
 */
typedef int	(*proxy_owner_fn)(void *arg, int fd, pid_t *pid, char *exe,
		    size_t len);
void		 proxy_set_owner(struct proxy *, proxy_owner_fn, void *arg);

/*
 * Bind and listen on addr (port 0: ephemeral).  Writes the bound address
 * as text ("127.0.0.1:41234", "[::1]:41234") into bound.
 */
int		 proxy_listen(struct proxy *, const struct conf_sockaddr *,
		    char *bound, size_t boundlen, char *err, size_t errlen);
/* Serve an already bound, listening socket (run mode's namespace). */
int		 proxy_listen_fd(struct proxy *, int fd,
		    const struct conf_sockaddr *as_seen, char *err,
		    size_t errlen);

/*
 * An exempt (SPEC 3.1) may not hold an address the proxy listens on: the
 * n listeners given, a wildcard one standing for every local address.
 * -1 with err naming the exempt line and the address.
 */
int		 proxy_exempt_check(const struct conf *,
		    const struct conf_sockaddr *, size_t n, char *err,
		    size_t errlen);

/*
 * Use a new policy for new requests; requests under way keep theirs.  A
 * policy exempting one of the proxy's own addresses is refused.
 */
/* The policy in force now (a reload replaces it: never keep it). */
const struct conf *proxy_conf(const struct proxy *);
int		 proxy_reload(struct proxy *, struct conf *, char *err,
		    size_t errlen);

/*
 * Stop accepting and admit no new request: a kept-alive client between
 * requests is let go at once, a request that arrives is refused (503
 * shutting_down, SOCKS5 01), a response under way ends its connection.
 * Open connections finish for up to the conf's drain_timeout; then those
 * still connecting are refused the same way, the rest closed, and done
 * is called.
 */
void		 proxy_drain(struct proxy *, void (*done)(void *), void *arg);

#endif
