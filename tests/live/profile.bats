#!/usr/bin/env bats
# profile against known CPU workloads: tests/helpers/cpusplit (busy_three
# and busy_one, 3:1 of its CPU time, frame pointers, exits before profile
# prints) and dd reading /dev/zero (its CPU time in the kernel's read_zero
# under the C library's read).

load helpers

SPLIT=$TAPKIT_TOP/build/tests/helpers/cpusplit
DD="dd if=/dev/zero of=/dev/null bs=1M count=4000"

setup() {
	require_root
	[ -x "$SPLIT" ] || { echo "# $SPLIT missing: run make tests-build" >&2; return 1; }
}

teardown() {
	stop_leftover_tool
	local p
	for p in ${BG_PIDS:-}; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null || true
	done
}

# sum JQ_FILTER: the counts of the JSON stacks in $output the filter selects
sum() {
	printf '%s\n' "$output" | jq -s "[.[] | select($1) | .count] | add // 0"
}

@test "profile: names both functions of an exited command and sees their 3:1 split" {
	run_pid profile -F 999 -j --command "$SPLIT 200"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | jq -r .comm | sort -u)" = cpusplit ] || { show_run; false; }
	local pid three one
	pid=$(printf '%s\n' "$output" | jq -r .pid | sort -u)
	[ "$(printf '%s\n' "$pid" | wc -l)" -eq 1 ] || { show_run; false; }
	# gone before its stacks were named
	if kill -0 "$pid" 2>/dev/null; then echo "# $pid still runs" >&2; false; fi
	three=$(sum '.user | index("busy_three")')
	one=$(sum '.user | index("busy_one")')
	echo "# busy_three $three, busy_one $one" >&3
	# about 999 samples a second of its ~1.6 s of CPU time; the split
	# within what sampling a program that other tasks preempt gives
	[ $(( three + one )) -ge 800 ] || { show_run; false; }
	awk -v a="$three" -v b="$one" 'BEGIN { r = a / b; exit !(r >= 2.3 && r <= 3.9) }' ||
		{ echo "# ratio $three:$one" >&2; false; }
	# walked through the caller: busy_three, then main, in most samples
	[ "$(sum '.user[0] == "busy_three" and .user[1] == "main"')" -ge $(( three * 9 / 10 )) ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "profile: the folded file and the SVG of a run hold its -j counts" {
	local fold=$BATS_TEST_TMPDIR/p.folded svg=$BATS_TEST_TMPDIR/p.svg
	run_pid profile -F 999 -j --folded-file "$fold" --svg "$svg" --command "$SPLIT 60"
	[ "$status" -eq 0 ] || { show_run; false; }
	# each JSON stack as a folded line: comm;user outermost first;kernel outermost first
	diff <(printf '%s\n' "$output" |
		jq -r '([.comm] + (.user | reverse) + (.kernel | reverse) | join(";")) + " " + (.count | tostring)' |
		sort) <(sort "$fold")
	local total three
	total=$(sum 'true')
	three=$(sum '.user | index("busy_three")')
	[ "$three" -gt 0 ]
	# well-formed XML; the root and busy_three's boxes say the same counts
	run python3 - "$svg" <<'PY'
import re, sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
sums = {}
for g in root.iter("{http://www.w3.org/2000/svg}g"):
    t = g.find("s:title", ns).text
    m = re.fullmatch(r"(.*) \((\d+) samples, [0-9.]+%\)", t)
    assert g.find("s:rect", ns) is not None, t
    sums[m.group(1)] = sums.get(m.group(1), 0) + int(m.group(2))
print(sums["all"], sums.get("busy_three", 0))
PY
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "$total $three" ] || { echo "# svg: $output, json: $total $three" >&2; false; }
}

@test "profile -f: bcc's folded lines, one per stack" {
	run_pid profile -F 999 -f --command "$SPLIT 40"
	[ "$status" -eq 0 ] || { show_run; false; }
	# no banner: every line is a stack
	printf '%s\n' "$output" | grep -qv '^cpusplit;.* [0-9][0-9]*$' && { show_run; false; }
	printf '%s\n' "$output" | grep -Eq '^cpusplit;(.*;)?main;busy_three [0-9]+$' || { show_run; false; }
	printf '%s\n' "$output" | grep -Eq '^cpusplit;(.*;)?main;busy_one [0-9]+$' || { show_run; false; }
}

@test "profile: bcc's multi-line stacks; -d delimits kernel from user, -a annotates kernel frames" {
	run_pid profile -F 999 -d -a --command "$DD"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "${lines[0]}" = "Sampling at 999 Hertz of the command's processes by user + kernel stack... Hit Ctrl-C to end." ] ||
		{ show_run; false; }
	# a stack: read_zero_[k] ... -- ... read, then "-  dd (PID)" and its count
	printf '%s\n' "$output" | awk '
		/^    read_zero_\[k\]$/ { k = 1; next }
		k == 1 && /^    --$/ { k = 2; next }
		k == 2 && /^    read$/ { k = 3; next }
		k == 3 && /^    -                dd \([0-9]+\)$/ { k = 4; next }
		k == 4 && /^        [0-9]+$/ { found = 1 }
		/^$/ { k = 0 }
		END { exit !found }' || { show_run; false; }
	# user frames are never annotated
	! printf '%s\n' "$output" | grep -q '^    read_\[k\]$'
}

@test "profile: user and kernel frames by default; -U keeps only the user ones, -K only the kernel ones" {
	run_pid profile -F 999 -j --command "$DD"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(sum '(.kernel | index("read_zero")) and (.user | index("read"))')" -gt 0 ] || { show_run; false; }

	run_pid profile -F 999 -j -U --command "$DD"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(sum '.kernel != [] or .kernel_missed')" -eq 0 ] || { show_run; false; }
	[ "$(sum '.user | index("read")')" -gt 0 ] || { show_run; false; }

	run_pid profile -F 999 -j -K --command "$DD"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(sum '.user != [] or .user_missed')" -eq 0 ] || { show_run; false; }
	[ "$(sum '.kernel | index("read_zero")')" -gt 0 ] || { show_run; false; }
}

@test "profile -p: only that process, for the duration" {
	"$SPLIT" 1000000 & BG_PIDS="$!"
	local want=$!
	"$SPLIT" 1000000 & BG_PIDS="$BG_PIDS $!"
	run_pid profile -F 499 -j -p "$want" 1
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | jq -r .pid | sort -u)" = "$want" ] || { show_run; false; }
	[ "$(sum '.user | index("busy_three")')" -gt 0 ] || { show_run; false; }
}

@test "profile duration: a banner, every thread but the idle ones, then the stacks" {
	"$SPLIT" 1000000 & BG_PIDS="$!"
	local busy=$!
	run_pid profile -F 99 1
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "${lines[0]}" = "Sampling at 99 Hertz of all threads by user + kernel stack for 1 secs." ] ||
		{ show_run; false; }
	printf '%s\n' "$output" | grep -q "^    -                cpusplit ($busy)\$" || { show_run; false; }
	! printf '%s\n' "$output" | grep -q '^    -                .* (0)$'
}
