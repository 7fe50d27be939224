/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_OPTIONS_H
#define TAPKIT_OPTIONS_H

/*
 * The suite's one option vocabulary (bcc's letters, one long name each):
 *
 *   -p, --pid PID        -t, --tid TID        -T, --timestamp
 *   -d, --duration SECS  -v, --verbose        -x, --failed
 *   -n, --name NAME      -j, --json           -h, --help
 *   -c, --command CMD
 *
 * A command says which of these it takes (TOPT_* bits) and adds only its
 * own options; an own option with a shared letter gives that letter the
 * command's meaning (tapkit's -p is SystemTap's pass, execsnoop's -p a
 * parent PID), and the shared option is then not taken at all.  Spellings
 * older versions accepted stay as aliases (--time, --fails, --failures).
 */
#include <getopt.h>
#include <stdbool.h>
#include <sys/types.h>

enum {
	TOPT_PID	= 1 << 0,	/* -p, --pid PID */
	TOPT_TID	= 1 << 1,	/* -t, --tid TID */
	TOPT_TIMESTAMP	= 1 << 2,	/* -T, --timestamp (--time) */
	TOPT_DURATION	= 1 << 3,	/* -d, --duration SECS */
	TOPT_VERBOSE	= 1 << 4,	/* -v, --verbose (again: more) */
	TOPT_FAILED	= 1 << 5,	/* -x, --failed (--fails, --failures) */
	TOPT_NAME	= 1 << 6,	/* -n, --name NAME */
	TOPT_JSON	= 1 << 7,	/* -j, --json */
	TOPT_HELP	= 1 << 8,	/* -h, --help: every command */
	TOPT_COMMAND	= 1 << 9,	/* -c, --command CMD */
};

/* The shared options as parsed. */
struct tool_opts {
	pid_t pid;		/* -p, or the -c command's PID once started */
	pid_t tid;		/* -t */
	bool timestamp;		/* -T */
	bool failed;		/* -x */
	bool json;		/* -j */
	long duration;		/* -d, 0: until Ctrl-C */
	const char *name;	/* -n */
	const char *command;	/* -c */
	bool tree;		/* pid is the -c command's: trace its process
				 * tree (set by tool_run()) */
};

/* An option of a command's own. */
struct tool_option {
	int key;		/* its letter; a value >= 256: a long name only */
	const char *name;	/* its long name; NULL: a letter only */
	int has_arg;		/* no_argument or required_argument */
	const char *alias;	/* another long name it had, or NULL */
};

/* The command-line contract of one command. */
struct tool_cli {
	const char *usage;		/* --help text, to stdout */
	unsigned shared;		/* the TOPT_* it takes */
	const struct tool_option *own;	/* {0}-ended, NULL: none */
	/* one of its own options (usage errors exit) */
	void (*option)(void *ctx, int key, const char *arg);
	void *ctx;
};

/**
 * tool_options_parse() - parse @argv's options per @cli into @o
 *
 * The shared options land in @o (numbers checked: -p/-t a PID, -d whole
 * seconds), the command's own go to cli->option in command-line order; -h
 * prints the usage and exits 0; an unknown option, a missing argument,
 * -p with -t and -c with -p or -t are usage errors (exit 2).
 * Returns the index of the first operand.
 */
int tool_options_parse(int argc, char **argv, const struct tool_cli *cli,
		       struct tool_opts *o);

/* -n NAME as a task name (15 bytes at most, and nothing a kernel filter
 * string cannot hold): a usage error otherwise; NULL passes. */
void tool_check_comm(const char *name);

#endif
