/*
 * The connect broker's rules (SPEC 6.1, 6.5): which connect() of the
 * command goes through, decided on the broker's own copy of the address
 * and the socket's own family.  No I/O here: tests/test_broker.c holds
 * the table.
 *
 * In the namespaces confinement the network namespace confines TCP, and
 * abstract unix names live in the command's own network namespace: only
 * pathname unix sockets are decided.  In the landlock confinement the
 * command shares the host's network: TCP reaches the proxy's port on
 * 127.0.0.1, or a loopback port a listener of the command's own holds
 * (the broker checks whose), and abstract names nothing.  Pathname unix
 * sockets are reachable under the roots alone (workspace and write
 * roots, the private directories, --unix-socket-root), resolved beneath
 * the root they are under.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "sandbox/internal.h"

#define SUN_OFF		offsetof(struct sockaddr_un, sun_path)

static void
refuse(struct broker_decision *d, int err)
{
	d->verdict = BROKER_REFUSE;
	d->err = err;
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

/* The root path is under, the longest; -1 when none. */
static int
root_of(const struct broker_rules *r, const char *path, size_t *len)
{
	size_t i, n;
	int best = -1;

	*len = 0;
	for (i = 0; i < r->nroots; i++) {
		n = strlen(r->roots[i]);
		if (strcmp(r->roots[i], "/") == 0)
			n = 0;
		if (strncmp(path, r->roots[i], n) != 0 ||
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

/* The landlock confinement's TCP: the proxy, or a listener of CMD's. */
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
		refuse(d, EACCES);
		return;
	}
	if (lo && d->port == r->proxy_port && r->proxy_port != 0)
		return;
	d->verdict = BROKER_CONNECT_OWNED;
}

void
broker_decide(const struct broker_rules *r, const struct broker_call *c,
    struct broker_decision *d)
{
	const struct sockaddr_un *sun = (const void *)c->addr;
	char abs[sizeof(d->rest) + sizeof(sun->sun_path)];
	char path[sizeof(sun->sun_path) + 1];
	size_t n, len;
	int root;

	memset(d, 0, sizeof(*d));
	d->verdict = BROKER_CONNECT;
	if (r->mode == BROKER_LL &&
	    (c->domain == AF_INET || c->domain == AF_INET6)) {
		decide_tcp(r, c, d);
		return;
	}
	/*
	 * Not a unix socket, no address, another family: the kernel judges
	 * the copy we pass (and refuses what it would refuse).  An abstract
	 * name: the command's own network namespace's, or (landlock) the
	 * host's, never reached.
	 */
	if (c->domain != AF_UNIX || c->addrlen <= SUN_OFF ||
	    sun->sun_family != AF_UNIX)
		return;
	if (sun->sun_path[0] == '\0') {
		if (r->mode == BROKER_LL)
			refuse(d, EACCES);
		return;
	}
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
		refuse(d, EACCES);
		return;
	}
	tidy(abs);
	if ((root = root_of(r, abs, &len)) == -1) {
		refuse(d, EACCES);
		return;
	}
	d->verdict = BROKER_CONNECT_BENEATH;
	d->root = (size_t)root;
	snprintf(d->rest, sizeof(d->rest), "%s",
	    abs[len] == '\0' ? "." : abs + len + 1);
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
