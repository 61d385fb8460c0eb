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
#include "proxy/dlog.h"

struct event_base;
struct proxy;

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
 * *via: whether the sandbox's broker opened it for a program that ignores
 * the proxy (SPEC 6.6).
 */
enum proxy_via {
	PROXY_VIA_CLIENT,	/* a client that speaks to the proxy */
	PROXY_VIA_TRANSPARENT,	/* the broker asks in SOCKS5 for its target */
	PROXY_VIA_DNS		/* a DNS query over TCP, answered here */
};
typedef int	(*proxy_owner_fn)(void *arg, int fd, pid_t *pid, char *exe,
		    size_t len, enum proxy_via *via);
void		 proxy_set_owner(struct proxy *, proxy_owner_fn, void *arg);
/*
 * Run mode: the decision on a connect carried through the proxy for a
 * caller that does not wait in connect() (SPEC 6.6's EINPROGRESS) is
 * told here, not in SOCKS5, where the command could read it: fd the
 * client socket, err 0 (a tunnel) or ECONNREFUSED.
 */
typedef void	(*proxy_decided_fn)(void *arg, int fd, int err);
void		 proxy_set_decided(struct proxy *, proxy_decided_fn, void *arg);

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
 * Is the descriptor limit short of what max_connections can hold (up to
 * 6 a connection: a splicing tunnel)?  Service mode warns of it.
 */
bool		 proxy_fd_short(const struct proxy *, unsigned long *have,
		    unsigned long *need);

/*
 * Answer run mode's name lookups (SPEC 6.6) on a bound UDP socket (port
 * 53 in the command's network namespace); the proxy owns fd from then
 * on.  -1 with err (fd still the caller's).
 */
int		 proxy_dns_udp(struct proxy *, int fd, char *err,
		    size_t errlen);
/*
 * The same on one end of a unix SOCK_SEQPACKET pair, a UDP socket's
 * stand-in in the landlock confinement: one packet, one query.  Owned as
 * above.
 */
int		 proxy_dns_pair(struct proxy *, int fd, char *err,
		    size_t errlen);

/*
 * Serve OpenMetrics at GET /metrics (SPEC 8.1) on addr: a loopback
 * "ADDR:PORT" (port 0: ephemeral) or "unix:PATH"; anything else -1 with
 * err.  Where it listens, as text, in bound.  Counts reloads (result ok
 * or not) for it; closed by proxy_free.
 */
int		 proxy_metrics_listen(struct proxy *, const char *addr,
		    char *bound, size_t boundlen, char *err, size_t errlen);
void		 proxy_metrics_reload(struct proxy *, bool ok);

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
