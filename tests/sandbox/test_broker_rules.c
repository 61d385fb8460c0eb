/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_broker_rules: the broker's table of calls (sandbox/broker_calls.c)
 * and the decisions that are not about an address (sandbox/broker_rules.c;
 * connect's and bind's are in test_sandbox.c).
 *
 *   - the table: every name a call (an optional one excepted), one family
 *     per call, a stop that names its arguments;
 *   - broker_meta_allowed: never a set-ID mode, another owner or group,
 *     a security.* or trusted.* attribute; everything else is left to
 *     the kernel;
 *   - broker_meta_writable: under a writable root, not in a read-only
 *     root inside it;
 *   - the overrides: a TCP bind let through in the landlock confinement
 *     has the host's listeners looked at, and is refused EADDRINUSE
 *     (said) when taken; a connect found out of its root is refused
 *     EACCES (said).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>
#include <seccomp.h>

#include "sandbox/internal.h"

#define UNUSED	__attribute__((unused))

static void
test_table(void **state UNUSED)
{
	const struct brokered *c, *d;
	size_t i, k;
	int nr;

	assert_true(brokered_ncalls > 10);
	for (i = 0; i < brokered_ncalls; i++) {
		c = &brokered_calls[i];
		nr = seccomp_syscall_resolve_name(c->name);
		if (nr < 0 && !c->optional)
			fail_msg("%s: no such call", c->name);
		assert_true(c->family < BCALL_FAMILIES);
		assert_true(c->where & SECCOMP_BROKER);
		assert_true(sandbox_seccomp_valid(c->where));
		assert_true(c->nmatch <= 2);
		assert_true((c->stop == STOP_MATCH) == (c->nmatch > 0));
		for (k = 0; k < c->nmatch; k++)
			assert_true(c->arg[k] < 6);
		if (c->stop == STOP_UNLESS_ZERO)
			assert_true(c->arg[0] < 6);
		if (c->family == BCALL_META) {
			assert_true(c->flags_arg < 6);
			assert_true(c->where & SECCOMP_BROKER_LL);
		}
		/* One call, one act: the dispatcher finds it by number. */
		for (k = 0; k < i; k++) {
			d = &brokered_calls[k];
			if (strcmp(c->name, d->name) == 0 &&
			    c->family != d->family)
				fail_msg("%s in two families", c->name);
		}
	}
}

static bool
group_7(gid_t gid)
{
	return gid == 7;
}

static const struct brokered *
row(const char *name)
{
	size_t i;

	for (i = 0; i < brokered_ncalls; i++)
		if (strcmp(brokered_calls[i].name, name) == 0)
			return &brokered_calls[i];
	fail_msg("%s: no row", name);
	return NULL;
}

static void
test_meta_allowed(void **state UNUSED)
{
	static const struct {
		const char	*call;
		uint64_t	 args[6];
		int		 a;
		const char	*name;
		int		 err;
	} rows[] = {
		{ "chmod", { 0, 0644 }, 1, NULL, 0 },
		{ "chmod", { 0, 04755 }, 1, NULL, EPERM },
		{ "fchmod", { 3, 02755 }, 1, NULL, EPERM },
		{ "fchmodat", { 3, 0, 01777 }, 2, NULL, 0 },	/* sticky */
		{ "fchmodat", { 3, 0, 06000 }, 2, NULL, EPERM },
		{ "chown", { 0, 1000, 7 }, 1, NULL, 0 },
		{ "chown", { 0, (uint32_t)-1, (uint32_t)-1 }, 1, NULL, 0 },
		{ "chown", { 0, 0, (uint32_t)-1 }, 1, NULL, EPERM },
		{ "chown", { 0, 1000, 0 }, 1, NULL, EPERM },
		{ "fchownat", { 3, 0, (uint32_t)-1, 7 }, 2, NULL, 0 },
		{ "fchownat", { 3, 0, 1001, 7 }, 2, NULL, EPERM },
		{ "setxattr", { 0 }, 2, "user.x", 0 },
		{ "setxattr", { 0 }, 2, "security.capability", EPERM },
		{ "fsetxattr", { 0 }, 2, "trusted.overlay", EPERM },
		{ "removexattr", { 0 }, 1, "security.selinux", EPERM },
		{ "lremovexattr", { 0 }, 1, "user.security.x", 0 },
		{ "truncate", { 0, 0 }, 1, NULL, 0 },
		{ "utimensat", { 3, 0, 0, 0 }, 2, NULL, 0 },
	};
	size_t i;
	int err;

	for (i = 0; i < NELEM(rows); i++) {
		err = broker_meta_allowed(row(rows[i].call), rows[i].args,
		    rows[i].a, rows[i].name, 1000, group_7);
		if (err != rows[i].err)
			fail_msg("row %zu (%s): %d", i, rows[i].call, err);
	}
}

static void
test_meta_writable(void **state UNUSED)
{
	static const char *const w[] = { "/work", "/tmp/out" };
	static const char *const ro[] = { "/work", "/work/vendor", "/etc" };
	static const struct {
		const char	*real;
		bool		 ok;
	} rows[] = {
		{ "/work", true },
		{ "/work/a/b", true },
		{ "/work/vendor", false },
		{ "/work/vendor/x", false },
		{ "/work/vendored", true },	/* not under /work/vendor */
		{ "/workshop", false },
		{ "/tmp/out/f", true },
		{ "/tmp/outside", false },
		{ "/etc/passwd", false },
		{ "/", false },
	};
	size_t i;

	for (i = 0; i < NELEM(rows); i++)
		if (broker_meta_writable(w, NELEM(w), ro, NELEM(ro),
		    rows[i].real) != rows[i].ok)
			fail_msg("%s", rows[i].real);
	/* A read-only root that is the writable root itself: writable. */
	assert_true(broker_meta_writable(w, 1, ro, 1, "/work/x"));
	assert_false(broker_meta_writable(NULL, 0, ro, NELEM(ro), "/work"));
}

static void
test_overrides(void **state UNUSED)
{
	struct broker_decision d;

	memset(&d, 0, sizeof(d));
	d.verdict = BROKER_AS_IS;
	d.port = 8080;
	assert_true(broker_bind_port_check(&d, BROKER_LL, AF_INET));
	assert_true(broker_bind_port_check(&d, BROKER_LL, AF_INET6));
	/* The namespaces confinement: the host's listeners are not there. */
	assert_false(broker_bind_port_check(&d, BROKER_NS, AF_INET));
	assert_false(broker_bind_port_check(&d, BROKER_LL, AF_UNIX));
	d.port = 0;			/* a port the kernel picks: free */
	assert_false(broker_bind_port_check(&d, BROKER_LL, AF_INET));
	d.port = 8080;
	d.verdict = BROKER_REFUSE;
	assert_false(broker_bind_port_check(&d, BROKER_LL, AF_INET));
	d.verdict = BROKER_AS_IS;
	broker_refuse_taken(&d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_int_equal(d.err, EADDRINUSE);
	assert_true(d.direct);

	memset(&d, 0, sizeof(d));
	d.verdict = BROKER_BENEATH;
	assert_false(broker_refuse_found(&d, 0));
	assert_false(broker_refuse_found(&d, ECONNREFUSED));
	assert_false(d.direct);
	assert_true(broker_refuse_found(&d, EACCES));
	assert_int_equal(d.err, EACCES);
	assert_true(d.direct);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_meta_allowed),
		cmocka_unit_test(test_meta_writable),
		cmocka_unit_test(test_overrides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
