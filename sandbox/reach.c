/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What lies in the command's reach: its writable roots, by name and by
 * filesystem identity.  Asked of the files harn-egressd writes and the
 * command must not (--log, --attest, --port-file, the policy), and
 * walked for the files the supervisor reads for the command (~/.npmrc),
 * so that a symlink the command planted in an earlier run leads it
 * neither into nor out of its roots.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

bool
reach_writable(const struct sandbox_request *r, const char *c)
{
	size_t i;

	if (path_under(c, r->workspace))
		return true;
	for (i = 0; i < r->nrw_roots; i++)
		if (path_under(c, r->rw_roots[i]))
			return true;
	return false;
}

/*
 * The writable roots by filesystem identity: a root bound at a second
 * path is in reach by that path too.
 */
struct reach {
	struct fs_id	*ids;
	size_t		 n;
};

static void
reach_free(struct reach *rc)
{
	while (rc->n > 0)
		fsid_free(&rc->ids[--rc->n]);
	free(rc->ids);
	rc->ids = NULL;
}

static int
reach_build(const struct sandbox_request *r, struct reach *rc)
{
	size_t i;

	rc->n = 0;
	if ((rc->ids = calloc(r->nrw_roots + 1, sizeof(*rc->ids))) == NULL)
		return -1;
	for (i = 0; i <= r->nrw_roots; i++, rc->n++)
		if (fsid_of_path(i == 0 ? r->workspace : r->rw_roots[i - 1],
		    &rc->ids[i]) == -1) {
			reach_free(rc);
			return -1;
		}
	return 0;
}

/* fd is at or below a root; true when that cannot be told. */
static bool
reach_has(const struct reach *rc, int fd)
{
	struct fs_id id;
	size_t i;
	bool in = false;

	if (fsid_of_fd(fd, &id) == -1)
		return true;
	for (i = 0; i < rc->n && !in; i++)
		in = fsid_under(&id, &rc->ids[i]);
	fsid_free(&id);
	return in;
}

/* dir (or, missing, its nearest existing parent) is in reach. */
static bool
dir_in_reach(const struct sandbox_request *r, const char *dir)
{
	struct reach rc;
	char *d, *slash;
	bool in = true;
	int fd;

	if ((d = strdup(dir)) == NULL || reach_build(r, &rc) == -1) {
		free(d);
		return true;
	}
	while ((fd = open(d, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1 &&
	    errno == ENOENT && strcmp(d, "/") != 0 &&
	    (slash = strrchr(d, '/')) != NULL)
		*(slash == d ? slash + 1 : slash) = '\0';
	if (fd != -1) {
		in = reach_has(&rc, fd);
		(void)close(fd);
	}
	reach_free(&rc);
	free(d);
	return in;
}

/*
 * As written and as it resolves: a symlink a command planted in its
 * workspace (in an earlier run) must not lead the path out of it, nor
 * the path's directory into it.  The last name is never followed (the
 * files are opened O_NOFOLLOW), so its directory is what resolves.
 */
bool
sandbox_may_write(const struct sandbox_request *r, const char *path)
{
	char cwd[PATH_MAX], *abs, *dir = NULL, *c = NULL, *slash;
	bool w = true;

	if (path[0] == '/')
		abs = strdup(path);
	else if (getcwd(cwd, sizeof(cwd)) != NULL)
		abs = path_join(cwd, path);
	else
		return true;	/* unknown: assume the worst */
	if (abs == NULL)
		return true;
	path_lexical(abs);
	if (reach_writable(r, abs))
		goto out;
	if ((dir = strdup(abs)) == NULL)
		goto out;
	slash = strrchr(dir, '/');
	*(slash == dir ? slash + 1 : slash) = '\0';
	if ((c = path_canonical(dir)) == NULL)
		goto out;
	w = reach_writable(r, c) || dir_in_reach(r, dir);
out:
	free(c);
	free(dir);
	free(abs);
	return w;
}

/* Back at /: the walk starts again there (an absolute link). */
static int
walk_root(int *dir, char *done)
{
	if (*dir != -1)
		(void)close(*dir);
	done[0] = '\0';
	return (*dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
}

/*
 * rest becomes the link's target, then what was left after the link's
 * name (end, which points into rest).
 */
static int
walk_splice(char *rest, size_t size, const char *link, size_t len,
    const char *end)
{
	if (len + 1 + strlen(end) + 1 > size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memmove(rest + len + 1, end, strlen(end) + 1);
	memcpy(rest, link, len);
	rest[len] = '/';
	return 0;
}

/* The walk's start: path, absolute, copied into rest. */
static int
walk_start(const char *path, char *rest, size_t size)
{
	if (path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	if (snprintf(rest, size, "%s", path) >= (int)size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * done, the path walked so far, one name c further (".." one name back),
 * and still out of the writable roots by name (EACCES).
 */
static int
walk_name(const struct sandbox_request *r, char *done, size_t size,
    const char *c)
{
	char *slash;

	if (strcmp(c, "..") == 0) {
		if ((slash = strrchr(done, '/')) != NULL)
			*slash = '\0';
	} else if (snprintf(done + strlen(done), size - strlen(done), "/%s",
	    c) >= (int)(size - strlen(done))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (reach_writable(r, done[0] != '\0' ? done : "/")) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

/*
 * fd, the name just looked up in dir, is a symlink: closed, and the walk
 * goes on through its target (from / when absolute) and then through
 * what followed its name (end, in rest).
 */
static int
walk_link(int *fd, int *dir, char *done, char *rest, size_t size,
    const char *end, int *links)
{
	char link[PATH_MAX];
	ssize_t len;

	len = readlinkat(*fd, "", link, sizeof(link) - 1);
	(void)close(*fd);
	*fd = -1;
	if (len <= 0 || ++*links > 40) {
		errno = len <= 0 ? EINVAL : ELOOP;
		return -1;
	}
	/* The link's own name is not a step of the path. */
	*strrchr(done, '/') = '\0';
	if (walk_splice(rest, size, link, (size_t)len, end) == -1 ||
	    (link[0] == '/' && walk_root(dir, done) == -1))
		return -1;
	return 0;
}

/*
 * Open path the way open(2) would, following its symlinks, but only
 * through names out of the command's reach: each name is looked up in a
 * directory held open and already checked, never by a path the command
 * could change under us, and a name in a writable root ends the walk
 * (EACCES).  For files the supervisor reads for the command (~/.npmrc),
 * where a link the command planted in an earlier run would otherwise
 * have the supervisor read any file for it.
 */
int
sandbox_open_out_of_reach(const struct sandbox_request *r, const char *path,
    int flags)
{
	char done[PATH_MAX], rest[PATH_MAX], *c, *end;
	struct reach rc;
	struct stat st;
	size_t n;
	int dir = -1, fd = -1, links = 0;

	if (walk_start(path, rest, sizeof(rest)) == -1 ||
	    reach_build(r, &rc) == -1)
		return -1;
	if (walk_root(&dir, done) == -1)
		goto fail;
	c = rest;
	for (;;) {
		c += strspn(c, "/");
		if (*c == '\0') {
			errno = EISDIR;
			goto fail;
		}
		n = strcspn(c, "/");
		end = c + n + strspn(c + n, "/");
		c[n] = '\0';
		if (strcmp(c, ".") == 0) {
			c = end;
			continue;
		}
		if (walk_name(r, done, sizeof(done), c) == -1)
			goto fail;
		if ((fd = openat(dir, c, O_PATH | O_NOFOLLOW | O_CLOEXEC)) ==
		    -1 || fstat(fd, &st) == -1)
			goto fail;
		if (S_ISLNK(st.st_mode)) {
			if (walk_link(&fd, &dir, done, rest, sizeof(rest), end,
			    &links) == -1)
				goto fail;
			c = rest;
			continue;
		}
		/* The same by another name: a root mounted twice. */
		if (reach_has(&rc, fd)) {
			errno = EACCES;
			goto fail;
		}
		if (*end == '\0') {
			/* The last name: opened for real, and still no link. */
			(void)close(fd);
			fd = openat(dir, c, flags | O_NOFOLLOW);
			(void)close(dir);
			reach_free(&rc);
			return fd;
		}
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			goto fail;
		}
		(void)close(dir);
		dir = fd;
		fd = -1;
		c = end;
	}
fail:
	n = (size_t)errno;
	if (fd != -1)
		(void)close(fd);
	if (dir != -1)
		(void)close(dir);
	reach_free(&rc);
	errno = (int)n;
	return -1;
}
