/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_httpmsg: libFuzzer on HTTP/1.x heads and body framing
 * (proxy/httpmsg.c).  The input is what a peer sends: a head, then body
 * bytes.  Beyond not crashing: the head ends where a plain scan says it
 * does, a parsed head points only into its own bytes, the framing refuses
 * the shapes of request smuggling, and relaying a body moves bytes
 * unchanged, as far as its framing says, however they are split.  A
 * chunked body is held to a reference of its own (RFC 9112 7.1's grammar
 * as regular expressions): the relay moves exactly the bytes the
 * reference accepts, stops where it does, and never moves any byte of a
 * chunk, chunk-end or trailer line that is not one.  And so does the
 * proxy's fast path (forward.c): bytes the framing vouches for
 * (httpmsg_body_data) moved as they arrive without the relay, then
 * accounted (httpmsg_body_moved), the relay going on from there.
 * Built by `make fuzz-httpmsg`, not by make check.
 */
#include <ctype.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>

#include "proxy/httpmsg.h"
#include "tests/fuzz.h"


static struct evbuffer *
buffer_of(const uint8_t *b, size_t len)
{
	struct evbuffer *e;

	if ((e = evbuffer_new()) == NULL || evbuffer_add(e, b, len) == -1)
		abort();
	return e;
}

/* The first empty line's end, by the plain definition, or 0. */
static size_t
head_end_ref(const uint8_t *b, size_t len)
{
	size_t e;

	for (e = 2; e <= len; e++) {
		if (b[e - 2] == '\n' && b[e - 1] == '\n')
			return e;
		if (e >= 3 && b[e - 3] == '\n' && b[e - 2] == '\r' &&
		    b[e - 1] == '\n')
			return e;
	}
	return 0;
}

/*
 * The same bytes arriving in pieces (lengths from the input's own bytes,
 * 1-8): the resumed search answers as a fresh one after every piece.
 */
static void
check_head_scan(const uint8_t *b, size_t len, size_t limit, size_t whole)
{
	struct evbuffer *in = evbuffer_new();
	struct httpmsg_scan sc = { 0 };
	size_t i, n, got = 0;

	if (in == NULL)
		abort();
	for (i = 0; i < len; i += n) {
		n = 1 + b[i] % 8;
		if (n > len - i)
			n = len - i;
		if (evbuffer_add(in, b + i, n) == -1)
			abort();
		got = httpmsg_head_scan(in, limit, &sc);
		CHECK(got == httpmsg_head_end(in, limit));
	}
	CHECK(got == whole);
	evbuffer_free(in);
}

static size_t
check_head_end(const uint8_t *b, size_t len, size_t limit)
{
	struct evbuffer *in = buffer_of(b, len);
	size_t n, within = len < limit + 4 ? len : limit + 4;

	n = httpmsg_head_end(in, limit);
	CHECK(n == head_end_ref(b, within));
	CHECK(evbuffer_get_length(in) == len);	/* only looked at */
	evbuffer_free(in);
	check_head_scan(b, len, limit, n);
	return n;
}

static bool
inside(const char *p, size_t n, const char *buf, size_t len)
{
	return p >= buf && p <= buf + len && n <= (size_t)(buf + len - p);
}

static bool
is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != 0 &&
	    strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static bool
has_ctl(const char *s, size_t n)
{
	return memchr(s, '\r', n) || memchr(s, '\n', n) || memchr(s, '\0', n);
}

static void
check_parsed(const struct httpmsg *m, const char *buf, size_t len)
{
	const struct httpmsg_header *h;
	size_t i, k;
	int st;

	CHECK(m->nheaders <= HTTPMSG_MAX_HEADERS);
	CHECK(m->slen > 0 && inside(m->start, m->slen, buf, len));
	CHECK(!has_ctl(m->start, m->slen));
	for (i = 0; i < m->nheaders; i++) {
		h = &m->headers[i];
		CHECK(h->nlen > 0 && inside(h->name, h->nlen, buf, len));
		CHECK(inside(h->value, h->vlen, buf, len));
		CHECK(h->name + h->nlen < h->value);	/* the colon between */
		for (k = 0; k < h->nlen; k++)
			CHECK(is_tchar((unsigned char)h->name[k]));
		CHECK(!has_ctl(h->value, h->vlen));
		CHECK(h->vlen == 0 || (h->value[0] != ' ' &&
		    h->value[0] != '\t' && h->value[h->vlen - 1] != ' ' &&
		    h->value[h->vlen - 1] != '\t'));
	}
	st = httpmsg_status(m);
	CHECK(st == -1 || (st >= 100 && st <= 999));
	if (st != -1)
		CHECK(m->slen >= 12 && memcmp(m->start, "HTTP/1.", 7) == 0 &&
		    st == (m->start[9] - '0') * 100 +
		    (m->start[10] - '0') * 10 + (m->start[11] - '0'));
}

static bool
named(const struct httpmsg_header *h, const char *name)
{
	return h->nlen == strlen(name) &&
	    strncasecmp(h->name, name, h->nlen) == 0;
}

/* Framing as RFC 9112 6 has it, with smuggling shapes refused. */
static void
check_framing(const struct httpmsg *m, int rv, const struct httpmsg_body *b)
{
	const struct httpmsg_header *h, *cl = NULL, *te = NULL;
	size_t i, k, ncl = 0, nte = 0;
	uint64_t v = 0;

	for (i = 0; i < m->nheaders; i++) {
		h = &m->headers[i];
		if (named(h, "content-length")) {
			ncl++;
			cl = h;
		} else if (named(h, "transfer-encoding")) {
			nte++;
			te = h;
		}
	}
	if (ncl > 0 && nte > 0)
		CHECK(rv == -1);	/* both: smuggling */
	if (ncl > 1 || nte > 1)
		CHECK(rv == -1);	/* two lengths, or codings */
	if (rv == -1)
		return;
	CHECK(rv == 0);
	if (ncl == 1) {
		CHECK(cl->vlen > 0 && cl->vlen <= 18);
		for (k = 0; k < cl->vlen; k++) {
			CHECK(cl->value[k] >= '0' && cl->value[k] <= '9');
			v = v * 10 + (uint64_t)(cl->value[k] - '0');
		}
		CHECK(b->kind == BODY_LENGTH && b->remaining == v);
	} else if (nte == 1) {
		CHECK(te->vlen == 7 &&
		    strncasecmp(te->value, "chunked", 7) == 0);
		CHECK(b->kind == BODY_CHUNKED);
	} else
		CHECK(b->kind == BODY_NONE && b->remaining == 0);
}

/* One call to the relay, checked; in and out as the proxy has them. */
static int
relay_step(struct httpmsg_body *b, struct evbuffer *in, struct evbuffer *out)
{
	struct httpmsg_body before = *b;
	size_t in0 = evbuffer_get_length(in), out0 = evbuffer_get_length(out);
	size_t moved, want;
	int rv;

	rv = httpmsg_relay_body(b, in, out);
	CHECK(rv >= -1 && rv <= 1);
	CHECK(evbuffer_get_length(in) <= in0);
	moved = in0 - evbuffer_get_length(in);
	CHECK(evbuffer_get_length(out) - out0 == moved);
	switch (before.kind) {
	case BODY_NONE:
		CHECK(rv == 1 && moved == 0);
		break;
	case BODY_LENGTH:
		want = before.remaining < in0 ? before.remaining : in0;
		CHECK(moved == want && b->remaining == before.remaining - want);
		CHECK(rv == (b->remaining == 0 ? 1 : 0));
		break;
	case BODY_UNTIL_CLOSE:
		CHECK(rv == 0 && moved == in0);
		break;
	default:
		break;
	}
	return rv;
}

/*
 * Relay body bytes arriving in two pieces, split at cut: returns the
 * relay's last word and, in *used, the bytes it consumed.  What it wrote
 * must be those bytes unchanged.
 */
static int
relay(const struct httpmsg_body *framing, const uint8_t *body, size_t len,
    size_t cut, size_t *used)
{
	struct httpmsg_body b = *framing;
	struct evbuffer *in, *out;
	size_t added = cut;
	int rv;

	in = buffer_of(body, cut);
	if ((out = evbuffer_new()) == NULL)
		abort();
	rv = relay_step(&b, in, out);
	if (rv == 0 && cut < len) {
		if (evbuffer_add(in, body + cut, len - cut) == -1)
			abort();
		added = len;
		rv = relay_step(&b, in, out);
	}
	*used = added - evbuffer_get_length(in);
	CHECK(evbuffer_get_length(out) == *used);
	CHECK(*used == 0 || memcmp(evbuffer_pullup(out, -1), body,
	    *used) == 0);
	evbuffer_free(in);
	evbuffer_free(out);
	return rv;
}

/*
 * The same bytes, arriving in three pieces, moved as the proxy's fast
 * path moves them: once all that came is relayed, the next piece's first
 * bytes, as many as the framing vouches for (httpmsg_body_data), go
 * straight to out (as splice takes them from the socket), are accounted
 * (httpmsg_body_moved), and the relay takes the rest.  Returns as relay.
 */
static int
relay_fast(const struct httpmsg_body *framing, const uint8_t *body,
    size_t len, size_t *used)
{
	struct httpmsg_body b = *framing;
	struct evbuffer *in, *out;
	size_t cuts[3] = { len / 3, 2 * len / 3, len }, off = 0, k, i;
	uint64_t data;
	int rv = 0;

	in = buffer_of(body, 0);
	if ((out = evbuffer_new()) == NULL)
		abort();
	for (i = 0; i < 3 && rv == 0; i++) {
		data = httpmsg_body_data(&b);
		k = 0;
		if (data > 0 && evbuffer_get_length(in) == 0) {
			k = cuts[i] - off < data ? cuts[i] - off : (size_t)data;
			if (evbuffer_add(out, body + off, k) == -1)
				abort();
			httpmsg_body_moved(&b, k);
			CHECK(data == UINT64_MAX ? httpmsg_body_data(&b) == data :
			    httpmsg_body_data(&b) == data - k);
		}
		if (evbuffer_add(in, body + off + k, cuts[i] - off - k) == -1)
			abort();
		off = cuts[i];
		rv = relay_step(&b, in, out);
	}
	*used = off - evbuffer_get_length(in);
	CHECK(evbuffer_get_length(out) == *used);
	CHECK(*used == 0 || memcmp(evbuffer_pullup(out, -1), body,
	    *used) == 0);
	evbuffer_free(in);
	evbuffer_free(out);
	return rv;
}

/*
 * The chunk-line reference: RFC 9112 7.1 as POSIX extended regular
 * expressions, over bytes (the C locale), written apart from the parser.
 *   chunk-size [ *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted ) ] ) ]
 * A line holding a NUL is no line: regexec could not see past it.
 */
#define RE_TOKEN	"[-!#$%&'*+.^_`|~0-9A-Za-z]+"
#define RE_CTL		"\x01-\x08\x0a-\x1f\x7f"
#define RE_QUOTED	"\"([^\"\\\\" RE_CTL "]|\\\\[^" RE_CTL "])*\""
#define RE_EXT		"[ \t]*;[ \t]*" RE_TOKEN \
			"([ \t]*=[ \t]*(" RE_TOKEN "|" RE_QUOTED "))?"
#define RE_CHUNK	"^[0-9A-Fa-f]+(" RE_EXT ")*$"
#define RE_TRAILER	"^" RE_TOKEN ":[^" RE_CTL "]*$"

static bool
ref_match(const char *pattern, regex_t *re, bool *compiled,
    const uint8_t *s, size_t len)
{
	char buf[HTTPMSG_CHUNK_LINE_MAX + 1];

	if (!*compiled) {
		if (regcomp(re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
			abort();
		*compiled = true;
	}
	if (len > HTTPMSG_CHUNK_LINE_MAX || memchr(s, '\0', len) != NULL)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return regexec(re, buf, 0, NULL, 0) == 0;
}

static bool
ref_chunk_line(const uint8_t *s, size_t len, uint64_t *size)
{
	static regex_t re;
	static bool compiled;
	size_t i;

	if (!ref_match(RE_CHUNK, &re, &compiled, s, len))
		return false;
	*size = 0;
	for (i = 0; i < len && isxdigit(s[i]); i++) {
		if (*size >> 60 != 0)
			return false;	/* past 64 bits */
		*size = *size * 16 + (uint64_t)(isdigit(s[i]) ? s[i] - '0' :
		    (s[i] | 0x20) - 'a' + 10);
	}
	return true;
}

static bool
ref_trailer_line(const uint8_t *s, size_t len)
{
	static regex_t re;
	static bool compiled;

	return ref_match(RE_TRAILER, &re, &compiled, s, len);
}

/*
 * A chunked body by the reference: 1 complete, 0 more needed, -1 not
 * chunked; *moved is how far a relay may go: to the end, or to the start
 * of the line that is missing or at fault (within a chunk's data, to
 * what has come).  A line is ended by CRLF, at most
 * HTTPMSG_CHUNK_LINE_MAX bytes before it.
 */
static int
ref_chunked(const uint8_t *b, size_t len, size_t *moved)
{
	enum { LINE, DATA, END, TRAILER } st = LINE;
	uint64_t left = 0;
	const uint8_t *lf;
	size_t i = 0, n;

	for (;;) {
		*moved = i;
		switch (st) {
		case LINE:
		case TRAILER:
			if ((lf = memchr(b + i, '\n', len - i)) == NULL)
				return len - i > HTTPMSG_CHUNK_LINE_MAX + 1 ?
				    -1 : 0;
			n = (size_t)(lf - (b + i));
			if (n == 0 || b[i + n - 1] != '\r' ||
			    n - 1 > HTTPMSG_CHUNK_LINE_MAX)
				return -1;
			if (st == TRAILER && n == 1) {
				*moved = i + 2;
				return 1;
			}
			if (st == LINE && !ref_chunk_line(b + i, n - 1, &left))
				return -1;
			if (st == TRAILER && !ref_trailer_line(b + i, n - 1))
				return -1;
			i += n + 1;
			if (st == LINE)
				st = left > 0 ? DATA : TRAILER;
			break;
		case DATA:
			n = len - i < left ? len - i : (size_t)left;
			i += n;
			left -= n;
			*moved = i;
			if (left > 0)
				return 0;
			st = END;
			break;
		case END:
			if (i == len)
				return 0;
			if (b[i] != '\r' || (i + 1 < len && b[i + 1] != '\n'))
				return -1;
			if (i + 1 == len)
				return 0;
			i += 2;
			st = LINE;
			break;
		}
	}
}

static void
check_body(const struct httpmsg_body *b, const uint8_t *body, size_t len)
{
	size_t used_all, used_cut, used_fast, cut = len / 2, ref_moved;
	int all, split, fast, ref;

	all = relay(b, body, len, len, &used_all);
	split = relay(b, body, len, cut, &used_cut);
	fast = relay_fast(b, body, len, &used_fast);
	/* The fast path ends where the relay does, with the same bytes. */
	CHECK(fast == all && used_fast == used_all);
	/*
	 * Where a body ends cannot depend on how its bytes were split
	 * (by TCP): a finished or broken body is so either way.  Before
	 * the end a split may leave a line waiting that came whole.
	 */
	if (all == 1 || split == 1)
		CHECK(all == split && used_all == used_cut);
	if (all == -1 || split == -1)
		CHECK(all == split);
	/* Chunked: exactly what the reference accepts, whole or split. */
	if (b->kind == BODY_CHUNKED) {
		ref = ref_chunked(body, len, &ref_moved);
		CHECK(all == ref && used_all == ref_moved);
		CHECK(split == ref && used_cut == ref_moved);
		CHECK(fast == ref && used_fast == ref_moved);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct httpmsg m;
	struct httpmsg_body b;
	size_t n, limit;
	char *head;
	int rv;

	/* A limit the input can reach, and the proxy's default. */
	limit = size > 0 ? data[0] * 4u : 0;
	(void)check_head_end(data, size, limit);
	if ((n = check_head_end(data, size, 65536)) == 0)
		return 0;
	CHECK(n <= size);

	/* Exactly the head's bytes: ASan sees any read past them. */
	if ((head = malloc(n)) == NULL)
		abort();
	memcpy(head, data, n);
	rv = httpmsg_parse(head, n, &m);
	CHECK(rv == HTTPMSG_OK || rv == HTTPMSG_BAD || rv == HTTPMSG_TOO_BIG);
	if (rv == HTTPMSG_OK) {
		check_parsed(&m, head, n);
		rv = httpmsg_framing(&m, &b);
		check_framing(&m, rv, &b);
		if (rv == 0)
			check_body(&b, data + n, size - n);
	}
	free(head);
	return 0;
}
