/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PROV_UPROBE_H
#define TAPKIT_PROV_UPROBE_H

/*
 * The internals of the process(...) provider shared by prov/uprobe.c
 * (points), prov/uprobe_vars.c (target variables, fetch, context) and
 * prov/uprobe_attach.c (run time); prov/layout.c shares the programs'
 * DWARF (uprobe_dwinfo()).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/event.h"
#include "common/fetcharg.h"
#include "lang/fmt_sb.h"
#include "lang/provider.h"

struct session;
struct session_probe;
struct tp;
struct usite_list;

#define UPROBE_STR_MAX 4096

enum usite_kind {
	UK_FUNC,		/* .function, .call, .inline, .exported */
	UK_STMT,		/* .statement */
	UK_MARK,		/* .mark */
};

enum uvar_kind {
	UV_LONG,		/* a number: the field, plus @add */
	UV_STRING,		/* a :string field */
	UV_CONST,		/* a string known at compile time ($$name) */
	UV_PRETTY,		/* $x$, $x$$: text from @fmt over @parts */
};

/* One fetch arg of a pretty value. */
struct upart {
	char *def;		/* "LOC:TYPE" */
	bool str, ptr, is_signed;
	int sbits;		/* a signed bitfield's width, 0: none */
	struct tk_field f;
};

/* One value the probe's handler reads: a fetch arg of its uprobe (or of
 * its entry twin's, for a .return probe's $param). */
struct uvar {
	char *name;		/* what the handler wrote, "x", "arg1" */
	char *def;		/* "LOC:TYPE"; NULL for UV_CONST */
	enum uvar_kind kind;
	bool entry;		/* fetched at the entry, paired per thread */
	int64_t add;
	char *cval;		/* UV_CONST */
	char *ctype;
	struct tk_field f;	/* its field, resolved at attach */
	char *buf;		/* UV_STRING, UV_PRETTY: the last value */
	int sbits;		/* a signed bitfield's width, 0: none */
	char *fmt;		/* UV_PRETTY: "{.a=%1, .b=%2}" */
	struct upart *parts;
	size_t nparts;
	struct strbuf text;	/* UV_PRETTY: where each value is written
				 * (kept: no allocation per event) */
};

/* Saved entry values of one thread, for a .return probe (a stack: the
 * function may recurse). */
struct uframe {
	int tid;
	char **vals;		/* one UPROBE_STR_MAX buffer per string entry
				 * var, kept when the frame is reused */
	int64_t *nums;		/* numbers; for a string, nonzero: faulted */
	struct uframe *next;
};

/* A record of an entry() twin kept until its thread's return (its data
 * copied: the ring's is gone by then). */
struct urec {
	struct tk_event ev;
	void *data;
	size_t cap;
	struct urec *next;
};

struct uprobe {
	enum usite_kind kind;
	char *path;		/* the object the uprobe is in */
	uint64_t offset;	/* file offset of the site */
	uint64_t vaddr;		/* its link-time address */
	uint64_t ref_ctr;	/* USDT semaphore file offset, 0: none */
	char *func;		/* the function it is in, or NULL */
	char *site;		/* "main+0x4", "prov:name", "f.c:12" */
	char *provider;		/* UK_MARK */
	char *mark;
	bool ret;		/* a return probe */
	struct fetcharg *args;	/* params / USDT args at the site */
	size_t nargs;
	/* .return: the site where the params are read (after the prologue) */
	uint64_t eoffset;
	uint64_t evaddr;
	struct fetcharg *eargs;
	size_t neargs;
	const struct prov_probe *ret_probe;	/* entry(): the return probe
						 * it is the entry of */
	struct uvar *v;
	size_t nv;
	struct dwvar *dwvars;	/* what vars() listed last (their strings) */
	size_t ndwvars;
	/* run time */
	struct session *s;
	struct tp *tp, *etp;
	char *ename;		/* its event's name in our group */
	struct uframe *frames;	/* .return: entries waiting for returns */
	struct uframe *cur;	/* the frame of the record being handled */
	struct uframe *spare;	/* frames to reuse */
	struct urec *recs;	/* entry() twin: records waiting, innermost
				 * first */
	struct urec *spare_recs;
	struct prov_probe **twins;	/* a return probe's entry() twins */
	size_t ntwins;
	const struct tk_event *rec;
};

/* What the point asks for, from its components. */
struct upoint {
	const char *proc;	/* process("x"): the path/name; NULL: a PID */
	pid_t pid;
	const char *lib;	/* .library("x") */
	const char *provider;	/* .provider("p") */
	enum usite_kind kind;
	const char *spec;	/* function/statement/mark argument */
	int64_t addr;		/* .statement(ADDR) */
	bool has_addr;
	bool call, ret, inl, exported, nearest, absolute, plt;
};

/* uprobe_sites.c */
struct usite_opts;
int uprobe_find_functions(const char *obj, const struct upoint *u,
			  const struct usite_opts *o, struct usite_list *out,
			  char *err, size_t errlen);
size_t uprobe_add_inlines(const char *obj, const struct upoint *u,
			  struct usite_list *l);
void uprobe_keep_exported(const char *obj, const struct upoint *u,
			  struct usite_list *l);
int uprobe_find_statements(const char *obj, const struct upoint *u,
			   const struct usite_opts *o, struct usite_list *out,
			   char *err, size_t errlen);

bool uprobe_insn_ok(const char *path, uint64_t offset);

/* uprobe_vars.c */
int uprobe_find_var(const struct uprobe *d, const char *name);
struct uvar *uprobe_add_var(struct uprobe *d, const char *name);
void uprobe_fill_var(const struct uprobe *d, int idx, struct prov_var *out);
/* The number of var @v (sign-extended bitfields, @add) in @ev. */
int64_t uprobe_var_long(const struct uvar *v, const struct tk_event *ev);

/* uprobe_dwarf.c */
struct dwinfo;
struct dwinfo *uprobe_dwinfo(const char *path);
int uprobe_dw_target(struct prov_probe *p, const struct prov_target *t,
		     struct prov_var *out, char *err, size_t errlen);
int uprobe_dw_vars(const struct prov_probe *p, struct prov_var *out, size_t max,
		   size_t *n);
const char *uprobe_pretty(struct uvar *v, const struct tk_event *ev);
size_t uprobe_vars(const struct prov_probe *p, struct prov_var *out, size_t max);
int uprobe_var(const struct prov_probe *p, const char *name, struct prov_var *out);
int uprobe_target(struct prov_probe *p, const struct prov_target *t,
		  struct prov_var *out, char *err, size_t errlen);
int uprobe_deref(struct prov_probe *p, const struct prov_var *var, int64_t off,
		 enum prov_mem kind, const char *fn, struct prov_var *out);
int uprobe_fetch(const struct prov_probe *p, void *ev, int idx, int64_t sub,
		 struct lang_val *out);
int uprobe_context(const struct prov_probe *p, void *ev, enum prov_ctx what,
		   struct lang_val *out);
/* " v0=LOC:TYPE v1=..." of the vars fetched at the entry (@entry) or at
 * the site; "" when none.  The caller frees it. */
char *uprobe_fetch_args(const struct uprobe *u, bool entry);

/* uprobe_merge.c: the strings of merged definitions */
struct umerge {
	char **strs;
	size_t nstrs;
};
struct umerge *uprobe_merge(struct session_probe *v, size_t n,
			    const bool *entry, unsigned *seq, size_t *order,
			    int *site);
void uprobe_merge_free(struct umerge *m);
void uprobe_vars_free(struct uprobe *u);

/* uprobe_plt.c: the PLT entries of @obj whose function matches @glob,
 * as sites named "name@plt"; 0 or -errno with @err said. */
int uprobe_plt_sites(const char *obj, pid_t pid, const char *glob,
		     struct usite_list *out, char *err, size_t errlen);

/* uprobe_attach.c */
int uprobe_attach(struct run *run, struct prov_probe *const *probes, size_t n,
		  void **state);
void uprobe_phase(struct run *run, void *state, enum prov_phase ph);
void uprobe_sync(struct run *run, void *state);
void uprobe_detach(struct run *run, void *state);
int uprobe_stack(const struct prov_probe *p, void *ev, const uint64_t **pcs,
		 size_t *nk, size_t *nu);

#endif
