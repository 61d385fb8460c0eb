/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's rules (SPEC 6.1, 6.2, 6.5): which connect(), bind() and
 * listen() of the command go through, decided on the broker's own copy of
 * the address and the socket's own family; and whom a call on another
 * process may reach.  No I/O here: tests/sandbox/test_sandbox.c holds the tables.
 *
 * connect(): in the namespaces confinement the network namespace holds
 * nothing but the command's own listeners and the proxy's, and abstract
 * unix names live in it too; a TCP address off loopback is refused there
 * as the namespace would (ENETUNREACH), and said.  In the landlock
 * confinement the command shares the host's network: TCP reaches the
 * proxy's port on 127.0.0.1, or a loopback port a listener of the
 * command's own holds (the broker checks whose), and abstract names
 * nothing.  Pathname unix sockets are reachable under the roots alone
 * (workspace and write roots, the private directories,
 * --unix-socket-root), resolved beneath the root they are under.
 * Netlink reaches the kernel alone.
 *
 * bind() and listen(): nothing comes in from outside.  TCP binds to a
 * loopback address only; a wildcard address, any other address, or
 * listen() on an unbound socket (which binds the wildcard) is refused.
 * A unix socket is made only beneath a root the command may write; an
 * abstract name only in its own network namespace.
 *
 * Every refusal of an endpoint is marked direct: the broker says it in
 * the decision log (not_through_proxy) and on stderr.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <linux/netlink.h>
#include <linux/ioprio.h>
#include <sys/resource.h>

#include "sandbox/internal.h"

#define SUN_OFF		offsetof(struct sockaddr_un, sun_path)

static void
refuse(struct broker_decision *d, int err)
{
	d->verdict = BROKER_REFUSE;
	d->err = err;
}

/* A refused endpoint, to be logged. */
static void
refuse_direct(struct broker_decision *d, int err)
{
	refuse(d, err);
	d->direct = true;
}

/* "//" and "/./" taken out; ".." is left for the resolution to judge. */
static void
tidy(char *p)
{
	char *out = p, *c = p;
	size_t n;

	while (*c != '\0') {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		if (n == 0)
			break;
		if (n == 1 && c[0] == '.') {
			c += n;
			continue;
		}
		*out++ = '/';
		memmove(out, c, n);
		out += n;
		c += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* The root of roots[] path is under, the longest; -1 when none. */
static int
root_of(const char *const *roots, size_t nroots, const char *path,
    size_t *len)
{
	size_t i, n;
	int best = -1;

	*len = 0;
	for (i = 0; i < nroots; i++) {
		n = strlen(roots[i]);
		if (strcmp(roots[i], "/") == 0)
			n = 0;
		if (strncmp(path, roots[i], n) != 0 ||
		    (path[n] != '/' && path[n] != '\0'))
			continue;
		if (best == -1 || n > *len) {
			best = (int)i;
			*len = n;
		}
	}
	return best;
}

/* An address that reaches this host: 127/8, ::1, 0.0.0.0, ::, mapped. */
static bool
loopback(const struct sockaddr_storage *ss, bool *exact_lo)
{
	const struct sockaddr_in *sin = (const void *)ss;
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const uint8_t *a;
	uint32_t v4;

	*exact_lo = false;
	if (ss->ss_family == AF_INET) {
		v4 = ntohl(sin->sin_addr.s_addr);
	} else {
		a = sin6->sin6_addr.s6_addr;
		if (IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr) ||
		    IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr))
			return true;
		if (!IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
			return false;
		v4 = (uint32_t)a[12] << 24 | (uint32_t)a[13] << 16 |
		    (uint32_t)a[14] << 8 | a[15];
	}
	*exact_lo = v4 == INADDR_LOOPBACK;
	return (v4 >> 24) == 127 || v4 == INADDR_ANY;
}

/* 0.0.0.0, ::, or ::ffff:0.0.0.0: every address of the host. */
static bool
wildcard(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *sin = (const void *)ss;
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const uint8_t *a = sin6->sin6_addr.s6_addr;

	if (ss->ss_family == AF_INET)
		return sin->sin_addr.s_addr == htonl(INADDR_ANY);
	if (IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr))
		return true;
	return IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr) &&
	    (a[12] | a[13] | a[14] | a[15]) == 0;
}

#define DNS_PORT	53

/* TCP: the proxy, or a listener of CMD's (landlock); loopback (namespaces). */
static void
decide_tcp(const struct broker_rules *r, const struct broker_call *c,
    struct broker_decision *d)
{
	const struct sockaddr_in *sin = (const void *)c->addr;
	const struct sockaddr_in6 *sin6 = (const void *)c->addr;
	socklen_t need;
	bool lo;

	/* AF_UNSPEC dissolves a connection; a wrong family the kernel says. */
	if (c->addrlen < sizeof(sa_family_t) ||
	    c->addr->ss_family == AF_UNSPEC ||
	    (c->addr->ss_family != AF_INET && c->addr->ss_family != AF_INET6))
		return;
	need = c->addr->ss_family == AF_INET ? sizeof(*sin) : sizeof(*sin6);
	if (c->addrlen < need)
		return;		/* EINVAL, from the kernel */
	d->port = ntohs(c->addr->ss_family == AF_INET ? sin->sin_port :
	    sin6->sin6_port);
	if (!loopback(c->addr, &lo)) {
		/* TCP goes through the proxy, which decides it (SPEC 6.6). */
		if (r->transparent && c->tcp) {
			d->verdict = BROKER_TRANSPARENT;
			d->dns = d->port == DNS_PORT;
			return;
		}
		/*
		 * A resolver's datagrams (namespaces only: its filter alone
		 * lets UDP be made) go where the run's answerer takes any
		 * address's port 53 (SPEC 6.6): the network has no way out.
		 */
		if (r->transparent && !c->tcp && r->mode == BROKER_NS &&
		    d->port == DNS_PORT)
			return;
		/* No route off loopback in the namespace: as it would say. */
		refuse_direct(d, r->mode == BROKER_NS ? ENETUNREACH : EACCES);
		return;
	}
	d->to_proxy = lo && d->port == r->proxy_port && r->proxy_port != 0;
	/*
	 * A resolver on loopback (systemd-resolved's 127.0.0.53, a cache on
	 * 127.0.0.1) is answered by the run too: in the namespace nothing
	 * can listen on 53 (no capability), in landlock it is the host's.
	 */
	if (r->transparent && c->tcp && d->port == DNS_PORT && !d->to_proxy &&
	    r->mode == BROKER_NS) {
		d->verdict = BROKER_TRANSPARENT;
		d->dns = true;
		return;
	}
	if (r->mode == BROKER_NS || d->to_proxy)
		return;
	d->verdict = BROKER_OWNED;
}

/* Netlink: the kernel alone (port id 0, no group), never a process. */
static void
decide_netlink(const struct broker_call *c, struct broker_decision *d)
{
	const struct sockaddr_nl *nl = (const void *)c->addr;

	if (c->addrlen < sizeof(*nl) || nl->nl_family != AF_NETLINK)
		return;		/* EINVAL, from the kernel */
	if (nl->nl_pid != 0 || nl->nl_groups != 0)
		refuse_direct(d, EPERM);
}

/*
 * A unix path, absolute or against the caller's working directory,
 * beneath the longest of roots: BROKER_BENEATH, or a direct refusal.
 */
static void
decide_path(const char *const *roots, size_t nroots,
    const struct broker_call *c, struct broker_decision *d)
{
	const struct sockaddr_un *sun = (const void *)c->addr;
	char abs[sizeof(d->rest) + sizeof(sun->sun_path)];
	char path[sizeof(sun->sun_path) + 1];
	size_t n, len;
	int root;

	n = c->addrlen - SUN_OFF;
	if (n > sizeof(sun->sun_path))
		n = sizeof(sun->sun_path);
	memcpy(path, sun->sun_path, n);
	path[n] = '\0';		/* as the kernel reads it: up to a NUL */
	if (path[0] == '/')
		snprintf(abs, sizeof(abs), "%s", path);
	else if (c->cwd != NULL && c->cwd[0] == '/')
		snprintf(abs, sizeof(abs), "%s/%s", c->cwd, path);
	else {
		refuse_direct(d, EACCES);
		return;
	}
	tidy(abs);
	if ((root = root_of(roots, nroots, abs, &len)) == -1) {
		refuse_direct(d, EACCES);
		return;
	}
	d->verdict = BROKER_BENEATH;
	d->root = (size_t)root;
	snprintf(d->rest, sizeof(d->rest), "%s",
	    abs[len] == '\0' ? "." : abs + len + 1);
}

void
broker_decide(const struct broker_rules *r, const struct broker_call *c,
    struct broker_decision *d)
{
	const struct sockaddr_un *sun = (const void *)c->addr;

	memset(d, 0, sizeof(*d));
	d->verdict = BROKER_AS_IS;
	switch (c->domain) {
	case AF_INET:
	case AF_INET6:
		decide_tcp(r, c, d);
		return;
	case AF_NETLINK:
		decide_netlink(c, d);
		return;
	case AF_UNIX:
		break;
	default:
		refuse(d, EAFNOSUPPORT);	/* no socket() makes one */
		return;
	}
	/*
	 * No address, another family: the kernel judges the copy we pass
	 * (and refuses what it would refuse).  An abstract name: the
	 * command's own network namespace's, or (landlock) the host's,
	 * never reached.
	 */
	if (c->addrlen <= SUN_OFF || sun->sun_family != AF_UNIX)
		return;
	if (sun->sun_path[0] == '\0') {
		if (r->mode == BROKER_LL)
			refuse_direct(d, EACCES);
		return;
	}
	decide_path(r->roots, r->nroots, c, d);
}

/* May a TCP socket be bound to addr?  Loopback only (SPEC 6.5). */
static void
decide_tcp_bind(const struct broker_call *c, struct broker_decision *d)
{
	const struct sockaddr_in *sin = (const void *)c->addr;
	socklen_t need;
	bool lo;

	if (c->addrlen < sizeof(sa_family_t))
		return;		/* EINVAL, from the kernel */
	/* An AF_INET socket reads AF_UNSPEC as the wildcard, for old code. */
	if (c->addr->ss_family == AF_UNSPEC && c->domain == AF_INET &&
	    c->addrlen >= sizeof(*sin)) {
		refuse_direct(d, EACCES);
		return;
	}
	if (c->addr->ss_family != c->domain)
		return;		/* EAFNOSUPPORT or EINVAL, from the kernel */
	need = c->domain == AF_INET ? sizeof(struct sockaddr_in) :
	    sizeof(struct sockaddr_in6);
	if (c->addrlen < need)
		return;
	d->port = ntohs(c->domain == AF_INET ? sin->sin_port :
	    ((const struct sockaddr_in6 *)(const void *)c->addr)->sin6_port);
	if (!loopback(c->addr, &lo) || wildcard(c->addr))
		refuse_direct(d, EACCES);
}

/*
 * A UDP stand-in's connect, sendto or bind (landlock, SPEC 6.6).  Its
 * datagrams reach the run's answerer whatever they name, so only what a
 * resolver does is let through: port 53 of any address (and the kernel's
 * own port for a bind); anything else is refused and logged, as UDP other
 * than DNS is.  The errors are the kernel's for a UDP socket.
 */
void
broker_decide_udp(int family, const struct sockaddr_storage *ss,
    socklen_t len, bool bind, struct broker_decision *d)
{
	const struct sockaddr_in *sin = (const void *)ss;
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	bool lo;

	memset(d, 0, sizeof(*d));
	d->verdict = BROKER_AS_IS;
	if (len < sizeof(sa_family_t))
		refuse(d, EINVAL);
	/* An IPv6 socket takes IPv4 addresses too; not the other way. */
	else if (ss->ss_family != AF_INET && (ss->ss_family != AF_INET6 ||
	    family != AF_INET6))
		refuse(d, EAFNOSUPPORT);
	else if (len < (ss->ss_family == AF_INET ? sizeof(*sin) :
	    sizeof(*sin6)))
		refuse(d, EINVAL);
	if (d->verdict == BROKER_REFUSE)
		return;
	d->port = ntohs(ss->ss_family == AF_INET ? sin->sin_port :
	    sin6->sin6_port);
	if (bind) {
		/* The kernel's choice of port: nothing listens there. */
		if (d->port != 0)
			refuse_direct(d, EACCES);
		return;
	}
	if (d->port == DNS_PORT)
		return;
	if (d->port == 0) {
		refuse(d, EINVAL);
		return;
	}
	/* The host's loopback is other users' too: never theirs to reach. */
	refuse_direct(d, loopback(ss, &lo) ? EACCES : ENETUNREACH);
}

void
broker_decide_bind(const struct broker_rules *r, const struct broker_call *c,
    struct broker_decision *d)
{
	const struct sockaddr_un *sun = (const void *)c->addr;
	const struct sockaddr_nl *nl = (const void *)c->addr;

	memset(d, 0, sizeof(*d));
	d->verdict = BROKER_AS_IS;
	switch (c->domain) {
	case AF_INET:
	case AF_INET6:
		decide_tcp_bind(c, d);
		return;
	case AF_NETLINK:
		/* Its own port id (or the kernel's choice), any group. */
		if (c->addrlen >= sizeof(*nl) && nl->nl_family == AF_NETLINK &&
		    nl->nl_pid != 0 && (pid_t)nl->nl_pid != c->pid &&
		    r->mode == BROKER_LL)
			refuse(d, EPERM);
		return;
	case AF_UNIX:
		break;
	default:
		refuse(d, EAFNOSUPPORT);
		return;
	}
	if (c->addrlen < sizeof(sa_family_t) || sun->sun_family != AF_UNIX)
		return;
	/*
	 * An abstract name (or one the kernel picks, addrlen == the family
	 * alone): in the namespaces confinement the command's own network
	 * namespace holds it; in the host's, any process could connect in.
	 */
	if (c->addrlen <= SUN_OFF || sun->sun_path[0] == '\0') {
		if (r->mode == BROKER_LL)
			refuse_direct(d, EACCES);
		return;
	}
	decide_path(r->binds, r->nbinds, c, d);
	/* The socket is a name in a directory: the root itself is none. */
	if (d->verdict == BROKER_BENEATH && strcmp(d->rest, ".") == 0)
		refuse(d, EADDRINUSE);
}

void
broker_decide_listen(const struct broker_rules *r, int domain,
    const struct sockaddr_storage *addr, socklen_t len,
    struct broker_decision *d)
{
	const struct sockaddr_in *sin = (const void *)addr;
	const struct sockaddr_in6 *sin6 = (const void *)addr;
	const struct sockaddr_un *sun = (const void *)addr;
	bool lo;

	memset(d, 0, sizeof(*d));
	d->verdict = BROKER_AS_IS;
	switch (domain) {
	case AF_INET:
	case AF_INET6:
		/* Unbound (port 0): listen() would bind the wildcard. */
		if (len < sizeof(sa_family_t) || addr->ss_family != domain ||
		    (domain == AF_INET ? sin->sin_port : sin6->sin6_port) == 0 ||
		    !loopback(addr, &lo) || wildcard(addr))
			refuse_direct(d, EACCES);
		return;
	case AF_UNIX:
		/* Unbound: the kernel says EINVAL; abstract: as bind. */
		if (len <= SUN_OFF)
			refuse(d, EINVAL);
		else if (sun->sun_path[0] == '\0' && r->mode == BROKER_LL)
			refuse_direct(d, EACCES);
		return;
	default:
		return;		/* the kernel says what it says */
	}
}

/* The endpoint an address names, for the log and for people. */
void
broker_endpoint(const struct sockaddr_storage *ss, socklen_t len,
    const char *cwd, char *buf, size_t buflen, unsigned short *port)
{
	const struct sockaddr_in *sin = (const void *)ss;
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const struct sockaddr_un *sun = (const void *)ss;
	const struct sockaddr_nl *nl = (const void *)ss;
	char path[sizeof(sun->sun_path) + 1], abs[sizeof(path) + 4096];
	size_t n, i;

	*port = 0;
	snprintf(buf, buflen, "%s", "");
	if (len < sizeof(sa_family_t))
		return;
	switch (ss->ss_family) {
	case AF_UNSPEC:
	case AF_INET:
		/* AF_UNSPEC on an AF_INET socket's bind: the wildcard. */
		if (len >= sizeof(*sin)) {
			inet_ntop(AF_INET, &sin->sin_addr, buf, buflen);
			*port = ntohs(sin->sin_port);
		}
		return;
	case AF_INET6:
		if (len >= sizeof(*sin6)) {
			inet_ntop(AF_INET6, &sin6->sin6_addr, buf, buflen);
			*port = ntohs(sin6->sin6_port);
		}
		return;
	case AF_NETLINK:
		if (len >= sizeof(*nl))
			snprintf(buf, buflen, "netlink:%u", nl->nl_pid);
		return;
	case AF_UNIX:
		break;
	default:
		return;
	}
	n = len > SUN_OFF ? len - SUN_OFF : 0;
	if (n > sizeof(sun->sun_path))
		n = sizeof(sun->sun_path);
	if (n == 0 || sun->sun_path[0] == '\0') {
		/* Abstract: its NULs shown as '@', as ss(8) does. */
		memcpy(path, n > 0 ? sun->sun_path + 1 : "", n > 0 ? n - 1 : 0);
		path[n > 0 ? n - 1 : 0] = '\0';
		for (i = 0; n > 0 && i < n - 1; i++)
			if (path[i] == '\0')
				path[i] = '@';
		snprintf(buf, buflen, "unix:@%s", path);
		return;
	}
	memcpy(path, sun->sun_path, n);
	path[n] = '\0';
	if (path[0] != '/' && cwd != NULL)
		snprintf(abs, sizeof(abs), "%s/%s", cwd, path);
	else
		snprintf(abs, sizeof(abs), "%s", path);
	tidy(abs);
	snprintf(buf, buflen, "unix:%s", abs);
}

/*
 * Whom a signal call of the command's reaches (SPEC 6.5: nothing outside
 * the sandbox), from its register arguments alone: the broker checks
 * that process or group, then lets the call go on as it was made.
 */
void
broker_signal_target(enum broker_sigcall call, const uint64_t *args,
    struct broker_target *t)
{
	int a0 = (int)args[0], a2 = (int)args[2];

	memset(t, 0, sizeof(*t));
	t->kind = TARGET_KERNEL;
	switch (call) {
	case SIGCALL_KILL:
		if (a0 == -1) {
			/* Every process it may signal: not ours to list. */
			t->kind = TARGET_REFUSE;
			t->err = EPERM;
		} else if (a0 == INT_MIN) {
			t->kind = TARGET_REFUSE;
			t->err = ESRCH;
		} else if (a0 < -1) {
			t->kind = TARGET_GROUP;
			t->id = -a0;
		} else if (a0 > 0) {
			t->kind = TARGET_PROCESS;
			t->id = a0;
		}
		/* 0: its own group, in the session it made. */
		break;
	case SIGCALL_TKILL:
	case SIGCALL_TGKILL:
	case SIGCALL_SIGQUEUE:
	case SIGCALL_TGSIGQUEUE:
	case SIGCALL_PIDFD_OPEN:
		/* The thread group (or thread) named first; <= 0: EINVAL. */
		if (a0 > 0) {
			t->kind = TARGET_PROCESS;
			t->id = a0;
		}
		break;
	case SIGCALL_PIDFD_SEND:
		/* Its process is a descriptor's: the broker looks it up. */
		t->kind = TARGET_REFUSE;
		t->err = EBADF;
		break;
	case SIGCALL_SETOWN:
		if (a2 == INT_MIN) {
			t->kind = TARGET_REFUSE;
			t->err = EINVAL;
		} else if (a2 < 0) {
			t->kind = TARGET_GROUP;
			t->id = -a2;
		} else if (a2 > 0) {
			t->kind = TARGET_PROCESS;
			t->id = a2;
		}
		break;
	}
}

/*
 * Whom a call on another process reaches (setpriority, prlimit, ...),
 * from its register arguments alone.  The filter stops only the calls
 * that name another process (an id other than 0) or "every process of
 * the caller's user", which no check of ours could bound: refused.
 */
void
broker_procall_target(const struct brokered *p,
    const uint64_t *args, struct broker_target *t)
{
	int which = (int)args[0], id = (int)args[p->arg[0]];

	memset(t, 0, sizeof(*t));
	t->kind = TARGET_KERNEL;
	if (p->op != PROCALL_PID && which == p->user) {
		t->kind = TARGET_REFUSE;
		t->err = EPERM;
		return;
	}
	if (id <= 0)
		return;		/* the caller's own, or EINVAL/ESRCH */
	t->id = id;
	t->kind = TARGET_PROCESS;
	if ((p->op == PROCALL_PRIORITY && which == PRIO_PGRP) ||
	    (p->op == PROCALL_IOPRIO && which == IOPRIO_WHO_PGRP))
		t->kind = TARGET_GROUP;
	else if ((p->op == PROCALL_PRIORITY && which != PRIO_PROCESS) ||
	    (p->op == PROCALL_IOPRIO && which != IOPRIO_WHO_PROCESS))
		t->kind = TARGET_KERNEL;	/* EINVAL, from the kernel */
}

/*
 * What the broker never does for the command, whatever the kernel would
 * let the command itself do (SPEC 6.2): a set-ID mode, another owner, a
 * security.* (file capabilities, LSM labels) or trusted.* attribute.
 * args are the call's registers, a the index of its mode or owner, name
 * the attribute's; ours tells whether a group is one of the command's.
 * 0, or EPERM.
 */
int
broker_meta_allowed(const struct brokered *m, const uint64_t *args, int a,
    const char *name, uid_t euid, bool (*ours)(gid_t))
{
	uid_t uid;
	gid_t gid;

	switch (m->op) {
	case M_CHMOD:
		return (args[a] & (S_ISUID | S_ISGID)) ? EPERM : 0;
	case M_CHOWN:
		uid = (uid_t)args[a];
		gid = (gid_t)args[a + 1];
		if ((uid != (uid_t)-1 && uid != euid) ||
		    (gid != (gid_t)-1 && !ours(gid)))
			return EPERM;
		return 0;
	case M_SETX:
	case M_REMX:
		if (strncmp(name, "security.", 9) == 0 ||
		    strncmp(name, "trusted.", 8) == 0)
			return EPERM;
		return 0;
	default:
		return 0;
	}
}

/*
 * May metadata change at real (a canonical path)?  Under a writable root,
 * and not in a read-only root inside that one (a --ro-root beneath the
 * workspace, say).
 */
bool
broker_meta_writable(const char *const *writable, size_t nwritable,
    const char *const *readonly, size_t nreadonly, const char *real)
{
	size_t i, k;
	bool ro;

	for (i = 0; i < nwritable; i++) {
		if (!path_under(real, writable[i]))
			continue;
		for (k = 0, ro = false; k < nreadonly && !ro; k++)
			ro = strcmp(readonly[k], writable[i]) != 0 &&
			    path_under(readonly[k], writable[i]) &&
			    path_under(real, readonly[k]);
		if (!ro)
			return true;
	}
	return false;
}

/*
 * A bind() let through as it is, of a TCP port, in the landlock
 * confinement: the host's listeners are to be looked at first (with
 * SO_REUSEPORT the kernel would share a host service's connections with
 * the command).
 */
bool
broker_bind_port_check(const struct broker_decision *d, enum broker_mode mode,
    int domain)
{
	return d->verdict == BROKER_AS_IS && mode == BROKER_LL &&
	    d->port != 0 && (domain == AF_INET || domain == AF_INET6);
}

/* A port a host process listens on: not the command's to take. */
void
broker_refuse_taken(struct broker_decision *d)
{
	refuse_direct(d, EADDRINUSE);
}

/*
 * A connect() let through whose target turned out, when made, to be out
 * of its root (a link, "..") or another's listener (EACCES): a refused
 * endpoint, said.  True when err is one.
 */
/*
 * A loopback port of the host's that another process listens on: not
 * CMD's own server, so the proxy decides it like any other address (it
 * refuses loopback unless the policy allows it).  A port nobody listens
 * on stays ECONNREFUSED, unlogged, as the kernel says: a test suite
 * polling for its own server's port is not trying a way out.
 */
bool
broker_transparent_found(const struct broker_rules *r,
    const struct broker_call *c, struct broker_decision *d, int err)
{
	if (!r->transparent || !c->tcp || d->verdict != BROKER_OWNED ||
	    err == 0)
		return false;
	/* Port 53 not the command's own: a resolver, answered by the run. */
	d->dns = d->port == DNS_PORT;
	if (err != EACCES && !d->dns)
		return false;
	d->verdict = BROKER_TRANSPARENT;
	return true;
}

bool
broker_refuse_found(struct broker_decision *d, int err)
{
	if (err != EACCES)
		return false;
	d->direct = true;
	d->err = EACCES;
	return true;
}
