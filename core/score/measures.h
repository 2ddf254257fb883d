/*
 * measures: measure names in both naming schemes, and their values.
 *
 * ir_measures names (score, compare, report, gate files): P@k, R@k,
 * Success@k (alias Hit@k), RR, RR@k, nDCG, nDCG@k, AP, AP@k, Rprec, Bpref,
 * Judged@k, NumRet, NumRel, NumRelRet, with an optional relevance threshold
 * as in P(rel=2)@5. Names are case-sensitive as in ir_measures; the
 * canonical spelling (measure_name) is what results files carry.
 *
 * trec_eval's own names (trec-eval) are in treceval.h.
 */
#ifndef EVALSET_MEASURES_H
#define EVALSET_MEASURES_H

#include <stdbool.h>
#include <stddef.h>

#include "score/metrics.h"
#include "base/strbuf.h"

enum measure_kind {
	MK_RUNID,
	MK_NUM_Q,
	MK_NUM_RET,
	MK_NUM_REL,
	MK_NUM_REL_RET,
	MK_MAP,
	MK_GM_MAP,
	MK_RPREC,
	MK_BPREF,
	MK_RECIP_RANK,
	MK_IPREC,
	MK_P,
	MK_RECALL,
	MK_NDCG,
	MK_NDCG_CUT,
	MK_MAP_CUT,
	MK_SUCCESS,
	MK_JUDGED,
	MK_COUNT
};

/* ---- ir_measures names ---- */

struct measure {
	enum measure_kind kind;
	long k;          /* cutoff, 0: none */
	int rel;         /* relevance threshold (default 1) */
	char name[48];   /* canonical name */
};

/*
 * Parse the ir_measures name 'text' into 'm'. Return 0, or -1 after an error
 * that lists the supported names.
 */
int measure_parse(const char *text, struct measure *m);
/*
 * Like measure_parse, but write the problem into 'why' (one line, no
 * "error:") instead of reporting it. 'extra' (NULL-terminated, may be NULL)
 * names further measures the caller takes itself, offered among the
 * closest names for an unknown one and listed with the supported ones.
 */
int measure_parse_why(const char *text, struct measure *m, const char *const *extra, struct strbuf *why);
/* Return the value of 'm' for one ranking. */
double measure_value(const struct measure *m, const struct query_eval *e);
/* Append the list of supported ir_measures names to 'out'. */
void measure_list(struct strbuf *out);

#endif
