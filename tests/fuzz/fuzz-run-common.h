/*
 * fuzz-run-common: the checks fuzz-jsonl-run and fuzz-json-run share on a
 * run that loaded: every question found by its id, no docid twice for one
 * question, every score finite or NAN (JSONL id lists), and, for the JSON
 * dict format, the documents in trec_eval order; an agent's calls end in
 * ascending order within the ranking, the last at its end.
 */
#ifndef EVALSET_FUZZ_RUN_COMMON_H
#define EVALSET_FUZZ_RUN_COMMON_H

#include "score/run.h"
#include "base/strmap.h"

#include <math.h>

static void check_run(const struct run *r)
{
	long docs = 0;

	for (size_t i = 0; i < r->nr; i++) {
		const struct run_query *q = &r->q[i];
		struct strmap seen = STRMAP_INIT;

		if (!q->qid || run_find(r, q->qid) != q)
			__builtin_trap();
		for (size_t j = 0; j < q->nr; j++) {
			const struct run_doc *d = &q->docs[j];

			if (!d->id || strmap_get(&seen, d->id) || isinf(d->score))
				__builtin_trap();
			strmap_put(&seen, d->id, (void *)r);
			if (r->format == RUN_JSON && j &&
			    run_rank_cmp(q->docs[j - 1].score, q->docs[j - 1].id, d->score, d->id) > 0)
				__builtin_trap();
		}
		if (q->nr_calls && q->call_end[q->nr_calls - 1] != (long)q->nr)
			__builtin_trap();
		for (size_t c = 0; c < q->nr_calls; c++)
			if (q->call_end[c] < (c ? q->call_end[c - 1] : 0))
				__builtin_trap();
		if (q->nr_calls && !r->has_calls)
			__builtin_trap();
		docs += (long)q->nr;
		strmap_clear(&seen, 0);
	}
	if (docs != r->nr_docs)
		__builtin_trap();
}

#endif
