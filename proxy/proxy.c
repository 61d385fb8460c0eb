/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proxy as a whole: listeners, the policy generation in force, the
 * connection count and limit, reload and drain.
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "proxy/internal.h"
#include "proxy/mover.h"
#include "proxy/shed.h"

#define ACCEPT_RETRY_MS	100	/* pause after EMFILE, rather than spin */
#define REFUSE_BATCH	16	/* queued clients refused per EMFILE */

static void	proxy_conn_gone(struct proxy *);

static struct gen *
gen_new(struct event_base *base, struct conf *c, char *err, size_t errlen)
{
	struct dns_server servers[CONF_MAX_RESOLVERS];
	struct gen *g;
	size_t i;

	if ((g = calloc(1, sizeof(*g))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (i = 0; i < c->nresolver; i++) {
		servers[i].addr = c->resolver[i].addr;
		servers[i].port = c->resolver[i].port;
	}
	g->dns = dns_resolver_new(base, c->nresolver ? servers : NULL,
	    c->nresolver, c->dns_timeout, err, errlen);
	if (g->dns == NULL) {
		free(g);
		return NULL;
	}
	g->conf = c;
	g->refs = 1;
	return g;
}

struct event_base *
proxy_event_base_new(void)
{
	struct event_config *cfg;
	struct event_base *base;

	if ((cfg = event_config_new()) == NULL)
		return NULL;
	if (event_config_set_flag(cfg,
	    EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST) == -1) {
		event_config_free(cfg);
		return NULL;
	}
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	return base;
}

/*
 * What a connection can really hold (SHED_CONN_FDS: a splicing tunnel's
 * two sockets and two pipes): raise the soft limit toward what
 * max_connections needs (*need).  The limit in force, or 0 when unknown;
 * service mode says when it is short (proxy_fd_short), run mode, whose
 * one client is its command, does not.
 */
static long
fd_budget(const struct conf *c, unsigned long *needp)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)shed_fd_budget(c->max_connections);

	*needp = (unsigned long)need;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return 0;
	if (rl.rlim_cur >= need)
		return rl.rlim_cur == RLIM_INFINITY ? 0 : (long)rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ?
	    need : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1 &&
	    getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return 0;
	return (long)rl.rlim_cur;
}

bool
proxy_fd_short(const struct proxy *px, unsigned long *have,
    unsigned long *need)
{
	*have = px->fd_limit > 0 ? (unsigned long)px->fd_limit : 0;
	*need = px->fd_need;
	return px->fd_limit > 0 && *have < *need;
}

struct proxy *
proxy_new(struct event_base *base, struct conf *c, struct dlog *log,
    char *err, size_t errlen)
{
	struct proxy *px;

	if ((px = calloc(1, sizeof(*px))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	px->base = base;
	px->log = log;
	px->conn_gone = proxy_conn_gone;
	TAILQ_INIT(&px->listeners);
	TAILQ_INIT(&px->conns);
	px->metrics.generation = 1;
	TAILQ_INIT(&px->headless);
	if ((px->gen = gen_new(base, c, err, errlen)) == NULL) {
		free(px);
		return NULL;
	}
	px->fd_limit = fd_budget(c, &px->fd_need);
	/* Tunnels copy rather than take the last descriptors for pipes. */
	mpipe_set_ceiling(shed_fd_ceiling(px->fd_limit));
	/* Kept to be given up when descriptors run out: one to refuse with. */
	px->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return px;
}

static void
listener_free(struct listener *l)
{
	evconnlistener_free(l->evl);
	if (l->retry != NULL)
		event_free(l->retry);
	free(l);
}

static void
close_listeners(struct proxy *px)
{
	struct listener *l;

	while ((l = TAILQ_FIRST(&px->listeners)) != NULL) {
		TAILQ_REMOVE(&px->listeners, l, entry);
		listener_free(l);
	}
}

void
proxy_free(struct proxy *px)
{
	struct conn *c;

	if (px == NULL)
		return;
	close_listeners(px);
	while ((c = TAILQ_FIRST(&px->conns)) != NULL)
		conn_close(c);
	if (px->drain_timer != NULL)
		event_free(px->drain_timer);
	if (px->trim_timer != NULL)
		event_free(px->trim_timer);
	if (px->spare_fd != -1)
		(void)close(px->spare_fd);
	proxy_dns_udp_close(px);
	proxy_metrics_close(px);
	gen_release(px->gen);
	dns_fake_free(px->fake);
	free(px);
}

static void
accept_cb(struct evconnlistener *evl, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct listener *l = arg;

	conn_accept(l->px, fd, sa, salen);
}

static void
retry_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct listener *l = arg;

	if (!l->px->draining)
		evconnlistener_enable(l->evl);
}

/*
 * One client refused with no descriptor to serve it: a SOCKS5 greeting
 * already there is answered 05 FF (as over max_connections), anything
 * else the HTTP 503.  Its line is written first; its request is not read,
 * so the line names no target.
 */
static void
refuse_one(struct proxy *px, int fd)
{
	static const char full[] = "harn-egressd: refused: limit_exceeded "
	    "(out of file descriptors; try again later)\n";
	static const char nolog[] = "harn-egressd: refused: log_unavailable "
	    "(the decision log cannot take records)\n";
	enum egress_reason why = EGRESS_R_LIMIT_EXCEEDED;
	struct dlog_entry e = { .host = "", .reason = why };
	const struct conn_proto *p;
	char first[64], refusal[512];
	ssize_t got;
	int n;

	got = recv(fd, first, sizeof(first), MSG_PEEK | MSG_DONTWAIT);
	p = conn_proto_of(first, got > 0 ? (size_t)got : 0);
	e.proto = p->proto;
	if (dlog_decision(px->log, &e, px->gen->conf->log_failure_serve) == -1)
		why = EGRESS_R_LOG_UNAVAILABLE;
	n = p->refuse_unread(refusal, sizeof(refusal), why,
	    why == EGRESS_R_LIMIT_EXCEEDED ? full : nolog, first,
	    got > 0 ? (size_t)got : 0);
	if (n > 0 && (size_t)n < sizeof(refusal))
		(void)send(fd, refusal, (size_t)n, MSG_NOSIGNAL);
	(void)close(fd);
}

/*
 * Clients waiting in the accept queue while no descriptor is left: each
 * gets the spare descriptor's place for long enough to be refused and
 * closed, rather than wait there unanswered.  A few each time.
 */
static void
refuse_waiting(struct proxy *px, int lfd)
{
	int i, fd;

	for (i = 0; i < REFUSE_BATCH && px->spare_fd != -1; i++) {
		(void)close(px->spare_fd);
		px->spare_fd = -1;
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd != -1)
			refuse_one(px, fd);
		px->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd == -1)
			break;
	}
}

/*
 * Out of descriptors: the oldest connection without a head gives its
 * descriptor up (closed without a word, as conn_make_room says), and the
 * listener, still readable, accepts again in the next loop pass.  With
 * none to shed, the waiting clients are refused, and this listener
 * pauses briefly instead of spinning on a connection it cannot accept.
 */
static void
accept_error_cb(struct evconnlistener *evl, void *arg)
{
	struct listener *l = arg;
	struct timeval tv = ms_timeval(ACCEPT_RETRY_MS);
	struct conn *v;
	int e = EVUTIL_SOCKET_ERROR();

	if (e != EMFILE && e != ENFILE && e != ENOBUFS && e != ENOMEM)
		return;
	if (e == EMFILE && (v = TAILQ_FIRST(&l->px->headless)) != NULL) {
		conn_close(v);
		return;
	}
	proxy_say_out_of_fds(l->px);
	if (e == EMFILE || e == ENFILE)
		refuse_waiting(l->px, evconnlistener_get_fd(evl));
	/* Without a retry timer the listener stays on: spinning beats dead. */
	if (evtimer_add(l->retry, &tv) == 0)
		evconnlistener_disable(evl);
}

/* Remember where we listen, so a request can never loop back to us. */
static void
add_loop(struct proxy *px, const struct egress_addr *a, uint16_t port)
{
	if (px->nloop == sizeof(px->loop) / sizeof(px->loop[0]))
		return;
	px->loop[px->nloop].addr = *a;
	px->loop[px->nloop].port = port;
	px->nloop++;
}

/* Call fn on every local address (what a wildcard listener serves). */
static void
local_addrs(void (*fn)(const struct egress_addr *, void *), void *arg)
{
	struct ifaddrs *ifa, *i;
	struct egress_addr a;

	if (getifaddrs(&ifa) == -1)
		return;
	for (i = ifa; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr == NULL)
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			egress_addr_from_v4(&a, ntohl(((struct sockaddr_in *)
			    i->ifa_addr)->sin_addr.s_addr));
		else if (i->ifa_addr->sa_family == AF_INET6)
			egress_addr_from_v6(&a, ((struct sockaddr_in6 *)
			    i->ifa_addr)->sin6_addr.s6_addr);
		else
			continue;
		fn(&a, arg);
	}
	freeifaddrs(ifa);
}

static bool
is_wildcard(const struct egress_addr *a)
{
	struct egress_addr any4;

	egress_addr_from_v4(&any4, 0);
	return memcmp(a, &any4, sizeof(any4)) == 0 ||
	    memcmp(a, &(struct egress_addr){ { 0 } }, sizeof(*a)) == 0;
}

struct loop_add {
	struct proxy	*px;
	uint16_t	 port;
};

static void
loop_add_cb(const struct egress_addr *a, void *arg)
{
	struct loop_add *la = arg;

	add_loop(la->px, a, la->port);
}

/* A wildcard listener is reachable on every local address. */
static void
add_loop_wildcard(struct proxy *px, uint16_t port)
{
	struct loop_add la = { px, port };

	local_addrs(loop_add_cb, &la);
}

struct exempt_find {
	const struct egress_policy	*policy;
	const struct egress_rule	*rule;	/* the first exempting one */
	struct egress_addr		 addr;
};

static void
exempt_find_cb(const struct egress_addr *a, void *arg)
{
	struct exempt_find *ef = arg;

	if (ef->rule == NULL &&
	    (ef->rule = egress_policy_exempts(ef->policy, a)) != NULL)
		ef->addr = *a;
}

int
proxy_exempt_check(const struct conf *c, const struct conf_sockaddr *l,
    size_t n, char *err, size_t errlen)
{
	struct exempt_find ef = { c->policy, NULL, { { 0 } } };
	char rule[EGRESS_HOST_MAX + 16], a[EGRESS_ADDRSTR_MAX];
	size_t i;

	if (egress_policy_nexempts(c->policy) == 0)
		return 0;
	for (i = 0; i < n && ef.rule == NULL; i++) {
		if (is_wildcard(&l[i].addr))
			local_addrs(exempt_find_cb, &ef);
		else
			exempt_find_cb(&l[i].addr, &ef);
	}
	if (ef.rule == NULL)
		return 0;
	egress_rule_format(ef.rule, rule, sizeof(rule));
	egress_addr_format(&ef.addr, a, sizeof(a));
	snprintf(err, errlen, "%s:%u: exempt %s holds %s, where the proxy "
	    "listens: its own addresses cannot be exempted", c->source,
	    ef.rule->line, rule, a);
	return -1;
}

static uint16_t
bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/*
 * The accept queue: room for a burst of max_connections clients (or
 * listen_backlog), as far as net.core.somaxconn lets it; libevent's
 * default would be 128.
 */
static int
backlog(const struct proxy *px)
{
	const struct conf *c = px->gen->conf;
	long want = c->listen_backlog ? c->listen_backlog : c->max_connections,
	    max = 4096;
	FILE *f;

	if ((f = fopen("/proc/sys/net/core/somaxconn", "re")) != NULL) {
		if (fscanf(f, "%ld", &max) != 1 || max <= 0)
			max = 4096;
		(void)fclose(f);
	}
	if (want > max)
		want = max;
	return want < 16 ? 16 : (int)want;
}

void
proxy_set_owner(struct proxy *px, proxy_owner_fn fn, void *arg)
{
	px->owner = fn;
	px->owner_arg = arg;
}

void
proxy_set_decided(struct proxy *px, proxy_decided_fn fn, void *arg)
{
	px->decided = fn;
	px->decided_arg = arg;
}

int
proxy_listen_fd(struct proxy *px, int fd, const struct conf_sockaddr *as,
    char *err, size_t errlen)
{
	struct listener *l;
	int one = 1;

	if ((l = calloc(1, sizeof(*l))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Accepted sockets inherit it: no setsockopt per client. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	l->px = px;
	l->retry = evtimer_new(px->base, retry_cb, l);
	if (l->retry == NULL || evutil_make_socket_nonblocking(fd) == -1)
		goto fail;
	l->evl = evconnlistener_new(px->base, accept_cb, l,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, backlog(px), fd);
	if (l->evl == NULL)
		goto fail;
	evconnlistener_set_error_cb(l->evl, accept_error_cb);
	TAILQ_INSERT_TAIL(&px->listeners, l, entry);
	add_loop(px, &as->addr, as->port);
	if (is_wildcard(&as->addr))
		add_loop_wildcard(px, as->port);
	return 0;
fail:
	snprintf(err, errlen, "cannot serve listener: %s", strerror(errno));
	if (l->retry != NULL)
		event_free(l->retry);
	free(l);
	return -1;
}

int
proxy_listen(struct proxy *px, const struct conf_sockaddr *ca, char *bound,
    size_t boundlen, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct conf_sockaddr as = *ca;
	socklen_t len;
	int fd, one = 1;

	len = egress_addr_sockaddr(&ca->addr, ca->port, &ss);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1)
		goto fail;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1)
		goto fail;
	if (ss.ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
	    IPV6_V6ONLY, &one, sizeof(one)) == -1)
		goto fail;
	if (bind(fd, (struct sockaddr *)&ss, len) == -1 ||
	    listen(fd, 4096) == -1)
		goto fail;
	as.port = bound_port(fd);
	conf_sockaddr_format(&as, bound, boundlen);
	if (proxy_listen_fd(px, fd, &as, err, errlen) == -1) {
		close(fd);
		return -1;
	}
	return 0;
fail:
	conf_sockaddr_format(ca, bound, boundlen);
	snprintf(err, errlen, "listen %s: %s", bound, strerror(errno));
	if (fd != -1)
		close(fd);
	return -1;
}

const struct conf *
proxy_conf(const struct proxy *px)
{
	return px->gen->conf;
}

int
proxy_reload(struct proxy *px, struct conf *c, char *err, size_t errlen)
{
	struct conf_sockaddr own;
	struct gen *g;
	size_t i;

	for (i = 0; i < px->nloop; i++) {
		own.addr = px->loop[i].addr;
		own.port = px->loop[i].port;
		if (proxy_exempt_check(c, &own, 1, err, errlen) == -1)
			return -1;
	}
	if ((g = gen_new(px->base, c, err, errlen)) == NULL)
		return -1;
	gen_release(px->gen);
	px->gen = g;
	return 0;
}

static void
drain_finish(struct proxy *px)
{
	void (*done)(void *) = px->drain_done;

	px->drain_done = NULL;
	if (px->drain_timer != NULL)
		evtimer_del(px->drain_timer);
	if (done != NULL)
		done(px->drain_arg);
}

static void
drain_timeout_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct proxy *px = arg;
	struct conn *c, *next;

	for (c = TAILQ_FIRST(&px->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		conn_drain_refuse(c);	/* may free c */
	}
	while ((c = TAILQ_FIRST(&px->conns)) != NULL)
		conn_drain_close(c);
	drain_finish(px);
}

/* Called by conn.c when a connection goes away. */
/* conn.c: a connection is gone (for drain). */
static void
proxy_conn_gone(struct proxy *px)
{
	if (px->draining && px->nconns == 0 && px->drain_done != NULL)
		drain_finish(px);
}

void
proxy_drain(struct proxy *px, void (*done)(void *), void *arg)
{
	struct conn *c, *next;
	struct timeval tv = ms_timeval(px->gen->conf->drain_timeout);

	px->draining = true;
	close_listeners(px);
	for (c = TAILQ_FIRST(&px->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		conn_drain_start(c);
	}
	px->drain_done = done;
	px->drain_arg = arg;
	if (px->nconns == 0) {
		drain_finish(px);
		return;
	}
	px->drain_timer = evtimer_new(px->base, drain_timeout_cb, px);
	/* Without a timer, the drain cannot wait: it ends now. */
	if (px->drain_timer == NULL || evtimer_add(px->drain_timer, &tv) == -1)
		drain_timeout_cb(-1, 0, px);
}
