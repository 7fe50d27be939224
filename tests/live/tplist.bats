#!/usr/bin/env bats
# tplist against the running kernel's tracepoints and against processes of
# the USDT fixtures (build/tests/elf/usdt-pie), held before main() by
# LD_PRELOAD=libhold.so.  The semaphore test defines a uprobe with a
# reference counter in a group and instance named for this test process
# and removes both.

load helpers
load ../elf

setup() {
	require_root
	GROUP=tapkit_test_$$
}

teardown() {
	local inst=$TRACEFS/instances/$GROUP
	if [ -d "$inst" ]; then
		echo 0 >"$inst/events/$GROUP/sema/enable" 2>/dev/null || true
		rmdir "$inst"
	fi
	if grep -qs "^p:$GROUP/" "$TRACEFS/uprobe_events"; then
		echo "-:$GROUP/sema" >>"$TRACEFS/uprobe_events"
	fi
	if [ -n "${WL_FD:-}" ]; then
		release_workload || true
	fi
	! grep -qs "$GROUP" "$TRACEFS/uprobe_events"
	[ ! -d "$TRACEFS/instances/$GROUP" ]
}




# hold_fixture: a usdt-pie process held before main(), its libraries mapped
hold_fixture() {
	start_held env LD_PRELOAD="$HOLD" "$FIX/usdt-pie"
	local i
	for i in $(seq 1 200); do
		grep -qs libhold.so "/proc/$WL_PID/maps" &&
			[ "$(readlink "/proc/$WL_PID/exe")" = "$FIX/usdt-pie" ] && return 0
		sleep 0.05
	done
	echo "# the held fixture did not start" >&2
	return 1
}

@test "tplist: tracepoints matching a glob are the events directory's, sorted" {
	require_tracefs_file events/sched
	run --separate-stderr tplist 'sched:*'
	[ "$status" -eq 0 ] && [ -z "$stderr" ]
	want=$(cd "$TRACEFS/events/sched" && for d in */; do echo "sched:${d%/}"; done | LC_ALL=C sort)
	[ "$output" = "$want" ] || { diff <(echo "$want") <(echo "$output") >&2; false; }
	run --separate-stderr tplist '*:sched_switch'
	[ "$output" = "sched:sched_switch" ]
}

@test "tplist: without a filter every tracepoint of the events directory" {
	require_tracefs_file events
	run --separate-stderr tplist
	[ "$status" -eq 0 ]
	# sorted by system, then event; ftrace's own (bprint...) cannot be
	# enabled and are left out, as in available_events
	want=$(cd "$TRACEFS/events" && for d in */*/; do d=${d%/}; echo "${d%%/*}:${d#*/}"; done |
		grep -v '^ftrace:' | LC_ALL=C sort -t: -k1,1 -k2,2)
	[ "$output" = "$want" ] || { diff <(echo "$want") <(echo "$output") | head >&2; false; }
}

@test "tplist: -v fields are the format file's (bcc: without common_, -vv with)" {
	require_tracefs_file events/sched/sched_switch
	local fmt=$TRACEFS/events/sched/sched_switch/format
	run --separate-stderr tplist -v sched:sched_switch
	[ "$status" -eq 0 ]
	want=$(echo sched:sched_switch; sed -n 's/^[[:space:]]*field:\([^;]*\);.*/    \1;/p' "$fmt" |
		grep -v ' common_')
	[ "$output" = "$want" ] || { diff <(echo "$want") <(echo "$output") >&2; false; }
	[[ "$output" == *"    char prev_comm[16];"* ]]
	run --separate-stderr tplist -vv sched:sched_switch
	[ "${lines[1]}" = "    unsigned short common_type;" ]
	[ "${#lines[@]}" -eq $(( $(grep -c 'field:' "$fmt") + 1 )) ]
}

@test "tplist: -j -v tracepoint fields with offsets and sizes" {
	require_tracefs_file events/sched/sched_switch
	command -v python3 >/dev/null || skip "requires: python3"
	run --separate-stderr tplist -j -v sched:sched_switch
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json, re, sys
o = json.loads(sys.stdin.read())
assert o["type"] == "tracepoint" and o["system"] == "sched" and o["event"] == "sched_switch", o
want = []
for l in open(sys.argv[1]):
    m = re.search(r"field:(.*) ([a-z_0-9]+)(\[\d+\])?;\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d)", l)
    if m and not m.group(2).startswith("common_"):
        want.append({"name": m.group(2), "type": m.group(1) + (m.group(3) or ""),
                     "offset": int(m.group(4)), "size": int(m.group(5)), "signed": m.group(6) == "1"})
assert o["fields"] == want, (o["fields"], want)
' "$TRACEFS/events/sched/sched_switch/format"
}

@test "tplist: -p lists the probes of the executable and of every mapped library" {
	require_fixtures
	hold_fixture
	run --separate-stderr tplist -p "$WL_PID"
	[ "$status" -eq 0 ] && [ -z "$stderr" ]
	exe=$(grep "^$FIX/usdt-pie " <<<"$output")
	[ "$exe" = "$FIX/usdt-pie tk:regs
$FIX/usdt-pie tk:mem
$FIX/usdt-pie tk:imm
$FIX/usdt-pie tk:bad
$FIX/usdt-pie tk:hand_sema
$FIX/usdt-pie tk2:twice
$FIX/usdt-pie tk:compiled" ] || { echo "# $output"; false; }
	# the executable first; every other line is a library the process maps
	[ "${lines[0]}" = "$FIX/usdt-pie tk:regs" ]
	while read -r path probe; do
		grep -q " $path\$" "/proc/$WL_PID/maps" || { echo "# not mapped: $path"; false; }
		[[ "$probe" == *:* ]]
	done <<<"$output"
	# what -l gives for each library, -p gives too (here: the C library's)
	libc=$(awk '$6 ~ /\/libc[.-]/ { print $6; exit }' "/proc/$WL_PID/maps")
	[ "$(grep "^$libc " <<<"$output")" = "$(tplist -l "$libc")" ]
}

@test "tplist: -v semaphore value and uprobe state follow a uprobe with a reference counter" {
	require_fixtures
	require_tracefs_file uprobe_events
	local f=$FIX/usdt-pie pc sema pcoff semaoff inst=$TRACEFS/instances/$GROUP
	pc=$(sym "$f" tk_usdt_sema) sema=$(sym "$f" tk_hand_sema_semaphore)
	pcoff=$(off "$f" .text "$pc") semaoff=$(off "$f" .probes "$sema")
	hold_fixture

	run --separate-stderr tplist -p "$WL_PID" -v 'tk:hand_sema'
	[ "$status" -eq 0 ]
	[ "$output" = "$f tk:hand_sema
  semaphore: $sema (file offset $semaoff), value 0 (disabled)
  location #1: $pc (file offset $pcoff), uprobe not defined
    args: 4@%edi
    fetch: arg1=%di:u32" ] || { echo "# $output"; false; }

	echo "p:$GROUP/sema $f:$pcoff($semaoff)" >>"$TRACEFS/uprobe_events" ||
		skip "requires: uprobes with a reference counter (Linux 4.20)"
	mkdir "$inst"
	echo 1 >"$inst/events/$GROUP/sema/enable"

	run --separate-stderr tplist -p "$WL_PID" -v 'tk:hand_sema'
	[ "$output" = "$f tk:hand_sema
  semaphore: $sema (file offset $semaoff), value 1 (enabled)
  location #1: $pc (file offset $pcoff), uprobe defined
    args: 4@%edi
    fetch: arg1=%di:u32" ] || { echo "# $output"; false; }
	run --separate-stderr tplist -l "$f" -v 'tk:hand_sema'
	[ "${lines[1]}" = "  semaphore: $sema (file offset $semaoff)" ]
	[ "${lines[2]}" = "  location #1: $pc (file offset $pcoff), uprobe defined" ]
	run --separate-stderr tplist -j -p "$WL_PID" -v 'tk:hand_sema'
	[[ "$output" == *"\"semaphore\":{\"addr\":$((sema)),\"offset\":$((semaoff)),\"value\":1},\"locations\":[{\"addr\":$((pc)),\"offset\":$((pcoff)),\"uprobe\":true,"* ]] ||
		{ echo "# $output"; false; }
	# another probe is untouched
	run --separate-stderr tplist -p "$WL_PID" -v 'tk:compiled'
	[[ "${lines[1]}" == *", value 0 (disabled)" ]]

	echo 0 >"$inst/events/$GROUP/sema/enable"
	rmdir "$inst"
	echo "-:$GROUP/sema" >>"$TRACEFS/uprobe_events"
	run --separate-stderr tplist -p "$WL_PID" -v 'tk:hand_sema'
	[ "${lines[1]}" = "  semaphore: $sema (file offset $semaoff), value 0 (disabled)" ]
	[ "${lines[2]}" = "  location #1: $pc (file offset $pcoff), uprobe not defined" ]
}
