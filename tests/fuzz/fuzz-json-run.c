/*
 * fuzz-json-run: the run loader on arbitrary bytes starting with '{' (the
 * JSON dict format {"qid": {"docid": score}}, or JSONL when the first line
 * looks like it). Whatever loads must pass check_run.
 */
#include "fuzz.h"
#include "fuzz-run-common.h"
#include "base/error.h"

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run r;

	if (!size || data[0] != '{')
		return 0;   /* another reader's input (fuzz-trec-run) */
	set_error_routine(quiet);
	set_warning_routine(quiet);
	run_init(&r);
	if (run_load(&r, fuzz_temp_file(data, size)) == 0)
		check_run(&r);
	run_release(&r);
	return 0;
}
