/*
 * The attestation report of one service or run (SPEC 7): what to record
 * as the run goes, and writing it at the end.
 */
#ifndef CLI_REPORT_H
#define CLI_REPORT_H

#include <stdbool.h>

#include "attest/attest.h"
#include "cli/options.h"
#include "conf/conf.h"
#include "proxy/proxy.h"

struct report {
	struct attest_out	*out;		/* NULL: no --attest */
	struct attest_key	*key;		/* NULL: unsigned */
	struct attest_report	 r;
	struct attest_sandbox	 sandbox;
};

/*
 * Start the report: the run id and the start time, and with --attest the
 * destination and the key, checked now so that a bad one stops everything
 * before it starts.  Prints the error and returns -1 on a usage error.
 */
int	report_open(struct report *, const struct options *);

/* The policy now in force; reload: it replaced an earlier one. */
void	report_policy(struct report *, const struct conf *, bool reload);

/* Where the decision log's bytes of this run start. */
void	report_log_fd(struct report *, int fd);

void	report_listen(struct report *, const char *bound);

/* The decision log's totals, flushed: taken before the log is freed. */
void	report_log(struct report *, struct dlog *);

/*
 * Write the report when asked for and write is true, then free what
 * report_open took.  Prints the error and returns -1 when the report
 * could not be written.
 */
int	report_close(struct report *, bool write);

#endif
