/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Within attest/: how a subject's path is walked on a kernel without
 * openat2 (before 5.6), for subject.c and its unit test.
 */
#ifndef ATTEST_SUBJECT_H
#define ATTEST_SUBJECT_H

/*
 * An O_PATH descriptor of path, beneath dir (no ".." then) or as named
 * with dir AT_FDCWD, reached one component at a time without following
 * any link (ELOOP when one is on the way); -1 with errno.
 */
int	subject_walk(int dir, const char *path);

#endif
