/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The denied paths of a Landlock build (landlock.c), resolved: each one's
 * real path and identity, and the identity of every directory above it,
 * which is where a grant holding it is split (landlock_grant.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox/landlock_int.h"

static struct dir_cache	*dirs;	/* during one build */

void
ll_dir_cache_start(struct dir_cache *c)
{
	dirs = c;
}

static int
dir_ident(const char *path, struct ident *id)
{
	struct stat sb;
	size_t i;

	for (i = 0; dirs != NULL && i < dirs->n; i++) {
		if (strcmp(dirs->path[i], path) == 0) {
			*id = dirs->id[i];
			return 0;
		}
	}
	if (stat(path, &sb) == -1)
		return -1;
	id->dev = sb.st_dev;
	id->ino = sb.st_ino;
	if (dirs != NULL && dirs->n < DIR_CACHE &&
	    (dirs->path[dirs->n] = strdup(path)) != NULL)
		dirs->id[dirs->n++] = *id;
	return 0;
}

/*
 * The identity of every directory above canonical path p ("/" first) and
 * where the rest of p starts below each.
 */
int
ll_walk_up(const char *p, struct ident **up, size_t **rest, size_t *n)
{
	char buf[PATH_MAX];
	size_t i, k, len = strlen(p);

	*up = NULL;
	*rest = NULL;
	*n = 0;
	if (len >= sizeof(buf) || len < 2)
		return 0;	/* "/" has nothing above it */
	for (i = 0, k = 0; i < len; i++)
		if (p[i] == '/')
			k++;
	if ((*up = calloc(k, sizeof(**up))) == NULL ||
	    (*rest = calloc(k, sizeof(**rest))) == NULL)
		return -1;
	for (i = 0; i < len; i++) {
		if (p[i] != '/')
			continue;
		memcpy(buf, p, i == 0 ? 1 : i);
		buf[i == 0 ? 1 : i] = '\0';
		if (dir_ident(buf, &(*up)[*n]) == -1)
			return -1;
		(*rest)[*n] = i + 1;
		(*n)++;
	}
	return 0;
}

/* No "." or ".." component: lexically below means really below. */
static bool
plain(const char *p)
{
	const char *c;
	size_t n;

	for (c = p; *c != '\0'; c += n) {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
	}
	return true;
}

/*
 * Below another denied path, as written: resolving it goes through that
 * one, so it is hidden with it and failing to resolve it is no error.
 */
static bool
below_other(const char *const *deny, size_t ndeny, size_t i)
{
	const char *rest;
	size_t j, n;

	for (j = 0; j < ndeny; j++) {
		if (j == i || deny[j] == NULL)
			continue;
		n = strlen(deny[j]);
		while (n > 0 && deny[j][n - 1] == '/')
			n--;
		rest = deny[i] + n;
		if (strncmp(deny[i], deny[j], n) == 0 && rest[0] == '/' &&
		    rest[strspn(rest, "/")] != '\0' && plain(rest))
			return true;
	}
	return false;
}

/*
 * ~/.netrc -> /dev/null: the file was sent to a device, and a device is
 * not the credential; denying its target would take /dev/null away.  A
 * device named as such (--read-deny-root /dev/kvm) is denied.
 */
static bool
device_link(const char *path, const struct stat *target)
{
	struct stat sb;

	return S_ISCHR(target->st_mode) && lstat(path, &sb) == 0 &&
	    S_ISLNK(sb.st_mode);
}

static void
free_one(struct denied *d)
{
	free(d->path);
	free(d->up);
	free(d->rest);
	memset(d, 0, sizeof(*d));
}

/*
 * Where a symlink leads, however many links on, when its end does not
 * exist (realpath cannot say): the path the end would be made at.
 */
static char *
link_end(const char *path)
{
	char buf[PATH_MAX], *cur, *slash, *next;
	struct stat sb;
	ssize_t n;
	int hops;

	if ((cur = strdup(path)) == NULL)
		return NULL;
	for (hops = 0; hops < 40; hops++) {
		if (lstat(cur, &sb) == -1 || !S_ISLNK(sb.st_mode))
			return cur;
		if ((n = readlink(cur, buf, sizeof(buf) - 1)) <= 0)
			break;
		buf[n] = '\0';
		if (buf[0] == '/')
			next = strdup(buf);
		else {
			slash = strrchr(cur, '/');
			*slash = '\0';
			if (asprintf(&next, "%s/%s", cur, buf) == -1)
				next = NULL;
		}
		free(cur);
		if ((cur = next) == NULL)
			return NULL;
	}
	free(cur);
	errno = ELOOP;
	return NULL;
}

/*
 * The canonical nearest existing directory of a path that does not
 * exist, and the first missing name below it.  NULL with ENOTDIR when a
 * file stands on the way: nothing can be made there.
 */
static char *
missing_path(const char *path)
{
	char buf[PATH_MAX], *end, *slash, *dir = NULL, *out = NULL;
	struct stat sb;
	const char *name;
	bool isdir = false;
	size_t i;

	if ((end = link_end(path)) == NULL)
		return NULL;
	(void)snprintf(buf, sizeof(buf), "%s", end);
	free(end);
	for (;;) {
		if ((slash = strrchr(buf, '/')) == NULL)
			return NULL;
		name = slash + 1;
		*slash = '\0';
		for (i = 0; dirs != NULL && i < dirs->nreal; i++)
			if (strcmp(dirs->written[i], buf) == 0)
				break;
		if (dirs != NULL && i < dirs->nreal) {
			if ((dir = strdup(dirs->real[i])) == NULL)
				return NULL;
			isdir = dirs->isdir[i];
			break;
		}
		if ((dir = path_real(buf[0] != '\0' ? buf : "/")) != NULL) {
			isdir = stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
			if (dirs != NULL && dirs->nreal < DIR_CACHE &&
			    (dirs->written[dirs->nreal] = strdup(buf)) != NULL) {
				if ((dirs->real[dirs->nreal] = strdup(dir)) ==
				    NULL)
					free(dirs->written[dirs->nreal]);
				else
					dirs->isdir[dirs->nreal++] = isdir;
			}
			break;
		}
		if (errno != ENOENT)
			return NULL;
	}
	if (!isdir)
		errno = ENOTDIR;
	else if (asprintf(&out, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
	    name) == -1)
		out = NULL;
	free(dir);
	return out;
}

/*
 * Resolve the denied paths.  One that cannot be resolved is an error,
 * never a wider grant.
 */
int
ll_resolve_denied(struct build *b, const char *const *deny, size_t ndeny)
{
	struct denied *d;
	struct stat sb;
	size_t i;

	if (ndeny > 0 && (b->d = calloc(ndeny, sizeof(*b->d))) == NULL) {
		ll_seterr(b, "out of memory");
		return -1;
	}
	for (i = 0; i < ndeny; i++) {
		if (deny[i] == NULL || deny[i][0] != '/') {
			ll_seterr(b, "denied path %s: not absolute",
			    deny[i] == NULL ? "(null)" : deny[i]);
			return -1;
		}
		d = &b->d[b->nd];
		if ((d->path = path_real(deny[i])) == NULL) {
			if (below_other(deny, ndeny, i))
				continue;
			if (errno != ENOENT ||
			    (d->path = missing_path(deny[i])) == NULL) {
				if (errno == ENOTDIR)
					continue;
				ll_seterr(b, "denied path %s: %s", deny[i],
				    strerror(errno));
				return -1;
			}
			b->nd++;
			if (ll_walk_up(d->path, &d->up, &d->rest,
			    &d->nup) == -1) {
				ll_seterr(b, "denied path %s: %s", deny[i],
				    strerror(errno));
				return -1;
			}
			continue;
		}
		b->nd++;
		if (stat(d->path, &sb) == -1 ||
		    ll_walk_up(d->path, &d->up, &d->rest, &d->nup) == -1) {
			ll_seterr(b, "denied path %s: %s", deny[i],
			    strerror(errno));
			return -1;
		}
		if (device_link(deny[i], &sb)) {
			free_one(d);
			b->nd--;
			continue;
		}
		/* Masked by /dev/null: the identity is the mask's, not its. */
		d->exists = !(b->masked && (S_ISCHR(sb.st_mode) ||
		    S_ISBLK(sb.st_mode)));
		d->isdir = S_ISDIR(sb.st_mode);
		d->self.dev = sb.st_dev;
		d->self.ino = sb.st_ino;
	}
	return 0;
}

void
ll_free_denied(struct build *b)
{
	size_t i;

	for (i = 0; i < b->nd; i++)
		free_one(&b->d[i]);
	free(b->d);
	b->d = NULL;
	b->nd = 0;
}

void
ll_dir_cache_free(struct dir_cache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->path[i]);
	for (i = 0; i < c->nreal; i++) {
		free(c->written[i]);
		free(c->real[i]);
	}
	c->n = c->nreal = 0;
	dirs = NULL;
}
