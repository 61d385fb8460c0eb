/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Within attest/: the in-toto statement and its DSSE envelope (SPEC 7.1),
 * for the report writer and for verify.
 */
#ifndef ATTEST_DSSE_H
#define ATTEST_DSSE_H

#include <stddef.h>

#include <jansson.h>

#include "attest/attest.h"

/*
 * DSSE's pre-authentication encoding, the bytes a signature covers:
 * "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in decimal.
 * NULL when out of memory; caller frees.
 */
unsigned char	*dsse_pae(const char *type, const unsigned char *body,
		    size_t len, size_t *outlen);

/*
 * The statement: the subjects that were taken, our predicate type, and
 * the predicate, which is the report (without signature) with the
 * subjects that were refused as subjects_refused.  Takes report.
 */
json_t		*dsse_statement(json_t *report, const struct attest_subject *,
		    size_t n);

/*
 * The envelope of payload (the statement's canonical form) signed with
 * k, as its canonical text.  NULL with err on failure; caller frees.
 */
char		*dsse_envelope(const char *payload, const struct attest_key *k,
		    char *err, size_t errlen);

#endif
