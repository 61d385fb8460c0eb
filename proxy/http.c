/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP/1.1 requests (SPEC 4): a head read and checked, its target decided;
 * CONNECT then becomes a tunnel, an absolute-form request is forwarded
 * (forward.c).  Refusals carry the status, X-Harn-Egress-Reason, a reason
 * phrase naming harn-egressd, a one-line body and Connection: close.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy/http.h"

static void	head_read_cb(struct bufferevent *, void *);
static void	head_taken(struct conn *);

static const char *
status_text(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 408: return "Request Timeout";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	}
	return "Error";
}

static int
status_for(enum egress_reason r)
{
	switch (r) {
	case EGRESS_R_INVALID_REQUEST:
	case EGRESS_R_INVALID_TARGET:
		return 400;
	case EGRESS_R_DNS_FAILURE:
	case EGRESS_R_CONNECT_FAILED:
		return 502;
	case EGRESS_R_CONNECT_TIMEOUT:
		return 504;
	case EGRESS_R_LIMIT_EXCEEDED:
	case EGRESS_R_LOG_UNAVAILABLE:
	case EGRESS_R_SHUTTING_DOWN:
		return 503;
	default:
		return 403;
	}
}

/* What a person can do about a refusal, when the reason alone is terse. */
static const char *
reason_hint(enum egress_reason r)
{
	switch (r) {
	case EGRESS_R_NO_ALLOW_RULE:
		return "no allow rule in the policy covers it";
	case EGRESS_R_DENY_RULE:
		return "a deny rule in the policy matches";
	case EGRESS_R_METADATA_ADDRESS:
		return "a cloud metadata address: never allowed";
	case EGRESS_R_DNS_FAILURE:
		return "the name did not resolve";
	case EGRESS_R_INVALID_TARGET:
		return "not a valid host and port";
	case EGRESS_R_INVALID_REQUEST:
		return "not a request the proxy can read";
	case EGRESS_R_PROXY_LOOP:
		return "that is the proxy itself";
	case EGRESS_R_CONNECT_FAILED:
		return "the connection was refused or failed";
	case EGRESS_R_CONNECT_TIMEOUT:
		return "no answer within connect_timeout";
	case EGRESS_R_LIMIT_EXCEEDED:
		return "max_connections reached; try again later";
	case EGRESS_R_LOG_UNAVAILABLE:
		return "the decision log cannot take records";
	case EGRESS_R_SHUTTING_DOWN:
		return "the proxy is shutting down";
	default:
		return NULL;
	}
}

/*
 * One line a person can act on: what was refused, why, and the address
 * when one was judged, e.g. "harn-egressd: refused a.example:443:
 * private_address 203.0.113.80 (special-purpose 203.0.113.0/24; see exempt
 * in egress.conf(5))".
 */
static void
refusal_body(struct conn *c, enum egress_reason reason,
    const struct egress_addr *addr, char *buf, size_t len)
{
	char target[EGRESS_HOST_MAX + 16] = "", a[EGRESS_ADDRSTR_MAX + 1] = "";
	char hint[200];
	const char *detail = c->detail;

	if (c->target.host[0] != '\0')
		snprintf(target, sizeof(target), c->target.is_addr &&
		    strchr(c->target.host, ':') != NULL ? " [%s]:%u" :
		    " %s:%u", c->target.host, c->target.port);
	if (addr != NULL) {
		a[0] = ' ';
		egress_addr_format(addr, a + 1, sizeof(a) - 1);
	}
	if (detail == NULL && reason == EGRESS_R_PRIVATE_ADDRESS &&
	    addr != NULL && egress_special_hint(c->gen->conf->policy, addr,
	    hint, sizeof(hint)) > 0)
		detail = hint;
	if (detail == NULL)
		detail = reason_hint(reason);
	snprintf(buf, len, "harn-egressd: refused%s: %s%s%s%s%s\n", target,
	    egress_reason_name(reason), a, detail ? " (" : "",
	    detail ? detail : "", detail ? ")" : "");
}

/*
 * The status line names harn-egressd and the reason: clients that show
 * only the phrase (wget, Python) then say why.  The answer to a HEAD has
 * no body (RFC 9110 9.3.2); its Content-Length says what a GET would get.
 */
int
http_refusal(char *buf, size_t len, int status, enum egress_reason reason,
    const char *body, bool head)
{
	const char *why = egress_reason_name(reason);

	return snprintf(buf, len, "HTTP/1.1 %d %s by harn-egressd: %s\r\n"
	    "X-Harn-Egress-Reason: %s\r\n"
	    "Content-Type: text/plain\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\n%s", status, status_text(status), why,
	    why, strlen(body), head ? "" : body);
}

bool
http_begins_head(const char *b, size_t len)
{
	size_t i = 0;

	while (i < len && (b[i] == '\r' || b[i] == '\n'))
		i++;
	return len - i >= 5 && memcmp(b + i, "HEAD ", 5) == 0;
}

/* Did the client ask with HEAD, as far as its bytes tell? */
static bool
asked_head(struct conn *c)
{
	char b[64];
	ev_ssize_t n;

	if (http_of(c)->req != NULL)
		return http_of(c)->req->head_method;
	n = evbuffer_copyout(bufferevent_get_input(c->bev), b, sizeof(b));
	return n > 0 && http_begins_head(b, (size_t)n);
}

/* The refusal kept in c->logres, once its line is written (or not). */
static void
refuse_logged(struct conn *c, int rc)
{
	char body[EGRESS_HOST_MAX + 512], resp[EGRESS_HOST_MAX + 1024];
	const struct egress_addr *addr = c->logres.has_addr ?
	    &c->logres.addr : NULL;
	enum egress_reason reason = c->logres.reason;
	int n, status = c->logstatus;

	if (rc == -1) {
		status = status_for(EGRESS_R_LOG_UNAVAILABLE);
		reason = EGRESS_R_LOG_UNAVAILABLE;
		addr = NULL;
		c->detail = NULL;
	}
	refusal_body(c, reason, addr, body, sizeof(body));
	n = http_refusal(resp, sizeof(resp), status, reason, body,
	    asked_head(c));
	if (n > 0 && (size_t)n < sizeof(resp) &&
	    conn_write(c, resp, (size_t)n) == -1)
		return;
	conn_close_after_flush(c);
}

static void
refuse(struct conn *c, int status, enum egress_reason reason,
    const struct egress_addr *addr)
{
	int rc;

	if (c->logwait != NULL)
		return;		/* its answer waits for its line already */
	c->logstatus = status;
	c->logres = (struct outbound_result){ .fd = -1, .reason = reason,
	    .has_addr = addr != NULL };
	if (addr != NULL)
		c->logres.addr = *addr;
	rc = conn_log_wait(c, false, reason, EGRESS_R_NONE, addr,
	    refuse_logged);
	if (rc != 1)
		refuse_logged(c, rc);
}

void
http_refuse_status(struct conn *c, int status, enum egress_reason reason)
{
	refuse(c, status, reason, NULL);
}

void
http_refuse(struct conn *c, enum egress_reason reason)
{
	refuse(c, status_for(reason), reason, NULL);
}

void
http_req_free(struct conn *c)
{
	forward_free(c);
	if (http_of(c)->req != NULL) {
		free(http_of(c)->req->head);
		free(http_of(c)->req);
		http_of(c)->req = NULL;
	}
}

/* Everything HTTP holds for this connection, kept origin included. */
static void
http_free(struct conn *c)
{
	conn_log_cancel(c);
	if (c->pstate == NULL)
		return;		/* its init failed */
	http_req_free(c);
	kept_drop(c);
	if (http_of(c)->pace != NULL)
		event_free(http_of(c)->pace);
	http_of(c)->pace = NULL;
	if (http_of(c)->tunnel_fd != -1)
		close(http_of(c)->tunnel_fd);
	http_of(c)->tunnel_fd = -1;
}

/* Ready for the next request on a kept-alive connection. */
/* Sniffed as HTTP: its state (conn_close frees it). */
static int
http_init(struct conn *c)
{
	if ((c->pstate = calloc(1, sizeof(struct http_conn))) == NULL)
		return -1;
	http_of(c)->tunnel_fd = -1;
	return 0;
}

/* The next request on a kept-alive client connection. */
static void
http_next_request(struct conn *c)
{
	http_req_free(c);
	head_taken(c);
	conn_next_request(c);
	if (conn_enter(c, CONN_IDLE) == -1) {
		conn_close(c);
		return;
	}
	if (evbuffer_get_length(bufferevent_get_input(c->bev)) > 0)
		head_read_cb(c->bev, c);
}

/* RFC 9110 9.2.2: a request that may be sent again with the same effect. */
static bool
method_is_idempotent(const char *m, size_t len)
{
	static const char *const idem[] = { "GET", "HEAD", "OPTIONS", "TRACE",
	    "PUT", "DELETE", NULL };
	size_t i;

	for (i = 0; idem[i] != NULL; i++)
		if (len == strlen(idem[i]) && memcmp(m, idem[i], len) == 0)
			return true;
	return false;
}

/* "METHOD TARGET HTTP/1.x" */
static int
parse_request_line(struct http_req *r, char **target, size_t *tlen)
{
	char *s = r->msg.start, *sp1, *sp2, *end = s + r->msg.slen;
	size_t i;

	sp1 = memchr(s, ' ', end - s);
	if (sp1 == NULL || sp1 == s)
		return -1;
	sp2 = memchr(sp1 + 1, ' ', end - sp1 - 1);
	if (sp2 == NULL || sp2 == sp1 + 1)
		return -1;
	if (end - sp2 - 1 != 8 || (strncmp(sp2 + 1, "HTTP/1.1", 8) != 0 &&
	    strncmp(sp2 + 1, "HTTP/1.0", 8) != 0))
		return -1;
	for (i = 0; s + i < sp1; i++)
		if (s[i] < 'A' || s[i] > 'Z')
			return -1;
	for (i = 1; sp1 + i < sp2; i++)
		if ((unsigned char)sp1[i] <= 0x20 || sp1[i] == 0x7f)
			return -1;
	r->connect = sp1 - s == 7 && strncmp(s, "CONNECT", 7) == 0;
	r->idempotent = method_is_idempotent(s, (size_t)(sp1 - s));
	r->http10 = sp2[8] == '0';
	r->client_close = r->http10;	/* HTTP/1.0: close unless asked */
	*target = sp1 + 1;
	*tlen = sp2 - sp1 - 1;
	return 0;
}

/* CONNECT's authority-form target: host:port, nothing else. */
static enum egress_reason
connect_target(struct conn *c, const char *t, size_t len)
{
	const char *err;

	if (memchr(t, '/', len) != NULL || memchr(t, '@', len) != NULL ||
	    egress_target_parse(t, len, &c->target, &err) == -1) {
		memset(&c->target, 0, sizeof(c->target));
		return EGRESS_R_INVALID_TARGET;
	}
	return EGRESS_R_NONE;
}

/* Absolute-form: http://authority[/path][?query]. */
static enum egress_reason
absolute_target(struct conn *c, char *t, size_t len)
{
	struct http_req *r = http_of(c)->req;
	const char *err;
	size_t alen;

	if (len >= 8 && strncasecmp(t, "https://", 8) == 0) {
		c->detail = "use CONNECT for https";
		return EGRESS_R_INVALID_REQUEST;
	}
	if (len < 7 || strncasecmp(t, "http://", 7) != 0) {
		c->detail = "not a proxy request: send GET http://host/path "
		    "or CONNECT host:port to harn-egressd";
		return EGRESS_R_INVALID_REQUEST;
	}
	for (alen = 7; alen < len && t[alen] != '/' && t[alen] != '?' &&
	    t[alen] != '#'; alen++)
		;
	if (memchr(t + 7, '@', alen - 7) != NULL) {
		c->detail = "userinfo in the URL";
		return EGRESS_R_INVALID_REQUEST;
	}
	if (egress_target_parse(t, alen, &c->target, &err) == -1) {
		memset(&c->target, 0, sizeof(c->target));
		return EGRESS_R_INVALID_TARGET;
	}
	r->path = t + alen;
	r->pathlen = len - alen;
	if (memchr(r->path, '#', r->pathlen) != NULL)
		r->pathlen = (char *)memchr(r->path, '#', r->pathlen) - r->path;
	return EGRESS_R_NONE;
}

/* The Host header, when given, must name the URL's host and port. */
static int
check_host(struct conn *c)
{
	const struct httpmsg *m = &http_of(c)->req->msg;
	struct egress_target h;
	const char *err;
	char buf[EGRESS_HOST_MAX + 16];
	size_t i, n = 0;

	for (i = 0; i < m->nheaders; i++) {
		if (!httpmsg_name_is(&m->headers[i], "Host"))
			continue;
		if (++n > 1 || m->headers[i].vlen + 7 >= sizeof(buf))
			return -1;
		memcpy(buf, "http://", 7);
		memcpy(buf + 7, m->headers[i].value, m->headers[i].vlen);
		if (egress_target_parse(buf, m->headers[i].vlen + 7, &h,
		    &err) == -1 || h.port != c->target.port ||
		    strcmp(h.host, c->target.host) != 0)
			return -1;
	}
	return 0;
}

static void
note_connection_tokens(struct http_req *r)
{
	const struct httpmsg_header *h;
	size_t i;

	for (i = 0; i < r->msg.nheaders; i++) {
		h = &r->msg.headers[i];
		if (!httpmsg_name_is(h, "Connection") &&
		    !httpmsg_name_is(h, "Proxy-Connection"))
			continue;
		if (httpmsg_value_has(h->value, h->vlen, "close"))
			r->client_close = true;
		else if (httpmsg_value_has(h->value, h->vlen, "keep-alive"))
			r->client_close = false;
	}
}

/* The head's bytes leave the buffer: the next head starts afresh. */
static void
head_taken(struct conn *c)
{
	http_of(c)->head_scan.pos = 0;
	http_of(c)->head_reads = 0;
}

/*
 * A head that keeps coming in small pieces is read at most once per
 * HEAD_PACE_MS once it has taken HEAD_PACE_AFTER reads: each read of a
 * segment costs a wakeup and its system calls whatever it holds, so a
 * client trickling its head a byte per segment would cost the loop one
 * per byte.  Paced, it costs one per interval, and what came meanwhile is
 * read at once.  A head sent promptly takes a read or two: never paced.
 */
#define HEAD_PACE_AFTER	8
#define HEAD_PACE_MS	10

static void
pace_end_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)what;
	/* Refused or timed out meanwhile: reading is not ours to resume. */
	if (c->state != CONN_REQUEST)
		return;
	if (bufferevent_enable(c->bev, EV_READ) == -1)
		conn_close(c);
}

/* The head is not all in: wait for more, paced.  -1: c was closed. */
static int
head_wait(struct conn *c)
{
	struct http_conn *h = http_of(c);
	struct timeval tv = { 0, HEAD_PACE_MS * 1000 };

	if (++h->head_reads < HEAD_PACE_AFTER)
		return 0;
	if ((h->pace == NULL && (h->pace = evtimer_new(c->px->base,
	    pace_end_cb, c)) == NULL) ||
	    bufferevent_disable(c->bev, EV_READ) == -1 ||
	    evtimer_add(h->pace, &tv) == -1) {
		conn_close(c);
		return -1;
	}
	return 0;
}

/* Parse the head; returns EGRESS_R_NONE or the reason to refuse. */
static enum egress_reason
parse_request(struct conn *c, size_t headlen)
{
	struct http_req *r;
	char *target;
	size_t tlen;

	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (r->head = malloc(headlen)) == NULL) {
		free(r);
		return EGRESS_R_INVALID_REQUEST;
	}
	http_of(c)->req = r;
	head_taken(c);
	if (evbuffer_remove(bufferevent_get_input(c->bev), r->head,
	    headlen) != (int)headlen)
		return EGRESS_R_INVALID_REQUEST;
	r->head_method = http_begins_head(r->head, headlen);
	if (httpmsg_parse(r->head, headlen, &r->msg) != HTTPMSG_OK ||
	    parse_request_line(r, &target, &tlen) == -1)
		return EGRESS_R_INVALID_REQUEST;
	note_connection_tokens(r);
	if (r->connect) {
		c->proto = PROXY_HTTP_CONNECT;
		return connect_target(c, target, tlen);
	}
	return absolute_target(c, target, tlen);
}

/*
 * A Connection header naming a framing header: the client would have it
 * dropped on the way (hop-by-hop) while we frame the body by it, and what
 * follows would reach the origin as a request nobody decided.  Refused.
 */
static bool
names_framing(const struct http_req *r)
{
	const struct httpmsg_header *h;
	size_t i;

	for (i = 0; i < r->msg.nheaders; i++) {
		h = &r->msg.headers[i];
		if (httpmsg_name_is(h, "Connection") &&
		    (httpmsg_value_has(h->value, h->vlen, "Content-Length") ||
		    httpmsg_value_has(h->value, h->vlen, "Transfer-Encoding")))
			return true;
	}
	return false;
}

/* Checks that need the target: Host agreement and body framing. */
static enum egress_reason
check_request(struct conn *c)
{
	struct http_req *r = http_of(c)->req;

	if (r->connect)
		return EGRESS_R_NONE;
	if (check_host(c) == -1)
		c->detail = "the Host header does not name the URL's host";
	else if (names_framing(r))
		c->detail = "Connection names a framing header";
	else if (httpmsg_framing(&r->msg, &r->body) == -1)
		c->detail = "the body's length is ambiguous";
	else
		return EGRESS_R_NONE;
	return EGRESS_R_INVALID_REQUEST;
}

/*
 * Bytes that cannot begin a request line (a SOCKS4 greeting, TLS, binary)
 * are refused at once rather than waited on until the header timeout.
 */
static bool
cannot_be_http(struct evbuffer *in)
{
	unsigned char b[24];
	ev_ssize_t n = evbuffer_copyout(in, b, sizeof(b));
	ev_ssize_t i = 0;

	while (i < n && (b[i] == '\r' || b[i] == '\n'))
		i++;
	for (; i < n && b[i] != ' '; i++)
		if (b[i] < 'A' || b[i] > 'Z')
			return true;
	return n == (ev_ssize_t)sizeof(b) && i == n;
}

static void	allowed_logged(struct conn *, int);

static const char established[] =
    "HTTP/1.1 200 Connection established\r\n\r\n";

/* The 200 and all before it are with the client: the tunnel starts. */
static void
tunnel_go(struct conn *c)
{
	int fd = http_of(c)->tunnel_fd;

	http_of(c)->tunnel_fd = -1;
	http_free(c);
	conn_start_tunnel(c, fd, established, 0);
}

static void
tunnel_flushed_cb(struct bufferevent *bev, void *arg)
{
	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		tunnel_go(arg);
}

/* The client fails or takes nothing for idle_timeout meanwhile. */
static void
tunnel_flush_event_cb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	if (what & (BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
		conn_close(arg);	/* http_free closes the origin */
}

/*
 * CONNECT allowed: its 200 goes to the client after everything queued
 * for it before (the rest of a response to a request pipelined ahead of
 * this one), and whole, before the tunnel takes the socket, since the
 * tunnel writes to it directly and conn_start_tunnel frees the queue.  A
 * socket that takes it at once (the usual case) costs no loop pass; one
 * that is full or has bytes queued ahead gets it queued, and the tunnel
 * starts when the queue is empty, bounded by idle_timeout.
 */
static void
tunnel_start(struct conn *c, int fd)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	struct timeval idle = ms_timeval(c->gen->conf->idle_timeout);
	ssize_t n = 0;

	http_of(c)->tunnel_fd = fd;
	if (evbuffer_get_length(out) == 0 && (n = send(c->fd, established,
	    sizeof(established) - 1, MSG_NOSIGNAL | MSG_DONTWAIT)) < 0)
		n = 0;
	if ((size_t)n == sizeof(established) - 1) {
		tunnel_go(c);
		return;
	}
	bufferevent_setcb(c->bev, NULL, tunnel_flushed_cb,
	    tunnel_flush_event_cb, c);
	bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
	if (bufferevent_set_timeouts(c->bev, NULL, &idle) == -1 ||
	    conn_write(c, established + n, sizeof(established) - 1 -
	    (size_t)n) == -1)
		return;		/* closed */
	if (evbuffer_get_length(out) == 0)
		tunnel_go(c);
}

static void
connected_cb(const struct outbound_result *res, void *arg)
{
	struct conn *c = arg;

	c->ob = NULL;
	if (res->fd == -1 && !res->reuse) {
		refuse(c, status_for(res->reason), res->reason,
		    res->has_addr ? &res->addr : NULL);
		return;
	}
	conn_allowed(c, res, allowed_logged);
}

/* The allow kept in c->logres, once its line is written (or not). */
static void
allowed_logged(struct conn *c, int rc)
{
	struct outbound_result r = c->logres;
	const struct outbound_result *res = &r;

	/* The origin's socket is passed on (or closed) here, kept nowhere. */
	c->logres.fd = -1;
	if (rc == -1) {
		if (res->fd != -1)
			close(res->fd);
		http_refuse(c, EGRESS_R_LOG_UNAVAILABLE);
		return;
	}
	if (res->reuse)
		forward_start_kept(c, &res->addr, res->reason);
	else if (http_of(c)->req->connect)
		tunnel_start(c, res->fd);
	else
		forward_start(c, res->fd, &res->addr, res->reason);
}

/*
 * Over max_connections: refused limit_exceeded once the head is in (the
 * header timeout bounds the wait, as for any request), and logged with
 * what it asked for: CONNECT and its target, or the URL's host and port.
 */
static void
refuse_over_limit(struct conn *c, struct evbuffer *in, size_t limit)
{
	size_t end = httpmsg_head_scan(in, limit, &http_of(c)->head_scan);

	if (end == 0 && evbuffer_get_length(in) < limit && !cannot_be_http(in)) {
		(void)head_wait(c);
		return;
	}
	if (end != 0 && end <= limit)
		(void)parse_request(c, end);
	http_refuse(c, EGRESS_R_LIMIT_EXCEEDED);
}

static void
head_read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	uint32_t limit = c->gen->conf->max_header_bytes;
	const struct egress_addr *reuse = NULL;
	enum egress_reason why;
	size_t end;

	if (c->state == CONN_IDLE && conn_enter(c, CONN_REQUEST) == -1) {
		conn_close(c);
		return;
	}
	if (c->over_limit) {
		refuse_over_limit(c, in, limit);
		return;
	}
	if (http_of(c)->req == NULL && cannot_be_http(in)) {
		c->detail = "not HTTP (a SOCKS5 client sends 0x05 first)";
		http_refuse(c, EGRESS_R_INVALID_REQUEST);
		return;
	}
	if ((end = httpmsg_head_scan(in, limit, &http_of(c)->head_scan)) ==
	    0) {
		if (evbuffer_get_length(in) >= limit) {
			c->detail = "request head over max_header_bytes";
			http_refuse_status(c, 431, EGRESS_R_INVALID_REQUEST);
		} else
			(void)head_wait(c);
		return;
	}
	if (end > limit) {
		c->detail = "request head over max_header_bytes";
		http_refuse_status(c, 431, EGRESS_R_INVALID_REQUEST);
		return;
	}
	conn_policy_now(c);
	if ((why = parse_request(c, end)) == EGRESS_R_NONE)
		why = check_request(c);
	/* A draining proxy, or an audit log that fails or is behind,
	 * admits nothing new. */
	if (why == EGRESS_R_NONE && c->px->draining)
		why = EGRESS_R_SHUTTING_DOWN;
	if (why == EGRESS_R_NONE &&
	    !dlog_admits(c->px->log, c->gen->conf->log_failure_serve))
		why = EGRESS_R_LOG_UNAVAILABLE;
	if (why != EGRESS_R_NONE) {
		http_refuse(c, why);
		return;
	}
	if (conn_enter(c, CONN_CONNECTING) == -1) {
		conn_close(c);
		return;
	}
	if (!http_of(c)->req->connect)
		reuse = kept_reusable(c);
	else
		kept_drop(c);
	c->ob = outbound_start(c->px, c->gen, &c->target, reuse, connected_cb,
	    c);
	if (c->ob == NULL)
		http_refuse(c, EGRESS_R_CONNECT_FAILED);
}

/* The head took over header_timeout: 408 (503 over the limit). */
static void
http_timeout(struct conn *c)
{
	if (c->over_limit) {
		http_refuse(c, EGRESS_R_LIMIT_EXCEEDED);
		return;
	}
	c->detail = "the request head took over header_timeout";
	http_refuse_status(c, 408, EGRESS_R_INVALID_REQUEST);
}

/*
 * The request's body is not framed as it says (a chunk line that is not
 * one): the client is told 400 unless a response to it is already under
 * way.  The request's decision is already logged.
 */
static void
bad_request_body(struct conn *c)
{
	static const char body[] = "harn-egressd: refused: invalid_request "
	    "(the request body's chunked framing is malformed)\n";
	char resp[512];
	int n;

	if (!http_of(c)->fwd->resp_head) {
		n = http_refusal(resp, sizeof(resp), 400,
		    EGRESS_R_INVALID_REQUEST, body,
		    http_of(c)->req->head_method);
		if (n > 0 && (size_t)n < sizeof(resp) &&
		    conn_write(c, resp, (size_t)n) == -1)
			return;
	}
	conn_close_after_flush(c);
}

/* What forward.c says follows an exchange. */
static void
http_relay_over(struct conn *c, enum relay_next next)
{
	switch (next) {
	case RELAY_NEXT:
		http_next_request(c);
		return;
	case RELAY_BAD_BODY:
		bad_request_body(c);
		return;
	case RELAY_CLOSE:
		break;
	}
	conn_close_after_flush(c);
}

/* The 503 to a client no descriptor is left for. */
static int
http_refuse_unread(char *buf, size_t len, enum egress_reason why,
    const char *body, const char *first, size_t got)
{
	return http_refusal(buf, len, 503, why, body, got > 0 &&
	    http_begins_head(first, got));
}

/* HTTP has no claims: it takes whatever no other protocol claimed. */
const struct conn_proto http_proto = {
	.proto = PROXY_HTTP,
	.refuse_unread = http_refuse_unread,
	.init = http_init,
	.request_read = head_read_cb,
	.relay_read = forward_client_read_cb,
	.relay_write = forward_client_write_cb,
	.relay_over = http_relay_over,
	.timeout = http_timeout,
	.refuse = http_refuse,
	.client_eof = forward_client_eof,
	.free = http_free,
};
