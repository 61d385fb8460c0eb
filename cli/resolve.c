/* SPDX-License-Identifier: Apache-2.0 */
/*
 * explain --resolve: one event loop, every lookup in flight at once,
 * verdicts printed in the order the targets were given.
 */
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/resolve.h"
#include "dns/dns.h"

struct lookup {
	const struct conf		*conf;
	const struct egress_target	*target;
	struct egress_verdict		 pending; /* before DNS */
	struct egress_verdict		 verdict;
	struct egress_addr		 addr;	/* the one connected to, or that denied */
	bool				 has_addr;
};

static void
lookup_done(enum dns_status st, const struct egress_addr *addrs, size_t n,
    void *arg)
{
	struct lookup *lk = arg;

	if (st != DNS_OK)
		n = 0;
	egress_judge_addrs(lk->conf->policy, lk->target, &lk->pending, addrs,
	    n, NULL, 0, &lk->verdict);
	if (n > 0) {
		lk->addr = addrs[lk->verdict.decision == EGRESS_DENY ?
		    lk->verdict.addr_index : 0];
		lk->has_addr = true;
	}
}

static void
print_all(struct lookup *lk, char **args, int n, cli_print_fn print)
{
	int i;

	for (i = 0; i < n; i++)
		print(lk[i].conf, args[i], lk[i].target, &lk[i].verdict,
		    lk[i].has_addr ? &lk[i].addr : NULL);
}

int
cli_resolve_and_judge(const struct conf *c, const struct egress_target *t,
    char **args, int n, cli_print_fn print)
{
	struct dns_server servers[CONF_MAX_RESOLVERS];
	struct dns_resolver *res = NULL;
	struct event_base *base;
	struct lookup *lk;
	char err[256];
	size_t i;
	int k, rv = EXIT_RUNTIME;

	if ((lk = calloc(n, sizeof(*lk))) == NULL ||
	    (base = event_base_new()) == NULL) {
		free(lk);
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	for (i = 0; i < c->nresolver; i++) {
		servers[i].addr = c->resolver[i].addr;
		servers[i].port = c->resolver[i].port;
	}
	res = dns_resolver_new(base, c->nresolver ? servers : NULL,
	    c->nresolver, c->dns_timeout, err, sizeof(err));
	if (res == NULL) {
		cli_error("resolver: %s", err);
		goto out;
	}
	for (k = 0; k < n; k++) {
		lk[k].conf = c;
		lk[k].target = &t[k];
		egress_judge_target(c->policy, &t[k], NULL, 0, &lk[k].pending);
		lk[k].verdict = lk[k].pending;
		if (lk[k].pending.decision != EGRESS_RESOLVE)
			continue;
		if (dns_resolve(res, t[k].host, lookup_done, &lk[k]) == NULL)
			lookup_done(DNS_ERROR, NULL, 0, &lk[k]);
	}
	if (event_base_dispatch(base) == -1) {
		cli_error("event loop failed");
		goto out;
	}
	print_all(lk, args, n, print);
	rv = 0;
out:
	dns_resolver_free(res);
	event_base_free(base);
	free(lk);
	return rv;
}
