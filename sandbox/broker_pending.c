/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A connect of the command's, made without blocking the broker's loop:
 * tried, waited for (a blocking caller, a full unix backlog, a connect
 * through the proxy waiting for the proxy's answer), then answered, a
 * fresh socket put in the caller's place if it connected.  Connects to a
 * listener of the command's are recorded for accept (inbound.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include <event2/event.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

void
broker_pending_release(struct pending *p)
{
	if (p->ev != NULL)
		event_free(p->ev);
	if (p->sock != -1)
		(void)close(p->sock);
	if (p->target != -1)
		(void)close(p->target);
	tproxy_free(p->tp);
	free(p);
}

static void
unlink_pending(struct pending *p)
{
	TAILQ_REMOVE(&p->b->pending, p, entry);
	p->b->npending--;
}

void
broker_finish(struct pending *p, int err)
{
	(void)broker_respond(p->b, p->id, err);
	broker_pending_release(p);
}

/*
 * A fresh socket goes in the caller's place, with the caller's O_NONBLOCK
 * and FD_CLOEXEC: then the answer.  0 or an errno.
 */
int
broker_install(struct pending *p)
{
	struct seccomp_notif_addfd a;

	if (fcntl(p->sock, F_SETFL, p->flags & O_NONBLOCK) == -1)
		return errno;
	memset(&a, 0, sizeof(a));
	a.id = p->id;
	a.flags = SECCOMP_ADDFD_FLAG_SETFD;
	a.srcfd = (uint32_t)p->sock;
	a.newfd = (uint32_t)p->fdno;
	a.newfd_flags = p->cloexec ? O_CLOEXEC : 0;
	if (ioctl(p->b->notify, SECCOMP_IOCTL_NOTIF_ADDFD, &a) == -1)
		return errno == ENOENT ? ENOENT : EBADF;
	return 0;
}

static void complete(struct pending *, int);

/* The proxy answered a connect carried through it: the connect's end. */
static void
asked_cb(void *arg, int err)
{
	struct pending *p = arg;

	unlink_pending(p);
	complete(p, err);
}

/*
 * Connected to the proxy for a connect carried through it (SPEC 6.6): a
 * blocking caller's answer waits for the proxy's decision; a caller that
 * does not wait is answered EINPROGRESS once the proxy has agreed to
 * tell its decision aside (broker_hold.c).  0, or an errno.
 */
static int
ask_proxy(struct pending *p)
{
	int err;

	if (p->b->npending >= MAX_PENDING)
		return EAGAIN;
	p->hold = broker_may_hold(p);
	if ((err = tproxy_ask(p->tp, p->b->base, p->sock, p->hold, asked_cb,
	    p)) != 0)
		return err;
	TAILQ_INSERT_TAIL(&p->b->pending, p, entry);
	p->b->npending++;
	return 0;
}

/*
 * The end of a connect: put a fresh socket in place if it connected.  A
 * connect through the proxy ends when the proxy answered, or for a
 * caller that does not wait, when the proxy took the question (held);
 * refused, the caller's own socket lets go of the proxy (AF_UNSPEC).
 */
static void
complete(struct pending *p, int err)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	const struct sockaddr_storage *to;
	socklen_t tolen;
	int e;

	/* A DNS query over TCP: harn-egressd answers it on that socket. */
	if (p->tp != NULL && !p->dns && !tproxy_asked(p->tp)) {
		if (err == 0 && (err = ask_proxy(p)) == 0)
			return;
		err = ECONNREFUSED;
	}
	/* getpeername() says the address asked for (broker_peer.c). */
	if (p->tp != NULL && err == 0) {
		to = tproxy_target(p->tp, &tolen);
		broker_peer_add(p->b, p->sock, to, tolen);
	}
	/* Held: in progress, the socket unwritable until the decision. */
	if (p->tp != NULL && err == 0 && tproxy_held(p->tp))
		err = broker_hold(p) == 0 ? EINPROGRESS : ECONNREFUSED;
	if (p->tp != NULL && err != 0 && err != EINPROGRESS) {
		broker_peer_forget(p->b, p->sock);
		if (!p->fresh)
			(void)connect(p->sock, &unspec, sizeof(unspec));
		/*
		 * A caller that does not wait learns of a refusal as from any
		 * connect: EINPROGRESS, then SO_ERROR (broker_hold.c).
		 */
		if (p->hold && broker_hold_refused(p) == 0)
			err = EINPROGRESS;
	}
	if (p->fresh && (err == 0 || err == EINPROGRESS) &&
	    (e = broker_install(p)) != 0)
		err = e;
	broker_finish(p, err);
}

/* One attempt, without blocking the loop. */
static int
try_connect(struct pending *p)
{
	struct sockaddr_un sun;
	const struct sockaddr *sa = (const void *)&p->addr;
	socklen_t len = p->addrlen;
	int rv, err;

	if (p->target != -1) {
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "/proc/self/fd/%d",
		    p->target);
		sa = (const void *)&sun;
		len = (socklen_t)sizeof(sun);
	}
	/* The caller's own socket: non-blocking for this one call. */
	if (!p->fresh && !(p->flags & O_NONBLOCK))
		(void)fcntl(p->sock, F_SETFL, p->flags | O_NONBLOCK);
	rv = connect(p->sock, len > 0 ? sa : NULL, len);
	err = rv == 0 ? 0 : errno;
	if (!p->fresh && !(p->flags & O_NONBLOCK))
		(void)fcntl(p->sock, F_SETFL, p->flags);
	return err;
}

static void wait_cb(evutil_socket_t, short, void *);

/* A blocking caller waits until its connect ends one way or the other. */
static void
wait_for(struct pending *p, int err)
{
	struct timeval tv = { 0, RETRY_MS * 1000 };
	short what = err == EINPROGRESS ? EV_WRITE : EV_TIMEOUT;

	if (p->b->npending >= MAX_PENDING) {
		broker_finish(p, EAGAIN);
		return;
	}
	p->ev = event_new(p->b->base, err == EINPROGRESS ? p->sock : -1, what,
	    wait_cb, p);
	if (p->ev == NULL || event_add(p->ev, err == EINPROGRESS ? NULL :
	    &tv) == -1) {
		broker_finish(p, ENOMEM);
		return;
	}
	TAILQ_INSERT_TAIL(&p->b->pending, p, entry);
	p->b->npending++;
}

/* Connect, and answer now, or when it is done for a blocking caller. */
void
broker_run_connect(struct pending *p)
{
	int err = try_connect(p);

	/* To a listener of the command's: known as its own at accept. */
	if (p->own && (err == 0 || err == EINPROGRESS)) {
		p->own = false;
		if (inbound_add(&p->b->inbound, p->sock, &p->addr) != 0) {
			complete(p, ENOBUFS);
			return;
		}
	}

	/* Through the proxy: no caller is answered before the proxy is. */
	if ((!(p->flags & O_NONBLOCK) || p->tp != NULL) &&
	    (err == EINPROGRESS || err == EAGAIN))
		wait_for(p, err);
	else
		complete(p, err);
}

static void
wait_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pending *p = arg;
	socklen_t len = sizeof(int);
	int err;

	unlink_pending(p);
	event_free(p->ev);
	p->ev = NULL;
	if (what & EV_WRITE) {
		if (getsockopt(p->sock, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		complete(p, err);
		return;
	}
	if (!broker_alive(p->b, p->id)) {
		broker_pending_release(p);
		return;
	}
	/* A unix listener's backlog was full: try again. */
	broker_run_connect(p);
}

/* The connects waiting: all of them, or (gone) those whose caller is. */
void
broker_pending_free(struct broker *b, bool gone)
{
	struct pending *p, *next;

	for (p = TAILQ_FIRST(&b->pending); p != NULL; p = next) {
		next = TAILQ_NEXT(p, entry);
		if (gone && broker_alive(b, p->id))
			continue;
		unlink_pending(p);
		broker_pending_release(p);
	}
}
