// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread call stacks: returns pair with the innermost open entry of
 * their probe, missed returns are dropped, the depth is bounded, threads
 * are separate and forgotten.
 */
#include "tool/callstack.h"
#include "tests/unit/unit.h"

UNIT_TEST(nested_and_recursive_calls_pair_innermost_first)
{
	struct callstacks *cs = callstacks_new(16);

	callstacks_enter(cs, 10, 100, 1);
	callstacks_enter(cs, 10, 150, 2);
	callstacks_enter(cs, 10, 170, 2);		/* recursion */
	CHECK_INT(callstacks_return(cs, 10, 200, 2), 30);
	CHECK_INT(callstacks_return(cs, 10, 260, 2), 110);
	CHECK_INT(callstacks_busy(cs), 1);
	CHECK_INT(callstacks_return(cs, 10, 400, 1), 300);
	CHECK_INT(callstacks_busy(cs), 0);
	CHECK_INT(callstacks_return(cs, 10, 500, 1), -1);	/* none open */
	callstacks_free(cs);
}

UNIT_TEST(a_missed_return_drops_the_calls_above)
{
	struct callstacks *cs = callstacks_new(16);

	callstacks_enter(cs, 7, 10, 1);
	callstacks_enter(cs, 7, 20, 2);		/* longjmp out of 2 */
	CHECK_INT(callstacks_return(cs, 7, 50, 1), 40);
	CHECK_INT(callstacks_return(cs, 7, 60, 2), -1);
	callstacks_free(cs);
}

UNIT_TEST(threads_are_separate_and_forgotten)
{
	struct callstacks *cs = callstacks_new(16);

	callstacks_enter(cs, 1, 10, 3);
	callstacks_enter(cs, 2, 20, 3);
	CHECK_INT(callstacks_threads(cs), 2);
	CHECK_INT(callstacks_return(cs, 2, 25, 3), 5);
	callstacks_forget(cs, 1);
	CHECK_INT(callstacks_return(cs, 1, 30, 3), -1);
	CHECK_INT(callstacks_threads(cs), 1);
	callstacks_clear(cs);
	CHECK_INT(callstacks_threads(cs), 0);
	callstacks_free(cs);
}

UNIT_TEST(past_the_depth_calls_are_counted_not_timed)
{
	struct callstacks *cs = callstacks_new(2);

	callstacks_enter(cs, 5, 10, 1);
	callstacks_enter(cs, 5, 20, 1);
	callstacks_enter(cs, 5, 30, 1);		/* past the depth */
	CHECK_INT(callstacks_return(cs, 5, 40, 1), -1);	/* its return */
	CHECK_INT(callstacks_return(cs, 5, 50, 1), 30);
	CHECK_INT(callstacks_return(cs, 5, 60, 1), 50);
	/* a return before its entry's time is not a length */
	callstacks_enter(cs, 5, 100, 1);
	CHECK_INT(callstacks_return(cs, 5, 90, 1), -1);
	callstacks_free(cs);
}

UNIT_MAIN()
