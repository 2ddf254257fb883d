/*
 * measures: measure names in both naming schemes, and their values.
 *
 * ir_measures names (score, compare, report, gate files): P@k, R@k,
 * Success@k (alias Hit@k), RR, RR@k, nDCG, nDCG@k, AP, AP@k, Rprec, Bpref,
 * Judged@k, NumRet, NumRel, NumRelRet, with an optional relevance threshold
 * as in P(rel=2)@5. Names are case-sensitive as in ir_measures; the
 * canonical spelling (measure_name) is what results files carry.
 *
 * trec_eval names (trec-eval): runid num_q num_ret num_rel num_rel_ret map
 * gm_map Rprec bpref recip_rank iprec_at_recall P recall ndcg ndcg_cut
 * map_cut success, with cutoffs as in P.5,10, and the set 'official'. They
 * are always printed in trec_eval's own order, whatever the order asked.
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
/* Return the value of 'm' for one ranking. */
double measure_value(const struct measure *m, const struct query_eval *e);
/* Append the list of supported ir_measures names to 'out'. */
void measure_list(struct strbuf *out);

/* ---- trec_eval names ---- */

#define TE_MAX_CUTS 64

struct te_selection {
	bool on[MK_COUNT];
	long cut[MK_COUNT][TE_MAX_CUTS];   /* ascending */
	double pct[TE_MAX_CUTS];           /* iprec_at_recall levels, ascending */
	size_t nr_cut[MK_COUNT];
	bool given[MK_COUNT];              /* parameters came from the command line */
};

enum te_column_type {
	TE_FLOAT,     /* per query and averaged, %6.4f */
	TE_LONG,      /* per query and summed, %ld */
	TE_GEO,       /* summary only, geometric mean */
	TE_COUNT_Q,   /* summary only: number of queries */
	TE_RUNID,     /* summary only: the run's tag */
};

struct te_column {
	enum measure_kind kind;
	enum te_column_type type;
	long k;
	double pct;
	char name[48];
};

void te_selection_init(struct te_selection *s);
/*
 * Select the measures of one -m argument ("P.5,10", "ndcg_cut", "official").
 * The first parameters given for a measure win, as in trec_eval. Return 0, or
 * -1 after an error (an unknown name lists the supported ones).
 */
int te_select(struct te_selection *s, const char *arg);
/* Fill 'cols' (caller frees) with the output columns in trec_eval order; return their number. */
size_t te_columns(const struct te_selection *s, struct te_column **cols);
/* Append the supported trec_eval names to 'out'. */
void te_list(struct strbuf *out);

#endif
