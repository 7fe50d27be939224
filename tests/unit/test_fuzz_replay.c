// SPDX-License-Identifier: GPL-2.0
/*
 * Replays each fuzz target's corpus (tests/fuzz/<target>/, the seeds and
 * every input the fuzzer found worth keeping or that once crashed) through
 * the parsers, without libFuzzer.  Built with AddressSanitizer and UBSan
 * (see the Makefile), so an input that reads out of bounds fails here.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz_btf.c"
#include "tests/fuzz/fuzz_ldcache.c"
#include "tests/fuzz/fuzz_usdt_arg.c"
#include "tests/fuzz/fuzz_usdt_note.c"
#include "tests/fuzz/fuzz_x86_insn.c"
#include "tests/unit/unit.h"

/* Runs @fn on every file of tests/fuzz/@name; the number of files. */
static int replay(const char *name, int (*fn)(const uint8_t *, size_t))
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

REPLAY(usdt_note)
REPLAY(usdt_arg)
REPLAY(ldcache)
REPLAY(x86_insn)
REPLAY(btf)

UNIT_MAIN()
