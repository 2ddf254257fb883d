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
#include "set/corpus.h"
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
	return m->kind == MK_NUM_RET || m->kind == MK_NUM_REL || m->kind == MK_NUM_REL_RET ||
	       m->kind == MK_CALLS;
}

/* Copy what the set says of question 'sq' into 'q'. */
static void take_from_set(struct question_result *q, const struct question *sq, bool conversational)
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
	free(q->turn);
	q->turn = conversational ? xstrdup(question_turn_position(sq)) : NULL;
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

/*
 * Check the relevant documents 'q' records (r->has_docs) and fill 'hits':
 * in ascending rank and position within num_ret, each position at most its
 * rank, each document once with a grade its counts hold; the counts per
 * grade agree with its chunks' (no more documents than relevant chunks,
 * the same best grade); every relevant chunk retrieved has a document
 * retrieved at its rank or before with a grade at least its own.
 */
static int check_docs(const struct results *r, const struct question_result *q,
		      struct doc_hit *hits)
{
	struct strmap seen = STRMAP_INIT;
	long *count = NULL, num_rel = 0;
	int top_chunk = 0, top_doc = 0, ret = -1;
	size_t d = 0;
	int best = 0;

	if (!q->doc_levels) {
		bad_question(r, q, "it records no documents (\"docs\", \"doc_levels\") though the "
			     "file's measures need them");
		goto out;
	}
	if (q->nr_doc_levels && q->doc_levels[0]) {
		bad_question(r, q, "doc_levels counts %ld documents of grade 0", q->doc_levels[0]);
		goto out;
	}
	count = xcalloc((size_t)q->nr_doc_levels + 1, sizeof(*count));
	for (size_t i = 0; i < q->nr_docs; i++) {
		const struct results_doc *x = &q->docs[i];

		if ((i && (x->rank <= q->docs[i - 1].rank || x->pos <= q->docs[i - 1].pos)) ||
		    x->rank > q->num_ret || x->pos > x->rank) {
			bad_question(r, q, "document '%s' at rank %ld, position %ld is out of order, past "
				     "num_ret %ld or placed after its rank", x->doc, x->rank, x->pos,
				     q->num_ret);
			goto out;
		}
		if (strmap_get(&seen, x->doc)) {
			bad_question(r, q, "document '%s' is listed twice", x->doc);
			goto out;
		}
		strmap_put(&seen, x->doc, (void *)x);
		if (x->grade >= q->nr_doc_levels || ++count[x->grade] > q->doc_levels[x->grade]) {
			bad_question(r, q, "document '%s' of grade %d is more than doc_levels counts",
				     x->doc, x->grade);
			goto out;
		}
		hits[i].rank = x->rank;
		hits[i].pos = x->pos;
		hits[i].grade = x->grade;
		hits[i].doc = x->doc;
	}
	for (int g = 1; g < q->nr_levels; g++)
		if (q->levels[g])
			top_chunk = g;
	for (int g = 1; g < q->nr_doc_levels; g++) {
		num_rel += q->doc_levels[g];
		if (q->doc_levels[g])
			top_doc = g;
	}
	if (num_rel > q->num_rel || top_doc != top_chunk) {
		bad_question(r, q, "its relevant documents per grade do not follow from its relevant "
			     "chunks (%ld documents, best grade %d; %ld chunks, best grade %d)",
			     num_rel, top_doc, q->num_rel, top_chunk);
		goto out;
	}
	for (size_t i = 0; i < q->nr_judged; i++) {
		const struct results_judged *j = &q->judged[i];

		for (; d < q->nr_docs && q->docs[d].rank <= j->rank; d++)
			if (q->docs[d].grade > best)
				best = q->docs[d].grade;
		if (j->grade >= 1 && best < j->grade) {
			bad_question(r, q, "relevant chunk '%s' at rank %ld has no document of grade %d "
				     "or more retrieved by then", j->id, j->rank, j->grade);
			goto out;
		}
	}
	ret = 0;
out:
	free(count);
	strmap_clear(&seen, 0);
	return ret;
}

/* Return true when 'entry' is on the forbidden list of 'sq' or a set-wide
 * rule of 's'. */
static bool forbidden_entry(const struct set *s, const struct question *sq, const char *entry)
{
	for (size_t i = 0; i < sq->nr_forbidden; i++)
		if (!strcmp(sq->forbidden[i].id, entry))
			return true;
	return set_find_forbid(s, entry) != NULL;
}

/* Return true when the leak of chunk 'chunk' by 'entry' can be told right
 * from the ids alone: a chunk entry is that very chunk, an id-prefix rule
 * a prefix of it (documents and tags need the corpus: taken as recorded). */
static bool leak_fits_id(const struct set *s, const char *chunk, const char *entry)
{
	const struct forbid_rule *rule = set_find_forbid(s, entry);

	if (rule)
		return forbid_rule_needs_corpus(rule) || forbid_rule_matches_id(rule, chunk);
	return !strncmp(entry, FORBID_DOC_PREFIX, strlen(FORBID_DOC_PREFIX)) || !strcmp(chunk, entry);
}

/* Return the entry of 'sq' or rule of 's' forbidding 'chunk' by its id
 * alone (a chunk entry or rule, an id-prefix rule), or NULL. */
static const char *forbids_by_id(const struct set *s, const struct question *sq, const char *chunk)
{
	const char *entry = question_forbids(sq, chunk, NULL);

	for (size_t i = 0; !entry && i < s->nr_forbid; i++)
		if (forbid_rule_matches_id(&s->forbid[i], chunk))
			entry = s->forbid[i].entry;
	return entry;
}

/* Return the leak of 'q' at 'rank', or NULL. */
static const struct results_leak *leak_at(const struct question_result *q, long rank)
{
	for (size_t i = 0; i < q->nr_leaks; i++)
		if (q->leaks[i].rank == rank)
			return &q->leaks[i];
	return NULL;
}

/*
 * Check the leaks of 'q' against the forbidden list of the set's question
 * 'sq' and against its first ids ("top"): recorded exactly when 'sq'
 * forbids ids (unless 'absent': the file records none), in ascending rank,
 * each matching an entry of the list (a chunk entry: that very chunk), none
 * for a question missing from the run, and every id of "top" that a chunk
 * entry forbids among them at its rank. Return 0 or -1 (reported).
 */
static int check_leaks(const struct results *r, const struct set *s, const struct question_result *q,
		       const struct question *sq, bool absent)
{
	size_t nr = sq->nr_forbidden + s->nr_forbid;

	if (q->forbids && !nr)
		return bad_question(r, q, "it records leaks, but the set forbids it nothing");
	if (!q->forbids && nr && !absent && !s->nr_forbid)
		return bad_question(r, q, "the set forbids it %zu id%s, yet it records no leaks",
				    nr, nr == 1 ? "" : "s");
	if (!q->forbids && nr && !absent)
		return bad_question(r, q, "the set forbids it %zu id%s and %zu set-wide rule%s, yet "
				    "it records no leaks", sq->nr_forbidden,
				    sq->nr_forbidden == 1 ? "" : "s", s->nr_forbid,
				    s->nr_forbid == 1 ? "" : "s");
	if (q->missing && q->nr_leaks)
		return bad_question(r, q, "missing from the run, yet it records leaks");
	for (size_t i = 0; i < q->nr_leaks; i++) {
		const struct results_leak *x = &q->leaks[i];

		if (i && x->rank <= q->leaks[i - 1].rank)
			return bad_question(r, q, "leak '%s' at rank %ld is out of order", x->chunk, x->rank);
		if (!forbidden_entry(s, sq, x->entry))
			return bad_question(r, q, "leak '%s' at rank %ld matches '%s', which is not on "
					    "its forbidden list%s", x->chunk, x->rank, x->entry,
					    s->nr_forbid ? " nor a set-wide rule" : "");
		if (!leak_fits_id(s, x->chunk, x->entry))
			return bad_question(r, q, "leak '%s' at rank %ld is not a chunk '%s' "
					    "forbids", x->chunk, x->rank, x->entry);
		if (x->rank <= (long)q->nr_top && strcmp(q->top[x->rank - 1], x->chunk))
			return bad_question(r, q, "leak '%s' at rank %ld, but its top ids hold '%s' "
					    "there", x->chunk, x->rank, q->top[x->rank - 1]);
	}
	for (size_t t = 0; q->forbids && t < q->nr_top; t++) {
		const char *entry = forbids_by_id(s, sq, q->top[t]);

		if (entry && !leak_at(q, (long)t + 1))
			return bad_question(r, q, "'%s' at rank %zu is forbidden ('%s'), yet it records "
					    "no leak there", q->top[t], t + 1, entry);
	}
	return 0;
}

/* Check the calls 'q' records (r->has_calls): ends ascending, the last
 * its num_ret, none for a missing question and at least one otherwise. */
static int check_calls(const struct results *r, const struct question_result *q)
{
	if (q->missing ? q->nr_calls != 0 : q->nr_calls == 0)
		return bad_question(r, q, "records %zu calls, but it is %s", q->nr_calls,
				    q->missing ? "missing from the run" : "in the run");
	for (size_t c = 0; c < q->nr_calls; c++)
		if ((c && q->call_end[c] < q->call_end[c - 1]) || q->call_end[c] > q->num_ret)
			return bad_question(r, q, "call %zu ends at rank %ld, before the call before "
					    "it or past num_ret %ld", c + 1, q->call_end[c], q->num_ret);
	if (q->nr_calls && q->call_end[q->nr_calls - 1] != q->num_ret)
		return bad_question(r, q, "its last call ends at rank %ld, not at num_ret %ld",
				    q->call_end[q->nr_calls - 1], q->num_ret);
	return 0;
}

/* Check every value of 'q' against the measures 'ms' recomputed from its
 * ranks ('hits') and documents ('dhits', when r->has_docs). */
static int check_values(const struct results *r, const struct question_result *q,
			const struct measure *ms, const struct judged_hit *hits,
			const struct doc_hit *dhits)
{
	struct query_eval e;
	struct doc_eval d;
	struct call_eval c = { q->call_end, q->nr_calls };

	e.num_ret = q->num_ret;
	e.hits = hits;
	e.nr_hits = q->nr_judged;
	e.levels = q->levels;
	e.nr_levels = q->nr_levels;
	e.rel_level = 1;
	d.hits = dhits;
	d.nr_hits = q->nr_docs;
	d.levels = q->doc_levels;
	d.nr_levels = q->nr_doc_levels;
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
		want = measure_value_all(&ms[m], &e, &d, r->has_calls ? &c : NULL);
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
	bool conversational;
	size_t leaks_recorded = 0;
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
		if (measure_is_doc(&ms[m]) && !r->has_docs) {
			error("%s: measure '%s' is document-level, but the file records no documents "
			      "(edited?); score the run again with evalset score --save", name_of(r),
			      r->measures[m]);
			goto out;
		}
		if (measure_is_call(&ms[m]) && !r->has_calls) {
			error("%s: measure '%s' needs an agent's calls, but the file records none "
			      "(edited?); score the run again with evalset score --save", name_of(r),
			      r->measures[m]);
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
	for (size_t i = 0; i < r->nr; i++)
		leaks_recorded += r->q[i].forbids;
	/* a file written before leaks were saved records none: told apart */
	r->leaks_absent = !leaks_recorded && set_nr_forbidding(s);
	for (size_t i = 0; i < s->nr; i++)
		if (!strmap_get(&ids, s->q[i].id)) {
			error("%s: lacks question '%s' of %s; score the run again with evalset score --save",
			      name_of(r), s->q[i].id, set_label);
			goto out;
		}
	conversational = set_has_conversations(s);
	for (size_t i = 0; i < r->nr; i++) {
		struct question_result *q = &r->q[i];
		const struct question *sq = set_lookup_find(&lk, q->id);
		struct judged_hit *hits = xcalloc(q->nr_judged + 1, sizeof(*hits));
		struct doc_hit *dhits = xcalloc(q->nr_docs + 1, sizeof(*dhits));
		struct qrels_query qq;
		bool labels = !r->judged_on;
		int rc;

		take_from_set(q, sq, conversational);
		if (labels && score_question_qrels(sq, s->file, &qq) < 0) {
			free(hits);
			free(dhits);
			goto out;
		}
		if (q->unjudged && (!labels || !q->answerable || q->num_rel)) {
			rc = bad_question(r, q, "unjudged, yet %s", !q->answerable ? "unanswerable"
				   : q->num_rel ? "it has relevant documents" : "judged on its own corpus");
			if (labels)
				qrels_query_release(&qq);
			free(hits);
			free(dhits);
			goto out;
		}
		rc = check_judged(r, q, labels ? &qq : NULL, hits, &left_out);
		if (rc == 0 && r->has_docs)
			rc = check_docs(r, q, dhits);
		if (rc == 0 && r->has_calls)
			rc = check_calls(r, q);
		if (rc == 0)
			rc = check_values(r, q, ms, hits, dhits);
		if (rc == 0)
			rc = check_leaks(r, s, q, sq, r->leaks_absent);
		if (labels)
			qrels_query_release(&qq);
		free(hits);
		free(dhits);
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
