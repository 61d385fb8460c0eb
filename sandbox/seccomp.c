/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seccomp (SPEC 6.2), built with libseccomp for the native architecture.
 *
 * An allowlist, as moby's default profile and systemd's
 * SystemCallFilter= are: the calls named in allowed[] pass, the calls in
 * checked[] pass for the arguments their rules allow, the calls in
 * refused[] fail with EPERM, and every other number up to NR_LAST fails
 * with ENOSYS, as on a kernel without it (a libc then falls back; a call
 * added to the kernel later is refused until it is reviewed and named
 * here).  Numbers above NR_LAST, and a checked call's arguments no rule
 * allows, take the default action, EPERM.  harn-egressd(8) lists the same
 * calls (SYSTEM CALLS), and tests/test_seccomp.c holds the two to each
 * other over every number.
 *
 * The base is what moby's default profile allows a container without
 * added capabilities (compilers, package managers and test runners run
 * under it every day), less what SPEC 6.2 refuses and what a sandboxed
 * command has no use for (NUMA memory policy, fanotify marks, the *xattrat
 * calls, which are newer than every libc).
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
 *
 * The connect broker's filter (build_broker) is the second filter the
 * command carries: it stops the calls the broker decides (user
 * notification) and lets the rest go to this one.  The kernel takes the
 * stricter answer of the two, so a call this filter refuses never
 * reaches the broker.
 */
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/filter.h>
#include <linux/ioprio.h>
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

/* Below this, numbers no table names fail with ENOSYS; above, EPERM. */
#define NR_LAST		511

/* clone() may not create a namespace. */
#define CLONE_NS	(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |	\
	CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP |	\
	CLONE_NEWTIME)

/* socket() type flags, stripped by the kernel before the type is read. */
#define SOCK_FLAGS	(SOCK_NONBLOCK | SOCK_CLOEXEC)

/*
 * A call by name; nr is given for a call newer than some libseccomp (from
 * 424 on, numbers are the same on every architecture).  A name libseccomp
 * knows for no architecture, without nr, is a typo: the filter is not
 * built.  One known on other architectures only is left out here.
 */
struct named {
	const char	*name;
	int		 nr;
};

/* Allowed whatever their arguments. */
static const struct named allowed[] = {
	/* Memory. */
	{ "brk", NR_NONE }, { "mmap", NR_NONE }, { "munmap", NR_NONE },
	{ "mprotect", NR_NONE }, { "mremap", NR_NONE }, { "madvise", NR_NONE },
	{ "mincore", NR_NONE }, { "msync", NR_NONE }, { "mlock", NR_NONE },
	{ "mlock2", NR_NONE }, { "mlockall", NR_NONE },
	{ "munlock", NR_NONE }, { "munlockall", NR_NONE },
	{ "remap_file_pages", NR_NONE }, { "membarrier", NR_NONE },
	{ "memfd_create", NR_NONE }, { "memfd_secret", NR_NONE },
	{ "pkey_alloc", NR_NONE }, { "pkey_free", NR_NONE },
	{ "pkey_mprotect", NR_NONE }, { "map_shadow_stack", NR_NONE },
	{ "mseal", 462 }, { "cachestat", NR_NONE },
	/* Descriptors and I/O. */
	{ "read", NR_NONE }, { "write", NR_NONE }, { "readv", NR_NONE },
	{ "writev", NR_NONE }, { "pread64", NR_NONE }, { "pwrite64", NR_NONE },
	{ "preadv", NR_NONE }, { "pwritev", NR_NONE }, { "preadv2", NR_NONE },
	{ "pwritev2", NR_NONE }, { "lseek", NR_NONE }, { "close", NR_NONE },
	{ "close_range", NR_NONE }, { "dup", NR_NONE }, { "dup2", NR_NONE },
	{ "dup3", NR_NONE }, { "fcntl", NR_NONE }, { "flock", NR_NONE },
	{ "pipe", NR_NONE }, { "pipe2", NR_NONE }, { "splice", NR_NONE },
	{ "tee", NR_NONE }, { "vmsplice", NR_NONE }, { "sendfile", NR_NONE },
	{ "copy_file_range", NR_NONE }, { "readahead", NR_NONE },
	{ "fadvise64", NR_NONE }, { "fallocate", NR_NONE },
	{ "fsync", NR_NONE }, { "fdatasync", NR_NONE }, { "sync", NR_NONE },
	{ "syncfs", NR_NONE }, { "sync_file_range", NR_NONE },
	{ "ftruncate", NR_NONE }, { "truncate", NR_NONE },
	{ "io_setup", NR_NONE }, { "io_destroy", NR_NONE },
	{ "io_submit", NR_NONE }, { "io_cancel", NR_NONE },
	{ "io_getevents", NR_NONE }, { "io_pgetevents", NR_NONE },
	/* Waiting. */
	{ "poll", NR_NONE }, { "ppoll", NR_NONE }, { "select", NR_NONE },
	{ "pselect6", NR_NONE }, { "epoll_create", NR_NONE },
	{ "epoll_create1", NR_NONE }, { "epoll_ctl", NR_NONE },
	{ "epoll_wait", NR_NONE }, { "epoll_pwait", NR_NONE },
	{ "epoll_pwait2", NR_NONE }, { "eventfd", NR_NONE },
	{ "eventfd2", NR_NONE }, { "signalfd", NR_NONE },
	{ "signalfd4", NR_NONE }, { "timerfd_create", NR_NONE },
	{ "timerfd_settime", NR_NONE }, { "timerfd_gettime", NR_NONE },
	{ "inotify_init", NR_NONE }, { "inotify_init1", NR_NONE },
	{ "inotify_add_watch", NR_NONE }, { "inotify_rm_watch", NR_NONE },
	{ "futex", NR_NONE }, { "futex_waitv", NR_NONE },
	{ "futex_wake", NR_NONE }, { "futex_wait", NR_NONE },
	{ "futex_requeue", NR_NONE }, { "set_robust_list", NR_NONE },
	{ "get_robust_list", NR_NONE }, { "nanosleep", NR_NONE },
	{ "clock_nanosleep", NR_NONE }, { "pause", NR_NONE },
	{ "sched_yield", NR_NONE }, { "restart_syscall", NR_NONE },
	/* Files and directories (Landlock and the mounts judge the paths). */
	{ "access", NR_NONE }, { "faccessat", NR_NONE },
	{ "faccessat2", NR_NONE }, { "stat", NR_NONE }, { "fstat", NR_NONE },
	{ "lstat", NR_NONE }, { "newfstatat", NR_NONE }, { "statx", NR_NONE },
	{ "statfs", NR_NONE }, { "fstatfs", NR_NONE },
	{ "statmount", 457 }, { "listmount", 458 },
	{ "getdents", NR_NONE }, { "getdents64", NR_NONE },
	{ "getcwd", NR_NONE }, { "chdir", NR_NONE }, { "fchdir", NR_NONE },
	{ "readlink", NR_NONE }, { "readlinkat", NR_NONE },
	{ "rename", NR_NONE }, { "renameat", NR_NONE },
	{ "renameat2", NR_NONE }, { "link", NR_NONE }, { "linkat", NR_NONE },
	{ "symlink", NR_NONE }, { "symlinkat", NR_NONE },
	{ "unlink", NR_NONE }, { "unlinkat", NR_NONE }, { "rmdir", NR_NONE },
	{ "umask", NR_NONE }, { "chown", NR_NONE }, { "fchown", NR_NONE },
	{ "lchown", NR_NONE }, { "fchownat", NR_NONE }, { "utime", NR_NONE },
	{ "utimes", NR_NONE }, { "futimesat", NR_NONE },
	{ "utimensat", NR_NONE }, { "getxattr", NR_NONE },
	{ "lgetxattr", NR_NONE }, { "fgetxattr", NR_NONE },
	{ "listxattr", NR_NONE }, { "llistxattr", NR_NONE },
	{ "flistxattr", NR_NONE }, { "setxattr", NR_NONE },
	{ "lsetxattr", NR_NONE }, { "fsetxattr", NR_NONE },
	{ "removexattr", NR_NONE }, { "lremovexattr", NR_NONE },
	{ "fremovexattr", NR_NONE },
	/* Sockets (socket() itself is checked; connect, bind and listen
	 * stop for the broker). */
	{ "connect", NR_NONE }, { "bind", NR_NONE }, { "listen", NR_NONE },
	{ "accept", NR_NONE }, { "accept4", NR_NONE },
	{ "getsockname", NR_NONE }, { "getpeername", NR_NONE },
	{ "getsockopt", NR_NONE }, { "recvfrom", NR_NONE },
	{ "recvmsg", NR_NONE }, { "recvmmsg", NR_NONE },
	{ "shutdown", NR_NONE },
	/* Processes: their own, their children, their threads. */
	{ "execve", NR_NONE }, { "execveat", NR_NONE }, { "fork", NR_NONE },
	{ "vfork", NR_NONE }, { "exit", NR_NONE }, { "exit_group", NR_NONE },
	{ "wait4", NR_NONE }, { "waitid", NR_NONE }, { "getpid", NR_NONE },
	{ "getppid", NR_NONE }, { "gettid", NR_NONE },
	{ "set_tid_address", NR_NONE }, { "getpgid", NR_NONE },
	{ "getpgrp", NR_NONE }, { "setpgid", NR_NONE }, { "getsid", NR_NONE },
	{ "setsid", NR_NONE }, { "getpriority", NR_NONE },
	{ "prctl", NR_NONE }, { "arch_prctl", NR_NONE },
	{ "modify_ldt", NR_NONE }, { "get_thread_area", NR_NONE },
	{ "set_thread_area", NR_NONE }, { "rseq", NR_NONE },
	{ "seccomp", NR_NONE }, { "landlock_create_ruleset", NR_NONE },
	{ "landlock_add_rule", NR_NONE }, { "landlock_restrict_self", NR_NONE },
	{ "capget", NR_NONE }, { "capset", NR_NONE },
	{ "sched_getaffinity", NR_NONE }, { "sched_getattr", NR_NONE },
	{ "sched_getparam", NR_NONE }, { "sched_getscheduler", NR_NONE },
	{ "sched_get_priority_max", NR_NONE },
	{ "sched_get_priority_min", NR_NONE },
	{ "sched_rr_get_interval", NR_NONE }, { "ioprio_get", NR_NONE },
	{ "getrlimit", NR_NONE }, { "setrlimit", NR_NONE },
	{ "getrusage", NR_NONE }, { "times", NR_NONE },
	{ "pidfd_open", NR_NONE }, { "pidfd_send_signal", NR_NONE },
	/* Another process of the command's (the broker judges which). */
	{ "setpriority", NR_NONE }, { "ioprio_set", NR_NONE },
	{ "sched_setaffinity", NR_NONE }, { "sched_setscheduler", NR_NONE },
	{ "sched_setparam", NR_NONE }, { "sched_setattr", NR_NONE },
	{ "prlimit64", NR_NONE },
	{ "process_mrelease", NR_NONE },
	/* Identity: no capability, so only among ids already held. */
	{ "getuid", NR_NONE }, { "geteuid", NR_NONE }, { "getgid", NR_NONE },
	{ "getegid", NR_NONE }, { "getresuid", NR_NONE },
	{ "getresgid", NR_NONE }, { "getgroups", NR_NONE },
	{ "setuid", NR_NONE }, { "setgid", NR_NONE }, { "setreuid", NR_NONE },
	{ "setregid", NR_NONE }, { "setresuid", NR_NONE },
	{ "setresgid", NR_NONE }, { "setfsuid", NR_NONE },
	{ "setfsgid", NR_NONE }, { "setgroups", NR_NONE },
	/* Signals (the landlock confinement's broker judges whom). */
	{ "rt_sigaction", NR_NONE }, { "rt_sigprocmask", NR_NONE },
	{ "rt_sigreturn", NR_NONE }, { "rt_sigpending", NR_NONE },
	{ "rt_sigsuspend", NR_NONE }, { "rt_sigtimedwait", NR_NONE },
	{ "rt_sigqueueinfo", NR_NONE }, { "rt_tgsigqueueinfo", NR_NONE },
	{ "sigaltstack", NR_NONE }, { "kill", NR_NONE }, { "tkill", NR_NONE },
	{ "tgkill", NR_NONE },
	/* Time. */
	{ "clock_gettime", NR_NONE }, { "clock_getres", NR_NONE },
	{ "gettimeofday", NR_NONE }, { "time", NR_NONE }, { "alarm", NR_NONE },
	{ "getitimer", NR_NONE }, { "setitimer", NR_NONE },
	{ "timer_create", NR_NONE }, { "timer_settime", NR_NONE },
	{ "timer_gettime", NR_NONE }, { "timer_getoverrun", NR_NONE },
	{ "timer_delete", NR_NONE },
	/* The system, read. */
	{ "uname", NR_NONE }, { "sysinfo", NR_NONE }, { "getcpu", NR_NONE },
	{ "getrandom", NR_NONE },
	/* SysV and POSIX IPC: the namespaces confinement's own (a root
	 * caller's command that keeps uid 0 is refused them, build_broker). */
	{ "msgget", NR_NONE }, { "msgsnd", NR_NONE }, { "msgrcv", NR_NONE },
	{ "msgctl", NR_NONE }, { "semget", NR_NONE }, { "semop", NR_NONE },
	{ "semtimedop", NR_NONE }, { "semctl", NR_NONE },
	{ "shmget", NR_NONE }, { "shmat", NR_NONE }, { "shmdt", NR_NONE },
	{ "shmctl", NR_NONE }, { "mq_open", NR_NONE }, { "mq_unlink", NR_NONE },
	{ "mq_timedsend", NR_NONE }, { "mq_timedreceive", NR_NONE },
	{ "mq_notify", NR_NONE }, { "mq_getsetattr", NR_NONE },
};

/* Refused with EPERM (SPEC 6.2), named so that the refusal says so. */
static const struct named refused[] = {
	/* Kernel attack surface. */
	{ "bpf", NR_NONE }, { "io_uring_setup", NR_NONE },
	{ "io_uring_enter", NR_NONE }, { "io_uring_register", NR_NONE },
	{ "perf_event_open", NR_NONE }, { "userfaultfd", NR_NONE },
	{ "fanotify_init", NR_NONE }, { "lookup_dcookie", NR_NONE },
	/* Other processes' memory and descriptors. */
	{ "ptrace", NR_NONE }, { "process_vm_readv", NR_NONE },
	{ "process_vm_writev", NR_NONE }, { "pidfd_getfd", NR_NONE },
	{ "kcmp", NR_NONE }, { "process_madvise", NR_NONE },
	{ "migrate_pages", NR_NONE }, { "move_pages", NR_NONE },
	/* Files by handle bypass the path walk Landlock sees. */
	{ "open_by_handle_at", NR_NONE }, { "name_to_handle_at", NR_NONE },
	/* The kernel itself. */
	{ "kexec_load", NR_NONE }, { "kexec_file_load", NR_NONE },
	{ "init_module", NR_NONE }, { "finit_module", NR_NONE },
	{ "delete_module", NR_NONE }, { "create_module", NR_NONE },
	{ "iopl", NR_NONE }, { "ioperm", NR_NONE },
	/* Mounts: the mount namespace hides the credential files. */
	{ "mount", NR_NONE }, { "umount2", NR_NONE }, { "pivot_root", NR_NONE },
	{ "chroot", NR_NONE }, { "move_mount", NR_NONE },
	{ "open_tree", NR_NONE }, { "open_tree_attr", 467 },
	{ "fsopen", NR_NONE }, { "fsconfig", NR_NONE }, { "fsmount", NR_NONE },
	{ "fspick", NR_NONE }, { "mount_setattr", NR_NONE },
	{ "quotactl", NR_NONE }, { "quotactl_fd", NR_NONE },
	/* Keys are shared beyond the sandbox. */
	{ "keyctl", NR_NONE }, { "add_key", NR_NONE },
	{ "request_key", NR_NONE },
	/* Namespaces: clone() is checked by flag, clone3() is ENOSYS. */
	{ "unshare", NR_NONE }, { "setns", NR_NONE },
	/* Host state. */
	{ "acct", NR_NONE }, { "swapon", NR_NONE }, { "swapoff", NR_NONE },
	{ "reboot", NR_NONE }, { "settimeofday", NR_NONE },
	{ "clock_settime", NR_NONE }, { "adjtimex", NR_NONE },
	{ "clock_adjtime", NR_NONE }, { "syslog", NR_NONE },
	{ "sethostname", NR_NONE }, { "setdomainname", NR_NONE },
	{ "vhangup", NR_NONE }, { "uselib", NR_NONE },
	{ "nfsservctl", NR_NONE }, { "_sysctl", NR_NONE },
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
	{ "fchmodat2",	add_mode_a2 },
	{ "mknodat",	add_mode_a2 },
	/* The kernel keeps no set-ID bit of mkdir's mode; nor does this. */
	{ "mkdir",	add_mode_a1 },
	{ "mkdirat",	add_mode_a2 },
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
 * complement, given action by one rule on the top depth + 1 bits; a
 * child that does is walked further, down to the member itself, which
 * gets no rule.
 * The blocks are disjoint and cover every 32-bit value outside set[], in
 * at most 32 rules per member.
 */
static int
act_walk(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned int arg,
    const uint32_t *set, size_t n, int depth, uint32_t prefix)
{
	uint32_t bit, mask, p;
	int b, rc;

	bit = UINT32_C(1) << (31 - depth);
	mask = ~(bit - 1);
	for (b = 0; b < 2; b++) {
		p = prefix | (b ? bit : 0);
		if (!set_has_prefix(set, n, mask, p)) {
			struct scmp_arg_cmp cmp = masked(arg, mask, p);

			rc = rule(ctx, action, nr, 1, &cmp);
		} else if (depth < 31)
			rc = act_walk(ctx, action, nr, arg, set, n, depth + 1,
			    p);
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
	return act_walk(ctx, SCMP_ACT_ALLOW, nr, arg, set, n, 0, 0);
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

/* What the filter does with each number up to NR_LAST. */
enum nr_kind {
	NR_ENOSYS = 0,		/* named nowhere */
	NR_ALLOW,
	NR_CHECK,
	NR_REFUSE
};

struct nr_plan {
	enum nr_kind		 kind[NR_LAST + 1];
	const struct special	*check[NR_LAST + 1];
};

/*
 * The number name has here: -1 when the call does not exist on this
 * architecture, -2 when libseccomp knows it nowhere and the table gives
 * no number (a typo, which must not leave a call allowed).
 */
static int
named_nr(uint32_t arch, const char *name, int given)
{
	int nr = seccomp_syscall_resolve_name_arch(arch, name);

	if (nr == __NR_SCMP_ERROR)
		return given != NR_NONE ? given : -2;
	return nr < 0 ? -1 : nr;
}

/* Put one named call in the plan; a number named twice is an error. */
static int
plan_one(struct nr_plan *p, uint32_t arch, const char *name, int given,
    enum nr_kind kind, const struct special *s, char *err, size_t errlen)
{
	int nr = named_nr(arch, name, given);

	if (nr == -1)
		return 0;
	if (nr == -2)
		return fail(err, errlen, "unknown call", name, -EINVAL);
	if (nr > NR_LAST)
		return fail(err, errlen, "call above NR_LAST", name, -EINVAL);
	if (p->kind[nr] != NR_ENOSYS)
		return fail(err, errlen, "call named twice", name, -EINVAL);
	p->kind[nr] = kind;
	p->check[nr] = s;
	return 0;
}

static int
plan_numbers(struct nr_plan *p, uint32_t arch, char *err, size_t errlen)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < NELEM(allowed); i++)
		if (plan_one(p, arch, allowed[i].name, allowed[i].nr, NR_ALLOW,
		    NULL, err, errlen) == -1)
			return -1;
	for (i = 0; i < NELEM(special); i++)
		if (plan_one(p, arch, special[i].name, NR_NONE, NR_CHECK,
		    &special[i], err, errlen) == -1)
			return -1;
	for (i = 0; i < NELEM(refused); i++)
		if (plan_one(p, arch, refused[i].name, refused[i].nr,
		    NR_REFUSE, NULL, err, errlen) == -1)
			return -1;
	return 0;
}

/* The rules for one syscall number. */
static int
add_nr(scmp_filter_ctx ctx, const struct nr_plan *p, int nr, char *err,
    size_t errlen)
{
	char num[16];
	int rc = 0;

	switch (p->kind[nr]) {
	case NR_ENOSYS:
		rc = rule(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0, NULL);
		break;
	case NR_ALLOW:
		rc = rule(ctx, SCMP_ACT_ALLOW, nr, 0, NULL);
		break;
	case NR_CHECK:
		rc = p->check[nr]->add(ctx, nr);
		break;
	case NR_REFUSE:
		break;		/* the default action, EPERM */
	}
	if (rc < 0) {
		snprintf(num, sizeof(num), "%d", nr);
		return fail(err, errlen, "rule for", p->check[nr] != NULL ?
		    p->check[nr]->name : num, rc);
	}
	return 0;
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
	static struct nr_plan plan;
	scmp_filter_ctx ctx;
	uint32_t arch;
	int nr;

	arch = seccomp_arch_native();
	if (plan_numbers(&plan, arch, err, errlen) == -1)
		return NULL;
	/* Native architecture only: seccomp_init adds nothing else. */
	if ((ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL) {
		fail(err, errlen, "seccomp_init", NULL, -ENOMEM);
		return NULL;
	}
	if (set_attrs(ctx, err, errlen) == -1)
		goto bad;
	for (nr = 0; nr <= NR_LAST; nr++)
		if (add_nr(ctx, &plan, nr, err, errlen) == -1)
			goto bad;
	return ctx;
 bad:
	seccomp_release(ctx);
	return NULL;
}

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
 * An owner given through memory (F_SETOWN_EX, FIOSETOWN, SIOCSPGRP)
 * could change after a check: those are refused in the landlock
 * confinement (F_SETOWN itself is the broker's, brokered_calls.c).
 */
static int
refuse_owners(scmp_filter_ctx ctx)
{
	static const struct {
		int		 nr;
		unsigned long	 value;
	} args[] = {
		{ SCMP_SYS(fcntl), F_SETOWN_EX },
		{ SCMP_SYS(ioctl), FIOSETOWN },
		{ SCMP_SYS(ioctl), SIOCSPGRP },
	};
	struct scmp_arg_cmp cmp;
	size_t i;
	int rc;

	for (i = 0; i < NELEM(args); i++) {
		cmp = masked(1, 0xffffffffUL, args[i].value);
		if ((rc = rule(ctx, SCMP_ACT_ERRNO(EPERM), args[i].nr, 1,
		    &cmp)) < 0)
			return rc;
	}
	return 0;
}

/* Stop nr for the broker when the low 32 bits of arg are not 0. */
static int
notify_unless_zero(scmp_filter_ctx ctx, int nr, unsigned int arg)
{
	static const uint32_t zero[] = { 0 };

	return act_walk(ctx, SCMP_ACT_NOTIFY, nr, arg, zero, NELEM(zero), 0,
	    0);
}

/* One row of brokered_calls[] stopped for the broker, as it says. */
static int
notify_call(scmp_filter_ctx ctx, const struct brokered *c)
{
	struct scmp_arg_cmp cmp[2];
	unsigned i;
	int rc, nr;

	if ((nr = seccomp_syscall_resolve_name(c->name)) < 0)
		return c->optional ? 0 : -EINVAL;
	switch (c->stop) {
	case STOP_ALWAYS:
		return rule(ctx, SCMP_ACT_NOTIFY, nr, 0, NULL);
	case STOP_UNLESS_ZERO:
		if ((rc = notify_unless_zero(ctx, nr, c->arg[0])) < 0 ||
		    c->user < 0)
			return rc;
		cmp[0] = masked(0, ARG32, (uint32_t)c->user);
		return rule(ctx, SCMP_ACT_NOTIFY, nr, 1, cmp);
	case STOP_MATCH:
		for (i = 0; i < c->nmatch && i < NELEM(cmp); i++)
			cmp[i] = masked(c->arg[i], 0xffffffffUL, c->val[i]);
		return rule(ctx, SCMP_ACT_NOTIFY, nr, i, cmp);
	}
	return -EINVAL;
}

/*
 * The landlock confinement shares the host's IPC namespace: a SysV queue,
 * semaphore or segment of a host process (of the command's own uid, or
 * one left open to all) would be a channel around the proxy, and its
 * memory readable.  POSIX queues alike.  The namespaces confinement has
 * its own.
 */
static const char *const host_ipc[] = {
	"msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
	"semtimedop", "semctl", "shmget", "shmat", "shmdt", "shmctl",
	"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
	"mq_notify", "mq_getsetattr",
};

/*
 * Flags and attributes of a file set by ioctl on a descriptor opened to
 * read, which Landlock (for regular files) does not see: nodump, sync,
 * noatime, project ids, fs-verity, an encryption policy.  Refused in the
 * landlock confinement, where no read-only mount stands behind.  The
 * 32-bit encodings too.
 */
static const uint32_t attr_ioctls[] = {
	0x40086602,	/* FS_IOC_SETFLAGS */
	0x40046602,	/* FS_IOC32_SETFLAGS */
	0x401c5820,	/* FS_IOC_FSSETXATTR */
	0x40807685,	/* FS_IOC_ENABLE_VERITY */
	0x800c6613,	/* FS_IOC_SET_ENCRYPTION_POLICY */
	0xc0096617,	/* FS_IOC_SET_ENCRYPTION_POLICY (v2) */
	0x40087602,	/* FS_IOC_SETVERSION */
	0x40047602,	/* FS_IOC32_SETVERSION */
};

static int
broker_host(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp cmp;
	size_t i;
	int rc, nr;

	for (i = 0; i < NELEM(host_ipc); i++) {
		if ((nr = seccomp_syscall_resolve_name(host_ipc[i])) < 0)
			continue;
		if ((rc = rule(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0, NULL)) < 0)
			return rc;
	}
	for (i = 0; i < NELEM(attr_ioctls); i++) {
		cmp = masked(1, ARG32, attr_ioctls[i]);
		if ((rc = rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
		    &cmp)) < 0)
			return rc;
	}
	return 0;
}

/*
 * The connect broker's filter, the command's second: the calls the
 * broker decides stop for it (user notification), everything else is
 * left to the main filter.  A foreign ABI is killed here too.  Which
 * calls stop, in which variant, is brokered_calls.c's table: always
 * connect, bind and listen (SPEC 6.2, 6.5: nothing inbound) and the calls
 * on another process; in the landlock confinement (LL) the metadata,
 * signal and accept calls as well; where it connects fresh sockets
 * (OPTS), the socket options it must carry over; for a command that
 * keeps uid 0 (ROOT), its forks.  LL refuses the host's IPC here too.
 */
static scmp_filter_ctx
build_broker(int which, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	size_t i;
	int rc = 0;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		fail(err, errlen, "seccomp_init", NULL, -ENOMEM);
		return NULL;
	}
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS)) < 0 ||
	    (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1)) < 0)
		goto bad;
	for (i = 0; i < brokered_ncalls; i++)
		if ((which & brokered_calls[i].where) == brokered_calls[i].where &&
		    (rc = notify_call(ctx, &brokered_calls[i])) < 0)
			goto bad;
	if ((which & SECCOMP_BROKER_LL) && ((rc = refuse_owners(ctx)) < 0 ||
	    (rc = broker_host(ctx)) < 0))
		goto bad;
	return ctx;
bad:
	fail(err, errlen, "broker filter", NULL, rc);
	seccomp_release(ctx);
	return NULL;
}

/* The programs there are: the main one, and the broker's variants. */
bool
sandbox_seccomp_valid(int which)
{
	if (which == SECCOMP_MAIN || which == SECCOMP_BROKER)
		return true;
	if (which < 0 || which >= SECCOMP_PROGRAMS ||
	    !(which & SECCOMP_BROKER) || !(which & SECCOMP_BROKER_LL))
		return false;
	return true;
}

static scmp_filter_ctx
build_which(int which, char *err, size_t errlen)
{
	if (!sandbox_seccomp_valid(which)) {
		fail(err, errlen, "no such filter", NULL, -EINVAL);
		return NULL;
	}
	if (which == SECCOMP_MAIN)
		return build(err, errlen);
	return build_broker(which, err, errlen);
}

#ifndef SECCOMP_GEN_ONLY	/* the generator itself has no program yet */
/* The programs generated at build time (sandbox/seccomp-prog.c). */
extern const unsigned char *const sandbox_seccomp_progs[SECCOMP_PROGRAMS];
extern const size_t sandbox_seccomp_progs_len[SECCOMP_PROGRAMS];

int
sandbox_seccomp_program(const void **prog, size_t *len)
{
	*prog = sandbox_seccomp_progs[SECCOMP_MAIN];
	*len = sandbox_seccomp_progs_len[SECCOMP_MAIN];
	return 0;
}

int
sandbox_seccomp_generated(int which, const void **prog, size_t *len)
{
	if (!sandbox_seccomp_valid(which) || which == SECCOMP_MAIN)
		return -1;
	*prog = sandbox_seccomp_progs[which];
	*len = sandbox_seccomp_progs_len[which];
	return 0;
}

int
sandbox_seccomp_load_broker(int which, char *err, size_t errlen)
{
	struct sock_fprog fp;
	const void *prog;
	size_t len;
	int fd;

	if (sandbox_seccomp_generated(which, &prog, &len) == -1)
		return fail(err, errlen, "user notification", NULL, -EINVAL);
	fp.len = (unsigned short)(len / sizeof(struct sock_filter));
	fp.filter = (struct sock_filter *)(uintptr_t)prog;
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
