/*
 * bm25: the built-in lexical retriever, an in-memory inverted index over a
 * corpus scored with BM25 as Lucene (8 and later) computes it.
 *
 * Analysis (the same for chunks and queries): the tokens of core/text/text.h
 * (NFKC, case folded; words, CJK bigrams, dictionary words for Thai, Lao,
 * Khmer and Myanmar), the stop words of the index's language dropped, then
 * that language's Snowball stemmer when 'stem' is set and one exists. The
 * language is 'language' when given, else the one lang_detect finds in the
 * first chunks of the corpus. A chunk's title, when it has one, is indexed
 * with its text as one field.
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
struct lang;
struct tokens;

struct bm25_params {
	double k1;             /* term frequency saturation, >= 0 */
	double b;              /* length normalisation, in [0,1] */
	bool stem;             /* stem chunks and queries (when the language has a stemmer) */
	const char *language;  /* BCP 47 tag (borrowed), or NULL: detect from the corpus */
};
#define BM25_PARAMS_INIT { 0.9, 0.4, true, NULL }

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
	struct bm25_params params;    /* 'language' is not kept: see 'lang' */
	const struct lang *lang;      /* the language of the analysis */
	const struct corpus *corpus;  /* borrowed */
	struct strmap dict;           /* term -> (index in 'terms' + 1) as uintptr_t */
	struct bm25_term *terms;
	size_t nr_terms, alloc_terms;
	uint32_t *doclen;             /* per chunk: indexed tokens */
	double avgdl;
	double *norm;                 /* per chunk: k1 * (1 - b + b * dl / avgdl) */
};
#define BM25_INIT { BM25_PARAMS_INIT, NULL, NULL, STRMAP_INIT, NULL, 0, 0, NULL, 0.0, NULL }

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

/*
 * A query in weighted parts (docs/conversations.md, "BM25"): each part's
 * terms are analysed alone and scored as in bm25_search, times 'weight'
 * (> 0; a part of weight 0 or a NULL text is left out). A term in two parts
 * counts in both. bm25_search is one part of weight 1.
 */
struct bm25_part {
	const char *text;
	double weight;
};
size_t bm25_search_parts(const struct bm25 *ix, const struct bm25_part *parts, size_t nr_parts,
			 size_t k, struct bm25_hit *out);

/* Append the terms of 'len' bytes of 's' as 'ix' analyses them to 'out'. */
void bm25_analyze(const struct bm25 *ix, const char *s, size_t len, struct tokens *out);

/* Return true when 'ix' stems (asked to, and its language has a stemmer). */
bool bm25_stems(const struct bm25 *ix);

/* Return a one-line description of a built index, such as
 * "bm25 k1=0.9 b=0.4 lang=de stem=german"; caller frees. */
char *bm25_describe(const struct bm25 *ix);

#endif
