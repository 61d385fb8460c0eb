/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading a file as the command could have (SPEC 7.1's subjects, taken at
 * exit): which of its roots a path lies beneath, whose rights read it
 * there, and a short-lived child that takes those rights, reads, answers,
 * and is killed when it stops making progress, so that a file on a hung
 * NFS or FUSE mount never holds harn-egressd's exit.
 *
 * The rights are the command's own, by confinement (spawn_init.c's
 * become_command): the caller's uid and groups (a caller that is not
 * root); SANDBOX_UID without groups (a root caller's command in landlock);
 * in namespaces, the owner and group of the root the file lies beneath,
 * which its idmapped mount made SANDBOX_UID's; uid 0 without groups (a
 * root caller's command that kept uid 0).  Never a capability: uid 0
 * without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH reads only what its
 * mode bits give root, as the command could in the roots the rule below
 * allows (Landlock's root-only rule is about files outside them).
 */
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "sandbox/internal.h"

#define HELPER_ANSWER_MAX	1024
#define TICK_EVERY_MS		200
#define REAP_MS			1000

/* root holds path, deeper than best: the new best. */
static void
deeper(const char *root, bool writable, const char *path, const char **best,
    bool *any_writable)
{
	if (root == NULL || !path_under(path, root))
		return;
	if (writable)
		*any_writable = true;
	if (*best == NULL || strlen(root) > strlen(*best))
		*best = root;
}

const char *
sandbox_subject_root(const struct sandbox_request *r, const char *path)
{
	const char *best = NULL;
	bool writable = false;
	size_t i;

	if (path[0] != '/')
		return NULL;
	deeper(r->workspace, true, path, &best, &writable);
	for (i = 0; i < r->nrw_roots; i++)
		deeper(r->rw_roots[i], true, path, &best, &writable);
	/* A read-only root inside a writable one has its own owner. */
	for (i = 0; i < r->nro_roots; i++)
		deeper(r->ro_roots[i], false, path, &best, &writable);
	return writable ? best : NULL;
}

void
sandbox_subject_ident(const struct sandbox_plan *p, const struct stat *root,
    gid_t gid, struct sandbox_ident *id)
{
	memset(id, 0, sizeof(*id));
	id->groups = true;
	if (p->refused || p->confinement == CONFINEMENT_NONE ||
	    p->identity == IDENTITY_CALLER)
		return;		/* the caller's uid and groups */
	id->change = true;
	id->groups = false;
	switch (p->identity) {
	case IDENTITY_SANDBOX_UID:
		/* Through its idmapped mount the root's owner was the command. */
		if (p->confinement == CONFINEMENT_NAMESPACES) {
			id->uid = root->st_uid;
			id->gid = root->st_gid;
		} else {
			id->uid = SANDBOX_UID;
			id->gid = SANDBOX_GID;
		}
		break;
	case IDENTITY_ROOT:
		id->uid = 0;
		id->gid = gid;
		break;
	case IDENTITY_CALLER:
		break;
	}
}

int
sandbox_become(const struct sandbox_ident *id)
{
	struct __user_cap_header_struct hdr = {
	    _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	/* Nothing of ours may be read out of this process by that uid. */
	if (prctl(PR_SET_DUMPABLE, 0) == -1)
		return -1;
	if (id->change) {
		/* uid 0 without CAP_SETGID keeps its groups, as its command. */
		if (!id->groups && setgroups(0, NULL) == -1 &&
		    !(errno == EPERM && id->uid == geteuid()))
			return -1;
		if (setresgid(id->gid, id->gid, id->gid) == -1 ||
		    setresuid(id->uid, id->uid, id->uid) == -1)
			return -1;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1 &&
	    errno != EINVAL)
		return -1;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) == -1 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    syscall(SYS_capget, &hdr, data) == -1)
		return -1;
	if (data[0].effective != 0 || data[1].effective != 0 ||
	    data[0].permitted != 0 || data[1].permitted != 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct sandbox_tick {
	int		 fd;
	int64_t		 last;
};

void
sandbox_tick(struct sandbox_tick *t)
{
	int64_t now = now_ms();

	if (now - t->last < TICK_EVERY_MS)
		return;
	t->last = now;
	(void)send(t->fd, "t", 1, MSG_NOSIGNAL);
}

static void
close_range_keep(unsigned from, unsigned to)
{
	unsigned fd;

	if (from > to)
		return;
	if (syscall(SYS_close_range, from, to, 0) == 0)
		return;
	for (fd = from; fd <= to && fd < 65536; fd++)
		(void)close((int)fd);
}

/* Every descriptor but 0-2, a and b: the child holds nothing else of ours. */
static void
close_but(int a, int b)
{
	unsigned lo, hi;

	if (a < 3)
		a = b;
	if (b < 3)
		b = a;
	lo = (unsigned)(a < b ? a : b);
	hi = (unsigned)(a < b ? b : a);
	close_range_keep(3, lo - 1);
	close_range_keep(lo + 1, hi - 1);
	close_range_keep(hi + 1, ~0U);
}

static void __attribute__((noreturn))
helper_child(int sock, const struct sandbox_ident *id, int keep,
    sandbox_helper_fn fn, void *arg, size_t len)
{
	unsigned char msg[HELPER_ANSWER_MAX + 1];
	struct sandbox_tick t = { sock, 0 };
	int e;

	(void)signal(SIGPIPE, SIG_IGN);
	close_but(sock, keep);
	if (id == NULL)
		(void)prctl(PR_SET_DUMPABLE, 0);
	else if (sandbox_become(id) == -1) {
		e = errno;
		msg[0] = 'f';
		memcpy(msg + 1, &e, sizeof(e));
		(void)send(sock, msg, 1 + sizeof(e), MSG_NOSIGNAL);
		_exit(1);
	}
	/* Gone with harn-egressd (set now: a change of uid clears it). */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	t.last = now_ms();
	memset(msg, 0, sizeof(msg));
	fn(arg, &t, msg + 1, len);
	msg[0] = 'r';
	(void)send(sock, msg, 1 + len, MSG_NOSIGNAL);
	_exit(0);
}

/* Killed, and reaped if it goes within REAP_MS (a hung mount may hold it). */
static void
end_child(pid_t pid)
{
	int64_t until = now_ms() + REAP_MS;

	(void)kill(pid, SIGKILL);
	while (waitpid(pid, NULL, WNOHANG) == 0 && now_ms() < until)
		(void)poll(NULL, 0, 10);
}

/* The child's answers until its last one, or idle_ms without any. */
static int
helper_wait(int sock, void *out, size_t len, int idle_ms)
{
	unsigned char msg[HELPER_ANSWER_MAX + 1];
	struct pollfd pfd = { sock, POLLIN, 0 };
	ssize_t got;
	int n, e;

	for (;;) {
		if ((n = poll(&pfd, 1, idle_ms)) == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n == 0 ? ETIMEDOUT : errno;
			return -1;
		}
		if ((got = recv(sock, msg, sizeof(msg), 0)) == -1 &&
		    errno == EINTR)
			continue;
		if (got == 1 && msg[0] == 't')
			continue;
		if (got == (ssize_t)(1 + len) && msg[0] == 'r') {
			memcpy(out, msg + 1, len);
			return 0;
		}
		e = ECHILD;
		if (got == (ssize_t)(1 + sizeof(e)) && msg[0] == 'f')
			memcpy(&e, msg + 1, sizeof(e));
		errno = e;
		return -1;
	}
}

int
sandbox_helper(const struct sandbox_ident *id, int keep, sandbox_helper_fn fn,
    void *arg, void *out, size_t len, int idle_ms)
{
	int sv[2], rv, e;
	pid_t pid;

	if (len > HELPER_ANSWER_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return -1;
	if ((pid = fork()) == -1) {
		e = errno;
		(void)close(sv[0]);
		(void)close(sv[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		(void)close(sv[0]);
		helper_child(sv[1], id, keep, fn, arg, len);
	}
	(void)close(sv[1]);
	rv = helper_wait(sv[0], out, len, idle_ms);
	e = errno;
	(void)close(sv[0]);
	end_child(pid);
	errno = e;
	return rv;
}
