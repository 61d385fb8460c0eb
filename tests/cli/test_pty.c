/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_pty: run mode's terminal, the pure parts (cli/ptyplan.c): which
 * streams get the pseudo-terminal and where its output goes, the raw
 * modes, "\n" as "\r\n" for our own lines, and the bounded buffers.
 * tests/cli/pty.sh runs the whole relay on a real terminal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <termios.h>

#include <cmocka.h>

#include "cli/pty.h"

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))
#define UNUSED		__attribute__((unused))

/* ---------------------------------------------------------------- */
/* pty_plan: every combination of terminals among fds 0-2. */

struct plan_row {
	bool	 tty[3], writable0;
	bool	 any;
	int	 term, in, out;
};

static const struct plan_row plan_rows[] = {
	/* Nothing a terminal (a pipe, a file, /dev/null): no pty. */
	{ { 0, 0, 0 }, 0, 0, -1, -1, -1 },
	{ { 0, 0, 0 }, 1, 0, -1, -1, -1 },
	/* All three: input relayed, output to stdout. */
	{ { 1, 1, 1 }, 1, 1, 0, 0, 1 },
	/* | less: typed at the terminal, shown on stderr's. */
	{ { 1, 0, 1 }, 1, 1, 0, 0, 2 },
	/* >FILE 2>&1: the echo goes back to the terminal typed at... */
	{ { 1, 0, 0 }, 1, 1, 0, 0, 0 },
	/* ...unless it is open for reading only: dropped. */
	{ { 1, 0, 0 }, 0, 1, 0, 0, -1 },
	/* echo x | ...: nothing read; modes from stdout's terminal. */
	{ { 0, 1, 1 }, 0, 1, 1, -1, 1 },
	{ { 0, 1, 0 }, 0, 1, 1, -1, 1 },
	{ { 0, 0, 1 }, 1, 1, 2, -1, 2 },
	{ { 1, 1, 0 }, 0, 1, 0, 0, 1 },
};

static void
test_plan(void **state UNUSED)
{
	struct pty_probe in;
	struct pty_plan out;
	size_t i;
	int k;

	for (i = 0; i < NELEM(plan_rows); i++) {
		const struct plan_row *r = &plan_rows[i];

		memset(&in, 0, sizeof(in));
		memcpy(in.tty, r->tty, sizeof(in.tty));
		in.writable0 = r->writable0;
		pty_plan(&in, &out);
		assert_int_equal(out.any, r->any);
		assert_int_equal(out.term, r->term);
		assert_int_equal(out.in, r->in);
		assert_int_equal(out.out, r->out);
		/* A stream that is not a terminal is passed as it is. */
		for (k = 0; k < 3; k++)
			assert_int_equal(out.streams[k], r->tty[k]);
	}
}

/* ---------------------------------------------------------------- */
/* pty_raw_modes: cfmakeraw's, the rest (speeds, characters) kept. */

static void
test_raw(void **state UNUSED)
{
	struct termios t, r;

	memset(&t, 0, sizeof(t));
	t.c_iflag = ICRNL | IXON | BRKINT | ISTRIP | IUTF8;
	t.c_oflag = OPOST | ONLCR;
	t.c_lflag = ECHO | ECHOE | ICANON | ISIG | IEXTEN;
	t.c_cflag = CS7 | PARENB | CREAD;
	t.c_cc[VINTR] = 3;
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 5;
	pty_raw_modes(&t, &r);
	assert_int_equal(r.c_iflag & (ICRNL | IXON | BRKINT | ISTRIP), 0);
	assert_true(r.c_iflag & IUTF8);
	assert_int_equal(r.c_oflag & OPOST, 0);
	assert_int_equal(r.c_lflag & (ECHO | ICANON | ISIG | IEXTEN), 0);
	assert_int_equal(r.c_cflag & CSIZE, CS8);
	assert_int_equal(r.c_cflag & PARENB, 0);
	assert_true(r.c_cflag & CREAD);
	assert_int_equal(r.c_cc[VMIN], 1);
	assert_int_equal(r.c_cc[VTIME], 0);
	assert_int_equal(r.c_cc[VINTR], 3);
	/* The caller's own are untouched: they are what is put back. */
	assert_true(t.c_lflag & ECHO);
}

/* ---------------------------------------------------------------- */
/* pty_crlf: whole, and into every smaller buffer, pieced together. */

static void
test_crlf(void **state UNUSED)
{
	const char *in = "harn-egressd: refused x\n\nend\n";
	const char *want = "harn-egressd: refused x\r\n\r\nend\r\n";
	char out[128], got[128];
	size_t used, n, cap, off, o;

	n = pty_crlf(in, strlen(in), &used, out, sizeof(out));
	assert_int_equal(used, strlen(in));
	assert_int_equal(n, strlen(want));
	assert_memory_equal(out, want, n);
	for (cap = 2; cap < 40; cap++) {
		for (off = 0, o = 0; off < strlen(in); off += used) {
			n = pty_crlf(in + off, strlen(in) - off, &used, out,
			    cap);
			assert_true(used > 0);	/* room for "\r\n" at least */
			assert_true(n <= cap);
			memcpy(got + o, out, n);
			o += n;
		}
		assert_int_equal(o, strlen(want));
		assert_memory_equal(got, want, o);
	}
	/* No room for both halves of a "\r\n": the "\n" waits. */
	n = pty_crlf("\n", 1, &used, out, 1);
	assert_int_equal(n, 0);
	assert_int_equal(used, 0);
}

/* ---------------------------------------------------------------- */
/* pty_buf: bytes come out in order, never more than PTY_BUF held. */

static void
test_buf(void **state UNUSED)
{
	static struct pty_buf b;
	uint8_t next_in = 0, next_out = 0;
	size_t room, n, k, step;
	const char *d;
	char *at;

	memset(&b, 0, sizeof(b));
	at = pty_buf_space(&b, &room);
	assert_int_equal(room, PTY_BUF);
	for (step = 0; step < 2000; step++) {
		/* Put an uneven amount, take another: the ring wraps. */
		at = pty_buf_space(&b, &room);
		n = room < 997 + step % 13 ? room : 997 + step % 13;
		for (k = 0; k < n; k++)
			at[k] = (char)next_in++;
		pty_buf_put(&b, n);
		assert_true(b.len <= PTY_BUF);
		d = pty_buf_data(&b, &n);
		n = n < 700 + step % 7 ? n : 700 + step % 7;
		for (k = 0; k < n; k++)
			assert_int_equal((uint8_t)d[k], next_out++);
		pty_buf_take(&b, n);
	}
	/* Full: no room until something is taken. */
	while ((at = pty_buf_space(&b, &room)), room > 0)
		pty_buf_put(&b, room);
	assert_int_equal(b.len, PTY_BUF);
	d = pty_buf_data(&b, &n);
	pty_buf_take(&b, n);
	at = pty_buf_space(&b, &room);
	assert_int_equal(room, n);
	(void)at;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_buf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
