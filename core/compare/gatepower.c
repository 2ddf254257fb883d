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
#include "compare/gatetest.h"
#include "compare/stats.h"
#include "score/results.h"
#include "base/error.h"
#include "base/progress.h"
#include "base/util.h"
#include "set/set.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* From this many questions on, the random-rule warning is first screened by
 * the normal approximation of the rule's power (gate_random_warning). */
#define RANDOM_APPROX_MIN_QUESTIONS 1000

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
	case SUBSET_TURN:
		return q->turn && !strcmp(q->turn, r->subset_value);
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
	/* churn / 2 of the value moves up and as much again down, besides the
	 * drop; when no question can rise (every one at the ceiling) the change
	 * is one-way and only the drop moves */
	m->g = m->hi > m->mean ? (churn / 2) / (m->hi - m->mean) : 0;
	m->a = m->mean > 0 ? (d + m->g * (m->hi - m->mean)) / m->mean : NAN;
	if (isnan(m->a) || m->a < 0 || m->a + m->g > 1)
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

/* A 0/1 baseline of SHARE_N questions, 'pct' percent of them 1, as a model
 * ('v' holds SHARE_N values and is borrowed). */
enum { SHARE_N = 1000 };
static void model_from_share(struct rule_model *m, double *v, int pct)
{
	for (int i = 0; i < SHARE_N; i++)
		v[i] = i < pct * SHARE_N / 100;
	model_from_values(m, v, SHARE_N, 1);
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

/* Return the level rule 'rule' of 'g' is first judged at: alpha over the
 * gate's drop rules (Holm's first step) for test: drop, alpha otherwise. */
static double rule_level(const struct gate *g, const struct gate_rule *rule)
{
	size_t K = 0;

	if (rule->test != TEST_DROP)
		return g->alpha;
	for (size_t i = 0; i < g->nr; i++)
		K += g->rules[i].test == TEST_DROP;
	return g->alpha / (double)(K ? K : 1);
}

/* Return the chance that 'rule' decides against a candidate drawn by the
 * model 'm' (a and g set) on 'n' questions: fails (drop, none), or does not
 * pass (non-inferiority). */
static double model_power(const struct gate *g, const struct gate_rule *rule,
			  const struct rule_model *m, size_t n, bool exact)
{
	double up = m->a * m->mean, down = m->g * (m->hi - m->mean);

	if (rule->test == TEST_NONE) {
		double e2 = 0, d = up - down, var;

		for (size_t i = 0; i < m->n; i++)
			e2 += m->a * m->v[i] * m->v[i] + m->g * (m->hi - m->v[i]) * (m->hi - m->v[i]);
		var = e2 / (double)m->n - d * d;
		if (!(var > 0))
			return d > rule->max_drop ? 1 : 0;
		return 0.5 * erfc(-(d - rule->max_drop) * sqrt((double)n / var) / sqrt(2));
	}
	return (exact ? gatetest_power : gatetest_power_approx)(n, up, down, rule->max_drop,
								 rule->test == TEST_NONINF,
								 rule_level(g, rule));
}

/* Return the chance rule 'rule' does what a gate wants of it on 'n'
 * questions: fails a candidate drawn by 'm' (drop, none), or passes it
 * (non-inferiority). */
static double model_goal(const struct gate *g, const struct gate_rule *rule,
			 const struct rule_model *m, size_t n, bool exact)
{
	double p = model_power(g, rule, m, n, exact);

	return rule->test == TEST_NONINF ? 1 - p : p;
}

/* Return the smallest n in [lo, hi] whose chance reaches 'power' ('hi'
 * reaches it; the chance grows with n). */
static size_t first_reaching(const struct gate *g, const struct gate_rule *rule,
			     const struct rule_model *m, size_t lo, size_t hi, double power, bool exact)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (model_goal(g, rule, m, mid, exact) >= power)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Fill 'out' from the model 'm' of rule 'rule' (see gatepower.h); its
 * power_now only when 'now' (with the exact test, a critical value at the
 * model's n, which a caller wanting the size alone need not pay for). */
static void model_size(const struct gate *g, const struct gate_rule *rule, struct rule_model *m,
		       double churn, double effect, double power, bool exact, bool now,
		       struct gate_size *out)
{
	double d = rule->test == TEST_NONINF ? 0 : effect;
	bool noninf = rule->test == TEST_NONINF;
	size_t lo, hi, n0;

	out->n = m->n;
	out->mean = m->mean;
	out->power_now = NAN;
	out->needed = -1;
	model_set_drop(m, churn, d);
	if (isnan(m->a) || !m->n)
		return;
	/* non-inferiority: the chance a candidate with no true drop passes */
	if (now)
		out->power_now = model_goal(g, rule, m, m->n, exact);
	if (noninf ? !(d < rule->max_drop) : !(d > rule->max_drop))
		return;
	/* the smallest n reaching 'power', first with the normal critical
	 * value (fast), then with the exact one around it */
	lo = 2;
	hi = 2;
	while (model_goal(g, rule, m, hi, false) < power) {
		if (hi >= 2000000)
			return;
		lo = hi + 1;
		hi *= 2;
	}
	n0 = first_reaching(g, rule, m, lo, hi, power, false);
	if (!exact) {
		out->needed = (long)n0;
		return;
	}
	if (model_goal(g, rule, m, n0, true) >= power) {
		lo = n0 / 2 > 2 ? n0 / 2 : 2;
		if (model_goal(g, rule, m, lo, true) >= power)
			lo = 2;
		hi = n0;
	} else {
		lo = n0 + 1;
		hi = n0 + n0 / 4 + 2;
		while (model_goal(g, rule, m, hi, true) < power) {
			if (hi >= 4000000)
				return;
			lo = hi + 1;
			hi += hi / 4 + 2;
		}
	}
	out->needed = (long)first_reaching(g, rule, m, lo, hi, power, true);
}

/* Return the smallest true drop that rule 'r' (a drop or none test) fails
 * with 'power' on the model 'm' (bisection on the closed form), or NAN. */
static double model_mde(const struct gate *g, const struct gate_rule *r, struct rule_model *m,
			double churn, double power)
{
	double lo = r->max_drop, hi = 1;

	if (r->test == TEST_NONINF)
		return NAN;
	/* the largest drop the model can draw */
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		model_set_drop(m, churn, mid);
		if (isnan(m->a))
			hi = mid;
		else
			lo = mid;
	}
	model_set_drop(m, churn, lo);
	if (isnan(m->a) || model_goal(g, r, m, m->n, true) < power)
		return NAN;
	hi = lo;
	lo = r->max_drop;
	for (int i = 0; i < 40 && hi - lo > 1e-6; i++) {
		double mid = (lo + hi) / 2;

		model_set_drop(m, churn, mid);
		if (!isnan(m->a) && model_goal(g, r, m, m->n, true) >= power)
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
	model_size(g, r, &m, churn, effect, power, true, true, out);
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
	double *v = xmalloc(SHARE_N * sizeof(*v));
	long worst = 0;
	int worst_pm = 0;

	/* every baseline mean by the normal critical value (fast), then the
	 * worst of them by the exact one */
	for (int pm = (int)ceil((effect + 0.01) * 100 - 1e-9); pm <= 99 && worst >= 0; pm++) {
		struct rule_model m;
		struct gate_size s;

		model_from_share(&m, v, pm);
		model_size(g, &g->rules[rule], &m, churn, effect, power, false, true, &s);
		if (isnan(s.power_now))
			continue;
		if (s.needed < 0 || s.needed > worst) {
			worst = s.needed;
			worst_pm = pm;
		}
	}
	if (worst > 0) {
		struct rule_model m;
		struct gate_size s;

		model_from_share(&m, v, worst_pm);
		model_size(g, &g->rules[rule], &m, churn, effect, power, true, false, &s);
		worst = s.needed;
	}
	free(v);
	return worst;
}

/* gate_rule_chance, by the exact test's power or (not 'exact') its normal
 * approximation. */
static double rule_chance(const struct gate *g, size_t rule, const struct results *base, size_t n,
			  double churn, double drop, bool exact)
{
	const struct gate_rule *r = &g->rules[rule];
	struct rule_model m;
	double best = NAN;

	if (base) {
		if (model_load(&m, r, base) < 0)
			return NAN;
		if (m.n) {
			model_set_drop(&m, churn, drop);
			if (!isnan(m.a))
				best = model_power(g, r, &m, m.n, exact);
		}
		free(m.v);
		return best;
	}
	{
		double *v = xmalloc(SHARE_N * sizeof(*v));

		for (int pm = 1; pm <= 99 && n; pm++) {
			double c;

			model_from_share(&m, v, pm);
			model_set_drop(&m, churn, drop);
			if (isnan(m.a))
				continue;
			c = model_power(g, r, &m, n, exact);
			if (isnan(best) || c > best)
				best = c;
		}
		free(v);
	}
	return best;
}

double gate_rule_chance(const struct gate *g, size_t rule, const struct results *base, size_t n,
			double churn, double drop)
{
	return rule_chance(g, rule, base, n, churn, drop, true);
}

char *gate_random_warning(const struct gate *g, size_t rule, const struct results *base, size_t n)
{
	const struct gate_rule *r = &g->rules[rule];
	double c;
	char *desc, *msg;

	if (r->test == TEST_NONINF)
		return NULL;
	/* the normal approximation first: on a large set it is within a
	 * fraction of alpha of the exact figure, and far below twice alpha it
	 * settles the question without the exact test's critical value */
	if ((base ? base->nr : n) >= RANDOM_APPROX_MIN_QUESTIONS) {
		c = rule_chance(g, rule, base, n, GATE_SIZE_CHURN, GATE_RANDOM_DROP, false);
		if (isnan(c) || c < g->alpha)
			return NULL;
	}
	c = gate_rule_chance(g, rule, base, n, GATE_SIZE_CHURN, GATE_RANDOM_DROP);
	if (isnan(c) || c <= 2 * g->alpha)
		return NULL;
	desc = gate_rule_describe(r);
	msg = xstrfmt("rule '%s' fails a candidate whose true %s is %g point %.0f%% of the time "
		      "(power's model %s, churn %g), more than twice alpha %g: it fails at random; %s",
		      desc, r->rise ? "rise" : "drop", GATE_RANDOM_DROP * 100, c * 100,
		      base ? "from the baseline" : "at its worst over 0/1 baselines", GATE_SIZE_CHURN,
		      g->alpha, r->test == TEST_NONE ? "use test: drop, which fails at most alpha of "
		      "the time within its margin" : "widen max_drop");
	free(desc);
	return msg;
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
	struct gatetest_cache cache = GATETEST_CACHE_INIT;
	int ret = 0;

	co.gate = g;
	co.resamples = 1;
	co.permutations = o->permutations;
	co.gate_only = true;
	co.cache = &cache;
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

				if (o->progress)
					progress_update(o->progress, (double)((r * o->nr_drops + d) *
									     (size_t)o->simulations + (size_t)s));

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
	gatetest_cache_release(&cache);
	return ret;
}
