/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_spawnmsg: the spawn's messages (sandbox/spawn_msg.c) on a
 * SOCK_SEQPACKET pair, as the processes of a run use them:
 *
 *   - a message and its descriptors arrive whole, the descriptors
 *     close-on-exec;
 *   - nothing within the bound is ETIMEDOUT; a short packet or a closed
 *     peer is EPIPE, and the descriptors a short packet carried are
 *     closed;
 *   - a peer that closed with our message unread: what it sent first is
 *     still read (ECONNRESET is not taken for its end);
 *   - an ack never waits on a full socket;
 *   - a child's failed step arrives as MSG_FAIL (the confinement's or
 *     not), and the child ends with 3.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox/spawn_int.h"

#define UNUSED	__attribute__((unused))

static void
pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
	    0, sv), 0);
}

static void
test_roundtrip(void **state UNUSED)
{
	struct msg m = { .kind = MSG_DIRECT, .pid = 42, .port = 8080 };
	struct msg got;
	int sv[2], p[2], fds[SANDBOX_MAX_FDS], sent[2];
	size_t n;
	char c = 0;

	pair(sv);
	assert_int_equal(pipe(p), 0);
	m.refusal.port = 443;
	snprintf(m.refusal.addr, sizeof(m.refusal.addr), "192.0.2.1");
	sent[0] = p[1];
	sent[1] = p[0];
	assert_int_equal(spawn_send(sv[0], &m, sent, 2), 0);
	memset(&got, 0, sizeof(got));
	assert_int_equal(spawn_recv(sv[1], &got, fds, &n, 1000), 0);
	assert_int_equal(got.kind, MSG_DIRECT);
	assert_int_equal(got.pid, 42);
	assert_int_equal(got.port, 8080);
	assert_int_equal(got.refusal.port, 443);
	assert_string_equal(got.refusal.addr, "192.0.2.1");
	assert_int_equal(n, 2);
	/* The same pipe, each end close-on-exec. */
	assert_true(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(fds[1], F_GETFD) & FD_CLOEXEC);
	assert_int_equal(write(fds[0], "x", 1), 1);
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(c, 'x');
	/* A message without descriptors carries none. */
	assert_int_equal(spawn_send(sv[0], &m, NULL, 0), 0);
	assert_int_equal(spawn_recv(sv[1], &got, fds + 2, &n, 1000), 0);
	assert_int_equal(n, 0);
	(void)close(fds[0]);
	(void)close(fds[1]);
	(void)close(p[0]);
	(void)close(p[1]);
	(void)close(sv[0]);
	(void)close(sv[1]);
}

static void
test_timeout(void **state UNUSED)
{
	struct msg got;
	int sv[2], fds[SANDBOX_MAX_FDS];
	size_t n = 7;

	pair(sv);
	errno = 0;
	assert_int_equal(spawn_recv(sv[1], &got, fds, &n, 20), -1);
	assert_int_equal(errno, ETIMEDOUT);
	assert_int_equal(n, 0);
	(void)close(sv[0]);
	(void)close(sv[1]);
}

/* A packet that is no struct msg: refused, its descriptor closed. */
static void
test_short(void **state UNUSED)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} u;
	struct iovec iov = { "shrt", 4 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	struct msg got;
	int sv[2], p[2], fds[SANDBOX_MAX_FDS];
	size_t n = 7;
	char c;

	pair(sv);
	/* Non-blocking: a writer left open is EAGAIN, not a hang. */
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	memset(&u, 0, sizeof(u));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &p[1], sizeof(int));
	assert_int_equal(sendmsg(sv[0], &mh, 0), 4);
	(void)close(p[1]);	/* the one in flight is the last write end */
	errno = 0;
	assert_int_equal(spawn_recv(sv[1], &got, fds, &n, 1000), -1);
	assert_int_equal(errno, EPIPE);
	assert_int_equal(n, 0);
	/* Closed by spawn_recv: the pipe has no writer left. */
	assert_int_equal(read(p[0], &c, 1), 0);
	(void)close(p[0]);
	(void)close(sv[0]);
	(void)close(sv[1]);
}

static void
test_closed(void **state UNUSED)
{
	struct msg got;
	int sv[2], fds[SANDBOX_MAX_FDS];
	size_t n;

	pair(sv);
	(void)close(sv[0]);
	errno = 0;
	assert_int_equal(spawn_recv(sv[1], &got, fds, &n, 1000), -1);
	assert_int_equal(errno, EPIPE);
	(void)close(sv[1]);
}

/*
 * setup's last word, its peer's message unread: the kernel reports the
 * reset first (ECONNRESET), the word is still queued behind it.
 */
static void
test_reset_then_word(void **state UNUSED)
{
	struct msg m = { .kind = MSG_ACK }, got;
	int sv[2], fds[SANDBOX_MAX_FDS];
	size_t n;

	pair(sv);
	assert_int_equal(spawn_send(sv[0], &m, NULL, 0), 0);
	m.kind = MSG_EXIT;
	m.wstatus = 7 << 8;
	assert_int_equal(spawn_send(sv[1], &m, NULL, 0), 0);
	(void)close(sv[1]);	/* MSG_ACK unread */
	memset(&got, 0, sizeof(got));
	assert_int_equal(spawn_recv(sv[0], &got, fds, &n, 1000), 0);
	assert_int_equal(got.kind, MSG_EXIT);
	assert_int_equal(got.wstatus, 7 << 8);
	errno = 0;
	assert_int_equal(spawn_recv(sv[0], &got, fds, &n, 1000), -1);
	assert_int_equal(errno, EPIPE);
	(void)close(sv[0]);
}

/* init waits for its ack bounded; harn-egressd never waits to send it. */
static void
test_ack_never_waits(void **state UNUSED)
{
	struct msg m = { .kind = MSG_ACK };
	int sv[2], i, rc = 0;

	pair(sv);
	alarm(10);	/* an ack that waits ends the test */
	for (i = 0; i < 1000000 && (rc = spawn_send_ack(sv[0], &m)) == 0;
	    i++)
		;
	assert_int_equal(rc, -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	alarm(0);
	(void)close(sv[0]);
	(void)close(sv[1]);
}

/* A child's failed step: said on the socket, then exit 3. */
static void
fail_in_child(bool setup, struct msg *got)
{
	struct setup_fail f = { .err = ENOSPC, .mech = MECH_NAMESPACES,
	    .area = AREA_LOCAL_SOCKET, .text = "mount: full" };
	int sv[2], fds[SANDBOX_MAX_FDS], st;
	size_t n;
	pid_t pid;

	pair(sv);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		(void)close(sv[1]);
		errno = EACCES;
		if (setup)
			spawn_report_fail(sv[0], true, &f);
		spawn_fail(sv[0], AREA_WRITE, MECH_LANDLOCK, "step %d: %s", 7,
		    "denied");
	}
	(void)close(sv[0]);
	memset(got, 0, sizeof(*got));
	assert_int_equal(spawn_recv(sv[1], got, fds, &n, 5000), 0);
	assert_int_equal(n, 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 3);
	(void)close(sv[1]);
}

static void
test_child_fail(void **state UNUSED)
{
	struct msg got;

	fail_in_child(false, &got);
	assert_int_equal(got.kind, MSG_FAIL);
	assert_false(got.setup);
	assert_int_equal(got.fail.err, EACCES);
	assert_int_equal(got.fail.mech, MECH_LANDLOCK);
	assert_int_equal(got.fail.area, AREA_WRITE);
	assert_string_equal(got.fail.text, "step 7: denied");
	fail_in_child(true, &got);
	assert_int_equal(got.kind, MSG_FAIL);
	assert_true(got.setup);
	assert_int_equal(got.fail.err, ENOSPC);
	assert_int_equal(got.fail.mech, MECH_NAMESPACES);
	assert_int_equal(got.fail.area, AREA_LOCAL_SOCKET);
	assert_string_equal(got.fail.text, "mount: full");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_closed),
		cmocka_unit_test(test_reset_then_word),
		cmocka_unit_test(test_ack_never_waits),
		cmocka_unit_test(test_child_fail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
