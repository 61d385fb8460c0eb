/* SPDX-License-Identifier: Apache-2.0 */
/*
 * span: a bounded one-way splice between two sockets (span.h).
 *
 * A round moves src -> pipe, then pipe -> dst, in the same callback, and
 * a fill asks for no more than the stretch has left: the kernel never
 * hands over a byte past it.  A fill that got under half of what it asked
 * for most likely emptied src, so the span waits for readability rather
 * than spend a read on the EAGAIN (the event is level-triggered: nothing
 * is missed).  When dst cannot take what the pipe holds, src's read event
 * is removed and dst's write event added, and back once the pipe is empty.
 *
 * Sockets that refuse splice (EINVAL; not seen on TCP), a TCP stream at
 * urgent data (mover_splice_stuck), or a pipe that cannot be made (out of
 * descriptors), switch the span to read(2)/send(2) through a buffer of
 * its own, for good.
 */
#include <sys/socket.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include <event2/event.h>

#include "proxy/mover.h"
#include "proxy/mstime.h"
#include "proxy/span.h"

#define SPAN_BUF_SZ	(64 * 1024)	/* the copy fallback's buffer */
#define SPAN_ROUNDS	8		/* fill+drain rounds per callback */

struct span {
	struct event_base *base;
	struct event	*rev;		/* src readable */
	struct event	*wev;		/* dst writable */
	struct event	*timer;		/* idle end; NULL without one */
	int		 src, dst;
	struct mpipe	 p;		/* no pipe until the first fill */
	char		*buf;		/* copy: bytes dst has not taken yet */
	uint32_t	 boff, blen;	/*   its unsent part: [boff, blen) */
	bool		 copy;		/* splice refused: read/send */
	bool		 eof;		/* src said EOF */
	bool		 running;	/* a stretch is under way */
	bool		 reading, writing;	/* rev, wev pending */
	uint64_t	 left;		/* still to take from src */
	uint64_t	 moved;		/* delivered to dst, this stretch */
	size_t		 got, asked;	/* the last fill's */
	uint32_t	 idle_ms;
	int64_t		 last_ms;	/* when a byte last moved */
	span_cb		 cb;
	void		*arg;
};

static int64_t
now_ms(struct span *s)
{
	return mover_now_ms(s->base, s->last_ms);
}

/* Bytes taken from src and not yet delivered to dst. */
static size_t
pending(const struct span *s)
{
	return (size_t)s->p.in + (size_t)(s->blen - s->boff);
}

/* Read and send from here on; what the pipe holds is sent first. */
static int
copy_start(struct span *s)
{
	if (s->buf == NULL && (s->buf = malloc(SPAN_BUF_SZ)) == NULL)
		return -1;
	s->copy = true;
	if (s->p.in == 0)
		mpipe_close(&s->p);
	return 0;
}

static size_t
want(const struct span *s, size_t cap)
{
	return s->left < cap ? (size_t)s->left : cap;
}

/*
 * src -> pipe (or buffer), never more than the stretch has left.  Only
 * called with nothing pending, so EAGAIN means src is empty.
 */
static enum io
fill(struct span *s)
{
	ssize_t n = -1;

	if (!s->copy && s->p.fd[0] == -1 && mpipe_open(&s->p) == -1 &&
	    copy_start(s) == -1)
		return IO_ERR;
	if (!s->copy) {
		s->asked = want(s, s->p.sz);
		n = mpipe_fill(&s->p, s->src, s->asked);
		if (n <= 0 && mover_splice_stuck(s->src, n) &&
		    copy_start(s) == -1)
			return IO_ERR;
	}
	if (s->copy) {
		s->asked = want(s, SPAN_BUF_SZ);
		n = read(s->src, s->buf, s->asked);
		if (n > 0) {
			s->boff = 0;
			s->blen = (uint32_t)n;
		}
	}
	if (n == 0) {
		s->eof = true;
		return IO_EOF;
	}
	if (n == -1)
		return mover_again() ? IO_AGAIN : IO_ERR;
	if (s->left != SPAN_TO_EOF)
		s->left -= (uint64_t)n;
	s->got = (size_t)n;
	return IO_OK;
}

/* Copy mode: refill the buffer from what splice left in the pipe. */
static int
from_pipe(struct span *s)
{
	ssize_t n;

	if ((n = mpipe_read(&s->p, s->buf, SPAN_BUF_SZ)) == -1)
		return -1;
	s->boff = 0;
	s->blen = (uint32_t)n;
	return 0;
}

/* What is pending -> dst.  A short write means dst is full. */
static enum io
drain(struct span *s)
{
	ssize_t n;

	while (pending(s) > 0) {
		if (s->boff < s->blen) {
			n = send(s->dst, s->buf + s->boff, s->blen - s->boff,
			    MSG_NOSIGNAL);
			if (n == -1)
				return mover_again() ? IO_AGAIN : IO_ERR;
			s->boff += (uint32_t)n;
			s->moved += (uint64_t)n;
			if (s->boff < s->blen)
				return IO_AGAIN;
			continue;
		}
		if (s->copy) {
			if (from_pipe(s) == -1)
				return IO_ERR;
			continue;
		}
		n = mpipe_drain(&s->p, s->dst);
		if (n > 0) {
			s->moved += (uint64_t)n;
			if (s->p.in > 0)
				return IO_AGAIN;
			continue;
		}
		if (n == 0) {
			errno = EIO;	/* we hold the write end */
			return IO_ERR;
		}
		if (mover_again())
			return IO_AGAIN;
		/* dst cannot be spliced to: send what the pipe holds. */
		if (errno != EINVAL || copy_start(s) == -1)
			return IO_ERR;
	}
	return IO_OK;
}

static int
ev_set(struct event *ev, bool on, bool *is)
{
	if (on == *is)
		return 0;
	if ((on ? event_add(ev, NULL) : event_del(ev)) == -1)
		return -1;
	*is = on;
	return 0;
}

/* Read src only while nothing waits for dst; watch dst only while it does. */
static int
arm(struct span *s)
{
	bool busy = pending(s) > 0;

	if (ev_set(s->rev, !busy && !s->eof && s->left > 0, &s->reading) ==
	    -1)
		return -1;
	return ev_set(s->wev, busy, &s->writing);
}

/* The stretch is over: events off, then the callback (it may free s). */
static void
finish(struct span *s, enum span_end how)
{
	int saved = errno;

	s->running = false;
	(void)ev_set(s->rev, false, &s->reading);
	(void)ev_set(s->wev, false, &s->writing);
	if (s->timer != NULL)
		(void)event_del(s->timer);
	errno = saved;
	s->cb(how, s->arg);
}

/* Move what can be moved now, bounded so one span cannot starve others. */
static void
run(struct span *s)
{
	uint64_t before = s->moved;
	bool filled = false, more = true;
	enum io r = IO_OK;
	int i;

	for (i = 0; i < SPAN_ROUNDS; i++) {
		if (pending(s) > 0 && (r = drain(s)) != IO_OK)
			break;
		if (s->left == 0 || s->eof || !more)
			break;
		if ((r = fill(s)) != IO_OK)
			break;
		filled = true;
		more = s->got >= s->asked / 2;
	}
	if (r == IO_ERR) {
		finish(s, SPAN_ERROR);
		return;
	}
	/* Bytes taken from src count, even while dst takes none. */
	if (filled || s->moved != before)
		s->last_ms = now_ms(s);
	if (pending(s) == 0 && (s->left == 0 || s->eof)) {
		finish(s, s->left == 0 || s->left == SPAN_TO_EOF ? SPAN_DONE :
		    SPAN_EOF);
		return;
	}
	if (arm(s) == -1)
		finish(s, SPAN_ERROR);
}

static void
io_cb(evutil_socket_t fd, short what, void *arg)
{
	run(arg);
}

static int
timer_arm(struct span *s, int64_t ms)
{
	struct timeval tv = ms_timeval(ms < 1 ? 1 : (uint64_t)ms);

	return event_add(s->timer, &tv);
}

/* Not re-armed on I/O: it looks at the time of the last move when due. */
static void
timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct span *s = arg;
	int64_t idle = now_ms(s) - s->last_ms;

	if (idle < 0)
		idle = 0;	/* wall clock stepped back */
	if (idle >= s->idle_ms) {
		finish(s, SPAN_IDLE);
		return;
	}
	if (timer_arm(s, s->idle_ms - idle) == -1)
		finish(s, SPAN_ERROR);
}

struct span *
span_new(struct event_base *base, int src, int dst, uint32_t idle_ms)
{
	struct span *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->base = base;
	s->src = src;
	s->dst = dst;
	mpipe_init(&s->p);
	s->idle_ms = idle_ms;
	s->rev = event_new(base, src, EV_READ | EV_PERSIST, io_cb, s);
	s->wev = event_new(base, dst, EV_WRITE | EV_PERSIST, io_cb, s);
	if (idle_ms != 0)
		s->timer = evtimer_new(base, timer_cb, s);
	if (s->rev == NULL || s->wev == NULL ||
	    (idle_ms != 0 && s->timer == NULL)) {
		span_free(s);
		return NULL;
	}
	return s;
}

int
span_start(struct span *s, uint64_t n, span_cb cb, void *arg)
{
	if (s->running || pending(s) > 0 || s->eof || n == 0 || cb == NULL) {
		errno = EINVAL;
		return -1;
	}
	s->left = n;
	s->moved = 0;
	s->cb = cb;
	s->arg = arg;
	s->last_ms = now_ms(s);
	if (ev_set(s->rev, true, &s->reading) == -1)
		return -1;
	if (s->timer != NULL && timer_arm(s, s->idle_ms) == -1) {
		(void)ev_set(s->rev, false, &s->reading);
		return -1;
	}
	s->running = true;
	return 0;
}

bool
span_running(const struct span *s)
{
	return s != NULL && s->running;
}

uint64_t
span_moved(const struct span *s)
{
	return s->moved;
}

void
span_free(struct span *s)
{
	if (s == NULL)
		return;
	if (s->rev != NULL)
		event_free(s->rev);
	if (s->wev != NULL)
		event_free(s->wev);
	if (s->timer != NULL)
		event_free(s->timer);
	mpipe_close(&s->p);
	free(s->buf);
	free(s);
}
