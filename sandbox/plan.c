/* SPDX-License-Identifier: Apache-2.0 */
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
	[CONFINEMENT_LANDLOCK] = "landlock",
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
	p->confinement = CONFINEMENT_NONE;
	(void)snprintf(p->detail, sizeof(p->detail), "%s", detail);
}

static void
line(struct sandbox_plan *p, const char *what, const char *why)
{
	if (p->nlines < PLAN_LINES)
		(void)snprintf(p->lines[p->nlines++], sizeof(p->lines[0]),
		    "%s\t%s", what, why);
}

/* What confinement c lacks on host h: 0, or -1 with t filled in. */
static int
lacks(enum sandbox_confinement c, const struct sandbox_host *h,
    struct sandbox_tried *t)
{
	static const enum sandbox_mech ns[] = { MECH_NAMESPACES, MECH_SECCOMP };
	static const enum sandbox_mech ll[] = { MECH_LANDLOCK, MECH_SECCOMP };
	const enum sandbox_mech *need = c == CONFINEMENT_NAMESPACES ? ns : ll;
	size_t i;

	memset(t, 0, sizeof(*t));
	t->confinement = c;
	if (h->failed[c]) {
		t->mech = h->failed_mech[c];
		t->avail = AVAIL_CANNOT_ATTACH;
		(void)snprintf(t->detail, sizeof(t->detail), "%s",
		    h->failed_why[c]);
		return -1;
	}
	for (i = 0; i < 2; i++) {
		if (h->avail[need[i]] == AVAIL_YES)
			continue;
		t->mech = (int)need[i];
		t->avail = h->avail[need[i]];
		(void)snprintf(t->detail, sizeof(t->detail), "%s",
		    h->why[need[i]]);
		return -1;
	}
	/* Without a network namespace to make them harmless, TCP connects
	 * are brokered on fresh sockets; with one, on the caller's own. */
	if (c == CONFINEMENT_NAMESPACES && !h->getfd) {
		t->mech = MECH_SECCOMP;
		t->avail = AVAIL_CANNOT_ATTACH;
		(void)snprintf(t->detail, sizeof(t->detail), "%s",
		    h->getfd_why);
		return -1;
	}
	return 0;
}

/* The confinement to use, trying each the choice allows in turn. */
static enum sandbox_confinement
choose(struct sandbox_plan *p, enum sandbox_choice choice,
    const struct sandbox_host *h)
{
	static const enum sandbox_confinement order[] = {
		CONFINEMENT_NAMESPACES, CONFINEMENT_LANDLOCK
	};
	size_t i;

	for (i = 0; i < NELEM(order); i++) {
		if ((choice == CHOICE_NAMESPACES &&
		    order[i] != CONFINEMENT_NAMESPACES) ||
		    (choice == CHOICE_LANDLOCK &&
		    order[i] != CONFINEMENT_LANDLOCK))
			continue;
		if (lacks(order[i], h, &p->tried[p->ntried]) == 0)
			return order[i];
		p->ntried++;
	}
	return CONFINEMENT_NONE;
}

/* Why no confinement attached, for people: each one tried, and why. */
static void
why_none(const struct sandbox_plan *p, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < p->ntried && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s: %s",
		    i ? "; " : "", confinement_names[p->tried[i].confinement],
		    p->tried[i].detail);
}

/*
 * Landlock with a confinement that attached: missing is a line, or not.
 * os_hardened refuses: neither confinement is enough for it here, and
 * the record lists each with what it lacks (SPEC 6.4).
 */
static int
landlock_missing(struct sandbox_plan *p, enum sandbox_choice choice,
    const struct sandbox_host *h)
{
	struct sandbox_tried *t;

	if (h->avail[MECH_LANDLOCK] == AVAIL_YES)
		return 0;
	if (p->profile == PROFILE_OS_HARDENED) {
		t = &p->tried[p->ntried++];
		memset(t, 0, sizeof(*t));
		t->confinement = CONFINEMENT_NAMESPACES;
		t->mech = MECH_LANDLOCK;
		t->avail = h->avail[MECH_LANDLOCK];
		(void)snprintf(t->detail, sizeof(t->detail), "%s",
		    h->why[MECH_LANDLOCK]);
		if (choice != CHOICE_NAMESPACES && lacks(CONFINEMENT_LANDLOCK,
		    h, &p->tried[p->ntried]) == -1)
			p->ntried++;
		refuse(p, mech_area[MECH_LANDLOCK], MECH_LANDLOCK,
		    h->avail[MECH_LANDLOCK], h->why[MECH_LANDLOCK]);
		return -1;
	}
	line(p, "landlock", h->why[MECH_LANDLOCK]);
	return 0;
}

/*
 * Whose rights a confined command has.  A root caller's never keeps a
 * capability.  In a user namespace it is SANDBOX_UID, owner of its roots
 * through idmapped mounts: what it makes there is their owner's on disk.
 * Without one, the identity follows who owns the writable roots on disk,
 * not who may write them, so that a run of either confinement can change
 * what the other made (SPEC 6.5): where root owns one (a root-owned
 * workspace, even one whose mode lets anyone write it) it keeps uid 0
 * without any capability, which owns root's files: then Landlock denies
 * what only root may read, the broker counts its forks (uid 0 is exempt
 * from RLIMIT_NPROC) and no SysV IPC is left to it.  Otherwise it is
 * SANDBOX_UID where that uid can write them and we can make it that uid
 * (CAP_SETUID, SETGID, CHOWN for its directories), else uid 0 again.
 * Chowning the user's workspace to another uid would change the user's
 * files, and leave them changed if we died.
 */
static enum sandbox_identity
identity(enum sandbox_confinement c, const struct sandbox_plan_input *in)
{
	if (!in->host->root)
		return IDENTITY_CALLER;
	if (c == CONFINEMENT_NAMESPACES)
		return IDENTITY_SANDBOX_UID;
	return !in->roots_root && in->uid_fits && in->host->setid ?
	    IDENTITY_SANDBOX_UID : IDENTITY_ROOT;
}

void
sandbox_plan(const struct sandbox_plan_input *in, struct sandbox_plan *p)
{
	const struct sandbox_host *h = in->host;
	char why[256];

	memset(p, 0, sizeof(*p));
	p->profile = in->profile;
	p->mech = -1;
	p->confinement = CONFINEMENT_NONE;
	p->network_mode = "unrestricted";
	if (in->profile == PROFILE_UNRESTRICTED)
		return;
	p->confinement = choose(p, in->choice, h);
	p->landlock = h->avail[MECH_LANDLOCK] == AVAIL_YES;
	p->landlock_abi = p->landlock ? h->landlock_abi : 0;
	p->seccomp = h->avail[MECH_SECCOMP] == AVAIL_YES;
	p->getfd = h->getfd;
	if (p->confinement == CONFINEMENT_NONE) {
		/*
		 * No confinement: os_hardened refuses, and so does an
		 * explicit --confinement (never silently dropped).
		 */
		why_none(p, why, sizeof(why));
		if (in->profile == PROFILE_OS_HARDENED ||
		    in->choice != CHOICE_AUTO) {
			refuse(p, mech_area[p->tried[0].mech], p->tried[0].mech,
			    p->tried[0].avail, why);
			return;
		}
		line(p, "network confinement", why);
		if (!p->landlock)
			line(p, "landlock", h->why[MECH_LANDLOCK]);
		if (!p->seccomp)
			line(p, "seccomp", h->why[MECH_SECCOMP]);
		if (h->root) {
			line(p, "file ownership", "the command runs as root "
			    "without a user namespace and owns the host's "
			    "files");
			line(p, "--max-procs", "uid 0 is exempt from "
			    "RLIMIT_NPROC");
		}
		/* The signing key can be hidden only by Landlock here. */
		if (in->hide_key && !p->landlock) {
			refuse(p, AREA_HOME_READ, MECH_LANDLOCK,
			    h->avail[MECH_LANDLOCK], "without a mount "
			    "namespace or Landlock the signing key cannot be "
			    "hidden from the command");
			return;
		}
	} else {
		p->network_mode = "managed";
		if (p->confinement == CONFINEMENT_NAMESPACES &&
		    landlock_missing(p, in->choice, h) == -1)
			return;
		p->identity = identity(p->confinement, in);
	}
	/*
	 * A plain user's command outside a user namespace cannot empty its
	 * bounding set (no CAP_SETPCAP); no_new_privs keeps exec from
	 * gaining anything in it.
	 */
	if (p->confinement != CONFINEMENT_NAMESPACES && !h->root)
		line(p, "capability bounding set", "no capability to drop it "
		    "without a user namespace; no_new_privs keeps exec from "
		    "gaining any");
	if (in->tmpfs_size && p->confinement != CONFINEMENT_NAMESPACES)
		line(p, "--tmpfs-size", "no private tmpfs without the "
		    "namespaces confinement");
	if (in->max_memory && !h->memory) {
		if (in->profile == PROFILE_OS_HARDENED) {
			refuse(p, AREA_UNKNOWN, -1, AVAIL_ABSENT,
			    h->memory_why);
			return;
		}
		line(p, "--max-memory", h->memory_why);
	}
	p->memory = in->max_memory && h->memory;
}
