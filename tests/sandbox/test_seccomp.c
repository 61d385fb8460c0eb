/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_seccomp: the seccomp filter (SPEC 6.2).
 *
 * Each probe runs twice, in a forked child: once as control, without the
 * filter, and once after no_new_privs and sandbox_seccomp_load().  A
 * refused probe must fail with EPERM (or ENOSYS, or die of SIGSYS) under
 * the filter, and its control must not: a probe whose control already
 * looks refused could not notice an escape, so the row fails rather than
 * passes.  The only exceptions are probes the kernel itself refuses to an
 * unprivileged user before looking at anything else (F_PRIV); run as such
 * a user they are skipped, loudly, and the BPF tests cover them.
 *
 * The BPF tests run the exported filter program in an interpreter over
 * whole ranges of arguments, upper 32 bits included, against the rules
 * of SPEC 6.2 written out again here.
 */
#include <sys/ioctl.h>
#include <sys/fanotify.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/quota.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox/internal.h"

#define HI		(1L << 32)	/* garbage above an int argument */
#define X32_BIT		0x40000000L

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif
#define CLONE_NS	(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |	\
	CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP |	\
	CLONE_NEWTIME)

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP	262
#endif
#ifndef AF_XDP
#define AF_XDP		44
#endif
#ifndef AF_SMC
#define AF_SMC		43
#endif
#define NR_OPEN_TREE_ATTR	467
#define NR_SETXATTRAT		463
#define NR_LAST			511

extern char **environ;

/* ---------------------------------------------------------------- */
/* Probes in a child. */

enum want {
	W_ALLOW,	/* succeeds, with and without the filter */
	W_EPERM,	/* refused with EPERM */
	W_ENOSYS,	/* refused with ENOSYS */
	W_KILL,		/* the process dies of SIGSYS */
	W_KILL_OR_EPERM
};

#define F_PRIV	0x01	/* the kernel checks privilege first */
#define F_IA32	0x02	/* needs IA32 emulation: control gets our pid */

struct probe {
	const char	*name;
	int		(*setup)(void);	/* before the filter, both runs */
	long		(*fn)(const struct probe *);
	enum want	 want;
	unsigned	 flags;
	long		 a[6];
};

enum stage { S_LOST, S_SETUP, S_LOAD, S_DONE };

struct report {
	int	 stage;
	int	 err;
	long	 ret;
	char	 msg[200];
};

struct outcome {
	struct report	 r;
	int		 sig;	/* killed by */
	int		 code;	/* or exit code */
};

static int	probe_fd = -1;	/* set up in the child */

static void
reset_crash_signals(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE,
	    SIGABRT, SIGSYS };
	size_t i;

	for (i = 0; i < NELEM(sigs); i++)
		(void)signal(sigs[i], SIG_DFL);
}

static void
child(const struct probe *p, bool filtered, int fd)
{
	struct rlimit none = { 0, 0 };
	struct report r;

	memset(&r, 0, sizeof(r));
	(void)setrlimit(RLIMIT_CORE, &none);
	/*
	 * cmocka's handlers for crashes are inherited: a probe that dies of
	 * a signal must die of it here, not go on running the rest of the
	 * suite inside this child.
	 */
	reset_crash_signals();
	alarm(20);
	if (p->setup != NULL && p->setup() == -1) {
		r.stage = S_SETUP;
		r.err = errno;
		goto out;
	}
	if (filtered) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
			r.stage = S_LOAD;
			snprintf(r.msg, sizeof(r.msg), "no_new_privs: %s",
			    strerror(errno));
			goto out;
		}
		if (sandbox_seccomp_load(r.msg, sizeof(r.msg)) == -1) {
			r.stage = S_LOAD;
			goto out;
		}
	}
	errno = 0;
	r.ret = p->fn(p);
	r.err = r.ret < 0 ? errno : 0;
	r.stage = S_DONE;
 out:
	if (write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(99);
	/* _exit: no atexit handlers (LeakSanitizer would ptrace). */
	_exit(0);
}

static void
run(const struct probe *p, bool filtered, struct outcome *o)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		close(fds[0]);
		child(p, filtered, fds[1]);
	}
	close(fds[1]);
	n = read(fds[0], &o->r, sizeof(o->r));
	if (n != (ssize_t)sizeof(o->r))
		o->r.stage = S_LOST;
	close(fds[0]);
	for (;;) {
		if (waitpid(pid, &status, 0) == -1) {
			assert_int_equal(errno, EINTR);
			continue;
		}
		if (!WIFSTOPPED(status))
			break;
		/* A child that asked to be traced: end it. */
		kill(pid, SIGKILL);
	}
	if (WIFSIGNALED(status))
		o->sig = WTERMSIG(status);
	else
		o->code = WEXITSTATUS(status);
}

static const char *
errname(int e)
{
	const char *s = strerrorname_np(e);

	return s != NULL ? s : "?";
}

static void
describe(const struct outcome *o, char *buf, size_t len)
{
	if (o->sig != 0 && o->r.stage != S_DONE)
		snprintf(buf, len, "killed by %s", sigabbrev_np(o->sig));
	else if (o->r.stage == S_SETUP)
		snprintf(buf, len, "setup failed: %s", errname(o->r.err));
	else if (o->r.stage == S_LOAD)
		snprintf(buf, len, "load failed: %s", o->r.msg);
	else if (o->r.stage != S_DONE)
		snprintf(buf, len, "no report (exit %d)", o->code);
	else if (o->r.ret >= 0)
		snprintf(buf, len, "ok (%ld)", o->r.ret);
	else
		snprintf(buf, len, "%s", errname(o->r.err));
}

static bool
done(const struct outcome *o)
{
	return o->r.stage == S_DONE && o->sig == 0;
}

static bool
failed_with(const struct outcome *o, int e)
{
	return done(o) && o->r.ret < 0 && o->r.err == e;
}

static bool
killed_sigsys(const struct outcome *o)
{
	return o->sig == SIGSYS && o->r.stage == S_LOST;
}

/* Did the filtered run give what the row wants? */
static bool
filtered_ok(const struct probe *p, const struct outcome *f)
{
	switch (p->want) {
	case W_ALLOW:
		return done(f) && f->r.ret >= 0;
	case W_EPERM:
		return failed_with(f, EPERM);
	case W_ENOSYS:
		return failed_with(f, ENOSYS);
	case W_KILL:
		return killed_sigsys(f);
	case W_KILL_OR_EPERM:
		return killed_sigsys(f) || failed_with(f, EPERM);
	}
	return false;
}

/* Could the control tell an escape from a refusal? */
static bool
control_ok(const struct probe *p, const struct outcome *c)
{
	if (!done(c))
		return false;
	switch (p->want) {
	case W_ALLOW:
		return c->r.ret >= 0;
	case W_EPERM:
	case W_KILL_OR_EPERM:
		return c->r.ret >= 0 || c->r.err != EPERM;
	case W_ENOSYS:
		return c->r.ret >= 0 || c->r.err != ENOSYS;
	case W_KILL:
		return c->r.ret >= 0 || c->r.err != EPERM;
	}
	return false;
}

/* Why the row cannot be judged here, or NULL. */
static const char *
skip_reason(const struct probe *p, const struct outcome *c)
{
	if ((p->flags & F_PRIV) && geteuid() != 0 && failed_with(c, EPERM))
		return "the kernel refuses it to this user before the filter "
		    "could matter (covered by the BPF tests)";
	if ((p->flags & F_IA32) && (!done(c) || c->r.ret != 0))
		return "no IA32 emulation here (int 0x80 did not return the "
		    "pid)";
	return NULL;
}

static int
run_table(const char *table, const struct probe *rows, size_t n)
{
	struct outcome c, f;
	char cs[256], fs[256];
	const char *why;
	int failures = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		run(&rows[i], false, &c);
		describe(&c, cs, sizeof(cs));
		if ((why = skip_reason(&rows[i], &c)) != NULL) {
			print_message("  [skip] %s %s: control %s: %s\n",
			    table, rows[i].name, cs, why);
			continue;
		}
		run(&rows[i], true, &f);
		describe(&f, fs, sizeof(fs));
		if (!control_ok(&rows[i], &c)) {
			print_error("  [FAIL] %s %s: control %s cannot tell "
			    "an escape (filtered %s)\n", table, rows[i].name,
			    cs, fs);
			failures++;
		} else if (!filtered_ok(&rows[i], &f)) {
			print_error("  [FAIL] %s %s: filtered %s (control "
			    "%s)\n", table, rows[i].name, fs, cs);
			failures++;
		} else
			print_message("  [ok]   %s %s: control %s, filtered "
			    "%s\n", table, rows[i].name, cs, fs);
	}
	return failures;
}

/* ---------------------------------------------------------------- */
/* Setups, before the filter. */

static int
write_file(const char *path, const char *s)
{
	ssize_t n;
	int fd;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* A user namespace (we are root in it), plus the namespaces in more. */
static int
enter_userns(int more)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | more) == -1)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) == -1 ||
	    write_file("/proc/self/setgroups", "deny") == -1)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
	return write_file("/proc/self/gid_map", map);
}

static int
setup_userns(void)
{
	return enter_userns(0);
}

static int
setup_userns_net(void)
{
	return enter_userns(CLONE_NEWNET);
}

static int
setup_userns_mnt(void)
{
	return enter_userns(CLONE_NEWNS);
}

/* No controlling terminal (vhangup must not hang up the caller's). */
static int
setup_setsid(void)
{
	return setsid() == -1 ? -1 : 0;
}

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
p_raw(const struct probe *p)
{
	return syscall(p->a[0], p->a[1], p->a[2], p->a[3], p->a[4], p->a[5]);
}

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

/* process_vm_readv/writev (a[0]) on our own memory. */
static long
p_vm(const struct probe *p)
{
	static char from[4] = "abc", to[4];
	struct iovec lo = { to, 3 }, re = { from, 3 };

	return syscall(p->a[0], (long)getpid(), &lo, 1L, &re, 1L, 0L);
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

/* Run argv, its stdout to a pipe; 0 if it exits 0 and prints want. */
static long
run_prog(char *const argv[], const char *want, bool spawn)
{
	char out[64];
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fds) == -1)
		return -1;
	if (spawn) {
		posix_spawn_file_actions_t fa;
		int rc;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
		rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&fa);
		if (rc != 0) {
			errno = rc;
			return -1;
		}
	} else if ((pid = fork()) == 0) {
		dup2(fds[1], 1);
		execv(argv[0], argv);
		_exit(127);
	} else if (pid == -1)
		return -1;
	close(fds[1]);
	n = read(fds[0], out, sizeof(out) - 1);
	close(fds[0]);
	if (waitpid(pid, &status, 0) == -1)
		return -1;
	out[n > 0 ? n : 0] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    strcmp(out, want) != 0) {
		errno = ECHILD;
		return -1;
	}
	return 0;
}

static long
p_exec_true(const struct probe *p)
{
	char *argv[] = { "/bin/true", NULL };

	return run_prog(argv, "", false);
}

static long
p_exec_sh(const struct probe *p)
{
	char *argv[] = { "/bin/sh", "-c", "echo ok", NULL };

	return run_prog(argv, "ok\n", false);
}

static long
p_spawn_sh(const struct probe *p)
{
	char *argv[] = { "/bin/sh", "-c", "echo ok", NULL };

	return run_prog(argv, "ok\n", true);
}

/*
 * i386 getpid (20) through int 0x80 from this 64-bit process: 0 when it
 * returns our pid.
 */
static long
p_int80(const struct probe *p)
{
	long ret = 20;

#if defined(__x86_64__)
	__asm__ volatile ("int $0x80"
	    : "+a" (ret)
	    :
	    : "memory", "cc", "r8", "r9", "r10", "r11");
#else
	ret = -ENOSYS;
#endif
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	if (ret != (long)getpid()) {
		errno = EPROTO;
		return -1;
	}
	return 0;
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

static void
test_socket(void **state)
{
	const struct probe rows[] = {
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

	assert_int_equal(run_table("socket", rows, NELEM(rows)), 0);
}

static void
test_kernel_surface(void **state)
{
	static char zero[512];
	static char buf[16];
	static struct perf_event_attr pe;
	static struct {
		unsigned int handle_bytes;
		int handle_type;
		unsigned char f_handle[64];
	} fh;
	static int mount_id;
	const struct probe rows[] = {
	{ "bpf(bad cmd)", NULL, p_raw, W_EPERM, 0,
	    { SYS_bpf, 1000, (long)zero, 128 } },
	{ "io_uring_setup", NULL, p_raw, W_EPERM, 0,
	    { SYS_io_uring_setup, 1, (long)zero } },
	{ "io_uring_enter(-1)", NULL, p_raw, W_EPERM, 0,
	    { SYS_io_uring_enter, -1, 0, 0, 0, 0 } },
	{ "io_uring_register(-1)", NULL, p_raw, W_EPERM, 0,
	    { SYS_io_uring_register, -1, 0, 0, 0 } },
	{ "perf_event_open(task clock)", NULL, p_raw, W_EPERM, 0,
	    { SYS_perf_event_open, (long)&pe, 0, -1, -1, 0 } },
	{ "userfaultfd(USER_MODE_ONLY)", NULL, p_raw, W_EPERM, 0,
	    { SYS_userfaultfd, UFFD_USER_MODE_ONLY | O_CLOEXEC } },
	{ "fanotify_init(NOTIF|FID)", NULL, p_raw, W_EPERM, 0,
	    { SYS_fanotify_init, FAN_CLASS_NOTIF | FAN_REPORT_FID,
	    O_RDONLY } },
	{ "lookup_dcookie", NULL, p_raw, W_EPERM, 0,
	    { SYS_lookup_dcookie, 0, (long)buf, sizeof(buf) } },
	{ "ptrace(PTRACE_TRACEME)", NULL, p_raw, W_EPERM, 0,
	    { SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0 } },
	{ "process_vm_readv(self)", NULL, p_vm, W_EPERM, 0,
	    { SYS_process_vm_readv } },
	{ "process_vm_writev(self)", NULL, p_vm, W_EPERM, 0,
	    { SYS_process_vm_writev } },
	{ "pidfd_getfd(-1)", NULL, p_raw, W_EPERM, 0,
	    { SYS_pidfd_getfd, -1, 0, 0 } },
	{ "open_by_handle_at(-1)", NULL, p_raw, W_EPERM, 0,
	    { SYS_open_by_handle_at, -1, (long)&fh, O_RDONLY } },
	{ "name_to_handle_at(/)", NULL, p_raw, W_EPERM, 0,
	    { SYS_name_to_handle_at, AT_FDCWD, (long)"/", (long)&fh,
	    (long)&mount_id, 0 } },
	{ "kexec_load(bad arch)", NULL, p_raw, W_EPERM, F_PRIV,
	    { SYS_kexec_load, 0, 0, 0, 0x00ff0000 } },
	{ "kexec_file_load(bad flags)", NULL, p_raw, W_EPERM, F_PRIV,
	    { SYS_kexec_file_load, -1, -1, 0, 0, 0x7fff0000 } },
	{ "init_module(empty)", NULL, p_raw, W_EPERM, F_PRIV,
	    { SYS_init_module, (long)zero, 0, (long)"" } },
	{ "finit_module(-1)", NULL, p_raw, W_EPERM, F_PRIV,
	    { SYS_finit_module, -1, (long)"", 0 } },
	{ "delete_module(none)", NULL, p_raw, W_EPERM, F_PRIV,
	    { SYS_delete_module, (long)"harn_no_such_module",
	    O_NONBLOCK } },
	{ "iopl(4)", NULL, p_raw, W_EPERM, 0, { SYS_iopl, 4 } },
	{ "ioperm(0, 0)", NULL, p_raw, W_EPERM, 0, { SYS_ioperm, 0, 0, 1 } },
	{ "create_module", NULL, p_raw, W_EPERM, 0,
	    { SYS_create_module, 0, 0 } },
	{ "_sysctl", NULL, p_raw, W_EPERM, 0, { SYS__sysctl, 0 } },
	};

	pe.size = sizeof(pe);
	pe.type = PERF_TYPE_SOFTWARE;
	pe.config = PERF_COUNT_SW_TASK_CLOCK;
	pe.disabled = 1;
	pe.exclude_kernel = 1;
	pe.exclude_hv = 1;
	fh.handle_bytes = 0;
	assert_int_equal(run_table("kernel", rows, NELEM(rows)), 0);
}

static void
test_host_state(void **state)
{
	static struct timeval bad_tv = { 0, 2000000 };
	static struct timespec ts;
	static struct timex tx;
	const struct probe rows[] = {
	{ "keyctl(GET_KEYRING_ID)", NULL, p_raw, W_EPERM, 0,
	    { SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING,
	    1 } },
	{ "add_key(user)", NULL, p_raw, W_EPERM, 0,
	    { SYS_add_key, (long)"user", (long)"harn-seccomp-test",
	    (long)"x", 1, KEY_SPEC_PROCESS_KEYRING } },
	{ "request_key(user)", NULL, p_raw, W_EPERM, 0,
	    { SYS_request_key, (long)"user", (long)"harn-no-such-key", 0,
	    KEY_SPEC_PROCESS_KEYRING } },
	{ "acct(missing)", NULL, p_raw, W_EPERM, F_PRIV,
	    { SYS_acct, (long)"/harn-no-such-dir/acct" } },
	{ "swapon(missing)", NULL, p_raw, W_EPERM, F_PRIV,
	    { SYS_swapon, (long)"/harn-no-such-file", 0 } },
	{ "swapoff(missing)", NULL, p_raw, W_EPERM, F_PRIV,
	    { SYS_swapoff, (long)"/harn-no-such-file" } },
	{ "reboot(bad magic)", NULL, p_raw, W_EPERM, F_PRIV,
	    { SYS_reboot, 0, 0, 0, 0 } },
	{ "settimeofday(bad usec)", NULL, p_raw, W_EPERM, 0,
	    { SYS_settimeofday, (long)&bad_tv, 0 } },
	{ "clock_settime(MONOTONIC)", NULL, p_raw, W_EPERM, 0,
	    { SYS_clock_settime, CLOCK_MONOTONIC, (long)&ts } },
	{ "adjtimex(read)", NULL, p_raw, W_EPERM, 0,
	    { SYS_adjtimex, (long)&tx } },
	{ "clock_adjtime(read)", NULL, p_raw, W_EPERM, 0,
	    { SYS_clock_adjtime, CLOCK_REALTIME, (long)&tx } },
	{ "syslog(SIZE_BUFFER)", NULL, p_raw, W_EPERM, F_PRIV,
	    { SYS_syslog, 10, 0, 0 } },
	{ "vhangup (no tty)", setup_setsid, p_raw, W_EPERM, F_PRIV,
	    { SYS_vhangup } },
	{ "quotactl(bad type)", NULL, p_raw, W_EPERM, 0,
	    { SYS_quotactl, (long)((unsigned)Q_SYNC << SUBCMDSHIFT | 99),
	    0, 0, 0 } },
	{ "personality(ADDR_NO_RANDOMIZE)", NULL, p_raw, W_EPERM, 0,
	    { SYS_personality, PER_LINUX | ADDR_NO_RANDOMIZE } },
	{ "personality(READ_IMPLIES_EXEC)", NULL, p_raw, W_EPERM, 0,
	    { SYS_personality, READ_IMPLIES_EXEC } },
	{ "personality(query)", NULL, p_raw, W_ALLOW, 0,
	    { SYS_personality, 0xffffffffL } },
	{ "personality(query|1<<32)", NULL, p_raw, W_ALLOW, 0,
	    { SYS_personality, 0xffffffffL | HI } },
	{ "personality(PER_LINUX32)", NULL, p_raw, W_ALLOW, 0,
	    { SYS_personality, PER_LINUX32 } },
	};

	tx.modes = 0;
	assert_int_equal(run_table("host", rows, NELEM(rows)), 0);
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
test_mount(void **state)
{
	static uint64_t attr[4];
	const struct probe rows[] = {
	{ "mount(tmpfs on /tmp)", setup_userns_mnt, p_raw, W_EPERM, 0,
	    { SYS_mount, (long)"none", (long)"/tmp", (long)"tmpfs", 0, 0 } },
	{ "umount2(missing)", setup_userns_mnt, p_raw, W_EPERM, 0,
	    { SYS_umount2, (long)"/harn-no-such-dir", 0 } },
	{ "pivot_root(missing)", setup_userns_mnt, p_raw, W_EPERM, 0,
	    { SYS_pivot_root, (long)"/harn-no-such-dir",
	    (long)"/harn-no-such-dir" } },
	{ "move_mount(-1)", setup_userns_mnt, p_raw, W_EPERM, 0,
	    { SYS_move_mount, -1, (long)"", -1, (long)"", 0 } },
	{ "open_tree(/)", setup_userns_mnt, p_raw, W_EPERM, 0,
	    { SYS_open_tree, AT_FDCWD, (long)"/", 0 } },
	{ "open_tree_attr(/) (467)", setup_userns_mnt, p_raw, W_EPERM, 0,
	    { NR_OPEN_TREE_ATTR, AT_FDCWD, (long)"/", 0, 0, 0 } },
	{ "fsopen(tmpfs)", setup_userns_mnt, p_raw, W_EPERM, 0,
	    { SYS_fsopen, (long)"tmpfs", 0 } },
	{ "fsconfig(-1)", setup_userns_mnt, p_raw, W_EPERM, 0,
	    { SYS_fsconfig, -1, 0, (long)"ro", 0, 0 } },
	{ "fsmount(-1)", setup_userns_mnt, p_raw, W_EPERM, 0,
	    { SYS_fsmount, -1, 0, 0 } },
	{ "fspick(/)", setup_userns_mnt, p_raw, W_EPERM, 0,
	    { SYS_fspick, AT_FDCWD, (long)"/", 0 } },
	{ "mount_setattr(-1)", setup_userns_mnt, p_raw, W_EPERM, 0,
	    { SYS_mount_setattr, -1, (long)"", AT_EMPTY_PATH, (long)attr,
	    sizeof(attr) } },
	};

	assert_int_equal(run_table("mount", rows, NELEM(rows)), 0);
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

static void
test_abi(void **state)
{
	const struct probe rows[] = {
	{ "i386 int 0x80 getpid", NULL, p_int80, W_KILL, F_IA32, { 0 } },
	{ "x32 getpid (0x40000000|39)", NULL, p_raw, W_KILL_OR_EPERM, 0,
	    { X32_BIT | SYS_getpid } },
	{ "syscall 999 (default action)", NULL, p_raw, W_EPERM, 0,
	    { 999 } },
	/* A call the allowlist does not name: ENOSYS, so libc falls back. */
	{ "setxattrat(...) (463)", NULL, p_raw, W_ENOSYS, 0,
	    { NR_SETXATTRAT, -1, 0, 0, 0, 0 } },
	};

	assert_int_equal(run_table("abi", rows, NELEM(rows)), 0);
}

static void
test_still_works(void **state)
{
	const struct probe rows[] = {
	{ "exec /bin/true", NULL, p_exec_true, W_ALLOW, 0, { 0 } },
	{ "exec /bin/sh -c 'echo ok'", NULL, p_exec_sh, W_ALLOW, 0, { 0 } },
	{ "posix_spawn /bin/sh -c 'echo ok'", NULL, p_spawn_sh, W_ALLOW, 0,
	    { 0 } },
	{ "getpid", NULL, p_raw, W_ALLOW, 0, { SYS_getpid } },
	};

	assert_int_equal(run_table("works", rows, NELEM(rows)), 0);
}

/*
 * A failed load returns -1 with a message and leaves no filter behind.  A
 * filter of our own refuses seccomp(SECCOMP_SET_MODE_FILTER) with a
 * program, and PR_SET_SECCOMP, but lets libseccomp's probes (a NULL
 * program, SECCOMP_GET_ACTION_AVAIL) through: seccomp_load() fails.
 */
static void
test_load_error(void **state)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 7, 8),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_SET_MODE_FILTER,
		    0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[2]) + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { NELEM(f), f };
	char err[200];
	int fds[2], status, fd;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		close(fds[0]);
		err[0] = '\0';
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) == -1)
			_exit(2);
		if (sandbox_seccomp_load(err, sizeof(err)) != -1)
			_exit(3);
		if (write(fds[1], err, strlen(err)) == -1)
			_exit(4);
		/* Nothing of ours loaded: a refused socket still works. */
		if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) == -1)
			_exit(5);
		_exit(0);
	}
	assert_true(pid != -1);
	close(fds[1]);
	n = read(fds[0], err, sizeof(err) - 1);
	close(fds[0]);
	err[n > 0 ? n : 0] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	print_message("  load refused: \"%s\", child exit %d\n", err,
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(strncmp(err, "seccomp: seccomp_load: ", 23) == 0);
}

/* ---------------------------------------------------------------- */
/* The exported program, in an interpreter. */

static struct sock_filter	*prog;
static size_t			 prog_len;

static int
load_prog(void **state)
{
	char err[256];
	struct stat st;
	FILE *f;

	if ((f = tmpfile()) == NULL)
		return -1;
	if (sandbox_seccomp_export_bpf(SECCOMP_MAIN, fileno(f), err,
	    sizeof(err)) == -1) {
		print_error("%s\n", err);
		fclose(f);
		return -1;
	}
	if (fstat(fileno(f), &st) == -1 || st.st_size % 8 != 0 ||
	    st.st_size == 0) {
		fclose(f);
		return -1;
	}
	prog_len = (size_t)st.st_size / sizeof(*prog);
	if ((prog = malloc((size_t)st.st_size)) == NULL ||
	    fseek(f, 0, SEEK_SET) != 0 ||
	    fread(prog, sizeof(*prog), prog_len, f) != prog_len) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static int
free_prog(void **state)
{
	free(prog);
	prog = NULL;
	return 0;
}

/* Classic BPF as seccomp runs it; UINT32_MAX-1 on a bad program. */
#define BAD_PROG	0xfffffffeU

static uint32_t
alu(uint16_t op, uint32_t a, uint32_t s, bool *bad)
{
	switch (op) {
	case BPF_ADD:	return a + s;
	case BPF_SUB:	return a - s;
	case BPF_MUL:	return a * s;
	case BPF_DIV:	return s != 0 ? a / s : (*bad = true, 0);
	case BPF_MOD:	return s != 0 ? a % s : (*bad = true, 0);
	case BPF_OR:	return a | s;
	case BPF_AND:	return a & s;
	case BPF_XOR:	return a ^ s;
	case BPF_LSH:	return s < 32 ? a << s : 0;
	case BPF_RSH:	return s < 32 ? a >> s : 0;
	case BPF_NEG:	return -a;
	}
	*bad = true;
	return 0;
}

static bool
jump_taken(uint16_t op, uint32_t a, uint32_t s, bool *bad)
{
	switch (op) {
	case BPF_JEQ:	return a == s;
	case BPF_JGT:	return a > s;
	case BPF_JGE:	return a >= s;
	case BPF_JSET:	return (a & s) != 0;
	}
	*bad = true;
	return false;
}

static uint32_t
bpf_run(const struct seccomp_data *d)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS];
	const struct sock_filter *i;
	bool bad = false;
	size_t pc;

	memset(M, 0, sizeof(M));
	for (pc = 0; pc < prog_len && !bad; pc++) {
		i = &prog[pc];
		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			if (i->code == (BPF_LD | BPF_W | BPF_ABS) &&
			    i->k % 4 == 0 && i->k + 4 <= sizeof(*d))
				memcpy(&A, (const char *)d + i->k, 4);
			else if (i->code == (BPF_LD | BPF_IMM))
				A = i->k;
			else if (i->code == (BPF_LD | BPF_MEM) &&
			    i->k < BPF_MEMWORDS)
				A = M[i->k];
			else
				return BAD_PROG;
			break;
		case BPF_LDX:
			if (i->code == (BPF_LDX | BPF_IMM))
				X = i->k;
			else if (i->code == (BPF_LDX | BPF_MEM) &&
			    i->k < BPF_MEMWORDS)
				X = M[i->k];
			else
				return BAD_PROG;
			break;
		case BPF_ST:
		case BPF_STX:
			if (i->k >= BPF_MEMWORDS)
				return BAD_PROG;
			M[i->k] = BPF_CLASS(i->code) == BPF_ST ? A : X;
			break;
		case BPF_ALU:
			A = alu(BPF_OP(i->code), A,
			    BPF_SRC(i->code) == BPF_X ? X : i->k, &bad);
			break;
		case BPF_JMP:
			if (BPF_OP(i->code) == BPF_JA)
				pc += i->k;
			else if (jump_taken(BPF_OP(i->code), A,
			    BPF_SRC(i->code) == BPF_X ? X : i->k, &bad))
				pc += i->jt;
			else
				pc += i->jf;
			break;
		case BPF_RET:
			return BPF_RVAL(i->code) == BPF_A ? A : i->k;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				X = A;
			else
				A = X;
			break;
		}
	}
	return BAD_PROG;
}

#define ACT_ALLOW	SCMP_ACT_ALLOW
#define ACT_EPERM	SCMP_ACT_ERRNO(EPERM)
#define ACT_ENOSYS	SCMP_ACT_ERRNO(ENOSYS)
#define ACT_KILL	SCMP_ACT_KILL_PROCESS

static uint32_t
action(uint32_t arch, int nr, const uint64_t a[6])
{
	struct seccomp_data d;

	memset(&d, 0, sizeof(d));
	d.arch = arch;
	d.nr = nr;
	memcpy(d.args, a, sizeof(d.args));
	return bpf_run(&d);
}

static int	bpf_failures;

static void
bpf_check(const char *what, int nr, const uint64_t a[6], uint32_t want)
{
	uint32_t got = action(AUDIT_ARCH_X86_64, nr, a);

	if (got == want)
		return;
	if (bpf_failures++ < 20)
		print_error("  %s: nr %d args %#llx %#llx %#llx %#llx: "
		    "action %#x, want %#x\n", what, nr,
		    (unsigned long long)a[0], (unsigned long long)a[1],
		    (unsigned long long)a[2], (unsigned long long)a[3], got,
		    want);
}

static uint64_t	rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Upper halves to try on every int argument. */
static const uint64_t garbage[] = {
	0, 1ULL << 32, 0xffffffff00000000ULL, 0x8000000000000000ULL,
	0x1234567800000000ULL
};

/* SPEC 6.2, written out again. */
static bool
spec_socket(uint32_t d, uint32_t t, uint32_t p)
{
	uint32_t type = t & ~(uint32_t)(SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (d == AF_UNIX)
		return type == SOCK_STREAM || type == SOCK_SEQPACKET;
	if (d == AF_INET || d == AF_INET6)
		return type == SOCK_STREAM && (p == 0 || p == IPPROTO_TCP);
	return d == AF_NETLINK && p == NETLINK_ROUTE;
}

/*
 * Namespaces' variant (SECCOMP_MAIN_UDP): the same program, but for
 * socket(), which makes UDP sockets too (SPEC 6.6), and nothing else more.
 */
static void
test_bpf_main_udp(void **state)
{
	const void *uprog;
	struct sock_filter *saved = prog;
	size_t ulen, saved_len = prog_len, i;
	uint64_t a[6] = { 0 };
	uint32_t want, got;
	int nr, sock = SCMP_SYS(socket), udp;

	(void)state;
	assert_int_equal(sandbox_seccomp_generated(SECCOMP_MAIN_UDP, &uprog,
	    &ulen), 0);
	bpf_failures = 0;
	for (i = 0; i < 400000; i++) {
		nr = i < 100000 ? sock : (int)(rng() % (NR_LAST + 1));
		a[0] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff0000003fULL);
		a[1] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000f080fULL);
		a[2] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000001ffULL);
		a[3] = rng();
		want = action(AUDIT_ARCH_X86_64, nr, a);
		udp = ((uint32_t)a[0] == AF_INET ||
		    (uint32_t)a[0] == AF_INET6) && ((uint32_t)a[1] &
		    ~(uint32_t)(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_DGRAM &&
		    ((uint32_t)a[2] == 0 || (uint32_t)a[2] == IPPROTO_UDP);
		if (nr == sock && udp)
			want = ACT_ALLOW;
		prog = (struct sock_filter *)(uintptr_t)uprog;
		prog_len = ulen / sizeof(struct sock_filter);
		got = action(AUDIT_ARCH_X86_64, nr, a);
		prog = saved;
		prog_len = saved_len;
		if (got != want && bpf_failures++ < 20)
			print_error("  udp variant: nr %d args %#llx %#llx "
			    "%#llx: action %#x, want %#x\n", nr,
			    (unsigned long long)a[0], (unsigned long long)a[1],
			    (unsigned long long)a[2], got, want);
	}
	assert_int_equal(bpf_failures, 0);
}

static void
test_bpf_socket(void **state)
{
	static const uint32_t types[] = {
		0, SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_RDM,
		SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET, 11, 15
	};
	static const uint32_t flags[] = {
		0, SOCK_NONBLOCK, SOCK_CLOEXEC, SOCK_NONBLOCK | SOCK_CLOEXEC,
		0x100, 0x80000000
	};
	static const uint32_t protos[] = {
		0, 1, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_SCTP, 255, 256,
		IPPROTO_MPTCP, 0x10006, 0xffffffff, NETLINK_AUDIT
	};
	uint64_t a[6] = { 0 };
	uint32_t d, t, f, p, g;
	int nr = SCMP_SYS(socket), nrp = SCMP_SYS(socketpair);
	size_t i;

	bpf_failures = 0;
	for (d = 0; d < 64; d++)
		for (t = 0; t < NELEM(types); t++)
			for (f = 0; f < NELEM(flags); f++)
				for (p = 0; p < NELEM(protos); p++)
					for (g = 0; g < NELEM(garbage); g++) {
		a[0] = garbage[g] | d;
		a[1] = garbage[(g + 1) % NELEM(garbage)] |
		    types[t] | flags[f];
		a[2] = garbage[(g + 2) % NELEM(garbage)] | protos[p];
		bpf_check("socket", nr, a, spec_socket(d, types[t] | flags[f],
		    protos[p]) ? ACT_ALLOW : ACT_EPERM);
		bpf_check("socketpair", nrp, a, d == AF_UNIX &&
		    spec_socket(d, types[t] | flags[f], 0) ? ACT_ALLOW :
		    ACT_EPERM);
					}
	for (i = 0; i < 200000; i++) {
		a[0] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff0000003fULL);
		a[1] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000f080fULL);
		a[2] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000001ffULL);
		bpf_check("socket", nr, a, spec_socket((uint32_t)a[0],
		    (uint32_t)a[1], (uint32_t)a[2]) ? ACT_ALLOW : ACT_EPERM);
	}
	assert_int_equal(bpf_failures, 0);
}

static void
test_bpf_ioctl(void **state)
{
	uint64_t a[6] = { 0 };
	uint32_t cmd, low;
	int nr = SCMP_SYS(ioctl);
	size_t g, i;

	bpf_failures = 0;
	for (cmd = 0; cmd < 0x20000; cmd++)
		for (g = 0; g < NELEM(garbage); g++) {
			a[0] = garbage[g] | 3;
			a[1] = garbage[g] | cmd;
			bpf_check("ioctl", nr, a, cmd == TIOCSTI ||
			    cmd == TIOCLINUX ? ACT_EPERM : ACT_ALLOW);
		}
	for (i = 0; i < 1000000; i++) {
		a[1] = rng();
		if (i % 4 == 0)	/* near the refused commands */
			a[1] = (a[1] & ~0xffffffffULL) |
			    ((TIOCSTI ^ (1U << (i / 4 % 32))));
		low = (uint32_t)a[1];
		bpf_check("ioctl", nr, a, low == TIOCSTI ||
		    low == TIOCLINUX ? ACT_EPERM : ACT_ALLOW);
	}
	assert_int_equal(bpf_failures, 0);
}

static void
test_bpf_clone_send(void **state)
{
	uint64_t a[6] = { 0 };
	uint64_t v;
	int clone = SCMP_SYS(clone), sendto = SCMP_SYS(sendto);
	int sendmsg = SCMP_SYS(sendmsg), sendmmsg = SCMP_SYS(sendmmsg);
	size_t i;
	int b;

	bpf_failures = 0;
	for (i = 0; i < 300000; i++) {
		v = i < 64 ? 1ULL << i : rng() & rng();
		a[0] = v;
		bpf_check("clone", clone, a, ((uint32_t)v & CLONE_NS) != 0 ?
		    ACT_EPERM : ACT_ALLOW);
		a[0] = 0;
		a[2] = a[3] = v;
		b = ((uint32_t)v & MSG_FASTOPEN) != 0;
		bpf_check("sendto", sendto, a, b ? ACT_EPERM : ACT_ALLOW);
		bpf_check("sendmsg", sendmsg, a, b ? ACT_EPERM : ACT_ALLOW);
		bpf_check("sendmmsg", sendmmsg, a, b ? ACT_EPERM : ACT_ALLOW);
		a[2] = a[3] = 0;
	}
	a[0] = 0;
	a[1] = 0;
	a[2] = MSG_FASTOPEN;
	a[3] = 0;	/* sendto's flags are a3, sendmsg's a2 */
	bpf_check("sendto flags in a2", sendto, a, ACT_ALLOW);
	bpf_check("sendmsg", sendmsg, a, ACT_EPERM);
	assert_int_equal(bpf_failures, 0);
}

static void
test_bpf_modes(void **state)
{
	static const struct {
		const char	*name;
		int		 nr;
		int		 mode;	/* the mode's argument */
		int		 flags;	/* the open flags', or -1 */
	} calls[] = {
		{ "chmod", SCMP_SYS(chmod), 1, -1 },
		{ "fchmod", SCMP_SYS(fchmod), 1, -1 },
		{ "creat", SCMP_SYS(creat), 1, -1 },
		{ "mknod", SCMP_SYS(mknod), 1, -1 },
		{ "fchmodat", SCMP_SYS(fchmodat), 2, -1 },
		{ "mknodat", SCMP_SYS(mknodat), 2, -1 },
		{ "fchmodat2", 452, 2, -1 },
		{ "mkdir", SCMP_SYS(mkdir), 1, -1 },
		{ "mkdirat", SCMP_SYS(mkdirat), 2, -1 },
		{ "open", SCMP_SYS(open), 2, 1 },
		{ "openat", SCMP_SYS(openat), 3, 2 },
	};
	uint64_t a[6], m, fl;
	size_t c, i;
	bool makes, setid;

	bpf_failures = 0;
	for (c = 0; c < NELEM(calls); c++) {
		for (i = 0; i < 100000; i++) {
			memset(a, 0, sizeof(a));
			m = i < 4096 ? i : rng();
			fl = rng() & (rng() | 0xffffffff00000000ULL);
			a[calls[c].mode] = m;
			if (calls[c].flags >= 0)
				a[calls[c].flags] = fl;
			setid = ((uint32_t)m & (S_ISUID | S_ISGID)) != 0;
			makes = calls[c].flags < 0 ||
			    ((uint32_t)fl & (O_CREAT | __O_TMPFILE)) != 0;
			bpf_check(calls[c].name, calls[c].nr, a,
			    makes && setid ? ACT_EPERM : ACT_ALLOW);
		}
	}
	memset(a, 0, sizeof(a));
	bpf_check("openat2", SCMP_SYS(openat2), a, ACT_ENOSYS);
	assert_int_equal(bpf_failures, 0);
}

static void
test_bpf_setsockopt_personality(void **state)
{
	static const uint32_t persona_ok[] = {
		PER_LINUX, PER_LINUX32, UNAME26, PER_LINUX32 | UNAME26,
		0xffffffff
	};
	uint64_t a[6] = { 0 };
	uint32_t lvl, opt, low;
	int nr = SCMP_SYS(setsockopt), pers = SCMP_SYS(personality);
	size_t i, k;
	bool ok;

	bpf_failures = 0;
	for (lvl = 0; lvl < 300; lvl++)
		for (opt = 0; opt < 64; opt++)
			for (i = 0; i < NELEM(garbage); i++) {
				a[1] = garbage[i] | lvl;
				a[2] = garbage[(i + 1) % NELEM(garbage)] | opt;
				bpf_check("setsockopt", nr, a,
				    lvl == IPPROTO_TCP &&
				    opt == TCP_FASTOPEN_CONNECT ? ACT_EPERM :
				    ACT_ALLOW);
			}
	for (i = 0; i < 200000; i++) {
		a[1] = rng();
		a[2] = rng();
		bpf_check("setsockopt", nr, a, ACT_ALLOW);
		a[0] = i < 64 ? 1ULL << i : (rng() & 0xffffffff003f00ffULL);
		low = (uint32_t)a[0];
		for (ok = false, k = 0; k < NELEM(persona_ok); k++)
			ok |= low == persona_ok[k];
		bpf_check("personality", pers, a, ok ? ACT_ALLOW : ACT_EPERM);
	}
	for (k = 0; k < NELEM(persona_ok); k++)
		for (i = 0; i < NELEM(garbage); i++) {
			a[0] = garbage[i] | persona_ok[k];
			bpf_check("personality", pers, a, ACT_ALLOW);
		}
	assert_int_equal(bpf_failures, 0);
}

/* ---------------------------------------------------------------- */
/* The allowlist, held to its page (harn-egressd(8), System calls). */

#define NAMES_MAX	512

struct names {
	char	*v[NAMES_MAX];
	size_t	 n;
};

/* Names newer than some libseccomp, with their numbers (from 424 on). */
static const struct {
	const char	*name;
	int		 nr;
} newer[] = {
	{ "statmount", 457 }, { "listmount", 458 }, { "mseal", 462 },
	{ "open_tree_attr", 467 },
};

static int
name_nr(const char *name)
{
	size_t i;
	int nr = seccomp_syscall_resolve_name(name);

	if (nr != __NR_SCMP_ERROR)
		return nr;
	for (i = 0; i < NELEM(newer); i++)
		if (strcmp(newer[i].name, name) == 0)
			return newer[i].nr;
	return __NR_SCMP_ERROR;
}

/* Every name ("a_b", "c" ...) on a line of the page, in order. */
static void
take_names(const char *line, struct names *out)
{
	const char *p = line;
	size_t n;

	while (*p != '\0') {
		p += strspn(p, " ,.:");
		n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (n == 0) {
			p += strcspn(p, " ,");
			continue;
		}
		if (out->n < NAMES_MAX)
			out->v[out->n++] = strndup(p, n);
		p += n;
	}
}

static bool
has(const struct names *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i], name) == 0)
			return true;
	return false;
}

static void
names_free(struct names *s)
{
	while (s->n > 0)
		free(s->v[--s->n]);
}

/*
 * The page's lists: allowed, checked (the .B lines of its list), refused,
 * brokered (the .B lines of theirs) and refused to uid 0.
 */
static int
read_page(struct names *allowed, struct names *checked,
    struct names *refused, struct names *brokered, struct names *root)
{
	char path[4096], line[1024];
	const char *top = getenv("top_srcdir");
	enum { NONE, ALLOWED, CHECKED, REFUSED, BROKERED, ROOT } in = NONE;
	bool section = false, tp = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/man/harn-egressd.8",
	    top != NULL ? top : "..");
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, ".SS ", 4) == 0) {
			section = strcmp(line, ".SS System calls") == 0;
			in = NONE;
			continue;
		}
		if (!section)
			continue;
		if (strcmp(line, ".B Allowed:") == 0)
			in = ALLOWED;
		else if (strcmp(line, ".B Allowed for some arguments only") == 0)
			in = CHECKED;
		else if (strcmp(line, ".B Refused with EPERM:") == 0)
			in = REFUSED;
		else if (strcmp(line, ".B Decided by the broker") == 0)
			in = BROKERED;
		else if (strcmp(line, ".B Refused in landlock") == 0)
			in = ROOT;
		else if (strcmp(line, ".PP") == 0 && in != CHECKED &&
		    in != BROKERED)
			in = NONE;
		else if (strcmp(line, ".TP") == 0)
			tp = true;
		else if (tp && strncmp(line, ".B ", 3) == 0) {
			tp = false;
			if (in == CHECKED || in == BROKERED)
				take_names(line + 3, in == CHECKED ? checked :
				    brokered);
		} else if (line[0] != '.' && (in == ALLOWED || in == REFUSED ||
		    in == ROOT)) {
			/* The landlock list's lead-in has words, not calls. */
			if (in != ROOT || line[0] != '(')
				take_names(line, in == ALLOWED ? allowed :
				    in == REFUSED ? refused : root);
		} else
			tp = false;
	}
	(void)fclose(f);
	return 0;
}

/* What the kernel does with nr under both filters (the stricter wins). */
static uint32_t
both(const struct sock_filter *bprog, size_t blen, int nr,
    const uint64_t a[6])
{
	uint32_t main_act = action(AUDIT_ARCH_X86_64, nr, a), b;
	struct sock_filter *saved = prog;
	size_t saved_len = prog_len;

	prog = (struct sock_filter *)(uintptr_t)bprog;
	prog_len = blen;
	b = action(AUDIT_ARCH_X86_64, nr, a);
	prog = saved;
	prog_len = saved_len;
	/* Precedence: ERRNO before USER_NOTIF before ALLOW. */
	if ((main_act & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO)
		return main_act;
	if ((b & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO ||
	    (b & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
		return b;
	return main_act;
}

/*
 * The landlock confinement's UDP stand-ins: the allowlist's UDP variant
 * with the broker's SECCOMP_BROKER_UDP lets no call through that the
 * plain allowlist refuses (every UDP socket() stops for the broker, which
 * never lets one go on); sendto() and recvfrom() stop exactly when their
 * address pointer is not NULL, all 64 bits of it; IP's, IPv6's and UDP's
 * setsockopt() stop.  Without SECCOMP_BROKER_UDP none of them stops.
 */
static void
test_bpf_udp_standin(void **state)
{
	const int bw = SECCOMP_BROKER | SECCOMP_BROKER_LL | SECCOMP_BROKER_UDP;
	const void *uprog, *bprog, *lprog;
	struct sock_filter *saved = prog;
	size_t ulen, blen, llen, saved_len = prog_len, i;
	uint64_t a[6] = { 0 };
	uint32_t plain, got, lone;
	int nr, pick;
	static const int nrs[] = { SCMP_SYS(socket), SCMP_SYS(sendto),
	    SCMP_SYS(recvfrom), SCMP_SYS(setsockopt) };

	(void)state;
	assert_true(sandbox_seccomp_valid(bw));
	assert_true(sandbox_seccomp_valid(bw | SECCOMP_BROKER_OPTS));
	assert_int_equal(sandbox_seccomp_generated(SECCOMP_MAIN_UDP, &uprog,
	    &ulen), 0);
	assert_int_equal(sandbox_seccomp_generated(bw, &bprog, &blen), 0);
	assert_int_equal(sandbox_seccomp_generated(SECCOMP_BROKER |
	    SECCOMP_BROKER_LL, &lprog, &llen), 0);
	bpf_failures = 0;
	for (i = 0; i < 400000; i++) {
		pick = (int)(rng() % 5);
		nr = pick < 4 ? nrs[pick] : (int)(rng() % (NR_LAST + 1));
		a[0] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff0000003fULL);
		a[1] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000f080fULL);
		a[2] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000001ffULL);
		a[3] = rng();
		a[4] = rng() % 4 == 0 ? 0 : rng() % 2 ? rng() << 32 : rng();
		plain = action(AUDIT_ARCH_X86_64, nr, a);
		prog = (struct sock_filter *)(uintptr_t)uprog;
		prog_len = ulen / sizeof(struct sock_filter);
		got = both(bprog, blen / sizeof(struct sock_filter), nr, a);
		prog = saved;
		prog_len = saved_len;
		if ((got & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ALLOW &&
		    (plain & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ALLOW &&
		    bpf_failures++ < 20)
			print_error("  nr %d args %#llx %#llx %#llx: allowed "
			    "with stand-ins, refused without\n", nr,
			    (unsigned long long)a[0], (unsigned long long)a[1],
			    (unsigned long long)a[2]);
		lone = both(lprog, llen / sizeof(struct sock_filter), nr, a);
		if ((nr == SCMP_SYS(sendto) || nr == SCMP_SYS(recvfrom)) &&
		    (plain & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ALLOW &&
		    ((got & SECCOMP_RET_ACTION_FULL) ==
		    SECCOMP_RET_USER_NOTIF) != (a[4] != 0) &&
		    bpf_failures++ < 20)
			print_error("  nr %d address %#llx: stopped %d\n", nr,
			    (unsigned long long)a[4], (got &
			    SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF);
		if ((nr == SCMP_SYS(sendto) || nr == SCMP_SYS(recvfrom) ||
		    nr == SCMP_SYS(socket)) && (lone &
		    SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF &&
		    bpf_failures++ < 20)
			print_error("  nr %d stops without stand-ins\n", nr);
	}
	/* Each UDP socket() the UDP allowlist allows stops for the broker. */
	a[0] = AF_INET6;
	a[1] = SOCK_DGRAM | SOCK_NONBLOCK;
	a[2] = IPPROTO_UDP;
	prog = (struct sock_filter *)(uintptr_t)uprog;
	prog_len = ulen / sizeof(struct sock_filter);
	got = both(bprog, blen / sizeof(struct sock_filter), SCMP_SYS(socket),
	    a);
	a[0] = 3;
	a[1] = IPPROTO_IP;
	a[2] = IP_RECVERR;
	lone = both(bprog, blen / sizeof(struct sock_filter),
	    SCMP_SYS(setsockopt), a);
	prog = saved;
	prog_len = saved_len;
	assert_int_equal(got & SECCOMP_RET_ACTION_FULL, SECCOMP_RET_USER_NOTIF);
	assert_int_equal(lone & SECCOMP_RET_ACTION_FULL,
	    SECCOMP_RET_USER_NOTIF);
	assert_int_equal(bpf_failures, 0);
}

/*
 * Does the broker's filter which stop nr for some arguments a command
 * uses?  Its UDP variant is loaded over the allowlist's UDP variant.
 */
static bool
notified(int which, const void *bprog, size_t blen, int nr)
{
	static const uint64_t tries[][6] = {
		{ 0 }, { 1, 1, 1, 1, 1, 1 },
		{ 3, F_SETOWN, 1 }, { 3, SOL_SOCKET, SO_KEEPALIVE },
		{ AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0 },
	};
	struct sock_filter *saved = prog;
	size_t i, saved_len = prog_len, ulen;
	const void *uprog;
	bool stops = false;

	if ((which & SECCOMP_BROKER_UDP) && sandbox_seccomp_generated(
	    SECCOMP_MAIN_UDP, &uprog, &ulen) == 0) {
		prog = (struct sock_filter *)(uintptr_t)uprog;
		prog_len = ulen / sizeof(struct sock_filter);
	}
	for (i = 0; i < NELEM(tries) && !stops; i++)
		stops = (both(bprog, blen, nr, tries[i]) &
		    SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF;
	prog = saved;
	prog_len = saved_len;
	return stops;
}

/*
 * Every number from 0 to far beyond the highest any header knows takes
 * the action the page gives its name: allowed (whatever the arguments),
 * checked (the other tests hold its arguments), refused with EPERM, or,
 * named nowhere, ENOSYS (EPERM past NR_LAST).  A call the kernel gains
 * is refused until it is named.  The broker's filters stop exactly the
 * calls the page says they decide, and the uid 0 variant refuses the
 * IPC calls the page names.
 */
static void
test_bpf_allowlist(void **state)
{
	struct names allowed = { .n = 0 }, checked = { .n = 0 },
	    refused = { .n = 0 }, brokered = { .n = 0 }, root = { .n = 0 };
	const void *bprog;
	uint64_t a[6] = { 0 }, r[6];
	size_t i, blen;
	uint32_t want;
	char *name, num[16];
	int nr, which, k;
	bool seen[NR_LAST + 1];

	(void)state;
	bpf_failures = 0;
	assert_int_equal(read_page(&allowed, &checked, &refused, &brokered,
	    &root), 0);
	print_message("  page: %zu allowed, %zu checked, %zu refused, %zu "
	    "brokered\n", allowed.n, checked.n, refused.n, brokered.n);
	assert_true(allowed.n > 200 && checked.n > 10 && refused.n > 40 &&
	    brokered.n > 20 && root.n == 18);
	/* Every name on the page is a call: a typo would pass as "ENOSYS". */
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < allowed.n + checked.n + refused.n; i++) {
		const char *n = i < allowed.n ? allowed.v[i] :
		    i < allowed.n + checked.n ? checked.v[i - allowed.n] :
		    refused.v[i - allowed.n - checked.n];

		nr = name_nr(n);
		if (nr < 0 || nr > NR_LAST) {
			print_error("  page names %s: no such call\n", n);
			bpf_failures++;
			continue;
		}
		if (seen[nr]) {
			print_error("  page names %s twice\n", n);
			bpf_failures++;
		}
		seen[nr] = true;
	}
	for (nr = 0; nr < 1100; nr++) {
		name = seccomp_syscall_resolve_num_arch(seccomp_arch_native(),
		    nr);
		for (i = 0; name == NULL && i < NELEM(newer); i++)
			if (newer[i].nr == nr)
				name = strdup(newer[i].name);
		snprintf(num, sizeof(num), "nr %d", nr);
		if (name != NULL && has(&allowed, name))
			want = ACT_ALLOW;
		else if (name != NULL && has(&refused, name))
			want = ACT_EPERM;
		else if (name != NULL && has(&checked, name))
			want = action(AUDIT_ARCH_X86_64, nr, a) == ACT_ENOSYS &&
			    strcmp(name, "clone3") != 0 &&
			    strcmp(name, "openat2") != 0 ? 0 :
			    action(AUDIT_ARCH_X86_64, nr, a);
		else
			want = nr <= NR_LAST ? ACT_ENOSYS : ACT_EPERM;
		bpf_check(name != NULL ? name : num, nr, a, want);
		if (name != NULL && has(&allowed, name)) {
			for (k = 0; k < 6; k++)
				r[k] = rng();
			bpf_check(name, nr, r, ACT_ALLOW);
		}
		free(name);
	}
	/* The broker's variants stop what the page says, no more. */
	for (which = 1; which < SECCOMP_PROGRAMS; which++) {
		if (!sandbox_seccomp_valid(which))
			continue;
		assert_int_equal(sandbox_seccomp_generated(which, &bprog,
		    &blen), 0);
		for (nr = 0; nr <= NR_LAST; nr++) {
			if (!notified(which, bprog, blen /
			    sizeof(struct sock_filter),
			    nr))
				continue;
			name = seccomp_syscall_resolve_num_arch(
			    seccomp_arch_native(), nr);
			if (name == NULL || !has(&brokered, name)) {
				print_error("  filter %d stops %s, which the "
				    "page does not say\n", which,
				    name != NULL ? name : "?");
				bpf_failures++;
			}
			free(name);
		}
	}
	/* Every brokered name is stopped by some variant. */
	for (i = 0; i < brokered.n; i++) {
		bool any = false;

		nr = name_nr(brokered.v[i]);
		for (which = 1; which < SECCOMP_PROGRAMS && !any; which++)
			if (sandbox_seccomp_valid(which) &&
			    sandbox_seccomp_generated(which, &bprog, &blen) ==
			    0)
				any = notified(which, bprog, blen /
				    sizeof(struct sock_filter), nr);
		if (!any) {
			print_error("  page says the broker decides %s; no "
			    "filter stops it\n", brokered.v[i]);
			bpf_failures++;
		}
	}
	/* landlock refuses the IPC calls; namespaces (its own IPC) not. */
	for (i = 0; i < root.n; i++) {
		nr = name_nr(root.v[i]);
		assert_int_equal(sandbox_seccomp_generated(SECCOMP_BROKER |
		    SECCOMP_BROKER_LL, &bprog, &blen), 0);
		if (both(bprog, blen / sizeof(struct sock_filter), nr, a) !=
		    ACT_EPERM) {
			print_error("  landlock: %s not refused\n", root.v[i]);
			bpf_failures++;
		}
		assert_int_equal(sandbox_seccomp_generated(SECCOMP_BROKER,
		    &bprog, &blen), 0);
		if (both(bprog, blen / sizeof(struct sock_filter), nr, a) !=
		    ACT_ALLOW) {
			print_error("  namespaces: %s refused\n", root.v[i]);
			bpf_failures++;
		}
	}
	names_free(&allowed);
	names_free(&checked);
	names_free(&refused);
	names_free(&brokered);
	names_free(&root);
	assert_int_equal(bpf_failures, 0);
}

/* x32 numbers, foreign architectures: killed; numbers past all: EPERM. */
static void
test_bpf_abis(void **state)
{
	uint64_t a[6] = { 0 };
	int nr;

	(void)state;
	bpf_failures = 0;
	print_message("  filter: %zu instructions\n", prog_len);
	assert_true(prog_len <= BPF_MAXINSNS);
	for (nr = 0; nr < 1100; nr++)
		bpf_check("x32", nr | (int)X32_BIT, a, ACT_KILL);
	for (nr = 0; nr < 600; nr++) {
		if (action(AUDIT_ARCH_I386, nr, a) != ACT_KILL ||
		    action(AUDIT_ARCH_AARCH64, nr, a) != ACT_KILL ||
		    action(AUDIT_ARCH_X86_64 & ~__AUDIT_ARCH_64BIT, nr, a) !=
		    ACT_KILL)
			bpf_failures++;
	}
	bpf_check("nr -1", -1, a, ACT_EPERM);
	bpf_check("nr 0x3fffffff", 0x3fffffff, a, ACT_EPERM);
	assert_int_equal(bpf_failures, 0);
}

/*
 * The program a run loads was generated at build time: it must be the
 * very program libseccomp builds now from the same rules.
 */
static void
test_generated_program(void **state)
{
	const void *generated;
	void *built;
	size_t blen, glen;
	char err[256];

	(void)state;
	assert_int_equal(sandbox_seccomp_build_program(SECCOMP_MAIN, &built,
	    &blen, err, sizeof(err)), 0);
	assert_int_equal(sandbox_seccomp_program(&generated, &glen), 0);
	assert_int_equal(blen, glen);
	assert_memory_equal(built, generated, blen);
	free(built);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_program),
		cmocka_unit_test(test_socket),
		cmocka_unit_test(test_kernel_surface),
		cmocka_unit_test(test_host_state),
		cmocka_unit_test(test_namespaces),
		cmocka_unit_test(test_mount),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_tty),
		cmocka_unit_test(test_fastopen),
		cmocka_unit_test(test_abi),
		cmocka_unit_test(test_still_works),
		cmocka_unit_test(test_load_error),
	};
	const struct CMUnitTest bpf_tests[] = {
		cmocka_unit_test(test_bpf_allowlist),
		cmocka_unit_test(test_bpf_abis),
		cmocka_unit_test(test_bpf_socket),
		cmocka_unit_test(test_bpf_main_udp),
		cmocka_unit_test(test_bpf_udp_standin),
		cmocka_unit_test(test_bpf_ioctl),
		cmocka_unit_test(test_bpf_clone_send),
		cmocka_unit_test(test_bpf_setsockopt_personality),
		cmocka_unit_test(test_bpf_modes),
	};
	int failed;

	print_message("running as uid %u\n", (unsigned)geteuid());
	failed = cmocka_run_group_tests_name("seccomp probes", tests, NULL,
	    NULL);
	failed += cmocka_run_group_tests_name("seccomp bpf", bpf_tests,
	    load_prog, free_prog);
	return failed != 0;
}
