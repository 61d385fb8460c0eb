/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The command's environment (SPEC 6.3): the caller's, scrubbed to a
 * baseline allowlist and --env names, with the proxy variables, and the
 * temporary and cache directories: the user's, or the run's private
 * directory (rundir.c), never the workspace.
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

#define NPMRC_MAX	65536	/* a larger ~/.npmrc gets no stand-in */
#define USERCONFIG	"NPM_CONFIG_USERCONFIG"

/* The baseline allowlist; LC_* is matched as a prefix. */
static const char *const env_allow[] = {
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TZ", NULL
};

/*
 * Never passed, whatever --env says (options refuse them too).
 * NOTIFY_SOCKET: CMD must not talk to systemd as the service (SPEC 8.2).
 */
static const char *const env_never[] = {
	"LD_", "GLIBC_TUNABLES=", "SSH_AUTH_SOCK=", "NOTIFY_SOCKET=", NULL
};

static bool
name_is(const char *entry, size_t n, const char *name)
{
	return strlen(name) == n && strncmp(entry, name, n) == 0;
}

static bool named(const struct sandbox_request *, const char *, size_t);

static bool
never(const char *entry)
{
	size_t i;

	for (i = 0; env_never[i] != NULL; i++)
		if (strncmp(entry, env_never[i], strlen(env_never[i])) == 0)
			return true;
	return false;
}

static bool
env_passes(const char *entry, const struct sandbox_request *r)
{
	size_t i, n = strcspn(entry, "=");

	if (never(entry))
		return false;
	if (strncmp(entry, "LC_", 3) == 0)
		return true;
	for (i = 0; env_allow[i] != NULL; i++)
		if (name_is(entry, n, env_allow[i]))
			return true;
	return named(r, entry, n);
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
/* Package managers' caches, below XDG_CACHE_HOME, so none writes $HOME. */
static const struct {
	const char	*name, *dir;
} caches[] = {
	{ "npm_config_cache", "npm" }, { "PIP_CACHE_DIR", "pip" },
	{ "GOCACHE", "go-build" }, { "GOMODCACHE", "go-mod" },
	{ "YARN_CACHE_FOLDER", "yarn" },
};
static const char *const tmp_vars[] = { "TMPDIR", "TMP", "TEMP" };

static bool
name_in(const char *entry, size_t n, const char *const *names, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (name_is(entry, n, names[i]))
			return true;
	return false;
}

bool
sandbox_env_dir_var(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < NELEM(caches); i++)
		if (name_is(name, n, caches[i].name))
			return true;
	return name_in(name, n, tmp_vars, NELEM(tmp_vars)) ||
	    name_is(name, n, "XDG_CACHE_HOME");
}

bool
sandbox_env_reserved(const char *name, size_t n)
{
	return name_in(name, n, proxy_vars, NELEM(proxy_vars)) ||
	    name_in(name, n, socks_vars, NELEM(socks_vars)) ||
	    name_in(name, n, direct_vars, NELEM(direct_vars)) ||
	    name_is(name, n, "NODE_USE_ENV_PROXY");
}

/* The value --env NAME=VALUE gives NAME (the last one), or NULL. */
static const char *
given_n(const struct sandbox_request *r, const char *name, size_t n)
{
	const char *v = NULL;
	size_t i;

	for (i = 0; i < r->nenv_names; i++)
		if (strncmp(r->env_names[i], name, n) == 0 &&
		    r->env_names[i][n] == '=')
			v = r->env_names[i] + n + 1;
	return v;
}

static const char *
given(const struct sandbox_request *r, const char *name)
{
	return given_n(r, name, strlen(name));
}

static bool
named(const struct sandbox_request *r, const char *entry, size_t n)
{
	size_t i;

	for (i = 0; i < r->nenv_names; i++)
		if (strlen(r->env_names[i]) >= n &&
		    strncmp(r->env_names[i], entry, n) == 0 &&
		    (r->env_names[i][n] == '\0' || r->env_names[i][n] == '='))
			return true;
	return false;
}

/*
 * What harn-egressd sets itself is never taken from the caller: the proxy
 * variables, not even with --env; when confined, the temporary and cache
 * directories and the npmrc stand-in, unless --env names them (the run
 * then keeps the user's).  A value --env NAME=VALUE gives replaces the
 * caller's.
 */
static bool
env_is_ours(const char *entry, const struct sandbox_request *r,
    bool confined)
{
	size_t n = strcspn(entry, "=");

	if (sandbox_env_reserved(entry, n))
		return true;
	if (r->transparent && name_is(entry, n, "RES_OPTIONS"))
		return true;	/* kept, with use-vc (env_add_resolver) */
	if (named(r, entry, n))
		return given_n(r, entry, n) != NULL;
	return confined && (sandbox_env_dir_var(entry, n) ||
	    name_is(entry, n, USERCONFIG));
}

static char *
pair(const char *name, const char *value)
{
	char *s;

	return asprintf(&s, "%s=%s", name, value) == -1 ? NULL : s;
}

/*
 * SPEC 6.6: the run answers names over TCP (the broker hands a connect to
 * port 53 to harn-egressd): glibc's resolver asks over TCP with use-vc,
 * the caller's other options kept.  0, or -1.
 */
static int
env_add_resolver(struct strv *env, const struct sandbox_request *r)
{
	const char *v = getenv("RES_OPTIONS");
	char *s;

	if (!r->transparent)
		return 0;
	if (asprintf(&s, "RES_OPTIONS=%s%suse-vc", v != NULL ? v : "",
	    v != NULL && v[0] != '\0' ? " " : "") == -1)
		return -1;
	return strv_add(env, s);
}

/* NAME=DIR/SUB */
static char *
pair_in(const char *name, const char *dir, const char *sub)
{
	char *s;

	return asprintf(&s, "%s=%s/%s", name, dir, sub) == -1 ? NULL : s;
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

/* buf without its secret lines, in place; the length left. */
static size_t
npmrc_filter(char *buf, size_t len)
{
	char *p = buf, *end = buf + len, *nl, *out = buf;
	size_t n;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl != NULL ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		if (!npmrc_secret(p, n)) {
			memmove(out, p, n);
			out += n;
		}
		p += n;
	}
	return (size_t)(out - buf);
}

int
sandbox_npmrc_read(const struct sandbox_request *r, char **out, size_t *outlen,
    char *err, size_t errlen)
{
	char *src = NULL, *buf;
	struct stat st;
	ssize_t len = 0, n;
	int in = -1;

	*out = NULL;
	*outlen = 0;
	/*
	 * By $HOME as written: a link on the way that the command could have
	 * made (its canonical name hides it) means no stand-in.
	 */
	if (asprintf(&src, "%s/.npmrc", r->home_given != NULL ?
	    r->home_given : "/") == -1 || (buf = malloc(NPMRC_MAX)) == NULL) {
		free(src);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/*
	 * None (or not a plain file of at most NPMRC_MAX: a FIFO would block,
	 * a cut file could leave part of a secret): no stand-in.  Nor when a
	 * step to it is in the command's reach: a link it left there would
	 * have us copy any file we can read for it.
	 */
	if (r->home == NULL || (in = sandbox_open_out_of_reach(r, src,
	    O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) == -1 ||
	    fstat(in, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > NPMRC_MAX) {
		if (in != -1)
			(void)close(in);
		free(src);
		free(buf);
		return 0;
	}
	while (len < NPMRC_MAX && (n = read(in, buf + len,
	    (size_t)(NPMRC_MAX - len))) > 0)
		len += n;
	(void)close(in);
	free(src);
	*out = buf;
	*outlen = npmrc_filter(buf, (size_t)len);
	return 1;
}

/* The first of names --env NAME=VALUE gives, or NULL. */
static const char *
given_any(const struct sandbox_request *r, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (given(r, names[i]) != NULL)
			return given(r, names[i]);
	return NULL;
}

/*
 * The temporary and cache directories, for a confined command that may
 * write nowhere else: the user's where --env gives them, then
 * --cache-dir for the caches, else the run's private directory (rd; NULL
 * unconfined: then only what the user named).
 */
static int
env_add_dirs(struct strv *env, const struct sandbox_request *r,
    const struct rundir *rd)
{
	const char *tmp, *cache = r->cache_dir;
	char *own_tmp = NULL, *own_cache = NULL;
	size_t i;
	int rv = -1;

	if (given(r, "XDG_CACHE_HOME") != NULL)
		cache = given(r, "XDG_CACHE_HOME");
	if (rd != NULL && ((own_tmp = path_join(rd->dir, "tmp")) == NULL ||
	    (own_cache = path_join(rd->dir, "cache")) == NULL))
		goto out;
	/* TMP and TEMP follow the TMPDIR given, as tools read either. */
	if ((tmp = given_any(r, tmp_vars, NELEM(tmp_vars))) == NULL)
		tmp = own_tmp;
	if (cache == NULL)
		cache = own_cache;
	for (i = 0; tmp != NULL && i < NELEM(tmp_vars); i++)
		if (given(r, tmp_vars[i]) == NULL &&
		    strv_add(env, pair(tmp_vars[i], tmp)) == -1)
			goto out;
	if (cache != NULL && given(r, "XDG_CACHE_HOME") == NULL &&
	    strv_add(env, pair("XDG_CACHE_HOME", cache)) == -1)
		goto out;
	for (i = 0; cache != NULL && i < NELEM(caches); i++)
		if (given(r, caches[i].name) == NULL && strv_add(env,
		    pair_in(caches[i].name, cache, caches[i].dir)) == -1)
			goto out;
	/* The credential-free stand-in for a denied ~/.npmrc, if made. */
	if (rd != NULL && rd->npmrc != NULL && !named(r, USERCONFIG,
	    strlen(USERCONFIG)) && strv_add(env, pair_in(USERCONFIG, rd->dir,
	    RUNDIR_NPMRC)) == -1)
		goto out;
	rv = 0;
out:
	free(own_tmp);
	free(own_cache);
	return rv;
}

/* Each --env NAME=VALUE (the last of a name). */
static int
env_add_given(struct strv *env, const struct sandbox_request *r)
{
	const char *e;
	size_t i, k, n;

	for (i = 0; i < r->nenv_names; i++) {
		e = r->env_names[i];
		if (e[n = strcspn(e, "=")] != '=')
			continue;
		for (k = i + 1; k < r->nenv_names; k++)
			if (strncmp(r->env_names[k], e, n + 1) == 0)
				break;
		if (k == r->nenv_names && !never(e) &&
		    strv_add(env, strdup(e)) == -1)
			return -1;
	}
	return 0;
}

char **
sandbox_env_build(const struct sandbox_request *r, unsigned short port,
    const struct rundir *rd, char *err, size_t errlen)
{
	extern char **environ;
	struct strv env = { NULL, 0, 0 };
	char url[64];
	size_t i;

	snprintf(err, errlen, "out of memory");
	for (i = 0; environ[i] != NULL; i++)
		if (!env_is_ours(environ[i], r, rd != NULL) &&
		    env_passes(environ[i], r) &&
		    strv_add(&env, strdup(environ[i])) == -1)
			goto fail;
	if (env_add_given(&env, r) == -1 || env_add_dirs(&env, r, rd) == -1)
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
	if (port != 0 && (strv_add(&env, pair("NODE_USE_ENV_PROXY", "1")) ==
	    -1 || env_add_resolver(&env, r) == -1))
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
