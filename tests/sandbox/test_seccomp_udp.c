/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_seccomp_udp: the exported seccomp programs' UDP variants in an
 * interpreter (seccomp_harness.c): the namespaces' allowlist that makes
 * UDP sockets (SECCOMP_MAIN_UDP, SPEC 6.6), and the landlock
 * confinement's UDP stand-ins (SECCOMP_BROKER_UDP) over it.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>

#include <errno.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "sandbox/internal.h"
#include "tests/sandbox/seccomp_harness.h"

/*
 * Namespaces' variant (SECCOMP_MAIN_UDP): the same program, but for
 * socket(), which makes UDP sockets too (SPEC 6.6), and nothing else more.
 */
static void
test_bpf_main_udp(void **state)
{
	const void *uprog;
	struct sock_filter *saved = prog;
	size_t ulen, saved_len = prog_len, i;
	uint64_t a[6] = { 0 };
	uint32_t want, got;
	int nr, sock = SCMP_SYS(socket), udp;

	(void)state;
	assert_int_equal(sandbox_seccomp_generated(SECCOMP_MAIN_UDP, &uprog,
	    &ulen), 0);
	bpf_failures = 0;
	for (i = 0; i < 400000; i++) {
		nr = i < 100000 ? sock : (int)(rng() % (NR_LAST + 1));
		a[0] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff0000003fULL);
		a[1] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000f080fULL);
		a[2] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000001ffULL);
		a[3] = rng();
		want = action(AUDIT_ARCH_X86_64, nr, a);
		udp = ((uint32_t)a[0] == AF_INET ||
		    (uint32_t)a[0] == AF_INET6) && ((uint32_t)a[1] &
		    ~(uint32_t)(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_DGRAM &&
		    ((uint32_t)a[2] == 0 || (uint32_t)a[2] == IPPROTO_UDP);
		if (nr == sock && udp)
			want = ACT_ALLOW;
		prog = (struct sock_filter *)(uintptr_t)uprog;
		prog_len = ulen / sizeof(struct sock_filter);
		got = action(AUDIT_ARCH_X86_64, nr, a);
		prog = saved;
		prog_len = saved_len;
		if (got != want && bpf_failures++ < 20)
			print_error("  udp variant: nr %d args %#llx %#llx "
			    "%#llx: action %#x, want %#x\n", nr,
			    (unsigned long long)a[0], (unsigned long long)a[1],
			    (unsigned long long)a[2], got, want);
	}
	assert_int_equal(bpf_failures, 0);
}

/*
 * The landlock confinement's UDP stand-ins: the allowlist's UDP variant
 * with the broker's SECCOMP_BROKER_UDP lets no call through that the
 * plain allowlist refuses (every UDP socket() stops for the broker, which
 * never lets one go on); sendto() and recvfrom() stop exactly when their
 * address pointer is not NULL, all 64 bits of it; IP's, IPv6's and UDP's
 * setsockopt() stop.  Without SECCOMP_BROKER_UDP none of them stops.
 */
static void
test_bpf_udp_standin(void **state)
{
	const int bw = SECCOMP_BROKER | SECCOMP_BROKER_LL | SECCOMP_BROKER_UDP;
	const void *uprog, *bprog, *lprog;
	struct sock_filter *saved = prog;
	size_t ulen, blen, llen, saved_len = prog_len, i;
	uint64_t a[6] = { 0 };
	uint32_t plain, got, lone;
	int nr, pick;
	static const int nrs[] = { SCMP_SYS(socket), SCMP_SYS(sendto),
	    SCMP_SYS(recvfrom), SCMP_SYS(setsockopt) };

	(void)state;
	assert_true(sandbox_seccomp_valid(bw));
	assert_true(sandbox_seccomp_valid(bw | SECCOMP_BROKER_OPTS));
	assert_int_equal(sandbox_seccomp_generated(SECCOMP_MAIN_UDP, &uprog,
	    &ulen), 0);
	assert_int_equal(sandbox_seccomp_generated(bw, &bprog, &blen), 0);
	assert_int_equal(sandbox_seccomp_generated(SECCOMP_BROKER |
	    SECCOMP_BROKER_LL, &lprog, &llen), 0);
	bpf_failures = 0;
	for (i = 0; i < 400000; i++) {
		pick = (int)(rng() % 5);
		nr = pick < 4 ? nrs[pick] : (int)(rng() % (NR_LAST + 1));
		a[0] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff0000003fULL);
		a[1] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000f080fULL);
		a[2] = rng() & (rng() & 1 ? ~0ULL : 0xffffffff000001ffULL);
		a[3] = rng();
		a[4] = rng() % 4 == 0 ? 0 : rng() % 2 ? rng() << 32 : rng();
		plain = action(AUDIT_ARCH_X86_64, nr, a);
		prog = (struct sock_filter *)(uintptr_t)uprog;
		prog_len = ulen / sizeof(struct sock_filter);
		got = both(bprog, blen / sizeof(struct sock_filter), nr, a);
		prog = saved;
		prog_len = saved_len;
		if ((got & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ALLOW &&
		    (plain & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ALLOW &&
		    bpf_failures++ < 20)
			print_error("  nr %d args %#llx %#llx %#llx: allowed "
			    "with stand-ins, refused without\n", nr,
			    (unsigned long long)a[0], (unsigned long long)a[1],
			    (unsigned long long)a[2]);
		lone = both(lprog, llen / sizeof(struct sock_filter), nr, a);
		if ((nr == SCMP_SYS(sendto) || nr == SCMP_SYS(recvfrom)) &&
		    (plain & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ALLOW &&
		    ((got & SECCOMP_RET_ACTION_FULL) ==
		    SECCOMP_RET_USER_NOTIF) != (a[4] != 0) &&
		    bpf_failures++ < 20)
			print_error("  nr %d address %#llx: stopped %d\n", nr,
			    (unsigned long long)a[4], (got &
			    SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF);
		if ((nr == SCMP_SYS(sendto) || nr == SCMP_SYS(recvfrom) ||
		    nr == SCMP_SYS(socket)) && (lone &
		    SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF &&
		    bpf_failures++ < 20)
			print_error("  nr %d stops without stand-ins\n", nr);
	}
	/* Each UDP socket() the UDP allowlist allows stops for the broker. */
	a[0] = AF_INET6;
	a[1] = SOCK_DGRAM | SOCK_NONBLOCK;
	a[2] = IPPROTO_UDP;
	prog = (struct sock_filter *)(uintptr_t)uprog;
	prog_len = ulen / sizeof(struct sock_filter);
	got = both(bprog, blen / sizeof(struct sock_filter), SCMP_SYS(socket),
	    a);
	a[0] = 3;
	a[1] = IPPROTO_IP;
	a[2] = IP_RECVERR;
	lone = both(bprog, blen / sizeof(struct sock_filter),
	    SCMP_SYS(setsockopt), a);
	prog = saved;
	prog_len = saved_len;
	assert_int_equal(got & SECCOMP_RET_ACTION_FULL, SECCOMP_RET_USER_NOTIF);
	assert_int_equal(lone & SECCOMP_RET_ACTION_FULL,
	    SECCOMP_RET_USER_NOTIF);
	assert_int_equal(bpf_failures, 0);
}

int
main(void)
{
	const struct CMUnitTest bpf_tests[] = {
		cmocka_unit_test(test_bpf_main_udp),
		cmocka_unit_test(test_bpf_udp_standin),
	};

	return cmocka_run_group_tests_name("seccomp bpf", bpf_tests,
	    load_prog, free_prog) != 0;
}
