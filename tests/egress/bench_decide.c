/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decisions per second at 10, 1 000 and 100 000 rules: a third exact
 * hosts, a third wildcards, a third CIDRs.  Each decision parses a target,
 * judges it and, when it needs DNS, judges two made-up addresses.
 * A program that prints figures, not a timed test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conf/conf.h"

#define NTARGETS	4096

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static struct egress_policy *
make_policy(size_t nrules)
{
	struct egress_policy *p = egress_policy_new();
	struct egress_rule r;
	const char *err;
	char buf[128];
	size_t i;

	for (i = 0; i < nrules; i++) {
		switch (i % 3) {
		case 0:
			snprintf(buf, sizeof(buf), "host%zu.example.com:443", i);
			break;
		case 1:
			snprintf(buf, sizeof(buf), "*.zone%zu.example.net", i);
			break;
		default:
			snprintf(buf, sizeof(buf), "%u.%u.%u.0/24",
			    1 + rnd() % 222, rnd() % 256, rnd() % 256);
			break;
		}
		if (egress_rule_parse(buf, strlen(buf), i % 7 != 0, &r,
		    &err) == -1 || egress_policy_add(p, &r) == -1) {
			fprintf(stderr, "bench: rule %s: %s\n", buf, err);
			exit(1);
		}
	}
	return p;
}

static void
make_targets(char targets[][96], size_t nrules)
{
	size_t i, k = nrules ? nrules : 1;

	for (i = 0; i < NTARGETS; i++) {
		switch (i % 4) {
		case 0:
			snprintf(targets[i], 96, "host%zu.example.com:443",
			    (rnd() % k) / 3 * 3);
			break;
		case 1:
			snprintf(targets[i], 96, "a.b.zone%zu.example.net:443",
			    (rnd() % k) / 3 * 3 + 1);
			break;
		case 2:
			snprintf(targets[i], 96, "miss%u.example.org:80", rnd());
			break;
		default:
			snprintf(targets[i], 96, "%u.%u.%u.%u:443",
			    1 + rnd() % 222, rnd() % 256, rnd() % 256,
			    rnd() % 256);
			break;
		}
	}
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
bench(size_t nrules)
{
	static char targets[NTARGETS][96];
	struct egress_addr addrs[2];
	struct egress_target t;
	struct egress_verdict v, pending;
	struct egress_policy *p;
	const char *err;
	size_t i, n = 0, allowed = 0;
	double t0, el;

	p = make_policy(nrules);
	make_targets(targets, nrules);
	egress_addr_from_v4(&addrs[0], 0x5db8d822);	/* 93.184.216.34 */
	egress_addr_from_v4(&addrs[1], 0x8c527004);
	t0 = now();
	do {
		for (i = 0; i < NTARGETS; i++, n++) {
			if (egress_target_parse(targets[i], strlen(targets[i]),
			    &t, &err) == -1)
				continue;
			egress_judge_target(p, &t, NULL, 0, &pending);
			egress_judge_addrs(p, &t, &pending, addrs, 2, NULL, 0,
			    &v);
			allowed += v.decision == EGRESS_ALLOW;
		}
	} while ((el = now() - t0) < 2.0);
	printf("%8zu rules  %12.0f decisions/s  (%zu decisions, %.1f%% allowed)\n",
	    nrules, n / el, n, 100.0 * allowed / n);
	egress_policy_free(p);
}

int
main(int argc, char **argv)
{
	static const size_t sizes[] = { 10, 1000, 100000 };
	size_t i;
	int k;

	printf("harn-egressd decision benchmark (one core, parse + judge)\n");
	if (argc > 1) {
		for (k = 1; k < argc; k++)
			bench(strtoul(argv[k], NULL, 10));
		return 0;
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bench(sizes[i]);
	return 0;
}
