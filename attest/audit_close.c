/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The decision log's close lines (SPEC 5): {"ts":...,"event":"close",
 * "conn":N,"protocol":...,"host":...,"port":N,"bytes_out":N,"bytes_in":N,
 * "ms":N[,"run":...][,"pid":N]}, one when an allowed connection ends.  Not
 * a decision: its bytes are summed per host and per program, the program
 * being the exe of the allow line with the same conn (and run).  Those
 * are remembered only while the connection is open, so memory follows
 * the open connections, not the log's length.  Sums saturate at
 * INT64_MAX, the largest integer the JSON summary can hold, and say so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/audit_int.h"

#define SUM_MAX		((uint64_t)INT64_MAX)
#define WHY		"malformed \"event\" line (close): "

/* The keys of a close line, and the type each must have. */
static const struct {
	const char	*key;
	json_type	 type;
	bool		 required;
} close_fields[] = {
	{ "ts", JSON_STRING, true },
	{ "event", JSON_STRING, true },
	{ "conn", JSON_INTEGER, true },
	{ "protocol", JSON_STRING, true },
	{ "host", JSON_STRING, true },
	{ "port", JSON_INTEGER, true },
	{ "bytes_out", JSON_INTEGER, true },
	{ "bytes_in", JSON_INTEGER, true },
	{ "ms", JSON_INTEGER, true },
	{ "run", JSON_STRING, false },
	{ "pid", JSON_INTEGER, false },
};
#define NFIELDS	(sizeof(close_fields) / sizeof(close_fields[0]))

/* What a close line said, checked. */
struct close {
	const char		*host;
	const char		*run;	/* NULL: service mode */
	json_int_t		 conn;
	struct audit_bytes	 b;	/* connections: 1 */
};

static int
bad(char *why, size_t whylen, const char *what)
{
	snprintf(why, whylen, WHY "%s", what);
	return -1;
}

/*
 * The map key of a connection: "CONN RUN".  CONN is digits, so the first
 * space ends it whatever a run id holds.  Owned by the caller.
 */
static char *
conn_key(const char *run, json_int_t conn)
{
	size_t len = (run != NULL ? strlen(run) : 0) + 32;
	char *key;

	if ((key = malloc(len)) != NULL)
		snprintf(key, len, "%" JSON_INTEGER_FORMAT " %s", conn,
		    run != NULL ? run : "");
	return key;
}

int
audit_conn_open(struct audit *a, const char *run, json_int_t conn,
    const char *exe)
{
	char *key;
	int rv;

	if ((key = conn_key(run, conn)) == NULL)
		return -1;
	/* The newest line wins: a later process may reuse the number. */
	if (exe != NULL)
		rv = json_object_set_new(a->conns, key, json_string(exe));
	else {
		json_object_del(a->conns, key);
		rv = 0;
	}
	free(key);
	return rv;
}

/* Every key known, each of its type, the required ones there. */
static int
check_close_shape(json_t *o, char *why, size_t whylen)
{
	const char *key;
	json_t *v;
	size_t i;

	json_object_foreach(o, key, v) {
		for (i = 0; i < NFIELDS; i++)
			if (strcmp(key, close_fields[i].key) == 0)
				break;
		if (i == NFIELDS)
			return bad(why, whylen, "unknown key");
	}
	for (i = 0; i < NFIELDS; i++) {
		v = json_object_get(o, close_fields[i].key);
		if (v == NULL && close_fields[i].required) {
			snprintf(why, whylen, WHY "no \"%s\"",
			    close_fields[i].key);
			return -1;
		}
		if (v != NULL && json_typeof(v) != close_fields[i].type) {
			snprintf(why, whylen, WHY "\"%s\" is not %s",
			    close_fields[i].key,
			    close_fields[i].type == JSON_STRING ?
			    "a string" : "an integer");
			return -1;
		}
	}
	return 0;
}

/* The values: a proxied protocol, a port, counts that are not negative. */
static int
check_close(json_t *o, struct close *c, char *why, size_t whylen)
{
	const char *proto = json_string_value(json_object_get(o, "protocol"));
	json_int_t port = audit_int(o, "port");

	if (check_close_shape(o, why, whylen) == -1)
		return -1;
	if (strcmp(json_string_value(json_object_get(o, "event")), "close") !=
	    0)
		return bad(why, whylen, "\"event\" is not close");
	/* Only a connection the proxy carried closes: never dns, direct. */
	if (strcmp(proto, audit_protocol_names[P_HTTP]) != 0 &&
	    strcmp(proto, audit_protocol_names[P_HTTP_CONNECT]) != 0 &&
	    strcmp(proto, audit_protocol_names[P_SOCKS5]) != 0 &&
	    strcmp(proto, audit_protocol_names[P_TRANSPARENT]) != 0)
		return bad(why, whylen, "protocol is not http, http_connect, "
		    "socks5 or transparent");
	if ((c->conn = audit_int(o, "conn")) < 1)
		return bad(why, whylen, "\"conn\" below 1");
	if (port < 1 || port > 65535)
		return bad(why, whylen, "port out of range");
	if (audit_int(o, "bytes_out") < 0 || audit_int(o, "bytes_in") < 0 ||
	    audit_int(o, "ms") < 0)
		return bad(why, whylen, "bytes_out, bytes_in or ms below 0");
	if (json_object_get(o, "pid") != NULL && audit_int(o, "pid") < 1)
		return bad(why, whylen, "\"pid\" below 1");
	c->host = json_string_value(json_object_get(o, "host"));
	c->run = json_string_value(json_object_get(o, "run"));
	c->b.out = (uint64_t)audit_int(o, "bytes_out");
	c->b.in = (uint64_t)audit_int(o, "bytes_in");
	c->b.ms = (uint64_t)audit_int(o, "ms");
	c->b.connections = 1;
	return 0;
}

/* sum + n, held at SUM_MAX (and said) rather than wrapped. */
static uint64_t
sat_add(struct audit *a, uint64_t sum, uint64_t n)
{
	if (sum > SUM_MAX || n > SUM_MAX - sum) {
		a->bytes_saturated = true;
		return SUM_MAX;
	}
	return sum + n;
}

static void
sum_bytes(struct audit *a, struct audit_bytes *to,
    const struct audit_bytes *b)
{
	to->out = sat_add(a, to->out, b->out);
	to->in = sat_add(a, to->in, b->in);
	to->connections = sat_add(a, to->connections, b->connections);
	to->ms = sat_add(a, to->ms, b->ms);
}

/* o[key] += n, an integer member, saturating. */
static int
sum_member(struct audit *a, json_t *o, const char *key, uint64_t n)
{
	uint64_t v = (uint64_t)audit_int(o, key);

	return json_object_set_new(o, key,
	    json_integer((json_int_t)sat_add(a, v, n)));
}

/* map[key]: {"out","in","connections","ms","total"}, total ranks it. */
static int
sum_entry(struct audit *a, json_t *map, const char *key,
    const struct audit_bytes *b)
{
	json_t *o;

	if ((o = json_object_get(map, key)) == NULL) {
		if ((o = json_object()) == NULL ||
		    json_object_set_new(map, key, o) == -1)
			return -1;
	}
	if (sum_member(a, o, "out", b->out) == -1 ||
	    sum_member(a, o, "in", b->in) == -1 ||
	    sum_member(a, o, "connections", b->connections) == -1 ||
	    sum_member(a, o, "ms", b->ms) == -1)
		return -1;
	return sum_member(a, o, "total", sat_add(a, b->out, b->in));
}

/* Summed by host, and by program when an allow line named one. */
static int
count_close(struct audit *a, const struct close *c)
{
	json_t *exe = NULL;
	char *key;
	int rv = -1;

	if ((key = conn_key(c->run, c->conn)) == NULL)
		return -1;
	/* Taken out of the map: the connection is over. */
	if ((exe = json_incref(json_object_get(a->conns, key))) != NULL)
		json_object_del(a->conns, key);
	if (c->run != NULL && json_object_get(a->runs, c->run) == NULL &&
	    json_object_set_new(a->runs, c->run, json_true()) == -1)
		goto out;
	if (sum_entry(a, a->bytes_hosts, c->host, &c->b) == -1 ||
	    (exe != NULL && sum_entry(a, a->bytes_exes,
	    json_string_value(exe), &c->b) == -1))
		goto out;
	sum_bytes(a, &a->bytes, &c->b);
	if (exe == NULL)
		sum_bytes(a, &a->unattributed, &c->b);
	a->records++;
	if (c->run != NULL)
		a->run_records++;
	rv = 0;
out:
	json_decref(exe);
	free(key);
	return rv;
}

int
audit_close(struct audit *a, json_t *o, char *why, size_t whylen)
{
	struct close c;

	memset(&c, 0, sizeof(c));
	if (check_close(o, &c, why, whylen) == -1)
		return -1;
	if (count_close(a, &c) == -1) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	return 0;
}
