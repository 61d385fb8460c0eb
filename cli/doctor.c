/* SPDX-License-Identifier: Apache-2.0 */
/*
 * doctor: what this host can enforce, found by doing it (SPEC 6.5), and
 * what each profile would get here: the same plan a run makes.  With a
 * policy (--policy, or the environment's), whether its rules would be
 * enforced at all (mode report, SPEC 3.1).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "sandbox/sandbox.h"

/* The host, and a trial run of each confinement (SPEC 6.5). */
struct findings {
	struct sandbox_host	 h;
	bool			 attaches[CONFINEMENT_COUNT];
	char			 why[CONFINEMENT_COUNT][256];
};

static void
find(struct findings *fd)
{
	enum sandbox_confinement c;

	memset(fd, 0, sizeof(*fd));
	sandbox_probe(&fd->h, false, true);
	for (c = CONFINEMENT_NAMESPACES; c < CONFINEMENT_COUNT; c++)
		fd->attaches[c] = sandbox_trial(&fd->h, c, fd->why[c],
		    sizeof(fd->why[c])) == 0;
}

static void
plan_for(const struct sandbox_host *h, enum sandbox_profile p,
    struct sandbox_plan *out)
{
	struct sandbox_plan_input in = { .profile = p, .choice = CHOICE_AUTO,
	    .host = h, .uid_fits = true };

	sandbox_plan(&in, out);
}

static json_t *
mech_json(const struct sandbox_host *h, enum sandbox_mech m)
{
	return json_pack("{s:b, s:s, s:s}", "attaches",
	    h->avail[m] == AVAIL_YES, "availability",
	    sandbox_avail_name(h->avail[m]), "why", h->why[m]);
}

static json_t *
confinements_json(const struct findings *fd)
{
	enum sandbox_confinement c;
	json_t *o;

	if ((o = json_object()) == NULL)
		return NULL;
	for (c = CONFINEMENT_NAMESPACES; c < CONFINEMENT_COUNT; c++)
		if (json_object_set_new(o, sandbox_confinement_name(c),
		    json_pack("{s:b, s:s}", "attaches", fd->attaches[c], "why",
		    fd->attaches[c] ? "" : fd->why[c])) == -1) {
			json_decref(o);
			return NULL;
		}
	return o;
}

/* What each profile's line adds for the policy: its mode. */
static const char *
policy_note(const struct conf *c)
{
	if (c == NULL)
		return "";
	return egress_policy_report(c->policy) ? "; policy in report mode: "
	    "what its rules refuse is let through, logged report_only" :
	    "; policy enforced";
}

/*
 * Where a run's TMPDIR, caches and npmrc stand-in go (SPEC 6.3): never
 * the workspace.
 */
static const char *
private_dir(enum sandbox_confinement c)
{
	if (c == CONFINEMENT_NAMESPACES)
		return "/tmp/harn-egressd on the command's own /tmp, gone with "
		    "it";
	if (c == CONFINEMENT_LANDLOCK)
		return "$TMPDIR (or /tmp)/harn-egressd.XXXXXX/run, the "
		    "command's alone, removed at exit";
	return "the caller's own (unconfined)";
}

static int
doctor_json(const struct findings *fd, const struct conf *c)
{
	const struct sandbox_host *h = &fd->h;
	struct sandbox_plan pl;
	json_t *o, *profiles, *mechs, *limits, *conf;
	char *s;
	int p, m;

	plan_for(h, PROFILE_WORKTREE, &pl);
	o = json_pack("{s:b, s:i, s:b, s:b, s:o, s:o, s:o, s:o, s:s}", "root",
	    h->root, "landlock_abi", h->landlock_abi, "seccomp",
	    h->avail[MECH_SECCOMP] == AVAIL_YES, "pidfd_getfd", h->getfd,
	    "mechanisms", mechs = json_object(),
	    "confinements", conf = confinements_json(fd),
	    "profiles", profiles = json_object(),
	    "limits", limits = json_pack("{s:b, s:b, s:b, s:s}",
	    "max_procs", true, "tmpfs_size",
	    pl.confinement == CONFINEMENT_NAMESPACES, "max_memory", h->memory,
	    "max_memory_why", h->memory_why), "private_directory",
	    private_dir(pl.refused ? CONFINEMENT_NONE : pl.confinement));
	if (o == NULL || mechs == NULL || conf == NULL || profiles == NULL ||
	    limits == NULL)
		goto fail;
	for (m = 0; m < MECH_COUNT; m++)
		if (json_object_set_new(mechs, sandbox_mech_name(m),
		    mech_json(h, m)) == -1)
			goto fail;
	for (p = PROFILE_OS_HARDENED; p <= PROFILE_UNRESTRICTED; p++) {
		plan_for(h, p, &pl);
		if (json_object_set_new(profiles, sandbox_profile_name(p),
		    json_pack("{s:s?, s:s, s:s?}", "confinement", pl.refused ||
		    pl.confinement == CONFINEMENT_NONE ? NULL :
		    sandbox_confinement_name(pl.confinement),
		    "process_network_mode", pl.network_mode, "policy_mode",
		    c == NULL ? NULL : egress_policy_report(c->policy) ?
		    "report" : "enforce")) == -1)
			goto fail;
	}
	if ((s = json_dumps(o, JSON_SORT_KEYS | JSON_INDENT(2))) == NULL)
		goto fail;
	printf("%s\n", s);
	free(s);
	json_decref(o);
	return fflush(stdout) == 0 ? 0 : EXIT_RUNTIME;
fail:
	json_decref(o);
	return EXIT_RUNTIME;
}

static void
line(const char *what, bool ok, const char *yes, const char *why)
{
	printf("  %-22s %s%s%s\n", what, ok ? yes : "no", ok ? "" : ": ",
	    ok ? "" : why);
}

static const char *
landlock_depth(int abi)
{
	if (abi >= 6)
		return "filesystem, TCP ports, scopes";
	if (abi >= 4)
		return "filesystem, TCP ports; no scopes (the broker refuses "
		    "abstract sockets and signals)";
	return "filesystem only (the broker refuses abstract sockets and "
	    "signals)";
}

/* Whose uid the command runs as, under the confinement a run gets. */
static const char *
runs_as(const struct findings *fd, enum sandbox_confinement c)
{
	if (!fd->h.root)
		return "a plain user (the command keeps this uid)";
	if (c == CONFINEMENT_NAMESPACES)
		return "root (the command runs as uid 65533 in its own user "
		    "namespace)";
	if (c == CONFINEMENT_LANDLOCK && fd->h.setid)
		return "root (the command keeps uid 0 without any capability "
		    "where root owns the workspace or a write root: what only "
		    "root may read is denied, its forks are counted; it runs "
		    "as uid 65533 where root owns none of them and that uid "
		    "can write them)";
	if (c == CONFINEMENT_LANDLOCK)
		return "root without CAP_SETUID (the command keeps uid 0 without "
		    "any capability: what only root may read is denied, its "
		    "forks are counted)";
	return "root (without a confinement the command runs as root)";
}

/*
 * The policy a run would take, when one is named or set in the
 * environment; NULL otherwise (*bad when it does not load).
 */
static struct conf *
doctor_policy(const char *path, bool *bad)
{
	struct conf *c;
	size_t i;

	*bad = false;
	if (path == NULL) {
		for (i = 0; conf_env_vars[i] != NULL; i++)
			if (getenv(conf_env_vars[i]) != NULL)
				break;
		if (conf_env_vars[i] == NULL)
			return NULL;
	}
	if ((c = cli_load_policy(path)) == NULL)
		*bad = true;
	return c;
}

/* The host's mechanisms, each as tried, and a trial run of each confinement. */
static void
text_mechanisms(const struct findings *fd)
{
	const struct sandbox_host *h = &fd->h;
	enum sandbox_confinement c;
	char abi[160];

	printf("mechanisms:\n");
	line("namespaces", h->avail[MECH_NAMESPACES] == AVAIL_YES,
	    "yes: user, net, mount, ipc, pid, and their set-up",
	    h->why[MECH_NAMESPACES]);
	snprintf(abi, sizeof(abi), "yes: ABI %d (%s)", h->landlock_abi,
	    landlock_depth(h->landlock_abi));
	line("landlock", h->avail[MECH_LANDLOCK] == AVAIL_YES, abi,
	    h->why[MECH_LANDLOCK]);
	line("seccomp", h->avail[MECH_SECCOMP] == AVAIL_YES,
	    "yes: filters and user notification", h->why[MECH_SECCOMP]);
	line("pidfd_getfd", h->getfd, "yes: the broker may take the "
	    "command's socket", h->getfd_why);
	printf("confinements (a trial run of each):\n");
	for (c = CONFINEMENT_NAMESPACES; c < CONFINEMENT_COUNT; c++)
		line(sandbox_confinement_name(c), fd->attaches[c],
		    "attaches", fd->why[c]);
}

static void
text_profiles(const struct sandbox_host *h, const struct conf *policy)
{
	struct sandbox_plan pl;
	int p;

	printf("confinement by profile:\n");
	for (p = PROFILE_OS_HARDENED; p <= PROFILE_UNRESTRICTED; p++) {
		plan_for(h, p, &pl);
		printf("  %-22s %s, process_network_mode %s%s\n",
		    sandbox_profile_name(p), pl.refused ? "refused" :
		    p == PROFILE_UNRESTRICTED ? "no sandbox" :
		    sandbox_confinement_name(pl.confinement), pl.network_mode,
		    policy_note(policy));
	}
}

/* The limits a worktree run can have, and where its files go. */
static void
text_limits(const struct sandbox_host *h)
{
	struct sandbox_plan pl;

	plan_for(h, PROFILE_WORKTREE, &pl);
	printf("limits:\n");
	line("--max-procs", true, pl.confinement == CONFINEMENT_NAMESPACES ?
	    "yes (RLIMIT_NPROC in its user namespace)" : h->root ?
	    "yes (RLIMIT_NPROC as uid 65533; as uid 0, counted by the broker "
	    "at each fork)" :
	    "yes (RLIMIT_NPROC, on top of its uid's other processes)", "");
	line("--tmpfs-size", pl.confinement == CONFINEMENT_NAMESPACES,
	    "yes (its private tmpfs)", "no private tmpfs without the "
	    "namespaces confinement");
	line("--max-memory", h->memory, "yes (a cgroup v2 of its own)",
	    h->memory_why);
	printf("files of a run (worktree), never in the workspace:\n");
	printf("  %-22s %s\n", "TMPDIR, caches, npmrc",
	    private_dir(pl.refused ? CONFINEMENT_NONE : pl.confinement));
	printf("  %-22s %s\n", "kept between runs", "--cache-dir DIR, --env "
	    "XDG_CACHE_HOME=DIR, --env TMPDIR=DIR (granted writable)");
}

int
cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "policy", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct findings fd;
	struct sandbox_plan pl;
	struct conf *policy;
	const char *path = NULL;
	bool json = false, bad;
	int ch, rv;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = true;
			break;
		case 'p':
			path = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	if ((policy = doctor_policy(path, &bad)) == NULL && bad)
		return EXIT_USAGE;
	find(&fd);
	if (json) {
		rv = doctor_json(&fd, policy);
		conf_free(policy);
		return rv;
	}
	plan_for(&fd.h, PROFILE_WORKTREE, &pl);
	printf("harn-egressd doctor: what this host can enforce (tried, not "
	    "guessed)\n");
	printf("  %-22s %s\n", "running as", runs_as(&fd, pl.confinement));
	text_mechanisms(&fd);
	text_profiles(&fd.h, policy);
	conf_free(policy);
	text_limits(&fd.h);
	return fflush(stdout) == 0 ? 0 : EXIT_RUNTIME;
usage:
	cli_error("usage: harn-egressd doctor [--json] [--policy FILE]");
	return EXIT_USAGE;
}
