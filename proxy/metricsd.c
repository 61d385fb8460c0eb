/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Serving the metrics (SPEC 8.1): GET /metrics on a loopback address or a
 * unix socket, with libevent's HTTP server in the proxy's own loop.  A
 * scrape is formatted whole in memory (a few kilobytes) and left to the
 * connection's buffer: a slow scraper holds its own buffer, never the
 * loop, and gets what is ready or nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/http.h>

#include "proxy/internal.h"

#define SCRAPE_TIMEOUT_S	10
#define HEADERS_MAX		8192

struct metricsd {
	struct evhttp		*http;
	char			 unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* Prometheus asks for OpenMetrics; curl and promtool get the text format. */
static bool
wants_openmetrics(struct evhttp_request *req)
{
	const char *a = evhttp_find_header(evhttp_request_get_input_headers(
	    req), "Accept");

	return a != NULL && strstr(a, "application/openmetrics-text") != NULL;
}

static void
scrape(struct evhttp_request *req, void *arg)
{
	struct proxy *px = arg;
	struct metrics_view v;
	struct evbuffer *b;
	bool om = wants_openmetrics(req);

	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET &&
	    evhttp_request_get_command(req) != EVHTTP_REQ_HEAD) {
		evhttp_send_error(req, 405, "GET /metrics only");
		return;
	}
	if ((b = evbuffer_new()) == NULL) {
		evhttp_send_error(req, 503, NULL);
		return;
	}
	metrics_view_of(px, &v);
	if (metrics_format(b, &v, om) == -1) {
		evbuffer_free(b);
		evhttp_send_error(req, 503, NULL);
		return;
	}
	(void)evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", om ? "application/openmetrics-text; "
	    "version=1.0.0; charset=utf-8" : "text/plain; version=0.0.4; "
	    "charset=utf-8");
	evhttp_send_reply(req, 200, "OK", b);
	evbuffer_free(b);
}

static void
not_found(struct evhttp_request *req, void *arg)
{
	(void)arg;
	evhttp_send_error(req, 404, "metrics are at /metrics");
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

static int
bind_metrics(struct metricsd *m, const char *addr, char *bound,
    size_t boundlen, char *err, size_t errlen)
{
	struct conf_sockaddr sa;
	struct evhttp_bound_socket *bs;
	const char *perr = NULL;
	char host[EGRESS_ADDRSTR_MAX];
	int fd;

	if (strncmp(addr, "unix:", 5) == 0) {
		if ((fd = unix_listener(addr + 5, err, errlen)) == -1)
			return -1;
		if (evhttp_accept_socket(m->http, fd) == -1) {
			(void)close(fd);
			snprintf(err, errlen, "--metrics %s: cannot serve", addr);
			return -1;
		}
		snprintf(m->unix_path, sizeof(m->unix_path), "%s", addr + 5);
		snprintf(bound, boundlen, "%s", addr);
		return 0;
	}
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
	egress_addr_format(&sa.addr, host, sizeof(host));
	if ((bs = evhttp_bind_socket_with_handle(m->http, host, sa.port)) ==
	    NULL) {
		snprintf(err, errlen, "--metrics %s: %s", addr, strerror(errno));
		return -1;
	}
	return bound_as(evhttp_bound_socket_get_fd(bs), &sa, bound, boundlen,
	    err, errlen);
}

int
proxy_metrics_listen(struct proxy *px, const char *addr, char *bound,
    size_t boundlen, char *err, size_t errlen)
{
	struct metricsd *m;

	if (px->metrics.server != NULL) {
		snprintf(err, errlen, "--metrics: given twice");
		return -1;
	}
	if ((m = calloc(1, sizeof(*m))) == NULL ||
	    (m->http = evhttp_new(px->base)) == NULL) {
		free(m);
		snprintf(err, errlen, "--metrics: out of memory");
		return -1;
	}
	evhttp_set_timeout(m->http, SCRAPE_TIMEOUT_S);
	evhttp_set_max_headers_size(m->http, HEADERS_MAX);
	evhttp_set_max_body_size(m->http, 0);
	evhttp_set_allowed_methods(m->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD);
	evhttp_set_cb(m->http, "/metrics", scrape, px);
	evhttp_set_gencb(m->http, not_found, NULL);
	if (bind_metrics(m, addr, bound, boundlen, err, errlen) == -1) {
		evhttp_free(m->http);
		free(m);
		return -1;
	}
	px->metrics.server = m;
	return 0;
}

void
proxy_metrics_close(struct proxy *px)
{
	struct metricsd *m = px->metrics.server;

	if (m == NULL)
		return;
	evhttp_free(m->http);
	if (m->unix_path[0] != '\0')
		(void)unlink(m->unix_path);
	free(m);
	px->metrics.server = NULL;
}
