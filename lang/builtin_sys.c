// SPDX-License-Identifier: GPL-2.0
/*
 * Built-ins on the calendar and the process: ctime(), tz_gmtoff() and
 * tz_name() (stap's ctime and tzinfo tapsets: tz_ctime() is in the
 * language, scripts/tapset/tzinfo.stp), raise() and abort() (the signal
 * and logging tapsets), and $value of procfs and input probes (the
 * elaborator turns reads of it into __value_get(), `$value = x` into
 * __value_set(x), `$value .= x` into __value_append(x)), and system().
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "lang/backend.h"
#include "lang/builtin.h"

/*
 * ctime(epochsecs): "Wed Jun 30 21:49:08 1993" in UTC, always 24
 * characters; stap refuses times outside a 32-bit offset from the epoch.
 */
int bsys_ctime(struct vm *vm, struct lang_val *a, int n,
	       struct lang_val *ret, char *buf)
{
	static const char days[] = "SunMonTueWedThuFriSat";
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	time_t t = (time_t)a[0].l;
	struct tm tm;

	if (a[0].l < -2147483648LL) {
		vm_raise(vm, "ctime: time %lld is too far in the past",
			 (long long)a[0].l);
		return -1;
	}
	if (a[0].l > 2147483647LL) {
		vm_raise(vm, "ctime: time %lld is too far in the future",
			 (long long)a[0].l);
		return -1;
	}
	gmtime_r(&t, &tm);
	snprintf(buf, vm->maxstr, "%.3s %.3s%3d %02d:%02d:%02d %d",
		 days + 3 * tm.tm_wday, months + 3 * tm.tm_mon, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, tm.tm_year + 1900);
	ret->s = buf;
	return 0;
}

/* The local zone as it was when the script started, as stap has it from
 * staprun: its offset (seconds west of UTC) and its name. */
static const struct tm *local_zone(void)
{
	static struct tm tm;
	static bool known;

	if (!known) {
		time_t now = time(NULL);

		tzset();
		localtime_r(&now, &tm);
		known = true;
	}
	return &tm;
}

int bsys_tz_gmtoff(struct vm *vm, struct lang_val *a, int n,
		   struct lang_val *ret, char *buf)
{
	ret->l = -(int64_t)local_zone()->tm_gmtoff;
	return 0;
}

int bsys_tz_name(struct vm *vm, struct lang_val *a, int n,
		 struct lang_val *ret, char *buf)
{
	const char *z = local_zone()->tm_zone;

	snprintf(buf, vm->maxstr, "%s", z ? z : "UTC");
	ret->s = buf;
	return 0;
}

/*
 * raise(signo): the signal to the thread the event happened in (in begin,
 * end and timer probes, tapkit itself).  It arrives when tapkit handles
 * the event, a little after the event itself.
 */
int bsys_raise(struct vm *vm, struct lang_val *a, int n,
	       struct lang_val *ret, char *buf)
{
	struct lang_val pid, tid;

	if (a[0].l <= 0 || a[0].l >= _NSIG) {
		vm_raise(vm, "raise: invalid signal number %lld",
			 (long long)a[0].l);
		return -1;
	}
	vm_context(vm, PROV_CTX_PID, &pid);
	vm_context(vm, PROV_CTX_TID, &tid);
	if (syscall(SYS_tgkill, (pid_t)pid.l, (pid_t)tid.l, (int)a[0].l) < 0 &&
	    errno != ESRCH) {
		vm_raise(vm, "raise: cannot send signal %lld to %lld: %s",
			 (long long)a[0].l, (long long)tid.l, strerror(errno));
		return -1;
	}
	ret->l = 0;
	return 0;
}

/* abort(): exit() that also ends the handler at once; try/catch does not
 * catch it.  The end probes run, as after exit(). */
int bsys_abort(struct vm *vm, struct lang_val *a, int n,
	       struct lang_val *ret, char *buf)
{
	vm->exit_req = true;
	vm->abort_req = true;
	vm->err = "abort()";
	return -1;
}

/* $value: as long as the handler makes it (a procfs file's contents);
 * read back as a string of at most MAXSTRINGLEN. */
int bsys_value_get(struct vm *vm, struct lang_val *a, int n,
		   struct lang_val *ret, char *buf)
{
	snprintf(buf, vm->maxstr, "%s", vm->value.len ? vm->value.buf : "");
	ret->s = buf;
	return 0;
}

int bsys_value_set(struct vm *vm, struct lang_val *a, int n,
		   struct lang_val *ret, char *buf)
{
	fmt_sb_reset(&vm->value);
	fmt_sb_addstr(&vm->value, a[0].s);
	ret->l = 0;
	return 0;
}

int bsys_value_append(struct vm *vm, struct lang_val *a, int n,
		      struct lang_val *ret, char *buf)
{
	fmt_sb_addstr(&vm->value, a[0].s);
	ret->l = 0;
	return 0;
}

/* system(cmd): run by /bin/sh once the handler has ended and its output is
 * out (lang/run.c), in the background, as stap starts it after the probe. */
int bsys_system(struct vm *vm, struct lang_val *a, int n,
		struct lang_val *ret, char *buf)
{
	fmt_sb_add(&vm->commands, a[0].s, strlen(a[0].s) + 1);
	ret->l = 0;
	return 0;
}

/* stp_pid(): tapkit's own PID (stap's is its staprun's). */
int bsys_stp_pid(struct vm *vm, struct lang_val *a, int n,
		 struct lang_val *ret, char *buf)
{
	ret->l = getpid();
	return 0;
}
