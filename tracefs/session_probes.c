// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic event definitions: kprobes, uprobes and event probes in our
 * group (tapkit_<pid>_<start>), removed with the session.
 *
 * Many kprobes or uprobes at once (funccount 'lib:*', funclatency): every
 * definition goes into our group with one write.  The kernel parses a
 * write to dynamic_events line by line, so 500 definitions cost one open
 * and one write rather than 500 (and libtracefs' error_log read around
 * each).  Definitions are written here rather than through libtracefs,
 * whose uprobes cannot carry a USDT semaphore's reference counter:
 *
 *	p:GROUP/EVENT PATH:0xOFFSET[(0xREF_CTR_OFFSET)] [ARGS]
 *	r:GROUP/EVENT FUNC[+OFF] [ARGS]			(a kretprobe)
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "common/log.h"
#include "tracefs/format.h"
#include "tracefs/internal.h"
#include "tracefs/session.h"

bool session_has_ref_ctr(void)
{
	const char *no = getenv("TAPKIT_NO_REF_CTR");
	char *readme;
	bool has;

	/* as a kernel without them (before 4.20) would: the fallback, tested */
	if (no && *no && strcmp(no, "0"))
		return false;
	readme = tracefs_instance_file_read(NULL, "README", NULL);
	has = readme && strstr(readme, "ref_ctr_offset");

	free(readme);
	return has;
}

char *session_probe_definition(const struct session *s,
			       const struct session_probe *p)
{
	const char *args = p->args && *p->args ? p->args : NULL;
	char ref[32] = "";

	if (!p->path)
		return xasprintf("%c:%s/%s %s%s%s", p->ret ? 'r' : 'p',
				 session_name(s), p->event, p->addr,
				 args ? " " : "", args ? args : "");
	if (p->ref_ctr)
		snprintf(ref, sizeof(ref), "(0x%llx)", p->ref_ctr);
	return xasprintf("%c:%s/%s %s:0x%llx%s%s%s", p->ret ? 'r' : 'p',
			 session_name(s), p->event, p->path, p->offset, ref,
			 args ? " " : "", args ? args : "");
}

/* The kernel splits a definition at blanks: a path with one cannot be said. */
static bool has_blank(const char *s)
{
	for (; s && *s; s++)
		if (isspace((unsigned char)*s))
			return true;
	return false;
}

static int check(struct session *s, const struct session_probe *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].path ? session_has_uprobes() : session_has_kprobes())
			continue;
		session_errorf(s, "%s", v[i].path ?
			"this kernel has no uprobe events (CONFIG_UPROBE_EVENTS)" :
			"this kernel has no kprobe events (CONFIG_KPROBE_EVENTS)");
		return -ENOTSUP;
	}
	for (i = 0; i < n; i++) {
		if (!has_blank(v[i].path) && !has_blank(v[i].addr))
			continue;
		session_errorf(s, "cannot probe '%s': its path has a blank",
			       v[i].path ? v[i].path : v[i].addr);
		return -EINVAL;
	}
	return 0;
}

/* Every definition, newline-ended, in one buffer the caller frees. */
static char *definitions(struct session *s, const struct session_probe *v,
			 size_t n, size_t *len)
{
	size_t cap = 4096, i, k;
	char *buf = xmalloc(cap), *def;

	*len = 0;
	for (i = 0; i < n; i++) {
		def = session_probe_definition(s, &v[i]);
		k = strlen(def);
		while (*len + k + 2 > cap)
			buf = xrealloc(buf, cap *= 2);
		memcpy(buf + *len, def, k);
		buf[*len + k] = '\n';
		*len += k + 1;
		free(def);
	}
	buf[*len] = '\0';
	return buf;
}

int dynevents_write(const char *file, const char *buf, size_t len)
{
	char *path = tracefs_get_tracing_file(file);
	int fd, err = 0;
	ssize_t w;

	if (!path)
		return -ENOMEM;
	/* never O_TRUNC: that would remove every dynamic event there is */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	tracefs_put_tracing_file(path);
	if (fd < 0)
		return -errno;
	while (len && !err) {
		w = write(fd, buf, len);
		if (w < 0 && errno != EINTR)
			err = -errno;
		else if (w > 0) {
			buf += w;
			len -= (size_t)w;
		}
	}
	close(fd);
	return err;
}

/* After a failed write: the first definition the kernel did not take. */
static size_t first_missing(struct session *s, const struct session_probe *v,
			    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (format_event_id(session_name(s), v[i].event) < 0)
			break;
	return i < n ? i : 0;
}

int session_define_probes(struct session *s, const struct session_probe *v,
			  size_t n)
{
	const char *file = "dynamic_events";
	char *buf, *before, why[256];
	size_t len, i;
	int err;

	err = check(s, v, n);
	if (err)
		return err;
	if (!tracefs_file_exists(NULL, file))	/* before 4.17: one kind */
		file = v[0].path ? "uprobe_events" : "kprobe_events";
	buf = definitions(s, v, n, &len);
	before = tracefs_error_all(NULL);
	s->has_dynevents = true;
	err = dynevents_write(file, buf, len);
	free(buf);
	if (err) {
		i = first_missing(s, v, n);
		session_kernel_reason(before, why, sizeof(why));
		session_errorf(s, "the kernel rejected %s %s: %s",
			       v[i].path ? (v[i].ret ? "uretprobe" : "uprobe") :
					   (v[i].ret ? "kretprobe" : "kprobe"),
			       v[i].event, why[0] ? why : strerror(-err));
		free(before);
		return err;
	}
	free(before);
	for (i = 0; i < n; i++)
		probed_files_note(s, v[i].path);
	return 0;
}

int session_add_probes(struct session *s, const struct session_probe *v,
		       size_t n, enum tp_mode mode, struct tp **tps)
{
	size_t i;
	int err;

	if (!n)
		return 0;
	err = session_define_probes(s, v, n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (i && !strcmp(v[i].event, v[i - 1].event)) {
			tps[i] = tps[i - 1];	/* one event of many probes */
			continue;
		}
		errno = 0;
		tps[i] = session_add(s, session_name(s), v[i].event, mode, NULL);
		if (!tps[i])
			return errno ? -errno : -EIO;
	}
	return 0;
}

int session_print_format(const struct session *s, const char *event, FILE *f)
{
	char *buf = format_text(session_name(s), event, NULL);

	if (!buf)
		return -errno;
	fputs(buf, f);
	free(buf);
	return 0;
}

bool session_has_kprobes(void)
{
	return tracefs_file_exists(NULL, "kprobe_events");
}

bool session_has_uprobes(void)
{
	return tracefs_file_exists(NULL, "uprobe_events");
}

static struct tp *add_dynevent(struct session *s, struct tracefs_dynevent *de,
			       const char *what, const char *event,
			       enum tp_mode mode, const char *filter)
{
	char why[256], *before;

	if (!de) {
		session_errorf(s, "cannot describe %s %s: %s", what, event,
			       strerror(errno));
		return NULL;
	}
	before = tracefs_error_all(NULL);
	errno = 0;
	if (tracefs_dynevent_create(de) < 0) {
		int err = errno ? errno : EINVAL;

		session_kernel_reason(before, why, sizeof(why));
		free(before);
		session_errorf(s, "the kernel rejected %s %s: %s", what, event,
			       why[0] ? why : strerror(err));
		tracefs_dynevent_free(de);
		errno = err;
		return NULL;
	}
	free(before);
	tracefs_dynevent_free(de);
	s->has_dynevents = true;
	return session_add(s, s->name, event, mode, filter);
}

/* One probe through the writer of session_add_probes(), with @filter. */
static struct tp *add_probe(struct session *s, const struct session_probe *p,
			    enum tp_mode mode, const char *filter)
{
	int err = session_define_probes(s, p, 1);

	if (err) {
		errno = -err;
		return NULL;
	}
	return session_add(s, s->name, p->event, mode, filter);
}

struct tp *session_add_kprobe(struct session *s, const char *event,
			      const char *addr, const char *args, bool ret,
			      enum tp_mode mode, const char *filter)
{
	struct session_probe p = {
		.event = event, .addr = addr, .args = args, .ret = ret,
	};

	return add_probe(s, &p, mode, filter);
}

struct tp *session_add_uprobe(struct session *s, const char *event,
			      const char *path, unsigned long long offset,
			      const char *args, bool ret, enum tp_mode mode,
			      const char *filter)
{
	struct session_probe p = {
		.event = event, .path = path, .offset = offset, .args = args,
		.ret = ret,
	};

	return add_probe(s, &p, mode, filter);
}

/*
 * The README lists the e: syntax even where CONFIG_EPROBE_EVENTS is off;
 * such a kernel refuses every 'e:' definition with EINVAL, and no parser
 * says why in error_log.  When the kernel gave no reason, a bare event
 * probe on the same tracepoint tells the two apart.
 */
static bool eprobes_work(struct session *s, const char *sys, const char *name)
{
	struct tracefs_dynevent *de;
	bool ok;

	de = tracefs_eprobe_alloc(s->name, "tapkit_check", sys, name, NULL);
	if (!de)
		return true;
	ok = tracefs_dynevent_create(de) == 0;
	if (ok) {
		s->has_dynevents = true;
		tracefs_dynevent_destroy(de, false);
	}
	tracefs_dynevent_free(de);
	return ok;
}

struct tp *session_add_eprobe(struct session *s, const char *event,
			      const char *sys, const char *name,
			      const char *args, enum tp_mode mode,
			      const char *filter)
{
	struct tracefs_dynevent *de;
	char *before = tracefs_error_all(NULL), why[256];
	bool described;
	struct tp *tp;
	int err;

	de = tracefs_eprobe_alloc(s->name, event, sys, name, args);
	described = de != NULL;
	tp = add_dynevent(s, de, "event probe", event, mode, filter);
	if (tp || errno != EINVAL || !described) {
		free(before);
		return tp;
	}
	err = errno;
	session_kernel_reason(before, why, sizeof(why));
	free(before);
	if (!why[0] && !eprobes_work(s, sys, name)) {
		session_errorf(s, "this kernel has no event probes (CONFIG_EPROBE_EVENTS)");
		err = ENOTSUP;
	}
	errno = err;
	return tp;
}
