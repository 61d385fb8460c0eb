/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An origin connection kept between the requests of one client connection
 * (forward.c's header says when): kept idle once an exchange is over,
 * looked at before it is used, dropped when it is not fit for the next
 * request or when it sends or closes while idle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "proxy/kept.h"

static void
origin_free(struct http_origin *o)
{
	if (o == NULL)
		return;
	bufferevent_free(o->bev);
	free(o);
}

void
kept_drop(struct conn *c)
{
	origin_free(http_of(c)->kept);
	http_of(c)->kept = NULL;
}

/*
 * A kept origin connection is idle: a byte from it now is one nobody
 * asked for, and its EOF or error ends it.  Either way it is dropped.
 */
static void
kept_read_cb(struct bufferevent *bev, void *arg)
{
	kept_drop(arg);
}

static void
kept_event_cb(struct bufferevent *bev, short what, void *arg)
{
	kept_drop(arg);
}

/*
 * Still usable: nothing waiting in its buffer, and the socket neither
 * closed nor holding bytes (the loop may not have seen them yet).
 */
bool
kept_alive(const struct http_origin *o)
{
	char b;

	if (evbuffer_get_length(bufferevent_get_input(o->bev)) > 0)
		return false;
	return recv(bufferevent_getfd(o->bev), &b, 1,
	    MSG_PEEK | MSG_DONTWAIT) == -1 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK);
}

const struct egress_addr *
kept_reusable(struct conn *c)
{
	struct http_origin *o = http_of(c)->kept;
	const struct http_req *r = http_of(c)->req;

	if (o == NULL)
		return NULL;
	/*
	 * Only a request that could be sent again goes on a kept
	 * connection: one the origin closes under it is then never lost.
	 */
	if (!r->idempotent || r->body.kind != BODY_NONE ||
	    o->port != c->target.port || strcmp(o->host, c->target.host) != 0 ||
	    !kept_alive(o)) {
		kept_drop(c);
		return NULL;
	}
	return &o->addr;
}

/*
 * The exchange is over and both sides agree the origin connection may
 * carry another: it is kept, idle, for this client's next request.
 */
void
keep_origin(struct conn *c)
{
	struct http_fwd *f = http_of(c)->fwd;
	struct http_origin *o;

	kept_drop(c);
	if ((o = calloc(1, sizeof(*o))) == NULL)
		return;
	o->bev = f->origin;
	o->addr = f->addr;
	o->port = c->target.port;
	memcpy(o->host, c->target.host, sizeof(o->host));
	bufferevent_setcb(o->bev, kept_read_cb, NULL, kept_event_cb, c);
	if (bufferevent_set_timeouts(o->bev, NULL, NULL) == -1 ||
	    bufferevent_enable(o->bev, EV_READ) == -1) {
		free(o);
		return;		/* the exchange frees the connection */
	}
	f->origin = NULL;
	http_of(c)->kept = o;
}
