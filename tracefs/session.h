/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_SESSION_H
#define TAPKIT_SESSION_H

/*
 * A tracing session: everything one command run puts into the kernel, and
 * the sources it reads.  The command says what it needs of each event
 * (records, counts, records with stacks); the session picks the mechanism
 * (DESIGN.md "Event transport"):
 *
 *	TP_RECORD  a record per hit in the ring of our private instance
 *	TP_COUNT   perf_event counting mode: the kernel counts, no records
 *	TP_STACK   perf_event sampling with callchains
 *
 * Each mode is read by an event source of its own (source.h), which the
 * session drives without knowing its kind.
 *
 * Ownership (DESIGN.md "Probe lifecycle"): the instance and the group of our
 * dynamic events are both named tapkit_<pid>_<starttime>; session_close()
 * removes them and runs from atexit too, so die() and signals never leave
 * them behind; session_open() first removes those of dead sessions.
 *
 *	s = session_new(&opts);			no side effects
 *	session_open(s);			instance created, stale ones gone
 *	tp = session_add(s, "sched", "sched_process_exec", TP_RECORD, NULL);
 *	session_start(s, loop, handler, ctx);	enabled, fds polled
 *	...					handler(ev) per record
 *	session_close(s); session_free(s);
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/event.h"

/* the prefix of our instances and groups: tapkit_<pid>_<starttime> */
#define SESSION_PREFIX "tapkit_"

struct loop;
struct json;
struct source;
struct tep_event;
struct tep_handle;

enum tp_mode {
	TP_RECORD,
	TP_COUNT,
	TP_STACK,
};

/* One event the session uses; owned by the session. */
struct tp {
	char *system;
	char *name;
	int id;
	enum tp_mode mode;
	struct tep_event *event;	/* format: fields, print fmt */
	struct source *src;		/* the source that reads it (source.h) */
	void *src_data;			/* that source's own, per event */
	bool internal;			/* the session's own (not delivered) */
	struct tp *next;
};

struct session_opts {
	unsigned long buffer_kb;	/* per-CPU ring size, 0: default */
	const char *size_option;	/* the option that sets it, for the
					 * hint when events are lost; NULL:
					 * "-b/--buffer-kb" */
	pid_t pid;			/* only this process (all its threads) */
	pid_t tid;			/* only this thread */
	bool tree;			/* with pid: its children too, the
					 * process tree (-c CMD) */
	bool ordered;			/* records in timestamp order */
	int wakeup_percent;		/* wake the reader at this fill; 0: at once */
	/* with wakeup_percent 0, wait this long after a wake-up before the
	 * next (default 10 ms): a busy ring is read in batches, a quiet one
	 * with no delay */
	unsigned int pace_ms;
	unsigned int drain_ms;		/* also drain on this period; 0: never */
	/* keep our own threads' records out in the kernel (set_event_notrace_pid,
	 * ~40 ns more per record of every task): for probes the reader hits
	 * itself, as uprobes in libc, where one record read makes more */
	bool notrace_self;
	/* deliver our own threads' records too: they are dropped by default
	 * (reading the ring makes records of its own), but events recorded
	 * in whatever context runs, about other tasks (a wakeup, a switch, a
	 * completion in an interrupt), lose real events when they are */
	bool keep_self;
	/* with pid: the records are about other tasks than the running one
	 * (sched_wakeup, sched_switch): set_event_pid admits those in which a
	 * thread of the process takes part (the kernel checks the woken task
	 * and the waker, prev and next), and the command checks which task
	 * each is about; the running task's thread group is not checked */
	bool scope_kernel;
	/* called after each drain that delivered records (e.g. flush output
	 * once per batch rather than once per event) */
	void (*batch_end)(void *arg);
};

struct session;

/* Describe a session; touches nothing.  Free with session_free(). */
struct session *session_new(const struct session_opts *o);
void session_free(struct session *s);

/**
 * session_open() - check access, mount tracefs if needed, remove stale
 * sessions, create our instance.  0 or -errno; session_error() says why.
 */
int session_open(struct session *s);

/**
 * session_add() - use event @sys:@name in @mode, with kernel @filter
 * (ftrace filter syntax, NULL for none).  The filter is checked by the kernel
 * now.  Returns the tp, or NULL with errno (ENOENT: no such event; EINVAL:
 * filter rejected) and session_error() quoting the kernel's reason.
 */
struct tp *session_add(struct session *s, const char *sys, const char *name,
		       enum tp_mode mode, const char *filter);

/* True when the kernel has kprobe / uprobe events. */
bool session_has_kprobes(void);
bool session_has_uprobes(void);

/**
 * session_add_kprobe() - define kprobe @event (in our group) at @addr, a
 * return probe when @ret, with fetch args @args in the kernel's syntax, and
 * use it like session_add().  Removed by session_close().
 */
struct tp *session_add_kprobe(struct session *s, const char *event,
			      const char *addr, const char *args, bool ret,
			      enum tp_mode mode, const char *filter);
/* The same for a uprobe at @path:@offset. */
struct tp *session_add_uprobe(struct session *s, const char *event,
			      const char *path, unsigned long long offset,
			      const char *args, bool ret, enum tp_mode mode,
			      const char *filter);

/* One kprobe or uprobe of session_add_probes(). */
struct session_probe {
	const char *event;		/* its name in our group */
	const char *path;		/* a uprobe's object; NULL: a kprobe */
	unsigned long long offset;	/* uprobe: file offset of the site */
	unsigned long long ref_ctr;	/* uprobe: file offset of a USDT
					 * semaphore the kernel counts
					 * (session_has_ref_ctr()), 0: none */
	const char *addr;		/* kprobe: FUNC[+OFF] */
	const char *args;		/* fetch args, NULL: none */
	bool ret;			/* a return probe */
};

/**
 * session_add_probes() - define the @n probes of @v in our group, all with
 * one write, and use each like session_add() in @mode (no filter): @tps[i]
 * receives the tp of @v[i].  0, or -errno with session_error() naming the
 * definition the kernel refused and its reason (ENOTSUP: no such probe
 * kind).  Without dynamic_events (before 4.17) @v must be of one kind.
 * Adjacent definitions with the same event name are probes of one event
 * (the kernel appends them; their args must have the same names and
 * types): they get the same tp.  Removed by session_close().
 */
int session_add_probes(struct session *s, const struct session_probe *v,
		       size_t n, enum tp_mode mode, struct tp **tps);
/* The definition session_add_probes() writes for @p (for -v); free it. */
char *session_probe_definition(const struct session *s,
			       const struct session_probe *p);
/* Print the format file of @event of our group on @f (perf-tools' -v);
 * 0 or -errno. */
int session_print_format(const struct session *s, const char *event, FILE *f);
/* True when uprobe definitions take a reference counter (USDT semaphore);
 * false also when $TAPKIT_NO_REF_CTR is set (not "0"), to use and test the
 * fallback of kernels without them. */
bool session_has_ref_ctr(void);

/**
 * session_add_eprobe() - define event probe @event (in our group) on
 * tracepoint @sys:@name with fetch args @args, and use it like
 * session_add().  NULL with errno ENOTSUP when the kernel has no event
 * probes (CONFIG_EPROBE_EVENTS).  Removed by session_close().
 */
struct tp *session_add_eprobe(struct session *s, const char *event,
			      const char *sys, const char *name,
			      const char *args, enum tp_mode mode,
			      const char *filter);

/**
 * session_start() - enable every event, and poll the sources in @l; each
 * record goes to @fn.  0 or -errno.
 */
int session_start(struct session *s, struct loop *l, tk_event_fn fn, void *arg);
/* Deliver everything buffered now.  Records delivered, or -errno. */
long session_drain(struct session *s);
/* From the record callback: end the drain in progress early (the records
 * not yet read stay buffered for the next drain). */
void session_drain_stop(struct session *s);
/* Stop recording (events disabled) but keep what is buffered. */
void session_stop(struct session *s);

/* The events added so far, most recent first (internal ones included). */
struct tp *session_tps(struct session *s);

/* The kernel's count of a TP_COUNT event so far. */
uint64_t session_count(const struct tp *tp);

/* Lost records: instance overruns and drops, page flags, perf LOST. */
uint64_t session_lost(struct session *s, uint64_t *per_cpu, int max_cpu);
/* "N events lost (cpu0 N, ...)" on stderr when any; true if any. */
bool session_report_lost(struct session *s);
/* "lost": N and "lost_per_cpu": [...] as members of the open object @j. */
void session_json_lost(struct session *s, struct json *j);
/*
 * For snoop tools' JSON Lines: when events were lost, one closing object
 * {"type":"summary","lost":N,"lost_per_cpu":[...]} on @f.
 */
void session_json_summary(struct session *s, FILE *f);

/* comm of @pid: cache, /proc, the kernel's saved cmdlines, else "<...>". */
const char *session_comm(struct session *s, pid_t pid);

/* The shared libtraceevent handle (formats of the events in use). */
struct tep_handle *session_tep(struct session *s);
/* tapkit_<pid>_<starttime>: our instance and dynamic event group. */
const char *session_name(const struct session *s);
/* Human-readable reason for the last failure (kernel's words when any). */
const char *session_error(const struct session *s);
/* Why a session ended the event loop with -ECANCELED (another tool
 * switched its instance off, a probed binary was replaced): a message for
 * the command to print, or NULL. */
const char *session_ended_why(void);

/* Undo everything; idempotent; also runs from atexit. */
void session_close(struct session *s);

/**
 * session_cleanup_stale() - remove the instances and dynamic event groups of
 * tapkit sessions whose owner is gone (PID dead or start time different).
 * Never touches anything not named tapkit_<pid>_<start>.  Returns how many
 * were removed, or -errno.
 */
int session_cleanup_stale(void);

#endif
