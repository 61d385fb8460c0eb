/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A parent proxy (SPEC 8.3): on a connection made to the parent, ask it
 * with CONNECT for the target (the checked address, or with
 * upstream_resolve parent the name), and read its answer.  A 2xx makes
 * the connection a tunnel to the target; anything else, a close, a head
 * too long or no answer within the connect timeout is the request's
 * failure: never a way around the parent.
 *
 * The answer's head is taken from the socket and nothing after it: what
 * arrives is peeked, and taken only as far as the head goes (all of it
 * while the head has not ended, so a head in pieces never leaves unread
 * bytes for the loop to wake on again), so that what an origin says
 * first (an SSH or SMTP banner) right behind the parent's 200 stays in
 * the socket for the client.  The whole exchange has one deadline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "proxy/internal.h"

#define HEAD_MAX	8192

struct upstream_ask {
	struct event		*ev;
	int			 fd;
	char			 head[HEAD_MAX];	/* taken so far */
	size_t			 len;
	uint64_t		 deadline;		/* CLOCK_MONOTONIC ms */
	upstream_done_cb	 cb;
	void			*arg;
};

int
upstream_reply_parse(const char *buf, size_t len, size_t *head_len)
{
	const char *end = NULL;
	size_t i;

	for (i = 0; i + 3 < len && end == NULL; i++)
		if (memcmp(buf + i, "\r\n\r\n", 4) == 0)
			end = buf + i + 4;
	if (end == NULL)
		return len >= HEAD_MAX ? -1 : 0;
	*head_len = (size_t)(end - buf);
	/* "HTTP/1.x 2xx": a tunnel; any other status is a refusal. */
	if (*head_len < 13 || memcmp(buf, "HTTP/1.", 7) != 0 ||
	    (buf[7] != '0' && buf[7] != '1') || buf[8] != ' ' ||
	    buf[9] != '2' || buf[10] < '0' || buf[10] > '9' ||
	    buf[11] < '0' || buf[11] > '9')
		return -1;
	return 1;
}

int
upstream_request(char *out, size_t outlen, const char *host, uint16_t port,
    bool v6)
{
	int n = snprintf(out, outlen, "CONNECT %s%s%s:%u HTTP/1.1\r\n"
	    "Host: %s%s%s:%u\r\n\r\n", v6 ? "[" : "", host, v6 ? "]" : "",
	    port, v6 ? "[" : "", host, v6 ? "]" : "", port);

	return n < 0 || (size_t)n >= outlen ? -1 : n;
}

static void
done(struct upstream_ask *a, enum egress_reason r)
{
	upstream_done_cb cb = a->cb;
	void *arg = a->arg;

	upstream_ask_free(a);
	cb(r, arg);
}

/* Wait again for more of the head, within what is left of the deadline. */
static bool
wait_more(struct upstream_ask *a)
{
	uint64_t now = mono_ms();
	uint64_t left = a->deadline > now ? a->deadline - now : 0;
	struct timeval tv = ms_timeval(left);

	return left > 0 && event_add(a->ev, &tv) == 0;
}

static void
answer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct upstream_ask *a = arg;
	size_t head = 0, take;
	ssize_t n;
	int rc;

	if (what & EV_TIMEOUT) {
		done(a, EGRESS_R_CONNECT_TIMEOUT);
		return;
	}
	n = recv(fd, a->head + a->len, sizeof(a->head) - a->len,
	    MSG_PEEK | MSG_DONTWAIT);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0 || (rc = upstream_reply_parse(a->head, a->len + (size_t)n,
	    &head)) == -1) {
		done(a, EGRESS_R_CONNECT_FAILED);
		return;
	}
	/* Taken: all that came (the head goes on), or up to its end. */
	take = rc == 0 ? (size_t)n : head - a->len;
	if (recv(fd, a->head + a->len, take, MSG_DONTWAIT) != (ssize_t)take) {
		done(a, EGRESS_R_CONNECT_FAILED);
		return;
	}
	a->len += take;
	if (rc == 1)
		done(a, EGRESS_R_NONE);
	else if (!wait_more(a))
		done(a, EGRESS_R_CONNECT_TIMEOUT);
}

struct upstream_ask *
upstream_ask(struct event_base *base, int fd, const char *host,
    uint16_t port, bool v6, uint32_t timeout_ms, upstream_done_cb cb,
    void *arg)
{
	struct upstream_ask *a;
	struct timeval tv = ms_timeval(timeout_ms);
	char req[EGRESS_HOST_MAX + 64];
	int n;

	if ((n = upstream_request(req, sizeof(req), host, port, v6)) == -1 ||
	    (a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	a->fd = fd;
	a->cb = cb;
	a->arg = arg;
	a->deadline = mono_ms() + timeout_ms;
	/* A fresh connection's buffer takes the request whole, or it failed. */
	if (send(fd, req, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) != n ||
	    (a->ev = event_new(base, fd, EV_READ | EV_PERSIST, answer_cb,
	    a)) == NULL || event_add(a->ev, &tv) == -1) {
		upstream_ask_free(a);
		return NULL;
	}
	return a;
}

void
upstream_ask_free(struct upstream_ask *a)
{
	if (a == NULL)
		return;
	if (a->ev != NULL)
		event_free(a->ev);
	free(a);
}
