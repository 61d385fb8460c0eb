/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What this host can enforce, found by doing it (SPEC 6.5): each
 * mechanism is tried the way run mode uses it, in a throwaway child where
 * it changes anything.  Never a guess from the uid or from sysctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/seccomp.h>

#include "sandbox/internal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd		438
#endif

static void
set(struct sandbox_host *h, enum sandbox_mech m, enum sandbox_avail a,
    const char *why)
{
	h->avail[m] = a;
	(void)snprintf(h->why[m], sizeof(h->why[m]), "%s", why);
}

static void
probe_landlock(struct sandbox_host *h)
{
	int abi = sandbox_landlock_abi();

	h->landlock_abi = abi > 0 ? abi : 0;
	if (abi > 0)
		return;
	set(h, MECH_LANDLOCK, AVAIL_ABSENT, errno == EOPNOTSUPP ?
	    "Landlock is disabled at boot" : errno == ENOSYS ?
	    "kernel without Landlock" : strerror(errno));
}

/*
 * seccomp filters and user notification; and whether the connect broker
 * may take a caller's socket (pidfd_getfd), which Docker's default
 * profile refuses.
 */
static void
probe_seccomp(struct sandbox_host *h)
{
	char why[160];
	int pidfd, fd;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		set(h, MECH_SECCOMP, AVAIL_ABSENT, "kernel without seccomp "
		    "filters");
		return;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0,
	    &(struct seccomp_notif_sizes){ 0 }) == -1) {
		snprintf(why, sizeof(why), "seccomp user notification: %s",
		    strerror(errno));
		set(h, MECH_SECCOMP, errno == EINVAL ? AVAIL_ABSENT :
		    AVAIL_CANNOT_ATTACH, why);
		return;
	}
	if ((pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0)) == -1 ||
	    (fd = (int)syscall(SYS_pidfd_getfd, pidfd, pidfd, 0)) == -1) {
		snprintf(h->getfd_why, sizeof(h->getfd_why), "connect broker: "
		    "%s: %s", pidfd == -1 ? "pidfd_open" : "pidfd_getfd",
		    strerror(errno));
		if (pidfd != -1)
			(void)close(pidfd);
		return;
	}
	h->getfd = true;
	(void)close(fd);
	(void)close(pidfd);
}

/* In the throwaway child: each step of the namespaces' set-up. */
static void __attribute__((noreturn))
try_namespaces(int wfd, bool root)
{
	struct setup_fail f;
	unsigned short port;
	struct sandbox_paths none;
	struct sandbox_limits lim = { .tmpfs_size = 1 << 20 };
	int lfd;
	pid_t pid;
	int st;

	memset(&f, 0, sizeof(f));
	memset(&none, 0, sizeof(none));
	if (ns_enter(&none, &lim, root, &lfd, &port, &f) == 0) {
		if ((pid = fork()) == -1) {
			f.err = errno;
			snprintf(f.text, sizeof(f.text), "fork: %s",
			    strerror(errno));
		} else if (pid == 0) {
			_exit(ns_mount_proc(&f) == 0 ? 0 : 1);
		} else if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0) {
			f.err = EPERM;
			snprintf(f.text, sizeof(f.text), "/proc: cannot mount "
			    "a proc for the new PID namespace");
		}
	}
	if (write(wfd, &f, sizeof(f)) != (ssize_t)sizeof(f))
		_exit(1);
	_exit(0);
}

void
sandbox_probe_namespaces(struct sandbox_host *h)
{
	struct setup_fail f;
	int p[2], st;
	pid_t pid;

	h->ns_tried = true;

	if (pipe2(p, O_CLOEXEC) == -1 || (pid = fork()) == -1) {
		set(h, MECH_NAMESPACES, AVAIL_CANNOT_ATTACH, strerror(errno));
		return;
	}
	if (pid == 0) {
		(void)close(p[0]);
		try_namespaces(p[1], h->root);
	}
	(void)close(p[1]);
	memset(&f, 0, sizeof(f));
	if (read(p[0], &f, sizeof(f)) != (ssize_t)sizeof(f)) {
		f.err = EPIPE;
		snprintf(f.text, sizeof(f.text), "the probe ended without a "
		    "word");
	}
	(void)close(p[0]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (f.err == 0 && f.text[0] == '\0')
		return;
	/* A kernel without them, or one refusing this process. */
	set(h, MECH_NAMESPACES, f.err == EINVAL || f.err == ENOSYS ?
	    AVAIL_ABSENT : AVAIL_CANNOT_ATTACH, f.text);
}

/*
 * May a root caller make its command SANDBOX_UID (and its directories
 * that uid's)?  Not in a container with every capability dropped.
 */
static bool
have_setid(void)
{
	struct __user_cap_header_struct hdr = {
	    _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	const uint32_t need = 1U << CAP_SETUID | 1U << CAP_SETGID |
	    1U << CAP_CHOWN;

	if (syscall(SYS_capget, &hdr, data) == -1)
		return false;
	return (data[0].effective & need) == need;
}

void
sandbox_probe(struct sandbox_host *h, bool quick, bool memory)
{
	memset(h, 0, sizeof(*h));
	h->root = geteuid() == 0;
	h->setid = h->root && have_setid();
	probe_landlock(h);
	probe_seccomp(h);
	if (!quick || memory)
		h->memory = limits_memory_available(h->memory_why,
		    sizeof(h->memory_why));
	if (!quick)
		sandbox_probe_namespaces(h);
	/*
	 * Quick: namespaces are tried for real by the spawn, but a seccomp
	 * profile that refuses unshare() itself (Docker's) says so at once,
	 * without a set-up child to fail first: unshare(0) changes nothing.
	 */
	else if (syscall(SYS_unshare, 0) == -1) {
		char why[128];

		snprintf(why, sizeof(why), "unshare: %s",
		    strerror(errno));
		set(h, MECH_NAMESPACES, AVAIL_CANNOT_ATTACH, why);
	}
}
