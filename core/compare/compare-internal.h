/*
 * compare-internal: what the files of the compare module (compare.c,
 * compare-leak.c, compare-pair.c, compare-rules.c) share; nothing outside
 * them includes it.
 *
 * A side is the runs of one system; the pairs are the questions compared,
 * in the order of the first baseline run, each with its question in every
 * run of both sides; a column is one measure's per-question values on both
 * sides over a list of pairs. Pointers into the results are borrowed.
 */
#ifndef EVALSET_COMPARE_INTERNAL_H
#define EVALSET_COMPARE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "compare/compare.h"

struct question_result;
struct results;
struct strmap;

/* Where a measure lives in each run of a side: a column, or a derived kind. */
#define COL_DECLINE (-1)
#define COL_FALSE_DECLINE (-2)

struct side {
	const struct results *const *r;
	size_t nr;
};

/* The questions compared: bq[p * nr + k] is pair p's question in run k of a side. */
struct pairs {
	const struct question_result **bq, **cq;
	size_t n;
	/* measure name -> struct column over every pair, made by the first
	 * cmp_fill_column of that measure: every later one gathers from it
	 * instead of following each question's pointers again */
	struct strmap *cols;
};

/* Per-question values of one measure on both sides over the pairs 'idx'. */
struct column {
	double *b, *c;      /* means over each side's runs */
	double *rb, *rc;    /* per run: rb[k * n + i] */
	size_t n;
};

/* Return the index of 'name' in r->measures, or -1. */
long cmp_measure_index(const struct results *r, const char *name);
/* Return how to name the runs of 'sd' to a user: "NAME (FILE)", or
 * whichever is known, "+N more" for repeated runs; caller frees. */
char *cmp_side_label(const struct side *sd);
/* Return the origin of 'q', "hand" when it has none. */
const char *cmp_origin_of(const struct question_result *q);
/* Fill 'cols[0..sd->nr)' with the column of 'name' in each run of 'sd';
 * return 0, or -1 with an error naming a run that lacks it. */
int cmp_side_columns(const struct side *sd, const char *name, long *cols);
/* Return the value of 'q' in column 'col' (1/0 for the derived ones). */
double cmp_value_of(const struct question_result *q, long col);
/* Pair the questions of both sides into 'pr' (contract in compare-pair.c);
 * return 0, or -1 with an error when they differ and 'allow' is false. */
int cmp_pair_questions(struct compare *c, const struct side *b, const struct side *cs,
		       struct pairs *pr, bool allow);
/* Count the questions missing on each side into 'c'; list the new ones. */
void cmp_count_missing(struct compare *c, const struct side *b, const struct side *cs,
		       const struct pairs *pr);
/* Return true when 'q' belongs to the subset 'kind' = 'value'. */
bool cmp_in_subset(enum subset_kind kind, const char *value, const struct question_result *q);
/* Fill 'col' with measure 'name' over the pairs 'idx[0..n)'; return 0, or
 * -1 with an error (a question with no value). Release 'col' either way. */
int cmp_fill_column(const struct compare *c, const struct side *b, const struct side *cs,
		    const struct pairs *pr, const size_t *idx, size_t n, const char *name,
		    struct column *col);
void cmp_column_release(struct column *col);
/* Free what cmp_pair_questions allocated in 'pr' (the pairs and their columns). */
void cmp_pairs_release(struct pairs *pr);
/* Fill effect size and win/tie/loss from 'd' (oriented so positive is better). */
void cmp_describe_deltas(const double *d, size_t n, double *effect, size_t *win,
			 size_t *tie, size_t *loss);
/* Test the gate's rules of 'o' into c->rules (compare-rules.c); return 0,
 * or -1 with an error (a rule that could never decide, at its FILE:LINE:COL). */
int cmp_test_rules(struct compare *c, const struct compare_opts *o, const struct side *b,
		   const struct side *cs, const struct pairs *pr);

/* Find the candidate's leaks at 'k' into 'c' (compare-leak.c); refuse a
 * candidate whose results record none though its set forbids ids. Return 0
 * or -1 (reported). */
int cmp_leaks(struct compare *c, const struct results *const *base, size_t nb,
	      const struct results *const *cand, size_t nc, long k);
void cmp_leaks_release(struct compare *c);

#endif
