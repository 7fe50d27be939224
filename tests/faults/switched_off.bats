#!/usr/bin/env bats
# Another tool switches a session's instance off mid-run (what trace-cmd
# reset -a does to every instance: tracing_on 0, every event disabled; the
# tests do it to our instance alone, never to the machine's) or tries to
# remove it: the session notices within a few seconds and ends with status 1
# and one line saying what happened, instead of tracing nothing; and it
# removes its instance as always.

load faults

setup() {
	require_tracing
}

teardown() {
	stop_leftover_tool
}

# instance_of PID: the name of session PID's instance
instance_of() {
	ls "$TRACEFS/instances" | grep "^tapkit_$1_" | head -1
}

# switched_off WANT: after the change just made, the tool ends within 3 s
# with status 1, its one line of error containing WANT, and nothing left in
# tracefs
switched_off() {
	tool_ends_failing 3 || return 1
	[ "$(grep -c . "$ERR")" -eq 1 ] && grep -qF "$1" "$ERR" || { show_output; return 1; }
}

@test "switched off: tracing_on 0 in our instance ends opensnoop with the reason" {
	start_tool opensnoop
	local inst
	inst=$(instance_of "$TOOL_PID")
	echo 0 >"$TRACEFS/instances/$inst/tracing_on"
	switched_off "opensnoop: another tool switched tracing off in our instance $inst (its tracing_on is 0)"
}

@test "switched off: every event of our instance disabled ends execsnoop, naming one" {
	start_tool execsnoop
	local inst
	inst=$(instance_of "$TOOL_PID")
	echo 0 >"$TRACEFS/instances/$inst/events/enable"
	switched_off "execsnoop: another tool disabled "
	grep -q " in our instance $inst\$" "$ERR" || { show_output; false; }
}

@test "switched off: one event of a script disabled ends it with the event's name" {
	start_tool tapkit -e 'probe syscall.getppid { n++ }'
	local inst
	inst=$(instance_of "$TOOL_PID")
	echo 0 >"$TRACEFS/instances/$inst/events/syscalls/sys_enter_getppid/enable"
	switched_off "tapkit: another tool disabled syscalls:sys_enter_getppid in our instance $inst"
}

@test "switched off: a removal of our instance fails while we read it; the session goes on" {
	start_tool tpoint sched:sched_process_exec
	local inst
	inst=$(instance_of "$TOOL_PID")
	! rmdir "$TRACEFS/instances/$inst" 2>/dev/null
	sleep 1.5			# past a check
	/bin/true
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -q 'true' "$OUT" || { show_output; false; }
	assert_clean
}
