/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The audit model's small readers, shared by every part of the audit
 * (audit.c counts; audit_print.c, audit_html.c and suggest.c present):
 * the protocols' names, an integer member, a target's key, a map ranked.
 * A leaf: it calls none of those parts, so none of them calls another back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/audit_int.h"

const char *const audit_protocol_names[P_COUNT] = {
	[P_HTTP] = "http",
	[P_HTTP_CONNECT] = "http_connect",
	[P_SOCKS5] = "socks5",
	[P_DIRECT] = "direct",		/* run mode: around the proxy */
	[P_TRANSPARENT] = "transparent", /* run mode: a program's own TCP */
	[P_DNS] = "dns",		/* run mode: a name lookup refused */
};

json_int_t
audit_int(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

void
audit_target(const char *host, json_int_t port, char *buf, size_t len)
{
	if (strchr(host, ':') != NULL)
		snprintf(buf, len, "[%s]:%" JSON_INTEGER_FORMAT, host, port);
	else
		snprintf(buf, len, "%s:%" JSON_INTEGER_FORMAT, host, port);
}

static int
by_count(const void *x, const void *y)
{
	const struct audit_rank *a = x, *b = y;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->key, b->key);
}

/*
 * Every key of a map, the most counted first, ties by key.  count_key:
 * the member of each value that counts it, or NULL for integer values.
 */
struct audit_rank *
audit_ranked(const json_t *map, const char *count_key, size_t *np)
{
	struct audit_rank *t;
	const char *key;
	json_t *v;
	size_t n = 0;

	*np = json_object_size(map);
	if ((t = calloc(*np ? *np : 1, sizeof(*t))) == NULL)
		return NULL;
	/* jansson iterates a const object; its API just does not say so. */
	json_object_foreach((json_t *)map, key, v) {
		t[n].key = key;
		t[n].value = v;
		t[n++].n = count_key != NULL ? audit_int(v, count_key) :
		    json_integer_value(v);
	}
	qsort(t, n, sizeof(*t), by_count);
	return t;
}
