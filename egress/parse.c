/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Hosts, ports and targets as requests and rules spell them (SPEC 3.2).
 * Every function takes (pointer, length) and reads nothing past it.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "egress/egress.h"

#define LABEL_MAX	63

static int
lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool
is_xdigit(int c)
{
	c = lower(c);
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

static bool
is_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || is_digit(c) || c == '-' ||
	    c == '_' || c == '.';
}

/*
 * One part of an inet_aton(3) spelling: decimal, 0-prefixed octal or
 * 0x-prefixed hexadecimal.  An empty part, or "0x" with no digits, is
 * refused even where some libc would take it as zero.
 */
static int
v4_part(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	size_t i = 0;

	if (len == 0)
		return -1;
	if (len >= 2 && s[0] == '0' && lower(s[1]) == 'x') {
		base = 16;
		i = 2;
		if (i == len)
			return -1;
	} else if (len >= 2 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	for (; i < len; i++) {
		unsigned d;

		if (base == 16 && is_xdigit(s[i]))
			d = is_digit(s[i]) ? s[i] - '0' : lower(s[i]) - 'a' + 10;
		else if (is_digit(s[i]) && (unsigned)(s[i] - '0') < base)
			d = s[i] - '0';
		else
			return -1;
		v = v * base + d;
		if (v > UINT32_MAX)
			return -1;
	}
	*out = v;
	return 0;
}

/* Every spelling glibc's inet_aton accepts: a, a.b, a.b.c, a.b.c.d. */
static int
v4_parse_numeric(const char *s, size_t len, uint32_t *out)
{
	uint64_t part[4];
	size_t n = 0, start = 0, i;
	uint64_t v;

	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (n == 4 || v4_part(s + start, i - start, &part[n]) == -1)
			return -1;
		n++;
		start = i + 1;
	}
	for (i = 0; i + 1 < n; i++)
		if (part[i] > 255)
			return -1;
	v = part[n - 1];
	if (v > (UINT32_MAX >> (8 * (n - 1))))
		return -1;
	for (i = 0; i + 1 < n; i++)
		v |= part[i] << (8 * (3 - i));
	*out = (uint32_t)v;
	return 0;
}

/*
 * WHATWG's "ends in a number" (the last label is decimal or 0x-hex), made
 * stricter: a last label that starts with a digit is numeric, so that a
 * botched address ("1.2.3.0x1g", "1.2.3.4a") is refused, never resolved.
 * No top-level domain starts with a digit.
 */
static bool
ends_in_number(const char *s, size_t len)
{
	size_t start = len;

	while (start > 0 && s[start - 1] != '.')
		start--;
	return start < len && is_digit(s[start]);
}

static int
v6_parse(const char *s, size_t len, struct egress_target *t,
    const char **err)
{
	char buf[INET6_ADDRSTRLEN + 1];
	uint8_t b[16];
	size_t i;

	if (len == 0 || len >= sizeof(buf)) {
		*err = "invalid IPv6 address";
		return -1;
	}
	for (i = 0; i < len; i++) {
		if (!is_xdigit(s[i]) && s[i] != ':' && s[i] != '.') {
			*err = "invalid IPv6 address";
			return -1;
		}
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET6, buf, b) != 1) {
		*err = "invalid IPv6 address";
		return -1;
	}
	t->is_addr = true;
	egress_addr_from_v6(&t->addr, b);
	egress_addr_format(&t->addr, t->host, sizeof(t->host));
	return 0;
}

static int
name_check(const char *s, size_t len, const char **err)
{
	size_t i, label = 0;

	if (len == 0) {
		*err = "empty host";
		return -1;
	}
	if (len > EGRESS_HOST_MAX) {
		*err = "host name longer than 253 characters";
		return -1;
	}
	for (i = 0; i < len; i++) {
		if (!is_name_char(s[i])) {
			*err = "host holds a character outside a-z 0-9 . - _";
			return -1;
		}
		if (s[i] != '.') {
			if (++label > LABEL_MAX) {
				*err = "host label longer than 63 characters";
				return -1;
			}
			continue;
		}
		if (label == 0) {
			*err = "host has an empty label";
			return -1;
		}
		label = 0;
	}
	if (label == 0) {
		*err = "host has an empty label";
		return -1;
	}
	return 0;
}

int
egress_host_parse(const char *s, size_t len, struct egress_target *t,
    const char **err)
{
	char *name = t->host;
	uint32_t v4;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']')
		return v6_parse(s + 1, len - 2, t, err);
	if (memchr(s, ':', len) != NULL || memchr(s, '[', len) != NULL ||
	    memchr(s, ']', len) != NULL)
		return v6_parse(s, len, t, err);
	if (len > 0 && s[len - 1] == '.')
		len--;
	if (len > EGRESS_HOST_MAX) {
		*err = "host name longer than 253 characters";
		return -1;
	}
	for (i = 0; i < len; i++)
		name[i] = lower((unsigned char)s[i]);
	name[len] = '\0';
	if (name_check(name, len, err) == -1) {
		name[0] = '\0';
		return -1;
	}
	if (ends_in_number(name, len)) {
		if (v4_parse_numeric(name, len, &v4) == -1) {
			name[0] = '\0';
			*err = "numeric host is not an IPv4 address";
			return -1;
		}
		t->is_addr = true;
		egress_addr_from_v4(&t->addr, v4);
		egress_addr_format(&t->addr, t->host, sizeof(t->host));
		return 0;
	}
	return 0;
}

int
egress_port_parse(const char *s, size_t len, uint16_t *port)
{
	uint32_t v = 0;
	size_t i;

	if (len == 0 || len > 5 || s[0] == '0')
		return -1;
	for (i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

/*
 * Split host[:port] or [v6][:port].  *hlen is the host's length with its
 * brackets; *pstart is NULL when there is no port.
 */
static int
split_hostport(const char *s, size_t len, size_t *hlen, const char **pstart,
    size_t *plen, const char **err)
{
	const char *end = s + len, *p;

	*pstart = NULL;
	*plen = 0;
	if (len > 0 && s[0] == '[') {
		p = memchr(s, ']', len);
		if (p == NULL) {
			*err = "unterminated '['";
			return -1;
		}
		*hlen = p + 1 - s;
		p++;
	} else {
		p = memchr(s, ':', len);
		if (p != NULL && memchr(p + 1, ':', end - p - 1) != NULL) {
			*err = "IPv6 address must be in brackets";
			return -1;
		}
		*hlen = (p == NULL ? end : p) - s;
	}
	if (p == NULL || p == end)
		return 0;
	if (*p != ':') {
		*err = "junk after host";
		return -1;
	}
	*pstart = p + 1;
	*plen = end - p - 1;
	return 0;
}

/* "http://", "https://": the default port; 0 for no scheme; -1 otherwise. */
static int
scheme_port(const char *s, size_t len, size_t *skip)
{
	static const struct {
		const char	*name;
		uint16_t	 port;
	} schemes[] = {
		{ "http://", 80 },
		{ "https://", 443 },
	};
	const char *sep;
	size_t i, j, n;

	*skip = 0;
	sep = NULL;
	for (i = 0; i + 2 < len; i++) {
		if (s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/') {
			sep = s + i;
			break;
		}
		if (s[i] == '/' || s[i] == '[')
			break;
	}
	if (sep == NULL)
		return 0;
	for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		n = strlen(schemes[i].name);
		if ((size_t)(sep - s) + 3 != n)
			continue;
		for (j = 0; j < n && lower((unsigned char)s[j]) ==
		    schemes[i].name[j]; j++)
			;
		if (j == n) {
			*skip = n;
			return schemes[i].port;
		}
	}
	return -1;
}

int
egress_target_parse(const char *s, size_t len, struct egress_target *t,
    const char **err)
{
	const char *pstart;
	size_t skip, hlen, plen, alen;
	int defport;

	memset(t, 0, sizeof(*t));
	defport = scheme_port(s, len, &skip);
	if (defport == -1) {
		*err = "only http:// and https:// URLs are targets";
		return -1;
	}
	s += skip;
	len -= skip;
	alen = len;
	if (defport != 0) {
		for (alen = 0; alen < len && s[alen] != '/' && s[alen] != '?' &&
		    s[alen] != '#'; alen++)
			;
		if (memchr(s, '@', alen) != NULL) {
			*err = "userinfo in URL";
			return -1;
		}
	}
	if (split_hostport(s, alen, &hlen, &pstart, &plen, err) == -1)
		return -1;
	if (egress_host_parse(s, hlen, t, err) == -1)
		return -1;
	if (pstart == NULL) {
		if (defport == 0) {
			*err = "missing port";
			return -1;
		}
		t->port = (uint16_t)defport;
		return 0;
	}
	if (egress_port_parse(pstart, plen, &t->port) == -1) {
		*err = "invalid port";
		return -1;
	}
	return 0;
}

static int
prefix_parse(const char *s, size_t len, unsigned max, unsigned *out)
{
	unsigned v = 0;
	size_t i;

	if (len == 0 || len > 3 || (len > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

static bool
host_bits_clear(const struct egress_addr *a, unsigned plen)
{
	unsigned i;

	for (i = plen; i < 128; i++)
		if (a->b[i / 8] & (0x80 >> (i % 8)))
			return false;
	return true;
}

/* addr/len[:port], with addr bracketed when IPv6. */
static int
rule_cidr(const char *s, size_t len, const char *slash,
    struct egress_rule *r, const char **err)
{
	struct egress_target t;
	const char *end = s + len, *colon;
	unsigned plen;
	bool v4;

	if (egress_host_parse(s, slash - s, &t, err) == -1)
		return -1;
	if (!t.is_addr) {
		*err = "a prefix length needs an address";
		return -1;
	}
	/* "::ffff:10.0.0.0/8" is IPv6 text too, even though it is mapped. */
	if (s[0] != '[' && memchr(s, ':', slash - s) != NULL) {
		*err = "IPv6 address must be in brackets";
		return -1;
	}
	/* A bracketed prefix counts in the 128-bit space, even when mapped. */
	v4 = s[0] != '[';
	colon = memchr(slash, ':', end - slash);
	if (prefix_parse(slash + 1, (colon ? colon : end) - slash - 1,
	    v4 ? 32 : 128, &plen) == -1) {
		*err = "invalid prefix length";
		return -1;
	}
	if (colon != NULL && egress_port_parse(colon + 1, end - colon - 1,
	    &r->port) == -1) {
		*err = "invalid port";
		return -1;
	}
	r->kind = EGRESS_RULE_CIDR;
	r->addr = t.addr;
	r->plen = v4 ? plen + 96 : plen;
	if (!host_bits_clear(&r->addr, r->plen)) {
		*err = "address has bits set beyond its prefix length";
		return -1;
	}
	return 0;
}

/* host[:port], [v6][:port], *.suffix[:port]. */
static int
rule_host(const char *s, size_t len, struct egress_rule *r, const char **err)
{
	struct egress_target t;
	const char *pstart;
	size_t hlen, plen;
	bool wild = false;

	if (split_hostport(s, len, &hlen, &pstart, &plen, err) == -1)
		return -1;
	if (pstart != NULL && egress_port_parse(pstart, plen, &r->port) == -1) {
		*err = "invalid port";
		return -1;
	}
	if (hlen >= 2 && s[0] == '*' && s[1] == '.') {
		wild = true;
		s += 2;
		hlen -= 2;
	}
	if (egress_host_parse(s, hlen, &t, err) == -1)
		return -1;
	if (t.is_addr) {
		if (wild) {
			*err = "a wildcard needs a name, not an address";
			return -1;
		}
		if (!egress_addr_is_v4(&t.addr) && s[0] != '[') {
			*err = "IPv6 address must be in brackets";
			return -1;
		}
		r->kind = EGRESS_RULE_CIDR;
		r->addr = t.addr;
		r->plen = 128;
		return 0;
	}
	r->kind = wild ? EGRESS_RULE_WILDCARD : EGRESS_RULE_HOST;
	memcpy(r->host, t.host, sizeof(r->host));
	return 0;
}

int
egress_rule_parse(const char *s, size_t len, bool allow,
    struct egress_rule *r, const char **err)
{
	const char *slash;
	size_t skip;
	int defport;

	memset(r, 0, sizeof(*r));
	r->allow = allow;
	if (len == 1 && s[0] == '*') {
		*err = "'*' is not a rule; use 'default allow'";
		return -1;
	}
	defport = scheme_port(s, len, &skip);
	if (defport == -1) {
		*err = "only http:// and https:// URLs are rules";
		return -1;
	}
	if (defport != 0) {
		s += skip;
		len -= skip;
		if (len > 0 && s[len - 1] == '/')
			len--;
		if (memchr(s, '/', len) != NULL || memchr(s, '?', len) ||
		    memchr(s, '#', len)) {
			*err = "a rule cannot hold a path";
			return -1;
		}
		if (memchr(s, '@', len) != NULL) {
			*err = "userinfo in URL";
			return -1;
		}
		if (rule_host(s, len, r, err) == -1)
			return -1;
		if (r->port == 0)
			r->port = (uint16_t)defport;
		return 0;
	}
	slash = memchr(s, '/', len);
	if (slash != NULL)
		return rule_cidr(s, len, slash, r, err);
	return rule_host(s, len, r, err);
}

void
egress_rule_format(const struct egress_rule *r, char *buf, size_t len)
{
	char a[EGRESS_ADDRSTR_MAX], p[8] = "";
	bool v4;

	if (r->port != 0)
		snprintf(p, sizeof(p), ":%u", r->port);
	switch (r->kind) {
	case EGRESS_RULE_HOST:
		snprintf(buf, len, "%s%s", r->host, p);
		break;
	case EGRESS_RULE_WILDCARD:
		snprintf(buf, len, "*.%s%s", r->host, p);
		break;
	case EGRESS_RULE_CIDR:
		egress_addr_format(&r->addr, a, sizeof(a));
		v4 = egress_addr_is_v4(&r->addr) && r->plen >= 96;
		if (r->plen == 128)
			snprintf(buf, len, v4 ? "%s%s" : "[%s]%s", a, p);
		else
			snprintf(buf, len, v4 ? "%s/%u%s" : "[%s]/%u%s", a,
			    v4 ? r->plen - 96u : (unsigned)r->plen, p);
		break;
	}
}
