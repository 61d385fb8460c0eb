/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The statement's subjects at exit (SPEC 7.1).  In run mode a subject is
 * the command's output, and what the command left at its name is taken
 * with no more rights than the command had:
 *
 *   - it must lie beneath the workspace or a --write-root (checked before
 *     anything starts), and is opened from that root's directory without
 *     following any link on the way (openat2 RESOLVE_BENEATH |
 *     RESOLVE_NO_SYMLINKS), so a directory the command swapped for a link
 *     leads nowhere;
 *   - it is opened and hashed in a short-lived child that took the
 *     command's uid and gids and holds no capability (sandbox_helper), so
 *     a file the command could not read (a root-only file it moved there)
 *     is refused, not published;
 *   - that child is ended when it makes no progress for SUBJECT_IDLE_MS
 *     (a hung NFS or FUSE mount), and reads at most --attest-subject-max
 *     bytes of a regular file, never blocking on a FIFO.
 *
 * Our own file (the decision log, outside the command's reach) and
 * service mode's subjects (there is no command) are opened as named, with
 * our rights, still without following a link and in a child with the
 * same bounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/report.h"
#include "cli/subjects.h"

#ifndef SYS_openat2
#define SYS_openat2	437
#endif

#define SUBJECT_IDLE_MS	10000

/*
 * name made absolute (from the working directory) and normalized: no
 * empty or "." component; -1 when one is ".." (without following links,
 * what it leads to is not known), -2 when it is too long.
 */
static int
normalize(const char *name, char *out, size_t len)
{
	char cwd[PATH_MAX], buf[PATH_MAX * 2], *c, *next;
	size_t n = 0;

	if (name[0] != '/' && getcwd(cwd, sizeof(cwd)) == NULL)
		return -2;
	if (snprintf(buf, sizeof(buf), "%s/%s", name[0] == '/' ? "" : cwd,
	    name) >= (int)sizeof(buf))
		return -2;
	out[0] = '\0';
	for (c = buf; c != NULL; c = next) {
		if ((next = strchr(c, '/')) != NULL)
			*next++ = '\0';
		if (c[0] == '\0' || strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0)
			return -1;
		if (n + 1 + strlen(c) >= len)
			return -2;
		n += (size_t)snprintf(out + n, len - n, "/%s", c);
	}
	if (n == 0)
		snprintf(out, len, "/");
	return 0;
}

/* Lexically at or beneath dir. */
static bool
under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/' || (n == 1 && dir[0] == '/'));
}

/* At or under a --read-deny-root (as given, or what it leads to). */
static const char *
denied(const struct options *o, const char *path)
{
	char *real;
	bool in;
	size_t i;

	for (i = 0; i < o->ndeny_roots; i++) {
		in = under(path, o->deny_roots[i]);
		if (!in && (real = realpath(o->deny_roots[i], NULL)) != NULL) {
			in = under(path, real);
			free(real);
		}
		if (in)
			return o->deny_roots[i];
	}
	return NULL;
}

static int
place_one(struct subject_how *h, const char *name, const struct options *o,
    const struct sandbox_request *r)
{
	char abs[PATH_MAX];
	const char *root, *deny, *rest;
	int rv;

	if ((rv = normalize(name, abs, sizeof(abs))) < 0) {
		cli_error("--attest-subject %s: %s", name, rv == -1 ?
		    "a '..' component; name the output without one" :
		    "too long a path");
		return -1;
	}
	if ((root = sandbox_subject_root(r, abs)) == NULL) {
		cli_error("--attest-subject %s: not beneath the workspace (%s) "
		    "or a --write-root: a subject is the command's output, "
		    "read as the command could; name it by a path without "
		    "links", name, r->workspace);
		return -1;
	}
	if ((deny = denied(o, abs)) != NULL) {
		cli_error("--attest-subject %s: under --read-deny-root %s, "
		    "which the command could not read", name, deny);
		return -1;
	}
	rest = abs + strlen(root);
	while (*rest == '/')
		rest++;
	h->root = strdup(root);
	h->rel = strdup(rest);
	if (h->root == NULL || h->rel == NULL) {
		cli_error("out of memory");
		return -1;
	}
	return 0;
}

int
subjects_place(struct report *rep, const struct options *o,
    const struct sandbox_request *r)
{
	size_t i;

	if (rep->out == NULL || rep->how == NULL)
		return 0;
	rep->run = true;
	for (i = 0; i < rep->r.nsubjects; i++)
		if (!rep->how[i].own && place_one(&rep->how[i],
		    rep->subjects[i].name, o, r) == -1)
			return -1;
	return 0;
}

void
subjects_plan(struct report *rep, const struct sandbox_plan *p)
{
	rep->plan = *p;
}

/* What the child found, to harn-egressd. */
struct answer {
	char		 reason[16];	/* "": taken */
	int		 err;
	uint64_t	 size;
	unsigned char	 sha256[32];
};

struct job {
	int			 dir;
	const char		*path;
	struct attest_take	 how;
};

static void
tick(void *t)
{
	sandbox_tick(t);
}

/* In the child, with the rights it was given. */
static void
take_child(void *arg, struct sandbox_tick *t, void *out, size_t len)
{
	struct job *j = arg;
	struct attest_subject s = { .name = j->path };
	struct answer a;

	j->how.tick = tick;
	j->how.arg = t;
	memset(&a, 0, sizeof(a));
	if (attest_subject_take(&s, j->dir, j->path, &j->how) == -1)
		snprintf(a.reason, sizeof(a.reason), "%s", s.refused);
	a.err = s.err;
	a.size = s.size;
	memcpy(a.sha256, s.sha256, sizeof(a.sha256));
	memcpy(out, &a, len < sizeof(a) ? len : sizeof(a));
}

/* The root's directory, reached without a link; -1 with s refused. */
static int
open_root(struct attest_subject *s, const char *root, struct stat *st)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd, e;

	fd = (int)syscall(SYS_openat2, AT_FDCWD, root, &how, sizeof(how));
	if (fd == -1 && errno == ENOSYS)
		fd = open(root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd != -1 && fstat(fd, st) == 0)
		return fd;
	e = errno;
	if (fd != -1)
		(void)close(fd);
	s->refused = e == ELOOP ? ATTEST_REFUSED_SYMLINK : e == ENOENT ||
	    e == ENOTDIR ? ATTEST_REFUSED_NOT_FOUND : ATTEST_REFUSED_ERROR;
	s->err = e;
	return -1;
}

static void
take_one(struct report *rep, size_t i, struct sandbox_ident *id)
{
	struct attest_subject *s = &rep->subjects[i];
	const struct subject_how *h = &rep->how[i];
	struct job j = { .dir = AT_FDCWD, .path = s->name };
	bool as_command = rep->run && !h->own;
	struct answer a;
	struct stat st;

	j.how.max = rep->subject_max;
	j.how.avoid = rep->key != NULL ? &rep->key_st : NULL;
	id->change = false;
	id->groups = true;
	if (as_command && h->root == NULL) {
		s->refused = ATTEST_REFUSED_ERROR;	/* never placed */
		s->err = EINVAL;
		return;
	}
	if (as_command) {
		if ((j.dir = open_root(s, h->root, &st)) == -1)
			return;
		j.path = h->rel;
		sandbox_subject_ident(&rep->plan, &st, getgid(), id);
	}
	if (sandbox_helper(as_command ? id : NULL, j.dir, take_child, &j, &a,
	    sizeof(a), SUBJECT_IDLE_MS) == -1) {
		s->refused = errno == ETIMEDOUT ? ATTEST_REFUSED_TIMEOUT :
		    ATTEST_REFUSED_ERROR;
		s->err = errno;
	} else {
		a.reason[sizeof(a.reason) - 1] = '\0';
		s->refused = a.reason[0] == '\0' ? NULL :
		    attest_subject_reason(a.reason);
		if (a.reason[0] != '\0' && s->refused == NULL)
			s->refused = ATTEST_REFUSED_ERROR;
		s->err = a.err;
		s->size = a.size;
		memcpy(s->sha256, a.sha256, sizeof(s->sha256));
	}
	if (j.dir != AT_FDCWD)
		(void)close(j.dir);
}

int
subjects_take(struct report *rep)
{
	struct sandbox_ident id;
	char why[ATTEST_ERR_MAX], whose[64];
	size_t i;
	int rv = 0;

	for (i = 0; i < rep->r.nsubjects; i++) {
		take_one(rep, i, &id);
		if (rep->subjects[i].refused == NULL)
			continue;
		attest_subject_why(&rep->subjects[i], rep->subject_max, why,
		    sizeof(why));
		whose[0] = '\0';
		if (strcmp(rep->subjects[i].refused,
		    ATTEST_REFUSED_PERMISSION) == 0 && rep->run &&
		    !rep->how[i].own)
			snprintf(whose, sizeof(whose), "; read as uid %u, "
			    "without capabilities, as the command could",
			    id.change ? (unsigned)id.uid : (unsigned)getuid());
		cli_error("--attest-subject %s: refused at exit (%s): %s%s; "
		    "listed in subjects_refused", rep->subjects[i].name,
		    rep->subjects[i].refused, why, whose);
		rv = 1;
	}
	return rv;
}

void
subjects_free(struct report *rep)
{
	size_t i;

	for (i = 0; rep->how != NULL && i < rep->r.nsubjects; i++) {
		free(rep->how[i].root);
		free(rep->how[i].rel);
	}
	free(rep->how);
	rep->how = NULL;
}
