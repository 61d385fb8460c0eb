/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mover: the pipe and helpers under span.c and tunnel.c (mover.h).
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

#include <event2/event.h>

#include "proxy/mover.h"

#define MOVER_PIPE_SZ	(256 * 1024)	/* asked for; the kernel may refuse */
#define MOVER_PIPE_DEF	(64 * 1024)	/* Linux default pipe capacity */

int64_t
mover_now_ms(struct event_base *base, int64_t stale)
{
	struct timeval tv;

	/* Cached: no syscall inside a callback. */
	if (event_base_gettimeofday_cached(base, &tv) == -1)
		return stale;
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

bool
mover_again(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

/*
 * splice(2) from TCP stops at urgent data (MSG_OOB) and never steps over
 * it: EAGAIN, or 0 once a FIN is in, while the socket stays readable, so
 * a level-triggered read event would call at once, for ever, and what
 * follows would never move.  read(2) steps over the urgent byte, as the
 * bufferevents do, so the bytes counted are the same: such a stream is
 * copied from then on.
 */
bool
mover_splice_stuck(int src, ssize_t n)
{
	int saved = errno, mark = 0;
	bool stuck;

	if (n == -1 && errno == EINVAL)
		return true;	/* this socket type cannot be spliced from */
	if (n == -1 && !mover_again())
		return false;
	stuck = ioctl(src, SIOCATMARK, &mark) == 0 && mark == 1;
	errno = saved;
	return stuck;
}

void
mpipe_init(struct mpipe *p)
{
	p->fd[0] = p->fd[1] = -1;
	p->sz = p->in = 0;
}

static long pipe_ceiling;	/* 0: pipes up to the descriptor limit */

void
mpipe_set_ceiling(long fd)
{
	pipe_ceiling = fd;
}

int
mpipe_open(struct mpipe *p)
{
	int fd[2], sz;

	if (pipe2(fd, O_NONBLOCK | O_CLOEXEC) == -1)
		return -1;
	/* Lowest first: fd[1] past the line means that many are in use. */
	if (pipe_ceiling > 0 && fd[1] >= pipe_ceiling) {
		(void)close(fd[0]);
		(void)close(fd[1]);
		errno = EMFILE;
		return -1;
	}
	p->fd[0] = fd[0];
	p->fd[1] = fd[1];
	/* Bigger pipe, fewer rounds; refused past pipe-user-pages-soft. */
	sz = fcntl(p->fd[1], F_SETPIPE_SZ, MOVER_PIPE_SZ);
	if (sz == -1)
		sz = fcntl(p->fd[1], F_GETPIPE_SZ);
	p->sz = sz > 0 ? (uint32_t)sz : MOVER_PIPE_DEF;
	return 0;
}

void
mpipe_close(struct mpipe *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (p->fd[i] != -1)
			(void)close(p->fd[i]);	/* nothing to do on error */
		p->fd[i] = -1;
	}
}

ssize_t
mpipe_fill(struct mpipe *p, int src, size_t len)
{
	ssize_t n;

	n = splice(src, NULL, p->fd[1], NULL, len,
	    SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	if (n > 0)
		p->in += (uint32_t)n;
	return n;
}

ssize_t
mpipe_drain(struct mpipe *p, int dst)
{
	ssize_t n;

	n = splice(p->fd[0], NULL, dst, NULL, p->in,
	    SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	if (n > 0)
		p->in -= (uint32_t)n;
	return n;
}

ssize_t
mpipe_read(struct mpipe *p, char *buf, size_t cap)
{
	ssize_t n;

	n = read(p->fd[0], buf, p->in < cap ? p->in : cap);
	if (n <= 0) {
		if (n == 0)
			errno = EIO;	/* we hold the write end */
		return -1;
	}
	p->in -= (uint32_t)n;
	if (p->in == 0)
		mpipe_close(p);
	return n;
}
