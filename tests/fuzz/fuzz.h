/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_FUZZ_H
#define TAPKIT_FUZZ_H

/*
 * One fuzz target per file, built two ways:
 * - with -DFUZZ_LIBFUZZER by clang -fsanitize=fuzzer (`make fuzz`), where
 *   FUZZ_TARGET(name) is libFuzzer's entry point;
 * - included by tests/unit/test_fuzz_replay.c (`make check`), where it is
 *   fuzz_<name>(), called on every file of tests/fuzz/<name>/.
 * A target returns 0; finding a bug means crashing (or a sanitizer report).
 */
#include <stddef.h>
#include <stdint.h>

#ifdef FUZZ_LIBFUZZER
#define FUZZ_TARGET(name)						\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);	\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#else
#define FUZZ_TARGET(name)						\
	static int fuzz_##name(const uint8_t *data, size_t size)
#endif

#endif
