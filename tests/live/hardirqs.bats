#!/usr/bin/env bats
# hardirqs against disk I/O the tests make (O_DIRECT reads of a file of the
# build: the completion interrupts of the block device, or of virtio-9p
# where the tree is shared into a VM whose /tmp is a tmpfs).  /proc/interrupts counts each
# interrupt of a line once before its handlers run, so for a line with one
# handler its deltas bound the tool's counts: over a window inside the
# tool's run and over one around it.

load helpers

setup() {
	require_root
	require_tracefs_file events/irq/irq_handler_entry
	require_tracefs_file events/irq/irq_handler_exit
}

teardown() {
	stop_leftover_tool
}

# irq_counts: "NAME COUNT" for each numbered line with one handler
# (summed over CPUs, and over lines of the same name)
irq_counts() {
	awk 'NR == 1 { ncpu = NF; next }
	$1 ~ /^[0-9]+:$/ && NF > ncpu + 1 && $NF !~ /,/ {
		s = 0; for (i = 2; i <= ncpu + 1; i++) s += $i; c[$NF] += s }
	END { for (n in c) print n, c[n] }' /proc/interrupts | sort
}

# device I/O: O_DIRECT bypasses the page cache, so every read reaches the
# device that holds the build
disk_io() {
	dd if="$TAPKIT_BIN/tapkit" of=/dev/null bs=4k count=200 iflag=direct status=none
}

bracket_start() {
	irq_counts >"$BATS_TEST_TMPDIR/p0"
	start_tool "$@"
	irq_counts >"$BATS_TEST_TMPDIR/p1"
}
bracket_stop() {
	irq_counts >"$BATS_TEST_TMPDIR/p2"
	stop_tool
	irq_counts >"$BATS_TEST_TMPDIR/p3"
}

# delta A B NAME: the count of NAME from snapshot A to B
delta() {
	local a b
	a=$(awk -v n="$3" '$1 == n { print $2 }' "$BATS_TEST_TMPDIR/$1")
	b=$(awk -v n="$3" '$1 == n { print $2 }' "$BATS_TEST_TMPDIR/$2")
	echo $(( ${b:-0} - ${a:-0} ))
}

# check_bounds JQPATH: for every line that interrupted inside the window,
# the tool's count of its handler (JSON) is within the bounds; $SEEN: how
# many lines did
check_bounds() {
	local name inner outer n
	SEEN=0
	while read -r name _; do
		inner=$(delta p1 p2 "$name") outer=$(delta p0 p3 "$name")
		[ "$inner" -ge 1 ] || continue
		n=$(jq -s --arg n "$name" '[.[].hardirqs[] | select(.name == $n) | .count] | add // 0' "$OUT")
		echo "# $name: inner $inner <= tool $n <= outer $outer" >&3
		[ "$n" -ge "$inner" ] && [ "$n" -le "$outer" ] || { show_output; return 1; }
		SEEN=$((SEEN + 1))
	done <"$BATS_TEST_TMPDIR/p2"
}

@test "hardirqs -C -j: counts per handler within /proc/interrupts' bounds" {
	bracket_start hardirqs -C -j
	disk_io
	bracket_stop
	[ "$TOOL_RC" -eq 0 ]
	check_bounds
	[ "$SEEN" -ge 1 ] || skip "requires: hardware interrupts (no numbered line interrupted in /proc/interrupts)"
	[ "$(jq -s '[.[].hardirqs[] | has("total_ns")] | any' "$OUT")" = false ]
	assert_clean
}

@test "hardirqs: timed handler runs within the bounds; bcc's table" {
	bracket_start hardirqs -j
	disk_io
	bracket_stop
	check_bounds
	[ "$SEEN" -ge 1 ] || skip "requires: hardware interrupts (no numbered line interrupted in /proc/interrupts)"
	jq -e -s 'all(.[].hardirqs[]; .total_ns > 0)' "$OUT" || { show_output; false; }

	start_tool hardirqs -N
	disk_io
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	grep -Eq '^HARDIRQ +TOTAL_nsecs$' "$OUT" || { show_output; false; }
	awk 'f && !/^[^ ]+ +[0-9]+$/ { bad = 1 } /^HARDIRQ/ { f = 1 } END { exit bad }' "$OUT" || { show_output; false; }
	awk 'f { print $2 } /^HARDIRQ/ { f = 1 }' "$OUT" | sort -c -n || { show_output; false; }
	assert_clean
}

@test "hardirqs -d: a histogram per handler, its counts the runs" {
	bracket_start hardirqs -d -j
	disk_io
	bracket_stop
	check_bounds
	[ "$SEEN" -ge 1 ] || skip "requires: hardware interrupts (no numbered line interrupted in /proc/interrupts)"
	jq -e -s 'all(.[].hardirqs[]; .count == ([.hist_us[].count] | add))' "$OUT" || { show_output; false; }

	start_tool hardirqs -d -T
	disk_io
	stop_tool
	grep -Eq '^hardirq = [^ ]+$' "$OUT" || { show_output; false; }
	grep -Eq '^     usecs               : count     distribution$' "$OUT" || { show_output; false; }
	grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$OUT" || { show_output; false; }
	assert_clean
}
