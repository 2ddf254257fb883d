/*
 * compare-rules: the gate's rules inside a comparison (contract in
 * compare.h, "rules"): each rule's questions, the checks that refuse a rule
 * that could never decide before anything is computed, and one flip_test
 * over every tested rule on shared sign flips (fliptest.h), with each
 * rule's bound from the same test.
 *
 * Cost: one flip_test, O(B * G * K) for G distinct rows and K rules.
 */
#include "compare/compare-internal.h"
#include "compare/compare.h"
#include "compare/binexact.h"
#include "compare/fliptest.h"
#include "compare/gate.h"
#include "base/error.h"
#include "score/results.h"
#include "compare/stats.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The questions of rule 'r': its subset and kind (answerable questions, or
 * unanswerable ones for Decline). */
static size_t rule_questions(const struct gate_rule *r, const struct side *b,
			     const struct pairs *pr, size_t *idx)
{
	bool decline = !strcmp(r->measure, COMPARE_DECLINE);
	size_t n = 0;

	for (size_t i = 0; i < pr->n; i++) {
		const struct question_result *q = pr->bq[i * b->nr];

		if (q->answerable != decline && cmp_in_subset(r->subset, r->subset_value, q))
			idx[n++] = i;
	}
	return n;
}

/* Return true when 'measure' is 0 or 1 for every question by definition:
 * such rules are decided by the exact test of binexact.h on single runs. */
static bool binary_measure(const char *measure)
{
	return !strcmp(measure, COMPARE_DECLINE) || !strcmp(measure, COMPARE_FALSE_DECLINE) ||
	       starts_with(measure, "Success@") || starts_with(measure, "Hit@");
}

/* Return the smallest p rule 'r' can reach on 'n' questions. */
static double rule_min_p(const struct gate_rule *r, size_t n, long perms, bool binary)
{
	if (!binary)
		return flip_min_p(n, perms);
	/* the most extreme outcome: every question loses 1 (drop), or gains 1
	 * (non-inferiority, tested on the negated losses against -margin) */
	if (r->test == TEST_DROP && r->max_drop >= 1)
		return 1;
	return binexact_p(n, n, 0, r->test == TEST_DROP ? r->max_drop : -r->max_drop);
}

static char *rule_subset_label(const struct gate_rule *r)
{
	static const char *const kinds[] = { "all", "origin", "answerable", "tag" };

	return r->subset == SUBSET_ALL ? xstrdup("all")
				       : xstrfmt("%s=%s", kinds[r->subset], r->subset_value);
}

/* Return the number of questions the subset of rule 'r' needs for its
 * test to reach a p below alpha at all (0: no number does). */
static size_t questions_needed(const struct gate *g, const struct gate_rule *r, size_t n,
			       bool binary)
{
	if (binary && r->test == TEST_DROP && r->max_drop >= 1)
		return 0;
	for (size_t m = n + 1; m <= n + 100000; m++)
		if (binary ? rule_min_p(r, m, 0, true) < g->alpha : ldexp(1.0, -(int)(m < 2000 ? m : 2000)) < g->alpha)
			return m;
	return 0;
}

/* Refuse, before any test is computed, a rule that could never decide:
 * no question, fewer than its min_questions, or a smallest attainable p
 * that is not below alpha; say what to change. */
static int check_rule(const struct gate *g, const struct gate_rule *r, size_t n, long perms,
		      const char *subset, bool binary)
{
	const char *file = g->file ? g->file : "default gate";
	long line = g->file ? r->line : 0, col = g->file ? r->col : 0;
	const char *verb = r->test == TEST_DROP ? "fail" : "pass";
	double minp;
	size_t need;

	if (!n)
		return error_at(file, line, col, "rule '%s' on %s has no question to judge; "
				"remove the rule or fix its subset", r->measure, subset);
	if (r->min_questions && (long)n < r->min_questions)
		return error_at(file, line, col, "rule '%s' on %s has %zu question%s, fewer than its "
				"min_questions %ld: add at least %ld more question%s to %s, or lower "
				"min_questions", r->measure, subset, n, n == 1 ? "" : "s",
				r->min_questions, r->min_questions - (long)n,
				r->min_questions - (long)n == 1 ? "" : "s", subset);
	if (r->test == TEST_NONE)
		return 0;
	minp = rule_min_p(r, n, perms, binary);
	if (minp < g->alpha)
		return 0;
	if (!binary && 1.0 / ((double)perms + 1) >= g->alpha && ldexp(1.0, -(int)(n < 2000 ? n : 2000)) < g->alpha)
		return error_at(file, line, col, "rule '%s' (test %s) on %s can never %s: with %ld "
				"permutations its smallest p is %.3g, not below alpha %g; pass "
				"--permutations %ld or more, or use test: none", r->measure,
				gate_test_name(r->test), subset, verb, perms, minp, g->alpha,
				(long)ceil(20 / g->alpha));
	need = questions_needed(g, r, n, binary);
	if (!need)
		return error_at(file, line, col, "rule '%s' (test %s) on %s can never %s: a 0/1 measure "
				"cannot lose more than 1, so a margin of %g is never exceeded; lower the "
				"margin below 1, or use test: none", r->measure, gate_test_name(r->test),
				subset, verb, r->max_drop);
	{
		char *perm = !binary && 1.0 / ((double)perms + 1) >= g->alpha
			? xstrfmt(" and pass --permutations %ld or more", (long)ceil(20 / g->alpha))
			: xstrdup("");
		int ret = error_at(file, line, col, "rule '%s' (test %s) on %s can never %s: %zu "
				   "question%s %s too few for its test to reach a p below alpha %g "
				   "(the smallest it can reach is %.3g); add at least %zu more "
				   "question%s to %s (%zu in all)%s, or use test: none", r->measure,
				   gate_test_name(r->test), subset, verb, n, n == 1 ? "" : "s",
				   n == 1 ? "is" : "are", g->alpha, minp, need - n,
				   need - n == 1 ? "" : "s", subset, need, perm);

		free(perm);
		return ret;
	}
}

int cmp_test_rules(struct compare *c, const struct compare_opts *o, const struct side *b,
		      const struct side *cs, const struct pairs *pr)
{
	const struct gate *g = o->gate;
	size_t K = 0, nr = g->nr;
	size_t *idx = xmalloc((pr->n + 1) * sizeof(*idx));
	size_t **ridx = xcalloc(nr + 1, sizeof(*ridx));
	size_t *rn = xcalloc(nr + 1, sizeof(*rn));
	double **loss = xcalloc(nr + 1, sizeof(*loss));
	size_t *kcol = xcalloc(nr + 1, sizeof(*kcol));
	bool *fam = xcalloc(nr + 1, sizeof(*fam));
	bool *bin = xcalloc(nr + 1, sizeof(*bin));
	size_t *up = xcalloc(nr + 1, sizeof(*up)), *down = xcalloc(nr + 1, sizeof(*down));
	double *fixed = xcalloc(nr + 1, sizeof(*fixed));
	double *x = NULL;
	struct flip_result *fr = NULL;
	struct flip_opts fo;
	int ret = -1;

	c->rules = xcalloc(nr + 1, sizeof(*c->rules));
	c->nr_rules = nr;
	/* every check first: nothing is computed for a gate that cannot decide */
	for (size_t i = 0; i < nr; i++) {
		const struct gate_rule *r = &g->rules[i];
		struct rule_cmp *rc = &c->rules[i];

		rc->subset_label = rule_subset_label(r);
		rc->measure = xstrdup(r->measure);
		rc->p = rc->p_adj = rc->t = rc->bound = rc->loss = NAN;
		rc->baseline = rc->candidate = rc->effect = NAN;
		rn[i] = rule_questions(r, b, pr, idx);
		ridx[i] = xmalloc((rn[i] + 1) * sizeof(*idx));
		memcpy(ridx[i], idx, rn[i] * sizeof(*idx));
		rc->n = rn[i];
		if (!rn[i] && r->optional)
			continue;
		bin[i] = binary_measure(r->measure) && b->nr == 1 && cs->nr == 1;
		if (check_rule(g, r, rn[i], c->permutations, rc->subset_label, bin[i]) < 0)
			goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct gate_rule *r = &g->rules[i];
		struct rule_cmp *rc = &c->rules[i];
		struct column col;
		double *d;

		if (!rn[i])
			continue;
		memset(&col, 0, sizeof(col));
		if (cmp_fill_column(c, b, cs, pr, ridx[i], rn[i], r->measure, &col) < 0) {
			cmp_column_release(&col);
			goto out;
		}
		loss[i] = xmalloc(rn[i] * sizeof(double));
		d = xmalloc(rn[i] * sizeof(double));
		for (size_t q = 0; q < rn[i]; q++) {
			loss[i][q] = r->rise ? col.c[q] - col.b[q] : col.b[q] - col.c[q];
			d[q] = -loss[i][q];
			bin[i] &= (col.b[q] == 0 || col.b[q] == 1) && (col.c[q] == 0 || col.c[q] == 1);
			up[i] += loss[i][q] > 0;
			down[i] += loss[i][q] < 0;
		}
		rc->baseline = stats_mean(col.b, rn[i]);
		rc->candidate = stats_mean(col.c, rn[i]);
		rc->loss = stats_mean(loss[i], rn[i]);
		cmp_describe_deltas(d, rn[i], &rc->effect, &rc->win, &rc->tie, &rc->loss_n);
		free(d);
		cmp_column_release(&col);
		if (r->test != TEST_NONE) {
			kcol[i] = K++;
			fam[kcol[i]] = r->test == TEST_DROP;
			/* a 0/1 measure: the exact test; non-inferiority tests the
			 * negated losses against -margin */
			fixed[kcol[i]] = !bin[i] ? NAN : r->test == TEST_DROP
				? binexact_p(rn[i], up[i], down[i], r->max_drop)
				: binexact_p(rn[i], down[i], up[i], -r->max_drop);
		}
	}
	c->rules_exact = true;
	if (K) {
		x = xcalloc(pr->n * K + 1, sizeof(*x));
		fr = xcalloc(K + 1, sizeof(*fr));
		for (size_t i = 0; i < nr; i++) {
			const struct gate_rule *r = &g->rules[i];

			if (!rn[i] || r->test == TEST_NONE || bin[i])
				continue;
			for (size_t q = 0; q < rn[i]; q++) {
				double v = loss[i][q] - r->max_drop;

				x[ridx[i][q] * K + kcol[i]] = (r->test == TEST_DROP ? v : -v) + 0.0;
			}
		}
		fo.alpha = g->alpha;
		fo.permutations = c->permutations;
		fo.seed = c->gate_seed;
		fo.exact_limit = FLIP_EXACT_LIMIT;
		fo.fixed_p = fixed;
		flip_test(x, pr->n, K, fam, &fo, fr, &c->rules_exact, &c->rules_outcomes);
		for (size_t i = 0; i < nr; i++) {
			const struct gate_rule *r = &g->rules[i];
			struct rule_cmp *rc = &c->rules[i];
			const struct flip_result *f = &fr[kcol[i]];

			if (!rn[i] || r->test == TEST_NONE)
				continue;
			rc->t = f->t;
			rc->p = f->p;
			rc->p_adj = f->p_adj;
			rc->reject = f->reject;
			rc->binary = bin[i];
			if (bin[i]) {
				rc->exact = true;
				rc->bound = r->test == TEST_DROP
					? binexact_bound(rn[i], up[i], down[i], f->level)
					: -binexact_bound(rn[i], down[i], up[i], f->level);
				if (r->test == TEST_DROP && r->max_drop < 1)
					rc->min_lost = binexact_min_losses(rn[i], r->max_drop, g->alpha);
				continue;
			}
			rc->exact = c->rules_exact;
			rc->bound = flip_bound(loss[i], rn[i], f->crit, r->test == TEST_DROP ? 1 : -1);
			if (r->test == TEST_DROP)
				rc->min_lost = flip_min_losses(rn[i], r->max_drop, g->alpha);
		}
	}
	ret = 0;
out:
	for (size_t i = 0; i < nr; i++) {
		free(ridx[i]);
		free(loss[i]);
	}
	free(ridx);
	free(rn);
	free(loss);
	free(kcol);
	free(fam);
	free(bin);
	free(up);
	free(down);
	free(fixed);
	free(idx);
	free(x);
	free(fr);
	return ret;
}
