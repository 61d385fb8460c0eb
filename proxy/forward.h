/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP forwarding (forward.c): a request http.c has read and had decided,
 * and its exchange with the origin (HTTP's state is httpstate.h's; the
 * origin kept for the next request, kept.h's).
 * forward.c knows nothing of http.c: what follows an exchange goes back
 * through the protocol table (conn_proto.relay_over).  Internal to proxy/.
 */
#ifndef PROXY_FORWARD_H
#define PROXY_FORWARD_H

#include "proxy/httpstate.h"
#include "proxy/internal.h"

/* Start the exchange on fd (connected to addr), or on the kept origin. */
void	forward_start(struct conn *, int fd, const struct egress_addr *,
	    enum egress_reason);
void	forward_start_kept(struct conn *, const struct egress_addr *,
	    enum egress_reason);
void	forward_client_read_cb(struct bufferevent *, void *);
void	forward_client_write_cb(struct bufferevent *, void *);
bool	forward_client_eof(struct conn *);
void	forward_free(struct conn *);

#endif
