/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The command's environment (SPEC 6.3): the caller's, scrubbed to a
 * baseline allowlist and --env names, with the proxy variables and the
 * temporary and cache directories in the workspace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define NPMRC_STANDIN	"npmrc"	/* in .harn-cache: ~/.npmrc, no secrets */

/* The baseline allowlist; LC_* is matched as a prefix. */
static const char *const env_allow[] = {
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TZ", NULL
};

/* Never passed, whatever --env says (options refuse them too). */
static const char *const env_never[] = {
	"LD_", "GLIBC_TUNABLES=", "SSH_AUTH_SOCK=", NULL
};

static bool
name_is(const char *entry, size_t n, const char *name)
{
	return strlen(name) == n && strncmp(entry, name, n) == 0;
}

static bool
env_passes(const char *entry, const struct sandbox_request *r)
{
	size_t i, n = strcspn(entry, "=");

	for (i = 0; env_never[i] != NULL; i++)
		if (strncmp(entry, env_never[i], strlen(env_never[i])) == 0)
			return false;
	if (strncmp(entry, "LC_", 3) == 0)
		return true;
	for (i = 0; env_allow[i] != NULL; i++)
		if (name_is(entry, n, env_allow[i]))
			return true;
	for (i = 0; i < r->nenv_names; i++)
		if (name_is(entry, n, r->env_names[i]))
			return true;
	return false;
}

/* What harn-egressd sets itself in CMD's environment. */
static const char *const proxy_vars[] = {
	"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
};
static const char *const socks_vars[] = { "ALL_PROXY", "all_proxy" };
/*
 * CMD's own loopback servers (a test suite's) are reached directly: its
 * loopback is its namespace's, or ports it bound itself (the broker
 * decides), never the host's services.
 */
static const char *const direct_vars[] = { "NO_PROXY", "no_proxy" };
/* Package managers' caches, below .harn-cache, so none writes $HOME. */
static const struct {
	const char	*name, *dir;
} caches[] = {
	{ "npm_config_cache", "npm" }, { "PIP_CACHE_DIR", "pip" },
	{ "GOCACHE", "go-build" }, { "GOMODCACHE", "go-mod" },
	{ "YARN_CACHE_FOLDER", "yarn" },
};
/* Set only when confined: an unconfined command has its own $HOME. */
static const char *const other_vars[] = {
	"TMPDIR", "TMP", "TEMP", "XDG_CACHE_HOME", "NPM_CONFIG_USERCONFIG",
};

static bool
name_in(const char *entry, size_t n, const char *const *names, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (name_is(entry, n, names[i]))
			return true;
	return false;
}

/*
 * What harn-egressd sets itself is never taken from the caller, not even
 * with --env.  Unconfined, it sets only the proxy variables.
 */
static bool
env_is_ours(const char *entry, bool confined)
{
	size_t i, n = strcspn(entry, "=");

	for (i = 0; confined && i < NELEM(caches); i++)
		if (name_is(entry, n, caches[i].name))
			return true;
	return name_in(entry, n, proxy_vars, NELEM(proxy_vars)) ||
	    name_in(entry, n, socks_vars, NELEM(socks_vars)) ||
	    name_in(entry, n, direct_vars, NELEM(direct_vars)) ||
	    name_is(entry, n, "NODE_USE_ENV_PROXY") ||
	    (confined && name_in(entry, n, other_vars, NELEM(other_vars)));
}

static char *
pair(const char *name, const char *value)
{
	char *s;

	return asprintf(&s, "%s=%s", name, value) == -1 ? NULL : s;
}

/* NAME=DIR/SUB */
static char *
pair_in(const char *name, const char *dir, const char *sub)
{
	char *s;

	return asprintf(&s, "%s=%s/%s", name, dir, sub) == -1 ? NULL : s;
}

/* A stand-in that harn-egressd made (a regular file, not a link). */
static bool
has_standin(const char *cache)
{
	struct stat st;
	char *p;
	bool yes;

	if (asprintf(&p, "%s/%s", cache, NPMRC_STANDIN) == -1)
		return false;
	yes = lstat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return yes;
}

/*
 * A line of an npmrc that may hold a credential: a registry-scoped key
 * ("//registry.example/:_authToken"), or _auth, _authToken, _password,
 * username, password, email, cert, key, certfile, keyfile.
 */
static bool
npmrc_secret(const char *line, size_t len)
{
	static const char *const keys[] = {
		"_auth", "_authtoken", "_password", "username", "password",
		"email", "cert", "key", "certfile", "keyfile", NULL
	};
	size_t i, k;

	while (len > 0 && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (len >= 2 && line[0] == '/' && line[1] == '/')
		return true;
	for (k = 0; k < len && line[k] != '=' && line[k] != ' ' &&
	    line[k] != '\t'; k++)
		;
	for (i = 0; keys[i] != NULL; i++)
		if (strlen(keys[i]) == k && strncasecmp(line, keys[i], k) == 0)
			return true;
	return false;
}

/* buf without its secret lines, into fd; -1 on a short write. */
static int
npmrc_filter(int fd, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	size_t n;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl != NULL ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		if (!npmrc_secret(p, n) && write(fd, p, n) != (ssize_t)n)
			return -1;
		p += n;
	}
	return 0;
}

int
sandbox_npmrc_standin(const struct sandbox_request *r, char *err,
    size_t errlen)
{
	char *src = NULL, buf[65536], tmp[32];
	struct stat ws_st, in_st;
	ssize_t len = 0, n;
	int in = -1, dir = -1, out = -1, rv = -1;

	/*
	 * By $HOME as written: a link on the way that the command could have
	 * made (its canonical name hides it) means no stand-in.
	 */
	if (asprintf(&src, "%s/.npmrc", r->home_given != NULL ?
	    r->home_given : "/") == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Made relative to .harn-cache, never through a link planted there. */
	if ((dir = open(r->workspace, O_PATH | O_DIRECTORY | O_CLOEXEC)) ==
	    -1 || fstat(dir, &ws_st) == -1 || (n = openat(dir, ".harn-cache",
	    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s/.harn-cache: %s", r->workspace,
		    strerror(errno));
		goto out;
	}
	(void)close(dir);
	dir = (int)n;
	/*
	 * None (or not a plain file of at most 64 KiB: a FIFO would block,
	 * a cut file could leave part of a secret): no stand-in, and none
	 * left from an earlier run.  Nor when a step to it is in the
	 * command's reach: a link it left there would have us copy any file
	 * we can read into its workspace.
	 */
	if (r->home == NULL || (in = sandbox_open_out_of_reach(r, src,
	    O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) == -1 ||
	    fstat(in, &in_st) == -1 ||
	    !S_ISREG(in_st.st_mode) || in_st.st_size > (off_t)sizeof(buf)) {
		(void)unlinkat(dir, NPMRC_STANDIN, 0);
		rv = 0;
		goto out;
	}
	while (len < (ssize_t)sizeof(buf) &&
	    (n = read(in, buf + len, sizeof(buf) - (size_t)len)) > 0)
		len += n;
	snprintf(tmp, sizeof(tmp), "%s.%ld", NPMRC_STANDIN, (long)getpid());
	(void)unlinkat(dir, tmp, 0);
	if ((out = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1 || npmrc_filter(out, buf, (size_t)len) ==
	    -1 || (geteuid() == 0 && fchown(out, ws_st.st_uid,
	    ws_st.st_gid) == -1) || renameat(dir, tmp, dir, NPMRC_STANDIN) ==
	    -1) {
		snprintf(err, errlen, "%s/.harn-cache/%s: %s", r->workspace,
		    NPMRC_STANDIN, strerror(errno));
		(void)unlinkat(dir, tmp, 0);
		goto out;
	}
	rv = 1;
out:
	if (out != -1)
		(void)close(out);
	if (in != -1)
		(void)close(in);
	if (dir != -1)
		(void)close(dir);
	free(src);
	return rv;
}

/*
 * A directory of the workspace for the command's own files, made if
 * missing.  Made relative to the workspace and never through a symlink,
 * which an earlier command could have left there.
 */
int
sandbox_workspace_dir(const char *ws, const char *name, char *err,
    size_t errlen)
{
	struct stat st, ws_st;
	int fd;

	if ((fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", ws, strerror(errno));
		return -1;
	}
	if (mkdirat(fd, name, 0700) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s/%s: %s", ws, name, strerror(errno));
		(void)close(fd);
		return -1;
	}
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    !S_ISDIR(st.st_mode) || fstat(fd, &ws_st) == -1) {
		snprintf(err, errlen, "%s/%s: not a directory", ws, name);
		(void)close(fd);
		return -1;
	}
	/*
	 * Made by root: the workspace owner's, whom the command is on disk
	 * (an idmapped workspace maps that owner to the command's uid).
	 */
	if (geteuid() == 0 && (st.st_uid != ws_st.st_uid ||
	    st.st_gid != ws_st.st_gid) && fchownat(fd, name, ws_st.st_uid,
	    ws_st.st_gid, AT_SYMLINK_NOFOLLOW) == -1) {
		snprintf(err, errlen, "%s/%s: %s", ws, name, strerror(errno));
		(void)close(fd);
		return -1;
	}
	(void)close(fd);
	return 0;
}

/*
 * The temporary and cache directories in the workspace, for a confined
 * command that may write nowhere else.
 */
static int
env_add_workspace(struct strv *env, const char *ws)
{
	char *tmp, *cache = NULL;
	size_t i;
	int rv = -1;

	if ((tmp = path_join(ws, ".harn-tmp")) == NULL ||
	    (cache = path_join(ws, ".harn-cache")) == NULL)
		goto out;
	if (strv_add(env, pair("TMPDIR", tmp)) == -1 ||
	    strv_add(env, pair("TMP", tmp)) == -1 ||
	    strv_add(env, pair("TEMP", tmp)) == -1 ||
	    strv_add(env, pair("XDG_CACHE_HOME", cache)) == -1)
		goto out;
	for (i = 0; i < NELEM(caches); i++)
		if (strv_add(env, pair_in(caches[i].name, cache,
		    caches[i].dir)) == -1)
			goto out;
	/* The credential-free stand-in for a denied ~/.npmrc, if made. */
	if (has_standin(cache) && strv_add(env,
	    pair_in("NPM_CONFIG_USERCONFIG", cache, NPMRC_STANDIN)) == -1)
		goto out;
	rv = 0;
out:
	free(tmp);
	free(cache);
	return rv;
}

char **
sandbox_env_build(const struct sandbox_request *r, unsigned short port,
    bool confined, char *err, size_t errlen)
{
	extern char **environ;
	struct strv env = { NULL, 0, 0 };
	char url[64];
	size_t i;

	snprintf(err, errlen, "out of memory");
	for (i = 0; environ[i] != NULL; i++)
		if (!env_is_ours(environ[i], confined) &&
		    env_passes(environ[i], r) &&
		    strv_add(&env, strdup(environ[i])) == -1)
			goto fail;
	if (confined && env_add_workspace(&env, r->workspace) == -1)
		goto fail;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", port);
	for (i = 0; port != 0 && i < NELEM(proxy_vars); i++)
		if (strv_add(&env, pair(proxy_vars[i], url)) == -1)
			goto fail;
	snprintf(url, sizeof(url), "socks5h://127.0.0.1:%u", port);
	for (i = 0; port != 0 && i < NELEM(socks_vars); i++)
		if (strv_add(&env, pair(socks_vars[i], url)) == -1)
			goto fail;
	for (i = 0; port != 0 && i < NELEM(direct_vars); i++)
		if (strv_add(&env, pair(direct_vars[i],
		    "localhost,127.0.0.1,::1")) == -1)
			goto fail;
	/* Node's fetch ignores the proxy variables without it. */
	if (port != 0 && strv_add(&env, pair("NODE_USE_ENV_PROXY", "1")) == -1)
		goto fail;
	err[0] = '\0';
	return env.v;
fail:
	strv_free(&env);
	return NULL;
}

void
sandbox_env_free(char **env)
{
	size_t i;

	for (i = 0; env != NULL && env[i] != NULL; i++)
		free(env[i]);
	free(env);
}
