/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TOOL_STACKS_H
#define TAPKIT_TOOL_STACKS_H

/*
 * What the stack tools (profile, offcputime) share above common/stackagg.h:
 * a CPU sampler with callchains and its perf sideband, the split of a
 * sample's callchain into what -U/-K keep, and the end-of-run report of
 * lost samples, missed stacks and unnamed frames.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/event.h"
#include "common/stackagg.h"
#include "tracefs/perf_event.h"
#include "tracefs/perf_sampler.h"

struct loop;
struct stacks_sampler;

/**
 * stacks_sampler_open() - sample @spec's event with kernel and user
 * callchains on every CPU (@scope NULL) or on @scope's threads, with a
 * perf sideband telling symcache_shared() the mappings, execs and forks
 * of the sampled tasks; the rings are polled in @l and drained every few
 * milliseconds, each sample handed to @fn once its process is noted in
 * the cache (so its frames are named even after it exits)
 *
 * Nothing is sampled before stacks_sampler_enable().  NULL with a message
 * in @err on failure; free with stacks_sampler_free().
 */
struct stacks_sampler *stacks_sampler_open(const struct perf_sample_spec *spec,
					   const struct perf_scope *scope,
					   struct loop *l, tk_event_fn fn,
					   void *arg, char *err, size_t errlen);
/**
 * stacks_switch_sampler_open() - as stacks_sampler_open(), on every CPU,
 * over tracepoint @sys:@name (sample_period 1, its RAW data, with
 * callchains), with the kernel's context switch records in the same
 * stream (perf_sampler_open_switches(): tk_events of id
 * PERF_SAMPLER_SWITCH)
 */
struct stacks_sampler *stacks_switch_sampler_open(const char *sys, const char *name,
						  struct loop *l, tk_event_fn fn,
						  void *arg, char *err, size_t errlen);
/* 0, or -errno with the message in @err. */
int stacks_sampler_enable(struct stacks_sampler *s, char *err, size_t errlen);
/* Stop sampling and hand every buffered sample to the callback. */
void stacks_sampler_finish(struct stacks_sampler *s);
/* Samples the kernel dropped on full rings; mapping records dropped. */
uint64_t stacks_sampler_lost(struct stacks_sampler *s);
uint64_t stacks_sampler_sideband_lost(struct stacks_sampler *s);
void stacks_sampler_free(struct stacks_sampler *s);

/* The names of every thread running now, in the task cache: a task that
 * exits before its samples are read keeps its name. */
void stacks_note_tasks(void);

/* Which frames a tool keeps (-U: user only, -K: kernel only). */
struct stacks_keep {
	bool kernel, user;
};

/**
 * stacks_split() - the stackagg sample of @ev's callchain for process
 * @pid named @comm, with only the frames @keep asks for
 * @user_mode: the sample was taken in user mode (its user stack is due,
 *	its kernel stack is not); a sample in kernel mode is due a kernel
 *	stack, and a user stack when it has a user part at all
 */
void stacks_split(const struct tk_event *ev, pid_t pid, const char *comm,
		  bool user_mode, const struct stacks_keep *keep,
		  struct stackagg_sample *out);

/**
 * stacks_warnings() - what the run lost, in lines for the command to warn
 * with: samples dropped on full rings (@lost), mapping records dropped
 * (@sideband_lost), stacks the kernel could not walk and frames nothing
 * named in @a; "" when there is nothing to say
 * Return: @buf (@len bytes), lines separated by '\n'.
 */
const char *stacks_warnings(const struct stackagg *a, uint64_t lost,
			    uint64_t sideband_lost, char *buf, size_t len);

struct flamegraph_opts;

/**
 * stacks_write_file() - write @a's stacks to the file @path: an SVG flame
 * graph drawn as @svg says, or with @svg NULL the stacks as @po prints
 * them (the folded format for --folded-file)
 * Return: 0, or -errno with "cannot write 'PATH': CAUSE" in @err.
 */
int stacks_write_file(const struct stackagg *a, const char *path,
		      const struct stackagg_print_opts *po,
		      const struct flamegraph_opts *svg, char *err, size_t errlen);

/* What a stack tool prints at its end, and where. */
struct stacks_report {
	bool json, folded, delimit, annotate;	/* -j, -f, -d, -a */
	bool counts_text;	/* stackcount's text (STACKAGG_COUNTS) */
	bool comm_line;		/* its "comm [pid]" lines */
	struct stacks_keep keep;		/* -U, -K */
	const char *value_name;			/* "count", "usecs" */
	const char *folded_file, *svg;		/* NULL: none */
	const char *svg_title, *svg_unit;
	const char *heading;	/* text: a line before the stacks, or NULL */
	bool files_only;	/* write the files, print nothing */
};

/**
 * stacks_report() - print @a on stdout (bcc's stacks, folded lines or
 * JSON), then write the folded file and the SVG @r names
 * Return: 0, or -errno with the first file's failure in @err (the
 * files after it are not written).
 */
int stacks_report(const struct stackagg *a, const struct stacks_report *r,
		  char *err, size_t errlen);

#endif
