/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SOCKS5 (RFC 1928), CONNECT only, no authentication.  Replies as SPEC 4:
 * 07 for BIND and UDP ASSOCIATE, 08 for an unknown address type, 02 for a
 * policy refusal or an invalid target, 04 DNS failure, 05 refused,
 * 06 timeout, 00 with BND 0.0.0.0:0 on success.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy/internal.h"
#include "proxy/socksmsg.h"

enum { STEP_GREETING, STEP_REQUEST };	/* conn.step, in CONN_REQUEST */

/*
 * A reply is a few bytes on a socket with nothing queued: sent at once, it
 * costs no trip through the loop for write readiness.  What the socket
 * does not take is queued.  -1: the connection is closed.
 */
static int
send_now(struct conn *c, const uint8_t *b, size_t len)
{
	ssize_t n = 0;

	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0 &&
	    (n = send(c->fd, b, len, MSG_NOSIGNAL | MSG_DONTWAIT)) < 0)
		n = 0;
	if ((size_t)n < len)
		return conn_write(c, b + n, len - (size_t)n);
	return 0;
}

/*
 * The broker's held connect (SOCKS_HOLD, SPEC 6.6): the decision goes
 * aside, never on the socket, which is the command's.  Refused, the
 * connection is reset once the broker has the word: the kernel makes the
 * command's socket a failed one at once (writable, in error, hung up),
 * and the broker says ECONNREFUSED for it.  Allowed, the broker's one
 * byte (which kept the command from writing until now) is read and
 * dropped before the tunnel starts.
 */
static void
hold_end_cb(struct bufferevent *bev, short what, void *arg)
{
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
		conn_close(arg);
}

/* The run's end unhooks the broker: a word then has nobody to go to. */
static void
hold_tell(struct conn *c, int err)
{
	if (c->px->decided != NULL)
		c->px->decided(c->px->decided_arg, c->fd, err);
}

static void
hold_refused(struct conn *c)
{
	struct linger reset = { .l_onoff = 1, .l_linger = 0 };

	hold_tell(c, ECONNREFUSED);
	(void)setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
	conn_close(c);
}

static void
hold_pad_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	int fd = c->held_fd;

	if (evbuffer_get_length(bufferevent_get_input(bev)) == 0)
		return;
	(void)evbuffer_drain(bufferevent_get_input(bev), 1);
	c->held_fd = -1;
	conn_start_tunnel(c, fd, NULL, 0);
}

static void
hold_allowed(struct conn *c, int fd)
{
	hold_tell(c, 0);
	c->held_fd = fd;
	bufferevent_setcb(c->bev, hold_pad_cb, NULL, hold_end_cb, c);
	if (bufferevent_enable(c->bev, EV_READ) == -1) {
		conn_close(c);
		return;
	}
	hold_pad_cb(c->bev, c);
}

/*
 * Log (with the address judged, if one was), reply, close once sent.  A
 * line the log cannot take makes it 01 (log_unavailable).
 */
static void
refuse_logged(struct conn *c, int rc)
{
	uint8_t r[10] = { SOCKS_VERSION, (uint8_t)c->logstatus, 0,
	    SOCKS_ATYP_V4 };

	if (rc == -1)
		r[1] = SOCKS_REP_FAILURE;
	if (c->hold) {
		hold_refused(c);
		return;
	}
	if (send_now(c, r, sizeof(r)) == 0)
		conn_close_after_flush(c);
}

static void
refuse(struct conn *c, enum socks_rep rep, enum egress_reason reason,
    const struct egress_addr *addr)
{
	int rc;

	if (c->logwait != NULL)
		return;		/* its answer waits for its line already */
	c->logstatus = (int)rep;
	c->logres = (struct outbound_result){ .fd = -1, .reason = reason };
	rc = conn_log_wait(c, false, reason, EGRESS_R_NONE, addr,
	    refuse_logged);
	if (rc != 1)
		refuse_logged(c, rc);
}

/*
 * A greeting refused: no acceptable method, 05 FF, and closed.  A request
 * that came with it (not waiting for the method) names the target logged.
 */
static void
refuse_greeting(struct conn *c, struct evbuffer *in,
    enum egress_reason reason)
{
	static const uint8_t no[2] = { SOCKS_VERSION, SOCKS_NO_METHOD };
	struct socksmsg_req req;
	uint8_t b[SOCKSMSG_REQUEST_MAX];
	ev_ssize_t n;
	size_t used;

	if (in != NULL && (n = evbuffer_copyout(in, b, sizeof(b))) > 0 &&
	    socksmsg_request(b, (size_t)n, &req, &used) >= 0)
		c->target = req.target;
	(void)conn_log(c, false, reason, NULL);
	if (send_now(c, no, sizeof(no)) == 0)
		conn_close_after_flush(c);
}

static enum socks_rep
rep_for(enum egress_reason r)
{
	switch (r) {
	case EGRESS_R_DNS_FAILURE:
		return SOCKS_REP_HOST_UNREACHABLE;
	case EGRESS_R_CONNECT_FAILED:
		return SOCKS_REP_REFUSED;
	case EGRESS_R_CONNECT_TIMEOUT:
		return SOCKS_REP_TTL_EXPIRED;
	case EGRESS_R_LIMIT_EXCEEDED:
	case EGRESS_R_LOG_UNAVAILABLE:
	case EGRESS_R_SHUTTING_DOWN:
		return SOCKS_REP_FAILURE;	/* ours, not the target's */
	default:
		return SOCKS_REP_NOT_ALLOWED;
	}
}

/* Refused from outside the exchange (the drain ended): reply, log, close. */
static void
socks_refuse(struct conn *c, enum egress_reason reason)
{
	if (c->state == CONN_REQUEST && c->step == STEP_GREETING)
		refuse_greeting(c, NULL, reason);
	else
		refuse(c, rep_for(reason), reason, NULL);
}

/* The greeting or request took over header_timeout: logged, closed. */
static void
socks_timeout(struct conn *c)
{
	(void)conn_log(c, false, EGRESS_R_INVALID_REQUEST, NULL);
	conn_close(c);
}

static void	allowed_logged(struct conn *, int);

static void
connected_cb(const struct outbound_result *res, void *arg)
{
	struct conn *c = arg;

	c->ob = NULL;
	if (res->fd == -1) {
		refuse(c, rep_for(res->reason), res->reason, res->has_addr ?
		    &res->addr : NULL);
		return;
	}
	conn_allowed(c, res, allowed_logged);
}

/* The allow kept in c->logres, once its line is written (or not). */
static void
allowed_logged(struct conn *c, int rc)
{
	static const uint8_t ok[10] = { SOCKS_VERSION, SOCKS_REP_OK, 0,
	    SOCKS_ATYP_V4 };
	int fd = c->logres.fd;

	c->logres.fd = -1;
	if (rc == -1) {
		close(fd);
		refuse(c, SOCKS_REP_FAILURE, EGRESS_R_LOG_UNAVAILABLE, NULL);
		return;
	}
	/*
	 * conn_start_tunnel sends this with one send(), after what is queued
	 * for the client (or fails the connection).  Before it only the
	 * 2-byte method choice was written (send_now), so nothing is queued
	 * and the 10 bytes fit, unless the kernel refused those 2 bytes (TCP
	 * memory pressure): then the client is closed.  HTTP, where a
	 * pipelined response can be queued, waits for its queue (http.c
	 * tunnel_start).
	 */
	if (c->hold)
		hold_allowed(c, fd);
	else
		conn_start_tunnel(c, fd, ok, sizeof(ok));
}

/*
 * The greeting: VER NMETHODS METHODS.  0: answered, go on to the request
 * (which a client may have sent already, without waiting); -1: more is
 * needed, or the connection is refused.
 */
static int
greeting(struct conn *c, struct evbuffer *in)
{
	static const uint8_t yes[2] = { SOCKS_VERSION, SOCKS_NO_AUTH };
	static const uint8_t hold[2] = { SOCKS_VERSION, SOCKS_HOLD };
	uint8_t buf[SOCKSMSG_GREETING_MAX];
	ev_ssize_t n;
	size_t used;
	int method;

	if ((n = evbuffer_copyout(in, buf, sizeof(buf))) < 0 ||
	    (method = socksmsg_greeting(buf, (size_t)n, &used)) ==
	    SOCKSMSG_MORE)
		return -1;
	if (evbuffer_drain(in, used) == -1) {
		conn_close(c);
		return -1;
	}
	if (c->over_limit) {
		refuse_greeting(c, in, EGRESS_R_LIMIT_EXCEEDED);
		return -1;
	}
	if (method != SOCKS_NO_AUTH) {
		refuse_greeting(c, NULL, EGRESS_R_INVALID_REQUEST);
		return -1;
	}
	/* Only the broker's own connection, in run mode, may hold. */
	c->hold = c->via == PROXY_VIA_TRANSPARENT && c->px->decided != NULL &&
	    socksmsg_offers(buf, used, SOCKS_HOLD);
	if (send_now(c, c->hold ? hold : yes, sizeof(yes)) == -1)
		return -1;
	c->step = STEP_REQUEST;
	return 0;
}

/* The request: VER CMD RSV ATYP DST.ADDR DST.PORT. */
static void
request(struct conn *c, struct evbuffer *in)
{
	struct socksmsg_req req;
	uint8_t b[SOCKSMSG_REQUEST_MAX];
	ev_ssize_t n;
	size_t used;
	int rep;

	if ((n = evbuffer_copyout(in, b, sizeof(b))) < 0 ||
	    (rep = socksmsg_request(b, (size_t)n, &req, &used)) ==
	    SOCKSMSG_MORE)
		return;
	if (rep == SOCKSMSG_CLOSE) {
		(void)conn_log(c, false, req.reason, NULL);
		conn_close(c);
		return;
	}
	if (evbuffer_drain(in, used) == -1) {
		conn_close(c);
		return;
	}
	c->target = req.target;		/* zero when refused */
	if (c->via == PROXY_VIA_TRANSPARENT)
		proxy_fake_target(c);	/* an address the run's DNS gave */
	if (rep != SOCKS_REP_OK) {
		refuse(c, rep, req.reason, NULL);
		return;
	}
	conn_policy_now(c);
	/* A draining proxy, or an audit log that fails or is behind,
	 * admits nothing new. */
	if (c->px->draining) {
		refuse(c, SOCKS_REP_FAILURE, EGRESS_R_SHUTTING_DOWN, NULL);
		return;
	}
	if (!dlog_admits(c->px->log, c->gen->conf->log_failure_serve)) {
		refuse(c, SOCKS_REP_FAILURE, EGRESS_R_LOG_UNAVAILABLE, NULL);
		return;
	}
	if (conn_enter(c, CONN_CONNECTING) == -1) {
		conn_close(c);
		return;
	}
	c->ob = outbound_start(c->px, c->gen, &c->target, NULL, connected_cb,
	    c);
	if (c->ob == NULL)
		refuse(c, SOCKS_REP_REFUSED, EGRESS_R_CONNECT_FAILED, NULL);
}

/*
 * Bytes of the greeting or the request.  A client that sends its request
 * right after its greeting, without waiting for the method (most do), is
 * answered both in this one callback.
 */
static void
socks_read(struct bufferevent *bev, void *arg)
{
	struct evbuffer *in = bufferevent_get_input(bev);
	struct conn *c = arg;

	if (c->step == STEP_GREETING && greeting(c, in) == -1)
		return;
	request(c, in);
}

static void
socks_free(struct conn *c)
{
	conn_log_cancel(c);
	if (c->held_fd != -1)
		(void)close(c->held_fd);
	c->held_fd = -1;
}

static bool
socks_client_eof(struct conn *c)
{
	return false;
}

/* A SOCKS5 client's first byte is its version. */
static bool
socks_claims(unsigned char first)
{
	return first == 0x05;
}

/* No acceptable method (05 FF), as over max_connections. */
static int
socks_refuse_unread(char *buf, size_t len, enum egress_reason why,
    const char *body, const char *first, size_t got)
{
	static const unsigned char no_method[2] = { 0x05, 0xff };

	if (len >= sizeof(no_method))
		memcpy(buf, no_method, sizeof(no_method));
	return (int)sizeof(no_method);
}

const struct conn_proto socks_proto = {
	.proto = PROXY_SOCKS5,
	.claims = socks_claims,
	.refuse_unread = socks_refuse_unread,
	.request_read = socks_read,
	.timeout = socks_timeout,
	.refuse = socks_refuse,
	.client_eof = socks_client_eof,
	.free = socks_free,
};
