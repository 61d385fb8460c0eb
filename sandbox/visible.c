/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which of the host's paths the command surely cannot see (SPEC 6.3), for
 * the hint a run prints when the command failed: a path outside every
 * root the sandbox grants is refused by Landlock (and, in namespaces, may
 * not even be mounted), and tools say "does not exist" (git clone of a
 * local repository).  Only what is certain counts: a path above a root
 * (traversable), one a credential denial hides (no grant would help),
 * or any doubt, and it is not "hidden".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/internal.h"

/* At or under one of the NULL-terminated list, or above one of them. */
static bool
near_any(const char *real, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n && list[i] != NULL; i++)
		if (path_under(real, list[i]) || path_under(list[i], real))
			return true;
	return false;
}

/* Under a denied path: --read-deny-root, or $HOME's credential list. */
static bool
denied(const struct sandbox_request *r, const char *real)
{
	char *p;
	size_t i;
	bool in = false;

	for (i = 0; i < r->ndeny; i++)
		if (path_under(real, r->deny[i]))
			return true;
	if (r->home == NULL || !path_under(real, r->home))
		return false;
	for (i = 0; sandbox_home_denylist[i] != NULL && !in; i++) {
		if ((p = path_join(r->home, sandbox_home_denylist[i])) == NULL)
			return true;	/* cannot tell */
		in = path_under(real, p);
		free(p);
	}
	return in;
}

bool
sandbox_path_hidden(const struct sandbox_request *r,
    const struct sandbox_plan *p, const char *path)
{
	const char *one[2] = { NULL, NULL };
	char *real;
	bool hidden = false;

	if (!p->landlock || p->profile == PROFILE_UNRESTRICTED ||
	    path[0] != '/' || (real = path_real(path)) == NULL)
		return false;
	one[0] = r->workspace;
	if (near_any(real, system_roots, SIZE_MAX) ||
	    near_any(real, device_files, SIZE_MAX) ||
	    near_any(real, one, 1) ||
	    near_any(real, r->ro_roots, r->nro_roots) ||
	    near_any(real, r->rw_roots, r->nrw_roots) ||
	    near_any(real, r->socket_roots, r->nsocket_roots) ||
	    denied(r, real))
		goto out;
	/* $HOME is read-execute but for workspace_paths. */
	one[0] = r->home;
	if (r->home != NULL && p->profile != PROFILE_WORKSPACE_PATHS &&
	    near_any(real, one, 1))
		goto out;
	hidden = true;
out:
	free(real);
	return hidden;
}
