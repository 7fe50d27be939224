/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PROBEDEF_H
#define TAPKIT_PROBEDEF_H

/*
 * What uprobe and kprobe share: perf-tools' probe definition
 *
 *	p|r:[NAME ]PROBE [ARGS]
 *
 * (the event name separated by a space), and the printing of each hit of
 * the probe: ftrace's line with the probed address and the args, or one
 * JSON object, with the stack when asked.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <event-parse.h>

#include "common/event.h"

struct ksyms;

struct probedef {
	bool ret;		/* r: a return probe */
	char *alias;		/* NAME, or NULL */
	char *probe;		/* PROBE: "bash:readline", "do_sys_open+4" */
	char *args;		/* the rest, or NULL */
};

/**
 * probedef_parse() - split @def in place into @pd.  With two words or more
 * the first is NAME when @second_is_probe(first, second word, @ctx) says so.
 * 0, or -EINVAL with the reason in @err (for a usage error).
 */
int probedef_parse(char *def,
		   bool (*second_is_probe)(const char *first, const char *second, void *ctx),
		   void *ctx, struct probedef *pd, char *err, size_t errlen);

/* @s as an event name: other than [A-Za-z0-9_] becomes _, a leading digit
 * gets a _ before it ("main+0x4" -> "main_0x4").  The caller frees it. */
char *probedef_event_name(const char *s);

/*
 * The output of one probe's hits.  Fill the first members, then
 * probe_out_init() with the event's fields (format_fields()); hand each hit
 * to probe_out_hit(); probe_out_release() at the end.
 */
struct probe_out {
	const char *event;
	bool ret, json, stacks;
	bool kernel;			/* a kprobe: kernel addresses and stack */
	const struct ksyms *ks;		/* kernel: symbolizer, NULL: hex */
	pid_t pid;			/* -p: the pid of every hit */
	struct tep_handle *tep;
	/* from probe_out_init() */
	struct tk_field ip, ret_ip;	/* __probe_ip, or __probe_func/ret_ip */
	struct tk_field *fields;	/* the args */
	int nfields;
	bool has_str;			/* a string arg: it may have faulted */
	struct trace_seq seq;
};

/* Takes @fields (freed by probe_out_release()) and sets the addresses apart. */
void probe_out_init(struct probe_out *po, struct tk_field *fields, int n);
void probe_out_hit(struct probe_out *po, const struct tk_event *ev, const char *comm);
void probe_out_release(struct probe_out *po);

#endif
