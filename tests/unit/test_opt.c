// SPDX-License-Identifier: GPL-2.0
/*
 * The checked number parser and the signal/errno name tables.  The helpers
 * that exit (usage_error, opt_num, opt_interval) run in a forked child whose
 * exit status, stderr and stdout are checked.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/opt.h"
#include "tests/unit/unit.h"

/* A parse that must fail with @err and leave *out alone. */
#define CHECK_LONG_ERR(s, min, max, err) do {				\
	long v_ = 12345;						\
	CHECK_INT(opt_long((s), (min), (max), &v_), (err));		\
	CHECK_INT(v_, 12345);						\
} while (0)

#define CHECK_LONG(s, min, max, want) do {				\
	long v_ = 12345;						\
	CHECK_INT(opt_long((s), (min), (max), &v_), 0);			\
	CHECK_INT(v_, (want));						\
} while (0)

UNIT_TEST(long_decimal_and_hex)
{
	CHECK_LONG("0", 0, 10, 0);
	CHECK_LONG("42", 0, 100, 42);
	CHECK_LONG("-42", -100, 100, -42);
	CHECK_LONG("-0", -1, 1, 0);
	CHECK_LONG("0x10", 0, 100, 16);
	CHECK_LONG("0X1f", 0, 100, 31);
	CHECK_LONG("0xdeadBEEF", 0, LONG_MAX, 0xdeadbeefL);
	CHECK_LONG("-0x10", -100, 100, -16);
	CHECK_LONG("9223372036854775807", LONG_MIN, LONG_MAX, LONG_MAX);
	CHECK_LONG("-9223372036854775808", LONG_MIN, LONG_MAX, LONG_MIN);
	CHECK_LONG("0x7fffffffffffffff", 0, LONG_MAX, LONG_MAX);
}

/* "decimal (or 0x hex)": a leading zero does not switch to octal. */
UNIT_TEST(long_leading_zero_is_decimal)
{
	CHECK_LONG("010", 0, 100, 10);
	CHECK_LONG("08", 0, 100, 8);
	CHECK_LONG("0009", 0, 100, 9);
}

UNIT_TEST(long_range)
{
	CHECK_LONG("1", 1, 10, 1);		/* bounds are inclusive */
	CHECK_LONG("10", 1, 10, 10);
	CHECK_LONG_ERR("0", 1, 10, -ERANGE);
	CHECK_LONG_ERR("11", 1, 10, -ERANGE);
	CHECK_LONG_ERR("-1", 0, 10, -ERANGE);
	CHECK_LONG_ERR("0x11", 0, 16, -ERANGE);
	/* overflow of long itself */
	CHECK_LONG_ERR("9223372036854775808", LONG_MIN, LONG_MAX, -ERANGE);
	CHECK_LONG_ERR("-9223372036854775809", LONG_MIN, LONG_MAX, -ERANGE);
	CHECK_LONG_ERR("99999999999999999999999", LONG_MIN, LONG_MAX, -ERANGE);
	CHECK_LONG_ERR("0x10000000000000000", LONG_MIN, LONG_MAX, -ERANGE);
}

UNIT_TEST(long_rejects_junk)
{
	long v = 12345;

	CHECK_LONG_ERR("", 0, 100, -EINVAL);
	CHECK_INT(opt_long(NULL, 0, 100, &v), -EINVAL);
	CHECK_INT(v, 12345);
	CHECK_LONG_ERR("abc", 0, 100, -EINVAL);
	CHECK_LONG_ERR("12abc", 0, 100, -EINVAL);
	CHECK_LONG_ERR("12 ", 0, 100, -EINVAL);
	CHECK_LONG_ERR(" 12", 0, 100, -EINVAL);
	CHECK_LONG_ERR("\t12", 0, 100, -EINVAL);
	CHECK_LONG_ERR("12\n", 0, 100, -EINVAL);
	CHECK_LONG_ERR(" ", 0, 100, -EINVAL);
	CHECK_LONG_ERR("-", 0, 100, -EINVAL);
	CHECK_LONG_ERR("0x", 0, 100, -EINVAL);
	CHECK_LONG_ERR("0xg", 0, 100, -EINVAL);
	CHECK_LONG_ERR("1.5", 0, 100, -EINVAL);
	CHECK_LONG_ERR("1e3", 0, 10000, -EINVAL);
	CHECK_LONG_ERR("--1", -10, 10, -EINVAL);
	/* junk wins over range */
	CHECK_LONG_ERR("999x", 0, 100, -EINVAL);
	/* junk after an overflowing number is still junk */
	CHECK_LONG_ERR("99999999999999999999x", 0, 100, -EINVAL);
}

UNIT_TEST(signal_by_number_and_name)
{
	CHECK_INT(opt_signal("9"), SIGKILL);
	CHECK_INT(opt_signal("1"), SIGHUP);
	CHECK_INT(opt_signal("KILL"), SIGKILL);
	CHECK_INT(opt_signal("SIGKILL"), SIGKILL);
	CHECK_INT(opt_signal("sigkill"), SIGKILL);
	CHECK_INT(opt_signal("kill"), SIGKILL);
	CHECK_INT(opt_signal("SigTerm"), SIGTERM);
	CHECK_INT(opt_signal("USR1"), SIGUSR1);
	CHECK_INT(opt_signal("SIGCHLD"), SIGCHLD);
	CHECK_INT(opt_signal("SIGSYS"), SIGSYS);
	CHECK_INT(opt_signal("0x9"), SIGKILL);
	/* every real-time signal by number */
	CHECK_INT(opt_signal("34"), 34);
	CHECK_INT(opt_signal("64"), SIGRTMAX);
}

UNIT_TEST(signal_unknown)
{
	CHECK_INT(opt_signal("0"), -1);
	CHECK_INT(opt_signal("65"), -1);
	CHECK_INT(opt_signal("-9"), -1);
	CHECK_INT(opt_signal("9x"), -1);
	CHECK_INT(opt_signal(""), -1);
	CHECK_INT(opt_signal("SIG"), -1);
	CHECK_INT(opt_signal("NOPE"), -1);
	CHECK_INT(opt_signal("SIGNOPE"), -1);
	CHECK_INT(opt_signal("SIGKILLX"), -1);
	CHECK_INT(opt_signal(" KILL"), -1);
	CHECK_INT(opt_signal("99999999999999999999"), -1);
}

UNIT_TEST(signal_names)
{
	int sig;

	CHECK_STR(signal_name(SIGKILL), "SIGKILL");
	CHECK_STR(signal_name(SIGHUP), "SIGHUP");
	CHECK_STR(signal_name(SIGTERM), "SIGTERM");
	CHECK_STR(signal_name(SIGSEGV), "SIGSEGV");
	CHECK_STR(signal_name(SIGSYS), "SIGSYS");
	CHECK_STR(signal_name(SIGRTMIN + 1), "SIGRTMIN+1");
	/* every named signal reads back */
	for (sig = 1; sig < SIGRTMIN; sig++) {
		const char *n = signal_name(sig);

		if (strncmp(n, "SIG", 3) || !strcmp(n + 3, "") ||
		    (n[3] >= '0' && n[3] <= '9'))
			continue;	/* glibc-reserved, unnamed */
		CHECK_INT(opt_signal(n), sig);
		CHECK_INT(opt_signal(n + 3), sig);
	}
}

/* opt.h: "SIG%d" fallback for signals without a name. */
UNIT_TEST(signal_name_unnamed)
{
	CHECK_STR(signal_name(32), "SIG32");
	CHECK_STR(signal_name(65), "SIG65");
}

UNIT_TEST(errno_by_number_and_name)
{
	CHECK_INT(opt_errno("ENOENT"), ENOENT);
	CHECK_INT(opt_errno("enoent"), ENOENT);
	CHECK_INT(opt_errno("EPERM"), EPERM);
	CHECK_INT(opt_errno("2"), 2);
	CHECK_INT(opt_errno("1"), 1);
	CHECK_INT(opt_errno("4095"), 4095);
	CHECK_INT(opt_errno("EHWPOISON"), EHWPOISON);
	CHECK_INT(opt_errno("EAGAIN"), EAGAIN);
	CHECK_INT(opt_errno("0"), -1);
	CHECK_INT(opt_errno("4096"), -1);
	CHECK_INT(opt_errno("-2"), -1);
	CHECK_INT(opt_errno("ENOPE"), -1);
	CHECK_INT(opt_errno("NOENT"), -1);
	CHECK_INT(opt_errno(""), -1);
	CHECK_INT(opt_errno("2x"), -1);
}

UNIT_TEST(errno_names)
{
	int e;

	CHECK_STR(errno_name(ENOENT), "ENOENT");
	CHECK_STR(errno_name(EPERM), "EPERM");
	CHECK_STR(errno_name(EHWPOISON), "EHWPOISON");
	CHECK(errno_name(0) == NULL);
	CHECK(errno_name(-2) == NULL);
	CHECK(errno_name(4000) == NULL);
	for (e = 1; e <= EHWPOISON; e++) {
		const char *n = errno_name(e);

		/* aliases (EWOULDBLOCK, EDEADLOCK) read back as the errno */
		if (n)
			CHECK_INT(opt_errno(n), e);
	}
}

/* What a child wrote and how it ended. */
struct child {
	int status;		/* exit code, or 128 + signal */
	char out[1024];
	char err[1024];
};

static void drain_fd(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n < size - 1 && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
}

/* Run @fn(@arg) in a child as command @argv0; returns 99 if it returns. */
static void run_child(const char *argv0, void (*fn)(void *), void *arg,
		      struct child *c)
{
	int out[2], err[2], st;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	c->status = -1;
	fflush(stdout);
	fflush(stderr);
	if (pipe(out) || pipe(err)) {
		CHECK(!"pipe");
		return;
	}
	pid = fork();
	if (pid < 0) {
		CHECK(!"fork");
		return;
	}
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		close(out[1]);
		close(err[1]);
		log_init(argv0);
		fn(arg);
		fflush(stdout);
		_exit(99);
	}
	close(out[1]);
	close(err[1]);
	/* small outputs: reading one pipe after the other cannot deadlock */
	drain_fd(err[0], c->err, sizeof(c->err));
	drain_fd(out[0], c->out, sizeof(c->out));
	close(out[0]);
	close(err[0]);
	if (waitpid(pid, &st, 0) != pid)
		return;
	c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void call_usage_error(void *arg)
{
	usage_error("unknown option '%s'", (const char *)arg);
}

UNIT_TEST(usage_error_message_and_status)
{
	struct child c;

	run_child("/usr/local/sbin/opensnoop", call_usage_error, "-Q", &c);
	CHECK_INT(c.status, TK_EXIT_USAGE);
	CHECK_INT(c.status, 2);
	CHECK_STR(c.err, "opensnoop: unknown option '-Q'\n"
		  "Try 'opensnoop --help' for more information.\n");
	CHECK_STR(c.out, "");

	run_child("execsnoop", call_usage_error, "x", &c);
	CHECK_INT(c.status, 2);
	CHECK_STR(c.err, "execsnoop: unknown option 'x'\n"
		  "Try 'execsnoop --help' for more information.\n");
}

struct num_call {
	const char *opt, *arg;
	long min, max;
};

static void call_opt_num(void *arg)
{
	struct num_call *nc = arg;

	printf("%ld\n", opt_num(nc->opt, nc->arg, nc->min, nc->max));
}

UNIT_TEST(opt_num_exits_on_bad_input)
{
	struct child c;
	struct num_call bad = { "--pid", "12ab", 1, 100 };
	struct num_call range = { "--duration", "0", 1, 3600 };
	struct num_call empty = { "-p", "", 1, 100 };

	run_child("syscount", call_opt_num, &bad, &c);
	CHECK_INT(c.status, 2);
	CHECK_STR(c.err, "syscount: invalid number for --pid: '12ab'\n"
		  "Try 'syscount --help' for more information.\n");
	CHECK_STR(c.out, "");

	run_child("syscount", call_opt_num, &range, &c);
	CHECK_INT(c.status, 2);
	CHECK_STR(c.err, "syscount: --duration must be between 1 and 3600: '0'\n"
		  "Try 'syscount --help' for more information.\n");

	run_child("syscount", call_opt_num, &empty, &c);
	CHECK_INT(c.status, 2);
	CHECK_STR(c.err, "syscount: invalid number for -p: ''\n"
		  "Try 'syscount --help' for more information.\n");
}

UNIT_TEST(opt_num_returns_good_input)
{
	struct child c;
	struct num_call ok = { "--pid", "0x20", 1, 100 };

	CHECK_INT(opt_num("--pid", "77", 1, 100), 77);
	CHECK_INT(opt_num("--x", "-5", -10, 10), -5);
	run_child("syscount", call_opt_num, &ok, &c);
	CHECK_INT(c.status, 99);		/* returned, did not exit */
	CHECK_STR(c.out, "32\n");
	CHECK_STR(c.err, "");
}

struct iv_call {
	int argc;
	char **argv;
	int optind;
};

static void call_opt_interval(void *arg)
{
	struct iv_call *ic = arg;
	struct interval iv;

	opt_interval(ic->argc, ic->argv, ic->optind, &iv);
	printf("%ld %ld\n", iv.secs, iv.count);
}

/* Run opt_interval on "runqlat -m" followed by up to three operands. */
static void interval_child(const char *a, const char *b, const char *c3,
			   struct child *c)
{
	char *argv[6] = { "runqlat", "-m", (char *)a, (char *)b, (char *)c3, NULL };
	struct iv_call ic = { 2, argv, 2 };

	while (argv[ic.argc])
		ic.argc++;
	run_child("runqlat", call_opt_interval, &ic, c);
}

UNIT_TEST(interval_operands)
{
	struct child c;
	struct interval iv = { 7, 7 };
	char *argv[] = { "t", "5", "3", NULL };

	opt_interval(1, argv, 1, &iv);
	CHECK_INT(iv.secs, 0);
	CHECK_INT(iv.count, 0);
	opt_interval(2, argv, 1, &iv);
	CHECK_INT(iv.secs, 5);
	CHECK_INT(iv.count, 0);
	opt_interval(3, argv, 1, &iv);
	CHECK_INT(iv.secs, 5);
	CHECK_INT(iv.count, 3);

	interval_child(NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 99);
	CHECK_STR(c.out, "0 0\n");
	interval_child("1", "10", NULL, &c);
	CHECK_INT(c.status, 99);
	CHECK_STR(c.out, "1 10\n");
	CHECK_STR(c.err, "");
}

UNIT_TEST(interval_usage_errors)
{
	struct child c;

	interval_child("x", NULL, NULL, &c);
	CHECK_INT(c.status, 2);
	CHECK_STR(c.err, "runqlat: invalid number for interval: 'x'\n"
		  "Try 'runqlat --help' for more information.\n");
	CHECK_STR(c.out, "");

	interval_child("0", NULL, NULL, &c);
	CHECK_INT(c.status, 2);
	CHECK_STR(c.err, "runqlat: interval must be between 1 and 31536000: '0'\n"
		  "Try 'runqlat --help' for more information.\n");

	interval_child("1", "0", NULL, &c);
	CHECK_INT(c.status, 2);
	CHECK_STR(c.err, "runqlat: count must be between 1 and 1099511627776: '0'\n"
		  "Try 'runqlat --help' for more information.\n");

	interval_child("1", "2", "3", &c);
	CHECK_INT(c.status, 2);
	CHECK_STR(c.err, "runqlat: unexpected argument '3'\n"
		  "Try 'runqlat --help' for more information.\n");
	CHECK_STR(c.out, "");
}

UNIT_MAIN()
