/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The checks both forms of a report share (SPEC 7, 7.1): it is JSON of
 * our schema, and (with a log) the log holds exactly the records the
 * report counts.  The first check that fails is named.  verify_json.c
 * tells the forms apart and checks the JSON form's spelling and
 * signature; verify_dsse.c checks an envelope; both call these.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "attest/attest.h"
#include "attest/encode.h"
#include "attest/verify.h"

enum {
	T_STR = 1, T_INT = 2, T_BOOL = 4, T_OBJ = 8, T_ARR = 16, T_NULL = 32,
	T_HEX16 = 64, T_HEX32 = 128	/* a string of that many bytes in hex */
};

/* The members SPEC 7 names; a member of a null parent is not looked at. */
static const struct member {
	const char	*parent;	/* NULL: the report itself */
	const char	*key;
	unsigned	 types;
} members[] = {
	{ NULL, "schema", T_STR },
	{ NULL, "run_id", T_STR | T_HEX16 },
	{ NULL, "started_at", T_STR },
	{ NULL, "ended_at", T_STR },
	{ NULL, "tool", T_OBJ },
	{ NULL, "host", T_OBJ },
	{ NULL, "command", T_OBJ | T_NULL },
	{ NULL, "policy", T_OBJ },
	{ NULL, "sandbox", T_OBJ | T_NULL },
	{ NULL, "proxy", T_OBJ },
	{ NULL, "decisions", T_OBJ },
	{ NULL, "log", T_OBJ },
	{ NULL, "exit", T_OBJ | T_NULL },
	{ "tool", "name", T_STR },
	{ "tool", "version", T_STR },
	{ "host", "kernel", T_STR },
	{ "host", "arch", T_STR },
	{ "command", "argv0", T_STR },
	{ "command", "argv_sha256", T_STR | T_HEX32 },
	{ "policy", "source", T_STR },
	{ "policy", "sha256", T_STR | T_HEX32 },
	{ "policy", "default", T_STR },
	{ "policy", "block_private", T_BOOL },
	{ "policy", "allow_loopback", T_BOOL },
	{ "policy", "rules", T_INT },
	{ "policy", "mode", T_STR },
	{ "policy", "upstream", T_STR | T_NULL },
	{ "policy", "upstream_resolve", T_STR },
	{ "sandbox", "backend", T_STR },
	{ "sandbox", "profile", T_STR },
	{ "sandbox", "confinement", T_STR | T_NULL },
	{ "sandbox", "process_network_mode", T_STR },
	{ "sandbox", "landlock_abi", T_INT },
	{ "sandbox", "seccomp", T_BOOL },
	{ "sandbox", "namespaces", T_ARR },
	{ "proxy", "listen", T_ARR },
	{ "decisions", "allow", T_INT },
	{ "decisions", "deny", T_INT },
	{ "decisions", "by_reason", T_OBJ },
	{ "log", "sha256", T_STR | T_HEX32 },
	{ "log", "records", T_INT },
	{ "log", "lost", T_INT },
	{ "log", "bytes", T_INT },
	{ "log", "complete", T_BOOL },
	{ "exit", "code", T_INT },
	{ "exit", "signal", T_INT | T_NULL },
};

/* Members whose values come from a fixed set. */
static const char *const network_modes[] = {
	"managed", "denied", "unrestricted", "unsupported_fail_closed", NULL
};
static const char *const defaults[] = { "allow", "deny", NULL };
static const char *const modes[] = { "enforce", "report", NULL };
static const char *const resolves[] = { "local", "parent", NULL };
static const char *const backends[] = { "linux", NULL };
static const char *const confinements[] = { "namespaces", "landlock", NULL };
static const struct word_member {
	const char		*parent, *key;
	const char *const	*values;
} word_members[] = {
	{ "sandbox", "process_network_mode", network_modes },
	{ "sandbox", "backend", backends },
	{ "sandbox", "confinement", confinements },
	{ "policy", "default", defaults },
	{ "policy", "mode", modes },
	{ "policy", "upstream_resolve", resolves },
};

/* Arrays of strings and objects of integers. */
static const struct {
	const char	*parent, *key;
	int		 type;
} element_members[] = {
	{ "proxy", "listen", JSON_STRING },
	{ "sandbox", "namespaces", JSON_STRING },
	{ "decisions", "by_reason", JSON_INTEGER },
};

int
verdict_vfail(struct verdict *v, const char *check, const char *fmt,
    va_list ap)
{
	*v->failed = check;
	vsnprintf(v->why, v->whylen, fmt, ap);
	return 1;
}

static int
fail(struct verdict *v, const char *check, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct verdict *v, const char *check, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verdict_vfail(v, check, fmt, ap);
	va_end(ap);
	return 1;
}

static bool
type_ok(const json_t *j, unsigned types)
{
	if (json_is_null(j))
		return types & T_NULL;
	if (json_is_integer(j))
		return types & T_INT;
	if (json_is_boolean(j))
		return types & T_BOOL;
	if (json_is_object(j))
		return types & T_OBJ;
	if (json_is_array(j))
		return types & T_ARR;
	if (!json_is_string(j) || !(types & T_STR))
		return false;
	if (types & T_HEX16)
		return encode_is_hex(json_string_value(j), 16);
	if (types & T_HEX32)
		return encode_is_hex(json_string_value(j), 32);
	return true;
}

/* Integers only (SPEC 7): a real anywhere has no one canonical form. */
static bool
has_real(const json_t *j)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_real(j))
		return true;
	if (json_is_object(j)) {
		json_object_foreach((json_t *)j, k, v)
			if (has_real(v))
				return true;
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if (has_real(v))
				return true;
	}
	return false;
}

/* Every element (array) or value (object) has the type; NULL passes. */
static bool
elements_are(json_t *j, int type)
{
	const char *k;
	json_t *e;
	size_t i;

	if (json_is_array(j)) {
		json_array_foreach(j, i, e)
			if ((int)json_typeof(e) != type)
				return false;
	} else if (json_is_object(j)) {
		json_object_foreach(j, k, e)
			if ((int)json_typeof(e) != type)
				return false;
	}
	return true;
}

static bool
one_of(const char *s, const char *const *set)
{
	for (; s != NULL && *set != NULL; set++)
		if (strcmp(s, *set) == 0)
			return true;
	return false;
}

int
verify_schema(const json_t *r, struct verdict *v)
{
	const json_t *parent, *m;
	const char *s;
	size_t i;

	if (!json_is_object(r))
		return fail(v, "schema", "the report is not a JSON object");
	s = json_string_value(json_object_get(r, "schema"));
	if (s == NULL || strcmp(s, ATTEST_SCHEMA) != 0)
		return fail(v, "schema", "not a %s report", ATTEST_SCHEMA);
	if (has_real(r))
		return fail(v, "schema", "a number that is not an integer");
	for (i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
		parent = members[i].parent ? json_object_get(r,
		    members[i].parent) : r;
		if (json_is_null(parent))
			continue;
		m = json_object_get(parent, members[i].key);
		if (m == NULL || !type_ok(m, members[i].types))
			return fail(v, "schema", "%s%s%s: %s",
			    members[i].parent ? members[i].parent : "",
			    members[i].parent ? "." : "", members[i].key,
			    m == NULL ? "missing" : "wrong type");
	}
	for (i = 0; i < sizeof(word_members) / sizeof(word_members[0]); i++) {
		s = json_string_value(json_object_get(json_object_get(r,
		    word_members[i].parent), word_members[i].key));
		if (s != NULL && !one_of(s, word_members[i].values))
			return fail(v, "schema", "%s.%s: unknown value",
			    word_members[i].parent, word_members[i].key);
	}
	for (i = 0; i < sizeof(element_members) / sizeof(element_members[0]);
	    i++) {
		if (!elements_are(json_object_get(json_object_get(r,
		    element_members[i].parent), element_members[i].key),
		    element_members[i].type))
			return fail(v, "schema", "%s.%s: an element of the "
			    "wrong type", element_members[i].parent,
			    element_members[i].key);
	}
	return 0;
}

/*
 * SHA-256 and line count of len bytes of the file from offset; -1 when
 * they cannot be read (errno set; 0 when the file is shorter).
 */
static int
digest_range(int fd, off_t offset, uint64_t len, unsigned char sha[32],
    uint64_t *lines)
{
	unsigned char buf[65536];
	EVP_MD_CTX *ctx;
	unsigned n = 0;
	ssize_t got;
	int rv = -1;

	*lines = 0;
	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return -1;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		goto out;
	while (len > 0) {
		got = pread(fd, buf, len < sizeof(buf) ? len : sizeof(buf),
		    offset);
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0)
				errno = 0;
			goto out;
		}
		if (EVP_DigestUpdate(ctx, buf, (size_t)got) != 1)
			goto out;
		for (ssize_t i = 0; i < got; i++)
			*lines += buf[i] == '\n';
		offset += got;
		len -= (uint64_t)got;
	}
	if (EVP_DigestFinal_ex(ctx, sha, &n) == 1)
		rv = 0;
out:
	EVP_MD_CTX_free(ctx);
	return rv;
}

/* Does a line after the run's bytes claim the run's id? */
static bool
run_id_after(int fd, off_t from, const char *run_id)
{
	char needle[64], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;
	int dupfd;

	snprintf(needle, sizeof(needle), "\"run\":\"%s\"", run_id);
	if ((dupfd = dup(fd)) == -1 || lseek(dupfd, from, SEEK_SET) == -1 ||
	    (f = fdopen(dupfd, "r")) == NULL) {
		if (dupfd != -1)
			close(dupfd);
		return false;
	}
	while (!found && getline(&line, &cap, f) != -1)
		found = strstr(line, needle) != NULL;
	free(line);
	fclose(f);
	return found;
}

/* What one range of the log holds. */
struct range {
	off_t		 at;
	int		 got;		/* 0 read; -1 short (errno 0) or failed */
	uint64_t	 lines;
	char		 hex[65];
};

static void
read_range(int fd, off_t at, uint64_t bytes, struct range *g)
{
	unsigned char sha[32];

	g->at = at;
	g->hex[0] = '\0';
	if ((g->got = digest_range(fd, at, bytes, sha, &g->lines)) == 0)
		encode_hex(sha, 32, g->hex);
}

/* The decisions the report counts. */
static uint64_t
decisions(const json_t *r)
{
	const json_t *d = json_object_get(r, "decisions");

	return (uint64_t)json_integer_value(json_object_get(d, "allow")) +
	    (uint64_t)json_integer_value(json_object_get(d, "deny"));
}

/*
 * The log holds the run's records exactly: the report's bytes at its
 * offset (a log the run appended to), or at the start (a copy of just
 * the run's lines), and no line after them claims the run's id.  Lines of
 * other runs before or after are not the report's to vouch for.
 */
int
verify_log(const json_t *r, const char *path, struct verdict *v)
{
	const json_t *log = json_object_get(r, "log");
	uint64_t records = (uint64_t)json_integer_value(json_object_get(log,
	    "records"));
	uint64_t bytes = (uint64_t)json_integer_value(json_object_get(log,
	    "bytes"));
	json_int_t offset = json_integer_value(json_object_get(log, "offset"));
	const char *want = json_string_value(json_object_get(log, "sha256"));
	const char *run = json_string_value(json_object_get(r, "run_id"));
	struct range g, copy;
	int fd, rv = -1;

	if (!json_is_true(json_object_get(log, "complete")))
		return fail(v, "log_complete", "the run could not write every "
		    "record to its log");
	if (records == 0 && decisions(r) > 0)
		return fail(v, "log", "the run kept no decision log (its %llu "
		    "decisions were counted, not logged): no log can hold them",
		    (unsigned long long)decisions(r));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		fail(v, "log", "%s: %s", path, strerror(errno));
		return -1;
	}
	read_range(fd, offset > 0 ? (off_t)offset : 0, bytes, &g);
	if (g.at > 0 && (g.got != 0 || strcmp(g.hex, want) != 0)) {
		read_range(fd, 0, bytes, &copy);
		if (copy.got == 0 && strcmp(copy.hex, want) == 0)
			g = copy;
	}
	if (g.got == -1 && errno != 0)
		fail(v, "log", "%s: %s", path, strerror(errno));
	else if (g.got == -1)
		rv = fail(v, "log_records", "the log ends before the run's "
		    "%llu records (%llu bytes)", (unsigned long long)records,
		    (unsigned long long)bytes);
	else if (g.lines != records)
		rv = fail(v, "log_records", "the log has %llu records where "
		    "the report counts %llu", (unsigned long long)g.lines,
		    (unsigned long long)records);
	else if (strcmp(g.hex, want) != 0)
		rv = fail(v, "log_sha256", "the log's SHA-256 is %s, the "
		    "report says %s", g.hex, want);
	else if (run_id_after(fd, g.at + (off_t)bytes, run))
		rv = fail(v, "log_records", "a record of this run follows its "
		    "last one");
	else
		rv = 0;
	close(fd);
	return rv;
}
