/*
 * The decision log (SPEC 5): one JSON object a line.  Lines are built by
 * hand: every value is a fixed word, a number, a normalized host (a-z 0-9
 * . - _) or an address, so nothing needs escaping, and no request text
 * (path, query, header, userinfo) ever reaches this file's inputs.
 *
 * Lines collect in a buffer written out when it grows past a threshold and
 * on a short timer, so a slow log never stalls the loop for long.  A
 * running SHA-256 covers exactly the bytes handed to the log.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "proxy/proxy.h"

#define FLUSH_BYTES	(64 * 1024)
#define FLUSH_MS	100

struct dlog {
	int			 fd;
	char			 run_id[40];
	struct evbuffer		*buf;
	struct event		*timer;
	EVP_MD_CTX		*sha;
	struct dlog_totals	 totals;
	bool			 failed;	/* a write failed; said once */
	bool			 sha_failed;	/* the digest is not whole */
};

static const char *const protocol_names[] = {
	[PROXY_HTTP] = "http",
	[PROXY_HTTP_CONNECT] = "http_connect",
	[PROXY_SOCKS5] = "socks5",
};

static void
flush_cb(evutil_socket_t fd, short ev, void *arg)
{
	dlog_flush(arg);
}

struct dlog *
dlog_new(struct event_base *base, int fd, const char *run_id)
{
	struct dlog *l;

	if ((l = calloc(1, sizeof(*l))) == NULL)
		return NULL;
	l->fd = fd;
	if (run_id != NULL)
		snprintf(l->run_id, sizeof(l->run_id), "%s", run_id);
	l->buf = evbuffer_new();
	l->timer = evtimer_new(base, flush_cb, l);
	if (l->buf == NULL || l->timer == NULL) {
		dlog_free(l);
		return NULL;
	}
	return l;
}

/*
 * The digest is started at the first record, not at start-up: OpenSSL's
 * set-up costs about a millisecond that a run without decisions need not
 * pay.  It needs no openssl.cnf, so none is read.
 */
static int
sha_start(struct dlog *l)
{
	if (l->sha != NULL)
		return 0;
	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1 ||
	    (l->sha = EVP_MD_CTX_new()) == NULL)
		return -1;
	if (EVP_DigestInit_ex(l->sha, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(l->sha);
		l->sha = NULL;
		return -1;
	}
	return 0;
}

void
dlog_free(struct dlog *l)
{
	if (l == NULL)
		return;
	if (l->buf != NULL)
		dlog_flush(l);
	if (l->timer != NULL)
		event_free(l->timer);
	if (l->buf != NULL)
		evbuffer_free(l->buf);
	EVP_MD_CTX_free(l->sha);
	free(l);
}

int
dlog_flush(struct dlog *l)
{
	while (l->fd != -1 && evbuffer_get_length(l->buf) > 0) {
		if (evbuffer_write(l->buf, l->fd) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;	/* the timer tries again */
			if (!l->failed)
				fprintf(stderr, "harn-egressd: decision log: "
				    "%s\n", strerror(errno));
			l->failed = true;
			evbuffer_drain(l->buf, evbuffer_get_length(l->buf));
			return -1;
		}
	}
	return 0;
}

void
dlog_totals(struct dlog *l, struct dlog_totals *out)
{
	EVP_MD_CTX *copy;
	unsigned len = 0;

	*out = l->totals;
	out->complete = !l->failed && !l->sha_failed &&
	    evbuffer_get_length(l->buf) == 0;
	memset(out->sha256, 0, sizeof(out->sha256));
	/* A digest that missed a record is no digest: left all zero. */
	if (l->sha_failed || sha_start(l) == -1 ||
	    (copy = EVP_MD_CTX_new()) == NULL)
		return;
	if (EVP_MD_CTX_copy_ex(copy, l->sha) == 1)
		EVP_DigestFinal_ex(copy, out->sha256, &len);
	EVP_MD_CTX_free(copy);
}

/* 2026-12-02T15:30:00.123Z */
static void
format_ts(char *buf, size_t len)
{
	struct timeval tv;
	struct tm tm;

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (long)(tv.tv_usec / 1000));
}

/* Defence in depth: a host that is not normalized text is logged as "". */
static const char *
safe_host(const char *h)
{
	const char *p;

	for (p = h; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '.' || *p == '-' || *p == '_' || *p == ':'))
			return "";
	return h;
}

/*
 * No decision log (run mode without --log): the totals are kept for the
 * report, and each refusal is said on stderr for people, as a diagnostic
 * that no reader takes for a record.
 */
static void
count_only(struct dlog *l, enum proxy_protocol proto, const char *host,
    uint16_t port, bool allow, enum egress_reason reason)
{
	if (allow)
		l->totals.allow++;
	else
		l->totals.deny++;
	if ((unsigned)reason < EGRESS_R_COUNT)
		l->totals.by_reason[reason]++;
	if (!allow)
		fprintf(stderr, "harn-egressd: refused %s %s:%u: %s\n",
		    protocol_names[proto], safe_host(host)[0] != '\0' ?
		    safe_host(host) : "-", port, egress_reason_name(reason));
}

void
dlog_decision(struct dlog *l, enum proxy_protocol proto, const char *host,
    uint16_t port, bool allow, enum egress_reason reason,
    const struct egress_addr *addr)
{
	char line[512], ts[64], a[EGRESS_ADDRSTR_MAX] = "", run[64] = "";
	int n;

	format_ts(ts, sizeof(ts));
	if (allow && addr != NULL)
		egress_addr_format(addr, a, sizeof(a));
	if (l->run_id[0] != '\0')
		snprintf(run, sizeof(run), ",\"run\":\"%s\"", l->run_id);
	n = snprintf(line, sizeof(line), "{\"ts\":\"%s\",\"protocol\":\"%s\","
	    "\"host\":\"%s\",\"port\":%u,\"decision\":\"%s\","
	    "\"reason\":\"%s\"%s%s%s%s}\n", ts, protocol_names[proto],
	    safe_host(host), port, allow ? "allow" : "deny",
	    egress_reason_name(reason), a[0] ? ",\"addr\":\"" : "", a,
	    a[0] ? "\"" : "", run);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	if (l->fd == -1) {
		count_only(l, proto, host, port, allow, reason);
		return;
	}
	if (sha_start(l) == -1 || EVP_DigestUpdate(l->sha, line, n) != 1)
		l->sha_failed = true;
	l->totals.records++;
	l->totals.bytes += (uint64_t)n;
	if (allow)
		l->totals.allow++;
	else
		l->totals.deny++;
	if ((unsigned)reason < EGRESS_R_COUNT)
		l->totals.by_reason[reason]++;
	if (evbuffer_add(l->buf, line, n) == -1) {
		l->failed = true;
		return;
	}
	if (evbuffer_get_length(l->buf) >= FLUSH_BYTES)
		dlog_flush(l);
	else if (!evtimer_pending(l->timer, NULL)) {
		struct timeval tv = { 0, FLUSH_MS * 1000 };

		evtimer_add(l->timer, &tv);
	}
}
