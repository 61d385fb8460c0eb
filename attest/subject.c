/*
 * A subject of the in-toto statement (SPEC 7.1): a file's SHA-256, taken
 * at exit.  In run mode the file is usually the confined command's output,
 * in a directory it could write: what it left at the name is read with
 * care.  A link there is not followed (it could lead to a file the command
 * was denied, whose digest would then be published), nothing but a regular
 * file is opened for reading (a FIFO would hang the exit), and a file of
 * /proc or /sys is not one of a build's outputs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>
#include <openssl/evp.h>

#include "attest/attest.h"

static int
unread(struct attest_subject *s, const char *why, int e, char *err,
    size_t errlen)
{
	s->unread = why;
	snprintf(err, errlen, "%s: %s", s->name, e != 0 ? strerror(e) :
	    strcmp(why, ATTEST_UNREAD_SYMLINK) == 0 ? "a symbolic link "
	    "(not followed: name the file itself)" :
	    strcmp(why, ATTEST_UNREAD_KEY) == 0 ? "is the signing key" :
	    "not a regular file");
	return -1;
}

static int
digest_fd(int fd, unsigned char sha[32])
{
	unsigned char buf[65536];
	EVP_MD_CTX *ctx;
	unsigned n = 0;
	ssize_t got = 0;
	int rv = -1;

	if ((ctx = EVP_MD_CTX_new()) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		goto out;
	for (;;) {
		if ((got = read(fd, buf, sizeof(buf))) == -1 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (EVP_DigestUpdate(ctx, buf, (size_t)got) != 1)
			goto out;
	}
	if (got == 0 && EVP_DigestFinal_ex(ctx, sha, &n) == 1 && n == 32)
		rv = 0;
out:
	if (rv == -1 && got != -1)
		errno = EIO;
	EVP_MD_CTX_free(ctx);
	return rv;
}

/* Neither a file of /proc or /sys, nor the file avoid names. */
static const char *
refused(int fd, const struct stat *st, const struct stat *avoid)
{
	struct statfs fs;

	if (!S_ISREG(st->st_mode))
		return ATTEST_UNREAD_NOT_FILE;
	if (fstatfs(fd, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC ||
	    fs.f_type == SYSFS_MAGIC))
		return ATTEST_UNREAD_NOT_FILE;
	if (avoid != NULL && st->st_dev == avoid->st_dev &&
	    st->st_ino == avoid->st_ino)
		return ATTEST_UNREAD_KEY;
	return NULL;
}

int
attest_subject_take(struct attest_subject *s, bool follow,
    const struct stat *avoid, char *err, size_t errlen)
{
	struct stat st, again;
	const char *why;
	char proc[64];
	int path, fd, e;

	s->unread = NULL;
	/* A path only: nothing is opened for reading before it is judged. */
	if ((path = open(s->name, O_PATH | O_CLOEXEC |
	    (follow ? 0 : O_NOFOLLOW))) == -1)
		return unread(s, errno == ENOENT || errno == ENOTDIR ?
		    ATTEST_UNREAD_MISSING : ATTEST_UNREAD_ERROR, errno, err,
		    errlen);
	if (fstat(path, &st) == -1) {
		e = errno;
		close(path);
		return unread(s, ATTEST_UNREAD_ERROR, e, err, errlen);
	}
	if (S_ISLNK(st.st_mode)) {
		close(path);
		return unread(s, ATTEST_UNREAD_SYMLINK, 0, err, errlen);
	}
	if ((why = refused(path, &st, avoid)) != NULL) {
		close(path);
		return unread(s, why, 0, err, errlen);
	}
	/* The very file judged, opened again for reading. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", path);
	fd = open(proc, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	e = errno;
	close(path);
	if (fd == -1)
		return unread(s, ATTEST_UNREAD_ERROR, e, err, errlen);
	if (fstat(fd, &again) == -1)
		e = errno;
	else if (again.st_dev != st.st_dev || again.st_ino != st.st_ino)
		e = ESTALE;
	else
		e = digest_fd(fd, s->sha256) == -1 ? errno : 0;
	close(fd);
	return e == 0 ? 0 : unread(s, ATTEST_UNREAD_ERROR, e, err, errlen);
}
