/* SPDX-License-Identifier: Apache-2.0 */
/* explain --resolve: the proxy's resolver and verdict code, without a proxy. */
#ifndef CLI_RESOLVE_H
#define CLI_RESOLVE_H

#include "conf/conf.h"

/* One target's line; addr is the address resolved and judged, or NULL. */
typedef void (*cli_print_fn)(const struct conf *, const char *arg,
    const struct egress_target *, const struct egress_verdict *,
    const struct egress_addr *addr);

/* Judge every target, resolving where needed; print in argument order. */
int	cli_resolve_and_judge(const struct conf *, const struct egress_target *,
	    char **args, int n, cli_print_fn);

#endif
