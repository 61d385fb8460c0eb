/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_proxymsg: the proxy's pure message code, table by table: HTTP
 * heads (where one ends, how it splits, status lines, header tokens),
 * body framing and relaying however TCP cuts it (proxy/httpmsg.c), and
 * the SOCKS5 greeting and request (proxy/socksmsg.c).
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

#include <event2/buffer.h>

#include "egress/egress.h"
#include "proxy/httpmsg.h"
#include "proxy/socksmsg.h"
#include "tests/rows.h"

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))
#define UNUSED		__attribute__((unused))

static struct evbuffer *
buf_of(const char *s, size_t len)
{
	struct evbuffer *b = evbuffer_new();

	assert_non_null(b);
	assert_int_equal(evbuffer_add(b, s, len), 0);
	return b;
}

/* ---------------------------------------------------------------- */
/* httpmsg_head_end: just past the first empty line, or 0. */

static const struct head_end_row {
	const char	*in;
	size_t		 limit;
	size_t		 end;
} head_end_rows[] = {
	{ "", 100, 0 },
	{ "GET / HTTP/1.1\r\n", 100, 0 },
	{ "GET / HTTP/1.1\r\n\r", 100, 0 },
	{ "GET / HTTP/1.1\r\n\r\n", 100, 18 },
	{ "GET / HTTP/1.1\n\n", 100, 16 },
	{ "GET / HTTP/1.1\n\r\n", 100, 17 },
	{ "GET / HTTP/1.1\r\nA: b\r\n\r\nbody", 100, 24 },
	/* The first empty line, whichever spelling comes first. */
	{ "GET /\n\nX\r\n\r\n", 100, 7 },
	{ "GET /\r\n\r\nX\n\n", 100, 9 },
	/* Past the limit (plus an end's length) nothing is looked at. */
	{ "GET / HTTP/1.1\r\nAAAAAAAAAAAAAAAAAAAAAAAA\r\n\r\n", 10, 0 },
	{ "GET / HTTP/1.1\r\n\r\n", 14, 18 },
	{ "GET / HTTP/1.1\r\n\r\n", 13, 0 },
};

/*
 * httpmsg_head_scan, fed step bytes at a time: after every piece the same
 * answer as a fresh search of what has come, however the ends are cut.
 */
static void
head_scan_cut(const struct head_end_row *r, size_t step)
{
	struct evbuffer *b = evbuffer_new();
	struct httpmsg_scan sc = { 0 };
	size_t len = strlen(r->in), i, n = 0, end = 0, want = 0;

	assert_non_null(b);
	for (i = 0; i < len; i += n) {
		n = len - i < step ? len - i : step;
		assert_int_equal(evbuffer_add(b, r->in + i, n), 0);
		end = httpmsg_head_scan(b, r->limit, &sc);
		want = httpmsg_head_end(b, r->limit);
		if (end != want)
			break;
	}
	evbuffer_free(b);
	CHECK(end == want, "step %zu: at %zu bytes end %zu, a fresh search %zu",
	    step, i + n, end, want);
	CHECK(end == r->end, "step %zu: end %zu, want %zu", step, end,
	    r->end);
}

static void
head_end_row(const void *p)
{
	const struct head_end_row *r = p;
	struct evbuffer *b = buf_of(r->in, strlen(r->in));
	size_t end = httpmsg_head_end(b, r->limit), step;

	evbuffer_free(b);
	CHECK(end == r->end, "end %zu, want %zu", end, r->end);
	for (step = 1; step <= 4; step++)
		head_scan_cut(r, step);
}

static void
test_head_end(void **state UNUSED)
{
	size_t i;

	for (i = 0; i < NELEM(head_end_rows); i++) {
		row_begin("head_end", i, head_end_rows[i].in,
		    strlen(head_end_rows[i].in));
		row_run(head_end_row, &head_end_rows[i]);
	}
	rows_done("head_end");
}

/* A head of exactly len bytes: padded header lines, then its empty line. */
static char *
long_head(size_t len)
{
	static const char start[] = "GET http://a/ HTTP/1.1\r\n";
	char *h = malloc(len + 1);
	size_t at = sizeof(start) - 1, n;

	assert_non_null(h);
	memcpy(h, start, at);
	while (at < len - 2) {
		n = len - 2 - at < 80 ? len - 2 - at : 80;
		memset(h + at, 'a', n);
		if (n >= 4)
			memcpy(h + at + n - 2, "\r\n", 2);
		at += n;
	}
	memcpy(h + len - 4, "\r\n\r\n", 4);
	h[len] = '\0';
	return h;
}

/*
 * The bytes looked at for a head fed in pieces of 1, 2, 1, 2... bytes:
 * about its length (each once, a pending LF's next bytes again), as for
 * the whole head at once; not the square of it.
 */
static uint64_t
head_examined(const char *h, size_t len, size_t limit, bool trickle)
{
	struct evbuffer *b = evbuffer_new();
	struct httpmsg_scan sc = { 0 };
	uint64_t before = httpmsg_head_examined;
	size_t i, n, end = 0;

	assert_non_null(b);
	for (i = 0; i < len; i += n) {
		n = !trickle ? len : len - i < 1 + i % 2 ? len - i : 1 + i % 2;
		assert_int_equal(evbuffer_add(b, h + i, n), 0);
		end = httpmsg_head_scan(b, limit, &sc);
		assert_true(end == 0 || i + n == len);
	}
	assert_int_equal(end, len);
	evbuffer_free(b);
	return httpmsg_head_examined - before;
}

static void
test_head_scan_linear(void **state UNUSED)
{
	static const size_t lens[] = { 4096, 65536, 1 << 20 };
	uint64_t whole, trickled;
	size_t i;
	char *h;

	for (i = 0; i < NELEM(lens); i++) {
		h = long_head(lens[i]);
		whole = head_examined(h, lens[i], lens[i], false);
		trickled = head_examined(h, lens[i], lens[i], true);
		print_message("# %zu-byte head: %llu bytes examined whole, "
		    "%llu trickled\n", lens[i], (unsigned long long)whole,
		    (unsigned long long)trickled);
		assert_true(whole >= lens[i] && whole <= lens[i] + 4);
		assert_true(trickled <= 2 * (uint64_t)lens[i]);
		free(h);
	}
}

/* ---------------------------------------------------------------- */
/* httpmsg_parse: the start line and the headers, or why not. */

/* A string literal and its length, NULs inside included. */
#define S(lit)	(lit), (sizeof(lit) - 1)

static const struct parse_row {
	const char	*in;
	size_t		 len;
	int		 rv;
	const char	*start;		/* HTTPMSG_OK: the start line */
	size_t		 nheaders;
	const char	*name0, *value0;	/* the first header */
} parse_rows[] = {
	{ S("GET / HTTP/1.1\r\n\r\n"), HTTPMSG_OK, "GET / HTTP/1.1", 0, NULL,
	    NULL },
	{ S("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), HTTPMSG_OK, "GET / HTTP/1.1",
	    1, "Host", "a" },
	{ S("GET / HTTP/1.1\nHost:a\n\n"), HTTPMSG_OK, "GET / HTTP/1.1", 1,
	    "Host", "a" },
	/* Values lose their surrounding blanks, not their inside ones. */
	{ S("X\r\nA: \t one two \t\r\n\r\n"), HTTPMSG_OK, "X", 1, "A",
	    "one two" },
	{ S("X\r\nA:\r\n\r\n"), HTTPMSG_OK, "X", 1, "A", "" },
	/* Empty lines before the start line are skipped (RFC 9112 2.2). */
	{ S("\r\n\r\nGET / HTTP/1.1\r\n\r\n"), HTTPMSG_OK, "GET / HTTP/1.1", 0,
	    NULL, NULL },
	{ S(""), HTTPMSG_BAD, NULL, 0, NULL, NULL },
	{ S("\r\n"), HTTPMSG_BAD, NULL, 0, NULL, NULL },
	/* Space before the colon, no colon, no name, a bad name. */
	{ S("X\r\nHost : a\r\n\r\n"), HTTPMSG_BAD, NULL, 0, NULL, NULL },
	{ S("X\r\nHost\r\n\r\n"), HTTPMSG_BAD, NULL, 0, NULL, NULL },
	{ S("X\r\n: a\r\n\r\n"), HTTPMSG_BAD, NULL, 0, NULL, NULL },
	{ S("X\r\nA(b): c\r\n\r\n"), HTTPMSG_BAD, NULL, 0, NULL, NULL },
	/* Obsolete line folding, a bare CR, a NUL. */
	{ S("X\r\nA: b\r\n c\r\n\r\n"), HTTPMSG_BAD, NULL, 0, NULL, NULL },
	{ S("X\r\nA: b\rc\r\n\r\n"), HTTPMSG_BAD, NULL, 0, NULL, NULL },
	{ S("X\r\nA: b\0c\r\n\r\n"), HTTPMSG_BAD, NULL, 0, NULL, NULL },
	{ S("GET /\r HTTP/1.1\r\n\r\n"), HTTPMSG_BAD, NULL, 0, NULL, NULL },
};

static void
parse_row(const void *p)
{
	const struct parse_row *r = p;
	size_t len = r->len;
	char *copy = malloc(len + 1);
	struct httpmsg *m = malloc(sizeof(*m));
	int rv;

	assert_non_null(copy);
	assert_non_null(m);
	memcpy(copy, r->in, len);
	rv = httpmsg_parse(copy, len, m);
	if (rv != r->rv) {
		free(copy);
		free(m);
		CHECK(false, "parse %d, want %d", rv, r->rv);
	}
	if (rv == HTTPMSG_OK) {
		bool start = m->slen == strlen(r->start) &&
		    memcmp(m->start, r->start, m->slen) == 0;
		bool n = m->nheaders == r->nheaders;
		bool h0 = r->nheaders == 0 || (httpmsg_name_is(&m->headers[0],
		    r->name0) && m->headers[0].vlen == strlen(r->value0) &&
		    memcmp(m->headers[0].value, r->value0,
		    m->headers[0].vlen) == 0);

		free(copy);
		free(m);
		CHECK(start, "start line differs");
		CHECK(n, "header count differs");
		CHECK(h0, "first header differs");
		return;
	}
	free(copy);
	free(m);
}

static void
test_parse(void **state UNUSED)
{
	size_t i;

	for (i = 0; i < NELEM(parse_rows); i++) {
		row_begin("parse", i, parse_rows[i].in, parse_rows[i].len);
		row_run(parse_row, &parse_rows[i]);
	}
	rows_done("parse");
}

/* More header lines than a head may have: HTTPMSG_TOO_BIG. */
static void
test_parse_too_many(void **state UNUSED)
{
	size_t cap = 8 + (HTTPMSG_MAX_HEADERS + 1) * 6 + 2, n, i;
	char *head = malloc(cap);
	struct httpmsg *m = malloc(sizeof(*m));

	assert_non_null(head);
	assert_non_null(m);
	n = (size_t)snprintf(head, cap, "GET /\r\n");
	for (i = 0; i < HTTPMSG_MAX_HEADERS; i++)
		n += (size_t)snprintf(head + n, cap - n, "A: b\r\n");
	memcpy(head + n, "\r\n", 2);
	assert_int_equal(httpmsg_parse(head, n + 2, m), HTTPMSG_OK);
	assert_int_equal(m->nheaders, HTTPMSG_MAX_HEADERS);
	n += (size_t)snprintf(head + n, cap - n, "A: b\r\n");
	memcpy(head + n, "\r\n", 2);
	assert_int_equal(httpmsg_parse(head, n + 2, m), HTTPMSG_TOO_BIG);
	free(head);
	free(m);
}

/* ---------------------------------------------------------------- */
/* httpmsg_status: the three digits of a status line, or -1. */

static const struct status_row {
	const char	*line;
	int		 status;
} status_rows[] = {
	{ "HTTP/1.1 200 OK", 200 },
	{ "HTTP/1.0 404 Not Found", 404 },
	{ "HTTP/1.1 204", 204 },
	{ "HTTP/1.1 100 Continue", 100 },
	{ "HTTP/1.1 999 X", 999 },
	{ "HTTP/1.1 099 X", -1 },
	{ "HTTP/1.1 20 OK", -1 },
	{ "HTTP/1.1 2000 OK", -1 },
	{ "HTTP/1.1 20x OK", -1 },
	{ "HTTP/1.2 200 OK", -1 },
	{ "HTTP/2 200 OK", -1 },
	{ "http/1.1 200 OK", -1 },
	{ "HTTP/1.1  200 OK", -1 },
	{ "", -1 },
	{ "HTTP/1.1 ", -1 },
};

static void
status_row(const void *p)
{
	const struct status_row *r = p;
	struct httpmsg m;
	int s;

	memset(&m, 0, sizeof(m));
	m.start = (char *)r->line;
	m.slen = strlen(r->line);
	s = httpmsg_status(&m);
	CHECK(s == r->status, "status %d, want %d", s, r->status);
}

static void
test_status(void **state UNUSED)
{
	size_t i;

	for (i = 0; i < NELEM(status_rows); i++) {
		row_begin("status", i, status_rows[i].line,
		    strlen(status_rows[i].line));
		row_run(status_row, &status_rows[i]);
	}
	rows_done("status");
}

/* ---------------------------------------------------------------- */
/* httpmsg_value_has: a token of a comma-separated list. */

static const struct token_row {
	const char	*value, *token;
	bool		 has;
} token_rows[] = {
	{ "close", "close", true },
	{ "Close", "close", true },
	{ "keep-alive, close", "close", true },
	{ " ,close , ", "close", true },
	{ "\tclose\t", "close", true },
	{ "closed", "close", false },
	{ "close-ish", "close", false },
	{ "", "close", false },
	{ "x-close", "close", false },
	{ "a,,b", "b", true },
	{ "Content-Length", "content-length", true },
};

static void
token_row(const void *p)
{
	const struct token_row *r = p;
	bool has = httpmsg_value_has(r->value, strlen(r->value), r->token);

	CHECK(has == r->has, "'%s' in '%s': %d, want %d", r->token, r->value,
	    has, r->has);
}

static void
test_value_has(void **state UNUSED)
{
	size_t i;

	for (i = 0; i < NELEM(token_rows); i++) {
		row_begin("value_has", i, token_rows[i].value,
		    strlen(token_rows[i].value));
		row_run(token_row, &token_rows[i]);
	}
	rows_done("value_has");
}

/* ---------------------------------------------------------------- */
/* httpmsg_framing: how a body is delimited, or a smuggling shape. */

static const struct framing_row {
	const char	*head;
	int		 rv;
	enum body_kind	 kind;
	uint64_t	 remaining;
} framing_rows[] = {
	{ "X\r\n\r\n", 0, BODY_NONE, 0 },
	{ "X\r\nContent-Length: 0\r\n\r\n", 0, BODY_LENGTH, 0 },
	{ "X\r\nContent-Length: 12345\r\n\r\n", 0, BODY_LENGTH, 12345 },
	{ "X\r\ncontent-length: 7\r\n\r\n", 0, BODY_LENGTH, 7 },
	{ "X\r\nContent-Length: 999999999999999999\r\n\r\n", 0, BODY_LENGTH,
	    999999999999999999ULL },
	{ "X\r\nTransfer-Encoding: chunked\r\n\r\n", 0, BODY_CHUNKED, 0 },
	{ "X\r\nTransfer-Encoding: Chunked\r\n\r\n", 0, BODY_CHUNKED, 0 },
	/* The shapes of smuggling. */
	{ "X\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", -1,
	    BODY_NONE, 0 },
	{ "X\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", -1,
	    BODY_NONE, 0 },
	{ "X\r\nContent-Length: 1, 1\r\n\r\n", -1, BODY_NONE, 0 },
	{ "X\r\nContent-Length: +1\r\n\r\n", -1, BODY_NONE, 0 },
	{ "X\r\nContent-Length: -1\r\n\r\n", -1, BODY_NONE, 0 },
	{ "X\r\nContent-Length: 0x10\r\n\r\n", -1, BODY_NONE, 0 },
	{ "X\r\nContent-Length:\r\n\r\n", -1, BODY_NONE, 0 },
	{ "X\r\nContent-Length: 1000000000000000000\r\n\r\n", -1, BODY_NONE, 0 },
	{ "X\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", -1, BODY_NONE, 0 },
	{ "X\r\nTransfer-Encoding: identity\r\n\r\n", -1, BODY_NONE, 0 },
	{ "X\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
	    -1, BODY_NONE, 0 },
};

static void
framing_row(const void *p)
{
	const struct framing_row *r = p;
	size_t len = strlen(r->head);
	char *copy = malloc(len);
	struct httpmsg *m = malloc(sizeof(*m));
	struct httpmsg_body b;
	int rv, prv;

	assert_non_null(copy);
	assert_non_null(m);
	memcpy(copy, r->head, len);
	prv = httpmsg_parse(copy, len, m);
	rv = prv == HTTPMSG_OK ? httpmsg_framing(m, &b) : -2;
	free(copy);
	free(m);
	CHECK(prv == HTTPMSG_OK, "the head does not parse");
	CHECK(rv == r->rv, "framing %d, want %d", rv, r->rv);
	if (rv == 0) {
		CHECK(b.kind == r->kind, "kind %d, want %d", b.kind, r->kind);
		CHECK(b.remaining == r->remaining, "remaining %llu, want %llu",
		    (unsigned long long)b.remaining,
		    (unsigned long long)r->remaining);
	}
}

static void
test_framing(void **state UNUSED)
{
	size_t i;

	for (i = 0; i < NELEM(framing_rows); i++) {
		row_begin("framing", i, framing_rows[i].head,
		    strlen(framing_rows[i].head));
		row_run(framing_row, &framing_rows[i]);
	}
	rows_done("framing");
}

/* ---------------------------------------------------------------- */
/*
 * httpmsg_relay_body: the body moves unchanged and ends where it ends,
 * whether it arrives whole or cut in two at any byte; what follows it
 * stays behind.  And the same when, after the cut, the bytes the framing
 * vouches for (httpmsg_body_data) are moved without the relay and then
 * accounted (httpmsg_body_moved), as forward.c's splice path does.  rv: 1 complete, -1 a framing error, 0 more needed.  On
 * -1 exactly the bytes before the line at fault were moved: nothing of a
 * line that fails its check is relayed, not even its start.
 */

static const struct relay_row {
	enum body_kind	 kind;
	uint64_t	 length;	/* BODY_LENGTH */
	const char	*in;
	int		 rv;
	size_t		 body;		/* rv 1: the body; -1: what moved */
} relay_rows[] = {
	{ BODY_NONE, 0, "GET / HTTP/1.1\r\n\r\n", 1, 0 },
	{ BODY_LENGTH, 5, "hello", 1, 5 },
	{ BODY_LENGTH, 5, "helloGET /", 1, 5 },
	{ BODY_LENGTH, 5, "hell", 0, 0 },
	{ BODY_LENGTH, 0, "next", 1, 0 },
	{ BODY_CHUNKED, 0, "5\r\nhello\r\n0\r\n\r\n", 1, 15 },
	{ BODY_CHUNKED, 0, "5\r\nhello\r\n0\r\n\r\nGET", 1, 15 },
	{ BODY_CHUNKED, 0, "A;ext=1\r\n0123456789\r\n0\r\n\r\n", 1, 26 },
	{ BODY_CHUNKED, 0, "5\r\nhello\r\n0\r\nTrailer: x\r\n\r\n", 1, 27 },
	{ BODY_CHUNKED, 0, "5\r\nhello\r\n", 0, 0 },
	/* RFC 9112 7.1: chunk-size [ chunk-ext ] CRLF, and nothing else. */
	{ BODY_CHUNKED, 0, "0005\r\nhello\r\n0\r\n\r\n", 1, 18 },
	{ BODY_CHUNKED, 0, "5;a\r\nhello\r\n0;b=c\r\n\r\n", 1, 21 },
	{ BODY_CHUNKED, 0, "5 ;a\r\nhello\r\n0\r\n\r\n", 1, 18 },
	{ BODY_CHUNKED, 0, "5\t; a = b ;c=d\r\nhello\r\n0\r\n\r\n", 1, 28 },
	{ BODY_CHUNKED, 0, "5;a=\"q \\\" ;\t\xc3\xa9\"\r\nhello\r\n0\r\n\r\n",
	    1, 29 },
	{ BODY_CHUNKED, 0, "5;!#$%&'*+-.^_`|~=x\r\nhello\r\n0\r\n\r\n", 1,
	    33 },
	/* Not chunk lines: refused before a byte of them moves. */
	{ BODY_CHUNKED, 0, "x\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "-5\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "+5\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, " 5\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "10000000000000000\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "0x3\r\nabc\r\n0\r\n\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5 zz\r\nhello\r\n0\r\n\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5 \r\nhello\r\n0\r\n\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5\t\r\nhello\r\n0\r\n\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;=b\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a=\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a b\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a=b c\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a=b;\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a=b \r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a=\"b\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a=\"b\\\"\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a=\"\x01\"\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a=\"\x7f\"\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a\x7f\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;\xc3\xa9\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a=\xc3\xa9\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a\x0b\r\nhello\r\n", -1, 0 },
	/* A bare CR in a line: a lenient parser would end the line there. */
	{ BODY_CHUNKED, 0, "2;a\rzz\r0\r\rGET /smuggled HTTP/1.0\r\n\r\n"
	    "\r\n0\r\n\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5\rhello\r\n0\r\n\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a=\"\r\"\r\nhello\r\n", -1, 0 },
	/* A line ends at CRLF only: not at a bare LF. */
	{ BODY_CHUNKED, 0, "5\nhello\n0\n\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5;a\nb\r\nhello\r\n", -1, 0 },
	{ BODY_CHUNKED, 0, "5\r\nhello\n0\r\n\r\n", -1, 8 },
	{ BODY_CHUNKED, 0, "5\r\nhelloX\r\n", -1, 8 },
	{ BODY_CHUNKED, 0, "3\r\nabc HTTP/1.1\r\n", -1, 6 },
	{ BODY_CHUNKED, 0, "3\r\nabc\r\r\n0\r\n\r\n", -1, 6 },
	/* Trailer lines: fields, each ending at CRLF. */
	{ BODY_CHUNKED, 0, "5\r\nhello\r\n0\r\nno colon\r\n\r\n", -1, 13 },
	{ BODY_CHUNKED, 0, "5\r\nhello\r\n0\r\n: x\r\n\r\n", -1, 13 },
	{ BODY_CHUNKED, 0, "5\r\nhello\r\n0\r\nT: x\rGET / HTTP/1.1\r\n\r\n",
	    -1, 13 },
	{ BODY_CHUNKED, 0, "5\r\nhello\r\n0\r\nT: x\nGET / HTTP/1.1\r\n\r\n",
	    -1, 13 },
	{ BODY_CHUNKED, 0, "5\r\nhello\r\n0\r\n\n", -1, 13 },
	{ BODY_CHUNKED, 0, "5\r\nhello\r\n0\r\nT: \x01\r\n\r\n", -1, 13 },
	{ BODY_UNTIL_CLOSE, 0, "anything at all", 0, 0 },
};

/*
 * Feed in[0..cut) then the rest; rv and out as after the whole.  fast:
 * the rest's first bytes, as many as the framing vouches for, go straight
 * to out (as splice takes them) once all before them was relayed.
 */
static int
relay_cut(const struct relay_row *r, size_t cut, struct evbuffer *out,
    struct evbuffer *in, bool fast)
{
	struct httpmsg_body b = { r->kind, r->length };
	size_t len = strlen(r->in), k = 0;
	uint64_t data;
	int rv;

	assert_int_equal(evbuffer_add(in, r->in, cut), 0);
	rv = httpmsg_relay_body(&b, in, out);
	data = httpmsg_body_data(&b);
	if (fast && rv == 0 && data > 0 && evbuffer_get_length(in) == 0) {
		k = len - cut < data ? len - cut : (size_t)data;
		assert_int_equal(evbuffer_add(out, r->in + cut, k), 0);
		httpmsg_body_moved(&b, k);
	}
	assert_int_equal(evbuffer_add(in, r->in + cut + k, len - cut - k), 0);
	if (rv != 0 || cut == len)
		return rv;
	return httpmsg_relay_body(&b, in, out);
}

static void
relay_row(const void *p)
{
	const struct relay_row *r = p;
	size_t len = strlen(r->in), cut, olen, ilen;
	struct evbuffer *in, *out;
	bool same, fast;
	int rv;

	for (cut = 0; cut <= 2 * len + 1; cut++) {
		fast = cut > len;
		in = evbuffer_new();
		out = evbuffer_new();
		assert_non_null(in);
		assert_non_null(out);
		rv = relay_cut(r, cut % (len + 1), out, in, fast);
		olen = evbuffer_get_length(out);
		ilen = evbuffer_get_length(in);
		same = rv == 0 || (olen == r->body && (olen == 0 ||
		    memcmp(evbuffer_pullup(out, -1), r->in, olen) == 0) &&
		    (rv == -1 || ilen == len - r->body));
		evbuffer_free(in);
		evbuffer_free(out);
		CHECK(rv == r->rv, "cut at %zu%s: relay %d, want %d",
		    cut % (len + 1), fast ? " (fast)" : "", rv, r->rv);
		CHECK(same, "cut at %zu%s: %zu bytes out, %zu left; want %zu "
		    "and %zu", cut % (len + 1), fast ? " (fast)" : "", olen,
		    ilen, r->body, len - r->body);
	}
}

/* What each framing state vouches for, and what moving some leaves. */
static void
test_body_data(void **state UNUSED)
{
	struct httpmsg_body b;

	b = (struct httpmsg_body){ BODY_NONE, 0 };
	assert_true(httpmsg_body_data(&b) == 0);
	b = (struct httpmsg_body){ BODY_LENGTH, 7 };
	assert_true(httpmsg_body_data(&b) == 7);
	httpmsg_body_moved(&b, 3);
	assert_true(httpmsg_body_data(&b) == 4 && b.kind == BODY_LENGTH);
	httpmsg_body_moved(&b, 10);	/* never below nothing */
	assert_true(httpmsg_body_data(&b) == 0 && b.remaining == 0);
	b = (struct httpmsg_body){ BODY_CHUNK_DATA, 5 };
	assert_true(httpmsg_body_data(&b) == 5);
	httpmsg_body_moved(&b, 5);
	assert_true(httpmsg_body_data(&b) == 0 && b.kind == BODY_CHUNK_DATA);
	/* Framing next: a chunk line, a chunk's CRLF, a trailer. */
	b = (struct httpmsg_body){ BODY_CHUNKED, 9 };
	assert_true(httpmsg_body_data(&b) == 0);
	b = (struct httpmsg_body){ BODY_CHUNK_END, 9 };
	assert_true(httpmsg_body_data(&b) == 0);
	b = (struct httpmsg_body){ BODY_TRAILER, 9 };
	assert_true(httpmsg_body_data(&b) == 0);
	b = (struct httpmsg_body){ BODY_UNTIL_CLOSE, 0 };
	assert_true(httpmsg_body_data(&b) == UINT64_MAX);
	httpmsg_body_moved(&b, 100);
	assert_true(httpmsg_body_data(&b) == UINT64_MAX);
}

/*
 * httpmsg_chunk_line alone: the size of a line that is one.  A chunk
 * line longer than HTTPMSG_CHUNK_LINE_MAX is refused by the relay.
 */
static const struct chunk_line_row {
	const char	*in;
	int		 rv;
	uint64_t	 size;
} chunk_line_rows[] = {
	{ "0", 0, 0 },
	{ "fF", 0, 255 },
	{ "ffffffffffffffff", 0, UINT64_MAX },
	{ "1;a=\"\"", 0, 1 },
	{ "1 ; a ; b = \"c\"", 0, 1 },
	{ "", -1, 0 },
	{ ";a", -1, 0 },
	{ "1;a=\"\\", -1, 0 },
	{ "1;a=\"x\"y", -1, 0 },
	{ "1;a=\"x\" y", -1, 0 },
	{ "1\r", -1, 0 },
	{ "1;a\r\n", -1, 0 },
};

static void
chunk_line_row(const void *p)
{
	const struct chunk_line_row *r = p;
	uint64_t size = 12345;
	int rv;

	rv = httpmsg_chunk_line((const unsigned char *)r->in, strlen(r->in),
	    &size);
	CHECK(rv == r->rv, "chunk line %d, want %d", rv, r->rv);
	CHECK(rv == -1 || size == r->size, "size %ju, want %ju",
	    (uintmax_t)size, (uintmax_t)r->size);
}

static void
test_chunk_line(void **state UNUSED)
{
	char big[HTTPMSG_CHUNK_LINE_MAX + 64];
	struct httpmsg_body b = { BODY_CHUNKED, 0 };
	struct evbuffer *in, *out;
	size_t i;

	for (i = 0; i < NELEM(chunk_line_rows); i++) {
		row_begin("chunk_line", i, chunk_line_rows[i].in,
		    strlen(chunk_line_rows[i].in));
		row_run(chunk_line_row, &chunk_line_rows[i]);
	}
	rows_done("chunk_line");

	/* One byte over the line limit, CRLF not yet there: refused. */
	memset(big, 'a', sizeof(big));
	big[0] = '1';
	big[1] = ';';
	in = evbuffer_new();
	out = evbuffer_new();
	assert_non_null(in);
	assert_non_null(out);
	assert_int_equal(evbuffer_add(in, big, HTTPMSG_CHUNK_LINE_MAX + 1), 0);
	assert_int_equal(httpmsg_relay_body(&b, in, out), 0);
	assert_int_equal(evbuffer_add(in, "a", 1), 0);
	assert_int_equal(httpmsg_relay_body(&b, in, out), -1);
	assert_int_equal(evbuffer_get_length(out), 0);
	evbuffer_free(in);
	evbuffer_free(out);
}

static void
test_relay_body(void **state UNUSED)
{
	size_t i;

	for (i = 0; i < NELEM(relay_rows); i++) {
		row_begin("relay_body", i, relay_rows[i].in,
		    strlen(relay_rows[i].in));
		row_run(relay_row, &relay_rows[i]);
	}
	rows_done("relay_body");
}

/* ---------------------------------------------------------------- */
/* socksmsg_greeting: no-auth when offered, what to drain. */

static const struct greeting_row {
	const char	*in;
	size_t		 len;
	int		 rv;
	size_t		 used;
} greeting_rows[] = {
	{ "", 0, SOCKSMSG_MORE, 0 },
	{ "\x05", 1, SOCKSMSG_MORE, 0 },
	{ "\x05\x01", 2, SOCKSMSG_MORE, 0 },
	{ "\x05\x01\x00", 3, SOCKS_NO_AUTH, 3 },
	{ "\x05\x02\x02\x00", 4, SOCKS_NO_AUTH, 4 },
	{ "\x05\x01\x02", 3, SOCKS_NO_METHOD, 3 },
	{ "\x05\x00", 2, SOCKS_NO_METHOD, 2 },
	/* The broker's (SOCKS_HOLD) with no-auth, and alone. */
	{ "\x05\x02\x8a\x00", 4, SOCKS_NO_AUTH, 4 },
	{ "\x05\x01\x8a", 3, SOCKS_NO_METHOD, 3 },
	/* X'8A' after the greeting is not offered by it. */
	{ "\x05\x01\x00\x8a", 4, SOCKS_NO_AUTH, 3 },
	/* Pipelined: the request after it is not the greeting's. */
	{ "\x05\x01\x00\x05\x01\x00\x01", 7, SOCKS_NO_AUTH, 3 },
};

static void
greeting_row(const void *p)
{
	const struct greeting_row *r = p;
	size_t used = 99;
	int rv = socksmsg_greeting((const uint8_t *)r->in, r->len, &used);

	CHECK(rv == r->rv, "greeting %d, want %d", rv, r->rv);
	CHECK(used == r->used, "used %zu, want %zu", used, r->used);
	/* The broker's method is offered only where its byte is a method. */
	CHECK(socksmsg_offers((const uint8_t *)r->in, used, SOCKS_HOLD) ==
	    (rv != SOCKSMSG_MORE && memchr(r->in + 2, SOCKS_HOLD, used - 2) !=
	    NULL), "hold offered wrongly");
}

static void
test_socks_greeting(void **state UNUSED)
{
	size_t i;

	for (i = 0; i < NELEM(greeting_rows); i++) {
		row_begin("socks_greeting", i, greeting_rows[i].in,
		    greeting_rows[i].len);
		row_run(greeting_row, &greeting_rows[i]);
	}
	rows_done("socks_greeting");
}

/* ---------------------------------------------------------------- */
/* socksmsg_request: the target, the reply, and what to drain. */

static const struct request_row {
	const char		*in;
	size_t			 len;
	int			 rv;
	size_t			 used;
	const char		*host;		/* SOCKS_REP_OK */
	uint16_t		 port;
	bool			 is_addr;
	enum egress_reason	 reason;	/* otherwise */
} request_rows[] = {
	{ "\x05\x01\x00\x01\x7f\x00\x00\x01\x1f\x90", 10, SOCKS_REP_OK, 10,
	    "127.0.0.1", 8080, true, EGRESS_R_NONE },
	{ "\x05\x01\x00\x03\x0b" "example.com" "\x01\xbb", 18, SOCKS_REP_OK,
	    18, "example.com", 443, false, EGRESS_R_NONE },
	/* A name is normalized; a numeric spelling is the address. */
	{ "\x05\x01\x00\x03\x0c" "Example.COM." "\x00\x50", 19, SOCKS_REP_OK,
	    19, "example.com", 80, false, EGRESS_R_NONE },
	{ "\x05\x01\x00\x03\x0a" "2130706433" "\x00\x50", 17, SOCKS_REP_OK,
	    17, "127.0.0.1", 80, true, EGRESS_R_NONE },
	{ "\x05\x01\x00\x04\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00"
	    "\x00\x00\x00\x01\x00\x16", 22, SOCKS_REP_OK, 22, "2001:db8::1",
	    22, true, EGRESS_R_NONE },
	/* Bytes after the request are not its own. */
	{ "\x05\x01\x00\x01\x0a\x00\x00\x01\x00\x50GET", 13, SOCKS_REP_OK, 10,
	    "10.0.0.1", 80, true, EGRESS_R_NONE },
	/* Not all there yet, at every cut of an IPv4 and a name request. */
	{ "\x05\x01\x00", 3, SOCKSMSG_MORE, 0, NULL, 0, false, EGRESS_R_NONE },
	{ "\x05\x01\x00\x01\x7f\x00\x00\x01\x1f", 9, SOCKSMSG_MORE, 0, NULL, 0,
	    false, EGRESS_R_NONE },
	{ "\x05\x01\x00\x03", 4, SOCKSMSG_MORE, 0, NULL, 0, false,
	    EGRESS_R_NONE },
	{ "\x05\x01\x00\x03\x0b" "example.co", 15, SOCKSMSG_MORE, 0, NULL, 0,
	    false, EGRESS_R_NONE },
	/* Refusals. */
	{ "\x05\x02\x00\x01\x7f\x00\x00\x01\x1f\x90", 10,
	    SOCKS_REP_CMD_UNSUPPORTED, 10, NULL, 0, false,
	    EGRESS_R_UNSUPPORTED_COMMAND },
	{ "\x05\x03\x00\x01", 4, SOCKS_REP_CMD_UNSUPPORTED, 4, NULL, 0, false,
	    EGRESS_R_UNSUPPORTED_COMMAND },
	{ "\x05\x01\x00\x02\x00\x00", 6, SOCKS_REP_ATYP_UNSUPPORTED, 6, NULL,
	    0, false, EGRESS_R_INVALID_REQUEST },
	{ "\x05\x01\x00\x01\x7f\x00\x00\x01\x00\x00", 10,
	    SOCKS_REP_NOT_ALLOWED, 10, NULL, 0, false,
	    EGRESS_R_INVALID_TARGET },
	{ "\x05\x01\x00\x03\x03" "a b" "\x00\x50", 10, SOCKS_REP_NOT_ALLOWED,
	    10, NULL, 0, false, EGRESS_R_INVALID_TARGET },
	{ "\x05\x01\x00\x03\x00" "\x00\x50", 7, SOCKS_REP_NOT_ALLOWED, 7,
	    NULL, 0, false, EGRESS_R_INVALID_TARGET },
	{ "\x04\x01\x00\x50\x7f\x00\x00\x01", 8, SOCKSMSG_CLOSE, 0, NULL, 0,
	    false, EGRESS_R_INVALID_REQUEST },
};

static void
request_row(const void *p)
{
	const struct request_row *r = p;
	struct socksmsg_req req;
	size_t used = 99;
	int rv;

	rv = socksmsg_request((const uint8_t *)r->in, r->len, &req, &used);
	CHECK(rv == r->rv, "request %d, want %d", rv, r->rv);
	CHECK(used == r->used, "used %zu, want %zu", used, r->used);
	if (rv == SOCKS_REP_OK) {
		CHECK(strcmp(req.target.host, r->host) == 0, "host '%s', "
		    "want '%s'", req.target.host, r->host);
		CHECK(req.target.port == r->port, "port %u, want %u",
		    req.target.port, r->port);
		CHECK(req.target.is_addr == r->is_addr, "is_addr %d",
		    req.target.is_addr);
	} else if (rv != SOCKSMSG_MORE) {
		CHECK(req.reason == r->reason, "reason %s, want %s",
		    egress_reason_name(req.reason),
		    egress_reason_name(r->reason));
		CHECK(req.target.port == 0 && req.target.host[0] == '\0',
		    "a refusal carries no target");
	}
}

static void
test_socks_request(void **state UNUSED)
{
	size_t i;

	for (i = 0; i < NELEM(request_rows); i++) {
		row_begin("socks_request", i, request_rows[i].in,
		    request_rows[i].len);
		row_run(request_row, &request_rows[i]);
	}
	rows_done("socks_request");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head_end),
		cmocka_unit_test(test_head_scan_linear),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_too_many),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_value_has),
		cmocka_unit_test(test_framing),
		cmocka_unit_test(test_relay_body),
		cmocka_unit_test(test_body_data),
		cmocka_unit_test(test_chunk_line),
		cmocka_unit_test(test_socks_greeting),
		cmocka_unit_test(test_socks_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
