/*
 * fuzz-corpus: the JSONL corpus loader on arbitrary bytes.
 */
#include "fuzz.h"
#include "set/corpus.h"
#include "base/error.h"

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct corpus c = CORPUS_INIT;
	char fp[72];

	set_error_routine(quiet);
	set_warning_routine(quiet);
	if (corpus_load(&c, fuzz_temp_file(data, size)) == 0) {
		corpus_fingerprint(&c, fp);
		for (size_t i = 0; i < c.nr; i++)
			if (corpus_get(&c, c.chunks[i].id) != &c.chunks[i])
				__builtin_trap();
	}
	corpus_release(&c);
	return 0;
}
