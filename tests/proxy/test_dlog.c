/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dlog: the decision log (proxy/dlog.c, dlogwait.c, SPEC 5).  A line
 * is in the log when dlog_decision returns, before the caller answers
 * anything; a line the log cannot take at once (a full pipe, a deleted
 * file) makes an allowed request a log_unavailable refusal, and a refusal
 * is answered anyway, both counted in one "unlogged" line written once
 * the log takes lines again; dlog_decision_wait waits up to log_wait for
 * a reader that is behind, allowed lines first; under serve every line
 * may wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>
#include <jansson.h>

#include "proxy/proxy.h"

#define UNUSED	__attribute__((unused))

struct fixture {
	struct event_base	*base;
	struct dlog		*log;
	int			 fds[2];	/* [0] reads the log */
	char			 path[64];	/* or a file */
};

static int
setup_pipe(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL || (f->base = event_base_new()) == NULL ||
	    pipe(f->fds) == -1 || fcntl(f->fds[0], F_SETFL, O_NONBLOCK) == -1)
		return -1;
	if ((f->log = dlog_new(f->base, f->fds[1], "r1")) == NULL)
		return -1;
	*state = f;
	return 0;
}

static int
setup_file(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int fd;

	if (f == NULL || (f->base = event_base_new()) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "/tmp/test_dlog.XXXXXX");
	if ((fd = mkstemp(f->path)) == -1)
		return -1;
	f->fds[0] = open(f->path, O_RDONLY);
	f->fds[1] = fd;
	if (f->fds[0] == -1 ||
	    (f->log = dlog_new(f->base, f->fds[1], NULL)) == NULL)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	dlog_free(f->log);
	close(f->fds[0]);
	close(f->fds[1]);
	if (f->path[0] != '\0')
		(void)unlink(f->path);
	event_base_free(f->base);
	free(f);
	return 0;
}

/* What the log's reader can read now, NUL-terminated, in buf. */
static size_t
drain(struct fixture *f, char *buf, size_t len)
{
	size_t have = 0;
	ssize_t n;

	while (have < len - 1 &&
	    (n = read(f->fds[0], buf + have, len - 1 - have)) > 0)
		have += (size_t)n;
	buf[have] = '\0';
	return have;
}

static size_t
count(const char *s, const char *needle)
{
	size_t n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return n;
}

static int
decide(struct fixture *f, const char *host, bool allow, bool serve)
{
	struct egress_addr a;
	struct dlog_entry e = { .proto = PROXY_HTTP_CONNECT, .host = host,
	    .port = 443, .allow = allow, .reason = allow ?
	    EGRESS_R_ALLOW_RULE : EGRESS_R_NO_ALLOW_RULE };

	egress_addr_from_v4(&a, 0x7f000001);
	e.addr = allow ? &a : NULL;
	return dlog_decision(f->log, &e, serve);
}

/*
 * Report mode's would, and who asked (SPEC 5): after the run id, the pid
 * and the program, escaped as JSON; a program's name of control bytes and
 * quotes, as long as /proc gives, still fits the line; a log_unavailable
 * refusal keeps who asked but not what report mode would have let go.
 */
static void
test_fields(void **state)
{
	struct fixture *f = *state;
	struct dlog_entry e = { .proto = PROXY_SOCKS5, .host = "pypi.test",
	    .port = 443, .allow = true, .reason = EGRESS_R_REPORT_ONLY,
	    .would = EGRESS_R_NO_ALLOW_RULE, .pid = 4242,
	    .exe = "/usr/bin/py\"th\non" };
	struct egress_addr a;
	char buf[8192], exe[256], *line;
	json_t *j;

	egress_addr_from_v4(&a, 0x5db8d822);
	e.addr = &a;
	assert_int_equal(dlog_decision(f->log, &e, false), 0);
	assert_true(drain(f, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\"decision\":\"allow\",\"reason\":"
	    "\"report_only\",\"would\":\"no_allow_rule\",\"addr\":"
	    "\"93.184.216.34\",\"run\":\"r1\",\"pid\":4242,\"exe\":"
	    "\"/usr/bin/py\\\"th\\u000Aon\"}\n"));
	/* Not known: neither field. */
	e.pid = 0;
	e.exe = NULL;
	e.reason = EGRESS_R_ALLOW_RULE;
	e.would = EGRESS_R_NONE;
	assert_int_equal(dlog_decision(f->log, &e, false), 0);
	drain(f, buf, sizeof(buf));
	assert_null(strstr(buf, "pid"));
	assert_null(strstr(buf, "would"));
	/* The worst name: every byte escaped, the line whole and JSON. */
	memset(exe, 0x01, sizeof(exe) - 1);
	exe[sizeof(exe) - 1] = '\0';
	e.pid = 7;
	e.exe = exe;
	assert_int_equal(dlog_decision(f->log, &e, false), 0);
	drain(f, buf, sizeof(buf));
	assert_non_null(line = strchr(buf, '{'));
	assert_non_null(j = json_loads(line, JSON_DISABLE_EOF_CHECK, NULL));
	assert_int_equal(json_integer_value(json_object_get(j, "pid")), 7);
	assert_int_equal(strlen(json_string_value(json_object_get(j, "exe"))),
	    sizeof(exe) - 1);
	json_decref(j);
}

/*
 * Close lines (SPEC 5): an allow line carries its conn right after addr,
 * a refusal never does; the close line names the same conn, its bytes
 * and ms, run and pid; it is a record, not a decision.
 */
static void
test_close_line(void **state)
{
	struct fixture *f = *state;
	struct egress_addr a;
	struct dlog_entry e = { .proto = PROXY_HTTP_CONNECT,
	    .host = "a.example", .port = 443, .allow = true,
	    .reason = EGRESS_R_ALLOW_RULE, .conn = 17, .addr = &a };
	struct dlog_close c = { .proto = PROXY_HTTP_CONNECT,
	    .host = "a.example", .port = 443, .conn = 17,
	    .bytes_out = 5000000000ULL, .bytes_in = 7, .ms = 1234,
	    .pid = 99 };
	struct dlog_totals t;
	char buf[4096];

	egress_addr_from_v4(&a, 0x7f000001);
	assert_int_equal(dlog_decision(f->log, &e, false), 0);
	drain(f, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"addr\":\"127.0.0.1\",\"conn\":17,"
	    "\"run\":\"r1\"}\n"));
	e.allow = false;
	e.reason = EGRESS_R_DENY_RULE;
	assert_int_equal(dlog_decision(f->log, &e, false), 0);
	drain(f, buf, sizeof(buf));
	assert_null(strstr(buf, "\"conn\""));
	dlog_close(f->log, &c);
	drain(f, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\",\"event\":\"close\",\"conn\":17,"
	    "\"protocol\":\"http_connect\",\"host\":\"a.example\","
	    "\"port\":443,\"bytes_out\":5000000000,\"bytes_in\":7,"
	    "\"ms\":1234,\"run\":\"r1\",\"pid\":99}\n"));
	assert_int_equal(strncmp(buf, "{\"ts\":\"", 7), 0);
	dlog_totals(f->log, &t);
	assert_int_equal(t.records, 3);
	assert_int_equal(t.allow, 1);
	assert_int_equal(t.deny, 1);
	assert_true(t.complete);
}

/* The line is in the pipe when the call returns: no loop, no timer. */
static void
test_written_at_once(void **state)
{
	struct fixture *f = *state;
	struct dlog_totals t;
	char buf[4096];

	assert_int_equal(decide(f, "a.example", true, false), 0);
	assert_true(drain(f, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\"protocol\":\"http_connect\","
	    "\"host\":\"a.example\",\"port\":443,\"decision\":\"allow\","
	    "\"reason\":\"allow_rule\",\"addr\":\"127.0.0.1\","
	    "\"run\":\"r1\"}\n"));
	assert_int_equal(decide(f, "b.example", false, false), 0);
	drain(f, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"host\":\"b.example\""));
	dlog_totals(f->log, &t);
	assert_int_equal(t.records, 2);
	assert_int_equal(t.allow, 1);
	assert_int_equal(t.deny, 1);
	assert_int_equal(t.lost, 0);
	assert_true(t.complete);
}

/* Run the loop until *flag, within a bound; drain the reader as it goes. */
static void
loop_until(struct fixture *f, const int *flag, char *buf, size_t len)
{
	int i;

	for (i = 0; i < 400 && !*flag; i++) {
		(void)event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		drain(f, buf + strlen(buf), len - strlen(buf));
		if (!*flag)
			usleep(5000);
	}
	assert_true(*flag);
}

/*
 * A full pipe, for a caller that does not wait: each request the log does
 * not take is refused log_unavailable (-1), counted, its line never held
 * ahead of anything; the log admits (it is behind, not failed); once the
 * reader drains the pipe one line says how many and why.
 */
static void
test_full_pipe(void **state)
{
	struct fixture *f = *state;
	struct dlog_totals t;
	static char buf[1 << 20];
	int i, refused = 0, done = 0;

	assert_int_equal(fcntl(f->fds[1], F_SETPIPE_SZ, 4096), 4096);
	for (i = 0; i < 100; i++)
		refused -= decide(f, "fill.example", false, false);
	assert_true(refused > 0 && refused < 100);
	assert_true(dlog_admits(f->log, false));
	assert_int_equal(decide(f, "allowed.example", true, false), -1);
	drain(f, buf, sizeof(buf));
	assert_int_equal(count(buf, "\"host\":\"fill.example\""),
	    100 - refused);
	dlog_totals(f->log, &t);
	assert_false(t.complete);
	/* Room again: the one line, when the loop sees it. */
	buf[0] = '\0';
	while (!done && event_base_loop(f->base, EVLOOP_ONCE |
	    EVLOOP_NONBLOCK) == 0)
		done = strstr(buf, "unlogged") != NULL || drain(f, buf +
		    strlen(buf), sizeof(buf) - strlen(buf)) == 0;
	drain(f, buf + strlen(buf), sizeof(buf) - strlen(buf));
	assert_int_equal(count(buf, "\"event\":\"unlogged\""), 1);
	assert_non_null(strstr(buf, "\"log_unavailable\":"));
	assert_null(strstr(buf, "\"no_allow_rule\":"));
	assert_true(dlog_admits(f->log, false));
	assert_int_equal(decide(f, "after.example", true, false), 0);
	drain(f, buf, sizeof(buf));
	assert_non_null(strstr(buf, "after.example"));
	dlog_totals(f->log, &t);
	assert_int_equal(t.deny, 101);
	assert_int_equal(t.by_reason[EGRESS_R_NO_ALLOW_RULE], 100 - refused);
	assert_int_equal(t.by_reason[EGRESS_R_LOG_UNAVAILABLE], refused + 1);
	assert_int_equal(t.lost, 0);
	assert_true(t.complete);
}

struct waited {
	int	called;
	int	rc;
};

static void
waited_cb(void *arg, int rc)
{
	struct waited *w = arg;

	w->called++;
	w->rc = rc;
}

static int
decide_wait(struct fixture *f, const char *host, bool allow, uint32_t ms,
    struct waited *w, struct dlog_wait **wp)
{
	struct dlog_entry e = { .proto = PROXY_SOCKS5, .host = host,
	    .port = 443, .allow = allow, .reason = allow ?
	    EGRESS_R_ALLOW_RULE : EGRESS_R_DENY_RULE };

	return dlog_decision_wait(f->log, &e, false, ms, waited_cb, w, wp);
}

/* Fill a 4 KiB pipe with refusals' lines: how many it took. */
static int
fill(struct fixture *f)
{
	struct dlog_totals t;
	int i;

	assert_int_equal(fcntl(f->fds[1], F_SETPIPE_SZ, 4096), 4096);
	for (i = 0; i < 100; i++)
		(void)decide(f, "fill.example", false, false);
	dlog_totals(f->log, &t);
	return (int)t.records;
}

/*
 * A reader behind: a close line is accounting, so it waits behind every
 * decision's line (a refusal queued, the unlogged count), and once the
 * reader takes lines again it comes last, whole.
 */
static void
test_close_behind(void **state)
{
	struct fixture *f = *state;
	struct dlog_close c = { .proto = PROXY_SOCKS5, .host = "c.example",
	    .port = 443, .conn = 3, .bytes_out = 1, .bytes_in = 2 };
	struct dlog_wait *wp = NULL;
	struct waited w = { 0 };
	struct dlog_totals t;
	static char buf[1 << 16];
	const char *refusal, *close;
	int n = fill(f);

	dlog_close(f->log, &c);
	assert_int_equal(decide_wait(f, "r.example", false, 5000, &w, &wp), 1);
	(void)decide(f, "unlogged.example", false, false);
	dlog_totals(f->log, &t);
	assert_int_equal(t.records, (uint64_t)n);
	assert_false(t.complete);
	drain(f, buf, sizeof(buf));
	buf[0] = '\0';
	while (strstr(buf, "\"event\":\"close\"") == NULL &&
	    event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK) == 0)
		if (drain(f, buf + strlen(buf), sizeof(buf) - strlen(buf)) == 0)
			break;
	assert_non_null(refusal = strstr(buf, "\"host\":\"r.example\""));
	assert_non_null(strstr(buf, "\"event\":\"unlogged\""));
	assert_non_null(close = strstr(buf, "\"event\":\"close\",\"conn\":3,"));
	assert_true(refusal < close);
	assert_true(strstr(buf, "\"event\":\"unlogged\"") < close);
	dlog_totals(f->log, &t);
	assert_int_equal(t.lost, 0);
	assert_true(t.complete);
}

/*
 * A reader behind for a moment: the allowed request waits (1), its
 * callback comes from the loop once the line is in, and its line goes
 * before a refusal's queued earlier.
 */
static void
test_wait_taken(void **state)
{
	struct fixture *f = *state;
	struct waited r = { 0, 5 }, a = { 0, 5 };
	struct dlog_wait *wr, *wa;
	static char buf[1 << 16];
	struct dlog_totals t;

	(void)fill(f);
	assert_int_equal(decide_wait(f, "refused.example", false, 5000, &r,
	    &wr), 1);
	assert_int_equal(decide_wait(f, "allowed.example", true, 5000, &a,
	    &wa), 1);
	assert_non_null(wr);
	assert_non_null(wa);
	assert_int_equal(a.called, 0);
	buf[0] = '\0';
	loop_until(f, &r.called, buf, sizeof(buf));
	assert_int_equal(a.called, 1);
	assert_int_equal(a.rc, 0);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(buf, "allowed.example"));
	assert_non_null(strstr(buf, "refused.example"));
	assert_true(strstr(buf, "allowed.example") <
	    strstr(buf, "refused.example"));
	/* The allowed line also passed the line owed for the fill's. */
	assert_non_null(strstr(strstr(buf, "refused.example"),
	    "\"event\":\"unlogged\""));
	dlog_totals(f->log, &t);
	assert_int_equal(t.allow, 1);
	assert_int_equal(t.by_reason[EGRESS_R_DENY_RULE], 1);
}

/*
 * A reader that stays behind: after log_wait the allowed request is
 * refused log_unavailable (-1) and the refusal answered anyway (0), both
 * counted in the one line written when the reader comes back.
 */
static void
test_wait_expires(void **state)
{
	struct fixture *f = *state;
	struct waited r = { 0, 5 }, a = { 0, 5 };
	struct dlog_wait *wr, *wa;
	static char buf[1 << 16];
	struct dlog_totals t, t0;
	int i;

	(void)fill(f);
	dlog_totals(f->log, &t0);
	assert_int_equal(decide_wait(f, "refused.example", false, 30, &r,
	    &wr), 1);
	assert_int_equal(decide_wait(f, "allowed.example", true, 30, &a,
	    &wa), 1);
	for (i = 0; i < 200 && a.called + r.called < 2; i++)
		(void)event_base_loop(f->base, EVLOOP_ONCE);
	assert_int_equal(a.called, 1);
	assert_int_equal(a.rc, -1);
	assert_int_equal(r.called, 1);
	assert_int_equal(r.rc, 0);	/* answered anyway, as decided */
	dlog_totals(f->log, &t);
	assert_int_equal(t.allow, 0);
	assert_int_equal(t.by_reason[EGRESS_R_LOG_UNAVAILABLE],
	    t0.by_reason[EGRESS_R_LOG_UNAVAILABLE] + 1);
	assert_int_equal(t.by_reason[EGRESS_R_DENY_RULE], 1);
	buf[0] = '\0';
	drain(f, buf, sizeof(buf));
	for (i = 0; i < 100 && strstr(buf, "\"deny_rule\":1") == NULL; i++) {
		(void)event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		drain(f, buf + strlen(buf), sizeof(buf) - strlen(buf));
	}
	assert_null(strstr(buf, "allowed.example"));
	assert_null(strstr(buf, "refused.example"));
	assert_non_null(strstr(buf, "\"event\":\"unlogged\""));
	assert_non_null(strstr(buf, "\"deny_rule\":1"));
	assert_non_null(strstr(buf, "\"log_unavailable\":"));
	dlog_totals(f->log, &t);
	assert_int_equal(t.lost, 0);
	assert_true(t.complete);
}

/*
 * A request gone while it waits: never called back, its line still
 * written; and at most MAX_WAITING lines wait, past that the answer is
 * at once (memory is bounded).
 */
static void
test_wait_cancel_bound(void **state)
{
	struct fixture *f = *state;
	struct waited gone = { 0, 5 }, w = { 0, 5 };
	struct dlog_wait *wg, *wx;
	static char buf[1 << 21];
	int i, rc = 1, queued = 0;

	(void)fill(f);
	assert_int_equal(decide_wait(f, "gone.example", true, 5000, &gone,
	    &wg), 1);
	dlog_wait_cancel(wg);
	for (i = 0; i < 2000 && rc == 1; i++)
		if ((rc = decide_wait(f, "many.example", true, 5000, &w,
		    &wx)) == 1)
			queued++;
	assert_int_equal(rc, -1);
	assert_int_equal(queued, 1023);
	buf[0] = '\0';
	while (w.called < queued) {
		(void)event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		if (drain(f, buf + strlen(buf), sizeof(buf) - strlen(buf)) ==
		    0 && w.called < queued)
			(void)event_base_loop(f->base, EVLOOP_ONCE);
	}
	assert_int_equal(gone.called, 0);
	assert_non_null(strstr(buf, "gone.example"));
	assert_int_equal(w.rc, 0);
}

/*
 * A socket takes part of a write: the rest of the line it cut goes first,
 * the lines after it stay queued, and nothing is written twice: every
 * line whole, each decision's exactly once, allowed ones answered.
 */
static void
test_wait_socket(void **state)
{
	struct fixture *f = *state;
	static struct waited w[400];
	struct dlog_wait *wp;
	static char buf[1 << 20];
	char host[32], *line, *nl;
	int i, sv[2], sz = 4096, done, queued = 0;
	json_t *j;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz,
	    sizeof(sz)), 0);
	assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	dlog_free(f->log);
	close(f->fds[0]);
	close(f->fds[1]);
	f->fds[0] = sv[0];
	f->fds[1] = sv[1];
	assert_non_null(f->log = dlog_new(f->base, sv[1], "r1"));
	for (i = 0; i < 400; i++) {
		snprintf(host, sizeof(host), "%c%d.example", i % 2 ? 'r' : 'a',
		    i);
		w[i].rc = decide_wait(f, host, i % 2 == 0, 5000, &w[i], &wp);
		if (w[i].rc == 1)
			queued++;
		else
			w[i].called = 1;
	}
	assert_true(queued > 0);
	buf[0] = '\0';
	for (i = 0, done = 0; i < 2000 && !done; i++) {
		(void)event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		drain(f, buf + strlen(buf), sizeof(buf) - strlen(buf));
		for (done = 1, sz = 0; sz < 400; sz++)
			done &= w[sz].called == 1;
	}
	assert_true(done);
	for (i = 0; i < 400; i++)
		assert_int_equal(w[i].rc, 0);
	drain(f, buf + strlen(buf), sizeof(buf) - strlen(buf));
	for (line = buf; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		assert_non_null(j = json_loadb(line, (size_t)(nl - line), 0,
		    NULL));
		json_decref(j);
	}
	assert_int_equal(*line, '\0');
	for (i = 0; i < 400; i++) {
		snprintf(host, sizeof(host), "\"%c%d.example\"", i % 2 ? 'r' :
		    'a', i);
		assert_int_equal(count(buf, host), 1);
	}
}

/* Under serve, a line the log cannot take waits; the decision stands. */
static void
test_full_pipe_serve(void **state)
{
	struct fixture *f = *state;
	static char buf[1 << 20];
	int i;

	assert_int_equal(fcntl(f->fds[1], F_SETPIPE_SZ, 4096), 4096);
	for (i = 0; i < 100; i++)
		assert_int_equal(decide(f, "s.example", true, true), 0);
	drain(f, buf, sizeof(buf));
	assert_int_equal(event_base_loop(f->base, EVLOOP_ONCE |
	    EVLOOP_NONBLOCK), 0);
	drain(f, buf + strlen(buf), sizeof(buf) - strlen(buf));
	while (event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK) == 0 &&
	    drain(f, buf + strlen(buf), sizeof(buf) - strlen(buf)) > 0)
		;
	assert_int_equal(count(buf, "\"host\":\"s.example\""), 100);
	assert_null(strstr(buf, "log_unavailable"));
}

/* A deleted log file: refused from the next line on, nothing held. */
static void
test_deleted_file(void **state)
{
	struct fixture *f = *state;
	struct dlog_totals t;
	char buf[4096];

	assert_int_equal(decide(f, "before.example", true, false), 0);
	assert_int_equal(unlink(f->path), 0);
	f->path[0] = '\0';
	assert_int_equal(decide(f, "after.example", true, false), -1);
	assert_false(dlog_admits(f->log, false));
	drain(f, buf, sizeof(buf));
	assert_non_null(strstr(buf, "before.example"));
	assert_null(strstr(buf, "after.example"));
	dlog_totals(f->log, &t);
	assert_int_equal(t.records, 1);
	assert_int_equal(t.allow, 1);
	assert_int_equal(t.by_reason[EGRESS_R_LOG_UNAVAILABLE], 1);
	assert_false(t.complete);
	/* The refusal's one line never comes: lost, at the end. */
	dlog_finish(f->log);
	dlog_totals(f->log, &t);
	assert_int_equal(t.lost, 1);
	assert_false(t.complete);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_written_at_once,
		    setup_pipe, teardown),
		cmocka_unit_test_setup_teardown(test_close_line, setup_pipe,
		    teardown),
		cmocka_unit_test_setup_teardown(test_close_behind, setup_pipe,
		    teardown),
		cmocka_unit_test_setup_teardown(test_fields, setup_pipe,
		    teardown),
		cmocka_unit_test_setup_teardown(test_full_pipe, setup_pipe,
		    teardown),
		cmocka_unit_test_setup_teardown(test_wait_taken, setup_pipe,
		    teardown),
		cmocka_unit_test_setup_teardown(test_wait_expires, setup_pipe,
		    teardown),
		cmocka_unit_test_setup_teardown(test_wait_cancel_bound,
		    setup_pipe, teardown),
		cmocka_unit_test_setup_teardown(test_wait_socket, setup_pipe,
		    teardown),
		cmocka_unit_test_setup_teardown(test_full_pipe_serve,
		    setup_pipe, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_file, setup_file,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
