// SPDX-License-Identifier: GPL-2.0
/*
 * tapkit: run a SystemTap script in userspace.  The command line follows
 * stap's letters (-e, -c, -x, -o, -T, -D, -p, -l, -L, -I, -v); the run is
 * the tool_run() skeleton's, with the script's begin and end probes as its
 * phase hooks.  The passes are the script engine's (lang/), this file only
 * wires them and prints what -pN asks.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "common/escape.h"
#include "common/httpd.h"
#include "common/kconfig.h"
#include "common/log.h"
#include "common/outfile.h"
#include "common/target.h"
#include "common/opt.h"
#include "common/privlib.h"
#include "lang/ast.h"
#include "lang/diag.h"
#include "lang/elab.h"
#include "prov/layout.h"
#include "prov/prov.h"
#include "lang/gen.h"
#include "lang/parse.h"
#include "lang/pp.h"
#include "lang/run.h"
#include "tool/tool.h"
#include "tool/top.h"
#include "tracefs/session.h"

#define TAPKIT_VERSION "0.1"
#define MAX_DIRS 32

struct opts {
	const char *script;	/* -e text */
	const char *file;	/* or a file ("-": stdin) */
	const char *out;
	const char *list;	/* -l / -L pattern */
	bool list_vars;
	pid_t target;
	int pass;		/* 1..5 */
	bool dry_run;
	long bufsize_mb;	/* -s NUM: per-CPU ring size, 0: the kernel's */
	bool cleanup;
	const char *dirs[MAX_DIRS + 2];
	int ndirs;
	struct vm_limits lim;
	long maxerrors;
	struct gen_opts gen;
	char **argv;		/* script arguments */
	int argc;
	int top;		/* --top*: TOP_SCREEN, TOP_TEXT, TOP_JSON */
	const char *top_view;	/* --top-view: the array shown first */
	const char *top_drill[MAP_MAX_KEYS];	/* --top-drill: its keys fixed */
	int ntop_drill;
	const char *top_sort;	/* --top-sort: a column's title */
	struct top_display disp; /* --top-interval, --top-iterations */
	const char *prometheus;	/* --prometheus [ADDR:]PORT */
};

enum { TOP_SCREEN = 1, TOP_TEXT, TOP_JSON };

static const char usage[] =
"Run a SystemTap script in userspace: probes compiled to bytecode.\n"
"\n"
"USAGE: tapkit [-v] [-p NUM] [-o FILE] [-c CMD | -x PID] [-T SECS]\n"
"              [-s MB] [-D NAME=VALUE] [-I DIR] SCRIPT.stp|- [ARGS...]\n"
"       tapkit [options] -e 'SCRIPT' [ARGS...]\n"
"       tapkit -l PATTERN | -L PATTERN\n"
"\n"
"  -e SCRIPT         run the script given on the command line\n"
"  -                 (as SCRIPT.stp) read the script from standard input\n"
"  -o FILE           write the script's output to FILE\n"
"  -c, --command CMD run CMD once probes are attached (its words run\n"
"                    directly, else via /bin/sh -c); target() is its PID;\n"
"                    the run ends when it exits (exit status 0)\n"
"  -x PID            target() is PID; the run ends when it exits\n"
"  -T SECS           end the run after SECS seconds (end probes run)\n"
"  -s MB             per-CPU ring buffer size in MiB (default: the\n"
"                    kernel's, ~1.4); more holds longer bursts, at the\n"
"                    cost of an RCU grace period at start\n"
"  -D NAME=VALUE     a limit: MAXACTION, MAXNESTING, MAXSTRINGLEN,\n"
"                    MAXMAPENTRIES, MAXERRORS, STP_MAXMEMORY (KiB)...\n"
"  -I DIR            also look for tapsets in DIR\n"
"  -g                (stap's guru mode) refused: tapkit runs no embedded C\n"
"                    and never writes to the traced system\n"
"  -p NUM            stop after pass NUM: 1 parse tree, 2 elaborated\n"
"                    probes, 3 bytecode and tracefs definitions,\n"
"                    4 everything but attaching\n"
"  -l PATTERN        list the probe points matching PATTERN\n"
"  -L PATTERN        the same, with their variables\n"
"  -v, --verbose     say what each pass did (repeat for more)\n"
"      --dry-run     print the tracefs writes as a shell script, and exit\n"
"      --cleanup     remove what dead tapkit sessions left in tracefs\n"
"      --prometheus [ADDR:]PORT  serve the script's prometheus probe\n"
"                    over HTTP at /metrics, for a Prometheus to scrape\n"
"                    (no ADDR: every address)\n"
"      --top         show the script's global arrays live, as tracetop\n"
"                    does (v: another array, Enter/Backspace: drill by\n"
"                    the first key and back, q: quit); the script's own\n"
"                    output is held and written when the screen closes\n"
"      --top-batch   the same as text every interval, no terminal needed;\n"
"                    the script's own output goes to stderr (or -o FILE)\n"
"      --top-json    the same as JSON Lines\n"
"      --top-view ARRAY     show this array first\n"
"      --top-drill KEY      drilled into its first key KEY (again: the next)\n"
"      --top-sort COLUMN    sort by this column (its title)\n"
"      --top-reverse        sort ascending\n"
"      --top-rows N         batch: print at most N rows per interval\n"
"      --top-interval MS    refresh every MS milliseconds (1000)\n"
"      --top-iterations N   stop after N intervals (0: until the run ends)\n"
"  -V, --version     print the version\n"
"  -h, --help        this help\n"
"\n"
"EXAMPLES:\n"
"  tapkit -e 'probe begin { println(\"hello\"); exit() }'\n"
"  tapkit -e 'probe timer.s(1) { printf(\"%d\\n\", gettimeofday_s()) }' -T 3\n"
"  tapkit -e 'global n; probe timer.ms(10) { n++ } probe end { print(n) }' -T 1\n"
"  tapkit -c 'sleep 1' -e 'probe begin { printf(\"%d\\n\", target()) }'\n"
"  tapkit -D MAXACTION=100000 script.stp arg1 arg2\n"
"  echo 'probe begin { println(\"hi\"); exit() }' | tapkit -\n"
"  tapkit -s 8 busy.stp               # 8 MiB rings for a high event rate\n"
"  tapkit -p2 script.stp              # show the probes and their mechanism\n"
"  tapkit -l 'timer.*'                # list matching probe points\n"
"  tapkit -e 'global c; probe syscall.* { c[name]++ }' -T 5   # syscalls by name\n"
"  tapkit -e 'probe kernel.trace(\"signal:signal_generate\") { if ($sig == 9) println($comm) }'\n"
"  tapkit -e 'probe kernel.trace(\"syscalls:sys_enter_openat\") { println(user_string($filename)) }'\n"
"  tapkit -L 'signal.send'            # an alias's variables and the fields behind it\n"
"  tapkit functime.stp ./prog handle -c ./prog   # time each call of handle()\n"
"  tapkit -e 'probe process(\"./prog\").function(\"f\").return { println($p->name$, $return) }'\n"
"  tapkit -L 'process(\"./prog\").function(\"*\")'   # functions, variables, C types\n"
"  tapkit -e 'probe kernel.function(\"do_sys_openat2\") { println(user_string($filename)) }'\n"
"  tapkit -e 'global s; probe timer.profile { s[ubacktrace()]++ }' -T 5   # user stacks\n"
"  tapkit --top -e 'global c; probe syscall.* { c[execname(), name]++ }'\n"
"  tapkit --top-json --top-iterations 3 script.stp   # 3 tables as JSON\n"
"  tapkit --prometheus 9800 -e 'global c; probe syscall_any { c[name]++ }\n"
"      probe prometheus { @prometheus_dump_array1(c, \"syscalls\", \"name\") }'\n";

enum { OPT_DRY_RUN = 256, OPT_CLEANUP, OPT_TOP, OPT_TOP_BATCH, OPT_TOP_JSON,
       OPT_TOP_VIEW, OPT_TOP_DRILL, OPT_TOP_SORT, OPT_TOP_REVERSE, OPT_TOP_ROWS,
       OPT_TOP_INTERVAL, OPT_TOP_ITERATIONS, OPT_PROMETHEUS };

/* SystemTap's letters: -p is a pass, -x a target, -T a time limit */
static const struct tool_option options[] = {
	{ 'e', NULL, required_argument, NULL },
	{ 'o', NULL, required_argument, NULL },
	{ 'x', NULL, required_argument, NULL },
	{ 'T', NULL, required_argument, NULL },
	{ 's', NULL, required_argument, NULL },
	{ 'D', NULL, required_argument, NULL },
	{ 'I', NULL, required_argument, NULL },
	{ 'g', NULL, no_argument, NULL },
	{ 'p', NULL, required_argument, NULL },
	{ 'l', NULL, required_argument, NULL },
	{ 'L', NULL, required_argument, NULL },
	{ 'V', "version", no_argument, NULL },
	{ OPT_DRY_RUN, "dry-run", no_argument, NULL },
	{ OPT_CLEANUP, "cleanup", no_argument, NULL },
	{ OPT_TOP, "top", no_argument, NULL },
	{ OPT_TOP_BATCH, "top-batch", no_argument, NULL },
	{ OPT_TOP_JSON, "top-json", no_argument, NULL },
	{ OPT_TOP_VIEW, "top-view", required_argument, NULL },
	{ OPT_TOP_DRILL, "top-drill", required_argument, NULL },
	{ OPT_TOP_SORT, "top-sort", required_argument, NULL },
	{ OPT_TOP_REVERSE, "top-reverse", no_argument, NULL },
	{ OPT_TOP_ROWS, "top-rows", required_argument, NULL },
	{ OPT_TOP_INTERVAL, "top-interval", required_argument, NULL },
	{ OPT_TOP_ITERATIONS, "top-iterations", required_argument, NULL },
	{ OPT_PROMETHEUS, "prometheus", required_argument, NULL },
	{ 0 },
};

/* -D NAME[=VALUE]: the limits tapkit knows; others are accepted, as stap
 * passes any -D to the C compiler */
static void define(struct opts *o, const char *arg)
{
	static const struct {
		const char *name;
		long min, max;
	} known[] = {
		{ "MAXACTION", 1, LONG_MAX }, { "MAXNESTING", 0, 10000 },
		{ "MAXSTRINGLEN", 2, 1 << 20 }, { "MAXMAPENTRIES", 1, 1 << 30 },
		{ "MAXERRORS", 0, LONG_MAX }, { "STP_MAXMEMORY", 1, LONG_MAX / 1024 },
		{ "HIST_WIDTH", 1, 1000 }, { "HIST_ELISION", -1, 1000 },
	};
	char name[64], opt[80];
	const char *eq = strchr(arg, '=');
	size_t i, len = eq ? (size_t)(eq - arg) : strlen(arg);
	long v;

	if (!len || len >= sizeof(name))
		usage_error("-D needs NAME=VALUE, not '%s'", arg);
	memcpy(name, arg, len);
	name[len] = '\0';
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strcmp(name, known[i].name))
			continue;
		snprintf(opt, sizeof(opt), "-D %s", name);
		if (!eq)
			usage_error("-D %s needs a value", name);
		v = opt_num(opt, eq + 1, known[i].min, known[i].max);
		switch (i) {
		case 0: o->lim.maxaction = v; break;
		case 1: o->lim.maxnesting = (int)v; break;
		case 2: o->lim.maxstrlen = (size_t)v; break;
		case 3: o->lim.maxmapentries = (size_t)v; break;
		case 4: o->maxerrors = v; break;
		case 5: o->lim.maxmemory = (size_t)v * 1024; break;
		case 6: o->gen.hist_width = (int)v; break;
		case 7: o->gen.hist_elision = v < 0 ? -1 : (int)v; break;
		}
		return;
	}
	if (tk_verbose)
		pr_info("-D %s: not a limit tapkit knows, ignored", name);
}

/* The tapset directory of the source tree (build/bin/../../scripts/tapset)
 * or of an installation (PREFIX/sbin/../share/tapkit/tapset). */
static void default_dirs(struct opts *o)
{
	static char src[PATH_MAX], inst[PATH_MAX];
	char exe[PATH_MAX];
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *dir;

	if (n <= 0)
		return;
	exe[n] = '\0';
	dir = dirname(exe);
	snprintf(src, sizeof(src), "%s/../../scripts/tapset", dir);
	snprintf(inst, sizeof(inst), "%s/../share/tapkit/tapset", dir);
	if (!stat(src, &st) && S_ISDIR(st.st_mode))
		o->dirs[o->ndirs++] = src;
	else
		o->dirs[o->ndirs++] = inst;
}

static void option(struct tool *t, int c, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct tapkit */

	switch (c) {
	case 'e': o->script = arg; break;
	case 'o': o->out = arg; break;
	case 'x': o->target = opt_num("-x", arg, 1, 1 << 30); break;
	case 'T': t->opt.duration = opt_num("-T", arg, 1, 86400L * 365); break;
	case 's': o->bufsize_mb = opt_num("-s", arg, 1, 4096); break;
	case 'D': define(o, arg); break;
	case 'I':
		if (o->ndirs == MAX_DIRS)
			usage_error("too many -I directories");
		o->dirs[o->ndirs++] = arg;
		break;
	case 'g':
		usage_error("-g (guru mode) is not supported: tapkit runs no "
			    "embedded C and never writes to the traced system");
		break;
	case 'p': o->pass = (int)opt_num("-p", arg, 1, 5); break;
	case 'l': case 'L':
		o->list = arg;
		o->list_vars = c == 'L';
		break;
	case 'V':
		printf("tapkit %s (SystemTap language, userspace "
		       "bytecode)\n", TAPKIT_VERSION);
		exit(TK_EXIT_OK);
	case OPT_DRY_RUN: o->dry_run = true; break;
	case OPT_CLEANUP: o->cleanup = true; break;
	case OPT_TOP: o->top = TOP_SCREEN; break;
	case OPT_TOP_BATCH: o->top = TOP_TEXT; break;
	case OPT_TOP_JSON: o->top = TOP_JSON; break;
	case OPT_TOP_VIEW: o->top_view = arg; break;
	case OPT_TOP_DRILL:
		if (o->ntop_drill == MAP_MAX_KEYS)
			usage_error("too many --top-drill keys");
		o->top_drill[o->ntop_drill++] = arg;
		break;
	case OPT_TOP_SORT: o->top_sort = arg; break;
	case OPT_TOP_REVERSE: o->disp.ascending = true; break;
	case OPT_TOP_ROWS:
		o->disp.rows = (int)opt_num("--top-rows", arg, 1, 1 << 20);
		break;
	case OPT_TOP_INTERVAL:
		o->disp.interval_ms = (uint64_t)opt_num("--top-interval", arg,
							10, 3600 * 1000);
		break;
	case OPT_TOP_ITERATIONS:
		o->disp.count = opt_num("--top-iterations", arg, 0, LONG_MAX);
		break;
	case OPT_PROMETHEUS:
		if (!httpd_addr_valid(arg))
			usage_error("--prometheus: '%s' is not [ADDR:]PORT", arg);
		o->prometheus = arg;
		break;
	}
}

/* The operands: SCRIPT.stp (unless -e) and its arguments. */
static void operands(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	if (o->cleanup || o->list) {
		if (optind < argc)
			usage_error("unexpected argument '%s'", argv[optind]);
		return;
	}
	if (!o->script) {
		if (optind >= argc)
			usage_error("no script given (a file, or -e 'SCRIPT')");
		o->file = argv[optind++];
	}
	if (t->opt.command && o->target)
		usage_error("-c and -x cannot be used together");
	if (!o->top && (o->top_view || o->ntop_drill || o->top_sort ||
			o->disp.ascending ||
			o->disp.rows || o->disp.interval_ms || o->disp.count))
		usage_error("the --top-* options go with --top, --top-batch "
			    "or --top-json");
	o->argv = argv + optind;
	o->argc = argc - optind;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static const char *probe_name(const struct elab_probe *p)
{
	return p->alias ? p->alias : p->pp->pp;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(probe_name(*(struct elab_probe *const *)a),
		      probe_name(*(struct elab_probe *const *)b));
}

/* -l/-L: "probe PATTERN {}" elaborated in listing mode. */
static int list_probes(struct opts *o, struct diag *d,
		       const struct lex_config *lc)
{
	struct ast_script *s = ast_script_new();
	struct elab_opts eo = { .tapset_dirs = o->dirs, .lex = lc,
				.providers = prov_all, .layout = prov_layout,
				.listing = true, .listing_vars = o->list_vars };
	char *text = xasprintf("probe %s {}", o->list);
	struct elab *e = NULL;
	struct elab_probe **order;
	size_t i, j, nl, n = 0;
	int rc = TK_EXIT_RUNTIME;

	if (parse_text(s, d, "<pattern>", text, strlen(text), lc, 0) == 0)
		e = elab_new(s, d, &eo);
	if (diag_errors(d)) {
		diag_print(d, stderr);
		goto out;
	}
	/* as stap: sorted, each point once */
	order = xcalloc(e->probes.n + 1, sizeof(*order));
	for (i = nl = 0; i < e->probes.n; i++)
		if (!e->probes.v[i]->entry)	/* @entry's, for a .return */
			order[nl++] = e->probes.v[i];
	qsort(order, nl, sizeof(*order), by_name);
	for (i = 0; i < nl; i++) {
		const struct elab_probe *ep = order[i];
		const struct prov_probe *p = ep->pp;
		const char *name = probe_name(ep);

		if (i && !strcmp(probe_name(order[i - 1]), name))
			continue;
		n++;
		esc_fputs(name, stdout);	/* names from ELF, DWARF, USDT notes */
		/* as stap -L: an alias's variables, then the target's */
		for (j = 0; o->list_vars && ep->alias && j < ep->nlocals; j++)
			printf(" %s:%s", ep->locals[j]->name,
			       ast_type_str(ep->locals[j]->type));
		if (o->list_vars && p->prov->vars) {
			struct prov_var v[128];
			size_t k, nv = p->prov->vars(p, v, 128);

			/* the C type where the provider knows it, as stap */
			for (k = 0; k < nv && k < 128; k++)
				printf(" $%s:%s", esc_str(v[k].name),
				       v[k].ctype ? esc_str(v[k].ctype) :
				       v[k].type == AST_T_STRING ? "string" :
				       v[k].array > 0 ? "char[]" : "long");
		}
		putchar('\n');
	}
	free(order);
	rc = n ? TK_EXIT_OK : TK_EXIT_RUNTIME;
out:
	elab_free(e);
	ast_script_free(s);
	free(text);
	return rc;
}

static void print_plans(const struct prog *p, FILE *f)
{
	size_t i;

	for (i = 0; i < p->nprobes; i++) {
		const struct prov_probe *pp = p->probes[i].pp;

		if (p->probes[i].synthetic)
			continue;
		if (pp->prov->describe)
			pp->prov->describe(pp, true, f);
	}
}

/* The plans; a script that writes to tracefs gets an instance of its own. */
static void print_dry_run(const struct prog *prog, bool script, long buffer_kb,
			  pid_t target)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		print_plans(prog, stdout);
		return;
	}
	print_plans(prog, f);
	fclose(f);
	if (script && strstr(buf, "$T/"))
		fputs("T=${T:-/sys/kernel/tracing/instances/tapkit_dryrun_$$}\n"
		      "mkdir -p \"$T\"\n", stdout);
	if (script && strstr(buf, "$T/") && buffer_kb)
		printf("echo %ld > \"$T/buffer_size_kb\"\n", buffer_kb);
	/* probes limited to target()'s process or thread */
	if (script && strstr(buf, "$TARGET") && target)
		printf("TARGET=${TARGET:-%d}\n", (int)target);
	else if (script && strstr(buf, "$TARGET"))
		fputs("TARGET=${TARGET:?the PID of the -c command, held before it runs}\n",
		      stdout);
	/* the group of the dynamic events (event probes) */
	if (script && strstr(buf, "$G/"))
		fputs("G=${G:-tapkit_dryrun_$$}\n", stdout);
	fputs(buf, stdout);
	if (script && strstr(buf, "$T/"))
		fputs("# records: \"$T\"/per_cpu/cpu*/trace_pipe_raw; "
		      "to undo: rmdir \"$T\"\n", stdout);
	free(buf);
}

/* The run's state: the compiled program and the VM's run (lang/run.h). */
struct tapkit {
	struct opts o;
	struct utsname un;		/* what lc points into */
	struct lex_config lc;
	struct kconfig *kc;		/* read at the first %( CONFIG_X %) */
	const struct diag_file **libs;	/* the tapsets' .stpm macro files */
	struct diag *d;
	struct ast_script *s;
	struct elab *e;
	struct prog *prog;
	struct run_opts ro;
	struct run *r;
	/* --top */
	struct loop *loop;
	struct run_view *view;
	struct top_model model;
	char (*help)[96];		/* the arrays' lines in the view menu */
	FILE *held;			/* the script's output under the screen */
};

/*
 * The program a bare process.function("f") means: -c's first word through
 * $PATH, or -x's executable; NULL when neither (the provider then says
 * what is missing).  The caller frees it.
 */
static char *target_exe(const char *command, pid_t pid)
{
	char *path = NULL, *word, err[256];
	size_t n;

	if (pid) {
		char link[64], buf[4096];
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
		len = readlink(link, buf, sizeof(buf) - 1);
		if (len <= 0)
			return NULL;
		buf[len] = '\0';
		return xstrdup(buf);
	}
	if (!command)
		return NULL;
	command += strspn(command, " \t");
	n = strcspn(command, " \t");
	if (!n)
		return NULL;
	word = xasprintf("%.*s", (int)n, command);
	if (target_resolve(word, 0, &path, err, sizeof(err)) < 0)
		path = NULL;
	free(word);
	return path;
}

/* The tapsets' macro libraries, registered in this compile's diag. */
static void load_macro_libs(struct tapkit *tk)
{
	free(tk->libs);
	tk->lc.nmacro_libs = pp_macro_libs(tk->d, tk->o.dirs, &tk->libs);
	tk->lc.macro_libs = tk->libs;
}

/*
 * Passes 1 to 4 (or up to the run): what -pN and --dry-run ask is printed
 * here.  TK_EXIT_OK with tk->prog set when the run is next.
 */
static int compile_passes(struct tapkit *tk, const struct tool *t,
			  const struct elab_opts *eop)
{
	struct opts *o = &tk->o;
	const struct elab_opts eo = *eop;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	load_macro_libs(tk);
	tk->s = ast_script_new();
	if (o->script)
		parse_text(tk->s, tk->d, "<input>", o->script, strlen(o->script), &tk->lc, 0);
	else
		parse_file(tk->s, tk->d, o->file, &tk->lc, 0);
	if (diag_errors(tk->d))
		goto fail;
	if (tk_verbose)
		fprintf(stderr, "Pass 1: parsed user script in %.1f ms.\n",
			ms_since(&t0));
	if (o->pass == 1) {
		ast_print(stdout, tk->s);
		return TK_EXIT_OK;
	}
	tk->e = elab_new(tk->s, tk->d, &eo);
	if (diag_errors(tk->d))
		goto fail;
	diag_print(tk->d, stderr);		/* warnings */
	if (tk_verbose)
		fprintf(stderr, "Pass 2: analyzed script: %zu probe(s), %zu "
			"function(s), %zu global(s) in %.1f ms.\n", tk->e->probes.n,
			tk->e->funcs.n, tk->e->globals.n, ms_since(&t0));
	if (o->pass == 2) {
		elab_print(tk->e, stdout);
		return TK_EXIT_OK;
	}
	tk->prog = gen_program(tk->e, &o->gen, tk->d);
	if (!tk->prog)
		goto fail;
	if (tk_verbose)
		fprintf(stderr, "Pass 3: generated %zu words of bytecode in "
			"%.1f ms.\n", tk->prog->ncode, ms_since(&t0));
	if (o->pass == 3 || o->dry_run) {
		if (o->pass == 3)
			gen_disasm(tk->prog, stdout);
		else
			fputs("#!/bin/sh\n# tapkit --dry-run: what this script "
			      "would write to tracefs\n", stdout);
		print_dry_run(tk->prog, o->dry_run, o->bufsize_mb * 1024, o->target);
	}
	return TK_EXIT_OK;
fail:
	diag_print(tk->d, stderr);
	return TK_EXIT_RUNTIME;
}

static int compile(struct tapkit *tk, const struct tool *t)
{
	struct opts *o = &tk->o;
	struct elab_opts eo = { .tapset_dirs = o->dirs, .lex = &tk->lc,
				.providers = prov_all, .layout = prov_layout,
				.no_display = o->pass && o->pass < 5 &&
					      o->pass != 4,
				.has_target = t->opt.command || o->target,
				.target_pid = o->target };
	char *exe = target_exe(t->opt.command, o->target);
	int rc;

	eo.target_exe = exe;
	rc = compile_passes(tk, t, &eo);
	free(exe);
	return rc;
}

/* %( CONFIG_X ... %): the running kernel's configuration */
static const char *kconfig_value(void *ctx, const char *name, const char **err)
{
	struct tapkit *tk = ctx;
	static char why[600];

	if (!tk->kc)
		tk->kc = kconfig_new(tk->un.release);
	if (!kconfig_source(tk->kc)) {
		if (getenv("TAPKIT_KCONFIG") && *getenv("TAPKIT_KCONFIG"))
			snprintf(why, sizeof(why), "cannot read $TAPKIT_KCONFIG "
				 "'%.400s'", getenv("TAPKIT_KCONFIG"));
		else
			snprintf(why, sizeof(why), "the kernel's configuration "
				 "is in neither /proc/config.gz nor "
				 "/boot/config-%.100s", tk->un.release);
		*err = why;
		return NULL;
	}
	return kconfig_get(tk->kc, name);
}

static void release(struct tapkit *tk)
{
	kconfig_free(tk->kc);
	tk->kc = NULL;
	free(tk->libs);
	tk->libs = NULL;
	tk->lc.macro_libs = NULL;
	tk->lc.nmacro_libs = 0;
	gen_free(tk->prog);
	elab_free(tk->e);
	ast_script_free(tk->s);
	diag_free(tk->d);
	tk->prog = NULL;
	tk->e = NULL;
	tk->s = NULL;
	tk->d = NULL;
}

/* --- --top: the script's arrays as tracetop's model (tool/top.h) --- */

static struct agtable *m_table(void *c)
{
	return run_view_table(((struct tapkit *)c)->view);
}

static const char *m_path(void *c, char *buf, size_t len)
{
	return run_view_path(((struct tapkit *)c)->view, buf, len);
}

static int m_sort_col(void *c)
{
	return run_view_sort_col(((struct tapkit *)c)->view);
}

static void m_stats(void *c, struct top_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->events = run_view_events(((struct tapkit *)c)->view,
				     &st->interval_ns);
	if (st->interval_ns)
		st->events_per_sec = (double)st->events * 1e9 /
				     (double)st->interval_ns;
}

static bool m_view_at(void *c, size_t i, const char **name, const char **help)
{
	struct tapkit *tk = c;
	const struct run_array *a = run_view_array(tk->view, i);

	if (!a)
		return false;
	*name = a->name;
	*help = run_array_desc(a, tk->help[i], sizeof(tk->help[i]));
	return true;
}

static int m_open(void *c, const char *name, char *err, size_t errlen)
{
	return run_view_open(((struct tapkit *)c)->view, name, err, errlen);
}

static int m_drill(void *c, const struct agt_row *r, char *err, size_t errlen)
{
	return run_view_drill(((struct tapkit *)c)->view, r, err, errlen);
}

static int m_back(void *c, char *err, size_t errlen)
{
	return run_view_back(((struct tapkit *)c)->view, err, errlen);
}

static void m_tick(void *c, uint64_t elapsed_ns)
{
	struct tapkit *tk = c;

	run_view_tick(tk->view, elapsed_ns);
}

/* After the begin probes: the view of the arrays, on the screen or
 * printed every interval. */
static int top_start(struct tapkit *tk)
{
	struct opts *o = &tk->o;
	char err[256];
	int i;

	tk->view = run_view_new(tk->r, tk->e, o->top_view, err, sizeof(err));
	if (!tk->view) {
		pr_err("--top: %s", err);
		return -1;
	}
	for (i = 0; i < o->ntop_drill; i++)
		if (run_view_drill_key(tk->view, o->top_drill[i], err,
				       sizeof(err)) < 0) {
			pr_err("--top-drill: %s", err);
			return -1;
		}
	tk->help = xcalloc(run_view_count(tk->view), sizeof(*tk->help));
	tk->model = (struct top_model){
		.ctx = tk, .table = m_table, .path = m_path,
		.sort_col = m_sort_col, .stats = m_stats, .view_at = m_view_at,
		.open = m_open, .drill = m_drill, .back = m_back,
		.tick = m_tick,
	};
	if (o->top != TOP_SCREEN)
		return top_batch_start(&tk->model, &o->disp, tk->loop) < 0 ? -1 : 0;
	if (top_ui_start(&tk->model, &o->disp, tk->loop, err, sizeof(err)) < 0) {
		pr_err("--top: %s", err);
		return -1;
	}
	return 0;
}

/*
 * The run ends: the screen gives the terminal back before the end probes
 * print (the display of the globals, as stap's exit).  Batch modes print
 * the arrays once more, complete, unless their last interval just did.
 */
static void top_end(struct tapkit *tk)
{
	struct opts *o = &tk->o;

	if (!tk->view)
		return;
	if (o->top == TOP_SCREEN) {
		top_ui_end();
		return;
	}
	run_drain(tk->r);
	top_batch_end();
}

/* --top's checks, before anything is attached: arrays to show, a terminal
 * for the screen, where the script's own output goes. */
static int top_check(struct tapkit *tk)
{
	struct opts *o = &tk->o;
	char err[256];

	if (run_view_check(tk->prog, tk->e, o->top_view, o->ntop_drill,
			   o->top_sort, &o->disp.sort_col, err, sizeof(err)) < 0) {
		pr_err("--top: %s", err);
		return -1;
	}
	if (o->top == TOP_SCREEN && (!isatty(0) || !isatty(1))) {
		pr_err("--top: the screen needs a terminal; --top-batch and "
		       "--top-json print without one");
		return -1;
	}
	o->disp.json = o->top == TOP_JSON;
	o->disp.mode = AGT_CUMULATIVE;
	if (!o->disp.interval_ms)
		o->disp.interval_ms = 1000;
	if (o->out)
		return 0;
	if (o->top != TOP_SCREEN) {
		tk->ro.out = stderr;
		return 0;
	}
	tk->held = tmpfile();
	if (!tk->held) {
		pr_err("--top: cannot hold the script's output: %s", strerror(errno));
		return -1;
	}
	tk->ro.out = tk->held;
	return 0;
}

/* The script's output held under the screen, now on stdout. */
static void top_release_output(struct tapkit *tk)
{
	char buf[65536];
	size_t n;

	if (!tk->held)
		return;
	fflush(tk->held);
	rewind(tk->held);
	while ((n = fread(buf, 1, sizeof(buf), tk->held)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			break;
	fclose(tk->held);
	tk->held = NULL;
	tk->ro.out = NULL;
	tool_flush();
}

/* --- the modes with no run: --cleanup, -l/-L, -p1..-p4, --dry-run --- */

static int cleanup_mode(struct tool *t)
{
	int n = session_cleanup_stale(), files = procfs_cleanup_stale();

	if (n < 0) {
		pr_err("cannot clean up stale sessions: %s", strerror(-n));
		return TK_EXIT_RUNTIME;
	}
	if (files < 0) {
		pr_err("cannot clean up /run/tapkit: %s", strerror(-files));
		return TK_EXIT_RUNTIME;
	}
	if (tk_verbose)
		fprintf(stderr, "removed %d stale session(s), %d directory(ies) "
			"of procfs files\n", n, files);
	return TK_EXIT_OK;
}

static int list_mode(struct tool *t)
{
	struct tapkit *tk = t->ctx;
	int rc;

	load_macro_libs(tk);
	rc = list_probes(&tk->o, tk->d, &tk->lc);

	release(tk);
	return rc;
}

static int passes_mode(struct tool *t)
{
	struct tapkit *tk = t->ctx;
	int rc = compile(tk, t);

	release(tk);
	return rc;
}

/* --- the run: the skeleton's setup, begin, end and teardown --- */

/* Whether @prog has the probe --prometheus serves. */
static bool has_prometheus(const struct prog *prog)
{
	size_t i;

	for (i = 0; i < prog->nprobes; i++)
		if (procfs_is_prometheus(prog->probes[i].pp))
			return true;
	return false;
}

static char **main_argv;

/*
 * Probes in a library this process runs on (the C library) would trap on
 * the reader's own calls: start again on private copies of those (nothing
 * is attached or spawned yet).  A script read from stdin cannot be read
 * twice; it runs on the shared copies.
 */
static int private_libs(struct tapkit *tk)
{
	const struct prog *prog = tk->prog;
	const char **paths = xcalloc(prog->nprobes + 1, sizeof(*paths));
	char err[512];
	size_t i, n = 0;
	int ret = 0;

	if (!tk->o.script && tk->o.file && !strcmp(tk->o.file, "-"))
		goto out;
	for (i = 0; i < prog->nprobes; i++) {
		const struct prov_probe *pp = prog->probes[i].pp;

		if (pp->prov->object)
			paths[n++] = pp->prov->object(pp);
	}
	if (n && (ret = privlib_reexec(paths, n, main_argv, err, sizeof(err))) < 0)
		pr_err("%s", err);
out:
	free(paths);
	return ret;
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct tapkit *tk = t->ctx;
	struct opts *o = &tk->o;
	char why[PATH_MAX + 256];
	int rc;

	operands(t, argc, argv, optind);
	if (o->cleanup) {
		t->list = cleanup_mode;
		return 0;
	}
	default_dirs(o);
	o->gen.maxstrlen = o->lim.maxstrlen ? o->lim.maxstrlen : FMT_MAXSTRINGLEN;
	o->gen.maxmapentries = o->lim.maxmapentries ? o->lim.maxmapentries :
			       MAP_MAXMAPENTRIES;
	if (!uname(&tk->un)) {
		tk->lc.kernel_vr = tk->un.release;
		tk->lc.arch = tk->un.machine;
	}
	tk->lc.kconfig = kconfig_value;
	tk->lc.kconfig_ctx = tk;
	tk->lc.argv = (const char *const *)o->argv;
	tk->lc.argc = o->argc;
	tk->d = diag_new();
	if (o->list) {
		t->list = list_mode;
		return 0;
	}
	if (o->pass < 5 || o->dry_run) {
		t->list = passes_mode;
		return 0;
	}
	rc = compile(tk, t);
	if (rc != TK_EXIT_OK)
		goto fail;
	if (o->prometheus && !has_prometheus(tk->prog)) {
		pr_err("--prometheus: the script has no prometheus probe");
		goto fail;
	}
	if (private_libs(tk) < 0)
		goto fail;
	tk->ro.out = stdout;
	if (o->top && top_check(tk) < 0)
		goto fail;
	if (o->out && !(tk->ro.out = outfile_open(o->out, why, sizeof(why)))) {
		pr_err("%s", why);
		goto fail;
	}
	tk->ro.providers = prov_all;
	tk->ro.lim = o->lim;
	tk->ro.maxerrors = o->maxerrors;
	tk->ro.buffer_kb = (unsigned long)o->bufsize_mb * 1024;
	tk->ro.prometheus = o->prometheus;
	t->target = o->target;		/* -x: the run ends when it exits */
	return 0;
fail:
	release(tk);
	return -1;
}

static int setup(struct tool *t, struct loop *l)
{
	struct tapkit *tk = t->ctx;

	tk->loop = l;
	/* target(): the -c command's PID (held until the begin probes ran) */
	tk->ro.target = t->opt.command ? t->opt.pid : tk->o.target;
	tk->r = run_new(tk->prog, &tk->ro);
	if (!tk->r) {
		pr_err("cannot start the script: %s", strerror(errno));
		return -1;
	}
	if (run_attach(tk->r, l) < 0) {
		if (run_error_msg(tk->r))
			pr_err("%s", run_error_msg(tk->r));
		return -1;
	}
	return 0;
}

static int begin(struct tool *t)
{
	struct tapkit *tk = t->ctx;
	int rc = run_begin(tk->r);

	if (rc || !tk->o.top)
		return rc;
	return top_start(tk);
}

static void end(struct tool *t)
{
	struct tapkit *tk = t->ctx;

	top_end(tk);
	run_end(tk->r);
}

static void teardown(struct tool *t)
{
	struct tapkit *tk = t->ctx;

	if (tk->o.top == TOP_SCREEN)
		top_ui_end();
	if (tk->r) {
		t->status = run_finish(tk->r);
		run_free(tk->r);
		tk->r = NULL;
	}
	run_view_free(tk->view);
	tk->view = NULL;
	free(tk->help);
	tk->help = NULL;
	top_release_output(tk);
	if (tk->ro.out && tk->ro.out != stdout && tk->ro.out != stderr &&
	    fclose(tk->ro.out) == EOF) {
		pr_err("cannot write '%s': %s", tk->o.out, strerror(errno));
		t->status = TK_EXIT_RUNTIME;
	}
	tk->ro.out = NULL;
	release(tk);
}

int main(int argc, char **argv)
{
	static struct tapkit tk = { .o.pass = 5 };
	struct tool t = {
		.ctx = &tk,
		.usage = usage,
		.shared = TOPT_COMMAND | TOPT_VERBOSE,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.begin = begin,
		.end = end,
		.teardown = teardown,
		/* the end probes are its summary: -c's status is not its own */
		.summarises = true,
	};

	privlib_restore();
	main_argv = argv;
	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
