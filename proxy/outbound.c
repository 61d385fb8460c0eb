/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One outbound attempt (SPEC 3.3): judge the target, resolve a name once,
 * judge every address, then connect to the checked addresses in order,
 * all of them within one connect_timeout (SPEC 4 Limits: the whole phase,
 * not each address afresh).  Never a second resolution.
 */
#include <errno.h>
#include <poll.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proxy/internal.h"
#include "proxy/phase.h"

struct outbound {
	struct proxy		*px;
	struct gen		*gen;
	struct egress_target	 target;
	struct egress_verdict	 verdict;
	struct dns_query	*query;
	struct egress_addr	 addrs[DNS_MAX_ADDRS];
	size_t			 naddrs, next;
	int64_t			 phase_start;	/* first connect, ms; -1 none */
	int			 fd;
	struct event		*ev;		/* connect, or a deferred result */
	enum egress_reason	 last_failure;
	struct egress_addr	 reuse;		/* the caller's connection's */
	bool			 has_reuse;
	bool			 reused;	/* allowed: use the caller's */
	bool			 starting;	/* inside outbound_start */
	bool			 connected;	/* ob->fd is connected */
	double			 t_dns, t_connect;	/* started (metrics) */
	struct upstream_ask	*ask;		/* the parent asked (8.3) */
	bool			 by_name;	/* the parent resolves */
	outbound_cb		 cb;
	void			*arg;
};

static void	connect_next(struct outbound *);
static bool	ask_parent(struct outbound *);

static void
ob_free(struct outbound *ob)
{
	if (ob->query != NULL)
		dns_cancel(ob->query);
	upstream_ask_free(ob->ask);
	if (ob->ev != NULL)
		event_free(ob->ev);
	if (ob->fd != -1)
		close(ob->fd);
	gen_release(ob->gen);
	free(ob);
}

/*
 * Hand the result over and free: the callback may start anything.  The
 * address is the one connected, or for a deny the one it was decided on
 * (judged, or the last one tried), when there is one.
 */
static void
ob_finish(struct outbound *ob, enum egress_reason reason,
    const struct egress_addr *judged)
{
	struct outbound_result res = { .fd = ob->fd, .reason = reason,
	    .reuse = ob->reused };

	/* Let through by report mode: what enforcing would have said. */
	if (reason == EGRESS_R_REPORT_ONLY)
		res.would = ob->verdict.would;
	outbound_cb cb = ob->cb;
	void *arg = ob->arg;

	if (ob->reused)
		judged = &ob->reuse;
	else if (ob->fd != -1)
		judged = &ob->addrs[ob->next - 1];
	else if (judged == NULL && ob->next > 0 &&
	    (reason == EGRESS_R_CONNECT_FAILED ||
	    reason == EGRESS_R_CONNECT_TIMEOUT))
		judged = &ob->addrs[ob->next - 1];
	else if (judged == NULL && ob->target.is_addr &&
	    reason != EGRESS_R_INVALID_TARGET &&
	    reason != EGRESS_R_LIMIT_EXCEEDED)
		judged = &ob->target.addr;	/* an address literal's verdict */
	if (judged != NULL) {
		res.addr = *judged;
		res.has_addr = true;
	}
	ob->fd = -1;
	ob_free(ob);
	cb(&res, arg);
}

static void
deferred_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct outbound *ob = arg;

	if (!ob->connected && !ob->reused &&
	    ob->verdict.decision == EGRESS_ALLOW)
		connect_next(ob);
	else
		ob_finish(ob, ob->verdict.reason, NULL);
}

/*
 * Go on from the event loop, never from inside outbound_start: report a
 * verdict already known, or connect to an address literal.
 */
static int
ob_defer(struct outbound *ob)
{
	if (ob->ev != NULL)
		event_free(ob->ev);
	/*
	 * Made active, not a zero timer: it runs in this pass of the loop,
	 * after the current callback, with no poll of the kernel between.
	 */
	if ((ob->ev = event_new(ob->px->base, -1, 0, deferred_cb, ob)) == NULL)
		return -1;
	event_active(ob->ev, EV_TIMEOUT, 0);
	return 0;
}

static void
connect_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct outbound *ob = arg;
	socklen_t len = sizeof(int);
	int err = 0;

	if (ev & EV_TIMEOUT) {
		ob->last_failure = EGRESS_R_CONNECT_TIMEOUT;
	} else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1 ||
	    err != 0) {
		ob->last_failure = EGRESS_R_CONNECT_FAILED;
	} else {
		event_free(ob->ev);
		ob->ev = NULL;
		metrics_observe(&ob->px->metrics.connect, metrics_now() -
		    ob->t_connect);
		if (ob->gen->conf->has_upstream) {
			if (!ask_parent(ob))
				ob_finish(ob, EGRESS_R_CONNECT_FAILED, NULL);
			return;
		}
		ob_finish(ob, ob->verdict.reason, NULL);
		return;
	}
	close(ob->fd);
	ob->fd = -1;
	/* A parent that fails fails the request: no way around it. */
	if (ob->gen->conf->has_upstream)
		ob->next = ob->naddrs;
	connect_next(ob);
}

/*
 * A connect to a nearby peer (loopback above all) is often complete, or
 * refused, by the time connect() returns: one poll then spares a trip
 * through the loop.  1 connected, 0 not yet, -1 failed.
 */
static int
connect_state(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	if (poll(&p, 1, 0) != 1)
		return 0;
	if (p.revents & (POLLERR | POLLHUP))
		return -1;
	return (p.revents & POLLOUT) ? 1 : 0;
}

/*
 * Where the next attempt goes: the next checked address, or through the
 * parent (SPEC 8.3), which is asked for it once connected.
 */
static socklen_t
next_sockaddr(struct outbound *ob, struct sockaddr_storage *ss)
{
	const struct conf *c = ob->gen->conf;
	const struct egress_addr *a = &ob->addrs[ob->next++];

	if (c->has_upstream) {
		/* One parent, one try: never a way around it. */
		ob->naddrs = ob->next;
		return egress_addr_sockaddr(&c->upstream.addr,
		    c->upstream.port, ss);
	}
	return egress_addr_sockaddr(a, ob->target.port, ss);
}

/* The parent's answer: the tunnel, or the request's failure. */
static void
asked(enum egress_reason r, void *arg)
{
	struct outbound *ob = arg;

	ob->ask = NULL;
	if (r == EGRESS_R_NONE) {
		ob->connected = true;
		ob_finish(ob, ob->verdict.reason, NULL);
		return;
	}
	close(ob->fd);
	ob->fd = -1;
	ob->verdict.decision = EGRESS_DENY;
	ob_finish(ob, r, NULL);
}

/* Ask the parent, connected, for the checked address (or the name). */
static bool
ask_parent(struct outbound *ob)
{
	const struct egress_addr *a = &ob->addrs[ob->next - 1];
	char host[EGRESS_HOST_MAX + 1];
	uint64_t left;
	bool v6 = false;

	if (ob->by_name)
		snprintf(host, sizeof(host), "%s", ob->target.host);
	else {
		egress_addr_format(a, host, sizeof(host));
		v6 = !egress_addr_is_v4(a);
	}
	/* What is left of the connect phase's budget (SPEC 4). */
	left = phase_left_ms(ob->phase_start, (int64_t)mono_ms(),
	    ob->gen->conf->connect_timeout);
	ob->ask = upstream_ask(ob->px->base, ob->fd, host, ob->target.port,
	    v6, left > 0 ? (uint32_t)left : 1, asked, ob);
	return ob->ask != NULL;
}

/*
 * Connected at once: done, or (a parent) asked, which answers later
 * (true).  A parent that cannot be asked fails the request.
 */
static bool
connected_now(struct outbound *ob)
{
	metrics_observe(&ob->px->metrics.connect, metrics_now() -
	    ob->t_connect);
	if (!ob->gen->conf->has_upstream) {
		ob->connected = true;
		return false;
	}
	if (ask_parent(ob))
		return true;
	ob->last_failure = EGRESS_R_CONNECT_FAILED;
	close(ob->fd);
	ob->fd = -1;
	return false;
}

/*
 * Try the next checked address until one connects or is waited on;
 * report when one connected at once or none is left.
 */
static void
connect_next(struct outbound *ob)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct timeval tv;
	uint64_t left;
	int one = 1, state;

	if (ob->t_connect == 0)
		ob->t_connect = metrics_now();
	if (ob->phase_start == -1)
		ob->phase_start = (int64_t)mono_ms();
	while (ob->next < ob->naddrs) {
		left = phase_left_ms(ob->phase_start, (int64_t)mono_ms(),
		    ob->gen->conf->connect_timeout);
		if (left == 0) {
			/* The phase's budget is spent: no address is tried. */
			ob->last_failure = EGRESS_R_CONNECT_TIMEOUT;
			break;
		}
		tv = ms_timeval(left);
		len = next_sockaddr(ob, &ss);
		ob->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, IPPROTO_TCP);
		if (ob->fd == -1 && (errno == EMFILE || errno == ENFILE ||
		    errno == ENOBUFS || errno == ENOMEM)) {
			/* Ours, not the origin's: no other address helps. */
			proxy_say_out_of_fds(ob->px);
			ob->last_failure = EGRESS_R_LIMIT_EXCEEDED;
			break;
		}
		if (ob->fd == -1) {
			ob->last_failure = EGRESS_R_CONNECT_FAILED;
			continue;
		}
		(void)setsockopt(ob->fd, IPPROTO_TCP, TCP_NODELAY, &one,
		    sizeof(one));
		if ((connect(ob->fd, (struct sockaddr *)&ss, len) == -1 &&
		    errno != EINPROGRESS) || (state = connect_state(ob->fd)) ==
		    -1) {
			ob->last_failure = EGRESS_R_CONNECT_FAILED;
			close(ob->fd);
			ob->fd = -1;
			continue;
		}
		if (state == 1) {
			if (connected_now(ob))
				return;		/* the parent is asked */
			break;
		}
		if (ob->ev != NULL)
			event_free(ob->ev);
		ob->ev = event_new(ob->px->base, ob->fd, EV_WRITE, connect_cb,
		    ob);
		if (ob->ev == NULL || event_add(ob->ev, &tv) == -1) {
			ob->last_failure = EGRESS_R_CONNECT_FAILED;
			close(ob->fd);
			ob->fd = -1;
			continue;
		}
		return;
	}
	if (!ob->connected) {
		ob->verdict.decision = EGRESS_DENY;
		ob->verdict.reason = ob->last_failure;
	}
	if (ob->starting) {
		/* Never call back from inside outbound_start. */
		if (ob_defer(ob) == -1)
			ob->verdict.reason = EGRESS_R_NONE;
		return;
	}
	ob_finish(ob, ob->verdict.reason, NULL);
}

/*
 * The caller's connection goes to one of the addresses this decision
 * checked: it may be used instead of a new one.
 */
static bool
reusable(struct outbound *ob)
{
	size_t i;

	for (i = 0; ob->has_reuse && i < ob->naddrs; i++)
		if (memcmp(&ob->addrs[i], &ob->reuse, sizeof(ob->reuse)) == 0)
			return ob->reused = true;
	return false;
}

static void
resolved(enum dns_status st, const struct egress_addr *addrs, size_t n,
    void *arg)
{
	struct outbound *ob = arg;
	struct egress_verdict v;

	ob->query = NULL;
	metrics_observe(&ob->px->metrics.dns, metrics_now() - ob->t_dns);
	if (st != DNS_OK)
		n = 0;
	egress_judge_addrs(ob->gen->conf->policy, &ob->target, &ob->verdict,
	    addrs, n, ob->px->loop, ob->px->nloop, &v);
	if (v.decision != EGRESS_ALLOW) {
		/* Decided on one of the addresses, or on none (DNS). */
		ob_finish(ob, v.reason, v.addr_index < n ?
		    &addrs[v.addr_index] : NULL);
		return;
	}
	ob->verdict = v;
	memcpy(ob->addrs, addrs, n * sizeof(addrs[0]));
	ob->naddrs = n;
	if (reusable(ob)) {
		ob_finish(ob, v.reason, NULL);
		return;
	}
	connect_next(ob);
}

static struct outbound *
ob_new(struct proxy *px, struct gen *gen, const struct egress_target *t,
    outbound_cb cb, void *arg)
{
	struct outbound *ob;

	if ((ob = calloc(1, sizeof(*ob))) == NULL)
		return NULL;
	ob->px = px;
	ob->gen = gen_hold(gen);
	ob->target = *t;
	ob->fd = -1;
	ob->phase_start = -1;
	ob->cb = cb;
	ob->arg = arg;
	ob->last_failure = EGRESS_R_CONNECT_FAILED;
	return ob;
}

/* Connect to addrs[0], now: never calling back from in here. */
static struct outbound *
ob_connect_first(struct outbound *ob)
{
	ob->naddrs = 1;
	ob->starting = true;
	connect_next(ob);
	ob->starting = false;
	if (ob->verdict.reason == EGRESS_R_NONE) {
		ob_free(ob);
		return NULL;
	}
	return ob;
}

struct outbound *
outbound_start(struct proxy *px, struct gen *gen,
    const struct egress_target *t, const struct egress_addr *reuse,
    outbound_cb cb, void *arg)
{
	struct outbound *ob;

	if ((ob = ob_new(px, gen, t, cb, arg)) == NULL)
		return NULL;
	if (reuse != NULL) {
		ob->reuse = *reuse;
		ob->has_reuse = true;
	}
	egress_judge_target(gen->conf->policy, t, px->loop, px->nloop,
	    &ob->verdict);
	if (ob->verdict.decision == EGRESS_ALLOW) {
		/* An address literal: connect at once, or reuse. */
		ob->addrs[0] = t->addr;
		ob->naddrs = 1;
		if (!reusable(ob))
			return ob_connect_first(ob);
	} else if (ob->verdict.decision == EGRESS_RESOLVE &&
	    gen->conf->has_upstream && gen->conf->upstream_parent) {
		/* The parent resolves: the name's own rules decide (8.3). */
		egress_judge_parent(gen->conf->policy, &ob->verdict,
		    &ob->verdict);
		if (ob->verdict.decision == EGRESS_ALLOW) {
			ob->by_name = true;
			ob->addrs[0] = gen->conf->upstream.addr;
			return ob_connect_first(ob);
		}
	} else if (ob->verdict.decision == EGRESS_RESOLVE &&
	    dns_busy(gen->dns)) {
		/* Outstanding lookups are capped (SPEC 4 Limits). */
		ob->verdict.decision = EGRESS_DENY;
		ob->verdict.reason = EGRESS_R_LIMIT_EXCEEDED;
	} else if (ob->verdict.decision == EGRESS_RESOLVE) {
		ob->t_dns = metrics_now();
		ob->query = dns_resolve(gen->dns, t->host, resolved, ob);
		if (ob->query != NULL)
			return ob;
		ob->verdict.decision = EGRESS_DENY;
		ob->verdict.reason = EGRESS_R_DNS_FAILURE;
	}
	if (ob_defer(ob) == -1) {
		ob_free(ob);
		return NULL;
	}
	return ob;
}

struct outbound *
outbound_connect(struct proxy *px, struct gen *gen,
    const struct egress_target *t, const struct egress_addr *checked,
    enum egress_reason reason, outbound_cb cb, void *arg)
{
	struct outbound *ob;

	if ((ob = ob_new(px, gen, t, cb, arg)) == NULL)
		return NULL;
	ob->verdict.decision = EGRESS_ALLOW;
	ob->verdict.reason = reason;
	ob->addrs[0] = *checked;
	return ob_connect_first(ob);
}

bool
outbound_trying(const struct outbound *ob, struct egress_addr *addr)
{
	if (ob == NULL || ob->fd == -1 || ob->next == 0)
		return false;
	*addr = ob->addrs[ob->next - 1];
	return true;
}

void
outbound_cancel(struct outbound *ob)
{
	if (ob != NULL)
		ob_free(ob);
}
