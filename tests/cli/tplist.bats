#!/usr/bin/env bats
# tplist's options, errors and --help, and its USDT listing of the ELF
# fixtures (reading files needs no privilege; nothing here traces).

bats_require_minimum_version 1.5.0

load ../elf



usage_hint="Try 'tplist --help' for more information."

@test "tplist: -h and --help print usage with examples on stdout" {
	for h in -h --help; do
		run --separate-stderr tplist "$h"
		[ "$status" -eq 0 ] && [ -z "$stderr" ]
		[[ "$output" == *"USAGE: tplist [-hjv] [-p PID | -l BINARY] [filter]"* ]]
		[[ "$output" == *"EXAMPLES:"* ]]
		[[ "$output" == *"tplist -l libc "* ]]
	done
}

@test "tplist: usage errors exit 2 with one reason" {
	expect_error 2 "tplist: invalid option '-Q'"$'\n'"$usage_hint" tplist -Q
	expect_error 2 "tplist: invalid option '--nope'"$'\n'"$usage_hint" tplist --nope
	expect_error 2 "tplist: option '-p' needs an argument"$'\n'"$usage_hint" tplist -p
	expect_error 2 "tplist: option '-l' needs an argument"$'\n'"$usage_hint" tplist -l
	expect_error 2 "tplist: invalid number for -p: 'abc'"$'\n'"$usage_hint" tplist -p abc
	expect_error 2 "tplist: -p must be between 1 and 1073741824: '0'"$'\n'"$usage_hint" tplist -p 0
	expect_error 2 "tplist: -l needs a binary or library name"$'\n'"$usage_hint" tplist -l ''
	expect_error 2 "tplist: unexpected argument 'b' (one filter)"$'\n'"$usage_hint" tplist 'a*' b
}

@test "tplist: runtime errors exit 1 with one line" {
	expect_error 1 "tplist: cannot find '/no/such/file': No such file or directory" \
		tplist -l /no/such/file
	expect_error 1 "tplist: '/etc/passwd' is not an ELF file" tplist -l /etc/passwd
	expect_error 1 "tplist: cannot find 'libnosuchlibrary': no such program or library" \
		tplist -l libnosuchlibrary
	expect_error 1 "tplist: no process 1073741823" tplist -p 1073741823
}

@test "tplist: -l lists each USDT probe once, in note order" {
	require_fixtures
	for f in usdt-pie usdt-nopie; do
		run --separate-stderr tplist -l "$FIX/$f"
		[ "$status" -eq 0 ] && [ -z "$stderr" ]
		[ "$output" = "$FIX/$f tk:regs
$FIX/$f tk:mem
$FIX/$f tk:imm
$FIX/$f tk:bad
$FIX/$f tk:hand_sema
$FIX/$f tk2:twice
$FIX/$f tk:compiled" ] || { echo "# $output"; false; }
	done
}

@test "tplist: the filter is a glob on provider:name" {
	require_fixtures
	run --separate-stderr tplist -l "$FIX/usdt-pie" 'tk:*sema*'
	[ "$status" -eq 0 ] && [ "$output" = "$FIX/usdt-pie tk:hand_sema" ]
	run --separate-stderr tplist -l "$FIX/usdt-pie" 'tk2:*'
	[ "$output" = "$FIX/usdt-pie tk2:twice" ]
	run --separate-stderr tplist -l "$FIX/usdt-pie" 'nomatch:*'
	[ "$status" -eq 0 ] && [ -z "$output" ] && [ -z "$stderr" ]
}

@test "tplist: an ELF file without USDT notes lists nothing, exit 0 (as bcc)" {
	run --separate-stderr tplist -l /bin/sh
	[ "$status" -eq 0 ] && [ -z "$output" ] && [ -z "$stderr" ]
}



@test "tplist: -v shows sites, file offsets, specs, fetch args and semaphores" {
	require_fixtures
	local f=$FIX/usdt-pie pc sema t1 t2
	# the fixture's call sites are global labels: nm gives them independently
	pc=$(sym "$f" tk_usdt_sema)
	sema=$(sym "$f" tk_hand_sema_semaphore)
	run --separate-stderr tplist -l "$f" -v 'tk:hand_sema'
	[ "$status" -eq 0 ]
	[ "$output" = "$f tk:hand_sema
  semaphore: $sema (file offset $(off "$f" .probes "$sema"))
  location #1: $pc (file offset $(off "$f" .text "$pc")), uprobe not defined
    args: 4@%edi
    fetch: arg1=%di:u32" ] || { echo "# $output"; false; }
	t1=$(sym "$f" tk_usdt_twice1) t2=$(sym "$f" tk_usdt_twice2)
	run --separate-stderr tplist -l "$f" -v 'tk2:twice'
	[ "$output" = "$f tk2:twice
  location #1: $t1 (file offset $(off "$f" .text "$t1")), uprobe not defined
    args: (none)
  location #2: $t2 (file offset $(off "$f" .text "$t2")), uprobe not defined
    args: (none)" ] || { echo "# $output"; false; }
	run --separate-stderr tplist -l "$f" -v 'tk:imm'
	[ "${lines[2]}" = '    args: -4@$5 -4@$-5 8@$0x10 -2@$-1' ]
	[ "${lines[3]}" = '    fetch: arg1=\5:s32 arg2=\0xfffffffb:s32 arg3=\16:u64 arg4=\0xffff:s16' ]
	run --separate-stderr tplist -l "$f" -v 'tk:bad'
	[[ "${lines[3]}" == "    fetch: arg1=? (8@(%rax,%rdx,8): indexed memory operand"* ]]
}

@test "tplist: -v on a fixed-address executable: addresses differ from offsets" {
	require_fixtures
	local f=$FIX/usdt-nopie pc sema
	pc=$(sym "$f" tk_usdt_regs)
	sema=$(sym "$f" tk_hand_sema_semaphore)
	[ "$(off "$f" .text "$pc")" != "$pc" ]
	run --separate-stderr tplist -l "$f" -v 'tk:regs'
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  location #1: $pc (file offset $(off "$f" .text "$pc")), uprobe not defined" ] ||
		{ echo "# $output"; false; }
	[ "${lines[3]}" = "    fetch: arg1=%bx:s32 arg2=%ax:u64 arg3=%ax:u32 arg4=%r9:u16 arg5=%ax:b8@8/64 arg6=%di:s8 arg7=%r15:u64 arg8=%cx:s32" ]
	run --separate-stderr tplist -l "$f" -v 'tk:hand_sema'
	[ "${lines[1]}" = "  semaphore: $sema (file offset $(off "$f" .probes "$sema"))" ] ||
		{ echo "# $output"; false; }
}

@test "tplist: -j gives one object per probe with documented keys" {
	require_fixtures
	local f=$FIX/usdt-pie
	run --separate-stderr tplist -j -l "$f" 'tk2:*'
	[ "$output" = "{\"type\":\"usdt\",\"path\":\"$f\",\"provider\":\"tk2\",\"name\":\"twice\"}" ]
	run --separate-stderr tplist -j -v -l "$f" 'tk:hand_sema'
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "{\"type\":\"usdt\",\"path\":\"$f\",\"provider\":\"tk\",\"name\":\"hand_sema\",\"semaphore\":{\"addr\":"*",\"offset\":"*",\"value\":null},\"locations\":[{\"addr\":"*",\"offset\":"*",\"uprobe\":false,\"args\":[\"4@%edi\"],\"fetchargs\":[{\"name\":\"arg1\",\"fetch\":\"arg1=%di:u32\",\"refused\":null}],\"refused\":null}]}" ]] ||
		{ echo "# $output"; false; }
	if command -v python3 >/dev/null; then
		tplist -j -v -l "$f" | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]'
	fi
}

@test "tplist: tracepoints without privilege: exit 1, one line" {
	command -v setpriv >/dev/null || skip "requires: setpriv (util-linux)"
	[ "$(id -u)" = 0 ] || skip "requires: root (to drop privilege)"
	for v in "" -v; do
		run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$TAPKIT_BIN/tplist" $v
		[ "$status" -eq 1 ] && [ -z "$output" ]
		[ "$stderr" = "tplist: cannot read the tracing filesystem: tracing needs root" ]
	done
}
