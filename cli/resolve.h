/* explain --resolve: the proxy's resolver and verdict code, without a proxy. */
#ifndef CLI_RESOLVE_H
#define CLI_RESOLVE_H

#include "conf/conf.h"

typedef void (*cli_print_fn)(const char *arg, const struct egress_verdict *,
    const char *extra);

/* Judge every target, resolving where needed; print in argument order. */
int	cli_resolve_and_judge(const struct conf *, const struct egress_target *,
	    char **args, int n, cli_print_fn);

#endif
