/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The decision log (SPEC 5): one JSON object a line.  Lines are built by
 * hand: every value is a fixed word, a number, a normalized host (a-z 0-9
 * . - _) or an address, so nothing needs escaping, and no request text
 * (path, query, header, userinfo) ever reaches this file's inputs.
 *
 * A decision's line is handed to the kernel (one write(2)) when it is
 * made, before the caller sends anything the decision answers or lets
 * through: no buffer and no timer stand between them, so a proxy killed
 * at any moment leaves no answered request without its line.  A line the
 * log cannot take at once (a pipe whose reader is behind, a full disk, a
 * closed pipe, a deleted file) is not the request's: the request is
 * refused log_unavailable instead, unless the policy says
 * log_failure_action serve.  Only lines whose answers need not wait for
 * them (log_unavailable refusals, and every line under serve) are held,
 * bounded, and written, in order and before any newer line, when the log
 * takes lines again; what cannot be held or written is lost, counted (the
 * report's log.lost) and said on stderr.  The descriptor is non-blocking:
 * the loop never waits on the log.  A running SHA-256 and the record
 * count cover exactly the bytes the log took.
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
#include "proxy/dlog.h"

#define LINE_MAX_LEN	2048	/* an exe of 255 bytes, each escaped in 6 */
#define RETRY_MS	1000		/* a failed log is tried again */
#define CHUNK		4096		/* PIPE_BUF: a pipe takes it whole */
#define MAX_BYTES	(4 * 1024 * 1024)	/* held past this: lost */
#define EXIT_WAIT_MS	1000		/* for a slow reader, at the end */
#define BEHIND_SAY_S	10		/* "does not keep up", at most */

enum dlog_state {
	LOG_OK,
	LOG_BEHIND,	/* a pipe or socket full: its reader is behind */
	LOG_FAILED	/* a write failed (ENOSPC, EPIPE, ...); tried again */
};

struct dlog {
	struct event_base	*base;
	int			 fd;
	unsigned		 reopened;	/* SIGHUP: a new file, times */
	bool			 regular;	/* a file: a torn line is cut */
	bool			 dead;		/* deleted: nothing more to try */
	char			 run_id[40];
	struct evbuffer		*held;		/* lines that may come late */
	struct event		*retry;		/* a failed log, tried again */
	struct event		*writable;	/* a pipe or socket that was full */
	EVP_MD_CTX		*sha;
	struct dlog_totals	 totals;
	enum dlog_state		 state;
	char			 why[128];	/* of the state, for stderr */
	time_t			 behind_said;	/* when "behind" was last said */
	uint64_t		 lost_said;	/* lost when last said */
	bool			 sha_failed;	/* the digest is not whole */
	struct dlog_counts	 counts;	/* for metrics (SPEC 8.1) */
	/* Run mode's terminal: each decision, once recorded. */
	void			(*observe)(void *, const struct dlog_entry *);
	void			*observe_arg;
};

static const char *const protocol_names[] = {
	[PROXY_HTTP] = "http",
	[PROXY_HTTP_CONNECT] = "http_connect",
	[PROXY_SOCKS5] = "socks5",
	[PROXY_TRANSPARENT] = "transparent",
	[PROXY_DNS] = "dns",
};

static int	flush_held(struct dlog *);
static void	become(struct dlog *, enum dlog_state, const char *);

static void
retry_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct dlog *l = arg;
	struct timeval tv = ms_timeval(RETRY_MS);

	/* Out of memory for the timer: the next decision tries instead. */
	if (flush_held(l) == -1 && !l->dead && l->state == LOG_FAILED)
		(void)evtimer_add(l->retry, &tv);
}

static void
writable_cb(evutil_socket_t fd, short ev, void *arg)
{
	(void)flush_held(arg);
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
	if (!l->regular && (l->writable = event_new(base, fd, EV_WRITE,
	    writable_cb, l)) == NULL)
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
	l->held = evbuffer_new();
	l->retry = evtimer_new(base, retry_cb, l);
	if (l->held == NULL || l->retry == NULL ||
	    use_fd(l, base, fd) == -1) {
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
	(void)flush_held(l);
	if (use_fd(l, l->base, fd) == -1) {
		(void)use_fd(l, l->base, old);
		return -1;
	}
	/*
	 * A deleted file (rotated away) is no longer a failure, nor is the
	 * old file's: the new one is taken to work until a write says not.
	 */
	l->dead = false;
	l->reopened++;
	if (flush_held(l) == 0)
		become(l, LOG_OK, "");
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

/*
 * The log's state changed: said on stderr, once a change.  A reader that
 * falls behind and catches up again and again is said once in a while.
 */
static void
become(struct dlog *l, enum dlog_state to, const char *why)
{
	time_t now = time(NULL);

	if (to == l->state)
		return;
	if (to == LOG_OK) {
		if (l->state == LOG_FAILED)
			fprintf(stderr, "harn-egressd: decision log: writing "
			    "again\n");
		say_lost(l);
	} else if (to == LOG_FAILED || now - l->behind_said >= BEHIND_SAY_S) {
		snprintf(l->why, sizeof(l->why), "%s", why);
		fprintf(stderr, "harn-egressd: decision log: %s; new requests "
		    "are refused (log_unavailable) unless log_failure_action "
		    "is serve\n", why);
		if (to == LOG_BEHIND)
			l->behind_said = now;
	}
	l->state = to;
}

/* Hash and count bytes the log took. */
static void
digest(struct dlog *l, const void *p, size_t n)
{
	const char *b = p, *nl;
	size_t left = n;

	if (n == 0)
		return;
	if (sha_start(l) == -1 || EVP_DigestUpdate(l->sha, p, n) != 1)
		l->sha_failed = true;
	l->totals.bytes += n;
	while ((nl = memchr(b, '\n', left)) != NULL) {
		l->totals.records++;
		left -= (size_t)(nl - b) + 1;
		b = nl + 1;
	}
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

/* The whole lines still held: lost, when they can no longer be written. */
static void
lose_held(struct dlog *l)
{
	uint64_t lines;
	size_t len = evbuffer_get_length(l->held);

	(void)whole_lines(l->held, len, &lines);
	l->totals.lost += lines;
	evbuffer_drain(l->held, len);
}

/* A write failed: said, and tried again later (space may come back). */
static void
failed(struct dlog *l, int err)
{
	struct timeval tv = ms_timeval(RETRY_MS);
	char why[128];

	if (err == EAGAIN || err == EWOULDBLOCK) {
		/* Full: on again when it can take more. */
		if (l->writable != NULL)
			(void)event_add(l->writable, NULL);
		become(l, LOG_BEHIND, "its reader does not keep up");
		return;
	}
	snprintf(why, sizeof(why), "%s", strerror(err));
	become(l, LOG_FAILED, why);
	if (!evtimer_pending(l->retry, NULL))
		(void)evtimer_add(l->retry, &tv);
}

/*
 * A deleted log file takes records no one will read: from then on the
 * log is dead until it is reopened (SIGHUP), and what it held is lost.
 */
static bool
gone(struct dlog *l)
{
	struct stat st;

	if (l->dead)
		return true;
	if (!l->regular || fstat(l->fd, &st) == -1 || st.st_nlink > 0)
		return false;
	l->dead = true;
	become(l, LOG_FAILED, "the log file was deleted");
	lose_held(l);
	say_lost(l);
	return true;
}

/*
 * Write p[0..n) at once.  A file that takes part of it (ENOSPC) is cut
 * back to where it was, so no torn line is left for the next to be glued
 * to.  Returns what was written: n, 0 with errno, or, on a socket, a part
 * whose rest must follow before anything else.
 */
static size_t
write_some(struct dlog *l, const void *p, size_t n)
{
	struct stat st;
	ssize_t w;

	do
		w = write(l->fd, p, n);
	while (w == -1 && errno == EINTR);
	if (w == -1)
		return 0;
	if ((size_t)w < n && l->regular && fstat(l->fd, &st) == 0 &&
	    ftruncate(l->fd, st.st_size - w) == 0) {
		errno = ENOSPC;
		return 0;
	}
	digest(l, p, (size_t)w);
	return (size_t)w;
}

/*
 * Write the held lines, oldest first, in chunks of whole lines a pipe
 * takes whole or not at all.  0 when none is left held; the log is
 * taken to work again only once it took something.
 */
static int
flush_held(struct dlog *l)
{
	size_t len, want, keep, n;
	unsigned char *b;
	uint64_t lines;

	if (l->fd == -1 || gone(l))
		return -1;
	if (evbuffer_get_length(l->held) == 0)
		return 0;
	while ((len = evbuffer_get_length(l->held)) > 0) {
		want = len < CHUNK ? len : CHUNK;
		if (want < len && (keep = whole_lines(l->held, want,
		    &lines)) > 0)
			want = keep;
		if ((b = evbuffer_pullup(l->held, (ssize_t)want)) == NULL) {
			failed(l, ENOMEM);
			return -1;
		}
		if ((n = write_some(l, b, want)) == 0) {
			failed(l, errno);
			return -1;
		}
		evbuffer_drain(l->held, n);
	}
	become(l, LOG_OK, "");
	return 0;
}

/*
 * Hold a line to be written later, never more than MAX_BYTES: past it the
 * line is lost, counted.
 */
static void
hold(struct dlog *l, const char *line, size_t n)
{
	if (l->dead || evbuffer_get_length(l->held) + n > MAX_BYTES ||
	    evbuffer_add(l->held, line, n) == -1) {
		l->totals.lost++;
		if (l->lost_said == 0)
			say_lost(l);
	} else
		l->counts.held++;
}

/*
 * Hand one line to the kernel now, after every line held before it.
 * 0: written (a socket that took part of it gets the rest next, before
 * anything else).  Otherwise, a line that may wait is held (0); one that
 * may not is not written at all (-1).
 */
static int
put(struct dlog *l, const char *line, size_t n, bool may_wait)
{
	size_t w;

	if (flush_held(l) == 0) {
		if ((w = write_some(l, line, n)) == n) {
			become(l, LOG_OK, "");
			return 0;
		}
		if (w > 0) {
			/*
			 * Its start is out (a socket, or a full file that
			 * could not be cut back): the rest must follow.
			 */
			if (evbuffer_add(l->held, line + w, n - w) == -1)
				l->sha_failed = true;
			failed(l, l->regular ? ENOSPC : EAGAIN);
			return 0;
		}
		failed(l, errno);
	}
	if (!may_wait)
		return -1;
	hold(l, line, n);
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

	if (l == NULL || l->held == NULL || l->fd == -1)
		return;
	while (evbuffer_get_length(l->held) > 0 && waited < EXIT_WAIT_MS) {
		if (flush_held(l) == 0 || l->state != LOG_BEHIND)
			break;
		p = (struct pollfd){ l->fd, POLLOUT, 0 };
		(void)poll(&p, 1, 100);
		waited += 100;
	}
	if (evbuffer_get_length(l->held) > 0) {
		if (l->state == LOG_OK || l->state == LOG_BEHIND)
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
	if (l->retry != NULL)
		event_free(l->retry);
	if (l->writable != NULL)
		event_free(l->writable);
	if (l->held != NULL)
		evbuffer_free(l->held);
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
	    evbuffer_get_length(l->held) == 0;
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

static void
count(struct dlog *l, bool allow, enum egress_reason reason)
{
	if (allow)
		l->totals.allow++;
	else
		l->totals.deny++;
	if ((unsigned)reason < EGRESS_R_COUNT)
		l->totals.by_reason[reason]++;
}

/*
 * No decision log (run mode without --log): the totals are kept for the
 * report, and each refusal (and each request report mode let through) is
 * said on stderr for people, as a diagnostic no reader takes for a record.
 */
static void
count_only(struct dlog *l, const struct dlog_entry *e)
{
	const char *h = safe_host(e->host)[0] != '\0' ? safe_host(e->host) :
	    "-";

	count(l, e->allow, e->reason);
	if (l->observe != NULL)
		return;		/* the observer tells the terminal */
	if (!e->allow)
		fprintf(stderr, "harn-egressd: refused %s %s:%u: %s\n",
		    protocol_names[e->proto], h, e->port,
		    egress_reason_name(e->reason));
	else if (e->reason == EGRESS_R_REPORT_ONLY)
		fprintf(stderr, "harn-egressd: report mode let %s %s:%u "
		    "through: enforcing refuses it (%s)\n",
		    protocol_names[e->proto], h, e->port,
		    egress_reason_name(e->would));
}

static void json_chars(const char *, char *, size_t);

/* After the line: the terminal's turn (never before, SPEC 5). */
static void
observe(struct dlog *l, const struct dlog_entry *e)
{
	if ((unsigned)e->proto < DLOG_PROTOCOLS &&
	    (unsigned)e->reason < EGRESS_R_COUNT)
		l->counts.by[e->proto][e->allow][e->reason]++;
	if (l->observe != NULL)
		l->observe(l->observe_arg, e);
}

/* The line of one decision; its length, or 0 when it does not fit. */
static size_t
format_line(const struct dlog *l, char *line, size_t len,
    const struct dlog_entry *e)
{
	char ts[64], a[EGRESS_ADDRSTR_MAX] = "", run[64] = "", would[48] = "";
	char who[1700] = "", x[1600];
	int n;

	format_ts(ts, sizeof(ts));
	if (e->addr != NULL)
		egress_addr_format(e->addr, a, sizeof(a));
	if (e->reason == EGRESS_R_REPORT_ONLY)
		snprintf(would, sizeof(would), ",\"would\":\"%s\"",
		    egress_reason_name(e->would));
	if (l->run_id[0] != '\0')
		snprintf(run, sizeof(run), ",\"run\":\"%s\"", l->run_id);
	if (e->pid > 0 && e->exe != NULL && e->exe[0] != '\0') {
		json_chars(e->exe, x, sizeof(x));
		snprintf(who, sizeof(who), ",\"pid\":%ld,\"exe\":\"%s\"",
		    (long)e->pid, x);
	} else if (e->pid > 0)
		snprintf(who, sizeof(who), ",\"pid\":%ld", (long)e->pid);
	n = snprintf(line, len, "{\"ts\":\"%s\",\"protocol\":\"%s\","
	    "\"host\":\"%s\",\"port\":%u,\"decision\":\"%s\","
	    "\"reason\":\"%s\"%s%s%s%s%s%s}\n", ts,
	    protocol_names[e->proto], safe_host(e->host), e->port,
	    e->allow ? "allow" : "deny", egress_reason_name(e->reason), would,
	    a[0] ? ",\"addr\":\"" : "", a, a[0] ? "\"" : "", run, who);
	if (n < 0 || (size_t)n >= len)
		return 0;
	return (size_t)n;
}

int
dlog_decision(struct dlog *l, const struct dlog_entry *e, bool serve)
{
	struct dlog_entry refused;
	char line[LINE_MAX_LEN];
	size_t n;

	if (l->fd == -1) {
		count_only(l, e);
		observe(l, e);
		return 0;
	}
	/* A log_unavailable refusal never waits for its line. */
	n = format_line(l, line, sizeof(line), e);
	if (n > 0 && put(l, line, n, serve ||
	    e->reason == EGRESS_R_LOG_UNAVAILABLE) == 0) {
		count(l, e->allow, e->reason);
		observe(l, e);
		return 0;
	}
	/* Not written: refused log_unavailable instead, recorded so. */
	refused = *e;
	refused.allow = false;
	refused.reason = EGRESS_R_LOG_UNAVAILABLE;
	refused.would = EGRESS_R_NONE;
	refused.addr = NULL;
	n = format_line(l, line, sizeof(line), &refused);
	if (n == 0 || put(l, line, n, true) == -1)
		l->totals.lost++;
	count(l, false, EGRESS_R_LOG_UNAVAILABLE);
	observe(l, &refused);
	return -1;
}

const struct dlog_counts *
dlog_counts(const struct dlog *l)
{
	return &l->counts;
}

const char *
dlog_protocol_name(unsigned proto)
{
	if (proto == DLOG_DIRECT)
		return "direct";
	return proto < DLOG_DIRECT ? protocol_names[proto] : "";
}

void
dlog_observe(struct dlog *l, void (*fn)(void *, const struct dlog_entry *),
    void *arg)
{
	l->observe = fn;
	l->observe_arg = arg;
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
    const char *exe, uint64_t count, bool inbound)
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
	    "\"reason\":\"not_through_proxy\",\"addr\":\"%s\"%s%s%s%s}\n", ts,
	    port, a, inbound ? ",\"direction\":\"inbound\"" : "", run, who,
	    n_);
	/* Every refusal counted, its line written, held, or lost. */
	l->totals.deny += count;
	l->totals.by_reason[EGRESS_R_NOT_THROUGH_PROXY] += count;
	l->counts.by[DLOG_DIRECT][false][EGRESS_R_NOT_THROUGH_PROXY] += count;
	if (n < 0 || (size_t)n >= sizeof(line))
		l->totals.lost++;	/* not reached: the fields are bounded */
	else if (l->fd != -1)
		(void)put(l, line, (size_t)n, true);
}
