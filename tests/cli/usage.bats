#!/usr/bin/env bats
# Usage, bad input and exit codes of every command; nothing here traces.

bats_require_minimum_version 1.5.0

TOOLS=(tpoint syscount execsnoop killsnoop uprobe kprobe funclatency funccount opensnoop
	profile offcputime biosnoop biolatency bitesize tcpconnect tcpaccept tcplife tcpretrans
	runqlat cpudist exitsnoop hardirqs softirqs stackcount cachestat ext4slower fileslower)

# bcc's letters the block I/O tools own: -Q (queued time), -d (the disk);
# their duration is --duration
owns() {
	case "$1:$2" in
	Q:biosnoop | Q:biolatency | d:biosnoop | d:biolatency | d:bitesize) return 0 ;;
	esac
	return 1
}

# expect_usage_error MESSAGE CMD...: exit 2, one reason and the --help hint
expect_usage_error() {
	local msg=$1; shift
	run --separate-stderr "$@"
	if [ "$status" -ne 2 ] || [ -n "$output" ] ||
	   [ "$stderr" != "$1: $msg"$'\n'"Try '$1 --help' for more information." ]; then
		echo "# $*: status $status"
		echo "# stdout: $output"
		echo "# stderr: $stderr"
		echo "# wanted: $1: $msg"
		return 1
	fi
}

@test "every command: -h and --help print usage with examples on stdout, exit 0" {
	for t in "${TOOLS[@]}"; do
		for h in -h --help; do
			run --separate-stderr "$t" "$h"
			[ "$status" -eq 0 ] || { echo "# $t $h: $status"; false; }
			[ -z "$stderr" ]
			[[ "$output" == *"USAGE: $t "* ]] || { echo "# $t: no USAGE"; false; }
			[[ "$output" == *"EXAMPLES:"* ]] || { echo "# $t: no EXAMPLES"; false; }
		done
	done
}

@test "every command: an unknown option is a usage error naming it" {
	for t in "${TOOLS[@]}"; do
		owns Q "$t" || expect_usage_error "invalid option '-Q'" "$t" -Q
		expect_usage_error "invalid option '--no-such-option'" "$t" --no-such-option
	done
}

@test "every command: a missing option argument is a usage error" {
	expect_usage_error "option '-d' needs an argument" tpoint -d
	expect_usage_error "option '-p' needs an argument" syscount -p
	expect_usage_error "option '-n' needs an argument" execsnoop -n
	expect_usage_error "option '-s' needs an argument" killsnoop -s
}

@test "every command: bad numbers are usage errors" {
	for t in tpoint syscount killsnoop; do
		expect_usage_error "invalid number for -p: 'abc'" "$t" -p abc
		expect_usage_error "-p must be between 1 and 1073741824: '-5'" "$t" -p -5
		expect_usage_error "invalid number for -p: '12x'" "$t" -p 12x
	done
	for t in "${TOOLS[@]}"; do
		# profile's and offcputime's -d is bcc's --delimited: their
		# duration is the operand
		[ "$t" = profile ] || [ "$t" = offcputime ] && continue
		# stackcount's -d is bcc's --delimited, its duration bcc's -D
		if [ "$t" = stackcount ]; then
			expect_usage_error "-D must be between 1 and 31536000: '0'" "$t" -D 0
			continue
		fi
		if owns d "$t"; then
			expect_usage_error "--duration must be between 1 and 31536000: '0'" "$t" --duration 0
			continue
		fi
		case $t in hardirqs|softirqs) continue;; esac	# -d is bcc's --dist
		expect_usage_error "-d must be between 1 and 31536000: '0'" "$t" -d 0
		expect_usage_error "invalid number for -d: ''" "$t" -d ''
	done
	expect_usage_error "-p must be between 1 and 1073741824: '99999999999999999999'" \
		execsnoop -p 99999999999999999999
	expect_usage_error "-P must be between 1 and 1073741824: '99999999999999999999'" \
		execsnoop -P 99999999999999999999
}

@test "every command: leading zeros are decimal, not octal" {
	# -d 08 would be an invalid octal number
	run --separate-stderr syscount -l -d 08
	[ "$status" -ne 2 ] || { echo "# $stderr"; false; }
}

@test "snoop commands: stray operands are usage errors" {
	for t in execsnoop killsnoop; do
		expect_usage_error "unexpected argument 'extra'" "$t" extra
	done
	expect_usage_error "unexpected argument '3'" syscount 1 2 3
	expect_usage_error "invalid number for interval: 'x'" syscount x
	expect_usage_error "invalid number for count: 'y'" syscount 1 y
}

@test "syscount: its own option errors" {
	expect_usage_error "unknown errno 'EBOGUS'" syscount -e EBOGUS
	expect_usage_error "give the interval either with -i or as an operand" syscount -i 1 2
	expect_usage_error "-T must be between 1 and 1073741824: '0'" syscount -T 0
	expect_usage_error "-t must be between 1 and 1073741824: '0'" syscount -t 0
	expect_usage_error "unknown syscall 'nosuch' (syscount -l lists them)" syscount --syscall nosuch
	expect_usage_error "-p and -t cannot be used together" syscount -p 1 -t 1
}

@test "execsnoop: its own option errors" {
	expect_usage_error "invalid regex for -n '(': Unmatched ( or \\(" execsnoop -n '('
	expect_usage_error "--max-args must be between 1 and 60: '61'" execsnoop --max-args 61
	expect_usage_error "-P must be between 1 and 1073741824: '0'" execsnoop -P 0
	expect_usage_error "invalid number for -u: '1x'" execsnoop -u 1x
	expect_usage_error "unknown user 'no-such-user-tk'" execsnoop -u no-such-user-tk
}

@test "killsnoop: its own option errors" {
	expect_usage_error "unknown signal 'NOPE'" killsnoop -s NOPE
	expect_usage_error "invalid process name 'a-name-longer-than-15' (1 to 15 characters)" \
		killsnoop -n a-name-longer-than-15
	expect_usage_error "invalid process name 'a\"b' (1 to 15 characters)" killsnoop -n 'a"b'
	expect_usage_error "-T must be between 1 and 1073741824: '0'" killsnoop -T 0
	expect_usage_error "invalid number for -T: 'x'" killsnoop -T x
}

@test "biosnoop, biolatency, bitesize: a disk that is not one, and their own option errors" {
	for t in biosnoop biolatency bitesize; do
		expect_usage_error "no such disk 'nosuchdisk0'" "$t" -d nosuchdisk0
		expect_usage_error "no such disk '/dev/nosuchdisk0'" "$t" -d /dev/nosuchdisk0
		expect_usage_error "no such disk '4095:4095'" "$t" -d 4095:4095
		expect_usage_error "'/dev/null' is not a block device" "$t" --disk /dev/null
		expect_usage_error "option '-d' needs an argument" "$t" -d
		expect_usage_error "empty command for -c" "$t" -c ''
	done
	local part
	part=$(ls -d /sys/class/block/*/partition 2>/dev/null | head -1)
	if [ -n "$part" ]; then
		part=$(basename "$(dirname "$part")")
		expect_usage_error "'$part' is a partition: requests are traced by disk, name its disk" \
			biosnoop -d "$part"
	fi
	expect_usage_error "unexpected argument 'extra'" biosnoop extra
	expect_usage_error "-D and -F cannot be used together" biolatency -D -F
	expect_usage_error "unexpected argument '3'" biolatency 1 2 3
	expect_usage_error "invalid number for interval: 'x'" bitesize x
	expect_usage_error "invalid process name 'a-name-longer-than-15' (1 to 15 characters)" \
		bitesize -n a-name-longer-than-15
	expect_usage_error "-b must be between 4 and 4194304: '1'" biolatency -b 1
}

@test "tcp commands: their own option errors" {
	expect_usage_error "bad port list 'http' for -P: ports 1-65535, comma-separated" tcpconnect -P http
	expect_usage_error "bad port list '80,' for -P: ports 1-65535, comma-separated" tcpconnect -P 80,
	expect_usage_error "bad port list '0' for -P: ports 1-65535, comma-separated" tcpaccept -P 0
	expect_usage_error "bad port list '65536' for -L: ports 1-65535, comma-separated" tcplife -L 65536
	expect_usage_error "bad port list '1,,2' for -D: ports 1-65535, comma-separated" tcplife -D 1,,2
	expect_usage_error "invalid number for -u: 'root'" tcpconnect -u root
	expect_usage_error "empty command for --command" tcpconnect --command ''
	expect_usage_error "empty command for --command" tcpretrans --command ''
	for t in tcpconnect tcpaccept tcplife tcpretrans; do
		expect_usage_error "-4 and -6 cannot be used together" "$t" -4 -6
		expect_usage_error "unexpected argument 'x'" "$t" x
	done
}

@test "hardirqs, softirqs: their own option errors" {
	local n=$(($(getconf _NPROCESSORS_CONF) - 1))
	for t in hardirqs softirqs; do
		expect_usage_error "-C counts and -d times: use one of them" "$t" -C -d
		expect_usage_error "-c must be between 0 and $n: '$((n + 1))'" "$t" -c $((n + 1))
		expect_usage_error "invalid number for -c: 'x'" "$t" -c x
		expect_usage_error "interval must be between 1 and 31536000: '0'" "$t" 0
		expect_usage_error "option '-c' needs an argument" "$t" -c
	done
}

@test "tpoint: its own option errors" {
	expect_usage_error "no tracepoint given (sys:event, or -l to list them)" tpoint
	expect_usage_error "tracepoint must be sys:event, not 'sched'" tpoint sched
	expect_usage_error "tracepoint must be sys:event, not ':x'" tpoint :x
	expect_usage_error "tracepoint must be sys:event, not 'a:b:c'" tpoint a:b:c
	expect_usage_error "-p and -t cannot be used together" tpoint -p 1 -t 1 sched:x
	expect_usage_error "unexpected argument 'more' (quote the filter)" tpoint sched:x 'a == 1' more
}

@test "every command: without privilege, exit 1 with a reason and nothing left" {
	command -v setpriv >/dev/null || skip "requires: setpriv (util-linux)"
	[ "$(id -u)" = 0 ] || skip "requires: root (to drop privilege)"
	for cmd in "tpoint sched:sched_process_exec" "syscount" "syscount -P" "execsnoop" "killsnoop" \
		"biosnoop" "biolatency" "bitesize"; do
		read -ra argv <<<"$cmd"
		run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$TAPKIT_BIN/${argv[0]}" "${argv[@]:1}"
		[ "$status" -eq 1 ] || { echo "# $cmd: status $status: $stderr"; false; }
		[[ "$stderr" == *"tracing needs root"* ]] || { echo "# $cmd: $stderr"; false; }
		[ "$(wc -l <<<"$stderr")" -eq 1 ] || { echo "# $cmd: $stderr"; false; }
	done
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TAPKIT_BIN/tpoint" -l
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"tracing needs root"* ]]
}

@test "every command: the shared options' long names in --help are the suite's" {
	local -A want=(
		[-p]="-p, --pid PID" [-d]="-d, --duration SECS" [-j]="-j, --json"
		[-h]="-h, --help" [-c]="-c, --command CMD" [-T]="-T, --timestamp"
		[-x]="-x, --failed" [-n]="-n, --name NAME" [-t]="-t, --tid TID"
	)
	local -A takes=(
		[tpoint]="-p -t -d -j -h -c" [uprobe]="-p -t -d -j -h -c"
		[kprobe]="-p -t -d -j -h -c" [syscount]="-p -t -x -d -j -h -c"
		[execsnoop]="-x -n -d -j -h -c" [killsnoop]="-p -n -x -d -j -h -c"
		[opensnoop]="-p -t -T -x -n -d -j -h -c" [funccount]="-p -d -T -j -h -c"
		[funclatency]="-p -d -T -j -h -c" [biosnoop]="-j -h"
		[biolatency]="-T -j -h" [bitesize]="-T -n -j -h"
	)
	for t in "${TOOLS[@]}"; do
		run --separate-stderr "$t" --help
		for o in ${takes[$t]}; do
			[[ "$output" == *"  ${want[$o]}"* ]] || { echo "# $t --help lacks '${want[$o]}'"; false; }
		done
	done
}

@test "every command: the long names of older versions still work" {
	# parsed up to the bad -d, so the spellings before it were taken
	expect_usage_error "-d must be between 1 and 31536000: '0'" execsnoop --time --fails -d 0
	expect_usage_error "-d must be between 1 and 31536000: '0'" syscount --failures -d 0
	expect_usage_error "-d must be between 1 and 31536000: '0'" opensnoop --timestamp --failed -d 0
	expect_usage_error "-d must be between 1 and 31536000: '0'" killsnoop --time --failures -d 0
	expect_usage_error "-d must be between 1 and 31536000: '0'" funccount --timestamp -d 0 x
	expect_usage_error "-d must be between 1 and 31536000: '0'" tpoint --tid 1 -d 0 a:b
}

@test "every tracing command: -c with -p (or -t) is a usage error" {
	for t in tpoint uprobe kprobe syscount killsnoop opensnoop funccount funclatency; do
		expect_usage_error "-c and -p cannot be used together" "$t" -c true -p 1
		expect_usage_error "-c and -p cannot be used together" "$t" --pid 1 --command true
		expect_usage_error "option '-c' needs an argument" "$t" -c
		expect_usage_error "empty command for -c" "$t" -c ''
	done
	for t in tpoint uprobe kprobe opensnoop; do
		expect_usage_error "-c and -t cannot be used together" "$t" -c true -t 1
	done
	expect_usage_error "-c and -x cannot be used together" tapkit -c true -x 1 -e 'probe begin {}'
	expect_usage_error "-v and -c cannot be used together" tpoint -v -c true sched:sched_switch
	expect_usage_error "invalid option '-c'" tplist -c true
}

@test "profile: its own option errors" {
	expect_usage_error "-F must be between 1 and 1000000: '0'" profile -F 0
	expect_usage_error "invalid number for -F: 'x'" profile -F x
	expect_usage_error "-c must be between 1 and 1099511627776: '0'" profile -c 0
	expect_usage_error "-F and -c cannot be used together" profile -F 99 -c 1000
	expect_usage_error "-U and -K cannot be used together" profile -U -K
	expect_usage_error "-f and -j cannot be used together" profile -f -j
	expect_usage_error "duration must be between 1 and 31536000: '0'" profile 0
	expect_usage_error "invalid number for duration: 'x'" profile x
	expect_usage_error "unexpected argument '2'" profile 1 2
	expect_usage_error "empty command for --command" profile --command ''
	expect_usage_error "-c and -p cannot be used together" profile -p 1 --command true
	expect_usage_error "option '-c' needs an argument" profile -c
}

@test "offcputime: its own option errors" {
	expect_usage_error "-U and -K cannot be used together" offcputime -U -K
	expect_usage_error "-f and -j cannot be used together" offcputime -f -j
	expect_usage_error "invalid number for -m: 'x'" offcputime -m x
	expect_usage_error "-M must be between 1 and 1125899906842624: '0'" offcputime -M 0
	expect_usage_error "-m must not be greater than -M" offcputime -m 10 -M 5
	expect_usage_error "duration must be between 1 and 31536000: '0'" offcputime 0
	expect_usage_error "unexpected argument '2'" offcputime 1 2
	expect_usage_error "-c and -p cannot be used together" offcputime -p 1 -c true
}
