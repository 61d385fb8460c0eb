/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Service mode: the proxy on loopback until SIGTERM or SIGINT, which drain
 * open connections for up to drain_timeout; SIGHUP re-reads the policy.
 * systemd, when it asks (NOTIFY_SOCKET), is told of each (notify.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <event2/event.h>

#include "cli/cli.h"
#include "cli/notify.h"
#include "cli/options.h"
#include "cli/report.h"
#include "cli/serve.h"
#include "proxy/proxy.h"

struct service {
	struct event_base	*base;
	struct proxy		*px;
	const struct options	*opt;
	struct report		*rep;
	struct dlog		*log;
	int			 logfd;		/* a file's, or stderr */
	bool			 stopping;
	size_t			 nlisten;
	struct notifier		 notify;	/* systemd's, if it asked */
};

/* Enough descriptors for max_connections clients, origins and pipes. */
static void
raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int
serve_open_log(const char *path)
{
	int fd;

	if (path == NULL || strcmp(path, "-") == 0)
		return STDERR_FILENO;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    O_NOCTTY, 0640);
	if (fd == -1)
		cli_error("--log %s: %s", path, errno == ELOOP ?
		    "is a symbolic link (not followed)" : strerror(errno));
	return fd;
}

/*
 * The port, one line, written whole or not at all: a new temporary file
 * beside it (never one already there, never through a symlink), renamed.
 */
int
serve_write_port_file(const char *path, const char *bound)
{
	const char *colon = strrchr(bound, ':');
	char tmp[4096], line[16];
	int fd, n, saved;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1)
		return -1;
	n = snprintf(line, sizeof(line), "%s\n", colon ? colon + 1 : bound);
	saved = write(fd, line, (size_t)n) == n ? 0 : -1;
	if (close(fd) == -1 || saved == -1 || rename(tmp, path) == -1) {
		saved = errno;
		(void)unlink(tmp);
		errno = saved;
		return -1;
	}
	return 0;
}

static void
drained_cb(void *arg)
{
	struct service *s = arg;

	event_base_loopexit(s->base, NULL);
}

static void
stop_cb(evutil_socket_t sig, short ev, void *arg)
{
	struct service *s = arg;

	if (s->stopping)
		return;
	s->stopping = true;
	notify_send(&s->notify, NOTIFY_STOPPING, "draining open connections");
	proxy_drain(s->px, drained_cb, s);
}

/*
 * SIGHUP also reopens --log FILE, for rotation by rename: the new file at
 * the path takes the lines from now on.  One that cannot be opened keeps
 * the old.
 */
static void
reopen_log(struct service *s)
{
	int fd, old;

	if (s->logfd <= STDERR_FILENO)
		return;
	if ((fd = serve_open_log(s->opt->log)) == -1) {
		cli_error("SIGHUP: the decision log stays the file it was");
		return;
	}
	if ((old = dlog_reopen(s->log, fd)) == -1) {
		cli_error("SIGHUP: --log %s: cannot be watched; the decision "
		    "log stays the file it was", s->opt->log);
		close(fd);
		return;
	}
	close(old);
	s->logfd = fd;
}

/* Re-read the policy file; what became of it, for STATUS=. */
static const char *
reload_policy(struct service *s)
{
	struct conf *c;
	char err[256];

	reopen_log(s);
	if (s->opt->policy == NULL) {
		cli_error("SIGHUP: no policy file to re-read; policy unchanged");
		return "no policy file to re-read";
	}
	if ((c = cli_load_policy(s->opt->policy)) == NULL) {
		cli_error("SIGHUP: keeping the policy in force");
		proxy_metrics_reload(s->px, false);
		return "reload failed, the policy in force kept";
	}
	if (proxy_reload(s->px, c, err, sizeof(err)) == -1) {
		cli_error("SIGHUP: %s; keeping the policy in force", err);
		conf_free(c);
		proxy_metrics_reload(s->px, false);
		return "reload failed, the policy in force kept";
	}
	proxy_metrics_reload(s->px, true);
	if (report_policy(s->rep, c, true) == -1)
		cli_error("SIGHUP: the report keeps describing the earlier "
		    "policy");
	cli_error("SIGHUP: policy re-read from %s", s->opt->policy);
	cli_say_report_mode(c);
	return "policy re-read";
}

/* "WHAT; accepting on N listener(s)": no address, no host, no path. */
static void
notify_accepting(struct service *s, const char *what)
{
	char status[NOTIFY_STATUS_MAX];

	snprintf(status, sizeof(status), "%s%saccepting on %zu listener%s",
	    what != NULL ? what : "", what != NULL ? "; " : "", s->nlisten,
	    s->nlisten == 1 ? "" : "s");
	notify_send(&s->notify, NOTIFY_READY, status);
}

/*
 * SIGHUP: RELOADING=1 first, READY=1 whatever the outcome (systemd waits
 * for it; the old policy stays in force on failure).  Not once draining:
 * STOPPING=1 was the last word.
 */
static void
reload_cb(evutil_socket_t sig, short ev, void *arg)
{
	struct service *s = arg;
	const char *what;

	if (!s->stopping)
		notify_send(&s->notify, NOTIFY_RELOADING,
		    "re-reading the policy");
	what = reload_policy(s);
	if (!s->stopping)
		notify_accepting(s, what);
}

/* A descriptor limit short of max_connections: said once, at start. */
static void
say_fd_short(const struct proxy *px, const struct conf *c)
{
	unsigned long have, need;

	if (proxy_fd_short(px, &have, &need))
		cli_error("warning: %lu file descriptors cannot serve "
		    "max_connections %u (up to 6 a connection, %lu in all): "
		    "raise ulimit -n or lower max_connections", have,
		    c->max_connections, need);
}

/*
 * --metrics (SPEC 8.1): opened before the proxy's listeners, so that one
 * that cannot be opened leaves none announced.  Where, in bound ("" for
 * none).
 */
int
serve_metrics(struct proxy *px, const struct options *opt, char *bound,
    size_t boundlen)
{
	char err[256];

	bound[0] = '\0';
	if (opt->metrics == NULL)
		return 0;
	if (proxy_metrics_listen(px, opt->metrics, bound, boundlen, err,
	    sizeof(err)) == -1) {
		cli_error("%s", err);
		return -1;
	}
	return 0;
}

/* Open every listener and say where; -1 if any cannot be opened. */
static int
open_listeners(struct service *s, const struct conf *c)
{
	const struct conf_sockaddr *l = s->opt->listen;
	size_t i, n = s->opt->nlisten;
	char bound[64], err[256];

	if (n == 0) {
		l = c->nlisten ? c->listen : &cli_loopback;
		n = c->nlisten ? c->nlisten : 1;
	}
	for (i = 0; i < n; i++) {
		if (proxy_listen(s->px, &l[i], bound, sizeof(bound), err,
		    sizeof(err)) == -1) {
			cli_error("%s", err);
			return -1;
		}
		/* Written before it is announced: a failure announces none. */
		if (i == 0 && s->opt->port_file != NULL &&
		    serve_write_port_file(s->opt->port_file, bound) == -1) {
			cli_error("--port-file %s: %s", s->opt->port_file,
			    strerror(errno));
			return -1;
		}
		if (!egress_addr_is_loopback(&l[i].addr))
			cli_error("warning: listening on %s: reachable from "
			    "other hosts", bound);
		printf("harn-egressd: listening on %s\n", bound);
		report_listen(s->rep, bound);
	}
	s->nlisten = n;
	return fflush(stdout) == 0 ? 0 : -1;
}

int
serve(const struct options *opt, struct conf *c, struct report *rep)
{
	struct service s = { .opt = opt, .rep = rep };
	struct event *sigs[4] = { NULL };
	struct dlog *log = NULL;
	char err[256], metrics[128] = "";
	int logfd, rv = EXIT_RUNTIME;

	if ((s.logfd = logfd = serve_open_log(opt->log)) == -1) {
		conf_free(c);
		return EXIT_USAGE;
	}
	if (report_log_fd(rep, logfd) == -1) {
		conf_free(c);
		if (logfd > STDERR_FILENO)
			close(logfd);
		return EXIT_USAGE;
	}
	rep->started = true;
	notify_open(&s.notify);
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit();
	if ((s.base = proxy_event_base_new()) == NULL ||
	    (s.log = log = dlog_new(s.base, logfd, NULL)) == NULL) {
		cli_error("out of memory");
		conf_free(c);
		goto out;
	}
	if ((s.px = proxy_new(s.base, c, log, err, sizeof(err))) == NULL) {
		cli_error("%s", err);
		conf_free(c);
		goto out;
	}
	say_fd_short(s.px, c);
	if (serve_metrics(s.px, opt, metrics, sizeof(metrics)) == -1 ||
	    open_listeners(&s, c) == -1)
		goto out;
	if (metrics[0] != '\0' && (printf("harn-egressd: metrics on %s\n",
	    metrics) < 0 || fflush(stdout) != 0))
		goto out;
	cli_say_report_mode(c);
	sigs[0] = evsignal_new(s.base, SIGTERM, stop_cb, &s);
	sigs[1] = evsignal_new(s.base, SIGINT, stop_cb, &s);
	sigs[2] = evsignal_new(s.base, SIGHUP, reload_cb, &s);
	if (sigs[0] == NULL || sigs[1] == NULL || sigs[2] == NULL ||
	    evsignal_add(sigs[0], NULL) == -1 ||
	    evsignal_add(sigs[1], NULL) == -1 ||
	    evsignal_add(sigs[2], NULL) == -1) {
		cli_error("cannot handle signals");
		goto out;
	}
	/* Only now: systemd's SIGHUP may follow READY=1 at once. */
	notify_accepting(&s, NULL);
	if (event_base_dispatch(s.base) == -1) {
		cli_error("event loop failed");
		goto out;
	}
	rv = 0;
out:
	for (size_t i = 0; i < 3; i++)
		if (sigs[i] != NULL)
			event_free(sigs[i]);
	proxy_free(s.px);
	if (log != NULL)
		report_log(rep, log, s.logfd > STDERR_FILENO ? opt->log : NULL);
	dlog_free(log);
	if (s.base != NULL)
		event_base_free(s.base);
	if (s.logfd > STDERR_FILENO)
		close(s.logfd);
	notify_close(&s.notify);
	return rv;
}
