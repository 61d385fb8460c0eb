/* SPDX-License-Identifier: Apache-2.0 */
/* HTTP/1.x heads and body framing, without sockets.  Internal to proxy/. */
#ifndef PROXY_HTTPMSG_H
#define PROXY_HTTPMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/buffer.h>

#define HTTPMSG_MAX_HEADERS	128
#define HTTPMSG_CHUNK_LINE_MAX	1024	/* a chunk or trailer line's bytes */

enum {
	HTTPMSG_OK = 0,
	HTTPMSG_BAD = -1,	/* malformed */
	HTTPMSG_TOO_BIG = -2	/* too many header lines */
};

struct httpmsg_header {
	char	*name, *value;	/* into the head's buffer, not terminated */
	size_t	 nlen, vlen;
};

struct httpmsg {
	char			*start;		/* request or status line */
	size_t			 slen;
	struct httpmsg_header	 headers[HTTPMSG_MAX_HEADERS];
	size_t			 nheaders;
};

enum body_kind {
	BODY_NONE,
	BODY_LENGTH,
	BODY_CHUNKED,		/* at a chunk-size line */
	BODY_CHUNK_DATA,
	BODY_CHUNK_END,		/* the CRLF after a chunk's data */
	BODY_TRAILER,
	BODY_UNTIL_CLOSE
};

struct httpmsg_body {
	enum body_kind	 kind;
	uint64_t	 remaining;
};

/* Offset just past the head's empty line in in, or 0 if not yet there. */
size_t	 httpmsg_head_end(struct evbuffer *in, size_t limit);
/*
 * Where the search for a head's end got to, kept between reads so that a
 * head arriving a byte at a time is looked at once (linear time), not
 * once per read (quadratic).  Zero it for each new head, and whenever
 * bytes are taken from the front of the buffer it describes.
 */
struct httpmsg_scan {
	size_t	 pos;		/* no head end starts before it */
};
/* httpmsg_head_end, resumed where the last call on this head stopped. */
size_t	 httpmsg_head_scan(struct evbuffer *in, size_t limit,
	    struct httpmsg_scan *);
/* Test hook: bytes the head-end searches have looked at, in all. */
extern uint64_t httpmsg_head_examined;
/* Split a head (buf is modified in place only by reference). */
int	 httpmsg_status(const struct httpmsg *);	/* -1: not a status line */
int	 httpmsg_parse(char *buf, size_t len, struct httpmsg *);
bool	 httpmsg_name_is(const struct httpmsg_header *, const char *);
bool	 httpmsg_value_has(const char *, size_t, const char *token);
/* The body framing of a message head; -1 on a smuggling shape. */
int	 httpmsg_framing(const struct httpmsg *, struct httpmsg_body *);
/*
 * Move what the framing allows from in to out: 1 the body is complete,
 * 0 more is needed, -1 a framing error (nothing of the line at fault is
 * moved).
 */
int	 httpmsg_relay_body(struct httpmsg_body *, struct evbuffer *in,
	    struct evbuffer *out);
/*
 * The body bytes next in line that the framing has vouched for already,
 * which may be moved without being looked at (by splice): the rest of a
 * Content-Length body, the rest of a chunk whose line was checked, or,
 * read until close, everything (UINT64_MAX).  0: what comes next is
 * framing (a chunk line, a chunk's CRLF, a trailer), or the body is done.
 */
uint64_t httpmsg_body_data(const struct httpmsg_body *);
/* n of those bytes (no more) were moved by the caller. */
void	 httpmsg_body_moved(struct httpmsg_body *, uint64_t n);
/*
 * A chunk line without its CRLF, held to RFC 9112 7.1 (size, then only
 * valid extensions): 0 with its size, or -1.
 */
int	 httpmsg_chunk_line(const unsigned char *, size_t, uint64_t *size);

#endif
