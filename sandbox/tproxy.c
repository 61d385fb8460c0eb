/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A TCP connect of the command carried through the proxy (SPEC 6.6): the
 * broker has connected the command's socket to the proxy's port; here it
 * asks, in SOCKS5, for the address the command asked for, and reads the
 * proxy's answer and not one byte more, so what the origin sends first
 * (an SSH banner, a server's greeting) is left for the command.  The
 * proxy decides in full, as for any client; the broker only learns
 * whether the tunnel stands.
 *
 * The request and the reply are pure (tproxy_request, tproxy_reply) and
 * unit-tested; the exchange waits on the broker's loop, never blocking it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <event2/event.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

/* The proxy answers within its own timeouts; this only bounds a stuck one. */
#define TPROXY_WAIT_S	300

struct tproxy {
	struct sockaddr_storage	 target;	/* what the command asked for */
	socklen_t		 targetlen;
	struct event		*ev;
	int			 sock;
	uint8_t			 reply[TPROXY_REPLY_MAX];
	size_t			 got;
	bool			 asked;
	bool			 hold;		/* SOCKS_HOLD, offered */
	bool			 held;		/*   and agreed */
	void			(*cb)(void *, int);
	void			*arg;
};

struct tproxy *
tproxy_new(const struct sockaddr_storage *target, socklen_t len)
{
	struct tproxy *t;

	if (len > sizeof(*target) || (t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	memcpy(&t->target, target, len);
	t->targetlen = len;
	t->sock = -1;
	return t;
}

void
tproxy_free(struct tproxy *t)
{
	if (t == NULL)
		return;
	if (t->ev != NULL)
		event_free(t->ev);
	free(t);
}

bool
tproxy_asked(const struct tproxy *t)
{
	return t->asked;
}

bool
tproxy_held(const struct tproxy *t)
{
	return t->held;
}

const struct sockaddr_storage *
tproxy_target(const struct tproxy *t, socklen_t *len)
{
	*len = t->targetlen;
	return &t->target;
}

/* The proxy's address (127.0.0.1:port) in the family of the socket. */
int
tproxy_proxy_addr(int family, unsigned short port,
    struct sockaddr_storage *out, socklen_t *outlen)
{
	struct sockaddr_in *sin = (void *)out;
	struct sockaddr_in6 *sin6 = (void *)out;

	memset(out, 0, sizeof(*out));
	if (family == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*outlen = sizeof(*sin);
		return 0;
	}
	if (family != AF_INET6)
		return EAFNOSUPPORT;
	/* An IPv6 socket reaches 127.0.0.1 as ::ffff:127.0.0.1. */
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	sin6->sin6_addr.s6_addr[10] = 0xff;
	sin6->sin6_addr.s6_addr[11] = 0xff;
	sin6->sin6_addr.s6_addr[12] = 127;
	sin6->sin6_addr.s6_addr[15] = 1;
	*outlen = sizeof(*sin6);
	return 0;
}

/*
 * The greeting (no authentication) and the CONNECT request, sent at once:
 * the proxy reads a request that comes with its greeting.  hold offers
 * the method X'8A' first (proxy/socksmsg.h): the proxy then answers the
 * method alone and tells its decision to the broker aside.  A v4-mapped
 * IPv6 address is asked for as the IPv4 address it is.  Its length, or 0
 * for an address that is not IPv4 or IPv6.
 */
size_t
tproxy_request(const struct sockaddr_storage *ss, socklen_t len, bool hold,
    uint8_t *buf, size_t buflen)
{
	const struct sockaddr_in *sin = (const void *)ss;
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	const uint8_t *a;
	size_t alen, n = 0;
	uint16_t port;

	if (ss->ss_family == AF_INET && len >= sizeof(*sin)) {
		a = (const uint8_t *)&sin->sin_addr;
		alen = 4;
		port = sin->sin_port;
	} else if (ss->ss_family == AF_INET6 && len >= sizeof(*sin6)) {
		a = sin6->sin6_addr.s6_addr;
		alen = 16;
		port = sin6->sin6_port;
		if (memcmp(a, mapped, sizeof(mapped)) == 0) {
			a += 12;
			alen = 4;
		}
	} else
		return 0;
	if (buflen < (hold ? 4u : 3u) + 4 + alen + 2)
		return 0;
	buf[n++] = 5;						/* greeting */
	if (hold) {
		buf[n++] = 2;
		buf[n++] = TPROXY_HOLD;
	} else
		buf[n++] = 1;
	buf[n++] = 0;
	buf[n++] = 5; buf[n++] = 1; buf[n++] = 0;		/* CONNECT */
	buf[n++] = alen == 4 ? 1 : 4;
	memcpy(buf + n, a, alen);
	n += alen;
	memcpy(buf + n, &port, 2);	/* network order already */
	return n + 2;
}

/*
 * The proxy's answer so far: > 0, the bytes still to read (never more
 * than the answer holds); 0, the tunnel stands, or the proxy holds its
 * decision (the method X'8A' alone, and only when hold offered it); < 0,
 * -errno: refused (every refusal is ECONNREFUSED to the command, SPEC
 * 6.6).
 */
int
tproxy_reply(const uint8_t *b, size_t got, bool hold)
{
	size_t need = 2 + 4;

	if (got >= 2 && hold && b[0] == 5 && b[1] == TPROXY_HOLD)
		return 0;
	if (got >= 2 && (b[0] != 5 || b[1] != 0))
		return -ECONNREFUSED;	/* the method, refused */
	if (got >= 4 && (b[2] != 5 || b[3] != 0))
		return -ECONNREFUSED;	/* a refusal, or not SOCKS5 */
	if (got >= 6)
		switch (b[5]) {
		case 1:
			need += 4 + 2;
			break;
		case 4:
			need += 16 + 2;
			break;
		case 3:
			if (got < 7)
				return 1;
			need += 1 + (size_t)b[6] + 2;
			break;
		default:
			return -ECONNREFUSED;
		}
	if (need > TPROXY_REPLY_MAX)
		return -ECONNREFUSED;
	return got < need ? (int)(need - got) : 0;
}

static void
answered(struct tproxy *t, int err)
{
	t->asked = true;
	if (t->ev != NULL) {
		event_free(t->ev);
		t->ev = NULL;
	}
	t->cb(t->arg, err);
}

static void
reply_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tproxy *t = arg;
	ssize_t n;
	int more;

	if (!(what & EV_READ)) {
		answered(t, ECONNREFUSED);	/* no answer in time */
		return;
	}
	more = tproxy_reply(t->reply, t->got, t->hold);
	while (more > 0) {
		n = recv(fd, t->reply + t->got, (size_t)more, MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			answered(t, ECONNREFUSED);	/* closed unanswered */
			return;
		}
		t->got += (size_t)n;
		more = tproxy_reply(t->reply, t->got, t->hold);
	}
	t->held = more == 0 && t->got == 2;
	answered(t, more == 0 ? 0 : -more);
}

/*
 * Ask, on sock (connected to the proxy), for the target; cb(arg, err)
 * once answered: 0, or ECONNREFUSED.  0, or an errno (cb not called).
 */
int
tproxy_ask(struct tproxy *t, struct event_base *base, int sock, bool hold,
    void (*cb)(void *, int), void *arg)
{
	struct timeval tv = { TPROXY_WAIT_S, 0 };
	uint8_t req[32];
	size_t len;
	ssize_t n;

	if ((len = tproxy_request(&t->target, t->targetlen, hold, req,
	    sizeof(req))) == 0)
		return EAFNOSUPPORT;
	/* A fresh connection's buffer takes these few bytes whole. */
	n = send(sock, req, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n != (ssize_t)len)
		return ECONNREFUSED;
	t->sock = sock;
	t->hold = hold;
	t->cb = cb;
	t->arg = arg;
	if ((t->ev = event_new(base, sock, EV_READ | EV_PERSIST, reply_cb,
	    t)) == NULL || event_add(t->ev, &tv) == -1)
		return ENOMEM;
	return 0;
}
