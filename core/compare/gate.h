/*
 * gate: the gate files of SPEC section 5, and judging a comparison by them.
 *
 *   alpha: 0.05                 # optional, in (0, 1); default 0.05
 *   rules:                      # at least one
 *     - measure: R@5            # ir_measures name, or Decline
 *       max_drop: 0.02          # >= 0; a drop is baseline - candidate
 *       significant: true       # optional, default true
 *       subset: {tag: hard}     # optional: {origin: synthetic|mined|hand},
 *                               #   {tag: T} or {answerable: true|false}
 *
 * A rule fails when the drop exceeds max_drop (beyond 1e-12, so a drop
 * exactly at the limit passes) and, when 'significant', the Holm-adjusted
 * p-value of the measure in that subset is below alpha. With 'significant'
 * a row over too few questions (compare.h, COMPARE_MIN_N) passes as "too
 * small to judge"; without it the drop alone decides. A rule whose subset or
 * measure has no questions fails: a gate that cannot look must not pass.
 *
 * Every load error is reported as FILE:LINE:COL. Ownership: struct gate owns
 * its rules and strings (gate_release); gate outcomes own their 'why'.
 */
#ifndef EVALSET_GATE_H
#define EVALSET_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "compare/compare.h"

#define GATE_MAX_FILE_BYTES (1u << 20)

struct gate_rule {
	char *measure;
	double max_drop;
	bool significant;
	enum subset_kind subset;     /* SUBSET_ALL when none */
	char *subset_value;          /* origin, tag, "true"/"false"; NULL for all */
	long line, col;              /* where the rule starts (0: default gate) */
};

struct gate {
	double alpha;
	struct gate_rule *rules;
	size_t nr, alloc;
	char *file;                  /* NULL: the default gate */
};

void gate_init(struct gate *g);
void gate_release(struct gate *g);

/* Load the gate file 'path' into 'g' (initialised). Return 0, or -1 after
 * reporting every problem found as FILE:LINE:COL. */
int gate_load(struct gate *g, const char *path);
/* Like gate_load from 'len' bytes of 'buf', reporting as 'name'. */
int gate_load_buf(struct gate *g, const char *buf, size_t len, const char *name);
/* Make 'g' the default gate: R@k, max_drop 0.02, significant, alpha 0.05. */
void gate_default(struct gate *g, int k);

/* Return true when 'name' is a measure name the gate accepts
 * (P@5, R@10, Success@5, Hit@5, RR, RR@10, nDCG@10, AP, P(rel=2)@5, Decline ...). */
bool gate_measure_name_ok(const char *name);

/* Describe 'rule' in one line ("R@5 max_drop 0.02 significant on tag=hard");
 * caller frees. */
char *gate_rule_describe(const struct gate_rule *rule);

struct gate_outcome {
	bool pass;
	bool judged;                    /* false: too small to judge (passed) */
	const struct measure_cmp *m;    /* into the compare; NULL when absent */
	const char *subset_label;       /* into the compare, or NULL */
	double drop;                    /* baseline - candidate (NAN when absent) */
	char *why;                      /* one line, caller frees */
};

/*
 * Judge 'c' by every rule of 'g' into 'out[0..g->nr)'. Return the number of
 * failed rules, or -1 with an error at the rule's FILE:LINE:COL when a rule
 * names a measure 'c' did not compare.
 */
int gate_evaluate(const struct gate *g, const struct compare *c, struct gate_outcome *out);
void gate_outcomes_release(struct gate_outcome *out, size_t nr);

#endif
