#ifndef CLI_SERVE_H
#define CLI_SERVE_H

#include "cli/options.h"
#include "cli/report.h"

/* Open the decision log (NULL or "-": stderr); -1 after saying why. */
int	serve_open_log(const char *path);
/* Service mode; takes the conf, records in rep.  The exit status. */
int	serve(const struct options *, struct conf *, struct report *);

#endif
