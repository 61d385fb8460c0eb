/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spawn's own header (sandbox/spawn*.c, and the tests of them): the
 * messages its processes send each other and what the children read.
 * By process: spawn.c is harn-egressd's side, spawn_setup.c the set-up,
 * spawn_init.c init, spawn_command.c the command; spawn_caps.c drops
 * their privileges, spawn_msg.c carries their messages.  Each calls only
 * down that line (parent, setup, init, command), never back.  No other
 * file includes it.
 */
#ifndef SANDBOX_SPAWN_INT_H
#define SANDBOX_SPAWN_INT_H

#include <stdbool.h>
#include <sys/types.h>

#include "sandbox/internal.h"

#define SETUP_TIMEOUT_MS	10000
#define ACK_TIMEOUT_MS		2000	/* harn-egressd busy, or gone */
#define MAX_LANDLOCK_RULES	4096

enum msg_kind {
	MSG_SETUP = 1,	/* the listener */
	MSG_INIT,	/* init's host pid */
	MSG_READY,	/* the command is about to exec, its broker serving */
	MSG_FAIL,	/* a step failed; nothing was run */
	MSG_EXIT,	/* the command's wait status */
	MSG_RULESET,	/* to the command: the Landlock ruleset, host grants */
	MSG_DIRECT,	/* a refusal of the broker's (with a pidfd) */
	MSG_CONN,	/* a connect to the proxy, about to be made (a pidfd) */
	MSG_ACK,	/* to init: a refusal's process is known */
	MSG_DNS,	/* port 53 inside, for the run's answerer (nsdns.c) */
	MSG_STANDIN	/* a UDP stand-in's other end, to answer (landlock) */
};

struct msg {
	int			 kind;
	int			 wstatus;
	pid_t			 pid;
	unsigned short		 port;
	bool			 setup;		/* MSG_FAIL: the confinement's */
	struct setup_fail	 fail;
	struct broker_refusal	 refusal;	/* MSG_DIRECT */
	struct broker_conn	 conn;		/* MSG_CONN */
};

/* What the children read of the request and the plan. */
struct job {
	const struct sandbox_request	*req;
	const struct sandbox_plan	*plan;
	const struct sandbox_paths	*paths;
	const struct rundir		*rd;
	bool				 ns, ll, root;
	int				 ctl;
	int				 decided;	/* the broker's, or -1 */
	unsigned short			 port;
	pid_t				 setup;		/* init's parent */
	int				 map_req[2], map_ack[2];
	int				 lsn[2];	/* init <- command */
	/* The broker's roots, opened where the command's view is ours. */
	int				*rootfds, *bindfds;
};

/*
 * UDP sockets are the broker's stand-ins (landlock, transparent): the
 * command's filters and its broker both ask this one
 * question, so that the allowlist never lets UDP be made where no broker
 * answers it (spawn_command.c).
 */
bool	 spawn_udp_standins(const struct job *);

/* spawn_msg.c: the control socket's messages, and the children's failures. */
int	 spawn_send(int ctl, const struct msg *, const int *fds, size_t nfds);
int	 spawn_send_nowait(int ctl, const struct msg *, const int *fds,
	    size_t nfds);
int	 spawn_send_ack(int ctl, const struct msg *);
int	 spawn_recv(int ctl, struct msg *, int *fds, size_t *nfds,
	    int timeout_ms);
void	 spawn_report_fail(int ctl, bool setup, const struct setup_fail *)
	    __attribute__((noreturn));
void	 spawn_fail(int ctl, enum sandbox_area, int mech,
	    const char *fmt, ...)
	    __attribute__((noreturn, format(printf, 4, 5)));

/* spawn_caps.c: capabilities, in init and the command. */
void	 spawn_drop_privileges(int ctl, bool have_caps);
void	 spawn_drop_bounding_set(int ctl);
bool	 spawn_have_setpcap(void);

/* The processes' bodies: each forked by the one before. */
void	 spawn_run_setup(struct job *, int go) __attribute__((noreturn));
int	*spawn_open_roots(const struct strv *roots);
void	 spawn_run_init(struct job *) __attribute__((noreturn));
void	 spawn_end_orphans(void);
void	 spawn_run_command(struct job *) __attribute__((noreturn));
void	 spawn_run_unconfined(struct job *) __attribute__((noreturn));

#endif
