/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An HTTP/1.x response as the client sees it: where the head ends, the
 * status, and how the body is framed (RFC 9112 6.3), fed however TCP cuts
 * it.  Loadgen's own, not the proxy's parser: the benchmark checks the
 * proxy, so it should not share its mistakes.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bench/loadgen.h"

void
resp_init(struct resp *r, int tunnel)
{
	r->state = RESP_HEAD;
	r->status = 0;
	r->close = 0;
	r->tunnel = tunnel;
	r->left = 0;
	r->body = 0;
	r->len = 0;
}

/* value (len n) holds token as a comma-separated element. */
static int
has_token(const char *v, size_t n, const char *token)
{
	size_t tl = strlen(token), i = 0, s, e;

	while (i < n) {
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - s == tl && strncasecmp(v + s, token, tl) == 0)
			return 1;
	}
	return 0;
}

static int
parse_u64(const char *v, size_t n, int base, uint64_t *out)
{
	uint64_t x = 0;
	size_t i;
	int d;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (isdigit((unsigned char)v[i]))
			d = v[i] - '0';
		else if (base == 16 && isxdigit((unsigned char)v[i]))
			d = tolower((unsigned char)v[i]) - 'a' + 10;
		else
			return -1;
		if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	*out = x;
	return 0;
}

struct head_info {
	int		 http10, keepalive, chunked, has_len;
	uint64_t	 len;
};

/* One header line (no line end); -1 when its framing is unusable. */
static int
head_field(struct head_info *h, const char *l, size_t n, struct resp *r)
{
	const char *colon = memchr(l, ':', n), *v;
	size_t nl, vn;
	uint64_t len;

	if (colon == NULL)
		return -1;
	nl = (size_t)(colon - l);
	v = colon + 1;
	vn = n - nl - 1;
	while (vn > 0 && (*v == ' ' || *v == '\t'))
		v++, vn--;
	while (vn > 0 && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
		vn--;
	if (nl == 14 && strncasecmp(l, "content-length", nl) == 0) {
		if (parse_u64(v, vn, 10, &len) == -1 ||
		    (h->has_len && len != h->len))
			return -1;
		h->has_len = 1;
		h->len = len;
	} else if (nl == 17 && strncasecmp(l, "transfer-encoding", nl) == 0) {
		/* Only chunked as the last coding frames a response. */
		h->chunked = vn >= 7 &&
		    strncasecmp(v + vn - 7, "chunked", 7) == 0;
	} else if (nl == 10 && strncasecmp(l, "connection", nl) == 0) {
		if (has_token(v, vn, "close"))
			r->close = 1;
		if (has_token(v, vn, "keep-alive"))
			h->keepalive = 1;
	}
	return 0;
}

/* "HTTP/1.x NNN ..."; -1 if not a status line. */
static int
status_line(struct head_info *h, const char *l, size_t n)
{
	int st;

	if (n < 12 || strncmp(l, "HTTP/1.", 7) != 0 ||
	    (l[7] != '0' && l[7] != '1') || l[8] != ' ' ||
	    !isdigit((unsigned char)l[9]) || !isdigit((unsigned char)l[10]) ||
	    !isdigit((unsigned char)l[11]) || (n > 12 && l[12] != ' '))
		return -1;
	h->http10 = l[7] == '0';
	st = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
	return st < 100 ? -1 : st;
}

/* The whole head is in r->line: the status and the body's framing. */
static void
head_done(struct resp *r)
{
	struct head_info h = { 0, 0, 0, 0, 0 };
	const char *p = r->line, *end = r->line + r->len, *nl;
	size_t n;
	int st = -1, first = 1;

	r->close = 0;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			break;
		n = (size_t)(nl - p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n == 0)
			break;
		if (first) {
			st = status_line(&h, p, n);
			first = 0;
			if (st == -1)
				break;
		} else if (head_field(&h, p, n, r) == -1) {
			st = -1;
			break;
		}
	}
	r->len = 0;
	if (st == -1) {
		r->state = RESP_ERROR;
		return;
	}
	if (st < 200) {		/* 1xx: interim, the final one follows */
		r->close = 0;
		return;
	}
	r->status = st;
	if (h.http10 && !h.keepalive)
		r->close = 1;
	if ((r->tunnel && st < 300) || st == 204 || st == 304)
		r->state = RESP_DONE;
	else if (h.chunked)
		r->state = RESP_CHUNK_LINE;
	else if (h.has_len) {
		r->left = h.len;
		r->state = h.len ? RESP_BODY_LENGTH : RESP_DONE;
	} else {
		r->close = 1;
		r->state = RESP_UNTIL_CLOSE;
	}
}

/* Head bytes: up to and including the empty line, or all of them. */
static size_t
feed_head(struct resp *r, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (r->len == RESP_HEAD_MAX) {
			r->state = RESP_ERROR;
			return i;
		}
		r->line[r->len++] = p[i];
		if (p[i] != '\n')
			continue;
		/* An empty line ("\n" or "\r\n") ends the head. */
		if (r->len == 1 ||
		    (r->len >= 2 && r->line[r->len - 2] == '\n') ||
		    (r->len >= 3 && r->line[r->len - 2] == '\r' &&
		    r->line[r->len - 3] == '\n')) {
			head_done(r);
			if (r->state != RESP_HEAD)
				return i + 1;
		}
	}
	return n;
}

/* A line of the chunked framing (size line, trailer) into r->line;
 * returns bytes used and sets *whole when the line is complete. */
static size_t
feed_line(struct resp *r, const char *p, size_t n, int *whole)
{
	const char *nl = memchr(p, '\n', n);
	size_t take = nl ? (size_t)(nl - p) + 1 : n;

	*whole = 0;
	if (r->len + take > 1024) {	/* no chunk line is this long */
		r->state = RESP_ERROR;
		return 0;
	}
	memcpy(r->line + r->len, p, take);
	r->len += (uint32_t)take;
	if (nl == NULL)
		return take;
	r->len--;
	if (r->len > 0 && r->line[r->len - 1] == '\r')
		r->len--;
	*whole = 1;
	return take;
}

static void
chunk_line_done(struct resp *r)
{
	size_t n = r->len;
	const char *semi = memchr(r->line, ';', n);
	uint64_t size;

	if (semi != NULL)
		n = (size_t)(semi - r->line);
	while (n > 0 && (r->line[n - 1] == ' ' || r->line[n - 1] == '\t'))
		n--;
	r->len = 0;
	if (parse_u64(r->line, n, 16, &size) == -1) {
		r->state = RESP_ERROR;
		return;
	}
	r->left = size;
	r->state = size ? RESP_CHUNK_DATA : RESP_TRAILER;
}

/* Body bytes (of a length or a chunk): counted, not kept. */
static size_t
feed_body(struct resp *r, size_t n)
{
	size_t take = n < r->left ? n : (size_t)r->left;

	r->left -= take;
	r->body += take;
	if (r->left == 0)
		r->state = r->state == RESP_BODY_LENGTH ? RESP_DONE :
		    RESP_CHUNK_CRLF;
	return take;
}

size_t
resp_feed(struct resp *r, const char *p, size_t n)
{
	size_t used = 0;
	int whole;

	while (used < n) {
		switch (r->state) {
		case RESP_HEAD:
			used += feed_head(r, p + used, n - used);
			break;
		case RESP_BODY_LENGTH:
		case RESP_CHUNK_DATA:
			used += feed_body(r, n - used);
			break;
		case RESP_UNTIL_CLOSE:
			r->body += n - used;
			used = n;
			break;
		case RESP_CHUNK_LINE:
		case RESP_CHUNK_CRLF:
		case RESP_TRAILER:
			used += feed_line(r, p + used, n - used, &whole);
			if (r->state == RESP_ERROR || !whole)
				break;
			if (r->state == RESP_CHUNK_LINE)
				chunk_line_done(r);
			else if (r->state == RESP_CHUNK_CRLF) {
				/* After chunk data: an empty line. */
				r->state = r->len ? RESP_ERROR :
				    RESP_CHUNK_LINE;
			} else if (r->len == 0)
				r->state = RESP_DONE;
			r->len = 0;
			break;
		case RESP_DONE:
		case RESP_ERROR:
			return used;
		}
	}
	return used;
}

int
resp_eof(struct resp *r)
{
	if (r->state == RESP_UNTIL_CLOSE)
		r->state = RESP_DONE;
	return r->state == RESP_DONE;
}
