/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verify --pubkey FILE [--log FILE] [--subject FILE]... REPORT: exit 0
 * only when every check of SPEC 7 (a report) or 7.1 (an envelope) holds,
 * 1 naming the first that failed, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/attest.h"
#include "cli/cli.h"
#include "cli/options.h"

/* What held, as the success line says it. */
static void
say_ok(const char *report, const struct attest_check *c)
{
	if (c->form == ATTEST_JSON)
		printf("%s: ok: schema, canonical, signature, key_id%s\n",
		    report, c->log ? ", log_sha256, log_records" : "");
	else
		printf("%s: ok: envelope, signature, key_id, statement, "
		    "canonical, schema, subjects%s%s\n", report,
		    c->log ? ", log_sha256, log_records" : "",
		    c->nsubjects > 0 ? ", subject_sha256" : "");
}

static int
usage(void)
{
	cli_error("usage: harn-egressd verify --pubkey FILE [--log FILE] "
	    "[--subject FILE]... REPORT");
	return EXIT_USAGE;
}

int
cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pubkey", required_argument, NULL, 'p' },
		{ "log", required_argument, NULL, 'l' },
		{ "subject", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *subjects[OPT_MAX_SUBJECTS];
	struct attest_check c = { .subjects = subjects };
	const char *pubkey = NULL, *failed;
	char err[ATTEST_ERR_MAX], *text;
	struct attest_key *key;
	size_t len;
	int ch, rv;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if (ch == 'p')
			pubkey = optarg;
		else if (ch == 'l')
			c.log = optarg;
		else if (ch == 's' && c.nsubjects == OPT_MAX_SUBJECTS) {
			cli_error("verify: more than %d --subject options",
			    OPT_MAX_SUBJECTS);
			return EXIT_USAGE;
		} else if (ch == 's')
			subjects[c.nsubjects++] = optarg;
		else
			return usage();
	}
	if (pubkey == NULL || optind != argc - 1)
		return usage();
	if ((key = attest_key_read_public(pubkey, err, sizeof(err))) == NULL) {
		cli_error("verify: --pubkey %s", err);
		return EXIT_USAGE;
	}
	if ((text = cli_read_file(argv[optind], ATTEST_REPORT_MAX, &len)) ==
	    NULL) {
		cli_error("verify: %s: FAILED %s: %s", argv[optind],
		    errno == EFBIG ? "json" : "report", errno == EFBIG ?
		    "larger than any report" : strerror(errno));
		attest_key_free(key);
		return EXIT_RUNTIME;
	}
	rv = attest_verify(text, len, key, &c, &failed, err, sizeof(err));
	free(text);
	attest_key_free(key);
	if (rv == 0) {
		say_ok(argv[optind], &c);
		return 0;
	}
	cli_error("verify: %s: FAILED %s: %s", argv[optind],
	    failed ? failed : "report", err);
	return EXIT_RUNTIME;
}
