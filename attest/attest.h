/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest: the signed run report (SPEC 7), the same report as an in-toto
 * statement in a DSSE envelope (SPEC 7.1), their verification, Ed25519
 * keys, and summaries of decision logs for auditors.  No sockets and no
 * event loop: files only where a function names one.
 */
#ifndef ATTEST_ATTEST_H
#define ATTEST_ATTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "egress/egress.h"

#define ATTEST_SCHEMA		"harn.egress.attestation.v1"
#define ATTEST_SIGNED_PREFIX	"harn egress attestation v1\n"
#define ATTEST_ERR_MAX		512

/* SPEC 7.1: the envelope's payload type, the statement and our predicate. */
#define ATTEST_DSSE_PAYLOAD_TYPE	"application/vnd.in-toto+json"
#define ATTEST_STATEMENT_TYPE		"https://in-toto.io/Statement/v1"
#define ATTEST_PREDICATE_TYPE	"https://harn-egressd.dev/attestation/v1"

enum attest_format {
	ATTEST_JSON,		/* the report of SPEC 7 */
	ATTEST_DSSE		/* an in-toto statement in a DSSE envelope */
};

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
	bool		 report;	/* mode report */
	char		 upstream[80];	/* "http://ADDR:PORT", "" for none */
	bool		 upstream_parent; /* upstream_resolve parent (8.3) */
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

/*
 * A subject of the statement: a file named as given, and its SHA-256 taken
 * at exit; refused says why it was not (ATTEST_REFUSED_*, one word, the
 * statement's subjects_refused), NULL when it was taken.
 */
struct attest_subject {
	const char	*name;
	unsigned char	 sha256[32];
	const char	*refused;
	int		 err;		/* the errno behind it; 0: none */
	uint64_t	 size;		/* too_large: the file's size */
};

#define ATTEST_REFUSED_NOT_FOUND	"not_found"	/* nothing at the name */
#define ATTEST_REFUSED_SYMLINK		"symlink"	/* a link on its path */
#define ATTEST_REFUSED_NOT_REGULAR	"not_regular"	/* FIFO, /proc... */
#define ATTEST_REFUSED_TOO_LARGE	"too_large"	/* over the max */
#define ATTEST_REFUSED_PERMISSION	"permission"	/* not readable so */
#define ATTEST_REFUSED_CHANGED		"changed"	/* while it was read */
#define ATTEST_REFUSED_KEY		"signing_key"	/* the key that signs */
#define ATTEST_REFUSED_TIMEOUT		"timeout"	/* a hung filesystem */
#define ATTEST_REFUSED_ERROR		"error"		/* I/O and the rest */

/* The largest subject hashed unless --attest-subject-max says otherwise. */
#define ATTEST_SUBJECT_MAX_DEFAULT	(1ULL << 30)

struct attest_report {
	enum attest_format	 format;
	const struct attest_subject *subjects;	/* ATTEST_DSSE */
	size_t			 nsubjects;
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

/* How a subject is taken. */
struct attest_take {
	bool		 follow;	/* links followed (verify: its own file) */
	uint64_t	 max;		/* the largest size hashed */
	const struct stat *avoid;	/* never this file (the signing key) */
	void		(*tick)(void *);	/* called as reading goes on */
	void		*arg;
};

/*
 * Take a subject's SHA-256 now: path beneath the directory dir (then
 * nothing may lead out of it), or as named with dir AT_FDCWD.  Unless
 * how->follow, no symbolic link is followed anywhere on the path.  Only a
 * regular file outside /proc and /sys of at most how->max bytes is
 * opened for reading (never blocking, so a FIFO cannot hang it), exactly
 * its size is read, and one that changes meanwhile is refused.  0 with
 * s->refused NULL, or -1 with s->refused (and s->err, s->size) set.
 */
int	attest_subject_take(struct attest_subject *s, int dir,
	    const char *path, const struct attest_take *how);

/* The ATTEST_REFUSED_* constant spelled word; NULL: none is. */
const char *attest_subject_reason(const char *word);

/* Why s was refused, for a person (max: the limit it was held to). */
void	attest_subject_why(const struct attest_subject *s, uint64_t max,
	    char *buf, size_t len);

/*
 * Write the report in its format (r->format), signed with key when not
 * NULL, to a temporary file beside its destination and rename it into
 * place.  ATTEST_DSSE needs a key.
 */
int	attest_write(struct attest_out *, const struct attest_report *,
	    const struct attest_key *, char *err, size_t errlen);

/* No report is larger. */
#define ATTEST_REPORT_MAX	(1024 * 1024)

/* What verify checks besides the report itself, and what it found. */
struct attest_check {
	const char		*log;		/* NULL: not checked */
	const char *const	*subjects;	/* files the statement names */
	size_t			 nsubjects;
	enum attest_format	 form;		/* out: the form it was given */
};

/*
 * Verify a report's bytes, in either form.  The JSON form: schema,
 * canonical form, signature and key id.  The envelope: its shape, the
 * signature over DSSE's PAE by the key (its key id), the statement, its
 * canonical form, the predicate's schema, and that every subject was
 * taken.  Then, with c->log, the log's digest and record count, and each
 * of c->subjects against the statement's digest.  Returns 0 when every
 * check holds, 1 when one fails (*failed names it, why says what was
 * found), -1 when the log or a subject cannot be read (why says why).
 */
int	attest_verify(const char *text, size_t len,
	    const struct attest_key *pub, struct attest_check *c,
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

/*
 * Totals, by decision, reason and protocol, the top hosts, what report
 * mode let through, decisions by process, and refusals around the proxy.
 */
int		 audit_print(const struct audit *, FILE *, bool json,
		    size_t top);
/*
 * A policy admitting exactly what the logs asked for (allowed, let
 * through by report mode, refused by the rules): allow HOST:PORT lines,
 * sorted, commented; never a special-purpose address or a wildcard.
 */
int		 audit_suggest(const struct audit *, FILE *);
/*
 * The same as a whole policy that check accepts: mode enforce, default
 * deny, block_private on, the allow_loopback and exempt lines the logged
 * addresses of names need (each commented: a security decision), and the
 * allow lines, also for targets refused private_address or whose connects
 * failed; a special-purpose address asked for by itself gets its own
 * allow ADDR:PORT, a metadata address never.
 */
int		 audit_suggest_full(const struct audit *, FILE *);
/*
 * The summary as one self-contained HTML page (inline SVG, no script,
 * nothing from the network); every figure names the audit --json member
 * it equals (data-key, data-parent, data-name).
 */
int		 audit_html(const struct audit *, FILE *, size_t top);

#endif
