#!/usr/bin/env bats
# The tapsets' probe aliases beyond syscall.* (tapkit.bats has those):
# syscall_any and the syscall twin families, against a sysloop of ours,
# with exact counts.

load helpers

setup() {
	require_root
	require_tracefs_file events/raw_syscalls/sys_enter
	require_tracefs_file events/syscalls/sys_enter_getppid
	TARGET=
}

teardown() {
	stop_leftover_tool
	[ -z "${TARGET:-}" ] || { kill -KILL "$TARGET"; wait "$TARGET"; } 2>/dev/null || true
}

@test "tapkit: syscall_any and syscall_any.return name and count every syscall of the target" {
	run_pid tapkit -c "$SYSLOOP getppid 345" -e 'global c, r
probe syscall_any { if (pid() == target()) c[name, syscall_nr]++ }
probe syscall_any.return {
	if (pid() == target() && name == "getppid") r[syscall_nr, retval]++
}
probe end {
	foreach ([n, nr] in c) if (n == "getppid" || n == "exit_group") printf("%s %d %d\n", n, nr, c[n, nr])
	foreach ([nr, v] in r) printf("ret %d %d %d\n", nr, v, r[nr, v])
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	# x86_64's numbers; getppid() returns the pid of tapkit, sysloop's parent
	[ "$output" = "getppid 110 345
exit_group 231 1
ret 110 $RUN_PID 345" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: syscall_name() names x86_64's numbers, syscall_NR for the others" {
	run --separate-stderr tapkit -e 'probe begin {
	printf("%s %s %s %s\n", syscall_name(0), syscall_name(257), syscall_name(110), syscall_name(9999))
	exit()
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "read openat getppid syscall_9999" ]
}

@test "tapkit: nd_syscall.*, nd1_syscall.* and dw_syscall.* are syscall.*'s points, variables and all" {
	run_pid tapkit -c "$SYSLOOP getppid 123" -e 'global c
probe nd_syscall.getppid, nd1_syscall.getppid { if (pid() == target()) c["nd", name, argstr]++ }
probe dw_syscall.getppid.return { if (pid() == target()) c["dw", name, retstr]++ }
probe end { foreach ([a, b, s] in c) printf("%s %s %s %d\n", a, b, s, c[a, b, s]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "nd getppid  246
dw getppid $RUN_PID 123" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: a twin family's unknown syscall is a located error, nothing left behind" {
	run --separate-stderr tapkit -e 'probe nd_syscall.nosuchcall { exit() }'
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"<input>:1:7: error: probe point mismatch: no match for 'nd_syscall.nosuchcall'"* ]] || { show_run; false; }
}

FORKER=$TAPKIT_TOP/build/tests/helpers/forker

@test "tapkit: kprocess.create gives each child's and thread's ids, in the parent" {
	run_pid tapkit -o "$BATS_TEST_TMPDIR/out" -c "$FORKER 4" -e '
probe kprocess.create { if (pid() == target()) printf("create %d %d\n", new_pid, new_tid) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# forker prints "child PID STATUS" for each child it reaps
	diff <(awk '/^child/ { print "create", $2, $2 }' <<<"$output" | sort) \
	     <(sort "$BATS_TEST_TMPDIR/out")
	[ "$(grep -c ^create "$BATS_TEST_TMPDIR/out")" -eq 4 ]
	# a thread's new_pid is its process's: the target's
	run_pid tapkit -o "$BATS_TEST_TMPDIR/out2" -c "$FORKER threads 3" -e '
probe kprocess.create { if (pid() == target()) printf("create %d %d\n", new_pid == target(), new_tid) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	diff <(awk '/^thread/ { print "create", 1, $2 }' <<<"$output" | sort) \
	     <(sort "$BATS_TEST_TMPDIR/out2") || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: kprocess.exec_complete says which execs failed, with the errno" {
	run_pid tapkit -c "/usr/bin/python3 -c 'import os
for p in [\"/nonexistent/a\", \"/nonexistent/b\", \"/bin/true\"]:
    try: os.execv(p, [p])
    except OSError: pass'" -e 'global c
probe kprocess.exec_complete { if (pid() == target()) c[success, errno]++ }
probe end { foreach ([s, e] in c) printf("%d %d %d\n", s, e, c[s, e]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# two ENOENT, then /bin/true; and tapkit's exec of python3 before them
	[ "$(sort <<<"$output")" = "0 -2 2
1 0 2" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: scheduler.ctxswitch and scheduler.wakeup_new, from the parent" {
	run_pid tapkit -c "$FORKER 3" -e 'global sw, wn, n
probe scheduler.ctxswitch {
	if (prev_pid == target() && prev_tid == target() && prev_task_name == "forker") sw++
}
# in the parent, which wakes its new child
probe scheduler.wakeup_new { if (pid() == target()) wn[task_pid]++ }
probe end { foreach (t in wn) n++; printf("%d %d\n", sw > 0, n) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# forker blocks in wait() for its children: it switches out; its
	# three children are woken new
	[ "$(tail -1 <<<"$output")" = "1 3" ] || { show_run; false; }
	[ "$(grep -c '^child' <<<"$output")" -eq 3 ]
	assert_clean "$RUN_PID"
}

@test "tapkit: scheduler.migrate sees a spinning task moved from CPU to CPU" {
	[ "$(nproc)" -ge 2 ] || skip "requires: 2 CPUs"
	taskset -c 0 sh -c 'while :; do :; done' &
	TARGET=$!
	start_tool tapkit -x "$TARGET" -e '
probe scheduler.migrate { if (pid == target()) printf("%d %d %s\n", cpu_from, cpu_to, name) }'
	taskset -pc 1 "$TARGET" >/dev/null
	sleep 0.2
	taskset -pc 0 "$TARGET" >/dev/null
	sleep 0.2
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(cat "$OUT")" = "0 1 migrate
1 0 migrate" ] || { show_output; false; }
	assert_clean
}

@test "tapkit: kprocess.release frees each reaped child once" {
	start_tool tapkit -e 'probe kprocess.release { printf("%d %d %d %s\n", released_tid, released_pid, pid, name) }'
	"$FORKER" 3 >"$BATS_TEST_TMPDIR/children"
	# the kernel frees a task after an RCU grace period
	sleep 0.5
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(grep -c '^child' "$BATS_TEST_TMPDIR/children")" -eq 3 ]
	local c
	for c in $(awk '/^child/ { print $2 }' "$BATS_TEST_TMPDIR/children"); do
		[ "$(grep -cx "$c $c $c release" "$OUT")" -eq 1 ] || { show_output; false; }
	done
	assert_clean
}

@test "tapkit: signal.handle in the receiver: its signals, their codes and dispositions" {
	# a receiver with a handler for USR1 that ignores USR2 (discarded when
	# sent: never delivered), then ends itself with TERM, whose default
	# action the kernel carries out as a SIGKILL of the thread group; all
	# sent by kill(): si_code 0
	run_pid tapkit -c "/usr/bin/python3 -c 'import os, signal
signal.signal(signal.SIGUSR1, lambda s, f: None)
signal.signal(signal.SIGUSR2, signal.SIG_IGN)
os.kill(os.getpid(), signal.SIGUSR1)
os.kill(os.getpid(), signal.SIGUSR2)
os.kill(os.getpid(), signal.SIGUSR1)
os.kill(os.getpid(), signal.SIGTERM)'" -e '
probe signal.handle {
	if (pid() == target())
		printf("%s %d %d %s %s %s\n", name, sig, sig_code, sig_name, sig_mode, sa_handler > 1 ? "handler" : sprint(sa_handler))
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "handle 10 0 SIGUSR1 User handler
handle 10 0 SIGUSR1 User handler
handle 9 0 SIGKILL User 0" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: raise() signals the thread the event happened in" {
	# sleep's first nanosleep gets it SIGTERM: the run ends with it, well
	# before the 30 s it asked for
	run_pid timeout 20 tapkit -c 'sleep 30' -e '
probe syscall.clock_nanosleep { if (pid() == target()) raise(15) }
probe end { println("end") }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "end" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: @defined() decides at compile time; @choose_defined() picks what the probe has" {
	run_pid tapkit -c "$SYSLOOP getppid 345" -e 'global c
probe kernel.trace("raw_syscalls:sys_enter") {
	if (pid() == target() && $id == 110)
		c[@choose_defined($id, -1), @defined($nosuch) ? $nosuch : -2]++
}
probe end { foreach ([a, b] in c) printf("%d %d %d\n", a, b, c[a, b]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "110 -2 345" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: a ctime-stamped kprocess.create/exit log with task_*() of each child" {
	run_pid tapkit -o "$BATS_TEST_TMPDIR/out" -c "$FORKER 3" -e 'global kids
probe kprocess.create {
	if (pid() == target()) {
		kids[task_pid(task)] = 1
		printf("%s create %d %d %s\n", ctime(), task_pid(task), task_tid(task),
		       task_execname(task_current()))
	}
}
probe kprocess.exit {
	if (task_pid(task) in kids)
		printf("%s exit %d %d %s %d\n", ctime(gettimeofday_s()), task_pid(task),
		       task_tid(task), task_execname(task), task_uid(task))
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	local year out=$BATS_TEST_TMPDIR/out c
	year=$(date -u +%Y)
	[ "$(wc -l <"$out")" -eq 6 ] || { cat "$out"; false; }
	# stap's ctime(): "Wed Jun 30 21:49:08 1993", UTC, 24 characters
	grep -vE "^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 1-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9] $year (create|exit) " "$out" &&
		{ cat "$out"; false; }
	for c in $(awk '/^child/ { print $2 }' <<<"$output"); do
		[ "$(grep -c " create $c $c forker$" "$out")" -eq 1 ] || { cat "$out"; false; }
		[ "$(grep -c " exit $c $c forker 0$" "$out")" -eq 1 ] || { cat "$out"; false; }
	done
	assert_clean "$RUN_PID"
}

@test "tapkit: task_*() of task_current() are the event's, exact; pid2task() reads /proc" {
	# sysloop lives 0.3 s after each of its 3 lseek() calls
	run_pid tapkit -c "$SYSLOOP seq 3 1 300000" -e 'global done
probe syscall.lseek {
	if (pid() == target() && !done) {
		done = 1
		t = task_current()
		printf("%d %d %d %s %d %d %d\n", task_pid(t) == pid(), task_tid(t) == tid(),
		       task_pid(task_parent(t)) == ppid(), task_execname(t), task_uid(t) == uid(),
		       task_cpu(t) == cpu(), task_nice(t))
	}
}
probe end { p = pid2task(1); printf("%d %d\n", task_pid(p), task_tid(p)) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# sysloop runs at the niceness it inherits from here
	[ "$output" = "1 1 1 sysloop 1 1 $(nice)
1 1" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: user_mode() is 1 in uprobes, 0 in tracepoints and begin" {
	local sp=$TAPKIT_TOP/build/tests/helpers/stackprog
	run_pid tapkit -c "$sp main 0" -e '
probe begin { printf("begin %d\n", user_mode()) }
probe process(@1).function("c") { printf("uprobe %d\n", user_mode()) }
probe kernel.trace("syscalls:sys_enter_getppid") {
	if (pid() == target()) printf("tracepoint %d\n", user_mode())
}' "$sp"
	[ "$status" -eq 0 ] || { show_run; false; }
	# the two providers' records are not ordered between them
	[ "$(sort <<<"$output")" = "begin 0
tracepoint 0
uprobe 1" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: a thread_indent() call tracer over a program's functions, as para-callgraph.stp" {
	local sp=$TAPKIT_TOP/build/tests/helpers/stackprog
	run_pid tapkit -c "$sp main 0" -e '
probe process(@1).function("a").call, process(@1).function("b").call,
      process(@1).function("c").call
{
	printf("%s -> %s\n", thread_indent(1), probefunc())
}
probe process(@1).function("a").return, process(@1).function("b").return,
      process(@1).function("c").return
{
	printf("%s <- %s\n", thread_indent(-1), probefunc())
}
probe end { printf("target %d\n", target()) }' "$sp"
	[ "$status" -eq 0 ] || { show_run; false; }
	local t
	t=$(sed -n 's/^target //p' <<<"$output")
	# "%6d %s:%-*s": microseconds since the outermost call, the thread,
	# one space per level
	[ "$(sed 's/^ *[0-9]\+ /T /' <<<"$output")" = "T stackprog($t): -> a
T stackprog($t):  -> b
T stackprog($t):   -> c
T stackprog($t):   <- c
T stackprog($t):  <- b
T stackprog($t): <- a
target $t" ] || { show_run; false; }
	# the first is the outermost call's own time, and time goes forward
	[ "$(awk 'NR == 1 { print $1 }' <<<"$output")" = 0 ]
	awk 'NR <= 6 { if ($1 < last) exit 1; last = $1 }' <<<"$output"
	assert_clean "$RUN_PID"
}

@test "tapkit: an ansi_clear_screen() top-like display over syscall_any" {
	run_pid tapkit -c "$SYSLOOP getppid 777" -e 'global c
probe syscall_any { if (pid() == target()) c[name]++ }
function show() {
	ansi_clear_screen()
	ansi_set_color(1, 0, 1); printf("%-12s %8s", "SYSCALL", "COUNT"); ansi_reset_color()
	ansi_new_line()
	foreach (n in c- limit 1) printf("%-12s %8d\n", n, c[n])
}
probe timer.ms(100) { show() }
probe end { show() }'
	[ "$status" -eq 0 ] || { show_run; false; }
	local esc=$'\033' last
	# the last screen: cleared, a bold header, the target's busiest call
	last=${output##*"${esc}[1;1H${esc}[J"}
	[ "$last" = "${esc}[0;1;1mSYSCALL         COUNT${esc}[0;0m
getppid           777" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: vm.pagefault, vm.mmap and vm.munmap of a process touching 64 pages" {
	require_tracefs_file events/exceptions/page_fault_user
	# sysloop touch maps 64 pages at 0x200000000000 and writes a byte to each
	run_pid tapkit -c "$SYSLOOP touch 64" -e 'global c, m, u
probe vm.pagefault {
	if (pid() == target() && address >= 0x200000000000 &&
	    address < 0x200000000000 + 64 * 4096)
		c[name, write_access, address & 4095]++
}
probe vm.mmap { if (pid() == target() && address == 0x200000000000) m[name, length]++ }
probe vm.munmap { if (pid() == target() && address == 0x200000000000) u[name, length]++ }
probe end {
	foreach ([n, w, off] in c) printf("%s write=%d offset=%d %d\n", n, w, off, c[n, w, off])
	foreach ([n, l] in m) printf("%s %d %d\n", n, l, m[n, l])
	foreach ([n, l] in u) printf("%s %d %d\n", n, l, u[n, l])
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "pagefault write=1 offset=0 64
mmap 262144 1
munmap 262144 1" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: softirq.entry and softirq.exit pair up on each CPU; vm.* and irq_handler.* list their variables" {
	run_pid tapkit -T 1 -e 'global open, ok, bad
probe softirq.entry { open[cpu()] = vec_nr + 1 }
probe softirq.exit {
	if (cpu() in open) {
		if (open[cpu()] == vec_nr + 1) ok++; else bad++
		delete open[cpu()]
	}
}
probe end { printf("%d %d\n", ok > 0, bad) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "1 0" ] || { show_run; false; }
	run --separate-stderr tapkit -L 'irq_handler.*'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(cut -d' ' -f1-3 <<<"$output")" = "irq_handler.entry irq:long dev_name:string
irq_handler.exit irq:long ret:long" ] || { show_run; false; }
	run --separate-stderr tapkit -L 'vm.kmalloc'
	[ "$(cut -d' ' -f1-7 <<<"$output")" = "vm.kmalloc name:string call_site:long ptr:long bytes_req:long bytes_alloc:long gfp_flags:long" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: returnstr() of a syscall's return and of a function's" {
	local sp=$TAPKIT_TOP/build/tests/helpers/stackprog
	run_pid tapkit -c "$SYSLOOP fail 3" -e 'global c
probe syscall.openat.return { if (pid() == target() && retval < 0) c[returnstr(1), returnstr(2)]++ }
probe end { foreach ([a, b] in c) printf("%s|%s %d\n", a, b, c[a, b]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "-2 (ENOENT)|-2 (ENOENT) 3" ] || { show_run; false; }
	# in a uprobe's return, returnval(): c() returns getppid(), tapkit's PID
	run_pid tapkit -c "$sp main 0" -e '
probe process(@1).function("c").return { println(returnstr(1)) }' "$sp"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "$RUN_PID" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: target_set_pid() and target_set_report() follow the target's children and theirs" {
	require_tracefs_file events/task/task_newtask
	local f=$BATS_TEST_TMPDIR/pids sh=$BATS_TEST_TMPDIR/tree.sh want
	# the target starts a shell, a shell that starts a third, and a
	# program of three threads; the PID and parent of each go in a file
	cat >"$sh" <<'SH'
echo $$ $PPID >"$1"
sh -c 'echo $$ $PPID >>"$0"' "$1"
sh -c 'echo $$ $PPID >>"$0"; sh -c "echo \$\$ \$PPID >>\"\$0\"" "$0"; exit 0' "$1"
"$2" 3 0 &
echo $! $$ >>"$1"
wait
SH
	run_pid tapkit -c "sh $sh $f $TAPKIT_TOP/build/tests/helpers/threads" \
		-e 'probe end { target_set_report(); printf("%d %d\n", target_set_pid(target()), target_set_pid($1)) }' $$
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(wc -l <"$f")" -eq 5 ] || { cat "$f"; false; }
	# tapkit begat the target, each member its children, by PID; the
	# threads are no processes; the test's own shell is not in the set
	want=$(awk -v me="$RUN_PID" 'NR == 1 { $2 = me } { print $2, $1 }' "$f" | sort -k2n |
	       awk '{ print $1 " begat " $2 }')
	[ "$output" = "target set:
$want
1 0" ] || { echo "# want: $want"; show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: syscall.* variables by the arguments' names, typed as in C; unused ones cost nothing" {
	run_pid tapkit -c "$SYSLOOP fail 3" -e 'global c
probe syscall.openat { if (pid() == target()) c[dfd, flags]++ }
probe end { foreach ([d, f] in c) printf("%d %d %d\n", d, f, c[d, f]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# AT_FDCWD as the int it is (-100), O_RDONLY (the program passes no
	# mode: that register holds what it held); the dynamic loader's
	# openat() calls (O_CLOEXEC) come before
	[ "$(sed -n 's/^-100 0 //p' <<<"$output")" = 3 ] || { show_run; false; }
	# and kill(2)'s pid and sig
	run_pid tapkit -c "sh -c 'kill -0 \$\$'" -e '
probe syscall.kill { if (pid() == target()) printf("%d %d\n", pid == target(), sig) }'
	[ "$status" -eq 0 ] && [ "$output" = "1 0" ] || { show_run; false; }
	# the path variables read user memory, which only the handlers that
	# read them need: -p2 keeps no unread variable of the alias
	run --separate-stderr tapkit -p2 -e 'probe syscall.openat { print(dfd) }'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$(sed -n '/^kernel.trace("syscalls:sys_enter_openat")/,$p' <<<"$output" | grep '^  [a-z]')" = "  dfd:long" ] ||
		{ echo "$output"; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: syscall.openat's filename is the path read at the event, quoted; NULL for a null pointer" {
	require_eprobes
	run_pid tapkit -c "$SYSLOOP fail 2" -e '
probe syscall.openat { if (pid() == target() && dfd == -100 && flags == 0) println(filename) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = '"/nonexistent/tapkit"
"/nonexistent/tapkit"' ] || { show_run; false; }
	# openat(AT_FDCWD, NULL, 0): EFAULT, and filename "NULL"
	run_pid tapkit -c "python3 -c 'import ctypes; ctypes.CDLL(None).syscall(257, -100, None, 0)'" -e '
probe syscall.openat { if (pid() == target() && filename == "NULL") println(filename) }
probe syscall.openat.return { if (pid() == target() && retval == -14) println(retstr) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = 'NULL
-14 (EFAULT)' ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: syscall.*'s argstr as stap prints it: flags by name, modes in octal, the path where event probes read it" {
	local p=$BATS_TEST_TMPDIR/tk_argstr path
	# dash opens a '>' target O_WRONLY|O_CREAT|O_TRUNC, 0666 and a '<'
	# one O_RDONLY; the loader's own opens add O_CLOEXEC
	run_pid tapkit -c "dash -c ': >$p; exec 3<$p'" -e '
probe syscall.openat { if (pid() == target() && !(flags & 0x80000)) printf("%s(%s)\n", name, argstr) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	if has_eprobes; then
		path="\"$p\""
	else
		path='0x[0-9a-f]+'
	fi
	[[ "$output" =~ ^openat\(AT_FDCWD,\ $path,\ O_WRONLY\|O_CREAT\|O_TRUNC,\ 0666\)$'\n'openat\(AT_FDCWD,\ $path,\ O_RDONLY\)$ ]] ||
		{ show_run; false; }
	# read(fd, buf, count), and a syscall without arguments: ""
	run_pid tapkit -c "$SYSLOOP getppid 2" -e '
probe syscall.getppid { if (pid() == target()) printf("[%s]\n", argstr) }'
	[ "$status" -eq 0 ] && [ "$output" = "[]
[]" ] || { show_run; false; }
	run_pid tapkit -c "dd if=/dev/zero of=/dev/null bs=4096 count=1 status=none" -e '
probe syscall.read { if (pid() == target() && fd == 0 && count == 4096) printf("%s %d\n", argstr, buf_uaddr == buf) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[[ "$output" =~ ^0,\ 0x[0-9a-f]+,\ 4096\ 1$ ]] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit: signal.checkperm and signal.send.return of a kill(2); signal.wakeup's variables (kprobes)" {
	require_kprobes
	sleep 60 &
	TARGET=$!
	# the kill process's signals: SIGUSR1 to the sleeper, then at its exit
	# SIGCHLD to its parent, tapkit
	run_pid tapkit -c "kill -USR1 $TARGET" -e '
probe signal.checkperm { if (pid() == target()) printf("checkperm %d %s %d %s %d\n", sig, sig_name, sig_pid, pid_name, si_code) }
probe signal.checkperm.return { if (pid() == target()) printf("checkperm %s\n", retstr) }
probe signal.send.return { if (pid() == target()) printf("send %s %s %d\n", signal_str(@entry($sig)), retstr, shared) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# kill(2) fills a siginfo of its own: SI_USER (0)
	[ "$output" = "checkperm 10 SIGUSR1 $TARGET sleep 0
checkperm 0
send SIGUSR1 0 1
send SIGCHLD 0 1" ] || { show_run; false; }
	# signal_wake_up_state() is inlined into complete_signal() by some
	# kernels (Debian's 6.1): its kprobe then fires only for the callers
	# elsewhere (ptrace, job control); its variables
	run --separate-stderr tapkit -L signal.wakeup
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[[ $output == "signal.wakeup sig_pid:long pid_name:string resume:long state_mask:string name:string \$t:struct task_struct* "* ]] ||
		{ echo "$output"; false; }
	wait "$TARGET" || true
	TARGET=
	assert_clean "$RUN_PID"
}

@test "tapkit: vm.pagefault.return ends each fault of the touched pages; kprocess.start runs in each new process (kprobes)" {
	require_kprobes
	# sysloop touch maps 64 pages at 0x200000000000 and writes a byte to
	# each: 64 faults, each handled without error (fault_type 0)
	run_pid tapkit -c "$SYSLOOP touch 64" -e 'global c
probe vm.pagefault.return {
	a = @entry($address)
	if (pid() == target() && a >= 0x200000000000 && a < 0x200000000000 + 64 * 4096)
		c[name, fault_type]++
}
probe end { foreach ([n, t] in c) printf("%s %d %d\n", n, t, c[n, t]) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "pagefault 0 64" ] || { show_run; false; }
	# two children of the target: created in it, started in themselves
	run_pid tapkit -c "sh -c '/bin/true; /bin/true; exit 0'" -e 'global made, ran
probe kprocess.create { if (pid() == target()) made[new_pid] = 1 }
probe kprocess.start { ran[pid()] = name }
probe end {
	foreach (p in made) { n++; if (p in ran) printf("%s\n", ran[p]) }
	printf("%d\n", n)
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = $'start\nstart\n2' ] || { show_run; false; }
	assert_clean "$RUN_PID"
}
