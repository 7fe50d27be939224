// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's batch printers: the exact text and JSON of a model over a
 * table of fixed samples, and the batch loop's ticks, count and EPIPE.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/agtable.h"
#include "common/loop.h"
#include "tests/unit/unit.h"
#include "tool/top.h"

#define NS_PER_SEC 1000000000ULL

enum { S_PID, S_COMM, S_LAT, S_ERR };

static const struct agt_col cols[] = {
	{ "PID", NULL, AGT_KEY, AGT_INT, S_PID, AGT_PLAIN, 0 },
	{ "COMM", NULL, AGT_KEY, AGT_STR, S_COMM, AGT_PLAIN, 0 },
	{ "COUNT", NULL, AGT_COUNT, AGT_INT, -1, AGT_PLAIN, 0 },
	{ "RATE", NULL, AGT_RATE, AGT_INT, -1, AGT_PLAIN, 0 },
	{ "ERRORS", NULL, AGT_SUM, AGT_INT, S_ERR, AGT_PLAIN, 0 },
	{ "P99", NULL, AGT_P99, AGT_INT, S_LAT, AGT_NS, 0 },
};
enum { C_PID, C_COMM, C_COUNT, C_RATE, C_ERRORS, C_P99, NCOLS };

/* A model over one table, as a script's arrays or the engine give it. */
struct fake {
	struct agtable *t;
	const char *path;
	int sort;
	int ticks;
	uint64_t elapsed[8];
};

static struct agtable *fake_table(void *ctx)
{
	return ((struct fake *)ctx)->t;
}

static const char *fake_path(void *ctx, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((struct fake *)ctx)->path);
	return buf;
}

static int fake_sort(void *ctx)
{
	return ((struct fake *)ctx)->sort;
}

static void fake_stats(void *ctx, struct top_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->events = 1510;
	st->events_per_sec = 755.4;
	st->lost = 3;
	st->interval_ns = 2 * NS_PER_SEC;
}

static void fake_tick(void *ctx, uint64_t elapsed_ns)
{
	struct fake *f = ctx;

	if (f->ticks < 8)
		f->elapsed[f->ticks] = elapsed_ns;
	f->ticks++;
	agt_tick(f->t, elapsed_ns);
}

static void add(struct agtable *t, int pid, const char *comm, int64_t lat,
		int err, int times)
{
	struct agt_sample s = { .have = 1 << S_PID | 1 << S_COMM | 1 << S_ERR };

	s.num[S_PID] = pid;
	s.str[S_COMM] = comm;
	s.num[S_ERR] = err;
	if (lat >= 0) {
		s.num[S_LAT] = lat;
		s.have |= 1 << S_LAT;
	}
	while (times-- > 0)
		agt_add(t, &s);
}

/* 1000 calls of bash (20 failed, slow), 500 of a comm with an escape, 10 of a long name,
 * closed as one 2 s interval */
static void fill(struct fake *f)
{
	f->t = agt_new(cols, NCOLS);
	f->path = "syscalls > comm=bash";
	f->sort = C_COUNT;
	add(f->t, 4242, "bash", 2100000, 1, 20);
	add(f->t, 4242, "bash", 800, 0, 980);
	add(f->t, 17, "evil\033]0;x", 13500, 0, 500);
	add(f->t, 99, "a-name-longer-than-16", -1, 0, 10);
	agt_tick(f->t, 2 * NS_PER_SEC);
}

static struct top_model model(struct fake *f)
{
	return (struct top_model){
		.ctx = f,
		.table = fake_table,
		.path = fake_path,
		.sort_col = fake_sort,
		.stats = fake_stats,
		.tick = fake_tick,
	};
}

static struct top_display display(void)
{
	return (struct top_display){
		.mode = AGT_INTERVAL,
		.interval_ms = 2000,
		.sort_col = -1,
	};
}

static void now_hms(char *buf)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(buf, 16, "%H:%M:%S", &tm);
}

/*
 * Print with @json into a memory stream and compare with @expect, whose
 * "%s" is the time: printed again when the second turned meanwhile.
 */
static void check_print(const struct top_model *m, const struct top_display *d,
			bool json, const char *expect)
{
	char before[16], after[16], want[4096];
	char *text = NULL;
	size_t len;
	int tries;

	for (tries = 0; tries < 3; tries++) {
		FILE *f;

		free(text);
		text = NULL;
		f = open_memstream(&text, &len);
		now_hms(before);
		if (json)
			top_print_json(m, d, f);
		else
			top_print_text(m, d, f);
		fclose(f);
		now_hms(after);
		if (!strcmp(before, after))
			break;
	}
	snprintf(want, sizeof(want), expect, before);
	CHECK_STR(text, want);
	free(text);
}

UNIT_TEST(text_interval)
{
	struct fake f = { 0 };
	struct top_model m;
	struct top_display d = display();

	fill(&f);
	m = model(&f);
	check_print(&m, &d, false,
		"tracetop - %s  syscalls > comm=bash  interval 2.0s  events/s 755  lost 3\n"
		"\n"
		"PID      COMM                     COUNT     RATE   ERRORS      P99\n"
		"4242     bash                      1000    500.0       20   2.10ms\n"
		"17       evil\\e]0;x                 500    250.0        0   13.5us\n"
		"99       a-name-longer-than-16       10      5.0        0        -\n"
		"\n");
	agt_free(f.t);
}

UNIT_TEST(text_sort_rows_filter_mode)
{
	struct fake f = { 0 };
	struct top_model m;
	struct top_display d = display();

	fill(&f);
	m = model(&f);
	/* -s PID ascending, two rows */
	d.sort_col = C_PID;
	d.ascending = true;
	d.rows = 2;
	d.interval_ms = 250;
	check_print(&m, &d, false,
		"tracetop - %s  syscalls > comm=bash  interval 0.25s  events/s 755  lost 3\n"
		"\n"
		"PID      COMM                     COUNT     RATE   ERRORS      P99\n"
		"17       evil\\e]0;x                 500    250.0        0   13.5us\n"
		"99       a-name-longer-than-16       10      5.0        0        -\n"
		"\n");
	/* the text filter: one row; cumulative after an empty interval of
	 * 1 s: 1000 calls in 3 s */
	agt_tick(f.t, NS_PER_SEC);
	d.rows = 0;
	d.filter = "BAS";
	d.mode = AGT_CUMULATIVE;
	d.interval_ms = 1000;
	check_print(&m, &d, false,
		"tracetop - %s  syscalls > comm=bash  cumulative, interval 1.0s  events/s 755  lost 3\n"
		"\n"
		"PID      COMM                COUNT     RATE   ERRORS      P99\n"
		"4242     bash                 1000    333.3       20   2.10ms\n"
		"\n");
	/* per interval, nothing in the last one: the titles alone */
	d.mode = AGT_INTERVAL;
	check_print(&m, &d, false,
		"tracetop - %s  syscalls > comm=bash  interval 1.0s  events/s 755  lost 3\n"
		"\n"
		"PID      COMM                COUNT     RATE   ERRORS      P99\n"
		"\n");
	/* decayed: 500/2 calls in 2 s/2 + 1 s */
	d.mode = AGT_DECAY;
	d.filter = "17";
	check_print(&m, &d, false,
		"tracetop - %s  syscalls > comm=bash  decaying, interval 1.0s  events/s 755  lost 3\n"
		"\n"
		"PID      COMM                COUNT     RATE   ERRORS      P99\n"
		"17       evil\\e]0;x            250    125.0        0   13.5us\n"
		"\n");
	agt_free(f.t);
}

UNIT_TEST(json_interval)
{
	struct fake f = { 0 };
	struct top_model m;
	struct top_display d = display();

	fill(&f);
	f.path = "syscalls > comm=\"x\"";
	m = model(&f);
	d.rows = 2;
	check_print(&m, &d, true,
		"{\"time\":\"%s\",\"view\":\"syscalls > comm=\\\"x\\\"\","
		"\"mode\":\"interval\",\"interval_ms\":2000,\"events\":1510,"
		"\"events_per_sec\":755.4,\"lost\":3,\"rows\":["
		"{\"pid\":4242,\"comm\":\"bash\",\"count\":1000,\"rate\":500,"
		"\"errors\":20,\"p99\":2100000},"
		"{\"pid\":17,\"comm\":\"evil\\u001b]0;x\",\"count\":500,"
		"\"rate\":250,\"errors\":0,\"p99\":13500}]}\n");
	d.mode = AGT_CUMULATIVE;
	d.filter = "nothing";
	check_print(&m, &d, true,
		"{\"time\":\"%s\",\"view\":\"syscalls > comm=\\\"x\\\"\","
		"\"mode\":\"cumulative\",\"interval_ms\":2000,\"events\":1510,"
		"\"events_per_sec\":755.4,\"lost\":3,\"rows\":[]}\n");
	agt_free(f.t);
}

/* Run the batch on @l with stdout on @fd; returns loop_run()'s value. */
static int run_batch(struct loop *l, const struct top_model *m,
		     struct top_display *d, int fd)
{
	int saved, err;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	err = top_batch_start(m, d, l);
	if (!err)
		err = loop_run(l);
	fflush(stdout);
	__fpurge(stdout);	/* what a closed pipe did not take */
	clearerr(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return err;
}

UNIT_TEST(batch_ticks_prints_and_stops)
{
	struct fake f = { 0 };
	struct top_model m;
	struct top_display d = display();
	struct loop *l = loop_new();
	char buf[8192];
	FILE *out = tmpfile();
	uint64_t total = 0;
	size_t n;
	int i, lines = 0;

	fill(&f);
	m = model(&f);
	d.interval_ms = 20;
	d.count = 3;
	d.json = true;
	CHECK_INT(run_batch(l, &m, &d, fileno(out)), 0);
	CHECK_INT(f.ticks, 3);
	/* each tick measured since the last: a late one leaves the next
	 * less, but the three span at least the three periods */
	for (i = 0; i < 3; i++) {
		CHECK(f.elapsed[i] > 0);
		CHECK(f.elapsed[i] < 2 * NS_PER_SEC);
		total += f.elapsed[i];
	}
	CHECK(total >= 59000000);
	rewind(out);
	n = fread(buf, 1, sizeof(buf) - 1, out);
	buf[n] = '\0';
	for (i = 0; buf[i]; i++)
		lines += buf[i] == '\n';
	CHECK_INT(lines, 3);
	/* the samples were in an interval before the batch: none shown */
	CHECK(strstr(buf, "\"rows\":[]}\n") != NULL);
	CHECK(strncmp(buf, "{\"time\":\"", 9) == 0);
	CHECK(!loop_broken_pipe(l));
	CHECK_INT(top_batch_start(&m, &(struct top_display){ 0 }, l), -EINVAL);
	fclose(out);
	loop_free(l);
	agt_free(f.t);
}

/* stdout's text while @fn runs (at most 8 KiB) */
static void capture(char *buf, size_t len, void (*fn)(void))
{
	FILE *out = tmpfile();
	int saved;
	size_t n;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fileno(out), STDOUT_FILENO);
	fn();
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(out);
	n = fread(buf, 1, len - 1, out);
	buf[n] = '\0';
	fclose(out);
}

static int count_lines(const char *s, const char *prefix)
{
	int n = 0;

	for (; s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
		n += !strncmp(s, prefix, strlen(prefix));
	return n;
}

UNIT_TEST(batch_end_prints_the_last_interval_once)
{
	struct fake f = { 0 };
	struct top_model m;
	struct top_display d = display();
	struct loop *l = loop_new();
	char buf[8192];
	int devnull = open("/dev/null", O_WRONLY);

	fill(&f);
	m = model(&f);
	/* stopped before its first interval: the partial one is printed */
	d.interval_ms = 60000;
	d.count = 5;
	CHECK_INT(top_batch_start(&m, &d, l), 0);
	add(f.t, 5, "late", -1, 0, 7);
	capture(buf, sizeof(buf), top_batch_end);
	CHECK_INT(f.ticks, 1);
	CHECK_INT(count_lines(buf, "tracetop - "), 1);
	CHECK(strstr(buf, "\n5        late                    7 ") != NULL);
	capture(buf, sizeof(buf), top_batch_end);	/* once only */
	CHECK_STR(buf, "");
	CHECK_INT(f.ticks, 1);
	loop_free(l);
	/* a batch that ran its count prints nothing more */
	l = loop_new();
	d.interval_ms = 10;
	d.count = 2;
	CHECK_INT(run_batch(l, &m, &d, devnull), 0);
	CHECK_INT(f.ticks, 3);
	capture(buf, sizeof(buf), top_batch_end);
	CHECK_STR(buf, "");
	CHECK_INT(f.ticks, 3);
	close(devnull);
	loop_free(l);
	agt_free(f.t);
}

UNIT_TEST(batch_stops_quietly_on_epipe)
{
	struct fake f = { 0 };
	struct top_model m;
	struct top_display d = display();
	struct loop *l = loop_new();
	int p[2];

	fill(&f);
	m = model(&f);
	d.interval_ms = 10;
	d.count = 0;			/* until stopped */
	signal(SIGPIPE, SIG_IGN);	/* EPIPE alone, no signal */
	CHECK_INT(pipe(p), 0);
	close(p[0]);			/* nobody reads */
	CHECK_INT(run_batch(l, &m, &d, p[1]), 0);
	CHECK(loop_broken_pipe(l));
	CHECK_INT(f.ticks, 1);
	close(p[1]);
	loop_free(l);
	agt_free(f.t);
}

UNIT_MAIN()
