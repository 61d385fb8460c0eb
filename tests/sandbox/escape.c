/* SPDX-License-Identifier: Apache-2.0 */
/*
 * escape: sandbox escape probes for tests/sandbox/*.sh (SPEC 6).
 *
 *     escape PROBE [ARG...]
 *
 * Each run attempts ONE thing and prints ONE line:
 *
 *     ESCAPED <what> [detail]      exit 10  the attempt worked
 *     BLOCKED <what> <errno-name>  exit 0   the attempt failed
 *     ALLOWED <what> [detail]      exit 0   (allowed probes) it worked
 *     DENIED  <what> <errno-name>  exit 1   (allowed probes) it failed
 *     usage error                  exit 2
 *
 * <what> is one word: the probe and its stage or target, e.g.
 * "mptcp:socket" or "tcp:127.0.0.1:4000".  A test can then tell which
 * layer stopped an attempt (seccomp says EPERM at the socket() stage; the
 * network namespace says ECONNREFUSED or ENETUNREACH at connect()).
 *
 * Escape probes (exit 10 when they work):
 *   tcp HOST PORT [TAG]       direct TCP connect (no proxy); sends TAG
 *   udp HOST PORT [TAG]       datagram to an echo server, waits for the echo
 *   unix-path PATH [TAG]      connect to a pathname unix socket
 *   unix-abstract NAME [TAG]  connect to an abstract unix socket
 *   mptcp HOST PORT [TAG]     socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)
 *   mptcp-hi HOST PORT [TAG]  the same, protocol with upper 32 bits set
 *   tfo HOST PORT [TAG]       sendto(MSG_FASTOPEN) on a fresh TCP socket
 *   tfo-hi HOST PORT [TAG]    the same, flags with upper 32 bits set
 *   tfo-connect HOST PORT [TAG]  setsockopt(TCP_FASTOPEN_CONNECT) + connect
 *   raw                       socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)
 *   packet                    socket(AF_PACKET, SOCK_RAW, ETH_P_ALL)
 *   packet-hi                 the same, family with upper 32 bits set
 *   netlink-audit             socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT)
 *   vsock                     socket(AF_VSOCK, SOCK_STREAM)
 *   alg                       socket(AF_ALG, SOCK_SEQPACKET)
 *   io_uring                  io_uring_setup(2)
 *   ptrace PID                PTRACE_ATTACH, else read /proc/PID/mem
 *   ptrace-attach PID         PTRACE_ATTACH only (the syscall layer)
 *   traceme                   PTRACE_TRACEME in a forked child
 *   userns                    unshare(CLONE_NEWUSER)
 *   netns                     unshare(CLONE_NEWNET), else with CLONE_NEWUSER
 *   clone-userns              clone(CLONE_NEWUSER) (raw syscall, fork-like)
 *   clone3                    clone3() (SPEC: ENOSYS) with CLONE_NEWUSER
 *   tiocsti                   ioctl(TIOCSTI) on fd 0 or /dev/tty, else on a
 *                             fresh pty made the controlling tty
 *   tiocsti-hi                the same, request with upper 32 bits set
 *   keyctl                    add_key(2) to the session keyring
 *   bpf                       bpf(BPF_MAP_CREATE)
 *   perf                      perf_event_open(2) (software clock, self)
 *   userfaultfd               userfaultfd(UFFD_USER_MODE_ONLY)
 *   process_vm_readv          process_vm_readv(2) on itself
 *   mount                     mount tmpfs on a fresh dir under $TMPDIR|/tmp
 *   open_by_handle_at         name_to_handle_at + open_by_handle_at on /
 *   ia32                      a 32-bit syscall (int $0x80): a foreign ABI
 *   fd N                      fcntl(N, F_GETFD): an inherited descriptor
 *   read PATH                 open + read (prints the first bytes)
 *   list PATH                 opendir + readdir (prints the first names)
 *   write PATH                create + write
 *   caps                      /proc/self/status: Cap* zero, NoNewPrivs 1,
 *                             Seccomp 2 (ESCAPED names each field off)
 *   env NAME                  getenv (ESCAPED when set; prints its length)
 *   fchmodat2 FILE            make FILE, then mode 06755 by fchmodat2(2)
 *   setcap FILE               security.capability (cap_setuid,setgid+ep)
 *   trusted-xattr FILE        a trusted.* attribute (CAP_SYS_ADMIN's)
 *   chown-to UID FILE         chown(FILE, UID, -1): another owner
 *   netlink-peer PORTID [TAG] connect a NETLINK_ROUTE socket to another
 *                             process's port id, send TAG
 *   listen-unbound            listen() on a socket never bound (the kernel
 *                             binds it to every address)
 *   bind-any PORT             bind(0.0.0.0:PORT)
 *   bind-addr HOST PORT       bind(HOST:PORT), then listen
 *   renice PID                setpriority(PRIO_PROCESS, PID, 19)
 *   prlimit PID               prlimit(PID, RLIMIT_NOFILE) to what it is
 *   shmat ID                  attach a SysV shared memory segment
 *   pidfd-proc PID            pidfd_send_signal(SIGTERM) through an open
 *                             /proc/PID directory, which serves as a pidfd
 *   truncate PATH LEN         truncate(2)
 *   chattr PATH               FS_IOC_SETFLAGS nodump on a file opened to read
 *   bind-reuseport HOST PORT  SO_REUSEPORT, bind, listen: a port a host
 *                             service shares that way
 *   seqfork N                 fork and wait N times (ALLOWED when all do)
 *   environ-of PID            read /proc/PID/environ
 *   chmod PATH MODE           chmod (octal MODE)
 *   chown PATH                chown to the caller's own uid and gid
 *   utime PATH                set the times to now
 *   xattr PATH                set, then remove, user.harn-probe
 *   setuid-file PATH          make PATH set-user-ID: open(O_CREAT, 04755),
 *                             then fchmod; escaped when S_ISUID is on it
 *   forks N                   N live children at once
 *   fill DIR MIB              write MIB MiB into DIR (removed again)
 *   open-rw PATH              open read-write (a terminal, say)
 *   kill-pid PID              kill(PID, SIGKILL)
 *   unix-thread PATH [TAG]    unix-path from a second thread
 *   unix-vfork PATH [TAG]     unix-path from a vfork()ed child
 *   unix-race OK HOST N [TAG] N connects to OK while a thread rewrites the
 *                             address to HOST: escaped when one reaches HOST
 *   unix-race-first OK HOST N [TAG]  the same, stopping at the first that
 *                             reaches HOST (a control: under load a fixed
 *                             few tries may all land on OK)
 *   tcp-race OK HOST N [TAG]  the same on 127.0.0.1, ports OK and HOST
 *   unix-dgram PATH [TAG]     a unix datagram to PATH (/dev/log, say)
 *   bind-port PORT            listen on 127.0.0.1:PORT (a fixed port)
 *   kill-pgrp PGID            kill(-PGID, SIGKILL)
 *   pidfd-kill PID            pidfd_open + pidfd_send_signal(SIGKILL)
 *   setown PID                F_SETOWN to PID on a socket, O_ASYNC, then
 *                             I/O: SIGIO (fatal by default) goes to PID
 *
 * Allowed probes (exit 0 when they work, 1 when refused):
 *   netlink-route             socket(AF_NETLINK, NETLINK_ROUTE) + the names
 *                             of the interfaces (if_nameindex)
 *   socketpair                an AF_UNIX socketpair passes a byte
 *   unix-self DIR             bind a socket in DIR, connect to it
 *   tcp-self                  listen on 127.0.0.1:0, connect to it
 *   tcp-nonblock HOST PORT    TCP_NODELAY, O_NONBLOCK, connect: 0 or
 *                             EINPROGRESS, then connected, both kept
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <pthread.h>
#include <termios.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/netlink.h>

#define EXIT_BLOCKED	0
#define EXIT_DENIED	1
#define EXIT_USAGE	2
#define EXIT_ESCAPED	10
#define TIMEOUT_MS	2000

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP	262
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN	0x20000000
#endif
#ifndef TCP_FASTOPEN_CONNECT
#define TCP_FASTOPEN_CONNECT	30
#endif
#ifndef AF_VSOCK
#define AF_VSOCK	40
#endif
#ifndef AF_ALG
#define AF_ALG		38
#endif
#ifndef NETLINK_AUDIT
#define NETLINK_AUDIT	9
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup	425
#endif
#ifndef SYS_clone3
#define SYS_clone3	435
#endif
#ifndef SYS_userfaultfd
#define SYS_userfaultfd	323
#endif
#ifndef SYS_perf_event_open
#define SYS_perf_event_open	298
#endif
#ifndef SYS_bpf
#define SYS_bpf		321
#endif
#ifndef SYS_add_key
#define SYS_add_key	248
#endif
#define UFFD_USER_MODE_ONLY	1
#define HI		(1ULL << 32)
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal	424
#endif

static const char *
ename(int e)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	const char *s = strerrorname_np(e);

	if (s != NULL)
		return s;
#endif
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case ENOSYS: return "ENOSYS";
	case EBADF: return "EBADF";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ENETUNREACH: return "ENETUNREACH";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EINVAL: return "EINVAL";
	case ESRCH: return "ESRCH";
	case EAGAIN: return "EAGAIN";
	case EROFS: return "EROFS";
	case EADDRINUSE: return "EADDRINUSE";
	}
	return "E?";
}

static int
escaped(const char *what, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int
escaped(const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("ESCAPED %s", what);
	if (fmt != NULL) {
		putchar(' ');
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	return EXIT_ESCAPED;
}

static int
blocked(const char *what, int e)
{
	printf("BLOCKED %s %s\n", what, ename(e));
	return EXIT_BLOCKED;
}

static int
blocked_s(const char *what, const char *why)
{
	printf("BLOCKED %s %s\n", what, why);
	return EXIT_BLOCKED;
}

static int
allowed(const char *what, const char *detail)
{
	printf("ALLOWED %s%s%s\n", what, detail ? " " : "", detail ? detail : "");
	return 0;
}

static int
denied(const char *what, int e)
{
	printf("DENIED %s %s\n", what, ename(e));
	return EXIT_DENIED;
}

static int
denied_s(const char *what, const char *why)
{
	printf("DENIED %s %s\n", what, why);
	return EXIT_DENIED;
}

static int
usage(void)
{
	fprintf(stderr, "usage: escape PROBE [ARG...] (see tests/sandbox/escape.c)\n");
	return EXIT_USAGE;
}

/* One word naming a probe and its stage: "probe:stage" (static buffer). */
static const char *
w(const char *probe, const char *stage)
{
	static char buf[2][512];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s:%s", probe, stage);
	return buf[i];
}

/* A numeric host and port; 0, or -1 on a bad argument. */
static int
parse_addr(const char *host, const char *port, struct sockaddr_storage *ss,
    socklen_t *len)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
	    .ai_socktype = SOCK_STREAM }, *res;

	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* connect() with a timeout; 0 or an errno. */
static int
connect_wait(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct pollfd p = { fd, POLLOUT, 0 };
	int fl = fcntl(fd, F_GETFL), e = 0;
	socklen_t el = sizeof(e);

	(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	if (connect(fd, sa, len) == 0)
		goto done;
	if (errno != EINPROGRESS)
		return errno;
	if (poll(&p, 1, TIMEOUT_MS) != 1)
		return ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == -1)
		return errno;
	if (e != 0)
		return e;
done:
	(void)fcntl(fd, F_SETFL, fl);
	return 0;
}

static void
send_tag(int fd, const char *tag)
{
	char buf[256];
	int n;

	if (tag == NULL)
		return;
	n = snprintf(buf, sizeof(buf), "%s\n", tag);
	(void)send(fd, buf, (size_t)n, MSG_NOSIGNAL);
	usleep(50000);	/* let the canary read it before we close */
}

/* tcp / mptcp: socket(family, SOCK_STREAM, proto) then connect. */
static int
probe_stream(const char *name, long long proto, int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char target[300];
	int fd, e;

	if (argc < 2 || parse_addr(argv[0], argv[1], &ss, &len) == -1)
		return usage();
	snprintf(target, sizeof(target), "%s:%s", argv[0], argv[1]);
	fd = (int)syscall(SYS_socket, (long long)ss.ss_family, SOCK_STREAM,
	    proto);
	if (fd == -1)
		return blocked(w(name, "socket"), errno);
	if ((e = connect_wait(fd, (struct sockaddr *)&ss, len)) != 0)
		return blocked(w(name, "connect"), e);
	send_tag(fd, argc > 2 ? argv[2] : NULL);
	return escaped(w(name, target), NULL);
}

/* sendto(MSG_FASTOPEN): connects and sends in one call. */
static int
probe_tfo(const char *name, int hi, int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char target[300], buf[256];
	unsigned long long flags = MSG_FASTOPEN | MSG_NOSIGNAL;
	long n;
	int fd;

	if (argc < 2 || parse_addr(argv[0], argv[1], &ss, &len) == -1)
		return usage();
	snprintf(target, sizeof(target), "%s:%s", argv[0], argv[1]);
	snprintf(buf, sizeof(buf), "%s\n", argc > 2 ? argv[2] : "tfo");
	if ((fd = socket(ss.ss_family, SOCK_STREAM, 0)) == -1)
		return blocked(w(name, "socket"), errno);
	if (hi)
		flags |= HI;
	n = syscall(SYS_sendto, fd, buf, strlen(buf), flags,
	    (struct sockaddr *)&ss, len);
	if (n == -1)
		return blocked(w(name, "sendto"), errno);
	usleep(50000);
	return escaped(w(name, target), "sent %ld", n);
}

static int
probe_tfo_connect(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char target[300];
	int fd, one = 1, e;

	if (argc < 2 || parse_addr(argv[0], argv[1], &ss, &len) == -1)
		return usage();
	snprintf(target, sizeof(target), "%s:%s", argv[0], argv[1]);
	if ((fd = socket(ss.ss_family, SOCK_STREAM, 0)) == -1)
		return blocked(w("tfo-connect", "socket"), errno);
	if (setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one,
	    sizeof(one)) == -1)
		return blocked(w("tfo-connect", "setsockopt"), errno);
	if ((e = connect_wait(fd, (struct sockaddr *)&ss, len)) != 0)
		return blocked(w("tfo-connect", "connect"), e);
	send_tag(fd, argc > 2 ? argv[2] : NULL);
	return escaped(w("tfo-connect", target), NULL);
}

static int
probe_udp(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char target[300], out[256], in[256];
	struct pollfd p;
	ssize_t n;
	int fd;

	if (argc < 2 || parse_addr(argv[0], argv[1], &ss, &len) == -1)
		return usage();
	snprintf(target, sizeof(target), "%s:%s", argv[0], argv[1]);
	snprintf(out, sizeof(out), "%s", argc > 2 ? argv[2] : "udp-probe");
	if ((fd = socket(ss.ss_family, SOCK_DGRAM, 0)) == -1)
		return blocked(w("udp", "socket"), errno);
	if (connect(fd, (struct sockaddr *)&ss, len) == -1)
		return blocked(w("udp", "connect"), errno);
	if (send(fd, out, strlen(out), 0) == -1)
		return blocked(w("udp", "send"), errno);
	p.fd = fd;
	p.events = POLLIN;
	if (poll(&p, 1, TIMEOUT_MS) != 1)
		return blocked(w("udp", "recv"), ETIMEDOUT);
	if ((n = recv(fd, in, sizeof(in) - 1, 0)) == -1)
		return blocked(w("udp", "recv"), errno);
	in[n] = '\0';
	if ((size_t)n != strlen(out) || memcmp(in, out, (size_t)n) != 0)
		return blocked_s(w("udp", "recv"), "WRONG_ECHO");
	return escaped(w("udp", target), "echo");
}

static int
probe_unix(const char *name, const char *path, int abstract, const char *tag)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len;
	size_t pl = strlen(path);
	int fd, e;

	if (pl + 2 > sizeof(sun.sun_path))
		return usage();
	if (abstract) {
		memcpy(sun.sun_path + 1, path, pl);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + pl);
	} else {
		memcpy(sun.sun_path, path, pl);
		len = sizeof(sun);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return blocked(w(name, "socket"), errno);
	if ((e = connect_wait(fd, (struct sockaddr *)&sun, len)) != 0)
		return blocked(w(name, path), e);
	send_tag(fd, tag);
	return escaped(w(name, path), NULL);
}

/* socket(family, type, proto): made is escaped. */
static int
probe_socket(const char *name, long long family, int type, int proto)
{
	int fd;

	fd = (int)syscall(SYS_socket, family, type, proto);
	if (fd == -1)
		return blocked(w(name, "socket"), errno);
	close(fd);
	return escaped(w(name, "socket"), NULL);
}

static int
probe_netlink_route(void)
{
	struct if_nameindex *ifs, *i;
	char names[512] = "";
	int fd;

	if ((fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)) == -1)
		return denied(w("netlink-route", "socket"), errno);
	close(fd);
	if ((ifs = if_nameindex()) == NULL)
		return denied(w("netlink-route", "if_nameindex"), errno);
	for (i = ifs; i->if_index != 0; i++) {
		if (names[0] != '\0')
			strncat(names, ",", sizeof(names) - strlen(names) - 1);
		strncat(names, i->if_name, sizeof(names) - strlen(names) - 1);
	}
	if_freenameindex(ifs);
	{
		char d[600];

		snprintf(d, sizeof(d), "links=%s", names);
		return allowed("netlink-route", d);
	}
}

static int
probe_io_uring(void)
{
	unsigned char params[120];	/* struct io_uring_params */
	long fd;

	memset(params, 0, sizeof(params));
	fd = syscall(SYS_io_uring_setup, 4, params);
	if (fd == -1)
		return blocked(w("io_uring", "setup"), errno);
	close((int)fd);
	return escaped(w("io_uring", "setup"), NULL);
}

/* Read some bytes of PID's memory at its first readable mapping. */
static int
read_mem(pid_t pid, int *err)
{
	char path[64], line[512], buf[16];
	unsigned long start = 0;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "r")) == NULL) {
		*err = errno;
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char perms[8];

		if (sscanf(line, "%lx-%*x %7s", &start, perms) == 2 &&
		    perms[0] == 'r')
			break;
		start = 0;
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if ((fd = open(path, O_RDONLY)) == -1) {
		*err = errno;
		return -1;
	}
	if (start == 0 || pread(fd, buf, sizeof(buf), (off_t)start) <= 0) {
		*err = start == 0 ? EACCES : errno;
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int
probe_ptrace(int argc, char **argv, int attach_only)
{
	const char *name = attach_only ? "ptrace-attach" : "ptrace";
	pid_t pid;
	int e, me;

	if (argc < 1 || (pid = (pid_t)atoi(argv[0])) <= 0)
		return usage();
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) == 0) {
		(void)waitpid(pid, NULL, __WALL);
		(void)ptrace(PTRACE_DETACH, pid, NULL, NULL);
		return escaped(w(name, argv[0]), "attached");
	}
	e = errno;
	if (attach_only)
		return blocked(w(name, "attach"), e);
	if (read_mem(pid, &me) == 0)
		return escaped(w(name, argv[0]), "read /proc/%d/mem", (int)pid);
	printf("BLOCKED %s %s mem:%s\n", w(name, "attach"), ename(e),
	    ename(me));
	return EXIT_BLOCKED;
}

/* Run fn in a forked child; its result: 0 worked, else an errno. */
static int
in_child(int (*fn)(void))
{
	int sv[2], r = EIO;
	pid_t pid;

	if (pipe(sv) == -1)
		return errno;
	if ((pid = fork()) == -1)
		return errno;
	if (pid == 0) {
		r = fn();
		(void)write(sv[1], &r, sizeof(r));
		_exit(0);
	}
	close(sv[1]);
	if (read(sv[0], &r, sizeof(r)) != (ssize_t)sizeof(r))
		r = EIO;
	(void)waitpid(pid, NULL, 0);
	return r;
}

static int
do_traceme(void)
{
	return ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0 ? 0 : errno;
}

static int
probe_userns(void)
{
	if (unshare(CLONE_NEWUSER) == -1)
		return blocked(w("userns", "unshare"), errno);
	return escaped(w("userns", "unshare"), NULL);
}

static int
probe_netns(void)
{
	int e;

	if (unshare(CLONE_NEWNET) == 0)
		return escaped(w("netns", "unshare"), NULL);
	e = errno;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0)
		return escaped(w("netns", "unshare+user"), NULL);
	printf("BLOCKED %s %s +user:%s\n", w("netns", "unshare"), ename(e),
	    ename(errno));
	return EXIT_BLOCKED;
}

static int
probe_clone_userns(void)
{
	long pid;
	int st;

	pid = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD),
	    NULL, NULL, NULL, NULL);
	if (pid == -1)
		return blocked(w("clone-userns", "clone"), errno);
	if (pid == 0)
		_exit(0);
	(void)waitpid((pid_t)pid, &st, 0);
	return escaped(w("clone-userns", "clone"), NULL);
}

static int
probe_clone3(void)
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal,
		    stack, stack_size, tls;
	} args;
	long pid;
	int st;

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_NEWUSER;
	args.exit_signal = SIGCHLD;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == -1)
		return blocked(w("clone3", "clone3"), errno);
	if (pid == 0)
		_exit(0);
	(void)waitpid((pid_t)pid, &st, 0);
	return escaped(w("clone3", "clone3"), NULL);
}

static int tiocsti_hi;

static int
sti(int fd)
{
	char c = '#';
	unsigned long long req = TIOCSTI;

	if (tiocsti_hi)
		req |= HI;
	return syscall(SYS_ioctl, fd, req, &c) == 0 ? 0 : errno;
}

/* In a child: a new session, a fresh pty as its controlling tty, TIOCSTI. */
static int
sti_fresh_pty(void)
{
	int m, s, e;
	char *name;

	(void)signal(SIGHUP, SIG_IGN);	/* closing our ctty hangs us up */
	(void)setsid();
	if ((m = posix_openpt(O_RDWR | O_NOCTTY)) == -1)
		return 1000 + errno;
	if (grantpt(m) == -1 || unlockpt(m) == -1 ||
	    (name = ptsname(m)) == NULL)
		return 1000 + errno;
	if ((s = open(name, O_RDWR)) == -1)
		return 1000 + errno;
	(void)ioctl(s, TIOCSCTTY, 0);
	e = sti(s);
	close(s);
	close(m);
	return e;
}

static int
probe_tiocsti(int hi)
{
	const char *name = hi ? "tiocsti-hi" : "tiocsti";
	int fd, e;

	tiocsti_hi = hi;
	if (isatty(0)) {
		if ((e = sti(0)) == 0)
			return escaped(w(name, "fd0"), NULL);
		return blocked(w(name, "fd0"), e);
	}
	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY)) != -1) {
		e = sti(fd);
		close(fd);
		if (e == 0)
			return escaped(w(name, "dev-tty"), NULL);
		return blocked(w(name, "dev-tty"), e);
	}
	e = in_child(sti_fresh_pty);
	if (e == 0)
		return escaped(w(name, "pty"), NULL);
	if (e >= 1000)	/* no pty to try it on: not the ioctl's verdict */
		return blocked(w(name, "openpt"), e - 1000);
	return blocked(w(name, "pty"), e);
}

static int
probe_keyctl(void)
{
	long k;

	k = syscall(SYS_add_key, "user", "harn-escape-probe", "x", 1,
	    -3 /* KEY_SPEC_SESSION_KEYRING */);
	if (k == -1)
		return blocked(w("keyctl", "add_key"), errno);
	return escaped(w("keyctl", "add_key"), NULL);
}

static int
probe_bpf(void)
{
	struct {
		uint32_t map_type, key_size, value_size, max_entries,
		    map_flags;
	} attr = { 2 /* BPF_MAP_TYPE_ARRAY */, 4, 4, 1, 0 };
	unsigned char buf[128];
	long fd;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &attr, sizeof(attr));
	fd = syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, buf, sizeof(buf));
	if (fd == -1)
		return blocked(w("bpf", "map_create"), errno);
	return escaped(w("bpf", "map_create"), NULL);
}

static int
probe_perf(void)
{
	unsigned char attr[128];
	uint32_t type = 1 /* PERF_TYPE_SOFTWARE */, size = sizeof(attr);
	uint64_t config = 0 /* PERF_COUNT_SW_CPU_CLOCK */;
	uint64_t bits = (1ULL << 0) /* disabled */ | (1ULL << 5) /* ex_kernel */
	    | (1ULL << 6) /* exclude_hv */;
	long fd;

	memset(attr, 0, sizeof(attr));
	memcpy(attr + 0, &type, 4);
	memcpy(attr + 4, &size, 4);
	memcpy(attr + 8, &config, 8);
	memcpy(attr + 40, &bits, 8);
	fd = syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
	if (fd == -1)
		return blocked(w("perf", "perf_event_open"), errno);
	return escaped(w("perf", "perf_event_open"), NULL);
}

static int
probe_userfaultfd(void)
{
	long fd;

	fd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (fd == -1)
		return blocked(w("userfaultfd", "userfaultfd"), errno);
	return escaped(w("userfaultfd", "userfaultfd"), NULL);
}

static int
probe_process_vm_readv(void)
{
	static char src[16] = "harn-vm-probe";
	char dst[16] = "";
	struct iovec l = { dst, sizeof(dst) }, r = { src, sizeof(src) };

	if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) == -1)
		return blocked(w("process_vm_readv", "self"), errno);
	return escaped(w("process_vm_readv", "self"), NULL);
}

static int
probe_mount(void)
{
	const char *t = getenv("TMPDIR");
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/harn-mnt-XXXXXX", t ? t : "/tmp");
	if (mkdtemp(dir) == NULL)
		return blocked(w("mount", "mkdtemp"), errno);
	if (mount("none", dir, "tmpfs", 0, "size=4k") == -1) {
		int e = errno;

		rmdir(dir);
		return blocked(w("mount", "tmpfs"), e);
	}
	(void)umount(dir);
	rmdir(dir);
	return escaped(w("mount", "tmpfs"), NULL);
}

static int
probe_open_by_handle(void)
{
	struct {
		struct file_handle fh;
		unsigned char buf[128];
	} h;
	int mnt, fd;

	h.fh.handle_bytes = sizeof(h.buf);
	if (name_to_handle_at(AT_FDCWD, "/", &h.fh, &mnt, 0) == -1)
		return blocked(w("open_by_handle_at", "name_to_handle"), errno);
	if ((mnt = open("/", O_RDONLY | O_DIRECTORY)) == -1)
		return blocked(w("open_by_handle_at", "open"), errno);
	if ((fd = open_by_handle_at(mnt, &h.fh, O_RDONLY)) == -1)
		return blocked(w("open_by_handle_at", "open_by_handle_at"),
		    errno);
	return escaped(w("open_by_handle_at", "open_by_handle_at"), NULL);
}

#if defined(__x86_64__)
static int
ia32_getpid(void)
{
	long r = 20;	/* __NR_getpid on i386 */

	__asm__ volatile ("int $0x80" : "+a"(r) : : "memory");
	return r > 0 ? 0 : (int)-r;
}
#endif

static int
probe_ia32(void)
{
#if defined(__x86_64__)
	pid_t pid;
	int st;

	if ((pid = fork()) == -1)
		return blocked(w("ia32", "fork"), errno);
	if (pid == 0)
		_exit(ia32_getpid() == 0 ? 0 : 1);
	(void)waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return escaped(w("ia32", "int80"), NULL);
	if (WIFSIGNALED(st))
		return blocked_s(w("ia32", "int80"), WTERMSIG(st) == SIGSYS ?
		    "SIGSYS" : strsignal(WTERMSIG(st)) ? "SIGNALED" : "SIG?");
	return blocked_s(w("ia32", "int80"), "FAILED");
#else
	return blocked_s(w("ia32", "int80"), "NOT_X86_64");
#endif
}

static int
probe_fd(int argc, char **argv)
{
	int fd;

	if (argc < 1 || (fd = atoi(argv[0])) < 0)
		return usage();
	if (fcntl(fd, F_GETFD) == -1)
		return blocked(w("fd", argv[0]), errno);
	return escaped(w("fd", argv[0]), "open");
}

/* Printable first bytes of buf, for the test to grep. */
static void
printable(char *buf, ssize_t n)
{
	ssize_t i;

	for (i = 0; i < n; i++)
		if (buf[i] < 0x20 || buf[i] > 0x7e)
			buf[i] = '.';
	buf[n] = '\0';
}

static int
probe_read(int argc, char **argv)
{
	char buf[129];
	ssize_t n;
	int fd;

	if (argc < 1)
		return usage();
	if ((fd = open(argv[0], O_RDONLY)) == -1)
		return blocked(w("read", argv[0]), errno);
	if ((n = read(fd, buf, sizeof(buf) - 1)) == -1)
		return blocked(w("read", argv[0]), errno);
	if (n == 0)	/* masked by /dev/null, or empty */
		return blocked_s(w("read", argv[0]), "EMPTY");
	printable(buf, n);
	return escaped(w("read", argv[0]), "%zd bytes: %s", n, buf);
}

static int
probe_list(int argc, char **argv)
{
	char names[512] = "";
	struct dirent *d;
	DIR *dir;
	int n = 0;

	if (argc < 1)
		return usage();
	if ((dir = opendir(argv[0])) == NULL)
		return blocked(w("list", argv[0]), errno);
	errno = 0;
	while ((d = readdir(dir)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		n++;
		strncat(names, " ", sizeof(names) - strlen(names) - 1);
		strncat(names, d->d_name, sizeof(names) - strlen(names) - 1);
	}
	if (errno != 0)
		return blocked(w("list", argv[0]), errno);
	closedir(dir);
	if (n == 0)
		return blocked_s(w("list", argv[0]), "EMPTY");
	return escaped(w("list", argv[0]), "%d entries:%s", n, names);
}

static int
probe_write(int argc, char **argv)
{
	static const char text[] = "harn-escape-write\n";
	int fd;

	if (argc < 1)
		return usage();
	if ((fd = open(argv[0], O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1)
		return blocked(w("write", argv[0]), errno);
	if (write(fd, text, sizeof(text) - 1) != (ssize_t)sizeof(text) - 1)
		return blocked(w("write", argv[0]), errno);
	if (close(fd) == -1)
		return blocked(w("write", argv[0]), errno);
	return escaped(w("write", argv[0]), NULL);
}

static int
probe_caps(void)
{
	static const char *const capf[] = { "CapInh:", "CapPrm:", "CapEff:",
	    "CapBnd:", "CapAmb:" };
	char line[256], bad[512] = "";
	int seen = 0, nnp = -1, sc = -1;
	FILE *f;
	size_t i;

	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return blocked(w("caps", "status"), errno);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *v = strchr(line, ':');

		if (v == NULL)
			continue;
		v++;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		for (i = 0; i < 5; i++) {
			if (strncmp(line, capf[i], strlen(capf[i])) != 0)
				continue;
			seen++;
			if (strtoull(v, NULL, 16) != 0) {
				strncat(bad, capf[i], sizeof(bad) - strlen(bad) - 1);
				strncat(bad, v, sizeof(bad) - strlen(bad) - 1);
				strncat(bad, ";", sizeof(bad) - strlen(bad) - 1);
			}
		}
		if (strncmp(line, "NoNewPrivs:", 11) == 0)
			nnp = atoi(v);
		if (strncmp(line, "Seccomp:", 8) == 0)
			sc = atoi(v);
	}
	fclose(f);
	if (seen != 5)
		return blocked_s(w("caps", "status"), "UNREADABLE");
	if (nnp != 1)
		snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
		    "NoNewPrivs:%d;", nnp);
	if (sc != 2)
		snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
		    "Seccomp:%d;", sc);
	if (bad[0] == '\0')
		return blocked_s(w("caps", "status"), "NONE");
	return escaped(w("caps", "status"), "%s", bad);
}

static int
probe_env(int argc, char **argv)
{
	const char *v;

	if (argc < 1)
		return usage();
	if ((v = getenv(argv[0])) == NULL)
		return blocked_s(w("env", argv[0]), "UNSET");
	return escaped(w("env", argv[0]), "set, %zu bytes", strlen(v));
}

static int
probe_environ_of(int argc, char **argv)
{
	char path[64], buf[8192];
	ssize_t n, total = 0;
	int fd, secret = 0;

	if (argc < 1 || atoi(argv[0]) <= 0)
		return usage();
	snprintf(path, sizeof(path), "/proc/%d/environ", atoi(argv[0]));
	if ((fd = open(path, O_RDONLY)) == -1)
		return blocked(w("environ-of", argv[0]), errno);
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = '\n';
		if (strstr(buf, "SECRET_TOKEN=") != NULL)
			secret = 1;
		total += n;
	}
	if (n == -1)
		return blocked(w("environ-of", argv[0]), errno);
	if (total == 0)
		return blocked_s(w("environ-of", argv[0]), "EMPTY");
	return escaped(w("environ-of", argv[0]), "%zd bytes%s", total,
	    secret ? " SECRET_TOKEN" : "");
}

static int
probe_socketpair(void)
{
	int sv[2];
	char c = 'x', d = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		return denied(w("socketpair", "socketpair"), errno);
	if (write(sv[0], &c, 1) != 1 || read(sv[1], &d, 1) != 1 || d != c)
		return denied(w("socketpair", "io"), errno);
	return allowed("socketpair", NULL);
}

static int
probe_unix_self(int argc, char **argv)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int l, c, a;

	if (argc < 1)
		return usage();
	if (snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/escape-%d.sock",
	    argv[0], (int)getpid()) >= (int)sizeof(sun.sun_path))
		return usage();
	if ((l = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return denied(w("unix-self", "socket"), errno);
	if (bind(l, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		return denied(w("unix-self", "bind"), errno);
	if (listen(l, 1) == -1) {
		unlink(sun.sun_path);
		return denied(w("unix-self", "listen"), errno);
	}
	if ((c = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(c, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    (a = accept(l, NULL, NULL)) == -1) {
		int e = errno;

		unlink(sun.sun_path);
		return denied(w("unix-self", "connect"), e);
	}
	unlink(sun.sun_path);
	return allowed("unix-self", argv[0]);
}

static int
probe_tcp_self(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int l, c, e;

	if ((l = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return denied(w("tcp-self", "socket"), errno);
	if (bind(l, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(l, 1) == -1 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) == -1)
		return denied(w("tcp-self", "listen"), errno);
	if ((c = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return denied(w("tcp-self", "socket"), errno);
	if ((e = connect_wait(c, (struct sockaddr *)&sin, len)) != 0)
		return denied(w("tcp-self", "connect"), e);
	return allowed("tcp-self", NULL);
}

static int
probe_chmod(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (chmod(argv[0], (mode_t)strtol(argv[1], NULL, 8)) == -1)
		return blocked(w("chmod", argv[0]), errno);
	return escaped(w("chmod", argv[0]), "%s", argv[1]);
}

static int
probe_chown(int argc, char **argv)
{
	if (argc < 1)
		return usage();
	if (chown(argv[0], getuid(), getgid()) == -1)
		return blocked(w("chown", argv[0]), errno);
	return escaped(w("chown", argv[0]), NULL);
}

static int
probe_utime(int argc, char **argv)
{
	if (argc < 1)
		return usage();
	if (utimensat(AT_FDCWD, argv[0], NULL, 0) == -1)
		return blocked(w("utime", argv[0]), errno);
	return escaped(w("utime", argv[0]), NULL);
}

static int
probe_xattr(int argc, char **argv)
{
	if (argc < 1)
		return usage();
	if (setxattr(argv[0], "user.harn-probe", "1", 1, 0) == -1)
		return blocked(w("xattr", argv[0]), errno);
	(void)removexattr(argv[0], "user.harn-probe");
	return escaped(w("xattr", argv[0]), NULL);
}

static int
probe_setuid_file(int argc, char **argv)
{
	struct stat st;
	int fd, e = 0;

	if (argc < 1)
		return usage();
	if ((fd = open(argv[0], O_WRONLY | O_CREAT, 04755)) == -1)
		return blocked(w("setuid-file", "open"), errno);
	if (fchmod(fd, 04755) == -1)
		e = errno;
	if (fstat(fd, &st) == -1)
		return blocked(w("setuid-file", "fstat"), errno);
	close(fd);
	if (st.st_mode & S_ISUID)
		return escaped(w("setuid-file", argv[0]), "mode %o",
		    (unsigned)st.st_mode & 07777);
	return blocked(w("setuid-file", "fchmod"), e != 0 ? e : EPERM);
}

static int
probe_forks(int argc, char **argv)
{
	long n, i, made = 0;
	pid_t *kids;
	int e = 0;

	if (argc < 1 || (n = strtol(argv[0], NULL, 10)) <= 0)
		return usage();
	if ((kids = calloc((size_t)n, sizeof(*kids))) == NULL)
		return blocked(w("forks", "calloc"), ENOMEM);
	for (i = 0; i < n; i++) {
		if ((kids[i] = fork()) == 0) {
			pause();
			_exit(0);
		}
		if (kids[i] == -1) {
			e = errno;
			break;
		}
		made++;
	}
	for (i = 0; i < made; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < made; i++)
		waitpid(kids[i], NULL, 0);
	if (e != 0) {
		printf("BLOCKED forks:%ld %s after %ld\n", n, ename(e), made);
		return EXIT_BLOCKED;
	}
	return escaped(w("forks", argv[0]), "all %ld alive at once", made);
}

static int
probe_fill(int argc, char **argv)
{
	static char buf[1 << 20];
	char path[4096];
	long mib, done = 0;
	int fd, e = 0;

	if (argc < 2 || (mib = strtol(argv[1], NULL, 10)) <= 0)
		return usage();
	snprintf(path, sizeof(path), "%s/harn-fill.%ld", argv[0],
	    (long)getpid());
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		return blocked(w("fill", argv[0]), errno);
	memset(buf, 'x', sizeof(buf));
	for (; done < mib; done++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			e = errno != 0 ? errno : ENOSPC;
			break;
		}
	close(fd);
	unlink(path);
	if (e != 0) {
		printf("BLOCKED fill:%s %s after %ld MiB\n", argv[0], ename(e),
		    done);
		return EXIT_BLOCKED;
	}
	return escaped(w("fill", argv[0]), "%ld MiB", done);
}

static int
probe_open_rw(int argc, char **argv)
{
	int fd;

	if (argc < 1)
		return usage();
	if ((fd = open(argv[0], O_RDWR | O_NOCTTY)) == -1)
		return blocked(w("open-rw", argv[0]), errno);
	close(fd);
	return escaped(w("open-rw", argv[0]), NULL);
}

static int
probe_kill_pid(int argc, char **argv)
{
	if (argc < 1)
		return usage();
	if (kill((pid_t)strtol(argv[0], NULL, 10), SIGKILL) == -1)
		return blocked(w("kill-pid", argv[0]), errno);
	return escaped(w("kill-pid", argv[0]), NULL);
}

struct unix_job {
	const char	*path;
	const char	*tag;
	int		 rv;
};

static void *
unix_thread(void *arg)
{
	struct unix_job *j = arg;

	j->rv = probe_unix("unix-thread", j->path, 0, j->tag);
	return NULL;
}

static int
probe_unix_thread(int argc, char **argv)
{
	struct unix_job j;
	pthread_t t;

	if (argc < 1)
		return usage();
	j.path = argv[0];
	j.tag = argc > 1 ? argv[1] : NULL;
	if (pthread_create(&t, NULL, unix_thread, &j) != 0 ||
	    pthread_join(t, NULL) != 0)
		return blocked(w("unix-thread", "pthread"), EAGAIN);
	return j.rv;
}

static int
probe_unix_vfork(int argc, char **argv)
{
	pid_t pid;
	int st;

	if (argc < 1)
		return usage();
	fflush(stdout);
	if ((pid = vfork()) == 0)
		_exit(probe_unix("unix-vfork", argv[0], 0,
		    argc > 1 ? argv[1] : NULL));
	if (pid == -1 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return blocked(w("unix-vfork", "vfork"), errno);
	return WEXITSTATUS(st);
}

/* The address another thread keeps rewriting. */
static struct sockaddr_un race_addr;
static char race_ok[108], race_host[108];
static volatile int race_stop;
/* unix-race-first: stop at the first connect that reaches HOST. */
static int race_first;

/* Each address for about as long as the other. */
static void *
race_flip(void *arg)
{
	size_t n = sizeof(race_addr.sun_path);
	volatile long spin;

	/* The barriers keep the compiler from dropping either store. */
	while (!race_stop) {
		memcpy(race_addr.sun_path, race_host, n);
		__asm__ volatile("" ::: "memory");
		for (spin = 0; spin < 2000; spin++)
			;
		memcpy(race_addr.sun_path, race_ok, n);
		__asm__ volatile("" ::: "memory");
		for (spin = 0; spin < 2000; spin++)
			;
	}
	return NULL;
}

static int
probe_unix_race(int argc, char **argv)
{
	struct sockaddr_un peer;
	socklen_t plen;
	pthread_t t;
	long n, i, ok = 0, host = 0;
	int fd;

	if (argc < 3 || (n = strtol(argv[2], NULL, 10)) <= 0 ||
	    strlen(argv[0]) >= sizeof(race_ok) ||
	    strlen(argv[1]) >= sizeof(race_host))
		return usage();
	strncpy(race_ok, argv[0], sizeof(race_ok) - 1);
	strncpy(race_host, argv[1], sizeof(race_host) - 1);
	race_addr.sun_family = AF_UNIX;
	memcpy(race_addr.sun_path, race_ok, sizeof(race_ok));
	if (pthread_create(&t, NULL, race_flip, NULL) != 0)
		return blocked(w("unix-race", "pthread"), EAGAIN);
	for (i = 0; i < n && !(race_first && host > 0); i++) {
		if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
			break;
		if (connect(fd, (struct sockaddr *)&race_addr,
		    sizeof(race_addr)) == 0) {
			plen = sizeof(peer);
			memset(&peer, 0, sizeof(peer));
			if (getpeername(fd, (struct sockaddr *)&peer, &plen) ==
			    0 && strcmp(peer.sun_path, race_host) == 0) {
				host++;
				send_tag(fd, argc > 3 ? argv[3] : NULL);
			} else
				ok++;
		}
		close(fd);
	}
	race_stop = 1;
	pthread_join(t, NULL);
	if (host > 0)
		return escaped(w("unix-race", race_host), "%ld of %ld reached "
		    "it (%ld the other)", host, i, ok);
	printf("BLOCKED unix-race:%s NONE_OF_%ld (%ld reached %s)\n",
	    race_host, n, ok, race_ok);
	return EXIT_BLOCKED;
}

/* tcp-race: the same, on 127.0.0.1, flipping the port. */
static struct sockaddr_in tcp_race_addr;
static in_port_t tcp_race_ok, tcp_race_host;

static void *
tcp_race_flip(void *arg)
{
	volatile long spin;

	(void)arg;
	while (!race_stop) {
		tcp_race_addr.sin_port = tcp_race_host;
		__asm__ volatile("" ::: "memory");
		for (spin = 0; spin < 2000; spin++)
			;
		tcp_race_addr.sin_port = tcp_race_ok;
		__asm__ volatile("" ::: "memory");
		for (spin = 0; spin < 2000; spin++)
			;
	}
	return NULL;
}

static int
probe_tcp_race(int argc, char **argv)
{
	struct sockaddr_in peer;
	socklen_t plen;
	pthread_t t;
	long n, i, ok = 0, host = 0;
	int fd;

	if (argc < 3 || (n = strtol(argv[2], NULL, 10)) <= 0)
		return usage();
	tcp_race_ok = htons((in_port_t)atoi(argv[0]));
	tcp_race_host = htons((in_port_t)atoi(argv[1]));
	tcp_race_addr.sin_family = AF_INET;
	tcp_race_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	tcp_race_addr.sin_port = tcp_race_ok;
	if (pthread_create(&t, NULL, tcp_race_flip, NULL) != 0)
		return blocked(w("tcp-race", "pthread"), EAGAIN);
	for (i = 0; i < n; i++) {
		if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
			break;
		if (connect(fd, (struct sockaddr *)&tcp_race_addr,
		    sizeof(tcp_race_addr)) == 0) {
			plen = sizeof(peer);
			if (getpeername(fd, (struct sockaddr *)&peer, &plen) ==
			    0 && peer.sin_port == tcp_race_host) {
				host++;
				send_tag(fd, argc > 3 ? argv[3] : NULL);
			} else
				ok++;
		}
		close(fd);
	}
	race_stop = 1;
	pthread_join(t, NULL);
	if (host > 0)
		return escaped(w("tcp-race", argv[1]), "%ld of %ld reached "
		    "it (%ld the other)", host, n, ok);
	printf("BLOCKED tcp-race:%s NONE_OF_%ld (%ld reached %s)\n", argv[1],
	    n, ok, argv[0]);
	return EXIT_BLOCKED;
}

static int
probe_unix_dgram(int argc, char **argv)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char buf[128];
	int fd;

	if (argc < 1 || strlen(argv[0]) >= sizeof(sun.sun_path))
		return usage();
	memcpy(sun.sun_path, argv[0], strlen(argv[0]));
	snprintf(buf, sizeof(buf), "%s\n", argc > 1 ? argv[1] : "dgram");
	if ((fd = socket(AF_UNIX, SOCK_DGRAM, 0)) == -1)
		return blocked(w("unix-dgram", "socket"), errno);
	if (sendto(fd, buf, strlen(buf), 0, (struct sockaddr *)&sun,
	    sizeof(sun)) == -1)
		return blocked(w("unix-dgram", "sendto"), errno);
	return escaped(w("unix-dgram", argv[0]), NULL);
}

static int
probe_bind_port(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd, one = 1;

	if (argc < 1)
		return usage();
	sin.sin_port = htons((in_port_t)atoi(argv[0]));
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return blocked(w("bind-port", "socket"), errno);
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		return blocked(w("bind-port", "bind"), errno);
	if (listen(fd, 1) == -1)
		return blocked(w("bind-port", "listen"), errno);
	return escaped(w("bind-port", argv[0]), NULL);
}

static int
probe_kill_pgrp(int argc, char **argv)
{
	if (argc < 1)
		return usage();
	if (kill(-(pid_t)atoi(argv[0]), SIGKILL) == -1)
		return blocked(w("kill-pgrp", argv[0]), errno);
	return escaped(w("kill-pgrp", argv[0]), NULL);
}

static int
probe_pidfd_kill(int argc, char **argv)
{
	int fd;

	if (argc < 1)
		return usage();
	if ((fd = (int)syscall(SYS_pidfd_open, atoi(argv[0]), 0)) == -1)
		return blocked(w("pidfd-kill", "pidfd_open"), errno);
	if (syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0) == -1)
		return blocked(w("pidfd-kill", "send_signal"), errno);
	return escaped(w("pidfd-kill", argv[0]), NULL);
}

static int
probe_setown(int argc, char **argv)
{
	int sv[2];

	if (argc < 1)
		return usage();
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		return blocked(w("setown", "socketpair"), errno);
	if (fcntl(sv[0], F_SETOWN, atoi(argv[0])) == -1)
		return blocked(w("setown", "F_SETOWN"), errno);
	if (fcntl(sv[0], F_SETFL, O_ASYNC) == -1)
		return blocked(w("setown", "O_ASYNC"), errno);
	(void)write(sv[1], "x", 1);
	usleep(100000);
	return escaped(w("setown", argv[0]), NULL);
}

static int
probe_tcp_nonblock(int argc, char **argv)
{
	struct sockaddr_storage ss;
	struct pollfd p;
	socklen_t len, el;
	int fd, one = 1, nd = 0, e = 0, rc, fl;
	const char *how;

	if (argc < 2 || parse_addr(argv[0], argv[1], &ss, &len) == -1)
		return usage();
	if ((fd = socket(ss.ss_family, SOCK_STREAM, 0)) == -1)
		return denied(w("tcp-nonblock", "socket"), errno);
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ==
	    -1 || fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
		return denied(w("tcp-nonblock", "setup"), errno);
	rc = connect(fd, (struct sockaddr *)&ss, len);
	if (rc == -1 && errno != EINPROGRESS)
		return denied(w("tcp-nonblock", "connect"), errno);
	how = rc == 0 ? "0" : "EINPROGRESS";
	p = (struct pollfd){ fd, POLLOUT, 0 };
	el = sizeof(e);
	if (poll(&p, 1, 5000) != 1 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == -1 || e != 0)
		return denied(w("tcp-nonblock", "connected"), e ? e : ETIMEDOUT);
	fl = fcntl(fd, F_GETFL);
	el = sizeof(nd);
	(void)getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nd, &el);
	if (!(fl & O_NONBLOCK) || nd == 0)
		return denied_s(w("tcp-nonblock", "kept"), (fl & O_NONBLOCK) ?
		    "TCP_NODELAY_LOST" : "O_NONBLOCK_LOST");
	return allowed(w("tcp-nonblock", how), "O_NONBLOCK and TCP_NODELAY "
	    "kept");
}

/* A file made here, its mode then set to 06755 by fchmodat2(2). */
static int
probe_fchmodat2(int argc, char **argv)
{
	struct stat st;
	int fd;

	if (argc < 1)
		return usage();
	if ((fd = open(argv[0], O_WRONLY | O_CREAT, 0755)) == -1)
		return blocked(w("fchmodat2", "open"), errno);
	(void)close(fd);
	if (syscall(452, AT_FDCWD, argv[0], 06755, 0) == -1)
		return blocked(w("fchmodat2", argv[0]), errno);
	if (stat(argv[0], &st) == -1)
		return blocked(w("fchmodat2", "stat"), errno);
	if (st.st_mode & (S_ISUID | S_ISGID))
		return escaped(w("fchmodat2", argv[0]), "mode %o",
		    (unsigned)st.st_mode & 07777);
	return blocked(w("fchmodat2", argv[0]), EPERM);
}

/* File capabilities: cap_setuid and cap_setgid, effective (VFS v2). */
static int
probe_setcap(int argc, char **argv)
{
	struct {
		uint32_t	 magic;
		struct {
			uint32_t permitted, inheritable;
		}		 data[2];
	} cap = { 0x02000000 | 0x000001,	/* v2, effective */
	    { { (1U << 7) | (1U << 6), 0 }, { 0, 0 } } };
	char buf[64];

	if (argc < 1)
		return usage();
	if (setxattr(argv[0], "security.capability", &cap, sizeof(cap), 0) ==
	    -1)
		return blocked(w("setcap", argv[0]), errno);
	if (getxattr(argv[0], "security.capability", buf, sizeof(buf)) <= 0)
		return blocked(w("setcap", "getxattr"), errno);
	return escaped(w("setcap", argv[0]), "cap_setuid,cap_setgid+ep");
}

static int
probe_trusted_xattr(int argc, char **argv)
{
	if (argc < 1)
		return usage();
	if (setxattr(argv[0], "trusted.harn-probe", "1", 1, 0) == -1)
		return blocked(w("trusted-xattr", argv[0]), errno);
	(void)removexattr(argv[0], "trusted.harn-probe");
	return escaped(w("trusted-xattr", argv[0]), NULL);
}

static int
probe_chown_to(int argc, char **argv)
{
	struct stat st;
	long uid;

	if (argc < 2 || (uid = strtol(argv[0], NULL, 10)) <= 0)
		return usage();
	if (chown(argv[1], (uid_t)uid, (gid_t)-1) == -1)
		return blocked(w("chown-to", argv[1]), errno);
	if (stat(argv[1], &st) == -1 || st.st_uid != (uid_t)uid)
		return blocked(w("chown-to", "stat"), EPERM);
	return escaped(w("chown-to", argv[1]), "uid %ld", uid);
}

/* Another process's netlink socket, by its port id: not the kernel. */
static int
probe_netlink_peer(int argc, char **argv)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	const char *tag = argc > 1 ? argv[1] : "netlink";
	long id;
	int s;

	if (argc < 1 || (id = strtol(argv[0], NULL, 10)) <= 0)
		return usage();
	nl.nl_pid = (uint32_t)id;
	if ((s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) ==
	    -1)
		return blocked(w("netlink-peer", "socket"), errno);
	if (connect(s, (struct sockaddr *)&nl, sizeof(nl)) == -1)
		return blocked(w("netlink-peer", "connect"), errno);
	if (send(s, tag, strlen(tag), 0) == -1)
		return blocked(w("netlink-peer", "send"), errno);
	return escaped(w("netlink-peer", argv[0]), "sent %s", tag);
}

/* listen() without bind(): the kernel binds every address, any port. */
static int
probe_listen_unbound(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int s;

	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return blocked(w("listen-unbound", "socket"), errno);
	if (listen(s, 1) == -1)
		return blocked(w("listen-unbound", "listen"), errno);
	if (getsockname(s, (struct sockaddr *)&sin, &len) == -1)
		return blocked(w("listen-unbound", "getsockname"), errno);
	return escaped(w("listen-unbound", "listen"), "on %s:%u",
	    inet_ntoa(sin.sin_addr), ntohs(sin.sin_port));
}

static int
probe_bind_any(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int s;

	if (argc < 1)
		return usage();
	sin.sin_port = htons((uint16_t)atoi(argv[0]));
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return blocked(w("bind-any", "socket"), errno);
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		return blocked(w("bind-any", argv[0]), errno);
	if (listen(s, 1) == -1)
		return blocked(w("bind-any", "listen"), errno);
	return escaped(w("bind-any", argv[0]), "listening on 0.0.0.0:%s",
	    argv[0]);
}

/* An allowed probe: a test server on a fixed loopback port, reached. */
static int
probe_bind_addr(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int l, c, a;

	if (argc < 2 || parse_addr(argv[0], argv[1], &ss, &len) == -1)
		return usage();
	if ((l = socket(ss.ss_family, SOCK_STREAM, 0)) == -1)
		return denied(w("bind-addr", "socket"), errno);
	(void)setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 },
	    sizeof(int));
	if (bind(l, (struct sockaddr *)&ss, len) == -1)
		return denied(w("bind-addr", "bind"), errno);
	if (listen(l, 4) == -1)
		return denied(w("bind-addr", "listen"), errno);
	if ((c = socket(ss.ss_family, SOCK_STREAM, 0)) == -1)
		return denied(w("bind-addr", "socket"), errno);
	if ((a = connect_wait(c, (struct sockaddr *)&ss, len)) != 0)
		return denied(w("bind-addr", "connect"), a);
	if ((a = accept(l, NULL, NULL)) == -1)
		return denied(w("bind-addr", "accept"), errno);
	return allowed(w("bind-addr", argv[1]), NULL);
}

static int
probe_renice(int argc, char **argv)
{
	long pid;

	if (argc < 1 || (pid = strtol(argv[0], NULL, 10)) <= 0)
		return usage();
	if (setpriority(PRIO_PROCESS, (id_t)pid, 19) == -1)
		return blocked(w("renice", argv[0]), errno);
	return escaped(w("renice", argv[0]), "nice 19");
}

static int
probe_prlimit(int argc, char **argv)
{
	struct rlimit rl;
	long pid;

	if (argc < 1 || (pid = strtol(argv[0], NULL, 10)) <= 0)
		return usage();
	if (prlimit((pid_t)pid, RLIMIT_NOFILE, NULL, &rl) == -1)
		return blocked(w("prlimit", "get"), errno);
	if (prlimit((pid_t)pid, RLIMIT_NOFILE, &rl, NULL) == -1)
		return blocked(w("prlimit", argv[0]), errno);
	return escaped(w("prlimit", argv[0]), "RLIMIT_NOFILE set");
}

static int
probe_shmat(int argc, char **argv)
{
	void *p;
	long id;

	if (argc < 1 || (id = strtol(argv[0], NULL, 10)) < 0)
		return usage();
	if ((p = shmat((int)id, NULL, SHM_RDONLY)) == (void *)-1)
		return blocked(w("shmat", argv[0]), errno);
	(void)shmdt(p);
	return escaped(w("shmat", argv[0]), "attached");
}

/* A /proc/PID directory descriptor serves as a pidfd (Linux 6.9+). */
static int
probe_pidfd_proc(int argc, char **argv)
{
	char path[64];
	int fd;

	if (argc < 1 || atoi(argv[0]) <= 0)
		return usage();
	snprintf(path, sizeof(path), "/proc/%d", atoi(argv[0]));
	if ((fd = open(path, O_RDONLY | O_DIRECTORY)) == -1)
		return blocked(w("pidfd-proc", "open"), errno);
	if (syscall(SYS_pidfd_send_signal, fd, SIGTERM, NULL, 0) == -1)
		return blocked(w("pidfd-proc", argv[0]), errno);
	return escaped(w("pidfd-proc", argv[0]), "SIGTERM sent");
}

static int
probe_truncate(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (truncate(argv[0], atol(argv[1])) == -1)
		return blocked(w("truncate", argv[0]), errno);
	return escaped(w("truncate", argv[0]), "to %s bytes", argv[1]);
}

static int
probe_chattr(int argc, char **argv)
{
	int fd, flags;

	if (argc < 1)
		return usage();
	if ((fd = open(argv[0], O_RDONLY)) == -1)
		return blocked(w("chattr", "open"), errno);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == -1)
		return blocked(w("chattr", "getflags"), errno);
	flags |= FS_NODUMP_FL;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags) == -1)
		return blocked(w("chattr", argv[0]), errno);
	return escaped(w("chattr", argv[0]), "nodump set");
}

static int
probe_bind_reuseport(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int s;

	if (argc < 2 || parse_addr(argv[0], argv[1], &ss, &len) == -1)
		return usage();
	if ((s = socket(ss.ss_family, SOCK_STREAM, 0)) == -1)
		return blocked(w("bind-reuseport", "socket"), errno);
	if (setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &(int){ 1 },
	    sizeof(int)) == -1)
		return blocked(w("bind-reuseport", "setsockopt"), errno);
	if (bind(s, (struct sockaddr *)&ss, len) == -1)
		return blocked(w("bind-reuseport", argv[1]), errno);
	if (listen(s, 4) == -1)
		return blocked(w("bind-reuseport", "listen"), errno);
	return escaped(w("bind-reuseport", argv[1]), "sharing the port");
}

static int
probe_seqfork(int argc, char **argv)
{
	long n, i;
	pid_t pid;
	char detail[64];

	if (argc < 1 || (n = strtol(argv[0], NULL, 10)) <= 0)
		return usage();
	for (i = 0; i < n; i++) {
		if ((pid = fork()) == -1) {
			printf("DENIED seqfork:%s %s after %ld\n", argv[0],
			    ename(errno), i);
			return EXIT_DENIED;
		}
		if (pid == 0)
			_exit(0);
		(void)waitpid(pid, NULL, 0);
	}
	snprintf(detail, sizeof(detail), "%ld forks, one at a time", n);
	return allowed(w("seqfork", argv[0]), detail);
}

int
main(int argc, char **argv)
{
	const char *p;
	int e;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return usage();
	p = argv[1];
	argc -= 2;
	argv += 2;
	if (strcmp(p, "tcp") == 0)
		return probe_stream("tcp", 0, argc, argv);
	if (strcmp(p, "mptcp") == 0)
		return probe_stream("mptcp", IPPROTO_MPTCP, argc, argv);
	if (strcmp(p, "mptcp-hi") == 0)
		return probe_stream("mptcp-hi", (long long)(HI | IPPROTO_MPTCP),
		    argc, argv);
	if (strcmp(p, "tfo") == 0)
		return probe_tfo("tfo", 0, argc, argv);
	if (strcmp(p, "tfo-hi") == 0)
		return probe_tfo("tfo-hi", 1, argc, argv);
	if (strcmp(p, "tfo-connect") == 0)
		return probe_tfo_connect(argc, argv);
	if (strcmp(p, "udp") == 0)
		return probe_udp(argc, argv);
	if (strcmp(p, "unix-path") == 0 && argc >= 1)
		return probe_unix("unix-path", argv[0], 0,
		    argc > 1 ? argv[1] : NULL);
	if (strcmp(p, "unix-abstract") == 0 && argc >= 1)
		return probe_unix("unix-abstract", argv[0], 1,
		    argc > 1 ? argv[1] : NULL);
	if (strcmp(p, "raw") == 0)
		return probe_socket("raw", AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (strcmp(p, "packet") == 0)
		return probe_socket("packet", AF_PACKET, SOCK_RAW,
		    htons(0x0003));
	if (strcmp(p, "packet-hi") == 0)
		return probe_socket("packet-hi", (long long)(HI | AF_PACKET),
		    SOCK_RAW, htons(0x0003));
	if (strcmp(p, "netlink-audit") == 0)
		return probe_socket("netlink-audit", AF_NETLINK, SOCK_RAW,
		    NETLINK_AUDIT);
	if (strcmp(p, "vsock") == 0)
		return probe_socket("vsock", AF_VSOCK, SOCK_STREAM, 0);
	if (strcmp(p, "alg") == 0)
		return probe_socket("alg", AF_ALG, SOCK_SEQPACKET, 0);
	if (strcmp(p, "netlink-route") == 0)
		return probe_netlink_route();
	if (strcmp(p, "io_uring") == 0)
		return probe_io_uring();
	if (strcmp(p, "ptrace") == 0)
		return probe_ptrace(argc, argv, 0);
	if (strcmp(p, "ptrace-attach") == 0)
		return probe_ptrace(argc, argv, 1);
	if (strcmp(p, "traceme") == 0) {
		if ((e = in_child(do_traceme)) == 0)
			return escaped(w("traceme", "traceme"), NULL);
		return blocked(w("traceme", "traceme"), e);
	}
	if (strcmp(p, "userns") == 0)
		return probe_userns();
	if (strcmp(p, "netns") == 0)
		return probe_netns();
	if (strcmp(p, "clone-userns") == 0)
		return probe_clone_userns();
	if (strcmp(p, "clone3") == 0)
		return probe_clone3();
	if (strcmp(p, "tiocsti") == 0)
		return probe_tiocsti(0);
	if (strcmp(p, "tiocsti-hi") == 0)
		return probe_tiocsti(1);
	if (strcmp(p, "keyctl") == 0)
		return probe_keyctl();
	if (strcmp(p, "bpf") == 0)
		return probe_bpf();
	if (strcmp(p, "perf") == 0)
		return probe_perf();
	if (strcmp(p, "userfaultfd") == 0)
		return probe_userfaultfd();
	if (strcmp(p, "process_vm_readv") == 0)
		return probe_process_vm_readv();
	if (strcmp(p, "mount") == 0)
		return probe_mount();
	if (strcmp(p, "open_by_handle_at") == 0)
		return probe_open_by_handle();
	if (strcmp(p, "ia32") == 0)
		return probe_ia32();
	if (strcmp(p, "fd") == 0)
		return probe_fd(argc, argv);
	if (strcmp(p, "read") == 0)
		return probe_read(argc, argv);
	if (strcmp(p, "list") == 0)
		return probe_list(argc, argv);
	if (strcmp(p, "write") == 0)
		return probe_write(argc, argv);
	if (strcmp(p, "caps") == 0)
		return probe_caps();
	if (strcmp(p, "env") == 0)
		return probe_env(argc, argv);
	if (strcmp(p, "environ-of") == 0)
		return probe_environ_of(argc, argv);
	if (strcmp(p, "socketpair") == 0)
		return probe_socketpair();
	if (strcmp(p, "unix-self") == 0)
		return probe_unix_self(argc, argv);
	if (strcmp(p, "tcp-self") == 0)
		return probe_tcp_self();
	if (strcmp(p, "chmod") == 0)
		return probe_chmod(argc, argv);
	if (strcmp(p, "chown") == 0)
		return probe_chown(argc, argv);
	if (strcmp(p, "utime") == 0)
		return probe_utime(argc, argv);
	if (strcmp(p, "xattr") == 0)
		return probe_xattr(argc, argv);
	if (strcmp(p, "setuid-file") == 0)
		return probe_setuid_file(argc, argv);
	if (strcmp(p, "forks") == 0)
		return probe_forks(argc, argv);
	if (strcmp(p, "fill") == 0)
		return probe_fill(argc, argv);
	if (strcmp(p, "open-rw") == 0)
		return probe_open_rw(argc, argv);
	if (strcmp(p, "kill-pid") == 0)
		return probe_kill_pid(argc, argv);
	if (strcmp(p, "unix-thread") == 0)
		return probe_unix_thread(argc, argv);
	if (strcmp(p, "unix-vfork") == 0)
		return probe_unix_vfork(argc, argv);
	if (strcmp(p, "unix-race") == 0)
		return probe_unix_race(argc, argv);
	if (strcmp(p, "unix-race-first") == 0) {
		race_first = 1;
		return probe_unix_race(argc, argv);
	}
	if (strcmp(p, "tcp-race") == 0)
		return probe_tcp_race(argc, argv);
	if (strcmp(p, "unix-dgram") == 0)
		return probe_unix_dgram(argc, argv);
	if (strcmp(p, "bind-port") == 0)
		return probe_bind_port(argc, argv);
	if (strcmp(p, "kill-pgrp") == 0)
		return probe_kill_pgrp(argc, argv);
	if (strcmp(p, "pidfd-kill") == 0)
		return probe_pidfd_kill(argc, argv);
	if (strcmp(p, "setown") == 0)
		return probe_setown(argc, argv);
	if (strcmp(p, "tcp-nonblock") == 0)
		return probe_tcp_nonblock(argc, argv);
	if (strcmp(p, "fchmodat2") == 0)
		return probe_fchmodat2(argc, argv);
	if (strcmp(p, "setcap") == 0)
		return probe_setcap(argc, argv);
	if (strcmp(p, "trusted-xattr") == 0)
		return probe_trusted_xattr(argc, argv);
	if (strcmp(p, "chown-to") == 0)
		return probe_chown_to(argc, argv);
	if (strcmp(p, "netlink-peer") == 0)
		return probe_netlink_peer(argc, argv);
	if (strcmp(p, "listen-unbound") == 0)
		return probe_listen_unbound();
	if (strcmp(p, "bind-any") == 0)
		return probe_bind_any(argc, argv);
	if (strcmp(p, "bind-addr") == 0)
		return probe_bind_addr(argc, argv);
	if (strcmp(p, "renice") == 0)
		return probe_renice(argc, argv);
	if (strcmp(p, "prlimit") == 0)
		return probe_prlimit(argc, argv);
	if (strcmp(p, "shmat") == 0)
		return probe_shmat(argc, argv);
	if (strcmp(p, "pidfd-proc") == 0)
		return probe_pidfd_proc(argc, argv);
	if (strcmp(p, "truncate") == 0)
		return probe_truncate(argc, argv);
	if (strcmp(p, "chattr") == 0)
		return probe_chattr(argc, argv);
	if (strcmp(p, "bind-reuseport") == 0)
		return probe_bind_reuseport(argc, argv);
	if (strcmp(p, "seqfork") == 0)
		return probe_seqfork(argc, argv);
	return usage();
}
