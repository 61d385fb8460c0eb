/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A parent proxy's answer and the request it is asked (proxy/upstream.c,
 * SPEC 8.3): only a whole 2xx head makes a tunnel; its length is exactly
 * the head, so bytes behind it stay for the client.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "proxy/internal.h"

static int
parse(const char *s, size_t *head)
{
	*head = 0;
	return upstream_reply_parse(s, strlen(s), head);
}

static void
test_reply(void **state)
{
	size_t head;

	(void)state;
	assert_int_equal(parse("HTTP/1.1 200 Connection established\r\n\r\n",
	    &head), 1);
	assert_int_equal(head, 39);
	assert_int_equal(parse("HTTP/1.0 200 OK\r\nProxy-agent: x\r\n\r\n"
	    "SSH-2.0-banner\r\n", &head), 1);
	assert_int_equal(head, 35);
	assert_int_equal(parse("HTTP/1.1 204 No Content\r\n\r\n", &head), 1);
	/* Not yet whole. */
	assert_int_equal(parse("HTTP/1.1 200 Connection established\r\n",
	    &head), 0);
	assert_int_equal(parse("HTTP/1.1 2", &head), 0);
	/* Refusals and what is not HTTP. */
	assert_int_equal(parse("HTTP/1.1 403 Forbidden\r\n\r\n", &head), -1);
	assert_int_equal(parse("HTTP/1.1 502 Bad Gateway\r\n\r\n", &head), -1);
	assert_int_equal(parse("HTTP/1.1 407 Proxy Authentication Required"
	    "\r\n\r\n", &head), -1);
	assert_int_equal(parse("HTTP/2.0 200 OK\r\n\r\n", &head), -1);
	assert_int_equal(parse("SSH-2.0-x\r\n\r\n", &head), -1);
	assert_int_equal(parse("HTTP/1.1 2x0 OK\r\n\r\n", &head), -1);
}

static void
test_long_head(void **state)
{
	char buf[9000];
	size_t head;

	(void)state;
	memset(buf, 'a', sizeof(buf));
	memcpy(buf, "HTTP/1.1 200 OK\r\n", 17);
	/* No end within 8 KiB: refused, never read on without bound. */
	assert_int_equal(upstream_reply_parse(buf, sizeof(buf), &head), -1);
	assert_int_equal(upstream_reply_parse(buf, 100, &head), 0);
}

static void
test_request(void **state)
{
	char out[256];
	int n;

	(void)state;
	n = upstream_request(out, sizeof(out), "127.0.0.1", 443, false);
	assert_int_equal(n, (int)strlen(out));
	assert_string_equal(out, "CONNECT 127.0.0.1:443 HTTP/1.1\r\n"
	    "Host: 127.0.0.1:443\r\n\r\n");
	upstream_request(out, sizeof(out), "2001:db8::1", 80, true);
	assert_string_equal(out, "CONNECT [2001:db8::1]:80 HTTP/1.1\r\n"
	    "Host: [2001:db8::1]:80\r\n\r\n");
	upstream_request(out, sizeof(out), "db.example", 5432, false);
	assert_string_equal(out, "CONNECT db.example:5432 HTTP/1.1\r\n"
	    "Host: db.example:5432\r\n\r\n");
	assert_int_equal(upstream_request(out, 20, "db.example", 5432, false),
	    -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply),
		cmocka_unit_test(test_long_head),
		cmocka_unit_test(test_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
