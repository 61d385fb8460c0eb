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
 * closed pipe, a deleted file) is not the request's: a reader that is
 * behind is waited for, up to log_wait (dlogwait.c); a log that failed,
 * or a wait that ran out, refuses the request log_unavailable, unless the
 * policy says log_failure_action serve.  Lines whose answers need not
 * wait for them (every line under serve, a sandbox's direct refusals)
 * are held, bounded, and written when the log takes lines again, after
 * allowed requests' lines; what cannot be held or written is lost,
 * counted (the report's log.lost) and said on stderr.  The descriptor is non-blocking:
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
#include "proxy/dlogint.h"

#define RETRY_MS	1000		/* a failed log is tried again */
#define CHUNK		4096		/* PIPE_BUF: a pipe takes it whole */
#define MAX_BYTES	(4 * 1024 * 1024)	/* held past this: lost */
#define EXIT_WAIT_MS	1000		/* for a slow reader, at the end */
#define BEHIND_SAY_S	10		/* "does not keep up", at most */

static int	flush_all(struct dlog *);
static void	become(struct dlog *, enum dlog_state, const char *);

static void
retry_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct dlog *l = arg;
	struct timeval tv = ms_timeval(RETRY_MS);

	/* Out of memory for the timer: the next decision tries instead. */
	if (flush_all(l) == -1 && !l->dead && l->state == LOG_FAILED)
		(void)evtimer_add(l->retry, &tv);
}

static void
writable_cb(evutil_socket_t fd, short ev, void *arg)
{
	(void)flush_all(arg);
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
	l->late = evbuffer_new();
	l->torn = evbuffer_new();
	l->retry = evtimer_new(base, retry_cb, l);
	if (l->held == NULL || l->late == NULL || l->torn == NULL ||
	    l->retry == NULL ||
	    dlog_wait_init(l) == -1 || use_fd(l, base, fd) == -1) {
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
	(void)flush_all(l);
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
	if (flush_all(l) == 0)
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
		    "%s (log_unavailable) unless log_failure_action is "
		    "serve\n", why, to == LOG_FAILED ? "are refused" :
		    "wait up to log_wait for it, then are refused");
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

/*
 * The whole lines still held: lost, when they can no longer be written;
 * lines waited for are not taken in time (end: nor the one line owed).
 */
static void
lose_held(struct dlog *l, bool end)
{
	uint64_t lines, late;
	size_t len = evbuffer_get_length(l->held);

	(void)whole_lines(l->held, len, &lines);
	(void)whole_lines(l->late, evbuffer_get_length(l->late), &late);
	l->totals.lost += lines + late + dlog_wait_lose(l, end);
	evbuffer_drain(l->held, len);
	evbuffer_drain(l->late, evbuffer_get_length(l->late));
	if (evbuffer_get_length(l->torn) > 0)
		l->sha_failed = true;	/* a line's start without its end */
	evbuffer_drain(l->torn, evbuffer_get_length(l->torn));
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
	lose_held(l, false);
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
 * Write buf's lines, oldest first, in chunks of whole lines a pipe takes
 * whole or not at all.  A socket that takes part of a chunk: the rest of
 * the line it cut goes to torn, to be written before anything else.
 * 0 when buf is empty.
 */
static int
flush_buf(struct dlog *l, struct evbuffer *buf)
{
	struct evbuffer_ptr nl;
	size_t len, want, keep, n;
	unsigned char *b;
	uint64_t lines;

	while ((len = evbuffer_get_length(buf)) > 0) {
		want = len < CHUNK ? len : CHUNK;
		if (want < len && (keep = whole_lines(buf, want,
		    &lines)) > 0)
			want = keep;
		if ((b = evbuffer_pullup(buf, (ssize_t)want)) == NULL) {
			failed(l, ENOMEM);
			return -1;
		}
		if ((n = write_some(l, b, want)) == 0) {
			failed(l, errno);
			return -1;
		}
		evbuffer_drain(buf, n);
		if (n < want && buf != l->torn) {
			nl = evbuffer_search(buf, "\n", 1, NULL);
			if (nl.pos >= 0 && evbuffer_remove_buffer(buf, l->torn,
			    (size_t)nl.pos + 1) == -1)
				l->sha_failed = true;
		}
		if (n < want) {
			failed(l, EAGAIN);
			return -1;
		}
	}
	return 0;
}

/*
 * Queued lines, oldest first, several to a write of at most PIPE_BUF (a
 * pipe takes it whole or not at all).  A socket that takes part: what is
 * out is written, the rest of the line cut goes first next time.
 */
static int
flush_queue(struct dlog *l, struct dlog_waitq *q)
{
	char buf[DLOG_LINE_MAX * 2];
	struct dlog_wait *w;
	uint64_t before;
	size_t n, k, total;
	bool did = false;

	while ((w = TAILQ_FIRST(q)) != NULL) {
		for (total = 0; w != NULL && total + w->len <= sizeof(buf);
		    w = TAILQ_NEXT(w, entry)) {
			memcpy(buf + total, w->line, w->len);
			total += w->len;
		}
		before = l->totals.bytes;
		(void)dlog_put_line(l, buf, total);
		if ((k = (size_t)(l->totals.bytes - before)) == 0)
			break;
		did = true;
		/* Every line with a byte out is written. */
		for (n = 0; (w = TAILQ_FIRST(q)) != NULL && n < k;
		    n += w->len)
			dlog_wait_resolve(l, q, w, 0);
		if (k < total) {
			/*
			 * Only the rest of the line cut goes first next time;
			 * the lines after it stay queued.
			 */
			evbuffer_drain(l->torn, evbuffer_get_length(l->torn));
			if (n > k && evbuffer_add(l->torn, buf + k, n - k) == -1)
				l->sha_failed = true;
			break;
		}
	}
	if (did)
		dlog_wait_arm(l);
	/* A cut line's rest must go before anything else. */
	return TAILQ_EMPTY(q) && evbuffer_get_length(l->torn) == 0 ? 0 : -1;
}

static int
flush_unlogged(struct dlog *l)
{
	char line[DLOG_LINE_MAX];
	size_t n;

	if (l->unlogged == 0)
		return 0;
	n = dlog_format_unlogged(l->run_id, line, sizeof(line), l->unlogged,
	    l->unlogged_by);
	if (n == 0 || dlog_put_line(l, line, n) == 0) {
		if (n == 0)
			l->totals.lost++;	/* not reached: it fits */
		l->unlogged = 0;
		memset(l->unlogged_by, 0, sizeof(l->unlogged_by));
		/* A cut line's rest must go before anything else. */
		return evbuffer_get_length(l->torn) == 0 ? 0 : -1;
	}
	return -1;
}

int
dlog_flush_before(struct dlog *l, bool allowed)
{
	if (l->fd == -1 || gone(l))
		return -1;
	if (flush_buf(l, l->torn) == -1 ||
	    flush_queue(l, &l->allowq) == -1)
		return -1;
	if (allowed)
		return 0;
	if (flush_buf(l, l->held) == -1 ||
	    flush_queue(l, &l->refuseq) == -1 ||
	    flush_unlogged(l) == -1 || flush_buf(l, l->late) == -1)
		return -1;
	return 0;
}

/*
 * Write what waits, in its order: a torn line's rest, allowed requests'
 * lines, lines held, refusals' lines, the line of refusals answered
 * without theirs, close lines (accounting, never ahead of a decision's
 * line).  0 when nothing is left; the log is taken to work
 * again only once it took something.
 */
static int
flush_all(struct dlog *l)
{
	if (dlog_flush_before(l, false) == -1)
		return -1;
	become(l, LOG_OK, "");
	return 0;
}

/*
 * Hold a line to be written later, never more than MAX_BYTES: past it the
 * line is lost, counted.
 */
static void
hold(struct dlog *l, struct evbuffer *buf, const char *line, size_t n)
{
	if (l->dead || evbuffer_get_length(l->held) +
	    evbuffer_get_length(l->late) + n > MAX_BYTES ||
	    evbuffer_add(buf, line, n) == -1) {
		l->totals.lost++;
		if (l->lost_said == 0)
			say_lost(l);
	} else
		l->counts.held++;
}

int
dlog_put_line(struct dlog *l, const char *line, size_t n)
{
	size_t w;

	if ((w = write_some(l, line, n)) == n) {
		become(l, LOG_OK, "");
		return 0;
	}
	if (w > 0) {
		/*
		 * Its start is out (a socket, or a full file that could not
		 * be cut back): the rest must follow, before anything else.
		 */
		if (evbuffer_add(l->torn, line + w, n - w) == -1)
			l->sha_failed = true;
		failed(l, l->regular ? ENOSPC : EAGAIN);
		return 0;
	}
	failed(l, errno);
	return -1;
}

/*
 * Hand one line to the kernel now, after every line before it.  0:
 * written.  Otherwise, a line that may wait is held (0); one that may not
 * is not written at all (-1).
 */
static int
put(struct dlog *l, const char *line, size_t n, bool may_wait)
{
	if (flush_all(l) == 0 && dlog_put_line(l, line, n) == 0)
		return 0;
	if (!may_wait)
		return -1;
	hold(l, l->held, line, n);
	return 0;
}

/*
 * May a new request be admitted?  Not while the log fails, unless the
 * policy says serve (log_failure_action serve): an audit log that cannot
 * take records stops the proxy, not the record.  A reader that is only
 * behind admits: the request waits for its line (log_wait), and the lines
 * of refusals never hold allowed requests back.
 */
bool
dlog_admits(struct dlog *l, bool serve)
{
	if (l == NULL || l->fd == -1 || serve)
		return true;
	return l->state != LOG_FAILED;
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
	while (waited < EXIT_WAIT_MS) {
		if (flush_all(l) == 0 || l->state != LOG_BEHIND)
			break;
		p = (struct pollfd){ l->fd, POLLOUT, 0 };
		(void)poll(&p, 1, 100);
		waited += 100;
	}
	if (flush_all(l) == -1) {
		if (l->state == LOG_OK || l->state == LOG_BEHIND)
			snprintf(l->why, sizeof(l->why), "its reader did not "
			    "take them before the end");
		lose_held(l, true);
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
	if (l->late != NULL)
		evbuffer_free(l->late);
	if (l->torn != NULL)
		evbuffer_free(l->torn);
	dlog_wait_free(l);
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
	    evbuffer_get_length(l->held) == 0 &&
	    evbuffer_get_length(l->late) == 0 &&
	    evbuffer_get_length(l->torn) == 0 && l->nwaiting == 0 &&
	    l->unlogged == 0;
	memset(out->sha256, 0, sizeof(out->sha256));
	/* A digest that missed a record is no digest: left all zero. */
	if (l->sha_failed || sha_start(l) == -1 ||
	    (copy = EVP_MD_CTX_new()) == NULL)
		return;
	if (EVP_MD_CTX_copy_ex(copy, l->sha) == 1)
		EVP_DigestFinal_ex(copy, out->sha256, &len);
	EVP_MD_CTX_free(copy);
}


/*
 * No decision log (run mode without --log): the totals are kept for the
 * report, and each refusal (and each request report mode let through) is
 * said on stderr for people, as a diagnostic no reader takes for a record.
 */
static void
count_only(struct dlog *l, const struct dlog_entry *e)
{
	const char *h = dlog_safe_host(e->host)[0] != '\0' ? dlog_safe_host(e->host) :
	    "-";

	dlog_count(l, e->allow, e->reason);
	if (l->observe != NULL)
		return;		/* the observer tells the terminal */
	if (!e->allow)
		fprintf(stderr, "harn-egressd: refused %s %s:%u: %s\n",
		    dlog_protocol_names[e->proto], h, e->port,
		    egress_reason_name(e->reason));
	else if (e->reason == EGRESS_R_REPORT_ONLY)
		fprintf(stderr, "harn-egressd: report mode let %s %s:%u "
		    "through: enforcing refuses it (%s)\n",
		    dlog_protocol_names[e->proto], h, e->port,
		    egress_reason_name(e->would));
}


/*
 * A line the log does not take now: under serve held; otherwise not
 * waited for here (dlog_decision_wait waits): the request is refused
 * log_unavailable, counted for the one line written when the log catches
 * up.
 */
int
dlog_decision(struct dlog *l, const struct dlog_entry *e, bool serve)
{
	char line[DLOG_LINE_MAX];
	size_t n;

	if (l->fd == -1) {
		count_only(l, e);
		dlog_observed(l, e);
		return 0;
	}
	n = dlog_format_line(l->run_id, line, sizeof(line), e);
	if (n > 0 && (serve ? put(l, line, n, true) == 0 :
	    dlog_flush_before(l, e->allow) == 0 &&
	    dlog_put_line(l, line, n) == 0)) {
		dlog_count(l, e->allow, e->reason);
		dlog_observed(l, e);
		return 0;
	}
	return dlog_unwritten(l, e, false);
}


void
dlog_observe(struct dlog *l, void (*fn)(void *, const struct dlog_entry *),
    void *arg)
{
	l->observe = fn;
	l->observe_arg = arg;
}

void
dlog_direct(struct dlog *l, const char *addr, uint16_t port, pid_t pid,
    const char *exe, uint64_t count, bool inbound)
{
	char line[1536];
	size_t n = dlog_format_direct(l->run_id, line, sizeof(line), addr,
	    port, pid, exe, count, inbound);

	/* Every refusal counted, its line written, held, or lost. */
	l->totals.deny += count;
	l->totals.by_reason[EGRESS_R_NOT_THROUGH_PROXY] += count;
	l->counts.by[DLOG_DIRECT][false][EGRESS_R_NOT_THROUGH_PROXY] += count;
	if (n == 0)
		l->totals.lost++;	/* not reached: the fields are bounded */
	else if (l->fd != -1)
		(void)put(l, line, n, true);
}

void
dlog_close(struct dlog *l, const struct dlog_close *e)
{
	char line[DLOG_LINE_MAX];
	size_t n;

	if (l == NULL || l->fd == -1)
		return;
	/*
	 * Not a decision: after every line before it, and held behind every
	 * decision's line when the reader is behind.
	 */
	if ((n = dlog_format_close(l->run_id, line, sizeof(line), e)) == 0)
		l->totals.lost++;	/* not reached: the fields are bounded */
	else if (flush_all(l) != 0 || dlog_put_line(l, line, n) != 0)
		hold(l, l->late, line, n);
}

int
dlog_decision_wait(struct dlog *l, const struct dlog_entry *e, bool serve,
    uint32_t wait_ms, dlog_wait_cb cb, void *arg, struct dlog_wait **wp)
{
	char line[DLOG_LINE_MAX];
	size_t n;

	*wp = NULL;
	if (l->fd == -1 || serve || wait_ms == 0 || cb == NULL ||
	    (n = dlog_format_line(l->run_id, line, sizeof(line), e)) == 0)
		return dlog_decision(l, e, serve);
	/* An allowed line passes waiting refusals; a refusal passes none. */
	if (dlog_flush_before(l, e->allow) == 0 &&
	    dlog_put_line(l, line, n) == 0) {
		dlog_count(l, e->allow, e->reason);
		dlog_observed(l, e);
		return 0;
	}
	/* Only a reader that is behind is waited for, within a bound. */
	if (l->state != LOG_BEHIND || dlog_wait_queue(l, e, line, n, wait_ms,
	    cb, arg, wp) == -1)
		return dlog_unwritten(l, e, false);
	return 1;
}
