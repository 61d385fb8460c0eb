/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client that leaves while its request connects (SPEC 4 Limits: "a
 * request whose client has gone is abandoned at once, its outbound
 * attempt and its DNS lookup cancelled").
 *
 * The kernel cannot tell a client that closed from one that only
 * half-closed (shutdown(SHUT_WR)) until something is written to it, and
 * nothing is written while connecting.  So, as Squid does by default
 * (half_closed_clients off), an EOF is taken for a departure, except
 * where a half-close is a known way to use the protocol:
 *  - HTTP forwarding: a client may send its request and shut its side
 *    (HTTP/1.0 style, `nc -N`); it still gets its response (SPEC 4);
 *  - a tunnel (CONNECT, SOCKS5) whose client sent bytes after its
 *    request: they wait for the origin, and the half-close follows them
 *    ("half-close honoured; bytes the client sent early are forwarded").
 * Such requests stay bounded by dns_timeout and the whole-phase
 * connect_timeout.  An error (a reset) always means the client is gone.
 *
 * The line: one per request (SPEC 5), a deny.  While an address is being
 * connected to, connect_failed with that address (SPEC 5: a connect
 * failure names the last address tried); while the name is still being
 * looked up, dns_failure with none: the lookup never completed, and no
 * address was judged.  Nothing was let through; SPEC 5's reasons are a
 * closed set that audit and verify check, so no new word is made.
 */
#include "proxy/internal.h"

static bool
half_close_meant(const struct conn *c)
{
	if (c->proto == PROXY_HTTP)
		return true;
	return c->bev != NULL &&
	    evbuffer_get_length(bufferevent_get_input(c->bev)) > 0;
}

enum egress_reason
conn_left_reason(const struct conn *c, short what, struct egress_addr *addr,
    bool *has)
{
	*has = false;
	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return EGRESS_R_NONE;
	if (!(what & BEV_EVENT_ERROR) && half_close_meant(c))
		return EGRESS_R_NONE;	/* the tunnel or relay meets it again */
	*has = outbound_trying(c->ob, addr);
	return *has ? EGRESS_R_CONNECT_FAILED : EGRESS_R_DNS_FAILURE;
}
