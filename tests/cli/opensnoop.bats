#!/usr/bin/env bats
# opensnoop's options, bad input and --help; nothing here traces.

bats_require_minimum_version 1.5.0

load ../elf

hint="Try 'opensnoop --help' for more information."

@test "opensnoop: -h and --help print usage with examples on stdout" {
	for h in -h --help; do
		run --separate-stderr opensnoop "$h"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[[ "$output" == *"USAGE: opensnoop [-hjTUxeFv] [-p PID] [-t TID] [-u UID] [-n NAME] [-f FLAG]"* ]]
		[[ "$output" == *"EXAMPLES:"* ]]
		[[ "$output" == *"opensnoop -x         # only failed opens"* ]]
	done
}

@test "opensnoop: option errors exit 2 with one reason" {
	expect_error 2 "opensnoop: invalid option '-Q'"$'\n'"$hint" opensnoop -Q
	expect_error 2 "opensnoop: invalid option '--nope'"$'\n'"$hint" opensnoop --nope
	expect_error 2 "opensnoop: option '-p' needs an argument"$'\n'"$hint" opensnoop -p
	expect_error 2 "opensnoop: option '-n' needs an argument"$'\n'"$hint" opensnoop -n
	expect_error 2 "opensnoop: invalid number for -p: 'abc'"$'\n'"$hint" opensnoop -p abc
	expect_error 2 "opensnoop: -p must be between 1 and 1073741824: '0'"$'\n'"$hint" opensnoop -p 0
	expect_error 2 "opensnoop: invalid number for -t: '1x'"$'\n'"$hint" opensnoop -t 1x
	expect_error 2 "opensnoop: -t must be between 1 and 1073741824: '-3'"$'\n'"$hint" opensnoop -t -3
	expect_error 2 "opensnoop: -p and -t cannot be used together"$'\n'"$hint" opensnoop -p 1 -t 1
	expect_error 2 "opensnoop: -d must be between 1 and 31536000: '0'"$'\n'"$hint" opensnoop -d 0
	expect_error 2 "opensnoop: invalid number for -d: '1s'"$'\n'"$hint" opensnoop -d 1s
	expect_error 2 "opensnoop: unexpected argument 'ls'"$'\n'"$hint" opensnoop ls
	expect_error 2 "opensnoop: unknown open flag 'O_NOPE' (O_RDONLY, O_WRONLY, O_CREAT...)"$'\n'"$hint" \
		opensnoop -f O_NOPE
	expect_error 2 "opensnoop: unknown open flag 'WRONLY' (O_RDONLY, O_WRONLY, O_CREAT...)"$'\n'"$hint" \
		opensnoop -f WRONLY
	expect_error 2 "opensnoop: option '-f' needs an argument"$'\n'"$hint" opensnoop -f
	expect_error 2 "opensnoop: unknown user 'no-such-user-tk'"$'\n'"$hint" opensnoop -u no-such-user-tk
	expect_error 2 "opensnoop: invalid number for -u: '5x'"$'\n'"$hint" opensnoop -u 5x
}

@test "opensnoop: -n takes a name of 1 to 15 characters a kernel filter can hold" {
	expect_error 2 "opensnoop: invalid process name '' (1 to 15 characters)"$'\n'"$hint" opensnoop -n ''
	expect_error 2 "opensnoop: invalid process name 'abcdefghijklmnop' (1 to 15 characters)"$'\n'"$hint" \
		opensnoop -n abcdefghijklmnop
	expect_error 2 "opensnoop: invalid process name 'a\"b' (1 to 15 characters)"$'\n'"$hint" opensnoop -n 'a"b'
	expect_error 2 "opensnoop: invalid process name 'a\\b' (1 to 15 characters)"$'\n'"$hint" opensnoop -n 'a\b'
}

@test "opensnoop: without privilege, exit 1 with one reason" {
	command -v setpriv >/dev/null || skip "requires: setpriv (util-linux)"
	[ "$(id -u)" = 0 ] || skip "requires: root (to drop privilege)"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TAPKIT_BIN/opensnoop"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "opensnoop: "*"tracing needs root)" ]] || { echo "# $stderr"; false; }
	[ "$(wc -l <<<"$stderr")" -eq 1 ]
}

@test "opensnoop: a process that does not exist is a runtime error" {
	[ "$(id -u)" = 0 ] || skip "requires: root"
	expect_error 1 "opensnoop: no such process: 1073741823" opensnoop -p 1073741823
	expect_error 1 "opensnoop: no such thread: 1073741823" opensnoop -t 1073741823
}
