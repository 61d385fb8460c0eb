/* SPDX-License-Identifier: Apache-2.0 */
/* keygen --out FILE: an Ed25519 key pair for signing reports. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "attest/attest.h"
#include "cli/cli.h"

int
cmd_keygen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	char err[ATTEST_ERR_MAX];
	const char *out = NULL;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if (ch != 'o')
			goto usage;
		out = optarg;
	}
	if (out == NULL || optind != argc)
		goto usage;
	if (attest_keygen(out, err, sizeof(err)) == -1) {
		cli_error("keygen: %s", err);
		return EXIT_RUNTIME;
	}
	printf("harn-egressd: private key %s (mode 0600), public key %s.pub\n",
	    out, out);
	return 0;
usage:
	cli_error("usage: harn-egressd keygen --out FILE");
	return EXIT_USAGE;
}
