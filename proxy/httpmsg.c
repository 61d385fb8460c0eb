/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP/1.x message heads and body framing, as pure functions over bytes
 * and evbuffers: no sockets here.  Strict where leniency could let a
 * request mean one thing to us and another to the origin.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proxy/httpmsg.h"

static bool
is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != 0 && strchr("!#$%&'*+-.^_`|~",
	    c) != NULL);
}

uint64_t httpmsg_head_examined;

/*
 * The end of the head (after its empty line), or 0 if not there yet.  The
 * same definition as httpmsg_parse's: lines end at LF, a CR before it is
 * dropped, and the first empty line ends the head ("\n\n" or "\n\r\n").
 * Only the first limit + 4 bytes are looked at.  This one searches from
 * the start: for when the buffer cannot be made contiguous.
 */
static size_t
head_end_search(struct evbuffer *in, size_t len)
{
	struct evbuffer_ptr lf, crlf;
	size_t end = 0;

	lf = evbuffer_search(in, "\n\n", 2, NULL);
	crlf = evbuffer_search(in, "\n\r\n", 3, NULL);
	if (lf.pos != -1 && (size_t)lf.pos + 2 <= len)
		end = lf.pos + 2;
	if (crlf.pos != -1 && (size_t)crlf.pos + 3 <= len &&
	    (end == 0 || (size_t)crlf.pos + 3 < end))
		end = crlf.pos + 3;
	return end;
}

/*
 * The first LF at or after s->pos followed by LF or CRLF within len: the
 * offset past it, or 0 with s->pos left at the first byte not yet ruled
 * out (an LF whose next bytes have not come yet).  Each byte is looked at
 * once however the head is cut, but for the one or two after a pending LF.
 */
static size_t
head_end_resume(const unsigned char *b, size_t len, struct httpmsg_scan *s)
{
	const unsigned char *nl;
	size_t p = s->pos, end = 0;

	while (p < len) {
		if ((nl = memchr(b + p, '\n', len - p)) == NULL) {
			p = len;
			break;
		}
		p = (size_t)(nl - b);
		if (p + 1 >= len)
			break;			/* the next byte decides */
		if (b[p + 1] == '\n') {
			end = p + 2;
			break;
		}
		if (b[p + 1] == '\r') {
			if (p + 2 >= len)
				break;
			if (b[p + 2] == '\n') {
				end = p + 3;
				break;
			}
		}
		p++;
	}
	httpmsg_head_examined += (end != 0 ? end : len) - s->pos;
	s->pos = p;
	return end;
}

size_t
httpmsg_head_scan(struct evbuffer *in, size_t limit, struct httpmsg_scan *s)
{
	size_t len = evbuffer_get_length(in);
	const unsigned char *b;

	if (len > limit + 4)
		len = limit + 4;
	if (s->pos > len)
		s->pos = 0;	/* not the bytes it was kept for */
	if (len == 0)
		return 0;
	/*
	 * Contiguous at amortized linear cost: the chain pullup makes is
	 * sized in powers of two, and later reads land in its free space.
	 */
	if ((b = evbuffer_pullup(in, (ev_ssize_t)len)) == NULL)
		return head_end_search(in, len);
	return head_end_resume(b, len, s);
}

size_t
httpmsg_head_end(struct evbuffer *in, size_t limit)
{
	struct httpmsg_scan s = { 0 };

	return httpmsg_head_scan(in, limit, &s);
}

/* A response's status code: "HTTP/1.x NNN[ reason]", 100-999, or -1. */
int
httpmsg_status(const struct httpmsg *m)
{
	const char *s = m->start;

	if (m->slen < 12 || strncmp(s, "HTTP/1.", 7) != 0 ||
	    (s[7] != '0' && s[7] != '1') || s[8] != ' ' ||
	    s[9] < '1' || s[9] > '9' || s[10] < '0' || s[10] > '9' ||
	    s[11] < '0' || s[11] > '9' || (m->slen > 12 && s[12] != ' '))
		return -1;
	return (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
}

/* One line from *p, without its CRLF or LF; -1 on a bare CR or NUL. */
static int
next_line(char **p, char *end, char **line, size_t *len)
{
	char *s = *p, *nl = memchr(s, '\n', end - s);
	size_t n;

	if (nl == NULL)
		nl = end;
	n = nl - s;
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (memchr(s, '\0', n) != NULL || memchr(s, '\r', n) != NULL)
		return -1;
	*line = s;
	*len = n;
	*p = nl < end ? nl + 1 : end;
	return 0;
}

static int
parse_header(char *s, size_t len, struct httpmsg_header *h)
{
	char *colon = memchr(s, ':', len);
	size_t i;

	if (colon == NULL || colon == s)
		return -1;
	for (i = 0; s + i < colon; i++)
		if (!is_tchar((unsigned char)s[i]))
			return -1;	/* also space before the colon */
	h->name = s;
	h->nlen = colon - s;
	h->value = colon + 1;
	h->vlen = s + len - h->value;
	while (h->vlen > 0 && (*h->value == ' ' || *h->value == '\t')) {
		h->value++;
		h->vlen--;
	}
	while (h->vlen > 0 && (h->value[h->vlen - 1] == ' ' ||
	    h->value[h->vlen - 1] == '\t'))
		h->vlen--;
	return 0;
}

int
httpmsg_parse(char *buf, size_t len, struct httpmsg *m)
{
	char *p = buf, *end = buf + len, *line;
	size_t n;

	memset(m, 0, sizeof(*m));
	/* Empty lines before the start line are ignored (RFC 9112 2.2). */
	do {
		if (p == end || next_line(&p, end, &line, &n) == -1)
			return HTTPMSG_BAD;
	} while (n == 0);
	m->start = line;
	m->slen = n;
	while (p < end) {
		if (next_line(&p, end, &line, &n) == -1)
			return HTTPMSG_BAD;
		if (n == 0)
			break;
		if (line[0] == ' ' || line[0] == '\t')
			return HTTPMSG_BAD;	/* obsolete line folding */
		if (m->nheaders == HTTPMSG_MAX_HEADERS)
			return HTTPMSG_TOO_BIG;
		if (parse_header(line, n, &m->headers[m->nheaders]) == -1)
			return HTTPMSG_BAD;
		m->nheaders++;
	}
	return HTTPMSG_OK;
}

bool
httpmsg_name_is(const struct httpmsg_header *h, const char *name)
{
	return h->nlen == strlen(name) &&
	    strncasecmp(h->name, name, h->nlen) == 0;
}

/* Does the comma-separated value hold token (case-insensitive)? */
bool
httpmsg_value_has(const char *v, size_t len, const char *token)
{
	size_t tl = strlen(token), i = 0, start, e;

	while (i < len) {
		while (i < len && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		start = i;
		while (i < len && v[i] != ',')
			i++;
		e = i;
		while (e > start && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - start == tl && strncasecmp(v + start, token, tl) == 0)
			return true;
	}
	return false;
}

/*
 * Content-Length and Transfer-Encoding (RFC 9112 6): both, two lengths,
 * a length that is not a number, or a coding other than chunked alone,
 * is an error: those are the shapes of request smuggling.
 */
int
httpmsg_framing(const struct httpmsg *m, struct httpmsg_body *b)
{
	const struct httpmsg_header *h;
	size_t i, k;
	int ncl = 0, nte = 0;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < m->nheaders; i++) {
		h = &m->headers[i];
		if (httpmsg_name_is(h, "Content-Length")) {
			if (++ncl > 1 || h->vlen == 0 || h->vlen > 18)
				return -1;
			for (k = 0; k < h->vlen; k++) {
				if (h->value[k] < '0' || h->value[k] > '9')
					return -1;
				b->remaining = b->remaining * 10 +
				    (h->value[k] - '0');
			}
			b->kind = BODY_LENGTH;
		} else if (httpmsg_name_is(h, "Transfer-Encoding")) {
			if (++nte > 1 || h->vlen != 7 ||
			    strncasecmp(h->value, "chunked", 7) != 0)
				return -1;
			b->kind = BODY_CHUNKED;
		}
	}
	if (ncl > 0 && nte > 0)
		return -1;
	return 0;
}

static int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

static size_t
skip_ows(const unsigned char *s, size_t i, size_t len)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static size_t
skip_token(const unsigned char *s, size_t i, size_t len)
{
	while (i < len && is_tchar(s[i]))
		i++;
	return i;
}

/*
 * A quoted-string from s[i] (the opening quote): the offset after its
 * closing quote, or 0 (RFC 9110 5.6.4).  No control character but HTAB.
 */
static size_t
skip_quoted(const unsigned char *s, size_t i, size_t len)
{
	for (i++; i < len; i++) {
		if (s[i] == '"')
			return i + 1;
		if (s[i] == '\\' && ++i == len)
			return 0;
		if ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
			return 0;
	}
	return 0;
}

/*
 * A chunk line without its CRLF (RFC 9112 7.1): chunk-size, then only
 * chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] ).
 * Nothing else: not "5 zz", not a CR, LF or other control character
 * anywhere, not a space after the last extension.  -1 when it is not one.
 */
int
httpmsg_chunk_line(const unsigned char *s, size_t len, uint64_t *size)
{
	uint64_t v = 0;
	size_t i, j;
	int d;

	for (i = 0; i < len && (d = hex_value(s[i])) != -1; i++) {
		if (v > (UINT64_MAX >> 4))
			return -1;
		v = v << 4 | (unsigned)d;
	}
	if (i == 0)
		return -1;
	while (i < len) {
		i = skip_ows(s, i, len);
		if (i == len || s[i] != ';')
			return -1;
		i = skip_ows(s, i + 1, len);
		if ((j = skip_token(s, i, len)) == i)
			return -1;
		i = j;
		j = skip_ows(s, i, len);
		if (j == len || s[j] != '=')
			continue;
		i = skip_ows(s, j + 1, len);
		if (i < len && s[i] == '"')
			j = skip_quoted(s, i, len);
		else
			j = skip_token(s, i, len);
		if (j == 0 || j == i)
			return -1;
		i = j;
	}
	*size = v;
	return 0;
}

/*
 * A trailer field line without its CRLF (RFC 9112 7.1.2, 5): a token, a
 * colon, and a value of visible characters, spaces and tabs only.
 */
static int
trailer_line(const unsigned char *s, size_t len)
{
	size_t i = skip_token(s, 0, len);

	if (i == 0 || i == len || s[i] != ':')
		return -1;
	for (i++; i < len; i++)
		if ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
			return -1;
	return 0;
}

/*
 * The next line of in, up to cap bytes before its CRLF: *s points at it
 * (pulled up in place) and *len is its length without the CRLF.  1: there,
 * 0: not all there yet, -1: too long, or its LF has no CR before it.
 * Nothing is taken from in.
 */
static int
peek_line(struct evbuffer *in, size_t cap, const unsigned char **s,
    size_t *len)
{
	struct evbuffer_ptr lf;
	size_t n;

	lf = evbuffer_search_eol(in, NULL, &n, EVBUFFER_EOL_LF);
	/*
	 * Not all there: a line of cap bytes waits for its CR and LF, so
	 * cap + 1 bytes are not yet too many.  Where a body ends must not
	 * depend on where TCP cut it.
	 */
	if (lf.pos == -1)
		return evbuffer_get_length(in) > cap + 1 ? -1 : 0;
	if (lf.pos == 0 || (size_t)lf.pos > cap + 1)
		return -1;
	if ((*s = evbuffer_pullup(in, lf.pos + 1)) == NULL ||
	    (*s)[lf.pos - 1] != '\r')
		return -1;
	*len = (size_t)lf.pos - 1;
	return 1;
}

/* Move a line checked by peek_line, with its CRLF, from in to out. */
static int
move_line(struct evbuffer *in, struct evbuffer *out, size_t len)
{
	return evbuffer_remove_buffer(in, out, len + 2) == (int)(len + 2) ?
	    0 : -1;
}

/* The CRLF after a chunk's data: 1 moved, 0 not all there, -1 not it. */
static int
move_crlf(struct evbuffer *in, struct evbuffer *out)
{
	unsigned char b[2];
	ev_ssize_t n = evbuffer_copyout(in, b, sizeof(b));

	if (n < 1)
		return 0;
	if (b[0] != '\r' || (n == 2 && b[1] != '\n'))
		return -1;
	if (n < 2)
		return 0;
	return move_line(in, out, 0) == 0 ? 1 : -1;
}

uint64_t
httpmsg_body_data(const struct httpmsg_body *b)
{
	switch (b->kind) {
	case BODY_LENGTH:
	case BODY_CHUNK_DATA:
		return b->remaining;
	case BODY_UNTIL_CLOSE:
		return UINT64_MAX;
	default:
		return 0;
	}
}

/*
 * Only the count goes down: httpmsg_relay_body, called next, sees a body
 * or chunk with nothing left and goes on from there (the end, or the CRLF
 * after a chunk's data).
 */
void
httpmsg_body_moved(struct httpmsg_body *b, uint64_t n)
{
	if (b->kind == BODY_LENGTH || b->kind == BODY_CHUNK_DATA)
		b->remaining -= n < b->remaining ? n : b->remaining;
}

/*
 * Move body bytes from in to out as the framing allows, checking every
 * chunk line, chunk end and trailer line before any of it is moved: a
 * line that fails its check is not relayed, not even in part.  Returns
 * 1 when the body is complete, 0 when more is needed, -1 on a framing
 * error.
 */
int
httpmsg_relay_body(struct httpmsg_body *b, struct evbuffer *in,
    struct evbuffer *out)
{
	const unsigned char *line;
	size_t n, len;
	int rv;

	for (;;) {
		switch (b->kind) {
		case BODY_NONE:
			return 1;
		case BODY_UNTIL_CLOSE:
			return evbuffer_add_buffer(out, in) == 0 ? 0 : -1;
		case BODY_LENGTH:
		case BODY_CHUNK_DATA:
			n = evbuffer_get_length(in);
			if (n > b->remaining)
				n = b->remaining;
			if (n > 0 && evbuffer_remove_buffer(in, out, n) == -1)
				return -1;
			b->remaining -= n;
			if (b->remaining > 0)
				return 0;
			if (b->kind == BODY_LENGTH)
				return 1;
			b->kind = BODY_CHUNK_END;
			break;
		case BODY_CHUNKED:
			if ((rv = peek_line(in, HTTPMSG_CHUNK_LINE_MAX, &line,
			    &len)) != 1)
				return rv;
			if (httpmsg_chunk_line(line, len,
			    &b->remaining) == -1 ||
			    move_line(in, out, len) == -1)
				return -1;
			b->kind = b->remaining ? BODY_CHUNK_DATA :
			    BODY_TRAILER;
			break;
		case BODY_CHUNK_END:
			if ((rv = move_crlf(in, out)) != 1)
				return rv;
			b->kind = BODY_CHUNKED;
			break;
		case BODY_TRAILER:
			if ((rv = peek_line(in, HTTPMSG_CHUNK_LINE_MAX, &line,
			    &len)) != 1)
				return rv;
			if ((len > 0 && trailer_line(line, len) == -1) ||
			    move_line(in, out, len) == -1)
				return -1;
			if (len == 0)
				return 1;
			break;
		}
	}
}
