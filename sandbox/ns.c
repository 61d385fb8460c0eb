/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The namespaces confinement (SPEC 6.1, 6.5): the set-up child's steps.
 *
 * A caller that is not root gets a user namespace in which it keeps its
 * own uid (its command then owns what the caller owns, no more).  A root
 * caller makes the namespaces from the initial user namespace, and its
 * init (and so its command) later moves into a user namespace of its
 * own, as SANDBOX_UID (ns_user_map): so the command is never root, and
 * never the owner of a host file outside the roots it was given.
 *
 * The mount namespace:
 *   - every mount is made read-only (mount_setattr AT_RECURSIVE): no
 *     chmod, chown, utime or xattr change anywhere but the grants;
 *   - /tmp, /var/tmp, /run and /dev/shm are private, empty tmpfs, of a
 *     bounded size; /dev/pts is a private devpts;
 *   - each root the command was given is bind-mounted back at its own
 *     path, shallow first (a workspace inside $HOME stays writable),
 *     read-write or read-only as granted; for a root caller a writable
 *     one (and a read-only one inside it) idmapped so that SANDBOX_UID
 *     is its owner, nothing changing on disk, and the other read-only
 *     ones as they are (nsbinds.c);
 *   - a directory on the way to a root that the command may not search
 *     is an empty skeleton of ours, and one on the way to a denied path
 *     under a read-only root in a private directory a skeleton without
 *     it (skel.c);
 *   - every denied path (and the target of a denied symlink) is masked
 *     by an empty read-only tmpfs or /dev/null.
 * Landlock and the connect broker come on top, in the command.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define LISTEN_BACKLOG	4096
#define MAX_IDMAPS	8

static int fail_step(struct setup_fail *, int mech, enum sandbox_area,
    const char *, ...) __attribute__((format(printf, 4, 5)));

/* Record why a step failed (errno as it was); always -1. */
static int
fail_step(struct setup_fail *f, int mech, enum sandbox_area area,
    const char *fmt, ...)
{
	va_list ap;

	f->err = errno;
	f->mech = mech;
	f->area = area;
	va_start(ap, fmt);
	(void)vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	return -1;
}

static int
write_file_at(int dirfd, const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd, rv;

	if ((fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	rv = write(fd, text, len) == (ssize_t)len ? 0 : -1;
	if (close(fd) == -1)
		rv = -1;
	return rv;
}

static int
write_file(const char *path, const char *text)
{
	return write_file_at(AT_FDCWD, path, text);
}

/*
 * An unprivileged user namespace in which we keep our own uid and gid:
 * files we create stay ours, and we hold capabilities only inside it.
 */
static int
enter_userns(struct setup_fail *f)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_EGRESS,
		    "user namespace: %s", strerror(errno));
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (write_file("/proc/self/setgroups", "deny") == -1 ||
	    write_file("/proc/self/uid_map", map) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_EGRESS,
		    "uid map: %s", strerror(errno));
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (write_file("/proc/self/gid_map", map) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_EGRESS,
		    "gid map: %s", strerror(errno));
	return 0;
}

/*
 * A user namespace that maps owner:group to SANDBOX_UID:SANDBOX_GID,
 * for idmapped mounts: a file the owner has on disk is SANDBOX_UID's
 * through them, and what SANDBOX_UID makes there is the owner's on disk.
 * Made by a throwaway child that shares our memory (no page tables to
 * copy) and lives until its maps are written; its fd outlives it.
 */
static int
idmap_child(void *arg)
{
	int *p = arg;
	char c;

	(void)close(p[1]);	/* a copy of the table: ours to close */
	/* EOF (the parent closed it) or an error: either way, done. */
	return read(p[0], &c, 1) == -1 ? 1 : 0;
}

static int
idmap_userns(uid_t owner, gid_t group, struct setup_fail *f)
{
	static char stack[16384] __attribute__((aligned(16)));
	char path[64], map[64];
	int p[2], fd = -1;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_WRITE, "pipe: %s",
		    strerror(errno));
	pid = clone(idmap_child, stack + sizeof(stack), CLONE_VM |
	    CLONE_NEWUSER | SIGCHLD, p);
	if (pid == -1)
		goto out;
	snprintf(map, sizeof(map), "%u %u 1\n", owner, SANDBOX_UID);
	snprintf(path, sizeof(path), "/proc/%ld/uid_map", (long)pid);
	if (write_file(path, map) == -1)
		goto out;
	snprintf(map, sizeof(map), "%u %u 1\n", group, SANDBOX_GID);
	snprintf(path, sizeof(path), "/proc/%ld/gid_map", (long)pid);
	if (write_file(path, map) == -1)
		goto out;
	snprintf(path, sizeof(path), "/proc/%ld/ns/user", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
out:
	if (fd == -1)
		(void)fail_step(f, MECH_NAMESPACES, AREA_WRITE,
		    "idmap user namespace: %s", strerror(errno));
	(void)close(p[1]);	/* the child's read ends: it exits */
	while (pid > 0 && waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
	(void)close(p[0]);
	return fd;
}

static int
lo_up(struct setup_fail *f)
{
	struct ifreq ifr;
	int s, rv = 0;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_EGRESS, "socket: %s",
		    strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == -1)
		rv = fail_step(f, MECH_NAMESPACES, AREA_EGRESS, "lo: %s",
		    strerror(errno));
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (rv == 0 && ioctl(s, SIOCSIFFLAGS, &ifr) == -1)
		rv = fail_step(f, MECH_NAMESPACES, AREA_EGRESS, "lo up: %s",
		    strerror(errno));
	(void)close(s);
	return rv;
}

/* The proxy's listener, on 127.0.0.1 inside the new network namespace. */
static int
make_listener(unsigned short *port, struct setup_fail *f)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, LISTEN_BACKLOG) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		if (fd != -1)
			(void)close(fd);
		return fail_step(f, MECH_NAMESPACES, AREA_EGRESS,
		    "listener: %s", strerror(errno));
	}
	*port = ntohs(sin.sin_port);
	return fd;
}

/*
 * A mount point in a directory of ours: searchable by the command
 * whatever the caller's umask (the command is another uid for a root
 * caller).
 */
static int
mkdir_one(const char *dir)
{
	if (mkdir(dir, 0755) == 0)
		return chmod(dir, 0755);
	return errno == EEXIST ? 0 : -1;
}

static int
mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t i;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (i = 1; buf[i] != '\0'; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		if (mkdir_one(buf) == -1)
			return -1;
		buf[i] = '/';
	}
	return mkdir_one(buf);
}

/* A detached copy of one root, with its attributes, to attach later. */
static int
clone_bind(const struct ns_bind *b, const int *idmap_fds,
    const struct ns_bind *const *idmap_of, size_t nidmap,
    struct setup_fail *f)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV };
	struct stat st;
	size_t i;
	int t;

	if ((t = open_tree(AT_FDCWD, b->path, OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_RECURSIVE)) == -1)
		return fail_step(f, MECH_NAMESPACES, b->ro ? AREA_HOME_READ :
		    AREA_WRITE, "%s: %s", b->path, strerror(errno));
	/* The directory that was checked, not one put at its path since. */
	if (fstat(t, &st) == -1 || st.st_dev != b->dev ||
	    st.st_ino != b->ino) {
		(void)close(t);
		errno = ESTALE;
		return fail_step(f, MECH_NAMESPACES, AREA_WRITE, "%s: no "
		    "longer the directory that was checked", b->path);
	}
	if (b->ro)
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	else
		attr.attr_clr = MOUNT_ATTR_RDONLY;
	if (mount_setattr(t, "", AT_EMPTY_PATH, &attr, sizeof(attr)) == -1 &&
	    (b->ro || errno != EPERM)) {
		(void)fail_step(f, MECH_NAMESPACES, AREA_WRITE, "%s: %s",
		    b->path, strerror(errno));
		(void)close(t);
		return -1;
	}
	if (!b->idmap)
		return t;
	for (i = 0; i < nidmap; i++)
		if (idmap_of[i]->owner == b->owner &&
		    idmap_of[i]->group == b->group)
			break;
	memset(&attr, 0, sizeof(attr));
	attr.attr_set = MOUNT_ATTR_IDMAP;
	attr.userns_fd = (uint64_t)idmap_fds[i];
	if (mount_setattr(t, "", AT_EMPTY_PATH, &attr, sizeof(attr)) == -1) {
		(void)fail_step(f, MECH_NAMESPACES, AREA_WRITE, "%s: cannot be "
		    "idmapped (%s): the command, which runs as uid %u, could "
		    "not %s it as its owner", b->path, strerror(errno),
		    SANDBOX_UID, b->ro ? "read" : "write");
		(void)close(t);
		return -1;
	}
	return t;
}

/* Copies of every root, made before anything is mounted over them. */
static int
clone_binds(const struct sandbox_paths *p, int *trees, struct setup_fail *f)
{
	const struct ns_bind *idmap_of[MAX_IDMAPS];
	int idmap_fds[MAX_IDMAPS];
	size_t i, j, n = 0;
	int rv = -1;

	for (i = 0; i < p->nbinds; i++)
		trees[i] = -1;
	for (i = 0; i < p->nbinds; i++) {
		if (!p->binds[i].idmap || p->binds[i].skel)
			continue;
		for (j = 0; j < n; j++)
			if (idmap_of[j]->owner == p->binds[i].owner &&
			    idmap_of[j]->group == p->binds[i].group)
				break;
		if (j < n)
			continue;
		if (n == MAX_IDMAPS) {
			errno = E2BIG;
			(void)fail_step(f, MECH_NAMESPACES, AREA_WRITE,
			    "more than %d owners among the roots", MAX_IDMAPS);
			goto out;
		}
		idmap_of[n] = &p->binds[i];
		if ((idmap_fds[n] = idmap_userns(p->binds[i].owner,
		    p->binds[i].group, f)) == -1)
			goto out;
		n++;
	}
	for (i = 0; i < p->nbinds; i++)
		if (!p->binds[i].skel && (trees[i] = clone_bind(&p->binds[i],
		    idmap_fds, idmap_of, n, f)) == -1)
			goto out;
	rv = 0;
out:
	for (j = 0; j < n; j++)
		(void)close(idmap_fds[j]);
	return rv;
}

/*
 * The roots, mounted back at their paths, shallow first.  above: only the
 * read-only ones at or above a private directory ($HOME=/var/tmp), which
 * then goes on top of them (it stays the command's own, empty and
 * writable); else the others, which go on top of it (a workspace in /tmp,
 * or one the user made /tmp itself), and the skeletons (skel.c).  A
 * read-only root whose denied paths a skeleton hides gets it at once,
 * before the roots beneath it are mounted.
 */
static int
attach_binds(const struct sandbox_paths *p, int *trees, bool above,
    struct setup_fail *f)
{
	const struct ns_bind *b;
	size_t i;

	for (i = 0; i < p->nbinds; i++) {
		b = &p->binds[i];
		if ((trees[i] == -1 && !b->skel) || (b->ro &&
		    sandbox_holds_private(b->path)) != above)
			continue;
		if (mkdir_p(b->path) == -1 && errno != EROFS)
			return fail_step(f, MECH_NAMESPACES, AREA_WRITE,
			    "mount point %s: %s", b->path, strerror(errno));
		if (b->skel) {
			if (skel_empty(b->path, f) == -1)
				return -1;
			continue;
		}
		if (move_mount(trees[i], "", AT_FDCWD, b->path,
		    MOVE_MOUNT_F_EMPTY_PATH) == -1)
			return fail_step(f, MECH_NAMESPACES, AREA_WRITE,
			    "mount %s: %s", b->path, strerror(errno));
		(void)close(trees[i]);
		trees[i] = -1;
		if (b->ro && skel_hide(p, b, f) == -1)
			return -1;
	}
	return 0;
}

/* A private, empty, writable, bounded directory (SPEC 6.1). */
static int
private_dir(const char *dir, const struct sandbox_limits *l,
    struct setup_fail *f)
{
	char opts[128];
	struct stat st;

	if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode))
		return 0;	/* absent, or a link to one we handle */
	limits_tmpfs_options(l, opts, sizeof(opts));
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_LOCAL_SOCKET,
		    "tmpfs on %s: %s", dir, strerror(errno));
	return 0;
}

/* The command's own terminals; never another session's. */
static int
private_devpts(struct setup_fail *f)
{
	struct stat st;

	if (stat("/dev/pts", &st) == -1 || !S_ISDIR(st.st_mode))
		return 0;
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=0620,max=64") == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_LOCAL_SOCKET,
		    "devpts on /dev/pts: %s", strerror(errno));
	if (stat("/dev/ptmx", &st) == 0 &&
	    mount("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND, NULL) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_LOCAL_SOCKET,
		    "/dev/ptmx: %s", strerror(errno));
	return 0;
}

/*
 * A denied path is masked where it leads: an empty read-only directory,
 * or /dev/null.  ~/.netrc -> /dev/null already leads nowhere, and one a
 * skeleton hides is its refused entry already (skel.c).
 */
static int
mask_path(const struct sandbox_paths *p, const char *path,
    struct setup_fail *f)
{
	struct stat st;
	char *real;
	size_t i;
	int rv;

	if ((real = path_real(path)) == NULL)
		return 0;	/* nothing there to hide */
	for (i = 0; i < p->hide.n; i++)
		if (strcmp(p->hide.v[i], real) == 0) {
			free(real);
			return 0;
		}
	if (stat(real, &st) == -1 || S_ISCHR(st.st_mode) ||
	    S_ISBLK(st.st_mode)) {
		free(real);
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		rv = mount("tmpfs", real, "tmpfs", MS_RDONLY | MS_NOSUID |
		    MS_NODEV | MS_NOEXEC, "mode=000,size=4k,nr_inodes=1");
	else
		rv = mount("/dev/null", real, NULL, MS_BIND, NULL);
	if (rv == -1)
		(void)fail_step(f, MECH_NAMESPACES, AREA_HOME_READ,
		    "mask %s: %s", real, strerror(errno));
	free(real);
	return rv;
}

static int
setup_mounts(const struct sandbox_paths *p, const struct sandbox_limits *l,
    struct setup_fail *f)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	int *trees = NULL;
	size_t i;
	int rv = -1;

	/* Nothing mounted here may leak back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_EGRESS,
		    "private mounts: %s", strerror(errno));
	if (p->nbinds > 0 && (trees = calloc(p->nbinds, sizeof(*trees))) ==
	    NULL)
		return fail_step(f, MECH_NAMESPACES, AREA_UNKNOWN,
		    "out of memory");
	if (clone_binds(p, trees, f) == -1)
		goto out;
	if (mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof(ro)) ==
	    -1) {
		(void)fail_step(f, MECH_NAMESPACES, AREA_WRITE,
		    "read-only mounts: %s", strerror(errno));
		goto out;
	}
	if (attach_binds(p, trees, true, f) == -1)
		goto out;
	for (i = 0; sandbox_private_dirs[i] != NULL; i++)
		if (private_dir(sandbox_private_dirs[i], l, f) == -1)
			goto out;
	if (private_devpts(f) == -1 || attach_binds(p, trees, false, f) == -1 ||
	    skel_seal(p, f) == -1)
		goto out;
	for (i = 0; i < p->deny.n; i++)
		if (mask_path(p, p->deny.v[i], f) == -1)
			goto out;
	rv = 0;
out:
	for (i = 0; trees != NULL && i < p->nbinds; i++)
		if (trees[i] != -1)
			(void)close(trees[i]);
	free(trees);
	return rv;
}

int
ns_enter(const struct sandbox_paths *p, const struct sandbox_limits *l,
    bool root, int *listen_fd, unsigned short *port, struct setup_fail *f)
{
	*listen_fd = -1;
	if (!root && enter_userns(f) == -1)
		return -1;
	/*
	 * The idmap namespaces are made by forks: before the PID namespace,
	 * whose first child would be its init.
	 */
	if (unshare(CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_EGRESS,
		    "namespaces: %s", strerror(errno));
	if (lo_up(f) == -1 || (*listen_fd = make_listener(port, f)) == -1 ||
	    setup_mounts(p, l, f) == -1)
		goto fail;
	if (unshare(CLONE_NEWPID) == -1) {
		(void)fail_step(f, MECH_NAMESPACES, AREA_EGRESS,
		    "PID namespace: %s", strerror(errno));
		goto fail;
	}
	return 0;
fail:
	if (*listen_fd != -1)
		(void)close(*listen_fd);
	*listen_fd = -1;
	return -1;
}

/* In the PID namespace's init: its own /proc. */
int
ns_mount_proc(struct setup_fail *f)
{
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_EGRESS, "/proc: %s",
		    strerror(errno));
	return 0;
}

/*
 * A root caller's init has made the user namespace it and the command
 * share: it is mapped to SANDBOX_UID alone, so that neither is root there
 * nor anywhere.  Written by setup, which holds the capabilities over it.
 */
int
ns_user_map(int procfd, pid_t pid, struct setup_fail *f)
{
	char path[64], map[64];

	snprintf(map, sizeof(map), "%u %u 1\n", SANDBOX_UID, SANDBOX_UID);
	snprintf(path, sizeof(path), "%ld/uid_map", (long)pid);
	if (write_file_at(procfd, path, map) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_WRITE, "uid map: %s",
		    strerror(errno));
	snprintf(map, sizeof(map), "%u %u 1\n", SANDBOX_GID, SANDBOX_GID);
	snprintf(path, sizeof(path), "%ld/gid_map", (long)pid);
	if (write_file_at(procfd, path, map) == -1)
		return fail_step(f, MECH_NAMESPACES, AREA_WRITE, "gid map: %s",
		    strerror(errno));
	return 0;
}
