/*
 * Summaries of decision logs (SPEC 5) for auditors: totals by decision,
 * reason and protocol, and the most-requested hosts.  A log may have been
 * tampered with, so each line is held to the record the proxy writes, and
 * nothing read from a line reaches the output unescaped: a forged line
 * must not carry secrets or terminal escapes into what an auditor sees.
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

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))
#define WORD_MAX	32	/* longest unknown name quoted back in a message */
#define NAME_W		19	/* "unsupported_command" */

enum protocol { P_HTTP, P_HTTP_CONNECT, P_SOCKS5, P_COUNT };

static const char *const protocol_names[P_COUNT] = {
	[P_HTTP] = "http",
	[P_HTTP_CONNECT] = "http_connect",
	[P_SOCKS5] = "socks5",
};

/* Indexed by "is it an allow". */
static const char *const decision_names[2] = { "deny", "allow" };

struct audit {
	uint64_t	 records, malformed;
	uint64_t	 run_records;	/* carrying a run id */
	uint64_t	 decisions[2];
	uint64_t	 by_reason[EGRESS_R_COUNT];
	uint64_t	 by_protocol[P_COUNT];
	json_t		*hosts[2];	/* host -> count; by "is it an allow" */
	json_t		*runs;		/* run id -> true: a set */
};

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
};

struct record {
	enum protocol		 protocol;
	const char		*host;
	bool			 allow;
	enum egress_reason	 reason;
	const char		*run;	/* NULL: not in run mode */
};

struct host_count {
	const char	*host;
	json_int_t	 n;
};

struct audit *
audit_new(void)
{
	struct audit *a;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	a->hosts[0] = json_object();
	a->hosts[1] = json_object();
	a->runs = json_object();
	if (a->hosts[0] == NULL || a->hosts[1] == NULL || a->runs == NULL) {
		audit_free(a);
		return NULL;
	}
	return a;
}

void
audit_free(struct audit *a)
{
	if (a == NULL)
		return;
	json_decref(a->hosts[0]);
	json_decref(a->hosts[1]);
	json_decref(a->runs);
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

	if ((i = lookup(str(o, "protocol"), protocol_names, P_COUNT)) == -1)
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
	/* SPEC 5: only these two reasons allow; a failed connect is a deny. */
	allow_reason = r->reason == EGRESS_R_ALLOW_RULE ||
	    r->reason == EGRESS_R_DEFAULT_ALLOW;
	if (r->allow != allow_reason)
		return say(why, whylen, "reason %s with decision %s",
		    egress_reason_name(r->reason), decision_names[r->allow]);
	if (decided_before_addr(r->reason) && json_object_get(o, "addr") !=
	    NULL)
		return say(why, whylen, "\"addr\" with reason %s, which is "
		    "decided before any address",
		    egress_reason_name(r->reason));
	r->host = str(o, "host");
	r->run = str(o, "run");
	return 0;
}

static int
count_host(json_t *map, const char *host)
{
	json_t *n;

	if ((n = json_object_get(map, host)) != NULL)
		return json_integer_set(n, json_integer_value(n) + 1);
	return json_object_set_new(map, host, json_integer(1));
}

static int
count(struct audit *a, const struct record *r)
{
	if (count_host(a->hosts[r->allow], r->host) == -1)
		return -1;
	if (r->run != NULL && json_object_get(a->runs, r->run) == NULL &&
	    json_object_set_new(a->runs, r->run, json_true()) == -1)
		return -1;
	a->records++;
	if (r->run != NULL)
		a->run_records++;
	a->decisions[r->allow]++;
	a->by_reason[r->reason]++;
	a->by_protocol[r->protocol]++;
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
	else if (check_shape(o, why, whylen) == 0 &&
	    check_values(o, &r, why, whylen) == 0) {
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

static int
by_count(const void *x, const void *y)
{
	const struct host_count *a = x, *b = y;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->host, b->host);
}

/* Every host of a map, most requested first, ties by name. */
static struct host_count *
ranked(const json_t *map, size_t *np)
{
	struct host_count *t;
	const char *key;
	json_t *v;
	size_t n = 0;

	*np = json_object_size(map);
	if ((t = calloc(*np ? *np : 1, sizeof(*t))) == NULL)
		return NULL;
	/* jansson iterates a const object; its API just does not say so. */
	json_object_foreach((json_t *)map, key, v) {
		t[n].host = key;
		t[n++].n = json_integer_value(v);
	}
	qsort(t, n, sizeof(*t), by_count);
	return t;
}

/* ---------------------------------------------------------------- */
/* Text. */

static int
digits(uint64_t n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* A host as a terminal can show it: anything but plain ASCII escaped. */
static void
put_host(FILE *f, const char *h)
{
	const unsigned char *p;

	if (*h == '\0')
		fputs("\"\"", f);
	for (p = (const unsigned char *)h; *p != '\0'; p++) {
		if (*p > 0x20 && *p < 0x7f && *p != '\\')
			putc(*p, f);
		else
			fprintf(f, "\\x%02x", *p);
	}
}

static void
text_counts(FILE *f, const char *title, const uint64_t *n,
    const char *(*name)(int), int from, int to, int w)
{
	bool any = false;
	int i;

	fprintf(f, "\n%s:", title);
	for (i = from; i < to; i++) {
		if (n[i] == 0)
			continue;
		fprintf(f, "\n  %-*s %*" PRIu64, NAME_W, name(i), w, n[i]);
		any = true;
	}
	fputs(any ? "\n" : " none\n", f);
}

static const char *
reason_name(int i)
{
	return egress_reason_name(i);
}

static const char *
protocol_name(int i)
{
	return protocol_names[i];
}

static int
text_hosts(FILE *f, const char *title, const json_t *map, size_t top, int w)
{
	struct host_count *t;
	size_t i, n;

	if ((t = ranked(map, &n)) == NULL)
		return -1;
	fprintf(f, "\n%s:%s", title, n == 0 ? " none\n" : "\n");
	for (i = 0; i < n && i < top; i++) {
		fprintf(f, "  %*" PRId64 "  ", w, (int64_t)t[i].n);
		put_host(f, t[i].host);
		putc('\n', f);
	}
	free(t);
	return 0;
}

static int
print_text(const struct audit *a, FILE *f, size_t top)
{
	int w = digits(a->records);

	fprintf(f, "records %" PRIu64 " (malformed %" PRIu64 ")\n",
	    a->records, a->malformed);
	fprintf(f, "runs %zu\n", json_object_size(a->runs));
	/*
	 * What a record says of its origin is all this can go by: a run's
	 * records exactly, and nothing else claiming its id, are what
	 * verify --log checks against the run's report.
	 */
	fprintf(f, "attributed: %" PRIu64 " to runs by the run id they carry, "
	    "%" PRIu64 " to services (no run id), %" PRIu64 " malformed to "
	    "nothing; verify --log checks a run's records against its "
	    "report\n", a->run_records, a->records - a->run_records,
	    a->malformed);
	fprintf(f, "decisions: allow %" PRIu64 ", deny %" PRIu64 "\n",
	    a->decisions[1], a->decisions[0]);
	text_counts(f, "by reason", a->by_reason, reason_name,
	    EGRESS_R_NONE + 1, EGRESS_R_COUNT, w);
	text_counts(f, "by protocol", a->by_protocol, protocol_name, 0,
	    P_COUNT, w);
	if (top == 0)
		return 0;
	if (text_hosts(f, "top allowed hosts", a->hosts[1], top, w) == -1 ||
	    text_hosts(f, "top denied hosts", a->hosts[0], top, w) == -1)
		return -1;
	return 0;
}

/* ---------------------------------------------------------------- */
/* JSON. */

static int
set_count(json_t *o, const char *key, uint64_t n)
{
	return json_object_set_new(o, key, json_integer((json_int_t)n));
}

static json_t *
json_counts(const uint64_t *n, const char *(*name)(int), int from, int to)
{
	json_t *o;
	int i;

	if ((o = json_object()) == NULL)
		return NULL;
	for (i = from; i < to; i++)
		if (set_count(o, name(i), n[i]) == -1) {
			json_decref(o);
			return NULL;
		}
	return o;
}

static json_t *
json_hosts(const json_t *map, size_t top)
{
	struct host_count *t;
	json_t *arr;
	size_t i, n;

	if ((arr = json_array()) == NULL)
		return NULL;
	if ((t = ranked(map, &n)) == NULL)
		goto fail;
	for (i = 0; i < n && i < top; i++)
		if (json_array_append_new(arr, json_pack("{s:s, s:I}", "host",
		    t[i].host, "count", t[i].n)) == -1)
			goto fail;
	free(t);
	return arr;
fail:
	free(t);
	json_decref(arr);
	return NULL;
}

static int
print_json(const struct audit *a, FILE *f, size_t top)
{
	json_t *o, *d;
	int rv = -1;

	if ((o = json_object()) == NULL)
		return -1;
	if ((d = json_object()) == NULL ||
	    json_object_set_new(o, "decisions", d) == -1 ||
	    set_count(d, "allow", a->decisions[1]) == -1 ||
	    set_count(d, "deny", a->decisions[0]) == -1)
		goto fail;
	if (set_count(o, "records", a->records) == -1 ||
	    set_count(o, "malformed", a->malformed) == -1 ||
	    set_count(o, "run_records", a->run_records) == -1 ||
	    set_count(o, "service_records", a->records - a->run_records) ==
	    -1 ||
	    set_count(o, "runs", json_object_size(a->runs)) == -1)
		goto fail;
	if (json_object_set_new(o, "by_reason", json_counts(a->by_reason,
	    reason_name, EGRESS_R_NONE + 1, EGRESS_R_COUNT)) == -1 ||
	    json_object_set_new(o, "by_protocol", json_counts(a->by_protocol,
	    protocol_name, 0, P_COUNT)) == -1)
		goto fail;
	if (json_object_set_new(o, "top_allowed",
	    json_hosts(a->hosts[1], top)) == -1 ||
	    json_object_set_new(o, "top_denied",
	    json_hosts(a->hosts[0], top)) == -1)
		goto fail;
	/* ASCII only: a forged host cannot put a raw escape on a terminal. */
	if (json_dumpf(o, f, JSON_INDENT(2) | JSON_SORT_KEYS |
	    JSON_ENSURE_ASCII) == -1 || putc('\n', f) == EOF)
		goto fail;
	rv = 0;
fail:
	json_decref(o);
	return rv;
}

int
audit_print(const struct audit *a, FILE *f, bool json, size_t top)
{
	if ((json ? print_json(a, f, top) : print_text(a, f, top)) == -1)
		return -1;
	return ferror(f) ? -1 : 0;
}
