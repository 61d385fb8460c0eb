/*
 * Verifying a report (SPEC 7): it is JSON of our schema, it is signed, by
 * the given key, over its canonical form, and (with a log) the log holds
 * exactly the records the report counts.  The first check that fails is
 * named.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "attest/attest.h"
#include "attest/encode.h"
#include "attest/key.h"

#define REPORT_MAX_BYTES	(1024 * 1024)

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
	{ "sandbox", "backend", T_STR },
	{ "sandbox", "profile", T_STR },
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
	{ "exit", "code", T_INT | T_NULL },
	{ "exit", "signal", T_INT | T_NULL },
};

static const char *const network_modes[] = {
	"managed", "denied", "unrestricted", "unsupported_fail_closed", NULL
};

struct verdict {
	const char	**failed;
	char		 *why;
	size_t		  whylen;
};

static int
fail(struct verdict *v, const char *check, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct verdict *v, const char *check, const char *fmt, ...)
{
	va_list ap;

	*v->failed = check;
	va_start(ap, fmt);
	vsnprintf(v->why, v->whylen, fmt, ap);
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

static bool
in(const char *s, const char *const *set)
{
	for (; s != NULL && *set != NULL; set++)
		if (strcmp(s, *set) == 0)
			return true;
	return false;
}

static int
check_schema(const json_t *r, struct verdict *v)
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
	s = json_string_value(json_object_get(json_object_get(r, "sandbox"),
	    "process_network_mode"));
	if (s != NULL && !in(s, network_modes))
		return fail(v, "schema", "sandbox.process_network_mode: "
		    "unknown value");
	return 0;
}

/* The signature member, taken off the report: what was signed is the rest. */
static int
take_signature(json_t *r, unsigned char sig[64], char id[65],
    struct verdict *v)
{
	json_t *s = json_object_get(r, "signature");
	const char *alg, *kid, *val;

	if (s == NULL || json_is_null(s))
		return fail(v, "signed", "the report is not signed");
	alg = json_string_value(json_object_get(s, "alg"));
	kid = json_string_value(json_object_get(s, "key_id"));
	val = json_string_value(json_object_get(s, "value"));
	if (!json_is_object(s) || json_object_size(s) != 3 || alg == NULL ||
	    kid == NULL || val == NULL)
		return fail(v, "signed", "signature: want alg, key_id and "
		    "value");
	if (strcmp(alg, "ed25519") != 0)
		return fail(v, "signed", "signature: alg is not ed25519");
	if (!encode_is_hex(kid, 32))
		return fail(v, "signed", "signature: key_id is not 64 "
		    "lower-case hex digits");
	if (encode_base64_decode(val, sig, 64) == -1)
		return fail(v, "signed", "signature: value is not the base64 "
		    "of 64 bytes");
	snprintf(id, 65, "%s", kid);
	json_object_del(r, "signature");
	return 0;
}

static int
check_signature(json_t *r, const struct attest_key *pub, struct verdict *v)
{
	unsigned char sig[64];
	char id[65], want[65], *canon = NULL, *msg = NULL;
	int rv;

	if ((rv = take_signature(r, sig, id, v)) != 0)
		return rv;
	if (key_id(pub, want) == -1)
		return fail(v, "key_id", "cannot read the public key");
	if (strcmp(id, want) != 0)
		return fail(v, "key_id", "signed by key %s, not by the given "
		    "key %s", id, want);
	if ((canon = encode_canonical(r)) == NULL ||
	    asprintf(&msg, "%s%s", ATTEST_SIGNED_PREFIX, canon) == -1) {
		free(canon);
		return fail(v, "signature", "out of memory");
	}
	rv = key_verify(pub, msg, strlen(msg), sig) == 0 ? 0 :
	    fail(v, "signature", "the signature does not match the report");
	free(canon);
	free(msg);
	return rv;
}

/* SHA-256 and line count of the file's bytes from offset to its end. */
static int
digest_file(int fd, off_t offset, unsigned char sha[32], uint64_t *lines)
{
	unsigned char buf[65536];
	EVP_MD_CTX *ctx;
	unsigned n = 0;
	ssize_t got;
	bool partial = false;
	int rv = -1;

	*lines = 0;
	if (lseek(fd, offset, SEEK_SET) == -1 ||
	    (ctx = EVP_MD_CTX_new()) == NULL)
		return -1;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		goto out;
	while ((got = read(fd, buf, sizeof(buf))) != 0) {
		if (got == -1 && errno == EINTR)
			continue;
		if (got == -1 || EVP_DigestUpdate(ctx, buf, got) != 1)
			goto out;
		for (ssize_t i = 0; i < got; i++)
			*lines += buf[i] == '\n';
		partial = buf[got - 1] != '\n';
	}
	*lines += partial;
	if (EVP_DigestFinal_ex(ctx, sha, &n) == 1)
		rv = 0;
out:
	EVP_MD_CTX_free(ctx);
	return rv;
}

/*
 * The log holds exactly the run's records: the whole file, or (an
 * appended log) the file from where the run started writing.
 */
static int
check_log(const json_t *r, const char *path, struct verdict *v)
{
	const json_t *log = json_object_get(r, "log");
	json_int_t records = json_integer_value(json_object_get(log,
	    "records"));
	json_int_t offset = json_integer_value(json_object_get(log, "offset"));
	const char *want = json_string_value(json_object_get(log, "sha256"));
	unsigned char sha[32];
	char hex[65];
	uint64_t lines;
	struct stat st;
	int fd, rv = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		fail(v, "log", "%s: %s", path, strerror(errno));
		goto out;
	}
	if (digest_file(fd, 0, sha, &lines) == -1)
		goto io;
	encode_hex(sha, 32, hex);
	if (strcmp(hex, want) != 0 && offset > 0 && offset <= st.st_size) {
		if (digest_file(fd, (off_t)offset, sha, &lines) == -1)
			goto io;
		encode_hex(sha, 32, hex);
	}
	if (lines != (uint64_t)records)
		rv = fail(v, "log_records", "the log has %llu records, the "
		    "report counts %lld", (unsigned long long)lines,
		    (long long)records);
	else if (strcmp(hex, want) != 0)
		rv = fail(v, "log_sha256", "the log's SHA-256 is %s, the "
		    "report says %s", hex, want);
	else
		rv = 0;
	goto out;
io:
	fail(v, "log", "%s: %s", path, strerror(errno));
out:
	if (fd != -1)
		close(fd);
	return rv;
}

static json_t *
load_report(const char *path, struct verdict *v, int *rv)
{
	json_error_t e;
	json_t *r;
	struct stat st;
	FILE *f;

	*rv = -1;
	if ((f = fopen(path, "re")) == NULL) {
		fail(v, "report", "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && st.st_size > REPORT_MAX_BYTES) {
		fclose(f);
		*rv = fail(v, "json", "%s: larger than any report", path);
		return NULL;
	}
	/* Duplicate keys would let two readers see two reports. */
	r = json_loadf(f, JSON_REJECT_DUPLICATES, &e);
	fclose(f);
	if (r == NULL)
		*rv = fail(v, "json", "%s: not JSON: line %d: %s", path,
		    e.line, e.text);
	return r;
}

int
attest_verify(const char *path, const struct attest_key *pub,
    const char *log_path, const char **failed, char *why, size_t whylen)
{
	struct verdict v = { failed, why, whylen };
	json_t *r;
	int rv;

	*failed = NULL;
	why[0] = '\0';
	if ((r = load_report(path, &v, &rv)) == NULL)
		return rv;
	if ((rv = check_schema(r, &v)) == 0 &&
	    (rv = check_signature(r, pub, &v)) == 0 && log_path != NULL)
		rv = check_log(r, log_path, &v);
	json_decref(r);
	return rv;
}
