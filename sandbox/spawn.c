/*
 * Spawning the confined command (SPEC 6).  Four processes:
 *
 *   proxy (host namespaces)
 *     `- setup: new user (unless root), net, mount, IPC and PID namespaces;
 *        brings lo up, makes the proxy's listener and hands it over,
 *        builds the private /tmp, /run and masks; then waits
 *          `- init: PID 1 of the new PID namespace; mounts /proc for it,
 *             forwards signals, reaps, reports the command's status, and
 *             when it exits the kernel ends everything left inside
 *               `- command: setsid, Landlock, capabilities dropped,
 *                  no_new_privs, seccomp, every fd above 2 closed, exec
 *
 * Each step that fails says so on the control socket before anything is
 * run; the parent kills what was started.  Without netns there is no
 * setup work and no PID namespace, but the same three-level shape.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>

#include "sandbox/sandbox.h"

#define SETUP_TIMEOUT_MS	10000
#define SECCOMP_PROG_MAX	(4096 * 8)	/* BPF_MAXINSNS instructions */

enum msg_kind {
	MSG_INIT = 1,	/* init's host pid */
	MSG_READY,	/* about to exec; carries the listener */
	MSG_FAIL,	/* a step failed; nothing was run */
	MSG_EXIT	/* the command's wait status */
};

struct msg {
	int			 kind;
	int			 err;		/* MSG_FAIL: errno of the step */
	int			 wstatus;
	pid_t			 pid;
	unsigned short		 port;
	struct landlock_stats	 landlock;
	char			 mechanism[32];
	char			 text[256];
};

/* In the children: report a failed step, then end. */
static void __attribute__((noreturn, format(printf, 3, 4)))
child_fail(int ctl, const char *mechanism, const char *fmt, ...)
{
	struct msg m = { .kind = MSG_FAIL, .err = errno };
	va_list ap;

	snprintf(m.mechanism, sizeof(m.mechanism), "%s", mechanism);
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	(void)send(ctl, &m, sizeof(m), MSG_NOSIGNAL);
	_exit(3);
}

static int
send_msg(int ctl, const struct msg *m, int fd)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} u;
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd != -1) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(ctl, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ? 0 : -1;
}

/* One message, and the descriptor it carries (or -1). */
static int
recv_msg(int ctl, struct msg *m, int *fd, int timeout_ms)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} u;
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct pollfd pfd = { ctl, POLLIN, 0 };
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	if (timeout_ms >= 0 && poll(&pfd, 1, timeout_ms) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	do {
		n = recvmsg(ctl, &mh, MSG_CMSG_CLOEXEC);
	} while (n == -1 && errno == EINTR);
	if (n != (ssize_t)sizeof(*m)) {
		if (n >= 0)
			errno = EPIPE;
		return -1;
	}
	c = CMSG_FIRSTHDR(&mh);
	if (c != NULL && c->cmsg_level == SOL_SOCKET &&
	    c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

static int
write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd, rv;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	rv = write(fd, text, len) == (ssize_t)len ? 0 : -1;
	if (close(fd) == -1)
		rv = -1;
	return rv;
}

/*
 * An unprivileged user namespace in which we keep our own uid and gid:
 * files we create stay ours, and we hold capabilities only inside it.
 */
static void
enter_userns(int ctl)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER) == -1)
		child_fail(ctl, "linux_namespaces", "user namespace: %s",
		    strerror(errno));
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (write_file("/proc/self/setgroups", "deny") == -1 ||
	    write_file("/proc/self/uid_map", map) == -1)
		child_fail(ctl, "linux_namespaces", "uid map: %s",
		    strerror(errno));
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (write_file("/proc/self/gid_map", map) == -1)
		child_fail(ctl, "linux_namespaces", "gid map: %s",
		    strerror(errno));
}

static void
lo_up(int ctl)
{
	struct ifreq ifr;
	int s;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		child_fail(ctl, "linux_namespaces", "socket: %s",
		    strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == -1)
		child_fail(ctl, "linux_namespaces", "lo: %s", strerror(errno));
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) == -1)
		child_fail(ctl, "linux_namespaces", "lo up: %s",
		    strerror(errno));
	close(s);
}

/* The proxy's listener, on 127.0.0.1 inside the new network namespace. */
static int
make_listener(int ctl, unsigned short *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 4096) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		child_fail(ctl, "linux_namespaces", "listener: %s",
		    strerror(errno));
	*port = ntohs(sin.sin_port);
	return fd;
}

static int
mkdir_p(const char *path)
{
	char buf[4096];
	size_t i;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -1;
	for (i = 1; buf[i] != '\0'; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) == -1 && errno != EEXIST)
			return -1;
		buf[i] = '/';
	}
	return mkdir(buf, 0755) == -1 && errno != EEXIST ? -1 : 0;
}

static bool
is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/*
 * A private, empty, writable dir (/tmp, /var/tmp, /run) so that no host
 * socket in it is reachable; granted roots inside it are mounted back at
 * the same path.
 */
static void
private_dir(int ctl, const char *dir, const struct sandbox_spec *spec)
{
	struct stat st;
	char src[64];
	int fds[64];
	size_t i, n = 0;

	if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode))
		return;		/* absent, or a link to one we handle */
	for (i = 0; i < spec->ngrants && n < 64; i++) {
		if (!is_under(spec->grants[i].path, dir))
			continue;
		fds[n] = open(spec->grants[i].path, O_PATH | O_CLOEXEC);
		if (fds[n] == -1)
			child_fail(ctl, "write", "%s: %s",
			    spec->grants[i].path, strerror(errno));
		n++;
	}
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=1777") == -1)
		child_fail(ctl, "local_socket", "tmpfs on %s: %s", dir,
		    strerror(errno));
	for (i = 0, n = 0; i < spec->ngrants && n < 64; i++) {
		if (!is_under(spec->grants[i].path, dir))
			continue;
		snprintf(src, sizeof(src), "/proc/self/fd/%d", fds[n]);
		if (mkdir_p(spec->grants[i].path) == -1 ||
		    mount(src, spec->grants[i].path, NULL, MS_BIND | MS_REC,
		    NULL) == -1)
			child_fail(ctl, "write", "mount back %s: %s",
			    spec->grants[i].path, strerror(errno));
		close(fds[n++]);
	}
}

static void
read_only_bind(int ctl, const char *path)
{
	struct stat st;

	if (stat(path, &st) == -1)
		return;
	if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) == -1 ||
	    mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) ==
	    -1)
		child_fail(ctl, "write", "read-only %s: %s", path,
		    strerror(errno));
}

/* A denied path is masked: an empty read-only dir, or /dev/null. */
static void
mask_path(int ctl, const char *path)
{
	struct stat st;
	int rv;

	if (lstat(path, &st) == -1 || S_ISLNK(st.st_mode))
		return;
	if (S_ISDIR(st.st_mode))
		rv = mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID |
		    MS_NODEV | MS_NOEXEC, "mode=000,size=4k");
	else
		rv = mount("/dev/null", path, NULL, MS_BIND, NULL);
	if (rv == -1)
		child_fail(ctl, "home_read", "mask %s: %s", path,
		    strerror(errno));
}

static void
setup_mounts(int ctl, const struct sandbox_spec *spec)
{
	static const char *const private_dirs[] = { "/tmp", "/var/tmp", "/run",
	    "/dev/shm" };
	size_t i;

	/* Nothing we mount here may leak back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		child_fail(ctl, "linux_namespaces", "private mounts: %s",
		    strerror(errno));
	for (i = 0; i < sizeof(private_dirs) / sizeof(private_dirs[0]); i++)
		private_dir(ctl, private_dirs[i], spec);
	/*
	 * Read-only grants become read-only mounts: Landlock rights add up
	 * down the tree, so a read-only root inside a writable one would be
	 * writable by Landlock alone.
	 */
	for (i = 0; i < spec->ngrants; i++)
		if (spec->grants[i].grant == GRANT_RO)
			read_only_bind(ctl, spec->grants[i].path);
	for (i = 0; i < spec->ndeny; i++)
		mask_path(ctl, spec->deny[i]);
}

/*
 * Every capability gone, in every set, and never back through exec.  A
 * process that already holds none (a run without namespaces by a plain
 * user) cannot change its securebits or bounding set: no_new_privs then
 * keeps exec from gaining any, and stderr says the bounding set is left.
 */
static void
drop_privileges(int ctl, bool have_caps)
{
	struct __user_cap_header_struct hdr = {
	    _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int cap;

	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
	    SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
	    SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
	    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED) == -1 &&
	    (have_caps || errno != EPERM))
		child_fail(ctl, "unknown", "securebits: %s", strerror(errno));
	for (cap = 0; prctl(PR_CAPBSET_READ, cap) >= 0; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap) == 0)
			continue;
		if (have_caps || errno != EPERM)
			child_fail(ctl, "unknown", "bounding set: %s",
			    strerror(errno));
		dprintf(STDERR_FILENO, "harn-egressd: sandbox: not enforced: "
		    "capability bounding set (no capability to drop it; "
		    "no_new_privs keeps exec from gaining any)\n");
		break;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		child_fail(ctl, "unknown", "ambient: %s", strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		child_fail(ctl, "unknown", "no_new_privs: %s", strerror(errno));
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) == -1)
		child_fail(ctl, "unknown", "capset: %s", strerror(errno));
}

/* May this process change its securebits and bounding set? */
static bool
have_setpcap(void)
{
	struct __user_cap_header_struct hdr = {
	    _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) == -1)
		return true;	/* unknown: insist, and fail loudly */
	return (data[0].effective & (1U << CAP_SETPCAP)) != 0;
}

static void
close_fds_above_2(void)
{
	if (syscall(SYS_close_range, 3, ~0U, 0) == 0)
		return;
	for (int fd = 3; fd < 65536; fd++)
		(void)close(fd);
}

/*
 * The command's environment: what the parent chose, plus the proxy
 * variables, whose port only the set-up child knows.
 */
static char **
command_env(const struct sandbox_spec *spec, unsigned short port)
{
	static const char *const vars[] = {
		"HTTP_PROXY=http", "HTTPS_PROXY=http", "http_proxy=http",
		"https_proxy=http", "ALL_PROXY=socks5h", "all_proxy=socks5h",
	};
	size_t n = 0, i, k;
	char **env;

	while (spec->envp != NULL && spec->envp[n] != NULL)
		n++;
	if ((env = calloc(n + 7, sizeof(*env))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		env[i] = spec->envp[i];
	for (k = 0; k < 6; k++, i++) {
		const char *eq = strchr(vars[k], '=');

		if (asprintf(&env[i], "%.*s=%s://127.0.0.1:%u",
		    (int)(eq - vars[k]), vars[k], eq + 1, port) == -1)
			return NULL;
	}
	return env;
}

/* The seccomp program, from the parent: its length, or -1. */
static ssize_t
recv_filter(int ctl, void **prog)
{
	struct pollfd pfd = { ctl, POLLIN, 0 };
	ssize_t n;

	if ((*prog = malloc(SECCOMP_PROG_MAX)) == NULL)
		return -1;
	if (poll(&pfd, 1, SETUP_TIMEOUT_MS) != 1 ||
	    (n = recv(ctl, *prog, SECCOMP_PROG_MAX, 0)) <= 0) {
		free(*prog);
		*prog = NULL;
		return -1;
	}
	return n;
}

/* The command: confined, then exec'd.  Never returns. */
static void __attribute__((noreturn))
run_command(int ctl, const struct sandbox_spec *spec, int listen_fd,
    unsigned short port)
{
	struct msg m = { .kind = MSG_READY, .port = port };
	char err[256], **envp;
	void *prog = NULL;
	ssize_t plen = 0;
	int ll = -1;

	/* The filter first: nothing below may fail with it unread. */
	if (spec->seccomp && (plen = recv_filter(ctl, &prog)) <= 0)
		child_fail(ctl, "egress", "seccomp: no filter from the parent");
	if (setsid() == -1)
		child_fail(ctl, "unknown", "setsid: %s", strerror(errno));
	if (spec->landlock) {
		ll = (spec->netns ? sandbox_landlock_build_masked :
		    sandbox_landlock_build)(spec->grants, spec->ngrants,
		    spec->deny, spec->ndeny, spec->max_rules, &m.landlock, err,
		    sizeof(err));
		if (ll == -1)
			child_fail(ctl, "home_read", "landlock: %s", err);
	}
	drop_privileges(ctl, spec->netns || have_setpcap());
	if (ll != -1 && sandbox_landlock_enforce(ll, err, sizeof(err)) == -1)
		child_fail(ctl, "write", "landlock: %s", err);
	if (chdir(spec->workspace) == -1)
		child_fail(ctl, "write", "%s: %s", spec->workspace,
		    strerror(errno));
	if (spec->seccomp && sandbox_seccomp_load_program(prog, (size_t)plen,
	    err, sizeof(err)) == -1)
		child_fail(ctl, "egress", "%s", err);
	free(prog);
	if ((envp = command_env(spec, port ? port : spec->host_port)) == NULL)
		child_fail(ctl, "unknown", "environment: out of memory");
	if (send_msg(ctl, &m, listen_fd) == -1)
		_exit(3);
	close_fds_above_2();
	execvpe(spec->argv[0], spec->argv, envp);
	_exit(errno == ENOENT ? 127 : 126);
}

static volatile sig_atomic_t forward_to;

static void
forward_signal(int sig)
{
	if (forward_to > 0)
		kill(forward_to, sig);
}

/*
 * PID 1 of the command's namespace: reap everything, forward signals, and
 * report the command's status.  Exiting ends whatever is left inside.
 */
static void __attribute__((noreturn))
run_init(int ctl, const struct sandbox_spec *spec, int listen_fd,
    unsigned short port)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT,
	    SIGUSR1, SIGUSR2 };
	struct msg m = { .kind = MSG_EXIT };
	struct sigaction sa = { .sa_handler = forward_signal };
	pid_t cmd, p;
	int st;
	size_t i;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void)prctl(PR_SET_DUMPABLE, 0);	/* not readable from inside */
	if (spec->netns && mount("proc", "/proc", "proc", MS_NOSUID |
	    MS_NODEV | MS_NOEXEC, NULL) == -1)
		child_fail(ctl, "linux_namespaces", "/proc: %s",
		    strerror(errno));
	if ((cmd = fork()) == -1)
		child_fail(ctl, "unknown", "fork: %s", strerror(errno));
	if (cmd == 0)
		run_command(ctl, spec, listen_fd, port);
	if (listen_fd != -1)
		close(listen_fd);
	forward_to = cmd;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		(void)sigaction(sigs[i], &sa, NULL);
	for (;;) {
		p = waitpid(-1, &st, 0);
		if (p == cmd) {
			m.wstatus = st;
			break;
		}
		if (p == -1 && errno != EINTR)
			_exit(3);
	}
	(void)send_msg(ctl, &m, -1);
	_exit(0);
}

/* The first child: namespaces and mounts, then init; waits for it. */
static void __attribute__((noreturn))
run_setup(int ctl, const struct sandbox_spec *spec)
{
	struct msg m = { .kind = MSG_INIT };
	unsigned short port = 0;
	int listen_fd = -1, st;
	pid_t init;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	/*
	 * The proxy made itself non-dumpable, which leaves /proc/self owned
	 * by root; the id maps are written through it.  The init below makes
	 * itself non-dumpable again.
	 */
	(void)prctl(PR_SET_DUMPABLE, 1);
	if (spec->netns) {
		if (spec->userns)
			enter_userns(ctl);
		if (unshare(CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC |
		    CLONE_NEWPID) == -1)
			child_fail(ctl, "linux_namespaces", "namespaces: %s",
			    strerror(errno));
		lo_up(ctl);
		listen_fd = make_listener(ctl, &port);
		setup_mounts(ctl, spec);
	}
	if ((init = fork()) == -1)
		child_fail(ctl, "unknown", "fork: %s", strerror(errno));
	if (init == 0)
		run_init(ctl, spec, listen_fd, port);
	if (listen_fd != -1)
		close(listen_fd);
	m.pid = init;
	(void)send_msg(ctl, &m, -1);
	close(ctl);
	while (waitpid(init, &st, 0) == -1 && errno == EINTR)
		;
	_exit(0);
}

static void
kill_setup(struct sandbox_child *c)
{
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, NULL, 0) == -1 && errno == EINTR)
		;
	close(c->ctl);
	c->ctl = -1;
}

int
sandbox_spawn(const struct sandbox_spec *spec, struct sandbox_child *c,
    char *err, size_t errlen)
{
	int sv[2];

	memset(c, 0, sizeof(*c));
	c->listen_fd = -1;
	c->ctl = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	if ((c->pid = fork()) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (c->pid == 0) {
		close(sv[0]);
		run_setup(sv[1], spec);
	}
	close(sv[1]);
	c->ctl = sv[0];
	return 0;
}

int
sandbox_ready(struct sandbox_child *c, const void *prog, size_t len,
    const char **mechanism, char *err, size_t errlen)
{
	static char mech[32];
	struct msg m;
	bool ready = false;
	int fd;

	*mechanism = "unknown";
	/*
	 * INIT (from set-up) first: only then is the filter sent, so that a
	 * set-up that fails never leaves it unread (closing on unread data
	 * would reset the socket and lose the child's word on why).  The
	 * command takes it before anything it does can fail.
	 */
	while (c->init_pid == 0 || !ready) {
		if (recv_msg(c->ctl, &m, &fd, SETUP_TIMEOUT_MS) == -1) {
			snprintf(err, errlen, "sandbox set-up: %s",
			    strerror(errno));
			goto fail;
		}
		if (m.kind == MSG_INIT) {
			c->init_pid = m.pid;
			if (prog != NULL && send(c->ctl, prog, len,
			    MSG_NOSIGNAL) != (ssize_t)len) {
				snprintf(err, errlen, "seccomp: cannot hand "
				    "the filter over: %s", strerror(errno));
				goto fail;
			}
		} else if (m.kind == MSG_READY) {
			c->listen_fd = fd;
			c->port = m.port;
			c->landlock = m.landlock;
			ready = true;
		} else {
			if (fd != -1)
				close(fd);
			snprintf(mech, sizeof(mech), "%s", m.mechanism);
			*mechanism = mech;
			c->fail_errno = m.err;
			snprintf(err, errlen, "%s", m.text);
			goto fail;
		}
	}
	return 0;
fail:
	if (c->listen_fd != -1)
		close(c->listen_fd);
	c->listen_fd = -1;
	kill_setup(c);
	return -1;
}

void
sandbox_signal(const struct sandbox_child *c, int sig)
{
	if (c->init_pid > 0)
		kill(c->init_pid, sig);
}

int
sandbox_wait(struct sandbox_child *c, int *wstatus)
{
	struct msg m;
	int fd, st = 0, got = 0;

	while (!got && recv_msg(c->ctl, &m, &fd, -1) == 0) {
		if (fd != -1)
			close(fd);
		if (m.kind == MSG_EXIT) {
			*wstatus = m.wstatus;
			got = 1;
		}
	}
	while (waitpid(c->pid, &st, 0) == -1 && errno == EINTR)
		;
	close(c->ctl);
	c->ctl = -1;
	if (!got)
		*wstatus = st;	/* init died without a word */
	return 0;
}
