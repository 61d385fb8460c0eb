/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A request's answer waiting for its line (SPEC 5 log_wait): the
 * connection's side of dlog_decision_wait.  While it waits the client is
 * not read (a second answer cannot start), its header timer may run out
 * (the protocol's refusal sees logwait and does nothing), and a close
 * cancels the wait (the protocol's free): the line is still written, the
 * connection it allowed is closed unused.
 */
#include <unistd.h>

#include "proxy/internal.h"

static void
resumed(void *arg, int rc)
{
	struct conn *c = arg;

	c->logwait = NULL;
	c->logresume(c, rc);
}

int
conn_log_wait(struct conn *c, bool allow, enum egress_reason reason,
    enum egress_reason would, const struct egress_addr *addr,
    void (*resume)(struct conn *, int))
{
	struct dlog_entry e = { .proto = c->proto, .host = c->target.host,
	    .port = c->target.port, .allow = allow, .reason = reason,
	    .would = would, .addr = addr, .pid = c->pid, .exe = c->exe };
	int rc;

	if (c->logged)
		return 0;
	c->logged = true;
	rc = dlog_decision_wait(c->px->log, &e, c->gen->conf->log_failure_serve,
	    c->gen->conf->log_wait, resumed, c, &c->logwait);
	if (rc == 1) {
		c->logresume = resume;
		if (c->bev != NULL)
			(void)bufferevent_disable(c->bev, EV_READ);
	}
	return rc;
}

void
conn_log_cancel(struct conn *c)
{
	if (c->logwait == NULL)
		return;
	dlog_wait_cancel(c->logwait);
	c->logwait = NULL;
	if (c->logres.fd != -1)
		(void)close(c->logres.fd);
	c->logres.fd = -1;
}

void
conn_allowed(struct conn *c, const struct outbound_result *res,
    void (*resume)(struct conn *, int))
{
	int rc;

	c->logres = *res;
	rc = conn_log_wait(c, true, res->reason, res->would, &res->addr,
	    resume);
	if (rc != 1)
		resume(c, rc);
}
