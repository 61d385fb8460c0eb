/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Skeletons (nsbinds.c plans them; the set-up child mounts them here):
 * directories of the namespaces confinement's own, a small read-only
 * tmpfs each, standing where a directory of the host was.
 *
 *   - empty: on the way to a root that the command may not search.  Only
 *     the mount points of the roots beneath are made in it.
 *   - hiding: each directory on the way from a read-only root to a
 *     denied path under it, holding every other entry of the host's
 *     directory, bound back (a link made again), and the denied one as
 *     an empty entry no one may open.  What the host makes there during
 *     the run, or puts in its place, does not show: the skeleton's entries are fixed at set-up,
 *     and an entry replaced on the host drops out (its mount goes with
 *     the name).  A skeleton keeps its directory's mode and owner.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define SKEL_ENTRIES	8192	/* entries of one directory, at most */
#define SKEL_HIDES	512	/* denied paths under one root, at most */
#define SKEL_DEPTH	32

static int fail(struct setup_fail *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(struct setup_fail *f, const char *fmt, ...)
{
	va_list ap;

	f->err = errno;
	f->mech = MECH_NAMESPACES;
	f->area = AREA_HOME_READ;
	va_start(ap, fmt);
	(void)vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	return -1;
}

static int
seal(int fd)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };

	return mount_setattr(fd, "", AT_EMPTY_PATH, &ro, sizeof(ro));
}

int
skel_empty(const char *path, struct setup_fail *f)
{
	if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    "mode=0755,size=256k,nr_inodes=4096") == -1)
		return fail(f, "skeleton on %s: %s", path, strerror(errno));
	return 0;
}

int
skel_seal(const struct sandbox_paths *p, struct setup_fail *f)
{
	size_t i;
	int fd, rv;

	for (i = 0; i < p->nbinds; i++) {
		if (!p->binds[i].skel)
			continue;
		if ((fd = open(p->binds[i].path, O_PATH | O_DIRECTORY |
		    O_CLOEXEC)) == -1)
			return fail(f, "skeleton %s: %s", p->binds[i].path,
			    strerror(errno));
		rv = seal(fd);
		(void)close(fd);
		if (rv == -1)
			return fail(f, "skeleton %s read-only: %s",
			    p->binds[i].path, strerror(errno));
	}
	return 0;
}

/* The names in dir, but . and .. (at most SKEL_ENTRIES). */
static int
list(int dfd, struct strv *names)
{
	struct dirent *de;
	DIR *d;
	int fd;

	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		(void)close(fd);
		return -1;
	}
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (names->n == SKEL_ENTRIES) {
			errno = E2BIG;
			break;
		}
		if (strv_add(names, strdup(de->d_name)) == -1)
			break;
	}
	(void)closedir(d);
	return errno == 0 ? 0 : -1;
}

/* 'h': rels holds name (hidden), 'w': a path below it (the way), or 0. */
static char
role(char *const *rels, size_t n, const char *name)
{
	size_t i, len = strlen(name);
	char r = 0;

	for (i = 0; i < n; i++) {
		if (strncmp(rels[i], name, len) != 0)
			continue;
		if (rels[i][len] == '\0')
			return 'h';
		if (rels[i][len] == '/')
			r = 'w';
	}
	return r;
}

/* One entry of the host's directory dfd, in the skeleton tfd. */
static int
bind_back(int dfd, int tfd, const char *name)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;
	int t, rv;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;	/* gone since */
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlinkat(dfd, name, target, sizeof(target) - 1)) ==
		    -1)
			return -1;
		target[n] = '\0';
		return symlinkat(target, tfd, name);
	}
	if ((t = open_tree(dfd, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	    AT_RECURSIVE | AT_SYMLINK_NOFOLLOW)) == -1)
		return -1;
	rv = S_ISDIR(st.st_mode) ? mkdirat(tfd, name, 0700) :
	    mknodat(tfd, name, S_IFREG | 0600, 0);
	if (rv == 0)
		rv = move_mount(t, "", tfd, name, MOVE_MOUNT_F_EMPTY_PATH);
	(void)close(t);
	return rv;
}

/*
 * A denied entry, as the masks of ns.c show one: refused (EACCES), an
 * empty directory or file that no one may read or enter.
 */
static int
refused(int dfd, int tfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;
	if (S_ISDIR(st.st_mode) ? mkdirat(tfd, name, 0) == -1 :
	    mknodat(tfd, name, S_IFREG, 0) == -1)
		return -1;
	return fchmodat(tfd, name, 0, 0);
}

/* A tmpfs at path with dir's mode and owner (as it may: a user namespace
 * maps only some owners); its root, opened, or -1. */
static int
mount_like(const char *path, const struct stat *dir, size_t n)
{
	char opts[160];

	snprintf(opts, sizeof(opts), "mode=%04o,uid=%u,gid=%u,size=1m,"
	    "nr_inodes=%zu", (unsigned)(dir->st_mode & 07777),
	    (unsigned)dir->st_uid, (unsigned)dir->st_gid, n + 16);
	if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    opts) == -1) {
		snprintf(opts, sizeof(opts), "mode=%04o,size=1m,nr_inodes=%zu",
		    (unsigned)(dir->st_mode & 07777), n + 16);
		if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV |
		    MS_NOEXEC, opts) == -1)
			return -1;
	}
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int hide_dir(const char *, int, char *const *, size_t, int,
    struct setup_fail *);

/* The way down: a skeleton of its own at path/name. */
static int
way(const char *path, int dfd, int tfd, const char *name, char *const *rels,
    size_t n, int depth, struct setup_fail *f)
{
	char sub[PATH_MAX], *below[SKEL_HIDES];
	size_t i, k = 0, len = strlen(name);
	int cfd, rv;

	if ((cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return bind_back(dfd, tfd, name) == -1 ? fail(f, "%s/%s: %s",
		    path, name, strerror(errno)) : 0;	/* not a directory */
	for (i = 0; i < n && k < NELEM(below); i++)
		if (strncmp(rels[i], name, len) == 0 && rels[i][len] == '/')
			below[k++] = rels[i] + len + 1;
	snprintf(sub, sizeof(sub), "%s/%s", path, name);
	rv = mkdirat(tfd, name, 0700) == -1 ? fail(f, "%s: %s", sub,
	    strerror(errno)) : hide_dir(sub, cfd, below, k, depth + 1, f);
	(void)close(cfd);
	return rv;
}

/*
 * The skeleton at path of the host's directory dfd, without the names
 * rels holds, and with a skeleton of its own for each directory on the
 * way to a deeper one.
 */
static int
hide_dir(const char *path, int dfd, char *const *rels, size_t n, int depth,
    struct setup_fail *f)
{
	struct strv names = { NULL, 0, 0 };
	struct stat st;
	size_t i;
	int tfd = -1, rv = -1;
	char r;

	if (depth > SKEL_DEPTH) {
		errno = ELOOP;
		return fail(f, "%s: too deep to hide a denied path", path);
	}
	if (fstat(dfd, &st) == -1 || list(dfd, &names) == -1) {
		(void)fail(f, "%s: %s", path, strerror(errno));
		goto out;
	}
	if ((tfd = mount_like(path, &st, names.n)) == -1) {
		(void)fail(f, "skeleton on %s: %s", path, strerror(errno));
		goto out;
	}
	for (i = 0; i < names.n; i++) {
		if ((r = role(rels, n, names.v[i])) == 'h') {
			if (refused(dfd, tfd, names.v[i]) == -1) {
				(void)fail(f, "%s/%s: %s", path, names.v[i],
				    strerror(errno));
				goto out;
			}
			continue;
		}
		if (r == 'w') {
			if (way(path, dfd, tfd, names.v[i], rels, n, depth,
			    f) == -1)
				goto out;
		} else if (bind_back(dfd, tfd, names.v[i]) == -1) {
			(void)fail(f, "%s/%s: %s", path, names.v[i],
			    strerror(errno));
			goto out;
		}
	}
	if (seal(tfd) == -1) {
		(void)fail(f, "skeleton %s read-only: %s", path,
		    strerror(errno));
		goto out;
	}
	rv = 0;
out:
	if (tfd != -1)
		(void)close(tfd);
	strv_free(&names);
	return rv;
}

int
skel_hide(const struct sandbox_paths *p, const struct ns_bind *b,
    struct setup_fail *f)
{
	char *rels[SKEL_HIDES];
	size_t i, n = 0, len = strlen(b->path);
	int dfd, rv;

	for (i = 0; i < p->hide.n; i++) {
		if (!path_under(p->hide.v[i], b->path) ||
		    p->hide.v[i][len] != '/' || nsb_view(p, p->hide.v[i]) != b)
			continue;
		if (n == NELEM(rels)) {
			errno = E2BIG;
			return fail(f, "%s: more than %d denied paths to hide",
			    b->path, SKEL_HIDES);
		}
		rels[n++] = p->hide.v[i] + len + 1;
	}
	if (n == 0)
		return 0;
	if ((dfd = open(b->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return fail(f, "%s: %s", b->path, strerror(errno));
	rv = hide_dir(b->path, dfd, rels, n, 0, f);
	(void)close(dfd);
	return rv;
}
