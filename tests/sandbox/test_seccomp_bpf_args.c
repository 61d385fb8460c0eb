/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_seccomp_bpf_args: the exported seccomp program (SPEC 6.2) in an
 * interpreter (seccomp_harness.c), over whole ranges of arguments, upper
 * 32 bits included, for the calls allowed for some arguments only:
 * socket() and socketpair(), ioctl(), clone() and the sends' flags,
 * setsockopt() and personality(), the calls that take a mode, and the
 * broker's getsockopt(SO_ERROR).
 */
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <linux/filter.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sandbox/internal.h"
#include "tests/sandbox/seccomp_harness.h"

/* Upper halves to try on every int argument. */
static const uint64_t garbage[] = {
	0, 1ULL << 32, 0xffffffff00000000ULL, 0x8000000000000000ULL,
	0x1234567800000000ULL
};

/* SPEC 6.2, written out again. */
static bool
spec_socket(uint32_t d, uint32_t t, uint32_t p)
{
	uint32_t type = t & ~(uint32_t)(SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (d == AF_UNIX)
		return type == SOCK_STREAM || type == SOCK_SEQPACKET;
	if (d == AF_INET || d == AF_INET6)
		return type == SOCK_STREAM && (p == 0 || p == IPPROTO_TCP);
	return d == AF_NETLINK && p == NETLINK_ROUTE;
}

static void
test_bpf_socket(void **state)
{
	static const uint32_t types[] = {
		0, SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_RDM,
		SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET, 11, 15
	};
	static const uint32_t flags[] = {
		0, SOCK_NONBLOCK, SOCK_CLOEXEC, SOCK_NONBLOCK | SOCK_CLOEXEC,
		0x100, 0x80000000
	};
	static const uint32_t protos[] = {
		0, 1, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_SCTP, 255, 256,
		IPPROTO_MPTCP, 0x10006, 0xffffffff, NETLINK_AUDIT
	};
	uint64_t a[6] = { 0 };
	uint32_t d, t, f, p, g;
	int nr = SCMP_SYS(socket), nrp = SCMP_SYS(socketpair);
	size_t i;

	bpf_failures = 0;
	for (d = 0; d < 64; d++)
		for (t = 0; t < NELEM(types); t++)
			for (f = 0; f < NELEM(flags); f++)
				for (p = 0; p < NELEM(protos); p++)
					for (g = 0; g < NELEM(garbage); g++) {
		a[0] = garbage[g] | d;
		a[1] = garbage[(g + 1) % NELEM(garbage)] |
		    types[t] | flags[f];
		a[2] = garbage[(g + 2) % NELEM(garbage)] | protos[p];
		bpf_check("socket", nr, a, spec_socket(d, types[t] | flags[f],
		    protos[p]) ? ACT_ALLOW : ACT_EPERM);
		bpf_check("socketpair", nrp, a, d == AF_UNIX &&
		    spec_socket(d, types[t] | flags[f], 0) ? ACT_ALLOW :
		    ACT_EPERM);
					}
	for (i = 0; i < 200000; i++) {
		a[0] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff0000003fULL);
		a[1] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000f080fULL);
		a[2] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000001ffULL);
		bpf_check("socket", nr, a, spec_socket((uint32_t)a[0],
		    (uint32_t)a[1], (uint32_t)a[2]) ? ACT_ALLOW : ACT_EPERM);
	}
	assert_int_equal(bpf_failures, 0);
}

static void
test_bpf_ioctl(void **state)
{
	uint64_t a[6] = { 0 };
	uint32_t cmd, low;
	int nr = SCMP_SYS(ioctl);
	size_t g, i;

	bpf_failures = 0;
	for (cmd = 0; cmd < 0x20000; cmd++)
		for (g = 0; g < NELEM(garbage); g++) {
			a[0] = garbage[g] | 3;
			a[1] = garbage[g] | cmd;
			bpf_check("ioctl", nr, a, cmd == TIOCSTI ||
			    cmd == TIOCLINUX ? ACT_EPERM : ACT_ALLOW);
		}
	for (i = 0; i < 1000000; i++) {
		a[1] = rng();
		if (i % 4 == 0)	/* near the refused commands */
			a[1] = (a[1] & ~0xffffffffULL) |
			    ((TIOCSTI ^ (1U << (i / 4 % 32))));
		low = (uint32_t)a[1];
		bpf_check("ioctl", nr, a, low == TIOCSTI ||
		    low == TIOCLINUX ? ACT_EPERM : ACT_ALLOW);
	}
	assert_int_equal(bpf_failures, 0);
}

static void
test_bpf_clone_send(void **state)
{
	uint64_t a[6] = { 0 };
	uint64_t v;
	int clone = SCMP_SYS(clone), sendto = SCMP_SYS(sendto);
	int sendmsg = SCMP_SYS(sendmsg), sendmmsg = SCMP_SYS(sendmmsg);
	size_t i;
	int b;

	bpf_failures = 0;
	for (i = 0; i < 300000; i++) {
		v = i < 64 ? 1ULL << i : rng() & rng();
		a[0] = v;
		bpf_check("clone", clone, a, ((uint32_t)v & CLONE_NS) != 0 ?
		    ACT_EPERM : ACT_ALLOW);
		a[0] = 0;
		a[2] = a[3] = v;
		b = ((uint32_t)v & MSG_FASTOPEN) != 0;
		bpf_check("sendto", sendto, a, b ? ACT_EPERM : ACT_ALLOW);
		bpf_check("sendmsg", sendmsg, a, b ? ACT_EPERM : ACT_ALLOW);
		bpf_check("sendmmsg", sendmmsg, a, b ? ACT_EPERM : ACT_ALLOW);
		a[2] = a[3] = 0;
	}
	a[0] = 0;
	a[1] = 0;
	a[2] = MSG_FASTOPEN;
	a[3] = 0;	/* sendto's flags are a3, sendmsg's a2 */
	bpf_check("sendto flags in a2", sendto, a, ACT_ALLOW);
	bpf_check("sendmsg", sendmsg, a, ACT_EPERM);
	assert_int_equal(bpf_failures, 0);
}

static void
test_bpf_modes(void **state)
{
	static const struct {
		const char	*name;
		int		 nr;
		int		 mode;	/* the mode's argument */
		int		 flags;	/* the open flags', or -1 */
	} calls[] = {
		{ "chmod", SCMP_SYS(chmod), 1, -1 },
		{ "fchmod", SCMP_SYS(fchmod), 1, -1 },
		{ "creat", SCMP_SYS(creat), 1, -1 },
		{ "mknod", SCMP_SYS(mknod), 1, -1 },
		{ "fchmodat", SCMP_SYS(fchmodat), 2, -1 },
		{ "mknodat", SCMP_SYS(mknodat), 2, -1 },
		{ "fchmodat2", 452, 2, -1 },
		{ "mkdir", SCMP_SYS(mkdir), 1, -1 },
		{ "mkdirat", SCMP_SYS(mkdirat), 2, -1 },
		{ "open", SCMP_SYS(open), 2, 1 },
		{ "openat", SCMP_SYS(openat), 3, 2 },
	};
	uint64_t a[6], m, fl;
	size_t c, i;
	bool makes, setid;

	bpf_failures = 0;
	for (c = 0; c < NELEM(calls); c++) {
		for (i = 0; i < 100000; i++) {
			memset(a, 0, sizeof(a));
			m = i < 4096 ? i : rng();
			fl = rng() & (rng() | 0xffffffff00000000ULL);
			a[calls[c].mode] = m;
			if (calls[c].flags >= 0)
				a[calls[c].flags] = fl;
			setid = ((uint32_t)m & (S_ISUID | S_ISGID)) != 0;
			makes = calls[c].flags < 0 ||
			    ((uint32_t)fl & (O_CREAT | __O_TMPFILE)) != 0;
			bpf_check(calls[c].name, calls[c].nr, a,
			    makes && setid ? ACT_EPERM : ACT_ALLOW);
		}
	}
	memset(a, 0, sizeof(a));
	bpf_check("openat2", SCMP_SYS(openat2), a, ACT_ENOSYS);
	assert_int_equal(bpf_failures, 0);
}

static void
test_bpf_setsockopt_personality(void **state)
{
	static const uint32_t persona_ok[] = {
		PER_LINUX, PER_LINUX32, UNAME26, PER_LINUX32 | UNAME26,
		0xffffffff
	};
	uint64_t a[6] = { 0 };
	uint32_t lvl, opt, low;
	int nr = SCMP_SYS(setsockopt), pers = SCMP_SYS(personality);
	size_t i, k;
	bool ok;

	bpf_failures = 0;
	for (lvl = 0; lvl < 300; lvl++)
		for (opt = 0; opt < 64; opt++)
			for (i = 0; i < NELEM(garbage); i++) {
				a[1] = garbage[i] | lvl;
				a[2] = garbage[(i + 1) % NELEM(garbage)] | opt;
				bpf_check("setsockopt", nr, a,
				    lvl == IPPROTO_TCP &&
				    opt == TCP_FASTOPEN_CONNECT ? ACT_EPERM :
				    ACT_ALLOW);
			}
	for (i = 0; i < 200000; i++) {
		a[1] = rng();
		a[2] = rng();
		bpf_check("setsockopt", nr, a, ACT_ALLOW);
		a[0] = i < 64 ? 1ULL << i : (rng() & 0xffffffff003f00ffULL);
		low = (uint32_t)a[0];
		for (ok = false, k = 0; k < NELEM(persona_ok); k++)
			ok |= low == persona_ok[k];
		bpf_check("personality", pers, a, ok ? ACT_ALLOW : ACT_EPERM);
	}
	for (k = 0; k < NELEM(persona_ok); k++)
		for (i = 0; i < NELEM(garbage); i++) {
			a[0] = garbage[i] | persona_ok[k];
			bpf_check("personality", pers, a, ACT_ALLOW);
		}
	assert_int_equal(bpf_failures, 0);
}

/*
 * getsockopt() stops for the broker (broker_hold.c) for SO_ERROR of
 * SOL_SOCKET only, whatever the upper halves (the kernel reads ints),
 * in every variant of the broker's filter; it is allowed otherwise.
 */
static void
test_bpf_so_error(void **state)
{
	uint64_t a[6] = { 3 };
	const void *bprog;
	uint32_t lvl, opt, got;
	int nr = SCMP_SYS(getsockopt), which;
	size_t blen, i;
	bool want;

	bpf_failures = 0;
	for (which = 1; which < SECCOMP_PROGRAMS; which++) {
		if (!sandbox_seccomp_valid(which) || (which &
		    SECCOMP_BROKER_UDP))
			continue;
		assert_int_equal(sandbox_seccomp_generated(which, &bprog,
		    &blen), 0);
		for (lvl = 0; lvl < 300; lvl++)
			for (opt = 0; opt < 64; opt++)
				for (i = 0; i < NELEM(garbage); i++) {
					a[1] = garbage[i] | lvl;
					a[2] = garbage[(i + 2) % NELEM(garbage)] |
					    opt;
					got = both(bprog, blen /
					    sizeof(struct sock_filter), nr, a) &
					    SECCOMP_RET_ACTION_FULL;
					want = lvl == SOL_SOCKET &&
					    opt == SO_ERROR;
					if (got != (want ? SECCOMP_RET_USER_NOTIF :
					    SECCOMP_RET_ALLOW) &&
					    bpf_failures++ < 20)
						print_error("  filter %d: level "
						    "%#llx name %#llx: %#x\n",
						    which, (unsigned long long)
						    a[1], (unsigned long long)
						    a[2], got);
				}
	}
	assert_int_equal(bpf_failures, 0);
}

int
main(void)
{
	const struct CMUnitTest bpf_tests[] = {
		cmocka_unit_test(test_bpf_socket),
		cmocka_unit_test(test_bpf_ioctl),
		cmocka_unit_test(test_bpf_clone_send),
		cmocka_unit_test(test_bpf_setsockopt_personality),
		cmocka_unit_test(test_bpf_modes),
		cmocka_unit_test(test_bpf_so_error),
	};

	return cmocka_run_group_tests_name("seccomp bpf", bpf_tests,
	    load_prog, free_prog) != 0;
}
