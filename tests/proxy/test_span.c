/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_span: proxy/span.c over loopback TCP and AF_UNIX socketpairs.
 *
 * A fixture is: writer peer -> src [span] dst -> reader peer.  The writer
 * sends a stream (the stretch, then what follows it), the reader checks
 * what arrives byte by byte, and the test looks at what is left unread in
 * src afterwards.  Peers run on the span's own event loop; callbacks only
 * record, and the test body asserts.  Every loop is bounded by a deadline.
 *
 * splice() and pipe2() come from tests/proxy/fakesplice.h: the span's calls go
 * through those wrappers, which count them and can force the copy
 * fallback.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/sockios.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "proxy/span.h"

#define KiB		1024
#define MiB		(1024 * 1024)
#define DEADLINE_MS	20000

#include "tests/proxy/fakesplice.h"

/* ---------------------------------------------------------------- */

enum kind { K_TCP, K_UNIX };

struct fx {
	struct event_base *base;
	struct event	*deadline;
	int		 w, src;	/* writer peer -> src */
	int		 dst, r;	/* dst -> reader peer */
	struct event	*wev, *rev, *resume;
	struct span	*s;
	/* the writer: bytes [0, total) of the pattern, then EOF if shut */
	uint64_t	 total, sent;
	bool		 shut, wfull;
	/* the reader: what arrived, checked against the pattern from roff */
	uint64_t	 got, roff;
	bool		 bad, reof, paused;
	int		 ends;
	enum span_end	 how;
	bool		 timed_out;
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Byte i of the stream: no period a short shift could hide behind. */
static unsigned char
pat(uint64_t i)
{
	return (unsigned char)((i * 2654435761u) >> 13 ^ i);
}

static void
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	assert_int_not_equal(fl, -1);
	assert_int_equal(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
}

static void
make_pair(enum kind k, int sv[2])
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int l;

	if (k == K_UNIX) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM |
		    SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
		return;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_not_equal(l, -1);
	assert_int_equal(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sin, &len), 0);
	sv[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_not_equal(sv[0], -1);
	assert_int_equal(connect(sv[0], (struct sockaddr *)&sin,
	    sizeof(sin)), 0);
	sv[1] = accept4(l, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	assert_int_not_equal(sv[1], -1);
	set_nonblock(sv[0]);
	assert_int_equal(close(l), 0);
}

static void
writer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fx *fx = arg;
	unsigned char b[32 * KiB];
	size_t i, n;
	ssize_t w;

	while (fx->sent < fx->total) {
		n = fx->total - fx->sent < sizeof(b) ?
		    (size_t)(fx->total - fx->sent) : sizeof(b);
		for (i = 0; i < n; i++)
			b[i] = pat(fx->sent + i);
		if ((w = send(fd, b, n, MSG_NOSIGNAL)) <= 0) {
			fx->wfull = true;
			return;		/* full: called again */
		}
		fx->sent += (uint64_t)w;
	}
	(void)event_del(fx->wev);
	if (fx->shut)
		(void)shutdown(fd, SHUT_WR);
}

static void
reader_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fx *fx = arg;
	unsigned char b[64 * KiB];
	ssize_t n, i;

	if ((n = read(fd, b, sizeof(b))) <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			fx->reof = true;
			(void)event_del(fx->rev);
		}
		return;
	}
	for (i = 0; i < n; i++)
		if (b[i] != pat(fx->roff + fx->got + (uint64_t)i))
			fx->bad = true;
	fx->got += (uint64_t)n;
}

static void
resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fx *fx = arg;

	fx->paused = false;
	assert_int_equal(event_add(fx->rev, NULL), 0);
}

static void
deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fx *fx = arg;

	fx->timed_out = true;
	event_base_loopbreak(fx->base);
}

static void
span_done_cb(enum span_end how, void *arg)
{
	struct fx *fx = arg;

	fx->how = how;
	fx->ends++;
}

static struct fx *
fx_new(enum kind k, uint32_t idle_ms)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	int a[2], b[2];

	assert_non_null(fx);
	fake = FAKE_NONE;
	splice_calls = fake_hits = 0;
	splice_max = 0;
	make_pair(k, a);
	make_pair(k, b);
	fx->w = a[0];
	fx->src = a[1];
	fx->dst = b[0];
	fx->r = b[1];
	assert_non_null(fx->base = event_base_new());
	fx->wev = event_new(fx->base, fx->w, EV_WRITE | EV_PERSIST,
	    writer_cb, fx);
	fx->rev = event_new(fx->base, fx->r, EV_READ | EV_PERSIST,
	    reader_cb, fx);
	fx->resume = evtimer_new(fx->base, resume_cb, fx);
	fx->deadline = evtimer_new(fx->base, deadline_cb, fx);
	assert_non_null(fx->wev);
	assert_non_null(fx->rev);
	assert_non_null(fx->resume);
	assert_non_null(fx->deadline);
	fx->s = span_new(fx->base, fx->src, fx->dst, idle_ms);
	assert_non_null(fx->s);
	return fx;
}

static void
fx_free(struct fx *fx)
{
	span_free(fx->s);
	event_free(fx->wev);
	if (fx->rev != NULL)
		event_free(fx->rev);
	event_free(fx->resume);
	event_free(fx->deadline);
	event_base_free(fx->base);
	close(fx->w);
	close(fx->src);
	close(fx->dst);
	if (fx->r != -1)
		close(fx->r);
	free(fx);
}

/* Small fixed socket buffers: what is in flight is known to be little. */
static void
fx_small_buffers(struct fx *fx)
{
	int sz = 64 * KiB;

	assert_int_equal(setsockopt(fx->w, SOL_SOCKET, SO_SNDBUF, &sz,
	    sizeof(sz)), 0);
	assert_int_equal(setsockopt(fx->src, SOL_SOCKET, SO_RCVBUF, &sz,
	    sizeof(sz)), 0);
	assert_int_equal(setsockopt(fx->dst, SOL_SOCKET, SO_SNDBUF, &sz,
	    sizeof(sz)), 0);
	assert_int_equal(setsockopt(fx->r, SOL_SOCKET, SO_RCVBUF, &sz,
	    sizeof(sz)), 0);
}

/* The writer sends [sent, total) from now on; shut: then its EOF. */
static void
fx_send(struct fx *fx, uint64_t total, bool shut)
{
	fx->total = total;
	fx->shut = shut;
	assert_int_equal(event_add(fx->wev, NULL), 0);
}

/* The reader starts now, or after ms. */
static void
fx_read(struct fx *fx, int64_t after_ms)
{
	struct timeval tv = { after_ms / 1000, (after_ms % 1000) * 1000 };

	if (after_ms == 0) {
		assert_int_equal(event_add(fx->rev, NULL), 0);
		return;
	}
	fx->paused = true;
	assert_int_equal(evtimer_add(fx->resume, &tv), 0);
}

/* Run until the span has ended and the reader has want bytes (or EOF). */
static void
fx_run(struct fx *fx, int ends, uint64_t want)
{
	struct timeval tv = { DEADLINE_MS / 1000, 0 };

	assert_int_equal(evtimer_add(fx->deadline, &tv), 0);
	while (!fx->timed_out && (fx->ends < ends ||
	    (fx->got < want && !fx->reof)))
		assert_int_not_equal(event_base_loop(fx->base, EVLOOP_ONCE),
		    -1);
	(void)evtimer_del(fx->deadline);
	assert_false(fx->timed_out);
}

/* Bytes waiting unread in fd. */
static int
inq(int fd)
{
	int n = -1;

	assert_int_equal(ioctl(fd, FIONREAD, &n), 0);
	return n;
}

/*
 * Read exactly n bytes of what is left in src (blocking until they are
 * there, bounded) and check they are the stream's [off, off + n).
 */
static void
src_holds(struct fx *fx, uint64_t off, uint64_t n)
{
	unsigned char b[4 * KiB];
	int64_t until = now_ms() + DEADLINE_MS;
	ssize_t got, i;

	while (n > 0) {
		/* The writer may still be sending the tail. */
		(void)event_base_loop(fx->base, EVLOOP_NONBLOCK);
		got = read(fx->src, b, n < sizeof(b) ? (size_t)n : sizeof(b));
		if (got <= 0) {
			assert_true(got == -1 && errno == EAGAIN);
			assert_true(now_ms() < until);
			continue;
		}
		for (i = 0; i < got; i++)
			assert_int_equal(b[i], pat(off + (uint64_t)i));
		off += (uint64_t)got;
		n -= (uint64_t)got;
	}
}

/* ---------------------------------------------------------------- */

/*
 * Exactly n bytes, with more of the stream right behind them: the rest
 * stays in src.  n at and around the pipe's size and the copy buffer's.
 */
static void
exact(enum kind k, uint64_t n, uint64_t extra)
{
	struct fx *fx = fx_new(k, 0);

	fx_send(fx, n + extra, false);
	fx_read(fx, 0);
	assert_int_equal(span_start(fx->s, n, span_done_cb, fx), 0);
	fx_run(fx, 1, n);
	assert_int_equal(fx->how, SPAN_DONE);
	assert_int_equal(span_moved(fx->s), n);
	assert_int_equal(fx->got, n);
	assert_false(fx->bad);
	src_holds(fx, n, extra);
	assert_false(span_running(fx->s));
	fx_free(fx);
}

static void
test_exact_sizes(void **state)
{
	static const uint64_t sizes[] = { 1, 4095, 4096, 16 * KiB,
	    64 * KiB - 1, 64 * KiB, 64 * KiB + 1, 256 * KiB - 1, 256 * KiB,
	    256 * KiB + 1, 512 * KiB, 3 * MiB + 17 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		exact(K_TCP, sizes[i], 1000);
		exact(K_UNIX, sizes[i], 1000);
	}
}

/* Never asked the kernel for more than the stretch has left. */
static void
test_never_asks_past_end(void **state)
{
	exact(K_TCP, 100 * KiB + 3, 64 * KiB);
	assert_true(splice_max <= 100 * KiB + 3);
	assert_true(splice_calls > 0);
}

/*
 * The stretch ends at the very end of what the writer sent, then its
 * EOF: done, and the EOF is left in src for the next reader.
 */
static void
test_ends_at_eof(void **state)
{
	struct fx *fx = fx_new(K_TCP, 0);
	struct pollfd p = { .events = POLLIN };
	char b;

	fx_send(fx, 300 * KiB, true);
	fx_read(fx, 0);
	assert_int_equal(span_start(fx->s, 300 * KiB, span_done_cb, fx), 0);
	fx_run(fx, 1, 300 * KiB);
	assert_int_equal(fx->how, SPAN_DONE);
	assert_int_equal(fx->got, 300 * KiB);
	assert_false(fx->bad);
	p.fd = fx->src;
	assert_int_equal(poll(&p, 1, DEADLINE_MS), 1);
	assert_int_equal(read(fx->src, &b, 1), 0);
	fx_free(fx);
}

/* src ends before n: SPAN_EOF, once what it sent was delivered. */
static void
test_short_eof(void **state)
{
	struct fx *fx = fx_new(K_TCP, 0);

	fx_send(fx, 200 * KiB + 5, true);
	fx_read(fx, 0);
	assert_int_equal(span_start(fx->s, MiB, span_done_cb, fx), 0);
	fx_run(fx, 1, 200 * KiB + 5);
	assert_int_equal(fx->how, SPAN_EOF);
	assert_int_equal(span_moved(fx->s), 200 * KiB + 5);
	assert_int_equal(fx->got, 200 * KiB + 5);
	assert_false(fx->bad);
	/* Not started again after EOF. */
	assert_int_equal(span_start(fx->s, 1, span_done_cb, fx), -1);
	fx_free(fx);
}

/* SPAN_TO_EOF: everything up to EOF, then SPAN_DONE. */
static void
test_to_eof(void **state)
{
	struct fx *fx = fx_new(K_UNIX, 0);

	fx_send(fx, 2 * MiB + 1, true);
	fx_read(fx, 0);
	assert_int_equal(span_start(fx->s, SPAN_TO_EOF, span_done_cb, fx),
	    0);
	fx_run(fx, 1, 2 * MiB + 1);
	assert_int_equal(fx->how, SPAN_DONE);
	assert_int_equal(fx->got, 2 * MiB + 1);
	assert_false(fx->bad);
	fx_free(fx);
}

/* Started again: the next stretch follows on, in order, one pipe. */
static void
test_restart(void **state)
{
	static const uint64_t parts[] = { 20 * KiB, 1, 300 * KiB, 64 * KiB };
	struct fx *fx = fx_new(K_TCP, 0);
	uint64_t off = 0;
	size_t i;

	fx_send(fx, 400 * KiB, false);
	fx_read(fx, 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(span_start(fx->s, parts[i], span_done_cb,
		    fx), 0);
		/* Only once done. */
		assert_int_equal(span_start(fx->s, 1, span_done_cb, fx), -1);
		off += parts[i];
		fx_run(fx, (int)i + 1, off);
		assert_int_equal(fx->how, SPAN_DONE);
		assert_int_equal(span_moved(fx->s), parts[i]);
	}
	assert_int_equal(fx->got, off);
	assert_false(fx->bad);
	src_holds(fx, off, 400 * KiB - off);
	fx_free(fx);
}

/*
 * A reader that stops: the span stops reading src once its pipe is full
 * (src keeps the rest, in the kernel), and goes on when the reader does.
 */
static void
test_backpressure(void **state)
{
	struct fx *fx = fx_new(K_TCP, 0);
	int64_t until = now_ms() + DEADLINE_MS;
	uint64_t last = 0;
	int still = 0;

	fx_small_buffers(fx);
	fx_send(fx, 16 * MiB, false);
	assert_int_equal(span_start(fx->s, 16 * MiB, span_done_cb, fx), 0);
	/*
	 * Until the writer is blocked and stays so for 100 passes of the
	 * loop with nothing to do: everything in between is full.
	 */
	while (still < 100 && now_ms() < until) {
		assert_int_not_equal(event_base_loop(fx->base,
		    EVLOOP_NONBLOCK), -1);
		still = fx->wfull && fx->sent == last ? still + 1 : 0;
		last = fx->sent;
	}
	assert_int_equal(still, 100);
	assert_int_equal(fx->ends, 0);
	/* A pipe and four small socket buffers: far from all of it. */
	assert_true(fx->sent < 4 * MiB);
	assert_true(inq(fx->src) > 0);
	fx_read(fx, 0);
	fx_run(fx, 1, 16 * MiB);
	assert_int_equal(fx->how, SPAN_DONE);
	assert_int_equal(fx->got, 16 * MiB);
	assert_false(fx->bad);
	fx_free(fx);
}

/* Nothing moves for idle_ms: SPAN_IDLE, and not before. */
static void
test_idle(void **state)
{
	struct fx *fx = fx_new(K_TCP, 200);
	int64_t t0 = now_ms();

	fx_read(fx, 0);
	assert_int_equal(span_start(fx->s, 10, span_done_cb, fx), 0);
	fx_run(fx, 1, 0);
	assert_int_equal(fx->how, SPAN_IDLE);
	assert_true(now_ms() - t0 >= 190);
	fx_free(fx);
}

/* A reader that stalls longer than idle_ms also ends it. */
static void
test_idle_stalled_reader(void **state)
{
	struct fx *fx = fx_new(K_TCP, 300);

	fx_send(fx, 32 * MiB, false);
	assert_int_equal(span_start(fx->s, 32 * MiB, span_done_cb, fx), 0);
	fx_run(fx, 1, 0);
	assert_int_equal(fx->how, SPAN_IDLE);
	assert_true(span_moved(fx->s) < 32 * MiB);
	fx_free(fx);
}

/* The reader resets: SPAN_ERROR. */
static void
test_dst_reset(void **state)
{
	struct fx *fx = fx_new(K_TCP, 0);
	struct linger lg = { 1, 0 };

	assert_int_equal(setsockopt(fx->r, SOL_SOCKET, SO_LINGER, &lg,
	    sizeof(lg)), 0);
	event_free(fx->rev);
	fx->rev = NULL;
	assert_int_equal(close(fx->r), 0);
	fx->r = -1;
	fx_send(fx, 4 * MiB, false);
	assert_int_equal(span_start(fx->s, 4 * MiB, span_done_cb, fx), 0);
	fx_run(fx, 1, 0);
	assert_int_equal(fx->how, SPAN_ERROR);
	fx_free(fx);
}

/* Sockets that refuse splice, a pipe that cannot be made: copied. */
static void
fallback(enum fake f, uint64_t n)
{
	struct fx *fx = fx_new(K_TCP, 0);

	fake = f;
	fx_send(fx, n + 777, false);
	fx_read(fx, 0);
	assert_int_equal(span_start(fx->s, n, span_done_cb, fx), 0);
	fx_run(fx, 1, n);
	assert_int_equal(fx->how, SPAN_DONE);
	assert_int_equal(fx->got, n);
	assert_false(fx->bad);
	assert_true(fake_hits > 0);
	src_holds(fx, n, 777);
	fake = FAKE_NONE;
	fx_free(fx);
}

static void
test_copy_fallback(void **state)
{
	fallback(FAKE_SPLICE_FROM_SOCK, 1);
	fallback(FAKE_SPLICE_FROM_SOCK, 3 * MiB + 1);
	fallback(FAKE_SPLICE_TO_SOCK, 64 * KiB);
	fallback(FAKE_SPLICE_TO_SOCK, 3 * MiB + 1);
	fallback(FAKE_PIPE2_EMFILE, 3 * MiB + 1);
}

/* Stream bytes [off, off + n) from fd, as the socket takes them. */
static void
send_pattern(struct fx *fx, uint64_t off, uint64_t n)
{
	unsigned char b[4 * KiB];
	int64_t until = now_ms() + DEADLINE_MS;
	size_t i, k;
	ssize_t w;

	while (n > 0) {
		k = n < sizeof(b) ? (size_t)n : sizeof(b);
		for (i = 0; i < k; i++)
			b[i] = pat(off + i);
		if ((w = send(fx->w, b, k, MSG_NOSIGNAL)) <= 0) {
			assert_true(w == -1 && errno == EAGAIN);
			assert_true(now_ms() < until);
			(void)event_base_loop(fx->base, EVLOOP_NONBLOCK);
			continue;
		}
		off += (uint64_t)w;
		n -= (uint64_t)w;
	}
}

/*
 * TCP urgent data (MSG_OOB) inside a stretch: splice never passes the
 * urgent mark (EAGAIN while the socket stays readable, or 0 once a FIN
 * is in), which spun the loop and moved nothing after the mark.  The
 * span copies from the mark; read(2) steps over the urgent byte, as the
 * bufferevents' reads do, so the stretch is its in-band bytes, exactly.
 */
static void
urgent(bool fin, uint64_t n)
{
	struct fx *fx = fx_new(K_TCP, 0);
	uint64_t before = 40 * KiB, after = 40 * KiB;

	fx_read(fx, 0);
	assert_int_equal(span_start(fx->s, n, span_done_cb, fx), 0);
	send_pattern(fx, 0, before);
	assert_int_equal(send(fx->w, "!", 1, MSG_OOB | MSG_NOSIGNAL), 1);
	send_pattern(fx, before, after);
	if (fin)
		assert_int_equal(shutdown(fx->w, SHUT_WR), 0);
	fx_run(fx, 1, before + after);
	assert_int_equal(fx->how, SPAN_DONE);
	assert_int_equal(fx->got, before + after);
	assert_int_equal(span_moved(fx->s), before + after);
	assert_false(fx->bad);
	assert_true(splice_calls > 0);
	assert_true(splice_calls < 1000);	/* no busy loop */
	fx_free(fx);
}

static void
test_urgent(void **state)
{
	urgent(false, 80 * KiB);
	urgent(true, 80 * KiB);
	urgent(true, SPAN_TO_EOF);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_sizes),
		cmocka_unit_test(test_never_asks_past_end),
		cmocka_unit_test(test_ends_at_eof),
		cmocka_unit_test(test_short_eof),
		cmocka_unit_test(test_to_eof),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_backpressure),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_idle_stalled_reader),
		cmocka_unit_test(test_dst_reset),
		cmocka_unit_test(test_copy_fallback),
		cmocka_unit_test(test_urgent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
