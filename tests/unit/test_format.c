// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint formats from the running kernel: format_load(), format_field()
 * and format_event_id() on sched:sched_process_exec and sched:sched_switch,
 * checked against the format and id files read here directly, then a
 * hand-made record decoded through the real layout; the listing of
 * tpoints.c checked against the events directory read here with stat().
 * Reads tracefs (mounting it at the usual place when absent, and
 * unmounting it at exit), and writes only one uprobe group of a session of
 * its own; needs root, and skips otherwise.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>

#include "tracefs/format.h"
#include "tracefs/session.h"
#include "tracefs/tpoints.h"
#include "tests/unit/unit.h"

#define TRACEFS		"/sys/kernel/tracing"
#define EXEC_DIR	TRACEFS "/events/sched/sched_process_exec"
#define SWITCH_DIR	TRACEFS "/events/sched/sched_switch"

static void unmount_tracefs(void)
{
	umount(TRACEFS);
}

/* NULL when tracefs is usable, else the reason to skip. */
static const char *tracefs_missing(const char *event_dir)
{
	static bool tried_mount;

	if (geteuid() != 0)
		return "requires: root";
	/* mounted by us, unmounted at exit: leave the system as found */
	if (!tried_mount && access(TRACEFS "/events", F_OK) &&
	    mount("nodev", TRACEFS, "tracefs", 0, NULL) == 0)
		atexit(unmount_tracefs);
	tried_mount = true;
	if (access(TRACEFS "/events", F_OK))
		return "requires: tracefs";
	if (event_dir && access(event_dir, R_OK))
		return "requires: sched tracepoints";
	return NULL;
}

#define NEED_TRACEFS(dir) do {						\
	const char *why_ = tracefs_missing(dir);			\
	if (why_)							\
		SKIP(why_);						\
} while (0)

/* A whole small file, NUL-terminated, in @buf; false when unreadable. */
static bool read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return false;
	while (n < size - 1 && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = '\0';
	return n > 0;
}

static int read_id(const char *dir)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), "%s/id", dir);
	return read_text(path, buf, sizeof(buf)) ? atoi(buf) : -1;
}

/*
 * The offset, size and signedness of field @name as the format file says
 * ("field:<type> <name>[N];\toffset:O;\tsize:S;\tsigned:G;"); false if absent.
 */
static bool file_field(const char *dir, const char *name, int *off, int *size,
		       int *sign)
{
	char path[256], text[8192], *line;

	snprintf(path, sizeof(path), "%s/format", dir);
	if (!read_text(path, text, sizeof(text)))
		return false;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *semi = strstr(line, ";\toffset:"), *p;
		size_t len = strlen(name);

		if (!strstr(line, "field:") || !semi)
			continue;
		/* the name ends the declaration, maybe followed by [N] */
		p = semi;
		if (p[-1] == ']')
			while (p > line && *p != '[')
				p--;
		if ((size_t)(p - line) < len || strncmp(p - len, name, len) ||
		    (p[-len - 1] != ' ' && p[-len - 1] != '\t'))
			continue;
		return sscanf(semi, ";\toffset:%d;\tsize:%d;\tsigned:%d;",
			      off, size, sign) == 3;
	}
	return false;
}

UNIT_TEST(exec_format_fields)
{
	struct tep_event *ev;
	struct tk_field f;
	int off, size, sign;

	NEED_TRACEFS(EXEC_DIR);
	ev = format_load("sched", "sched_process_exec");
	CHECK(ev != NULL);
	if (!ev)
		return;
	CHECK_INT(format_id(ev), read_id(EXEC_DIR));
	CHECK_INT(format_event_id("sched", "sched_process_exec"), read_id(EXEC_DIR));

	CHECK_INT(format_field(ev, "filename", &f), 0);
	CHECK_STR(f.name, "filename");
	CHECK(file_field(EXEC_DIR, "filename", &off, &size, &sign));
	CHECK_INT(f.offset, off);
	CHECK_INT(f.size, 4);
	CHECK(f.flags & TK_F_DYNAMIC);
	CHECK(f.flags & TK_F_STRING);
	CHECK(!(f.flags & TK_F_RELATIVE));
	CHECK(!(f.flags & TK_F_SIGNED));

	CHECK_INT(format_field(ev, "pid", &f), 0);
	CHECK_STR(f.name, "pid");
	CHECK(file_field(EXEC_DIR, "pid", &off, &size, &sign));
	CHECK_INT(f.offset, off);
	CHECK_INT(f.size, 4);
	CHECK_INT(size, 4);
	CHECK_INT(sign, 1);
	CHECK(f.flags & TK_F_SIGNED);
	CHECK(!(f.flags & (TK_F_STRING | TK_F_DYNAMIC | TK_F_ARRAY)));

	CHECK_INT(format_field(ev, "old_pid", &f), 0);
	CHECK(file_field(EXEC_DIR, "old_pid", &off, &size, &sign));
	CHECK_INT(f.offset, off);

	/* the common fields are found too */
	CHECK_INT(format_field(ev, "common_pid", &f), 0);
	CHECK_INT(f.offset, 4);
	CHECK_INT(f.size, 4);
	CHECK(f.flags & TK_F_SIGNED);
	CHECK_INT(format_field(ev, "common_type", &f), 0);
	CHECK_INT(f.offset, 0);
	CHECK_INT(f.size, 2);
	CHECK(!(f.flags & TK_F_SIGNED));
}

UNIT_TEST(switch_format_fields)
{
	struct tep_event *ev;
	struct tk_field f;
	int off, size, sign;

	NEED_TRACEFS(SWITCH_DIR);
	ev = format_load("sched", "sched_switch");
	CHECK(ev != NULL);
	if (!ev)
		return;
	CHECK_INT(format_id(ev), read_id(SWITCH_DIR));

	CHECK_INT(format_field(ev, "prev_comm", &f), 0);
	CHECK(file_field(SWITCH_DIR, "prev_comm", &off, &size, &sign));
	CHECK_INT(f.offset, off);
	CHECK_INT(f.size, 16);
	CHECK_INT(f.elem, 1);
	CHECK(f.flags & TK_F_STRING);
	CHECK(f.flags & TK_F_ARRAY);
	CHECK(!(f.flags & TK_F_DYNAMIC));

	CHECK_INT(format_field(ev, "next_comm", &f), 0);
	CHECK(file_field(SWITCH_DIR, "next_comm", &off, &size, &sign));
	CHECK_INT(f.offset, off);
	CHECK(f.flags & TK_F_STRING);

	CHECK_INT(format_field(ev, "prev_state", &f), 0);
	CHECK(file_field(SWITCH_DIR, "prev_state", &off, &size, &sign));
	CHECK_INT(f.offset, off);
	CHECK_INT(f.size, size);
	CHECK_INT(!!(f.flags & TK_F_SIGNED), sign);

	CHECK_INT(format_field(ev, "next_pid", &f), 0);
	CHECK(file_field(SWITCH_DIR, "next_pid", &off, &size, &sign));
	CHECK_INT(f.offset, off);
	CHECK(f.flags & TK_F_SIGNED);
}

UNIT_TEST(load_twice_and_reset)
{
	struct tep_event *a, *b, *c;

	NEED_TRACEFS(SWITCH_DIR);
	CHECK(format_tep() != NULL);
	CHECK(format_tep() == format_tep());
	a = format_load("sched", "sched_switch");
	b = format_load("sched", "sched_switch");
	CHECK(a != NULL);
	CHECK(a == b);
	format_reset();
	format_reset();			/* twice: no double free */
	c = format_load("sched", "sched_switch");
	CHECK(c != NULL);
	CHECK_INT(format_id(c), read_id(SWITCH_DIR));
	CHECK_INT(format_id(NULL), -1);
}

UNIT_TEST(missing_event_and_field)
{
	struct tep_event *ev;
	struct tk_field f;

	NEED_TRACEFS(EXEC_DIR);
	errno = 0;
	CHECK(format_load("sched", "no_such_event_tapkit") == NULL);
	CHECK_INT(errno, ENOENT);
	errno = 0;
	CHECK(format_load("no_such_system_tapkit", "sched_switch") == NULL);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(format_event_id("sched", "no_such_event_tapkit"), -ENOENT);
	CHECK_INT(format_event_id("no_such_system_tapkit", "x"), -ENOENT);
	/* a directory that is not an event */
	errno = 0;
	CHECK(format_load("sched", "enable") == NULL);
	CHECK_INT(errno, ENOENT);

	ev = format_load("sched", "sched_process_exec");
	CHECK(ev != NULL);
	if (!ev)
		return;
	CHECK_INT(format_field(ev, "no_such_field", &f), -ENOENT);
	CHECK_INT(format_field(ev, "", &f), -ENOENT);
	CHECK_INT(format_field(ev, "filenam", &f), -ENOENT);
}

UNIT_TEST(path_names_refused)
{
	static const char *const bad[][2] = {
		{ "sched/../sched", "sched_switch" },
		{ "..", "sched" },
		{ "sched", "../sched/sched_switch" },
		{ "sched", "sched_switch/.." },
		{ "sched", "sched_switch/format" },
		{ "sched/sched_switch", "" },
		{ "", "sched_switch" },
		{ "sched", "" },
		{ "sched", ".." },
		{ "/sched", "sched_switch" },
	};
	size_t i;

	NEED_TRACEFS(SWITCH_DIR);
	/* even with the real event already loaded */
	CHECK(format_load("sched", "sched_switch") != NULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		if (format_load(bad[i][0], bad[i][1]) != NULL) {
			printf("#   accepted '%s' '%s'\n", bad[i][0], bad[i][1]);
			CHECK(!"format_load accepted a path");
		}
		CHECK_INT(errno, ENOENT);
		CHECK_INT(format_event_id(bad[i][0], bad[i][1]), -ENOENT);
	}
}

/* Without privilege the answer is EACCES, not "no such event". */
UNIT_TEST(unprivileged_gets_eacces)
{
	int st;
	pid_t pid;

	NEED_TRACEFS(EXEC_DIR);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		format_reset();		/* forget what the parent parsed */
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(3);
		/* the tracefs root is mode 0700: nobody cannot read */
		if (access(EXEC_DIR "/id", R_OK) == 0)
			_exit(4);
		errno = 0;
		bad |= format_load("sched", "sched_process_exec") != NULL;
		bad |= errno != EACCES;
		bad |= format_event_id("sched", "sched_process_exec") != -EACCES;
		{
			struct tpoint_query q = { .sys = "sched" };
			struct tpoint_list l = { 0 };

			bad |= tpoints_find(&q, &l) != -EACCES;
			bad |= l.n != 0;
		}
		_exit(bad ? 1 : 0);
	}
	CHECK(pid > 0);
	if (pid <= 0 || waitpid(pid, &st, 0) != pid)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 4)
		SKIP("requires: tracefs not readable by others");
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), 0);
}

/*
 * A record made by hand with the layout of the running kernel's
 * sched_process_exec, decoded through the resolved fields and, for
 * comparison, through libtraceevent itself.
 */
UNIT_TEST(decode_exec_record)
{
	struct tep_event *ev;
	struct tk_field fname, fpid, fold, fcpid, ftype;
	unsigned char rec[256];
	const char *path = "/usr/bin/true";
	char buf[64];
	uint32_t loc, plen = (uint32_t)strlen(path) + 1;
	int end = 0;
	uint16_t type;
	int32_t v;
	struct tep_format_field *ff;
	unsigned long long num;
	struct tk_event e = { 0 };

	NEED_TRACEFS(EXEC_DIR);
	ev = format_load("sched", "sched_process_exec");
	CHECK(ev != NULL);
	if (!ev)
		return;
	CHECK_INT(format_field(ev, "filename", &fname), 0);
	CHECK_INT(format_field(ev, "pid", &fpid), 0);
	CHECK_INT(format_field(ev, "old_pid", &fold), 0);
	CHECK_INT(format_field(ev, "common_pid", &fcpid), 0);
	CHECK_INT(format_field(ev, "common_type", &ftype), 0);
	/* the fixed part ends after the last field; the string follows */
	for (ff = ev->format.fields; ff; ff = ff->next)
		if (ff->offset + ff->size > end)
			end = ff->offset + ff->size;
	CHECK(end > 0 && end + (int)plen < (int)sizeof(rec));
	if (end <= 0 || end + (int)plen >= (int)sizeof(rec))
		return;

	memset(rec, 0xa5, sizeof(rec));
	type = (uint16_t)format_id(ev);
	memcpy(rec + ftype.offset, &type, 2);
	rec[2] = 0;
	rec[3] = 1;
	memcpy(rec + fcpid.offset, &(int32_t){ 4321 }, 4);
	loc = plen << 16 | (uint32_t)end;
	memcpy(rec + fname.offset, &loc, 4);
	memcpy(rec + end, path, plen);
	memcpy(rec + fpid.offset, &(int32_t){ 4321 }, 4);
	memcpy(rec + fold.offset, &(int32_t){ -7 }, 4);
	e.data = rec;
	e.size = (unsigned int)(end + plen + 3) & ~3u;

	CHECK_INT(field_str(&e, &fname, buf, sizeof(buf)), strlen(path));
	CHECK_STR(buf, path);
	CHECK_INT(field_int(&e, &fpid), 4321);
	CHECK_INT(field_int(&e, &fold), -7);
	CHECK_INT(field_int(&e, &fcpid), 4321);
	CHECK_INT(field_int(&e, &ftype), format_id(ev));

	/* libtraceevent reads the same numbers from the same bytes */
	ff = tep_find_field(ev, "old_pid");
	CHECK(ff && tep_read_number_field(ff, rec, &num) == 0);
	CHECK_INT((int32_t)num, -7);
	memcpy(&v, rec + ff->offset, 4);
	CHECK_INT(v, -7);

	/* a record cut short of its string gives "" */
	e.size = (unsigned int)end + 2;
	CHECK_INT(field_str(&e, &fname, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	CHECK_INT(field_int(&e, &fpid), 4321);
}

UNIT_TEST(decode_switch_record)
{
	struct tep_event *ev;
	struct tk_field prev, next, npid;
	unsigned char rec[128] = { 0 };
	char buf[64];
	struct tk_event e = { .data = rec, .size = sizeof(rec) };

	NEED_TRACEFS(SWITCH_DIR);
	ev = format_load("sched", "sched_switch");
	CHECK(ev != NULL);
	if (!ev)
		return;
	CHECK_INT(format_field(ev, "prev_comm", &prev), 0);
	CHECK_INT(format_field(ev, "next_comm", &next), 0);
	CHECK_INT(format_field(ev, "next_pid", &npid), 0);
	CHECK(next.offset + next.size <= (int)sizeof(rec));
	if (next.offset + next.size > (int)sizeof(rec))
		return;
	/* a 15-character comm with its NUL, and a full 16 without one */
	memcpy(rec + prev.offset, "kworker/u16:1-e", 16);
	memcpy(rec + next.offset, "0123456789abcdef", 16);
	memcpy(rec + npid.offset, &(int32_t){ 99 }, 4);
	CHECK_INT(field_str(&e, &prev, buf, sizeof(buf)), 15);
	CHECK_STR(buf, "kworker/u16:1-e");
	CHECK_INT(field_str(&e, &next, buf, sizeof(buf)), 16);
	CHECK_STR(buf, "0123456789abcdef");
	CHECK_INT(field_int(&e, &npid), 99);
}

/* ---- listing (tpoints.c) ------------------------------------------------ */

static int cmp_name(const void *a, const void *b)
{
	const struct tpoint_name *x = a, *y = b;
	int c = strcmp(x->sys, y->sys);

	return c ? c : strcmp(x->name, y->name);
}

/*
 * What the listing should give, read here with stat(): every event
 * directory of @sys (or of every system with an enable file when @sys is
 * NULL) whose "SYS:NAME" matches @full, sorted.
 */
static void expected(const char *sys, const char *full, struct tpoint_list *l)
{
	DIR *d = opendir(TRACEFS "/events"), *e;
	struct dirent *sd, *ed;
	struct stat st;
	char path[1024], name[512];

	memset(l, 0, sizeof(*l));
	while (d && (sd = readdir(d))) {
		if (sd->d_name[0] == '.' || (sys && strcmp(sys, sd->d_name)))
			continue;
		snprintf(path, sizeof(path), TRACEFS "/events/%s/enable", sd->d_name);
		if (!sys && access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), TRACEFS "/events/%s", sd->d_name);
		e = opendir(path);
		while (e && (ed = readdir(e))) {
			snprintf(path, sizeof(path), TRACEFS "/events/%s/%s",
				 sd->d_name, ed->d_name);
			snprintf(name, sizeof(name), "%s:%s", sd->d_name, ed->d_name);
			if (ed->d_name[0] == '.' || stat(path, &st) || !S_ISDIR(st.st_mode) ||
			    (full && fnmatch(full, name, 0)))
				continue;
			l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
			l->v[l->n].sys = strdup(sd->d_name);
			l->v[l->n].name = strdup(ed->d_name);
			l->n++;
		}
		if (e)
			closedir(e);
	}
	if (d)
		closedir(d);
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_name);
}

static void check_same(const struct tpoint_list *got, const struct tpoint_list *want)
{
	size_t i;

	CHECK_INT(got->n, want->n);
	for (i = 0; i < got->n && i < want->n; i++) {
		if (strcmp(got->v[i].sys, want->v[i].sys) ||
		    strcmp(got->v[i].name, want->v[i].name)) {
			printf("#   %zu: got %s:%s, want %s:%s\n", i, got->v[i].sys,
			       got->v[i].name, want->v[i].sys, want->v[i].name);
			CHECK(!"listing differs");
			return;
		}
	}
}

UNIT_TEST(tpoints_system_glob_is_the_directory)
{
	struct tpoint_query q = { .sys = "sched", .name = "sched_process_*", .sorted = true };
	struct tpoint_list got = { 0 }, want;

	NEED_TRACEFS(EXEC_DIR);
	expected("sched", "sched:sched_process_*", &want);
	CHECK(want.n >= 4);	/* exec, exit, fork, free, wait... */
	CHECK_INT(tpoints_find(&q, &got), (int)want.n);
	check_same(&got, &want);
	tpoints_release(&got);
	tpoints_release(&want);
	CHECK(got.v == NULL && got.n == 0);
}

UNIT_TEST(tpoints_every_system_sorted_without_ftrace)
{
	struct tpoint_query q = { .sorted = true };
	struct tpoint_list got = { 0 }, want;
	size_t i;
	int n;

	NEED_TRACEFS(SWITCH_DIR);
	expected(NULL, NULL, &want);
	n = tpoints_find(&q, &got);
	CHECK_INT(n, (int)want.n);
	check_same(&got, &want);
	for (i = 0; i < got.n; i++)
		CHECK(strcmp(got.v[i].sys, "ftrace") != 0);
	tpoints_release(&got);
	tpoints_release(&want);
}

UNIT_TEST(tpoints_full_glob_spans_the_colon)
{
	struct tpoint_query q = { .full = "sched:sched_process_e*", .sorted = true };
	struct tpoint_list got = { 0 }, want;

	NEED_TRACEFS(EXEC_DIR);
	expected(NULL, q.full, &want);
	CHECK_INT(tpoints_find(&q, &got), (int)want.n);
	check_same(&got, &want);
	tpoints_release(&got);
	tpoints_release(&want);
	/* '*' matches the colon too, as fnmatch() without FNM_PATHNAME */
	q.full = "sch*:sched_switch";
	CHECK_INT(tpoints_find(&q, &got), 1);
	CHECK_STR(got.n ? got.v[0].name : "", "sched_switch");
	q.full = "*:sched_switch";
	CHECK_INT(tpoints_find(&q, &got), 1);	/* appended */
	CHECK_INT(got.n, 2);
	tpoints_release(&got);
}

UNIT_TEST(tpoints_named_without_listing)
{
	struct tpoint_query q = { .sys = "sched", .name = "sched_switch" };
	struct tpoint_list got = { 0 };

	NEED_TRACEFS(SWITCH_DIR);
	CHECK_INT(tpoints_find(&q, &got), 1);
	CHECK_STR(got.n ? got.v[0].sys : "", "sched");
	/* a system named is looked at even when it cannot be enabled whole */
	q.sys = "ftrace";
	q.name = "print";
	CHECK_INT(tpoints_find(&q, &got), 1);
	CHECK_INT(got.n, 2);
	tpoints_release(&got);
	/* no such system or event, and names that would leave events/ */
	q.sys = "no_such_system";
	q.name = NULL;
	CHECK_INT(tpoints_find(&q, &got), 0);
	q.sys = "sched";
	q.name = "no_such_event";
	CHECK_INT(tpoints_find(&q, &got), 0);
	q.name = "../sched/sched_switch";
	CHECK_INT(tpoints_find(&q, &got), 0);
	q.sys = "..";
	q.name = NULL;
	CHECK_INT(tpoints_find(&q, &got), 0);
	q.sys = "sched/../sched";
	CHECK_INT(tpoints_find(&q, &got), 0);
	CHECK_INT(got.n, 0);
	/* the name filters only what the system lists */
	q.sys = "sched";
	q.name = "*";
	q.full = "*:sched_switch";
	CHECK_INT(tpoints_find(&q, &got), 1);
	tpoints_release(&got);
}

/* A group of ours is a system like any other, unless left out. */
UNIT_TEST(tpoints_leave_out_session_groups)
{
	struct session *s;
	struct session_probe p = { .event = "tk_list" };
	struct tpoint_query q = { .sys = SESSION_PREFIX "*" };
	struct tpoint_list got = { 0 };
	char exe[4096];
	struct tp *tp;
	ssize_t n;
	size_t i;
	int found = 0;

	NEED_TRACEFS(NULL);
	if (!session_has_uprobes())
		SKIP("requires: uprobe_events");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	if (n <= 0)
		return;
	exe[n] = '\0';
	p.path = exe;
	s = session_new(NULL);
	CHECK_INT(session_open(s), 0);
	CHECK_INT(session_add_probes(s, &p, 1, TP_RECORD, &tp), 0);
	CHECK(tpoints_find(&q, &got) >= 1);
	for (i = 0; i < got.n; i++)
		found += !strcmp(got.v[i].sys, session_name(s)) &&
			 !strcmp(got.v[i].name, "tk_list");
	CHECK_INT(found, 1);
	tpoints_release(&got);
	q.no_sessions = true;
	CHECK_INT(tpoints_find(&q, &got), 0);
	q.sys = session_name(s);
	CHECK_INT(tpoints_find(&q, &got), 0);
	q.no_sessions = false;
	q.name = "tk_*";
	CHECK_INT(tpoints_find(&q, &got), 1);
	tpoints_release(&got);
	session_free(s);
	q.sys = SESSION_PREFIX "*";
	q.name = "tk_list";
	CHECK_INT(tpoints_find(&q, &got), 0);	/* gone with the session */
	tpoints_release(&got);
}

UNIT_TEST(system_events_by_prefix)
{
	char **names = NULL;
	int n, i, exec = 0, exit_ = 0;

	NEED_TRACEFS(EXEC_DIR);
	n = format_system_events("sched", "sched_process_e", &names);
	CHECK(n >= 2);
	for (i = 0; names && names[i]; i++) {
		exec += !strcmp(names[i], "sched_process_exec");
		exit_ += !strcmp(names[i], "sched_process_exit");
		CHECK(!strncmp(names[i], "sched_process_e", 15));
	}
	CHECK_INT(i, n);
	CHECK_INT(exec, 1);
	CHECK_INT(exit_, 1);
	format_names_free(names);
	/* the prefix is literal: its '*' matches only a '*' */
	CHECK_INT(format_system_events("sched", "sched_*", &names), 0);
	CHECK(names && !names[0]);
	format_names_free(names);
	CHECK_INT(format_system_events("no_such_system", NULL, &names), -ENOENT);
	CHECK_INT(format_system_events("sch*", NULL, &names), -ENOENT);
}

UNIT_MAIN()
