#!/usr/bin/env bats
# tapkit --top-batch / --top-json: a script's global arrays as tracetop's
# tables, against a workload the tests make (a process named tktopwl doing
# a known number of getppid() and lseek() calls), with exact counts in the
# right rows; drilled by the first key, another array shown; bad input.

load helpers

SCRIPT='global c, off
probe syscall.getppid, syscall.lseek { c[execname(), name]++ }
probe syscall.lseek { if (execname() == "tktopwl") off[execname()] <<< $offset }'

setup() {
	require_root
	require_tracefs_file events/syscalls/sys_enter_getppid
	require_tracefs_file events/syscalls/sys_enter_lseek
	# a name of our own: no other process makes these rows
	WL=$BATS_TEST_TMPDIR/tktopwl
	cp "$SYSLOOP" "$WL"
	# 1234 getppid(), then lseek() at offsets 1..100 (sum 5050)
	WORK="sh -c '$WL getppid 1234; $WL seq 100 0 0'"
}

teardown() {
	stop_leftover_tool
	[ -z "${TMUX_SOCK:-}" ] || tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
}

# The last value of the text row whose first fields are $1 $2 (the final
# table is printed last).
row() {
	printf '%s\n' "$output" | awk -v a="$1" -v b="$2" '$1 == a && $2 == b { v = $0 } END { print v }'
}

@test "tapkit --top-batch: each element of c[execname(), name] in its row, exactly" {
	run_pid tapkit --top-batch --top-interval 100 -c "$WORK" -e "$SCRIPT"
	[ "$status" -eq 0 ] || { show_run; false; }
	# key titles from the written expressions
	printf '%s\n' "$output" | grep -Eq '^ *EXECNAME +NAME +VALUE *$' || { show_run; false; }
	[ "$(row tktopwl getppid | awk '{ print $3 }')" = 1234 ] || { show_run; false; }
	[ "$(row tktopwl lseek | awk '{ print $3 }')" = 100 ] || { show_run; false; }
	# the script's own output (the display of its globals at the end)
	# goes to stderr: stdout is the tables only
	[[ "$stderr" == *'c["tktopwl","getppid"]='* ]] || { show_run; false; }
	! printf '%s\n' "$output" | grep -q 'c\["' || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit --top-batch --top-view: a statistic's count, sum, min, max, avg" {
	run_pid tapkit --top-batch --top-view off --top-interval 100 -c "$WORK" -e "$SCRIPT"
	[ "$status" -eq 0 ] || { show_run; false; }
	printf '%s\n' "$output" | grep -Eq '^ *EXECNAME +COUNT +SUM +MIN +MAX +AVG *$' || { show_run; false; }
	local r
	r=$(printf '%s\n' "$output" | awk '$1 == "tktopwl" { v = $0 } END { print v }')
	[ "$(echo $r)" = "tktopwl 100 5050 1 100 50" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit --top-json: the same numbers as JSON Lines" {
	run_pid tapkit --top-json --top-interval 100 -c "$WORK" -e "$SCRIPT"
	[ "$status" -eq 0 ] || { show_run; false; }
	# every line is one JSON object
	printf '%s\n' "$output" | jq -e . >/dev/null || { show_run; false; }
	local last
	last=$(printf '%s\n' "$output" | tail -1)
	[ "$(jq -r .view <<<"$last")" = c ] || { show_run; false; }
	[ "$(jq -c '[.rows[] | select(.execname == "tktopwl")] | sort_by(.name)' <<<"$last")" = \
	  '[{"execname":"tktopwl","name":"getppid","value":1234},{"execname":"tktopwl","name":"lseek","value":100}]' ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit --top-json --top-view off: the statistic as numbers" {
	run_pid tapkit --top-json --top-view off --top-interval 100 -c "$WORK" -e "$SCRIPT"
	[ "$status" -eq 0 ] || { show_run; false; }
	local last
	last=$(printf '%s\n' "$output" | tail -1)
	[ "$(jq -c '.rows' <<<"$last")" = \
	  '[{"execname":"tktopwl","count":100,"sum":5050,"min":1,"max":100,"avg":50}]' ] ||
		{ show_run; false; }
}

@test "tapkit --top-json: a statistic with @hist_log has P50 and P99 from its buckets" {
	run_pid tapkit --top-json --top-interval 100 -c "$WORK" -e 'global h
probe syscall.lseek { if (execname() == "tktopwl") h[name] <<< $offset }
probe end { print(@hist_log(h["lseek"])) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	# offsets 1..100: the 50th is in the bucket 32..63, the 99th in 64..127
	# (interpolated, then no more than the largest)
	[ "$(printf '%s\n' "$output" | tail -1 | jq -c .rows)" = \
	  '[{"name":"lseek","count":100,"sum":5050,"min":1,"max":100,"avg":50,"p50":50,"p99":100}]' ] ||
		{ show_run; false; }
	# the end probe's histogram, as without --top
	[[ "$stderr" == *"value |"*"   64 |"* ]] || { show_run; false; }
}

@test "tapkit --top-drill: the first key fixed, the next one the rows" {
	run_pid tapkit --top-json --top-drill tktopwl --top-interval 100 -c "$WORK" -e "$SCRIPT"
	[ "$status" -eq 0 ] || { show_run; false; }
	local last
	last=$(printf '%s\n' "$output" | tail -1)
	[ "$(jq -r .view <<<"$last")" = "c > EXECNAME=tktopwl" ] || { show_run; false; }
	# only tktopwl's syscalls (not sh's getppid), keyed by name alone
	[ "$(jq -c '.rows | sort_by(.name)' <<<"$last")" = \
	  '[{"name":"getppid","value":1234},{"name":"lseek","value":100}]' ] || { show_run; false; }

	run_pid tapkit --top-batch --top-drill tktopwl --top-interval 100 -c "$WORK" -e "$SCRIPT"
	[ "$status" -eq 0 ] || { show_run; false; }
	printf '%s\n' "$output" | grep -Eq '^ *NAME +VALUE *$' || { show_run; false; }
	[ "$(printf '%s\n' "$output" | awk '$1 == "getppid" { v = $2 } END { print v }')" = 1234 ] ||
		{ show_run; false; }
}

@test "tapkit --top-batch --top-sort --top-reverse --top-rows: sorted by a key, the first rows" {
	run_pid tapkit --top-batch --top-drill tktopwl --top-sort name --top-rows 1 \
		--top-interval 100 -c "$WORK" -e "$SCRIPT"
	[ "$status" -eq 0 ] || { show_run; false; }
	# descending by name: lseek before getppid, and only the first row
	# of the last table, which has every call (an earlier one may have
	# been printed before the lseek calls came)
	[ "$(printf '%s\n' "$output" | awk '/^tracetop - / { n = 0; next }
		NF && $1 != "NAME" { row[n++] = $1 " " $2 }
		END { for (i = 0; i < n; i++) print row[i] }')" = "lseek 100" ] ||
		{ show_run; false; }

	# ascending: getppid first
	run_pid tapkit --top-json --top-drill tktopwl --top-sort NAME --top-reverse \
		--top-interval 100 -c "$WORK" -e "$SCRIPT"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | tail -1 | jq -c '[.rows[].name]')" = '["getppid","lseek"]' ] ||
		{ show_run; false; }
}

@test "tapkit --top-json: kernel counts (counting mode) reach the tables while the script runs" {
	start_held "$WL" wait-stdin getppid 4321
	local script="global c
probe kernel.trace(\"syscalls:sys_enter_getppid\") { if (tid() == $WL_PID) c[pp()]++ }"
	local want='[{"pp":"kernel.trace(\"syscalls:sys_enter_getppid\")","value":4321}]'
	run --separate-stderr tapkit -p2 -e "$script"
	[[ "$output" == *"perf_event counting mode on tracepoint syscalls:sys_enter_getppid"* ]] ||
		{ show_run; false; }
	start_tool tapkit --top-json --top-interval 100 -e "$script"
	release_workload
	# an interval's table, not the last one at exit: the run goes on
	local i
	for i in $(seq 1 100); do
		[ "$(tail -1 "$OUT" | jq -c .rows 2>/dev/null)" = "$want" ] && break
		sleep 0.1
	done
	kill -0 "$TOOL_PID"
	[ "$(tail -1 "$OUT" | jq -c .rows)" = "$want" ] || { show_output; false; }
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	assert_clean
}

@test "tapkit --top-json --top-iterations: that many tables, then the end probes" {
	run_pid tapkit --top-json --top-interval 50 --top-iterations 3 -e 'global c
probe timer.ms(10) { c["tick"]++ }
probe end { printf("end ran %d\n", c["tick"] > 0) }'
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 3 ] || { show_run; false; }
	printf '%s\n' "$output" | jq -e '.rows[0].key1 == "tick" and .rows[0].value > 0' >/dev/null ||
		{ show_run; false; }
	[ "$stderr" = "end ran 1" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit --top: a script without global arrays is refused before tracing" {
	run_pid tapkit --top-batch -e 'global n
probe syscall.getppid { n++ }'
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$output" = "" ] || { show_run; false; }
	[ "$stderr" = "tapkit: --top: the script has no global arrays to show" ] || { show_run; false; }
	assert_clean "$RUN_PID"
}

@test "tapkit --top: a bad array, a key too many, no terminal: one line each" {
	run_pid tapkit --top-json --top-view nosuch -e "$SCRIPT"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "tapkit: --top: no global array 'nosuch' in the script" ] || { show_run; false; }
	assert_clean "$RUN_PID"

	run_pid tapkit --top-json --top-drill a --top-drill b -e "$SCRIPT"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "tapkit: --top: 'c' has 2 keys: 1 to drill by at most" ] || { show_run; false; }
	assert_clean "$RUN_PID"

	run_pid tapkit --top-batch --top-sort nosuch --top-view off -e "$SCRIPT"
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "tapkit: --top: no column 'nosuch' in 'off' (EXECNAME COUNT SUM MIN MAX AVG)" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"

	run_pid tapkit --top -e "$SCRIPT" </dev/null
	[ "$status" -eq 1 ] || { show_run; false; }
	[ "$stderr" = "tapkit: --top: the screen needs a terminal; --top-batch and --top-json print without one" ] ||
		{ show_run; false; }
	assert_clean "$RUN_PID"

	run_pid tapkit --top-interval 100 -e "$SCRIPT"
	[ "$status" -eq 2 ] || { show_run; false; }
}

# ---- the screen, through tmux ------------------------------------------

# wait_pane REGEX: the tmux pane shows a line matching REGEX within 5 s
wait_pane() {
	local i
	for i in $(seq 1 50); do
		tmux -L "$TMUX_SOCK" capture-pane -p | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	echo "# the screen never showed '$1':" >&2
	tmux -L "$TMUX_SOCK" capture-pane -p | sed 's/^/# /' >&2
	return 1
}

@test "tapkit --top: drill, back, another array, q; then the script's output" {
	command -v tmux >/dev/null || skip "requires: tmux"
	TMUX_SOCK=tapkit_top_$$
	local script=$BATS_TEST_TMPDIR/arrays.stp pidf=$BATS_TEST_TMPDIR/tk.pid
	cat >"$script" <<'STP'
global c, s
probe begin {
	c["b", "z"] = 9; c["a", "y"] = 4; c["a", "x"] = 3
	s["lat"] <<< 5; s["lat"] <<< 7
	println("said in begin")
}
probe end { printf("end: %d\n", c["b", "z"]) }
STP
	tmux -L "$TMUX_SOCK" new-session -d -x 100 -y 30 \
		"echo \$\$ >$pidf; exec sh -c 'TERM=xterm tapkit --top --top-interval 200 $script; echo EXIT=\$?; sleep 60'"
	wait_pane "VALUE"
	local pid
	pid=$(cat "$pidf")
	# the first row (the largest value) is selected: Enter fixes KEY1=b
	wait_pane "^ *b +z +9 *$"
	tmux -L "$TMUX_SOCK" send-keys Enter
	wait_pane "c > KEY1=b"
	wait_pane "^ *KEY2 +VALUE"
	wait_pane "^ *z +9 *$"
	tmux -L "$TMUX_SOCK" send-keys BSpace
	wait_pane "^ *KEY1 +KEY2 +VALUE"
	tmux -L "$TMUX_SOCK" send-keys v
	wait_pane "s\[KEY1\]: statistic"
	tmux -L "$TMUX_SOCK" send-keys Down
	sleep 0.2
	tmux -L "$TMUX_SOCK" send-keys Enter
	wait_pane "^ *KEY1 +COUNT"
	wait_pane "^ *lat +2 +12 +5 +7 +6 *$"
	tmux -L "$TMUX_SOCK" send-keys q
	wait_pane "EXIT=0"
	# held under the screen, then written in order: begin, end, the
	# display of s (written, never read) as without --top
	local out
	out=$(tmux -L "$TMUX_SOCK" capture-pane -p | grep -v '^$')
	[ "$out" = 'said in begin
end: 9
s["lat"] @count=2 @min=5 @max=7 @sum=12 @avg=6
EXIT=0' ] || { printf '# %s\n' "$out" >&2; false; }
	assert_clean "$pid"
}
