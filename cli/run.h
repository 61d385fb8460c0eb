#ifndef CLI_RUN_H
#define CLI_RUN_H

#include "cli/options.h"

/* Run mode: proxy plus confined command; takes the conf; the exit code. */
int	run_mode(const struct options *, struct conf *);

#endif
