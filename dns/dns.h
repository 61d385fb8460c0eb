/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dns: pinned name resolution with c-ares on the proxy's libevent loop.
 * One lookup asks for A and AAAA and hands back every address; the caller
 * judges them all and connects only to those, never resolving again.
 */
#ifndef DNS_DNS_H
#define DNS_DNS_H

#include <stdbool.h>
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

/*
 * Outstanding lookups are capped (SPEC 4 Limits): those waiting for an
 * answer, and those given up on (cancelled, or past their deadline) that
 * c-ares still holds.  Past the cap dns_busy() is true and a request gets
 * limit_exceeded rather than a lookup.  As many as the default
 * max_connections, so a proxy at its default limit is never short.
 */
#define DNS_MAX_LOOKUPS	4096
bool	 dns_busy(const struct dns_resolver *);
/* How many lookups dns_busy counts now. */
size_t	 dns_outstanding(const struct dns_resolver *);

const char *dns_status_name(enum dns_status);

/*
 * Run mode's answerer (SPEC 6.6): names inside the run get addresses from
 * 198.18.0.0/15 (RFC 2544), one per name for the whole run.  Pure: no I/O,
 * no event loop; the caller owns the sockets and the log line.
 */
struct dns_fake;
/* NULL when out of memory.  The caller frees it with dns_fake_free. */
struct dns_fake *dns_fake_new(void);
void	 dns_fake_free(struct dns_fake *);
/* NAME's address (the same for the whole run); -1 when the range is used
 * up or memory is.  NAME is a normalized name of at most EGRESS_HOST_MAX. */
int	 dns_fake_addr(struct dns_fake *, const char *name,
	    struct egress_addr *out);
/* The name an address of the range was given for, or NULL.  The string
 * lives as long as the table. */
const char *dns_fake_name(const struct dns_fake *, const struct egress_addr *);
/* An address of 198.18.0.0/15 (IPv4 or IPv4-mapped). */
bool	 dns_fake_in_range(const struct egress_addr *);
/* How many names have an address. */
size_t	 dns_fake_count(const struct dns_fake *);
/* The most names one table holds: 198.18.0.1 to 198.19.255.254. */
#define DNS_FAKE_MAX	131070u
/* The TTL of every fake A record, in seconds. */
#define DNS_FAKE_TTL	60u

enum dns_served_kind {
	DNS_SERVED_ADDR,	/* NOERROR, one A record with the name's address */
	DNS_SERVED_EMPTY,	/* NOERROR, no record: AAAA, other types */
	DNS_SERVED_REFUSED,	/* NXDOMAIN: no rule admits the name */
	DNS_SERVED_ERROR,	/* FORMERR, NOTIMP or SERVFAIL */
	DNS_SERVED_DROP		/* send nothing */
};

struct dns_served {
	enum dns_served_kind	kind;
	char			name[EGRESS_HOST_MAX + 1]; /* normalized question name, "" if none */
	uint16_t		qtype;
	struct egress_addr	addr;		/* DNS_SERVED_ADDR */
	struct egress_verdict	verdict;	/* DNS_SERVED_REFUSED: why */
	uint8_t			rcode;		/* the answer's RCODE */
	bool			truncated;	/* did not fit: TC set, no records */
};

/*
 * Answer one DNS message (a UDP payload, or a TCP message without its
 * length prefix) into out (*outused bytes; 0 for DNS_SERVED_DROP).  Returns
 * served->kind.  No I/O.
 */
enum dns_served_kind dns_serve(struct dns_fake *, const struct egress_policy *,
	    const uint8_t *msg, size_t len, uint8_t *out, size_t outlen,
	    size_t *outused, struct dns_served *);

/* DNS over TCP frames each message with a 2-byte big-endian length. */
#define DNS_TCP_MSG_MAX	65535u
/* The length a prefix announces, or -1 when fewer than 2 bytes are there. */
int	 dns_tcp_len(const uint8_t *, size_t);
/* Write the prefix for len; -1 when len > DNS_TCP_MSG_MAX. */
int	 dns_tcp_put_len(uint8_t out[2], size_t len);

#endif
