/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run's private directory (SPEC 6.3): where a confined command's
 * TMPDIR, caches and npmrc stand-in live, so that nothing of ours is left
 * in its workspace (a checkout whose `git status` must stay clean).
 *
 *   namespaces: DIR = /tmp/harn-egressd, on the command's own tmpfs (the
 *     next private directory when a write root covers /tmp), made by the
 *     command itself before it execs; it goes with the mount namespace,
 *     whatever ends the run.
 *   landlock: there is no private mount.  harn-egressd makes TOP with
 *     mkdtemp in $TMPDIR or /tmp (outside every root), 0700 (0711 when
 *     the command is another uid), and DIR = TOP/run, the command's own,
 *     0700: no other user reads or plants there.  DIR is one more write
 *     root of the request; everything below TOP is removed at the end by
 *     descriptors, never following a link the command left there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define RM_DEPTH	32	/* deeper directories are moved up, not held */
#define MAX_ROOTS	128	/* roots looked at for a private directory */

int
rundir_pick(const char *const *privates, const bool *exists,
    const char *const *roots, const bool *writable, size_t nroots)
{
	char own[PATH_MAX];
	size_t k;
	int i;

	for (i = 0; privates[i] != NULL; i++) {
		if (!exists[i])
			continue;
		snprintf(own, sizeof(own), "%s/%s", privates[i], RUNDIR_INSIDE);
		for (k = 0; k < nroots; k++)
			if ((writable[k] && path_under(privates[i], roots[k])) ||
			    path_under(roots[k], own))
				break;
		if (k == nroots)
			return i;
	}
	return -1;
}

/* namespaces: which private directory DIR is in. */
static int
pick_inside(struct rundir *rd, const struct sandbox_request *r, char *err,
    size_t errlen)
{
	const char *roots[MAX_ROOTS];
	bool writable[MAX_ROOTS], exists[8] = { false };
	struct stat st;
	size_t i, n = 0;
	int k;

#define ROOT(p, w) do { if (n < MAX_ROOTS) { roots[n] = (p); \
	writable[n++] = (w); } } while (0)
	ROOT(r->workspace, true);
	for (i = 0; i < r->nrw_roots; i++)
		ROOT(r->rw_roots[i], true);
	for (i = 0; i < r->nro_roots; i++)
		ROOT(r->ro_roots[i], false);
	for (i = 0; i < r->nsocket_roots; i++)
		ROOT(r->socket_roots[i], false);
	if (r->home != NULL && r->profile != PROFILE_WORKSPACE_PATHS)
		ROOT(r->home, false);
#undef ROOT
	for (i = 0; sandbox_private_dirs[i] != NULL && i < NELEM(exists); i++)
		exists[i] = lstat(sandbox_private_dirs[i], &st) == 0 &&
		    S_ISDIR(st.st_mode);
	if ((k = rundir_pick(sandbox_private_dirs, exists, roots, writable,
	    n)) == -1) {
		snprintf(err, errlen, "no private directory for TMPDIR and the "
		    "caches: a write root covers each of /tmp, /var/tmp, /run, "
		    "/dev/shm");
		return -1;
	}
	if ((rd->dir = path_join(sandbox_private_dirs[k], RUNDIR_INSIDE)) ==
	    NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Can uid (gid) search every directory from / down to dir? */
static bool
searchable(const char *dir, uid_t uid, gid_t gid)
{
	char buf[PATH_MAX];
	struct stat st;
	mode_t x;
	size_t i, n = strlen(dir);

	for (i = 1; i <= n && i < sizeof(buf); i++) {
		if (dir[i] != '/' && dir[i] != '\0')
			continue;
		memcpy(buf, dir, i);
		buf[i] = '\0';
		if (stat(buf, &st) == -1)
			return false;
		x = st.st_uid == uid ? S_IXUSR : st.st_gid == gid ? S_IXGRP :
		    S_IXOTH;
		if ((st.st_mode & x) == 0)
			return false;
	}
	return true;
}

/* At or below the workspace or a write root? */
static bool
in_roots(const struct sandbox_request *r, const char *path)
{
	size_t i;

	if (path_under(path, r->workspace))
		return true;
	for (i = 0; i < r->nrw_roots; i++)
		if (path_under(path, r->rw_roots[i]))
			return true;
	return false;
}

/*
 * Where TOP may be made: $TMPDIR, else /tmp, /var/tmp, /dev/shm; the
 * first canonical one outside the workspace and the write roots, owned by
 * root or us and writable by no one else unless sticky (no one renames
 * TOP away), and searchable by the command's uid.  NULL when none is.
 */
static char *
pick_base(const struct sandbox_request *r, uid_t uid, gid_t gid)
{
	const char *cand[] = { getenv("TMPDIR"), "/tmp", "/var/tmp",
	    "/dev/shm" };
	struct stat st;
	char *c;
	size_t i;

	for (i = 0; i < NELEM(cand); i++) {
		if (cand[i] == NULL || cand[i][0] != '/' ||
		    (c = path_real(cand[i])) == NULL)
			continue;
		if (!in_roots(r, c) && stat(c, &st) == 0 &&
		    S_ISDIR(st.st_mode) && (st.st_uid == 0 ||
		    st.st_uid == geteuid()) && ((st.st_mode & 022) == 0 ||
		    (st.st_mode & S_ISVTX) != 0) && searchable(c, uid, gid))
			return c;
		free(c);
	}
	return NULL;
}

/* DIR's contents: tmp/, cache/, the stand-in; chowned to uid when set. */
static int
fill_at(int dfd, const struct rundir *rd, bool give, uid_t uid, gid_t gid)
{
	static const char *const dirs[] = { "tmp", "cache" };
	size_t i, off;
	ssize_t n;
	int fd;

	for (i = 0; i < NELEM(dirs); i++)
		if (mkdirat(dfd, dirs[i], 0700) == -1 || (give &&
		    fchownat(dfd, dirs[i], uid, gid, AT_SYMLINK_NOFOLLOW) ==
		    -1))
			return -1;
	if (rd->npmrc == NULL)
		return 0;
	if ((fd = openat(dfd, RUNDIR_NPMRC, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		return -1;
	for (off = 0; off < rd->npmrc_len; off += (size_t)n)
		if ((n = write(fd, rd->npmrc + off, rd->npmrc_len - off)) <= 0)
			break;
	if (off < rd->npmrc_len || (give && fchown(fd, uid, gid) == -1)) {
		(void)close(fd);
		return -1;
	}
	return close(fd);
}

int
rundir_fill_inside(const struct rundir *rd, char *err, size_t errlen)
{
	int fd;

	if (mkdir(rd->dir, 0700) == -1 || (fd = open(rd->dir, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", rd->dir, strerror(errno));
		return -1;
	}
	if (fill_at(fd, rd, false, 0, 0) == -1) {
		snprintf(err, errlen, "%s: %s", rd->dir, strerror(errno));
		(void)close(fd);
		return -1;
	}
	(void)close(fd);
	return 0;
}

/* The command's uid and gid under the plan. */
static void
command_ids(const struct sandbox_plan *p, uid_t *uid, gid_t *gid)
{
	*uid = geteuid();
	*gid = getegid();
	if (p->identity == IDENTITY_SANDBOX_UID) {
		*uid = SANDBOX_UID;
		*gid = SANDBOX_GID;
	} else if (p->identity == IDENTITY_ROOT)
		*uid = *gid = 0;
}

/* landlock: TOP and DIR made, held by descriptors, never by a path. */
static int
make_host(struct rundir *rd, const struct sandbox_request *r,
    const struct sandbox_plan *p, char *err, size_t errlen)
{
	char *base, *name = NULL;
	struct stat st;
	uid_t uid;
	gid_t gid;
	int top = -1, run = -1, rv = -1;

	command_ids(p, &uid, &gid);
	if ((base = pick_base(r, uid, gid)) == NULL) {
		snprintf(err, errlen, "no directory for the run's TMPDIR and "
		    "caches: none of $TMPDIR, /tmp, /var/tmp, /dev/shm lies "
		    "outside the workspace and write roots, lets only its "
		    "owner (root or us) rename in it and the command search "
		    "it");
		return -1;
	}
	if (asprintf(&name, "%s/harn-egressd.XXXXXX", base) == -1) {
		name = NULL;
		goto fail;
	}
	if ((rd->basefd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC)) ==
	    -1 || mkdtemp(name) == NULL)
		goto fail;
	rd->top = name;
	name = NULL;
	if ((top = openat(rd->basefd, strrchr(rd->top, '/') + 1, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    fstat(top, &st) == -1)
		goto fail;
	/* Ours, as mkdtemp made it: nothing swapped in since. */
	if (st.st_uid != geteuid()) {
		errno = EPERM;
		goto fail;
	}
	if ((uid != geteuid() && fchmod(top, 0711) == -1) ||
	    mkdirat(top, "run", 0700) == -1 ||
	    (run = openat(top, "run", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 ||
	    (uid != geteuid() && fchown(run, uid, gid) == -1) ||
	    fill_at(run, rd, uid != geteuid(), uid, gid) == -1 ||
	    (rd->dir = path_join(rd->top, "run")) == NULL)
		goto fail;
	rv = 0;
fail:
	if (rv == -1)
		snprintf(err, errlen, "%s: %s", rd->top != NULL ? rd->top :
		    base, errno != 0 ? strerror(errno) : "out of memory");
	if (run != -1)
		(void)close(run);
	if (top != -1)
		(void)close(top);
	free(name);
	free(base);
	return rv;
}

int
rundir_make(struct rundir *rd, const struct sandbox_request *r,
    const struct sandbox_plan *p, char *err, size_t errlen)
{
	size_t n = r->nrw_roots;

	memset(rd, 0, sizeof(*rd));
	rd->basefd = -1;
	rd->req = *r;
	if (p->confinement == CONFINEMENT_NONE)
		return 0;
	if (sandbox_npmrc_read(r, &rd->npmrc, &rd->npmrc_len, err,
	    errlen) == -1)
		return -1;
	errno = 0;
	if (p->confinement == CONFINEMENT_NAMESPACES)
		return pick_inside(rd, r, err, errlen);
	if ((rd->rw = calloc(n + 1, sizeof(*rd->rw))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (make_host(rd, r, p, err, errlen) == -1)
		return -1;
	if (n > 0)
		memcpy(rd->rw, r->rw_roots, n * sizeof(*rd->rw));
	rd->rw[n] = rd->dir;
	rd->req.rw_roots = rd->rw;
	rd->req.nrw_roots = n + 1;
	return 0;
}

/*
 * A directory to empty, opened without following a link, and made ours
 * to search and write (the command's mode on it, 0500 or 000, would keep
 * out a caller without CAP_DAC_OVERRIDE); chmod by the descriptor's
 * /proc name reaches that very directory, whatever its name is now.
 */
static int
open_dir(int parent, const char *name)
{
	char path[64];
	int fd;

	if ((fd = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	(void)chmod(path, 0700);
	parent = fd;
	fd = openat(parent, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	(void)close(parent);
	return fd;
}

/*
 * Empty the directory dfd.  A link is removed, never followed; a
 * directory deeper than RM_DEPTH is moved up into top (renameat, which
 * follows nothing) and emptied in a later round, so no depth the command
 * made runs us out of descriptors.  The number of entries left, or -1.
 */
static long
empty_dir(int top, int dfd, int depth, unsigned *seq)
{
	struct dirent *de;
	char moved[32];
	long left = 0;
	DIR *d;
	int fd, sub;

	if ((fd = dup(dfd)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			(void)close(fd);
		return -1;
	}
	rewinddir(d);	/* the offset is shared with dfd, read before */
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dfd, de->d_name, 0) == 0)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			left++;
			continue;
		}
		if (depth >= RM_DEPTH) {
			/* Left for the next round either way. */
			snprintf(moved, sizeof(moved), ".rm%u", ++*seq);
			(void)renameat(dfd, de->d_name, top, moved);
			left++;
			continue;
		}
		if ((sub = open_dir(dfd, de->d_name)) == -1) {
			left++;
			continue;
		}
		left += empty_dir(top, sub, depth + 1, seq) > 0;
		(void)close(sub);
		if (unlinkat(dfd, de->d_name, AT_REMOVEDIR) == -1)
			left++;
	}
	(void)closedir(d);
	return left;
}

/* Empty the directory open at fd, round after round; 0 when it is. */
static int
empty_all(int fd)
{
	unsigned seq = 0;
	long left = 1;
	int round;

	/* Each round empties what the last one moved up. */
	for (round = 0; left > 0 && round < 1000; round++)
		left = empty_dir(fd, fd, 0, &seq);
	return left == 0 ? 0 : -1;
}

int
rundir_remove(struct rundir *rd)
{
	const char *why = NULL;
	int top, rv = 0;

	if (rd->top != NULL) {
		if ((top = open_dir(rd->basefd, strrchr(rd->top, '/') + 1)) ==
		    -1)
			why = errno == ENOENT ? NULL : strerror(errno);
		else if (empty_all(top) == -1)
			why = "entries left";
		if (top != -1)
			(void)close(top);
		if (top != -1 && why == NULL && unlinkat(rd->basefd,
		    strrchr(rd->top, '/') + 1, AT_REMOVEDIR) == -1)
			why = strerror(errno);
		if (why != NULL) {
			fprintf(stderr, "harn-egressd: the run's private "
			    "directory %s: not removed: %s\n", rd->top, why);
			rv = -1;
		}
	}
	if (rd->basefd != -1)
		(void)close(rd->basefd);
	free(rd->top);
	free(rd->dir);
	free(rd->rw);
	free(rd->npmrc);
	memset(rd, 0, sizeof(*rd));
	rd->basefd = -1;
	return rv;
}

void
rundir_orphaned(const struct rundir *rd)
{
	int fd;

	if (rd->top == NULL || (fd = open_dir(AT_FDCWD, rd->dir)) == -1)
		return;
	/* As the command: what it may remove, no more; no link followed. */
	if (empty_all(fd) == 0 && rmdir(rd->dir) == 0)
		(void)rmdir(rd->top);
	(void)close(fd);
}
