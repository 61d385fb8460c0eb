/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The main seccomp filter's calls by name (seccomp.c, SPEC 6.2): those
 * allowed whatever their arguments and those refused with EPERM.  Both
 * are matched against harn-egressd(8)'s SYSTEM CALLS by
 * tests/sandbox/test_seccomp_bpf.c.
 */
#include "sandbox/seccomp_int.h"

/* Allowed whatever their arguments. */
const struct named sc_allowed[] = {
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
	 * caller's command that keeps uid 0 is refused them,
	 * seccomp_broker.c). */
	{ "msgget", NR_NONE }, { "msgsnd", NR_NONE }, { "msgrcv", NR_NONE },
	{ "msgctl", NR_NONE }, { "semget", NR_NONE }, { "semop", NR_NONE },
	{ "semtimedop", NR_NONE }, { "semctl", NR_NONE },
	{ "shmget", NR_NONE }, { "shmat", NR_NONE }, { "shmdt", NR_NONE },
	{ "shmctl", NR_NONE }, { "mq_open", NR_NONE }, { "mq_unlink", NR_NONE },
	{ "mq_timedsend", NR_NONE }, { "mq_timedreceive", NR_NONE },
	{ "mq_notify", NR_NONE }, { "mq_getsetattr", NR_NONE },
};
const size_t sc_nallowed = NELEM(sc_allowed);

/* Refused with EPERM (SPEC 6.2), named so that the refusal says so. */
const struct named sc_refused[] = {
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
const size_t sc_nrefused = NELEM(sc_refused);
