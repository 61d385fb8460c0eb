/*
 * attest: the signed run report (SPEC 7), its verification, Ed25519 keys,
 * and summaries of decision logs for auditors.  No sockets and no event
 * loop: files only where a function names one.
 */
#ifndef ATTEST_ATTEST_H
#define ATTEST_ATTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "egress/egress.h"

#define ATTEST_SCHEMA		"harn.egress.attestation.v1"
#define ATTEST_SIGNED_PREFIX	"harn egress attestation v1\n"
#define ATTEST_ERR_MAX		512

/* An Ed25519 key, private or public. */
struct attest_key;

/* A PEM key file; NULL with err saying what is wrong with it. */
struct attest_key	*attest_key_read_private(const char *path, char *err,
			    size_t errlen);
struct attest_key	*attest_key_read_public(const char *path, char *err,
			    size_t errlen);
void			 attest_key_free(struct attest_key *);

/*
 * A new key: path gets the private key (PKCS#8 PEM, mode 0600) and
 * path.pub the public key (SubjectPublicKeyInfo PEM).  Neither file may
 * exist already.
 */
int	attest_keygen(const char *path, char *err, size_t errlen);

/* What the report says of the policy in force. */
struct attest_policy {
	char		 source[4096];	/* path, "env" or "default" */
	unsigned char	 sha256[32];	/* of the bytes it was read from */
	bool		 default_allow, block_private, allow_loopback;
	uint64_t	 rules;
	uint64_t	 reloads;	/* SIGHUPs that replaced it */
};

/* What the report says of the sandbox; the report has null without one. */
struct attest_sandbox {
	const char	*profile;
	const char	*confinement;	/* "namespaces", "landlock"; NULL: none */
	const char	*network_mode;
	int		 landlock_abi;	/* 0: Landlock not applied */
	bool		 seccomp;
	const char	*namespaces[8];	/* NULL-terminated, sorted */
};

/* The decision log's bytes written by this process. */
struct attest_log {
	unsigned char	 sha256[32];
	uint64_t	 records;
	uint64_t	 bytes;
	uint64_t	 lost;		/* records that could not be written */
	int64_t		 offset;	/* where they start in the file; -1: no file */
	bool		 complete;	/* every record written and digested */
};

struct attest_report {
	char			 run_id[33];
	int64_t			 started_ms, ended_ms;	/* Unix time */
	char *const		*argv;		/* NULL: service mode */
	struct attest_policy	 policy;
	const struct attest_sandbox *sandbox;	/* NULL: service mode */
	char			 listen[16][64];
	size_t			 nlisten;
	uint64_t		 allow, deny;
	uint64_t		 by_reason[EGRESS_R_COUNT];
	struct attest_log	 log;
	bool			 exited;	/* false: exit is null */
	int			 exit_code;
	int			 exit_signal;	/* 0: none */
};

/* Text a report can hold: valid UTF-8 without NUL. */
bool	attest_is_utf8(const char *);

/* SHA-256 of a buffer; -1 when OpenSSL fails. */
int	attest_sha256(const void *, size_t, unsigned char out[32]);

/* 32 lower-case hex digits from the kernel's random source. */
void	attest_run_id(char out[33]);

/* SHA-256 of argv, each element followed by one NUL (SPEC 7); 0 or -1. */
int	attest_argv_sha256(char *const *argv, unsigned char out[32]);

/*
 * Where the report goes, checked and held open from the start: a later
 * rename of its directory (by the confined command, say) does not move
 * where it is written.
 */
struct attest_out;
struct attest_out	*attest_out_open(const char *path, char *err,
			    size_t errlen);
void			 attest_out_free(struct attest_out *);

/*
 * Write the report, signed with key when not NULL, to a temporary file
 * beside its destination and rename it into place.
 */
int	attest_write(struct attest_out *, const struct attest_report *,
	    const struct attest_key *, char *err, size_t errlen);

/* No report is larger. */
#define ATTEST_REPORT_MAX	(1024 * 1024)

/*
 * Verify a report's bytes: schema, canonical form, signature, key id and,
 * with log_path, the log's digest and record count.  Returns 0 when every
 * check holds, 1 when one fails (*failed names it, why says what was
 * found), -1 when the log cannot be read (why says why).
 */
int	attest_verify(const char *text, size_t len,
	    const struct attest_key *pub, const char *log_path,
	    const char **failed, char *why, size_t whylen);

/* Summaries of decision logs (the audit command). */
struct audit;

struct audit	*audit_new(void);
void		 audit_free(struct audit *);

/*
 * Count one line of a decision log (without its newline).  Returns 0 when
 * it is a valid record, -1 when it is malformed: then it is counted as
 * such, and why says what is wrong.
 */
int		 audit_line(struct audit *, const char *line, size_t len,
		    char *why, size_t whylen);

/* Count a line the caller could not hand over whole (too long). */
void		 audit_malformed(struct audit *);

/* Totals, by decision, reason and protocol, and the top hosts. */
int		 audit_print(const struct audit *, FILE *, bool json,
		    size_t top);

#endif
