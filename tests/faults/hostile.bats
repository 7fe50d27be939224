#!/usr/bin/env bats
# Hostile processes: an argument list of 2 MB (the kernel's limit), whose
# arguments are longer than the kernel reads into a record.  The exec is
# reported with what could be read and marked truncated, never with wrong
# arguments (empty strings in place of unread ones).

load faults

setup() {
	require_root
	[ -e "$TRACEFS/uprobe_events" ] || skip "requires: uprobe_events"
}

teardown() {
	stop_leftover_tool
}

@test "hostile: execsnoop -j on a 2 MB argv reports what it read, truncated" {
	start_tool execsnoop -j
	/usr/bin/python3 -c '
import os
big = "b" * 120000
os.spawnv(os.P_WAIT, "/bin/true", ["true"] + [big] * 16)
os.spawnv(os.P_WAIT, "/bin/true", ["true", "x", "y" * 3000, "z"])' >/dev/null
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# 16 arguments of 120,000 bytes: none fits the kernel's 4 KiB string
	# limit; 3000 bytes do
	local rows
	rows=$(jq -c 'select(.pcomm == "true") | [.args[0], (.args | length), ((.args[2] // "") | length), .truncated]' "$OUT")
	[ "$rows" = "$(printf '%s\n' '["true",1,0,true]' '["true",4,3000,false]')" ] || { echo "$rows"; show_output; false; }
	assert_clean
}
