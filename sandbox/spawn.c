/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Spawning the confined command (SPEC 6).  Four processes:
 *
 *   harn-egressd (host namespaces; the proxy and the decision log)
 *     `- setup: the confinement's namespaces and mounts (ns.c), the
 *        proxy's listener handed over; then waits, the subreaper of
 *        whatever init leaves behind
 *          `- init: PID 1 of the new PID namespace (namespaces), or the
 *             command's subreaper (landlock).  It takes exactly the
 *             command's identity (become_command: its uid, gids, user
 *             namespace, no capability, no_new_privs), then forks the
 *             command and serves its broker (broker.c) on an event loop
 *             of its own: whatever is done for the command is done with
 *             the command's rights, never harn-egressd's.  It forwards
 *             signals, reaps, reports the command's status and what the
 *             broker refused; when it exits, what is left ends too
 *               `- command: setsid, Landlock, limits, capabilities
 *                  dropped, no_new_privs, seccomp (the allowlist) and the
 *                  broker's filter (whose listener goes to init), fds
 *                  above 2 closed, exec
 *
 * Every step that fails says so on the control socket before anything
 * is run, and nothing is sent to the children, so a failure's word is
 * never lost to a reset socket.  Without namespaces there is no set-up
 * work and no PID namespace: init is the children's subreaper and ends
 * whatever the command left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>

#include <event2/event.h>

#include "sandbox/internal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif

/* Linux 6.13's pidfd information (older headers lack it). */
struct pidfd_info_v0 {
	uint64_t	 mask;
	uint64_t	 cgroupid;
	uint32_t	 pid, tgid, ppid;
	uint32_t	 ids[8];	/* ruid .. fsgid, spare */
};
#define PIDFD_GET_INFO_V0	_IOWR(0xFF, 11, struct pidfd_info_v0)
#define PIDFD_INFO_PID_BIT	1ULL

#define SETUP_TIMEOUT_MS	10000
#define ACK_TIMEOUT_MS		2000	/* harn-egressd busy, or gone */
#define OPT_ROOTS_MAX		128	/* writable roots the broker knows */
#define MAX_LANDLOCK_RULES	4096

enum msg_kind {
	MSG_SETUP = 1,	/* the listener */
	MSG_INIT,	/* init's host pid */
	MSG_READY,	/* the command is about to exec, its broker serving */
	MSG_FAIL,	/* a step failed; nothing was run */
	MSG_EXIT,	/* the command's wait status */
	MSG_RULESET,	/* to the command: the Landlock ruleset, host grants */
	MSG_DIRECT,	/* a refusal of the broker's (with a pidfd) */
	MSG_CONN,	/* a connect to the proxy, about to be made (a pidfd) */
	MSG_ACK		/* to init: a refusal's process is known */
};

struct msg {
	int			 kind;
	int			 wstatus;
	pid_t			 pid;
	unsigned short		 port;
	bool			 setup;		/* MSG_FAIL: the confinement's */
	struct setup_fail	 fail;
	struct broker_refusal	 refusal;	/* MSG_DIRECT */
	struct broker_conn	 conn;		/* MSG_CONN */
};

struct sandbox_child {
	pid_t			 pid;		/* setup (waited for) */
	pid_t			 init_pid;	/* signals go here (host pid) */
	int			 ctl;
	int			 listen_fd;
	int			 diag;		/* sock_diag, in the listener's netns */
	unsigned short		 port;
	struct sandbox_paths	 paths;
	struct rundir		 rd;		/* rd.req: the request run */
	const struct sandbox_request *req;
	const struct sandbox_plan *plan;
	bool			 ns, ll;
	bool			 root;
	char			*cgroup;
	bool			 exited;
	/* Refusals read but not yet taken by sandbox_next, oldest first. */
	struct sandbox_direct	*queue;
	size_t			 qhead, qlen, qcap;
	size_t			 unacked;	/* refusals init waits on */
	bool			 handed;	/*   one of them is the caller's */
	struct owner_table	 owners;
	bool			 ended;		/* MSG_EXIT read, or none will come */
	bool			 silent;	/*   none will */
	int			 wstatus;
	char			 late[256];	/* a trial's failed step */
};

/* What the children read of the request and the plan. */
struct job {
	const struct sandbox_request	*req;
	const struct sandbox_plan	*plan;
	const struct sandbox_paths	*paths;
	const struct rundir		*rd;
	bool				 ns, ll, root;
	int				 ctl;
	unsigned short			 port;
	pid_t				 setup;		/* init's parent */
	int				 map_req[2], map_ack[2];
	int				 lsn[2];	/* init <- command */
	/* The broker's roots, opened where the command's view is ours. */
	int				*rootfds, *bindfds;
};

static int
send_msg(int ctl, const struct msg *m, const int *fds, size_t nfds)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int) * SANDBOX_MAX_FDS)];
		struct cmsghdr	align;
	} u;
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (nfds > 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	return sendmsg(ctl, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ? 0 : -1;
}

/* An answer to init that never waits: init waits for it, bounded. */
static int
send_ack(int ctl, const struct msg *m)
{
	return send(ctl, m, sizeof(*m), MSG_NOSIGNAL | MSG_DONTWAIT) ==
	    (ssize_t)sizeof(*m) ? 0 : -1;
}

/* One message and the descriptors it carries; -1 with errno. */
static int
recv_msg(int ctl, struct msg *m, int *fds, size_t *nfds, int timeout_ms)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int) * SANDBOX_MAX_FDS)];
		struct cmsghdr	align;
	} u;
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct pollfd pfd = { ctl, POLLIN, 0 };
	struct cmsghdr *c;
	ssize_t n;

	*nfds = 0;
	if (timeout_ms >= 0 && poll(&pfd, 1, timeout_ms) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	/*
	 * A peer that closed with our message unread leaves ECONNRESET to be
	 * reported first; what it sent before is still queued behind it.
	 */
	do {
		n = recvmsg(ctl, &mh, MSG_CMSG_CLOEXEC);
	} while (n == -1 && (errno == EINTR || errno == ECONNRESET));
	c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (c != NULL && c->cmsg_level == SOL_SOCKET &&
	    c->cmsg_type == SCM_RIGHTS) {
		*nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds, CMSG_DATA(c), *nfds * sizeof(int));
	}
	if (n != (ssize_t)sizeof(*m)) {
		while (*nfds > 0)
			(void)close(fds[--*nfds]);
		if (n >= 0)
			errno = EPIPE;
		return -1;
	}
	return 0;
}

/* In the children: report a failed step, then end. */
static void __attribute__((noreturn))
report_fail(int ctl, bool setup, const struct setup_fail *f)
{
	struct msg m = { .kind = MSG_FAIL, .setup = setup, .fail = *f };

	(void)send_msg(ctl, &m, NULL, 0);
	_exit(3);
}

static void __attribute__((noreturn, format(printf, 4, 5)))
child_fail(int ctl, enum sandbox_area area, int mech, const char *fmt, ...)
{
	struct setup_fail f = { .err = errno, .mech = mech, .area = area };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f.text, sizeof(f.text), fmt, ap);
	va_end(ap);
	report_fail(ctl, false, &f);
}

/*
 * Every capability gone, in every set, and never back through exec.  A
 * process that already holds none (a run without namespaces by a plain
 * user) cannot change its securebits or bounding set: no_new_privs then
 * keeps exec from gaining any, and the plan says the bounding set is left.
 */
static void
drop_privileges(int ctl, bool have_caps)
{
	struct __user_cap_header_struct hdr = {
	    _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int cap, in;

	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
	    SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
	    SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
	    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED) == -1 &&
	    (have_caps || errno != EPERM))
		child_fail(ctl, AREA_UNKNOWN, -1, "securebits: %s",
		    strerror(errno));
	for (cap = 0; (in = prctl(PR_CAPBSET_READ, cap)) >= 0; cap++) {
		if (in == 0 || prctl(PR_CAPBSET_DROP, cap) == 0)
			continue;
		if (have_caps || errno != EPERM)
			child_fail(ctl, AREA_UNKNOWN, -1, "bounding set: %s",
			    strerror(errno));
		break;		/* the plan said so (sandbox_plan) */
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		child_fail(ctl, AREA_UNKNOWN, -1, "ambient: %s",
		    strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		child_fail(ctl, AREA_UNKNOWN, -1, "no_new_privs: %s",
		    strerror(errno));
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) == -1)
		child_fail(ctl, AREA_UNKNOWN, -1, "capset: %s",
		    strerror(errno));
}

/* The bounding set emptied, by a process that may (a root caller's). */
static void
drop_bounding_set(int ctl)
{
	int cap, in;

	for (cap = 0; (in = prctl(PR_CAPBSET_READ, cap)) >= 0; cap++)
		if (in == 1 && prctl(PR_CAPBSET_DROP, cap) == -1)
			child_fail(ctl, AREA_UNKNOWN, -1, "bounding set: %s",
			    strerror(errno));
}

/* May this process change its securebits and bounding set? */
static bool
have_setpcap(void)
{
	struct __user_cap_header_struct hdr = {
	    _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) == -1)
		return true;	/* unknown: insist, and fail loudly */
	return (data[0].effective & (1U << CAP_SETPCAP)) != 0;
}

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

	if (recv_msg(ctl, &m, fds, &n, SETUP_TIMEOUT_MS) == -1)
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
		child_fail(j->ctl, AREA_EGRESS, MECH_SECCOMP, "connect broker: "
		    "connect to the proxy's port: %s", strerror(errno));
	(void)close(s);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s%s", i == 0 ? "" :
		    j->rd->dir, i == 0 ? TRIAL_FILE : "/tmp/" TRIAL_FILE);
		if ((s = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)) ==
		    -1)
			child_fail(j->ctl, AREA_WRITE, MECH_LANDLOCK, "create a "
			    "file in %s: %s", i == 0 ? "the workspace" :
			    "its TMPDIR", strerror(errno));
		(void)close(s);
		if (chmod(path, 0640) == -1)
			child_fail(j->ctl, AREA_WRITE, MECH_SECCOMP, "connect "
			    "broker: chmod in %s: %s", i == 0 ?
			    "the workspace" : "its TMPDIR", strerror(errno));
		(void)unlink(path);
	}
	if (kill(getpid(), 0) == -1)
		child_fail(j->ctl, AREA_UNKNOWN, MECH_SECCOMP, "connect broker: "
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
static void __attribute__((noreturn))
run_command(struct job *j)
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
		child_fail(j->ctl, AREA_UNKNOWN, -1, "session: %s",
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
		child_fail(j->ctl, AREA_HOME_READ, MECH_LANDLOCK,
		    "landlock: %s", err);
	/* uid 0 is exempt from RLIMIT_NPROC: the broker counts its forks. */
	if (p->identity != IDENTITY_ROOT && limits_apply_rlimits(
	    &j->req->limits, j->ll, err, sizeof(err)) == -1)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "%s", err);
	drop_privileges(j->ctl, false);
	if (ll != -1 && sandbox_landlock_enforce(ll, err, sizeof(err)) == -1)
		child_fail(j->ctl, AREA_WRITE, MECH_LANDLOCK, "landlock: %s",
		    err);
	if (chdir(j->req->workspace) == -1)
		child_fail(j->ctl, AREA_WRITE, -1, "%s: %s", j->req->workspace,
		    strerror(errno));
	/* Its TMPDIR and caches, on its own tmpfs: made as itself. */
	if (j->ns && rundir_fill_inside(j->rd, err, sizeof(err)) == -1)
		child_fail(j->ctl, AREA_WRITE, -1, "private directory: %s", err);
	if ((envp = sandbox_env_build(j->req, j->ns ? j->port :
	    j->req->host_port, j->rd, err, sizeof(err))) == NULL)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "environment: %s", err);
	(void)sandbox_seccomp_program(&prog, &plen);
	if (p->seccomp && sandbox_seccomp_load_program(prog, plen, err,
	    sizeof(err)) == -1)
		child_fail(j->ctl, AREA_EGRESS, MECH_SECCOMP, "%s", err);
	which = SECCOMP_BROKER;
	if (j->ll)
		which |= SECCOMP_BROKER_LL | (p->getfd ? 0 :
		    SECCOMP_BROKER_OPTS) | (p->identity == IDENTITY_ROOT ?
		    SECCOMP_BROKER_ROOT : 0);
	/* A broker that cannot listen: the confinement did not attach. */
	if ((notify = sandbox_seccomp_load_broker(which, err,
	    sizeof(err))) == -1) {
		struct setup_fail f = { .err = errno, .mech = MECH_SECCOMP,
		    .area = AREA_LOCAL_SOCKET };

		snprintf(f.text, sizeof(f.text), "connect broker: %.200s", err);
		report_fail(j->ctl, true, &f);
	}
	/* The listener to init, which serves it; init says we are ready. */
	if (send_msg(j->lsn[1], &m, &notify, 1) == -1)
		_exit(3);
	if (j->req->trial)
		run_trial(j);
	close_fds_above_2();
	execvpe(j->req->argv[0], j->req->argv, envp);
	exec_failed(j->req->argv[0], envp, errno);
}

/* An unconfined command: the caller's own rights, nothing of ours. */
static void __attribute__((noreturn))
run_unconfined(struct job *j)
{
	char err[256], **envp;

	if (setsid() == -1 || tty_take_ctty(j->req->tty) == -1)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "session: %s",
		    strerror(errno));
	if (chdir(j->req->workspace) == -1)
		child_fail(j->ctl, AREA_WRITE, -1, "%s: %s", j->req->workspace,
		    strerror(errno));
	if (limits_apply_rlimits(&j->req->limits, true, err,
	    sizeof(err)) == -1)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "%s", err);
	/* worktree without a confinement: no capability still, if we can. */
	if (j->plan->profile != PROFILE_UNRESTRICTED)
		drop_privileges(j->ctl, false);
	if ((envp = sandbox_env_build(j->req, j->req->host_port, NULL, err,
	    sizeof(err))) == NULL)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "environment: %s", err);
	if (j->req->trial)
		_exit(0);
	close_fds_above_2();
	execvpe(j->req->argv[0], j->req->argv, envp);
	exec_failed(j->req->argv[0], envp, errno);
}

/* ---------------------------------------------------------------- */
/* init: the command's identity, its broker, its reaper. */

/*
 * A root caller's command in the namespaces confinement: init makes the
 * user namespace the command will share, in which setup (its parent,
 * root outside) maps SANDBOX_UID alone; so neither is root there nor
 * anywhere, and init's rights over the command are those of a peer.
 */
static void
enter_sandbox_userns(struct job *j)
{
	char c = 'u';

	/*
	 * setup's ends are not ours: holding map_ack's write end, init
	 * would wait for ever when setup dies (harn-egressd ended as the
	 * run starts), the new user namespace having cleared its parent-
	 * death signal.  Without it, setup's death is EOF here.
	 */
	(void)close(j->map_req[0]);
	(void)close(j->map_ack[1]);
	if (unshare(CLONE_NEWUSER) == -1)
		child_fail(j->ctl, AREA_WRITE, MECH_NAMESPACES,
		    "user namespace: %s", strerror(errno));
	if (write(j->map_req[1], &c, 1) != 1 ||
	    read(j->map_ack[0], &c, 1) != 1 || c != 'k')
		_exit(3);	/* setup said why */
}

/*
 * init takes exactly the command's identity before the command is forked
 * from it (SPEC 6.2): the broker it serves then acts with the command's
 * uid and gids and no capability, and no code path is left that could act
 * with harn-egressd's.  Every step is checked; a half-changed identity
 * ends the run.
 */
static void
become_command(struct job *j)
{
	bool caps = j->ns;

	switch (j->plan->identity) {
	case IDENTITY_CALLER:
		break;
	case IDENTITY_SANDBOX_UID:
		if (j->ns)
			enter_sandbox_userns(j);
		else
			drop_bounding_set(j->ctl);	/* while root can */
		if (setresgid(SANDBOX_GID, SANDBOX_GID, SANDBOX_GID) == -1 ||
		    setgroups(0, NULL) == -1 ||
		    setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID) == -1)
			child_fail(j->ctl, AREA_WRITE, -1, "uid %u: %s",
			    SANDBOX_UID, strerror(errno));
		break;
	case IDENTITY_ROOT:
		/* Root's groups go where we may drop them (CAP_SETGID). */
		if (setgroups(0, NULL) == -1 && errno != EPERM)
			child_fail(j->ctl, AREA_WRITE, -1, "setgroups: %s",
			    strerror(errno));
		caps = have_setpcap();
		break;
	}
	if (!j->ns && j->plan->identity == IDENTITY_CALLER)
		caps = have_setpcap();
	drop_privileges(j->ctl, caps);
}

/*
 * The broker's refusals, to harn-egressd, with a pidfd of the process;
 * the caller is answered once harn-egressd has taken it (MSG_ACK): its
 * line is written before the answer (SPEC 5), and its process, still
 * waiting in the call, is known by the host's pid even when it exits as
 * soon as it is answered.  A harn-egressd that does not answer within
 * ACK_TIMEOUT_MS does not hold the command up longer.
 */
static void
tell_refused(void *arg, const struct broker_refusal *r)
{
	struct job *j = arg;
	struct msg m = { .kind = MSG_DIRECT, .refusal = *r };
	int fds[SANDBOX_MAX_FDS], pidfd, sent;
	size_t n;

	pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
	sent = send_msg(j->ctl, &m, &pidfd, pidfd != -1 ? 1 : 0);
	if (pidfd != -1)
		(void)close(pidfd);
	/* Only MSG_ACK comes this way once the command runs. */
	if (sent == 0 && recv_msg(j->ctl, &m, fds, &n, ACK_TIMEOUT_MS) == 0)
		while (n > 0)
			(void)close(fds[--n]);
}

/* Who is about to connect to the proxy, with a pidfd of its process. */
static void
tell_connecting(void *arg, const struct broker_conn *conn)
{
	struct job *j = arg;
	struct msg m = { .kind = MSG_CONN, .conn = *conn };

	/*
	 * Without a PID namespace our pid is the host's: the caller, waiting
	 * in connect(), holds it now.  In one, harn-egressd reads the host's
	 * from the pidfd.
	 */
	(void)send_msg(j->ctl, &m, &conn->pidfd, j->ns ? 1 : 0);
}

struct init_state {
	struct job		*j;
	struct event_base	*base;
	struct broker		*broker;
	pid_t			 cmd;
	bool			 ended;
	int			 wstatus;
	bool			 orphaned;
};

/* Signals come as readable data (signalfd): no handler races the loop. */
static void
signal_cb(evutil_socket_t fd, short what, void *arg)
{
	struct init_state *s = arg;
	struct signalfd_siginfo si;
	pid_t p;
	int st;

	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if ((int)si.ssi_signo == SIGCHLD)
			continue;
		if ((int)si.ssi_signo == SIGRTMIN) {
			/* harn-egressd is gone (its set-up's end). */
			s->orphaned = true;
			(void)kill(s->cmd, SIGKILL);
			continue;
		}
		(void)kill(s->cmd, (int)si.ssi_signo);
	}
	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		if (p == s->cmd) {
			s->ended = true;
			s->wstatus = st;
		}
	if (s->ended || s->orphaned)
		event_base_loopbreak(s->base);
}

static const int init_signals[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP,
    SIGQUIT, SIGUSR1, SIGUSR2 };

static void
noop(int sig)
{
	(void)sig;
}

/*
 * The signals init takes, blocked and read from a signalfd.  Each has a
 * handler all the same: the init of a PID namespace is sent none it
 * leaves at the default.
 */
static int
init_signalfd(struct job *j)
{
	struct sigaction sa = { .sa_handler = noop };
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < NELEM(init_signals); i++) {
		sigaddset(&set, init_signals[i]);
		(void)sigaction(init_signals[i], &sa, NULL);
	}
	if (!j->ns) {
		sigaddset(&set, SIGRTMIN);
		(void)sigaction(SIGRTMIN, &sa, NULL);
	}
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
		return -1;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* The listener the command made (its broker filter's), or -1. */
static int
take_listener(int fd)
{
	int fds[SANDBOX_MAX_FDS];
	struct msg m;
	size_t n;

	if (recv_msg(fd, &m, fds, &n, SETUP_TIMEOUT_MS) == -1)
		return -1;
	while (n > 1)
		(void)close(fds[--n]);
	return n == 1 ? fds[0] : -1;
}

/* The broker, served here for the command's whole life. */
static struct broker *
init_broker(struct job *j, struct event_base *base, int notify)
{
	const struct sandbox_paths *paths = j->paths;
	const char *writable[OPT_ROOTS_MAX + 1];
	struct broker_conf bc;
	struct setup_fail f;
	struct broker *b;
	char err[256];
	size_t i, n = 0;

	memset(&bc, 0, sizeof(bc));
	bc.mode = j->ns ? BROKER_NS : BROKER_LL;
	bc.notify = notify;
	bc.roots = (const char *const *)paths->sockroots.v;
	bc.nroots = paths->sockroots.n;
	bc.rootfds = j->rootfds;
	bc.binds = (const char *const *)paths->bindroots.v;
	bc.nbinds = paths->bindroots.n;
	bc.bindfds = j->bindfds;
	writable[n++] = j->req->workspace;
	for (i = 0; i < j->req->nrw_roots && n < OPT_ROOTS_MAX; i++)
		writable[n++] = j->req->rw_roots[i];
	bc.writable = writable;
	bc.nwritable = n;
	bc.readonly = j->req->ro_roots;
	bc.nreadonly = j->req->nro_roots;
	bc.proxy_port = j->ns ? j->port : j->req->host_port;
	bc.transparent = j->req->transparent;
	bc.landlock_abi = j->plan->landlock ? j->plan->landlock_abi : 0;
	bc.init = getpid();
	bc.getfd = j->plan->getfd;
	bc.max_procs = j->plan->identity == IDENTITY_ROOT ?
	    j->req->limits.max_procs : 0;
	bc.refused = tell_refused;
	bc.connecting = tell_connecting;
	bc.arg = j;
	j->rootfds = j->bindfds = NULL;		/* the broker's now */
	if ((b = broker_new(base, &bc, err, sizeof(err))) == NULL) {
		memset(&f, 0, sizeof(f));
		f.err = ENOMEM;
		f.mech = MECH_SECCOMP;
		f.area = AREA_LOCAL_SOCKET;
		snprintf(f.text, sizeof(f.text), "connect broker: %.200s",
		    err);
		report_fail(j->ctl, true, &f);
	}
	return b;
}

/*
 * Without a PID namespace: end whatever the command left behind.  Each
 * round kills the children there are and reaps one; the orphans of what
 * died are ours by then (the subreaper's), for the next round.
 */
static void
end_orphans(void)
{
	char path[64], buf[4096], *s, *e;
	ssize_t n;
	long pid;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children",
	    (long)getpid(), (long)getpid());
	for (;;) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
			n = read(fd, buf, sizeof(buf) - 1);
			(void)close(fd);
			buf[n > 0 ? n : 0] = '\0';
			for (s = buf; (pid = strtol(s, &e, 10)) > 0; s = e)
				(void)kill((pid_t)pid, SIGKILL);
		}
		if (waitpid(-1, NULL, 0) == -1 && errno == ECHILD)
			return;
	}
}

/* Told when harn-egressd goes: PID 1's end ends the namespace; ours not. */
static void
arm_parent_death(struct job *j)
{
	(void)prctl(PR_SET_PDEATHSIG, j->ns ? SIGKILL : SIGRTMIN);
	if (getppid() != j->setup)
		(void)raise(j->ns ? SIGKILL : SIGRTMIN);	/* gone already */
}

/*
 * init: the command's identity, then the command, then its broker until
 * it ends (an unconfined command: the caller's own rights, no broker).
 * Exiting ends whatever is left (the PID namespace's end, or
 * end_orphans).
 */
static void __attribute__((noreturn))
run_init(struct job *j)
{
	struct init_state s = { .j = j };
	struct msg m = { .kind = MSG_EXIT };
	struct setup_fail f;
	struct event *sev = NULL;
	bool confined = j->ns || j->ll;
	int sfd, notify = -1;

	(void)prctl(PR_SET_DUMPABLE, 0);	/* not readable from inside */
	if ((sfd = init_signalfd(j)) == -1)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "signalfd: %s",
		    strerror(errno));
	arm_parent_death(j);
	memset(&f, 0, sizeof(f));
	if (j->ns && ns_mount_proc(&f) == -1)
		report_fail(j->ctl, true, &f);
	if (!j->ns)
		(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (confined) {
		become_command(j);
		/* Changing identity cleared these. */
		(void)prctl(PR_SET_DUMPABLE, 0);
		arm_parent_death(j);
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
		    j->lsn) == -1)
			child_fail(j->ctl, AREA_UNKNOWN, -1, "socketpair: %s",
			    strerror(errno));
	}
	if ((s.cmd = fork()) == -1)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "fork: %s",
		    strerror(errno));
	if (s.cmd == 0) {
		sigset_t all;

		sigemptyset(&all);
		(void)sigprocmask(SIG_SETMASK, &all, NULL);
		(void)close(sfd);
		if (confined)
			run_command(j);
		run_unconfined(j);
	}
	if (confined) {
		(void)close(j->lsn[1]);
		/* No listener: the command failed before, and said why. */
		if ((notify = take_listener(j->lsn[0])) == -1) {
			(void)kill(s.cmd, SIGKILL);
			_exit(3);
		}
		(void)close(j->lsn[0]);
	}
	if ((s.base = event_base_new()) == NULL ||
	    (sev = event_new(s.base, sfd, EV_READ | EV_PERSIST, signal_cb,
	    &s)) == NULL || event_add(sev, NULL) == -1) {
		(void)kill(s.cmd, SIGKILL);
		child_fail(j->ctl, AREA_UNKNOWN, MECH_SECCOMP, "connect "
		    "broker: event loop: %s", strerror(errno));
	}
	if (confined && (s.broker = init_broker(j, s.base, notify)) ==
	    NULL) {
		(void)kill(s.cmd, SIGKILL);
		_exit(3);
	}
	if (send_msg(j->ctl, &(struct msg){ .kind = MSG_READY }, NULL, 0) ==
	    -1) {
		(void)kill(s.cmd, SIGKILL);
		_exit(3);
	}
	signal_cb(sfd, EV_READ, &s);	/* what came before the loop */
	while (!s.ended && !s.orphaned &&
	    event_base_loop(s.base, EVLOOP_ONCE) == 0)
		signal_cb(sfd, EV_READ, &s);
	if (s.orphaned) {
		end_orphans();
		if (j->ll)	/* harn-egressd cannot now: its directory */
			rundir_orphaned(j->rd);
		_exit(3);
	}
	if (!j->ns)
		end_orphans();
	m.wstatus = s.wstatus;
	(void)send_msg(j->ctl, &m, NULL, 0);
	_exit(0);
}

/* ---------------------------------------------------------------- */
/* setup: the namespaces, then init. */

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
		report_fail(j->ctl, true, &f);
	}
	(void)close(procfd);
	c = 'k';
	/* Without its ack, init reads an end of file, and ends. */
	if (write(j->map_ack[1], &c, 1) != 1)
		(void)close(j->map_ack[1]);
}

/* The broker's roots, opened in the command's view of the filesystem. */
static int *
open_roots(const struct strv *roots)
{
	int *fds;
	size_t i;

	if ((fds = calloc(roots->n + 1, sizeof(int))) == NULL)
		return NULL;
	for (i = 0; i < roots->n; i++)
		fds[i] = open(roots->v[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fds;
}

/* The first child: the confinement's set-up, then init; waits for it. */
static void __attribute__((noreturn))
run_setup(struct job *j, int go)
{
	struct msg m = { .kind = MSG_SETUP };
	struct setup_fail f;
	int lfd[2] = { -1, -1 }, st;
	pid_t init;
	char c;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (tty_child_stdio(j->req->tty) == -1)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "terminal: %s",
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
			report_fail(j->ctl, true, &f);
		/* To ask who holds the other end of a connection (owner.c). */
		lfd[1] = diag_open();
		if ((j->rootfds = open_roots(&j->paths->sockroots)) == NULL ||
		    (j->bindfds = open_roots(&j->paths->bindroots)) == NULL)
			child_fail(j->ctl, AREA_LOCAL_SOCKET, MECH_NAMESPACES,
			    "out of memory");
		m.port = j->port;
		if (send_msg(j->ctl, &m, lfd, lfd[1] != -1 ? 2 : 1) == -1)
			_exit(3);
		(void)close(lfd[0]);
		if (lfd[1] != -1)
			(void)close(lfd[1]);
	}
	j->setup = getpid();
	if (j->ns && j->root && (pipe2(j->map_req, O_CLOEXEC) == -1 ||
	    pipe2(j->map_ack, O_CLOEXEC) == -1))
		child_fail(j->ctl, AREA_UNKNOWN, -1, "pipe: %s",
		    strerror(errno));
	if ((init = fork()) == -1)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "fork: %s",
		    strerror(errno));
	if (init == 0)
		run_init(j);
	fds_free(j->rootfds, j->paths->sockroots.n);
	fds_free(j->bindfds, j->paths->bindroots.n);
	m.kind = MSG_INIT;
	m.pid = init;
	(void)send_msg(j->ctl, &m, NULL, 0);
	if (j->ns && j->root && j->plan->identity == IDENTITY_SANDBOX_UID)
		map_init(j);
	(void)close(j->ctl);
	while (waitpid(init, &st, 0) == -1 && errno == EINTR)
		;
	/* init is gone: nothing it started may outlive it. */
	end_orphans();
	_exit(0);
}

/* ---------------------------------------------------------------- */
/* harn-egressd's side. */

static void
fail_with(struct sandbox_failure *f, enum sandbox_area area, int mech,
    int err, bool setup, const char *text)
{
	f->area = area;
	f->mech = mech;
	f->err = err;
	f->setup = setup;
	snprintf(f->text, sizeof(f->text), "%.*s", (int)sizeof(f->text) - 1,
	    text);
}

/*
 * A denied file with other hard links: those names are not found, so
 * they are not denied.  os_hardened refuses; the others say so.
 */
static int
check_links(const struct sandbox_plan *p, const struct sandbox_paths *paths,
    struct sandbox_failure *f)
{
	char *real, text[4352];
	struct stat st;
	size_t i;

	for (i = 0; i < paths->deny.n; i++) {
		if (stat(paths->deny.v[i], &st) == -1 || !S_ISREG(st.st_mode) ||
		    st.st_nlink < 2 || (real = path_real(paths->deny.v[i])) ==
		    NULL)
			continue;
		snprintf(text, sizeof(text), "denied file %s has %ju hard "
		    "links; the other names cannot be found and denied", real,
		    (uintmax_t)st.st_nlink);
		free(real);
		if (p->profile == PROFILE_OS_HARDENED) {
			fail_with(f, AREA_HOME_READ, -1, EMLINK, false, text);
			return -1;
		}
		fprintf(stderr, "harn-egressd: sandbox: not enforced: %s\n",
		    text);
	}
	return 0;
}

/*
 * Landlock's rules for the host's paths, built here while the set-up
 * child makes its namespaces (on another core, in parallel), and handed
 * to the command.  Built with the caller's rights, by the same view as
 * the command's: the roots it gets are bind mounts of these very
 * directories.
 */
static int
give_ruleset(struct sandbox_child *c, struct sandbox_failure *f)
{
	struct landlock_stats st;
	struct msg m = { .kind = MSG_RULESET };
	char err[256];
	int fd;

	if ((fd = c->ll ? sandbox_landlock_build_net(c->paths.grants,
	    c->paths.ngrants, (const char *const *)c->paths.deny.v,
	    c->paths.deny.n, MAX_LANDLOCK_RULES, c->req->host_port, &st, err,
	    sizeof(err)) : sandbox_landlock_build(c->paths.grants,
	    c->paths.ngrants, (const char *const *)c->paths.deny.v,
	    c->paths.deny.n, MAX_LANDLOCK_RULES, c->ns, &st, err,
	    sizeof(err))) == -1) {
		fail_with(f, AREA_HOME_READ, MECH_LANDLOCK, errno, false, err);
		return -1;
	}
	/* A child that is gone already has said why: sandbox_ready reads it. */
	(void)send_msg(c->ctl, &m, &fd, 1);
	(void)close(fd);
	return 0;
}

struct sandbox_child *
sandbox_start(const struct sandbox_request *r, const struct sandbox_plan *p,
    struct sandbox_failure *f)
{
	struct sandbox_child *c;
	struct job j;
	char err[256];
	int sv[2], go[2] = { -1, -1 };

	memset(f, 0, sizeof(*f));
	memset(&j, 0, sizeof(j));
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		fail_with(f, AREA_UNKNOWN, -1, ENOMEM, false, "out of memory");
		return NULL;
	}
	c->ctl = c->listen_fd = c->diag = c->rd.basefd = -1;
	c->ns = p->confinement == CONFINEMENT_NAMESPACES;
	c->ll = p->confinement == CONFINEMENT_LANDLOCK;
	owner_table_init(&c->owners);
	/* The command's connections to the proxy are in our namespace. */
	if (c->ll)
		c->diag = diag_open();
	c->root = geteuid() == 0;
	c->plan = p;
	/* From here on the request run is the one with the private dir. */
	if (rundir_make(&c->rd, r, p, err, sizeof(err)) == -1 ||
	    sandbox_paths_build(r = c->req = &c->rd.req, p->confinement,
	    c->root, c->ll && p->identity == IDENTITY_ROOT, &c->paths, err,
	    sizeof(err)) == -1) {
		fail_with(f, AREA_WRITE, -1, errno, false, err);
		goto fail;
	}
	if (check_links(p, &c->paths, f) == -1)
		goto fail;
	/* The landlock confinement's roots: its view of them is ours. */
	if (c->ll && ((j.rootfds = open_roots(&c->paths.sockroots)) == NULL ||
	    (j.bindfds = open_roots(&c->paths.bindroots)) == NULL)) {
		fail_with(f, AREA_UNKNOWN, -1, ENOMEM, false, "out of memory");
		goto fail;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1 ||
	    (p->memory && pipe2(go, O_CLOEXEC) == -1)) {
		snprintf(err, sizeof(err), "socketpair: %s", strerror(errno));
		fail_with(f, AREA_UNKNOWN, -1, errno, false, err);
		goto fail;
	}
	j.req = r;
	j.plan = p;
	j.paths = &c->paths;
	j.rd = &c->rd;
	j.ns = c->ns;
	j.ll = c->ll;
	j.root = c->root;
	j.ctl = sv[1];
	fflush(NULL);
	if ((c->pid = fork()) == -1) {
		snprintf(err, sizeof(err), "fork: %s", strerror(errno));
		fail_with(f, AREA_UNKNOWN, -1, errno, false, err);
		(void)close(sv[0]);
		(void)close(sv[1]);
		goto fail;
	}
	if (c->pid == 0) {
		(void)close(sv[0]);
		if (go[1] != -1)
			(void)close(go[1]);
		run_setup(&j, go[0]);
	}
	fds_free(j.rootfds, c->paths.sockroots.n);
	fds_free(j.bindfds, c->paths.bindroots.n);
	j.rootfds = j.bindfds = NULL;
	(void)close(sv[1]);
	c->ctl = sv[0];
	if (p->memory) {
		(void)close(go[0]);
		c->cgroup = limits_memory_cgroup(&r->limits, c->pid, err,
		    sizeof(err));
		if (c->cgroup == NULL || write(go[1], "g", 1) != 1) {
			fail_with(f, AREA_UNKNOWN, -1, errno, false, err);
			(void)close(go[1]);
			sandbox_free(c);
			return NULL;
		}
		(void)close(go[1]);
	}
	if (p->landlock && (c->ns || c->ll) && give_ruleset(c, f) == -1) {
		sandbox_free(c);
		return NULL;
	}
	return c;
fail:
	fds_free(j.rootfds, c->paths.sockroots.n);
	fds_free(j.bindfds, c->paths.bindroots.n);
	if (go[0] != -1) {
		(void)close(go[0]);
		(void)close(go[1]);
	}
	sandbox_free(c);
	return NULL;
}

static void
kill_setup(struct sandbox_child *c)
{
	if (c->pid <= 0)
		return;
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, NULL, 0) == -1 && errno == EINTR)
		;
	c->pid = 0;
	c->exited = true;
}

/*
 * The pid a pidfd names, as this process's /proc sees it; 0: unknown (or
 * gone: -1).  Read once a tunnel in run mode: no stdio.
 */
static pid_t
pidfd_pid(int pidfd)
{
	struct pidfd_info_v0 info = { .mask = PIDFD_INFO_PID_BIT };
	char path[64], buf[512], *p;
	long pid = 0;
	ssize_t n;
	int fd;

	/* One ioctl where the kernel has it; else /proc's text. */
	if (ioctl(pidfd, PIDFD_GET_INFO_V0, &info) == 0)
		return (info.mask & PIDFD_INFO_PID_BIT) && info.pid > 0 ?
		    (pid_t)info.pid : 0;
	if (errno == ESRCH)
		return 0;	/* gone */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nPid:")) != NULL)
		pid = strtol(p + 6, NULL, 10);
	return pid > 0 ? (pid_t)pid : 0;
}

/* A refusal as the broker sent it, the pid from its pidfd: queued. */
static void
queue_direct(struct sandbox_child *c, const struct msg *m, const int *fds,
    size_t nfds)
{
	struct sandbox_direct *d, *q;
	size_t cap, i;

	if (c->qlen == c->qcap) {
		cap = c->qcap > 0 ? c->qcap * 2 : 16;
		if ((q = calloc(cap, sizeof(*q))) == NULL)
			return;		/* counted nowhere: out of memory */
		for (i = 0; i < c->qlen; i++)
			q[i] = c->queue[(c->qhead + i) % c->qcap];
		free(c->queue);
		c->queue = q;
		c->qcap = cap;
		c->qhead = 0;
	}
	d = &c->queue[(c->qhead + c->qlen++) % c->qcap];
	memset(d, 0, sizeof(*d));
	d->op = (enum sandbox_direct_op)m->refusal.op;
	d->pid = nfds > 0 ? pidfd_pid(fds[0]) : 0;
	snprintf(d->exe, sizeof(d->exe), "%s", m->refusal.exe);
	snprintf(d->addr, sizeof(d->addr), "%s", m->refusal.addr);
	d->port = m->refusal.port;
}

/*
 * init's word on the command's way: a refusal (queued for sandbox_next),
 * a connect to the proxy (its owner noted), the command's end, a late
 * failure.  The descriptors sent with it are closed.
 */
static void
dispatch(struct sandbox_child *c, const struct msg *m, int *fds,
    size_t nfds)
{
	pid_t pid;

	switch (m->kind) {
	case MSG_DIRECT:
		queue_direct(c, m, fds, nfds);
		c->unacked++;
		break;
	case MSG_CONN:
		/* A process gone already has no pid to give: no owner. */
		pid = c->ns ? (nfds > 0 ? pidfd_pid(fds[0]) : 0) : m->conn.pid;
		if (pid > 0)
			owner_add(&c->owners, m->conn.ino, pid, m->conn.exe,
			    m->conn.via);
		break;
	case MSG_EXIT:
		c->wstatus = m->wstatus;
		c->ended = true;
		break;
	case MSG_FAIL:
		snprintf(c->late, sizeof(c->late), "%s", m->fail.text);
		break;
	}
	while (nfds > 0)
		(void)close(fds[--nfds]);
}

int
sandbox_ready(struct sandbox_child *c, struct sandbox_failure *f)
{
	int fds[SANDBOX_MAX_FDS], st;
	char err[256];
	bool ready = false;
	struct msg m;
	size_t nfds, i;

	memset(f, 0, sizeof(*f));
	while (c->init_pid == 0 || !ready) {
		if (recv_msg(c->ctl, &m, fds, &nfds, SETUP_TIMEOUT_MS) == -1) {
			snprintf(err, sizeof(err), "sandbox set-up: %s",
			    strerror(errno));
			fail_with(f, AREA_UNKNOWN, -1, errno, false, err);
			/* The set-up's own end, if it ended: its status says. */
			if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
				c->pid = 0;
				snprintf(err, sizeof(err), "sandbox set-up "
				    "ended without a word (status %d)", st);
				fail_with(f, AREA_UNKNOWN, -1, EPIPE, false,
				    err);
			}
			goto fail;
		}
		switch (m.kind) {
		case MSG_SETUP:
			if (nfds < 1 || nfds > 2 || c->listen_fd != -1) {
				for (i = 0; i < nfds; i++)
					(void)close(fds[i]);
				fail_with(f, AREA_UNKNOWN, -1, EPROTO, false,
				    "sandbox set-up: a malformed hand-over");
				goto fail;
			}
			c->listen_fd = fds[0];
			if (nfds == 2)
				c->diag = fds[1];
			c->port = m.port;
			break;
		case MSG_INIT:
			c->init_pid = m.pid;
			break;
		case MSG_READY:
			ready = true;
			break;
		case MSG_DIRECT:
		case MSG_CONN:
		case MSG_EXIT:
			/*
			 * init's word can come before setup's (MSG_INIT): the
			 * command may be refused something meanwhile, or even
			 * have ended (a busy machine, a command that exits at
			 * once): its status is kept for sandbox_wait, never
			 * taken for a failure of the set-up.
			 */
			dispatch(c, &m, fds, nfds);
			break;
		default:
			for (i = 0; i < nfds; i++)
				(void)close(fds[i]);
			fail_with(f, (enum sandbox_area)m.fail.area,
			    m.fail.mech, m.fail.err, m.setup, m.fail.text);
			goto fail;
		}
	}
	return 0;
fail:
	kill_setup(c);
	return -1;
}

int
sandbox_take_listener(struct sandbox_child *c, unsigned short *port)
{
	int fd = c->listen_fd;

	*port = c->port;
	c->listen_fd = -1;
	return fd;
}

const char *
spawn_late_failure(const struct sandbox_child *c)
{
	return c->late[0] != '\0' ? c->late : NULL;
}

int
sandbox_ctl_fd(const struct sandbox_child *c)
{
	return c->ctl;
}

void
sandbox_signal(const struct sandbox_child *c, int sig)
{
	if (c->init_pid > 0 && !c->exited)
		kill(c->init_pid, sig);
}

/* Read one message (after up to timeout_ms); -1: none, or no more. */
static int
pump(struct sandbox_child *c, int timeout_ms)
{
	int fds[SANDBOX_MAX_FDS];
	struct msg m;
	size_t nfds;

	if (c->ended)
		return -1;
	if (recv_msg(c->ctl, &m, fds, &nfds, timeout_ms) == -1) {
		if (errno != ETIMEDOUT)
			c->ended = c->silent = true;	/* died without a word */
		return -1;
	}
	dispatch(c, &m, fds, nfds);
	return 0;
}

/*
 * init answers a refused caller once we have taken the refusal: the one
 * handed out before (its line is written by now), or every one the
 * caller will not take.
 */
static void
ack(struct sandbox_child *c, size_t n)
{
	struct msg m = { .kind = MSG_ACK };

	for (; n > 0 && c->unacked > 0; n--, c->unacked--)
		(void)send_ack(c->ctl, &m);
}

/* One refusal; 1 a refusal, 0 the end, -1 nothing (after timeout_ms). */
static int
next_msg(struct sandbox_child *c, struct sandbox_direct *d, int timeout_ms)
{
	if (c->handed) {
		ack(c, 1);
		c->handed = false;
	}
	while (c->qlen == 0 && !c->ended)
		if (pump(c, timeout_ms) == -1 && !c->ended)
			return -1;
	if (c->qlen == 0)
		return 0;
	*d = c->queue[c->qhead];
	c->qhead = (c->qhead + 1) % c->qcap;
	c->qlen--;
	c->handed = true;
	return 1;
}

bool
sandbox_queued(const struct sandbox_child *c)
{
	return c->qlen > 0 || c->ended;	/* the end, read already, too */
}

int
sandbox_owner(struct sandbox_child *c, int fd, pid_t *pid, char *exe,
    size_t len, enum sandbox_via *via)
{
	unsigned long ino;

	*pid = 0;
	*via = SANDBOX_VIA_CLIENT;
	if (len > 0)
		exe[0] = '\0';
	if ((ino = diag_tcp_peer(c->diag, fd)) == 0)
		return -1;
	/*
	 * The broker said so before the connect was made: if not read yet,
	 * it is queued on the control socket now.
	 */
	while (!owner_take(&c->owners, ino, pid, exe, len, via))
		if (pump(c, 0) == -1)
			return -1;
	return 0;
}

int
sandbox_next(struct sandbox_child *c, struct sandbox_direct *d)
{
	return next_msg(c, d, 0);
}

int
sandbox_wait(struct sandbox_child *c)
{
	struct sandbox_direct d;
	int st = 0;

	if (c->exited)
		return c->wstatus;
	/* Refusals still queued go unread: the caller took what it would. */
	while (next_msg(c, &d, -1) == 1)
		ack(c, c->unacked);
	while (c->pid > 0 && waitpid(c->pid, &st, 0) == -1 && errno == EINTR)
		;
	c->pid = 0;
	if (c->silent)
		c->wstatus = st;	/* init died without a word */
	c->exited = true;
	return c->wstatus;
}

void
sandbox_free(struct sandbox_child *c)
{
	if (c == NULL)
		return;
	if (c->pid > 0 && !c->exited)
		kill_setup(c);
	if (c->ctl != -1)
		(void)close(c->ctl);
	if (c->listen_fd != -1)
		(void)close(c->listen_fd);
	if (c->diag != -1)
		(void)close(c->diag);
	free(c->queue);
	limits_memory_cgroup_remove(c->cgroup);
	sandbox_paths_free(&c->paths);
	/* Everything it ran has ended by now (setup waited for it). */
	(void)rundir_remove(&c->rd);
	free(c);
}
