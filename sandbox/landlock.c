/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Landlock (SPEC 6.3): the filesystem the command may touch.
 *
 * Raw syscalls and our own copies of the uapi constants: Debian 12's
 * headers stop at ABI 2, the kernels we run on go to ABI 7.  Every
 * filesystem right the running ABI knows is handled (denied unless a
 * rule allows it); rights a newer kernel adds are left alone.
 *
 * The network rights (ABI 4) are handled only for the landlock
 * confinement, as depth (SPEC 6.5): TCP connect only to the proxy's port
 * and bind only to port 0.  They are not the boundary (any address on
 * the port, MPTCP, TCP Fast Open): the connect broker is, and it is not
 * under these rules.
 *
 * Denied paths beat every grant.  Landlock can only add rights down a
 * hierarchy, never take them back, so a grant that contains a denied path
 * is not added: its directory's other entries are granted one by one,
 * and the entries on the way to a denied path are split the same way,
 * down to the denied path's parent.  The directories on the way get no
 * rule of their own, so they cannot be listed nor have entries created
 * or removed directly in them; everything else in them keeps its grant.
 *
 * Here the ruleset is made and enforced and the ABI probed; the denied
 * paths are resolved in landlock_deny.c, the grants split around them in
 * landlock_grant.c.
 */
#include <sys/prctl.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sandbox/landlock_int.h"

static double
now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		return 0;
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Every filesystem right this ABI knows: best effort on older kernels. */
static uint64_t
fs_handled(int abi)
{
	uint64_t fs = FS_ABI1;

	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return fs;
}

/* An older kernel rejects a larger attr only if the extra bytes are set. */
static size_t
attr_size(int abi)
{
	if (abi >= 6)
		return sizeof(struct ll_ruleset_attr);
	if (abi >= 4)
		return offsetof(struct ll_ruleset_attr, scoped);
	return offsetof(struct ll_ruleset_attr, handled_access_net);
}

/* Connect to the proxy's port; bind to port 0 (an ephemeral port) only. */
static int
net_rules(struct build *b)
{
	struct ll_net_port_attr np;

	np.allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP;
	np.port = (uint64_t)b->net_port;
	if (ll_add_rule(b->fd, LL_RULE_NET_PORT, &np, 0) == -1) {
		ll_seterr(b, "TCP connect rule: %s", strerror(errno));
		return -1;
	}
	np.allowed_access = LANDLOCK_ACCESS_NET_BIND_TCP;
	np.port = 0;
	if (ll_add_rule(b->fd, LL_RULE_NET_PORT, &np, 0) == -1) {
		ll_seterr(b, "TCP bind rule: %s", strerror(errno));
		return -1;
	}
	b->st->rules += 2;
	return 0;
}

static int
create_ruleset(struct build *b, int abi)
{
	struct ll_ruleset_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = b->handled;
	if (b->net_port > 0 && abi >= 4)
		attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
		    LANDLOCK_ACCESS_NET_CONNECT_TCP;
	/* Abstract sockets and signals of processes outside: out of reach. */
	if (abi >= 6)
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
		    LANDLOCK_SCOPE_SIGNAL;
	if ((b->fd = ll_create_ruleset(&attr, attr_size(abi), 0)) == -1) {
		ll_seterr(b, "create ruleset (ABI %d): %s", abi,
		    strerror(errno));
		return -1;
	}
	if (attr.handled_access_net != 0 && net_rules(b) == -1)
		return -1;
	return 0;
}

static void
free_canon(struct build *b)
{
	size_t i;

	for (i = 0; b->canon != NULL && i < b->ngrants; i++)
		free(b->canon[i]);
	free(b->canon);
	free(b->canon_err);
	b->canon = NULL;
	b->canon_err = NULL;
}

static int
build(int into, const struct landlock_path *grants, size_t n,
    const char *const *deny, size_t ndeny, unsigned max_rules, bool masked,
    int net_port, struct landlock_stats *st, char *err, size_t errlen)
{
	struct landlock_stats dummy;
	struct dir_cache cache = { .n = 0 };
	struct build b;
	double t0 = now_ms();
	size_t i;
	int abi;

	if (st == NULL)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	memset(&b, 0, sizeof(b));
	b.fd = -1;
	b.masked = masked;
	b.net_port = net_port;
	b.max = max_rules;
	b.st = st;
	b.err = err;
	b.errlen = errlen;

	abi = sandbox_landlock_abi();
	if (abi <= 0) {
		ll_seterr(&b, "not available: %s",
		    errno == EOPNOTSUPP ? "disabled at boot" :
		    errno == ENOSYS ? "not in this kernel" : strerror(errno));
		goto fail;
	}
	st->abi = abi;
	b.handled = fs_handled(abi);
	ll_dir_cache_start(&cache);
	if (ll_resolve_denied(&b, deny, ndeny) == -1)
		goto fail;
	if (into != -1)
		b.fd = into;
	else if (create_ruleset(&b, abi) == -1)
		goto fail;
	b.grants = grants;
	b.ngrants = n;
	if ((b.canon = calloc(n + 1, sizeof(*b.canon))) == NULL ||
	    (b.canon_err = calloc(n + 1, sizeof(*b.canon_err))) == NULL) {
		ll_seterr(&b, "out of memory");
		goto fail;
	}
	/* Each grant's real path, once: its own rule and the others' splits. */
	for (i = 0; i < n; i++)
		if (grants[i].path != NULL && grants[i].path[0] == '/' &&
		    (b.canon[i] = path_real(grants[i].path)) == NULL)
			b.canon_err[i] = errno;
	for (i = 0; i < n; i++)
		if (ll_grant_root(&b, i) == -1)
			goto fail;
	free_canon(&b);
	ll_free_denied(&b);
	ll_dir_cache_free(&cache);
	st->ms = now_ms() - t0;
	return b.fd;
fail:
	if (b.fd != -1 && b.fd != into)
		(void)close(b.fd);
	free_canon(&b);
	ll_free_denied(&b);
	ll_dir_cache_free(&cache);
	st->ms = now_ms() - t0;
	return -1;
}

int
sandbox_landlock_build(const struct landlock_path *grants, size_t n,
    const char *const *deny, size_t ndeny, unsigned max_rules, bool masked,
    struct landlock_stats *st, char *err, size_t errlen)
{
	return build(-1, grants, n, deny, ndeny, max_rules, masked, 0, st, err,
	    errlen);
}

int
sandbox_landlock_build_net(const struct landlock_path *grants, size_t n,
    const char *const *deny, size_t ndeny, unsigned max_rules,
    int net_port, struct landlock_stats *st, char *err, size_t errlen)
{
	return build(-1, grants, n, deny, ndeny, max_rules, false, net_port,
	    st, err, errlen);
}

int
sandbox_landlock_add(int fd, const struct landlock_path *grants, size_t n,
    const char *const *deny, size_t ndeny, unsigned max_rules, bool masked,
    struct landlock_stats *st, char *err, size_t errlen)
{
	return build(fd, grants, n, deny, ndeny, max_rules, masked, 0, st, err,
	    errlen) == -1 ? -1 : 0;
}

/*
 * The kernel's ABI, or less: HARN_EGRESSD_LANDLOCK_ABI=N uses at most N,
 * to see (and test) what an older kernel gets; 0, a kernel without
 * Landlock.  Only ever lower: the boundary never rests on what Landlock
 * adds (SPEC 6.1).
 */
int
sandbox_landlock_abi(void)
{
	const char *cap = getenv("HARN_EGRESSD_LANDLOCK_ABI");
	int abi;
	long n;
	char *end;

	abi = ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi <= 0 || cap == NULL || *cap == '\0')
		return abi;
	n = strtol(cap, &end, 10);
	if (*end == '\0' && n == 0) {
		errno = ENOSYS;
		return -1;
	}
	if (*end == '\0' && n >= 1 && n < abi)
		abi = (int)n;
	return abi;
}

int
sandbox_landlock_enforce(int fd, char *err, size_t errlen)
{
	int rv = 0;

	if (fd < 0) {
		(void)snprintf(err, errlen, "enforce: no ruleset");
		return -1;
	}
	if (ll_restrict_self(fd, 0) == -1) {
		if (errno == EPERM &&
		    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
			(void)snprintf(err, errlen, "enforce: no_new_privs "
			    "is not set");
		else
			(void)snprintf(err, errlen, "enforce: %s",
			    errno == E2BIG ? "too many nested Landlock domains"
			    : strerror(errno));
		rv = -1;
	}
	(void)close(fd);
	return rv;
}
