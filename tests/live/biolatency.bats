#!/usr/bin/env bats
# biolatency against O_DIRECT writes the test makes to loop devices of its
# own (tests/live/bio.bash): each disk's histogram counts exactly its
# writes, in bcc's format; the JSON of a run beside it, the same counts.

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

# disk_count NAME [FILE]: the sum of the counts of disk NAME's histogram
disk_count() {
	awk -v d="$1" '/^disk = / { on = ($3 == d); next }
		on && /^ *[0-9]+ -> [0-9]+ +: [0-9]+ / { n += $5 }
		END { print n + 0 }' "${2:-$OUT}"
}

@test "biolatency -D: a histogram per disk, each counting exactly its writes; JSON beside it agrees" {
	loop_disk A
	loop_disk B
	start_tool biolatency -D
	start_tool2 biolatency -D -j
	direct_writes "$A" 8 65536
	direct_writes "$B" 3 65536
	settle 0.5
	stop_tool2
	stop_tool
	[ "$TOOL_RC" -eq 0 ] && [ "$TOOL2_RC" -eq 0 ] || { show_output; false; }
	[ "$(disk_count "$A_NAME")" -eq 8 ] || { show_output; false; }
	[ "$(disk_count "$B_NAME")" -eq 3 ] || { show_output; false; }
	grep -qx "disk = $A_NAME" "$OUT"
	grep -qx '     usecs               : count     distribution' "$OUT"
	grep -qx 'Tracing block device I/O... Hit Ctrl-C to end.' "$ERR"
	# every row in bcc's layout, from "0 -> 1" on
	[ -z "$(grep -E '^ +[0-9]+ -> ' "$OUT" | grep -vE '^ {5,9}[0-9]+ -> [0-9]+ +: [0-9]+ +\|[* ]{40}\|$')" ] ||
		{ show_output; false; }
	[ "$(jq --arg d "$A_NAME" '.disks[] | select(.disk == $d) | .count' "$OUT2")" -eq 8 ]
	[ "$(jq --arg d "$B_NAME" '.disks[] | select(.disk == $d) | .count' "$OUT2")" -eq 3 ]
	[ "$(jq --arg d "$A_NAME" '[.disks[] | select(.disk == $d) | .hist[].count] | add' "$OUT2")" -eq 8 ]
	[ "$(jq -r '.unit' "$OUT2")" = usecs ]
	assert_clean
	assert_clean "$TOOL2_PID"
}

@test "biolatency -d -Q -m -e: one disk from the start of each request, in msecs, with the avg line" {
	loop_disk A
	loop_disk B
	start_tool biolatency -d "$A_NAME" -Q -m -e
	direct_writes "$B" 2 65536
	direct_writes "$A" 6 4096
	settle 0.5
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -qx '     msecs               : count     distribution' "$OUT"
	[ "$(awk '/^ *[0-9]+ -> [0-9]+ +: [0-9]+ / { n += $5 } END { print n }' "$OUT")" -eq 6 ] ||
		{ show_output; false; }
	grep -qE '^avg = [0-9]+ msecs, total: [0-9]+ msecs, count: 6$' "$OUT" || { show_output; false; }
	assert_clean
}

@test "biolatency -F: the writes under bcc's flag names" {
	loop_disk A
	start_tool biolatency -F -d "$A"
	direct_writes "$A" 5 65536
	settle 0.5
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# O_DIRECT writes are synchronous: REQ_SYNC, rwbs "WS"
	grep -qx 'flags = Sync-Write' "$OUT" || { show_output; false; }
	[ "$(awk '/^ *[0-9]+ -> [0-9]+ +: [0-9]+ / { n += $5 } END { print n }' "$OUT")" -eq 5 ]
}

@test "biolatency -j interval count: two summaries, then it ends by itself" {
	loop_disk A
	start_tool biolatency -j -d "$A" 1 2
	direct_writes "$A" 3 65536
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 2 ] || { show_output; false; }
	[ "$(jq -s 'map(.count) | add' "$OUT")" -eq 3 ]
	jq -e '.time | test("^[0-9]{2}:[0-9]{2}:[0-9]{2}$")' "$OUT" >/dev/null
	assert_clean
}

@test "biolatency -T: a timestamp line before the histogram" {
	loop_disk A
	start_tool biolatency -T -d "$A"
	direct_writes "$A" 2 65536
	settle 0.5
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(sed -n 2p "$OUT")" != "" ] && sed -n 2p "$OUT" | grep -qE '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' ||
		{ show_output; false; }
}
