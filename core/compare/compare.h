/*
 * compare: the paired comparison of a baseline and a candidate scored on one
 * set (docs/design.md, "The gate"; docs/compare.md), computed into a struct
 * and never printed here.
 * cmd/compare.c, cmd/power.c and the HTML report render a struct compare.
 *
 * Invariants:
 *  - Each side is one or more results of one system (repeated runs); a
 *    question's value on a side is the mean over its runs, and the spread of
 *    the runs' means is kept per measure. Every results must carry the same
 *    set digest; otherwise compare_run refuses, unless 'allow_set_change',
 *    in which case only the questions present on both sides with the same
 *    text and answerable flag are compared, the others are listed in
 *    'left_out', and 'set_changed' is true, which every renderer shows.
 *  - IR measures are compared over the answerable questions; the derived
 *    measures "Decline" over the unanswerable ones and "FalseDecline" over
 *    the answerable ones (per question 1 when the system declined, else 0).
 *    A question absent from a run is missing, never declined: it counts 0
 *    on every measure, Decline and FalseDecline included, and is counted per
 *    side. delta = candidate - baseline.
 *  - The table's p are per measure, two-sided and unadjusted: informational.
 *    The gate's rules are tested apart (rules[], parallel to the gate's
 *    rules) on their own columns and seed, so the verdict never depends on
 *    which measures are shown or in what order.
 *  - subsets[0] is the whole comparison ("all"); then origin=synthetic,
 *    origin=mined, origin=hand, answerable=true, answerable=false,
 *    tag=T (tags sorted by strcmp), then turn=first and turn=follow-up
 *    (sets with conversations), each present only when it has questions.
 *    Questions without an origin count as hand.
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
struct results_leak;
struct gate;
struct gatetest_cache;

#define COMPARE_DECLINE "Decline"
#define COMPARE_FALSE_DECLINE "FalseDecline"

struct measure_cmp {
	size_t n;                   /* questions the row is computed over */
	double baseline, candidate; /* means over those questions */
	double delta;               /* candidate - baseline */
	double ci_lo, ci_hi;        /* bootstrap CI of delta */
	double p;                   /* two-sided randomisation p, unadjusted (NAN when n is 0) */
	double effect;              /* mean delta / sd of the deltas (NAN when sd is 0) */
	size_t win, tie, loss;      /* questions better / equal / worse for the candidate */
	double base_spread, cand_spread; /* sd of the runs' means (NAN with one run) */
};

enum subset_kind {
	SUBSET_ALL,
	SUBSET_ORIGIN,
	SUBSET_ANSWERABLE,
	SUBSET_TAG,
	SUBSET_TURN,        /* TURN_FIRST or TURN_FOLLOW_UP (set.h) */
};

enum rule_test { TEST_DROP, TEST_NONINF, TEST_NONE };

struct subset_cmp {
	enum subset_kind kind;
	char *value;        /* "mined", "true"/"false", the tag, "follow-up"; NULL for all */
	char *label;        /* "all", "origin=mined", "answerable=false", "tag=hard", "turn=first" */
	size_t nr_questions;
	struct measure_cmp *m;  /* parallel to compare.measures */
};

/* The test of one gate rule (gatetest.h). */
struct rule_cmp {
	char *measure;      /* as compared (Hit@k resolved to Success@k when so held) */
	char *subset_label;
	size_t n;           /* questions in the rule's subset */
	double baseline, candidate;
	double loss;        /* drop (baseline - candidate), or rise for FalseDecline */
	double p, p_adj;    /* one-sided; p_adj: Holm's over the drop rules, = p otherwise; NAN for none */
	double level;       /* the level the rule was judged at (alpha / drop rules left at its step) */
	double bound;       /* drop: lower bound of the loss; non-inferiority: upper bound; at 'level' */
	bool reject;        /* drop: fails; non-inferiority: passes */
	size_t up, down;    /* questions whose rounded loss is +1, -1 */
	size_t rounded;     /* losses strictly between 0 and 1 in size, rounded to -1, 0 or +1 */
	double effect;
	size_t win, tie, loss_n;
	size_t min_lost;    /* drop: questions that must each lose 1 for the rule, judged at
			     * alpha / drop rules, to fail with no other change (0: none) */
};

struct question_change {
	char *id;
	char *text;
	long rank_before, rank_after;  /* first relevant rank, 0 when none retrieved */
};

struct progress;

/* A candidate question that retrieved a forbidden id in the top k
 * (docs/access.md). */
struct leak_cmp {
	char *id;
	struct results_leak *hits;   /* within the top k, ascending rank (over the
				      * candidate's runs: each run's, in turn) */
	size_t nr;
	bool in_baseline;            /* the baseline leaked it too, at that k */
};

struct compare_opts {
	const char *const *measures;  /* NULL/0: every measure both results hold, then Decline, FalseDecline */
	size_t nr_measures;
	const struct gate *gate;      /* its rules are tested (NULL: none) */
	int k;                        /* find in the top k (lost/gained); default 5 */
	long resamples, permutations; /* default 10000 each */
	uint64_t seed;                /* bootstrap seed; permutations seed + 1; the gate's rounding seed + 2 */
	double level;                 /* CI level, default 0.95 */
	bool allow_set_change;
	bool gate_only;               /* the rules' verdicts only: no table, no lost and
				       * gained, no bounds (power's simulations) */
	struct gatetest_cache *cache; /* p-values kept across calls (gatetest.h), or NULL */
	struct progress *progress;    /* NULL, or told of the gate's rules, then the subsets,
				       * done (a phase each, progress_phase) */
};
#define COMPARE_OPTS_INIT { NULL, 0, NULL, 5, 10000, 10000, 1, 0.95, false, false, NULL, NULL }

struct compare {
	char *set_name;
	char *base_version, *cand_version;  /* NULL: working copy */
	char *base_digest, *cand_digest;
	char *base_label, *cand_label;      /* run name, else file, else run path; "+N more" */
	size_t nr_base_runs, nr_cand_runs;
	bool set_changed;
	size_t nr_only_base, nr_only_cand;  /* questions left out (set_changed only) */
	char **left_out;                    /* ids left out by a set change, with why */
	size_t nr_left_out;
	size_t nr_questions;                /* questions compared */
	size_t nr_answerable, nr_unanswerable;
	size_t missing_base, missing_cand;  /* questions missing on each side */
	size_t missing_new;                 /* missing in the candidate, answered by the baseline */
	char **missing_new_ids;             /* the first COMPARE_LIST of them */
	size_t nr_missing_new_ids;
	char **measures;
	size_t nr_measures;
	struct subset_cmp *subsets;
	size_t nr_subsets;
	struct rule_cmp *rules;             /* parallel to opts->gate->rules */
	size_t nr_rules;
	size_t rules_family;                /* drop rules tested together (Holm) */
	struct question_change *lost, *gained;
	size_t nr_lost, nr_gained;
	/* leaks, computed when the gate has a leak rule (leak_k 0: not computed) */
	long leak_k;
	size_t leak_forbidding;             /* candidate questions with a forbidden list */
	struct leak_cmp *leaks;             /* the leaking ones, in the candidate's order */
	size_t nr_leaks;
	size_t base_leaking;                /* baseline questions leaking at leak_k */
	bool base_leaks_absent;             /* the baseline's results record no leaks */
	int k;
	long resamples, permutations;
	uint64_t boot_seed, perm_seed, gate_seed;
	double level;
};

#define COMPARE_LIST 20

void compare_init(struct compare *c);
void compare_release(struct compare *c);

/*
 * Compare the candidate runs 'cand[0..nc)' against the baseline runs
 * 'base[0..nb)' into 'c' (initialised). Return 0, or -1 with an error:
 * different set digests (naming both versions and files) without
 * 'allow_set_change', a requested measure missing from a results, an
 * answerable question with no value for a compared measure, a gate rule
 * that could never fail or whose subset is smaller than its min_questions
 * (at the rule's FILE:LINE:COL, checked before any test is computed), a
 * gate with a leak rule and a candidate whose results record no leaks
 * though its set forbids ids (written before leaks were saved).
 */
int compare_run(struct compare *c, const struct results *const *base, size_t nb,
		const struct results *const *cand, size_t nc, const struct compare_opts *o);

/* Return the index of 'measure' in c->measures, or -1. */
long compare_measure(const struct compare *c, const char *measure);
/* Return the subset of 'kind' with 'value' (ignored for SUBSET_ALL), or NULL. */
const struct subset_cmp *compare_subset(const struct compare *c, enum subset_kind kind,
					const char *value);
/* Return the version name of a results' set for messages: the tag or "working copy". */
const char *compare_version_name(const char *version);
/* Return true when a larger value of 'measure' is worse (FalseDecline). */
bool compare_lower_is_better(const char *measure);

/* ---- power (docs/compare.md, "Power") ---- */

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
