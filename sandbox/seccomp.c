/*
 * seccomp (SPEC 6.2), built with libseccomp for the native architecture.
 *
 * Default action ERRNO(EPERM).  Every syscall number libseccomp names for
 * the native architecture, up to the last number reviewed for this file,
 * is allowed unless it is listed as refused below.  A number libseccomp
 * cannot name, or one above NR_REVIEWED, fails with ENOSYS, as on a kernel
 * without it: a libc then falls back (fchmodat2, say), and a call added to
 * the kernel later fails closed.  Numbers above NR_LAST, and calls with
 * arguments no rule allows, take the default action.
 *
 * A foreign ABI takes the bad-architecture action, KILL_PROCESS: i386 via
 * int 0x80 carries its own audit arch; x32 shares AUDIT_ARCH_X86_64 but
 * sets __X32_SYSCALL_BIT, and libseccomp (2.5), when the filter does not
 * name x32, sends every number >= 0x40000000 but -1 to the same action.
 *
 * Calls refused only for some arguments get ALLOW rules for the arguments
 * that may pass; the rest falls to the default action.  No syscall ever
 * has rules with two different actions, so nothing depends on the order
 * in which libseccomp would weigh them: it relies only on the documented
 * union of rules.  "Allowed unless the argument is one of ..." is written
 * as the complement of that set (allow_unless()).
 *
 * The kernel reads socket's domain, type and protocol, ioctl's cmd,
 * clone's flags (lower_32_bits()), the send flags and setsockopt's level
 * and optname as 32-bit values: every comparison is MASKED_EQ with a mask
 * inside the low 32 bits, so garbage above bit 31 can neither pass a
 * refused value nor refuse an allowed one.
 */
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/internal.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

#define ARG32		0xffffffffULL	/* the kernel reads an int */
#define ANY		(-1)		/* any value of this argument */
#define NR_NONE		(-1)

/* Highest number reviewed for this list: file_setattr, Linux 6.17. */
#define NR_REVIEWED	469
/* Below this, unknown numbers fail with ENOSYS; above, EPERM. */
#define NR_LAST		511

/* clone() may not create a namespace. */
#define CLONE_NS	(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |	\
	CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP |	\
	CLONE_NEWTIME)

/* socket() type flags, stripped by the kernel before the type is read. */
#define SOCK_FLAGS	(SOCK_NONBLOCK | SOCK_CLOEXEC)

/*
 * Refused with EPERM.  nr is given for a call newer than some libseccomp:
 * from 424 on, numbers are the same on every architecture.  Otherwise a
 * name libseccomp does not know is a typo, and the filter is not built.
 */
static const struct refused {
	const char	*name;
	int		 nr;
} refused[] = {
	/* Kernel attack surface. */
	{ "bpf",		NR_NONE },
	{ "io_uring_setup",	NR_NONE },
	{ "io_uring_enter",	NR_NONE },
	{ "io_uring_register",	NR_NONE },
	{ "perf_event_open",	NR_NONE },
	{ "userfaultfd",	NR_NONE },
	{ "fanotify_init",	NR_NONE },
	{ "lookup_dcookie",	NR_NONE },
	/* Other processes' memory and descriptors. */
	{ "ptrace",		NR_NONE },
	{ "process_vm_readv",	NR_NONE },
	{ "process_vm_writev",	NR_NONE },
	{ "pidfd_getfd",	NR_NONE },
	/* Files by handle bypass the path walk Landlock sees. */
	{ "open_by_handle_at",	NR_NONE },
	{ "name_to_handle_at",	NR_NONE },
	/* The kernel itself. */
	{ "kexec_load",		NR_NONE },
	{ "kexec_file_load",	NR_NONE },
	{ "init_module",	NR_NONE },
	{ "finit_module",	NR_NONE },
	{ "delete_module",	NR_NONE },
	{ "create_module",	NR_NONE },
	{ "iopl",		NR_NONE },
	{ "ioperm",		NR_NONE },
	/* Mounts: the mount namespace hides the credential files. */
	{ "mount",		NR_NONE },
	{ "umount2",		NR_NONE },
	{ "pivot_root",		NR_NONE },
	{ "move_mount",		NR_NONE },
	{ "open_tree",		NR_NONE },
	{ "open_tree_attr",	467 },
	{ "fsopen",		NR_NONE },
	{ "fsconfig",		NR_NONE },
	{ "fsmount",		NR_NONE },
	{ "fspick",		NR_NONE },
	{ "mount_setattr",	NR_NONE },
	{ "quotactl",		NR_NONE },
	{ "quotactl_fd",	NR_NONE },
	/* Keys are shared beyond the sandbox. */
	{ "keyctl",		NR_NONE },
	{ "add_key",		NR_NONE },
	{ "request_key",	NR_NONE },
	/* Namespaces: clone() is filtered by flag, clone3() is ENOSYS. */
	{ "unshare",		NR_NONE },
	{ "setns",		NR_NONE },
	/* Host state. */
	{ "acct",		NR_NONE },
	{ "swapon",		NR_NONE },
	{ "swapoff",		NR_NONE },
	{ "reboot",		NR_NONE },
	{ "settimeofday",	NR_NONE },
	{ "clock_settime",	NR_NONE },
	{ "adjtimex",		NR_NONE },
	{ "clock_adjtime",	NR_NONE },
	{ "syslog",		NR_NONE },
	{ "vhangup",		NR_NONE },
	{ "uselib",		NR_NONE },
	{ "nfsservctl",		NR_NONE },
	{ "_sysctl",		NR_NONE },
};

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
static const struct special {
	const char	*name;
	int		(*add)(scmp_filter_ctx, int);
} special[] = {
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
	{ "mknodat",	add_mode_a2 },
	{ "open",	add_open },
	{ "openat",	add_openat },
	{ "openat2",	add_openat2 },
};

/* Filter attributes, all required. */
static const struct attr {
	enum scmp_filter_attr	 attr;
	uint32_t		 value;
	const char		*what;
} attrs[] = {
	{ SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS,
	    "kill a foreign architecture" },
	/* The caller sets it too; without it an unprivileged load fails. */
	{ SCMP_FLTATR_CTL_NNP, 1, "no_new_privs" },
	/* A thread the caller did not expect is filtered as well. */
	{ SCMP_FLTATR_CTL_TSYNC, 1, "thread synchronisation" },
	/* Some 500 numbers with rules: search them as a tree, not a list. */
	{ SCMP_FLTATR_CTL_OPTIMIZE, 2, "binary tree" },
	/* So that a failed load reports the kernel's errno. */
	{ SCMP_FLTATR_API_SYSRAWRC, 1, "raw return codes" },
};

static int
fail(char *err, size_t errlen, const char *what, const char *name, int rc)
{
	if (name != NULL)
		snprintf(err, errlen, "seccomp: %s %s: %s", what, name,
		    strerror(-rc));
	else
		snprintf(err, errlen, "seccomp: %s: %s", what, strerror(-rc));
	return -1;
}

static struct scmp_arg_cmp
masked(unsigned int arg, uint64_t mask, uint64_t datum)
{
	return SCMP_CMP64(arg, SCMP_CMP_MASKED_EQ, mask, datum & mask);
}

/* Exact: never a rule libseccomp rewrote behind our back. */
static int
rule(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned int n,
    const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_exact_array(ctx, action, nr, n, cmp);
}

static int
allow_if(scmp_filter_ctx ctx, int nr, unsigned int arg, uint64_t mask,
    uint64_t datum)
{
	struct scmp_arg_cmp cmp = masked(arg, mask, datum);

	return rule(ctx, SCMP_ACT_ALLOW, nr, 1, &cmp);
}

static int
set_has_prefix(const uint32_t *set, size_t n, uint32_t mask, uint32_t prefix)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((set[i] & mask) == prefix)
			return 1;
	return 0;
}

/*
 * One level of a walk down the binary trie of set[]: prefix fixes the top
 * depth bits.  A child that leads to no member of set[] is a block of the
 * complement, allowed by one rule on the top depth + 1 bits; a child that
 * does is walked further, down to the member itself, which gets no rule.
 * The blocks are disjoint and cover every 32-bit value outside set[], in
 * at most 32 rules per member.
 */
static int
allow_walk(scmp_filter_ctx ctx, int nr, unsigned int arg, const uint32_t *set,
    size_t n, int depth, uint32_t prefix)
{
	uint32_t bit, mask, p;
	int b, rc;

	bit = UINT32_C(1) << (31 - depth);
	mask = ~(bit - 1);
	for (b = 0; b < 2; b++) {
		p = prefix | (b ? bit : 0);
		if (!set_has_prefix(set, n, mask, p))
			rc = allow_if(ctx, nr, arg, mask, p);
		else if (depth < 31)
			rc = allow_walk(ctx, nr, arg, set, n, depth + 1, p);
		else
			rc = 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Allow nr unless the low 32 bits of argument arg are in set[]. */
static int
allow_unless(scmp_filter_ctx ctx, int nr, unsigned int arg,
    const uint32_t *set, size_t n)
{
	return allow_walk(ctx, nr, arg, set, n, 0, 0);
}

static int
add_socket(scmp_filter_ctx ctx, int nr)
{
	const struct socket_ok *s;
	struct scmp_arg_cmp cmp[3];
	unsigned int n;
	size_t i;
	int rc;

	for (i = 0; i < NELEM(socket_ok); i++) {
		s = &socket_ok[i];
		n = 0;
		cmp[n++] = masked(0, ARG32, (uint32_t)s->domain);
		if (s->type != ANY)
			cmp[n++] = masked(1, ARG32 & ~(uint64_t)SOCK_FLAGS,
			    (uint32_t)s->type);
		if (s->protocol != ANY)
			cmp[n++] = masked(2, ARG32, (uint32_t)s->protocol);
		if ((rc = rule(ctx, SCMP_ACT_ALLOW, nr, n, cmp)) < 0)
			return rc;
	}
	return 0;
}

static int
add_socketpair(scmp_filter_ctx ctx, int nr)
{
	static const int types[] = { SOCK_STREAM, SOCK_SEQPACKET };
	struct scmp_arg_cmp cmp[2];
	size_t i;
	int rc;

	for (i = 0; i < NELEM(types); i++) {
		cmp[0] = masked(0, ARG32, AF_UNIX);
		cmp[1] = masked(1, ARG32 & ~(uint64_t)SOCK_FLAGS,
		    (uint32_t)types[i]);
		if ((rc = rule(ctx, SCMP_ACT_ALLOW, nr, 2, cmp)) < 0)
			return rc;
	}
	return 0;
}

static int
add_ioctl(scmp_filter_ctx ctx, int nr)
{
	return allow_unless(ctx, nr, 1, ioctl_refused, NELEM(ioctl_refused));
}

/* The mask lies within the low 32 bits, all the kernel reads. */
static int
add_clone(scmp_filter_ctx ctx, int nr)
{
	return allow_if(ctx, nr, 0, CLONE_NS, 0);
}

/* Its flags sit behind a pointer: ENOSYS, and libc falls back to clone. */
static int
add_clone3(scmp_filter_ctx ctx, int nr)
{
	return rule(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0, NULL);
}

/* sendmsg(fd, msg, flags): no data in a SYN, ahead of the proxy. */
static int
add_send_a2(scmp_filter_ctx ctx, int nr)
{
	return allow_if(ctx, nr, 2, MSG_FASTOPEN, 0);
}

/* sendto(fd, buf, len, flags, ...), sendmmsg(fd, vec, vlen, flags). */
static int
add_send_a3(scmp_filter_ctx ctx, int nr)
{
	return allow_if(ctx, nr, 3, MSG_FASTOPEN, 0);
}

/* Refused: level IPPROTO_TCP and optname TCP_FASTOPEN_CONNECT together. */
static int
add_setsockopt(scmp_filter_ctx ctx, int nr)
{
	static const uint32_t level[] = { IPPROTO_TCP };
	static const uint32_t optname[] = { TCP_FASTOPEN_CONNECT };
	int rc;

	if ((rc = allow_unless(ctx, nr, 1, level, NELEM(level))) < 0)
		return rc;
	return allow_unless(ctx, nr, 2, optname, NELEM(optname));
}

static int
add_personality(scmp_filter_ctx ctx, int nr)
{
	size_t i;
	int rc;

	for (i = 0; i < NELEM(persona_ok); i++)
		if ((rc = allow_if(ctx, nr, 0, ARG32, persona_ok[i])) < 0)
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
	return allow_if(ctx, nr, arg, MODE_SETID, 0);
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

	if ((rc = allow_if(ctx, nr, flags, OPEN_MAKES, 0)) < 0)
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
	return rule(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0, NULL);
}

static const struct special *
find_special(const char *name)
{
	size_t i;

	for (i = 0; i < NELEM(special); i++)
		if (strcmp(special[i].name, name) == 0)
			return &special[i];
	return NULL;
}

static int
is_refused(const char *name, int nr)
{
	size_t i;

	for (i = 0; i < NELEM(refused); i++)
		if ((name != NULL && strcmp(refused[i].name, name) == 0) ||
		    (name == NULL && refused[i].nr == nr))
			return 1;
	return 0;
}

/* A typo in a table must not leave a call allowed. */
static int
check_tables(uint32_t arch, char *err, size_t errlen)
{
	size_t i;
	int nr;

	for (i = 0; i < NELEM(refused); i++) {
		nr = seccomp_syscall_resolve_name_arch(arch, refused[i].name);
		if (nr == __NR_SCMP_ERROR && refused[i].nr == NR_NONE)
			return fail(err, errlen, "unknown refused call",
			    refused[i].name, -EINVAL);
	}
	for (i = 0; i < NELEM(special); i++) {
		nr = seccomp_syscall_resolve_name_arch(arch, special[i].name);
		if (nr < 0 || nr > NR_REVIEWED)
			return fail(err, errlen, "unknown filtered call",
			    special[i].name, -EINVAL);
	}
	return 0;
}

/* The rules for one syscall number. */
static int
add_nr(scmp_filter_ctx ctx, uint32_t arch, int nr, char *err, size_t errlen)
{
	const struct special *s;
	char *name;
	int rc;

	name = seccomp_syscall_resolve_num_arch(arch, nr);
	if (name == NULL || nr > NR_REVIEWED) {
		if (is_refused(NULL, nr))
			rc = 0;
		else
			rc = rule(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0, NULL);
	} else if ((s = find_special(name)) != NULL)
		rc = s->add(ctx, nr);
	else if (is_refused(name, nr))
		rc = 0;
	else
		rc = rule(ctx, SCMP_ACT_ALLOW, nr, 0, NULL);
	if (rc < 0) {
		char num[16];

		snprintf(num, sizeof(num), "%d", nr);
		fail(err, errlen, "rule for", name != NULL ? name : num, rc);
	}
	free(name);
	return rc < 0 ? -1 : 0;
}

static int
set_attrs(scmp_filter_ctx ctx, char *err, size_t errlen)
{
	size_t i;
	int rc;

	for (i = 0; i < NELEM(attrs); i++)
		if ((rc = seccomp_attr_set(ctx, attrs[i].attr,
		    attrs[i].value)) < 0)
			return fail(err, errlen, "attribute", attrs[i].what,
			    rc);
	return 0;
}

/* The whole filter, or NULL with err set. */
static scmp_filter_ctx
build(char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	uint32_t arch;
	int nr;

	arch = seccomp_arch_native();
	if (check_tables(arch, err, errlen) == -1)
		return NULL;
	/* Native architecture only: seccomp_init adds nothing else. */
	if ((ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL) {
		fail(err, errlen, "seccomp_init", NULL, -ENOMEM);
		return NULL;
	}
	if (set_attrs(ctx, err, errlen) == -1)
		goto bad;
	for (nr = 0; nr <= NR_LAST; nr++)
		if (add_nr(ctx, arch, nr, err, errlen) == -1)
			goto bad;
	return ctx;
 bad:
	seccomp_release(ctx);
	return NULL;
}

/*
 * The calls that change file metadata, which no Landlock right covers:
 * in the landlock confinement, without a read-only host, the connect
 * broker judges them too (sandbox/broker.c).
 */
const char *const broker_meta_names[] = {
	"chmod", "fchmod", "fchmodat", "chown", "lchown", "fchown", "fchownat",
	"utime", "utimes", "futimesat", "utimensat", "setxattr", "lsetxattr",
	"fsetxattr", "removexattr", "lremovexattr", "fremovexattr", NULL
};

/*
 * The calls that signal a process, or choose whom a later signal
 * reaches: in the landlock confinement the broker lets them go on only
 * toward the command's own processes (SPEC 6.5).  Where Landlock's signal
 * scope exists (ABI >= 6) it says the same, and the broker is depth.
 */
const struct broker_sigcall_name broker_signal_names[] = {
	{ "kill", SIGCALL_KILL },
	{ "tkill", SIGCALL_TKILL },
	{ "tgkill", SIGCALL_TGKILL },
	{ "rt_sigqueueinfo", SIGCALL_SIGQUEUE },
	{ "rt_tgsigqueueinfo", SIGCALL_TGSIGQUEUE },
	{ "pidfd_open", SIGCALL_PIDFD_OPEN },
	{ NULL, 0 }
};

const struct broker_sockopt broker_sockopts[] = {
	{ SOL_SOCKET, SO_KEEPALIVE }, { SOL_SOCKET, SO_LINGER },
	{ SOL_SOCKET, SO_RCVBUF }, { SOL_SOCKET, SO_SNDBUF },
	{ SOL_SOCKET, SO_RCVTIMEO }, { SOL_SOCKET, SO_SNDTIMEO },
	{ SOL_SOCKET, SO_REUSEADDR }, { SOL_SOCKET, SO_REUSEPORT },
	{ SOL_SOCKET, SO_OOBINLINE }, { SOL_SOCKET, SO_PASSCRED },
	{ IPPROTO_TCP, TCP_NODELAY }, { IPPROTO_TCP, TCP_KEEPIDLE },
	{ IPPROTO_TCP, TCP_KEEPINTVL }, { IPPROTO_TCP, TCP_KEEPCNT },
	{ IPPROTO_TCP, TCP_USER_TIMEOUT }, { IPPROTO_TCP, TCP_SYNCNT },
	{ IPPROTO_TCP, TCP_QUICKACK }, { IPPROTO_TCP, TCP_NOTSENT_LOWAT },
	{ IPPROTO_TCP, TCP_WINDOW_CLAMP }, { IPPROTO_IP, IP_TOS },
	{ IPPROTO_IP, IP_TTL }, { IPPROTO_IPV6, IPV6_V6ONLY },
	{ IPPROTO_IPV6, IPV6_TCLASS }, { IPPROTO_IPV6, IPV6_UNICAST_HOPS },
};
const size_t broker_nsockopts = NELEM(broker_sockopts);

/* The main filter, built now and loaded (tests/test_seccomp.c). */
int
sandbox_seccomp_load(char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int rc;

	if ((ctx = build(err, errlen)) == NULL)
		return -1;
	/* One seccomp(2) call: the whole filter or none of it. */
	rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0)
		return fail(err, errlen, "seccomp_load", NULL, rc);
	return 0;
}

/*
 * The connect broker's filter: connect() stops for the broker (user
 * notification), everything else is left to the main filter.  A foreign
 * ABI is killed here too.
 */
/*
 * The landlock confinement's signal calls (broker_signal_names, and
 * fcntl(F_SETOWN)) stop for the broker.  An owner given through memory
 * (F_SETOWN_EX, FIOSETOWN, SIOCSPGRP) could change after a check: those
 * are refused.
 */
static int
broker_signals(scmp_filter_ctx ctx)
{
	static const struct {
		int		 nr;
		unsigned	 arg;
		unsigned long	 value;
		uint32_t	 action;
	} args[] = {
		{ SCMP_SYS(fcntl), 1, F_SETOWN, SCMP_ACT_NOTIFY },
		{ SCMP_SYS(fcntl), 1, F_SETOWN_EX, SCMP_ACT_ERRNO(EPERM) },
		{ SCMP_SYS(ioctl), 1, FIOSETOWN, SCMP_ACT_ERRNO(EPERM) },
		{ SCMP_SYS(ioctl), 1, SIOCSPGRP, SCMP_ACT_ERRNO(EPERM) },
	};
	struct scmp_arg_cmp cmp;
	size_t i;
	int rc, nr;

	for (i = 0; broker_signal_names[i].name != NULL; i++) {
		if ((nr = seccomp_syscall_resolve_name(
		    broker_signal_names[i].name)) < 0)
			return -EINVAL;
		if ((rc = rule(ctx, SCMP_ACT_NOTIFY, nr, 0, NULL)) < 0)
			return rc;
	}
	for (i = 0; i < NELEM(args); i++) {
		cmp = masked(args[i].arg, 0xffffffffUL, args[i].value);
		if ((rc = rule(ctx, args[i].action, args[i].nr, 1, &cmp)) < 0)
			return rc;
	}
	return 0;
}

/*
 * The connect broker's filter: connect() stops for the broker (user
 * notification), everything else is left to the main filter.  A foreign
 * ABI is killed here too.  In the landlock confinement (ll), metadata and
 * signal calls stop for it as well, and, where it connects fresh sockets
 * (opts), the socket options it must carry over.
 */
static scmp_filter_ctx
build_broker(bool ll, bool opts, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	size_t i;
	int rc, nr;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		fail(err, errlen, "seccomp_init", NULL, -ENOMEM);
		return NULL;
	}
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS)) < 0 ||
	    (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1)) < 0 ||
	    (rc = rule(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0, NULL)) < 0)
		goto bad;
	/* Without a read-only host, metadata is the broker's to judge too. */
	for (i = 0; ll && broker_meta_names[i] != NULL; i++) {
		if ((nr = seccomp_syscall_resolve_name(broker_meta_names[i])) <
		    0) {
			rc = -EINVAL;
			goto bad;
		}
		if ((rc = rule(ctx, SCMP_ACT_NOTIFY, nr, 0, NULL)) < 0)
			goto bad;
	}
	if (ll && (rc = broker_signals(ctx)) < 0)
		goto bad;
	for (i = 0; opts && i < broker_nsockopts; i++) {
		const struct broker_sockopt *o = &broker_sockopts[i];
		struct scmp_arg_cmp cmp[2] = {
			masked(1, 0xffffffffUL, (uint32_t)o->level),
			masked(2, 0xffffffffUL, (uint32_t)o->name),
		};

		if ((rc = rule(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(setsockopt), 2,
		    cmp)) < 0)
			goto bad;
	}
	return ctx;
bad:
	fail(err, errlen, "broker filter", NULL, rc);
	seccomp_release(ctx);
	return NULL;
}

static scmp_filter_ctx
build_which(int which, char *err, size_t errlen)
{
	if (which == SECCOMP_MAIN)
		return build(err, errlen);
	return build_broker(which == SECCOMP_BROKER_LL ||
	    which == SECCOMP_BROKER_LL_OPTS, which == SECCOMP_BROKER_LL_OPTS,
	    err, errlen);
}

#ifndef SECCOMP_GEN_ONLY	/* the generator itself has no program yet */
/* The programs generated at build time (sandbox/seccomp-prog.c). */
extern const unsigned char sandbox_seccomp_bpf[];
extern const size_t sandbox_seccomp_bpf_len;
extern const unsigned char sandbox_seccomp_broker_bpf[];
extern const size_t sandbox_seccomp_broker_bpf_len;
extern const unsigned char sandbox_seccomp_broker_ll_bpf[];
extern const size_t sandbox_seccomp_broker_ll_bpf_len;
extern const unsigned char sandbox_seccomp_broker_ll_opts_bpf[];
extern const size_t sandbox_seccomp_broker_ll_opts_bpf_len;

int
sandbox_seccomp_program(const void **prog, size_t *len)
{
	*prog = sandbox_seccomp_bpf;
	*len = sandbox_seccomp_bpf_len;
	return 0;
}

int
sandbox_seccomp_load_broker(int which, char *err, size_t errlen)
{
	static const struct {
		const unsigned char	*prog;
		const size_t		*len;
	} progs[] = {
		[SECCOMP_BROKER] = { sandbox_seccomp_broker_bpf,
		    &sandbox_seccomp_broker_bpf_len },
		[SECCOMP_BROKER_LL] = { sandbox_seccomp_broker_ll_bpf,
		    &sandbox_seccomp_broker_ll_bpf_len },
		[SECCOMP_BROKER_LL_OPTS] = { sandbox_seccomp_broker_ll_opts_bpf,
		    &sandbox_seccomp_broker_ll_opts_bpf_len },
	};
	struct sock_fprog fp;
	int fd;

	if (which < SECCOMP_BROKER || which > SECCOMP_BROKER_LL_OPTS)
		return fail(err, errlen, "user notification", NULL, -EINVAL);
	fp.len = (unsigned short)(*progs[which].len /
	    sizeof(struct sock_filter));
	fp.filter = (struct sock_filter *)(uintptr_t)progs[which].prog;

	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp);
	if (fd == -1)
		return fail(err, errlen, "user notification", NULL, -errno);
	return fd;
}
#endif

/* The same program, built now with libseccomp. */
int
sandbox_seccomp_build_program(int which, void **prog, size_t *len,
    char *err, size_t errlen)
{
	struct stat st;
	void *buf = NULL;
	int fd;

	*prog = NULL;
	*len = 0;
	if ((fd = memfd_create("harn-seccomp", MFD_CLOEXEC)) == -1)
		return fail(err, errlen, "memfd_create", NULL, -errno);
	if (sandbox_seccomp_export_bpf(which, fd, err, errlen) == -1)
		goto fail;
	if (fstat(fd, &st) == -1 || st.st_size <= 0 ||
	    st.st_size % sizeof(struct sock_filter) != 0 ||
	    (buf = malloc(st.st_size)) == NULL ||
	    pread(fd, buf, st.st_size, 0) != st.st_size) {
		fail(err, errlen, "export", NULL, -EIO);
		goto fail;
	}
	close(fd);
	*prog = buf;
	*len = st.st_size;
	return 0;
fail:
	free(buf);
	close(fd);
	return -1;
}

int
sandbox_seccomp_load_program(const void *prog, size_t len, char *err,
    size_t errlen)
{
	struct sock_fprog fp = {
		.len = (unsigned short)(len / sizeof(struct sock_filter)),
		.filter = (struct sock_filter *)(uintptr_t)prog,
	};

	if (len == 0 || len % sizeof(struct sock_filter) != 0 ||
	    len / sizeof(struct sock_filter) > BPF_MAXINSNS)
		return fail(err, errlen, "load", NULL, -EINVAL);
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) == -1)
		return fail(err, errlen, "seccomp", NULL, -errno);
	return 0;
}

int
sandbox_seccomp_export_bpf(int which, int fd, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int rc;

	if ((ctx = build_which(which, err, errlen)) == NULL)
		return -1;
	rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (rc < 0)
		return fail(err, errlen, "seccomp_export_bpf", NULL, rc);
	return 0;
}
