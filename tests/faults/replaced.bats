#!/usr/bin/env bats
# A probed binary replaced (a new file renamed over it, as a package upgrade
# does) or removed on disk while a session runs: its uprobes stay on the old
# file, which new processes do not run.  The session notices within a few
# seconds and ends with status 1 and one line saying so, instead of
# counting nothing; and it removes its probes as always.

load faults

setup() {
	require_tracing
	[ -e "$TRACEFS/uprobe_events" ] || skip "requires: uprobe_events"
	PROG=$BATS_TEST_TMPDIR/prog
	cp "$SYSLOOP" "$PROG"
}

teardown() {
	stop_leftover_tool
}

# ended WANT: the tool ends within 3 s with status 1 and its last line of
# error WANT, and leaves nothing in tracefs
ended() {
	tool_ends_failing 3 || return 1
	[ "$(tail -1 "$ERR")" = "$1" ] || { show_output; return 1; }
}

@test "replaced: funccount on a binary renamed over ends, saying the probes stay on the old file" {
	start_tool funccount "$PROG:main"
	cp "$SYSLOOP" "$PROG.new"
	mv "$PROG.new" "$PROG"
	ended "funccount: $PROG was replaced on disk: the probes in it stay on the old file, which new processes do not run"
}

@test "replaced: a script's probe on a removed binary ends it, saying so" {
	start_tool tapkit -e 'probe process("'"$PROG"'").function("main") { n++ }'
	rm "$PROG"
	ended "tapkit: $PROG was removed on disk: the probes in it stay on the old file, which new processes do not run"
}

@test "replaced: a binary written in place (same file) is no replacement" {
	start_tool funccount -d 3 "$PROG:main"
	touch "$PROG"
	"$PROG" getppid 1
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -Eq '^main +1$' "$OUT" || { show_output; false; }
	assert_clean
}
