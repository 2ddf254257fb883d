/*
 * leak: forbidden chunks a run retrieved (see leak.h).
 */
#include "score/leak.h"
#include "score/results.h"
#include "score/run.h"
#include "set/corpus.h"
#include "set/set.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void leak_find(const struct set *s, const struct corpus *corpus, const struct run *run,
	       long k, struct leak_report *out)
{
	struct strbuf doc = STRBUF_INIT;

	out->k = k;
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		const struct run_query *rq;
		struct leak_question *lq = NULL;

		if (!set_question_forbids(s, q))
			continue;
		out->nr_forbidding++;
		if (!(rq = run_find(run, q->id)))
			continue;
		for (size_t r = 0; r < rq->nr && (long)r < k; r++) {
			const char *id = rq->docs[r].id;
			const char *entry = set_forbids(s, q, corpus, id, &doc);
			struct leak_hit *h;

			if (!entry)
				continue;
			if (!lq) {
				ALLOC_GROW(out->q, out->nr + 1, out->alloc);
				lq = &out->q[out->nr++];
				memset(lq, 0, sizeof(*lq));
				lq->id = xstrdup(q->id);
			}
			ALLOC_GROW(lq->hits, lq->nr + 1, lq->alloc);
			h = &lq->hits[lq->nr++];
			h->rank = (long)r + 1;
			h->chunk = xstrdup(id);
			h->entry = xstrdup(entry);
		}
	}
	strbuf_release(&doc);
}

double leak_value(const struct leak_report *r)
{
	return r->nr_forbidding ? (double)r->nr / (double)r->nr_forbidding : 0.0;
}

void leak_report_release(struct leak_report *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		for (size_t j = 0; j < r->q[i].nr; j++) {
			free(r->q[i].hits[j].chunk);
			free(r->q[i].hits[j].entry);
		}
		free(r->q[i].hits);
		free(r->q[i].id);
	}
	free(r->q);
	memset(r, 0, sizeof(*r));
}

bool leak_needs_corpus(const struct set *s)
{
	if (set_forbid_needs_corpus(s))
		return true;
	for (size_t i = 0; i < s->nr; i++)
		for (size_t j = 0; j < s->q[i].nr_forbidden; j++)
			if (!strncmp(s->q[i].forbidden[j].id, FORBID_DOC_PREFIX, strlen(FORBID_DOC_PREFIX)))
				return true;
	return false;
}

void leak_record(const struct set *s, const struct corpus *corpus, const struct run *run,
		 struct results *r)
{
	struct leak_report all;
	size_t next = 0;

	memset(&all, 0, sizeof(all));
	leak_find(s, corpus, run, LONG_MAX, &all);
	for (size_t i = 0; i < s->nr; i++) {
		struct question_result *q;

		if (!set_question_forbids(s, &s->q[i]))
			continue;
		/* results are in set order: look further only when they are not */
		q = i < r->nr && !strcmp(r->q[i].id, s->q[i].id) ? &r->q[i]
								  : results_find(r, s->q[i].id);
		if (!q)
			continue;
		q->forbids = true;
		if (next < all.nr && !strcmp(all.q[next].id, q->id)) {
			struct leak_question *lq = &all.q[next++];

			q->leaks = xcalloc(lq->nr + 1, sizeof(*q->leaks));
			for (size_t h = 0; h < lq->nr; h++) {
				q->leaks[h].rank = lq->hits[h].rank;
				q->leaks[h].chunk = lq->hits[h].chunk;
				q->leaks[h].entry = lq->hits[h].entry;
				lq->hits[h].chunk = lq->hits[h].entry = NULL;
			}
			q->nr_leaks = lq->nr;
		}
	}
	leak_report_release(&all);
}
