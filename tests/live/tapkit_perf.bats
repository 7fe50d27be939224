#!/usr/bin/env bats
# tapkit's perf_event sampling probes (timer.profile, perf.sw.*, perf.hw.*,
# perf.type(T).config(C)) against the spin workload, which says how much
# CPU time it burnt and how many page faults it made.

load helpers

SPIN=$TAPKIT_TOP/build/tests/helpers/spin

setup() {
	require_root
}

teardown() {
	stop_leftover_tool
}

# value KEY: KEY=N from $output
value() {
	printf '%s\n' "$output" | sed -n "s/^$1=\([0-9a-fx-]*\)\$/\1/p"
}

# within N EXPECTED PERCENT: N is EXPECTED +/- PERCENT% (and +/- 2)
within() {
	local n=$1 want=$2 pct=$3 slack
	# an emulated CPU (the VM suite) on a loaded host fires its sampling
	# clock late, and misses a sample now and then
	[ -z "${TAPKIT_VM:-}" ] || [ "$pct" -ge 30 ] || pct=30
	slack=$(( want * pct / 100 + 2 ))
	[ "$n" -ge $(( want - slack )) ] && [ "$n" -le $(( want + slack )) ] || {
		echo "# $n is not $want +/- $slack" >&2
		return 1
	}
}

@test "tapkit perf: timer.profile samples the target 250 times a second of its CPU time" {
	run_pid tapkit -c "$SPIN 400" -e 'global n, other
probe timer.profile { if (pid() == target()) { n++; if (tid() != target()) other++ } }
probe end { printf("samples=%d\nother=%d\n", n, other) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	local cpu_us samples
	cpu_us=$(value cpu_us) samples=$(value samples)
	[ "$(value other)" = 0 ] || { show_run; false; }
	# a sample every 4 ms of the target's CPU time
	within "$samples" $(( cpu_us / 4000 )) 10 || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit perf: timer.profile on every CPU sees the target with its pid and name" {
	run_pid tapkit -c "$SPIN 400" -e 'global n
probe timer.profile { if (execname() == "spin") n[pid()]++ }
probe end { printf("samples=%d\n", n[target()]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	within "$(value samples)" $(( $(value cpu_us) / 4000 )) 10 || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit perf: perf.sw.cpu_clock.sample(1000000) samples every millisecond of CPU time" {
	run_pid tapkit -c "$SPIN 200" -e 'global n
probe perf.sw.cpu_clock.sample(1000000) { if (pid() == target()) n++ }
probe end { printf("samples=%d\n", n) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	within "$(value samples)" $(( $(value cpu_us) / 1000 )) 10 || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit perf: perf.sw.task_clock.hz(500) samples the target 500 times a second" {
	run_pid tapkit -c "$SPIN 400" -e 'global n
probe perf.sw.task_clock.hz(500).process { n++ }
probe end { printf("samples=%d\n", n) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# the kernel adjusts the period to the frequency as it goes
	within "$(value samples)" $(( $(value cpu_us) / 2000 )) 20 || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit perf: perf.sw.page_faults.sample(1).process(path) counts each fault of that program" {
	# the child of spin touches 3000 fresh pages and exits; its whole
	# life's faults come from wait4(); samples of other programs stay out
	run_pid tapkit -c "$SPIN 20 3000 child" -e 'global f, m, others
probe perf.sw.page_faults.sample(1).process(@1) { f[pid()]++; if (execname() != "spin") others++ }
probe perf.type(1).config(5).sample(1).process(@1) { m[pid()]++ }
probe end { foreach (p in f) printf("faults_%d=%d\nmin_%d=%d\n", p, f[p], p, m[p]); printf("others=%d\n", others) }' "$SPIN"
	[ "$status" -eq 0 ] || { show_run; false; }
	local child faults
	child=$(printf '%s\n' "$output" | sed -n 's/^child=\([0-9]*\) .*/\1/p')
	faults=$(printf '%s\n' "$output" | sed -n 's/.*child_faults=\([0-9]*\)$/\1/p')
	[ -n "$child" ] && [ "$faults" -ge 3000 ] || { show_run; false; }
	[ "$(value "faults_$child")" = "$faults" ] || { show_run; false; }
	[ "$(value "min_$child")" = "$faults" ] || { show_run; false; }
	[ "$(value others)" = 0 ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit perf: .process(path) keeps the samples of that program only" {
	# two copies of spin, one after the other: each probe sees its own
	local other=$BATS_TEST_TMPDIR/spin-other
	cp "$SPIN" "$other"
	run_pid tapkit -c "sh -c '$SPIN 200; $other 100'" -e 'global a, b
probe perf.sw.cpu_clock.sample(1000000).process(@1) { a++ }
probe perf.sw.cpu_clock.sample(1000000).process(@2) { b++ }
probe end { printf("a=%d\nb=%d\n", a, b) }' "$SPIN" "$other"
	[ "$status" -eq 0 ] || { show_run; false; }
	local c1 c2
	c1=$(value cpu_us | sed -n 1p) c2=$(value cpu_us | sed -n 2p)
	within "$(value a)" $(( c1 / 1000 )) 10 || { show_run; false; }
	within "$(value b)" $(( c2 / 1000 )) 10 || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit perf: -p2 names the perf event, its rate and scope" {
	run tapkit -p2 -c true -e 'global n
probe timer.profile { if (pid() == target()) n++ }
probe perf.sw.page_faults.sample(10) { next }
probe perf.sw.cpu_clock.hz(99).process("/bin/true") { next }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[[ "$output" == *"mechanism: perf_event sampling of software cpu_clock every 4000000 ns of each CPU (250 Hz, the tick of CONFIG_HZ=250) on target()'s threads"* ]] || { show_run; false; }
	[[ "$output" == *"mechanism: perf_event sampling of software page_faults every 10 events on every CPU"* ]] || { show_run; false; }
	[[ "$output" == *"software cpu_clock 99 times a second on every CPU, samples of processes running /usr/bin/true"* ||
	   "$output" == *"software cpu_clock 99 times a second on every CPU, samples of processes running /bin/true"* ]] || { show_run; false; }
}

@test "tapkit perf: perf.hw.* samples cycles, or says the machine has no hardware counters" {
	if [ -d /sys/bus/event_source/devices/cpu ] ||
	   [ -d /sys/bus/event_source/devices/cpu_core ]; then
		run_pid tapkit -c "$SPIN 200" -e 'global n
probe perf.hw.cpu_cycles.sample(1000000) { if (pid() == target()) n++ }
probe end { printf("samples=%d\n", n) }'
		[ "$status" -eq 0 ] || { show_run; false; }
		[ "$(value samples)" -gt 0 ] || { show_run; false; }
	else
		run_pid tapkit -e 'probe begin { exit() }
probe perf.hw.instructions.sample(100000) { next }'
		[ "$status" -eq 1 ] || { show_run; false; }
		[ "$output" = "" ] || { show_run; false; }
		[[ "$stderr" == '<input>:2:7: error: this machine has no hardware performance counters'*'requires: perf hardware events'* ]] || { show_run; false; }
	fi
	assert_clean "$RUN_PID"
}

@test "tapkit perf: a bad perf type, config or period is a located error" {
	run_pid tapkit -e 'probe perf.type(4242).config(0).sample(10) { next }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == '<input>:1:7: error: the kernel has no perf event of type 4242 config 0:'* ]] || { show_run; false; }
	assert_clean "$RUN_PID"

	run_pid tapkit -e 'probe perf.type(1).config(999).sample(10) { next }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == '<input>:1:7: error: the kernel has no perf event of type 1 config 999:'* ]] || { show_run; false; }
	assert_clean "$RUN_PID"

	run_pid tapkit -e 'probe perf.sw.cpu_clock.sample { next }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == '<input>:1:25: error: .sample needs a positive number: .sample(N)'* ]] || { show_run; false; }

	run_pid tapkit -e 'probe perf.sw.cpu_clock.sample(0) { next }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == '<input>:1:25: error: .sample needs a positive number'* ]] || { show_run; false; }

	run_pid tapkit -e 'probe perf.sw.no_such_event { next }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == '<input>:1:15: error: unknown perf.sw event no_such_event: one of cpu_clock, '* ]] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit perf: .process without a path and without -c or -x is an error, nothing left" {
	run_pid tapkit -e 'probe perf.sw.cpu_clock.process { next }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == *'perf.sw.cpu_clock.sample(1000000).process samples target()'"'"'s process: give -c CMD or -x PID'* ]] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit perf: uaddr() in timer.profile is the sampled instruction, mostly in spin_burn()" {
	local size
	size=$(nm -S "$SPIN" | awk '$4 == "spin_burn" { print $2 }')
	[ -n "$size" ] || skip "requires: nm (binutils)"
	run_pid tapkit -c "$SPIN 400" -e 'global a
probe timer.profile { if (pid() == target()) a[uaddr()]++ }
probe end { foreach (k in a) printf("ip %d %d\n", k, a[k]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	local burn in all
	burn=$(printf '%d' "$(value burn)")
	read -r in all < <(printf '%s\n' "$output" | awk -v lo="$burn" -v hi="$((burn + 0x$size))" '
		$1 == "ip" { all += $3; if ($2 >= lo && $2 < hi) n += $3 } END { print n + 0, all + 0 }')
	# the loop is spin_burn()'s; the rest is clock_gettime() in the kernel
	[ "$all" -gt 50 ] && [ $(( in * 100 / all )) -ge 70 ] || { echo "# $in of $all in spin_burn" >&2; show_run; false; }
	assert_clean "$RUN_PID"
}

# the function names of a printed stack, one a line ("spin_inner", ...)
stack_names() {
	sed -n 's/^ 0x[0-9a-f]* : \([A-Za-z_][A-Za-z0-9_]*\)+0x[0-9a-f]*\/0x[0-9a-f]* \[.*\]$/\1/p'
}

@test "tapkit perf: timer.profile's user stacks name the functions of a program that has exited" {
	local prog=$TAPKIT_TOP/build/tests/helpers/spinstack
	# print_ubacktrace() at the first sample in the spinning loop (the
	# first ones may catch the loader starting the program); the most
	# frequent stack in the end probe, once the program is gone
	run_pid tapkit -c "$prog 300" -e 'global s, n, shown
probe timer.profile { if (pid() == target()) { n++; if (!shown && isinstr(sprint_ubacktrace(), "spin_middle")) { shown = 1; print_ubacktrace() } s[ubacktrace()] <<< 1 } }
probe end { printf("--\n"); foreach (k in s- limit 1) print_ustack(k); printf("samples=%d\n", n) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	local live dead
	live=$(printf '%s\n' "$output" | sed '/^--$/,$d' | stack_names | head -4 | tr '\n' ' ')
	dead=$(printf '%s\n' "$output" | sed '1,/^--$/d' | stack_names | head -4 | tr '\n' ' ')
	[ "$live" = "spin_inner spin_middle spin_outer main " ] || { show_run; false; }
	[ "$dead" = "spin_inner spin_middle spin_outer main " ] || { show_run; false; }
	[[ "$output" == *"[$prog]"* ]] || { show_run; false; }
	[ "$(value samples)" -ge 60 ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit perf: -p2 says a probe that prints stacks samples callchains" {
	run tapkit -p2 -e 'probe perf.sw.cpu_clock.hz(99) { print_ubacktrace() }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[[ "$output" == *"mechanism: perf_event sampling of software cpu_clock 99 times a second on every CPU, with kernel and user callchains"* ]] || { show_run; false; }
}

@test "tapkit perf: probefunc() and the stacks of programs that exit within a few milliseconds" {
	local prog=$TAPKIT_TOP/build/tests/helpers/spinstack
	# three runs of 3 ms of CPU each, sampled every 0.25 ms; each is gone
	# before the samples are read: their maps come from the perf sideband
	# (an emulated CPU samples many loader functions too: the end probe's
	# loop over them may take more than the default MAXACTION).  A sample
	# on spin_inner's first instruction, before it pushed its frame
	# pointer, has no spin_middle in its frame-pointer stack (perf's
	# neither): the stack shown is the first one through spin_middle
	run_pid tapkit -D MAXACTION=100000 -c "sh -c '$prog 3; $prog 3; $prog 3'" -e 'global f, shown
probe perf.sw.cpu_clock.sample(250000) { if (execname() == "spinstack") {
	f[pid(), probefunc()]++
	if (probefunc() == "spin_inner" && !shown[pid()] && isinstr(sprint_ubacktrace(), "spin_middle")) {
		shown[pid()] = 1; printf("pid %d\n", pid()); print_ubacktrace() } } }
probe end { foreach ([p, fn] in f) if (fn == "spin_inner") printf("%d %s\n", p, fn) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	local pids pid
	pids=$(sed -n 's/^pid //p' <<<"$output" | sort -u)
	[ "$(wc -l <<<"$pids")" = 3 ] || { show_run; false; }
	for pid in $pids; do
		[ ! -e "/proc/$pid" ]
		[[ "$output" == *$'\n'"$pid spin_inner"* ]] || { show_run; false; }
		[ "$(sed -n "/^pid $pid\$/,/^pid /p" <<<"$output" | stack_names | head -4 | tr '\n' ' ')" = \
			"spin_inner spin_middle spin_outer main " ] || { show_run; false; }
	done
	assert_clean "$RUN_PID"
}

@test "tapkit perf: probefunc() of a kernel sample is its kernel function, ppfunc() is empty" {
	[ "$(awk '$2 == "T" { print $1; exit }' /proc/kallsyms)" != 0000000000000000 ] ||
		skip "requires: kernel addresses in /proc/kallsyms (kptr_restrict)"
	# dd copies /dev/zero in the kernel: most of its samples are there (a
	# kernel address is negative as a long; its loader's samples are not)
	run_pid tapkit -c "dd if=/dev/zero of=/dev/null bs=1M count=300 status=none" -e 'global k, u, pf
probe perf.sw.cpu_clock.sample(1000000).process { if (addr() < 0) { k[probefunc()]++; if (symname(addr()) != probefunc()) u++ } pf .= ppfunc() }
probe end { foreach (f in k- limit 1) printf("%s\n", f); printf("mismatch=%d ppfunc=[%s]\n", u, pf) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "${lines[-1]}" = "mismatch=0 ppfunc=[]" ] || { show_run; false; }
	# the commonest kernel function is a symbol of kallsyms
	local top=${lines[-2]}
	[[ "$top" =~ ^[A-Za-z_][A-Za-z0-9_.]*$ ]] || { show_run; false; }
	awk -v s="$top" '$3 == s { f = 1 } END { exit !f }' /proc/kallsyms || { show_run; false; }
}

@test "tapkit perf: perf.hw_cache.CACHE.OP.RESULT points, their encoding, and the missing PMU" {
	# -L lists stap's cartesian product, with the rate suffix
	run tapkit -l 'perf.hw_cache.*.*.*'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "${#lines[@]}" -eq 36 ] || { show_run; false; }
	run tapkit -L 'perf.hw_cache.l1d.*.miss.hz(99)'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "perf.hw_cache.l1d.prefetch.miss.hz(99)
perf.hw_cache.l1d.read.miss.hz(99)
perf.hw_cache.l1d.write.miss.hz(99)" ] || { show_run; false; }
	# names that are not stap's: located errors
	run --separate-stderr tapkit -p2 -e 'probe perf.hw_cache.l2.read.miss { }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "<input>:1:21: error: unknown perf.hw_cache cache l2: perf.hw_cache.CACHE.OP.RESULT, the cache one of l1d, l1i, ll, dtlb, itlb, bpu
probe perf.hw_cache.l2.read.miss { }
                    ^" ] || { show_run; false; }
	run --separate-stderr tapkit -p2 -e 'probe perf.hw_cache.l1d.read { }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[[ "$stderr" == "<input>:1:7: error: incomplete perf.hw_cache result: perf.hw_cache.CACHE.OP.RESULT, the result one of access, miss"* ]] || { show_run; false; }
	if [ -d /sys/bus/event_source/devices/cpu ] ||
	   [ -d /sys/bus/event_source/devices/cpu_core ]; then
		# type 3, config L1D | READ << 8 | ACCESS << 16 = 0
		run tapkit -p2 -e 'probe perf.hw_cache.l1d.read.access.sample(10000) { }'
		[ "$status" -eq 0 ] || { show_run; false; }
		[[ "$output" == *"perf_event sampling of hardware cache l1d.read.access every 10000 events"* ]] || { show_run; false; }
		run tapkit -p3 -e 'probe perf.hw_cache.ll.write.miss.sample(10000) { }'
		[[ "$output" == *"type 3 config 65794 sample_period 10000"* ]] || { show_run; false; }
	else
		# the encoding is named in the error: LL (2) | WRITE (1) << 8 |
		# MISS (1) << 16; BPU (5) | READ (0) | ACCESS (0)
		run_pid tapkit -e 'probe begin { exit() }
probe perf.hw_cache.ll.write.miss.sample(1000) { next }'
		[ "$status" -eq 1 ] || { show_run; false; }
		[ "$output" = "" ] || { show_run; false; }
		[ "${stderr%%$'\n'*}" = "<input>:2:7: error: this machine has no hardware performance counters (no 'cpu' PMU in /sys/bus/event_source/devices, as in most virtual machines) for hardware cache ll.write.miss (type 3 config 0x10102): requires: perf hardware events" ] || { show_run; false; }
		assert_clean "$RUN_PID"
		run --separate-stderr tapkit -p2 -e 'probe perf.hw_cache.bpu.read.access.hz(99).process("/bin/true") { }'
		[ "$status" -eq 1 ] || { show_run; false; }
		[[ "$stderr" == *"for hardware cache bpu.read.access (type 3 config 0x5): requires: perf hardware events"* ]] || { show_run; false; }
		# a wildcard leaves out what the machine lacks: here everything
		run --separate-stderr tapkit -p2 -e 'probe perf.hw_cache.*.read.miss { }'
		[ "$status" -eq 1 ] || { show_run; false; }
		[[ "$stderr" == "<input>:1:7: error: no perf.hw_cache event of this machine matches"*"requires: perf hardware events"* ]] || { show_run; false; }
		# and an optional one is no error
		run --separate-stderr tapkit -p2 -e 'probe perf.hw_cache.*.*.* ?, begin { }'
		[ "$status" -eq 0 ] || { show_run; false; }
	fi
}
