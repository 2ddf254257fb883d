/*
 * score: the scoring pipeline, from judgments and a ranking to measures.
 *
 * Two layers:
 *   - hits: turn one question's ranking (a struct run_query already in
 *     ranking order, or an unsorted group of TREC lines) into the
 *     struct query_eval of metrics.h. For unsorted lines no sort is needed:
 *     the rank of a judged document is 1 + the number of lines that sort
 *     before it (score descending, docid descending), counted in one pass
 *     with a binary search over the few judged documents.
 *   - score_set / score_qrels: score a loaded run against a set (or TREC
 *     qrels) into a struct results (core/score/results.h), the object that
 *     `score --save` writes and compare/report read. Compare and report call
 *     these directly to score a run file without the CLI.
 *
 * Conventions (docs/design.md, "Measure conventions"): averages are over
 * the answerable questions; a question absent from the run counts as an
 * empty list (zero everywhere) and is reported as missing; run entries for
 * unknown questions are counted and ignored. A question is declined when its entry says "abstained", its
 * list is empty (or absent), or with a decline threshold its top score is
 * below it. With judged_only, documents that are not judged are dropped
 * from the ranking before scoring (trec_eval -J).
 *
 * Ownership: struct hit_ctx owns reusable scratch buffers; hit_ctx_release
 * frees them. A struct query_eval filled by the hit functions points into
 * the context and is valid until its next use.
 */
#ifndef EVALSET_SCORE_H
#define EVALSET_SCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "score/measures.h"
#include "score/metrics.h"
#include "score/qrels.h"
#include "score/results.h"
#include "score/run.h"
#include "set/set.h"

struct corpus;

struct hit_ctx {
	struct judged_hit *hits;
	size_t alloc_hits;
	size_t *hit_at;            /* hits_from_ranked: the place of each hit in the list */
	size_t alloc_hit_at;
	struct jdoc *j;            /* judged documents of the current group */
	size_t alloc_j;
	long *before;
	size_t alloc_before;
	uint32_t *keys;            /* duplicate detection table: docid tags, 0 empty */
	uint32_t *key_lines;       /* ... and the line of each */
	size_t cap, alloc_slots;
	int shift;                 /* 64 - log2(cap) */
	uint64_t *filter;          /* a bit per judged docid's key, so that most lines skip the lookup */
	size_t alloc_filter;
	unsigned char *is_judged;
	size_t alloc_flags;
	struct trec_line **order;  /* sort path */
	size_t alloc_order;
};

void hit_ctx_init(struct hit_ctx *c);
void hit_ctx_release(struct hit_ctx *c);

/*
 * Fill 'e' for the unsorted TREC lines of 'g' judged by 'qq' (NULL: no
 * judgments). 'max_docs' > 0 keeps only the first max_docs of the ranking
 * (trec_eval -M). Return 0, or -1 after reporting a docid listed twice
 * (FILE:LINE) among the documents kept.
 */
int hits_from_group(struct hit_ctx *c, struct trec_group *g, const struct qrels_query *qq,
		    bool judged_only, long max_docs, const char *path, struct query_eval *e);

/* Fill 'e' for the ranked list 'rq' (NULL: empty) judged by 'qq'. */
void hits_from_ranked(struct hit_ctx *c, const struct run_query *rq,
		      const struct qrels_query *qq, bool judged_only, struct query_eval *e);

/* ---- scoring a run into results ---- */

struct score_options {
	const struct measure *measures;  /* per-question measures, in output order */
	size_t nr_measures;
	int k;                           /* context size of find-vs-rank (default 5) */
	long depth;                      /* K of find-vs-rank (default 50) */
	bool judged_only;
	bool has_decline_below;
	double decline_below;
	const struct corpus *corpus;     /* the chunks' documents for the document-level
	                                  * measures (docrank.h); NULL: the chunker's id
	                                  * form, else each chunk a document of its own */
	const char *set_digest;          /* score_set: the set's digest when the caller
	                                  * has it (a frozen version set_open verified,
	                                  * unchanged since); NULL: computed */
};

struct score_summary {
	long missing;                    /* questions absent from the run */
	long unknown;                    /* run questions the set does not have */
	char **unknown_ids;              /* the first few of them */
	size_t nr_unknown_ids;
	long found_top_k;                /* answerable: a relevant document in the top k */
	long found_low;                  /* ... only between k+1 and K */
	long not_found;                  /* ... none in the top K */
	long declined_answerable, declined_unanswerable;
	long empty_run;                  /* the run holds no question at all */
	long unjudged;                   /* answerable questions left without a label */
};

void score_summary_release(struct score_summary *s);

struct question;
/* Fill 'qq' with the labels of the set question 'q' (relevant chunks with
 * their grades, irrelevant ones with grade 0), finished (qrels.h). Return 0,
 * or -1 after an error naming 'file' (a chunk labelled twice). The caller
 * releases 'qq' (qrels_query_release) after a 0. */
int score_question_qrels(const struct question *q, const char *file, struct qrels_query *qq);

/*
 * Score 'run' against the set 's' (version 'version' or NULL for the working
 * copy, digest computed here) into 'out' (initialised by results_init).
 * An answerable question without a relevant label (a set whose labels
 * pointing at chunks absent from the run's corpus were taken out,
 * core/score/bind.h) is unjudged: its values are NaN and it counts in no
 * average, no find-vs-rank bucket and no decline rate.
 * 'run_path' names the run file for the results and its SHA-256. Return 0,
 * or -1 (reported): a run none of whose questions the set knows (a run for
 * another set) is refused; an empty run is scored (zeros) with a warning.
 */
int score_set(const struct set *s, const char *version, const struct run *run,
	      const char *run_path, const struct score_options *o,
	      struct results *out, struct score_summary *sum);

/*
 * Scoring while the run is read, so that a run of millions of lines is
 * never held whole: score_early_start, then run_load_each(..., 
 * score_early_question, &early) scores each question of a TREC run as soon
 * as its list is complete and lets the list go; score_set_early then takes
 * the early results (an array in set order) as those of 'out' and scores
 * the questions left (missing from the run, or not taken), so that the
 * results are those
 * score_set gives on the whole run. The early scoring is off (every list
 * kept) for --judged-only and document-level measures (they read the run
 * again), for a set with a question id twice or none, and for JSONL and
 * JSON runs (a JSONL run may record the corpus it was made over, which can
 * take labels out of the set before scoring, and calls, which add
 * measures). The caller keeps 's' and 'o' unchanged from start to
 * score_set_early once a question was taken (nr_done > 0; with none taken
 * the early scoring is ignored, so the set may have been replaced), and
 * leaves the early scoring off (does not load with the hook) when anything
 * else reads the run's lists after the load.
 */
struct score_early {
	const struct set *s;
	const struct score_options *o;
	bool on;                      /* questions may be taken (the cases above) */
	bool conversational;
	struct set_lookup lk;         /* the questions of 's' by id */
	struct hit_ctx c;
	struct question_result *q;    /* s->nr: the questions scored early, in set order
				       * (score_set_early takes the array) */
	bool *done;
	size_t nr_done;
};

void score_early_start(struct score_early *e, const struct set *s, const struct score_options *o);
/* The run_each_fn of run_load_each ('data': the struct score_early). */
int score_early_question(struct run *r, struct run_query *q, void *data);
/* Free what 'e' holds (questions scored early and not taken by score_set_early). */
void score_early_release(struct score_early *e);
/* score_set with the questions 'early' (may be NULL) scored while the run was read. */
int score_set_early(const struct set *s, const char *version, const struct run *run,
		    const char *run_path, const struct score_options *o, struct score_early *early,
		    struct results *out, struct score_summary *sum);

/* Like score_set for TREC qrels: every qrels query with a relevant document
 * is answerable, the others unanswerable. The set name is the qrels path. */
int score_qrels(const struct qrels *qr, const struct run *run, const char *run_path,
		const struct score_options *o, struct results *out, struct score_summary *sum);

/* The default measures of `score`: R@1,3,5,10,20,50,100 Success@1,5,10 P@5 RR nDCG@10 Judged@5,10. */
size_t score_default_measures(struct measure *out, size_t max);

/*
 * Mean of measure 'mi' of 'r' over the answerable questions for which
 * 'match' (NULL: all) returns true; '*n' receives their number.
 */
double score_mean(const struct results *r, size_t mi,
		  bool (*match)(const struct question_result *q, const void *arg),
		  const void *arg, long *n);

/* Calls to the first relevant chunk over the answerable, judged questions
 * of 'r' (results.has_calls; docs/agents.md). */
struct calls_to_rel {
	long questions;   /* answerable, judged questions */
	long reached;     /* ... whose calls brought a relevant chunk */
	double mean;      /* mean 1-based number of the first call that brought one,
	                   * over the 'reached' questions (0 when none) */
};
/* Fill 'out' from the calls and relevant ranks 'r' records. */
void score_calls_to_rel(const struct results *r, struct calls_to_rel *out);

#endif
