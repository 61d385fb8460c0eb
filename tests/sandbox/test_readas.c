/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_readas: reading a file as the command could have (sandbox/readas.c,
 * SPEC 7.1's subjects).
 *
 *   - sandbox_subject_root: the root a path lies beneath, only when a
 *     writable one holds it;
 *   - sandbox_subject_ident: whose rights, by confinement and identity;
 *   - sandbox_helper: the child's answer, its rights (the uid asked for,
 *     no capability: a root-only file is not readable by uid 0 without
 *     CAP_DAC_OVERRIDE), the descriptors it holds, and that a child making
 *     no progress is ended within its bound while one that ticks is not.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include <cmocka.h>

#include "sandbox/internal.h"

#define UNUSED	__attribute__((unused))

static void
subject_root(void **state UNUSED)
{
	static const char *const rw[] = { "/srv/out", "/home/u/proj/cache" };
	static const char *const ro[] = { "/home/u/proj/vendor", "/opt/sdk" };
	const struct sandbox_request r = {
		.workspace = "/home/u/proj",
		.rw_roots = rw, .nrw_roots = 2,
		.ro_roots = ro, .nro_roots = 2,
	};
	static const struct {
		const char	*path, *want;
	} rows[] = {
		{ "/home/u/proj/dist/app.bin", "/home/u/proj" },
		{ "/home/u/proj", "/home/u/proj" },
		{ "/home/u/proj/cache/x", "/home/u/proj/cache" },
		{ "/srv/out/a/b", "/srv/out" },
		/* A read-only root inside the workspace: its own owner. */
		{ "/home/u/proj/vendor/lib.a", "/home/u/proj/vendor" },
		/* Read-only only, or nowhere: not the command's output. */
		{ "/opt/sdk/bin/cc", NULL },
		{ "/home/u/project2/x", NULL },
		{ "/home/u/pro", NULL },
		{ "/etc/shadow", NULL },
		{ "relative/path", NULL },
	};
	const char *got;
	size_t i;

	for (i = 0; i < NELEM(rows); i++) {
		got = sandbox_subject_root(&r, rows[i].path);
		if ((got == NULL) != (rows[i].want == NULL) ||
		    (got != NULL && strcmp(got, rows[i].want) != 0))
			fail_msg("%s: root %s, want %s", rows[i].path,
			    got ? got : "none", rows[i].want ? rows[i].want :
			    "none");
	}
}

static void
subject_ident(void **state UNUSED)
{
	static const struct {
		enum sandbox_confinement c;
		enum sandbox_identity	 id;
		bool			 refused;
		bool			 change, groups;
		uid_t			 uid;
		gid_t			 gid;
	} rows[] = {
		/* A caller that is not root: its own rights. */
		{ CONFINEMENT_NAMESPACES, IDENTITY_CALLER, false, false, true,
		  0, 0 },
		{ CONFINEMENT_LANDLOCK, IDENTITY_CALLER, false, false, true,
		  0, 0 },
		/* No confinement or nothing ran: ours, still no capability. */
		{ CONFINEMENT_NONE, IDENTITY_CALLER, false, false, true, 0, 0 },
		{ CONFINEMENT_LANDLOCK, IDENTITY_ROOT, true, false, true, 0, 0 },
		/* A root caller's: the idmapped root's owner, SANDBOX_UID. */
		{ CONFINEMENT_NAMESPACES, IDENTITY_SANDBOX_UID, false, true,
		  false, 1000, 1001 },
		{ CONFINEMENT_LANDLOCK, IDENTITY_SANDBOX_UID, false, true, false,
		  SANDBOX_UID, SANDBOX_GID },
		/* uid 0 kept: no groups, our gid. */
		{ CONFINEMENT_LANDLOCK, IDENTITY_ROOT, false, true, false, 0,
		  42 },
	};
	struct sandbox_plan p;
	struct sandbox_ident id;
	struct stat root;
	size_t i;

	memset(&root, 0, sizeof(root));
	root.st_uid = 1000;
	root.st_gid = 1001;
	for (i = 0; i < NELEM(rows); i++) {
		memset(&p, 0, sizeof(p));
		p.confinement = rows[i].c;
		p.identity = rows[i].id;
		p.refused = rows[i].refused;
		sandbox_subject_ident(&p, &root, 42, &id);
		if (id.change != rows[i].change ||
		    id.groups != rows[i].groups || (id.change &&
		    (id.uid != rows[i].uid || id.gid != rows[i].gid)))
			fail_msg("row %zu: change %d groups %d uid %u gid %u", i,
			    id.change, id.groups, id.uid, id.gid);
	}
}

/* What the child reports of itself. */
struct self {
	uid_t		 uid, euid;
	gid_t		 gid;
	int		 ngroups;
	uint32_t	 caps;
	int		 open_err;	/* opening the probe file */
	int		 other_fd;	/* fcntl of a descriptor not kept */
	int		 keep_fd;	/* fcntl of the one kept */
};

static int probe_keep = -1, probe_other = -1;
static char probe_path[64];

static void
report_self(void *arg UNUSED, struct sandbox_tick *t UNUSED, void *out,
    size_t len)
{
	struct __user_cap_header_struct hdr = {
	    _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	struct self s;
	int fd;

	memset(&s, 0, sizeof(s));
	s.uid = getuid();
	s.euid = geteuid();
	s.gid = getgid();
	s.ngroups = getgroups(0, NULL);
	if (syscall(SYS_capget, &hdr, data) == 0)
		s.caps = data[0].effective | data[1].effective |
		    data[0].permitted | data[1].permitted;
	fd = open(probe_path, O_RDONLY);
	s.open_err = fd == -1 ? errno : 0;
	if (fd != -1)
		(void)close(fd);
	s.other_fd = fcntl(probe_other, F_GETFD);
	s.keep_fd = fcntl(probe_keep, F_GETFD);
	memcpy(out, &s, len);
}

static int
run_self(const struct sandbox_ident *id, struct self *s)
{
	return sandbox_helper(id, probe_keep, report_self, NULL, s,
	    sizeof(*s), 5000);
}

static void
helper_rights(void **state UNUSED)
{
	struct sandbox_ident id = { .change = false, .groups = true };
	struct self s;
	int fd;

	snprintf(probe_path, sizeof(probe_path), "/tmp/test_readas.%ld",
	    (long)getpid());
	assert_true((fd = open(probe_path, O_CREAT | O_WRONLY | O_TRUNC,
	    0600)) >= 0);
	(void)close(fd);
	/* Mode 0: only a capability (CAP_DAC_OVERRIDE) reads it. */
	assert_int_equal(chmod(probe_path, 0), 0);
	probe_keep = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	probe_other = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(probe_keep >= 0 && probe_other >= 0);
	/* Our own uid: every capability gone all the same. */
	assert_int_equal(run_self(&id, &s), 0);
	assert_int_equal(s.uid, getuid());
	assert_int_equal(s.caps, 0);
	assert_int_equal(s.open_err, EACCES);	/* mode 0, not even root */
	assert_true(s.keep_fd >= 0);
	assert_int_equal(s.other_fd, -1);
	/* NULL: ours, as they are (root still reads it). */
	assert_int_equal(run_self(NULL, &s), 0);
	assert_int_equal(s.open_err, geteuid() == 0 ? 0 : EACCES);
	if (geteuid() == 0) {
		id.change = true;
		id.groups = false;
		id.uid = SANDBOX_UID;
		id.gid = SANDBOX_GID;
		assert_int_equal(run_self(&id, &s), 0);
		assert_int_equal(s.uid, SANDBOX_UID);
		assert_int_equal(s.euid, SANDBOX_UID);
		assert_int_equal(s.gid, SANDBOX_GID);
		assert_int_equal(s.ngroups, 0);
		assert_int_equal(s.caps, 0);
		assert_int_equal(s.open_err, EACCES);
		/* uid 0 kept: its groups dropped, no capability. */
		id.uid = 0;
		id.gid = getgid();
		assert_int_equal(run_self(&id, &s), 0);
		assert_int_equal(s.uid, 0);
		assert_int_equal(s.ngroups, 0);
		assert_int_equal(s.caps, 0);
		assert_int_equal(s.open_err, EACCES);
	}
	(void)close(probe_keep);
	(void)close(probe_other);
	(void)unlink(probe_path);
}

static int64_t
ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
hang(void *arg UNUSED, struct sandbox_tick *t UNUSED, void *out UNUSED,
    size_t len UNUSED)
{
	for (;;)
		pause();
}

/* Slow, but showing progress: 1.2 s of work, a tick each 50 ms. */
static void
slow(void *arg UNUSED, struct sandbox_tick *t, void *out, size_t len)
{
	int i;

	for (i = 0; i < 24; i++) {
		usleep(50000);
		sandbox_tick(t);
	}
	memset(out, 'k', len);
}

static void
die(void *arg UNUSED, struct sandbox_tick *t UNUSED, void *out UNUSED,
    size_t len UNUSED)
{
	_exit(7);
}

static void
helper_bounds(void **state UNUSED)
{
	char out[8];
	int64_t t0;

	t0 = ms_now();
	errno = 0;
	assert_int_equal(sandbox_helper(NULL, -1, hang, NULL, out,
	    sizeof(out), 300), -1);
	assert_int_equal(errno, ETIMEDOUT);
	assert_true(ms_now() - t0 < 3000);
	/* Reaped: no child of ours is left. */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(sandbox_helper(NULL, -1, slow, NULL, out,
	    sizeof(out), 300), 0);
	assert_memory_equal(out, "kkkkkkkk", 8);
	assert_int_equal(sandbox_helper(NULL, -1, die, NULL, out,
	    sizeof(out), 300), -1);
	assert_int_equal(errno, ECHILD);
	/* An answer larger than the channel carries. */
	assert_int_equal(sandbox_helper(NULL, -1, slow, NULL, NULL, 4096,
	    300), -1);
	assert_int_equal(errno, EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(subject_root),
		cmocka_unit_test(subject_ident),
		cmocka_unit_test(helper_rights),
		cmocka_unit_test(helper_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
