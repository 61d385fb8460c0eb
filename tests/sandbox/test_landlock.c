/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_landlock: sandbox/landlock.c against a fake tree in a temp dir.
 *
 * Every probe runs in a forked child: no_new_privs, build, enforce, then
 * one operation, whose errno comes back over a pipe.  Every refusal is
 * paired with controls that must succeed: the same probe without
 * Landlock (so the target exists and is reachable) and a neighbour of the
 * denied path under the same Landlock (so the ruleset is not just
 * refusing everything).  A probe that could not notice an escape fails.
 */
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
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

#define UNUSED		__attribute__((unused))
#define MAX_RULES	4096
#define NOBODY		65534

/* The home denylist of SPEC 6.3, relative to $HOME. */
static const char *const home_deny[] = {
	".ssh", ".aws", ".gnupg", ".netrc", ".docker/config.json",
	".config/gh/hosts.yml", ".config/gcloud", ".kube/config", ".npmrc",
	".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".composer/auth.json", ".config/composer/auth.json",
	".config/git/credentials",
};
#define NHOME_DENY	(sizeof(home_deny) / sizeof(home_deny[0]))

static char	 base[256];		/* the temp tree, 0700 */
static char	 home[PATH_MAX];	/* fake $HOME */
static char	 ws[PATH_MAX];		/* workspace */
static char	 outside[PATH_MAX];	/* granted nowhere */
static char	 alias[PATH_MAX];	/* a bind mount of home, in a child */
static char	 pub[256];		/* a tree nobody may reach, or "" */
static char	*deny[NHOME_DENY];	/* home_deny under home */
static int	 abi;

/* ---------------------------------------------------------------- */
/* Paths and files. */

/* A formatted path in one of a few rotating buffers. */
static const char *P(const char *, ...) __attribute__((format(printf, 1, 2)));

static const char *
P(const char *fmt, ...)
{
	static char buf[64][PATH_MAX];
	static unsigned next;
	char *p = buf[next++ % 64];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(p, PATH_MAX, fmt, ap);
	va_end(ap);
	return p;
}

static void
mkdirs(const char *path)
{
	char buf[PATH_MAX], *s;

	(void)snprintf(buf, sizeof(buf), "%s", path);
	for (s = buf + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0755) == -1 && errno != EEXIST)
			fail_msg("mkdir %s: %s", buf, strerror(errno));
		*s = '/';
	}
	if (mkdir(buf, 0755) == -1 && errno != EEXIST)
		fail_msg("mkdir %s: %s", buf, strerror(errno));
}

/* A file with text, making its directories. */
static void
mkfile(const char *path, const char *text)
{
	char dir[PATH_MAX], *s;
	FILE *f;

	(void)snprintf(dir, sizeof(dir), "%s", path);
	if ((s = strrchr(dir, '/')) != NULL && s != dir) {
		*s = '\0';
		mkdirs(dir);
	}
	if ((f = fopen(path, "w")) == NULL)
		fail_msg("create %s: %s", path, strerror(errno));
	(void)fputs(text, f);
	if (fclose(f) != 0)
		fail_msg("write %s: %s", path, strerror(errno));
}

static void
copyfile(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	ssize_t n;
	int in, out;

	if ((in = open(from, O_RDONLY | O_CLOEXEC)) == -1 ||
	    (out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    mode)) == -1)
		fail_msg("copy %s: %s", from, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			fail_msg("copy %s: %s", to, strerror(errno));
	(void)close(in);
	if (close(out) == -1 || fchmodat(AT_FDCWD, to, mode, 0) == -1)
		fail_msg("copy %s: %s", to, strerror(errno));
}

static int
rm_one(const char *path, const struct stat *sb UNUSED, int flag,
    struct FTW *ftw UNUSED)
{
	if (flag == FTW_DP)
		(void)chmod(path, 0700);
	return remove(path) == -1 && errno != ENOENT ? -1 : 0;
}

static void
rmtree(const char *path)
{
	(void)nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---------------------------------------------------------------- */
/* Running a probe, confined or not, in a child. */

typedef int (*probe_fn)(const char *, const char *);

struct jail {
	const struct landlock_path	*grants;
	size_t				 ngrants;
	const char *const		*deny;
	size_t				 ndeny;
	unsigned			 max;
	int				(*pre)(void);	/* errno: skip */
	void				(*mid)(void);	/* built, not enforced */
	bool				 as_nobody;
	bool				 bare;		/* no Landlock */
};

struct outcome {
	bool			 built;		/* built and enforced */
	int			 skipped;	/* the pre hook's errno */
	int			 err;		/* the probe's errno, or 0 */
	struct landlock_stats	 st;
	char			 msg[512];
};

/* A probe's message for the parent (the probe runs in the child). */
static char	 probe_msg[512];

static int
become_nobody(void)
{
	if (geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) == -1 || setgid(NOBODY) == -1 ||
	    setuid(NOBODY) == -1)
		return errno;
	return 0;
}

static void __attribute__((noreturn))
child(int wfd, const struct jail *j, probe_fn fn, const char *a,
    const char *b)
{
	struct outcome o;
	int fd;

	memset(&o, 0, sizeof(o));
	if (j != NULL && j->pre != NULL && (o.skipped = j->pre()) != 0)
		goto out;
	if (j != NULL && j->as_nobody && (o.skipped = become_nobody()) != 0)
		goto out;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		(void)snprintf(o.msg, sizeof(o.msg), "nnp: %s",
		    strerror(errno));
		goto out;
	}
	if (j != NULL && !j->bare) {
		fd = sandbox_landlock_build(j->grants, j->ngrants, j->deny,
		    j->ndeny, j->max, false, &o.st, o.msg, sizeof(o.msg));
		if (fd != -1 && j->mid != NULL)
			j->mid();
		if (fd == -1 ||
		    sandbox_landlock_enforce(fd, o.msg, sizeof(o.msg)) == -1)
			goto out;
	}
	o.built = true;
	o.err = fn(a, b);
	if (probe_msg[0] != '\0')
		(void)snprintf(o.msg, sizeof(o.msg), "%s", probe_msg);
out:
	if (write(wfd, &o, sizeof(o)) != (ssize_t)sizeof(o))
		_exit(2);
	_exit(0);
}

/* Run fn(a, b) in a child, under j (NULL: not confined). */
static struct outcome
run(const struct jail *j, probe_fn fn, const char *a, const char *b)
{
	struct outcome o;
	size_t got = 0;
	ssize_t n;
	pid_t pid;
	int p[2], status;

	memset(&o, 0, sizeof(o));
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	fflush(NULL);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		(void)close(p[0]);
		child(p[1], j, fn, a, b);
	}
	(void)close(p[1]);
	while (got < sizeof(o) &&
	    (n = read(p[0], (char *)&o + got, sizeof(o) - got)) > 0)
		got += (size_t)n;
	(void)close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(got, sizeof(o));
	return o;
}

/* The probe worked under j: the jail was built and the call succeeded. */
static void
expect_ok(const struct jail *j, probe_fn fn, const char *a, const char *b)
{
	struct outcome o = run(j, fn, a, b);

	if (!o.built)
		fail_msg("%s: jail not built: %s", a, o.msg);
	if (o.err != 0)
		fail_msg("%s%s%s: %s, expected success%s", a,
		    b != NULL ? " -> " : "", b != NULL ? b : "",
		    strerror(o.err), j == NULL ? " (control)" : "");
}

/* Refused under j with errno want; and the same probe works without. */
static void
expect_refused(const struct jail *j, probe_fn fn, const char *a,
    const char *b, int want)
{
	struct outcome o;

	expect_ok(NULL, fn, a, b);		/* control */
	o = run(j, fn, a, b);
	if (!o.built)
		fail_msg("%s: jail not built: %s", a, o.msg);
	if (o.err != want)
		fail_msg("%s%s%s: %s, expected %s", a,
		    b != NULL ? " -> " : "", b != NULL ? b : "",
		    o.err == 0 ? "allowed" : strerror(o.err), strerror(want));
}

/* ---------------------------------------------------------------- */
/* Probes: 0 or errno. */

static int
p_read(const char *path, const char *unused UNUSED)
{
	char c;
	int fd, rv = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return errno;
	if (read(fd, &c, 1) == -1)
		rv = errno;
	(void)close(fd);
	return rv;
}

static int
p_list(const char *path, const char *unused UNUSED)
{
	DIR *d;

	if ((d = opendir(path)) == NULL)
		return errno;
	errno = 0;
	(void)readdir(d);
	(void)closedir(d);
	return errno;
}

static int
p_create(const char *path, const char *unused UNUSED)
{
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1)
		return errno;
	if (write(fd, "x", 1) != 1)
		return errno;
	(void)close(fd);
	return unlink(path) == -1 ? errno : 0;
}

static int
p_overwrite(const char *path, const char *unused UNUSED)
{
	int fd;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return errno;
	(void)close(fd);
	return 0;
}

static int
p_mkdir(const char *path, const char *unused UNUSED)
{
	if (mkdir(path, 0700) == -1)
		return errno;
	return rmdir(path) == -1 ? errno : 0;
}

static int
p_link(const char *from, const char *to)
{
	if (link(from, to) == -1)
		return errno;
	return unlink(to) == -1 ? errno : 0;
}

static int
p_rename(const char *from, const char *to)
{
	if (rename(from, to) == -1)
		return errno;
	return rename(to, from) == -1 ? errno : 0;
}

/* Exec path with arg; its output must be arg's text. */
static int
p_exec(const char *path, const char *arg)
{
	char out[64], want[64];
	ssize_t n;
	size_t got = 0;
	pid_t pid;
	int p[2], status, fd;

	if ((fd = open(arg, O_RDONLY | O_CLOEXEC)) == -1)
		return errno;
	n = read(fd, want, sizeof(want) - 1);
	(void)close(fd);
	if (n < 0 || pipe(p) == -1)
		return errno;
	want[n] = '\0';
	if ((pid = fork()) == -1)
		return errno;
	if (pid == 0) {
		char *const argv[] = { (char *)path, (char *)arg, NULL };

		(void)dup2(p[1], 1);
		execv(path, argv);
		_exit(errno);
	}
	(void)close(p[1]);
	while (got < sizeof(out) - 1 &&
	    (n = read(p[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	(void)close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return EIO;
	if (WEXITSTATUS(status) != 0)
		return WEXITSTATUS(status);
	return strcmp(out, want) == 0 ? 0 : EIO;
}

static int
p_kill(const char *which, const char *unused UNUSED)
{
	pid_t pid = strcmp(which, "parent") == 0 ? getppid() : getpid();

	return kill(pid, 0) == -1 ? errno : 0;
}

static int
p_abstract(const char *name, const char *unused UNUSED)
{
	struct sockaddr_un sun;
	socklen_t len;
	int s, rv = 0;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	(void)snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1, "%s",
	    name);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(name));
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return errno;
	if (connect(s, (struct sockaddr *)&sun, len) == -1)
		rv = errno;
	(void)close(s);
	return rv;
}

/* ---------------------------------------------------------------- */
/* The standard jail: workspace RW, home RO, system RX, home denylist. */

static struct landlock_path std_grants[7];

static void
std_jail(struct jail *j)
{
	static const char *const sys[] = { "/usr", "/bin", "/lib", "/lib64",
	    "/etc" };
	size_t i;

	std_grants[0].path = ws;
	std_grants[0].grant = GRANT_RW;
	std_grants[1].path = home;
	std_grants[1].grant = GRANT_RO;
	for (i = 0; i < 5; i++) {
		std_grants[2 + i].path = sys[i];
		std_grants[2 + i].grant = GRANT_RX;
	}
	memset(j, 0, sizeof(*j));
	j->grants = std_grants;
	j->ngrants = 7;
	j->deny = (const char *const *)deny;
	j->ndeny = NHOME_DENY;
	j->max = MAX_RULES;
}

static int
setup(void **state UNUSED)
{
	const char *tmp = "/tmp";
	size_t i;

	(void)snprintf(base, sizeof(base), "%s/test_landlock.XXXXXX", tmp);
	if (mkdtemp(base) == NULL)
		return -1;
	(void)snprintf(home, sizeof(home), "%s/home", base);
	(void)snprintf(ws, sizeof(ws), "%s/ws", base);
	(void)snprintf(outside, sizeof(outside), "%s/outside", base);
	(void)snprintf(alias, sizeof(alias), "%s/alias", base);
	mkdirs(ws);
	mkfile(P("%s/.ssh/id_rsa", home), "PLANTED SECRET\n");
	mkfile(P("%s/.ssh/known_hosts", home), "host key\n");
	mkfile(P("%s/.aws/credentials", home), "aws secret\n");
	mkfile(P("%s/.config/gh/hosts.yml", home), "gh token\n");
	mkfile(P("%s/.config/gh/config.yml", home), "gh config\n");
	mkfile(P("%s/.config/other/ok.txt", home), "ok\n");
	mkfile(P("%s/.config/other/secret.txt", home), "other secret\n");
	mkfile(P("%s/ok.txt", home), "ok\n");
	mkfile(P("%s/o.txt", outside), "outside\n");
	mkfile(P("%s/kube/config", outside), "kube secret\n");
	mkfile(P("%s/kube/other", outside), "kube other\n");
	mkfile(P("%s/file-only.txt", base), "ok\n");
	mkfile(P("%s/file-beside.txt", base), "beside\n");
	copyfile("/bin/cat", P("%s/cat", home), 0755);
	if (symlink("ok.txt", P("%s/link-ok", home)) == -1 ||
	    symlink(".ssh/id_rsa", P("%s/link-secret", home)) == -1 ||
	    symlink(P("%s/o.txt", outside), P("%s/link-out", home)) == -1)
		return -1;
	for (i = 0; i < NHOME_DENY; i++)
		if ((deny[i] = strdup(P("%s/%s", home, home_deny[i]))) == NULL)
			return -1;
	abi = (int)syscall(444, NULL, 0, 1U);	/* CREATE_RULESET_VERSION */
	return abi > 0 ? 0 : -1;
}

static int
teardown(void **state UNUSED)
{
	size_t i;

	for (i = 0; i < NHOME_DENY; i++)
		free(deny[i]);
	rmtree(base);
	if (pub[0] != '\0')
		rmtree(pub);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Tests. */

static void
test_abi(void **state UNUSED)
{
	struct jail j;
	struct outcome o;

	std_jail(&j);
	o = run(&j, p_read, P("%s/ok.txt", home), NULL);
	assert_true(o.built);
	print_message("Landlock ABI %d (uid %d); standard jail: %u rules, "
	    "%u grants split, %.3f ms\n", abi, (int)geteuid(), o.st.rules,
	    o.st.expanded, o.st.ms);
	assert_int_equal(o.st.abi, abi);
	assert_true(o.st.rules > 0);
	assert_true(o.st.expanded >= 3);	/* home, .config, .config/gh */
}

static void
test_denied_files(void **state UNUSED)
{
	struct jail j;

	std_jail(&j);
	expect_refused(&j, p_read, P("%s/.ssh/id_rsa", home), NULL, EACCES);
	expect_refused(&j, p_read, P("%s/.ssh/known_hosts", home), NULL,
	    EACCES);
	expect_refused(&j, p_read, P("%s/.aws/credentials", home), NULL,
	    EACCES);
	expect_refused(&j, p_read, P("%s/.config/gh/hosts.yml", home), NULL,
	    EACCES);
	/* Beside them, under the same jail. */
	expect_ok(&j, p_read, P("%s/ok.txt", home), NULL);
	expect_ok(&j, p_read, P("%s/.config/gh/config.yml", home), NULL);
}

static void
test_denied_dirs(void **state UNUSED)
{
	struct jail j;

	std_jail(&j);
	expect_refused(&j, p_list, P("%s/.ssh", home), NULL, EACCES);
	expect_refused(&j, p_list, P("%s/.aws", home), NULL, EACCES);
	expect_ok(&j, p_list, P("%s/.config/other", home), NULL);
}

/*
 * The price of granting around: a directory on the way to a denied path
 * has no rule of its own, so it cannot be listed (READ_DIR on it would
 * reach the denied directory below).  Its entries can.
 */
static void
test_way_not_listable(void **state UNUSED)
{
	struct jail j;

	std_jail(&j);
	expect_refused(&j, p_list, home, NULL, EACCES);
	expect_refused(&j, p_list, P("%s/.config", home), NULL, EACCES);
	expect_refused(&j, p_list, P("%s/.config/gh", home), NULL, EACCES);
	expect_ok(&j, p_list, P("%s/.config/other", home), NULL);
	expect_ok(&j, p_list, ws, NULL);
}

static void
test_allowed_reads(void **state UNUSED)
{
	struct jail j;

	std_jail(&j);
	expect_ok(&j, p_read, P("%s/ok.txt", home), NULL);
	expect_ok(&j, p_read, P("%s/.config/other/ok.txt", home), NULL);
	expect_ok(&j, p_read, "/etc/passwd", NULL);
	expect_refused(&j, p_read, P("%s/o.txt", outside), NULL, EACCES);
}

static void
test_write_workspace(void **state UNUSED)
{
	struct jail j;

	std_jail(&j);
	mkfile(P("%s/a", ws), "a\n");
	expect_ok(&j, p_create, P("%s/new.txt", ws), NULL);
	expect_ok(&j, p_mkdir, P("%s/newdir", ws), NULL);
	expect_ok(&j, p_overwrite, P("%s/a", ws), NULL);
	expect_ok(&j, p_link, P("%s/a", ws), P("%s/b", ws));
	expect_ok(&j, p_rename, P("%s/a", ws), P("%s/c", ws));
	/* Moving between directories needs REFER, handled and granted. */
	mkfile(P("%s/d1/f", ws), "f\n");
	mkdirs(P("%s/d2", ws));
	expect_ok(&j, p_rename, P("%s/d1/f", ws), P("%s/d2/f", ws));
	expect_ok(&j, p_link, P("%s/d1/f", ws), P("%s/d2/g", ws));
	(void)unlink(P("%s/a", ws));
}

static void
test_write_outside(void **state UNUSED)
{
	struct jail j;

	std_jail(&j);
	expect_refused(&j, p_create, P("%s/new.txt", home), NULL, EACCES);
	expect_refused(&j, p_create, P("%s/.config/other/new", home), NULL,
	    EACCES);
	expect_refused(&j, p_overwrite, P("%s/ok.txt", home), NULL, EACCES);
	expect_refused(&j, p_mkdir, P("%s/newdir", home), NULL, EACCES);
	expect_refused(&j, p_create, P("%s/new.txt", outside), NULL, EACCES);
	expect_refused(&j, p_create, P("/tmp/test_landlock.%d.probe",
	    (int)getpid()), NULL, EACCES);
	expect_ok(&j, p_create, P("%s/new.txt", ws), NULL);
}

/* A denied file cannot be carried out by a hard link or a rename. */
static void
test_no_reparenting(void **state UNUSED)
{
	struct jail j;
	struct outcome o;

	std_jail(&j);
	expect_ok(NULL, p_link, P("%s/.ssh/id_rsa", home), P("%s/x", ws));
	o = run(&j, p_link, P("%s/.ssh/id_rsa", home), P("%s/x", ws));
	assert_true(o.built);
	assert_true(o.err == EXDEV || o.err == EACCES);
	expect_ok(NULL, p_rename, P("%s/.ssh", home), P("%s/ssh", ws));
	o = run(&j, p_rename, P("%s/.ssh", home), P("%s/ssh", ws));
	assert_true(o.built);
	assert_true(o.err == EXDEV || o.err == EACCES);
}

static void
test_exec(void **state UNUSED)
{
	struct jail j;

	std_jail(&j);
	expect_ok(&j, p_exec, "/bin/cat", P("%s/ok.txt", home));
	/* Read-only is not read-execute: a copy of cat in $HOME. */
	expect_refused(&j, p_exec, P("%s/cat", home), P("%s/ok.txt", home),
	    EACCES);
}

/* Symlinks get no grant of their own: the target's path decides. */
static void
test_symlinks(void **state UNUSED)
{
	struct jail j;

	std_jail(&j);
	expect_ok(&j, p_read, P("%s/link-ok", home), NULL);
	expect_refused(&j, p_read, P("%s/link-secret", home), NULL, EACCES);
	expect_refused(&j, p_read, P("%s/link-out", home), NULL, EACCES);
}

static void
test_file_grant(void **state UNUSED)
{
	struct landlock_path g[] = {
		{ .path = P("%s/file-only.txt", base), .grant = GRANT_RO },
	};
	struct jail j = { .grants = g, .ngrants = 1, .max = MAX_RULES };
	struct outcome o;

	expect_ok(&j, p_read, g[0].path, NULL);
	expect_refused(&j, p_read, P("%s/file-beside.txt", base), NULL,
	    EACCES);
	expect_refused(&j, p_overwrite, g[0].path, NULL, EACCES);
	o = run(&j, p_read, g[0].path, NULL);
	assert_int_equal(o.st.rules, 1);
	/* A file as a RW grant gets the file rights only (no EINVAL). */
	g[0].grant = GRANT_RW;
	expect_ok(&j, p_overwrite, g[0].path, NULL);
}

static void
test_deny_is_root(void **state UNUSED)
{
	struct landlock_path g[] = { { .path = home, .grant = GRANT_RO } };
	const char *d[] = { home };
	struct jail j = { .grants = g, .ngrants = 1, .deny = d, .ndeny = 1,
	    .max = MAX_RULES };
	struct jail control = { .grants = g, .ngrants = 1, .max = MAX_RULES };
	struct outcome o;

	expect_ok(&control, p_read, P("%s/ok.txt", home), NULL);
	expect_refused(&j, p_read, P("%s/ok.txt", home), NULL, EACCES);
	expect_refused(&j, p_list, home, NULL, EACCES);
	o = run(&j, p_read, P("%s/ok.txt", home), NULL);
	assert_int_equal(o.st.rules, 0);
}

/* A grant below a denied path is no grant. */
static void
test_grant_below_deny(void **state UNUSED)
{
	struct landlock_path g[] = {
		{ .path = P("%s/.ssh", home), .grant = GRANT_RW }
	};
	struct jail j = { .grants = g, .ngrants = 1,
	    .deny = (const char *const *)deny, .ndeny = NHOME_DENY,
	    .max = MAX_RULES };
	struct jail control = { .grants = g, .ngrants = 1, .max = MAX_RULES };

	expect_ok(&control, p_read, P("%s/.ssh/id_rsa", home), NULL);
	expect_refused(&j, p_read, P("%s/.ssh/id_rsa", home), NULL, EACCES);
}

/* Several denied paths under one directory, all honoured. */
static void
test_two_denied(void **state UNUSED)
{
	struct landlock_path g[] = { { .path = home, .grant = GRANT_RO } };
	const char *d[] = { P("%s/.config/gh/hosts.yml", home),
	    P("%s/.config/other/secret.txt", home) };
	struct jail j = { .grants = g, .ngrants = 1, .deny = d, .ndeny = 2,
	    .max = MAX_RULES };

	expect_refused(&j, p_read, d[0], NULL, EACCES);
	expect_refused(&j, p_read, d[1], NULL, EACCES);
	expect_ok(&j, p_read, P("%s/.config/gh/config.yml", home), NULL);
	expect_ok(&j, p_read, P("%s/.config/other/ok.txt", home), NULL);
	/* Not denied here. */
	expect_ok(&j, p_read, P("%s/.ssh/id_rsa", home), NULL);
}

/* The denied paths of test_nonexistent_deny, made once the rules exist. */
static void
plant_late(void)
{
	mkfile(P("%s/.netrc", home), "machine x password late\n");
	mkfile(P("%s/.config/gh/new-hosts.yml", home), "oauth_token: late\n");
	mkfile(P("%s/new-beside.txt", home), "new\n");
}

static void
unplant_late(void)
{
	(void)unlink(P("%s/.netrc", home));
	(void)unlink(P("%s/.config/gh/new-hosts.yml", home));
	(void)unlink(P("%s/new-beside.txt", home));
}

/*
 * A denied path that does not exist is split around at its nearest
 * existing directory: made during the run (by the host, say), it stays
 * denied.  What was there keeps its grant; what else appears in that
 * directory gets none (Landlock cannot grant a directory without what
 * is below it).  A path that cannot exist (a file on the way) and one
 * outside every grant cost nothing.
 */
static void
test_nonexistent_deny(void **state UNUSED)
{
	struct landlock_path g[] = { { .path = home, .grant = GRANT_RO } };
	const char *d[] = { P("%s/.netrc", home), "/nonexistent/harn/x",
	    P("%s/ok.txt/below-a-file", home),
	    P("%s/.config/gh/new-hosts.yml", home) };
	struct jail j = { .grants = g, .ngrants = 1, .deny = d, .ndeny = 4,
	    .max = MAX_RULES };
	struct outcome o;

	unplant_late();
	o = run(&j, p_read, P("%s/ok.txt", home), NULL);
	assert_true(o.built);
	assert_int_equal(o.err, 0);
	assert_true(o.st.expanded >= 2);	/* home, and .config/gh */
	expect_ok(&j, p_read, P("%s/.config/gh/config.yml", home), NULL);
	j.mid = plant_late;
	o = run(&j, p_read, P("%s/.netrc", home), NULL);
	assert_true(o.built);
	assert_int_equal(o.err, EACCES);
	expect_ok(NULL, p_read, P("%s/.netrc", home), NULL);	/* control */
	unplant_late();
	o = run(&j, p_read, P("%s/.config/gh/new-hosts.yml", home), NULL);
	assert_true(o.built);
	assert_int_equal(o.err, EACCES);
	unplant_late();
	o = run(&j, p_read, P("%s/new-beside.txt", home), NULL);
	assert_true(o.built);
	assert_int_equal(o.err, EACCES);
	unplant_late();
}

/*
 * ~/.npmrc -> /dev/null denies nothing (a device is not a credential);
 * /dev/null named itself is denied.
 */
static void
test_deny_device_link(void **state UNUSED)
{
	struct landlock_path g[] = { { .path = "/dev/null", .grant = GRANT_RW } };
	const char *d[] = { P("%s/.npmrc", home) };
	struct jail j = { .grants = g, .ngrants = 1, .deny = d, .ndeny = 1,
	    .max = MAX_RULES };

	assert_int_equal(symlink("/dev/null", d[0]), 0);
	expect_ok(&j, p_overwrite, "/dev/null", NULL);
	d[0] = "/dev/null";
	expect_refused(&j, p_overwrite, "/dev/null", NULL, EACCES);
	assert_int_equal(unlink(P("%s/.npmrc", home)), 0);
}

/* A denied path reached through a symlinked directory: its target. */
static void
test_deny_through_symlink(void **state UNUSED)
{
	struct landlock_path g[] = {
		{ .path = home, .grant = GRANT_RO },
		{ .path = outside, .grant = GRANT_RO },
	};
	const char *d[] = { P("%s/.kube/config", home) };
	struct jail j = { .grants = g, .ngrants = 2, .deny = d, .ndeny = 1,
	    .max = MAX_RULES };

	assert_int_equal(symlink(P("%s/kube", outside), P("%s/.kube", home)),
	    0);
	expect_refused(&j, p_read, d[0], NULL, EACCES);
	expect_refused(&j, p_read, P("%s/kube/config", outside), NULL, EACCES);
	expect_ok(&j, p_read, P("%s/kube/other", outside), NULL);
	expect_ok(&j, p_read, P("%s/.kube/other", home), NULL);
	assert_int_equal(unlink(P("%s/.kube", home)), 0);
}

/*
 * A grant root that is a bind mount of a directory holding a denied path
 * is split too: Landlock rules follow the inode, not the path.
 */

static int
bind_alias(void)
{
	if (unshare(CLONE_NEWNS) == -1 &&
	    unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
		return errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount(home, alias, NULL, MS_BIND, NULL) == -1)
		return errno;
	return 0;
}

/* home, bound again below itself: an entry of a directory being split. */
static int
bind_mirror(void)
{
	if (unshare(CLONE_NEWNS) == -1 &&
	    unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
		return errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount(home, P("%s/mirror", home), NULL, MS_BIND, NULL) == -1)
		return errno;
	return 0;
}

static void
test_bind_alias(void **state UNUSED)
{
	struct landlock_path g[] = { { .path = alias, .grant = GRANT_RO } };
	const char *d[] = { P("%s/.ssh", home) };
	struct jail j = { .grants = g, .ngrants = 1, .deny = d, .ndeny = 1,
	    .max = MAX_RULES, .pre = bind_alias };
	struct jail control = { .grants = g, .ngrants = 1, .max = MAX_RULES,
	    .pre = bind_alias };
	struct outcome o;

	mkdirs(alias);
	o = run(&control, p_read, P("%s/.ssh/id_rsa", alias), NULL);
	if (o.skipped != 0) {
		print_message("bind mount alias: skipped, no mount namespace "
		    "(%s)\n", strerror(o.skipped));
		skip();
	}
	assert_true(o.built);
	assert_int_equal(o.err, 0);	/* control: the alias reaches it */
	o = run(&j, p_read, P("%s/.ssh/id_rsa", alias), NULL);
	assert_true(o.built);
	assert_int_equal(o.err, EACCES);
	o = run(&j, p_read, P("%s/ok.txt", alias), NULL);
	assert_true(o.built);
	assert_int_equal(o.err, 0);

	/*
	 * The alias as an entry of a split directory: granting it would put
	 * a rule on home's own inode, and so on home/.ssh by every path.
	 */
	g[0].path = home;
	j.pre = control.pre = bind_mirror;
	mkdirs(P("%s/mirror", home));
	o = run(&control, p_read, P("%s/mirror/.ssh/id_rsa", home), NULL);
	assert_true(o.built);
	assert_int_equal(o.err, 0);
	o = run(&j, p_read, P("%s/mirror/.ssh/id_rsa", home), NULL);
	assert_true(o.built);
	assert_int_equal(o.err, EACCES);
	o = run(&j, p_read, P("%s/.ssh/id_rsa", home), NULL);
	assert_true(o.built);
	assert_int_equal(o.err, EACCES);
	o = run(&j, p_read, P("%s/ok.txt", home), NULL);
	assert_true(o.built);
	assert_int_equal(o.err, 0);
	assert_int_equal(rmdir(P("%s/mirror", home)), 0);
}

static void
test_scoped(void **state UNUSED)
{
	struct sockaddr_un sun;
	struct jail j;
	char name[64];
	socklen_t len;
	int s;

	if (abi < 6) {
		print_message("scopes: skipped, ABI %d < 6\n", abi);
		skip();
	}
	std_jail(&j);
	expect_refused(&j, p_kill, "parent", NULL, EPERM);
	expect_ok(&j, p_kill, "self", NULL);

	(void)snprintf(name, sizeof(name), "harn-test-landlock-%d",
	    (int)getpid());
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name, strlen(name));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(name));
	assert_true((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) != -1);
	assert_int_equal(bind(s, (struct sockaddr *)&sun, len), 0);
	assert_int_equal(listen(s, 8), 0);
	expect_refused(&j, p_abstract, name, NULL, EPERM);
	(void)close(s);
}

/* The denylist entries that are directories. */
static bool
deny_is_dir(const char *rel)
{
	return strcmp(rel, ".ssh") == 0 || strcmp(rel, ".aws") == 0 ||
	    strcmp(rel, ".gnupg") == 0 || strcmp(rel, ".config/gcloud") == 0;
}

/* A fake home of about 200 entries with the whole denylist present. */
static void
make_big_home(const char *h)
{
	size_t i;

	for (i = 0; i < 150; i++)
		mkfile(P("%s/file%03zu.txt", h, i), "f\n");
	for (i = 0; i < 30; i++)
		mkfile(P("%s/dir%02zu/x", h, i), "x\n");
	for (i = 0; i < 12; i++)
		mkfile(P("%s/.dot%02zu", h, i), "d\n");
	for (i = 0; i < 20; i++)
		mkfile(P("%s/.config/app%02zu/x", h, i), "x\n");
	for (i = 0; i < NHOME_DENY; i++)
		if (deny_is_dir(home_deny[i]))
			mkfile(P("%s/%s/secret", h, home_deny[i]), "s\n");
		else
			mkfile(P("%s/%s", h, home_deny[i]), "secret\n");
	mkfile(P("%s/.docker/other.json", h), "x\n");
	mkfile(P("%s/.kube/cache/x", h), "x\n");
	mkfile(P("%s/.cargo/bin/x", h), "x\n");
	mkfile(P("%s/.cargo/registry/x", h), "x\n");
	mkfile(P("%s/.composer/cache/x", h), "x\n");
	mkfile(P("%s/.config/git/config", h), "x\n");
}

static void
big_jail(const char *h, struct landlock_path *g, char **d, struct jail *j)
{
	size_t i;

	memset(g, 0, sizeof(*g));
	g[0].path = h;
	g[0].grant = GRANT_RO;
	for (i = 0; i < NHOME_DENY; i++)
		d[i] = strdup(P("%s/%s", h, home_deny[i]));
	memset(j, 0, sizeof(*j));
	j->grants = g;
	j->ngrants = 1;
	j->deny = (const char *const *)d;
	j->ndeny = NHOME_DENY;
	j->max = MAX_RULES;
}

static void
test_cost(void **state UNUSED)
{
	struct landlock_path g[1];
	struct landlock_stats st;
	struct jail j;
	char *d[NHOME_DENY], err[512], h[PATH_MAX];
	double sum = 0, min = 1e9, max = 0;
	size_t i, entries = 0;
	DIR *dir;
	int fd, runs = 20;

	(void)snprintf(h, sizeof(h), "%s/bighome", base);
	make_big_home(h);
	assert_non_null(dir = opendir(h));
	while (readdir(dir) != NULL)
		entries++;
	(void)closedir(dir);
	big_jail(h, g, d, &j);
	for (i = 0; i < (size_t)runs; i++) {
		fd = sandbox_landlock_build(g, 1, j.deny, j.ndeny, MAX_RULES,
		    false,
		    &st, err, sizeof(err));
		if (fd == -1)
			fail_msg("build: %s", err);
		(void)close(fd);
		sum += st.ms;
		min = st.ms < min ? st.ms : min;
		max = st.ms > max ? st.ms : max;
	}
	print_message("realistic home (%zu top-level entries, %zu denied "
	    "paths): %u rules, %u grants split, build %.3f ms mean, %.3f min,"
	    " %.3f max over %d runs\n", entries - 2, NHOME_DENY, st.rules,
	    st.expanded, sum / runs, min, max, runs);
	/* And it holds: every denied path refused, a neighbour readable. */
	for (i = 0; i < NHOME_DENY; i++) {
		if (deny_is_dir(home_deny[i]))
			expect_refused(&j, p_read, P("%s/secret", d[i]), NULL,
			    EACCES);
		else
			expect_refused(&j, p_read, d[i], NULL, EACCES);
	}
	expect_ok(&j, p_read, P("%s/file042.txt", h), NULL);
	expect_ok(&j, p_read, P("%s/.docker/other.json", h), NULL);
	expect_ok(&j, p_read, P("%s/.cargo/bin/x", h), NULL);
	expect_ok(&j, p_read, P("%s/.config/git/config", h), NULL);
	for (i = 0; i < NHOME_DENY; i++)
		free(d[i]);
}

static void
test_max_rules(void **state UNUSED)
{
	struct landlock_path g[1];
	struct jail j;
	char *d[NHOME_DENY], err[512], h[PATH_MAX];
	size_t i;
	int fd;

	(void)snprintf(h, sizeof(h), "%s/bighome", base);
	make_big_home(h);
	big_jail(h, g, d, &j);
	memset(err, 0, sizeof(err));
	fd = sandbox_landlock_build(g, 1, j.deny, j.ndeny, 50, false, NULL, err,
	    sizeof(err));
	assert_int_equal(fd, -1);
	print_message("max_rules 50: %s\n", err);
	assert_non_null(strstr(err, h));
	assert_non_null(strstr(err, "too many"));
	/* Control: the same with room builds. */
	fd = sandbox_landlock_build(g, 1, j.deny, j.ndeny, MAX_RULES, false,
	    NULL,
	    err, sizeof(err));
	assert_true(fd >= 0);
	(void)close(fd);
	for (i = 0; i < NHOME_DENY; i++)
		free(d[i]);
}

/*
 * A directory on the way to a denied path that we may not list: the
 * build fails, never grants wider.  Root can list anything, so root runs
 * the build as nobody over a tree nobody can reach; another user is
 * refused its own mode 000 directory already.
 */
static int
p_build(const char *h, const char *denied)
{
	struct landlock_path g[] = { { .path = h, .grant = GRANT_RO } };
	const char *d[] = { denied };
	int fd;

	fd = sandbox_landlock_build(g, 1, d, 1, MAX_RULES, false, NULL,
	    probe_msg,
	    sizeof(probe_msg));
	if (fd == -1)
		return EACCES;
	(void)close(fd);
	return 0;
}

static const struct jail nobody = { .as_nobody = true, .bare = true };

static void
unlistable(const char *h, mode_t mode, const char *want)
{
	const char *cfg = P("%s/.config", h);
	const char *d = P("%s/.config/gh/hosts.yml", h);
	struct outcome o;

	/* Control: reachable, the build works. */
	o = run(&nobody, p_build, h, d);
	assert_true(o.skipped == 0 && o.built);
	if (o.err != 0)
		fail_msg("control build as nobody: %s", o.msg);
	assert_int_equal(chmod(cfg, mode), 0);
	/* Control: the probe can notice; this user really cannot list. */
	o = run(&nobody, p_list, cfg, NULL);
	if (o.err == 0) {
		(void)chmod(cfg, 0755);
		print_message("unlistable: skipped, this user can list a "
		    "mode %03o directory\n", (unsigned)mode);
		skip();
	}
	o = run(&nobody, p_build, h, d);
	assert_int_equal(chmod(cfg, 0755), 0);
	print_message("mode %03o on %s: %s\n", (unsigned)mode, cfg, o.msg);
	assert_int_equal(o.err, EACCES);
	assert_non_null(strstr(o.msg, want));
	assert_non_null(strstr(o.msg, "Permission denied"));
}

static void
test_unlistable(void **state UNUSED)
{
	const char *h;
	struct outcome o;
	bool root = geteuid() == 0;

	(void)snprintf(pub, sizeof(pub), "/tmp/test_landlock_pub.XXXXXX");
	assert_non_null(mkdtemp(pub));
	assert_int_equal(chmod(pub, 0755), 0);
	h = P("%s/home", pub);
	mkfile(P("%s/.config/gh/hosts.yml", h), "gh token\n");
	mkfile(P("%s/.config/gh/config.yml", h), "x\n");
	mkfile(P("%s/ok.txt", h), "ok\n");
	mkfile(P("%s/.ssh/id_rsa", h), "key\n");
	print_message("unlistable: building as uid %d\n",
	    root ? NOBODY : (int)geteuid());
	/* No search: the denied path cannot even be resolved. */
	unlistable(h, root ? 0700 : 0000, "hosts.yml");
	/* Search but no read: resolved, but its directory cannot be split. */
	unlistable(h, root ? 0711 : 0100, "/.config: cannot list");
	/* A denied directory that cannot be entered costs nothing. */
	assert_int_equal(chmod(P("%s/.ssh", h), root ? 0700 : 0), 0);
	o = run(&nobody, p_build, h, P("%s/.ssh", h));
	assert_int_equal(chmod(P("%s/.ssh", h), 0755), 0);
	if (o.err != 0)
		fail_msg("unreadable denied dir: %s", o.msg);
}

static void
test_bad_args(void **state UNUSED)
{
	struct landlock_path g[] = { { .path = "relative/path", .grant = GRANT_RO } };
	const char *d[] = { "relative" };
	char err[256];

	assert_int_equal(sandbox_landlock_build(g, 1, NULL, 0, MAX_RULES, false,
	    NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not absolute"));
	g[0].path = home;
	assert_int_equal(sandbox_landlock_build(g, 1, d, 1, MAX_RULES, false,
	    NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not absolute"));
	assert_int_equal(sandbox_landlock_enforce(-1, err, sizeof(err)), -1);
}

/* Without no_new_privs (nor CAP_SYS_ADMIN): enforce says why. */
static void
test_enforce_needs_nnp(void **state UNUSED)
{
	struct landlock_path g[] = { { .path = "/usr", .grant = GRANT_RO } };
	char err[256];
	pid_t pid;
	int fd, status, p[2];

	assert_int_equal(pipe(p), 0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		int rv = 0;

		(void)close(p[0]);
		if (become_nobody() != 0)
			_exit(3);
		fd = sandbox_landlock_build(g, 1, NULL, 0, MAX_RULES, false,
		    NULL,
		    err, sizeof(err));
		if (fd == -1)
			_exit(4);
		if (sandbox_landlock_enforce(fd, err, sizeof(err)) == 0)
			rv = 1;
		if (write(p[1], err, strlen(err)) == -1)
			rv = 5;
		_exit(rv);
	}
	(void)close(p[1]);
	memset(err, 0, sizeof(err));
	if (read(p[0], err, sizeof(err) - 1) == -1)
		err[0] = '\0';
	(void)close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	print_message("enforce without no_new_privs: %s\n", err);
	assert_non_null(strstr(err, "no_new_privs"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abi),
		cmocka_unit_test(test_denied_files),
		cmocka_unit_test(test_denied_dirs),
		cmocka_unit_test(test_way_not_listable),
		cmocka_unit_test(test_allowed_reads),
		cmocka_unit_test(test_write_workspace),
		cmocka_unit_test(test_write_outside),
		cmocka_unit_test(test_no_reparenting),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_symlinks),
		cmocka_unit_test(test_file_grant),
		cmocka_unit_test(test_deny_is_root),
		cmocka_unit_test(test_grant_below_deny),
		cmocka_unit_test(test_two_denied),
		cmocka_unit_test(test_nonexistent_deny),
		cmocka_unit_test(test_deny_through_symlink),
		cmocka_unit_test(test_deny_device_link),
		cmocka_unit_test(test_bind_alias),
		cmocka_unit_test(test_scoped),
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_max_rules),
		cmocka_unit_test(test_unlistable),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_enforce_needs_nnp),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
