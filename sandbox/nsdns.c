/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The namespaces confinement's name lookups over UDP (SPEC 6.6): in the
 * command's network namespace, every address is made local (a `local`
 * route for 0.0.0.0/0 and ::/0 on lo, as a transparent proxy's set-up
 * does), and a UDP socket on port 53 of every address is made here and
 * handed to harn-egressd, which answers on it.  So a datagram to
 * whichever resolver the command was configured with (the host's
 * /etc/resolv.conf names one that is not there, a Go program its own)
 * reaches the run's answerer and no other, and the answer comes from the
 * address it was sent to (IP_PKTINFO), as a resolver checks.
 *
 * Nothing here opens a way out: the namespace has no interface but lo,
 * and TCP connects are the broker's to decide, before any route is read.
 * UDP sockets exist in this confinement only (SECCOMP_MAIN_UDP).
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "sandbox/internal.h"

#define DNS_PORT	53

#ifndef IPV6_FREEBIND
#define IPV6_FREEBIND	78	/* Linux 4.15 */
#endif

static int
fail_dns(struct setup_fail *f, const char *what)
{
	f->err = errno;
	f->mech = MECH_NAMESPACES;
	f->area = AREA_EGRESS;
	snprintf(f->text, sizeof(f->text), "name lookups: %s: %s", what,
	    strerror(errno));
	return -1;
}

/* `ip route add local 0.0.0.0/0 dev lo table local` (or ::/0). */
static int
route_all_local(int nl, int family, unsigned ifindex)
{
	struct {
		struct nlmsghdr	nh;
		struct rtmsg	rt;
		struct rtattr	oif_attr;
		uint32_t	oif;
	} req;
	struct {
		struct nlmsghdr	 nh;
		struct nlmsgerr	 err;
	} ack;
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_NEWROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
	    NLM_F_EXCL;
	req.nh.nlmsg_seq = (uint32_t)family;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_dst_len = 0;
	req.rt.rtm_table = RT_TABLE_LOCAL;
	req.rt.rtm_protocol = RTPROT_BOOT;
	req.rt.rtm_scope = RT_SCOPE_HOST;
	req.rt.rtm_type = RTN_LOCAL;
	req.oif_attr.rta_len = RTA_LENGTH(sizeof(uint32_t));
	req.oif_attr.rta_type = RTA_OIF;
	req.oif = ifindex;
	if (send(nl, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		return -1;
	if ((n = recv(nl, &ack, sizeof(ack), 0)) < (ssize_t)sizeof(ack) ||
	    ack.nh.nlmsg_type != NLMSG_ERROR) {
		errno = EPROTO;
		return -1;
	}
	if (ack.err.error != 0) {
		errno = -ack.err.error;
		return -1;
	}
	return 0;
}

/* Where each query went: the answer comes from there. */
static int
want_pktinfo(int fd, int family)
{
	int on = 1;

	if (family == AF_INET)
		return setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on));
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) == -1)
		return -1;
	/*
	 * IPv6 checks an answer's source against the addresses of the
	 * interfaces, not the local route: free to answer from any (before
	 * 4.15, from ::1 only).
	 */
	(void)setsockopt(fd, IPPROTO_IPV6, IPV6_FREEBIND, &on, sizeof(on));
	return setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on,
	    sizeof(on));
}

/* Port 53 of every address of family; -1 with errno. */
static int
answerer_socket(int family)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_port = htons(DNS_PORT) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
	    .sin6_port = htons(DNS_PORT) };
	const struct sockaddr *sa = family == AF_INET ?
	    (const struct sockaddr *)&sin : (const struct sockaddr *)&sin6;
	socklen_t len = family == AF_INET ? sizeof(sin) : sizeof(sin6);
	int fd, e;

	fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -1;
	if (want_pktinfo(fd, family) == -1 || bind(fd, sa, len) == -1) {
		e = errno;
		(void)close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
ns_dns_answerer(int fds[2], struct setup_fail *f)
{
	unsigned lo = if_nametoindex("lo");
	int nl, rv = 0;

	fds[0] = fds[1] = -1;
	if (lo == 0)
		return fail_dns(f, "lo");
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl == -1)
		return fail_dns(f, "netlink");
	if (route_all_local(nl, AF_INET, lo) == -1)
		rv = fail_dns(f, "local route");
	else if ((fds[0] = answerer_socket(AF_INET)) == -1)
		rv = fail_dns(f, "port 53");
	/*
	 * IPv6 where the kernel has it: without, no resolver can be asked
	 * over it either.
	 */
	else if (route_all_local(nl, AF_INET6, lo) == 0)
		fds[1] = answerer_socket(AF_INET6);
	(void)close(nl);
	if (rv == -1 && fds[0] != -1) {
		(void)close(fds[0]);
		fds[0] = -1;
	}
	return rv;
}
