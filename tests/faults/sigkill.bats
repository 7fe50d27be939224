#!/usr/bin/env bats
# SIGKILL at any point of a session's start-up or teardown: within a second
# its watchdog (tapkit-watch) has removed what it made, its instance and
# event groups, with no later tapkit run to find them.

load faults

setup() {
	require_tracing
}

teardown() {
	stop_leftover_tool
}

# kill_at_start CMD...: 10 runs of CMD, each SIGKILLed at a random point of
# its first 300 ms (before and while it sets up), then nothing of it left
# after a second
kill_at_start() {
	local i ms pid
	for i in $(seq 1 10); do
		ms=$((RANDOM % 300))
		"$@" >/dev/null 2>&1 &
		pid=$!
		sleep "$(printf '0.%03d' "$ms")"
		kill -KILL "$pid"
		wait "$pid" || true
		wait_clean "$pid" 1 || { echo "# $1 killed $ms ms after its start"; return 1; }
	done
}

# kill_in_teardown CMD...: 10 runs of CMD, each told to stop (SIGINT) once it
# traces and SIGKILLed a random 0-40 ms later, in its teardown
kill_in_teardown() {
	local i ms pid
	for i in $(seq 1 10); do
		ms=$((RANDOM % 40))
		start_tool "$@"
		pid=$TOOL_PID TOOL_PID=
		kill -INT "$pid"
		sleep "$(printf '0.%03d' "$ms")"
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" || true
		wait_clean "$pid" 1 || { echo "# $1 killed $ms ms into its teardown"; return 1; }
	done
}

@test "SIGKILL: opensnoop's libc uprobes and tracepoints are removed within a second, at any point" {
	kill_at_start opensnoop
	kill_in_teardown opensnoop
}

@test "SIGKILL: a script's uprobe and tracepoint sessions are removed within a second, at any point" {
	local script='probe process("'"$SYSLOOP"'").function("main"), syscall.getppid { n++ }'
	kill_at_start tapkit -e "$script"
	kill_in_teardown tapkit -e "$script"
}

@test "SIGKILL: funccount's uprobes on a PIE are removed within a second, at any point" {
	kill_at_start funccount "$SYSLOOP:main"
	kill_in_teardown funccount "$SYSLOOP:main"
}
