/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The policy file (SPEC 3.1): one directive a line, words separated by
 * blanks, '#' to the end of the line a comment.  Anything not understood
 * is an error naming the line; nothing is ignored.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"

#define MAX_WORDS	256

#define DEFAULT_CONNECT_TIMEOUT	15000
#define DEFAULT_DNS_TIMEOUT	5000
#define DEFAULT_HEADER_TIMEOUT	10000
#define DEFAULT_IDLE_TIMEOUT	300000
#define DEFAULT_DRAIN_TIMEOUT	10000
#define DEFAULT_LOG_WAIT	1000	/* SPEC 5 */
#define DEFAULT_MAX_CONNECTIONS	4096
#define DEFAULT_MAX_HEADER	65536
#define MAX_DURATION		86400000u	/* one day */

struct word {
	const char	*s;
	size_t		 len;
};

struct parser {
	struct conf	*conf;
	const char	*name;
	unsigned	 line;
	char		*err;
	size_t		 errlen;
	uint32_t	 seen;	/* single-valued directives already given */
};

struct directive {
	const char	*name;
	int		 min, max;	/* value words; max -1: unbounded */
	bool		 repeatable;
	int		(*fn)(struct parser *, const struct directive *,
			    const struct word *, int);
	size_t		 field;		/* offset of the uint32_t it sets */
	uint32_t	 lo, hi;	/* bounds of a number or duration */
};

static int
perr(struct parser *ps, const char *fmt, ...)
{
	char msg[CONF_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(ps->err, ps->errlen, "%s:%u: %s", ps->name, ps->line, msg);
	return -1;
}

static bool
word_is(const struct word *w, const char *s)
{
	return w->len == strlen(s) && memcmp(w->s, s, w->len) == 0;
}

/* A word as printable text for a message, cut and made safe. */
static void
word_show(const struct word *w, char *buf, size_t len)
{
	size_t i, n = w->len < len - 1 ? w->len : len - 1;

	for (i = 0; i < n; i++)
		buf[i] = (w->s[i] > 0x20 && w->s[i] < 0x7f) ? w->s[i] : '?';
	buf[n] = '\0';
}

static int
parse_switch(struct parser *ps, const struct directive *d,
    const struct word *w, const char *on, const char *off, bool *out)
{
	char show[64];

	if (word_is(w, on))
		*out = true;
	else if (word_is(w, off))
		*out = false;
	else {
		word_show(w, show, sizeof(show));
		return perr(ps, "%s: '%s' is not %s or %s", d->name, show,
		    on, off);
	}
	return 0;
}

static int
d_default(struct parser *ps, const struct directive *d, const struct word *w,
    int n)
{
	bool allow;

	if (parse_switch(ps, d, &w[0], "allow", "deny", &allow) == -1)
		return -1;
	egress_policy_set_default_allow(ps->conf->policy, allow);
	return 0;
}

static int
d_block_private(struct parser *ps, const struct directive *d,
    const struct word *w, int n)
{
	bool on;

	if (parse_switch(ps, d, &w[0], "on", "off", &on) == -1)
		return -1;
	egress_policy_set_block_private(ps->conf->policy, on);
	return 0;
}

static int
d_mode(struct parser *ps, const struct directive *d, const struct word *w,
    int n)
{
	bool report;

	if (parse_switch(ps, d, &w[0], "report", "enforce", &report) == -1)
		return -1;
	egress_policy_set_report(ps->conf->policy, report);
	return 0;
}

static int
d_log_failure(struct parser *ps, const struct directive *d,
    const struct word *w, int n)
{
	return parse_switch(ps, d, &w[0], "serve", "refuse",
	    &ps->conf->log_failure_serve);
}

static int
d_transparent(struct parser *ps, const struct directive *d,
    const struct word *w, int n)
{
	return parse_switch(ps, d, &w[0], "on", "off",
	    &ps->conf->transparent);
}

static int
d_upstream_resolve(struct parser *ps, const struct directive *d,
    const struct word *w, int n)
{
	return parse_switch(ps, d, &w[0], "parent", "local",
	    &ps->conf->upstream_parent);
}

/*
 * upstream http://ADDR:PORT[/]: an address, not a name (the parent is
 * reached before any lookup of ours), and no credentials, which would
 * sit in a policy file and a report.
 */
static int
d_upstream(struct parser *ps, const struct directive *d,
    const struct word *w, int n)
{
	const char *s = w->s, *err = NULL;
	size_t len = w->len;
	char show[300];

	word_show(w, show, sizeof(show));
	if (len < 7 || strncmp(s, "http://", 7) != 0)
		return perr(ps, "%s '%s': want http://ADDR:PORT", d->name, show);
	s += 7;
	len -= 7;
	if (len > 0 && s[len - 1] == '/')
		len--;
	if (memchr(s, '@', len) != NULL)
		return perr(ps, "%s '%s': credentials in the URL are not "
		    "supported", d->name, show);
	if (memchr(s, '/', len) != NULL || conf_sockaddr_parse(s, len, 0,
	    false, &ps->conf->upstream, &err) == -1)
		return perr(ps, "%s '%s': want http://ADDR:PORT (an IP "
		    "address, not a name)%s%s", d->name, show, err != NULL ?
		    ": " : "", err != NULL ? err : "");
	ps->conf->has_upstream = true;
	return 0;
}

static int
d_allow_loopback(struct parser *ps, const struct directive *d,
    const struct word *w, int n)
{
	bool on;

	if (parse_switch(ps, d, &w[0], "on", "off", &on) == -1)
		return -1;
	egress_policy_set_allow_loopback(ps->conf->policy, on);
	return 0;
}

static int
d_rules(struct parser *ps, const struct directive *d, const struct word *w,
    int n)
{
	struct egress_rule r;
	const char *err;
	char show[300];
	bool allow = strcmp(d->name, "allow") == 0;
	int i;

	for (i = 0; i < n; i++) {
		if (egress_rule_parse(w[i].s, w[i].len, allow, &r, &err) == -1) {
			word_show(&w[i], show, sizeof(show));
			/* "*github.com": a wildcard is "*." and a suffix. */
			if (w[i].len > 1 && w[i].s[0] == '*' && w[i].s[1] != '.')
				return perr(ps, "%s rule '%s': a wildcard is "
				    "*.suffix: did you mean '*.%s'?", d->name,
				    show, show + 1);
			return perr(ps, "%s rule '%s': %s", d->name, show, err);
		}
		r.line = ps->line;
		if (egress_policy_add(ps->conf->policy, &r) == -1)
			return perr(ps, "out of memory");
	}
	return 0;
}

/*
 * exempt ADDR|CIDR...: out of the special-purpose registry, any port.  A
 * metadata address cannot be exempted, nor can a rule with a port or a
 * name (exempt allows nothing; it only lifts block_private).
 */
static int
d_exempt(struct parser *ps, const struct directive *d, const struct word *w,
    int n)
{
	struct egress_rule r;
	struct egress_addr meta;
	const char *err;
	char show[300], a[EGRESS_ADDRSTR_MAX];
	int i;

	for (i = 0; i < n; i++) {
		word_show(&w[i], show, sizeof(show));
		if (egress_rule_parse(w[i].s, w[i].len, true, &r, &err) == -1)
			return perr(ps, "exempt '%s': %s", show, err);
		if (r.kind != EGRESS_RULE_CIDR)
			return perr(ps, "exempt '%s': want an address or a "
			    "CIDR, not a name", show);
		if (r.port != 0)
			return perr(ps, "exempt '%s': an exempt address "
			    "takes no port (it allows nothing; allow rules do)",
			    show);
		if (egress_cidr_metadata(&r, &meta)) {
			egress_addr_format(&meta, a, sizeof(a));
			return perr(ps, "exempt '%s': holds the metadata "
			    "address %s, which cannot be exempted", show, a);
		}
		r.line = ps->line;
		if (egress_policy_add_exempt(ps->conf->policy, &r) == -1)
			return perr(ps, "out of memory");
	}
	(void)d;
	return 0;
}

static int
d_sockaddr(struct parser *ps, const struct directive *d,
    const struct word *w, int n)
{
	struct conf *c = ps->conf;
	struct conf_sockaddr sa;
	const char *err;
	char show[64];
	bool listen = strcmp(d->name, "listen") == 0;

	if (conf_sockaddr_parse(w[0].s, w[0].len, listen ? 0 : 53, listen,
	    &sa, &err) == -1) {
		word_show(&w[0], show, sizeof(show));
		return perr(ps, "%s '%s': %s", d->name, show, err);
	}
	if (listen) {
		if (c->nlisten == CONF_MAX_LISTEN)
			return perr(ps, "more than %d listen lines",
			    CONF_MAX_LISTEN);
		c->listen[c->nlisten++] = sa;
	} else {
		if (c->nresolver == CONF_MAX_RESOLVERS)
			return perr(ps, "more than %d resolver lines",
			    CONF_MAX_RESOLVERS);
		c->resolver[c->nresolver++] = sa;
	}
	return 0;
}

static int
d_duration(struct parser *ps, const struct directive *d,
    const struct word *w, int n)
{
	static const struct {
		const char	*unit;
		uint32_t	 ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60000 } };
	uint64_t v = 0;
	size_t i, u;
	char show[64];

	for (i = 0; i < w->len && w->s[i] >= '0' && w->s[i] <= '9'; i++) {
		v = v * 10 + (w->s[i] - '0');
		if (v > MAX_DURATION)	/* too long: say so, not "no unit" */
			v = MAX_DURATION + 1;
	}
	for (u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		if (i == 0 || (i > 1 && w->s[0] == '0') ||
		    w->len - i != strlen(units[u].unit) ||
		    memcmp(w->s + i, units[u].unit, w->len - i) != 0)
			continue;
		v *= units[u].ms;
		if (v < d->lo || v > d->hi)
			return perr(ps, "%s must be between %ums and %ums",
			    d->name, d->lo, d->hi);
		*(uint32_t *)((char *)ps->conf + d->field) = (uint32_t)v;
		return 0;
	}
	word_show(w, show, sizeof(show));
	return perr(ps, "%s '%s': want a number with a unit: ms, s or m",
	    d->name, show);
}

static int
d_number(struct parser *ps, const struct directive *d, const struct word *w,
    int n)
{
	uint64_t v = 0;
	size_t i;
	char show[64];

	for (i = 0; i < w->len && i < 11; i++) {
		if (w->s[i] < '0' || w->s[i] > '9')
			break;
		v = v * 10 + (w->s[i] - '0');
	}
	if (w->len == 0 || i != w->len || (w->s[0] == '0' && w->len > 1)) {
		word_show(w, show, sizeof(show));
		return perr(ps, "%s '%s': want a whole number", d->name, show);
	}
	if (v < d->lo || v > d->hi)
		return perr(ps, "%s must be between %u and %u", d->name, d->lo,
		    d->hi);
	*(uint32_t *)((char *)ps->conf + d->field) = (uint32_t)v;
	return 0;
}

#define FIELD(f)	offsetof(struct conf, f)

static const struct directive directives[] = {
	{ "default", 1, 1, false, d_default, 0, 0, 0 },
	{ "block_private", 1, 1, false, d_block_private, 0, 0, 0 },
	{ "allow_loopback", 1, 1, false, d_allow_loopback, 0, 0, 0 },
	{ "mode", 1, 1, false, d_mode, 0, 0, 0 },
	{ "transparent", 1, 1, false, d_transparent, 0, 0, 0 },
	{ "upstream", 1, 1, false, d_upstream, 0, 0, 0 },
	{ "upstream_resolve", 1, 1, false, d_upstream_resolve, 0, 0, 0 },
	{ "allow", 1, -1, true, d_rules, 0, 0, 0 },
	{ "deny", 1, -1, true, d_rules, 0, 0, 0 },
	{ "exempt", 1, -1, true, d_exempt, 0, 0, 0 },
	{ "resolver", 1, 1, true, d_sockaddr, 0, 0, 0 },
	{ "listen", 1, 1, true, d_sockaddr, 0, 0, 0 },
	{ "connect_timeout", 1, 1, false, d_duration,
	    FIELD(connect_timeout), 1, MAX_DURATION },
	{ "dns_timeout", 1, 1, false, d_duration,
	    FIELD(dns_timeout), 1, MAX_DURATION },
	{ "header_timeout", 1, 1, false, d_duration,
	    FIELD(header_timeout), 1, MAX_DURATION },
	{ "idle_timeout", 1, 1, false, d_duration,
	    FIELD(idle_timeout), 1, MAX_DURATION },
	{ "drain_timeout", 1, 1, false, d_duration,
	    FIELD(drain_timeout), 0, MAX_DURATION },
	{ "max_connections", 1, 1, false, d_number,
	    FIELD(max_connections), 1, 1000000 },
	{ "max_header_bytes", 1, 1, false, d_number,
	    FIELD(max_header_bytes), 1024, 1048576 },
	{ "log_failure_action", 1, 1, false, d_log_failure, 0, 0, 0 },
	{ "log_wait", 1, 1, false, d_duration, FIELD(log_wait), 0, 60000 },
	{ "listen_backlog", 1, 1, false, d_number,
	    FIELD(listen_backlog), 1, 1000000 },
};

static int
parse_words(struct parser *ps, const struct word *w, int n)
{
	const struct directive *d;
	char show[64];
	size_t i;
	int nvals = n - 1;

	for (i = 0; i < sizeof(directives) / sizeof(directives[0]); i++) {
		d = &directives[i];
		if (!word_is(&w[0], d->name))
			continue;
		if (!d->repeatable && (ps->seen & (1u << i)))
			return perr(ps, "%s given twice", d->name);
		ps->seen |= 1u << i;
		if (nvals < d->min)
			return perr(ps, "%s needs a value", d->name);
		if (d->max != -1 && nvals > d->max)
			return perr(ps, "%s takes one value", d->name);
		return d->fn(ps, d, w + 1, nvals);
	}
	word_show(&w[0], show, sizeof(show));
	return perr(ps, "unknown directive '%s'", show);
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int
parse_line(struct parser *ps, const char *s, size_t len)
{
	struct word w[MAX_WORDS];
	size_t i = 0, start;
	int n = 0;

	for (;;) {
		while (i < len && is_blank(s[i]))
			i++;
		if (i == len || s[i] == '#')
			break;
		if (n == MAX_WORDS)
			return perr(ps, "more than %d words on a line",
			    MAX_WORDS - 1);
		start = i;
		while (i < len && !is_blank(s[i]) && s[i] != '#')
			i++;
		w[n].s = s + start;
		w[n].len = i - start;
		n++;
	}
	if (n == 0)
		return 0;
	return parse_words(ps, w, n);
}

struct conf *
conf_new(const char *source)
{
	struct conf *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if ((c->source = strdup(source)) == NULL ||
	    (c->policy = egress_policy_new()) == NULL) {
		conf_free(c);
		return NULL;
	}
	c->connect_timeout = DEFAULT_CONNECT_TIMEOUT;
	c->dns_timeout = DEFAULT_DNS_TIMEOUT;
	c->header_timeout = DEFAULT_HEADER_TIMEOUT;
	c->idle_timeout = DEFAULT_IDLE_TIMEOUT;
	c->drain_timeout = DEFAULT_DRAIN_TIMEOUT;
	c->log_wait = DEFAULT_LOG_WAIT;
	c->max_connections = DEFAULT_MAX_CONNECTIONS;
	c->max_header_bytes = DEFAULT_MAX_HEADER;
	c->transparent = true;
	return c;
}

void
conf_free(struct conf *c)
{
	if (c == NULL)
		return;
	egress_policy_free(c->policy);
	free(c->source);
	free(c->bytes);
	free(c);
}

int
conf_keep_bytes(struct conf *c, const char *buf, size_t len)
{
	free(c->bytes);
	if ((c->bytes = malloc(len ? len : 1)) == NULL)
		return -1;
	memcpy(c->bytes, buf, len);
	c->nbytes = len;
	return 0;
}

struct conf *
conf_parse(const char *name, const char *buf, size_t len, char *err,
    size_t errlen)
{
	struct parser ps = { .name = name, .err = err, .errlen = errlen };
	const char *p = buf, *end = buf + len, *nl;

	if ((ps.conf = conf_new(name)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", name);
		return NULL;
	}
	while (p < end) {
		ps.line++;
		nl = memchr(p, '\n', end - p);
		if (nl == NULL)
			nl = end;
		if (memchr(p, '\0', nl - p) != NULL) {
			perr(&ps, "NUL byte in policy");
			goto fail;
		}
		if (parse_line(&ps, p, nl - p) == -1)
			goto fail;
		p = nl + 1;
	}
	if (conf_keep_bytes(ps.conf, buf, len) == -1) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto fail;
	}
	return ps.conf;
fail:
	conf_free(ps.conf);
	return NULL;
}

int
conf_sockaddr_parse(const char *s, size_t len, uint16_t defport,
    bool zero_ok, struct conf_sockaddr *sa, const char **err)
{
	struct egress_target t;
	const char *colon, *hend;

	memset(sa, 0, sizeof(*sa));
	if (len > 0 && s[0] == '[') {
		hend = memchr(s, ']', len);
		if (hend == NULL) {
			*err = "unterminated '['";
			return -1;
		}
		hend++;
		colon = hend < s + len ? hend : NULL;
		if (colon != NULL && *colon != ':') {
			*err = "junk after address";
			return -1;
		}
	} else {
		colon = memchr(s, ':', len);
		hend = colon ? colon : s + len;
	}
	if (egress_host_parse(s, hend - s, &t, err) == -1)
		return -1;
	if (!t.is_addr) {
		*err = "want an IP address, not a name";
		return -1;
	}
	if (!egress_addr_is_v4(&t.addr) && s[0] != '[') {
		*err = "IPv6 address must be in brackets";
		return -1;
	}
	sa->addr = t.addr;
	if (colon == NULL) {
		if (defport == 0) {
			*err = "missing port";
			return -1;
		}
		sa->port = defport;
		return 0;
	}
	if (zero_ok && s + len - colon == 2 && colon[1] == '0')
		return 0;
	if (egress_port_parse(colon + 1, s + len - colon - 1, &sa->port) == -1) {
		*err = "invalid port";
		return -1;
	}
	return 0;
}

void
conf_sockaddr_format(const struct conf_sockaddr *sa, char *buf, size_t len)
{
	char a[EGRESS_ADDRSTR_MAX];

	egress_addr_format(&sa->addr, a, sizeof(a));
	snprintf(buf, len, egress_addr_is_v4(&sa->addr) ? "%s:%u" : "[%s]:%u",
	    a, sa->port);
}
