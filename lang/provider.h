/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_PROVIDER_H
#define TAPKIT_LANG_PROVIDER_H

/*
 * Probe providers: how a kind of probe point plugs into the language
 * (ply's struct provider).  The elaborator, the code generator and the VM
 * never switch on probe type; they only call these hooks.
 *
 * Life of a probe point `timer.ms(100)` or `kernel.trace("sched:*")`:
 *
 *   compile   elab asks each provider in turn to expand() the point; the
 *             first one that claims it appends one struct prov_probe per
 *             concrete probe (wildcards expand to several).  `$name`
 *             resolves through var(); the VM later calls fetch() with the
 *             index var() chose; `user_string($name)` and the other
 *             memory reads through deref().  A leading condition on
 *             tid(), execname(), $field is offered to filter() in ftrace
 *             syntax.
 *   listing   -l/-L print each expanded probe's pp and its vars().
 *   -p2/-p3   describe() prints the mechanism, or what it would write.
 *   run       attach() once per provider with all its probes (timers,
 *             tracefs events...), phase() for the begin/end/error
 *             points of the run, detach() on every exit path.  Events
 *             are delivered with run_fire(run, probe, ev) (lang/run.h);
 *             @ev is the provider's own record, handed back to fetch()
 *             and context() while the handler runs.
 *
 * A provider is a static const object; per-run state lives in the void *
 * that attach() returns through @state.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/tpath.h"
#include "lang/ast.h"

struct diag;
struct run;
struct loop;

/* A script value: a long, or a string (NUL-terminated, never NULL). */
struct lang_val {
	int64_t l;
	const char *s;
};

/* Context values a provider may supply for the current event. */
enum prov_ctx {
	PROV_CTX_PID,		/* pid(): thread group id */
	PROV_CTX_TID,		/* tid() */
	PROV_CTX_PPID,
	PROV_CTX_UID,
	PROV_CTX_EUID,
	PROV_CTX_GID,
	PROV_CTX_EGID,
	PROV_CTX_EXECNAME,	/* string */
	PROV_CTX_CPU,
	PROV_CTX_PROBEFUNC,	/* string */
	PROV_CTX_IS_RETURN,	/* is_return(): a return probe */
	PROV_CTX_USER_MODE,	/* user_mode(): the event happened in user
				 * space (uprobes, user samples); else 0 */
	PROV_CTX_TIME,		/* when the event happened, ns on
				 * CLOCK_MONOTONIC (the time built-ins) */
	PROV_CTX_COUNT_
};

/*
 * The session state a probe fires in (stap's session_state check in each
 * probe's prologue): begin probes only while starting, end probes only
 * while stopping, error probes only after an error, the rest while running.
 */
enum prov_state {
	PROV_RUNNING,
	PROV_STARTING,
	PROV_STOPPING,
	PROV_ERROR,
};

/* The phases of a run that some providers fire probes in (prov_basic). */
enum prov_phase {
	PROV_PHASE_BEGIN,	/* before any other probe can fire */
	PROV_PHASE_DRAIN,	/* the loop ended: stop recording, and unless
				 * run_exiting() (exit(), an error), deliver
				 * what is still buffered to the running probes */
	PROV_PHASE_END,		/* after the loop: exit(), signal, -T, target */
	PROV_PHASE_ERROR,	/* after the end phase, when errors occurred */
};

/* A target variable a probe offers ($name). */
struct prov_var {
	const char *name;	/* without the '$' */
	enum ast_type type;	/* AST_T_LONG or AST_T_STRING */
	int array;		/* > 0: a char array of that length: $x[i] is
				 * a long, $x a string */
	int idx;		/* the provider's own index, given to fetch() */
	const char *ctype;	/* its C type for -L ("struct foo *"), or
				 * NULL; valid as long as the probe */
	unsigned int flags;	/* PROV_VAR_*: for $$parms, $$locals... */
};

/* prov_var.flags (providers without them: every variable is a parameter
 * of $$vars/$$parms, printed as a decimal) */
#define PROV_VAR_PARAM		(1 << 0)	/* in $$parms */
#define PROV_VAR_LOCAL		(1 << 1)	/* in $$locals */
#define PROV_VAR_RETURN		(1 << 2)	/* $return: $$return */
#define PROV_VAR_UNAVAILABLE	(1 << 3)	/* cannot be read here: "=?" */
#define PROV_VAR_HEX		(1 << 4)	/* $$vars prints it as 0x%x */
/* $value of procfs and input probes: a string the handler reads and
 * writes (= and .=), of any length, that the provider sets before the
 * handler and reads after it (run_value()); fetch() is not asked */
#define PROV_VAR_VALUE		(1 << 5)

/*
 * What user_string(), kernel_long()... read at the address a target
 * variable holds (deref()).  Strings are NUL-terminated, longs 8 bytes and
 * ints 4, both signed.
 */
enum prov_mem {
	PROV_MEM_USTRING,	/* user_string(), user_string_n() */
	PROV_MEM_KSTRING,	/* kernel_string(), kernel_string_n() */
	PROV_MEM_ULONG,		/* user_long() */
	PROV_MEM_UINT,		/* user_int() */
	PROV_MEM_KLONG,		/* kernel_long() */
	PROV_MEM_KINT,		/* kernel_int() */
};

/*
 * What a target expression asks of a provider's target() hook: a root
 * (a variable, or a raw operand from register(), int_arg()...), an
 * optional @cast, and the path after it (common/tpath.h).
 *
 *	$p->a[2]			root "p", path ->a [2]
 *	@cast($t, "task_struct")->pid	root "t", cast "task_struct", path ->pid
 *	@var("counter@prog.c")		root "counter@prog.c", is_global
 *	register("rax"), int_arg(2)	raw REG "rax", raw ARG 2
 */
enum prov_raw {
	PROV_RAW_NONE,
	PROV_RAW_REG,		/* register("rax"), u_register(): @root */
	PROV_RAW_ARG,		/* int_arg(N)...: the ABI's Nth argument */
	PROV_RAW_RETVAL,	/* returnval(): the return register */
	PROV_RAW_IP,		/* addr(): the address the event happened
				 * at (kernel or user) */
	PROV_RAW_UIP,		/* uaddr(): the user-space address: the
				 * probed one in user code, else where the
				 * task left user space (0 for a kernel
				 * thread) */
};

struct prov_target {
	const char *root;	/* the name without '$'; raw REG: the register */
	enum prov_raw raw;
	int raw_arg;		/* PROV_RAW_ARG: 1-based */
	const char *raw_type;	/* raw: "s32", "u32", "s64", "u64" */
	bool is_global;		/* @var("name[@file]"): a global by name */
	struct tpath pre;	/* with cast_type: the path to the pointer */
	/* with cast_type, instead of root and pre: the pointer is this
	 * target's value (@cast(&@cast(x, "A")->m, "B")) */
	const struct prov_target *base;
	const char *cast_type;	/* @cast(..., "type"): "task_struct",
				 * "struct foo", NULL without a cast */
	const char *cast_module;/* @cast's third argument, @var's second
				 * (the module or program), or NULL */
	struct tpath path;
	/* user_string($p->name), kernel_long($x + 8)...: read memory of
	 * @deref_kind at the value of the path plus @deref_off; fetch()
	 * then sets out->l nonzero when the read faulted (see deref()) */
	bool deref;
	enum prov_mem deref_kind;
	int64_t deref_off;
	const char *deref_fn;	/* the built-in asking, for messages */
};


/*
 * Whose events a probe sees: everything, or only target()'s (-c/-x)
 * process or thread, when its handler starts with `if (pid() == target())`
 * or `if (tid() == target())` and the provider can scope (scopes).
 */
enum prov_scope {
	PROV_SCOPE_ALL,
	PROV_SCOPE_TARGET_PROCESS,	/* pid() == target() */
	PROV_SCOPE_TARGET_THREAD,	/* tid() == target() */
};

/* One concrete probe, made by a provider's expand(). */
struct prov_probe {
	const struct provider *prov;
	char *pp;		/* canonical point, "timer.ms(100)"; owned */
	enum prov_state state;	/* which session state it fires in */
	int64_t order;		/* begin(N)/end(N): N; sorts within a phase */
	int id;			/* index in the compiled program (elab) */
	char *filter;		/* accepted condition, ftrace syntax; owned */
	enum prov_scope scope;	/* set by elab when prov->scopes */
	/* a handler that only counts (lang/elab_count.c): the global it
	 * increments (-1: none) and the key (NULL: unkeyed); owned */
	int count_global;
	char *count_key;
	bool sync;		/* reads counted globals: sync before it runs */
	bool stacks;		/* its handler uses a stack built-in: the
				 * provider records callchains (stack()) */
	void *data;		/* the provider's; freed by prov->free_probe */
};

/* What expand() appends to. */
struct prov_list {
	struct prov_probe **v;
	size_t n, cap;
};

/* Compile-time environment a provider may consult. */
struct prov_env {
	struct diag *diag;	/* report located errors here */
	bool listing;		/* -l/-L: expand wildcards, do not fail */
	/* -c's program or -x's executable, for a bare process.function();
	 * NULL without -c/-x */
	const char *target_exe;
	pid_t target_pid;	/* -x's PID, 0 otherwise */
};

struct provider {
	const char *name;	/* "basic", "trace" */
	/* can count a probe whose handler only counts (count_global) in the
	 * kernel instead of running it per event */
	bool counts;
	/* with counts: counts at most this many probes of a script in the
	 * kernel (more are recorded); 0: no limit */
	size_t count_max;
	/* can limit a probe to target()'s process or thread in the kernel
	 * (prov_probe.scope), exactly */
	bool scopes;

	/**
	 * expand() - claim and expand a probe point
	 * @env: diagnostics
	 * @pp: the point, from the parser (components, args, wildcards)
	 * @out: receives one prov_probe per concrete probe (prov_probe_new())
	 *
	 * Return: the number of probes appended (0 when the point is not
	 * this provider's: the next one is asked), or -1 after reporting
	 * an error at @pp's location (a malformed point of this provider).
	 */
	int (*expand)(const struct prov_env *env, const struct ast_pp *pp,
		      struct prov_list *out);

	/**
	 * vars() - the target variables of @p, for -L and $$vars
	 * Return: how many; fills at most @max of @out.
	 */
	size_t (*vars)(const struct prov_probe *p, struct prov_var *out,
		       size_t max);

	/**
	 * var() - resolve $@name in a handler of @p (the provider may note
	 * that the handler reads it)
	 * Return: 0 with @out filled, -ENOENT when @p has no such variable.
	 */
	int (*var)(const struct prov_probe *p, const char *name,
		   struct prov_var *out);

	/**
	 * target() - resolve a target expression of a handler of @p into
	 * a variable the kernel fetches when the probe fires (member
	 * chains, array elements, casts, registers; common/tpath.h), to
	 * be read with fetch() like var()'s.  Providers with no types
	 * leave it NULL and only var() is asked.
	 * Return: 0 with @out filled; -ENOENT when @p has no such
	 * variable (elab says so); any other -errno with the reason in
	 * @err ("no member 'x' in 'struct foo'", "'n' is optimized out
	 * at 0x401136", "index must be a constant").
	 */
	int (*target)(struct prov_probe *p, const struct prov_target *t,
		      struct prov_var *out, char *err, size_t errlen);

	/**
	 * entry() - for @ret, a return probe, a new probe at the entry of
	 * the same function(s), for @entry(expr): elab gives it a handler
	 * that saves expr per thread.  The provider must deliver the
	 * entry's events before the return's of the same thread.  NULL
	 * (or a NULL return) when the point has no entry: @entry is then
	 * an error.
	 */
	struct prov_probe *(*entry)(const struct prov_probe *ret);

	/**
	 * stack() - the callchain recorded with event @ev of a probe with
	 * p->stacks set: @pcs holds *@nk kernel addresses then *@nu user
	 * addresses, innermost first, valid while the handler runs.
	 * Return: 0, or -ENOENT when none was recorded.  May be NULL.
	 */
	int (*stack)(const struct prov_probe *p, void *ev,
		     const uint64_t **pcs, size_t *nk, size_t *nu);

	/**
	 * deref() - have @p read memory at the address variable @var holds
	 * (plus @off) when it fires: @kind says what to read, @fn names the
	 * built-in asking (for messages).  The value read becomes a variable
	 * of its own, @out, fetched like the others; a string's fetch()
	 * sets out->l nonzero when the read faulted (the string is then "").
	 * Return: 0, or -EINVAL when @var holds no address (a string).  NULL
	 * for providers whose probes cannot read memory.
	 */
	int (*deref)(struct prov_probe *p, const struct prov_var *var,
		     int64_t off, enum prov_mem kind, const char *fn,
		     struct prov_var *out);

	/**
	 * fetch() - the value of variable @idx (from var()) for event @ev
	 * @sub: element index for char arrays ($comm[2]); -1 for the whole
	 * @out: long, or a string valid until the handler returns
	 * Return: 0, or -errno (the VM raises "cannot fetch $name").
	 */
	int (*fetch)(const struct prov_probe *p, void *ev, int idx,
		     int64_t sub, struct lang_val *out);

	/**
	 * context() - pid(), execname()... of event @ev
	 * Return: 0, or -ENOENT to let the VM use its own process's values
	 * (what begin, end and timer probes report).
	 */
	int (*context)(const struct prov_probe *p, void *ev,
		       enum prov_ctx what, struct lang_val *out);

	/**
	 * filter() - offer a leading condition of the handler as a kernel
	 * filter in ftrace syntax ("common_pid == 42 && prev_prio < 100").
	 * Return: 0 when the provider applies it (the elaborator then drops
	 * the condition from the handler), -EOPNOTSUPP to decline.
	 * May be NULL (declines everything).
	 */
	int (*filter)(struct prov_probe *p, const char *expr);

	/**
	 * describe() - -p2: one line naming the mechanism ("timerfd every
	 * 100 ms"); -p3/--dry-run (@plan true): the definitions and filters
	 * it would write, as shell commands, or a comment saying there is
	 * nothing to write.
	 */
	void (*describe)(const struct prov_probe *p, bool plan, FILE *f);

	/**
	 * object() - the file @p's code is in, when it is a user-space
	 * object a uprobe goes into; NULL otherwise.  The runner keeps
	 * private copies of those it maps itself (common/privlib.c).  May be
	 * NULL.
	 */
	const char *(*object)(const struct prov_probe *p);

	/**
	 * attach() - start delivering events of @probes (all of this
	 * provider's probes in the program) on the run's loop.
	 * @state: receives the provider's per-run state
	 * Return: 0, or -errno with the reason given to run_error().
	 */
	int (*attach)(struct run *run, struct prov_probe *const *probes,
		      size_t n, void **state);

	/* Fire the probes that belong to a phase of the run (may be NULL). */
	void (*phase)(struct run *run, void *state, enum prov_phase ph);

	/*
	 * sync() - add what the kernel counted for the counting probes since
	 * the last sync to their globals (run_global_add()); called before a
	 * handler that reads them runs.  May be NULL.
	 */
	void (*sync)(struct run *run, void *state);

	/* Stop delivering; undo attach() (also after a partial attach). */
	void (*detach)(struct run *run, void *state);

	/* Free p->data (may be NULL when data needs no freeing). */
	void (*free_probe)(struct prov_probe *p);
};

/* A probe of @prov for point @pp (copied); the caller appends it. */
struct prov_probe *prov_probe_new(const struct provider *prov,
				  const char *pp, enum prov_state state);
/* Free @p and what its provider keeps in it; NULL is a no-op. */
void prov_probe_free(struct prov_probe *p);
void prov_list_push(struct prov_list *l, struct prov_probe *p);

/* Helpers for providers: does component @i of @pp have that name, and its
 * argument as a number (false when absent or not a number). */
bool prov_comp_is(const struct ast_pp *pp, size_t i, const char *name);
bool prov_comp_num(const struct ast_pp *pp, size_t i, int64_t *v);

#endif
