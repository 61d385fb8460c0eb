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
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

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

/*
 * What harn-egressd sets itself is never taken from the caller, not even
 * with --env: the proxy variables, NO_PROXY, NODE_USE_ENV_PROXY and the
 * temporary and cache directories.
 */
static bool
env_is_ours(const char *entry)
{
	static const char *const ours[] = {
		"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
		"ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy",
		"NODE_USE_ENV_PROXY", "TMPDIR", "TMP", "TEMP",
		"XDG_CACHE_HOME",
	};
	size_t i, n = strcspn(entry, "=");

	for (i = 0; i < NELEM(ours); i++)
		if (name_is(entry, n, ours[i]))
			return true;
	return false;
}

static char *
pair(const char *name, const char *value)
{
	char *s;

	return asprintf(&s, "%s=%s", name, value) == -1 ? NULL : s;
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

char **
sandbox_env_build(const struct sandbox_request *r, unsigned short port,
    char *err, size_t errlen)
{
	static const char *const proxy_vars[] = {
		"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
	};
	static const char *const socks_vars[] = { "ALL_PROXY", "all_proxy" };
	/*
	 * CMD's own loopback servers (a test suite's) are reached directly:
	 * its loopback is its namespace's, or ports it bound itself (the
	 * broker decides), never the host's services.
	 */
	static const char *const direct_vars[] = { "NO_PROXY", "no_proxy" };
	extern char **environ;
	struct strv env = { NULL, 0, 0 };
	char *tmp = NULL, *cache = NULL, url[64];
	size_t i;

	snprintf(err, errlen, "out of memory");
	if ((tmp = path_join(r->workspace, ".harn-tmp")) == NULL ||
	    (cache = path_join(r->workspace, ".harn-cache")) == NULL)
		goto fail;
	for (i = 0; environ[i] != NULL; i++)
		if (!env_is_ours(environ[i]) && env_passes(environ[i], r) &&
		    strv_add(&env, strdup(environ[i])) == -1)
			goto fail;
	if (strv_add(&env, pair("TMPDIR", tmp)) == -1 ||
	    strv_add(&env, pair("TMP", tmp)) == -1 ||
	    strv_add(&env, pair("TEMP", tmp)) == -1 ||
	    strv_add(&env, pair("XDG_CACHE_HOME", cache)) == -1)
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
	free(tmp);
	free(cache);
	err[0] = '\0';
	return env.v;
fail:
	free(tmp);
	free(cache);
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
