/*
 * SOCKS5 (RFC 1928), CONNECT only, no authentication.  Replies as SPEC 4:
 * 07 for BIND and UDP ASSOCIATE, 08 for an unknown address type, 02 for a
 * policy refusal or an invalid target, 04 DNS failure, 05 refused,
 * 06 timeout, 00 with BND 0.0.0.0:0 on success.
 */
#include <string.h>
#include <sys/socket.h>

#include "proxy/internal.h"

#define SOCKS_VERSION		5
#define SOCKS_NO_AUTH		0x00
#define SOCKS_NO_METHOD		0xff
#define SOCKS_CMD_CONNECT	1
#define SOCKS_ATYP_V4		1
#define SOCKS_ATYP_DOMAIN	3
#define SOCKS_ATYP_V6		4

enum socks_rep {
	REP_OK = 0x00,
	REP_FAILURE = 0x01,
	REP_NOT_ALLOWED = 0x02,
	REP_HOST_UNREACHABLE = 0x04,
	REP_REFUSED = 0x05,
	REP_TTL_EXPIRED = 0x06,
	REP_CMD_UNSUPPORTED = 0x07,
	REP_ATYP_UNSUPPORTED = 0x08,
};

static void	request_cb(struct bufferevent *, void *);

/*
 * A reply is a few bytes on a socket with nothing queued: sent at once, it
 * costs no trip through the loop for write readiness.  What the socket
 * does not take is queued.
 */
static void
send_now(struct conn *c, const uint8_t *b, size_t len)
{
	ssize_t n = 0;

	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0 &&
	    (n = send(c->fd, b, len, MSG_NOSIGNAL | MSG_DONTWAIT)) < 0)
		n = 0;
	if ((size_t)n < len)
		bufferevent_write(c->bev, b + n, len - (size_t)n);
}

static void
send_reply(struct conn *c, enum socks_rep rep)
{
	const uint8_t r[10] = { SOCKS_VERSION, rep, 0, SOCKS_ATYP_V4 };

	send_now(c, r, sizeof(r));
}

/* Log, reply, close once the reply is out. */
static void
refuse(struct conn *c, enum socks_rep rep, enum egress_reason reason)
{
	conn_log(c, false, reason, NULL);
	send_reply(c, rep);
	conn_close_after_flush(c);
}

static enum socks_rep
rep_for(enum egress_reason r)
{
	switch (r) {
	case EGRESS_R_DNS_FAILURE:
		return REP_HOST_UNREACHABLE;
	case EGRESS_R_CONNECT_FAILED:
		return REP_REFUSED;
	case EGRESS_R_CONNECT_TIMEOUT:
		return REP_TTL_EXPIRED;
	case EGRESS_R_LIMIT_EXCEEDED:
	case EGRESS_R_LOG_UNAVAILABLE:
	case EGRESS_R_SHUTTING_DOWN:
		return REP_FAILURE;	/* ours, not the target's */
	default:
		return REP_NOT_ALLOWED;
	}
}

/* Refused from outside the exchange (the drain ended): reply, log, close. */
void
socks_refuse(struct conn *c, enum egress_reason reason)
{
	refuse(c, rep_for(reason), reason);
}

static void
connected_cb(const struct outbound_result *res, void *arg)
{
	static const uint8_t ok[10] = { SOCKS_VERSION, REP_OK, 0,
	    SOCKS_ATYP_V4 };
	struct conn *c = arg;

	c->ob = NULL;
	if (res->fd == -1) {
		refuse(c, rep_for(res->reason), res->reason);
		return;
	}
	conn_log(c, true, res->reason, &res->addr);
	conn_start_tunnel(c, res->fd, ok, sizeof(ok));
}

/* The greeting: VER NMETHODS METHODS. */
static void
greeting_cb(struct bufferevent *bev, void *arg)
{
	static const uint8_t yes[2] = { SOCKS_VERSION, SOCKS_NO_AUTH };
	static const uint8_t no[2] = { SOCKS_VERSION, SOCKS_NO_METHOD };
	struct evbuffer *in = bufferevent_get_input(bev);
	struct conn *c = arg;
	uint8_t buf[2 + 255];
	size_t len = evbuffer_get_length(in);

	if (len < 2)
		return;
	evbuffer_copyout(in, buf, 2);
	if (len < 2u + buf[1])
		return;
	evbuffer_remove(in, buf, 2u + buf[1]);
	if (c->over_limit) {
		send_now(c, no, sizeof(no));
		conn_log(c, false, EGRESS_R_LIMIT_EXCEEDED, NULL);
		conn_close_after_flush(c);
		return;
	}
	if (memchr(buf + 2, SOCKS_NO_AUTH, buf[1]) == NULL) {
		send_now(c, no, sizeof(no));
		conn_log(c, false, EGRESS_R_INVALID_REQUEST, NULL);
		conn_close_after_flush(c);
		return;
	}
	send_now(c, yes, sizeof(yes));
	conn_set_callbacks(c, request_cb, NULL);
	request_cb(bev, c);
}

/*
 * The target of a request: sets c->target and *used, and returns REP_OK or
 * the reply to refuse with; -1 while bytes are still missing.
 */
static int
parse_target(struct conn *c, const uint8_t *b, size_t len, size_t *used)
{
	const char *err;
	size_t alen;
	uint16_t port;

	switch (b[3]) {
	case SOCKS_ATYP_V4:
		alen = 4;
		break;
	case SOCKS_ATYP_V6:
		alen = 16;
		break;
	case SOCKS_ATYP_DOMAIN:
		if (len < 5)
			return -1;
		alen = 1 + b[4];
		break;
	default:
		return REP_ATYP_UNSUPPORTED;
	}
	if (len < 4 + alen + 2)
		return -1;
	*used = 4 + alen + 2;
	port = (uint16_t)(b[4 + alen] << 8 | b[5 + alen]);
	memset(&c->target, 0, sizeof(c->target));
	if (b[3] == SOCKS_ATYP_V4) {
		c->target.is_addr = true;
		egress_addr_from_v4(&c->target.addr, (uint32_t)b[4] << 24 |
		    (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7]);
		egress_addr_format(&c->target.addr, c->target.host,
		    sizeof(c->target.host));
	} else if (b[3] == SOCKS_ATYP_V6) {
		c->target.is_addr = true;
		egress_addr_from_v6(&c->target.addr, b + 4);
		egress_addr_format(&c->target.addr, c->target.host,
		    sizeof(c->target.host));
	} else if (egress_host_parse((const char *)b + 5, b[4], &c->target,
	    &err) == -1) {
		memset(&c->target, 0, sizeof(c->target));
		return REP_NOT_ALLOWED;
	}
	if (port == 0) {
		memset(&c->target, 0, sizeof(c->target));
		return REP_NOT_ALLOWED;
	}
	c->target.port = port;
	return REP_OK;
}

/* The request: VER CMD RSV ATYP DST.ADDR DST.PORT. */
static void
request_cb(struct bufferevent *bev, void *arg)
{
	struct evbuffer *in = bufferevent_get_input(bev);
	struct conn *c = arg;
	uint8_t b[4 + 1 + 255 + 2];
	ev_ssize_t n;
	size_t len, used = 0;
	int rep;

	if ((n = evbuffer_copyout(in, b, sizeof(b))) < 4)
		return;
	len = (size_t)n;
	if (b[0] != SOCKS_VERSION) {
		conn_log(c, false, EGRESS_R_INVALID_REQUEST, NULL);
		conn_close(c);
		return;
	}
	if (b[1] != SOCKS_CMD_CONNECT) {
		evbuffer_drain(in, len);
		refuse(c, REP_CMD_UNSUPPORTED, EGRESS_R_UNSUPPORTED_COMMAND);
		return;
	}
	if ((rep = parse_target(c, b, len, &used)) == -1)
		return;
	evbuffer_drain(in, used ? used : len);
	if (rep == REP_ATYP_UNSUPPORTED) {
		refuse(c, rep, EGRESS_R_INVALID_REQUEST);
		return;
	}
	if (rep != REP_OK) {
		refuse(c, rep, EGRESS_R_INVALID_TARGET);
		return;
	}
	/* A draining proxy, or an audit log that fails or is behind,
	 * admits nothing new. */
	if (c->px->draining) {
		refuse(c, REP_FAILURE, EGRESS_R_SHUTTING_DOWN);
		return;
	}
	if (!dlog_admits(c->px->log, c->gen->conf->log_failure_serve)) {
		refuse(c, REP_FAILURE, EGRESS_R_LOG_UNAVAILABLE);
		return;
	}
	c->state = CONN_CONNECTING;
	evtimer_del(c->head_timer);	/* connect_timeout rules from here */
	conn_hold(c);
	c->ob = outbound_start(c->px, c->gen, &c->target, connected_cb, c);
	if (c->ob == NULL)
		refuse(c, REP_REFUSED, EGRESS_R_CONNECT_FAILED);
}

void
socks_start(struct conn *c)
{
	c->state = CONN_SOCKS;
	conn_set_callbacks(c, greeting_cb, NULL);
	greeting_cb(c->bev, c);
}
