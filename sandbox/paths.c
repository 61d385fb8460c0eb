/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sandbox's filesystem policy (SPEC 6.3): which paths the command
 * may read, write and execute, which it never may, and which are mounted
 * for it in the namespaces confinement.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

/* Credential paths under $HOME that no grant reaches (SPEC 6.3). */
const char *const sandbox_home_denylist[] = {
	".ssh", ".aws", ".gnupg", ".netrc", ".docker/config.json",
	".config/gh/hosts.yml", ".config/gcloud", ".kube/config", ".npmrc",
	".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".composer/auth.json", ".config/composer/auth.json",
	".config/git/credentials", ".git-credentials", ".azure",
	".config/hub", ".password-store", ".vault-token",
	".terraform.d/credentials.tfrc.json", ".gem/credentials",
	".m2/settings-security.xml", ".gradle/gradle.properties", ".pgpass",
	".my.cnf", ".s3cfg", ".boto", ".config/rclone", ".local/share/keyrings",
	".config/op", ".dockercfg", ".config/google-chrome",
	".config/chromium", ".mozilla",
	/* Sockets of container engines kept in $HOME (docker.sock). */
	".docker", ".colima", ".lima", ".rd", NULL
};

/* Read-execute for the system. */
const char *const system_roots[] = {
	"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/usr",
	"/etc", "/opt", "/proc", "/sys", NULL
};

/*
 * A command that keeps uid 0 (rootonly.c) gets of /sys only what
 * programs read to size themselves: CPUs and NUMA nodes, their cgroup's
 * limits, the kernel's memory settings.  The rest (firmware tables, slab
 * and debug files, many only root may read) is too much to split.
 */
static const char *const sys_for_root[] = {
	"/sys/devices/system/cpu", "/sys/devices/system/node",
	"/sys/fs/cgroup", "/sys/kernel/mm", NULL
};

/* Devices every command may use. */
const char *const device_files[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", NULL
};

/*
 * The namespaces confinement's own terminals (its own, empty directories
 * are nsbinds.c's): a private devpts, never the host's /dev/pts.
 */
static const char *const private_devices[] = {
	"/dev/pts", "/dev/ptmx", NULL
};

static bool
under_private(const char *path)
{
	size_t i;

	for (i = 0; sandbox_private_dirs[i] != NULL; i++)
		if (path_under(path, sandbox_private_dirs[i]))
			return true;
	return false;
}

struct build {
	struct sandbox_paths	*p;
	const struct sandbox_request *r;
	size_t			 cap_grants, cap_binds, cap_inside;
	bool			 ns, root;
	bool			 root_kept;	/* the command keeps uid 0 */
	bool			 home_private;	/* $HOME leads into /tmp, say */
	char			*err;
	size_t			 errlen;
};

static int
add_grant(struct build *b, struct landlock_path **vp, size_t *np,
    size_t *capp, const char *path, enum landlock_grant how)
{
	struct landlock_path *v;
	char *copy;

	if (*np == *capp) {
		*capp = *capp ? *capp * 2 : 32;
		if ((v = reallocarray(*vp, *capp, sizeof(*v))) == NULL)
			return -1;
		*vp = v;
	}
	if ((copy = strdup(path)) == NULL ||
	    strv_add(&b->p->owned, copy) == -1)
		return -1;
	memset(&(*vp)[*np], 0, sizeof((*vp)[*np]));
	(*vp)[*np].path = copy;
	(*vp)[*np].grant = how;
	(*np)++;
	return 0;
}

static int
grant(struct build *b, const char *path, enum landlock_grant how)
{
	struct stat st;

	if (stat(path, &st) == -1)	/* absent system root: no grant */
		return 0;
	return add_grant(b, &b->p->grants, &b->p->ngrants, &b->cap_grants,
	    path, how);
}

/* A grant of the namespaces confinement's own (see sandbox_paths). */
static int
grant_inside(struct build *b, const char *path, enum landlock_grant how)
{
	struct stat st;

	if (stat(path, &st) == -1)
		return 0;
	return add_grant(b, &b->p->inside, &b->p->ninside, &b->cap_inside,
	    path, how);
}

/*
 * A writable root that is, or holds, a system directory would make the
 * command the owner of the system (a root caller's command owns what the
 * idmapped root holds): never a workspace.  Nor may it reach into the
 * package manager's state, whose lists, archives and maintainer scripts
 * root's apt and dpkg trust later.
 */
static const char *const package_state[] = {
	"/var/lib/dpkg", "/var/lib/apt", "/var/cache/apt", NULL
};

int
sandbox_writable_root_ok(const char *path, char *err, size_t errlen)
{
	static const char *const system[] = { "/boot", "/dev", "/proc",
	    "/sys", NULL };
	const char *const *lists[] = { system_roots, system };
	size_t i, k;

	for (k = 0; k < NELEM(lists); k++)
		for (i = 0; lists[k][i] != NULL; i++)
			if (path_under(lists[k][i], path)) {
				snprintf(err, errlen, "%s is or holds %s, a system "
				    "directory: the command would own it", path,
				    lists[k][i]);
				return -1;
			}
	for (i = 0; package_state[i] != NULL; i++)
		if (path_under(package_state[i], path) ||
		    path_under(path, package_state[i])) {
			snprintf(err, errlen, "%s is, holds or lies in %s, "
			    "the package manager's state: root's apt and dpkg "
			    "would trust and run what the command writes there "
			    "(give apt its own state in the workspace instead; "
			    "see apt-get in harn-egressd(8))", path,
			    package_state[i]);
			return -1;
		}
	return 0;
}

/*
 * The home directory of a user, canonical; NULL when there is none (or
 * it is /).
 */
static char *
home_of(uid_t uid)
{
	struct passwd *pw;

	if ((pw = getpwuid(uid)) == NULL || pw->pw_dir == NULL ||
	    pw->pw_dir[0] != '/' || strcmp(pw->pw_dir, "/") == 0)
		return NULL;
	return path_real(pw->pw_dir);
}

int
sandbox_home_root_ok(const char *path, char *err, size_t errlen)
{
	const char *sudo = getenv("SUDO_UID");
	uid_t uids[2] = { getuid(), getuid() };
	struct fs_id root = { 0, NULL }, hid;
	char *home;
	size_t i;
	int rv = 0;

	/* Under sudo, the home of the user it ran us for as well. */
	if (getuid() == 0 && sudo != NULL && sudo[0] != '\0' &&
	    strspn(sudo, "0123456789") == strlen(sudo))
		uids[1] = (uid_t)strtoul(sudo, NULL, 10);
	(void)fsid_of_path(path, &root);
	for (i = 0; i < NELEM(uids) && rv == 0; i++) {
		if ((home = home_of(uids[i])) == NULL)
			continue;
		/* By name, or by identity: the home mounted at a second path. */
		hid.path = NULL;
		if (path_under(home, path) || (root.path != NULL &&
		    fsid_of_path(home, &hid) == 0 && fsid_under(&hid, &root))) {
			snprintf(err, errlen, "%s is or holds the home "
			    "directory %s: the command could change the "
			    "shell's start-up files and tools' settings there, "
			    "which run unconfined later; run from a project "
			    "directory, or give --workspace DIR", path, home);
			rv = -1;
		}
		fsid_free(&hid);
		free(home);
	}
	fsid_free(&root);
	return rv;
}

/*
 * A root, canonical when it was checked: still reached without a link,
 * and which directory it is.  A command running now (another run's,
 * whose workspace holds it) could have swapped it for a link since.
 * 1 with st, 0 when absent (no grant), -1.
 */
static int
root_pin(struct build *b, const char *path, struct stat *st)
{
	char now[PATH_MAX];
	int fd, known;

	if ((fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return 0;
	known = fd_path(fd, now, sizeof(now)) == 0;
	if (!known || strcmp(now, path) != 0 || fstat(fd, st) == -1) {
		snprintf(b->err, b->errlen, "%s: no longer the directory that "
		    "was checked (%s): a symlink put there since?", path,
		    known ? now : strerror(errno));
		(void)close(fd);
		return -1;
	}
	(void)close(fd);
	return 1;
}

/*
 * A root of the command's own: granted by Landlock and, in the
 * namespaces confinement, bind-mounted at its own path (read-only when
 * it is; for a root caller a writable one, or one inside it, idmapped,
 * so that the command, which runs as SANDBOX_UID, is its owner without
 * any owner changing on disk: nsbinds.c).
 */
static int
root_grant(struct build *b, const char *path, enum landlock_grant how)
{
	struct stat st;
	int rv;

	if ((rv = root_pin(b, path, &st)) != 1)
		return rv;
	if (add_grant(b, &b->p->grants, &b->p->ngrants, &b->cap_grants,
	    path, how) == -1)
		return -1;
	/* Set up later by path: it must still be this directory then. */
	b->p->grants[b->p->ngrants - 1].dev = st.st_dev;
	b->p->grants[b->p->ngrants - 1].ino = st.st_ino;
	if (!b->ns)
		return 0;
	return nsb_add(b->p, &b->cap_binds, path, how != GRANT_RW, b->root &&
	    (how == GRANT_RW || reach_writable(b->r, path)), &st);
}

static int
socket_root(struct build *b, const char *path)
{
	struct sandbox_paths *p = b->p;
	struct stat st;
	size_t i;

	if (strv_add(&p->sockroots, strdup(path)) == -1)
		return -1;
	/* Under a private directory it would be hidden: mounted back. */
	if (!b->ns || !under_private(path) || stat(path, &st) == -1)
		return 0;
	for (i = 0; i < p->nbinds; i++)
		if (path_under(path, p->binds[i].path))
			return 0;
	return nsb_add(p, &b->cap_binds, path, true, false, &st);
}


/*
 * A denied path the command cannot reach at all needs no denial: in the
 * namespaces confinement, one under a private directory (/tmp) that no
 * root is mounted back over is not there, and what the command makes at
 * that path is its own.  Denying it would only split the private
 * directory (see landlock.c) for nothing.
 */
static bool
is_link(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static bool
unreachable(const struct build *b, const char *path)
{
	const struct sandbox_paths *p = b->p;
	struct stat st;
	char *c;
	bool out;
	size_t i;

	if (!b->ns)
		return false;
	/*
	 * Looked at closely only where it may lead into a private
	 * directory: there as written, or through a symlink of its own.
	 * (A symlink higher up is missed: the path is then kept, which
	 * costs the private directory's new files, never a denial.)
	 */
	if (!under_private(path) && (lstat(path, &st) == -1 ||
	    !S_ISLNK(st.st_mode)) && !b->home_private)
		return false;
	if ((c = path_canonical(path)) == NULL)
		return false;
	out = under_private(c);
	for (i = 0; out && i < p->nbinds; i++)
		if (path_under(c, p->binds[i].path) && !p->binds[i].skel &&
		    !(p->binds[i].ro && sandbox_holds_private(p->binds[i].path)))
			out = false;
	free(c);
	return out;
}

/*
 * The denied paths the inside grants (the private directories, /proc)
 * must be split around: those that lead below one of them, but for those
 * a skeleton hides (nsbinds.c).  Found here, once, so that the command,
 * which adds the inside grants, resolves no other.
 */
static int
deny_inside(struct build *b, const char *path)
{
	struct sandbox_paths *p = b->p;
	char *c;
	size_t i;
	bool in = false;

	if (!b->ns || (c = path_canonical(path)) == NULL)
		return 0;
	for (i = 0; !in && i < p->ninside; i++)
		in = path_under(c, p->inside[i].path);
	if (!in) {
		free(c);
		return 0;
	}
	/* Split, a private directory's own new files could not be read. */
	switch (nsb_deny_how(p, c)) {
	case NSB_SPLIT:
		free(c);
		return strv_add(&p->deny_inside, strdup(path));
	case NSB_HIDE:
		return strv_add(&p->hide, c);
	case NSB_GONE:
		break;
	}
	free(c);
	return 0;
}

static int
deny(struct build *b, char *path)
{
	if (path == NULL)
		return -1;
	if (unreachable(b, path)) {
		free(path);
		return 0;
	}
	if (strv_add(&b->p->deny, path) == -1)
		return -1;
	/* Cheap first: most denied paths are under $HOME, not /tmp. */
	if (!b->ns || (!b->home_private && !under_private(path) &&
	    !is_link(path)))
		return 0;
	return deny_inside(b, path);
}

/*
 * A command that keeps uid 0: what only root may read under the system
 * roots and $HOME, denied (rootonly.c).  /proc and /sys are not walked.
 */
static int
deny_rootonly(struct build *b, const struct sandbox_request *r)
{
	struct strv found = { NULL, 0, 0 }, keep = { NULL, 0, 0 };
	size_t i;
	int rv;

	/* The roots given: the command's, and the way to them (rootonly.c). */
	rv = strv_add(&keep, strdup(r->workspace));
	for (i = 0; rv == 0 && i < r->nrw_roots; i++)
		rv = strv_add(&keep, strdup(r->rw_roots[i]));
	for (i = 0; rv == 0 && i < r->nro_roots; i++)
		rv = strv_add(&keep, strdup(r->ro_roots[i]));
	for (i = 0; system_roots[i] != NULL && rv == 0; i++)
		if (strcmp(system_roots[i], "/proc") != 0 &&
		    strcmp(system_roots[i], "/sys") != 0)
			rv = rootonly_find(system_roots[i], geteuid(),
			    (const char *const *)keep.v, keep.n, &found,
			    b->err, b->errlen);
	if (rv == 0 && r->home != NULL && r->home[0] == '/' &&
	    r->profile != PROFILE_WORKSPACE_PATHS)
		rv = rootonly_find(r->home, geteuid(),
		    (const char *const *)keep.v, keep.n, &found, b->err,
		    b->errlen);
	strv_free(&keep);
	for (i = 0; rv == 0 && i < found.n; i++) {
		rv = deny(b, found.v[i]);
		found.v[i] = NULL;	/* deny() took it */
	}
	strv_free(&found);
	return rv;
}

static int
build_denied(struct build *b, const struct sandbox_request *r)
{
	char *key, *home;
	size_t i;

	if (b->ns && r->home != NULL &&
	    (home = path_canonical(r->home)) != NULL) {
		b->home_private = under_private(home);
		free(home);
	}
	for (i = 0; r->home != NULL && sandbox_home_denylist[i] != NULL; i++)
		if (deny(b, path_join(r->home, sandbox_home_denylist[i])) == -1)
			return -1;
	for (i = 0; i < r->ndeny; i++) {
		if (r->deny[i][0] != '/') {
			snprintf(b->err, b->errlen, "--read-deny-root %s: not "
			    "an absolute path", r->deny[i]);
			return -1;
		}
		if (deny(b, strdup(r->deny[i])) == -1)
			return -1;
	}
	if (b->root_kept && deny_rootonly(b, r) == -1)
		return -1;
	if (r->sign_key != NULL) {
		if ((key = path_real(r->sign_key)) == NULL) {
			snprintf(b->err, b->errlen, "--sign-key %s: %s",
			    r->sign_key, strerror(errno));
			return -1;
		}
		if (deny(b, key) == -1)
			return -1;
	}
	return 0;
}

int
sandbox_paths_build(const struct sandbox_request *r,
    enum sandbox_confinement c, bool root, bool root_kept,
    struct sandbox_paths *p, char *err, size_t errlen)
{
	struct build b = { .p = p, .r = r, .ns = c == CONFINEMENT_NAMESPACES,
	    .root = root, .root_kept = root_kept, .err = err,
	    .errlen = errlen };
	size_t i;

	memset(p, 0, sizeof(*p));
	p->workspace = r->workspace;
	snprintf(err, errlen, "out of memory");
	/* Its /proc is the PID namespace's own. */
	for (i = 0; system_roots[i] != NULL; i++) {
		if (root_kept && strcmp(system_roots[i], "/sys") == 0)
			continue;
		if ((b.ns && strcmp(system_roots[i], "/proc") == 0 ?
		    grant_inside(&b, system_roots[i], GRANT_RX) :
		    grant(&b, system_roots[i], GRANT_RX)) == -1)
			goto fail;
	}
	for (i = 0; root_kept && sys_for_root[i] != NULL; i++)
		if (grant(&b, sys_for_root[i], GRANT_RX) == -1)
			goto fail;
	for (i = 0; device_files[i] != NULL; i++)
		if (grant(&b, device_files[i], GRANT_RW) == -1)
			goto fail;
	for (i = 0; b.ns && private_devices[i] != NULL; i++)
		if (grant_inside(&b, private_devices[i], GRANT_RW) == -1)
			goto fail;
	for (i = 0; b.ns && sandbox_private_dirs[i] != NULL; i++)
		if (grant_inside(&b, sandbox_private_dirs[i], GRANT_RW) == -1 ||
		    strv_add(&p->sockroots, strdup(sandbox_private_dirs[i])) ==
		    -1 ||
		    strv_add(&p->bindroots, strdup(sandbox_private_dirs[i])) ==
		    -1)
			goto fail;
	/*
	 * Read and execute, never write: the tools people keep under $HOME
	 * (pyenv shims, ~/.local/bin, cargo, nvm) run.  Executing what CMD
	 * may read gives it nothing it could not copy into the workspace.
	 */
	if (r->home != NULL && r->home[0] == '/' &&
	    r->profile != PROFILE_WORKSPACE_PATHS &&
	    root_grant(&b, r->home, GRANT_RX) == -1)
		goto fail;
	for (i = 0; i < r->nro_roots; i++)
		if (root_grant(&b, r->ro_roots[i], GRANT_RX) == -1)
			goto fail;
	for (i = 0; i < r->nrw_roots; i++)
		if (root_grant(&b, r->rw_roots[i], GRANT_RW) == -1 ||
		    strv_add(&p->sockroots, strdup(r->rw_roots[i])) == -1 ||
		    strv_add(&p->bindroots, strdup(r->rw_roots[i])) == -1)
			goto fail;
	if (root_grant(&b, r->workspace, GRANT_RW) == -1 ||
	    strv_add(&p->sockroots, strdup(r->workspace)) == -1 ||
	    strv_add(&p->bindroots, strdup(r->workspace)) == -1)
		goto fail;
	for (i = 0; i < r->nsocket_roots; i++)
		if (socket_root(&b, r->socket_roots[i]) == -1)
			goto fail;
	nsb_sort(p);
	if (b.ns && root && nsb_traversal(p, &b.cap_binds) == -1)
		goto fail;
	err[0] = '\0';
	if (build_denied(&b, r) == -1)
		goto fail;
	return 0;
fail:
	if (err[0] == '\0')
		snprintf(err, errlen, "out of memory");
	sandbox_paths_free(p);
	return -1;
}

void
sandbox_paths_free(struct sandbox_paths *p)
{
	size_t i;

	for (i = 0; i < p->nbinds; i++)
		free(p->binds[i].path);
	free(p->binds);
	free(p->grants);
	free(p->inside);
	strv_free(&p->deny);
	strv_free(&p->deny_inside);
	strv_free(&p->hide);
	strv_free(&p->sockroots);
	strv_free(&p->bindroots);
	strv_free(&p->owned);
	memset(p, 0, sizeof(*p));
}

/*
 * A root the command line gives: absolute, canonical, and reached without
 * a symlink.  A link on the way could be one a command made in an earlier
 * run (in its workspace, where the root lies), leading anywhere; the path
 * it leads to must be given as such.
 */
char *
sandbox_root_path(const char *path, char *err, size_t errlen)
{
	char cwd[PATH_MAX], *abs, *real;

	if (path[0] == '/')
		abs = strdup(path);
	else if (getcwd(cwd, sizeof(cwd)) != NULL)
		abs = path_join(cwd, path);
	else {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (abs == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	path_lexical(abs);
	if ((real = path_real(path)) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(abs);
		return NULL;
	}
	if (strcmp(abs, real) != 0) {
		snprintf(err, errlen, "%s: leads through a symbolic link to %s, "
		    "which a command could have made in an earlier run; give "
		    "%s itself if that is what you mean", path, real, real);
		free(real);
		real = NULL;
	}
	free(abs);
	return real;
}
