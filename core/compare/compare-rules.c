/*
 * compare-rules: the gate's rules inside a comparison (contract in
 * compare.h, "rules"): each rule's questions, the checks that refuse a rule
 * that could never decide before anything is computed, each rule's test on
 * its rounded losses, Holm's family over the drop rules and each rule's
 * bound at the level it was judged at (gatetest.h).
 *
 * Cost: per rule one exact p and one bound (binexact.h), O(n) to round.
 */
#include "compare/compare-internal.h"
#include "compare/compare.h"
#include "compare/binexact.h"
#include "compare/gatetest.h"
#include "compare/gate.h"
#include "base/error.h"
#include "score/results.h"
#include "compare/stats.h"
#include "base/strbuf.h"
#include "base/progress.h"
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

static char *rule_subset_label(const struct gate_rule *r)
{
	static const char *const kinds[] = { "all", "origin", "answerable", "tag", "turn" };

	return r->subset == SUBSET_ALL ? xstrdup("all")
				       : xstrfmt("%s=%s", kinds[r->subset], r->subset_value);
}

int cmp_test_rules(struct compare *c, const struct compare_opts *o, const struct side *b,
		   const struct side *cs, const struct pairs *pr)
{
	const struct gate *g = o->gate;
	size_t nr = g->nr, m = 0;
	size_t *idx = xmalloc((pr->n + 1) * sizeof(*idx));
	size_t **ridx = xcalloc(nr + 1, sizeof(*ridx));
	size_t *rn = xcalloc(nr + 1, sizeof(*rn));
	double *u = xmalloc((pr->n + 1) * sizeof(*u));
	double *p = xcalloc(nr + 1, sizeof(*p));
	bool *fam = xcalloc(nr + 1, sizeof(*fam));
	struct gatetest_counts *k = xcalloc(nr + 1, sizeof(*k));
	struct gatetest_holm *h = xcalloc(nr + 1, sizeof(*h));
	int ret = -1;

	c->rules = xcalloc(nr + 1, sizeof(*c->rules));
	c->nr_rules = nr;
	for (size_t i = 0; i < nr; i++) {
		const struct gate_rule *r = &g->rules[i];
		struct rule_cmp *rc = &c->rules[i];

		rc->subset_label = rule_subset_label(r);
		rc->measure = xstrdup(r->measure);
		rc->p = rc->p_adj = rc->bound = rc->loss = rc->level = NAN;
		rc->baseline = rc->candidate = rc->effect = NAN;
		rn[i] = rule_questions(r, b, pr, idx);
		ridx[i] = xmalloc((rn[i] + 1) * sizeof(*idx));
		memcpy(ridx[i], idx, rn[i] * sizeof(*idx));
		rc->n = rn[i];
		fam[i] = r->test == TEST_DROP && (rn[i] || !r->optional);
		m += fam[i];
	}
	c->rules_family = m;
	/* every check first: nothing is computed for a gate that cannot decide */
	for (size_t i = 0; i < nr; i++)
		if ((rn[i] || !g->rules[i].optional) &&
		    gate_rule_check(g, i, rn[i], m, c->rules[i].subset_label) < 0)
			goto out;
	for (size_t i = 0; i < pr->n; i++)
		u[i] = gatetest_uniform(pr->bq[i * b->nr]->id, c->gate_seed);
	for (size_t i = 0; i < nr; i++) {
		const struct gate_rule *r = &g->rules[i];
		struct rule_cmp *rc = &c->rules[i];
		struct column col;
		double *loss, *d, *ui;

		if (!rn[i])
			continue;
		memset(&col, 0, sizeof(col));
		if (cmp_fill_column(c, b, cs, pr, ridx[i], rn[i], r->measure, &col) < 0) {
			cmp_column_release(&col);
			goto out;
		}
		loss = xmalloc(rn[i] * sizeof(double));
		d = xmalloc(rn[i] * sizeof(double));
		ui = xmalloc(rn[i] * sizeof(double));
		for (size_t q = 0; q < rn[i]; q++) {
			loss[q] = r->rise ? col.c[q] - col.b[q] : col.b[q] - col.c[q];
			d[q] = -loss[q];
			ui[q] = u[ridx[i][q]];
		}
		rc->baseline = stats_mean(col.b, rn[i]);
		rc->candidate = stats_mean(col.c, rn[i]);
		rc->loss = stats_mean(loss, rn[i]);
		cmp_describe_deltas(d, rn[i], &rc->effect, &rc->win, &rc->tie, &rc->loss_n);
		gatetest_round(loss, ui, rn[i], &k[i]);
		rc->up = k[i].up;
		rc->down = k[i].down;
		rc->rounded = k[i].rounded;
		if (r->test != TEST_NONE)
			p[i] = gatetest_p_cached(o->cache, &k[i], r->max_drop, r->test == TEST_NONINF);
		if (o->progress)
			progress_update(o->progress, (double)i / 2);
		free(loss);
		free(d);
		free(ui);
		cmp_column_release(&col);
	}
	gatetest_holm(p, fam, nr, g->alpha, h);
	for (size_t i = 0; i < nr; i++) {
		const struct gate_rule *r = &g->rules[i];
		struct rule_cmp *rc = &c->rules[i];

		if (!rn[i] || r->test == TEST_NONE)
			continue;
		rc->p = p[i];
		rc->p_adj = h[i].p_adj;
		rc->level = h[i].level;
		rc->reject = h[i].reject;
		if (o->gate_only)
			continue;
		if (r->test == TEST_DROP) {
			rc->bound = gatetest_lower(&k[i], rc->level);
			rc->min_lost = binexact_min_losses(rn[i], r->max_drop, g->alpha / (double)m);
		} else {
			rc->bound = gatetest_upper(&k[i], rc->level);
		}
		if (o->progress)
			progress_update(o->progress, (double)(nr + i) / 2);
	}
	ret = 0;
out:
	for (size_t i = 0; i < nr; i++)
		free(ridx[i]);
	free(ridx);
	free(rn);
	free(u);
	free(p);
	free(fam);
	free(k);
	free(h);
	free(idx);
	return ret;
}
