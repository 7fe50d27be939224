#!/usr/bin/env bats
# tcpconnect against loopback connections the tests make, with known
# ports, PIDs and comms.

load helpers
load tcp

setup() {
	require_root
}

teardown() {
	stop_leftover_tool
}

@test "tcpconnect: an IPv4 and an IPv6 connect() with PID, COMM, IP, SADDR, DADDR, DPORT" {
	start_tool tcpconnect
	pair 4 1000 1000 client
	local l4=$L c4=$CL
	pair 6 1000 1000 server
	local l6=$L c6=$CL
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	head -1 "$OUT" | grep -Eq '^PID +COMM +IP +SADDR +DADDR +DPORT *$'
	grep -Eq "^$c4 +tcpcli +4 +127\.0\.0\.1 +127\.0\.0\.1 +$l4 *\$" "$OUT" || { show_output; false; }
	grep -Eq "^$c6 +tcpcli +6 +::1 +::1 +$l6 *\$" "$OUT" || { show_output; false; }
	# one line each: the server's side is no connect()
	[ "$(grep -Ec " ($l4|$l6) *\$" "$OUT")" -eq 2 ] || { show_output; false; }
	assert_clean
}

@test "tcpconnect -j -t -U: one object per connect() with uid and exact fields" {
	start_tool tcpconnect -j -t -U
	pair 6 10 10 client
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	run jq -c --argjson p "$L" 'select(.dport == $p) | [.pid, .comm, .ip, .saddr, .daddr, .uid]' "$OUT"
	[ "$output" = "[$CL,\"tcpcli\",6,\"::1\",\"::1\",0]" ] || { show_output; echo "$output"; false; }
	assert_clean
}

@test "tcpconnect -t -U: TIME(s) and UID columns; -u keeps one UID" {
	start_tool tcpconnect -t -U -u 0
	pair 4 10 10 client
	setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$WORK" pair 4 10 10 client >"$BATS_TEST_TMPDIR/nobody"
	settle
	stop_tool
	head -1 "$OUT" | grep -Eq '^TIME\(s\) +UID +PID +COMM +IP +SADDR +DADDR +DPORT *$'
	grep -Eq "^[0-9]+\.[0-9]{3} +0 +$CL +tcpcli +4 +127\.0\.0\.1 +127\.0\.0\.1 +$L *\$" "$OUT" || { show_output; false; }
	parse_pair "$(cat "$BATS_TEST_TMPDIR/nobody")"
	! grep -Eq " $L *\$" "$OUT" || { show_output; false; }
}

@test "tcpconnect -P keeps only the destination ports listed" {
	read -r p1 p2 <<<"$(free_ports 2)"
	start_tool tcpconnect -P "$p1,1"
	TCPWORK_PORT=$p1 pair 4 10 10 client
	local c1=$CL
	TCPWORK_PORT=$p2 pair 4 10 10 client
	settle
	stop_tool
	grep -Eq "^$c1 +tcpcli +4 .* $p1 *\$" "$OUT" || { show_output; false; }
	! grep -Eq " $p2 *\$" "$OUT" || { show_output; false; }
}

@test "tcpconnect -p keeps one process's connections" {
	read -r p1 p2 <<<"$(free_ports 2)"	# the two listeners on distinct ports
	TCPWORK_PORT=$p1 held_pair "$BATS_TEST_TMPDIR/held" 4 10 10 client hold
	start_tool tcpconnect -p "$WL_PID"
	TCPWORK_PORT=$p2 pair 4 10 10 client
	local other=$L
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	parse_pair "$(cat "$BATS_TEST_TMPDIR/held")"
	grep -Eq "^$WL_PID +tcpcli +4 .* $L *\$" "$OUT" || { show_output; false; }
	! grep -Eq " $other *\$" "$OUT" || { show_output; false; }
	assert_clean
}

@test "tcpconnect -c counts connects per flow" {
	read -r p1 <<<"$(free_ports 1)"
	start_tool tcpconnect -c
	TCPWORK_PORT=$p1 pair 4 10 10 client
	TCPWORK_PORT=$p1 pair 4 10 10 client
	TCPWORK_PORT=$p1 pair 4 10 10 server
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	grep -Eq '^LADDR +RADDR +RPORT +CONNECTS *$' "$OUT" || { show_output; false; }
	grep -Eq "^127\.0\.0\.1 +127\.0\.0\.1 +$p1 +3 *\$" "$OUT" || { show_output; false; }
	assert_clean
}

@test "tcpconnect --command traces the command's connections and ends with it" {
	run_pid tcpconnect --command "python3 $WORK pair 4 10 10 client"
	[ "$status" -eq 0 ]
	parse_pair "$(grep '^lport=' <<<"$output")"
	grep -Eq "^$CL +tcpcli +4 +127\.0\.0\.1 +127\.0\.0\.1 +$L *\$" <<<"$output" || { echo "$output"; false; }
	assert_clean "$RUN_PID"
}
