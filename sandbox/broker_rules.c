/*
 * The connect broker's rules (SPEC 6.1, 6.5): which connect() of the
 * command goes through, decided on the broker's own copy of the address
 * and the socket's own family.  No I/O here: tests/test_broker.c holds
 * the table.
 *
 * In the namespaces confinement the network namespace confines TCP, and
 * abstract unix names live in the command's own network namespace: only
 * pathname unix sockets are decided.  Those are reachable under the
 * roots alone (workspace and write roots, the private directories,
 * --unix-socket-root), resolved beneath the root they are under.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>
#include <errno.h>

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
	/*
	 * Not a unix socket, no address, another family, or an abstract
	 * name: the kernel judges the copy we pass (and refuses what it
	 * would refuse) inside the command's namespace.
	 */
	if (c->domain != AF_UNIX || c->addrlen <= SUN_OFF ||
	    sun->sun_family != AF_UNIX || sun->sun_path[0] == '\0')
		return;
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
