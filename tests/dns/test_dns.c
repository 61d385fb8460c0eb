/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dns: the c-ares resolver against a fake DNS server that lives on
 * the same event_base.  The server answers from a table and records every
 * question, so a test can also prove which names were (not) asked.
 */
#include <sys/socket.h>
#include <sys/time.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "dns/dns.h"
#include "egress/egress.h"

/* ---------------------------------------------------------------- */
/* The fake server. */

enum fk {
	FK_SAME = 0,	/* aaaa_kind: as for A */
	FK_ADDRS,	/* NOERROR with the listed records of the asked type */
	FK_NXDOMAIN,
	FK_SERVFAIL,
	FK_REFUSED,
	FK_DROP		/* never answer */
};

struct fake_entry {
	const char	*name;
	enum fk		 kind;
	enum fk		 aaaa_kind;	/* for AAAA questions */
	const char	*addrs;		/* space separated, v4 and v6 mixed */
};

static char many_addrs[1024];	/* filled by setup: 34 addresses */

static const struct fake_entry zone[] = {
	{ "a.test", FK_ADDRS, FK_SAME, "192.0.2.1 192.0.2.2" },
	{ "aaaa.test", FK_ADDRS, FK_SAME, "2001:db8::1" },
	{ "mixed.test", FK_ADDRS, FK_SAME,
	    "192.0.2.1 192.0.2.1 2001:db8::1 192.0.2.2 2001:db8::1 "
	    "::ffff:192.0.2.2 2001:db8::2" },
	{ "nx.test", FK_NXDOMAIN, FK_SAME, NULL },
	{ "fail.test", FK_SERVFAIL, FK_SAME, NULL },
	{ "refused.test", FK_REFUSED, FK_SAME, NULL },
	{ "empty.test", FK_ADDRS, FK_SAME, "" },
	{ "drop.test", FK_DROP, FK_SAME, NULL },
	{ "v4-aaaafail.test", FK_ADDRS, FK_SERVFAIL, "198.51.100.7" },
	{ "v4-aaaadrop.test", FK_ADDRS, FK_DROP, "198.51.100.8" },
	{ "nx-aaaanodata.test", FK_NXDOMAIN, FK_ADDRS, "" },
	{ "many-addrs.test", FK_ADDRS, FK_SAME, many_addrs },
};

#define LOG_MAX		4096
#define LOG_NAME	272

struct fake {
	int		 fd;
	uint16_t	 port;
	struct event	*ev;
	size_t		 nlog;
	char		(*log)[LOG_NAME];	/* "name A" or "name AAAA" */
};

static const struct fake_entry *
zone_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(zone) / sizeof(zone[0]); i++)
		if (strcasecmp(zone[i].name, name) == 0)
			return &zone[i];
	return NULL;
}

static size_t
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
	return 2;
}

/* Append one answer record pointing at the question name. */
static size_t
put_rr(uint8_t *p, uint16_t type, const void *rdata, uint16_t rdlen)
{
	size_t	n = 0;

	n += put16(p + n, 0xc00c);
	n += put16(p + n, type);
	n += put16(p + n, 1);
	n += put16(p + n, 0);
	n += put16(p + n, 60);
	n += put16(p + n, rdlen);
	memcpy(p + n, rdata, rdlen);
	return n + rdlen;
}

/* "cN.many.test" answers A 10.1.N/256.N%256, for the concurrency test. */
static size_t
answers_many(const char *name, uint16_t qtype, uint8_t *p, uint16_t *an)
{
	unsigned	n;
	uint8_t		v4[4];
	char		tail[32];

	if (sscanf(name, "c%u.%31s", &n, tail) != 2 ||
	    strcmp(tail, "many.test") != 0)
		return (size_t)-1;
	if (qtype != 1)
		return 0;
	v4[0] = 10;
	v4[1] = 1;
	v4[2] = n >> 8;
	v4[3] = n & 0xff;
	*an = 1;
	return put_rr(p, 1, v4, 4);
}

static size_t
answers_zone(const struct fake_entry *e, uint16_t qtype, uint8_t *p,
    size_t room, uint16_t *an)
{
	char		 buf[1024], *tok, *save = NULL;
	uint8_t		 a[16];
	size_t		 n = 0;

	if (e->addrs == NULL)
		return 0;
	snprintf(buf, sizeof(buf), "%s", e->addrs);
	for (tok = strtok_r(buf, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save)) {
		if (n + 40 > room)
			break;
		if (qtype == 1 && inet_pton(AF_INET, tok, a) == 1) {
			n += put_rr(p + n, 1, a, 4);
			(*an)++;
		} else if (qtype == 28 && strchr(tok, ':') != NULL &&
		    inet_pton(AF_INET6, tok, a) == 1) {
			n += put_rr(p + n, 28, a, 16);
			(*an)++;
		}
	}
	return n;
}

/* Parse the one question; fills name (lower case) and returns its end. */
static size_t
parse_question(const uint8_t *q, size_t len, char *name, size_t namelen,
    uint16_t *qtype)
{
	size_t	off = 12, out = 0;

	if (len < 12 || q[4] != 0 || q[5] != 1)
		return 0;
	while (off < len && q[off] != 0) {
		size_t	l = q[off++];

		if (l > 63 || off + l > len || out + l + 2 > namelen)
			return 0;
		if (out > 0)
			name[out++] = '.';
		while (l-- > 0)
			name[out++] = tolower(q[off++]);
	}
	name[out] = '\0';
	if (off + 5 > len)
		return 0;
	off++;
	*qtype = (uint16_t)(q[off] << 8 | q[off + 1]);
	return off + 4;
}

static void
fake_answer(struct fake *f, const uint8_t *q, size_t len,
    const struct sockaddr_storage *from, socklen_t fromlen)
{
	const struct fake_entry	*e;
	uint8_t			 resp[1500];
	char			 name[256];
	size_t			 qend, n;
	uint16_t		 qtype, an = 0;
	enum fk			 kind;
	int			 rcode = 0;

	if ((qend = parse_question(q, len, name, sizeof(name), &qtype)) == 0)
		return;
	if (f->nlog < LOG_MAX)
		snprintf(f->log[f->nlog++], LOG_NAME, "%s %s", name,
		    qtype == 1 ? "A" : qtype == 28 ? "AAAA" : "OTHER");
	memcpy(resp, q, qend);
	n = qend;
	e = zone_find(name);
	kind = e == NULL ? FK_NXDOMAIN : e->kind;
	if (e != NULL && qtype == 28 && e->aaaa_kind != FK_SAME)
		kind = e->aaaa_kind;
	if (e == NULL) {
		size_t	m = answers_many(name, qtype, resp + n, &an);

		if (m != (size_t)-1) {
			kind = FK_ADDRS;
			n += m;
		}
	}
	switch (kind) {
	case FK_SAME:
	case FK_DROP:
		return;
	case FK_NXDOMAIN:
		rcode = 3;
		break;
	case FK_SERVFAIL:
		rcode = 2;
		break;
	case FK_REFUSED:
		rcode = 5;
		break;
	case FK_ADDRS:
		if (e != NULL)
			n += answers_zone(e, qtype, resp + n,
			    sizeof(resp) - n, &an);
		break;
	}
	resp[2] = 0x84 | (q[2] & 0x01);		/* QR, AA, RD echoed */
	resp[3] = 0x80 | rcode;			/* RA */
	put16(resp + 6, an);
	put16(resp + 8, 0);
	put16(resp + 10, 0);
	(void)sendto(f->fd, resp, n, 0, (const struct sockaddr *)from,
	    fromlen);
}

/*
 * A few datagrams per wakeup, so the resolver's socket gets its turn and
 * neither side's receive buffer overflows under load.
 */
static void
fake_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fake		*f = arg;
	struct sockaddr_storage	 from;
	socklen_t		 fromlen;
	uint8_t			 buf[1500];
	ssize_t			 len;
	int			 i;

	(void)what;
	for (i = 0; i < 8; i++) {
		fromlen = sizeof(from);
		len = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
		    (struct sockaddr *)&from, &fromlen);
		if (len < 0)
			return;
		fake_answer(f, buf, (size_t)len, &from, fromlen);
	}
}

/* Listen on 127.0.0.1:0 (or [::1]:0); false if the family is missing. */
static bool
fake_start(struct fake *f, struct event_base *base, int family)
{
	struct sockaddr_storage	ss;
	socklen_t		sslen;
	int			sz = 4 << 20;

	memset(f, 0, sizeof(*f));
	f->log = calloc(LOG_MAX, sizeof(*f->log));
	assert_non_null(f->log);
	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sslen = sizeof(*sin);
	} else {
		struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_loopback;
		sslen = sizeof(*sin6);
	}
	f->fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->fd == -1 || bind(f->fd, (struct sockaddr *)&ss, sslen) == -1) {
		if (f->fd != -1)
			close(f->fd);
		free(f->log);
		f->log = NULL;
		return false;
	}
	/* Best effort: 400 queries may land before we read any. */
	(void)setsockopt(f->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	sslen = sizeof(ss);
	assert_int_equal(getsockname(f->fd, (struct sockaddr *)&ss, &sslen),
	    0);
	f->port = ntohs(family == AF_INET ?
	    ((struct sockaddr_in *)&ss)->sin_port :
	    ((struct sockaddr_in6 *)&ss)->sin6_port);
	f->ev = event_new(base, f->fd, EV_READ | EV_PERSIST, fake_read_cb, f);
	assert_non_null(f->ev);
	assert_int_equal(event_add(f->ev, NULL), 0);
	return true;
}

static void
fake_stop(struct fake *f)
{
	if (f->ev != NULL)
		event_free(f->ev);
	if (f->fd > 0)
		close(f->fd);
	free(f->log);
	memset(f, 0, sizeof(*f));
}

static bool
fake_asked(const struct fake *f, const char *entry)
{
	size_t	i;

	for (i = 0; i < f->nlog; i++)
		if (strcmp(f->log[i], entry) == 0)
			return true;
	return false;
}

/*
 * The server was asked exactly these questions ("name TYPE" each), each
 * at least once (c-ares retries a SERVFAIL), and nothing else.
 */
static void
assert_asked(const struct fake *f, const char *const *want, size_t nwant)
{
	size_t	i, j;

	for (j = 0; j < nwant; j++)
		if (!fake_asked(f, want[j]))
			fail_msg("server was not asked \"%s\"", want[j]);
	for (i = 0; i < f->nlog; i++) {
		for (j = 0; j < nwant; j++)
			if (strcmp(f->log[i], want[j]) == 0)
				break;
		if (j == nwant)
			fail_msg("server was asked \"%s\"", f->log[i]);
	}
}

/* ---------------------------------------------------------------- */
/* Harness. */

struct result {
	int			called;
	enum dns_status		st;
	size_t			naddrs;
	struct egress_addr	addrs[DNS_MAX_ADDRS];
	struct timespec		when;
	/* optional actions from inside the callback */
	struct dns_query	*cancel;	/* cancel this one */
	struct dns_resolver	**free_res;	/* free and clear this */
	struct dns_resolver	*chain_res;	/* start chain_name on it */
	const char		*chain_name;
	struct result		*chain_result;
};

struct fx {
	struct event_base	*base;
	struct fake		 fake;
	struct dns_resolver	*r;
};

static double
ms_since(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e3 + (b->tv_nsec - a->tv_nsec) / 1e6;
}

static void
on_result(enum dns_status st, const struct egress_addr *addrs, size_t n,
    void *arg)
{
	struct result	*res = arg;

	res->called++;
	res->st = st;
	res->naddrs = n;
	assert_true(n <= DNS_MAX_ADDRS);
	if (n > 0) {
		assert_non_null(addrs);
		memcpy(res->addrs, addrs, n * sizeof(*addrs));
	}
	clock_gettime(CLOCK_MONOTONIC, &res->when);
	if (res->cancel != NULL) {
		dns_cancel(res->cancel);
		res->cancel = NULL;
	}
	if (res->chain_res != NULL) {
		assert_non_null(dns_resolve(res->chain_res, res->chain_name,
		    on_result, res->chain_result));
		res->chain_res = NULL;
	}
	if (res->free_res != NULL) {
		dns_resolver_free(*res->free_res);
		*res->free_res = NULL;
	}
}

static void
guard_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	*(bool *)arg = true;
}

/* Run the loop until every result has been called, or ms elapse. */
static void
run_until(struct event_base *base, struct result *res, size_t n, int ms)
{
	struct timeval	 tv = { ms / 1000, (ms % 1000) * 1000 };
	struct event	*guard;
	bool		 expired = false;
	size_t		 i;

	guard = evtimer_new(base, guard_cb, &expired);
	assert_non_null(guard);
	assert_int_equal(evtimer_add(guard, &tv), 0);
	while (!expired) {
		for (i = 0; res != NULL && i < n; i++)
			if (res[i].called == 0)
				break;
		if (res != NULL && i == n)
			break;
		assert_int_not_equal(event_base_loop(base, EVLOOP_ONCE), -1);
	}
	event_free(guard);
}

static void
run_ms(struct event_base *base, int ms)
{
	run_until(base, NULL, 0, ms);	/* nothing to wait for: runs ms */
}

static struct dns_resolver *
resolver_at(struct fx *fx, uint32_t timeout_ms)
{
	struct dns_server	 srv;
	struct dns_resolver	*r;
	char			 err[256] = "";

	egress_addr_from_v4(&srv.addr, INADDR_LOOPBACK);
	srv.port = fx->fake.port;
	r = dns_resolver_new(fx->base, &srv, 1, timeout_ms, err, sizeof(err));
	if (r == NULL)
		fail_msg("dns_resolver_new: %s", err);
	return r;
}

static int
setup(void **state)
{
	struct fx	*fx;
	size_t		 i, off = 0;

	/* 20 A and 14 AAAA: each answer stays under 512 bytes. */
	for (i = 0; i < 20; i++)
		off += (size_t)snprintf(many_addrs + off,
		    sizeof(many_addrs) - off, "203.0.113.%zu ", i + 1);
	for (i = 0; i < 14; i++)
		off += (size_t)snprintf(many_addrs + off,
		    sizeof(many_addrs) - off, "2001:db8::1:%zx ", i + 1);
	fx = calloc(1, sizeof(*fx));
	assert_non_null(fx);
	fx->base = event_base_new();
	assert_non_null(fx->base);
	assert_true(fake_start(&fx->fake, fx->base, AF_INET));
	fx->r = resolver_at(fx, 2000);
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fx	*fx = *state;

	dns_resolver_free(fx->r);
	fake_stop(&fx->fake);
	event_base_free(fx->base);
	free(fx);
	return 0;
}

static void
addr_parse(struct egress_addr *a, const char *s)
{
	struct in_addr	in;
	uint8_t		b[16];

	if (inet_pton(AF_INET, s, &in) == 1)
		egress_addr_from_v4(a, ntohl(in.s_addr));
	else {
		assert_int_equal(inet_pton(AF_INET6, s, b), 1);
		egress_addr_from_v6(a, b);
	}
}

/* The result holds exactly these addresses, in this order. */
static void
assert_addrs(const struct result *res, const char *want)
{
	struct egress_addr	 a;
	char			 buf[1024], *tok, *save = NULL;
	size_t			 i = 0;

	snprintf(buf, sizeof(buf), "%s", want);
	for (tok = strtok_r(buf, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save), i++) {
		addr_parse(&a, tok);
		if (i >= res->naddrs)
			fail_msg("missing address %zu (%s)", i, tok);
		if (memcmp(&a, &res->addrs[i], sizeof(a)) != 0)
			fail_msg("address %zu is not %s", i, tok);
	}
	assert_int_equal(res->naddrs, i);
}

/* ---------------------------------------------------------------- */
/* Tests. */

static const struct {
	const char	*name;
	enum dns_status	 st;
	const char	*addrs;
} cases[] = {
	{ "a.test", DNS_OK, "192.0.2.1 192.0.2.2" },
	{ "aaaa.test", DNS_OK, "2001:db8::1" },
	/* duplicates within and across families, and a mapped AAAA */
	{ "mixed.test", DNS_OK, "192.0.2.1 192.0.2.2 2001:db8::1 2001:db8::2" },
	{ "nx.test", DNS_NXDOMAIN, "" },
	{ "unknown.test", DNS_NXDOMAIN, "" },
	{ "fail.test", DNS_SERVFAIL, "" },
	{ "refused.test", DNS_SERVFAIL, "" },
	{ "empty.test", DNS_NODATA, "" },
	{ "nx-aaaanodata.test", DNS_NODATA, "" },
	{ "v4-aaaafail.test", DNS_OK, "198.51.100.7" },
	{ "MiXeD.TeSt", DNS_OK, "192.0.2.1 192.0.2.2 2001:db8::1 2001:db8::2" },
};

static void
test_table(void **state)
{
	struct fx	*fx = *state;
	size_t		 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct result	 res;
		char		 qa[LOG_NAME], qaaaa[LOG_NAME], lower[64];
		const char	*want[2] = { qa, qaaaa };
		size_t		 k;

		memset(&res, 0, sizeof(res));
		fx->fake.nlog = 0;
		assert_non_null(dns_resolve(fx->r, cases[i].name, on_result,
		    &res));
		assert_int_equal(res.called, 0);	/* never synchronous */
		run_until(fx->base, &res, 1, 3000);
		assert_int_equal(res.called, 1);
		if (res.st != cases[i].st)
			fail_msg("%s: got %s, want %s", cases[i].name,
			    dns_status_name(res.st),
			    dns_status_name(cases[i].st));
		assert_addrs(&res, cases[i].addrs);
		for (k = 0; cases[i].name[k] != '\0' && k < sizeof(lower) - 1;
		    k++)
			lower[k] = tolower((unsigned char)cases[i].name[k]);
		lower[k] = '\0';
		snprintf(qa, sizeof(qa), "%s A", lower);
		snprintf(qaaaa, sizeof(qaaaa), "%s AAAA", lower);
		assert_asked(&fx->fake, want, 2);
	}
}

static void
test_cap(void **state)
{
	struct fx	*fx = *state;
	struct result	 res;
	char		 want[1024];
	size_t		 i, off = 0;

	memset(&res, 0, sizeof(res));
	assert_non_null(dns_resolve(fx->r, "many-addrs.test", on_result,
	    &res));
	run_until(fx->base, &res, 1, 3000);
	assert_int_equal(res.called, 1);
	assert_int_equal(res.st, DNS_OK);
	/*
	 * Every address is handed over, IPv4 first: all must be judged.  A
	 * larger answer than DNS_MAX_ADDRS is refused whole; that needs DNS
	 * over TCP, which tests/cli/cli.sh checks against tests/dnsd.py.
	 */
	for (i = 0; i < 20; i++)
		off += (size_t)snprintf(want + off, sizeof(want) - off,
		    "203.0.113.%zu ", i + 1);
	for (i = 0; i < 14; i++)
		off += (size_t)snprintf(want + off, sizeof(want) - off,
		    "2001:db8::1:%zx ", i + 1);
	assert_addrs(&res, want);
}

static void
test_timeout(void **state)
{
	struct fx		*fx = *state;
	struct dns_resolver	*r = resolver_at(fx, 300);
	struct result		 res;
	struct timespec		 t0;
	const char		*want[] = { "drop.test A", "drop.test AAAA" };
	double			 ms;

	memset(&res, 0, sizeof(res));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_non_null(dns_resolve(r, "drop.test", on_result, &res));
	run_until(fx->base, &res, 1, 5000);
	assert_int_equal(res.called, 1);
	assert_int_equal(res.st, DNS_TIMEOUT);
	assert_int_equal(res.naddrs, 0);
	ms = ms_since(&t0, &res.when);
	if (ms < 250 || ms > 2000)
		fail_msg("timeout after %.0f ms", ms);
	/* c-ares's own retries end later; they must stay silent. */
	run_ms(fx->base, 1000);
	assert_int_equal(res.called, 1);
	assert_asked(&fx->fake, want, 2);
	/* Nobody wants it any more: c-ares let it go. */
	assert_int_equal(dns_outstanding(r), 0);
	dns_resolver_free(r);
}

/* A answered, AAAA never: what we have, once the budget is spent. */
static void
test_timeout_partial(void **state)
{
	struct fx		*fx = *state;
	struct dns_resolver	*r = resolver_at(fx, 300);
	struct result		 res;
	struct timespec		 t0;
	double			 ms;

	memset(&res, 0, sizeof(res));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_non_null(dns_resolve(r, "v4-aaaadrop.test", on_result, &res));
	run_until(fx->base, &res, 1, 5000);
	assert_int_equal(res.called, 1);
	assert_int_equal(res.st, DNS_OK);
	assert_addrs(&res, "198.51.100.8");
	ms = ms_since(&t0, &res.when);
	if (ms < 250 || ms > 2000)
		fail_msg("answer after %.0f ms", ms);
	run_ms(fx->base, 800);
	assert_int_equal(res.called, 1);
	dns_resolver_free(r);
}

static void
test_cancel(void **state)
{
	struct fx		*fx = *state;
	struct result		 res[2];
	struct dns_query	*q;

	memset(res, 0, sizeof(res));
	/* Answered after the cancel: the late answer is dropped. */
	q = dns_resolve(fx->r, "a.test", on_result, &res[0]);
	assert_non_null(q);
	dns_cancel(q);
	/* Never answered: still in c-ares when the resolver goes. */
	q = dns_resolve(fx->r, "drop.test", on_result, &res[1]);
	assert_non_null(q);
	dns_cancel(q);
	dns_cancel(NULL);
	run_ms(fx->base, 300);
	assert_true(fake_asked(&fx->fake, "a.test A"));
	assert_true(fake_asked(&fx->fake, "a.test AAAA"));
	assert_int_equal(res[0].called, 0);
	assert_int_equal(res[1].called, 0);
}

static void
test_cancel_from_callback(void **state)
{
	struct fx	*fx = *state;
	struct result	 res[3];

	memset(res, 0, sizeof(res));
	/* The first answer cancels a pending query and its own handle. */
	assert_non_null(res[0].cancel = dns_resolve(fx->r, "drop.test",
	    on_result, &res[1]));
	assert_non_null(dns_resolve(fx->r, "a.test", on_result, &res[0]));
	run_until(fx->base, &res[0], 1, 3000);
	assert_int_equal(res[0].called, 1);
	res[2].cancel = dns_resolve(fx->r, "aaaa.test", on_result, &res[2]);
	assert_non_null(res[2].cancel);
	run_until(fx->base, &res[2], 1, 3000);
	assert_int_equal(res[2].called, 1);
	run_ms(fx->base, 2500);
	assert_int_equal(res[1].called, 0);
	assert_int_equal(res[0].called, 1);
	assert_int_equal(res[2].called, 1);
}

/*
 * Lookups outstanding are capped (SPEC 4 Limits); cancelled ones that
 * c-ares still held are let go as soon as none of its queries is wanted,
 * not at its timeout; starting them costs no walk over the others.
 */
static void
test_lookup_cap(void **state)
{
	struct fx		*fx = *state;
	struct dns_resolver	*r = resolver_at(fx, 5000);
	struct dns_query	**q;
	struct result		 res, late;
	struct timespec		 t0, t1;
	size_t			 i;

	memset(&res, 0, sizeof(res));
	memset(&late, 0, sizeof(late));
	q = calloc(DNS_MAX_LOOKUPS, sizeof(*q));
	assert_non_null(q);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < DNS_MAX_LOOKUPS; i++) {
		assert_false(dns_busy(r));
		q[i] = dns_resolve(r, "drop.test", on_result, &res);
		assert_non_null(q[i]);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("# %d lookups started in %.0f ms\n", DNS_MAX_LOOKUPS,
	    ms_since(&t0, &t1));
	assert_true(dns_busy(r));
	assert_int_equal(dns_outstanding(r), DNS_MAX_LOOKUPS);
	assert_null(dns_resolve(r, "a.test", on_result, &late));
	/* One still wanted keeps the others in c-ares, counted. */
	for (i = 1; i < DNS_MAX_LOOKUPS; i++)
		dns_cancel(q[i]);
	run_ms(fx->base, 20);
	assert_int_equal(dns_outstanding(r), DNS_MAX_LOOKUPS);
	/* The last one cancelled: all let go in the next pass of the loop. */
	dns_cancel(q[0]);
	run_ms(fx->base, 20);
	assert_int_equal(dns_outstanding(r), 0);
	assert_false(dns_busy(r));
	assert_int_equal(res.called, 0);
	/* And the resolver goes on answering. */
	assert_non_null(dns_resolve(r, "a.test", on_result, &late));
	run_until(fx->base, &late, 1, 3000);
	assert_int_equal(late.called, 1);
	assert_int_equal(late.st, DNS_OK);
	dns_resolver_free(r);
	free(q);
}

static void
test_chain(void **state)
{
	struct fx	*fx = *state;
	struct result	 res[2];

	memset(res, 0, sizeof(res));
	res[0].chain_res = fx->r;
	res[0].chain_name = "aaaa.test";
	res[0].chain_result = &res[1];
	assert_non_null(dns_resolve(fx->r, "a.test", on_result, &res[0]));
	run_until(fx->base, res, 2, 3000);
	assert_int_equal(res[0].st, DNS_OK);
	assert_int_equal(res[1].called, 1);
	assert_int_equal(res[1].st, DNS_OK);
	assert_addrs(&res[1], "2001:db8::1");
}

#define NMANY	200

static void
test_many(void **state)
{
	struct fx	*fx = *state;
	struct result	*res;
	char		 name[64], want[32];
	size_t		 i;

	dns_resolver_free(fx->r);
	fx->r = resolver_at(fx, 5000);
	res = calloc(NMANY, sizeof(*res));
	assert_non_null(res);
	for (i = 0; i < NMANY; i++) {
		snprintf(name, sizeof(name), "c%zu.many.test", i);
		assert_non_null(dns_resolve(fx->r, name, on_result, &res[i]));
	}
	run_until(fx->base, res, NMANY, 10000);
	for (i = 0; i < NMANY; i++) {
		assert_int_equal(res[i].called, 1);
		assert_int_equal(res[i].st, DNS_OK);
		snprintf(want, sizeof(want), "10.1.%zu.%zu", i >> 8, i & 0xff);
		assert_addrs(&res[i], want);
	}
	free(res);
}

/* Freed with lookups in every state: nothing called back, nothing lost. */
static void
test_free_outstanding(void **state)
{
	struct fx		*fx = *state;
	struct dns_resolver	*r = resolver_at(fx, 2000);
	struct result		 res[6];
	const char		*names[] = { "a.test", "drop.test", "mixed.test",
				    "drop.test", "v4-aaaadrop.test", "nx.test" };
	size_t			 i;

	memset(res, 0, sizeof(res));
	for (i = 0; i < 6; i++)
		assert_non_null(dns_resolve(r, names[i], on_result, &res[i]));
	dns_resolver_free(r);
	run_ms(fx->base, 200);
	for (i = 0; i < 6; i++)
		assert_int_equal(res[i].called, 0);

	/* Again, after some answers have arrived in c-ares. */
	r = resolver_at(fx, 2000);
	memset(res, 0, sizeof(res));
	for (i = 0; i < 6; i++)
		assert_non_null(dns_resolve(r, names[i], on_result, &res[i]));
	run_until(fx->base, res, 1, 3000);
	dns_resolver_free(r);
	run_ms(fx->base, 200);
	assert_int_equal(res[0].called, 1);
	assert_int_equal(res[1].called, 0);
	assert_int_equal(res[3].called, 0);
	assert_int_equal(res[4].called, 0);
}

/* The caller may tear the resolver down from inside a callback. */
static void
test_free_from_callback(void **state)
{
	struct fx	*fx = *state;
	struct result	 res[3];

	memset(res, 0, sizeof(res));
	res[0].free_res = &fx->r;
	assert_non_null(dns_resolve(fx->r, "drop.test", on_result, &res[1]));
	assert_non_null(dns_resolve(fx->r, "a.test", on_result, &res[0]));
	assert_non_null(dns_resolve(fx->r, "mixed.test", on_result, &res[2]));
	run_until(fx->base, res, 1, 3000);
	assert_int_equal(res[0].called, 1);
	assert_null(fx->r);
	run_ms(fx->base, 300);
	assert_int_equal(res[1].called, 0);
	/* mixed.test may have finished in the same read; never twice. */
	assert_true(res[2].called <= 1);
}

static void
test_bad_names(void **state)
{
	struct fx	*fx = *state;
	struct result	 res;
	char		 name[300];

	memset(&res, 0, sizeof(res));
	assert_null(dns_resolve(fx->r, "", on_result, &res));
	assert_null(dns_resolve(fx->r, NULL, on_result, &res));
	assert_null(dns_resolve(fx->r, "a.test", NULL, &res));
	assert_null(dns_resolve(NULL, "a.test", on_result, &res));
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_null(dns_resolve(fx->r, name, on_result, &res));

	/* c-ares refuses a 64-byte label: reported later, from the loop. */
	memset(name, 'b', 64);
	strcpy(name + 64, ".test");
	assert_non_null(dns_resolve(fx->r, name, on_result, &res));
	assert_int_equal(res.called, 0);
	run_until(fx->base, &res, 1, 3000);
	assert_int_equal(res.called, 1);
	assert_int_equal(res.st, DNS_ERROR);
	assert_int_equal(fx->fake.nlog, 0);
}

static void
test_ipv6_server(void **state)
{
	struct fx		*fx = *state;
	struct fake		 f6;
	struct dns_server	 srv;
	struct dns_resolver	*r;
	struct result		 res;
	char			 err[256];
	const char		*want[] = { "mixed.test A", "mixed.test AAAA" };

	if (!fake_start(&f6, fx->base, AF_INET6))
		skip();
	egress_addr_from_v6(&srv.addr, in6addr_loopback.s6_addr);
	srv.port = f6.port;
	r = dns_resolver_new(fx->base, &srv, 1, 2000, err, sizeof(err));
	if (r == NULL)
		fail_msg("dns_resolver_new: %s", err);
	memset(&res, 0, sizeof(res));
	assert_non_null(dns_resolve(r, "mixed.test", on_result, &res));
	run_until(fx->base, &res, 1, 3000);
	assert_int_equal(res.st, DNS_OK);
	assert_addrs(&res, "192.0.2.1 192.0.2.2 2001:db8::1 2001:db8::2");
	assert_asked(&f6, want, 2);
	assert_int_equal(fx->fake.nlog, 0);
	dns_resolver_free(r);
	fake_stop(&f6);
}

/* System configuration: the hosts file answers localhost. */
static void
test_system_hosts(void **state)
{
	struct fx		*fx = *state;
	struct dns_resolver	*r;
	struct result		 res;
	struct egress_addr	 lo;
	char			 err[256];
	size_t			 i;
	bool			 found = false;

	r = dns_resolver_new(fx->base, NULL, 0, 2000, err, sizeof(err));
	if (r == NULL)
		fail_msg("dns_resolver_new: %s", err);
	memset(&res, 0, sizeof(res));
	assert_non_null(dns_resolve(r, "localhost", on_result, &res));
	assert_int_equal(res.called, 0);
	run_until(fx->base, &res, 1, 3000);
	assert_int_equal(res.called, 1);
	assert_int_equal(res.st, DNS_OK);
	addr_parse(&lo, "127.0.0.1");
	for (i = 0; i < res.naddrs; i++)
		if (memcmp(&res.addrs[i], &lo, sizeof(lo)) == 0)
			found = true;
	assert_true(found);
	dns_resolver_free(r);
}

static void
test_new_errors(void **state)
{
	struct fx		*fx = *state;
	struct dns_server	 srv;
	char			 err[256] = "";

	assert_null(dns_resolver_new(NULL, NULL, 0, 100, err, sizeof(err)));
	assert_true(err[0] != '\0');
	err[0] = '\0';
	assert_null(dns_resolver_new(fx->base, NULL, 1, 100, err,
	    sizeof(err)));
	assert_true(err[0] != '\0');
	assert_null(dns_resolver_new(NULL, NULL, 0, 100, NULL, 0));
	dns_resolver_free(NULL);
	/* Port 0 means 53; only construction is checked here. */
	egress_addr_from_v4(&srv.addr, INADDR_LOOPBACK);
	srv.port = 0;
	dns_resolver_free(dns_resolver_new(fx->base, &srv, 1, 0, err,
	    sizeof(err)));
}

static void
test_status_names(void **state)
{
	(void)state;
	assert_string_equal(dns_status_name(DNS_OK), "ok");
	assert_string_equal(dns_status_name(DNS_NXDOMAIN), "nxdomain");
	assert_string_equal(dns_status_name(DNS_NODATA), "nodata");
	assert_string_equal(dns_status_name(DNS_SERVFAIL), "servfail");
	assert_string_equal(dns_status_name(DNS_TIMEOUT), "timeout");
	assert_string_equal(dns_status_name(DNS_ERROR), "error");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_names),
		cmocka_unit_test_setup_teardown(test_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_partial, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_from_callback,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookup_cap, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_outstanding, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_free_from_callback, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bad_names, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ipv6_server, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_system_hosts, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_new_errors, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
