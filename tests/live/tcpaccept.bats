#!/usr/bin/env bats
# tcpaccept against loopback connections the tests make, with known
# ports, PIDs and comms.

load helpers
load tcp

setup() {
	require_root
}

teardown() {
	stop_leftover_tool
}

@test "tcpaccept: an IPv4 and an IPv6 accept with the accepting PID and COMM" {
	start_tool tcpaccept
	pair 4 1000 1000 server
	local l4=$L c4=$C s4=$SV
	pair 6 1000 1000 client
	local l6=$L c6=$C s6=$SV
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	head -1 "$OUT" | grep -Eq '^PID +COMM +IP +RADDR +RPORT +LADDR +LPORT$'
	grep -Eq "^$s4 +tcpsrv +4 +127\.0\.0\.1 +$c4 +127\.0\.0\.1 +$l4 *\$" "$OUT" || { show_output; false; }
	grep -Eq "^$s6 +tcpsrv +6 +::1 +$c6 +::1 +$l6 *\$" "$OUT" || { show_output; false; }
	# one line each: the client's side is no passive open
	[ "$(grep -Ec " ($c4|$c6) " "$OUT")" -eq 2 ] || { show_output; false; }
	assert_clean
}

@test "tcpaccept -j: one object per accept with exact fields" {
	start_tool tcpaccept -j
	pair 6 10 10 server
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	run jq -c --argjson p "$L" 'select(.lport == $p) | [.pid, .comm, .ip, .raddr, .rport, .laddr]' "$OUT"
	[ "$output" = "[$SV,\"tcpsrv\",6,\"::1\",$C,\"::1\"]" ] || { show_output; echo "$output"; false; }
	assert_clean
}

@test "tcpaccept: a listener older than the trace is attributed to its process" {
	held_pair "$BATS_TEST_TMPDIR/held" 4 10 10 server hold-listen
	sleep 0.5	# it listens before tracing begins
	start_tool tcpaccept -T
	release_workload
	settle
	stop_tool
	parse_pair "$(cat "$BATS_TEST_TMPDIR/held")"
	head -1 "$OUT" | grep -Eq '^TIME +PID +COMM '
	grep -Eq "^[0-9:]{8} +$WL_PID +tcpsrv +4 +127\.0\.0\.1 +$C +127\.0\.0\.1 +$L *\$" "$OUT" || { show_output; false; }
}

@test "tcpaccept -P keeps only the local ports listed" {
	read -r p1 p2 <<<"$(free_ports 2)"
	start_tool tcpaccept -t -P "1,$p1"
	TCPWORK_PORT=$p1 pair 4 10 10 server
	local s1=$SV
	TCPWORK_PORT=$p2 pair 4 10 10 server
	settle
	stop_tool
	grep -Eq "^[0-9]+\.[0-9]{3} +$s1 +tcpsrv +4 .* $p1 *\$" "$OUT" || { show_output; false; }
	! grep -Eq " $p2 *\$" "$OUT" || { show_output; false; }
}

@test "tcpaccept -p keeps one process's accepts" {
	read -r p1 p2 <<<"$(free_ports 2)"	# the two listeners on distinct ports
	TCPWORK_PORT=$p1 held_pair "$BATS_TEST_TMPDIR/held" 4 10 10 server hold
	start_tool tcpaccept -p "$WL_PID"
	TCPWORK_PORT=$p2 pair 4 10 10 server
	local other=$L
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	parse_pair "$(cat "$BATS_TEST_TMPDIR/held")"
	grep -Eq "^$WL_PID +tcpsrv +4 .* $L *\$" "$OUT" || { show_output; false; }
	! grep -Eq " $other *\$" "$OUT" || { show_output; false; }
	assert_clean
}
