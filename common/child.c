// SPDX-License-Identifier: GPL-2.0
/*
 * The -c command (see child.h).  The hold is a pipe: the child blocks in
 * read() until the parent writes a byte (released) or closes it, which
 * happens by itself if the parent dies first (the child then exits 127
 * without running anything).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wordexp.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "common/child.h"
#include "common/log.h"

/* In the child: wait for the release, then exec.  The words are expanded
 * here, so that $$ is the command's own PID. */
static void __attribute__((noreturn)) run_held(int fd, const char *cmd)
{
	wordexp_t words;
	sigset_t none;
	char c;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (read(fd, &c, 1) != 1)
		_exit(127);
	close(fd);
	if (wordexp(cmd, &words, WRDE_NOCMD) == 0 && words.we_wordc > 0) {
		execvp(words.we_wordv[0], words.we_wordv);
		fprintf(stderr, "%s: cannot run '%s': %s\n", tk_prog,
			words.we_wordv[0], strerror(errno));
		_exit(127);
	}
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	fprintf(stderr, "%s: cannot run /bin/sh: %s\n", tk_prog, strerror(errno));
	_exit(127);
}

int child_spawn(struct child *c, const char *cmd, char *err, size_t errlen)
{
	int pfd[2], e;
	pid_t pid;

	*c = (struct child){ .release_fd = -1 };
	if (!cmd[strspn(cmd, " \t\n")]) {
		snprintf(err, errlen, "empty command");
		return -EINVAL;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		e = errno;
		snprintf(err, errlen, "cannot create a pipe: %s", strerror(e));
		return -e;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		e = errno;
		snprintf(err, errlen, "cannot fork: %s", strerror(e));
		close(pfd[0]);
		close(pfd[1]);
		return -e;
	}
	if (pid == 0) {
		close(pfd[1]);
		run_held(pfd[0], cmd);
	}
	close(pfd[0]);
	c->pid = pid;
	c->release_fd = pfd[1];
	return 0;
}

int child_release(struct child *c)
{
	int err = 0;

	if (c->release_fd < 0)
		return 0;
	errno = 0;
	if (write(c->release_fd, "x", 1) != 1)
		err = errno ? -errno : -EIO;
	close(c->release_fd);
	c->release_fd = -1;
	return err;
}

bool child_reap(struct child *c, bool wait)
{
	pid_t r;

	if (!c->pid || c->reaped)
		return c->reaped;
	do
		r = waitpid(c->pid, &c->status, wait ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == c->pid || (r < 0 && errno == ECHILD))
		c->reaped = true;
	return c->reaped;
}

void child_end(struct child *c)
{
	int i;

	if (c->release_fd >= 0) {
		close(c->release_fd);	/* never released: it exits at once */
		c->release_fd = -1;
		child_reap(c, true);
		return;
	}
	if (!c->pid || child_reap(c, false))
		return;
	/* SIGTERM, and SIGKILL if it is still there 2 s later: the tool
	 * must not hang on a command that ignores SIGTERM */
	kill(c->pid, SIGTERM);
	for (i = 0; i < 200; i++) {
		if (child_reap(c, false))
			return;
		usleep(10 * 1000);
	}
	kill(c->pid, SIGKILL);
	child_reap(c, true);
}

int child_exit_code(const struct child *c)
{
	if (!c->reaped)
		return 0;
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return 1;
}

int child_detached(const char *cmd, int outfd, char *err, size_t errlen)
{
	int status, e;
	pid_t pid, r;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		e = errno;
		snprintf(err, errlen, "cannot fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		sigset_t none;
		int in;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (fork() != 0)
			_exit(0);
		in = open("/dev/null", O_RDONLY);
		if (in >= 0 && in != STDIN_FILENO) {
			dup2(in, STDIN_FILENO);
			close(in);
		}
		if (outfd != STDOUT_FILENO)
			dup2(outfd, STDOUT_FILENO);
		/* none of tapkit's own descriptors (perf events, tracefs
		 * files, a --prometheus socket that would keep its port) */
		syscall(SYS_close_range, 3U, ~0U, 0U);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	return 0;
}
