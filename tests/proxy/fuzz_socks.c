/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_socks: libFuzzer on the SOCKS5 greeting and request parsers
 * (proxy/socksmsg.c).  The input is what a client sends: a greeting, then
 * a request (a greeting that never ends leaves the whole input to the
 * request).  Beyond not crashing, a request must come out as the proxy
 * may act on it: an IPv4 address spelt as a name is that address, never a
 * name for DNS; a prefix of a request is never a different request.
 * Built by `make fuzz-socks`, not by make check.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress/egress.h"
#include "proxy/socksmsg.h"
#include "tests/fuzz.h"


/* A copy of exactly len bytes, so that ASan sees a read past them. */
static uint8_t *
dup_exact(const uint8_t *b, size_t len)
{
	uint8_t *p;

	if ((p = malloc(len ? len : 1)) == NULL)
		abort();
	memcpy(p, b, len);
	return p;
}

static bool
is_zero(const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != 0)
			return false;
	return true;
}

static void
check_greeting(const uint8_t *b, size_t len)
{
	uint8_t *p = dup_exact(b, len);
	size_t used;
	int m;

	m = socksmsg_greeting(p, len, &used);
	CHECK(used <= len);
	if (len < 2 || len < 2u + b[1]) {
		CHECK(m == SOCKSMSG_MORE && used == 0);
	} else {
		CHECK(used == 2u + b[1]);
		CHECK(m == (memchr(b + 2, 0, b[1]) ? SOCKS_NO_AUTH :
		    SOCKS_NO_METHOD));
	}
	free(p);
}

/* The reason a refusal must carry, by reply. */
static enum egress_reason
reason_of(int rep)
{
	switch (rep) {
	case SOCKS_REP_CMD_UNSUPPORTED:
		return EGRESS_R_UNSUPPORTED_COMMAND;
	case SOCKS_REP_ATYP_UNSUPPORTED:
		return EGRESS_R_INVALID_REQUEST;
	case SOCKS_REP_NOT_ALLOWED:
		return EGRESS_R_INVALID_TARGET;
	default:
		abort();	/* no other reply comes from the parser */
	}
}

/*
 * A DOMAIN that a libc parser takes for an address is that address: the
 * name must never be resolved, since a policy judged the address.
 */
static void
check_domain(const uint8_t *name, size_t nlen,
    const struct egress_target *t)
{
	struct egress_target again;
	struct egress_addr a;
	struct in_addr in4;
	uint8_t in6[16];
	char s[256], inner[256];
	const char *err, *last;
	size_t i;

	memcpy(s, name, nlen);
	s[nlen] = '\0';
	if (inet_aton(s, &in4) == 1) {
		egress_addr_from_v4(&a, ntohl(in4.s_addr));
		CHECK(t->is_addr && memcmp(&t->addr, &a, sizeof(a)) == 0);
	}
	if (inet_pton(AF_INET6, s, in6) == 1) {
		egress_addr_from_v6(&a, in6);
		CHECK(t->is_addr && memcmp(&t->addr, &a, sizeof(a)) == 0);
	}
	if (nlen >= 2 && s[0] == '[' && s[nlen - 1] == ']') {
		memcpy(inner, s + 1, nlen - 2);
		inner[nlen - 2] = '\0';
		if (inet_pton(AF_INET6, inner, in6) == 1) {
			egress_addr_from_v6(&a, in6);
			CHECK(t->is_addr &&
			    memcmp(&t->addr, &a, sizeof(a)) == 0);
		}
	}
	if (!t->is_addr) {
		/* A name for DNS: normalized, its last label not numeric. */
		for (i = 0; t->host[i] != '\0'; i++)
			CHECK((t->host[i] >= 'a' && t->host[i] <= 'z') ||
			    (t->host[i] >= '0' && t->host[i] <= '9') ||
			    strchr("-_.", t->host[i]) != NULL);
		CHECK(i > 0 && t->host[i - 1] != '.');
		last = strrchr(t->host, '.');
		last = last ? last + 1 : t->host;
		CHECK(!(*last >= '0' && *last <= '9'));
		CHECK(inet_aton(t->host, &in4) == 0);
	}
	/* Normalized once is normalized. */
	CHECK(egress_host_parse(t->host, strlen(t->host), &again, &err) == 0);
	again.port = t->port;
	CHECK(fuzz_same_target(&again, t));
}

static void
check_ok(const uint8_t *b, size_t used, const struct egress_target *t)
{
	struct egress_addr a;

	CHECK(t->port != 0 && t->port == (b[used - 2] << 8 | b[used - 1]));
	CHECK(t->host[0] != '\0' &&
	    memchr(t->host, '\0', sizeof(t->host)) != NULL);
	switch (b[3]) {
	case SOCKS_ATYP_V4:
		CHECK(used == 10);
		egress_addr_from_v4(&a, (uint32_t)b[4] << 24 |
		    (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7]);
		CHECK(t->is_addr && memcmp(&t->addr, &a, sizeof(a)) == 0);
		break;
	case SOCKS_ATYP_V6:
		CHECK(used == 22);
		egress_addr_from_v6(&a, b + 4);
		CHECK(t->is_addr && memcmp(&t->addr, &a, sizeof(a)) == 0);
		break;
	case SOCKS_ATYP_DOMAIN:
		CHECK(used == 7u + b[4]);
		check_domain(b + 5, b[4], t);
		break;
	default:
		abort();
	}
}

static void
check_request(const uint8_t *b, size_t len)
{
	struct socksmsg_req r, again;
	uint8_t *p;
	size_t used, used2, k;
	int rep, rep2;

	/* No more than the proxy looks at (socks.c). */
	if (len > SOCKSMSG_REQUEST_MAX)
		len = SOCKSMSG_REQUEST_MAX;
	p = dup_exact(b, len);
	rep = socksmsg_request(p, len, &r, &used);
	CHECK(used <= len);
	if (rep == SOCKSMSG_MORE || rep == SOCKSMSG_CLOSE) {
		CHECK(used == 0 && is_zero(&r.target, sizeof(r.target)));
		CHECK(rep == SOCKSMSG_MORE || (len >= 4 && b[0] != 5 &&
		    r.reason == EGRESS_R_INVALID_REQUEST));
		free(p);
		return;
	}
	CHECK(len >= 4 && b[0] == SOCKS_VERSION && used > 0);
	if (rep == SOCKS_REP_OK)
		check_ok(b, used, &r.target);
	else {
		CHECK(r.reason == reason_of(rep));
		CHECK(is_zero(&r.target, sizeof(r.target)));
	}
	free(p);

	/*
	 * What a request is depends on its own bytes only: every prefix
	 * waits for more, or is the same refusal; the request alone is the
	 * same request.
	 */
	for (k = 0; k <= used; k++) {
		p = dup_exact(b, k);
		rep2 = socksmsg_request(p, k, &again, &used2);
		free(p);
		if (k < used && rep2 == SOCKSMSG_MORE)
			continue;
		CHECK(rep2 == rep);
		if (rep == SOCKS_REP_OK) {
			CHECK(k == used && used2 == used);
			CHECK(fuzz_same_target(&again.target, &r.target));
		} else
			CHECK(again.reason == r.reason && used2 <= k);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t used;

	check_greeting(data, size);
	if (socksmsg_greeting(data, size, &used) == SOCKSMSG_MORE)
		used = 0;
	check_request(data + used, size - used);
	return 0;
}
