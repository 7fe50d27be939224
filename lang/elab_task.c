// SPDX-License-Identifier: GPL-2.0
/*
 * The task_*() functions of a kernel task pointer a probe fetches: in a
 * kernel function probe, task_pid($p) is stap's read of $p's task_struct,
 * so it becomes that read, which the kernel does when the probe fires:
 *
 *	task_pid($p)			@cast($p, "task_struct")->tgid
 *	task_execname(task_parent($p))	kernel_string(@cast($p,
 *					    "task_struct")->real_parent->comm)
 *	task_nice(pointer_arg(1))	@cast(pointer_arg(1),
 *					    "task_struct")->static_prio - 120
 *
 * Everywhere else a task is a handle (task_current(), pid2task();
 * lang/builtin_task.c), and the built-ins answer.
 */
#include <string.h>

#include "common/log.h"
#include "common/tpath.h"
#include "lang/ast.h"
#include "lang/elab.h"
#include "lang/elab_pass.h"
#include "lang/provider.h"

/* What a task function reads of the task: a member chain (the first
 * existing of @alt, then @rest), a constant taken off, or a string. */
static const struct task_fn {
	const char *name;
	const char *alt[2];	/* the kernel's name for it, older second */
	const char *rest[2];
	int64_t minus;
	bool string;
} task_fns[] = {
	{ "task_pid", { "tgid" }, { NULL }, 0, false },
	{ "task_tid", { "pid" }, { NULL }, 0, false },
	{ "task_parent", { "real_parent" }, { NULL }, 0, false },
	{ "task_execname", { "comm" }, { NULL }, 0, true },
	{ "task_uid", { "real_cred" }, { "uid", "val" }, 0, false },
	{ "task_euid", { "real_cred" }, { "euid", "val" }, 0, false },
	{ "task_gid", { "real_cred" }, { "gid", "val" }, 0, false },
	{ "task_egid", { "real_cred" }, { "egid", "val" }, 0, false },
	/* Linux 5.14 renamed state to __state */
	{ "task_state", { "__state", "state" }, { NULL }, 0, false },
	/* MAX_RT_PRIO, and MAX_RT_PRIO + 20 for a nice of 0 */
	{ "task_prio", { "prio" }, { NULL }, 100, false },
	{ "task_nice", { "static_prio" }, { NULL }, 120, false },
	/* Linux 5.16 moved thread_info's cpu into the task */
	{ "task_cpu", { "cpu", "thread_info" }, { NULL }, 0, false },
	{ "task_start_time", { "start_time" }, { NULL }, 0, false },
};

static const struct task_fn *task_fn(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(task_fns) / sizeof(task_fns[0]); i++)
		if (!strcmp(task_fns[i].name, name))
			return &task_fns[i];
	return NULL;
}

/* Whether the kernel's task_struct has member @m (yes when unknown). */
static bool has_member(struct elab *e, const char *m)
{
	struct tstep step = { .kind = TSTEP_MEMBER, .name = m };
	struct tpath path = { .steps = &step, .nsteps = 1, .addressof = true };
	char err[256];
	int64_t v;

	return !e->opts->layout ||
	       e->opts->layout("kernel", "task_struct", &path, &v, err,
			       sizeof(err)) == 0;
}

static void add_member(struct ast_expr *t, const char *name, struct diag_loc loc)
{
	struct ast_tcomp *c;

	t->u.target.comps = xrealloc(t->u.target.comps,
				     (t->u.target.ncomps + 1) * sizeof(*c));
	c = &t->u.target.comps[t->u.target.ncomps++];
	memset(c, 0, sizeof(*c));
	c->kind = AST_TC_MEMBER;
	c->loc = loc;
	c->name = xstrdup(name);
}

/* Whether @p is a kernel probe whose provider fetches typed targets. */
static bool kernel_typed(const struct elab_probe *p)
{
	const struct provider *prov = p ? p->pp->prov : NULL;

	return prov && prov->target && !(prov->object && prov->object(p->pp));
}

int elab_task_call(struct elab *e, struct elab_probe *p, struct ast_expr *call)
{
	const struct task_fn *f;
	struct ast_expr *a, *t, *n;
	const char *m;

	if (call->kind != AST_E_CALL || call->u.call.args.n != 1 ||
	    !(f = task_fn(call->u.call.name)) || !kernel_typed(p) ||
	    elab_find_func(e, call->u.call.name, 1))
		return 0;
	a = call->u.call.args.v[0];
	/* task_pid(task_parent($p)): the inner one first */
	if (elab_task_call(e, p, a) < 0 || elab_raw_call(e, p, a, false) < 0)
		return -1;
	if (a->kind != AST_E_TARGET || a->u.target.addressof ||
	    (a->u.target.name && a->u.target.name[1] == '$') ||
	    (a->u.target.ncomps &&
	     a->u.target.comps[a->u.target.ncomps - 1].kind == AST_TC_PRETTY))
		return 0;
	call->u.call.args.v[0] = NULL;
	if (!a->u.target.ncomps && !a->u.target.cast_type) {
		/* $p, pointer_arg(1): read as a task_struct */
		t = ast_expr_new(AST_E_TARGET, a->loc);
		t->u.target.cast_type = xstrdup("task_struct");
		t->u.target.base = a;
	} else {
		/* $p->real_parent: typed already */
		t = a;
	}
	m = f->alt[1] && !has_member(e, f->alt[0]) ? f->alt[1] : f->alt[0];
	add_member(t, m, call->loc);
	if (!strcmp(m, "thread_info"))
		add_member(t, "cpu", call->loc);
	for (size_t i = 0; i < 2 && f->rest[i]; i++)
		add_member(t, f->rest[i], call->loc);
	if (f->string) {
		n = ast_expr_new(AST_E_CALL, call->loc);
		n->u.call.name = xstrdup("kernel_string");
		AST_VEC_PUSH(&n->u.call.args, t);
	} else if (f->minus) {
		n = ast_expr_new(AST_E_BINARY, call->loc);
		n->op = AST_OP_SUB;
		n->u.bin.left = t;
		n->u.bin.right = ast_expr_new(AST_E_NUM, call->loc);
		n->u.bin.right->u.num = f->minus;
	} else {
		n = t;
	}
	elab_replace_expr(call, n);
	return 1;
}
