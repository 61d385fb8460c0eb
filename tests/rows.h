/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Table-driven cmocka tests: each row is named by its table, index and
 * input (control bytes escaped); a failing CHECK ends the row, not the
 * table, and rows_done fails the test when any row failed.
 *
 * Include after <cmocka.h>, in one test file of a program.
 */
#ifndef TESTS_ROWS_H
#define TESTS_ROWS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>

#define ROW_INPUT_MAX	200	/* bytes of a row's input in its name */

static char	row_name[1024];
static jmp_buf	row_jmp;
static int	row_failures;

static void
row_begin(const char *table, size_t i, const char *in, size_t len)
{
	size_t o, k;

	if (i == 0)
		row_failures = 0;
	o = (size_t)snprintf(row_name, sizeof(row_name), "%s[%zu] '", table,
	    i);
	for (k = 0; k < len && k < ROW_INPUT_MAX && o + 6 < sizeof(row_name);
	    k++) {
		unsigned char c = (unsigned char)in[k];

		if (c == '\n')
			o += (size_t)snprintf(row_name + o,
			    sizeof(row_name) - o, "\\n");
		else if (c >= 0x20 && c < 0x7f)
			row_name[o++] = (char)c;
		else
			o += (size_t)snprintf(row_name + o,
			    sizeof(row_name) - o, "\\x%02x", c);
	}
	snprintf(row_name + o, sizeof(row_name) - o, "'");
}

static void row_fail(int, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static void
row_fail(int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	print_error("%s: line %d: %s\n", row_name, line, msg);
	row_failures++;
	longjmp(row_jmp, 1);
}

#define CHECK(cond, ...)	do {					\
	if (!(cond))							\
		row_fail(__LINE__, __VA_ARGS__);			\
} while (0)

/* One row; a failing CHECK ends the row, not the table. */
static void
row_run(void (*fn)(const void *), const void *row)
{
	if (setjmp(row_jmp) == 0)
		fn(row);
}

static void
rows_done(const char *table)
{
	if (row_failures != 0)
		fail_msg("%s: %d row(s) failed", table, row_failures);
}

#endif
