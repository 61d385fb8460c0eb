/* doctor: what this host can enforce, and what each profile would get. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "sandbox/sandbox.h"

static const char *
network_mode(const struct sandbox_caps *c, enum sandbox_profile p)
{
	bool all = c->netns && c->landlock_abi > 0 && c->seccomp;

	switch (p) {
	case PROFILE_OS_HARDENED:
		return all ? "managed" : "unsupported_fail_closed";
	case PROFILE_WORKTREE:
	case PROFILE_WORKSPACE_PATHS:
		return c->netns ? "managed" : "unrestricted";
	case PROFILE_UNRESTRICTED:
		break;
	}
	return "unrestricted";
}

static int
doctor_json(const struct sandbox_caps *c)
{
	json_t *o, *profiles;
	char *s;
	int p;

	if ((profiles = json_object()) == NULL)
		return EXIT_RUNTIME;
	for (p = PROFILE_OS_HARDENED; p <= PROFILE_UNRESTRICTED; p++)
		json_object_set_new(profiles, sandbox_profile_name(p),
		    json_string(network_mode(c, p)));
	o = json_pack("{s:b, s:b, s:b, s:i, s:b, s:b, s:o}",
	    "user_namespaces", c->userns, "network_namespaces", c->netns,
	    "mount_namespaces", c->mountns, "landlock_abi", c->landlock_abi,
	    "seccomp", c->seccomp, "root", c->root, "profiles", profiles);
	if (o == NULL || (s = json_dumps(o, JSON_SORT_KEYS)) == NULL) {
		json_decref(o);
		return EXIT_RUNTIME;
	}
	printf("%s\n", s);
	free(s);
	json_decref(o);
	return 0;
}

static void
line(const char *what, bool ok, const char *why)
{
	printf("  %-20s %s%s%s\n", what, ok ? "yes" : "no", ok ? "" : ": ",
	    ok ? "" : why);
}

int
cmd_doctor(int argc, char **argv)
{
	struct sandbox_caps c;
	char abi[32];
	int p;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--json") != 0)) {
		cli_error("usage: harn-egressd doctor [--json]");
		return EXIT_USAGE;
	}
	sandbox_probe(&c);
	if (argc == 2)
		return doctor_json(&c);
	printf("harn-egressd doctor: what this host can enforce\n");
	line("running as root", c.root, "user namespaces are needed");
	line("user namespaces", c.userns, c.userns_why);
	line("network namespaces", c.netns, c.userns_why);
	line("mount namespaces", c.mountns, c.userns_why);
	snprintf(abi, sizeof(abi), "ABI %d", c.landlock_abi);
	printf("  %-20s %s%s\n", "landlock", c.landlock_abi ? abi : "no: ",
	    c.landlock_abi ? "" : c.landlock_why);
	line("seccomp", c.seccomp, c.seccomp_why);
	printf("process_network_mode by profile:\n");
	for (p = PROFILE_OS_HARDENED; p <= PROFILE_UNRESTRICTED; p++)
		printf("  %-20s %s\n", sandbox_profile_name(p),
		    network_mode(&c, p));
	return fflush(stdout) == 0 ? 0 : EXIT_RUNTIME;
}
