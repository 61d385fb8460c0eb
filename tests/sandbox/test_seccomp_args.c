/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_seccomp_args: the seccomp filter (SPEC 6.2), probed in a child as
 * test_seccomp.c probes it (seccomp_harness.c), for the calls allowed
 * for some arguments only: socket() and socketpair(), clone() and the
 * namespace calls beside it, set-user-ID and set-group-ID modes, the
 * terminal's ioctl()s and TCP fast open.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <linux/netlink.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox/internal.h"
#include "tests/sandbox/seccomp_harness.h"

#ifndef AF_XDP
#define AF_XDP		44
#endif
#ifndef AF_SMC
#define AF_SMC		43
#endif

/* ---------------------------------------------------------------- */
/* Setups, before the filter. */

static int	probe_fd = -1;	/* set up in the child */

/* A pty that is our controlling terminal, so TIOCSTI is permitted. */
static int
setup_pty(void)
{
	const char *name;
	int m;

	if (setsid() == -1)
		return -1;
	if ((m = posix_openpt(O_RDWR | O_NOCTTY)) == -1)
		return -1;
	if (grantpt(m) == -1 || unlockpt(m) == -1 ||
	    (name = ptsname(m)) == NULL)
		return -1;
	if ((probe_fd = open(name, O_RDWR)) == -1)
		return -1;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Probe functions: >= 0 on success, -1 with errno. */

static long
p_socket(const struct probe *p)
{
	long fd = syscall(SYS_socket, p->a[0], p->a[1], p->a[2]);

	if (fd >= 0)
		close((int)fd);
	return fd;
}

static long
p_socketpair(const struct probe *p)
{
	int sv[2];

	return syscall(SYS_socketpair, p->a[0], p->a[1], p->a[2], sv);
}

static long
p_ioctl(const struct probe *p)
{
	int arg = 'x';

	return syscall(SYS_ioctl, probe_fd, p->a[0], &arg);
}

/* clone() without a new stack: fork-like; the child leaves at once. */
static long
p_clone(const struct probe *p)
{
	long pid;
	int status;

	pid = syscall(SYS_clone, p->a[0], 0L, 0L, 0L, 0L);
	if (pid == 0)
		_exit(0);
	if (pid > 0 && waitpid((pid_t)pid, &status, __WALL) == -1)
		return -1;
	return pid;
}

static long
p_clone3(const struct probe *p)
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid;
		uint64_t exit_signal, stack, stack_size, tls;
	} ca;
	long pid;
	int status;

	memset(&ca, 0, sizeof(ca));
	ca.flags = (uint64_t)p->a[0];
	ca.exit_signal = SIGCHLD;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		_exit(0);
	if (pid > 0 && waitpid((pid_t)pid, &status, 0) == -1)
		return -1;
	return pid;
}

static long
p_fork(const struct probe *p)
{
	int status;
	pid_t pid;

	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0)
		_exit(7);
	if (waitpid(pid, &status, 0) == -1)
		return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 7) {
		errno = ECHILD;
		return -1;
	}
	return 0;
}

static void *
thread_main(void *arg)
{
	return arg;
}

static long
p_thread(const struct probe *p)
{
	pthread_t t;
	void *res;
	int rc;

	if ((rc = pthread_create(&t, NULL, thread_main, &probe_fd)) != 0 ||
	    (rc = pthread_join(t, &res)) != 0) {
		errno = rc;
		return -1;
	}
	return res == &probe_fd ? 0 : -1;
}

/* A loopback listener and a TCP socket, for the fast open probes. */
static int
tcp_pair(struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int l, c;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	if (bind(l, (struct sockaddr *)sin, sizeof(*sin)) == -1 ||
	    listen(l, 4) == -1 ||
	    getsockname(l, (struct sockaddr *)sin, &len) == -1)
		return -1;
	if ((c = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	return c;
}

/* sendto(fd, "x", 1, a[0], to): a[0] carries MSG_FASTOPEN or not. */
static long
p_sendto(const struct probe *p)
{
	struct sockaddr_in sin;
	int c;

	if ((c = tcp_pair(&sin)) == -1)
		return -1;
	return syscall(SYS_sendto, c, "x", 1L, p->a[0], &sin,
	    (long)sizeof(sin));
}

static long
p_sendmsg(const struct probe *p)
{
	struct sockaddr_in sin;
	struct iovec iov = { "x", 1 };
	struct msghdr mh;
	int c;

	if ((c = tcp_pair(&sin)) == -1)
		return -1;
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &sin;
	mh.msg_namelen = sizeof(sin);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	return syscall(SYS_sendmsg, c, &mh, p->a[0]);
}

static long
p_sendmmsg(const struct probe *p)
{
	struct sockaddr_in sin;
	struct iovec iov = { "x", 1 };
	struct mmsghdr mm;
	int c;

	if ((c = tcp_pair(&sin)) == -1)
		return -1;
	memset(&mm, 0, sizeof(mm));
	mm.msg_hdr.msg_name = &sin;
	mm.msg_hdr.msg_namelen = sizeof(sin);
	mm.msg_hdr.msg_iov = &iov;
	mm.msg_hdr.msg_iovlen = 1;
	return syscall(SYS_sendmmsg, c, &mm, 1L, p->a[0]);
}

/* A plain send on a unix socket pair, flags a[0]. */
static long
p_send_unix(const struct probe *p)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		return -1;
	return syscall(SYS_sendto, sv[0], "x", 1L, p->a[0], NULL, 0L);
}

/* setsockopt(tcp, a[0], a[1], &1, 4). */
static long
p_setsockopt(const struct probe *p)
{
	int fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	return syscall(SYS_setsockopt, fd, p->a[0], p->a[1], &one,
	    (long)sizeof(one));
}

/* ---------------------------------------------------------------- */
/* Tests by probe. */

/* socket() and socketpair(), domain, type and protocol. */
static const struct probe socket_rows[] = {
	{ "AF_INET SOCK_DGRAM", NULL, p_socket, W_EPERM, 0,
	    { AF_INET, SOCK_DGRAM, 0 } },
	{ "AF_INET SOCK_DGRAM IPPROTO_ICMP", NULL, p_socket, W_EPERM, 0,
	    { AF_INET, SOCK_DGRAM, IPPROTO_ICMP } },
	{ "AF_INET SOCK_RAW", setup_userns_net, p_socket, W_EPERM, 0,
	    { AF_INET, SOCK_RAW, IPPROTO_RAW } },
	{ "AF_INET SOCK_STREAM IPPROTO_MPTCP", NULL, p_socket, W_EPERM, 0,
	    { AF_INET, SOCK_STREAM, IPPROTO_MPTCP } },
	{ "AF_INET SOCK_STREAM IPPROTO_SCTP", NULL, p_socket, W_EPERM, 0,
	    { AF_INET, SOCK_STREAM, IPPROTO_SCTP } },
	{ "AF_INET SOCK_SEQPACKET", NULL, p_socket, W_EPERM, 0,
	    { AF_INET, SOCK_SEQPACKET, 0 } },
	{ "AF_INET6 SOCK_DGRAM", NULL, p_socket, W_EPERM, 0,
	    { AF_INET6, SOCK_DGRAM, 0 } },
	{ "AF_INET6 SOCK_STREAM IPPROTO_MPTCP", NULL, p_socket, W_EPERM, 0,
	    { AF_INET6, SOCK_STREAM, IPPROTO_MPTCP } },
	{ "AF_PACKET SOCK_RAW", setup_userns_net, p_socket, W_EPERM, 0,
	    { AF_PACKET, SOCK_RAW, 0 } },
	{ "AF_PACKET SOCK_DGRAM", setup_userns_net, p_socket, W_EPERM, 0,
	    { AF_PACKET, SOCK_DGRAM, 0 } },
	{ "AF_VSOCK SOCK_STREAM", NULL, p_socket, W_EPERM, 0,
	    { AF_VSOCK, SOCK_STREAM, 0 } },
	{ "AF_ALG SOCK_SEQPACKET", NULL, p_socket, W_EPERM, 0,
	    { AF_ALG, SOCK_SEQPACKET, 0 } },
	{ "AF_BLUETOOTH SOCK_SEQPACKET", NULL, p_socket, W_EPERM, 0,
	    { AF_BLUETOOTH, SOCK_SEQPACKET, 0 } },
	{ "AF_SMC SOCK_STREAM", NULL, p_socket, W_EPERM, 0,
	    { AF_SMC, SOCK_STREAM, 0 } },
	{ "AF_XDP SOCK_RAW", setup_userns_net, p_socket, W_EPERM, 0,
	    { AF_XDP, SOCK_RAW, 0 } },
	{ "AF_NETLINK NETLINK_AUDIT", NULL, p_socket, W_EPERM, 0,
	    { AF_NETLINK, SOCK_RAW, NETLINK_AUDIT } },
	{ "AF_NETLINK NETLINK_SOCK_DIAG", NULL, p_socket, W_EPERM, 0,
	    { AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG } },
	{ "AF_NETLINK NETLINK_ROUTE raw", NULL, p_socket, W_ALLOW, 0,
	    { AF_NETLINK, SOCK_RAW, NETLINK_ROUTE } },
	{ "AF_NETLINK NETLINK_ROUTE dgram cloexec", NULL, p_socket, W_ALLOW,
	    0, { AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_ROUTE } },
	{ "AF_UNIX SOCK_STREAM", NULL, p_socket, W_ALLOW, 0,
	    { AF_UNIX, SOCK_STREAM, 0 } },
	/* Unix datagrams could name a host socket in every send. */
	{ "AF_UNIX SOCK_DGRAM", NULL, p_socket, W_EPERM, 0,
	    { AF_UNIX, SOCK_DGRAM, 0 } },
	{ "AF_UNIX SOCK_RAW (a datagram socket)", NULL, p_socket, W_EPERM, 0,
	    { AF_UNIX, SOCK_RAW, 0 } },
	{ "AF_UNIX SOCK_DGRAM|CLOEXEC", NULL, p_socket, W_EPERM, 0,
	    { AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0 } },
	{ "AF_UNIX SOCK_SEQPACKET", NULL, p_socket, W_ALLOW, 0,
	    { AF_UNIX, SOCK_SEQPACKET, 0 } },
	{ "AF_INET SOCK_STREAM 0", NULL, p_socket, W_ALLOW, 0,
	    { AF_INET, SOCK_STREAM, 0 } },
	{ "AF_INET SOCK_STREAM IPPROTO_TCP", NULL, p_socket, W_ALLOW, 0,
	    { AF_INET, SOCK_STREAM, IPPROTO_TCP } },
	{ "AF_INET SOCK_STREAM|NONBLOCK|CLOEXEC", NULL, p_socket, W_ALLOW, 0,
	    { AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0 } },
	{ "AF_INET6 SOCK_STREAM 0", NULL, p_socket, W_ALLOW, 0,
	    { AF_INET6, SOCK_STREAM, 0 } },
	{ "AF_INET6 SOCK_STREAM IPPROTO_TCP", NULL, p_socket, W_ALLOW, 0,
	    { AF_INET6, SOCK_STREAM, IPPROTO_TCP } },
	/* The kernel reads ints: upper bits must change nothing. */
	{ "AF_INET|1<<32 SOCK_DGRAM", NULL, p_socket, W_EPERM, 0,
	    { AF_INET | HI, SOCK_DGRAM, 0 } },
	{ "AF_PACKET|1<<32 SOCK_DGRAM", setup_userns_net, p_socket, W_EPERM,
	    0, { AF_PACKET | HI, SOCK_DGRAM, 0 } },
	{ "AF_INET SOCK_DGRAM|1<<32", NULL, p_socket, W_EPERM, 0,
	    { AF_INET, SOCK_DGRAM | HI, 0 } },
	{ "AF_INET SOCK_STREAM MPTCP|1<<32", NULL, p_socket, W_EPERM, 0,
	    { AF_INET, SOCK_STREAM, IPPROTO_MPTCP | HI } },
	{ "AF_NETLINK NETLINK_AUDIT|1<<32", NULL, p_socket, W_EPERM, 0,
	    { AF_NETLINK, SOCK_RAW, NETLINK_AUDIT | HI } },
	{ "AF_INET|~0<<32 SOCK_STREAM|1<<32 0|1<<32", NULL, p_socket,
	    W_ALLOW, 0, { AF_INET | (long)0xffffffff00000000UL,
	    SOCK_STREAM | HI, HI } },
	{ "AF_UNIX|1<<32 SOCK_STREAM", NULL, p_socket, W_ALLOW, 0,
	    { AF_UNIX | HI, SOCK_STREAM, 0 } },
	{ "AF_UNIX SOCK_STREAM|1<<32", NULL, p_socket, W_ALLOW, 0,
	    { AF_UNIX, SOCK_STREAM | HI, 0 } },
	{ "AF_UNIX|1<<32 SOCK_DGRAM", NULL, p_socket, W_EPERM, 0,
	    { AF_UNIX | HI, SOCK_DGRAM, 0 } },
	{ "socketpair AF_UNIX", NULL, p_socketpair, W_ALLOW, 0,
	    { AF_UNIX, SOCK_STREAM, 0 } },
	{ "socketpair AF_UNIX SOCK_SEQPACKET", NULL, p_socketpair, W_ALLOW,
	    0, { AF_UNIX, SOCK_SEQPACKET, 0 } },
	{ "socketpair AF_UNIX|1<<32 SOCK_STREAM|CLOEXEC", NULL, p_socketpair,
	    W_ALLOW, 0, { AF_UNIX | HI, SOCK_STREAM | SOCK_CLOEXEC, 0 } },
	{ "socketpair AF_UNIX SOCK_DGRAM", NULL, p_socketpair, W_EPERM, 0,
	    { AF_UNIX, SOCK_DGRAM, 0 } },
	{ "socketpair AF_UNIX|1<<32 SOCK_DGRAM", NULL, p_socketpair, W_EPERM,
	    0, { AF_UNIX | HI, SOCK_DGRAM, 0 } },
	{ "socketpair AF_INET", NULL, p_socketpair, W_EPERM, 0,
	    { AF_INET, SOCK_STREAM, 0 } },
	{ "socketpair AF_NETLINK", NULL, p_socketpair, W_EPERM, 0,
	    { AF_NETLINK, SOCK_RAW, 0 } },
};

static void
test_socket(void **state)
{
	assert_int_equal(run_table("socket", socket_rows, NELEM(socket_rows)),
	    0);
}

static void
test_namespaces(void **state)
{
	const struct probe rows[] = {
	{ "unshare(CLONE_NEWUSER)", NULL, p_raw, W_EPERM, 0,
	    { SYS_unshare, CLONE_NEWUSER } },
	{ "unshare(CLONE_NEWUSER|CLONE_NEWNET)", NULL, p_raw, W_EPERM, 0,
	    { SYS_unshare, CLONE_NEWUSER | CLONE_NEWNET } },
	{ "unshare(CLONE_NEWNET) in a userns", setup_userns, p_raw, W_EPERM,
	    0, { SYS_unshare, CLONE_NEWNET } },
	{ "setns(-1)", NULL, p_raw, W_EPERM, 0,
	    { SYS_setns, -1, CLONE_NEWNET } },
	{ "clone(CLONE_NEWUSER)", NULL, p_clone, W_EPERM, 0,
	    { CLONE_NEWUSER | SIGCHLD } },
	{ "clone(CLONE_NEWNS)", setup_userns, p_clone, W_EPERM, 0,
	    { CLONE_NEWNS | SIGCHLD } },
	{ "clone(CLONE_NEWUTS)", setup_userns, p_clone, W_EPERM, 0,
	    { CLONE_NEWUTS | SIGCHLD } },
	{ "clone(CLONE_NEWIPC)", setup_userns, p_clone, W_EPERM, 0,
	    { CLONE_NEWIPC | SIGCHLD } },
	{ "clone(CLONE_NEWPID)", setup_userns, p_clone, W_EPERM, 0,
	    { CLONE_NEWPID | SIGCHLD } },
	{ "clone(CLONE_NEWNET)", setup_userns, p_clone, W_EPERM, 0,
	    { CLONE_NEWNET | SIGCHLD } },
	{ "clone(CLONE_NEWCGROUP)", setup_userns, p_clone, W_EPERM, 0,
	    { CLONE_NEWCGROUP | SIGCHLD } },
	/* 0x80 is in clone()'s exit-signal byte: refused all the same. */
	{ "clone(CLONE_NEWTIME)", setup_userns, p_clone, W_EPERM, 0,
	    { CLONE_NEWTIME | SIGCHLD } },
	{ "clone(CLONE_NEWNET|1<<32)", setup_userns, p_clone, W_EPERM, 0,
	    { CLONE_NEWNET | SIGCHLD | HI } },
	{ "clone(SIGCHLD)", NULL, p_clone, W_ALLOW, 0, { SIGCHLD } },
	{ "clone(SIGCHLD|1<<32)", NULL, p_clone, W_ALLOW, 0,
	    { SIGCHLD | HI } },
	{ "clone3()", NULL, p_clone3, W_ENOSYS, 0, { 0 } },
	{ "clone3(CLONE_NEWUSER)", NULL, p_clone3, W_ENOSYS, 0,
	    { CLONE_NEWUSER } },
	{ "fork()", NULL, p_fork, W_ALLOW, 0, { 0 } },
	{ "pthread_create (clone3 falls back)", NULL, p_thread, W_ALLOW, 0,
	    { 0 } },
	};

	assert_int_equal(run_table("ns", rows, NELEM(rows)), 0);
}

/* A scratch file for the mode probes, made before the filter. */
static char	mode_dir[64];

static int
setup_mode_dir(void)
{
	if (chdir(mode_dir) == -1 ||
	    (probe_fd = open("f", O_CREAT | O_WRONLY, 0644)) == -1)
		return -1;
	/* Each probe runs twice: what the first made is not there. */
	(void)rmdir("d1");
	(void)rmdir("d2");
	return 0;
}

static long
p_open_mode(const struct probe *p)
{
	long fd = syscall(p->a[0], p->a[1], p->a[2], p->a[3], p->a[4]);

	if (fd >= 0)
		close((int)fd);
	return fd;
}

static long
p_fchmod(const struct probe *p)
{
	return syscall(SYS_fchmod, probe_fd, p->a[0]);
}

/*
 * No set-user-ID or set-group-ID file: not by chmod, not by a file made
 * with such a mode.  Plain modes go through; so does a mode with those
 * bits where no file is made (O_CREAT and O_TMPFILE clear).
 */
static void
test_modes(void **state)
{
	static struct open_how how = { .flags = O_RDONLY };
	const struct probe rows[] = {
	{ "chmod(f, 04755)", setup_mode_dir, p_raw, W_EPERM, 0,
	    { SYS_chmod, (long)"f", 04755 } },
	{ "chmod(f, 02755)", setup_mode_dir, p_raw, W_EPERM, 0,
	    { SYS_chmod, (long)"f", 02755 } },
	{ "chmod(f, 04755|1<<32)", setup_mode_dir, p_raw, W_EPERM, 0,
	    { SYS_chmod, (long)"f", 04755 | HI } },
	{ "chmod(f, 0755)", setup_mode_dir, p_raw, W_ALLOW, 0,
	    { SYS_chmod, (long)"f", 0755 } },
	{ "chmod(f, 01777) (sticky)", setup_mode_dir, p_raw, W_ALLOW, 0,
	    { SYS_chmod, (long)"f", 01777 } },
	{ "fchmod(f, 06755)", setup_mode_dir, p_fchmod, W_EPERM, 0,
	    { 06755 } },
	{ "fchmod(f, 0600)", setup_mode_dir, p_fchmod, W_ALLOW, 0,
	    { 0600 } },
	{ "fchmodat(f, 04755)", setup_mode_dir, p_raw, W_EPERM, 0,
	    { SYS_fchmodat, AT_FDCWD, (long)"f", 04755 } },
	{ "fchmodat(f, 0644)", setup_mode_dir, p_raw, W_ALLOW, 0,
	    { SYS_fchmodat, AT_FDCWD, (long)"f", 0644 } },
	/* The call the landed filter did not name (issue 21). */
	{ "fchmodat2(f, 06755, 0)", setup_mode_dir, p_raw, W_EPERM, 0,
	    { 452, AT_FDCWD, (long)"f", 06755, 0 } },
	{ "fchmodat2(f, 04755|1<<32, AT_SYMLINK_NOFOLLOW)", setup_mode_dir,
	    p_raw, W_EPERM, 0, { 452, AT_FDCWD, (long)"f", 04755 | HI,
	    AT_SYMLINK_NOFOLLOW } },
	{ "fchmodat2(f, 0640, 0)", setup_mode_dir, p_raw, W_ALLOW, 0,
	    { 452, AT_FDCWD, (long)"f", 0640, 0 } },
	{ "mkdir(new, 02755)", setup_mode_dir, p_raw, W_EPERM, 0,
	    { SYS_mkdir, (long)"d1", 02755 } },
	{ "mkdirat(new, 0755)", setup_mode_dir, p_raw, W_ALLOW, 0,
	    { SYS_mkdirat, AT_FDCWD, (long)"d2", 0755 } },
	{ "open(new, O_CREAT, 04755)", setup_mode_dir, p_open_mode, W_EPERM,
	    0, { SYS_open, (long)"n1", O_CREAT | O_WRONLY, 04755 } },
	{ "open(new, O_CREAT, 0755)", setup_mode_dir, p_open_mode, W_ALLOW,
	    0, { SYS_open, (long)"n2", O_CREAT | O_WRONLY, 0755 } },
	{ "open(f, O_RDONLY, garbage 04755)", setup_mode_dir, p_open_mode,
	    W_ALLOW, 0, { SYS_open, (long)"f", O_RDONLY, 04755 } },
	{ "openat(new, O_CREAT, 02755)", setup_mode_dir, p_open_mode,
	    W_EPERM, 0, { SYS_openat, AT_FDCWD, (long)"n3",
	    O_CREAT | O_WRONLY, 02755 } },
	{ "openat(new, O_CREAT|1<<32, 0644|1<<32)", setup_mode_dir,
	    p_open_mode, W_ALLOW, 0, { SYS_openat, AT_FDCWD, (long)"n4",
	    O_CREAT | O_WRONLY | HI, 0644 | HI } },
	{ "openat(., O_TMPFILE, 04755)", setup_mode_dir, p_open_mode,
	    W_EPERM, 0, { SYS_openat, AT_FDCWD, (long)".",
	    O_TMPFILE | O_WRONLY, 04755 } },
	{ "creat(new, 04755)", setup_mode_dir, p_open_mode, W_EPERM, 0,
	    { SYS_creat, (long)"n5", 04755 } },
	{ "mknod(new, S_IFREG|04755)", setup_mode_dir, p_raw, W_EPERM, 0,
	    { SYS_mknod, (long)"n6", S_IFREG | 04755, 0 } },
	{ "mknodat(new, S_IFREG|02755)", setup_mode_dir, p_raw, W_EPERM, 0,
	    { SYS_mknodat, AT_FDCWD, (long)"n7", S_IFREG | 02755, 0 } },
	{ "openat2 (its mode is behind a pointer)", setup_mode_dir,
	    p_open_mode, W_ENOSYS, 0, { SYS_openat2, AT_FDCWD, (long)"f",
	    (long)&how, sizeof(how) } },
	};
	static const char *const made[] = { "f", "n1", "n2", "n3", "n4",
	    "n5", "n6", "n7", "d1", "d2" };
	char path[128];
	size_t i;
	int failed;

	snprintf(mode_dir, sizeof(mode_dir), "/tmp/harn-mode.%ld",
	    (long)getpid());
	assert_true(mkdir(mode_dir, 0700) == 0 || errno == EEXIST);
	failed = run_table("modes", rows, NELEM(rows));
	for (i = 0; i < NELEM(made); i++) {
		snprintf(path, sizeof(path), "%s/%s", mode_dir, made[i]);
		(void)unlink(path);
		(void)rmdir(path);
	}
	(void)rmdir(mode_dir);
	assert_int_equal(failed, 0);
}

static void
test_tty(void **state)
{
	const struct probe rows[] = {
	{ "ioctl(TIOCSTI)", setup_pty, p_ioctl, W_EPERM, 0, { TIOCSTI } },
	{ "ioctl(TIOCSTI|1<<32)", setup_pty, p_ioctl, W_EPERM, 0,
	    { TIOCSTI | HI } },
	{ "ioctl(TIOCSTI|~0<<32)", setup_pty, p_ioctl, W_EPERM, 0,
	    { TIOCSTI | (long)0xffffffff00000000UL } },
	{ "ioctl(TIOCLINUX)", setup_pty, p_ioctl, W_EPERM, 0,
	    { TIOCLINUX } },
	{ "ioctl(TIOCLINUX|1<<32)", setup_pty, p_ioctl, W_EPERM, 0,
	    { TIOCLINUX | HI } },
	{ "ioctl(FIONREAD)", setup_pty, p_ioctl, W_ALLOW, 0, { FIONREAD } },
	{ "ioctl(FIONREAD|1<<32)", setup_pty, p_ioctl, W_ALLOW, 0,
	    { FIONREAD | HI } },
	{ "ioctl(TIOCGPGRP)", setup_pty, p_ioctl, W_ALLOW, 0,
	    { TIOCGPGRP } },
	};

	assert_int_equal(run_table("tty", rows, NELEM(rows)), 0);
}

static void
test_fastopen(void **state)
{
	const struct probe rows[] = {
	{ "sendto(MSG_FASTOPEN)", NULL, p_sendto, W_EPERM, 0,
	    { MSG_FASTOPEN } },
	{ "sendto(MSG_FASTOPEN|MSG_NOSIGNAL|1<<32)", NULL, p_sendto, W_EPERM,
	    0, { MSG_FASTOPEN | MSG_NOSIGNAL | HI } },
	{ "sendmsg(MSG_FASTOPEN)", NULL, p_sendmsg, W_EPERM, 0,
	    { MSG_FASTOPEN } },
	{ "sendmmsg(MSG_FASTOPEN)", NULL, p_sendmmsg, W_EPERM, 0,
	    { MSG_FASTOPEN } },
	{ "setsockopt(TCP_FASTOPEN_CONNECT)", NULL, p_setsockopt, W_EPERM, 0,
	    { IPPROTO_TCP, TCP_FASTOPEN_CONNECT } },
	{ "setsockopt(TCP|1<<32, FASTOPEN_CONNECT|1<<32)", NULL,
	    p_setsockopt, W_EPERM, 0,
	    { IPPROTO_TCP | HI, TCP_FASTOPEN_CONNECT | HI } },
	{ "send(unix, MSG_NOSIGNAL|MSG_DONTWAIT)", NULL, p_send_unix,
	    W_ALLOW, 0, { MSG_NOSIGNAL | MSG_DONTWAIT } },
	{ "send(unix, 1<<32)", NULL, p_send_unix, W_ALLOW, 0, { HI } },
	{ "setsockopt(TCP_NODELAY)", NULL, p_setsockopt, W_ALLOW, 0,
	    { IPPROTO_TCP, TCP_NODELAY } },
	{ "setsockopt(TCP|1<<32, TCP_NODELAY)", NULL, p_setsockopt, W_ALLOW,
	    0, { IPPROTO_TCP | HI, TCP_NODELAY } },
	{ "setsockopt(SOL_SOCKET, SO_REUSEADDR)", NULL, p_setsockopt,
	    W_ALLOW, 0, { SOL_SOCKET, SO_REUSEADDR } },
	};

	assert_int_equal(run_table("fastopen", rows, NELEM(rows)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_socket),
		cmocka_unit_test(test_namespaces),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_tty),
		cmocka_unit_test(test_fastopen),
	};

	print_message("running as uid %u\n", (unsigned)geteuid());
	return cmocka_run_group_tests_name("seccomp probes", tests, NULL,
	    NULL) != 0;
}
