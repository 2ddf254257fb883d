/*
 * docrank: rankings collapsed to documents and the document-level measures
 * (see docrank.h). Documents are keyed "d<name>", chunks without a document
 * "c<id>", so a document named like a chunk id never merges with it.
 */
#include "score/docrank.h"
#include "score/metrics.h"
#include "score/qrels.h"
#include "score/run.h"
#include "set/set.h"
#include "set/corpus.h"
#include "base/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

long m_doc_num_rel(const struct doc_eval *d)
{
	long n = 0;

	for (int g = 1; g < d->nr_levels; g++)
		n += d->levels[g];
	return n;
}

/* Return the relevant documents of 'd' retrieved at a rank <= 'k' (0: any). */
static long doc_rel_ret(const struct doc_eval *d, long k)
{
	long n = 0;

	for (size_t i = 0; i < d->nr_hits; i++) {
		if (k && d->hits[i].rank > k)
			break;
		n++;
	}
	return n;
}

double m_doc_recall(const struct doc_eval *d, long k)
{
	long num_rel = m_doc_num_rel(d);

	if (!num_rel)
		return 0.0;
	return (double)doc_rel_ret(d, k) / (double)num_rel;
}

double m_doc_success(const struct doc_eval *d, long k)
{
	return doc_rel_ret(d, k) > 0 ? 1.0 : 0.0;
}

double m_doc_ndcg(const struct doc_eval *d, long k)
{
	double dcg = 0.0, ideal = 0.0;
	long i = 0;

	for (size_t h = 0; h < d->nr_hits; h++) {
		if (k && d->hits[h].rank > k)
			break;
		dcg += (double)d->hits[h].grade / log2((double)(d->hits[h].pos + 1));
	}
	/* the best any ranking of k chunks can do: k documents, best grades first */
	for (int g = d->nr_levels - 1; g >= 1; g--)
		for (long c = 0; c < d->levels[g] && (!k || i < k); c++, i++)
			ideal += (double)g / log2((double)(i + 2));
	return ideal > 0.0 ? dcg / ideal : 0.0;
}

void doc_ctx_init(struct doc_ctx *c)
{
	memset(c, 0, sizeof(*c));
	strbuf_init(&c->key, 0);
	strbuf_init(&c->doc, 0);
}

void doc_ctx_release(struct doc_ctx *c)
{
	strmap_clear(&c->rel, 0);
	strmap_clear(&c->seen, 0);
	free(c->hits);
	free(c->levels);
	strbuf_release(&c->key);
	strbuf_release(&c->doc);
	memset(c, 0, sizeof(*c));
}

/* Set c->key to the key of the document of chunk 'id'. */
static void doc_key(struct doc_ctx *c, const struct corpus *corpus, const char *id)
{
	const char *doc = chunk_doc(corpus, id, &c->doc);

	strbuf_reset(&c->key);
	strbuf_addch(&c->key, doc ? 'd' : 'c');
	strbuf_addstr(&c->key, doc ? doc : id);
}

/* Return the grade 'qq' gives chunk 'id': >= 0, REL_UNJUDGED or REL_NONPOOL. */
static int chunk_grade(const struct qrels_query *qq, const char *id)
{
	size_t len = strlen(id);
	long jx = qq ? qrels_query_lookup(qq, id, len, qrels_hash(id, len)) : -1;

	if (jx < 0)
		return REL_NONPOOL;
	return qq->j[jx].rel < 0 ? REL_UNJUDGED : qq->j[jx].rel;
}

void doc_eval_build(struct doc_ctx *c, const struct qrels_query *qq, const struct run_query *rq,
		    const struct corpus *corpus, bool judged_only, struct doc_eval *d)
{
	struct strmap_entry *e;
	size_t nh = 0;
	int top = 0;
	long rank = 0, pos = 0;

	strmap_clear(&c->rel, 0);
	strmap_clear(&c->seen, 0);
	/* the relevant documents, each with the best grade of its relevant chunks */
	for (size_t i = 0; qq && i < qq->nr; i++) {
		int g = qq->j[i].rel, added;

		if (g < 1)
			continue;
		doc_key(c, corpus, qq->j[i].doc);
		e = strmap_intern(&c->rel, c->key.buf, c->key.len, &added);
		if (added || (intptr_t)e->value < g)
			e->value = (void *)(intptr_t)g;
		if (g > top)
			top = g;
	}
	ALLOC_GROW(c->levels, (size_t)top + 1, c->alloc_levels);
	memset(c->levels, 0, ((size_t)top + 1) * sizeof(*c->levels));
	strmap_for_each(&c->rel, e)
		c->levels[(intptr_t)e->value]++;
	/* the ranking: each document at its first chunk */
	ALLOC_GROW(c->hits, (rq ? rq->nr : 0) + 1, c->alloc_hits);
	for (size_t i = 0; rq && i < rq->nr; i++) {
		const char *id = rq->docs[i].id;
		struct strmap_entry *r;
		int added;

		if (judged_only && chunk_grade(qq, id) < 0)
			continue;
		rank++;
		doc_key(c, corpus, id);
		strmap_intern(&c->seen, c->key.buf, c->key.len, &added);
		if (!added)
			continue;
		pos++;
		if (!(r = strmap_find(&c->rel, c->key.buf, c->key.len)))
			continue;
		c->hits[nh].rank = rank;
		c->hits[nh].pos = pos;
		c->hits[nh].grade = (int)(intptr_t)r->value;
		c->hits[nh].doc = r->key + 1;
		nh++;
	}
	d->hits = c->hits;
	d->nr_hits = nh;
	d->levels = c->levels;
	d->nr_levels = top ? top + 1 : 0;
}
