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
 *     EACCES (said);
 *   - transparent (SPEC 6.6): TCP off loopback goes through the proxy, UDP
 *     and transparent off do not; in landlock, a loopback port another's
 *     listener holds goes through it, a port nobody holds stays
 *     ECONNREFUSED; the SOCKS5 request asked and the reply read exactly.
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

#include <arpa/inet.h>
#include <netinet/in.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

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

static void
v4(struct sockaddr_storage *ss, socklen_t *len, const char *a, int port)
{
	struct sockaddr_in *sin = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	assert_int_equal(inet_pton(AF_INET, a, &sin->sin_addr), 1);
	*len = sizeof(*sin);
}

/* Which connects go through the proxy. */
static void
test_transparent_decide(void **state UNUSED)
{
	struct broker_rules on = { .mode = BROKER_NS, .proxy_port = 8080,
	    .transparent = true }, off = on;
	struct sockaddr_storage ss;
	struct broker_call c = { .domain = AF_INET, .tcp = true, .addr = &ss };
	struct broker_decision d;

	off.transparent = false;
	v4(&ss, &c.addrlen, "192.0.2.7", 5432);
	broker_decide(&on, &c, &d);
	assert_int_equal(d.verdict, BROKER_TRANSPARENT);
	assert_int_equal(d.port, 5432);
	broker_decide(&off, &c, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_int_equal(d.err, ENETUNREACH);
	on.mode = off.mode = BROKER_LL;
	broker_decide(&off, &c, &d);
	assert_int_equal(d.err, EACCES);
	/* UDP (a connected datagram socket) is not carried. */
	c.tcp = false;
	broker_decide(&on, &c, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_true(d.direct);
	/* Loopback, landlock: the proxy itself, a port nobody or another holds. */
	c.tcp = true;
	v4(&ss, &c.addrlen, "127.0.0.1", 8080);
	broker_decide(&on, &c, &d);
	assert_true(d.to_proxy);
	assert_int_equal(d.verdict, BROKER_AS_IS);
	v4(&ss, &c.addrlen, "127.0.0.1", 5432);
	broker_decide(&on, &c, &d);
	assert_int_equal(d.verdict, BROKER_OWNED);
	assert_false(broker_transparent_found(&on, &c, &d, ECONNREFUSED));
	assert_false(broker_transparent_found(&on, &c, &d, 0));
	assert_false(broker_transparent_found(&off, &c, &d, EACCES));
	assert_true(broker_transparent_found(&on, &c, &d, EACCES));
	assert_int_equal(d.verdict, BROKER_TRANSPARENT);
	/* Namespaces: loopback is the command's own. */
	on.mode = BROKER_NS;
	broker_decide(&on, &c, &d);
	assert_int_equal(d.verdict, BROKER_AS_IS);
}

/*
 * UDP, which only namespaces' filter lets be made: a resolver's datagrams
 * to port 53 of any address stay in the namespace, where the run answers
 * them; any other port off loopback is refused, and nothing in landlock.
 */
static void
test_udp_decide(void **state UNUSED)
{
	struct broker_rules on = { .mode = BROKER_NS, .proxy_port = 8080,
	    .transparent = true }, off = on;
	struct sockaddr_storage ss;
	struct broker_call c = { .domain = AF_INET, .tcp = false,
	    .addr = &ss };
	struct broker_decision d;

	off.transparent = false;
	v4(&ss, &c.addrlen, "192.0.2.7", 53);
	broker_decide(&on, &c, &d);
	assert_int_equal(d.verdict, BROKER_AS_IS);
	assert_false(d.dns);
	broker_decide(&off, &c, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_int_equal(d.err, ENETUNREACH);
	v4(&ss, &c.addrlen, "192.0.2.7", 5353);
	broker_decide(&on, &c, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_int_equal(d.err, ENETUNREACH);
	assert_true(d.direct);
	v4(&ss, &c.addrlen, "127.0.0.53", 53);
	broker_decide(&on, &c, &d);
	assert_int_equal(d.verdict, BROKER_AS_IS);
	on.mode = BROKER_LL;
	v4(&ss, &c.addrlen, "192.0.2.7", 53);
	broker_decide(&on, &c, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_int_equal(d.err, EACCES);
}

/*
 * A UDP stand-in's calls (landlock): port 53 of any address, a bind to
 * the kernel's port; everything else refused, the endpoints logged, with
 * the errors the kernel gives a UDP socket for what is malformed.
 */
static void
test_udp_standin_decide(void **state UNUSED)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *sin6 = (void *)&ss;
	struct broker_decision d;
	socklen_t len;

	v4(&ss, &len, "192.0.2.7", 53);
	broker_decide_udp(AF_INET, &ss, len, false, &d);
	assert_int_equal(d.verdict, BROKER_AS_IS);
	v4(&ss, &len, "127.0.0.53", 53);
	broker_decide_udp(AF_INET6, &ss, len, false, &d);
	assert_int_equal(d.verdict, BROKER_AS_IS);	/* v4 on a v6 socket */
	v4(&ss, &len, "192.0.2.7", 5353);
	broker_decide_udp(AF_INET, &ss, len, false, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_int_equal(d.err, ENETUNREACH);
	assert_true(d.direct);
	v4(&ss, &len, "127.0.0.1", 5353);		/* another user's, maybe */
	broker_decide_udp(AF_INET, &ss, len, false, &d);
	assert_int_equal(d.err, EACCES);
	assert_true(d.direct);
	v4(&ss, &len, "192.0.2.7", 0);
	broker_decide_udp(AF_INET, &ss, len, false, &d);
	assert_int_equal(d.err, EINVAL);
	assert_false(d.direct);
	v4(&ss, &len, "192.0.2.7", 53);
	broker_decide_udp(AF_INET, &ss, len - 1, false, &d);
	assert_int_equal(d.err, EINVAL);
	broker_decide_udp(AF_INET, &ss, 1, false, &d);
	assert_int_equal(d.err, EINVAL);
	/* bind: the kernel's port only; nothing listens on UDP. */
	v4(&ss, &len, "0.0.0.0", 0);
	broker_decide_udp(AF_INET, &ss, len, true, &d);
	assert_int_equal(d.verdict, BROKER_AS_IS);
	v4(&ss, &len, "0.0.0.0", 53);
	broker_decide_udp(AF_INET, &ss, len, true, &d);
	assert_int_equal(d.err, EACCES);
	assert_true(d.direct);
	/* An IPv6 address on an IPv4 socket; other families. */
	memset(&ss, 0, sizeof(ss));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(53);
	len = sizeof(*sin6);
	broker_decide_udp(AF_INET, &ss, len, false, &d);
	assert_int_equal(d.err, EAFNOSUPPORT);
	broker_decide_udp(AF_INET6, &ss, len, false, &d);
	assert_int_equal(d.verdict, BROKER_AS_IS);
	broker_decide_udp(AF_INET6, &ss, len - 1, false, &d);
	assert_int_equal(d.err, EINVAL);
	ss.ss_family = AF_UNIX;
	broker_decide_udp(AF_INET6, &ss, len, false, &d);
	assert_int_equal(d.err, EAFNOSUPPORT);
	ss.ss_family = AF_UNSPEC;
	broker_decide_udp(AF_INET, &ss, len, false, &d);
	assert_int_equal(d.err, EAFNOSUPPORT);
}

/* The SOCKS5 request the broker sends, and the reply it reads. */
static void
test_transparent_socks(void **state UNUSED)
{
	static const uint8_t want4[] = { 5, 1, 0, 5, 1, 0, 1, 192, 0, 2, 7,
	    0x15, 0x38 };
	static const uint8_t ok[] = { 5, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };
	struct sockaddr_storage ss;
	struct sockaddr_in6 *sin6 = (void *)&ss;
	uint8_t buf[64], r[12];
	socklen_t len;
	size_t n;

	v4(&ss, &len, "192.0.2.7", 5432);
	n = tproxy_request(&ss, len, false, buf, sizeof(buf));
	assert_int_equal(n, sizeof(want4));
	assert_memory_equal(buf, want4, n);
	assert_int_equal(tproxy_request(&ss, len, false, buf, 12), 0);
	/* Held: the method X'8A' offered first, no-auth after it. */
	n = tproxy_request(&ss, len, true, buf, sizeof(buf));
	assert_int_equal(n, sizeof(want4) + 1);
	assert_memory_equal(buf, "\x05\x02\x8a\x00", 4);
	assert_memory_equal(buf + 4, want4 + 3, sizeof(want4) - 3);
	assert_int_equal(tproxy_request(&ss, len, true, buf, 13), 0);
	assert_int_equal(tproxy_reply((const uint8_t *)"\x05\x8a", 2, true), 0);
	/* X'8A' where it was not offered: not the proxy's to choose. */
	assert_int_equal(tproxy_reply((const uint8_t *)"\x05\x8a", 2, false),
	    -ECONNREFUSED);
	assert_int_equal(tproxy_request(&ss, len - 1, false, buf, sizeof(buf)), 0);
	/* IPv6, and v4-mapped asked for as IPv4. */
	memset(&ss, 0, sizeof(ss));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(443);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::1", &sin6->sin6_addr),
	    1);
	n = tproxy_request(&ss, sizeof(*sin6), false, buf, sizeof(buf));
	assert_int_equal(n, 3 + 4 + 16 + 2);
	assert_int_equal(buf[6], 4);
	assert_int_equal(inet_pton(AF_INET6, "::ffff:192.0.2.7",
	    &sin6->sin6_addr), 1);
	n = tproxy_request(&ss, sizeof(*sin6), false, buf, sizeof(buf));
	assert_int_equal(n, 3 + 4 + 4 + 2);
	assert_int_equal(buf[6], 1);
	/* The reply: read to its last byte, and no further. */
	assert_int_equal(tproxy_reply(ok, 0, false), 6);
	assert_int_equal(tproxy_reply(ok, 2, false), 4);
	assert_int_equal(tproxy_reply(ok, 6, false), 6);
	assert_int_equal(tproxy_reply(ok, 11, false), 1);
	assert_int_equal(tproxy_reply(ok, 12, false), 0);
	memcpy(r, ok, sizeof(r));
	r[3] = 2;		/* not allowed by the rules */
	assert_int_equal(tproxy_reply(r, 4, false), -ECONNREFUSED);
	r[3] = 0;
	r[1] = 0xff;		/* no acceptable method */
	assert_int_equal(tproxy_reply(r, 2, false), -ECONNREFUSED);
	r[1] = 0;
	r[5] = 9;		/* no such address type */
	assert_int_equal(tproxy_reply(r, 6, false), -ECONNREFUSED);
	r[5] = 4;
	assert_int_equal(tproxy_reply(r, 6, false), 18);
	memcpy(r, "HTTP/1.1 200", 12);	/* not SOCKS5 */
	assert_int_equal(tproxy_reply(r, 2, false), -ECONNREFUSED);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_meta_allowed),
		cmocka_unit_test(test_meta_writable),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_transparent_decide),
		cmocka_unit_test(test_transparent_socks),
		cmocka_unit_test(test_udp_decide),
		cmocka_unit_test(test_udp_standin_decide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
