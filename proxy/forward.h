/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP forwarding (forward.c): a request http.c has read and had decided,
 * its exchange with the origin, and the origin kept for the next request.
 * forward.c knows nothing of http.c: what follows an exchange goes back
 * through the protocol table (conn_proto.relay_over).  Internal to proxy/.
 */
#ifndef PROXY_FORWARD_H
#define PROXY_FORWARD_H

#include "proxy/httpmsg.h"
#include "proxy/internal.h"

/* The request under way; its head is owned, the rest points into it. */
struct http_req {
	char			*head;
	struct httpmsg		 msg;
	char			*path;		/* origin-form, into head */
	size_t			 pathlen;
	bool			 connect;
	bool			 head_method;
	bool			 idempotent;	/* RFC 9110 9.2.2: may be sent again */
	bool			 client_close;	/* no further request after this */
	bool			 http10;
	struct httpmsg_body	 body;
};

struct span;

/*
 * Its exchange with the origin.  A body's long stretches (spannable in
 * forward.c) go by splice, with the bufferevent on the reading side off
 * meanwhile: up for the request (client -> origin), down for the response.
 */
struct http_fwd {
	struct bufferevent	*origin;
	struct span		*up, *down;	/* made at first use */
	struct egress_addr	 addr;		/* connected to, checked */
	enum egress_reason	 reason;	/* why it was allowed */
	bool			 reused;	/* a kept connection */
	bool			 req_done;	/* request body fully sent */
	bool			 resp_started;	/* a byte of a response came */
	bool			 resp_head;	/* final response head relayed */
	bool			 resp_close;	/* the origin closes after it */
	bool			 origin_eof;
	struct httpmsg_body	 resp;
};

/*
 * An origin connection kept between requests of one client connection
 * (never shared with another client), idle, for the next request to the
 * same host and port whose own decision allows the same address.
 */
struct http_origin {
	struct bufferevent	*bev;
	struct egress_addr	 addr;
	char			 host[EGRESS_HOST_MAX + 1];
	uint16_t		 port;
};

/* HTTP's state of a client connection (conn.pstate). */
struct http_conn {
	struct http_req		*req;		/* the request under way */
	struct http_fwd		*fwd;		/* its exchange */
	struct http_origin	*kept;		/* an origin kept for the next */
	bool			 client_eof;	/* it sent all it will send */
};

static inline struct http_conn *
http_of(const struct conn *c)
{
	return c->pstate;
}

/*
 * The kept origin's address, when it is alive and goes to this request's
 * host and port; NULL otherwise (a dead or unsuitable one is dropped).
 */
const struct egress_addr *forward_reusable(struct conn *);
/* Start the exchange on fd (connected to addr), or on the kept origin. */
void	forward_start(struct conn *, int fd, const struct egress_addr *,
	    enum egress_reason);
void	forward_start_kept(struct conn *, const struct egress_addr *,
	    enum egress_reason);
void	forward_client_read_cb(struct bufferevent *, void *);
void	forward_client_write_cb(struct bufferevent *, void *);
bool	forward_client_eof(struct conn *);
void	forward_free(struct conn *);
void	forward_drop_kept(struct conn *);

#endif
