/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the seccomp filter's test programs share (seccomp_harness.c):
 *
 * the probes in a child, for test_seccomp.c and test_seccomp_args.c: a
 * table of rows, each run as control and under sandbox_seccomp_load();
 *
 * the exported program in an interpreter, for test_seccomp_bpf.c,
 * test_seccomp_bpf_args.c and test_seccomp_udp.c: load_prog and
 * free_prog, a cmocka group's setup and teardown, fill prog.
 *
 * Include after <cmocka.h>.
 */
#ifndef TESTS_SANDBOX_SECCOMP_HARNESS_H
#define TESTS_SANDBOX_SECCOMP_HARNESS_H

#include <linux/filter.h>
#include <sched.h>

#include <errno.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
#define NR_LAST			511

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

/* Each row as control, then filtered; the number of rows that failed. */
int	run_table(const char *, const struct probe *, size_t);

/* Setups, before the filter: a user namespace, and a new net or mnt. */
int	setup_userns(void);
int	setup_userns_net(void);
int	setup_userns_mnt(void);

/* syscall(a[0], a[1] ... a[5]). */
long	p_raw(const struct probe *);

/* ---------------------------------------------------------------- */
/* The exported program, in an interpreter. */

#define ACT_ALLOW	SCMP_ACT_ALLOW
#define ACT_EPERM	SCMP_ACT_ERRNO(EPERM)
#define ACT_ENOSYS	SCMP_ACT_ERRNO(ENOSYS)
#define ACT_KILL	SCMP_ACT_KILL_PROCESS

extern struct sock_filter	*prog;
extern size_t			 prog_len;
extern int			 bpf_failures;

int		load_prog(void **);
int		free_prog(void **);
/* What prog returns for call nr with arguments a on arch. */
uint32_t	action(uint32_t, int, const uint64_t[6]);
/* Counts a failure in bpf_failures (and prints the first 20). */
void		bpf_check(const char *, int, const uint64_t[6], uint32_t);
uint64_t	rng(void);
/* prog and the broker's program bprog (blen instructions) together. */
uint32_t	both(const struct sock_filter *, size_t, int,
	    const uint64_t[6]);

#endif
