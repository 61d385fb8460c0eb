/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The special-purpose address registry (SPEC 3.5): the IANA IPv4 and IPv6
 * special-purpose registries, multicast, the IPv6 space outside global
 * unicast, and the cloud metadata addresses.
 */
#include <endian.h>
#include <string.h>

#include "egress/egress.h"

/* A prefix as two 64-bit halves of the 128-bit space, most significant first. */
struct block {
	uint64_t	 hi, lo;
	uint8_t		 plen;
	const char	*name;
};

#define V4(a, b, c, d, len)	{ 0, 0xffff00000000ULL | (uint64_t)(a) << 24 | \
				  (b) << 16 | (c) << 8 | (d), 96 + (len), \
				  #a "." #b "." #c "." #d "/" #len }
#define V6(name, len, hi, lo)	{ hi, lo, len, name }

/*
 * Most specific first within a family, so that the name a lookup returns
 * is the narrowest block; membership does not depend on the order.
 */
static const struct block v4_blocks[] = {
	V4(0, 0, 0, 0, 8),		/* "this network" */
	V4(10, 0, 0, 0, 8),		/* private */
	V4(100, 64, 0, 0, 10),		/* shared address space (CGN) */
	V4(127, 0, 0, 0, 8),		/* loopback */
	V4(169, 254, 0, 0, 16),		/* link local */
	V4(172, 16, 0, 0, 12),		/* private */
	V4(192, 0, 0, 0, 24),		/* IETF protocol assignments */
	V4(192, 0, 2, 0, 24),		/* TEST-NET-1 */
	V4(192, 31, 196, 0, 24),	/* AS112-v4 */
	V4(192, 52, 193, 0, 24),	/* AMT */
	V4(192, 88, 99, 0, 24),		/* deprecated 6to4 relay anycast */
	V4(192, 168, 0, 0, 16),		/* private */
	V4(192, 175, 48, 0, 24),	/* direct delegation AS112 */
	V4(198, 18, 0, 0, 15),		/* benchmarking */
	V4(198, 51, 100, 0, 24),	/* TEST-NET-2 */
	V4(203, 0, 113, 0, 24),		/* TEST-NET-3 */
	V4(224, 0, 0, 0, 4),		/* multicast */
	V4(255, 255, 255, 255, 32),	/* limited broadcast */
	V4(240, 0, 0, 0, 4),		/* reserved */
};

static const struct block v6_blocks[] = {
	V6("::/128", 128, 0, 0),
	V6("::1/128", 128, 0, 1),
	V6("::/96", 96, 0, 0),				/* IPv4-compatible */
	V6("64:ff9b::/96", 96, 0x0064ff9b00000000ULL, 0),	/* NAT64 */
	V6("64:ff9b:1::/48", 48, 0x0064ff9b00010000ULL, 0),
	V6("100::/64", 64, 0x0100000000000000ULL, 0),	/* discard only */
	V6("100:0:0:1::/64", 64, 0x0100000000000001ULL, 0),
	V6("2001::/32", 32, 0x2001000000000000ULL, 0),	/* Teredo */
	V6("2001:db8::/32", 32, 0x20010db800000000ULL, 0),
	V6("2001::/23", 23, 0x2001000000000000ULL, 0),	/* IETF assignments */
	V6("2002::/16", 16, 0x2002000000000000ULL, 0),	/* 6to4 */
	V6("2620:4f:8000::/48", 48, 0x2620004f80000000ULL, 0),
	V6("3fff::/20", 20, 0x3fff000000000000ULL, 0),	/* documentation */
	V6("5f00::/16", 16, 0x5f00000000000000ULL, 0),	/* SRv6 SIDs */
	V6("fc00::/7", 7, 0xfc00000000000000ULL, 0),	/* unique local */
	V6("fe80::/10", 10, 0xfe80000000000000ULL, 0),	/* link local */
	V6("fec0::/10", 10, 0xfec0000000000000ULL, 0),	/* site local */
	V6("ff00::/8", 8, 0xff00000000000000ULL, 0),	/* multicast */
	/* Nothing public lives outside 2000::/3, global unicast. */
	V6("::/3", 3, 0, 0),
	V6("4000::/2", 2, 0x4000000000000000ULL, 0),
	V6("8000::/1", 1, 0x8000000000000000ULL, 0),
};

static const struct block metadata[] = {
	V4(169, 254, 169, 254, 32),	/* AWS, GCP, Azure, OpenStack, ... */
	V4(169, 254, 170, 2, 32),	/* AWS ECS task credentials */
	V4(100, 100, 100, 200, 32),	/* Alibaba Cloud */
	V4(168, 63, 129, 16, 32),	/* Azure wire server */
	V4(192, 0, 0, 192, 32),		/* Oracle Cloud */
	V6("fd00:ec2::254/128", 128, 0xfd000ec200000000ULL, 0x254),
};

static const struct block loopback[] = {
	V4(127, 0, 0, 0, 8),
	V6("::1/128", 128, 0, 1),
};

static const struct block compat = V6("::/96", 96, 0, 0);
static const struct block nat64 = V6("", 96, 0x0064ff9b00000000ULL, 0);
static const struct block nat64l = V6("", 48, 0x0064ff9b00010000ULL, 0);
static const struct block teredo = V6("", 32, 0x2001000000000000ULL, 0);
static const struct block sixtofour = V6("", 16, 0x2002000000000000ULL, 0);

struct halves {
	uint64_t	 hi, lo;
};

static struct halves
halves(const struct egress_addr *a)
{
	struct halves h;

	memcpy(&h.hi, a->b, 8);
	memcpy(&h.lo, a->b + 8, 8);
	h.hi = be64toh(h.hi);
	h.lo = be64toh(h.lo);
	return h;
}

static bool
block_covers(const struct block *blk, struct halves a)
{
	uint64_t hi = blk->hi ^ a.hi, lo = blk->lo ^ a.lo;
	unsigned plen = blk->plen;

	if (plen <= 64)
		return plen == 0 || (hi >> (64 - plen)) == 0;
	return hi == 0 && (lo >> (128 - plen)) == 0;
}

static const struct block *
table_lookup(const struct block *t, size_t n, const struct egress_addr *addr)
{
	struct halves a = halves(addr);
	size_t i;

	for (i = 0; i < n; i++)
		if (block_covers(&t[i], a))
			return &t[i];
	return NULL;
}

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))

const char *
egress_registry_lookup(const struct egress_addr *a)
{
	const struct block *blk;

	if (egress_addr_is_v4(a))
		blk = table_lookup(v4_blocks, NELEM(v4_blocks), a);
	else
		blk = table_lookup(v6_blocks, NELEM(v6_blocks), a);
	return blk ? blk->name : NULL;
}

bool
egress_addr_is_metadata(const struct egress_addr *a)
{
	return table_lookup(metadata, NELEM(metadata), a) != NULL;
}

/* Is the (one-address) block b inside the CIDR rule r?  Its address in *which. */
static bool
cidr_holds(const struct egress_rule *r, const struct block *b,
    struct egress_addr *which)
{
	struct halves h = halves(&r->addr);
	struct block net = { h.hi, h.lo, r->plen, "" };
	uint64_t hi = htobe64(b->hi), lo = htobe64(b->lo);

	if (!block_covers(&net, (struct halves){ b->hi, b->lo }))
		return false;
	memcpy(which->b, &hi, 8);
	memcpy(which->b + 8, &lo, 8);
	return true;
}

bool
egress_cidr_metadata(const struct egress_rule *r, struct egress_addr *which)
{
	size_t i;

	for (i = 0; i < NELEM(metadata); i++)
		if (cidr_holds(r, &metadata[i], which))
			return true;
	return false;
}

bool
egress_addr_is_loopback(const struct egress_addr *a)
{
	return table_lookup(loopback, NELEM(loopback), a) != NULL;
}

static void
embed_at(struct egress_addr *out, const struct egress_addr *a,
    unsigned i0, unsigned i1, unsigned i2, unsigned i3, uint8_t xor)
{
	egress_addr_from_v4(out, (uint32_t)(a->b[i0] ^ xor) << 24 |
	    (uint32_t)(a->b[i1] ^ xor) << 16 | (uint32_t)(a->b[i2] ^ xor) << 8 |
	    (uint32_t)(a->b[i3] ^ xor));
}

size_t
egress_addr_embedded_v4(const struct egress_addr *a,
    struct egress_addr out[EGRESS_EMBED_MAX])
{
	struct halves h = halves(a);

	if (egress_addr_is_v4(a))
		return 0;
	if (block_covers(&compat, h) || block_covers(&nat64, h)) {
		embed_at(&out[0], a, 12, 13, 14, 15, 0);
		return 1;
	}
	if (block_covers(&nat64l, h)) {
		/* RFC 6052: a /48 prefix puts the IPv4 around the u octet;
		 * a /96 one at the end.  The local-use prefix may be either. */
		embed_at(&out[0], a, 6, 7, 9, 10, 0);
		embed_at(&out[1], a, 12, 13, 14, 15, 0);
		return 2;
	}
	if (block_covers(&teredo, h)) {
		/* Server in clear; client obfuscated by inverting its bits. */
		embed_at(&out[0], a, 4, 5, 6, 7, 0);
		embed_at(&out[1], a, 12, 13, 14, 15, 0xff);
		return 2;
	}
	if (block_covers(&sixtofour, h)) {
		embed_at(&out[0], a, 2, 3, 4, 5, 0);
		return 1;
	}
	return 0;
}
