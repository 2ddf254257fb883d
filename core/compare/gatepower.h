/*
 * gatepower: the power of a gate, by simulation from a baseline, and the
 * set size a gate rule needs (docs/compare.md, "Power").
 *
 * The model (one per rule r and true drop d). The questions of rule r (its
 * subset; answerable ones, or unanswerable ones for Decline) are moved
 * whole: each draws one uniform number and is either
 *  - lost (probability a): every measure of the question falls to 0 (an
 *    unanswerable one stops declining; for a FalseDecline rule the question
 *    is declined, which also zeroes its measures),
 *  - gained (probability g): every measure rises to its ceiling, the
 *    largest value the baseline reaches on it over questions of that kind,
 *    and the question is not declined (an unanswerable one declines), or
 *  - left as it is,
 * with g (hi - m) = churn / 2 and a m = churn / 2 + d, where m is the mean
 * of rule r's measure over its questions and hi its ceiling ("not declined"
 * for FalseDecline, "declined" for Decline), so that rule r's measure drops
 * by d in expectation and about 'churn' of its value moves either way. The
 * other measures of the same questions move with them (R@5, nDCG@10 and
 * FalseDecline of a lost question all fall), so their correlation is kept.
 *
 * Simulation (gate_power): each draw is compared with the whole gate
 * (compare_run, gate_evaluate: the maxT family and the coverage rule as
 * compare applies them); the cell holds the share of draws in which rule r
 * fails and in which the gate fails (any rule), with binomial standard
 * errors. A drop the model cannot reach (m = 0, or a + g > 1) gives NAN.
 *
 * Set size (gate_rule_size): the same model in closed form. With x_i =
 * loss_i - margin (drop; margin - loss_i for non-inferiority), the test
 * rejects when S = sum x_i exceeds z sqrt(Q), Q = sum x_i^2, z the normal
 * critical value at alpha (Sidak-adjusted over the K drop rules of the gate
 * for test: drop; a plain threshold S > 0 for test: none). With E and V the
 * mean over the rule's questions of each loss's expectation and variance
 * under the model and q = E[x^2]: power(n) = Phi((n (d - margin) - z sqrt(n
 * q)) / sqrt(n V)) (drop, none), and the questions needed for power P are
 * n = ((z sqrt(q) + z_P sqrt(V)) / (d - margin))^2. For non-inferiority the
 * figures are for passing a candidate with no true drop (d = 0 against the
 * margin). `power --gate`, `check --results` and `tag` all call it.
 */
#ifndef EVALSET_GATEPOWER_H
#define EVALSET_GATEPOWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct progress;

struct gate;
struct gate_rule;
struct results;

struct gate_power_opts {
	const double *drops;     /* true drops, e.g. 0.01, 0.02, 0.03, 0.05, 0.10 */
	size_t nr_drops;
	long simulations;        /* draws per rule and drop */
	long permutations;       /* flips per simulated test when not exact */
	double churn;            /* default 0.05 */
	uint64_t seed;
	struct progress *progress; /* NULL, or told of each draw (rules x drops x simulations) */
};

struct gate_power_cell {
	double rate, se;         /* rule r fails; NAN when the drop cannot be drawn */
	double gate_rate, gate_se; /* the gate fails (any rule) */
};

/*
 * Fill 'out[r * nr_drops + d]' for every rule r of 'g'. 'base' is the
 * baseline, holding every measure of the gate's rules; 'scratch' is a second
 * copy of it (same questions and values), overwritten by the draws and
 * restored. Seeds: the draws of rule r at drop index d use o->seed, r and d
 * only, so adding a rule changes no other rule's figures. Return 0, or -1
 * with an error (a rule that cannot be tested on this set, as compare would
 * report it).
 */
int gate_power(const struct gate *g, const struct results *base, struct results *scratch,
	       const struct gate_power_opts *o, struct gate_power_cell *out);

struct gate_size {
	size_t n;          /* the rule's questions in the baseline */
	double mean;       /* the rule's measure over them (goodness: not declined for FalseDecline) */
	double power_now;  /* predicted chance the rule fails at 'effect' with n questions
			    * (non-inferiority: passes at no drop); NAN when the model cannot draw it */
	long needed;       /* questions needed for 'power'; -1 when no size is enough
			    * (effect within the margin, nothing to lose) */
	double mde;        /* the smallest true drop failed with 'power' by n questions
			    * (NAN: none the model can draw; non-inferiority) */
};

/*
 * Size rule 'rule' of 'g' from the baseline 'base' by the closed form
 * above: a true drop of 'effect' (> 0), 'churn' in [0, 1], target 'power'
 * in (0, 1). Return 0, or -1 with an error (the measure is not in 'base',
 * the rule has no question there).
 */
int gate_rule_size(const struct gate *g, size_t rule, const struct results *base, double churn,
		   double effect, double power, struct gate_size *out);

/*
 * Estimate the churn of rule 'rule''s measure from two results of one set
 * (questions both hold, in the rule's subset): the mean absolute change
 * minus the absolute mean change, at least 0. Return 0, or -1 with an error.
 */
int gate_churn_estimate(const struct gate *g, size_t rule, const struct results *base,
			const struct results *cand, double *churn);

/*
 * Return the questions a 0/1 measure needs for 'rule' of 'g' to reach
 * 'power' at a true drop of 'effect', whatever the retriever: the largest
 * need over baseline means from effect + 0.01 to 0.99 (gate_rule_size on
 * such a baseline); -1 when no size is enough. What check and tag compare
 * a set's size with when no baseline is given.
 */
long gate_rule_size_any(const struct gate *g, size_t rule, double churn, double effect,
			double power);

/* The churn and the true drop of the size warning of check and tag. */
#define GATE_SIZE_CHURN 0.05
#define GATE_SIZE_DROP 0.10

/* The true drop at which a rule should almost never fail (1 point). */
#define GATE_RANDOM_DROP 0.01

/*
 * Return the chance that rule 'rule' of 'g' decides against a candidate
 * whose true drop in the rule's measure is 'drop' (fails; for
 * non-inferiority, does not pass), by the closed form: from the baseline
 * 'base' with 'churn', or, with 'base' NULL, the largest chance over 0/1
 * baselines of every mean on 'n' questions. NAN when the model cannot draw
 * that drop (or 'base' lacks the measure, reported).
 */
double gate_rule_chance(const struct gate *g, size_t rule, const struct results *base, size_t n,
			double churn, double drop);
/*
 * Return a warning when rule 'rule' (test drop or none) fails a candidate
 * whose true drop is GATE_RANDOM_DROP more than twice alpha of the time
 * (gate_rule_chance with GATE_SIZE_CHURN): such a rule fails at random
 * (a plain threshold near its margin does). NULL otherwise; caller frees.
 */
char *gate_random_warning(const struct gate *g, size_t rule, const struct results *base, size_t n);

/*
 * Return the warning check and tag give a set with 'answerable' answerable
 * questions, fewer than the default gate's R@'k' rule needs to catch a
 * true GATE_SIZE_DROP drop 80% of the time whatever the retriever
 * (gate_rule_size_any), or NULL when the set is large enough; caller frees.
 */
char *gate_size_warning(size_t answerable, int k);

#endif
