/* SPDX-License-Identifier: Apache-2.0 */
/*
 * egress: the decision engine.  Pure functions, no I/O: a policy, a request
 * (host, port) and, once resolved, its addresses go in; a verdict comes out.
 *
 * Addresses are held as 16 bytes in IPv6 form; an IPv4 address is stored as
 * its IPv4-mapped form ::ffff:a.b.c.d, so one prefix tree serves both
 * families and a mapped address is the IPv4 address it carries.
 */
#ifndef EGRESS_EGRESS_H
#define EGRESS_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EGRESS_HOST_MAX		253	/* longest normalized name */
#define EGRESS_ADDRSTR_MAX	48	/* "[ffff:...]" fits, with NUL */

struct egress_addr {
	uint8_t	b[16];
};

enum egress_reason {
	EGRESS_R_NONE = 0,
	EGRESS_R_ALLOW_RULE,
	EGRESS_R_DEFAULT_ALLOW,
	EGRESS_R_DENY_RULE,
	EGRESS_R_NO_ALLOW_RULE,
	EGRESS_R_PRIVATE_ADDRESS,
	EGRESS_R_METADATA_ADDRESS,
	EGRESS_R_DNS_FAILURE,
	EGRESS_R_INVALID_TARGET,
	EGRESS_R_INVALID_REQUEST,
	EGRESS_R_UNSUPPORTED_COMMAND,
	EGRESS_R_PROXY_LOOP,
	EGRESS_R_CONNECT_FAILED,
	EGRESS_R_CONNECT_TIMEOUT,
	EGRESS_R_LIMIT_EXCEEDED,
	EGRESS_R_LOG_UNAVAILABLE,	/* the decision log fails or is behind */
	EGRESS_R_SHUTTING_DOWN,		/* arrived while the proxy drains */
	EGRESS_R_NOT_THROUGH_PROXY,	/* run mode: a direct try, refused */
	EGRESS_R_REPORT_ONLY,		/* mode report: let through; see would */
	EGRESS_R_COUNT
};

enum egress_decision {
	EGRESS_DENY = 0,
	EGRESS_ALLOW,
	EGRESS_RESOLVE		/* admitted so far; the verdict needs DNS */
};

enum egress_rule_kind {
	EGRESS_RULE_HOST,	/* exact name */
	EGRESS_RULE_WILDCARD,	/* *.suffix: strict subdomains only */
	EGRESS_RULE_CIDR	/* address or prefix (an address is a /32, /128) */
};

struct egress_rule {
	enum egress_rule_kind	kind;
	bool			allow;
	uint16_t		port;	/* 0: every port */
	uint8_t			plen;	/* CIDR: prefix length in the 128-bit space */
	struct egress_addr	addr;	/* CIDR: network address */
	char			host[EGRESS_HOST_MAX + 1]; /* HOST: name; WILDCARD: suffix without "*." */
	unsigned		line;	/* where it came from, for messages; 0 if none */
};

/* A request after parsing and normalization. */
struct egress_target {
	char			host[EGRESS_HOST_MAX + 1]; /* normalized; canonical text for an address */
	bool			is_addr;
	struct egress_addr	addr;	/* when is_addr */
	uint16_t		port;
};

/* A listener of this proxy, for the proxy_loop check. */
struct egress_listener {
	struct egress_addr	addr;
	uint16_t		port;
};

struct egress_verdict {
	enum egress_decision		 decision;
	enum egress_reason		 reason;
	const struct egress_rule	*rule;	/* the rule that decided, if one did */
	size_t				 addr_index; /* judge_addrs: the address that decided a deny */
	/*
	 * EGRESS_R_REPORT_ONLY: what enforcing would have said
	 * (EGRESS_R_NO_ALLOW_RULE or EGRESS_R_DENY_RULE; rule, if any, the
	 * deny rule); EGRESS_R_NONE otherwise.
	 */
	enum egress_reason		 would;
};

struct egress_policy;

/* Reasons: exactly the strings of the decision log. */
const char	*egress_reason_name(enum egress_reason);

/* Address helpers. */
void	 egress_addr_from_v4(struct egress_addr *, uint32_t host_order);
void	 egress_addr_from_v6(struct egress_addr *, const uint8_t b[16]);
bool	 egress_addr_is_v4(const struct egress_addr *);
uint32_t egress_addr_v4(const struct egress_addr *);
/*
 * The socket address for addr and port: AF_INET for an IPv4 (or mapped)
 * address, AF_INET6 otherwise.  Returns its length.
 */
struct sockaddr_storage;
unsigned egress_addr_sockaddr(const struct egress_addr *, uint16_t port,
	    struct sockaddr_storage *);
/* Canonical text: dotted quad, or RFC 5952 IPv6 without brackets. */
void	 egress_addr_format(const struct egress_addr *, char *, size_t);

/*
 * Parsing; every parser takes (pointer, length), never reads past it, and
 * never needs a NUL terminator.
 *
 * egress_host_parse: a host as a request names it: a name (lower-cased, one
 * trailing dot removed), an IPv4 address in any spelling a libc parser
 * accepts (canonicalized), or an IPv6 address with or without brackets.
 * A name whose last label is numeric is read as an IPv4 address or refused,
 * so it can never be sent to DNS.  Returns 0, or -1 with *err set.
 */
int	 egress_host_parse(const char *, size_t, struct egress_target *,
	    const char **err);
/* A decimal port 1-65535, no sign, no leading zero. */
int	 egress_port_parse(const char *, size_t, uint16_t *);
/* host:port, [v6]:port, or an http(s) URL (default port from the scheme). */
int	 egress_target_parse(const char *, size_t, struct egress_target *,
	    const char **err);
/* A rule of a policy (SPEC 3.2). */
int	 egress_rule_parse(const char *, size_t, bool allow,
	    struct egress_rule *, const char **err);
/* The rule in its normalized text form, as a policy file would hold it. */
void	 egress_rule_format(const struct egress_rule *, char *, size_t);

/* Policies. */
struct egress_policy *egress_policy_new(void);
void	 egress_policy_free(struct egress_policy *);
/* Copies the rule; -1 on allocation failure. */
int	 egress_policy_add(struct egress_policy *, const struct egress_rule *);
void	 egress_policy_set_default_allow(struct egress_policy *, bool);
void	 egress_policy_set_block_private(struct egress_policy *, bool);
void	 egress_policy_set_allow_loopback(struct egress_policy *, bool);
/*
 * mode report (SPEC 3.1): what the host and address rules refuse
 * (no_allow_rule, deny_rule) is let through as report_only; the registry,
 * metadata addresses and proxy loops still refuse.
 */
void	 egress_policy_set_report(struct egress_policy *, bool);
bool	 egress_policy_report(const struct egress_policy *);
bool	 egress_policy_default_allow(const struct egress_policy *);
bool	 egress_policy_block_private(const struct egress_policy *);
bool	 egress_policy_allow_loopback(const struct egress_policy *);
size_t	 egress_policy_nrules(const struct egress_policy *);
const struct egress_rule *egress_policy_rule(const struct egress_policy *,
	    size_t);
/*
 * exempt (SPEC 3.1): a CIDR rule of any port taken out of the
 * special-purpose registry; it allows nothing by itself.  -1 for another
 * kind of rule or on allocation failure.  The caller refuses a CIDR that
 * holds a metadata address (egress_cidr_metadata).
 */
int	 egress_policy_add_exempt(struct egress_policy *,
	    const struct egress_rule *);
/* The exempt CIDR holding a, or NULL. */
const struct egress_rule *egress_policy_exempts(const struct egress_policy *,
	    const struct egress_addr *);
size_t	 egress_policy_nexempts(const struct egress_policy *);
const struct egress_rule *egress_policy_exempt(const struct egress_policy *,
	    size_t);

/*
 * Decisions (SPEC 3.3).
 *
 * egress_judge_target: steps 1-4 and, for an address literal, step 6.
 * EGRESS_RESOLVE means: resolve, then call egress_judge_addrs with the
 * same target.  Every other outcome is final.
 */
void	 egress_judge_target(const struct egress_policy *,
	    const struct egress_target *, const struct egress_listener *,
	    size_t nlisteners, struct egress_verdict *);
/*
 * Run mode's DNS answerer (SPEC 6.6): does 3.3 admit the name on some port
 * before any address is judged?  Admitted: EGRESS_ALLOW or EGRESS_RESOLVE
 * (report mode's report_only included), the verdict of an admitting port.
 * Refused (EGRESS_DENY): the verdict of a port no rule names, with its
 * reason and rule.  A name that is not a valid name, or reads as an
 * address, is refused invalid_target.
 */
void	 egress_judge_name(const struct egress_policy *, const char *name,
	    struct egress_verdict *);
/*
 * upstream_resolve parent (SPEC 8.3): a name the parent resolves, so no
 * address of it is ever judged here.  From the EGRESS_RESOLVE verdict
 * egress_judge_target gave: what the name's own rules say (allow_rule,
 * default_allow, report_only) is final; a name only an address rule could
 * admit is refused no_allow_rule (report mode: let through report_only).
 * Any other verdict is copied through.
 */
void	 egress_judge_parent(const struct egress_policy *,
	    const struct egress_verdict *pending, struct egress_verdict *);
/*
 * Step 6 over every resolved address: the first failure denies them all.
 * pending is the EGRESS_RESOLVE verdict egress_judge_target gave for the
 * same target and policy; any other verdict is copied through unchanged.
 */
void	 egress_judge_addrs(const struct egress_policy *,
	    const struct egress_target *, const struct egress_verdict *pending,
	    const struct egress_addr *, size_t naddrs,
	    const struct egress_listener *, size_t nlisteners,
	    struct egress_verdict *);

/*
 * The special-purpose registry (SPEC 3.5): the name of the block holding
 * the address ("10.0.0.0/8"), or NULL.  A metadata address is one the
 * cloud providers serve instance credentials on.
 */
const char	*egress_registry_lookup(const struct egress_addr *);
bool		 egress_addr_is_metadata(const struct egress_addr *);
/*
 * The special-purpose block that refuses a under block_private, NULL when
 * none does (a public address, or one exempt, and so is any IPv4 address
 * it carries).  *which: a itself, or the address it carries.
 */
const char	*egress_special_block(const struct egress_policy *,
		    const struct egress_addr *, struct egress_addr *which);
/*
 * For a person: "special-purpose 10.0.0.0/8; see exempt in egress.conf(5)"
 * (or what a carried address is), when block_private refuses a; else an
 * empty string and 0.
 */
int		 egress_special_hint(const struct egress_policy *,
		    const struct egress_addr *, char *, size_t);
/* A metadata address inside a CIDR rule: true, and which in *which. */
bool		 egress_cidr_metadata(const struct egress_rule *,
		    struct egress_addr *which);
bool		 egress_addr_is_loopback(const struct egress_addr *);
/*
 * The IPv4 addresses an IPv6 address embeds (compatible, NAT64, 6to4,
 * Teredo server and client, both NAT64 layouts of 64:ff9b:1::/48);
 * returns how many were written.
 */
#define EGRESS_EMBED_MAX	2
size_t		 egress_addr_embedded_v4(const struct egress_addr *,
		    struct egress_addr out[EGRESS_EMBED_MAX]);

#endif
