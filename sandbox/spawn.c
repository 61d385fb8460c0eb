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
 *
 * Each process's body is its own file: this one is harn-egressd's side;
 * spawn_setup.c, spawn_init.c and spawn_command.c the children's, each
 * forking the next; their messages are spawn_msg.c's (spawn_int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <signal.h>
#include <unistd.h>

#include "sandbox/spawn_int.h"

/* Linux 6.13's pidfd information (older headers lack it). */
struct pidfd_info_v0 {
	uint64_t	 mask;
	uint64_t	 cgroupid;
	uint32_t	 pid, tgid, ppid;
	uint32_t	 ids[8];	/* ruid .. fsgid, spare */
};
#define PIDFD_GET_INFO_V0	_IOWR(0xFF, 11, struct pidfd_info_v0)
#define PIDFD_INFO_PID_BIT	1ULL

struct sandbox_child {
	pid_t			 pid;		/* setup (waited for) */
	pid_t			 init_pid;	/* signals go here (host pid) */
	int			 ctl;
	int			 decided;	/* to the broker (broker_hold.c) */
	int			 listen_fd;
	int			 dns_fd[2];	/* UDP port 53 inside */
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
	/* UDP stand-ins' other ends: to the sink, or kept until there is one. */
	void			(*standin_sink)(void *, int);
	void			*standin_arg;
	int			 standins[16];
	size_t			 nstandins;
};

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
	(void)spawn_send(c->ctl, &m, &fd, 1);
	(void)close(fd);
	return 0;
}

/*
 * The child's record: its run directory, the paths it is given, their
 * hard links checked.  NULL with f said, nothing left behind.
 */
static struct sandbox_child *
child_new(const struct sandbox_request *r, const struct sandbox_plan *p,
    struct sandbox_failure *f)
{
	struct sandbox_child *c;
	char err[256];

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		fail_with(f, AREA_UNKNOWN, -1, ENOMEM, false, "out of memory");
		return NULL;
	}
	c->ctl = c->decided = c->listen_fd = c->diag = c->rd.basefd = -1;
	c->dns_fd[0] = c->dns_fd[1] = -1;
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
	return c;
fail:
	sandbox_free(c);
	return NULL;
}

/* What the set-up child reads of the request, the plan and the child. */
static void
job_init(struct job *j, const struct sandbox_child *c,
    const struct sandbox_plan *p)
{
	j->req = c->req;
	j->plan = p;
	j->paths = &c->paths;
	j->rd = &c->rd;
	j->ns = c->ns;
	j->ll = c->ll;
	j->root = c->root;
}

/* The memory limit's cgroup holds the set-up child before it goes on. */
static int
start_limited(struct sandbox_child *c, int go[2], struct sandbox_failure *f)
{
	char err[256];

	(void)close(go[0]);
	c->cgroup = limits_memory_cgroup(&c->req->limits, c->pid, err,
	    sizeof(err));
	if (c->cgroup == NULL || write(go[1], "g", 1) != 1) {
		fail_with(f, AREA_UNKNOWN, -1, errno, false, err);
		(void)close(go[1]);
		return -1;
	}
	(void)close(go[1]);
	return 0;
}

static void
close_pair(int v[2])
{
	if (v[0] != -1)
		(void)close(v[0]);
	if (v[1] != -1)
		(void)close(v[1]);
	v[0] = v[1] = -1;
}

struct sandbox_child *
sandbox_start(const struct sandbox_request *r, const struct sandbox_plan *p,
    struct sandbox_failure *f)
{
	struct sandbox_child *c;
	struct job j;
	char err[256];
	int sv[2] = { -1, -1 }, go[2] = { -1, -1 }, dv[2] = { -1, -1 };

	memset(f, 0, sizeof(*f));
	memset(&j, 0, sizeof(j));
	if ((c = child_new(r, p, f)) == NULL)
		return NULL;
	/* The landlock confinement's roots: its view of them is ours. */
	if (c->ll && ((j.rootfds = spawn_open_roots(&c->paths.sockroots)) ==
	    NULL || (j.bindfds = spawn_open_roots(&c->paths.bindroots)) ==
	    NULL)) {
		fail_with(f, AREA_UNKNOWN, -1, ENOMEM, false, "out of memory");
		goto fail;
	}
	/* ctl, the memory limit's go, and the held connects' decisions. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1 ||
	    (p->memory && pipe2(go, O_CLOEXEC) == -1) || (c->req->transparent &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, dv) == -1)) {
		snprintf(err, sizeof(err), "socketpair: %s", strerror(errno));
		fail_with(f, AREA_UNKNOWN, -1, errno, false, err);
		goto fail;
	}
	job_init(&j, c, p);
	j.ctl = sv[1];
	j.decided = dv[1];
	fflush(NULL);
	if ((c->pid = fork()) == -1) {
		snprintf(err, sizeof(err), "fork: %s", strerror(errno));
		fail_with(f, AREA_UNKNOWN, -1, errno, false, err);
		goto fail;
	}
	if (c->pid == 0) {
		(void)close(sv[0]);
		if (dv[0] != -1)
			(void)close(dv[0]);
		if (go[1] != -1)
			(void)close(go[1]);
		spawn_run_setup(&j, go[0]);
	}
	fds_free(j.rootfds, c->paths.sockroots.n);
	fds_free(j.bindfds, c->paths.bindroots.n);
	(void)close(sv[1]);
	c->ctl = sv[0];
	if (dv[1] != -1)
		(void)close(dv[1]);
	c->decided = dv[0];
	if ((p->memory && start_limited(c, go, f) == -1) || (p->landlock &&
	    (c->ns || c->ll) && give_ruleset(c, f) == -1)) {
		sandbox_free(c);
		return NULL;
	}
	return c;
fail:
	fds_free(j.rootfds, c->paths.sockroots.n);
	fds_free(j.bindfds, c->paths.bindroots.n);
	close_pair(sv);
	close_pair(dv);
	close_pair(go);
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
	case MSG_STANDIN:
		if (nfds != 1)
			break;
		if (c->standin_sink != NULL)
			c->standin_sink(c->standin_arg, fds[0]);
		else if (c->nstandins < NELEM(c->standins))
			c->standins[c->nstandins++] = fds[0];
		else
			break;
		nfds = 0;	/* handed on */
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
		if (spawn_recv(c->ctl, &m, fds, &nfds, SETUP_TIMEOUT_MS) ==
		    -1) {
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
		case MSG_DNS:
			if (nfds < 1 || nfds > 2 || c->dns_fd[0] != -1) {
				for (i = 0; i < nfds; i++)
					(void)close(fds[i]);
				fail_with(f, AREA_UNKNOWN, -1, EPROTO, false,
				    "sandbox set-up: a malformed hand-over");
				goto fail;
			}
			for (i = 0; i < nfds; i++)
				c->dns_fd[i] = fds[i];
			break;
		case MSG_INIT:
			c->init_pid = m.pid;
			break;
		case MSG_READY:
			ready = true;
			break;
		case MSG_DIRECT:
		case MSG_CONN:
		case MSG_STANDIN:
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

void
sandbox_take_dns(struct sandbox_child *c, int fds[2])
{
	fds[0] = c->dns_fd[0];
	fds[1] = c->dns_fd[1];
	c->dns_fd[0] = c->dns_fd[1] = -1;
}

void
sandbox_standin_sink(struct sandbox_child *c, void (*sink)(void *, int),
    void *arg)
{
	size_t i;

	c->standin_sink = sink;
	c->standin_arg = arg;
	for (i = 0; i < c->nstandins; i++)
		sink(arg, c->standins[i]);
	c->nstandins = 0;
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
	if (spawn_recv(c->ctl, &m, fds, &nfds, timeout_ms) == -1) {
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
		(void)spawn_send_ack(c->ctl, &m);
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

/*
 * The proxy's decision on a connect it held (proxy_set_decided), to the
 * broker: the connection known by the command's end, the proxy's peer.
 * Never waiting; a word lost leaves the connect to its bound (a refusal).
 */
void
sandbox_decided(struct sandbox_child *c, int fd, int err)
{
	struct held_decision d = { .err = err };
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (void *)&ss;
	socklen_t len = sizeof(ss);

	if (c->decided == -1 || getpeername(fd, (struct sockaddr *)&ss,
	    &len) == -1 || ss.ss_family != AF_INET)
		return;
	d.addr = sin->sin_addr.s_addr;
	d.port = sin->sin_port;
	(void)send(c->decided, &d, sizeof(d), MSG_DONTWAIT | MSG_NOSIGNAL);
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
	if (c->decided != -1)
		(void)close(c->decided);
	if (c->listen_fd != -1)
		(void)close(c->listen_fd);
	if (c->diag != -1)
		(void)close(c->diag);
	if (c->dns_fd[0] != -1)
		(void)close(c->dns_fd[0]);
	if (c->dns_fd[1] != -1)
		(void)close(c->dns_fd[1]);
	while (c->nstandins > 0)
		(void)close(c->standins[--c->nstandins]);
	free(c->queue);
	limits_memory_cgroup_remove(c->cgroup);
	sandbox_paths_free(&c->paths);
	/* Everything it ran has ended by now (setup waited for it). */
	(void)rundir_remove(&c->rd);
	free(c);
}
