/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The metadata calls (the landlock confinement: chmod, chown, utimes,
 * xattrs, truncate; broker_calls.c lists them): no Landlock right covers
 * them and no read-only host stands behind, so the broker makes each one
 * itself, as the command, on the file it names, when that file lies in a
 * root the command may write and the call keeps SPEC 6.5's invariants
 * (meta_allowed).
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
/* File metadata (the landlock confinement). */

/*
 * The file a call names, as an O_PATH of ours, looked up with the
 * command's credentials (ours: its search permissions are what count) in
 * its own working directory or directory descriptor.  -1 with an errno.
 */
static int
meta_target(struct broker *b, struct caller *who,
    const struct seccomp_notif *req, const struct brokered *m, int *err)
{
	char path[PATH_MAX], base[96];
	int bfd = AT_FDCWD, fd, flags, at = m->flags_arg >= 0 ?
	    (int)req->data.args[m->flags_arg] : 0, dirfd;
	uint64_t pathp;
	bool nofollow = m->nofollow || (at & AT_SYMLINK_NOFOLLOW);

	if (m->layout == K_FD) {
		snprintf(base, sizeof(base), "/proc/%ld/fd/%d", (long)who->tid,
		    (int)req->data.args[0]);
		if ((fd = broker_proc_open(base, O_PATH)) == -1)
			*err = errno == ENOENT ? EBADF : errno;
		return fd;
	}
	pathp = m->layout == K_AT ? req->data.args[1] : req->data.args[0];
	dirfd = m->layout == K_AT ? (int)req->data.args[0] : AT_FDCWD;
	/* utimensat(fd, NULL, ...), and AT_EMPTY_PATH: the fd itself. */
	if (m->layout == K_AT && pathp == 0 && m->op == M_UTIMENS)
		path[0] = '\0';
	else if ((*err = broker_read_str(b, who, pathp, path, sizeof(path),
	    ENAMETOOLONG)) != 0)
		return -1;
	if (path[0] == '\0' && !(at & AT_EMPTY_PATH) &&
	    !(m->op == M_UTIMENS && pathp == 0)) {
		*err = ENOENT;
		return -1;
	}
	if (path[0] != '/') {
		if (dirfd == AT_FDCWD)
			snprintf(base, sizeof(base), "/proc/%ld/cwd",
			    (long)who->tid);
		else
			snprintf(base, sizeof(base), "/proc/%ld/fd/%d",
			    (long)who->tid, dirfd);
		if ((bfd = broker_proc_open(base, O_PATH)) == -1) {
			*err = errno == ENOENT ? EBADF : errno;
			return -1;
		}
	}
	if (path[0] == '\0')
		return bfd;
	flags = O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0);
	fd = openat(bfd, path, flags);
	*err = errno;
	if (bfd != AT_FDCWD)
		(void)close(bfd);
	return fd;
}

/* Does the file fd is lie in a writable root (and no read-only one)? */
static bool
meta_writable(const struct broker *b, int fd)
{
	char real[PATH_MAX];

	if (fd_path(fd, real, sizeof(real)) == -1)
		return false;
	return broker_meta_writable((const char *const *)b->writable,
	    b->nwritable, (const char *const *)b->readonly, b->nreadonly, real);
}

/* The times a call gives, as utimensat's; NULL for "now". */
static int
meta_times(struct broker *b, struct caller *who, const struct brokered *m,
    uint64_t at, struct timespec ts[2], struct timespec **out)
{
	struct timeval tv[2];
	struct utimbuf ub;
	int err;

	*out = NULL;
	if (at == 0)
		return 0;
	*out = ts;
	switch (m->op) {
	case M_UTIMENS:
		return broker_read_mem(b, who, at, ts, sizeof(struct timespec) * 2);
	case M_UTIMES:
		if ((err = broker_read_mem(b, who, at, tv, sizeof(tv))) != 0)
			return err;
		ts[0].tv_sec = tv[0].tv_sec;
		ts[0].tv_nsec = tv[0].tv_usec * 1000;
		ts[1].tv_sec = tv[1].tv_sec;
		ts[1].tv_nsec = tv[1].tv_usec * 1000;
		return 0;
	case M_UTIME:
		if ((err = broker_read_mem(b, who, at, &ub, sizeof(ub))) != 0)
			return err;
		ts[0].tv_sec = ub.actime;
		ts[1].tv_sec = ub.modtime;
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		return 0;
	default:
		return EINVAL;
	}
}

/* Is gid one of ours (the command's)? */
static bool
our_group(gid_t gid)
{
	gid_t groups[256];
	int i, n;

	if (gid == getegid())
		return true;
	if ((n = getgroups((int)NELEM(groups), groups)) == -1)
		return false;
	for (i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/* The invariants (broker_rules.c), for the command: our ids are its. */
static int
meta_allowed(const struct brokered *m, const struct seccomp_notif *req,
    int a, const char *name)
{
	uint64_t args[6];

	memcpy(args, req->data.args, sizeof(args));
	return broker_meta_allowed(m, args, a, name, geteuid(), our_group);
}

/* The call itself, on fd, as the command (which we are): 0 or errno. */
static int
meta_do(struct broker *b, struct caller *who, const struct seccomp_notif *req,
    const struct brokered *m, int fd)
{
	/* Where the call keeps the mode, owner, times, name and value. */
	int a = m->layout == K_AT ? 2 : 1;
	char self[64], name[XATTR_NAME_MAX + 1];
	static char value[XATTR_SIZE_MAX];
	struct timespec ts[2], *tp = NULL;
	struct stat st;
	size_t size = 0;
	int err, rv;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	name[0] = '\0';
	if (fstat(fd, &st) == -1)
		return errno;
	if (m->op == M_SETX || m->op == M_REMX) {
		if ((err = broker_read_str(b, who, req->data.args[a], name,
		    sizeof(name), ERANGE)) != 0)
			return err;
		size = (size_t)req->data.args[a + 2];
		if (m->op == M_SETX && size > sizeof(value))
			return E2BIG;
		if (m->op == M_SETX && size > 0 && (err = broker_read_mem(b, who,
		    req->data.args[a + 1], value, size)) != 0)
			return err;
	}
	if ((m->op == M_UTIMENS || m->op == M_UTIMES || m->op == M_UTIME) &&
	    (err = meta_times(b, who, m, req->data.args[a], ts, &tp)) != 0)
		return err;
	if ((err = meta_allowed(m, req, a, name)) != 0)
		return err;
	/* A symlink itself: only its owner can change (lchown). */
	if (S_ISLNK(st.st_mode) && m->op != M_CHOWN)
		return EOPNOTSUPP;
	switch (m->op) {
	case M_CHMOD:
		rv = chmod(self, (mode_t)req->data.args[a]);
		break;
	case M_CHOWN:
		rv = fchownat(fd, "", (uid_t)req->data.args[a],
		    (gid_t)req->data.args[a + 1], AT_EMPTY_PATH);
		break;
	case M_UTIMENS:
	case M_UTIMES:
	case M_UTIME:
		rv = utimensat(AT_FDCWD, self, tp, 0);
		break;
	case M_SETX:
		rv = setxattr(self, name, value, size,
		    (int)req->data.args[a + 3]);
		break;
	case M_REMX:
		rv = removexattr(self, name);
		break;
	case M_TRUNC:
		rv = truncate(self, (off_t)req->data.args[a]);
		break;
	default:
		rv = -1;
		errno = ENOSYS;
	}
	return rv == 0 ? 0 : errno;
}

void
broker_meta(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *m)
{
	struct caller *who = broker_caller_of(b, (pid_t)req->pid);
	int fd, err;

	if ((fd = meta_target(b, who, req, m, &err)) == -1) {
		(void)broker_respond(b, req->id, err);
		return;
	}
	/* What was read and opened is the caller's only if it still waits. */
	if (!broker_alive(b, req->id)) {
		(void)close(fd);
		return;
	}
	err = meta_writable(b, fd) ? meta_do(b, who, req, m, fd) : EROFS;
	(void)close(fd);
	(void)broker_respond(b, req->id, err);
}
