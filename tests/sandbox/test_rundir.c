/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_rundir: the run's private directory and the environment that
 * points into it (SPEC 6.3: nothing of ours in the workspace).
 *
 *   - rundir_pick: which private directory (namespaces) holds it, as a
 *     table;
 *   - rundir_make/rundir_remove (landlock): made outside the roots,
 *     private, and removed whole without following a link planted in it
 *     or being stopped by a mode or a depth the command chose; and by
 *     rundir_orphaned (init, when harn-egressd was killed);
 *   - sandbox_env_build: TMPDIR, the caches and the stand-in in it; the
 *     user's directories (--env NAME=VALUE, --cache-dir) kept.
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox/internal.h"

#define UNUSED	__attribute__((unused))

static const char *const privates[] = {
	"/tmp", "/var/tmp", "/run", "/dev/shm", NULL
};

struct pick_row {
	const char	*name;
	const char	*roots[3];
	bool		 writable[3];
	bool		 exists[4];
	int		 want;
};

static const struct pick_row pick_rows[] = {
	{ "a workspace elsewhere", { "/home/u/proj" }, { true },
	    { true, true, true, true }, 0 },
	{ "a workspace in /tmp", { "/tmp/ws" }, { true },
	    { true, true, true, true }, 0 },
	{ "a workspace at /tmp", { "/tmp" }, { true },
	    { true, true, true, true }, 1 },
	{ "a read-only root at /tmp", { "/tmp" }, { false },
	    { true, true, true, true }, 0 },
	{ "a root at /tmp/harn-egressd", { "/tmp/harn-egressd/x" }, { false },
	    { true, true, true, true }, 1 },
	{ "no /tmp", { "/home/u/proj" }, { true },
	    { false, true, true, true }, 1 },
	{ "/tmp and /var/tmp covered", { "/tmp", "/var/tmp" },
	    { true, true }, { true, true, true, true }, 2 },
	{ "none left", { "/tmp", "/var/tmp" }, { true, true },
	    { true, true, false, false }, -1 },
};

static void
test_pick(void **state UNUSED)
{
	const struct pick_row *r;
	size_t i, n;

	for (i = 0; i < NELEM(pick_rows); i++) {
		r = &pick_rows[i];
		for (n = 0; n < 3 && r->roots[n] != NULL; n++)
			;
		if (rundir_pick(privates, r->exists, r->roots, r->writable,
		    n) != r->want)
			fail_msg("%s: want %d", r->name, r->want);
	}
}

/* A directory of the test's, with a victim file and directory beside. */
struct fixture {
	char	 top[PATH_MAX];
	char	 ws[PATH_MAX + 8];
	char	 base[PATH_MAX + 8];
	char	 victim[PATH_MAX + 8];
	char	 vdir[PATH_MAX + 8];
};

static void
fixture_make(struct fixture *fx)
{
	char path[PATH_MAX * 2];
	int fd;

	snprintf(fx->top, sizeof(fx->top), "/tmp/test_rundir.XXXXXX");
	assert_non_null(mkdtemp(fx->top));
	snprintf(fx->ws, sizeof(fx->ws), "%s/ws", fx->top);
	snprintf(fx->base, sizeof(fx->base), "%s/base", fx->top);
	snprintf(fx->victim, sizeof(fx->victim), "%s/victim", fx->top);
	snprintf(fx->vdir, sizeof(fx->vdir), "%s/vdir", fx->top);
	assert_int_equal(mkdir(fx->ws, 0755), 0);
	assert_int_equal(mkdir(fx->base, 0700), 0);
	assert_int_equal(mkdir(fx->vdir, 0755), 0);
	assert_true((fd = open(fx->victim, O_WRONLY | O_CREAT, 0644)) != -1);
	(void)close(fd);
	snprintf(path, sizeof(path), "%s/f", fx->vdir);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0644)) != -1);
	(void)close(fd);
}

static void
fixture_free(struct fixture *fx)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->top);
	assert_int_equal(system(cmd), 0);
}

static void
make_landlock(struct rundir *rd, struct sandbox_request *r,
    struct fixture *fx)
{
	struct sandbox_plan p;
	char err[512];

	memset(r, 0, sizeof(*r));
	memset(&p, 0, sizeof(p));
	r->workspace = fx->ws;
	p.confinement = CONFINEMENT_LANDLOCK;
	p.identity = geteuid() == 0 ? IDENTITY_ROOT : IDENTITY_CALLER;
	assert_int_equal(setenv("TMPDIR", fx->base, 1), 0);
	if (rundir_make(rd, r, &p, err, sizeof(err)) != 0)
		fail_msg("rundir_make: %s", err);
}

static void
test_make_landlock(void **state UNUSED)
{
	struct fixture fx;
	struct sandbox_request r;
	struct rundir rd;
	struct stat st;
	char path[PATH_MAX * 2];

	fixture_make(&fx);
	make_landlock(&rd, &r, &fx);
	/* In $TMPDIR, outside the workspace; one more write root. */
	assert_non_null(rd.dir);
	assert_true(strncmp(rd.dir, fx.base, strlen(fx.base)) == 0);
	assert_int_equal(rd.req.nrw_roots, 1);
	assert_string_equal(rd.req.rw_roots[0], rd.dir);
	assert_int_equal(stat(rd.dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(rd.top, &st), 0);
	assert_int_equal(st.st_mode & 077, 0);
	snprintf(path, sizeof(path), "%s/tmp", rd.dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* What a command could leave: links out, a shut directory, depth. */
	snprintf(path, sizeof(path), "%s/tmp/link", rd.dir);
	assert_int_equal(symlink(fx.victim, path), 0);
	snprintf(path, sizeof(path), "%s/tmp/dirlink", rd.dir);
	assert_int_equal(symlink(fx.vdir, path), 0);
	snprintf(path, sizeof(path), "rd=%s; mkdir -p \"$rd/cache/shut/in\" && "
	    "touch \"$rd/cache/shut/in/f\" && chmod 000 \"$rd/cache/shut\" && "
	    "p=\"$rd/tmp\"; for i in $(seq 1 100); do p=$p/d; done; "
	    "mkdir -p \"$p\" && touch \"$p/f\" && chmod 500 \"$rd/tmp\"",
	    rd.dir);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s", rd.top);
	assert_int_equal(rundir_remove(&rd), 0);
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	/* The targets of the links are whole. */
	assert_int_equal(stat(fx.victim, &st), 0);
	snprintf(path, sizeof(path), "%s/f", fx.vdir);
	assert_int_equal(stat(path, &st), 0);
	fixture_free(&fx);
}

/*
 * harn-egressd gone (SIGKILL): init, as the command (here our own uid,
 * as a caller's command or root's that keeps uid 0), removes it all.
 */
static void
test_orphaned(void **state UNUSED)
{
	struct fixture fx;
	struct sandbox_request r;
	struct rundir rd;
	struct stat st;
	char path[PATH_MAX * 2];

	fixture_make(&fx);
	make_landlock(&rd, &r, &fx);
	snprintf(path, sizeof(path), "%s/tmp/link", rd.dir);
	assert_int_equal(symlink(fx.vdir, path), 0);
	snprintf(path, sizeof(path), "rd=%s; mkdir -p \"$rd/cache/a/b\" && "
	    "touch \"$rd/cache/a/b/f\" && chmod 000 \"$rd/cache/a\" && "
	    "chmod 500 \"$rd\"", rd.dir);
	assert_int_equal(system(path), 0);
	rundir_orphaned(&rd);
	assert_int_equal(lstat(rd.top, &st), -1);
	assert_int_equal(errno, ENOENT);
	snprintf(path, sizeof(path), "%s/f", fx.vdir);
	assert_int_equal(stat(path, &st), 0);
	/* Then harn-egressd's own removal finds nothing to do. */
	assert_int_equal(rundir_remove(&rd), 0);
	fixture_free(&fx);
}

/* $TMPDIR inside the workspace: the run's directory goes to /tmp. */
static void
test_base_not_in_workspace(void **state UNUSED)
{
	struct fixture fx;
	struct sandbox_request r;
	struct sandbox_plan p;
	struct rundir rd;
	char err[512];

	fixture_make(&fx);
	memset(&r, 0, sizeof(r));
	memset(&p, 0, sizeof(p));
	r.workspace = fx.top;
	p.confinement = CONFINEMENT_LANDLOCK;
	p.identity = geteuid() == 0 ? IDENTITY_ROOT : IDENTITY_CALLER;
	assert_int_equal(setenv("TMPDIR", fx.base, 1), 0);
	if (rundir_make(&rd, &r, &p, err, sizeof(err)) != 0)
		fail_msg("rundir_make: %s", err);
	assert_true(strncmp(rd.dir, "/tmp/harn-egressd.", 18) == 0);
	assert_int_equal(rundir_remove(&rd), 0);
	fixture_free(&fx);
}

/* The value of name in env, or NULL. */
static const char *
env_get(char **env, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; env[i] != NULL; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

static size_t
env_count(char **env, const char *name)
{
	size_t i, k = 0, n = strlen(name);

	for (i = 0; env[i] != NULL; i++)
		k += strncmp(env[i], name, n) == 0 && env[i][n] == '=';
	return k;
}

static void
test_env(void **state UNUSED)
{
	static const char *const given[] = {
		"XDG_CACHE_HOME=/srv/xdg", "TMPDIR", "FOO=bar", "FOO=baz",
		"npm_config_cache=/srv/npm",
	};
	struct sandbox_request r;
	struct rundir rd;
	char **env, err[256];

	memset(&r, 0, sizeof(r));
	memset(&rd, 0, sizeof(rd));
	r.workspace = "/home/u/proj";
	rd.dir = "/tmp/harn-egressd";
	rd.npmrc = "registry=x\n";
	/* The caller's own: never passed when confined, unless named. */
	assert_int_equal(setenv("TMPDIR", "/caller/tmp", 1), 0);
	assert_int_equal(setenv("PIP_CACHE_DIR", "/caller/pip", 1), 0);
	assert_int_equal(setenv("FOO", "caller", 1), 0);
	env = sandbox_env_build(&r, 8080, &rd, err, sizeof(err));
	assert_non_null(env);
	assert_string_equal(env_get(env, "TMPDIR"), "/tmp/harn-egressd/tmp");
	assert_string_equal(env_get(env, "TEMP"), "/tmp/harn-egressd/tmp");
	assert_string_equal(env_get(env, "XDG_CACHE_HOME"),
	    "/tmp/harn-egressd/cache");
	assert_string_equal(env_get(env, "PIP_CACHE_DIR"),
	    "/tmp/harn-egressd/cache/pip");
	assert_string_equal(env_get(env, "NPM_CONFIG_USERCONFIG"),
	    "/tmp/harn-egressd/npmrc");
	assert_null(env_get(env, "FOO"));
	sandbox_env_free(env);

	/* --env: the user's directories kept; TMPDIR by name (cli gives it
	 * a value when it has one: here the caller's has none). */
	r.env_names = given;
	r.nenv_names = NELEM(given);
	assert_int_equal(unsetenv("TMPDIR"), 0);
	env = sandbox_env_build(&r, 8080, &rd, err, sizeof(err));
	assert_non_null(env);
	assert_string_equal(env_get(env, "XDG_CACHE_HOME"), "/srv/xdg");
	assert_int_equal(env_count(env, "XDG_CACHE_HOME"), 1);
	assert_string_equal(env_get(env, "PIP_CACHE_DIR"), "/srv/xdg/pip");
	assert_string_equal(env_get(env, "npm_config_cache"), "/srv/npm");
	assert_int_equal(env_count(env, "npm_config_cache"), 1);
	assert_string_equal(env_get(env, "TMPDIR"), "/tmp/harn-egressd/tmp");
	/* The last value of a name, once; the caller's replaced. */
	assert_string_equal(env_get(env, "FOO"), "baz");
	assert_int_equal(env_count(env, "FOO"), 1);
	sandbox_env_free(env);

	/* --cache-dir, unconfined too; TMP follows a TMPDIR given. */
	static const char *const tmpdir[] = { "TMPDIR=/srv/t" };
	r.env_names = tmpdir;
	r.nenv_names = 1;
	r.cache_dir = "/srv/cache";
	env = sandbox_env_build(&r, 8080, NULL, err, sizeof(err));
	assert_non_null(env);
	assert_string_equal(env_get(env, "XDG_CACHE_HOME"), "/srv/cache");
	assert_string_equal(env_get(env, "GOCACHE"), "/srv/cache/go-build");
	assert_string_equal(env_get(env, "TMPDIR"), "/srv/t");
	assert_string_equal(env_get(env, "TMP"), "/srv/t");
	assert_null(env_get(env, "NPM_CONFIG_USERCONFIG"));
	sandbox_env_free(env);
	assert_int_equal(unsetenv("PIP_CACHE_DIR"), 0);
	assert_int_equal(unsetenv("FOO"), 0);
}

static void
test_env_names(void **state UNUSED)
{
	assert_true(sandbox_env_dir_var("TMPDIR", 6));
	assert_true(sandbox_env_dir_var("XDG_CACHE_HOME", 14));
	assert_true(sandbox_env_dir_var("GOMODCACHE", 10));
	assert_false(sandbox_env_dir_var("TMPDIRX", 7));
	assert_false(sandbox_env_dir_var("HOME", 4));
	assert_true(sandbox_env_reserved("NO_PROXY", 8));
	assert_true(sandbox_env_reserved("https_proxy", 11));
	assert_false(sandbox_env_reserved("TMPDIR", 6));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_make_landlock),
		cmocka_unit_test(test_orphaned),
		cmocka_unit_test(test_base_not_in_workspace),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_env_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
