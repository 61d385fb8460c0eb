/* What this host can enforce, found by trying it in a throwaway child. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/sandbox.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset	444
#endif
#define LANDLOCK_VERSION_FLAG		(1U << 0)

static const char *const profile_names[] = {
	[PROFILE_OS_HARDENED] = "os_hardened",
	[PROFILE_WORKTREE] = "worktree",
	[PROFILE_WORKSPACE_PATHS] = "workspace_paths",
	[PROFILE_UNRESTRICTED] = "unrestricted",
};

int
sandbox_profile_parse(const char *s, enum sandbox_profile *p)
{
	size_t i;

	for (i = 0; i < sizeof(profile_names) / sizeof(profile_names[0]); i++) {
		if (strcmp(s, profile_names[i]) == 0) {
			*p = (enum sandbox_profile)i;
			return 0;
		}
	}
	return -1;
}

const char *
sandbox_profile_name(enum sandbox_profile p)
{
	return profile_names[p];
}

/* 0 when the namespaces can be made, else the errno. */
static int
try_namespaces(bool userns)
{
	int flags = CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC;
	pid_t pid;
	int st;

	if ((pid = fork()) == -1)
		return errno;
	if (pid == 0) {
		if (userns && unshare(CLONE_NEWUSER) == -1)
			_exit(errno);
		_exit(unshare(flags) == -1 ? errno : 0);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EPERM;
}

void
sandbox_probe(struct sandbox_caps *c)
{
	int e = 0;

	sandbox_probe_quick(c);
	c->userns = c->root || (e = try_namespaces(true)) == 0;
	if (!c->userns)
		snprintf(c->userns_why, sizeof(c->userns_why),
		    "user namespace: %s", strerror(e));
	if (c->userns && (e = try_namespaces(!c->root)) != 0)
		snprintf(c->userns_why, sizeof(c->userns_why),
		    "network/mount/pid namespace: %s", strerror(e));
	c->netns = c->mountns = c->userns && c->userns_why[0] == '\0';
}

void
sandbox_probe_quick(struct sandbox_caps *c)
{
	int abi;

	memset(c, 0, sizeof(*c));
	c->root = geteuid() == 0;
	/* Namespaces: assumed until the spawn itself says otherwise. */
	c->userns = c->netns = c->mountns = true;
	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_VERSION_FLAG);
	c->landlock_abi = abi > 0 ? abi : 0;
	if (abi <= 0)
		snprintf(c->landlock_why, sizeof(c->landlock_why), "%s",
		    errno == EOPNOTSUPP ? "Landlock is disabled at boot" :
		    errno == ENOSYS ? "kernel without Landlock" :
		    strerror(errno));
	c->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
	if (!c->seccomp)
		snprintf(c->seccomp_why, sizeof(c->seccomp_why),
		    "kernel without seccomp filters: %s", strerror(errno));
}
