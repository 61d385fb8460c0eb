/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the broker knows of the command's sockets: those it bound in the
 * caller's place (held until the command lets go of them), and the
 * listeners that are the command's own (the owner table), which its
 * loopback connects may reach in the landlock confinement and which no
 * bind of another may share (port_taken).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include <event2/event.h>
#include <seccomp.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

/* ---------------------------------------------------------------- */
/* Sockets bound here, on fresh sockets, held until they listen. */

int
broker_held_find(const struct broker *b, unsigned long ino)
{
	size_t i;

	for (i = 0; i < b->nheld; i++)
		if (b->held[i].ino == ino)
			return (int)i;
	return -1;
}

void
broker_held_drop(struct broker *b, size_t i)
{
	(void)close(b->held[i].fd);
	b->held[i] = b->held[--b->nheld];
}

/* Let go of the sockets the command no longer holds (it closed them). */
void
broker_held_sweep(struct broker *b)
{
	size_t i = 0;

	while (i < b->nheld) {
		if (diag_held_below(b->init, b->held[i].ino))
			i++;
		else
			broker_held_drop(b, i);
	}
}

/* Keep our reference to a socket bound in the caller's place. */
int
broker_held_add(struct broker *b, int sock, unsigned long ino)
{
	int fd;

	if (b->nheld == HELD_MAX)
		broker_held_sweep(b);
	if (b->nheld == HELD_MAX)
		return ENOBUFS;
	if ((fd = fcntl(sock, F_DUPFD_CLOEXEC, 3)) == -1)
		return errno;
	b->held[b->nheld].ino = ino;
	b->held[b->nheld].fd = fd;
	b->nheld++;
	return 0;
}

/* Is the listener the command's own (one of its processes holds it)? */
static bool
owned_listener(struct broker *b, unsigned short port, unsigned long ino)
{
	size_t k;

	for (k = 0; k < b->nowned; k++)
		if (b->owned[k].port == port && b->owned[k].ino == ino)
			return true;
	if (!diag_held_below(b->init, ino))
		return false;
	k = b->nowned < OWNED ? b->nowned++ : (size_t)port % OWNED;
	b->owned[k].port = port;
	b->owned[k].ino = ino;
	return true;
}

/*
 * Every listener on a loopback port must be the command's own; none at
 * all is what connect() would say.
 */
int
broker_owned_port(struct broker *b, unsigned short port)
{
	struct diag_listener l[MAX_LISTENERS];
	int i, n, live = 0, h;

	if (b->diag == -1 || (n = diag_tcp_listeners(b->diag, port, l,
	    MAX_LISTENERS)) == -1)
		return EACCES;
	for (i = 0; i < n; i++) {
		/*
		 * One we hold for accept(): the command's only while one of
		 * its processes holds it too; else closed, as for the kernel.
		 */
		if ((h = broker_held_find(b, l[i].ino)) != -1 &&
		    !diag_held_below(b->init, l[i].ino)) {
			broker_held_drop(b, (size_t)h);
			continue;
		}
		if (!owned_listener(b, port, l[i].ino))
			return EACCES;
		live++;
	}
	return live == 0 ? ECONNREFUSED : 0;
}

/* A listener's address as an IPv4 one where it is one (mapped too). */
static bool
v4_of(int family, const uint32_t *a, uint32_t *v4)
{
	if (family == AF_INET) {
		*v4 = a[0];
		return true;
	}
	if (a[0] == 0 && a[1] == 0 && a[2] == htonl(0xffff)) {
		*v4 = a[3];
		return true;
	}
	return false;
}

/*
 * May the command bind ss's port?  Not where a listener of another's
 * covers the same address (or every address): with SO_REUSEPORT the
 * kernel would hand the command part of that service's clients.
 */
bool
broker_port_taken(struct broker *b, const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *sin = (const void *)ss;
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	struct diag_listener l[MAX_LISTENERS];
	uint32_t ours[4], v4o = 0, v4l = 0;
	unsigned short port;
	bool o4, l4, wild;
	int i, n;

	memset(ours, 0, sizeof(ours));
	if (ss->ss_family == AF_INET) {
		ours[0] = sin->sin_addr.s_addr;
		port = ntohs(sin->sin_port);
	} else {
		memcpy(ours, &sin6->sin6_addr, sizeof(ours));
		port = ntohs(sin6->sin6_port);
	}
	if (b->diag == -1 || (n = diag_tcp_listeners(b->diag, port, l,
	    MAX_LISTENERS)) == -1)
		return true;
	o4 = v4_of(ss->ss_family, ours, &v4o);
	for (i = 0; i < n; i++) {
		l4 = v4_of(l[i].family, l[i].addr, &v4l);
		wild = l4 ? v4l == 0 : (l[i].addr[0] | l[i].addr[1] |
		    l[i].addr[2] | l[i].addr[3]) == 0;
		if (!wild && (o4 != l4 || (o4 ? v4o != v4l :
		    memcmp(ours, l[i].addr, sizeof(ours)) != 0)))
			continue;
		if (!owned_listener(b, port, l[i].ino))
			return true;
	}
	return false;
}
