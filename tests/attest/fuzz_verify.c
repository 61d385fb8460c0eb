/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_verify: libFuzzer on report verification (attest/verify.c, and
 * attest/verify_dsse.c for envelopes).  The input is a report file; it is
 * verified with a fixed Ed25519 public key and an empty decision log.  The
 * fuzzer cannot forge Ed25519, so a report that verifies must be one the
 * key's owner signed: byte for byte one of the seeds below
 * (tests/fuzz/verify/signed_*, written by harn-egressd with this key), or,
 * for an envelope, which may be spelled otherwise, one whose payload is
 * byte for byte a signed seed's.  Anything else that verifies is a hole in
 * the checks.  A refusal must name one of the documented checks.
 * Built by `make fuzz-verify`, not by make check.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <jansson.h>

#include "attest/attest.h"
#include "attest/encode.h"
#include "tests/fuzz.h"

int	LLVMFuzzerInitialize(int *, char ***);

/*
 * The test key's private half (RFC 8032 raw seed), public on purpose.  Its
 * PEM, for harn-egressd --sign-key, is the DER prefix
 * 302e020100300506032b657004220420 then these 32 bytes:
 *   xxd -r -p | openssl pkey -inform DER -out fuzz.key
 */
static const unsigned char test_seed[32] = {
	0x66, 0x75, 0x7a, 0x7a, 0x5f, 0x76, 0x65, 0x72,
	0x69, 0x66, 0x79, 0x20, 0x74, 0x65, 0x73, 0x74,
	0x20, 0x6b, 0x65, 0x79, 0x2c, 0x20, 0x6e, 0x6f,
	0x74, 0x20, 0x73, 0x65, 0x63, 0x72, 0x65, 0x74
};

/* SHA-256 of each report signed with it (the signed_* seeds). */
static const char *const signed_reports[] = {
	/* signed_run.json */
	"574ecbb549e297fc57c03e022a1ba0612f5caa0e12a93b1b8c18c119f19ec1e9",
	/* signed_service.json */
	"13d14b123301c1cf714b14eb459eb8435753dd656c1fedf2058433e55cd708ba",
	/* signed_dsse.json */
	"50090824b4884f42d64d18422988eb75a1f9e75c2bbbf20a32b0c0f6db35c5a3",
	NULL
};

/* SHA-256 of the payload of each envelope signed with it. */
static const char *const signed_payloads[] = {
	/* signed_dsse.json */
	"13af757e8fde363176dfe0c41ffc066ab7d1c4bd34b5e972aeb3ad6211416416",
	NULL
};

static struct attest_key *pub;
static char dir[] = "/tmp/fuzz_verify.XXXXXX";
static char pubpath[64], logpath[64];

static void
cleanup(void)
{
	unlink(pubpath);
	unlink(logpath);
	rmdir(dir);
}

/* The public key as a file, as harn-egressd verify --pubkey reads it. */
static void
write_pubkey(const char *path)
{
	EVP_PKEY *k;
	FILE *f;

	k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, test_seed,
	    sizeof(test_seed));
	if (k == NULL || (f = fopen(path, "w")) == NULL ||
	    PEM_write_PUBKEY(f, k) != 1 || fclose(f) != 0)
		abort();
	EVP_PKEY_free(k);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[ATTEST_ERR_MAX];
	FILE *f;

	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(pubpath, sizeof(pubpath), "%s/key.pub", dir);
	snprintf(logpath, sizeof(logpath), "%s/empty.log", dir);
	atexit(cleanup);
	write_pubkey(pubpath);
	if ((pub = attest_key_read_public(pubpath, err, sizeof(err))) == NULL)
		abort();
	/* The seeds' runs logged nothing. */
	if ((f = fopen(logpath, "w")) == NULL || fclose(f) != 0)
		abort();
	return 0;
}

static bool
digest_in(const void *b, size_t len, const char *const *list)
{
	unsigned char sha[32];
	char hex[65];
	size_t i;

	if (attest_sha256(b, len, sha) == -1)
		abort();
	encode_hex(sha, 32, hex);
	for (i = 0; list[i] != NULL; i++)
		if (strcmp(hex, list[i]) == 0)
			return true;
	return false;
}

/* An envelope that verified: its payload is one the key signed. */
static bool
signed_payload(const uint8_t *b, size_t len)
{
	unsigned char *payload;
	size_t plen;
	json_t *env;
	bool ok = false;

	if ((env = json_loadb((const char *)b, len, 0, NULL)) == NULL)
		return false;
	payload = encode_base64_decode_any(json_string_value(
	    json_object_get(env, "payload")) ? json_string_value(
	    json_object_get(env, "payload")) : "!", &plen);
	if (payload != NULL)
		ok = digest_in(payload, plen, signed_payloads);
	free(payload);
	json_decref(env);
	return ok;
}

static bool
signed_by_us(const uint8_t *b, size_t len)
{
	return digest_in(b, len, signed_reports) || signed_payload(b, len);
}

/* The checks harn-egressd(8)'s verify names, and "log". */
static bool
documented(const char *check)
{
	static const char *const checks[] = {
		"json", "schema", "canonical", "signed", "key_id", "signature",
		"log_complete", "log", "log_records", "log_sha256", "envelope",
		"statement", "subjects", "subject_sha256", NULL
	};
	size_t i;

	for (i = 0; check != NULL && checks[i] != NULL; i++)
		if (strcmp(check, checks[i]) == 0)
			return true;
	return false;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct attest_check check = { .log = logpath };
	const char *failed = "unset";
	char why[ATTEST_ERR_MAX], *text;
	int rv;

	/* Exactly the input's bytes, no NUL after: ASan sees a read past. */
	if ((text = malloc(size ? size : 1)) == NULL)
		abort();
	memcpy(text, data, size);
	rv = attest_verify(text, size, pub, &check, &failed, why,
	    sizeof(why));
	free(text);
	if (rv == 0) {
		CHECK(failed == NULL);
		CHECK(signed_by_us(data, size));
	} else {
		/* The log is there and readable: 1, never -1. */
		CHECK(rv == 1 && documented(failed) && why[0] != '\0');
	}
	return 0;
}
