/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run mode's name lookups over UDP (SPEC 6.6), in the namespaces
 * confinement: the sandbox made port 53 of every address of the command's
 * network (sandbox/nsdns.c) and handed the sockets here.  Each datagram is
 * one query, answered by dns_serve as over TCP (dnsconn.c), from the
 * address it was sent to, so that a resolver that checks where an answer
 * came from (musl, glibc, dig) takes it.
 *
 * In the landlock confinement a UDP socket of the command is a stand-in
 * (sandbox/broker_udp.c), one end of a unix SOCK_SEQPACKET pair: the
 * other end is handed here (proxy_dns_pair), and each packet on it is one
 * query, answered on it.  The command closing its end lets ours go; past
 * PROXY_DNS_PAIRS at once, the oldest is closed (its resolver is then
 * answered by an error, and asks on a new socket).
 *
 * Who sent a datagram is not known (no connection, no broker in the
 * way): a refused name's line has no pid or exe (SPEC 5: "when known").
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "proxy/internal.h"

/* Datagrams taken in one turn of the loop: the others get theirs. */
#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))
#define BATCH		32
#define QUERY_MAX	4096
#define ANSWER_MAX	1024

struct dgram {
	uint8_t			 buf[QUERY_MAX];
	size_t			 len;
	struct sockaddr_storage	 from;
	socklen_t		 fromlen;
	union {				/* where it was sent: the answer's source */
		struct in_pktinfo	 v4;
		struct in6_pktinfo	 v6;
	}			 to;
	int			 family;	/* of to; AF_UNSPEC: not said */
};

/* One datagram, with where it was sent; false when there is none. */
static bool
take_one(int fd, struct dgram *d)
{
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
	} ctl;
	struct iovec iov = { .iov_base = d->buf, .iov_len = sizeof(d->buf) };
	struct msghdr mh = { .msg_name = &d->from,
	    .msg_namelen = sizeof(d->from), .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;
	ssize_t n;

	if ((n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_TRUNC)) == -1)
		return false;
	d->len = (size_t)n;
	d->fromlen = mh.msg_namelen;
	d->family = AF_UNSPEC;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			memcpy(&d->to.v4, CMSG_DATA(c), sizeof(d->to.v4));
			d->family = AF_INET;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
		    c->cmsg_type == IPV6_PKTINFO) {
			memcpy(&d->to.v6, CMSG_DATA(c), sizeof(d->to.v6));
			d->family = AF_INET6;
		}
	}
	return true;
}

/* The answer, from the address the query was sent to. */
static void
answer(int fd, const struct dgram *d, const uint8_t *a, size_t len)
{
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)a, .iov_len = len };
	struct msghdr mh = { .msg_name = (void *)&d->from,
	    .msg_namelen = d->fromlen, .msg_iov = &iov, .msg_iovlen = 1 };
	struct in_pktinfo pi4 = { .ipi_spec_dst = d->to.v4.ipi_addr };
	struct in6_pktinfo pi6 = { .ipi6_addr = d->to.v6.ipi6_addr };
	bool v4 = d->family == AF_INET;
	struct cmsghdr *c;
	size_t n = v4 ? sizeof(pi4) : sizeof(pi6);

	memset(&ctl, 0, sizeof(ctl));
	if (d->family == AF_INET || d->family == AF_INET6) {
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(n);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = v4 ? IPPROTO_IP : IPPROTO_IPV6;
		c->cmsg_type = v4 ? IP_PKTINFO : IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(n);
		memcpy(CMSG_DATA(c), v4 ? (const void *)&pi4 :
		    (const void *)&pi6, n);
	}
	/* A full socket drops it, as a network would: the resolver asks again. */
	(void)sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* A refused name: its line (folded, as over TCP), before the answer. */
static void
log_refused(struct proxy *px, const struct dns_served *s)
{
	struct dlog_entry e = { .proto = PROXY_DNS, .host = s->name,
	    .reason = s->verdict.reason };

	if (proxy_dns_said_lately(px, 0, s->name))
		return;
	(void)dlog_decision(px->log, &e, px->gen->conf->log_failure_serve);
}

/* One query's answer in a, its length in *used; false: none is due. */
static bool
serve_query(struct proxy *px, const uint8_t *q, size_t len, size_t got,
    uint8_t *a, size_t alen, size_t *used)
{
	struct dns_served s;

	*used = 0;
	/* Cut short (MSG_TRUNC said more than the buffer): no query of ours. */
	if (len > got || proxy_fake(px) == NULL)
		return false;
	if (dns_serve(px->fake, px->gen->conf->policy, q, len, a, alen, used,
	    &s) == DNS_SERVED_DROP)
		return false;
	if (s.kind == DNS_SERVED_REFUSED)
		log_refused(px, &s);
	return true;
}

static void
serve_one(struct proxy *px, int fd, const struct dgram *d)
{
	uint8_t a[ANSWER_MAX];
	size_t used;

	if (serve_query(px, d->buf, d->len, sizeof(d->buf), a, sizeof(a),
	    &used))
		answer(fd, d, a, used);
}

static void
dns_udp_read(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *px = arg;
	struct dgram d;
	int i;

	(void)what;
	for (i = 0; i < BATCH && take_one(fd, &d); i++)
		serve_one(px, fd, &d);
}

int
proxy_dns_udp(struct proxy *px, int fd, char *err, size_t errlen)
{
	struct event *ev;
	size_t i;

	for (i = 0; i < NELEM(px->dns_udp) && px->dns_udp[i] != NULL; i++)
		;
	if (i == NELEM(px->dns_udp) || (ev = event_new(px->base, fd,
	    EV_READ | EV_PERSIST, dns_udp_read, px)) == NULL) {
		snprintf(err, errlen, "name lookups: %s", i == NELEM(
		    px->dns_udp) ? "too many sockets" : strerror(ENOMEM));
		return -1;
	}
	if (event_add(ev, NULL) == -1) {
		event_free(ev);
		snprintf(err, errlen, "name lookups: cannot watch the socket");
		return -1;
	}
	px->dns_udp[i] = ev;
	return 0;
}

/* ---------------------------------------------------------------- */
/* The landlock confinement's stand-ins. */

static void
pair_close(struct event **slot)
{
	int fd = event_get_fd(*slot);

	event_free(*slot);
	(void)close(fd);
	*slot = NULL;
}

/* Has the command let go of its end?  (A packet of nothing is no end.) */
static bool
pair_ended(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLRDHUP));
}

/* The stand-in fd is done: its slot freed. */
static void
pair_done(struct proxy *px, int fd)
{
	size_t i;

	for (i = 0; i < NELEM(px->dns_pairs); i++)
		if (px->dns_pairs[i] != NULL &&
		    event_get_fd(px->dns_pairs[i]) == fd) {
			pair_close(&px->dns_pairs[i]);
			return;
		}
}

static void
dns_pair_read(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *px = arg;
	uint8_t q[QUERY_MAX], a[ANSWER_MAX];
	size_t used;
	ssize_t n;
	int i;

	(void)what;
	for (i = 0; i < BATCH; i++) {
		n = recv(fd, q, sizeof(q), MSG_DONTWAIT | MSG_TRUNC);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n == -1 || (n == 0 && pair_ended(fd))) {
			pair_done(px, fd);
			return;
		}
		if (n == 0)
			continue;	/* an empty datagram: no query */
		if (serve_query(px, q, (size_t)n, sizeof(q), a, sizeof(a),
		    &used))
			(void)send(fd, a, used, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
}

int
proxy_dns_pair(struct proxy *px, int fd, char *err, size_t errlen)
{
	int sndbuf = 16384;
	struct event **slot;
	size_t i;

	for (i = 0; i < NELEM(px->dns_pairs) && px->dns_pairs[i] != NULL;
	    i++)
		;
	/* All taken: one goes, in turn (the stand-ins a run forgets). */
	if (i == NELEM(px->dns_pairs)) {
		i = px->dns_pairs_next;
		pair_close(&px->dns_pairs[i]);
	}
	px->dns_pairs_next = (i + 1) % NELEM(px->dns_pairs);
	slot = &px->dns_pairs[i];
	/* Answers the command leaves unread: a few, not the default's 200 KB. */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if ((*slot = event_new(px->base, fd, EV_READ | EV_PERSIST,
	    dns_pair_read, px)) == NULL || event_add(*slot, NULL) == -1) {
		if (*slot != NULL)
			event_free(*slot);
		*slot = NULL;
		snprintf(err, errlen, "name lookups: cannot watch a stand-in");
		return -1;
	}
	return 0;
}

void
proxy_dns_udp_close(struct proxy *px)
{
	size_t i;

	for (i = 0; i < NELEM(px->dns_udp); i++) {
		if (px->dns_udp[i] == NULL)
			continue;
		(void)close(event_get_fd(px->dns_udp[i]));
		event_free(px->dns_udp[i]);
		px->dns_udp[i] = NULL;
	}
	for (i = 0; i < NELEM(px->dns_pairs); i++)
		if (px->dns_pairs[i] != NULL)
			pair_close(&px->dns_pairs[i]);
}
