// SPDX-License-Identifier: GPL-2.0
/*
 * The -c command (common/child.c): held until released, never left
 * behind, its status as a shell reports it, its words run directly.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/child.h"
#include "tests/unit/unit.h"

static char dir[] = "/tmp/tk-child-XXXXXX";

static char *path(const char *name)
{
	static char buf[128];
	static bool made;

	if (!made && !mkdtemp(dir))
		abort();
	made = true;
	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static int run(const char *cmd)
{
	struct child c;
	char err[128];

	if (child_spawn(&c, cmd, err, sizeof(err)) < 0)
		return -1;
	if (child_release(&c) < 0)
		return -1;
	child_reap(&c, true);
	return child_exit_code(&c);
}

UNIT_TEST(held_until_released)
{
	char cmd[256], err[128];
	struct child c;

	snprintf(cmd, sizeof(cmd), "touch %s", path("held"));
	CHECK_INT(child_spawn(&c, cmd, err, sizeof(err)), 0);
	CHECK(c.pid > 0);
	usleep(100 * 1000);
	CHECK(!child_reap(&c, false));
	CHECK_INT(access(path("held"), F_OK), -1);
	CHECK_INT(child_release(&c), 0);
	CHECK(child_reap(&c, true));
	CHECK_INT(child_exit_code(&c), 0);
	CHECK_INT(access(path("held"), F_OK), 0);
	unlink(path("held"));
}

UNIT_TEST(never_released_never_runs)
{
	char cmd[256], err[128];
	struct child c;

	snprintf(cmd, sizeof(cmd), "touch %s", path("never"));
	CHECK_INT(child_spawn(&c, cmd, err, sizeof(err)), 0);
	child_end(&c);
	CHECK(c.reaped);
	CHECK_INT(child_exit_code(&c), 127);
	CHECK_INT(access(path("never"), F_OK), -1);
	child_end(&c);		/* again: nothing */
}

UNIT_TEST(a_running_command_is_ended)
{
	char err[128];
	struct child c;

	CHECK_INT(child_spawn(&c, "sleep 30", err, sizeof(err)), 0);
	CHECK_INT(child_release(&c), 0);
	child_end(&c);
	CHECK(c.reaped);
	CHECK_INT(child_exit_code(&c), 128 + SIGTERM);
}

UNIT_TEST(a_command_ignoring_sigterm_is_killed)
{
	char err[128];
	struct child c;

	char tdir[] = "/tmp/tk-child-XXXXXX", cmd[256], mark[64];
	int i;

	CHECK(mkdtemp(tdir) != NULL);
	snprintf(mark, sizeof(mark), "%s/trapped", tdir);
	snprintf(cmd, sizeof(cmd), "sh -c 'trap \"\" TERM; : > %s; exec sleep 30'", mark);
	CHECK_INT(child_spawn(&c, cmd, err, sizeof(err)), 0);
	CHECK_INT(child_release(&c), 0);
	for (i = 0; i < 500 && access(mark, F_OK); i++)	/* the trap set */
		usleep(10 * 1000);
	CHECK_INT(access(mark, F_OK), 0);
	child_end(&c);
	unlink(mark);
	rmdir(tdir);
	CHECK(c.reaped);
	CHECK_INT(child_exit_code(&c), 128 + SIGKILL);
}

UNIT_TEST(exit_status_as_a_shell_says)
{
	CHECK_INT(run("sh -c 'exit 3'"), 3);
	CHECK_INT(run("true"), 0);
	CHECK_INT(run("exit 4; true"), 4);		/* shell syntax: sh -c */
	CHECK_INT(run("sh -c 'kill -KILL $$'"), 128 + SIGKILL);
	CHECK_INT(run("/nonexistent/tapkit-command"), 127);
}

UNIT_TEST(words_run_directly)
{
	char cmd[256], buf[32] = "";
	char err[128];
	struct child c;
	FILE *f;

	/* $$ is expanded in the command's process, which is the program
	 * run itself (no shell around it) */
	snprintf(cmd, sizeof(cmd), "sh -c \"echo $$ >%s\"", path("pid"));
	CHECK_INT(child_spawn(&c, cmd, err, sizeof(err)), 0);
	CHECK_INT(child_release(&c), 0);
	child_reap(&c, true);
	CHECK_INT(child_exit_code(&c), 0);
	f = fopen(path("pid"), "r");
	CHECK(f && fgets(buf, sizeof(buf), f));
	if (f)
		fclose(f);
	CHECK_INT(atoi(buf), c.pid);
	unlink(path("pid"));
	rmdir(dir);
}

UNIT_TEST(empty_command)
{
	char err[128];
	struct child c;

	CHECK_INT(child_spawn(&c, " \t", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "empty command");
	CHECK_INT(c.pid, 0);
	child_end(&c);
}

UNIT_MAIN()
