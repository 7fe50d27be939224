/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_EVENT_H
#define TAPKIT_EVENT_H

/*
 * What every event source hands to a handler: one trace record.  The raw
 * bytes are the event's fields as laid out in its tracefs format file; the
 * handler reads them through struct tk_field, resolved once at setup, so
 * nothing is looked up by name per event.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct tk_event {
	uint64_t ts;		/* ns, CLOCK_MONOTONIC */
	int cpu;
	int pid;		/* common_pid: the thread id */
	int id;			/* trace event id (common_type) */
	const void *data;	/* raw record, starting at common_type */
	unsigned int size;
	const uint64_t *stack;	/* callchain, kernel then user (samples only) */
	unsigned int nstack;
	unsigned int nkstack;	/* how many of stack[] are kernel addresses */
};

enum {
	TK_F_SIGNED	= 1 << 0,
	TK_F_DYNAMIC	= 1 << 1,	/* __data_loc: u32 (len << 16 | offset) */
	TK_F_RELATIVE	= 1 << 2,	/* __rel_loc: offset from after the field */
	TK_F_STRING	= 1 << 3,	/* char[N] or a dynamic char[] */
	TK_F_ARRAY	= 1 << 4,
	TK_F_POINTER	= 1 << 5,
};

struct tk_field {
	const char *name;
	int offset;
	int size;		/* whole field; element size for arrays in elem */
	int elem;
	unsigned int flags;
};

/* Does field @f lie within the record (whatever the format said)? */
static inline bool field_fits(const struct tk_event *ev, const struct tk_field *f)
{
	return f->offset >= 0 && f->size >= 0 &&
	       (uint64_t)f->offset + (uint64_t)f->size <= ev->size;
}

/* Read an integer field of size 1, 2, 4 or 8, sign-extended when signed. */
static inline int64_t field_int(const struct tk_event *ev, const struct tk_field *f)
{
	const unsigned char *p;
	bool s = f->flags & TK_F_SIGNED;

	if (!field_fits(ev, f))
		return 0;
	p = (const unsigned char *)ev->data + f->offset;
	switch (f->size) {
	case 1: return s ? (int64_t)*(const int8_t *)p : (int64_t)*p;
	case 2: { uint16_t v; memcpy(&v, p, 2); return s ? (int64_t)(int16_t)v : (int64_t)v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return s ? (int64_t)(int32_t)v : (int64_t)v; }
	case 8: { uint64_t v; memcpy(&v, p, 8); return (int64_t)v; }
	default: return 0;	/* not an integer field */
	}
}

/* Element @i of an integer array field. */
int64_t field_elem(const struct tk_event *ev, const struct tk_field *f, int i);

/*
 * A string field (char[N], __data_loc/__rel_loc char[]) copied into @buf
 * NUL-terminated; returns its length.  Out-of-bounds locations give "".
 */
int field_str(const struct tk_event *ev, const struct tk_field *f,
	      char *buf, int bufsz);

/*
 * True when @f is a dynamic string (__data_loc/__rel_loc char[]) that the
 * kernel could not read, e.g. a uprobe's string fetch from a NULL pointer:
 * the kernel then records length 0, where a real string, even "", has
 * length >= 1 (its NUL).  ftrace and perf print it as "(fault)".
 */
bool field_str_fault(const struct tk_event *ev, const struct tk_field *f);

/* The handler every source calls, once per record. */
typedef void (*tk_event_fn)(const struct tk_event *ev, void *arg);

#endif
