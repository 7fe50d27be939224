// SPDX-License-Identifier: GPL-2.0
/*
 * Located diagnostics: source texts and the messages reported against
 * them, printed gcc-style with the source line and a caret.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "lang/diag.h"

struct diag_msg {
	enum diag_level level;
	struct diag_loc loc;
	char *text;
};

struct diag {
	struct diag_file **files;
	size_t nfiles, files_cap;
	struct diag_msg *msgs;
	size_t nmsgs, msgs_cap;
	unsigned errors, warnings, dropped, limit;
	unsigned similar;	/* repeats left out (once per expanded probe) */
	bool dup;		/* the last error or warning was one */
	bool limit_noted;	/* the "too many errors" line was printed */
	struct { struct diag_loc **v; size_t n, cap; } kept;
};

struct diag *diag_new(void)
{
	struct diag *d = xcalloc(1, sizeof(*d));

	d->limit = DIAG_DEFAULT_LIMIT;
	return d;
}

static void clear_msgs(struct diag *d)
{
	size_t i;

	for (i = 0; i < d->nmsgs; i++)
		free(d->msgs[i].text);
	d->nmsgs = 0;
}

void diag_free(struct diag *d)
{
	size_t i;

	if (!d)
		return;
	clear_msgs(d);
	free(d->msgs);
	for (i = 0; i < d->nfiles; i++) {
		free(d->files[i]->name);
		free(d->files[i]->text);
		free(d->files[i]);
	}
	free(d->files);
	for (i = 0; i < d->kept.n; i++)
		free(d->kept.v[i]);
	free(d->kept.v);
	free(d);
}

const struct diag_loc *diag_loc_keep(struct diag *d, struct diag_loc loc)
{
	struct diag_loc *k;

	/* invocations come one after another: the last one is often it */
	if (d->kept.n) {
		k = d->kept.v[d->kept.n - 1];
		if (k->file == loc.file && k->line == loc.line && k->col == loc.col &&
		    k->expanded_at == loc.expanded_at)
			return k;
	}
	k = xmalloc(sizeof(*k));
	*k = loc;
	if (d->kept.n == d->kept.cap) {
		d->kept.cap = d->kept.cap ? 2 * d->kept.cap : 16;
		d->kept.v = xrealloc(d->kept.v, d->kept.cap * sizeof(*d->kept.v));
	}
	d->kept.v[d->kept.n++] = k;
	return k;
}

const struct diag_file *diag_add_file(struct diag *d, const char *name,
				      const char *text, size_t len)
{
	struct diag_file *f = xcalloc(1, sizeof(*f));

	f->name = xstrdup(name);
	f->text = xmalloc(len + 1);
	memcpy(f->text, text, len);
	f->text[len] = '\0';
	f->len = len;
	f->id = (unsigned)d->nfiles;
	if (d->nfiles == d->files_cap) {
		d->files_cap = d->files_cap ? 2 * d->files_cap : 4;
		d->files = xrealloc(d->files, d->files_cap * sizeof(*d->files));
	}
	d->files[d->nfiles++] = f;
	return f;
}

int diag_read_file(struct diag *d, const char *path,
		   const struct diag_file **out)
{
	bool std_in = !strcmp(path, "-");	/* stap -: the script on stdin */
	size_t len = 0, cap = 4096;
	char *buf;
	int fd, err = 0;

	fd = std_in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (!std_in)
		close(fd);
	if (!err)
		*out = diag_add_file(d, std_in ? "<stdin>" : path, buf, len);
	free(buf);
	return err;
}

/* The same message at the same place was reported already (and kept). */
static bool is_repeat(const struct diag *d, enum diag_level level,
		      struct diag_loc loc, const char *text)
{
	size_t i;

	if (!loc.line)
		return false;
	for (i = 0; i < d->nmsgs; i++) {
		const struct diag_msg *m = &d->msgs[i];

		if (m->level == level && m->loc.file == loc.file &&
		    m->loc.line == loc.line && m->loc.col == loc.col &&
		    !strcmp(m->text, text))
			return true;
	}
	return false;
}

void diag_vreport(struct diag *d, enum diag_level level, struct diag_loc loc,
		  const char *fmt, va_list ap)
{
	struct diag_msg *m;
	char *text;

	if (vasprintf(&text, fmt, ap) < 0)
		die("out of memory");
	if (level == DIAG_NOTE && d->dup) {	/* the note of a repeat */
		free(text);
		return;
	}
	d->dup = false;
	if (level != DIAG_NOTE && is_repeat(d, level, loc, text)) {
		/* a wildcard's probes share a body: its error once */
		if (level == DIAG_ERROR)
			d->errors++;
		d->similar++;
		d->dup = true;
		free(text);
		return;
	}
	if (level == DIAG_ERROR) {
		d->errors++;
		if (d->limit && d->errors > d->limit) {
			d->dropped++;
			free(text);
			return;
		}
	} else if (level == DIAG_WARNING) {
		d->warnings++;
	} else if (d->dropped) {
		free(text);
		return;		/* the note of a dropped error */
	}
	if (d->nmsgs == d->msgs_cap) {
		d->msgs_cap = d->msgs_cap ? 2 * d->msgs_cap : 8;
		d->msgs = xrealloc(d->msgs, d->msgs_cap * sizeof(*d->msgs));
	}
	m = &d->msgs[d->nmsgs++];
	m->level = level;
	m->loc = loc;
	m->text = text;
	if (level != DIAG_NOTE && loc.expanded_at && loc.expanded_at->file)
		diag_note(d, *loc.expanded_at, "in expansion of the macro "
			  "invoked here");
}

void diag_error(struct diag *d, struct diag_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, DIAG_ERROR, loc, fmt, ap);
	va_end(ap);
}

void diag_warn(struct diag *d, struct diag_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, DIAG_WARNING, loc, fmt, ap);
	va_end(ap);
}

void diag_note(struct diag *d, struct diag_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, DIAG_NOTE, loc, fmt, ap);
	va_end(ap);
}

unsigned diag_errors(const struct diag *d)
{
	return d->errors;
}

unsigned diag_warnings(const struct diag *d)
{
	return d->warnings;
}

size_t diag_count(const struct diag *d)
{
	return d->nmsgs;
}

const char *diag_message(const struct diag *d, size_t i,
			 enum diag_level *level, struct diag_loc *loc)
{
	if (i >= d->nmsgs)
		return NULL;
	if (level)
		*level = d->msgs[i].level;
	if (loc)
		*loc = d->msgs[i].loc;
	return d->msgs[i].text;
}

void diag_set_limit(struct diag *d, unsigned max)
{
	d->limit = max;
}

bool diag_full(const struct diag *d)
{
	return d->limit && d->errors >= d->limit;
}

const char *diag_line(const struct diag_file *f, unsigned line, size_t *len)
{
	const char *p, *end, *nl;
	unsigned n = 1;

	if (!f || line == 0)
		return NULL;
	p = f->text;
	end = f->text + f->len;
	while (n < line) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		p = nl + 1;
		n++;
	}
	if (p == end && line > 1 && p[-1] == '\n')
		return NULL;	/* past the last line */
	nl = memchr(p, '\n', (size_t)(end - p));
	*len = (size_t)((nl ? nl : end) - p);
	if (*len && p[*len - 1] == '\r')
		(*len)--;
	return p;
}

char *diag_loc_str(struct diag_loc loc, char *buf, size_t size)
{
	if (!loc.file)
		snprintf(buf, size, "%s", "");
	else if (!loc.line)
		snprintf(buf, size, "%s", loc.file->name);
	else if (!loc.col)
		snprintf(buf, size, "%s:%u", loc.file->name, loc.line);
	else
		snprintf(buf, size, "%s:%u:%u", loc.file->name, loc.line,
			 loc.col);
	return buf;
}

static const char *level_name(enum diag_level level)
{
	switch (level) {
	case DIAG_ERROR:
		return "error";
	case DIAG_WARNING:
		return "warning";
	default:
		return "note";
	}
}

/*
 * The source line, then a caret under byte @col.  The caret line copies
 * the tabs before the column and writes one space per character
 * otherwise, skipping UTF-8 continuation bytes, so it lines up in a
 * terminal for UTF-8 text too.
 */
static void print_caret(FILE *f, struct diag_loc loc)
{
	const char *line;
	size_t len, i;

	line = diag_line(loc.file, loc.line, &len);
	if (!line)
		return;
	fprintf(f, "%.*s\n", (int)len, line);
	if (!loc.col)
		return;
	for (i = 0; i + 1 < loc.col; i++) {
		unsigned char c = i < len ? (unsigned char)line[i] : ' ';

		if (c == '\t')
			fputc('\t', f);
		else if ((c & 0xc0) != 0x80)
			fputc(' ', f);
	}
	fputs("^\n", f);
}

void diag_print(struct diag *d, FILE *f)
{
	char where[512];
	size_t i;

	for (i = 0; i < d->nmsgs; i++) {
		struct diag_msg *m = &d->msgs[i];

		diag_loc_str(m->loc, where, sizeof(where));
		if (where[0])
			fprintf(f, "%s: %s: %s\n", where, level_name(m->level),
				m->text);
		else
			fprintf(f, "%s: %s\n", level_name(m->level), m->text);
		if (m->loc.line)
			print_caret(f, m->loc);
	}
	clear_msgs(d);
	if (d->similar) {
		fprintf(f, "note: %u similar message%s left out (the same at the "
			"same place, as for each probe of a wildcard)\n", d->similar,
			d->similar == 1 ? "" : "s");
		d->similar = 0;
	}
	if (diag_full(d) && !d->limit_noted) {
		fprintf(f, "note: too many errors, stopped after %u\n",
			d->limit);
		d->limit_noted = true;
	}
}
