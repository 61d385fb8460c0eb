/* SPDX-License-Identifier: Apache-2.0 */
/* The shedding decision (proxy/shed.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "proxy/shed.h"

static unsigned
need(unsigned active, unsigned max, long fd, long limit)
{
	struct shed_load l = { .active = active, .max = max, .fd = fd,
	    .fd_limit = limit };

	return shed_need(&l);
}

static unsigned
need_open(unsigned conns, long base, long fd, long limit)
{
	struct shed_load l = { .active = conns, .max = 100000, .fd = fd,
	    .conns = conns, .fd_base = base, .fd_limit = limit };

	return shed_need(&l);
}

/* Counted from accept: the one just counted past the limit. */
static void
test_slots(void **state)
{
	(void)state;
	assert_int_equal(need(0, 1, -1, 0), 0);
	assert_int_equal(need(200, 200, 10, 1024), 0);
	assert_int_equal(need(201, 200, 10, 1024), SHED_SLOT);
	assert_int_equal(need(5000, 200, -1, 0), SHED_SLOT);
}

/* The descriptor just taken past the line: short of descriptors. */
static void
test_fds(void **state)
{
	(void)state;
	assert_int_equal(shed_fd_ceiling(1024), 1024 - SHED_FD_RESERVE);
	assert_int_equal(need(10, 300, 1024 - SHED_FD_RESERVE - 1, 1024), 0);
	assert_int_equal(need(10, 300, 1024 - SHED_FD_RESERVE, 1024),
	    SHED_FDS);
	assert_int_equal(need(301, 300, 1022, 1024), SHED_SLOT | SHED_FDS);
	assert_int_equal(need(301, 300, 1023, 1024),
	    SHED_SLOT | SHED_FDS | SHED_NONE_LEFT);
	/* Not known (-1, or no limit): never short. */
	assert_int_equal(need(10, 300, -1, 1024), 0);
	assert_int_equal(need(10, 300, 100000, 0), 0);	/* no limit */
	/* A tiny limit keeps half of it below the line. */
	assert_int_equal(shed_fd_ceiling(48), 24);
	assert_int_equal(shed_fd_ceiling(0), 0);
	assert_int_equal(need(1, 300, 23, 48), 0);
	assert_int_equal(need(1, 300, 24, 48), SHED_FDS);
	assert_int_equal(need(1, 300, 100000, 48), SHED_FDS | SHED_NONE_LEFT);
}

/*
 * One shed frees a low descriptor that the next accept takes: the
 * connections open are counted too, so the count cannot creep up.
 */
static void
test_fds_counted(void **state)
{
	(void)state;
	/* ulimit -n 48: the line at 24; 9 held with none open. */
	assert_int_equal(need_open(15, 9, 9, 48), 0);
	assert_int_equal(need_open(16, 9, 9, 48), SHED_FDS);
	assert_int_equal(need_open(16, 9, -1, 48), SHED_FDS);
	assert_int_equal(need_open(15, 9, -1, 48), 0);
	/* The higher of the two says. */
	assert_int_equal(need_open(1, 9, 30, 48), SHED_FDS);
	/* The last one taken: none left for an origin. */
	assert_int_equal(need_open(1, 9, 46, 48), SHED_FDS);
	assert_int_equal(need_open(1, 9, 47, 48), SHED_FDS | SHED_NONE_LEFT);
	assert_int_equal(need_open(39, 9, -1, 48), SHED_FDS | SHED_NONE_LEFT);
}

/* A splicing tunnel holds 6: 300 connections need 1800 and the reserve. */
static void
test_budget(void **state)
{
	(void)state;
	assert_int_equal(SHED_CONN_FDS, 6);
	assert_true(shed_fd_budget(300) >= 300 * 6 + SHED_FD_RESERVE);
	assert_true(shed_fd_budget(1000000) > 6000000);	/* no overflow */
	/* The budget leaves max_connections tunnels below the pipe line. */
	assert_true(shed_fd_ceiling((long)shed_fd_budget(300)) >= 300 * 6);
}

static void
test_trim(void **state)
{
	(void)state;
	assert_false(shed_trim_due(0, 0));
	assert_false(shed_trim_due(1, SHED_TRIM_PEAK - 1));	/* no peak */
	assert_false(shed_trim_due(SHED_TRIM_PEAK, SHED_TRIM_PEAK));
	assert_true(shed_trim_due(SHED_TRIM_PEAK / SHED_TRIM_LOW,
	    SHED_TRIM_PEAK));
	assert_true(shed_trim_due(0, 10000));
	assert_false(shed_trim_due(10000 / SHED_TRIM_LOW + 1, 10000));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_fds),
		cmocka_unit_test(test_fds_counted),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_trim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
