#ifndef CLI_RUN_H
#define CLI_RUN_H

#include "cli/options.h"
#include "cli/report.h"

/*
 * Run mode: proxy plus confined command; takes the conf, records in rep.
 * The exit code.
 */
int	run_mode(const struct options *, struct conf *, struct report *);

#endif
