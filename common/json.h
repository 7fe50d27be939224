/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_JSON_H
#define TAPKIT_JSON_H

/*
 * JSON Lines writer: one object per line, keys in the order written.
 * Strings are escaped per RFC 8259 (control characters as \u00XX) and keep
 * the exact bytes: a byte that is not part of well-formed UTF-8 is written
 * as \udcXX (Python's surrogateescape), so output is always valid JSON and
 * s.encode("utf-8", "surrogateescape") gives the bytes back.
 *
 *	struct json j;
 *	json_begin(&j, stdout);
 *	json_int(&j, "pid", 42);
 *	json_str(&j, "comm", "bash");
 *	json_end(&j);		// writes "}\n"
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 8

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* no member written yet at this depth */
};

void json_begin(struct json *j, FILE *f);	/* "{" */
void json_end(struct json *j);			/* "}\n" */

void json_str(struct json *j, const char *key, const char *val);	/* NULL -> null */
void json_strn(struct json *j, const char *key, const char *val, size_t len);
void json_int(struct json *j, const char *key, int64_t val);
void json_uint(struct json *j, const char *key, uint64_t val);
void json_double(struct json *j, const char *key, double val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);

/* Nested containers; @key is NULL for an element inside an array. */
void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
/* Array elements. */
void json_elem_str(struct json *j, const char *val);
void json_elem_int(struct json *j, int64_t val);
void json_elem_uint(struct json *j, uint64_t val);

/* Write @s as a JSON string literal (with quotes) to @f. */
void json_quote(FILE *f, const char *s, size_t len);

#endif
