/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LD_PRELOAD for tests/proxy/fair_head.sh's CONNECT-reply checks: the
 * proxy's client socket as it is when full, made certain rather than
 * waited for (the kernel's send buffer grows to megabytes on loopback).
 *
 *   SHIM_SHORT_200=1  a send() of "HTTP/1.1 200 Connection established"
 *                     takes its first 10 bytes only (a socket with room
 *                     for 10);
 *   SHIM_STALL_MS=N   a writev() that begins a response ("HTTP/1.1 200
 *                     OK") and each later writev() on that socket fail
 *                     EAGAIN for N ms (a client that reads nothing for a
 *                     while): the response stays queued in the proxy.
 *
 * Nothing else is changed: every other call goes to libc as it came.
 */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/uio.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char established[] = "HTTP/1.1 200 Connection established";
static const char response[] = "HTTP/1.1 200 OK";

static int	stall_fd = -1;
static double	stall_until;

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

ssize_t
send(int fd, const void *buf, size_t len, int flags)
{
	static ssize_t (*real)(int, const void *, size_t, int);

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t, int))
		    dlsym(RTLD_NEXT, "send");
	if (getenv("SHIM_SHORT_200") != NULL &&
	    len >= sizeof(established) - 1 &&
	    memcmp(buf, established, sizeof(established) - 1) == 0)
		len = 10;
	return real(fd, buf, len, flags);
}

ssize_t
writev(int fd, const struct iovec *iov, int n)
{
	static ssize_t (*real)(int, const struct iovec *, int);
	const char *ms = getenv("SHIM_STALL_MS");

	if (real == NULL)
		real = (ssize_t (*)(int, const struct iovec *, int))
		    dlsym(RTLD_NEXT, "writev");
	if (ms != NULL && stall_fd == -1 && n > 0 &&
	    iov[0].iov_len >= sizeof(response) - 1 &&
	    memcmp(iov[0].iov_base, response, sizeof(response) - 1) == 0) {
		stall_fd = fd;
		stall_until = now_ms() + atoi(ms);
	}
	if (fd == stall_fd && now_ms() < stall_until) {
		errno = EAGAIN;
		return -1;
	}
	return real(fd, iov, n);
}
