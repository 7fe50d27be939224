/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_PROV_TRACE_H
#define TAPKIT_LANG_PROV_TRACE_H

/*
 * kernel.trace's probe data, shared by prov_trace.c (the tracepoint) and
 * prov_trace_mem.c (memory reads through an event probe on it); nobody
 * else includes this.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/event.h"
#include "lang/provider.h"

#define TRACE_STR_MAX 4096

struct session;
struct tp;

/* A memory read the handler asked for (deref()): variable nfields + i. */
struct tmem {
	int field;		/* the field holding the address */
	int64_t off;		/* added to it */
	enum prov_mem kind;
	char name[24];		/* its argument in the event probe */
};

struct tprobe {
	char *sys, *name;
	struct session *s;		/* while attached: its names */
	struct tk_field *fields;	/* non-common fields, in format order */
	int nfields;
	bool loaded;
	bool *used;			/* fields the handler reads (var()) */
	/* memory reads: the probe is then fed by an event probe on the
	 * tracepoint (ename, in the session's group) instead */
	struct tmem *mem;
	int nmem;
	const char *mem_fn;		/* the first built-in asking, for messages */
	char *ename;
	/* while attached to the event probe: where each variable is in its
	 * records (used fields, then the reads) */
	struct tk_field *efields;
	/* string fetches, one buffer per variable: two strings of a record
	 * are both valid until the handler returns */
	char **bufs;
};

/* Fields of the tracepoint from its format, once (prov_trace.c). */
int trace_load_fields(struct tprobe *t);
/* The buffer of string variable @idx (TRACE_STR_MAX bytes). */
char *trace_str_buf(struct tprobe *t, int idx);

/* describe()'s words for p->scope: appended to the mechanism, or the
 * instance's set_event_pid lines for --dry-run (@plan). */
void trace_describe_scope(const struct prov_probe *p, bool plan, FILE *f);

/* prov_trace_mem.c */
int trace_deref(struct prov_probe *p, const struct prov_var *var, int64_t off,
		enum prov_mem kind, const char *fn, struct prov_var *out);
/* fetch() of variable @idx of a probe fed by its event probe. */
int tmem_fetch(struct tprobe *t, const struct tk_event *ev, int idx,
	       int64_t sub, struct lang_val *out);
/* describe() of such a probe. */
void tmem_describe(const struct prov_probe *p, bool plan, FILE *f);
/* Define @p's event probe in session @s and use its records; NULL with
 * errno and the reason given to run_error(@run). */
struct tp *tmem_attach(struct run *run, struct prov_probe *p, struct session *s);

#endif
