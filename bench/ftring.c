// SPDX-License-Identifier: GPL-2.0
/*
 * ftring: the smallest reader of a tracefs instance's ring, as a floor for
 * the transport benchmark.  The same transport as tapkit's records
 * (tracefs/ring.c): a private instance with overwrite off, the event enabled
 * only there, per-CPU trace_pipe_raw read non-blocking a sub-buffer at a
 * time and walked with kbuffer; but records are only counted, never
 * decoded, ordered or printed.
 *
 *   ftring [-b KB] [-w PERCENT] [-p PID] [-a] sys:event
 *
 *   -b KB       per-CPU ring size (default: the instance's default)
 *   -w PERCENT  buffer_percent: wake the reader at this fill (default 0,
 *               as tpoint; syscount -P uses 25)
 *   -p PID      also count the records whose common_pid is PID
 *   -a          record our own syscalls too (no set_event_notrace_pid), as
 *               trace-cmd --no-filter does
 *
 * The instance is named tkbench_<pid> (not tapkit_*, which tapkit's
 * stale-session cleanup owns) and removed at exit, also after SIGINT or
 * SIGTERM.  Runs until SIGINT/SIGTERM, then disables the event, drains and
 * prints: records=N pid_records=M lost=L, where lost is the sum of the
 * instance's per-CPU "overrun" and "dropped events" stats.
 * Creates $TAPKIT_READY_FILE once the event is enabled, like tapkit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kbuffer.h>

#define TRACEFS "/sys/kernel/tracing"

static char inst[256];
static int ncpu;
static uint64_t records, pid_records;

static int wfile(const char *rel, const char *val)
{
	char path[512];
	int fd, n, len = strlen(val);

	snprintf(path, sizeof(path), "%s/%s", inst, rel);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	close(fd);
	return n == len ? 0 : -errno;
}

static uint64_t stats_lost(void)
{
	uint64_t lost = 0;
	char path[512], buf[4096], *p;
	int c, fd, n;

	for (c = 0; c < ncpu; c++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", inst, c);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if ((p = strstr(buf, "\noverrun:")) || (p = strstr(buf, "overrun:")))
			lost += strtoull(strchr(p, ':') + 1, NULL, 10);
		if ((p = strstr(buf, "dropped events:")))
			lost += strtoull(p + strlen("dropped events:"), NULL, 10);
	}
	return lost;
}

/* Walk one sub-buffer; count records (and those of @pid). */
static void walk(struct kbuffer *kb, void *page, int pid)
{
	unsigned long long ts;
	void *rec;

	if (kbuffer_load_subbuffer(kb, page) < 0)
		return;
	for (rec = kbuffer_read_event(kb, &ts); rec; rec = kbuffer_next_event(kb, &ts)) {
		int32_t rpid;

		records++;
		memcpy(&rpid, (char *)rec + 4, sizeof(rpid));	/* common_pid */
		if (pid > 0 && rpid == pid)
			pid_records++;
	}
}

static void drain(int *fds, struct kbuffer *kb, void *page, long subbuf, int pid)
{
	int c, n;

	/* at most 4096 sub-buffers per CPU per call, so a busy ring cannot
	 * keep us from seeing SIGINT */
	for (c = 0; c < ncpu; c++) {
		for (n = 0; n < 4096; n++) {
			ssize_t n = read(fds[c], page, subbuf);

			if (n <= 0)
				break;
			walk(kb, page, pid);
		}
	}
}

static void cleanup(void)
{
	if (inst[0]) {
		rmdir(inst);
		inst[0] = '\0';
	}
}

int main(int argc, char **argv)
{
	const char *bkb = NULL, *pct = "0", *ready;
	char rel[512], *colon, spec[256];
	int opt, c, pid = 0, sfd, stop = 0, err, *fds, self = 0;
	long subbuf = sysconf(_SC_PAGESIZE);
	struct pollfd *pfd;
	struct kbuffer *kb;
	sigset_t mask;
	void *page;
	FILE *f;

	while ((opt = getopt(argc, argv, "ab:w:p:")) != -1) {
		switch (opt) {
		case 'a': self = 1; break;
		case 'b': bkb = optarg; break;
		case 'w': pct = optarg; break;
		case 'p': pid = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: ftring [-b KB] [-w PERCENT] [-p PID] [-a] sys:event\n");
			return 2;
		}
	}
	if (optind != argc - 1 || !strchr(argv[optind], ':')) {
		fprintf(stderr, "usage: ftring [-b KB] [-w PERCENT] [-p PID] [-a] sys:event\n");
		return 2;
	}
	snprintf(spec, sizeof(spec), "%s", argv[optind]);
	colon = strchr(spec, ':');
	*colon = '\0';

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);

	snprintf(inst, sizeof(inst), "%s/instances/tkbench_%d", TRACEFS, getpid());
	if (mkdir(inst, 0750) < 0) {
		fprintf(stderr, "ftring: cannot create %s: %s\n", inst, strerror(errno));
		inst[0] = '\0';
		return 1;
	}
	atexit(cleanup);
	err = wfile("options/overwrite", "0");
	if (!err && bkb)
		err = wfile("buffer_size_kb", bkb);
	if (!err)
		err = wfile("buffer_percent", pct);
	/* never record ourselves: our reads are syscalls (raw_syscalls would
	 * feed back on itself), as tapkit's sessions do */
	if (!err && !self) {
		char me[16];

		snprintf(me, sizeof(me), "%d", getpid());
		err = wfile("set_event_notrace_pid", me);
	}
	if (err) {
		fprintf(stderr, "ftring: cannot configure %s: %s\n", inst, strerror(-err));
		return 1;
	}
	/* the sub-buffer size (6.8+ makes it configurable) */
	snprintf(rel, sizeof(rel), "%s/buffer_subbuf_size_kb", inst);
	f = fopen(rel, "r");
	if (f) {
		long kbs;

		if (fscanf(f, "%ld", &kbs) == 1 && kbs > 0)
			subbuf = kbs * 1024;
		fclose(f);
	}

	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	fds = calloc(ncpu, sizeof(*fds));
	pfd = calloc(ncpu + 1, sizeof(*pfd));
	for (c = 0; c < ncpu; c++) {
		snprintf(rel, sizeof(rel), "%s/per_cpu/cpu%d/trace_pipe_raw", inst, c);
		fds[c] = open(rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fds[c] < 0) {
			fprintf(stderr, "ftring: cannot open %s: %s\n", rel, strerror(errno));
			return 1;
		}
		pfd[c].fd = fds[c];
		pfd[c].events = POLLIN;
	}
	pfd[ncpu].fd = sfd;
	pfd[ncpu].events = POLLIN;
	page = malloc(subbuf);
	/* page header: u64 timestamp, then commit as a host long */
	kb = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!page || !kb)
		return 1;

	snprintf(rel, sizeof(rel), "events/%s/%s/enable", spec, colon + 1);
	if (wfile(rel, "1") < 0) {
		fprintf(stderr, "ftring: cannot enable %s:%s\n", spec, colon + 1);
		return 1;
	}
	ready = getenv("TAPKIT_READY_FILE");
	if (ready && *ready)
		close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));

	while (!stop) {
		if (poll(pfd, ncpu + 1, -1) < 0 && errno != EINTR)
			break;
		drain(fds, kb, page, subbuf, pid);
		if (pfd[ncpu].revents)
			stop = 1;
	}
	wfile(rel, "0");
	drain(fds, kb, page, subbuf, pid);
	printf("records=%llu pid_records=%llu lost=%llu\n", (unsigned long long)records,
	       (unsigned long long)pid_records, (unsigned long long)stats_lost());
	for (c = 0; c < ncpu; c++)
		close(fds[c]);
	kbuffer_free(kb);
	free(page);
	cleanup();
	return 0;
}
