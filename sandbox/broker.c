/*
 * The connect broker (SPEC 6.1, 6.5): every connect() of the command and
 * its descendants stops in the kernel (seccomp user notification) until
 * harn-egressd, on its event loop, has decided it and made it.
 *
 *   - The address is read once, from /proc/PID/mem, into the broker's
 *     own memory, and the request is checked still alive after the read
 *     (the pid is then the caller's).  The kernel is never asked to
 *     continue the call (no SECCOMP_USER_NOTIF_FLAG_CONTINUE): another
 *     thread of the command rewriting the address changes nothing.
 *   - The socket itself is taken from the caller (pidfd_getfd): its
 *     family is the object's, not what the address claims, and the
 *     connect is made on it, so the caller keeps its socket, its options
 *     and its blocking or non-blocking semantics.
 *   - A unix path is resolved beneath the root it is under, without
 *     leaving its mount (openat2, RESOLVE_BENEATH | RESOLVE_NO_XDEV): a
 *     symlink out of the root fails, and so does a path into a mount
 *     inside it (the caller's $HOME mounted back under /tmp); the connect
 *     goes to what was resolved (/proc/self/fd/N), with the command's
 *     own credentials, so that the server sees the command's uid and the
 *     socket's permissions are the command's to meet.
 *   - A blocking connect that cannot finish at once keeps the caller
 *     waiting while the loop goes on; a bounded number may wait.
 *   - If the broker is gone (its listener closed, harn-egressd dead),
 *     the kernel fails every connect() of the command: none passes.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include <event2/event.h>

#include "sandbox/internal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd		438
#endif
#ifndef SYS_openat2
#define SYS_openat2		437
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

/*
 * The callers seen last: their memory and their pidfd stay open, so that
 * a connect costs no open and close of either.  An entry of a task that
 * has gone, or exec'd, fails to read and is made again.
 */
#define CALLERS		8

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
	int			 sock;		/* the caller's socket, ours */
	int			 flags;		/* its file status flags */
	int			 target;	/* O_PATH of a unix peer, or -1 */
	bool			 unix_creds;	/* connect as the command */
	struct sockaddr_storage	 addr;
	socklen_t		 addrlen;
	struct event		*ev;
};

struct broker {
	struct event_base	*base;
	int			 notify;
	struct event		*ev;
	struct event		*sweep;
	char			**roots;
	int			*rootfds;
	size_t			 nroots;
	uid_t			 uid;		/* (uid_t)-1: our own */
	gid_t			 gid;
	gid_t			 egid;		/* ours, to come back to */
	struct caller		 callers[CALLERS];
	bool			 thread_pidfd;	/* PIDFD_THREAD works */
	struct seccomp_notif	*req;
	size_t			 req_size;
	size_t			 resp_size;
	size_t			 npending;
	TAILQ_HEAD(, pending)	 pending;
};

static void	finish(struct pending *, int err);

static int
respond(struct broker *b, uint64_t id, int err)
{
	union {
		struct seccomp_notif_resp	 r;
		char				 buf[256];
	} u;

	memset(&u, 0, sizeof(u));
	u.r.id = id;
	u.r.error = err == 0 ? 0 : -err;
	u.r.val = 0;
	if (ioctl(b->notify, SECCOMP_IOCTL_NOTIF_SEND, &u.r) == -1 &&
	    errno != ENOENT)	/* the caller is gone, or was interrupted */
		return -1;
	return 0;
}

static bool
alive(const struct broker *b, uint64_t id)
{
	return ioctl(b->notify, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static void
caller_close(struct caller *c)
{
	if (c->mem != -1)
		(void)close(c->mem);
	if (c->pidfd != -1)
		(void)close(c->pidfd);
	c->tid = 0;
	c->mem = c->pidfd = -1;
}

/* The cache entry for tid: found, or the least recently used, emptied. */
static struct caller *
caller_of(struct broker *b, pid_t tid)
{
	static unsigned clock;
	struct caller *c, *old = &b->callers[0];
	size_t i;

	for (i = 0; i < CALLERS; i++) {
		c = &b->callers[i];
		if (c->tid == tid) {
			c->used = ++clock;
			return c;
		}
		if (c->used < old->used)
			old = c;
	}
	caller_close(old);
	old->tid = tid;
	old->used = ++clock;
	return old;
}

/* The caller's address, copied once; 0 or an errno. */
static int
read_addr(struct caller *c, uint64_t at, size_t len,
    struct sockaddr_storage *ss)
{
	char path[64];
	int tries;

	for (tries = 0; tries < 2; tries++) {
		if (c->mem == -1) {
			snprintf(path, sizeof(path), "/proc/%ld/mem",
			    (long)c->tid);
			if ((c->mem = open(path, O_RDONLY | O_CLOEXEC)) == -1)
				return errno == ENOENT ? ESRCH : EPERM;
		}
		if (pread(c->mem, ss, len, (off_t)at) == (ssize_t)len)
			return 0;
		/* An older task of this tid, or one that exec'd: again. */
		(void)close(c->mem);
		c->mem = -1;
	}
	return EFAULT;
}

static bool
read_cwd(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/cwd", (long)pid);
	if ((n = readlink(path, buf, len - 1)) <= 0 || (size_t)n >= len - 1)
		return false;
	buf[n] = '\0';
	/* A deleted directory: nothing to resolve against. */
	return buf[0] == '/' && strstr(buf, " (deleted)") == NULL;
}

static pid_t
thread_group(pid_t tid)
{
	char path[64], line[128];
	long tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)tid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	(void)fclose(f);
	return (pid_t)tgid;
}

static int
caller_pidfd(struct broker *b, struct caller *c)
{
	pid_t tgid;

	if (c->pidfd != -1)
		return c->pidfd;
	if (b->thread_pidfd) {
		c->pidfd = (int)syscall(SYS_pidfd_open, c->tid, PIDFD_THREAD);
		if (c->pidfd == -1 && errno == EINVAL)
			b->thread_pidfd = false;
	}
	if (c->pidfd == -1 && (tgid = thread_group(c->tid)) != -1)
		c->pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	return c->pidfd;
}

/*
 * The caller's socket, as our own descriptor; -1 with an errno.  Its
 * thread's descriptor table where the kernel can name a thread.
 */
static int
take_socket(struct broker *b, struct caller *c, int fd, int *err)
{
	int s, tries;

	for (tries = 0; tries < 2; tries++) {
		if (caller_pidfd(b, c) == -1) {
			*err = ESRCH;
			return -1;
		}
		if ((s = (int)syscall(SYS_pidfd_getfd, c->pidfd, fd, 0)) != -1)
			return s;
		*err = errno == EBADF ? EBADF : EPERM;
		if (errno != ESRCH)
			return -1;
		/* The pidfd of an older task of this tid: again. */
		(void)close(c->pidfd);
		c->pidfd = -1;
	}
	return -1;
}

/*
 * Credentials for a unix connect: the command's own, so that the peer
 * sees the command (SO_PEERCRED) and the socket's permissions are judged
 * for it.  Only a root caller's command has other ones (SANDBOX_UID);
 * this process is single-threaded, and every step is checked.
 */
struct creds {
	bool	 changed;
};

static int
creds_enter(const struct broker *b, struct creds *c)
{
	c->changed = false;
	if (b->uid == (uid_t)-1)
		return 0;
	if (setresgid(-1, b->gid, -1) == -1 || setresuid(-1, b->uid, -1) == -1)
		abort();	/* half-changed: no safe way on */
	c->changed = true;
	return 0;
}

static void
creds_leave(const struct broker *b, const struct creds *c)
{
	if (!c->changed)
		return;
	if (setresuid(-1, 0, -1) == -1 || setresgid(-1, b->egid, -1) == -1)
		abort();
}

/* One attempt on the caller's socket, without blocking the loop. */
static int
try_connect(struct pending *p)
{
	struct sockaddr_un sun;
	const struct sockaddr *sa = (const void *)&p->addr;
	socklen_t len = p->addrlen;
	struct creds c;
	int rv, err;

	if (p->target != -1) {
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "/proc/self/fd/%d",
		    p->target);
		sa = (const void *)&sun;
		len = (socklen_t)sizeof(sun);
	}
	c.changed = false;
	if (p->unix_creds && creds_enter(p->b, &c) == -1)
		return EPERM;
	if (!(p->flags & O_NONBLOCK))
		(void)fcntl(p->sock, F_SETFL, p->flags | O_NONBLOCK);
	rv = connect(p->sock, len > 0 ? sa : NULL, len);
	err = rv == 0 ? 0 : errno;
	if (!(p->flags & O_NONBLOCK))
		(void)fcntl(p->sock, F_SETFL, p->flags);
	creds_leave(p->b, &c);
	return err;
}

static void
pending_free(struct pending *p)
{
	if (p->ev != NULL)
		event_free(p->ev);
	if (p->sock != -1)
		(void)close(p->sock);
	if (p->target != -1)
		(void)close(p->target);
	free(p);
}

static void
unlink_pending(struct pending *p)
{
	TAILQ_REMOVE(&p->b->pending, p, entry);
	p->b->npending--;
}

static void
finish(struct pending *p, int err)
{
	(void)respond(p->b, p->id, err);
	pending_free(p);
}

static void wait_cb(evutil_socket_t, short, void *);

/* A blocking caller waits until its connect ends one way or the other. */
static void
wait_for(struct pending *p, int err)
{
	struct timeval tv = { 0, RETRY_MS * 1000 };
	short what = err == EINPROGRESS ? EV_WRITE : EV_TIMEOUT;

	if (p->b->npending >= MAX_PENDING) {
		finish(p, EAGAIN);
		return;
	}
	p->ev = event_new(p->b->base, err == EINPROGRESS ? p->sock : -1, what,
	    wait_cb, p);
	if (p->ev == NULL || event_add(p->ev, err == EINPROGRESS ? NULL :
	    &tv) == -1) {
		finish(p, ENOMEM);
		return;
	}
	TAILQ_INSERT_TAIL(&p->b->pending, p, entry);
	p->b->npending++;
}

static void
wait_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pending *p = arg;
	socklen_t len = sizeof(int);
	int err;

	unlink_pending(p);
	event_free(p->ev);
	p->ev = NULL;
	if (what & EV_WRITE) {
		if (getsockopt(p->sock, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		finish(p, err);
		return;
	}
	if (!alive(p->b, p->id)) {
		pending_free(p);
		return;
	}
	/* A unix listener's backlog was full: try again. */
	err = try_connect(p);
	if (err == EAGAIN || err == EINPROGRESS)
		wait_for(p, err);
	else
		finish(p, err);
}

/* Callers interrupted or killed while they waited: let their sockets go. */
static void
sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	struct broker *b = arg;
	struct pending *p, *next;

	for (p = TAILQ_FIRST(&b->pending); p != NULL; p = next) {
		next = TAILQ_NEXT(p, entry);
		if (alive(b, p->id))
			continue;
		unlink_pending(p);
		pending_free(p);
	}
}

/* Resolve a unix path beneath its root: an O_PATH of the socket. */
static int
resolve_beneath(struct broker *b, const struct broker_decision *d, int *err)
{
	/*
	 * Beneath the root, and within its mount: a root mounted back
	 * inside a private directory, or $HOME inside the workspace, is
	 * judged by its own rule, not reached through the one around it.
	 */
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
	    RESOLVE_NO_XDEV };
	struct stat st;
	int fd;

	if (b->rootfds[d->root] == -1) {
		*err = ENOENT;
		return -1;
	}
	fd = (int)syscall(SYS_openat2, b->rootfds[d->root], d->rest, &how,
	    sizeof(how));
	if (fd == -1) {
		/* Out of the root (a symlink, ".."): not the command's. */
		*err = errno == EXDEV || errno == EAGAIN ? EACCES : errno;
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISSOCK(st.st_mode)) {
		(void)close(fd);
		*err = ECONNREFUSED;	/* what connect() says of a non-socket */
		return -1;
	}
	return fd;
}

static bool
relative(const struct sockaddr_storage *ss, socklen_t len)
{
	const struct sockaddr_un *sun = (const void *)ss;

	return len > offsetof(struct sockaddr_un, sun_path) &&
	    sun->sun_family == AF_UNIX && sun->sun_path[0] != '\0' &&
	    sun->sun_path[0] != '/';
}

/* One connect() of the command. */
static void
handle(struct broker *b, const struct seccomp_notif *req)
{
	const char *const *roots = (const char *const *)b->roots;
	struct broker_rules rules = { roots, b->nroots };
	struct broker_decision d;
	struct broker_call call;
	struct pending *p;
	struct caller *who;
	char cwd[PATH_MAX];
	socklen_t optlen = sizeof(int);
	int domain, err;

	if ((p = calloc(1, sizeof(*p))) == NULL) {
		(void)respond(b, req->id, ENOMEM);
		return;
	}
	p->b = b;
	p->id = req->id;
	p->sock = p->target = -1;
	/* connect(fd, addr, len): the kernel reads len as an int. */
	if ((int)req->data.args[2] < 0 ||
	    (size_t)(int)req->data.args[2] > sizeof(p->addr)) {
		finish(p, EINVAL);
		return;
	}
	p->addrlen = (socklen_t)(int)req->data.args[2];
	who = caller_of(b, (pid_t)req->pid);
	if (p->addrlen > 0 && (err = read_addr(who, req->data.args[1],
	    p->addrlen, &p->addr)) != 0) {
		finish(p, err);
		return;
	}
	if ((p->sock = take_socket(b, who, (int)req->data.args[0],
	    &err)) == -1) {
		finish(p, err);
		return;
	}
	/* Only now is what was read known to be the caller's. */
	if (!alive(b, req->id)) {
		pending_free(p);
		return;
	}
	if (getsockopt(p->sock, SOL_SOCKET, SO_DOMAIN, &domain, &optlen) ==
	    -1 || (p->flags = fcntl(p->sock, F_GETFL)) == -1) {
		finish(p, errno == ENOTSOCK ? ENOTSOCK : EBADF);
		return;
	}
	p->unix_creds = domain == AF_UNIX;
	call.domain = domain;
	call.addr = &p->addr;
	call.addrlen = p->addrlen;
	call.cwd = NULL;
	broker_decide(&rules, &call, &d);
	/* A relative path: against the caller's working directory. */
	if (d.verdict == BROKER_REFUSE && relative(&p->addr, p->addrlen) &&
	    read_cwd((pid_t)req->pid, cwd, sizeof(cwd))) {
		call.cwd = cwd;
		broker_decide(&rules, &call, &d);
	}
	if (d.verdict == BROKER_REFUSE) {
		finish(p, d.err);
		return;
	}
	if (d.verdict == BROKER_CONNECT_BENEATH &&
	    (p->target = resolve_beneath(b, &d, &err)) == -1) {
		finish(p, err);
		return;
	}
	err = try_connect(p);
	if ((p->flags & O_NONBLOCK) || (err != EINPROGRESS && err != EAGAIN))
		finish(p, err);
	else
		wait_for(p, err);
}

static void
notify_cb(evutil_socket_t fd, short what, void *arg)
{
	struct broker *b = arg;

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
	if (b->req->data.nr != SYS_connect) {
		(void)respond(b, b->req->id, ENOSYS);
		return;
	}
	handle(b, b->req);
}

struct broker *
broker_new(struct event_base *base, int notify, const char *const *rootpaths,
    int *rootfds, size_t nroots, uid_t uid, gid_t gid, char *err,
    size_t errlen)
{
	struct seccomp_notif_sizes sizes;
	struct timeval sweep = { SWEEP_MS / 1000, (SWEEP_MS % 1000) * 1000 };
	struct broker *b;
	size_t i;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		goto nomem;
	TAILQ_INIT(&b->pending);
	b->base = base;
	b->notify = notify;
	b->uid = uid;
	b->gid = gid;
	b->thread_pidfd = true;
	b->nroots = nroots;
	b->rootfds = rootfds;
	for (i = 0; i < CALLERS; i++)
		b->callers[i].mem = b->callers[i].pidfd = -1;
	b->egid = getegid();
	/*
	 * Connecting as the command (SANDBOX_UID) changes only our
	 * effective ids; the supplementary groups a root caller has are of
	 * no use to this process and would go with the command's connects:
	 * they are dropped here once.
	 */
	if (uid != (uid_t)-1 && setgroups(0, NULL) == -1) {
		snprintf(err, errlen, "setgroups: %s", strerror(errno));
		goto fail;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == -1) {
		snprintf(err, errlen, "seccomp notification sizes: %s",
		    strerror(errno));
		goto fail;
	}
	b->req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ?
	    sizes.seccomp_notif : sizeof(struct seccomp_notif);
	if ((b->req = calloc(1, b->req_size)) == NULL ||
	    (b->roots = calloc(nroots + 1, sizeof(*b->roots))) == NULL)
		goto nomem;
	for (i = 0; i < nroots; i++)
		if ((b->roots[i] = strdup(rootpaths[i])) == NULL)
			goto nomem;
	/*
	 * The caller waits for us, and we for it: each wakes the other on
	 * its own CPU (half the latency of a brokered connect here).  Older
	 * kernels say EINVAL, and wake the usual way.
	 */
	(void)ioctl(notify, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	b->ev = event_new(base, notify, EV_READ | EV_PERSIST, notify_cb, b);
	b->sweep = event_new(base, -1, EV_PERSIST, sweep_cb, b);
	if (b->ev == NULL || b->sweep == NULL || event_add(b->ev, NULL) == -1 ||
	    event_add(b->sweep, &sweep) == -1)
		goto nomem;
	return b;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	if (b == NULL) {
		(void)close(notify);
		for (i = 0; i < nroots; i++)
			if (rootfds[i] != -1)
				(void)close(rootfds[i]);
		free(rootfds);
		return NULL;
	}
	broker_free(b);
	return NULL;
}

void
broker_free(struct broker *b)
{
	struct pending *p;
	size_t i;

	if (b == NULL)
		return;
	while ((p = TAILQ_FIRST(&b->pending)) != NULL) {
		unlink_pending(p);
		pending_free(p);
	}
	if (b->ev != NULL)
		event_free(b->ev);
	if (b->sweep != NULL)
		event_free(b->sweep);
	for (i = 0; i < CALLERS; i++)
		caller_close(&b->callers[i]);
	/* Closing the listener fails every connect() still to come. */
	if (b->notify != -1)
		(void)close(b->notify);
	for (i = 0; b->roots != NULL && i < b->nroots; i++)
		free(b->roots[i]);
	free(b->roots);
	for (i = 0; b->rootfds != NULL && i < b->nroots; i++)
		if (b->rootfds[i] != -1)
			(void)close(b->rootfds[i]);
	free(b->rootfds);
	free(b->req);
	free(b);
}
