/* SPDX-License-Identifier: Apache-2.0 */
/* Encodings the report uses: hex, base64, timestamps, the canonical form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "attest/attest.h"
#include "attest/encode.h"

void
encode_hex(const unsigned char *b, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 0xf];
	}
	out[2 * n] = '\0';
}

bool
encode_is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < 2 * n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[2 * n] == '\0';
}

char *
encode_base64(const unsigned char *b, size_t n)
{
	char *out;

	if (n > 3 * ((size_t)INT32_MAX / 4) ||
	    (out = malloc(4 * ((n + 2) / 3) + 1)) == NULL)
		return NULL;
	EVP_EncodeBlock((unsigned char *)out, b, (int)n);
	return out;
}

/*
 * EVP_DecodeBlock counts padding as data and accepts spellings that do not
 * encode back the same; only the one spelling of `want` bytes is taken.
 */
int
encode_base64_decode(const char *s, unsigned char *out, size_t want)
{
	size_t len = strlen(s), enc = 4 * ((want + 2) / 3);
	unsigned char *buf;
	char *again;
	int n, rv = -1;

	if (len != enc || (buf = malloc(len)) == NULL)
		return -1;
	n = EVP_DecodeBlock(buf, (const unsigned char *)s, (int)len);
	if (n >= 0 && (size_t)n >= want) {
		memcpy(out, buf, want);
		if ((again = encode_base64(out, want)) != NULL) {
			rv = strcmp(again, s) == 0 ? 0 : -1;
			free(again);
		}
	}
	free(buf);
	return rv;
}

/* One alphabet: '-' and '_' read as '+' and '/', padding put back. */
static char *
base64_standard(const char *s, size_t *pad)
{
	size_t len = strlen(s), i, n;
	char *std;

	while (len > 0 && s[len - 1] == '=')
		len--;
	n = strlen(s) - len;
	if (len % 4 == 1 || n > 2 || (n > 0 && (len + n) % 4 != 0) ||
	    len > SIZE_MAX / 2 || (std = malloc(len + 4)) == NULL)
		return NULL;
	for (i = 0; i < len; i++) {
		if ((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' &&
		    s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '+' || s[i] == '/')
			std[i] = s[i];
		else if (s[i] == '-' || s[i] == '_')
			std[i] = s[i] == '-' ? '+' : '/';
		else {
			free(std);
			return NULL;
		}
	}
	for (*pad = 0; (len + *pad) % 4 != 0; (*pad)++)
		std[len + *pad] = '=';
	std[len + *pad] = '\0';
	return std;
}

unsigned char *
encode_base64_decode_any(const char *s, size_t *outlen)
{
	unsigned char *out;
	size_t pad = 0, len;
	char *std, *again = NULL;
	int n;

	if ((std = base64_standard(s, &pad)) == NULL)
		return NULL;
	len = strlen(std);
	if (len > INT32_MAX || (out = malloc(3 * (len / 4) + 1)) == NULL) {
		free(std);
		return NULL;
	}
	n = EVP_DecodeBlock(out, (const unsigned char *)std, (int)len);
	/* Padding decodes as zero bytes; one spelling of the rest only. */
	if (n < 0 || (size_t)n < pad || (*outlen = (size_t)n - pad,
	    (again = encode_base64(out, *outlen)) == NULL) ||
	    strcmp(again, std) != 0) {
		free(out);
		out = NULL;
	} else
		out[*outlen] = '\0';
	free(again);
	free(std);
	return out;
}

int
attest_sha256(const void *buf, size_t len, unsigned char out[32])
{
	unsigned n = 0;

	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1)
		return -1;
	return EVP_Digest(buf, len, out, &n, EVP_sha256(), NULL) == 1 &&
	    n == 32 ? 0 : -1;
}

void
encode_time(int64_t ms, char out[32])
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char date[24];

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, 32, "%.19s.%03dZ", date, (int)(ms % 1000));
}

char *
encode_canonical(const json_t *j)
{
	return json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
}

char *
encode_signed_bytes(const json_t *report)
{
	char *canon, *msg;

	if ((canon = encode_canonical(report)) == NULL)
		return NULL;
	if (asprintf(&msg, "%s%s", ATTEST_SIGNED_PREFIX, canon) == -1)
		msg = NULL;
	free(canon);
	return msg;
}
