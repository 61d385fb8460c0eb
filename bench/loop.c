/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The closed loop: --conc connections, each sending its next request when
 * the last answer is complete, keep-alive requests per connection, until
 * the duration is over or the --count requests have all begun.  The last
 * request on a connection asks the server to close, and loadgen waits for
 * its FIN: TIME_WAIT then stays on the server's side, off the client's
 * ephemeral ports, which a rate of new connections would run out of.
 */
#include <stdio.h>

#include "bench/loadgen.h"

/* May another request begin?  Takes it from the budget if so. */
static int
take(struct lg *lg)
{
	if (lg->o.count == 0)
		return lg->now < lg->t_end;
	if (lg->budget == 0)
		return 0;
	lg->budget--;
	return 1;
}

static void
loop_ready(struct lg *lg, struct conn *c)
{
	int last;

	if (!c->asked) {	/* the first one began with the connection */
		if (!take(lg)) {
			conn_end(lg, c, ERR_NONE);
			return;
		}
		conn_begin(lg, c);
	}
	last = c->sent + 1 >= lg->o.keepalive ||
	    (lg->o.count != 0 && lg->budget == 0);
	conn_request(lg, c, last);
}

static void
loop_response(struct lg *lg, struct conn *c)
{
	if (c->phase == PH_READY)
		loop_ready(lg, c);
	/* else closing: the server's FIN ends it */
}

static const struct lg_driver loop_driver = { loop_ready, loop_response };

/* Free slots get a new connection while requests may still begin. */
static int
refill(struct lg *lg)
{
	int i, busy = 0;

	for (i = 0; i < lg->nconns; i++) {
		if (lg->conns[i].phase != PH_FREE) {
			busy++;
			continue;
		}
		if (!take(lg))
			continue;
		conn_begin(lg, &lg->conns[i]);
		if (conn_open(lg, &lg->conns[i]) == 0)
			busy++;
	}
	return busy;
}

int
run_loop(struct lg *lg)
{
	lg->drv = &loop_driver;
	lg->retry = 1;
	lg->now = lg->t0 = mono_us();
	lg->t_end = lg->t0 + (uint64_t)(lg->o.duration * 1e6);
	lg->budget = lg->o.count;
	/* A connection that failed at once is tried again after a poll. */
	while (refill(lg) > 0 || (lg->o.count ? lg->budget > 0 :
	    lg->now < lg->t_end))
		if (lg_poll(lg, 20000) == -1)
			return -1;
	return 0;
}
