/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_notify: the sd_notify protocol's pure parts (cli/notifymsg.c):
 * NOTIFY_SOCKET's forms as an address and each message's bytes.
 * tests/cli/notify.sh has a real socket receive them from service mode.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/notify.h"

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))
#define UNUSED		__attribute__((unused))
#define SUN_OFF		offsetof(struct sockaddr_un, sun_path)

/* ---------------------------------------------------------------- */
/* notify_addr */

static void
addr_path(UNUSED void **state)
{
	struct sockaddr_un sa;
	socklen_t len = 0;

	assert_int_equal(notify_addr("/run/systemd/notify", &sa, &len), 0);
	assert_int_equal(sa.sun_family, AF_UNIX);
	assert_string_equal(sa.sun_path, "/run/systemd/notify");
	/* The path and its NUL, as sd_notify sends it. */
	assert_int_equal(len, SUN_OFF + strlen("/run/systemd/notify") + 1);
}

static void
addr_abstract(UNUSED void **state)
{
	struct sockaddr_un sa;
	socklen_t len = 0;

	assert_int_equal(notify_addr("@harn/test", &sa, &len), 0);
	/* A leading NUL, then the name's bytes, none after. */
	assert_int_equal(sa.sun_path[0], '\0');
	assert_memory_equal(sa.sun_path + 1, "harn/test", 9);
	assert_int_equal(len, SUN_OFF + 10);
}

static void
addr_refused(UNUSED void **state)
{
	static const char *const bad[] = {
		"", "@", "/", "relative/path", "notify", "vsock:2:1234",
		" /run/x",
	};
	struct sockaddr_un sa;
	socklen_t len = 0;
	size_t i;

	assert_int_equal(notify_addr(NULL, &sa, &len), -1);
	for (i = 0; i < NELEM(bad); i++) {
		errno = 0;
		assert_int_equal(notify_addr(bad[i], &sa, &len), -1);
		assert_int_equal(errno, EINVAL);
	}
}

/* sun_path holds 108 bytes: a path of 107 and its NUL, a name of 107. */
static void
addr_lengths(UNUSED void **state)
{
	char v[sizeof(((struct sockaddr_un *)0)->sun_path) + 2];
	struct sockaddr_un sa;
	size_t max = sizeof(sa.sun_path);
	socklen_t len = 0;

	memset(v, 'a', sizeof(v));
	v[0] = '/';
	v[max - 1] = '\0';		/* 107 bytes */
	assert_int_equal(notify_addr(v, &sa, &len), 0);
	assert_int_equal(len, SUN_OFF + max);
	v[max - 1] = 'a';
	v[max] = '\0';			/* 108: no room for the NUL */
	errno = 0;
	assert_int_equal(notify_addr(v, &sa, &len), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	v[0] = '@';			/* 108: the whole sun_path */
	assert_int_equal(notify_addr(v, &sa, &len), 0);
	assert_int_equal(len, SUN_OFF + max);
	v[max] = 'a';
	v[max + 1] = '\0';		/* 109 */
	errno = 0;
	assert_int_equal(notify_addr(v, &sa, &len), -1);
	assert_int_equal(errno, ENAMETOOLONG);
}

/* ---------------------------------------------------------------- */
/* notify_format */

struct fmt_row {
	enum notify_state	 state;
	uint64_t		 mono;
	const char		*status, *want;
};

static const struct fmt_row fmt_rows[] = {
	{ NOTIFY_READY, 0, NULL, "READY=1" },
	{ NOTIFY_READY, 99, "accepting on 1 listener",
	    "READY=1\nSTATUS=accepting on 1 listener" },
	/* The clock is the reloading message's alone. */
	{ NOTIFY_RELOADING, 1234567, NULL,
	    "RELOADING=1\nMONOTONIC_USEC=1234567" },
	{ NOTIFY_RELOADING, UINT64_MAX, "re-reading the policy",
	    "RELOADING=1\nMONOTONIC_USEC=18446744073709551615\n"
	    "STATUS=re-reading the policy" },
	{ NOTIFY_RELOADING, 0, "", "RELOADING=1\nMONOTONIC_USEC=0\nSTATUS=" },
	{ NOTIFY_STOPPING, 5, "draining open connections",
	    "STOPPING=1\nSTATUS=draining open connections" },
	/* One line: a newline would be a second assignment to systemd. */
	{ NOTIFY_STOPPING, 0, "a\nREADY=1\r\tb\x7f",
	    "STOPPING=1\nSTATUS=a READY=1  b " },
};

static void
format_rows(UNUSED void **state)
{
	char buf[NOTIFY_MSG_MAX];
	size_t i;
	int n;

	for (i = 0; i < NELEM(fmt_rows); i++) {
		const struct fmt_row *r = &fmt_rows[i];

		n = notify_format(buf, sizeof(buf), r->state, r->mono,
		    r->status);
		assert_int_equal(n, (int)strlen(r->want));
		assert_string_equal(buf, r->want);
	}
}

/* A long status is cut at NOTIFY_STATUS_MAX and still fits the buffer. */
static void
format_long_status(UNUSED void **state)
{
	char status[3 * NOTIFY_STATUS_MAX], buf[NOTIFY_MSG_MAX];
	const char *s;
	int n;

	memset(status, 'x', sizeof(status) - 1);
	status[sizeof(status) - 1] = '\0';
	n = notify_format(buf, sizeof(buf), NOTIFY_RELOADING, UINT64_MAX,
	    status);
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(buf));
	assert_non_null(s = strstr(buf, "\nSTATUS="));
	assert_int_equal(strlen(s + 8), NOTIFY_STATUS_MAX);
}

/* Too small a buffer: -1 and an empty string, never a cut message. */
static void
format_small(UNUSED void **state)
{
	char buf[16];

	memset(buf, 'z', sizeof(buf));
	assert_int_equal(notify_format(buf, 0, NOTIFY_READY, 0, NULL), -1);
	assert_int_equal(buf[0], 'z');
	assert_int_equal(notify_format(buf, 7, NOTIFY_READY, 0, NULL), -1);
	assert_string_equal(buf, "");
	assert_int_equal(notify_format(buf, 8, NOTIFY_READY, 0, NULL), 7);
	assert_string_equal(buf, "READY=1");
	assert_int_equal(notify_format(buf, sizeof(buf), NOTIFY_RELOADING, 1,
	    NULL), -1);
	assert_string_equal(buf, "");
	assert_int_equal(notify_format(buf, sizeof(buf), NOTIFY_READY, 0,
	    "long enough to overflow"), -1);
	assert_string_equal(buf, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(addr_path),
		cmocka_unit_test(addr_abstract),
		cmocka_unit_test(addr_refused),
		cmocka_unit_test(addr_lengths),
		cmocka_unit_test(format_rows),
		cmocka_unit_test(format_long_status),
		cmocka_unit_test(format_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
