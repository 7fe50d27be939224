#!/usr/bin/env bats
# tapkit's command line: usage errors exit 2 with one reason, help and
# version, the passes (-p), listings (-l/-L), --cleanup.

bats_require_minimum_version 1.5.0

expect_usage_error() {
	local msg=$1; shift
	run --separate-stderr "$@"
	if [ "$status" -ne 2 ] || [ -n "$output" ] ||
	   [ "$stderr" != "tapkit: $msg"$'\n'"Try 'tapkit --help' for more information." ]; then
		echo "# $*: status $status"
		echo "# stdout: $output"
		echo "# stderr: $stderr"
		echo "# wanted: tapkit: $msg"
		return 1
	fi
}

@test "tapkit: -h and --help print usage with examples, exit 0" {
	for h in -h --help; do
		run --separate-stderr tapkit "$h"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[[ "$output" == *"USAGE: tapkit "* ]]
		[[ "$output" == *"EXAMPLES:"* ]]
	done
}

@test "tapkit: -V and --version" {
	run --separate-stderr tapkit --version
	[ "$status" -eq 0 ]
	[[ "$output" == "tapkit "* ]]
	run --separate-stderr tapkit -V
	[ "$status" -eq 0 ]
}

@test "tapkit: usage errors exit 2 naming the problem" {
	expect_usage_error "no script given (a file, or -e 'SCRIPT')" tapkit
	expect_usage_error "invalid option '-Q'" tapkit -Q
	expect_usage_error "invalid option '--no-such-option'" tapkit --no-such-option
	expect_usage_error "option '-e' needs an argument" tapkit -e
	expect_usage_error "-p must be between 1 and 5: '7'" tapkit -p 7 -e 'probe begin {}'
	expect_usage_error "invalid number for -x: 'abc'" tapkit -x abc -e 'probe begin {}'
	expect_usage_error "-T must be between 1 and 31536000: '0'" tapkit -T 0 -e 'probe begin {}'
	expect_usage_error "invalid number for -D MAXACTION: 'many'" tapkit -D MAXACTION=many -e 'probe begin {}'
	expect_usage_error "-D MAXACTION needs a value" tapkit -D MAXACTION -e 'probe begin {}'
	expect_usage_error "-c and -x cannot be used together" tapkit -c true -x 1 -e 'probe begin {}'
	expect_usage_error "unexpected argument 'x'" tapkit -l begin x
	expect_usage_error "-g (guru mode) is not supported: tapkit runs no embedded C and never writes to the traced system" \
		tapkit -g -e 'probe begin {}'
	expect_usage_error "--prometheus: 'x:y' is not [ADDR:]PORT" tapkit --prometheus x:y -e 'probe begin {}'
}

@test "tapkit: a missing script file is an error, exit 1" {
	run --separate-stderr tapkit /nonexistent/script.stp
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"cannot read '/nonexistent/script.stp'"* ]]
}

@test "tapkit: unknown -D names are accepted, as stap passes them on" {
	run --separate-stderr tapkit -D STP_NO_OVERLOAD -D FOO=1 -e 'probe begin { exit() }'
	[ "$status" -eq 0 ]
}

@test "tapkit: -p4 compiles everything and stops silently" {
	run --separate-stderr tapkit -p4 -e 'probe begin { println("not run") }'
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "tapkit: -v reports the passes on stderr" {
	run --separate-stderr tapkit -v -e 'probe begin { exit() }'
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"Pass 1: "*"Pass 2: "*"Pass 3: "* ]]
}

@test "tapkit: -l lists matching probe points, -L with variables" {
	run --separate-stderr tapkit -l 'begin'
	[ "$status" -eq 0 ]
	[ "$output" = "begin" ]
	run --separate-stderr tapkit -L 'timer.ms(10)'
	[ "$status" -eq 0 ]
	[ "$output" = "timer.ms(10)" ]
	run --separate-stderr tapkit -l 'nosuch.point'
	[ "$status" -eq 1 ]
	[ -z "$output" ]
}

@test "tapkit: - reads the script from standard input" {
	run --separate-stderr tapkit - <<<'probe begin { printf("%s\n", @1); exit() }' one
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$output" = one ]
	run --separate-stderr tapkit - <<<'probe begin { x = }'
	[ "$status" -eq 1 ]
	[[ "$stderr" == "<stdin>:1:19: error: expected expression before '}'"* ]] || { echo "# $stderr"; false; }
}

@test "tapkit: -s sets the ring size (MiB) in --dry-run, and checks its range" {
	run --separate-stderr tapkit -s 4 --dry-run -e 'probe kernel.trace("syscalls:sys_enter_getppid") { }'
	[ "$status" -eq 0 ]
	[[ "$output" == *'mkdir -p "$T"'$'\n''echo 4096 > "$T/buffer_size_kb"'$'\n''echo 1 > "$T/events/syscalls/sys_enter_getppid/enable"'* ]] || { echo "# $output"; false; }
	run --separate-stderr tapkit --dry-run -e 'probe kernel.trace("syscalls:sys_enter_getppid") { }'
	[[ "$output" != *buffer_size_kb* ]]
	expect_usage_error "-s must be between 1 and 4096: '0'" tapkit -s 0 -e 'probe begin { }'
	expect_usage_error "-s must be between 1 and 4096: '4097'" tapkit -s 4097 -e 'probe begin { }'
}

@test "tapkit: a script read from a file reports errors with its name" {
	printf 'probe begin {\n  x = 1 / \n}\n' >"$BATS_TEST_TMPDIR/bad.stp"
	run --separate-stderr tapkit "$BATS_TEST_TMPDIR/bad.stp"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "$BATS_TEST_TMPDIR/bad.stp:3:1: error: "* ]] || { echo "# $stderr"; false; }
}

# user_string() of a field: the probe is fed by an event probe, which the
# passes show without attaching (they work on a kernel without eprobes)
OPENAT_SCRIPT='probe kernel.trace("syscalls:sys_enter_openat") { if ($flags == 0) println(user_string($filename)) }'

@test "tapkit: -p2 says a probe reading user_string(\$filename) is fed by an event probe" {
	run --separate-stderr tapkit -p2 -e "$OPENAT_SCRIPT"
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$output" = '# global variables
# functions
# probes
kernel.trace("syscalls:sys_enter_openat") /* <- kernel.trace("syscalls:sys_enter_openat") */
  # mechanism: records of an event probe (eprobe) on tracepoint syscalls:sys_enter_openat, which reads the memory user_string() needs, from our tracefs instance, kernel filter: flags == 0
  # condition as a kernel filter: flags == 0 (applied)' ] || { echo "# $output"; false; }
}

@test "tapkit: -p2 says a leading condition on target() limits the probe in the kernel" {
	run --separate-stderr tapkit -p2 -x 1 -e 'global n
probe kernel.trace("syscalls:sys_enter_read") { if (target() == pid() && $fd == 3) n++ }
probe kernel.trace("syscalls:sys_enter_write") { if (tid() != target()) next; printf("w\n") }
probe kernel.trace("syscalls:sys_enter_close") { if (pid() == target() && execname() =~ "x") n++ }'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$(grep '#' <<<"$output" | sed -n '4,10p')" = '  # mechanism: records of tracepoint syscalls:sys_enter_read from our tracefs instance, kernel filter: fd == 3; only target()'\''s process (the instance'\''s set_event_pid and event-fork)
  # condition on target() in the kernel: only its process (applied)
  # condition as a kernel filter: fd == 3 (applied)
  # mechanism: records of tracepoint syscalls:sys_enter_write from our tracefs instance; only target()'\''s thread (the instance'\''s set_event_pid)
  # condition on target() in the kernel: only its thread (applied)
  # mechanism: records of tracepoint syscalls:sys_enter_close from our tracefs instance; only target()'\''s process (the instance'\''s set_event_pid and event-fork)
  # condition on target() in the kernel: only its process; the rest stays in the handler' ] || { echo "# $output"; false; }
}

@test "tapkit: without -c or -x a condition on target() stays in the handler" {
	run --separate-stderr tapkit -p2 -e 'global n
probe kernel.trace("syscalls:sys_enter_write") { if (pid() == target()) printf("w\n") }'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[[ "$output" != *target* ]] || { echo "# $output"; false; }
	[[ "$output" == *"sys_enter_write from our tracefs instance" ]] || { echo "# $output"; false; }
}

@test "tapkit: --dry-run writes target()'s threads to set_event_pid" {
	run --separate-stderr tapkit --dry-run -x 4242 -e '
probe kernel.trace("syscalls:sys_enter_write") { if (pid() == target()) printf("w\n") }'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$output" = '#!/bin/sh
# tapkit --dry-run: what this script would write to tracefs
T=${T:-/sys/kernel/tracing/instances/tapkit_dryrun_$$}
mkdir -p "$T"
TARGET=${TARGET:-4242}
echo "$TARGET" > "$T/set_event_pid"
for t in /proc/$TARGET/task/*; do echo "${t##*/}" >> "$T/set_event_pid"; done
echo 1 > "$T/options/event-fork"
echo 1 > "$T/events/syscalls/sys_enter_write/enable"
# records: "$T"/per_cpu/cpu*/trace_pipe_raw; to undo: rmdir "$T"' ] || { echo "# $output"; false; }
}

@test "tapkit: -p3 and --dry-run print the event probe's exact definition" {
	local def='echo "e:$G/sys_enter_openat_0" '\''syscalls.sys_enter_openat filename=$filename:u64 flags=$flags:u64 mem0=+0($filename):ustring'\'' >> "$T/../../dynamic_events"
echo '\''flags == 0'\'' > "$T/events/$G/sys_enter_openat_0/filter"
echo 1 > "$T/events/$G/sys_enter_openat_0/enable"
# to remove it after rmdir "$T": echo "-:$G/sys_enter_openat_0" >> "${T%/*/*}/dynamic_events"'
	run --separate-stderr tapkit -p3 -e "$OPENAT_SCRIPT"
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[[ "$output" == *"TVAR     1 "*"; \$mem0"$'\n'*"BCALL    "*"; user_string()"$'\n'*"$def" ]] || { echo "# $output"; false; }
	run --separate-stderr tapkit --dry-run -e "$OPENAT_SCRIPT"
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$output" = '#!/bin/sh
# tapkit --dry-run: what this script would write to tracefs
T=${T:-/sys/kernel/tracing/instances/tapkit_dryrun_$$}
mkdir -p "$T"
G=${G:-tapkit_dryrun_$$}
'"$def"'
# records: "$T"/per_cpu/cpu*/trace_pipe_raw; to undo: rmdir "$T"' ] || { echo "# $output"; false; }
}

@test "tapkit: user_string() of an expression or of a string field is a compile error" {
	run --separate-stderr tapkit -p2 -e 'probe kernel.trace("syscalls:sys_enter_openat") { println(user_string($filename * 2)) }'
	[ "$status" -eq 1 ]
	[ "$(head -1 <<<"$stderr")" = "<input>:1:59: error: user_string() reads memory only of a tracepoint field (\$name), through an event probe" ] || { echo "# $stderr"; false; }
	run --separate-stderr tapkit -p2 -e 'probe kernel.trace("sched:sched_switch") { println(kernel_string($prev_comm)) }'
	[ "$status" -eq 1 ]
	[ "$(head -1 <<<"$stderr")" = "<input>:1:52: error: kernel_string() reads memory only of a tracepoint field (\$name), through an event probe: \$prev_comm is a string" ] || { echo "# $stderr"; false; }
}
