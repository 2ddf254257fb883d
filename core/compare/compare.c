/*
 * compare: pairs the questions of two results, builds per-subset delta
 * matrices and runs the paired tests of core/stats on them (contract in
 * compare.h). Nothing here prints except error().
 *
 * Cost: one paired_tests call per subset and measure group (IR measures
 * share one call; Decline has its own), each O((B + N) * n * m).
 */
#include "compare/compare.h"
#include "base/error.h"
#include "score/results.h"
#include "compare/stats.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pair {
	const struct question_result *b, *c;
};

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

void compare_release(struct compare *c)
{
	free(c->set_name);
	free(c->base_version);
	free(c->cand_version);
	free(c->base_digest);
	free(c->cand_digest);
	free(c->base_label);
	free(c->cand_label);
	for (size_t i = 0; i < c->nr_measures; i++)
		free(c->measures[i]);
	free(c->measures);
	for (size_t i = 0; i < c->nr_subsets; i++) {
		free(c->subsets[i].value);
		free(c->subsets[i].label);
		free(c->subsets[i].m);
	}
	free(c->subsets);
	free_changes(c->lost, c->nr_lost);
	free_changes(c->gained, c->nr_gained);
	compare_init(c);
}

const char *compare_version_name(const char *version)
{
	return version ? version : "working copy";
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

static long measure_index(const struct results *r, const char *name)
{
	for (size_t i = 0; i < r->nr_measures; i++)
		if (!strcmp(r->measures[i], name))
			return (long)i;
	return -1;
}

/* Return how to name 'r' to a user: "NAME (FILE)", or whichever is known;
 * caller frees. */
static char *results_label(const struct results *r)
{
	const char *where = r->file ? r->file : r->run_path;

	if (r->run_name && where && strcmp(r->run_name, where))
		return xstrfmt("%s (%s)", r->run_name, where);
	if (r->run_name)
		return xstrdup(r->run_name);
	return xstrdup(where ? where : "(unnamed)");
}

static const char *origin_of(const struct question_result *q)
{
	return q->origin ? q->origin : "hand";
}

static bool has_tag(const struct question_result *q, const char *tag)
{
	for (size_t i = 0; i < q->nr_tags; i++)
		if (!strcmp(q->tags[i], tag))
			return true;
	return false;
}

/* Append 'name' to c->measures unless there, after checking both results
 * hold it (Decline is derived, so always available). */
static int add_measure(struct compare *c, size_t *alloc, const struct results *base,
		       const struct results *cand, const char *name)
{
	const struct results *miss = NULL;

	if (compare_measure(c, name) >= 0)
		return 0;
	if (strcmp(name, COMPARE_DECLINE)) {
		if (measure_index(base, name) < 0)
			miss = base;
		else if (measure_index(cand, name) < 0)
			miss = cand;
	}
	if (miss) {
		struct strbuf sb = STRBUF_INIT;

		for (size_t j = 0; j < miss->nr_measures; j++)
			strbuf_addf(&sb, "%s, ", miss->measures[j]);
		char *label = results_label(miss);

		error("measure '%s' is not in results '%s' (it has: %sDecline)", name, label, sb.buf);
		free(label);
		strbuf_release(&sb);
		return -1;
	}
	ALLOC_GROW(c->measures, c->nr_measures + 1, *alloc);
	c->measures[c->nr_measures++] = xstrdup(name);
	return 0;
}

/* Resolve the measures to compare into c->measures and the column of each in
 * 'base' and 'cand' (-1 for Decline). */
static int pick_measures(struct compare *c, const struct results *base,
			 const struct results *cand, const struct compare_opts *o,
			 long **bcol, long **ccol)
{
	size_t alloc = 0;

	*bcol = *ccol = NULL;
	if (o->nr_measures) {
		for (size_t i = 0; i < o->nr_measures; i++)
			if (add_measure(c, &alloc, base, cand, o->measures[i]) < 0)
				return -1;
	} else {
		for (size_t i = 0; i < base->nr_measures; i++)
			if (measure_index(cand, base->measures[i]) >= 0)
				add_measure(c, &alloc, base, cand, base->measures[i]);
		if (c->nr_unanswerable)
			add_measure(c, &alloc, base, cand, COMPARE_DECLINE);
	}
	for (size_t i = 0; i < o->nr_extra; i++)
		if (add_measure(c, &alloc, base, cand, o->extra[i]) < 0)
			return -1;
	*bcol = xcalloc(c->nr_measures + 1, sizeof(long));
	*ccol = xcalloc(c->nr_measures + 1, sizeof(long));
	for (size_t j = 0; j < c->nr_measures; j++) {
		(*bcol)[j] = measure_index(base, c->measures[j]);
		(*ccol)[j] = measure_index(cand, c->measures[j]);
		if (!strcmp(c->measures[j], COMPARE_DECLINE))
			(*bcol)[j] = (*ccol)[j] = -1;
	}
	return 0;
}

/* Pair the questions of 'base' and 'cand' by id, in baseline order. */
static struct pair *pair_questions(struct compare *c, const struct results *base,
				   const struct results *cand, size_t *nr)
{
	struct strmap ids = STRMAP_INIT;
	struct pair *v = xcalloc(base->nr + 1, sizeof(*v));
	size_t n = 0, matched = 0;

	for (size_t i = 0; i < cand->nr; i++)
		strmap_put(&ids, cand->q[i].id, &cand->q[i]);
	for (size_t i = 0; i < base->nr; i++) {
		const struct question_result *cq = strmap_get(&ids, base->q[i].id);

		if (!cq) {
			c->nr_only_base++;
			continue;
		}
		matched++;
		if (cq->answerable != base->q[i].answerable) {
			/* The question changed meaning: it is not the same question. */
			c->nr_only_base++;
			c->nr_only_cand++;
			continue;
		}
		v[n].b = &base->q[i];
		v[n].c = cq;
		n++;
	}
	c->nr_only_cand += cand->nr - matched;
	strmap_clear(&ids, 0);
	*nr = n;
	return v;
}

static double value_of(const struct question_result *q, long col)
{
	if (col < 0)
		return q->declined ? 1.0 : 0.0;
	return q->values ? q->values[col] : NAN;
}

/* Fill 's->m[cols[0..m)]' from the paired tests over the questions 'idx'. */
static int fill_group(struct compare *c, struct subset_cmp *s, const struct pair *pairs,
		      const size_t *idx, size_t n, const size_t *cols, size_t m,
		      const long *bcol, const long *ccol)
{
	double *delta = xmalloc((n * m + 1) * sizeof(*delta));
	double *bsum = xcalloc(m + 1, sizeof(*bsum));
	double *csum = xcalloc(m + 1, sizeof(*csum));
	struct paired_result *res = xcalloc(m + 1, sizeof(*res));
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		const struct pair *pr = &pairs[idx[i]];

		for (size_t j = 0; j < m; j++) {
			double bv = value_of(pr->b, bcol[cols[j]]);
			double cv = value_of(pr->c, ccol[cols[j]]);

			if (isnan(bv) || isnan(cv)) {
				ret = error("question '%s' has no value for '%s' in %s '%s'",
					    pr->b->id, c->measures[cols[j]],
					    isnan(bv) ? "baseline" : "candidate",
					    isnan(bv) ? c->base_label : c->cand_label);
				goto out;
			}
			bsum[j] += bv;
			csum[j] += cv;
			delta[i * m + j] = cv - bv;
		}
	}
	paired_tests(delta, n, m, c->resamples, c->permutations, c->boot_seed, c->level, res);
	for (size_t j = 0; j < m; j++) {
		struct measure_cmp *mc = &s->m[cols[j]];

		mc->n = n;
		mc->baseline = n ? bsum[j] / (double)n : NAN;
		mc->candidate = n ? csum[j] / (double)n : NAN;
		mc->delta = res[j].mean;
		mc->ci_lo = res[j].ci_lo;
		mc->ci_hi = res[j].ci_hi;
		mc->p = res[j].p;
		mc->too_small = n > 0 && n < COMPARE_MIN_N;
	}
out:
	free(delta);
	free(bsum);
	free(csum);
	free(res);
	return ret;
}

static bool in_subset(const struct subset_cmp *s, const struct question_result *q)
{
	switch (s->kind) {
	case SUBSET_ALL:
		return true;
	case SUBSET_ORIGIN:
		return !strcmp(origin_of(q), s->value);
	case SUBSET_ANSWERABLE:
		return q->answerable == !strcmp(s->value, "true");
	case SUBSET_TAG:
		return has_tag(q, s->value);
	}
	return false;
}

static int compute_subset(struct compare *c, struct subset_cmp *s, const struct pair *pairs,
			  size_t nr_pairs, const long *bcol, const long *ccol)
{
	size_t *ans = xmalloc((nr_pairs + 1) * sizeof(*ans));
	size_t *unans = xmalloc((nr_pairs + 1) * sizeof(*unans));
	size_t *ir_cols = xmalloc((c->nr_measures + 1) * sizeof(*ir_cols));
	size_t na = 0, nu = 0, nir = 0, decline_col = 0;
	bool has_decline = false;
	double *p = xmalloc((c->nr_measures + 1) * sizeof(*p));
	int ret = 0;

	s->m = xcalloc(c->nr_measures + 1, sizeof(*s->m));
	for (size_t j = 0; j < c->nr_measures; j++) {
		if (bcol[j] < 0) {
			has_decline = true;
			decline_col = j;
		} else {
			ir_cols[nir++] = j;
		}
	}
	for (size_t i = 0; i < nr_pairs; i++) {
		if (!in_subset(s, pairs[i].b))
			continue;
		if (pairs[i].b->answerable)
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
	} else if (nir && fill_group(c, s, pairs, ans, na, ir_cols, nir, bcol, ccol) < 0) {
		goto fail;
	}
	if (has_decline && s != c->subsets && nu == c->nr_unanswerable)
		s->m[decline_col] = c->subsets[0].m[decline_col];
	else if (has_decline && fill_group(c, s, pairs, unans, nu, &decline_col, 1, bcol, ccol) < 0)
		goto fail;
	for (size_t j = 0; j < c->nr_measures; j++)
		p[j] = s->m[j].p;
	holm_adjust(p, c->nr_measures, p);
	for (size_t j = 0; j < c->nr_measures; j++)
		s->m[j].p_adj = p[j];
	goto out;
fail:
	ret = -1;
out:
	free(ans);
	free(unans);
	free(ir_cols);
	free(p);
	return ret;
}

static struct subset_cmp *add_subset(struct compare *c, size_t *alloc, enum subset_kind kind,
				     const char *value)
{
	static const char *const kinds[] = { "all", "origin", "answerable", "tag" };
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

/* Create the subsets present among 'pairs', in the order compare.h states. */
static void make_subsets(struct compare *c, const struct pair *pairs, size_t n)
{
	static const char *const origins[] = { "synthetic", "mined", "hand" };
	struct strmap tags = STRMAP_INIT;
	struct strmap_entry *e;
	const char **names;
	size_t alloc = 0, nr_names = 0;
	bool yes = false, no = false;

	add_subset(c, &alloc, SUBSET_ALL, NULL);
	for (size_t o = 0; o < ARRAY_SIZE(origins); o++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(origin_of(pairs[i].b), origins[o])) {
				add_subset(c, &alloc, SUBSET_ORIGIN, origins[o]);
				break;
			}
	for (size_t i = 0; i < n; i++) {
		yes |= pairs[i].b->answerable;
		no |= !pairs[i].b->answerable;
		for (size_t t = 0; t < pairs[i].b->nr_tags; t++)
			strmap_put(&tags, pairs[i].b->tags[t], NULL);
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
	strmap_clear(&tags, 0);
}

static long first_rank(const struct question_result *q)
{
	return q->nr_rel_ranks ? q->rel_ranks[0] : 0;
}

static void find_changes(struct compare *c, const struct pair *pairs, size_t n)
{
	size_t alloc_lost = 0, alloc_gained = 0;

	for (size_t i = 0; i < n; i++) {
		long rb = first_rank(pairs[i].b), rc = first_rank(pairs[i].c);
		bool fb = rb > 0 && rb <= c->k, fc = rc > 0 && rc <= c->k;
		struct question_change *qc;

		if (!pairs[i].b->answerable || fb == fc)
			continue;
		if (fb) {
			ALLOC_GROW(c->lost, c->nr_lost + 1, alloc_lost);
			qc = &c->lost[c->nr_lost++];
		} else {
			ALLOC_GROW(c->gained, c->nr_gained + 1, alloc_gained);
			qc = &c->gained[c->nr_gained++];
		}
		qc->id = xstrdup(pairs[i].b->id);
		qc->text = xstrdup(pairs[i].c->text ? pairs[i].c->text : pairs[i].b->text);
		qc->rank_before = rb;
		qc->rank_after = rc;
	}
}

int compare_run(struct compare *c, const struct results *base,
		const struct results *cand, const struct compare_opts *o)
{
	struct pair *pairs = NULL;
	size_t nr_pairs = 0;
	long *bcol = NULL, *ccol = NULL;
	int ret = -1;

	c->set_name = xstrdup(base->set_name);
	c->base_version = xstrdup(base->set_version);
	c->cand_version = xstrdup(cand->set_version);
	c->base_digest = xstrdup(base->set_digest);
	c->cand_digest = xstrdup(cand->set_digest);
	c->base_label = results_label(base);
	c->cand_label = results_label(cand);
	c->k = o->k > 0 ? o->k : 5;
	c->resamples = o->resamples > 0 ? o->resamples : 10000;
	c->permutations = o->permutations > 0 ? o->permutations : 10000;
	c->boot_seed = o->seed;
	c->perm_seed = o->seed + 1;
	c->level = o->level > 0 && o->level < 1 ? o->level : 0.95;

	if (!base->set_digest || !cand->set_digest ||
	    strcmp(base->set_digest, cand->set_digest)) {
		if (!o->allow_set_change) {
			error("baseline and candidate were scored against different set versions: "
			      "%s '%s' (%s) in '%s', %s '%s' (%s) in '%s'; "
			      "score both against one version or pass --allow-set-change",
			      base->set_name ? base->set_name : "?",
			      compare_version_name(base->set_version),
			      base->set_digest ? base->set_digest : "no digest", c->base_label,
			      cand->set_name ? cand->set_name : "?",
			      compare_version_name(cand->set_version),
			      cand->set_digest ? cand->set_digest : "no digest", c->cand_label);
			goto out;
		}
		c->set_changed = true;
	}
	pairs = pair_questions(c, base, cand, &nr_pairs);
	if (!nr_pairs) {
		error("baseline '%s' and candidate '%s' have no question in common",
		      c->base_label, c->cand_label);
		goto out;
	}
	c->nr_questions = nr_pairs;
	for (size_t i = 0; i < nr_pairs; i++) {
		if (pairs[i].b->answerable)
			c->nr_answerable++;
		else
			c->nr_unanswerable++;
	}
	if (pick_measures(c, base, cand, o, &bcol, &ccol) < 0)
		goto out;
	make_subsets(c, pairs, nr_pairs);
	for (size_t i = 0; i < c->nr_subsets; i++)
		if (compute_subset(c, &c->subsets[i], pairs, nr_pairs, bcol, ccol) < 0)
			goto out;
	find_changes(c, pairs, nr_pairs);
	ret = 0;
out:
	free(pairs);
	free(bcol);
	free(ccol);
	return ret;
}

/* Report that 'measure' is absent from 'r' ('absent') or has no question there. */
static void error_results(const struct results *r, bool absent, const char *measure)
{
	char *label = results_label(r);

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
	long bc = decline ? -1 : measure_index(base, measure);
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
		cc = decline ? -1 : measure_index(cand, measure);
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
		x = value_of(q, bc);
		if (qc)
			x = value_of(qc, cc) - x;
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
