/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A DNS answer's addresses, checked: bytes in, at most DNS_MAX_ADDRS
 * distinct addresses out.  Pure (c-ares's parser only, no event loop) so
 * that what a server may answer can be fuzzed.  Internal to dns/.
 */
#ifndef DNS_ANSWER_H
#define DNS_ANSWER_H

#include <stdbool.h>
#include <stddef.h>

#include "dns/dns.h"
#include "egress/egress.h"

#define DNS_T_A		1	/* RFC 1035 */
#define DNS_T_AAAA	28	/* RFC 3596 */

/* The addresses of one answer (a half of a lookup), or of a lookup. */
struct dns_answer {
	enum dns_status		 status;
	size_t			 naddrs;
	bool			 overflow;	/* more than we can hold */
	struct egress_addr	 addrs[DNS_MAX_ADDRS];
};

/* Add unless already there or full; false when full (overflow is set). */
bool	 dns_answer_add(struct dns_answer *, const struct egress_addr *);

/*
 * A NOERROR answer to a question of type DNS_T_A or DNS_T_AAAA, into an
 * empty dns_answer: DNS_OK with its addresses (overflow set when there
 * were, or may have been, more than DNS_MAX_ADDRS), DNS_NODATA (only
 * CNAMEs, or nothing), or DNS_ERROR (malformed) without any.
 */
void	 dns_answer_parse(struct dns_answer *, int type,
	    const unsigned char *, int len);

/*
 * A lookup's outcome from its A and AAAA halves: all gets every address,
 * IPv4 first, or none unless the status is DNS_OK.  An overflow anywhere
 * is DNS_ERROR: every address must be judged, none may be dropped.
 */
enum dns_status dns_answer_combine(const struct dns_answer *a,
	    const struct dns_answer *aaaa, struct dns_answer *all);

#endif
