// SPDX-License-Identifier: GPL-2.0
/*
 * The one checked number parser of the suite, and the small name tables
 * (signals, errnos) options accept.
 */
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/opt.h"

int opt_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	/* decimal, or hex with 0x: a leading zero is not octal ("08") */
	if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ||
	    (s[0] == '-' && s[1] == '0' && (s[2] == 'x' || s[2] == 'X')))
		v = strtol(s, &end, 16);
	else
		v = strtol(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

void usage_error(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n",
		tk_prog, buf, tk_prog);
	exit(TK_EXIT_USAGE);
}

long opt_num(const char *opt, const char *arg, long min, long max)
{
	long v;
	int err = opt_long(arg, min, max, &v);

	if (err == -EINVAL)
		usage_error("invalid number for %s: '%s'", opt, arg);
	if (err == -ERANGE)
		usage_error("%s must be between %ld and %ld: '%s'", opt, min, max, arg);
	return v;
}

void usage_bad_option(char **argv, int c)
{
	const char *arg = argv[optind - 1];

	if (c == ':') {
		if (optopt)
			usage_error("option '-%c' needs an argument", optopt);
		usage_error("option '%s' needs an argument", arg);
	}
	if (optopt)
		usage_error("invalid option '-%c'", optopt);
	usage_error("invalid option '%s'", arg);
}

int opt_signal(const char *s)
{
	long v;
	int sig;

	if (opt_long(s, 1, SIGRTMAX, &v) == 0)
		return (int)v;
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (sig = 1; sig < NSIG; sig++) {
		const char *abbrev = sigabbrev_np(sig);

		if (abbrev && strcasecmp(abbrev, s) == 0)
			return sig;
	}
	return -1;
}

const char *signal_name(int sig)
{
	static char buf[16];
	const char *abbrev = sig > 0 && sig < NSIG ? sigabbrev_np(sig) : NULL;

	if (abbrev) {
		snprintf(buf, sizeof(buf), "SIG%s", abbrev);
		return buf;
	}
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, sizeof(buf), "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, sizeof(buf), "SIG%d", sig);
	return buf;
}

#define MAX_ERRNO 4095

int opt_errno(const char *s)
{
	long v;
	int e;

	if (opt_long(s, 1, MAX_ERRNO, &v) == 0)
		return (int)v;
	for (e = 1; e < 200; e++) {
		const char *name = strerrorname_np(e);

		if (name && strcasecmp(name, s) == 0)
			return e;
	}
	return -1;
}

const char *errno_name(int err)
{
	return err > 0 ? strerrorname_np(err) : NULL;
}

void opt_interval(int argc, char **argv, int optind, struct interval *iv)
{
	iv->secs = 0;
	iv->count = 0;
	if (optind < argc)
		iv->secs = opt_num("interval", argv[optind++], 1, 86400L * 365);
	if (optind < argc)
		iv->count = opt_num("count", argv[optind++], 1, 1L << 40);
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
}

long opt_uid(const char *opt, const char *arg)
{
	struct passwd *pw;

	if (*arg >= '0' && *arg <= '9')
		return opt_num(opt, arg, 0, 4294967294L);
	pw = getpwnam(arg);
	if (!pw)
		usage_error("unknown user '%s'", arg);
	return (long)pw->pw_uid;
}
