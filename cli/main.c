/* SPDX-License-Identifier: Apache-2.0 */
/* harn-egressd: an egress proxy and sandbox for untrusted commands. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/report.h"
#include "cli/run.h"
#include "cli/serve.h"

static const struct {
	const char	*name;
	int		(*fn)(int, char **);
} commands[] = {
	{ "check", cmd_check },
	{ "explain", cmd_explain },
	{ "doctor", cmd_doctor },
	{ "keygen", cmd_keygen },
	{ "verify", cmd_verify },
	{ "audit", cmd_audit },
};

/*
 * The listeners the mode will open (run mode: loopback; service mode:
 * --listen, else the policy's listen lines, else loopback) are not
 * exempted: refused before anything starts.
 */
static int
exempts_own(const struct options *opt, const struct conf *c)
{
	const struct conf_sockaddr *l = &cli_loopback;
	size_t n = 1;
	char err[512];

	if (opt->cmd == NULL && opt->nlisten > 0) {
		l = opt->listen;
		n = opt->nlisten;
	} else if (opt->cmd == NULL && c->nlisten > 0) {
		l = c->listen;
		n = c->nlisten;
	}
	if (proxy_exempt_check(c, l, n, err, sizeof(err)) == -1) {
		cli_error("%s", err);
		return -1;
	}
	return 0;
}

/* Service mode, or run mode with a command after --. */
static int
service_or_run(int argc, char **argv)
{
	struct options opt;
	struct report rep;
	struct conf *c;
	int rv;

	if (options_parse(argc, argv, &opt) == -1)
		return EXIT_USAGE;
	if ((c = cli_load_policy(opt.policy)) == NULL)
		return EXIT_USAGE;
	if (exempts_own(&opt, c) == -1) {
		conf_free(c);
		return EXIT_USAGE;
	}
	if (report_open(&rep, &opt) == -1 ||
	    report_policy(&rep, c, false) == -1) {
		report_close(&rep, false);
		conf_free(c);
		return EXIT_USAGE;
	}
	rv = opt.cmd != NULL ? run_mode(&opt, c, &rep) : serve(&opt, c, &rep);
	/*
	 * A usage error started nothing: only what started is reported.  A
	 * subject not taken fails a run that otherwise succeeded; a command's
	 * own failure (which may be why an output is missing) stays its own.
	 */
	switch (report_close(&rep, rep.started)) {
	case -1:
		rv = EXIT_RUNTIME;
		break;
	case 1:
		if (rv == 0)
			rv = EXIT_RUNTIME;
		break;
	}
	return rv;
}

/*
 * A first word that is neither an option nor a command: a misspelt
 * command, or a command to run written without --.
 */
static int
unknown_command(const char *word)
{
	const char *names[sizeof(commands) / sizeof(commands[0])], *near;
	size_t i, n = sizeof(commands) / sizeof(commands[0]);

	for (i = 0; i < n; i++)
		names[i] = commands[i].name;
	if ((near = cli_nearest(word, names, n)) != NULL)
		cli_error("unknown command '%s' (did you mean '%s'? commands: "
		    "check explain verify audit doctor keygen; a command to "
		    "run goes after --)", word, near);
	else
		cli_error("unknown command '%s' (commands: check explain verify "
		    "audit doctor keygen; to run it confined: harn-egressd "
		    "--policy FILE -- %s)", word, word);
	return EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	size_t i;

	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("harn-egressd %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		cli_help(stdout);
		return fflush(stdout) == 0 ? 0 : EXIT_RUNTIME;
	}
	/* getopt says nothing itself: every error is one harn-egressd line. */
	opterr = 0;
	for (i = 0; argc >= 2 && i < sizeof(commands) / sizeof(commands[0]);
	    i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	if (argc >= 2 && argv[1][0] != '-')
		return unknown_command(argv[1]);
	return service_or_run(argc, argv);
}
