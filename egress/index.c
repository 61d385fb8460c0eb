/*
 * Rule index.  Names: open-addressing hash tables keyed by the exact name
 * and by the wildcard suffix.  Addresses: a binary trie over the 128-bit
 * space, one bit a level, nodes in one array.
 */
#include <stdlib.h>
#include <string.h>

#include "egress/index.h"

struct rule_list {
	const struct egress_rule	**v;
	uint32_t			  n, cap;
};

struct slot {
	uint64_t		 hash;
	const char		*key;	/* NULL: empty slot */
	struct rule_list	 rules;
};

struct name_table {
	struct slot	*slots;
	size_t		 nslots;	/* a power of two, or 0 */
	size_t		 used;
};

struct trie_node {
	uint32_t		 child[2];	/* 0: none (node 0 is the root) */
	struct rule_list	 rules;
};

struct rule_index {
	struct name_table	 exact;
	struct name_table	 wild;
	struct trie_node	*nodes;
	size_t			 nnodes, capnodes;
	size_t			 naddr_rules;
};

static uint64_t
hash_name(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int
list_add(struct rule_list *l, const struct egress_rule *r)
{
	const struct egress_rule **v;
	uint32_t cap;

	if (l->n == l->cap) {
		cap = l->cap ? l->cap * 2 : 1;
		v = reallocarray(l->v, cap, sizeof(*v));
		if (v == NULL)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = r;
	return 0;
}

/* The first rule of the list that applies to port. */
static const struct egress_rule *
list_match(const struct rule_list *l, uint16_t port)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i]->port == 0 || l->v[i]->port == port)
			return l->v[i];
	return NULL;
}

static struct slot *
table_find(const struct name_table *t, const char *key, size_t len,
    uint64_t h)
{
	size_t i, mask;

	if (t->nslots == 0)
		return NULL;
	mask = t->nslots - 1;
	for (i = h & mask; t->slots[i].key != NULL; i = (i + 1) & mask)
		if (t->slots[i].hash == h && strlen(t->slots[i].key) == len &&
		    memcmp(t->slots[i].key, key, len) == 0)
			return &t->slots[i];
	return &t->slots[i];
}

static int
table_grow(struct name_table *t)
{
	struct name_table nt;
	struct slot *s;
	size_t i;

	nt.nslots = t->nslots ? t->nslots * 2 : 16;
	nt.used = t->used;
	nt.slots = calloc(nt.nslots, sizeof(*nt.slots));
	if (nt.slots == NULL)
		return -1;
	for (i = 0; i < t->nslots; i++) {
		if (t->slots[i].key == NULL)
			continue;
		s = table_find(&nt, t->slots[i].key, strlen(t->slots[i].key),
		    t->slots[i].hash);
		*s = t->slots[i];
	}
	free(t->slots);
	*t = nt;
	return 0;
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
	if (s->key == NULL) {
		s->key = r->host;
		s->hash = h;
		t->used++;
	}
	return list_add(&s->rules, r);
}

static const struct egress_rule *
table_match(const struct name_table *t, const char *key, size_t len,
    uint16_t port)
{
	const struct slot *s;

	s = table_find(t, key, len, hash_name(key, len));
	if (s == NULL || s->key == NULL)
		return NULL;
	return list_match(&s->rules, port);
}

static void
table_free(struct name_table *t)
{
	size_t i;

	for (i = 0; i < t->nslots; i++)
		free(t->slots[i].rules.v);
	free(t->slots);
}

static int
trie_node_new(struct rule_index *ix, uint32_t *out)
{
	struct trie_node *n;
	size_t cap;

	if (ix->nnodes == ix->capnodes) {
		cap = ix->capnodes ? ix->capnodes * 2 : 64;
		if (cap > UINT32_MAX)
			return -1;
		n = reallocarray(ix->nodes, cap, sizeof(*n));
		if (n == NULL)
			return -1;
		ix->nodes = n;
		ix->capnodes = cap;
	}
	memset(&ix->nodes[ix->nnodes], 0, sizeof(ix->nodes[0]));
	*out = (uint32_t)ix->nnodes++;
	return 0;
}

static unsigned
addr_bit(const struct egress_addr *a, unsigned i)
{
	return (a->b[i / 8] >> (7 - i % 8)) & 1;
}

static int
trie_add(struct rule_index *ix, const struct egress_rule *r)
{
	uint32_t cur = 0, next;
	unsigned i, bit;

	if (ix->nnodes == 0 && trie_node_new(ix, &cur) == -1)
		return -1;
	for (i = 0; i < r->plen; i++) {
		bit = addr_bit(&r->addr, i);
		if (ix->nodes[cur].child[bit] == 0) {
			if (trie_node_new(ix, &next) == -1)
				return -1;
			ix->nodes[cur].child[bit] = next;
		}
		cur = ix->nodes[cur].child[bit];
	}
	ix->naddr_rules++;
	return list_add(&ix->nodes[cur].rules, r);
}

struct rule_index *
rule_index_new(void)
{
	return calloc(1, sizeof(struct rule_index));
}

void
rule_index_free(struct rule_index *ix)
{
	size_t i;

	if (ix == NULL)
		return;
	table_free(&ix->exact);
	table_free(&ix->wild);
	for (i = 0; i < ix->nnodes; i++)
		free(ix->nodes[i].rules.v);
	free(ix->nodes);
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
		return trie_add(ix, r);
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
	/* Every proper suffix starting after a dot, longest first. */
	for (p = host; (p = memchr(p, '.', host + len - p)) != NULL; ) {
		p++;
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
	const struct egress_rule *best = NULL, *r;
	uint32_t cur = 0;
	unsigned i = 0;

	if (ix->nnodes == 0)
		return NULL;
	for (;;) {
		if ((r = list_match(&ix->nodes[cur].rules, port)) != NULL)
			best = r;
		if (i == 128 || ix->nodes[cur].child[addr_bit(a, i)] == 0)
			break;
		cur = ix->nodes[cur].child[addr_bit(a, i)];
		i++;
	}
	return best;
}

bool
rule_index_has_addr_rules(const struct rule_index *ix)
{
	return ix->naddr_rules > 0;
}
