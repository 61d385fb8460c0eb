/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dns: pinned name resolution with c-ares on the proxy's libevent loop.
 *
 * c-ares never blocks and never owns a thread here: it tells us, through
 * its socket state callback, which descriptors it wants watched, and we
 * hand readiness back with ares_process_fd().  One timer ("tick") beats
 * while c-ares holds a query so it can retransmit and time out; a second
 * timer per query ("deadline") bounds the lookup as a whole, whatever
 * c-ares would do.
 *
 * Many lookups never slow the loop (SPEC 4 Limits): ares_timeout() walks
 * every query (c-ares 1.18), so it is never called; the tick's
 * ares_process_fd() looks only at the queries due this second.  Lookups
 * outstanding are capped (dns_busy), and those given up on (cancelled,
 * past their deadline) are counted until c-ares lets them go: c-ares 1.18
 * cannot cancel one query, so once none it holds is wanted any more,
 * ares_cancel() drops them all at once.
 *
 * A lookup is two plain ares_query() calls, one for A and one for AAAA,
 * rather than ares_getaddrinfo(): that keeps the exact DNS outcome of each
 * (NXDOMAIN, NODATA, SERVFAIL, timeout) so the two can be combined by a
 * fixed rule below, and it never appends search domains, since the policy
 * judged exactly this name.  With the system configuration the hosts file
 * is consulted first ("fb"), so localhost keeps working; with explicit
 * servers only DNS is asked ("b").
 *
 * Lifetime rules for a struct dns_query:
 *  - the user callback runs at most once, always from the event loop,
 *    never from inside dns_resolve();
 *  - after the callback has returned, or after dns_cancel(), the handle
 *    must not be used again (cancelling from inside its own callback is
 *    harmless);
 *  - the memory lives on until c-ares has finished with both halves, so a
 *    late answer to a timed-out or cancelled query lands on a live, inert
 *    object and is then released.
 *
 * dns_resolver_free() never calls user callbacks.  It may be called from
 * inside one of them: the teardown is then deferred until control leaves
 * c-ares, before it returns to libevent.
 */
#define CARES_NO_DEPRECATED	/* newer c-ares flags ares_query(); 1.18 is fine */

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ares.h>
#include <event2/event.h>

#include "dns/answer.h"
#include "dns/dns.h"
#include "egress/egress.h"

#define DNS_DEFAULT_TIMEOUT_MS	5000
#define DNS_DEFAULT_PORT	53
#define DNS_TRIES		2	/* c-ares attempts per server */
#define DNS_C_IN		1

enum { HALF_A = 0, HALF_AAAA, NHALVES };

/* A descriptor c-ares asked us to watch. */
struct dns_sock {
	LIST_ENTRY(dns_sock)	 entry;
	struct dns_resolver	*r;
	ares_socket_t		 fd;
	short			 what;	/* EV_READ|EV_WRITE as c-ares wants */
	struct event		*ev;
};

/* One of the two record types of a lookup. */
struct dns_half {
	struct dns_query	*q;
	bool			 pending;	/* c-ares still owes a callback */
	struct dns_answer	 ans;		/* DNS_TIMEOUT until answered */
};

struct dns_query {
	TAILQ_ENTRY(dns_query)	 entry;
	struct dns_resolver	*r;
	dns_cb			 cb;
	void			*arg;
	struct event		*deadline;
	struct dns_half		 half[NHALVES];
	int			 npending;	/* halves still in c-ares */
	bool			 live;		/* in c-ares and wanted: nlive */
	bool			 starting;	/* inside dns_resolve() */
	bool			 done;		/* delivered or cancelled */
	bool			 in_cb;		/* user callback running */
};

struct dns_resolver {
	struct event_base	*base;
	ares_channel		 channel;
	bool			 channel_ok;
	bool			 lib_init;
	bool			 hosts;		/* consult the hosts file first */
	struct event		*tick;		/* c-ares's timers, on a beat */
	struct timeval		 tick_tv;	/* the beat */
	bool			 ticking;
	struct event		*reap;		/* drop queries nobody wants */
	struct timeval		 timeout;	/* per lookup */
	const struct timeval	*deadline_tv;	/* timeout, as a common one */
	unsigned		 nlookups;	/* in queries: dns_busy's count */
	unsigned		 nlive;		/* in c-ares, still wanted */
	unsigned		 inflight;	/* halves c-ares holds */
	LIST_HEAD(dns_socks, dns_sock)	 socks;
	TAILQ_HEAD(dns_queries, dns_query) queries;
	int			 depth;		/* nested event callbacks */
	bool			 freeing;	/* free deferred until depth 0 */
};

static void	 seterr(char *, size_t, const char *, const char *);
static bool	 addr_is_v4(const struct egress_addr *);
static int	 set_servers(struct dns_resolver *, const struct dns_server *,
		    size_t, char *, size_t);
static int	 init_channel(struct dns_resolver *, uint32_t, bool,
		    char *, size_t);
static struct dns_sock *sock_find(struct dns_resolver *, ares_socket_t);
static void	 sock_drop(struct dns_sock *);
static void	 sock_state_cb(void *, ares_socket_t, int, int);
static void	 sock_cb(evutil_socket_t, short, void *);
static struct timeval tick_beat(uint32_t);
static void	 tick_follow(struct dns_resolver *);
static void	 tick_cb(evutil_socket_t, short, void *);
static void	 reap_cb(evutil_socket_t, short, void *);
static void	 query_done(struct dns_query *);
static void	 enter(struct dns_resolver *);
static void	 leave(struct dns_resolver *);
static void	 resolver_destroy(struct dns_resolver *);
static enum dns_status map_ares(int);
static void	 half_cb(void *, int, int, unsigned char *, int);
static bool	 hosts_lookup(struct dns_query *, const char *);
static void	 hosts_half(struct dns_query *, const char *, int, int);
static void	 finish(struct dns_query *);
static void	 deadline_cb(evutil_socket_t, short, void *);
static void	 query_maybe_free(struct dns_query *);
static void	 query_free(struct dns_query *);

static void
seterr(char *err, size_t errlen, const char *what, const char *why)
{
	if (err == NULL || errlen == 0)
		return;
	if (why != NULL)
		(void)snprintf(err, errlen, "%s: %s", what, why);
	else
		(void)snprintf(err, errlen, "%s", what);
}

/* ::ffff:a.b.c.d, the form egress_addr_from_v4() writes. */
static bool
addr_is_v4(const struct egress_addr *a)
{
	static const uint8_t prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	return memcmp(a->b, prefix, sizeof(prefix)) == 0;
}

/*
 * Explicit servers replace resolv.conf's.  ares_set_servers_ports() takes
 * both families and a port for each, which the CSV form would make us
 * print and c-ares parse back.
 */
static int
set_servers(struct dns_resolver *r, const struct dns_server *servers,
    size_t nservers, char *err, size_t errlen)
{
	struct ares_addr_port_node	*nodes;
	size_t				 i;
	int				 rc;

	nodes = calloc(nservers, sizeof(*nodes));
	if (nodes == NULL) {
		seterr(err, errlen, "dns servers", "out of memory");
		return -1;
	}
	for (i = 0; i < nservers; i++) {
		struct ares_addr_port_node	*n = &nodes[i];
		const struct egress_addr	*a = &servers[i].addr;
		int				 port;

		port = servers[i].port ? servers[i].port : DNS_DEFAULT_PORT;
		n->next = i + 1 < nservers ? &nodes[i + 1] : NULL;
		n->udp_port = port;
		n->tcp_port = port;
		if (addr_is_v4(a)) {
			n->family = AF_INET;
			memcpy(&n->addr.addr4, &a->b[12], 4);
		} else {
			n->family = AF_INET6;
			memcpy(&n->addr.addr6, a->b, 16);
		}
	}
	rc = ares_set_servers_ports(r->channel, nodes);
	free(nodes);
	if (rc != ARES_SUCCESS) {
		seterr(err, errlen, "dns servers", ares_strerror(rc));
		return -1;
	}
	return 0;
}

static int
init_channel(struct dns_resolver *r, uint32_t timeout_ms, bool explicit,
    char *err, size_t errlen)
{
	struct ares_options	opts;
	int			optmask, rc;
	char			lookups_dns[] = "b", lookups_sys[] = "fb";

	memset(&opts, 0, sizeof(opts));
	optmask = ARES_OPT_FLAGS | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES |
	    ARES_OPT_SOCK_STATE_CB | ARES_OPT_LOOKUPS;
	/* The policy judged this exact name: no search list, no aliases. */
	opts.flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES;
	/*
	 * Two tries of half the budget each: a lost datagram is retried
	 * in time, and c-ares gives up not long after our deadline has
	 * fired, so abandoned queries do not linger.
	 */
	opts.timeout = timeout_ms / 2 > 0 ? (int)(timeout_ms / 2) : 1;
	opts.tries = DNS_TRIES;
	opts.sock_state_cb = sock_state_cb;
	opts.sock_state_cb_data = r;
	/* ares_query() ignores lookups; set them for honesty's sake. */
	opts.lookups = explicit ? lookups_dns : lookups_sys;
	rc = ares_init_options(&r->channel, &opts, optmask);
	if (rc != ARES_SUCCESS) {
		seterr(err, errlen, "dns init", ares_strerror(rc));
		return -1;
	}
	r->channel_ok = true;
	return 0;
}

struct dns_resolver *
dns_resolver_new(struct event_base *base, const struct dns_server *servers,
    size_t nservers, uint32_t timeout_ms, char *err, size_t errlen)
{
	struct dns_resolver	*r;
	int			 rc;

	if (base == NULL || (nservers > 0 && servers == NULL)) {
		seterr(err, errlen, "dns init", "invalid arguments");
		return NULL;
	}
	if (timeout_ms == 0)
		timeout_ms = DNS_DEFAULT_TIMEOUT_MS;
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		seterr(err, errlen, "dns init", "out of memory");
		return NULL;
	}
	r->base = base;
	r->hosts = nservers == 0;
	r->timeout.tv_sec = timeout_ms / 1000;
	r->timeout.tv_usec = (timeout_ms % 1000) * 1000;
	r->tick_tv = tick_beat(timeout_ms);
	LIST_INIT(&r->socks);
	TAILQ_INIT(&r->queries);

	/* Reference counted inside c-ares; balanced in resolver_destroy. */
	rc = ares_library_init(ARES_LIB_INIT_ALL);
	if (rc != ARES_SUCCESS) {
		seterr(err, errlen, "dns library init", ares_strerror(rc));
		goto fail;
	}
	r->lib_init = true;
	r->tick = event_new(base, -1, EV_PERSIST, tick_cb, r);
	r->reap = event_new(base, -1, 0, reap_cb, r);
	if (r->tick == NULL || r->reap == NULL) {
		seterr(err, errlen, "dns init", "cannot create timer");
		goto fail;
	}
	/* Every deadline is as long: libevent keeps them in a queue, O(1). */
	r->deadline_tv = event_base_init_common_timeout(base, &r->timeout);
	if (r->deadline_tv == NULL)
		r->deadline_tv = &r->timeout;
	if (init_channel(r, timeout_ms, nservers > 0, err, errlen) == -1)
		goto fail;
	if (nservers > 0 &&
	    set_servers(r, servers, nservers, err, errlen) == -1)
		goto fail;
	return r;

fail:
	resolver_destroy(r);
	return NULL;
}

static struct dns_sock *
sock_find(struct dns_resolver *r, ares_socket_t fd)
{
	struct dns_sock	*s;

	LIST_FOREACH(s, &r->socks, entry)
		if (s->fd == fd)
			return s;
	return NULL;
}

/*
 * Safe even from inside s->ev's own callback: libevent copies what it
 * needs before calling us and does not touch the event afterwards.
 */
static void
sock_drop(struct dns_sock *s)
{
	LIST_REMOVE(s, entry);
	if (s->ev != NULL)
		event_free(s->ev);
	free(s);
}

/*
 * c-ares tells us what it wants for a descriptor: readable, writable
 * (a TCP connect or send in progress), both, or neither (closing).  If
 * we cannot watch it, the lookups using it run into their deadline.
 */
static void
sock_state_cb(void *data, ares_socket_t fd, int readable, int writable)
{
	struct dns_resolver	*r = data;
	struct dns_sock		*s;
	short			 what;

	what = (readable ? EV_READ : 0) | (writable ? EV_WRITE : 0);
	s = sock_find(r, fd);
	if (what == 0) {
		if (s != NULL)
			sock_drop(s);
		return;
	}
	if (s != NULL && s->what == what)
		return;
	if (s == NULL) {
		if ((s = calloc(1, sizeof(*s))) == NULL)
			return;
		s->r = r;
		s->fd = fd;
		LIST_INSERT_HEAD(&r->socks, s, entry);
	} else if (s->ev != NULL) {
		event_free(s->ev);
		s->ev = NULL;
	}
	s->what = what;
	s->ev = event_new(r->base, fd, what | EV_PERSIST, sock_cb, s);
	if (s->ev == NULL || event_add(s->ev, NULL) == -1) {
		/* Keep the entry so a later state change can retry. */
		if (s->ev != NULL)
			event_free(s->ev);
		s->ev = NULL;
		s->what = 0;
	}
}

static void
sock_cb(evutil_socket_t fd, short what, void *arg)
{
	struct dns_sock		*s = arg;
	struct dns_resolver	*r = s->r;	/* s may go away below */
	ares_socket_t		 rfd, wfd;

	rfd = (what & EV_READ) ? (ares_socket_t)fd : ARES_SOCKET_BAD;
	wfd = (what & EV_WRITE) ? (ares_socket_t)fd : ARES_SOCKET_BAD;
	enter(r);
	ares_process_fd(r->channel, rfd, wfd);
	tick_follow(r);
	leave(r);
}

/*
 * A tenth of a try's timeout (DNS_TRIES tries share the lookup's), within
 * 5-100 ms: a retransmit or a timeout comes that much late at most.
 */
static struct timeval
tick_beat(uint32_t timeout_ms)
{
	uint32_t ms = timeout_ms / DNS_TRIES / 10;
	struct timeval tv;

	if (ms < 5)
		ms = 5;
	if (ms > 100)
		ms = 100;
	tv.tv_sec = 0;
	tv.tv_usec = (suseconds_t)ms * 1000;
	return tv;
}

/* The beat runs while c-ares holds a query, and only then.  O(1). */
static void
tick_follow(struct dns_resolver *r)
{
	if (r->freeing)
		return;
	if (r->inflight == 0) {
		if (r->ticking)
			(void)evtimer_del(r->tick);
		r->ticking = false;
		return;
	}
	/* On failure the lookups still end at their deadline. */
	if (!r->ticking)
		r->ticking = evtimer_add(r->tick, &r->tick_tv) == 0;
}

static void
tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct dns_resolver	*r = arg;

	(void)fd;
	(void)what;
	enter(r);
	ares_process_fd(r->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
	tick_follow(r);
	leave(r);
}

/*
 * Nothing c-ares still holds is wanted (every such lookup was cancelled
 * or is past its deadline): drop them all now rather than let them
 * retransmit and wait out their tries.  Run from the loop, never from
 * inside c-ares.
 */
static void
reap_cb(evutil_socket_t fd, short what, void *arg)
{
	struct dns_resolver	*r = arg;

	(void)fd;
	(void)what;
	enter(r);
	if (!r->freeing && r->nlive == 0 && r->inflight > 0)
		ares_cancel(r->channel);
	tick_follow(r);
	leave(r);
}

/*
 * Every entry from libevent goes through enter/leave, so a user callback
 * that frees the resolver does not pull c-ares (or a query) out from
 * under the code that called it.
 */
static void
enter(struct dns_resolver *r)
{
	r->depth++;
}

static void
leave(struct dns_resolver *r)
{
	if (--r->depth == 0 && r->freeing)
		resolver_destroy(r);
}

void
dns_resolver_free(struct dns_resolver *r)
{
	struct dns_query	*q;

	if (r == NULL || r->freeing)
		return;
	r->freeing = true;
	/* Silence every lookup first: teardown never calls back. */
	TAILQ_FOREACH(q, &r->queries, entry) {
		q->done = true;
		q->cb = NULL;
		(void)evtimer_del(q->deadline);
	}
	(void)evtimer_del(r->tick);
	(void)event_del(r->reap);
	if (r->depth == 0)
		resolver_destroy(r);
}

static void
resolver_destroy(struct dns_resolver *r)
{
	struct dns_query	*q, *qnext;
	struct dns_sock		*s, *snext;

	TAILQ_FOREACH(q, &r->queries, entry) {
		q->done = true;
		q->cb = NULL;
	}
	/*
	 * ares_destroy() completes every outstanding c-ares query with
	 * ARES_EDESTRUCTION, which releases the inert dns_query objects,
	 * and reports each socket closed, which drops our events.
	 */
	if (r->channel_ok)
		ares_destroy(r->channel);
	r->channel_ok = false;
	/* What is left had no c-ares work outstanding. */
	for (q = TAILQ_FIRST(&r->queries); q != NULL; q = qnext) {
		qnext = TAILQ_NEXT(q, entry);
		query_free(q);
	}
	for (s = LIST_FIRST(&r->socks); s != NULL; s = snext) {
		snext = LIST_NEXT(s, entry);
		sock_drop(s);
	}
	if (r->tick != NULL)
		event_free(r->tick);
	if (r->reap != NULL)
		event_free(r->reap);
	if (r->lib_init)
		ares_library_cleanup();
	free(r);
}

static enum dns_status
map_ares(int status)
{
	switch (status) {
	case ARES_SUCCESS:
		return DNS_OK;
	case ARES_ENODATA:
		return DNS_NODATA;
	case ARES_ENOTFOUND:
		return DNS_NXDOMAIN;
	case ARES_ESERVFAIL:
	case ARES_EREFUSED:
	/*
	 * c-ares 1.18 tries the next server on SERVFAIL or REFUSED and,
	 * once every try is spent, reports ECONNREFUSED, as it does for a
	 * server that cannot be reached: either way the server failed or
	 * refused.
	 */
	case ARES_ECONNREFUSED:
		return DNS_SERVFAIL;
	case ARES_ETIMEOUT:
		return DNS_TIMEOUT;
	default:
		return DNS_ERROR;
	}
}

/* c-ares is done with one half: from the loop, or from ares_destroy. */
static void
half_cb(void *arg, int status, int timeouts, unsigned char *abuf, int alen)
{
	struct dns_half		*h = arg;
	struct dns_query	*q = h->q;

	(void)timeouts;
	h->pending = false;
	q->npending--;
	q->r->inflight--;
	if (q->done) {
		/* Timed out or cancelled earlier: only release it. */
		query_maybe_free(q);
		return;
	}
	if (status != ARES_SUCCESS)
		h->ans.status = map_ares(status);
	else
		dns_answer_parse(&h->ans, h == &q->half[HALF_A] ? DNS_T_A :
		    DNS_T_AAAA, abuf, alen);
	/*
	 * c-ares may fail a query synchronously inside ares_query(); the
	 * callback must still come from the loop, so dns_resolve() leaves
	 * that case to the deadline timer.
	 */
	if (q->npending == 0 && !q->starting)
		finish(q);
}

/*
 * The hosts file, as getaddrinfo's "files" step: a name found there is
 * answered from it alone.  This reads a small local file, as c-ares's own
 * 'f' lookup does.
 */
static void
hosts_half(struct dns_query *q, const char *name, int family, int which)
{
	struct dns_half		*h = &q->half[which];
	struct hostent		*he = NULL;
	struct egress_addr	 a;
	uint32_t		 v4;
	uint8_t			 b[16];
	char			**p;

	h->ans.status = DNS_NODATA;
	if (ares_gethostbyname_file(q->r->channel, name, family, &he) !=
	    ARES_SUCCESS || he == NULL)
		return;
	for (p = he->h_addr_list; p != NULL && *p != NULL; p++) {
		if (he->h_addrtype == AF_INET && he->h_length == 4) {
			memcpy(&v4, *p, 4);
			egress_addr_from_v4(&a, ntohl(v4));
		} else if (he->h_addrtype == AF_INET6 && he->h_length == 16) {
			memcpy(b, *p, 16);
			egress_addr_from_v6(&a, b);
		} else
			continue;
		if (!dns_answer_add(&h->ans, &a))
			break;
	}
	ares_free_hostent(he);
	if (h->ans.naddrs > 0)
		h->ans.status = DNS_OK;
}

static bool
hosts_lookup(struct dns_query *q, const char *name)
{
	hosts_half(q, name, AF_INET, HALF_A);
	hosts_half(q, name, AF_INET6, HALF_AAAA);
	if (q->half[HALF_A].ans.naddrs > 0 ||
	    q->half[HALF_AAAA].ans.naddrs > 0)
		return true;
	q->half[HALF_A].ans.status = DNS_TIMEOUT;
	q->half[HALF_AAAA].ans.status = DNS_TIMEOUT;
	return false;
}

struct dns_query *
dns_resolve(struct dns_resolver *r, const char *name, dns_cb cb, void *arg)
{
	static const struct timeval	 now = { 0, 0 };
	struct dns_query		*q;
	size_t				 len;
	int				 i;

	if (r == NULL || r->freeing || name == NULL || cb == NULL ||
	    dns_busy(r))
		return NULL;
	len = strlen(name);
	if (len == 0 || len > EGRESS_HOST_MAX)
		return NULL;
	if ((q = calloc(1, sizeof(*q))) == NULL)
		return NULL;
	q->r = r;
	q->cb = cb;
	q->arg = arg;
	for (i = 0; i < NHALVES; i++) {
		q->half[i].q = q;
		q->half[i].ans.status = DNS_TIMEOUT;
	}
	/* Armed before anything is sent, so a failure here costs nothing. */
	q->deadline = evtimer_new(r->base, deadline_cb, q);
	if (q->deadline == NULL)
		goto fail;
	if (r->hosts && hosts_lookup(q, name)) {
		if (evtimer_add(q->deadline, &now) == -1)
			goto fail;
		TAILQ_INSERT_TAIL(&r->queries, q, entry);
		r->nlookups++;
		return q;
	}
	if (evtimer_add(q->deadline, r->deadline_tv) == -1)
		goto fail;
	TAILQ_INSERT_TAIL(&r->queries, q, entry);
	r->nlookups++;

	q->starting = true;
	for (i = 0; i < NHALVES; i++) {
		q->half[i].pending = true;
		q->npending++;
		r->inflight++;
	}
	ares_query(r->channel, name, DNS_C_IN, DNS_T_A, half_cb,
	    &q->half[HALF_A]);
	ares_query(r->channel, name, DNS_C_IN, DNS_T_AAAA, half_cb,
	    &q->half[HALF_AAAA]);
	q->starting = false;
	if (q->npending > 0) {
		q->live = true;
		r->nlive++;
	}
	/* Both failed at once (bad name, no memory): report from the loop. */
	if (q->npending == 0) {
		(void)evtimer_del(q->deadline);
		if (evtimer_add(q->deadline, &now) == -1) {
			query_free(q);
			return NULL;
		}
	}
	tick_follow(r);
	return q;

fail:
	if (q->deadline != NULL)
		event_free(q->deadline);
	free(q);
	return NULL;
}

/* Combine the halves (a half still pending counts as DNS_TIMEOUT). */
static void
finish(struct dns_query *q)
{
	struct dns_answer	 all;
	enum dns_status		 st;
	dns_cb			 cb = q->cb;

	/* IPv4 first: the order the caller tries to connect in. */
	st = dns_answer_combine(&q->half[HALF_A].ans, &q->half[HALF_AAAA].ans,
	    &all);

	query_done(q);
	q->in_cb = true;
	cb(st, st == DNS_OK ? all.addrs : NULL, st == DNS_OK ? all.naddrs : 0,
	    q->arg);
	q->in_cb = false;
	query_maybe_free(q);
}

/* The lookup's budget is spent, or a result waits to be delivered. */
static void
deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct dns_query	*q = arg;
	struct dns_resolver	*r = q->r;

	(void)fd;
	(void)what;
	if (q->done)
		return;
	enter(r);
	finish(q);
	leave(r);
}

void
dns_cancel(struct dns_query *q)
{
	if (q == NULL)
		return;
	query_done(q);
	query_maybe_free(q);
}

/*
 * No callback will come any more.  When it was the last lookup c-ares
 * holds that anyone wants, what c-ares holds is dropped (reap_cb).
 */
static void
query_done(struct dns_query *q)
{
	struct dns_resolver	*r = q->r;

	q->done = true;
	q->cb = NULL;
	(void)evtimer_del(q->deadline);
	if (!q->live)
		return;
	q->live = false;
	if (--r->nlive == 0 && r->inflight > 0 && !r->freeing)
		event_active(r->reap, EV_TIMEOUT, 0);
}

bool
dns_busy(const struct dns_resolver *r)
{
	return r->nlookups >= DNS_MAX_LOOKUPS;
}

size_t
dns_outstanding(const struct dns_resolver *r)
{
	return r->nlookups;
}

/* Free once nobody can reach it: not c-ares, not the running callback. */
static void
query_maybe_free(struct dns_query *q)
{
	if (!q->done || q->npending > 0 || q->in_cb)
		return;
	query_free(q);
}

static void
query_free(struct dns_query *q)
{
	TAILQ_REMOVE(&q->r->queries, q, entry);
	q->r->nlookups--;
	if (q->deadline != NULL)
		event_free(q->deadline);
	free(q);
}

const char *
dns_status_name(enum dns_status st)
{
	switch (st) {
	case DNS_OK:
		return "ok";
	case DNS_NXDOMAIN:
		return "nxdomain";
	case DNS_NODATA:
		return "nodata";
	case DNS_SERVFAIL:
		return "servfail";
	case DNS_TIMEOUT:
		return "timeout";
	case DNS_ERROR:
		break;
	}
	return "error";
}
