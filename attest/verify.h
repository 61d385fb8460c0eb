/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Within attest/: the checks both forms of a report share (SPEC 7, 7.1),
 * and the envelope's own.  Each returns 0 when its check holds, 1 when it
 * fails (the verdict names it), -1 when a file cannot be read.
 */
#ifndef ATTEST_VERIFY_H
#define ATTEST_VERIFY_H

#include <stdarg.h>
#include <stddef.h>

#include <jansson.h>

#include "attest/attest.h"

struct verdict {
	const char	**failed;
	char		 *why;
	size_t		  whylen;
};

/* Name the check that failed and say why; returns 1. */
int	verdict_vfail(struct verdict *, const char *check, const char *fmt,
	    va_list) __attribute__((format(printf, 3, 0)));

/* The members of a report (or a predicate), their types and words. */
int	verify_schema(const json_t *report, struct verdict *);

/* The log holds exactly the run's records the report counts. */
int	verify_log(const json_t *report, const char *path, struct verdict *);

/* An envelope (parsed), every check of SPEC 7.1 and those c asks for. */
int	verify_dsse(const json_t *env, const struct attest_key *pub,
	    const struct attest_check *c, struct verdict *);

#endif
