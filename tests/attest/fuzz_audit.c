/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_audit: libFuzzer on the audit command's parser.  The input is a
 * decision log: each line goes to audit_line, then both summaries, the
 * page and both suggestions are printed, and the JSON summary must say
 * that every line was counted once, and no more connections without a
 * program than connections closed.
 * Built by `make fuzz-audit`, not by make check.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "attest/attest.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Opened once: a fuzzer runs millions of inputs. */
static FILE *
sink(void)
{
	static FILE *f;

	if (f == NULL && (f = fopen("/dev/null", "w")) == NULL)
		abort();
	return f;
}

/* records + malformed in the JSON summary. */
static json_int_t
lines_counted(const struct audit *a)
{
	json_int_t n;
	json_t *b;
	char *buf = NULL;
	size_t len = 0;
	json_t *j;
	FILE *f;

	if ((f = open_memstream(&buf, &len)) == NULL)
		abort();
	if (audit_print(a, f, true, 3) == -1 || fclose(f) != 0)
		abort();
	if ((j = json_loadb(buf, len, 0, NULL)) == NULL)
		abort();
	n = json_integer_value(json_object_get(j, "records")) +
	    json_integer_value(json_object_get(j, "malformed"));
	b = json_object_get(j, "bytes");
	if (json_integer_value(json_object_get(json_object_get(b,
	    "unattributed"), "connections")) >
	    json_integer_value(json_object_get(b, "connections")))
		abort();
	json_decref(j);
	free(buf);
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *nl;
	char why[256];
	struct audit *a;
	json_int_t fed = 0;

	if ((a = audit_new()) == NULL)
		return 0;
	while (p < end) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		why[0] = '\0';
		/* A refused line must say why. */
		if (audit_line(a, p, nl - p, why, sizeof(why)) == -1 &&
		    why[0] == '\0')
			abort();
		fed++;
		p = nl + 1;
	}
	if (audit_print(a, sink(), false, 3) == -1 ||
	    audit_html(a, sink(), 3) == -1 || lines_counted(a) != fed)
		abort();
	/* The suggestions read every map a line reached. */
	if (audit_suggest(a, sink()) == -1 ||
	    audit_suggest_full(a, sink()) == -1)
		abort();
	audit_free(a);
	return 0;
}
