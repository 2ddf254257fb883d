/*
 * gate: the gate files (docs/compare.md, "The gate"; docs/design.md, "The
 * gate"), and judging a comparison by them.
 *
 *   alpha: 0.05                 # optional, in (0, 1); default 0.05
 *   allow_missing: 0            # optional: questions the candidate may miss
 *                               #   that the baseline answered (coverage rule)
 *   rules:                      # at least one
 *     - measure: R@5            # ir_measures name, Decline or FalseDecline
 *       max_drop: 0.02          # >= 0; a drop is baseline - candidate
 *       test: drop              # drop (default) | non-inferiority | none
 *       subset: {tag: hard}     # optional: {origin: synthetic|mined|hand},
 *                               #   {tag: T} or {answerable: true|false}
 *       min_questions: 20       # optional: refuse a smaller subset
 *     - measure: FalseDecline
 *       max_rise: 0.02          # FalseDecline takes max_rise (higher is worse)
 *
 * Tests (one-sided against the margin, computed by compare-rules.c through
 * gatetest.h, which states what each guarantees; docs/compare.md shows it
 * to users). Every rule's measure lies in [0, 1] (count measures such as
 * NumRet are refused), so a question's loss lies in [-1, 1]:
 *  - drop: fails when the loss is significantly larger than the margin; the
 *    drop rules are one family (Holm), so the chance that any of them fails
 *    a candidate whose true losses are all at or within their margins is at
 *    most alpha.
 *  - non-inferiority: passes only when the loss is shown to be smaller than
 *    the margin (each at alpha: the gate needs all of them, an
 *    intersection-union test, which needs no adjustment).
 *  - none: a plain threshold on the observed loss.
 * Old files: 'significant: true' maps to 'test: drop' with a warning (its
 * meaning changed), 'significant: false' to 'test: none'.
 * A coverage rule is always added: the candidate must not miss more than
 * 'allow_missing' questions the baseline answered.
 *
 * Every load error is reported as FILE:LINE:COL. Ownership: struct gate owns
 * its rules and strings (gate_release); gate outcomes own their 'why'.
 */
#ifndef EVALSET_GATE_H
#define EVALSET_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "compare/compare.h"

#define GATE_MAX_FILE_BYTES (1u << 20)

struct gate_rule {
	char *measure;
	double max_drop;             /* the margin (max_rise for FalseDecline) */
	enum rule_test test;
	bool rise;                   /* FalseDecline: a loss is a rise */
	bool optional;               /* default gate: dropped when it has no question */
	long min_questions;          /* 0: none */
	enum subset_kind subset;     /* SUBSET_ALL when none */
	char *subset_value;          /* origin, tag, "true"/"false"; NULL for all */
	long line, col;              /* where the rule starts (0: default gate) */
};

struct gate {
	double alpha;
	long allow_missing;
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
/* Make 'g' the default gate (alpha 0.05, allow_missing 0): R@k max_drop
 * 0.02, Decline max_drop 0.05 (when the set has unanswerable questions) and
 * FalseDecline max_rise 0.02, all test: drop. */
void gate_default(struct gate *g, int k);
/* Return the name of 'test' ("drop", "non-inferiority", "none"). */
const char *gate_test_name(enum rule_test test);

/*
 * Return the canonical name of 'name', a measure of a gate rule: the names
 * and aliases -m takes, in any case (Recall@5 -> R@5, ndcg@10 -> nDCG@10,
 * Hit@5 -> Success@5, MRR -> RR, MAP -> AP), and Decline and FalseDecline.
 * Return NULL with the problem in 'why' (an unknown name with the closest
 * known ones) otherwise. The caller frees the name.
 */
char *gate_measure_canonical(const char *name, struct strbuf *why);
/*
 * The canonical names of the 'nr' measures 'names' (gate_measure_canonical),
 * as a NULL-terminated array the caller frees with gate_measures_free(). An unknown
 * name is reported ("measure 'X': ...", with the closest known ones) and NULL
 * returned.
 */
char **gate_measures_canonical(const char *const *names, size_t nr);
void gate_measures_free(char **names);
/* Return true when the canonical measure 'name' lies in [0, 1] on every
 * question (every measure but the counts NumRet, NumRel, NumRelRet). */
bool gate_measure_bounded(const char *name);
/* Return true when 'name' is a measure name the gate accepts (gate_measure_canonical). */
bool gate_measure_name_ok(const char *name);

/* Describe 'rule' in one line ("R@5 max_drop 0.02 test drop on tag=hard");
 * caller frees. */
char *gate_rule_describe(const struct gate_rule *rule);

/*
 * Refuse rule 'rule' of 'g' when on 'n' questions (its subset, named
 * 'subset' in messages) it could never decide, before anything is
 * computed: no question, fewer than its min_questions, a drop rule whose
 * smallest p (every question losing 1) is not below the level it is first
 * judged at (alpha over the 'm' drop rules of the family), a
 * non-inferiority rule that a candidate changing nothing could never pass.
 * Return 0, or -1 after an error at the rule's FILE:LINE:COL that says what
 * to change (questions needed, a larger alpha, another test).
 */
int gate_rule_check(const struct gate *g, size_t rule, size_t n, size_t m, const char *subset);

struct gate_outcome {
	bool pass;
	const struct rule_cmp *rc;      /* into the compare; NULL for coverage */
	double drop;                    /* the loss (NAN for coverage) */
	char *why;                      /* one line, caller frees */
};

/*
 * Judge 'c' (computed with this gate in its options) by every rule of 'g'
 * into 'out[0..g->nr]': one outcome per rule, then the coverage rule last.
 * Return the number of failed rules, or -1 with an error when 'c' holds no
 * test for the gate's rules.
 */
#define GATE_OUTCOMES(g) ((g)->nr + 1)
int gate_evaluate(const struct gate *g, const struct compare *c, struct gate_outcome *out);
void gate_outcomes_release(struct gate_outcome *out, size_t nr);

#endif
