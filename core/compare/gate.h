/*
 * gate: the gate files (docs/compare.md, "The gate"; docs/design.md, "The
 * gate"), and judging a comparison by them.
 *
 *   alpha: 0.05                 # optional, in (0, 1); default 0.05
 *   allow_missing: 0            # optional: questions the candidate may miss
 *                               #   that the baseline answered (coverage rule)
 *   max_leak: 0                 # optional: candidate questions allowed to
 *                               #   retrieve a forbidden id in the top k (the
 *                               #   comparison's k), or {questions: 0, k: 10}
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
 * The leak rule (docs/access.md, "The gate"), when the gate has one, is an
 * exact count with no test: it fails when more than 'max_leak' candidate
 * questions retrieve a forbidden id in the top k; a leak the baseline had
 * too counts the same. Like the coverage rule, every gate has one when the
 * set forbids ids: 'max_leak: 0' unless the gate file says otherwise
 * (gate_default_leak).
 *
 * Every load error is reported as FILE:LINE:COL. Ownership: struct gate owns
 * its rules and strings (gate_release); gate outcomes own their 'what' and
 * 'why'.
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
	long max_leak;               /* leaking questions allowed; -1: no leak rule */
	long leak_k;                 /* its cutoff; 0: the comparison's k */
	long leak_line, leak_col;    /* where 'max_leak' stands (0: default gate) */
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
/* Give 'g' the leak rule max_leak 0 at the comparison's k when the set has
 * 'nr_forbidding' questions with a forbidden list and 'g' has none. */
void gate_default_leak(struct gate *g, size_t nr_forbidding);
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
/* Describe the leak rule of 'g' at cutoff 'k' ("leak max_leak 0 at k 5");
 * caller frees. */
char *gate_leak_describe(const struct gate *g, long k);

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

/*
 * A rule's verdict, shown headline first (docs/compare.md, "Reading the
 * gate"): 'what' the rule watches, the change (gate_outcome_change), the
 * verdict, then 'why': the rule's settings and its statistics.
 */
struct gate_outcome {
	bool pass;
	const struct rule_cmp *rc;      /* into the compare; NULL for coverage */
	double drop;                    /* the loss (NAN for coverage) */
	size_t missing;                 /* coverage: questions the baseline answered and the candidate missed */
	bool leak;                      /* the leak rule: ... */
	bool base_leaks_known;          /* ... whether the baseline records its leaks ... */
	size_t leaking, base_leaking;   /* ... and the leaking questions of each side */
	char *what;                     /* "R@5", "R@5 on tag=hard", "coverage", "leak" */
	char *why;                      /* "max_drop 0.02 test drop: drop 0.2000 is ...; n 150, ..." */
};

/* Add the change 'o' judged to 'sb': "1.0000 -> 0.8000 (-0.2000)" with
 * 'arrow' between baseline and candidate, "(no question)" for a rule whose
 * subset is empty, "N newly missing" for coverage, "B -> N leaking" (or
 * "N leaking" when the baseline records none) for the leak rule. */
void gate_outcome_change(const struct gate_outcome *o, const char *arrow, struct strbuf *sb);
/* Return the one-line form of 'o', headline first ("R@5 1.0000 -> 0.8000
 * (-0.2000) FAIL  max_drop 0.02 test drop: ..."); caller frees. */
char *gate_outcome_line(const struct gate_outcome *o);

/*
 * Judge 'c' (computed with this gate in its options) by every rule of 'g'
 * into 'out[0..GATE_OUTCOMES(g))': one outcome per rule, then the coverage
 * rule, then the leak rule when 'g' has one (out[GATE_LEAK(g)]). Return
 * the number of failed rules, or -1 with an error when 'c' holds no test
 * for the gate's rules.
 */
#define GATE_OUTCOMES(g) ((g)->nr + 1 + ((g)->max_leak >= 0))
#define GATE_COVERAGE(g) ((g)->nr)
#define GATE_LEAK(g) ((g)->nr + 1)
int gate_evaluate(const struct gate *g, const struct compare *c, struct gate_outcome *out);
void gate_outcomes_release(struct gate_outcome *out, size_t nr);

#endif
