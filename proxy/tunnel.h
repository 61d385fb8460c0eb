/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tunnel: a byte-exact two-way relay between two connected sockets, on the
 * proxy's event loop.  splice(2) through a pipe per direction, so payload
 * bytes never enter user space; a direction stops reading while its pipe
 * is full (backpressure: at most one pipe of data in flight each way).
 * EOF on one side is passed on as shutdown(SHUT_WR) on the other once that
 * direction is drained (half-close); the tunnel ends when both directions
 * have ended, on an error, or after idle_timeout_ms without traffic.
 * Internal to proxy/.
 */
#ifndef PROXY_TUNNEL_H
#define PROXY_TUNNEL_H

#include <stdint.h>

struct event_base;
struct evbuffer;
struct tunnel;

struct tunnel_stats {
	uint64_t	 to_origin;	/* bytes client -> origin */
	uint64_t	 to_client;	/* bytes origin -> client */
};

/*
 * Called once when the tunnel has ended and both sockets are closed; the
 * tunnel is freed right after the callback returns.
 */
typedef void (*tunnel_done_cb)(const struct tunnel_stats *, void *arg);

/*
 * Takes ownership of both sockets (non-blocking, connected).  early holds
 * bytes the client sent before the tunnel existed (after its CONNECT or
 * SOCKS request); they are sent to the origin first.  The evbuffer is
 * drained, not freed; NULL means none.  Returns NULL on failure, with the
 * sockets still the caller's.
 */
struct tunnel	*tunnel_new(struct event_base *, int client_fd, int origin_fd,
		    struct evbuffer *early, uint32_t idle_timeout_ms,
		    tunnel_done_cb, void *arg);
/* What it has moved so far. */
void		 tunnel_count(const struct tunnel *, struct tunnel_stats *);
/* End it now (drain timeout, shutdown): closes both sockets, no callback. */
void		 tunnel_free(struct tunnel *);

#endif
