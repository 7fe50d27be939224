// SPDX-License-Identifier: GPL-2.0
/*
 * The script's own files and standard input: procfs("name").read and
 * .write, input.char and input.line, and the metrics endpoint of
 * `prometheus` (procfs("__prometheus").read) over HTTP (--prometheus).
 *
 * stap makes /proc/systemtap/MODULE/name; tapkit makes a FIFO,
 * /run/tapkit/PID/name, and serves it from the loop:
 *
 *   read   tapkit holds the FIFO open read-write, so a reader's open()
 *          returns at once, and watches it with inotify: the reader's
 *          IN_OPEN fires the probe, whose $value is written into the
 *          FIFO; tapkit closes its end, so the reader gets the text and
 *          then end of file, and opens it again once every reader has
 *          closed (IN_CLOSE_NOWRITE).  Readers that open it together
 *          share one firing.
 *   write  tapkit holds it open for reading; what a writer writes is
 *          gathered until it closes (POLLHUP), then the probe fires once
 *          with all of it in $value.
 *
 * A name is read or written, not both: a FIFO has no way to tell which
 * an opener wants before it reads or writes.
 *
 * input.char fires per byte of standard input, input.line per line
 * (without its newline; a last line without one fires at end of input),
 * with it in $value; on a terminal, input.char turns canonical mode off
 * for the run, as stap does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <dirent.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "common/httpd.h"
#include "common/log.h"
#include "common/loop.h"
#include "common/task.h"
#include "lang/diag.h"
#include "lang/fmt_sb.h"
#include "lang/run.h"
#include "prov/prov.h"

#define RUN_DIR		"/run/tapkit"
#define PROM_NAME	"__prometheus"
#define DEFAULT_NAME	"command"

enum kind { K_READ, K_WRITE, K_CHAR, K_LINE };

struct pdata {
	enum kind kind;
	char *name;		/* procfs: the file */
	int64_t maxsize;	/* read: at most this much of $value; 0: all */
	int umask;
};

/* ---- compile ------------------------------------------------------------ */

static int bad(const struct prov_env *env, struct diag_loc loc, const char *what)
{
	diag_error(env->diag, loc, "%s", what);
	return -1;
}

static int valid_name(const char *s)
{
	return *s && strlen(s) < NAME_MAX && !strchr(s, '/') &&
	       strcmp(s, ".") && strcmp(s, "..");
}

static int expand_procfs(const struct prov_env *env, const struct ast_pp *pp,
			 struct prov_list *out)
{
	const struct ast_ppcomp *c = pp->comps;
	struct pdata *d;
	struct prov_probe *p;
	const char *name = DEFAULT_NAME;
	int64_t umask = 0, maxsize = 0;
	enum kind kind;
	size_t i = 1;
	char text[NAME_MAX + 96];
	int n;

	if (c[0].arg) {
		if (c[0].arg->kind != AST_E_STR)
			return bad(env, c[0].loc, "procfs takes a file name: "
				   "procfs(\"name\")");
		name = c[0].arg->u.str.s;
		if (!valid_name(name))
			return bad(env, c[0].arg->loc, "a procfs file name is "
				   "one path component, not empty");
	}
	if (i < pp->ncomps && !strcmp(c[i].name, "umask")) {
		if (!c[i].arg || c[i].arg->kind != AST_E_NUM ||
		    c[i].arg->u.num < 0 || c[i].arg->u.num > 0777)
			return bad(env, c[i].loc, "umask takes a mode: "
				   "umask(0002)");
		umask = c[i++].arg->u.num;
	}
	if (i >= pp->ncomps || (strcmp(c[i].name, "read") &&
				strcmp(c[i].name, "write")) || c[i].arg)
		return bad(env, i < pp->ncomps ? c[i].loc : pp->loc,
			   "expected procfs(\"name\").read or .write");
	kind = c[i++].name[0] == 'r' ? K_READ : K_WRITE;
	if (i < pp->ncomps && kind == K_READ && !strcmp(c[i].name, "maxsize")) {
		if (!c[i].arg || c[i].arg->kind != AST_E_NUM ||
		    c[i].arg->u.num <= 0)
			return bad(env, c[i].loc, "maxsize takes a positive "
				   "number of bytes");
		maxsize = c[i++].arg->u.num;
	}
	if (i < pp->ncomps)
		return bad(env, c[i].loc, "unexpected component after "
			   "procfs(...).read/.write");
	d = xcalloc(1, sizeof(*d));
	d->kind = kind;
	d->name = xstrdup(name);
	d->maxsize = maxsize;
	d->umask = (int)umask;
	n = snprintf(text, sizeof(text), "procfs(\"%s\")", name);
	if (umask)
		n += snprintf(text + n, sizeof(text) - n, ".umask(%#o)",
			      (int)umask);
	n += snprintf(text + n, sizeof(text) - n, ".%s",
		      kind == K_READ ? "read" : "write");
	if (maxsize)
		snprintf(text + n, sizeof(text) - n, ".maxsize(%lld)",
			 (long long)maxsize);
	p = prov_probe_new(&prov_procfs, text, PROV_RUNNING);
	p->data = d;
	prov_list_push(out, p);
	return 1;
}

static int procfs_expand(const struct prov_env *env, const struct ast_pp *pp,
			 struct prov_list *out)
{
	struct prov_probe *p;
	struct pdata *d;

	if (!strcmp(pp->comps[0].name, "procfs"))
		return expand_procfs(env, pp, out);
	if (strcmp(pp->comps[0].name, "input"))
		return 0;
	if (pp->ncomps != 2 || pp->comps[0].arg || pp->comps[1].arg ||
	    (strcmp(pp->comps[1].name, "char") &&
	     strcmp(pp->comps[1].name, "line")))
		return bad(env, pp->loc, "expected input.char or input.line");
	d = xcalloc(1, sizeof(*d));
	d->kind = pp->comps[1].name[0] == 'c' ? K_CHAR : K_LINE;
	p = prov_probe_new(&prov_procfs, d->kind == K_CHAR ? "input.char" :
			   "input.line", PROV_RUNNING);
	p->data = d;
	prov_list_push(out, p);
	return 1;
}

static size_t procfs_vars(const struct prov_probe *p, struct prov_var *out,
			  size_t max)
{
	if (max)
		out[0] = (struct prov_var){ .name = "value",
					    .type = AST_T_STRING,
					    .flags = PROV_VAR_VALUE };
	return 1;
}

static int procfs_var(const struct prov_probe *p, const char *name,
		      struct prov_var *out)
{
	if (strcmp(name, "value"))
		return -ENOENT;
	procfs_vars(p, out, 1);
	return 0;
}

static void procfs_describe(const struct prov_probe *p, bool plan, FILE *f)
{
	const struct pdata *d = p->data;

	if (plan) {
		fprintf(f, "# %s: nothing to write in tracefs\n", p->pp);
		return;
	}
	switch (d->kind) {
	case K_READ:
		fprintf(f, "FIFO %s/PID/%s: each reader fires the handler "
			"and reads $value%s", RUN_DIR, d->name,
			strcmp(d->name, PROM_NAME) ? "" :
			"; also GET /metrics with --prometheus");
		break;
	case K_WRITE:
		fprintf(f, "FIFO %s/PID/%s: each writer's text in $value, at "
			"its close", RUN_DIR, d->name);
		break;
	default:
		fprintf(f, "standard input, %s in $value",
			d->kind == K_CHAR ? "a byte at a time" : "a line at a time");
	}
}

/* ---- run ---------------------------------------------------------------- */

struct file {
	struct state *s;
	struct prov_probe *p;	/* its probe */
	char *path;
	int fd;
	int own_opens;		/* read: our IN_OPENs still to come */
	int readers;		/* read: openers that have not closed */
	bool served;		/* read: our end is closed for them */
	struct strbuf in;	/* write: what the writer wrote so far */
};

struct state {
	struct run *run;
	char dir[64];
	bool made_dir;
	struct file *files;
	size_t nfiles;
	int ino;
	/* input */
	struct prov_probe *chr, *line;
	struct strbuf pending;	/* input.line: the line so far */
	bool tty_set;
	struct termios tty;
	/* --prometheus */
	struct httpd *http;
	struct file *prom;
};

/* Fire @p with $value set to @v (@n bytes); $value as it is after. */
static struct strbuf *fire(struct state *s, struct prov_probe *p,
			   const char *v, size_t n)
{
	struct strbuf *val = run_value(s->run);

	fmt_sb_reset(val);
	fmt_sb_add(val, v, n);
	run_fire(s->run, p, NULL);
	run_flush(s->run);
	return val;
}

static int open_read(struct file *f)
{
	f->fd = open(f->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	f->own_opens++;
	f->served = false;
	return 0;
}

/* A reader opened @f: its text, then our end closed for its EOF. */
static void serve_read(struct file *f)
{
	struct pdata *d = f->p->data;
	struct strbuf *v = fire(f->s, f->p, "", 0);
	size_t n = v->len;
	int size;

	if (d->maxsize && (size_t)d->maxsize < n)
		n = (size_t)d->maxsize;
	/* a pipe holds 64 KiB unless made bigger (up to pipe-max-size) */
	size = fcntl(f->fd, F_GETPIPE_SZ);
	if (size >= 0 && (size_t)size < n)
		fcntl(f->fd, F_SETPIPE_SZ, (int)n);
	if (n) {
		ssize_t k = write(f->fd, v->buf, n);

		if (k < 0)
			run_warn(f->s->run, "cannot serve %s: %s", f->path,
				 strerror(errno));
		else if ((size_t)k < n)	/* past pipe-max-size */
			run_warn(f->s->run, "%s: %zd of %zu bytes served (the "
				 "pipe's size; raise fs.pipe-max-size)",
				 f->path, k, n);
	}
	close(f->fd);
	f->fd = -1;
	f->served = true;
}

static struct file *by_path(struct state *s, const char *name)
{
	size_t i, n = strlen(s->dir);

	for (i = 0; i < s->nfiles; i++)
		if (!strncmp(s->files[i].path, s->dir, n) &&
		    !strcmp(s->files[i].path + n + 1, name))
			return &s->files[i];
	return NULL;
}

static int on_inotify(struct loop *l, int fd, void *arg)
{
	struct state *s = arg;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t k;

	while ((k = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + k;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			struct file *f = ev->len ? by_path(s, ev->name) : NULL;

			p += sizeof(*ev) + ev->len;
			if (!f || ((struct pdata *)f->p->data)->kind != K_READ)
				continue;
			if (ev->mask & IN_OPEN) {
				if (f->own_opens > 0) {
					f->own_opens--;
					continue;
				}
				f->readers++;
				if (!f->served && !run_exiting(s->run))
					serve_read(f);
			}
			if ((ev->mask & IN_CLOSE_NOWRITE) && f->readers > 0 &&
			    --f->readers == 0 && f->served && open_read(f) < 0)
				run_warn(s->run, "cannot reopen %s: %s",
					 f->path, strerror(errno));
		}
	}
	return 0;
}

static int open_write(struct file *f);

/* A writer wrote, or all of them closed (POLLHUP: read() gives 0). */
static int on_write(struct loop *l, int fd, void *arg)
{
	struct file *f = arg;
	char buf[4096];
	ssize_t k;

	while ((k = read(fd, buf, sizeof(buf))) > 0)
		fmt_sb_add(&f->in, buf, (size_t)k);
	if (k < 0 && errno == EAGAIN)
		return 0;
	/* end of this writer: fire, then a fresh end for the next */
	fire(f->s, f->p, f->in.len ? f->in.buf : "", f->in.len);
	fmt_sb_reset(&f->in);
	loop_forget(l, f);
	close(f->fd);
	f->fd = -1;
	if (open_write(f) < 0)
		run_warn(f->s->run, "cannot reopen %s: %s", f->path,
			 strerror(errno));
	return 0;
}

static int open_write(struct file *f)
{
	f->fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	return loop_add(run_loop(f->s->run), f->fd, on_write, f);
}

static int on_stdin(struct loop *l, int fd, void *arg)
{
	/* its own loop argument: &s->pending */
	struct state *s = (struct state *)((char *)arg -
					   offsetof(struct state, pending));
	char buf[4096];
	ssize_t k = read(0, buf, sizeof(buf)), i;

	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	for (i = 0; i < k && !run_exiting(s->run); i++) {
		if (s->chr)
			fire(s, s->chr, buf + i, 1);
		if (!s->line)
			continue;
		if (buf[i] != '\n') {
			fmt_sb_addc(&s->pending, buf[i]);
			continue;
		}
		fire(s, s->line, s->pending.len ? s->pending.buf : "",
		     s->pending.len);
		fmt_sb_reset(&s->pending);
	}
	if (k <= 0) {		/* end of input: a last unterminated line */
		if (s->line && s->pending.len && !run_exiting(s->run))
			fire(s, s->line, s->pending.buf, s->pending.len);
		fmt_sb_reset(&s->pending);
		loop_forget(l, &s->pending);
	}
	return 0;
}

/* GET /metrics: the prometheus probe's $value. */
static void on_http(void *arg, const char *path, const char *accept,
		    struct httpd_reply *r)
{
	struct state *s = arg;
	struct strbuf *v;
	bool om = strstr(accept, "application/openmetrics-text") != NULL;

	if (strcmp(path, "/metrics") && strcmp(path, "/")) {
		r->status = 404;
		return;
	}
	v = fire(s, s->prom->p, "", 0);
	r->status = 200;
	r->len = v->len;
	r->body = xmalloc(v->len + 8);
	memcpy(r->body, v->len ? v->buf : "", v->len);
	if (om) {	/* OpenMetrics ends with "# EOF" */
		memcpy(r->body + r->len, "# EOF\n", 6);
		r->len += 6;
		r->type = "application/openmetrics-text; version=1.0.0; "
			  "charset=utf-8";
	} else {
		r->type = "text/plain; version=0.0.4; charset=utf-8";
	}
}

static void procfs_detach(struct run *run, void *state);

static int make_dir(struct state *s)
{
	snprintf(s->dir, sizeof(s->dir), "%s/%d", RUN_DIR, (int)getpid());
	if (mkdir(RUN_DIR, 0755) < 0 && errno != EEXIST)
		goto fail;
	if (mkdir(s->dir, 0755) < 0)
		goto fail;
	s->made_dir = true;
	return 0;
fail:
	run_error(s->run, "cannot create %s: %s", s->dir, strerror(errno));
	return -errno;
}

static int attach_file(struct state *s, struct prov_probe *p)
{
	struct pdata *d = p->data;
	struct file *f;
	size_t i;
	int err;

	for (i = 0; i < s->nfiles; i++) {
		struct pdata *o = s->files[i].p->data;

		if (strcmp(o->name, d->name))
			continue;
		run_error(s->run, "procfs(\"%s\") has %s: a file is read or "
			  "written, not both", d->name, o->kind == d->kind ?
			  "two probes of one kind" : ".read and .write probes");
		return -EINVAL;
	}
	f = &s->files[s->nfiles++];
	f->s = s;
	f->p = p;
	f->fd = -1;
	f->path = xasprintf("%s/%s", s->dir, d->name);
	if (mkfifo(f->path, (d->kind == K_READ ? 0444 : 0200) &
		   ~(mode_t)d->umask) < 0 ||
	    chmod(f->path, (d->kind == K_READ ? 0444 : 0200) &
		  ~(mode_t)d->umask) < 0) {
		err = -errno;
		run_error(s->run, "cannot create %s: %s", f->path,
			  strerror(errno));
		return err;
	}
	err = d->kind == K_READ ? open_read(f) : open_write(f);
	if (err < 0) {
		run_error(s->run, "cannot open %s: %s", f->path, strerror(-err));
		return err;
	}
	if (!strcmp(d->name, PROM_NAME))
		s->prom = f;
	return 0;
}

static int attach_input(struct state *s)
{
	struct termios raw;
	int fl = fcntl(0, F_GETFL), rc;

	if (fl < 0) {
		run_error(s->run, "input.%s: no standard input: %s",
			  s->chr ? "char" : "line", strerror(errno));
		return -EBADF;
	}
	if (s->chr && isatty(0) && !tcgetattr(0, &s->tty)) {
		raw = s->tty;
		raw.c_lflag &= ~(tcflag_t)ICANON;
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		if (!tcsetattr(0, TCSANOW, &raw))
			s->tty_set = true;
	}
	fcntl(0, F_SETFL, fl | O_NONBLOCK);
	/* a file (or /dev/null) cannot be in an epoll set, and never waits:
	 * a chunk of it every millisecond */
	rc = loop_add(run_loop(s->run), 0, on_stdin, &s->pending);
	if (rc == -EPERM)
		rc = loop_timer(run_loop(s->run), 0, 1, on_stdin, &s->pending);
	return rc < 0 ? rc : 0;
}

static int procfs_attach(struct run *run, struct prov_probe *const *probes,
			 size_t n, void **state)
{
	struct state *s = xcalloc(1, sizeof(*s));
	const char *prom = run_prometheus(run);
	char err[256];
	size_t i;
	int rc = 0;

	*state = s;
	s->run = run;
	s->ino = -1;
	s->files = xcalloc(n, sizeof(*s->files));
	for (i = 0; i < n && !rc; i++) {
		struct pdata *d = probes[i]->data;

		if (d->kind == K_CHAR || d->kind == K_LINE) {
			*(d->kind == K_CHAR ? &s->chr : &s->line) = probes[i];
			continue;
		}
		if (!s->made_dir && (rc = make_dir(s)) < 0)
			break;
		if (s->ino < 0) {
			s->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
			if (s->ino < 0 || inotify_add_watch(s->ino, s->dir,
					IN_OPEN | IN_CLOSE_NOWRITE) < 0 ||
			    loop_add(run_loop(run), s->ino, on_inotify, s) < 0) {
				rc = -errno;
				run_error(run, "cannot watch %s: %s", s->dir,
					  strerror(errno));
				break;
			}
		}
		rc = attach_file(s, probes[i]);
	}
	if (!rc && (s->chr || s->line))
		rc = attach_input(s);
	/* a script without the probe was refused already
	 * (procfs_is_prometheus()) */
	if (!rc && prom && s->prom &&
	    !(s->http = httpd_start(run_loop(run), prom, on_http, s, err,
				    sizeof(err)))) {
		run_error(run, "--prometheus: %s", err);
		rc = -EADDRINUSE;
	}
	return rc;
}

static void procfs_detach(struct run *run, void *state)
{
	struct state *s = state;
	size_t i;

	if (!s)
		return;
	httpd_stop(s->http);
	loop_forget(run_loop(run), s);
	loop_forget(run_loop(run), &s->pending);
	if (s->ino >= 0)
		close(s->ino);
	for (i = 0; i < s->nfiles; i++) {
		struct file *f = &s->files[i];

		loop_forget(run_loop(run), f);
		if (f->fd >= 0)
			close(f->fd);
		unlink(f->path);
		free(f->path);
		fmt_sb_release(&f->in);
	}
	if (s->made_dir)
		rmdir(s->dir);
	if (s->chr || s->line) {
		int fl = fcntl(0, F_GETFL);

		if (fl >= 0)
			fcntl(0, F_SETFL, fl & ~O_NONBLOCK);
		if (s->tty_set)
			tcsetattr(0, TCSANOW, &s->tty);
	}
	fmt_sb_release(&s->pending);
	free(s->files);
	free(s);
}

static void procfs_free(struct prov_probe *p)
{
	struct pdata *d = p->data;

	if (d)
		free(d->name);
	free(d);
}

bool procfs_is_prometheus(const struct prov_probe *p)
{
	const struct pdata *d = p->data;

	return p->prov == &prov_procfs && d->kind == K_READ &&
	       !strcmp(d->name, PROM_NAME);
}

/* Whether /run/tapkit/@name belongs to a tapkit that is gone. */
static bool stale(const char *name)
{
	char *end, comm[32];
	long pid = strtol(name, &end, 10);

	if (*end || pid <= 0)
		return false;
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return true;
	/* the PID taken again by another program */
	return task_comm((pid_t)pid, comm, sizeof(comm)) == 0 &&
	       strcmp(comm, "tapkit");
}

int procfs_cleanup_stale(void)
{
	struct dirent *de, *fe;
	DIR *d = opendir(RUN_DIR), *fd;
	char path[PATH_MAX];
	int n = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!stale(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", RUN_DIR, de->d_name);
		if ((fd = opendir(path))) {
			while ((fe = readdir(fd)))
				if (fe->d_name[0] != '.')
					unlinkat(dirfd(fd), fe->d_name, 0);
			closedir(fd);
		}
		if (rmdir(path) == 0)
			n++;
	}
	closedir(d);
	return n;
}

const struct provider prov_procfs = {
	.name = "procfs",
	.expand = procfs_expand,
	.vars = procfs_vars,
	.var = procfs_var,
	.describe = procfs_describe,
	.attach = procfs_attach,
	.detach = procfs_detach,
	.free_probe = procfs_free,
};
