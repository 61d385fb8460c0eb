/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_inbound: the record of the command's own loopback connections
 * (sandbox/inbound.c), which decides what an accept() in the landlock
 * confinement hands the command (SPEC 6.5).
 *
 *   - inbound_same_endpoint: addresses and ports compared, an IPv4
 *     address and its mapped IPv6 form alike, port 0 never a match;
 *   - on real loopback sockets: a recorded connection is known at
 *     accept, once; one never recorded (another process's) is not; a
 *     record whose connection was lost (reset, refused) never matches,
 *     and is swept.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox/internal.h"

#define UNUSED	__attribute__((unused))

static struct sockaddr_storage
inet(const char *a, unsigned short port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, a, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
	} else {
		assert_int_equal(inet_pton(AF_INET6, a, &sin6->sin6_addr), 1);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
	}
	return ss;
}

static void
test_same_endpoint(void **state UNUSED)
{
	static const struct {
		const char	*a;
		unsigned short	 pa;
		const char	*b;
		unsigned short	 pb;
		bool		 same;
	} rows[] = {
		{ "127.0.0.1", 8000, "127.0.0.1", 8000, true },
		{ "127.0.0.1", 8000, "::ffff:127.0.0.1", 8000, true },
		{ "::ffff:127.0.0.1", 8000, "127.0.0.1", 8000, true },
		{ "::1", 8000, "::1", 8000, true },
		{ "127.0.0.1", 8000, "127.0.0.1", 8001, false },
		{ "127.0.0.1", 8000, "127.0.0.2", 8000, false },
		{ "127.0.0.1", 8000, "::1", 8000, false },
		{ "::1", 8000, "::2", 8000, false },
		{ "127.0.0.1", 0, "127.0.0.1", 0, false },	/* unbound */
	};
	struct sockaddr_storage x, y;
	struct sockaddr_un *sun;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		x = inet(rows[i].a, rows[i].pa);
		y = inet(rows[i].b, rows[i].pb);
		if (inbound_same_endpoint(&x, &y) != rows[i].same)
			fail_msg("row %zu: %s:%u and %s:%u", i, rows[i].a,
			    rows[i].pa, rows[i].b, rows[i].pb);
	}
	/* Not an inet address: never. */
	memset(&y, 0, sizeof(y));
	sun = (struct sockaddr_un *)&y;
	sun->sun_family = AF_UNIX;
	x = inet("127.0.0.1", 8000);
	assert_false(inbound_same_endpoint(&x, &y));
	assert_false(inbound_same_endpoint(&y, &y));
}

/* A listener on 127.0.0.1, its address in *at. */
static int
listener(struct sockaddr_storage *at)
{
	socklen_t len = sizeof(*at);
	int s;

	*at = inet("127.0.0.1", 0);
	assert_true((s = socket(AF_INET, SOCK_STREAM, 0)) != -1);
	assert_int_equal(bind(s, (struct sockaddr *)at,
	    sizeof(struct sockaddr_in)), 0);
	assert_int_equal(listen(s, 16), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)at, &len), 0);
	return s;
}

static int
client(const struct sockaddr_storage *to)
{
	int c;

	assert_true((c = socket(AF_INET, SOCK_STREAM, 0)) != -1);
	assert_int_equal(connect(c, (const struct sockaddr *)to,
	    sizeof(struct sockaddr_in)), 0);
	return c;
}

/* Accept one: its peer's address and its own. */
static int
take(int l, struct sockaddr_storage *peer, struct sockaddr_storage *local)
{
	socklen_t plen = sizeof(*peer), llen = sizeof(*local);
	int s;

	assert_true((s = accept(l, (struct sockaddr *)peer, &plen)) != -1);
	assert_int_equal(getsockname(s, (struct sockaddr *)local, &llen), 0);
	return s;
}

static void
test_recorded_once(void **state UNUSED)
{
	struct sockaddr_storage at, peer, local;
	struct inbound in;
	int l, c, s;

	inbound_init(&in);
	l = listener(&at);
	c = client(&at);
	assert_int_equal(inbound_add(&in, c, &at), 0);
	assert_int_equal(in.n, 1);
	s = take(l, &peer, &local);
	assert_true(inbound_take(&in, &peer, &local));
	/* Taken: the same addresses are no longer known. */
	assert_false(inbound_take(&in, &peer, &local));
	assert_int_equal(in.n, 0);
	(void)close(s);
	(void)close(c);
	(void)close(l);
	inbound_free(&in);
}

static void
test_another_s_connection(void **state UNUSED)
{
	struct sockaddr_storage at, peer, local;
	struct inbound in;
	int l, mine, theirs, s1, s2;

	inbound_init(&in);
	l = listener(&at);
	mine = client(&at);
	theirs = client(&at);		/* never recorded */
	assert_int_equal(inbound_add(&in, mine, &at), 0);
	s1 = take(l, &peer, &local);
	assert_true(inbound_take(&in, &peer, &local));
	s2 = take(l, &peer, &local);
	assert_false(inbound_take(&in, &peer, &local));
	(void)close(s1);
	(void)close(s2);
	(void)close(mine);
	(void)close(theirs);
	(void)close(l);
	inbound_free(&in);
}

/*
 * The record holds the connecting socket: the command closing its own
 * copy does not free the four-tuple for another socket.
 */
static void
test_record_holds_the_socket(void **state UNUSED)
{
	struct sockaddr_storage at, peer, local;
	struct inbound in;
	char buf[8];
	int l, c, s;

	inbound_init(&in);
	l = listener(&at);
	c = client(&at);
	assert_int_equal(write(c, "abc", 3), 3);
	assert_int_equal(inbound_add(&in, c, &at), 0);
	(void)close(c);			/* the command lets go */
	s = take(l, &peer, &local);
	assert_true(inbound_take(&in, &peer, &local));
	/* Its bytes, then its end once the record let go too. */
	assert_int_equal(read(s, buf, sizeof(buf)), 3);
	assert_int_equal(read(s, buf, sizeof(buf)), 0);
	(void)close(s);
	(void)close(l);
	inbound_free(&in);
}

/* A connection lost before its accept: its record never matches. */
static void
test_lost_connection(void **state UNUSED)
{
	struct sockaddr_storage at, closed;
	struct pollfd p;
	struct inbound in;
	int l, c;

	inbound_init(&in);
	l = listener(&at);
	closed = at;
	(void)close(l);		/* nothing listens there now */
	assert_true((c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) !=
	    -1);
	assert_int_equal(connect(c, (struct sockaddr *)&closed,
	    sizeof(struct sockaddr_in)) == 0 || errno == EINPROGRESS ||
	    errno == ECONNREFUSED, 1);
	assert_int_equal(inbound_add(&in, c, &closed), 0);
	p.fd = c;
	p.events = POLLOUT;
	assert_int_equal(poll(&p, 1, 5000), 1);	/* refused: done */
	inbound_sweep(&in);
	assert_int_equal(in.n, 0);
	(void)close(c);
	inbound_free(&in);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_endpoint),
		cmocka_unit_test(test_recorded_once),
		cmocka_unit_test(test_another_s_connection),
		cmocka_unit_test(test_record_holds_the_socket),
		cmocka_unit_test(test_lost_connection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
