/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run mode (SPEC 6): the proxy, and CMD confined behind it so that the
 * proxy's port is its only network endpoint.  What to confine with is
 * sandbox/'s plan, decided before anything starts; a profile that cannot
 * be met is refused with a record, never weakened in silence.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "cli/cli.h"
#include "cli/direct.h"
#include "cli/options.h"
#include "cli/pty.h"
#include "cli/terminal.h"
#include "cli/answer.h"
#include "cli/report.h"
#include "cli/run.h"
#include "cli/serve.h"
#include "cli/subjects.h"
#include "proxy/proxy.h"
#include "sandbox/sandbox.h"

#define EXIT_REFUSED	3

struct run {
	const struct options	*opt;
	struct report		*rep;
	const char		*log_path;	/* NULL: no log file */
	struct sandbox_host	 host;
	enum sandbox_choice	 choice;
	struct sandbox_plan	 plan;
	struct sandbox_request	 req;
	bool			 spawned;	/* the command started confined */
	struct event_base	*base;
	struct proxy		*px;
	struct sandbox_child	*child;
	struct event		*ctl_ev;
	struct event		*ctl_tick;	/* the same, once a second */
	struct pty		*pty;		/* the command's terminal, or NULL */
	bool			 px_drained, pty_drained;
	struct dlog		*log;
	struct directs		*directs;	/* not_through_proxy */
	struct terminal		*term;		/* refusals said, the summary */
	char			 said[PLAN_LINES * 2][64];	/* WHATs said */
	size_t			 nsaid;
	char			 proxy_addr[64];	/* as CMD reaches it */
	int			 wstatus;
	bool			 done;
};

/* Paths the request points into, owned here. */
struct owned {
	char		*ws, *home, *cache;
	char		*ro[OPT_MAX_ROOTS], *rw[OPT_MAX_ROOTS], *sock[OPT_MAX_ROOTS];
	/* --env NAME=DIR (canonical) for a directory variable, and DIR */
	char		*env[OPT_MAX_ENV], *envdir[OPT_MAX_ENV];
	const char	*envv[OPT_MAX_ENV];
	/* The write roots: --write-root, then the directories named above */
	const char	*rwv[OPT_MAX_ROOTS + OPT_MAX_ENV + 1];
	size_t		 nrw;
};

/* An absolute, existing directory, or a usage error. */
static char *
real_dir(const char *what, const char *path)
{
	struct stat st;
	char err[PATH_MAX * 2 + 200], *r;

	if ((r = sandbox_root_path(path, err, sizeof(err))) == NULL) {
		cli_error("%s %s", what, err);
		return NULL;
	}
	if (stat(r, &st) == -1 || !S_ISDIR(st.st_mode)) {
		cli_error("%s %s: not a directory", what, path);
		free(r);
		return NULL;
	}
	return r;
}

static int
real_dirs(const char *what, const char *const *in, size_t n, char **out)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((out[i] = real_dir(what, in[i])) == NULL)
			return -1;
	return 0;
}

static void
owned_free(struct owned *w)
{
	size_t i;

	free(w->ws);
	free(w->home);
	free(w->cache);
	for (i = 0; i < OPT_MAX_ROOTS; i++) {
		free(w->ro[i]);
		free(w->rw[i]);
		free(w->sock[i]);
	}
	for (i = 0; i < OPT_MAX_ENV; i++) {
		free(w->env[i]);
		free(w->envdir[i]);
	}
}

static int
check_writable(const char *what, const char *path)
{
	char err[512];

	if (sandbox_writable_root_ok(path, err, sizeof(err)) == 0 &&
	    sandbox_home_root_ok(path, err, sizeof(err)) == 0)
		return 0;
	cli_error("%s %s", what, err);
	return -1;
}

static int
check_writable_all(char *const *roots, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (check_writable("--write-root", roots[i]) == -1)
			return -1;
	return 0;
}

static bool
under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/');
}

/* One more write root, unless the workspace or a write root holds it. */
static void
add_write_root(struct owned *w, const char *dir)
{
	size_t i;

	if (under(dir, w->ws))
		return;
	for (i = 0; i < w->nrw; i++)
		if (under(dir, w->rwv[i]))
			return;
	w->rwv[w->nrw++] = dir;
}

/*
 * --cache-dir DIR: an existing directory kept between runs, granted
 * writable; the same refusals as --write-root.
 */
static int
cache_dir(const struct options *o, bool confined, struct owned *w)
{
	if (o->cache_dir == NULL)
		return 0;
	if ((w->cache = real_dir("--cache-dir", o->cache_dir)) == NULL ||
	    (confined && check_writable("--cache-dir", w->cache) == -1))
		return -1;
	add_write_root(w, w->cache);
	return 0;
}

/*
 * --env of a variable naming a directory (TMPDIR, XDG_CACHE_HOME, ...):
 * the user's directory, kept, and granted writable as --write-root would
 * be (SPEC 6.3); given as NAME=VALUE, or the caller's value for NAME.
 * An environment value is never written out: the name form's error
 * names the variable only.
 */
static int
env_dir(const struct options *o, bool confined, struct owned *w, size_t i)
{
	const char *e = o->env[i], *v;
	char err[PATH_MAX * 2 + 200], name[128];
	size_t n = strcspn(e, "=");
	struct stat st = { 0 };

	w->envv[i] = e;
	if (!confined || !sandbox_env_dir_var(e, n))
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)n, e);
	if ((v = e[n] == '=' ? e + n + 1 : getenv(name)) == NULL ||
	    (e[n] != '=' && v[0] == '\0'))
		return 0;	/* unset: the run's own directory */
	if (v[0] != '/' || (w->envdir[i] = sandbox_root_path(v, err,
	    sizeof(err))) == NULL || stat(w->envdir[i], &st) == -1 ||
	    !S_ISDIR(st.st_mode) || sandbox_writable_root_ok(w->envdir[i], err,
	    sizeof(err)) == -1 || sandbox_home_root_ok(w->envdir[i], err,
	    sizeof(err)) == -1) {
		if (e[n] == '=')
			cli_error("--env %s: %s (a directory given for %s is "
			    "granted writable, as --write-root is)", e,
			    v[0] != '/' ? "not an absolute path" :
			    w->envdir[i] == NULL || S_ISDIR(st.st_mode) ? err :
			    "not a directory", name);
		else
			cli_error("--env %s: the caller's %s is not an absolute, "
			    "existing directory that may be granted writable as "
			    "--write-root is (not a system directory or $HOME, "
			    "no symbolic link on the way); give --env %s=DIR",
			    name, name, name);
		return -1;
	}
	if (asprintf(&w->env[i], "%s=%s", name, w->envdir[i]) == -1) {
		w->env[i] = NULL;
		cli_error("out of memory");
		return -1;
	}
	w->envv[i] = w->env[i];
	add_write_root(w, w->envdir[i]);
	return 0;
}

/* The request from the command line; -1 after a usage error. */
static int
build_request(const struct options *o, enum sandbox_profile profile,
    struct owned *w, struct sandbox_request *r)
{
	const char *home;
	size_t i;

	memset(r, 0, sizeof(*r));
	if ((w->ws = real_dir("--workspace", o->workspace ? o->workspace :
	    ".")) == NULL ||
	    real_dirs("--read-only-root", o->ro_roots, o->nro_roots, w->ro) ==
	    -1 ||
	    real_dirs("--write-root", o->rw_roots, o->nrw_roots, w->rw) == -1 ||
	    real_dirs("--unix-socket-root", o->socket_roots, o->nsocket_roots,
	    w->sock) == -1)
		return -1;
	if (profile != PROFILE_UNRESTRICTED &&
	    (check_writable("--workspace", w->ws) == -1 ||
	    check_writable_all(w->rw, o->nrw_roots) == -1))
		return -1;
	for (i = 0; i < o->nrw_roots; i++)
		w->rwv[w->nrw++] = w->rw[i];
	if (cache_dir(o, profile != PROFILE_UNRESTRICTED, w) == -1)
		return -1;
	for (i = 0; i < o->nenv; i++)
		if (env_dir(o, profile != PROFILE_UNRESTRICTED, w, i) == -1)
			return -1;
	for (i = 0; i < o->ndeny_roots; i++) {
		if (o->deny_roots[i][0] != '/') {
			cli_error("--read-deny-root %s: not an absolute path",
			    o->deny_roots[i]);
			return -1;
		}
	}
	r->profile = profile;
	r->argv = o->cmd;
	r->workspace = w->ws;
	/*
	 * Canonical: the denied paths below it are judged by the canonical
	 * names of what they lead to.  None (or not absolute, or missing):
	 * nothing there to deny.
	 */
	if ((home = getenv("HOME")) != NULL && home[0] == '/' &&
	    (w->home = realpath(home, NULL)) != NULL)
		r->home_given = home;
	r->home = w->home;
	r->ro_roots = (const char *const *)w->ro;
	r->nro_roots = o->nro_roots;
	r->rw_roots = w->rwv;
	r->nrw_roots = w->nrw;
	r->cache_dir = w->cache;
	r->socket_roots = (const char *const *)w->sock;
	r->nsocket_roots = o->nsocket_roots;
	r->deny = o->deny_roots;
	r->ndeny = o->ndeny_roots;
	r->env_names = w->envv;
	r->nenv_names = o->nenv;
	r->sign_key = o->sign_key;
	r->limits.max_procs = o->max_procs;
	r->limits.tmpfs_size = o->tmpfs_size;
	r->limits.max_memory = o->max_memory;
	return 0;
}

/*
 * The log, the report and the port file are written by this process:
 * a path the command can write (or could, in an earlier run, have made a
 * symlink in) would let it choose what they overwrite, or write lines
 * into the decision log itself.
 */
static int
check_outputs(const struct options *o, const struct sandbox_request *r)
{
	const struct {
		const char	*opt, *path;
	} out[] = {
		{ "--log", o->log }, { "--attest", o->attest },
		{ "--port-file", o->port_file },
	};
	size_t i;

	if (o->log != NULL && strcmp(o->log, "-") == 0) {
		cli_error("--log -: in run mode stderr is the command's too, "
		    "and a line it writes there would pass for a decision; "
		    "give --log FILE outside the workspace");
		return -1;
	}
	if (r->profile == PROFILE_UNRESTRICTED)
		return 0;
	for (i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		if (out[i].path == NULL || !sandbox_may_write(r, out[i].path))
			continue;
		cli_error("%s %s: inside a root the command can write; put it "
		    "outside the workspace and the write roots", out[i].opt,
		    out[i].path);
		return -1;
	}
	return 0;
}

/*
 * A file of ours with another hard link: that name could lie in the
 * command's reach (a workspace copied with cp -al), and writing there
 * would write this file.  fd, or path when fd is -1.
 */
static int
check_links(const char *opt, const char *path, int fd,
    enum sandbox_profile profile)
{
	struct stat st;

	if (profile == PROFILE_UNRESTRICTED)
		return 0;
	if ((fd != -1 ? fstat(fd, &st) : stat(path, &st)) == -1 ||
	    !S_ISREG(st.st_mode) || st.st_nlink <= 1)
		return 0;
	cli_error("%s %s: has %ju hard links, and the command could write "
	    "this file through one in its reach; give it a file of its own",
	    opt, path, (uintmax_t)st.st_nlink);
	return -1;
}

/*
 * The policy is read again at each run and at SIGHUP: one the command
 * can write (or reach through a link it can change) would let it widen
 * what the next run, or this one after a reload, allows.
 */
static int
check_policy(const struct options *o, const struct sandbox_request *r)
{
	char *real;
	bool reach;

	if (o->policy == NULL || r->profile == PROFILE_UNRESTRICTED)
		return 0;
	reach = sandbox_may_write(r, o->policy);
	if (!reach && (real = realpath(o->policy, NULL)) != NULL) {
		reach = sandbox_may_write(r, real);
		free(real);
	}
	if (!reach)
		return check_links("--policy", o->policy, -1, r->profile);
	cli_error("--policy %s: inside a root the command can write, so it "
	    "could widen the policy of a later run or reload; keep the policy "
	    "outside the workspace and the write roots (for example "
	    "install -Dm644 %s ~/.config/harn-egressd/egress.conf)", o->policy,
	    o->policy);
	return -1;
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

/*
 * One line for each mechanism the plan goes without, once a run: a plan
 * made again (a confinement whose set-up failed) says only what is new.
 */
static void
say_not_enforced(struct run *r)
{
	const struct sandbox_plan *p = &r->plan;
	const char *tab;
	size_t i, k;
	int n;

	for (i = 0; i < p->nlines; i++) {
		tab = strchr(p->lines[i], '\t');
		n = (int)(tab - p->lines[i]);
		for (k = 0; k < r->nsaid; k++)
			if (strncmp(r->said[k], p->lines[i], (size_t)n) == 0 &&
			    r->said[k][n] == '\0')
				break;
		if (k < r->nsaid)
			continue;
		if (r->nsaid < sizeof(r->said) / sizeof(r->said[0]))
			snprintf(r->said[r->nsaid++], sizeof(r->said[0]),
			    "%.*s", n, p->lines[i]);
		cli_error("sandbox: not enforced: %.*s (%s)", n, p->lines[i],
		    tab + 1);
	}
}

/* Plan again; a refusal is written and -1 returned. */
static int
plan(struct run *r, enum sandbox_profile profile)
{
	struct sandbox_plan_input in = {
		.profile = profile,
		.choice = r->choice,
		.host = &r->host,
		.max_memory = r->opt->max_memory != 0,
		.tmpfs_size = r->opt->tmpfs_size_given,
		.hide_key = r->opt->sign_key != NULL,
		.uid_fits = r->host.root && sandbox_uid_fits(&r->req),
		.roots_root = r->host.root && sandbox_roots_root(&r->req),
	};

	sandbox_plan(&in, &r->plan);
	/*
	 * A refusal lists what each confinement lacked (SPEC 6.4): namespaces
	 * that only the quick probe has seen are tried whole first, so that a
	 * set-up refused at entry is said, not just the Landlock they lack.
	 */
	if (r->plan.refused && r->plan.ntried > 0 &&
	    r->plan.tried[0].confinement == CONFINEMENT_NAMESPACES &&
	    r->plan.tried[0].mech != MECH_NAMESPACES && !r->host.ns_tried &&
	    !r->host.failed[CONFINEMENT_NAMESPACES]) {
		sandbox_probe_namespaces(&r->host);
		sandbox_plan(&in, &r->plan);
	}
	if (!r->plan.refused)
		return 0;
	sandbox_refusal(r->plan.area, "unsupported_fail_closed",
	    r->plan.detail, profile, r->plan.mech, r->plan.avail,
	    r->plan.tried, r->plan.ntried);
	return -1;
}

static void
signal_cb(evutil_socket_t sig, short ev, void *arg)
{
	struct run *r = arg;

	if (r->child != NULL)
		sandbox_signal(r->child, (int)sig);
}

/* The proxy is drained, and the command's output all shown. */
static void
drained_cb(void *arg)
{
	struct run *r = arg;

	r->px_drained = true;
	if (r->pty_drained)
		event_base_loopexit(r->base, NULL);
}

static void
pty_drained_cb(void *arg)
{
	struct run *r = arg;

	r->pty_drained = true;
	if (r->px_drained)
		event_base_loopexit(r->base, NULL);
}

/*
 * What the sandbox says: a refusal of its broker's (logged), or that the
 * command ended (its init wrote the status, or the set-up died).
 */
static void
ctl_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct run *r = arg;
	struct sandbox_direct d;
	int rv;

	while ((rv = sandbox_next(r->child, &d)) == 1)
		if (r->directs != NULL)
			directs_add(r->directs, &d);
	if (rv == -1)
		return;
	r->wstatus = sandbox_wait(r->child);
	r->done = true;
	event_del(r->ctl_ev);
	if (r->ctl_tick != NULL)
		event_del(r->ctl_tick);
	if (r->pty != NULL)
		pty_finish(r->pty, pty_drained_cb, r);
	else
		r->pty_drained = true;
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

static int
port_file(const struct run *r, const char *bound)
{
	if (r->opt->port_file == NULL ||
	    serve_write_port_file(r->opt->port_file, bound) == 0)
		return 0;
	cli_error("--port-file %s: %s", r->opt->port_file, strerror(errno));
	return -1;
}

/* Listen on the host's loopback: the command shares our network. */
static int
listen_on_host(struct run *r)
{
	char err[256], bound[64];

	if (proxy_listen(r->px, &cli_loopback, bound, sizeof(bound), err,
	    sizeof(err)) == -1) {
		cli_error("%s", err);
		return -1;
	}
	r->req.host_port = (unsigned short)atoi(strrchr(bound, ':') + 1);
	snprintf(r->proxy_addr, sizeof(r->proxy_addr), "%s", bound);
	report_listen(r->rep, bound);
	return port_file(r, bound);
}

/* The proxy serves the listener made inside the command's namespace. */
static int
listen_inside(struct run *r)
{
	struct conf_sockaddr lo = cli_loopback;
	char err[256];
	int fd;

	if ((fd = sandbox_take_listener(r->child, &lo.port)) == -1)
		return 0;
	if (proxy_listen_fd(r->px, fd, &lo, err, sizeof(err)) == -1) {
		cli_error("%s", err);
		return -1;
	}
	if (answer_inside(r->child, r->px) == -1)
		return -1;
	conf_sockaddr_format(&lo, r->proxy_addr, sizeof(r->proxy_addr));
	report_listen(r->rep, r->proxy_addr);
	return port_file(r, r->proxy_addr);
}

/* Who opened a connection the proxy accepted: the sandbox knows. */
static int
run_owner(void *arg, int fd, pid_t *pid, char *exe, size_t len,
    enum proxy_via *via)
{
	struct run *r = arg;
	enum sandbox_via sv;
	int rv = sandbox_owner(r->child, fd, pid, exe, len, &sv);

	*via = sv == SANDBOX_VIA_DNS ? PROXY_VIA_DNS :
	    sv == SANDBOX_VIA_TRANSPARENT ? PROXY_VIA_TRANSPARENT :
	    PROXY_VIA_CLIENT;

	/* Refusals read on the way wait for ctl_cb: init waits for them. */
	if (sandbox_queued(r->child) && r->ctl_ev != NULL)
		event_active(r->ctl_ev, EV_READ, 0);
	return rv;
}

/*
 * A confinement whose set-up failed part-way did not attach: the host
 * lacks it, and the plan is made again without it.
 */
static void
setup_failed(struct run *r, const struct sandbox_failure *f)
{
	enum sandbox_confinement c = r->plan.confinement;

	r->host.failed[c] = true;
	r->host.failed_mech[c] = f->mech >= 0 && f->mech < MECH_COUNT ?
	    f->mech : c == CONFINEMENT_NAMESPACES ? MECH_NAMESPACES :
	    MECH_SECCOMP;
	snprintf(r->host.failed_why[c], sizeof(r->host.failed_why[c]), "%s",
	    f->text);
}

/*
 * Start the command.  The child sets itself up while we go on; a
 * confinement that cannot attach gets the profile's answer: os_hardened
 * refuses, the others go on without it and say so.  Returns 0, or the
 * exit code to leave with.
 */
static int
start_command(struct run *r)
{
	struct sandbox_failure f;

	if (r->plan.confinement != CONFINEMENT_NAMESPACES &&
	    listen_on_host(r) == -1)
		return EXIT_RUNTIME;
	if ((r->child = sandbox_start(&r->req, &r->plan, &f)) == NULL) {
		sandbox_refusal(f.area, "spawn_failed", f.text,
		    r->plan.profile, f.mech, AVAIL_CANNOT_ATTACH,
		    r->plan.tried, r->plan.ntried);
		return EXIT_REFUSED;
	}
	if (sandbox_ready(r->child, &f) == -1) {
		sandbox_free(r->child);
		r->child = NULL;
		if (f.setup && r->plan.confinement != CONFINEMENT_NONE) {
			setup_failed(r, &f);
			if (plan(r, r->plan.profile) == -1)
				return EXIT_REFUSED;
			say_not_enforced(r);
			return start_command(r);
		}
		sandbox_refusal(f.area, "spawn_failed", f.text,
		    r->plan.profile, f.mech, AVAIL_CANNOT_ATTACH,
		    r->plan.tried, r->plan.ntried);
		return EXIT_REFUSED;
	}
	r->spawned = true;
	proxy_set_owner(r->px, run_owner, r);
	answer_standins(r->child, r->px);
	answer_held(r->child, r->px);
	if (listen_inside(r) == -1 || (r->directs = directs_new(r->base,
	    r->log, r->proxy_addr, r->term)) == NULL) {
		sandbox_signal(r->child, SIGKILL);
		(void)sandbox_wait(r->child);
		return EXIT_RUNTIME;
	}
	return 0;
}

/*
 * The command's terminal (SPEC 6.1): a pseudo-terminal of its own when
 * one of our standard streams is a terminal, never the caller's.  0, or
 * the exit code.
 */
static int
open_terminal(struct run *r)
{
	char err[256];

	if ((r->pty = pty_open(err, sizeof(err))) == NULL && err[0] != '\0') {
		cli_error("cannot make the command's terminal: %s; nothing was "
		    "started (with its standard streams redirected, as in "
		    "</dev/null >FILE 2>&1, it needs none)", err);
		return EXIT_RUNTIME;
	}
	r->req.tty = pty_sandbox(r->pty);
	return 0;
}

/* Relayed on the loop while the command runs. */
static int
relay_terminal(struct run *r)
{
	char err[256];

	if (r->pty == NULL || pty_start(r->pty, r->base, err,
	    sizeof(err)) == 0)
		return 0;
	cli_error("%s", err);
	return -1;
}

/* The run's loop taken down, in the order the caller is to see it. */
static void
serve_end(struct run *r, struct event **sigs)
{
	size_t i;

	/* The caller's terminal as it was, before anything more is said. */
	pty_free(r->pty);
	r->pty = NULL;
	for (i = 0; i < 3; i++)
		if (sigs[i] != NULL)
			event_free(sigs[i]);
	if (r->ctl_ev != NULL)
		event_free(r->ctl_ev);
	if (r->ctl_tick != NULL)
		event_free(r->ctl_tick);
	/* The command is gone, its broker with it: the last folded lines. */
	if (r->px != NULL) {
		proxy_set_owner(r->px, NULL, NULL);
		proxy_set_decided(r->px, NULL, NULL);
	}
	sandbox_free(r->child);
	r->child = NULL;
	directs_free(r->directs);
	r->directs = NULL;
	proxy_free(r->px);
	if (r->log != NULL)
		report_log(r->rep, r->log, r->log_path);
	dlog_free(r->log);
	/* Every decision made, the terminal back: the summary, last. */
	if (r->term != NULL)
		terminal_summary(r->term);
	terminal_free(r->term);
	r->term = NULL;
	if (r->base != NULL)
		event_base_free(r->base);
}

/* Serve until the command ends; returns its exit code. */
static int
serve_command(struct run *r, struct conf *c, int logfd)
{
	static const int fwd[] = { SIGINT, SIGTERM, SIGHUP };
	struct timeval tick = { 1, 0 };
	struct event *sigs[3] = { NULL };
	struct dlog *log = NULL;
	char err[256];
	int rv = EXIT_RUNTIME;
	size_t i;

	if ((r->base = proxy_event_base_new()) == NULL ||
	    (log = r->log = dlog_new(r->base, logfd, r->rep->r.run_id)) ==
	    NULL ||
	    (r->px = proxy_new(r->base, c, log, err, sizeof(err))) == NULL) {
		cli_error("cannot start the proxy");
		if (r->px == NULL)
			conf_free(c);
		goto out;
	}
	/* What the person at the terminal is told, --log or not (6.1). */
	if ((r->term = terminal_new(r->px, r->log_path, r->opt->quiet)) ==
	    NULL) {
		cli_error("out of memory");
		goto out;
	}
	dlog_observe(log, terminal_decision, r->term);
	if (serve_metrics(r->px, r->opt, err, sizeof(err)) == -1)
		goto out;
	/*
	 * Caught from before the start: a SIGTERM while the command is set
	 * up is passed to it once it runs, and harn-egressd ends as the run
	 * does (its private directory removed), never by the default action.
	 */
	for (i = 0; i < 3; i++) {
		sigs[i] = evsignal_new(r->base, fwd[i], signal_cb, r);
		if (sigs[i] == NULL || evsignal_add(sigs[i], NULL) == -1)
			break;
	}
	if ((rv = open_terminal(r)) != 0 || (rv = start_command(r)) != 0)
		goto out;
	rv = EXIT_RUNTIME;
	r->ctl_ev = event_new(r->base, sandbox_ctl_fd(r->child), EV_READ |
	    EV_PERSIST, ctl_cb, r);
	/* Refusals read while the command started are logged first thing. */
	if (r->ctl_ev != NULL && sandbox_queued(r->child))
		event_active(r->ctl_ev, EV_READ, 0);
	/*
	 * The control socket is also read once a second, never waiting: the
	 * command's end is then seen even if its readiness were missed (a
	 * run was once seen waiting with the end queued and the socket out
	 * of the loop's epoll set, cause not found).
	 */
	r->ctl_tick = event_new(r->base, -1, EV_PERSIST, ctl_cb, r);
	if (r->ctl_ev == NULL || event_add(r->ctl_ev, NULL) == -1 || i < 3 ||
	    r->ctl_tick == NULL || event_add(r->ctl_tick, &tick) == -1 ||
	    relay_terminal(r) == -1 ||
	    event_base_dispatch(r->base) == -1 || !r->done) {
		cli_error("event loop failed");
		if (!r->done) {
			sandbox_signal(r->child, SIGKILL);
			r->wstatus = sandbox_wait(r->child);
		}
		goto out;
	}
	rv = exit_code(r->wstatus);
	report_exit(r->rep, rv, r->wstatus);
out:
	serve_end(r, sigs);
	return rv;
}

int
run_mode(const struct options *o, struct conf *c, struct report *rep)
{
	struct run r = { .opt = o, .rep = rep };
	struct owned w;
	enum sandbox_profile profile;
	int rv = EXIT_USAGE, logfd = -1, cmd;

	memset(&w, 0, sizeof(w));
	if (o->no_sandbox)
		profile = PROFILE_UNRESTRICTED;
	else if (sandbox_profile_parse(o->profile, &profile) == -1)
		goto out;
	if (sandbox_choice_parse(o->confinement, &r.choice) == -1)
		goto out;
	if (o->sign_key != NULL && profile == PROFILE_UNRESTRICTED) {
		cli_error("--sign-key %s: the command could read the key and "
		    "sign a report of its own (no sandbox); nothing was started",
		    o->sign_key);
		goto out;
	}
	if (build_request(o, profile, &w, &r.req) == -1 ||
	    check_outputs(o, &r.req) == -1 || check_policy(o, &r.req) == -1 ||
	    subjects_place(rep, o, &r.req) == -1)
		goto out;
	r.req.transparent = c->transparent;
	if (o->log != NULL && ((logfd = serve_open_log(o->log)) == -1 ||
	    check_links("--log", o->log, logfd, profile) == -1 ||
	    report_log_fd(rep, logfd) == -1))
		goto out;
	r.log_path = o->log;
	sandbox_probe(&r.host, true, o->max_memory != 0);
	if (plan(&r, profile) == -1) {
		report_sandbox(rep, &r.plan);
		rep->started = true;
		rv = EXIT_REFUSED;
		goto out;
	}
	if ((cmd = check_command(o->cmd[0])) != 0) {
		cli_error("%s: %s", o->cmd[0], cmd == 127 ?
		    "command not found" : "not executable");
		rv = cmd;
		/* Nothing ran, so no sandbox was in force: sandbox is null. */
		report_exit(rep, cmd, 0);
		rep->started = true;
		goto out;
	}
	rep->started = true;
	say_not_enforced(&r);
	cli_say_report_mode(c);
	signal(SIGPIPE, SIG_IGN);
	/* Nothing the command runs may read this process's memory. */
	(void)prctl(PR_SET_DUMPABLE, 0);
	rv = serve_command(&r, c, logfd);
	c = NULL;
	if (rv != 0 && r.spawned)
		run_hint_paths(&r.req, &r.plan, o->cmd);
	/* What was in force; null when the command never started. */
	if (r.spawned)
		report_sandbox(rep, &r.plan);
	else if (rv == EXIT_REFUSED) {
		r.plan.refused = true;
		r.plan.network_mode = "unsupported_fail_closed";
		report_sandbox(rep, &r.plan);
	}
out:
	/* The subjects are read with the rights the command ran with. */
	subjects_plan(rep, &r.plan);
	conf_free(c);
	if (logfd > STDERR_FILENO)
		close(logfd);
	owned_free(&w);
	return rv;
}
