/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP forwarding (SPEC 4): an absolute-form request relayed to its origin
 * in origin-form, and the response back, one exchange at a time.
 *
 * The origin connection outlives its exchange only on the client
 * connection that made it (never another client's), only while that
 * client is between requests, and only for a next request to the same
 * host and port whose own decision, made anew, allows the very address it
 * goes to (outbound_start's reuse), and only for a request that could be
 * sent again (idempotent, without a body).  A refused request closes it
 * unused.  Before it is used it is looked at (closed by the origin, or
 * holding bytes nobody asked for: dropped); if the origin closes it after
 * the request was sent and before a byte of the response, the request is
 * sent again on a new connection to the same checked address.  Nothing
 * that could act twice is replayed, and nothing is lost to a race with an
 * origin closing an idle connection.
 *
 * Bodies move through the bufferevents, each byte checked by its framing
 * (httpmsg_relay_body), until a stretch of data the framing has already
 * vouched for is long: a Content-Length body's rest, a chunk's data once
 * its line was checked, a response read until close.  That stretch goes
 * by splice (span.c), exactly its length and never a byte past it, with
 * the bufferevent that would read it off until it is done; then the
 * framing takes over again where it ends (a chunk's CRLF, the next chunk
 * line, a pipelined request, the end).  A span starts only once every
 * byte before it has been written, so the order on the wire holds, and
 * the request's line was logged before its first byte went out.
 *
 * Each step returns what follows it (enum fwd_next); each callback hands
 * that to forward_next, the one place that closes the connection or
 * tells HTTP, through the protocol table, that the exchange is over.
 * The kept origin connection's own handling is in kept.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy/forward.h"
#include "proxy/kept.h"
#include "proxy/span.h"

/* A stretch of body worth a pipe: shorter ones go through the buffers. */
#define SPAN_MIN	(16 * 1024)

/* Headers that belong to one hop, or to the proxy: never forwarded. */
static const char *const hop_headers[] = {
	"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authorization",
	"Proxy-Authenticate", "TE", "Trailer", "Upgrade", NULL
};

/*
 * What follows a step of the exchange.  Each step returns it, and
 * forward_next, the one place, acts on it: the exchange goes on, the
 * client's next request comes (through the protocol table), or the
 * connection closes, and the client is told why when it can be.
 */
enum fwd_next {
	FWD_ON,			/* the exchange goes on, or waits */
	FWD_NEXT,		/* over: the client may send another request */
	FWD_LAST,		/* over, and no request follows */
	FWD_BAD_BODY,		/* the request body's framing is malformed */
	FWD_FAILED,		/* a socket or libevent failed: close now */
	FWD_CUT,		/* the client gets what is queued, then close */
	/* The origin's response cannot be relayed: bad_response's words. */
	FWD_MALFORMED,
	FWD_CLOSED_EARLY,
	FWD_STALLED,
	FWD_RELAY_FAILED,
	FWD_RETRY_FAILED,
	FWD_CONNECT_FAILED
};

static const char *const bad_words[] = {
	[FWD_MALFORMED] = "the origin's response is malformed",
	[FWD_CLOSED_EARLY] = "the origin closed before its response was "
	    "complete",
	[FWD_STALLED] = "the origin's response stalled",
	[FWD_RELAY_FAILED] = "relaying the response failed",
	[FWD_RETRY_FAILED] = "the origin closed a kept connection, and "
	    "connecting again failed",
	[FWD_CONNECT_FAILED] = "connecting to the origin failed",
};

static void		forward_next(struct conn *, enum fwd_next);
static enum fwd_next	origin_read(struct conn *);
static enum fwd_next	relay_request(struct conn *);
static enum fwd_next	forward_done(struct conn *);

/*
 * Bytes appended to an evbuffer, with the first failure remembered: a head
 * is built in many small pieces and checked once.
 */
struct out {
	struct evbuffer	*b;
	int		 err;
};

static void
out_add(struct out *o, const void *p, size_t len)
{
	if (o->err == 0 && evbuffer_add(o->b, p, len) == -1)
		o->err = -1;
}

static void
out_str(struct out *o, const char *s)
{
	out_add(o, s, strlen(s));
}

static void
out_header(struct out *o, const struct httpmsg_header *h)
{
	out_add(o, h->name, h->nlen);
	out_add(o, ": ", 2);
	out_add(o, h->value, h->vlen);
	out_add(o, "\r\n", 2);
}

static bool
is_hop_name(const struct httpmsg_header *h)
{
	size_t i;

	for (i = 0; hop_headers[i] != NULL; i++)
		if (httpmsg_name_is(h, hop_headers[i]))
			return true;
	return false;
}

static bool
is_hop_header(const struct http_req *r, const struct httpmsg_header *h)
{
	const struct httpmsg_header *ch;
	char name[64];
	size_t i;

	if (is_hop_name(h))
		return true;
	if (httpmsg_name_is(h, "Host") || h->nlen >= sizeof(name))
		return httpmsg_name_is(h, "Host");
	/* Headers the client's Connection header names are hop-by-hop too. */
	memcpy(name, h->name, h->nlen);
	name[h->nlen] = '\0';
	for (i = 0; i < r->msg.nheaders; i++) {
		ch = &r->msg.headers[i];
		if (httpmsg_name_is(ch, "Connection") &&
		    httpmsg_value_has(ch->value, ch->vlen, name))
			return true;
	}
	return false;
}

/*
 * The request as the origin sees it: origin-form, our Host, no hop
 * headers, and Connection: close when no request will follow it.
 */
static int
write_request_head(struct conn *c, struct evbuffer *b)
{
	struct http_req *r = http_of(c)->req;
	struct out o = { b, 0 };
	size_t i, mlen = (size_t)((char *)memchr(r->msg.start, ' ',
	    r->msg.slen) - r->msg.start);
	bool v6 = c->target.is_addr && !egress_addr_is_v4(&c->target.addr);
	char port[8];

	out_add(&o, r->msg.start, mlen);
	out_add(&o, " ", 1);
	if (r->pathlen == 0 || r->path[0] != '/')
		out_add(&o, "/", 1);
	out_add(&o, r->path, r->pathlen);
	out_str(&o, " HTTP/1.1\r\nHost: ");
	out_str(&o, v6 ? "[" : "");
	out_str(&o, c->target.host);
	out_str(&o, v6 ? "]" : "");
	if (c->target.port != 80) {
		snprintf(port, sizeof(port), ":%u", c->target.port);
		out_str(&o, port);
	}
	out_add(&o, "\r\n", 2);
	for (i = 0; i < r->msg.nheaders; i++)
		if (!is_hop_header(r, &r->msg.headers[i]))
			out_header(&o, &r->msg.headers[i]);
	if (r->client_close || c->px->draining)
		out_str(&o, "Connection: close\r\n");
	out_add(&o, "\r\n", 2);
	return o.err;
}

void
forward_free(struct conn *c)
{
	struct http_fwd *f = http_of(c)->fwd;

	if (f == NULL)
		return;
	/* A stretch cut short moved bytes too (a finished one was counted). */
	if (span_running(f->up))
		c->usage.out += span_moved(f->up);
	if (span_running(f->down))
		c->usage.in += span_moved(f->down);
	/* Their events go before the origin's socket closes. */
	span_free(f->up);
	span_free(f->down);
	if (f->origin != NULL)
		bufferevent_free(f->origin);
	free(f);
	http_of(c)->fwd = NULL;
}

_Static_assert(SPAN_TO_EOF == UINT64_MAX, "until close: httpmsg's word");

/*
 * The bytes of body b that may go by splice now: those its framing has
 * already vouched for, when they are SPAN_MIN or more (SPAN_TO_EOF: until
 * the origin closes).  0: none.
 */
static uint64_t
spannable(const struct httpmsg_body *b)
{
	uint64_t n = httpmsg_body_data(b);

	/* A length or chunk of 2^64-1 bytes is not "until close". */
	if (n == SPAN_TO_EOF && b->kind != BODY_UNTIL_CLOSE)
		n--;
	return n >= SPAN_MIN ? n : 0;
}

/*
 * Start *sp (made on first use) on n bytes from src's socket to dst's,
 * with src's bufferevent reading off meanwhile.  1 started; 0 not (the
 * bufferevents carry on); -1 failed: the connection is to close.
 */
static int
span_go(struct conn *c, struct span **sp, struct bufferevent *src,
    int dst, uint64_t n, uint32_t idle_ms, span_cb cb)
{
	if (*sp == NULL && (*sp = span_new(c->px->base,
	    bufferevent_getfd(src), dst, idle_ms)) == NULL)
		return 0;
	if (bufferevent_disable(src, EV_READ) == -1)
		return -1;
	if (span_start(*sp, n, cb, c) == 0)
		return 1;
	if (bufferevent_enable(src, EV_READ) == -1)
		return -1;
	return 0;
}

/*
 * The request body's stretch is with the origin: the framing goes on from
 * where it ends (the end, or a chunk's CRLF and next line).  Cut short:
 * the client ended its request before its body did, or a socket failed,
 * and the connection ends (with what is queued for the client, at EOF).
 */
static enum fwd_next
up_over(struct conn *c, enum span_end how)
{
	struct http_fwd *f = http_of(c)->fwd;

	if (how != SPAN_DONE)
		return how == SPAN_EOF &&
		    evbuffer_get_length(bufferevent_get_output(c->bev)) > 0 ?
		    FWD_CUT : FWD_FAILED;
	httpmsg_body_moved(&http_of(c)->req->body, span_moved(f->up));
	if (bufferevent_enable(c->bev, EV_READ) == -1)
		return FWD_FAILED;
	return relay_request(c);
}

static void
up_done(enum span_end how, void *arg)
{
	struct conn *c = arg;

	c->usage.out += span_moved(http_of(c)->fwd->up);
	forward_next(c, up_over(c, how));
}

/*
 * The request body's next stretch by splice, client -> origin: once all
 * the client sent before it is with the origin.  idle_timeout bounds it
 * (the client's reads are off meanwhile, and the origin's write timeout
 * is not armed while its output is empty).  1 started, 0 not, -1 failed.
 */
static int
up_start(struct conn *c)
{
	struct http_fwd *f = http_of(c)->fwd;
	uint64_t n = spannable(&http_of(c)->req->body);

	if (n == 0 || n == SPAN_TO_EOF || span_running(f->up) ||
	    evbuffer_get_length(bufferevent_get_input(c->bev)) > 0 ||
	    evbuffer_get_length(bufferevent_get_output(f->origin)) > 0)
		return 0;
	return span_go(c, &f->up, c->bev, bufferevent_getfd(f->origin), n,
	    c->gen->conf->idle_timeout, up_done);
}

/*
 * The response body's stretch is with the client: the framing goes on
 * from where it ends, or, read until close, the response is complete.
 * Cut short, it ends as the bufferevents' path ends it (a 502 or a cut).
 */
static enum fwd_next
down_over(struct conn *c, enum span_end how)
{
	struct http_fwd *f = http_of(c)->fwd;

	switch (how) {
	case SPAN_DONE:
		break;
	case SPAN_EOF:
		f->origin_eof = true;
		return FWD_CLOSED_EARLY;
	case SPAN_IDLE:
		return FWD_STALLED;
	default:
		return FWD_RELAY_FAILED;
	}
	if (f->resp.kind == BODY_UNTIL_CLOSE) {
		f->origin_eof = true;
		return forward_done(c);
	}
	httpmsg_body_moved(&f->resp, span_moved(f->down));
	if (bufferevent_enable(f->origin, EV_READ) == -1)
		return FWD_FAILED;
	/* The framing goes on: the end, or a chunk's CRLF and next line. */
	return origin_read(c);
}

static void
down_done(enum span_end how, void *arg)
{
	struct conn *c = arg;

	c->usage.in += span_moved(http_of(c)->fwd->down);
	forward_next(c, down_over(c, how));
}

/*
 * The response body's next stretch by splice, origin -> client: once its
 * head and all before the stretch are with the client.  idle_timeout
 * bounds it (neither bufferevent watches meanwhile).  1 started, 0 not,
 * -1 failed.
 */
static int
down_start(struct conn *c)
{
	struct http_fwd *f = http_of(c)->fwd;
	uint64_t n = spannable(&f->resp);

	if (n == 0 || !f->resp_head || f->origin_eof ||
	    span_running(f->down) ||
	    evbuffer_get_length(bufferevent_get_input(f->origin)) > 0 ||
	    evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
		return 0;
	return span_go(c, &f->down, f->origin, c->fd, n,
	    c->gen->conf->idle_timeout, down_done);
}

/*
 * No request follows this one on the client connection: it asked so, the
 * proxy drains, or the client sent its EOF and no byte of another request
 * came before it.
 */
static bool
last_exchange(struct conn *c)
{
	const struct http_conn *h = http_of(c);

	return h->req->client_close || c->px->draining || (h->client_eof &&
	    evbuffer_get_length(bufferevent_get_input(c->bev)) == 0);
}

/* The exchange is over: keep the client for another request, or close. */
static enum fwd_next
forward_done(struct conn *c)
{
	struct http_fwd *f = http_of(c)->fwd;

	if (last_exchange(c) || !f->req_done ||
	    f->resp.kind == BODY_UNTIL_CLOSE)
		return FWD_LAST;
	/*
	 * Kept only when the origin took the whole request: one that
	 * answered early may never read the rest, which the next request
	 * would follow.
	 */
	if (!f->resp_close && !f->origin_eof &&
	    evbuffer_get_length(bufferevent_get_output(f->origin)) == 0)
		keep_origin(c);
	return FWD_NEXT;
}

/*
 * The client shut down its sending side after its request: the response
 * still goes to it, and so does each request it pipelined before its EOF,
 * in turn (each decided and logged); then the connection ends.
 */
bool
forward_client_eof(struct conn *c)
{
	struct http_conn *h = http_of(c);

	if (h->fwd == NULL || h->req == NULL || !h->fwd->req_done)
		return false;	/* the request itself is cut short */
	h->client_eof = true;
	(void)bufferevent_disable(c->bev, EV_READ);	/* it read its EOF */
	return true;
}

/*
 * Send what the request body framing allows; stop reading when the origin
 * is full.  Bytes after the request (pipelined) wait in the client's
 * buffer, up to its high-water mark, until this exchange is over: the
 * client stays registered for reading all along, so epoll is not told.
 */
static enum fwd_next
relay_request(struct conn *c)
{
	struct http_fwd *f = http_of(c)->fwd;
	struct evbuffer *out = bufferevent_get_output(f->origin);
	size_t before = evbuffer_get_length(out);
	int rv;

	if (f->req_done || span_running(f->up))
		return FWD_ON;
	rv = httpmsg_relay_body(&http_of(c)->req->body,
	    bufferevent_get_input(c->bev), out);
	c->usage.out += evbuffer_get_length(out) - before;
	if (bev_write_now(f->origin) == -1)
		return FWD_FAILED;
	/* What went before it is all the origin gets. */
	if (rv == -1)
		return FWD_BAD_BODY;
	if (rv == 1)
		f->req_done = true;
	else if (evbuffer_get_length(out) >= RELAY_HIGH_WATER) {
		if (bufferevent_disable(c->bev, EV_READ) == -1)
			return FWD_FAILED;
	} else if (up_start(c) == -1)
		return FWD_FAILED;
	return FWD_ON;
}

void
forward_client_read_cb(struct bufferevent *bev, void *arg)
{
	forward_next(arg, relay_request(arg));
}

/*
 * The origin took what waited for it (bev_write_now's rest): the client
 * may send more, or the body's rest go by splice.
 */
static enum fwd_next
origin_wrote(struct conn *c, struct bufferevent *bev)
{
	struct http_fwd *f;
	int rv;

	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0 &&
	    bufferevent_disable(bev, EV_WRITE) == -1)
		return FWD_FAILED;
	f = http_of(c)->fwd;
	if (f == NULL || f->req_done || span_running(f->up))
		return FWD_ON;
	if ((rv = up_start(c)) != 0)
		return rv == -1 ? FWD_FAILED : FWD_ON;
	if (bufferevent_enable(c->bev, EV_READ) == -1)
		return FWD_FAILED;
	return FWD_ON;
}

static void
origin_write_cb(struct bufferevent *bev, void *arg)
{
	forward_next(arg, origin_wrote(arg, bev));
}

/*
 * The client took what waited for it: the origin may send more, or the
 * body's rest go by splice.
 */
static enum fwd_next
client_wrote(struct conn *c, struct bufferevent *bev)
{
	struct http_fwd *f;
	int rv;

	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0 &&
	    bufferevent_disable(bev, EV_WRITE) == -1)
		return FWD_FAILED;
	f = http_of(c)->fwd;
	if (f == NULL || f->origin_eof || span_running(f->down))
		return FWD_ON;
	if ((rv = down_start(c)) != 0)
		return rv == -1 ? FWD_FAILED : FWD_ON;
	if (bufferevent_enable(f->origin, EV_READ) == -1)
		return FWD_FAILED;
	return FWD_ON;
}

void
forward_client_write_cb(struct bufferevent *bev, void *arg)
{
	forward_next(arg, client_wrote(arg, bev));
}

static bool
status_has_no_body(int status)
{
	return (status >= 100 && status < 200) || status == 204 ||
	    status == 304;
}

/* Will the origin close after this response (RFC 9112 9.3)? */
static bool
response_closes(const struct httpmsg *m)
{
	const struct httpmsg_header *h;
	bool close = m->start[7] == '0', keep = false;
	size_t i;

	for (i = 0; i < m->nheaders; i++) {
		h = &m->headers[i];
		if (!httpmsg_name_is(h, "Connection"))
			continue;
		if (httpmsg_value_has(h->value, h->vlen, "close"))
			return true;
		if (httpmsg_value_has(h->value, h->vlen, "keep-alive"))
			keep = true;
	}
	return close && !keep;
}

/*
 * Relay a response head: hop-by-hop headers dropped, and Connection: close
 * added when the client connection ends with this response.
 */
static int
relay_response_head(struct conn *c, struct evbuffer *in, struct evbuffer *b)
{
	struct http_fwd *f = http_of(c)->fwd;
	struct out o = { b, 0 };
	struct httpmsg m;
	size_t end, i;
	char *head;
	int status;

	if ((end = httpmsg_head_scan(in, 65536, &f->resp_scan)) == 0)
		return evbuffer_get_length(in) > 65536 ? -1 : 0;
	if ((head = malloc(end)) == NULL)
		return -1;
	f->resp_scan.pos = 0;	/* an interim (1xx) head may follow */
	if (evbuffer_remove(in, head, end) != (int)end ||
	    httpmsg_parse(head, end, &m) != HTTPMSG_OK ||
	    (status = httpmsg_status(&m)) == -1 ||
	    httpmsg_framing(&m, &f->resp) == -1) {
		free(head);
		return -1;
	}
	if (status_has_no_body(status) || http_of(c)->req->head_method)
		f->resp.kind = BODY_NONE;
	else if (f->resp.kind == BODY_NONE)
		f->resp.kind = BODY_UNTIL_CLOSE;	/* no length: until EOF */
	out_add(&o, m.start, m.slen);
	out_add(&o, "\r\n", 2);
	for (i = 0; i < m.nheaders; i++)
		if (!is_hop_name(&m.headers[i]))
			out_header(&o, &m.headers[i]);
	if (status >= 100 && status < 200) {
		out_add(&o, "\r\n", 2);
		free(head);
		/* An interim response: the final one is still to come. */
		return o.err == 0 ? 1 : -1;
	}
	f->resp_close = response_closes(&m);
	if (last_exchange(c) || f->resp.kind == BODY_UNTIL_CLOSE)
		out_str(&o, "Connection: close\r\n");
	else if (http_of(c)->req->http10)
		out_str(&o, "Connection: keep-alive\r\n");
	out_add(&o, "\r\n", 2);
	f->resp_head = true;
	free(head);
	return o.err == 0 ? 1 : -1;
}

/*
 * Move what the origin sent, and send it on now: 1 response complete,
 * 0 more to come, -1 bad.
 */
static int
pump_response(struct conn *c)
{
	struct http_fwd *f = http_of(c)->fwd;
	struct evbuffer *in = bufferevent_get_input(f->origin);
	struct evbuffer *out = bufferevent_get_output(c->bev);
	size_t before = evbuffer_get_length(out);
	int rv;

	if (evbuffer_get_length(in) > 0)
		f->resp_started = true;
	while (!f->resp_head) {
		rv = relay_response_head(c, in, out);
		c->usage.in += evbuffer_get_length(out) - before;
		before = evbuffer_get_length(out);
		if (rv != 1)
			return rv;
	}
	rv = httpmsg_relay_body(&f->resp, in, out);
	c->usage.in += evbuffer_get_length(out) - before;
	/* A client that cannot be written to ends with what it got. */
	if (bev_write_now(c->bev) == -1)
		return -1;
	return rv;
}

/*
 * The origin's response cannot be relayed.  Before any of it reached the
 * client, the client is told so (502; the request's decision is already
 * logged); after, the connection ends, the response cut short.
 */
static void
bad_response(struct conn *c, const char *what)
{
	char resp[512], body[256];
	int n;

	if (http_of(c)->fwd == NULL || !http_of(c)->fwd->resp_head) {
		snprintf(body, sizeof(body), "harn-egressd: %s\n", what);
		/* To a HEAD, no body; its length as a GET would get it. */
		n = snprintf(resp, sizeof(resp), "HTTP/1.1 502 Bad Gateway\r\n"
		    "Content-Type: text/plain\r\nContent-Length: %zu\r\n"
		    "Connection: close\r\n\r\n%s", strlen(body),
		    http_of(c)->req->head_method ? "" : body);
		if (n > 0 && (size_t)n < sizeof(resp) &&
		    conn_write(c, resp, (size_t)n) == -1)
			return;
	}
	conn_close_after_flush(c);
}

/* The one place that acts on what follows a step, and closes. */
static void
forward_next(struct conn *c, enum fwd_next n)
{
	switch (n) {
	case FWD_ON:
		return;
	case FWD_NEXT:
		c->p->relay_over(c, RELAY_NEXT);
		return;
	case FWD_LAST:
		c->p->relay_over(c, RELAY_CLOSE);
		return;
	case FWD_BAD_BODY:
		c->p->relay_over(c, RELAY_BAD_BODY);
		return;
	case FWD_FAILED:
		conn_close(c);
		return;
	case FWD_CUT:
		conn_close_after_flush(c);
		return;
	case FWD_MALFORMED:
	case FWD_CLOSED_EARLY:
	case FWD_STALLED:
	case FWD_RELAY_FAILED:
	case FWD_RETRY_FAILED:
	case FWD_CONNECT_FAILED:
		bad_response(c, bad_words[n]);
		return;
	}
}

static enum fwd_next
origin_read(struct conn *c)
{
	switch (pump_response(c)) {
	case -1:
		return FWD_MALFORMED;
	case 1:
		return forward_done(c);
	}
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) <
	    RELAY_HIGH_WATER)
		return down_start(c) == -1 ? FWD_FAILED : FWD_ON;
	if (bufferevent_disable(http_of(c)->fwd->origin, EV_READ) == -1)
		return FWD_FAILED;
	return FWD_ON;
}

static void
origin_read_cb(struct bufferevent *bev, void *arg)
{
	forward_next(arg, origin_read(arg));
}

static void
retry_connected_cb(const struct outbound_result *res, void *arg)
{
	struct conn *c = arg;

	c->ob = NULL;
	if (res->fd == -1)
		forward_next(c, FWD_RETRY_FAILED);
	else
		forward_start(c, res->fd, &res->addr, res->reason);
}

/*
 * A kept connection the origin closed under a request it had not begun
 * to answer: an idempotent request without a body goes again, on a new
 * connection to the same checked address (retry_on_new).
 */
static bool
can_retry(const struct conn *c)
{
	const struct http_fwd *f = http_of(c)->fwd;
	const struct http_req *r = http_of(c)->req;

	return f->reused && !f->resp_started && f->req_done &&
	    r->idempotent && r->body.kind == BODY_NONE;
}

static enum fwd_next
retry_on_new(struct conn *c)
{
	struct http_fwd *f = http_of(c)->fwd;
	struct egress_addr addr = f->addr;
	enum egress_reason reason = f->reason;

	forward_free(c);
	if (conn_enter(c, CONN_CONNECTING) == -1)
		return FWD_FAILED;
	c->ob = outbound_connect(c->px, c->gen, &c->target, &addr, reason,
	    retry_connected_cb, c);
	return c->ob == NULL ? FWD_CONNECT_FAILED : FWD_ON;
}

/*
 * The origin closed or failed.  What it sent before still goes to the
 * client; a response that was not complete ends the client connection.
 */
static enum fwd_next
origin_ended(struct conn *c, short what)
{
	struct http_fwd *f = http_of(c)->fwd;
	int rv;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT)))
		return FWD_ON;
	f->origin_eof = true;
	rv = pump_response(c);
	f = http_of(c)->fwd;		/* read again after the pump */
	if (rv == 1 || (rv == 0 && f->resp_head &&
	    f->resp.kind == BODY_UNTIL_CLOSE)) {
		f->resp.kind = BODY_UNTIL_CLOSE;	/* no reuse after EOF */
		return forward_done(c);
	}
	if (!(what & BEV_EVENT_TIMEOUT) && rv == 0 && can_retry(c))
		return retry_on_new(c);
	return rv == -1 ? FWD_MALFORMED : FWD_CLOSED_EARLY;
}

static void
origin_event_cb(struct bufferevent *bev, short what, void *arg)
{
	forward_next(arg, origin_ended(arg, what));
}

/* The request's head to the origin, counted as relayed. */
static int
request_head(struct conn *c, struct evbuffer *out)
{
	size_t before = evbuffer_get_length(out);
	int rv = write_request_head(c, out);

	c->usage.out += evbuffer_get_length(out) - before;
	return rv;
}

/* The exchange on origin (a new connection, or a kept one). */
static enum fwd_next
exchange_start(struct conn *c, struct bufferevent *origin,
    const struct egress_addr *addr, enum egress_reason reason, bool reused)
{
	struct http_fwd *f;
	struct timeval idle = ms_timeval(c->gen->conf->idle_timeout);

	forward_free(c);
	if ((f = calloc(1, sizeof(*f))) == NULL) {
		bufferevent_free(origin);
		return FWD_FAILED;
	}
	http_of(c)->fwd = f;
	f->origin = origin;
	f->addr = *addr;
	f->reason = reason;
	f->reused = reused;
	bufferevent_setcb(origin, origin_read_cb, origin_write_cb,
	    origin_event_cb, c);
	bufferevent_setwatermark(origin, EV_WRITE, RELAY_HIGH_WATER / 2, 0);
	/*
	 * Every side bounded: an origin that sends or takes nothing, and a
	 * client that takes nothing (its reads stop the origin's, which would
	 * take the origin's read timeout with them), for idle_timeout.
	 */
	if (bufferevent_set_timeouts(origin, &idle, &idle) == -1 ||
	    bufferevent_disable(origin, EV_WRITE) == -1 ||
	    bufferevent_enable(origin, EV_READ) == -1 ||
	    request_head(c, bufferevent_get_output(origin)) == -1 ||
	    conn_enter(c, CONN_RELAY) == -1 ||
	    bufferevent_set_timeouts(c->bev, NULL, &idle) == -1)
		return FWD_FAILED;
	return relay_request(c);
}

void
forward_start(struct conn *c, int fd, const struct egress_addr *addr,
    enum egress_reason reason)
{
	struct bufferevent *origin;

	kept_drop(c);
	origin = bufferevent_socket_new(c->px->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (origin == NULL) {
		close(fd);
		forward_next(c, FWD_FAILED);
		return;
	}
	forward_next(c, exchange_start(c, origin, addr, reason, false));
}

void
forward_start_kept(struct conn *c, const struct egress_addr *addr,
    enum egress_reason reason)
{
	struct http_origin *o = http_of(c)->kept;
	struct bufferevent *origin;

	/*
	 * It may have closed, or been dropped, while the request was
	 * decided: then a new connection to the address just allowed.
	 */
	if (o == NULL || !kept_alive(o) ||
	    memcmp(&o->addr, addr, sizeof(*addr)) != 0) {
		kept_drop(c);
		c->ob = outbound_connect(c->px, c->gen, &c->target, addr,
		    reason, retry_connected_cb, c);
		if (c->ob == NULL)
			forward_next(c, FWD_CONNECT_FAILED);
		return;
	}
	origin = o->bev;
	http_of(c)->kept = NULL;
	free(o);
	forward_next(c, exchange_start(c, origin, addr, reason, true));
}
