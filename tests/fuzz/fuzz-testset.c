/*
 * fuzz-testset: the readers of other tools' test sets (RAGAS, DeepEval,
 * LlamaIndex; core/interop/interop-tools.c) on arbitrary bytes, the first
 * byte choosing the tool. Whatever loads must be questions with a non-empty
 * text, answerable, with provenance naming the tool, whose evidence entries
 * are all quotes without a chunk (add finds them in the corpus).
 */
#include "fuzz.h"
#include "base/error.h"
#include "interop/interop.h"

#include <cjson/cJSON.h>
#include <string.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct set s = SET_INIT;
	enum interop_tool t;

	if (!size)
		return 0;
	t = (enum interop_tool)(data[0] % 3);
	set_error_routine(quiet);
	set_warning_routine(quiet);
	if (interop_import_tool(&s, t, fuzz_temp_file(data + 1, size - 1)) == 0) {
		for (size_t i = 0; i < s.nr; i++) {
			const struct question *q = &s.q[i];
			const cJSON *src = cJSON_GetObjectItemCaseSensitive(q->provenance, "source");

			if (!q->text || !*q->text || !q->answerable || !cJSON_IsString(src) ||
			    strcmp(src->valuestring, interop_tool_name(t)))
				__builtin_trap();
			for (size_t k = 0; k < q->nr_evidence; k++)
				if (q->evidence[k].chunk || !q->evidence[k].quote)
					__builtin_trap();
		}
	}
	set_release(&s);
	return 0;
}
