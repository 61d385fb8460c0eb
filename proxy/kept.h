/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The origin connection kept between the requests of one client
 * connection (kept.c).  Internal to proxy/.
 */
#ifndef PROXY_KEPT_H
#define PROXY_KEPT_H

#include <stdbool.h>

#include "proxy/httpstate.h"

/* The kept origin, if there is one, closed and forgotten. */
void	kept_drop(struct conn *);
/*
 * The kept origin's address, when it is alive and goes to this request's
 * host and port; NULL otherwise (a dead or unsuitable one is dropped).
 */
const struct egress_addr *kept_reusable(struct conn *);
/* Not closed, and nothing in it or on its socket that nobody asked for. */
bool	kept_alive(const struct http_origin *);
/* The exchange's origin kept for the client's next request, if it can. */
void	keep_origin(struct conn *);

#endif
