/* SPDX-License-Identifier: Apache-2.0 */
/*
 * setup (spawn.c draws the processes): the confinement's namespaces and
 * mounts (ns.c), the proxy's listener handed over, then init
 * (spawn_init.c) forked; it waits, the subreaper of whatever init leaves
 * behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/spawn_int.h"

/*
 * setup's side of enter_sandbox_userns: init's maps.  Written through the
 * /proc init mounted for its PID namespace (ours is read-only now), in
 * which it is 1.
 */
static void
map_init(struct job *j)
{
	struct setup_fail f;
	int procfd = -1;
	char c;

	(void)close(j->map_req[1]);
	(void)close(j->map_ack[0]);
	if (read(j->map_req[0], &c, 1) != 1)
		return;		/* it failed before, and said why */
	memset(&f, 0, sizeof(f));
	if ((procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    ns_user_map(procfd, 1, &f) == -1) {
		if (procfd == -1)
			snprintf(f.text, sizeof(f.text), "/proc: %s",
			    strerror(errno));
		spawn_report_fail(j->ctl, true, &f);
	}
	(void)close(procfd);
	c = 'k';
	/* Without its ack, init reads an end of file, and ends. */
	if (write(j->map_ack[1], &c, 1) != 1)
		(void)close(j->map_ack[1]);
}

/* The broker's roots, opened in the command's view of the filesystem. */
int *
spawn_open_roots(const struct strv *roots)
{
	int *fds;
	size_t i;

	if ((fds = calloc(roots->n + 1, sizeof(int))) == NULL)
		return NULL;
	for (i = 0; i < roots->n; i++)
		fds[i] = open(roots->v[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fds;
}

/* Port 53 of the namespace, to harn-egressd, which answers there. */
static void
send_dns(struct job *j, struct setup_fail *f)
{
	struct msg m = { .kind = MSG_DNS };
	int dfd[2];

	if (ns_dns_answerer(dfd, f) == -1)
		spawn_report_fail(j->ctl, true, f);
	if (spawn_send(j->ctl, &m, dfd, dfd[1] != -1 ? 2 : 1) == -1)
		_exit(3);
	(void)close(dfd[0]);
	if (dfd[1] != -1)
		(void)close(dfd[1]);
}

/* The first child: the confinement's set-up, then init; waits for it. */
void
spawn_run_setup(struct job *j, int go)
{
	struct msg m = { .kind = MSG_SETUP };
	struct setup_fail f;
	int lfd[2] = { -1, -1 }, st;
	pid_t init;
	char c;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (tty_child_stdio(j->req->tty) == -1)
		spawn_fail(j->ctl, AREA_UNKNOWN, -1, "terminal: %s",
		    strerror(errno));
	/*
	 * The proxy made itself non-dumpable, which leaves /proc/self owned
	 * by root; the id maps are written through it.  init makes itself
	 * non-dumpable again.
	 */
	(void)prctl(PR_SET_DUMPABLE, 1);
	/* What init leaves behind, if it dies first, comes here to end. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (go != -1 && read(go, &c, 1) != 1)
		_exit(3);	/* the parent could not make the cgroup */
	memset(&f, 0, sizeof(f));
	if (j->ns) {
		if (ns_enter(j->paths, &j->req->limits, j->root, &lfd[0],
		    &j->port, &f) == -1)
			spawn_report_fail(j->ctl, true, &f);
		/* To ask who holds the other end of a connection (owner.c). */
		lfd[1] = diag_open();
		if ((j->rootfds = spawn_open_roots(&j->paths->sockroots)) ==
		    NULL || (j->bindfds = spawn_open_roots(
		    &j->paths->bindroots)) == NULL)
			spawn_fail(j->ctl, AREA_LOCAL_SOCKET, MECH_NAMESPACES,
			    "out of memory");
		m.port = j->port;
		if (spawn_send(j->ctl, &m, lfd, lfd[1] != -1 ? 2 : 1) == -1)
			_exit(3);
		(void)close(lfd[0]);
		if (lfd[1] != -1)
			(void)close(lfd[1]);
		if (j->req->transparent)
			send_dns(j, &f);
	}
	j->setup = getpid();
	if (j->ns && j->root && (pipe2(j->map_req, O_CLOEXEC) == -1 ||
	    pipe2(j->map_ack, O_CLOEXEC) == -1))
		spawn_fail(j->ctl, AREA_UNKNOWN, -1, "pipe: %s",
		    strerror(errno));
	if ((init = fork()) == -1)
		spawn_fail(j->ctl, AREA_UNKNOWN, -1, "fork: %s",
		    strerror(errno));
	if (init == 0)
		spawn_run_init(j);
	fds_free(j->rootfds, j->paths->sockroots.n);
	fds_free(j->bindfds, j->paths->bindroots.n);
	m.kind = MSG_INIT;
	m.pid = init;
	(void)spawn_send(j->ctl, &m, NULL, 0);
	if (j->ns && j->root && j->plan->identity == IDENTITY_SANDBOX_UID)
		map_init(j);
	(void)close(j->ctl);
	while (waitpid(init, &st, 0) == -1 && errno == EINTR)
		;
	/* init is gone: nothing it started may outlive it. */
	spawn_end_orphans();
	_exit(0);
}
