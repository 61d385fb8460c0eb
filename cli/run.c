/*
 * Run mode (SPEC 6): the proxy, and CMD confined behind it so that the
 * proxy's port is its only network endpoint.  The plan (which mechanisms)
 * is decided from the profile and the host before anything starts; a
 * profile that cannot be met is refused with a record, never weakened in
 * silence.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/report.h"
#include "cli/run.h"
#include "cli/serve.h"
#include "proxy/proxy.h"
#include "sandbox/sandbox.h"

#define EXIT_REFUSED	3
#define MAX_LANDLOCK_RULES	4096

/* Credential paths under $HOME that no grant reaches (SPEC 6.3). */
static const char *const home_denylist[] = {
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

/* Read-execute for the system; the private dirs exist only with netns. */
static const char *const system_roots[] = {
	"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/usr",
	"/etc", "/opt", "/proc", "/sys", NULL
};
static const char *const device_files[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", "/dev/pts", "/dev/ptmx", NULL
};
static const char *const private_roots[] = { "/tmp", "/var/tmp", "/run",
	"/dev/shm", NULL };

/* The baseline environment allowlist (SPEC 6.3). */
static const char *const env_allow[] = {
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TZ", NULL
};

struct plan {
	enum sandbox_profile	 profile;
	bool			 netns, userns, landlock, seccomp;
	int			 landlock_abi;
	bool			 hide_key;	/* --sign-key: deny it */
	const char		*network_mode;
};

struct run {
	struct report		*rep;
	const char		*log_path;	/* NULL: stderr */
	bool			 spawned;	/* the command started confined */
	struct event_base	*base;
	struct proxy		*px;
	struct sandbox_child	 child;
	struct event		*ctl_ev;
	int			 wstatus;
	bool			 done;
};

struct strv {
	char	**v;
	size_t	  n, cap;
};

static int
strv_add(struct strv *s, char *str)
{
	char **v;

	if (str == NULL)
		return -1;
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? s->cap * 2 : 32;
		if ((v = reallocarray(s->v, s->cap, sizeof(*v))) == NULL) {
			free(str);
			return -1;
		}
		s->v = v;
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	return 0;
}

static void
strv_free(struct strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

static char *
join(const char *a, const char *b)
{
	char *s;

	return asprintf(&s, "%s/%s", a, b) == -1 ? NULL : s;
}

static bool
env_passes(const char *entry, const struct options *o)
{
	size_t i, n = strcspn(entry, "=");

	if (strncmp(entry, "LD_", 3) == 0 ||
	    strncmp(entry, "GLIBC_TUNABLES=", 15) == 0 ||
	    strncmp(entry, "SSH_AUTH_SOCK=", 14) == 0)
		return false;
	if (strncmp(entry, "LC_", 3) == 0)
		return true;
	for (i = 0; env_allow[i] != NULL; i++)
		if (strlen(env_allow[i]) == n &&
		    strncmp(entry, env_allow[i], n) == 0)
			return true;
	for (i = 0; i < o->nenv; i++)
		if (strlen(o->env[i]) == n && strncmp(entry, o->env[i], n) == 0)
			return true;
	return false;
}

static char *
env_pair(const char *name, const char *value)
{
	char *s;

	return asprintf(&s, "%s=%s", name, value) == -1 ? NULL : s;
}

/* The scrubbed environment; TMPDIR and the cache point into the workspace. */
static int
build_env(const struct options *o, const char *ws, struct strv *env)
{
	extern char **environ;
	char *tmp = join(ws, ".harn-tmp"), *cache = join(ws, ".harn-cache");
	size_t i;
	int rv = -1;

	if (tmp == NULL || cache == NULL)
		goto out;
	if ((mkdir(tmp, 0700) == -1 && errno != EEXIST) ||
	    (mkdir(cache, 0700) == -1 && errno != EEXIST)) {
		cli_error("%s: %s", ws, strerror(errno));
		goto out;
	}
	for (i = 0; environ[i] != NULL; i++)
		if (env_passes(environ[i], o) &&
		    strv_add(env, strdup(environ[i])) == -1)
			goto out;
	if (strv_add(env, env_pair("TMPDIR", tmp)) == -1 ||
	    strv_add(env, env_pair("TMP", tmp)) == -1 ||
	    strv_add(env, env_pair("TEMP", tmp)) == -1 ||
	    strv_add(env, env_pair("XDG_CACHE_HOME", cache)) == -1)
		goto out;
	rv = 0;
out:
	free(tmp);
	free(cache);
	return rv;
}

/* An absolute, existing directory, or a usage error. */
static char *
real_dir(const char *what, const char *path)
{
	struct stat st;
	char *r;

	if ((r = realpath(path, NULL)) == NULL) {
		cli_error("%s %s: %s", what, path, strerror(errno));
		return NULL;
	}
	if (stat(r, &st) == -1 || !S_ISDIR(st.st_mode)) {
		cli_error("%s %s: not a directory", what, path);
		free(r);
		return NULL;
	}
	return r;
}

struct grants {
	struct landlock_path	 v[OPT_MAX_ROOTS * 2 + 32];
	size_t			 n;
	struct strv		 owned;		/* paths we allocated */
	struct strv		 deny;
};

static int
grant(struct grants *g, char *path, enum landlock_grant how)
{
	struct stat st;

	if (path == NULL)
		return -1;
	if (stat(path, &st) == -1) {	/* absent system root: no grant */
		free(path);
		return 0;
	}
	if (strv_add(&g->owned, path) == -1 ||
	    g->n == sizeof(g->v) / sizeof(g->v[0]))
		return -1;
	g->v[g->n].path = path;
	g->v[g->n].grant = how;
	g->n++;
	return 0;
}

/* What the command may touch, and what it never may (SPEC 6.3). */
static int
build_grants(const struct options *o, const struct plan *p, const char *ws,
    struct grants *g)
{
	const char *home = getenv("HOME");
	char *r;
	size_t i;

	for (i = 0; system_roots[i] != NULL; i++)
		if (grant(g, strdup(system_roots[i]), GRANT_RX) == -1)
			return -1;
	for (i = 0; device_files[i] != NULL; i++)
		if (grant(g, strdup(device_files[i]), GRANT_RW) == -1)
			return -1;
	for (i = 0; p->netns && private_roots[i] != NULL; i++)
		if (grant(g, strdup(private_roots[i]), GRANT_RW) == -1)
			return -1;
	if (home != NULL && home[0] == '/' &&
	    p->profile != PROFILE_WORKSPACE_PATHS &&
	    grant(g, strdup(home), GRANT_RO) == -1)
		return -1;
	for (i = 0; i < o->nro_roots; i++) {
		if ((r = real_dir("--read-only-root", o->ro_roots[i])) == NULL ||
		    grant(g, r, GRANT_RO) == -1)
			return -1;
	}
	for (i = 0; i < o->nrw_roots; i++) {
		if ((r = real_dir("--write-root", o->rw_roots[i])) == NULL ||
		    grant(g, r, GRANT_RW) == -1)
			return -1;
	}
	if (grant(g, strdup(ws), GRANT_RW) == -1)
		return -1;
	for (i = 0; home != NULL && home[0] == '/' && home_denylist[i]; i++)
		if (strv_add(&g->deny, join(home, home_denylist[i])) == -1)
			return -1;
	for (i = 0; i < o->ndeny_roots; i++) {
		if (o->deny_roots[i][0] != '/') {
			cli_error("--read-deny-root %s: not an absolute path",
			    o->deny_roots[i]);
			return -1;
		}
		if (strv_add(&g->deny, strdup(o->deny_roots[i])) == -1)
			return -1;
	}
	return 0;
}

static void
not_enforced(const char *what, const char *why)
{
	cli_error("sandbox: not enforced: %s (%s)", what, why);
}

/*
 * The key that signs the report is denied like a credential: a command
 * that could read it could sign a report of its own.
 */
static int
deny_sign_key(const struct options *o, const struct plan *p,
    struct grants *g)
{
	char *key;

	if (o->sign_key == NULL)
		return 0;
	if (!p->landlock && !p->netns) {
		cli_error("--sign-key %s: the command could read the key and "
		    "sign a report of its own (%s); nothing was started",
		    o->sign_key, p->profile == PROFILE_UNRESTRICTED ?
		    "no sandbox" : "no Landlock and no mount namespace here");
		return -1;
	}
	if ((key = realpath(o->sign_key, NULL)) == NULL) {
		cli_error("--sign-key %s: %s", o->sign_key, strerror(errno));
		return -1;
	}
	return strv_add(&g->deny, key);
}

/*
 * The plan for a profile on this host.  Returns -1 after writing the
 * refusal record when os_hardened cannot be met.
 */
static int
make_plan(const struct options *o, struct plan *p)
{
	struct sandbox_caps caps;
	bool hardened;

	memset(p, 0, sizeof(*p));
	if (o->no_sandbox)
		p->profile = PROFILE_UNRESTRICTED;
	else if (sandbox_profile_parse(o->profile, &p->profile) == -1)
		return -1;
	p->network_mode = "unrestricted";
	if (p->profile == PROFILE_UNRESTRICTED)
		return 0;
	sandbox_probe_quick(&caps);
	hardened = p->profile == PROFILE_OS_HARDENED;
	if (!caps.netns) {
		if (hardened) {
			sandbox_refusal("egress", "unsupported_fail_closed",
			    caps.userns_why, p->profile, "linux_namespaces",
			    caps.root ? "absent_on_host" :
			    "entry_point_cannot_attach");
			return -1;
		}
		not_enforced("network namespace", caps.userns_why);
	}
	if (caps.landlock_abi == 0) {
		if (hardened) {
			sandbox_refusal("write", "unsupported_fail_closed",
			    caps.landlock_why, p->profile, "linux_landlock",
			    "absent_on_host");
			return -1;
		}
		not_enforced("landlock", caps.landlock_why);
	}
	if (!caps.seccomp) {
		if (hardened) {
			sandbox_refusal("egress", "unsupported_fail_closed",
			    caps.seccomp_why, p->profile, "linux_seccomp",
			    "absent_on_host");
			return -1;
		}
		not_enforced("seccomp", caps.seccomp_why);
	}
	p->netns = caps.netns;
	p->userns = caps.netns && !caps.root;
	p->landlock = caps.landlock_abi > 0;
	p->landlock_abi = caps.landlock_abi;
	p->seccomp = caps.seccomp;
	p->network_mode = p->netns ? "managed" : "unrestricted";
	return 0;
}

/* CMD as execvp would find it: 127 when absent, 126 when not runnable. */
static int
check_command(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *e;
	char buf[4096];

	if (strchr(cmd, '/') != NULL) {
		if (access(cmd, F_OK) == -1)
			return 127;
		return access(cmd, X_OK) == 0 ? 0 : 126;
	}
	for (p = path ? path : "/usr/bin:/bin"; *p != '\0'; p = e + (*e != 0)) {
		e = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p), p,
		    cmd) >= (int)sizeof(buf))
			continue;
		if (access(buf, X_OK) == 0)
			return 0;
	}
	return 127;
}

static void
signal_cb(evutil_socket_t sig, short ev, void *arg)
{
	struct run *r = arg;

	sandbox_signal(&r->child, (int)sig);
}

static void
drained_cb(void *arg)
{
	struct run *r = arg;

	event_base_loopexit(r->base, NULL);
}

/* The command ended (its init wrote the status, or the set-up died). */
static void
ctl_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct run *r = arg;

	sandbox_wait(&r->child, &r->wstatus);
	r->done = true;
	event_del(r->ctl_ev);
	proxy_drain(r->px, drained_cb, r);
}

static int
exit_code(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return EXIT_RUNTIME;
}

/* Listen on the host's loopback: the command shares our network. */
static int
listen_on_host(struct run *r, struct sandbox_spec *spec)
{
	char err[256], bound[64];

	if (proxy_listen(r->px, &cli_loopback, bound, sizeof(bound), err,
	    sizeof(err)) == -1) {
		cli_error("%s", err);
		return -1;
	}
	spec->host_port = (unsigned short)atoi(strrchr(bound, ':') + 1);
	report_listen(r->rep, bound);
	return 0;
}

/*
 * Start the command.  The child sets up its namespaces while we go on,
 * then takes the seccomp program; a host that refuses the namespaces gets the
 * profile's answer: os_hardened refuses, worktree goes on without them
 * and says so.  Returns 0, or the exit code to leave with.
 */
static int
start_command(struct run *r, struct plan *p, struct sandbox_spec *spec)
{
	struct conf_sockaddr lo = cli_loopback;
	const char *mech;
	void *prog = NULL;
	size_t len = 0;
	char err[256];

	if (!spec->netns && listen_on_host(r, spec) == -1)
		return EXIT_RUNTIME;
	if (sandbox_spawn(spec, &r->child, err, sizeof(err)) == -1) {
		sandbox_refusal("unknown", "spawn_failed", err, p->profile,
		    NULL, NULL);
		return EXIT_REFUSED;
	}
	if (spec->seccomp && sandbox_seccomp_program(&prog, &len, err,
	    sizeof(err)) == -1) {
		free(prog);
		prog = NULL;	/* the child refuses without one */
	}
	if (sandbox_ready(&r->child, prog, len, &mech, err,
	    sizeof(err)) == -1) {
		free(prog);
		if (strcmp(mech, "linux_namespaces") == 0 && spec->netns) {
			if (p->profile == PROFILE_OS_HARDENED) {
				sandbox_refusal("egress",
				    "unsupported_fail_closed", err, p->profile,
				    "linux_namespaces",
				    /* A kernel without them, or one refusing us. */
				    r->child.fail_errno == EINVAL ||
				    r->child.fail_errno == ENOSYS ?
				    "absent_on_host" :
				    "entry_point_cannot_attach");
				return EXIT_REFUSED;
			}
			if (p->hide_key && !p->landlock) {
				sandbox_refusal("home_read",
				    "unsupported_fail_closed", "without a mount "
				    "namespace or Landlock the signing key "
				    "cannot be hidden from the command",
				    p->profile, "linux_namespaces",
				    "entry_point_cannot_attach");
				return EXIT_REFUSED;
			}
			not_enforced("network namespace", err);
			spec->netns = spec->userns = false;
			p->netns = false;
			p->network_mode = "unrestricted";
			return start_command(r, p, spec);
		}
		sandbox_refusal(mech, "spawn_failed", err, p->profile, NULL,
		    NULL);
		return EXIT_REFUSED;
	}
	free(prog);
	r->spawned = true;
	if (r->child.listen_fd == -1)
		return 0;
	lo.port = r->child.port;
	if (proxy_listen_fd(r->px, r->child.listen_fd, &lo, err,
	    sizeof(err)) == -1) {
		cli_error("%s", err);
		sandbox_signal(&r->child, SIGKILL);
		sandbox_wait(&r->child, &r->wstatus);
		return EXIT_RUNTIME;
	}
	conf_sockaddr_format(&lo, err, sizeof(err));
	report_listen(r->rep, err);
	return 0;
}

static void
record_exit(struct report *rep, int code, int wstatus)
{
	rep->r.exited = true;
	rep->r.exit_code = code;
	rep->r.exit_signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
}

/* What the report says of the sandbox: what is in force, nothing more. */
static void
record_sandbox(struct report *rep, const struct plan *p, bool refused)
{
	struct attest_sandbox *s = &rep->sandbox;
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	s->profile = sandbox_profile_name(p->profile);
	s->network_mode = refused ? "unsupported_fail_closed" :
	    p->network_mode;
	s->landlock_abi = refused || !p->landlock ? 0 : p->landlock_abi;
	s->seccomp = !refused && p->seccomp;
	if (!refused && p->netns) {
		s->namespaces[n++] = "ipc";
		s->namespaces[n++] = "mount";
		s->namespaces[n++] = "net";
		s->namespaces[n++] = "pid";
		if (p->userns)
			s->namespaces[n++] = "user";
	}
	rep->r.sandbox = s;
}

/* Serve until the command ends; returns its exit code. */
static int
serve_command(struct run *r, struct conf *c, struct plan *p,
    struct sandbox_spec *spec, int logfd)
{
	static const int fwd[] = { SIGINT, SIGTERM, SIGHUP };
	struct event *sigs[3] = { NULL };
	struct dlog *log = NULL;
	char err[256];
	int rv = EXIT_RUNTIME;
	size_t i;

	if ((r->base = proxy_event_base_new()) == NULL ||
	    (log = dlog_new(r->base, logfd, r->rep->r.run_id)) == NULL ||
	    (r->px = proxy_new(r->base, c, log, err, sizeof(err))) == NULL) {
		cli_error("cannot start the proxy");
		if (r->px == NULL)
			conf_free(c);
		goto out;
	}
	if ((rv = start_command(r, p, spec)) != 0)
		goto out;
	rv = EXIT_RUNTIME;
	r->ctl_ev = event_new(r->base, r->child.ctl, EV_READ, ctl_cb, r);
	for (i = 0; i < 3; i++) {
		sigs[i] = evsignal_new(r->base, fwd[i], signal_cb, r);
		if (sigs[i] == NULL || evsignal_add(sigs[i], NULL) == -1)
			break;
	}
	if (r->ctl_ev == NULL || event_add(r->ctl_ev, NULL) == -1 || i < 3 ||
	    event_base_dispatch(r->base) == -1 || !r->done) {
		cli_error("event loop failed");
		if (!r->done) {
			sandbox_signal(&r->child, SIGKILL);
			sandbox_wait(&r->child, &r->wstatus);
		}
		goto out;
	}
	rv = exit_code(r->wstatus);
	record_exit(r->rep, rv, r->wstatus);
out:
	for (i = 0; i < 3; i++)
		if (sigs[i] != NULL)
			event_free(sigs[i]);
	if (r->ctl_ev != NULL)
		event_free(r->ctl_ev);
	proxy_free(r->px);
	if (log != NULL)
		report_log(r->rep, log, r->log_path);
	dlog_free(log);
	if (r->base != NULL)
		event_base_free(r->base);
	return rv;
}

int
run_mode(const struct options *o, struct conf *c, struct report *rep)
{
	struct grants g = { .n = 0 };
	struct strv env = { NULL, 0, 0 };
	struct sandbox_spec spec = { .argv = o->cmd };
	struct run r = { .rep = rep };
	struct plan p;
	char *ws = NULL;
	int rv = EXIT_USAGE, logfd = -1, cmd;

	if (make_plan(o, &p) == -1) {
		record_sandbox(rep, &p, true);
		rep->started = true;
		rv = EXIT_REFUSED;
		goto out;
	}
	p.hide_key = o->sign_key != NULL;
	if ((ws = real_dir("--workspace", o->workspace ? o->workspace :
	    ".")) == NULL || build_env(o, ws, &env) == -1 ||
	    build_grants(o, &p, ws, &g) == -1 ||
	    deny_sign_key(o, &p, &g) == -1)
		goto out;
	if ((cmd = check_command(o->cmd[0])) != 0) {
		cli_error("%s: %s", o->cmd[0], cmd == 127 ?
		    "command not found" : "not executable");
		rv = cmd;
		/* Nothing ran, so no sandbox was in force: sandbox is null. */
		record_exit(rep, cmd, 0);
		rep->started = true;
		goto out;
	}
	if ((logfd = serve_open_log(o->log)) == -1 ||
	    report_log_fd(rep, logfd) == -1)
		goto out;
	rep->started = true;
	r.log_path = logfd > STDERR_FILENO ? o->log : NULL;
	signal(SIGPIPE, SIG_IGN);
	/* Nothing the command runs may read this process's memory. */
	(void)prctl(PR_SET_DUMPABLE, 0);
	spec.netns = p.netns;
	spec.userns = p.userns;
	spec.landlock = p.landlock;
	spec.seccomp = p.seccomp;
	spec.envp = env.v;
	spec.workspace = ws;
	spec.grants = g.v;
	spec.ngrants = g.n;
	spec.deny = (const char *const *)g.deny.v;
	spec.ndeny = g.deny.n;
	spec.max_rules = MAX_LANDLOCK_RULES;
	rv = serve_command(&r, c, &p, &spec, logfd);
	c = NULL;
	/* What was in force; null when the command never started. */
	if (r.spawned)
		record_sandbox(rep, &p, false);
	else if (rv == EXIT_REFUSED)
		record_sandbox(rep, &p, true);
out:
	conf_free(c);
	if (logfd > STDERR_FILENO)
		close(logfd);
	strv_free(&env);
	strv_free(&g.owned);
	strv_free(&g.deny);
	free(ws);
	return rv;
}
