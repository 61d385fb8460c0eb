/*
 * Spawning the confined command (SPEC 6).  Four processes:
 *
 *   harn-egressd (host namespaces; the proxy and the connect broker)
 *     `- setup: the confinement's namespaces and mounts (ns.c), the
 *        proxy's listener and the broker's roots handed over; then waits
 *          `- init: PID 1 of the new PID namespace; mounts /proc, maps a
 *             root caller's command to SANDBOX_UID, forwards signals,
 *             reaps, reports the command's status; when it exits, the
 *             kernel ends everything left inside
 *               `- command: setsid, Landlock, its own user namespace (a
 *                  root caller's), limits, capabilities dropped,
 *                  no_new_privs, seccomp and the broker's filter (whose
 *                  listener goes to harn-egressd), fds above 2 closed, exec
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>

#include "sandbox/internal.h"

#define SETUP_TIMEOUT_MS	10000
#define OPT_ROOTS_MAX		128	/* writable roots the broker knows */
#define MAX_LANDLOCK_RULES	4096

enum msg_kind {
	MSG_SETUP = 1,	/* the listener and the broker's roots */
	MSG_INIT,	/* init's host pid */
	MSG_READY,	/* about to exec; carries the broker's listener */
	MSG_FAIL,	/* a step failed; nothing was run */
	MSG_EXIT,	/* the command's wait status */
	MSG_RULESET	/* to the command: the Landlock ruleset, host grants */
};

struct msg {
	int			 kind;
	int			 wstatus;
	pid_t			 pid;
	unsigned short		 port;
	bool			 setup;		/* MSG_FAIL: the confinement's */
	struct setup_fail	 fail;
};

struct sandbox_child {
	pid_t			 pid;		/* setup (waited for) */
	pid_t			 init_pid;	/* signals go here (host pid) */
	int			 ctl;
	int			 listen_fd;
	unsigned short		 port;
	int			 notify;
	int			*rootfds;
	size_t			 nroots;
	struct broker		*broker;
	struct sandbox_paths	 paths;
	const struct sandbox_request *req;
	const struct sandbox_plan *plan;
	bool			 ns, ll;
	bool			 root;
	char			*cgroup;
	bool			 exited;
	int			 wstatus;
	char			 late[256];	/* a trial's failed step */
};

/* What the children read of the request and the plan. */
struct job {
	const struct sandbox_request	*req;
	const struct sandbox_plan	*plan;
	const struct sandbox_paths	*paths;
	bool				 ns, ll, root;
	int				 ctl;
	unsigned short			 port;
	int				 map_req[2], map_ack[2];
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

/*
 * A root caller's command leaves the initial user namespace for one of
 * its own, where init maps it to SANDBOX_UID alone; then it becomes that
 * uid, with no supplementary group.
 */
static void
become_sandbox_user(struct job *j)
{
	char c = 'u';

	if (unshare(CLONE_NEWUSER) == -1)
		child_fail(j->ctl, AREA_WRITE, MECH_NAMESPACES,
		    "user namespace: %s", strerror(errno));
	if (write(j->map_req[1], &c, 1) != 1 ||
	    read(j->map_ack[0], &c, 1) != 1 || c != 'k')
		_exit(3);	/* init said why */
	if (setresgid(SANDBOX_GID, SANDBOX_GID, SANDBOX_GID) == -1 ||
	    setgroups(0, NULL) == -1 ||
	    setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID) == -1)
		child_fail(j->ctl, AREA_WRITE, MECH_NAMESPACES,
		    "uid %u: %s", SANDBOX_UID, strerror(errno));
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
 * through the broker; a step that fails says so like a set-up step.
 */
#define TRIAL_FILE	".harn-tmp/harn-egressd-trial"

static void __attribute__((noreturn))
run_trial(struct job *j)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_port = htons(j->ns ? j->port : j->req->host_port),
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s;

	/* As exec would: the broker reads the memory of a dumpable caller. */
	(void)prctl(PR_SET_DUMPABLE, 1);
	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(s, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		child_fail(j->ctl, AREA_EGRESS, MECH_SECCOMP, "connect broker: "
		    "connect to the proxy's port: %s", strerror(errno));
	(void)close(s);
	if ((s = open(TRIAL_FILE, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)) ==
	    -1)
		child_fail(j->ctl, AREA_WRITE, MECH_LANDLOCK, "create a file in "
		    "the workspace: %s", strerror(errno));
	(void)close(s);
	if (chmod(TRIAL_FILE, 0640) == -1)
		child_fail(j->ctl, AREA_WRITE, MECH_SECCOMP, "connect broker: "
		    "chmod in the workspace: %s", strerror(errno));
	(void)unlink(TRIAL_FILE);
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
	int ll = -1, notify = -1;

	if (setsid() == -1)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "setsid: %s",
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
	if (j->ns && j->root)
		become_sandbox_user(j);
	else if (j->ll && p->sandbox_uid) {
		struct setup_fail f;

		/* While root can: leaving uid 0 takes the other sets along. */
		drop_bounding_set(j->ctl);
		memset(&f, 0, sizeof(f));
		if (llc_become_user(&f) == -1)
			report_fail(j->ctl, true, &f);
	}
	if (limits_apply_rlimits(&j->req->limits, j->ll, err,
	    sizeof(err)) == -1)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "%s", err);
	drop_privileges(j->ctl, j->ns || have_setpcap());
	if (ll != -1 && sandbox_landlock_enforce(ll, err, sizeof(err)) == -1)
		child_fail(j->ctl, AREA_WRITE, MECH_LANDLOCK, "landlock: %s",
		    err);
	if (chdir(j->req->workspace) == -1)
		child_fail(j->ctl, AREA_WRITE, -1, "%s: %s", j->req->workspace,
		    strerror(errno));
	if ((envp = sandbox_env_build(j->req, j->ns ? j->port :
	    j->req->host_port, j->ns || j->ll, err, sizeof(err))) == NULL)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "environment: %s", err);
	(void)sandbox_seccomp_program(&prog, &plen);
	if (p->seccomp && sandbox_seccomp_load_program(prog, plen, err,
	    sizeof(err)) == -1)
		child_fail(j->ctl, AREA_EGRESS, MECH_SECCOMP, "%s", err);
	/* A broker that cannot listen: the confinement did not attach. */
	if ((j->ns || j->ll) && (notify = sandbox_seccomp_load_broker(!j->ll ?
	    SECCOMP_BROKER : p->getfd ? SECCOMP_BROKER_LL :
	    SECCOMP_BROKER_LL_OPTS, err, sizeof(err))) == -1) {
		struct setup_fail f = { .err = errno, .mech = MECH_SECCOMP,
		    .area = AREA_LOCAL_SOCKET };

		snprintf(f.text, sizeof(f.text), "connect broker: %.200s", err);
		report_fail(j->ctl, true, &f);
	}
	if (send_msg(j->ctl, &m, &notify, notify != -1 ? 1 : 0) == -1)
		_exit(3);
	if (j->req->trial)
		run_trial(j);
	close_fds_above_2();
	execvpe(j->req->argv[0], j->req->argv, envp);
	exec_failed(j->req->argv[0], envp, errno);
}

static volatile sig_atomic_t forward_to;
static volatile sig_atomic_t orphaned;	/* harn-egressd is gone */

/* The command first, here: init may be blocked in waitpid(). */
static void
note_orphaned(int sig)
{
	(void)sig;
	orphaned = 1;
	if (forward_to > 0)
		(void)kill(forward_to, SIGKILL);
}

static void
forward_signal(int sig)
{
	if (forward_to > 0)
		kill(forward_to, sig);
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

/* init's side of become_sandbox_user. */
static void
map_command(struct job *j, pid_t cmd)
{
	struct setup_fail f;
	char c;

	(void)close(j->map_req[1]);
	(void)close(j->map_ack[0]);
	if (read(j->map_req[0], &c, 1) != 1)
		return;		/* it failed before, and said why */
	memset(&f, 0, sizeof(f));
	if (ns_user_map(cmd, &f) == -1) {
		kill(cmd, SIGKILL);
		report_fail(j->ctl, true, &f);
	}
	c = 'k';
	/* Without its ack the command would wait forever: it ends instead. */
	if (write(j->map_ack[1], &c, 1) != 1)
		kill(cmd, SIGKILL);
}

/*
 * PID 1 of the command's namespace: reap everything, forward signals, and
 * report the command's status.  Exiting ends whatever is left inside.
 */
static void __attribute__((noreturn))
run_init(struct job *j)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT,
	    SIGUSR1, SIGUSR2 };
	struct msg m = { .kind = MSG_EXIT };
	struct sigaction sa = { .sa_handler = forward_signal };
	struct setup_fail f;
	pid_t cmd, p;
	int st;
	size_t i;

	(void)prctl(PR_SET_DUMPABLE, 0);	/* not readable from inside */
	memset(&f, 0, sizeof(f));
	if (j->ns) {
		/* Its end ends the PID namespace, and all that is in it. */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (ns_mount_proc(&f) == -1)
			report_fail(j->ctl, true, &f);
	} else {
		/*
		 * Nothing ends with it here: told that harn-egressd is gone
		 * (the set-up's end), it ends the command's processes first.
		 */
		sa.sa_handler = note_orphaned;
		(void)sigaction(SIGRTMIN, &sa, NULL);
		(void)prctl(PR_SET_PDEATHSIG, SIGRTMIN);
		if (getppid() == 1)
			orphaned = 1;	/* gone before we could be told */
		(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	}
	if (j->ns && j->root && (pipe2(j->map_req, O_CLOEXEC) == -1 ||
	    pipe2(j->map_ack, O_CLOEXEC) == -1))
		child_fail(j->ctl, AREA_UNKNOWN, -1, "pipe: %s",
		    strerror(errno));
	if ((cmd = fork()) == -1)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "fork: %s",
		    strerror(errno));
	if (cmd == 0)
		run_command(j);
	if (j->ns && j->root)
		map_command(j, cmd);
	forward_to = cmd;
	sa.sa_handler = forward_signal;
	for (i = 0; i < NELEM(sigs); i++)
		(void)sigaction(sigs[i], &sa, NULL);
	for (;;) {
		if (orphaned) {
			(void)kill(cmd, SIGKILL);
			end_orphans();
			_exit(3);
		}
		p = waitpid(-1, &st, 0);
		if (p == cmd && !orphaned) {
			m.wstatus = st;
			break;
		}
		if (p == -1 && errno != EINTR)
			_exit(3);
	}
	if (!j->ns)
		end_orphans();
	(void)send_msg(j->ctl, &m, NULL, 0);
	_exit(0);
}

/* The first child: the confinement's set-up, then init; waits for it. */
static void __attribute__((noreturn))
run_setup(struct job *j, int go)
{
	struct msg m = { .kind = MSG_SETUP };
	struct setup_fail f;
	int fds[SANDBOX_MAX_FDS], st;
	size_t nroots = 0, i;
	pid_t init;
	char c;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	/*
	 * The proxy made itself non-dumpable, which leaves /proc/self owned
	 * by root; the id maps are written through it.  init makes itself
	 * non-dumpable again.
	 */
	(void)prctl(PR_SET_DUMPABLE, 1);
	if (go != -1 && read(go, &c, 1) != 1)
		_exit(3);	/* the parent could not make the cgroup */
	memset(&f, 0, sizeof(f));
	fds[0] = -1;
	if (j->ns) {
		if (ns_enter(j->paths, &j->req->limits, j->root, &fds[0],
		    &j->port, fds + 1, &nroots, &f) == -1)
			report_fail(j->ctl, true, &f);
		m.port = j->port;
		if (send_msg(j->ctl, &m, fds, nroots + 1) == -1)
			_exit(3);
		for (i = 0; i < nroots; i++)
			if (fds[i + 1] != -1)
				(void)close(fds[i + 1]);
	}
	if ((init = fork()) == -1)
		child_fail(j->ctl, AREA_UNKNOWN, -1, "fork: %s",
		    strerror(errno));
	if (init == 0) {
		if (fds[0] != -1)
			(void)close(fds[0]);
		run_init(j);
	}
	if (fds[0] != -1)
		(void)close(fds[0]);
	m.kind = MSG_INIT;
	m.pid = init;
	(void)send_msg(j->ctl, &m, NULL, 0);
	(void)close(j->ctl);
	while (waitpid(init, &st, 0) == -1 && errno == EINTR)
		;
	_exit(0);
}

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

/*
 * A confined command's temporary and cache directories, and the
 * stand-in for ~/.npmrc.  An unconfined one has the caller's own, and its
 * workspace is left as it was.
 */
static int
workspace_dirs(const struct sandbox_request *r, char *err, size_t errlen)
{
	if (sandbox_workspace_dir(r->workspace, ".harn-tmp", err,
	    errlen) == -1 ||
	    sandbox_workspace_dir(r->workspace, ".harn-cache", err,
	    errlen) == -1 || sandbox_npmrc_standin(r, err, errlen) == -1)
		return -1;
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
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		fail_with(f, AREA_UNKNOWN, -1, ENOMEM, false, "out of memory");
		return NULL;
	}
	c->ctl = c->listen_fd = c->notify = -1;
	c->ns = p->confinement == CONFINEMENT_NAMESPACES;
	c->ll = p->confinement == CONFINEMENT_LANDLOCK;
	c->root = geteuid() == 0;
	c->req = r;
	c->plan = p;
	if (sandbox_paths_build(r, p->confinement, c->root, &c->paths, err,
	    sizeof(err)) == -1 || ((c->ns || c->ll) &&
	    workspace_dirs(r, err, sizeof(err)) == -1)) {
		fail_with(f, AREA_WRITE, -1, errno, false, err);
		goto fail;
	}
	if (c->ll && p->sandbox_uid &&
	    (llc_own_dir(r->workspace, ".harn-tmp", err, sizeof(err)) == -1 ||
	    llc_own_dir(r->workspace, ".harn-cache", err, sizeof(err)) == -1)) {
		fail_with(f, AREA_WRITE, -1, errno, false, err);
		goto fail;
	}
	if (check_links(p, &c->paths, f) == -1)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1 ||
	    (p->memory && pipe2(go, O_CLOEXEC) == -1)) {
		snprintf(err, sizeof(err), "socketpair: %s", strerror(errno));
		fail_with(f, AREA_UNKNOWN, -1, errno, false, err);
		goto fail;
	}
	memset(&j, 0, sizeof(j));
	j.req = r;
	j.plan = p;
	j.paths = &c->paths;
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
	if (p->landlock && give_ruleset(c, f) == -1) {
		sandbox_free(c);
		return NULL;
	}
	return c;
fail:
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

static int
take_setup(struct sandbox_child *c, const struct msg *m, int *fds,
    size_t nfds)
{
	size_t i;

	if (nfds < 1 || c->rootfds != NULL)
		return -1;
	c->listen_fd = fds[0];
	c->port = m->port;
	c->nroots = c->paths.sockroots.n;
	if ((c->rootfds = calloc(c->nroots + 1, sizeof(int))) == NULL)
		return -1;
	for (i = 0; i < c->nroots; i++)
		c->rootfds[i] = i + 1 < nfds ? fds[i + 1] : -1;
	for (i = c->nroots + 1; i < nfds; i++)
		(void)close(fds[i]);
	return 0;
}

/*
 * The roots the landlock confinement's broker resolves in: opened here,
 * the command's view being ours.
 */
static int *
open_roots(const struct sandbox_paths *p)
{
	int *fds;
	size_t i;

	if ((fds = calloc(p->sockroots.n + 1, sizeof(int))) == NULL)
		return NULL;
	for (i = 0; i < p->sockroots.n; i++)
		fds[i] = open(p->sockroots.v[i], O_PATH | O_DIRECTORY |
		    O_CLOEXEC);
	return fds;
}

static int
start_broker(struct sandbox_child *c, struct event_base *base,
    struct sandbox_failure *f)
{
	const char *writable[OPT_ROOTS_MAX + 1];
	struct broker_conf bc;
	char err[256];
	size_t i, n = 0;
	bool as_u = c->root && (c->ns || c->plan->sandbox_uid);

	memset(&bc, 0, sizeof(bc));
	bc.mode = c->ns ? BROKER_NS : BROKER_LL;
	bc.notify = c->notify;
	bc.roots = (const char *const *)c->paths.sockroots.v;
	bc.nroots = c->paths.sockroots.n;
	bc.rootfds = c->ns ? c->rootfds : open_roots(&c->paths);
	writable[n++] = c->req->workspace;
	for (i = 0; i < c->req->nrw_roots && n < OPT_ROOTS_MAX; i++)
		writable[n++] = c->req->rw_roots[i];
	bc.writable = writable;
	bc.nwritable = n;
	bc.readonly = c->req->ro_roots;
	bc.nreadonly = c->req->nro_roots;
	bc.uid = as_u ? SANDBOX_UID : (uid_t)-1;
	bc.gid = as_u ? SANDBOX_GID : (gid_t)-1;
	bc.proxy_port = c->req->host_port;
	bc.init = c->init_pid;
	bc.getfd = c->plan->getfd;
	c->notify = -1;
	c->rootfds = NULL;	/* the broker's, or closed */
	if (bc.rootfds == NULL) {
		(void)close(bc.notify);
		fail_with(f, AREA_LOCAL_SOCKET, MECH_SECCOMP, ENOMEM, false,
		    "out of memory");
		return -1;
	}
	if ((c->broker = broker_new(base, &bc, err, sizeof(err))) == NULL) {
		fail_with(f, AREA_LOCAL_SOCKET, MECH_SECCOMP, ENOMEM, false,
		    err);
		return -1;
	}
	return 0;
}

int
sandbox_ready(struct sandbox_child *c, struct event_base *base,
    struct sandbox_failure *f)
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
			if (take_setup(c, &m, fds, nfds) == -1) {
				for (i = 0; i < nfds; i++)
					(void)close(fds[i]);
				fail_with(f, AREA_UNKNOWN, -1, EPROTO, false,
				    "sandbox set-up: a malformed hand-over");
				goto fail;
			}
			break;
		case MSG_INIT:
			c->init_pid = m.pid;
			break;
		case MSG_READY:
			c->notify = nfds > 0 ? fds[0] : -1;
			for (i = 1; i < nfds; i++)
				(void)close(fds[i]);
			ready = true;
			break;
		default:
			for (i = 0; i < nfds; i++)
				(void)close(fds[i]);
			fail_with(f, (enum sandbox_area)m.fail.area,
			    m.fail.mech, m.fail.err, m.setup, m.fail.text);
			goto fail;
		}
	}
	if ((c->ns || c->ll) && c->notify == -1) {
		fail_with(f, AREA_LOCAL_SOCKET, MECH_SECCOMP, EPROTO, true,
		    "connect broker: no listener from the command");
		goto fail;
	}
	if (c->notify != -1 && start_broker(c, base, f) == -1)
		goto fail;
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

int
sandbox_wait(struct sandbox_child *c)
{
	int fds[SANDBOX_MAX_FDS], st = 0;
	bool got = false;
	struct msg m;
	size_t nfds;

	if (c->exited)
		return c->wstatus;
	while (!got && recv_msg(c->ctl, &m, fds, &nfds, -1) == 0) {
		while (nfds > 0)
			(void)close(fds[--nfds]);
		if (m.kind == MSG_EXIT) {
			c->wstatus = m.wstatus;
			got = true;
		} else if (m.kind == MSG_FAIL)
			snprintf(c->late, sizeof(c->late), "%s", m.fail.text);
	}
	while (c->pid > 0 && waitpid(c->pid, &st, 0) == -1 && errno == EINTR)
		;
	c->pid = 0;
	if (!got)
		c->wstatus = st;	/* init died without a word */
	c->exited = true;
	return c->wstatus;
}

void
sandbox_free(struct sandbox_child *c)
{
	size_t i;

	if (c == NULL)
		return;
	if (c->pid > 0 && !c->exited)
		kill_setup(c);
	broker_free(c->broker);
	if (c->ctl != -1)
		(void)close(c->ctl);
	if (c->listen_fd != -1)
		(void)close(c->listen_fd);
	if (c->notify != -1)
		(void)close(c->notify);
	for (i = 0; c->rootfds != NULL && i < c->nroots; i++)
		if (c->rootfds[i] != -1)
			(void)close(c->rootfds[i]);
	free(c->rootfds);
	limits_memory_cgroup_remove(c->cgroup);
	sandbox_paths_free(&c->paths);
	free(c);
}
