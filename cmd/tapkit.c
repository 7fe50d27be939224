// SPDX-License-Identifier: GPL-2.0
/*
 * tapkit: run a SystemTap script in userspace.  The command line follows
 * stap's (-e, -c, -x, -o, -T, -D, -p, -l, -L, -I, -v), rather than the
 * tool_run() skeleton of the small tools: the passes are the script
 * engine's (lang/), this file only wires them and prints what -pN asks.
 */
#include <errno.h>
#include <getopt.h>
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
#include "common/log.h"
#include "common/opt.h"
#include "lang/ast.h"
#include "lang/diag.h"
#include "lang/elab.h"
#include "prov/prov.h"
#include "lang/gen.h"
#include "lang/parse.h"
#include "lang/run.h"
#include "tracefs/session.h"

#define TAPKIT_VERSION "0.1"
#define MAX_DIRS 32

struct opts {
	const char *script;	/* -e text */
	const char *file;	/* or a file ("-": stdin) */
	const char *out;
	const char *cmd;
	const char *list;	/* -l / -L pattern */
	bool list_vars;
	pid_t target;
	long time_limit;
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
};

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
"  -c CMD            run CMD (via /bin/sh -c) once probes are attached;\n"
"                    target() is its PID; the run ends when it exits\n"
"  -x PID            target() is PID; the run ends when it exits\n"
"  -T SECS           end the run after SECS seconds (end probes run)\n"
"  -s MB             per-CPU ring buffer size in MiB (default: the\n"
"                    kernel's, ~1.4); more holds longer bursts, at the\n"
"                    cost of an RCU grace period at start\n"
"  -D NAME=VALUE     a limit: MAXACTION, MAXNESTING, MAXSTRINGLEN,\n"
"                    MAXMAPENTRIES, MAXERRORS, STP_MAXMEMORY (KiB)...\n"
"  -I DIR            also look for tapsets in DIR\n"
"  -p NUM            stop after pass NUM: 1 parse tree, 2 elaborated\n"
"                    probes, 3 bytecode and tracefs definitions,\n"
"                    4 everything but attaching\n"
"  -l PATTERN        list the probe points matching PATTERN\n"
"  -L PATTERN        the same, with their variables\n"
"  -v                say what each pass did (repeat for more)\n"
"      --dry-run     print the tracefs writes as a shell script, and exit\n"
"      --cleanup     remove what dead tapkit sessions left in tracefs\n"
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
"  tapkit -L 'signal.send'            # an alias's variables and the fields behind it\n";

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "dry-run", no_argument, NULL, 1 },
	{ "cleanup", no_argument, NULL, 2 },
	{ NULL, 0, NULL, 0 },
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

static void parse_args(int argc, char **argv, struct opts *o)
{
	int c;
	long p;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:o:c:x:T:s:D:I:p:l:L:vVh",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'e': o->script = optarg; break;
		case 'o': o->out = optarg; break;
		case 'c': o->cmd = optarg; break;
		case 'x': o->target = opt_num("-x", optarg, 1, 1 << 30); break;
		case 'T': o->time_limit = opt_num("-T", optarg, 1,
						  86400L * 365); break;
		case 's': o->bufsize_mb = opt_num("-s", optarg, 1, 4096); break;
		case 'D': define(o, optarg); break;
		case 'I':
			if (o->ndirs == MAX_DIRS)
				usage_error("too many -I directories");
			o->dirs[o->ndirs++] = optarg;
			break;
		case 'p':
			p = opt_num("-p", optarg, 1, 5);
			o->pass = (int)p;
			break;
		case 'l': case 'L':
			o->list = optarg;
			o->list_vars = c == 'L';
			break;
		case 'v': tk_verbose++; break;
		case 'V':
			printf("tapkit %s (SystemTap language, userspace "
			       "bytecode)\n", TAPKIT_VERSION);
			exit(TK_EXIT_OK);
		case 'h': fputs(usage, stdout); exit(TK_EXIT_OK);
		case 1: o->dry_run = true; break;
		case 2: o->cleanup = true; break;
		default: usage_bad_option(argv, c);
		}
	}
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
	if (o->cmd && o->target)
		usage_error("-c and -x cannot be used together");
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
				.providers = prov_all,
				.listing = true, .listing_vars = o->list_vars };
	char *text = xasprintf("probe %s {}", o->list);
	struct elab *e = NULL;
	struct elab_probe **order;
	size_t i, j, n = 0;
	int rc = TK_EXIT_RUNTIME;

	if (parse_text(s, d, "<pattern>", text, strlen(text), lc, 0) == 0)
		e = elab_new(s, d, &eo);
	if (diag_errors(d)) {
		diag_print(d, stderr);
		goto out;
	}
	/* as stap: sorted, each point once */
	order = xcalloc(e->probes.n + 1, sizeof(*order));
	for (i = 0; i < e->probes.n; i++)
		order[i] = e->probes.v[i];
	qsort(order, e->probes.n, sizeof(*order), by_name);
	for (i = 0; i < e->probes.n; i++) {
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

			for (k = 0; k < nv && k < 128; k++)
				printf(" $%s:%s", esc_str(v[k].name),
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

static int compile_and_run(struct opts *o, struct diag *d,
			   const struct lex_config *lc)
{
	struct ast_script *s = ast_script_new();
	struct elab_opts eo = { .tapset_dirs = o->dirs, .lex = lc,
				.providers = prov_all,
				.no_display = o->pass && o->pass < 5 &&
					      o->pass != 4,
				.has_target = o->cmd || o->target };
	struct timespec t0;
	struct elab *e = NULL;
	struct prog *prog = NULL;
	struct run_opts ro = { .providers = prov_all };
	int rc = TK_EXIT_RUNTIME;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (o->script)
		parse_text(s, d, "<input>", o->script, strlen(o->script), lc, 0);
	else
		parse_file(s, d, o->file, lc, 0);
	if (diag_errors(d))
		goto fail;
	if (tk_verbose)
		fprintf(stderr, "Pass 1: parsed user script in %.1f ms.\n",
			ms_since(&t0));
	if (o->pass == 1) {
		ast_print(stdout, s);
		rc = TK_EXIT_OK;
		goto out;
	}
	e = elab_new(s, d, &eo);
	if (diag_errors(d))
		goto fail;
	diag_print(d, stderr);		/* warnings */
	if (tk_verbose)
		fprintf(stderr, "Pass 2: analyzed script: %zu probe(s), %zu "
			"function(s), %zu global(s) in %.1f ms.\n", e->probes.n,
			e->funcs.n, e->globals.n, ms_since(&t0));
	if (o->pass == 2) {
		elab_print(e, stdout);
		rc = TK_EXIT_OK;
		goto out;
	}
	prog = gen_program(e, &o->gen, d);
	if (!prog)
		goto fail;
	if (tk_verbose)
		fprintf(stderr, "Pass 3: generated %zu words of bytecode in "
			"%.1f ms.\n", prog->ncode, ms_since(&t0));
	if (o->pass == 3 || o->dry_run) {
		if (o->pass == 3)
			gen_disasm(prog, stdout);
		else
			fputs("#!/bin/sh\n# tapkit --dry-run: what this script "
			      "would write to tracefs\n", stdout);
		print_dry_run(prog, o->dry_run, o->bufsize_mb * 1024, o->target);
		rc = TK_EXIT_OK;
		goto out;
	}
	if (o->pass == 4) {
		rc = TK_EXIT_OK;
		goto out;
	}
	ro.out = stdout;
	if (o->out && !(ro.out = fopen(o->out, "w"))) {
		pr_err("cannot open '%s': %s", o->out, strerror(errno));
		goto out;
	}
	ro.time_limit = o->time_limit;
	ro.target = o->target;
	ro.cmd = o->cmd;
	ro.lim = o->lim;
	ro.maxerrors = o->maxerrors;
	ro.buffer_kb = (unsigned long)o->bufsize_mb * 1024;
	rc = run_main(prog, &ro);
	if (ro.out != stdout && fclose(ro.out) == EOF) {
		pr_err("cannot write '%s': %s", o->out, strerror(errno));
		rc = TK_EXIT_RUNTIME;
	}
	goto out;
fail:
	diag_print(d, stderr);
out:
	gen_free(prog);
	elab_free(e);
	ast_script_free(s);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = { .pass = 5 };
	struct lex_config lc = { 0 };
	struct utsname un;
	struct diag *d;
	int rc;

	log_init(argv[0]);
	parse_args(argc, argv, &o);
	if (o.cleanup) {
		rc = session_cleanup_stale();
		if (rc < 0) {
			pr_err("cannot clean up stale sessions: %s",
			       strerror(-rc));
			return TK_EXIT_RUNTIME;
		}
		if (tk_verbose)
			fprintf(stderr, "removed %d stale session(s)\n", rc);
		return TK_EXIT_OK;
	}
	default_dirs(&o);
	o.gen.maxstrlen = o.lim.maxstrlen ? o.lim.maxstrlen : FMT_MAXSTRINGLEN;
	o.gen.maxmapentries = o.lim.maxmapentries ? o.lim.maxmapentries :
			      MAP_MAXMAPENTRIES;
	if (!uname(&un)) {
		lc.kernel_vr = un.release;
		lc.arch = un.machine;
	}
	lc.argv = (const char *const *)o.argv;
	lc.argc = o.argc;
	d = diag_new();
	rc = o.list ? list_probes(&o, d, &lc) : compile_and_run(&o, d, &lc);
	diag_free(d);
	return rc;
}
