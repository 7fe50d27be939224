// SPDX-License-Identifier: GPL-2.0
/* Finding the kernel's DWARF: a missing file, a file of another build
 * (by GNU build ID, read from notes the test writes), and a matching one
 * that is no kernel image.  This test program's own ELF file stands in
 * for vmlinux. */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/kdwarf.h"
#include "tests/unit/unit.h"

/* Notes holding GNU build ID @id (@n bytes); the caller unlinks and frees. */
static char *write_notes(const unsigned char *id, size_t n)
{
	char *path = strdup("/tmp/tapkit_kdwarf_XXXXXX");
	int fd = mkstemp(path);
	unsigned int hdr[3] = { 4, (unsigned int)n, 3 };
	unsigned char pad[4] = { 0 };

	if (write(fd, hdr, sizeof(hdr)) != sizeof(hdr) ||
	    write(fd, "GNU", 4) != 4 || write(fd, id, n) != (ssize_t)n ||
	    write(fd, pad, (4 - n % 4) % 4) < 0)
		abort();
	close(fd);
	return path;
}

/* This program's build ID, or 0 bytes when it has none. */
static size_t self_id(unsigned char *out, size_t max)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	const void *id;
	ssize_t n;
	Elf *e;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	n = e ? dwelf_elf_gnu_build_id(e, &id) : -1;
	if (n > 0 && (size_t)n <= max)
		memcpy(out, id, (size_t)n);
	if (e)
		elf_end(e);
	close(fd);
	return n > 0 && (size_t)n <= max ? (size_t)n : 0;
}

UNIT_TEST(kdwarf_missing_file)
{
	char err[512];

	kdwarf_set_paths("/nonexistent/vmlinux", NULL, NULL);
	CHECK(!kdwarf_open(err, sizeof(err)));
	CHECK_INT(errno, ENOENT);
	CHECK_STR(err, "cannot read '/nonexistent/vmlinux'");
	kdwarf_set_paths(NULL, NULL, NULL);
}

UNIT_TEST(kdwarf_build_id)
{
	unsigned char id[64], other[20];
	char err[512], *notes, want[160];
	size_t n = self_id(id, sizeof(id));

	if (!n)
		return;		/* linked without a build ID */
	memset(other, 0xab, sizeof(other));
	notes = write_notes(other, sizeof(other));
	kdwarf_set_paths("/proc/self/exe", notes, NULL);
	CHECK(!kdwarf_open(err, sizeof(err)));
	CHECK_INT(errno, ESTALE);
	CHECK(strstr(err, "is not the running kernel's: its build ID is "));
	CHECK(strstr(err, ", the running kernel's abababababababababababababababababababab"));
	unlink(notes);
	free(notes);
	/* the same build ID: past the check, then no kernel symbols */
	notes = write_notes(id, n);
	kdwarf_set_paths("/proc/self/exe", notes, NULL);
	CHECK(!kdwarf_open(err, sizeof(err)));
	CHECK_INT(errno, ENOENT);
	snprintf(want, sizeof(want), "'/proc/self/exe' has no symbol table");
	CHECK_STR(err, want);
	unlink(notes);
	free(notes);
	kdwarf_set_paths(NULL, NULL, NULL);
}

UNIT_MAIN()
