/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's reading of its callers (for the acts in broker*.c): their
 * memory through /proc/TID/mem, their descriptors and their pidfds, kept
 * open for the callers seen last (struct caller).  No decision here:
 * every read is of what the caller handed the kernel, and a caller gone
 * or exec'd is an error, never a guess.
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
/* /proc of the command's processes. */

int
broker_proc_open(const char *path, int flags)
{
	return open(path, flags | O_CLOEXEC);
}

ssize_t
broker_proc_readlink(const char *path, char *buf, size_t len)
{
	ssize_t n = readlink(path, buf, len - 1);

	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* ---------------------------------------------------------------- */
/* The callers. */

void
broker_caller_close(struct caller *c)
{
	if (c->mem != -1)
		(void)close(c->mem);
	if (c->pidfd != -1)
		(void)close(c->pidfd);
	c->tid = 0;
	c->mem = c->pidfd = -1;
}

/* The cache entry for tid: found, or the least recently used, emptied. */
struct caller *
broker_caller_of(struct broker *b, pid_t tid)
{
	static unsigned clock;
	struct caller *c, *old = &b->callers[0];
	size_t i;

	for (i = 0; i < CALLERS; i++) {
		c = &b->callers[i];
		if (c->tid == tid) {
			c->used = ++clock;
			return c;
		}
		if (c->used < old->used)
			old = c;
	}
	broker_caller_close(old);
	old->tid = tid;
	old->used = ++clock;
	return old;
}

void
broker_exe_of(pid_t pid, char *exe, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	if (broker_proc_readlink(path, exe, len) <= 0)
		exe[0] = '\0';
}

/*
 * Once a run: a process that made itself non-dumpable (ssh does; so does
 * harn-egressd) keeps its memory from the broker too, which has only the
 * command's rights.
 */
static void
say_undumpable(pid_t tid)
{
	static bool said;
	char exe[256];

	if (said)
		return;
	said = true;
	broker_exe_of(tid, exe, sizeof(exe));
	if (exe[0] == '\0')
		snprintf(exe, sizeof(exe), "?");
	fprintf(stderr, "harn-egressd: sandbox: broker: pid %ld (%s) is not "
	    "dumpable (prctl PR_SET_DUMPABLE 0, or a binary it may not "
	    "read): the broker, which has only the command's rights, cannot "
	    "read its call, and its connect(), bind() and listen() fail with "
	    "EPERM\n", (long)tid, exe);
}

/* len bytes of the caller's memory at at; 0 or an errno. */
int
broker_read_mem(struct broker *b, struct caller *c, uint64_t at, void *buf,
    size_t len)
{
	char path[64];
	int tries;

	for (tries = 0; tries < 2; tries++) {
		if (c->mem == -1) {
			snprintf(path, sizeof(path), "/proc/%ld/mem",
			    (long)c->tid);
			if ((c->mem = broker_proc_open(path, O_RDONLY)) == -1) {
				if (errno == ENOENT)
					return ESRCH;
				say_undumpable(c->tid);
				return EPERM;
			}
		}
		if (pread(c->mem, buf, len, (off_t)at) == (ssize_t)len)
			return 0;
		/* An older task of this tid, or one that exec'd: again. */
		(void)close(c->mem);
		c->mem = -1;
	}
	return EFAULT;
}

/*
 * len bytes into the caller's memory at at (what accept() gives back);
 * 0 or an errno.  Opened for the one write: the cached descriptor reads.
 */
int
broker_write_mem(struct broker *b, struct caller *c, uint64_t at,
    const void *buf, size_t len)
{
	char path[64];
	int fd, err = 0;

	(void)b;
	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)c->tid);
	if ((fd = broker_proc_open(path, O_WRONLY)) == -1)
		return errno == ENOENT ? ESRCH : EPERM;
	if (pwrite(fd, buf, len, (off_t)at) != (ssize_t)len)
		err = EFAULT;
	(void)close(fd);
	return err;
}

/* A NUL-terminated string of the caller's, at most len - 1 bytes. */
int
broker_read_str(struct broker *b, struct caller *c, uint64_t at, char *buf,
    size_t len, int toolong)
{
	ssize_t n;
	int err;

	if (at == 0)
		return EFAULT;
	if ((err = broker_read_mem(b, c, at, buf, 1)) != 0)
		return err;
	/* pread stops where the mapping does: whatever of it is there. */
	if ((n = pread(c->mem, buf, len, (off_t)at)) <= 0)
		return EFAULT;
	if (memchr(buf, '\0', (size_t)n) == NULL)
		return (size_t)n == len ? toolong : EFAULT;
	return 0;
}

bool
broker_read_cwd(const struct broker *b, pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/cwd", (long)pid);
	if ((n = broker_proc_readlink(path, buf, len)) <= 0 || (size_t)n >= len - 1)
		return false;
	/* A deleted directory: nothing to resolve against. */
	return buf[0] == '/' && strstr(buf, " (deleted)") == NULL;
}

static int
caller_pidfd(struct broker *b, struct caller *c)
{
	pid_t tgid;

	if (c->pidfd != -1)
		return c->pidfd;
	if (b->thread_pidfd) {
		c->pidfd = (int)syscall(SYS_pidfd_open, c->tid, PIDFD_THREAD);
		if (c->pidfd == -1 && errno == EINVAL)
			b->thread_pidfd = false;
	}
	if (c->pidfd == -1 && (tgid = diag_tgid(c->tid)) != -1)
		c->pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	return c->pidfd;
}

/*
 * The caller's socket, as our own descriptor; -1 with an errno.  Its
 * thread's descriptor table where the kernel can name a thread.
 */
int
broker_take_socket(struct broker *b, struct caller *c, int fd, int *err)
{
	int s, tries;

	for (tries = 0; tries < 2; tries++) {
		if (caller_pidfd(b, c) == -1) {
			*err = ESRCH;
			return -1;
		}
		if ((s = (int)syscall(SYS_pidfd_getfd, c->pidfd, fd, 0)) != -1)
			return s;
		*err = errno == EBADF ? EBADF : EPERM;
		if (errno != ESRCH)
			return -1;
		/* The pidfd of an older task of this tid: again. */
		(void)close(c->pidfd);
		c->pidfd = -1;
	}
	return -1;
}

/*
 * What a caller's descriptor is, without holding it: the socket's inode
 * and the description's flags.  0 or an errno.
 */
int
broker_describe(pid_t tid, int fd, unsigned long *ino,
    int *flags, bool *cloexec, char *proto, size_t protolen)
{
	char path[96], link[64], buf[512], *p;
	ssize_t n;
	int f;
	unsigned long fl;

	snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)tid, fd);
	if (broker_proc_readlink(path, link, sizeof(link)) <= 0)
		return errno == ENOENT ? EBADF : EPERM;
	if ((*ino = diag_socket_inode(link)) == 0)
		return ENOTSOCK;
	/* The protocol's name ("TCP", "UNIX-STREAM", ...), from sockfs. */
	n = getxattr(path, "system.sockprotoname", proto, protolen - 1);
	proto[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%d", (long)tid, fd);
	if ((f = broker_proc_open(path, O_RDONLY)) == -1)
		return errno == ENOENT ? EBADF : EPERM;
	n = read(f, buf, sizeof(buf) - 1);
	(void)close(f);
	buf[n > 0 ? n : 0] = '\0';
	if ((p = strstr(buf, "flags:")) == NULL ||
	    sscanf(p + 6, "%lo", &fl) != 1)
		return EPERM;
	*cloexec = (fl & O_CLOEXEC) != 0;
	*flags = (int)(fl & ~(unsigned long)O_CLOEXEC);
	return 0;
}

/*
 * Is the caller's socket (fd, inode ino) in one of its epoll sets?  A
 * fresh socket in its place would not be: the set watches the file, and
 * the file it watched is gone with the swap.
 */
bool
broker_watched(pid_t tid, int fd, unsigned long ino)
{
	char path[320], link[64], buf[8192];
	struct dirent *de;
	DIR *d;
	FILE *f;
	unsigned long tino;
	int tfd;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)tid);
	d = opendir(path);
	if (d == NULL)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/fd/%s", (long)tid,
		    de->d_name);
		if (broker_proc_readlink(path, link, sizeof(link)) <= 0 ||
		    strcmp(link, "anon_inode:[eventpoll]") != 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%s", (long)tid,
		    de->d_name);
		f = fopen(path, "re");
		if (f == NULL)
			continue;
		while (!found && fgets(buf, sizeof(buf), f) != NULL) {
			const char *i = strstr(buf, " ino:");

			found = sscanf(buf, "tfd: %d", &tfd) == 1 &&
			    tfd == fd && i != NULL &&
			    sscanf(i, " ino:%lx", &tino) == 1 && tino == ino;
		}
		(void)fclose(f);
	}
	(void)closedir(d);
	return found;
}
