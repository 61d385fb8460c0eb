/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Summaries of decision logs (SPEC 5) for auditors: each line is read and
 * counted here, by decision, reason, protocol, host, process, time, and
 * what report mode let through; audit_print.c, suggest.c and audit_html.c
 * present the counts.  A log may have been tampered with, so each line is
 * held to the record the proxy writes, and nothing read from a line
 * reaches the output unescaped: a forged line must not carry secrets or
 * terminal escapes into what an auditor sees.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/attest.h"
#include "attest/audit_int.h"

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))
#define WORD_MAX	32	/* longest unknown name quoted back in a message */
#define SECOND_LEN	19	/* "2026-12-02T15:30:00" */
#define ENDPOINT_MAX	192

/* Indexed by "is it an allow". */
static const char *const decision_names[2] = { "deny", "allow" };

/* The keys of a record, and the type each must have. */
static const struct {
	const char	*key;
	json_type	 type;
	bool		 required;
} fields[] = {
	{ "ts", JSON_STRING, true },
	{ "protocol", JSON_STRING, true },
	{ "host", JSON_STRING, true },
	{ "port", JSON_INTEGER, true },
	{ "decision", JSON_STRING, true },
	{ "reason", JSON_STRING, true },
	{ "addr", JSON_STRING, false },
	{ "run", JSON_STRING, false },
	{ "pid", JSON_INTEGER, false },
	{ "exe", JSON_STRING, false },
	{ "count", JSON_INTEGER, false },
	{ "would", JSON_STRING, false },
	{ "direction", JSON_STRING, false },
	{ "conn", JSON_INTEGER, false },
};

struct record {
	enum audit_protocol	 protocol;
	const char		*ts;
	const char		*host;
	json_int_t		 port;
	bool			 allow;
	enum egress_reason	 reason;
	enum egress_reason	 would;	/* report_only: what enforcing said */
	const char		*run;	/* NULL: not in run mode */
	const char		*exe;	/* NULL: not known */
	json_int_t		 pid;	/* 0: not known */
	const char		*addr;	/* NULL: none */
	uint64_t		 count;	/* decisions the line stands for */
	bool			 inbound;	/* a direct line's peer came in */
	json_int_t		 conn;	/* an allowed connection's id; 0 */
};

/* The maps, in the order of struct audit. */
static json_t **
maps(struct audit *a, size_t i)
{
	json_t **m[] = { &a->hosts[0], &a->hosts[1], &a->runs, &a->exes,
	    &a->direct, &a->reported, &a->asked, &a->judged, &a->seconds,
	    &a->bytes_hosts, &a->bytes_exes, &a->conns };

	return i < NELEM(m) ? m[i] : NULL;
}

struct audit *
audit_new(void)
{
	struct audit *a;
	json_t **m;
	size_t i;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	for (i = 0; (m = maps(a, i)) != NULL; i++)
		if ((*m = json_object()) == NULL) {
			audit_free(a);
			return NULL;
		}
	return a;
}

void
audit_free(struct audit *a)
{
	json_t **m;
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; (m = maps(a, i)) != NULL; i++)
		json_decref(*m);
	free(a);
}

static int say(char *, size_t, const char *, ...)
    __attribute__((format(printf, 3, 4)));

/* Set why (when there is room for it) and fail. */
static int
say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why != NULL && whylen > 0) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * A name read from the line, quoted for a message only when it looks like
 * one this program could have written (a newer reason, say), else nothing.
 */
static const char *
word(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (i == WORD_MAX || !((s[i] >= 'a' && s[i] <= 'z') ||
		    s[i] == '_'))
			return "";
	if (i == 0)
		return "";
	snprintf(buf, len, " \"%s\"", s);
	return buf;
}

/* What jansson refused, without its text: that quotes the line. */
static int
json_why(const json_error_t *e, char *why, size_t whylen)
{
	const char *what;

	switch (json_error_code(e)) {
	case json_error_duplicate_key:
		return say(why, whylen, "duplicate key at byte %d",
		    e->position);
	case json_error_out_of_memory:
		return say(why, whylen, "out of memory");
	case json_error_numeric_overflow:
		what = "number out of range";
		break;
	case json_error_stack_overflow:
		what = "nested too deeply";
		break;
	case json_error_invalid_utf8:
		what = "invalid UTF-8";
		break;
	case json_error_null_character:
	case json_error_null_byte_in_key:
		what = "NUL character";
		break;
	case json_error_premature_end_of_input:
		what = "truncated";
		break;
	case json_error_end_of_input_expected:
		what = "text after the value";
		break;
	default:
		what = "syntax error";
		break;
	}
	return say(why, whylen, "not JSON (%s at byte %d)", what, e->position);
}

/* Every key known, every field of its type, the required ones there. */
static int
check_shape(json_t *o, char *why, size_t whylen)
{
	char buf[WORD_MAX + 4];
	const char *key;
	json_t *v;
	size_t i;

	json_object_foreach(o, key, v) {
		for (i = 0; i < NELEM(fields); i++)
			if (strcmp(key, fields[i].key) == 0)
				break;
		if (i == NELEM(fields))
			return say(why, whylen, "unknown key%s",
			    word(key, buf, sizeof(buf)));
	}
	for (i = 0; i < NELEM(fields); i++) {
		v = json_object_get(o, fields[i].key);
		if (v == NULL && fields[i].required)
			return say(why, whylen, "no \"%s\"", fields[i].key);
		if (v != NULL && json_typeof(v) != fields[i].type)
			return say(why, whylen, "\"%s\" is not %s",
			    fields[i].key, fields[i].type == JSON_STRING ?
			    "a string" : "an integer");
	}
	return 0;
}

static int
lookup(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static int
lookup_reason(const char *s)
{
	int r;

	for (r = EGRESS_R_NONE + 1; r < EGRESS_R_COUNT; r++)
		if (strcmp(s, egress_reason_name(r)) == 0)
			return r;
	return -1;
}

static const char *
str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/*
 * SPEC 3.1: report mode's lines say what enforcing would have said, one
 * of the two refusals report mode lets through; no other line says it.
 */
static int
check_would(json_t *o, struct record *r, char *why, size_t whylen)
{
	char buf[WORD_MAX + 4];
	const char *w = str(o, "would");
	int i;

	r->would = EGRESS_R_NONE;
	if (r->reason != EGRESS_R_REPORT_ONLY) {
		if (w != NULL)
			return say(why, whylen, "\"would\" with reason %s",
			    egress_reason_name(r->reason));
		return 0;
	}
	if (w == NULL)
		return say(why, whylen, "report_only without \"would\"");
	i = lookup_reason(w);
	if (i != EGRESS_R_NO_ALLOW_RULE && i != EGRESS_R_DENY_RULE)
		return say(why, whylen, "\"would\" is not no_allow_rule or "
		    "deny_rule%s", word(w, buf, sizeof(buf)));
	r->would = i;
	return 0;
}

/*
 * SPEC 5: "addr" is the address connected (allow) or judged (a deny
 * decided on one: an address rule, the registry, the proxy's own
 * listener, a failed connect).  These reasons are decided before any
 * address is judged, so a line of theirs never has one.
 */
static bool
decided_before_addr(enum egress_reason r)
{
	switch (r) {
	case EGRESS_R_DNS_FAILURE:
	case EGRESS_R_INVALID_TARGET:
	case EGRESS_R_INVALID_REQUEST:
	case EGRESS_R_UNSUPPORTED_COMMAND:
	case EGRESS_R_LIMIT_EXCEEDED:
	case EGRESS_R_LOG_UNAVAILABLE:
	case EGRESS_R_SHUTTING_DOWN:
		return true;
	default:
		return false;
	}
}

/* The values: known names, a port, and a reason that fits the decision. */
static int
check_values(json_t *o, struct record *r, char *why, size_t whylen)
{
	char buf[WORD_MAX + 4];
	json_int_t port;
	bool allow_reason;
	int i;

	if ((i = lookup(str(o, "protocol"), audit_protocol_names, P_COUNT)) ==
	    -1)
		return say(why, whylen, "unknown protocol%s",
		    word(str(o, "protocol"), buf, sizeof(buf)));
	r->protocol = i;
	if ((i = lookup(str(o, "decision"), decision_names, 2)) == -1)
		return say(why, whylen, "unknown decision%s",
		    word(str(o, "decision"), buf, sizeof(buf)));
	r->allow = i == 1;
	if ((i = lookup_reason(str(o, "reason"))) == -1)
		return say(why, whylen, "unknown reason%s",
		    word(str(o, "reason"), buf, sizeof(buf)));
	r->reason = i;
	port = json_integer_value(json_object_get(o, "port"));
	if (port < 0 || port > 65535)
		return say(why, whylen, "port out of range");
	r->port = port;
	/* SPEC 5: only these reasons allow; a failed connect is a deny. */
	allow_reason = r->reason == EGRESS_R_ALLOW_RULE ||
	    r->reason == EGRESS_R_DEFAULT_ALLOW ||
	    r->reason == EGRESS_R_REPORT_ONLY;
	if (r->allow != allow_reason)
		return say(why, whylen, "reason %s with decision %s",
		    egress_reason_name(r->reason), decision_names[r->allow]);
	if (check_would(o, r, why, whylen) == -1)
		return -1;
	if (json_object_get(o, "pid") != NULL &&
	    json_integer_value(json_object_get(o, "pid")) <= 0)
		return say(why, whylen, "\"pid\" below 1");
	r->pid = json_integer_value(json_object_get(o, "pid"));
	r->exe = str(o, "exe");
	r->addr = str(o, "addr");
	r->ts = str(o, "ts");
	/* A line of folded refusals (SPEC 5) stands for count of them. */
	r->count = 1;
	if (json_object_get(o, "count") != NULL) {
		if (json_integer_value(json_object_get(o, "count")) < 2)
			return say(why, whylen, "\"count\" below 2");
		r->count = (uint64_t)json_integer_value(json_object_get(o,
		    "count"));
	}
	if ((r->protocol == P_DIRECT) !=
	    (r->reason == EGRESS_R_NOT_THROUGH_PROXY))
		return say(why, whylen, "reason %s with protocol %s",
		    egress_reason_name(r->reason),
		    audit_protocol_names[r->protocol]);
	/* SPEC 5, 6.5: an inbound connection refused in landlock. */
	if (json_object_get(o, "direction") != NULL) {
		if (r->protocol != P_DIRECT || str(o, "direction") == NULL ||
		    strcmp(str(o, "direction"), "inbound") != 0)
			return say(why, whylen, "\"direction\" other than "
			    "inbound, or on a %s line",
			    audit_protocol_names[r->protocol]);
		r->inbound = true;
	}
	if (r->count > 1 && r->protocol != P_DIRECT)
		return say(why, whylen, "\"count\" on a %s line",
		    audit_protocol_names[r->protocol]);
	if (decided_before_addr(r->reason) && json_object_get(o, "addr") !=
	    NULL)
		return say(why, whylen, "\"addr\" with reason %s, which is "
		    "decided before any address",
		    egress_reason_name(r->reason));
	r->host = str(o, "host");
	r->run = str(o, "run");
	return 0;
}

/* SPEC 5: an allowed connection's id, which its close line repeats. */
static int
check_conn(json_t *o, struct record *r, char *why, size_t whylen)
{
	if (json_object_get(o, "conn") == NULL)
		return 0;
	if (!r->allow)
		return say(why, whylen, "\"conn\" on a deny line");
	if ((r->conn = json_integer_value(json_object_get(o, "conn"))) < 1)
		return say(why, whylen, "\"conn\" below 1");
	return 0;
}

/* map[key] += n, an integer. */
static int
add(json_t *map, const char *key, uint64_t n)
{
	json_t *v;

	if ((v = json_object_get(map, key)) != NULL)
		return json_integer_set(v, json_integer_value(v) +
		    (json_int_t)n);
	return json_object_set_new(map, key, json_integer((json_int_t)n));
}

/* map[key], an object made on first use. */
static json_t *
entry(json_t *map, const char *key)
{
	json_t *o;

	if ((o = json_object_get(map, key)) != NULL)
		return o;
	if ((o = json_object()) == NULL || json_object_set_new(map, key, o) ==
	    -1)
		return NULL;
	return o;
}

/*
 * A request's target, counted with how it was decided (by reason); with
 * addrs, the addresses its lines name too (audit --suggest --full finds
 * there what a whole policy needs: allow_loopback, exempt).
 */
static int
count_target(json_t *map, const struct record *r, const char *why_key,
    const char *why, bool addrs)
{
	char key[EGRESS_HOST_MAX + 16];
	json_t *o, *reasons, *seen;

	audit_target(r->host, r->port, key, sizeof(key));
	if ((o = entry(map, key)) == NULL ||
	    json_object_set_new(o, "host", json_string(r->host)) == -1 ||
	    json_object_set_new(o, "port", json_integer(r->port)) == -1 ||
	    add(o, "count", r->count) == -1 ||
	    (reasons = entry(o, why_key)) == NULL ||
	    add(reasons, why, r->count) == -1)
		return -1;
	if (!addrs || r->addr == NULL)
		return 0;
	if ((seen = entry(o, "addrs")) == NULL)
		return -1;
	return add(seen, r->addr, r->count);
}

/* A proxied decision of a run's process: its totals and hosts. */
static int
count_exe(struct audit *a, const struct record *r)
{
	json_t *o, *hosts;

	if ((o = entry(a->exes, r->exe)) == NULL ||
	    add(o, decision_names[r->allow], r->count) == -1 ||
	    add(o, "count", r->count) == -1 ||
	    (hosts = entry(o, "hosts")) == NULL)
		return -1;
	a->owned += r->count;
	return add(hosts, r->host, r->count);
}

/* A refusal around the proxy: by process, then endpoint. */
static int
count_direct(struct audit *a, const struct record *r)
{
	char endpoint[ENDPOINT_MAX], pid[24];
	const char *exe = r->exe != NULL ? r->exe : "";
	const char *addr = r->addr != NULL ? r->addr : "";
	json_t *o, *pids, *eps;

	/* unix:PATH, netlink:ID as they are; an IP address with its port. */
	if (r->port == 0 || strncmp(addr, "unix:", 5) == 0)
		snprintf(endpoint, sizeof(endpoint), "%s", addr);
	else
		audit_target(addr, r->port, endpoint, sizeof(endpoint));
	/* Another's connection to the command's port: said as such. */
	if (r->inbound && strlen(endpoint) + 11 < sizeof(endpoint))
		memcpy(endpoint + strlen(endpoint), " (inbound)", 11);
	if ((o = entry(a->direct, exe)) == NULL ||
	    add(o, "count", r->count) == -1 ||
	    (pids = entry(o, "pids")) == NULL ||
	    (eps = entry(o, "endpoints")) == NULL)
		return -1;
	if (r->pid > 0) {
		snprintf(pid, sizeof(pid), "%" JSON_INTEGER_FORMAT, r->pid);
		if (json_object_set_new(pids, pid, json_true()) == -1)
			return -1;
	}
	return add(eps, endpoint, r->count);
}

/* Decisions by the second they were made in, allowed and refused. */
static int
count_second(struct audit *a, const struct record *r)
{
	char second[SECOND_LEN + 1];
	json_t *pair;

	if (strlen(r->ts) < SECOND_LEN)
		return 0;
	memcpy(second, r->ts, SECOND_LEN);
	second[SECOND_LEN] = '\0';
	if ((pair = json_object_get(a->seconds, second)) == NULL) {
		if ((pair = json_pack("[i,i]", 0, 0)) == NULL ||
		    json_object_set_new(a->seconds, second, pair) == -1)
			return -1;
	}
	pair = json_array_get(pair, r->allow);
	return json_integer_set(pair, json_integer_value(pair) +
	    (json_int_t)r->count);
}

/* What audit --suggest admits: what was asked for, not refused else. */
static bool
asked_for(const struct record *r)
{
	return r->protocol != P_DIRECT && (r->allow ||
	    r->reason == EGRESS_R_NO_ALLOW_RULE ||
	    r->reason == EGRESS_R_DENY_RULE);
}

/*
 * What --full admits too: refused on its address by the special-purpose
 * block (which a setting lifts), or admitted but its connects failed.
 */
static bool
judged_for(const struct record *r)
{
	return r->protocol != P_DIRECT &&
	    (r->reason == EGRESS_R_PRIVATE_ADDRESS ||
	    r->reason == EGRESS_R_CONNECT_FAILED ||
	    r->reason == EGRESS_R_CONNECT_TIMEOUT);
}

static int
count(struct audit *a, const struct record *r)
{
	char why[48];

	/* A direct line names an endpoint, not a host: its own section. */
	if (r->protocol != P_DIRECT &&
	    add(a->hosts[r->allow], r->host, r->count) == -1)
		return -1;
	if (r->run != NULL && json_object_get(a->runs, r->run) == NULL &&
	    json_object_set_new(a->runs, r->run, json_true()) == -1)
		return -1;
	if (r->protocol == P_DIRECT ? count_direct(a, r) :
	    r->exe != NULL ? count_exe(a, r) : 0)
		return -1;
	snprintf(why, sizeof(why), "%s%s%s", egress_reason_name(r->reason),
	    r->would != EGRESS_R_NONE ? " (would: " : "",
	    r->would != EGRESS_R_NONE ? egress_reason_name(r->would) : "");
	if (r->would != EGRESS_R_NONE)
		strncat(why, ")", sizeof(why) - strlen(why) - 1);
	if (r->reason == EGRESS_R_REPORT_ONLY && count_target(a->reported, r,
	    "would", egress_reason_name(r->would), false) == -1)
		return -1;
	if (asked_for(r) && count_target(a->asked, r, "reasons", why,
	    true) == -1)
		return -1;
	if (judged_for(r) && count_target(a->judged, r, "reasons", why,
	    true) == -1)
		return -1;
	if (count_second(a, r) == -1)
		return -1;
	if (r->conn > 0 && audit_conn_open(a, r->run, r->conn, r->exe) == -1)
		return -1;
	a->records++;
	if (r->run != NULL)
		a->run_records++;
	a->decisions[r->allow] += r->count;
	a->by_reason[r->reason] += r->count;
	if (r->reason == EGRESS_R_REPORT_ONLY)
		a->would[r->would] += r->count;
	a->by_protocol[r->protocol] += r->count;
	return 0;
}

static int
parse_line(struct audit *a, const char *line, size_t len, char *why,
    size_t whylen)
{
	struct record r = { 0 };
	const char *nul;
	json_error_t e;
	json_t *o;
	int rv = -1;

	if (len == 0)
		return say(why, whylen, "empty line");
	/* jansson would take a NUL for the end of its input. */
	if ((nul = memchr(line, '\0', len)) != NULL)
		return say(why, whylen, "NUL at byte %zu",
		    (size_t)(nul - line));
	/* Any value, so that a number or an array is "not an object". */
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
	    &e);
	if (o == NULL)
		return json_why(&e, why, whylen);
	if (!json_is_object(o))
		say(why, whylen, "not an object");
	else if (json_object_get(o, "event") != NULL)
		rv = str(o, "event") != NULL && strcmp(str(o, "event"),
		    "close") == 0 ? audit_close(a, o, why, whylen) :
		    audit_unlogged(a, o, why, whylen);
	else if (check_shape(o, why, whylen) == 0 &&
	    check_values(o, &r, why, whylen) == 0 &&
	    check_conn(o, &r, why, whylen) == 0) {
		if ((rv = count(a, &r)) == -1)
			say(why, whylen, "out of memory");
	}
	json_decref(o);
	return rv;
}

int
audit_line(struct audit *a, const char *line, size_t len, char *why,
    size_t whylen)
{
	if (parse_line(a, line, len, why, whylen) == -1) {
		a->malformed++;
		return -1;
	}
	return 0;
}

void
audit_malformed(struct audit *a)
{
	a->malformed++;
}

int
audit_print(const struct audit *a, FILE *f, bool json, size_t top)
{
	if ((json ? audit_print_json(a, f, top) :
	    audit_print_text(a, f, top)) == -1)
		return -1;
	return ferror(f) ? -1 : 0;
}
