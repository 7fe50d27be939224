#!/usr/bin/env bats
# funclatency's options, bad input and --help (nothing here traces: every
# case is refused before tracefs is touched).

bats_require_minimum_version 1.5.0

load ../elf

hint="Try 'funclatency --help' for more information."

@test "funclatency: -h and --help print usage with examples on stdout" {
	for h in -h --help; do
		run --separate-stderr funclatency "$h"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[[ "$output" == *"USAGE: funclatency [-hjTmuvFr] [-p PID] [-i SECS] [-d SECS] [-l LEVEL]"* ]]
		[[ "$output" == *"-r, --regexp"* && "$output" == *"-l, --level LEVEL"* ]]
		[[ "$output" == *"EXAMPLES:"* ]]
		[[ "$output" == *"funclatency -F 'vfs_r*'"* ]]
		[[ "$output" == *"-m, --milliseconds"* ]]
	done
}

@test "funclatency: option errors exit 2 with one reason" {
	expect_error 2 "funclatency: invalid option '-Q'"$'\n'"$hint" funclatency -Q c:malloc
	expect_error 2 "funclatency: invalid option '--nope'"$'\n'"$hint" funclatency --nope c:malloc
	expect_error 2 "funclatency: option '-p' needs an argument"$'\n'"$hint" funclatency -p
	expect_error 2 "funclatency: option '-i' needs an argument"$'\n'"$hint" funclatency -i
	expect_error 2 "funclatency: -u and -m cannot be used together"$'\n'"$hint" funclatency -u -m c:malloc
	expect_error 2 "funclatency: -l must be between 1 and 1048576: '0'"$'\n'"$hint" funclatency -l 0 c:malloc
	expect_error 2 "funclatency: invalid regular expression '(': Unmatched ( or \\("$'\n'"$hint" \
		funclatency -r 'c:('
	expect_error 2 "funclatency: -u and -m cannot be used together"$'\n'"$hint" funclatency -mu c:malloc
}

@test "funclatency: bad numbers exit 2 naming the option" {
	expect_error 2 "funclatency: invalid number for -d: 'x'"$'\n'"$hint" funclatency -d x c:malloc
	expect_error 2 "funclatency: -d must be between 1 and 31536000: '0'"$'\n'"$hint" funclatency -d 0 c:malloc
	expect_error 2 "funclatency: invalid number for -i: '1s'"$'\n'"$hint" funclatency -i 1s c:malloc
	expect_error 2 "funclatency: -i must be between 1 and 31536000: '-1'"$'\n'"$hint" funclatency -i -1 c:malloc
	expect_error 2 "funclatency: -p must be between 1 and 1073741824: '0'"$'\n'"$hint" funclatency -p 0 c:malloc
	expect_error 2 "funclatency: invalid number for -p: ''"$'\n'"$hint" funclatency -p '' c:malloc
	expect_error 2 "funclatency: -b must be between 4 and 4194304: '1'"$'\n'"$hint" funclatency -b 1 c:malloc
}

@test "funclatency: no pattern, an empty one, or two exit 2" {
	expect_error 2 "funclatency: no pattern given (FUNC* or LIB:FUNC*)"$'\n'"$hint" funclatency
	expect_error 2 "funclatency: no pattern given (FUNC* or LIB:FUNC*)"$'\n'"$hint" funclatency -u -d 1
	expect_error 2 "funclatency: empty pattern"$'\n'"$hint" funclatency ''
	expect_error 2 "funclatency: unexpected argument 'c:free' (one pattern)"$'\n'"$hint" \
		funclatency c:malloc c:free
}

@test "funclatency: tracepoints and USDT probes are refused: they have no return" {
	expect_error 2 "funclatency: 't:sched:sched_switch': tracepoints (t:) and USDT probes (u:) have no return to time"$'\n'"$hint" \
		funclatency t:sched:sched_switch
	expect_error 2 "funclatency: 'u:libc:setjmp': tracepoints (t:) and USDT probes (u:) have no return to time"$'\n'"$hint" \
		funclatency -m u:libc:setjmp
}
