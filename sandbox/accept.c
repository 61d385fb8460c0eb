/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Nothing comes in (SPEC 6.5), in the landlock confinement, where the
 * command's loopback is the host's: any process of the machine could
 * connect to a listener of the command's, and a host service that shares
 * a port with it (SO_REUSEPORT) would have its clients handed to it.
 *
 *   - Every accept() of the command stops here and is made by the
 *     broker, on its own reference to the listener (pidfd_getfd, or the
 *     fresh socket it bound in the caller's place and still holds).  A
 *     TCP connection is handed to the caller only when the broker itself
 *     made its connect for a process of the run (inbound.c); any other
 *     is reset (SO_LINGER 0) before a byte is read, said as a refusal
 *     with the peer's address, and the next one is looked at.  The
 *     caller's blocking or non-blocking semantics are kept: a blocking
 *     caller waits here while the loop goes on; a non-blocking one gets
 *     EAGAIN when only others' connections were waiting (as after a
 *     spurious wakeup of its epoll).
 *   - The connection goes in with SECCOMP_ADDFD_FLAG_SEND: put in place
 *     and answered in one step.  The peer's address is written where the
 *     caller asked for it.  One accepted for a caller that is gone (a
 *     signal) waits for the next accept() on that listener.
 *   - SO_REUSEPORT is refused (EPERM, said once on stderr): no host
 *     service started later can share a port with the command.
 *
 * Unix listeners are not filtered: their peers are what the file
 * system's rights on the socket let in (a socket of the command's is made
 * only under a root it may write).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include <event2/event.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

#define ACCEPT_TRIES	64	/* others' connections reset per call */

#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND	(1UL << 1)	/* Linux 5.14 */
#endif

/* An accept() of the command, until it is answered. */
struct acceptor {
	TAILQ_ENTRY(acceptor)	 entry;
	struct broker		*b;
	uint64_t		 id;
	pid_t			 tid;
	int			 lsock;		/* the listener: ours */
	unsigned long		 lino;
	int			 flags;		/* accept4's SOCK_* */
	uint64_t		 addr_at;	/* where the peer goes, or 0 */
	uint64_t		 len_at;
	struct event		*ev;
};

static void
acceptor_free(struct acceptor *a)
{
	if (a->ev != NULL)
		event_free(a->ev);
	if (a->lsock != -1)
		(void)close(a->lsock);
	free(a);
}

static void
acceptor_unlink(struct acceptor *a)
{
	TAILQ_REMOVE(&a->b->acceptors, a, entry);
	a->b->nacceptors--;
}

static void
acceptor_finish(struct acceptor *a, int err)
{
	(void)broker_respond(a->b, a->id, err);
	acceptor_free(a);
}

/*
 * Our own reference to the caller's listener, and its inode; -1 with an
 * errno when it is none (EINVAL: not a socket that listens here).
 */
static int
listener_of(struct broker *b, struct caller *who, int fd,
    unsigned long *ino, int *err)
{
	struct stat st;
	char proto[32];
	int s, flags, h;
	bool cloexec;

	if (b->getfd) {
		if ((s = broker_take_socket(b, who, fd, err)) == -1)
			return -1;
		if (fstat(s, &st) == -1 || !S_ISSOCK(st.st_mode)) {
			(void)close(s);
			*err = ENOTSOCK;
			return -1;
		}
		*ino = (unsigned long)st.st_ino;
		return s;
	}
	if ((*err = broker_describe(who->tid, fd, ino, &flags, &cloexec,
	    proto, sizeof(proto))) != 0)
		return -1;
	/* Every listener of the command's was bound, and is held, here. */
	if ((h = broker_held_find(b, *ino)) == -1) {
		*err = EINVAL;
		return -1;
	}
	if ((s = fcntl(b->held[h].fd, F_DUPFD_CLOEXEC, 3)) == -1)
		*err = errno;
	return s;
}

/*
 * One connection off the queue, never waiting: the description's
 * O_NONBLOCK (the caller's too) is set for this one call.  *nonblock: the
 * caller's own setting.
 */
static int
accept_one(int lsock, struct sockaddr_storage *peer, socklen_t *plen,
    bool *nonblock)
{
	int fl, s, err;

	if ((fl = fcntl(lsock, F_GETFL)) == -1)
		return -1;
	*nonblock = (fl & O_NONBLOCK) != 0;
	if (!*nonblock)
		(void)fcntl(lsock, F_SETFL, fl | O_NONBLOCK);
	*plen = sizeof(*peer);
	memset(peer, 0, sizeof(*peer));
	s = accept4(lsock, (struct sockaddr *)peer, plen, SOCK_CLOEXEC);
	err = errno;
	if (!*nonblock)
		(void)fcntl(lsock, F_SETFL, fl);
	errno = err;
	return s;
}

/* A TCP connection's addresses: its peer's, its own. */
static bool
tcp_ends(int s, const struct sockaddr_storage *peer,
    struct sockaddr_storage *local)
{
	socklen_t len = sizeof(*local);

	memset(local, 0, sizeof(*local));
	return (peer->ss_family == AF_INET || peer->ss_family == AF_INET6) &&
	    getsockname(s, (struct sockaddr *)local, &len) == 0;
}

static unsigned short
port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)(const void *)ss)->
		    sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)(const void *)ss)->
		    sin6_port);
	return 0;
}

/* Another's connection: reset unread, and said. */
static void
refuse_inbound(struct acceptor *a, int s, const struct sockaddr_storage *peer,
    socklen_t plen, const struct sockaddr_storage *local)
{
	struct linger l = { 1, 0 };

	(void)setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	(void)close(s);
	broker_say_refused(a->b, a->tid, BROKER_OP_INBOUND, peer, plen, NULL,
	    port_of(local));
}

/* The peer's address where the caller asked for it; 0 or an errno. */
static int
put_peer(struct acceptor *a, const struct sockaddr_storage *peer,
    socklen_t plen)
{
	struct caller *who = broker_caller_of(a->b, a->tid);
	int len, err;

	if (a->addr_at == 0)
		return 0;
	if (a->len_at == 0)
		return EFAULT;
	if ((err = broker_read_mem(a->b, who, a->len_at, &len,
	    sizeof(len))) != 0)
		return err;
	if (len < 0)
		return EINVAL;
	if ((err = broker_write_mem(a->b, who, a->addr_at, peer,
	    (size_t)len < plen ? (size_t)len : plen)) != 0)
		return err;
	len = (int)plen;
	return broker_write_mem(a->b, who, a->len_at, &len, sizeof(len));
}

/* Keep a connection for the next accept() on lino. */
static void
stash(struct broker *b, unsigned long lino, int s,
    const struct sockaddr_storage *peer, socklen_t plen)
{
	if (b->nstash == STASH_MAX) {
		(void)close(b->stash[0].fd);
		memmove(&b->stash[0], &b->stash[1],
		    (STASH_MAX - 1) * sizeof(b->stash[0]));
		b->nstash--;
	}
	b->stash[b->nstash].lino = lino;
	b->stash[b->nstash].fd = s;
	b->stash[b->nstash].peer = *peer;
	b->stash[b->nstash].plen = plen;
	b->nstash++;
}

static int
unstash(struct broker *b, unsigned long lino,
    struct sockaddr_storage *peer, socklen_t *plen)
{
	size_t i;
	int s;

	for (i = 0; i < b->nstash; i++) {
		if (b->stash[i].lino != lino)
			continue;
		s = b->stash[i].fd;
		*peer = b->stash[i].peer;
		*plen = b->stash[i].plen;
		memmove(&b->stash[i], &b->stash[i + 1],
		    (b->nstash - i - 1) * sizeof(b->stash[0]));
		b->nstash--;
		return s;
	}
	return -1;
}

/*
 * The connection into the caller's table, answered in the same step.
 * Consumes a: answered, or (the caller gone) the connection kept.
 */
static void
deliver(struct acceptor *a, int s, const struct sockaddr_storage *peer,
    socklen_t plen)
{
	struct seccomp_notif_addfd add;
	int err;

	if ((err = put_peer(a, peer, plen)) != 0 ||
	    ((a->flags & SOCK_NONBLOCK) && fcntl(s, F_SETFL, O_NONBLOCK) ==
	    -1)) {
		stash(a->b, a->lino, s, peer, plen);
		acceptor_finish(a, err != 0 ? err : errno);
		return;
	}
	memset(&add, 0, sizeof(add));
	add.id = a->id;
	add.flags = SECCOMP_ADDFD_FLAG_SEND;
	add.srcfd = (uint32_t)s;
	add.newfd_flags = (a->flags & SOCK_CLOEXEC) ? O_CLOEXEC : 0;
	if (ioctl(a->b->notify, SECCOMP_IOCTL_NOTIF_ADDFD, &add) == -1) {
		err = errno;
		/* Still queued, as the kernel would leave it: for the next. */
		stash(a->b, a->lino, s, peer, plen);
		if (err != ENOENT) {
			acceptor_finish(a, err == EMFILE ? EMFILE : ENOBUFS);
			return;
		}
		acceptor_free(a);
		return;
	}
	(void)close(s);
	acceptor_free(a);
}

/*
 * Look at the queue: 0 when a was answered (and freed), EAGAIN when
 * nothing of the command's was there; *nonblock says how the caller
 * waits.
 */
static int
try_accept(struct acceptor *a, bool *nonblock)
{
	struct sockaddr_storage peer, local;
	socklen_t plen;
	int s, i, err;

	*nonblock = (fcntl(a->lsock, F_GETFL) & O_NONBLOCK) != 0;
	if ((s = unstash(a->b, a->lino, &peer, &plen)) != -1) {
		deliver(a, s, &peer, plen);
		return 0;
	}
	for (i = 0; i < ACCEPT_TRIES; i++) {
		if ((s = accept_one(a->lsock, &peer, &plen, nonblock)) == -1)
			break;
		if (!tcp_ends(s, &peer, &local) ||
		    inbound_take(&a->b->inbound, &peer, &local)) {
			deliver(a, s, &peer, plen);
			return 0;
		}
		refuse_inbound(a, s, &peer, plen, &local);
	}
	err = s == -1 ? errno : EAGAIN;
	if (err == EAGAIN || err == EWOULDBLOCK)
		return EAGAIN;
	acceptor_finish(a, err);
	return 0;
}

static void
wait_cb(evutil_socket_t fd, short what, void *arg)
{
	struct acceptor *a = arg;
	bool nonblock;

	(void)fd;
	if (!broker_alive(a->b, a->id)) {	/* interrupted, or killed */
		acceptor_unlink(a);
		acceptor_free(a);
		return;
	}
	if (what & EV_TIMEOUT) {		/* the listener's SO_RCVTIMEO */
		acceptor_unlink(a);
		acceptor_finish(a, EAGAIN);
		return;
	}
	/* Unlinked first: an answer frees it. */
	acceptor_unlink(a);
	if (try_accept(a, &nonblock) == 0)
		return;
	TAILQ_INSERT_TAIL(&a->b->acceptors, a, entry);
	a->b->nacceptors++;
}

/* A blocking caller waits for a connection of the command's own. */
static void
wait_for(struct acceptor *a)
{
	struct timeval tv;
	socklen_t len = sizeof(tv);
	bool timed;

	if (a->b->nacceptors >= MAX_ACCEPTORS) {
		acceptor_finish(a, ENOBUFS);
		return;
	}
	memset(&tv, 0, sizeof(tv));
	timed = getsockopt(a->lsock, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) ==
	    0 && (tv.tv_sec > 0 || tv.tv_usec > 0);
	a->ev = event_new(a->b->base, a->lsock, EV_READ | EV_PERSIST, wait_cb,
	    a);
	if (a->ev == NULL || event_add(a->ev, timed ? &tv : NULL) == -1) {
		acceptor_finish(a, ENOMEM);
		return;
	}
	TAILQ_INSERT_TAIL(&a->b->acceptors, a, entry);
	a->b->nacceptors++;
}

void
broker_accept(struct broker *b, const struct seccomp_notif *req, bool four)
{
	struct caller *who = broker_caller_of(b, (pid_t)req->pid);
	struct acceptor *a;
	socklen_t len = sizeof(int);
	int flags = four ? (int)req->data.args[3] : 0, on = 0, err = 0;
	bool nonblock;

	if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) {
		(void)broker_respond(b, req->id, EINVAL);
		return;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		(void)broker_respond(b, req->id, ENOMEM);
		return;
	}
	a->b = b;
	a->id = req->id;
	a->tid = (pid_t)req->pid;
	a->flags = flags;
	a->addr_at = req->data.args[1];
	a->len_at = req->data.args[2];
	if ((a->lsock = listener_of(b, who, (int)req->data.args[0], &a->lino,
	    &err)) == -1) {
		acceptor_finish(a, err);
		return;
	}
	if (!broker_alive(b, req->id)) {
		acceptor_free(a);
		return;
	}
	if (getsockopt(a->lsock, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) == -1 ||
	    !on) {
		acceptor_finish(a, errno == ENOTSOCK ? ENOTSOCK : EINVAL);
		return;
	}
	if (try_accept(a, &nonblock) == 0)
		return;
	if (nonblock)
		acceptor_finish(a, EAGAIN);
	else
		wait_for(a);
}

/* Callers gone while they waited; records of lost connections. */
void
broker_accept_sweep(struct broker *b)
{
	struct acceptor *a, *next;

	for (a = TAILQ_FIRST(&b->acceptors); a != NULL; a = next) {
		next = TAILQ_NEXT(a, entry);
		if (broker_alive(b, a->id))
			continue;
		acceptor_unlink(a);
		acceptor_free(a);
	}
	inbound_sweep(&b->inbound);
}

void
broker_accept_free(struct broker *b)
{
	struct acceptor *a;

	while ((a = TAILQ_FIRST(&b->acceptors)) != NULL) {
		acceptor_unlink(a);
		acceptor_free(a);
	}
	while (b->nstash > 0)
		(void)close(b->stash[--b->nstash].fd);
	inbound_free(&b->inbound);
}

/* Once a run: why a program's SO_REUSEPORT failed. */
static void
say_reuseport(pid_t tid)
{
	static bool said;
	char exe[256];

	if (said)
		return;
	said = true;
	broker_exe_of(tid, exe, sizeof(exe));
	if (exe[0] == '\0')
		snprintf(exe, sizeof(exe), "?");
	fprintf(stderr, "harn-egressd: sandbox: refused SO_REUSEPORT from pid "
	    "%ld (%s): in the landlock confinement loopback is the host's, "
	    "and a host service on the same port would share its clients "
	    "with the command; bind without it (see harn-egressd(8), RUN "
	    "MODE)\n", (long)tid, exe);
}

/*
 * setsockopt(SOL_SOCKET, SO_REUSEPORT): true when it was that, and was
 * answered here on the value read once: turned on, refused; turned off,
 * done already (it is never on).  Never let go on, where the kernel
 * would read the value again.
 */
bool
broker_reuseport(struct broker *b, const struct seccomp_notif *req)
{
	struct caller *who;
	char path[64], link[64];
	int on = 0, len = (int)req->data.args[4];

	if (b->mode != BROKER_LL || (int)req->data.args[1] != SOL_SOCKET ||
	    (int)req->data.args[2] != SO_REUSEPORT)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)req->pid,
	    (int)req->data.args[0]);
	who = broker_caller_of(b, (pid_t)req->pid);
	if (broker_proc_readlink(path, link, sizeof(link)) <= 0)
		(void)broker_respond(b, req->id, EBADF);
	else if (diag_socket_inode(link) == 0)
		(void)broker_respond(b, req->id, ENOTSOCK);
	else if (len < (int)sizeof(int))
		(void)broker_respond(b, req->id, EINVAL);
	else if (broker_read_mem(b, who, req->data.args[3], &on,
	    sizeof(on)) != 0)
		(void)broker_respond(b, req->id, EFAULT);
	else if (on == 0)
		(void)broker_respond(b, req->id, 0);
	else {
		say_reuseport((pid_t)req->pid);
		(void)broker_respond(b, req->id, EPERM);
	}
	return true;
}
