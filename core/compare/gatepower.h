/*
 * gatepower: the power of a gate's rules, by simulation from a baseline.
 *
 * For each rule and each true drop d, 'simulations' candidates are drawn
 * from the baseline's per-question values of the rule's measure on its
 * subset, by the churn model: each question loses its value (to 0) with
 * probability a or rises to 1 with probability g, where g (1 - m) =
 * churn / 2 and a m = churn / 2 + d (m: the baseline mean over the rule's
 * questions), so that the expected drop is d and about 'churn' of the
 * value moves either way. For FalseDecline the model acts on "not
 * declined", so a drop is a rise in declines. Each draw is compared with
 * the whole gate (compare_run, gate_evaluate); the rate is the share of
 * draws in which that rule fails, with its binomial standard error. The
 * other rules' measures are left unchanged.
 */
#ifndef EVALSET_GATEPOWER_H
#define EVALSET_GATEPOWER_H

#include <stddef.h>
#include <stdint.h>

struct gate;
struct results;

struct gate_power_opts {
	const double *drops;     /* true drops, e.g. 0.01, 0.02, 0.03, 0.05, 0.10 */
	size_t nr_drops;
	long simulations;        /* draws per rule and drop */
	long permutations;       /* flips per simulated test when not exact */
	double churn;            /* default 0.05 */
	uint64_t seed;
};

struct gate_power_cell {
	double rate, se;         /* NAN for a rule with no question */
};

/*
 * Fill 'out[r * nr_drops + d]' for every rule r of 'g'. 'base' is the
 * baseline; 'scratch' is a second copy of it (same questions and values),
 * which is overwritten by the draws. Return 0, or -1 with an error (a rule
 * that cannot be tested on this set, as compare would report it).
 */
int gate_power(const struct gate *g, const struct results *base, struct results *scratch,
	       const struct gate_power_opts *o, struct gate_power_cell *out);

#endif
