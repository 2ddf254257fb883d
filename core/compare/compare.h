/*
 * compare: the paired comparison of a baseline and a candidate scored on one
 * set (SPEC section 5), computed into a struct and never printed here.
 * cmd/compare.c, cmd/power.c and the HTML report render a struct compare.
 *
 * Invariants:
 *  - Both results must carry the same set digest; otherwise compare_run
 *    refuses, unless 'allow_set_change', in which case only the questions
 *    present in both (by id, with the same answerable flag) are compared and
 *    'set_changed' is true, which every renderer must show.
 *  - IR measures are compared over the answerable questions; the derived
 *    measure "Decline" over the unanswerable ones (per question 1 when the
 *    system declined, else 0). delta = candidate - baseline; a "drop" is
 *    baseline - candidate.
 *  - subsets[0] is the whole comparison ("all"); then origin=synthetic,
 *    origin=mined, origin=hand, answerable=true, answerable=false and
 *    tag=T (tags sorted by strcmp), each present only when it has questions.
 *    Questions without an origin count as hand.
 *  - Holm adjusts the p-values of the measures of one subset (one family
 *    per subset). A measure row over fewer than COMPARE_MIN_N questions is
 *    marked too_small: its numbers are shown but do not judge.
 *
 * Ownership: struct compare owns every string and array it points to;
 * compare_release frees them. It keeps no pointer into the results.
 */
#ifndef EVALSET_COMPARE_H
#define EVALSET_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct results;

#define COMPARE_MIN_N 10
#define COMPARE_DECLINE "Decline"

struct measure_cmp {
	size_t n;                   /* questions the row is computed over */
	double baseline, candidate; /* means over those questions */
	double delta;               /* candidate - baseline */
	double ci_lo, ci_hi;        /* bootstrap CI of delta */
	double p, p_adj;            /* randomisation p, Holm-adjusted (NAN when n is 0) */
	bool too_small;             /* 0 < n < COMPARE_MIN_N */
};

enum subset_kind {
	SUBSET_ALL,
	SUBSET_ORIGIN,
	SUBSET_ANSWERABLE,
	SUBSET_TAG,
};

struct subset_cmp {
	enum subset_kind kind;
	char *value;        /* "mined", "true"/"false", the tag; NULL for all */
	char *label;        /* "all", "origin=mined", "answerable=false", "tag=hard" */
	size_t nr_questions;
	struct measure_cmp *m;  /* parallel to compare.measures */
};

struct question_change {
	char *id;
	char *text;
	long rank_before, rank_after;  /* first relevant rank, 0 when none retrieved */
};

struct compare_opts {
	const char *const *measures;  /* NULL/0: every measure both results hold, then Decline */
	size_t nr_measures;
	const char *const *extra;     /* compared too, after those (e.g. a gate's measures) */
	size_t nr_extra;
	int k;                        /* find in the top k (lost/gained); default 5 */
	long resamples, permutations; /* default 10000 each */
	uint64_t seed;                /* bootstrap seed; permutations use seed + 1 */
	double level;                 /* CI level, default 0.95 */
	bool allow_set_change;
};
#define COMPARE_OPTS_INIT { NULL, 0, NULL, 0, 5, 10000, 10000, 1, 0.95, false }

struct compare {
	char *set_name;
	char *base_version, *cand_version;  /* NULL: working copy */
	char *base_digest, *cand_digest;
	char *base_label, *cand_label;      /* run name, else file, else run path */
	bool set_changed;
	size_t nr_only_base, nr_only_cand;  /* questions left out (set_changed only) */
	size_t nr_questions;                /* questions compared */
	size_t nr_answerable, nr_unanswerable;
	char **measures;
	size_t nr_measures;
	struct subset_cmp *subsets;
	size_t nr_subsets;
	struct question_change *lost, *gained;
	size_t nr_lost, nr_gained;
	int k;
	long resamples, permutations;
	uint64_t boot_seed, perm_seed;
	double level;
};

void compare_init(struct compare *c);
void compare_release(struct compare *c);

/*
 * Compare 'cand' against 'base' into 'c' (initialised). Return 0, or -1 with
 * an error: different set digests (naming both versions and files) without
 * 'allow_set_change', a requested measure missing from either results, an
 * answerable question with no value for a compared measure.
 */
int compare_run(struct compare *c, const struct results *base,
		const struct results *cand, const struct compare_opts *o);

/* Return the index of 'measure' in c->measures, or -1. */
long compare_measure(const struct compare *c, const char *measure);
/* Return the subset of 'kind' with 'value' (ignored for SUBSET_ALL), or NULL. */
const struct subset_cmp *compare_subset(const struct compare *c, enum subset_kind kind,
					const char *value);
/* Return the version name of a results' set for messages: the tag or "working copy". */
const char *compare_version_name(const char *version);

/* ---- power (SPEC section 5) ---- */

struct power_estimate {
	size_t n;        /* questions the spread was measured on */
	double sd;       /* per-question sd (one result) or sd of the deltas (two) */
	double mde;      /* minimum detectable effect at 'alpha' and 'power' */
	double effect;   /* the effect asked about */
	long needed;     /* questions needed to detect 'effect' (-1: no spread) */
	bool paired;     /* sd is of paired deltas */
};

/*
 * Estimate power for 'measure' ("Decline" included) from one result ('cand'
 * NULL: the per-question sd of 'base', assuming two systems correlate at 0.5
 * so that the sd of their deltas equals it) or from two ('base', 'cand': the
 * sd of the paired deltas over common questions). Alpha 0.05, power 0.8.
 * This is the function `check` calls to show power for a saved result.
 * Return 0, or -1 with an error (measure missing, no questions).
 */
int power_estimate(const struct results *base, const struct results *cand,
		   const char *measure, double effect, struct power_estimate *out);

#endif
