# Shared by the fault suites: the live suites' helpers, and what a fault
# test waits for.

load ../live/helpers

# require_tracing: root, and the tracing filesystem mounted
require_tracing() {
	require_root
	[ -d "$TRACEFS/events" ] || skip "requires: the tracing filesystem"
}

# tool_ends_failing SECS: the tool of start_tool ends within SECS with
# status 1 (its errors in $ERR), and leaves nothing in tracefs
tool_ends_failing() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		kill -0 "$TOOL_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$TOOL_PID" 2>/dev/null; then
		echo "# still running after $1 s"
		return 1
	fi
	wait_tool || true	# (its status is TOOL_RC)
	[ "$TOOL_RC" -eq 1 ] || { echo "# status $TOOL_RC"; show_output; return 1; }
	assert_clean
}
