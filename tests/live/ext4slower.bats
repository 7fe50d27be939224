#!/usr/bin/env bats
# ext4slower against ext4 operations the tests make on an ext4 file system
# of their own (a loop device over a file in the test's directory): known
# opens, writes, fsyncs and reads of a known file, with exact sizes and
# offsets.  Needs kprobes: run under the VM kernel (make check-vm).

load helpers
load bio

setup() {
	require_root
	[[ $BATS_TEST_DESCRIPTION == *"without kprobes"* ]] && return 0
	require_kprobe_events
	grep -qw ext4 /proc/filesystems || skip "requires: the ext4 file system in the kernel"
	command -v mkfs.ext4 >/dev/null || skip "requires: mkfs.ext4 (e2fsprogs)"
	loop_disk D
	mkfs.ext4 -q -F "$D" >/dev/null 2>&1 || { echo "# mkfs.ext4 $D failed" >&2; return 1; }
	M=$BATS_TEST_TMPDIR/mnt
	mkdir -p "$M"
	mount -t ext4 "$D" "$M" || { echo "# cannot mount $D" >&2; return 1; }
}

teardown() {
	stop_leftover_tool
	umount "$M" 2>/dev/null || true
	release_loops
}

# ops T: the JSON lines of type T on file "data", as "bytes offset" lines
ops() {
	jq -r --arg t "$1" 'select(.type == $t and .file == "data") | "\(.bytes) \(.offset)"' "$OUT"
}

@test "ext4slower 0: a command's open, five 4 KiB writes, fsync, open and reads, exactly" {
	start_cmd_tool ext4slower -j -c "sh -c 'read x; dd if=/dev/zero of=$M/data bs=4k count=5 conv=fsync status=none; cat $M/data >/dev/null'" 0
	release_cmd
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(ops O | wc -l)" -eq 2 ] || { show_output; false; }	# dd's and cat's opens
	[ "$(ops W)" = "$(printf '4096 %d\n' 0 4096 8192 12288 16384)" ] || { show_output; false; }
	[ "$(ops S | wc -l)" -eq 1 ] || { show_output; false; }
	# cat reads it all, then meets the end
	[ "$(ops R)" = "$(printf '20480 0\n0 20480')" ] || { show_output; false; }
	# every line of the command's processes, named
	jq -e -s 'all(.[]; (.comm == "dd" or .comm == "cat" or .comm == "sh") and .lat_us >= 0)' "$OUT" ||
		{ show_output; false; }
	assert_clean
}

@test "ext4slower: bcc's columns; a threshold no operation reaches prints only the header" {
	start_cmd_tool ext4slower -c "sh -c 'read x; dd if=/dev/zero of=$M/data bs=4k count=3 status=none'" 0
	release_cmd
	wait_tool
	[ "$(sed -n 1p "$OUT")" = "Tracing ext4 operations" ] || { show_output; false; }
	[ "$(sed -n 2p "$OUT")" = "TIME     COMM           PID     T BYTES   OFF_KB   LAT(ms) FILENAME" ] || { show_output; false; }
	grep -Eq '^[0-9:]{8} dd +[0-9]+ +W 4096 +8 +[0-9]+\.[0-9]{2} data$' "$OUT" || { show_output; false; }
	[ "$(grep -c ' W 4096 ' "$OUT")" -eq 3 ] || { show_output; false; }

	start_cmd_tool ext4slower -c "sh -c 'read x; dd if=/dev/zero of=$M/data bs=4k count=3 status=none'" 100000
	release_cmd
	wait_tool
	[ "$(sed -n 1p "$OUT")" = "Tracing ext4 operations slower than 100000 ms" ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 2 ] || { show_output; false; }
	assert_clean
}

@test "ext4slower -p: only that process's operations; -v lists the probes" {
	start_held sh -c "read x; exec dd if=/dev/zero of=$M/data bs=4k count=2 status=none"
	start_tool ext4slower -v -j -p "$WL_PID" 0
	dd if=/dev/zero of="$M/other" bs=4k count=4 status=none
	release_workload
	wait_tool
	[ "$(ops W | wc -l)" -eq 2 ] || { show_output; false; }
	[ "$(jq -r 'select(.file == "other")' "$OUT")" = "" ] || { show_output; false; }
	grep -q 'p:ext4_file_write_iter ext4_file_write_iter file=' "$ERR" || { show_output; false; }
	grep -q 'r:ext4_sync_file_return ext4_sync_file ret=$retval:s64' "$ERR" || { show_output; false; }
	assert_clean
}

@test "ext4slower without kprobes: one line naming the missing feature, exit 1, nothing left" {
	[ ! -e "$TRACEFS/kprobe_events" ] || skip "the kernel has kprobe_events: this is the error without them"
	run_pid ext4slower 0
	[ "$status" -eq 1 ] || { show_run; false; }
	[ -z "$output" ] || { show_run; false; }
	[ "$stderr" = "ext4slower: this kernel has no kprobe events (CONFIG_KPROBE_EVENTS): ext4_file_read_iter() cannot be timed" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}
