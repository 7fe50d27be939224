#!/usr/bin/env bats
# Without privilege: as a user other than root, and as root without
# CAP_SYS_ADMIN and CAP_PERFMON, a command ends with status 1 and one line
# naming the privilege it lacks, and creates nothing; what works as root
# without those capabilities (tracefs, whose files root owns) works.

load faults

setup() {
	require_tracing
	command -v setpriv >/dev/null || skip "requires: setpriv (util-linux)"
}

# refused WANT CMD...: CMD (under setpriv's options in $as) ends with
# status 1, one line of error containing WANT (a script's compile error:
# one error, located), and nothing in tracefs
refused() {
	local want=$1 errors
	shift
	run_pid setpriv "${as[@]}" "$@"
	[ "$status" -eq 1 ] || { echo "# $*: status $status"; show_run; return 1; }
	errors=$(grep ': error: ' <<<"$stderr" || true)
	[ -n "$errors" ] || errors=$stderr
	[ "$(wc -l <<<"$errors")" -eq 1 ] && [[ "$errors" == *"$want"* ]] ||
		{ echo "# $*"; show_run; return 1; }
	assert_clean "$RUN_PID"
}

@test "not root: perf_event's and the tracing filesystem's refusals name the privilege" {
	local as=(--reuid=65534 --regid=65534 --clear-groups)
	local paranoid
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	refused "perf_event needs root, CAP_PERFMON or CAP_SYS_ADMIN at kernel.perf_event_paranoid $paranoid" \
		profile -d 1
	refused "tracing needs root" opensnoop -d 1
	refused "tracing needs root" funccount -d 1 "$SYSLOOP:main"
	refused "tracing needs root" tapkit -e 'probe syscall.getppid { n++ }'
}

@test "root without CAP_SYS_ADMIN and CAP_PERFMON: perf_event is refused with the reason, tracefs works" {
	local as=(--bounding-set=-sys_admin,-perfmon)
	local paranoid want
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	[ "$paranoid" -ge 2 ] || skip "kernel.perf_event_paranoid is $paranoid: perf_event needs no capability here"
	want="perf_event needs CAP_PERFMON or CAP_SYS_ADMIN at kernel.perf_event_paranoid $paranoid, and this process has neither"
	refused "$want" syscount -d 1
	refused "$want" profile -d 1
	refused "$want" funccount -d 1 "$SYSLOOP:main"
	refused "$want" tapkit -e 'probe perf.sw.cpu_clock { n++ }'
	# the ring of our own tracefs instance needs no capability: opensnoop
	# sees an open
	run_pid setpriv "${as[@]}" opensnoop -d 1 -n cat -c "cat /etc/hostname"
	[ "$status" -eq 0 ] || { show_run; false; }
	grep -Eq "^[0-9]+ +cat +[0-9]+ +0 /etc/hostname\$" <<<"$output" || { show_run; false; }
	assert_clean "$RUN_PID"
}
