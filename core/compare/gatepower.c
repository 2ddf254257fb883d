/*
 * gatepower: simulated power of a gate and the closed-form set size of a
 * rule (contract and model in gatepower.h).
 * Cost of gate_power: rules x drops x simulations runs of compare_run with
 * the whole gate and one table measure.
 */
#include "compare/gatepower.h"
#include "compare/compare-input.h"
#include "compare/compare.h"
#include "compare/gate.h"
#include "compare/stats.h"
#include "score/results.h"
#include "base/error.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool is_decline(const struct gate_rule *r)
{
	return !strcmp(r->measure, COMPARE_DECLINE);
}

static bool is_false_decline(const struct gate_rule *r)
{
	return !strcmp(r->measure, COMPARE_FALSE_DECLINE);
}

/* Return true when 'q' is one of the questions of rule 'r'. */
static bool in_rule(const struct gate_rule *r, const struct question_result *q)
{
	if (q->answerable == is_decline(r))
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

/* Return the column of rule 'r''s measure in 'base' (-1 for Decline and
 * FalseDecline), or -2 after an error when 'base' does not hold it. */
static long rule_column(const struct gate_rule *r, const struct results *base)
{
	char buf[64];
	long col;

	if (is_decline(r) || is_false_decline(r))
		return -1;
	col = results_measure(base, compare_input_measure(base, r->measure, buf));
	if (col < 0) {
		error("measure '%s' is not in results '%s'", r->measure,
		      base->file ? base->file : base->run_path ? base->run_path : "?");
		return -2;
	}
	return col;
}

/* The goodness of 'q' for rule 'r' (column 'col'): its measure, "not
 * declined" for FalseDecline, "declined" for Decline. */
static double goodness(const struct gate_rule *r, long col, const struct question_result *q)
{
	bool declined = q->declined && !q->missing;

	if (is_decline(r))
		return declined;
	if (is_false_decline(r))
		return !declined;
	return q->values ? q->values[col] : NAN;
}

/* The values of rule 'r' over its questions in 'base', their ceiling, and
 * the model's a and g for a true drop 'd'. */
struct rule_model {
	double *v;
	size_t n;
	double mean, hi;
	double a, g;       /* NAN when the drop cannot be drawn */
};

static void model_set_drop(struct rule_model *m, double churn, double d)
{
	m->a = m->mean > 0 ? (churn / 2 + d) / m->mean : NAN;
	m->g = m->hi > m->mean ? (churn / 2) / (m->hi - m->mean) : 0;
	if (isnan(m->a) || m->a + m->g > 1)
		m->a = m->g = NAN;
}

/* The values v[0..n) with ceiling 'hi' as a model (the array is borrowed). */
static void model_from_values(struct rule_model *m, double *v, size_t n, double hi)
{
	m->v = v;
	m->n = n;
	m->mean = stats_mean(v, n);
	m->hi = hi;
	m->a = m->g = NAN;
}

static int model_load(struct rule_model *m, const struct gate_rule *r, const struct results *base)
{
	long col = rule_column(r, base);
	double hi = 0;
	size_t n = 0;
	double *v;

	if (col == -2)
		return -1;
	v = xmalloc((base->nr + 1) * sizeof(*v));
	for (size_t i = 0; i < base->nr; i++) {
		double x = goodness(r, col, &base->q[i]);

		if (in_rule(r, &base->q[i]) && !isnan(x))
			v[n++] = x;
	}
	for (size_t i = 0; i < base->nr; i++)
		if (base->q[i].answerable != is_decline(r)) {
			double x = goodness(r, col, &base->q[i]);

			if (x > hi)
				hi = x;
		}
	model_from_values(m, v, n, col < 0 ? 1 : hi);
	return 0;
}

/* Return the normal critical value of rule 'rule' of 'g': Sidak over the
 * gate's drop rules for test: drop, alpha for non-inferiority, 0 for none. */
static double rule_z(const struct gate *g, const struct gate_rule *rule)
{
	size_t K = 0;

	if (rule->test == TEST_NONE)
		return 0;
	if (rule->test == TEST_NONINF)
		return norm_quantile(1 - g->alpha);
	for (size_t i = 0; i < g->nr; i++)
		K += g->rules[i].test == TEST_DROP;
	return norm_quantile(pow(1 - g->alpha, 1.0 / (double)(K ? K : 1)));
}

/* Fill 'out' from the model 'm' of rule 'rule' (see gatepower.h). */
static void model_size(const struct gate *g, const struct gate_rule *rule, struct rule_model *m,
		       double churn, double effect, double power, struct gate_size *out)
{
	double d = rule->test == TEST_NONINF ? 0 : effect, margin = rule->max_drop;
	double e2 = 0, var = 0, q, gap, z = rule_z(g, rule), zp = norm_quantile(power), need;

	out->n = m->n;
	out->mean = m->mean;
	out->power_now = NAN;
	out->needed = -1;
	model_set_drop(m, churn, d);
	if (isnan(m->a) || !m->n)
		return;
	for (size_t i = 0; i < m->n; i++) {
		double up = m->hi - m->v[i], l2 = m->a * m->v[i] * m->v[i] + m->g * up * up;
		double l = m->a * m->v[i] - m->g * up;

		e2 += l2;
		var += l2 - l * l;
	}
	e2 /= (double)m->n;
	var /= (double)m->n;
	q = e2 - 2 * margin * d + margin * margin;
	gap = rule->test == TEST_NONINF ? margin - d : d - margin;
	if (!(var > 0)) {
		out->power_now = gap > 0 ? 1 : 0;
		out->needed = gap > 0 ? 2 : -1;
		return;
	}
	out->power_now = 0.5 * erfc(-((double)m->n * gap - z * sqrt((double)m->n * q)) /
				    sqrt((double)m->n * var) / sqrt(2));
	if (!(gap > 0))
		return;
	need = ceil(pow((z * sqrt(q) + zp * sqrt(var)) / gap, 2) - 1e-9);
	out->needed = need > 1e12 ? -1 : need < 2 ? 2 : (long)need;
}

/* Return the smallest true drop that rule 'r' (a drop or none test) fails
 * with 'power' on the model 'm' (bisection on the closed form), or NAN. */
static double model_mde(const struct gate *g, const struct gate_rule *r, struct rule_model *m,
			double churn, double power)
{
	double lo = r->max_drop, hi = 1;
	struct gate_size s;

	if (r->test == TEST_NONINF)
		return NAN;
	/* the largest drop the model can draw */
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		model_size(g, r, m, churn, mid, power, &s);
		if (isnan(s.power_now))
			hi = mid;
		else
			lo = mid;
	}
	model_size(g, r, m, churn, lo, power, &s);
	if (isnan(s.power_now) || s.power_now < power)
		return NAN;
	hi = lo;
	lo = r->max_drop;
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		model_size(g, r, m, churn, mid, power, &s);
		if (s.power_now >= power)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

int gate_rule_size(const struct gate *g, size_t rule, const struct results *base, double churn,
		   double effect, double power, struct gate_size *out)
{
	const struct gate_rule *r = &g->rules[rule];
	struct rule_model m;

	memset(out, 0, sizeof(*out));
	if (model_load(&m, r, base) < 0)
		return -1;
	if (!m.n) {
		free(m.v);
		return error("gate rule '%s' has no question in the baseline '%s'", r->measure,
			     base->file ? base->file : "?");
	}
	model_size(g, r, &m, churn, effect, power, out);
	out->mde = model_mde(g, r, &m, churn, power);
	free(m.v);
	return 0;
}

int gate_churn_estimate(const struct gate *g, size_t rule, const struct results *base,
			const struct results *cand, double *churn)
{
	const struct gate_rule *r = &g->rules[rule];
	long cb = rule_column(r, base), cc = rule_column(r, cand);
	double sum = 0, abs_sum = 0;
	size_t n = 0;

	if (cb == -2 || cc == -2)
		return -1;
	for (size_t i = 0; i < base->nr; i++) {
		const struct question_result *qb = &base->q[i];
		const struct question_result *qc = results_find(cand, qb->id);
		double d;

		if (!qc || qc->answerable != qb->answerable || !in_rule(r, qb))
			continue;
		d = goodness(r, cc, qc) - goodness(r, cb, qb);
		if (isnan(d))
			continue;
		sum += d;
		abs_sum += fabs(d);
		n++;
	}
	if (!n)
		return error("results '%s' and '%s' have no question of gate rule '%s' in common",
			     base->file ? base->file : "?", cand->file ? cand->file : "?", r->measure);
	*churn = (abs_sum - fabs(sum)) / (double)n;
	if (*churn < 0)
		*churn = 0;
	return 0;
}

long gate_rule_size_any(const struct gate *g, size_t rule, double churn, double effect,
			double power)
{
	enum { N = 1000 };
	double *v = xmalloc(N * sizeof(*v));
	long worst = 0;

	for (int pm = (int)ceil((effect + 0.01) * 100 - 1e-9); pm <= 99 && worst >= 0; pm++) {
		struct rule_model m;
		struct gate_size s;

		for (int i = 0; i < N; i++)
			v[i] = i < pm * N / 100;
		model_from_values(&m, v, N, 1);
		model_size(g, &g->rules[rule], &m, churn, effect, power, &s);
		if (isnan(s.power_now))
			continue;
		if (s.needed < 0 || s.needed > worst)
			worst = s.needed;
	}
	free(v);
	return worst;
}

char *gate_size_warning(size_t answerable, int k)
{
	struct gate g;
	long need;

	gate_init(&g);
	gate_default(&g, k);
	need = gate_rule_size_any(&g, 0, GATE_SIZE_CHURN, GATE_SIZE_DROP, 0.8);
	gate_release(&g);
	if (need < 0 || answerable >= (size_t)need)
		return NULL;
	return xstrfmt("the set has %zu answerable question%s; the default gate's rule R@%d "
		       "max_drop 0.02 catches a true %g-point drop 80%% of the time, whatever the "
		       "retriever, from %ld (`evalset power --gate` sizes it for yours)",
		       answerable, answerable == 1 ? "" : "s", k, GATE_SIZE_DROP * 100, need);
}

/* ---- simulation ---- */

/* The ceilings of every column of 'base' over questions answerable as 'ans'. */
static double *ceilings(const struct results *base, bool ans)
{
	double *hi = xcalloc(base->nr_measures + 1, sizeof(*hi));

	for (size_t i = 0; i < base->nr; i++)
		if (base->q[i].answerable == ans && base->q[i].values)
			for (size_t j = 0; j < base->nr_measures; j++)
				if (base->q[i].values[j] > hi[j])
					hi[j] = base->q[i].values[j];
	return hi;
}

/* Move question 'q' (a copy of 'b') whole: 'lost' or gained, for rule 'r'. */
static void move_question(const struct gate_rule *r, const struct results *base,
			  const double *hi, const struct question_result *b,
			  struct question_result *q, bool lost)
{
	if (is_decline(r)) {
		q->declined = !lost;
		return;
	}
	if (q->values)
		for (size_t j = 0; j < base->nr_measures; j++)
			q->values[j] = lost ? 0 : hi[j];
	q->declined = lost ? is_false_decline(r) || b->declined : false;
}

static void restore_question(const struct results *base, const struct question_result *b,
			     struct question_result *q)
{
	if (q->values)
		memcpy(q->values, b->values, base->nr_measures * sizeof(*q->values));
	q->declined = b->declined;
}

int gate_power(const struct gate *g, const struct results *base, struct results *scratch,
	       const struct gate_power_opts *o, struct gate_power_cell *out)
{
	struct compare_opts co = COMPARE_OPTS_INIT;
	struct gate_outcome *oc = xcalloc(GATE_OUTCOMES(g), sizeof(*oc));
	const struct results *pb[] = { base }, *pc[] = { scratch };
	double *hi[2] = { ceilings(base, false), ceilings(base, true) };
	int ret = 0;

	co.gate = g;
	co.resamples = 1;
	co.permutations = o->permutations;
	for (size_t r = 0; r < g->nr && !ret; r++) {
		const struct gate_rule *rule = &g->rules[r];
		const char *only[] = { rule->measure };
		const double *ceil_r = hi[!is_decline(rule)];
		struct rule_model m;

		if (model_load(&m, rule, base) < 0) {
			ret = -1;
			break;
		}
		co.measures = only;
		co.nr_measures = 1;
		for (size_t d = 0; d < o->nr_drops && !ret; d++) {
			struct gate_power_cell *cell = &out[r * o->nr_drops + d];
			long fails = 0, gate_fails = 0;
			struct rng rng;

			cell->rate = cell->se = cell->gate_rate = cell->gate_se = NAN;
			model_set_drop(&m, o->churn, o->drops[d]);
			if (!m.n || isnan(m.a))
				continue;
			rng_seed(&rng, o->seed + 7919 * (uint64_t)(r * o->nr_drops + d + 1));
			for (long s = 0; s < o->simulations; s++) {
				struct compare c;
				int failed;

				for (size_t i = 0; i < base->nr; i++) {
					double u = rng_uniform(&rng);

					if (in_rule(rule, &base->q[i]) && u < m.a + m.g)
						move_question(rule, base, ceil_r, &base->q[i],
							      &scratch->q[i], u < m.a);
				}
				co.seed = rng_next(&rng) >> 1;
				compare_init(&c);
				if (compare_run(&c, pb, 1, pc, 1, &co) < 0) {
					compare_release(&c);
					ret = -1;
					break;
				}
				failed = gate_evaluate(g, &c, oc);
				if (failed >= 0) {
					fails += !oc[r].pass;
					gate_fails += failed > 0;
					gate_outcomes_release(oc, GATE_OUTCOMES(g));
				}
				compare_release(&c);
				for (size_t i = 0; i < base->nr; i++)
					restore_question(base, &base->q[i], &scratch->q[i]);
			}
			if (ret)
				break;
			cell->rate = (double)fails / (double)o->simulations;
			cell->se = sqrt(cell->rate * (1 - cell->rate) / (double)o->simulations);
			cell->gate_rate = (double)gate_fails / (double)o->simulations;
			cell->gate_se = sqrt(cell->gate_rate * (1 - cell->gate_rate) /
					     (double)o->simulations);
		}
		free(m.v);
	}
	free(hi[0]);
	free(hi[1]);
	free(oc);
	return ret;
}
