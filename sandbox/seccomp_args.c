/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The calls the main seccomp filter (seccomp.c) allows for some
 * arguments only, and the rules that allow them: ALLOW rules for the
 * arguments that may pass, every comparison within the low 32 bits.
 */
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>

#include "sandbox/seccomp_int.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

#define ANY		(-1)		/* any value of this argument */

/* clone() may not create a namespace. */
#define CLONE_NS	(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |	\
	CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP |	\
	CLONE_NEWTIME)

/* socket() type flags, stripped by the kernel before the type is read. */
#define SOCK_FLAGS	(SOCK_NONBLOCK | SOCK_CLOEXEC)

/*
 * socket() may create only these (domain, type, protocol).  No unix
 * datagram socket (SOCK_RAW is one for AF_UNIX): every send on one may
 * name a host socket behind a pointer no filter can read, which the
 * connect broker could not decide.  Stream and seqpacket sockets name
 * their peer in connect() alone.
 */
static const struct socket_ok {
	int	 domain;
	int	 type;		/* flags stripped */
	int	 protocol;
} socket_ok[] = {
	{ AF_UNIX,	SOCK_STREAM,	ANY },
	{ AF_UNIX,	SOCK_SEQPACKET,	ANY },
	{ AF_INET,	SOCK_STREAM,	0 },
	{ AF_INET,	SOCK_STREAM,	IPPROTO_TCP },
	{ AF_INET6,	SOCK_STREAM,	0 },
	{ AF_INET6,	SOCK_STREAM,	IPPROTO_TCP },
	{ AF_NETLINK,	ANY,		NETLINK_ROUTE },
};

/*
 * And in namespaces' variant (SECCOMP_MAIN_UDP) UDP: a datagram to any
 * address stays in the command's network, where only the run's answerer
 * listens on port 53 (SPEC 6.6).
 */
static const struct socket_ok socket_udp[] = {
	{ AF_INET,	SOCK_DGRAM,	0 },
	{ AF_INET,	SOCK_DGRAM,	IPPROTO_UDP },
	{ AF_INET6,	SOCK_DGRAM,	0 },
	{ AF_INET6,	SOCK_DGRAM,	IPPROTO_UDP },
};

/* ioctl() commands refused: both push input into a terminal. */
static const uint32_t ioctl_refused[] = { TIOCSTI, TIOCLINUX };

/* personality(): Linux, 32-bit uname, 2.6 uname, and the query. */
static const uint32_t persona_ok[] = {
	PER_LINUX, PER_LINUX32, UNAME26, PER_LINUX32 | UNAME26, 0xffffffff
};

static int	add_socket(scmp_filter_ctx, int);
static int	add_socketpair(scmp_filter_ctx, int);
static int	add_ioctl(scmp_filter_ctx, int);
static int	add_clone(scmp_filter_ctx, int);
static int	add_clone3(scmp_filter_ctx, int);
static int	add_send_a2(scmp_filter_ctx, int);
static int	add_send_a3(scmp_filter_ctx, int);
static int	add_setsockopt(scmp_filter_ctx, int);
static int	add_personality(scmp_filter_ctx, int);
static int	add_mode_a1(scmp_filter_ctx, int);
static int	add_mode_a2(scmp_filter_ctx, int);
static int	add_open(scmp_filter_ctx, int);
static int	add_openat(scmp_filter_ctx, int);
static int	add_openat2(scmp_filter_ctx, int);

/* Calls allowed for some arguments only. */
const struct special sc_special[] = {
	{ "socket",	add_socket },
	{ "socketpair",	add_socketpair },
	{ "ioctl",	add_ioctl },
	{ "clone",	add_clone },
	{ "clone3",	add_clone3 },
	{ "sendto",	add_send_a3 },
	{ "sendmsg",	add_send_a2 },
	{ "sendmmsg",	add_send_a3 },
	{ "setsockopt",	add_setsockopt },
	{ "personality", add_personality },
	/* No set-user-ID or set-group-ID file (see add_mode_a1). */
	{ "chmod",	add_mode_a1 },
	{ "fchmod",	add_mode_a1 },
	{ "creat",	add_mode_a1 },
	{ "mknod",	add_mode_a1 },
	{ "fchmodat",	add_mode_a2 },
	{ "fchmodat2",	add_mode_a2 },
	{ "mknodat",	add_mode_a2 },
	/* The kernel keeps no set-ID bit of mkdir's mode; nor does this. */
	{ "mkdir",	add_mode_a1 },
	{ "mkdirat",	add_mode_a2 },
	{ "open",	add_open },
	{ "openat",	add_openat },
	{ "openat2",	add_openat2 },
};
const size_t sc_nspecial = NELEM(sc_special);

static int
add_socket_rows(scmp_filter_ctx ctx, int nr, const struct socket_ok *rows,
    size_t nrows)
{
	const struct socket_ok *s;
	struct scmp_arg_cmp cmp[3];
	unsigned int n;
	size_t i;
	int rc;

	for (i = 0; i < nrows; i++) {
		s = &rows[i];
		n = 0;
		cmp[n++] = sc_masked(0, ARG32, (uint32_t)s->domain);
		if (s->type != ANY)
			cmp[n++] = sc_masked(1, ARG32 & ~(uint64_t)SOCK_FLAGS,
			    (uint32_t)s->type);
		if (s->protocol != ANY)
			cmp[n++] = sc_masked(2, ARG32, (uint32_t)s->protocol);
		if ((rc = sc_rule(ctx, SCMP_ACT_ALLOW, nr, n, cmp)) < 0)
			return rc;
	}
	return 0;
}

static int
add_socket(scmp_filter_ctx ctx, int nr)
{
	return add_socket_rows(ctx, nr, socket_ok, NELEM(socket_ok));
}

static int
add_socket_udp(scmp_filter_ctx ctx, int nr)
{
	int rc = add_socket(ctx, nr);

	return rc < 0 ? rc : add_socket_rows(ctx, nr, socket_udp,
	    NELEM(socket_udp));
}

const struct special sc_socket_udp = { "socket", add_socket_udp };

static int
add_socketpair(scmp_filter_ctx ctx, int nr)
{
	static const int types[] = { SOCK_STREAM, SOCK_SEQPACKET };
	struct scmp_arg_cmp cmp[2];
	size_t i;
	int rc;

	for (i = 0; i < NELEM(types); i++) {
		cmp[0] = sc_masked(0, ARG32, AF_UNIX);
		cmp[1] = sc_masked(1, ARG32 & ~(uint64_t)SOCK_FLAGS,
		    (uint32_t)types[i]);
		if ((rc = sc_rule(ctx, SCMP_ACT_ALLOW, nr, 2, cmp)) < 0)
			return rc;
	}
	return 0;
}

static int
add_ioctl(scmp_filter_ctx ctx, int nr)
{
	return sc_allow_unless(ctx, nr, 1, ioctl_refused, NELEM(ioctl_refused));
}

/* The mask lies within the low 32 bits, all the kernel reads. */
static int
add_clone(scmp_filter_ctx ctx, int nr)
{
	return sc_allow_if(ctx, nr, 0, CLONE_NS, 0);
}

/* Its flags sit behind a pointer: ENOSYS, and libc falls back to clone. */
static int
add_clone3(scmp_filter_ctx ctx, int nr)
{
	return sc_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0, NULL);
}

/* sendmsg(fd, msg, flags): no data in a SYN, ahead of the proxy. */
static int
add_send_a2(scmp_filter_ctx ctx, int nr)
{
	return sc_allow_if(ctx, nr, 2, MSG_FASTOPEN, 0);
}

/* sendto(fd, buf, len, flags, ...), sendmmsg(fd, vec, vlen, flags). */
static int
add_send_a3(scmp_filter_ctx ctx, int nr)
{
	return sc_allow_if(ctx, nr, 3, MSG_FASTOPEN, 0);
}

/* Refused: level IPPROTO_TCP and optname TCP_FASTOPEN_CONNECT together. */
static int
add_setsockopt(scmp_filter_ctx ctx, int nr)
{
	static const uint32_t level[] = { IPPROTO_TCP };
	static const uint32_t optname[] = { TCP_FASTOPEN_CONNECT };
	int rc;

	if ((rc = sc_allow_unless(ctx, nr, 1, level, NELEM(level))) < 0)
		return rc;
	return sc_allow_unless(ctx, nr, 2, optname, NELEM(optname));
}

static int
add_personality(scmp_filter_ctx ctx, int nr)
{
	size_t i;
	int rc;

	for (i = 0; i < NELEM(persona_ok); i++)
		if ((rc = sc_allow_if(ctx, nr, 0, ARG32, persona_ok[i])) < 0)
			return rc;
	return 0;
}

/*
 * A file the command makes set-user-ID or set-group-ID would run as its
 * owner on the host: the caller (a root caller's, through the idmapped
 * workspace), by anyone who can reach the workspace.  So no mode with
 * S_ISUID or S_ISGID is set: not by chmod, nor on a file made with one.
 */
#define MODE_SETID	((uint64_t)(S_ISUID | S_ISGID))

static int
allow_mode(scmp_filter_ctx ctx, int nr, unsigned int arg)
{
	return sc_allow_if(ctx, nr, arg, MODE_SETID, 0);
}

/* chmod(path, mode), fchmod(fd, mode), creat(path, mode), mknod(path, mode) */
static int
add_mode_a1(scmp_filter_ctx ctx, int nr)
{
	return allow_mode(ctx, nr, 1);
}

/* fchmodat(dirfd, path, mode), mknodat(dirfd, path, mode, dev) */
static int
add_mode_a2(scmp_filter_ctx ctx, int nr)
{
	return allow_mode(ctx, nr, 2);
}

/* The mode counts only with O_CREAT or O_TMPFILE: either clear, or no setid. */
#ifndef __O_TMPFILE
#define __O_TMPFILE	020000000
#endif
#define OPEN_MAKES	((uint64_t)(O_CREAT | __O_TMPFILE))

static int
allow_open(scmp_filter_ctx ctx, int nr, unsigned int flags, unsigned int mode)
{
	int rc;

	if ((rc = sc_allow_if(ctx, nr, flags, OPEN_MAKES, 0)) < 0)
		return rc;
	return allow_mode(ctx, nr, mode);
}

static int
add_open(scmp_filter_ctx ctx, int nr)
{
	return allow_open(ctx, nr, 1, 2);
}

static int
add_openat(scmp_filter_ctx ctx, int nr)
{
	return allow_open(ctx, nr, 2, 3);
}

/* Its mode sits behind a pointer: ENOSYS, and libc falls back to openat. */
static int
add_openat2(scmp_filter_ctx ctx, int nr)
{
	return sc_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0, NULL);
}
