#!/usr/bin/env bats
# fileslower against reads and writes the tests make (dd between /dev/zero
# and a file of the test's directory): exact counts, sizes and names, the
# character device left out unless -a.  Needs kprobes: run under the VM
# kernel (make check-vm).

load helpers

setup() {
	require_root
	[[ $BATS_TEST_DESCRIPTION == *"without kprobes"* ]] && return 0
	require_kprobe_events
}

teardown() {
	stop_leftover_tool
}

@test "fileslower 0: a command's five 4 KiB writes to a regular file, not its reads of /dev/zero" {
	local f=$BATS_TEST_TMPDIR/data
	start_cmd_tool fileslower -j -c "sh -c 'read x; dd if=/dev/zero of=$f bs=4k count=5 status=none'" 0
	release_cmd
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	# (dd's loader reads its libraries: regular files too)
	[ "$(jq -r 'select(.comm == "dd" and .file != "libc.so.6") | "\(.dir) \(.bytes) \(.file)"' "$OUT" |
		sort | uniq -c | awk '{ $1 = $1; print }')" = "5 W 4096 data" ] || { show_output; false; }
	[ "$(jq -r 'select(.file == "zero")' "$OUT")" = "" ] || { show_output; false; }
	assert_clean
}

@test "fileslower -a: the reads of /dev/zero too; bcc's columns" {
	local f=$BATS_TEST_TMPDIR/data
	start_cmd_tool fileslower -a -c "sh -c 'read x; dd if=/dev/zero of=$f bs=4k count=5 status=none'" 0
	release_cmd
	wait_tool
	[ "$(sed -n 2p "$OUT")" = "TIME(s)  COMM           TID    D BYTES   LAT(ms) FILENAME" ] || { show_output; false; }
	[ "$(grep -Ec '^[0-9]+\.[0-9]{3} +dd +[0-9]+ +R 4096 +[0-9]+\.[0-9]{2} zero$' "$OUT")" -eq 5 ] || { show_output; false; }
	[ "$(grep -Ec '^[0-9]+\.[0-9]{3} +dd +[0-9]+ +W 4096 +[0-9]+\.[0-9]{2} data$' "$OUT")" -eq 5 ] || { show_output; false; }
	assert_clean
}

@test "fileslower: a threshold no write reaches prints only the header" {
	start_cmd_tool fileslower -c "sh -c 'read x; dd if=/dev/zero of=$BATS_TEST_TMPDIR/data bs=4k count=5 status=none'" 100000
	release_cmd
	wait_tool
	[ "$(sed -n 1p "$OUT")" = "Tracing sync read/writes slower than 100000 ms" ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 2 ] || { show_output; false; }
	assert_clean
}

@test "fileslower without kprobes: one line naming the missing feature, exit 1, nothing left" {
	[ ! -e "$TRACEFS/kprobe_events" ] || skip "the kernel has kprobe_events: this is the error without them"
	run_pid fileslower 0
	[ "$status" -eq 1 ] || { show_run; false; }
	[ -z "$output" ] || { show_run; false; }
	[ "$stderr" = "fileslower: this kernel has no kprobe events (CONFIG_KPROBE_EVENTS): vfs_read() cannot be timed" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}
