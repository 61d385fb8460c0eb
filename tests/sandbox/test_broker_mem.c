/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_broker_mem: the broker's reading of a caller (sandbox/broker_mem.c),
 * against a child of the test's own that fills its memory after the fork
 * (so what is read is the child's, not a copy of ours):
 *
 *   - broker_read_mem reads it, broker_read_str a string to its NUL, and
 *     says toolong for one that fills the buffer; a bad address is EFAULT;
 *   - broker_write_mem writes into it (the child sees it);
 *   - the caller cache gives the same entry for the same tid;
 *   - once the child is gone, a read is ESRCH, never a stale answer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

#define UNUSED	__attribute__((unused))

static char area[64];
static uint32_t word;

static struct broker b;

static void
callers_init(void)
{
	size_t i;

	memset(&b, 0, sizeof(b));
	for (i = 0; i < CALLERS; i++)
		b.callers[i].mem = b.callers[i].pidfd = -1;
}

/* The child: fills its memory, says so, waits for a word, answers it. */
static void
child(int up, int down)
{
	uint32_t seen;
	char c;

	strcpy(area, "the child's own");
	word = 0;
	if (write(up, "r", 1) != 1 || read(down, &c, 1) != 1)
		_exit(2);
	seen = word;
	_exit(write(up, &seen, sizeof(seen)) == sizeof(seen) ? 0 : 3);
}

static void
test_read_write(void **state UNUSED)
{
	int up[2], down[2], status;
	struct caller *c;
	uint32_t v = 0x5eed1e55, seen = 0;
	char buf[64], small[8];
	pid_t pid;

	callers_init();
	strcpy(area, "the parent's");
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	if ((pid = fork()) == 0)
		child(up[1], down[0]);
	assert_true(pid > 0);
	assert_int_equal(read(up[0], buf, 1), 1);

	c = broker_caller_of(&b, pid);
	assert_ptr_equal(broker_caller_of(&b, pid), c);
	assert_int_equal(broker_read_mem(&b, c, (uintptr_t)area, buf, 16), 0);
	assert_string_equal(buf, "the child's own");
	assert_int_equal(broker_read_str(&b, c, (uintptr_t)area, buf,
	    sizeof(buf), ENAMETOOLONG), 0);
	assert_string_equal(buf, "the child's own");
	assert_int_equal(broker_read_str(&b, c, (uintptr_t)area, small,
	    sizeof(small), ENAMETOOLONG), ENAMETOOLONG);
	assert_int_equal(broker_read_str(&b, c, 0, buf, sizeof(buf),
	    ENAMETOOLONG), EFAULT);
	assert_int_equal(broker_read_mem(&b, c, 8, buf, 4), EFAULT);

	assert_int_equal(broker_write_mem(&b, c, (uintptr_t)&word, &v,
	    sizeof(v)), 0);
	assert_int_equal(word, 0);		/* ours is untouched */
	assert_int_equal(write(down[1], "w", 1), 1);
	assert_int_equal(read(up[0], &seen, sizeof(seen)), sizeof(seen));
	assert_int_equal(seen, v);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* Gone (and reaped): no answer from the cached descriptor. */
	assert_int_equal(broker_read_mem(&b, c, (uintptr_t)area, buf, 4),
	    ESRCH);
	broker_caller_close(c);
	(void)close(up[0]);
	(void)close(up[1]);
	(void)close(down[0]);
	(void)close(down[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
