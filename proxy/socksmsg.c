/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SOCKS5 greeting and request as pure functions over bytes, so what a
 * client may send is decided in one place that a fuzzer can reach.
 */
#include <string.h>

#include "proxy/socksmsg.h"

int
socksmsg_greeting(const uint8_t *b, size_t len, size_t *used)
{
	*used = 0;
	if (len < 2 || len < 2u + b[1])
		return SOCKSMSG_MORE;
	*used = 2u + b[1];
	return memchr(b + 2, SOCKS_NO_AUTH, b[1]) != NULL ? SOCKS_NO_AUTH :
	    SOCKS_NO_METHOD;
}

bool
socksmsg_offers(const uint8_t *b, size_t used, uint8_t method)
{
	return used >= 2 && used == 2u + b[1] &&
	    memchr(b + 2, method, b[1]) != NULL;
}

static int
refused(struct socksmsg_req *r, int rep, enum egress_reason reason)
{
	memset(&r->target, 0, sizeof(r->target));
	r->reason = reason;
	return rep;
}

/* DST.ADDR DST.PORT, from b[3] (ATYP); the length is known to be there. */
static int
target(const uint8_t *b, size_t alen, struct socksmsg_req *r)
{
	struct egress_target *t = &r->target;
	const char *err;
	uint16_t port;

	port = (uint16_t)(b[4 + alen] << 8 | b[5 + alen]);
	if (b[3] == SOCKS_ATYP_V4) {
		t->is_addr = true;
		egress_addr_from_v4(&t->addr, (uint32_t)b[4] << 24 |
		    (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7]);
		egress_addr_format(&t->addr, t->host, sizeof(t->host));
	} else if (b[3] == SOCKS_ATYP_V6) {
		t->is_addr = true;
		egress_addr_from_v6(&t->addr, b + 4);
		egress_addr_format(&t->addr, t->host, sizeof(t->host));
	} else if (egress_host_parse((const char *)b + 5, b[4], t,
	    &err) == -1)
		return refused(r, SOCKS_REP_NOT_ALLOWED,
		    EGRESS_R_INVALID_TARGET);
	if (port == 0)
		return refused(r, SOCKS_REP_NOT_ALLOWED,
		    EGRESS_R_INVALID_TARGET);
	t->port = port;
	return SOCKS_REP_OK;
}

int
socksmsg_request(const uint8_t *b, size_t len, struct socksmsg_req *r,
    size_t *used)
{
	size_t alen;

	memset(r, 0, sizeof(*r));
	*used = 0;
	if (len < 4)
		return SOCKSMSG_MORE;
	if (b[0] != SOCKS_VERSION) {
		r->reason = EGRESS_R_INVALID_REQUEST;
		return SOCKSMSG_CLOSE;
	}
	/* A refusal before the address: what came is drained, then closed. */
	if (b[1] != SOCKS_CMD_CONNECT) {
		*used = len;
		return refused(r, SOCKS_REP_CMD_UNSUPPORTED,
		    EGRESS_R_UNSUPPORTED_COMMAND);
	}
	switch (b[3]) {
	case SOCKS_ATYP_V4:
		alen = 4;
		break;
	case SOCKS_ATYP_V6:
		alen = 16;
		break;
	case SOCKS_ATYP_DOMAIN:
		if (len < 5)
			return SOCKSMSG_MORE;
		alen = 1 + b[4];
		break;
	default:
		*used = len;
		return refused(r, SOCKS_REP_ATYP_UNSUPPORTED,
		    EGRESS_R_INVALID_REQUEST);
	}
	if (len < 4 + alen + 2)
		return SOCKSMSG_MORE;
	*used = 4 + alen + 2;
	return target(b, alen, r);
}
