/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run mode's refusals of what went around the proxy (SPEC 5): a
 * connect(), bind() or listen() of the confined command toward an
 * endpoint the confinement does not allow, as the broker reports it.
 *
 * The first refusal of a process toward an endpoint is a line at once;
 * the ones that follow within a second are folded into one more line
 * with their count, written when the second is over (or at the end), so
 * a loop cannot flood the log and every refusal is still counted.  The
 * first refusal toward each endpoint is also said on stderr, with what
 * to do instead.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "cli/cli.h"
#include "cli/direct.h"
#include "cli/terminal.h"
#include "proxy/proxy.h"
#include "sandbox/sandbox.h"

#define FOLD_MS		1000
#define OPEN_MAX	256	/* windows open at once */
#define SAID_MAX	256	/* endpoints said on stderr */

struct window {
	enum sandbox_direct_op op;
	pid_t		 pid;
	char		 exe[256];
	char		 addr[128];
	unsigned short	 port;
	uint64_t	 opened_ms;
	uint64_t	 folded;	/* refusals after the first */
};

struct directs {
	struct dlog	*log;
	struct terminal	*term;		/* counts them; --quiet */
	struct event	*timer;
	char		 proxy[64];
	struct window	 open[OPEN_MAX];
	size_t		 nopen;
	struct {
		char		 addr[128];
		unsigned short	 port;
		bool		 inbound;
	}		 said[SAID_MAX];
	size_t		 nsaid;
	bool		 said_more;
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The window's folded refusals, as one line; then it closes. */
static void
close_window(struct directs *ds, size_t i)
{
	struct window *w = &ds->open[i];

	if (w->folded > 0)
		dlog_direct(ds->log, w->addr, w->port, w->pid, w->exe,
		    w->folded, w->op == DIRECT_INBOUND);
	ds->open[i] = ds->open[--ds->nopen];
}

static void
timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct directs *ds = arg;
	struct timeval tv = { FOLD_MS / 1000, (FOLD_MS % 1000) * 1000 };
	uint64_t now = now_ms();
	size_t i = 0;

	while (i < ds->nopen) {
		if (now - ds->open[i].opened_ms >= FOLD_MS)
			close_window(ds, i);
		else
			i++;
	}
	if (ds->nopen > 0)
		(void)evtimer_add(ds->timer, &tv);
}

static bool
same(const struct window *w, const struct sandbox_direct *d)
{
	return w->pid == d->pid && w->port == d->port &&
	    (w->op == DIRECT_INBOUND) == (d->op == DIRECT_INBOUND) &&
	    strcmp(w->addr, d->addr) == 0;
}

/* A name as a terminal may show it: anything but printable ASCII as \xNN. */
static void
printable(const char *s, char *out, size_t len)
{
	const unsigned char *p;
	size_t o = 0;

	for (p = (const unsigned char *)s; *p != '\0' && o + 5 < len; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			out[o++] = (char)*p;
		else
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", *p);
	}
	out[o] = '\0';
}

/* The endpoint as a person reads it: unix:PATH, ADDR:PORT, [V6]:PORT. */
static void
endpoint_of(const struct sandbox_direct *d, char *where, size_t len)
{
	char addr[560];

	printable(d->addr, addr, sizeof(addr));
	if (strncmp(addr, "unix:", 5) == 0 || strncmp(addr, "netlink:", 8) == 0)
		snprintf(where, len, "%s", addr);
	else if (strchr(addr, ':') != NULL)
		snprintf(where, len, "[%s]:%u", addr, d->port);
	else
		snprintf(where, len, "%s:%u", addr, d->port);
}

/* What to do instead, by what was tried. */
static void
say(struct directs *ds, const struct sandbox_direct *d)
{
	char who[1400], where[600], exe[1100], addr[560];
	size_t i;

	for (i = 0; i < ds->nsaid; i++)
		if (ds->said[i].port == d->port &&
		    ds->said[i].inbound == (d->op == DIRECT_INBOUND) &&
		    strcmp(ds->said[i].addr, d->addr) == 0)
			return;
	if (ds->nsaid == SAID_MAX) {
		if (!ds->said_more)
			cli_error("more direct connections refused than are "
			    "said here: see the decision log");
		ds->said_more = true;
		return;
	}
	snprintf(ds->said[ds->nsaid].addr, sizeof(ds->said[0].addr), "%s",
	    d->addr);
	ds->said[ds->nsaid].inbound = d->op == DIRECT_INBOUND;
	ds->said[ds->nsaid++].port = d->port;
	printable(d->exe, exe, sizeof(exe));
	printable(d->addr, addr, sizeof(addr));
	if (d->pid > 0)
		snprintf(who, sizeof(who), "%ld (%s)", (long)d->pid,
		    exe[0] != '\0' ? exe : "?");
	else
		snprintf(who, sizeof(who), "the command");
	endpoint_of(d, where, sizeof(where));
	switch (d->op) {
	case DIRECT_CONNECT:
		cli_error("refused a direct connection to %s from %s: only the "
		    "proxy at %s is reachable (and the command's own loopback "
		    "servers, and unix sockets under the workspace, the write "
		    "roots and --unix-socket-root); see harn-egressd(8), RUN "
		    "MODE", where, who, ds->proxy);
		break;
	case DIRECT_BIND:
		cli_error("refused a bind to %s from %s: a confined command may "
		    "listen on loopback only (bind 127.0.0.1 or ::1), and make "
		    "unix sockets under the roots it may write; see "
		    "harn-egressd(8), RUN MODE", where, who);
		break;
	case DIRECT_LISTEN:
		cli_error("refused listen() on a socket not bound to loopback "
		    "from %s (an unbound socket would listen on every "
		    "address): bind it to 127.0.0.1 first; see "
		    "harn-egressd(8), RUN MODE", who);
		break;
	case DIRECT_INBOUND:
		cli_error("refused a connection from %s to port %u of %s: in the "
		    "landlock confinement a listener of the command accepts only "
		    "connections of the command's own processes; see "
		    "harn-egressd(8), RUN MODE", addr, d->port, who);
		break;
	}
}

struct directs *
directs_new(struct event_base *base, struct dlog *log, const char *proxy,
    struct terminal *term)
{
	struct directs *ds;

	if ((ds = calloc(1, sizeof(*ds))) == NULL)
		return NULL;
	ds->log = log;
	ds->term = term;
	snprintf(ds->proxy, sizeof(ds->proxy), "%s", proxy);
	if ((ds->timer = evtimer_new(base, timer_cb, ds)) == NULL) {
		free(ds);
		return NULL;
	}
	return ds;
}

void
directs_add(struct directs *ds, const struct sandbox_direct *d)
{
	struct timeval tv = { FOLD_MS / 1000, (FOLD_MS % 1000) * 1000 };
	uint64_t now = now_ms();
	struct window *w;
	char where[600];
	size_t i;

	endpoint_of(d, where, sizeof(where));
	if (d->op == DIRECT_INBOUND)	/* the peer is no endpoint of ours */
		snprintf(where, sizeof(where), "inbound to port %u", d->port);
	if (ds->term != NULL)
		terminal_direct(ds->term, where, 1);
	if (ds->term == NULL || !terminal_quiet(ds->term))
		say(ds, d);
	for (i = 0; i < ds->nopen; i++) {
		w = &ds->open[i];
		if (same(w, d) && now - w->opened_ms < FOLD_MS) {
			w->folded++;
			return;
		}
	}
	dlog_direct(ds->log, d->addr, d->port, d->pid, d->exe, 1,
	    d->op == DIRECT_INBOUND);
	if (ds->nopen == OPEN_MAX)
		close_window(ds, 0);
	w = &ds->open[ds->nopen++];
	memset(w, 0, sizeof(*w));
	w->op = d->op;
	w->pid = d->pid;
	w->port = d->port;
	w->opened_ms = now;
	snprintf(w->exe, sizeof(w->exe), "%s", d->exe);
	snprintf(w->addr, sizeof(w->addr), "%s", d->addr);
	if (!evtimer_pending(ds->timer, NULL))
		(void)evtimer_add(ds->timer, &tv);
}

void
directs_free(struct directs *ds)
{
	if (ds == NULL)
		return;
	while (ds->nopen > 0)
		close_window(ds, 0);
	event_free(ds->timer);
	free(ds);
}
