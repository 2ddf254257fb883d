/*
 * bm25: the built-in lexical retriever, an in-memory inverted index over a
 * corpus scored with BM25 as Lucene (8 and later) computes it.
 *
 * Analysis (the same for chunks and queries): text_tokenize() (NFKC, case
 * folded, runs of letters, marks and digits), English stop words dropped
 * (text_is_stopword), then the Porter stemmer when 'stem' is set. A chunk's
 * title, when it has one, is indexed with its text as one field.
 *
 * Scoring, for a query of terms t (a term repeated in the query counts once
 * per occurrence, as in a Lucene BooleanQuery of term clauses):
 *
 *   score(d) = sum_t idf(t) * tf(t,d) / (tf(t,d) + k1 * (1 - b + b * dl(d) / avgdl))
 *   idf(t)   = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
 *
 * N is the number of chunks, df(t) the number of chunks holding t, dl(d) the
 * number of indexed tokens of d (stop words excluded) and avgdl its mean.
 * Like Lucene since 8.0 there is no (k1 + 1) factor in the numerator (it
 * scales every score alike and never changes a ranking). Unlike Lucene,
 * document lengths are exact rather than stored in one lossy byte, so scores
 * can differ from Lucene's in the third decimal and rankings rarely.
 *
 * Ranking: scores are rounded to 6 decimal places, then sorted descending;
 * equal scores are ordered by chunk id descending (strcmp), the order
 * trec_eval gives ties, so the scores written in a run reproduce its order
 * exactly, and a run converted to TREC format scores the same as its JSONL
 * list order. Chunks that match no query term
 * are not returned. Results are exact (every matching chunk is scored).
 *
 * Ownership: the index borrows the corpus (it must outlive the index) and
 * owns everything else; bm25_release() frees it.
 */
#ifndef EVALSET_BM25_H
#define EVALSET_BM25_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strmap.h"

struct corpus;
struct tokens;

struct bm25_params {
	double k1;   /* term frequency saturation, >= 0 */
	double b;    /* length normalisation, in [0,1] */
	bool stem;   /* Porter stemming of chunks and queries */
};
#define BM25_PARAMS_INIT { 0.9, 0.4, false }

struct bm25_posting {
	uint32_t doc;  /* chunk index in the corpus */
	uint32_t tf;
};

struct bm25_term {
	struct bm25_posting *post;  /* ascending doc */
	size_t nr, alloc;
	double idf;
};

struct bm25 {
	struct bm25_params params;
	const struct corpus *corpus;  /* borrowed */
	struct strmap dict;           /* term -> (index in 'terms' + 1) as uintptr_t */
	struct bm25_term *terms;
	size_t nr_terms, alloc_terms;
	uint32_t *doclen;             /* per chunk: indexed tokens */
	double avgdl;
	double *norm;                 /* per chunk: k1 * (1 - b + b * dl / avgdl) */
};
#define BM25_INIT { BM25_PARAMS_INIT, NULL, STRMAP_INIT, NULL, 0, 0, NULL, 0.0, NULL }

struct bm25_hit {
	size_t doc;    /* chunk index in the corpus */
	double score;
};

/*
 * Index every chunk of 'corpus' into 'ix' (BM25_INIT) with 'params'.
 * Return 0, or -1 (reported) when the parameters are out of range or the
 * corpus holds more than UINT32_MAX chunks.
 */
int bm25_build(struct bm25 *ix, const struct corpus *corpus, const struct bm25_params *params);
void bm25_release(struct bm25 *ix);

/*
 * Score 'query' against the index and write the best 'k' hits, best first,
 * into 'out' (room for 'k'). Return the number written (fewer than 'k' when
 * fewer chunks match; 0 for a query with no indexed term).
 */
size_t bm25_search(const struct bm25 *ix, const char *query, size_t k, struct bm25_hit *out);

/* Append the analysed terms of 'len' bytes of 's' (as indexed) to 'out'. */
void bm25_analyze(const char *s, size_t len, bool stem, struct tokens *out);

/* Return a one-line description such as "bm25 k1=0.9 b=0.4 stem=porter"; caller frees. */
char *bm25_describe(const struct bm25_params *params);

#endif
