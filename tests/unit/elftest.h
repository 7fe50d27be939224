/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_ELFTEST_H
#define TAPKIT_ELFTEST_H

/*
 * Helpers for the resolver tests: the fixtures built into build/tests/elf/
 * (tests/unit/elf/), and what binutils (nm, readelf, objdump) say about
 * them, so expected values never come from the code under test.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIX(name) "build/tests/elf/" name

/* The output of a shell command (allocated, "" on failure). */
static inline char *sh_out(const char *fmt, ...)
{
	char cmd[1024], *out = NULL;
	size_t len = 0, cap = 0, r;
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 8192;
			out = realloc(out, cap);
		}
		r = p ? fread(out + len, 1, cap - len - 1, p) : 0;
		len += r;
	} while (r > 0);
	out[len] = '\0';
	if (p)
		pclose(p);
	return out;
}

/* A symbol's address as nm prints it; 0 when absent. */
static inline uint64_t nm_addr(const char *file, const char *sym)
{
	char *out = sh_out("{ nm %s; nm -D %s; } 2>/dev/null | "
			   "awk '$3 == \"%s\" { print $1; exit }'", file, file,
			   sym);
	uint64_t v = strtoull(out, NULL, 16);

	free(out);
	return v;
}

/* A section's address and file offset as readelf prints them; 0 or -1. */
static inline int section_info(const char *file, const char *name,
			       uint64_t *addr, uint64_t *off)
{
	char *out = sh_out("readelf -SW %s | sed 's/^ *\\[ *[0-9]*\\] //' | "
			   "awk '$1 == \"%s\" { print $3, $4; exit }'", file, name);
	int n = sscanf(out, "%" SCNx64 " %" SCNx64, addr, off);

	free(out);
	return n == 2 ? 0 : -1;
}

/* The file offset of @vaddr computed from section @sec's header. */
static inline uint64_t sec_offset(const char *file, const char *sec,
				  uint64_t vaddr)
{
	uint64_t addr = 0, off = 0;

	if (section_info(file, sec, &addr, &off))
		return (uint64_t)-1;
	return vaddr - addr + off;
}

/* @n bytes of @file at offset @off into @buf; 0 or -1. */
static inline int file_bytes(const char *file, uint64_t off, void *buf,
			     size_t n)
{
	FILE *f = fopen(file, "rb");
	int ret = -1;

	if (f && !fseek(f, (long)off, SEEK_SET) && fread(buf, 1, n, f) == n)
		ret = 0;
	if (f)
		fclose(f);
	return ret;
}

#endif
