/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_FUZZ_REPLAY_H
#define TAPKIT_FUZZ_REPLAY_H

/*
 * Replaying a fuzz target's corpus (tests/fuzz/<target>/) through the
 * target without libFuzzer, as a unit test: REPLAY(name) after including
 * tests/fuzz/fuzz_<name>.c.  Under make SAN=1 check the parsers run with
 * AddressSanitizer and UBSan, so an input that reads out of bounds fails.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "tests/unit/unit.h"

/* Runs @fn on every file of tests/fuzz/@name; the number of files. */
static inline int replay(const char *name, int (*fn)(const uint8_t *, size_t))
{
	char dir[256], path[512];
	struct dirent *de;
	struct stat st;
	int count = 0;
	uint8_t *buf;
	FILE *f;
	DIR *d;

	snprintf(dir, sizeof(dir), "tests/fuzz/%s", name);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		f = fopen(path, "rb");
		if (!f)
			continue;
		buf = malloc(st.st_size ? st.st_size : 1);
		if (fread(buf, 1, st.st_size, f) == (size_t)st.st_size)
			fn(buf, st.st_size);
		free(buf);
		fclose(f);
		count++;
	}
	closedir(d);
	return count;
}

#define REPLAY(name)							\
	UNIT_TEST(replay_##name)					\
	{								\
		int n = replay(#name, fuzz_##name);			\
									\
		CHECK(n >= 5);						\
		printf("# %s: %d inputs\n", #name, n);			\
	}

#endif
