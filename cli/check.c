/* SPDX-License-Identifier: Apache-2.0 */
/* check: validate a policy and print it as it will be enforced. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

int
cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	const char *path = NULL;
	struct conf *c;
	char *text;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			path = optarg;
			break;
		default:
			cli_error("usage: harn-egressd check --policy FILE");
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		cli_error("check: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if ((c = cli_load_policy(path)) == NULL)
		return EXIT_USAGE;
	if ((text = conf_format(c)) == NULL) {
		cli_error("out of memory");
		conf_free(c);
		return EXIT_RUNTIME;
	}
	printf("# harn-egressd: policy from %s is valid (%zu rules%s)\n%s",
	    c->source, egress_policy_nrules(c->policy),
	    egress_policy_report(c->policy) ? ", report mode: nothing its "
	    "rules refuse is refused" : "", text);
	free(text);
	conf_free(c);
	return fflush(stdout) == 0 ? 0 : EXIT_RUNTIME;
}
