/*
 * treceval: `evalset trec-eval`, a drop-in for trec_eval v10.0 over every
 * measure of its 'all_trec' set (plus dcg and ideal_dcg), with
 * byte-identical output wherever trec_eval succeeds.
 *
 * Semantics kept from trec_eval v10.0: only queries present in the qrels are
 * evaluated; a run query without judgments is ignored (duplicates inside it
 * included); without -c, a qrels query absent from the run is an error
 * (v10.0 exits non-zero there). With -c it is evaluated as trec_eval does:
 * as a one-document ranking of the docid "ceci_nest_pas_un_docno" (judged
 * when the qrels judge it), after which num_ret, utility, relstring, unj and
 * rbp_resid are reset to zero; the averages are over every qrels query and
 * the summary num_rel counts every qrels line with a grade > 0. Per-query
 * lines come in strcmp order of qid, then the "all" lines; measures in
 * trec_eval's fixed order; float values as %6.4f, counts as integers summed
 * over queries; gm_map, gm_bpref, num_q and runid appear only on the "all"
 * lines, relstring only on the per-query ones.
 *
 * Documents of a ranking are graded as trec_eval does: the qrels grade
 * (>= 0), TE_UNJUDGED for a negative grade ("in the pool, unjudged"),
 * TE_NONPOOL for a document the qrels do not list.
 *
 * The run is streamed (one query in memory) when it is grouped by query.
 * Without -M, a query whose lines come back later in the file is evaluated
 * again on its own, and a run with many such queries is streamed twice more
 * without keeping its lines (16 bytes a line: see treceval-scatter.c); with -M an
 * ungrouped run is read whole.
 *
 * Ownership: struct te_output owns its columns, per-query values, relstrings
 * and runid; te_output_release() frees them. A struct te_selection holds no
 * pointer.
 */
#ifndef EVALSET_TREC_EVAL_H
#define EVALSET_TREC_EVAL_H

#include <stdbool.h>
#include <stdio.h>

#include "base/strbuf.h"
#include "score/qrels.h"

struct progress;

#define TE_NONPOOL (-1)
#define TE_UNJUDGED (-2)

/* trec_eval's measures, in its output order. */
enum te_kind {
	TK_RUNID, TK_NUM_Q, TK_NUM_RET, TK_NUM_REL, TK_NUM_REL_RET, TK_MAP, TK_GM_MAP,
	TK_RPREC, TK_BPREF, TK_RECIP_RANK, TK_IPREC, TK_P, TK_RELSTRING, TK_RECALL,
	TK_INFAP, TK_GM_BPREF, TK_RPREC_MULT, TK_UTILITY, TK_11PT_AVG, TK_BING, TK_G,
	TK_DCG, TK_IDEAL_DCG, TK_NDCG, TK_NDCG_REL, TK_RNDCG, TK_NDCG_CUT, TK_MAP_CUT,
	TK_RELATIVE_P, TK_SUCCESS, TK_SET_P, TK_SET_RELATIVE_P, TK_SET_RECALL, TK_SET_MAP,
	TK_SET_F, TK_NUM_NONREL_JUDGED_RET, TK_RBP, TK_RBP_RESID, TK_UNJ,
	TK_COUNT
};

#define TE_MAX_PARAMS 64
#define TE_MAX_PRINTABLE 256

/* The parameters of one measure, as given after its '.' or its defaults. */
struct te_params {
	size_t nr;
	long cut[TE_MAX_PARAMS];          /* integer cutoffs, ascending */
	double val[TE_MAX_PARAMS];        /* real cutoffs (ascending), values, pair values */
	char key[TE_MAX_PARAMS][16];      /* pair names ("1" of "1=3", "p" of "p=0.8") */
	char printable[TE_MAX_PRINTABLE]; /* the text after '.', "" for defaults */
};

struct te_selection {
	bool on[TK_COUNT];
	bool given[TK_COUNT];             /* parameters came from the command line */
	struct te_params p[TK_COUNT];
};

enum te_column_type {
	TE_FLOAT,     /* per query and averaged, %6.4f */
	TE_LONG,      /* per query and summed, %ld */
	TE_GEO,       /* summary only, geometric mean of the per-query logs */
	TE_COUNT_Q,   /* summary only: number of queries */
	TE_RUNID,     /* summary only: the run's tag */
	TE_STRING,    /* per query only: relstring */
};

struct te_column {
	enum te_kind kind;
	enum te_column_type type;
	long k;        /* integer cutoff */
	double pct;    /* real cutoff */
	char name[TE_MAX_PRINTABLE + 32];
};

void te_selection_init(struct te_selection *s);
/*
 * Select the measures of one -m argument ("P.5,10", "ndcg.1=3,2=9",
 * "official", "all_trec", "set"). The first parameters given for a measure
 * win, as in trec_eval. Return 0, or -1 after an error (an unknown name lists
 * the supported ones).
 */
int te_select(struct te_selection *s, const char *arg);
/* Fill 'cols' (caller frees) with the output columns in trec_eval order; return their number. */
size_t te_columns(const struct te_selection *s, struct te_column **cols);
/* Append the supported trec_eval names to 'out'. */
void te_list(struct strbuf *out);

/* One query's ranking as trec_eval's measures see it. */
struct te_ranking {
	const int *rel;        /* rel[i]: grade at rank i + 1, TE_NONPOOL or TE_UNJUDGED */
	long num_ret;
	long num_rel;          /* judged grade >= level, retrieved or not */
	long num_rel_ret;
	long num_nonpool, num_unjudged;
	const long *levels;    /* levels[g]: judged documents of grade g */
	int nr_levels;
	int level;             /* -l */
	long num_docs;         /* -N (utility) */
};

/*
 * Compute the value of column 'c' (of a measure that reads the whole
 * ranking: see te_needs_ranking) for 'r' with the parameters 'p'.
 */
double te_ranking_value(const struct te_column *c, const struct te_params *p,
			const struct te_ranking *r);
/* Write relstring's characters for 'r' (first 'p' documents) into 'out'. */
void te_relstring(const struct te_params *p, const struct te_ranking *r, struct strbuf *out);
/* Return whether column 'c' needs the whole ranking rather than the judged hits. */
bool te_needs_ranking(const struct te_column *c, const struct te_selection *s);

struct te_options {
	bool per_query;      /* -q */
	bool complete;       /* -c */
	bool judged_only;    /* -J */
	bool no_summary;     /* -n */
	int rel_level;       /* -l, default 1, never negative */
	long max_docs;       /* -M, default LONG_MAX; 0 evaluates nothing */
	long num_docs;       /* -N, default 0 */
	int threads;         /* 0 or 2: two threads for a plain run of 16 MiB or more; 1: one */
	struct progress *progress;  /* NULL, or told of the bytes of the run read (borrowed) */
	struct te_selection sel;
};

struct te_query {
	char *qid;
	double *v;           /* parallel to te_output.cols */
	char *relstring;     /* relstring's value, or NULL */
};

struct te_output {
	struct te_column *cols;
	size_t nr_cols;
	struct te_query *q;
	size_t nr, alloc;
	char *runid;
	long summary_num_rel;  /* with -c: qrels lines with a grade > 0 */
	int threads;           /* threads the run was read on (its first pass): 1 or 2 */
};

void te_output_release(struct te_output *out);

/*
 * Evaluate the TREC run 'run_path' against 'qr' with 'o' into 'out'
 * (zeroed). With o->progress, each pass over the run tells it of the
 * bytes read (from 0 again, progress_phase, when a pass reads the run
 * anew); its total, when known, is the file's size. Return 0, or -1 after reporting the problem (bad run line,
 * duplicate docid in an evaluated query, a qrels query missing from the run
 * without -c, no query in common).
 */
int te_evaluate(const struct qrels *qr, const char *run_path, const struct te_options *o,
		struct te_output *out);

/* Print 'out' in trec_eval's format to 'fp'. */
void te_print(const struct te_output *out, const struct te_options *o, FILE *fp);

#endif
