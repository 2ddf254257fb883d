/*
 * fuzz-retriever: what `evalset run` parses from a retriever or a file, on
 * arbitrary bytes: a reply (job_accept_reply, job_accept), a run file to resume from
 * (run_resume), a body template (url_render_body), and the Snowball
 * stemmers on the tokens of the bytes.
 */
#include "fuzz.h"
#include "base/error.h"
#include "retrieve/retriever.h"
#include "text/lang.h"
#include "text/stem.h"
#include "text/text.h"
#include "base/strmap.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

static const char *qids[] = { "q-0001", "q-0002", "q-0003" };

/* Trap unless every answer holds at most k unique, non-empty ids. */
static void check_answers(const struct job *job)
{
	for (size_t i = 0; i < job->nr; i++) {
		struct strmap seen = STRMAP_INIT;
		const struct answer *a = &job->ans[i];

		const cJSON *call;
		long in_calls = 0;

		/* a plain list is cut to k; an agent's calls each, their union not */
		if ((!a->calls && (long)a->nr > job->k) || (!a->answered && a->nr))
			__builtin_trap();
		cJSON_ArrayForEach(call, a->calls) {
			int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(call, "results"));

			if (n > job->k)
				__builtin_trap();
			in_calls += n;
		}
		if (a->calls && (long)a->nr > in_calls)
			__builtin_trap();
		for (size_t h = 0; h < a->nr; h++) {
			int added;
			if (!*a->hits[h].id)
				__builtin_trap();
			strmap_intern(&seen, a->hits[h].id, strlen(a->hits[h].id), &added);
			if (!added)
				__builtin_trap();
		}
		strmap_clear(&seen, 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_meta meta = { .set_name = "fuzz", .digest = "sha256:00", .retriever = "cmd fuzz" };
	struct strbuf why = STRBUF_INIT, body = STRBUF_INIT;
	struct job job;
	char *text = xstrndup((const char *)data, size);
	struct tokens tok = TOKENS_INIT;
	static const char *const stem_langs[] = { "en", "ru", "ar", "el", "tr", "hi" };
	cJSON *reply;
	size_t n;

	set_error_routine(quiet);
	set_warning_routine(quiet);

	job_init(&job, 3, 5);
	for (size_t i = 0; i < 3; i++) {
		job.qid[i] = qids[i];
		job.query[i] = text;
	}
	reply = cJSON_ParseWithLength((const char *)data, size);
	if (cJSON_IsObject(reply))
		job_accept_reply(&job, 0, reply, &why);  /* "results", or an agent's "calls" */
	else
		job_accept(&job, 1, reply, NULL, &why);
	cJSON_Delete(reply);
	check_answers(&job);
	job_release(&job);

	job_init(&job, 3, 5);
	for (size_t i = 0; i < 3; i++) {
		job.qid[i] = qids[i];
		job.query[i] = text;
	}
	run_resume(&job, &meta, fuzz_temp_file(data, size));
	check_answers(&job);
	job_release(&job);

	url_render_body(text, "q-1", text, 10, text, &body);
	url_render_body(URL_BODY_DEFAULT_HISTORY, text, text, 10, NULL, &body);

	/* every token of the input through a few stemmers */
	text_tokenize(text, strlen(text), &tok);
	for (size_t l = 0; l < ARRAY_SIZE(stem_langs); l++) {
		struct stemmer *st = stemmer_new(lang_get(stem_langs[l]));
		for (size_t i = 0; i < tok.nr; i++) {
			const char *r = stemmer_stem(st, tok.items[i], strlen(tok.items[i]), &n);
			if (!r || (strlen(tok.items[i]) && !n))
				__builtin_trap();
		}
		stemmer_free(st);
	}
	tokens_release(&tok);

	free(text);
	strbuf_release(&why);
	strbuf_release(&body);
	return 0;
}
