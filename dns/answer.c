/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DNS answers to addresses.  c-ares parses the bytes; here every address
 * is kept once, the count is bounded, and an answer too large to hold is
 * refused whole rather than judged in part.
 */
#define CARES_NO_DEPRECATED	/* as in dns.c */

#include <netinet/in.h>
#include <arpa/inet.h>

#include <string.h>

#include <ares.h>

#include "dns/answer.h"

/* Records parsed per answer: more than DNS_MAX_ADDRS, to notice excess. */
#define DNS_PARSE_MAX	(DNS_MAX_ADDRS * 4)

bool
dns_answer_add(struct dns_answer *h, const struct egress_addr *a)
{
	size_t	i;

	for (i = 0; i < h->naddrs; i++)
		if (memcmp(&h->addrs[i], a, sizeof(*a)) == 0)
			return true;
	if (h->naddrs == DNS_MAX_ADDRS) {
		h->overflow = true;
		return false;
	}
	h->addrs[h->naddrs++] = *a;
	return true;
}

static void
parse_a(struct dns_answer *h, const unsigned char *abuf, int alen)
{
	struct ares_addrttl	ttls[DNS_PARSE_MAX];
	struct egress_addr	a;
	int			i, n = DNS_PARSE_MAX, rc;

	rc = ares_parse_a_reply(abuf, alen, NULL, ttls, &n);
	if (rc != ARES_SUCCESS) {
		h->status = rc == ARES_ENODATA ? DNS_NODATA : DNS_ERROR;
		return;
	}
	for (i = 0; i < n; i++) {
		egress_addr_from_v4(&a, ntohl(ttls[i].ipaddr.s_addr));
		if (!dns_answer_add(h, &a))
			break;
	}
	if (n == DNS_PARSE_MAX)
		h->overflow = true;	/* there may have been more */
	h->status = h->naddrs > 0 ? DNS_OK : DNS_NODATA;
}

static void
parse_aaaa(struct dns_answer *h, const unsigned char *abuf, int alen)
{
	struct ares_addr6ttl	ttls[DNS_PARSE_MAX];
	struct egress_addr	a;
	uint8_t			b[16];
	int			i, n = DNS_PARSE_MAX, rc;

	rc = ares_parse_aaaa_reply(abuf, alen, NULL, ttls, &n);
	if (rc != ARES_SUCCESS) {
		h->status = rc == ARES_ENODATA ? DNS_NODATA : DNS_ERROR;
		return;
	}
	for (i = 0; i < n; i++) {
		memcpy(b, &ttls[i].ip6addr, sizeof(b));
		egress_addr_from_v6(&a, b);
		if (!dns_answer_add(h, &a))
			break;
	}
	if (n == DNS_PARSE_MAX)
		h->overflow = true;	/* there may have been more */
	h->status = h->naddrs > 0 ? DNS_OK : DNS_NODATA;
}

void
dns_answer_parse(struct dns_answer *h, int type, const unsigned char *abuf,
    int alen)
{
	if (type == DNS_T_A)
		parse_a(h, abuf, alen);
	else if (type == DNS_T_AAAA)
		parse_aaaa(h, abuf, alen);
	else
		h->status = DNS_ERROR;
}

/*
 * Any address wins: one family answering is enough.  Otherwise the most
 * telling outcome wins: NODATA (the name exists) over NXDOMAIN, a
 * definite answer over a failure, a failure over silence.
 */
enum dns_status
dns_answer_combine(const struct dns_answer *a, const struct dns_answer *aaaa,
    struct dns_answer *all)
{
	static const int	 rank[] = {
		[DNS_OK] = 0, [DNS_NODATA] = 1, [DNS_NXDOMAIN] = 2,
		[DNS_SERVFAIL] = 3, [DNS_TIMEOUT] = 4, [DNS_ERROR] = 5
	};
	const struct dns_answer	*halves[2] = { a, aaaa }, *h;
	enum dns_status		 st = DNS_ERROR;
	size_t			 i, k;

	memset(all, 0, sizeof(*all));
	for (k = 0; k < 2; k++) {
		h = halves[k];
		for (i = 0; i < h->naddrs; i++)
			(void)dns_answer_add(all, &h->addrs[i]);
		if (rank[h->status] < rank[st])
			st = h->status;
		all->overflow |= h->overflow;
	}
	/* Every address must be judged (SPEC 3.3 step 6). */
	if (all->overflow)
		st = DNS_ERROR;
	else if (all->naddrs > 0)
		st = DNS_OK;
	else if (st == DNS_OK)
		st = DNS_NODATA;	/* cannot happen; never OK with none */
	if (st != DNS_OK)
		all->naddrs = 0;
	all->status = st;
	return st;
}
