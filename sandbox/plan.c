/*
 * The plan (SPEC 6.1, 6.5): which confinement a profile gets on this
 * host, what it leaves unenforced, and when it must refuse instead.  A
 * pure function of the profile and the host's abilities; the names the
 * records and reports use.
 */
#include <stdio.h>
#include <string.h>

#include "sandbox/internal.h"

static const char *const profile_names[] = {
	[PROFILE_OS_HARDENED] = "os_hardened",
	[PROFILE_WORKTREE] = "worktree",
	[PROFILE_WORKSPACE_PATHS] = "workspace_paths",
	[PROFILE_UNRESTRICTED] = "unrestricted",
};

static const char *const choice_names[] = {
	[CHOICE_AUTO] = "auto",
	[CHOICE_NAMESPACES] = "namespaces",
	[CHOICE_LANDLOCK] = "landlock",
};

static const char *const confinement_names[] = {
	[CONFINEMENT_NONE] = "none",
	[CONFINEMENT_NAMESPACES] = "namespaces",
};

static const struct {
	const char	*name;
	const char	*what;
} mechs[] = {
	[MECH_NAMESPACES] = { "linux_namespaces", "network namespace" },
	[MECH_LANDLOCK] = { "linux_landlock", "landlock" },
	[MECH_SECCOMP] = { "linux_seccomp", "seccomp" },
};

static const char *const area_names[] = {
	[AREA_EGRESS] = "egress",
	[AREA_LOCAL_SOCKET] = "local_socket",
	[AREA_HOME_READ] = "home_read",
	[AREA_WRITE] = "write",
	[AREA_UNKNOWN] = "unknown",
};

static const char *const avail_names[] = {
	[AVAIL_YES] = "available",
	[AVAIL_ABSENT] = "absent_on_host",
	[AVAIL_CANNOT_ATTACH] = "entry_point_cannot_attach",
};

static int
parse(const char *const *names, size_t n, const char *s, int *v)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (names[i] != NULL && strcmp(s, names[i]) == 0) {
			*v = (int)i;
			return 0;
		}
	}
	return -1;
}

int
sandbox_profile_parse(const char *s, enum sandbox_profile *p)
{
	int v;

	if (parse(profile_names, NELEM(profile_names), s, &v) == -1)
		return -1;
	*p = (enum sandbox_profile)v;
	return 0;
}

int
sandbox_choice_parse(const char *s, enum sandbox_choice *c)
{
	int v;

	if (parse(choice_names, NELEM(choice_names), s, &v) == -1)
		return -1;
	*c = (enum sandbox_choice)v;
	return 0;
}

const char *
sandbox_profile_name(enum sandbox_profile p)
{
	return profile_names[p];
}

const char *
sandbox_confinement_name(enum sandbox_confinement c)
{
	return confinement_names[c];
}

const char *
sandbox_mech_name(enum sandbox_mech m)
{
	return mechs[m].name;
}

const char *
sandbox_mech_what(enum sandbox_mech m)
{
	return mechs[m].what;
}

const char *
sandbox_area_name(enum sandbox_area a)
{
	return area_names[a];
}

const char *
sandbox_avail_name(enum sandbox_avail a)
{
	return avail_names[a];
}

/* What the profile cannot do without mech: the refusal's area. */
static const enum sandbox_area mech_area[MECH_COUNT] = {
	[MECH_NAMESPACES] = AREA_EGRESS,
	[MECH_LANDLOCK] = AREA_WRITE,
	[MECH_SECCOMP] = AREA_EGRESS,
};

static void
refuse(struct sandbox_plan *p, enum sandbox_area area, int mech,
    enum sandbox_avail avail, const char *detail)
{
	p->refused = true;
	p->area = area;
	p->mech = mech;
	p->avail = avail;
	p->network_mode = "unsupported_fail_closed";
	(void)snprintf(p->detail, sizeof(p->detail), "%s", detail);
}

/*
 * A mechanism the host lacks: os_hardened refuses, the others go on
 * without it and say so.  Returns -1 after refusing.
 */
static int
missing(struct sandbox_plan *p, const struct sandbox_host *h,
    enum sandbox_mech m)
{
	if (h->avail[m] == AVAIL_YES)
		return 0;
	if (p->profile == PROFILE_OS_HARDENED) {
		refuse(p, mech_area[m], (int)m, h->avail[m], h->why[m]);
		return -1;
	}
	p->not_enforced |= 1U << m;
	return 0;
}

void
sandbox_plan(const struct sandbox_plan_input *in, struct sandbox_plan *p)
{
	const struct sandbox_host *h = in->host;

	memset(p, 0, sizeof(*p));
	p->profile = in->profile;
	p->mech = -1;
	p->confinement = CONFINEMENT_NONE;
	p->network_mode = "unrestricted";
	if (in->profile == PROFILE_UNRESTRICTED)
		return;
	if (missing(p, h, MECH_NAMESPACES) == -1 ||
	    missing(p, h, MECH_LANDLOCK) == -1 ||
	    missing(p, h, MECH_SECCOMP) == -1)
		return;
	p->landlock = h->avail[MECH_LANDLOCK] == AVAIL_YES;
	p->landlock_abi = p->landlock ? h->landlock_abi : 0;
	p->seccomp = h->avail[MECH_SECCOMP] == AVAIL_YES;
	/*
	 * The network namespace is the boundary; the connect broker (seccomp
	 * user notification) keeps host unix sockets out of reach: without
	 * it the namespaces are no confinement of SPEC 6.1.
	 */
	if (h->avail[MECH_NAMESPACES] == AVAIL_YES && p->seccomp) {
		p->confinement = CONFINEMENT_NAMESPACES;
		p->network_mode = "managed";
	} else if (h->avail[MECH_NAMESPACES] == AVAIL_YES) {
		p->not_enforced |= 1U << MECH_NAMESPACES;
	}
	/* The signing key can be hidden only by a mount or Landlock. */
	if (in->hide_key && !p->landlock &&
	    p->confinement == CONFINEMENT_NONE) {
		refuse(p, AREA_HOME_READ, MECH_NAMESPACES,
		    h->avail[MECH_NAMESPACES] == AVAIL_YES ?
		    AVAIL_CANNOT_ATTACH : h->avail[MECH_NAMESPACES],
		    "without a mount namespace or Landlock the signing key "
		    "cannot be hidden from the command");
		return;
	}
	if (in->max_memory && !h->memory) {
		if (in->profile == PROFILE_OS_HARDENED) {
			refuse(p, AREA_UNKNOWN, -1, AVAIL_ABSENT,
			    h->memory_why);
			return;
		}
		p->no_memory = true;
	}
	p->memory = in->max_memory && h->memory;
}
