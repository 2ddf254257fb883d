/*
 * compare: the driver of a comparison (contract in compare.h): checks the
 * set digests, pairs the questions (compare-pair.c), tests the gate's rules
 * (compare-rules.c), picks the table's measures and fills each subset's
 * rows with the paired tests of core/stats, and lists lost and gained
 * questions; also the quick one-test power estimate. Nothing here prints
 * except error().
 *
 * Cost: one paired_tests call per subset and measure group (IR measures
 * share one call; Decline has its own), each O((B + N) * n * m); a
 * measure's row does not depend on the others in its call (stats.h).
 */
#include "compare/compare.h"
#include "compare/compare-internal.h"
#include "compare/gate.h"
#include "base/error.h"
#include "score/results.h"
#include "compare/stats.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/progress.h"
#include "base/util.h"
#include "set/set.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void compare_init(struct compare *c)
{
	memset(c, 0, sizeof(*c));
}

static void free_changes(struct question_change *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(v[i].id);
		free(v[i].text);
	}
	free(v);
}

static void free_strings(char **v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

void compare_release(struct compare *c)
{
	free(c->set_name);
	free(c->base_version);
	free(c->cand_version);
	free(c->base_digest);
	free(c->cand_digest);
	free(c->base_label);
	free(c->cand_label);
	free_strings(c->left_out, c->nr_left_out);
	free_strings(c->missing_new_ids, c->nr_missing_new_ids);
	free_strings(c->measures, c->nr_measures);
	for (size_t i = 0; i < c->nr_subsets; i++) {
		free(c->subsets[i].value);
		free(c->subsets[i].label);
		free(c->subsets[i].m);
	}
	free(c->subsets);
	for (size_t i = 0; i < c->nr_rules; i++) {
		free(c->rules[i].measure);
		free(c->rules[i].subset_label);
	}
	free(c->rules);
	free_changes(c->lost, c->nr_lost);
	free_changes(c->gained, c->nr_gained);
	cmp_leaks_release(c);
	compare_init(c);
}

const char *compare_version_name(const char *version)
{
	return version ? version : "working copy";
}

bool compare_lower_is_better(const char *measure)
{
	/* an agent that needs more calls for the same chunks is worse */
	return !strcmp(measure, COMPARE_FALSE_DECLINE) || !strcmp(measure, "Calls");
}

long compare_measure(const struct compare *c, const char *measure)
{
	for (size_t i = 0; i < c->nr_measures; i++)
		if (!strcmp(c->measures[i], measure))
			return (long)i;
	return -1;
}

const struct subset_cmp *compare_subset(const struct compare *c, enum subset_kind kind,
					const char *value)
{
	for (size_t i = 0; i < c->nr_subsets; i++) {
		const struct subset_cmp *s = &c->subsets[i];

		if (s->kind != kind)
			continue;
		if (kind == SUBSET_ALL || (s->value && value && !strcmp(s->value, value)))
			return s;
	}
	return NULL;
}

/* Append 'name' to c->measures unless there, after checking every results
 * holds it. */
static int add_measure(struct compare *c, size_t *alloc, const struct side *b,
		       const struct side *cs, const char *name)
{
	long *cols = xcalloc(b->nr + cs->nr + 1, sizeof(*cols));
	int ret = 0;

	if (compare_measure(c, name) < 0) {
		if (cmp_side_columns(b, name, cols) < 0 || cmp_side_columns(cs, name, cols + b->nr) < 0) {
			ret = -1;
		} else {
			ALLOC_GROW(c->measures, c->nr_measures + 1, *alloc);
			c->measures[c->nr_measures++] = xstrdup(name);
		}
	}
	free(cols);
	return ret;
}

static int pick_measures(struct compare *c, const struct side *b, const struct side *cs,
			 const struct compare_opts *o)
{
	const struct results *b0 = b->r[0];
	size_t alloc = 0;

	if (o->nr_measures) {
		for (size_t i = 0; i < o->nr_measures; i++)
			if (add_measure(c, &alloc, b, cs, o->measures[i]) < 0)
				return -1;
		return 0;
	}
	for (size_t i = 0; i < b0->nr_measures; i++) {
		bool everywhere = true;

		for (size_t k = 0; k < b->nr; k++)
			everywhere &= cmp_measure_index(b->r[k], b0->measures[i]) >= 0;
		for (size_t k = 0; k < cs->nr; k++)
			everywhere &= cmp_measure_index(cs->r[k], b0->measures[i]) >= 0;
		if (everywhere)
			add_measure(c, &alloc, b, cs, b0->measures[i]);
	}
	if (c->nr_unanswerable)
		add_measure(c, &alloc, b, cs, COMPARE_DECLINE);
	if (c->nr_answerable)
		add_measure(c, &alloc, b, cs, COMPARE_FALSE_DECLINE);
	return 0;
}

/* Return the sd of the means of the 'nr' runs in 'v' (n values each). */
static double run_spread(const double *v, size_t nr, size_t n)
{
	double *means;
	double sd;

	if (nr < 2 || !n)
		return NAN;
	means = xmalloc(nr * sizeof(*means));
	for (size_t k = 0; k < nr; k++)
		means[k] = stats_mean(v + k * n, n);
	sd = stats_sd(means, nr);
	free(means);
	return sd;
}

/* Compute the rows of subset 's' for the measures 'cols[0..m)' over the
 * pairs 'idx[0..n)' (one shared paired_tests call). */
static int fill_group(struct compare *c, struct subset_cmp *s, const struct side *b,
		      const struct side *cs, const struct pairs *pr, const size_t *idx, size_t n,
		      const size_t *cols, size_t m)
{
	double *delta = xmalloc((n * m + 1) * sizeof(*delta));
	double *d1 = xmalloc((n + 1) * sizeof(*d1));
	struct paired_result *res = xcalloc(m + 1, sizeof(*res));
	struct column *col = xcalloc(m + 1, sizeof(*col));
	int ret = 0;

	for (size_t j = 0; j < m; j++)
		if (cmp_fill_column(c, b, cs, pr, idx, n, c->measures[cols[j]], &col[j]) < 0) {
			ret = -1;
			goto out;
		}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < m; j++)
			delta[i * m + j] = col[j].c[i] - col[j].b[i];
	paired_tests(delta, n, m, c->resamples, c->permutations, c->boot_seed, c->level, res);
	for (size_t j = 0; j < m; j++) {
		struct measure_cmp *mc = &s->m[cols[j]];
		double sign = compare_lower_is_better(c->measures[cols[j]]) ? -1 : 1;

		for (size_t i = 0; i < n; i++)
			d1[i] = sign * delta[i * m + j];
		mc->n = n;
		mc->baseline = n ? stats_mean(col[j].b, n) : NAN;
		mc->candidate = n ? stats_mean(col[j].c, n) : NAN;
		mc->delta = res[j].mean;
		mc->ci_lo = res[j].ci_lo;
		mc->ci_hi = res[j].ci_hi;
		mc->p = res[j].p;
		cmp_describe_deltas(d1, n, &mc->effect, &mc->win, &mc->tie, &mc->loss);
		mc->effect = mc->effect * sign + 0.0;
		mc->base_spread = run_spread(col[j].rb, b->nr, n);
		mc->cand_spread = run_spread(col[j].rc, cs->nr, n);
	}
out:
	for (size_t j = 0; j < m; j++)
		cmp_column_release(&col[j]);
	free(col);
	free(delta);
	free(d1);
	free(res);
	return ret;
}

static int compute_subset(struct compare *c, struct subset_cmp *s, const struct side *b,
			  const struct side *cs, const struct pairs *pr)
{
	size_t *ans = xmalloc((pr->n + 1) * sizeof(*ans));
	size_t *unans = xmalloc((pr->n + 1) * sizeof(*unans));
	size_t *ir_cols = xmalloc((c->nr_measures + 1) * sizeof(*ir_cols));
	size_t na = 0, nu = 0, nir = 0, decline_col = 0;
	bool has_decline = false;
	int ret = 0;

	s->m = xcalloc(c->nr_measures + 1, sizeof(*s->m));
	for (size_t j = 0; j < c->nr_measures; j++) {
		s->m[j].p = s->m[j].effect = NAN;
		if (!strcmp(c->measures[j], COMPARE_DECLINE)) {
			has_decline = true;
			decline_col = j;
		} else {
			ir_cols[nir++] = j;
		}
	}
	for (size_t i = 0; i < pr->n; i++) {
		const struct question_result *q = pr->bq[i * b->nr];

		if (!cmp_in_subset(s->kind, s->value, q))
			continue;
		if (q->answerable)
			ans[na++] = i;
		else
			unans[nu++] = i;
	}
	s->nr_questions = na + nu;
	/* A group holding every question of its kind is the group of "all":
	 * same questions, same seeds, same numbers, so copy them. */
	if (nir && s != c->subsets && na == c->nr_answerable) {
		for (size_t j = 0; j < nir; j++)
			s->m[ir_cols[j]] = c->subsets[0].m[ir_cols[j]];
	} else if (nir && na && fill_group(c, s, b, cs, pr, ans, na, ir_cols, nir) < 0) {
		ret = -1;
	}
	if (ret == 0 && has_decline && s != c->subsets && nu == c->nr_unanswerable)
		s->m[decline_col] = c->subsets[0].m[decline_col];
	else if (ret == 0 && has_decline && nu &&
		 fill_group(c, s, b, cs, pr, unans, nu, &decline_col, 1) < 0)
		ret = -1;
	free(ans);
	free(unans);
	free(ir_cols);
	return ret;
}

static struct subset_cmp *add_subset(struct compare *c, size_t *alloc, enum subset_kind kind,
				     const char *value)
{
	static const char *const kinds[] = { "all", "origin", "answerable", "tag", "turn" };
	struct subset_cmp *s;

	ALLOC_GROW(c->subsets, c->nr_subsets + 1, *alloc);
	s = &c->subsets[c->nr_subsets++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->value = xstrdup(value);
	s->label = value ? xstrfmt("%s=%s", kinds[kind], value) : xstrdup("all");
	return s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Create the subsets present among the pairs, in the order compare.h states. */
static void make_subsets(struct compare *c, const struct side *b, const struct pairs *pr)
{
	static const char *const origins[] = { "synthetic", "mined", "hand" };
	static const char *const turns[] = { TURN_FIRST, TURN_FOLLOW_UP };
	struct strmap tags = STRMAP_INIT;
	struct strmap_entry *e;
	const char **names;
	size_t alloc = 0, nr_names = 0;
	bool yes = false, no = false;

	add_subset(c, &alloc, SUBSET_ALL, NULL);
	for (size_t o = 0; o < ARRAY_SIZE(origins); o++)
		for (size_t i = 0; i < pr->n; i++)
			if (!strcmp(cmp_origin_of(pr->bq[i * b->nr]), origins[o])) {
				add_subset(c, &alloc, SUBSET_ORIGIN, origins[o]);
				break;
			}
	for (size_t i = 0; i < pr->n; i++) {
		const struct question_result *q = pr->bq[i * b->nr];

		yes |= q->answerable;
		no |= !q->answerable;
		for (size_t t = 0; t < q->nr_tags; t++)
			strmap_put(&tags, q->tags[t], NULL);
	}
	if (yes)
		add_subset(c, &alloc, SUBSET_ANSWERABLE, "true");
	if (no)
		add_subset(c, &alloc, SUBSET_ANSWERABLE, "false");
	names = xcalloc(tags.size + 1, sizeof(*names));
	strmap_for_each(&tags, e)
		names[nr_names++] = e->key;
	qsort(names, nr_names, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nr_names; i++)
		add_subset(c, &alloc, SUBSET_TAG, names[i]);
	free(names);
	for (size_t t = 0; t < ARRAY_SIZE(turns); t++)
		for (size_t i = 0; i < pr->n; i++) {
			const char *turn = pr->bq[i * b->nr]->turn;
			if (turn && !strcmp(turn, turns[t])) {
				add_subset(c, &alloc, SUBSET_TURN, turns[t]);
				break;
			}
		}
	strmap_clear(&tags, 0);
}

static long first_rank(const struct question_result *q)
{
	return q->nr_rel_ranks ? q->rel_ranks[0] : 0;
}

/* Lost and gained in the top k, by the first run of each side. */
static void find_changes(struct compare *c, const struct side *b, const struct side *cs,
			 const struct pairs *pr)
{
	size_t alloc_lost = 0, alloc_gained = 0;

	for (size_t i = 0; i < pr->n; i++) {
		const struct question_result *qb = pr->bq[i * b->nr], *qc = pr->cq[i * cs->nr];
		long rb = first_rank(qb), rc = first_rank(qc);
		bool fb = rb > 0 && rb <= c->k, fc = rc > 0 && rc <= c->k;
		struct question_change *ch;

		if (!qb->answerable || fb == fc)
			continue;
		if (fb) {
			ALLOC_GROW(c->lost, c->nr_lost + 1, alloc_lost);
			ch = &c->lost[c->nr_lost++];
		} else {
			ALLOC_GROW(c->gained, c->nr_gained + 1, alloc_gained);
			ch = &c->gained[c->nr_gained++];
		}
		ch->id = xstrdup(qb->id);
		ch->text = xstrdup(qc->text ? qc->text : qb->text);
		ch->rank_before = rb;
		ch->rank_after = rc;
	}
}

int compare_run(struct compare *c, const struct results *const *base, size_t nb,
		const struct results *const *cand, size_t nc, const struct compare_opts *o)
{
	struct side b = { base, nb }, cs = { cand, nc };
	struct pairs pr = { NULL, NULL, 0, NULL };
	int ret = -1;

	c->set_name = xstrdup(base[0]->set_name);
	c->base_version = xstrdup(base[0]->set_version);
	c->cand_version = xstrdup(cand[0]->set_version);
	c->base_digest = xstrdup(base[0]->set_digest);
	c->cand_digest = xstrdup(cand[0]->set_digest);
	c->base_label = cmp_side_label(&b);
	c->cand_label = cmp_side_label(&cs);
	c->nr_base_runs = nb;
	c->nr_cand_runs = nc;
	c->k = o->k > 0 ? o->k : 5;
	c->resamples = o->resamples > 0 ? o->resamples : 10000;
	c->permutations = o->permutations > 0 ? o->permutations : 10000;
	c->boot_seed = o->seed;
	c->perm_seed = o->seed + 1;
	c->gate_seed = o->seed + 2;
	c->level = o->level > 0 && o->level < 1 ? o->level : 0.95;

	for (size_t k = 0; k < nb + nc; k++) {
		const struct results *r = k < nb ? base[k] : cand[k - nb];

		if (!r->set_digest || !base[0]->set_digest || strcmp(r->set_digest, base[0]->set_digest)) {
			if (!o->allow_set_change) {
				error("baseline and candidate were scored against different set versions: "
				      "%s '%s' (%s) in '%s', %s '%s' (%s) in '%s'; "
				      "score both against one version or pass --allow-set-change",
				      base[0]->set_name ? base[0]->set_name : "?",
				      compare_version_name(base[0]->set_version),
				      base[0]->set_digest ? base[0]->set_digest : "no digest",
				      base[0]->file ? base[0]->file : "?",
				      r->set_name ? r->set_name : "?", compare_version_name(r->set_version),
				      r->set_digest ? r->set_digest : "no digest", r->file ? r->file : "?");
				goto out;
			}
			c->set_changed = true;
		}
	}
	if (o->gate && o->gate->max_leak >= 0 &&
	    cmp_leaks(c, base, nb, cand, nc, o->gate->leak_k ? o->gate->leak_k : c->k) < 0)
		goto out;
	if (cmp_pair_questions(c, &b, &cs, &pr, o->allow_set_change) < 0)
		goto out;
	if (c->nr_left_out)
		c->set_changed = true;
	if (!pr.n) {
		error("baseline '%s' and candidate '%s' have no question in common",
		      c->base_label, c->cand_label);
		goto out;
	}
	c->nr_questions = pr.n;
	for (size_t i = 0; i < pr.n; i++) {
		if (pr.bq[i * nb]->answerable)
			c->nr_answerable++;
		else
			c->nr_unanswerable++;
	}
	cmp_count_missing(c, &b, &cs, &pr);
	if (o->progress && o->gate)
		progress_phase(o->progress, "gate rules", (double)o->gate->nr);
	if (o->gate && cmp_test_rules(c, o, &b, &cs, &pr) < 0)
		goto out;
	if (o->gate_only) {
		ret = 0;
		goto out;
	}
	if (pick_measures(c, &b, &cs, o) < 0)
		goto out;
	make_subsets(c, &b, &pr);
	if (o->progress)
		progress_phase(o->progress, "subsets", (double)c->nr_subsets);
	for (size_t i = 0; i < c->nr_subsets; i++) {
		if (o->progress)
			progress_update(o->progress, (double)i);
		if (compute_subset(c, &c->subsets[i], &b, &cs, &pr) < 0)
			goto out;
	}
	find_changes(c, &b, &cs, &pr);
	ret = 0;
out:
	cmp_pairs_release(&pr);
	return ret;
}

/* Report that 'measure' is absent from 'r' ('absent') or has no question there. */
static void error_results(const struct results *r, bool absent, const char *measure)
{
	const struct results *const one[] = { r };
	struct side sd = { one, 1 };
	char *label = cmp_side_label(&sd);

	if (absent)
		error("measure '%s' is not in results '%s'", measure, label);
	else
		error("no question to measure '%s' on in results '%s'", measure, label);
	free(label);
}

int power_estimate(const struct results *base, const struct results *cand,
		   const char *measure, double effect, struct power_estimate *out)
{
	bool decline = !strcmp(measure, COMPARE_DECLINE);
	long bc = decline ? -1 : cmp_measure_index(base, measure);
	long cc = -1;
	double *v = xmalloc((base->nr + 1) * sizeof(*v));
	struct strmap ids = STRMAP_INIT;
	size_t n = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!decline && bc < 0) {
		error_results(base, true, measure);
		goto out;
	}
	if (cand) {
		cc = decline ? -1 : cmp_measure_index(cand, measure);
		if (!decline && cc < 0) {
			error_results(cand, true, measure);
			goto out;
		}
		for (size_t i = 0; i < cand->nr; i++)
			strmap_put(&ids, cand->q[i].id, &cand->q[i]);
	}
	for (size_t i = 0; i < base->nr; i++) {
		const struct question_result *q = &base->q[i], *qc = NULL;
		double x;

		if (q->answerable == decline)
			continue;
		if (cand) {
			qc = strmap_get(&ids, q->id);
			if (!qc || qc->answerable != q->answerable)
				continue;
		}
		x = cmp_value_of(q, bc);
		if (qc)
			x = cmp_value_of(qc, cc) - x;
		if (isnan(x))
			continue;
		v[n++] = x;
	}
	if (!n) {
		error_results(base, false, measure);
		goto out;
	}
	out->n = n;
	out->paired = cand != NULL;
	out->sd = stats_sd(v, n);
	out->mde = power_mde(out->sd, n, 0.05, 0.8);
	out->effect = effect;
	out->needed = power_needed(out->sd, effect, 0.05, 0.8);
	ret = 0;
out:
	strmap_clear(&ids, 0);
	free(v);
	return ret;
}
