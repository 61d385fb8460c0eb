/* harn-egressd: an egress proxy and sandbox for untrusted commands. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/run.h"
#include "cli/serve.h"

static const char usage_text[] =
"usage: harn-egressd --policy FILE [--listen ADDR:PORT]... [--port-file F] [--log F]\n"
"       harn-egressd --policy FILE [options] -- CMD [ARG...]  run CMD confined\n"
"       harn-egressd --policy FILE [--profile P] [--workspace DIR] [--env NAME]...\n"
"                    [--read-only-root DIR]... [--write-root DIR]... [--read-deny-root PATH]...\n"
"                    [--no-sandbox] -- CMD [ARG...]                    run CMD confined\n"
"       harn-egressd doctor  [--json]\n"
"       harn-egressd check   --policy FILE\n"
"       harn-egressd explain --policy FILE [--resolve] TARGET...\n"
"       harn-egressd --version | --help\n";

static const struct {
	const char	*name;
	int		(*fn)(int, char **);
} commands[] = {
	{ "check", cmd_check },
	{ "explain", cmd_explain },
	{ "doctor", cmd_doctor },
};

/* Service mode, or run mode with a command after --. */
static int
service_or_run(int argc, char **argv)
{
	struct options opt;
	struct conf *c;

	if (options_parse(argc, argv, &opt) == -1)
		return EXIT_USAGE;
	if (opt.attest != NULL || opt.sign_key != NULL) {
		cli_error("--attest and --sign-key are not built yet: "
		    "nothing was started");
		return EXIT_USAGE;
	}
	if ((c = cli_load_policy(opt.policy)) == NULL)
		return EXIT_USAGE;
	if (opt.cmd != NULL)
		return run_mode(&opt, c);
	return serve(&opt, c);
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
		fputs(usage_text, stdout);
		return 0;
	}
	for (i = 0; argc >= 2 && i < sizeof(commands) / sizeof(commands[0]);
	    i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	return service_or_run(argc, argv);
}
