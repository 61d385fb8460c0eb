/*
 * doctor: what this host can enforce, found by doing it (SPEC 6.5), and
 * what each profile would get here: the same plan a run makes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "sandbox/sandbox.h"

static void
plan_for(const struct sandbox_host *h, enum sandbox_profile p,
    struct sandbox_plan *out)
{
	struct sandbox_plan_input in = { .profile = p, .choice = CHOICE_AUTO,
	    .host = h };

	sandbox_plan(&in, out);
}

static json_t *
mech_json(const struct sandbox_host *h, enum sandbox_mech m)
{
	return json_pack("{s:b, s:s, s:s}", "attaches",
	    h->avail[m] == AVAIL_YES, "availability",
	    sandbox_avail_name(h->avail[m]), "why", h->why[m]);
}

static int
doctor_json(const struct sandbox_host *h)
{
	struct sandbox_plan pl;
	json_t *o, *profiles, *mechs, *limits;
	char *s;
	int p, m;

	o = json_pack("{s:b, s:i, s:b, s:o, s:o, s:o}", "root", h->root,
	    "landlock_abi", h->landlock_abi, "seccomp",
	    h->avail[MECH_SECCOMP] == AVAIL_YES,
	    "mechanisms", mechs = json_object(),
	    "profiles", profiles = json_object(),
	    "limits", limits = json_pack("{s:b, s:b, s:b, s:s}",
	    "max_procs", true, "tmpfs_size",
	    h->avail[MECH_NAMESPACES] == AVAIL_YES, "max_memory", h->memory,
	    "max_memory_why", h->memory_why));
	if (o == NULL || mechs == NULL || profiles == NULL || limits == NULL)
		goto fail;
	for (m = 0; m < MECH_COUNT; m++)
		if (json_object_set_new(mechs, sandbox_mech_name(m),
		    mech_json(h, m)) == -1)
			goto fail;
	for (p = PROFILE_OS_HARDENED; p <= PROFILE_UNRESTRICTED; p++) {
		plan_for(h, p, &pl);
		if (json_object_set_new(profiles, sandbox_profile_name(p),
		    json_pack("{s:s?, s:s}", "confinement", pl.refused ||
		    p == PROFILE_UNRESTRICTED ? NULL :
		    sandbox_confinement_name(pl.confinement),
		    "process_network_mode", pl.network_mode)) == -1)
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

int
cmd_doctor(int argc, char **argv)
{
	struct sandbox_host h;
	struct sandbox_plan pl;
	char abi[32];
	int p;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--json") != 0)) {
		cli_error("usage: harn-egressd doctor [--json]");
		return EXIT_USAGE;
	}
	sandbox_probe(&h, false, true);
	if (argc == 2)
		return doctor_json(&h);
	printf("harn-egressd doctor: what this host can enforce (tried, not "
	    "guessed)\n");
	printf("  %-22s %s\n", "running as", h.root ? "root (the command "
	    "runs as uid 65533 in its own user namespace)" : "a plain user "
	    "(the command keeps this uid, in a user namespace)");
	line("namespaces", h.avail[MECH_NAMESPACES] == AVAIL_YES,
	    "yes: user, net, mount, ipc, pid, and their set-up",
	    h.why[MECH_NAMESPACES]);
	snprintf(abi, sizeof(abi), "yes: ABI %d", h.landlock_abi);
	line("landlock", h.avail[MECH_LANDLOCK] == AVAIL_YES, abi,
	    h.why[MECH_LANDLOCK]);
	line("seccomp and broker", h.avail[MECH_SECCOMP] == AVAIL_YES,
	    "yes: filters, user notification, pidfd_getfd",
	    h.why[MECH_SECCOMP]);
	printf("confinement by profile:\n");
	for (p = PROFILE_OS_HARDENED; p <= PROFILE_UNRESTRICTED; p++) {
		plan_for(&h, p, &pl);
		printf("  %-22s %s, process_network_mode %s\n",
		    sandbox_profile_name(p), pl.refused ? "refused" :
		    p == PROFILE_UNRESTRICTED ? "no sandbox" :
		    sandbox_confinement_name(pl.confinement), pl.network_mode);
	}
	printf("limits:\n");
	line("--max-procs", true, "yes (RLIMIT_NPROC in its user namespace)",
	    "");
	line("--tmpfs-size", h.avail[MECH_NAMESPACES] == AVAIL_YES,
	    "yes (its private tmpfs)", "no private tmpfs without namespaces");
	line("--max-memory", h.memory, "yes (a cgroup v2 of its own)",
	    h.memory_why);
	return fflush(stdout) == 0 ? 0 : EXIT_RUNTIME;
}
