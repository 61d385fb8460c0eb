/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sandbox: running a command confined (SPEC 6), so that the proxy's port
 * is the only network endpoint it reaches, it never owns the host's
 * files, and it reads no credential.
 *
 * The seam is the one of OpenSSH's ssh-sandbox.h: a pure plan chooses a
 * confinement from the profile and what the host can do; each
 * confinement is one file (ns.c: namespaces, llc.c: landlock); the rest
 * (the process tree, Landlock, seccomp, the connect broker, limits) is
 * shared.
 */
#ifndef SANDBOX_SANDBOX_H
#define SANDBOX_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>

enum sandbox_profile {
	PROFILE_OS_HARDENED,	/* a confinement, every mechanism, or refuse */
	PROFILE_WORKTREE,	/* what the host has; say what is missing */
	PROFILE_WORKSPACE_PATHS,/* as worktree, without $HOME read access */
	PROFILE_UNRESTRICTED	/* no confinement */
};

enum sandbox_confinement {
	CONFINEMENT_NONE,	/* CMD shares the host's network */
	CONFINEMENT_NAMESPACES,	/* user, net, mount, ipc, pid namespaces */
	CONFINEMENT_LANDLOCK,	/* Landlock, seccomp, the broker; no namespace */
	CONFINEMENT_COUNT
};

enum sandbox_choice {		/* --confinement */
	CHOICE_AUTO,
	CHOICE_NAMESPACES,
	CHOICE_LANDLOCK
};

/* The kernel mechanisms of SPEC 6.4's sandbox_mechanism. */
enum sandbox_mech {
	MECH_NAMESPACES,	/* linux_namespaces */
	MECH_LANDLOCK,		/* linux_landlock */
	MECH_SECCOMP,		/* linux_seccomp, user notification included */
	MECH_COUNT
};

/* What a refusal is about (SPEC 6.4's mechanism). */
enum sandbox_area {
	AREA_EGRESS,
	AREA_LOCAL_SOCKET,
	AREA_HOME_READ,
	AREA_WRITE,
	AREA_UNKNOWN
};

/*
 * Whose rights the command (and the broker, which acts for it) has.  A
 * root caller's command never keeps a capability: it runs as SANDBOX_UID
 * where it can, or keeps uid 0 without any (a workspace root owns,
 * outside a user namespace, or no CAP_SETUID), and then the files only
 * root may read are denied to it and its forks are counted.
 */
enum sandbox_identity {
	IDENTITY_CALLER,	/* the caller's own uid (not root) */
	IDENTITY_SANDBOX_UID,	/* a root caller's, as SANDBOX_UID */
	IDENTITY_ROOT		/* a root caller's, uid 0, no capability */
};

enum sandbox_avail {
	AVAIL_YES,
	AVAIL_ABSENT,		/* absent_on_host */
	AVAIL_CANNOT_ATTACH	/* entry_point_cannot_attach */
};

/*
 * What this host can do, found by doing it (sandbox_probe).  MECH_SECCOMP
 * is filters and user notification; getfd says whether the broker may
 * take a caller's own socket (pidfd_getfd), which the namespaces
 * confinement needs and the landlock confinement does without.
 */
struct sandbox_host {
	bool			 root;
	bool			 setid;		/* CAP_SETUID, SETGID, CHOWN */
	enum sandbox_avail	 avail[MECH_COUNT];
	char			 why[MECH_COUNT][256];
	int			 landlock_abi;
	bool			 ns_tried;	/* namespaces' set-up tried whole */
	bool			 getfd;
	char			 getfd_why[256];
	/* A set-up that failed part-way: that confinement is out. */
	bool			 failed[CONFINEMENT_COUNT];
	char			 failed_why[CONFINEMENT_COUNT][256];
	int			 failed_mech[CONFINEMENT_COUNT];
	bool			 memory;	/* a memory cgroup can be made */
	char			 memory_why[256];
};

/* Limits on the command (SPEC 2); 0: none. */
struct sandbox_limits {
	unsigned		 max_procs;
	uint64_t		 tmpfs_size;
	uint64_t		 max_memory;
};
#define SANDBOX_MAX_PROCS	512
#define SANDBOX_TMPFS_SIZE	(512ULL << 20)

/*
 * The plan: which confinement, and what is not enforced.  A pure
 * function of its inputs (tests/sandbox/test_sandbox.c holds its table).
 */
#define PLAN_LINES	8

struct sandbox_tried {
	enum sandbox_confinement confinement;
	int			 mech;		/* enum sandbox_mech */
	enum sandbox_avail	 avail;
	char			 detail[256];
};

struct sandbox_plan {
	enum sandbox_profile	 profile;
	enum sandbox_confinement confinement;
	const char		*network_mode;	/* SPEC 7 */
	bool			 landlock;
	bool			 seccomp;
	bool			 memory;	/* a memory cgroup is made */
	enum sandbox_identity	 identity;
	bool			 getfd;		/* the broker may pidfd_getfd */
	int			 landlock_abi;
	/* "sandbox: not enforced: WHAT (WHY)" lines, WHAT\tWHY. */
	char			 lines[PLAN_LINES][384];
	size_t			 nlines;
	/* The confinements that could not attach, in the order tried. */
	struct sandbox_tried	 tried[CONFINEMENT_COUNT];
	size_t			 ntried;
	/* A refusal (SPEC 6.4): nothing may be spawned. */
	bool			 refused;
	enum sandbox_area	 area;
	int			 mech;		/* enum sandbox_mech, or -1 */
	enum sandbox_avail	 avail;
	char			 detail[256];
};

struct sandbox_plan_input {
	enum sandbox_profile	 profile;
	enum sandbox_choice	 choice;
	const struct sandbox_host *host;
	bool			 max_memory;	/* --max-memory given */
	bool			 tmpfs_size;	/* --tmpfs-size given */
	bool			 hide_key;	/* --sign-key: must be denied */
	bool			 uid_fits;	/* SANDBOX_UID may write the roots */
	bool			 roots_root;	/* root owns a writable root */
};

void	 sandbox_plan(const struct sandbox_plan_input *, struct sandbox_plan *);

int	 sandbox_profile_parse(const char *, enum sandbox_profile *);
const char *sandbox_profile_name(enum sandbox_profile);
int	 sandbox_choice_parse(const char *, enum sandbox_choice *);
const char *sandbox_confinement_name(enum sandbox_confinement);
const char *sandbox_mech_name(enum sandbox_mech);	/* linux_... */
const char *sandbox_mech_what(enum sandbox_mech);	/* for people */
const char *sandbox_area_name(enum sandbox_area);
const char *sandbox_avail_name(enum sandbox_avail);

/*
 * The host's abilities.  quick: namespaces are taken as there until a
 * spawn says otherwise (run mode tries them for real); otherwise each
 * is tried in a throwaway child, with its set-up steps (doctor).  The
 * memory cgroup is looked for when memory (or not quick).
 */
void	 sandbox_probe(struct sandbox_host *, bool quick, bool memory);
/*
 * The namespaces' whole set-up, in a throwaway child (a quick probe only
 * asks unshare(0)): for a refusal that names them (SPEC 6.4).
 */
void	 sandbox_probe_namespaces(struct sandbox_host *);

/*
 * The command's terminal (SPEC 6.1): a pseudo-terminal of harn-egressd's,
 * never the caller's.  Every child puts slave at each standard stream
 * marked in streams (the caller's terminal there; the others pass as
 * they are) and closes slave and master (both above 2); the command, the
 * leader of its own session, makes it its controlling terminal.
 */
struct sandbox_tty {
	int			 master, slave;
	bool			 streams[3];
};

/* What CMD is run with; paths absolute, directories canonical. */
struct sandbox_request {
	enum sandbox_profile	  profile;
	char *const		 *argv;
	const char		 *workspace;	/* canonical */
	const char		 *home;		/* canonical; NULL: none */
	const char		 *home_given;	/* $HOME as the caller wrote it */
	const char *const	 *ro_roots;	/* canonical */
	size_t			  nro_roots;
	const char *const	 *rw_roots;	/* canonical */
	size_t			  nrw_roots;
	const char *const	 *deny;		/* absolute, as given */
	size_t			  ndeny;
	const char *const	 *socket_roots;	/* canonical */
	size_t			  nsocket_roots;
	/* --env: NAME (the caller's value) or NAME=VALUE */
	const char *const	 *env_names;
	size_t			  nenv_names;
	const char		 *cache_dir;	/* canonical, a write root; NULL */
	const char		 *sign_key;	/* denied like a credential */
	struct sandbox_limits	  limits;
	unsigned short		  host_port;	/* the proxy, without netns */
	bool			  transparent;	/* other TCP through it (6.6) */
	const struct sandbox_tty *tty;		/* NULL: streams as they are */
	bool			  trial;	/* no exec: sandbox_trial's steps */
};

/*
 * A variable naming a directory that harn-egressd sets for a confined
 * command (TMPDIR, TMP, TEMP, XDG_CACHE_HOME, npm_config_cache and the
 * other caches): given with --env, its directory is the user's, granted
 * writable (SPEC 6.3).  One it sets itself, never the caller's (the proxy
 * variables): --env NAME=VALUE of it is a usage error.
 */
bool	 sandbox_env_dir_var(const char *name, size_t len);
bool	 sandbox_env_reserved(const char *name, size_t len);

/*
 * A root given on the command line, canonical, or NULL with err: it does
 * not exist, or is reached through a symlink (which an earlier command
 * could have made).
 */
char	*sandbox_root_path(const char *path, char *err, size_t errlen);

/* A workspace or --write-root may not hold a system directory (or be /). */
int	 sandbox_writable_root_ok(const char *canonical, char *err,
	    size_t errlen);
/*
 * Nor be or hold the home directory of the user running us (or, under
 * sudo, of the user it ran us for): the command would own ~/.profile.
 */
int	 sandbox_home_root_ok(const char *canonical, char *err, size_t errlen);

/*
 * May the command write path (or its directory, for one that does not
 * exist yet)?  For --log, --attest and --port-file, which must be out
 * of its reach.
 */
bool	 sandbox_may_write(const struct sandbox_request *, const char *path);

/*
 * Is path, which exists here, surely out of the command's sight: Landlock
 * is in force (plan) and its real path is at or under no root the request
 * grants, nor above one, nor a denied credential path?  For the hint
 * after a command failed (a tool says "does not exist"): false whenever
 * it cannot be told for sure.
 */
bool	 sandbox_path_hidden(const struct sandbox_request *,
	    const struct sandbox_plan *, const char *path);

/* A spawn that failed, and why. */
struct sandbox_failure {
	enum sandbox_area	 area;
	int			 mech;		/* enum sandbox_mech, or -1 */
	int			 err;		/* errno of the failed step */
	bool			 setup;		/* the confinement's set-up */
	char			 text[256];
};

struct sandbox_child;

/*
 * Fork the confined command.  It sets itself up while the caller goes
 * on; sandbox_ready waits for it.  NULL with f set when nothing started.
 */
struct sandbox_child *sandbox_start(const struct sandbox_request *,
	    const struct sandbox_plan *, struct sandbox_failure *f);
/*
 * Wait until the command is set up and about to exec, its broker
 * serving.  -1 with f set: no child is left.
 */
int	 sandbox_ready(struct sandbox_child *, struct sandbox_failure *f);
/*
 * What the sandbox refused on the way out, beyond the proxy (SPEC 5's
 * not_through_proxy): a connect(), bind() or listen() toward an endpoint
 * the confinement does not allow.
 */
enum sandbox_direct_op {
	DIRECT_CONNECT,
	DIRECT_BIND,
	DIRECT_LISTEN,
	DIRECT_INBOUND		/* landlock: another's connection, reset */
};

struct sandbox_direct {
	enum sandbox_direct_op	 op;
	pid_t			 pid;		/* as the host sees it; 0: unknown */
	char			 exe[256];	/* "": unknown */
	char			 addr[128];	/* IP, unix:PATH, unix:@NAME;
						   inbound: the peer's IP */
	unsigned short		 port;		/* inbound: the port it came to */
};

/*
 * What the control socket holds, without waiting: 1 a refusal (*d), 0 the
 * command ended (sandbox_wait then has its status), -1 nothing yet.  The
 * refused caller is answered at the next call: log the refusal first.
 */
int	 sandbox_next(struct sandbox_child *, struct sandbox_direct *d);
/*
 * Refusals read (by sandbox_owner) and not yet taken by sandbox_next, or
 * the command's end read already (sandbox_ready): sandbox_next has them.
 */
bool	 sandbox_queued(const struct sandbox_child *);

/*
 * The confined process that opened fd, a connection accepted on the
 * proxy's port (SPEC 5's pid, as the host sees it, and exe): 0, or -1
 * when it cannot be known (not a confined command's, or gone already).
 * Each connection's owner is told once.  *via: whether the broker made
 * it for a program that ignores the proxy (SPEC 6.6).
 */
enum sandbox_via {
	SANDBOX_VIA_CLIENT,	/* the command's own connect to the proxy */
	SANDBOX_VIA_TRANSPARENT, /* the broker asks in SOCKS5 for its target */
	SANDBOX_VIA_DNS		/* a DNS query over TCP, to be answered */
};
int	 sandbox_owner(struct sandbox_child *, int fd, pid_t *pid, char *exe,
	    size_t len, enum sandbox_via *via);

/* The proxy's listener inside CMD's network namespace, or -1 (taken). */
int	 sandbox_take_listener(struct sandbox_child *, unsigned short *port);
/*
 * UDP port 53 inside CMD's network namespace (IPv4, IPv6), each -1 when
 * there is none (landlock, transparent off, no IPv6): answered by the
 * proxy (SPEC 6.6).  Taken: the caller closes them.
 */
void	 sandbox_take_dns(struct sandbox_child *, int fds[2]);
/*
 * In landlock, each UDP socket of CMD is a stand-in (SPEC 6.6): the other
 * end of each is handed to sink (which owns it), those already come at
 * once.  Set it before the command can run long without an answer.
 */
void	 sandbox_standin_sink(struct sandbox_child *,
	    void (*sink)(void *, int fd), void *arg);
/*
 * The proxy's decision on a connect the broker holds for a caller that
 * does not wait (proxy_set_decided's, SPEC 6.6): fd the proxy's end, err
 * 0 or ECONNREFUSED.
 */
void	 sandbox_decided(struct sandbox_child *, int fd, int err);
/* Readable when there is something for sandbox_next. */
int	 sandbox_ctl_fd(const struct sandbox_child *);
void	 sandbox_signal(const struct sandbox_child *, int sig);
/* The command's wait status, once it has ended (blocks until then). */
int	 sandbox_wait(struct sandbox_child *);
void	 sandbox_free(struct sandbox_child *);

/*
 * Does confinement c attach here?  Found by doing what a run does
 * (doctor, SPEC 6.5): the plan, then a spawn in a throwaway workspace
 * whose command, confined, connects through the broker to a listener of
 * ours, changes a file's mode and signals itself, and exits instead of
 * exec'ing.  0, or -1 with why; h->failed[c] is set as a run would.
 */
int	 sandbox_trial(struct sandbox_host *h, enum sandbox_confinement c,
	    char *why, size_t len);

/*
 * The refusal record (SPEC 6.4), one JSON line on stderr.  mech -1: no
 * kernel mechanism is missing.  tried: the confinements that could not
 * attach (confinements_tried), or NULL.
 */
void	 sandbox_refusal(enum sandbox_area, const char *reason,
	    const char *detail, enum sandbox_profile, int mech,
	    enum sandbox_avail, const struct sandbox_tried *tried,
	    size_t ntried);

/*
 * Could SANDBOX_UID write every writable root of the request (its mode
 * bits, no idmapping)?  Does root own one of them on disk?  The landlock
 * confinement runs a root caller's command as SANDBOX_UID only where the
 * first is true and the second false (plan.c, identity).
 */
bool	 sandbox_uid_fits(const struct sandbox_request *);
bool	 sandbox_roots_root(const struct sandbox_request *);

/*
 * Reading a file as the command could have (readas.c; SPEC 7.1's
 * subjects).  The root an absolute, normalized path lies beneath: the
 * deepest of the workspace, the write roots and the read-only roots that
 * holds it, provided a writable one does; NULL otherwise.
 */
const char *sandbox_subject_root(const struct sandbox_request *,
	    const char *path);

/* Whose rights: a uid and gid, with or without our groups; no capability. */
struct sandbox_ident {
	bool		 change;	/* false: our own uid, gid and groups */
	uid_t		 uid;
	gid_t		 gid;
	bool		 groups;	/* keep our supplementary groups */
};

/*
 * The command's rights beneath root (its stat) under plan p; gid is ours
 * (the group a root caller's command kept).
 */
void	 sandbox_subject_ident(const struct sandbox_plan *p,
	    const struct stat *root, gid_t gid, struct sandbox_ident *);

/*
 * Take id in this process (a child's: for good), and drop every
 * capability, never dumpable.  -1 with errno when any step fails.
 */
int	 sandbox_become(const struct sandbox_ident *id);

/*
 * Run fn in a child that took id (sandbox_become; NULL: keeps everything
 * of ours), holding only descriptor keep (and 0-2) of ours.  fn writes its
 * answer, len bytes at most 1024, to out, and calls sandbox_tick as it
 * makes progress; a child silent for idle_ms is killed.  0 with out
 * filled, or -1 with errno: ETIMEDOUT (killed), the errno of the step of
 * sandbox_become that failed, or ECHILD (it died without an answer).
 */
struct sandbox_tick;
typedef void (*sandbox_helper_fn)(void *arg, struct sandbox_tick *,
	    void *out, size_t len);
int	 sandbox_helper(const struct sandbox_ident *id, int keep,
	    sandbox_helper_fn fn, void *arg, void *out, size_t len,
	    int idle_ms);
void	 sandbox_tick(struct sandbox_tick *);

#endif
