/*
 * verify --pubkey FILE [--log FILE] REPORT: exit 0 only when every check
 * of SPEC 7 holds, 1 naming the first that failed, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/attest.h"
#include "cli/cli.h"

int
cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pubkey", required_argument, NULL, 'p' },
		{ "log", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	const char *pubkey = NULL, *log = NULL, *failed;
	char err[ATTEST_ERR_MAX], *text;
	struct attest_key *key;
	size_t len;
	int ch, rv;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if (ch == 'p')
			pubkey = optarg;
		else if (ch == 'l')
			log = optarg;
		else
			goto usage;
	}
	if (pubkey == NULL || optind != argc - 1)
		goto usage;
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
	rv = attest_verify(text, len, key, log, &failed, err, sizeof(err));
	free(text);
	attest_key_free(key);
	if (rv == 0) {
		printf("%s: ok: schema, canonical, signature, key_id%s\n",
		    argv[optind], log ? ", log_sha256, log_records" : "");
		return 0;
	}
	cli_error("verify: %s: FAILED %s: %s", argv[optind],
	    failed ? failed : "report", err);
	return EXIT_RUNTIME;
usage:
	cli_error("usage: harn-egressd verify --pubkey FILE [--log FILE] "
	    "REPORT");
	return EXIT_USAGE;
}
