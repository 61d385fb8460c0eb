/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker (SPEC 6.1, 6.2, 6.5): every call of the command and its
 * descendants that names an endpoint (connect, bind, listen), another
 * process (signals, priorities, limits) or, in the landlock confinement,
 * a file's metadata stops in the kernel (seccomp user notification)
 * until the broker has decided it, and made it where the broker makes
 * it.
 *
 * The broker runs in init, the command's parent and subreaper, which
 * took exactly the command's identity before the command was forked: its
 * uid and gids, its user namespace, no capability, no_new_privs
 * (spawn_init.c: become_command).  So whatever it does for the command, the
 * command could have done itself outside the confinement's rules: the
 * kernel refuses it a file capability, a trusted.* xattr, another owner,
 * or a netlink message to another process, as it would the command; and
 * this file refuses those (and set-ID modes) first besides.
 *
 *   - The address is read once, from /proc/PID/mem, into the broker's
 *     own memory, and the request is checked still alive after the read
 *     (the pid is then the caller's).  The kernel is never asked to
 *     continue a call whose arguments sit in the caller's memory (no
 *     SECCOMP_USER_NOTIF_FLAG_CONTINUE): another thread of the command
 *     rewriting the address changes nothing.
 *   - Where the kernel lets us (pidfd_getfd), the socket is taken from
 *     the caller: its family is the object's, and the call is made on
 *     it, so the caller keeps its socket, its options and its blocking
 *     or non-blocking semantics.  Where it does not (Docker's default
 *     profile), a fresh socket of the caller's kind (sock_diag says a
 *     unix socket's type) is connected or bound and put in place of the
 *     caller's descriptor (SECCOMP_ADDFD_FLAG_SETFD), with its O_NONBLOCK
 *     and FD_CLOEXEC; options set before are carried over where they
 *     were seen.  A socket bound that way is held here until it listens
 *     (listen() is made on the broker's own reference, never on a
 *     descriptor number the caller could swap) or the command lets go.
 *   - A unix path is resolved beneath the root it is under, without
 *     leaving its mount (openat2, RESOLVE_BENEATH | RESOLVE_NO_XDEV): a
 *     symlink out of the root fails, and so does a path into a mount
 *     inside it (the caller's $HOME mounted back under /tmp).  A unix
 *     socket is made (bind) only beneath a root the command may write,
 *     with the caller's umask.
 *   - Nothing comes in: TCP binds to loopback only; listen() on an
 *     unbound socket (which would bind the wildcard) is refused.
 *   - In the landlock confinement TCP reaches the proxy on 127.0.0.1,
 *     or a loopback port held by a listener of the command's own: every
 *     listener on the port is looked up (sock_diag) and must be held by a
 *     process below init.
 *   - In the landlock confinement the calls that change file metadata
 *     (chmod, chown, utime, xattrs: no Landlock right covers them) come
 *     here too: they are made only on what lies in a writable root;
 *     elsewhere EROFS, as if read-only.
 *   - A call on another process goes on only toward the command's own.
 *   - A command that keeps uid 0 (exempt from RLIMIT_NPROC) has its
 *     tasks counted at each fork against --max-procs.
 *   - Every refused endpoint is handed to conf->refused before the
 *     caller is answered (the decision log's not_through_proxy).
 *   - A blocking connect that cannot finish at once keeps the caller
 *     waiting while the loop goes on; a bounded number may wait.
 *   - If the broker is gone (init dead), the kernel fails every such
 *     call of the command: none passes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include <event2/event.h>
#include <seccomp.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

/* ---------------------------------------------------------------- */
/* The listener. */

/* accept.c's act, for accept() and accept4() (op 1). */
static void
handle_accept(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *c)
{
	broker_accept(b, req, c->op == 1);
}

/* The act of each family of brokered_calls[] (broker_calls.c). */
typedef void act_fn(struct broker *, const struct seccomp_notif *,
    const struct brokered *);
static act_fn *const acts[BCALL_FAMILIES] = {
	[BCALL_CONNECT] = broker_connect,
	[BCALL_BIND] = broker_bind,
	[BCALL_LISTEN] = broker_listen,
	[BCALL_PROCESS] = broker_procall,
	[BCALL_FORK] = broker_fork,
	[BCALL_META] = broker_meta,
	[BCALL_SIGNAL] = broker_signal,
	[BCALL_SETSOCKOPT] = broker_setsockopt,
	[BCALL_ACCEPT] = handle_accept,
	[BCALL_PEERNAME] = broker_getpeername,
	[BCALL_UDP] = broker_udp,
	[BCALL_SOERROR] = broker_so_error,
};

/* Each row's number here, resolved once (broker_new); -1: none here. */
static int call_nr[128];

/*
 * The row of a notified call, if this broker answers it: the landlock
 * confinement's calls only there, forks only with max_procs.
 */
static const struct brokered *
call_of(const struct broker *b, int nr)
{
	const struct brokered *c;
	size_t i;

	for (i = 0; i < brokered_ncalls; i++) {
		c = &brokered_calls[i];
		if (call_nr[i] != nr || nr < 0)
			continue;
		if ((c->where & SECCOMP_BROKER_LL) && c->family != BCALL_FORK &&
		    b->mode != BROKER_LL)
			continue;
		if (c->family == BCALL_FORK && b->max_procs == 0)
			continue;
		if ((c->where & SECCOMP_BROKER_UDP) && !b->udp)
			continue;
		return c;
	}
	return NULL;
}

static void
notify_cb(evutil_socket_t fd, short what, void *arg)
{
	struct broker *b = arg;
	const struct brokered *c;

	memset(b->req, 0, b->req_size);
	if (ioctl(b->notify, SECCOMP_IOCTL_NOTIF_RECV, b->req) == -1) {
		/*
		 * The caller is already gone, or every process under the
		 * filter is: then the listener hangs up for good, and is let
		 * go (it would be readable for ever).
		 */
		struct pollfd p = { b->notify, POLLIN, 0 };

		if (poll(&p, 1, 0) == 1 && (p.revents & POLLHUP))
			event_del(b->ev);
		return;
	}
	if ((c = call_of(b, b->req->data.nr)) != NULL)
		acts[c->family](b, b->req, c);
	else
		(void)broker_respond(b, b->req->id, ENOSYS);
}

/* Callers interrupted or killed while they waited: let their sockets go. */
static void
sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	struct broker *b = arg;

	broker_pending_free(b, true);
	broker_held_sweep(b);
	broker_accept_sweep(b);
	broker_udp_sweep(b);
}

static char **
strings(const char *const *v, size_t n)
{
	char **out;
	size_t i;

	if ((out = calloc(n + 1, sizeof(*out))) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if ((out[i] = strdup(v[i])) == NULL) {
			while (i > 0)
				free(out[--i]);
			free(out);
			return NULL;
		}
	}
	return out;
}

/* Close what a conf hands over (on every error path, fds are taken). */
static void
conf_close(const struct broker_conf *conf)
{
	if (conf->notify != -1)
		(void)close(conf->notify);
	fds_free(conf->rootfds, conf->nroots);
	fds_free(conf->bindfds, conf->nbinds);
	if (conf->decided != -1)
		(void)close(conf->decided);
}

static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * The numbers of the calls judged here, by name, once: a row whose name
 * is no call (an optional one excepted), or whose family has no act, is
 * a broker that cannot start.
 */
static int
resolve_calls(char *err, size_t errlen)
{
	size_t i;

	if (brokered_ncalls > NELEM(call_nr)) {
		snprintf(err, errlen, "broker: %zu calls, room for %zu",
		    brokered_ncalls, NELEM(call_nr));
		return -1;
	}
	for (i = 0; i < brokered_ncalls; i++) {
		call_nr[i] = seccomp_syscall_resolve_name(brokered_calls[i].name);
		if (brokered_calls[i].family >= BCALL_FAMILIES ||
		    acts[brokered_calls[i].family] == NULL) {
			snprintf(err, errlen, "broker: %s has no act",
			    brokered_calls[i].name);
			return -1;
		}
		if (call_nr[i] < 0 && !brokered_calls[i].optional) {
			snprintf(err, errlen, "broker: %s: no such call",
			    brokered_calls[i].name);
			return -1;
		}
	}
	return 0;
}

/* What conf hands over, and nothing open yet. */
static void
take_conf(struct broker *b, struct event_base *base,
    const struct broker_conf *conf)
{
	size_t i;

	TAILQ_INIT(&b->pending);
	TAILQ_INIT(&b->acceptors);
	TAILQ_INIT(&b->udp_waits);
	TAILQ_INIT(&b->holds);
	inbound_init(&b->inbound);
	b->base = base;
	b->mode = conf->mode;
	b->notify = conf->notify;
	b->rootfds = conf->rootfds;
	b->nroots = conf->nroots;
	b->bindfds = conf->bindfds;
	b->nbinds = conf->nbinds;
	b->proxy_port = conf->proxy_port;
	b->transparent = conf->transparent;
	b->landlock_abi = conf->landlock_abi;
	b->init = conf->init;
	b->getfd = conf->getfd;
	b->udp = conf->udp && conf->standin != NULL && conf->mode == BROKER_LL;
	b->max_procs = conf->max_procs;
	b->refused = conf->refused;
	b->connecting = conf->connecting;
	b->standin = conf->standin;
	b->arg = conf->arg;
	b->thread_pidfd = true;
	b->diag = -1;
	b->decided = conf->decided;
	b->unheard = -1;
	for (i = 0; i < CALLERS; i++)
		b->callers[i].mem = b->callers[i].pidfd = -1;
}

struct broker *
broker_new(struct event_base *base, const struct broker_conf *conf,
    char *err, size_t errlen)
{
	struct seccomp_notif_sizes sizes;
	struct timeval sweep = { SWEEP_MS / 1000, (SWEEP_MS % 1000) * 1000 };
	struct broker *b;

	if ((b = calloc(1, sizeof(*b))) == NULL) {
		snprintf(err, errlen, "out of memory");
		conf_close(conf);
		return NULL;
	}
	take_conf(b, base, conf);
	if (resolve_calls(err, errlen) == -1)
		goto fail;
	snprintf(err, errlen, "out of memory");
	if ((b->roots = strings(conf->roots, conf->nroots)) == NULL ||
	    (b->binds = strings(conf->binds, conf->nbinds)) == NULL ||
	    (b->writable = strings(conf->writable, conf->nwritable)) == NULL ||
	    (b->readonly = strings(conf->readonly, conf->nreadonly)) == NULL)
		goto fail;
	b->nwritable = conf->nwritable;
	b->nreadonly = conf->nreadonly;
	/*
	 * The command's own loopback connections are held until accepted
	 * (inbound.c): as many descriptors as the kernel lets us.  The
	 * command was forked before: its limit is its own.
	 */
	if (b->mode == BROKER_LL)
		raise_nofile();
	if (b->mode == BROKER_LL && (b->diag = diag_open()) == -1) {
		snprintf(err, errlen, "sock_diag: %s", strerror(errno));
		goto fail;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == -1) {
		snprintf(err, errlen, "seccomp notification sizes: %s",
		    strerror(errno));
		goto fail;
	}
	b->req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ?
	    sizes.seccomp_notif : sizeof(struct seccomp_notif);
	if ((b->req = calloc(1, b->req_size)) == NULL)
		goto fail;
	/*
	 * The caller waits for us, and we for it: each wakes the other on
	 * its own CPU (half the latency of a brokered connect here).  Older
	 * kernels say EINVAL, and wake the usual way.
	 */
	(void)ioctl(b->notify, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	b->ev = event_new(base, b->notify, EV_READ | EV_PERSIST, notify_cb, b);
	b->sweep = event_new(base, -1, EV_PERSIST, sweep_cb, b);
	if (b->ev == NULL || b->sweep == NULL || event_add(b->ev, NULL) == -1 ||
	    event_add(b->sweep, &sweep) == -1)
		goto fail;
	if (broker_hold_init(b) == -1) {
		snprintf(err, errlen, "held connects: %s", strerror(errno));
		goto fail;
	}
	return b;
fail:
	broker_free(b);
	return NULL;
}

static void
strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		free(v[i]);
	free(v);
}

void
broker_free(struct broker *b)
{
	size_t i;

	if (b == NULL)
		return;
	broker_pending_free(b, false);
	if (b->ev != NULL)
		event_free(b->ev);
	if (b->sweep != NULL)
		event_free(b->sweep);
	for (i = 0; i < CALLERS; i++)
		broker_caller_close(&b->callers[i]);
	broker_accept_free(b);
	broker_udp_free(b);
	broker_hold_free(b);
	while (b->nheld > 0)
		broker_held_drop(b, 0);
	/* Closing the listener fails every call still to come. */
	if (b->notify != -1)
		(void)close(b->notify);
	if (b->diag != -1)
		(void)close(b->diag);
	strings_free(b->roots, b->nroots);
	strings_free(b->binds, b->nbinds);
	strings_free(b->writable, b->nwritable);
	strings_free(b->readonly, b->nreadonly);
	fds_free(b->rootfds, b->nroots);
	fds_free(b->bindfds, b->nbinds);
	free(b->req);
	free(b);
}
