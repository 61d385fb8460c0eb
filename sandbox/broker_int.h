/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's own header (sandbox/broker*.c, accept.c, and the tests of
 * them): its state and the helpers its files share.  broker.c is the
 * loop; the acts are by family (broker_sock.c, broker_meta.c,
 * broker_proc.c, accept.c), over broker_answer.c, broker_mem.c and
 * broker_held.c.  No other file includes it.
 */
#ifndef SANDBOX_BROKER_INT_H
#define SANDBOX_BROKER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <linux/seccomp.h>

#include "sandbox/internal.h"

struct event;
struct event_base;

#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd		438
#endif
#ifndef SYS_openat2
#define SYS_openat2		437
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal	424
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD		O_EXCL		/* Linux 6.9 */
#endif
/* Linux 6.6: wake the caller on our CPU, and us on its (no IPI). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP	1UL
#endif

#define MAX_PENDING	128		/* blocking connects waiting at once */
#define RETRY_MS	10		/* a unix listener's full backlog */
#define SWEEP_MS	1000		/* callers gone while waiting */
#define CALLERS		8
#define OWNED		64		/* listeners known to be the command's */
#define MAX_LISTENERS	16		/* on one port */
#define OPTS_MAX	256		/* socket options kept for fresh ones */
#define OPT_LEN		16		/* the largest: struct timeval */
#define HELD_MAX	64		/* bound sockets held (landlock, no getfd) */
#define STASH_MAX	16		/* accepted for a caller gone */
#define MAX_ACCEPTORS	1024		/* blocking accepts waiting at once */
#define INFLIGHT_MAX	64		/* forks let go, not yet seen */
#define STANDINS_MAX	1024		/* UDP stand-ins known at once */
#define UDP_WAITS_MAX	256		/* blocking recvfroms waiting at once */
#define EARLY_MAX	32		/* decisions read before their hold */
#define REFUSED_MAX	64		/* held connects refused, unread */

/*
 * The callers seen last: their memory and their pidfd stay open, so that
 * a connect costs no open and close of either.  An entry of a task that
 * has gone, or exec'd, fails to read and is made again.
 */
struct caller {
	pid_t		 tid;
	int		 mem;		/* /proc/TID/mem */
	int		 pidfd;
	unsigned	 used;		/* for the least recently used */
};

struct pending {
	TAILQ_ENTRY(pending)	 entry;
	struct broker		*b;
	uint64_t		 id;
	int			 sock;		/* the caller's, or a fresh one */
	bool			 fresh;		/* ours, to put at fdno */
	int			 fdno;		/* the caller's descriptor */
	int			 flags;		/* the caller's status flags */
	bool			 cloexec;	/* the caller's FD_CLOEXEC */
	bool			 own;		/* to a listener of the command's */
	int			 target;	/* O_PATH of a unix peer, or -1 */
	unsigned long		 ino;		/* the caller's socket's */
	struct tproxy		*tp;		/* through the proxy (6.6) */
	bool			 dns;		/*   a DNS query, answered there */
	bool			 hold;		/*   asked to hold (broker_hold.c) */
	struct sockaddr_storage	 addr;
	socklen_t		 addrlen;
	struct event		*ev;
};

/* A socket connected through the proxy, and the address asked for. */
#define PEERS_MAX	1024
struct broker_peer {
	unsigned long		 ino;
	struct sockaddr_storage	 addr;
	socklen_t		 len;
};

/*
 * A UDP socket's stand-in (broker_udp.c), by inode: the family the
 * command asked for, and the server it speaks to (connected, or the last
 * sendto's), which is where its answers say they come from.
 */
struct standin {
	unsigned long		 ino;		/* 0: a free entry */
	int			 ref;		/* ours, without getfd; or -1 */
	int			 family;
	bool			 connected;
	struct sockaddr_storage	 to;
	socklen_t		 tolen;		/* 0: none yet */
};

struct broker {
	struct event_base	*base;
	enum broker_mode	 mode;
	int			 notify;
	struct event		*ev;
	struct event		*sweep;
	char			**roots;
	int			*rootfds;
	size_t			 nroots;
	char			**writable;
	size_t			 nwritable;
	char			**readonly;	/* roots inside writable ones */
	size_t			 nreadonly;
	char			**binds;	/* where unix sockets are made */
	int			*bindfds;
	size_t			 nbinds;
	unsigned short		 proxy_port;
	bool			 transparent;	/* other TCP through the proxy */
	struct broker_peer	 peers[PEERS_MAX];
	size_t			 npeers, peers_next;
	int			 landlock_abi;	/* the command's */
	pid_t			 init;
	bool			 getfd;
	bool			 thread_pidfd;
	int			 diag;
	struct caller		 callers[CALLERS];
	struct {
		unsigned short	 port;
		unsigned long	 ino;
	}			 owned[OWNED];
	size_t			 nowned;
	struct {			/* set on sockets not connected yet */
		unsigned long	 ino;
		int		 level, name;
		socklen_t	 len;
		unsigned char	 val[OPT_LEN];
	}			 opts[OPTS_MAX];
	size_t			 opts_next;
	/*
	 * Fresh sockets bound in the caller's place: held until the command
	 * lets go of them, listening or not (an accept() is made on this
	 * reference: without pidfd_getfd there is no other).
	 */
	struct {
		unsigned long	 ino;
		int		 fd;
	}			 held[HELD_MAX];
	size_t			 nheld;
	/* UDP's stand-ins (landlock, pidfd_getfd): broker_udp.c. */
	bool			 udp;
	int			(*standin)(void *, int fd);
	struct standin		 standins[STANDINS_MAX];
	size_t			 nstandins, standins_next;	/* used, ring */
	TAILQ_HEAD(, udp_wait)	 udp_waits;	/* blocking recvfroms */
	size_t			 nudp_waits;
	/* Connects held for callers that do not wait (broker_hold.c). */
	int			 decided;	/* harn-egressd's word, or -1 */
	struct event		*decided_ev;
	int			 unheard;	/* bound, never listening */
	unsigned short		 unheard_port;
	TAILQ_HEAD(, hold)	 holds;
	size_t			 nholds;
	struct {			/* refused, until SO_ERROR says so */
		unsigned long	 ino;
		int		 ref;
	}			 held_refused[REFUSED_MAX];
	size_t			 held_refused_next, nheld_refused;
	struct held_early {		/* a word before its hold: kept */
		struct held_decision	 d;
		struct timespec		 at;
	}			 early[EARLY_MAX];
	size_t			 early_next;
	/* Forks (max_procs): tasks counted, and those let go since. */
	unsigned		 max_procs;
	unsigned		 tasks;		/* the last walk's count */
	unsigned		 since;		/* forks let go since */
	bool			 counted;	/* tasks is a walk's */
	pid_t			 inflight[INFLIGHT_MAX];
	size_t			 ninflight;
	void			(*refused)(void *, const struct broker_refusal *);
	void			(*connecting)(void *, const struct broker_conn *);
	void			*arg;
	struct seccomp_notif	*req;
	size_t			 req_size;
	size_t			 npending;
	TAILQ_HEAD(, pending)	 pending;
	/* accept() in the landlock confinement (accept.c). */
	struct inbound		 inbound;	/* the command's own connects */
	TAILQ_HEAD(, acceptor)	 acceptors;	/* blocking accepts waiting */
	size_t			 nacceptors;
	struct stashed {		/* accepted, the caller gone: the next */
		unsigned long	 lino;
		int		 fd;
		struct sockaddr_storage peer;
		socklen_t	 plen;
	}			 stash[STASH_MAX];
	size_t			 nstash;
};

/* broker_answer.c: answers, and refusals said. */
int	 broker_respond(struct broker *, uint64_t id, int err);
int	 broker_respond_val(struct broker *, uint64_t id, int64_t val);
bool	 broker_alive(const struct broker *, uint64_t id);
void	 broker_proceed(struct broker *, uint64_t id);
void	 broker_say_refused(struct broker *, pid_t tid, enum broker_op,
	    const struct sockaddr_storage *, socklen_t, const char *cwd,
	    unsigned short port);

/* broker_mem.c: the callers' memory, descriptors and processes. */
int	 broker_proc_open(const char *path, int flags);
ssize_t	 broker_proc_readlink(const char *path, char *buf, size_t len);
/* The program pid runs (its /proc/PID/exe); "" when it cannot be read. */
void	 broker_exe_of(pid_t pid, char *exe, size_t len);
struct caller *broker_caller_of(struct broker *, pid_t tid);
void	 broker_caller_close(struct caller *);
int	 broker_read_str(struct broker *, struct caller *, uint64_t at,
	    char *buf, size_t len, int toolong);
bool	 broker_read_cwd(const struct broker *, pid_t pid, char *buf,
	    size_t len);
bool	 broker_watched(pid_t tid, int fd, unsigned long ino);
int	 broker_read_mem(struct broker *, struct caller *, uint64_t at,
	    void *buf, size_t len);
int	 broker_write_mem(struct broker *, struct caller *, uint64_t at,
	    const void *buf, size_t len);
int	 broker_take_socket(struct broker *, struct caller *, int fd, int *err);
int	 broker_describe(pid_t tid, int fd, unsigned long *ino, int *flags,
	    bool *cloexec, char *proto, size_t protolen);

/* broker_pending.c: a connect made without blocking the loop. */
void	 broker_run_connect(struct pending *);
void	 broker_finish(struct pending *, int err);	/* answered, freed */
int	 broker_install(struct pending *);	/* the fresh socket, in place */
void	 broker_pending_release(struct pending *);	/* freed, unanswered */
void	 broker_pending_free(struct broker *, bool gone);

/* broker_hold.c: a connect answered EINPROGRESS, the proxy deciding. */
#define HOLDS_MAX	1024
int	 broker_hold_init(struct broker *);	/* -1: errno */
void	 broker_hold_free(struct broker *);
bool	 broker_may_hold(const struct pending *);
int	 broker_hold(struct pending *);		/* 0, or an errno */
int	 broker_hold_refused(struct pending *);	/* SO_ERROR's, later */
void	 broker_so_error(struct broker *, const struct seccomp_notif *,
	    const struct brokered *);

/* broker_peer.c: the peer a connect through the proxy asked for. */
void	 broker_peer_add(struct broker *, int sock,
	    const struct sockaddr_storage *, socklen_t);
void	 broker_peer_forget(struct broker *, int sock);
void	 broker_getpeername(struct broker *, const struct seccomp_notif *,
	    const struct brokered *);

/* tproxy.c: a TCP connect carried through the proxy (SPEC 6.6). */
#define TPROXY_HOLD		0x8a	/* proxy/socksmsg.h's SOCKS_HOLD */
#define TPROXY_REPLY_MAX	(6 + 1 + 255 + 2)
struct tproxy *tproxy_new(const struct sockaddr_storage *target, socklen_t);
void	 tproxy_free(struct tproxy *);
bool	 tproxy_asked(const struct tproxy *);
const struct sockaddr_storage *tproxy_target(const struct tproxy *,
	    socklen_t *);
int	 tproxy_proxy_addr(int family, unsigned short port,
	    struct sockaddr_storage *, socklen_t *);
int	 tproxy_ask(struct tproxy *, struct event_base *, int sock,
	    bool hold, void (*cb)(void *, int), void *arg);
/* The proxy holds its decision for the broker (SOCKS_HOLD, asked). */
bool	 tproxy_held(const struct tproxy *);
/* Pure: the SOCKS5 request for a target; the bytes of a reply still due. */
size_t	 tproxy_request(const struct sockaddr_storage *, socklen_t, bool hold,
	    uint8_t *buf, size_t len);
int	 tproxy_reply(const uint8_t *, size_t got, bool hold);

/* broker_held.c: sockets bound in the caller's place; its own listeners. */
int	 broker_held_find(const struct broker *, unsigned long ino);
void	 broker_held_drop(struct broker *, size_t i);
void	 broker_held_sweep(struct broker *);
int	 broker_held_add(struct broker *, int sock, unsigned long ino);
int	 broker_owned_port(struct broker *, unsigned short port);
bool	 broker_port_taken(struct broker *, const struct sockaddr_storage *);

/* The acts of broker_calls.c's families, by file. */
void	 broker_connect(struct broker *, const struct seccomp_notif *,
	    const struct brokered *);		/* broker_sock.c */
void	 broker_bind(struct broker *, const struct seccomp_notif *,
	    const struct brokered *);
void	 broker_listen(struct broker *, const struct seccomp_notif *,
	    const struct brokered *);
void	 broker_setsockopt(struct broker *, const struct seccomp_notif *,
	    const struct brokered *);

void	 broker_meta(struct broker *, const struct seccomp_notif *,
	    const struct brokered *);		/* broker_meta.c */
void	 broker_signal(struct broker *, const struct seccomp_notif *,
	    const struct brokered *);		/* broker_proc.c */
void	 broker_procall(struct broker *, const struct seccomp_notif *,
	    const struct brokered *);
void	 broker_fork(struct broker *, const struct seccomp_notif *,
	    const struct brokered *);

/*
 * broker_udp.c: UDP's stand-ins.  connect() and bind() on one are
 * answered there (true), from broker_sock.c's acts.
 */
void	 broker_udp(struct broker *, const struct seccomp_notif *,
	    const struct brokered *);
bool	 broker_udp_connect(struct broker *, const struct seccomp_notif *,
	    struct pending *);
bool	 broker_udp_bind(struct broker *, const struct seccomp_notif *,
	    struct pending *);
const struct standin *broker_standin_of(const struct broker *,
	    unsigned long ino);
bool	 broker_udp_setsockopt(struct broker *, const struct seccomp_notif *);
bool	 broker_standin_held(struct broker *, unsigned long ino);
void	 broker_udp_sweep(struct broker *);
void	 broker_udp_free(struct broker *);

/* accept.c: accept() and SO_REUSEPORT in the landlock confinement. */
void	 broker_accept(struct broker *, const struct seccomp_notif *,
	    bool four);
bool	 broker_reuseport(struct broker *, const struct seccomp_notif *);
void	 broker_accept_sweep(struct broker *);
void	 broker_accept_free(struct broker *);

#endif

