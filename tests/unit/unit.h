/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_UNIT_H
#define TAPKIT_UNIT_H

/*
 * A minimal TAP producer for C unit tests.  Each test is a function
 * registered with UNIT_TEST(); checks record failures and continue.
 *
 *	UNIT_TEST(parses_hex) { long v; CHECK_INT(opt_long("0x10", 0, 99, &v), 0); }
 *	UNIT_MAIN()
 *
 * tests/run counts the "ok"/"not ok"/"# SKIP" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

extern int unit_failed;
extern const char *unit_skip;

#define UNIT_MAX 256
extern struct unit_test unit_tests[UNIT_MAX];
extern int unit_ntests;

#define UNIT_TEST(n)							\
	static void n(void);						\
	__attribute__((constructor)) static void reg_##n(void)		\
	{ unit_tests[unit_ntests++] = (struct unit_test){ #n, n }; }	\
	static void n(void)

#define CHECK(c) do {							\
	if (!(c)) {							\
		printf("#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); \
		unit_failed = 1;					\
	}								\
} while (0)

#define CHECK_INT(a, b) do {						\
	long long a_ = (long long)(a), b_ = (long long)(b);		\
	if (a_ != b_) {							\
		printf("#   %s:%d: %s == %lld, expected %lld\n",	\
		       __FILE__, __LINE__, #a, a_, b_);			\
		unit_failed = 1;					\
	}								\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *a_ = (a), *b_ = (b);				\
	if (!a_ || !b_ || strcmp(a_, b_)) {				\
		printf("#   %s:%d: %s == \"%s\", expected \"%s\"\n",	\
		       __FILE__, __LINE__, #a, a_ ? a_ : "(null)",	\
		       b_ ? b_ : "(null)");				\
		unit_failed = 1;					\
	}								\
} while (0)

/* Skip the current test with a reason (e.g. "requires: root"). */
#define SKIP(reason) do { unit_skip = (reason); return; } while (0)

#define UNIT_MAIN()							\
	int unit_failed;						\
	const char *unit_skip;						\
	struct unit_test unit_tests[UNIT_MAX];				\
	int unit_ntests;						\
	int main(void)							\
	{								\
		int i, bad = 0;						\
		setvbuf(stdout, NULL, _IOLBF, 0);			\
		printf("1..%d\n", unit_ntests);				\
		for (i = 0; i < unit_ntests; i++) {			\
			unit_failed = 0;				\
			unit_skip = NULL;				\
			unit_tests[i].fn();				\
			if (unit_skip && !unit_failed)			\
				printf("ok %d %s # SKIP %s\n", i + 1,	\
				       unit_tests[i].name, unit_skip);	\
			else						\
				printf("%sok %d %s\n",			\
				       unit_failed ? "not " : "", i + 1, \
				       unit_tests[i].name);		\
			bad |= unit_failed;				\
		}							\
		return bad;						\
	}

#endif
