/* SPDX-License-Identifier: Apache-2.0 */
/* What the libFuzzer targets share (tests/ROOM/fuzz_*.c). */
#ifndef TESTS_FUZZ_H
#define TESTS_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress/egress.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* An invariant broke: a crash the fuzzer keeps the input of. */
#define CHECK(e)	do { if (!(e)) abort(); } while (0)

/* The same normalized target: host, kind, address and port. */
static inline bool
fuzz_same_target(const struct egress_target *a, const struct egress_target *b)
{
	return strcmp(a->host, b->host) == 0 && a->is_addr == b->is_addr &&
	    (!a->is_addr || memcmp(&a->addr, &b->addr, sizeof(a->addr)) == 0) &&
	    a->port == b->port;
}

#endif
