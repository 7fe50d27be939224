#!/usr/bin/env bats
# tcplife against loopback sessions the tests make, with known ports,
# PIDs, comms and bytes each way.

load helpers
load tcp

setup() {
	require_root
	[ -e "$TRACEFS/events/sock/sock_send_length" ] || skip "requires: sock:sock_send_length (Linux 6.4)"
}

teardown() {
	stop_leftover_tool
}

@test "tcplife: both ends of an IPv4 and an IPv6 session with their bytes (KB)" {
	start_tool tcplife
	pair 4 300000 70000 client
	local l4=$L c4=$C cl4=$CL sv4=$SV
	pair 6 300000 70000 server
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	head -1 "$OUT" | grep -Eq '^PID +COMM +LADDR +LPORT +RADDR +RPORT +TX_KB +RX_KB +MS$'
	# 300000 / 1024 = 292, 70000 / 1024 = 68, as bcc prints them
	grep -Eq "^$cl4 +tcpcli +127\.0\.0\.1 +$c4 +127\.0\.0\.1 +$l4 +292 +68 +[0-9]+\.[0-9]{2}\$" "$OUT" || { show_output; false; }
	grep -Eq "^$sv4 +tcpsrv +127\.0\.0\.1 +$l4 +127\.0\.0\.1 +$c4 +68 +292 +[0-9]+\.[0-9]{2}\$" "$OUT" || { show_output; false; }
	grep -Eq "^$CL +tcpcli +::1 +$C +::1 +$L +292 +68 " "$OUT" || { show_output; false; }
	grep -Eq "^$SV +tcpsrv +::1 +$L +::1 +$C +68 +292 " "$OUT" || { show_output; false; }
	assert_clean
}

@test "tcplife -j: exact bytes each way" {
	start_tool tcplife -j
	pair 6 300000 70000 client
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	run jq -c --argjson p "$L" 'select(.lport == $p or .rport == $p) | [.pid, .comm, .ip, .lport, .rport, .tx_bytes, .rx_bytes, .tx_kb, .rx_kb, .active]' "$OUT"
	[ "${#lines[@]}" -eq 2 ] || { show_output; false; }
	grep -qxF "[$CL,\"tcpcli\",6,$C,$L,300000,70000,292,68,true]" <<<"$output" || { show_output; echo "$output"; false; }
	grep -qxF "[$SV,\"tcpsrv\",6,$L,$C,70000,300000,68,292,false]" <<<"$output" || { show_output; echo "$output"; false; }
	run jq --argjson p "$L" 'select(.lport == $p) | .ms > 0 and .ms < 60000' "$OUT"
	[ "$output" = true ] || { show_output; false; }
	assert_clean
}

@test "tcplife -L and -D keep local and remote ports" {
	read -r p1 p2 <<<"$(free_ports 2)"
	start_tool tcplife -L "$p1"
	TCPWORK_PORT=$p1 pair 4 5000 3000 client
	TCPWORK_PORT=$p2 pair 4 5000 3000 client
	settle
	stop_tool
	# the server's end of the first session only
	[ "$(grep -c tcp "$OUT")" -eq 1 ] || { show_output; false; }
	grep -Eq "^[0-9]+ +tcpsrv +127\.0\.0\.1 +$p1 +127\.0\.0\.1 +[0-9]+ +2 +4 " "$OUT" || { show_output; false; }

	start_tool tcplife -D "$p2,1"
	TCPWORK_PORT=$p1 pair 4 5000 3000 client
	TCPWORK_PORT=$p2 pair 4 5000 3000 client
	settle
	stop_tool
	# the client's end of the second session only
	[ "$(grep -c tcp "$OUT")" -eq 1 ] || { show_output; false; }
	grep -Eq "^$CL +tcpcli +127\.0\.0\.1 +$C +127\.0\.0\.1 +$p2 +4 +2 " "$OUT" || { show_output; false; }
}

@test "tcplife -p keeps one process's sessions" {
	read -r p1 p2 <<<"$(free_ports 2)"	# the two listeners on distinct ports
	TCPWORK_PORT=$p1 held_pair "$BATS_TEST_TMPDIR/held" 4 4096 2048 server hold
	start_tool tcplife -p "$WL_PID" -w
	TCPWORK_PORT=$p2 pair 4 10 10 server
	local other=$L
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	parse_pair "$(cat "$BATS_TEST_TMPDIR/held")"
	head -1 "$OUT" | grep -Eq '^PID +COMM +IP +LADDR +LPORT +RADDR +RPORT +TX_KB +RX_KB +MS$'
	grep -Eq "^$WL_PID +tcpsrv +4 +127\.0\.0\.1 +$L +127\.0\.0\.1 +$C +2 +4 " "$OUT" || { show_output; false; }
	[ "$(grep -c tcp "$OUT")" -eq 1 ] || { show_output; false; }
	! grep -Eq " $other " "$OUT" || { show_output; false; }
	assert_clean
}

@test "tcplife -s -T: CSV with a TIME column" {
	start_tool tcplife -s -T
	pair 4 2048 1024 client
	settle
	stop_tool
	head -1 "$OUT" | grep -qx 'TIME,PID,COMM,IP,LADDR,LPORT,RADDR,RPORT,TX_KB,RX_KB,MS'
	grep -Eq "^[0-9:]{8},$CL,tcpcli,4,127\.0\.0\.1,$C,127\.0\.0\.1,$L,2,1,[0-9]+\.[0-9]{2}\$" "$OUT" || { show_output; false; }
}
