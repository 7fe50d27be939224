// SPDX-License-Identifier: GPL-2.0
/*
 * Replays the language fuzz target's corpus (tests/fuzz/lang/: scripts of
 * every construct, and each input the fuzzer kept or that once crashed)
 * through the front end, as tapkit -p3 compiles them.
 */
#include "tests/fuzz/fuzz_lang.c"
#include "tests/fuzz/replay.h"

REPLAY(lang)

UNIT_MAIN()
