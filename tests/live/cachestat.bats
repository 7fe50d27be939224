#!/usr/bin/env bats
# cachestat against page cache use the tests make (tests/helpers/pcio):
# N pages read after they were evicted, with read-ahead off, then read
# again (N misses, N hits); N cached pages overwritten (N dirtied).  The
# counts are scoped to the workload (-p, -c), so they are exact.  With
# kprobes (the VM kernel) every column is counted; without them (this
# host) HITS, DIRTIES and HITRATIO are "-" / null, and the tool says why.

load helpers

PCIO=$TAPKIT_TOP/build/tests/helpers/pcio
# a file of the build nobody maps (DONTNEED keeps mapped pages) on a file
# system with a page cache (the VM's /tmp is a tmpfs; its tree is 9p)
BIG=$TAPKIT_BUILD/libtapkit.a

setup() {
	require_root
	[ -x "$PCIO" ] || { echo "# $PCIO missing: run make tests-build" >&2; return 1; }
	[ -r "$BIG" ] || { echo "# $BIG missing: run make" >&2; return 1; }
	if [ -e "$TRACEFS/kprobe_events" ]; then FULL=1; else FULL=; fi
	# the helper's own pages cached before the tool counts anything
	"$PCIO" read "$BIG" 1
}

teardown() {
	stop_leftover_tool
}

# total KEY: the sum of .KEY over the JSON lines of $OUT (null: "null")
total() {
	jq -s "if all(.[]; .$1 == null) then null else [.[].$1] | add end" "$OUT"
}

# held_run CMD...: the workload held, cachestat -j -p on it, released;
# cachestat ends when the workload does
held_run() {
	start_held "$@"
	start_tool cachestat -j -p "$WL_PID" 1
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; return 1; }
}

@test "cachestat: 24 evicted pages read twice are 24 misses, then 24 hits" {
	held_run "$PCIO" wait-stdin read "$BIG" 24
	[ "$(total counts.added)" -eq 24 ] || { show_output; false; }
	[ "$(total misses)" -eq 24 ] || { show_output; false; }
	if [ -n "$FULL" ]; then
		# folio_mark_accessed once per page read: 48; nothing dirtied
		[ "$(total counts.accessed)" -eq 48 ] || { show_output; false; }
		[ "$(total hits)" -eq 24 ] || { show_output; false; }
		[ "$(total dirties)" -eq 0 ] || { show_output; false; }
		# one line in most runs: the ratio is hits over accesses
		[ "$(jq -s 'map(select(.hits > 0)) | length' "$OUT")" -ge 1 ]
	else
		[ "$(total hits)" = null ] && [ "$(total dirties)" = null ] &&
			[ "$(total hit_ratio)" = null ] || { show_output; false; }
		grep -q "this kernel has no kprobes: HITS, DIRTIES and HITRATIO need kprobes" "$ERR" ||
			{ show_output; false; }
	fi
	assert_clean
}

@test "cachestat: 20 cached pages overwritten are 20 dirtied, no misses" {
	local f=$BATS_TEST_TMPDIR/pcw
	[ "$(stat -f -c %T "$BATS_TEST_TMPDIR")" != tmpfs ] ||
		skip "requires: a disk file system for the test's file (its directory is a tmpfs)"
	dd if=/dev/zero of="$f" bs=4k count=20 conv=fsync status=none
	held_run "$PCIO" wait-stdin write "$f" 20
	[ "$(total counts.dirtied)" -eq 20 ] || { show_output; false; }
	[ "$(total counts.added)" -eq 0 ] || { show_output; false; }
	[ "$(total misses)" -eq 0 ] || { show_output; false; }
	if [ -n "$FULL" ]; then
		[ "$(total hits)" -eq 0 ] || { show_output; false; }
	fi
	assert_clean
}

@test "cachestat -c: bcc's columns, a line per interval and one when the command ends" {
	run_pid cachestat -c "$PCIO read $BIG 16"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "${lines[0]}" = "    HITS   MISSES  DIRTIES HITRATIO   BUFFERS_MB  CACHED_MB" ] || { show_run; false; }
	[ "${lines[-1]}" = "Detaching..." ] || { show_run; false; }
	local row='^ +([0-9]+|-) +[0-9]+ +([0-9]+|-) +([0-9]+\.[0-9]{2}%|-) +[0-9]+ +[0-9]+$'
	[ "${#lines[@]}" -ge 3 ] || { show_run; false; }
	for l in "${lines[@]:1:${#lines[@]}-2}"; do
		[[ $l =~ $row ]] || { echo "# bad row: '$l'" >&2; show_run; false; }
	done
	# CACHED_MB is /proc/meminfo's Cached, within a few MB
	local mb
	mb=$(awk '/^Cached:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
	awk -v a="$(echo "${lines[-2]}" | awk '{ print $NF }')" -v b="$mb" \
		'BEGIN { d = a - b; exit !(d < 64 && d > -64) }' || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "cachestat -T 1 2: a TIME column and exactly two lines, then the end" {
	run_pid cachestat -T 1 2
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "${#lines[@]}" -eq 3 ] || { show_run; false; }
	[[ ${lines[0]} =~ ^TIME\ +HITS\ +MISSES ]] || { show_run; false; }
	[[ ${lines[1]} =~ ^[0-9]{2}:[0-9]{2}:[0-9]{2}\ + ]] || { show_run; false; }
	[[ ${lines[2]} =~ ^[0-9]{2}:[0-9]{2}:[0-9]{2}\ + ]] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "cachestat -v names what it counts; -j lines carry the counts" {
	run_pid cachestat -v -j 1 1
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "${#lines[@]}" -eq 1 ] || { show_run; false; }
	if [ -n "$FULL" ]; then
		[[ $stderr == *"accessed: kprobe "*"added: kprobe "*"dirtied: "*"buffers_dirtied: kprobe mark_buffer_dirty"* ]] ||
			{ show_run; false; }
		printf '%s\n' "$output" | jq -e '.counts | keys == ["accessed", "added", "buffers_dirtied", "dirtied"]' ||
			{ show_run; false; }
	else
		[[ $stderr == *"added: t:filemap:mm_filemap_add_to_page_cache"*"dirtied: t:writeback:writeback_dirty_"* ]] ||
			{ show_run; false; }
		printf '%s\n' "$output" | jq -e '.counts | keys == ["added", "dirtied"]' || { show_run; false; }
	fi
	assert_clean "$RUN_PID"
}

@test "cachestat: bad operands are usage errors; a gone process is one line" {
	run --separate-stderr cachestat 0
	[ "$status" -eq 2 ] || { show_run; false; }
	run --separate-stderr cachestat 1 2 3
	[ "$status" -eq 2 ] || { show_run; false; }
	run_pid cachestat -p 1073741823 1
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(printf '%s\n' "$stderr" | grep -vc 'warning')" -eq 1 ] || { show_run; false; }
	assert_clean "$RUN_PID"
}
