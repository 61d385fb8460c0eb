/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_dns: libFuzzer on DNS answers to addresses (dns/answer.c over
 * c-ares's parser).  The input is two answers as a server may send them:
 * a 2-byte big-endian length, the answer to the A question, then the
 * answer to the AAAA question.  Beyond not crashing, what comes out must
 * be safe to judge: addresses that the answer holds, of the family asked,
 * each once, at most DNS_MAX_ADDRS, and no address at all with a status
 * other than DNS_OK (never fail open).
 * Built by `make fuzz-dns`, not by make check.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dns/answer.h"
#include "egress/egress.h"
#include "tests/fuzz.h"


static bool
holds(const struct dns_answer *h, const struct egress_addr *a)
{
	size_t i;

	for (i = 0; i < h->naddrs; i++)
		if (memcmp(&h->addrs[i], a, sizeof(*a)) == 0)
			return true;
	return false;
}

static void
check_common(const struct dns_answer *h)
{
	size_t i, k;

	CHECK(h->naddrs <= DNS_MAX_ADDRS);
	CHECK((h->status == DNS_OK) == (h->naddrs > 0));
	for (i = 0; i < h->naddrs; i++)
		for (k = i + 1; k < h->naddrs; k++)
			CHECK(memcmp(&h->addrs[i], &h->addrs[k],
			    sizeof(h->addrs[i])) != 0);
}

/* One answer, parsed from exactly its bytes (ASan sees a read past). */
static void
parse(struct dns_answer *h, int type, const uint8_t *b, size_t len)
{
	struct egress_addr *a;
	unsigned ancount;
	uint8_t *p;
	size_t i;

	if ((p = malloc(len ? len : 1)) == NULL)
		abort();
	memcpy(p, b, len);
	memset(h, 0, sizeof(*h));
	dns_answer_parse(h, type, p, (int)len);
	free(p);

	check_common(h);
	CHECK(h->status == DNS_OK || h->status == DNS_NODATA ||
	    h->status == DNS_ERROR);
	if (len < 12) {
		/* Not even a header: malformed. */
		CHECK(h->status == DNS_ERROR && !h->overflow);
		return;
	}
	/* At most one address a record of the answer section. */
	ancount = (unsigned)b[6] << 8 | b[7];
	CHECK(h->naddrs <= ancount);
	CHECK(!h->overflow || ancount > DNS_MAX_ADDRS);
	for (i = 0; i < h->naddrs; i++) {
		/* Of the family asked, and in the answer's bytes. */
		a = &h->addrs[i];
		if (type == DNS_T_A) {
			CHECK(egress_addr_is_v4(a));
			CHECK(memmem(b + 12, len - 12, a->b + 12, 4) != NULL);
		} else
			CHECK(memmem(b + 12, len - 12, a->b, 16) != NULL);
	}
}

static void
check_combined(const struct dns_answer *a, const struct dns_answer *aaaa,
    const struct dns_answer *all, enum dns_status st)
{
	size_t i;

	CHECK(st == all->status);
	check_common(all);
	if (a->overflow || aaaa->overflow) {
		/* Every address must be judged: too many is none. */
		CHECK(st == DNS_ERROR && all->naddrs == 0);
		return;
	}
	if (st != DNS_OK) {
		CHECK(a->naddrs + aaaa->naddrs == 0 || all->overflow);
		CHECK(st == (a->status == DNS_NODATA ||
		    aaaa->status == DNS_NODATA ? DNS_NODATA : DNS_ERROR) ||
		    all->overflow);
		return;
	}
	/* Every address of both, IPv4 first, nothing else. */
	for (i = 0; i < a->naddrs; i++)
		CHECK(memcmp(&all->addrs[i], &a->addrs[i],
		    sizeof(a->addrs[i])) == 0);
	for (i = 0; i < aaaa->naddrs; i++)
		CHECK(holds(all, &aaaa->addrs[i]));
	for (i = 0; i < all->naddrs; i++)
		CHECK(holds(a, &all->addrs[i]) || holds(aaaa, &all->addrs[i]));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dns_answer a, aaaa, other, all;
	enum dns_status st;
	size_t alen;

	if (size < 2 || size > 65535 + 2)
		return 0;
	alen = (size_t)data[0] << 8 | data[1];
	data += 2;
	size -= 2;
	if (alen > size)
		alen = size;
	parse(&a, DNS_T_A, data, alen);
	parse(&aaaa, DNS_T_AAAA, data + alen, size - alen);
	st = dns_answer_combine(&a, &aaaa, &all);
	check_combined(&a, &aaaa, &all, st);
	/* Each answer read as the other type keeps to that type. */
	parse(&other, DNS_T_AAAA, data, alen);
	parse(&other, DNS_T_A, data + alen, size - alen);
	return 0;
}
