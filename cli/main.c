/* harn-egressd: an egress proxy and sandbox for untrusted commands. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli/cli.h"

static const char usage_text[] =
"usage: harn-egressd --policy FILE [options]                  proxy on loopback\n"
"       harn-egressd --policy FILE [options] -- CMD [ARG...]  run CMD confined\n"
"       harn-egressd check   --policy FILE\n"
"       harn-egressd explain --policy FILE [--resolve] TARGET...\n"
"       harn-egressd --version | --help\n";

static const struct {
	const char	*name;
	int		(*fn)(int, char **);
} commands[] = {
	{ "check", cmd_check },
	{ "explain", cmd_explain },
};

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
	cli_error("the proxy (service and run mode) is not built yet; "
	    "available: check, explain");
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}
