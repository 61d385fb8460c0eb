/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The calls on other processes: signals and whom a later signal reaches
 * (the landlock confinement), the calls that act on a process by its id
 * (both), and the forks of a command that keeps uid 0 (max_procs).  Each
 * goes on, as made, only toward the command's own processes (SPEC 6.5);
 * whom it reaches is decided in broker_rules.c from its registers alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include <event2/event.h>
#include <seccomp.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

/* ---------------------------------------------------------------- */
/* Signals (the landlock confinement). */

/*
 * Let a call on another process go on, as it was made, when the target is
 * the command's own: its arguments are registers, which the kernel does
 * not read again from the caller's memory.  What is left is a pid freed
 * and handed to a process outside between the check and the call, which
 * needs the pid space to wrap around in that time.
 */
static void
judge_target(struct broker *b, const struct seccomp_notif *req,
    const struct broker_target *t)
{
	char path[64];
	int err = 0;

	switch (t->kind) {
	case TARGET_KERNEL:
		break;
	case TARGET_REFUSE:
		err = t->err;
		break;
	case TARGET_PROCESS:
	case TARGET_GROUP:
		if (t->kind == TARGET_PROCESS ? diag_pid_below(b->init, t->id) :
		    diag_group_below(b->init, t->id))
			break;
		/* One that is gone is told apart: kill(pid, 0) asks that. */
		snprintf(path, sizeof(path), "/proc/%ld", (long)t->id);
		err = access(path, F_OK) == 0 ? EPERM : ESRCH;
		break;
	}
	if (err == 0)
		broker_proceed(b, req->id);
	else
		(void)broker_respond(b, req->id, err);
}

/* The process a caller's descriptor names: a pidfd, or /proc/PID. */
static pid_t
fd_process(pid_t tid, int fd)
{
	char path[96], link[64], line[128];
	long pid = 0;
	char *end;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)tid, fd);
	if (broker_proc_readlink(path, link, sizeof(link)) <= 0)
		return 0;
	if (strncmp(link, "/proc/", 6) == 0) {
		pid = strtol(link + 6, &end, 10);
		return *end == '\0' && pid > 0 ? (pid_t)pid : 0;
	}
	if (strcmp(link, "anon_inode:[pidfd]") != 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%d", (long)tid, fd);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Pid: %ld", &pid) == 1)
			break;
	(void)fclose(f);
	return pid > 0 ? (pid_t)pid : 0;
}

/*
 * pidfd_send_signal(fd, sig, info, flags): fd names the process (a pidfd,
 * or a /proc/PID directory, which serves as one).  Where Landlock's signal
 * scope stands (ABI 6) the call goes on as made.  Before it, the broker
 * sends the signal itself on a pidfd of its own to the process it judged:
 * the caller could put another process's descriptor at that number
 * between a check and the call.
 */
static void
handle_pidfd_send(struct broker *b, const struct seccomp_notif *req)
{
	struct caller *who = broker_caller_of(b, (pid_t)req->pid);
	siginfo_t si;
	char path[64];
	pid_t pid;
	int fd, err = 0;

	if (b->landlock_abi >= 6) {
		broker_proceed(b, req->id);
		return;
	}
	if ((pid = fd_process(who->tid, (int)req->data.args[0])) == 0) {
		(void)broker_respond(b, req->id, EBADF);
		return;
	}
	if (req->data.args[2] != 0 && (err = broker_read_mem(b, who,
	    req->data.args[2], &si, sizeof(si))) != 0) {
		(void)broker_respond(b, req->id, err);
		return;
	}
	if (!broker_alive(b, req->id))
		return;
	if (!diag_pid_below(b->init, pid)) {
		snprintf(path, sizeof(path), "/proc/%ld", (long)pid);
		(void)broker_respond(b, req->id, access(path, F_OK) == 0 ? EPERM :
		    ESRCH);
		return;
	}
	if ((fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1) {
		(void)broker_respond(b, req->id, errno);
		return;
	}
	if (syscall(SYS_pidfd_send_signal, fd, (int)req->data.args[1],
	    req->data.args[2] != 0 ? &si : NULL,
	    (unsigned)req->data.args[3]) == -1)
		err = errno;
	(void)close(fd);
	(void)broker_respond(b, req->id, err);
}

void
broker_signal(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *c)
{
	struct broker_target t;
	uint64_t args[6];

	if (c->op == SIGCALL_PIDFD_SEND) {
		handle_pidfd_send(b, req);
		return;
	}
	memcpy(args, req->data.args, sizeof(args));
	broker_signal_target((enum broker_sigcall)c->op, args, &t);
	judge_target(b, req, &t);
}

void
broker_procall(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *p)
{
	struct broker_target t;
	uint64_t args[6];

	memcpy(args, req->data.args, sizeof(args));
	broker_procall_target(p, args, &t);
	judge_target(b, req, &t);
}

/* ---------------------------------------------------------------- */
/* Forks of a command that keeps uid 0 (max_procs). */

/*
 * Is tid still inside a fork it was let go into?  Its child is linked
 * below it before the call returns, so one that has left the call is
 * counted by a walk; one still running may be anywhere, and counts.
 */
static bool
forking(pid_t tid)
{
	char path[64], buf[64];
	ssize_t n;
	long nr;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/syscall", (long)tid);
	if ((fd = broker_proc_open(path, O_RDONLY)) == -1)
		return false;	/* gone: its child, if any, is below */
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	if (strncmp(buf, "running", 7) == 0)
		return true;
	nr = strtol(buf, NULL, 10);
	return nr == SYS_clone || nr == SYS_fork || nr == SYS_vfork;
}

/* Take tid out of the forks let go (its last one has returned). */
static void
inflight_drop(struct broker *b, pid_t tid)
{
	size_t i;

	for (i = 0; i < b->ninflight; i++)
		if (b->inflight[i] == tid) {
			b->inflight[i] = b->inflight[--b->ninflight];
			return;
		}
}

/*
 * The tasks below init, an upper bound: the last walk's count plus every
 * fork let go since.  A walk (a read a task) is made only when that bound
 * reaches the limit: it counts what is there, and the forks let go that
 * may not show in it yet (their callers still inside the call).
 */
static unsigned
tasks_now(struct broker *b)
{
	size_t i = 0;

	while (i < b->ninflight) {
		if (forking(b->inflight[i]))
			i++;
		else
			b->inflight[i] = b->inflight[--b->ninflight];
	}
	b->tasks = diag_tasks_below(b->init);
	b->since = (unsigned)b->ninflight;
	b->counted = true;
	return b->tasks + b->since;
}

void
broker_fork(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *c __attribute__((unused)))
{
	unsigned n;

	/*
	 * A thread asks again only once its last fork has returned: that one
	 * is done (and counted in since until the next walk).
	 */
	inflight_drop(b, (pid_t)req->pid);
	n = b->tasks + b->since;
	if (!b->counted || n >= b->max_procs || b->ninflight == INFLIGHT_MAX)
		n = tasks_now(b);
	if (n >= b->max_procs || b->ninflight == INFLIGHT_MAX) {
		(void)broker_respond(b, req->id, EAGAIN);
		return;
	}
	b->inflight[b->ninflight++] = (pid_t)req->pid;
	b->since++;
	broker_proceed(b, req->id);
}
