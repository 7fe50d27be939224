#!/usr/bin/env bats
# softirqs against loopback traffic the tests make.  /proc/softirqs counts
# each run of a softirq handler just before its softirq_entry record, so
# its deltas bound the tool's counts exactly: the deltas over a window
# inside the tool's (read after it is live, before it is stopped) and over
# one around it (before it starts, after it ends).

load helpers

setup() {
	require_root
	require_tracefs_file events/irq/softirq_entry
	require_tracefs_file events/irq/softirq_exit
	[ -r /proc/softirqs ] || skip "requires: /proc/softirqs"
}

teardown() {
	stop_leftover_tool
}

# softirq_runs NAME [CPU]: /proc/softirqs' count for NAME (NET_RX), on all
# CPUs or on CPU
softirq_runs() {
	awk -v n="$1:" -v c="${2:-}" '$1 == n {
		if (c != "") { print $(c + 2); exit }
		s = 0; for (i = 2; i <= NF; i++) s += $i; print s; exit }' /proc/softirqs
}

# udp N: N UDP datagrams over loopback, each received (NET_RX)
udp() {
	python3 -c 'import socket, sys
n = int(sys.argv[1])
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(n):
    s.sendto(b"x" * 64, r.getsockname()); r.recv(100)' "$1"
}

# net_rx JQFIELD: that member of the net_rx row of the tool's JSON output
# (summed over the objects), 0 without one
net_rx() {
	jq -s "[.[].softirqs[] | select(.name == \"net_rx\") | .$1] | add // 0" "$OUT"
}

# bracket_start CMD...; workload; bracket_stop: INNER and OUTER, the
# NET_RX runs (on CPU $CPU when set) inside and around the tool's run
bracket_start() {
	P0=$(softirq_runs NET_RX ${CPU:-})
	start_tool "$@"
	P1=$(softirq_runs NET_RX ${CPU:-})
}
bracket_stop() {
	P2=$(softirq_runs NET_RX ${CPU:-})
	stop_tool
	P3=$(softirq_runs NET_RX ${CPU:-})
	INNER=$((P2 - P1)) OUTER=$((P3 - P0))
}

@test "softirqs -C -j: net_rx runs within /proc/softirqs' bounds" {
	bracket_start softirqs -C -j
	udp 300
	bracket_stop
	[ "$TOOL_RC" -eq 0 ]
	local n
	n=$(net_rx count)
	echo "# inner $INNER <= tool $n <= outer $OUTER" >&3
	[ "$INNER" -ge 1 ]
	[ "$n" -ge "$INNER" ] && [ "$n" -le "$OUTER" ] || { show_output; false; }
	# counting mode records entries only: no times in the output
	[ "$(jq -s '[.[].softirqs[] | has("total_ns")] | any' "$OUT")" = false ]
	assert_clean
}

@test "softirqs: timed runs within the bounds; bcc's table" {
	bracket_start softirqs -j
	udp 300
	bracket_stop
	local n t
	n=$(net_rx count) t=$(net_rx total_ns)
	[ "$n" -ge "$INNER" ] && [ "$n" -le "$OUTER" ] || { show_output; false; }
	[ "$t" -gt 0 ]

	start_tool softirqs
	udp 100
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	grep -Eq '^SOFTIRQ +TOTAL_usecs$' "$OUT" || { show_output; false; }
	grep -Eq '^net_rx +[0-9]+$' "$OUT" || { show_output; false; }
	# ascending by time, as bcc sorts
	awk 'f { print $2 } /^SOFTIRQ/ { f = 1 }' "$OUT" | sort -c -n || { show_output; false; }
	assert_clean
}

@test "softirqs -d: log2 histograms whose counts are the runs" {
	bracket_start softirqs -d -j
	udp 300
	bracket_stop
	local n h
	n=$(net_rx count)
	h=$(jq -s '[.[].softirqs[] | select(.name == "net_rx") | .hist_us[].count] | add // 0' "$OUT")
	[ "$n" -eq "$h" ] || { show_output; false; }
	[ "$n" -ge "$INNER" ] && [ "$n" -le "$OUTER" ] || { show_output; false; }

	bracket_start softirqs -d
	udp 300
	bracket_stop
	grep -qx 'softirq = net_rx' "$OUT" || { show_output; false; }
	grep -Eq '^     usecs               : count     distribution$' "$OUT" || { show_output; false; }
	# the net_rx section's counts add up within the bounds
	h=$(awk '/^softirq = / { s = ($3 == "net_rx") } s && / -> / { n += $5 } END { print n + 0 }' "$OUT")
	[ "$h" -ge "$INNER" ] && [ "$h" -le "$OUTER" ] || { show_output; false; }
	assert_clean
}

@test "softirqs -c CPU: only that CPU's runs" {
	[ "$(nproc)" -ge 2 ] || skip "requires: 2 CPUs"
	command -v taskset >/dev/null || skip "requires: taskset"
	local cpu
	for cpu in 0 1; do
		CPU=$cpu
		bracket_start softirqs -C -j -c "$cpu"

		taskset -c "$cpu" bash -c "$(declare -f udp); udp 300"
		# and as much on the other CPU, which must not count
		taskset -c $((1 - cpu)) bash -c "$(declare -f udp); udp 300"
		bracket_stop
		local n
		n=$(net_rx count)
		echo "# cpu $cpu: inner $INNER <= tool $n <= outer $OUTER" >&3
		[ "$INNER" -ge 1 ]
		[ "$n" -ge "$INNER" ] && [ "$n" -le "$OUTER" ] || { show_output; false; }
		unset CPU
	done
	assert_clean
}

@test "softirqs -N -T and interval count: two summaries, then exit" {
	start_tool softirqs -N -T 1 2
	udp 50
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c '^SOFTIRQ  *TOTAL_nsecs$' "$OUT")" -eq 2 ] || { show_output; false; }
	[ "$(grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$OUT")" -eq 2 ] || { show_output; false; }

	start_tool softirqs -C -j 1 2
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(wc -l <"$OUT")" -eq 2 ] || { show_output; false; }
	jq -e -s 'length == 2 and all(.[]; (.time | type) == "string" and (.softirqs | type) == "array")' "$OUT"
	assert_clean
}
