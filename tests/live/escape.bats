#!/usr/bin/env bats
# Text columns that cannot be forged: a comm, a string argument, a symbol
# name, a USDT name and a path that hold a newline, ESC and a byte that is
# not UTF-8 are shown escaped (\n \e \xNN), one line per event, and JSON
# gives the exact bytes back (Python's surrogateescape).  And a string
# argument the kernel could not read (NULL) is told from a real "".
# The workload is tests/helpers/rawname, which names itself COMM first,
# and stays a while after its calls: the tools read a comm from /proc
# while the process lives (what they do for a process gone by then is not
# what these tests are about).

load helpers

RAW=$TAPKIT_TOP/build/tests/helpers/rawname
# 9 bytes: a newline, an escape sequence that would turn the terminal bold,
# a byte that starts no UTF-8 sequence
COMM=$'a\nb\e[1mz\xff'
COMM_TEXT='a\nb\e[1mz\xff'

setup() {
	require_root
	[ -x "$RAW" ] || { echo "# $RAW missing: run make tests-build" >&2; return 1; }
}

teardown() {
	stop_leftover_tool
}

# json_bytes FILE EXPR WANT: EXPR (Python, over the list `rows` of FILE's
# JSON lines) is a string whose bytes are WANT's, and WANT has them
json_bytes() {
	python3 - "$@" <<'PY'
import json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
got = eval(sys.argv[2])
want = os.fsencode(sys.argv[3])
assert isinstance(got, str), (got, rows)
assert got.encode("utf-8", "surrogateescape") == want, (got, want, rows)
PY
}

# lines FILE: the number of lines (the last one ended or not)
lines() {
	awk 'END { print NR }' "$1"
}

@test "escape: uprobe shows a comm and a string argument escaped, one line per call" {
	start_held "$RAW" wait-stdin "$COMM" str:$'x\ny\e[31m' str:$'\xfe!' sleep:1000
	start_tool uprobe -p "$WL_PID" "p:$RAW:tk_str s=+0(%di):string"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(lines "$OUT")" -eq 2 ] || { show_output; false; }
	grep -Fq "$COMM_TEXT-$WL_PID " "$OUT" || { show_output; false; }
	[ "$(grep -Fc "$COMM_TEXT-$WL_PID " "$OUT")" -eq 2 ]
	grep -Fq 's="x\ny\e[31m"' <(sed -n 1p "$OUT") || { show_output; false; }
	grep -Fq 's="\xfe!"' <(sed -n 2p "$OUT") || { show_output; false; }
	! grep -q $'\e' "$OUT"
	assert_clean
}

@test "escape: uprobe -j gives the comm's and the argument's exact bytes" {
	start_held "$RAW" wait-stdin "$COMM" str:$'x\ny\e[31m\xfe' sleep:1000
	start_tool uprobe -j -p "$WL_PID" "p:$RAW:tk_str s=+0(%di):string"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(lines "$OUT")" -eq 1 ] || { show_output; false; }
	json_bytes "$OUT" 'rows[0]["comm"]' "$COMM"
	json_bytes "$OUT" 'rows[0]["args"]["s"]' $'x\ny\e[31m\xfe'
}

@test "fault: uprobe prints a NULL string as (fault) and a real empty one as \"\"" {
	start_held "$RAW" wait-stdin faulty empty null str:z null
	start_tool uprobe -p "$WL_PID" "p:$RAW:tk_str s=+0(%di):string n=%di:x64 t=+0(%di):string"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(lines "$OUT")" -eq 4 ] || { show_output; false; }
	sed -n 1p "$OUT" | grep -Eq ': tk_str: \(0x[0-9a-f]+\) s="" n=0x[0-9a-f]+ t=""$' || { show_output; false; }
	sed -n 2p "$OUT" | grep -Eq ': tk_str: \(0x[0-9a-f]+\) s=\(fault\) n=0x0 t=\(fault\)$' || { show_output; false; }
	sed -n 3p "$OUT" | grep -Eq ': tk_str: \(0x[0-9a-f]+\) s="z" n=0x[0-9a-f]+ t="z"$' || { show_output; false; }
	sed -n 4p "$OUT" | grep -Eq ': tk_str: \(0x[0-9a-f]+\) s=\(fault\) n=0x0 t=\(fault\)$' || { show_output; false; }
}

@test "fault: uprobe -j gives null for a NULL string and \"\" for an empty one" {
	start_held "$RAW" wait-stdin faulty empty null str:z
	start_tool uprobe -j -p "$WL_PID" "p:$RAW:tk_str s=+0(%di):string"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	python3 - "$OUT" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["args"]["s"] for r in rows] == ["", None, "z"], rows
PY
}

@test "escape: killsnoop shows the sender's comm escaped; -j gives its bytes" {
	start_held "$RAW" wait-stdin "$COMM" kill sleep:1000
	start_tool killsnoop -p "$WL_PID"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	# the header and one signal
	[ "$(lines "$OUT")" -eq 2 ] || { show_output; false; }
	grep -Eq "^[0-9:]{8} +$WL_PID +a\\\\nb\\\\e\[1mz\\\\xff +0 +$WL_PID +0 +kill\$" "$OUT" || { show_output; false; }

	start_held "$RAW" wait-stdin "$COMM" kill sleep:1000
	start_tool killsnoop -j -p "$WL_PID"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	[ "$(lines "$OUT")" -eq 1 ] || { show_output; false; }
	json_bytes "$OUT" 'rows[0]["comm"]' "$COMM"
}

@test "escape: syscount -P shows the comm escaped; -j gives its bytes" {
	# the names are looked up at the summary: the process lives until then
	start_tool syscount -P -T 100000
	"$RAW" "$COMM" getppid getppid getppid sleep:5000 &
	WL_PID=$!
	settle 1
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -c "^$WL_PID " "$OUT")" -eq 1 ] || { show_output; false; }
	grep -Eq "^$WL_PID +a\\\\nb\\\\e\[1mz\\\\xff +[0-9]+\$" "$OUT" || { show_output; false; }
	! grep -q $'\e' "$OUT"

	kill "$WL_PID"
	wait "$WL_PID" || true

	start_tool syscount -j -P --top 100000
	"$RAW" "$COMM" getppid sleep:5000 &
	WL_PID=$!
	settle 1
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	kill "$WL_PID"
	wait "$WL_PID" || true
	[ "$(lines "$OUT")" -eq 1 ] || { show_output; false; }
	json_bytes "$OUT" '[p for p in rows[0]["processes"] if p["pid"] == '"$WL_PID"'][0]["comm"]' "$COMM"
}

@test "escape: tpoint escapes the comm column and a tracepoint's string field" {
	start_held "$RAW" wait-stdin "$COMM" getppid getppid sleep:1000
	start_tool tpoint -p "$WL_PID" syscalls:sys_enter_getppid
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(lines "$OUT")" -eq 2 ] || { show_output; false; }
	[ "$(grep -Fc "$COMM_TEXT-$WL_PID " "$OUT")" -eq 2 ] || { show_output; false; }

	# task_rename's newcomm is the name the process gives itself
	start_tool tpoint task:task_rename
	"$RAW" "$COMM"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ]
	[ "$(grep -Fc "newcomm=$COMM_TEXT " "$OUT")" -eq 1 ] || { show_output; false; }
	# every line is one event
	[ "$(grep -Evc '^ *.+-[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: task_rename: ' "$OUT")" -eq 0 ] ||
		{ show_output; false; }

	start_tool tpoint -j task:task_rename
	"$RAW" "$COMM"
	settle
	stop_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	python3 - "$OUT" "$COMM" <<'PY'
import json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want = os.fsencode(sys.argv[2])
hits = [r for r in rows
        if r["fields"]["newcomm"].encode("utf-8", "surrogateescape") == want]
assert len(hits) == 1, rows
PY
}

# odd_binary: a copy of rawname whose tk_str is named with a newline, an
# escape sequence and a byte that is not UTF-8 ($ODD, $ODD_NAME)
odd_binary() {
	ODD=$BATS_TEST_TMPDIR/rawodd
	ODD_NAME=$'tk_\n\e[31mx\xff'
	objcopy --redefine-sym tk_str="$ODD_NAME" "$RAW" "$ODD"
}

@test "escape: funccount shows a symbol's name escaped; -j gives its bytes" {
	odd_binary
	start_held "$ODD" wait-stdin odd str:a str:b null
	start_tool funccount -p "$WL_PID" "$ODD:tk_*"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	grep -Eq '^tk_\\n\\e\[31mx\\xff +3$' "$OUT" || { show_output; false; }
	! grep -q $'\e' "$OUT"

	start_held "$ODD" wait-stdin odd str:a null
	start_tool funccount -j -p "$WL_PID" "$ODD:tk_*"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	json_bytes "$OUT" '[c for c in rows[-1]["counts"] if c["count"] == 2][0]["func"]' "$ODD_NAME"
}

@test "escape: funclatency -F shows a symbol's name escaped; -j gives its bytes" {
	odd_binary
	start_held "$ODD" wait-stdin odd str:a str:b
	start_tool funclatency -F -p "$WL_PID" "$ODD:tk_*"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	grep -Fxq 'Function = tk_\n\e[31mx\xff' "$OUT" || { show_output; false; }
	! grep -q $'\e' "$OUT"

	start_held "$ODD" wait-stdin odd str:a
	start_tool funclatency -j -F -p "$WL_PID" "$ODD:tk_*"
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	json_bytes "$OUT" 'rows[-1]["functions"][0]["function"]' "$ODD_NAME"
}

@test "escape: tplist shows a USDT name and a path escaped; -j gives their bytes" {
	dir=$BATS_TEST_TMPDIR/$'u\nsdt'
	mkdir "$dir"
	# the probe tk:compiled renamed in the notes, same length
	python3 - "$TAPKIT_TOP/build/tests/elf/usdt-pie" "$dir/p" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
assert b.count(b"\0compiled\0") >= 1
open(sys.argv[2], "wb").write(b.replace(b"\0compiled\0", b"\0c\nm\x1b[1md\0"))
PY
	run --separate-stderr tplist -l "$dir/p"
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[[ $output == *'/u\nsdt/p tk:c\nm\e[1md'* ]] || { echo "# $output"; false; }
	[[ $output != *$'\e'* ]]
	# one line per probe: every line names the object
	[ "$(grep -vc '/u\\nsdt/p tk2\?:' <<<"$output")" -eq 0 ] || { echo "# $output"; false; }

	tplist -j -l "$dir/p" >"$BATS_TEST_TMPDIR/j"
	json_bytes "$BATS_TEST_TMPDIR/j" '[r for r in rows if r["name"].startswith("c")][0]["name"]' $'c\nm\e[1md'
	json_bytes "$BATS_TEST_TMPDIR/j" 'rows[0]["path"]' "$dir/p"
}

@test "escape: kprobe shows a path escaped, one line per open; -j gives its bytes" {
	require_tracefs_file kprobe_events
	KOPEN=$TAPKIT_TOP/build/tests/helpers/kopen
	p=$BATS_TEST_TMPDIR/$'k\np\e[7m\xfe'
	: >"$p"
	start_held "$KOPEN" wait-stdin "$p" 2
	start_tool kprobe -p "$WL_PID" 'p:do_sys_openat2 f=+0(%si):string'
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ]
	want="f=\"$BATS_TEST_TMPDIR/k\\np\\e[7m\\xfe\""
	[ "$(grep -cF "$want" "$OUT")" -eq 2 ] || { show_output; false; }
	[ "$(grep -cv ': do_sys_openat2: ' "$OUT")" -eq 0 ] || { show_output; false; }

	start_held "$KOPEN" wait-stdin "$p" 1
	start_tool kprobe -j -p "$WL_PID" 'p:do_sys_openat2 f=+0(%si):string'
	release_workload
	wait_tool
	[ "$TOOL_RC" -eq 0 ] || { show_output; false; }
	json_bytes "$OUT" '[r for r in rows if r["args"]["f"].startswith("/")][0]["args"]["f"]' "$p"
}
