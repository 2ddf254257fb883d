/*
 * fuzz-llm-reply: what evalset reads from an LLM server, on arbitrary bytes:
 * a Chat Completions reply through llm_accept (with the reply shape
 * `evalset generate` asks for), an error body through llm_error_message,
 * and the scrubbing of keys from server text. A reply accepted as OK must
 * have content and validated JSON; a scrubbed text never holds the key.
 */
#include "fuzz.h"
#include "base/error.h"
#include "llm/llm.h"
#include "base/strbuf.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define KEY "sk-fuzzsentinel0123456789"

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

/* The shape of a generate reply: {"questions": [{"question": s, "answer": s|null}]}. */
static int validate(const cJSON *json, void *data, struct strbuf *why)
{
	const cJSON *qs = cJSON_GetObjectItemCaseSensitive(json, "questions"), *q;

	(void)data;
	if (!cJSON_IsArray(qs)) {
		strbuf_addstr(why, "no questions");
		return -1;
	}
	cJSON_ArrayForEach(q, qs) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(q, "answer");
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(q, "question")) ||
		    (a && !cJSON_IsString(a) && !cJSON_IsNull(a)))
			return -1;
	}
	return 0;
}

static void done(const struct llm_result *res, void *data)
{
	(void)res;
	(void)data;
}

static struct llm *job(void)
{
	static struct llm *l;
	struct llm_options o;

	if (l)
		return l;
	memset(&o, 0, sizeof(o));
	o.base_url = "http://127.0.0.1:9/v1";
	o.api_key = KEY;
	o.model = "fuzz";
	o.temperature = -1;
	o.seed = -1;
	o.schema_name = "questions";
	o.schema = "{\"type\":\"object\",\"properties\":{\"questions\":{\"type\":\"array\"}}}";
	o.shape_hint = "{\"questions\": []}";
	o.validate = validate;
	o.done = done;
	l = llm_new(&o);
	if (!l)
		abort();
	return l;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct llm_result res;
	struct strbuf msg = STRBUF_INIT;
	char *code = NULL;
	int rc;

	set_error_routine(quiet);
	set_warning_routine(quiet);
	rc = llm_accept(job(), (const char *)data, size, NULL, &res);
	if (rc == 0 && (res.status != LLM_OK || !res.json || !res.content))
		__builtin_trap();
	if (rc != 0 && (res.status != LLM_FAILED || !res.why))
		__builtin_trap();

	llm_error_message((const char *)data, size, &msg, &code);
	strbuf_addstr(&msg, " " KEY " ");
	llm_scrub(&msg, KEY);
	/* other "sk-" text glued to a word may stay (it is not this key) */
	if (strstr(msg.buf, KEY))
		__builtin_trap();
	free(code);
	strbuf_release(&msg);
	return 0;
}
