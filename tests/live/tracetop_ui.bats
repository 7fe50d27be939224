#!/usr/bin/env bats
# tracetop's screen, driven through tmux: keys sent with send-keys, the
# screen read with capture-pane, against workloads the tests make (copies
# of the `calls` helper named for the test, whose getppid() batches the
# test releases one at a time).  Each test has its own tmux server.

load helpers

CALLS=$TAPKIT_TOP/build/tests/helpers/calls

setup() {
	require_root
	command -v tmux >/dev/null || skip "requires: tmux"
	SOCK=tapkit-test-$$-$BATS_TEST_NUMBER
	TT_PID=
	WL_PIDS=()
	WL_FDS=()
	export LANG=C.UTF-8 LC_ALL=C.UTF-8
}

teardown() {
	local p fd
	if [ -n "$TT_PID" ] && kill -0 "$TT_PID" 2>/dev/null; then
		kill -INT "$TT_PID" 2>/dev/null
		for _ in $(seq 1 100); do kill -0 "$TT_PID" 2>/dev/null || break; sleep 0.05; done
	fi
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	for fd in "${WL_FDS[@]}"; do exec {fd}>&- 2>/dev/null || true; done
	for p in "${WL_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}

tm() {
	tmux -L "$SOCK" "$@"
}

screen() {
	tm capture-pane -p
}

# wait_screen REGEX [SECS]: the screen shows a line matching REGEX (grep -E)
# within SECS (default 10); else the screen is printed and it fails
wait_screen() {
	local i
	for ((i = 0; i < ${2:-10} * 10; i++)); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	echo "# the screen never showed /$1/:" >&2
	screen | sed 's/^/# |/' >&2
	return 1
}

# wait_screen_not REGEX [SECS]: no line of the screen matches REGEX
wait_screen_not() {
	local i
	for ((i = 0; i < ${2:-10} * 10; i++)); do
		screen | grep -Eq -- "$1" || return 0
		sleep 0.1
	done
	echo "# the screen still shows /$1/:" >&2
	screen | sed 's/^/# |/' >&2
	return 1
}

# rows: the table's rows (between the column titles and the status line)
rows() {
	screen | awk 'seen && NF { print } / PID | SYSCALL /{ seen = 1 }' | sed '$d'
}

# wl_start NAME N1 [N2...]: a copy of `calls` named NAME making N1, N2...
# getppid() calls, each batch when wl_step NAME says; $WL_PID
wl_start() {
	local name=$1 fifo=$BATS_TEST_TMPDIR/fifo.$1 fd
	shift
	cp "$CALLS" "$BATS_TEST_TMPDIR/$name"
	mkfifo "$fifo"
	"$BATS_TEST_TMPDIR/$name" "$@" <"$fifo" &
	WL_PID=$!
	exec {fd}>"$fifo"
	WL_PIDS+=("$WL_PID")
	WL_FDS+=("$fd")
	eval "WLFD_$name=$fd"
}

# wl_step NAME: release NAME's next batch
wl_step() {
	local v=WLFD_$1
	printf x >&"${!v}"
}

# two_workloads: $TWO, a script for -c that runs `sysloop getppid` as
# tk<pid>a (1000 calls) and tk<pid>b (3000), then sleeps
two_workloads() {
	local d=$BATS_TEST_TMPDIR
	cp "$SYSLOOP" "$d/tk$$a"
	cp "$SYSLOOP" "$d/tk$$b"
	TWO=$d/two.sh
	printf '#!/bin/sh\n"%s" getppid 1000\n"%s" getppid 3000\nexec sleep 600\n' \
		"$d/tk$$a" "$d/tk$$b" >"$TWO"
	chmod +x "$TWO"
}

# filter TEXT: / TEXT Enter
filter() {
	tm send-keys /
	tm send-keys -l "$1"
	tm send-keys Enter
}

# click X Y: mouse button 1 pressed and released at column X, line Y
# (from 0), as the terminal reports them (X10 encoding)
click() {
	local xy
	xy=$(printf '%b%b' "\\x$(printf %x $((33 + $1)))" "\\x$(printf %x $((33 + $2)))")
	tm send-keys -l "$(printf '\033[M ')$xy"
	tm send-keys -l "$(printf '\033[M#')$xy"
}

# wait_line N REGEX: line N (from 1) of the screen matches REGEX
wait_line() {
	local i
	for ((i = 0; i < 100; i++)); do
		screen | sed -n "$1p" | grep -Eq -- "$2" && return 0
		sleep 0.1
	done
	echo "# line $1 never showed /$2/:" >&2
	screen | sed 's/^/# |/' >&2
	return 1
}

# bar_on NAME: the selection bar (a cyan or reverse-video line) is on the
# row of NAME, and on no other
bar_on() {
	local i lines
	for ((i = 0; i < 50; i++)); do
		lines=$(tm capture-pane -p -e | grep -a -E $'\e\\[(46|7)m +[0-9]+ ')
		[ "$(printf '%s\n' "$lines" | grep -c .)" -eq 1 ] &&
			grep -q " $1 " <<<"$lines" && return 0
		sleep 0.1
	done
	echo "# the bar is not on $1 alone:" >&2
	tm capture-pane -p -e | cat -v | sed 's/^/# |/' >&2
	return 1
}

# tt_start ARGS...: tracetop ARGS in a shell (prompt "tt$ ") in this
# test's tmux server, 80x24; returns once tracing is live and the first
# frame is drawn.  $TT_PID.  When it ends the shell prints "rc=STATUS".
tt_start() {
	local ready=$BATS_TEST_TMPDIR/ready pidf=$BATS_TEST_TMPDIR/tt.pid i
	rm -f "$ready" "$pidf"
	tm new-session -d -x 80 -y 24 "env PS1='tt\$ ' sh"
	wait_screen '^tt\$' 10
	tm send-keys -l "TAPKIT_READY_FILE=$ready sh -c 'echo \$\$ >$pidf; exec tracetop $*'; echo rc=\$?"
	tm send-keys Enter
	for i in $(seq 1 200); do
		[ -e "$ready" ] && [ -s "$pidf" ] && break
		sleep 0.05
	done
	TT_PID=$(cat "$pidf" 2>/dev/null)
	[ -e "$ready" ] || { echo "# tracetop did not become ready" >&2; screen >&2; return 1; }
	wait_screen 'q Quit'
}

# tt_ended [SECS]: tracetop has exited and the shell is back
tt_ended() {
	local i
	for ((i = 0; i < ${1:-10} * 20; i++)); do
		kill -0 "$TT_PID" 2>/dev/null || break
		sleep 0.05
	done
	! kill -0 "$TT_PID" 2>/dev/null || { echo "# tracetop still runs" >&2; return 1; }
}

# The terminal as tracetop found it: main screen, cursor shown, no mouse
# reporting, the keypad in normal mode.
assert_terminal_restored() {
	local f
	f=$(tm display-message -p '#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{keypad_cursor_flag}')
	[ "$f" = "0 1 0 0" ] || { echo "# terminal flags (alt cursor mouse keypad): $f" >&2; return 1; }
	tm send-keys -l "echo restored-\$((6*7))"
	tm send-keys Enter
	wait_screen '^restored-42$'
}

@test "tracetop screen: a process's getppid() calls counted exactly in cumulative mode" {
	local name=tkc$$
	wl_start "$name" 4321
	tt_start -p "$WL_PID" -d 0.3 -m cumulative
	wl_step "$name"
	# 4321 getppid() and the read() that waits for the next byte
	wait_screen "^ *$WL_PID +$name +4322 "
	# the header: time, view, figures, interval and mode
	screen | head -1 | grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2} +syscalls +ev/s [0-9]+ +lost 0 +cpu [0-9.]+% +every 0.3s +\[cumulative\]$'
	screen | grep -Eq '^ +PID COMM +COUNT▼ +RATE +ERRORS *$'
	[ "$(rows | wc -l)" -eq 1 ]
}

@test "tracetop screen: z cycles interval, cumulative and decay; d sets the interval" {
	wl_start tkz$$
	tt_start -p "$WL_PID"
	screen | head -1 | grep -Eq 'every 1.0s +\[interval\]$'
	tm send-keys z
	wait_screen '\[cumulative\]$'
	tm send-keys z
	wait_screen '\[decay\]$'
	tm send-keys z
	wait_screen '\[interval\]$'
	tm send-keys d
	wait_screen '^interval \(seconds\): _'
	tm send-keys -l 0.4
	tm send-keys Enter
	wait_screen 'every 0.4s'
	# below the minimum: refused with the reason, the interval kept
	tm send-keys d
	tm send-keys -l 0.05
	tm send-keys Enter
	wait_screen "^interval '0.05': give seconds from 0.1"
	screen | head -1 | grep -q 'every 0.4s'
}

@test "tracetop screen: > moves the sort arrow, I inverts the order, F6 chooses" {
	local a=tk$$a b=tk$$b
	two_workloads
	tt_start -d 0.3 -m cumulative -c "$TWO"
	filter "tk$$"
	wait_screen "^ *[0-9]+ +$a +1[0-9]{3} "
	wait_screen "^ *[0-9]+ +$b +3[0-9]{3} "
	# descending by COUNT: b above a
	[ "$(rows | awk '{ print $2 }' | paste -sd' ')" = "$b $a" ] || { screen >&2; false; }
	tm send-keys '>'
	wait_screen '^ +PID COMM +COUNT +RATE▼ '
	tm send-keys '<'
	wait_screen '^ +PID COMM +COUNT▼ +RATE '
	tm send-keys I
	wait_screen '^ +PID COMM +COUNT▲ +RATE '
	[ "$(rows | awk '{ print $2 }' | paste -sd' ')" = "$a $b" ] || { screen >&2; false; }
	# F6: the chooser lists the columns; COMM chosen, descending
	tm send-keys F6
	wait_screen '^sort by'
	wait_screen '^  \* COUNT$'
	tm send-keys Home Down Enter
	wait_screen '^ +PID COMM▼ +COUNT +RATE '
	[ "$(rows | awk '{ print $2 }' | paste -sd' ')" = "$b $a" ] || { screen >&2; false; }
}

@test "tracetop screen: the selection stays on its row's key when the order changes" {
	local a=tk$$a b=tk$$b
	two_workloads
	tt_start -d 0.3 -m cumulative -c "$TWO"
	filter "tk$$"
	wait_line 3 "^ *[0-9]+ +$b +3[0-9]{3} "
	wait_line 4 "^ *[0-9]+ +$a +1[0-9]{3} "
	bar_on "$b"
	tm send-keys Down
	bar_on "$a"
	tm send-keys I
	wait_line 3 "^ *[0-9]+ +$a +1[0-9]{3} "
	bar_on "$a"
	tm send-keys End
	bar_on "$b"
}

@test "tracetop screen: a click on a column title sorts by it, a second inverts" {
	wl_start tkm$$
	tt_start -p "$WL_PID"
	wait_line 2 '^ +PID COMM +COUNT▼ +RATE '
	# RATE's title ends at column 40 of line 1
	click 37 1
	wait_line 2 '^ +PID COMM +COUNT +RATE▼ '
	click 37 1
	wait_line 2 '^ +PID COMM +COUNT +RATE▲ '
	click 5 1
	wait_line 2 '^ +PID▼ COMM +COUNT +RATE '
}

@test "tracetop screen: / filters the rows by text, Esc clears it" {
	local a=tk$$a b=tk$$b
	two_workloads
	tt_start -d 0.3 -m cumulative -c "$TWO"
	wait_screen "^ *[0-9]+ +$a +1[0-9]{3} "
	wait_screen "^ *[0-9]+ +$b +3[0-9]{3} "
	[ "$(rows | wc -l)" -ge 3 ] || { screen >&2; false; }
	tm send-keys /
	wait_screen '^filter: _'
	tm send-keys -l "$a"
	wait_screen "^filter: $a"
	tm send-keys Enter
	wait_screen " /$a "
	# only the workload's row is left
	[ "$(rows | wc -l)" -eq 1 ] || { screen >&2; false; }
	rows | grep -Eq "^ *[0-9]+ +$a +1[0-9]{3} "
	tm send-keys Escape
	wait_screen_not " /$a "
	[ "$(rows | wc -l)" -ge 3 ] || { screen >&2; false; }
}

@test "tracetop screen: Enter drills into a process, Backspace goes back" {
	local name=tkd$$
	wl_start "$name" 100 777 50
	tt_start -p "$WL_PID" -d 0.3 -m cumulative
	wl_step "$name"
	wait_screen "^ *$WL_PID +$name +101 "
	tm send-keys Enter
	# the breadcrumbs and the drilled view's columns
	wait_screen "syscalls > pid=$WL_PID "
	wait_screen '^SYSCALL +COUNT▼ +RATE +ERRORS +AVG +P99 +MAX *$'
	wl_step "$name"
	wait_screen '^getppid +777 '
	# the thread view under it has no drill-down: it says so
	tm send-keys Home Enter
	# (at 80 columns the breadcrumbs give way from the left)
	wait_screen "> syscall=getppid "
	wait_screen '^ +TID COMM +COUNT'
	wl_step "$name"
	wait_screen "^ *$WL_PID +$name +50 "
	tm send-keys Enter
	wait_screen '^no drill-down for this view'
	tm send-keys BSpace
	wait_screen_not "> syscall=getppid"
	wait_screen "syscalls > pid=$WL_PID "
	tm send-keys BSpace
	wait_screen_not "> pid="
	# the process view again, with the totals it had
	wait_screen "^ *$WL_PID +$name +101 "
	tm send-keys BSpace
	wait_screen '^at the first view'
}

@test "tracetop screen: e shows the selected row's raw events, H its histogram" {
	local name=tke$$
	wl_start "$name" 5 40 30
	tt_start -p "$WL_PID" -d 0.3 -m cumulative
	wl_step "$name"
	wait_screen "^ *$WL_PID +$name +6 "
	tm send-keys e
	wait_screen '^raw events'
	wl_step "$name"
	# getppid() is syscall 110 on x86_64, 173 on arm64
	wait_screen "^ *[0-9]+\.[0-9]{9} +[0-9]+ +$WL_PID sys_exit: NR [0-9]+ = "
	[ "$(screen | grep -Ec " $WL_PID sys_exit: NR [0-9]+ = ")" -ge 5 ]
	# Up scrolls back: the last line shown is an older event; End returns
	local last older
	last=$(screen | grep -E " $WL_PID sys_exit: " | tail -1 | awk '{ print $1 }')
	tm send-keys Up Up
	wait_line 23 "^ *[0-9]+\.[0-9]{9} .* $WL_PID sys_exit: "
	for _ in $(seq 1 50); do
		older=$(screen | grep -E " $WL_PID sys_exit: " | tail -1 | awk '{ print $1 }')
		[ "$older" != "$last" ] && break
		sleep 0.1
	done
	awk -v a="$older" -v b="$last" 'BEGIN { exit !(a < b) }' || { screen >&2; false; }
	tm send-keys End
	wait_line 23 "^ *$last "
	tm send-keys e
	wait_screen_not '^raw events'
	tm send-keys Enter
	wait_screen "syscalls > pid=$WL_PID "
	wl_step "$name"
	wait_screen '^getppid +30 '
	tm send-keys Home H
	wait_screen '^P99 of getppid \[cumulative\]'
	# 30 calls in the buckets' counts
	wait_screen ' -> .* : [0-9]+ +\|\*+ *\|$'
	[ "$(screen | awk -F: '/ -> / { split($2, f, " "); n += f[1] } END { print n }')" -eq 30 ] ||
		{ screen >&2; false; }
	tm send-keys Escape
	wait_screen_not '^P99 of getppid'
}

@test "tracetop screen: v chooses the syscount view" {
	local name=tkv$$
	wl_start "$name" 2500
	tt_start -p "$WL_PID" -d 0.3 -m cumulative
	tm send-keys v
	wait_screen '^views '
	wait_screen '^  syscount +system calls by name'
	# the menu starts on the view shown (syscalls); syscalls-time, then
	# syscount follow
	tm send-keys Down Down Enter
	wait_screen '^[0-9:]+ +syscount +ev/s'
	wait_screen '^SYSCALL +COUNT▼ +RATE *$'
	wl_step "$name"
	wait_screen '^getppid +2500 '
}

@test "tracetop screen: a view that takes an argument asks for it (funcs PATTERN)" {
	local name=tkg$$ views i n
	tracetop -l | grep -q '^funcs ' || skip "requires: the funcs view"
	# the menu lists the views tracetop -l lists, drill-downs left out
	views=$(tracetop -l | awk '/^[a-z]/ && !/\(drill-down\)$/ { print $1 }')
	n=$(grep -nx funcs <<<"$views" | cut -d: -f1)
	wl_start "$name" 20
	tt_start -p "$WL_PID" -d 0.3 -m cumulative
	tm send-keys v
	wait_screen '^  funcs '
	for ((i = 1; i < n; i++)); do tm send-keys Down; done
	tm send-keys Enter
	wait_screen '^funcs argument: _'
	# calls makes its getppid() calls through libc's syscall()
	tm send-keys -l 'c:syscall'
	tm send-keys Enter
	wait_screen '^(tracetop - )?[0-9:]+ +funcs c:syscall '
	wl_step "$name"
	wait_screen '^syscall +20 '
}

@test "tracetop screen: p freezes the display while counting goes on" {
	local name=tkp$$
	wl_start "$name" 100 200
	tt_start -p "$WL_PID" -d 0.3 -m cumulative
	wl_step "$name"
	wait_screen "^ *$WL_PID +$name +101 "
	tm send-keys p
	wait_screen 'PAUSED$'
	wl_step "$name"
	sleep 1
	screen | grep -Eq "^ *$WL_PID +$name +101 " || { screen >&2; false; }
	tm send-keys p
	wait_screen_not 'PAUSED'
	wait_screen "^ *$WL_PID +$name +302 "
}

@test "tracetop screen: h shows the help, any key closes it" {
	wl_start tkh$$
	tt_start -p "$WL_PID"
	tm send-keys h
	wait_screen '^tracetop keys'
	screen | grep -Eq '^  Enter +drill into the selected row$'
	screen | grep -Eq '^  q +quit'
	tm send-keys x
	wait_screen_not '^tracetop keys'
	tm send-keys F1
	wait_screen '^tracetop keys'
}

@test "tracetop screen: q quits, the terminal restored and tracefs clean" {
	wl_start tkq$$
	tt_start -p "$WL_PID"
	tm send-keys q
	wait_screen '^rc=0$'
	tt_ended
	assert_clean "$TT_PID"
	assert_terminal_restored
}

@test "tracetop screen: redrawn to the new size at 200x60 and back at 80x24" {
	wl_start tkr$$
	tt_start -p "$WL_PID" -d 0.3
	screen | head -1 | grep -Eq '^(tracetop - )?[0-9]{2}:[0-9]{2}:[0-9]{2} +syscalls +ev/s'
	[ "$(screen | wc -l)" -eq 24 ]
	tm resize-window -x 200 -y 60
	wait_screen '^tracetop - [0-9:]+  syscalls +ev/s'
	[ "$(screen | wc -l)" -eq 60 ]
	wait_line 60 'q Quit'
	screen | grep -Eq '^ +PID COMM +COUNT▼ +RATE +ERRORS *$'
	tm resize-window -x 80 -y 24
	wait_screen '^(tracetop - )?[0-9]{2}:[0-9]{2}:[0-9]{2} +syscalls +ev/s'
	[ "$(screen | wc -l)" -eq 24 ]
	wait_line 24 'q Quit'
	# nothing is drawn past the 80th column
	[ "$(screen | awk '{ if (length($0) > m) m = length($0) } END { print m }')" -le 80 ]
}

@test "tracetop screen: columns that do not fit are cut from the right, keys kept" {
	wl_start tkn$$
	tt_start -p "$WL_PID"
	tm resize-window -x 46 -y 24
	wait_line 2 '^ +PID COMM +COUNT▼ +RATE *$'
	wait_line 24 '^F1 Help  F2 Views  F6 Sort  / Filter'
	tm resize-window -x 26 -y 24
	wait_line 2 '^ +PID COMM *$'
}

@test "tracetop screen: L shows the lost events per CPU" {
	wl_start tkl$$
	tt_start -p "$WL_PID"
	tm send-keys L
	wait_line 2 '^lost per CPU: '
	wait_line 3 '^ +PID COMM +COUNT'
	tm send-keys L
	wait_line 2 '^ +PID COMM +COUNT'
}

@test "tracetop screen: -n N ends after N intervals; Ctrl-C ends it too" {
	wl_start tki$$
	# intervals long enough for the screen to be seen before the end
	tt_start -p "$WL_PID" -n 3 -d 1
	wait_screen '^rc=0$'
	tt_ended
	assert_clean "$TT_PID"
	assert_terminal_restored
	tm send-keys -l "clear"
	tm send-keys Enter
	wait_screen_not '^rc=0$'
	tm send-keys -l "sh -c 'echo \$\$ >$BATS_TEST_TMPDIR/tt.pid; exec tracetop -p $WL_PID'; echo rc=\$?"
	tm send-keys Enter
	wait_screen 'q Quit'
	TT_PID=$(cat "$BATS_TEST_TMPDIR/tt.pid")
	tm send-keys C-c
	# (a slow machine may echo the ^C before the shell's line)
	wait_screen 'rc=0$'
	tt_ended
	assert_clean "$TT_PID"
	assert_terminal_restored
}

@test "tracetop screen: the sort arrow is v or ^ outside UTF-8 locales" {
	wl_start tka$$
	LANG=C LC_ALL=C tt_start -p "$WL_PID"
	wait_line 2 '^ +PID COMM +COUNTv +RATE '
	tm send-keys I
	wait_line 2 '^ +PID COMM +COUNT\^ +RATE '
}

@test "tracetop screen: SIGTERM restores the terminal and cleans tracefs" {
	wl_start tkt$$
	tt_start -p "$WL_PID"
	kill -TERM "$TT_PID"
	wait_screen '^rc=0$'
	tt_ended
	assert_clean "$TT_PID"
	assert_terminal_restored
}

@test "tracetop screen: a closed terminal (SIGHUP) ends it with tracefs clean" {
	wl_start tku$$
	tt_start -p "$WL_PID"
	ls "$TRACEFS/instances" | grep -q "^tapkit_${TT_PID}_"
	tm kill-server
	tt_ended 10
	assert_clean "$TT_PID"
}

@test "tracetop screen: refused without a terminal on stdin" {
	tm new-session -d -x 80 -y 24 "env PS1='tt\$ ' sh"
	wait_screen '^tt\$'
	tm send-keys -l "tracetop </dev/null; echo rc=\$?"
	tm send-keys Enter
	wait_screen '^rc=1$'
	screen | grep -q 'tracetop: the screen needs a terminal on stdin and stdout'
}

@test "tracetop screen: stderr under the screen shows on the status line, then on the terminal" {
	wl_start tkerr$$ 10
	tt_start -v -p "$WL_PID" -m cumulative -d 0.3
	wl_step tkerr$$
	wait_screen "^ *$WL_PID +tkerr$$ +11 "
	# -v's note of the drilled view is written while the screen is up
	tm send-keys Enter
	wait_screen "syscalls > pid=$WL_PID"
	wait_screen "^tracetop: syscalls: raw_syscalls sys_enter and sys_exit records"
	# the frame is whole: the note is the status line, the last line
	screen | tail -1 | grep -q "raw_syscalls sys_enter and sys_exit records" ||
		{ screen | sed 's/^/# |/' >&2; false; }
	screen | head -1 | grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2} +syscalls > pid='
	tm send-keys q
	wait_screen '^rc=0$'
	# the notes held under the screen, on the terminal once it is back
	[ "$(screen | grep -c "^tracetop: syscalls: raw_syscalls ")" -ge 2 ] ||
		{ screen | sed 's/^/# |/' >&2; false; }
	assert_terminal_restored
}
