#!/usr/bin/env bats
# tapkit scripts on kernel functions (kprobes, typed by BTF), against
# workloads the tests make themselves: tests/helpers/kopen opens a path of
# the test a known number of times (each open returns 3, or -ENOENT for a
# missing path); a child the test forks is the task wake_up_new_task()
# gets.  On a kernel without kprobes the scripts must fail with one
# located error naming the missing feature and leave nothing behind.

load helpers

KOPEN=$TAPKIT_TOP/build/tests/helpers/kopen

setup() {
	require_root
	[ -x "$KOPEN" ] || { echo "# $KOPEN missing: run make tests-build" >&2; return 1; }
	P=$BATS_TEST_TMPDIR/tk_kfile
	MISSING=$BATS_TEST_TMPDIR/tk_kmissing
	: >"$P"
}

teardown() {
	stop_leftover_tool
}

# fork_one: this shell forks a child (the task wake_up_new_task() gets,
# its PID in $child), then the running tool stops and must have exited 0
fork_one() {
	(exec sleep 0.1) &
	child=$!
	wait "$child"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
}

require_btf() {
	[ -r /sys/kernel/btf/vmlinux ] || skip "requires: /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)"
}

@test "tapkit kernel: without kprobes, one located error naming the feature, exit 1, nothing left" {
	[ ! -e "$TRACEFS/kprobe_events" ] || skip "the kernel has kprobe_events: this is the error without them"
	run_pid tapkit -e 'probe kernel.function("do_sys_openat2") { print($dfd) }'
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "<input>:1:7: error: kernel.function needs kprobes, which this kernel does not have (no kprobe_events in tracefs)" ] ||
		{ echo "$stderr" >&2; false; }
	[ -z "$output" ]
	assert_clean "$RUN_PID"
	run_pid tapkit -e 'probe kprobe.function("vfs_read").return { print(1) }'
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "<input>:1:7: error: kprobe.function needs kprobes, which this kernel does not have (no kprobe_events in tracefs)" ]
	assert_clean "$RUN_PID"
	# an optional point is left out, as stap does
	run_pid tapkit -e 'probe kernel.function("vfs_read")? { print(1) } probe begin { print("ok\n"); exit() }'
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
	assert_clean "$RUN_PID"
}

@test "tapkit kernel: a pattern that matches nothing is a located error, kprobes or not" {
	run_pid tapkit -e 'probe begin { exit() }
probe kernel.function("tapkit_no_such_fn_*").return { print(1) }'
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = '<input>:2:7: error: no kernel function matches "tapkit_no_such_fn_*"' ] ||
		{ echo "$stderr" >&2; false; }
	assert_clean "$RUN_PID"
	run_pid tapkit -e 'probe kernel.function("vfs_read").inline { print(1) }'
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = '<input>:1:7: error: kernel.function("vfs_read").inline needs a source file: "vfs_read@FILE" (the file the instances are in), or "vfs_read@*" to read all of the kernel'"'"'s DWARF' ]
}

@test "tapkit kernel: -L lists BTF parameters (and \$return) with their C types" {
	require_btf
	run_pid tapkit -L 'kernel.function("do_sys_openat2")'
	[ "$status" -eq 0 ]
	[[ "$output" == 'kernel.function("do_sys_openat2") $dfd:'* ]] || { echo "$output" >&2; false; }
	[[ "$output" == *' $filename:'*' $how:'* ]]
	run_pid tapkit -L 'kernel.function("do_sys_openat2").return'
	[ "$status" -eq 0 ]
	[[ "$output" == *' $return:'* ]]
}

@test "tapkit kernel: a missing parameter and a missing member are located errors" {
	require_kprobes
	run_pid tapkit -e 'probe kernel.function("do_sys_openat2") { print($nosuch) }'
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "<input>:1:49: error: no target variable '\$nosuch' in probe 'kernel.function(\"do_sys_openat2\")'" ] ||
		{ echo "$stderr" >&2; false; }
	assert_clean "$RUN_PID"
	run_pid tapkit -e 'probe kernel.function("wake_up_new_task") { print($p->tapkit_nosuch) }'
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == "<input>:1:51: error: "*"no member 'tapkit_nosuch' in 'struct task_struct'"* ]] ||
		{ echo "$stderr" >&2; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit kernel: entry with BTF-named parameters and \$filename read as a string" {
	require_kprobes
	start_tool tapkit -e 'probe kernel.function("do_sys_openat2") {
	if (user_string($filename) == @1)
		printf("entry %s dfd=%d %s\n", probefunc(), $dfd, user_string($filename))
}' "$P"
	"$KOPEN" "$P" 3
	"$KOPEN" "$MISSING" 2
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(grep -cx "entry do_sys_openat2 dfd=-100 $P" "$OUT")" -eq 3 ] || { show_output; false; }
	assert_clean
}

@test "tapkit kernel: a .return reads the parameters' values at entry and \$return, per call" {
	require_kprobes
	start_held "$KOPEN" wait-stdin "$P" 3
	start_tool tapkit -x "$WL_PID" -e 'probe kernel.function("do_sys_openat2").return {
	if (pid() == target())
		printf("dfd=%d ret=%d %s %d\n", $dfd, $return, user_string($filename), is_return())
}'
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(grep -cx "dfd=-100 ret=3 $P 1" "$OUT")" -eq 3 ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -ge 3 ]
	assert_clean
}

@test "tapkit kernel: a -> chain through struct file to the name being read" {
	require_kprobes
	start_held sh -c 'read x; exec cat "$0" >/dev/null' "$P"
	start_tool tapkit -x "$WL_PID" -e 'probe kernel.function("vfs_read") {
	if (pid() == target())
		printf("%s\n", kernel_string($file->f_path->dentry->d_name->name))
}'
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -qx "tk_kfile" "$OUT" || { show_output; false; }
	assert_clean
}

@test "tapkit kernel: \$p->pid and @cast(\$p, \"task_struct\")->tgid of a forked child" {
	require_kprobes
	start_tool tapkit -e 'probe kernel.function("wake_up_new_task") {
	if (pid() == strtol(@1, 10))
		printf("child %d %d %s %s\n", $p->pid, @cast($p, "task_struct")->tgid,
		       kernel_string($p->comm), $p->comm$)
}' "$BASHPID"
	fork_one
	grep -qE "^child $child $child (\S+) \"\1\"\$" "$OUT" || { show_output; false; }
	assert_clean
}

@test "tapkit kernel: offsetof, sizeof and @type_member_defined of kernel types, without kprobes" {
	require_btf
	# struct list_head { next; prev; } is the same on every 64-bit kernel;
	# a module list is searched in order ("tk_nosuch" is no module)
	run_pid tapkit -e 'probe begin {
	printf("%d %d %d %d\n", &@cast(0, "struct list_head")->prev, @cast_module_sizeof("kernel", "struct list_head"),
	       @container_of(1008, "struct list_head", prev), &@cast(0, "struct list_head", "tk_nosuch:kernel")[3])
	printf("%d %d %d\n", @type_member_defined("struct task_struct", pid), @type_member_defined("struct task_struct", tasks),
	       @type_member_defined("struct task_struct", tk_nosuch))
	exit()
}'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$output" = "8 16 1000 48
1 1 0" ] || { show_run; false; }
	run_pid tapkit -e 'probe begin { println(&@cast(0, "struct tk_nosuch")->x) }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$(head -1 <<<"$stderr")" = "<input>:1:23: error: @cast(0, \"struct tk_nosuch\"): no type 'struct tk_nosuch' in the BTF of the kernel" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit kernel: @container_of, @cast of an offset pointer, and the layout macros over BTF" {
	require_kprobes
	require_btf
	# $p->tasks is a list_head inside the task: its container is $p
	start_tool tapkit -e 'probe kernel.function("wake_up_new_task") {
	if (pid() == strtol(@1, 10)) {
		c = @container_of(&$p->tasks, "struct task_struct", tasks)
		printf("child %d %d %d %d\n", c == $p,
		       @cast(@container_of(&$p->tasks, "struct task_struct", tasks), "task_struct")->pid,
		       @cast(&$p->tasks - &@cast(0, "task_struct")->tasks, "task_struct")->tgid,
		       @type_member_defined("struct task_struct", tasks) + @type_member_defined("struct task_struct", tk_nosuch))
	}
}' "$BASHPID"
	fork_one
	grep -qx "child 1 $child $child 1" "$OUT" || { show_output; false; }
	assert_clean
}

@test "tapkit kernel: task_*() of a task_struct pointer read it when the probe fires" {
	require_kprobes
	require_btf
	# wake_up_new_task($p): the child the test forks, a copy of this shell
	start_tool tapkit -e 'probe kernel.function("wake_up_new_task") {
	if (pid() == strtol(@1, 10))
		printf("child %d %d %s %d %s %d %d %d %d %#x\n", task_pid($p), task_tid($p), task_execname($p),
		       task_pid(task_parent($p)), task_execname(task_parent($p)), task_uid($p), task_egid($p),
		       task_nice(pointer_arg(1)), task_prio($p), task_state($p))
	if (pid() == strtol(@1, 10))
		printf("cpu %d %d\n", task_cpu($p) == cpu(), task_start_time($p) > 0)
}' "$BASHPID"
	fork_one
	local comm
	comm=$(cat /proc/$BASHPID/comm)
	# a new task is TASK_NEW (0x800) until wake_up_new_task() runs it,
	# on the CPU sched_fork() gave it, the one forking it
	grep -qx "child $child $child $comm $BASHPID $comm 0 0 0 20 0x800" "$OUT" || { show_output; false; }
	grep -qx "cpu 1 1" "$OUT" || { show_output; false; }
	assert_clean
}

@test "tapkit kernel: print_backtrace() in a kernel function starts at that function" {
	require_kprobes
	# the first text symbol (per-cpu symbols are at 0 on their own)
	[ "$(awk '$2 == "T" { print $1; exit }' /proc/kallsyms)" != 0000000000000000 ] ||
		skip "requires: kernel addresses in /proc/kallsyms (kptr_restrict)"
	run_pid tapkit -c "$KOPEN $P 2" -e 'probe kernel.function("do_sys_openat2") {
	if (pid() == target() && user_string($filename) == @1) { print_backtrace(); exit() } }' "$P"
	[ "$status" -eq 0 ] || { echo "$output" "$stderr" >&2; false; }
	[[ "${lines[0]}" =~ ^\ 0xffffffff[0-9a-f]+\ :\ do_sys_openat2\+0x[0-9a-f]+/0x[0-9a-f]+\ \[kernel\]$ ]] ||
		{ echo "$output" >&2; false; }
	[[ "$output" =~ " : do_syscall_64+0x" ]] || { echo "$output" >&2; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit kernel: kernel.statement(\"func+0\") and kprobe.function read raw arguments" {
	require_kprobes
	run_pid tapkit -c "$KOPEN $P 2" -e 'probe kernel.statement("do_sys_openat2+0") {
	if (pid() == target() && user_string(pointer_arg(2)) == @1)
		printf("stmt %d %s\n", int_arg(1), probefunc())
}
probe kprobe.function("do_sys_openat2").return {
	if (pid() == target())
		printf("kret %d\n", returnval())
}' "$P"
	[ "$status" -eq 0 ] || { echo "$output" "$stderr" >&2; false; }
	[ "$(grep -cx 'stmt -100 do_sys_openat2' <<<"$output")" -eq 2 ] || { echo "$output" >&2; false; }
	[ "$(grep -cx 'kret 3' <<<"$output")" -ge 2 ] || { echo "$output" >&2; false; }
	assert_clean "$RUN_PID"
	run_pid tapkit -e 'probe kprobe.function("do_sys_openat2") { print($dfd) }'
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == "<input>:1:49: error: no target variable '\$dfd' in probe 'kprobe.function(\"do_sys_openat2\")'" ]] ||
		{ echo "$stderr" >&2; false; }
}

@test "tapkit kernel: module(\"m\").function lists the module's functions typed by its BTF" {
	require_kprobes
	local m=9pnet
	[ -r "/sys/kernel/btf/$m" ] || skip "requires: module $m loaded, with BTF"
	run_pid tapkit -L "module(\"$m\").function(\"p9_client_create\")"
	[ "$status" -eq 0 ] || { echo "$output" "$stderr" >&2; false; }
	[[ "$output" == "module(\"$m\").function(\"p9_client_create\") \$dev_name:const char* \$options:char*" ]] ||
		{ echo "$output" >&2; false; }
}

@test "tapkit kernel: @entry() in a .return keeps a value computed at entry, per call" {
	require_kprobes
	run_pid tapkit -c "$KOPEN $P 3" -e 'probe kernel.function("do_sys_openat2").return {
	if (pid() == target() && @entry(user_string($filename)) == @1)
		printf("%d %d %d\n", @entry($dfd + 1), $return, @entry(tid()) == tid())
}' "$P"
	[ "$status" -eq 0 ] || { echo "$output" "$stderr" >&2; false; }
	[ "$(grep -cx -- '-99 3 1' <<<"$output")" -eq 3 ] || { echo "$output" >&2; false; }
	[ "${#lines[@]}" -eq 3 ]
	assert_clean "$RUN_PID"
}
