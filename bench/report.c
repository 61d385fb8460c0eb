/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a run did, for people (unless --quiet) and as one line of
 * key=value pairs after "RESULT", which bench/run-peers.sh reads.
 * Rates are per second of the whole run; MB is 10^6 bytes.
 */
#include <arpa/inet.h>
#include <stdio.h>

#include "bench/loadgen.h"

static const char *const mode_names[] = {
	"direct", "connect", "forward", "socks5"
};

static double
per_s(uint64_t n, double s)
{
	return s > 0 ? (double)n / s : 0;
}

static uint64_t
errors(const struct lg *lg)
{
	uint64_t n = 0;
	int i;

	for (i = ERR_NONE + 1; i < ERR_N; i++)
		n += lg->k.err[i];
	return n;
}

static void
human(const struct lg *lg, const struct lg_usage *u)
{
	const struct lg_counts *k = &lg->k;
	char proxy[INET_ADDRSTRLEN], target[INET_ADDRSTRLEN];
	int i;

	inet_ntop(AF_INET, &lg->o.proxy.sin_addr, proxy, sizeof(proxy));
	inet_ntop(AF_INET, &lg->o.target.sin_addr, target, sizeof(target));
	printf("loadgen: %s", mode_names[lg->o.mode]);
	if (lg->o.mode != MODE_DIRECT)
		printf(" via %s:%u", proxy, ntohs(lg->o.proxy.sin_port));
	printf(" to %s:%u%s (%d port%s), c=%d, keep-alive %d, %.2f s\n",
	    target, ntohs(lg->o.target.sin_port), lg->o.path,
	    lg->o.target_ports, lg->o.target_ports > 1 ? "s" : "",
	    lg->o.conc, lg->o.keepalive, u->elapsed);
	printf("  requests begun %llu, written %llu, responses %llu "
	    "(ok %llu), failed %llu\n", (unsigned long long)k->attempts,
	    (unsigned long long)k->requests, (unsigned long long)k->responses,
	    (unsigned long long)k->ok, (unsigned long long)k->failed);
	printf("  connections %llu, ready %llu, closed by the server early "
	    "%llu\n", (unsigned long long)k->connects,
	    (unsigned long long)k->tunnels, (unsigned long long)k->reconnects);
	printf("  bytes sent %llu (handshake %llu), received %llu "
	    "(handshake %llu), body %llu\n", (unsigned long long)k->tx,
	    (unsigned long long)k->hs_tx, (unsigned long long)k->rx,
	    (unsigned long long)k->hs_rx, (unsigned long long)k->body);
	printf("  errors %llu:", (unsigned long long)errors(lg));
	for (i = ERR_NONE + 1; i < ERR_N; i++)
		printf(" %s %llu", lg_err_names[i],
		    (unsigned long long)k->err[i]);
	printf("\n  %.0f req/s, %.0f new connections/s, body %.1f MB/s\n",
	    per_s(k->ok, u->elapsed), per_s(k->tunnels, u->elapsed),
	    per_s(k->body, u->elapsed) / 1e6);
	printf("  latency ms: p50 %.3f p90 %.3f p99 %.3f max %.3f; "
	    "set-up p50 %.3f p99 %.3f\n", hist_quantile(&lg->lat, 0.5) / 1e3,
	    hist_quantile(&lg->lat, 0.9) / 1e3,
	    hist_quantile(&lg->lat, 0.99) / 1e3, (double)lg->lat.max / 1e3,
	    hist_quantile(&lg->setup, 0.5) / 1e3,
	    hist_quantile(&lg->setup, 0.99) / 1e3);
	printf("  cpu: loadgen %.0f%%", u->cpu_lg);
	if (u->cpu_proxy >= 0)
		printf(", proxy %.0f%%", u->cpu_proxy);
	printf("\n");
}

static void
human_idle(const struct lg_idle *r)
{
	printf("  idle: %d opened, %d ready in %.2f s, %d still open after the "
	    "hold, %d answered the probe\n", r->n, r->established, r->setup_s,
	    r->alive, r->probe_ok);
	if (r->before.nprocs == 0)
		return;
	printf("  proxy memory (%d process%s): RSS %llu -> %llu KiB, "
	    "PSS %llu -> %llu KiB\n", r->after.nprocs,
	    r->after.nprocs == 1 ? "" : "es",
	    (unsigned long long)r->before.rss_kib,
	    (unsigned long long)r->after.rss_kib,
	    (unsigned long long)r->before.pss_kib,
	    (unsigned long long)r->after.pss_kib);
	if (r->alive > 0)
		printf("  %.1f KiB RSS (%.1f KiB PSS) a connection held\n",
		    ((double)r->after.rss_kib - (double)r->before.rss_kib) /
		    r->alive, ((double)r->after.pss_kib -
		    (double)r->before.pss_kib) / r->alive);
}

static void
result_idle(const struct lg_idle *r)
{
	double alive = r->alive > 0 ? r->alive : 1;

	printf(" idle=%d established=%d alive=%d probe_ok=%d setup_s=%.3f",
	    r->n, r->established, r->alive, r->probe_ok, r->setup_s);
	if (r->before.nprocs == 0)
		return;
	printf(" nprocs=%d rss_before=%llu rss_after=%llu pss_before=%llu"
	    " pss_after=%llu rss_per_kib=%.1f pss_per_kib=%.1f",
	    r->after.nprocs, (unsigned long long)r->before.rss_kib,
	    (unsigned long long)r->after.rss_kib,
	    (unsigned long long)r->before.pss_kib,
	    (unsigned long long)r->after.pss_kib,
	    ((double)r->after.rss_kib - (double)r->before.rss_kib) / alive,
	    ((double)r->after.pss_kib - (double)r->before.pss_kib) / alive);
}

static void
result(const struct lg *lg, const struct lg_usage *u)
{
	const struct lg_counts *k = &lg->k;
	int i;

	printf("RESULT mode=%s c=%d ka=%d elapsed=%.3f attempts=%llu "
	    "requests=%llu responses=%llu ok=%llu failed=%llu connects=%llu "
	    "tunnels=%llu reconnects=%llu tx=%llu rx=%llu hs_tx=%llu "
	    "hs_rx=%llu body=%llu errors=%llu", mode_names[lg->o.mode],
	    lg->o.conc, lg->o.keepalive, u->elapsed,
	    (unsigned long long)k->attempts, (unsigned long long)k->requests,
	    (unsigned long long)k->responses, (unsigned long long)k->ok,
	    (unsigned long long)k->failed, (unsigned long long)k->connects,
	    (unsigned long long)k->tunnels, (unsigned long long)k->reconnects,
	    (unsigned long long)k->tx, (unsigned long long)k->rx,
	    (unsigned long long)k->hs_tx, (unsigned long long)k->hs_rx,
	    (unsigned long long)k->body, (unsigned long long)errors(lg));
	for (i = ERR_NONE + 1; i < ERR_N; i++)
		printf(" err_%s=%llu", lg_err_names[i],
		    (unsigned long long)k->err[i]);
	printf(" rps=%.1f tps=%.1f body_mbps=%.1f p50=%.3f p90=%.3f p99=%.3f"
	    " max=%.3f setup_p50=%.3f setup_p99=%.3f lgcpu=%.0f",
	    per_s(k->ok, u->elapsed), per_s(k->tunnels, u->elapsed),
	    per_s(k->body, u->elapsed) / 1e6,
	    hist_quantile(&lg->lat, 0.5) / 1e3,
	    hist_quantile(&lg->lat, 0.9) / 1e3,
	    hist_quantile(&lg->lat, 0.99) / 1e3, (double)lg->lat.max / 1e3,
	    hist_quantile(&lg->setup, 0.5) / 1e3,
	    hist_quantile(&lg->setup, 0.99) / 1e3, u->cpu_lg);
	if (u->cpu_proxy >= 0)
		printf(" pcpu=%.0f", u->cpu_proxy);
}

void
report(const struct lg *lg, const struct lg_usage *u,
    const struct lg_idle *idle)
{
	if (!lg->o.quiet) {
		human(lg, u);
		if (idle != NULL)
			human_idle(idle);
	}
	result(lg, u);
	if (idle != NULL)
		result_idle(idle);
	printf("\n");
	fflush(stdout);
}
