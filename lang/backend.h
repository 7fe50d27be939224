/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_BACKEND_H
#define TAPKIT_LANG_BACKEND_H

/*
 * Declarations shared by the back end of lang/ and nobody else: the table
 * of built-in functions (the elaborator resolves and types calls with it,
 * the VM runs them) and the VM state that vm.c and builtin.c both use.
 * (The parser keeps its own in lang/internal.h, the elaborator's passes
 * theirs in lang/elab_pass.h.)
 */
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lang/elab.h"
#include "lang/fmt.h"
#include "lang/gen.h"
#include "lang/provider.h"
#include "lang/vm.h"

/* ---- built-in functions ------------------------------------------------ */

struct vm;

/*
 * A built-in: @a holds the @n arguments; the result goes to *@ret (a
 * string result may be written into @buf, MAXSTRINGLEN bytes).  Return 0,
 * or -1 after vm_raise().
 */
typedef int (*builtin_fn)(struct vm *vm, struct lang_val *a, int n,
			  struct lang_val *ret, char *buf);

struct builtin {
	const char *name;
	enum ast_type ret;
	int nargs;			/* exact count */
	enum ast_type args[3];
	builtin_fn fn;
	const char *unsupported;	/* a compile error saying why */
};

extern const struct builtin builtin_table[];
extern const size_t builtin_count;
/* The built-in named @name taking @nargs arguments, else the first of
 * that name (for the caller's error), else NULL; *@id receives its index.
 * Built-ins are overloaded by their number of arguments. */
const struct builtin *builtin_find(const char *name, int nargs, int *id);
/*
 * What @b reads from memory (user_string()...), or -1 when it reads none.
 * Such a call gets one more argument, the value the probe read
 * (lang/elab_mem.c).
 */
int builtin_mem(const struct builtin *b);
/* True when @b reads the current event's callchain (backtrace()...): the
 * probe calling it must record one. */
bool builtin_uses_stack(const struct builtin *b);

/* ---- VM state (vm.c, builtin.c) ----------------------------------------- */

struct vm_frame {
	const int32_t *ret_pc;
	struct lang_val *bp;
	int iter_depth, try_depth;
	int loc;			/* the call's location */
	int func;
};

struct vm_try {
	const int32_t *handler;
	struct lang_val *bp;
	struct lang_val *sp;
	int catch_slot;			/* -1: none */
	int frame_depth, iter_depth;
};

struct vm_iter {
	struct map_iter it;
	const struct prog_iter *desc;
	int64_t left;			/* iterations left under a limit */
	bool limited;
	struct map_key slice[MAP_MAX_KEYS];	/* fixed columns (desc mask) */
	char *slice_str[MAP_MAX_KEYS];
};

struct vm_gval {
	int64_t l;
	char *s;			/* maxstrlen buffer (string scalars) */
	struct stat_agg *st;		/* statistics scalars */
	struct map *map;		/* arrays */
};

struct vm {
	const struct prog *prog;
	struct vm_limits lim;
	struct vm_gval *g;
	struct map_mem mem;

	struct lang_val *stack;		/* all frames' slots */
	size_t nslots;
	char *sbuf;			/* maxstrlen bytes per slot */
	size_t maxstr;

	struct vm_frame *frames;
	int depth;
	struct vm_iter *iters;
	int niters, iters_cap;
	struct vm_try *tries;
	int ntries, tries_cap;

	/* the running handler */
	const struct prog_probe *probe;
	void *ev;
	long actions;
	const char *err;		/* pending error text */
	int err_loc;
	char errbuf[512];
	char msg[1024];			/* "ERROR text near ..." for vm_error() */

	struct strbuf out;		/* script output */
	struct strbuf value;		/* $value of procfs and input probes */
	struct strbuf commands;		/* system(): NUL-ended, to run after */
	struct strbuf scratch;		/* sprintf */
	char *sbuf_tmp;			/* maxstrlen bytes: built-ins' scratch */
	char *bret;			/* maxstrlen bytes: built-ins' results */
	bool exit_req;
	bool abort_req;			/* abort(): end the handler now */
	pid_t target;

	/* matched(): the last =~ */
	regmatch_t match[10];
	char *match_str;
	bool matched;
	/* tokenize() */
	char *tok_buf, *tok_pos;
	char execname[64];
	/* the stack built-ins' symbols, made at their first call
	 * (lang/builtin_stack.c); freed by builtin_stack_release() */
	struct stack_state *stk;
};

/* Set the pending run-time error (a printf-style message). */
void vm_raise(struct vm *vm, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A context value of the current event, or of tapkit itself. */
void vm_context(struct vm *vm, enum prov_ctx what, struct lang_val *out);

#endif
