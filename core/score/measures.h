/*
 * measures: measure names in both naming schemes, and their values.
 *
 * ir_measures names (score, compare, report, gate files): P@k, R@k,
 * Success@k (alias Hit@k), RR, RR@k, nDCG, nDCG@k, AP, AP@k, Rprec, Bpref,
 * Judged@k, NumRet, NumRel, NumRelRet, with an optional relevance threshold
 * as in P(rel=2)@5; the document-level DocR@k, DocSuccess@k and DocnDCG@k
 * (docrank.h), whose values come from the ranking collapsed to documents;
 * for agents that search several times (docs/agents.md) FirstR@k (R@k of
 * the first call alone), CallSuccess@n (a relevant chunk within the
 * first n calls) and Calls (the calls made), whose values need the calls'
 * ends in the ranking (struct call_eval). Names are case-sensitive as in ir_measures; the
 * canonical spelling (measure_name) is what results files carry.
 *
 * trec_eval's own names (trec-eval) are in treceval.h.
 */
#ifndef EVALSET_MEASURES_H
#define EVALSET_MEASURES_H

#include <stdbool.h>
#include <stddef.h>

#include "score/docrank.h"
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
	MK_DOC_RECALL,   /* document level (docrank.h) */
	MK_DOC_SUCCESS,
	MK_DOC_NDCG,
	MK_FIRST_RECALL, /* an agent's calls (struct call_eval) */
	MK_CALL_SUCCESS,
	MK_CALLS,
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
/* Return the value of 'm' for one ranking (0 for a document-level measure). */
double measure_value(const struct measure *m, const struct query_eval *e);
/* True when 'm' is a document-level measure (its value needs a doc_eval). */
bool measure_is_doc(const struct measure *m);
/* Return the value of 'm' for one ranking judged as chunks ('e') and as
 * documents ('d', may be NULL when 'm' is not document-level). */
double measure_value_docs(const struct measure *m, const struct query_eval *e,
			  const struct doc_eval *d);
/*
 * An agent's calls over one evaluated ranking (docs/agents.md): its first
 * end[c] positions hold the union of the results of calls 1..c+1 (end is
 * ascending, its last entry the ranking's length). nr is the number of
 * calls: 1 for a plain list, 0 for a question the run does not hold.
 */
struct call_eval {
	const long *end;
	size_t nr;
};

/* True when 'm' needs the calls (FirstR@k, CallSuccess@n, Calls). */
bool measure_is_call(const struct measure *m);
/* Return the value of 'm' for one ranking judged as chunks ('e'), as
 * documents ('d', may be NULL unless 'm' is document-level) and with its
 * calls ('c'; NULL: the ranking is one call). */
double measure_value_all(const struct measure *m, const struct query_eval *e,
			 const struct doc_eval *d, const struct call_eval *c);
/* Return the 1-based number of the first call whose results hold a chunk
 * of grade 'rel_level' or more for the ranking 'e' made by the calls 'c',
 * or 0 when none does. */
long calls_to_relevant(const struct query_eval *e, const struct call_eval *c, int rel_level);

/* Append the list of supported ir_measures names to 'out'. */
void measure_list(struct strbuf *out);

#endif
