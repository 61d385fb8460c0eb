/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What only root may read (SPEC 6.5), for a root caller's command that
 * keeps uid 0 without a capability: it owns root's files, so the mode
 * bits that keep /etc/shadow, SSH host keys or root's home from other
 * users do not keep them from it.  Landlock is made to: every file the
 * command could read by owner or group bits, and no other user could, is
 * found under the system roots it is granted, and denied like a
 * credential (the grant is split around it).  The command then reads
 * what any other user would, no more.
 *
 * Found by walking the roots at each run (a mode can change at any time,
 * and no directory's time says so), without following links: a link's
 * target is judged where it lies.  A directory no other user may enter is
 * denied whole and not walked, unless a root the command was given lies
 * in it (a workspace in root's 0700 home): then each of its entries is
 * denied but the way to that root, and Landlock, split around them,
 * leaves what is made there later unreadable too.  A root the command
 * was given is its own, and not walked (SPEC 6.5: what only root may read
 * is denied outside the workspace and the roots granted).  /proc and
 * /sys are not walked: the first
 * cannot be split (every process has its own directory there, made after
 * the rules), and the landlock confinement grants only named parts of the
 * second to such a command (paths.c).
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

#define GROUPS_MAX	256
#define DEPTH_MAX	64

struct walk {
	uid_t		 uid;
	gid_t		 groups[GROUPS_MAX + 1];
	size_t		 ngroups;
	struct strv	*out;
	const char *const *keep;	/* the roots given (canonical) */
	size_t		 nkeep;
};

/* path in a root given (2), on the way to one (1), or neither (0). */
static int
kept(const struct walk *w, const char *path)
{
	size_t i;
	int k = 0;

	for (i = 0; i < w->nkeep; i++) {
		if (path_under(path, w->keep[i]))
			return 2;
		if (path_under(w->keep[i], path))
			k = 1;
	}
	return k;
}

static bool
in_groups(const struct walk *w, gid_t gid)
{
	size_t i;

	for (i = 0; i < w->ngroups; i++)
		if (w->groups[i] == gid)
			return true;
	return false;
}

/*
 * Could the command read st (enter it, a directory) where no other user
 * could?  want is the "others" bit: read for a file, search for a
 * directory.
 */
static bool
only_ours(const struct walk *w, const struct stat *st, mode_t want)
{
	bool ours;

	if (st->st_mode & want)
		return false;		/* anyone may */
	if (st->st_uid == w->uid)
		ours = (st->st_mode & (want << 6)) != 0;
	else if (in_groups(w, st->st_gid))
		ours = (st->st_mode & (want << 3)) != 0;
	else
		ours = false;		/* not us either */
	return ours;
}

static int
add(struct walk *w, const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name) ==
	    -1)
		return -1;
	return strv_add(w->out, p);
}

/*
 * The entries of the directory fd (at path) that only we may read.
 * sealed: no other user may enter it or a directory above it, so that
 * every entry is ours alone but the way to a root given.
 */
static int
walk_dir(struct walk *w, int fd, const char *path, int depth, bool sealed)
{
	char child[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int cfd, k, rv = 0;
	bool closed;

	if ((d = fdopendir(fd)) == NULL) {
		(void)close(fd);
		return 0;	/* unreadable to us: unreadable to it */
	}
	while (rv == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(child, sizeof(child), "%s/%s", strcmp(path, "/") ==
		    0 ? "" : path, de->d_name) >= (int)sizeof(child) ||
		    (k = kept(w, child)) == 2)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1 || S_ISLNK(st.st_mode))
			continue;
		if (!S_ISDIR(st.st_mode)) {
			if (sealed || only_ours(w, &st, S_IROTH))
				rv = add(w, path, de->d_name);
			continue;
		}
		closed = sealed || only_ours(w, &st, S_IXOTH);
		if (closed && k == 0) {
			rv = add(w, path, de->d_name);
			continue;
		}
		if (depth >= DEPTH_MAX || (cfd = openat(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
			/* Not walked: all of it, if it is ours alone. */
			if (closed)
				rv = add(w, path, de->d_name);
			continue;
		}
		rv = walk_dir(w, cfd, child, depth + 1, closed);
	}
	(void)closedir(d);
	return rv;
}

/*
 * Add to out every path under root that only a process of uid and
 * groups, and no other user, may read; root itself too, when it is one
 * and holds none of keep (the roots given, canonical), which are never
 * walked.  0, or -1 (out of memory) with err set.
 */
int
rootonly_find(const char *root, uid_t uid, const char *const *keep,
    size_t nkeep, struct strv *out, char *err, size_t errlen)
{
	struct walk w = { .uid = uid, .out = out, .keep = keep,
	    .nkeep = nkeep };
	struct stat st;
	bool closed;
	int n, fd;

	if ((n = getgroups(GROUPS_MAX, w.groups)) == -1)
		n = 0;
	w.ngroups = (size_t)n;
	w.groups[w.ngroups++] = getegid();
	if ((fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return 0;	/* absent: nothing granted there */
	if (fstat(fd, &st) == -1) {
		(void)close(fd);
		return 0;
	}
	closed = only_ours(&w, &st, S_IXOTH);
	if (kept(&w, root) == 2 || (closed && kept(&w, root) == 0)) {
		(void)close(fd);
		if (kept(&w, root) == 0 && strv_add(out, strdup(root)) == -1)
			goto nomem;
		return 0;
	}
	if (walk_dir(&w, fd, root, 0, closed) == -1)
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}
