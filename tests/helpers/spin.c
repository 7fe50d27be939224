// SPDX-License-Identifier: GPL-2.0
/*
 * A workload for the perf sampling tests: `spin MS [PAGES]` burns MS
 * milliseconds of its own CPU time in spin_burn() (measured with
 * CLOCK_PROCESS_CPUTIME_ID), then writes to PAGES fresh anonymous pages,
 * one fault each.  It prints, after the work:
 *
 *	cpu_us=N	the CPU time the whole process used (getrusage)
 *	faults=N	its page faults (minor + major) so far
 *	touch_faults=N	the faults of the page loop alone
 *	burn=0xADDR	where spin_burn() is in memory
 *
 * `spin MS PAGES child` does the page loop in a child process instead and
 * prints the child's PID and the page faults of its whole life, from
 * wait4(2): child=PID child_faults=N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) void spin_burn(long long ms)
{
	long long end = cpu_ns() + ms * 1000000LL;
	volatile unsigned long x = 0;

	while (cpu_ns() < end)
		for (int i = 0; i < 10000; i++)
			x += i;
}

static long faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

__attribute__((noinline)) long spin_touch(long pages)
{
	long psz = sysconf(_SC_PAGESIZE), before, i;
	char *p = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	/* a fault per page: no transparent huge page takes 512 at once */
	madvise(p, (size_t)pages * psz, MADV_NOHUGEPAGE);
	before = faults();
	for (i = 0; i < pages; i++)
		p[i * psz] = 1;
	return faults() - before;
}

int main(int argc, char **argv)
{
	long long ms = argc > 1 ? atoll(argv[1]) : 200;
	long pages = argc > 2 ? atol(argv[2]) : 0, touched = 0;
	struct rusage ru;
	char buf[256];
	int n;

	spin_burn(ms);
	if (pages && argc > 3) {
		pid_t pid = fork();
		int status;

		if (pid < 0)
			return 1;
		if (!pid) {
			spin_touch(pages);
			/* alive a while, so a tracer reads its samples while
			 * /proc still says which program it runs */
			usleep(300000);
			_exit(0);
		}
		if (wait4(pid, &status, 0, &ru) != pid)
			return 1;
		n = snprintf(buf, sizeof(buf), "child=%d child_faults=%ld\n", (int)pid,
			     ru.ru_minflt + ru.ru_majflt);
		return write(1, buf, n) == n ? 0 : 1;
	}
	if (pages)
		touched = spin_touch(pages);
	getrusage(RUSAGE_SELF, &ru);
	n = snprintf(buf, sizeof(buf), "cpu_us=%lld\nfaults=%ld\ntouch_faults=%ld\nburn=%#lx\n",
		     (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
		     ru.ru_utime.tv_usec + ru.ru_stime.tv_usec,
		     ru.ru_minflt + ru.ru_majflt, touched, (unsigned long)spin_burn);
	/* write(2): no stdio buffer to fault in after the count */
	if (write(1, buf, n) != n)
		return 1;
	return 0;
}
