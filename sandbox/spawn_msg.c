/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spawn's messages (spawn_int.h): one struct msg per SOCK_SEQPACKET
 * packet on the control socket, the descriptors it hands over with it
 * (SCM_RIGHTS); and a child's failed step, said there before it ends.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/spawn_int.h"

static int
send_msg(int ctl, const struct msg *m, const int *fds, size_t nfds,
    int flags)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int) * SANDBOX_MAX_FDS)];
		struct cmsghdr	align;
	} u;
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (nfds > 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	return sendmsg(ctl, &mh, MSG_NOSIGNAL | flags) == (ssize_t)sizeof(*m) ?
	    0 : -1;
}

int
spawn_send(int ctl, const struct msg *m, const int *fds, size_t nfds)
{
	return send_msg(ctl, m, fds, nfds, 0);
}

/* The same, never waiting: -1 (EAGAIN) when harn-egressd is behind. */
int
spawn_send_nowait(int ctl, const struct msg *m, const int *fds, size_t nfds)
{
	return send_msg(ctl, m, fds, nfds, MSG_DONTWAIT);
}

/* An answer to init that never waits: init waits for it, bounded. */
int
spawn_send_ack(int ctl, const struct msg *m)
{
	return send(ctl, m, sizeof(*m), MSG_NOSIGNAL | MSG_DONTWAIT) ==
	    (ssize_t)sizeof(*m) ? 0 : -1;
}

/* One message and the descriptors it carries; -1 with errno. */
int
spawn_recv(int ctl, struct msg *m, int *fds, size_t *nfds, int timeout_ms)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int) * SANDBOX_MAX_FDS)];
		struct cmsghdr	align;
	} u;
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct pollfd pfd = { ctl, POLLIN, 0 };
	struct cmsghdr *c;
	ssize_t n;

	*nfds = 0;
	if (timeout_ms >= 0 && poll(&pfd, 1, timeout_ms) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	/*
	 * A peer that closed with our message unread leaves ECONNRESET to be
	 * reported first; what it sent before is still queued behind it.
	 */
	do {
		n = recvmsg(ctl, &mh, MSG_CMSG_CLOEXEC);
	} while (n == -1 && (errno == EINTR || errno == ECONNRESET));
	c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (c != NULL && c->cmsg_level == SOL_SOCKET &&
	    c->cmsg_type == SCM_RIGHTS) {
		*nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds, CMSG_DATA(c), *nfds * sizeof(int));
	}
	if (n != (ssize_t)sizeof(*m)) {
		while (*nfds > 0)
			(void)close(fds[--*nfds]);
		if (n >= 0)
			errno = EPIPE;
		return -1;
	}
	return 0;
}

/* In the children: report a failed step, then end. */
void
spawn_report_fail(int ctl, bool setup, const struct setup_fail *f)
{
	struct msg m = { .kind = MSG_FAIL, .setup = setup, .fail = *f };

	(void)spawn_send(ctl, &m, NULL, 0);
	_exit(3);
}

void
spawn_fail(int ctl, enum sandbox_area area, int mech, const char *fmt, ...)
{
	struct setup_fail f = { .err = errno, .mech = mech, .area = area };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f.text, sizeof(f.text), fmt, ap);
	va_end(ap);
	spawn_report_fail(ctl, false, &f);
}
