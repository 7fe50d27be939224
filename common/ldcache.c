// SPDX-License-Identifier: GPL-2.0
/*
 * /etc/ld.so.cache, read as glibc's dl-cache.c does.
 *
 * Two layouts exist: the "new" one (glibc >= 2.32 writes only that), a
 * 48-byte header "glibc-ld.so.cache1.1" followed by 24-byte entries whose
 * key (library name) and value (path) are offsets from the header's start;
 * and the old "ld.so-1.7.0" one, which older glibc wrote with the new one
 * appended after its own entries.  We read the new part in both cases.
 *
 * The file is root-owned, but it is parsed as untrusted input all the same
 * (every offset and string is bounds-checked), and fuzzed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/ldcache.h"

#define OLD_MAGIC	"ld.so-1.7.0"
#define NEW_MAGIC	"glibc-ld.so.cache1.1"
#define NEW_HEADER	48
#define NEW_ENTRY	24
#define OLD_HEADER	16	/* magic (11, padded to 12) and nlibs */
#define OLD_ENTRY	12

/* flags: the ELF libc6 type in the low byte, the ABI in the next one */
#define FLAG_TYPE_MASK	0x00ff
#define FLAG_ELF_LIBC6	0x0003
#define FLAG_ABI_MASK	0xff00
#if defined(__x86_64__)
#define FLAG_ABI_OURS	0x0300	/* FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
#define FLAG_ABI_OURS	0x0a00	/* FLAG_AARCH64_LIB64 */
#else
#define FLAG_ABI_OURS	0x0000	/* 32-bit and others: no ABI bits */
#endif

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

bool ldcache_name_match(const char *base, const char *name)
{
	char lib[256];
	size_t n;

	if (strstr(name, ".so")) {
		n = strlen(name);
		return !strcmp(base, name) ||
		       (!strncmp(base, name, n) && base[n] == '.');
	}
	if (snprintf(lib, sizeof(lib), "%s%s",
		     strncmp(name, "lib", 3) ? "lib" : "", name) >= (int)sizeof(lib))
		return false;
	n = strlen(lib);
	if (strncmp(base, lib, n))
		return false;
	if (!strncmp(base + n, ".so", 3) && (!base[n + 3] || base[n + 3] == '.'))
		return true;
	/* libc-2.31.so */
	return base[n] == '-' && base[n + 1] >= '0' && base[n + 1] <= '9' &&
	       strstr(base + n, ".so");
}

/* The string at offset @off of @d, or NULL when it is not NUL-terminated
 * inside the cache. */
static const char *string_at(const unsigned char *d, size_t len, uint32_t off)
{
	if (off >= len || !memchr(d + off, '\0', len - off))
		return NULL;
	return (const char *)d + off;
}

int ldcache_lookup(const void *data, size_t len, const char *name,
		   char *path, size_t n)
{
	const unsigned char *d = data;
	uint32_t nlibs, i;
	size_t start = 0;

	/* old layout first: skip its entries to the new header */
	if (len >= OLD_HEADER && !memcmp(d, OLD_MAGIC, sizeof(OLD_MAGIC) - 1)) {
		nlibs = get32(d + 12);
		if (nlibs > (len - OLD_HEADER) / OLD_ENTRY)
			return -EINVAL;
		start = OLD_HEADER + (size_t)nlibs * OLD_ENTRY;
		start = (start + 7) & ~(size_t)7;	/* ALIGN_CACHE */
	}
	if (start > len || len - start < NEW_HEADER ||
	    memcmp(d + start, NEW_MAGIC, sizeof(NEW_MAGIC) - 1))
		return -EINVAL;
	d += start;
	len -= start;
	nlibs = get32(d + 20);
	if (nlibs > (len - NEW_HEADER) / NEW_ENTRY)
		return -EINVAL;
	for (i = 0; i < nlibs; i++) {
		const unsigned char *e = d + NEW_HEADER + (size_t)i * NEW_ENTRY;
		uint32_t flags = get32(e);
		const char *key, *value, *slash;

		if ((flags & FLAG_TYPE_MASK) != FLAG_ELF_LIBC6 ||
		    (flags & FLAG_ABI_MASK) != FLAG_ABI_OURS)
			continue;
		key = string_at(d, len, get32(e + 4));
		value = string_at(d, len, get32(e + 8));
		if (!key || !value)
			return -EINVAL;
		slash = strrchr(key, '/');
		if (!ldcache_name_match(slash ? slash + 1 : key, name))
			continue;
		if (snprintf(path, n, "%s", value) >= (int)n)
			return -ENAMETOOLONG;
		return 0;
	}
	return -ENOENT;
}
