/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The namespaces confinement's private directories, and its mounts of
 * the roots (SPEC 6.1, 6.5), as the parent plans them (paths.c makes the
 * grants, this the binds; ns.c and skel.c mount them):
 *
 *   - each root is bind-mounted back at its own path.  For a root caller
 *     the writable roots, and read-only roots inside them, are idmapped:
 *     the command, which runs as SANDBOX_UID, owns there what their
 *     owner owns, and what it makes is the owner's on disk, as in the
 *     landlock confinement, where it runs as that owner.  Other
 *     read-only roots ($HOME) are mounted as they are: the command reads
 *     there what any other user may, never a file only root may read,
 *     including one made after the run started;
 *   - a directory on the way to a root that the command may not search
 *     is a skeleton: an empty tmpfs holding only the way (nothing else
 *     there was the command's to reach);
 *   - a denied path under a read-only root that lies in a private
 *     directory (a $HOME in /tmp) is hidden: each directory on the way
 *     to it is a skeleton holding its other entries, bound back (skel.c).
 *     Landlock could deny it only by splitting the private directory,
 *     whose own new files could then not be opened (SPEC 6.1).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox/internal.h"

/* The namespaces confinement's own, empty directories (SPEC 6.1). */
const char *const sandbox_private_dirs[] = {
	"/tmp", "/var/tmp", "/run", "/dev/shm", NULL
};

/*
 * Is a private directory at or below path?  A read-only root there
 * ($HOME=/var/tmp) is mounted beneath the private directory, which stays
 * the command's own (ns.c): what lies under it is out of reach.
 */
bool
sandbox_holds_private(const char *path)
{
	size_t i;

	for (i = 0; sandbox_private_dirs[i] != NULL; i++)
		if (path_under(sandbox_private_dirs[i], path))
			return true;
	return false;
}

int
nsb_add(struct sandbox_paths *p, size_t *cap, const char *path, bool ro,
    bool idmap, const struct stat *st)
{
	struct ns_bind *v;
	size_t i;

	for (i = 0; i < p->nbinds; i++) {
		if (strcmp(p->binds[i].path, path) == 0) {
			p->binds[i].ro = p->binds[i].ro && ro;
			return 0;
		}
	}
	if (p->nbinds == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		if ((v = reallocarray(p->binds, *cap, sizeof(*v))) == NULL)
			return -1;
		p->binds = v;
	}
	v = &p->binds[p->nbinds];
	memset(v, 0, sizeof(*v));
	if ((v->path = strdup(path)) == NULL)
		return -1;
	v->ro = ro;
	v->idmap = idmap;
	v->owner = st->st_uid;
	v->group = st->st_gid;
	v->dev = st->st_dev;
	v->ino = st->st_ino;
	p->nbinds++;
	return 0;
}

static int
bind_depth(const void *a, const void *b)
{
	const struct ns_bind *x = a, *y = b;
	size_t i, dx = 0, dy = 0;

	for (i = 0; x->path[i] != '\0'; i++)
		dx += x->path[i] == '/';
	for (i = 0; y->path[i] != '\0'; i++)
		dy += y->path[i] == '/';
	if (dx != dy)
		return dx < dy ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Shallow first: the order they are mounted in. */
void
nsb_sort(struct sandbox_paths *p)
{
	if (p->nbinds > 0)
		qsort(p->binds, p->nbinds, sizeof(*p->binds), bind_depth);
}

/* The deepest bind or skeleton at or above path, or NULL. */
const struct ns_bind *
nsb_view(const struct sandbox_paths *p, const char *path)
{
	const struct ns_bind *best = NULL;
	size_t i;

	for (i = 0; i < p->nbinds; i++)
		if (path_under(path, p->binds[i].path) && (best == NULL ||
		    strlen(p->binds[i].path) > strlen(best->path)))
			best = &p->binds[i];
	return best;
}

/* The private directory at or above path, or NULL. */
static const char *
private_of(const char *path)
{
	size_t i;

	for (i = 0; sandbox_private_dirs[i] != NULL; i++)
		if (path_under(path, sandbox_private_dirs[i]))
			return sandbox_private_dirs[i];
	return NULL;
}

/*
 * Does the command see dir in an empty directory of ours (a skeleton, a
 * private tmpfs, or a mount point made in one), not on disk?  A
 * read-only root holding a private directory is mounted beneath it
 * (ns.c); any other goes on top.
 */
static bool
ours(const struct ns_bind *v, const char *dir)
{
	if (v != NULL && v->skel)
		return true;
	if (private_of(dir) == NULL)
		return false;
	return v == NULL || (v->ro && sandbox_holds_private(v->path));
}

/* Could SANDBOX_UID, with no group but its own, search dir? */
static bool
searchable(const struct sandbox_paths *p, const char *dir,
    const struct stat *st)
{
	const struct ns_bind *v = nsb_view(p, dir);
	uid_t owner = SANDBOX_UID;
	gid_t group = SANDBOX_GID;

	if (ours(v, dir))
		return true;
	if (v != NULL && v->idmap) {
		owner = v->owner;
		group = v->group;
	}
	if (st->st_uid == owner)
		return (st->st_mode & S_IXUSR) != 0;
	if (st->st_gid == group)
		return (st->st_mode & S_IXGRP) != 0;
	return (st->st_mode & S_IXOTH) != 0;
}

/* dir becomes a skeleton (a read-only root there is not mounted). */
static int
skeleton(struct sandbox_paths *p, size_t *cap, const char *dir,
    const struct stat *st)
{
	size_t i;

	for (i = 0; i < p->nbinds; i++)
		if (strcmp(p->binds[i].path, dir) == 0)
			break;
	if (i == p->nbinds && nsb_add(p, cap, dir, true, false, st) == -1)
		return -1;
	/* A writable root the command cannot enter stays as it is. */
	if (p->binds[i].ro)
		p->binds[i].skel = true;
	return 0;
}

/*
 * A root caller's command runs as SANDBOX_UID, which may not search some
 * directories above its roots (/root is 0700): each becomes a skeleton,
 * so that it passes through to its roots and sees nothing else there,
 * as no other user would.  Shallow roots first: a skeleton made for one
 * serves the roots below it.
 */
int
nsb_traversal(struct sandbox_paths *p, size_t *cap)
{
	char dir[PATH_MAX], *s;
	struct stat st;
	size_t i, n;

	nsb_sort(p);
	n = p->nbinds;
	for (i = 0; i < n; i++) {
		if (p->binds[i].skel)
			continue;
		(void)snprintf(dir, sizeof(dir), "%s", p->binds[i].path);
		for (s = dir + 1; (s = strchr(s, '/')) != NULL; s++) {
			*s = '\0';
			if (!sandbox_holds_private(dir) && stat(dir, &st) == 0 &&
			    S_ISDIR(st.st_mode) && !searchable(p, dir, &st) &&
			    skeleton(p, cap, dir, &st) == -1)
				return -1;
			*s = '/';
		}
	}
	nsb_sort(p);
	return 0;
}

/*
 * How a denied path c (canonical) under a private directory is kept from
 * the command: not there at all (an empty skeleton holds it), hidden by a
 * skeleton of its read-only root, or by Landlock, splitting the private
 * directory (a denied path in a writable root: a skeleton would keep the
 * command's writes from the disk).
 */
enum nsb_deny
nsb_deny_how(const struct sandbox_paths *p, const char *c)
{
	const struct ns_bind *v = nsb_view(p, c);
	size_t i;

	if (v == NULL)
		return NSB_SPLIT;
	if (v->skel)
		return NSB_GONE;
	if (!v->ro || strcmp(v->path, c) == 0 || private_of(v->path) == NULL ||
	    sandbox_holds_private(v->path))
		return NSB_SPLIT;
	/* A root inside it would have no way in through the skeleton. */
	for (i = 0; i < p->nbinds; i++)
		if (path_under(p->binds[i].path, c))
			return NSB_SPLIT;
	return NSB_HIDE;
}
