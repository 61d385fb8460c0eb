/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dockerish: run a command the way a default Docker container runs it,
 * for the landlock confinement's tests (no Docker engine needed).
 *
 *     dockerish [--mask-proc] [--seccomp-unconfined] [--cap-drop-all] --
 *         CMD [ARG...]
 *
 *   - seccomp as moby's default profile (profiles/seccomp/default.json)
 *     has it for Docker's default capabilities on x86_64: the calls it
 *     leaves out fail with EPERM (unshare, setns, mount and the new mount
 *     API, pidfd_getfd, bpf, keyctl, ...), clone with a namespace flag
 *     fails with EPERM, clone3 with ENOSYS, socket(AF_ALG) and
 *     socket(AF_VSOCK) with EPERM, personality() but for the five values
 *     it allows with EPERM.  process_vm_readv and process_vm_writev are
 *     refused as Docker 20.10's profile refused them; ptrace is allowed
 *     (kernels >= 4.8), as it is there.
 *   - root keeps only Docker's default capabilities (CHOWN DAC_OVERRIDE
 *     FSETID FOWNER MKNOD NET_RAW SETGID SETUID SETFCAP SETPCAP
 *     NET_BIND_SERVICE SYS_CHROOT KILL AUDIT_WRITE), in every set; any
 *     other user has none (and no_new_privs, to load the filter).
 *   - --mask-proc (root only): a mount namespace where /proc's files are
 *     masked as Docker masks them (/dev/null over /proc/kcore, ...), so a
 *     new procfs cannot be mounted in a user namespace: the namespaces
 *     confinement's set-up fails part-way, as in a container with
 *     SYS_ADMIN or with seccomp unconfined.
 *   - --seccomp-unconfined: no filter (with --mask-proc: that container).
 *   - --cap-drop-all: `docker run --cap-drop ALL`: root keeps none, in
 *     any set (the bounding set too).
 *
 * The lists are written from reading moby's profile; nothing of it is
 * copied.  Exit 125 when the launcher itself fails (as docker run does).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* In none of the profile's rules for Docker's default capabilities: left
 * out of the allowlist. */
static const char *const refused[] = {
	"_sysctl", "acct", "add_key", "afs_syscall", "bpf", "clock_settime",
	"create_module", "delete_module", "fanotify_init", "finit_module",
	"fsconfig", "fsmount", "fsopen", "fspick", "get_kernel_syms",
	"get_mempolicy", "getpmsg", "init_module", "io_uring_enter",
	"io_uring_register", "io_uring_setup", "ioperm", "iopl", "kcmp",
	"kexec_file_load", "kexec_load", "keyctl", "lookup_dcookie", "mbind",
	"migrate_pages", "mount", "mount_setattr", "move_mount", "move_pages",
	"nfsservctl", "open_by_handle_at", "open_tree", "perf_event_open",
	"pidfd_getfd", "pivot_root", "process_madvise", "putpmsg",
	"query_module", "quotactl", "quotactl_fd", "reboot", "request_key",
	"security", "set_mempolicy", "set_mempolicy_home_node",
	"setdomainname", "sethostname", "setns", "settimeofday", "swapoff",
	"swapon", "sysfs", "syslog", "tuxcall", "umount2", "unshare", "uselib",
	"userfaultfd", "ustat", "vhangup", "vserver",
	/* Docker 20.10's profile, as measured in the issue. */
	"process_vm_readv", "process_vm_writev",
};

/* Docker's default capability set. */
static const int docker_caps[] = {
	CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FSETID, CAP_FOWNER, CAP_MKNOD,
	CAP_NET_RAW, CAP_SETGID, CAP_SETUID, CAP_SETFCAP, CAP_SETPCAP,
	CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT, CAP_KILL, CAP_AUDIT_WRITE,
};

/* What Docker masks in /proc (its default MaskedPaths). */
static const char *const masked_files[] = {
	"/proc/kcore", "/proc/keys", "/proc/latency_stats",
	"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug",
};
static const char *const masked_dirs[] = {
	"/proc/acpi", "/proc/scsi", "/sys/firmware",
};

#define NS_FLAGS	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | \
			 CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | \
			 CLONE_NEWNET)

static void __attribute__((noreturn))
die(const char *what, int err)
{
	fprintf(stderr, "dockerish: %s: %s\n", what, strerror(err));
	exit(125);
}

static bool
is_refused(const char *name)
{
	size_t i;

	for (i = 0; i < NELEM(refused); i++)
		if (strcmp(refused[i], name) == 0)
			return true;
	return false;
}

/*
 * As the profile is built: refuse by default, allow each call by name,
 * and a few by their arguments.
 */
static int
filter_load(void)
{
	static const char *const by_args[] = { "clone", "clone3", "socket",
	    "personality" };
	static const unsigned long personas[] = { 0x0, 0x8, 0x20000, 0x20008,
	    0xffffffffUL };
	scmp_filter_ctx ctx;
	const char *name;
	size_t i, k;
	int rc, nr;
	bool special;

	if ((ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL)
		return -ENOMEM;
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0)) < 0)
		goto out;
	for (nr = 0; nr < 1024; nr++) {
		name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		if (name == NULL)
			continue;
		for (k = 0, special = false; k < NELEM(by_args); k++)
			special = special || strcmp(by_args[k], name) == 0;
		if (!special && !is_refused(name) &&
		    (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) < 0) {
			free((void *)name);
			goto out;
		}
		free((void *)name);
	}
	/* clone without a namespace flag; clone3 says it is not there. */
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, NS_FLAGS, 0))) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
	    SCMP_SYS(clone3), 0)) < 0)
		goto out;
	/* Every socket family but AF_ALG (38) and AF_VSOCK (40). */
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
	    SCMP_A0(SCMP_CMP_LT, AF_ALG))) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
	    SCMP_A0(SCMP_CMP_EQ, AF_ALG + 1))) < 0 ||
	    (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
	    SCMP_A0(SCMP_CMP_GT, AF_VSOCK))) < 0)
		goto out;
	for (i = 0; i < NELEM(personas); i++)
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
		    SCMP_SYS(personality), 1, SCMP_A0(SCMP_CMP_EQ,
		    personas[i]))) < 0)
			goto out;
	rc = seccomp_load(ctx);
out:
	seccomp_release(ctx);
	return rc;
}

static void
mask_proc(void)
{
	size_t i;

	if (unshare(CLONE_NEWNS) == -1)
		die("unshare(CLONE_NEWNS)", errno);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		die("make / private", errno);
	for (i = 0; i < NELEM(masked_files); i++)
		if (access(masked_files[i], F_OK) == 0 &&
		    mount("/dev/null", masked_files[i], NULL, MS_BIND, NULL) ==
		    -1)
			die(masked_files[i], errno);
	for (i = 0; i < NELEM(masked_dirs); i++)
		if (access(masked_dirs[i], F_OK) == 0 &&
		    mount("tmpfs", masked_dirs[i], "tmpfs", MS_RDONLY, NULL) ==
		    -1)
			die(masked_dirs[i], errno);
}

/* Root: Docker's default capabilities (or none) in every set, the rest gone. */
static void
keep_docker_caps(bool none)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3,
	    0 };
	struct __user_cap_data_struct data[2];
	int cap;
	size_t i;
	bool keep;

	memset(data, 0, sizeof(data));
	for (cap = 0; prctl(PR_CAPBSET_READ, cap) >= 0; cap++) {
		for (i = 0, keep = false; !none && i < NELEM(docker_caps); i++)
			keep = keep || docker_caps[i] == cap;
		if (keep) {
			data[cap / 32].effective |= 1U << (cap % 32);
			continue;
		}
		if (prctl(PR_CAPBSET_DROP, cap) == -1)
			die("PR_CAPBSET_DROP", errno);
	}
	/* Docker >= 20.10.14 leaves the inheritable set empty. */
	data[0].permitted = data[0].effective;
	data[1].permitted = data[1].effective;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		die("PR_CAP_AMBIENT_CLEAR_ALL", errno);
	if (syscall(SYS_capset, &hdr, data) == -1)
		die("capset", errno);
}

int
main(int argc, char **argv)
{
	bool mask = false, unconfined = false, drop_all = false;
	int i, rc;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--mask-proc") == 0)
			mask = true;
		else if (strcmp(argv[i], "--seccomp-unconfined") == 0)
			unconfined = true;
		else if (strcmp(argv[i], "--cap-drop-all") == 0)
			drop_all = true;
		else {
			fprintf(stderr, "usage: dockerish [--mask-proc] "
			    "[--seccomp-unconfined] [--cap-drop-all] -- CMD "
			    "[ARG...]\n");
			return 125;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "dockerish: no command\n");
		return 125;
	}
	if (mask) {
		if (geteuid() != 0)
			die("--mask-proc", EPERM);
		mask_proc();
	}
	/* Without CAP_SYS_ADMIN a filter needs no_new_privs first. */
	if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		die("no_new_privs", errno);
	if (!unconfined && (rc = filter_load()) < 0)
		die("seccomp", -rc);
	if (geteuid() == 0)
		keep_docker_caps(drop_all);
	execvp(argv[i + 1], argv + i + 1);
	die(argv[i + 1], errno);
}
