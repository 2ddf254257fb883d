/*
 * fuzz: the libFuzzer entry point every target in tests/fuzz/ defines.
 * Built with clang -fsanitize=fuzzer under -Dfuzzers=true; otherwise linked
 * with replay.c, which feeds it each file of the target's seed corpus so
 * every CI build exercises the corpora (suite fuzz-replay).
 */
#ifndef EVALSET_FUZZ_H
#define EVALSET_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write 'size' bytes to a private temporary file and return its path
 * (static buffer, overwritten by the next call), for path-based parsers. */
const char *fuzz_temp_file(const uint8_t *data, size_t size);

#endif
