#!/usr/bin/env bats
# uprobe's options, definition errors and --help, and -l against the ELF
# fixtures (reading files needs no privilege; nothing here traces).

bats_require_minimum_version 1.5.0

load ../elf


hint="Try 'uprobe --help' for more information."

# the function symbols of FILE, from readelf (not tapkit's code)
funcs() {
	readelf -sW "$1" | awk '($4 == "FUNC" || $4 == "IFUNC") && $7 != "UND" {
		sub(/@.*/, "", $8); print $8 }' | LC_ALL=C sort -u
}

@test "uprobe: -h and --help print usage with examples on stdout" {
	for h in -h --help; do
		run --separate-stderr uprobe "$h"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[[ "$output" == *"USAGE: uprobe [-hHsvj] [-d SECS] [-p PID] [-t TID] [-b KB]"* ]]
		[[ "$output" == *"uprobe -l TARGET"* ]]
		[[ "$output" == *"EXAMPLES:"* ]]
		[[ "$output" == *"uprobe 'r:bash:readline +0(\$retval):string'"* ]]
	done
}

@test "uprobe: option errors exit 2 with one reason" {
	expect_error 2 "uprobe: invalid option '-Q'"$'\n'"$hint" uprobe -Q
	expect_error 2 "uprobe: invalid option '--nope'"$'\n'"$hint" uprobe --nope
	expect_error 2 "uprobe: option '-p' needs an argument"$'\n'"$hint" uprobe -p
	expect_error 2 "uprobe: option '-l' needs an argument"$'\n'"$hint" uprobe -l
	expect_error 2 "uprobe: invalid number for -d: 'x'"$'\n'"$hint" uprobe -d x p:libc:malloc
	expect_error 2 "uprobe: -p must be between 1 and 1073741824: '0'"$'\n'"$hint" uprobe -p 0 p:libc:malloc
	expect_error 2 "uprobe: -p and -t cannot be used together"$'\n'"$hint" uprobe -p 1 -t 1 p:libc:malloc
	expect_error 2 "uprobe: no uprobe definition given (p:TARGET:FUNC, or -l TARGET)"$'\n'"$hint" uprobe
	expect_error 2 "uprobe: -l takes a target only, not 'p:libc:malloc'"$'\n'"$hint" uprobe -l libc p:libc:malloc
	expect_error 2 "uprobe: -l needs a target (a path, program or library)"$'\n'"$hint" uprobe -l ''
	expect_error 2 "uprobe: -v and -d cannot be used together"$'\n'"$hint" uprobe -v -d 1 p:libc:malloc
	expect_error 2 "uprobe: unexpected argument 'x' (quote the definition and the filter)"$'\n'"$hint" \
		uprobe p:libc:malloc 'a == 1' x
}

@test "uprobe: definition errors exit 2 with one reason" {
	expect_error 2 "uprobe: definition must start with p: or r:, not 'x:libc:malloc'"$'\n'"$hint" uprobe x:libc:malloc
	expect_error 2 "uprobe: definition must start with p: or r:, not 'libc:malloc'"$'\n'"$hint" uprobe libc:malloc
	expect_error 2 "uprobe: no target for 'malloc' (TARGET:FUNC, or -p PID for its executable)"$'\n'"$hint" uprobe p:malloc
	expect_error 2 "uprobe: one function, not a pattern: 'mem*'"$'\n'"$hint" uprobe 'p:libc:mem*'
	expect_error 2 "uprobe: the event group is uprobe's own: give only an event name, not 'g/e'"$'\n'"$hint" \
		uprobe 'p:g/e libc:malloc'
	expect_error 2 "uprobe: event name must be a C identifier, not '1x'"$'\n'"$hint" uprobe 'p:1x libc:malloc'
	expect_error 2 "uprobe: no function in 'p:'"$'\n'"$hint" uprobe 'p:'
}

@test "uprobe: -l lists a fixture's functions as readelf does" {
	require_fixtures
	local want
	for f in "$FIX/prog-pie" "$FIX/prog-nopie" "$FIX/libtk.so" "$FIX/prog-stripped"; do
		run --separate-stderr uprobe -l "$f"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		# a stripped object's symbols come from its debug file
		want=$f
		[ "$f" != "$FIX/prog-stripped" ] || want=$f.debug
		[ "$output" = "$(funcs "$want")" ] || { echo "# $f differs"; diff <(echo "$output") <(funcs "$want"); false; }
	done
	run uprobe -l "$FIX/prog-pie"
	[[ "$output" == *$'\ntk_asm_func\n'* ]]
}

@test "uprobe: -l libc lists the C library's functions" {
	run --separate-stderr uprobe -l libc
	[ "$status" -eq 0 ]
	grep -qx malloc <<<"$output"
	[ "$(grep -c '@' <<<"$output")" -eq 0 ]
}

@test "uprobe: -l of an unknown target is a runtime error" {
	expect_error 1 "uprobe: cannot find '/no/such/file': No such file or directory" uprobe -l /no/such/file
	expect_error 1 "uprobe: cannot find 'tk-no-such-prog': no such program or library" uprobe -l tk-no-such-prog
}
