/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tunnel: relay bytes between two connected sockets with splice(2).
 *
 * Each direction (client -> origin, origin -> client) is a struct dir: a
 * source socket, a destination socket and, once the source has first been
 * readable, a pipe.  A round moves src -> pipe, then pipe -> dst, in the
 * same callback.  A direction only reads its source while its pipe is
 * empty, so at most one pipe of data is ever in flight each way: when dst
 * cannot take what the pipe holds, the source's read event is removed and
 * dst's write event added, and the swap back happens once the pipe has
 * drained.  Idle tunnels hold no pipe and no write event: only two read
 * events, the timer and this struct; and a tunnel that goes quiet for
 * TUNNEL_QUIET_MS gives its pipes back (made again on the next bytes).
 *
 * A direction whose sockets refuse splice (EINVAL; not seen on TCP or
 * AF_UNIX stream sockets), whose source stands at TCP urgent data (which
 * splice never passes: mover_splice_stuck), or whose pipe cannot be made
 * (out of descriptors) falls back for good to read(2)/send(2).  Copying reads
 * into one scratch buffer shared by all tunnels and sends at once; only
 * what dst does not take is kept, in a TUNNEL_BUF_SZ heap buffer, so the
 * same one-buffer bound holds and most tunnels never allocate one.
 *
 * A direction starts out copying (D_SMALL): a request or a response that
 * fits one buffer costs a read and a send, where a pipe would cost its
 * making and unmaking.  The first read that fills the buffer marks the
 * direction as bulk, and once that buffer is sent it moves to splice.
 *
 * The timer is not re-armed on I/O: I/O only records the time, and the
 * timer, when it fires, ends the tunnel, gives back the pipes, or sleeps
 * for the time still left.
 */
#include <sys/socket.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "proxy/mover.h"
#include "proxy/mstime.h"
#include "proxy/tunnel.h"

#define TUNNEL_BUF_SZ	(16 * 1024)	/* copy fallback buffer */
#define TUNNEL_ROUNDS	8		/* fill+drain rounds per callback */
#define TUNNEL_QUIET_MS	2000		/* then the pipes go back */

enum { C2O, O2C };			/* struct tunnel.d[] */

/* struct dir.flags */
#define D_EOF		0x01	/* src returned 0 */
#define D_SHUT		0x02	/* drained and dst shut down: finished */
#define D_COPY		0x04	/* splice refused: read/send fallback */
#define D_RARMED	0x08	/* rev is pending */
#define D_WARMED	0x10	/* wev is pending */
#define D_SMALL		0x20	/* copying until a read fills the buffer */
#define D_GROWN		0x40	/* it did: splice once the buffer is sent */
#define D_FIN		0x80	/* src's FIN is in (EV_CLOSED) */

struct tunnel;

struct dir {
	struct tunnel	*t;
	struct event	*rev;		/* src readable */
	struct event	*wev;		/* dst writable; made on first need */
	char		*buf;		/* D_COPY: what dst has not taken yet */
	uint64_t	 bytes;		/* written to dst */
	int		 src, dst;
	struct mpipe	 p;		/* none until src is readable, and when quiet */
	uint32_t	 last_read;	/* bytes the last fill took from src */
	uint16_t	 boff, blen;	/* unsent part of buf: [boff, blen) */
	uint8_t		 flags;
};

struct tunnel {
	struct dir	 d[2];
	struct event_base *base;
	struct event	*timer;		/* idle end, pipe release */
	struct evbuffer	*early;		/* NULL once sent */
	tunnel_done_cb	 cb;
	void		*arg;
	int64_t		 last_ms;	/* when a byte last moved */
	uint32_t	 idle_ms;	/* 0: no idle end */
	bool		 timer_pipes;	/* timer due within TUNNEL_QUIET_MS */
};

static void	 read_cb(evutil_socket_t, short, void *);
static void	 write_cb(evutil_socket_t, short, void *);
static int	 timer_next(struct tunnel *, int64_t);

static int64_t
now_ms(struct tunnel *t)
{
	return mover_now_ms(t->base, t->last_ms);
}

/* Milliseconds since a byte last moved. */
static int64_t
tunnel_idle(struct tunnel *t)
{
	int64_t idle = now_ms(t) - t->last_ms;

	return idle < 0 ? 0 : idle;	/* wall clock stepped back */
}

static void
close_fd(int *fd)
{
	if (*fd != -1) {
		(void)close(*fd);	/* nothing useful to do on error */
		*fd = -1;
	}
}

/* Bytes taken from src but not yet written to dst. */
static size_t
dir_pending(const struct dir *d)
{
	return (size_t)d->p.in + (size_t)(d->blen - d->boff);
}

static void
dir_release(struct dir *d)
{
	mpipe_close(&d->p);
	free(d->buf);
	d->buf = NULL;
}

static int
pipe_open(struct dir *d)
{
	struct tunnel *t = d->t;

	if (mpipe_open(&d->p) == -1)
		return -1;
	/* Make sure the timer comes back soon enough to give it back. */
	if (!t->timer_pipes && timer_next(t, tunnel_idle(t)) == -1) {
		dir_release(d);
		return -1;
	}
	return 0;
}

/*
 * Switch d to read/send for good; bytes still in the pipe are sent
 * first.  The buffer is made when needed, and given back when quiet.
 */
static void
copy_start(struct dir *d)
{
	d->flags |= D_COPY;
	d->flags &= (uint8_t)~(D_SMALL | D_GROWN);
	if (d->p.in == 0)
		dir_release(d);
}

/*
 * Send what dst takes of p[0, len): the count (0 when full), or -1.  more:
 * MSG_MORE, for bytes a shutdown follows at once.
 */
static ssize_t
copy_send(struct dir *d, const char *p, size_t len, bool more)
{
	ssize_t n;

	if ((n = send(d->dst, p, len, MSG_NOSIGNAL | (more ? MSG_MORE : 0))) ==
	    -1)
		return mover_again() ? 0 : -1;
	d->bytes += (uint64_t)n;
	return n;
}

static int
copy_buf(struct dir *d)
{
	if (d->buf == NULL && (d->buf = malloc(TUNNEL_BUF_SZ)) == NULL)
		return -1;
	return 0;
}

/* A read filled the buffer: bulk traffic, splice from here on. */
static void
copy_grown(struct dir *d)
{
	if (d->flags & D_GROWN)
		d->flags &= (uint8_t)~(D_COPY | D_SMALL | D_GROWN);
}

/*
 * Keep what dst did not take of p[0, n) in d->buf, which holds exactly
 * the unsent bytes (NULL when there are none).
 */
static enum io
copy_keep(struct dir *d, const char *p, size_t n)
{
	if (copy_buf(d) == -1)
		return IO_ERR;
	memcpy(d->buf, p, n);
	d->boff = 0;
	d->blen = (uint16_t)n;
	return IO_AGAIN;
}

/*
 * src -> dst through the loop's one scratch buffer: the read is sent at
 * once, so a tunnel owns a buffer only while dst is full, and the common
 * small request or response costs no allocation at all.
 *
 * When src's FIN is already in (a response, then the origin's close) and
 * a read left room, the next read is made at once: its EOF is then known
 * before the bytes go, they go with MSG_MORE, and the shutdown that passes
 * the EOF on (dir_finish, in the same round) rides in their segment: one
 * segment and one wakeup for the peer, not two, and no trip through the
 * loop for the EOF.
 */
static enum io
copy_fill(struct dir *d)
{
	static char scratch[TUNNEL_BUF_SZ];
	ssize_t n, more = -1, sent;
	int err = 0;

	n = read(d->src, scratch, sizeof(scratch));
	if (n == 0) {
		d->flags |= D_EOF;
		return IO_EOF;
	}
	if (n == -1)
		return mover_again() ? IO_AGAIN : IO_ERR;
	if ((d->flags & D_FIN) && (size_t)n < sizeof(scratch)) {
		more = read(d->src, scratch + n, sizeof(scratch) - (size_t)n);
		if (more > 0)
			n += more;
		else if (more == -1 && !mover_again())
			err = errno;	/* after these bytes are sent */
	}
	d->last_read = (uint32_t)n;
	if ((d->flags & D_SMALL) && n == TUNNEL_BUF_SZ)
		d->flags |= D_GROWN;
	if ((sent = copy_send(d, scratch, (size_t)n, more == 0)) == -1)
		return IO_ERR;
	/* A src that failed has nothing more: as at EOF, once dst has all. */
	if (more == 0 || (err != 0 && sent < n))
		d->flags |= D_EOF;
	if (sent < n)
		return copy_keep(d, scratch + sent, (size_t)(n - sent));
	if (err != 0) {
		errno = err;
		return IO_ERR;
	}
	if (more == 0)
		return IO_EOF;
	copy_grown(d);
	return IO_OK;
}

/* Refill buf from what splice left in the pipe before the switch. */
static enum io
copy_from_pipe(struct dir *d)
{
	ssize_t n;

	if ((n = mpipe_read(&d->p, d->buf, TUNNEL_BUF_SZ)) == -1)
		return IO_ERR;
	d->boff = 0;
	d->blen = (uint16_t)n;
	return IO_OK;
}

static enum io
copy_drain(struct dir *d)
{
	ssize_t n;

	if (copy_buf(d) == -1)
		return IO_ERR;
	while (dir_pending(d) > 0) {
		if (d->boff == d->blen && copy_from_pipe(d) == IO_ERR)
			return IO_ERR;
		n = copy_send(d, d->buf + d->boff, d->blen - d->boff, false);
		if (n == -1)
			return IO_ERR;
		d->boff += (uint16_t)n;
		if (d->boff < d->blen)
			return IO_AGAIN;	/* short: dst is full */
	}
	free(d->buf);
	d->buf = NULL;
	copy_grown(d);
	return IO_OK;
}

/* src -> pipe.  Only called with the pipe empty, so EAGAIN means src is. */
static enum io
dir_fill(struct dir *d)
{
	ssize_t n;

	if (d->flags & D_COPY)
		return copy_fill(d);
	if (d->p.fd[0] == -1 && pipe_open(d) == -1) {
		/* Out of descriptors: copy instead. */
		copy_start(d);
		return copy_fill(d);
	}
	n = mpipe_fill(&d->p, d->src, d->p.sz);
	if (n > 0) {
		d->last_read = (uint32_t)n;
		return IO_OK;
	}
	if (mover_splice_stuck(d->src, n)) {
		/* Not a socket splice takes from, or urgent data ahead. */
		copy_start(d);
		return copy_fill(d);
	}
	if (n == 0) {
		d->flags |= D_EOF;
		return IO_EOF;
	}
	return mover_again() ? IO_AGAIN : IO_ERR;
}

/* pipe -> dst.  A short write means dst is full: wait for EV_WRITE. */
static enum io
dir_drain(struct dir *d)
{
	ssize_t n;

	if (d->flags & D_COPY)
		return copy_drain(d);
	n = mpipe_drain(&d->p, d->dst);
	if (n > 0) {
		d->bytes += (uint64_t)n;
		return d->p.in == 0 ? IO_OK : IO_AGAIN;
	}
	if (n == 0) {
		errno = EIO;		/* we hold the write end */
		return IO_ERR;
	}
	if (mover_again())
		return IO_AGAIN;
	if (errno == EINVAL) {
		/* dst cannot be spliced to: send what the pipe holds. */
		copy_start(d);
		return copy_drain(d);
	}
	return IO_ERR;
}

static int
ev_set(struct event *ev, bool on, struct dir *d, uint8_t bit)
{
	if (on == ((d->flags & bit) != 0))
		return 0;
	if (on) {
		if (event_add(ev, NULL) == -1)
			return -1;
		d->flags |= bit;
	} else {
		if (event_del(ev) == -1)
			return -1;
		d->flags &= (uint8_t)~bit;
	}
	return 0;
}

/*
 * Make the pending events match the state: read src only while nothing
 * is waiting for dst (backpressure), watch dst only while something is.
 */
static int
dir_arm(struct dir *d)
{
	struct tunnel *t = d->t;
	bool busy, rd;

	busy = !(d->flags & D_SHUT) && (dir_pending(d) > 0 ||
	    (d == &t->d[C2O] && t->early != NULL));
	rd = !(d->flags & (D_EOF | D_SHUT)) && !busy;
	if (ev_set(d->rev, rd, d, D_RARMED) == -1)
		return -1;
	if (busy && d->wev == NULL) {
		d->wev = event_new(t->base, d->dst, EV_WRITE | EV_PERSIST,
		    write_cb, d);
		if (d->wev == NULL)
			return -1;
	}
	if (d->wev != NULL && ev_set(d->wev, busy, d, D_WARMED) == -1)
		return -1;
	return 0;
}

/*
 * Drained after EOF: pass the EOF on and let the pipe go.  When the other
 * direction has finished too, both sockets close next, and close sends
 * the FIN (their unread input is empty: each read to EOF): no shutdown.
 */
static int
dir_finish(struct dir *d)
{
	struct dir *other = d == &d->t->d[C2O] ? &d->t->d[O2C] :
	    &d->t->d[C2O];

	if (!(other->flags & D_SHUT) && shutdown(d->dst, SHUT_WR) == -1)
		return -1;
	d->flags |= D_SHUT;
	dir_release(d);
	return 0;
}

/*
 * A fill of under half the pipe most likely emptied src: stop after
 * draining it rather than spend a syscall on the EAGAIN.  If more did
 * come, the (level-triggered) read event says so.
 */
static bool
dir_more(const struct dir *d)
{
	size_t cap = (d->flags & D_COPY) ? TUNNEL_BUF_SZ : d->p.sz;

	return d->last_read >= cap / 2;
}

/*
 * Move what can be moved now, bounded so one busy tunnel cannot starve
 * the others.  Returns -1 on error, 1 when the tunnel is finished, else 0.
 */
static int
dir_run(struct dir *d)
{
	struct tunnel *t = d->t;
	uint64_t before = d->bytes;
	bool filled = false, more = true;
	enum io r = IO_OK;
	int i;

	for (i = 0; i < TUNNEL_ROUNDS; i++) {
		if (dir_pending(d) > 0 && (r = dir_drain(d)) != IO_OK)
			break;
		if ((d->flags & D_EOF) || !more)
			break;
		if ((r = dir_fill(d)) != IO_OK)
			break;
		filled = true;
		more = dir_more(d);
	}
	if (r == IO_ERR)
		return -1;
	/* Reading a stalled peer's bytes counts as activity too. */
	if (filled || d->bytes != before)
		t->last_ms = now_ms(t);
	if ((d->flags & (D_EOF | D_SHUT)) == D_EOF && dir_pending(d) == 0 &&
	    dir_finish(d) == -1)
		return -1;
	if ((t->d[C2O].flags & t->d[O2C].flags & D_SHUT) != 0)
		return 1;
	return dir_arm(d);
}

/* Free everything but the sockets. */
static void
tunnel_release(struct tunnel *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (t->d[i].rev != NULL)
			event_free(t->d[i].rev);
		if (t->d[i].wev != NULL)
			event_free(t->d[i].wev);
		dir_release(&t->d[i]);
	}
	if (t->timer != NULL)
		event_free(t->timer);
	if (t->early != NULL)
		evbuffer_free(t->early);
}

/* Events are freed before the sockets close: epoll forgets them cleanly. */
static void
tunnel_close(struct tunnel *t)
{
	tunnel_release(t);
	close_fd(&t->d[C2O].src);
	close_fd(&t->d[O2C].src);
}

void
tunnel_count(const struct tunnel *t, struct tunnel_stats *st)
{
	st->to_origin = t->d[C2O].bytes;
	st->to_client = t->d[O2C].bytes;
}

static void
tunnel_end(struct tunnel *t)
{
	struct tunnel_stats st;

	tunnel_count(t, &st);
	tunnel_close(t);
	t->cb(&st, t->arg);
	free(t);
}

/* Early bytes go out before anything spliced; returns -1, 0 (more), 1. */
static int
early_flush(struct tunnel *t)
{
	struct dir *d = &t->d[C2O];
	int n;

	n = evbuffer_write(t->early, d->dst);
	if (n == -1)
		return mover_again() ? 0 : -1;
	d->bytes += (uint64_t)n;
	if (n > 0)
		t->last_ms = now_ms(t);
	if (evbuffer_get_length(t->early) > 0)
		return 0;
	evbuffer_free(t->early);
	t->early = NULL;
	return 1;
}

static void
read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct dir *d = arg;

	if (what & EV_CLOSED)
		d->flags |= D_FIN;
	if (dir_run(d) != 0)
		tunnel_end(d->t);
}

static void
write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct dir *d = arg;
	struct tunnel *t = d->t;
	int r;

	if (d == &t->d[C2O] && t->early != NULL) {
		if ((r = early_flush(t)) == -1) {
			tunnel_end(t);
			return;
		}
		if (r == 0)
			return;		/* wev stays armed */
	}
	if (dir_run(d) != 0)
		tunnel_end(t);
}

static int
timer_arm(struct tunnel *t, int64_t ms)
{
	struct timeval tv = ms_timeval(ms < 1 ? 1 : (uint64_t)ms);

	return event_add(t->timer, &tv);
}

static bool
tunnel_holds(const struct tunnel *t)
{
	return t->d[C2O].p.fd[0] != -1 || t->d[O2C].p.fd[0] != -1;
}

/* Quiet: give back empty pipes; the next bytes remake them. */
static void
dir_trim(struct dir *d)
{
	if (dir_pending(d) == 0)
		dir_release(d);
}

/*
 * Next wake: at the idle end, or sooner while the tunnel holds a pipe, to
 * give it back once quiet.  Neither: no wake (pipe_open arms one).
 */
static int
timer_next(struct tunnel *t, int64_t idle)
{
	int64_t next = INT64_MAX;

	if (t->idle_ms != 0)
		next = t->idle_ms - idle;
	t->timer_pipes = tunnel_holds(t);
	if (t->timer_pipes && TUNNEL_QUIET_MS - idle < next)
		next = TUNNEL_QUIET_MS - idle;
	if (next == INT64_MAX)
		return 0;
	return timer_arm(t, next);
}

static void
timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tunnel *t = arg;
	int64_t idle = tunnel_idle(t);

	if (t->idle_ms != 0 && idle >= t->idle_ms) {
		tunnel_end(t);
		return;
	}
	if (idle >= TUNNEL_QUIET_MS) {
		dir_trim(&t->d[C2O]);
		dir_trim(&t->d[O2C]);
	}
	if (timer_next(t, idle) == -1)
		tunnel_end(t);
}

/*
 * The origin's read event also says when its FIN is in (EV_CLOSED, for
 * copy_fill).  Not the client's: its socket is registered already, for
 * reading only, and stays so with no change to tell epoll.
 */
static int
dir_init(struct tunnel *t, struct dir *d, int src, int dst, short fin)
{
	d->t = t;
	d->src = src;
	d->dst = dst;
	mpipe_init(&d->p);
	d->flags = D_COPY | D_SMALL;
	d->rev = event_new(t->base, src, EV_READ | EV_PERSIST | fin, read_cb,
	    d);
	return d->rev == NULL ? -1 : 0;
}

struct tunnel *
tunnel_new(struct event_base *base, int client_fd, int origin_fd,
    struct evbuffer *early, uint32_t idle_timeout_ms, tunnel_done_cb cb,
    void *arg)
{
	struct tunnel *t;

	if (base == NULL || cb == NULL || client_fd < 0 || origin_fd < 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->base = base;
	t->cb = cb;
	t->arg = arg;
	t->idle_ms = idle_timeout_ms;
	if (dir_init(t, &t->d[C2O], client_fd, origin_fd, 0) == -1 ||
	    dir_init(t, &t->d[O2C], origin_fd, client_fd, EV_CLOSED) == -1)
		goto fail;
	if (early != NULL && evbuffer_get_length(early) > 0 &&
	    (t->early = evbuffer_new()) == NULL)
		goto fail;
	t->last_ms = now_ms(t);
	if ((t->timer = evtimer_new(base, timer_cb, t)) == NULL ||
	    timer_next(t, 0) == -1)
		goto fail;
	if (dir_arm(&t->d[C2O]) == -1 || dir_arm(&t->d[O2C]) == -1)
		goto fail;
	/* Last, so a failure leaves early untouched: moves, no copy. */
	if (t->early != NULL && evbuffer_add_buffer(t->early, early) == -1)
		goto fail;
	return t;
fail:
	tunnel_release(t);
	free(t);
	return NULL;
}

void
tunnel_free(struct tunnel *t)
{
	if (t == NULL)
		return;
	tunnel_close(t);
	free(t);
}
