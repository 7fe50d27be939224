/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_ESCAPE_H
#define TAPKIT_ESCAPE_H

/*
 * Text columns that cannot be forged.  Comms, arguments, paths and strings
 * come from the traced system, so any process can put a newline or a
 * terminal escape into them.  Every text column goes through esc_*(): bytes
 * that are printable ASCII or well-formed UTF-8 pass unchanged; the rest
 * are written as ps and strace write them:
 *
 *	\n \t \r \e \\   newline, tab, carriage return, ESC, backslash
 *	\xNN             any other control byte, DEL, a C1 control's bytes
 *	                 (U+0080..U+009F: 8-bit CSI), or a byte that is not
 *	                 part of well-formed UTF-8
 *
 * so one event is always one line and the terminal sees no control bytes.
 * JSON output (common/json.c) keeps the exact bytes instead.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Length of the well-formed UTF-8 sequence at @s (at most @n bytes) that
 * starts with a byte >= 0x80, or 0 when it is not one. */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/* True when the @len bytes of @s print as they are (esc_*() changes none). */
bool esc_clean(const char *s, size_t len);

/* Write the @len bytes of @s escaped to @f. */
void esc_write(FILE *f, const char *s, size_t len);
/* esc_write() of the NUL-terminated @s. */
void esc_fputs(const char *s, FILE *f);

/*
 * @s escaped, for a printf("%s") column: @s itself when it is clean (the
 * common case, no copy), else a copy in one of a few per-thread buffers
 * that the 8th following call reuses.  NULL stays NULL.
 */
const char *esc_str(const char *s);
/* The first @len bytes of @s (NULs included) escaped, always as a copy in
 * those buffers. */
const char *esc_strn(const char *s, size_t len);

#endif
