/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A subject of the in-toto statement (SPEC 7.1): a file's SHA-256, taken
 * at exit.  In run mode the file is usually the confined command's output,
 * in a directory it could write: what it left at the name is read with
 * care (the caller reads it with the command's rights, cli/subjects.c).
 * No link is followed anywhere on the path (a directory swapped for a
 * link could lead to a file the command was denied, whose digest would
 * then be published); nothing but a regular file is opened for reading,
 * and that without blocking (a FIFO would hang the exit); a file of /proc
 * or /sys is not a build's output; and no more than a set size is read,
 * exactly the size the file had (a sparse file of a terabyte would hold
 * the exit for an hour).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>
#include <linux/openat2.h>
#include <openssl/evp.h>

#include "attest/attest.h"
#include "attest/subject.h"

#ifndef SYS_openat2
#define SYS_openat2	437
#endif

#define TICK_CHUNKS	16	/* a tick each 16 reads of 64 KiB */

static const char *const reasons[] = {
	ATTEST_REFUSED_NOT_FOUND, ATTEST_REFUSED_SYMLINK,
	ATTEST_REFUSED_NOT_REGULAR, ATTEST_REFUSED_TOO_LARGE,
	ATTEST_REFUSED_PERMISSION, ATTEST_REFUSED_CHANGED, ATTEST_REFUSED_KEY,
	ATTEST_REFUSED_TIMEOUT, ATTEST_REFUSED_ERROR, NULL
};

const char *
attest_subject_reason(const char *word)
{
	size_t i;

	for (i = 0; reasons[i] != NULL; i++)
		if (strcmp(word, reasons[i]) == 0)
			return reasons[i];
	return NULL;
}

static int
refuse(struct attest_subject *s, const char *why, int e)
{
	s->refused = why;
	s->err = e;
	return -1;
}

static const char *
errno_reason(int e)
{
	switch (e) {
	case ENOENT: case ENOTDIR:
		return ATTEST_REFUSED_NOT_FOUND;
	case ELOOP:
		return ATTEST_REFUSED_SYMLINK;
	case EACCES: case EPERM:
		return ATTEST_REFUSED_PERMISSION;
	default:
		return ATTEST_REFUSED_ERROR;
	}
}

int
subject_walk(int dir, const char *path)
{
	char buf[PATH_MAX], *c, *next;
	struct stat st;
	int cur, fd, e;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	cur = open(dir == AT_FDCWD && path[0] == '/' ? "/" : ".", O_PATH |
	    O_DIRECTORY | O_CLOEXEC);
	if (dir != AT_FDCWD && cur != -1) {
		(void)close(cur);
		cur = fcntl(dir, F_DUPFD_CLOEXEC, 0);
	}
	for (c = buf; cur != -1 && c != NULL; c = next) {
		if ((next = strchr(c, '/')) != NULL)
			*next++ = '\0';
		if (c[0] == '\0' || strcmp(c, ".") == 0)
			continue;
		/* Beneath dir: never above it. */
		if (dir != AT_FDCWD && strcmp(c, "..") == 0) {
			fd = -1;
			errno = EXDEV;
		} else if ((fd = openat(cur, c, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC)) != -1) {
			e = fstat(fd, &st) == -1 ? errno : S_ISLNK(st.st_mode) ?
			    ELOOP : next != NULL && !S_ISDIR(st.st_mode) ?
			    ENOTDIR : 0;
			if (e != 0) {
				(void)close(fd);
				fd = -1;
				errno = e;
			}
		}
		(void)close(cur);
		cur = fd;
	}
	return cur;
}

/*
 * A path only, nothing opened for reading yet: openat2 refuses every link
 * on the way (kernels before 5.6: the same, one component at a time).
 */
static int
open_path(int dir, const char *path, bool follow)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
		    (dir != AT_FDCWD ? RESOLVE_BENEATH : 0),
	};
	int fd;

	if (follow)
		return openat(dir, path, O_PATH | O_CLOEXEC);
	if (path[0] == '\0')
		path = ".";
	fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));
	if (fd == -1 && errno == ENOSYS)
		fd = subject_walk(dir, path);
	return fd;
}

/* Neither a file of /proc or /sys, nor the file avoid names. */
static const char *
judge(int fd, const struct stat *st, const struct attest_take *how)
{
	struct statfs fs;

	if (!S_ISREG(st->st_mode))
		return ATTEST_REFUSED_NOT_REGULAR;
	if (fstatfs(fd, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC ||
	    fs.f_type == SYSFS_MAGIC))
		return ATTEST_REFUSED_NOT_REGULAR;
	if (how->avoid != NULL && st->st_dev == how->avoid->st_dev &&
	    st->st_ino == how->avoid->st_ino)
		return ATTEST_REFUSED_KEY;
	if ((uint64_t)st->st_size > how->max)
		return ATTEST_REFUSED_TOO_LARGE;
	return NULL;
}

static bool
same_times(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Exactly st's size of fd, which must neither grow nor shrink meanwhile. */
static int
digest_exact(struct attest_subject *s, int fd, const struct stat *st,
    const struct attest_take *how, EVP_MD_CTX *ctx)
{
	unsigned char buf[65536];
	uint64_t left = (uint64_t)st->st_size, reads = 0;
	struct stat now;
	unsigned n = 0;
	ssize_t got;

	while (left > 0) {
		got = read(fd, buf, left < sizeof(buf) ? (size_t)left :
		    sizeof(buf));
		if (got == -1 && errno == EINTR)
			continue;
		if (got == -1)
			return refuse(s, errno_reason(errno), errno);
		if (got == 0)
			return refuse(s, ATTEST_REFUSED_CHANGED, 0);
		if (EVP_DigestUpdate(ctx, buf, (size_t)got) != 1)
			return refuse(s, ATTEST_REFUSED_ERROR, ENOMEM);
		left -= (uint64_t)got;
		if (how->tick != NULL && ++reads % TICK_CHUNKS == 0)
			how->tick(how->arg);
	}
	while ((got = read(fd, buf, 1)) == -1 && errno == EINTR)
		;
	if (got != 0 || fstat(fd, &now) == -1 || now.st_size != st->st_size ||
	    !same_times(&now.st_mtim, &st->st_mtim) ||
	    !same_times(&now.st_ctim, &st->st_ctim))
		return refuse(s, got == -1 ? ATTEST_REFUSED_ERROR :
		    ATTEST_REFUSED_CHANGED, got == -1 ? errno : 0);
	if (EVP_DigestFinal_ex(ctx, s->sha256, &n) != 1 || n != 32)
		return refuse(s, ATTEST_REFUSED_ERROR, ENOMEM);
	return 0;
}

static int
digest(struct attest_subject *s, int fd, const struct stat *st,
    const struct attest_take *how)
{
	EVP_MD_CTX *ctx;
	int rv;

	if ((ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		rv = refuse(s, ATTEST_REFUSED_ERROR, ENOMEM);
	else
		rv = digest_exact(s, fd, st, how, ctx);
	EVP_MD_CTX_free(ctx);
	return rv;
}

int
attest_subject_take(struct attest_subject *s, int dir, const char *path,
    const struct attest_take *how)
{
	struct stat st, again;
	const char *why;
	char proc[64];
	int pfd, fd, rv;

	s->refused = NULL;
	s->err = 0;
	s->size = 0;
	if ((pfd = open_path(dir, path, how->follow)) == -1)
		return refuse(s, errno_reason(errno), errno);
	if (fstat(pfd, &st) == -1) {
		rv = refuse(s, ATTEST_REFUSED_ERROR, errno);
		(void)close(pfd);
		return rv;
	}
	s->size = (uint64_t)st.st_size;
	if ((why = judge(pfd, &st, how)) != NULL) {
		(void)close(pfd);
		return refuse(s, why, 0);
	}
	/* The very file judged, opened again for reading. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	rv = fd == -1 ? refuse(s, errno_reason(errno), errno) : 0;
	(void)close(pfd);
	if (rv == -1)
		return rv;
	if (fstat(fd, &again) == -1)
		rv = refuse(s, ATTEST_REFUSED_ERROR, errno);
	else if (again.st_dev != st.st_dev || again.st_ino != st.st_ino)
		rv = refuse(s, ATTEST_REFUSED_CHANGED, 0);
	else
		rv = digest(s, fd, &again, how);
	(void)close(fd);
	return rv;
}

void
attest_subject_why(const struct attest_subject *s, uint64_t max, char *buf,
    size_t len)
{
	const char *r = s->refused != NULL ? s->refused : "";

	if (strcmp(r, ATTEST_REFUSED_SYMLINK) == 0)
		snprintf(buf, len, "a symbolic link on its path (none is "
		    "followed: name the file by a path without links)");
	else if (strcmp(r, ATTEST_REFUSED_NOT_REGULAR) == 0)
		snprintf(buf, len, "not a regular file (a directory, FIFO, "
		    "socket, device, or a file of /proc or /sys)");
	else if (strcmp(r, ATTEST_REFUSED_TOO_LARGE) == 0)
		snprintf(buf, len, "%ju bytes, more than --attest-subject-max "
		    "(%ju)", (uintmax_t)s->size, (uintmax_t)max);
	else if (strcmp(r, ATTEST_REFUSED_CHANGED) == 0)
		snprintf(buf, len, "it changed while it was read");
	else if (strcmp(r, ATTEST_REFUSED_KEY) == 0)
		snprintf(buf, len, "it is the signing key");
	else if (strcmp(r, ATTEST_REFUSED_TIMEOUT) == 0)
		snprintf(buf, len, "not read in time (a hung filesystem?); the "
		    "reader was ended");
	else
		snprintf(buf, len, "%s", s->err != 0 ? strerror(s->err) :
		    "cannot be read");
}
