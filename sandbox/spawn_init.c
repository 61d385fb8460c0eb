/* SPDX-License-Identifier: Apache-2.0 */
/*
 * init (spawn.c draws the processes): PID 1 of the new PID namespace, or
 * the command's subreaper.  It takes the command's identity, forks the
 * command (spawn_command.c) and serves its broker on an event loop of
 * its own until the command ends; then reports its status.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "sandbox/spawn_int.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif

#define OPT_ROOTS_MAX		128	/* writable roots the broker knows */

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
		spawn_fail(j->ctl, AREA_WRITE, MECH_NAMESPACES,
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
			/* while root can */
			spawn_drop_bounding_set(j->ctl);
		if (setresgid(SANDBOX_GID, SANDBOX_GID, SANDBOX_GID) == -1 ||
		    setgroups(0, NULL) == -1 ||
		    setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID) == -1)
			spawn_fail(j->ctl, AREA_WRITE, -1, "uid %u: %s",
			    SANDBOX_UID, strerror(errno));
		break;
	case IDENTITY_ROOT:
		/* Root's groups go where we may drop them (CAP_SETGID). */
		if (setgroups(0, NULL) == -1 && errno != EPERM)
			spawn_fail(j->ctl, AREA_WRITE, -1, "setgroups: %s",
			    strerror(errno));
		caps = spawn_have_setpcap();
		break;
	}
	if (!j->ns && j->plan->identity == IDENTITY_CALLER)
		caps = spawn_have_setpcap();
	spawn_drop_privileges(j->ctl, caps);
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
	sent = spawn_send(j->ctl, &m, &pidfd, pidfd != -1 ? 1 : 0);
	if (pidfd != -1)
		(void)close(pidfd);
	/* Only MSG_ACK comes this way once the command runs. */
	if (sent == 0 && spawn_recv(j->ctl, &m, fds, &n, ACK_TIMEOUT_MS) == 0)
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
	(void)spawn_send(j->ctl, &m, &conn->pidfd, j->ns ? 1 : 0);
}

/*
 * A UDP stand-in's other end (broker_udp.c), to harn-egressd, whose
 * answerer takes it.  Never waiting: a harn-egressd behind (or stopped)
 * fails this socket() (-1), and holds up no other call of the command.
 */
static int
tell_standin(void *arg, int fd)
{
	struct job *j = arg;
	struct msg m = { .kind = MSG_STANDIN };

	return spawn_send_nowait(j->ctl, &m, &fd, 1);
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

	if (spawn_recv(fd, &m, fds, &n, SETUP_TIMEOUT_MS) == -1)
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
	bc.udp = spawn_udp_standins(j);
	bc.standin = tell_standin;
	bc.decided = j->decided;
	j->decided = -1;		/* the broker's now */
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
		spawn_report_fail(j->ctl, true, &f);
	}
	return b;
}

/*
 * Without a PID namespace: end whatever the command left behind.  Each
 * round kills the children there are and reaps one; the orphans of what
 * died are ours by then (the subreaper's), for the next round.
 */
void
spawn_end_orphans(void)
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

/* The command, forked: init's signals are its own again. */
static pid_t
fork_command(struct job *j, int sfd, bool confined)
{
	pid_t cmd;

	if ((cmd = fork()) == -1)
		spawn_fail(j->ctl, AREA_UNKNOWN, -1, "fork: %s",
		    strerror(errno));
	if (cmd == 0) {
		sigset_t all;

		sigemptyset(&all);
		(void)sigprocmask(SIG_SETMASK, &all, NULL);
		(void)close(sfd);
		if (confined)
			spawn_run_command(j);
		spawn_run_unconfined(j);
	}
	return cmd;
}

/*
 * init: the command's identity, then the command, then its broker until
 * it ends (an unconfined command: the caller's own rights, no broker).
 * Exiting ends whatever is left (the PID namespace's end, or
 * spawn_end_orphans).
 */
void
spawn_run_init(struct job *j)
{
	struct init_state s = { .j = j };
	struct msg m = { .kind = MSG_EXIT };
	struct setup_fail f;
	struct event *sev = NULL;
	bool confined = j->ns || j->ll;
	int sfd, notify = -1;

	(void)prctl(PR_SET_DUMPABLE, 0);	/* not readable from inside */
	if ((sfd = init_signalfd(j)) == -1)
		spawn_fail(j->ctl, AREA_UNKNOWN, -1, "signalfd: %s",
		    strerror(errno));
	arm_parent_death(j);
	memset(&f, 0, sizeof(f));
	if (j->ns && ns_mount_proc(&f) == -1)
		spawn_report_fail(j->ctl, true, &f);
	if (!j->ns)
		(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (confined) {
		become_command(j);
		/* Changing identity cleared these. */
		(void)prctl(PR_SET_DUMPABLE, 0);
		arm_parent_death(j);
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
		    j->lsn) == -1)
			spawn_fail(j->ctl, AREA_UNKNOWN, -1, "socketpair: %s",
			    strerror(errno));
	}
	s.cmd = fork_command(j, sfd, confined);
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
		spawn_fail(j->ctl, AREA_UNKNOWN, MECH_SECCOMP, "connect "
		    "broker: event loop: %s", strerror(errno));
	}
	if (confined && (s.broker = init_broker(j, s.base, notify)) ==
	    NULL) {
		(void)kill(s.cmd, SIGKILL);
		_exit(3);
	}
	if (spawn_send(j->ctl, &(struct msg){ .kind = MSG_READY }, NULL, 0) ==
	    -1) {
		(void)kill(s.cmd, SIGKILL);
		_exit(3);
	}
	signal_cb(sfd, EV_READ, &s);	/* what came before the loop */
	while (!s.ended && !s.orphaned &&
	    event_base_loop(s.base, EVLOOP_ONCE) == 0)
		signal_cb(sfd, EV_READ, &s);
	if (s.orphaned) {
		spawn_end_orphans();
		if (j->ll)	/* harn-egressd cannot now: its directory */
			rundir_orphaned(j->rd);
		_exit(3);
	}
	if (!j->ns)
		spawn_end_orphans();
	m.wstatus = s.wstatus;
	(void)spawn_send(j->ctl, &m, NULL, 0);
	_exit(0);
}
