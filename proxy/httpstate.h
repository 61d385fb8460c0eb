/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP's state of a client connection (conn.pstate): the request under
 * way, its exchange with the origin (forward.c), and the origin kept for
 * the next request (kept.c).  Types, and http_of.  Internal to proxy/.
 */
#ifndef PROXY_HTTPSTATE_H
#define PROXY_HTTPSTATE_H

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
	struct httpmsg_scan	 resp_scan;	/* its head's end, so far */
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
	struct httpmsg_scan	 head_scan;	/* the next head's end, so far */
	unsigned		 head_reads;	/* reads of it, so far */
	struct event		*pace;		/* head reads paced: made at use */
	int			 tunnel_fd;	/* CONNECT's origin, its 200 queued */
	bool			 client_eof;	/* it sent all it will send */
};

static inline struct http_conn *
http_of(const struct conn *c)
{
	return c->pstate;
}

#endif
