/*
 * fuzz-trec-run: the TREC run reader on arbitrary bytes, both ways in: the
 * streaming scan (run_trec_scan, falling back to collect mode when question
 * ids come back, as trec-eval does) and run_load. Whatever is accepted must
 * hold the promises of run.h: every question has a non-empty id and at least
 * one document, every score is finite, no docid appears twice for one
 * question, and both ways in see the same questions and documents.
 */
#include "fuzz.h"
#include "base/error.h"
#include "score/run.h"
#include "base/strmap.h"
#include "base/util.h"

#include <math.h>
#include <string.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

struct tally {
	long questions, docs;
};

static int group(struct trec_group *g, void *data)
{
	struct tally *t = data;

	if (!g->qid || !*g->qid || strlen(g->qid) != g->qid_len || !g->nr)
		__builtin_trap();
	for (size_t i = 0; i < g->nr; i++) {
		if (!g->lines[i].doc || !*g->lines[i].doc || !isfinite(g->lines[i].score) ||
		    strlen(g->lines[i].doc) != g->lines[i].len || g->lines[i].line < 1)
			__builtin_trap();
	}
	t->questions++;
	t->docs += (long)g->nr;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path;
	struct tally t = { 0, 0 };
	struct strbuf tag = STRBUF_INIT;
	struct run r;
	int rc;

	set_error_routine(quiet);
	set_warning_routine(quiet);
	/* only the TREC format: a leading '{' or '[' (after a BOM) is another reader's */
	for (size_t i = size >= 3 && !memcmp(data, "\xef\xbb\xbf", 3) ? 3 : 0; i < size; i++) {
		if (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n')
			continue;
		if (data[i] == '{' || data[i] == '[')
			return 0;
		break;
	}
	path = fuzz_temp_file(data, size);
	rc = run_trec_scan(path, false, group, &t, &tag);
	if (rc == RUN_SCAN_UNSORTED) {
		t.questions = t.docs = 0;
		strbuf_reset(&tag);
		rc = run_trec_scan(path, true, group, &t, &tag);
	}
	run_init(&r);
	if (run_load(&r, path) == 0) {
		long docs = 0;

		if (rc)
			__builtin_trap();   /* the scan refused what the loader took */
		for (size_t i = 0; i < r.nr; i++) {
			struct strmap seen = STRMAP_INIT;

			if (run_find(&r, r.q[i].qid) != &r.q[i])
				__builtin_trap();
			for (size_t j = 0; j < r.q[i].nr; j++) {
				if (strmap_get(&seen, r.q[i].docs[j].id))
					__builtin_trap();
				strmap_put(&seen, r.q[i].docs[j].id, &r);
				if (j && run_rank_cmp(r.q[i].docs[j - 1].score, r.q[i].docs[j - 1].id,
						      r.q[i].docs[j].score, r.q[i].docs[j].id) > 0)
					__builtin_trap();   /* not in trec_eval order */
			}
			docs += (long)r.q[i].nr;
			strmap_clear(&seen, 0);
		}
		if (r.format == RUN_TREC && ((long)r.nr != t.questions || docs != t.docs))
			__builtin_trap();
	}
	run_release(&r);
	strbuf_release(&tag);
	return 0;
}
