/*
 * metrics: the per-question measures (docs/design.md, "Measure conventions";
 * docs/measures.md), with trec_eval v10.0 semantics, computed from the
 * judged documents of one ranking.
 *
 * Every measure here depends on a ranking only through the positions of the
 * documents the judgments know about, so a ranking is summarised as:
 *   - num_ret: its length (after -J and -M);
 *   - hits: the judged documents it holds, by ascending rank, each with its
 *     grade (>= 0) or REL_UNJUDGED (in the judgments with a negative grade,
 *     which trec_eval treats as "in the pool but not judged");
 *   - levels: how many judged documents the question has at each grade
 *     0..nr_levels-1, retrieved or not (the ideal DCG and bpref need them).
 * Documents absent from the judgments (REL_NONPOOL) never appear in hits.
 *
 * Conventions (trec_eval v10.0): a document is relevant when its grade is
 * >= rel_level (default 1). P@k divides by k even when fewer than k are
 * retrieved. R@k, AP and Rprec divide by all relevant documents of the
 * question; with none, they are 0. nDCG uses the grade as a linear gain, the
 * discount log2(rank + 1), and an ideal ranking built from every judged
 * document with grade >= 1 (whatever rel_level is); with an ideal DCG of 0
 * nDCG is 0. RR is 1/rank of the first relevant document, 0 without one.
 * Empty rankings give 0 everywhere (iprec_at_recall excepted, see there).
 */
#ifndef EVALSET_METRICS_H
#define EVALSET_METRICS_H

#include <stddef.h>

#define REL_NONPOOL (-1)   /* not in the judgments */
#define REL_UNJUDGED (-2)  /* in the judgments with a negative grade */

struct judged_hit {
	long rank;  /* 1-based position in the evaluated ranking */
	int rel;    /* grade >= 0, or REL_UNJUDGED */
};

struct query_eval {
	long num_ret;
	const struct judged_hit *hits;  /* ascending rank */
	size_t nr_hits;
	const long *levels;             /* levels[g]: judged documents of grade g */
	int nr_levels;
	int rel_level;                  /* relevant when grade >= rel_level */
};

/* Return the number of relevant documents the question has (retrieved or not). */
long m_num_rel(const struct query_eval *e, int rel_level);
/* Return the number of relevant documents in the first 'k' (0: all). */
long m_num_rel_ret(const struct query_eval *e, int rel_level, long k);
/* Return the number of judged documents (grade >= 0) in the first 'k'. */
long m_num_judged(const struct query_eval *e, long k);

double m_precision(const struct query_eval *e, int rel_level, long k);
double m_recall(const struct query_eval *e, int rel_level, long k);
double m_success(const struct query_eval *e, int rel_level, long k);
/* Reciprocal rank; 'k' 0 means no cutoff. */
double m_recip_rank(const struct query_eval *e, int rel_level, long k);
/* Average precision; 'k' 0 means no cutoff (map), else map_cut.k. */
double m_ap(const struct query_eval *e, int rel_level, long k);
double m_rprec(const struct query_eval *e, int rel_level);
/* nDCG; 'k' 0 means the whole ranking (ndcg), else ndcg_cut.k. */
double m_ndcg(const struct query_eval *e, long k);
double m_bpref(const struct query_eval *e, int rel_level);
/* Judged@k: share of the first k positions holding a judged document. */
double m_judged(const struct query_eval *e, long k);
/*
 * Interpolated precision at each recall level of 'pct' (ascending), into
 * 'out'. As trec_eval, an empty ranking gives 0/0 (NaN) at the levels that
 * round to 0 relevant documents.
 */
void m_iprec_at_recall(const struct query_eval *e, int rel_level,
		       const double *pct, size_t nr, double *out);

#endif
