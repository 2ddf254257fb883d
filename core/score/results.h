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
 *              "query_form": "turn",    the form its questions were asked in, when the run's
 *                                       meta says (docs/conversations.md)
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
 *        "docs": [[1, 1, "keys.md", 2], ...],  with a document-level measure only
 *                                           (docrank.h): the relevant documents
 *                                           retrieved: rank of the first chunk,
 *                                           position in the ranking collapsed to
 *                                           documents, name, grade (ascending rank)
 *        "doc_levels": [0, 1, 1],           ... and the relevant documents of grade
 *                                           0 (none), 1, 2, ..., retrieved or not
 *        "calls": [3, 5],                   with an agent's calls only (docs/agents.md): the
 *                                           rank where each call's results end in the
 *                                           union (ascending, the last num_ret; [] when
 *                                           missing, [num_ret] for a plain list)
 *        "values": {"R@5": 1.0, ...},       every measure of "measures", answerable questions only
 *        "leaks": [[2, "c-9", "doc:d.md"], ...]}
 *                                           only for a question with a forbidden list: every
 *                                           forbidden id of its whole ranking (rank in the run's
 *                                           order, id, the entry it matched), ascending rank
 *     ]
 *   }
 * Questions appear in set order; unanswerable ones carry an empty "values".
 * "leaks" is written for exactly the questions with a forbidden list
 * (docs/access.md), so Leak@k at any k can be told from the file; a file
 * of a set that forbids ids without any "leaks" was written before they
 * were saved (results.leaks_absent).
 * Every measure depends on a ranking only through "num_ret", "judged" and
 * "levels" (metrics.h), the document-level ones through "docs" and
 * "doc_levels", the calls' ones through "calls" as well, so a reader can recompute every value from them and the
 * set's labels (resultcheck.h). Version 1 files lack "judged" and
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

struct results_doc {
	long rank;             /* the document's first chunk's rank, 1-based */
	long pos;              /* its position in the ranking collapsed to documents */
	int grade;             /* its grade: the best of its relevant chunks' (>= 1) */
	char *doc;
};

/* A forbidden id a question retrieved (docs/access.md). */
struct results_leak {
	long rank;             /* 1-based, in the run's ranking */
	char *chunk;           /* the id retrieved */
	char *entry;           /* the forbidden entry it matched: the chunk id or doc:NAME */
};

struct question_result {
	char *id;
	char *text;
	char *origin;          /* "synthetic" | "mined" | "hand" | NULL */
	bool answerable;
	char **tags;
	size_t nr_tags;
	char *turn;            /* TURN_FIRST or TURN_FOLLOW_UP when the set has
	                        * conversations, else NULL (set.h) */
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
	struct results_doc *docs;  /* the relevant documents retrieved, ascending rank
	                            * (results.has_docs only) */
	size_t nr_docs;
	long *doc_levels;      /* doc_levels[g]: relevant documents of grade g (0 for g = 0) */
	int nr_doc_levels;
	long *call_end;        /* where each call ends in the ranking (results.has_calls) */
	size_t nr_calls;
	double *values;        /* parallel to results.measures; NAN when not scored */
	bool stale;            /* the run answered another text for this id (not saved) */
	bool forbids;          /* "leaks" recorded: the question has a forbidden list */
	struct results_leak *leaks; /* every forbidden id retrieved, ascending rank */
	size_t nr_leaks;
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
	char *run_query_form;  /* the run meta's "query_form" ("turn", "turn+history"), or NULL */
	int k, depth;
	char **measures;
	size_t nr_measures;
	bool has_docs;         /* questions record their documents ("docs",
	                        * "doc_levels"): scored with a document-level measure */
	bool has_calls;        /* questions record their calls ("calls"): the run gave
	                        * calls, or a measure needs them */
	double *aggregate;     /* parallel to measures */
	double decline, false_decline;
	long nr_answerable, nr_unanswerable;
	struct question_result *q;
	size_t nr;
	bool leaks_absent;     /* the set forbids ids, the file records no leaks (written
	                        * before leaks were saved; set by results_check) */
	char *file;            /* where it was loaded from, or NULL */
	struct results_lookup *lookup;  /* results_find's index by id: a cache it builds
	                                 * at its first call, for the 'q' and 'nr' it
	                                 * was built on; results_release frees it */
};

void results_init(struct results *r);
void results_release(struct results *r);
/* Return the index of 'measure' in r->measures, or -1. */
long results_measure(const struct results *r, const char *measure);
/* Return the (first) question result with 'id', or NULL. Past a few
 * questions, through an index by id that the first call builds and keeps
 * in 'r' (a cache: 'r' is otherwise unchanged; the index is made again
 * when 'q' or 'nr' moved), so that a lookup per question stays linear. */
/* Free what the question 'q' holds (not 'q' itself). */
void question_result_release(struct question_result *q);
struct question_result *results_find(const struct results *r, const char *id);
/* Return the number of leaks of 'q' at rank 'k' or better. */
size_t results_leaks_at(const struct question_result *q, long k);

/* Write 'r' as JSON to 'path' atomically. Return 0 or -1 (reported). */
int results_save(const struct results *r, const char *path);
struct strbuf;
/* Append to 'out' the JSON text results_save writes: streamed, the same
 * bytes as results_to_tree's tree printed (json_add_tree, pretty). */
void results_write(const struct results *r, struct strbuf *out);
/* Return 'r' as the JSON tree that results_save writes (for --format json,
 * which adds to it). Caller frees (cJSON_Delete). */
struct cJSON;
struct cJSON *results_to_tree(const struct results *r);
/* Load a results file; return 0, or -1 with an error naming the file and problem. */
int results_load(struct results *r, const char *path);
/* True when 'path' looks like a results file (a JSON object with "evalset_results"). */
bool results_is_file(const char *path);

#endif
