/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Rule index.  Names: open-addressing hash tables keyed by the exact name
 * and by the wildcard suffix.  Addresses: one hash table per prefix length
 * in use, keyed by the masked address; a lookup probes each length in use,
 * longest first, so its cost depends on how many lengths the policy uses
 * (at most 129), never on how many rules it has.
 *
 * A slot is one cache line holding the key (short names inline) and the
 * first rule with its port, so a lookup that hits usually touches one line.
 * Beside the slots, one tag byte a slot (0: empty, else 0x80 | 7 hash bits)
 * is small enough to stay in cache, so most misses touch no slot at all.
 * Keys are always compared in full: a hash match alone never admits.
 */
#include <stdlib.h>
#include <string.h>

#include "egress/index.h"

#define KEY_INLINE	36

struct rule_more {
	uint32_t			 n, cap;
	const struct egress_rule	*v[];
};

/* The rules sharing one key, in policy order. */
struct rule_list {
	const struct egress_rule	*first;	/* NULL: slot unused */
	struct rule_more		*more;
	uint16_t			 first_port;
};

struct slot {
	uint64_t		 hash;
	struct rule_list	 rules;
	uint16_t		 keylen;
	char			 key[KEY_INLINE];	/* when it fits */
};

struct name_table {
	struct slot	*slots;
	uint8_t		*tags;
	size_t		 nslots;	/* a power of two, or 0 */
	size_t		 used;
	uint64_t	 nlabels;	/* bit n: some key has n+1 labels */
};

struct addr_slot {
	struct egress_addr	 key;	/* masked to the table's length */
	struct rule_list	 rules;
};

struct addr_table {
	struct addr_slot	*slots;
	uint8_t			*tags;
	size_t			 nslots, used;
};

struct rule_index {
	struct name_table	 exact;
	struct name_table	 wild;
	struct addr_table	 bylen[129];	/* by prefix length */
	uint8_t			 lens[129];	/* lengths in use, longest first */
	size_t			 nlens;
	size_t			 naddr_rules;
	size_t			 naddr_anyport;	/* address rules without a port */
	uint8_t			 addr_ports[65536 / 8];	/* ports of the others */
};

static int
list_add(struct rule_list *l, const struct egress_rule *r)
{
	struct rule_more *m = l->more;
	uint32_t cap;

	if (l->first == NULL) {
		l->first = r;
		l->first_port = r->port;
		return 0;
	}
	if (m == NULL || m->n == m->cap) {
		cap = m ? m->cap * 2 : 2;
		m = realloc(m, sizeof(*m) + cap * sizeof(m->v[0]));
		if (m == NULL)
			return -1;
		if (l->more == NULL)
			m->n = 0;
		m->cap = cap;
		l->more = m;
	}
	m->v[m->n++] = r;
	return 0;
}

/* The first rule of the list that applies to port. */
static const struct egress_rule *
list_match(const struct rule_list *l, uint16_t port)
{
	uint32_t i;

	if (l->first == NULL)
		return NULL;
	if (l->first_port == 0 || l->first_port == port)
		return l->first;
	for (i = 0; l->more != NULL && i < l->more->n; i++)
		if (l->more->v[i]->port == 0 || l->more->v[i]->port == port)
			return l->more->v[i];
	return NULL;
}

static uint64_t
hash_name(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h ^ (h >> 29);
}

static uint8_t
tag_of(uint64_t h)
{
	return 0x80 | (uint8_t)(h >> 57);
}

static bool
slot_key_is(const struct slot *s, const char *key, size_t len)
{
	if (s->keylen != len)
		return false;
	if (len <= KEY_INLINE)
		return memcmp(s->key, key, len) == 0;
	return memcmp(s->rules.first->host, key, len) == 0;
}

/* The slot holding key, or the empty slot where it would go. */
static struct slot *
table_find(const struct name_table *t, const char *key, size_t len,
    uint64_t h)
{
	size_t i, mask;

	if (t->nslots == 0)
		return NULL;
	mask = t->nslots - 1;
	for (i = h & mask; t->tags[i] != 0; i = (i + 1) & mask)
		if (t->tags[i] == tag_of(h) && t->slots[i].hash == h &&
		    slot_key_is(&t->slots[i], key, len))
			return &t->slots[i];
	return &t->slots[i];
}

static int
table_grow(struct name_table *t)
{
	struct slot *slots;
	uint8_t *tags;
	size_t i, j, n = t->nslots ? t->nslots * 2 : 16, mask = n - 1;

	slots = calloc(n, sizeof(*slots));
	tags = calloc(n, 1);
	if (slots == NULL || tags == NULL) {
		free(slots);
		free(tags);
		return -1;
	}
	for (i = 0; i < t->nslots; i++) {
		if (t->tags[i] == 0)
			continue;
		for (j = t->slots[i].hash & mask; tags[j] != 0; j = (j + 1) & mask)
			;
		slots[j] = t->slots[i];
		tags[j] = t->tags[i];
	}
	free(t->slots);
	free(t->tags);
	t->slots = slots;
	t->tags = tags;
	t->nslots = n;
	return 0;
}

/* The bit for a name's label count (names of 64 labels or more share one). */
static uint64_t
label_bit(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += s[i] == '.';
	return 1ULL << (n < 63 ? n : 63);
}

static int
table_add(struct name_table *t, const struct egress_rule *r)
{
	size_t len = strlen(r->host);
	uint64_t h = hash_name(r->host, len);
	struct slot *s;

	/* Keep the load under one half so probes stay short. */
	if ((t->used + 1) * 2 > t->nslots && table_grow(t) == -1)
		return -1;
	s = table_find(t, r->host, len, h);
	if (s->rules.first == NULL) {
		t->tags[s - t->slots] = tag_of(h);
		s->hash = h;
		s->keylen = (uint16_t)len;
		if (len <= KEY_INLINE)
			memcpy(s->key, r->host, len);
		t->used++;
		t->nlabels |= label_bit(r->host, len);
	}
	return list_add(&s->rules, r);
}

static const struct egress_rule *
table_match(const struct name_table *t, const char *key, size_t len,
    uint16_t port)
{
	const struct slot *s;

	uint64_t h = hash_name(key, len);

	/* Not found: the empty slot's tag says so without touching the slot. */
	s = table_find(t, key, len, h);
	if (s == NULL || t->tags[s - t->slots] == 0)
		return NULL;
	return list_match(&s->rules, port);
}

static void
table_free(struct name_table *t)
{
	size_t i;

	for (i = 0; i < t->nslots; i++)
		free(t->slots[i].rules.more);
	free(t->slots);
	free(t->tags);
}

static void
addr_mask(struct egress_addr *out, const struct egress_addr *a, unsigned plen)
{
	unsigned i;

	for (i = 0; i < 16; i++) {
		if (plen >= 8 * (i + 1))
			out->b[i] = a->b[i];
		else if (plen > 8 * i)
			out->b[i] = a->b[i] & (uint8_t)(0xff << (8 * (i + 1) - plen));
		else
			out->b[i] = 0;
	}
}

static uint64_t
hash_addr(const struct egress_addr *a)
{
	uint64_t h0, h1;

	memcpy(&h0, a->b, 8);
	memcpy(&h1, a->b + 8, 8);
	h0 = (h0 ^ (h1 * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
	return h0 ^ (h0 >> 33);
}

static struct addr_slot *
addr_find(const struct addr_table *t, const struct egress_addr *key)
{
	uint64_t h = hash_addr(key);
	size_t i, mask;

	if (t->nslots == 0)
		return NULL;
	mask = t->nslots - 1;
	for (i = h & mask; t->tags[i] != 0; i = (i + 1) & mask)
		if (t->tags[i] == tag_of(h) &&
		    memcmp(&t->slots[i].key, key, sizeof(*key)) == 0)
			return &t->slots[i];
	return &t->slots[i];
}

static int
addr_grow(struct addr_table *t)
{
	struct addr_table nt = { .nslots = t->nslots ? t->nslots * 2 : 8,
	    .used = t->used };
	struct addr_slot *s;
	size_t i;

	nt.slots = calloc(nt.nslots, sizeof(*nt.slots));
	nt.tags = calloc(nt.nslots, 1);
	if (nt.slots == NULL || nt.tags == NULL) {
		free(nt.slots);
		free(nt.tags);
		return -1;
	}
	for (i = 0; i < t->nslots; i++) {
		if (t->tags[i] == 0)
			continue;
		s = addr_find(&nt, &t->slots[i].key);
		*s = t->slots[i];
		nt.tags[s - nt.slots] = t->tags[i];
	}
	free(t->slots);
	free(t->tags);
	*t = nt;
	return 0;
}

static void
lens_insert(struct rule_index *ix, uint8_t plen)
{
	size_t i = ix->nlens;

	while (i > 0 && ix->lens[i - 1] < plen) {
		ix->lens[i] = ix->lens[i - 1];
		i--;
	}
	ix->lens[i] = plen;
	ix->nlens++;
}

static int
addr_add(struct rule_index *ix, const struct egress_rule *r)
{
	struct addr_table *t = &ix->bylen[r->plen];
	struct egress_addr key;
	struct addr_slot *s;

	if ((t->used + 1) * 2 > t->nslots && addr_grow(t) == -1)
		return -1;
	addr_mask(&key, &r->addr, r->plen);
	s = addr_find(t, &key);
	if (s->rules.first == NULL) {
		t->tags[s - t->slots] = tag_of(hash_addr(&key));
		s->key = key;
		if (t->used++ == 0)
			lens_insert(ix, r->plen);
	}
	if (list_add(&s->rules, r) == -1)
		return -1;
	ix->naddr_rules++;
	if (r->port == 0)
		ix->naddr_anyport++;
	else
		ix->addr_ports[r->port / 8] |= 1 << (r->port % 8);
	return 0;
}

struct rule_index *
rule_index_new(void)
{
	return calloc(1, sizeof(struct rule_index));
}

void
rule_index_free(struct rule_index *ix)
{
	size_t i, j;

	if (ix == NULL)
		return;
	table_free(&ix->exact);
	table_free(&ix->wild);
	for (i = 0; i < 129; i++) {
		for (j = 0; j < ix->bylen[i].nslots; j++)
			free(ix->bylen[i].slots[j].rules.more);
		free(ix->bylen[i].slots);
		free(ix->bylen[i].tags);
	}
	free(ix);
}

int
rule_index_add(struct rule_index *ix, const struct egress_rule *r)
{
	switch (r->kind) {
	case EGRESS_RULE_HOST:
		return table_add(&ix->exact, r);
	case EGRESS_RULE_WILDCARD:
		return table_add(&ix->wild, r);
	case EGRESS_RULE_CIDR:
		return addr_add(ix, r);
	}
	return -1;
}

const struct egress_rule *
rule_index_host(const struct rule_index *ix, const char *host, uint16_t port)
{
	const struct egress_rule *r;
	const char *p;
	size_t len = strlen(host);

	if ((r = table_match(&ix->exact, host, len, port)) != NULL)
		return r;
	if (ix->wild.used == 0)
		return NULL;
	/*
	 * Every proper suffix starting after a dot, longest first, skipping
	 * label counts no wildcard has.
	 */
	for (p = host; (p = memchr(p, '.', host + len - p)) != NULL; ) {
		p++;
		if (!(ix->wild.nlabels & label_bit(p, host + len - p)))
			continue;
		r = table_match(&ix->wild, p, host + len - p, port);
		if (r != NULL)
			return r;
	}
	return NULL;
}

const struct egress_rule *
rule_index_addr(const struct rule_index *ix, const struct egress_addr *a,
    uint16_t port)
{
	const struct egress_rule *r;
	const struct addr_table *t;
	const struct addr_slot *s;
	struct egress_addr key;
	size_t i;

	for (i = 0; i < ix->nlens; i++) {
		addr_mask(&key, a, ix->lens[i]);
		t = &ix->bylen[ix->lens[i]];
		s = addr_find(t, &key);
		if (s != NULL && t->tags[s - t->slots] != 0 &&
		    (r = list_match(&s->rules, port)) != NULL)
			return r;
	}
	return NULL;
}

bool
rule_index_has_addr_rules(const struct rule_index *ix, uint16_t port)
{
	return ix->naddr_anyport > 0 ||
	    (ix->addr_ports[port / 8] & (1 << (port % 8))) != 0;
}
