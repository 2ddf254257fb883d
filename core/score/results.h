/*
 * results: per-question scores of one run against one set, saved as JSON by
 * `score --save` and read back by compare, power and report.
 *
 * File format (JSON, one object):
 *   {
 *     "evalset_results": 2,
 *     "set":  {"name": "squad-demo", "version": "v1" | null, "digest": "sha256:..."},
 *     "run":  {"path": "runs/bm25.jsonl", "sha256": "sha256:...", "name": "bm25" | null,
 *              "ranked_by": "score",    only for a JSONL run ranked by score (--rank-by score)
 *              "corpus": "sha256:...",  the corpus the run records it was made over, if any
 *              "labels_absent": 2},     labels left out: their chunks are not in that corpus
 *     "k": 5,                               context size used for find-vs-rank
 *     "depth": 50,                          K of find-vs-rank
 *     "measures": ["R@5", "nDCG@10", ...],  names in output order
 *     "aggregate": {"R@5": 0.61, ...},      means over answerable questions
 *     "decline": {"Decline": 0.4, "FalseDecline": 0.02, "unanswerable": 30, "answerable": 120},
 *     "questions": [
 *       {"id": "q-0001", "text": "...", "origin": "hand", "answerable": true,
 *        "tags": ["hard"], "missing": false, "declined": false,
 *        "unjudged": true,                  only when every label was left out (no values)
 *        "num_ret": 100, "num_rel": 2,
 *        "rel_ranks": [3, 17],              1-based ranks of the relevant documents retrieved, ascending
 *        "top": ["c-1", "c-2", ...],        the first (up to) 10 retrieved ids
 *        "judged": [[3, "c-7", 2], ...],    every retrieved document the labels judge:
 *                                           rank, id, grade (ascending rank)
 *        "levels": [4, 2, 1],               judged documents of grade 0, 1, 2, ...,
 *                                           retrieved or not
 *        "values": {"R@5": 1.0, ...}}       every measure of "measures", answerable questions only
 *     ]
 *   }
 * Questions appear in set order; unanswerable ones carry an empty "values".
 * Every measure depends on a ranking only through "num_ret", "judged" and
 * "levels" (metrics.h), so a reader can recompute every value from them and
 * the set's labels (resultcheck.h). Version 1 files lack "judged" and
 * "levels"; they load (format 1) but cannot be checked.
 *
 * Ownership: struct results owns everything it points to; results_release
 * frees it.
 */
#ifndef EVALSET_RESULTS_H
#define EVALSET_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#define RESULTS_TOP 10
#define RESULTS_FORMAT 2

struct results_judged {
	long rank;             /* 1-based, in the evaluated ranking */
	int grade;             /* the label's grade (>= 0), or REL_UNJUDGED (metrics.h) */
	char *id;
};

struct question_result {
	char *id;
	char *text;
	char *origin;          /* "synthetic" | "mined" | "hand" | NULL */
	bool answerable;
	char **tags;
	size_t nr_tags;
	bool missing;          /* absent from the run */
	bool declined;
	long num_ret, num_rel;
	long *rel_ranks;       /* ascending, 1-based */
	size_t nr_rel_ranks;
	char **top;            /* up to RESULTS_TOP ids */
	size_t nr_top;
	struct results_judged *judged; /* ascending rank */
	size_t nr_judged;
	long *levels;          /* levels[g]: judged documents of grade g, retrieved or not */
	int nr_levels;
	double *values;        /* parallel to results.measures; NAN when not scored */
	bool stale;            /* the run answered another text for this id (not saved) */
	bool unjudged;         /* answerable, but every label points at a chunk absent
	                        * from the corpus the run was made over: no values,
	                        * in no average (saved as "unjudged": true) */
};

struct results {
	int format;            /* the file's "evalset_results" (2; 1 lacks judged ranks);
	                        * RESULTS_FORMAT for results made in memory */
	char *set_name;
	char *set_version;     /* NULL: working copy */
	char *set_digest;
	char *run_corpus;      /* fingerprint of the corpus the run records it was made
	                        * over, or NULL */
	long labels_absent;    /* labels left out: their chunks are not in that corpus */
	char *judged_on;       /* fingerprint of the corpus the run was judged on when
	                        * labels were carried there by their evidence
	                        * (score --corpus); NULL: the set's own chunk ids */
	char *run_path;
	char *run_sha256;
	char *run_name;
	char *run_ranked_by;   /* "score": a JSONL run ranked by score; NULL: as its format ranks */
	int k, depth;
	char **measures;
	size_t nr_measures;
	double *aggregate;     /* parallel to measures */
	double decline, false_decline;
	long nr_answerable, nr_unanswerable;
	struct question_result *q;
	size_t nr;
	char *file;            /* where it was loaded from, or NULL */
};

void results_init(struct results *r);
void results_release(struct results *r);
/* Return the index of 'measure' in r->measures, or -1. */
long results_measure(const struct results *r, const char *measure);
/* Return the question result with 'id', or NULL. */
struct question_result *results_find(const struct results *r, const char *id);

/* Write 'r' as JSON to 'path' atomically. Return 0 or -1 (reported). */
int results_save(const struct results *r, const char *path);
/* Return 'r' as the JSON tree that results_save writes (for --format json). Caller frees (cJSON_Delete). */
struct cJSON;
struct cJSON *results_to_tree(const struct results *r);
/* Load a results file; return 0, or -1 with an error naming the file and problem. */
int results_load(struct results *r, const char *path);
/* True when 'path' looks like a results file (a JSON object with "evalset_results"). */
bool results_is_file(const char *path);

#endif
