/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run mode's terminal (SPEC 6.1): what was refused is said where the
 * person is, --log or not.  The first refusal of each target is one
 * stderr line naming it, the reason, and what would admit it (the policy
 * line, or the exempt for an address's range, as explain says it); at
 * exit one short summary: refusals by reason, the targets, where the log
 * is.  --quiet: neither.  Direct refusals (cli/direct.c) say their own
 * line and are counted here.
 *
 * Each line is one write(2) of a whole line (stdio's stderr is
 * unbuffered; the line is built first), so it never lands inside
 * another's.  Nothing of a request's text is said: a normalized host, a
 * port, an address, fixed words.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/terminal.h"
#include "egress/egress.h"
#include "proxy/proxy.h"

#define SEEN_MAX	256	/* targets said; more are counted */
#define SUMMARY_TARGETS	5	/* named in the summary */
#define TARGET_LEN	(EGRESS_HOST_MAX + 16)

struct terminal {
	const struct proxy	*px;
	char			*log_path;	/* NULL: no log */
	bool			 quiet;
	uint64_t		 by_reason[EGRESS_R_COUNT];
	uint64_t		 refused;
	char			 seen[SEEN_MAX][TARGET_LEN];
	size_t			 nseen;
	bool			 more;		/* targets past SEEN_MAX */
};

static const char *const protocols[] = {
	[PROXY_HTTP] = "http",
	[PROXY_HTTP_CONNECT] = "http_connect",
	[PROXY_SOCKS5] = "socks5",
	[PROXY_TRANSPARENT] = "transparent",
	[PROXY_DNS] = "dns",
};

struct terminal *
terminal_new(const struct proxy *px, const char *log_path, bool quiet)
{
	struct terminal *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->px = px;
	t->quiet = quiet;
	if (log_path != NULL && strcmp(log_path, "-") != 0 &&
	    (t->log_path = strdup(log_path)) == NULL) {
		free(t);
		return NULL;
	}
	return t;
}

void
terminal_free(struct terminal *t)
{
	if (t == NULL)
		return;
	free(t->log_path);
	free(t);
}

/* Printable ASCII only: a name from the wire is shown, never obeyed. */
static void
printable(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s != '\0' && o + 1 < len; s++)
		out[o++] = (*s > 0x20 && *s < 0x7f) ? *s : '?';
	out[o] = '\0';
}

/* host:port, [v6]:port; "" and 0 as "-". */
static void
target_of(const char *host, unsigned port, char *out, size_t len)
{
	char h[EGRESS_HOST_MAX + 1];

	printable(host != NULL ? host : "", h, sizeof(h));
	if (h[0] == '\0')
		snprintf(out, len, "-");
	else if (port == 0)
		snprintf(out, len, "%s", h);	/* a name lookup (SPEC 6.6) */
	else if (strchr(h, ':') != NULL)
		snprintf(out, len, "[%s]:%u", h, port);
	else
		snprintf(out, len, "%s:%u", h, port);
}

/* First time seen: remembered (true).  Past SEEN_MAX, never "first". */
static bool
first(struct terminal *t, const char *target)
{
	size_t i;

	for (i = 0; i < t->nseen; i++)
		if (strcmp(t->seen[i], target) == 0)
			return false;
	if (t->nseen == SEEN_MAX) {
		t->more = true;
		return false;
	}
	snprintf(t->seen[t->nseen++], TARGET_LEN, "%s", target);
	return true;
}

/* What would admit it, or why nothing will: after the reason. */
static void
remedy(const struct terminal *t, const struct dlog_entry *e,
    const char *target, char *out, size_t len)
{
	const struct conf *c = proxy_conf(t->px);
	char hint[200], a[EGRESS_ADDRSTR_MAX];

	a[0] = '\0';
	if (e->addr != NULL)
		egress_addr_format(e->addr, a, sizeof(a));
	switch (e->reason) {
	case EGRESS_R_NO_ALLOW_RULE:
		if (e->proto == PROXY_DNS)
			snprintf(out, len, ": the policy line 'allow %s:PORT' "
			    "(the port it connects to) would admit it", target);
		else
			snprintf(out, len, ": the policy line 'allow %s' would "
			    "admit it", target);
		break;
	case EGRESS_R_DENY_RULE:
		snprintf(out, len, ": a deny line of the policy refuses it "
		    "(harn-egressd explain names it)");
		break;
	case EGRESS_R_PRIVATE_ADDRESS:
		if (e->addr != NULL && egress_special_hint(c->policy, e->addr,
		    hint, sizeof(hint)) > 0)
			snprintf(out, len, " (%s): %s, or an 'exempt' line for "
			    "its range would admit it", a, hint);
		else
			snprintf(out, len, " (%s)", a);
		break;
	case EGRESS_R_METADATA_ADDRESS:
		snprintf(out, len, " (%s): cloud metadata, never admitted", a);
		break;
	case EGRESS_R_DNS_FAILURE:
		snprintf(out, len, ": the name did not resolve");
		break;
	case EGRESS_R_CONNECT_FAILED:
	case EGRESS_R_CONNECT_TIMEOUT:
		snprintf(out, len, ": admitted, but %s%s did not answer",
		    a[0] != '\0' ? "the last address tried, " : "the host", a);
		break;
	default:
		out[0] = '\0';
		break;
	}
}

void
terminal_decision(void *arg, const struct dlog_entry *e)
{
	struct terminal *t = arg;
	char target[TARGET_LEN], why[400], line[1024];

	target_of(e->host, e->port, target, sizeof(target));
	if (e->allow && e->reason == EGRESS_R_REPORT_ONLY) {
		if (!t->quiet && first(t, target))
			cli_error("report mode let %s %s through: enforcing "
			    "refuses it (%s)", protocols[e->proto], target,
			    egress_reason_name(e->would));
		return;
	}
	if (e->allow)
		return;
	t->refused++;
	if ((unsigned)e->reason < EGRESS_R_COUNT)
		t->by_reason[e->reason]++;
	if (t->quiet || !first(t, target))
		return;
	remedy(t, e, target, why, sizeof(why));
	snprintf(line, sizeof(line), "refused %s %s: %s%s", protocols[e->proto],
	    target, egress_reason_name(e->reason), why);
	cli_error("%s", line);
}

void
terminal_direct(struct terminal *t, const char *endpoint, unsigned count)
{
	(void)first(t, endpoint);	/* said by direct.c */
	t->refused += count;
	t->by_reason[EGRESS_R_NOT_THROUGH_PROXY] += count;
}

bool
terminal_quiet(const struct terminal *t)
{
	return t->quiet;
}

void
terminal_summary(const struct terminal *t)
{
	char line[2048], *p = line, *end = line + sizeof(line);
	const char *sep = "";
	size_t i;

	if (t->quiet || t->refused == 0)
		return;
	p += snprintf(p, (size_t)(end - p), "%ju refused (",
	    (uintmax_t)t->refused);
	for (i = 0; i < EGRESS_R_COUNT && p < end; i++) {
		if (t->by_reason[i] == 0)
			continue;
		p += snprintf(p, (size_t)(end - p), "%s%s %ju", sep,
		    egress_reason_name((enum egress_reason)i),
		    (uintmax_t)t->by_reason[i]);
		sep = ", ";
	}
	for (i = 0, sep = "): "; i < t->nseen && i < SUMMARY_TARGETS &&
	    p < end; i++, sep = ", ")
		p += snprintf(p, (size_t)(end - p), "%s%s", sep, t->seen[i]);
	if (p < end && (t->nseen > SUMMARY_TARGETS || t->more))
		p += snprintf(p, (size_t)(end - p), " and more");
	if (p < end && t->nseen == 0)
		p += snprintf(p, (size_t)(end - p), ")");
	if (p < end)
		snprintf(p, (size_t)(end - p), "; %s%s", t->log_path != NULL ?
		    "decision log: " : "no decision log (--log FILE keeps one)",
		    t->log_path != NULL ? t->log_path : "");
	cli_error("%s", line);
}
