#!/usr/bin/env bats
# tcpretrans against retransmits the tests force: in a network namespace
# of their own, a connection over lo, lo taken down, data sent.

load helpers
load tcp

setup() {
	require_root
	command -v ip >/dev/null || skip "requires: ip (iproute2)"
	NS=tapkit_tcpretrans_$$_$BATS_TEST_NUMBER
	ip netns add "$NS" 2>/dev/null || skip "requires: network namespaces"
	ip netns exec "$NS" ip link set lo up
}

teardown() {
	stop_leftover_tool
	if [ -n "${JPID:-}" ]; then	# the second tool of a test that failed early
		kill -INT "$JPID" 2>/dev/null || true
		wait "$JPID" 2>/dev/null || true
	fi
	[ -z "${NS:-}" ] || ip netns del "$NS" 2>/dev/null || true
}

# retrans SECS: the workload, in $NS; sets $L, $C and $P (its PID)
retrans() {
	local out
	out=$(ip netns exec "$NS" python3 "$WORK" retrans "$1") || return 1
	read -r L C P <<<"$(sed 's/[a-z]*=//g' <<<"$out")"
	[ -n "$P" ]
}

@test "tcpretrans: retransmits of a connection with its owner PID, ends and state" {
	start_tool tcpretrans
	retrans 1.5
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	head -1 "$OUT" | grep -Eq '^TIME +PID +IP +LADDR:LPORT +T> +RADDR:RPORT +STATE$'
	# the client's data, retransmitted while established (the owner is
	# the process that connected, though the timer runs in softirq)
	grep -Eq "^[0-9:]{8} +$P +4 +127\.0\.0\.1:$C +R> +127\.0\.0\.1:$L +ESTABLISHED\$" "$OUT" || { show_output; false; }
	assert_clean
}

@test "tcpretrans -c counts per flow what -j shows one by one" {
	local ready=$BATS_TEST_TMPDIR/ready.j
	TAPKIT_READY_FILE=$ready tcpretrans -j >"$BATS_TEST_TMPDIR/j" 2>&1 &
	JPID=$!
	start_tool tcpretrans -c
	for _ in $(seq 1 100); do [ -e "$ready" ] && break; sleep 0.05; done
	retrans 1.2
	settle
	stop_tool
	kill -INT "$JPID"
	wait "$JPID"
	local jpid=$JPID
	JPID=
	[ "$TOOL_RC" -eq 0 ]
	grep -Eq '^LADDR:LPORT +RADDR:RPORT +RETRANSMITS$' "$OUT" || { show_output; false; }
	local n
	n=$(jq -s --argjson c "$C" --argjson l "$L" '[.[] | select(.lport == $c and .rport == $l and .pid == '"$P"' and .owner and .comm == "tcpret" and .state != null)] | length' "$BATS_TEST_TMPDIR/j")
	[ "$n" -ge 1 ]
	grep -Eq "^\[127\.0\.0\.1\]#$C +<-> \[127\.0\.0\.1\]#$L +$n\$" "$OUT" || { show_output; echo "json: $n"; false; }
	assert_clean
	assert_clean "$jpid"
}

@test "tcpretrans -l: tail loss probes have no tracepoint, said plainly" {
	run --separate-stderr tcpretrans -l
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"cannot trace tail loss probes"*"kprobes"* ]]
}
