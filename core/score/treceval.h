/*
 * treceval: `evalset trec-eval`, a drop-in for trec_eval v10.0 over the
 * measures of measures.h, with byte-identical output wherever trec_eval
 * succeeds.
 *
 * Semantics kept from trec_eval v10.0: only queries present in both the
 * qrels and the run are evaluated; a run query without judgments is ignored
 * (duplicates inside it included); without -c, a qrels query absent from the
 * run is an error (v10.0 exits non-zero there), with -c it is evaluated as an
 * empty ranking and the averages are over every qrels query. Per-query lines
 * come in strcmp order of qid, then the "all" lines; measures in trec_eval's
 * fixed order; float values as %6.4f, counts as integers summed over queries;
 * gm_map, num_q and runid appear only on the "all" lines.
 *
 * The run is streamed (one query in memory) when it is grouped by query, and
 * read whole when it is not.
 *
 * Ownership: struct te_output owns its columns, per-query values and runid;
 * te_output_release() frees them.
 */
#ifndef EVALSET_TREC_EVAL_H
#define EVALSET_TREC_EVAL_H

#include <stdbool.h>
#include <stdio.h>

#include "score/measures.h"
#include "score/qrels.h"

struct te_options {
	bool per_query;      /* -q */
	bool complete;       /* -c */
	bool judged_only;    /* -J */
	int rel_level;       /* -l, default 1 */
	long max_docs;       /* -M, 0: no limit */
	struct te_selection sel;
};

struct te_query {
	char *qid;
	double *v;           /* parallel to te_output.cols */
};

struct te_output {
	struct te_column *cols;
	size_t nr_cols;
	struct te_query *q;
	size_t nr, alloc;
	char *runid;
};

void te_output_release(struct te_output *out);

/*
 * Evaluate the TREC run 'run_path' against 'qr' with 'o' into 'out'
 * (zeroed). Return 0, or -1 after reporting the problem (bad run line,
 * duplicate docid in an evaluated query, a qrels query missing from the run
 * without -c, no query in common).
 */
int te_evaluate(const struct qrels *qr, const char *run_path, const struct te_options *o,
		struct te_output *out);

/* Print 'out' in trec_eval's format to 'fp'. */
void te_print(const struct te_output *out, const struct te_options *o, FILE *fp);

#endif
