/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dns: pinned name resolution with c-ares on the proxy's libevent loop.
 * One lookup asks for A and AAAA and hands back every address; the caller
 * judges them all and connects only to those, never resolving again.
 */
#ifndef DNS_DNS_H
#define DNS_DNS_H

#include <stddef.h>
#include <stdint.h>

#include "egress/egress.h"

struct event_base;
struct dns_resolver;
struct dns_query;

/*
 * The most addresses one lookup may answer.  A larger answer is refused
 * whole (DNS_ERROR): every address must be judged, none may be dropped.
 */
#define DNS_MAX_ADDRS	64

enum dns_status {
	DNS_OK = 0,
	DNS_NXDOMAIN,		/* the name does not exist */
	DNS_NODATA,		/* it exists, with no A or AAAA record */
	DNS_SERVFAIL,		/* the server failed or refused */
	DNS_TIMEOUT,		/* no answer within the timeout */
	DNS_ERROR		/* anything else (bad name, no memory) */
};

struct dns_server {
	struct egress_addr	addr;
	uint16_t		port;
};

/*
 * Called exactly once per query that was not cancelled, from the event
 * loop.  addrs is valid only during the call; naddrs is 0 unless DNS_OK.
 */
typedef void (*dns_cb)(enum dns_status, const struct egress_addr *addrs,
    size_t naddrs, void *arg);

/*
 * servers: NULL/0 means the system's resolv.conf.  timeout_ms bounds each
 * query as a whole.  Returns NULL with err set on failure.
 */
struct dns_resolver *dns_resolver_new(struct event_base *,
	    const struct dns_server *servers, size_t nservers,
	    uint32_t timeout_ms, char *err, size_t errlen);
void	 dns_resolver_free(struct dns_resolver *);

/* Start a lookup of a normalized name.  NULL on failure (cb not called). */
struct dns_query *dns_resolve(struct dns_resolver *, const char *name,
	    dns_cb, void *arg);
/* The callback will not be called; the query's memory is released. */
void	 dns_cancel(struct dns_query *);

const char *dns_status_name(enum dns_status);

#endif
