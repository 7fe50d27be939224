#!/usr/bin/env bats
# execsnoop against execs the tests make, with known PIDs and arguments.

load helpers

setup() {
	require_root
	PROBE=$BATS_TEST_TMPDIR/tk-exec-probe
	ln -sf /bin/true "$PROBE"
}

# The row of the exec of PID $1 (text output).
row_of() {
	awk -v pid="$1" '$2 == pid' "$OUT"
}

# The row of the exec of PID $1 with -U (its UID first).
row_of_uid() {
	awk -v pid="$1" '$3 == pid' "$OUT"
}

# ppid_in FILE: the PPID of the one row of FILE
ppid_in() {
	awk 'NR == 2 { print $3 }' "$1"
}

teardown() {
	stop_leftover_tool
}

@test "execsnoop: shows an exec with PCOMM, PID, PPID, RET and full argv" {
	start_tool execsnoop
	"$PROBE" one "two words" three &
	pid=$!
	wait "$pid"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	head -1 "$OUT" | grep -Eq '^PCOMM +PID +PPID +RET ARGS$'
	row=$(row_of "$pid")
	[ -n "$row" ] || { show_output; false; }
	# comm is the basename of the file run (truncated to 15 by the kernel)
	[[ "$row" =~ ^tk-exec-probe\ +$pid\ +$BASHPID\ +0\ $PROBE\ one\ two\ words\ three$ ]] ||
		{ echo "# row: $row"; false; }
	assert_clean
}

@test "execsnoop: -v names the argv mechanism the kernel allows" {
	# under the VM's distribution kernel kprobes must be there and be used
	if [ -n "${TAPKIT_VM:-}" ] && [ ! -e "$TRACEFS/kprobe_events" ]; then
		echo "# TAPKIT_VM is set but this kernel has no kprobe_events"
		false
	fi
	start_tool execsnoop -v
	stop_tool
	if [ -e "$TRACEFS/kprobe_events" ]; then
		grep -q 'arguments from kprobe on __x64_sys_execve' "$ERR" || { show_output; false; }
	elif [ -e "$TRACEFS/uprobe_events" ]; then
		grep -q 'arguments from uprobe on the C library' "$ERR" || { show_output; false; }
	else
		grep -q 'arguments from /proc/PID/cmdline' "$ERR" || { show_output; false; }
	fi
}

@test "execsnoop: a failed exec is shown only with -x, with its errno" {
	start_tool execsnoop -x
	env /nonexistent/tk-missing arg 2>/dev/null &
	pid=$!
	wait "$pid" || true
	settle
	stop_tool
	row=$(awk -v pid="$pid" '$2 == pid && $4 == -2' "$OUT")
	[[ "$row" =~ ^env\ +$pid\ +$BASHPID\ +-2\ /nonexistent/tk-missing\ arg$ ]] ||
		{ show_output; false; }
	# without -x: not shown
	start_tool execsnoop
	env /nonexistent/tk-missing arg 2>/dev/null &
	pid=$!
	wait "$pid" || true
	settle
	stop_tool
	[ -z "$(awk -v pid="$pid" '$2 == pid && $4 == -2' "$OUT")" ] || { show_output; false; }
}

@test "execsnoop: -n and -l filter by name and by argument regex" {
	start_tool execsnoop -n '^tk-exec-pro' -l 'keep'
	"$PROBE" keep-me
	"$PROBE" drop-me
	/bin/true keep-too
	settle
	stop_tool
	grep -q 'tk-exec-probe keep-me$' "$OUT" || { show_output; false; }
	! grep -q 'drop-me' "$OUT"
	! grep -q 'keep-too' "$OUT"
}

@test "execsnoop: -P shows only children of that parent" {
	start_tool execsnoop -P "$BASHPID"
	"$PROBE" mine &
	wait $!
	# a second command keeps bash from exec'ing the probe itself
	bash -c "\"$PROBE\" grandchild; true"
	settle
	stop_tool
	grep -q "$PROBE mine\$" "$OUT" || { show_output; false; }
	# the grandchild's parent is the intermediate bash, not us
	! grep -q '^tk-exec-probe .* grandchild$' "$OUT" || { show_output; false; }
}

@test "execsnoop: -T adds an HH:MM:SS column" {
	start_tool execsnoop -T
	"$PROBE" timed
	settle
	stop_tool
	head -1 "$OUT" | grep -Eq '^TIME +PCOMM'
	grep -Eq '^[0-2][0-9]:[0-5][0-9]:[0-6][0-9] +tk-exec-probe .* timed$' "$OUT" || { show_output; false; }
}

@test "execsnoop: -p is still the parent filter, as -P" {
	start_tool execsnoop -p "$BASHPID"
	"$PROBE" mine-p &
	wait $!
	bash -c "\"$PROBE\" grandchild-p; true"
	settle
	stop_tool
	grep -q "$PROBE mine-p\$" "$OUT" || { show_output; false; }
	! grep -q 'grandchild-p$' "$OUT" || { show_output; false; }
}

@test "execsnoop: -t adds seconds since tracing began, after -T's time and before -U's UID" {
	local t0 t1 secs
	t0=$(date +%s.%N)
	start_tool execsnoop -t
	sleep 1.2
	"$PROBE" late
	t1=$(date +%s.%N)
	settle
	stop_tool
	head -1 "$OUT" | grep -Eq '^TIME\(s\) +PCOMM' || { show_output; false; }
	secs=$(awk '/ late$/ { print $1 }' "$OUT")
	[[ "$secs" =~ ^[0-9]+\.[0-9]{3}$ ]] || { show_output; false; }
	# at least the 1.2 s slept, at most the time since the tool was started
	awk -v s="$secs" -v max="$(echo "$t1 - $t0" | bc)" 'BEGIN { exit !(s >= 1.2 && s <= max) }' ||
		{ show_output; false; }
	start_tool execsnoop -T -t -U
	"$PROBE" cols
	settle
	stop_tool
	head -1 "$OUT" | grep -Eq '^TIME +TIME\(s\) +UID +PCOMM +PID +PPID +RET ARGS$' || { show_output; false; }
	grep -Eq "^[0-2][0-9]:[0-5][0-9]:[0-6][0-9] [0-9]+\.[0-9]{3} +0 +tk-exec-probe +[0-9]+ +$BASHPID +0 $PROBE cols\$" "$OUT" ||
		{ show_output; false; }
}

# uid_workload EXECSNOOP ARGS...: execsnoop while a process of UID 65534
# execs `sleep 0.71` (setpriv ran before tracing) and one of root's execs
# `sleep 0.72`; $NOBODY is the former's PID, $ROOTS the latter's.
uid_workload() {
	command -v setpriv >/dev/null || skip "requires: setpriv (util-linux)"
	start_held setpriv --reuid 65534 --regid 65534 --clear-groups sh -c 'read x; exec sleep 0.71'
	NOBODY=$WL_PID
	start_tool execsnoop "$@"
	release_workload
	sleep 0.72 &
	ROOTS=$!
	wait "$ROOTS" "$NOBODY"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
}

@test "execsnoop: -U shows each exec's UID; -u keeps one user's, by number or name" {
	uid_workload -U
	[[ "$(row_of_uid "$NOBODY")" =~ ^65534\ +sleep\ +$NOBODY\ +[0-9]+\ +0\ sleep\ 0\.71$ ]] || { show_output; false; }
	[[ "$(row_of_uid "$ROOTS")" =~ ^0\ +sleep\ +$ROOTS\ +$BASHPID\ +0\ sleep\ 0\.72$ ]] || { show_output; false; }
	for u in 65534 nobody; do
		uid_workload -u "$u"
		[ "$(tail -n +2 "$OUT")" = "$(printf '%-16s %-7d %-7d %3d %s' sleep "$NOBODY" "$(ppid_in "$OUT")" 0 'sleep 0.71')" ] ||
			{ show_output; false; }
	done
	uid_workload -j -u 0
	jq -e -s --argjson r "$ROOTS" 'map(select(.pid == $r)) | length == 1 and .[0].uid == 0 and .[0].args == ["sleep", "0.72"]' "$OUT" >/dev/null ||
		{ show_output; false; }
	! jq -e -s --argjson n "$NOBODY" 'any(.pid == $n)' "$OUT" >/dev/null || { show_output; false; }
	assert_clean
}

@test "execsnoop: -U gives each exec the UID it ran with, across setuid and for processes gone at once" {
	command -v setpriv >/dev/null || skip "requires: setpriv (util-linux)"
	run --separate-stderr execsnoop -U -c "setpriv --reuid 65534 --regid 65534 --clear-groups sh -c '/bin/true; exec /bin/true x'"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(awk 'NR > 1 { print $1, $2, $NF }' <<<"$output")" = $'0 setpriv x\n65534 sh x\n65534 true /bin/true\n65534 true x' ] ||
		{ show_run; false; }
}

@test "execsnoop: -q quotes each argument, its own quotemarks escaped" {
	start_tool execsnoop -q
	"$PROBE" 'a"b' '' 'c d'
	settle
	stop_tool
	local pid me=$BASHPID
	pid=$(awk '$1 == "tk-exec-probe" { print $2 }' "$OUT")
	grep -qxF "$(printf '%-16s %-7d %-7d %3d %s' tk-exec-probe "$pid" "$me" 0 \
		"\"$PROBE\" \"a\\\"b\" \"\" \"c d\"")" "$OUT" ||
		{ show_output; false; }
}

@test "execsnoop: --max-args truncates with ..." {
	start_tool execsnoop --max-args 3
	"$PROBE" a b c d e
	settle
	stop_tool
	grep -q "tk-exec-probe .* $PROBE a b \.\.\.\$" "$OUT" || { show_output; false; }
}

@test "execsnoop: -j prints one object per exec with argv as an array" {
	start_tool execsnoop -j -x
	"$PROBE" "x y" z &
	pid=$!
	wait "$pid"
	settle
	stop_tool
	python3 - "$OUT" "$pid" "$PROBE" "$BASHPID" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
r = [o for o in rows if o["pid"] == int(sys.argv[2])]
assert len(r) == 1, rows
r = r[0]
assert r["pcomm"] == "tk-exec-probe" and r["ret"] == 0, r
assert r["args"] == [sys.argv[3], "x y", "z"], r
assert r["ppid"] == int(sys.argv[4]) and r["truncated"] is False, r
assert isinstance(r["ts_ns"], int) and len(r["time"]) == 8
PY
}

@test "execsnoop: a process that exits at once is shown with its file" {
	start_tool execsnoop
	for i in 1 2 3 4 5; do "$PROBE" "run$i"; done
	settle
	stop_tool
	[ "$(grep -c 'tk-exec-probe' "$OUT")" -eq 5 ] || { show_output; false; }
}

@test "execsnoop: a static binary's exec is still seen" {
	command -v cc >/dev/null || skip "requires: cc"
	printf 'int main(void){return 0;}\n' >"$BATS_TEST_TMPDIR/s.c"
	cc -static -o "$BATS_TEST_TMPDIR/tk-static" "$BATS_TEST_TMPDIR/s.c" 2>/dev/null ||
		skip "requires: static libc (libc6-dev)"
	start_tool execsnoop
	"$BATS_TEST_TMPDIR/tk-static" arg
	settle
	stop_tool
	grep -q "^tk-static .* $BATS_TEST_TMPDIR/tk-static" "$OUT" || { show_output; false; }
}

@test "execsnoop: output to a closed pipe ends it cleanly" {
	start_piped 2 execsnoop
	for i in 1 2 3 4 5 6; do "$PROBE" "p$i"; sleep 0.2; done
	wait "$HEAD_PID"
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 2 ]
	[ ! -s "$ERR" ] || { show_output; false; }
	assert_clean
}

@test "execsnoop: SIGKILL with its watchdog killed too leaves its probes; the next session removes them" {
	require_tracefs_file uprobe_events
	start_tool execsnoop
	local w
	w=$(watchdog_of "$TOOL_PID")
	[ -n "$w" ] || { echo "# no watchdog"; false; }
	kill -KILL "$w"
	kill -KILL "$TOOL_PID"
	wait "$TOOL_PID" || true
	grep -qs "tapkit_${TOOL_PID}_" "$TRACEFS/dynamic_events" "$TRACEFS/uprobe_events" "$TRACEFS/kprobe_events" ||
		ls "$TRACEFS/instances" | grep -q "^tapkit_${TOOL_PID}_" ||
		{ echo "# nothing was left to clean"; false; }
	dead=$TOOL_PID
	start_tool killsnoop
	stop_tool
	assert_clean "$dead"
	assert_clean
}

EXECER=$TAPKIT_TOP/build/tests/helpers/execer
EXECER_STATIC=$TAPKIT_TOP/build/tests/helpers/execer-static

@test "execsnoop: an fexecve of /bin/true shows PCOMM true and its argv" {
	me=$BASHPID
	start_tool execsnoop
	"$EXECER" fexecve /bin/true true x "y z" &
	pid=$!
	wait "$pid"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	# the exec of execer itself (by bash), then its fexecve
	[ "$(row_of "$pid" | wc -l)" -eq 2 ] || { show_output; false; }
	[ "$(row_of "$pid" | tail -1)" = "$(printf '%-16s %-7d %-7d %3d %s' true "$pid" "$me" 0 'true x y z')" ] ||
		{ show_output; false; }
	assert_clean
}

@test "execsnoop: a static program's execve, past any C library wrapper, keeps its argv" {
	start_tool execsnoop -j
	"$EXECER_STATIC" execve /bin/true true a "b c" &
	pid=$!
	wait "$pid"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	kprobes=0
	[ -e "$TRACEFS/kprobe_events" ] && kprobes=1
	python3 - "$OUT" "$pid" "$BASHPID" "$kprobes" <<'PY'
import json, sys
out, pid, ppid, kprobes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
rows = [json.loads(l) for l in open(out)]
r = [o for o in rows if o["pid"] == pid]
assert len(r) == 2, rows
assert r[0]["pcomm"] == "execer-static" and r[0]["args"][1:] == ["execve", "/bin/true", "true", "a", "b c"], r
r = r[1]
assert r["pcomm"] == "true" and r["args"] == ["true", "a", "b c"] and r["ppid"] == ppid, r
assert r["source"] == ("kprobe" if kprobes else "loader"), r
PY
	assert_clean
}

@test "execsnoop: argv read from /proc after the exec is marked with ?" {
	# static to static, past the wrappers: no loader runs, nothing reads
	# the argv at the exec where there are no kprobes
	local fifo=$BATS_TEST_TMPDIR/hold
	mkfifo "$fifo"
	me=$BASHPID
	start_tool execsnoop
	"$EXECER_STATIC" execve "$EXECER_STATIC" execer-static hold z <"$fifo" &
	pid=$!
	exec {hold}>"$fifo"
	settle 0.5
	exec {hold}>&-
	wait "$pid"
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(row_of "$pid" | wc -l)" -eq 2 ] || { show_output; false; }
	if [ -e "$TRACEFS/kprobe_events" ]; then
		want='execer-static hold z'
	else
		want='?execer-static hold z'
	fi
	[ "$(row_of "$pid" | tail -1)" = "$(printf '%-16s %-7d %-7d %3d %s' execer-static "$pid" "$me" 0 "$want")" ] ||
		{ show_output; false; }
	assert_clean
}

@test "execsnoop: an argument with an escape or a newline is escaped; -j keeps its bytes" {
	me=$BASHPID
	start_tool execsnoop
	"$PROBE" $'\e[31mred' $'a\nb' 'back\slash' &
	pid=$!
	wait "$pid"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(row_of "$pid")" = "$(printf '%-16s %-7d %-7d %3d %s' tk-exec-probe "$pid" "$me" 0 "$PROBE \\e[31mred a\\nb back\\\\slash")" ] ||
		{ show_output; false; }
	! grep -q $'\e' "$OUT" || { show_output; false; }
	start_tool execsnoop -j
	"$PROBE" $'\e[31mred' $'a\nb' &
	pid=$!
	wait "$pid"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	python3 - "$OUT" "$pid" "$PROBE" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l).get("pid") == int(sys.argv[2])]
assert len(rows) == 1 and rows[0]["args"] == [sys.argv[3], "\x1b[31mred", "a\nb"], rows
PY
	assert_clean
}

@test "execsnoop: -c shows exactly its command's execs, and exits with its status" {
	local sh_pid
	start_cmd_tool execsnoop -c "/bin/sh -c 'read x; $PROBE one; $PROBE two; exit 7'"
	"$PROBE" other		# traced, but not the command's
	release_cmd
	wait_tool || true	# ends with the command, with its status
	[ "$TOOL_RC" -eq 7 ] || { show_output; false; }
	# the command itself, then its two children, nothing else
	[ "$(awk 'NR > 1' "$OUT" | wc -l)" -eq 3 ] || { show_output; false; }
	sh_pid=$(awk 'NR == 2 && $1 == "sh" && $4 == 0 { print $2 }' "$OUT")
	[ -n "$sh_pid" ] || { show_output; false; }
	grep -Eq "^sh +$sh_pid +$TOOL_PID +0 /bin/sh -c read x; " "$OUT" || { show_output; false; }
	grep -Eq "^tk-exec-probe +[0-9]+ +$sh_pid +0 $PROBE one\$" "$OUT" || { show_output; false; }
	grep -Eq "^tk-exec-probe +[0-9]+ +$sh_pid +0 $PROBE two\$" "$OUT" || { show_output; false; }
	! grep -q other "$OUT" || { show_output; false; }
	assert_clean
}
