// SPDX-License-Identifier: GPL-2.0
/*
 * tkrun: run one tracer for the benchmarks and measure it from outside.
 *
 *   tkrun -s STATS [-r READYFILE] [-f] [-t] -- command [args...]
 *
 * The command runs in its own process group with SIGINT/SIGTERM at their
 * defaults (a shell's background job would otherwise inherit SIGINT
 * ignored).  A SIGINT or SIGTERM sent to tkrun is forwarded to that group,
 * as a terminal's Ctrl-C would be, so wrapper scripts (perf-tools) and
 * multi-process tracers (trace-cmd's per-CPU recorders) stop as they do
 * interactively.
 *
 * With -t the command's process group is made the terminal's foreground
 * group (stdin's), as a shell does for a job, so an interactive program
 * (tracetop's screen) can take the terminal; tkrun takes it back after.
 *
 * STATS gets key=value lines once the command has exited:
 *   pid        the command's PID (also its process group)
 *   ready_ns   launch (just before fork) to the creation of READYFILE,
 *              seen through inotify; -1 if never created
 *   first_ns   with -f: launch to the first byte the command writes on
 *              stdout (stdout goes through a pipe and is copied to ours)
 *   stop_ns    first forwarded signal to the command's exit
 *   wall_ns    launch to exit
 *   user_us, sys_us, maxrss_kb   getrusage of the command and every
 *              descendant it waited for (wait4)
 *   status     exit code, or 128+signal
 * and "pid=" is also written to STATS.pid as soon as the child exists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: tkrun -s STATS [-r READYFILE] [-f] [-t] -- command [args...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *stats = NULL, *ready = NULL;
	char *rdir = NULL, *rbase = NULL, pidpath[4096];
	long long t0, t_ready = -1, t_first = -1, t_stop = -1, t_end = -1;
	int first = 0, opt, ino = -1, sfd, pipefd[2] = { -1, -1 }, status = 0;
	int exited = 0, out_open = 0, term = 0;
	struct rusage ru;
	sigset_t mask;
	pid_t pid;
	FILE *f;

	while ((opt = getopt(argc, argv, "+s:r:ft")) != -1) {
		switch (opt) {
		case 's': stats = optarg; break;
		case 'r': ready = optarg; break;
		case 'f': first = 1; break;
		case 't': term = 1; signal(SIGTTOU, SIG_IGN); break;
		default: usage();
		}
	}
	if (!stats || optind >= argc)
		usage();

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		perror("tkrun: signalfd");
		return 1;
	}
	if (ready) {
		char *d = strdup(ready), *b = strdup(ready);

		rdir = strdup(dirname(d));
		rbase = strdup(basename(b));
		free(d);
		free(b);
		unlink(ready);
		ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
		if (ino < 0 || inotify_add_watch(ino, rdir, IN_CREATE | IN_MOVED_TO) < 0) {
			perror("tkrun: inotify");
			return 1;
		}
	}
	if (first && pipe2(pipefd, O_CLOEXEC) < 0) {
		perror("tkrun: pipe");
		return 1;
	}

	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("tkrun: fork");
		return 1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		if (term) {
			tcsetpgrp(STDIN_FILENO, getpgrp());
			signal(SIGTTOU, SIG_DFL);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_UNBLOCK, &mask, NULL);
		if (first) {
			dup2(pipefd[1], 1);
		}
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "tkrun: cannot run '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	snprintf(pidpath, sizeof(pidpath), "%s.pid", stats);
	f = fopen(pidpath, "w");
	if (f) {
		fprintf(f, "%d\n", pid);
		fclose(f);
	}
	if (first) {
		close(pipefd[1]);
		out_open = 1;
	}

	while (!exited || out_open) {
		struct pollfd pfd[3];
		int n = 0, i_sig, i_ino = -1, i_out = -1;

		pfd[n].fd = sfd;
		pfd[n].events = POLLIN;
		i_sig = n++;
		if (ino >= 0 && t_ready < 0) {
			pfd[n].fd = ino;
			pfd[n].events = POLLIN;
			i_ino = n++;
		}
		if (out_open) {
			pfd[n].fd = pipefd[0];
			pfd[n].events = POLLIN;
			i_out = n++;
		}
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("tkrun: poll");
			break;
		}
		if (i_ino >= 0 && pfd[i_ino].revents) {
			char buf[4096] __attribute__((aligned(8)));
			ssize_t len = read(ino, buf, sizeof(buf));
			long long t = now_ns();
			ssize_t off = 0;

			while (len > 0 && off < len) {
				struct inotify_event *ev = (void *)(buf + off);

				if (ev->len && !strcmp(ev->name, rbase) && t_ready < 0)
					t_ready = t - t0;
				off += sizeof(*ev) + ev->len;
			}
		}
		if (i_out >= 0 && pfd[i_out].revents) {
			char buf[65536];
			ssize_t len = read(pipefd[0], buf, sizeof(buf));

			if (len > 0 && t_first < 0)
				t_first = now_ns() - t0;
			if (len > 0) {
				ssize_t off = 0;

				while (off < len) {
					ssize_t w = write(1, buf + off, len - off);

					if (w <= 0)
						break;
					off += w;
				}
			} else if (len == 0 || errno != EINTR) {
				out_open = 0;
			}
		}
		if (pfd[i_sig].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM) {
				if (t_stop < 0)
					t_stop = now_ns();
				kill(-pid, si.ssi_signo);
			} else if (si.ssi_signo == SIGCHLD && !exited) {
				pid_t w = wait4(pid, &status, WNOHANG, &ru);

				if (w == pid) {
					exited = 1;
					t_end = now_ns();
				}
			}
		}
	}
	if (t_end < 0)
		t_end = now_ns();
	free(rdir);
	free(rbase);

	if (term)
		tcsetpgrp(STDIN_FILENO, getpgrp());
	f = fopen(stats, "w");
	if (!f) {
		perror("tkrun: stats");
		return 1;
	}
	fprintf(f, "pid=%d\n", pid);
	fprintf(f, "ready_ns=%lld\n", t_ready);
	fprintf(f, "first_ns=%lld\n", t_first);
	/* -1 when it exited by itself (e.g. syscount -p after its target) */
	fprintf(f, "stop_ns=%lld\n", t_stop < 0 || t_end < t_stop ? -1 : t_end - t_stop);
	fprintf(f, "wall_ns=%lld\n", t_end - t0);
	fprintf(f, "user_us=%lld\n", (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec);
	fprintf(f, "sys_us=%lld\n", (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
	fprintf(f, "maxrss_kb=%ld\n", ru.ru_maxrss);
	fprintf(f, "status=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) :
		WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1);
	fclose(f);
	return 0;
}
