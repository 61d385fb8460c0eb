/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit --suggest --full: the settings a whole policy needs so that the
 * names the logs asked for reach the special-purpose addresses they
 * resolved to (SPEC 3.3, step 6c).  A loopback address needs
 * allow_loopback on (an exempt may not hold the proxy's own listener);
 * any other needs an exempt of the block explain names, narrowed to the
 * address itself where that block holds a metadata address (those cannot
 * be exempted).  Each line is found by asking the decision engine, on a
 * policy built up from these lines, until it no longer refuses the
 * address: an address that carries another (NAT64) may need two.
 * Metadata addresses are never made reachable: they are left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/audit_int.h"

#define SHOW_TARGETS	4	/* named above a line; then "N more" */

struct need {
	char	 line[EGRESS_HOST_MAX + 32];	/* the directive */
	char	 block[64];	/* the block that refused */
	bool	 narrowed;	/* the block holds a metadata address */
	json_t	*targets;	/* "host:port" -> the address reached */
};

struct suggest_needs {
	struct egress_policy	*p;	/* the lines so far */
	struct need		*v;
	size_t			 n, cap;
	json_t			*metadata;	/* targets left out */
	json_t			*carried;	/* loopback carried */
};

struct suggest_needs *
suggest_needs_new(void)
{
	struct suggest_needs *nd;

	if ((nd = calloc(1, sizeof(*nd))) == NULL)
		return NULL;
	nd->p = egress_policy_new();
	nd->metadata = json_object();
	nd->carried = json_object();
	if (nd->p == NULL || nd->metadata == NULL || nd->carried == NULL) {
		suggest_needs_free(nd);
		return NULL;
	}
	return nd;
}

void
suggest_needs_free(struct suggest_needs *nd)
{
	size_t i;

	if (nd == NULL)
		return;
	for (i = 0; i < nd->n; i++)
		json_decref(nd->v[i].targets);
	free(nd->v);
	egress_policy_free(nd->p);
	json_decref(nd->metadata);
	json_decref(nd->carried);
	free(nd);
}

/* The need for a line, made on first use. */
static struct need *
need_get(struct suggest_needs *nd, const char *line, const char *block,
    bool narrowed)
{
	struct need *v;
	size_t i;

	for (i = 0; i < nd->n; i++)
		if (strcmp(nd->v[i].line, line) == 0)
			return &nd->v[i];
	if (nd->n == nd->cap) {
		if ((v = reallocarray(nd->v, nd->cap * 2 + 4,
		    sizeof(*v))) == NULL)
			return NULL;
		nd->v = v;
		nd->cap = nd->cap * 2 + 4;
	}
	v = &nd->v[nd->n];
	memset(v, 0, sizeof(*v));
	snprintf(v->line, sizeof(v->line), "%s", line);
	snprintf(v->block, sizeof(v->block), "%s", block);
	v->narrowed = narrowed;
	if ((v->targets = json_object()) == NULL)
		return NULL;
	nd->n++;
	return v;
}

/* target -> addr in a set-like map; the first address seen stays. */
static int
note(json_t *map, const char *target, const char *addr)
{
	if (json_object_get(map, target) != NULL)
		return 0;
	return json_object_set_new(map, target, json_string(addr));
}

/* a, or an IPv4 address it carries, is one is(). */
static bool
holds(const struct egress_addr *a, bool (*is)(const struct egress_addr *))
{
	struct egress_addr emb[EGRESS_EMBED_MAX];
	size_t i, n;

	if (is(a))
		return true;
	n = egress_addr_embedded_v4(a, emb);
	for (i = 0; i < n; i++)
		if (is(&emb[i]))
			return true;
	return false;
}

/*
 * The exempt rule for a block ("10.0.0.0/8", "fc00::/7") as a policy
 * writes it, or which alone when the block holds a metadata address.
 */
static void
block_rule(const char *block, const struct egress_addr *which,
    struct egress_rule *r, bool *narrowed)
{
	char buf[80];
	const char *err, *slash = strchr(block, '/');
	struct egress_addr meta;

	if (strchr(block, ':') != NULL && slash != NULL)
		snprintf(buf, sizeof(buf), "[%.*s]%s", (int)(slash - block),
		    block, slash);
	else
		snprintf(buf, sizeof(buf), "%s", block);
	*narrowed = false;
	if (egress_rule_parse(buf, strlen(buf), true, r, &err) == -1 ||
	    r->kind != EGRESS_RULE_CIDR || r->port != 0 ||
	    egress_cidr_metadata(r, &meta)) {
		memset(r, 0, sizeof(*r));
		r->kind = EGRESS_RULE_CIDR;
		r->allow = true;
		r->addr = *which;
		r->plen = 128;
		*narrowed = true;
	}
}

bool
suggest_holds_metadata(const struct egress_addr *a)
{
	return holds(a, egress_addr_is_metadata);
}

/* Credit the lines that now let a through to target. */
static int
credit(struct suggest_needs *nd, const char *target, const char *addr,
    const struct egress_addr *a)
{
	struct egress_addr emb[1 + EGRESS_EMBED_MAX];
	const struct egress_rule *r;
	char line[EGRESS_HOST_MAX + 32], rule[EGRESS_HOST_MAX + 16];
	size_t i, j, n;

	if (egress_policy_allow_loopback(nd->p) &&
	    egress_addr_is_loopback(a) && egress_registry_lookup(a) != NULL)
		for (j = 0; j < nd->n; j++)
			if (strcmp(nd->v[j].line, "allow_loopback on") == 0 &&
			    note(nd->v[j].targets, target, addr) == -1)
				return -1;
	emb[0] = *a;
	n = 1 + egress_addr_embedded_v4(a, emb + 1);
	for (i = 0; i < n; i++) {
		if ((r = egress_policy_exempts(nd->p, &emb[i])) == NULL)
			continue;
		egress_rule_format(r, rule, sizeof(rule));
		snprintf(line, sizeof(line), "exempt %s", rule);
		for (j = 0; j < nd->n; j++)
			if (strcmp(nd->v[j].line, line) == 0 &&
			    note(nd->v[j].targets, target, addr) == -1)
				return -1;
	}
	return 0;
}

int
suggest_needs_add(struct suggest_needs *nd, const char *target,
    const char *logged)
{
	const char *addr;
	struct egress_target t;
	struct egress_addr which;
	struct egress_rule r;
	const char *block, *err;
	char line[EGRESS_HOST_MAX + 32], rule[EGRESS_HOST_MAX + 16];
	char canon[EGRESS_ADDRSTR_MAX];
	bool narrowed;
	int i;

	/* A forged "addr" that is no address needs nothing. */
	if (egress_host_parse(logged, strlen(logged), &t, &err) == -1 ||
	    !t.is_addr)
		return 0;
	/* Said back only as parsed: nothing a forged line wrote. */
	egress_addr_format(&t.addr, canon, sizeof(canon));
	addr = canon;
	if (holds(&t.addr, egress_addr_is_metadata))
		return note(nd->metadata, target, addr);
	if (!egress_addr_is_loopback(&t.addr) &&
	    holds(&t.addr, egress_addr_is_loopback))
		return note(nd->carried, target, addr);
	/* The address, then what it carries: 1 + EGRESS_EMBED_MAX rounds. */
	for (i = 0; i <= EGRESS_EMBED_MAX; i++) {
		if ((block = egress_special_block(nd->p, &t.addr,
		    &which)) == NULL)
			break;
		if (egress_addr_is_loopback(&which)) {
			egress_policy_set_allow_loopback(nd->p, true);
			if (need_get(nd, "allow_loopback on", block,
			    false) == NULL)
				return -1;
			break;
		}
		block_rule(block, &which, &r, &narrowed);
		egress_rule_format(&r, rule, sizeof(rule));
		snprintf(line, sizeof(line), "exempt %s", rule);
		if (egress_policy_add_exempt(nd->p, &r) == -1 ||
		    need_get(nd, line, block, narrowed) == NULL)
			return -1;
	}
	return credit(nd, target, addr, &t.addr);
}

static int
by_line(const void *x, const void *y)
{
	const struct need *a = x, *b = y;

	return strcmp(a->line, b->line);
}

/* "#   a:80 (10.0.0.7)" a line each, then "#   and 3 more". */
static void
put_targets(FILE *f, const json_t *targets)
{
	const char *key;
	json_t *v;
	size_t shown = 0, n = json_object_size(targets);

	json_object_foreach((json_t *)targets, key, v) {
		if (shown++ == SHOW_TARGETS)
			break;
		/* Keys and addresses were parsed back to canonical text. */
		fprintf(f, "#   %s (%s)\n", key, json_string_value(v));
	}
	if (n > SHOW_TARGETS)
		fprintf(f, "#   and %zu more\n", n - SHOW_TARGETS);
}

static void
put_need(FILE *f, const struct need *v)
{
	if (strcmp(v->line, "allow_loopback on") == 0)
		fprintf(f, "# Needed by these names, which resolved into "
		    "special-purpose %s:\n", v->block);
	else
		fprintf(f, "# Needed by these names, which resolved into "
		    "special-purpose\n# %s (block_private refuses it):\n",
		    v->block);
	put_targets(f, v->targets);
	if (strcmp(v->line, "allow_loopback on") == 0)
		fputs("# A security decision: every allowed name that "
		    "resolves to loopback\n# reaches this host's own "
		    "services.  Leave it off to have them refused.\n", f);
	else if (v->narrowed)
		fprintf(f, "# A security decision: every allowed name that "
		    "resolves to this address\n# reaches it (DNS rebinding "
		    "included).  Only the address: %s\n# holds a metadata "
		    "address, which is never exempt.\n", v->block);
	else
		fprintf(f, "# A security decision: the exempt lifts the block "
		    "for every allowed name\n# that resolves into %s (DNS "
		    "rebinding included), not for these\n# only.  Narrow it "
		    "to the addresses you expect, or leave it out.\n",
		    v->block);
	fprintf(f, "%s\n", v->line);
}

int
suggest_needs_print(struct suggest_needs *nd, FILE *f)
{
	size_t i;

	if (nd->n > 0)	/* qsort wants a base even for none */
		qsort(nd->v, nd->n, sizeof(*nd->v), by_line);
	if (nd->n == 0 || strcmp(nd->v[0].line, "allow_loopback on") != 0)
		fputs("allow_loopback off\n", f);
	for (i = 0; i < nd->n; i++)
		put_need(f, &nd->v[i]);
	if (json_object_size(nd->metadata) > 0) {
		fputs("# Left out: these names reached a metadata address, "
		    "which no setting\n# makes reachable:\n", f);
		put_targets(f, nd->metadata);
	}
	if (json_object_size(nd->carried) > 0) {
		fputs("# Left out: these names reached an address that carries "
		    "a loopback one;\n# allow_loopback does not lift that, and "
		    "an exempt may not hold the proxy's\n# own loopback "
		    "listener:\n", f);
		put_targets(f, nd->carried);
	}
	return ferror(f) ? -1 : 0;
}
