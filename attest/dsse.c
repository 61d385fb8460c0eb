/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The report as an in-toto attestation (SPEC 7.1): a Statement v1 whose
 * predicate is the report, in a DSSE envelope signed over DSSE's PAE with
 * the report's key.  Any DSSE implementation verifies it with the public
 * key alone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/attest.h"
#include "attest/dsse.h"
#include "attest/encode.h"
#include "attest/key.h"

unsigned char *
dsse_pae(const char *type, const unsigned char *body, size_t len,
    size_t *outlen)
{
	unsigned char *pae;
	char head[64];
	size_t tlen = strlen(type);
	int n;

	n = snprintf(head, sizeof(head), "DSSEv1 %zu ", tlen);
	if (n < 0 || (size_t)n >= sizeof(head))
		return NULL;
	/* head, type, " LEN ", body: room for two more numbers and spaces. */
	if (tlen > SIZE_MAX / 2 || len > SIZE_MAX / 2 - tlen - 64 ||
	    (pae = malloc((size_t)n + tlen + len + 32)) == NULL)
		return NULL;
	memcpy(pae, head, (size_t)n);
	memcpy(pae + n, type, tlen);
	*outlen = (size_t)n + tlen;
	*outlen += (size_t)snprintf((char *)pae + *outlen, 32, " %zu ", len);
	memcpy(pae + *outlen, body, len);
	*outlen += len;
	return pae;
}

static json_t *
hex_string(const unsigned char *b, size_t n)
{
	char hex[65];

	encode_hex(b, n, hex);
	return json_string(hex);
}

json_t *
dsse_statement(json_t *report, const struct attest_subject *s, size_t n)
{
	json_t *subjects, *refused, *e;
	size_t i;

	subjects = json_array();
	refused = json_array();
	if (report == NULL || subjects == NULL || refused == NULL)
		goto fail;
	for (i = 0; i < n; i++) {
		if (s[i].refused == NULL)
			e = json_pack("{s:s, s:{s:o}}", "name", s[i].name,
			    "digest", "sha256", hex_string(s[i].sha256, 32));
		else
			e = json_pack("{s:s, s:s}", "name", s[i].name,
			    "reason", s[i].refused);
		if (json_array_append_new(s[i].refused == NULL ? subjects :
		    refused, e) == -1)
			goto fail;
	}
	if (json_object_set_new(report, "subjects_refused", refused) == -1) {
		refused = NULL;
		goto fail;
	}
	return json_pack("{s:s, s:o, s:s, s:o}", "_type",
	    ATTEST_STATEMENT_TYPE, "subject", subjects, "predicateType",
	    ATTEST_PREDICATE_TYPE, "predicate", report);
fail:
	json_decref(subjects);
	json_decref(refused);
	json_decref(report);
	return NULL;
}

char *
dsse_envelope(const char *payload, const struct attest_key *k, char *err,
    size_t errlen)
{
	unsigned char sig[64], *pae;
	char id[65], *b64sig = NULL, *b64body = NULL, *text = NULL;
	size_t len, plen = strlen(payload);
	json_t *env;

	if ((pae = dsse_pae(ATTEST_DSSE_PAYLOAD_TYPE,
	    (const unsigned char *)payload, plen, &len)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (key_id(k, id) == -1 || key_sign(k, pae, len, sig) == -1) {
		snprintf(err, errlen, "cannot sign the statement");
		free(pae);
		return NULL;
	}
	free(pae);
	if ((b64sig = encode_base64(sig, sizeof(sig))) == NULL ||
	    (b64body = encode_base64((const unsigned char *)payload,
	    plen)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	env = json_pack("{s:s, s:s, s:[{s:s, s:s}]}", "payloadType",
	    ATTEST_DSSE_PAYLOAD_TYPE, "payload", b64body, "signatures",
	    "keyid", id, "sig", b64sig);
	if (env == NULL || (text = encode_canonical(env)) == NULL)
		snprintf(err, errlen, "out of memory");
	json_decref(env);
out:
	free(b64sig);
	free(b64body);
	return text;
}
