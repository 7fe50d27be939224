#!/usr/bin/env bats
# A handler reaches a stack built-in through functions that call each
# other: the probe must record callchains all the same, and the stack is
# printed.  tests/helpers/stackprog makes a known stack (main -> a -> b
# -> c, c calls getppid) in the process the test starts.
#
# g is resolved first (from the never probe) and calls f, which calls g
# back; the getppid probe calls f, whose use of a stack is only known
# once g's resolution has ended.

load helpers

HELPERS=$TAPKIT_TOP/build/tests/helpers
PROG=$HELPERS/stackprog
GETPPID='kernel.trace("syscalls:sys_enter_getppid")'

setup() {
	require_root
	require_tracefs_file events/syscalls/sys_enter_getppid
	[ -x "$PROG" ] || skip "requires: $PROG (make tests-build)"
}

# the first frames of a user stack: "NAME MODULE" per line
frames() {
	printf '%s\n' "$output" | sed -n 's/^ 0x[0-9a-f]* : \([^+]*\)+0x[0-9a-f]*\/0x[0-9a-f]* \[\(.*\)\]$/\1 \2/p'
}

@test "a stack printed through mutually recursive functions names c, b, a, main" {
	run_pid tapkit -c "$PROG main" -e "
function g(n) {
	if (n > 0)
		f(n - 1)
	else if (pid() == target()) {
		print_ubacktrace()
		exit()
	}
	return 0
}
function f(n) { return g(n) }
probe never { g(0) }
probe $GETPPID { f(2) }"
	[ "$status" = 0 ] || { show_run; false; }
	frames | head -4 | diff - <(printf '%s %s\n' c "$PROG" b "$PROG" a "$PROG" main "$PROG") ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "a kernel stack through the same cycle: the clone path of a fork" {
	# the first text symbol (per-cpu symbols are at 0 on their own)
	[ "$(awk '$2 == "T" { print $1; exit }' /proc/kallsyms)" != 0000000000000000 ] ||
		skip "requires: kernel addresses in /proc/kallsyms (kptr_restrict)"
	run_pid tapkit -c "sh -c '/bin/true; /bin/true'" -e '
function g(n) {
	if (n > 0)
		f(n - 1)
	else if (pid() == target()) {
		print_backtrace()
		exit()
	}
	return 0
}
function f(n) { return g(n) }
probe never { g(0) }
probe kernel.trace("sched:sched_process_fork") { f(2) }'
	[ "$status" = 0 ] || { show_run; false; }
	# kernel_clone may be the innermost frame (the first line)
	[[ $'\n'"$output" =~ $'\n'" 0xffffffff"[0-9a-f]+" : kernel_clone+0x"[0-9a-f]+"/0x"[0-9a-f]+" [kernel]"$'\n' ]] ||
		{ show_run; false; }
	[[ "$output" =~ " : do_syscall_64+0x" ]]
	assert_clean "$RUN_PID"
}
