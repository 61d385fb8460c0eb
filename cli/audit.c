/* Placeholder: being written (issue 5). */
#include "cli/cli.h"

int
cmd_audit(int argc, char **argv)
{
	cli_error("audit: not built yet");
	return EXIT_USAGE;
}
