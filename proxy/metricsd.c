/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Serving the metrics (SPEC 8.1): GET /metrics on a loopback address or a
 * unix socket, in the proxy's own loop.  A scrape is formatted whole in
 * memory (a few kilobytes) and left to the connection's buffer: a slow
 * scraper holds its own buffer, never the loop, and gets what is ready or
 * nothing.
 *
 * Served by hand, one request a connection, because libevent 2.1's evhttp
 * cannot bound its connections: any local user could hold thousands open
 * on a loopback port and take the descriptors max_connections counts on.
 * Here at most SCRAPERS_MAX are open; one more closes the oldest that has
 * not sent its whole head (a scraper sends it at once), or is closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "proxy/internal.h"
#include "proxy/mstime.h"

#define SCRAPE_TIMEOUT_MS	10000
#define HEAD_MAX		8192
#define SCRAPERS_MAX		16

struct scraper {
	TAILQ_ENTRY(scraper)	 entry;
	struct metricsd		*m;
	struct bufferevent	*bev;
	bool			 answered;
};

struct metricsd {
	struct proxy		*px;
	struct evconnlistener	*evl;
	TAILQ_HEAD(, scraper)	 scrapers;	/* oldest first */
	unsigned		 nscrapers;
	char			 unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

static void
scraper_free(struct scraper *s)
{
	TAILQ_REMOVE(&s->m->scrapers, s, entry);
	s->m->nscrapers--;
	bufferevent_free(s->bev);
	free(s);
}

static void
written_cb(struct bufferevent *bev, void *arg)
{
	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		scraper_free(arg);
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	scraper_free(arg);	/* EOF, an error or the timeout */
}

/* The answer, then close: one request a connection. */
static void
answer(struct scraper *s, int status, bool head_only, bool om)
{
	static const char *const why[] = { [200] = "OK", [400] = "Bad Request",
	    [404] = "Not Found", [405] = "Method Not Allowed",
	    [431] = "Request Header Fields Too Large",
	    [503] = "Service Unavailable" };
	struct evbuffer *out = bufferevent_get_output(s->bev);
	struct evbuffer *body = evbuffer_new();
	struct metrics_view v;

	s->answered = true;
	(void)bufferevent_disable(s->bev, EV_READ);
	if (body == NULL) {
		scraper_free(s);
		return;
	}
	if (status == 200) {
		metrics_view_of(s->m->px, &v);
		if (metrics_format(body, &v, om) == -1) {
			(void)evbuffer_drain(body, evbuffer_get_length(body));
			status = 503;
		}
	}
	if (status != 200)
		(void)evbuffer_add_printf(body, "%s: metrics are at GET "
		    "/metrics\n", why[status]);
	if (evbuffer_add_printf(out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n", status,
	    why[status], status != 200 ? "text/plain; charset=utf-8" : om ?
	    "application/openmetrics-text; version=1.0.0; charset=utf-8" :
	    "text/plain; version=0.0.4; charset=utf-8",
	    evbuffer_get_length(body)) < 0 || (!head_only &&
	    evbuffer_add_buffer(out, body) == -1)) {
		evbuffer_free(body);
		scraper_free(s);
		return;
	}
	evbuffer_free(body);
	bufferevent_setcb(s->bev, NULL, written_cb, event_cb, s);
}

static void
read_cb(struct bufferevent *bev, void *arg)
{
	struct scraper *s = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer_ptr end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
	bool head_only, om;
	char *head;
	int status;

	if (end.pos == -1) {
		if (evbuffer_get_length(in) > HEAD_MAX)
			answer(s, 431, false, false);
		return;
	}
	if ((size_t)end.pos + 4 > HEAD_MAX) {
		answer(s, 431, false, false);
		return;
	}
	if ((head = (char *)evbuffer_pullup(in, end.pos + 4)) == NULL) {
		scraper_free(s);
		return;
	}
	status = metrics_http_judge(head, (size_t)end.pos + 4, &head_only, &om);
	answer(s, status, head_only, om);
}

/* Room for one more: the oldest that has asked nothing goes, or none. */
static bool
make_room(struct metricsd *m)
{
	struct scraper *s;

	if (m->nscrapers < SCRAPERS_MAX)
		return true;
	TAILQ_FOREACH(s, &m->scrapers, entry)
		if (!s->answered) {
			scraper_free(s);
			return true;
		}
	return false;
}

static void
accept_cb(struct evconnlistener *evl, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct metricsd *m = arg;
	struct timeval tv = ms_timeval(SCRAPE_TIMEOUT_MS);
	struct scraper *s;

	(void)evl;
	(void)sa;
	(void)salen;
	if (!make_room(m) || (s = calloc(1, sizeof(*s))) == NULL) {
		(void)close(fd);
		return;
	}
	s->m = m;
	s->bev = bufferevent_socket_new(m->px->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (s->bev == NULL) {
		(void)close(fd);
		free(s);
		return;
	}
	TAILQ_INSERT_TAIL(&m->scrapers, s, entry);
	m->nscrapers++;
	bufferevent_setcb(s->bev, read_cb, NULL, event_cb, s);
	bufferevent_setwatermark(s->bev, EV_READ, 0, HEAD_MAX + 1);
	if (bufferevent_set_timeouts(s->bev, &tv, &tv) == -1 ||
	    bufferevent_enable(s->bev, EV_READ) == -1)
		scraper_free(s);
}

/* A unix socket at path, for the owner and its group only. */
static int
unix_listener(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	mode_t old;
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path) || path[0] != '/') {
		snprintf(err, errlen, "--metrics unix:%s: an absolute path "
		    "shorter than %zu bytes", path, sizeof(sun.sun_path));
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		snprintf(err, errlen, "--metrics: %s", strerror(errno));
		return -1;
	}
	old = umask(0117);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(fd, 64) == -1) {
		snprintf(err, errlen, "--metrics unix:%s: %s", path,
		    strerror(errno));
		(void)umask(old);
		(void)close(fd);
		return -1;
	}
	(void)umask(old);
	return fd;
}

/* Where a listener of ADDR:0 ended up. */
static int
bound_as(int fd, struct conf_sockaddr *sa, char *bound, size_t boundlen,
    char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1) {
		snprintf(err, errlen, "--metrics: %s", strerror(errno));
		return -1;
	}
	sa->port = ntohs(ss.ss_family == AF_INET ?
	    ((struct sockaddr_in *)&ss)->sin_port :
	    ((struct sockaddr_in6 *)&ss)->sin6_port);
	conf_sockaddr_format(sa, bound, boundlen);
	return 0;
}

/* A TCP listener on a loopback ADDR:PORT. */
static int
tcp_listener(const char *addr, char *bound, size_t boundlen, char *err,
    size_t errlen)
{
	struct conf_sockaddr sa;
	struct sockaddr_storage ss;
	const char *perr = NULL;
	socklen_t len;
	int fd, one = 1;

	if (conf_sockaddr_parse(addr, strlen(addr), 0, true, &sa, &perr) ==
	    -1) {
		snprintf(err, errlen, "--metrics %s: %s", addr, perr);
		return -1;
	}
	if (!egress_addr_is_loopback(&sa.addr)) {
		snprintf(err, errlen, "--metrics %s: not loopback (a loopback "
		    "ADDR:PORT or unix:PATH)", addr);
		return -1;
	}
	len = egress_addr_sockaddr(&sa.addr, sa.port, &ss);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof(one)) == -1 || bind(fd, (struct sockaddr *)&ss, len) == -1 ||
	    listen(fd, 64) == -1 ||
	    bound_as(fd, &sa, bound, boundlen, err, errlen) == -1) {
		snprintf(err, errlen, "--metrics %s: %s", addr, strerror(errno));
		if (fd != -1)
			(void)close(fd);
		return -1;
	}
	return fd;
}

int
proxy_metrics_listen(struct proxy *px, const char *addr, char *bound,
    size_t boundlen, char *err, size_t errlen)
{
	struct metricsd *m;
	int fd;

	if (px->metrics.server != NULL) {
		snprintf(err, errlen, "--metrics: given twice");
		return -1;
	}
	if (strncmp(addr, "unix:", 5) == 0) {
		fd = unix_listener(addr + 5, err, errlen);
		snprintf(bound, boundlen, "%s", addr);
	} else
		fd = tcp_listener(addr, bound, boundlen, err, errlen);
	if (fd == -1)
		return -1;
	if ((m = calloc(1, sizeof(*m))) == NULL ||
	    (m->evl = evconnlistener_new(px->base, accept_cb, m,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1, fd)) == NULL) {
		free(m);
		(void)close(fd);
		if (strncmp(addr, "unix:", 5) == 0)
			(void)unlink(addr + 5);
		snprintf(err, errlen, "--metrics %s: cannot serve", addr);
		return -1;
	}
	m->px = px;
	TAILQ_INIT(&m->scrapers);
	if (strncmp(addr, "unix:", 5) == 0)
		snprintf(m->unix_path, sizeof(m->unix_path), "%s", addr + 5);
	px->metrics.server = m;
	return 0;
}

void
proxy_metrics_close(struct proxy *px)
{
	struct metricsd *m = px->metrics.server;

	if (m == NULL)
		return;
	while (!TAILQ_EMPTY(&m->scrapers))
		scraper_free(TAILQ_FIRST(&m->scrapers));
	evconnlistener_free(m->evl);
	if (m->unix_path[0] != '\0')
		(void)unlink(m->unix_path);
	free(m);
	px->metrics.server = NULL;
}
