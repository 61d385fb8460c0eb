/* SPDX-License-Identifier: Apache-2.0 */
/*
 * UDP in the landlock confinement (SPEC 6.6).  The command shares the
 * host's network, where a datagram socket could send anywhere to an
 * address no filter can read (sendmsg's sits behind two pointers).  So
 * the command never holds one: its socket(AF_INET or AF_INET6,
 * SOCK_DGRAM) stops here and is answered with a stand-in, one end of a
 * unix SOCK_SEQPACKET pair whose other end is the run's answerer in
 * harn-egressd.  A seqpacket socket has one peer, and the kernel drops
 * any address a send names (unix_seqpacket_sendmsg): whatever the
 * command does with its stand-in, its datagrams reach the answerer and
 * nothing else.  This file only makes the stand-in look like UDP to a
 * resolver:
 *
 *   - connect(): port 53, of any address, becomes the server it speaks
 *     to (getpeername says it, broker_peer.c); any other port is refused
 *     and said (not_through_proxy); AF_UNSPEC forgets the server.
 *   - bind() to port 0 (musl binds its resolver's socket) is done
 *     already; any other port is refused: nothing comes in.
 *   - sendto() with an address: port 53 is sent here, on our reference
 *     to the stand-in, from the copy read once; any other is refused and
 *     said.
 *   - recvfrom() with an address: received here and written to the
 *     caller with the server's address as its source, which resolvers
 *     check.  A blocking caller waits while the loop goes on, bounded by
 *     its SO_RCVTIMEO.
 *
 * write, read, send and recv without an address, sendmsg and recvmsg go
 * to the kernel, that is to the answerer; recvmsg's source is then
 * empty, which a resolver that checks it on that call (libuv's) ignores.
 * A call on a socket that is no stand-in goes on as made: nothing was
 * decided, and were another thread to put a stand-in at that number
 * meanwhile, the kernel would send to the answerer all the same.  Only a
 * real UDP socket handed to the command (its standard input, say) is
 * refused a sendto() with an address.
 *
 * The broker takes a stand-in back with pidfd_getfd; where that is
 * refused (Docker's default profile) it keeps a reference of its own in
 * the table of stand-ins, found by the inode /proc gives.  An entry goes
 * when no process of the command holds its stand-in (broker_udp_sweep).
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
#include <netinet/in.h>
#include <linux/seccomp.h>

#include <event2/event.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND	(1UL << 1)	/* Linux 5.14 */
#endif

#define DGRAM_MAX	65536	/* a datagram moved here, at most */
#define SWEEP_FROM	64	/* stand-ins known before they are swept */

/* A blocking recvfrom() on a stand-in, until a datagram comes. */
struct udp_wait {
	TAILQ_ENTRY(udp_wait)	 entry;
	struct broker		*b;
	uint64_t		 id;
	pid_t			 tid;
	int			 sock;		/* our reference */
	unsigned long		 ino;
	uint64_t		 buf_at, len, addr_at, len_at;
	int			 flags;
	struct event		*ev;
};

/* ---------------------------------------------------------------- */
/*
 * The stand-ins known, by inode.  An entry goes when no process of the
 * command holds its stand-in any more (broker_udp_sweep, once there are
 * SWEEP_FROM of them); only a table full of live ones makes the oldest go.
 */

static struct standin *
find(struct broker *b, unsigned long ino)
{
	size_t i;

	for (i = 0; ino != 0 && i < STANDINS_MAX; i++)
		if (b->standins[i].ino == ino)
			return &b->standins[i];
	return NULL;
}

const struct standin *
broker_standin_of(const struct broker *b, unsigned long ino)
{
	/* The same table, read only: find() changes nothing. */
	return find((struct broker *)(uintptr_t)b, ino);
}

static void
standin_drop(struct broker *b, struct standin *s)
{
	if (s->ref != -1)
		(void)close(s->ref);
	memset(s, 0, sizeof(*s));
	s->ref = -1;
	b->nstandins--;
}

/*
 * The stand-in a socket of ours refers to, or NULL.  Its kind is looked
 * at too: an inode the kernel gave again to another socket is not taken
 * for one.
 */
static struct standin *
standin_of(struct broker *b, int sock)
{
	socklen_t len = sizeof(int);
	int domain = 0, type = 0;
	struct stat st;

	if (sock == -1 || fstat(sock, &st) == -1 || !S_ISSOCK(st.st_mode) ||
	    getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &len) == -1 ||
	    getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
	    domain != AF_UNIX || type != SOCK_SEQPACKET)
		return NULL;
	return find(b, (unsigned long)st.st_ino);
}

/* A new stand-in; ref (without getfd) is ours from now on. */
static void
standin_add(struct broker *b, unsigned long ino, int family, int ref)
{
	struct standin *s;
	size_t i;

	for (i = 0; i < STANDINS_MAX && b->standins[i].ino != 0; i++)
		;
	if (i == STANDINS_MAX) {	/* all alive: the oldest goes */
		i = b->standins_next;
		standin_drop(b, &b->standins[i]);
	}
	b->standins_next = (i + 1) % STANDINS_MAX;
	s = &b->standins[i];
	memset(s, 0, sizeof(*s));
	s->ino = ino;
	s->ref = ref;
	s->family = family;
	b->nstandins++;
}

/*
 * A stand-in found by the inode /proc gave; without pidfd_getfd, only one
 * we hold a reference to.  NULL when ino is none.
 */
static struct standin *
standin_held(struct broker *b, unsigned long ino)
{
	struct standin *s = find(b, ino);

	return s != NULL && (b->getfd || s->ref != -1) ? s : NULL;
}

bool
broker_standin_held(struct broker *b, unsigned long ino)
{
	return b->udp && standin_held(b, ino) != NULL;
}

/*
 * Our reference to the caller's descriptor, if it is a stand-in; -1 when
 * it is not.  Taken (pidfd_getfd), or the one held here, found by the
 * inode /proc says the descriptor is.
 */
static int
take_standin(struct broker *b, const struct seccomp_notif *req,
    struct standin **s)
{
	struct caller *who = broker_caller_of(b, (pid_t)req->pid);
	char path[64], link[64];
	unsigned long ino;
	int sock, err;

	if (b->getfd) {
		if ((sock = broker_take_socket(b, who, (int)req->data.args[0],
		    &err)) == -1)
			return -1;
		if ((*s = standin_of(b, sock)) == NULL) {
			(void)close(sock);
			return -1;
		}
		return sock;
	}
	snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)req->pid,
	    (int)req->data.args[0]);
	if (broker_proc_readlink(path, link, sizeof(link)) <= 0 ||
	    (ino = diag_socket_inode(link)) == 0 ||
	    (*s = standin_held(b, ino)) == NULL || (*s)->ref == -1)
		return -1;
	return fcntl((*s)->ref, F_DUPFD_CLOEXEC, 3);
}

/* The stand-in a connect() or bind() is made on, or NULL. */
static struct standin *
standin_of_pending(struct broker *b, const struct pending *p)
{
	if (!b->udp)
		return NULL;
	if (p->sock != -1 && !p->fresh)
		return standin_of(b, p->sock);
	return standin_held(b, p->ino);
}

/* ---------------------------------------------------------------- */
/* socket(): a stand-in, its other end handed to the answerer. */

static void
udp_socket(struct broker *b, const struct seccomp_notif *req)
{
	struct seccomp_notif_addfd add;
	int type = (int)req->data.args[1], proto = (int)req->data.args[2];
	int sv[2], err, ref = -1;
	struct stat st;

	if ((type & ~(0xf | SOCK_NONBLOCK | SOCK_CLOEXEC)) != 0) {
		(void)broker_respond(b, req->id, EINVAL);
		return;
	}
	/* The allowlist lets UDP's protocol numbers alone through. */
	if (proto != 0 && proto != IPPROTO_UDP) {
		(void)broker_respond(b, req->id, EPERM);
		return;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		(void)broker_respond(b, req->id, errno == EMFILE ||
		    errno == ENFILE ? errno : ENOBUFS);
		return;
	}
	if (((type & SOCK_NONBLOCK) && fcntl(sv[0], F_SETFL, O_NONBLOCK) ==
	    -1) || fstat(sv[0], &st) == -1 || b->standin(b->arg, sv[1]) ==
	    -1) {
		err = ENOBUFS;
		goto out;
	}
	/* Without pidfd_getfd, our own reference is the only way back. */
	if (!b->getfd && (ref = fcntl(sv[0], F_DUPFD_CLOEXEC, 3)) == -1) {
		err = ENOBUFS;
		goto out;
	}
	standin_add(b, (unsigned long)st.st_ino, (int)req->data.args[0], ref);
	memset(&add, 0, sizeof(add));
	add.id = req->id;
	add.flags = SECCOMP_ADDFD_FLAG_SEND;
	add.srcfd = (uint32_t)sv[0];
	add.newfd_flags = (type & SOCK_CLOEXEC) ? O_CLOEXEC : 0;
	err = 0;
	if (ioctl(b->notify, SECCOMP_IOCTL_NOTIF_ADDFD, &add) == -1) {
		/* Not the command's: forgotten (ENOENT: the caller is gone). */
		if (errno != ENOENT)
			err = errno == EMFILE ? EMFILE : ENOBUFS;
		standin_drop(b, find(b, (unsigned long)st.st_ino));
	}
out:
	(void)close(sv[0]);
	(void)close(sv[1]);
	if (err != 0)
		(void)broker_respond(b, req->id, err);
}

/* ---------------------------------------------------------------- */
/* connect() and bind() on a stand-in (from broker_sock.c's acts). */

/* A refusal: said when it is of an endpoint, then answered. */
static void
refuse_udp(struct broker *b, const struct seccomp_notif *req,
    enum broker_op op, const struct broker_decision *d,
    const struct sockaddr_storage *to, socklen_t tolen)
{
	if (d->direct)
		broker_say_refused(b, (pid_t)req->pid, op, to, tolen, NULL, 0);
	(void)broker_respond(b, req->id, d->err);
}

bool
broker_udp_connect(struct broker *b, const struct seccomp_notif *req,
    struct pending *p)
{
	struct broker_decision d;
	struct standin *s;

	if ((s = standin_of_pending(b, p)) == NULL)
		return false;
	if (p->addrlen >= sizeof(sa_family_t) &&
	    p->addr.ss_family == AF_UNSPEC) {
		s->connected = false;
		s->tolen = 0;
		broker_finish(p, 0);
		return true;
	}
	broker_decide_udp(s->family, &p->addr, p->addrlen, false, &d);
	if (d.verdict == BROKER_REFUSE) {
		refuse_udp(b, req, BROKER_OP_CONNECT, &d, &p->addr,
		    p->addrlen);
		broker_pending_release(p);	/* answered */
		return true;
	}
	memcpy(&s->to, &p->addr, p->addrlen);
	s->tolen = p->addrlen;
	s->connected = true;
	broker_finish(p, 0);
	return true;
}

bool
broker_udp_bind(struct broker *b, const struct seccomp_notif *req,
    struct pending *p)
{
	struct broker_decision d;
	struct standin *s;

	if ((s = standin_of_pending(b, p)) == NULL)
		return false;
	broker_decide_udp(s->family, &p->addr, p->addrlen, true, &d);
	if (d.verdict == BROKER_REFUSE) {
		refuse_udp(b, req, BROKER_OP_BIND, &d, &p->addr, p->addrlen);
		broker_pending_release(p);	/* answered */
		return true;
	}
	broker_finish(p, 0);
	return true;
}

/*
 * What a call's socket is: a stand-in; a UDP socket the command did not
 * make here (only one handed to it could be: a socket given as its
 * standard input, say), which must not send where it likes; or another
 * socket, whose kernel ignores the address or refuses it.
 */
enum what_sock { SOCK_OTHER, SOCK_STANDIN, SOCK_INHERITED_UDP };

static enum what_sock
what_socket(struct broker *b, const struct seccomp_notif *req)
{
	char proto[32];
	unsigned long ino;
	int flags;
	bool cloexec;

	if (broker_describe((pid_t)req->pid, (int)req->data.args[0], &ino,
	    &flags, &cloexec, proto, sizeof(proto)) != 0)
		return SOCK_OTHER;	/* not a socket: the kernel says */
	if (strncmp(proto, "UDP", 3) == 0)
		return SOCK_INHERITED_UDP;
	return strcmp(proto, "UNIX") == 0 && broker_standin_of(b, ino) !=
	    NULL ? SOCK_STANDIN : SOCK_OTHER;
}

/* A handed-in UDP socket sending somewhere: refused, and said. */
static void
refuse_inherited(struct broker *b, const struct seccomp_notif *req)
{
	struct caller *who = broker_caller_of(b, (pid_t)req->pid);
	struct sockaddr_storage to;
	int alen = (int)req->data.args[5];

	memset(&to, 0, sizeof(to));
	if (alen < 0 || (size_t)alen > sizeof(to) || broker_read_mem(b, who,
	    req->data.args[4], &to, (size_t)alen) != 0)
		alen = 0;
	if (broker_alive(b, req->id))
		broker_say_refused(b, (pid_t)req->pid, BROKER_OP_CONNECT, &to,
		    (socklen_t)alen, NULL, 0);
	(void)broker_respond(b, req->id, EPERM);
}

/*
 * setsockopt() of IP's, IPv6's or UDP's level on a stand-in: nothing
 * there to set, so it is done (glibc's resolver asks for IP_RECVERR and
 * gives up without it).  True when it was that, and was answered.
 */
bool
broker_udp_setsockopt(struct broker *b, const struct seccomp_notif *req)
{
	int level = (int)req->data.args[1];

	if (!b->udp || (level != IPPROTO_IP && level != IPPROTO_IPV6 &&
	    level != IPPROTO_UDP) || what_socket(b, req) != SOCK_STANDIN)
		return false;
	(void)broker_respond(b, req->id, 0);
	return true;
}

/* ---------------------------------------------------------------- */
/* sendto() with an address. */

/* The datagram, read once into our memory; 0 or an errno. */
static int
read_datagram(struct broker *b, const struct seccomp_notif *req,
    const struct standin *s, void **data, size_t *len)
{
	struct caller *who = broker_caller_of(b, (pid_t)req->pid);
	/* UDP's largest payload: 65507 over IPv4, 65527 over IPv6. */
	size_t max = s->family == AF_INET ? 65507 : 65527;
	int err;

	*len = (size_t)req->data.args[2];
	if (*len > max)
		return EMSGSIZE;
	if ((*data = malloc(*len > 0 ? *len : 1)) == NULL)
		return ENOBUFS;
	if (*len > 0 && (err = broker_read_mem(b, who, req->data.args[1],
	    *data, *len)) != 0) {
		free(*data);
		*data = NULL;
		return err;
	}
	return 0;
}

/* Sent to the answerer; its count, or -errno. */
static int64_t
send_datagram(int sock, const void *data, size_t len, int flags)
{
	int fl = fcntl(sock, F_GETFL);

	if (send(sock, data, len, MSG_DONTWAIT | MSG_NOSIGNAL) == -1) {
		/* A full queue drops it, as a network would: asked again. */
		if (errno == EAGAIN && fl != -1 && !(fl & O_NONBLOCK) &&
		    !(flags & MSG_DONTWAIT))
			return (int64_t)len;
		return -(int64_t)errno;
	}
	return (int64_t)len;
}

static void
udp_sendto(struct broker *b, const struct seccomp_notif *req)
{
	struct caller *who = broker_caller_of(b, (pid_t)req->pid);
	struct sockaddr_storage to;
	struct broker_decision d;
	struct standin *s;
	int alen = (int)req->data.args[5], sock, err;
	void *data = NULL;
	size_t len = 0;
	int64_t n;

	switch (what_socket(b, req)) {
	case SOCK_OTHER:
		broker_proceed(b, req->id);
		return;
	case SOCK_INHERITED_UDP:
		refuse_inherited(b, req);
		return;
	case SOCK_STANDIN:
		break;
	}
	if ((sock = take_standin(b, req, &s)) == -1) {
		(void)broker_respond(b, req->id, ENOBUFS);	/* never let go */
		return;
	}
	memset(&to, 0, sizeof(to));
	if (alen < 0 || (size_t)alen > sizeof(to))
		err = EINVAL;
	else if ((err = broker_read_mem(b, who, req->data.args[4], &to,
	    (size_t)alen)) == 0)
		err = read_datagram(b, req, s, &data, &len);
	/* Only now is what was read known to be the caller's. */
	if (err == 0 && !broker_alive(b, req->id)) {
		free(data);
		(void)close(sock);
		return;
	}
	if (err != 0) {
		(void)broker_respond(b, req->id, err);
		goto out;
	}
	broker_decide_udp(s->family, &to, (socklen_t)alen, false, &d);
	if (d.verdict == BROKER_REFUSE) {
		refuse_udp(b, req, BROKER_OP_CONNECT, &d, &to, (socklen_t)alen);
		goto out;
	}
	n = send_datagram(sock, data, len, (int)req->data.args[3]);
	if (n >= 0 && !s->connected) {
		memcpy(&s->to, &to, (size_t)alen);
		s->tolen = (socklen_t)alen;
	}
	if (n < 0)
		(void)broker_respond(b, req->id, (int)-n);
	else
		(void)broker_respond_val(b, req->id, n);
out:
	free(data);
	(void)close(sock);
}

/* ---------------------------------------------------------------- */
/* recvfrom() with an address. */

static void
wait_free(struct udp_wait *w)
{
	if (w->ev != NULL)
		event_free(w->ev);
	if (w->sock != -1)
		(void)close(w->sock);
	free(w);
}

static void
wait_unlink(struct udp_wait *w)
{
	TAILQ_REMOVE(&w->b->udp_waits, w, entry);
	w->b->nudp_waits--;
}

static void
wait_finish(struct udp_wait *w, int err)
{
	(void)broker_respond(w->b, w->id, err);
	wait_free(w);
}

/*
 * The source an answer says, as the kernel would put it for a socket of
 * the family asked for: the server's address and port, exactly so long,
 * an IPv4 server mapped for an IPv6 socket.  0: none known.
 */
static socklen_t
source_of(const struct standin *s, struct sockaddr_storage *out)
{
	const struct sockaddr_in *to4 = (const void *)&s->to;
	const struct sockaddr_in6 *to6 = (const void *)&s->to;
	struct sockaddr_in *o4 = (void *)out;
	struct sockaddr_in6 *o6 = (void *)out;

	memset(out, 0, sizeof(*out));
	if (s->tolen == 0)
		return 0;
	if (s->family == AF_INET) {
		o4->sin_family = AF_INET;
		o4->sin_port = to4->sin_port;
		o4->sin_addr = to4->sin_addr;
		return sizeof(*o4);
	}
	o6->sin6_family = AF_INET6;
	if (s->to.ss_family == AF_INET) {
		o6->sin6_port = to4->sin_port;
		o6->sin6_addr.s6_addr[10] = o6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(&o6->sin6_addr.s6_addr[12], &to4->sin_addr, 4);
	} else {
		o6->sin6_port = to6->sin6_port;
		o6->sin6_addr = to6->sin6_addr;
		o6->sin6_scope_id = to6->sin6_scope_id;
	}
	return sizeof(*o6);
}

/* The server's address where the caller asked for the source. */
static int
put_source(struct udp_wait *w, struct caller *who)
{
	const struct standin *s = broker_standin_of(w->b, w->ino);
	struct sockaddr_storage src;
	socklen_t room, len = s != NULL ? source_of(s, &src) : 0;
	int err;

	if (w->len_at == 0)
		return EFAULT;
	if ((err = broker_read_mem(w->b, who, w->len_at, &room,
	    sizeof(room))) != 0)
		return err;
	if ((int)room < 0)
		return EINVAL;
	if (len > 0 && room > 0 && (err = broker_write_mem(w->b, who,
	    w->addr_at, &src, room < len ? room : len)) != 0)
		return err;
	return broker_write_mem(w->b, who, w->len_at, &len, sizeof(len));
}

/*
 * One datagram, never waiting: 0 when w was answered (and freed), EAGAIN
 * when none is there.
 */
static int
try_recv(struct udp_wait *w)
{
	static uint8_t buf[DGRAM_MAX];
	struct caller *who = broker_caller_of(w->b, w->tid);
	size_t room = w->len < sizeof(buf) ? (size_t)w->len : sizeof(buf);
	ssize_t n;
	int err;

	/* A caller gone (a signal) would lose the datagram taken for it. */
	if (!broker_alive(w->b, w->id)) {
		wait_free(w);
		return 0;
	}
	n = recv(w->sock, buf, room, MSG_DONTWAIT |
	    (w->flags & (MSG_PEEK | MSG_TRUNC)));
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return EAGAIN;
	if (n == -1) {
		wait_finish(w, errno);
		return 0;
	}
	/* MSG_TRUNC counts the whole datagram; the room holds what fits. */
	err = (size_t)n > 0 ? broker_write_mem(w->b, who, w->buf_at, buf,
	    (size_t)n < room ? (size_t)n : room) : 0;
	if (err == 0)
		err = put_source(w, who);
	if (err != 0)
		wait_finish(w, err);
	else {
		(void)broker_respond_val(w->b, w->id, n);
		wait_free(w);
	}
	return 0;
}

static void
wait_cb(evutil_socket_t fd, short what, void *arg)
{
	struct udp_wait *w = arg;

	(void)fd;
	wait_unlink(w);
	if (!broker_alive(w->b, w->id)) {	/* interrupted, or killed */
		wait_free(w);
		return;
	}
	if (what & EV_TIMEOUT) {		/* its SO_RCVTIMEO */
		wait_finish(w, EAGAIN);
		return;
	}
	if (try_recv(w) == 0)
		return;
	TAILQ_INSERT_TAIL(&w->b->udp_waits, w, entry);
	w->b->nudp_waits++;
}

static void
wait_for(struct udp_wait *w)
{
	struct timeval tv;
	socklen_t len = sizeof(tv);
	bool timed;

	if (w->b->nudp_waits >= UDP_WAITS_MAX) {
		wait_finish(w, ENOBUFS);
		return;
	}
	memset(&tv, 0, sizeof(tv));
	timed = getsockopt(w->sock, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) ==
	    0 && (tv.tv_sec > 0 || tv.tv_usec > 0);
	w->ev = event_new(w->b->base, w->sock, EV_READ | EV_PERSIST, wait_cb,
	    w);
	if (w->ev == NULL || event_add(w->ev, timed ? &tv : NULL) == -1) {
		wait_finish(w, ENOMEM);
		return;
	}
	TAILQ_INSERT_TAIL(&w->b->udp_waits, w, entry);
	w->b->nudp_waits++;
}

static void
udp_recvfrom(struct broker *b, const struct seccomp_notif *req)
{
	struct standin *s;
	struct udp_wait *w;
	int sock, fl;

	if ((sock = take_standin(b, req, &s)) == -1) {
		broker_proceed(b, req->id);
		return;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		(void)close(sock);
		(void)broker_respond(b, req->id, ENOMEM);
		return;
	}
	w->b = b;
	w->id = req->id;
	w->tid = (pid_t)req->pid;
	w->sock = sock;
	w->ino = s->ino;
	w->buf_at = req->data.args[1];
	w->len = req->data.args[2];
	w->flags = (int)req->data.args[3];
	w->addr_at = req->data.args[4];
	w->len_at = req->data.args[5];
	/* No error queue, no out-of-band data: UDP's answers to them. */
	if (w->flags & (MSG_ERRQUEUE | MSG_OOB)) {
		wait_finish(w, (w->flags & MSG_OOB) ? EOPNOTSUPP : EAGAIN);
		return;
	}
	if (try_recv(w) == 0)
		return;
	fl = fcntl(sock, F_GETFL);
	if (fl == -1 || (fl & O_NONBLOCK) || (w->flags & MSG_DONTWAIT))
		wait_finish(w, EAGAIN);
	else
		wait_for(w);
}

void
broker_udp(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *c)
{
	switch (c->op) {
	case UDPCALL_SOCKET:
		udp_socket(b, req);
		break;
	case UDPCALL_SENDTO:
		udp_sendto(b, req);
		break;
	case UDPCALL_RECVFROM:
		udp_recvfrom(b, req);
		break;
	default:
		(void)broker_respond(b, req->id, ENOSYS);
	}
}

/*
 * The stand-ins no process of the command holds any more, let go (our
 * references closed, so the answerer's ends see theirs): one walk of
 * /proc a sweep, once there are SWEEP_FROM of them, well before the
 * answerer's PROXY_DNS_PAIRS would make it close its oldest.
 */
static void
standins_sweep(struct broker *b)
{
	static unsigned long inos[STANDINS_MAX];
	static bool held[STANDINS_MAX];
	size_t i;

	if (b->nstandins < SWEEP_FROM)
		return;
	for (i = 0; i < STANDINS_MAX; i++) {
		inos[i] = b->standins[i].ino;
		held[i] = false;
	}
	diag_held_mark(b->init, inos, held, STANDINS_MAX);
	for (i = 0; i < STANDINS_MAX; i++)
		if (inos[i] != 0 && !held[i])
			standin_drop(b, &b->standins[i]);
}

/* Callers gone while they waited; stand-ins let go. */
void
broker_udp_sweep(struct broker *b)
{
	struct udp_wait *w, *next;

	for (w = TAILQ_FIRST(&b->udp_waits); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		if (broker_alive(b, w->id))
			continue;
		wait_unlink(w);
		wait_free(w);
	}
	standins_sweep(b);
}

void
broker_udp_free(struct broker *b)
{
	struct udp_wait *w;

	size_t i;

	while ((w = TAILQ_FIRST(&b->udp_waits)) != NULL) {
		wait_unlink(w);
		wait_free(w);
	}
	for (i = 0; i < STANDINS_MAX; i++)
		if (b->standins[i].ino != 0)
			standin_drop(b, &b->standins[i]);
}
