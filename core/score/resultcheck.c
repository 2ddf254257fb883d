/*
 * resultcheck: the checks of a saved results file (contract in
 * resultcheck.h). Cost: O(questions x (labels + judged + measures)).
 */
#include "score/resultcheck.h"
#include "score/measures.h"
#include "score/metrics.h"
#include "score/qrels.h"
#include "score/results.h"
#include "score/score.h"
#include "set/set.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VALUE_TOLERANCE 1e-9

static const char *name_of(const struct results *r)
{
	return r->file ? r->file : "results";
}

/* Report 'fmt' about question 'q' of 'r' as the one problem of the file. */
__attribute__((format(printf, 3, 4)))
static int bad_question(const struct results *r, const struct question_result *q,
			const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error("%s: question '%s' (questions[%td]): %s; the file does not hold together as "
	      "evalset writes it (edited?): score the run again with evalset score --save",
	      name_of(r), q->id, q - r->q, sb.buf);
	strbuf_release(&sb);
	return -1;
}

static bool near(double a, double b)
{
	return fabs(a - b) <= VALUE_TOLERANCE * (1 + fabs(a) + fabs(b));
}

static bool is_count(const struct measure *m)
{
	return m->kind == MK_NUM_RET || m->kind == MK_NUM_REL || m->kind == MK_NUM_REL_RET;
}

/* Copy what the set says of question 'sq' into 'q'. */
static void take_from_set(struct question_result *q, const struct question *sq)
{
	free(q->text);
	q->text = xstrdup(sq->text);
	free(q->origin);
	q->origin = sq->origin == ORIGIN_NONE ? NULL : xstrdup(origin_name(sq->origin));
	q->answerable = sq->answerable;
	for (size_t t = 0; t < q->nr_tags; t++)
		free(q->tags[t]);
	free(q->tags);
	q->tags = xcalloc(sq->nr_tags + 1, sizeof(char *));
	for (size_t t = 0; t < sq->nr_tags; t++)
		q->tags[t] = xstrdup(sq->tags[t]);
	q->nr_tags = sq->nr_tags;
}

/* Check the judged documents and counts of 'q' (against the labels 'qq'
 * unless NULL) and fill 'hits'; return 0 or -1 (reported). When the file
 * left out labels whose chunks the run's corpus lacks (r->labels_absent),
 * the relevant documents per grade may be fewer than the labels': add
 * how many fewer to '*left_out'. */
static int check_judged(const struct results *r, const struct question_result *q,
			const struct qrels_query *qq, struct judged_hit *hits, long *left_out)
{
	struct strmap seen = STRMAP_INIT;
	size_t nrr = 0;
	long num_rel = 0;
	int ret = -1;

	if (q->missing && (q->num_ret || q->nr_judged)) {
		bad_question(r, q, "missing from the run, yet it records %ld retrieved", q->num_ret);
		goto out;
	}
	if (!q->num_ret && !q->declined) {
		bad_question(r, q, "it retrieved nothing but is not marked declined");
		goto out;
	}
	for (size_t i = 0; i < q->nr_judged; i++) {
		const struct results_judged *j = &q->judged[i];

		if ((i && j->rank <= q->judged[i - 1].rank) || j->rank > q->num_ret) {
			bad_question(r, q, "judged document '%s' at rank %ld is out of order or past "
				     "num_ret %ld", j->id, j->rank, q->num_ret);
			goto out;
		}
		if (strmap_get(&seen, j->id)) {
			bad_question(r, q, "judged document '%s' is listed twice", j->id);
			goto out;
		}
		strmap_put(&seen, j->id, (void *)j);
		if (qq) {
			size_t len = strlen(j->id);
			long jx = qrels_query_lookup(qq, j->id, len, qrels_hash(j->id, len));

			if (jx < 0) {
				bad_question(r, q, "'%s' at rank %ld is not judged by the set's labels",
					     j->id, j->rank);
				goto out;
			}
			if (qq->j[jx].rel != j->grade) {
				bad_question(r, q, "'%s' has grade %d in the file, %d in the set's labels",
					     j->id, j->grade, qq->j[jx].rel);
				goto out;
			}
		} else if (j->grade < 0 && j->grade != REL_UNJUDGED) {
			bad_question(r, q, "'%s' has grade %d", j->id, j->grade);
			goto out;
		}
		hits[i].rank = j->rank;
		hits[i].rel = j->grade;
		if (j->grade >= 1) {
			if (nrr >= q->nr_rel_ranks || q->rel_ranks[nrr] != j->rank) {
				bad_question(r, q, "its relevant ranks do not match its judged documents");
				goto out;
			}
			nrr++;
		}
	}
	if (nrr != q->nr_rel_ranks) {
		bad_question(r, q, "its relevant ranks do not match its judged documents");
		goto out;
	}
	if (qq) {
		bool same = q->nr_levels == qq->nr_levels;

		for (int g = 0; same && g < q->nr_levels; g++)
			same = q->levels[g] == qq->levels[g];
		if (!same && r->labels_absent) {
			/* fewer relevant documents, none more, judged irrelevant ones kept */
			same = q->nr_levels <= qq->nr_levels && q->levels[0] == qq->levels[0];
			for (int g = 1; same && g < qq->nr_levels; g++) {
				long have = g < q->nr_levels ? q->levels[g] : 0;
				same = have <= qq->levels[g];
				*left_out += qq->levels[g] - have;
			}
		}
		if (!same) {
			bad_question(r, q, "its judged documents per grade differ from the set's labels");
			goto out;
		}
	}
	for (int g = 1; g < q->nr_levels; g++)
		num_rel += q->levels[g];
	if (num_rel != q->num_rel) {
		bad_question(r, q, "num_rel %ld in the file, %ld from its labels", q->num_rel, num_rel);
		goto out;
	}
	ret = 0;
out:
	strmap_clear(&seen, 0);
	return ret;
}

/* Check every value of 'q' against the measures 'ms' recomputed from its
 * ranks ('hits'). */
static int check_values(const struct results *r, const struct question_result *q,
			const struct measure *ms, const struct judged_hit *hits)
{
	struct query_eval e;

	e.num_ret = q->num_ret;
	e.hits = hits;
	e.nr_hits = q->nr_judged;
	e.levels = q->levels;
	e.nr_levels = q->nr_levels;
	e.rel_level = 1;
	for (size_t m = 0; m < r->nr_measures; m++) {
		double v = q->values[m], want;

		if (q->unjudged) {
			/* every label left out (the run's corpus lacks them): no values */
			if (!isnan(v))
				return bad_question(r, q, "unjudged, yet it has a value of %s", r->measures[m]);
			continue;
		}
		if (!q->answerable) {
			if (!isnan(v))
				return bad_question(r, q, "unanswerable, yet it has a value of %s", r->measures[m]);
			continue;
		}
		if (!isfinite(v))
			return bad_question(r, q, "%s has no finite value", r->measures[m]);
		if (is_count(&ms[m]) ? (v < 0 || v != floor(v)) : (v < 0 || v > 1))
			return bad_question(r, q, "%s is %.17g, outside its range (%s)", r->measures[m], v,
					    is_count(&ms[m]) ? "a whole number from 0" : "0 to 1");
		want = measure_value(&ms[m], &e);
		if (!near(v, want))
			return bad_question(r, q, "%s is %.17g in the file, but its ranks and labels give "
					    "%.17g", r->measures[m], v, want);
	}
	return 0;
}

/* Check the aggregates and decline shares of 'r' against its questions. */
static int check_totals(const struct results *r)
{
	long ans = 0, unans = 0, dans = 0, dunans = 0;

	for (size_t i = 0; i < r->nr; i++) {
		const struct question_result *q = &r->q[i];

		if (q->unjudged) {
			continue;  /* in no average (score.h) */
		} else if (q->answerable) {
			ans++;
			dans += q->declined;
		} else {
			unans++;
			dunans += q->declined;
		}
	}
	for (size_t m = 0; m < r->nr_measures; m++) {
		double sum = 0;

		for (size_t i = 0; i < r->nr; i++)
			if (r->q[i].answerable && !r->q[i].unjudged)
				sum += r->q[i].values[m];
		if (!near(ans ? sum / (double)ans : 0, r->aggregate[m]))
			return error("%s: the aggregate of %s is %.17g, but its questions give %.17g "
				     "(edited?); score the run again with evalset score --save",
				     name_of(r), r->measures[m], r->aggregate[m],
				     ans ? sum / (double)ans : 0);
	}
	if (r->nr_answerable != ans || r->nr_unanswerable != unans ||
	    !near(r->decline, unans ? (double)dunans / (double)unans : 0) ||
	    !near(r->false_decline, ans ? (double)dans / (double)ans : 0))
		return error("%s: its decline counts and shares do not follow from its questions "
			     "(edited?); score the run again with evalset score --save", name_of(r));
	return 0;
}

int results_check(struct results *r, const struct set *s, const char *set_label)
{
	struct strmap ids = STRMAP_INIT;
	struct set_lookup lk;
	struct measure *ms = xcalloc(r->nr_measures + 1, sizeof(*ms));
	struct strbuf why = STRBUF_INIT;
	long left_out = 0;
	int ret = -1;

	set_lookup_init(&lk, s);
	if (r->format < 2) {
		error("%s: results written by an older evalset (format %d) record no judged ranks, so "
		      "their values cannot be checked; score the run again: evalset score %s RUN "
		      "--save %s", name_of(r), r->format, set_label, name_of(r));
		goto out;
	}
	for (size_t m = 0; m < r->nr_measures; m++) {
		strbuf_reset(&why);
		if (measure_parse_why(r->measures[m], &ms[m], NULL, &why) < 0) {
			error("%s: measure '%s': %s", name_of(r), r->measures[m], why.buf);
			goto out;
		}
		for (size_t k = 0; k < m; k++)
			if (!strcmp(r->measures[k], r->measures[m])) {
				error("%s: measure '%s' is listed twice", name_of(r), r->measures[m]);
				goto out;
			}
	}
	for (size_t i = 0; i < r->nr; i++) {
		struct question_result *q = &r->q[i];
		const struct question_result *prev = strmap_get(&ids, q->id);

		if (prev) {
			bad_question(r, q, "listed twice (also questions[%td])", prev - r->q);
			goto out;
		}
		strmap_put(&ids, q->id, q);
		if (!set_lookup_find(&lk, q->id)) {
			bad_question(r, q, "not a question of %s", set_label);
			goto out;
		}
	}
	for (size_t i = 0; i < s->nr; i++)
		if (!strmap_get(&ids, s->q[i].id)) {
			error("%s: lacks question '%s' of %s; score the run again with evalset score --save",
			      name_of(r), s->q[i].id, set_label);
			goto out;
		}
	for (size_t i = 0; i < r->nr; i++) {
		struct question_result *q = &r->q[i];
		const struct question *sq = set_lookup_find(&lk, q->id);
		struct judged_hit *hits = xcalloc(q->nr_judged + 1, sizeof(*hits));
		struct qrels_query qq;
		bool labels = !r->judged_on;
		int rc;

		take_from_set(q, sq);
		if (labels && score_question_qrels(sq, s->file, &qq) < 0) {
			free(hits);
			goto out;
		}
		if (q->unjudged && (!labels || !q->answerable || q->num_rel)) {
			rc = bad_question(r, q, "unjudged, yet %s", !q->answerable ? "unanswerable"
				   : q->num_rel ? "it has relevant documents" : "judged on its own corpus");
			if (labels)
				qrels_query_release(&qq);
			free(hits);
			goto out;
		}
		rc = check_judged(r, q, labels ? &qq : NULL, hits, &left_out);
		if (rc == 0)
			rc = check_values(r, q, ms, hits);
		if (labels)
			qrels_query_release(&qq);
		free(hits);
		if (rc < 0)
			goto out;
	}
	if (left_out != (r->judged_on ? 0 : r->labels_absent)) {
		error("%s: it says %ld labels were left out (their chunks not in the run's corpus), "
		      "its questions leave out %ld (edited?); score the run again with evalset score "
		      "--save", name_of(r), r->labels_absent, left_out);
		goto out;
	}
	ret = check_totals(r);
out:
	strmap_clear(&ids, 0);
	set_lookup_release(&lk);
	strbuf_release(&why);
	free(ms);
	return ret;
}
