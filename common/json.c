// SPDX-License-Identifier: GPL-2.0
/*
 * JSON Lines writer.
 *
 * The writer keeps one bit of state per nesting level: whether a member has
 * been written there yet, which decides the comma.  When a container closes,
 * its parent has necessarily written a member (the container itself), so the
 * parent's bit is simply set false again; that is why nesting deeper than
 * JSON_MAX_DEPTH still yields well-formed commas (the deepest levels share
 * the last slot, which is only ever consulted for the innermost container).
 *
 * Strings are escaped per RFC 8259: '"' and '\\', the short escapes \b \f \n
 * \r \t, other control characters as \u00XX.  Strings keep the exact bytes
 * the traced system gave, whatever they are: a byte that is not part of a
 * well-formed UTF-8 sequence (stray continuation bytes, overlong forms,
 * surrogates, code points above U+10FFFF, truncated sequences) is written as
 * the lone low surrogate \udcXX of the byte, the "surrogateescape"
 * convention of Python (PEP 383).  Well-formed UTF-8 never decodes to a lone
 * surrogate, so \udcXX cannot be confused with a real character: 0xff is
 * \udcff, and U+00FF (bytes c3 bf) stays as it is.  Python gets the bytes
 * back with s.encode("utf-8", "surrogateescape").
 */
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/json.h"

/* The comma slot of the current level (shared past JSON_MAX_DEPTH). */
static bool *level(struct json *j)
{
	int d = j->depth;

	if (d < 0)
		d = 0;
	if (d >= JSON_MAX_DEPTH)
		d = JSON_MAX_DEPTH - 1;
	return &j->first[d];
}

/* Comma if needed, then "key": when @key is given (NULL inside arrays). */
static void member(struct json *j, const char *key)
{
	bool *first = level(j);

	if (!*first)
		fputc(',', j->f);
	*first = false;
	if (key) {
		json_quote(j->f, key, strlen(key));
		fputc(':', j->f);
	}
}

static void open_container(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	j->depth++;
	*level(j) = true;
}

static void close_container(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
	/* the closed container was a member of its parent */
	*level(j) = false;
}

/**
 * json_begin() - start one JSON Lines object on @f
 * @j: writer state, (re)initialised here; no cleanup needed
 */
void json_begin(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
	fputc('{', f);
}

/**
 * json_end() - close the top-level object and end the line
 *
 * Containers still open are a caller bug; they are not closed here because
 * the writer does not record their kinds.
 */
void json_end(struct json *j)
{
	fputs("}\n", j->f);
	j->depth = 0;
	j->first[0] = true;
}

/**
 * json_quote() - write @len bytes of @s as a JSON string literal to @f
 *
 * NUL bytes inside the @len bytes are escaped like any control character.
 */
void json_quote(FILE *f, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;	/* bytes [run, i) are pending verbatim */

	fputc('"', f);
	while (i < len) {
		unsigned char c = p[i];
		const char *esc = NULL;
		char u[7];
		size_t n;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80) {
			n = utf8_seq_len(p + i, len - i);
			if (n) {
				i += n;
				continue;
			}
		}
		switch (c) {
		case '"':  esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\t': esc = "\\t"; break;
		case '\r': esc = "\\r"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		default:
			/* a control character, or a byte of no UTF-8 sequence */
			memcpy(u, c < 0x80 ? "\\u00" : "\\udc", 4);
			u[4] = hex[c >> 4];
			u[5] = hex[c & 15];
			u[6] = '\0';
			esc = u;
		}
		fwrite(p + run, 1, i - run, f);
		fputs(esc, f);
		run = ++i;
	}
	fwrite(p + run, 1, i - run, f);
	fputc('"', f);
}

/** json_str() - "key":"val", or "key":null when @val is NULL */
void json_str(struct json *j, const char *key, const char *val)
{
	json_strn(j, key, val, val ? strlen(val) : 0);
}

/** json_strn() - "key":"val" from the first @len bytes of @val (NULL: null) */
void json_strn(struct json *j, const char *key, const char *val, size_t len)
{
	member(j, key);
	if (val)
		json_quote(j->f, val, len);
	else
		fputs("null", j->f);
}

/** json_int() - "key":val */
void json_int(struct json *j, const char *key, int64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, val);
}

/** json_uint() - "key":val */
void json_uint(struct json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

/*
 * The shortest of %.15g, %.16g, %.17g that reads back as @v: "0.1" rather
 * than "0.10000000000000001", yet every double round-trips.  A locale with a
 * decimal comma is undone, since JSON only knows the point.
 */
static void put_double(FILE *f, double v)
{
	char buf[40];
	int prec;

	/* strtod() reads back in the same locale snprintf() wrote in */
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", v);
	for (char *c = buf; *c; c++)
		if (*c == ',')
			*c = '.';
	fputs(buf, f);
}

/** json_double() - "key":val with round-trip precision; NaN and Inf as null */
void json_double(struct json *j, const char *key, double val)
{
	member(j, key);
	if (isfinite(val))
		put_double(j->f, val);
	else
		fputs("null", j->f);
}

/** json_bool() - "key":true or "key":false */
void json_bool(struct json *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

/** json_null() - "key":null */
void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

/** json_obj_open() - "key":{ (or { as an array element when @key is NULL) */
void json_obj_open(struct json *j, const char *key)
{
	open_container(j, key, '{');
}

/** json_obj_close() - } */
void json_obj_close(struct json *j)
{
	close_container(j, '}');
}

/** json_arr_open() - "key":[ (or [ as an array element when @key is NULL) */
void json_arr_open(struct json *j, const char *key)
{
	open_container(j, key, '[');
}

/** json_arr_close() - ] */
void json_arr_close(struct json *j)
{
	close_container(j, ']');
}

/** json_elem_str() - a string element of the open array (NULL: null) */
void json_elem_str(struct json *j, const char *val)
{
	json_str(j, NULL, val);
}

/** json_elem_int() - an integer element of the open array */
void json_elem_int(struct json *j, int64_t val)
{
	json_int(j, NULL, val);
}

/** json_elem_uint() - an unsigned integer element of the open array */
void json_elem_uint(struct json *j, uint64_t val)
{
	json_uint(j, NULL, val);
}
