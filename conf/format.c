/* SPDX-License-Identifier: Apache-2.0 */
/* The effective policy as text: every setting shown, one rule a line. */
#include <stdio.h>
#include <stdlib.h>

#include "conf/conf.h"

static void
print_duration(FILE *f, const char *name, uint32_t ms)
{
	if (ms != 0 && ms % 60000 == 0)
		fprintf(f, "%s %um\n", name, ms / 60000);
	else if (ms != 0 && ms % 1000 == 0)
		fprintf(f, "%s %us\n", name, ms / 1000);
	else
		fprintf(f, "%s %ums\n", name, ms);
}

static void
print_settings(FILE *f, const struct conf *c)
{
	char buf[64];
	size_t i;

	fprintf(f, "default %s\n",
	    egress_policy_default_allow(c->policy) ? "allow" : "deny");
	fprintf(f, "block_private %s\n",
	    egress_policy_block_private(c->policy) ? "on" : "off");
	fprintf(f, "allow_loopback %s\n",
	    egress_policy_allow_loopback(c->policy) ? "on" : "off");
	if (egress_policy_report(c->policy))
		fprintf(f, "# report mode: what the rules refuse is let through "
		    "and logged report_only\n");
	fprintf(f, "mode %s\n", egress_policy_report(c->policy) ? "report" :
	    "enforce");
	fprintf(f, "transparent %s\n", c->transparent ? "on" : "off");
	if (c->has_upstream) {
		conf_sockaddr_format(&c->upstream, buf, sizeof(buf));
		fprintf(f, "upstream http://%s\n", buf);
		if (c->upstream_parent)
			fprintf(f, "# upstream_resolve parent: names go to the "
			    "parent unresolved; address rules judge address "
			    "literals only\n");
		fprintf(f, "upstream_resolve %s\n", c->upstream_parent ?
		    "parent" : "local");
	}
	if (c->nresolver == 0)
		fprintf(f, "# resolver: the system's (/etc/resolv.conf)\n");
	for (i = 0; i < c->nresolver; i++) {
		conf_sockaddr_format(&c->resolver[i], buf, sizeof(buf));
		fprintf(f, "resolver %s\n", buf);
	}
	if (c->nlisten == 0)
		fprintf(f, "# listen: 127.0.0.1:0 unless --listen is given\n");
	for (i = 0; i < c->nlisten; i++) {
		conf_sockaddr_format(&c->listen[i], buf, sizeof(buf));
		fprintf(f, "listen %s\n", buf);
	}
	print_duration(f, "connect_timeout", c->connect_timeout);
	print_duration(f, "dns_timeout", c->dns_timeout);
	print_duration(f, "header_timeout", c->header_timeout);
	print_duration(f, "idle_timeout", c->idle_timeout);
	print_duration(f, "drain_timeout", c->drain_timeout);
	fprintf(f, "max_connections %u\n", c->max_connections);
	fprintf(f, "max_header_bytes %u\n", c->max_header_bytes);
	if (c->listen_backlog == 0)
		fprintf(f, "# listen_backlog: max_connections, at most "
		    "net.core.somaxconn\n");
	else
		fprintf(f, "listen_backlog %u\n", c->listen_backlog);
	fprintf(f, "log_failure_action %s\n", c->log_failure_serve ? "serve" :
	    "refuse");
	print_duration(f, "log_wait", c->log_wait);
}

char *
conf_format(const struct conf *c)
{
	const struct egress_rule *r;
	char *buf = NULL, rule[EGRESS_HOST_MAX + 16];
	size_t len = 0, i;
	FILE *f;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	print_settings(f, c);
	for (i = 0; i < egress_policy_nrules(c->policy); i++) {
		r = egress_policy_rule(c->policy, i);
		egress_rule_format(r, rule, sizeof(rule));
		fprintf(f, "%s %s\n", r->allow ? "allow" : "deny", rule);
	}
	for (i = 0; i < egress_policy_nexempts(c->policy); i++) {
		egress_rule_format(egress_policy_exempt(c->policy, i), rule,
		    sizeof(rule));
		fprintf(f, "exempt %s\n", rule);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
