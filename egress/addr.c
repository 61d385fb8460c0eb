/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Addresses in one 128-bit space: IPv4 lives at ::ffff:0:0/96, so an
 * IPv4-mapped IPv6 address and the IPv4 address it carries are the same.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <string.h>

#include "egress/egress.h"

static const uint8_t v4mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

void
egress_addr_from_v4(struct egress_addr *a, uint32_t v4)
{
	memcpy(a->b, v4mapped_prefix, sizeof(v4mapped_prefix));
	a->b[12] = v4 >> 24;
	a->b[13] = v4 >> 16;
	a->b[14] = v4 >> 8;
	a->b[15] = v4;
}

void
egress_addr_from_v6(struct egress_addr *a, const uint8_t b[16])
{
	memcpy(a->b, b, 16);
}

bool
egress_addr_is_v4(const struct egress_addr *a)
{
	return memcmp(a->b, v4mapped_prefix, sizeof(v4mapped_prefix)) == 0;
}

uint32_t
egress_addr_v4(const struct egress_addr *a)
{
	return (uint32_t)a->b[12] << 24 | (uint32_t)a->b[13] << 16 |
	    (uint32_t)a->b[14] << 8 | a->b[15];
}

/* Dotted quad; glibc's inet_ntop goes through sprintf, slow on a hot path. */
static void
format_v4(const uint8_t b[4], char *out)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (b[i] >= 100)
			*out++ = '0' + b[i] / 100;
		if (b[i] >= 10)
			*out++ = '0' + b[i] / 10 % 10;
		*out++ = '0' + b[i] % 10;
		*out++ = i < 3 ? '.' : '\0';
	}
}

unsigned
egress_addr_sockaddr(const struct egress_addr *a, uint16_t port,
    struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (egress_addr_is_v4(a)) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		memcpy(&sin->sin_addr, a->b + 12, 4);
		return sizeof(*sin);
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	memcpy(sin6->sin6_addr.s6_addr, a->b, 16);
	return sizeof(*sin6);
}

void
egress_addr_format(const struct egress_addr *a, char *buf, size_t len)
{
	char tmp[INET6_ADDRSTRLEN];
	size_t n;

	if (egress_addr_is_v4(a))
		format_v4(a->b + 12, tmp);
	else if (inet_ntop(AF_INET6, a->b, tmp, sizeof(tmp)) == NULL)
		tmp[0] = '\0';
	/* Not snprintf: this runs for every address literal decided. */
	n = strlen(tmp);
	if (len == 0)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, tmp, n);
	buf[n] = '\0';
}
