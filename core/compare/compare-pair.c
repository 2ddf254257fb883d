/*
 * compare-pair: the questions a comparison pairs and their per-question
 * values (contract in compare.h, shared pieces in compare-internal.h):
 * naming each side, finding a measure's column in every run (Hit@k and
 * Success@k are one measure; Decline and FalseDecline derived), pairing
 * the questions of all runs by id, counting the missing ones, and one
 * measure's values on both sides over a list of pairs.
 */
#include "compare/compare-internal.h"
#include "compare/compare.h"
#include "base/error.h"
#include "score/results.h"
#include "compare/stats.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"
#include "set/set.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

long cmp_measure_index(const struct results *r, const char *name)
{
	for (size_t i = 0; i < r->nr_measures; i++)
		if (!strcmp(r->measures[i], name))
			return (long)i;
	return -1;
}

/* Return how to name the runs of 'sd' to a user: "NAME (FILE)", or
 * whichever is known, "+N more" for repeated runs; caller frees. */
char *cmp_side_label(const struct side *sd)
{
	const struct results *r = sd->r[0];
	const char *where = r->file ? r->file : r->run_path;
	char *one, *all;

	if (r->run_name && where && strcmp(r->run_name, where))
		one = xstrfmt("%s (%s)", r->run_name, where);
	else
		one = xstrdup(r->run_name ? r->run_name : where ? where : "(unnamed)");
	if (r->run_ranked_by) {
		/* a JSONL run ranked by score rather than by its list order */
		char *j = xstrfmt("%s, ranked by %s", one, r->run_ranked_by);
		free(one);
		one = j;
	}
	if (r->judged_on) {
		/* made on another chunking: say which, by its fingerprint */
		char *j = xstrfmt("%s, judged on corpus %.19s", one, r->judged_on);
		free(one);
		one = j;
	}
	if (sd->nr < 2)
		return one;
	all = xstrfmt("%s +%zu more run%s", one, sd->nr - 1, sd->nr > 2 ? "s" : "");
	free(one);
	return all;
}

const char *cmp_origin_of(const struct question_result *q)
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
	j = cmp_measure_index(r, name);
	if (j >= 0)
		return j;
	if (starts_with(name, "Hit@"))
		alt = xstrfmt("Success@%s", name + 4);
	else if (starts_with(name, "Success@"))
		alt = xstrfmt("Hit@%s", name + 8);
	j = alt ? cmp_measure_index(r, alt) : -1;
	free(alt);
	return j >= 0 ? j : LONG_MIN;
}

/* Fill 'cols[0..nr)' with the column of 'name' in each run of 'sd'; report
 * a run that lacks it. */
int cmp_side_columns(const struct side *sd, const char *name, long *cols)
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

double cmp_value_of(const struct question_result *q, long col)
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
		s += cmp_value_of(q[k], cols[k]);
	return s / (double)nr;
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
int cmp_pair_questions(struct compare *c, const struct side *b, const struct side *cs,
			  struct pairs *pr, bool allow)
{
	size_t nruns = b->nr + cs->nr, alloc = 0, matched_cand = 0;
	struct strmap *maps = xcalloc(nruns + 1, sizeof(*maps));
	const struct results **all = xcalloc(nruns + 1, sizeof(*all));
	const struct question_result **row = xcalloc(nruns + 1, sizeof(*row));
	const struct results *b0 = b->r[0];
	static const char unjudged_why[] = "its labels point at chunks the run's corpus lacks";
	size_t unjudged = 0;
	int ret = 0;

	for (size_t k = 0; k < nruns; k++) {
		all[k] = k < b->nr ? b->r[k] : cs->r[k - b->nr];
		maps[k] = (struct strmap)STRMAP_INIT;
		for (size_t i = 0; i < all[k]->nr; i++)
			strmap_put(&maps[k], all[k]->q[i].id, &all[k]->q[i]);
	}
	pr->cols = xcalloc(1, sizeof(*pr->cols));
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
				why = "text, answerability or history changed since the run was made";
			else if (row[k]->unjudged)
				why = unjudged_why;
		}
		if (row[b->nr])
			matched_cand++;
		if (why) {
			/* unjudged: left out whatever 'allow' says, the run's corpus
			 * change was declared or allowed (compare-input.h) */
			unjudged += why == unjudged_why;
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
	if (c->nr_left_out > unjudged && !allow) {
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
void cmp_count_missing(struct compare *c, const struct side *b, const struct side *cs,
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

bool cmp_in_subset(enum subset_kind kind, const char *value, const struct question_result *q)
{
	switch (kind) {
	case SUBSET_ALL:
		return true;
	case SUBSET_ORIGIN:
		return !strcmp(cmp_origin_of(q), value);
	case SUBSET_ANSWERABLE:
		return q->answerable == !strcmp(value, "true");
	case SUBSET_TAG:
		return has_tag(q, value);
	case SUBSET_TURN:
		return q->turn && !strcmp(q->turn, value);
	}
	return false;
}

/* Return the column of 'name' over every pair (made on first use, kept in
 * pr->cols), or NULL with an error naming a run that lacks the measure. A
 * question with no value is NAN there: only the pairs asked for must have one. */
static const struct column *full_column(const struct side *b, const struct side *cs,
					const struct pairs *pr, const char *name)
{
	struct column *col = strmap_get(pr->cols, name);
	long *bc, *cc;
	size_t n = pr->n;

	if (col)
		return col;
	bc = xcalloc(b->nr + 1, sizeof(*bc));
	cc = xcalloc(cs->nr + 1, sizeof(*cc));
	if (cmp_side_columns(b, name, bc) < 0 || cmp_side_columns(cs, name, cc) < 0)
		goto out;
	col = xcalloc(1, sizeof(*col));
	col->n = n;
	col->b = xmalloc((n + 1) * sizeof(double));
	col->c = xmalloc((n + 1) * sizeof(double));
	col->rb = xmalloc((n * b->nr + 1) * sizeof(double));
	col->rc = xmalloc((n * cs->nr + 1) * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		const struct question_result *const *qb = pr->bq + i * b->nr;
		const struct question_result *const *qc = pr->cq + i * cs->nr;

		for (size_t k = 0; k < b->nr; k++)
			col->rb[k * n + i] = cmp_value_of(qb[k], bc[k]);
		for (size_t k = 0; k < cs->nr; k++)
			col->rc[k * n + i] = cmp_value_of(qc[k], cc[k]);
		col->b[i] = side_value(qb, b->nr, bc);
		col->c[i] = side_value(qc, cs->nr, cc);
	}
	strmap_put(pr->cols, name, col);
out:
	free(bc);
	free(cc);
	return col;
}

int cmp_fill_column(const struct compare *c, const struct side *b, const struct side *cs,
		       const struct pairs *pr, const size_t *idx, size_t n, const char *name,
		       struct column *col)
{
	const struct column *all = full_column(b, cs, pr, name);
	size_t nr = pr->n;

	col->n = n;
	col->b = xmalloc((n + 1) * sizeof(double));
	col->c = xmalloc((n + 1) * sizeof(double));
	col->rb = xmalloc((n * b->nr + 1) * sizeof(double));
	col->rc = xmalloc((n * cs->nr + 1) * sizeof(double));
	if (!all)
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t p = idx[i];

		for (size_t k = 0; k < b->nr; k++)
			col->rb[k * n + i] = all->rb[k * nr + p];
		for (size_t k = 0; k < cs->nr; k++)
			col->rc[k * n + i] = all->rc[k * nr + p];
		col->b[i] = all->b[p];
		col->c[i] = all->c[p];
		if (isnan(col->b[i]) || isnan(col->c[i]))
			return error("question '%s' has no value for '%s' in %s '%s'",
				     pr->bq[p * b->nr]->id, name,
				     isnan(col->b[i]) ? "baseline" : "candidate",
				     isnan(col->b[i]) ? c->base_label : c->cand_label);
	}
	return 0;
}

void cmp_column_release(struct column *col)
{
	free(col->b);
	free(col->c);
	free(col->rb);
	free(col->rc);
}

void cmp_pairs_release(struct pairs *pr)
{
	struct strmap_entry *e;

	if (pr->cols) {
		strmap_for_each(pr->cols, e) {
			cmp_column_release(e->value);
			free(e->value);
		}
		strmap_clear(pr->cols, 0);
		free(pr->cols);
	}
	free(pr->bq);
	free(pr->cq);
	memset(pr, 0, sizeof(*pr));
}

/* Fill effect size and win/tie/loss from 'd' (candidate - baseline, oriented
 * so positive is better). */
void cmp_describe_deltas(const double *d, size_t n, double *effect, size_t *win,
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
