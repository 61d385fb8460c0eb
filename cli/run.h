/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CLI_RUN_H
#define CLI_RUN_H

#include "cli/options.h"
#include "cli/report.h"
#include "sandbox/sandbox.h"

/*
 * Run mode: proxy plus confined command; takes the conf, records in rep.
 * The exit code.
 */
int	run_mode(const struct options *, struct conf *, struct report *);

/*
 * The command failed: one stderr line for each path among its arguments
 * (at most a few) that exists but that the sandbox surely hides from it.
 */
void	run_hint_paths(const struct sandbox_request *,
	    const struct sandbox_plan *, char *const *argv);

#endif
