/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The command's own loopback connections (SPEC 6.5, landlock): in that
 * confinement loopback is the host's, so a listener of the command could
 * be reached by any process of the machine.  The broker makes every
 * connect() of the command itself; each one to a loopback listener of the
 * command's own is recorded here, and an accept() hands the command only
 * a connection recorded here (accept.c resets the others).
 *
 * A record holds a reference to the connecting socket until its
 * connection is accepted.  While that socket lives, no other socket of
 * the machine can have its address and port toward the listener (the
 * kernel refuses a second connection with the same four-tuple), so a
 * connection found here by its addresses is that one; a record whose
 * socket lost its connection (reset, refused) is dropped, never matched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "sandbox/internal.h"

/* As an IPv6 address: an IPv4 one mapped, so both families compare. */
static bool
as_v6(const struct sockaddr_storage *ss, struct in6_addr *a,
    unsigned short *port)
{
	const struct sockaddr_in *sin = (const void *)ss;
	const struct sockaddr_in6 *sin6 = (const void *)ss;

	memset(a, 0, sizeof(*a));
	if (ss->ss_family == AF_INET) {
		a->s6_addr[10] = a->s6_addr[11] = 0xff;
		memcpy(&a->s6_addr[12], &sin->sin_addr, 4);
		*port = ntohs(sin->sin_port);
		return true;
	}
	if (ss->ss_family == AF_INET6) {
		*a = sin6->sin6_addr;
		*port = ntohs(sin6->sin6_port);
		return true;
	}
	return false;
}

bool
inbound_same_endpoint(const struct sockaddr_storage *x,
    const struct sockaddr_storage *y)
{
	struct in6_addr ax, ay;
	unsigned short px, py;

	return as_v6(x, &ax, &px) && as_v6(y, &ay, &py) && px == py &&
	    px != 0 && memcmp(&ax, &ay, sizeof(ax)) == 0;
}

void
inbound_init(struct inbound *in)
{
	memset(in, 0, sizeof(*in));
}

static void
drop(struct inbound *in, size_t i)
{
	(void)close(in->v[i].fd);
	in->v[i] = in->v[--in->n];
}

/* Does the recorded socket still have its connection? */
static bool
connected(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == -1)
		return false;
	switch (ti.tcpi_state) {
	case TCP_CLOSE:
	case TCP_LISTEN:
	case TCP_TIME_WAIT:
		return false;
	default:
		return true;	/* SYN_SENT too: accepted only once it is done */
	}
}

void
inbound_sweep(struct inbound *in)
{
	size_t i = 0;

	while (i < in->n) {
		if (connected(in->v[i].fd))
			i++;
		else
			drop(in, i);
	}
}

int
inbound_add(struct inbound *in, int sock, const struct sockaddr_storage *to)
{
	struct inbound_conn *c;
	socklen_t len = sizeof(c->local);
	size_t i, oldest;
	int fd;

	if (in->n == INBOUND_MAX)
		inbound_sweep(in);
	if (in->n == INBOUND_MAX) {
		/* Still full: the oldest goes (reset if accepted later). */
		for (i = oldest = 0; i < in->n; i++)
			if (in->v[i].seq < in->v[oldest].seq)
				oldest = i;
		drop(in, oldest);
	}
	if (in->n == in->cap) {
		size_t cap = in->cap == 0 ? 16 : in->cap * 2;
		struct inbound_conn *v = realloc(in->v, cap * sizeof(*v));

		if (v == NULL)
			return ENOMEM;
		in->v = v;
		in->cap = cap;
	}
	if ((fd = fcntl(sock, F_DUPFD_CLOEXEC, 3)) == -1)
		return errno;
	c = &in->v[in->n];
	memset(c, 0, sizeof(*c));
	if (getsockname(fd, (struct sockaddr *)&c->local, &len) == -1) {
		(void)close(fd);
		return errno;
	}
	c->fd = fd;
	c->to = *to;
	c->seq = ++in->seq;
	in->n++;
	return 0;
}

bool
inbound_take(struct inbound *in, const struct sockaddr_storage *peer,
    const struct sockaddr_storage *local)
{
	struct sockaddr_storage now;
	socklen_t len;
	size_t i;

	for (i = 0; i < in->n; i++) {
		if (!inbound_same_endpoint(&in->v[i].local, peer) ||
		    !inbound_same_endpoint(&in->v[i].to, local))
			continue;
		/* The socket still holds that address, and its connection. */
		len = sizeof(now);
		memset(&now, 0, sizeof(now));
		if (getsockname(in->v[i].fd, (struct sockaddr *)&now, &len) ==
		    -1 || !inbound_same_endpoint(&now, peer) ||
		    !connected(in->v[i].fd)) {
			drop(in, i);
			return false;
		}
		drop(in, i);
		return true;
	}
	return false;
}

void
inbound_free(struct inbound *in)
{
	while (in->n > 0)
		drop(in, 0);
	free(in->v);
	memset(in, 0, sizeof(*in));
}
