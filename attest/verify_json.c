/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Verifying a report (SPEC 7): attest_verify tells the two forms apart.
 * A report in the JSON form is held here to the one canonical spelling
 * and to its signature by the given key, then to verify.c's schema and
 * log checks; an envelope (SPEC 7.1) is checked by verify_dsse.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/attest.h"
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
	char id[65], want[65], *msg;
	int rv;

	if ((rv = take_signature(r, sig, id, v)) != 0)
		return rv;
	if (key_id(pub, want) == -1)
		return fail(v, "key_id", "cannot read the public key");
	if (strcmp(id, want) != 0)
		return fail(v, "key_id", "signed by key %s, not by the given "
		    "key %s", id, want);
	if ((msg = encode_signed_bytes(r)) == NULL)
		return fail(v, "signature", "out of memory");
	rv = key_verify(pub, msg, strlen(msg), sig) == 0 ? 0 :
	    fail(v, "signature", "the signature does not match the report");
	free(msg);
	return rv;
}

/*
 * The file must be the canonical form harn-egressd writes, and a newline:
 * one spelling only, so no two JSON readers can differ on what it says.
 */
static int
check_canonical(const json_t *r, const char *text, size_t len,
    struct verdict *v)
{
	char *canon = encode_canonical(r);
	int rv;

	if (canon == NULL)
		return fail(v, "canonical", "out of memory");
	rv = strlen(canon) + 1 == len && memcmp(canon, text, len - 1) == 0 &&
	    text[len - 1] == '\n' ? 0 : fail(v, "canonical", "the file is "
	    "not in canonical form (sorted keys, no whitespace, one spelling "
	    "of each value, a final newline)");
	free(canon);
	return rv;
}

int
attest_verify(const char *text, size_t len, const struct attest_key *pub,
    struct attest_check *c, const char **failed, char *why, size_t whylen)
{
	struct verdict v = { failed, why, whylen };
	json_error_t e;
	json_t *r;
	int rv;

	*failed = NULL;
	why[0] = '\0';
	c->form = ATTEST_JSON;
	if (len > ATTEST_REPORT_MAX)
		return fail(&v, "json", "larger than any report");
	/* Duplicate keys would let two readers see two reports. */
	if ((r = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e)) == NULL)
		return fail(&v, "json", "not JSON: line %d: %s", e.line,
		    e.text);
	/* An envelope has a payload type; a report of SPEC 7 never has. */
	if (json_object_get(r, "payloadType") != NULL) {
		c->form = ATTEST_DSSE;
		rv = verify_dsse(r, pub, c, &v);
	} else if ((rv = verify_schema(r, &v)) == 0 &&
	    (rv = check_canonical(r, text, len, &v)) == 0 &&
	    (rv = check_signature(r, pub, &v)) == 0) {
		if (c->log != NULL)
			rv = verify_log(r, c->log, &v);
		if (rv == 0 && c->nsubjects > 0)
			rv = fail(&v, "subjects", "a JSON report has "
			    "no subjects (--attest-format dsse writes them)");
	}
	json_decref(r);
	return rv;
}
