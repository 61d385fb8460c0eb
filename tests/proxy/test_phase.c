/* SPDX-License-Identifier: Apache-2.0 */
/*
 * connect_timeout bounds the whole connect phase (SPEC 4 Limits): what is
 * left of the phase's budget as addresses are tried one after another.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "proxy/phase.h"

/* Eight addresses, each taking its whole wait: the phase ends once. */
static void
eight_addresses_share_one_budget(void **state)
{
	int64_t start = 1000, now = start;
	uint64_t left;
	int tried = 0;

	(void)state;
	while ((left = phase_left_ms(start, now, 500)) > 0 && tried < 8) {
		tried++;
		now += (int64_t)left;	/* this address timed out */
	}
	assert_int_equal(tried, 1);
	assert_int_equal(now - start, 500);
}

/* Refused addresses cost little: the next ones get what remains. */
static void
what_is_left_after_quick_failures(void **state)
{
	(void)state;
	assert_int_equal(phase_left_ms(0, 0, 15000), 15000);
	assert_int_equal(phase_left_ms(0, 3, 15000), 14997);
	assert_int_equal(phase_left_ms(100, 14099, 14000), 1);
	assert_int_equal(phase_left_ms(100, 14100, 14000), 0);
	assert_int_equal(phase_left_ms(100, 99999, 14000), 0);
}

/* A clock seen going back never grants more than the budget. */
static void
clock_back_grants_no_more(void **state)
{
	(void)state;
	assert_int_equal(phase_left_ms(5000, 4000, 700), 700);
	assert_int_equal(phase_left_ms(0, 0, 0), 0);
	assert_int_equal(phase_left_ms(INT64_MIN, INT64_MAX, UINT64_MAX), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eight_addresses_share_one_budget),
		cmocka_unit_test(what_is_left_after_quick_failures),
		cmocka_unit_test(clock_back_grants_no_more),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
