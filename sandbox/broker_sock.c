/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The socket calls: connect(), bind() and listen() of the command
 * (both confinements), and setsockopt() where connects are made on fresh
 * sockets.  Each is decided in broker_rules.c on the broker's own copy of
 * the address, then made: on the caller's socket (pidfd_getfd) or on a
 * fresh one put in its place.  A blocking connect waits in the loop
 * (struct pending) while others are answered.
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
#include <netinet/in.h>
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
/* Sockets: connect, bind, listen. */

/*
 * Who is about to connect to the proxy, told before the connect is made:
 * harn-egressd knows it by the time it accepts (the decision log's pid
 * and exe).  The socket is the one that will be connected: the caller's,
 * or the fresh one put in its place.  Once a tunnel: a pidfd of the
 * caller's process, which a thread group's leader opens at once (no
 * /proc/PID/status to read for its tgid).
 */
static void
say_connecting(struct broker *b, const struct seccomp_notif *req, int sock,
    enum sandbox_via via)
{
	struct broker_conn c;
	struct stat st;

	if (b->connecting == NULL || fstat(sock, &st) == -1)
		return;
	memset(&c, 0, sizeof(c));
	c.ino = (unsigned long)st.st_ino;
	c.via = via;
	c.pid = (pid_t)req->pid;
	if ((c.pidfd = (int)syscall(SYS_pidfd_open, c.pid, 0)) == -1) {
		/* Another thread of its process: by the process's leader. */
		if ((c.pid = diag_tgid((pid_t)req->pid)) <= 0)
			return;
		c.pidfd = (int)syscall(SYS_pidfd_open, c.pid, 0);
	}
	broker_exe_of(c.pid, c.exe, sizeof(c.exe));
	if (c.pidfd != -1) {
		b->connecting(b->arg, &c);
		(void)close(c.pidfd);
	}
}

/* Resolve a unix path beneath its root: an O_PATH of it. */
static int
resolve_beneath(int rootfd, const char *rest, int flags, int *err)
{
	/*
	 * Beneath the root, and within its mount: a root mounted back
	 * inside a private directory, or $HOME inside the workspace, is
	 * judged by its own rule, not reached through the one around it.
	 */
	struct open_how how = { .flags = O_PATH | O_CLOEXEC | flags,
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
	    RESOLVE_NO_XDEV };
	int fd;

	if (rootfd == -1) {
		*err = ENOENT;
		return -1;
	}
	fd = (int)syscall(SYS_openat2, rootfd, rest, &how, sizeof(how));
	if (fd == -1)
		/* Out of the root (a symlink, ".."): not the command's. */
		*err = errno == EXDEV || errno == EAGAIN ? EACCES : errno;
	return fd;
}

/* The socket a unix connect goes to, resolved beneath its root. */
static int
connect_target(struct broker *b, const struct broker_decision *d, int *err)
{
	struct stat st;
	int fd;

	if ((fd = resolve_beneath(b->rootfds[d->root], d->rest, 0, err)) == -1)
		return -1;
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

/*
 * The caller's socket kind, where we cannot hold it: a unix socket's
 * type from sock_diag; otherwise the kernel would have refused any family
 * but the one the address names (seccomp leaves TCP and route netlink).
 */
static int
fresh_kind(struct broker *b, struct pending *p, const char *pname,
    int *domain, int *type, int *proto)
{
	int family = p->addrlen >= sizeof(sa_family_t) ?
	    p->addr.ss_family : AF_UNSPEC;
	int utype = -1;

	/* A unix socket's type: said by its name, or by sock_diag. */
	if (strcmp(pname, "UNIX-STREAM") == 0)
		utype = SOCK_STREAM;
	else if (strncmp(pname, "UNIX", 4) == 0 || pname[0] == '\0')
		utype = b->diag != -1 ? diag_unix_type(b->diag, p->ino) : -1;

	*proto = 0;
	if (utype != -1) {
		*domain = AF_UNIX;
		*type = utype;
		return family == AF_UNIX ? 0 : EINVAL;
	}
	/* TCP, of the socket's own family (the address must be of it). */
	if (strcmp(pname, "TCP") == 0 || strcmp(pname, "TCPv6") == 0) {
		*domain = pname[3] == '\0' ? AF_INET : AF_INET6;
		*type = SOCK_STREAM;
		/* bind(AF_UNSPEC) on an AF_INET socket: the rules judge it. */
		return family == *domain || (family == AF_UNSPEC &&
		    *domain == AF_INET) ? 0 : family == AF_UNSPEC ?
		    EOPNOTSUPP : EAFNOSUPPORT;
	}
	/* UDP (namespaces' filter lets it be made): a datagram socket. */
	if (strcmp(pname, "UDP") == 0 || strcmp(pname, "UDPv6") == 0) {
		*domain = pname[3] == '\0' ? AF_INET : AF_INET6;
		*type = SOCK_DGRAM;
		return family == *domain ? 0 : family == AF_UNSPEC ?
		    EOPNOTSUPP : EAFNOSUPPORT;
	}
	switch (family) {
	case AF_INET:
	case AF_INET6:
		*domain = family;
		*type = SOCK_STREAM;
		return 0;
	case AF_NETLINK:
		*domain = AF_NETLINK;
		*type = SOCK_RAW;
		*proto = NETLINK_ROUTE;
		return 0;
	case AF_UNIX:
		return EAFNOSUPPORT;	/* an inet socket, a unix address */
	}
	return EOPNOTSUPP;	/* AF_UNSPEC needs the socket itself */
}

/* Is (level, name) one a fresh socket carries over (an OPT row)? */
static bool
opt_kept(int level, int name)
{
	size_t i;

	for (i = 0; i < brokered_ncalls; i++)
		if (brokered_calls[i].family == BCALL_SETSOCKOPT &&
		    (brokered_calls[i].where & SECCOMP_BROKER_OPTS) &&
		    brokered_calls[i].nmatch == 2 &&
		    (int)brokered_calls[i].val[0] == level &&
		    (int)brokered_calls[i].val[1] == name)
			return true;
	return false;
}

/*
 * Socket options.  SO_REUSEPORT is refused (accept.c).  Where the broker
 * makes a fresh socket in the caller's place: seen as the caller sets
 * them (the call goes on as made), set again on the fresh one.  Keyed by
 * the socket's inode, so a descriptor closed and reused is no confusion.
 */
void
broker_setsockopt(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *c __attribute__((unused)))
{
	struct caller *who = broker_caller_of(b, (pid_t)req->pid);
	unsigned char val[OPT_LEN];
	char path[64], link[64];
	unsigned long ino;
	int len = (int)req->data.args[4];
	size_t i, k;

	/* SO_REUSEPORT is answered there, never let go on. */
	if (broker_reuseport(b, req) || broker_udp_setsockopt(b, req))
		return;
	/* Stopped for a stand-in's sake only: nothing to keep. */
	if (!opt_kept((int)req->data.args[1], (int)req->data.args[2])) {
		broker_proceed(b, req->id);
		return;
	}

	snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)req->pid,
	    (int)req->data.args[0]);
	if (len <= 0 || len > OPT_LEN || broker_read_mem(b, who, req->data.args[3],
	    val, (size_t)len) != 0 || broker_proc_readlink(path, link,
	    sizeof(link)) <= 0 || (ino = diag_socket_inode(link)) == 0) {
		broker_proceed(b, req->id);
		return;
	}
	for (i = 0, k = b->opts_next; i < OPTS_MAX; i++)
		if (b->opts[i].ino == ino &&
		    b->opts[i].level == (int)req->data.args[1] &&
		    b->opts[i].name == (int)req->data.args[2]) {
			k = i;
			break;
		}
	if (k == b->opts_next)
		b->opts_next = (b->opts_next + 1) % OPTS_MAX;
	b->opts[k].ino = ino;
	b->opts[k].level = (int)req->data.args[1];
	b->opts[k].name = (int)req->data.args[2];
	b->opts[k].len = (socklen_t)len;
	memcpy(b->opts[k].val, val, (size_t)len);
	broker_proceed(b, req->id);
}

/* What the caller set on socket ino, on ours; as it would, best effort. */
static void
opts_apply(struct broker *b, unsigned long ino, int sock)
{
	size_t i;

	for (i = 0; i < OPTS_MAX; i++) {
		if (b->opts[i].ino != ino)
			continue;
		(void)setsockopt(sock, b->opts[i].level, b->opts[i].name,
		    b->opts[i].val, b->opts[i].len);
		b->opts[i].ino = 0;
	}
}

/* Once a run: why a call failed that would have worked elsewhere. */
static void
say_watched(pid_t tid, int fd)
{
	static bool said;

	if (said)
		return;
	said = true;
	fprintf(stderr, "harn-egressd: sandbox: connect broker: pid %ld "
	    "put fd %d in an epoll set before connect() or bind(); without "
	    "pidfd_getfd (a default Docker container) no other socket can "
	    "take its place: the call fails with EOPNOTSUPP (docker run "
	    "--cap-add SYS_PTRACE lets the broker use the command's own "
	    "socket)\n", (long)tid, fd);
}

/*
 * The caller's socket for a call on it: taken (pidfd_getfd), or, where
 * that is refused, described, for a fresh one of its kind to be made in
 * its place.  Its family in *domain.  0 or an errno.
 */
static int
the_socket(struct broker *b, struct caller *who, struct pending *p,
    struct broker_call *call, int *type, int *proto)
{
	socklen_t optlen = sizeof(int);
	char pname[32];
	int err, *domain = &call->domain;

	if (b->getfd) {
		if ((p->sock = broker_take_socket(b, who, p->fdno, &err)) == -1)
			return err;
		if (getsockopt(p->sock, SOL_SOCKET, SO_DOMAIN, domain,
		    &optlen) == -1 || getsockopt(p->sock, SOL_SOCKET, SO_TYPE,
		    type, &optlen) == -1 || getsockopt(p->sock, SOL_SOCKET,
		    SO_PROTOCOL, proto, &optlen) == -1 ||
		    (p->flags = fcntl(p->sock, F_GETFL)) == -1)
			return errno == ENOTSOCK ? ENOTSOCK : EBADF;
		call->tcp = (*domain == AF_INET || *domain == AF_INET6) &&
		    *type == SOCK_STREAM && *proto == IPPROTO_TCP;
		return 0;
	}
	if ((err = broker_describe(who->tid, p->fdno, &p->ino, &p->flags,
	    &p->cloexec, pname, sizeof(pname))) != 0)
		return err;
	/* A UDP stand-in (broker_udp.c): answered there, never made anew. */
	if (broker_standin_held(b, p->ino)) {
		*domain = AF_UNIX;
		return 0;
	}
	if ((err = fresh_kind(b, p, pname, domain, type, proto)) != 0)
		return err;
	call->tcp = strcmp(pname, "TCP") == 0 || strcmp(pname, "TCPv6") == 0;
	if ((p->flags & O_NONBLOCK) && broker_watched(who->tid, p->fdno, p->ino)) {
		say_watched(who->tid, p->fdno);
		return EOPNOTSUPP;
	}
	p->fresh = true;
	return 0;
}

/*
 * A connect() or bind() of the command: its address copied, its socket
 * taken or described.  NULL when the caller was answered (or is gone).
 */
static struct pending *
socket_call(struct broker *b, const struct seccomp_notif *req,
    struct broker_call *call, char *cwd, size_t cwdlen, int *type,
    int *proto)
{
	struct pending *p;
	struct caller *who;
	int err;

	if ((p = calloc(1, sizeof(*p))) == NULL) {
		(void)broker_respond(b, req->id, ENOMEM);
		return NULL;
	}
	p->b = b;
	p->id = req->id;
	p->sock = p->target = -1;
	p->fdno = (int)req->data.args[0];
	/* connect(fd, addr, len), bind: the kernel reads len as an int. */
	if ((int)req->data.args[2] < 0 ||
	    (size_t)(int)req->data.args[2] > sizeof(p->addr)) {
		broker_finish(p, EINVAL);
		return NULL;
	}
	p->addrlen = (socklen_t)(int)req->data.args[2];
	who = broker_caller_of(b, (pid_t)req->pid);
	if (p->addrlen > 0 && (err = broker_read_mem(b, who, req->data.args[1],
	    &p->addr, p->addrlen)) != 0) {
		broker_finish(p, err);
		return NULL;
	}
	memset(call, 0, sizeof(*call));
	call->domain = AF_UNSPEC;
	if ((err = the_socket(b, who, p, call, type, proto)) != 0) {
		broker_finish(p, err);
		return NULL;
	}
	/* Only now is what was read known to be the caller's. */
	if (!broker_alive(b, req->id)) {
		broker_pending_release(p);
		return NULL;
	}
	call->addr = &p->addr;
	call->addrlen = p->addrlen;
	call->pid = diag_tgid((pid_t)req->pid);
	/* A relative path: against the caller's working directory. */
	if (relative(&p->addr, p->addrlen) &&
	    broker_read_cwd(b, (pid_t)req->pid, cwd, cwdlen))
		call->cwd = cwd;
	return p;
}

/* A unix address's path, absolute (against cwd); -1 when not one. */
static int
unix_abs(const struct broker_call *c, char *abs, size_t len)
{
	const struct sockaddr_un *sun = (const void *)c->addr;
	char path[sizeof(sun->sun_path) + 1];
	size_t n;

	if (c->domain != AF_UNIX || c->addrlen <= offsetof(struct sockaddr_un,
	    sun_path) || sun->sun_family != AF_UNIX || sun->sun_path[0] == '\0')
		return -1;
	n = c->addrlen - offsetof(struct sockaddr_un, sun_path);
	if (n > sizeof(sun->sun_path))
		n = sizeof(sun->sun_path);
	memcpy(path, sun->sun_path, n);
	path[n] = '\0';
	if (path[0] != '/' && c->cwd == NULL)
		return -1;
	if (snprintf(abs, len, "%s%s%s", path[0] == '/' ? "" : c->cwd,
	    path[0] == '/' ? "" : "/", path) >= (int)len)
		return -1;
	return 0;
}

/*
 * The same path with its directory's real name (/var/run -> /run), as an
 * address; 0, or -1 (no such directory, or too long a name).
 */
static int
unix_canonical(const char *abs, struct sockaddr_storage *out,
    socklen_t *outlen)
{
	struct sockaddr_un *o = (void *)out;
	char dir[PATH_MAX], *slash, *real;
	int w;

	snprintf(dir, sizeof(dir), "%s", abs);
	if ((slash = strrchr(dir, '/')) == NULL)
		return -1;
	*slash = '\0';
	if ((real = realpath(dir[0] != '\0' ? dir : "/", NULL)) == NULL)
		return -1;
	memset(out, 0, sizeof(*out));
	o->sun_family = AF_UNIX;
	w = snprintf(o->sun_path, sizeof(o->sun_path), "%s/%s",
	    strcmp(real, "/") == 0 ? "" : real, slash + 1);
	free(real);
	if (w < 0 || (size_t)w >= sizeof(o->sun_path))
		return -1;
	*outlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    (size_t)w + 1);
	return 0;
}

/*
 * A unix path the rules refused by its name.  Where nothing is found
 * there, the answer is what the kernel would give (ENOENT, which stat(2)
 * tells anyone anyway), not a way out that was tried: glibc asks for
 * nscd's socket in every process.  Otherwise it may reach a root through
 * a symlink of the system's (/var/run -> /run): its directory's real
 * name decides again, safely whatever that name is, since the call itself
 * is still resolved beneath the root, never through a link out of it.
 */
static void
decide_unix_again(const struct broker_rules *rules, struct pending *p,
    struct broker_call *call, bool bind_op, struct broker_decision *d)
{
	struct sockaddr_storage canon;
	struct broker_call c2 = *call;
	char abs[PATH_MAX], dir[PATH_MAX], *slash;
	struct stat st;
	socklen_t len;

	if (d->verdict != BROKER_REFUSE || !d->direct ||
	    unix_abs(call, abs, sizeof(abs)) == -1)
		return;
	/* bind makes the name: its directory must be there. */
	snprintf(dir, sizeof(dir), "%s", abs);
	if (bind_op && (slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	if (stat(bind_op ? (dir[0] != '\0' ? dir : "/") : abs, &st) == -1 &&
	    (errno == ENOENT || errno == ENOTDIR)) {
		d->err = errno;
		d->direct = false;
		return;
	}
	if (unix_canonical(abs, &canon, &len) == -1)
		return;
	c2.addr = &canon;
	c2.addrlen = len;
	c2.cwd = NULL;
	if (bind_op)
		broker_decide_bind(rules, &c2, d);
	else
		broker_decide(rules, &c2, d);
	if (d->verdict == BROKER_REFUSE)
		return;
	p->addr = canon;
	p->addrlen = len;
	*call = c2;
	call->addr = &p->addr;
}

/* The rules the pure decisions take, from what the broker holds. */
static void
rules_of(const struct broker *b, struct broker_rules *r)
{
	memset(r, 0, sizeof(*r));
	r->mode = b->mode;
	r->roots = (const char *const *)b->roots;
	r->nroots = b->nroots;
	r->proxy_port = b->proxy_port;
	r->transparent = b->transparent;
	r->binds = (const char *const *)b->binds;
	r->nbinds = b->nbinds;
}

/* A refusal: said when it is of an endpoint, then answered. */
static void
refuse_call(struct broker *b, const struct seccomp_notif *req,
    struct pending *p, enum broker_op op, const struct broker_decision *d,
    const char *cwd)
{
	if (d->direct)
		broker_say_refused(b, (pid_t)req->pid, op, &p->addr, p->addrlen,
		    cwd, 0);
	broker_finish(p, d->err);
}

/*
 * A connect carried through the proxy: made to the proxy's port, the
 * target kept for the request.  0, or an errno.
 */
static int
through_proxy(struct broker *b, struct pending *p, int domain, bool dns)
{
	p->own = false;
	p->dns = dns;
	if ((p->tp = tproxy_new(&p->addr, p->addrlen)) == NULL)
		return ENOMEM;
	return tproxy_proxy_addr(domain, b->proxy_port, &p->addr, &p->addrlen);
}

/* One connect() of the command: decided, then made. */
void
broker_connect(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *c __attribute__((unused)))
{
	struct broker_rules rules;
	struct broker_decision d;
	struct broker_call call;
	struct pending *p;
	char cwd[PATH_MAX];
	int type = 0, proto = 0, err = 0;

	if ((p = socket_call(b, req, &call, cwd, sizeof(cwd), &type,
	    &proto)) == NULL || broker_udp_connect(b, req, p))
		return;
	rules_of(b, &rules);
	broker_decide(&rules, &call, &d);
	decide_unix_again(&rules, p, &call, false, &d);
	if (d.verdict == BROKER_REFUSE) {
		refuse_call(b, req, p, BROKER_OP_CONNECT, &d, call.cwd);
		return;
	}
	if (d.verdict == BROKER_BENEATH)
		p->target = connect_target(b, &d, &err);
	else if (d.verdict == BROKER_OWNED) {
		err = broker_owned_port(b, d.port);
		p->own = b->mode == BROKER_LL;
		if (broker_transparent_found(&rules, &call, &d, err))
			err = 0;
	}
	if (d.verdict == BROKER_TRANSPARENT)
		err = through_proxy(b, p, call.domain, d.dns);
	/* Out of the root (a link, ".."), or another's listener: logged. */
	if (broker_refuse_found(&d, err)) {
		refuse_call(b, req, p, BROKER_OP_CONNECT, &d, call.cwd);
		return;
	}
	if (err == 0 && p->fresh && (p->sock = socket(call.domain, type |
	    SOCK_NONBLOCK | SOCK_CLOEXEC, proto)) == -1)
		err = errno;
	if (err == 0 && p->fresh)
		opts_apply(b, p->ino, p->sock);
	if (err != 0) {
		broker_finish(p, err);
		return;
	}
	if (d.to_proxy || p->tp != NULL)
		say_connecting(b, req, p->sock, p->tp == NULL ?
		    SANDBOX_VIA_CLIENT : p->dns ? SANDBOX_VIA_DNS :
		    SANDBOX_VIA_TRANSPARENT);
	broker_run_connect(p);
}

/* The caller's umask, for a unix socket made in its name. */
static mode_t
caller_umask(pid_t pid)
{
	char path[64], line[128];
	unsigned long mask = 022;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 022;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Umask: %lo", &mask) == 1)
			break;
	(void)fclose(f);
	return (mode_t)(mask & 0777);
}

/*
 * A unix socket made beneath a writable root: its directory resolved
 * there, then bound by name from within it, with the caller's umask.
 */
static int
bind_beneath(struct broker *b, struct pending *p,
    const struct broker_decision *d, pid_t pid)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char dir[sizeof(d->rest)];
	const char *name;
	mode_t old;
	int dfd, err = 0, rv;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", d->rest);
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		name = slash + 1;
	} else {
		name = dir;
	}
	if (strlen(name) >= sizeof(sun.sun_path))
		return ENAMETOOLONG;
	memcpy(sun.sun_path, name, strlen(name) + 1);
	if ((dfd = resolve_beneath(b->bindfds[d->root], slash != NULL ? dir :
	    ".", O_DIRECTORY, &err)) == -1)
		return err;
	/* This process is single-threaded: its directory is its own. */
	old = umask(caller_umask(pid));
	if (fchdir(dfd) == -1)
		err = errno;
	else {
		rv = bind(p->sock, (struct sockaddr *)&sun, (socklen_t)
		    (offsetof(struct sockaddr_un, sun_path) + strlen(name) + 1));
		err = rv == 0 ? 0 : errno;
		if (chdir("/") == -1 && err == 0)
			err = errno;
	}
	(void)umask(old);
	(void)close(dfd);
	return err;
}

/* One bind() of the command: nothing that lets anyone in. */
void
broker_bind(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *c __attribute__((unused)))
{
	struct broker_rules rules;
	struct broker_decision d;
	struct broker_call call;
	struct pending *p;
	char cwd[PATH_MAX];
	int type = 0, proto = 0, err = 0;

	if ((p = socket_call(b, req, &call, cwd, sizeof(cwd), &type,
	    &proto)) == NULL || broker_udp_bind(b, req, p))
		return;
	rules_of(b, &rules);
	broker_decide_bind(&rules, &call, &d);
	decide_unix_again(&rules, p, &call, true, &d);
	/*
	 * A port a host process listens on (with SO_REUSEPORT the kernel
	 * would share its connections with us): not the command's to take.
	 */
	if (broker_bind_port_check(&d, b->mode, call.domain) &&
	    broker_port_taken(b, &p->addr))
		broker_refuse_taken(&d);
	if (d.verdict == BROKER_REFUSE) {
		refuse_call(b, req, p, BROKER_OP_BIND, &d, call.cwd);
		return;
	}
	if (p->fresh && (p->sock = socket(call.domain, type | SOCK_CLOEXEC,
	    proto)) == -1) {
		broker_finish(p, errno);
		return;
	}
	if (p->fresh)
		opts_apply(b, p->ino, p->sock);
	if (d.verdict == BROKER_BENEATH)
		err = bind_beneath(b, p, &d, call.pid);
	else if (bind(p->sock, (struct sockaddr *)&p->addr, p->addrlen) == -1)
		err = errno;
	/* A port our own reference still holds: the command let go of it. */
	if (err == EADDRINUSE && p->fresh && b->nheld > 0) {
		broker_held_sweep(b);
		err = bind(p->sock, (struct sockaddr *)&p->addr, p->addrlen) ==
		    -1 ? errno : 0;
	}
	if (err == 0 && p->fresh) {
		unsigned long ino = 0;
		char link[64], path[64];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", p->sock);
		if (broker_proc_readlink(path, link, sizeof(link)) > 0)
			ino = diag_socket_inode(link);
		if ((err = ino == 0 ? EBADF : broker_install(p)) == 0)
			err = broker_held_add(b, p->sock, ino);
	}
	broker_finish(p, err);
}

/*
 * One listen() of the command.  Made on the socket we hold, never on a
 * descriptor number: another thread could put an unbound socket there
 * between a check and the call.
 */
void
broker_listen(struct broker *b, const struct seccomp_notif *req,
    const struct brokered *c __attribute__((unused)))
{
	struct broker_rules rules;
	struct caller *who = broker_caller_of(b, (pid_t)req->pid);
	struct sockaddr_storage ss;
	struct broker_decision d;
	socklen_t len = sizeof(ss), optlen = sizeof(int);
	char pname[32] = "";
	unsigned long ino;
	int sock, domain = AF_UNSPEC, err = 0, flags, h = -1;
	bool cloexec;

	if (b->getfd) {
		if ((sock = broker_take_socket(b, who, (int)req->data.args[0],
		    &err)) == -1) {
			(void)broker_respond(b, req->id, err);
			return;
		}
	} else if ((err = broker_describe(who->tid, (int)req->data.args[0], &ino,
	    &flags, &cloexec, pname, sizeof(pname))) != 0) {
		(void)broker_respond(b, req->id, err);
		return;
	} else if ((h = broker_held_find(b, ino)) != -1) {
		sock = b->held[h].fd;
	} else {
		/* Never bound here: unbound, or connected (EINVAL then). */
		sock = -1;
	}
	if (!broker_alive(b, req->id)) {
		if (b->getfd)
			(void)close(sock);
		return;
	}
	memset(&ss, 0, sizeof(ss));
	if (sock == -1 || getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain,
	    &optlen) == -1 || getsockname(sock, (struct sockaddr *)&ss, &len) ==
	    -1) {
		domain = strncmp(pname, "UNIX", 4) == 0 ? AF_UNIX :
		    strcmp(pname, "TCPv6") == 0 ? AF_INET6 : AF_INET;
		len = domain == AF_INET6 ? sizeof(struct sockaddr_in6) :
		    sizeof(struct sockaddr_in);
		ss.ss_family = (sa_family_t)domain;
	}
	rules_of(b, &rules);
	broker_decide_listen(&rules, domain, &ss, len, &d);
	if (d.verdict == BROKER_REFUSE || sock == -1) {
		if (d.verdict != BROKER_REFUSE)
			d.err = EINVAL;	/* a unix socket not bound here */
		if (d.direct)
			broker_say_refused(b, (pid_t)req->pid,
			    BROKER_OP_LISTEN, &ss, len, NULL, 0);
		err = d.err;
	} else if (listen(sock, (int)req->data.args[1]) == -1)
		err = errno;
	/* Held on while it listens: accept() is made on it (accept.c). */
	if (b->getfd)
		(void)close(sock);
	(void)broker_respond(b, req->id, err);
}
