/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conf: reading a policy (SPEC 3.1, 3.4) into settings and an egress policy.
 * Pure: the caller reads the file or the environment and hands in bytes.
 */
#ifndef CONF_CONF_H
#define CONF_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "egress/egress.h"

#define CONF_ERR_MAX		512
#define CONF_MAX_LISTEN		16
#define CONF_MAX_RESOLVERS	8

/* An address and port (listen, resolver). */
struct conf_sockaddr {
	struct egress_addr	addr;
	uint16_t		port;
};

struct conf {
	struct egress_policy	*policy;
	char			*source;	/* file path, or "env" */
	unsigned char		*bytes;		/* what was read, for its digest */
	size_t			 nbytes;

	struct conf_sockaddr	 listen[CONF_MAX_LISTEN];
	size_t			 nlisten;
	struct conf_sockaddr	 resolver[CONF_MAX_RESOLVERS];
	size_t			 nresolver;	/* 0: the system's resolv.conf */

	/* Milliseconds. */
	uint32_t		 connect_timeout;
	uint32_t		 dns_timeout;
	uint32_t		 header_timeout;
	uint32_t		 idle_timeout;
	uint32_t		 drain_timeout;
	uint32_t		 max_connections;
	uint32_t		 max_header_bytes;
	uint32_t		 listen_backlog;	/* 0: max_connections */
	/* The decision log failing or behind: refuse new requests, or serve
	 * them unlogged (log_failure_action refuse|serve). */
	bool			 log_failure_serve;
	/* How long a request waits for the log to take its line (SPEC 5):
	 * milliseconds, 0 not at all. */
	uint32_t		 log_wait;
	/* Run mode carries direct TCP and answers DNS itself (transparent
	 * on|off, SPEC 6.6); false restores 6.1's refusal of both. */
	bool			 transparent;
	/*
	 * A parent proxy every allowed connection goes through (upstream
	 * http://ADDR:PORT, SPEC 8.3); upstream_resolve parent: names go to
	 * it unresolved, address rules judging address literals only.
	 */
	bool			 has_upstream;
	struct conf_sockaddr	 upstream;
	bool			 upstream_parent;
};

/* A policy with every default (deny all); source names where it came from. */
struct conf	*conf_new(const char *source);
void		 conf_free(struct conf *);

/*
 * Parse a policy file's bytes.  On error returns NULL and writes
 * "NAME:LINE: what is wrong" into err.
 */
struct conf	*conf_parse(const char *name, const char *buf, size_t len,
		    char *err, size_t errlen);

/*
 * The environment policy (SPEC 3.4).  getenv_fn looks a variable up (NULL
 * when unset).  Returns 1 and sets *out when any HARN_EGRESS_* variable is
 * set, 0 when none is, -1 with err naming the variable on a bad value.
 */
int		 conf_from_env(const char *(*getenv_fn)(const char *),
		    struct conf **out, char *err, size_t errlen);

/* Keep a copy of the bytes the policy came from, for its digest. */
int		 conf_keep_bytes(struct conf *, const char *, size_t);

/* The names of the environment policy's variables, NULL-terminated. */
extern const char *const conf_env_vars[];

/*
 * ADDR:PORT (IPv6 in brackets) for a listener or a resolver.  defport is
 * taken when the port is left out (0: the port is required); port 0 is
 * accepted only when zero_ok.
 */
int		 conf_sockaddr_parse(const char *, size_t, uint16_t defport,
		    bool zero_ok, struct conf_sockaddr *, const char **err);
void		 conf_sockaddr_format(const struct conf_sockaddr *, char *,
		    size_t);

/* The effective policy, normalized, one directive a line; it parses again. */
char		*conf_format(const struct conf *);

#endif
