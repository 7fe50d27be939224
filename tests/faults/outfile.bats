#!/usr/bin/env bats
# Output files in a shared directory (sticky and world-writable, like
# /tmp): tapkit -o and profile's --svg/--folded-file do not write through a
# symbolic link, or into a file, that another user planted there; our own
# links and files, and new files, are written as asked.

load faults

setup() {
	require_root
	id nobody >/dev/null 2>&1 || skip "requires: the user nobody"
	SHARED=$BATS_TEST_TMPDIR/shared
	mkdir "$SHARED"
	chmod 1777 "$SHARED"
	VICTIM=$BATS_TEST_TMPDIR/victim
	echo precious >"$VICTIM"
}

@test "tapkit -o: a link or a file another user planted in a shared directory is refused" {
	ln -s "$VICTIM" "$SHARED/out"
	chown -h nobody "$SHARED/out"
	run --separate-stderr tapkit -o "$SHARED/out" -e 'probe begin { println("x"); exit() }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "tapkit: cannot open '$SHARED/out': a symbolic link of user $(id -u nobody) in the shared directory $SHARED, not ours: refused" ] ||
		{ show_run; false; }
	[ "$(cat "$VICTIM")" = precious ]
	# a file of theirs, which they could read our output from
	echo theirs >"$SHARED/file"
	chown nobody "$SHARED/file"
	run --separate-stderr tapkit -o "$SHARED/file" -e 'probe begin { println("x"); exit() }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "tapkit: cannot open '$SHARED/file': a file of user $(id -u nobody) in the shared directory $SHARED, not ours: refused" ] ||
		{ show_run; false; }
	[ "$(cat "$SHARED/file")" = theirs ]
}

@test "tapkit -o: new files, our own files and our own links in a shared directory are written" {
	run --separate-stderr tapkit -o "$SHARED/new" -e 'probe begin { println("one"); exit() }'
	[ "$status" -eq 0 ] && [ "$(cat "$SHARED/new")" = one ] || { show_run; false; }
	[ "$(stat -c %a "$SHARED/new")" = 644 ]
	run --separate-stderr tapkit -o "$SHARED/new" -e 'probe begin { println("two"); exit() }'
	[ "$status" -eq 0 ] && [ "$(cat "$SHARED/new")" = two ] || { show_run; false; }
	ln -s "$BATS_TEST_TMPDIR/target" "$SHARED/link"
	run --separate-stderr tapkit -o "$SHARED/link" -e 'probe begin { println("three"); exit() }'
	[ "$status" -eq 0 ] && [ "$(cat "$BATS_TEST_TMPDIR/target")" = three ] || { show_run; false; }
	# outside a shared directory a link is followed, whoever made it
	ln -s "$BATS_TEST_TMPDIR/target2" "$BATS_TEST_TMPDIR/link2"
	chown -h nobody "$BATS_TEST_TMPDIR/link2"
	run --separate-stderr tapkit -o "$BATS_TEST_TMPDIR/link2" -e 'probe begin { println("four"); exit() }'
	[ "$status" -eq 0 ] && [ "$(cat "$BATS_TEST_TMPDIR/target2")" = four ] || { show_run; false; }
}

@test "profile --svg and --folded-file: a planted link in a shared directory is refused" {
	ln -s "$VICTIM" "$SHARED/flame.svg"
	chown -h nobody "$SHARED/flame.svg"
	run_pid profile --svg "$SHARED/flame.svg" -d 1
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == *"profile: cannot open '$SHARED/flame.svg': a symbolic link of user $(id -u nobody) in the shared directory $SHARED, not ours: refused"* ]] ||
		{ show_run; false; }
	[ "$(cat "$VICTIM")" = precious ]
	assert_clean "$RUN_PID"
	# (with the idle stacks: there are samples on an idle machine too)
	run_pid profile -I --folded-file "$SHARED/f.folded" -d 1
	[ "$status" -eq 0 ] || { show_run; false; }
	[ -s "$SHARED/f.folded" ]
}
