/* SPDX-License-Identifier: Apache-2.0 */
/*
 * After a confined command failed: a line for each path among its
 * arguments that exists here but that the sandbox surely keeps out of
 * its sight (a root not granted).  Tools say "does not exist" of such a
 * path (git clone /srv/repo.git: "repository ... does not exist"), which
 * sends a person looking in the wrong place.  Only what is certain is
 * said (sandbox_path_hidden); whether it caused the failure is not known,
 * and the line does not claim it.  The argument is named by its place,
 * never written out: no argument but argv0 is written anywhere (SPEC 7),
 * and a CI job's stderr is often public.
 */
#include <string.h>

#include "cli/cli.h"
#include "cli/run.h"

#define HINTS_MAX	3	/* lines; a long argument list says no more */

/* The path an argument names: /p, file:///p, --opt=/p; else NULL. */
static const char *
arg_path(const char *arg)
{
	const char *eq;

	if (strncmp(arg, "file://", 7) == 0)
		arg += 7;
	else if (arg[0] == '-' && (eq = strchr(arg, '=')) != NULL)
		arg = eq + 1;
	return arg[0] == '/' ? arg : NULL;
}

void
run_hint_paths(const struct sandbox_request *r, const struct sandbox_plan *p,
    char *const *argv)
{
	const char *path;
	size_t i, n = 0;

	for (i = 1; argv[i] != NULL && n < HINTS_MAX; i++) {
		if ((path = arg_path(argv[i])) == NULL ||
		    !sandbox_path_hidden(r, p, path))
			continue;
		cli_error("note: argument %zu of the command names a path "
		    "outside the roots the sandbox grants: the command cannot "
		    "see it (a tool may say it does not exist); grant it with "
		    "--read-only-root DIR or --write-root DIR", i);
		n++;
	}
}
