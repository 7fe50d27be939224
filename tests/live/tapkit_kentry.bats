#!/usr/bin/env bats
# @entry(expr) in the return probe of a kernel function that recurses on
# the thread: each return must read the value its own call's entry had.
# tests/helpers/epnest nests epoll instances e0 in e1 in e2 in e3; each add
# of e(i-1) into e(i) makes the kernel walk what e(i-1) contains with
# ep_loop_check_proc(ep, depth), recursing once per level: the i-th add
# enters it at depth 0, 1 ... i-1 and returns innermost first.  So 1 + 2 +
# 3 returns, in the order the expected lines below give.

load helpers

EPNEST=$TAPKIT_TOP/build/tests/helpers/epnest
FN=ep_loop_check_proc

setup() {
	require_root
	[ -x "$EPNEST" ] || { echo "# $EPNEST missing: run make tests-build" >&2; return 1; }
}

teardown() {
	stop_leftover_tool
}

require_epnest() {
	require_kprobes
	if ! grep -q " [tT] $FN\$" /proc/kallsyms; then
		[ -z "${TAPKIT_VM:-}" ] || { echo "# TAPKIT_VM is set but the kernel has no $FN" >&2; return 1; }
		skip "requires: $FN in the kernel (epoll's recursive loop check)"
	fi
}

# The returns of epnest 4, innermost first within each add: "DEPTH".
returns() {
	printf '%s\n' 0  1 0  2 1 0
}

@test "tapkit kentry: @entry under recursion reads each call's own entry value" {
	require_epnest
	run_pid tapkit -c "$EPNEST 4" -e "
probe kernel.function(\"$FN\").return {
	if (pid() == target())
		printf(\"%d %d %d\\n\", \$depth, @entry(\$depth + 100), @entry(\$ep) == \$ep)
}"
	[ "$status" -eq 0 ] || { show_run; false; }
	# $depth is the entry's value (stap's semantics for a parameter in a
	# return probe); @entry(...) must agree with it on every return
	diff <(printf '%s\n' "$output") <(returns | awk '{ print $1, $1 + 100, 1 }') ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit kentry: the script's own entry probe runs at each call, @entry's string at each return" {
	require_epnest
	run_pid tapkit -c "$EPNEST 3" -e "
probe kernel.function(\"$FN\") {
	if (pid() == target())
		printf(\"call %d\\n\", \$depth)
}
probe kernel.function(\"$FN\").return {
	if (pid() == target())
		printf(\"return %s\\n\", @entry(sprintf(\"d%d\", \$depth)))
}"
	[ "$status" -eq 0 ] || { show_run; false; }
	diff <(printf '%s\n' "$output") - <<-'EOF' || { show_run; false; }
	call 0
	return d0
	call 0
	call 1
	return d1
	return d0
	EOF
	assert_clean "$RUN_PID"
}

@test "tapkit kentry: a return printing stacks with @entry values is refused, nothing left" {
	require_epnest
	run_pid tapkit -e "probe kernel.function(\"$FN\").return { print_backtrace(); println(@entry(\$depth)) }"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "tapkit: kernel.function(\"$FN\").return prints stacks and reads values from the function's entry (\$param, @entry): not both in one return probe yet" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
	run_pid tapkit -e "probe kernel.function(\"$FN\").return { println(@entry(sprint_backtrace())) }"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "tapkit: kernel.function(\"$FN\").return: @entry(...) of a stack built-in is not supported yet" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}
