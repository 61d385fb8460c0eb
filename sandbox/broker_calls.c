/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The brokered calls: one row each, the only list there is.  The broker's
 * filter (seccomp_broker.c's sc_build_broker) stops a row's call in the
 * variants its where names, with its arguments as stop says; the broker
 * (broker.c's notify_cb) answers it with the act of its family, and
 * fails to start if a row's name is no call here (an optional one
 * excepted, which some architectures lack).  So no call is stopped that
 * no act answers, nor answered that is not stopped.
 *
 * Where: SECCOMP_BROKER always (both confinements); SECCOMP_BROKER_LL
 * the landlock confinement, which shares the host's network and has no
 * read-only host; SECCOMP_BROKER_OPTS where it connects fresh sockets
 * (no pidfd_getfd); SECCOMP_BROKER_ROOT a command that keeps uid 0;
 * SECCOMP_BROKER_UDP the landlock confinement's UDP stand-ins.
 * The man page's "Decided by the broker" lists these names
 * (tests/sandbox/test_seccomp_bpf.c checks).
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/ioprio.h>

#include "sandbox/internal.h"

#define ALL	SECCOMP_BROKER
#define LL	(SECCOMP_BROKER | SECCOMP_BROKER_LL)
#define OPTS	(LL | SECCOMP_BROKER_OPTS)
#define ROOT	(LL | SECCOMP_BROKER_ROOT)
#define UDPS	(LL | SECCOMP_BROKER_UDP)

/* connect(), bind(), listen(): SPEC 6.2, 6.5 (nothing inbound). */
#define SOCK(n, f) { .name = n, .family = f, .where = ALL, .user = -1, \
	.flags_arg = -1 }
/*
 * A call on another process by its id, in argument a: 0 names the
 * caller itself, which needs no broker; so does setpriority's and
 * ioprio_set's "the caller's group".  "The caller's user" (u in argument
 * 0) reaches every process of the uid: it stops too, to be refused.
 */
#define PROC(n, k, a, u) { .name = n, .family = BCALL_PROCESS, .where = ALL, \
	.stop = STOP_UNLESS_ZERO, .arg = { a }, .user = u, .op = k,	\
	.flags_arg = -1 }
/*
 * The calls that change file metadata, which no Landlock right covers
 * (truncate before ABI 3): without a read-only host the broker judges
 * them.  l: where the file is named; nf: the call works on a symlink
 * itself; fa: the argument holding AT_* flags, or -1.
 */
#define META(n, o, l, nf, fa) { .name = n, .family = BCALL_META,	\
	.where = LL, .user = -1, .op = o, .layout = l, .nofollow = nf,	\
	.flags_arg = fa }
/*
 * The calls that signal a process, or choose whom a later signal
 * reaches: the broker lets them go on only toward the command's own
 * processes (SPEC 6.5).  Where Landlock's signal scope exists (ABI >= 6)
 * it says the same, and the broker is depth.
 */
#define SIG(n, c) { .name = n, .family = BCALL_SIGNAL, .where = LL,	\
	.user = -1, .op = c, .flags_arg = -1 }
/*
 * The socket options a connect on a fresh socket (no pidfd_getfd)
 * keeps: the broker sees them set and sets them again.  None needs a
 * privilege.
 */
#define OPT(l, o) { .name = "setsockopt", .family = BCALL_SETSOCKOPT,	\
	.where = OPTS, .stop = STOP_MATCH, .arg = { 1, 2 },		\
	.val = { l, o }, .nmatch = 2, .user = -1, .flags_arg = -1 }
/* A UDP stand-in's options of a level (broker_udp.c). */
#define UDPOPT(l) { .name = "setsockopt", .family = BCALL_SETSOCKOPT,	\
	.where = UDPS, .stop = STOP_MATCH, .arg = { 1 }, .val = { l },	\
	.nmatch = 1, .user = -1, .flags_arg = -1 }
/* uid 0 is exempt from RLIMIT_NPROC: the broker counts at each fork. */
#define FORK(n) { .name = n, .family = BCALL_FORK, .where = ROOT,	\
	.optional = true, .user = -1, .flags_arg = -1 }

const struct brokered brokered_calls[] = {
	SOCK("connect", BCALL_CONNECT),
	SOCK("bind", BCALL_BIND),
	SOCK("listen", BCALL_LISTEN),
	/* The address a connect through the proxy asked for (SPEC 6.6). */
	SOCK("getpeername", BCALL_PEERNAME),
	/* A held connect's refusal, said as the kernel would (SPEC 6.6). */
	{ .name = "getsockopt", .family = BCALL_SOERROR, .where = ALL,
	    .stop = STOP_MATCH, .arg = { 1, 2 }, .val = { SOL_SOCKET, SO_ERROR },
	    .nmatch = 2, .user = -1, .flags_arg = -1 },

	PROC("setpriority", PROCALL_PRIORITY, 1, PRIO_USER),
	PROC("ioprio_set", PROCALL_IOPRIO, 1, IOPRIO_WHO_USER),
	PROC("sched_setaffinity", PROCALL_PID, 0, -1),
	PROC("sched_setscheduler", PROCALL_PID, 0, -1),
	PROC("sched_setparam", PROCALL_PID, 0, -1),
	PROC("sched_setattr", PROCALL_PID, 0, -1),
	PROC("prlimit64", PROCALL_PID, 0, -1),

	META("chmod", M_CHMOD, K_PATH, false, -1),
	META("fchmod", M_CHMOD, K_FD, false, -1),
	META("fchmodat", M_CHMOD, K_AT, false, -1),
	META("fchmodat2", M_CHMOD, K_AT, false, 3),
	META("chown", M_CHOWN, K_PATH, false, -1),
	META("lchown", M_CHOWN, K_PATH, true, -1),
	META("fchown", M_CHOWN, K_FD, false, -1),
	META("fchownat", M_CHOWN, K_AT, false, 4),
	META("truncate", M_TRUNC, K_PATH, false, -1),
	META("utime", M_UTIME, K_PATH, false, -1),
	META("utimes", M_UTIMES, K_PATH, false, -1),
	META("futimesat", M_UTIMES, K_AT, false, -1),
	META("utimensat", M_UTIMENS, K_AT, false, 3),
	META("setxattr", M_SETX, K_PATH, false, -1),
	META("lsetxattr", M_SETX, K_PATH, true, -1),
	META("fsetxattr", M_SETX, K_FD, false, -1),
	META("removexattr", M_REMX, K_PATH, false, -1),
	META("lremovexattr", M_REMX, K_PATH, true, -1),
	META("fremovexattr", M_REMX, K_FD, false, -1),

	SIG("kill", SIGCALL_KILL),
	SIG("tkill", SIGCALL_TKILL),
	SIG("tgkill", SIGCALL_TGKILL),
	SIG("rt_sigqueueinfo", SIGCALL_SIGQUEUE),
	SIG("rt_tgsigqueueinfo", SIGCALL_TGSIGQUEUE),
	SIG("pidfd_open", SIGCALL_PIDFD_OPEN),
	SIG("pidfd_send_signal", SIGCALL_PIDFD_SEND),
	/*
	 * SIGIO's target; F_SETOWN_EX and the rest are refused
	 * (seccomp_broker.c).
	 */
	{ .name = "fcntl", .family = BCALL_SIGNAL, .where = LL,
	    .stop = STOP_MATCH, .arg = { 1 }, .val = { F_SETOWN }, .nmatch = 1,
	    .user = -1, .op = SIGCALL_SETOWN, .flags_arg = -1 },

	/*
	 * The host's loopback (landlock): accept() is the broker's, which
	 * hands the command only its own connections, and SO_REUSEPORT stops
	 * there to be refused, so no host service can share a port with the
	 * command.  accept() does not exist on every architecture.
	 */
	{ .name = "accept", .family = BCALL_ACCEPT, .where = LL,
	    .optional = true, .user = -1, .flags_arg = -1 },
	{ .name = "accept4", .family = BCALL_ACCEPT, .where = LL,
	    .user = -1, .op = 1, .flags_arg = -1 },
	{ .name = "setsockopt", .family = BCALL_SETSOCKOPT, .where = LL,
	    .stop = STOP_MATCH, .arg = { 1, 2 },
	    .val = { SOL_SOCKET, SO_REUSEPORT }, .nmatch = 2, .user = -1,
	    .flags_arg = -1 },

	OPT(SOL_SOCKET, SO_KEEPALIVE), OPT(SOL_SOCKET, SO_LINGER),
	OPT(SOL_SOCKET, SO_RCVBUF), OPT(SOL_SOCKET, SO_SNDBUF),
	OPT(SOL_SOCKET, SO_RCVTIMEO), OPT(SOL_SOCKET, SO_SNDTIMEO),
	OPT(SOL_SOCKET, SO_REUSEADDR), OPT(SOL_SOCKET, SO_REUSEPORT),
	OPT(SOL_SOCKET, SO_OOBINLINE), OPT(SOL_SOCKET, SO_PASSCRED),
	OPT(IPPROTO_TCP, TCP_NODELAY), OPT(IPPROTO_TCP, TCP_KEEPIDLE),
	OPT(IPPROTO_TCP, TCP_KEEPINTVL), OPT(IPPROTO_TCP, TCP_KEEPCNT),
	OPT(IPPROTO_TCP, TCP_USER_TIMEOUT), OPT(IPPROTO_TCP, TCP_SYNCNT),
	OPT(IPPROTO_TCP, TCP_QUICKACK), OPT(IPPROTO_TCP, TCP_NOTSENT_LOWAT),
	OPT(IPPROTO_TCP, TCP_WINDOW_CLAMP), OPT(IPPROTO_IP, IP_TOS),
	OPT(IPPROTO_IP, IP_TTL), OPT(IPPROTO_IPV6, IPV6_V6ONLY),
	OPT(IPPROTO_IPV6, IPV6_TCLASS), OPT(IPPROTO_IPV6, IPV6_UNICAST_HOPS),

	FORK("clone"), FORK("fork"), FORK("vfork"),

	/*
	 * UDP on the host's network (landlock, SPEC 6.6): a datagram socket
	 * is never made, a stand-in is; a datagram sent to an address, or
	 * received with its source, is the broker's (broker_udp.c).  The
	 * type's low bits only: SOCK_NONBLOCK and SOCK_CLOEXEC ride above.
	 */
	{ .name = "socket", .family = BCALL_UDP, .where = UDPS,
	    .stop = STOP_MATCH, .arg = { 0, 1 }, .val = { AF_INET, SOCK_DGRAM },
	    .mask = { 0, 0xf }, .nmatch = 2, .user = -1,
	    .op = UDPCALL_SOCKET, .flags_arg = -1 },
	{ .name = "socket", .family = BCALL_UDP, .where = UDPS,
	    .stop = STOP_MATCH, .arg = { 0, 1 },
	    .val = { AF_INET6, SOCK_DGRAM }, .mask = { 0, 0xf }, .nmatch = 2,
	    .user = -1, .op = UDPCALL_SOCKET, .flags_arg = -1 },
	{ .name = "sendto", .family = BCALL_UDP, .where = UDPS,
	    .stop = STOP_NONNULL, .arg = { 4 }, .user = -1,
	    .op = UDPCALL_SENDTO, .flags_arg = -1 },
	{ .name = "recvfrom", .family = BCALL_UDP, .where = UDPS,
	    .stop = STOP_NONNULL, .arg = { 4 }, .user = -1,
	    .op = UDPCALL_RECVFROM, .flags_arg = -1 },
	/*
	 * A stand-in has no IP options (glibc's resolver fails without
	 * IP_RECVERR): the broker says they are set (broker_udp.c).
	 */
	UDPOPT(IPPROTO_IP), UDPOPT(IPPROTO_IPV6), UDPOPT(IPPROTO_UDP),
};
const size_t brokered_ncalls = NELEM(brokered_calls);
