/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The attestation report of one service or run (SPEC 7, and 7.1 for the
 * in-toto form): what to record as the run goes, and writing it at the
 * end.
 */
#ifndef CLI_REPORT_H
#define CLI_REPORT_H

#include <stdbool.h>
#include <sys/stat.h>

#include "attest/attest.h"
#include "cli/options.h"
#include "conf/conf.h"
#include "proxy/proxy.h"
#include "sandbox/sandbox.h"

struct report {
	struct attest_out	*out;		/* NULL: no --attest */
	struct attest_key	*key;		/* NULL: unsigned */
	struct stat		 key_st;	/* its file, never a subject */
	const char		*path;
	struct attest_subject	*subjects;	/* dsse: taken at the end */
	struct subject_how	*how;		/* how each is read (subjects.c) */
	uint64_t		 subject_max;	/* --attest-subject-max */
	bool			 run;		/* run mode: the command's rights */
	struct sandbox_plan	 plan;		/* what the command ran under */
	struct attest_report	 r;
	struct attest_sandbox	 sandbox;
	bool			 started;	/* past the usage checks */
	struct stat		 log_st;	/* the log file, when a file */
	bool			 log_moved;
	unsigned		 log_reopened;	/* SIGHUP rotations */
};

/*
 * Start the report: the run id and the start time, and with --attest the
 * destination and the key, checked now so that a bad one stops everything
 * before it starts.  Prints the error and returns -1 on a usage error.
 */
int	report_open(struct report *, const struct options *);

/*
 * The policy now in force; reload: it replaced an earlier one.  -1 after
 * saying why the report could not hold it.
 */
int	report_policy(struct report *, const struct conf *, bool reload);

/*
 * The decision log is open: where this run's bytes start, and which file
 * it is.  -1 after saying why (it is the report itself).
 */
int	report_log_fd(struct report *, int fd);

void	report_listen(struct report *, const char *bound);

/*
 * The decision log's totals, flushed: taken before the log is freed.
 * path (NULL: stderr) must still lead to the log's file.
 */
void	report_log(struct report *, struct dlog *, const char *path);

/*
 * Write the report when asked for and write is true (a statement's
 * subjects are taken now), then free what report_open took.  Prints the
 * error and returns -1 when the report could not be written, 1 when it
 * was but a subject could not be taken (the statement says which).
 */
int	report_close(struct report *, bool write);
/* Run mode: the command's end, and the sandbox that was in force. */
void	report_exit(struct report *, int code, int wstatus);
void	report_sandbox(struct report *, const struct sandbox_plan *);

#endif
