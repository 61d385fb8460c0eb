/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bytes loadgen sends, built once per target port: the request (with
 * and without "Connection: close"), and the CONNECT or SOCKS5 request.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/loadgen.h"

/* A request, asking the server to close after it or not. */
static char *
http_request(const struct lg *lg, const char *a, int port, int last,
    size_t *len)
{
	char target[1024], buf[2048];
	int n;

	if (lg->o.mode == MODE_FORWARD)	/* absolute-form, to a proxy */
		n = snprintf(target, sizeof(target), "http://%s:%d%s", a, port,
		    lg->o.path);
	else
		n = snprintf(target, sizeof(target), "%s", lg->o.path);
	if (n < 0 || (size_t)n >= sizeof(target))
		return NULL;
	n = snprintf(buf, sizeof(buf), "GET %s HTTP/1.1\r\nHost: %s:%d\r\n"
	    "%s\r\n", target, a, port, last ? "Connection: close\r\n" : "");
	if (n < 0 || (size_t)n >= sizeof(buf))
		return NULL;
	*len = (size_t)n;
	return strdup(buf);
}

static char *
connect_request(const char *a, int port, size_t *len)
{
	char buf[256];
	int n;

	n = snprintf(buf, sizeof(buf), "CONNECT %s:%d HTTP/1.1\r\n"
	    "Host: %s:%d\r\n\r\n", a, port, a, port);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return NULL;
	*len = (size_t)n;
	return strdup(buf);
}

/* The SOCKS5 CONNECT request for an IPv4 address (RFC 1928 4). */
static char *
socks_request(const struct sockaddr_in *to, size_t *len)
{
	unsigned char *r = malloc(10);

	if (r == NULL)
		return NULL;
	r[0] = 5;
	r[1] = 1;		/* CONNECT */
	r[2] = 0;
	r[3] = 1;		/* IPv4 */
	memcpy(r + 4, &to->sin_addr, 4);
	memcpy(r + 8, &to->sin_port, 2);
	*len = 10;
	return (char *)r;
}

int
msgs_build(struct lg *lg)
{
	char a[INET_ADDRSTRLEN];
	struct sockaddr_in to = lg->o.target;
	int i, last, port;

	inet_ntop(AF_INET, &to.sin_addr, a, sizeof(a));
	for (i = 0; i < lg->o.target_ports; i++) {
		port = ntohs(lg->o.target.sin_port) + i;
		to.sin_port = htons((uint16_t)port);
		for (last = 0; last < 2; last++) {
			lg->req[i][last] = http_request(lg, a, port, last,
			    &lg->reqlen[i][last]);
			if (lg->req[i][last] == NULL)
				return -1;
		}
		if (lg->o.mode == MODE_CONNECT)
			lg->hs[i] = connect_request(a, port, &lg->hslen[i]);
		else if (lg->o.mode == MODE_SOCKS5)
			lg->hs[i] = socks_request(&to, &lg->hslen[i]);
		else
			continue;
		if (lg->hs[i] == NULL)
			return -1;
	}
	return 0;
}

size_t
msgs_socks_reply_len(const unsigned char *r, size_t have)
{
	if (have < 5)
		return 0;
	switch (r[3]) {
	case 1:
		return 4 + 4 + 2;
	case 3:
		return 4 + 1 + (size_t)r[4] + 2;
	case 4:
		return 4 + 16 + 2;
	default:
		return (size_t)-1;
	}
}
