/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_tunnel: proxy/tunnel.c over AF_UNIX socketpairs and loopback TCP.
 *
 * A link is: client peer <-> cfd [tunnel] ofd <-> origin peer.  The test
 * drives both peers from the tunnel's own event loop, so each test is one
 * thread.  Peer callbacks never assert (cmocka would longjmp out of
 * libevent); they record, and the test body asserts.
 *
 * splice() and pipe2() are defined here: an executable's definitions win
 * over libc's, so the tunnel's calls come through these wrappers, which
 * count them and can force the copy fallback.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/sockios.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
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
#include <event2/buffer.h>
#include <event2/event.h>

#include "proxy/tunnel.h"

#define MiB		(1024 * 1024)
#define CHUNK		(256 * 1024)
#define MAX_LINKS	32
#define MAX_MEM		16

/* ---------------------------------------------------------------- */
/* Syscall wrappers: tests/proxy/fakesplice.h. */

#include "tests/proxy/fakesplice.h"

/* ---------------------------------------------------------------- */
/* Helpers. */

enum kind { K_UNIX, K_TCP };
static enum kind kind_unix = K_UNIX, kind_tcp = K_TCP;

struct fx;

struct peer {
	int		 fd;
	struct event	*rev, *wev;
	const unsigned char *out;	/* to send */
	size_t		 outlen, outoff;
	bool		 shut_after;	/* shutdown(SHUT_WR) once sent */
	bool		 eagain;	/* a send was refused */
	unsigned char	*in;		/* received */
	size_t		 incap, inlen;
	bool		 overflow;	/* more than incap arrived */
	bool		 eof;
	int		 rerr, werr;	/* errno of a failed read, send */
};

struct link {
	struct fx	*fx;
	struct peer	 c, o;
	int		 cfd, ofd;	/* the tunnel's */
	struct tunnel	*t;
	bool		 handed;	/* cfd, ofd belong to a tunnel */
	int		 ndone;
	struct tunnel_stats st;
	int64_t		 done_ms;
};

struct fx {
	struct event_base *base;
	struct event	*tick;
	enum kind	 kind;
	struct link	 l[MAX_LINKS];
	int		 nlinks;
	void		*mem[MAX_MEM];
	int		 nmem;
	int		 pipe_base;	/* pipes open before the tunnel */
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Freed by teardown. */
static void *
fx_alloc(struct fx *fx, size_t len)
{
	void *p;

	assert_true(fx->nmem < MAX_MEM);
	p = malloc(len);
	assert_non_null(p);
	memset(p, 0, len);		/* fault it in: RSS checks */
	fx->mem[fx->nmem++] = p;
	return p;
}

static unsigned char *
random_bytes(struct fx *fx, size_t len, uint64_t seed)
{
	unsigned char *p = fx_alloc(fx, len);
	uint64_t x = seed | 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)(x >> 24);
	}
	return p;
}

static void
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	assert_int_not_equal(fl, -1);
	assert_int_equal(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
}

static void
tcp_pair(int sv[2])
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int l, c, a;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_not_equal(l, -1);
	assert_int_equal(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sin, &len), 0);
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_not_equal(c, -1);
	assert_int_equal(connect(c, (struct sockaddr *)&sin, sizeof(sin)),
	    0);
	a = accept4(l, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	assert_int_not_equal(a, -1);
	set_nonblock(c);
	assert_int_equal(close(l), 0);
	sv[0] = c;
	sv[1] = a;
}

static void
make_pair(enum kind k, int sv[2])
{
	if (k == K_TCP)
		tcp_pair(sv);
	else
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM |
		    SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
}

static void
peer_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct peer *p = arg;
	unsigned char junk[512];
	size_t room = p->incap - p->inlen;
	ssize_t n;

	if (room > CHUNK)
		room = CHUNK;
	if (room > 0)
		n = read(fd, p->in + p->inlen, room);
	else
		n = read(fd, junk, sizeof(junk));
	if (n > 0) {
		if (room > 0)
			p->inlen += (size_t)n;
		else
			p->overflow = true;
		return;
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == 0)
		p->eof = true;
	else
		p->rerr = errno;
	(void)event_del(p->rev);
}

static void
peer_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct peer *p = arg;
	size_t len;
	ssize_t n;

	while (p->outoff < p->outlen) {
		len = p->outlen - p->outoff;
		n = send(fd, p->out + p->outoff, len > CHUNK ? CHUNK : len,
		    MSG_NOSIGNAL);
		if (n == -1) {
			if (errno == EAGAIN) {
				p->eagain = true;
				return;
			}
			if (errno == EINTR)
				continue;
			p->werr = errno;
			(void)event_del(p->wev);
			return;
		}
		p->outoff += (size_t)n;
	}
	(void)event_del(p->wev);
	if (p->shut_after && shutdown(fd, SHUT_WR) == -1)
		p->werr = errno;
}

static void
peer_init(struct fx *fx, struct peer *p, int fd)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->rev = event_new(fx->base, fd, EV_READ | EV_PERSIST, peer_read_cb,
	    p);
	p->wev = event_new(fx->base, fd, EV_WRITE | EV_PERSIST,
	    peer_write_cb, p);
	assert_non_null(p->rev);
	assert_non_null(p->wev);
	assert_int_equal(event_add(p->rev, NULL), 0);
}

static void
peer_send(struct peer *p, const unsigned char *buf, size_t len, bool shut)
{
	p->out = buf;
	p->outlen = len;
	p->outoff = 0;
	p->shut_after = shut;
	assert_int_equal(event_add(p->wev, NULL), 0);
}

static void
peer_expect(struct peer *p, unsigned char *buf, size_t cap)
{
	p->in = buf;
	p->incap = cap;
}

/* The test closes a peer itself (reset tests). */
static void
peer_close(struct peer *p)
{
	event_free(p->rev);
	event_free(p->wev);
	p->rev = p->wev = NULL;
	assert_int_equal(close(p->fd), 0);
	p->fd = -1;
}

static void
link_init(struct fx *fx, struct link *l, enum kind k)
{
	int a[2], b[2];

	memset(l, 0, sizeof(*l));
	l->fx = fx;
	make_pair(k, a);
	make_pair(k, b);
	peer_init(fx, &l->c, a[0]);
	l->cfd = a[1];
	l->ofd = b[0];
	peer_init(fx, &l->o, b[1]);
}

static void
done_cb(const struct tunnel_stats *st, void *arg)
{
	struct link *l = arg;

	l->ndone++;
	l->st = *st;
	l->t = NULL;
	l->done_ms = now_ms();
}

static void
link_tunnel(struct link *l, struct evbuffer *early, uint32_t idle_ms)
{
	l->t = tunnel_new(l->fx->base, l->cfd, l->ofd, early, idle_ms,
	    done_cb, l);
	assert_non_null(l->t);
	l->handed = true;
}

/* Keeps the loop from blocking forever, so deadlines are checked. */
static void
tick_cb(evutil_socket_t fd, short what, void *arg)
{
}

static bool
run_until(struct fx *fx, bool (*pred)(struct fx *), int ms)
{
	int64_t end = now_ms() + ms;

	while (pred == NULL || !pred(fx)) {
		if (now_ms() >= end)
			return pred == NULL;
		assert_int_not_equal(event_base_loop(fx->base, EVLOOP_ONCE),
		    -1);
	}
	return true;
}

static void
run_for(struct fx *fx, int ms)
{
	(void)run_until(fx, NULL, ms);
}

/* Every link's tunnel ended and both its peers saw EOF (or an error). */
static bool
all_over(struct fx *fx)
{
	int i;

	for (i = 0; i < fx->nlinks; i++) {
		struct link *l = &fx->l[i];

		if (l->ndone == 0 || !(l->c.eof || l->c.rerr) ||
		    !(l->o.eof || l->o.rerr))
			return false;
	}
	return true;
}

static bool
first_done(struct fx *fx)
{
	return fx->l[0].ndone > 0;
}

static bool
peers_eof(struct fx *fx)
{
	return fx->l[0].c.eof && fx->l[0].o.eof;
}

static bool
fd_closed(int fd)
{
	return fcntl(fd, F_GETFD) == -1 && errno == EBADF;
}

/*
 * Pipes open in this process (each counted once, though both its ends
 * are), and the bytes they hold.
 */
static int
count_pipes(size_t *bytes)
{
	char path[64], target[64], seen[64][64];
	struct dirent *de;
	DIR *dir;
	ssize_t n;
	int cnt = 0, fd, q, i;

	*bytes = 0;
	dir = opendir("/proc/self/fd");
	assert_non_null(dir);
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		if (fd == dirfd(dir))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strncmp(target, "pipe:", 5) != 0)
			continue;
		for (i = 0; i < cnt && strcmp(seen[i], target) != 0; i++)
			;
		if (i < cnt)
			continue;
		assert_true(cnt < 64);
		strcpy(seen[cnt++], target);
		if (ioctl(fd, FIONREAD, &q) == 0)
			*bytes += (size_t)q;
	}
	assert_int_equal(closedir(dir), 0);
	return cnt;
}

static size_t
rss_bytes(void)
{
	unsigned long size, res;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lu %lu", &size, &res), 2);
	assert_int_equal(fclose(f), 0);
	return res * (size_t)sysconf(_SC_PAGESIZE);
}

static int
sockq(int fd, unsigned long req)
{
	int q = -1;

	if (fd != -1 && ioctl(fd, req, &q) == -1)
		q = -1;
	return q;
}

/* ---------------------------------------------------------------- */
/* Fixture. */

static int
setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct timeval tv = { 0, 5000 };

	assert_non_null(fx);
	fx->kind = *(enum kind *)*state;
	fx->base = event_base_new();
	assert_non_null(fx->base);
	fx->tick = event_new(fx->base, -1, EV_PERSIST, tick_cb, NULL);
	assert_non_null(fx->tick);
	assert_int_equal(event_add(fx->tick, &tv), 0);
	link_init(fx, &fx->l[0], fx->kind);
	fx->nlinks = 1;
	fake = FAKE_NONE;
	splice_calls = fake_hits = 0;
	*state = fx;
	return 0;
}

static void
peer_fini(struct peer *p)
{
	if (p->fd == -1)
		return;
	event_free(p->rev);
	event_free(p->wev);
	(void)close(p->fd);
}

static int
teardown(void **state)
{
	struct fx *fx = *state;
	int i;

	fake = FAKE_NONE;
	for (i = 0; i < fx->nlinks; i++) {
		struct link *l = &fx->l[i];

		if (l->t != NULL)
			tunnel_free(l->t);
		else if (!l->handed) {
			(void)close(l->cfd);
			(void)close(l->ofd);
		}
		peer_fini(&l->c);
		peer_fini(&l->o);
	}
	for (i = 0; i < fx->nmem; i++)
		free(fx->mem[i]);
	event_free(fx->tick);
	event_base_free(fx->base);
	free(fx);
	return 0;
}

/* Both ways at once, shut after sending; checks everything arrived. */
static void
bulk(struct fx *fx, size_t len)
{
	struct link *l = &fx->l[0];
	unsigned char *up = random_bytes(fx, len, 1);
	unsigned char *down = random_bytes(fx, len, 2);

	peer_expect(&l->o, fx_alloc(fx, len), len);
	peer_expect(&l->c, fx_alloc(fx, len), len);
	link_tunnel(l, NULL, 0);
	peer_send(&l->c, up, len, true);
	peer_send(&l->o, down, len, true);
	assert_true(run_until(fx, all_over, 30000));
	assert_int_equal(l->ndone, 1);
	assert_true(l->c.eof && l->o.eof);
	assert_false(l->c.overflow || l->o.overflow);
	assert_int_equal(l->c.werr, 0);
	assert_int_equal(l->o.werr, 0);
	assert_int_equal(l->o.inlen, len);
	assert_int_equal(l->c.inlen, len);
	assert_memory_equal(l->o.in, up, len);
	assert_memory_equal(l->c.in, down, len);
	assert_int_equal(l->st.to_origin, len);
	assert_int_equal(l->st.to_client, len);
	assert_true(fd_closed(l->cfd));
	assert_true(fd_closed(l->ofd));
}

/* ---------------------------------------------------------------- */
/* Tests. */

/* 8 MiB random each way, simultaneously, byte-exact, through splice. */
static void
test_bulk(void **state)
{
	struct fx *fx = *state;

	bulk(fx, 8 * MiB);
	assert_true(splice_calls > 0);
}

/* Early bytes reach the origin first, then what the client sends. */
static void
early_case(struct fx *fx, size_t elen, int pause_ms)
{
	struct link *l = &fx->l[0];
	size_t llen = 1 * MiB;
	unsigned char *e = random_bytes(fx, elen, 3);
	unsigned char *late = random_bytes(fx, llen, 4);
	struct evbuffer *early = evbuffer_new();

	assert_non_null(early);
	assert_int_equal(evbuffer_add(early, e, elen), 0);
	peer_expect(&l->o, fx_alloc(fx, elen + llen), elen + llen);
	if (pause_ms > 0)
		assert_int_equal(event_del(l->o.rev), 0);
	link_tunnel(l, early, 0);
	assert_int_equal(evbuffer_get_length(early), 0);
	evbuffer_free(early);		/* the caller's; drained already */
	/* The client goes on at once, with no thought for the early bytes. */
	peer_send(&l->c, late, llen, true);
	peer_send(&l->o, NULL, 0, true);
	if (pause_ms > 0) {
		run_for(fx, pause_ms);
		assert_int_equal(l->ndone, 0);
		assert_int_equal(event_add(l->o.rev, NULL), 0);
	}
	assert_true(run_until(fx, all_over, 30000));
	assert_int_equal(l->o.inlen, elen + llen);
	assert_memory_equal(l->o.in, e, elen);
	assert_memory_equal(l->o.in + elen, late, llen);
	assert_int_equal(l->st.to_origin, elen + llen);
	assert_int_equal(l->st.to_client, 0);
}

static void
test_early_small(void **state)
{
	early_case(*state, 37, 0);
}

/* More than the socket takes at once: partial writes, EV_WRITE. */
static void
test_early_large(void **state)
{
	early_case(*state, 6 * MiB, 100);
}

static bool
origin_eof(struct fx *fx)
{
	return fx->l[0].o.eof;
}

/* Client shuts its write side; the origin sees EOF and still answers. */
static void
test_half_close(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];
	static const unsigned char hello[] = "hello";
	size_t len = 2 * MiB;
	unsigned char *answer = random_bytes(fx, len, 5);

	peer_expect(&l->o, fx_alloc(fx, 16), 16);
	peer_expect(&l->c, fx_alloc(fx, len), len);
	link_tunnel(l, NULL, 0);
	peer_send(&l->c, hello, 5, true);
	assert_true(run_until(fx, origin_eof, 5000));
	assert_int_equal(l->o.inlen, 5);
	assert_memory_equal(l->o.in, hello, 5);
	run_for(fx, 50);
	assert_int_equal(l->ndone, 0);	/* the other way is still open */
	assert_false(l->c.eof);

	peer_send(&l->o, answer, len, true);
	assert_true(run_until(fx, all_over, 30000));
	assert_int_equal(l->c.inlen, len);
	assert_memory_equal(l->c.in, answer, len);
	assert_int_equal(l->ndone, 1);
	assert_int_equal(l->st.to_origin, 5);
	assert_int_equal(l->st.to_client, len);
}

static bool
client_closed(struct fx *fx)
{
	return fx->l[0].ndone > 0 && (fx->l[0].c.eof || fx->l[0].c.rerr);
}

static bool
client_in_eof(struct fx *fx)
{
	return fx->l[0].c.eof || fx->l[0].c.rerr;
}

/*
 * The origin answers and closes before the tunnel reads: its answer and
 * its FIN are both in (the common end of a request).  The client gets
 * every byte, then the EOF, and the tunnel waits for the client's own.
 * Sizes under the copy buffer (the EOF read in the same round, the bytes
 * sent with MSG_MORE) and past it.
 */
static void
answer_then_close(struct fx *fx, size_t len)
{
	struct link *l = &fx->l[0];
	unsigned char *answer = random_bytes(fx, len, 10);

	peer_expect(&l->c, fx_alloc(fx, len), len);
	assert_int_equal(send(l->o.fd, answer, len, MSG_NOSIGNAL), len);
	assert_int_equal(shutdown(l->o.fd, SHUT_WR), 0);
	link_tunnel(l, NULL, 0);
	assert_true(run_until(fx, client_in_eof, 5000));
	assert_true(l->c.eof);
	assert_int_equal(l->c.inlen, len);
	assert_memory_equal(l->c.in, answer, len);
	assert_int_equal(l->ndone, 0);	/* the client's way is still open */
	assert_int_equal(shutdown(l->c.fd, SHUT_WR), 0);
	assert_true(run_until(fx, all_over, 5000));
	assert_int_equal(l->st.to_client, len);
	assert_int_equal(l->st.to_origin, 0);
}

static void
test_answer_then_close(void **state)
{
	struct fx *fx = *state;

	answer_then_close(fx, 333);
}

static void
test_answer_then_close_big(void **state)
{
	struct fx *fx = *state;

	answer_then_close(fx, 100000);
}

/*
 * The same to a client that takes little at a time: what the client
 * socket does not take at once waits, and the EOF goes after it.
 */
static void
test_answer_then_close_full(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];
	size_t len = 15000;
	unsigned char *answer = random_bytes(fx, len, 11);
	int small = 2048;

	assert_int_equal(setsockopt(l->cfd, SOL_SOCKET, SO_SNDBUF, &small,
	    sizeof(small)), 0);
	assert_int_equal(setsockopt(l->c.fd, SOL_SOCKET, SO_RCVBUF, &small,
	    sizeof(small)), 0);
	(void)event_del(l->c.rev);
	peer_expect(&l->c, fx_alloc(fx, len), len);
	assert_int_equal(send(l->o.fd, answer, len, MSG_NOSIGNAL), len);
	assert_int_equal(shutdown(l->o.fd, SHUT_WR), 0);
	link_tunnel(l, NULL, 0);
	run_for(fx, 50);
	assert_false(l->c.eof);
	assert_int_equal(event_add(l->c.rev, NULL), 0);
	assert_true(run_until(fx, client_in_eof, 5000));
	assert_true(l->c.eof);
	assert_int_equal(l->c.inlen, len);
	assert_memory_equal(l->c.in, answer, len);
	assert_int_equal(shutdown(l->c.fd, SHUT_WR), 0);
	assert_true(run_until(fx, all_over, 5000));
	assert_int_equal(l->st.to_client, len);
}

/* The origin answers and resets: the answer still reaches the client. */
static void
test_answer_then_reset(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];
	struct linger lg = { 1, 0 };
	size_t len = 333;
	unsigned char *answer = random_bytes(fx, len, 12);

	peer_expect(&l->c, fx_alloc(fx, len), len);
	assert_int_equal(send(l->o.fd, answer, len, MSG_NOSIGNAL), len);
	assert_int_equal(setsockopt(l->o.fd, SOL_SOCKET, SO_LINGER, &lg,
	    sizeof(lg)), 0);
	peer_close(&l->o);
	link_tunnel(l, NULL, 0);
	assert_true(run_until(fx, client_closed, 5000));
	assert_int_equal(l->c.inlen, len);
	assert_memory_equal(l->c.in, answer, len);
	assert_int_equal(l->ndone, 1);
}

/* Abortive close on the origin: RST over TCP, plain close over AF_UNIX. */
static void
origin_reset(struct link *l)
{
	struct linger lg = { 1, 0 };

	if (l->fx->kind == K_TCP)
		assert_int_equal(setsockopt(l->o.fd, SOL_SOCKET, SO_LINGER,
		    &lg, sizeof(lg)), 0);
	peer_close(&l->o);
}

static bool
client_eof(struct fx *fx)
{
	return fx->l[0].c.eof;
}

/*
 * An idle tunnel whose origin resets ends and closes the client.  AF_UNIX
 * has no reset: the close is an EOF, passed on as one, and the tunnel
 * ends when the client's next bytes cannot be delivered (EPIPE).
 */
static void
test_reset_idle(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];

	link_tunnel(l, NULL, 0);
	run_for(fx, 20);
	origin_reset(l);
	if (fx->kind == K_UNIX) {
		assert_true(run_until(fx, client_eof, 5000));
		assert_int_equal(l->ndone, 0);
		assert_int_equal(send(l->c.fd, "x", 1, MSG_NOSIGNAL), 1);
	}
	assert_true(run_until(fx, client_closed, 5000));
	assert_int_equal(l->ndone, 1);
	assert_true(fd_closed(l->cfd));
}

static bool
origin_got_some(struct fx *fx)
{
	return fx->l[0].o.inlen > 0;
}

/* The origin resets while the client streams into it. */
static void
test_reset_busy(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];
	size_t len = 64 * MiB;

	peer_expect(&l->o, fx_alloc(fx, len), len);
	link_tunnel(l, NULL, 0);
	peer_send(&l->c, random_bytes(fx, len, 6), len, false);
	/*
	 * The origin stops reading once bytes flow, so the client is still
	 * streaming when the origin goes: on a fast machine the whole 64 MiB
	 * would otherwise be through before the reset.
	 */
	assert_true(run_until(fx, origin_got_some, 5000));
	(void)event_del(l->o.rev);
	run_for(fx, 30);
	assert_true(l->o.inlen > 0);
	origin_reset(l);
	assert_true(run_until(fx, client_closed, 5000));
	assert_int_equal(l->ndone, 1);
	assert_true(l->st.to_origin >= l->o.inlen);
	assert_true(l->c.outoff < len);
}

/* Early bytes to an origin that has already reset: ends, no crash. */
static void
test_early_to_reset(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];
	struct evbuffer *early = evbuffer_new();

	assert_non_null(early);
	assert_int_equal(evbuffer_add(early, "0123456789", 10), 0);
	origin_reset(l);
	run_for(fx, 10);
	link_tunnel(l, early, 0);
	evbuffer_free(early);
	assert_true(run_until(fx, client_closed, 5000));
	assert_int_equal(l->ndone, 1);
}

/*
 * A receiver that does not read: the sender must be refused, the amount
 * accepted must stop growing, the tunnel holds one pipe (copying: one
 * buffer) at most, and user memory does not grow.  Then the receiver
 * reads and all 64 MiB arrive.
 */
static void
stall(struct fx *fx, int want_pipes)
{
	struct link *l = &fx->l[0];
	size_t len = 64 * MiB, pbytes, a1, a2, rss0, rss1;
	unsigned char *up = random_bytes(fx, len, 7);
	int npipes, base, i;

	peer_expect(&l->o, fx_alloc(fx, len), len);
	assert_int_equal(event_del(l->o.rev), 0);	/* not reading */
	base = count_pipes(&pbytes);
	assert_int_equal(pbytes, 0);
	rss0 = rss_bytes();
	link_tunnel(l, NULL, 0);
	peer_send(&l->c, up, len, true);
	peer_send(&l->o, NULL, 0, true);
	/*
	 * Stopped growing: 200 ms with nothing more accepted.  Loaded, or
	 * under a sanitizer, the kernel's socket buffers may take a while
	 * to fill (autotuning): up to 3 s.
	 */
	run_for(fx, 300);
	a1 = l->c.outoff;
	for (i = 0; i < 15; i++) {
		run_for(fx, 200);
		if ((a2 = l->c.outoff) == a1)
			break;
		a1 = a2;
	}
	rss1 = rss_bytes();
	npipes = count_pipes(&pbytes) - base;
	print_message("stalled: accepted %zu of %zu; client peer outq %d, "
	    "cfd inq %d, pipe %zu, ofd outq %d, origin peer inq %d; "
	    "rss +%zd KiB\n", a2, len, sockq(l->c.fd, SIOCOUTQ),
	    sockq(l->cfd, SIOCINQ), pbytes, sockq(l->ofd, SIOCOUTQ),
	    sockq(l->o.fd, SIOCINQ), ((ssize_t)rss1 - (ssize_t)rss0) / 1024);
	assert_true(l->c.eagain);
	assert_true(a2 < len);
	assert_int_equal(a1, a2);
	assert_int_equal(l->o.inlen, 0);
	assert_int_equal(npipes, want_pipes);
	assert_true(pbytes <= 1 * MiB);
	assert_true(rss1 < rss0 + 2 * MiB);
	assert_int_equal(l->ndone, 0);

	assert_int_equal(event_add(l->o.rev, NULL), 0);
	assert_true(run_until(fx, all_over, 60000));
	assert_int_equal(l->o.inlen, len);
	assert_memory_equal(l->o.in, up, len);
	assert_int_equal(l->st.to_origin, len);
}

static void
test_backpressure(void **state)
{
	stall(*state, 1);	/* client -> origin only */
}

/* Copying, what the origin does not take waits in the one buffer. */
static void
test_backpressure_copy(void **state)
{
	fake = FAKE_SPLICE_FROM_SOCK;
	stall(*state, 0);
	assert_true(fake_hits >= 1);
}

/* No traffic for idle_timeout_ms: ends around then. */
static void
test_idle_timeout(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];
	int64_t t0 = now_ms(), el;

	link_tunnel(l, NULL, 200);
	assert_true(run_until(fx, first_done, 3000));
	el = l->done_ms - t0;
	print_message("idle tunnel ended after %lld ms\n", (long long)el);
	assert_true(el >= 190 && el <= 450);
	assert_true(run_until(fx, peers_eof, 2000));
	assert_int_equal(l->st.to_origin + l->st.to_client, 0);
}

/* Traffic either way postpones the idle timeout (600 ms of it, here). */
static void
test_idle_activity(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];
	int64_t last = 0, el;
	int i;

	peer_expect(&l->o, fx_alloc(fx, 16), 16);
	peer_expect(&l->c, fx_alloc(fx, 16), 16);
	link_tunnel(l, NULL, 300);
	for (i = 0; i < 6; i++) {
		run_for(fx, 100);
		assert_int_equal(l->ndone, 0);
		assert_int_equal(send(i % 2 ? l->o.fd : l->c.fd, "x", 1,
		    MSG_NOSIGNAL), 1);
		last = now_ms();
	}
	assert_true(run_until(fx, first_done, 3000));
	el = l->done_ms - last;
	print_message("ended %lld ms after the last byte\n", (long long)el);
	assert_true(el >= 280 && el <= 550);
	assert_int_equal(l->st.to_origin, 3);
	assert_int_equal(l->st.to_client, 3);
	assert_true(run_until(fx, peers_eof, 2000));
	assert_int_equal(l->o.inlen, 3);
	assert_int_equal(l->c.inlen, 3);
}

static bool
ping_arrived(struct fx *fx)
{
	return fx->l[0].o.inlen == 4;
}

/* tunnel_free closes both sockets, and calls nothing back. */
static void
test_tunnel_free(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];

	peer_expect(&l->o, fx_alloc(fx, 16), 16);
	link_tunnel(l, NULL, 1000);
	peer_send(&l->c, (const unsigned char *)"ping", 4, false);
	assert_true(run_until(fx, ping_arrived, 5000));
	tunnel_free(l->t);
	l->t = NULL;
	assert_true(fd_closed(l->cfd));
	assert_true(fd_closed(l->ofd));
	assert_true(run_until(fx, peers_eof, 5000));
	run_for(fx, 20);
	assert_int_equal(l->ndone, 0);
	tunnel_free(NULL);
}

static bool
pong_arrived(struct fx *fx)
{
	return fx->l[0].c.inlen == 4;
}

/* What the origin and the client side must have received. */
static size_t want_o, want_c;

static bool
both_arrived(struct fx *fx)
{
	return fx->l[0].o.inlen == want_o && fx->l[0].c.inlen == want_c;
}

#define BULK_CHUNK	(256 * 1024)	/* fills a copy buffer: splice */

/*
 * Small messages are copied and make no pipe; the first bulk transfer in
 * a direction makes that direction's pipe.
 */
static void
test_pipes_lazy(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];
	unsigned char *big = random_bytes(fx, BULK_CHUNK, 3);
	size_t b;
	int base;

	peer_expect(&l->o, fx_alloc(fx, 16), 16);
	peer_expect(&l->c, fx_alloc(fx, BULK_CHUNK + 16), BULK_CHUNK + 16);
	base = count_pipes(&b);
	link_tunnel(l, NULL, 0);
	run_for(fx, 20);
	assert_int_equal(count_pipes(&b), base);
	peer_send(&l->c, (const unsigned char *)"ping", 4, true);
	assert_true(run_until(fx, ping_arrived, 5000));
	run_for(fx, 20);		/* client EOF: that way is done */
	assert_int_equal(count_pipes(&b), base);
	peer_send(&l->o, (const unsigned char *)"pong", 4, false);
	assert_true(run_until(fx, pong_arrived, 5000));
	assert_int_equal(count_pipes(&b), base);	/* small: copied */
	want_o = 4;
	want_c = 4 + BULK_CHUNK;
	peer_send(&l->o, big, BULK_CHUNK, false);
	assert_true(run_until(fx, both_arrived, 5000));
	assert_memory_equal(l->c.in + 4, big, BULK_CHUNK);
	assert_int_equal(count_pipes(&b), base + 1);	/* origin -> client */
	assert_int_equal(l->ndone, 0);
}

static bool
pipes_back(struct fx *fx)
{
	size_t b;

	return count_pipes(&b) == fx->pipe_base;
}

/*
 * A quiet tunnel gives its pipes back after a while, even with no idle
 * timeout, and makes them again for the next bulk bytes.
 */
static void
test_pipes_quiet(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];
	unsigned char *up = random_bytes(fx, BULK_CHUNK, 4);
	unsigned char *down = random_bytes(fx, BULK_CHUNK, 5);
	size_t b;
	int base, round;
	int64_t t0;

	base = fx->pipe_base = count_pipes(&b);
	peer_expect(&l->o, fx_alloc(fx, BULK_CHUNK), BULK_CHUNK);
	peer_expect(&l->c, fx_alloc(fx, BULK_CHUNK), BULK_CHUNK);
	link_tunnel(l, NULL, 0);
	want_o = want_c = BULK_CHUNK;
	for (round = 0; round < 2; round++) {
		l->o.inlen = l->c.inlen = 0;
		peer_send(&l->c, up, BULK_CHUNK, false);
		peer_send(&l->o, down, BULK_CHUNK, false);
		assert_true(run_until(fx, both_arrived, 5000));
		assert_int_equal(count_pipes(&b), base + 2);
		assert_memory_equal(l->o.in, up, BULK_CHUNK);
		assert_memory_equal(l->c.in, down, BULK_CHUNK);
		t0 = now_ms();
		assert_true(run_until(fx, pipes_back, 5000));
		print_message("pipes given back after %lld ms quiet\n",
		    (long long)(now_ms() - t0));
	}
	assert_int_equal(l->ndone, 0);
	assert_int_equal(count_pipes(&b), base);
}

/* splice refused one way or the other, or no pipe: copy, byte-exact. */
static void
test_fallback_src(void **state)
{
	fake = FAKE_SPLICE_FROM_SOCK;
	bulk(*state, 3 * MiB);
	assert_true(fake_hits >= 2);
}

static void
test_fallback_dst(void **state)
{
	fake = FAKE_SPLICE_TO_SOCK;
	bulk(*state, 3 * MiB);
	assert_true(fake_hits >= 2);
}

static void
test_fallback_nopipe(void **state)
{
	fake = FAKE_PIPE2_EMFILE;
	bulk(*state, 3 * MiB);
	assert_true(fake_hits >= 2);
}

/* Many tunnels on one loop, all busy at once. */
static void
test_many(void **state)
{
	struct fx *fx = *state;
	size_t len = 1 * MiB;
	unsigned char *up = random_bytes(fx, len, 8);
	unsigned char *down = random_bytes(fx, len, 9);
	unsigned char *in = fx_alloc(fx, 2 * len * MAX_LINKS);
	int i;

	for (i = 1; i < MAX_LINKS; i++)
		link_init(fx, &fx->l[i], fx->kind);
	fx->nlinks = MAX_LINKS;
	for (i = 0; i < MAX_LINKS; i++) {
		struct link *l = &fx->l[i];

		peer_expect(&l->o, in + 2 * i * len, len);
		peer_expect(&l->c, in + (2 * i + 1) * len, len);
		link_tunnel(l, NULL, 10000);
		peer_send(&l->c, up, len, true);
		peer_send(&l->o, down, len, true);
	}
	assert_true(run_until(fx, all_over, 60000));
	for (i = 0; i < MAX_LINKS; i++) {
		struct link *l = &fx->l[i];

		assert_int_equal(l->ndone, 1);
		assert_int_equal(l->o.inlen, len);
		assert_int_equal(l->c.inlen, len);
		assert_memory_equal(l->o.in, up, len);
		assert_memory_equal(l->c.in, down, len);
	}
}

static void
quiet_log(int sev, const char *msg)
{
}

/* On failure the sockets and the early bytes stay the caller's. */
static void
test_new_fails(void **state)
{
	struct fx *fx = *state;
	struct evbuffer *early = evbuffer_new();
	struct tunnel *t;
	FILE *f = tmpfile();

	assert_non_null(early);
	assert_non_null(f);
	assert_int_equal(evbuffer_add(early, "abc", 3), 0);
	/* epoll refuses regular files, so event_add fails. */
	event_set_log_callback(quiet_log);
	t = tunnel_new(fx->base, fx->l[0].cfd, fileno(f), early, 100,
	    done_cb, &fx->l[0]);
	event_set_log_callback(NULL);
	assert_null(t);
	assert_int_equal(evbuffer_get_length(early), 3);
	assert_false(fd_closed(fileno(f)));
	assert_false(fd_closed(fx->l[0].cfd));
	assert_null(tunnel_new(NULL, 0, 1, NULL, 0, done_cb, NULL));
	assert_null(tunnel_new(fx->base, -1, 1, NULL, 0, done_cb, NULL));
	run_for(fx, 250);
	assert_int_equal(fx->l[0].ndone, 0);
	evbuffer_free(early);
	assert_int_equal(fclose(f), 0);
}

static bool
both_sent(struct fx *fx)
{
	struct link *l = &fx->l[0];

	return l->c.outoff == l->c.outlen && l->o.outoff == l->o.outlen;
}

/* One urgent byte (MSG_OOB) on fd, once the socket takes it. */
static void
send_urgent(struct fx *fx, int fd)
{
	int64_t end = now_ms() + 5000;

	while (send(fd, "!", 1, MSG_OOB | MSG_NOSIGNAL) != 1) {
		assert_true(errno == EAGAIN && now_ms() < end);
		run_for(fx, 1);
	}
}

/*
 * TCP urgent data in the middle of a stream, both ways, once each way
 * splices: splice never passes the urgent mark (it says EAGAIN while the
 * socket stays readable: a busy loop, and nothing after the mark ever
 * moved).  From the mark the direction copies; read(2) steps over the
 * urgent byte, so each side gets every other byte, in order.
 */
static void
test_urgent(void **state)
{
	struct fx *fx = *state;
	struct link *l = &fx->l[0];
	size_t half = 1 * MiB;
	unsigned char *up = random_bytes(fx, 2 * half, 11);
	unsigned char *down = random_bytes(fx, 2 * half, 12);

	peer_expect(&l->o, fx_alloc(fx, 2 * half), 2 * half);
	peer_expect(&l->c, fx_alloc(fx, 2 * half), 2 * half);
	link_tunnel(l, NULL, 0);
	peer_send(&l->c, up, half, false);
	peer_send(&l->o, down, half, false);
	assert_true(run_until(fx, both_sent, 10000));
	send_urgent(fx, l->c.fd);
	send_urgent(fx, l->o.fd);
	peer_send(&l->c, up + half, half, true);
	peer_send(&l->o, down + half, half, true);
	assert_true(run_until(fx, all_over, 10000));
	assert_true(splice_calls > 0);
	assert_false(l->c.overflow || l->o.overflow);
	assert_int_equal(l->o.inlen, 2 * half);
	assert_int_equal(l->c.inlen, 2 * half);
	assert_memory_equal(l->o.in, up, 2 * half);
	assert_memory_equal(l->c.in, down, 2 * half);
	assert_int_equal(l->st.to_origin, 2 * half);
	assert_int_equal(l->st.to_client, 2 * half);
}

#define T(f, k)	{ #f "/" #k, f, setup, teardown, &kind_##k }

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_bulk, unix),
		T(test_bulk, tcp),
		T(test_early_small, unix),
		T(test_early_small, tcp),
		T(test_early_large, unix),
		T(test_early_large, tcp),
		T(test_half_close, unix),
		T(test_half_close, tcp),
		T(test_answer_then_close, unix),
		T(test_answer_then_close, tcp),
		T(test_answer_then_close_big, unix),
		T(test_answer_then_close_big, tcp),
		T(test_answer_then_close_full, tcp),
		T(test_answer_then_reset, tcp),
		T(test_reset_idle, unix),
		T(test_reset_idle, tcp),
		T(test_reset_busy, unix),
		T(test_reset_busy, tcp),
		T(test_early_to_reset, tcp),
		T(test_backpressure, unix),
		T(test_backpressure, tcp),
		T(test_backpressure_copy, unix),
		T(test_backpressure_copy, tcp),
		T(test_idle_timeout, tcp),
		T(test_idle_activity, tcp),
		T(test_tunnel_free, unix),
		T(test_tunnel_free, tcp),
		T(test_pipes_lazy, tcp),
		T(test_pipes_quiet, tcp),
		T(test_fallback_src, unix),
		T(test_fallback_src, tcp),
		T(test_fallback_dst, tcp),
		T(test_fallback_nopipe, tcp),
		T(test_many, unix),
		T(test_many, tcp),
		T(test_new_fails, tcp),
		T(test_urgent, tcp),
	};

	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
