/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The command (spawn.c draws the processes): forked by init, it confines
 * itself (setsid, Landlock, limits, capabilities dropped, no_new_privs,
 * seccomp and the broker's filter, whose listener goes to init), then
 * execs; or, unconfined, runs with the caller's own rights.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <unistd.h>

#include "sandbox/spawn_int.h"

static void
close_fds_above_2(void)
{
	if (syscall(SYS_close_range, 3, ~0U, 0) == 0)
		return;
	for (int fd = 3; fd < 65536; fd++)
		(void)close(fd);
}

/* The ruleset the parent built; -1 if none came. */
static int
take_ruleset(int ctl)
{
	int fds[SANDBOX_MAX_FDS];
	struct msg m;
	size_t n;

	if (spawn_recv(ctl, &m, fds, &n, SETUP_TIMEOUT_MS) == -1)
		return -1;
	while (n > 1)
		(void)close(fds[--n]);
	if (m.kind != MSG_RULESET || n != 1) {
		if (n == 1)
			(void)close(fds[0]);
		return -1;
	}
	return fds[0];
}

/*
 * sandbox_trial's command: what a confined command does first, each
 * through the broker; a step that fails says so like a set-up step.  Its
 * files: one in the workspace (its cwd), one in its TMPDIR.
 */
#define TRIAL_FILE	"harn-egressd-trial"

static void __attribute__((noreturn))
run_trial(struct job *j)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_port = htons(j->ns ? j->port : j->req->host_port),
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char path[PATH_MAX];
	int s, i;

	/* As exec would: the broker reads the memory of a dumpable caller. */
	(void)prctl(PR_SET_DUMPABLE, 1);
	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(s, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		spawn_fail(j->ctl, AREA_EGRESS, MECH_SECCOMP, "connect broker: "
		    "connect to the proxy's port: %s", strerror(errno));
	(void)close(s);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s%s", i == 0 ? "" :
		    j->rd->dir, i == 0 ? TRIAL_FILE : "/tmp/" TRIAL_FILE);
		if ((s = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)) ==
		    -1)
			spawn_fail(j->ctl, AREA_WRITE, MECH_LANDLOCK, "create a "
			    "file in %s: %s", i == 0 ? "the workspace" :
			    "its TMPDIR", strerror(errno));
		(void)close(s);
		if (chmod(path, 0640) == -1)
			spawn_fail(j->ctl, AREA_WRITE, MECH_SECCOMP, "connect "
			    "broker: chmod in %s: %s", i == 0 ?
			    "the workspace" : "its TMPDIR", strerror(errno));
		(void)unlink(path);
	}
	if (kill(getpid(), 0) == -1)
		spawn_fail(j->ctl, AREA_UNKNOWN, MECH_SECCOMP, "connect broker: "
		    "signal itself: %s", strerror(errno));
	_exit(0);
}

/*
 * CMD could not be executed: one line on its stderr saying which path and
 * why, then 127 (not found) or 126, as a shell would.  A name is looked
 * up in CMD's PATH (never printed: an environment value) to name the file
 * that was found but could not run.
 */
static void __attribute__((noreturn))
exec_failed(const char *name, char *const *envp, int err)
{
	const char *path = NULL, *p, *end;
	char found[4096];
	size_t i, n;

	if (strchr(name, '/') != NULL)
		path = name;
	for (i = 0; path == NULL && envp[i] != NULL; i++) {
		if (strncmp(envp[i], "PATH=", 5) != 0)
			continue;
		for (p = envp[i] + 5; path == NULL && *p != '\0'; p = end +
		    (*end == ':')) {
			end = p + strcspn(p, ":");
			n = (size_t)(end - p);
			if (snprintf(found, sizeof(found), "%.*s/%s", (int)n, p,
			    name) < (int)sizeof(found) && access(found, F_OK) == 0)
				path = found;
			if (*end == '\0')
				break;
		}
	}
	if (path == NULL && err == ENOENT)
		dprintf(STDERR_FILENO, "harn-egressd: cannot run %s: not found "
		    "in CMD's PATH (a tool outside the roots CMD is given is "
		    "not there: see --read-only-root)\n", name);
	else if (path == NULL)
		dprintf(STDERR_FILENO, "harn-egressd: cannot run %s: %s "
		    "searching CMD's PATH (a directory of it is outside what "
		    "the sandbox grants: see --read-only-root)\n", name,
		    strerror(err));
	else
		dprintf(STDERR_FILENO, "harn-egressd: cannot run %s: %s%s\n",
		    path, strerror(err), err == EACCES ? " (not executable, or "
		    "outside what the sandbox lets CMD execute: see "
		    "--read-only-root)" : err == ENOENT ? " (its #! interpreter "
		    "is not there)" : "");
	_exit(err == ENOENT && path == NULL ? 127 : 126);
}

/* The command: confined, then exec'd.  Never returns. */
void
spawn_run_command(struct job *j)
{
	const struct sandbox_plan *p = j->plan;
	struct landlock_stats st;
	struct msg m = { .kind = MSG_READY };
	const void *prog;
	size_t plen;
	char err[256], **envp;
	int ll = -1, notify = -1, which;

	(void)close(j->lsn[0]);
	if (setsid() == -1 || tty_take_ctty(j->req->tty) == -1)
		spawn_fail(j->ctl, AREA_UNKNOWN, -1, "session: %s",
		    strerror(errno));
	/*
	 * The host's grants come from the parent, built while the set-up
	 * ran; the confinement's own are added here, where they exist.
	 */
	if (p->landlock && (ll = take_ruleset(j->ctl)) == -1)
		_exit(3);	/* the parent failed to build it, and said why */
	if (ll != -1 && j->paths->ninside > 0 && sandbox_landlock_add(ll,
	    j->paths->inside, j->paths->ninside,
	    (const char *const *)j->paths->deny_inside.v,
	    j->paths->deny_inside.n, MAX_LANDLOCK_RULES, j->ns, &st, err,
	    sizeof(err)) == -1)
		spawn_fail(j->ctl, AREA_HOME_READ, MECH_LANDLOCK,
		    "landlock: %s", err);
	/* uid 0 is exempt from RLIMIT_NPROC: the broker counts its forks. */
	if (p->identity != IDENTITY_ROOT && limits_apply_rlimits(
	    &j->req->limits, j->ll, err, sizeof(err)) == -1)
		spawn_fail(j->ctl, AREA_UNKNOWN, -1, "%s", err);
	spawn_drop_privileges(j->ctl, false);
	if (ll != -1 && sandbox_landlock_enforce(ll, err, sizeof(err)) == -1)
		spawn_fail(j->ctl, AREA_WRITE, MECH_LANDLOCK, "landlock: %s",
		    err);
	if (chdir(j->req->workspace) == -1)
		spawn_fail(j->ctl, AREA_WRITE, -1, "%s: %s", j->req->workspace,
		    strerror(errno));
	/* Its TMPDIR and caches, on its own tmpfs: made as itself. */
	if (j->ns && rundir_fill_inside(j->rd, err, sizeof(err)) == -1)
		spawn_fail(j->ctl, AREA_WRITE, -1, "private directory: %s", err);
	if ((envp = sandbox_env_build(j->req, j->ns ? j->port :
	    j->req->host_port, j->rd, err, sizeof(err))) == NULL)
		spawn_fail(j->ctl, AREA_UNKNOWN, -1, "environment: %s", err);
	/*
	 * UDP where only the run's answerer can take it (SPEC 6.6): the
	 * namespace's own network, or the broker's stand-ins.
	 */
	if (!((j->ns && j->req->transparent) || spawn_udp_standins(j)) ||
	    sandbox_seccomp_generated(SECCOMP_MAIN_UDP, &prog, &plen) == -1)
		(void)sandbox_seccomp_program(&prog, &plen);
	if (p->seccomp && sandbox_seccomp_load_program(prog, plen, err,
	    sizeof(err)) == -1)
		spawn_fail(j->ctl, AREA_EGRESS, MECH_SECCOMP, "%s", err);
	which = SECCOMP_BROKER;
	if (j->ll)
		which |= SECCOMP_BROKER_LL | (p->getfd ? 0 :
		    SECCOMP_BROKER_OPTS) | (p->identity == IDENTITY_ROOT ?
		    SECCOMP_BROKER_ROOT : 0) | (spawn_udp_standins(j) ?
		    SECCOMP_BROKER_UDP : 0);
	/* A broker that cannot listen: the confinement did not attach. */
	if ((notify = sandbox_seccomp_load_broker(which, err,
	    sizeof(err))) == -1) {
		struct setup_fail f = { .err = errno, .mech = MECH_SECCOMP,
		    .area = AREA_LOCAL_SOCKET };

		snprintf(f.text, sizeof(f.text), "connect broker: %.200s", err);
		spawn_report_fail(j->ctl, true, &f);
	}
	/* The listener to init, which serves it; init says we are ready. */
	if (spawn_send(j->lsn[1], &m, &notify, 1) == -1)
		_exit(3);
	if (j->req->trial)
		run_trial(j);
	close_fds_above_2();
	execvpe(j->req->argv[0], j->req->argv, envp);
	exec_failed(j->req->argv[0], envp, errno);
}

bool
spawn_udp_standins(const struct job *j)
{
	return j->ll && !j->ns && j->req->transparent;
}

/* An unconfined command: the caller's own rights, nothing of ours. */
void
spawn_run_unconfined(struct job *j)
{
	char err[256], **envp;

	if (setsid() == -1 || tty_take_ctty(j->req->tty) == -1)
		spawn_fail(j->ctl, AREA_UNKNOWN, -1, "session: %s",
		    strerror(errno));
	if (chdir(j->req->workspace) == -1)
		spawn_fail(j->ctl, AREA_WRITE, -1, "%s: %s", j->req->workspace,
		    strerror(errno));
	if (limits_apply_rlimits(&j->req->limits, true, err,
	    sizeof(err)) == -1)
		spawn_fail(j->ctl, AREA_UNKNOWN, -1, "%s", err);
	/* worktree without a confinement: no capability still, if we can. */
	if (j->plan->profile != PROFILE_UNRESTRICTED)
		spawn_drop_privileges(j->ctl, false);
	if ((envp = sandbox_env_build(j->req, j->req->host_port, NULL, err,
	    sizeof(err))) == NULL)
		spawn_fail(j->ctl, AREA_UNKNOWN, -1, "environment: %s", err);
	if (j->req->trial)
		_exit(0);
	close_fds_above_2();
	execvpe(j->req->argv[0], j->req->argv, envp);
	exec_failed(j->req->argv[0], envp, errno);
}
