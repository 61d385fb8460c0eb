/*
 * A client connection: accepted, sniffed (0x05 first: SOCKS5, otherwise
 * HTTP), served by its protocol, and closed.  While a request head is read
 * the connection lives in a bufferevent; a tunnel takes the bare sockets.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy/internal.h"

#define LIMIT_RECHECKS	5	/* 0, 1, 2, 4, 8 ms: 15 ms at most */

static void	sniff_cb(struct bufferevent *, void *);
static void	recheck_cb(evutil_socket_t, short, void *);
static void	event_cb(struct bufferevent *, short, void *);

static void
head_timeout_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct conn *c = arg;

	/*
	 * A connection that said nothing at all is closed without a word, as
	 * is a kept-alive one that began no new request, and one that would
	 * not read its refusal.
	 */
	if (c->state == CONN_SNIFF || c->state == CONN_CLOSING ||
	    (c->state == CONN_HTTP_HEAD && c->req == NULL &&
	    evbuffer_get_length(bufferevent_get_input(c->bev)) == 0)) {
		conn_close(c);
		return;
	}
	if (c->proto == PROXY_SOCKS5) {
		conn_log(c, false, EGRESS_R_INVALID_REQUEST, NULL);
		conn_close(c);
		return;
	}
	c->detail = "the request head took over header_timeout";
	http_refuse_status(c, 408, EGRESS_R_INVALID_REQUEST);
}

/*
 * Writing is enabled by the first bytes queued for the client: most
 * connections never queue any (their replies go out with send), and an
 * idle socket watched for writability wakes the loop for nothing.
 */
static void
output_added_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info,
    void *arg)
{
	struct conn *c = arg;

	if (info->n_added > 0)
		bufferevent_enable(c->bev, EV_WRITE);
}

void
conn_accept(struct proxy *px, evutil_socket_t fd, struct sockaddr *sa,
    int salen)
{
	struct timeval tv;
	struct conn *c;
	uint32_t ms = px->gen->conf->header_timeout;

	if (px->draining || (c = calloc(1, sizeof(*c))) == NULL) {
		close(fd);
		return;
	}
	c->px = px;	/* TCP_NODELAY: inherited from the listener */
	c->fd = fd;
	c->gen = gen_hold(px->gen);
	c->state = CONN_SNIFF;
	TAILQ_INSERT_TAIL(&px->conns, c, entry);
	px->nconns++;
	c->active = true;
	px->nactive++;
	c->bev = bufferevent_socket_new(px->base, fd, 0);
	c->head_timer = evtimer_new(px->base, head_timeout_cb, c);
	if (c->bev == NULL || c->head_timer == NULL) {
		conn_close(c);
		return;
	}
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(c->head_timer, &tv);
	bufferevent_setcb(c->bev, sniff_cb, NULL, event_cb, c);
	bufferevent_setwatermark(c->bev, EV_READ, 0, RELAY_HIGH_WATER);
	if (evbuffer_add_cb(bufferevent_get_output(c->bev), output_added_cb,
	    c) == NULL || bufferevent_enable(c->bev, EV_READ) == -1)
		conn_close(c);
}

/*
 * Over the limit?  Decided at the first byte, not at accept, from a count
 * without those refused or closing.  A client that closed one connection
 * and opened the next may still be counted twice: its EOF can wait in the
 * same loop pass, or arrive while the loop works.  So an over-limit verdict
 * is looked at again a few times over a few milliseconds (a timer runs
 * after the I/O that woke the loop with it) before the client is refused.
 * Returns true when the client is to wait for recheck_cb.
 */
static bool
limit_wait(struct conn *c)
{
	struct timeval tv = { 0, 0 };

	if (c->rechecks > 0)
		tv.tv_usec = 1000 << (c->rechecks - 1);

	c->over_limit = conn_over_limit(c->px);
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

static void
sniff_start(struct conn *c)
{
	unsigned char first;

	if (evbuffer_copyout(bufferevent_get_input(c->bev), &first, 1) != 1)
		return;
	if (limit_wait(c))
		return;
	if (first == 0x05) {
		c->proto = PROXY_SOCKS5;
		socks_start(c);
	} else {
		c->proto = PROXY_HTTP;
		http_start(c);
	}
}

static void
recheck_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)ev;
	if (bufferevent_enable(c->bev, EV_READ) == -1) {
		conn_close(c);
		return;
	}
	sniff_start(c);
}

static void
sniff_cb(struct bufferevent *bev, void *arg)
{
	(void)bev;
	sniff_start(arg);
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	/*
	 * While its target connects, the request's outcome is the connect's:
	 * the tunnel meets the client's EOF or error again and ends then.
	 */
	if (c->state == CONN_CONNECTING)
		return;
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
		if (c->state == CONN_HTTP_FORWARD && http_client_eof(c))
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
 * While a tunnel's target connects, the client stays registered for
 * reading with no callback: what it sends waits in the buffer (up to the
 * high water mark) for the tunnel, and the socket changes hands within
 * one loop pass, so epoll is not told to forget it and learn it again.
 */
void
conn_hold(struct conn *c)
{
	bufferevent_setcb(c->bev, NULL, NULL, event_cb, c);
}

void
conn_set_callbacks(struct conn *c, bufferevent_data_cb rd,
    bufferevent_data_cb wr)
{
	bufferevent_setcb(c->bev, rd, wr, event_cb, c);
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

	outbound_cancel(c->ob);
	if (c->tunnel != NULL)
		tunnel_free(c->tunnel);	/* closes c->fd */
	else if (c->fd != -1)
		close(c->fd);
	http_free(c);
	if (c->bev != NULL)
		bufferevent_free(c->bev);
	if (c->head_timer != NULL)
		event_free(c->head_timer);
	if (c->recheck != NULL)
		event_free(c->recheck);
	if (c->early != NULL)
		evbuffer_free(c->early);
	gen_release(c->gen);
	TAILQ_REMOVE(&px->conns, c, entry);
	px->nconns--;
	inactive(c);
	free(c);
	proxy_conn_gone(px);
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
	struct timeval tv;
	uint32_t ms = c->gen->conf->header_timeout;

	c->state = CONN_CLOSING;
	inactive(c);
	outbound_cancel(c->ob);
	c->ob = NULL;
	http_free(c);
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_setcb(c->bev, NULL, flushed_cb, event_cb, c);
	/* A client that never reads its refusal is not waited for forever. */
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(c->head_timer, &tv);
	flushed_cb(c->bev, c);
}

/* Between requests on a kept-alive connection, not one byte of the next. */
static bool
conn_idle(struct conn *c)
{
	return c->state == CONN_HTTP_HEAD && c->req == NULL &&
	    evbuffer_get_length(bufferevent_get_input(c->bev)) == 0;
}

void
conn_drain_start(struct conn *c)
{
	/* As after the header timeout: nothing was asked, nothing is said. */
	if (conn_idle(c))
		conn_close(c);
}

void
conn_drain_refuse(struct conn *c)
{
	if (c->state != CONN_CONNECTING && (c->state != CONN_HTTP_HEAD ||
	    conn_idle(c)))
		return;
	if (c->proto == PROXY_SOCKS5)
		socks_refuse(c, EGRESS_R_SHUTTING_DOWN);
	else
		http_refuse(c, EGRESS_R_SHUTTING_DOWN);
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

void
conn_log(struct conn *c, bool allow, enum egress_reason reason,
    const struct egress_addr *addr)
{
	if (c->logged)
		return;
	c->logged = true;
	dlog_decision(c->px->log, c->proto, c->target.host, c->target.port,
	    allow, reason, addr);
}

static void
tunnel_ended(const struct tunnel_stats *st, void *arg)
{
	struct conn *c = arg;

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
	ssize_t n;

	evtimer_del(c->head_timer);
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
	c->state = CONN_TUNNEL;
	return;
fail:
	close(ofd);
	conn_close(c);
}
