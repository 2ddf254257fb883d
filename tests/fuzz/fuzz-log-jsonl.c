/*
 * fuzz-log-jsonl: the log importer on arbitrary bytes read as JSON Lines
 * (see fuzz-log-common.h for the checks).
 */
#include "fuzz.h"
#include "fuzz-log-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(data, size, LOG_FORMAT_JSONL);
	return 0;
}
