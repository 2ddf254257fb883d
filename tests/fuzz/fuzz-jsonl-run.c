/*
 * fuzz-jsonl-run: the JSONL run reader on arbitrary bytes. A fixed meta line
 * is put first so the content is always read as JSONL (the format is
 * detected from the first line); whatever loads must pass check_run.
 */
#include "fuzz.h"
#include "fuzz-run-common.h"
#include "base/error.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char meta[] = "{\"meta\": {\"name\": \"fuzz\"}}\n";
	char *buf = xmalloc(sizeof(meta) - 1 + size + 1);
	struct run r;

	set_error_routine(quiet);
	set_warning_routine(quiet);
	memcpy(buf, meta, sizeof(meta) - 1);
	if (size)
		memcpy(buf + sizeof(meta) - 1, data, size);
	run_init(&r);
	if (run_load(&r, fuzz_temp_file((const uint8_t *)buf, sizeof(meta) - 1 + size)) == 0) {
		if (r.format != RUN_JSONL)
			__builtin_trap();
		check_run(&r);
	}
	run_release(&r);
	free(buf);
	return 0;
}
