#!/usr/bin/env bats
# funccount's options, pattern syntax and --help; nothing here traces
# (malformed patterns are usage errors found before tracefs is touched).

bats_require_minimum_version 1.5.0

load ../elf

hint="Try 'funccount --help' for more information."

@test "funccount: -h and --help print usage with examples on stdout" {
	for h in -h --help; do
		run --separate-stderr funccount "$h"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[[ "$output" == *"USAGE: funccount [-hjTv] [-p PID] [-i SECS] [-d SECS] PATTERN"* ]]
		[[ "$output" == *"EXAMPLES:"* ]]
		[[ "$output" == *"funccount 't:syscalls:sys_enter_*'"* ]]
		[[ "$output" == *"u:LIB:[PROV:]PROBE*"* ]]
	done
}

@test "funccount: option errors and bad numbers exit 2 with one reason" {
	expect_error 2 "funccount: invalid option '-Q'"$'\n'"$hint" funccount -Q c:malloc
	expect_error 2 "funccount: option '-p' needs an argument"$'\n'"$hint" funccount c:malloc -p
	expect_error 2 "funccount: invalid number for -p: 'x'"$'\n'"$hint" funccount -p x c:malloc
	expect_error 2 "funccount: -p must be between 1 and 1073741824: '0'"$'\n'"$hint" funccount -p 0 c:malloc
	expect_error 2 "funccount: invalid number for -i: '1.5'"$'\n'"$hint" funccount -i 1.5 c:malloc
	expect_error 2 "funccount: -i must be between 1 and 31536000: '0'"$'\n'"$hint" funccount -i 0 c:malloc
	expect_error 2 "funccount: invalid number for -d: '2s'"$'\n'"$hint" funccount -d 2s c:malloc
	expect_error 2 "funccount: -d must be between 1 and 31536000: '-1'"$'\n'"$hint" funccount -d -1 c:malloc
	expect_error 2 "funccount: no pattern given (e.g. 'vfs_*', c:malloc, t:sched:sched_fork)"$'\n'"$hint" funccount
	expect_error 2 "funccount: unexpected argument 'c:free' (one pattern only)"$'\n'"$hint" funccount c:malloc c:free
}

@test "funccount: malformed patterns exit 2 naming what is wrong" {
	local p
	expect_error 2 "funccount: malformed pattern '': an empty name"$'\n'"$hint" funccount ''
	expect_error 2 "funccount: malformed pattern 'u:x': a USDT probe is u:LIB:[PROVIDER:]PROBE"$'\n'"$hint" funccount u:x
	expect_error 2 "funccount: malformed pattern 't:x': a tracepoint is t:SYSTEM:EVENT"$'\n'"$hint" funccount t:x
	expect_error 2 "funccount: malformed pattern 'a:b:c:d': too many ':'-separated parts"$'\n'"$hint" funccount a:b:c:d
	expect_error 2 "funccount: malformed pattern 'u:a:b:c:d': too many ':'-separated parts"$'\n'"$hint" funccount u:a:b:c:d
	expect_error 2 "funccount: malformed pattern 'x:y:z': the type must be p, t or u, not 'x'"$'\n'"$hint" funccount x:y:z
	for p in p: lib: 't::ev' 't:sys:' 'u:a:b:' 'u:a::x' 'p:c:'; do
		expect_error 2 "funccount: malformed pattern '$p': an empty name"$'\n'"$hint" funccount "$p"
	done
}
