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
 */
#if defined(__has_include)
#if __has_include(<linux/landlock.h>)
#include <linux/landlock.h>
#endif
#endif

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/internal.h"

/* The same numbers on every architecture but alpha. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset	444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule		445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self	446
#endif

/* landlock_create_ruleset() flags. */
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION		(1U << 0)
#endif
#ifndef LANDLOCK_CREATE_RULESET_ERRATA			/* ABI 7 */
#define LANDLOCK_CREATE_RULESET_ERRATA		(1U << 1)
#endif

/* ABI 1 */
#ifndef LANDLOCK_ACCESS_FS_EXECUTE
#define LANDLOCK_ACCESS_FS_EXECUTE		(1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE		(1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE		(1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR		(1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR		(1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE		(1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR		(1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR		(1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG		(1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK		(1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO		(1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK		(1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM		(1ULL << 12)
#endif
/* ABI 2 */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER		(1ULL << 13)
#endif
/* ABI 3 */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE		(1ULL << 14)
#endif
/* ABI 4: network rights. */
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP		(1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP		(1ULL << 1)
#endif
/* ABI 5 */
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV		(1ULL << 15)
#endif
/* ABI 6 */
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL			(1ULL << 1)
#endif
/* ABI 7: audit logging of denials; we keep the kernel's default (0). */
#ifndef LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF
#define LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF	(1U << 0)
#endif
#ifndef LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
#define LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON		(1U << 1)
#endif
#ifndef LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF
#define LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF	(1U << 2)
#endif

/*
 * The structs and rule types under our own names: the preprocessor cannot
 * tell whether a header has them, and older headers have a
 * landlock_ruleset_attr with fewer fields.  The layouts are the uapi's.
 */
#define LL_RULE_PATH_BENEATH	1
#define LL_RULE_NET_PORT	2	/* ABI 4 */

struct ll_ruleset_attr {
	uint64_t	 handled_access_fs;
	uint64_t	 handled_access_net;	/* ABI 4 */
	uint64_t	 scoped;		/* ABI 6 */
};

struct ll_path_beneath_attr {
	uint64_t	 allowed_access;
	int32_t		 parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
	uint64_t	 allowed_access;
	uint64_t	 port;
};

_Static_assert(sizeof(struct ll_ruleset_attr) == 24, "ruleset attr");
_Static_assert(sizeof(struct ll_path_beneath_attr) == 12, "path attr");
_Static_assert(sizeof(struct ll_net_port_attr) == 16, "net port attr");

#define FS_ABI1 (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
	LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
	LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
	LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | \
	LANDLOCK_ACCESS_FS_MAKE_SYM)

/* The rights a file (not a directory) can hold; others are EINVAL. */
#define FS_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	LANDLOCK_ACCESS_FS_IOCTL_DEV)

#define FS_RO	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_RX	(FS_RO | LANDLOCK_ACCESS_FS_EXECUTE)
/* A directory's own rights: list, create and remove entries, move them. */
#define FS_STRUCT ((FS_ABI1 & ~FS_FILE) | LANDLOCK_ACCESS_FS_REFER)

/* A file's identity: what Landlock attaches rules to. */
struct ident {
	dev_t	 dev;
	ino_t	 ino;
};

/*
 * A denied path, resolved.  One that does not exist is the first missing
 * name below its nearest existing directory: that directory is split
 * around it, so that the path stays denied if it appears.
 */
struct denied {
	char		*path;		/* canonical */
	bool		 exists;
	bool		 isdir;
	struct ident	 self;
	struct ident	*up;		/* each directory above it, "/" first */
	size_t		*rest;		/* where the path below up[k] starts */
	size_t		 nup;
};

struct build {
	int			 fd;		/* the ruleset */
	bool			 masked;	/* denied paths are masked by mounts */
	int			 net_port;	/* >0: TCP rights handled */
	uint64_t		 handled;
	unsigned		 max;
	struct landlock_stats	*st;
	struct denied		*d;
	size_t			 nd;
	const struct landlock_path *grants;	/* all of them, and */
	char			**canon;	/*   their real paths (or NULL, */
	int			*canon_err;	/*   and why) */
	size_t			 ngrants;
	char			 path[PATH_MAX];	/* being split */
	char			*err;
	size_t			 errlen;
};

static void seterr(struct build *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static void
seterr(struct build *b, const char *fmt, ...)
{
	va_list ap;

	if (b->err == NULL || b->errlen == 0)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
}

static int
ll_create_ruleset(const struct ll_ruleset_attr *attr, size_t size,
    uint32_t flags)
{
	return (int)syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

static int
ll_add_rule(int fd, int type, const void *attr, uint32_t flags)
{
	return (int)syscall(SYS_landlock_add_rule, fd, type, attr, flags);
}

static int
ll_restrict_self(int fd, uint32_t flags)
{
	return (int)syscall(SYS_landlock_restrict_self, fd, flags);
}

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

static uint64_t
grant_access(enum landlock_grant g, uint64_t handled)
{
	switch (g) {
	case GRANT_RX:
		return FS_RX & handled;
	case GRANT_RO:
		return FS_RO & handled;
	case GRANT_RW:
		return handled;
	}
	return 0;
}

static bool
same(const struct ident *a, const struct stat *sb)
{
	return a->dev == sb->st_dev && a->ino == sb->st_ino;
}

/* path is dir or below it; both canonical. */
static bool
under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1)
		return true;	/* "/" */
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

/* Connect to the proxy's port; bind to port 0 (an ephemeral port) only. */
static int
net_rules(struct build *b)
{
	struct ll_net_port_attr np;

	np.allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP;
	np.port = (uint64_t)b->net_port;
	if (ll_add_rule(b->fd, LL_RULE_NET_PORT, &np, 0) == -1) {
		seterr(b, "TCP connect rule: %s", strerror(errno));
		return -1;
	}
	np.allowed_access = LANDLOCK_ACCESS_NET_BIND_TCP;
	np.port = 0;
	if (ll_add_rule(b->fd, LL_RULE_NET_PORT, &np, 0) == -1) {
		seterr(b, "TCP bind rule: %s", strerror(errno));
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
		seterr(b, "create ruleset (ABI %d): %s", abi, strerror(errno));
		return -1;
	}
	if (attr.handled_access_net != 0 && net_rules(b) == -1)
		return -1;
	return 0;
}

/* One rule on fd; where names the grant it belongs to, for errors. */
static int
add_rule(struct build *b, int fd, uint64_t access, bool isdir,
    const char *where)
{
	struct ll_path_beneath_attr pb;

	if (!isdir)
		access &= FS_FILE;
	if (access == 0)
		return 0;
	if (b->st->rules >= b->max) {
		seterr(b, "%s: too many entries to grant around the denied "
		    "paths (limit %u rules)", where, b->max);
		return -1;
	}
	pb.allowed_access = access;
	pb.parent_fd = fd;
	if (ll_add_rule(b->fd, LL_RULE_PATH_BENEATH, &pb, 0) == -1) {
		seterr(b, "add rule for %s: %s", where, strerror(errno));
		return -1;
	}
	b->st->rules++;
	return 0;
}

/*
 * The identity of every directory above canonical path p ("/" first) and
 * where the rest of p starts below each.
 */
/*
 * The directories above the denied paths are mostly the same few ($HOME,
 * /): each is looked at once per build.
 */
#define DIR_CACHE	32

struct dir_cache {
	char		*path[DIR_CACHE];
	struct ident	 id[DIR_CACHE];
	size_t		 n;
	/* The nearest existing directory of missing paths: as written, real. */
	char		*written[DIR_CACHE], *real[DIR_CACHE];
	bool		 isdir[DIR_CACHE];
	size_t		 nreal;
};

static struct dir_cache	*dirs;	/* during one build */

static int
dir_ident(const char *path, struct ident *id)
{
	struct stat sb;
	size_t i;

	for (i = 0; dirs != NULL && i < dirs->n; i++) {
		if (strcmp(dirs->path[i], path) == 0) {
			*id = dirs->id[i];
			return 0;
		}
	}
	if (stat(path, &sb) == -1)
		return -1;
	id->dev = sb.st_dev;
	id->ino = sb.st_ino;
	if (dirs != NULL && dirs->n < DIR_CACHE &&
	    (dirs->path[dirs->n] = strdup(path)) != NULL)
		dirs->id[dirs->n++] = *id;
	return 0;
}

static int
walk_up(const char *p, struct ident **up, size_t **rest, size_t *n)
{
	char buf[PATH_MAX];
	size_t i, k, len = strlen(p);

	*up = NULL;
	*rest = NULL;
	*n = 0;
	if (len >= sizeof(buf) || len < 2)
		return 0;	/* "/" has nothing above it */
	for (i = 0, k = 0; i < len; i++)
		if (p[i] == '/')
			k++;
	if ((*up = calloc(k, sizeof(**up))) == NULL ||
	    (*rest = calloc(k, sizeof(**rest))) == NULL)
		return -1;
	for (i = 0; i < len; i++) {
		if (p[i] != '/')
			continue;
		memcpy(buf, p, i == 0 ? 1 : i);
		buf[i == 0 ? 1 : i] = '\0';
		if (dir_ident(buf, &(*up)[*n]) == -1)
			return -1;
		(*rest)[*n] = i + 1;
		(*n)++;
	}
	return 0;
}

/* No "." or ".." component: lexically below means really below. */
static bool
plain(const char *p)
{
	const char *c;
	size_t n;

	for (c = p; *c != '\0'; c += n) {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
	}
	return true;
}

/*
 * Below another denied path, as written: resolving it goes through that
 * one, so it is hidden with it and failing to resolve it is no error.
 */
static bool
below_other(const char *const *deny, size_t ndeny, size_t i)
{
	const char *rest;
	size_t j, n;

	for (j = 0; j < ndeny; j++) {
		if (j == i || deny[j] == NULL)
			continue;
		n = strlen(deny[j]);
		while (n > 0 && deny[j][n - 1] == '/')
			n--;
		rest = deny[i] + n;
		if (strncmp(deny[i], deny[j], n) == 0 && rest[0] == '/' &&
		    rest[strspn(rest, "/")] != '\0' && plain(rest))
			return true;
	}
	return false;
}

/*
 * ~/.netrc -> /dev/null: the file was sent to a device, and a device is
 * not the credential; denying its target would take /dev/null away.  A
 * device named as such (--read-deny-root /dev/kvm) is denied.
 */
static bool
device_link(const char *path, const struct stat *target)
{
	struct stat sb;

	return S_ISCHR(target->st_mode) && lstat(path, &sb) == 0 &&
	    S_ISLNK(sb.st_mode);
}

static void
free_one(struct denied *d)
{
	free(d->path);
	free(d->up);
	free(d->rest);
	memset(d, 0, sizeof(*d));
}

/*
 * Where a symlink leads, however many links on, when its end does not
 * exist (realpath cannot say): the path the end would be made at.
 */
static char *
link_end(const char *path)
{
	char buf[PATH_MAX], *cur, *slash, *next;
	struct stat sb;
	ssize_t n;
	int hops;

	if ((cur = strdup(path)) == NULL)
		return NULL;
	for (hops = 0; hops < 40; hops++) {
		if (lstat(cur, &sb) == -1 || !S_ISLNK(sb.st_mode))
			return cur;
		if ((n = readlink(cur, buf, sizeof(buf) - 1)) <= 0)
			break;
		buf[n] = '\0';
		if (buf[0] == '/')
			next = strdup(buf);
		else {
			slash = strrchr(cur, '/');
			*slash = '\0';
			if (asprintf(&next, "%s/%s", cur, buf) == -1)
				next = NULL;
		}
		free(cur);
		if ((cur = next) == NULL)
			return NULL;
	}
	free(cur);
	errno = ELOOP;
	return NULL;
}

/*
 * The canonical nearest existing directory of a path that does not
 * exist, and the first missing name below it.  NULL with ENOTDIR when a
 * file stands on the way: nothing can be made there.
 */
static char *
missing_path(const char *path)
{
	char buf[PATH_MAX], *end, *slash, *dir = NULL, *out = NULL;
	struct stat sb;
	const char *name;
	bool isdir = false;
	size_t i;

	if ((end = link_end(path)) == NULL)
		return NULL;
	(void)snprintf(buf, sizeof(buf), "%s", end);
	free(end);
	for (;;) {
		if ((slash = strrchr(buf, '/')) == NULL)
			return NULL;
		name = slash + 1;
		*slash = '\0';
		for (i = 0; dirs != NULL && i < dirs->nreal; i++)
			if (strcmp(dirs->written[i], buf) == 0)
				break;
		if (dirs != NULL && i < dirs->nreal) {
			if ((dir = strdup(dirs->real[i])) == NULL)
				return NULL;
			isdir = dirs->isdir[i];
			break;
		}
		if ((dir = path_real(buf[0] != '\0' ? buf : "/")) != NULL) {
			isdir = stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
			if (dirs != NULL && dirs->nreal < DIR_CACHE &&
			    (dirs->written[dirs->nreal] = strdup(buf)) != NULL) {
				if ((dirs->real[dirs->nreal] = strdup(dir)) ==
				    NULL)
					free(dirs->written[dirs->nreal]);
				else
					dirs->isdir[dirs->nreal++] = isdir;
			}
			break;
		}
		if (errno != ENOENT)
			return NULL;
	}
	if (!isdir)
		errno = ENOTDIR;
	else if (asprintf(&out, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
	    name) == -1)
		out = NULL;
	free(dir);
	return out;
}

/*
 * Resolve the denied paths.  One that cannot be resolved is an error,
 * never a wider grant.
 */
static int
resolve_denied(struct build *b, const char *const *deny, size_t ndeny)
{
	struct denied *d;
	struct stat sb;
	size_t i;

	if (ndeny > 0 && (b->d = calloc(ndeny, sizeof(*b->d))) == NULL) {
		seterr(b, "out of memory");
		return -1;
	}
	for (i = 0; i < ndeny; i++) {
		if (deny[i] == NULL || deny[i][0] != '/') {
			seterr(b, "denied path %s: not absolute",
			    deny[i] == NULL ? "(null)" : deny[i]);
			return -1;
		}
		d = &b->d[b->nd];
		if ((d->path = path_real(deny[i])) == NULL) {
			if (below_other(deny, ndeny, i))
				continue;
			if (errno != ENOENT ||
			    (d->path = missing_path(deny[i])) == NULL) {
				if (errno == ENOTDIR)
					continue;
				seterr(b, "denied path %s: %s", deny[i],
				    strerror(errno));
				return -1;
			}
			b->nd++;
			if (walk_up(d->path, &d->up, &d->rest, &d->nup) == -1) {
				seterr(b, "denied path %s: %s", deny[i],
				    strerror(errno));
				return -1;
			}
			continue;
		}
		b->nd++;
		if (stat(d->path, &sb) == -1 ||
		    walk_up(d->path, &d->up, &d->rest, &d->nup) == -1) {
			seterr(b, "denied path %s: %s", deny[i],
			    strerror(errno));
			return -1;
		}
		if (device_link(deny[i], &sb)) {
			free_one(d);
			b->nd--;
			continue;
		}
		/* Masked by /dev/null: the identity is the mask's, not its. */
		d->exists = !(b->masked && (S_ISCHR(sb.st_mode) ||
		    S_ISBLK(sb.st_mode)));
		d->isdir = S_ISDIR(sb.st_mode);
		d->self.dev = sb.st_dev;
		d->self.ino = sb.st_ino;
	}
	return 0;
}

/*
 * An entry reached by a path we did not expect, whose identity is that
 * of a denied path, or of a directory on the way to one: a bind mount, a
 * rename since the listing, a hard link.  Granting it would grant the
 * denied path too.
 */
static bool
aliases_denied(const struct build *b, const struct stat *sb)
{
	const struct denied *d;
	size_t i, k;

	for (i = 0; i < b->nd; i++) {
		d = &b->d[i];
		/* A denied file under another name: renamed, or swapped in. */
		if (d->exists && same(&d->self, sb))
			return true;
		if (!S_ISDIR(sb->st_mode))
			continue;
		for (k = 0; k < d->nup; k++)
			if (same(&d->up[k], sb))
				return true;
	}
	return false;
}

/* Length of rel's first component; *whole when there is nothing below. */
static size_t
first(const char *rel, bool *whole)
{
	size_t n = strcspn(rel, "/");

	*whole = rel[n] == '\0';
	return n;
}

/* Is name a denied entry (2) or on the way to one (1) of this directory? */
static int
entry_kind(const char *const *rel, size_t nrel, const char *name)
{
	size_t i, n;
	bool whole;
	int kind = 0;

	for (i = 0; i < nrel; i++) {
		n = first(rel[i], &whole);
		if (strlen(name) != n || strncmp(rel[i], name, n) != 0)
			continue;
		if (whole)
			return 2;
		kind = 1;
	}
	return kind;
}

/* One entry of a directory being split; symlinks get nothing. */
static int
grant_entry(struct build *b, int dirfd, const char *name, uint64_t access)
{
	struct stat sb;
	int fd, rv = -1;

	if ((fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return 0;	/* gone since the listing */
		seterr(b, "%s/%s: %s", b->path, name, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1) {
		seterr(b, "%s/%s: %s", b->path, name, strerror(errno));
		goto out;
	}
	/*
	 * Landlock accepts a rule on a symlink but checks the target's own
	 * path on open, so such a rule would never be used.  The target is
	 * reachable only where it is granted itself.
	 */
	if (S_ISLNK(sb.st_mode) || aliases_denied(b, &sb)) {
		rv = 0;
		goto out;
	}
	rv = add_rule(b, fd, access, S_ISDIR(sb.st_mode), b->path);
out:
	(void)close(fd);
	return rv;
}

/* Grant every entry of dirfd but those denied or on the way to one. */
static int
grant_entries(struct build *b, int dirfd, const char *const *rel,
    size_t nrel, uint64_t access)
{
	struct dirent *de;
	DIR *dir;
	int fd, rv = -1;

	if ((fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (dir = fdopendir(fd)) == NULL) {
		seterr(b, "%s: cannot list to grant around a denied path: %s",
		    b->path, strerror(errno));
		if (fd != -1)
			(void)close(fd);
		return -1;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(dir)) == NULL)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    entry_kind(rel, nrel, de->d_name) != 0)
			continue;
		if (grant_entry(b, dirfd, de->d_name, access) == -1)
			goto out;
	}
	if (errno != 0) {
		seterr(b, "%s: cannot list: %s", b->path, strerror(errno));
		goto out;
	}
	rv = 0;
out:
	(void)closedir(dir);
	return rv;
}

static int expand(struct build *, int, const char *const *, size_t,
    uint64_t);

/*
 * The rights of what rel (or what it leads to) holds back: a weaker
 * grant's (rel points into its real path), or a denied path's, none.
 */
static uint64_t
rights_of(const struct build *b, const char *rel)
{
	size_t i;

	for (i = 0; i < b->ngrants; i++)
		if (b->canon[i] != NULL && rel >= b->canon[i] &&
		    rel < b->canon[i] + strlen(b->canon[i]))
			return grant_access(b->grants[i].grant, b->handled);
	return 0;
}

/*
 * Go down into the entry (of n bytes) that rel[i] starts with, taking
 * every denied path below it along.
 */
static int
descend(struct build *b, int dirfd, const char *const *rel, size_t nrel,
    size_t i, size_t n, uint64_t access)
{
	const char **sub = NULL;
	char name[NAME_MAX + 1];
	size_t j, nsub = 0, plen = strlen(b->path);
	int fd = -1, rv = -1;

	if (n > NAME_MAX || plen + 1 + n >= sizeof(b->path)) {
		seterr(b, "%s: name too long", b->path);
		return -1;
	}
	memcpy(name, rel[i], n);
	name[n] = '\0';
	if ((sub = calloc(nrel, sizeof(*sub))) == NULL) {
		seterr(b, "out of memory");
		return -1;
	}
	for (j = 0; j < nrel; j++)
		if (strncmp(rel[j], name, n) == 0 && rel[j][n] == '/')
			sub[nsub++] = rel[j] + n + 1;
	(void)snprintf(b->path + plen, sizeof(b->path) - plen, "%s%s",
	    plen == 1 ? "" : "/", name);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 && errno == ENOENT) {
		rv = 0;		/* gone: nothing left to grant below */
		goto out;
	}
	if (fd == -1) {
		seterr(b, "%s: cannot list to grant around a denied path: %s",
		    b->path, strerror(errno));
		goto out;
	}
	rv = expand(b, fd, sub, nsub, access);
out:
	b->path[plen] = '\0';
	if (fd != -1)
		(void)close(fd);
	free(sub);
	return rv;
}

/*
 * The directory dirfd (b->path) is granted access, except for the paths
 * rel[], relative to it: grant its entries instead, going down into
 * those on the way to a denied path.
 */
static int
expand(struct build *b, int dirfd, const char *const *rel, size_t nrel,
    uint64_t access)
{
	size_t i, j, n;
	uint64_t keep;
	bool whole, done;

	b->st->expanded++;
	/*
	 * With the denied paths masked by read-only mounts, the directory
	 * itself may keep its structural rights (list, create, remove): what
	 * they reach below it in a denied path is an empty read-only mount.
	 * Without masks it gets none, or they would reach the denied path.
	 */
	if (b->masked && add_rule(b, dirfd, access & FS_STRUCT, true,
	    b->path) == -1)
		return -1;
	/*
	 * Without masks it may keep what every path it holds back has too
	 * (a read-only root's reading), for those rights reach them anyway.
	 */
	keep = access;
	for (i = 0; i < nrel; i++)
		keep &= rights_of(b, rel[i]);
	if (!b->masked && keep != 0 && add_rule(b, dirfd, keep, true,
	    b->path) == -1)
		return -1;
	if (grant_entries(b, dirfd, rel, nrel, access) == -1)
		return -1;
	for (i = 0; i < nrel; i++) {
		n = first(rel[i], &whole);
		if (whole)
			continue;
		/* Each entry once; none that is denied as a whole. */
		for (j = 0, done = false; j < nrel && !done; j++)
			done = (j < i && strncmp(rel[j], rel[i], n + 1) == 0) ||
			    (strlen(rel[j]) == n &&
			    strncmp(rel[j], rel[i], n) == 0);
		if (done)
			continue;
		if (descend(b, dirfd, rel, nrel, i, n, access) == -1)
			return -1;
	}
	return 0;
}

/* Is the grant root (canonical p, identity sb) inside a denied path? */
static int
root_denied(struct build *b, const char *p, const struct stat *sb,
    bool *denied)
{
	struct ident *up;
	size_t *rest, i, k, n;

	*denied = false;
	for (i = 0; i < b->nd && !*denied; i++)
		*denied = under(p, b->d[i].path) ||
		    (b->d[i].exists && same(&b->d[i].self, sb));
	if (*denied)
		return 0;
	/* The same, by identity: a grant below a bind mount of one. */
	if (walk_up(p, &up, &rest, &n) == -1) {
		seterr(b, "%s: %s", p, strerror(errno));
		free(up);
		free(rest);
		return -1;
	}
	for (i = 0; i < b->nd && !*denied; i++)
		for (k = 0; k < n && !*denied; k++)
			*denied = b->d[i].isdir && up[k].dev ==
			    b->d[i].self.dev && up[k].ino == b->d[i].self.ino;
	free(up);
	free(rest);
	return 0;
}

/*
 * The denied paths below the grant root sb, relative to it: found by
 * identity, so a root that is another path to the same directory (a bind
 * mount) is split too.
 */
static size_t
denied_below(const struct build *b, const struct stat *sb,
    const char **rel)
{
	const struct denied *d;
	size_t i, k, n = 0;

	for (i = 0; i < b->nd; i++) {
		d = &b->d[i];
		for (k = 0; k < d->nup; k++) {
			if (same(&d->up[k], sb)) {
				rel[n++] = d->path + d->rest[k];
				break;
			}
		}
	}
	return n;
}

/*
 * The other grants below canon with fewer rights (a --read-only-root in
 * the workspace), relative to it: split around like a denied path, then
 * granted their own rights, for Landlock would give them the union.
 */
static size_t
weaker_below(const struct build *b, const char *canon, uint64_t access,
    const char **rel)
{
	size_t i, n = 0, len = strlen(canon);
	uint64_t other;

	for (i = 0; i < b->ngrants; i++) {
		if (b->canon[i] == NULL || strcmp(b->canon[i], canon) == 0 ||
		    !under(b->canon[i], canon))
			continue;
		other = grant_access(b->grants[i].grant, b->handled);
		if ((access & ~other) == 0)
			continue;
		rel[n++] = b->canon[i] + (len == 1 ? 1 : len + 1);
	}
	return n;
}

static int
grant_root(struct build *b, size_t gi)
{
	const struct landlock_path *g = &b->grants[gi];
	char canon[PATH_MAX];
	const char **rel = NULL;
	struct stat sb;
	uint64_t access = grant_access(g->grant, b->handled);
	size_t nrel;
	bool denied;
	int fd = -1, dfd = -1, rv = -1;

	if (g->path == NULL || g->path[0] != '/') {
		seterr(b, "grant %s: not absolute",
		    g->path == NULL ? "(null)" : g->path);
		return -1;
	}
	if (b->canon[gi] == NULL) {
		if (b->canon_err[gi] == ENOENT || b->canon_err[gi] == ENOTDIR)
			return 0;	/* nothing there to grant */
		seterr(b, "grant %s: %s", g->path, strerror(b->canon_err[gi]));
		return -1;
	}
	(void)snprintf(canon, sizeof(canon), "%s", b->canon[gi]);
	if ((fd = open(canon, O_PATH | O_CLOEXEC)) == -1 ||
	    fstat(fd, &sb) == -1) {
		seterr(b, "grant %s: %s", g->path, strerror(errno));
		goto out;
	}
	/* A root: the directory that was checked, not one put there since. */
	if (g->ino != 0 && (sb.st_dev != g->dev || sb.st_ino != g->ino)) {
		seterr(b, "grant %s: no longer the directory that was checked "
		    "(now %s)", g->path, canon);
		goto out;
	}
	if (root_denied(b, canon, &sb, &denied) == -1)
		goto out;
	if (denied) {
		b->st->expanded++;	/* split into nothing */
		rv = 0;
		goto out;
	}
	if ((rel = calloc(b->nd + b->ngrants + 1, sizeof(*rel))) == NULL) {
		seterr(b, "out of memory");
		goto out;
	}
	/*
	 * Writable roots are split as well: a mask alone would not keep a
	 * denied file the host replaces during the run (the rename detaches
	 * the mount on it).  Landlock cannot take a path out of a tree
	 * without the tree's own rights, so a directory on the way to a
	 * denied path keeps its entries' grants but not its own: a new file
	 * made directly in it cannot be opened.
	 */
	nrel = 0;
	if (rel != NULL)
		nrel = denied_below(b, &sb, rel);
	nrel += weaker_below(b, canon, access, rel + nrel);
	if (nrel == 0) {
		rv = add_rule(b, fd, access, S_ISDIR(sb.st_mode), canon);
		goto out;
	}
	(void)snprintf(b->path, sizeof(b->path), "%s", canon);
	if ((dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		seterr(b, "%s: cannot list to grant around a denied path: %s",
		    canon, strerror(errno));
		goto out;
	}
	rv = expand(b, dfd, rel, nrel, access);
out:
	if (dfd != -1)
		(void)close(dfd);
	if (fd != -1)
		(void)close(fd);
	free(rel);
	return rv;
}

static void
free_denied(struct build *b)
{
	size_t i;

	for (i = 0; i < b->nd; i++)
		free_one(&b->d[i]);
	free(b->d);
	b->d = NULL;
	b->nd = 0;
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

static void
dir_cache_free(struct dir_cache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->path[i]);
	for (i = 0; i < c->nreal; i++) {
		free(c->written[i]);
		free(c->real[i]);
	}
	c->n = c->nreal = 0;
	dirs = NULL;
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
		seterr(&b, "not available: %s",
		    errno == EOPNOTSUPP ? "disabled at boot" :
		    errno == ENOSYS ? "not in this kernel" : strerror(errno));
		goto fail;
	}
	st->abi = abi;
	b.handled = fs_handled(abi);
	dirs = &cache;
	if (resolve_denied(&b, deny, ndeny) == -1)
		goto fail;
	if (into != -1)
		b.fd = into;
	else if (create_ruleset(&b, abi) == -1)
		goto fail;
	b.grants = grants;
	b.ngrants = n;
	if ((b.canon = calloc(n + 1, sizeof(*b.canon))) == NULL ||
	    (b.canon_err = calloc(n + 1, sizeof(*b.canon_err))) == NULL) {
		seterr(&b, "out of memory");
		goto fail;
	}
	/* Each grant's real path, once: its own rule and the others' splits. */
	for (i = 0; i < n; i++)
		if (grants[i].path != NULL && grants[i].path[0] == '/' &&
		    (b.canon[i] = path_real(grants[i].path)) == NULL)
			b.canon_err[i] = errno;
	for (i = 0; i < n; i++)
		if (grant_root(&b, i) == -1)
			goto fail;
	free_canon(&b);
	free_denied(&b);
	dir_cache_free(&cache);
	st->ms = now_ms() - t0;
	return b.fd;
fail:
	if (b.fd != -1 && b.fd != into)
		(void)close(b.fd);
	free_canon(&b);
	free_denied(&b);
	dir_cache_free(&cache);
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
