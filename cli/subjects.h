/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The statement's subjects (SPEC 7.1): where each lies, and taking their
 * digests at exit with no more rights than the command had.
 */
#ifndef CLI_SUBJECTS_H
#define CLI_SUBJECTS_H

#include <stdbool.h>

#include "sandbox/sandbox.h"

struct options;
struct report;

/* How one subject is read at exit. */
struct subject_how {
	char		*root;	/* run mode: the root it lies beneath */
	char		*rel;	/* its path beneath root */
	bool		 own;	/* our own file (the decision log) */
};

/*
 * Run mode, before anything starts: each subject but our own must lie
 * beneath the workspace or a --write-root, named without "..", and not
 * at or under a --read-deny-root.  -1 after saying why (a usage error).
 */
int	subjects_place(struct report *, const struct options *,
	    const struct sandbox_request *);

/* Run mode: what the command ran under (its rights are read from it). */
void	subjects_plan(struct report *, const struct sandbox_plan *);

/*
 * Take each subject's digest now, each in a short-lived child with the
 * command's rights; one refused is said on stderr.  1 when any was.
 */
int	subjects_take(struct report *);

void	subjects_free(struct report *);

#endif
