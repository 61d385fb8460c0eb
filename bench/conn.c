/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Connections and the event loop: non-blocking sockets in one epoll set
 * (edge-triggered, registered once, after connect(): the connect broker of
 * harn-egressd's landlock confinement needs that order), the CONNECT and
 * SOCKS5 handshakes, requests out and responses in.  The driver (loop.c,
 * idle.c) decides what each connection does next.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "bench/loadgen.h"

#define MAX_EVENTS	512
#define SWEEP_US	100000	/* timeouts are checked this often */

const char *const lg_err_names[ERR_N] = {
	"none", "connect", "proxy", "status", "eof", "timeout", "parse",
	"noclose", "body"
};

/* One buffer for every read: what is read is handled at once. */
static char rbuf[256 * 1024];

uint64_t
mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

int
lg_init(struct lg *lg, int nconns)
{
	int i;

	lg->now = mono_us();
	if ((lg->ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		return -1;
	if ((lg->conns = calloc((size_t)nconns, sizeof(*lg->conns))) == NULL)
		return -1;
	lg->nconns = nconns;
	for (i = 0; i < nconns; i++)
		lg->conns[i].fd = -1;
	return msgs_build(lg);
}

void
lg_free(struct lg *lg)
{
	int i;

	for (i = 0; lg->conns != NULL && i < lg->nconns; i++)
		if (lg->conns[i].fd != -1)
			close(lg->conns[i].fd);
	free(lg->conns);
	for (i = 0; i < LG_MAX_PORTS; i++) {
		free(lg->req[i][0]);
		free(lg->req[i][1]);
		free(lg->hs[i]);
	}
	if (lg->ep != -1)
		close(lg->ep);
}

void
conn_begin(struct lg *lg, struct conn *c)
{
	lg->k.attempts++;
	c->asked = 1;
	c->t_req = lg->now;
}

void
conn_end(struct lg *lg, struct conn *c, enum lg_err err)
{
	if (err != ERR_NONE)
		lg->k.err[err]++;
	if (c->asked)
		lg->k.failed++;
	c->asked = 0;
	if (c->fd != -1)
		close(c->fd);	/* and out of the epoll set */
	c->fd = -1;
	c->out = NULL;
	c->phase = PH_FREE;
	c->gen++;
}

/* Write what can be written now; the rest waits for EPOLLOUT.  hs: the
 * bytes are the proxy handshake's.  -1: the peer is gone. */
static int
send_bytes(struct lg *lg, struct conn *c, const char *p, size_t n, int hs)
{
	ssize_t w;

	w = send(c->fd, p, n, MSG_NOSIGNAL);
	if (w == -1) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		w = 0;
	}
	lg->k.tx += (uint64_t)w;
	if (hs)
		lg->k.hs_tx += (uint64_t)w;
	c->t_active = lg->now;
	if ((size_t)w < n) {
		c->out = p + w;
		c->outlen = n - (size_t)w;
		c->out_hs = hs;
	} else if (!hs)
		lg->k.requests++;
	return 0;
}

static void
flush_out(struct lg *lg, struct conn *c)
{
	const char *p = c->out;

	c->out = NULL;
	if (send_bytes(lg, c, p, c->outlen, c->out_hs) == -1)
		conn_end(lg, c, c->phase == PH_RESPONSE ? ERR_EOF : ERR_PROXY);
}

void
conn_request(struct lg *lg, struct conn *c, int last)
{
	if (!c->asked)
		conn_begin(lg, c);
	c->last = last;
	c->sent++;
	resp_init(&c->resp, 0);
	c->phase = PH_RESPONSE;
	if (send_bytes(lg, c, lg->req[c->port][last],
	    lg->reqlen[c->port][last], 0) == -1)
		conn_end(lg, c, ERR_EOF);
}

/* Ready for requests: the tunnel is up, or (direct, forward) connected. */
static void
ready(struct lg *lg, struct conn *c)
{
	hist_add(&lg->setup, lg->now - c->t_open);
	lg->k.tunnels++;
	c->phase = PH_READY;
	lg->drv->ready(lg, c);
}

static void
connected(struct lg *lg, struct conn *c)
{
	static const char greeting[3] = { 5, 1, 0 };	/* no auth */
	const char *hs = lg->hs[c->port];
	size_t hslen = lg->hslen[c->port];

	switch (lg->o.mode) {
	case MODE_DIRECT:
	case MODE_FORWARD:
		ready(lg, c);
		return;
	case MODE_CONNECT:
		resp_init(&c->resp, 1);
		c->phase = PH_CONNECT_REPLY;
		break;
	case MODE_SOCKS5:
		c->hs_have = 0;
		c->phase = PH_SOCKS_METHOD;
		hs = greeting;
		hslen = sizeof(greeting);
		break;
	}
	if (send_bytes(lg, c, hs, hslen, 1) == -1)
		conn_end(lg, c, ERR_PROXY);
}

int
conn_open(struct lg *lg, struct conn *c)
{
	struct sockaddr_in dst = lg->o.mode == MODE_DIRECT ? lg->o.target :
	    lg->o.proxy, src;
	struct epoll_event ev;
	int one = 1, rc;

	c->port = lg->next_port++ % lg->o.target_ports;
	if (lg->o.mode == MODE_DIRECT)
		dst.sin_port = htons((uint16_t)(ntohs(dst.sin_port) + c->port));
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd == -1)
		goto fail;
	lg->k.connects++;
	c->gen++;
	c->sent = 0;
	c->out = NULL;
	c->t_open = c->t_active = lg->now;
	(void)setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (lg->o.src_ips > 1) {
		/* The port is picked at connect(), for the whole 4-tuple. */
		(void)setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT,
		    &one, sizeof(one));
		memset(&src, 0, sizeof(src));
		src.sin_family = AF_INET;
		src.sin_addr.s_addr = htonl(0x7f000001 +
		    (uint32_t)(lg->next_src++ % lg->o.src_ips));
		if (bind(c->fd, (struct sockaddr *)&src, sizeof(src)) == -1)
			goto fail;
	}
	rc = connect(c->fd, (struct sockaddr *)&dst, sizeof(dst));
	if (rc == -1 && errno != EINPROGRESS)
		goto fail;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
	ev.data.u64 = (uint64_t)(c - lg->conns) | (uint64_t)c->gen << 32;
	if (epoll_ctl(lg->ep, EPOLL_CTL_ADD, c->fd, &ev) == -1)
		goto fail;
	c->phase = PH_CONNECTING;
	if (rc == 0)
		connected(lg, c);
	return 0;
fail:
	conn_end(lg, c, ERR_CONNECT);
	return -1;
}

static void
response_done(struct lg *lg, struct conn *c)
{
	int good = 1;

	lg->k.responses++;
	lg->k.body += c->resp.body;
	if (c->resp.status >= 400) {
		lg->k.err[ERR_STATUS]++;
		good = 0;
	} else if (lg->o.expect_body && c->resp.body != lg->o.expect_body) {
		lg->k.err[ERR_BODY]++;
		good = 0;
	}
	if (good) {
		lg->k.ok++;
		hist_add(&lg->lat, lg->now - c->t_req);
	}
	c->asked = 0;
	if (c->resp.close || c->last) {
		if (!c->last)
			lg->k.reconnects++;
		c->phase = PH_CLOSING;
	} else
		c->phase = PH_READY;
	lg->drv->response(lg, c);
}

/* The proxy's answer to CONNECT; returns bytes used. */
static size_t
feed_connect_reply(struct lg *lg, struct conn *c, const char *p, size_t n)
{
	size_t used = resp_feed(&c->resp, p, n);

	lg->k.hs_rx += used;
	if (c->resp.state == RESP_ERROR ||
	    (c->resp.state == RESP_DONE && c->resp.status >= 300))
		conn_end(lg, c, ERR_PROXY);
	else if (c->resp.state == RESP_DONE)
		ready(lg, c);
	return used;
}

/* SOCKS5 bytes to have: the method choice (2), then the reply, whose
 * length its first 5 bytes tell; (size_t)-1 if they cannot. */
static size_t
socks_want(const struct conn *c)
{
	if (c->phase == PH_SOCKS_METHOD)
		return 2;
	if (c->hs_have < 5)
		return 5;
	return msgs_socks_reply_len((const unsigned char *)c->resp.line,
	    c->hs_have);
}

/* The SOCKS5 method choice, then the reply; returns bytes used. */
static size_t
feed_socks(struct lg *lg, struct conn *c, const char *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)c->resp.line;
	size_t want = socks_want(c), take;

	if (want == (size_t)-1 || want > sizeof(c->resp.line)) {
		conn_end(lg, c, ERR_PROXY);
		return 0;
	}
	take = want - c->hs_have < n ? want - c->hs_have : n;
	memcpy(c->resp.line + c->hs_have, p, take);
	c->hs_have += take;
	lg->k.hs_rx += take;
	/* Version 5, and 0: no authentication, or succeeded. */
	if (c->hs_have >= 2 && (b[0] != 5 || b[1] != 0)) {
		conn_end(lg, c, ERR_PROXY);
		return take;
	}
	if (c->hs_have < want || socks_want(c) != c->hs_have)
		return take;	/* more to come */
	c->hs_have = 0;
	if (c->phase == PH_SOCKS_METHOD) {
		c->phase = PH_SOCKS_REPLY;
		if (send_bytes(lg, c, lg->hs[c->port], lg->hslen[c->port],
		    1) == -1)
			conn_end(lg, c, ERR_PROXY);
	} else
		ready(lg, c);
	return take;
}

/* Bytes read, handled by phase until used up or the connection ends. */
static void
feed(struct lg *lg, struct conn *c, const char *p, size_t n)
{
	size_t used;
	uint32_t gen = c->gen;

	while (n > 0 && c->gen == gen) {
		switch (c->phase) {
		case PH_CONNECT_REPLY:
			used = feed_connect_reply(lg, c, p, n);
			break;
		case PH_SOCKS_METHOD:
		case PH_SOCKS_REPLY:
			used = feed_socks(lg, c, p, n);
			break;
		case PH_RESPONSE:
			used = resp_feed(&c->resp, p, n);
			if (c->resp.state == RESP_ERROR)
				conn_end(lg, c, ERR_PARSE);
			else if (c->resp.state == RESP_DONE)
				response_done(lg, c);
			break;
		default:	/* bytes nobody asked for */
			conn_end(lg, c, ERR_PARSE);
			return;
		}
		p += used;
		n -= used;
	}
}

/*
 * A kept-alive connection closed before any byte of the answer: the
 * server had closed it as the request went out, as tinyproxy does after
 * each forwarded response without saying so.  Like any HTTP client with
 * an idempotent request, try it again on a new connection (RFC 9110
 * 9.2.2); the request's time includes the new connection.
 */
static void
retry(struct lg *lg, struct conn *c)
{
	uint64_t t_req = c->t_req;

	lg->k.reconnects++;
	c->asked = 0;		/* not failed: it goes on */
	conn_end(lg, c, ERR_NONE);
	c->asked = 1;
	if (conn_open(lg, c) == 0)
		c->t_req = t_req;
}

/* The peer closed (or reset: hard). */
static void
on_eof(struct lg *lg, struct conn *c, int hard)
{
	switch (c->phase) {
	case PH_CONNECTING:
		conn_end(lg, c, ERR_CONNECT);
		break;
	case PH_CONNECT_REPLY:
	case PH_SOCKS_METHOD:
	case PH_SOCKS_REPLY:
		conn_end(lg, c, ERR_PROXY);
		break;
	case PH_RESPONSE:
		if (c->sent > 1 && lg->retry && c->resp.state == RESP_HEAD &&
		    c->resp.len == 0) {
			retry(lg, c);
			break;
		}
		if (hard || !resp_eof(&c->resp)) {
			conn_end(lg, c, ERR_EOF);
			break;
		}
		response_done(lg, c);
		if (c->phase == PH_CLOSING)
			conn_end(lg, c, ERR_NONE);
		break;
	default:		/* closing, or held idle */
		conn_end(lg, c, ERR_NONE);
		break;
	}
}

static void
on_readable(struct lg *lg, struct conn *c, uint32_t events)
{
	uint32_t gen = c->gen;
	ssize_t n;

	while (c->gen == gen) {
		n = read(c->fd, rbuf, sizeof(rbuf));
		if (n > 0) {
			lg->k.rx += (uint64_t)n;
			c->t_active = lg->now;
			feed(lg, c, rbuf, (size_t)n);
			/* A short read drained it: more is a new edge. */
			if ((size_t)n < sizeof(rbuf) &&
			    !(events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
				return;
		} else if (n == 0) {
			on_eof(lg, c, 0);
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			return;
		} else if (errno != EINTR)
			on_eof(lg, c, 1);
	}
}

static void
on_event(struct lg *lg, struct conn *c, uint32_t events)
{
	uint32_t gen = c->gen;

	if (c->phase == PH_CONNECTING) {
		/* Refused or reset. */
		if (events & (EPOLLERR | EPOLLHUP)) {
			conn_end(lg, c, ERR_CONNECT);
			return;
		}
		if (!(events & EPOLLOUT))
			return;
		connected(lg, c);
	} else if ((events & EPOLLOUT) && c->out != NULL)
		flush_out(lg, c);
	if (c->gen == gen && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP |
	    EPOLLERR)))
		on_readable(lg, c, events);
}

/* Connections without progress for the timeout end: those awaiting a
 * FIN as noclose, the others as timeout.  Held idle ones wait. */
static void
sweep(struct lg *lg)
{
	uint64_t limit = (uint64_t)(lg->o.timeout * 1e6);
	struct conn *c;
	int i;

	for (i = 0; i < lg->nconns; i++) {
		c = &lg->conns[i];
		if (c->phase == PH_FREE || c->phase == PH_READY ||
		    lg->now - c->t_active < limit)
			continue;
		conn_end(lg, c, c->phase == PH_CLOSING ? ERR_NOCLOSE :
		    ERR_TIMEOUT);
	}
}

int
lg_poll(struct lg *lg, uint64_t timeout_us)
{
	static struct epoll_event ev[MAX_EVENTS];
	static uint64_t last_sweep;
	struct conn *c;
	uint32_t slot;
	int n, i;

	n = epoll_wait(lg->ep, ev, MAX_EVENTS, (int)(timeout_us / 1000));
	if (n == -1 && errno != EINTR)
		return -1;
	for (i = 0; i < n; i++) {
		lg->now = mono_us();
		slot = (uint32_t)ev[i].data.u64;
		c = &lg->conns[slot];
		if (c->gen != (uint32_t)(ev[i].data.u64 >> 32) ||
		    c->phase == PH_FREE)
			continue;	/* closed since: a stale event */
		on_event(lg, c, ev[i].events);
	}
	lg->now = mono_us();
	if (lg->now - last_sweep >= SWEEP_US) {
		sweep(lg);
		last_sweep = lg->now;
	}
	return 0;
}
