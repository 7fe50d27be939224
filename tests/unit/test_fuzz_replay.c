// SPDX-License-Identifier: GPL-2.0
/*
 * Replays each fuzz target's corpus (tests/fuzz/<target>/, the seeds and
 * every input the fuzzer found worth keeping or that once crashed) through
 * the parsers, without libFuzzer.  Built with AddressSanitizer and UBSan
 * (see the Makefile), so an input that reads out of bounds fails here.
 */
#include "tests/fuzz/fuzz_btf.c"
#include "tests/fuzz/fuzz_ldcache.c"
#include "tests/fuzz/fuzz_record.c"
#include "tests/fuzz/fuzz_usdt_arg.c"
#include "tests/fuzz/fuzz_usdt_note.c"
#include "tests/fuzz/fuzz_x86_insn.c"
#include "tests/fuzz/replay.h"

REPLAY(usdt_note)
REPLAY(usdt_arg)
REPLAY(ldcache)
REPLAY(x86_insn)
REPLAY(btf)
REPLAY(record)

UNIT_MAIN()
