/* SPDX-License-Identifier: Apache-2.0 */
/* Within attest/: what a key does, for the report and its verification. */
#ifndef ATTEST_KEY_H
#define ATTEST_KEY_H

#include <stddef.h>

struct attest_key;

/* Hex SHA-256 of the raw 32-byte public key. */
int	key_id(const struct attest_key *, char out[65]);
/* Ed25519 over msg; 0 or -1. */
int	key_sign(const struct attest_key *, const void *msg, size_t len,
	    unsigned char sig[64]);
/* 0 when sig is a valid signature of msg by the key. */
int	key_verify(const struct attest_key *, const void *msg, size_t len,
	    const unsigned char sig[64]);

#endif
