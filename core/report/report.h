/*
 * report: the self-contained HTML report of `evalset report` (docs/report.md).
 *
 * One file: inline CSS, inline SVG charts (core/report/svg.h), one small inline
 * script for the k slider, the data it needs as a JSON block; nothing is
 * loaded from the network (a Content-Security-Policy says so to the
 * browser). Every string from the set, the runs and the corpus goes
 * through core/base/html.h, so a question holding "<script>" renders as text.
 *
 * Numbers: every table and chart shows the numbers of the struct results it
 * was given (what `score --format json` prints) or of the struct compare
 * (what `compare` prints); the few numbers computed here (the R@k curve, the
 * subset means, find-vs-rank, the slider) use trec_eval semantics over the
 * answerable questions, missing ones counting as zero:
 *   P@k = relevant in the top k / k; R@k = relevant in the top k / all
 *   relevant; Success@k = 1 when one is in the top k; RR = 1 / rank of the
 *   first relevant document at any depth (not cut); nDCG@k = DCG@k / ideal
 *   DCG@k, gain = grade, discount log2(rank + 1), the ideal from every
 *   relevant label of the question.
 * The slider covers k = 1..REPORT_SLIDER_MAX from each question's ranking:
 * the ids the caller passes (a run read to depth 20), or else the results'
 * top ids plus the ranks of relevant documents further down (their grade is
 * then known only when the question's relevant grades are all equal; the
 * report says when it had to assume).
 *
 * Ownership: struct report_input borrows everything; report_render appends
 * to a caller-owned strbuf.
 */
#ifndef EVALSET_REPORT_H
#define EVALSET_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "set/set.h"

struct set;
struct results;
struct compare;
struct gate;
struct gate_outcome;
struct corpus;

#define REPORT_SLIDER_MAX 20
#define REPORT_CURVE_MAX 100
#define REPORT_MAX_SUBSETS 64     /* origins and tags a question table can filter by */
#define REPORT_SNIPPET_BYTES 120  /* the start of a chunk's text shown in a question's row */

/* One question's retrieved ids in rank order (borrowed). */
struct report_ranking {
	const char *const *ids;
	size_t nr;
};

struct report_input {
	const struct set *set;           /* the set scored (required) */
	const char *set_label;           /* as the user named it, e.g. "squad-demo@v1" */
	const struct results *cand;      /* required */
	const struct results *base;      /* NULL: no baseline */
	const struct compare *cmp;       /* NULL: no comparison (deltas left out) */
	const struct gate *gate;         /* NULL: no gate */
	const struct gate_outcome *outcomes;  /* parallel to gate->rules */
	int nr_failed;                   /* failed rules */
	const struct report_ranking *cand_rankings; /* parallel to cand->q, or NULL */
	const struct corpus *corpus;     /* for the text of top chunks, or NULL */
	int k;                           /* context size; 0: cand->k */
	const char *generated_at;        /* shown in the footer, or NULL */
	const struct set_lookup *by_id;  /* the set's questions by id; NULL:
	                                  * report_render makes it for the page */
};

/* The question 'id' of the set of 'in', or NULL: through in->by_id when
 * there is one (a page asks once per question of the results). */
static inline const struct question *report_question(const struct report_input *in,
						      const char *id)
{
	return in->by_id ? set_lookup_find(in->by_id, id) : set_find(in->set, id);
}

/*
 * Render the report of 'in' as one HTML document into 'out'. Return 0, or
 * -1 with an error when the input cannot make a report (no answerable
 * question, a k outside 1..REPORT_SLIDER_MAX).
 */
int report_render(const struct report_input *in, struct strbuf *out);

/*
 * Compute the slider measures of one ranking at cutoff 'k' into
 * 'out' = { P@k, R@k, Success@k, RR, nDCG@k }: 'grades' (nr of them) are
 * the grades of the ranked documents (< 1 not relevant), 'ideal' the
 * question's relevant grades in descending order, 'num_rel' its number of
 * relevant documents, 'first_rel' the rank of the first relevant document
 * at any depth (0: none). The same arithmetic as the page's script.
 */
void report_cutoff_measures(const int *grades, size_t nr, const int *ideal, size_t nr_ideal,
			    long num_rel, long first_rel, int k, double out[5]);

#endif
