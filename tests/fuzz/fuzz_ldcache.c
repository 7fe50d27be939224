// SPDX-License-Identifier: GPL-2.0
/* Fuzz the ld.so.cache reader: the input is a cache file. */
#include <stdlib.h>
#include <string.h>

#include "common/ldcache.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET(ldcache)
{
	static const char *const names[] = { "libc", "c", "libc.so.6", "libm" };
	char path[4096];
	uint8_t *copy;
	size_t i;

	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!ldcache_lookup(copy, size, names[i], path, sizeof(path)) &&
		    strlen(path) >= size)
			abort();
	free(copy);
	return 0;
}
