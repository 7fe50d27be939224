// SPDX-License-Identifier: GPL-2.0
/*
 * The bytecode interpreter.
 *
 * Design.  A stack machine (lang/opcodes.h) dispatched with computed goto.
 * Every value is a 16-byte slot (struct lang_val): a long and a string
 * pointer; types are resolved at compile time, so an opcode knows which
 * half it uses.  All slots of all frames live in one array allocated by
 * vm_new(), sized for MAXNESTING frames of the largest function, and each
 * slot owns a MAXSTRINGLEN buffer in a parallel array (sbuf).  A string
 * value points either to its own slot's buffer, or to memory that stays
 * put for the whole handler (string constants, a provider's event fields,
 * context strings).  The one rule that keeps this sound: moving a value
 * whose string lies in another slot's buffer copies the bytes (set_str).
 * Strings read from arrays and global scalars are always copied in,
 * because the handler may change those before the value is used.  Hence
 * a handler never allocates, except where an array grows or a foreach
 * takes its snapshot.
 *
 * Safety: the statement budget (ACT, MAXACTION), the call depth
 * (MAXNESTING), string length (MAXSTRINGLEN), array entries
 * (MAXMAPENTRIES or `global a[N]`) and all arrays' memory (STP_MAXMEMORY)
 * are bounded.  An error unwinds to the innermost try (restoring its frame,
 * stack and foreach iterators) or ends the handler with stap's message:
 * "division by 0 near operator '/' at t.stp:3:10".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "lang/backend.h"

static const char empty[] = "";

/* ---- strings in slots --------------------------------------------------- */

static inline char *slot_buf(struct vm *vm, const struct lang_val *v)
{
	return vm->sbuf + (size_t)(v - vm->stack) * vm->maxstr;
}

static inline bool in_sbuf(const struct vm *vm, const char *s)
{
	return (uintptr_t)s - (uintptr_t)vm->sbuf < vm->nslots * vm->maxstr;
}

/* Copy @s into @dst's own buffer (cut to MAXSTRINGLEN - 1). */
static inline void copy_str(struct vm *vm, struct lang_val *dst, const char *s)
{
	char *b = slot_buf(vm, dst);
	size_t n = strnlen(s, vm->maxstr - 1);

	if (s != b) {
		memmove(b, s, n);
		b[n] = '\0';
	}
	dst->s = b;
}

/* dst->s = s, copying when @s lives in another slot's buffer. */
static inline void set_str(struct vm *vm, struct lang_val *dst, const char *s)
{
	if (in_sbuf(vm, s) && s != slot_buf(vm, dst))
		copy_str(vm, dst, s);
	else
		dst->s = s;
}

void vm_raise(struct vm *vm, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(vm->errbuf, sizeof(vm->errbuf), fmt, ap);
	va_end(ap);
	vm->err = vm->errbuf;
}

/* ---- construction -------------------------------------------------------- */

struct vm *vm_new(const struct prog *prog, const struct vm_limits *lim)
{
	struct vm *vm = xcalloc(1, sizeof(*vm));
	size_t i;

	if (lim)
		vm->lim = *lim;
	if (!vm->lim.maxaction)
		vm->lim.maxaction = VM_MAXACTION;
	if (!vm->lim.maxnesting)
		vm->lim.maxnesting = VM_MAXNESTING;
	if (!vm->lim.maxstrlen)
		vm->lim.maxstrlen = prog->maxstrlen ? prog->maxstrlen :
				    FMT_MAXSTRINGLEN;
	if (!vm->lim.maxmemory)
		vm->lim.maxmemory = VM_MAXMEMORY;
	vm->prog = prog;
	vm->maxstr = vm->lim.maxstrlen;
	vm->mem.limit = vm->lim.maxmemory;

	vm->g = xcalloc(prog->nglobals + 1, sizeof(*vm->g));
	for (i = 0; i < prog->nglobals; i++) {
		const struct prog_global *pg = &prog->globals[i];
		struct vm_gval *g = &vm->g[i];

		if (pg->nkeys) {
			struct map_cfg cfg = pg->mcfg;

			cfg.mem = &vm->mem;
			cfg.maxstrlen = vm->maxstr;
			cfg.stat = &pg->scfg;
			g->map = map_new(&cfg);
			if (!g->map) {
				vm_free(vm);
				errno = EINVAL;
				return NULL;
			}
		} else if (pg->type == AST_T_STATS) {
			g->st = stat_new(&pg->scfg);
		} else if (pg->type == AST_T_STRING) {
			g->s = xcalloc(1, vm->maxstr);
			if (pg->init_s)
				snprintf(g->s, vm->maxstr, "%s", pg->init_s);
		} else {
			g->l = pg->init_l;
		}
	}
	vm->nslots = (size_t)(prog->maxframe + 4) *
		     (size_t)(vm->lim.maxnesting + 2);
	vm->stack = xcalloc(vm->nslots, sizeof(*vm->stack));
	vm->sbuf = xcalloc(vm->nslots, vm->maxstr);
	vm->frames = xcalloc((size_t)vm->lim.maxnesting + 1,
			     sizeof(*vm->frames));
	vm->sbuf_tmp = xcalloc(1, vm->maxstr);
	vm->bret = xcalloc(1, vm->maxstr);
	vm->tok_buf = xcalloc(1, vm->maxstr);
	vm->match_str = xcalloc(1, vm->maxstr);
	return vm;
}

static void end_iters(struct vm *vm, int depth)
{
	while (vm->niters > depth) {
		struct vm_iter *it = &vm->iters[--vm->niters];

		map_iter_end(&it->it);
		for (int i = 0; i < MAP_MAX_KEYS; i++) {
			free(it->slice_str[i]);
			it->slice_str[i] = NULL;
		}
	}
}

void vm_free(struct vm *vm)
{
	size_t i;

	if (!vm)
		return;
	end_iters(vm, 0);
	for (i = 0; i < vm->prog->nglobals; i++) {
		map_free(vm->g[i].map);
		stat_free(vm->g[i].st);
		free(vm->g[i].s);
	}
	free(vm->g);
	free(vm->stack);
	free(vm->sbuf);
	free(vm->frames);
	free(vm->iters);
	free(vm->tries);
	free(vm->sbuf_tmp);
	free(vm->bret);
	free(vm->tok_buf);
	free(vm->match_str);
	fmt_sb_release(&vm->out);
	fmt_sb_release(&vm->value);
	fmt_sb_release(&vm->commands);
	fmt_sb_release(&vm->scratch);
	free(vm);
}

void vm_set_target(struct vm *vm, pid_t pid)
{
	vm->target = pid;
}

const char *vm_error(const struct vm *vm)
{
	return vm->msg;
}

struct strbuf *vm_value(struct vm *vm)
{
	return &vm->value;
}

struct strbuf *vm_commands(struct vm *vm)
{
	return &vm->commands;
}

bool vm_exit_requested(const struct vm *vm)
{
	return vm->exit_req;
}

struct strbuf *vm_output(struct vm *vm)
{
	return &vm->out;
}

/* ---- helpers for arrays ---------------------------------------------- */

/* Keys from the stack (@v), skipping the '*' columns of @mask. */
static void mkkeys(const struct prog_global *pg, const struct lang_val *v,
		   struct map_key *k, int mask)
{
	int i, j = 0;

	for (i = 0; i < pg->nkeys; i++) {
		if (mask & (1 << i))
			continue;
		k[i].l = v[j].l;
		k[i].s = v[j].s;
		j++;
	}
}

static bool entry_matches(const struct prog_global *pg,
			  const struct map_entry *e, const struct map_key *k,
			  int fixed)
{
	int i;

	for (i = 0; i < pg->nkeys; i++) {
		if (!(fixed & (1 << i)))
			continue;
		if (pg->mcfg.keys[i] == MAP_STRING) {
			if (strcmp(map_entry_key_str(e, i), k[i].s))
				return false;
		} else if (map_entry_key_long(e, i) != k[i].l) {
			return false;
		}
	}
	return true;
}

static void map_err(struct vm *vm, const struct prog_global *pg, int rc)
{
	if (rc == -E2BIG && pg->sized)
		vm_raise(vm, MAP_ERR_OVERFLOW_SIZE, pg->mcfg.max_entries);
	else if (rc == -E2BIG)
		vm_raise(vm, MAP_ERR_OVERFLOW);
	else
		vm_raise(vm, "out of memory: arrays use more than "
			 "STP_MAXMEMORY (%zu bytes)", vm->mem.limit);
}

static int64_t shl(int64_t x, int64_t y)
{
	return (int64_t)((uint64_t)x << (y & 63));
}

static int64_t shr(int64_t x, int64_t y)
{
	return x >> (y & 63);
}

/* x op y for MOP and the compound assignments; false on division by 0. */
static bool arith(int op, int64_t x, int64_t y, int64_t *out)
{
	switch (op) {
	case MOP_ADD: *out = (int64_t)((uint64_t)x + (uint64_t)y); break;
	case MOP_SUB: *out = (int64_t)((uint64_t)x - (uint64_t)y); break;
	case MOP_MUL: *out = (int64_t)((uint64_t)x * (uint64_t)y); break;
	case MOP_DIV:
		if (!y)
			return false;
		*out = y == -1 ? (int64_t)(0 - (uint64_t)x) : x / y;
		break;
	case MOP_MOD:
		if (!y)
			return false;
		*out = y == -1 ? 0 : x % y;
		break;
	case MOP_SHL: *out = shl(x, y); break;
	case MOP_SHR: *out = shr(x, y); break;
	case MOP_AND: *out = x & y; break;
	case MOP_OR: *out = x | y; break;
	case MOP_XOR: *out = x ^ y; break;
	}
	return true;
}

static int stat_err(struct vm *vm, int rc)
{
	vm_raise(vm, "%s", rc == -ERANGE ? STAT_ERR_INDEX : STAT_ERR_EMPTY);
	return -1;
}

/* The statistic of G[g] (scalar) or G[g][keys]; *cfg its description. */
static const struct stat_agg *stat_of(struct vm *vm, int g,
				      const struct lang_val *keys,
				      const struct stat_cfg **cfg)
{
	const struct prog_global *pg = &vm->prog->globals[g];
	struct map_key k[MAP_MAX_KEYS];

	if (!pg->nkeys) {
		*cfg = &pg->scfg;
		return vm->g[g].st;
	}
	*cfg = map_stat_cfg(vm->g[g].map);
	mkkeys(pg, keys, k, 0);
	return map_get_stat(vm->g[g].map, k);
}

static int start_iter(struct vm *vm, const struct prog_iter *d,
		      struct lang_val *args, int flags)
{
	const struct prog_global *pg = &vm->prog->globals[d->global];
	struct map_sort sort = d->sort;
	struct vm_iter *it;
	int i, j = 0;

	if (vm->niters == vm->iters_cap) {
		vm->iters_cap = vm->iters_cap ? 2 * vm->iters_cap : 8;
		vm->iters = xrealloc(vm->iters,
				     (size_t)vm->iters_cap * sizeof(*vm->iters));
	}
	it = &vm->iters[vm->niters];
	memset(it, 0, sizeof(*it));
	it->desc = d;
	if (flags & ITER_LIMIT) {
		it->limited = true;
		it->left = args[j++].l;
		if (sort.dir && it->left > 0) {
			sort.has_limit = true;
			sort.limit = it->left;
		}
	}
	for (i = 0; i < pg->nkeys; i++) {
		if (!(d->slice_mask & (1 << i)))
			continue;
		it->slice[i].l = args[j].l;
		if (pg->mcfg.keys[i] == MAP_STRING)
			it->slice[i].s = it->slice_str[i] =
				xstrdup(args[j].s);
		j++;
	}
	if (map_iter_start(&it->it, vm->g[d->global].map,
			   sort.dir ? &sort : NULL) < 0) {
		vm_raise(vm, "cannot sort array '%s'", pg->name);
		return -1;
	}
	vm->niters++;
	return 0;
}

/* The next entry of the innermost foreach, keys (and value) to @out. */
static bool next_iter(struct vm *vm, struct lang_val *out, bool value)
{
	struct vm_iter *it = &vm->iters[vm->niters - 1];
	const struct prog_global *pg = &vm->prog->globals[it->desc->global];
	struct map_entry *e;
	int i;

	do {
		e = map_iter_next(&it->it);
		if (!e)
			return false;
	} while (it->desc->slice_mask &&
		 !entry_matches(pg, e, it->slice, it->desc->slice_mask));
	if (it->limited && it->left-- <= 0)
		return false;
	for (i = 0; i < pg->nkeys; i++, out++) {
		if (pg->mcfg.keys[i] == MAP_STRING)
			copy_str(vm, out, map_entry_key_str(e, i));
		else
			out->l = map_entry_key_long(e, i);
	}
	if (value) {
		if (pg->type == AST_T_STRING)
			copy_str(vm, out, map_entry_str(e));
		else
			out->l = map_entry_long(e);
	}
	return true;
}

/* delete G[g][k, *] / [k, *] in G[g] */
static int wild(struct vm *vm, int g, const struct lang_val *keys, int mask,
		bool del)
{
	const struct prog_global *pg = &vm->prog->globals[g];
	struct map_key k[MAP_MAX_KEYS];
	struct map_iter it;
	struct map_entry *e;
	int found = 0;

	mkkeys(pg, keys, k, mask);
	if (map_iter_start(&it, vm->g[g].map, NULL) < 0)
		return 0;
	while ((e = map_iter_next(&it))) {
		if (!entry_matches(pg, e, k, ~mask & ((1 << pg->nkeys) - 1)))
			continue;
		found = 1;
		if (!del)
			break;
		map_delete_entry(vm->g[g].map, e);
	}
	map_iter_end(&it);
	return found;
}

/* ---- the interpreter ---------------------------------------------------- */

#define FETCH()	(*pc++)

int vm_fire(struct vm *vm, int probe, void *ev)
{
	static const void *const disp[OP_COUNT_] = {
#define OP(name, nops, doc) [OP_##name] = &&L_##name,
#include "lang/opcodes.h"
#undef OP
	};
	const struct prog *prog = vm->prog;
	const struct prog_probe *pr = &prog->probes[probe];
	const int32_t *code = prog->code, *pc = code + pr->entry;
	struct lang_val *bp = vm->stack, *sp, *v;
	struct map_key k[MAP_MAX_KEYS];
	struct map_entry *ent;
	struct vm_gval *gv;
	const struct prog_global *pg;
	int32_t a, b, c, d;
	int64_t x, y;
	int rc, i;

	vm->probe = pr;
	vm->ev = ev;
	vm->actions = vm->lim.maxaction;
	vm->err = NULL;
	vm->err_loc = -1;
	vm->depth = 0;
	vm->ntries = 0;
	vm->matched = false;
	for (i = 0; i < pr->nlocals; i++) {
		bp[i].l = 0;
		bp[i].s = empty;
	}
	sp = bp + pr->nlocals;

#define DISPATCH() goto *disp[FETCH()]
#define RAISE(loc) do { vm->err_loc = (loc); goto error; } while (0)
	DISPATCH();

L_NOP:
	DISPATCH();
L_PUSHI:
	sp->l = FETCH();
	sp++;
	DISPATCH();
L_PUSHK:
	sp->l = prog->consts[FETCH()];
	sp++;
	DISPATCH();
L_PUSHS:
	sp->s = prog->strs[FETCH()];
	sp++;
	DISPATCH();
L_POP:
	sp--;
	DISPATCH();
L_DUP:
	sp->l = sp[-1].l;
	set_str(vm, sp, sp[-1].s);
	sp++;
	DISPATCH();
L_LDL:
	sp->l = bp[FETCH()].l;
	sp++;
	DISPATCH();
L_LDLS:
	copy_str(vm, sp, bp[FETCH()].s);
	sp++;
	DISPATCH();
L_STL:
	bp[FETCH()].l = (--sp)->l;
	DISPATCH();
L_STLS:
	a = FETCH();
	sp--;
	set_str(vm, &bp[a], sp->s);
	DISPATCH();
L_INCL:
	a = FETCH();
	bp[a].l = (int64_t)((uint64_t)bp[a].l + (uint64_t)(int64_t)FETCH());
	DISPATCH();
L_LDG:
	sp->l = vm->g[FETCH()].l;
	sp++;
	DISPATCH();
L_LDGS:
	copy_str(vm, sp, vm->g[FETCH()].s);
	sp++;
	DISPATCH();
L_STG:
	vm->g[FETCH()].l = (--sp)->l;
	DISPATCH();
L_STGS:
	gv = &vm->g[FETCH()];
	sp--;
	snprintf(gv->s, vm->maxstr, "%s", sp->s);
	DISPATCH();
L_CLRG:
	a = FETCH();
	gv = &vm->g[a];
	if (gv->st)
		stat_clear(&prog->globals[a].scfg, gv->st);
	else if (gv->s)
		gv->s[0] = '\0';
	else
		gv->l = 0;
	DISPATCH();

#define BINOP(expr) do { sp--; x = sp[-1].l; y = sp->l; sp[-1].l = (expr); \
	DISPATCH(); } while (0)
L_ADD:	BINOP((int64_t)((uint64_t)x + (uint64_t)y));
L_SUB:	BINOP((int64_t)((uint64_t)x - (uint64_t)y));
L_MUL:	BINOP((int64_t)((uint64_t)x * (uint64_t)y));
L_DIV:
	a = FETCH();
	if (!sp[-1].l) {
		vm->err = VM_ERR_DIV0;
		RAISE(a);
	}
	arith(MOP_DIV, sp[-2].l, sp[-1].l, &sp[-2].l);
	sp--;
	DISPATCH();
L_MOD:
	a = FETCH();
	if (!sp[-1].l) {
		vm->err = VM_ERR_DIV0;
		RAISE(a);
	}
	arith(MOP_MOD, sp[-2].l, sp[-1].l, &sp[-2].l);
	sp--;
	DISPATCH();
L_SHL:	BINOP(shl(x, y));
L_SHR:	BINOP(shr(x, y));
L_AND:	BINOP(x & y);
L_OR:	BINOP(x | y);
L_XOR:	BINOP(x ^ y);
L_NEG:
	sp[-1].l = (int64_t)(0 - (uint64_t)sp[-1].l);
	DISPATCH();
L_BNOT:
	sp[-1].l = ~sp[-1].l;
	DISPATCH();
L_NOT:
	sp[-1].l = !sp[-1].l;
	DISPATCH();
L_EQ:	BINOP(x == y);
L_NE:	BINOP(x != y);
L_LT:	BINOP(x < y);
L_LE:	BINOP(x <= y);
L_GT:	BINOP(x > y);
L_GE:	BINOP(x >= y);
#define STROP(cmp) do { sp--; sp[-1].l = strcmp(sp[-1].s, sp->s) cmp 0; \
	DISPATCH(); } while (0)
L_SEQ:	STROP(==);
L_SNE:	STROP(!=);
L_SLT:	STROP(<);
L_SLE:	STROP(<=);
L_SGT:	STROP(>);
L_SGE:	STROP(>=);
L_CAT: {
	size_t la, lb, room;
	char *buf;

	sp--;
	v = sp - 1;
	buf = slot_buf(vm, v);
	if (v->s != buf)
		copy_str(vm, v, v->s);
	la = strlen(buf);
	lb = strlen(sp->s);
	room = vm->maxstr - 1 - la;
	if (lb > room)
		lb = room;
	memcpy(buf + la, sp->s, lb);
	buf[la + lb] = '\0';
	DISPATCH();
}
L_REGEX:
	a = FETCH();
	b = FETCH();
	rc = regexec(&prog->regexes[a], sp[-1].s, 10, vm->match, 0);
	vm->matched = rc == 0;
	if (vm->matched)
		snprintf(vm->match_str, vm->maxstr, "%s", sp[-1].s);
	sp[-1].l = (rc == 0) != (b != 0);
	DISPATCH();
L_JMP:
	pc = code + *pc;
	DISPATCH();
L_JZ:
	a = FETCH();
	if (!(--sp)->l)
		pc = code + a;
	DISPATCH();
L_JNZ:
	a = FETCH();
	if ((--sp)->l)
		pc = code + a;
	DISPATCH();
L_ACT:
	a = FETCH();
	b = FETCH();
	vm->actions -= a;
	if (vm->actions <= 0) {
		vm->err = VM_ERR_ACTION;
		RAISE(b);
	}
	DISPATCH();
L_CALL: {
	const struct prog_func *f;
	struct vm_frame *fr;

	a = FETCH();
	b = FETCH();
	c = FETCH();
	f = &prog->funcs[a];
	if (vm->depth + 1 > vm->lim.maxnesting) {
		vm->err = VM_ERR_NESTING;
		RAISE(c);
	}
	fr = &vm->frames[vm->depth++];
	fr->ret_pc = pc;
	fr->bp = bp;
	fr->iter_depth = vm->niters;
	fr->try_depth = vm->ntries;
	fr->loc = c;
	fr->func = a;
	bp = sp - b;
	for (i = b; i < f->nlocals; i++) {
		bp[i].l = 0;
		bp[i].s = empty;
	}
	sp = bp + f->nlocals;
	pc = code + f->entry;
	DISPATCH();
}
L_RET:
	a = FETCH();
	if (a)
		set_str(vm, bp, sp[-1].s);
	else
		bp->l = sp[-1].l;
	goto ret;
L_RET0:
	bp->l = 0;
	bp->s = empty;
ret: {
	struct vm_frame *fr = &vm->frames[--vm->depth];

	sp = bp + 1;
	end_iters(vm, fr->iter_depth);
	vm->ntries = fr->try_depth;
	bp = fr->bp;
	pc = fr->ret_pc;
	DISPATCH();
}
L_BCALL: {
	const struct builtin *bi;
	struct lang_val ret = { 0, empty };

	a = FETCH();
	b = FETCH();
	c = FETCH();
	bi = &builtin_table[a];
	v = sp - b;
	if (bi->fn(vm, v, b, &ret, vm->bret) < 0)
		RAISE(c);
	v->l = ret.l;
	if (ret.s == vm->bret)
		copy_str(vm, v, ret.s);
	else
		set_str(vm, v, ret.s);
	sp = v + 1;
	DISPATCH();
}
L_TVAR:
L_TVARI: {
	const struct prog_tvar *tv;
	const struct prov_probe *pp = pr->pp;
	struct lang_val out = { 0, empty };
	bool indexed = pc[-1] == OP_TVARI;

	a = FETCH();
	b = FETCH();
	tv = &prog->tvars[a];
	x = indexed ? sp[-1].l : -1;
	/* -1 asks a provider for the whole variable: no index is negative */
	if (!pp->prov->fetch || (indexed && x < 0) ||
	    pp->prov->fetch(pp, vm->ev, tv->idx, x, &out) < 0) {
		vm_raise(vm, "cannot fetch target variable %s", tv->name);
		RAISE(b);
	}
	v = indexed ? sp - 1 : sp++;
	v->l = out.l;
	v->s = out.s ? out.s : empty;
	DISPATCH();
}
L_MGET:
	a = FETCH();
	pg = &prog->globals[a];
	v = sp - pg->nkeys;
	mkkeys(pg, v, k, 0);
	if (pg->type == AST_T_STRING)
		copy_str(vm, v, map_get_str(vm->g[a].map, k));
	else
		v->l = map_get_long(vm->g[a].map, k);
	sp = v + 1;
	DISPATCH();
L_MSET:
	a = FETCH();
	b = FETCH();
	c = FETCH();
	pg = &prog->globals[a];
	v = sp - pg->nkeys - 1;
	mkkeys(pg, v, k, 0);
	if (pg->type == AST_T_STRING)
		rc = map_set_str(vm->g[a].map, k, sp[-1].s);
	else
		rc = map_set_long(vm->g[a].map, k, sp[-1].l);
	if (rc < 0) {
		map_err(vm, pg, rc);
		RAISE(c);
	}
	if (b) {
		v->l = sp[-1].l;
		set_str(vm, v, sp[-1].s);
		sp = v + 1;
	} else {
		sp = v;
	}
	DISPATCH();
L_MOP: {
	struct map *m;

	a = FETCH();
	b = FETCH();
	c = FETCH();
	d = FETCH();
	pg = &prog->globals[a];
	m = vm->g[a].map;
	v = sp - pg->nkeys - 1;
	mkkeys(pg, v, k, 0);
	rc = map_slot_h(m, k, map_hash(m, k), &ent);
	if (rc < 0) {
		map_err(vm, pg, rc);
		RAISE(d);
	}
	if (b == MOP_CAT) {
		const char *old = map_entry_str(ent);
		size_t lo = strlen(old), ln = strlen(sp[-1].s);

		if (lo > vm->maxstr - 1)
			lo = vm->maxstr - 1;
		if (ln > vm->maxstr - 1 - lo)
			ln = vm->maxstr - 1 - lo;
		memcpy(vm->sbuf_tmp, old, lo);
		memcpy(vm->sbuf_tmp + lo, sp[-1].s, ln);
		vm->sbuf_tmp[lo + ln] = '\0';
		if (map_entry_set_str(m, ent, vm->sbuf_tmp) < 0) {
			map_err(vm, pg, -ENOMEM);
			RAISE(d);
		}
		if (c & MOP_KEEP)
			copy_str(vm, v, vm->sbuf_tmp);
	} else {
		int64_t *p = map_entry_longp(ent), old = *p;

		if (!arith(b, old, sp[-1].l, p)) {
			vm->err = VM_ERR_DIV0;
			RAISE(d);
		}
		v->l = c & MOP_POST ? old : *p;
	}
	sp = c & MOP_KEEP ? v + 1 : v;
	DISPATCH();
}
L_MIN:
	a = FETCH();
	pg = &prog->globals[a];
	v = sp - pg->nkeys;
	mkkeys(pg, v, k, 0);
	v->l = map_exists(vm->g[a].map, k);
	sp = v + 1;
	DISPATCH();
L_MINW:
	a = FETCH();
	b = FETCH();
	pg = &prog->globals[a];
	v = sp - (pg->nkeys - __builtin_popcount((unsigned)b));
	v->l = wild(vm, a, v, b, false);
	sp = v + 1;
	DISPATCH();
L_MDEL:
	a = FETCH();
	pg = &prog->globals[a];
	v = sp - pg->nkeys;
	mkkeys(pg, v, k, 0);
	map_delete(vm->g[a].map, k);
	sp = v;
	DISPATCH();
L_MDELW:
	a = FETCH();
	b = FETCH();
	pg = &prog->globals[a];
	v = sp - (pg->nkeys - __builtin_popcount((unsigned)b));
	wild(vm, a, v, b, true);
	sp = v;
	DISPATCH();
L_MCLR:
	map_clear(vm->g[FETCH()].map);
	DISPATCH();
L_SADD:
	a = FETCH();
	stat_add(&prog->globals[a].scfg, vm->g[a].st, (--sp)->l);
	DISPATCH();
L_MSADD:
	a = FETCH();
	b = FETCH();
	pg = &prog->globals[a];
	v = sp - pg->nkeys - 1;
	mkkeys(pg, v, k, 0);
	rc = map_add_stat(vm->g[a].map, k, sp[-1].l);
	if (rc < 0) {
		map_err(vm, pg, rc);
		RAISE(b);
	}
	sp = v;
	DISPATCH();
L_SGET:
L_MSGET: {
	const struct stat_cfg *cfg;
	const struct stat_agg *st;
	bool keyed = pc[-1] == OP_MSGET;

	a = FETCH();
	b = FETCH();
	c = FETCH();
	v = keyed ? sp - prog->globals[a].nkeys : sp;
	st = stat_of(vm, a, v, &cfg);
	rc = stat_get(cfg, st, (enum stat_op)b, &v->l);
	if (rc < 0) {
		stat_err(vm, rc);
		RAISE(c);
	}
	sp = v + 1;
	DISPATCH();
}
L_HPRINT: {
	const struct stat_cfg *cfg;
	const struct stat_agg *st;
	struct strbuf *out;

	a = FETCH();
	b = FETCH();
	c = FETCH();
	v = b & HIST_KEYED ? sp - prog->globals[a].nkeys : sp;
	st = stat_of(vm, a, v, &cfg);
	out = b & HIST_TOSTR ? &vm->scratch : &vm->out;
	if (b & HIST_TOSTR)
		fmt_sb_reset(out);
	rc = stat_print_hist(out, cfg, st, b & HIST_TOSTR ? vm->maxstr : 0);
	if (rc < 0) {
		stat_err(vm, rc);
		RAISE(c);
	}
	if (b & 4)
		fmt_sb_addc(out, '\n');
	if (b & HIST_TOSTR) {
		copy_str(vm, v, fmt_sb_str(out));
		v++;
	}
	sp = v;
	DISPATCH();
}
L_HBUCKET: {
	const struct stat_cfg *cfg;
	const struct stat_agg *st;

	a = FETCH();
	b = FETCH();
	c = FETCH();
	v = b & HIST_KEYED ? sp - 1 - prog->globals[a].nkeys : sp - 1;
	x = sp[-1].l;
	st = stat_of(vm, a, v, &cfg);
	rc = stat_bucket(cfg, st, x, &v->l);
	if (rc < 0) {
		stat_err(vm, rc);
		RAISE(c);
	}
	sp = v + 1;
	DISPATCH();
}
L_PRINTF:
L_SPRINTF: {
	const struct prog_fmt *f;
	struct fmt_arg args[FMT_MAX_ARGS];
	struct fmt_opts o = { 0 };
	bool tostr = pc[-1] == OP_SPRINTF;

	a = FETCH();
	b = FETCH();
	f = &prog->fmts[a];
	v = sp - f->nargs;
	for (i = 0; i < f->nargs; i++)
		args[i] = f->types[i] == FMT_STRING ? fmt_arg_str(v[i].s) :
			  fmt_arg_long(v[i].l);
	if (tostr) {
		fmt_sb_reset(&vm->scratch);
		o.cap = vm->maxstr;
		o.sprint = true;
	}
	o.err = vm->errbuf;
	o.errlen = sizeof(vm->errbuf);
	rc = fmt_run(tostr ? &vm->scratch : &vm->out, f->specs, f->nspecs,
		     args, f->nargs, &o);
	if (rc < 0) {
		vm->err = vm->errbuf[0] ? vm->errbuf : "bad format";
		RAISE(b);
	}
	if (tostr) {
		copy_str(vm, v, fmt_sb_str(&vm->scratch));
		v++;
	}
	sp = v;
	DISPATCH();
}
L_ITER: {
	const struct prog_iter *it;
	int n;

	a = FETCH();
	b = FETCH();
	c = FETCH();
	d = FETCH();
	it = &prog->iters[a];
	n = (d & ITER_LIMIT ? 1 : 0) +
	    __builtin_popcount((unsigned)it->slice_mask);
	sp -= n;
	if (start_iter(vm, it, sp, d) < 0)
		RAISE(-1);
	DISPATCH();
}
L_INEXT:
	a = FETCH();
	b = FETCH();
	c = FETCH();
	pg = &prog->globals[prog->iters[a].global];
	if (!next_iter(vm, sp, c)) {
		pc = code + b;
		DISPATCH();
	}
	sp += pg->nkeys + (c ? 1 : 0);
	DISPATCH();
L_IEND:
	pc++;
	end_iters(vm, vm->niters - 1);
	DISPATCH();
L_TRY: {
	struct vm_try *t;

	a = FETCH();
	b = FETCH();
	if (vm->ntries == vm->tries_cap) {
		vm->tries_cap = vm->tries_cap ? 2 * vm->tries_cap : 8;
		vm->tries = xrealloc(vm->tries, (size_t)vm->tries_cap *
				     sizeof(*vm->tries));
	}
	t = &vm->tries[vm->ntries++];
	t->handler = code + a;
	t->bp = bp;
	t->sp = sp;
	t->catch_slot = b;
	t->frame_depth = vm->depth;
	t->iter_depth = vm->niters;
	DISPATCH();
}
L_TRYEND:
	vm->ntries--;
	DISPATCH();
L_ERROR:
	a = FETCH();
	b = FETCH();
	vm_raise(vm, "%s", prog->strs[a]);
	RAISE(b);
L_NEXT:
L_END:
	goto done;

error:
	if (vm->abort_req) {	/* abort(): not an error, past any try */
		vm->abort_req = false;
		vm->err = NULL;
		goto done;
	}
	if (vm->ntries > 0) {
		struct vm_try *t = &vm->tries[--vm->ntries];

		vm->depth = t->frame_depth;
		end_iters(vm, t->iter_depth);
		bp = t->bp;
		sp = t->sp;
		if (t->catch_slot >= 0)
			copy_str(vm, &bp[t->catch_slot], vm->err);
		vm->err = NULL;
		pc = t->handler;
		DISPATCH();
	}
	if (vm->err_loc >= 0)
		snprintf(vm->msg, sizeof(vm->msg), "%s near %s", vm->err,
			 prog->locs[vm->err_loc].near);
	else
		snprintf(vm->msg, sizeof(vm->msg), "%s", vm->err);
	end_iters(vm, 0);
	vm->probe = NULL;
	return -1;
done:
	end_iters(vm, 0);
	vm->probe = NULL;
	return 0;
}

int vm_global_add(struct vm *vm, int global, const char *key, int64_t delta)
{
	const struct prog_global *pg;
	struct map_entry *e;
	struct map_key k = { 0, key };
	int err;

	if (global < 0 || (size_t)global >= vm->prog->nglobals)
		return -EINVAL;
	pg = &vm->prog->globals[global];
	if (pg->type != AST_T_LONG)
		return -EINVAL;
	if (!pg->nkeys) {
		if (key)
			return -EINVAL;
		vm->g[global].l = (int64_t)((uint64_t)vm->g[global].l + (uint64_t)delta);
		return 0;
	}
	if (!key || pg->nkeys != 1)
		return -EINVAL;
	err = map_slot(vm->g[global].map, &k, &e);
	if (err < 0)
		return err;
	*map_entry_longp(e) = (int64_t)((uint64_t)*map_entry_longp(e) + (uint64_t)delta);
	return 0;
}
