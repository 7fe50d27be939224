#!/usr/bin/env bats
# system(): the command runs under /bin/sh once the handler has ended and
# its output is out, in the background, with tapkit's standard output (the
# -o file too), /dev/null as input, an empty signal mask and none of
# tapkit's other descriptors.  No tracing.

bats_require_minimum_version 1.5.0

setup() {
	TOP=${TAPKIT_TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BIN=${TAPKIT_BIN:-$TOP/build/bin}
	T=$BATS_TEST_TMPDIR
}

# a command still held on its fifo (a failed test) is let go
teardown() {
	if [ -p "$T/hold" ] && [ ! -s "$T/got" ]; then
		timeout 2 sh -c 'echo x >"$1"' sh "$T/hold" || true
	fi
}

# wait_for FILE: until FILE exists (at most 20 s)
wait_for() {
	local i
	for i in $(seq 1 400); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	echo "# $1 never appeared"
	return 1
}

@test "system: after the handler's output, in order, and the script goes on" {
	run --separate-stderr "$BIN/tapkit" -e '
probe begin {
	println("before")
	system("echo one; echo \"$0\" >'"$T"'/sh")
	system("echo two; touch '"$T"'/done")
	println("after")
	exit()
}'
	[ "$status" -eq 0 ] && [ -z "$stderr" ] || { echo "# $status $stderr"; false; }
	wait_for "$T/done"
	# the commands' output is in the same file: tapkit's output went out
	# before they started, and each runs after the one before it started
	run "$BIN/tapkit" -e 'probe begin { println("x"); system("echo y; touch '"$T"'/done2"); exit() }' \
		-o "$T/o"
	[ "$status" -eq 0 ]
	wait_for "$T/done2"
	[ "$(cat "$T/o")" = $'x\ny' ]
	[ "$(cat "$T/sh")" = sh ]
	[ "${lines[0]:-}" = "" ]
}

@test "system: in the background, tapkit does not wait for the command" {
	local rc=0
	mkfifo "$T/hold"
	# not under bats' run, which would wait for the end of the output the
	# command shares
	timeout 20 "$BIN/tapkit" -o "$T/o" -e '
probe begin { system("read x <'"$T"'/hold; echo \"$x\" >'"$T"'/got"); exit() }' 2>"$T/err" || rc=$?
	[ "$rc" -eq 0 ] && [ ! -s "$T/err" ]
	# tapkit has ended; the command is still waiting for its line
	[ ! -e "$T/got" ]
	echo released >"$T/hold"
	wait_for "$T/got"
	for _ in $(seq 1 100); do [ -s "$T/got" ] && break; sleep 0.05; done
	[ "$(cat "$T/got")" = released ]
}

@test "system: /dev/null as input, no signal blocked, no descriptor of tapkit's, status ignored" {
	run --separate-stderr "$BIN/tapkit" -o "$T/o" -e '
probe begin {
	system("cat; echo cat ended; grep ^SigBlk /proc/self/status; ls /proc/self/fd | sort -n | tr \"\\n\" \" \"; exit 3")
	system("touch '"$T"'/done")
	exit()
}' <<<"tapkit's own input" 7</dev/null
	[ "$status" -eq 0 ] && [ -z "$stderr" ]
	wait_for "$T/done"
	for _ in $(seq 1 100); do [ "$(wc -l <"$T/o")" -ge 2 ] && grep -q ' $' "$T/o" && break; sleep 0.05; done
	# ls sees 0, 1, 2 and the directory it reads, not the 7 tapkit has
	[ "$(cat "$T/o")" = $'cat ended\nSigBlk:\t0000000000000000\n0 1 2 3 ' ] || { cat "$T/o"; false; }
}

@test "system: a command in a probe that fails still runs; a non-string is a compile error" {
	local line='probe begin { system("touch '"$T"'/ran"); error("stop here") }' before
	before=${line%%error(*}
	run --separate-stderr "$BIN/tapkit" -e "$line"
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "ERROR: stop here near identifier 'error' at <input>:1:$((${#before} + 1))" ] ||
		{ echo "# $stderr"; false; }
	wait_for "$T/ran"
	run --separate-stderr "$BIN/tapkit" -p2 -e 'probe begin { system(1) }'
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "<input>:1:22: error: type mismatch: expected string but found long" ]
}
