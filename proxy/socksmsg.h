/* SPDX-License-Identifier: Apache-2.0 */
/* SOCKS5 (RFC 1928) messages, without sockets.  Internal to proxy/. */
#ifndef PROXY_SOCKSMSG_H
#define PROXY_SOCKSMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "egress/egress.h"

#define SOCKS_VERSION		5
#define SOCKS_NO_AUTH		0x00
#define SOCKS_NO_METHOD		0xff
/*
 * A private method (RFC 1928: X'80' to X'FE'), the sandbox broker's alone
 * (SPEC 6.6): no reply to the request; the decision goes aside, and one
 * byte of the broker's precedes the client's own.
 */
#define SOCKS_HOLD		0x8a
#define SOCKS_CMD_CONNECT	1
#define SOCKS_ATYP_V4		1
#define SOCKS_ATYP_DOMAIN	3
#define SOCKS_ATYP_V6		4

/* The longest greeting and request: no more is ever looked at. */
#define SOCKSMSG_GREETING_MAX	(2 + 255)
#define SOCKSMSG_REQUEST_MAX	(4 + 1 + 255 + 2)

enum socks_rep {
	SOCKS_REP_OK = 0x00,
	SOCKS_REP_FAILURE = 0x01,
	SOCKS_REP_NOT_ALLOWED = 0x02,
	SOCKS_REP_HOST_UNREACHABLE = 0x04,
	SOCKS_REP_REFUSED = 0x05,
	SOCKS_REP_TTL_EXPIRED = 0x06,
	SOCKS_REP_CMD_UNSUPPORTED = 0x07,
	SOCKS_REP_ATYP_UNSUPPORTED = 0x08,
};

/* Not reply codes: what the caller does instead of replying. */
#define SOCKSMSG_MORE	(-1)	/* bytes are still missing */
#define SOCKSMSG_CLOSE	(-2)	/* not SOCKS5: close without a reply */

/*
 * The greeting, VER NMETHODS METHODS: SOCKS_NO_AUTH when it is offered,
 * else SOCKS_NO_METHOD, and *used its length; or SOCKSMSG_MORE.
 */
int	 socksmsg_greeting(const uint8_t *, size_t, size_t *used);
/* Does a whole greeting (used bytes, as above) offer this method? */
bool	 socksmsg_offers(const uint8_t *, size_t used, uint8_t method);

struct socksmsg_req {
	struct egress_target	target;	/* SOCKS_REP_OK: port != 0; else zero */
	enum egress_reason	reason;	/* a refusal's, for the log */
};

/*
 * The request, VER CMD RSV ATYP DST.ADDR DST.PORT: SOCKS_REP_OK with the
 * target, or the reply to refuse with and its reason; SOCKSMSG_MORE, or
 * SOCKSMSG_CLOSE (reason set).  *used is what to drain, at most len.
 */
int	 socksmsg_request(const uint8_t *, size_t, struct socksmsg_req *,
	    size_t *used);

#endif
