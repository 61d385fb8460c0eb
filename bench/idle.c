/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Idle memory: N connections opened through the proxy (at most 64 being
 * set up at a time), each a ready tunnel (CONNECT, SOCKS5) or a kept-alive
 * connection after one request (forwarding, direct), held for a while; the
 * proxy's memory is read before and after, and then one request through
 * each tells which still work.
 */
#include <stdio.h>

#include "bench/loadgen.h"

#define SETUP_AT_ONCE	64

static void
idle_ready(struct lg *lg, struct conn *c)
{
	/* A forwarding proxy keeps a connection after a request only. */
	if (c->sent == 0 && (lg->o.mode == MODE_DIRECT ||
	    lg->o.mode == MODE_FORWARD))
		conn_request(lg, c, 0);
}

static void
idle_response(struct lg *lg, struct conn *c)
{
	/* Ready: held.  Closing (the server would not keep it): ends. */
}

static const struct lg_driver idle_driver = { idle_ready, idle_response };

static int
count_phase(const struct lg *lg, int ready)
{
	int i, n = 0;
	enum conn_phase ph;

	for (i = 0; i < lg->nconns; i++) {
		ph = lg->conns[i].phase;
		if (ready ? ph == PH_READY : ph != PH_READY && ph != PH_FREE)
			n++;
	}
	return n;
}

/* Open them all, SETUP_AT_ONCE at a time; -1 if the loop fails. */
static int
open_all(struct lg *lg)
{
	int opened = 0, busy;

	for (;;) {
		busy = count_phase(lg, 0);
		while (busy < SETUP_AT_ONCE && opened < lg->nconns)
			if (conn_open(lg, &lg->conns[opened++]) == 0)
				busy++;
		if (opened == lg->nconns && busy == 0)
			return 0;
		if (lg_poll(lg, 20000) == -1)
			return -1;
	}
}

static void
read_mem(const struct lg *lg, struct proc_mem *m)
{
	if (lg->o.pid == 0 || proc_mem(lg->o.pid, m) == -1)
		m->rss_kib = m->pss_kib = 0, m->nprocs = 0;
}

int
run_idle(struct lg *lg, struct lg_idle *r)
{
	uint64_t ok, until;
	int i;

	lg->drv = &idle_driver;
	lg->now = lg->t0 = mono_us();
	r->n = lg->nconns;
	read_mem(lg, &r->before);
	if (open_all(lg) == -1)
		return -1;
	r->established = count_phase(lg, 1);
	r->setup_s = (double)(lg->now - lg->t0) / 1e6;
	until = lg->now + (uint64_t)(lg->o.hold * 1e6);
	while (lg->now < until)
		if (lg_poll(lg, until - lg->now) == -1)
			return -1;
	r->alive = count_phase(lg, 1);
	read_mem(lg, &r->after);
	/* The probe: one request through each, and the server closes. */
	ok = lg->k.ok;
	for (i = 0; i < lg->nconns; i++)
		if (lg->conns[i].phase == PH_READY)
			conn_request(lg, &lg->conns[i], 1);
	while (count_phase(lg, 0) > 0)
		if (lg_poll(lg, 20000) == -1)
			return -1;
	r->probe_ok = (int)(lg->k.ok - ok);
	lg->t_end = lg->now;
	return 0;
}
