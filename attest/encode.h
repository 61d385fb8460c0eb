/* SPDX-License-Identifier: Apache-2.0 */
/* Encodings the report uses: hex, base64, timestamps, the canonical form. */
#ifndef ATTEST_ENCODE_H
#define ATTEST_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Lower-case hex of n bytes into out (2n + 1 bytes). */
void	 encode_hex(const unsigned char *, size_t n, char *out);

/* True when s is exactly 2n lower-case hex digits. */
bool	 encode_is_hex(const char *s, size_t n);

/* Base64 (with padding) of n bytes; NULL when out of memory. */
char	*encode_base64(const unsigned char *, size_t n);

/* Decode base64 of exactly want bytes; -1 on anything else. */
int	 encode_base64_decode(const char *, unsigned char *out, size_t want);

/*
 * Decode base64 of any length in the standard or the URL-safe alphabet,
 * padded or not (DSSE allows either); NULL on anything else (a stray
 * character, unused bits set).  Caller frees; *outlen bytes, plus a NUL.
 */
unsigned char *encode_base64_decode_any(const char *, size_t *outlen);

/* 2026-12-02T15:30:00.123Z from milliseconds since the epoch. */
void	 encode_time(int64_t ms, char out[32]);

/*
 * The canonical form of SPEC 7: keys sorted, no whitespace, what jansson
 * writes with JSON_COMPACT | JSON_SORT_KEYS.  Caller frees.
 */
char	*encode_canonical(const json_t *);

/*
 * The bytes a signature covers (SPEC 7): ATTEST_SIGNED_PREFIX, then the
 * canonical form of the report (without its signature).  Caller frees.
 */
char	*encode_signed_bytes(const json_t *);

#endif
