/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_DIAG_H
#define TAPKIT_LANG_DIAG_H

/*
 * Located diagnostics for every stage of the language engine (lexer,
 * parser, elaborator, type checker, code generator, run-time errors).
 *
 * A struct diag owns the source texts it was given (diag_add_file()) and
 * collects messages; nothing is printed until the command calls
 * diag_print(), which writes each one gcc-style:
 *
 *	t.stp:3:10: error: expected ')' before 'x'
 *	    if (a x) y = 2
 *	          ^
 *
 * Columns are 1-based and counted in bytes.  The caret line repeats the
 * tabs of the source line so it stays aligned however tabs are shown.
 *
 * Lifetime: a struct diag_loc points to a struct diag_file owned by the
 * struct diag, so the diag must outlive every token, AST node and
 * compiled program that carries locations.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One source text.  Read-only for users; owned by the struct diag. */
struct diag_file {
	char *name;	/* as given: "t.stp", "<input>", a tapset path */
	char *text;	/* the whole source, NUL-terminated */
	size_t len;	/* bytes in text, not counting the NUL */
	unsigned id;	/* 0, 1, 2... in the order files were added */
};

/* A position in a source: line and col are 1-based; 0 means unknown. */
struct diag_loc {
	const struct diag_file *file;	/* NULL: no location at all */
	unsigned line;
	unsigned col;
	/* what a macro expanded: where the outermost macro was invoked
	 * (diag_loc_keep()), which a note after each message names */
	const struct diag_loc *expanded_at;
};

enum diag_level {
	DIAG_NOTE,
	DIAG_WARNING,
	DIAG_ERROR,
};

/* Default cap on stored errors; see diag_set_limit(). */
#define DIAG_DEFAULT_LIMIT 50

struct diag;

/* A new, empty sink; free with diag_free(). */
struct diag *diag_new(void);
/* Free @d, its files and its pending messages; NULL is a no-op. */
void diag_free(struct diag *d);

/* A copy of @loc that lives as long as @d, for diag_loc.expanded_at. */
const struct diag_loc *diag_loc_keep(struct diag *d, struct diag_loc loc);

/*
 * Register a copy of @text (@len bytes) under @name and return the record
 * locations will point to.  The struct diag owns the copy.
 */
const struct diag_file *diag_add_file(struct diag *d, const char *name,
				      const char *text, size_t len);

/*
 * Read @path whole and register it under that name.  Returns 0 and sets
 * *out, or -errno (nothing is reported: the caller words the message).
 */
int diag_read_file(struct diag *d, const char *path,
		   const struct diag_file **out);

/*
 * Record a message at @loc.  Messages are lowercase with no trailing
 * period (STYLE 7).  After the error limit is reached further errors are
 * counted but not stored, and diag_full() turns true.
 */
void diag_error(struct diag *d, struct diag_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_warn(struct diag *d, struct diag_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A note completes the previous message ("previous definition here"). */
void diag_note(struct diag *d, struct diag_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_vreport(struct diag *d, enum diag_level level, struct diag_loc loc,
		  const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/* Errors / warnings reported since diag_new() (printing does not reset). */
unsigned diag_errors(const struct diag *d);
unsigned diag_warnings(const struct diag *d);
/* Messages stored and not yet printed. */
size_t diag_count(const struct diag *d);
/*
 * The text of stored message @i (no location, no "error: "), or NULL; it
 * belongs to @d and lives until the next diag_print().
 */
const char *diag_message(const struct diag *d, size_t i,
			 enum diag_level *level, struct diag_loc *loc);
/* Stop storing errors after @max (0: no limit). */
void diag_set_limit(struct diag *d, unsigned max);
/* True once the error limit was reached: stages should stop early. */
bool diag_full(const struct diag *d);

/*
 * Print the stored messages in the order they were reported, each with
 * its source line and caret, then forget them.  Once the error limit is
 * reached, a last line says so ("note: too many errors, stopped after 50").
 */
void diag_print(struct diag *d, FILE *f);

/*
 * Format @loc as "t.stp:3:10" (or "t.stp" / "" when less is known) into
 * @buf of @size bytes; returns @buf.  For run-time messages such as
 * "ERROR: division by 0 near operator '/' at t.stp:3:10".
 */
char *diag_loc_str(struct diag_loc loc, char *buf, size_t size);

/* The @line-th line (1-based) of @f without its newline; NULL if none. */
const char *diag_line(const struct diag_file *f, unsigned line, size_t *len);

#endif
