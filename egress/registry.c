/*
 * The special-purpose address registry (SPEC 3.5): the IANA IPv4 and IPv6
 * special-purpose registries, multicast, the IPv6 space outside global
 * unicast, and the cloud metadata addresses.
 */
#include <string.h>

#include "egress/egress.h"

struct block {
	uint8_t		 b[16];
	uint8_t		 plen;		/* in the 128-bit space */
	const char	*name;
};

#define V4(a, b, c, d, len)	{ { 0,0,0,0, 0,0,0,0, 0,0,0xff,0xff, a,b,c,d }, \
				  96 + (len), #a "." #b "." #c "." #d "/" #len }
#define V6(n, len, ...)		{ { __VA_ARGS__ }, len, n }

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
	V6("::/128", 128),
	V6("::1/128", 128, [15] = 1),
	V6("::/96", 96),			/* IPv4-compatible */
	V6("64:ff9b::/96", 96, 0, 0x64, 0xff, 0x9b),	/* NAT64 */
	V6("64:ff9b:1::/48", 48, 0, 0x64, 0xff, 0x9b, 0, 1),
	V6("100::/64", 64, 0x01, 0),		/* discard only */
	V6("100:0:0:1::/64", 64, 0x01, 0, 0, 0, 0, 0, 0, 1),
	V6("2001::/32", 32, 0x20, 0x01),	/* Teredo */
	V6("2001:db8::/32", 32, 0x20, 0x01, 0x0d, 0xb8),
	V6("2001::/23", 23, 0x20, 0x01),	/* IETF protocol assignments */
	V6("2002::/16", 16, 0x20, 0x02),	/* 6to4 */
	V6("2620:4f:8000::/48", 48, 0x26, 0x20, 0, 0x4f, 0x80, 0),
	V6("3fff::/20", 20, 0x3f, 0xff),	/* documentation */
	V6("5f00::/16", 16, 0x5f, 0x00),	/* SRv6 SIDs */
	V6("fc00::/7", 7, 0xfc),		/* unique local */
	V6("fe80::/10", 10, 0xfe, 0x80),	/* link local */
	V6("fec0::/10", 10, 0xfe, 0xc0),	/* site local (deprecated) */
	V6("ff00::/8", 8, 0xff),		/* multicast */
	/* Nothing public lives outside 2000::/3, global unicast. */
	V6("::/3", 3),
	V6("4000::/2", 2, 0x40),
	V6("8000::/1", 1, 0x80),
};

static const struct block metadata[] = {
	V4(169, 254, 169, 254, 32),	/* AWS, GCP, Azure, OpenStack, ... */
	V4(169, 254, 170, 2, 32),	/* AWS ECS task credentials */
	V4(100, 100, 100, 200, 32),	/* Alibaba Cloud */
	V4(168, 63, 129, 16, 32),	/* Azure wire server */
	V4(192, 0, 0, 192, 32),		/* Oracle Cloud */
	V6("fd00:ec2::254/128", 128, 0xfd, 0, 0x0e, 0xc2, [15] = 0x54, [14] = 0x02),
};

static bool
block_covers(const struct block *blk, const struct egress_addr *a)
{
	unsigned full = blk->plen / 8, rest = blk->plen % 8;
	uint8_t mask;

	if (memcmp(blk->b, a->b, full) != 0)
		return false;
	if (rest == 0)
		return true;
	mask = (uint8_t)(0xff << (8 - rest));
	return (blk->b[full] & mask) == (a->b[full] & mask);
}

static const struct block *
table_lookup(const struct block *t, size_t n, const struct egress_addr *a)
{
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

bool
egress_addr_is_loopback(const struct egress_addr *a)
{
	static const struct block loop[] = {
		V4(127, 0, 0, 0, 8),
		V6("::1/128", 128, [15] = 1),
	};

	return table_lookup(loop, NELEM(loop), a) != NULL;
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
	static const struct block compat = V6("::/96", 96);
	static const struct block nat64 = V6("64:ff9b::/96", 96, 0, 0x64, 0xff, 0x9b);
	static const struct block nat64l = V6("64:ff9b:1::/48", 48, 0, 0x64, 0xff, 0x9b, 0, 1);
	static const struct block teredo = V6("2001::/32", 32, 0x20, 0x01);
	static const struct block sixtofour = V6("2002::/16", 16, 0x20, 0x02);

	if (egress_addr_is_v4(a))
		return 0;
	if (block_covers(&compat, a) || block_covers(&nat64, a)) {
		embed_at(&out[0], a, 12, 13, 14, 15, 0);
		return 1;
	}
	if (block_covers(&nat64l, a)) {
		/* RFC 6052: a /48 prefix puts the IPv4 around the u octet;
		 * a /96 one at the end.  The local-use prefix may be either. */
		embed_at(&out[0], a, 6, 7, 9, 10, 0);
		embed_at(&out[1], a, 12, 13, 14, 15, 0);
		return 2;
	}
	if (block_covers(&teredo, a)) {
		/* Server in clear; client obfuscated by inverting its bits. */
		embed_at(&out[0], a, 4, 5, 6, 7, 0);
		embed_at(&out[1], a, 12, 13, 14, 15, 0xff);
		return 2;
	}
	if (block_covers(&sixtofour, a)) {
		embed_at(&out[0], a, 2, 3, 4, 5, 0);
		return 1;
	}
	return 0;
}
