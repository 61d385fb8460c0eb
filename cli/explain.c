/* SPDX-License-Identifier: Apache-2.0 */
/*
 * explain: dry-run decisions, one line per target:
 * TARGET DECISION REASON [RULE].  With --resolve, names are resolved with
 * the policy's resolver and judged on their addresses, as the proxy would.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/resolve.h"

/* The target as the user typed it, with anything unprintable masked. */
static void
print_target(const char *s)
{
	size_t i, n = strlen(s);

	for (i = 0; i < n && i < 512; i++)
		putchar((s[i] > 0x20 && s[i] < 0x7f) ? s[i] : '?');
	if (n == 0)
		fputs("\"\"", stdout);
}

/*
 * What a person reading the line needs next, in parentheses: why a target
 * is invalid, the special-purpose block that refused an address (and the
 * directive that would lift it), an exempt that let one through, or that
 * the addresses still decide.
 */
static void
print_hint(const struct conf *c, const char *arg,
    const struct egress_verdict *v, const struct egress_addr *a)
{
	struct egress_target t;
	const struct egress_rule *ex;
	const char *err = NULL, *block;
	char net[EGRESS_HOST_MAX + 16], hint[200];

	if (v->reason == EGRESS_R_REPORT_ONLY)
		printf(" (mode report: enforcing would refuse it, %s%s)",
		    egress_reason_name(v->would),
		    v->decision == EGRESS_RESOLVE ? "; the addresses may still "
		    "refuse it: explain --resolve" : "");
	else if (v->reason == EGRESS_R_INVALID_TARGET &&
	    egress_target_parse(arg, strlen(arg), &t, &err) == -1 &&
	    err != NULL)
		printf(" (%s%s)", err, strcmp(err, "missing port") == 0 ?
		    ": give HOST:PORT or a URL" : "");
	else if (v->decision == EGRESS_RESOLVE)
		printf(" (the addresses decide: explain --resolve)");
	else if (a != NULL && v->reason == EGRESS_R_PRIVATE_ADDRESS &&
	    egress_special_hint(c->policy, a, hint, sizeof(hint)) > 0)
		printf(" (%s)", hint);
	else if (a != NULL && v->decision == EGRESS_ALLOW &&
	    (block = egress_registry_lookup(a)) != NULL &&
	    (v->rule == NULL || v->rule->kind != EGRESS_RULE_CIDR) &&
	    (ex = egress_policy_exempts(c->policy, a)) != NULL) {
		egress_rule_format(ex, net, sizeof(net));
		printf(" (special-purpose %s, exempt %s)", block, net);
	}
}

static void
print_verdict(const struct conf *c, const char *arg,
    const struct egress_target *t, const struct egress_verdict *v,
    const struct egress_addr *resolved)
{
	static const char *const decisions[] = {
		[EGRESS_DENY] = "deny",
		[EGRESS_ALLOW] = "allow",
		[EGRESS_RESOLVE] = "resolve",
	};
	char rule[EGRESS_HOST_MAX + 16], a[EGRESS_ADDRSTR_MAX];

	print_target(arg);
	printf(" %s %s", decisions[v->decision],
	    v->decision == EGRESS_RESOLVE && v->reason == EGRESS_R_NONE ?
	    "address_rules" : egress_reason_name(v->reason));
	if (v->rule != NULL) {
		egress_rule_format(v->rule, rule, sizeof(rule));
		printf(" %s %s", v->rule->allow ? "allow" : "deny", rule);
	}
	if (resolved != NULL) {
		egress_addr_format(resolved, a, sizeof(a));
		printf(" addr=%s", a);
	}
	print_hint(c, arg, v, resolved != NULL ? resolved :
	    t->is_addr ? &t->addr : NULL);
	putchar('\n');
}

int
cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "resolve", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	struct egress_target *targets = NULL;
	struct egress_verdict v;
	const char *path = NULL, *err;
	struct conf *c;
	bool resolve = false;
	int ch, i, n, rv = EXIT_USAGE;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			path = optarg;
			break;
		case 'r':
			resolve = true;
			break;
		default:
			goto usage;
		}
	}
	if ((n = argc - optind) == 0)
		goto usage;
	if ((c = cli_load_policy(path)) == NULL)
		return EXIT_USAGE;
	if (egress_policy_report(c->policy))
		cli_error("policy in report mode: what its rules refuse is let "
		    "through and logged report_only (mode enforce refuses it)");
	if ((targets = calloc(n, sizeof(*targets))) == NULL) {
		cli_error("out of memory");
		conf_free(c);
		return EXIT_RUNTIME;
	}
	for (i = 0; i < n; i++) {
		const char *arg = argv[optind + i];

		if (egress_target_parse(arg, strlen(arg), &targets[i],
		    &err) == -1)
			memset(&targets[i], 0, sizeof(targets[i]));
	}
	if (resolve)
		rv = cli_resolve_and_judge(c, targets, argv + optind, n,
		    print_verdict);
	else {
		for (i = 0; i < n; i++) {
			egress_judge_target(c->policy, &targets[i], NULL, 0,
			    &v);
			print_verdict(c, argv[optind + i], &targets[i], &v,
			    NULL);
		}
		rv = 0;
	}
	free(targets);
	conf_free(c);
	if (fflush(stdout) != 0)
		return EXIT_RUNTIME;
	return rv;
usage:
	cli_error("usage: harn-egressd explain --policy FILE [--resolve] "
	    "TARGET...");
	return EXIT_USAGE;
}
