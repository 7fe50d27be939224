#!/usr/bin/env bats
# Out of file descriptors (ulimit -n) and out of memory (ulimit -v): at each
# limit from where the program cannot start to where it runs, a tool either
# runs or ends with status 1 and one line naming the cause, never a wrong
# story (a kernel feature said missing); and it leaves nothing in tracefs.

load faults

setup() {
	require_tracing
}

# limited KIND LIMIT CMD...: CMD under ulimit -KIND LIMIT; $rc, $err (its
# standard error), $pid (its PID: the session's instance is named by it)
limited() {
	local kind=$1 limit=$2
	shift 2
	err=$BATS_TEST_TMPDIR/err
	rc=0
	sh -c 'echo $$ >"$0.pid"; ulimit "-$1" "$2" || exit 125; shift 2; exec "$@"' \
		"$err" "$kind" "$limit" "$@" >/dev/null 2>"$err" || rc=$?
	pid=$(cat "$err.pid")
}

# What a lack of descriptors or memory must not be told as.
wrong='No such device|does not exist|no tracepoint matches|not loaded|CONFIG_|needs root'

# sweep KIND "LIMITS" CAUSE CMD...: CMD under ulimit -KIND at each of
# LIMITS, the last one it runs with (status 0); at the others it runs, or
# ends with status 1 and an error naming CAUSE (a regular expression), not
# a wrong story: the program's one line (tapkit's compile errors have
# their own located form); after each, nothing of the session is in
# tracefs
sweep() {
	local kind=$1 limits=$2 cause=$3 prog=${4##*/} n lines
	shift 3
	for n in $limits; do
		limited "$kind" "$n" "$@"
		assert_clean "$pid" || { echo "# ulimit -$kind $n"; false; }
		[ $rc -eq 0 ] && continue
		# the loader's own failure, before the program runs
		[ $rc -eq 127 ] && grep -q 'error while loading shared libraries' "$err" && continue
		lines=$(grep -c "^$prog: " "$err" || true)
		grep -q ': error: ' "$err" && lines=1	# compile errors
		if [ $rc -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -Eq "($cause)" "$err" ||
			grep -Eq "$wrong" "$err"; then
			echo "# ulimit -$kind $n: status $rc"
			sed 's/^/# /' "$err"
			false
		fi
	done
	[ $rc -eq 0 ] || { echo "# $prog does not run with ulimit -$kind $n"; false; }
}

fds='Too many open files|out of file descriptors'

@test "ulimit -n: syscount, opensnoop, execsnoop and tpoint run, or say they are out of descriptors" {
	local few="$(seq 4 18) 64"
	sweep n "$few" "$fds" tpoint -d 1 sched:sched_switch
	sweep n "$few" "$fds" execsnoop -d 1
	sweep n "$few" "$fds" opensnoop -d 1
	# syscount counts with a perf counter per syscall and CPU
	sweep n "4 6 7 8 16 64 4096" "$fds" syscount -d 1
}

@test "ulimit -n: tapkit scripts on tracepoints, timers and uprobes run, or say they are out of descriptors" {
	local few="$(seq 4 20) 64"
	sweep n "$few" "$fds" tapkit -e 'probe syscall.openat { n++ } probe timer.ms(300) { exit() }'
	sweep n "$few" "$fds" tapkit -e 'probe process("'"$SYSLOOP"'").function("main") { n++ } probe timer.ms(300) { exit() }'
}

@test "ulimit -v: opensnoop and tapkit run, or say they are out of memory" {
	[ "${TAPKIT_SAN:-}" != 1 ] ||
		skip "AddressSanitizer reserves more address space than a ulimit -v can allow"
	local mem="$(seq 4000 1000 10000) 12000 16000 18000 20000 100000"
	sweep v "$mem" 'out of memory|Cannot allocate memory' opensnoop -d 1
	sweep v "$mem" 'out of memory|Cannot allocate memory' \
		tapkit -e 'probe syscall.openat { n++ } probe timer.ms(300) { exit() }'
}
