/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CLI_SERVE_H
#define CLI_SERVE_H

#include "cli/options.h"
#include "cli/report.h"

/*
 * Open the decision log (NULL or "-": stderr), never through a symlink;
 * -1 after saying why.
 */
int	serve_open_log(const char *path);
/* The port of bound ("ADDR:PORT"), one line, written whole or not at all. */
int	serve_write_port_file(const char *path, const char *bound);
/*
 * --metrics on px, if given: where it listens in bound ("" none); -1
 * after saying why.
 */
struct proxy;
int	serve_metrics(struct proxy *, const struct options *, char *bound,
	    size_t boundlen);
/* Service mode; takes the conf, records in rep.  The exit status. */
int	serve(const struct options *, struct conf *, struct report *);

#endif
