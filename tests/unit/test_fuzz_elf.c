// SPDX-License-Identifier: GPL-2.0
/*
 * Replays the ELF fuzz target's corpus (tests/fuzz/elf/: the ELF test
 * fixtures, PIE and not, stripped, with truncated DWARF, a library and a
 * relocatable object, objects cut short, and each input the fuzzer kept or
 * that once crashed) through the symbol and DWARF readers.
 */
#include "tests/fuzz/fuzz_elf.c"
#include "tests/fuzz/replay.h"

REPLAY(elf)

UNIT_MAIN()
