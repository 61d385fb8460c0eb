/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run mode's name lookups (SPEC 6.6): a connection the sandbox's broker
 * made for a program's DNS query over TCP (to whichever resolver it was
 * configured with) is answered here, message by message (RFC 1035 4.2.2:
 * a two-byte length, then the message), by dns_serve: an address of the
 * run's own range for a name the policy admits on some port, NXDOMAIN and
 * one "dns" deny line for one it does not.  No query leaves the machine.
 *
 * A connection through the proxy for one of those addresses asks for the
 * name it was given (proxy_fake_target): the policy then decides the name,
 * and the proxy resolves it itself, as for any client.
 */
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "proxy/internal.h"
#include "proxy/mover.h"

/* The run's table of names and addresses, made at the first use. */
struct dns_fake *
proxy_fake(struct proxy *px)
{
	if (px->fake == NULL)
		px->fake = dns_fake_new();
	return px->fake;
}

void
proxy_fake_target(struct conn *c)
{
	struct egress_target t;
	const char *name, *err;

	if (!c->target.is_addr || !dns_fake_in_range(&c->target.addr) ||
	    c->px->fake == NULL ||
	    (name = dns_fake_name(c->px->fake, &c->target.addr)) == NULL)
		return;
	if (egress_host_parse(name, strlen(name), &t, &err) == -1)
		return;
	t.port = c->target.port;
	c->target = t;
}

/* A refusal of a name is said once a second for each process. */
#define SAID_MS		1000
#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))

/*
 * Said already?  A resolver asks for A and AAAA, again on a timeout, in
 * one lookup, on a connection each: one line for the lookup.
 */
bool
proxy_dns_said_lately(struct proxy *px, pid_t pid, const char *name)
{
	uint64_t now = (uint64_t)mover_now_ms(px->base, 0);
	struct dns_said *d;
	size_t i;

	for (i = 0; i < NELEM(px->dns_said); i++) {
		d = &px->dns_said[i];
		if (d->pid == pid && now - d->ms < SAID_MS &&
		    strcmp(d->name, name) == 0)
			return true;
	}
	d = &px->dns_said[px->dns_said_next];
	px->dns_said_next = (px->dns_said_next + 1) % NELEM(px->dns_said);
	d->pid = pid;
	d->ms = now;
	snprintf(d->name, sizeof(d->name), "%s", name);
	return false;
}

/* A refused name: its line, before the answer is sent. */
static void
log_refused(struct conn *c, const struct dns_served *s)
{
	if (proxy_dns_said_lately(c->px, c->pid, s->name))
		return;
	memset(&c->target, 0, sizeof(c->target));
	snprintf(c->target.host, sizeof(c->target.host), "%s", s->name);
	c->logged = false;
	(void)conn_log(c, false, s->verdict.reason, NULL);
}

/* One message in: answered; false when the connection is to close. */
static bool
answer_one(struct conn *c, struct evbuffer *in)
{
	uint8_t q[DNS_TCP_MSG_MAX], a[2 + 1024];
	struct dns_served s;
	size_t used = 0;
	int len;

	if (evbuffer_copyout(in, q, 2) != 2 || (len = dns_tcp_len(q, 2)) < 0 ||
	    evbuffer_get_length(in) < 2 + (size_t)len)
		return true;	/* more to come */
	if (evbuffer_drain(in, 2) == -1 ||
	    evbuffer_remove(in, q, (size_t)len) != len)
		return false;
	conn_policy_now(c);
	if (proxy_fake(c->px) == NULL)
		return false;
	if (dns_serve(c->px->fake, c->gen->conf->policy, q, (size_t)len,
	    a + 2, sizeof(a) - 2, &used, &s) == DNS_SERVED_DROP)
		return true;
	if (s.kind == DNS_SERVED_REFUSED)
		log_refused(c, &s);
	if (dns_tcp_put_len(a, used) == -1 ||
	    bufferevent_write(c->bev, a, used + 2) == -1)
		return false;
	return true;
}

static void
dns_read(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t before;

	do {
		before = evbuffer_get_length(in);
		if (!answer_one(c, in)) {
			conn_close(c);
			return;
		}
	} while (evbuffer_get_length(in) >= 2 &&
	    evbuffer_get_length(in) < before);
	(void)bufferevent_enable(bev, EV_WRITE);
}

/* header_timeout: a resolver idle that long is done. */
static void
dns_timeout(struct conn *c)
{
	conn_close(c);
}

static void
dns_refuse(struct conn *c, enum egress_reason reason)
{
	(void)reason;
	conn_close(c);
}

static bool
dns_client_eof(struct conn *c)
{
	(void)c;
	return false;
}

static void
dns_free(struct conn *c)
{
	(void)c;	/* no state of its own: each message is answered whole */
}

const struct conn_proto dns_proto = {
	.proto = PROXY_DNS,
	.request_read = dns_read,
	.timeout = dns_timeout,
	.refuse = dns_refuse,
	.client_eof = dns_client_eof,
	.free = dns_free,
};
