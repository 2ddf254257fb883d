/*
 * compare: pairs the questions of the runs of both sides, builds per-subset
 * delta matrices and runs the paired tests of core/stats on them, and tests
 * the gate's rules through core/fliptest (contract in compare.h). Nothing
 * here prints except error().
 *
 * Cost: one paired_tests call per subset and measure group (IR measures
 * share one call; Decline has its own), each O((B + N) * n * m); one
 * flip_test over the gate's rules, O(B * G * K) for G distinct rows.
 */
#include "compare/compare.h"
#include "compare/fliptest.h"
#include "compare/gate.h"
#include "base/error.h"
#include "score/results.h"
#include "compare/stats.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Where a measure lives in each run of a side: a column, or a derived kind. */
#define COL_DECLINE (-1)
#define COL_FALSE_DECLINE (-2)

struct side {
	const struct results *const *r;
	size_t nr;
};

/* The questions compared: q[p * nr + k] is pair p's question in run k of a side. */
struct pairs {
	const struct question_result **bq, **cq;
	size_t n;
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
	compare_init(c);
}

const char *compare_version_name(const char *version)
{
	return version ? version : "working copy";
}

bool compare_lower_is_better(const char *measure)
{
	return !strcmp(measure, COMPARE_FALSE_DECLINE);
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

/* Return how to name the runs of 'sd' to a user: "NAME (FILE)", or
 * whichever is known, "+N more" for repeated runs; caller frees. */
static char *side_label(const struct side *sd)
{
	const struct results *r = sd->r[0];
	const char *where = r->file ? r->file : r->run_path;
	char *one, *all;

	if (r->run_name && where && strcmp(r->run_name, where))
		one = xstrfmt("%s (%s)", r->run_name, where);
	else
		one = xstrdup(r->run_name ? r->run_name : where ? where : "(unnamed)");
	if (sd->nr < 2)
		return one;
	all = xstrfmt("%s +%zu more run%s", one, sd->nr - 1, sd->nr > 2 ? "s" : "");
	free(one);
	return all;
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

/* Return the column of 'name' in 'r' (Hit@k and Success@k are one measure;
 * COL_DECLINE / COL_FALSE_DECLINE for the derived ones), or LONG_MIN. */
static long column_of(const struct results *r, const char *name)
{
	long j;
	char *alt = NULL;

	if (!strcmp(name, COMPARE_DECLINE))
		return COL_DECLINE;
	if (!strcmp(name, COMPARE_FALSE_DECLINE))
		return COL_FALSE_DECLINE;
	j = measure_index(r, name);
	if (j >= 0)
		return j;
	if (starts_with(name, "Hit@"))
		alt = xstrfmt("Success@%s", name + 4);
	else if (starts_with(name, "Success@"))
		alt = xstrfmt("Hit@%s", name + 8);
	j = alt ? measure_index(r, alt) : -1;
	free(alt);
	return j >= 0 ? j : LONG_MIN;
}

/* Fill 'cols[0..nr)' with the column of 'name' in each run of 'sd'; report
 * a run that lacks it. */
static int side_columns(const struct side *sd, const char *name, long *cols)
{
	for (size_t k = 0; k < sd->nr; k++) {
		const struct results *r = sd->r[k];

		cols[k] = column_of(r, name);
		if (cols[k] == LONG_MIN) {
			struct strbuf sb = STRBUF_INIT;

			for (size_t j = 0; j < r->nr_measures; j++)
				strbuf_addf(&sb, "%s, ", r->measures[j]);
			error("measure '%s' is not in results '%s' (it has: %sDecline, FalseDecline)", name,
			      r->file ? r->file : r->run_path ? r->run_path : "?", sb.buf);
			strbuf_release(&sb);
			return -1;
		}
	}
	return 0;
}

static double value_of(const struct question_result *q, long col)
{
	if (col == COL_DECLINE || col == COL_FALSE_DECLINE)
		return q->declined && !q->missing ? 1.0 : 0.0;
	return q->values ? q->values[col] : NAN;
}

/* Return the mean over the runs of one side of pair 'p' for the columns 'cols'. */
static double side_value(const struct question_result *const *q, size_t nr, const long *cols)
{
	double s = 0;

	for (size_t k = 0; k < nr; k++)
		s += value_of(q[k], cols[k]);
	return s / (double)nr;
}

/* Append 'name' to c->measures unless there, after checking every results
 * holds it. */
static int add_measure(struct compare *c, size_t *alloc, const struct side *b,
		       const struct side *cs, const char *name)
{
	long *cols = xcalloc(b->nr + cs->nr + 1, sizeof(*cols));
	int ret = 0;

	if (compare_measure(c, name) < 0) {
		if (side_columns(b, name, cols) < 0 || side_columns(cs, name, cols + b->nr) < 0) {
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
			everywhere &= measure_index(b->r[k], b0->measures[i]) >= 0;
		for (size_t k = 0; k < cs->nr; k++)
			everywhere &= measure_index(cs->r[k], b0->measures[i]) >= 0;
		if (everywhere)
			add_measure(c, &alloc, b, cs, b0->measures[i]);
	}
	if (c->nr_unanswerable)
		add_measure(c, &alloc, b, cs, COMPARE_DECLINE);
	if (c->nr_answerable)
		add_measure(c, &alloc, b, cs, COMPARE_FALSE_DECLINE);
	return 0;
}

static void note_left_out(struct compare *c, size_t *alloc, const char *id, const char *why)
{
	ALLOC_GROW(c->left_out, c->nr_left_out + 1, *alloc);
	c->left_out[c->nr_left_out++] = xstrfmt("%s (%s)", id, why);
}

static bool same_text(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* Return the question 'id' of 'r' through 'map' (NULL: look in r itself). */
static const struct question_result *lookup(struct strmap *map, const struct results *r,
					    size_t i, const char *id)
{
	if (i < r->nr && !strcmp(r->q[i].id, id))
		return &r->q[i];
	return strmap_get(map, id);
}

/* Pair the questions of both sides by id, in the order of the first
 * baseline run. A question must be in every run of both sides with the same
 * text and answerable flag; otherwise it is left out (set change) or, when
 * the runs were scored on one set, reported as an error. */
static int pair_questions(struct compare *c, const struct side *b, const struct side *cs,
			  struct pairs *pr, bool allow)
{
	size_t nruns = b->nr + cs->nr, alloc = 0, matched_cand = 0;
	struct strmap *maps = xcalloc(nruns + 1, sizeof(*maps));
	const struct results **all = xcalloc(nruns + 1, sizeof(*all));
	const struct question_result **row = xcalloc(nruns + 1, sizeof(*row));
	const struct results *b0 = b->r[0];
	int ret = 0;

	for (size_t k = 0; k < nruns; k++) {
		all[k] = k < b->nr ? b->r[k] : cs->r[k - b->nr];
		maps[k] = (struct strmap)STRMAP_INIT;
		for (size_t i = 0; i < all[k]->nr; i++)
			strmap_put(&maps[k], all[k]->q[i].id, &all[k]->q[i]);
	}
	pr->bq = xcalloc(b0->nr * b->nr + 1, sizeof(*pr->bq));
	pr->cq = xcalloc(b0->nr * cs->nr + 1, sizeof(*pr->cq));
	pr->n = 0;
	for (size_t i = 0; i < b0->nr; i++) {
		const struct question_result *q0 = &b0->q[i];
		const char *why = NULL;

		for (size_t k = 0; k < nruns && !why; k++) {
			row[k] = lookup(&maps[k], all[k], i, q0->id);
			if (!row[k])
				why = k < b->nr ? "not in every baseline run" : "not in the candidate";
			else if (row[k]->answerable != q0->answerable)
				why = "answerable changed";
			else if (!same_text(row[k]->text, q0->text))
				why = "text changed";
			else if (row[k]->stale)
				why = "text or answerability changed since the run was made";
		}
		if (row[b->nr])
			matched_cand++;
		if (why) {
			c->nr_only_base++;
			if (row[b->nr] && strcmp(why, "not in the candidate"))
				c->nr_only_cand++;
			note_left_out(c, &alloc, q0->id, why);
			continue;
		}
		memcpy(pr->bq + pr->n * b->nr, row, b->nr * sizeof(*row));
		memcpy(pr->cq + pr->n * cs->nr, row + b->nr, cs->nr * sizeof(*row));
		pr->n++;
	}
	for (size_t i = 0; i < cs->r[0]->nr; i++)
		if (!lookup(&maps[0], b0, cs->r[0]->nr, cs->r[0]->q[i].id)) {
			c->nr_only_cand++;
			note_left_out(c, &alloc, cs->r[0]->q[i].id, "not in the baseline");
		}
	(void)matched_cand;
	if (c->nr_left_out && !allow) {
		ret = error("baseline '%s' and candidate '%s' do not hold the same questions "
			    "(e.g. %s); score both against one version or pass --allow-set-change",
			    c->base_label, c->cand_label, c->left_out[0]);
	}
	for (size_t k = 0; k < nruns; k++)
		strmap_clear(&maps[k], 0);
	free(maps);
	free(all);
	free(row);
	return ret;
}

/* Count the questions missing on each side; list the new ones. */
static void count_missing(struct compare *c, const struct side *b, const struct side *cs,
			  const struct pairs *pr)
{
	size_t alloc = 0;

	for (size_t p = 0; p < pr->n; p++) {
		bool mb = false, mc = false;

		for (size_t k = 0; k < b->nr; k++)
			mb |= pr->bq[p * b->nr + k]->missing;
		for (size_t k = 0; k < cs->nr; k++)
			mc |= pr->cq[p * cs->nr + k]->missing;
		c->missing_base += mb;
		c->missing_cand += mc;
		if (mc && !mb) {
			c->missing_new++;
			if (c->nr_missing_new_ids < COMPARE_LIST) {
				ALLOC_GROW(c->missing_new_ids, c->nr_missing_new_ids + 1, alloc);
				c->missing_new_ids[c->nr_missing_new_ids++] =
					xstrdup(pr->bq[p * b->nr]->id);
			}
		}
	}
}

static bool in_subset(enum subset_kind kind, const char *value, const struct question_result *q)
{
	switch (kind) {
	case SUBSET_ALL:
		return true;
	case SUBSET_ORIGIN:
		return !strcmp(origin_of(q), value);
	case SUBSET_ANSWERABLE:
		return q->answerable == !strcmp(value, "true");
	case SUBSET_TAG:
		return has_tag(q, value);
	}
	return false;
}

/* Per-question values of one measure on both sides over the pairs 'idx'. */
struct column {
	double *b, *c;      /* means over each side's runs */
	double *rb, *rc;    /* per run: rb[k * n + i] */
	size_t n;
};

static int fill_column(const struct compare *c, const struct side *b, const struct side *cs,
		       const struct pairs *pr, const size_t *idx, size_t n, const char *name,
		       struct column *col)
{
	long *bc = xcalloc(b->nr + 1, sizeof(*bc)), *cc = xcalloc(cs->nr + 1, sizeof(*cc));
	int ret = 0;

	col->n = n;
	col->b = xmalloc((n + 1) * sizeof(double));
	col->c = xmalloc((n + 1) * sizeof(double));
	col->rb = xmalloc((n * b->nr + 1) * sizeof(double));
	col->rc = xmalloc((n * cs->nr + 1) * sizeof(double));
	if (side_columns(b, name, bc) < 0 || side_columns(cs, name, cc) < 0) {
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct question_result *const *qb = pr->bq + idx[i] * b->nr;
		const struct question_result *const *qc = pr->cq + idx[i] * cs->nr;

		for (size_t k = 0; k < b->nr; k++)
			col->rb[k * n + i] = value_of(qb[k], bc[k]);
		for (size_t k = 0; k < cs->nr; k++)
			col->rc[k * n + i] = value_of(qc[k], cc[k]);
		col->b[i] = side_value(qb, b->nr, bc);
		col->c[i] = side_value(qc, cs->nr, cc);
		if (isnan(col->b[i]) || isnan(col->c[i])) {
			ret = error("question '%s' has no value for '%s' in %s '%s'", qb[0]->id, name,
				    isnan(col->b[i]) ? "baseline" : "candidate",
				    isnan(col->b[i]) ? c->base_label : c->cand_label);
			goto out;
		}
	}
out:
	free(bc);
	free(cc);
	return ret;
}

static void column_release(struct column *col)
{
	free(col->b);
	free(col->c);
	free(col->rb);
	free(col->rc);
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

/* Fill effect size and win/tie/loss from 'd' (candidate - baseline, oriented
 * so positive is better). */
static void describe_deltas(const double *d, size_t n, double *effect, size_t *win,
			    size_t *tie, size_t *loss)
{
	double sd = stats_sd(d, n), mean = stats_mean(d, n);

	*win = *tie = *loss = 0;
	for (size_t i = 0; i < n; i++) {
		if (d[i] > 1e-12)
			(*win)++;
		else if (d[i] < -1e-12)
			(*loss)++;
		else
			(*tie)++;
	}
	*effect = sd > 0 ? mean / sd : (mean == 0 && n ? 0 : NAN);
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
		if (fill_column(c, b, cs, pr, idx, n, c->measures[cols[j]], &col[j]) < 0) {
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
		describe_deltas(d1, n, &mc->effect, &mc->win, &mc->tie, &mc->loss);
		mc->effect = mc->effect * sign + 0.0;
		mc->base_spread = run_spread(col[j].rb, b->nr, n);
		mc->cand_spread = run_spread(col[j].rc, cs->nr, n);
	}
out:
	for (size_t j = 0; j < m; j++)
		column_release(&col[j]);
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

		if (!in_subset(s->kind, s->value, q))
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

/* Create the subsets present among the pairs, in the order compare.h states. */
static void make_subsets(struct compare *c, const struct side *b, const struct pairs *pr)
{
	static const char *const origins[] = { "synthetic", "mined", "hand" };
	struct strmap tags = STRMAP_INIT;
	struct strmap_entry *e;
	const char **names;
	size_t alloc = 0, nr_names = 0;
	bool yes = false, no = false;

	add_subset(c, &alloc, SUBSET_ALL, NULL);
	for (size_t o = 0; o < ARRAY_SIZE(origins); o++)
		for (size_t i = 0; i < pr->n; i++)
			if (!strcmp(origin_of(pr->bq[i * b->nr]), origins[o])) {
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

/* The questions of rule 'r': its subset and kind (answerable questions, or
 * unanswerable ones for Decline). */
static size_t rule_questions(const struct gate_rule *r, const struct side *b,
			     const struct pairs *pr, size_t *idx)
{
	bool decline = !strcmp(r->measure, COMPARE_DECLINE);
	size_t n = 0;

	for (size_t i = 0; i < pr->n; i++) {
		const struct question_result *q = pr->bq[i * b->nr];

		if (q->answerable != decline && in_subset(r->subset, r->subset_value, q))
			idx[n++] = i;
	}
	return n;
}

static char *rule_subset_label(const struct gate_rule *r)
{
	static const char *const kinds[] = { "all", "origin", "answerable", "tag" };

	return r->subset == SUBSET_ALL ? xstrdup("all")
				       : xstrfmt("%s=%s", kinds[r->subset], r->subset_value);
}

/* Refuse, before any test is computed, a rule that could never decide:
 * no question, fewer than its min_questions, or a smallest attainable p
 * that is not below alpha. */
static int check_rule(const struct gate *g, const struct gate_rule *r, size_t n, long perms,
		      const char *subset)
{
	const char *file = g->file ? g->file : "default gate";
	long line = g->file ? r->line : 0, col = g->file ? r->col : 0;
	double minp;

	if (!n)
		return error_at(file, line, col, "rule '%s' on %s has no question to judge; "
				"remove the rule or fix its subset", r->measure, subset);
	if (r->min_questions && (long)n < r->min_questions)
		return error_at(file, line, col, "rule '%s' on %s has %zu questions, fewer than its "
				"min_questions %ld; add questions to the subset or lower min_questions",
				r->measure, subset, n, r->min_questions);
	if (r->test == TEST_NONE)
		return 0;
	minp = flip_min_p(n, perms);
	if (minp >= g->alpha) {
		struct strbuf fix = STRBUF_INIT;
		int ret;

		if (1.0 / ((double)perms + 1) >= g->alpha)
			strbuf_addf(&fix, "pass --permutations %ld or more", (long)ceil(20 / g->alpha));
		else
			strbuf_addf(&fix, "use a subset of more than %zu questions", n);
		ret = error_at(file, line, col, "rule '%s' (test %s) on %s can never %s: with %zu "
			       "questions and %ld permutations its smallest attainable p is %.3g, "
			       "not below alpha %g; %s, or use test: none",
			       r->measure, gate_test_name(r->test), subset,
			       r->test == TEST_DROP ? "fail" : "pass", n, perms, minp, g->alpha, fix.buf);
		strbuf_release(&fix);
		return ret;
	}
	return 0;
}

static int test_rules(struct compare *c, const struct compare_opts *o, const struct side *b,
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
		if (check_rule(g, r, rn[i], c->permutations, rc->subset_label) < 0)
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
		if (fill_column(c, b, cs, pr, ridx[i], rn[i], r->measure, &col) < 0) {
			column_release(&col);
			goto out;
		}
		loss[i] = xmalloc(rn[i] * sizeof(double));
		d = xmalloc(rn[i] * sizeof(double));
		for (size_t q = 0; q < rn[i]; q++) {
			loss[i][q] = r->rise ? col.c[q] - col.b[q] : col.b[q] - col.c[q];
			d[q] = -loss[i][q];
		}
		rc->baseline = stats_mean(col.b, rn[i]);
		rc->candidate = stats_mean(col.c, rn[i]);
		rc->loss = stats_mean(loss[i], rn[i]);
		describe_deltas(d, rn[i], &rc->effect, &rc->win, &rc->tie, &rc->loss_n);
		free(d);
		column_release(&col);
		if (r->test != TEST_NONE) {
			kcol[i] = K++;
			fam[kcol[i]] = r->test == TEST_DROP;
		}
	}
	c->rules_exact = true;
	if (K) {
		x = xcalloc(pr->n * K + 1, sizeof(*x));
		fr = xcalloc(K + 1, sizeof(*fr));
		for (size_t i = 0; i < nr; i++) {
			const struct gate_rule *r = &g->rules[i];

			if (!rn[i] || r->test == TEST_NONE)
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
	free(idx);
	free(x);
	free(fr);
	return ret;
}

int compare_run(struct compare *c, const struct results *const *base, size_t nb,
		const struct results *const *cand, size_t nc, const struct compare_opts *o)
{
	struct side b = { base, nb }, cs = { cand, nc };
	struct pairs pr = { NULL, NULL, 0 };
	int ret = -1;

	c->set_name = xstrdup(base[0]->set_name);
	c->base_version = xstrdup(base[0]->set_version);
	c->cand_version = xstrdup(cand[0]->set_version);
	c->base_digest = xstrdup(base[0]->set_digest);
	c->cand_digest = xstrdup(cand[0]->set_digest);
	c->base_label = side_label(&b);
	c->cand_label = side_label(&cs);
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
	if (pair_questions(c, &b, &cs, &pr, o->allow_set_change) < 0)
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
	count_missing(c, &b, &cs, &pr);
	if (o->gate && test_rules(c, o, &b, &cs, &pr) < 0)
		goto out;
	if (pick_measures(c, &b, &cs, o) < 0)
		goto out;
	make_subsets(c, &b, &pr);
	for (size_t i = 0; i < c->nr_subsets; i++)
		if (compute_subset(c, &c->subsets[i], &b, &cs, &pr) < 0)
			goto out;
	find_changes(c, &b, &cs, &pr);
	ret = 0;
out:
	free(pr.bq);
	free(pr.cq);
	return ret;
}

/* Report that 'measure' is absent from 'r' ('absent') or has no question there. */
static void error_results(const struct results *r, bool absent, const char *measure)
{
	const struct results *const one[] = { r };
	struct side sd = { one, 1 };
	char *label = side_label(&sd);

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
