#!/usr/bin/env bats
# biosnoop against O_DIRECT writes the test makes to loop devices of its
# own (tests/live/bio.bash): exactly those writes, with dd's PID and name
# (the submitter, though the loop device's worker issues and completes
# them), the disk, 'W', 65536 bytes and sectors 0, 128, ... 896.

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

# writes_of NAME [FILE]: the text lines of disk NAME's writes, as
# "COMM PID T SECTOR BYTES"
writes_of() {
	awk -v d="$1" '$4 == d && $5 == "W" { print $2, $3, $5, $6, $7 }' "${2:-$OUT}"
}

# expected N BYTES PID: the lines N writes of BYTES from sector 0 give
expected() {
	local i
	for ((i = 0; i < $1; i++)); do
		echo "dd $3 W $((i * $2 / 512)) $2"
	done
}

@test "biosnoop: 8 O_DIRECT writes of 64 KiB, by dd, in bcc's columns; the JSON says the same" {
	loop_disk A
	start_tool biosnoop
	start_tool2 biosnoop -j
	direct_writes "$A" 8 65536
	settle 0.5
	stop_tool2
	stop_tool
	[ "$TOOL_RC" -eq 0 ] && [ "$TOOL2_RC" -eq 0 ] || { show_output; false; }
	[ "$(head -1 "$OUT")" = "TIME(s)     COMM           PID     DISK      T SECTOR     BYTES   LAT(ms)" ] ||
		{ show_output; false; }
	[ "$(writes_of "$A_NAME")" = "$(expected 8 65536 "$DD_PID")" ] || { show_output; false; }
	# a latency for each, in milliseconds with 2 decimals
	[ "$(awk -v d="$A_NAME" '$4 == d && $8 ~ /^[0-9]+\.[0-9][0-9]$/' "$OUT" | wc -l)" -eq 8 ]
	# the JSON Lines of the same writes: the same numbers
	[ "$(jq -r --arg d "$A_NAME" 'select(.disk == $d and .t == "W") |
		"\(.comm) \(.pid) \(.t) \(.sector) \(.bytes)"' "$OUT2")" = "$(writes_of "$A_NAME")" ] ||
		{ cat "$OUT2" >&2; false; }
	[ "$(jq -r --arg d "$A_NAME" 'select(.disk == $d) |
		select(.lat_ns > 0 and .tid == .pid and .error == 0 and (.rwbs | test("W"))) | .sector' \
		"$OUT2" | wc -l)" -eq 8 ]
	assert_clean
	assert_clean "$TOOL2_PID"
}

@test "biosnoop -d: one disk only, by a kernel filter; -v names the events" {
	loop_disk A
	loop_disk B
	start_tool biosnoop -v -d "$A_NAME"
	direct_writes "$B" 3 65536
	direct_writes "$A" 5 65536
	local a=$DD_PID
	direct_writes "$B" 2 65536
	settle 0.5
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(writes_of "$A_NAME")" = "$(expected 5 65536 "$a")" ] || { show_output; false; }
	# nothing of any other disk
	[ "$(awk 'NR > 1 && $4 != d' d="$A_NAME" "$OUT" | wc -l)" -eq 0 ] || { show_output; false; }
	grep -q "block:block_rq_issue, block:block_rq_complete; kernel filter dev == $(( $(stat -c '0x%t' "$A") << 20 | $(stat -c '0x%T' "$A") ))" "$ERR" ||
		{ show_output; false; }
	assert_clean
}

@test "biosnoop -Q: the queued time column, and que_ns for every request" {
	loop_disk A
	start_tool biosnoop -Q -d "$A"
	start_tool2 biosnoop -Q -j -d "$A"
	direct_writes "$A" 4 4096
	settle 0.5
	stop_tool2
	stop_tool
	[ "$TOOL_RC" -eq 0 ] && [ "$TOOL2_RC" -eq 0 ] || { show_output; false; }
	[ "$(head -1 "$OUT")" = "TIME(s)     COMM           PID     DISK      T SECTOR     BYTES   QUE(ms) LAT(ms)" ]
	[ "$(writes_of "$A_NAME")" = "$(expected 4 4096 "$DD_PID")" ] || { show_output; false; }
	[ "$(awk '$5 == "W" && $8 ~ /^[0-9]+\.[0-9][0-9]$/ && $9 ~ /^[0-9]+\.[0-9][0-9]$/' "$OUT" | wc -l)" -eq 4 ]
	[ "$(jq -r 'select(.t == "W" and .que_ns != null and .que_ns >= 0) | .bytes' "$OUT2" | sort -u)" = 4096 ]
	[ "$(jq -r 'select(.t == "W") | .sector' "$OUT2" | wc -l)" -eq 4 ] || { show_output; cat "$OUT2" "$ERR2" >&2; false; }
	assert_clean
}

@test "biosnoop -c: only the I/O its process tree starts, then the command's exit status" {
	loop_disk A
	# the command waits for a line, so the test can write first from
	# outside its tree; then two dd of its shell write 3 and 2 blocks
	start_cmd_tool biosnoop -c "sh -c 'read x; dd if=/dev/zero of=$A bs=4096 count=3 oflag=direct 2>/dev/null; dd if=/dev/zero of=$A bs=8192 count=2 seek=1 oflag=direct 2>/dev/null; exit 3'"
	direct_writes "$A" 4 65536
	local outside=$DD_PID
	release_cmd
	wait_tool || true	# ends with the command, with its status
	[ "$TOOL_RC" -eq 3 ] || { show_output; false; }
	[ "$(awk -v d="$A_NAME" '$4 == d && $5 == "W" { print $2, $5, $6, $7 }' "$OUT")" = \
		"$(printf 'dd W %s\n' '0 4096' '8 4096' '16 4096' '16 8192' '32 8192')" ] || { show_output; false; }
	# two processes, neither the one outside the tree
	[ "$(awk -v d="$A_NAME" '$4 == d && $5 == "W" { print $3 }' "$OUT" | sort -u | wc -l)" -eq 2 ]
	[ -z "$(awk '{ print $3 }' "$OUT" | grep -x "$outside")" ] || { show_output; false; }
	assert_clean
}
