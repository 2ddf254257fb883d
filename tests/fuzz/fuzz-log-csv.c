/*
 * fuzz-log-csv: the log importer on arbitrary bytes read as CSV, or, when
 * the first byte is a tab, the bytes after it read as TSV (see
 * fuzz-log-common.h for the checks).
 */
#include "fuzz.h"
#include "fuzz-log-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size && data[0] == '\t')
		fuzz_import(data + 1, size - 1, LOG_FORMAT_TSV);
	else
		fuzz_import(data, size, LOG_FORMAT_CSV);
	return 0;
}
