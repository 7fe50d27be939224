/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_BUILTIN_H
#define TAPKIT_LANG_BUILTIN_H

/*
 * The built-in functions kept in files of their own, for builtin.c's
 * table (lang/backend.h; builtin_uses_stack() there names those of them
 * that read the event's callchain).
 */
#include <stdbool.h>

#include "lang/backend.h"

/* Free what the stack built-ins kept for run @vm (symbols of the processes
 * seen); before vm_free().  NULL-safe. */
void builtin_stack_release(struct vm *vm);

/* ---- lang/builtin_stack.c: stacks and symbols (stap's context-symbols,
 * ucontext-symbols, context-unwind, ucontext-unwind tapsets) ---- */
int bstack_backtrace(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_ubacktrace(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_print_backtrace(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_print_ubacktrace(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_print_ubacktrace_brief(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_print_ubacktrace_fileline(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_sprint_backtrace(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_sprint_ubacktrace(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_print_syms(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_print_usyms(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_sprint_syms(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_sprint_usyms(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_symname(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_symdata(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_usymname(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_usymdata(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_usymfileline(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_ppfunc(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_callers(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bstack_ucallers(struct vm *, struct lang_val *, int, struct lang_val *, char *);

#define NOTASKSTACK "task_backtrace() needs the kernel stack of another " \
	"task, which perf_event callchains (the only stacks tapkit records) " \
	"do not give"

/* The rows of builtin_table[] (lang/builtin.c) for the above. */
#define BUILTIN_STACK_ROWS						\
	{ "backtrace", S, 0, { 0 }, bstack_backtrace, NULL },		\
	{ "ubacktrace", S, 0, { 0 }, bstack_ubacktrace, NULL },		\
	{ "print_backtrace", L, 0, { 0 }, bstack_print_backtrace, NULL }, \
	{ "print_ubacktrace", L, 0, { 0 }, bstack_print_ubacktrace, NULL }, \
	{ "print_ubacktrace_brief", L, 0, { 0 },			\
	  bstack_print_ubacktrace_brief, NULL },			\
	{ "print_ubacktrace_fileline", L, 0, { 0 },			\
	  bstack_print_ubacktrace_fileline, NULL },			\
	{ "sprint_backtrace", S, 0, { 0 }, bstack_sprint_backtrace, NULL }, \
	{ "sprint_ubacktrace", S, 0, { 0 }, bstack_sprint_ubacktrace, NULL }, \
	{ "print_stack", L, 1, { S }, bstack_print_syms, NULL },	\
	{ "print_ustack", L, 1, { S }, bstack_print_usyms, NULL },	\
	{ "print_syms", L, 1, { S }, bstack_print_syms, NULL },	\
	{ "print_usyms", L, 1, { S }, bstack_print_usyms, NULL },	\
	{ "sprint_stack", S, 1, { S }, bstack_sprint_syms, NULL },	\
	{ "sprint_ustack", S, 1, { S }, bstack_sprint_usyms, NULL },	\
	{ "sprint_syms", S, 1, { S }, bstack_sprint_syms, NULL },	\
	{ "sprint_usyms", S, 1, { S }, bstack_sprint_usyms, NULL },	\
	{ "symname", S, 1, { L }, bstack_symname, NULL },		\
	{ "symdata", S, 1, { L }, bstack_symdata, NULL },		\
	{ "usymname", S, 1, { L }, bstack_usymname, NULL },		\
	{ "usymdata", S, 1, { L }, bstack_usymdata, NULL },		\
	{ "usymfileline", S, 1, { L }, bstack_usymfileline, NULL },	\
	{ "ppfunc", S, 0, { 0 }, bstack_ppfunc, NULL },		\
	{ "callers", S, 1, { L }, bstack_callers, NULL },		\
	{ "ucallers", S, 1, { L }, bstack_ucallers, NULL },		\
	{ "task_backtrace", S, 1, { L }, NULL, NOTASKSTACK }

/* ---- lang/builtin_sys.c: calendar and process ---- */
int bsys_ctime(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bsys_tz_gmtoff(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bsys_tz_name(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bsys_raise(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bsys_abort(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bsys_value_get(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bsys_value_set(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bsys_value_append(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bsys_system(struct vm *, struct lang_val *, int, struct lang_val *, char *);
int bsys_stp_pid(struct vm *, struct lang_val *, int, struct lang_val *, char *);

#define BUILTIN_SYS_ROWS						\
	{ "ctime", S, 1, { L }, bsys_ctime, NULL },			\
	{ "tz_gmtoff", L, 0, { 0 }, bsys_tz_gmtoff, NULL },		\
	{ "tz_name", S, 0, { 0 }, bsys_tz_name, NULL },			\
	{ "raise", L, 1, { L }, bsys_raise, NULL },			\
	{ "abort", L, 0, { 0 }, bsys_abort, NULL },			\
	{ "__value_get", S, 0, { 0 }, bsys_value_get, NULL },		\
	{ "__value_set", L, 1, { S }, bsys_value_set, NULL },		\
	{ "__value_append", L, 1, { S }, bsys_value_append, NULL },	\
	{ "system", L, 1, { S }, bsys_system, NULL },			\
	{ "stp_pid", L, 0, { 0 }, bsys_stp_pid, NULL }

/* ---- lang/builtin_fp.c: stap's floatingpoint tapset ---- */
#define BFP(f) int f(struct vm *, struct lang_val *, int, struct lang_val *, char *)
BFP(bfp_to_string); BFP(bfp_string_to); BFP(bfp_long_to); BFP(bfp_to_long);
BFP(bfp_add); BFP(bfp_sub); BFP(bfp_mul); BFP(bfp_div); BFP(bfp_rem);
BFP(bfp_sqrt); BFP(bfp_eq); BFP(bfp_le); BFP(bfp_lt); BFP(bfp_from32);
#undef BFP

#define BUILTIN_FP_ROWS							\
	{ "fp_to_string", S, 2, { L, L }, bfp_to_string, NULL },	\
	{ "string_to_fp", L, 1, { S }, bfp_string_to, NULL },		\
	{ "long_to_fp", L, 1, { L }, bfp_long_to, NULL },		\
	{ "fp_to_long", L, 3, { L, L, L }, bfp_to_long, NULL },		\
	{ "fp_add", L, 2, { L, L }, bfp_add, NULL },			\
	{ "fp_sub", L, 2, { L, L }, bfp_sub, NULL },			\
	{ "fp_mul", L, 2, { L, L }, bfp_mul, NULL },			\
	{ "fp_div", L, 2, { L, L }, bfp_div, NULL },			\
	{ "fp_rem", L, 2, { L, L }, bfp_rem, NULL },			\
	{ "fp_sqrt", L, 1, { L }, bfp_sqrt, NULL },			\
	{ "fp_eq", L, 2, { L, L }, bfp_eq, NULL },			\
	{ "fp_le", L, 2, { L, L }, bfp_le, NULL },			\
	{ "fp_lt", L, 2, { L, L }, bfp_lt, NULL },			\
	{ "fp32_to_fp64", L, 1, { L }, bfp_from32, NULL }

/* ---- lang/builtin_task.c: stap's task tapset, on task handles ---- */
#define BTASK(f) int f(struct vm *, struct lang_val *, int, struct lang_val *, char *)
BTASK(btask_current); BTASK(btask_pid2task); BTASK(btask_make);
BTASK(btask_pid); BTASK(btask_tid); BTASK(btask_parent);
BTASK(btask_execname); BTASK(btask_uid); BTASK(btask_euid);
BTASK(btask_gid); BTASK(btask_egid); BTASK(btask_state);
BTASK(btask_prio); BTASK(btask_nice); BTASK(btask_cpu);
BTASK(btask_start_time); BTASK(btask_open_files); BTASK(btask_max_files);
#undef BTASK

#define BUILTIN_TASK_ROWS						\
	{ "task_current", L, 0, { 0 }, btask_current, NULL },		\
	{ "pid2task", L, 1, { L }, btask_pid2task, NULL },		\
	{ "__task_make", L, 2, { L, L }, btask_make, NULL },		\
	{ "task_pid", L, 1, { L }, btask_pid, NULL },			\
	{ "task_tid", L, 1, { L }, btask_tid, NULL },			\
	{ "task_parent", L, 1, { L }, btask_parent, NULL },		\
	{ "task_execname", S, 1, { L }, btask_execname, NULL },		\
	{ "task_uid", L, 1, { L }, btask_uid, NULL },			\
	{ "task_euid", L, 1, { L }, btask_euid, NULL },			\
	{ "task_gid", L, 1, { L }, btask_gid, NULL },			\
	{ "task_egid", L, 1, { L }, btask_egid, NULL },			\
	{ "task_state", L, 1, { L }, btask_state, NULL },		\
	{ "task_prio", L, 1, { L }, btask_prio, NULL },			\
	{ "task_nice", L, 1, { L }, btask_nice, NULL },			\
	{ "task_cpu", L, 1, { L }, btask_cpu, NULL },			\
	{ "task_start_time", L, 1, { L }, btask_start_time, NULL },	\
	{ "task_open_file_handles", L, 1, { L }, btask_open_files, NULL }, \
	{ "task_max_file_handles", L, 1, { L }, btask_max_files, NULL }

#endif
