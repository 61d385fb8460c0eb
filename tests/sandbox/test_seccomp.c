/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_seccomp: the seccomp filter (SPEC 6.2), probed in a child
 * (seccomp_harness.c runs each row as control and filtered): the calls
 * refused whatever their arguments (the kernel's surface, the host's
 * state, mounts), the other ABIs, what must still work, a failed load,
 * and the program built at build time against libseccomp's now.
 *
 * The other programs: test_seccomp_args.c probes the calls allowed for
 * some arguments only; test_seccomp_bpf.c, test_seccomp_bpf_args.c and
 * test_seccomp_udp.c run the exported program in an interpreter.
 */
#include <sys/fanotify.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/quota.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>

#include <errno.h>
#include <fcntl.h>
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
#include "tests/sandbox/seccomp_harness.h"

#define NR_OPEN_TREE_ATTR	467
#define NR_SETXATTRAT		463

extern char **environ;

/* ---------------------------------------------------------------- */
/* Setups, before the filter. */

/* No controlling terminal (vhangup must not hang up the caller's). */
static int
setup_setsid(void)
{
	return setsid() == -1 ? -1 : 0;
}

/* ---------------------------------------------------------------- */
/* Probe functions: >= 0 on success, -1 with errno. */

/* process_vm_readv/writev (a[0]) on our own memory. */
static long
p_vm(const struct probe *p)
{
	static char from[4] = "abc", to[4];
	struct iovec lo = { to, 3 }, re = { from, 3 };

	return syscall(p->a[0], (long)getpid(), &lo, 1L, &re, 1L, 0L);
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

/* ---------------------------------------------------------------- */
/* Tests by probe. */

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
		cmocka_unit_test(test_kernel_surface),
		cmocka_unit_test(test_host_state),
		cmocka_unit_test(test_mount),
		cmocka_unit_test(test_abi),
		cmocka_unit_test(test_still_works),
		cmocka_unit_test(test_load_error),
	};

	print_message("running as uid %u\n", (unsigned)geteuid());
	return cmocka_run_group_tests_name("seccomp probes", tests, NULL,
	    NULL) != 0;
}
