// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event counters and samplers on the syscalls:sys_enter_getppid
 * tracepoint, driven by exact numbers of getppid() calls from this process.
 * Needs root (skips otherwise) and the syscall tracepoints.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracefs/perf_counter.h"
#include "tracefs/perf_sampler.h"
#include "tests/unit/unit.h"

#define TRACEFS		"/sys/kernel/tracing"
#define GETPPID_ID	TRACEFS "/events/syscalls/sys_enter_getppid/id"
#define RAW_ENTER_ID	TRACEFS "/events/raw_syscalls/sys_enter/id"
/* x86-64 and arm64 kernels live in the upper half of the address space */
#define KERNEL_START	0xffff000000000000ULL

static void unmount_tracefs(void)
{
	umount(TRACEFS);
}

/* A tracepoint's id, mounting tracefs first if needed; -1 when absent. */
static int tp_id(const char *id_file)
{
	static bool tried_mount;
	char buf[32] = "";
	int fd, id = -1;

	/* mounted by us, unmounted at exit: leave the system as found */
	if (!tried_mount && access(TRACEFS "/events", F_OK) &&
	    mount("nodev", TRACEFS, "tracefs", 0, NULL) == 0)
		atexit(unmount_tracefs);
	tried_mount = true;
	fd = open(id_file, O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) > 0)
			id = atoi(buf);
		close(fd);
	}
	return id;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void getppid_n(int n)
{
	while (n-- > 0)
		syscall(SYS_getppid);
}

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

/* Skip unless root and the tracepoint exist; sets @id. */
#define REQUIRE_TP(id, file, name) do {					\
	if (geteuid() != 0)						\
		SKIP("requires: root");					\
	(id) = tp_id(file);						\
	if ((id) < 0)							\
		SKIP("requires: " name " tracepoint");			\
} while (0)
#define REQUIRE(id) REQUIRE_TP(id, GETPPID_ID, "syscalls:sys_enter_getppid")

/*
 * What the sample callback checks and counts.  Both tracepoints used here
 * start their fields with the syscall number at offset 8 (int nr in
 * syscalls:*, long id in raw_syscalls:*; little-endian either way).
 */
struct seen {
	int id;
	pid_t tid;
	uint64_t lo, hi, last_ts;
	int n, bad_pid, bad_id, bad_ts, bad_order, bad_nr, no_kstack, no_ustack;
	int bad_addr;
	bool callchain, want_kstack;
};

static void on_sample(const struct tk_event *ev, void *arg)
{
	struct seen *s = arg;
	int32_t nr = -1;
	unsigned int i;

	s->n++;
	s->bad_pid += ev->pid != s->tid;
	s->bad_id += ev->id != s->id;
	s->bad_ts += ev->ts < s->lo || ev->ts > s->hi;
	s->bad_order += ev->ts < s->last_ts;
	s->last_ts = ev->ts;
	/* struct syscall_trace_enter: 8-byte common header, then int nr */
	if (ev->size >= 12)
		memcpy(&nr, (const char *)ev->data + 8, 4);
	s->bad_nr += nr != SYS_getppid;
	if (!s->callchain)
		return;
	s->no_kstack += ev->nkstack == 0;
	s->no_ustack += ev->nstack <= ev->nkstack;
	for (i = 0; i < ev->nstack; i++)
		s->bad_addr += (i < ev->nkstack) != (ev->stack[i] >= KERNEL_START);
}

static void seen_init(struct seen *s, int id, pid_t tid, bool callchain)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->tid = tid;
	s->callchain = callchain;
}

static void check_seen(const struct seen *s, int expect)
{
	CHECK_INT(s->n, expect);
	CHECK_INT(s->bad_pid, 0);
	CHECK_INT(s->bad_id, 0);
	CHECK_INT(s->bad_ts, 0);
	CHECK_INT(s->bad_order, 0);
	CHECK_INT(s->bad_nr, 0);
	if (s->callchain) {
		CHECK_INT(s->no_ustack, 0);
		CHECK_INT(s->bad_addr, 0);
	}
	if (s->want_kstack)
		CHECK_INT(s->no_kstack, 0);
}

UNIT_TEST(counter_system_wide)
{
	struct perf_counter *c;
	int id;

	REQUIRE(id);
	c = perf_counter_open(id, NULL, NULL, NULL);
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_INT(perf_counter_read(c), 0);
	CHECK_INT(perf_counter_enable(c), 0);
	getppid_n(1000);
	CHECK_INT(perf_counter_disable(c), 0);
	CHECK(perf_counter_read(c) >= 1000);
	/* disabled: no longer counting */
	{
		uint64_t v = perf_counter_read(c);

		getppid_n(10);
		CHECK(perf_counter_read(c) == v);
	}
	perf_counter_free(c);
}

UNIT_TEST(counter_own_thread_exact)
{
	pid_t tid = gettid_();
	struct perf_scope scope = { .tids = &tid, .ntids = 1 };
	struct perf_counter *c;
	int id;

	REQUIRE(id);
	c = perf_counter_open(id, &scope, NULL, NULL);
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_INT(perf_counter_enable(c), 0);
	getppid_n(1000);
	CHECK_INT(perf_counter_disable(c), 0);
	CHECK_INT(perf_counter_read(c), 1000);
	perf_counter_free(c);
}

UNIT_TEST(counter_filter_common_pid_exact)
{
	struct perf_counter *c;
	char filter[64];
	int id;

	REQUIRE(id);
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)gettid_());
	c = perf_counter_open(id, NULL, filter, NULL);
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_INT(perf_counter_enable(c), 0);
	getppid_n(1000);
	CHECK_INT(perf_counter_disable(c), 0);
	CHECK_INT(perf_counter_read(c), 1000);
	perf_counter_free(c);
}

UNIT_TEST(counter_bad_filter_einval)
{
	pid_t tid = gettid_();
	struct perf_scope scope = { .tids = &tid, .ntids = 1 };
	int id;

	REQUIRE(id);
	errno = 0;
	CHECK(perf_counter_open(id, NULL, "nonsense ==", NULL) == NULL);
	CHECK_INT(errno, EINVAL);
	errno = 0;
	CHECK(perf_counter_open(id, &scope, "nonsense ==", NULL) == NULL);
	CHECK_INT(errno, EINVAL);
	errno = 0;
	CHECK(perf_sampler_open(id, NULL, "nonsense ==", false, 1) == NULL);
	CHECK_INT(errno, EINVAL);
}

UNIT_TEST(open_errors)
{
	pid_t tid = gettid_();
	struct perf_scope none = { .tids = &tid, .ntids = 0 };
	int id;

	REQUIRE(id);
	errno = 0;
	CHECK(perf_counter_open(id, &none, NULL, NULL) == NULL);
	CHECK_INT(errno, EINVAL);
	errno = 0;
	CHECK(perf_sampler_open(id, NULL, NULL, false, 3) == NULL);	/* not 2^n */
	CHECK_INT(errno, EINVAL);
	errno = 0;
	CHECK(perf_counter_open(-5, NULL, NULL, NULL) == NULL);
	CHECK(errno != 0);
}

/* Threads that are gone are skipped; all gone is ESRCH. */
UNIT_TEST(open_skips_exited_threads)
{
	pid_t tids[2] = { 0, gettid_() }, dead;
	struct perf_scope scope = { .tids = tids, .ntids = 2 };
	struct perf_scope only_dead = { .tids = tids, .ntids = 1 };
	struct perf_counter *c;
	struct perf_sampler *s;
	int id, status;

	REQUIRE(id);
	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, &status, 0);
	tids[0] = dead;
	c = perf_counter_open(id, &scope, NULL, NULL);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(perf_counter_enable(c), 0);
		getppid_n(7);
		CHECK_INT(perf_counter_disable(c), 0);
		CHECK_INT(perf_counter_read(c), 7);
	}
	perf_counter_free(c);
	s = perf_sampler_open(id, &scope, NULL, false, 1);
	CHECK(s != NULL);
	perf_sampler_free(s);
	errno = 0;
	CHECK(perf_counter_open(id, &only_dead, NULL, NULL) == NULL);
	CHECK_INT(errno, ESRCH);
	errno = 0;
	CHECK(perf_sampler_open(id, &only_dead, NULL, false, 1) == NULL);
	CHECK_INT(errno, ESRCH);
}

static void *thread_100(void *arg)
{
	*(pid_t *)arg = gettid_();
	getppid_n(100);
	return NULL;
}

/* Thread scope follows new threads (inherit) but not forked children
 * (inherit_thread, Linux 5.13+). */
UNIT_TEST(counter_thread_scope_inherits_threads_only)
{
	pid_t tid = gettid_(), child, th_tid = 0;
	struct perf_scope scope = { .tids = &tid, .ntids = 1 };
	struct perf_counter *c;
	pthread_t th;
	int id, status;

	REQUIRE(id);
	c = perf_counter_open(id, &scope, NULL, NULL);
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_INT(perf_counter_enable(c), 0);
	CHECK_INT(pthread_create(&th, NULL, thread_100, &th_tid), 0);
	pthread_join(th, NULL);
	child = fork();
	if (child == 0) {
		getppid_n(100);
		_exit(0);
	}
	waitpid(child, &status, 0);
	getppid_n(10);
	CHECK_INT(perf_counter_disable(c), 0);
	CHECK_INT(perf_counter_read(c), 110);
	perf_counter_free(c);
}

/*
 * syscalls:sys_enter_* samples carry only a user callchain: the kernel
 * hands perf the syscall's user-mode registers, and perf unwinds the kernel
 * only from kernel-mode registers (kernel stacks: see the next test).
 */
UNIT_TEST(sampler_callchain_own_thread)
{
	pid_t tid = gettid_();
	struct perf_scope scope = { .tids = &tid, .ntids = 1 };
	struct perf_sampler *s;
	struct seen seen;
	const int *fds;
	int id, nfds;

	REQUIRE(id);
	s = perf_sampler_open(id, &scope, NULL, true, 0);
	CHECK(s != NULL);
	if (!s)
		return;
	fds = perf_sampler_fds(s, &nfds);
	CHECK(fds != NULL && nfds == sysconf(_SC_NPROCESSORS_ONLN));
	seen_init(&seen, id, tid, true);
	CHECK_INT(perf_sampler_enable(s), 0);
	seen.lo = mono_ns();
	getppid_n(50);
	seen.hi = mono_ns();
	CHECK_INT(perf_sampler_disable(s), 0);
	CHECK_INT(perf_sampler_drain(s, on_sample, &seen), 50);
	check_seen(&seen, 50);
	CHECK_INT(perf_sampler_lost(s), 0);
	/* nothing left */
	CHECK_INT(perf_sampler_drain(s, on_sample, &seen), 0);
	perf_sampler_free(s);
}

/* raw_syscalls:sys_enter fires from kernel code: kernel then user frames. */
UNIT_TEST(sampler_kernel_and_user_callchain)
{
	pid_t tid = gettid_();
	struct perf_scope scope = { .tids = &tid, .ntids = 1 };
	struct perf_sampler *s;
	struct seen seen;
	char filter[32];
	int id;

	REQUIRE_TP(id, RAW_ENTER_ID, "raw_syscalls:sys_enter");
	snprintf(filter, sizeof(filter), "id == %d", SYS_getppid);
	s = perf_sampler_open(id, &scope, filter, true, 0);
	CHECK(s != NULL);
	if (!s)
		return;
	seen_init(&seen, id, tid, true);
	seen.want_kstack = true;
	CHECK_INT(perf_sampler_enable(s), 0);
	seen.lo = mono_ns();
	getppid_n(50);
	seen.hi = mono_ns();
	CHECK_INT(perf_sampler_disable(s), 0);
	CHECK_INT(perf_sampler_drain(s, on_sample, &seen), 50);
	check_seen(&seen, 50);
	CHECK_INT(perf_sampler_lost(s), 0);
	perf_sampler_free(s);
}

UNIT_TEST(sampler_system_wide_filtered)
{
	struct perf_sampler *s;
	struct seen seen;
	char filter[64];
	int id;

	REQUIRE(id);
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)gettid_());
	s = perf_sampler_open(id, NULL, filter, false, 4);
	CHECK(s != NULL);
	if (!s)
		return;
	seen_init(&seen, id, gettid_(), false);
	CHECK_INT(perf_sampler_enable(s), 0);
	seen.lo = mono_ns();
	getppid_n(50);
	seen.hi = mono_ns();
	CHECK_INT(perf_sampler_disable(s), 0);
	CHECK_INT(perf_sampler_drain(s, on_sample, &seen), 50);
	check_seen(&seen, 50);
	CHECK_INT(perf_sampler_lost(s), 0);
	perf_sampler_free(s);
}

/* Records of varying size in one small ring: many wrap around its end. */
UNIT_TEST(sampler_wraparound_records)
{
	pid_t tid = gettid_();
	struct perf_scope scope = { .tids = &tid, .ntids = 1 };
	struct perf_sampler *s;
	struct seen seen;
	int id, round, total = 0;
	char filter[32];

	REQUIRE_TP(id, RAW_ENTER_ID, "raw_syscalls:sys_enter");
	snprintf(filter, sizeof(filter), "id == %d", SYS_getppid);
	s = perf_sampler_open(id, &scope, filter, true, 1);
	CHECK(s != NULL);
	if (!s)
		return;
	seen_init(&seen, id, tid, true);
	seen.want_kstack = true;
	seen.lo = mono_ns();
	seen.hi = UINT64_MAX;
	CHECK_INT(perf_sampler_enable(s), 0);
	for (round = 0; round < 60; round++) {
		getppid_n(1 + round % 7);
		total += 1 + round % 7;
		perf_sampler_drain(s, on_sample, &seen);
	}
	CHECK_INT(perf_sampler_disable(s), 0);
	perf_sampler_drain(s, on_sample, &seen);
	check_seen(&seen, total);
	CHECK_INT(perf_sampler_lost(s), 0);
	perf_sampler_free(s);
}

/* 1 data page, 20000 events, nobody draining: loss is counted exactly. */
UNIT_TEST(sampler_overflow_counts_loss)
{
	pid_t tid = gettid_();
	struct perf_scope scope = { .tids = &tid, .ntids = 1 };
	struct perf_sampler *s;
	struct seen seen;
	uint64_t lost;
	int id, n;

	REQUIRE(id);
	s = perf_sampler_open(id, &scope, NULL, false, 1);
	CHECK(s != NULL);
	if (!s)
		return;
	seen_init(&seen, id, tid, false);
	CHECK_INT(perf_sampler_enable(s), 0);
	seen.lo = mono_ns();
	getppid_n(20000);
	seen.hi = mono_ns();
	CHECK_INT(perf_sampler_disable(s), 0);
	lost = perf_sampler_lost(s);
	CHECK(lost > 0);
	n = perf_sampler_drain(s, on_sample, &seen);
	CHECK(n > 0 && n < 20000);
	check_seen(&seen, n);
	printf("# delivered %d, lost %llu\n", n, (unsigned long long)lost);
	CHECK_INT(n + lost, 20000);
	CHECK_INT(perf_sampler_lost(s), lost);
	perf_sampler_free(s);
}

/* A ring wakes its poller only past a quarter of its size. */
UNIT_TEST(sampler_wakeup_watermark)
{
	pid_t tid = gettid_();
	struct perf_scope scope = { .tids = &tid, .ntids = 1 };
	struct perf_sampler *s;
	struct pollfd pfd[64];
	const int *fds;
	int id, i, n, ready;

	REQUIRE(id);
	s = perf_sampler_open(id, &scope, NULL, false, 4);	/* 16 KiB ring */
	CHECK(s != NULL);
	if (!s)
		return;
	fds = perf_sampler_fds(s, &n);
	CHECK(n > 0 && n <= 64);
	for (i = 0; i < n && i < 64; i++)
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	CHECK_INT(perf_sampler_enable(s), 0);
	getppid_n(5);			/* ~500 bytes: below 4 KiB */
	ready = poll(pfd, n, 0);
	CHECK_INT(ready, 0);
	getppid_n(100);			/* ~10 KiB: past it */
	ready = poll(pfd, n, 1000);
	CHECK(ready >= 1);
	perf_sampler_free(s);
}

/* Samples of a thread created after enable are taken, by its own tid. */
UNIT_TEST(sampler_thread_scope_follows_new_threads)
{
	pid_t tid = gettid_(), th_tid = 0;
	struct perf_scope scope = { .tids = &tid, .ntids = 1 };
	struct perf_sampler *s;
	struct seen seen;
	pthread_t th;
	int id;

	REQUIRE(id);
	s = perf_sampler_open(id, &scope, NULL, false, 0);
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_INT(perf_sampler_enable(s), 0);
	seen_init(&seen, id, 0, false);
	seen.lo = mono_ns();
	CHECK_INT(pthread_create(&th, NULL, thread_100, &th_tid), 0);
	pthread_join(th, NULL);
	seen.hi = mono_ns();
	CHECK_INT(perf_sampler_disable(s), 0);
	seen.tid = th_tid;
	CHECK_INT(perf_sampler_drain(s, on_sample, &seen), 100);
	check_seen(&seen, 100);
	perf_sampler_free(s);
}

UNIT_TEST(raise_fd_limit)
{
	struct rlimit rl, low;

	CHECK_INT(getrlimit(RLIMIT_NOFILE, &rl), 0);
	low = rl;
	if (low.rlim_max > 64)
		low.rlim_cur = 64;
	CHECK_INT(setrlimit(RLIMIT_NOFILE, &low), 0);
	perf_raise_fd_limit();
	CHECK_INT(getrlimit(RLIMIT_NOFILE, &low), 0);
	CHECK(low.rlim_cur == rl.rlim_max);
}

UNIT_MAIN()
