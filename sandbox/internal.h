/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sandbox/: what its files share, and what its unit tests reach into.
 * Nothing outside sandbox/ and tests/ includes this.
 */
#ifndef SANDBOX_INTERNAL_H
#define SANDBOX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "sandbox/sandbox.h"

struct event_base;
struct stat;

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))

/*
 * The uid and gid a root caller's command runs as: in Debian's reserved
 * range (65000-65533, allocated to nothing) and above systemd's dynamic
 * users (61184-65519), so it owns no file on the host.
 */
#define SANDBOX_UID	65533
#define SANDBOX_GID	65533

#define SANDBOX_MAX_FDS	160	/* descriptors one control message carries */

/* ------------------------------------------------------------ strings */

struct strv {
	char	**v;
	size_t	  n, cap;
};

int	 strv_add(struct strv *, char *);	/* takes str; frees it on error */
void	 strv_free(struct strv *);
void	 fds_free(int *fds, size_t n);	/* each closed, then the array */
char	*path_join(const char *, const char *);
bool	 path_under(const char *path, const char *dir);	/* or equal */
char	*path_real(const char *);		/* realpath(3), faster */
/* Canonical, or its nearest existing directory's plus the rest; NULL. */
char	*path_canonical(const char *);
void	 path_lexical(char *);	/* "." and ".." out as written, in place */
/* The name the kernel gives fd (/proc/self/fd): absolute, whole; or -1. */
int	 fd_path(int fd, char *buf, size_t len);

/*
 * A file's device and its path from its filesystem's root: the same by
 * every path (bind mount) that reaches it.  fsid_of_path follows links.
 */
struct fs_id {
	dev_t	 dev;
	char	*path;
};

int	 fsid_of_fd(int, struct fs_id *);
int	 fsid_of_path(const char *, struct fs_id *);
bool	 fsid_under(const struct fs_id *, const struct fs_id *dir);
void	 fsid_free(struct fs_id *);

/* c (canonical) is at or below the workspace or a write root, by name. */
bool	 reach_writable(const struct sandbox_request *, const char *c);
/*
 * open(2) of an absolute path, following its links only through names
 * out of the command's reach (EACCES at a name in a writable root, by
 * name or by identity).
 */
int	 sandbox_open_out_of_reach(const struct sandbox_request *,
	    const char *path, int flags);

/* ------------------------------------------------------------ Landlock */

enum landlock_grant {
	GRANT_RX,	/* read and execute: system roots, $HOME, --read-only-root */
	GRANT_RO,	/* read only */
	GRANT_RW,	/* read, write, execute: workspace, --write-root */
};

struct landlock_path {
	const char		*path;
	enum landlock_grant	 grant;
	/* A root: the directory it was when checked (ino 0: any). */
	dev_t			 dev;
	ino_t			 ino;
};

struct landlock_stats {
	int		 abi;
	unsigned	 rules;		/* rules added */
	unsigned	 expanded;	/* grants split around denied paths */
	double		 ms;		/* time to build */
};

/*
 * The ruleset's file descriptor, not yet enforced; -1 with err set.
 * Denied paths beat every grant: a grant holding one is split into
 * grants of its other entries, down to the denied path.  A denied path
 * that does not exist is split around at its nearest existing
 * directory, so that it stays denied if it appears during the run.
 * masked: the denied paths are also masked by mounts, and the
 * directories split keep their structural rights (listing, making and
 * removing entries).
 */
int	 sandbox_landlock_build(const struct landlock_path *, size_t n,
	    const char *const *deny, size_t ndeny, unsigned max_rules,
	    bool masked, struct landlock_stats *, char *err, size_t errlen);
/*
 * The same, with TCP rights handled where the ABI has them (4): connect
 * only to net_port, bind only to port 0.  Never masked.
 */
int	 sandbox_landlock_build_net(const struct landlock_path *, size_t n,
	    const char *const *deny, size_t ndeny, unsigned max_rules,
	    int net_port, struct landlock_stats *, char *err, size_t errlen);
/* More grants, against the same denied paths, into ruleset fd. */
int	 sandbox_landlock_add(int fd, const struct landlock_path *, size_t n,
	    const char *const *deny, size_t ndeny, unsigned max_rules,
	    bool masked, struct landlock_stats *, char *err, size_t errlen);
/* Enforce on the calling thread (no_new_privs must be set); closes fd. */
int	 sandbox_landlock_enforce(int fd, char *err, size_t errlen);
int	 sandbox_landlock_abi(void);

/* ------------------------------------------------------------ seccomp */

/*
 * The filters: SPEC 6.2's allowlist, and the broker's (its calls
 * notified, the rest left to the allowlist), in variants.
 */
#define SECCOMP_MAIN		0	/* the allowlist */
#define SECCOMP_BROKER		0x1	/* connect, bind, listen, processes */
#define SECCOMP_BROKER_LL	0x2	/* and metadata, signals; no IPC (landlock) */
#define SECCOMP_BROKER_OPTS	0x4	/* and setsockopt (no pidfd_getfd) */
#define SECCOMP_BROKER_ROOT	0x8	/* and forks (uid 0 kept) */
/*
 * (With LL) and UDP: socket() gets a stand-in, sendto() and recvfrom()
 * with an address stop (broker_udp.c, SPEC 6.6).
 */
#define SECCOMP_BROKER_UDP	0x10
/*
 * The allowlist and UDP sockets: in namespaces, whose network has no way
 * out, a resolver's datagrams reach the run's own answerer (SPEC 6.6); in
 * landlock only with the broker's SECCOMP_BROKER_UDP, which answers every
 * such socket() with a stand-in, so that none is made on the host's
 * network.  The same bit as SECCOMP_BROKER_UDP: a main program has no
 * SECCOMP_BROKER bit.
 */
#define SECCOMP_MAIN_UDP	0x10
#define SECCOMP_PROGRAMS	32
bool	 sandbox_seccomp_valid(int which);
/* As generated at build time, and loading them. */
int	 sandbox_seccomp_load(char *err, size_t errlen);	/* built now */
int	 sandbox_seccomp_program(const void **prog, size_t *len);
int	 sandbox_seccomp_generated(int which, const void **prog, size_t *len);
int	 sandbox_seccomp_build_program(int which, void **prog, size_t *len,
	    char *err, size_t errlen);
int	 sandbox_seccomp_load_program(const void *prog, size_t len,
	    char *err, size_t errlen);
int	 sandbox_seccomp_export_bpf(int which, int fd, char *err,
	    size_t errlen);
/*
 * The broker's filter loaded with a new listener: the listener's fd, or
 * -1 with err set.
 */
int	 sandbox_seccomp_load_broker(int which, char *err, size_t errlen);
/*
 * The brokered calls, one row each (sandbox/broker_calls.c): the broker's
 * filter stops a row's call in the variants its where names, and the
 * broker answers it with its family's act (broker.c's acts[]).  Neither
 * has a list of its own.
 */
enum broker_family {
	BCALL_CONNECT,		/* broker.c */
	BCALL_BIND,
	BCALL_LISTEN,
	BCALL_PROCESS,		/* a call on another process by its id */
	BCALL_FORK,		/* a command that keeps uid 0: max_procs */
	BCALL_META,		/* file metadata (landlock) */
	BCALL_SIGNAL,		/* whom a signal reaches (landlock) */
	BCALL_SETSOCKOPT,	/* kept for fresh sockets; SO_REUSEPORT */
	BCALL_ACCEPT,		/* accept.c; op 1: accept4() */
	BCALL_PEERNAME,		/* broker_peer.c: a connect through the proxy */
	BCALL_UDP,		/* broker_udp.c: UDP's stand-ins (landlock) */
	BCALL_SOERROR,		/* broker_hold.c: a held connect refused */
	BCALL_FAMILIES
};
enum broker_stop {
	STOP_ALWAYS,
	STOP_UNLESS_ZERO,	/* arg[0] is not 0 (0: the caller itself) */
	STOP_MATCH,		/* arg[i] & mask[i] == val[i] for each i < nmatch */
	STOP_NONNULL		/* arg[0], all 64 bits, is not 0 (a pointer) */
};
/* The calls of a UDP socket's stand-in (broker_udp.c). */
enum broker_udpcall { UDPCALL_SOCKET, UDPCALL_SENDTO, UDPCALL_RECVFROM };
/* The calls on another process by its id. */
enum broker_procall {
	PROCALL_PID,		/* pid in arg[0]; 0: the caller */
	PROCALL_PRIORITY,	/* setpriority(which, who, ...) */
	PROCALL_IOPRIO		/* ioprio_set(which, who, ...) */
};
/* What a metadata call changes, and where it finds its file. */
enum meta_op { M_CHMOD, M_CHOWN, M_UTIMENS, M_UTIMES, M_UTIME, M_SETX,
	M_REMX, M_TRUNC };
enum meta_layout { K_PATH, K_FD, K_AT };
struct brokered {
	const char		*name;
	enum broker_family	 family;
	int			 where;		/* SECCOMP_BROKER_* it needs */
	bool			 optional;	/* not on every architecture */
	enum broker_stop	 stop;
	unsigned		 arg[2];
	uint32_t		 val[2];
	uint32_t		 mask[2];	/* STOP_MATCH; 0: every bit */
	unsigned		 nmatch;
	/* STOP_UNLESS_ZERO: arg 0's "every process of the user", or -1. */
	int			 user;
	/* PROCESS: enum broker_procall; SIGNAL: broker_sigcall; META: meta_op */
	int			 op;
	/* META: where the file is named, and AT_* flags' argument or -1. */
	enum meta_layout	 layout;
	bool			 nofollow;	/* works on a symlink itself */
	int			 flags_arg;
};
extern const struct brokered brokered_calls[];
extern const size_t brokered_ncalls;

/* ------------------------------------------------------------ paths */

/* A bind mount the namespaces confinement makes (depth order). */
struct ns_bind {
	char		*path;		/* canonical; the same inside */
	bool		 ro;
	bool		 idmap;		/* root caller: owner -> SANDBOX_UID */
	bool		 skel;		/* an empty tmpfs instead: the way only */
	uid_t		 owner;
	gid_t		 group;
	dev_t		 dev;		/* the directory it was when checked */
	ino_t		 ino;
};

/*
 * What the command may touch and what it never may (SPEC 6.3).  grants
 * are the host's, the same by every view; inside are the namespaces
 * confinement's own (its private directories and terminals), which only
 * its mount namespace has.
 */
struct sandbox_paths {
	struct landlock_path	*grants;
	size_t			 ngrants;
	struct landlock_path	*inside;
	size_t			 ninside;
	struct ns_bind		*binds;		/* namespaces only */
	size_t			 nbinds;
	struct strv		 deny;		/* absolute, as given */
	struct strv		 deny_inside;	/* those under an inside grant */
	struct strv		 hide;		/* those hidden by skeletons */
	struct strv		 sockroots;	/* canonical socket roots */
	struct strv		 bindroots;	/* where sockets may be made */
	struct strv		 owned;		/* what grants point into */
	const char		*workspace;
};

int	 sandbox_paths_build(const struct sandbox_request *,
	    enum sandbox_confinement, bool root, bool root_kept,
	    struct sandbox_paths *, char *err, size_t errlen);
/*
 * What only uid and its groups may read under root, added to out; keep:
 * the roots given, neither walked nor denied, nor the way to them.
 */
int	 rootonly_find(const char *root, uid_t uid, const char *const *keep,
	    size_t nkeep, struct strv *out, char *err, size_t errlen);
void	 sandbox_paths_free(struct sandbox_paths *);
/* Granted to every command: the system read-execute, devices read-write. */
extern const char *const system_roots[];
extern const char *const device_files[];
extern const char *const sandbox_home_denylist[];

/*
 * The namespaces confinement's binds (nsbinds.c), planned by paths.c, and
 * its private directories (a private directory at or below path: held).
 */
extern const char *const sandbox_private_dirs[];
bool	 sandbox_holds_private(const char *path);
int	 nsb_add(struct sandbox_paths *, size_t *cap, const char *path,
	    bool ro, bool idmap, const struct stat *);
void	 nsb_sort(struct sandbox_paths *);
const struct ns_bind *nsb_view(const struct sandbox_paths *, const char *);
int	 nsb_traversal(struct sandbox_paths *, size_t *cap);
enum nsb_deny {
	NSB_SPLIT,	/* Landlock splits the private directory around it */
	NSB_HIDE,	/* a skeleton of its read-only root hides it */
	NSB_GONE	/* an empty skeleton holds it: not there */
};
enum nsb_deny nsb_deny_how(const struct sandbox_paths *, const char *);

/*
 * The run's private directory (rundir.c, SPEC 6.3): TMPDIR (DIR/tmp), the
 * caches (DIR/cache) and the npmrc stand-in (DIR/npmrc), never in the
 * workspace.  namespaces: in the command's own /tmp (or the next private
 * directory no root covers), made there by the command itself, gone with
 * its tmpfs.  landlock: made here, outside every root (a directory of
 * harn-egressd's in $TMPDIR or /tmp, holding the command's), granted to
 * the command as a write root, and removed at the end without following
 * a link.  req is the caller's request with that root added.
 */
#define RUNDIR_NPMRC	"npmrc"
#define RUNDIR_INSIDE	"harn-egressd"	/* its name in a private directory */
struct rundir {
	struct sandbox_request	 req;
	const char		**rw;		/* req.rw_roots, ours */
	char			*dir;		/* as the command sees it; NULL */
	char			*top;		/* landlock: ours, made for the run */
	int			 basefd;	/* top's parent, held; -1 */
	char			*npmrc;		/* ~/.npmrc less credentials */
	size_t			 npmrc_len;
};

int	 rundir_make(struct rundir *, const struct sandbox_request *,
	    const struct sandbox_plan *, char *err, size_t errlen);
/* namespaces: in the command, as the command, before it execs. */
int	 rundir_fill_inside(const struct rundir *, char *err, size_t errlen);
/*
 * Everything made for the run removed (landlock), and freed; -1 when
 * something was left (said on stderr).
 */
int	 rundir_remove(struct rundir *);
/*
 * landlock, in init, as the command, once harn-egressd is gone (SIGKILL):
 * what the command may remove of it (all, but the top directory of a
 * command that runs as uid 65533 for a root caller).
 */
void	 rundir_orphaned(const struct rundir *);
/*
 * The first of the private directories (namespaces) whose own tmpfs
 * stays the command's: no write root at or above it, no root at or
 * below DIR/RUNDIR_INSIDE; exists[i]: that directory is there.  -1: none.
 * Pure.
 */
int	 rundir_pick(const char *const *privates, const bool *exists,
	    const char *const *roots, const bool *writable, size_t nroots);
/*
 * ~/.npmrc is denied; CMD gets the run's DIR/npmrc instead (through
 * NPM_CONFIG_USERCONFIG): the user's file without its credential lines,
 * so a private registry's URL still works.  1 read (*buf malloc'd), 0
 * none, -1.
 */
int	 sandbox_npmrc_read(const struct sandbox_request *, char **buf,
	    size_t *len, char *err, size_t errlen);
/* The command's environment (SPEC 6.3); port 0: not known yet; rd NULL:
 * unconfined. */
char	**sandbox_env_build(const struct sandbox_request *,
	    unsigned short port, const struct rundir *rd, char *err,
	    size_t errlen);
void	 sandbox_env_free(char **);

/* What a trial's command said failed, once it has ended; NULL: none. */
const char *spawn_late_failure(const struct sandbox_child *);

/* ------------------------------------------------------------ broker */

/*
 * The broker's decisions, pure functions of their inputs: the socket's
 * own family (read from the object where the kernel lets us, else what
 * the address says), the caller's address as the broker copied it, the
 * caller's working directory, and the roots and ports the rules allow.
 */
enum broker_verdict {
	BROKER_AS_IS,		/* act with the copied address as it is */
	BROKER_BENEATH,		/* a unix path: rest beneath roots[root] */
	BROKER_OWNED,		/* loopback: only to a listener of CMD's */
	BROKER_TRANSPARENT,	/* TCP elsewhere: through the proxy (6.6) */
	BROKER_REFUSE		/* fail the call with err */
};

enum broker_mode {
	BROKER_NS,		/* a network namespace confines TCP */
	BROKER_LL		/* the host's network: the broker confines it */
};

struct broker_rules {
	enum broker_mode	 mode;
	const char *const	*roots;		/* connect: canonical dirs */
	size_t			 nroots;
	unsigned short		 proxy_port;	/* on 127.0.0.1 */
	bool			 transparent;	/* other TCP through the proxy */
	const char *const	*binds;		/* unix bind: canonical dirs */
	size_t			 nbinds;
};

struct broker_call {
	int				 domain;	/* the socket's */
	bool				 tcp;		/* a TCP stream socket */
	const struct sockaddr_storage	*addr;
	socklen_t			 addrlen;
	const char			*cwd;	/* NULL: unknown */
	pid_t				 pid;	/* the caller's process */
};

struct broker_decision {
	enum broker_verdict	 verdict;
	int			 err;		/* BROKER_REFUSE */
	bool			 direct;	/* a refused endpoint: logged */
	size_t			 root;		/* BROKER_BENEATH */
	char			 rest[4096];	/* relative to that root */
	unsigned short		 port;		/* BROKER_OWNED */
	bool			 to_proxy;	/* 127.0.0.1:proxy_port */
	bool			 dns;		/* TRANSPARENT: a DNS query */
};

void	 broker_decide(const struct broker_rules *, const struct broker_call *,
	    struct broker_decision *);
void	 broker_decide_bind(const struct broker_rules *,
	    const struct broker_call *, struct broker_decision *);
/*
 * A UDP stand-in's connect, sendto or bind (landlock, SPEC 6.6): family
 * is the socket's as the command asked for it.  BROKER_AS_IS: done.
 */
void	 broker_decide_udp(int family, const struct sockaddr_storage *,
	    socklen_t, bool bind, struct broker_decision *);
/* listen() on a socket bound to addr (the socket's own, getsockname). */
void	 broker_decide_listen(const struct broker_rules *, int domain,
	    const struct sockaddr_storage *addr, socklen_t len,
	    struct broker_decision *);
/* The endpoint an address names, for the log: IP, unix:PATH, unix:@NAME. */
void	 broker_endpoint(const struct sockaddr_storage *, socklen_t,
	    const char *cwd, char *buf, size_t len, unsigned short *port);

/* The landlock confinement's signal calls, and whom they reach. */
enum broker_sigcall {
	SIGCALL_KILL,		/* kill(pid, sig) */
	SIGCALL_TKILL,		/* tkill(tid, sig) */
	SIGCALL_TGKILL,		/* tgkill(tgid, tid, sig) */
	SIGCALL_SIGQUEUE,	/* rt_sigqueueinfo(tgid, ...) */
	SIGCALL_TGSIGQUEUE,	/* rt_tgsigqueueinfo(tgid, tid, ...) */
	SIGCALL_PIDFD_OPEN,	/* pidfd_open(pid, flags): its signals follow */
	SIGCALL_SETOWN,		/* fcntl(fd, F_SETOWN, owner): SIGIO's target */
	SIGCALL_PIDFD_SEND	/* pidfd_send_signal(fd, ...): fd's process */
};

struct broker_target {
	enum {
		TARGET_KERNEL,	/* no other process: the kernel judges */
		TARGET_PROCESS,	/* the process (or thread) id */
		TARGET_GROUP,	/* the process group id */
		TARGET_REFUSE	/* fail with err */
	}		 kind;
	pid_t		 id;
	int		 err;
};

void	 broker_signal_target(enum broker_sigcall, const uint64_t *args,
	    struct broker_target *);
void	 broker_procall_target(const struct brokered *,
	    const uint64_t *args, struct broker_target *);
/* The metadata calls' invariants, and where metadata may change. */
int	 broker_meta_allowed(const struct brokered *, const uint64_t *args,
	    int a, const char *name, uid_t euid, bool (*ours)(gid_t));
bool	 broker_meta_writable(const char *const *writable, size_t nwritable,
	    const char *const *readonly, size_t nreadonly, const char *real);
/* The overrides of a decision by what is found when it is made. */
bool	 broker_bind_port_check(const struct broker_decision *,
	    enum broker_mode, int domain);
void	 broker_refuse_taken(struct broker_decision *);
bool	 broker_refuse_found(struct broker_decision *, int err);
/* Landlock: a loopback port another's listener holds, through the proxy? */
bool	 broker_transparent_found(const struct broker_rules *,
	    const struct broker_call *, struct broker_decision *, int err);

/* What the broker refused on the way out (SPEC 5's not_through_proxy). */
enum broker_op {
	BROKER_OP_CONNECT,
	BROKER_OP_BIND,
	BROKER_OP_LISTEN,
	BROKER_OP_INBOUND	/* a connection of another's, reset at accept */
};

struct broker_refusal {
	enum broker_op	 op;
	pid_t		 pid;		/* the caller's process, as we see it */
	char		 exe[256];	/* "" when it cannot be read */
	char		 addr[128];
	unsigned short	 port;
};

/*
 * A connect to the proxy's port, about to be made: the socket's inode and
 * its process, for the decision log's pid and exe (SPEC 5).
 */
struct broker_conn {
	unsigned long	 ino;
	pid_t		 pid;		/* as we see it */
	int		 pidfd;		/* of pid; the broker's, closed after */
	char		 exe[256];	/* "" when it cannot be read */
	enum sandbox_via via;		/* why the broker connects it */
};

struct broker;

/* What the broker is started with; fds are taken, on error too. */
struct broker_conf {
	enum broker_mode	 mode;
	int			 notify;	/* the seccomp listener */
	const char *const	*roots;		/* as the command sees them */
	int			*rootfds;	/* malloc'd; -1: absent */
	size_t			 nroots;
	const char *const	*binds;		/* where unix sockets are made */
	int			*bindfds;	/* malloc'd; -1: absent */
	size_t			 nbinds;
	const char *const	*writable;	/* roots for metadata (BROKER_LL) */
	size_t			 nwritable;
	const char *const	*readonly;	/*   but not in these */
	size_t			 nreadonly;
	unsigned short		 proxy_port;	/* on 127.0.0.1, as CMD sees it */
	bool			 transparent;	/* other TCP through the proxy */
	int			 landlock_abi;	/* the command's (scopes: 6) */
	pid_t			 init;		/* the command's processes below */
	bool			 getfd;		/* pidfd_getfd may be used */
	bool			 udp;		/* UDP's stand-ins (landlock) */
	unsigned		 max_procs;	/* counted at each fork; 0: not */
	/* A refusal to log; called before the caller is answered. */
	void			(*refused)(void *, const struct broker_refusal *);
	/* A connect to the proxy; called before it is made. */
	void			(*connecting)(void *, const struct broker_conn *);
	/* The answerer's end of a UDP stand-in, to be handed over (udp). */
	int			(*standin)(void *, int fd);
	/* harn-egressd's word on held connects (broker_hold.c), or -1. */
	int			 decided;
	void			*arg;
};

/*
 * The decision on a connect held for a caller that does not wait (SPEC
 * 6.6's EINPROGRESS), harn-egressd to the broker, one packet each.  The
 * connection is known by the command's end: 127.0.0.1 (or another IPv4
 * loopback address) and port, both in network order.
 */
struct held_decision {
	uint32_t	 addr;
	uint16_t	 port;
	uint16_t	 unused;
	int32_t		 err;		/* 0: a tunnel; or ECONNREFUSED */
};

struct broker *broker_new(struct event_base *, const struct broker_conf *,
    char *err, size_t errlen);
void	 broker_free(struct broker *);

/* Who opened each connection to the proxy, by socket inode (owner.c). */
#define OWNER_MAX	1024
struct owner_entry {
	unsigned long	 ino;
	pid_t		 pid;		/* the host's; 0: unknown */
	char		 exe[256];
	enum sandbox_via via;		/* why the broker connected */
};
struct owner_table {
	struct owner_entry	 e[OWNER_MAX];	/* a ring, oldest at head */
	size_t			 head, n;
};
void	 owner_table_init(struct owner_table *);
void	 owner_add(struct owner_table *, unsigned long ino, pid_t pid,
	    const char *exe, enum sandbox_via);
/* The owner of ino, taken out of the table; false: not known. */
bool	 owner_take(struct owner_table *, unsigned long ino, pid_t *pid,
	    char *exe, size_t len, enum sandbox_via *);

/*
 * The command's own loopback connections, made by the broker, until a
 * listener of the command accepts them (sandbox/inbound.c, landlock).
 */
#define INBOUND_MAX	4096	/* the default somaxconn: a full backlog */
struct inbound_conn {
	int			 fd;	/* the connecting socket, held */
	struct sockaddr_storage	 local;	/* its address and port */
	struct sockaddr_storage	 to;	/* the listener's, as asked */
	uint64_t		 seq;
};
struct inbound {
	struct inbound_conn	*v;
	size_t			 n, cap;
	uint64_t		 seq;
};
void	 inbound_init(struct inbound *);
/* Record sock (connected, or connecting, to to); 0 or an errno. */
int	 inbound_add(struct inbound *, int sock,
	    const struct sockaddr_storage *to);
/*
 * Was the connection accepted with these addresses (its peer's, its own)
 * one of ours?  Its record is taken out either way.
 */
bool	 inbound_take(struct inbound *, const struct sockaddr_storage *peer,
	    const struct sockaddr_storage *local);
/* Let go of records whose socket lost its connection. */
void	 inbound_sweep(struct inbound *);
void	 inbound_free(struct inbound *);
/* The same address and port, an IPv4 one and its mapped form alike. */
bool	 inbound_same_endpoint(const struct sockaddr_storage *,
	    const struct sockaddr_storage *);

/* What the broker learns of sockets it does not hold (sandbox/diag.c). */
int	 diag_open(void);
/*
 * The inode of the TCP socket at the other end of fd (an accepted one,
 * both ends in diag's network namespace); 0: not found.
 */
unsigned long diag_tcp_peer(int diag, int fd);
int	 diag_unix_type(int diag, unsigned long ino);	/* -1: not one */
struct diag_listener {
	unsigned long	 ino;
	int		 family;
	uint32_t	 addr[4];	/* as sock_diag gives it */
};
int	 diag_tcp_listeners(int diag, unsigned short port,
	    struct diag_listener *, size_t max);		/* -1: error */
unsigned long diag_socket_inode(const char *link);	/* 0: not one */
bool	 diag_held_below(pid_t init, unsigned long ino);
/* Each of inos[n] held below init, in one walk: held[i] set (not cleared). */
void	 diag_held_mark(pid_t init, const unsigned long *inos, bool *held,
	    size_t n);
/* Is pid (a thread's, its process's) or a process of pgrp below init? */
bool	 diag_pid_below(pid_t init, pid_t pid);
bool	 diag_group_below(pid_t init, pid_t pgrp);
pid_t	 diag_tgid(pid_t tid);
unsigned diag_tasks_below(pid_t init);	/* threads counted */

/* ------------------------------------------------------------ limits */

/* Apply the process limit in the command (before exec). */
int	 limits_apply_rlimits(const struct sandbox_limits *, bool shared_uid,
	    char *err, size_t errlen);
/* tmpfs mount options for one private directory. */
void	 limits_tmpfs_options(const struct sandbox_limits *, char *buf,
	    size_t len);
/* A memory cgroup for pid (v2, delegated); the cgroup's path or NULL. */
char	*limits_memory_cgroup(const struct sandbox_limits *, pid_t,
	    char *err, size_t errlen);
void	 limits_memory_cgroup_remove(char *);
/* Can this process make a memory cgroup? why says why not. */
bool	 limits_memory_available(char *why, size_t whylen);

/* ------------------------------------------------------------ spawn */

/* How the set-up of a confinement failed, for the parent. */
struct setup_fail {
	int		 err;		/* errno of the step */
	int		 mech;		/* enum sandbox_mech, or -1 */
	int		 area;		/* enum sandbox_area */
	char		 text[256];
};

/* The namespaces confinement's set-up steps (sandbox/ns.c). */
int	 ns_enter(const struct sandbox_paths *, const struct sandbox_limits *,
	    bool root, int *listen_fd, unsigned short *port,
	    struct setup_fail *);
int	 ns_mount_proc(struct setup_fail *);
/* UDP port 53 of every address inside (IPv4, and IPv6 or -1): nsdns.c. */
int	 ns_dns_answerer(int fds[2], struct setup_fail *);
/* pid's maps, written through the /proc at procfd. */
int	 ns_user_map(int procfd, pid_t pid, struct setup_fail *);
/*
 * Skeletons (skel.c): an empty one at path; the denied paths under the
 * read-only root b hidden (paths->hide); each empty one made read-only
 * once the roots beneath it are mounted.
 */
int	 skel_empty(const char *path, struct setup_fail *);
int	 skel_hide(const struct sandbox_paths *, const struct ns_bind *b,
	    struct setup_fail *);
int	 skel_seal(const struct sandbox_paths *, struct setup_fail *);

/*
 * The command's terminal (sandbox/tty.c).  In the first child: the
 * pseudo-terminal's slave in place of the caller's terminal, slave and
 * master closed.  In the command, after setsid: the slave its
 * controlling terminal.  NULL: nothing to do.  -1 with errno.
 */
int	 tty_child_stdio(const struct sandbox_tty *);
int	 tty_take_ctty(const struct sandbox_tty *);

#endif
