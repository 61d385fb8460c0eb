/*
 * HTTP/1.1 proxying (SPEC 4): CONNECT tunnels, and absolute-form requests
 * forwarded one at a time, each decided anew, over a fresh origin
 * connection that closes after its response.  Refusals carry the status,
 * X-Harn-Egress-Reason, a one-line body and Connection: close.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "proxy/httpmsg.h"
#include "proxy/internal.h"

/* Headers that belong to one hop, or to the proxy: never forwarded. */
static const char *const hop_headers[] = {
	"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authorization",
	"Proxy-Authenticate", "TE", "Trailer", "Upgrade", NULL
};

struct http_req {
	char			*head;		/* owned; headers point into it */
	struct httpmsg		 msg;
	char			*path;		/* origin-form, into head */
	size_t			 pathlen;
	bool			 connect;
	bool			 head_method;
	bool			 client_close;	/* no further request after this */
	bool			 http10;
	struct httpmsg_body	 body;
};

struct http_fwd {
	struct bufferevent	*origin;
	bool			 req_done;	/* request body fully sent */
	bool			 resp_head;	/* final response head relayed */
	bool			 origin_eof;
	struct httpmsg_body	 resp;
};

static void	head_read_cb(struct bufferevent *, void *);
static void	head_watermark(struct conn *);

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
 * only the phrase (wget, Python) then say why.
 */
int
http_refusal(char *buf, size_t len, int status, enum egress_reason reason,
    const char *body)
{
	const char *why = egress_reason_name(reason);

	return snprintf(buf, len, "HTTP/1.1 %d %s by harn-egressd: %s\r\n"
	    "X-Harn-Egress-Reason: %s\r\n"
	    "Content-Type: text/plain\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\n%s", status, status_text(status), why,
	    why, strlen(body), body);
}

static void
refuse(struct conn *c, int status, enum egress_reason reason,
    const struct egress_addr *addr)
{
	char body[EGRESS_HOST_MAX + 512], resp[EGRESS_HOST_MAX + 1024];
	int n;

	conn_log(c, false, reason, addr);
	refusal_body(c, reason, addr, body, sizeof(body));
	n = http_refusal(resp, sizeof(resp), status, reason, body);
	if (n > 0 && (size_t)n < sizeof(resp))
		evbuffer_add(bufferevent_get_output(c->bev), resp, (size_t)n);
	conn_close_after_flush(c);
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

static void
fwd_free(struct http_fwd *f)
{
	if (f == NULL)
		return;
	if (f->origin != NULL)
		bufferevent_free(f->origin);
	free(f);
}

static void
req_free(struct http_req *r)
{
	if (r == NULL)
		return;
	free(r->head);
	free(r);
}

void
http_free(struct conn *c)
{
	fwd_free(c->fwd);
	c->fwd = NULL;
	req_free(c->req);
	c->req = NULL;
}

static void
head_timer_start(struct conn *c)
{
	uint32_t ms = c->gen->conf->header_timeout;
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	evtimer_add(c->head_timer, &tv);
}

/* Ready for the next request on a kept-alive connection. */
static void
next_request(struct conn *c)
{
	http_free(c);
	/* A reload applies from the next request on. */
	gen_release(c->gen);
	c->gen = gen_hold(c->px->gen);
	c->logged = false;
	c->detail = NULL;
	memset(&c->target, 0, sizeof(c->target));
	c->state = CONN_HTTP_HEAD;
	bufferevent_set_timeouts(c->bev, NULL, NULL);	/* the head timer's */
	head_timer_start(c);
	head_watermark(c);
	conn_set_callbacks(c, head_read_cb, NULL);
	bufferevent_enable(c->bev, EV_READ);
	if (evbuffer_get_length(bufferevent_get_input(c->bev)) > 0)
		head_read_cb(c->bev, c);
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
	r->head_method = sp1 - s == 4 && strncmp(s, "HEAD", 4) == 0;
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
	struct http_req *r = c->req;
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
	const struct httpmsg *m = &c->req->msg;
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
	c->req = r;
	evbuffer_remove(bufferevent_get_input(c->bev), r->head, headlen);
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
	struct http_req *r = c->req;

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

/* The request as the origin sees it: origin-form, our Host, no hop headers. */
static void
write_request_head(struct conn *c, struct evbuffer *out)
{
	struct http_req *r = c->req;
	const struct httpmsg_header *h;
	size_t i, mlen = (size_t)((char *)memchr(r->msg.start, ' ',
	    r->msg.slen) - r->msg.start);
	bool v6 = c->target.is_addr && !egress_addr_is_v4(&c->target.addr);

	evbuffer_add(out, r->msg.start, mlen);
	evbuffer_add(out, " ", 1);
	if (r->pathlen == 0 || r->path[0] != '/')
		evbuffer_add(out, "/", 1);
	evbuffer_add(out, r->path, r->pathlen);
	evbuffer_add_printf(out, " HTTP/1.1\r\nHost: %s%s%s", v6 ? "[" : "",
	    c->target.host, v6 ? "]" : "");
	if (c->target.port != 80)
		evbuffer_add_printf(out, ":%u", c->target.port);
	evbuffer_add(out, "\r\n", 2);
	for (i = 0; i < r->msg.nheaders; i++) {
		h = &r->msg.headers[i];
		if (is_hop_header(r, h))
			continue;
		evbuffer_add(out, h->name, h->nlen);
		evbuffer_add(out, ": ", 2);
		evbuffer_add(out, h->value, h->vlen);
		evbuffer_add(out, "\r\n", 2);
	}
	/* One request per origin connection: each request is decided anew. */
	evbuffer_add(out, "Connection: close\r\n\r\n", 21);
}

static void	forward_client_read_cb(struct bufferevent *, void *);
static void	origin_read_cb(struct bufferevent *, void *);
static void	origin_write_cb(struct bufferevent *, void *);
static void	origin_event_cb(struct bufferevent *, short, void *);
static void	client_write_cb(struct bufferevent *, void *);

/* The exchange is over: keep the client for another request, or close. */
static void
forward_done(struct conn *c)
{
	struct http_fwd *f = c->fwd;

	if (c->req->client_close || !f->req_done ||
	    f->resp.kind == BODY_UNTIL_CLOSE || c->px->draining) {
		conn_close_after_flush(c);
		return;
	}
	next_request(c);
}

bool
http_client_eof(struct conn *c)
{
	if (c->fwd == NULL || c->req == NULL || !c->fwd->req_done)
		return false;	/* the request itself is cut short */
	c->req->client_close = true;
	bufferevent_disable(c->bev, EV_READ);
	return true;
}

/* Send what the request body framing allows; stop reading when full. */
static void
relay_request(struct conn *c)
{
	struct http_fwd *f = c->fwd;
	struct evbuffer *out = bufferevent_get_output(f->origin);
	int rv;

	if (f->req_done)
		return;
	rv = httpmsg_relay_body(&c->req->body, bufferevent_get_input(c->bev),
	    out);
	if (rv == -1) {
		conn_close(c);
		return;
	}
	if (rv == 1) {
		f->req_done = true;
		/* Pipelined bytes wait until this exchange is over. */
		bufferevent_disable(c->bev, EV_READ);
		return;
	}
	if (evbuffer_get_length(out) >= RELAY_HIGH_WATER)
		bufferevent_disable(c->bev, EV_READ);
}

static void
forward_client_read_cb(struct bufferevent *bev, void *arg)
{
	relay_request(arg);
}

static void
origin_write_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	if (c->fwd != NULL && !c->fwd->req_done)
		bufferevent_enable(c->bev, EV_READ);
}

static void
client_write_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	if (c->fwd != NULL && !c->fwd->origin_eof)
		bufferevent_enable(c->fwd->origin, EV_READ);
}

static bool
status_has_no_body(int status)
{
	return (status >= 100 && status < 200) || status == 204 ||
	    status == 304;
}

/*
 * Relay a response head: hop-by-hop headers dropped, and Connection: close
 * added when the client connection ends with this response.
 */
static int
relay_response_head(struct conn *c, struct evbuffer *in, struct evbuffer *out)
{
	struct http_fwd *f = c->fwd;
	struct httpmsg m;
	size_t end, i;
	char *head;
	int status;

	if ((end = httpmsg_head_end(in, 65536)) == 0)
		return evbuffer_get_length(in) > 65536 ? -1 : 0;
	if ((head = malloc(end)) == NULL)
		return -1;
	evbuffer_remove(in, head, end);
	if (httpmsg_parse(head, end, &m) != HTTPMSG_OK ||
	    (status = httpmsg_status(&m)) == -1 ||
	    httpmsg_framing(&m, &f->resp) == -1) {
		free(head);
		return -1;
	}
	if (status_has_no_body(status) || c->req->head_method)
		f->resp.kind = BODY_NONE;
	else if (f->resp.kind == BODY_NONE)
		f->resp.kind = BODY_UNTIL_CLOSE;	/* no length: until EOF */
	evbuffer_add(out, m.start, m.slen);
	evbuffer_add(out, "\r\n", 2);
	for (i = 0; i < m.nheaders; i++) {
		if (is_hop_name(&m.headers[i]))
			continue;
		evbuffer_add(out, m.headers[i].name, m.headers[i].nlen);
		evbuffer_add(out, ": ", 2);
		evbuffer_add(out, m.headers[i].value, m.headers[i].vlen);
		evbuffer_add(out, "\r\n", 2);
	}
	if (status >= 100 && status < 200) {
		evbuffer_add(out, "\r\n", 2);
		free(head);
		return 1;	/* interim: the final head is still to come */
	}
	if (c->req->client_close || f->resp.kind == BODY_UNTIL_CLOSE ||
	    c->px->draining)
		evbuffer_add(out, "Connection: close\r\n", 19);
	else if (c->req->http10)
		evbuffer_add(out, "Connection: keep-alive\r\n", 24);
	evbuffer_add(out, "\r\n", 2);
	f->resp_head = true;
	free(head);
	return 1;
}

/* Move what the origin sent: 1 response complete, 0 more to come, -1 bad. */
static int
pump_response(struct conn *c)
{
	struct http_fwd *f = c->fwd;
	struct evbuffer *in = bufferevent_get_input(f->origin);
	struct evbuffer *out = bufferevent_get_output(c->bev);
	int rv;

	while (!f->resp_head) {
		if ((rv = relay_response_head(c, in, out)) != 1)
			return rv;
	}
	return httpmsg_relay_body(&f->resp, in, out);
}

/*
 * The origin's response cannot be relayed.  Before any of it reached the
 * client, the client is told so (502; the request's decision is already
 * logged); after, the connection ends, the response cut short.
 */
static void
bad_response(struct conn *c, const char *what)
{
	if (c->fwd != NULL && !c->fwd->resp_head)
		evbuffer_add_printf(bufferevent_get_output(c->bev),
		    "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n"
		    "Content-Length: %zu\r\nConnection: close\r\n\r\n"
		    "harn-egressd: %s\n", strlen(what) + 15, what);
	conn_close_after_flush(c);
}

static void
origin_read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	switch (pump_response(c)) {
	case -1:
		bad_response(c, "the origin's response is malformed");
		return;
	case 1:
		forward_done(c);
		return;
	}
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) >=
	    RELAY_HIGH_WATER)
		bufferevent_disable(bev, EV_READ);
}

/*
 * The origin closed or failed.  What it sent before still goes to the
 * client; a response that was not complete ends the client connection.
 */
static void
origin_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;
	int rv;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT)))
		return;
	c->fwd->origin_eof = true;
	rv = pump_response(c);
	if (rv == 1 || (rv == 0 && c->fwd->resp_head &&
	    c->fwd->resp.kind == BODY_UNTIL_CLOSE)) {
		c->fwd->resp.kind = BODY_UNTIL_CLOSE;	/* no reuse after EOF */
		forward_done(c);
		return;
	}
	bad_response(c, rv == -1 ? "the origin's response is malformed" :
	    "the origin closed before its response was complete");
}

static void
forward_start(struct conn *c, int fd)
{
	struct http_fwd *f;
	uint32_t ms = c->gen->conf->idle_timeout;
	struct timeval idle = { ms / 1000, (ms % 1000) * 1000 };

	if ((f = calloc(1, sizeof(*f))) == NULL) {
		close(fd);
		conn_close(c);
		return;
	}
	c->fwd = f;
	f->origin = bufferevent_socket_new(c->px->base, fd,
	    BEV_OPT_CLOSE_ON_FREE);
	if (f->origin == NULL) {
		close(fd);
		conn_close(c);
		return;
	}
	c->state = CONN_HTTP_FORWARD;
	bufferevent_setcb(f->origin, origin_read_cb, origin_write_cb,
	    origin_event_cb, c);
	bufferevent_setwatermark(f->origin, EV_WRITE, RELAY_HIGH_WATER / 2, 0);
	/*
	 * Every side bounded: an origin that sends or takes nothing, and a
	 * client that takes nothing (its reads stop the origin's, which would
	 * take the origin's read timeout with them), for idle_timeout.
	 */
	bufferevent_set_timeouts(f->origin, &idle, &idle);
	bufferevent_set_timeouts(c->bev, NULL, &idle);
	bufferevent_enable(f->origin, EV_READ | EV_WRITE);
	write_request_head(c, bufferevent_get_output(f->origin));
	conn_set_callbacks(c, forward_client_read_cb, client_write_cb);
	bufferevent_setwatermark(c->bev, EV_WRITE, RELAY_HIGH_WATER / 2, 0);
	bufferevent_setwatermark(c->bev, EV_READ, 0, RELAY_HIGH_WATER);
	bufferevent_enable(c->bev, EV_READ);
	relay_request(c);
}

static void
connected_cb(const struct outbound_result *res, void *arg)
{
	static const char established[] =
	    "HTTP/1.1 200 Connection established\r\n\r\n";
	struct conn *c = arg;

	c->ob = NULL;
	if (res->fd == -1) {
		refuse(c, status_for(res->reason), res->reason,
		    res->has_addr ? &res->addr : NULL);
		return;
	}
	conn_log(c, true, res->reason, &res->addr);
	if (c->req->connect) {
		http_free(c);
		conn_start_tunnel(c, res->fd, established,
		    sizeof(established) - 1);
		return;
	}
	forward_start(c, res->fd);
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

static void
head_read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	uint32_t limit = c->gen->conf->max_header_bytes;
	enum egress_reason why;
	size_t end;

	if (c->over_limit) {
		http_refuse(c, EGRESS_R_LIMIT_EXCEEDED);
		return;
	}
	if (c->req == NULL && cannot_be_http(in)) {
		c->detail = "not HTTP (a SOCKS5 client sends 0x05 first)";
		http_refuse(c, EGRESS_R_INVALID_REQUEST);
		return;
	}
	if ((end = httpmsg_head_end(in, limit)) == 0) {
		if (evbuffer_get_length(in) >= limit) {
			c->detail = "request head over max_header_bytes";
			http_refuse_status(c, 431, EGRESS_R_INVALID_REQUEST);
		}
		return;
	}
	if (end > limit) {
		c->detail = "request head over max_header_bytes";
		http_refuse_status(c, 431, EGRESS_R_INVALID_REQUEST);
		return;
	}
	evtimer_del(c->head_timer);
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
	c->state = CONN_CONNECTING;
	if (c->req->connect)
		conn_hold(c);
	else
		bufferevent_disable(bev, EV_READ);
	c->ob = outbound_start(c->px, c->gen, &c->target, connected_cb, c);
	if (c->ob == NULL)
		http_refuse(c, EGRESS_R_CONNECT_FAILED);
}

/*
 * While a head is read, the client's input may grow one byte past
 * max_header_bytes: enough to tell a head that is too big (431) at once,
 * rather than stop reading at the relay's high-water mark and wait for
 * the header timeout.
 */
static void
head_watermark(struct conn *c)
{
	size_t hw = (size_t)c->gen->conf->max_header_bytes + 1;

	bufferevent_setwatermark(c->bev, EV_READ, 0, hw > RELAY_HIGH_WATER ?
	    hw : RELAY_HIGH_WATER);
}

void
http_start(struct conn *c)
{
	c->state = CONN_HTTP_HEAD;
	head_watermark(c);
	conn_set_callbacks(c, head_read_cb, NULL);
	head_read_cb(c->bev, c);
}
