/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A connect carried through the proxy for a caller that does not wait
 * (SPEC 6.6): answered EINPROGRESS at once, its socket unwritable until
 * the proxy has decided, then writable: a tunnel (SO_ERROR 0), or a
 * refused connect (ECONNREFUSED), as a real connect would be.
 *
 * The socket is the command's from the answer on, so nothing may come on
 * it that is not the origin's: the proxy, asked with SOCKS5's method
 * X'8A', answers the method alone and tells its decision to harn-egressd,
 * which tells it here (struct held_decision, by the socket's own address
 * and port).  Until then the socket holds one byte of ours it may not
 * send (TCP_CORK), and with TCP_NOTSENT_LOWAT at 1 a socket with a byte
 * unsent is not writable.  Allowed: uncorked, the byte goes (the proxy
 * drops it) and the socket is writable.  Refused: the proxy resets its
 * end, which makes the socket writable, in error and hung up at once, as
 * a refused connect is, but leaves ECONNRESET on it: SO_ERROR of a
 * refused socket is therefore the broker's (broker_so_error,
 * ECONNREFUSED).  A refusal before the hold was made is the kernel's own
 * (a connect to a loopback port of ours nobody listens on), and still
 * answered EINPROGRESS, as any connect to another host is.
 *
 * Limits, said in harn-egressd(8): the kernel sends a corked byte after
 * about 200 ms (and at once when the program sets TCP_NODELAY), so a
 * slower decision finds the socket writable before it (SO_ERROR 0);
 * what the program writes waits in the proxy, and a refusal then resets
 * the connection (ECONNRESET from the next read or write).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <event2/event.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

/* The proxy decides within its own timeouts; this bounds a lost word. */
#define HOLD_WAIT_S	300
#define EARLY_S		2	/* a word kept for a hold not made yet */

struct hold {
	TAILQ_ENTRY(hold)	 entry;
	struct broker		*b;
	int			 sock;		/* ours, the command's too */
	uint32_t		 addr;		/* its own, network order */
	uint16_t		 port;
	int			 cork, lowat;	/* as they were */
	struct event		*timer;
};

static void	decided_cb(evutil_socket_t, short, void *);

static void
hold_free(struct hold *h)
{
	TAILQ_REMOVE(&h->b->holds, h, entry);
	h->b->nholds--;
	if (h->timer != NULL)
		event_free(h->timer);
	if (h->sock != -1)
		(void)close(h->sock);
	free(h);
}

/*
 * A refused socket, kept until the command asks its SO_ERROR: the
 * proxy's reset left ECONNRESET on it (or, refused by the broker itself,
 * the socket let go of the proxy for a moment first); the broker answers
 * ECONNREFUSED instead.  The oldest make way (theirs is then the
 * kernel's word).
 */
static bool
keep_refused(struct broker *b, int sock)
{
	struct stat st;
	size_t k = b->held_refused_next;

	if (fstat(sock, &st) == -1) {
		(void)close(sock);
		return false;
	}
	if (b->held_refused[k].ino != 0)
		(void)close(b->held_refused[k].ref);
	else
		b->nheld_refused++;
	b->held_refused[k].ino = (unsigned long)st.st_ino;
	b->held_refused[k].ref = sock;
	b->held_refused_next = (k + 1) % REFUSED_MAX;
	return true;
}

static void
refused_drop(struct broker *b, size_t k)
{
	(void)close(b->held_refused[k].ref);
	b->held_refused[k].ino = 0;
	b->nheld_refused--;
}

/* getsockopt(fd, SOL_SOCKET, SO_ERROR, val, len), len an int. */
static int
say_refused(struct broker *b, const struct seccomp_notif *req)
{
	struct caller *who = broker_caller_of(b, (pid_t)req->pid);
	int val = ECONNREFUSED, len, err;

	if ((err = broker_read_mem(b, who, req->data.args[4], &len,
	    sizeof(len))) != 0)
		return err;
	if (len < 0)
		return EINVAL;
	if (len > (int)sizeof(val))
		len = (int)sizeof(val);
	if ((len > 0 && (err = broker_write_mem(b, who, req->data.args[3],
	    &val, (size_t)len)) != 0) || (err = broker_write_mem(b, who,
	    req->data.args[4], &len, sizeof(len))) != 0)
		return err;
	return 0;
}

void
broker_so_error(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *c __attribute__((unused)))
{
	unsigned long ino;
	char proto[32];
	int flags, err, e;
	socklen_t elen = sizeof(e);
	bool cloexec;
	size_t k;

	/* The proxy's word comes before its reset: read it first. */
	if (b->decided_ev != NULL && b->nholds > 0)
		decided_cb(b->decided, EV_READ, b);
	if (b->nheld_refused == 0 || broker_describe((pid_t)req->pid,
	    (int)req->data.args[0], &ino, &flags, &cloexec, proto,
	    sizeof(proto)) != 0 || strncmp(proto, "TCP", 3) != 0) {
		broker_proceed(b, req->id);
		return;
	}
	for (k = 0; k < REFUSED_MAX; k++)
		if (b->held_refused[k].ino == ino)
			break;
	if (k == REFUSED_MAX) {
		broker_proceed(b, req->id);
		return;
	}
	if ((err = say_refused(b, req)) == 0) {
		/* Said once, as the kernel's error is read once. */
		(void)getsockopt(b->held_refused[k].ref, SOL_SOCKET, SO_ERROR, &e,
		    &elen);
		refused_drop(b, k);
	}
	(void)broker_respond(b, req->id, err);
}

/* Allowed: the byte goes, the socket is writable, as it was set. */
static void
allow(struct hold *h)
{
	int off = 0;

	(void)setsockopt(h->sock, IPPROTO_TCP, TCP_CORK, &off, sizeof(off));
	if (h->cork)
		(void)setsockopt(h->sock, IPPROTO_TCP, TCP_CORK, &h->cork,
		    sizeof(h->cork));
	(void)setsockopt(h->sock, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &h->lowat,
	    sizeof(h->lowat));
}

/*
 * A connect the kernel refuses, on sock (not connected, or let go of
 * here): to our port nobody listens on, without waiting (a blocking
 * connect would take the error itself).  Its ECONNREFUSED waits on the
 * socket, which is writable, in error and hung up, as a refused one is.
 */
static void
kernel_refuses(struct broker *b, int sock)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct sockaddr_storage to;
	socklen_t tolen, len = sizeof(int);
	int fl, family;

	(void)connect(sock, &unspec, sizeof(unspec));
	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &family, &len) == -1 ||
	    tproxy_proxy_addr(family, b->unheard_port, &to, &tolen) != 0)
		return;
	fl = fcntl(sock, F_GETFL);
	if (fl != -1 && !(fl & O_NONBLOCK))
		(void)fcntl(sock, F_SETFL, fl | O_NONBLOCK);
	(void)connect(sock, (struct sockaddr *)&to, tolen);
	if (fl != -1 && !(fl & O_NONBLOCK))
		(void)fcntl(sock, F_SETFL, fl);
}

/*
 * Refused.  The proxy, having said so here, resets its end: the kernel
 * makes the socket writable, in error and hung up at once, as a refused
 * connect is, though with ECONNRESET; so SO_ERROR is the broker's (and
 * broker_so_error reads the proxy's words before it answers).  With no
 * word in time (a proxy gone), the broker refuses it itself, known
 * refused first (whatever wakes the caller, SO_ERROR says so).
 */
static void
refuse(struct hold *h, bool by_proxy)
{
	int sock = h->sock;

	h->sock = -1;
	broker_peer_forget(h->b, sock);
	if (!keep_refused(h->b, sock) || by_proxy)
		return;
	(void)setsockopt(sock, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &h->lowat,
	    sizeof(h->lowat));
	kernel_refuses(h->b, sock);
	(void)setsockopt(sock, IPPROTO_TCP, TCP_CORK, &h->cork,
	    sizeof(h->cork));
}

static void
timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct hold *h = arg;

	refuse(h, false);
	hold_free(h);
}

static struct hold *
hold_of(struct broker *b, uint32_t addr, uint16_t port)
{
	struct hold *h;

	TAILQ_FOREACH(h, &b->holds, entry)
		if (h->addr == addr && h->port == port)
			return h;
	return NULL;
}

static void
decide(struct hold *h, int err)
{
	if (err == 0)
		allow(h);
	else
		refuse(h, true);
	hold_free(h);
}

/*
 * The proxy tells its decision right after the method it answered, so
 * the word can be read before the method is and the hold made: kept a
 * little while for it.
 */
static void
keep_early(struct broker *b, const struct held_decision *d)
{
	struct held_early *e = &b->early[b->early_next];

	b->early_next = (b->early_next + 1) % EARLY_MAX;
	e->d = *d;
	(void)clock_gettime(CLOCK_MONOTONIC, &e->at);
}

/* The word kept for this hold, taken; -1: none (a stale one is not). */
static int
take_early(struct broker *b, const struct hold *h)
{
	struct timespec now;
	struct held_early *e;
	size_t i;

	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	for (i = 0; i < EARLY_MAX; i++) {
		e = &b->early[i];
		/* Port 0: an empty entry (no connection has it). */
		if (e->d.port == 0 || e->d.addr != h->addr ||
		    e->d.port != h->port)
			continue;
		e->d.port = 0;
		if (now.tv_sec - e->at.tv_sec <= EARLY_S)
			return e->d.err;
	}
	return -1;
}

static void
decided_cb(evutil_socket_t fd, short what, void *arg)
{
	struct broker *b = arg;
	struct held_decision d;
	struct hold *h;
	ssize_t n;

	while ((n = recv(fd, &d, sizeof(d), MSG_DONTWAIT)) > 0) {
		if ((size_t)n != sizeof(d))
			continue;
		if ((h = hold_of(b, d.addr, d.port)) != NULL)
			decide(h, d.err);
		else
			keep_early(b, &d);
	}
	/* harn-egressd gone: no word will come; each waits its time. */
	if (n == 0) {
		event_free(b->decided_ev);
		b->decided_ev = NULL;
	}
}

/* The socket's own IPv4 address and port (v4-mapped for IPv6). */
static int
own_end(int sock, uint32_t *addr, uint16_t *port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (void *)&ss;
	struct sockaddr_in6 *sin6 = (void *)&ss;
	socklen_t len = sizeof(ss);

	if (getsockname(sock, (struct sockaddr *)&ss, &len) == -1)
		return errno;
	if (ss.ss_family == AF_INET) {
		*addr = sin->sin_addr.s_addr;
		*port = sin->sin_port;
		return 0;
	}
	if (ss.ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
		return EAFNOSUPPORT;
	memcpy(addr, &sin6->sin6_addr.s6_addr[12], 4);
	*port = sin6->sin6_port;
	return 0;
}

/* Not writable from here on: a byte kept unsent (see above). */
static int
hold_back(struct hold *h)
{
	socklen_t len = sizeof(int);
	int one = 1, err;

	if (getsockopt(h->sock, IPPROTO_TCP, TCP_CORK, &h->cork, &len) == -1 ||
	    getsockopt(h->sock, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &h->lowat,
	    &len) == -1 ||
	    setsockopt(h->sock, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &one,
	    sizeof(one)) == -1 ||
	    setsockopt(h->sock, IPPROTO_TCP, TCP_CORK, &one, sizeof(one)) == -1)
		return errno;
	if (send(h->sock, "", 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
		return 0;
	/* Reset already (a refusal that fast): left as it was set. */
	err = errno != 0 ? errno : EIO;
	(void)setsockopt(h->sock, IPPROTO_TCP, TCP_CORK, &h->cork,
	    sizeof(h->cork));
	(void)setsockopt(h->sock, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &h->lowat,
	    sizeof(h->lowat));
	return err;
}

bool
broker_may_hold(const struct pending *p)
{
	return p->b->decided_ev != NULL && p->tp != NULL && !p->dns &&
	    (p->flags & O_NONBLOCK) && p->b->nholds < HOLDS_MAX;
}

/* The proxy holds its decision: so does p's socket, until told.  */
int
broker_hold(struct pending *p)
{
	struct timeval tv = { HOLD_WAIT_S, 0 };
	struct hold *h;
	int err;

	if ((h = calloc(1, sizeof(*h))) == NULL)
		return ENOMEM;
	h->b = p->b;
	if ((h->sock = fcntl(p->sock, F_DUPFD_CLOEXEC, 3)) == -1) {
		free(h);
		return errno;
	}
	TAILQ_INSERT_TAIL(&p->b->holds, h, entry);
	p->b->nholds++;
	if ((err = own_end(h->sock, &h->addr, &h->port)) != 0 ||
	    (err = hold_back(h)) != 0) {
		hold_free(h);
		return err;
	}
	if ((h->timer = evtimer_new(p->b->base, timer_cb, h)) == NULL ||
	    evtimer_add(h->timer, &tv) == -1) {
		hold_free(h);
		return ENOMEM;
	}
	if ((err = take_early(p->b, h)) != -1)
		decide(h, err);
	return 0;
}

/*
 * Refused before it could be held (the proxy that fast, or not holding):
 * answered EINPROGRESS all the same, as a connect to another host is,
 * the kernel's refusal waiting on the socket.  0, or an errno.
 */
int
broker_hold_refused(struct pending *p)
{
	if (p->b->unheard == -1)
		return EOPNOTSUPP;
	kernel_refuses(p->b, p->sock);
	return 0;
}

/*
 * Our loopback port nobody listens on (bound, never listening: no other
 * socket may take it), and harn-egressd's word.  No word: nothing held.
 */
int
broker_hold_init(struct broker *b)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);

	if (b->decided == -1 || !b->transparent)
		return 0;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((b->unheard = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) ==
	    -1 || bind(b->unheard, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    getsockname(b->unheard, (struct sockaddr *)&sin, &len) == -1)
		return -1;
	b->unheard_port = ntohs(sin.sin_port);
	b->decided_ev = event_new(b->base, b->decided, EV_READ | EV_PERSIST,
	    decided_cb, b);
	if (b->decided_ev == NULL || event_add(b->decided_ev, NULL) == -1)
		return -1;
	return 0;
}

void
broker_hold_free(struct broker *b)
{
	while (!TAILQ_EMPTY(&b->holds))
		hold_free(TAILQ_FIRST(&b->holds));
	if (b->decided_ev != NULL)
		event_free(b->decided_ev);
	b->decided_ev = NULL;
	if (b->decided != -1)
		(void)close(b->decided);
	if (b->unheard != -1)
		(void)close(b->unheard);
	b->decided = b->unheard = -1;
	for (size_t k = 0; k < REFUSED_MAX; k++)
		if (b->held_refused[k].ino != 0)
			refused_drop(b, k);
}
