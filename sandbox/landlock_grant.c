/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Each grant of a Landlock build (landlock.c) added as rules: one rule
 * on its root, or, when it holds a denied path (landlock_deny.c) or a
 * weaker grant, rules on its other entries, down to the denied path's
 * parent.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox/landlock_int.h"

static uint64_t
grant_access(enum landlock_grant g, uint64_t handled)
{
	switch (g) {
	case GRANT_RX:
		return FS_RX & handled;
	case GRANT_RO:
		return FS_RO & handled;
	case GRANT_RW:
		return handled;
	}
	return 0;
}

static bool
same(const struct ident *a, const struct stat *sb)
{
	return a->dev == sb->st_dev && a->ino == sb->st_ino;
}

/* path is dir or below it; both canonical. */
static bool
under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1)
		return true;	/* "/" */
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

/* One rule on fd; where names the grant it belongs to, for errors. */
static int
add_rule(struct build *b, int fd, uint64_t access, bool isdir,
    const char *where)
{
	struct ll_path_beneath_attr pb;

	if (!isdir)
		access &= FS_FILE;
	if (access == 0)
		return 0;
	if (b->st->rules >= b->max) {
		ll_seterr(b, "%s: too many entries to grant around the denied "
		    "paths (limit %u rules)", where, b->max);
		return -1;
	}
	pb.allowed_access = access;
	pb.parent_fd = fd;
	if (ll_add_rule(b->fd, LL_RULE_PATH_BENEATH, &pb, 0) == -1) {
		ll_seterr(b, "add rule for %s: %s", where, strerror(errno));
		return -1;
	}
	b->st->rules++;
	return 0;
}

/*
 * An entry reached by a path we did not expect, whose identity is that
 * of a denied path, or of a directory on the way to one: a bind mount, a
 * rename since the listing, a hard link.  Granting it would grant the
 * denied path too.
 */
static bool
aliases_denied(const struct build *b, const struct stat *sb)
{
	const struct denied *d;
	size_t i, k;

	for (i = 0; i < b->nd; i++) {
		d = &b->d[i];
		/* A denied file under another name: renamed, or swapped in. */
		if (d->exists && same(&d->self, sb))
			return true;
		if (!S_ISDIR(sb->st_mode))
			continue;
		for (k = 0; k < d->nup; k++)
			if (same(&d->up[k], sb))
				return true;
	}
	return false;
}

/* Length of rel's first component; *whole when there is nothing below. */
static size_t
first(const char *rel, bool *whole)
{
	size_t n = strcspn(rel, "/");

	*whole = rel[n] == '\0';
	return n;
}

/* Is name a denied entry (2) or on the way to one (1) of this directory? */
static int
entry_kind(const char *const *rel, size_t nrel, const char *name)
{
	size_t i, n;
	bool whole;
	int kind = 0;

	for (i = 0; i < nrel; i++) {
		n = first(rel[i], &whole);
		if (strlen(name) != n || strncmp(rel[i], name, n) != 0)
			continue;
		if (whole)
			return 2;
		kind = 1;
	}
	return kind;
}

/* One entry of a directory being split; symlinks get nothing. */
static int
grant_entry(struct build *b, int dirfd, const char *name, uint64_t access)
{
	struct stat sb;
	int fd, rv = -1;

	if ((fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return 0;	/* gone since the listing */
		ll_seterr(b, "%s/%s: %s", b->path, name, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1) {
		ll_seterr(b, "%s/%s: %s", b->path, name, strerror(errno));
		goto out;
	}
	/*
	 * Landlock accepts a rule on a symlink but checks the target's own
	 * path on open, so such a rule would never be used.  The target is
	 * reachable only where it is granted itself.
	 */
	if (S_ISLNK(sb.st_mode) || aliases_denied(b, &sb)) {
		rv = 0;
		goto out;
	}
	rv = add_rule(b, fd, access, S_ISDIR(sb.st_mode), b->path);
out:
	(void)close(fd);
	return rv;
}

/* Grant every entry of dirfd but those denied or on the way to one. */
static int
grant_entries(struct build *b, int dirfd, const char *const *rel,
    size_t nrel, uint64_t access)
{
	struct dirent *de;
	DIR *dir;
	int fd, rv = -1;

	if ((fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (dir = fdopendir(fd)) == NULL) {
		ll_seterr(b, "%s: cannot list to grant around a denied path: "
		    "%s", b->path, strerror(errno));
		if (fd != -1)
			(void)close(fd);
		return -1;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(dir)) == NULL)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    entry_kind(rel, nrel, de->d_name) != 0)
			continue;
		if (grant_entry(b, dirfd, de->d_name, access) == -1)
			goto out;
	}
	if (errno != 0) {
		ll_seterr(b, "%s: cannot list: %s", b->path, strerror(errno));
		goto out;
	}
	rv = 0;
out:
	(void)closedir(dir);
	return rv;
}

static int expand(struct build *, int, const char *const *, size_t,
    uint64_t);

/*
 * The rights of what rel (or what it leads to) holds back: a weaker
 * grant's (rel points into its real path), or a denied path's, none.
 */
static uint64_t
rights_of(const struct build *b, const char *rel)
{
	size_t i;

	for (i = 0; i < b->ngrants; i++)
		if (b->canon[i] != NULL && rel >= b->canon[i] &&
		    rel < b->canon[i] + strlen(b->canon[i]))
			return grant_access(b->grants[i].grant, b->handled);
	return 0;
}

/*
 * Go down into the entry (of n bytes) that rel[i] starts with, taking
 * every denied path below it along.
 */
static int
descend(struct build *b, int dirfd, const char *const *rel, size_t nrel,
    size_t i, size_t n, uint64_t access)
{
	const char **sub = NULL;
	char name[NAME_MAX + 1];
	size_t j, nsub = 0, plen = strlen(b->path);
	int fd = -1, rv = -1;

	if (n > NAME_MAX || plen + 1 + n >= sizeof(b->path)) {
		ll_seterr(b, "%s: name too long", b->path);
		return -1;
	}
	memcpy(name, rel[i], n);
	name[n] = '\0';
	if ((sub = calloc(nrel, sizeof(*sub))) == NULL) {
		ll_seterr(b, "out of memory");
		return -1;
	}
	for (j = 0; j < nrel; j++)
		if (strncmp(rel[j], name, n) == 0 && rel[j][n] == '/')
			sub[nsub++] = rel[j] + n + 1;
	(void)snprintf(b->path + plen, sizeof(b->path) - plen, "%s%s",
	    plen == 1 ? "" : "/", name);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 && errno == ENOENT) {
		rv = 0;		/* gone: nothing left to grant below */
		goto out;
	}
	if (fd == -1) {
		ll_seterr(b, "%s: cannot list to grant around a denied path: "
		    "%s", b->path, strerror(errno));
		goto out;
	}
	rv = expand(b, fd, sub, nsub, access);
out:
	b->path[plen] = '\0';
	if (fd != -1)
		(void)close(fd);
	free(sub);
	return rv;
}

/*
 * The directory dirfd (b->path) is granted access, except for the paths
 * rel[], relative to it: grant its entries instead, going down into
 * those on the way to a denied path.
 */
static int
expand(struct build *b, int dirfd, const char *const *rel, size_t nrel,
    uint64_t access)
{
	size_t i, j, n;
	uint64_t keep;
	bool whole, done;

	b->st->expanded++;
	/*
	 * With the denied paths masked by read-only mounts, the directory
	 * itself may keep its structural rights (list, create, remove): what
	 * they reach below it in a denied path is an empty read-only mount.
	 * Without masks it gets none, or they would reach the denied path.
	 */
	if (b->masked && add_rule(b, dirfd, access & FS_STRUCT, true,
	    b->path) == -1)
		return -1;
	/*
	 * Without masks it may keep what every path it holds back has too
	 * (a read-only root's reading), for those rights reach them anyway.
	 */
	keep = access;
	for (i = 0; i < nrel; i++)
		keep &= rights_of(b, rel[i]);
	if (!b->masked && keep != 0 && add_rule(b, dirfd, keep, true,
	    b->path) == -1)
		return -1;
	if (grant_entries(b, dirfd, rel, nrel, access) == -1)
		return -1;
	for (i = 0; i < nrel; i++) {
		n = first(rel[i], &whole);
		if (whole)
			continue;
		/* Each entry once; none that is denied as a whole. */
		for (j = 0, done = false; j < nrel && !done; j++)
			done = (j < i && strncmp(rel[j], rel[i], n + 1) == 0) ||
			    (strlen(rel[j]) == n &&
			    strncmp(rel[j], rel[i], n) == 0);
		if (done)
			continue;
		if (descend(b, dirfd, rel, nrel, i, n, access) == -1)
			return -1;
	}
	return 0;
}

/* Is the grant root (canonical p, identity sb) inside a denied path? */
static int
root_denied(struct build *b, const char *p, const struct stat *sb,
    bool *denied)
{
	struct ident *up;
	size_t *rest, i, k, n;

	*denied = false;
	for (i = 0; i < b->nd && !*denied; i++)
		*denied = under(p, b->d[i].path) ||
		    (b->d[i].exists && same(&b->d[i].self, sb));
	if (*denied)
		return 0;
	/* The same, by identity: a grant below a bind mount of one. */
	if (ll_walk_up(p, &up, &rest, &n) == -1) {
		ll_seterr(b, "%s: %s", p, strerror(errno));
		free(up);
		free(rest);
		return -1;
	}
	for (i = 0; i < b->nd && !*denied; i++)
		for (k = 0; k < n && !*denied; k++)
			*denied = b->d[i].isdir && up[k].dev ==
			    b->d[i].self.dev && up[k].ino == b->d[i].self.ino;
	free(up);
	free(rest);
	return 0;
}

/*
 * The denied paths below the grant root sb, relative to it: found by
 * identity, so a root that is another path to the same directory (a bind
 * mount) is split too.
 */
static size_t
denied_below(const struct build *b, const struct stat *sb,
    const char **rel)
{
	const struct denied *d;
	size_t i, k, n = 0;

	for (i = 0; i < b->nd; i++) {
		d = &b->d[i];
		for (k = 0; k < d->nup; k++) {
			if (same(&d->up[k], sb)) {
				rel[n++] = d->path + d->rest[k];
				break;
			}
		}
	}
	return n;
}

/*
 * The other grants below canon with fewer rights (a --read-only-root in
 * the workspace), relative to it: split around like a denied path, then
 * granted their own rights, for Landlock would give them the union.
 */
static size_t
weaker_below(const struct build *b, const char *canon, uint64_t access,
    const char **rel)
{
	size_t i, n = 0, len = strlen(canon);
	uint64_t other;

	for (i = 0; i < b->ngrants; i++) {
		if (b->canon[i] == NULL || strcmp(b->canon[i], canon) == 0 ||
		    !under(b->canon[i], canon))
			continue;
		other = grant_access(b->grants[i].grant, b->handled);
		if ((access & ~other) == 0)
			continue;
		rel[n++] = b->canon[i] + (len == 1 ? 1 : len + 1);
	}
	return n;
}

int
ll_grant_root(struct build *b, size_t gi)
{
	const struct landlock_path *g = &b->grants[gi];
	char canon[PATH_MAX];
	const char **rel = NULL;
	struct stat sb;
	uint64_t access = grant_access(g->grant, b->handled);
	size_t nrel;
	bool denied;
	int fd = -1, dfd = -1, rv = -1;

	if (g->path == NULL || g->path[0] != '/') {
		ll_seterr(b, "grant %s: not absolute",
		    g->path == NULL ? "(null)" : g->path);
		return -1;
	}
	if (b->canon[gi] == NULL) {
		if (b->canon_err[gi] == ENOENT || b->canon_err[gi] == ENOTDIR)
			return 0;	/* nothing there to grant */
		ll_seterr(b, "grant %s: %s", g->path,
		    strerror(b->canon_err[gi]));
		return -1;
	}
	(void)snprintf(canon, sizeof(canon), "%s", b->canon[gi]);
	if ((fd = open(canon, O_PATH | O_CLOEXEC)) == -1 ||
	    fstat(fd, &sb) == -1) {
		ll_seterr(b, "grant %s: %s", g->path, strerror(errno));
		goto out;
	}
	/* A root: the directory that was checked, not one put there since. */
	if (g->ino != 0 && (sb.st_dev != g->dev || sb.st_ino != g->ino)) {
		ll_seterr(b, "grant %s: no longer the directory that was "
		    "checked (now %s)", g->path, canon);
		goto out;
	}
	if (root_denied(b, canon, &sb, &denied) == -1)
		goto out;
	if (denied) {
		b->st->expanded++;	/* split into nothing */
		rv = 0;
		goto out;
	}
	if ((rel = calloc(b->nd + b->ngrants + 1, sizeof(*rel))) == NULL) {
		ll_seterr(b, "out of memory");
		goto out;
	}
	/*
	 * Writable roots are split as well: a mask alone would not keep a
	 * denied file the host replaces during the run (the rename detaches
	 * the mount on it).  Landlock cannot take a path out of a tree
	 * without the tree's own rights, so a directory on the way to a
	 * denied path keeps its entries' grants but not its own: a new file
	 * made directly in it cannot be opened.
	 */
	nrel = 0;
	if (rel != NULL)
		nrel = denied_below(b, &sb, rel);
	nrel += weaker_below(b, canon, access, rel + nrel);
	if (nrel == 0) {
		rv = add_rule(b, fd, access, S_ISDIR(sb.st_mode), canon);
		goto out;
	}
	(void)snprintf(b->path, sizeof(b->path), "%s", canon);
	if ((dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		ll_seterr(b, "%s: cannot list to grant around a denied path: "
		    "%s", canon, strerror(errno));
		goto out;
	}
	rv = expand(b, dfd, rel, nrel, access);
out:
	if (dfd != -1)
		(void)close(dfd);
	if (fd != -1)
		(void)close(fd);
	free(rel);
	return rv;
}
