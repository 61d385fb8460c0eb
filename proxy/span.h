/* SPDX-License-Identifier: Apache-2.0 */
/*
 * span: exactly n bytes from one connected socket to another, on the
 * proxy's event loop, with splice(2) through a pipe so the bytes never
 * enter user space: the bulk of an HTTP body whose framing says how long
 * it is (forward.c).  Never a byte past the n-th is taken from src, so
 * what follows in the same stream (a pipelined request, bytes an origin
 * sent past its Content-Length, a chunk's CRLF and the next chunk line)
 * stays in the socket, unread, for whoever reads it next.
 *
 * One pipe at most is in flight: while dst cannot take what the pipe
 * holds, src is not read (backpressure).  A span is started again for the
 * next stretch of the same pair (the next chunk), keeping its pipe.
 * Sockets stay the caller's: a span never closes or shuts them down.
 * Internal to proxy/.
 */
#ifndef PROXY_SPAN_H
#define PROXY_SPAN_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

struct event_base;
struct span;

#define SPAN_TO_EOF	UINT64_MAX	/* n: everything until src's EOF */

enum span_end {
	SPAN_DONE,	/* n bytes taken and delivered (SPAN_TO_EOF: at EOF) */
	SPAN_EOF,	/* src ended first; what it sent was delivered */
	SPAN_ERROR,	/* a socket failed; errno says how */
	SPAN_IDLE	/* nothing moved for idle_ms */
};

/*
 * Called once per span_start, when the stretch ends; the span's events
 * are off by then and it may be freed, or (after SPAN_DONE) started again.
 */
typedef void (*span_cb)(enum span_end, void *arg);

/* idle_ms 0: no idle end.  NULL on failure (out of memory). */
struct span	*span_new(struct event_base *, int src, int dst,
		    uint32_t idle_ms);
/*
 * Move the next n bytes (n > 0) from src to dst.  Waits for src to be
 * readable, so the callback never runs from inside span_start.  -1 when
 * it cannot (out of memory, or a span not done): nothing was moved.
 */
int		 span_start(struct span *, uint64_t n, span_cb, void *arg);
/* Is a stretch under way?  NULL: no. */
bool		 span_running(const struct span *);
/* Bytes delivered to dst by the stretch under way, or the last one. */
uint64_t	 span_moved(const struct span *);
/* Stop and free (the pipe too); NULL is allowed. */
void		 span_free(struct span *);

#endif
