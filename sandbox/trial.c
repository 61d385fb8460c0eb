/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Does a confinement attach here (doctor, SPEC 6.5)?  Found by doing what
 * a run does, never by guessing: the same plan, the same spawn in a
 * throwaway workspace, the same broker in the same init, and a command
 * that does, confined, what commands do first (connect to the proxy's
 * port, change a file's mode, signal itself) and then exits instead of
 * exec'ing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <event2/event.h>

#include "sandbox/internal.h"

#define TRIAL_TIMEOUT_S	10

struct trial {
	struct event_base	*base;
	struct sandbox_child	*child;
	bool			 done;
};

static void
ended_cb(evutil_socket_t fd, short what, void *arg)
{
	struct trial *t = arg;
	struct sandbox_direct d;
	int rv;

	if (!(what & EV_READ)) {
		event_base_loopbreak(t->base);
		return;
	}
	while ((rv = sandbox_next(t->child, &d)) == 1)
		;
	if (rv == 0) {
		t->done = true;
		event_base_loopbreak(t->base);
	}
}

/* 127.0.0.1:0, listening: the proxy's port of a landlock run. */
static int
listen_loopback(unsigned short *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int s;

	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(s, 4) == -1 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) == -1) {
		(void)close(s);
		return -1;
	}
	*port = ntohs(sin.sin_port);
	return s;
}

/* The trial's workspace, and a file its command may have left there. */
static void
remove_workspace(const char *ws)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/harn-egressd-trial", ws);
	(void)unlink(path);
	(void)rmdir(ws);
}

/* Serve the broker until the command ends; 0, or -1 with why and mech. */
static int
serve_trial(struct trial *t, char *why, size_t len, int *mech)
{
	struct timeval tv = { TRIAL_TIMEOUT_S, 0 };
	struct sandbox_failure f;
	struct event *ev;
	int st;

	*mech = -1;
	if (sandbox_ready(t->child, &f) == -1) {
		snprintf(why, len, "%s", f.text);
		*mech = f.mech;
		return -1;
	}
	if ((ev = event_new(t->base, sandbox_ctl_fd(t->child), EV_READ |
	    EV_PERSIST, ended_cb, t)) == NULL || event_add(ev, &tv) == -1 ||
	    event_base_dispatch(t->base) == -1 || !t->done) {
		snprintf(why, len, "the trial command did not end");
		if (ev != NULL)
			event_free(ev);
		sandbox_signal(t->child, SIGKILL);
		(void)sandbox_wait(t->child);
		return -1;
	}
	event_free(ev);
	st = sandbox_wait(t->child);
	if (spawn_late_failure(t->child) != NULL) {
		snprintf(why, len, "%s", spawn_late_failure(t->child));
		*mech = MECH_SECCOMP;
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(why, len, "the trial command ended with status %d",
		    st);
		return -1;
	}
	return 0;
}

static void
mark(struct sandbox_host *h, enum sandbox_confinement c, int mech,
    const char *why)
{
	h->failed[c] = true;
	h->failed_mech[c] = mech >= 0 && mech < MECH_COUNT ? mech :
	    c == CONFINEMENT_NAMESPACES ? MECH_NAMESPACES : MECH_SECCOMP;
	snprintf(h->failed_why[c], sizeof(h->failed_why[c]), "%s", why);
}

/*
 * One trial of c in a throwaway workspace: SANDBOX_UID's (theirs), where
 * a root caller's command runs as that uid, or ours.
 */
static int
trial_once(struct sandbox_host *h, enum sandbox_confinement c, bool theirs,
    char *why, size_t len)
{
	static char *const argv[] = { "true", NULL };
	char tmpl[] = "/tmp/harn-egressd-trial.XXXXXX";
	struct sandbox_request r;
	struct sandbox_plan_input in;
	struct sandbox_plan p;
	struct sandbox_failure f;
	struct trial t = { NULL, NULL, false };
	char *ws;
	int lfd = -1, rv = -1, mech;

	if ((ws = mkdtemp(tmpl)) == NULL) {
		snprintf(why, len, "trial workspace: %s", strerror(errno));
		return -1;
	}
	memset(&r, 0, sizeof(r));
	r.profile = PROFILE_WORKTREE;
	r.argv = argv;
	r.workspace = ws;
	r.limits.max_procs = SANDBOX_MAX_PROCS;
	r.limits.tmpfs_size = 1 << 20;
	r.trial = true;
	if (theirs && chown(ws, SANDBOX_UID, SANDBOX_GID) == -1) {
		snprintf(why, len, "trial workspace: %s", strerror(errno));
		goto out;
	}
	in = (struct sandbox_plan_input){ .profile = PROFILE_WORKTREE,
	    .choice = c == CONFINEMENT_NAMESPACES ? CHOICE_NAMESPACES :
	    CHOICE_LANDLOCK, .host = h, .uid_fits = h->root &&
	    sandbox_uid_fits(&r), .roots_root = h->root &&
	    sandbox_roots_root(&r) };
	sandbox_plan(&in, &p);
	if (p.refused) {
		/* What this one lacks, without the others' words. */
		snprintf(why, len, "%s", p.ntried > 0 ?
		    p.tried[p.ntried - 1].detail : p.detail);
		goto out;
	}
	if (c == CONFINEMENT_LANDLOCK &&
	    (lfd = listen_loopback(&r.host_port)) == -1) {
		snprintf(why, len, "trial listener: %s", strerror(errno));
		goto out;
	}
	if ((t.base = event_base_new()) == NULL) {
		snprintf(why, len, "event loop: out of memory");
		goto out;
	}
	if ((t.child = sandbox_start(&r, &p, &f)) == NULL) {
		snprintf(why, len, "%s", f.text);
		mark(h, c, f.mech, why);
		goto out;
	}
	if ((rv = serve_trial(&t, why, len, &mech)) == -1)
		mark(h, c, mech, why);
out:
	sandbox_free(t.child);
	if (t.base != NULL)
		event_base_free(t.base);
	if (lfd != -1)
		(void)close(lfd);
	remove_workspace(ws);
	return rv;
}

int
sandbox_trial(struct sandbox_host *h, enum sandbox_confinement c, char *why,
    size_t len)
{
	/*
	 * A root caller's landlock command keeps uid 0 in a workspace root
	 * owns (the common one) and runs as SANDBOX_UID in one that uid owns,
	 * where we may make it that uid (plan.c): a run may take either, so
	 * both are tried.
	 */
	if (c == CONFINEMENT_LANDLOCK && h->root && h->setid &&
	    trial_once(h, c, false, why, len) == -1)
		return -1;
	return trial_once(h, c, h->setid, why, len);
}
