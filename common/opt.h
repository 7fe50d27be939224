/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_OPT_H
#define TAPKIT_OPT_H

#include <stdbool.h>

/**
 * opt_long() - parse a whole decimal (or 0x hex) number within [min, max]
 * Returns 0 and sets *out, -EINVAL when @s is not a number, -ERANGE when it is
 * outside the range.  Never accepts trailing garbage or an empty string.
 */
int opt_long(const char *s, long min, long max, long *out);

/* For commands: parse @arg of option @opt or exit with a usage error. */
long opt_num(const char *opt, const char *arg, long min, long max);

/* "prog: message" and a pointer to --help on stderr, exit 2. */
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * The usage error for what getopt_long() just refused (call it for '?'
 * and ':' with opterr = 0 and an optstring starting with ':').
 */
void usage_bad_option(char **argv, int c) __attribute__((noreturn));

/* "9", "KILL" or "SIGKILL" -> 9; -1 when unknown. */
int opt_signal(const char *s);
/* "SIGKILL" for 9, "SIG%d" buffer-free fallback for unnamed ones. */
const char *signal_name(int sig);

/* "EPERM" or "1" -> 1; -1 when unknown. */
int opt_errno(const char *s);

/* A UID for @opt: a number, or a user's name (bcc's -u); a usage error
 * when neither. */
long opt_uid(const char *opt, const char *arg);
/* "EPERM" for 1, NULL for unknown. */
const char *errno_name(int err);

/* Summarising tools' trailing "[interval [count]]" */
struct interval {
	long secs;	/* 0: only at the end */
	long count;	/* 0: forever */
};
/* Parse argv[optind..]; usage error on junk or extra operands. */
void opt_interval(int argc, char **argv, int optind, struct interval *iv);

#endif
