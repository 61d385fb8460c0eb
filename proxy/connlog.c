/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A connection's lines beyond the one decision: its close line (SPEC 5),
 * and its answer waiting for its line.
 *
 * An allowed connection is numbered at its first allowed decision, and
 * every allowed decision on it (forwarding's exchanges) carries that
 * number; when it ends, one close line says what it moved and for how
 * long, under what it was first allowed to.
 *
 * A request's answer waiting for its line (SPEC 5 log_wait): the
 * connection's side of dlog_decision_wait.  While it waits the client is
 * not read (a second answer cannot start), its header timer may run out
 * (the protocol's refusal sees logwait and does nothing), and a close
 * cancels the wait (the protocol's free): the line is still written, the
 * connection it allowed is closed unused.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proxy/internal.h"
#include "proxy/mstime.h"

uint64_t
conn_usage_id(struct conn *c)
{
	struct conn_usage *u = &c->usage;

	if (u->id != 0)
		return u->id;
	/* Kept only once allowed: an idle connection carries no copy. */
	if ((u->host = strdup(c->target.host)) == NULL)
		return 0;	/* its line says no conn, and none closes */
	u->id = ++c->px->conn_ids;
	u->pending = true;
	u->proto = c->proto;
	u->port = c->target.port;
	u->start_ms = mono_ms();
	u->out = u->in = 0;
	return u->id;
}

void
conn_usage_logged(struct conn *c, int rc)
{
	struct conn_usage *u = &c->usage;

	if (!u->pending)
		return;
	u->pending = false;
	/* Refused log_unavailable instead: no line names it, none closes it. */
	if (rc != 0) {
		u->id = 0;
		free(u->host);
		u->host = NULL;
	}
}

void
conn_usage_end(struct conn *c)
{
	struct conn_usage *u = &c->usage;
	struct dlog_close e = { .proto = u->proto, .host = u->host,
	    .port = u->port, .conn = u->id, .bytes_out = u->out,
	    .bytes_in = u->in, .ms = mono_ms() - u->start_ms, .pid = c->pid };

	if (u->id != 0 && !u->pending) {
		c->px->metrics.bytes_out += u->out;
		c->px->metrics.bytes_in += u->in;
		dlog_close(c->px->log, &e);
	}
	u->id = 0;
	free(u->host);
	u->host = NULL;
}

static void
resumed(void *arg, int rc)
{
	struct conn *c = arg;

	c->logwait = NULL;
	conn_usage_logged(c, rc);
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
	e.conn = allow ? conn_usage_id(c) : 0;
	rc = dlog_decision_wait(c->px->log, &e, c->gen->conf->log_failure_serve,
	    c->gen->conf->log_wait, resumed, c, &c->logwait);
	if (rc != 1)
		conn_usage_logged(c, rc);
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
