/*
 * audit --suggest: a policy that admits exactly what the logs asked for
 * (SPEC 3.1's "observe, then enforce").  One allow HOST:PORT line for each
 * target that was allowed, let through by report mode, or refused by the
 * rules (no_allow_rule, deny_rule), sorted, each with a comment counting
 * its requests and how they were decided.  Never a special-purpose or
 * metadata address, never a wildcard: a wildcard is only offered to a
 * person, in a comment.  Every host is parsed again and printed in its
 * normalized form, so nothing a forged line says reaches the policy.
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
 * which way: 's' special-purpose, 'i' not a host a rule can name).
 */
static int
as_rule(const json_t *v, struct suggestion *s, char *why)
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
	if (special(&s->t)) {
		*why = 's';
		return 0;
	}
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

/* Add one logged target's reasons to a suggestion's. */
static int
merge_reasons(json_t *into, const json_t *from)
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
    const json_t *reasons)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(s[i].rule, c->rule) == 0)
			break;
	if (i == *n) {
		s[i] = *c;
		s[i].count = 0;
		if ((s[i].reasons = json_object()) == NULL)
			return -1;
		(*n)++;
	}
	s[i].count += c->count;
	return merge_reasons(s[i].reasons, reasons);
}

/* "3 requests: allow_rule 2, report_only (would: no_allow_rule) 1". */
static void
put_reasons(FILE *f, const struct suggestion *s)
{
	const char *key;
	json_t *v;
	bool first = true, denied = false;

	fprintf(f, "  # %" JSON_INTEGER_FORMAT " request%s:", s->count,
	    s->count == 1 ? "" : "s");
	/* Reason names this program wrote into the map (audit.c). */
	json_object_foreach((json_t *)s->reasons, key, v) {
		fprintf(f, "%s %s %" JSON_INTEGER_FORMAT, first ? "" : ",",
		    key, json_integer_value(v));
		first = false;
		if (strstr(key, "deny_rule") != NULL)
			denied = true;
	}
	if (denied)
		fputs("; a deny rule of the policy refuses it, and an allow "
		    "does not lift a deny", f);
	putc('\n', f);
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

int
audit_suggest(const struct audit *a, FILE *f)
{
	struct suggestion *s, c;
	const char *key;
	json_t *v;
	size_t n = 0, nspecial = 0, ninvalid = 0, i;
	json_int_t decisions = 0;
	int rv = -1;
	char why;

	if ((s = calloc(json_object_size(a->asked) + 1, sizeof(*s))) == NULL)
		return -1;
	json_object_foreach(a->asked, key, v) {
		if (as_rule(v, &c, &why) == 1) {
			if (add_suggestion(s, &n, &c, json_object_get(v,
			    "reasons")) == -1)
				goto done;
			decisions += c.count;
		} else if (why == 's')
			nspecial++;
		else
			ninvalid++;
	}
	qsort(s, n, sizeof(*s), by_target);
	fprintf(f, "# harn-egressd audit --suggest: %zu target%s the logs "
	    "asked for, in %" JSON_INTEGER_FORMAT " decision%s.\n", n,
	    n == 1 ? "" : "s", decisions, decisions == 1 ? "" : "s");
	fputs("# Review each line, then add them to your policy in place of "
	    "mode report.\n# Settings (resolver, allow_loopback, timeouts) "
	    "are not in the logs: keep yours.\n", f);
	if (nspecial > 0)
		fprintf(f, "# Left out: %zu special-purpose or metadata "
		    "address%s (never suggested; see exempt in "
		    "egress.conf(5)).\n", nspecial, nspecial == 1 ? "" : "es");
	if (ninvalid > 0)
		fprintf(f, "# Left out: %zu target%s no rule can name.\n",
		    ninvalid, ninvalid == 1 ? "" : "s");
	put_wildcards(f, s, n);
	for (i = 0; i < n; i++) {
		fprintf(f, "allow %s", s[i].rule);
		put_reasons(f, &s[i]);
	}
	rv = ferror(f) ? -1 : 0;
done:
	for (i = 0; i < n; i++)
		json_decref(s[i].reasons);
	free(s);
	return rv;
}
