#!/usr/bin/env bats
# opensnoop against tests/helpers/opener, which opens files in a directory
# through the C library's open family and raw syscalls (some failing with
# known errnos) and lists each call as "CALL FD ERRNO FLAGS PATH".  The
# same program linked statically has no shared C library to probe; its
# paths, read from memory after the call, are marked "?".  mutopen opens
# mutA through syscall(2) and then overwrites the buffer with mutB.

load helpers

OPENER=$TAPKIT_TOP/build/tests/helpers/opener

setup_file() {
	local log=$BATS_FILE_TMPDIR/static.log
	[ "$(id -u)" = 0 ] || return 0
	gcc -static -O2 -o "$BATS_FILE_TMPDIR/opener-static" \
		"$TAPKIT_TOP/tests/helpers/opener.c" 2>"$log" ||
		echo "# gcc -static failed (is libc.a, from libc6-dev, installed?): $(cat "$log")" >&3
}

setup() {
	require_root
	[ -x "$OPENER" ] || { echo "# $OPENER missing: run make tests-build" >&2; return 1; }
	STATIC=$BATS_FILE_TMPDIR/opener-static
	# writable by anyone, for -U as another user
	DIR=$(mktemp -d /tmp/opensnoop-test.XXXXXX)
	chmod 0777 "$DIR"
}

teardown() {
	stop_leftover_tool
	[ -z "${OTHER_PID:-}" ] || { kill -KILL "$OTHER_PID" 2>/dev/null; wait "$OTHER_PID" 2>/dev/null; } || true
	rm -rf "$DIR"
}

# start_opener [PREFIX...] BIN: the workload held on a fifo ($WL_PID,
# $WL_FD, its name $WL_COMM), its list of calls going to $MANIFEST
start_opener() {
	local fifo=$BATS_TEST_TMPDIR/fifo.$RANDOM
	WL_COMM=${!#}
	WL_COMM=${WL_COMM##*/}
	MANIFEST=$BATS_TEST_TMPDIR/manifest.$RANDOM
	mkfifo "$fifo"
	"$@" wait-stdin "$DIR" <"$fifo" >"$MANIFEST" &
	WL_PID=$!
	exec {WL_FD}>"$fifo"
}

# run_opener: release the workload, wait for its list, give the tool time
# to read the records while the process is still there, then let it exit
run_opener() {
	printf x >&"$WL_FD"
	local i
	for i in $(seq 1 200); do
		grep -q 'missing/y$' "$MANIFEST" 2>/dev/null && break
		sleep 0.05
	done
	settle 0.5
	exec {WL_FD}>&-
	WL_FD=
	wait "$WL_PID"
}

# expected [-x]: "FD ERR PATH" of each call in the list (only the failed
# ones with -x), sorted
expected() {
	awk -v x="${1:-}" 'x == "" || $2 == -1 { print $2, $3, $5 }' "$MANIFEST" | sort
}

# seen PID: "FD ERR PATH" of each output line of PID in the workload's
# directory (not the dynamic loader's opens), sorted
seen() {
	awk -v p="$1" -v c="$WL_COMM" -v d="$DIR" \
		'$1 == p && $2 == c && ($5 == "relative" || index($5, d) == 1) { print $3, $4, $5 }' \
		"$OUT" | sort
}

# same_opens PID: the output has exactly the workload's opens
same_opens() {
	local want got
	want=$(expected "${2:-}") got=$(seen "$1")
	[ -n "$want" ] || { echo "# the workload listed nothing" >&2; return 1; }
	[ "$want" = "$got" ] && return 0
	echo "# expected and seen differ:" >&2
	diff <(echo "$want") <(echo "$got") | sed 's/^/# /' >&2
	show_output
	return 1
}

@test "opensnoop: every open of the workload once, with its path, FD and ERR" {
	start_opener "$OPENER"
	start_tool opensnoop
	run_opener
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	head -1 "$OUT" | grep -Eq '^PID +COMM +FD +ERR +PATH$' || { show_output; false; }
	[ "$(wc -l <"$MANIFEST")" -ge 15 ]
	same_opens "$WL_PID"
	# the raw syscalls are there too, and the failures with their errno
	fd=$(awk '$1 == "raw-openat" { print $2 }' "$MANIFEST")
	grep -Eq "^$WL_PID +opener +$fd +0 $DIR/raw-openat\$" "$OUT" || { show_output; false; }
	grep -Eq "^$WL_PID +opener +-1 +20 $DIR/open/x\$" "$OUT" || { show_output; false; }
	grep -Eq "^$WL_PID +opener +-1 +21 $DIR\$" "$OUT" || { show_output; false; }
	[ ! -s "$ERR" ] || { show_output; false; }
	assert_clean
}

@test "opensnoop: a static program's paths, read afterwards, are marked with ?" {
	[ -x "$STATIC" ] || { echo "# no static build of opener (see setup_file)" >&2; false; }
	start_opener "$STATIC"
	start_tool opensnoop
	run_opener
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	if [ -e "$TRACEFS/kprobe_events" ]; then
		same_opens "$WL_PID"		# fetched at the call: exact
	else
		# no C library to probe: every path of the workload was read
		# from its memory after the call, and says so
		[ -z "$(seen "$WL_PID")" ] || { show_output; false; }
		sed -i "s|^\([0-9]* *$WL_COMM *-*[0-9]* *[0-9]* \)?|\1|" "$OUT"
		same_opens "$WL_PID"
	fi
	assert_clean
}

@test "opensnoop: -p of a static program probes its own open functions" {
	[ -x "$STATIC" ] || { echo "# no static build of opener (see setup_file)" >&2; false; }
	start_opener "$STATIC"
	start_tool opensnoop -v -p "$WL_PID"
	run_opener
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	same_opens "$WL_PID"
	! grep -q '^[0-9]* .* ?/' "$OUT" || { show_output; false; }
	[ -e "$TRACEFS/kprobe_events" ] ||
		grep -q "^opensnoop: paths from uprobes on /.*/libc\.so\.6 and $STATIC + syscall tracepoints\$" "$ERR" ||
		{ show_output; false; }
	assert_clean
}

# mut DIR BIN: run BIN (mutopen), which opens DIR/mutA with syscall(2) and
# then overwrites the path's buffer with DIR/mutB, held until released
run_mut() {
	local fifo=$BATS_TEST_TMPDIR/mut.$RANDOM
	mkfifo "$fifo"
	"$1" wait-stdin "$DIR" <"$fifo" >"$BATS_TEST_TMPDIR/mut.out" &
	WL_PID=$!
	exec {WL_FD}>"$fifo"
	start_tool opensnoop -p "$WL_PID"
	printf x >&"$WL_FD"
	local i
	for i in $(seq 1 100); do
		[ -s "$BATS_TEST_TMPDIR/mut.out" ] && break
		sleep 0.05
	done
	settle 0.5
	exec {WL_FD}>&-
	WL_FD=
	wait "$WL_PID"
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
}

@test "opensnoop: syscall(SYS_openat) shows the path it opened, not what the buffer holds later" {
	run_mut "$TAPKIT_TOP/build/tests/helpers/mutopen"
	fd=$(cut -d' ' -f1 "$BATS_TEST_TMPDIR/mut.out")
	[ "$(cat "$BATS_TEST_TMPDIR/mut.out")" = "$fd $DIR/mutA" ]
	[ "$(grep -c "$DIR" "$OUT")" -eq 1 ] || { show_output; false; }
	grep -Eq "^$WL_PID +mutopen +$fd +0 $DIR/mutA\$" "$OUT" || { show_output; false; }
	assert_clean
}

@test "opensnoop: a path read late from a static program's memory is marked ?" {
	run_mut "$TAPKIT_TOP/build/tests/helpers/mutopen-static"
	fd=$(cut -d' ' -f1 "$BATS_TEST_TMPDIR/mut.out")
	[ "$(cat "$BATS_TEST_TMPDIR/mut.out")" = "$fd $DIR/mutA" ]
	[ "$(grep -c "$DIR" "$OUT")" -eq 1 ] || { show_output; false; }
	# kprobes, or with -p the program's own syscall() probed: exact
	grep -Eq "^$WL_PID +mutopen-static +$fd +0 $DIR/mutA\$" "$OUT" || { show_output; false; }
	# system-wide its C library is not probed: the buffer as it is by
	# the time the record is read, marked
	local fifo=$BATS_TEST_TMPDIR/mut2
	mkfifo "$fifo"
	"$TAPKIT_TOP/build/tests/helpers/mutopen-static" wait-stdin "$DIR" <"$fifo" \
		>"$BATS_TEST_TMPDIR/mut.out" &
	WL_PID=$!
	exec {WL_FD}>"$fifo"
	start_tool opensnoop -n mutopen-st
	# the record is read after the buffer changed: hold the reader
	kill -STOP "$TOOL_PID"
	printf x >&"$WL_FD"
	local i
	for i in $(seq 1 100); do
		[ -s "$BATS_TEST_TMPDIR/mut.out" ] && break
		sleep 0.05
	done
	sleep 0.2
	kill -CONT "$TOOL_PID"
	settle 0.5
	exec {WL_FD}>&-
	WL_FD=
	wait "$WL_PID"
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	if [ -e "$TRACEFS/kprobe_events" ]; then
		want="$DIR/mutA"
	else
		want="?$DIR/mutB"
	fi
	[ "$(grep -c "$DIR" "$OUT")" -eq 1 ] || { show_output; false; }
	fd=$(cut -d' ' -f1 "$BATS_TEST_TMPDIR/mut.out")
	grep -Fxq "$(printf '%-6d %-16s %4d %3d %s' "$WL_PID" mutopen-static "$fd" 0 "$want")" "$OUT" ||
		{ show_output; false; }
	assert_clean
}

@test "opensnoop: the name is the one the task had at the open, not after its exec" {
	# a shell there before tracing began opens a file, then execs
	local fifo=$BATS_TEST_TMPDIR/sh
	mkfifo "$fifo"
	bash -c "read -r x; exec 3>\"$DIR/before-exec\"; exec \"$TAPKIT_TOP/build/tests/helpers/kopen\" \"$DIR/after-exec\" 1" <"$fifo" &
	WL_PID=$!
	exec {WL_FD}>"$fifo"
	sleep 0.2
	start_tool opensnoop -p "$WL_PID"
	echo go >&"$WL_FD"
	exec {WL_FD}>&-
	WL_FD=
	wait "$WL_PID" || true
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	grep -Eq "^$WL_PID +bash +[0-9]+ +0 $DIR/before-exec\$" "$OUT" || { show_output; false; }
	grep -Eq "^$WL_PID +kopen +-1 +2 $DIR/after-exec\$" "$OUT" ||
		{ show_output; false; }
	assert_clean
}

@test "opensnoop: a path with a newline or an escape is one escaped line; -j keeps its bytes" {
	local name=$'x\ny\e[31mz'
	start_tool opensnoop -n touch
	touch "$DIR/$name"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	grep -Fq " $DIR/x\ny\e[31mz" "$OUT" || { show_output; false; }
	! grep -q $'\e' "$OUT" || { show_output; false; }
	start_tool opensnoop -j -n touch
	touch "$DIR/$name"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	python3 - "$OUT" "$DIR/$name" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r for r in rows if r.get("path") == sys.argv[2]], rows
PY
	assert_clean
}

@test "opensnoop: -x shows only the failed opens" {
	start_opener "$OPENER"
	start_tool opensnoop -x
	run_opener
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	same_opens "$WL_PID" -x
	# and nobody's successful open
	! awk 'NR > 1 && ($3 != -1 || $4 == 0)' "$OUT" | grep -q . || { show_output; false; }
	assert_clean
}

@test "opensnoop: -p leaves other processes out and ends with the process" {
	start_opener "$OPENER"
	start_tool opensnoop -p "$WL_PID"
	"$OPENER" "$DIR" >/dev/null &
	OTHER_PID=$!
	wait "$OTHER_PID"
	run_opener
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	same_opens "$WL_PID"
	[ "$(awk -v p="$WL_PID" 'NR > 1 && $1 != p' "$OUT" | wc -l)" -eq 0 ] || { show_output; false; }
	OTHER_PID=
	assert_clean
}

@test "opensnoop: -t shows one thread, in a TID column" {
	start_opener "$OPENER"
	start_tool opensnoop -t "$WL_PID"
	cat /etc/hostname >/dev/null
	run_opener
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	head -1 "$OUT" | grep -Eq '^TID +COMM +FD +ERR +PATH$' || { show_output; false; }
	same_opens "$WL_PID"
	[ "$(awk -v p="$WL_PID" 'NR > 1 && $1 != p' "$OUT" | wc -l)" -eq 0 ] || { show_output; false; }
}

@test "opensnoop: -n keeps the processes whose name contains NAME" {
	start_opener "$OPENER"
	start_tool opensnoop -n pene
	cat "$DIR" 2>/dev/null || true		# comm cat: left out
	run_opener
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	same_opens "$WL_PID"
	[ "$(awk 'NR > 1 && $2 != "opener"' "$OUT" | wc -l)" -eq 0 ] || { show_output; false; }
	assert_clean
}

@test "opensnoop: -T and -U add TIME(s) and UID columns" {
	start_opener setpriv --reuid=65534 --regid=65534 --clear-groups "$OPENER"
	start_tool opensnoop -T -U -p "$WL_PID"
	run_opener
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	head -1 "$OUT" | grep -Eq '^TIME\(s\) +UID +PID +COMM +FD +ERR +PATH$' || { show_output; false; }
	grep -Eq "^[0-9]+\.[0-9]{9} +65534 +$WL_PID +opener +-1 +2 $DIR/missing/x\$" "$OUT" || { show_output; false; }
	[ "$(grep -c " $DIR/" "$OUT")" -eq "$(grep -c " $DIR/" "$MANIFEST")" ] || { show_output; false; }
	# every line's time is since tracing began: positive, increasing
	awk 'NR > 1 { if ($1 <= 0 || $1 < last) bad = 1; last = $1 } END { exit bad }' "$OUT" ||
		{ show_output; false; }
}

@test "opensnoop: -j prints one object per open with its values" {
	start_opener "$OPENER"
	start_tool opensnoop -j -p "$WL_PID"
	run_opener
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	kprobes=0
	[ -e "$TRACEFS/kprobe_events" ] && kprobes=1
	python3 - "$OUT" "$MANIFEST" "$WL_PID" "$DIR" "$kprobes" <<'PY'
import errno, json, sys
out, manifest, pid, d, kprobes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5] == "1"
rows = [json.loads(l) for l in open(out)]
mine = [r for r in rows if r["path"] and (r["path"] == "relative" or r["path"].startswith(d))]
want = []
for line in open(manifest):
    call, fd, err, flags, path = line.split()
    # raw syscall(2)s too: the uprobe on the C library's syscall()
    src = "kprobe" if kprobes else "uprobe"
    want.append((int(fd), int(err), int(flags), path, src))
O_LARGEFILE = 0o100000	# the kernel adds it for 64-bit callers
got = [(r["fd"], r["err"], r["flags"] & ~O_LARGEFILE, r["path"], r["source"]) for r in mine]
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
for r in mine:
    assert r["pid"] == pid and r["tid"] == pid and r["uid"] == 0 and r["comm"] == "opener", r
    assert r["errname"] == (errno.errorcode[r["err"]] if r["err"] else None), r
    assert isinstance(r["ts_ns"], int) and r["elapsed_s"] > 0 and r["addr"] > 0, r
assert all(r["pid"] == pid for r in rows), rows
PY
}

@test "opensnoop: -v names the mechanism once, on stderr" {
	start_tool opensnoop -v
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c 'paths from' "$ERR")" -eq 1 ] || { show_output; false; }
	if [ -e "$TRACEFS/kprobe_events" ]; then
		grep -Eq '^opensnoop: paths from kprobes on do_sys_open(at2)?$' "$ERR" || { show_output; false; }
	else
		grep -Eq '^opensnoop: paths from uprobes on /.*/libc\.so\.6 \+ syscall tracepoints$' "$ERR" ||
			{ show_output; false; }
	fi
	assert_clean
}

@test "opensnoop: -d ends it by itself" {
	start_tool opensnoop -d 1
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	head -1 "$OUT" | grep -Eq '^PID +COMM +FD +ERR +PATH$'
	assert_clean
}

@test "opensnoop: with kprobes, paths are exact after the process is gone" {
	require_tracefs_file kprobe_events
	start_tool opensnoop -j
	"$OPENER" "$DIR" >"$BATS_TEST_TMPDIR/manifest" &
	local pid=$!
	wait "$pid"
	settle
	stop_tool
	MANIFEST=$BATS_TEST_TMPDIR/manifest
	python3 - "$OUT" "$MANIFEST" "$pid" "$DIR" <<'PY'
import json, sys
out, manifest, pid, d = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = [json.loads(l) for l in open(out) if '"type"' not in l]
mine = [r for r in rows if r["pid"] == pid and r["path"] is not None and
        (r["path"] == "relative" or r["path"].startswith(d))]
want = sorted((int(l.split()[1]), int(l.split()[2]), l.split()[4]) for l in open(manifest))
got = sorted((r["fd"], r["err"], r["path"]) for r in mine)
assert got == want, (got, want)
assert all(r["source"] == "kprobe" for r in mine), mine
PY
	grep -q '"path":"/etc/ld.so.cache"' "$OUT"
	assert_clean
}

@test "opensnoop: output to a closed pipe ends it cleanly" {
	start_piped 1 opensnoop -n opener
	for i in 1 2 3; do "$OPENER" "$DIR" >/dev/null; sleep 0.2; done
	wait "$HEAD_PID"
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(wc -l <"$OUT")" -eq 1 ]
	[ ! -s "$ERR" ] || { show_output; false; }
	assert_clean
}

@test "opensnoop: -c shows exactly its command's opens, and exits with its status" {
	local other pid
	MANIFEST=$BATS_TEST_TMPDIR/manifest WL_COMM=opener
	other=$(mktemp -d /tmp/opensnoop-test.XXXXXX)
	start_cmd_tool opensnoop -c "sh -c 'exec $OPENER wait-stdin $DIR >$MANIFEST'"
	"$OPENER" "$other" >/dev/null	# traced, but not the command
	rm -rf "$other"
	# as run_opener: the command stays until its opens are read
	printf x >&"$WL_FD"
	for _ in $(seq 1 200); do
		grep -q 'missing/y$' "$MANIFEST" 2>/dev/null && break
		sleep 0.05
	done
	settle 0.5
	exec {WL_FD}>&-
	WL_FD=
	wait_tool			# ends with the command
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	pid=$(awk '$2 == "opener" { print $1; exit }' "$OUT")
	[ -n "$pid" ] || { show_output; false; }
	same_opens "$pid"
	# one process: the shell that became the opener
	[ "$(awk -v p="$pid" 'NR > 1 && $1 != p' "$OUT" | wc -l)" -eq 0 ] || { show_output; false; }
	assert_clean
	run --separate-stderr opensnoop -c "sh -c 'exit 8'"
	[ "$status" -eq 8 ] || { echo "# $stderr"; false; }
}

@test "opensnoop: -e adds each open's FLAGS and MODE, in octal" {
	start_opener "$OPENER"
	start_tool opensnoop -e -p "$WL_PID"
	run_opener
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	head -1 "$OUT" | grep -Eq '^PID +COMM +FD +ERR +FLAGS +MODE +PATH$' || { show_output; false; }
	python3 - "$OUT" "$MANIFEST" "$DIR" <<'PY' || { show_output; false; }
import os, sys
out, manifest, d = sys.argv[1:]
O_LARGEFILE = 0o100000	# the kernel adds it for 64-bit callers
# the modes opener passes with O_CREAT (fopen's "w" is 0666)
modes = {"open64": 0o600, "fopen": 0o666}
want = []
for line in open(manifest):
    call, fd, err, flags, path = line.split()
    flags = int(flags)
    mode = "%04o" % modes.get(call, 0o644) if flags & os.O_CREAT else "n/a"
    want.append((int(fd), int(err), flags, mode, path))
got = []
for line in list(open(out))[1:]:
    pid, comm, fd, err, flags, mode, path = line.split()
    if path == "relative" or path.startswith(d):
        got.append((int(fd), int(err), int(flags, 8) & ~O_LARGEFILE, mode, path))
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
PY
}

@test "opensnoop: -f keeps the opens with any of the flags given" {
	start_opener "$OPENER"
	start_tool opensnoop -f O_WRONLY -p "$WL_PID"
	run_opener
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	want=$(awk '$4 % 4 == 1 { print $2, $3, $5 }' "$MANIFEST" | sort)
	[ -n "$want" ] && [ "$(seen "$WL_PID")" = "$want" ] || { show_output; false; }
	# every line is one: the loader's read-only opens are left out too
	[ "$(tail -n +2 "$OUT" | wc -l)" -eq "$(wc -l <<<"$want")" ] || { show_output; false; }
	start_opener "$OPENER"
	start_tool opensnoop -f O_RDWR -f O_EXCL -j -p "$WL_PID"
	run_opener
	wait_tool
	want=$(awk '$4 % 4 == 2 || int($4 / 128) % 2 == 1 { print $5 }' "$MANIFEST" | sort)
	[ -n "$want" ] && [ "$(jq -r .path "$OUT" | sort)" = "$want" ] || { show_output; false; }
}

@test "opensnoop: -F makes relative paths absolute, from the directory fd or the working directory" {
	start_opener "$OPENER"
	start_tool opensnoop -F -p "$WL_PID"
	run_opener
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	grep -Eq "^$WL_PID +opener +[0-9]+ +0 $DIR/relative\$" "$OUT" || { show_output; false; }
	! grep -q ' relative$' "$OUT" || { show_output; false; }
	run --separate-stderr opensnoop -F -j -c "sh -c 'cd $DIR && : >cwdfile && cat cwdfile && sleep 0.5'"
	[ "$status" -eq 0 ] || { show_run; false; }
	[ "$(jq -r 'select(.path == "cwdfile") | [.comm, .full_path] | join(" ")' <<<"$output")" = "sh $DIR/cwdfile"$'\n'"cat $DIR/cwdfile" ] ||
		{ show_run; false; }
}

@test "opensnoop: -u keeps one user's opens, system wide" {
	start_opener setpriv --reuid=65534 --regid=65534 --clear-groups "$OPENER"
	start_tool opensnoop -u 65534
	cat /etc/hostname >/dev/null		# root's: left out
	run_opener
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	same_opens "$WL_PID"
	[ "$(awk 'NR > 1 && $1 != p' p="$WL_PID" "$OUT")" = "" ] || { show_output; false; }
	assert_clean
}
