/*
 * The decision log (SPEC 5): one JSON object a line.  Lines are built by
 * hand: every value is a fixed word, a number, a normalized host (a-z 0-9
 * . - _) or an address, so nothing needs escaping, and no request text
 * (path, query, header, userinfo) ever reaches this file's inputs.
 *
 * Lines collect in a bounded buffer written out, whole lines at a time,
 * when it grows past a threshold and on a short timer, to a descriptor
 * made non-blocking: the loop never waits on the log.  A log that fails
 * (a full disk, a closed pipe, deleted) or falls behind is said on
 * stderr, new requests are refused until it recovers (unless the policy
 * says log_failure_action serve), and every record that could not be
 * written is counted (the report's log.lost).  A running SHA-256 and the
 * record count cover exactly the bytes the log took.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "proxy/mstime.h"
#include "proxy/proxy.h"

#define FLUSH_BYTES	(64 * 1024)
#define FLUSH_MS	100
#define RETRY_MS	1000		/* a failed log is tried again */
#define CHUNK		4096		/* PIPE_BUF: a pipe takes it whole */
#define BEHIND_BYTES	(1024 * 1024)	/* past this, no new requests */
#define MAX_BYTES	(4 * 1024 * 1024)	/* past this, records are lost */
#define EXIT_WAIT_MS	1000		/* for a slow reader, at the end */

enum dlog_state {
	LOG_OK,
	LOG_BEHIND,	/* the reader does not keep up: over BEHIND_BYTES */
	LOG_FAILED	/* a write failed (ENOSPC, EPIPE, ...); tried again */
};

struct dlog {
	struct event_base	*base;
	int			 fd;
	unsigned		 reopened;	/* SIGHUP: a new file, times */
	bool			 regular;	/* a file: a torn line is cut */
	bool			 dead;		/* deleted: nothing more to try */
	char			 run_id[40];
	struct evbuffer		*buf;		/* lines not yet written */
	struct event		*timer;
	struct event		*writable;	/* a pipe or socket that was full */
	EVP_MD_CTX		*sha;
	struct dlog_totals	 totals;
	enum dlog_state		 state;
	char			 why[128];	/* of the state, for stderr */
	uint64_t		 lost_said;	/* lost when last said */
	bool			 sha_failed;	/* the digest is not whole */
};

static const char *const protocol_names[] = {
	[PROXY_HTTP] = "http",
	[PROXY_HTTP_CONNECT] = "http_connect",
	[PROXY_SOCKS5] = "socks5",
};

static void
arm(struct dlog *l, int ms)
{
	struct timeval tv = ms_timeval((uint64_t)ms);

	/* Out of memory for the timer: the next decision flushes instead. */
	if (!evtimer_pending(l->timer, NULL))
		(void)evtimer_add(l->timer, &tv);
}

static void
flush_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct dlog *l = arg;

	(void)dlog_flush(l);
	if (!l->dead && evbuffer_get_length(l->buf) > 0)
		arm(l, l->state == LOG_FAILED ? RETRY_MS : FLUSH_MS);
}

/*
 * Take fd as the log.  The loop never waits on it: a pipe that is full
 * says EAGAIN, and is watched for room.  -1 when the watch cannot be made.
 */
static int
use_fd(struct dlog *l, struct event_base *base, int fd)
{
	struct stat st;
	int fl;

	if (l->writable != NULL) {
		event_free(l->writable);
		l->writable = NULL;
	}
	l->fd = fd;
	l->regular = false;
	if (fd == -1)
		return 0;
	l->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if ((fl = fcntl(fd, F_GETFL)) != -1 && !(fl & O_NONBLOCK))
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	if (!l->regular &&
	    (l->writable = event_new(base, fd, EV_WRITE, flush_cb, l)) == NULL)
		return -1;
	return 0;
}

struct dlog *
dlog_new(struct event_base *base, int fd, const char *run_id)
{
	struct dlog *l;

	if ((l = calloc(1, sizeof(*l))) == NULL)
		return NULL;
	l->base = base;
	if (run_id != NULL)
		snprintf(l->run_id, sizeof(l->run_id), "%s", run_id);
	l->buf = evbuffer_new();
	l->timer = evtimer_new(base, flush_cb, l);
	if (l->buf == NULL || l->timer == NULL || use_fd(l, base, fd) == -1) {
		dlog_free(l);
		return NULL;
	}
	return l;
}

int
dlog_reopen(struct dlog *l, int fd)
{
	int old = l->fd;

	/* What the old file takes now is its; the rest goes to the new. */
	(void)dlog_flush(l);
	if (use_fd(l, l->base, fd) == -1) {
		(void)use_fd(l, l->base, old);
		return -1;
	}
	/* A deleted file (rotated away) is no longer a failure. */
	l->dead = false;
	l->reopened++;
	(void)dlog_flush(l);
	return old;
}

unsigned
dlog_reopened(const struct dlog *l)
{
	return l->reopened;
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

/* What is lost so far, once more than was last said. */
static void
say_lost(struct dlog *l)
{
	if (l->totals.lost == l->lost_said)
		return;
	fprintf(stderr, "harn-egressd: decision log: %ju records not "
	    "written (%s)\n", (uintmax_t)l->totals.lost, l->why);
	l->lost_said = l->totals.lost;
}

/* The log's state changed: said on stderr, once a change. */
static void
become(struct dlog *l, enum dlog_state to, const char *why)
{
	if (to == l->state)
		return;
	if (to == LOG_OK) {
		fprintf(stderr, "harn-egressd: decision log: writing again\n");
		say_lost(l);
	} else {
		snprintf(l->why, sizeof(l->why), "%s", why);
		fprintf(stderr, "harn-egressd: decision log: %s; new requests "
		    "are refused (log_unavailable) unless log_failure_action "
		    "is serve\n", why);
	}
	l->state = to;
}

/* How many whole lines the first n bytes of buf hold, and their length. */
static size_t
whole_lines(struct evbuffer *buf, size_t n, uint64_t *nlines)
{
	unsigned char *b = evbuffer_pullup(buf, (ssize_t)n);
	size_t i, end = 0;

	*nlines = 0;
	for (i = 0; b != NULL && i < n; i++)
		if (b[i] == '\n') {
			end = i + 1;
			(*nlines)++;
		}
	return end;
}

/* Hash and count what reached the log, then take it out of the buffer. */
static void
written(struct dlog *l, size_t n)
{
	unsigned char *b = evbuffer_pullup(l->buf, (ssize_t)n);
	uint64_t lines;

	if (n == 0)
		return;
	if (b == NULL || sha_start(l) == -1 ||
	    EVP_DigestUpdate(l->sha, b, n) != 1)
		l->sha_failed = true;
	(void)whole_lines(l->buf, n, &lines);
	l->totals.records += lines;
	l->totals.bytes += n;
	evbuffer_drain(l->buf, n);
}

/*
 * One write of whole lines, at most CHUNK bytes, which a pipe takes whole
 * or not at all.  A file that takes part of one (ENOSPC) is cut back to
 * the line before it, so no torn line is left for the next to be glued
 * to; a socket's torn rest stays first in the buffer and goes next.
 * 0, or -1 with errno.
 */
static int
write_chunk(struct dlog *l)
{
	size_t len = evbuffer_get_length(l->buf), want, keep;
	unsigned char *b;
	uint64_t lines;
	struct stat st;
	ssize_t n;

	want = len < CHUNK ? len : CHUNK;
	if (want < len && (keep = whole_lines(l->buf, want, &lines)) > 0)
		want = keep;
	if ((b = evbuffer_pullup(l->buf, (ssize_t)want)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if ((n = write(l->fd, b, want)) == -1)
		return -1;
	if ((size_t)n == want) {
		written(l, want);
		return 0;
	}
	keep = whole_lines(l->buf, (size_t)n, &lines);
	if (l->regular && (size_t)n > keep && fstat(l->fd, &st) == 0 &&
	    ftruncate(l->fd, st.st_size - (off_t)((size_t)n - keep)) == 0) {
		written(l, keep);
		errno = ENOSPC;
		return -1;
	}
	written(l, (size_t)n);
	return 0;
}

/* The whole lines still held: lost, when they can no longer be written. */
static void
lose_held(struct dlog *l)
{
	uint64_t lines;
	size_t len = evbuffer_get_length(l->buf);

	(void)whole_lines(l->buf, len, &lines);
	l->totals.lost += lines;
	evbuffer_drain(l->buf, len);
}

int
dlog_flush(struct dlog *l)
{
	struct stat st;
	char why[128];

	if (l->fd == -1 || l->dead)
		return l->dead ? -1 : 0;
	/* A deleted log file takes records no one will read. */
	if (l->regular && fstat(l->fd, &st) == 0 && st.st_nlink == 0) {
		l->dead = true;
		become(l, LOG_FAILED, "the log file was deleted");
		lose_held(l);
		say_lost(l);
		return -1;
	}
	while (evbuffer_get_length(l->buf) > 0) {
		if (write_chunk(l) == 0)
			continue;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			/* Full: on again when it can take more. */
			if (l->writable != NULL)
				(void)event_add(l->writable, NULL);
			break;
		}
		/* Kept, and tried again: space may come back. */
		snprintf(why, sizeof(why), "%s", strerror(errno));
		become(l, LOG_FAILED, why);
		arm(l, RETRY_MS);
		return -1;
	}
	if (l->state == LOG_FAILED || (l->state == LOG_BEHIND &&
	    evbuffer_get_length(l->buf) < BEHIND_BYTES / 2))
		become(l, LOG_OK, "");
	return 0;
}

/*
 * May a new request be admitted?  Not while the log fails or is behind,
 * unless the policy says serve (log_failure_action serve): an audit log
 * that cannot keep up stops the proxy, not the record.
 */
bool
dlog_admits(struct dlog *l, bool serve)
{
	if (l == NULL || l->fd == -1 || serve)
		return true;
	return l->state == LOG_OK;
}

/*
 * The end: a slow reader gets a moment more, no longer; what it did not
 * take is lost, counted and said.  Before the totals go in a report.
 */
void
dlog_finish(struct dlog *l)
{
	struct pollfd p;
	int waited = 0;

	if (l == NULL || l->buf == NULL || l->fd == -1)
		return;
	while (evbuffer_get_length(l->buf) > 0 && waited < EXIT_WAIT_MS) {
		if (dlog_flush(l) == -1)
			break;
		if (evbuffer_get_length(l->buf) == 0)
			break;
		p = (struct pollfd){ l->fd, POLLOUT, 0 };
		(void)poll(&p, 1, 100);
		waited += 100;
	}
	if (evbuffer_get_length(l->buf) > 0) {
		if (l->state == LOG_OK)
			snprintf(l->why, sizeof(l->why), "its reader did not "
			    "take them before the end");
		lose_held(l);
	}
	say_lost(l);
}

void
dlog_free(struct dlog *l)
{
	if (l == NULL)
		return;
	dlog_finish(l);
	if (l->timer != NULL)
		event_free(l->timer);
	if (l->writable != NULL)
		event_free(l->writable);
	if (l->buf != NULL)
		evbuffer_free(l->buf);
	EVP_MD_CTX_free(l->sha);
	free(l);
}

void
dlog_totals(struct dlog *l, struct dlog_totals *out)
{
	EVP_MD_CTX *copy;
	unsigned len = 0;

	*out = l->totals;
	out->complete = l->totals.lost == 0 && !l->sha_failed &&
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

/* The length of the UTF-8 sequence at p, or 0 when it is not one. */
static size_t
utf8_len(const unsigned char *p)
{
	size_t n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2, i;

	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
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

/* Count a line's decisions, and queue it; a full buffer loses it. */
static void
record(struct dlog *l, const char *line, int n, bool allow,
    enum egress_reason reason, uint64_t count)
{
	if (allow)
		l->totals.allow += count;
	else
		l->totals.deny += count;
	if ((unsigned)reason < EGRESS_R_COUNT)
		l->totals.by_reason[reason] += count;
	/* Never more than MAX_BYTES held: past it a record is lost, counted. */
	if (l->dead || evbuffer_get_length(l->buf) + (size_t)n > MAX_BYTES ||
	    evbuffer_add(l->buf, line, n) == -1) {
		l->totals.lost++;
		if (!l->dead && l->state == LOG_OK)
			become(l, LOG_BEHIND, "its reader does not keep up");
		if (l->lost_said == 0)
			say_lost(l);
		return;
	}
	if (evbuffer_get_length(l->buf) >= BEHIND_BYTES &&
	    l->state == LOG_OK)
		become(l, LOG_BEHIND, "its reader does not keep up");
	if (evbuffer_get_length(l->buf) >= FLUSH_BYTES)
		(void)dlog_flush(l);
	else
		arm(l, FLUSH_MS);
}

void
dlog_decision(struct dlog *l, enum proxy_protocol proto, const char *host,
    uint16_t port, bool allow, enum egress_reason reason,
    const struct egress_addr *addr)
{
	char line[512], ts[64], a[EGRESS_ADDRSTR_MAX] = "", run[64] = "";
	int n;

	format_ts(ts, sizeof(ts));
	if (addr != NULL)
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
	record(l, line, n, allow, reason, 1);
}

/*
 * A JSON string's inside: the quote, the backslash and control
 * characters escaped; a byte that is not UTF-8 as \u00XX (a path may
 * hold anything).  Cut short, never cut inside an escape.
 */
static void
json_chars(const char *s, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, k, need;
	char esc[8];

	for (; *p != '\0'; p += k) {
		k = 1;
		if (*p == '"' || *p == '\\')
			snprintf(esc, sizeof(esc), "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f || *p >= 0x80) {
			k = *p >= 0xc2 && *p <= 0xf4 ? utf8_len(p) : 0;
			if (k > 1) {
				if (o + k >= len)
					break;
				memcpy(out + o, p, k);
				o += k;
				continue;
			}
			k = 1;
			snprintf(esc, sizeof(esc), "\\u%04X", *p);
		} else
			snprintf(esc, sizeof(esc), "%c", *p);
		need = strlen(esc);
		if (o + need >= len)
			break;
		memcpy(out + o, esc, need);
		o += need;
	}
	out[o] = '\0';
}

void
dlog_direct(struct dlog *l, const char *addr, uint16_t port, pid_t pid,
    const char *exe, uint64_t count)
{
	/*
	 * Each field escaped into a bound of its own, cut short if need be
	 * (json_chars never cuts an escape): the line always fits, so a name
	 * of control characters cannot keep a refusal out of the log.
	 */
	char line[1536], ts[64], a[400], x[800], run[64] = "", who[900] = "";
	char n_[32] = "";
	int n;

	format_ts(ts, sizeof(ts));
	json_chars(addr, a, sizeof(a));
	if (l->run_id[0] != '\0')
		snprintf(run, sizeof(run), ",\"run\":\"%s\"", l->run_id);
	if (pid > 0 && exe != NULL && exe[0] != '\0') {
		json_chars(exe, x, sizeof(x));
		snprintf(who, sizeof(who), ",\"pid\":%ld,\"exe\":\"%s\"",
		    (long)pid, x);
	} else if (pid > 0)
		snprintf(who, sizeof(who), ",\"pid\":%ld", (long)pid);
	if (count > 1)
		snprintf(n_, sizeof(n_), ",\"count\":%ju", (uintmax_t)count);
	n = snprintf(line, sizeof(line), "{\"ts\":\"%s\",\"protocol\":"
	    "\"direct\",\"host\":\"\",\"port\":%u,\"decision\":\"deny\","
	    "\"reason\":\"not_through_proxy\",\"addr\":\"%s\"%s%s%s}\n", ts,
	    port, a, run, who, n_);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		/* Not reached (the fields are bounded); counted regardless. */
		l->totals.deny += count;
		l->totals.by_reason[EGRESS_R_NOT_THROUGH_PROXY] += count;
		l->totals.lost++;
		return;
	}
	if (l->fd == -1) {
		l->totals.deny += count;
		l->totals.by_reason[EGRESS_R_NOT_THROUGH_PROXY] += count;
		return;
	}
	record(l, line, n, false, EGRESS_R_NOT_THROUGH_PROXY, count);
}
