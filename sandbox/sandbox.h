/*
 * sandbox: running a command confined (SPEC 6).  The child gets its own
 * user (when not root), network and mount namespaces, with the proxy's
 * listener created inside its network namespace; Landlock, seccomp, no
 * new privileges, no capabilities, a scrubbed environment.
 */
#ifndef SANDBOX_SANDBOX_H
#define SANDBOX_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum sandbox_profile {
	PROFILE_OS_HARDENED,	/* every mechanism, or refuse */
	PROFILE_WORKTREE,	/* what the host has; say what is missing */
	PROFILE_WORKSPACE_PATHS,/* as worktree, without $HOME read access */
	PROFILE_UNRESTRICTED	/* no confinement */
};

/* What this host can enforce, probed without changing anything. */
struct sandbox_caps {
	bool	 userns;	/* an unprivileged user namespace can be made */
	bool	 netns;		/* a network namespace can be made */
	bool	 mountns;
	int	 landlock_abi;	/* 0: none */
	bool	 seccomp;
	bool	 root;
	char	 userns_why[128];	/* why not, when not */
	char	 landlock_why[128];
	char	 seccomp_why[128];
};

void	 sandbox_probe(struct sandbox_caps *);
/* Without trying namespaces (a fork each): those are taken as there. */
void	 sandbox_probe_quick(struct sandbox_caps *);
int	 sandbox_profile_parse(const char *, enum sandbox_profile *);
const char *sandbox_profile_name(enum sandbox_profile);

/*
 * seccomp (SPEC 6.2), built with libseccomp for the native architecture
 * only (a foreign ABI is killed).  Refused calls fail with EPERM.
 * Returns 0, or -1 with err set; loads the filter into the calling thread
 * (no_new_privs must already be set).
 */
int	 sandbox_seccomp_load(char *err, size_t errlen);
/*
 * The same filter as a BPF program (malloc'd): as generated at build
 * time, or built now with libseccomp (the two are the same; a test says
 * so).  And loading one.
 */
int	 sandbox_seccomp_program(void **prog, size_t *len, char *err,
	    size_t errlen);
int	 sandbox_seccomp_build_program(void **prog, size_t *len, char *err,
	    size_t errlen);
int	 sandbox_seccomp_load_program(const void *prog, size_t len,
	    char *err, size_t errlen);
/* Write the program to fd (seccomp_export_bpf), for inspection. */
int	 sandbox_seccomp_export_bpf(int fd, char *err, size_t errlen);

/*
 * Landlock (SPEC 6.3).  Paths are absolute.  Denied paths beat every
 * grant: a grant that contains a denied path is expanded into grants of
 * its other entries, recursively, up to max_rules rules.
 */
enum landlock_grant {
	GRANT_RX,	/* read and execute: system roots */
	GRANT_RO,	/* read only: $HOME, --read-only-root */
	GRANT_RW,	/* read, write, execute: workspace, --write-root */
};

struct landlock_path {
	const char		*path;
	enum landlock_grant	 grant;
};

struct landlock_stats {
	int		 abi;
	unsigned	 rules;		/* rules added */
	unsigned	 expanded;	/* grants split around denied paths */
	double		 ms;		/* time to build */
};

/* The ruleset's file descriptor, not yet enforced; -1 with err set. */
int	 sandbox_landlock_build(const struct landlock_path *, size_t n,
	    const char *const *deny, size_t ndeny, unsigned max_rules,
	    struct landlock_stats *, char *err, size_t errlen);
/*
 * The same, where every denied path is also masked by a read-only mount.
 * Read-only roots are still split, and the directories split keep their
 * own structural rights (listing); a writable root is granted whole, the
 * mask keeping the denied paths in it, so a denied file inside the
 * workspace leaves the workspace usable.
 */
int	 sandbox_landlock_build_masked(const struct landlock_path *, size_t n,
	    const char *const *deny, size_t ndeny, unsigned max_rules,
	    struct landlock_stats *, char *err, size_t errlen);
/* Enforce on the calling thread (no_new_privs must be set); closes fd. */
int	 sandbox_landlock_enforce(int fd, char *err, size_t errlen);

/*
 * Spawning.  The plan says which mechanisms to apply; the parent decides
 * it from the profile and the probe before anything is started.
 */
struct sandbox_spec {
	bool			  netns;	/* net + mount + pid namespaces */
	bool			  userns;	/* needed when not root */
	bool			  landlock;
	bool			  seccomp;
	char *const		 *argv;
	char *const		 *envp;		/* the whole environment of CMD */
	const char		 *workspace;	/* absolute */
	struct landlock_path	 *grants;	/* absolute paths */
	size_t			  ngrants;
	const char *const	 *deny;		/* absolute paths, masked too */
	size_t			  ndeny;
	unsigned		  max_rules;
	unsigned short		  host_port;	/* the proxy's port without netns */
};

struct sandbox_child {
	pid_t			 pid;		/* the first child (waited for) */
	pid_t			 init_pid;	/* signals go here (host pid) */
	int			 ctl;		/* parent's end of the control socket */
	int			 listen_fd;	/* inside the child's netns, or -1 */
	unsigned short		 port;
	struct landlock_stats	 landlock;
	int			 fail_errno;	/* errno of the step that failed */
};

/*
 * Fork the confined child; it sets itself up while the caller goes on.
 * With netns, the child creates the proxy's listener inside its network
 * namespace and hands it over; without, the caller listens on the host
 * (spec->host_port).  -1 with err set when nothing could be started.
 */
int	 sandbox_spawn(const struct sandbox_spec *, struct sandbox_child *,
	    char *err, size_t errlen);
/*
 * Hand the child the seccomp program (NULL without seccomp) and wait
 * until it is set up and about to exec: then listen_fd and port are set.
 * On failure, err and *mechanism say what failed, and no child is left.
 */
int	 sandbox_ready(struct sandbox_child *, const void *prog, size_t len,
	    const char **mechanism, char *err, size_t errlen);
/*
 * A refusal record (SPEC 6.4), one JSON line on stderr.  kernel_mechanism
 * (linux_namespaces, linux_landlock, linux_seccomp) and availability are
 * NULL unless a kernel feature is missing.
 */
void	 sandbox_refusal(const char *mechanism, const char *reason,
	    const char *detail, enum sandbox_profile,
	    const char *kernel_mechanism, const char *availability);

/* Forward a signal to the command. */
void	 sandbox_signal(const struct sandbox_child *, int sig);
/*
 * Wait for the command's end: its wait status (as waitpid gives it).
 * Blocks; call it once the control socket is readable or the first child
 * has exited.
 */
int	 sandbox_wait(struct sandbox_child *, int *wstatus);

#endif
