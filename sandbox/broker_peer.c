/* SPDX-License-Identifier: Apache-2.0 */
/*
 * getpeername() of a socket whose connect the broker carried through the
 * proxy (SPEC 6.6): the address the command asked for, not the proxy's.
 * So is a UDP stand-in's (broker_udp.c): the server it was connected to.
 * Every other socket's is the kernel's (the call goes on as made: there
 * is nothing to decide, so nothing for the kernel to read again).
 *
 * The sockets are known by inode, in a bounded ring: the oldest make way
 * (a socket that old answers with the proxy's address, as without the
 * broker), and a connect on a reused inode replaces its entry.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/seccomp.h>

#include <event2/event.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

void
broker_peer_add(struct broker *b, int sock, const struct sockaddr_storage *to,
    socklen_t len)
{
	struct broker_peer *e = NULL;
	struct stat st;
	size_t i;

	if (fstat(sock, &st) == -1 || len > sizeof(*to))
		return;
	for (i = 0; i < b->npeers && e == NULL; i++)
		if (b->peers[i].ino == (unsigned long)st.st_ino)
			e = &b->peers[i];
	if (e == NULL && b->npeers < PEERS_MAX)
		e = &b->peers[b->npeers++];
	if (e == NULL) {
		e = &b->peers[b->peers_next];
		b->peers_next = (b->peers_next + 1) % PEERS_MAX;
	}
	e->ino = (unsigned long)st.st_ino;
	memcpy(&e->addr, to, len);
	e->len = len;
}

/* A connect held, then refused: its getpeername is the kernel's. */
void
broker_peer_forget(struct broker *b, int sock)
{
	struct stat st;
	size_t i;

	if (fstat(sock, &st) == -1)
		return;
	for (i = 0; i < b->npeers; i++)
		if (b->peers[i].ino == (unsigned long)st.st_ino)
			b->peers[i].ino = 0;
}

static const struct broker_peer *
peer_of(const struct broker *b, unsigned long ino)
{
	size_t i;

	for (i = 0; i < b->npeers; i++)
		if (b->peers[i].ino == ino)
			return &b->peers[i];
	return NULL;
}

/* getpeername(fd, addr, addrlen), answered as the kernel would. */
void
broker_getpeername(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *c __attribute__((unused)))
{
	const struct broker_peer *e;
	const struct standin *s;
	struct broker_peer one;
	struct caller *who;
	unsigned long ino;
	socklen_t room, n;
	char proto[32];
	int flags, err;
	bool cloexec;

	if (broker_describe((pid_t)req->pid, (int)req->data.args[0], &ino,
	    &flags, &cloexec, proto, sizeof(proto)) != 0) {
		broker_proceed(b, req->id);
		return;
	}
	/* A UDP stand-in: its server, or none (broker_udp.c). */
	if (strcmp(proto, "UNIX") == 0 &&
	    (s = broker_standin_of(b, ino)) != NULL) {
		if (!s->connected) {
			(void)broker_respond(b, req->id, ENOTCONN);
			return;
		}
		memcpy(&one.addr, &s->to, s->tolen);
		one.len = s->tolen;
		e = &one;
	} else if ((e = peer_of(b, ino)) == NULL) {
		broker_proceed(b, req->id);
		return;
	}
	who = broker_caller_of(b, (pid_t)req->pid);
	if ((err = broker_read_mem(b, who, req->data.args[2], &room,
	    sizeof(room))) != 0) {
		(void)broker_respond(b, req->id, err);
		return;
	}
	if ((int)room < 0) {
		(void)broker_respond(b, req->id, EINVAL);
		return;
	}
	/* Cut to the caller's room; the length says the whole. */
	n = room < e->len ? room : e->len;
	if ((n > 0 && (err = broker_write_mem(b, who, req->data.args[1],
	    &e->addr, n)) != 0) || (err = broker_write_mem(b, who,
	    req->data.args[2], &e->len, sizeof(e->len))) != 0) {
		(void)broker_respond(b, req->id, err);
		return;
	}
	(void)broker_respond(b, req->id, 0);
}
