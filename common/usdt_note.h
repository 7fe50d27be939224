/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_USDT_NOTE_H
#define TAPKIT_USDT_NOTE_H

/*
 * The stapsdt ELF notes that describe USDT call sites, parsed from the
 * raw bytes of a .note.stapsdt section (no libelf: fuzzed on its own).
 */
#include <stddef.h>
#include <stdint.h>

/* One note as it is in the file (the strings point into the data). */
struct usdt_note {
	uint64_t pc;		/* call site */
	uint64_t base;		/* .stapsdt.base's address at link time */
	uint64_t sema;		/* semaphore, 0 when none */
	const char *provider;
	const char *name;
	const char *args;	/* "-4@%ebx 8@-24(%rbp)" */
};

/**
 * usdt_note_next() - the next stapsdt note of a .note.stapsdt section
 * @data, @len: the section's raw contents (in our byte order)
 * @pos: offset of the next note, 0 to start; advanced past it
 * @addr_size: 8 for a 64-bit object, 4 for a 32-bit one
 * @note: receives the note; its strings point into @data
 *
 * Notes of other owners or types are skipped.  1 with @note filled, 0 at
 * the end, -EINVAL with the reason in @err for a malformed note
 * (truncated, sizes out of bounds, strings not NUL-terminated), after
 * which the section cannot be read further.
 */
int usdt_note_next(const void *data, size_t len, size_t *pos, int addr_size,
		   struct usdt_note *note, char *err, size_t errlen);

#endif
