/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client connection: accepted, sniffed (0x05 first: SOCKS5, otherwise
 * HTTP), served by its protocol, and closed.  conn_enter is the one place
 * a state is entered: with it go the client's callbacks, watermarks and
 * header timer.  While a request is read the connection lives in a
 * bufferevent; a tunnel takes the bare sockets.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy/internal.h"
#include "proxy/shed.h"
#include "proxy/socksmsg.h"

#define LIMIT_RECHECKS	5	/* 0, 1, 2, 4, 8 ms: 15 ms at most */
#define SHED_LOOK	8	/* candidates looked at for one to shed */

static void	sniff_cb(struct bufferevent *, void *);
static void	recheck_cb(evutil_socket_t, short, void *);
static void	event_cb(struct bufferevent *, short, void *);
static void	flushed_cb(struct bufferevent *, void *);
static void	inactive(struct conn *);
static void	conn_make_room(struct conn *, long);

/*
 * px->headless: connections without a complete head, in the order they
 * began waiting for one (accept, or a kept-alive one's last response):
 * the first is shed first (conn_make_room).
 */
static void
headless_leave(struct conn *c)
{
	if (c->headless) {
		TAILQ_REMOVE(&c->px->headless, c, hl_entry);
		c->headless = false;
	}
}

static void
headless_join(struct conn *c)
{
	headless_leave(c);
	TAILQ_INSERT_TAIL(&c->px->headless, c, hl_entry);
	c->headless = true;
}

/*
 * A connection that said nothing at all is closed without a word, as is a
 * kept-alive one that began no new request, and one that would not read
 * its refusal.  A request under way is refused as its protocol says.
 */
static void
head_timeout_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct conn *c = arg;

	if (c->state == CONN_REQUEST)
		c->p->timeout(c);
	else
		conn_close(c);
}

/*
 * Bytes queued on a bufferevent go out at once, as far as the socket takes
 * them; only a rest makes it wait for writability.  A connection's replies
 * and most responses fit the socket: no trip through the loop, and no
 * epoll change to ask for one.  The bufferevent's own writing (EV_WRITE)
 * is off but for such a rest, and off again once it is written.
 * -1 when the socket failed.
 */
int
bev_write_now(struct bufferevent *bev)
{
	struct evbuffer *out = bufferevent_get_output(bev);
	int n = 0;

	/*
	 * A bufferevent keeps the start of its output frozen against
	 * everyone but itself, and thaws it for its own writes: so here.
	 */
	if (evbuffer_get_length(out) > 0) {
		if (evbuffer_unfreeze(out, 1) == -1)
			return -1;
		n = evbuffer_write(out, bufferevent_getfd(bev));
		if (evbuffer_freeze(out, 1) == -1 || (n == -1 &&
		    errno != EAGAIN && errno != EINTR))
			return -1;
	}
	if (evbuffer_get_length(out) == 0)
		return bufferevent_disable(bev, EV_WRITE);
	return bufferevent_enable(bev, EV_WRITE);
}

/* Run mode: the confined process at the other end, when it is known. */
static void
conn_owner(struct conn *c)
{
	char exe[256];
	enum proxy_via via = PROXY_VIA_CLIENT;
	pid_t pid;

	if (c->px->owner == NULL || c->px->owner(c->px->owner_arg, c->fd,
	    &pid, exe, sizeof(exe), &via) == -1 || pid <= 0)
		return;
	c->pid = pid;
	c->via = via;
	if (exe[0] != '\0')
		c->exe = strdup(exe);	/* none: the line says pid alone */
}

void
conn_accept(struct proxy *px, evutil_socket_t fd, struct sockaddr *sa,
    int salen)
{
	struct conn *c;

	if (px->draining || (c = calloc(1, sizeof(*c))) == NULL) {
		close(fd);
		return;
	}
	c->px = px;	/* TCP_NODELAY: inherited from the listener */
	c->fd = fd;
	c->held_fd = -1;
	c->gen = gen_hold(px->gen);
	conn_owner(c);
	TAILQ_INSERT_TAIL(&px->conns, c, entry);
	/* The lowest free descriptor with none open: what the rest holds. */
	if (px->nconns++ == 0)
		px->fd_base = fd;
	proxy_mem_note(px);
	c->active = true;
	px->nactive++;
	c->bev = bufferevent_socket_new(px->base, fd, 0);
	c->head_timer = evtimer_new(px->base, head_timeout_cb, c);
	if (c->bev == NULL || c->head_timer == NULL ||
	    bufferevent_disable(c->bev, EV_WRITE) == -1 ||
	    conn_enter(c, CONN_SNIFF) == -1) {
		conn_close(c);
		return;
	}
	/*
	 * Counted from now, sent a byte or not: at the limit, or short of
	 * descriptors, the oldest connection without a head makes room.
	 * With none to shed, this one is refused at its first byte.
	 */
	conn_make_room(c, fd);
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
 *
 * c, just accepted (fd: the descriptor it took) or at its first byte
 * (-1): close connections without a head, oldest first, while slots or
 * descriptors are short.  Sets c->over_limit when it still has no slot.
 */
static void
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
		need = shed_need(&l) & ~SHED_NONE_LEFT;
		/* Asked again: enough left for c's request now? */
		if ((need & SHED_FDS) && fd != -1 && !fd_left(fd))
			need |= SHED_NONE_LEFT;
	}
	/*
	 * Took the last descriptors, none to shed: no request of its could
	 * be served; refused at its first byte, as over the limit.
	 */
	if (need & SHED_NONE_LEFT)
		c->fds_gone = true;
	c->over_limit = (need & SHED_SLOT) != 0 || c->fds_gone;
}

/*
 * Found over the limit at accept, with nothing to shed: looked at again
 * at the first byte (a connection may have lost its head since, or
 * closed).  A client that closed one connection and opened the next may
 * still be counted twice: its EOF can wait in the same loop pass, or
 * arrive while the loop works.  So an over-limit verdict is looked at
 * again a few times over a few milliseconds (a timer runs after the I/O
 * that woke the loop with it) before the client is refused.
 * Returns true when the client is to wait for recheck_cb.
 */
static bool
limit_wait(struct conn *c)
{
	struct timeval tv = { 0, 0 };

	if (c->rechecks > 0)
		tv.tv_usec = 1000 << (c->rechecks - 1);

	if (!c->over_limit)
		return false;
	conn_make_room(c, -1);
	if (!c->over_limit || c->rechecks == LIMIT_RECHECKS)
		return false;
	if (c->recheck == NULL &&
	    (c->recheck = evtimer_new(c->px->base, recheck_cb, c)) == NULL)
		return false;	/* refused at once, then */
	if (bufferevent_disable(c->bev, EV_READ) == -1 ||
	    evtimer_add(c->recheck, &tv) == -1)
		return false;
	c->rechecks++;
	return true;
}

/* The protocols of the one port, in the order they are asked. */
static const struct conn_proto *const protos[] = {
	&socks_proto,
	&http_proto,		/* last: claims what no other did */
};

const struct conn_proto *
conn_proto_of(const void *first, size_t got)
{
	const unsigned char *b = first;
	size_t i;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]) - 1; i++)
		if (got > 0 && protos[i]->claims(b[0]))
			return protos[i];
	return protos[i];
}

/* What the first read brought is a whole head (a SOCKS5 greeting). */
static bool
head_whole(const struct conn *c, struct evbuffer *in)
{
	uint8_t b[SOCKSMSG_GREETING_MAX];
	ev_ssize_t n;
	size_t used;

	if (c->p == &http_proto)
		return evbuffer_search(in, "\r\n\r\n", 4, NULL).pos != -1;
	if (c->p != &socks_proto)
		return false;
	n = evbuffer_copyout(in, b, sizeof(b));
	return n > 0 && socksmsg_greeting(b, (size_t)n, &used) != SOCKSMSG_MORE;
}

/*
 * Over max_connections with nothing to shed: answered at once and closed,
 * from what its first read brought, never read on (so no number of
 * over-limit clients is buffered, and none holds a descriptor until
 * header_timeout).  A head already whole (an HTTP head, a SOCKS5
 * greeting) goes to its protocol, which refuses it at once and logs what
 * it asked; otherwise the line names no target, as for a client refused
 * out of descriptors.
 * true when the protocol is to read (and refuse) it.
 */
static bool
refuse_over_limit(struct conn *c)
{
	static const char full[] = "harn-egressd: refused: limit_exceeded "
	    "(max_connections reached; try again later)\n";
	static const char nofd[] = "harn-egressd: refused: limit_exceeded "
	    "(out of file descriptors; try again later)\n";
	static const char nolog[] = "harn-egressd: refused: log_unavailable "
	    "(the decision log cannot take records)\n";
	struct evbuffer *in = bufferevent_get_input(c->bev);
	enum egress_reason why = EGRESS_R_LIMIT_EXCEEDED;
	char first[64], out[512];
	ev_ssize_t got;
	int n;

	inactive(c);
	if (c->fds_gone)
		proxy_say_out_of_fds(c->px);
	if (head_whole(c, in))
		return true;
	if (c->p->refuse_unread == NULL) {
		conn_close(c);
		return false;
	}
	if ((got = evbuffer_copyout(in, first, sizeof(first))) < 0)
		got = 0;
	if (conn_log(c, false, why, NULL) == -1)
		why = EGRESS_R_LOG_UNAVAILABLE;
	n = c->p->refuse_unread(out, sizeof(out), why,
	    why != EGRESS_R_LIMIT_EXCEEDED ? nolog : c->fds_gone ? nofd : full,
	    first, (size_t)got);
	if (n > 0 && (size_t)n < sizeof(out))
		(void)send(c->fd, out, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	conn_close(c);
	return false;
}

/* The first byte is in: the protocol it names reads the request. */
static void
sniff_start(struct conn *c)
{
	unsigned char first;

	if (evbuffer_copyout(bufferevent_get_input(c->bev), &first, 1) != 1)
		return;
	if (limit_wait(c))
		return;
	/* The broker asks in SOCKS5 for a program's own connect (6.6). */
	c->p = c->via == PROXY_VIA_DNS ? &dns_proto : conn_proto_of(&first, 1);
	c->proto = c->p->proto;
	if (c->via == PROXY_VIA_TRANSPARENT && c->proto == PROXY_SOCKS5)
		c->proto = PROXY_TRANSPARENT;
	if (c->over_limit && !refuse_over_limit(c))
		return;
	if (c->p->init != NULL && c->p->init(c) == -1) {
		conn_close(c);
		return;
	}
	if (conn_enter(c, CONN_REQUEST) == -1) {
		conn_close(c);
		return;
	}
	c->p->request_read(c->bev, c);
}

static void
recheck_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct conn *c = arg;

	if (bufferevent_enable(c->bev, EV_READ) == -1) {
		conn_close(c);
		return;
	}
	sniff_start(c);
}

static void
sniff_cb(struct bufferevent *bev, void *arg)
{
	sniff_start(arg);
}

/*
 * A client gone while its request connects: its line, whether or not the
 * log takes it, then the close, which cancels the connect and the lookup.
 */
static void
client_left(struct conn *c, short what)
{
	struct egress_addr addr;
	enum egress_reason r;
	bool has;

	if ((r = conn_left_reason(c, what, &addr, &has)) == EGRESS_R_NONE)
		return;
	(void)conn_log(c, false, r, has ? &addr : NULL);
	conn_close(c);
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	/* While its target connects: a client gone abandons it (gone.c). */
	if (c->state == CONN_CONNECTING) {
		client_left(c, what);
		return;
	}
	/* A client that took nothing for idle_timeout (forwarding). */
	if (what & BEV_EVENT_TIMEOUT) {
		conn_close(c);
		return;
	}
	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	/*
	 * A client that only stopped sending (shutdown(SHUT_WR)) still gets
	 * the response to a request it finished, and whatever is queued.
	 */
	if (!(what & BEV_EVENT_ERROR)) {
		if (c->state == CONN_RELAY && c->p->client_eof(c))
			return;
		if (evbuffer_get_length(bufferevent_get_output(bev)) > 0) {
			conn_close_after_flush(c);
			return;
		}
	}
	/* The client went away or failed: nothing more can be said to it. */
	conn_close(c);
}

/*
 * While a request is read, the client's input may grow one byte past
 * max_header_bytes: enough to tell a head that is too big (431) at once,
 * rather than stop reading at the relay's high-water mark and wait for
 * the header timeout.
 */
static size_t
request_high_water(const struct conn *c)
{
	size_t hw = (size_t)c->gen->conf->max_header_bytes + 1;

	return hw > RELAY_HIGH_WATER ? hw : RELAY_HIGH_WATER;
}

static int
head_timer_start(struct conn *c)
{
	struct timeval tv = ms_timeval(c->gen->conf->header_timeout);

	return evtimer_add(c->head_timer, &tv);
}

int
conn_enter(struct conn *c, enum conn_state s)
{
	struct bufferevent *b = c->bev;
	const struct conn_proto *p = c->p;

	c->state = s;
	/* Head-less: from accept, or a kept-alive one's last response. */
	if (s == CONN_SNIFF || s == CONN_IDLE)
		headless_join(c);
	else if (s != CONN_REQUEST)
		headless_leave(c);
	switch (s) {
	case CONN_SNIFF:
		bufferevent_setcb(b, sniff_cb, NULL, event_cb, c);
		bufferevent_setwatermark(b, EV_READ, 0, RELAY_HIGH_WATER);
		if (head_timer_start(c) == -1)
			return -1;
		return bufferevent_enable(b, EV_READ);
	case CONN_IDLE:
		/* header_timeout for the next request, from now. */
		if (bufferevent_set_timeouts(b, NULL, NULL) == -1 ||
		    head_timer_start(c) == -1)
			return -1;
		/* FALLTHROUGH */
	case CONN_REQUEST:
		/* The timer goes on: a request's time counts from its start. */
		c->step = 0;
		bufferevent_setcb(b, p->request_read, NULL, event_cb, c);
		bufferevent_setwatermark(b, EV_READ, 0, request_high_water(c));
		return bufferevent_enable(b, EV_READ);
	case CONN_CONNECTING:
		/*
		 * The client stays registered for reading with no callback:
		 * what it sends waits in the buffer (up to the high-water
		 * mark) for a tunnel, and the socket changes hands within one
		 * loop pass, so epoll is not told to forget it and learn it
		 * again.  connect_timeout rules from here.
		 */
		bufferevent_setcb(b, NULL, NULL, event_cb, c);
		return evtimer_del(c->head_timer);
	case CONN_RELAY:
		bufferevent_setcb(b, p->relay_read, p->relay_write, event_cb,
		    c);
		bufferevent_setwatermark(b, EV_WRITE, RELAY_HIGH_WATER / 2, 0);
		bufferevent_setwatermark(b, EV_READ, 0, RELAY_HIGH_WATER);
		if (evtimer_del(c->head_timer) == -1)
			return -1;
		return bufferevent_enable(b, EV_READ);
	case CONN_TUNNEL:
		return 0;	/* the tunnel has the sockets; no timer */
	case CONN_CLOSING:
		/* A client that never reads its refusal is not waited for. */
		bufferevent_setcb(b, NULL, flushed_cb, event_cb, c);
		if (bufferevent_disable(b, EV_READ) == -1)
			return -1;
		return head_timer_start(c);
	}
	return -1;
}

int
conn_write(struct conn *c, const void *b, size_t len)
{
	if (evbuffer_add(bufferevent_get_output(c->bev), b, len) == 0 &&
	    bev_write_now(c->bev) == 0)
		return 0;
	conn_close(c);
	return -1;
}

/* No longer one of max_connections: it is only flushing, or gone. */
static void
inactive(struct conn *c)
{
	if (c->active) {
		c->active = false;
		c->px->nactive--;
	}
}

void
conn_close(struct conn *c)
{
	struct proxy *px = c->px;
	struct tunnel_stats st;

	outbound_cancel(c->ob);
	if (c->tunnel != NULL) {
		tunnel_count(c->tunnel, &st);
		c->usage.out += st.to_origin;
		c->usage.in += st.to_client;
		tunnel_free(c->tunnel);	/* closes c->fd */
	} else if (c->fd != -1)
		close(c->fd);
	if (c->p != NULL)
		c->p->free(c);
	if (c->bev != NULL)
		bufferevent_free(c->bev);
	conn_usage_end(c);	/* the protocol's free counted its last */
	if (c->head_timer != NULL)
		event_free(c->head_timer);
	if (c->recheck != NULL)
		event_free(c->recheck);
	if (c->early != NULL)
		evbuffer_free(c->early);
	gen_release(c->gen);
	TAILQ_REMOVE(&px->conns, c, entry);
	headless_leave(c);
	px->nconns--;
	inactive(c);
	proxy_mem_note(px);
	free(c->exe);
	free(c->pstate);
	free(c);
	px->conn_gone(px);
}

static void
flushed_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		conn_close(c);
}

void
conn_close_after_flush(struct conn *c)
{
	inactive(c);
	outbound_cancel(c->ob);
	c->ob = NULL;
	if (c->p != NULL)
		c->p->free(c);
	if (conn_enter(c, CONN_CLOSING) == -1 || bev_write_now(c->bev) == -1) {
		conn_close(c);
		return;
	}
	flushed_cb(c->bev, c);
}

/*
 * The policy in force now decides the request, however long ago its
 * connection began: a reload applies to the next request a kept-alive
 * client sends, and to nothing already decided.
 */
void
conn_policy_now(struct conn *c)
{
	if (c->gen == c->px->gen)
		return;
	gen_release(c->gen);
	c->gen = gen_hold(c->px->gen);
}

/* A new request on a kept-alive connection. */
void
conn_next_request(struct conn *c)
{
	c->logged = false;
	c->detail = NULL;
	memset(&c->target, 0, sizeof(c->target));
}

void
conn_drain_start(struct conn *c)
{
	/* As after the header timeout: nothing was asked, nothing is said. */
	if (c->state == CONN_IDLE)
		conn_close(c);
}

void
conn_drain_refuse(struct conn *c)
{
	if (c->state == CONN_CONNECTING || c->state == CONN_REQUEST)
		c->p->refuse(c, EGRESS_R_SHUTTING_DOWN);
}

void
conn_drain_close(struct conn *c)
{
	struct evbuffer_iovec v[8];
	ssize_t sent;
	int i, n;

	/*
	 * The loop stops after this: what the socket takes now is all.  Sent
	 * from the buffer in place (a bufferevent's output cannot be drained
	 * from outside it), stopping at the first short send.
	 */
	if (c->bev != NULL && c->fd != -1) {
		n = evbuffer_peek(bufferevent_get_output(c->bev), -1, NULL, v,
		    8);
		for (i = 0; i < n && i < 8; i++) {
			sent = send(c->fd, v[i].iov_base, v[i].iov_len,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
			if (sent != (ssize_t)v[i].iov_len)
				break;
		}
	}
	conn_close(c);
}

static int
log_entry(struct conn *c, bool allow, enum egress_reason reason,
    enum egress_reason would, const struct egress_addr *addr)
{
	struct dlog_entry e = { .proto = c->proto, .host = c->target.host,
	    .port = c->target.port, .allow = allow, .reason = reason,
	    .would = would, .addr = addr, .pid = c->pid, .exe = c->exe };
	int rc;

	if (c->logged)
		return 0;
	c->logged = true;
	e.conn = allow ? conn_usage_id(c) : 0;
	rc = dlog_decision(c->px->log, &e, c->gen->conf->log_failure_serve);
	conn_usage_logged(c, rc);
	return rc;
}

int
conn_log(struct conn *c, bool allow, enum egress_reason reason,
    const struct egress_addr *addr)
{
	return log_entry(c, allow, reason, EGRESS_R_NONE, addr);
}

int
conn_log_allowed(struct conn *c, const struct outbound_result *res)
{
	return log_entry(c, true, res->reason, res->would, &res->addr);
}

static void
tunnel_ended(const struct tunnel_stats *st, void *arg)
{
	struct conn *c = arg;

	c->usage.out += st->to_origin;
	c->usage.in += st->to_client;
	c->tunnel = NULL;
	c->fd = -1;	/* the tunnel closed both sockets */
	conn_close(c);
}

/*
 * Send the success reply, then let a tunnel relay both sockets.  Bytes the
 * client sent after its request are kept for the origin.
 */
void
conn_start_tunnel(struct conn *c, int ofd, const void *reply, size_t len)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	struct evbuffer *out = bufferevent_get_output(c->bev);
	ssize_t n;

	/*
	 * Nothing queued for the client may stay behind the reply sent
	 * here (it would come after it, or go with the bufferevent): sent
	 * first, or the connection fails.  Nothing is queued today.
	 */
	if (evbuffer_get_length(out) > 0 && (bev_write_now(c->bev) == -1 ||
	    evbuffer_get_length(out) > 0))
		goto fail;
	if ((c->early = evbuffer_new()) == NULL ||
	    evbuffer_add_buffer(c->early, in) == -1)
		goto fail;
	/* The reply is tiny and the socket idle: it goes out whole. */
	n = send(c->fd, reply, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n != (ssize_t)len)
		goto fail;
	c->tunnel = tunnel_new(c->px->base, c->fd, ofd, c->early,
	    c->gen->conf->idle_timeout, tunnel_ended, c);
	if (c->tunnel == NULL)
		goto fail;
	/*
	 * Freed after the tunnel has registered the client socket: epoll
	 * sees no change for it, where freeing first costs a CTL_MOD.
	 */
	bufferevent_free(c->bev);
	c->bev = NULL;
	event_free(c->head_timer);
	c->head_timer = NULL;
	(void)conn_enter(c, CONN_TUNNEL);
	return;
fail:
	close(ofd);
	conn_close(c);
}
