#!/usr/bin/env bats
# procfs("name").read/.write, input.char/input.line and $value: the
# script's own FIFOs under /run/tapkit/PID/ and its standard input.  No
# tracing: these run wherever tapkit can create /run/tapkit (root).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	TOP=${TAPKIT_TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BIN=${TAPKIT_BIN:-$TOP/build/bin}
	[ "$(id -u)" = 0 ] || skip "requires: root (for /run/tapkit)"
	PID=
}

teardown() {
	[ -z "${PID:-}" ] || { kill -KILL "$PID"; wait "$PID"; } 2>/dev/null || true
}

# start SCRIPT [ARGS...]: tapkit in the background, its stdin from
# $BATS_TEST_TMPDIR/in (empty unless the test wrote it); $PID, $DIR
start() {
	local ready=$BATS_TEST_TMPDIR/ready i
	OUT=$BATS_TEST_TMPDIR/out ERR=$BATS_TEST_TMPDIR/err
	[ -e "$BATS_TEST_TMPDIR/in" ] || : >"$BATS_TEST_TMPDIR/in"
	rm -f "$ready"
	TAPKIT_READY_FILE=$ready "$BIN/tapkit" "$@" >"$OUT" 2>"$ERR" \
		<"$BATS_TEST_TMPDIR/in" &
	PID=$!
	DIR=/run/tapkit/$PID
	for i in $(seq 1 200); do
		[ -e "$ready" ] && return 0
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "# tapkit did not start: $(cat "$ERR")"
	return 1
}

# compile_error SCRIPT MESSAGE: -p2 of SCRIPT fails with MESSAGE first
compile_error() {
	run --separate-stderr "$BIN/tapkit" -p2 -e "$1"
	[ "$status" -eq 1 ] || { echo "# $1: status $status"; return 1; }
	[ "${stderr_lines[0]}" = "$2" ] || { echo "# $1: $stderr"; return 1; }
}

# stop: SIGINT, its exit status in $STATUS
stop() {
	kill -INT "$PID"
	STATUS=0
	wait "$PID" || STATUS=$?
	PID=
}

@test "procfs read: each reader fires the probe and gets its \$value" {
	start -e 'global n
probe procfs("count").read { n++; $value = sprintf("read %d\n", n) }
probe procfs.read { $value = "default name\n" }
probe end { printf("n=%d\n", n) }'
	[ "$(stat -c '%F %a' "$DIR/count")" = "fifo 444" ]
	[ "$(cat "$DIR/count")" = "read 1" ]
	[ "$(cat "$DIR/count")" = "read 2" ]
	[ "$(head -c 4 "$DIR/count")" = "read" ]
	[ "$(cat "$DIR/count")" = "read 4" ]
	[ "$(cat "$DIR/command")" = "default name" ]
	stop
	[ "$STATUS" -eq 0 ] || { cat "$ERR"; false; }
	[ "$(cat "$OUT")" = "n=4" ]
	[ ! -e "$DIR" ]
}

@test "procfs read: \$value grows past MAXSTRINGLEN, .maxsize cuts it" {
	start -e '
probe procfs("big").read { for (i = 0; i < 200; i++) $value .= sprintf("line %03d\n", i) }
probe procfs("cut").read.maxsize(20) { $value = "0123456789abcdefghijKLMN" }
probe procfs("back").read { $value = "ab"; $value .= "cd"; $value = $value . "|" . $value }'
	run cat "$DIR/big"
	[ "${#lines[@]}" -eq 200 ]
	[ "${lines[0]}" = "line 000" ]
	[ "${lines[199]}" = "line 199" ]
	[ "$(wc -c <"$DIR/big")" -eq 1800 ]
	[ "$(cat "$DIR/cut")" = "0123456789abcdefghij" ]
	[ "$(cat "$DIR/back")" = "abcd|abcd" ]
	stop
	[ "$STATUS" -eq 0 ]
}

@test "procfs write: each writer's text, at its close, in \$value" {
	start -e 'probe procfs("in").write { printf("[%s] %d\n", $value, strlen($value)) }
probe procfs("mode").umask(0022).write { }'
	[ "$(stat -c '%F %a' "$DIR/in")" = "fifo 200" ]
	[ "$(stat -c '%a' "$DIR/mode")" = "200" ]
	# writers back to back, before tapkit reads, would come in one
	# firing (a FIFO does not say where one writer's text ends)
	echo hello >"$DIR/in"
	sleep 0.2
	printf 'two\nlines' >"$DIR/in"
	sleep 0.2
	{ printf 'a'; sleep 0.2; printf 'b'; } >"$DIR/in"
	sleep 0.3
	stop
	[ "$STATUS" -eq 0 ]
	[ "$(cat "$OUT")" = "[hello
] 6
[two
lines] 9
[ab] 2" ] || { cat "$OUT"; false; }
	[ ! -e "$DIR" ]
}

@test "input.char and input.line: standard input, byte by byte and by line" {
	printf 'ab\ncd\nlast' >"$BATS_TEST_TMPDIR/in"
	start -e 'global chars
probe input.char { chars .= sprintf("<%s>", $value == "\n" ? "NL" : $value) }
probe input.line { printf("line [%s]\n", $value); if ($value == "last") exit() }
probe end { println(chars) }'
	STATUS=0
	wait "$PID" || STATUS=$?
	PID=
	[ "$STATUS" -eq 0 ]
	[ "$(cat "$OUT")" = "line [ab]
line [cd]
line [last]
<a><b><NL><c><d><NL><l><a><s><t>" ] || { cat "$OUT"; false; }
}

@test "procfs and input errors: located, at compile time or at start, nothing left" {
	compile_error 'probe procfs("a/b").read { }' \
		"<input>:1:14: error: a procfs file name is one path component, not empty"
	compile_error 'probe procfs("x").open { }' \
		"<input>:1:19: error: expected procfs(\"name\").read or .write"
	compile_error 'probe procfs("x").write.maxsize(9) { }' \
		"<input>:1:25: error: unexpected component after procfs(...).read/.write"
	compile_error 'probe input.word { }' \
		"<input>:1:7: error: expected input.char or input.line"
	compile_error 'probe procfs("x").read { $value += 1 }' \
		"<input>:1:26: error: \$value is a string: only = and .= write it"
	# one name read and written: refused when the run starts
	run --separate-stderr "$BIN/tapkit" -e 'probe procfs("rw").read { } probe procfs("rw").write { }'
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = 'tapkit: procfs("rw") has .read and .write probes: a file is read or written, not both' ] ||
		{ echo "# $stderr"; false; }
	[ -z "$(ls /run/tapkit 2>/dev/null | grep -x "[0-9]*" | while read -r p; do kill -0 "$p" 2>/dev/null || echo "$p"; done)" ]
}

@test "-p2 names the FIFO and the input each probe uses" {
	run --separate-stderr "$BIN/tapkit" -p2 -e 'probe procfs("f").read { } probe procfs("g").write { }
probe input.line { } probe prometheus { }'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$(grep -A1 '^procfs\|^input' <<<"$output")" = 'procfs("f").read /* <- procfs("f").read */
  # mechanism: FIFO /run/tapkit/PID/f: each reader fires the handler and reads $value
procfs("g").write /* <- procfs("g").write */
  # mechanism: FIFO /run/tapkit/PID/g: each writer'"'"'s text in $value, at its close
input.line /* <- input.line */
  # mechanism: standard input, a line at a time in $value
procfs("__prometheus").read.maxsize(65536) /* <- prometheus */
  # mechanism: FIFO /run/tapkit/PID/__prometheus: each reader fires the handler and reads $value; also GET /metrics with --prometheus' ] || { echo "$output"; false; }
}

@test "prometheus: @prometheus_dump_array1..3 lines, keys quoted, served by the FIFO" {
	start -e 'global a, b, c
probe begin { a["x"] = 3; a["y\"z"] = 10; b[1, "two"] = 12; c["p", 2, "q"] = -1 }
probe prometheus {
	@prometheus_dump_array1(a, "one", "k")
	@prometheus_dump_array2(b, "two", "n", "s")
	@prometheus_dump_array3(c, "three", "a", "b", "c")
}'
	[ "$(cat "$DIR/__prometheus")" = 'one{k="x"} 3
one{k="y\"z"} 10
two{n="1",s="two"} 12
three{a="p",b="2",c="q"} -1' ] || { cat "$DIR/__prometheus"; false; }
	stop
	[ "$STATUS" -eq 0 ]
}

@test "--cleanup removes the procfs files of a tapkit that was killed, and only those" {
	start -e 'probe procfs("left").read { $value = "x" }'
	local dead=$DIR
	kill -KILL "$PID"
	wait "$PID" 2>/dev/null || true
	PID=
	[ -p "$dead/left" ]
	start -e 'probe procfs("alive").read { $value = "y\n" }'
	run --separate-stderr "$BIN/tapkit" --cleanup
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ ! -e "$dead" ]
	[ "$(cat "$DIR/alive")" = "y" ]
	stop
	[ "$STATUS" -eq 0 ]
	[ ! -e "$DIR" ]
}

@test "json: metadata.json describes the metrics as added, data.json has each read's values" {
	start -e 'global reads
probe begin {
	json_set_prefix("demo")
	json_add_numeric_metric("reads", "Reads of the file", "count")
	json_add_string_metric("who", "A \"name\"")
	json_add_array("procs", "Per process")
	json_add_array_numeric_metric("procs", "calls", "Calls", "")
	json_add_array_string_metric("procs", "comm", "")
}
probe json_data {
	reads++
	@json_output_data_start
	@json_output_numeric_value("reads", reads)
	@json_output_string_value("who", "tap\tkit\001")
	@json_output_array_numeric_value("procs", "12", "calls", 5)
	@json_output_array_string_value("procs", "12", "comm", "a\"b\\")
	@json_output_array_numeric_value("procs", "13", "calls", 7)
	@json_output_data_end
}'
	# the tapset's own probe serves metadata.json, byte for byte
	cmp "$DIR/metadata.json" "$BATS_TEST_DIRNAME/json_meta.json"
	[ "$(jq -c . "$DIR/data.json")" = '{"reads":1,"who":"tap\tkit\u0001","procs":[{"__id":"12","calls":5,"comm":"a\"b\\"},{"__id":"13","calls":7}]}' ]
	[ "$(jq -r .reads "$DIR/data.json")" = 2 ]
	stop
	[ "$STATUS" -eq 0 ] || { cat "$ERR"; false; }
	[ ! -e "$DIR" ]
}

@test "json: a metric added or output twice is an error; a script without the tapset has no metadata.json" {
	start -e 'probe json_data {
	@json_output_data_start
	@json_output_numeric_value("a", 1)
	@json_output_numeric_value("a", 2)
	@json_output_data_end
}'
	cat "$DIR/data.json" >/dev/null
	stop
	[ "$STATUS" -eq 1 ]
	grep -Fq "ERROR: Metric 'a' already output near identifier 'error'" "$ERR" || { cat "$ERR"; false; }
	start -e 'probe procfs("again").read {
	@json_output_data_start
	@json_output_array_numeric_value("r", "1", "x", 1)
	@json_output_array_numeric_value("r", "2", "x", 1)
	@json_output_array_numeric_value("r", "1", "y", 1)
	@json_output_data_end
}'
	cat "$DIR/again" >/dev/null
	stop
	[ "$STATUS" -eq 1 ]
	grep -Fq "ERROR: Array index '1' already output for array metric r near identifier 'error'" "$ERR" ||
		{ cat "$ERR"; false; }
	run --separate-stderr "$BIN/tapkit" -e 'probe begin { json_add_string_metric("s", ""); json_add_array("s", "") }'
	[ "$status" -eq 1 ]
	[[ ${stderr_lines[0]} == "ERROR: Metric 's' already exists near identifier 'error' at "*/json.stp:47:3 ]] ||
		{ echo "# $stderr"; false; }
	start -e 'probe procfs("x").read { $value = "x\n" }'
	[ -e "$DIR/x" ] && [ ! -e "$DIR/metadata.json" ] && [ ! -e "$DIR/data.json" ]
	stop
}
