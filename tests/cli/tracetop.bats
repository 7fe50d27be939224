#!/usr/bin/env bats
# tracetop's options, view names and --help; nothing here traces (every
# error below is found before tracefs is touched).

bats_require_minimum_version 1.5.0

load ../elf

hint="Try 'tracetop --help' for more information."

@test "tracetop: -h and --help print usage with examples and keys on stdout" {
	for h in -h --help; do
		run --separate-stderr tracetop "$h"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[[ "$output" == *"USAGE: tracetop [-bjlrv] [-d SECS] [-n N]"* ]]
		[[ "$output" == *"EXAMPLES:"* ]]
		[[ "$output" == *"KEYS (on the screen)"* ]]
		[[ "$output" == *"tracetop -e sched:sched_switch -k prev_comm"* ]]
	done
}

@test "tracetop: -l lists the views with their keys and values" {
	run --separate-stderr tracetop -l
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *"syscalls       system calls by process"* ]]
	[[ "$output" == *"keys pid,comm; values count,rate,err:sum=ERRORS"* ]]
	[[ "$output" == *"syscalls-pid   one process's system calls by name, with latency (drill-down)"* ]]
	[[ "$output" == *"syscount       system calls by name, counted in the kernel"* ]]
}

@test "tracetop: option errors exit 2 with one reason" {
	expect_error 2 "tracetop: invalid option '-Q'"$'\n'"$hint" tracetop -Q
	expect_error 2 "tracetop: option '-d' needs an argument"$'\n'"$hint" tracetop -d
	expect_error 2 "tracetop: -d: 'x' is not a number of seconds from 0.1 to 86400"$'\n'"$hint" tracetop -d x
	expect_error 2 "tracetop: -d: '0.05' is not a number of seconds from 0.1 to 86400"$'\n'"$hint" tracetop -d 0.05
	expect_error 2 "tracetop: -d: 'nan' is not a number of seconds from 0.1 to 86400"$'\n'"$hint" tracetop -d nan
	expect_error 2 "tracetop: invalid number for -n: 'two'"$'\n'"$hint" tracetop -n two
	expect_error 2 "tracetop: -n must be between 1 and 1073741824: '0'"$'\n'"$hint" tracetop -n 0
	expect_error 2 "tracetop: -m: 'sometimes' is not interval, cumulative or decay"$'\n'"$hint" tracetop -m sometimes
	expect_error 2 "tracetop: -F: 'pid' is not FIELD=VALUE"$'\n'"$hint" tracetop -F pid
	expect_error 2 "tracetop: -F: '=3' is not FIELD=VALUE"$'\n'"$hint" tracetop -F =3
	expect_error 2 "tracetop: -k and -V go with -e SYSTEM:EVENT"$'\n'"$hint" tracetop -k comm
	expect_error 2 "tracetop: -k and -V go with -e SYSTEM:EVENT"$'\n'"$hint" tracetop -V count
	expect_error 2 "tracetop: give either -e or a view, not both"$'\n'"$hint" tracetop -e sched:sched_switch syscalls
	expect_error 2 "tracetop: -c and -p cannot be used together"$'\n'"$hint" tracetop -p 1 -c true
}

@test "tracetop: unknown views and operands exit 2" {
	expect_error 2 "tracetop: unknown view 'nosuch' (tracetop -l lists them)"$'\n'"$hint" tracetop nosuch
	expect_error 2 "tracetop: view 'syscalls' takes no argument"$'\n'"$hint" tracetop syscalls extra
	expect_error 2 "tracetop: unexpected operand 'c'"$'\n'"$hint" tracetop a b c
}
