/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit --suggest: a policy that admits exactly what the logs asked for
 * (SPEC 3.1's "observe, then enforce").  One allow HOST:PORT line for each
 * target that was allowed, let through by report mode, or refused by the
 * rules (no_allow_rule, deny_rule), sorted, each with a comment counting
 * its requests and how they were decided.  Never a special-purpose or
 * metadata address, never a wildcard: a wildcard is only offered to a
 * person, in a comment.  Every host is parsed again and printed in its
 * normalized form, so nothing a forged line says reaches the policy.
 *
 * --full: a whole policy instead of lines to add to one: mode, default
 * and block_private, the settings the logged addresses show are needed
 * (suggest_need.c), and the allow lines, now also for targets refused on
 * their address by the special-purpose block (private_address) or whose
 * connects failed.  A special-purpose address the logs asked for by
 * itself gets its own allow ADDR:PORT line, the narrowest that admits it;
 * a metadata address, never.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/attest.h"
#include "attest/audit_int.h"

#define WILDCARD_MIN	3	/* hosts under one parent to offer *.parent */
#define WILDCARD_SHOW	4	/* of them named in the comment */

struct suggestion {
	struct egress_target	 t;
	char			 rule[EGRESS_HOST_MAX + 16];
	json_int_t		 count;
	json_t			*reasons;	/* reason -> count; owned */
	json_t			*addrs;	/* addr -> count; owned */
	const char		*block;	/* --full: a literal's block */
};

/* What the logs asked for, as rules, and what was left out. */
struct collected {
	struct suggestion	*s;
	size_t			 n, nspecial, ninvalid;
	json_int_t		 decisions;
};

/* By host, then port. */
static int
by_target(const void *x, const void *y)
{
	const struct suggestion *a = x, *b = y;
	int c;

	if ((c = strcmp(a->t.host, b->t.host)) != 0)
		return c;
	return (int)a->t.port - (int)b->t.port;
}

/* An address a policy must never be told to allow (SPEC 3.5). */
static bool
special(const struct egress_target *t)
{
	return t->is_addr && (egress_registry_lookup(&t->addr) != NULL ||
	    egress_addr_is_metadata(&t->addr));
}

/*
 * A logged target as a rule: 1, or 0 when it is left out (*why says
 * which way: 's' special-purpose, 'i' not a host a rule can name).  With
 * full, only a metadata address is left out as special-purpose.
 */
static int
as_rule(const json_t *v, struct suggestion *s, char *why, bool full)
{
	const char *host = json_string_value(json_object_get(v, "host"));
	json_int_t port = audit_int(v, "port");
	struct egress_rule r;
	const char *err;

	memset(s, 0, sizeof(*s));
	if (host == NULL || port < 1 || port > 65535 ||
	    egress_host_parse(host, strlen(host), &s->t, &err) == -1) {
		*why = 'i';
		return 0;
	}
	s->t.port = (uint16_t)port;
	if (special(&s->t) && (!full ||
	    suggest_holds_metadata(&s->t.addr))) {
		*why = 's';
		return 0;
	}
	if (special(&s->t))
		s->block = egress_registry_lookup(&s->t.addr);
	memset(&r, 0, sizeof(r));
	r.allow = true;
	r.port = s->t.port;
	if (s->t.is_addr) {
		r.kind = EGRESS_RULE_CIDR;
		r.addr = s->t.addr;
		r.plen = 128;
	} else {
		r.kind = EGRESS_RULE_HOST;
		snprintf(r.host, sizeof(r.host), "%s", s->t.host);
	}
	egress_rule_format(&r, s->rule, sizeof(s->rule));
	s->count = audit_int(v, "count");
	return 1;
}

/* Add one logged target's counts (reasons, addresses) to a suggestion's. */
static int
merge_counts(json_t *into, const json_t *from)
{
	const char *key;
	json_t *v, *have;

	json_object_foreach((json_t *)from, key, v) {
		if ((have = json_object_get(into, key)) != NULL) {
			if (json_integer_set(have, json_integer_value(have) +
			    json_integer_value(v)) == -1)
				return -1;
		} else if (json_object_set_new(into, key,
		    json_integer(json_integer_value(v))) == -1)
			return -1;
	}
	return 0;
}

/*
 * One suggestion a rule: a log may spell a host two ways (a forged one,
 * or another writer's), each its own target in the audit's map.
 */
static int
add_suggestion(struct suggestion *s, size_t *n, const struct suggestion *c,
    const json_t *v)
{
	const json_t *addrs = json_object_get(v, "addrs");
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(s[i].rule, c->rule) == 0)
			break;
	if (i == *n) {
		s[i] = *c;
		s[i].count = 0;
		s[i].addrs = NULL;
		if ((s[i].reasons = json_object()) == NULL ||
		    (s[i].addrs = json_object()) == NULL)
			return -1;
		(*n)++;
	}
	s[i].count += c->count;
	if (merge_counts(s[i].reasons, json_object_get(v, "reasons")) == -1)
		return -1;
	return addrs != NULL ? merge_counts(s[i].addrs, addrs) : 0;
}

/* Every target of map, as rules, into c (c->s has room for them). */
static int
collect(const json_t *map, bool full, struct collected *c)
{
	struct suggestion cand;
	const char *key;
	json_t *v;
	char why;

	json_object_foreach((json_t *)map, key, v) {
		if (as_rule(v, &cand, &why, full) == 1) {
			if (add_suggestion(c->s, &c->n, &cand, v) == -1)
				return -1;
			c->decisions += cand.count;
		} else if (why == 's')
			c->nspecial++;
		else
			c->ninvalid++;
	}
	qsort(c->s, c->n, sizeof(*c->s), by_target);
	return 0;
}

static void
collected_free(struct collected *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		json_decref(c->s[i].reasons);
		json_decref(c->s[i].addrs);
	}
	free(c->s);
}

/* A reason of the suggestion's says a deny rule refused it. */
static bool
denied(const struct suggestion *s)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)s->reasons, key, v)
		if (strstr(key, "deny_rule") != NULL)
			return true;
	return false;
}

/* "3 requests: allow_rule 2, report_only (would: no_allow_rule) 1". */
static void
put_reasons(FILE *f, const struct suggestion *s, bool full)
{
	const char *key;
	json_t *v;
	bool first = true;

	fprintf(f, "  # %" JSON_INTEGER_FORMAT " request%s:", s->count,
	    s->count == 1 ? "" : "s");
	/* Reason names this program wrote into the map (audit.c). */
	json_object_foreach((json_t *)s->reasons, key, v) {
		fprintf(f, "%s %s %" JSON_INTEGER_FORMAT, first ? "" : ",",
		    key, json_integer_value(v));
		first = false;
	}
	if (!full && denied(s))
		fputs("; a deny rule of the policy refuses it, and an allow "
		    "does not lift a deny", f);
	putc('\n', f);
}

/* --full: what a person must weigh about the rule, above it. */
static void
put_notes(FILE *f, const struct suggestion *s)
{
	if (denied(s))
		fputs("# A deny rule of the logged policy refused the next "
		    "one; this policy has no\n# deny rules: write it back to "
		    "keep refusing it.\n", f);
	if (s->block != NULL)
		fprintf(f, "# Special-purpose %s: the next rule lifts "
		    "block_private for this\n# address and port only, and "
		    "admits every name that resolves to them.\n", s->block);
}

/* The parent of a name with three labels or more ("b.example.com"). */
static const char *
parent(const char *host)
{
	const char *dot = strchr(host, '.');

	return dot != NULL && strchr(dot + 1, '.') != NULL ? dot + 1 : NULL;
}

/*
 * For a person, not a rule: where WILDCARD_MIN hosts or more share a
 * parent, the wildcard that would cover them (and more).
 */
static void
put_wildcards(FILE *f, const struct suggestion *s, size_t n)
{
	const char *p, *q;
	size_t i, j, k, shown;

	for (i = 0; i < n; i++) {
		if (s[i].t.is_addr || (p = parent(s[i].t.host)) == NULL)
			continue;
		/* Said once, at the first host under it. */
		for (j = 0; j < i; j++)
			if (!s[j].t.is_addr && (q = parent(s[j].t.host)) !=
			    NULL && strcmp(p, q) == 0)
				break;
		if (j < i)
			continue;
		for (k = 0, j = i; j < n; j++)
			if (!s[j].t.is_addr && (q = parent(s[j].t.host)) !=
			    NULL && strcmp(p, q) == 0 && (j == i ||
			    strcmp(s[j].t.host, s[j - 1].t.host) != 0))
				k++;
		if (k < WILDCARD_MIN)
			continue;
		fprintf(f, "# %zu hosts under %s (", k, p);
		for (shown = 0, j = i; j < n && shown < WILDCARD_SHOW; j++)
			if (!s[j].t.is_addr && (q = parent(s[j].t.host)) !=
			    NULL && strcmp(p, q) == 0 && (j == i ||
			    strcmp(s[j].t.host, s[j - 1].t.host) != 0))
				fprintf(f, "%s%s", shown++ > 0 ? ", " : "",
				    s[j].t.host);
		fprintf(f, "%s): a person who trusts all of %s may write "
		    "allow *.%s instead\n", k > WILDCARD_SHOW ? ", ..." : "",
		    p, p);
	}
}

/*
 * The comments on what was left out (nblocked: targets refused
 * private_address, which only --full answers), and the wildcards a
 * person may use.
 */
static void
put_left_out(FILE *f, const struct collected *c, bool full, size_t nblocked)
{
	if (c->nspecial > 0 && !full)
		fprintf(f, "# Left out: %zu special-purpose or metadata "
		    "address%s (never suggested; see exempt in "
		    "egress.conf(5)).\n", c->nspecial, c->nspecial == 1 ? "" :
		    "es");
	else if (c->nspecial > 0)
		fprintf(f, "# Left out: %zu metadata address%s (never "
		    "suggested).\n", c->nspecial, c->nspecial == 1 ? "" : "es");
	if (c->ninvalid > 0)
		fprintf(f, "# Left out: %zu target%s no rule can name.\n",
		    c->ninvalid, c->ninvalid == 1 ? "" : "s");
	if (nblocked > 0)
		fprintf(f, "# Left out: %zu target%s refused private_address "
		    "(audit --suggest --full\n# says what would lift it).\n",
		    nblocked, nblocked == 1 ? "" : "s");
	put_wildcards(f, c->s, c->n);
}

static void
put_rules(FILE *f, const struct collected *c, bool full)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (full)
			put_notes(f, &c->s[i]);
		fprintf(f, "allow %s", c->s[i].rule);
		put_reasons(f, &c->s[i], full);
	}
}

/* Targets the special-purpose block refused (lines --full answers). */
static size_t
blocked(const struct audit *a)
{
	const char *key;
	json_t *v;
	size_t n = 0;

	json_object_foreach(a->judged, key, v)
		if (json_object_get(json_object_get(v, "reasons"),
		    "private_address") != NULL)
			n++;
	return n;
}

int
audit_suggest(const struct audit *a, FILE *f)
{
	struct collected c = { 0 };
	size_t nblocked = blocked(a);
	int rv = -1;

	if ((c.s = calloc(json_object_size(a->asked) + 1,
	    sizeof(*c.s))) == NULL)
		return -1;
	if (collect(a->asked, false, &c) == -1)
		goto done;
	fprintf(f, "# harn-egressd audit --suggest: %zu target%s the logs "
	    "asked for, in %" JSON_INTEGER_FORMAT " decision%s.\n", c.n,
	    c.n == 1 ? "" : "s", c.decisions, c.decisions == 1 ? "" : "s");
	fputs("# Review each line, then add them to your policy in place of "
	    "mode report.\n# Settings (resolver, allow_loopback, timeouts) "
	    "are not in the logs: keep yours.\n", f);
	put_left_out(f, &c, false, nblocked);
	put_rules(f, &c, false);
	rv = ferror(f) ? -1 : 0;
done:
	collected_free(&c);
	return rv;
}

/* The settings the addresses of the names asked for show are needed. */
static int
put_needs(FILE *f, const struct collected *c)
{
	struct suggest_needs *nd;
	const char *addr;
	json_t *v;
	size_t i;
	int rv = -1;

	if ((nd = suggest_needs_new()) == NULL)
		return -1;
	for (i = 0; i < c->n; i++) {
		if (c->s[i].t.is_addr)
			continue;	/* its own allow rule admits it */
		json_object_foreach(c->s[i].addrs, addr, v)
			if (suggest_needs_add(nd, c->s[i].rule, addr) == -1)
				goto done;
	}
	rv = suggest_needs_print(nd, f);
done:
	suggest_needs_free(nd);
	return rv;
}

/* The refusals no line of a policy answers, by reason. */
static void
put_unanswered(FILE *f, const struct audit *a)
{
	bool first = true;
	int r;

	for (r = EGRESS_R_NONE + 1; r < EGRESS_R_COUNT; r++) {
		if (a->by_reason[r] == 0 || r == EGRESS_R_ALLOW_RULE ||
		    r == EGRESS_R_DEFAULT_ALLOW || r == EGRESS_R_REPORT_ONLY ||
		    r == EGRESS_R_NO_ALLOW_RULE || r == EGRESS_R_DENY_RULE ||
		    r == EGRESS_R_PRIVATE_ADDRESS ||
		    r == EGRESS_R_CONNECT_FAILED ||
		    r == EGRESS_R_CONNECT_TIMEOUT)
			continue;
		fprintf(f, "%s %s %" PRIu64, first ? "# Refusals no line "
		    "answers (see audit):" : ",", egress_reason_name(r),
		    a->by_reason[r]);
		first = false;
	}
	if (!first)
		putc('\n', f);
}

int
audit_suggest_full(const struct audit *a, FILE *f)
{
	struct collected c = { 0 };
	int rv = -1;

	if ((c.s = calloc(json_object_size(a->asked) +
	    json_object_size(a->judged) + 1, sizeof(*c.s))) == NULL)
		return -1;
	if (collect(a->asked, true, &c) == -1 ||
	    collect(a->judged, true, &c) == -1)
		goto done;
	fprintf(f, "# harn-egressd audit --suggest --full: a whole policy for "
	    "the %zu target%s\n# the logs asked for, in %" JSON_INTEGER_FORMAT
	    " decision%s.  Review every line, check it\n# (harn-egressd check "
	    "--policy FILE), then enforce it.\n", c.n, c.n == 1 ? "" : "s",
	    c.decisions, c.decisions == 1 ? "" : "s");
	fputs("# Not in the logs, so not here: resolver (without one, the "
	    "system's\n# resolv.conf), listen, timeouts, limits, upstream: add "
	    "yours.\nmode enforce\ndefault deny\nblock_private on\n", f);
	if (put_needs(f, &c) == -1)
		goto done;
	put_unanswered(f, a);
	put_left_out(f, &c, true, 0);
	put_rules(f, &c, true);
	rv = ferror(f) ? -1 : 0;
done:
	collected_free(&c);
	return rv;
}
