// SPDX-License-Identifier: GPL-2.0
/*
 * common/task.c's cache of task names over time: a rename keeps the name
 * before it, so that records read out of time order (one CPU after
 * another) are named as of their timestamps, whichever of a task's
 * renames is read first.  The thread ids are above any pid_max, so /proc
 * never answers for them.
 */
#include "common/task.h"
#include "tests/unit/unit.h"

#define T1 (1 << 23)

UNIT_TEST(rename_keeps_the_name_before)
{
	task_cache_set(T1, "old", -1);
	task_cache_rename(T1, "new", 100);
	CHECK_STR(task_cache_comm_at(T1, 50), "old");
	CHECK_STR(task_cache_comm_at(T1, 100), "new");
	CHECK_STR(task_cache_comm_at(T1, 150), "new");
	/* 0: now */
	CHECK_STR(task_cache_comm_at(T1, 0), "new");
	CHECK_STR(task_cache_comm(T1), "new");
	/* the same rename read again (a round's renames are seen first) */
	task_cache_rename(T1, "new", 100);
	CHECK_STR(task_cache_comm_at(T1, 50), "old");
	/* a later one: the name before it is the last one */
	task_cache_rename(T1, "newer", 200);
	CHECK_STR(task_cache_comm_at(T1, 150), "new");
	CHECK_STR(task_cache_comm_at(T1, 250), "newer");
}

UNIT_TEST(older_rename_read_last_names_the_time_before)
{
	/* exec's rename at 100 read after the prctl rename at 200 */
	task_cache_set(T1 + 1, "shell", -1);
	task_cache_rename(T1 + 1, "esc", 200);
	task_cache_rename(T1 + 1, "raw", 100);
	CHECK_STR(task_cache_comm_at(T1 + 1, 0), "esc");
	CHECK_STR(task_cache_comm_at(T1 + 1, 250), "esc");
	CHECK_STR(task_cache_comm_at(T1 + 1, 150), "raw");
}

UNIT_TEST(forked_task_was_its_parent_before_exec)
{
	task_cache_hint(T1 + 2, "parent", -1);
	task_cache_rename(T1 + 2, "child", 10);
	CHECK_STR(task_cache_comm_at(T1 + 2, 5), "parent");
	CHECK_STR(task_cache_comm_at(T1 + 2, 15), "child");
}

UNIT_TEST(unknown_name_before_is_the_name_now)
{
	/* nothing known before the rename: /proc would say the name now */
	task_cache_rename(T1 + 3, "only", 10);
	CHECK_STR(task_cache_comm_at(T1 + 3, 5), "only");
}

UNIT_TEST(another_task_in_the_slot_forgets_the_history)
{
	/* the cache is direct-mapped by tid: 4096 slots */
	task_cache_set(T1 + 4, "first", -1);
	task_cache_rename(T1 + 4, "second", 100);
	task_cache_set(T1 + 4 + 4096, "other", -1);
	task_cache_set(T1 + 4, "again", -1);
	CHECK_STR(task_cache_comm_at(T1 + 4, 50), "again");
}

UNIT_MAIN()
