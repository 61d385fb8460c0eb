/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The audit's model, shared by its parts only (audit.c reads and counts
 * lines; audit_print.c, suggest.c and audit_html.c present them; the small
 * readers they share are in audit_model.c).  Maps are jansson objects
 * keyed by what a line said, escaped on output.
 */
#ifndef ATTEST_AUDIT_INT_H
#define ATTEST_AUDIT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "egress/egress.h"

enum audit_protocol { P_HTTP, P_HTTP_CONNECT, P_SOCKS5, P_DIRECT, P_TRANSPARENT,
    P_DNS,
    P_COUNT };

extern const char *const audit_protocol_names[P_COUNT];

/* What closed connections carried (SPEC 5 close lines), summed. */
struct audit_bytes {
	uint64_t	 out, in;	/* client to origin, origin to client */
	uint64_t	 connections, ms;
};

struct audit {
	uint64_t	 records, malformed;
	uint64_t	 run_records;	/* carrying a run id */
	uint64_t	 decisions[2];	/* by "is it an allow" */
	uint64_t	 by_reason[EGRESS_R_COUNT];
	uint64_t	 would[EGRESS_R_COUNT];	/* report_only, by would */
	uint64_t	 by_protocol[P_COUNT];
	uint64_t	 owned;		/* proxied run decisions with an exe */
	json_t		*hosts[2];	/* host -> count */
	json_t		*runs;		/* run id -> true: a set */
	/* exe -> {"allow": n, "deny": n, "hosts": {host: n}}: proxied */
	json_t		*exes;
	/* exe -> {"count": n, "pids": {pid: true}, "endpoints": {e: n}} */
	json_t		*direct;
	/* "host:port" -> {"host", "port", "count", "would": {reason: n}} */
	json_t		*reported;
	/*
	 * "host:port" -> {"host", "port", "count", "reasons": {r: n},
	 * "addrs": {addr: n}}: asked for (allowed, or refused by the rules)
	 */
	json_t		*asked;
	/* the same, refused private_address, connect_failed, _timeout */
	json_t		*judged;
	/* "YYYY-MM-DDTHH:MM:SS" -> [allow, deny]: decisions over time */
	json_t		*seconds;
	/*
	 * Close lines: every connection's bytes, and those of connections
	 * no allow line named a program for; saturated: a sum held at
	 * INT64_MAX.  By host and by exe: {"out", "in", "connections",
	 * "ms", "total"} (total = out + in, which ranks them).
	 */
	struct audit_bytes bytes, unattributed;
	bool		 bytes_saturated;
	json_t		*bytes_hosts, *bytes_exes;
	/* "CONN RUN" -> exe: open connections' programs, from allow lines */
	json_t		*conns;
};

/*
 * audit_unlogged.c: a line for refusals answered without their own (SPEC
 * 5 log_wait), its counts added: 0; -1 with why.
 */
int		 audit_unlogged(struct audit *, json_t *, char *why,
		    size_t whylen);

/*
 * audit_close.c: an allowed connection's program, from its decision line
 * (exe NULL: none known), until its close line; 0, -1 out of memory.
 */
int		 audit_conn_open(struct audit *, const char *run,
		    json_int_t conn, const char *exe);
/* A close line: its shape checked, its bytes summed: 0; -1 with why. */
int		 audit_close(struct audit *, json_t *, char *why,
		    size_t whylen);

/* Every key of a map with its count, most first, ties by key. */
struct audit_rank {
	const char	*key;
	json_int_t	 n;
	json_t		*value;
};
struct audit_rank *audit_ranked(const json_t *map, const char *count_key,
		    size_t *n);

/* "host:port", "[v6]:port": a request's target as a key and for people. */
void		 audit_target(const char *host, json_int_t port, char *buf,
		    size_t len);
/* An integer member of an object (0 when absent). */
json_int_t	 audit_int(const json_t *o, const char *key);

/*
 * audit --suggest --full's settings (suggest_need.c): each name target
 * ("host:port") and an address it reached (as logged) in; out, the
 * allow_loopback and exempt lines that let them all through, each with a
 * comment naming who needs it and why it is a security decision.
 */
struct suggest_needs;
struct suggest_needs *suggest_needs_new(void);
void		 suggest_needs_free(struct suggest_needs *);
int		 suggest_needs_add(struct suggest_needs *, const char *target,
		    const char *addr);
int		 suggest_needs_print(struct suggest_needs *, FILE *);
/* A metadata address, or one carrying one (NAT64 and the like). */
bool		 suggest_holds_metadata(const struct egress_addr *);

int		 audit_print_text(const struct audit *, FILE *, size_t top);
int		 audit_print_json(const struct audit *, FILE *, size_t top);

#endif
