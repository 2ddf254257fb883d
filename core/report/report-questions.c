/*
 * report-questions: the sections of the HTML report that look at questions
 * one by one rather than at averages: find versus rank (where each
 * question's first relevant chunk stands), the lost, gained and never-found
 * tables, and declining and judged documents per run.
 *
 * Numbers follow report.h (trec_eval semantics over the answerable
 * questions). Text reaches the page through base/html only.
 */
#include "report/report-questions.h"
#include "report/report.h"
#include "report/report-cells.h"
#include "report/svg.h"
#include "compare/compare.h"
#include "score/results.h"
#include "set/corpus.h"
#include "set/set.h"
#include "base/html.h"
#include "base/util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Count 'r''s answerable questions found in the top k, found only in
 * (k, K], and not found in the top K. */
static void find_rank(const struct results *r, int k, size_t out[3])
{
	long depth = r->depth > 0 ? r->depth : LONG_MAX;   /* 0: the list depth */

	out[0] = out[1] = out[2] = 0;
	for (size_t i = 0; i < r->nr; i++) {
		long f = report_first_rel(&r->q[i]);
		if (!r->q[i].answerable)
			continue;
		if (f > 0 && f <= k)
			out[0]++;
		else if (f > 0 && f <= depth)
			out[1]++;
		else
			out[2]++;
	}
}

/* Append the find-versus-rank stacked bars and the diagnosis sentence. */
void report_find_rank_section(struct strbuf *out, const struct report_input *in, int k)
{
	const struct results *runs[2] = { in->base, in->cand };
	const char *rows[2];
	double values[6];
	size_t nr_rows = 0, cnt[3], total;
	char p0[48], p1[80], p2[80];
	const char *parts[3] = { p0, p1, p2 };
	size_t colors[3] = { 2, 1, 3 };
	struct svg_stacked st;
	char depth[32];

	/* the words of `score`'s find-vs-rank block, so both read the same */
	if (in->cand->depth > 0)
		snprintf(depth, sizeof(depth), "%d", in->cand->depth);
	else
		snprintf(depth, sizeof(depth), "the list depth");
	snprintf(p0, sizeof(p0), "found in the top %d", k);
	snprintf(p1, sizeof(p1), "found only at ranks %d..%s", k + 1, depth);
	snprintf(p2, sizeof(p2), "not found in the top %s", depth);
	for (size_t i = 0; i < 2; i++) {
		if (!runs[i])
			continue;
		find_rank(runs[i], k, cnt);
		total = cnt[0] + cnt[1] + cnt[2];
		for (size_t j = 0; j < 3; j++)
			values[nr_rows * 3 + j] = total ? (double)cnt[j] / (double)total : NAN;
		rows[nr_rows++] = runs[i] == in->cand ? "candidate" : "baseline";
	}
	st = (struct svg_stacked){ "chart-findrank", "Find versus rank (answerable questions)",
				   parts, colors, 3, rows, values, nr_rows, 1, 0 };
	strbuf_addstr(out, "<section id=\"findrank\"><h2>Find versus rank</h2>\n<figure>");
	svg_stacked(out, &st);
	find_rank(in->cand, k, cnt);
	strbuf_addstr(out, "<figcaption id=\"diagnosis\">Diagnosis for the candidate: ");
	if (!cnt[1] && !cnt[2])
		strbuf_addf(out, "every answerable question has a relevant chunk in the top %d.", k);
	else if (cnt[1] > cnt[2])
		strbuf_addf(out, "most misses are found but ranked low (%zu vs %zu not found): "
			    "improve ranking (a reranker, better scoring) before recall.", cnt[1], cnt[2]);
	else if (cnt[2] > cnt[1])
		strbuf_addf(out, "most misses are not found in the top %s (%zu vs %zu ranked low): "
			    "improve recall (chunking, embeddings, hybrid search) before reranking.",
			    depth, cnt[2], cnt[1]);
	else
		strbuf_addf(out, "misses split evenly between ranked low and not found (%zu each): "
			    "both ranking and recall need work.", cnt[1]);
	strbuf_addstr(out, "</figcaption></figure></section>\n");
}

void report_leaks_section(struct strbuf *out, const struct report_input *in, int k)
{
	const struct results *c = in->cand;
	size_t leaking = 0, forbidding = 0;

	if (c->leaks_absent) {
		strbuf_addstr(out, "<section id=\"leaks\"><h2>Leaks</h2>\n<p class=\"warn\">The "
				   "set forbids ids, but these results record no leaks (saved by an "
				   "evalset that did not record them): score the run again with "
				   "<code>evalset score --save</code> to see them.</p></section>\n");
		return;
	}
	for (size_t i = 0; i < c->nr; i++) {
		forbidding += c->q[i].forbids;
		leaking += results_leaks_at(&c->q[i], k) > 0;
	}
	if (!leaking)
		return;
	strbuf_addf(out, "<section id=\"leaks\"><h2>Leaks</h2>\n<p class=\"warn\">%zu of %zu "
		    "question%s with forbidden ids retrieved one in the top %d: each is a failure "
		    "whatever else is right.</p>\n<div class=\"scroll\" tabindex=\"0\" role=\"region\" "
		    "aria-label=\"leaks\"><table><thead><tr><th>question</th><th>text</th>"
		    "<th class=\"num\">rank</th><th>chunk</th><th>forbidden by</th>%s</tr></thead>"
		    "<tbody>\n", leaking, forbidding, forbidding == 1 ? "" : "s", k,
		    in->base ? "<th>baseline</th>" : "");
	for (size_t i = 0; i < c->nr; i++) {
		const struct question_result *q = &c->q[i];
		const struct question_result *bq = in->base ? results_find(in->base, q->id) : NULL;
		size_t n = results_leaks_at(q, k);

		for (size_t h = 0; h < n; h++) {
			strbuf_addstr(out, "<tr class=\"leak\"><td>");
			html_text(out, q->id);
			strbuf_addstr(out, "</td><td>");
			html_text(out, q->text);
			strbuf_addf(out, "</td><td class=\"num\">%ld</td><td><code>", q->leaks[h].rank);
			html_text(out, q->leaks[h].chunk);
			strbuf_addstr(out, "</code></td><td><code>");
			html_text(out, q->leaks[h].entry);
			strbuf_addstr(out, "</code></td>");
			if (in->base)
				strbuf_addf(out, "<td>%s</td>", in->base->leaks_absent ? "unknown"
					    : bq && results_leaks_at(bq, k) ? "also in baseline" : "new");
			strbuf_addstr(out, "</tr>\n");
		}
	}
	strbuf_addstr(out, "</tbody></table></div></section>\n");
}

/* Append a <select> of the question table's with 'id' and 'label', its
 * 'n' options given as value, text pairs. */
static void table_select(struct strbuf *out, const char *id, const char *label,
			 const char *const *opts, size_t n)
{
	strbuf_addf(out, "<label>%s <select id=\"%s\">", label, id);
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(out, "<option");
		html_attr(out, "value", opts[2 * i]);
		strbuf_addch(out, '>');
		html_text(out, opts[2 * i + 1]);
		strbuf_addstr(out, "</option>");
	}
	strbuf_addstr(out, "</select></label>\n");
}

void report_questions_section(struct strbuf *out, const struct report_input *in, int k)
{
	static const char *const compared[] = {
		"", "every question", "changed", "lost or gained", "lost", "lost",
		"gained", "gained", "never", "never found", "both", "found by both",
	};
	static const char *const alone[] = {
		"", "every question", "found", "found", "never", "never found",
	};
	static const char *const sorts_compared[] = {
		"status", "what became of it (lost first)", "drop", "rank change, largest drop first",
		"rise", "rank change, largest rise first", "after", "rank after", "before",
		"rank before", "id", "id",
	};
	static const char *const sorts_alone[] = {
		"status", "never found first", "after", "rank", "id", "id",
	};
	size_t n[4] = { 0 };   /* lost, gained, never, found (by both) */

	for (size_t i = 0; i < in->cand->nr; i++) {
		const struct question_result *q = &in->cand->q[i];
		const struct question_result *bq = in->base ? results_find(in->base, q->id) : NULL;
		long a = report_first_rel(q), b = report_first_rel(bq);
		bool fa = a > 0 && a <= k, fb = b > 0 && b <= k;
		if (!q->answerable)
			continue;
		if (in->base)
			n[fa && fb ? 3 : fa ? 1 : fb ? 0 : 2]++;
		else
			n[fa ? 3 : 2]++;
	}
	strbuf_addstr(out, "<section id=\"questions\"><h2>Questions</h2>\n<p class=\"explain\">"
			   "Every answerable question of the candidate: ");
	if (in->base)
		strbuf_addf(out, "<b>lost</b> (a relevant chunk in the baseline's top %d, not in the "
			    "candidate's): <span id=\"n-lost\">%zu</span>; <b>gained</b> (the reverse): "
			    "<span id=\"n-gained\">%zu</span>; <b>never found</b> (in neither top %d): "
			    "<span id=\"n-never\">%zu</span>; found by both: <span id=\"n-both\">%zu</span>. ",
			    k, n[0], n[1], k, n[2], n[3]);
	else
		strbuf_addf(out, "<b>found</b> (a relevant chunk in the top %d): <span id=\"n-found\">"
			    "%zu</span>; <b>never found</b>: <span id=\"n-never\">%zu</span>. ",
			    k, n[3], n[2]);
	strbuf_addstr(out, "Ranks are those of the first relevant chunk (&ndash;: none retrieved); "
			   "the rank change is how far it rose (+) or dropped (&minus;). Each row "
			   "shows the question's first relevant chunk and each run's top chunk, what it "
			   "returned instead, with the start of its text for the questions lost, gained "
			   "or never found. A question's id shows it at the cutoff above.</p>\n");
	strbuf_addstr(out, "<div class=\"controls\" role=\"search\" aria-label=\"questions\">"
			   "<label>Search <input type=\"search\" id=\"qt-search\" autocomplete=\"off\" "
			   "placeholder=\"words, question or chunk id\"></label>\n");
	if (in->base)
		table_select(out, "qt-status", "Show", compared, ARRAY_SIZE(compared) / 2);
	else
		table_select(out, "qt-status", "Show", alone, ARRAY_SIZE(alone) / 2);
	strbuf_addstr(out, "<label>Subset <select id=\"qt-subset\"><option value=\"\">all</option>"
			   "</select></label>\n");
	if (in->base)
		table_select(out, "qt-sort", "Sort by", sorts_compared, ARRAY_SIZE(sorts_compared) / 2);
	else
		table_select(out, "qt-sort", "Sort by", sorts_alone, ARRAY_SIZE(sorts_alone) / 2);
	strbuf_addstr(out, "</div>\n<p id=\"qt-count\" class=\"count\" role=\"status\"></p>\n"
			   "<table id=\"qtable\" class=\"qt\"><caption class=\"vh\">Questions, as "
			   "filtered and sorted above</caption><thead><tr><th scope=\"col\">id</th>"
			   "<th scope=\"col\">question</th><th scope=\"col\">became</th>");
	if (in->base)
		strbuf_addstr(out, "<th scope=\"col\">rank before</th><th scope=\"col\">rank after</th>"
				   "<th scope=\"col\">change</th>");
	else
		strbuf_addstr(out, "<th scope=\"col\">rank</th>");
	strbuf_addstr(out, "<th scope=\"col\">relevant chunk</th>");
	if (in->base)
		strbuf_addstr(out, "<th scope=\"col\">baseline's top chunk</th>");
	strbuf_addstr(out, "<th scope=\"col\">candidate's top chunk</th></tr></thead>"
			   "<tbody></tbody></table>\n<p class=\"pager\"><button type=\"button\" "
			   "id=\"qt-prev\">Previous page</button> <button type=\"button\" id=\"qt-next\">"
			   "Next page</button></p>\n</section>\n");
}

/* Compute Judged@k and the unjudged count in the top k of 'r' from its kept
 * top ids and the set's labels. */
static void judged(const struct report_input *in, const struct results *r, int k,
		   double *share, size_t *unjudged)
{
	size_t n = 0;
	double sum = 0;

	*unjudged = 0;
	for (size_t i = 0; i < r->nr; i++) {
		const struct question_result *q = &r->q[i];
		const struct question *sq = report_question(in, q->id);
		size_t j, nj = 0;
		if (!q->answerable)
			continue;
		n++;
		for (j = 0; j < q->nr_top && j < (size_t)k; j++) {
			if (sq && question_grade(sq, q->top[j]) >= 0)
				nj++;
			else
				(*unjudged)++;
		}
		sum += (double)nj / k;
	}
	*share = n ? sum / (double)n : NAN;
}

/* Append Decline, FalseDecline, Judged@k and unjudged counts per run. */
void report_decline_section(struct strbuf *out, const struct report_input *in, int k)
{
	const struct results *runs[2] = { in->base, in->cand };
	int jk = k <= RESULTS_TOP ? k : RESULTS_TOP;

	strbuf_addstr(out, "<section id=\"decline\"><h2>Declining and judged documents</h2>\n"
			   "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"declining "
			   "and judged\"><table class=\"num\"><thead><tr><th>run</th><th>Decline</th>"
			   "<th>FalseDecline</th>");
	strbuf_addf(out, "<th>Judged@%d</th><th>unjudged in the top %d</th></tr></thead><tbody>\n",
		    jk, jk);
	for (size_t i = 0; i < 2; i++) {
		double share;
		size_t unj;
		if (!runs[i])
			continue;
		judged(in, runs[i], jk, &share, &unj);
		strbuf_addstr(out, runs[i] == in->cand ? "<tr><th>candidate: " : "<tr><th>baseline: ");
		html_text(out, report_run_label(runs[i]));
		strbuf_addstr(out, "</th>");
		report_td_num(out, runs[i]->decline);
		report_td_num(out, runs[i]->false_decline);
		report_td_num(out, share);
		strbuf_addf(out, "<td class=\"n\">%zu</td></tr>\n", unj);
	}
	strbuf_addf(out, "</tbody></table></div><p class=\"explain\">Decline: share of the %ld unanswerable "
		    "questions the run declined on (abstained or returned nothing). FalseDecline: "
		    "share of the %ld answerable questions it declined on. Judged@%d: share of the top "
		    "%d positions holding a labelled chunk; unjudged chunks count as not relevant, so a "
		    "low Judged@k means the set may under-rate this run.</p></section>\n",
		    in->cand->nr_unanswerable, in->cand->nr_answerable, jk, jk);
}
