/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_subject: how a subject of the in-toto statement is taken at exit
 * (SPEC 7.1, attest/subject.c): no link followed anywhere on its path
 * (by openat2, and by the walk of kernels without it), nothing but a
 * regular file read and that without blocking, no more than the largest
 * size allowed, exactly its size, and a file that changes while it is
 * read refused; each refusal with its word.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "attest/attest.h"
#include "attest/encode.h"
#include "attest/subject.h"

#define HELLO_SHA	"5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
#define EMPTY_SHA	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static char dir[] = "/tmp/test_subject.XXXXXX";

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *
at(const char *name)
{
	static char path[4][300];
	static int n;

	n = (n + 1) % 4;
	snprintf(path[n], sizeof(path[n]), "%s/%s", dir, name);
	return path[n];
}

/* The refusal word (NULL: taken, its digest in hex). */
static const char *
take_how(int d, const char *path, const struct attest_take *how, char *hex)
{
	struct attest_subject s = { .name = path };
	int rv;

	rv = attest_subject_take(&s, d, path, how);
	assert_int_equal(rv, s.refused == NULL ? 0 : -1);
	if (s.refused == NULL && hex != NULL)
		encode_hex(s.sha256, 32, hex);
	return s.refused;
}

static const char *
take(const char *path, bool follow, char *hex)
{
	const struct attest_take how = { .follow = follow, .max = UINT64_MAX };

	return take_how(AT_FDCWD, path, &how, hex);
}

static void
regular_files(void **state)
{
	char hex[65];

	write_file(at("hello.txt"), "hello\n");
	assert_null(take(at("hello.txt"), false, hex));
	assert_string_equal(hex, HELLO_SHA);
	write_file(at("empty"), "");
	assert_null(take(at("empty"), false, hex));
	assert_string_equal(hex, EMPTY_SHA);
	assert_string_equal(take(at("nothing"), false, NULL),
	    ATTEST_REFUSED_NOT_FOUND);
	assert_string_equal(take(at("hello.txt/below"), false, NULL),
	    ATTEST_REFUSED_NOT_FOUND);
}

/* A link anywhere on the path: at the name, or a directory on the way. */
static void
links_anywhere(void **state)
{
	const struct attest_take how = { .max = UINT64_MAX };
	char hex[65];
	int d;

	assert_int_equal(mkdir(at("real"), 0755), 0);
	write_file(at("real/out"), "hello\n");
	assert_int_equal(symlink(at("real/out"), at("link")), 0);
	assert_int_equal(symlink("real", at("reldir")), 0);
	assert_int_equal(symlink(at("real"), at("absdir")), 0);
	assert_string_equal(take(at("link"), false, NULL),
	    ATTEST_REFUSED_SYMLINK);
	assert_string_equal(take(at("reldir/out"), false, NULL),
	    ATTEST_REFUSED_SYMLINK);
	assert_string_equal(take(at("absdir/out"), false, NULL),
	    ATTEST_REFUSED_SYMLINK);
	/* The control: the same paths lead to the file when followed. */
	assert_null(take(at("absdir/out"), true, hex));
	assert_string_equal(hex, HELLO_SHA);
	assert_null(take(at("link"), true, hex));
	/* Beneath a directory: the same, and never above it. */
	assert_true((d = open(dir, O_PATH | O_DIRECTORY)) >= 0);
	assert_null(take_how(d, "real/out", &how, hex));
	assert_string_equal(hex, HELLO_SHA);
	assert_null(take_how(d, "./real//out", &how, hex));
	assert_string_equal(take_how(d, "absdir/out", &how, NULL),
	    ATTEST_REFUSED_SYMLINK);
	assert_string_equal(take_how(d, "link", &how, NULL),
	    ATTEST_REFUSED_SYMLINK);
	assert_non_null(take_how(d, "real/../../etc/passwd", &how, NULL));
	assert_non_null(take_how(d, "/etc/passwd", &how, NULL));
	(void)close(d);
}

/* The walk that stands in for openat2 on kernels before 5.6. */
static void
walk(void **state)
{
	int d, fd;

	assert_true((d = open(dir, O_PATH | O_DIRECTORY)) >= 0);
	assert_true((fd = subject_walk(d, "real/out")) >= 0);
	(void)close(fd);
	assert_true((fd = subject_walk(AT_FDCWD, at("real/out"))) >= 0);
	(void)close(fd);
	errno = 0;
	assert_int_equal(subject_walk(d, "absdir/out"), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(subject_walk(AT_FDCWD, at("reldir/out")), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(subject_walk(d, "link"), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(subject_walk(d, "real/../real/out"), -1);
	assert_int_equal(errno, EXDEV);
	assert_int_equal(subject_walk(d, "hello.txt/x"), -1);
	assert_int_equal(errno, ENOTDIR);
	assert_int_equal(subject_walk(d, "nothing"), -1);
	assert_int_equal(errno, ENOENT);
	(void)close(d);
}

static double
seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	    (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Nothing but a regular file, outside /proc and /sys, never blocking. */
static void
not_regular(void **state)
{
	struct timespec t0;

	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_string_equal(take(at("fifo"), false, NULL),
	    ATTEST_REFUSED_NOT_REGULAR);
	assert_string_equal(take(at("fifo"), true, NULL),
	    ATTEST_REFUSED_NOT_REGULAR);
	assert_true(seconds_since(&t0) < 5);
	assert_string_equal(take(dir, false, NULL),
	    ATTEST_REFUSED_NOT_REGULAR);
	assert_string_equal(take("/dev/null", false, NULL),
	    ATTEST_REFUSED_NOT_REGULAR);
	assert_string_equal(take("/proc/self/status", true, NULL),
	    ATTEST_REFUSED_NOT_REGULAR);
	/* /proc/self is a link itself. */
	assert_string_equal(take("/proc/self/status", false, NULL),
	    ATTEST_REFUSED_SYMLINK);
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) == 0)
		assert_string_equal(take("/sys/kernel/mm/transparent_hugepage/"
		    "enabled", false, NULL), ATTEST_REFUSED_NOT_REGULAR);
}

static void
signing_key(void **state)
{
	struct stat key;
	struct attest_take how = { .max = UINT64_MAX };

	write_file(at("key"), "not really a key\n");
	assert_int_equal(stat(at("key"), &key), 0);
	assert_int_equal(link(at("key"), at("key-again")), 0);
	how.avoid = &key;
	assert_string_equal(take_how(AT_FDCWD, at("key-again"), &how, NULL),
	    ATTEST_REFUSED_KEY);
	assert_string_equal(take_how(AT_FDCWD, at("key"), &how, NULL),
	    ATTEST_REFUSED_KEY);
	assert_null(take(at("key"), false, NULL));
}

/* At most max bytes: a sparse file of 64 GiB is refused at once. */
static void
too_large(void **state)
{
	struct attest_subject s = { .name = "big" };
	struct attest_take how = { .max = 5 };
	struct timespec t0;
	char why[256];
	int fd;

	write_file(at("six"), "hello\n");
	assert_string_equal(take_how(AT_FDCWD, at("six"), &how, NULL),
	    ATTEST_REFUSED_TOO_LARGE);
	how.max = 6;
	assert_null(take_how(AT_FDCWD, at("six"), &how, NULL));
	assert_true((fd = open(at("sparse"), O_CREAT | O_WRONLY, 0600)) >= 0);
	assert_int_equal(ftruncate(fd, (off_t)64 << 30), 0);
	(void)close(fd);
	how.max = ATTEST_SUBJECT_MAX_DEFAULT;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(attest_subject_take(&s, AT_FDCWD, at("sparse"), &how),
	    -1);
	assert_true(seconds_since(&t0) < 2);
	assert_string_equal(s.refused, ATTEST_REFUSED_TOO_LARGE);
	assert_true(s.size == (uint64_t)64 << 30);
	attest_subject_why(&s, how.max, why, sizeof(why));
	assert_non_null(strstr(why, "68719476736 bytes"));
	assert_non_null(strstr(why, "(1073741824)"));
	(void)unlink(at("sparse"));
}

/* A file that grows or shrinks while it is read. */
static int change_fd = -1;
static int change_how;		/* 1 grow, -1 shrink */

static void
change(void *arg)
{
	if (change_how > 0)
		assert_int_equal(write(change_fd, "more", 4), 4);
	else if (change_how < 0)
		assert_int_equal(ftruncate(change_fd, 1000), 0);
	change_how = 0;
}

static void
changed(void **state)
{
	static char block[1 << 20];
	struct attest_take how = { .max = UINT64_MAX, .tick = change };
	int i, rows[] = { 1, -1, 0 };

	for (i = 0; i < 3; i++) {
		change_fd = open(at("growing"), O_CREAT | O_TRUNC | O_WRONLY |
		    O_APPEND, 0600);
		assert_true(change_fd >= 0);
		/* Four MiB: the tick comes after the first. */
		for (int k = 0; k < 4; k++)
			assert_int_equal(write(change_fd, block, sizeof(block)),
			    (ssize_t)sizeof(block));
		change_how = rows[i];
		if (rows[i] == 0)
			assert_null(take_how(AT_FDCWD, at("growing"), &how,
			    NULL));
		else
			assert_string_equal(take_how(AT_FDCWD, at("growing"),
			    &how, NULL), ATTEST_REFUSED_CHANGED);
		(void)close(change_fd);
	}
}

/* The mode says no: refused (root: as uid 65534, in a child). */
static void
unreadable(void **state)
{
	const char *got;
	pid_t pid;
	int st;

	write_file(at("secret"), "x");
	assert_int_equal(chmod(at("secret"), 0), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	if (geteuid() != 0) {
		assert_string_equal(take(at("secret"), false, NULL),
		    ATTEST_REFUSED_PERMISSION);
		return;
	}
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) == -1 ||
		    setresuid(65534, 65534, 65534) == -1)
			_exit(2);
		got = take(at("secret"), false, NULL);
		_exit(got != NULL && strcmp(got, ATTEST_REFUSED_PERMISSION) ==
		    0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void
words(void **state)
{
	static const char *const all[] = { "not_found", "symlink",
	    "not_regular", "too_large", "permission", "changed", "signing_key",
	    "timeout", "error" };
	struct attest_subject s = { .refused = ATTEST_REFUSED_SYMLINK };
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		assert_string_equal(attest_subject_reason(all[i]), all[i]);
	assert_null(attest_subject_reason("missing"));
	assert_null(attest_subject_reason(""));
	attest_subject_why(&s, 1, why, sizeof(why));
	assert_non_null(strstr(why, "symbolic link"));
	s.refused = ATTEST_REFUSED_ERROR;
	s.err = EIO;
	attest_subject_why(&s, 1, why, sizeof(why));
	assert_string_equal(why, strerror(EIO));
}

static int
setup(void **state)
{
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(regular_files),
		cmocka_unit_test(links_anywhere),
		cmocka_unit_test(walk),
		cmocka_unit_test(not_regular),
		cmocka_unit_test(signing_key),
		cmocka_unit_test(too_large),
		cmocka_unit_test(changed),
		cmocka_unit_test(unreadable),
		cmocka_unit_test(words),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
