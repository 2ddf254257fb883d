/*
 * gatepower: simulated power of a gate's rules (contract in gatepower.h).
 * Cost: rules x drops x simulations comparisons of one measure each.
 */
#include "compare/gatepower.h"
#include "compare/compare.h"
#include "compare/gate.h"
#include "compare/stats.h"
#include "score/results.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool in_rule(const struct gate_rule *r, const struct question_result *q)
{
	bool decline = !strcmp(r->measure, COMPARE_DECLINE);

	if (q->answerable == decline)
		return false;
	switch (r->subset) {
	case SUBSET_ALL:
		return true;
	case SUBSET_ORIGIN:
		return !strcmp(q->origin ? q->origin : "hand", r->subset_value);
	case SUBSET_ANSWERABLE:
		return q->answerable == !strcmp(r->subset_value, "true");
	case SUBSET_TAG:
		for (size_t t = 0; t < q->nr_tags; t++)
			if (!strcmp(q->tags[t], r->subset_value))
				return true;
		return false;
	}
	return false;
}

/* The value the churn model moves for 'q' ("not declined" for FalseDecline). */
static double get(const struct question_result *q, long col, bool rise)
{
	if (col < 0) {
		double declined = q->declined && !q->missing;

		return rise ? 1 - declined : declined;
	}
	return q->values[col];
}

static void set(struct question_result *q, long col, bool rise, double v)
{
	if (col < 0)
		q->declined = rise ? v < 0.5 : v >= 0.5;
	else
		q->values[col] = v;
}

int gate_power(const struct gate *g, const struct results *base, struct results *scratch,
	       const struct gate_power_opts *o, struct gate_power_cell *out)
{
	struct compare_opts co = COMPARE_OPTS_INIT;
	struct gate_outcome *oc = xcalloc(GATE_OUTCOMES(g), sizeof(*oc));
	const struct results *pb[] = { base }, *pc[] = { scratch };
	struct rng rng;
	int ret = 0;

	rng_seed(&rng, o->seed);
	co.gate = g;
	co.resamples = 1;
	co.permutations = o->permutations;
	for (size_t r = 0; r < g->nr && !ret; r++) {
		const struct gate_rule *rule = &g->rules[r];
		const char *only[] = { rule->measure };
		bool derived = !strcmp(rule->measure, COMPARE_DECLINE) ||
			       !strcmp(rule->measure, COMPARE_FALSE_DECLINE);
		long col = derived ? -1 : results_measure(base, rule->measure);
		double m = 0;
		size_t n = 0;

		for (size_t i = 0; i < base->nr; i++)
			if (in_rule(rule, &base->q[i])) {
				m += get(&base->q[i], col, rule->rise);
				n++;
			}
		co.measures = only;
		co.nr_measures = 1;
		for (size_t d = 0; d < o->nr_drops; d++) {
			struct gate_power_cell *cell = &out[r * o->nr_drops + d];
			double mean = n ? m / (double)n : 0;
			double a = mean > 0 ? (o->churn / 2 + o->drops[d]) / mean : 1;
			double gain = mean < 1 ? (o->churn / 2) / (1 - mean) : 0;
			long fails = 0;

			cell->rate = cell->se = NAN;
			if (!n || (!derived && col < 0))
				continue;
			for (long s = 0; s < o->simulations; s++) {
				struct compare c;
				int failed;

				for (size_t i = 0; i < base->nr; i++) {
					double u, v;

					if (!in_rule(rule, &base->q[i]))
						continue;
					v = get(&base->q[i], col, rule->rise);
					u = rng_uniform(&rng);
					set(&scratch->q[i], col, rule->rise, u < a ? 0 : u < a + gain ? 1 : v);
				}
				compare_init(&c);
				if (compare_run(&c, pb, 1, pc, 1, &co) < 0) {
					compare_release(&c);
					ret = -1;
					break;
				}
				failed = gate_evaluate(g, &c, oc);
				if (failed >= 0) {
					fails += !oc[r].pass;
					gate_outcomes_release(oc, GATE_OUTCOMES(g));
				}
				compare_release(&c);
			}
			/* restore the scratch copy for the next rule */
			for (size_t i = 0; i < base->nr; i++)
				if (in_rule(rule, &base->q[i]))
					set(&scratch->q[i], col, rule->rise, get(&base->q[i], col, rule->rise));
			if (ret)
				break;
			cell->rate = (double)fails / (double)o->simulations;
			cell->se = sqrt(cell->rate * (1 - cell->rate) / (double)o->simulations);
		}
	}
	free(oc);
	return ret;
}
