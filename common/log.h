/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LOG_H
#define TAPKIT_LOG_H

#include <stddef.h>

/* Exit codes shared by every command. */
enum tk_exit {
	TK_EXIT_OK = 0,
	TK_EXIT_RUNTIME = 1,
	TK_EXIT_USAGE = 2,
};

extern const char *tk_prog;	/* command name used as message prefix */
extern int tk_verbose;		/* -v count */

void log_init(const char *argv0);

/* "prog: message\n" on stderr; messages are lowercase, no trailing period. */
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only with -v. */
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* pr_err() then exit(TK_EXIT_RUNTIME); atexit handlers undo tracefs state. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Allocation helpers that die on out-of-memory; the caller frees. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * For library code that explains its failures (fmt.h, elfsym.h...): writes
 * the message into @err (@errlen bytes, nothing when NULL) and returns @ret,
 * so a failure reads `return errmsg(err, errlen, -EINVAL, "...", ...);`.
 */
int errmsg(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
