/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the Landlock files share (landlock.c builds a ruleset,
 * landlock_deny.c resolves the denied paths, landlock_grant.c adds the
 * grants split around them): the uapi under our own names, one build's
 * state, and the kernel's three calls.  Nothing else includes this.
 */
#ifndef SANDBOX_LANDLOCK_INT_H
#define SANDBOX_LANDLOCK_INT_H

#if defined(__has_include)
#if __has_include(<linux/landlock.h>)
#include <linux/landlock.h>
#endif
#endif

#include <sys/syscall.h>
#include <sys/types.h>

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

static inline void ll_seterr(struct build *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static inline void
ll_seterr(struct build *b, const char *fmt, ...)
{
	va_list ap;

	if (b->err == NULL || b->errlen == 0)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
}

static inline int
ll_create_ruleset(const struct ll_ruleset_attr *attr, size_t size,
    uint32_t flags)
{
	return (int)syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

static inline int
ll_add_rule(int fd, int type, const void *attr, uint32_t flags)
{
	return (int)syscall(SYS_landlock_add_rule, fd, type, attr, flags);
}

static inline int
ll_restrict_self(int fd, uint32_t flags)
{
	return (int)syscall(SYS_landlock_restrict_self, fd, flags);
}

/* landlock_deny.c: the denied paths, resolved once per build. */
void	 ll_dir_cache_start(struct dir_cache *);	/* for this build */
void	 ll_dir_cache_free(struct dir_cache *);
int	 ll_walk_up(const char *p, struct ident **up, size_t **rest,
	    size_t *n);
int	 ll_resolve_denied(struct build *, const char *const *deny,
	    size_t ndeny);
void	 ll_free_denied(struct build *);

/* landlock_grant.c: grant gi added, split around the denied paths. */
int	 ll_grant_root(struct build *, size_t gi);

#endif /* SANDBOX_LANDLOCK_INT_H */
