/* SPDX-License-Identifier: Apache-2.0 */
/*
 * splice() and pipe2() for the tests of what splices (test_span,
 * test_tunnel): an executable's definitions win over libc's, so the code
 * under test calls these, which count the calls and can force the copy
 * fallback.  Each test program includes this once.
 */
#ifndef TESTS_FAKESPLICE_H
#define TESTS_FAKESPLICE_H

#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

enum fake {
	FAKE_NONE,
	FAKE_SPLICE_FROM_SOCK,	/* splice(socket -> pipe) fails EINVAL */
	FAKE_SPLICE_TO_SOCK,	/* splice(pipe -> socket) fails EINVAL */
	FAKE_PIPE2_EMFILE	/* pipe2() fails EMFILE */
};

static enum fake	fake;
static unsigned long	splice_calls, fake_hits;
static size_t		splice_max;	/* the most one splice asked for */

static bool
is_sock(int fd)
{
	struct stat sb;

	return fstat(fd, &sb) == 0 && S_ISSOCK(sb.st_mode);
}

ssize_t
splice(int in, loff_t *inoff, int out, loff_t *outoff, size_t len,
    unsigned int flags)
{
	splice_calls++;
	if (is_sock(in) && len > splice_max)
		splice_max = len;
	if ((fake == FAKE_SPLICE_FROM_SOCK && is_sock(in)) ||
	    (fake == FAKE_SPLICE_TO_SOCK && is_sock(out))) {
		fake_hits++;
		errno = EINVAL;
		return -1;
	}
	return syscall(SYS_splice, in, inoff, out, outoff, len, flags);
}

int
pipe2(int fds[2], int flags)
{
	if (fake == FAKE_PIPE2_EMFILE) {
		fake_hits++;
		errno = EMFILE;
		return -1;
	}
	return (int)syscall(SYS_pipe2, fds, flags);
}

#endif
