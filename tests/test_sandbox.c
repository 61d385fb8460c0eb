/*
 * test_sandbox: the sandbox's pure decisions, as tables.
 *
 *   - broker_decide: which connect() goes through, on the broker's copy
 *     of the address and the socket's own family;
 *   - sandbox_plan: which confinement a profile gets from what the host
 *     can do, and when it must refuse;
 *   - sandbox_may_write: which output paths the command could reach.
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
#include <sys/prctl.h>
#include <sys/wait.h>
#include <netinet/in.h>
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
	{ "tcp", AF_INET, AF_INET, NULL, 0, NULL, BROKER_CONNECT, 0, -1, NULL },
	{ "tcp6", AF_INET6, AF_INET6, NULL, 0, NULL, BROKER_CONNECT, 0, -1,
	    NULL },
	{ "netlink", AF_NETLINK, AF_NETLINK, NULL, 0, NULL, BROKER_CONNECT, 0,
	    -1, NULL },
	/* An inet socket given a unix address: the kernel refuses it. */
	{ "inet socket, unix address", AF_INET, AF_UNIX, "/etc/x.sock", 1,
	    NULL, BROKER_CONNECT, 0, -1, NULL },
	/* A unix socket given an inet address: the kernel refuses it. */
	{ "unix socket, inet address", AF_UNIX, AF_INET, NULL, 0, NULL,
	    BROKER_CONNECT, 0, -1, NULL },
	/* Abstract names live in the command's own network namespace. */
	{ "abstract", AF_UNIX, AF_UNIX, ABSTRACT, 0, NULL, BROKER_CONNECT, 0,
	    -1, NULL },
	{ "unnamed", AF_UNIX, AF_UNIX, UNNAMED, 0, NULL, BROKER_CONNECT, 0, -1,
	    NULL },
	/* Pathnames: under a root, resolved beneath it. */
	{ "in a private dir", AF_UNIX, AF_UNIX, "/tmp/a.sock", 1, NULL,
	    BROKER_CONNECT_BENEATH, 0, 0, "a.sock" },
	{ "in the workspace", AF_UNIX, AF_UNIX, "/home/u/proj/s", 1, NULL,
	    BROKER_CONNECT_BENEATH, 0, 2, "s" },
	{ "the longest root wins", AF_UNIX, AF_UNIX, "/home/u/proj/sub/d/s", 1,
	    NULL, BROKER_CONNECT_BENEATH, 0, 3, "d/s" },
	{ "a socket root", AF_UNIX, AF_UNIX, "/srv/sock/pg.5432", 1, NULL,
	    BROKER_CONNECT_BENEATH, 0, 4, "pg.5432" },
	{ "the root itself", AF_UNIX, AF_UNIX, "/srv/sock", 1, NULL,
	    BROKER_CONNECT_BENEATH, 0, 4, "." },
	{ "// and /./ are tidied", AF_UNIX, AF_UNIX, "//tmp/./x//y.sock", 1,
	    NULL, BROKER_CONNECT_BENEATH, 0, 0, "x/y.sock" },
	{ ".. is left to the resolution", AF_UNIX, AF_UNIX,
	    "/tmp/../etc/x.sock", 1, NULL, BROKER_CONNECT_BENEATH, 0, 0,
	    "../etc/x.sock" },
	{ "not NUL-terminated (addrlen ends it)", AF_UNIX, AF_UNIX,
	    "/tmp/n.sock", 0, NULL, BROKER_CONNECT_BENEATH, 0, 0, "n.sock" },
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
	    "/home/u/proj", BROKER_CONNECT_BENEATH, 0, 2, "s.sock" },
	{ "relative, cwd elsewhere", AF_UNIX, AF_UNIX, "s.sock", 1, "/etc",
	    BROKER_REFUSE, EACCES, -1, NULL },
	{ "relative, cwd unknown", AF_UNIX, AF_UNIX, "s.sock", 1, NULL,
	    BROKER_REFUSE, EACCES, -1, NULL },
	{ "relative, cwd /", AF_UNIX, AF_UNIX, "tmp/s", 1, "/",
	    BROKER_CONNECT_BENEATH, 0, 0, "s" },
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

static void
test_broker_decide(void **state UNUSED)
{
	struct broker_rules rules = { roots, NELEM(roots) };
	struct sockaddr_storage ss;
	struct broker_decision d;
	struct broker_call c;
	size_t i;
	int failed = 0;

	for (i = 0; i < NELEM(broker_rows); i++) {
		const struct broker_row *r = &broker_rows[i];

		fill(r, &ss, &c.addrlen);
		c.domain = r->domain;
		c.addr = &ss;
		c.cwd = r->cwd;
		broker_decide(&rules, &c, &d);
		if (d.verdict != r->want ||
		    (r->want == BROKER_REFUSE && d.err != r->err) ||
		    (r->want == BROKER_CONNECT_BENEATH &&
		    ((int)d.root != r->root || strcmp(d.rest, r->rest) != 0))) {
			print_error("  %s: verdict %d err %d root %zu rest "
			    "'%s', want %d %d %d '%s'\n", r->name, d.verdict,
			    d.err, d.root, d.rest, r->want, r->err, r->root,
			    r->rest ? r->rest : "");
			failed++;
		} else
			print_message("  [ok] %s\n", r->name);
	}
	assert_int_equal(failed, 0);
}

/* A path as long as sun_path, and garbage beyond a NUL. */
static void
test_broker_edges(void **state UNUSED)
{
	struct broker_rules rules = { roots, NELEM(roots) };
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
	assert_int_equal(d.verdict, BROKER_CONNECT_BENEATH);
	assert_int_equal(strlen(d.rest), sizeof(sun->sun_path) - 5);
	/* The kernel reads up to the NUL: what follows is not the path. */
	memset(sun->sun_path, 0, sizeof(sun->sun_path));
	memcpy(sun->sun_path, "/tmp/x\0/../../etc", 17);
	c.addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 17);
	broker_decide(&rules, &c, &d);
	assert_int_equal(d.verdict, BROKER_CONNECT_BENEATH);
	assert_string_equal(d.rest, "x");
	/* No roots at all: every pathname refused. */
	rules.nroots = 0;
	broker_decide(&rules, &c, &d);
	assert_int_equal(d.verdict, BROKER_REFUSE);
	assert_int_equal(d.err, EACCES);
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
		    (fd = sandbox_seccomp_load_broker(err, sizeof(err))) == -1)
			return 100;
		(void)close(fd);	/* the only listener: the broker is gone */
	}
	(void)write(ctl, &c, 1);
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
#define NE(m)	(1U << (m))

struct plan_row {
	const char		*name;
	enum sandbox_profile	 profile;
	enum sandbox_avail	 ns, ll, sc;
	bool			 root, memory, max_memory, hide_key;
	/* Expected. */
	enum sandbox_confinement confinement;
	const char		*mode;
	bool			 refused;
	int			 mech;
	enum sandbox_area	 area;
	unsigned		 not_enforced;
	bool			 landlock, seccomp, no_memory;
};

static const struct plan_row plan_rows[] = {
	{ "worktree, all there", PROFILE_WORKTREE, Y, Y, Y, false, false,
	    false, false, CONFINEMENT_NAMESPACES, "managed", false, -1, 0, 0,
	    true, true, false },
	{ "os_hardened, all there", PROFILE_OS_HARDENED, Y, Y, Y, true, false,
	    false, false, CONFINEMENT_NAMESPACES, "managed", false, -1, 0, 0,
	    true, true, false },
	{ "os_hardened, no namespaces", PROFILE_OS_HARDENED, C, Y, Y, false,
	    false, false, false, CONFINEMENT_NONE, "unsupported_fail_closed",
	    true, MECH_NAMESPACES, AREA_EGRESS, 0, false, false, false },
	{ "os_hardened, no Landlock", PROFILE_OS_HARDENED, Y, A, Y, false,
	    false, false, false, CONFINEMENT_NONE, "unsupported_fail_closed",
	    true, MECH_LANDLOCK, AREA_WRITE, 0, false, false, false },
	{ "os_hardened, no broker", PROFILE_OS_HARDENED, Y, Y, C, false,
	    false, false, false, CONFINEMENT_NONE, "unsupported_fail_closed",
	    true, MECH_SECCOMP, AREA_EGRESS, 0, false, false, false },
	{ "worktree, no namespaces", PROFILE_WORKTREE, C, Y, Y, false, false,
	    false, false, CONFINEMENT_NONE, "unrestricted", false, -1, 0,
	    NE(MECH_NAMESPACES), true, true, false },
	{ "worktree, namespaces but no broker", PROFILE_WORKTREE, Y, Y, C,
	    false, false, false, false, CONFINEMENT_NONE, "unrestricted",
	    false, -1, 0, NE(MECH_NAMESPACES) | NE(MECH_SECCOMP), true, false,
	    false },
	{ "worktree, nothing", PROFILE_WORKTREE, A, A, A, false, false, false,
	    false, CONFINEMENT_NONE, "unrestricted", false, -1, 0,
	    NE(MECH_NAMESPACES) | NE(MECH_LANDLOCK) | NE(MECH_SECCOMP), false,
	    false, false },
	{ "workspace_paths, no Landlock", PROFILE_WORKSPACE_PATHS, Y, A, Y,
	    false, false, false, false, CONFINEMENT_NAMESPACES, "managed",
	    false, -1, 0, NE(MECH_LANDLOCK), false, true, false },
	{ "unrestricted asks nothing", PROFILE_UNRESTRICTED, A, A, A, false,
	    false, false, false, CONFINEMENT_NONE, "unrestricted", false, -1,
	    0, 0, false, false, false },
	/* The signing key: hidden by a mount or by Landlock, or refused. */
	{ "key, no namespaces, no Landlock", PROFILE_WORKTREE, C, A, Y, false,
	    false, false, true, CONFINEMENT_NONE, "unsupported_fail_closed",
	    true, MECH_NAMESPACES, AREA_HOME_READ, 0, false, true, false },
	{ "key, no namespaces, Landlock", PROFILE_WORKTREE, C, Y, Y, false,
	    false, false, true, CONFINEMENT_NONE, "unrestricted", false, -1, 0,
	    NE(MECH_NAMESPACES), true, true, false },
	{ "key, namespaces, no Landlock", PROFILE_WORKTREE, Y, A, Y, false,
	    false, false, true, CONFINEMENT_NAMESPACES, "managed", false, -1,
	    0, NE(MECH_LANDLOCK), false, true, false },
	/* --max-memory where cgroup v2 is not delegated. */
	{ "max-memory, worktree, no cgroup", PROFILE_WORKTREE, Y, Y, Y, false,
	    false, true, false, CONFINEMENT_NAMESPACES, "managed", false, -1,
	    0, 0, true, true, true },
	{ "max-memory, os_hardened, no cgroup", PROFILE_OS_HARDENED, Y, Y, Y,
	    false, false, true, false, CONFINEMENT_NAMESPACES,
	    "unsupported_fail_closed", true, -1, AREA_UNKNOWN, 0, true, true,
	    false },
	{ "max-memory, cgroup there", PROFILE_OS_HARDENED, Y, Y, Y, false,
	    true, true, false, CONFINEMENT_NAMESPACES, "managed", false, -1, 0,
	    0, true, true, false },
};

static void
test_plan(void **state UNUSED)
{
	struct sandbox_plan_input in;
	struct sandbox_host h;
	struct sandbox_plan p;
	size_t i;
	int failed = 0;

	for (i = 0; i < NELEM(plan_rows); i++) {
		const struct plan_row *r = &plan_rows[i];

		memset(&h, 0, sizeof(h));
		h.root = r->root;
		h.avail[MECH_NAMESPACES] = r->ns;
		h.avail[MECH_LANDLOCK] = r->ll;
		h.avail[MECH_SECCOMP] = r->sc;
		h.landlock_abi = r->ll == Y ? 7 : 0;
		h.memory = r->memory;
		snprintf(h.why[MECH_NAMESPACES], sizeof(h.why[0]), "ns-why");
		in = (struct sandbox_plan_input){ .profile = r->profile,
		    .choice = CHOICE_AUTO, .host = &h,
		    .max_memory = r->max_memory, .hide_key = r->hide_key };
		sandbox_plan(&in, &p);
		if (p.refused != r->refused ||
		    strcmp(p.network_mode, r->mode) != 0 ||
		    (!r->refused && (p.confinement != r->confinement ||
		    p.not_enforced != r->not_enforced ||
		    p.landlock != r->landlock || p.seccomp != r->seccomp ||
		    p.no_memory != r->no_memory)) ||
		    (r->refused && (p.mech != r->mech || p.area != r->area))) {
			print_error("  %s: refused %d mode %s confinement %d "
			    "not_enforced %#x landlock %d seccomp %d mech %d "
			    "area %d\n", r->name, p.refused, p.network_mode,
			    p.confinement, p.not_enforced, p.landlock,
			    p.seccomp, p.mech, p.area);
			failed++;
		} else
			print_message("  [ok] %s: %s\n", r->name,
			    p.network_mode);
	}
	assert_int_equal(failed, 0);
}

/* The refusal's detail is the host's word on the missing mechanism. */
static void
test_plan_detail(void **state UNUSED)
{
	struct sandbox_host h;
	struct sandbox_plan p;
	struct sandbox_plan_input in = { .profile = PROFILE_OS_HARDENED,
	    .choice = CHOICE_AUTO, .host = &h };

	memset(&h, 0, sizeof(h));
	h.avail[MECH_NAMESPACES] = AVAIL_CANNOT_ATTACH;
	snprintf(h.why[MECH_NAMESPACES], sizeof(h.why[0]),
	    "unshare: Operation not permitted");
	sandbox_plan(&in, &p);
	assert_true(p.refused);
	assert_int_equal(p.avail, AVAIL_CANNOT_ATTACH);
	assert_string_equal(p.detail, "unshare: Operation not permitted");
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
	char *real;

	snprintf(top, sizeof(top), "/tmp/harn-test-sandbox.XXXXXX");
	assert_non_null(mkdtemp(top));
	real = realpath(top, NULL);
	snprintf(top, sizeof(top), "%s", real);
	free(real);
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

static void
test_writable_root(void **state UNUSED)
{
	static const char *const bad[] = { "/", "/usr", "/etc", "/dev",
	    "/proc", "/boot" };
	static const char *const fine[] = { "/home/u/proj", "/var/lib/app",
	    "/tmp/ws", "/usr2", "/srv", "/var" };
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
		cmocka_unit_test(test_broker_edges),
		cmocka_unit_test(test_broker_gone),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_detail),
		cmocka_unit_test(test_may_write),
		cmocka_unit_test(test_writable_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
