/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run's fake addresses (SPEC 6.6): each name the answerer admits gets
 * the next address of 198.18.0.0/15, kept for the whole run so that a
 * connect to it can be turned back into NAME:PORT for the proxy.
 *
 * 198.18.0.0 and 198.19.255.255 are left out: they look like the block's
 * network and broadcast addresses, which some stacks refuse to connect to.
 * Every other address is an ordinary host address of a /15 (x.x.x.0 and
 * x.x.x.255 included), so the table holds DNS_FAKE_MAX = 131070 names.
 *
 * Name to address: a balanced tree (tsearch), O(log n) whatever names the
 * command picks; a hash table keyed by names the sandboxed command chooses
 * could be made to collide.  Address to name: an array indexed by the
 * address's offset, O(1).  Addresses are handed out in order and never
 * reused, so an address means one name for the whole run.
 */
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "dns/dns.h"

#define FAKE_BASE	0xc6120000u	/* 198.18.0.0 */
#define FAKE_MASK	0xfffe0000u	/* /15 */

struct fake_ent {
	uint32_t	 idx;
	const char	*name;		/* points just past the entry */
};

struct dns_fake {
	void		 *tree;		/* of struct fake_ent, by name */
	struct fake_ent	**ents;		/* by index; owned */
	size_t		  n, cap;
};

static int
ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fake_ent *)a)->name,
	    ((const struct fake_ent *)b)->name);
}

struct dns_fake *
dns_fake_new(void)
{
	return calloc(1, sizeof(struct dns_fake));
}

/* The entries are freed through ents; the tree holds the same pointers. */
static void
no_free(void *p)
{
	(void)p;
}

void
dns_fake_free(struct dns_fake *f)
{
	size_t i;

	if (f == NULL)
		return;
	tdestroy(f->tree, no_free);
	for (i = 0; i < f->n; i++)
		free(f->ents[i]);
	free(f->ents);
	free(f);
}

static void
idx_addr(uint32_t idx, struct egress_addr *out)
{
	egress_addr_from_v4(out, FAKE_BASE + 1 + idx);
}

bool
dns_fake_in_range(const struct egress_addr *a)
{
	return egress_addr_is_v4(a) &&
	    (egress_addr_v4(a) & FAKE_MASK) == FAKE_BASE;
}

static int
grow(struct dns_fake *f)
{
	struct fake_ent **n;
	size_t cap;

	if (f->n < f->cap)
		return 0;
	cap = f->cap == 0 ? 64 : f->cap * 2;
	if (cap > DNS_FAKE_MAX)
		cap = DNS_FAKE_MAX;
	if ((n = realloc(f->ents, cap * sizeof(*n))) == NULL)
		return -1;
	f->ents = n;
	f->cap = cap;
	return 0;
}

/* A new entry for name, in the tree and the array; NULL when full. */
static struct fake_ent *
add(struct dns_fake *f, const char *name, size_t len)
{
	struct fake_ent *e, **slot;

	if (f->n >= DNS_FAKE_MAX || grow(f) == -1 ||
	    (e = malloc(sizeof(*e) + len + 1)) == NULL)
		return NULL;
	memcpy(e + 1, name, len + 1);
	e->name = (const char *)(e + 1);
	e->idx = (uint32_t)f->n;
	if ((slot = tsearch(e, &f->tree, ent_cmp)) == NULL) {
		free(e);
		return NULL;
	}
	f->ents[f->n++] = e;
	return e;
}

int
dns_fake_addr(struct dns_fake *f, const char *name, struct egress_addr *out)
{
	struct fake_ent key, *e, **found;
	size_t len = strlen(name);

	if (len == 0 || len > EGRESS_HOST_MAX)
		return -1;
	key.idx = 0;
	key.name = name;
	if ((found = tfind(&key, &f->tree, ent_cmp)) != NULL)
		e = *found;
	else if ((e = add(f, name, len)) == NULL)
		return -1;
	idx_addr(e->idx, out);
	return 0;
}

const char *
dns_fake_name(const struct dns_fake *f, const struct egress_addr *a)
{
	uint32_t off;

	if (!dns_fake_in_range(a))
		return NULL;
	off = egress_addr_v4(a) - FAKE_BASE;
	if (off == 0 || off - 1 >= f->n)
		return NULL;
	return f->ents[off - 1]->name;
}

size_t
dns_fake_count(const struct dns_fake *f)
{
	return f->n;
}
