/* SPDX-License-Identifier: Apache-2.0 */
/* The command line of service and run mode. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/attest.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "sandbox/sandbox.h"

/* Every option from OPT_PROFILE on is for run mode only. */
enum {
	OPT_POLICY = 256, OPT_LISTEN, OPT_PORT_FILE, OPT_LOG, OPT_ATTEST,
	OPT_ATTEST_FORMAT, OPT_ATTEST_SUBJECT, OPT_ATTEST_SUBJECT_MAX,
	OPT_SIGN_KEY, OPT_METRICS, OPT_PROFILE,
	OPT_WORKSPACE, OPT_RO_ROOT, OPT_RW_ROOT, OPT_DENY_ROOT, OPT_ENV,
	OPT_NO_SANDBOX, OPT_SOCKET_ROOT, OPT_MAX_PROCS, OPT_TMPFS_SIZE,
	OPT_MAX_MEMORY, OPT_CONFINEMENT, OPT_QUIET, OPT_CACHE_DIR
};

static const struct option longopts[] = {
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "port-file", required_argument, NULL, OPT_PORT_FILE },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "attest", required_argument, NULL, OPT_ATTEST },
	{ "attest-format", required_argument, NULL, OPT_ATTEST_FORMAT },
	{ "attest-subject", required_argument, NULL, OPT_ATTEST_SUBJECT },
	{ "attest-subject-max", required_argument, NULL,
	    OPT_ATTEST_SUBJECT_MAX },
	{ "sign-key", required_argument, NULL, OPT_SIGN_KEY },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "workspace", required_argument, NULL, OPT_WORKSPACE },
	{ "read-only-root", required_argument, NULL, OPT_RO_ROOT },
	{ "write-root", required_argument, NULL, OPT_RW_ROOT },
	{ "read-deny-root", required_argument, NULL, OPT_DENY_ROOT },
	{ "env", required_argument, NULL, OPT_ENV },
	{ "no-sandbox", no_argument, NULL, OPT_NO_SANDBOX },
	{ "unix-socket-root", required_argument, NULL, OPT_SOCKET_ROOT },
	{ "max-procs", required_argument, NULL, OPT_MAX_PROCS },
	{ "tmpfs-size", required_argument, NULL, OPT_TMPFS_SIZE },
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
	{ "confinement", required_argument, NULL, OPT_CONFINEMENT },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "cache-dir", required_argument, NULL, OPT_CACHE_DIR },
	{ NULL, 0, NULL, 0 }
};

static const char *const profiles[] = {
	"os_hardened", "worktree", "workspace_paths", "unrestricted", NULL
};

static int
add_str(const char **v, size_t *n, size_t max, const char *s,
    const char *what)
{
	if (*n == max) {
		cli_error("more than %zu %s options", max, what);
		return -1;
	}
	v[(*n)++] = s;
	return 0;
}

/*
 * --env NAME or NAME=VALUE: never a name that steers the loader, nor a
 * value for one harn-egressd sets itself (it could not be honoured).
 */
static int
check_env(const char *s)
{
	size_t i, n = strcspn(s, "=");

	if (n == 0) {
		cli_error("--env takes NAME or NAME=VALUE: no name given");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' &&
		    s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '_')) {
			cli_error("--env: '%.*s' is not a variable name", (int)n,
			    s);
			return -1;
		}
	}
	if (strncmp(s, "LD_", 3) == 0 || (n == 14 &&
	    strncmp(s, "GLIBC_TUNABLES", n) == 0) || (n == 13 &&
	    strncmp(s, "SSH_AUTH_SOCK", n) == 0) || (n == 13 &&
	    strncmp(s, "NOTIFY_SOCKET", n) == 0)) {
		cli_error("--env %.*s: never passed to the command", (int)n, s);
		return -1;
	}
	if (s[n] == '=' && sandbox_env_reserved(s, n)) {
		cli_error("--env %.*s=...: set by harn-egressd itself (the "
		    "proxy's address), never given", (int)n, s);
		return -1;
	}
	return 0;
}

/* N, or N followed by k, m or g (powers of 1024); at least min. */
static int
parse_size(const char *what, const char *s, unsigned long long min,
    unsigned long long *out)
{
	unsigned long long v, mul = 1;
	char *end;

	errno = 0;
	if (s[0] < '0' || s[0] > '9' ||
	    ((v = strtoull(s, &end, 10)), errno != 0))
		goto bad;
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	}
	if (*end != '\0' || v > (1ULL << 50) / mul || v * mul < min)
		goto bad;
	*out = v * mul;
	return 0;
bad:
	cli_error("%s %s: want a size of at least %llu bytes (N, Nk, Nm, Ng)",
	    what, s, min);
	return -1;
}

static int
parse_procs(const char *s, unsigned *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	if (s[0] < '0' || s[0] > '9' ||
	    ((v = strtoul(s, &end, 10)), errno != 0) || *end != '\0' ||
	    v < 1 || v > 4194304) {
		cli_error("--max-procs %s: want a number of processes, 1 to "
		    "4194304", s);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int
add_listen(struct options *o, const char *s)
{
	const char *err;

	if (o->nlisten == CONF_MAX_LISTEN) {
		cli_error("more than %d --listen options", CONF_MAX_LISTEN);
		return -1;
	}
	if (conf_sockaddr_parse(s, strlen(s), 0, true,
	    &o->listen[o->nlisten], &err) == -1) {
		cli_error("--listen %s: %s", s, err);
		return -1;
	}
	o->nlisten++;
	return 0;
}

/* --metrics: a loopback ADDR:PORT or unix:PATH (SPEC 8.1), else usage. */
static int
check_metrics(struct options *o, const char *arg)
{
	struct conf_sockaddr sa;
	const char *err = NULL;

	if (o->metrics != NULL) {
		cli_error("--metrics %s: given twice", arg);
		return -1;
	}
	if (strncmp(arg, "unix:", 5) == 0) {
		if (arg[5] != '/') {
			cli_error("--metrics %s: want unix:/ABSOLUTE/PATH", arg);
			return -1;
		}
	} else if (conf_sockaddr_parse(arg, strlen(arg), 0, true, &sa,
	    &err) == -1 || !egress_addr_is_loopback(&sa.addr)) {
		cli_error("--metrics %s: %s", arg, err != NULL ? err :
		    "not loopback: want a loopback ADDR:PORT or unix:PATH");
		return -1;
	}
	o->metrics = arg;
	return 0;
}

static int
one_option(struct options *o, int ch, const char *arg)
{
	size_t i;

	switch (ch) {
	case OPT_POLICY: o->policy = arg; return 0;
	case OPT_LISTEN: return add_listen(o, arg);
	case OPT_PORT_FILE: o->port_file = arg; return 0;
	case OPT_LOG: o->log = arg; return 0;
	case OPT_ATTEST: o->attest = arg; return 0;
	case OPT_ATTEST_FORMAT:
		if (strcmp(arg, "json") != 0 && strcmp(arg, "dsse") != 0) {
			cli_error("--attest-format %s: want json or dsse", arg);
			return -1;
		}
		o->attest_format = arg;
		return 0;
	case OPT_ATTEST_SUBJECT:
		return add_str(o->subjects, &o->nsubjects, OPT_MAX_SUBJECTS,
		    arg, "--attest-subject");
	case OPT_ATTEST_SUBJECT_MAX:
		o->subject_max_given = true;
		return parse_size("--attest-subject-max", arg, 1,
		    &o->subject_max);
	case OPT_SIGN_KEY: o->sign_key = arg; return 0;
	case OPT_METRICS: return check_metrics(o, arg);
	case OPT_WORKSPACE: o->workspace = arg; return 0;
	case OPT_CACHE_DIR: o->cache_dir = arg; return 0;
	case OPT_NO_SANDBOX: o->no_sandbox = true; return 0;
	case OPT_QUIET: o->quiet = true; return 0;
	case OPT_RO_ROOT:
		return add_str(o->ro_roots, &o->nro_roots, OPT_MAX_ROOTS, arg,
		    "--read-only-root");
	case OPT_RW_ROOT:
		return add_str(o->rw_roots, &o->nrw_roots, OPT_MAX_ROOTS, arg,
		    "--write-root");
	case OPT_DENY_ROOT:
		return add_str(o->deny_roots, &o->ndeny_roots, OPT_MAX_ROOTS,
		    arg, "--read-deny-root");
	case OPT_SOCKET_ROOT:
		return add_str(o->socket_roots, &o->nsocket_roots,
		    OPT_MAX_ROOTS, arg, "--unix-socket-root");
	case OPT_MAX_PROCS: return parse_procs(arg, &o->max_procs);
	case OPT_CONFINEMENT: {
		enum sandbox_choice c;

		if (sandbox_choice_parse(arg, &c) == -1) {
			cli_error("--confinement %s: want auto, namespaces or "
			    "landlock", arg);
			return -1;
		}
		o->confinement = arg;
		return 0;
	}
	case OPT_TMPFS_SIZE:
		o->tmpfs_size_given = true;
		return parse_size("--tmpfs-size", arg, 1ULL << 20,
		    &o->tmpfs_size);
	case OPT_MAX_MEMORY:
		return parse_size("--max-memory", arg, 16ULL << 20,
		    &o->max_memory);
	case OPT_ENV:
		if (check_env(arg) == -1)
			return -1;
		return add_str(o->env, &o->nenv, OPT_MAX_ENV, arg, "--env");
	case OPT_PROFILE:
		for (i = 0; profiles[i] != NULL; i++)
			if (strcmp(arg, profiles[i]) == 0)
				break;
		if (profiles[i] == NULL) {
			cli_error("--profile %s: want os_hardened, worktree, "
			    "workspace_paths or unrestricted", arg);
			return -1;
		}
		o->profile = arg;
		return 0;
	}
	cli_error("usage: see harn-egressd --help");
	return -1;
}

/* An unknown option, or one without its argument: one line, and a guess. */
static int
bad_option(int ch, const char *arg)
{
	const char *names[sizeof(longopts) / sizeof(longopts[0])], *near;
	char word[64];
	size_t i, n = 0;

	if (ch == ':') {
		cli_error("%s needs a value (see harn-egressd --help)", arg);
		return -1;
	}
	for (i = 0; longopts[i].name != NULL; i++)
		names[n++] = longopts[i].name;
	snprintf(word, sizeof(word), "%s", arg + strspn(arg, "-"));
	word[strcspn(word, "=")] = '\0';
	if ((near = cli_nearest(word, names, n)) != NULL)
		cli_error("unknown option %s (did you mean --%s?)", arg, near);
	else
		cli_error("unknown option %s (see harn-egressd --help)", arg);
	return -1;
}

int
options_parse(int argc, char **argv, struct options *o)
{
	const char *run_only = NULL;
	int ch, li = 0;

	memset(o, 0, sizeof(*o));
	o->profile = "worktree";
	o->confinement = "auto";
	o->max_procs = SANDBOX_MAX_PROCS;
	o->tmpfs_size = SANDBOX_TMPFS_SIZE;
	o->subject_max = ATTEST_SUBJECT_MAX_DEFAULT;
	optind = 1;
	opterr = 0;		/* our own one-line messages */
	/*
	 * "+": stop at the first non-option, so CMD's own flags stay its own;
	 * ":": a missing argument is told apart from an unknown option.
	 */
	while ((ch = getopt_long(argc, argv, "+:", longopts, &li)) != -1) {
		if (ch == '?' || ch == ':')
			return bad_option(ch, argv[optind - 1]);
		if (one_option(o, ch, optarg) == -1)
			return -1;
		if (run_only == NULL && ch >= OPT_PROFILE)
			run_only = longopts[li].name;
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0) {
			cli_error("unexpected argument '%s' (a command goes "
			    "after --)", argv[optind]);
			return -1;
		}
		o->cmd = argv + optind;
	} else if (optind > 0 && optind <= argc &&
	    strcmp(argv[optind - 1], "--") == 0) {
		cli_error("-- given without a command");
		return -1;
	}
	/* A sandbox option without a command would be silently ignored. */
	if (o->cmd == NULL && run_only != NULL) {
		cli_error("--%s is for run mode: harn-egressd --policy FILE "
		    "[options] -- CMD [ARG...]", run_only);
		return -1;
	}
	return 0;
}
