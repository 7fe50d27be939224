/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_FMT_H
#define TAPKIT_LANG_FMT_H

/*
 * SystemTap's printf/sprintf, byte for byte, into the growable string
 * buffer of lang/fmt_sb.h (print() appends to one and flushes it to
 * stdout, sprint() keeps the first MAXSTRINGLEN-1 bytes).
 *
 * A format is checked once at compile time with fmt_parse() (stap's own
 * error texts below), optionally compiled with fmt_compile(), and run per
 * event with fmt_run() or fmt_format().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lang/fmt_sb.h"

/* ---- values the VM prints -------------------------------------------- */

/* Append @v in decimal: what print()/sprint() do with a long ("%d"). */
void fmt_int64(struct strbuf *sb, int64_t v);
/* Append @s with the escapes of stap's "%#c" (\n, \t, \\, \', octal \ooo
 * for other non-printables and bytes >= 0x80), inside double quotes, with
 * '"' escaped too: for -p listings and error messages. */
void fmt_quote(struct strbuf *sb, const char *s);

/* ---- limits (stap's defaults) ---------------------------------------- */

#define FMT_MAXSTRINGLEN	512	/* MAXSTRINGLEN: bytes including NUL */
#define FMT_PRINT_CAP		8192	/* STP_BUFFER_SIZE: most one printf emits */
#define FMT_MEMDUMP_MAX		4096	/* PAGE_SIZE: most bytes %m/%M dump */
#define FMT_MAX_ARGS		32	/* "too many arguments to print (%zu)" */

/* Compile-time error texts, verbatim from stap (staptree.cxx, elaborate.cxx). */
#define FMT_ERR_CONV	 "invalid or missing conversion specifier"
#define FMT_ERR_TRAILING "trailing incomplete print format conversion"
#define FMT_ERR_NARGS	 "Wrong number of args to formatted print operator"
/* Run-time text for %m/%M (translate.cxx), with the byte count as %lld. */
#define FMT_ERR_MEMDUMP	 "%lld is too many bytes for a memory dump"

/* ---- format components ----------------------------------------------- */

enum fmt_type {
	FMT_LONG = 1,
	FMT_STRING = 2,
};

enum fmt_conv {
	FMT_LITERAL,		/* lit/litlen bytes, copied verbatim */
	FMT_NUMBER,		/* %d %i %u %o %x %X */
	FMT_POINTER,		/* %p: %#x */
	FMT_CHAR,		/* %c */
	FMT_STR,		/* %s */
	FMT_MEMORY,		/* %m: raw bytes at an address */
	FMT_MEMORY_HEX,		/* %M: hex of the bytes at an address */
	FMT_BINARY,		/* %b: the value's raw bytes */
};

/* Flag bits: the values of stap's enum print_flag, so a flag set reads the
 * same as in the runtime it reproduces. */
#define FMT_ZEROPAD	1
#define FMT_SIGN	2	/* %d %i */
#define FMT_PLUS	4
#define FMT_SPACE	8
#define FMT_LEFT	16
#define FMT_SPECIAL	32	/* '#', and %p */
#define FMT_LARGE	64	/* %X */

#define FMT_UNSPEC	(-1)	/* width or precision not given */
#define FMT_DYNAMIC	(-2)	/* '*': taken from the next argument */

struct fmt_spec {
	enum fmt_conv conv;
	unsigned int flags;
	int base;		/* 8, 10 or 16 for numbers */
	int width;		/* >= 0, FMT_UNSPEC or FMT_DYNAMIC */
	int prec;		/* >= 0, FMT_UNSPEC or FMT_DYNAMIC */
	const char *lit;	/* FMT_LITERAL: points into the format string */
	size_t litlen;
};

/**
 * fmt_next() - parse the next component of a format string
 * @pos: cursor, start at the format; advanced past the component
 * @spec: filled with the component
 * @err: receives stap's message on error (may be NULL)
 * @errlen: size of @err
 *
 * Follows stap's print_format::string_to_components(): at most one flag
 * character, one optional 'l' (so "%ld" works and "%lld" is an error), "%%"
 * and a lone trailing '%' are literal '%'.  A "%" cut short after only a
 * length modifier or a bare '.' is dropped silently, as stap does.
 *
 * Return: 1 with @spec filled, 0 at the end, -EINVAL with @err set.
 */
int fmt_next(const char **pos, struct fmt_spec *spec, char *err, size_t errlen);

/**
 * fmt_parse() - check a literal format at compile time
 * @fmt: the format string (escapes already processed)
 * @types: receives the type each argument slot expects (may be NULL)
 * @max: room in @types; further slots are counted but not stored
 * @err: receives FMT_ERR_CONV or FMT_ERR_TRAILING on error
 * @errlen: size of @err
 *
 * '*' widths and precisions take a slot of their own (FMT_LONG) before the
 * value's.  %s expects a string; every other conversion a long.  The caller
 * compares the count with its argument list and reports FMT_ERR_NARGS, and
 * a mismatched type as stap's "type mismatch: expected long but found
 * string".
 *
 * Return: the number of argument slots, or -EINVAL.
 */
int fmt_parse(const char *fmt, enum fmt_type *types, int max,
	      char *err, size_t errlen);

/**
 * fmt_compile() - parse a whole format into an array of components
 * @fmt: the format; must outlive the result (literals point into it)
 * @specs: receives a malloc'ed array the caller frees with free()
 * @err: receives stap's message on error
 * @errlen: size of @err
 *
 * Return: the number of components (0 for ""), or -EINVAL.
 */
int fmt_compile(const char *fmt, struct fmt_spec **specs,
		char *err, size_t errlen);

/* ---- running a format ------------------------------------------------ */

struct fmt_arg {
	enum fmt_type type;
	int64_t l;
	const char *s;
};

static inline struct fmt_arg fmt_arg_long(int64_t v)
{
	return (struct fmt_arg){ .type = FMT_LONG, .l = v };
}

static inline struct fmt_arg fmt_arg_str(const char *s)
{
	return (struct fmt_arg){ .type = FMT_STRING, .s = s };
}

/* Reads @len bytes at @addr for %m/%M (@user: the '#' flag asked for user
 * memory, stap's uread() rather than kread()); 0 or -errno. */
typedef int (*fmt_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len,
			   bool user);

struct fmt_opts {
	size_t cap;		/* output room; 0 means FMT_PRINT_CAP */
	bool sprint;		/* sprintf: the NUL takes the last byte of @cap */
	fmt_read_fn read;	/* for %m/%M; NULL makes them fail -EFAULT */
	void *read_ctx;
	char *err;		/* run-time message (FMT_ERR_MEMDUMP), may be NULL */
	size_t errlen;
};

/**
 * fmt_run() - format compiled components, appending to @out
 * @out: output buffer
 * @specs: from fmt_compile() (or fmt_next())
 * @nspecs: number of components
 * @args: the argument values, '*' slots included
 * @nargs: number of @args
 * @opts: capacity and %m reader; NULL for print() defaults
 *
 * Reproduces stap's compiled printf (translate.cxx) over the runtime's
 * number(), _stp_vsprint_char/memory/binary(): widths and precisions are
 * clamped to [0, room left], output stops at @cap bytes (print: STP_BUFFER_
 * SIZE; sprintf pass MAXSTRINGLEN with @sprint, leaving MAXSTRINGLEN-1).
 * Integers are 64-bit: %u of -1 is 18446744073709551615.  %b and "%0s" can
 * emit NUL bytes, as stap does.
 *
 * Return: bytes appended, -EINVAL for missing or mistyped arguments,
 * -E2BIG for a %m/%M longer than FMT_MEMDUMP_MAX, -EFAULT (or the reader's
 * error) when memory cannot be read.  On error @out keeps what was written.
 */
int fmt_run(struct strbuf *out, const struct fmt_spec *specs, int nspecs,
	    const struct fmt_arg *args, int nargs, const struct fmt_opts *opts);

/**
 * fmt_format() - parse and run a format in one go, without allocating
 * @out: output buffer
 * @fmt: the format
 * @args: argument values
 * @nargs: number of @args
 * @opts: as for fmt_run(); NULL for print() defaults
 *
 * Return: as fmt_run(), or -EINVAL for a bad format (nothing written).
 */
int fmt_format(struct strbuf *out, const char *fmt, const struct fmt_arg *args,
	       int nargs, const struct fmt_opts *opts);

/**
 * fmt_printf() - stap's printf() into @out with print() limits
 * @out: output buffer
 * @fmt: the format
 * @args: argument values
 * @nargs: number of @args
 *
 * Return: as fmt_format().
 */
int fmt_printf(struct strbuf *out, const char *fmt, const struct fmt_arg *args,
	       int nargs);

/**
 * fmt_sprintf() - stap's sprintf(): at most @maxstrlen - 1 bytes
 * @out: output buffer (appended to)
 * @maxstrlen: MAXSTRINGLEN, including the NUL
 * @fmt: the format
 * @args: argument values
 * @nargs: number of @args
 *
 * Return: as fmt_format().
 */
int fmt_sprintf(struct strbuf *out, size_t maxstrlen, const char *fmt,
		const struct fmt_arg *args, int nargs);

#endif
