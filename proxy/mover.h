/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mover: what span.c and tunnel.c share to move bytes from one socket to
 * another: a pipe that splice(2) fills and drains, the way back to
 * read(2)/send(2) when splice cannot be used, and the loop's clock.
 * Internal to proxy/; each caller keeps its own pacing and events.
 */
#ifndef PROXY_MOVER_H
#define PROXY_MOVER_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>

struct event_base;

/* Outcome of one fill or drain step. */
enum io {
	IO_OK,		/* moved bytes; try more */
	IO_AGAIN,	/* src empty, or dst full (maybe after a part) */
	IO_EOF,		/* src said EOF */
	IO_ERR		/* fatal; errno set */
};

/* A pipe between src and dst, and how much it holds. */
struct mpipe {
	int		 fd[2];		/* -1 while there is none */
	uint32_t	 sz;		/* its capacity */
	uint32_t	 in;		/* bytes in it */
};

/* The loop's cached time in ms (no syscall); stale when it has none. */
int64_t		 mover_now_ms(struct event_base *, int64_t stale);
/* errno after a failed read or write: nothing to do now, not an error. */
bool		 mover_again(void);
/*
 * After splice(2) from socket src returned n (0 or -1 with errno): true
 * when src cannot be spliced from any further and must be read(2): the
 * socket type refuses splice (EINVAL), or a TCP stream stands at urgent
 * data, which splice never passes.  errno is kept.
 */
bool		 mover_splice_stuck(int src, ssize_t n);

/* No pipe yet. */
void		 mpipe_init(struct mpipe *);
/* Make the pipe (non-blocking), as large as the kernel allows; -1. */
int		 mpipe_open(struct mpipe *);
/*
 * Past this descriptor mpipe_open makes no pipe (EMFILE; 0: no line):
 * what is left is kept for new clients, and callers copy instead.
 */
void		 mpipe_set_ceiling(long fd);
/* Close it; what it held is lost. */
void		 mpipe_close(struct mpipe *);
/* splice(2) src -> pipe, at most len: as splice returns. */
ssize_t		 mpipe_fill(struct mpipe *, int src, size_t len);
/* splice(2) pipe -> dst, all it holds: as splice returns. */
ssize_t		 mpipe_drain(struct mpipe *, int dst);
/*
 * Copy fallback: read what the pipe holds into buf, at most cap; the pipe
 * closes once empty.  The count, or -1 (EIO: it was empty).
 */
ssize_t		 mpipe_read(struct mpipe *, char *buf, size_t cap);

#endif
