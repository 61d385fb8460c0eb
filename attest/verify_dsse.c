/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Verifying an in-toto attestation (SPEC 7.1): the envelope's signature
 * over DSSE's PAE, by the given key, before anything in the payload is
 * believed; then the statement, in the one spelling harn-egressd writes,
 * whose predicate is a report of SPEC 7; then its subjects, against the
 * files given.  The envelope itself may be spelled otherwise (a store may
 * re-encode it): DSSE signs the payload's bytes, not the JSON around them,
 * and members DSSE does not name are ignored, as it says.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/attest.h"
#include "attest/dsse.h"
#include "attest/encode.h"
#include "attest/key.h"
#include "attest/verify.h"

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

/* The envelope's payload, decoded (NUL-terminated), or NULL and a verdict. */
static unsigned char *
envelope_payload(const json_t *env, size_t *len, struct verdict *v)
{
	const char *type = json_string_value(json_object_get(env,
	    "payloadType"));
	const char *b64 = json_string_value(json_object_get(env, "payload"));
	unsigned char *payload;

	if (type == NULL || strcmp(type, ATTEST_DSSE_PAYLOAD_TYPE) != 0) {
		fail(v, "envelope", "payloadType is not %s",
		    ATTEST_DSSE_PAYLOAD_TYPE);
		return NULL;
	}
	if (!json_is_array(json_object_get(env, "signatures"))) {
		fail(v, "envelope", "signatures: want an array");
		return NULL;
	}
	if (b64 == NULL || (payload = encode_base64_decode_any(b64,
	    len)) == NULL) {
		fail(v, "envelope", "payload: want base64 text");
		return NULL;
	}
	return payload;
}

/*
 * The signature by the given key: the one whose keyid is its id.  Others
 * may sign too (DSSE allows several); they are not this check's business.
 */
static int
check_signature(const json_t *env, const unsigned char *payload,
    size_t len, const struct attest_key *pub, struct verdict *v)
{
	const json_t *sigs = json_object_get(env, "signatures"), *s;
	const char *kid, *b64 = NULL, *other = NULL;
	unsigned char *sig, *pae;
	char want[65];
	size_t i, siglen, paelen;
	int rv;

	if (json_array_size(sigs) == 0)
		return fail(v, "signed", "the envelope has no signature");
	if (key_id(pub, want) == -1)
		return fail(v, "key_id", "cannot read the public key");
	json_array_foreach(sigs, i, s) {
		kid = json_string_value(json_object_get(s, "keyid"));
		if (kid != NULL && strcmp(kid, want) == 0) {
			b64 = json_string_value(json_object_get(s, "sig"));
			if (b64 == NULL)
				return fail(v, "signed", "signatures[%zu]: "
				    "no sig", i);
			break;
		}
		if (other == NULL)
			other = kid != NULL ? kid : "";
	}
	if (b64 == NULL)
		return fail(v, "key_id", "signed by key %.64s, not by the "
		    "given key %s", other != NULL && other[0] != '\0' ?
		    other : "(no keyid)", want);
	if ((sig = encode_base64_decode_any(b64, &siglen)) == NULL ||
	    siglen != 64) {
		free(sig);
		return fail(v, "signed", "signatures[%zu].sig: not the base64 "
		    "of 64 bytes", i);
	}
	if ((pae = dsse_pae(ATTEST_DSSE_PAYLOAD_TYPE, payload, len,
	    &paelen)) == NULL) {
		free(sig);
		return fail(v, "signature", "out of memory");
	}
	rv = key_verify(pub, pae, paelen, sig) == 0 ? 0 : fail(v,
	    "signature", "the signature does not match the envelope's "
	    "payload");
	free(pae);
	free(sig);
	return rv;
}

/* Each subject is a name and a SHA-256; each refused one, a name and why. */
static int
check_subject_list(const json_t *list, bool refused, struct verdict *v)
{
	const char *what = refused ? "predicate.subjects_refused" : "subject";
	const char *name, *sha;
	const json_t *s;
	size_t i;

	if (!json_is_array(list))
		return fail(v, refused ? "schema" : "statement", "%s: want an "
		    "array", what);
	json_array_foreach(list, i, s) {
		name = json_string_value(json_object_get(s, "name"));
		sha = json_string_value(json_object_get(json_object_get(s,
		    "digest"), "sha256"));
		if (name == NULL || name[0] == '\0')
			return fail(v, refused ? "schema" : "statement",
			    "%s[%zu]: want a name", what, i);
		if (refused && !json_is_string(json_object_get(s, "reason")))
			return fail(v, "schema", "%s[%zu]: want a reason",
			    what, i);
		if (!refused && (sha == NULL || !encode_is_hex(sha, 32)))
			return fail(v, "statement", "%s[%zu]: want a sha256 "
			    "digest (64 lower-case hex digits)", what, i);
	}
	return 0;
}

static int
check_statement(const json_t *st, struct verdict *v)
{
	const char *type = json_string_value(json_object_get(st, "_type"));
	const char *pt = json_string_value(json_object_get(st,
	    "predicateType"));

	if (!json_is_object(st))
		return fail(v, "statement", "the payload is not a JSON object");
	if (type == NULL || strcmp(type, ATTEST_STATEMENT_TYPE) != 0)
		return fail(v, "statement", "_type is not %s",
		    ATTEST_STATEMENT_TYPE);
	if (pt == NULL || strcmp(pt, ATTEST_PREDICATE_TYPE) != 0)
		return fail(v, "statement", "predicateType is not %s",
		    ATTEST_PREDICATE_TYPE);
	if (!json_is_object(json_object_get(st, "predicate")))
		return fail(v, "statement", "predicate: want an object");
	return check_subject_list(json_object_get(st, "subject"), false, v);
}

/* The payload is the canonical form harn-egressd writes: one spelling. */
static int
check_canonical(const json_t *st, const unsigned char *payload, size_t len,
    struct verdict *v)
{
	char *canon = encode_canonical(st);
	int rv;

	if (canon == NULL)
		return fail(v, "canonical", "out of memory");
	rv = strlen(canon) == len && memcmp(canon, payload, len) == 0 ? 0 :
	    fail(v, "canonical", "the payload is not in canonical form "
	    "(sorted keys, no whitespace, one spelling of each value)");
	free(canon);
	return rv;
}

/* The predicate's refused subjects (an earlier build: unread_subjects). */
static const json_t *
refused_list(const json_t *p)
{
	const json_t *l = json_object_get(p, "subjects_refused");

	return l != NULL ? l : json_object_get(p, "unread_subjects");
}

static int
check_predicate(const json_t *p, struct verdict *v)
{
	int rv;

	if ((rv = verify_schema(p, v)) != 0)
		return rv;
	if (json_object_get(p, "signature") != NULL)
		return fail(v, "schema", "the predicate carries a signature: "
		    "the envelope's is the only one");
	return check_subject_list(refused_list(p), true, v);
}

/*
 * Every subject asked for was taken at exit: one refused (the command may
 * have swapped it for a link, a FIFO, a huge file) fails the statement,
 * which is no evidence for the run's other outputs either.
 */
static int
check_complete(const json_t *st, struct verdict *v)
{
	const json_t *refused = refused_list(json_object_get(st,
	    "predicate")), *u;

	if (json_array_size(refused) > 0) {
		u = json_array_get(refused, 0);
		return fail(v, "subjects", "%zu subject(s) refused at exit, "
		    "the first %s (%s)", json_array_size(refused),
		    json_string_value(json_object_get(u, "name")),
		    json_string_value(json_object_get(u, "reason")));
	}
	if (json_array_size(json_object_get(st, "subject")) == 0)
		return fail(v, "subjects", "the statement has no subject");
	return 0;
}

static const char *
last_part(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/*
 * The subject a file given to verify stands for: the one of its name, or
 * else the only one whose last part is the file's (a verifier's copy of
 * the outputs is seldom where the build had them).
 */
static const json_t *
find_subject(const json_t *list, const char *file, struct verdict *v)
{
	const json_t *s, *found = NULL;
	const char *name;
	size_t i, n = 0;

	json_array_foreach(list, i, s)
		if (strcmp(json_string_value(json_object_get(s, "name")),
		    file) == 0)
			return s;
	json_array_foreach(list, i, s) {
		name = json_string_value(json_object_get(s, "name"));
		if (strcmp(last_part(name), last_part(file)) == 0) {
			found = s;
			n++;
		}
	}
	if (n == 1)
		return found;
	fail(v, "subjects", n == 0 ? "%s: not a subject of the statement" :
	    "%s: several subjects end in that name; give it as the statement "
	    "names it", file);
	return NULL;
}

static int
check_subject_files(const json_t *st, const struct attest_check *c,
    struct verdict *v)
{
	const json_t *list = json_object_get(st, "subject"), *s;
	/* The verifier's own file: a link to it is followed. */
	const struct attest_take how = { .follow = true, .max = UINT64_MAX };
	struct attest_subject file;
	char hex[65], err[ATTEST_ERR_MAX];
	const char *want;
	size_t i;

	for (i = 0; i < c->nsubjects; i++) {
		if ((s = find_subject(list, c->subjects[i], v)) == NULL)
			return 1;
		file.name = c->subjects[i];
		if (attest_subject_take(&file, AT_FDCWD, file.name,
		    &how) == -1) {
			attest_subject_why(&file, how.max, err, sizeof(err));
			fail(v, "subjects", "%s: %s", file.name, err);
			return -1;
		}
		encode_hex(file.sha256, 32, hex);
		want = json_string_value(json_object_get(json_object_get(s,
		    "digest"), "sha256"));
		if (strcmp(hex, want) != 0)
			return fail(v, "subject_sha256", "%s: SHA-256 %s, the "
			    "statement says %s for %s", c->subjects[i], hex,
			    want, json_string_value(json_object_get(s,
			    "name")));
	}
	return 0;
}

/* The statement, once the payload is known to be the key owner's. */
static int
check_payload(const unsigned char *payload, size_t len,
    const struct attest_check *c, struct verdict *v)
{
	json_error_t e;
	json_t *st;
	int rv;

	if ((st = json_loadb((const char *)payload, len,
	    JSON_REJECT_DUPLICATES, &e)) == NULL)
		return fail(v, "statement", "the payload is not JSON: %s",
		    e.text);
	if ((rv = check_statement(st, v)) == 0 &&
	    (rv = check_canonical(st, payload, len, v)) == 0 &&
	    (rv = check_predicate(json_object_get(st, "predicate"), v)) == 0 &&
	    (rv = check_complete(st, v)) == 0 && c->log != NULL)
		rv = verify_log(json_object_get(st, "predicate"), c->log, v);
	if (rv == 0)
		rv = check_subject_files(st, c, v);
	json_decref(st);
	return rv;
}

int
verify_dsse(const json_t *env, const struct attest_key *pub,
    const struct attest_check *c, struct verdict *v)
{
	unsigned char *payload;
	size_t len;
	int rv;

	if ((payload = envelope_payload(env, &len, v)) == NULL)
		return 1;
	if ((rv = check_signature(env, payload, len, pub, v)) == 0)
		rv = check_payload(payload, len, c, v);
	free(payload);
	return rv;
}
