/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_loadgen: bench/loadgen's pure parts, table by table: the response
 * parser (status, framing, the server's close, the bytes a response ends
 * at) however TCP cuts the bytes, the latency histogram's quantiles, and
 * the length of a SOCKS5 reply.  tests/bench/loadgen.sh runs the whole program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/loadgen.h"
#include "tests/rows.h"

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))
#define UNUSED		__attribute__((unused))

/* ---------------------------------------------------------------- */
/* resp: a response fed whole, in two pieces at every cut, and byte by
 * byte ends in the same state, with the same figures and at the same
 * byte. */

struct resp_row {
	const char	*in;
	int		 tunnel;	/* it answers CONNECT */
	int		 eof;		/* the connection ends after */
	enum resp_state	 state;		/* DONE or ERROR */
	int		 status, close;
	uint64_t	 body;
	size_t		 used;		/* 0: all of in */
};

static const struct resp_row resp_rows[] = {
	{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 0, 0,
	    RESP_DONE, 200, 0, 5, 0 },
	{ "HTTP/1.1 200 OK\r\ncontent-length:  0 \r\n\r\n", 0, 0,
	    RESP_DONE, 200, 0, 0, 0 },
	/* Chunked, with an extension, a trailer, and hex of both cases. */
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "3;x=y\r\nabc\r\na\r\n0123456789\r\nA\r\n0123456789\r\n"
	    "0\r\nX-T: 1\r\n\r\n", 0, 0, RESP_DONE, 200, 0, 23, 0 },
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n"
	    "Content-Length: 99\r\n\r\n1\r\nx\r\n0\r\n\r\n", 0, 0, RESP_DONE,
	    200, 0, 1, 0 },
	/* No length: the body ends with the connection, which closes. */
	{ "HTTP/1.1 200 OK\r\n\r\nabcdef", 0, 1, RESP_DONE, 200, 1, 6, 0 },
	{ "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nab", 0, 0, RESP_DONE,
	    200, 1, 2, 0 },
	{ "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2"
	    "\r\n\r\nab", 0, 0, RESP_DONE, 200, 0, 2, 0 },
	{ "HTTP/1.1 200 OK\r\nConnection: foo, close\r\nContent-Length: 1"
	    "\r\n\r\nx", 0, 0, RESP_DONE, 200, 1, 1, 0 },
	{ "HTTP/1.1 200 OK\r\nConnection: closed\r\nContent-Length: 1"
	    "\r\n\r\nx", 0, 0, RESP_DONE, 200, 0, 1, 0 },
	/* No body whatever the headers say. */
	{ "HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n", 0, 0,
	    RESP_DONE, 204, 0, 0, 0 },
	{ "HTTP/1.1 304 Not Modified\r\n\r\n", 0, 0, RESP_DONE, 304, 0, 0,
	    0 },
	/* Interim answers, then the final one. */
	{ "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early\r\nLink: x\r\n\r\n"
	    "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz", 0, 0, RESP_DONE,
	    200, 0, 1, 0 },
	/* Bare LF line ends. */
	{ "HTTP/1.1 404 Nope\nContent-Length: 3\n\nabc", 0, 0, RESP_DONE,
	    404, 0, 3, 0 },
	{ "HTTP/1.1 500\r\nContent-Length: 0\r\n\r\n", 0, 0, RESP_DONE, 500,
	    0, 0, 0 },
	/* The response ends where it ends: the rest is not its. */
	{ "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabHTTP/1.1", 0, 0,
	    RESP_DONE, 200, 0, 2, 40 },
	/* A CONNECT answer: 2xx opens the tunnel, whose bytes follow. */
	{ "HTTP/1.1 200 Connection established\r\n\r\nSSH-2.0", 1, 0,
	    RESP_DONE, 200, 0, 0, 39 },
	{ "HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\n", 1, 0, RESP_DONE,
	    200, 1, 0, 0 },
	{ "HTTP/1.1 403 Forbidden\r\nContent-Length: 4\r\n\r\ndeny", 1, 0,
	    RESP_DONE, 403, 0, 4, 0 },
	/* Errors. */
	{ "SSH-2.0-OpenSSH\r\n\r\n", 0, 0, RESP_ERROR, 0, 0, 0, 0 },
	{ "HTTP/1.1 20 OK\r\n\r\n", 0, 0, RESP_ERROR, 0, 0, 0, 0 },
	{ "HTTP/2 200\r\n\r\n", 0, 0, RESP_ERROR, 0, 0, 0, 0 },
	{ "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
	    0, 0, RESP_ERROR, 0, 0, 0, 0 },
	{ "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, 0, RESP_ERROR,
	    0, 0, 0, 0 },
	{ "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n"
	    "\r\n", 0, 0, RESP_ERROR, 0, 0, 0, 0 },
	{ "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", 0, 0, RESP_ERROR, 0, 0, 0,
	    0 },
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0,
	    0, RESP_ERROR, 200, 0, 0, 0 },
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
	    0, 0, RESP_ERROR, 200, 0, 2, 0 },
	/* Cut short: the end of the connection is no end of the body. */
	{ "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", 0, 1,
	    RESP_ERROR, 200, 0, 3, 0 },
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
	    0, 1, RESP_ERROR, 200, 0, 3, 0 },
	{ "HTTP/1.1 200 OK\r\nContent-Le", 0, 1, RESP_ERROR, 0, 0, 0, 0 },
};

/* Feeds in[0..len) in pieces of at most step (0: two, cut at cut). */
static void
feed_pieces(struct resp *r, const struct resp_row *row, size_t len,
    size_t cut, size_t step, size_t *used)
{
	size_t off = 0, n, u;

	*used = 0;
	while (off < len && r->state != RESP_DONE && r->state != RESP_ERROR) {
		n = step ? step : (off < cut ? cut - off : len - off);
		if (n > len - off)
			n = len - off;
		u = resp_feed(r, row->in + off, n);
		*used += u;
		if (u < n)
			break;
		off += n;
	}
	if (row->eof && r->state != RESP_ERROR)
		resp_eof(r);
	if (row->eof && r->state != RESP_DONE)
		r->state = RESP_ERROR;
}

static void
check_resp(const void *arg)
{
	const struct resp_row *row = arg;
	size_t len = strlen(row->in), want_used = row->used ? row->used : len;
	size_t cut, used;
	static struct resp r;

	for (cut = 0; cut <= len + 1; cut++) {
		resp_init(&r, row->tunnel);
		/* cut len + 1: byte by byte */
		feed_pieces(&r, row, len, cut, cut == len + 1 ? 1 : 0, &used);
		CHECK(r.state == row->state, "cut %zu: state %d, want %d", cut,
		    r.state, row->state);
		if (row->state == RESP_ERROR)
			continue;
		CHECK(r.status == row->status, "cut %zu: status %d, want %d",
		    cut, r.status, row->status);
		CHECK(r.close == row->close, "cut %zu: close %d, want %d", cut,
		    r.close, row->close);
		CHECK(r.body == row->body, "cut %zu: body %llu, want %llu", cut,
		    (unsigned long long)r.body,
		    (unsigned long long)row->body);
		CHECK(used == want_used, "cut %zu: used %zu, want %zu", cut,
		    used, want_used);
	}
}

static void
test_resp(void **state UNUSED)
{
	size_t i;

	for (i = 0; i < NELEM(resp_rows); i++) {
		row_begin("resp", i, resp_rows[i].in, strlen(resp_rows[i].in));
		row_run(check_resp, &resp_rows[i]);
	}
	rows_done("resp");
}

/* A head longer than RESP_HEAD_MAX is an error, not an overflow. */
static void
test_resp_long_head(void **state UNUSED)
{
	static struct resp r;
	static char big[RESP_HEAD_MAX + 100];
	size_t n;

	n = (size_t)snprintf(big, sizeof(big), "HTTP/1.1 200 OK\r\nX: ");
	memset(big + n, 'a', sizeof(big) - n);
	resp_init(&r, 0);
	(void)resp_feed(&r, big, sizeof(big));
	assert_int_equal(r.state, RESP_ERROR);
}

/* ---------------------------------------------------------------- */
/* hist: quantiles within a bucket's width (1/32) of the true value. */

static void
test_hist(void **state UNUSED)
{
	static struct hist h;
	uint64_t v;
	double q;

	assert_true(hist_quantile(&h, 0.5) == 0);
	for (v = 1; v <= 100000; v++)
		hist_add(&h, v);
	assert_int_equal(h.n, 100000);
	assert_int_equal(h.max, 100000);
	q = hist_quantile(&h, 0.5);
	assert_true(q > 50000 * (1 - 1.0 / 32) && q < 50000 * (1 + 1.0 / 32));
	q = hist_quantile(&h, 0.99);
	assert_true(q > 99000 * (1 - 1.0 / 32) && q <= 100000);
	assert_true(hist_quantile(&h, 1.0) <= 100000);
	/* Exact below 32 us. */
	memset(&h, 0, sizeof(h));
	hist_add(&h, 7);
	hist_add(&h, 7);
	hist_add(&h, 20);
	assert_true(hist_quantile(&h, 0.5) == 7);
	assert_true(hist_quantile(&h, 0.99) == 20);
	/* The largest values have a bucket too. */
	hist_add(&h, UINT64_MAX);
	assert_true(hist_quantile(&h, 1.0) > 1e19);
}

/* ---------------------------------------------------------------- */
/* msgs_socks_reply_len: 0 until 5 bytes are in, then by address type. */

static void
test_socks_reply_len(void **state UNUSED)
{
	const unsigned char v4[5] = { 5, 0, 0, 1, 127 };
	const unsigned char name[5] = { 5, 0, 0, 3, 9 };
	const unsigned char v6[5] = { 5, 0, 0, 4, 0 };
	const unsigned char bad[5] = { 5, 0, 0, 2, 0 };

	assert_int_equal(msgs_socks_reply_len(v4, 4), 0);
	assert_int_equal(msgs_socks_reply_len(v4, 5), 10);
	assert_int_equal(msgs_socks_reply_len(name, 5), 4 + 1 + 9 + 2);
	assert_int_equal(msgs_socks_reply_len(v6, 5), 22);
	assert_true(msgs_socks_reply_len(bad, 5) == (size_t)-1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resp),
		cmocka_unit_test(test_resp_long_head),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_socks_reply_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
