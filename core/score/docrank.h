/*
 * docrank: a ranking of chunks seen as a ranking of the documents they
 * belong to, and the document-level measures (docs/measures.md,
 * "Document-level measures").
 *
 * A chunk's document is the corpus's "doc" field, else the name in the
 * chunker's id form (set.h chunk_doc); a chunk with neither is a document
 * of its own, so without any document information the measures below
 * equal R@k, Success@k and nDCG@k.
 *
 * For one question:
 *   - its relevant documents are those holding at least one of its
 *     relevant chunks (grade >= 1); a document's grade is the best grade
 *     among its relevant chunks, whichever of its chunks is retrieved;
 *   - a document is retrieved at the rank of its first chunk in the
 *     ranking (any chunk: relevant, judged irrelevant or unjudged); its
 *     position is its place in the ranking collapsed to documents (the
 *     ranking in order with every chunk after a document's first one
 *     dropped), so position <= rank;
 *   - the cutoff k always counts chunks (what the application reads):
 *     DocR@k is the share of the relevant documents retrieved at a rank
 *     <= k; DocSuccess@k is 1 when one is; DocnDCG@k is the DCG of the
 *     documents retrieved at a rank <= k (gain the document's grade,
 *     discount log2(position + 1)) over the ideal DCG of the relevant
 *     documents' grades in descending order at positions 1..k;
 *   - a question without relevant documents scores 0 on each (never NaN).
 * With judged_only, chunks the labels do not judge are dropped from the
 * ranking first, as for the chunk-level measures.
 *
 * Ownership: struct doc_ctx owns scratch space reused from question to
 * question; a struct doc_eval filled by doc_eval_build points into it and
 * is valid until the context's next use. doc_ctx_release frees it.
 */
#ifndef EVALSET_DOCRANK_H
#define EVALSET_DOCRANK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "base/strmap.h"

struct corpus;
struct qrels_query;
struct run_query;

struct doc_hit {
	long rank;        /* rank of the document's first chunk (1-based) */
	long pos;         /* its position in the ranking collapsed to documents (1-based) */
	int grade;        /* the document's grade (>= 1) */
	const char *doc;  /* its name (a chunk id for a chunk without a document) */
};

struct doc_eval {
	const struct doc_hit *hits;  /* the relevant documents retrieved, ascending rank */
	size_t nr_hits;
	const long *levels;          /* levels[g]: relevant documents of grade g (g >= 1) */
	int nr_levels;               /* 0 when the question has none */
};

/* Return the number of relevant documents of 'd'. */
long m_doc_num_rel(const struct doc_eval *d);
/* DocR@k: relevant documents retrieved at a rank <= 'k' (0: any) over all of them. */
double m_doc_recall(const struct doc_eval *d, long k);
/* DocSuccess@k: 1 when a relevant document is retrieved at a rank <= 'k' (0: any). */
double m_doc_success(const struct doc_eval *d, long k);
/* DocnDCG@k over the chunks at ranks <= 'k' (0: the whole ranking). */
double m_doc_ndcg(const struct doc_eval *d, long k);

struct doc_ctx {
	struct strmap rel;     /* document key -> its grade, of the current question */
	struct strmap seen;    /* document keys met in the ranking */
	struct doc_hit *hits;
	size_t alloc_hits;
	long *levels;
	size_t alloc_levels;
	struct strbuf key, doc;
};

void doc_ctx_init(struct doc_ctx *c);
void doc_ctx_release(struct doc_ctx *c);

/*
 * Fill 'd' for the ranking 'rq' (NULL: empty) of a question judged by 'qq'
 * (its relevant chunks are those of grade >= 1), the chunks' documents
 * taken from 'corpus' (may be NULL) as set.h chunk_doc gives them. With
 * 'judged_only', chunks 'qq' does not judge (or judges with a negative
 * grade) are dropped from the ranking first.
 */
void doc_eval_build(struct doc_ctx *c, const struct qrels_query *qq, const struct run_query *rq,
		    const struct corpus *corpus, bool judged_only, struct doc_eval *d);

#endif
