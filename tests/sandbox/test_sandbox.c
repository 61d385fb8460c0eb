/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sandbox: the sandbox's pure decisions, as tables.
 *
 *   - broker_decide: which connect() goes through, on the broker's copy
 *     of the address and the socket's own family;
 *   - sandbox_plan: which confinement a profile gets from what the host
 *     can do, and when it must refuse;
 *   - sandbox_may_write: which output paths the command could reach;
 *   - sandbox_open_out_of_reach: links followed only out of its reach.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/resource.h>
#include <linux/netlink.h>
#include <linux/if_packet.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox/internal.h"

#define UNUSED	__attribute__((unused))

/* ---------------------------------------------------------------- */
/* broker_decide */

static const char *const roots[] = {
	"/tmp", "/run", "/home/u/proj", "/home/u/proj/sub", "/srv/sock",
};

#define ABSTRACT	"\001"	/* the path is an abstract name */
#define UNNAMED		"\002"	/* no path at all (autobind) */

struct broker_row {
	const char	*name;
	int		 domain;	/* the socket's, from the object */
	int		 family;	/* what the caller's address says */
	const char	*path;		/* sun_path; ABSTRACT or UNNAMED */
	int		 extra;		/* addrlen beyond the path (+1: NUL) */
	const char	*cwd;
	enum broker_verdict want;
	int		 err;
	int		 root;		/* index in roots[], or -1 */
	const char	*rest;
};

static const struct broker_row broker_rows[] = {
	/* Not a unix socket: the network namespace confines it. */
	{ "tcp", AF_INET, AF_INET, NULL, 0, NULL, BROKER_AS_IS, 0, -1, NULL },
	{ "tcp6", AF_INET6, AF_INET6, NULL, 0, NULL, BROKER_AS_IS, 0, -1,
	    NULL },
	{ "netlink", AF_NETLINK, AF_NETLINK, NULL, 0, NULL, BROKER_AS_IS, 0,
	    -1, NULL },
	/* An inet socket given a unix address: the kernel refuses it. */
	{ "inet socket, unix address", AF_INET, AF_UNIX, "/etc/x.sock", 1,
	    NULL, BROKER_AS_IS, 0, -1, NULL },
	/* A unix socket given an inet address: the kernel refuses it. */
	{ "unix socket, inet address", AF_UNIX, AF_INET, NULL, 0, NULL,
	    BROKER_AS_IS, 0, -1, NULL },
	/* Abstract names live in the command's own network namespace. */
	{ "abstract", AF_UNIX, AF_UNIX, ABSTRACT, 0, NULL, BROKER_AS_IS, 0,
	    -1, NULL },
	{ "unnamed", AF_UNIX, AF_UNIX, UNNAMED, 0, NULL, BROKER_AS_IS, 0, -1,
	    NULL },
	/* Pathnames: under a root, resolved beneath it. */
	{ "in a private dir", AF_UNIX, AF_UNIX, "/tmp/a.sock", 1, NULL,
	    BROKER_BENEATH, 0, 0, "a.sock" },
	{ "in the workspace", AF_UNIX, AF_UNIX, "/home/u/proj/s", 1, NULL,
	    BROKER_BENEATH, 0, 2, "s" },
	{ "the longest root wins", AF_UNIX, AF_UNIX, "/home/u/proj/sub/d/s", 1,
	    NULL, BROKER_BENEATH, 0, 3, "d/s" },
	{ "a socket root", AF_UNIX, AF_UNIX, "/srv/sock/pg.5432", 1, NULL,
	    BROKER_BENEATH, 0, 4, "pg.5432" },
	{ "the root itself", AF_UNIX, AF_UNIX, "/srv/sock", 1, NULL,
	    BROKER_BENEATH, 0, 4, "." },
	{ "// and /./ are tidied", AF_UNIX, AF_UNIX, "//tmp/./x//y.sock", 1,
	    NULL, BROKER_BENEATH, 0, 0, "x/y.sock" },
	{ ".. is left to the resolution", AF_UNIX, AF_UNIX,
	    "/tmp/../etc/x.sock", 1, NULL, BROKER_BENEATH, 0, 0,
	    "../etc/x.sock" },
	{ "not NUL-terminated (addrlen ends it)", AF_UNIX, AF_UNIX,
	    "/tmp/n.sock", 0, NULL, BROKER_BENEATH, 0, 0, "n.sock" },
	/* Outside every root: refused. */
	{ "/var/lib", AF_UNIX, AF_UNIX, "/var/lib/docker.sock", 1, NULL,
	    BROKER_REFUSE, EACCES, -1, NULL },
	{ "$HOME", AF_UNIX, AF_UNIX, "/home/u/.cache/app.sock", 1, NULL,
	    BROKER_REFUSE, EACCES, -1, NULL },
	{ "a prefix that is not a directory", AF_UNIX, AF_UNIX,
	    "/tmpx/a.sock", 1, NULL, BROKER_REFUSE, EACCES, -1, NULL },
	{ "/home/u/projx is not /home/u/proj", AF_UNIX, AF_UNIX,
	    "/home/u/projx/s", 1, NULL, BROKER_REFUSE, EACCES, -1, NULL },
	{ "/proc/self/root", AF_UNIX, AF_UNIX, "/proc/self/root/tmp/a.sock", 1,
	    NULL, BROKER_REFUSE, EACCES, -1, NULL },
	{ "/proc/self/fd/3", AF_UNIX, AF_UNIX, "/proc/self/fd/3", 1, NULL,
	    BROKER_REFUSE, EACCES, -1, NULL },
	/* Relative to the caller's working directory. */
	{ "relative, cwd in the workspace", AF_UNIX, AF_UNIX, "s.sock", 1,
	    "/home/u/proj", BROKER_BENEATH, 0, 2, "s.sock" },
	{ "relative, cwd elsewhere", AF_UNIX, AF_UNIX, "s.sock", 1, "/etc",
	    BROKER_REFUSE, EACCES, -1, NULL },
	{ "relative, cwd unknown", AF_UNIX, AF_UNIX, "s.sock", 1, NULL,
	    BROKER_REFUSE, EACCES, -1, NULL },
	{ "relative, cwd /", AF_UNIX, AF_UNIX, "tmp/s", 1, "/",
	    BROKER_BENEATH, 0, 0, "s" },
};

static void
fill(const struct broker_row *r, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_un *sun = (void *)ss;
	struct sockaddr_in *sin = (void *)ss;
	size_t off = offsetof(struct sockaddr_un, sun_path), n;

	memset(ss, 0, sizeof(*ss));
	if (r->family != AF_UNIX) {
		sin->sin_family = (sa_family_t)r->family;
		sin->sin_port = htons(443);
		*len = sizeof(*sin);
		return;
	}
	sun->sun_family = AF_UNIX;
	if (r->path == NULL || strcmp(r->path, UNNAMED) == 0) {
		*len = (socklen_t)off;
		return;
	}
	if (strcmp(r->path, ABSTRACT) == 0) {
		memcpy(sun->sun_path + 1, "name", 4);
		*len = (socklen_t)(off + 5);
		return;
	}
	n = strlen(r->path);
	memcpy(sun->sun_path, r->path, n);
	*len = (socklen_t)(off + n + (size_t)r->extra);
}

static int
decide_rows(enum broker_mode mode)
{
	struct broker_rules rules = { .mode = mode, .roots = roots,
	    .nroots = NELEM(roots), .proxy_port = 8080 };
	struct sockaddr_storage ss;
	struct broker_decision d;
	struct broker_call c;
	enum broker_verdict want;
	size_t i;
	int failed = 0, err;

	for (i = 0; i < NELEM(broker_rows); i++) {
		const struct broker_row *r = &broker_rows[i];

		/* landlock: TCP has its own table; abstract names are out. */
		if (mode == BROKER_LL && (r->domain == AF_INET ||
		    r->domain == AF_INET6))
			continue;
		want = r->want;
		err = r->err;
		if (mode == BROKER_LL && r->path != NULL &&
		    strcmp(r->path, ABSTRACT) == 0) {
			want = BROKER_REFUSE;
			err = EACCES;
		}
		fill(r, &ss, &c.addrlen);
		c.domain = r->domain;
		c.addr = &ss;
		c.cwd = r->cwd;
		broker_decide(&rules, &c, &d);
		if (d.verdict != want ||
		    (want == BROKER_REFUSE && d.err != err) ||
		    (want == BROKER_BENEATH &&
		    ((int)d.root != r->root || strcmp(d.rest, r->rest) != 0))) {
			print_error("  %s: verdict %d err %d root %zu rest "
			    "'%s', want %d %d %d '%s'\n", r->name, d.verdict,
			    d.err, d.root, d.rest, want, err, r->root,
			    r->rest ? r->rest : "");
			failed++;
		} else
			print_message("  [ok] %s%s\n", mode == BROKER_LL ?
			    "landlock: " : "", r->name);
	}
	return failed;
}

static void
test_broker_decide(void **state UNUSED)
{
	assert_int_equal(decide_rows(BROKER_NS), 0);
	assert_int_equal(decide_rows(BROKER_LL), 0);
}

/* The landlock confinement's TCP: the proxy, a listener of CMD's, or not. */
struct tcp_row {
	const char		*name;
	int			 domain;
	const char		*addr;		/* NULL: AF_UNSPEC */
	unsigned short		 port;
	int			 short_by;	/* addrlen this much too short */
	enum broker_verdict	 want;
	int			 err;
};

static const struct tcp_row tcp_rows[] = {
	{ "the proxy", AF_INET, "127.0.0.1", 8080, 0, BROKER_AS_IS, 0 },
	{ "the proxy, mapped", AF_INET6, "::ffff:127.0.0.1", 8080, 0,
	    BROKER_AS_IS, 0 },
	{ "another loopback port", AF_INET, "127.0.0.1", 5432, 0,
	    BROKER_OWNED, 0 },
	{ "the proxy's port on 127.0.0.2", AF_INET, "127.0.0.2", 8080, 0,
	    BROKER_OWNED, 0 },
	{ "0.0.0.0 is this host", AF_INET, "0.0.0.0", 8080, 0,
	    BROKER_OWNED, 0 },
	{ "::1", AF_INET6, "::1", 8080, 0, BROKER_OWNED, 0 },
	{ ":: is this host", AF_INET6, "::", 22, 0, BROKER_OWNED, 0 },
	{ "mapped 127.1.2.3", AF_INET6, "::ffff:127.1.2.3", 22, 0,
	    BROKER_OWNED, 0 },
	{ "another host", AF_INET, "10.1.2.3", 8080, 0, BROKER_REFUSE,
	    EACCES },
	{ "another host, v6", AF_INET6, "2001:db8::1", 443, 0, BROKER_REFUSE,
	    EACCES },
	{ "another host, mapped", AF_INET6, "::ffff:10.1.2.3", 443, 0,
	    BROKER_REFUSE, EACCES },
	{ "a link-local v6 host", AF_INET6, "fe80::1", 443, 0, BROKER_REFUSE,
	    EACCES },
	{ "AF_UNSPEC dissolves", AF_INET, NULL, 0, 0, BROKER_AS_IS, 0 },
	{ "too short: the kernel's EINVAL", AF_INET, "10.1.2.3", 443, 1,
	    BROKER_AS_IS, 0 },
	{ "an inet6 address on an inet socket", AF_INET, "2001:db8::1", 443, 0,
	    BROKER_REFUSE, EACCES },
};

static void
test_broker_tcp(void **state UNUSED)
{
	struct broker_rules rules = { .mode = BROKER_LL, .roots = roots,
	    .nroots = NELEM(roots), .proxy_port = 8080 };
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (void *)&ss;
	struct sockaddr_in6 *sin6 = (void *)&ss;
	struct broker_decision d;
	struct broker_call c;
	size_t i;
	int failed = 0;

	for (i = 0; i < NELEM(tcp_rows); i++) {
		const struct tcp_row *r = &tcp_rows[i];

		memset(&ss, 0, sizeof(ss));
		c.addrlen = sizeof(sa_family_t);
		if (r->addr != NULL && strchr(r->addr, ':') == NULL) {
			sin->sin_family = AF_INET;
			sin->sin_port = htons(r->port);
			assert_int_equal(inet_pton(AF_INET, r->addr,
			    &sin->sin_addr), 1);
			c.addrlen = sizeof(*sin);
		} else if (r->addr != NULL) {
			sin6->sin6_family = AF_INET6;
			sin6->sin6_port = htons(r->port);
			assert_int_equal(inet_pton(AF_INET6, r->addr,
			    &sin6->sin6_addr), 1);
			c.addrlen = sizeof(*sin6);
		}
		c.addrlen -= (socklen_t)r->short_by;
		c.domain = r->domain;
		c.addr = &ss;
		c.cwd = NULL;
		broker_decide(&rules, &c, &d);
		if (d.verdict != r->want ||
		    (r->want == BROKER_REFUSE && d.err != r->err) ||
		    (r->want == BROKER_OWNED && d.port != r->port)) {
			print_error("  %s: verdict %d err %d port %u, want %d "
			    "%d\n", r->name, d.verdict, d.err, d.port, r->want,
			    r->err);
			failed++;
		} else
			print_message("  [ok] %s\n", r->name);
	}
	assert_int_equal(failed, 0);
}

/*
 * Which connects are to the proxy (the broker says who makes them, for
 * the decision log's pid and exe): 127.0.0.1 at its port, in both
 * confinements; nothing else.
 */
static const struct proxy_row {
	const char	*addr;
	unsigned short	 port;
	bool		 want;
} proxy_rows[] = {
	{ "127.0.0.1", 8080, true },
	{ "::ffff:127.0.0.1", 8080, true },
	{ "127.0.0.1", 8081, false },
	{ "127.0.0.2", 8080, false },
	{ "::1", 8080, false },
	{ "0.0.0.0", 8080, false },
	{ "10.1.2.3", 8080, false },
};

static void
test_broker_to_proxy(void **state UNUSED)
{
	struct broker_rules rules = { .roots = roots, .nroots = NELEM(roots),
	    .proxy_port = 8080 };
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (void *)&ss;
	struct sockaddr_in6 *sin6 = (void *)&ss;
	struct broker_decision d;
	struct broker_call c = { .addr = &ss };
	size_t i, m;
	int failed = 0;

	for (m = 0; m < 2; m++) {
		rules.mode = m == 0 ? BROKER_NS : BROKER_LL;
		for (i = 0; i < NELEM(proxy_rows); i++) {
			const struct proxy_row *r = &proxy_rows[i];

			memset(&ss, 0, sizeof(ss));
			if (strchr(r->addr, ':') == NULL) {
				sin->sin_family = AF_INET;
				sin->sin_port = htons(r->port);
				assert_int_equal(inet_pton(AF_INET, r->addr,
				    &sin->sin_addr), 1);
				c.addrlen = sizeof(*sin);
			} else {
				sin6->sin6_family = AF_INET6;
				sin6->sin6_port = htons(r->port);
				assert_int_equal(inet_pton(AF_INET6, r->addr,
				    &sin6->sin6_addr), 1);
				c.addrlen = sizeof(*sin6);
			}
			c.domain = ss.ss_family;
			broker_decide(&rules, &c, &d);
			if (d.to_proxy != r->want || (r->want &&
			    d.verdict != BROKER_AS_IS)) {
				print_error("  %s %s:%u: to_proxy %d verdict "
				    "%d\n", m == 0 ? "ns" : "ll", r->addr,
				    r->port, d.to_proxy, d.verdict);
				failed++;
			}
		}
	}
	/* No proxy port (a trial's, an unconfined run's): never. */
	rules.proxy_port = 0;
	sin->sin_family = AF_INET;
	sin->sin_port = 0;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c.addrlen = sizeof(*sin);
	c.domain = AF_INET;
	broker_decide(&rules, &c, &d);
	assert_false(d.to_proxy);
	assert_int_equal(failed, 0);
}

/*
 * The owners of connections, by inode: each taken once, a newer word on
 * an inode wins, the oldest forgotten when the table is full.
 */
static void
test_owner_table(void **state UNUSED)
{
	static struct owner_table t;
	enum sandbox_via tr;
	char exe[256];
	pid_t pid;
	unsigned long i;

	owner_table_init(&t);
	assert_false(owner_take(&t, 7, &pid, exe, sizeof(exe), &tr));
	owner_add(&t, 7, 100, "/usr/bin/curl", SANDBOX_VIA_CLIENT);
	owner_add(&t, 8, 101, "/usr/bin/python3", SANDBOX_VIA_TRANSPARENT);
	owner_add(&t, 0, 102, "/ignored", SANDBOX_VIA_CLIENT);
	assert_true(owner_take(&t, 8, &pid, exe, sizeof(exe), &tr));
	assert_int_equal(tr, SANDBOX_VIA_TRANSPARENT);
	assert_int_equal(pid, 101);
	assert_string_equal(exe, "/usr/bin/python3");
	assert_false(owner_take(&t, 8, &pid, exe, sizeof(exe), &tr));
	assert_false(owner_take(&t, 0, &pid, exe, sizeof(exe), &tr));
	owner_add(&t, 7, 200, "/usr/bin/git", SANDBOX_VIA_CLIENT);
	assert_true(owner_take(&t, 7, &pid, exe, sizeof(exe), &tr));
	assert_int_equal(tr, SANDBOX_VIA_CLIENT);
	assert_int_equal(pid, 200);
	assert_string_equal(exe, "/usr/bin/git");
	assert_false(owner_take(&t, 7, &pid, exe, sizeof(exe), &tr));
	/* Full: the first ones go, the rest stay, in any order of taking. */
	for (i = 1; i <= OWNER_MAX + 10; i++)
		owner_add(&t, i, (pid_t)i, "/bin/sh", SANDBOX_VIA_CLIENT);
	for (i = 1; i <= 10; i++)
		assert_false(owner_take(&t, i, &pid, exe, sizeof(exe), &tr));
	for (i = OWNER_MAX + 10; i > 10; i -= 3) {
		assert_true(owner_take(&t, i, &pid, exe, sizeof(exe), &tr));
		assert_int_equal(pid, (pid_t)i);
	}
	for (i = 11; i <= OWNER_MAX + 10; i++)
		if ((OWNER_MAX + 10 - i) % 3 != 0)
			assert_true(owner_take(&t, i, &pid, exe, sizeof(exe), &tr));
	assert_int_equal(t.n, 0);
	/* Absurdly long names are cut, not overrun. */
	memset(exe, 'x', sizeof(exe) - 1);
	exe[sizeof(exe) - 1] = '\0';
	owner_add(&t, 9, 1, exe, SANDBOX_VIA_CLIENT);
	assert_true(owner_take(&t, 9, &pid, exe, 16, &tr));
	assert_int_equal(strlen(exe), 15);
}

/*
 * sock_diag finds the socket at the other end of an accepted connection:
 * the inode the client's own descriptor has, for IPv4 and IPv6; none for
 * a socket that is not a TCP connection.
 */
static void
test_diag_peer(void **state UNUSED)
{
	static const struct { int family; const char *addr; } fams[] = {
		{ AF_INET, "127.0.0.1" }, { AF_INET6, "::1" } };
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (void *)&ss;
	struct sockaddr_in6 *sin6 = (void *)&ss;
	socklen_t len;
	struct stat st;
	int diag, lfd, cfd, afd, sv[2];
	size_t i;

	if ((diag = diag_open()) == -1) {
		print_message("  skipped: no NETLINK_SOCK_DIAG here: %s\n",
		    strerror(errno));
		skip();
	}
	for (i = 0; i < NELEM(fams); i++) {
		memset(&ss, 0, sizeof(ss));
		ss.ss_family = (sa_family_t)fams[i].family;
		if (fams[i].family == AF_INET)
			assert_int_equal(inet_pton(AF_INET, fams[i].addr,
			    &sin->sin_addr), 1);
		else
			assert_int_equal(inet_pton(AF_INET6, fams[i].addr,
			    &sin6->sin6_addr), 1);
		len = fams[i].family == AF_INET ? sizeof(*sin) : sizeof(*sin6);
		assert_int_not_equal(lfd = socket(fams[i].family, SOCK_STREAM,
		    0), -1);
		if (bind(lfd, (struct sockaddr *)&ss, len) == -1) {
			print_message("  %s: cannot bind: %s\n", fams[i].addr,
			    strerror(errno));
			(void)close(lfd);
			continue;
		}
		assert_int_equal(listen(lfd, 4), 0);
		assert_int_equal(getsockname(lfd, (struct sockaddr *)&ss,
		    &len), 0);
		assert_int_not_equal(cfd = socket(fams[i].family, SOCK_STREAM,
		    0), -1);
		assert_int_equal(connect(cfd, (struct sockaddr *)&ss, len), 0);
		assert_int_not_equal(afd = accept(lfd, NULL, NULL), -1);
		assert_int_equal(fstat(cfd, &st), 0);
		assert_int_equal(diag_tcp_peer(diag, afd),
		    (unsigned long)st.st_ino);
		/* The client's own end: its peer is the accepted socket. */
		assert_int_equal(fstat(afd, &st), 0);
		assert_int_equal(diag_tcp_peer(diag, cfd),
		    (unsigned long)st.st_ino);
		(void)close(cfd);
		(void)close(afd);
		(void)close(lfd);
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(diag_tcp_peer(diag, sv[0]), 0);
	assert_int_equal(diag_tcp_peer(-1, sv[0]), 0);
	(void)close(sv[0]);
	(void)close(sv[1]);
	(void)close(diag);
}

/* A path as long as sun_path, and garbage beyond a NUL. */
static void
test_broker_edges(void **state UNUSED)
{
	struct broker_rules rules = { .mode = BROKER_NS, .roots = roots,
	    .nroots = NELEM(roots) };
	struct sockaddr_storage ss;
	struct sockaddr_un *sun = (void *)&ss;
	struct broker_decision d;
	struct broker_call c = { .domain = AF_UNIX, .addr = &ss };

	memset(&ss, 0, sizeof(ss));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, "/tmp/", 5);
	memset(sun->sun_path + 5, 'a', sizeof(sun->sun_path) - 5);
	c.addrlen = sizeof(*sun);
	broker_decide(&rules, &c, &d);
	assert_int_equal(d.verdict, BROKER_BENEATH);
	assert_int_equal(strlen(d.rest), sizeof(sun->sun_path) - 5);
	/* The kernel reads up to the NUL: what follows is not the path. */
	memset(sun->sun_path, 0, sizeof(sun->sun_path));
	memcpy(sun->sun_path, "/tmp/x\0/../../etc", 17);
	c.addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 17);
	broker_decide(&rules, &c, &d);
	assert_int_equal(d.verdict, BROKER_BENEATH);
	assert_string_equal(d.rest, "x");
	/* No roots at all: every pathname refused. */
	rules.nroots = 0;
	broker_decide(&rules, &c, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_int_equal(d.err, EACCES);
}

/* ---------------------------------------------------------------- */
/* Nothing inbound: bind and listen (SPEC 6.5), both confinements. */

struct bind_row {
	const char		*name;
	enum broker_mode	 mode;	/* or -1: both */
	int			 domain;	/* the socket's */
	int			 family;	/* the address's */
	const char		*addr;	/* IP, a path, ABSTRACT, UNNAMED */
	int			 short_by;
	const char		*cwd;
	enum broker_verdict	 want;
	int			 err;
	bool			 direct;
	int			 root;
	const char		*rest;
};

#define BOTH	((enum broker_mode)-1)

static const char *const binds[] = { "/tmp", "/home/u/proj" };

static const struct bind_row bind_rows[] = {
	{ "127.0.0.1", BOTH, AF_INET, AF_INET, "127.0.0.1", 0, NULL,
	    BROKER_AS_IS, 0, false, -1, NULL },
	{ "127.0.0.2 is loopback", BOTH, AF_INET, AF_INET, "127.0.0.2", 0,
	    NULL, BROKER_AS_IS, 0, false, -1, NULL },
	{ "::1", BOTH, AF_INET6, AF_INET6, "::1", 0, NULL, BROKER_AS_IS, 0,
	    false, -1, NULL },
	{ "::ffff:127.0.0.1", BOTH, AF_INET6, AF_INET6, "::ffff:127.0.0.1", 0,
	    NULL, BROKER_AS_IS, 0, false, -1, NULL },
	{ "0.0.0.0: every address", BOTH, AF_INET, AF_INET, "0.0.0.0", 0,
	    NULL, BROKER_REFUSE, EACCES, true, -1, NULL },
	{ ":: : every address", BOTH, AF_INET6, AF_INET6, "::", 0, NULL,
	    BROKER_REFUSE, EACCES, true, -1, NULL },
	{ "::ffff:0.0.0.0", BOTH, AF_INET6, AF_INET6, "::ffff:0.0.0.0", 0,
	    NULL, BROKER_REFUSE, EACCES, true, -1, NULL },
	{ "a host address", BOTH, AF_INET, AF_INET, "10.1.2.3", 0, NULL,
	    BROKER_REFUSE, EACCES, true, -1, NULL },
	{ "a v6 host address", BOTH, AF_INET6, AF_INET6, "2001:db8::1", 0,
	    NULL, BROKER_REFUSE, EACCES, true, -1, NULL },
	/* inet_bind reads AF_UNSPEC with INADDR_ANY as the wildcard. */
	{ "AF_UNSPEC on an AF_INET socket", BOTH, AF_INET, AF_UNSPEC, NULL, 0,
	    NULL, BROKER_REFUSE, EACCES, true, -1, NULL },
	{ "too short: the kernel's EINVAL", BOTH, AF_INET, AF_INET,
	    "10.1.2.3", 1, NULL, BROKER_AS_IS, 0, false, -1, NULL },
	{ "a v6 address on a v4 socket: the kernel's", BOTH, AF_INET,
	    AF_INET6, "::", 0, NULL, BROKER_AS_IS, 0, false, -1, NULL },
	/* Unix: made under a root the command may write. */
	{ "a socket in the workspace", BOTH, AF_UNIX, AF_UNIX,
	    "/home/u/proj/s.sock", 0, NULL, BROKER_BENEATH, 0, false, 1,
	    "s.sock" },
	{ "relative, in the workspace", BOTH, AF_UNIX, AF_UNIX, "d/s.sock",
	    0, "/home/u/proj", BROKER_BENEATH, 0, false, 1, "d/s.sock" },
	{ "outside every root", BOTH, AF_UNIX, AF_UNIX, "/var/tmp/s.sock", 0,
	    NULL, BROKER_REFUSE, EACCES, true, -1, NULL },
	{ "the root itself", BOTH, AF_UNIX, AF_UNIX, "/tmp", 0, NULL,
	    BROKER_REFUSE, EADDRINUSE, false, -1, NULL },
	{ "abstract, its own namespace", BROKER_NS, AF_UNIX, AF_UNIX,
	    ABSTRACT, 0, NULL, BROKER_AS_IS, 0, false, -1, NULL },
	{ "abstract, the host's", BROKER_LL, AF_UNIX, AF_UNIX, ABSTRACT, 0,
	    NULL, BROKER_REFUSE, EACCES, true, -1, NULL },
	{ "autobind, its own namespace", BROKER_NS, AF_UNIX, AF_UNIX, UNNAMED,
	    0, NULL, BROKER_AS_IS, 0, false, -1, NULL },
	{ "autobind, the host's", BROKER_LL, AF_UNIX, AF_UNIX, UNNAMED, 0,
	    NULL, BROKER_REFUSE, EACCES, true, -1, NULL },
	{ "netlink", BOTH, AF_NETLINK, AF_NETLINK, NULL, 0, NULL,
	    BROKER_AS_IS, 0, false, -1, NULL },
	{ "another family", BOTH, AF_PACKET, AF_PACKET, NULL, 0, NULL,
	    BROKER_REFUSE, EAFNOSUPPORT, false, -1, NULL },
};

/* An address of row r's family into ss. */
static void
fill_addr(int family, const char *addr, struct sockaddr_storage *ss,
    socklen_t *len)
{
	struct sockaddr_in *sin = (void *)ss;
	struct sockaddr_in6 *sin6 = (void *)ss;
	struct sockaddr_un *sun = (void *)ss;
	size_t off = offsetof(struct sockaddr_un, sun_path);

	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)family;
	switch (family) {
	case AF_INET:
	case AF_UNSPEC:
		sin->sin_port = htons(8000);
		if (addr != NULL)
			assert_int_equal(inet_pton(AF_INET, addr,
			    &sin->sin_addr), 1);
		*len = sizeof(*sin);
		return;
	case AF_INET6:
		sin6->sin6_port = htons(8000);
		assert_int_equal(inet_pton(AF_INET6, addr, &sin6->sin6_addr),
		    1);
		*len = sizeof(*sin6);
		return;
	case AF_UNIX:
		if (strcmp(addr, UNNAMED) == 0) {
			*len = (socklen_t)sizeof(sa_family_t);
			return;
		}
		if (strcmp(addr, ABSTRACT) == 0) {
			memcpy(sun->sun_path + 1, "name", 4);
			*len = (socklen_t)(off + 5);
			return;
		}
		memcpy(sun->sun_path, addr, strlen(addr));
		*len = (socklen_t)(off + strlen(addr) + 1);
		return;
	default:
		*len = sizeof(struct sockaddr_nl);
	}
}

static void
test_broker_bind(void **state UNUSED)
{
	struct sockaddr_storage ss;
	struct broker_decision d;
	struct broker_call c;
	enum broker_mode modes[] = { BROKER_NS, BROKER_LL };
	size_t i, m;
	int failed = 0;

	for (m = 0; m < NELEM(modes); m++) {
		struct broker_rules rules = { .mode = modes[m],
		    .binds = binds, .nbinds = NELEM(binds) };

		for (i = 0; i < NELEM(bind_rows); i++) {
			const struct bind_row *r = &bind_rows[i];

			if (r->mode != BOTH && r->mode != modes[m])
				continue;
			fill_addr(r->family, r->addr, &ss, &c.addrlen);
			c.addrlen -= (socklen_t)r->short_by;
			c.domain = r->domain;
			c.addr = &ss;
			c.cwd = r->cwd;
			c.pid = 1234;
			broker_decide_bind(&rules, &c, &d);
			if (d.verdict != r->want || d.direct != r->direct ||
			    (r->want == BROKER_REFUSE && d.err != r->err) ||
			    (r->want == BROKER_BENEATH &&
			    ((int)d.root != r->root ||
			    strcmp(d.rest, r->rest) != 0))) {
				print_error("  %s: verdict %d err %d direct %d "
				    "root %zu rest '%s'\n", r->name, d.verdict,
				    d.err, d.direct, d.root, d.rest);
				failed++;
			} else
				print_message("  [ok] %s%s\n", modes[m] ==
				    BROKER_LL ? "landlock: " : "", r->name);
		}
	}
	assert_int_equal(failed, 0);
}

static void
test_broker_listen(void **state UNUSED)
{
	static const struct {
		const char	*name;
		int		 domain, family;
		const char	*addr;	/* NULL: unbound */
		enum broker_mode mode;
		bool		 refused, direct;
		int		 err;
	} rows[] = {
		{ "bound to 127.0.0.1", AF_INET, AF_INET, "127.0.0.1",
		    BOTH, false, false, 0 },
		{ "bound to ::1", AF_INET6, AF_INET6, "::1", BOTH, false,
		    false, 0 },
		{ "unbound: listen() binds every address", AF_INET, AF_INET,
		    NULL, BOTH, true, true, EACCES },
		{ "unbound v6", AF_INET6, AF_INET6, "::", BOTH, true, true,
		    EACCES },
		{ "unix, a path", AF_UNIX, AF_UNIX, "/tmp/s", BOTH, false,
		    false, 0 },
		{ "unix, unbound", AF_UNIX, AF_UNIX, UNNAMED, BOTH, true,
		    false, EINVAL },
		{ "unix, abstract, the host's", AF_UNIX, AF_UNIX, ABSTRACT,
		    BROKER_LL, true, true, EACCES },
		{ "unix, abstract, its own", AF_UNIX, AF_UNIX, ABSTRACT,
		    BROKER_NS, false, false, 0 },
	};
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (void *)&ss;
	struct broker_decision d;
	enum broker_mode modes[] = { BROKER_NS, BROKER_LL };
	socklen_t len;
	size_t i, m;
	int failed = 0;

	for (m = 0; m < NELEM(modes); m++) {
		struct broker_rules rules = { .mode = modes[m] };

		for (i = 0; i < NELEM(rows); i++) {
			if (rows[i].mode != BOTH && rows[i].mode != modes[m])
				continue;
			fill_addr(rows[i].family, rows[i].addr != NULL ?
			    rows[i].addr : "0.0.0.0", &ss, &len);
			if (rows[i].addr == NULL)
				sin->sin_port = 0;	/* unbound */
			broker_decide_listen(&rules, rows[i].domain, &ss, len,
			    &d);
			if ((d.verdict == BROKER_REFUSE) != rows[i].refused ||
			    d.direct != rows[i].direct ||
			    (rows[i].refused && d.err != rows[i].err)) {
				print_error("  %s: verdict %d err %d direct "
				    "%d\n", rows[i].name, d.verdict, d.err,
				    d.direct);
				failed++;
			} else
				print_message("  [ok] %s%s\n", modes[m] ==
				    BROKER_LL ? "landlock: " : "", rows[i].name);
		}
	}
	assert_int_equal(failed, 0);
}

/* connect(): what the namespaces confinement refuses itself, netlink. */
static void
test_broker_connect_more(void **state UNUSED)
{
	struct broker_rules ns = { .mode = BROKER_NS },
	    ll = { .mode = BROKER_LL, .proxy_port = 8080 };
	struct sockaddr_storage ss;
	struct sockaddr_nl *nl = (void *)&ss;
	struct broker_decision d;
	struct broker_call c = { .addr = &ss };

	fill_addr(AF_INET, "10.1.2.3", &ss, &c.addrlen);
	c.domain = AF_INET;
	broker_decide(&ns, &c, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_int_equal(d.err, ENETUNREACH);
	assert_true(d.direct);
	fill_addr(AF_INET, "127.0.0.1", &ss, &c.addrlen);
	broker_decide(&ns, &c, &d);
	assert_int_equal(d.verdict, BROKER_AS_IS);
	/* Netlink: the kernel (port id 0, no group), never a process. */
	memset(&ss, 0, sizeof(ss));
	nl->nl_family = AF_NETLINK;
	c.addrlen = sizeof(*nl);
	c.domain = AF_NETLINK;
	broker_decide(&ll, &c, &d);
	assert_int_equal(d.verdict, BROKER_AS_IS);
	nl->nl_pid = 4242;
	broker_decide(&ll, &c, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_int_equal(d.err, EPERM);
	assert_true(d.direct);
	nl->nl_pid = 0;
	nl->nl_groups = 1;
	broker_decide(&ns, &c, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	/* A family no socket() of the command's makes. */
	c.domain = AF_PACKET;
	broker_decide(&ll, &c, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_int_equal(d.err, EAFNOSUPPORT);
}

/* What the log says of an endpoint. */
static void
test_broker_endpoint(void **state UNUSED)
{
	struct sockaddr_storage ss;
	struct sockaddr_un *sun = (void *)&ss;
	char buf[128];
	unsigned short port;
	socklen_t len;

	fill_addr(AF_INET, "10.1.2.3", &ss, &len);
	broker_endpoint(&ss, len, NULL, buf, sizeof(buf), &port);
	assert_string_equal(buf, "10.1.2.3");
	assert_int_equal(port, 8000);
	fill_addr(AF_INET6, "2001:db8::1", &ss, &len);
	broker_endpoint(&ss, len, NULL, buf, sizeof(buf), &port);
	assert_string_equal(buf, "2001:db8::1");
	fill_addr(AF_UNIX, "s.sock", &ss, &len);
	broker_endpoint(&ss, len, "/home/u//proj", buf, sizeof(buf), &port);
	assert_string_equal(buf, "unix:/home/u/proj/s.sock");
	assert_int_equal(port, 0);
	memset(&ss, 0, sizeof(ss));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, "\0a\0b", 4);
	broker_endpoint(&ss, (socklen_t)(offsetof(struct sockaddr_un,
	    sun_path) + 4), NULL, buf, sizeof(buf), &port);
	assert_string_equal(buf, "unix:@a@b");
}

/* Whom a call on another process reaches (setpriority, prlimit, ...). */
static void
test_broker_procall(void **state UNUSED)
{
	static const struct {
		const char	*name;
		uint64_t	 a[6];
		int		 kind;
		pid_t		 id;
	} rows[] = {
		{ "prlimit64", { 0 }, TARGET_KERNEL, 0 },
		{ "prlimit64", { 4242 }, TARGET_PROCESS, 4242 },
		{ "prlimit64", { 0xffffffff00001234ULL }, TARGET_PROCESS,
		    0x1234 },
		{ "sched_setaffinity", { 77 }, TARGET_PROCESS, 77 },
		{ "setpriority", { PRIO_PROCESS, 99 }, TARGET_PROCESS, 99 },
		{ "setpriority", { PRIO_PGRP, 99 }, TARGET_GROUP, 99 },
		{ "setpriority", { PRIO_USER, 0 }, TARGET_REFUSE, 0 },
		{ "setpriority", { PRIO_USER, 1000 }, TARGET_REFUSE, 0 },
		{ "ioprio_set", { 1, 55 }, TARGET_PROCESS, 55 },
		{ "ioprio_set", { 2, 55 }, TARGET_GROUP, 55 },
		{ "ioprio_set", { 3, 0 }, TARGET_REFUSE, 0 },
	};
	const struct brokered *p;
	struct broker_target t;
	uint64_t a[6];
	size_t i;

	for (i = 0; i < NELEM(rows); i++) {
		for (p = brokered_calls; p < brokered_calls + brokered_ncalls; p++)
			if (p->family == BCALL_PROCESS &&
			    strcmp(p->name, rows[i].name) == 0)
				break;
		assert_true(p < brokered_calls + brokered_ncalls);
		memcpy(a, rows[i].a, sizeof(a));
		broker_procall_target(p, a, &t);
		if ((int)t.kind != rows[i].kind || (t.kind != TARGET_KERNEL &&
		    t.kind != TARGET_REFUSE && t.id != rows[i].id))
			fail_msg("%s row %zu: kind %d id %d", rows[i].name, i,
			    t.kind, (int)t.id);
	}
}

/*
 * What only root may read, found for a command that keeps uid 0: a
 * file others cannot read, a directory others cannot enter (whole, not
 * walked), never what others may read, nor a link.
 */
static void
test_rootonly(void **state UNUSED)
{
	char top[] = "/tmp/harn-rootonly.XXXXXX", path[256], err[128];
	struct strv found = { NULL, 0, 0 };
	size_t i;
	bool secret = false, closed = false, inside = false, open_ = false,
	    link_ = false;

	assert_non_null(mkdtemp(top));
	assert_int_equal(chmod(top, 0755), 0);
#define MK(name, mode, dir) do {					\
	snprintf(path, sizeof(path), "%s/%s", top, name);		\
	if (dir)							\
		assert_int_equal(mkdir(path, mode), 0);			\
	else								\
		assert_true(close(open(path, O_CREAT | O_WRONLY,	\
		    mode)) == 0);					\
	assert_int_equal(chmod(path, mode), 0);				\
} while (0)
	MK("secret", 0600, false);
	MK("open", 0644, false);
	MK("closed", 0700, true);
	MK("closed/inside", 0644, false);
	MK("sub", 0755, true);
	MK("sub/key", 0640, false);
#undef MK
	snprintf(path, sizeof(path), "%s/link", top);
	assert_int_equal(symlink("secret", path), 0);
	assert_int_equal(rootonly_find(top, geteuid(), NULL, 0, &found, err,
	    sizeof(err)), 0);
	for (i = 0; i < found.n; i++) {
		secret |= strstr(found.v[i], "/secret") != NULL;
		closed |= strstr(found.v[i], "/closed") != NULL &&
		    strstr(found.v[i], "inside") == NULL;
		inside |= strstr(found.v[i], "/inside") != NULL;
		open_ |= strstr(found.v[i], "/open") != NULL;
		link_ |= strstr(found.v[i], "/link") != NULL;
	}
	print_message("  %zu found\n", found.n);
	assert_true(secret);
	assert_true(closed);
	assert_false(inside);
	assert_false(open_);
	assert_false(link_);
	/* A key readable by its group: others cannot, so it is found. */
	for (i = 0, secret = false; i < found.n; i++)
		secret |= strstr(found.v[i], "/sub/key") != NULL;
	assert_true(secret);
	strv_free(&found);
	snprintf(path, sizeof(path), "rm -rf '%s'", top);
	assert_int_equal(system(path), 0);
}

/* Is name (under top) among found? */
static bool
found_has(const struct strv *found, const char *top, const char *name)
{
	char path[256];
	size_t i;

	snprintf(path, sizeof(path), "%s%s%s", top, *name ? "/" : "", name);
	for (i = 0; i < found->n; i++)
		if (strcmp(found->v[i], path) == 0)
			return true;
	return false;
}

/*
 * A root given inside a directory only root may enter (a workspace in
 * root's 0700 home): not denied, nor the way to it, nor walked; every
 * other entry on the way is denied, whatever its own mode.
 */
static void
test_rootonly_keep(void **state UNUSED)
{
	char top[] = "/tmp/harn-rootonly.XXXXXX", path[256], err[128];
	char ws[256], ws2[256];
	const char *keep[2] = { ws, ws2 };
	struct strv found = { NULL, 0, 0 };
	static const struct {
		const char	*name;
		mode_t		 mode;
		bool		 dir, denied;
	} rows[] = {
		{ "ws", 0755, true, false },
		{ "ws/secret", 0600, false, false },
		{ "other", 0644, false, true },
		{ "sub", 0755, true, true },
		{ "sub/f", 0644, false, false },	/* in a denied one */
		{ "a", 0755, true, false },
		{ "a/ws2", 0700, true, false },
		{ "a/x", 0644, false, true },
	};
	size_t i;

	assert_non_null(mkdtemp(top));
	for (i = 0; i < NELEM(rows); i++) {
		snprintf(path, sizeof(path), "%s/%s", top, rows[i].name);
		if (rows[i].dir)
			assert_int_equal(mkdir(path, rows[i].mode), 0);
		else
			assert_true(close(open(path, O_CREAT | O_WRONLY,
			    rows[i].mode)) == 0);
		assert_int_equal(chmod(path, rows[i].mode), 0);
	}
	assert_int_equal(chmod(top, 0700), 0);
	snprintf(ws, sizeof(ws), "%s/ws", top);
	snprintf(ws2, sizeof(ws2), "%s/a/ws2", top);
	assert_int_equal(rootonly_find(top, geteuid(), keep, 2, &found, err,
	    sizeof(err)), 0);
	assert_false(found_has(&found, top, ""));
	for (i = 0; i < NELEM(rows); i++)
		if (found_has(&found, top, rows[i].name) != rows[i].denied)
			fail_msg("%s: denied %d, want %d", rows[i].name,
			    !rows[i].denied, rows[i].denied);
	strv_free(&found);
	/* Not on the way to a root given: denied whole, as before. */
	assert_int_equal(rootonly_find(top, geteuid(), NULL, 0, &found, err,
	    sizeof(err)), 0);
	assert_int_equal(found.n, 1);
	assert_true(found_has(&found, top, ""));
	strv_free(&found);
	/* Inside a root given: its own, not walked. */
	assert_int_equal(rootonly_find(ws, geteuid(), keep, 1, &found, err,
	    sizeof(err)), 0);
	assert_int_equal(found.n, 0);
	strv_free(&found);
	snprintf(path, sizeof(path), "rm -rf '%s'", top);
	assert_int_equal(system(path), 0);
}

/*
 * The broker gone (its listener closed): the caller's connect() fails,
 * it never passes.  The control: the same connect without the filter
 * reaches the listening socket.
 */
static int
gone_child(int ctl, const char *path, bool filtered)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char err[256], c = 'x';
	int fd, s;

	if (filtered) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    (fd = sandbox_seccomp_load_broker(
		    SECCOMP_BROKER, err, sizeof(err))) == -1)
			return 100;
		(void)close(fd);	/* the only listener: the broker is gone */
	}
	if (write(ctl, &c, 1) != 1)
		return 102;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return 101;
	if (connect(s, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		return 0;
	return errno;
}

static void
test_broker_gone(void **state UNUSED)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char path[64], c;
	int l, p[2], st, filtered;
	pid_t pid;

	snprintf(path, sizeof(path), "/tmp/harn-gone.%ld.sock", (long)getpid());
	(void)unlink(path);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	assert_true((l = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	assert_int_equal(bind(l, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(l, 8), 0);
	for (filtered = 0; filtered < 2; filtered++) {
		assert_int_equal(pipe(p), 0);
		if ((pid = fork()) == 0) {
			close(p[0]);
			_exit(gone_child(p[1], path, filtered));
		}
		close(p[1]);
		assert_int_equal(read(p[0], &c, 1), 1);
		close(p[0]);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st));
		print_message("  %s: connect %s\n", filtered ? "no broker" :
		    "control", WEXITSTATUS(st) == 0 ? "reached the socket" :
		    strerror(WEXITSTATUS(st)));
		if (filtered)
			assert_int_equal(WEXITSTATUS(st), ENOSYS);
		else
			assert_int_equal(WEXITSTATUS(st), 0);
	}
	close(l);
	(void)unlink(path);
}

/* ---------------------------------------------------------------- */
/* sandbox_plan */

#define Y	AVAIL_YES
#define A	AVAIL_ABSENT
#define C	AVAIL_CANNOT_ATTACH
#define NS	CONFINEMENT_NAMESPACES
#define LL	CONFINEMENT_LANDLOCK
#define NONE	CONFINEMENT_NONE

struct plan_row {
	const char		*name;
	enum sandbox_profile	 profile;
	enum sandbox_choice	 choice;
	enum sandbox_avail	 ns, ll, sc;
	bool			 nogetfd;	/* pidfd_getfd refused */
	bool			 ns_failed;	/* namespaces' set-up failed */
	bool			 root, uid_fits, memory, max_memory, hide_key;
	bool			 nosetid;	/* root without CAP_SETUID */
	bool			 roots_root;	/* root owns a writable root */
	/* Expected. */
	enum sandbox_confinement confinement;
	const char		*mode;
	bool			 refused;
	int			 mech;
	enum sandbox_area	 area;
	const char		*lines;		/* the WHATs, '|' between */
	size_t			 ntried;
	enum sandbox_identity	 identity;
};

#define CALLER	IDENTITY_CALLER
#define UID	IDENTITY_SANDBOX_UID
#define ROOT	IDENTITY_ROOT

static const struct plan_row plan_rows[] = {
	{ .name = "worktree, all there", .profile = PROFILE_WORKTREE,
	    .confinement = NS, .mode = "managed", .lines = "" },
	{ .name = "os_hardened, all there, root",
	    .profile = PROFILE_OS_HARDENED, .root = true, .confinement = NS,
	    .mode = "managed", .lines = "", .identity = UID },
	{ .name = "os_hardened, no namespaces: landlock",
	    .profile = PROFILE_OS_HARDENED, .ns = C, .confinement = LL,
	    .mode = "managed", .lines = "capability bounding set", .ntried = 1 },
	{ .name = "os_hardened, no namespaces, root: landlock as 65533",
	    .profile = PROFILE_OS_HARDENED, .ns = C, .root = true,
	    .uid_fits = true, .confinement = LL, .mode = "managed",
	    .lines = "", .ntried = 1, .identity = UID },
	/* A root-owned workspace (the common CI container): managed. */
	{ .name = "os_hardened, no namespaces, root, 65533 cannot write",
	    .profile = PROFILE_OS_HARDENED, .ns = C, .root = true,
	    .confinement = LL, .mode = "managed", .lines = "", .ntried = 1,
	    .identity = ROOT },
	{ .name = "worktree, no namespaces, root, 65533 cannot write",
	    .profile = PROFILE_WORKTREE, .ns = C, .root = true,
	    .confinement = LL, .mode = "managed", .lines = "", .ntried = 1,
	    .identity = ROOT },
	/*
	 * A root-owned workspace that 65533 could write (mode 0777, a
	 * checkout in /tmp): still root's, so uid 0 as in namespaces, whose
	 * idmapped command owns root's files there (SPEC 6.5).
	 */
	{ .name = "landlock, root, a root-owned 0777 workspace: uid 0",
	    .profile = PROFILE_WORKTREE, .ns = C, .root = true,
	    .uid_fits = true, .roots_root = true, .confinement = LL,
	    .mode = "managed", .lines = "", .ntried = 1, .identity = ROOT },
	{ .name = "--confinement landlock, root, root-owned 0777: uid 0",
	    .profile = PROFILE_OS_HARDENED, .choice = CHOICE_LANDLOCK,
	    .root = true, .uid_fits = true, .roots_root = true,
	    .confinement = LL, .mode = "managed", .lines = "",
	    .identity = ROOT },
	{ .name = "namespaces, root, a root-owned workspace: 65533 (idmapped)",
	    .profile = PROFILE_WORKTREE, .root = true, .uid_fits = true,
	    .roots_root = true, .confinement = NS, .mode = "managed",
	    .lines = "", .identity = UID },
	{ .name = "landlock, plain caller, a root-owned workspace: its uid",
	    .profile = PROFILE_WORKTREE, .choice = CHOICE_LANDLOCK,
	    .roots_root = true, .confinement = LL, .mode = "managed",
	    .lines = "capability bounding set", .identity = CALLER },
	/* docker run --cap-drop ALL: no CAP_SETUID to become 65533. */
	{ .name = "os_hardened, no namespaces, root without CAP_SETUID",
	    .profile = PROFILE_OS_HARDENED, .ns = C, .root = true,
	    .uid_fits = true, .nosetid = true, .confinement = LL,
	    .mode = "managed", .lines = "", .ntried = 1, .identity = ROOT },
	/* Neither is enough for os_hardened: both in confinements_tried. */
	{ .name = "os_hardened, no Landlock", .profile = PROFILE_OS_HARDENED,
	    .ll = A, .refused = true, .mode = "unsupported_fail_closed",
	    .mech = MECH_LANDLOCK, .area = AREA_WRITE, .ntried = 2 },
	{ .name = "os_hardened, --confinement namespaces, no Landlock",
	    .profile = PROFILE_OS_HARDENED, .choice = CHOICE_NAMESPACES,
	    .ll = A, .refused = true, .mode = "unsupported_fail_closed",
	    .mech = MECH_LANDLOCK, .area = AREA_WRITE, .ntried = 1 },
	/* Planned again after the namespaces' set-up failed at entry. */
	{ .name = "os_hardened, namespaces' set-up failed, no Landlock",
	    .profile = PROFILE_OS_HARDENED, .ns_failed = true, .ll = A,
	    .refused = true, .mode = "unsupported_fail_closed",
	    .mech = MECH_NAMESPACES, .area = AREA_EGRESS, .ntried = 2 },
	{ .name = "os_hardened, no seccomp", .profile = PROFILE_OS_HARDENED,
	    .sc = C, .refused = true, .mode = "unsupported_fail_closed",
	    .mech = MECH_SECCOMP, .area = AREA_EGRESS, .ntried = 2 },
	{ .name = "os_hardened, no namespaces, no Landlock",
	    .profile = PROFILE_OS_HARDENED, .ns = C, .ll = A, .refused = true,
	    .mode = "unsupported_fail_closed", .mech = MECH_NAMESPACES,
	    .area = AREA_EGRESS, .ntried = 2 },
	{ .name = "worktree, no namespaces, no Landlock",
	    .profile = PROFILE_WORKTREE, .ns = C, .ll = A, .confinement = NONE,
	    .mode = "unrestricted",
	    .lines = "network confinement|landlock|capability bounding set",
	    .ntried = 2 },
	{ .name = "worktree, nothing, root", .profile = PROFILE_WORKTREE,
	    .ns = A, .ll = A, .sc = A, .root = true, .confinement = NONE,
	    .mode = "unrestricted", .lines = "network confinement|landlock|"
	    "seccomp|file ownership|--max-procs", .ntried = 2 },
	{ .name = "workspace_paths, no Landlock",
	    .profile = PROFILE_WORKSPACE_PATHS, .ll = A, .confinement = NS,
	    .mode = "managed", .lines = "landlock" },
	{ .name = "unrestricted asks nothing", .profile = PROFILE_UNRESTRICTED,
	    .ns = A, .ll = A, .sc = A, .confinement = NONE,
	    .mode = "unrestricted", .lines = "" },
	/* The broker cannot take the caller's socket: namespaces are out. */
	{ .name = "no pidfd_getfd: landlock", .profile = PROFILE_WORKTREE,
	    .nogetfd = true, .confinement = LL, .mode = "managed",
	    .lines = "capability bounding set", .ntried = 1 },
	/* A set-up that failed part-way: the next one is tried. */
	{ .name = "namespaces' set-up failed: landlock",
	    .profile = PROFILE_OS_HARDENED, .ns_failed = true,
	    .confinement = LL, .mode = "managed",
	    .lines = "capability bounding set", .ntried = 1 },
	{ .name = "namespaces' set-up failed, no Landlock",
	    .profile = PROFILE_WORKTREE, .ns_failed = true, .ll = A,
	    .confinement = NONE, .mode = "unrestricted",
	    .lines = "network confinement|landlock|capability bounding set",
	    .ntried = 2 },
	/* An explicit choice is used or refused, never dropped. */
	{ .name = "--confinement landlock, all there",
	    .profile = PROFILE_WORKTREE, .choice = CHOICE_LANDLOCK,
	    .confinement = LL, .mode = "managed", .lines = "capability bounding set" },
	{ .name = "--confinement namespaces, none: refused in worktree",
	    .profile = PROFILE_WORKTREE, .choice = CHOICE_NAMESPACES, .ns = C,
	    .refused = true, .mode = "unsupported_fail_closed",
	    .mech = MECH_NAMESPACES, .area = AREA_EGRESS, .ntried = 1 },
	{ .name = "--confinement landlock, no Landlock: refused",
	    .profile = PROFILE_WORKTREE, .choice = CHOICE_LANDLOCK, .ll = A,
	    .refused = true, .mode = "unsupported_fail_closed",
	    .mech = MECH_LANDLOCK, .area = AREA_WRITE, .ntried = 1 },
	/* The signing key: hidden by a mount or by Landlock, or refused. */
	{ .name = "key, no namespaces, no Landlock",
	    .profile = PROFILE_WORKTREE, .ns = C, .ll = A, .hide_key = true,
	    .refused = true, .mode = "unsupported_fail_closed",
	    .mech = MECH_LANDLOCK, .area = AREA_HOME_READ, .ntried = 2 },
	{ .name = "key, no namespaces, Landlock", .profile = PROFILE_WORKTREE,
	    .ns = C, .hide_key = true, .confinement = LL, .mode = "managed",
	    .lines = "capability bounding set", .ntried = 1 },
	{ .name = "key, namespaces, no Landlock", .profile = PROFILE_WORKTREE,
	    .ll = A, .hide_key = true, .confinement = NS, .mode = "managed",
	    .lines = "landlock" },
	/* --max-memory where cgroup v2 is not delegated. */
	{ .name = "max-memory, worktree, no cgroup",
	    .profile = PROFILE_WORKTREE, .max_memory = true, .confinement = NS,
	    .mode = "managed", .lines = "--max-memory" },
	{ .name = "max-memory, os_hardened, no cgroup",
	    .profile = PROFILE_OS_HARDENED, .max_memory = true, .refused = true,
	    .mode = "unsupported_fail_closed", .mech = -1,
	    .area = AREA_UNKNOWN },
	{ .name = "max-memory, cgroup there", .profile = PROFILE_OS_HARDENED,
	    .max_memory = true, .memory = true, .confinement = NS,
	    .mode = "managed", .lines = "" },
};

/* The WHATs of the plan's lines, '|' between. */
static void
plan_whats(const struct sandbox_plan *p, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < p->nlines && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%.*s", i ? "|" : "",
		    (int)strcspn(p->lines[i], "\t"), p->lines[i]);
}

static void
row_host(const struct plan_row *r, struct sandbox_host *h)
{
	memset(h, 0, sizeof(*h));
	h->root = r->root;
	h->setid = r->root && !r->nosetid;
	h->avail[MECH_NAMESPACES] = r->ns;
	h->avail[MECH_LANDLOCK] = r->ll;
	h->avail[MECH_SECCOMP] = r->sc;
	h->landlock_abi = r->ll == Y ? 7 : 0;
	h->getfd = !r->nogetfd;
	h->memory = r->memory;
	snprintf(h->why[MECH_NAMESPACES], sizeof(h->why[0]), "ns-why");
	snprintf(h->why[MECH_LANDLOCK], sizeof(h->why[0]), "ll-why");
	snprintf(h->why[MECH_SECCOMP], sizeof(h->why[0]), "sc-why");
	snprintf(h->getfd_why, sizeof(h->getfd_why), "getfd-why");
	if (r->ns_failed) {
		h->failed[NS] = true;
		h->failed_mech[NS] = MECH_NAMESPACES;
		snprintf(h->failed_why[NS], sizeof(h->failed_why[0]),
		    "mount /proc: Operation not permitted");
	}
}

static void
test_plan(void **state UNUSED)
{
	struct sandbox_plan_input in;
	struct sandbox_host h;
	struct sandbox_plan p;
	char whats[512];
	size_t i;
	int failed = 0;

	for (i = 0; i < NELEM(plan_rows); i++) {
		const struct plan_row *r = &plan_rows[i];

		row_host(r, &h);
		in = (struct sandbox_plan_input){ .profile = r->profile,
		    .choice = r->choice, .host = &h,
		    .max_memory = r->max_memory, .hide_key = r->hide_key,
		    .uid_fits = r->uid_fits, .roots_root = r->roots_root };
		sandbox_plan(&in, &p);
		plan_whats(&p, whats, sizeof(whats));
		if (p.refused != r->refused ||
		    strcmp(p.network_mode, r->mode) != 0 ||
		    p.ntried != r->ntried ||
		    (!r->refused && (p.confinement != r->confinement ||
		    strcmp(whats, r->lines) != 0 ||
		    p.identity != r->identity)) ||
		    (r->refused && (p.mech != r->mech || p.area != r->area))) {
			print_error("  %s: refused %d mode %s confinement %d "
			    "lines \"%s\" tried %zu uid %d mech %d area %d\n",
			    r->name, p.refused, p.network_mode, p.confinement,
			    whats, p.ntried, p.identity, p.mech, p.area);
			failed++;
		} else
			print_message("  [ok] %s: %s %s\n", r->name,
			    p.network_mode, sandbox_confinement_name(
			    p.confinement));
	}
	assert_int_equal(failed, 0);
}

/* The refusal's detail is the host's word on the missing mechanism. */
/*
 * os_hardened without Landlock, planned before and after the namespaces'
 * set-up failed at entry: each confinement with what it lacked.
 */
static void
test_plan_tried(void **state UNUSED)
{
	const struct plan_row row = { .profile = PROFILE_OS_HARDENED,
	    .ll = A };
	struct sandbox_host h;
	struct sandbox_plan p;
	struct sandbox_plan_input in = { .profile = PROFILE_OS_HARDENED,
	    .choice = CHOICE_AUTO, .host = &h };
	int pass;

	for (pass = 0; pass < 2; pass++) {
		row_host(&row, &h);
		if (pass == 1) {
			h.failed[NS] = true;
			h.failed_mech[NS] = MECH_NAMESPACES;
			snprintf(h.failed_why[NS], sizeof(h.failed_why[0]),
			    "unshare: Operation not permitted");
		}
		sandbox_plan(&in, &p);
		assert_true(p.refused);
		assert_int_equal(p.ntried, 2);
		assert_int_equal(p.tried[0].confinement, NS);
		assert_int_equal(p.tried[0].mech, pass == 0 ? MECH_LANDLOCK :
		    MECH_NAMESPACES);
		assert_int_equal(p.tried[0].avail, pass == 0 ? AVAIL_ABSENT :
		    AVAIL_CANNOT_ATTACH);
		assert_string_equal(p.tried[0].detail, pass == 0 ? "ll-why" :
		    "unshare: Operation not permitted");
		assert_int_equal(p.tried[1].confinement, LL);
		assert_int_equal(p.tried[1].mech, MECH_LANDLOCK);
		assert_int_equal(p.tried[1].avail, AVAIL_ABSENT);
		assert_string_equal(p.tried[1].detail, "ll-why");
	}
}

static void
test_plan_detail(void **state UNUSED)
{
	struct sandbox_host h;
	struct sandbox_plan p;
	struct sandbox_plan_input in = { .profile = PROFILE_OS_HARDENED,
	    .choice = CHOICE_AUTO, .host = &h };

	memset(&h, 0, sizeof(h));
	h.getfd = true;
	h.avail[MECH_NAMESPACES] = AVAIL_CANNOT_ATTACH;
	h.avail[MECH_LANDLOCK] = AVAIL_ABSENT;
	snprintf(h.why[MECH_NAMESPACES], sizeof(h.why[0]),
	    "unshare: Operation not permitted");
	snprintf(h.why[MECH_LANDLOCK], sizeof(h.why[0]),
	    "landlock_create_ruleset: Function not implemented");
	sandbox_plan(&in, &p);
	assert_true(p.refused);
	assert_int_equal(p.avail, AVAIL_CANNOT_ATTACH);
	assert_string_equal(p.detail, "namespaces: unshare: Operation not "
	    "permitted; landlock: landlock_create_ruleset: Function not "
	    "implemented");
	assert_int_equal(p.ntried, 2);
	assert_int_equal(p.tried[0].confinement, CONFINEMENT_NAMESPACES);
	assert_string_equal(p.tried[0].detail, "unshare: Operation not "
	    "permitted");
	assert_int_equal(p.tried[1].confinement, CONFINEMENT_LANDLOCK);
	assert_int_equal(p.tried[1].avail, AVAIL_ABSENT);
	assert_string_equal(sandbox_mech_name(p.mech), "linux_namespaces");
	assert_string_equal(sandbox_avail_name(p.avail),
	    "entry_point_cannot_attach");
	assert_string_equal(sandbox_area_name(p.area), "egress");
}

/* ---------------------------------------------------------------- */
/* sandbox_may_write */

static char	 top[256];

static void
mk(const char *rel, bool dir)
{
	char p[PATH_MAX];
	int fd;

	if (snprintf(p, sizeof(p), "%s/%s", top, rel) >= (int)sizeof(p))
		fail_msg("path too long");
	if (dir)
		assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
	else {
		assert_true((fd = open(p, O_CREAT | O_WRONLY, 0644)) != -1);
		close(fd);
	}
}

/* top: a new directory, by its canonical name. */
static void
make_top(void)
{
	char *real;

	snprintf(top, sizeof(top), "/tmp/harn-test-sandbox.XXXXXX");
	assert_non_null(mkdtemp(top));
	assert_non_null(real = realpath(top, NULL));
	snprintf(top, sizeof(top), "%s", real);
	free(real);
}

static const char *
at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	if (snprintf(buf[i], sizeof(buf[i]), "%s/%s", top, rel) >=
	    (int)sizeof(buf[i]))
		fail_msg("path too long");
	return buf[i];
}

static void
test_may_write(void **state UNUSED)
{
	struct sandbox_request r;
	const char *rw[1];
	char ws[PATH_MAX], rwdir[PATH_MAX], link[PATH_MAX];

	make_top();
	mk("ws", true);
	mk("ws/sub", true);
	mk("rw", true);
	mk("out", true);
	snprintf(ws, sizeof(ws), "%s", at("ws"));
	snprintf(rwdir, sizeof(rwdir), "%s", at("rw"));
	rw[0] = rwdir;
	memset(&r, 0, sizeof(r));
	r.workspace = ws;
	r.rw_roots = rw;
	r.nrw_roots = 1;
	/* A symlink a command could have left in its workspace, pointing out. */
	snprintf(link, sizeof(link), "%s", at("ws/out-link"));
	assert_int_equal(symlink(at("out"), link), 0);
	/* And one outside, pointing in. */
	assert_int_equal(symlink(at("ws"), at("in-link")), 0);

	assert_true(sandbox_may_write(&r, at("ws/log")));
	assert_true(sandbox_may_write(&r, at("ws/sub/new/log")));
	assert_true(sandbox_may_write(&r, at("rw/log")));
	assert_true(sandbox_may_write(&r, at("ws/out-link/log")));
	assert_true(sandbox_may_write(&r, at("in-link/log")));
	assert_true(sandbox_may_write(&r, at("out/../ws/log")));
	assert_true(sandbox_may_write(&r, at("ws")));
	assert_false(sandbox_may_write(&r, at("out/log")));
	assert_false(sandbox_may_write(&r, at("wsx/log")));
	assert_false(sandbox_may_write(&r, at("ws/../out/log")));
	assert_false(sandbox_may_write(&r, "/var/log/harn.log"));
	/* The name itself, a symlink: never followed (O_NOFOLLOW). */
	assert_int_equal(symlink(at("ws/x"), at("out/name-link")), 0);
	assert_false(sandbox_may_write(&r, at("out/name-link")));
	/* Relative: from the working directory. */
	assert_int_equal(chdir(ws), 0);
	assert_true(sandbox_may_write(&r, "log"));
	assert_false(sandbox_may_write(&r, "../out/log"));
	assert_int_equal(chdir("/"), 0);
	(void)unlink(at("out/name-link"));
	(void)unlink(at("in-link"));
	(void)unlink(link);
	(void)rmdir(at("ws/sub"));
	(void)rmdir(at("ws"));
	(void)rmdir(at("rw"));
	(void)rmdir(at("out"));
	(void)rmdir(top);
}

/* opened, and the file it opened is top/want */
static void
opens(const struct sandbox_request *r, const char *path, const char *want)
{
	struct stat a, b;
	int fd;

	fd = sandbox_open_out_of_reach(r, path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat(at(want), &b), 0);
	assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	close(fd);
}

static void
refused(const struct sandbox_request *r, const char *path, int err)
{
	errno = 0;
	assert_int_equal(sandbox_open_out_of_reach(r, path, O_RDONLY |
	    O_CLOEXEC), -1);
	assert_int_equal(errno, err);
}

/*
 * sandbox_open_out_of_reach follows links, but never through a name the
 * command could have made or changed.
 */
static void
test_open_out_of_reach(void **state UNUSED)
{
	struct sandbox_request r;
	char ws[PATH_MAX];

	make_top();
	mk("ws", true);
	mk("ws/f", false);
	mk("out", true);
	mk("out/sub", true);
	mk("out/f", false);
	snprintf(ws, sizeof(ws), "%s", at("ws"));
	memset(&r, 0, sizeof(r));
	r.workspace = ws;
	assert_int_equal(symlink("../out/f", at("out/rel")), 0);
	assert_int_equal(symlink(at("out/f"), at("out/abs")), 0);
	assert_int_equal(symlink("sub/../rel", at("out/chain")), 0);
	assert_int_equal(symlink(at("ws/f"), at("out/into-ws")), 0);
	assert_int_equal(symlink(at("ws"), at("out/ws-dir")), 0);
	assert_int_equal(symlink(at("out/f"), at("ws/out-link")), 0);
	assert_int_equal(symlink("loop", at("out/loop")), 0);

	opens(&r, at("out/f"), "out/f");
	opens(&r, at("out/rel"), "out/f");
	opens(&r, at("out/abs"), "out/f");
	opens(&r, at("out/chain"), "out/f");
	opens(&r, at("out/sub/../f"), "out/f");
	/* In the workspace, or through it, whatever it leads to. */
	refused(&r, at("ws/f"), EACCES);
	refused(&r, at("ws/../out/f"), EACCES);
	refused(&r, at("ws/out-link"), EACCES);
	refused(&r, at("out/into-ws"), EACCES);
	refused(&r, at("out/ws-dir/f"), EACCES);
	refused(&r, at("out/ws-dir/../out/f"), EACCES);
	refused(&r, at("out/loop"), ELOOP);
	refused(&r, at("out/none"), ENOENT);
	refused(&r, at("out/f/x"), ENOTDIR);
	refused(&r, "relative", EINVAL);
	(void)unlink(at("out/rel"));
	(void)unlink(at("out/abs"));
	(void)unlink(at("out/chain"));
	(void)unlink(at("out/into-ws"));
	(void)unlink(at("out/ws-dir"));
	(void)unlink(at("ws/out-link"));
	(void)unlink(at("out/loop"));
	(void)unlink(at("out/f"));
	(void)unlink(at("ws/f"));
	(void)rmdir(at("out/sub"));
	(void)rmdir(at("out"));
	(void)rmdir(at("ws"));
	(void)rmdir(top);
}

static void
test_writable_root(void **state UNUSED)
{
	static const char *const bad[] = { "/", "/usr", "/etc", "/dev",
	    "/proc", "/boot", "/var", "/var/lib", "/var/lib/dpkg",
	    "/var/lib/dpkg/info", "/var/lib/apt/lists", "/var/cache/apt" };
	static const char *const fine[] = { "/home/u/proj", "/var/lib/app",
	    "/tmp/ws", "/usr2", "/srv", "/var/lib/dpkg2", "/var/cache/app" };
	char err[256];
	size_t i;

	for (i = 0; i < NELEM(bad); i++) {
		assert_int_equal(sandbox_writable_root_ok(bad[i], err,
		    sizeof(err)), -1);
		print_message("  %s: %s\n", bad[i], err);
	}
	for (i = 0; i < NELEM(fine); i++)
		assert_int_equal(sandbox_writable_root_ok(fine[i], err,
		    sizeof(err)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_broker_decide),
		cmocka_unit_test(test_broker_tcp),
		cmocka_unit_test(test_broker_edges),
		cmocka_unit_test(test_broker_to_proxy),
		cmocka_unit_test(test_owner_table),
		cmocka_unit_test(test_diag_peer),
		cmocka_unit_test(test_broker_bind),
		cmocka_unit_test(test_broker_listen),
		cmocka_unit_test(test_broker_connect_more),
		cmocka_unit_test(test_broker_endpoint),
		cmocka_unit_test(test_broker_procall),
		cmocka_unit_test(test_rootonly),
		cmocka_unit_test(test_rootonly_keep),
		cmocka_unit_test(test_broker_gone),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_detail),
		cmocka_unit_test(test_plan_tried),
		cmocka_unit_test(test_may_write),
		cmocka_unit_test(test_open_out_of_reach),
		cmocka_unit_test(test_writable_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
