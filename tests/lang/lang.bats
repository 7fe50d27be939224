#!/usr/bin/env bats
# The script language, end to end: golden scripts (helpers.bash says how
# NAME.stp, NAME.out, NAME.err and the "# tapkit:", "# args:", "# status:"
# lines work), and the behaviours that need a clock or a process.

bats_require_minimum_version 1.5.0

load helpers

@test "abort" {
	golden abort
}

@test "alias" {
	golden alias
}

@test "alias_suffix" {
	golden alias_suffix
}

@test "compile_alias_suffix" {
	golden compile_alias_suffix
}

@test "compile_alias_note" {
	golden compile_alias_note
}

@test "compile_alias_optional" {
	golden compile_alias_optional
}

@test "compile_retired" {
	golden compile_retired
}

@test "alias_wildcard" {
	golden alias_wildcard
}

@test "args" {
	golden args
}

@test "arith" {
	golden arith
}

@test "arith_wrap" {
	golden arith_wrap
}

@test "array_basic" {
	golden array_basic
}

@test "array_delete" {
	golden array_delete
}

@test "array_multikey" {
	golden array_multikey
}

@test "array_overflow" {
	golden array_overflow
}

@test "array_wildcard" {
	golden array_wildcard
}

@test "autoprint" {
	golden autoprint
}

@test "begin_end_order" {
	golden begin_end_order
}

@test "bitops" {
	golden bitops
}

@test "compile_arity" {
	golden compile_arity
}

@test "compile_mem" {
	golden compile_mem
}

@test "compile_overload" {
	golden compile_overload
}

@test "compile_probe" {
	golden compile_probe
}

@test "compile_repeat" {
	golden compile_repeat
}

@test "compile_returnstr" {
	golden compile_returnstr
}

@test "compile_syntax" {
	golden compile_syntax
}

@test "compile_target_write" {
	golden compile_target_write
}

@test "compile_types" {
	golden compile_types
}

@test "compile_unresolved" {
	golden compile_unresolved
}

@test "compile_unresolved_type" {
	golden compile_unresolved_type
}

@test "compound" {
	golden compound
}

@test "context" {
	golden context
}

@test "crement" {
	golden crement
}

@test "defined" {
	golden defined
}

@test "defined_prune" {
	golden defined_prune
}

@test "dry_run" {
	golden dry_run
}

@test "error_fn" {
	golden error_fn
}

@test "exit_in_begin" {
	golden exit_in_begin
}

@test "foreach_control" {
	golden foreach_control
}

@test "foreach_keys" {
	golden foreach_keys
}

@test "foreach_limit" {
	golden foreach_limit
}

@test "foreach_modify" {
	golden foreach_modify
}

@test "foreach_order" {
	golden foreach_order
}

@test "foreach_slice" {
	golden foreach_slice
}

@test "foreach_value" {
	golden foreach_value
}

@test "functions" {
	golden functions
}

@test "func_overload" {
	golden func_overload
}

@test "global_init" {
	golden global_init
}

@test "hello" {
	golden hello
}

@test "hist_array" {
	golden hist_array
}

@test "hist_empty" {
	golden hist_empty
}

@test "hist_linear" {
	golden hist_linear
}

@test "hist_log" {
	golden hist_log
}

@test "logical" {
	golden logical
}

@test "macros" {
	golden macros
}

@test "maxaction" {
	golden maxaction
}

@test "maxaction_ok" {
	golden maxaction_ok
}

@test "maxmapentries" {
	golden maxmapentries
}

@test "maxnesting" {
	golden maxnesting
}

@test "maxstringlen" {
	golden maxstringlen
}

@test "never" {
	golden never
}

@test "next_stmt" {
	golden next_stmt
}

@test "no_probes" {
	golden no_probes
}

@test "oneshot" {
	golden oneshot
}

@test "pass1" {
	golden pass1
}

@test "pass2" {
	golden pass2
}

@test "pass3" {
	golden pass3
}

@test "print_family" {
	golden print_family
}

@test "printf_conv" {
	golden printf_conv
}

@test "printf_errors" {
	golden printf_errors
}

@test "recursion_limit" {
	golden recursion_limit
}

@test "regex" {
	golden regex
}

@test "regex_bad" {
	golden regex_bad
}

@test "runtime_div0" {
	golden runtime_div0
}

@test "runtime_mod0" {
	golden runtime_mod0
}

@test "stat_empty" {
	golden stat_empty
}

@test "stats" {
	golden stats
}

@test "stats_array" {
	golden stats_array
}

@test "stats_variance" {
	golden stats_variance
}

@test "stack_flag" {
	golden stack_flag
}

@test "stack_none" {
	golden stack_none
}

@test "stack_callers" {
	golden stack_callers
}

@test "string_funcs" {
	golden string_funcs
}

@test "strings" {
	golden strings
}

@test "strtol" {
	golden strtol
}

@test "tapset_ansi" {
	golden tapset_ansi
}

@test "tapset_ctime" {
	golden tapset_ctime
}

@test "tapset_fp" {
	golden tapset_fp
}

@test "tapset_this" {
	golden tapset_this
}

@test "json_quote" {
	golden json_quote
}

@test "tapset_scope" {
	golden tapset_scope
}

@test "tapset_conversions" {
	golden tapset_conversions
}

@test "tapset_indent" {
	golden tapset_indent
}

@test "tapset_queue_stats" {
	golden tapset_queue_stats
}

@test "tapset_stopwatch" {
	golden tapset_stopwatch
}

@test "ternary" {
	golden ternary
}

@test "timer_exit" {
	golden timer_exit
}

@test "timer_units" {
	golden timer_units
}

@test "tokenize" {
	golden tokenize
}

@test "try_catch" {
	golden try_catch
}

@test "unsupported" {
	golden unsupported
}

@test "unsupported_writes" {
	golden unsupported_writes
}

@test "while_loops" {
	golden while_loops
}

@test "wrap_array" {
	golden wrap_array
}

@test "every golden script has its test and its expected output" {
	local f n missing=()
	for f in "$LANGDIR"/*.stp; do
		n=${f##*/}; n=${n%.stp}
		grep -q "^	golden $n\$" "$BATS_TEST_FILENAME" || missing+=("$n (no @test)")
		[ -f "$LANGDIR/$n.out" ] || missing+=("$n (no .out)")
	done
	[ ${#missing[@]} -eq 0 ] || { echo "# ${missing[*]}"; false; }
}

@test "timer.ms(100) fires 9 to 11 times in -T 1" {
	run --separate-stderr "$BIN/tapkit" -T 1 -e \
		'global n; probe timer.ms(100) { n++ } probe end { println(n) }'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" -ge 9 ] && [ "$output" -le 11 ] || { echo "# fired $output"; false; }
}

@test "-T ends a run that never exits, and end probes run" {
	run --separate-stderr "$BIN/tapkit" -T 1 -e 'probe end { println("end") }'
	[ "$status" -eq 0 ]
	[ "$output" = "end" ]
}

@test "-c: target() is the command's PID, the run ends when it exits" {
	run --separate-stderr "$BIN/tapkit" -c 'echo $$' -e \
		'probe begin { printf("%d\n", target()) } probe end { println("end") }'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "${lines[0]}" = "${lines[1]}" ] || { echo "# $output"; false; }
	[ "${lines[2]}" = "end" ]
	[ "${lines[0]}" -gt 1 ]
}

@test "-c: the command waits until the begin probes ran" {
	run --separate-stderr "$BIN/tapkit" -c 'echo cmd' -e \
		'probe begin { println("begin") }'
	[ "$status" -eq 0 ]
	[ "$output" = $'begin\ncmd' ] || { echo "# $output"; false; }
}

@test "-x PID: the run ends when that process exits" {
	sleep 1 &
	local pid=$!
	run --separate-stderr "$BIN/tapkit" -x "$pid" -e \
		'probe begin { printf("%d\n", target()) } probe end { println("end") }'
	[ "$status" -eq 0 ]
	[ "$output" = "$pid"$'\nend' ] || { echo "# $output"; false; }
}

@test "-o FILE: the script's output goes to FILE" {
	local f=$BATS_TEST_TMPDIR/out.txt
	run --separate-stderr "$BIN/tapkit" -o "$f" -e 'probe begin { println("to the file"); exit() }'
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(cat "$f")" = "to the file" ]
}

@test "SIGINT ends the run and end probes run" {
	"$BIN/tapkit" -e 'probe begin { println("started") } probe end { println("end") }' \
		>"$BATS_TEST_TMPDIR/o" 2>&1 &
	local pid=$!
	sleep 0.3
	kill -INT "$pid"
	wait "$pid"
	[ "$(cat "$BATS_TEST_TMPDIR/o")" = $'started\nend' ]
}

@test "output to a closed pipe ends the run quietly" {
	run bash -c "'$BIN/tapkit' -e 'probe timer.ms(1) { println(\"line\") }' | head -2"
	[ "$status" -eq 0 ]
	[ "$output" = $'line\nline' ]
}

@test "a tapset directory given with -I provides functions and aliases" {
	mkdir -p "$BATS_TEST_TMPDIR/ts"
	cat >"$BATS_TEST_TMPDIR/ts/my.stp" <<'STP'
function double(x) { return 2 * x }
probe my.start = begin { tag = "from tapset" }
STP
	run --separate-stderr "$BIN/tapkit" -I "$BATS_TEST_TMPDIR/ts" -e \
		'probe my.start { printf("%s %d\n", tag, double(21)); exit() }'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$output" = "from tapset 42" ]
}

@test "tz_gmtoff, tz_name and tz_ctime follow TZ as it was at the start" {
	run --separate-stderr env TZ=EST+5 "$BIN/tapkit" -e 'probe begin {
		printf("%d|%s|%s\n", tz_gmtoff(), tz_name(), tz_ctime(0))
		exit() }'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$output" = "18000|EST|Wed Dec 31 19:00:00 1969 EST" ]
	run --separate-stderr env TZ=JST-9 "$BIN/tapkit" -e 'probe begin {
		printf("%d|%s|%s\n", tz_gmtoff(), tz_name(), tz_ctime(0))
		exit() }'
	[ "$output" = "-32400|JST|Thu Jan  1 09:00:00 1970 JST" ]
	run --separate-stderr env TZ=UTC0 "$BIN/tapkit" -e 'probe begin {
		printf("%d|%s|%s\n", tz_gmtoff(), tz_name(), tz_ctime(0))
		exit() }'
	[ "$output" = "0|UTC|Thu Jan  1 00:00:00 1970 UTC" ]
}

@test "raise() in a begin probe signals tapkit itself: SIGINT ends the run" {
	run --separate-stderr timeout 10 "$BIN/tapkit" -e \
		'probe begin { raise(2); println("begin") } probe end { println("end") }'
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$output" = "begin
end" ]
	run --separate-stderr "$BIN/tapkit" -e 'probe begin { raise(0) }'
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "ERROR: raise: invalid signal number 0 near identifier 'raise' at <input>:1:15" ] ||
		{ echo "# $stderr"; false; }
}

@test "%( CONFIG_X %) reads the kernel's configuration, gzip or plain" {
	local cfg=$BATS_TEST_TMPDIR/config
	printf '%s\n' 'CONFIG_YES=y' 'CONFIG_MOD=m' '# CONFIG_NO is not set' \
		'CONFIG_HZ=300' 'CONFIG_NAME="(none)"' >"$cfg"
	local script='probe begin {
	println(%( CONFIG_YES == "y" %? "yes" %: "-" %))
	println(%( CONFIG_MOD == "[ym]" %? "mod" %: "-" %))
	println(%( CONFIG_NO == "y" %? "-" %: "no" %))
	println(%( CONFIG_ABSENT == "" %? "absent" %: "-" %))
	println(%( CONFIG_HZ > 250 %? "hz" %: "-" %))
	println(%( CONFIG_NAME == "(none)" %? "name" %: "-" %))
	exit() }'
	run --separate-stderr env TAPKIT_KCONFIG="$cfg" "$BIN/tapkit" -e "$script"
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$output" = "yes
mod
no
absent
hz
name" ]
	gzip -c "$cfg" >"$cfg.gz"
	run --separate-stderr env TAPKIT_KCONFIG="$cfg.gz" "$BIN/tapkit" -e "$script"
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$(echo "$output" | tr '\n' ' ')" = "yes mod no absent hz name " ]
	# a configuration that cannot be read is an error at the name
	run --separate-stderr env TAPKIT_KCONFIG=/nonexistent "$BIN/tapkit" -p1 -e "$script"
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "<input>:2:13: error: cannot tell CONFIG_YES: cannot read \$TAPKIT_KCONFIG '/nonexistent'" ] ||
		{ echo "# $stderr"; false; }
}

@test "%( CONFIG_HZ %) is the running kernel's, from /proc/config.gz or /boot" {
	local src hz
	if [ -r /proc/config.gz ]; then src=$(zcat /proc/config.gz)
	elif [ -r "/boot/config-$(uname -r)" ]; then src=$(cat "/boot/config-$(uname -r)")
	else skip "the kernel has no /proc/config.gz (CONFIG_IKCONFIG_PROC) and no /boot/config-$(uname -r)"
	fi
	hz=$(sed -n 's/^CONFIG_HZ=//p' <<<"$src")
	run --separate-stderr env -u TAPKIT_KCONFIG "$BIN/tapkit" -e "probe begin {
	println(%( CONFIG_HZ == $hz %? \"same\" %: \"differs\" %))
	println(%( CONFIG_HZ == $((hz + 1)) %? \"differs\" %: \"not $((hz + 1))\" %))
	exit() }"
	[ "$status" -eq 0 ] || { echo "# $stderr"; false; }
	[ "$output" = "same
not $((hz + 1))" ]
}
