#!/usr/bin/env bats
# bitesize against O_DIRECT writes the test makes to a loop device of its
# own (tests/live/bio.bash) by dd and by a copy of dd with another name:
# each name's histogram in Kbytes counts exactly its writes in the bucket
# of their size; the JSON of a run beside it, the same buckets.

load helpers
load bio

setup() {
	require_root
	LOOPS=()
}

teardown() {
	stop_leftover_tool
	stop_leftover_tool2
	release_loops
}

# rows_of NAME [FILE]: "LOW HIGH COUNT" of the non-empty rows of process
# NAME's histogram
rows_of() {
	awk -v p="$1" '/^Process Name = / { on = ($4 == p); next }
		on && /^ *[0-9]+ -> [0-9]+ +: [0-9]+ / && $5 != 0 { print $1, $3, $5 }' "${2:-$OUT}"
}

@test "bitesize: 8 writes of 64 KiB by dd and 3 of 4 KiB by ddcopy, each in its bucket; JSON agrees" {
	loop_disk A
	start_tool bitesize -d "$A_NAME"
	start_tool2 bitesize -j -d "$A_NAME"
	direct_writes "$A" 8 65536
	direct_writes "$A" 3 4096 ddcopy
	settle 0.5
	stop_tool2
	stop_tool
	[ "$TOOL_RC" -eq 0 ] && [ "$TOOL2_RC" -eq 0 ] || { show_output; false; }
	[ "$(rows_of dd)" = "64 127 8" ] || { show_output; false; }
	[ "$(rows_of ddcopy)" = "4 7 3" ] || { show_output; false; }
	grep -qx '     Kbytes              : count     distribution' "$OUT"
	grep -qx '        64 -> 127        : 8        |\*\{40\}|' "$OUT"
	[ "$(jq -r '.processes[] | select(.comm == "dd") | .hist[] | select(.count > 0) |
		"\(.low) \(.high) \(.count)"' "$OUT2")" = "$(rows_of dd)" ] || { cat "$OUT2" >&2; false; }
	[ "$(jq -r '.processes[] | select(.comm == "ddcopy") | .hist[] | select(.count > 0) |
		"\(.low) \(.high) \(.count)"' "$OUT2")" = "$(rows_of ddcopy)" ]
	[ "$(jq '.processes[] | select(.comm == "dd") | .total_kbytes' "$OUT2")" -eq 512 ]
	assert_clean
	assert_clean "$TOOL2_PID"
}

@test "bitesize -n: only the I/O of one process name" {
	loop_disk A
	start_tool bitesize -n ddcopy -d "$A"
	direct_writes "$A" 4 65536
	direct_writes "$A" 2 8192 ddcopy
	settle 0.5
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(rows_of ddcopy)" = "8 15 2" ] || { show_output; false; }
	[ "$(grep -c '^Process Name = ' "$OUT")" -eq 1 ] || { show_output; false; }
	assert_clean
}

@test "bitesize -c: the sizes of one command's I/O only, printed when it exits" {
	loop_disk A
	start_cmd_tool bitesize -d "$A" -c "sh -c 'read x; dd if=/dev/zero of=$A bs=16384 count=5 oflag=direct 2>/dev/null'"
	direct_writes "$A" 4 65536
	release_cmd
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(rows_of dd)" = "16 31 5" ] || { show_output; false; }
	[ "$(grep -c '^Process Name = ' "$OUT")" -eq 1 ] || { show_output; false; }
	assert_clean
}
