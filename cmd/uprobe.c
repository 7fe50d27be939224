// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe: trace one user-level function entry or return (perf-tools'
 * uprobe), printing each hit ftrace-style with its fetch args, or list the
 * functions of a target.  The definition is resolved by usite_functions()
 * (paths, PIE, IFUNC, `func+off` checked to be on an instruction boundary)
 * and defined in the session's own event group, removed on every exit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/elffile.h"
#include "common/elfsym.h"
#include "common/log.h"
#include "common/opt.h"
#include "tool/probedef.h"
#include "tool/tool.h"
#include "common/usite.h"
#include "tool/probe_tool.h"

struct opts {
	struct trace_opts t;
	const char *list, *filter;
	char *def;			/* the definition, split in place */
	struct probedef pd;
	char *target, *spec;		/* pd.probe split at its last ':' */
};

static const char usage[] =
"Trace a user-level function's entry or return (a uprobe definition).\n"
"\n"
"USAGE: uprobe [-hHsvj] [-d SECS] [-p PID] [-t TID] [-b KB] [-c CMD]\n"
"              'p|r:[NAME ][TARGET:]FUNC[+OFF] [ARGS]' [filter]\n"
"       uprobe -l TARGET\n"
"\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"  -p, --pid PID        only this process (ends when it does); TARGET\n"
"                       defaults to its executable\n"
"  -t, --tid TID        only this thread (-L too)\n"
"  -c, --command CMD    run CMD, trace only its process tree, end when it\n"
"                       exits, with its exit status\n"
"  -H, --headers        print column headers\n"
"  -s, --stacks         print the user stack of each hit (addresses)\n"
"  -v, --verbose        print the event's format (its fields) and exit\n"
"  -l, --list TARGET    list the traceable functions of TARGET\n"
"  -b, --buffer-kb KB   per-CPU ring size\n"
"  -j, --json           JSON Lines: one object per hit\n"
"  -h, --help           this help\n"
"  TARGET               a path, a program in $PATH, or a library (libc)\n"
"  FUNC[+OFF]           a function, an offset into it (on an instruction\n"
"                       boundary), or a link-time address 0x...\n"
"  ARGS                 fetch args in the kernel's syntax (%di, $retval,\n"
"                       +0(%si):string, size=%di:u64)\n"
"  filter               kernel filter on the args, e.g. 'size > 4096'\n"
"\n"
"EXAMPLES:\n"
"  uprobe p:bash:readline             # trace readline() in every bash\n"
"  uprobe 'r:bash:readline +0($retval):string'  # the lines it returns\n"
"  uprobe p:libc:gettimeofday         # every process's gettimeofday()\n"
"  uprobe 'p:libc:malloc size=%di:u64' 'size > 65536'\n"
"  uprobe -p 1182 p:libc:sleep        # only process 1182\n"
"  uprobe p:readline -p 1182          # in its executable\n"
"  uprobe p:/bin/bash:0x48ae40        # at a link-time address\n"
"  uprobe -v 'p:libc:open file=+0(%di):string'  # show the fields\n"
"  uprobe -l libc                     # list libc's functions\n";

static const struct tool_option options[] = {
	TRACE_OPTIONS,
	{ 'l', "list", required_argument, NULL },
	{ 0 },
};

/* A probe `[TARGET:]FUNC`, not a fetch arg (`%di:u64`, `n=+0(%si):string`). */
static bool is_probe(const char *first, const char *tok, void *ctx)
{
	size_t n = strcspn(tok, ":=%$()@\\");

	return tok[n] == ':' && n > 0 && *tok != '+' && *tok != '-';
}

/*
 * definition := ('p' | 'r') ':' [NAME ' '] [TARGET ':'] SPEC [' ' ARGS]
 * (perf-tools' form: the event name is separated by a space)
 */
static void parse_def(struct opts *o, char *def)
{
	char err[512], *tok, *colon;

	if (probedef_parse(def, is_probe, NULL, &o->pd, err, sizeof(err)) < 0)
		usage_error("%s", err);
	tok = o->pd.probe;
	colon = strrchr(tok, ':');
	if (colon) {
		*colon = '\0';
		o->target = tok;
		o->spec = colon + 1;
		if (!*o->target || !*o->spec)
			usage_error("probe must be [TARGET:]FUNC, not '%s:%s'", tok, o->spec);
	} else {
		o->spec = tok;
	}
	if (strpbrk(o->spec, "*?["))
		usage_error("one function, not a pattern: '%s'", o->spec);
	if (!o->target && (o->t.tree || (!o->t.pid && !o->t.tid)))
		usage_error("no target for '%s' (TARGET:FUNC, or -p PID for its executable)",
			    o->spec);
}

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = ((struct probe_tool *)t->ctx)->ctx;

	if (key == 'l')
		o->list = arg;
	else
		trace_option(t, &o->t, key, arg);
}

static int list_functions(struct tool *t);

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct probe_tool *pt = t->ctx;
	struct opts *o = pt->ctx;

	trace_opts_sync(&o->t, t);
	o->t.tree = t->opt.command != NULL;
	if (o->list) {
		if (!*o->list)
			usage_error("-l needs a target (a path, program or library)");
		if (optind < argc)
			usage_error("-l takes a target only, not '%s'", argv[optind]);
		t->list = list_functions;
		return 0;
	}
	trace_opts_def(argc, argv, optind, &o->t,
		       "no uprobe definition given (p:TARGET:FUNC, or -l TARGET)", &o->def, &o->filter);
	parse_def(o, o->def);
	pt->ret = o->pd.ret;
	probe_tool_check(t);
	return 0;
}

/* The event name: the alias, else FUNC (`main+0x4` as main_0x4), else
 * TARGET_ADDR for an address (as perf-tools). */
static char *event_name(const struct opts *o)
{
	const char *base;
	char *addr, *name;

	if (o->pd.alias)
		return xstrdup(o->pd.alias);
	if (strncmp(o->spec, "0x", 2))
		return probedef_event_name(o->spec);
	base = o->target ? strrchr(o->target, '/') : NULL;
	base = base ? base + 1 : o->target ? o->target : "exe";
	addr = xasprintf("%.*s_%s", (int)strcspn(base, "."), base, o->spec);
	name = probedef_event_name(addr);
	free(addr);
	return name;
}

/* Resolve and define the probe in @s (probe_tool's define). */
static struct tp *define(struct probe_tool *pt, struct session *s, enum tp_mode mode)
{
	struct opts *o = pt->ctx;
	struct usite_opts uo = { .pid = o->t.tree ? 0 : o->t.pid ? o->t.pid : o->t.tid };
	struct usite_list l = { 0 };
	struct tp *tp;
	char err[512], *event;

	if (usite_functions(o->target, o->spec, &uo, &l, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return NULL;
	}
	if (l.n != 1) {
		pr_err("%s '%s' in '%s'", l.n ? "more than one function" : "no function",
		       o->spec, o->target ? o->target : "the process's executable");
		usite_list_release(&l);
		return NULL;
	}
	if (!strncmp(o->spec, "0x", 2) && !l.v[0].func)
		pr_warn("address %s is in no known function: not checked to be on an instruction boundary",
			o->spec);
	if (l.v[0].ifunc)
		pr_warn("%s is an IFUNC resolver: tracing the resolver, not its pick",
			o->spec);
	event = event_name(o);
	tp = session_add_uprobe(s, event, l.v[0].path, l.v[0].offset,
				o->pd.args, o->pd.ret, mode, o->filter);
	usite_list_release(&l);
	free(event);
	if (!tp)
		pr_err("%s", session_error(s));
	return tp;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -l: the functions of @name, sorted, each once (perf-tools' uprobe -l). */
static int list(const char *name, pid_t pid)
{
	struct elfsym_list syms = { 0 };
	struct elffile *ef;
	char err[512], *path = NULL, **names;
	size_t i;

	if (usite_open(name, pid, &path, &ef, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return TK_EXIT_RUNTIME;
	}
	if (elfsym_find(ef, "*", &syms, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		elffile_free(ef);
		free(path);
		return TK_EXIT_RUNTIME;
	}
	names = xcalloc(syms.n ? syms.n : 1, sizeof(*names));
	for (i = 0; i < syms.n; i++)
		names[i] = syms.v[i].name;
	qsort(names, syms.n, sizeof(*names), cmp_str);
	for (i = 0; i < syms.n; i++)
		if (i == 0 || strcmp(names[i], names[i - 1]))
			printf("%s\n", esc_str(names[i]));
	free(names);
	elfsym_list_release(&syms);
	elffile_free(ef);
	free(path);
	tool_flush();
	return TK_EXIT_OK;
}

static int list_functions(struct tool *t)
{
	struct opts *o = ((struct probe_tool *)t->ctx)->ctx;

	return list(o->list, o->t.pid ? o->t.pid : o->t.tid);
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct probe_tool pt = {
		.tool = "uprobe", .t = &o.t, .define = define, .ctx = &o,
	};
	struct tool t = {
		.usage = usage, .options = options, .option = option,
		.check = check,
	};

	log_init(argv[0]);
	probe_tool_init(&pt, &t);
	return tool_run(&t, argc, argv);
}
