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
#include "base/utf8.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define SNIPPET_BYTES 200

/* Append a cell with a 1-based rank, or a dash when nothing relevant was retrieved. */
static void rank_cell(struct strbuf *out, long rank)
{
	if (rank > 0)
		strbuf_addf(out, "<td class=\"n\">%ld</td>", rank);
	else
		strbuf_addstr(out, "<td class=\"n\" title=\"no relevant chunk retrieved\">&ndash;</td>");
}

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

/* Append a table row for question 'id' with the ranks before and after. */
static void question_row(struct strbuf *out, const struct report_input *in, const char *id,
			 long before, long after)
{
	const struct question_result *qr = results_find(in->cand, id);
	const char *top = qr && qr->nr_top ? qr->top[0] : NULL;
	const struct chunk *ch = top && in->corpus ? corpus_get(in->corpus, top) : NULL;

	strbuf_addstr(out, "<tr><td><code>");
	html_text(out, id);
	strbuf_addstr(out, "</code></td><td class=\"qtext\">");
	html_text(out, qr ? qr->text : NULL);
	strbuf_addstr(out, "</td><td>");
	html_text(out, qr && qr->origin ? qr->origin : "hand");
	strbuf_addstr(out, "</td>");
	if (in->base)
		rank_cell(out, before);
	rank_cell(out, after);
	strbuf_addstr(out, "<td class=\"chunk\">");
	if (top) {
		strbuf_addstr(out, "<code>");
		html_text(out, top);
		strbuf_addstr(out, "</code>");
		if (ch && ch->text) {
			size_t len = strlen(ch->text), cut = len;
			if (len > SNIPPET_BYTES)
				cut = utf8_floor(ch->text, SNIPPET_BYTES);
			strbuf_addstr(out, "<br><span class=\"snippet\">");
			html_text_len(out, ch->text, cut);
			if (cut < len)
				strbuf_addstr(out, "&hellip;");
			strbuf_addstr(out, "</span>");
		}
	} else {
		strbuf_addstr(out, "(nothing retrieved)");
	}
	strbuf_addstr(out, "</td></tr>\n");
}

/* Append a per-question table's heading, explanation and header row (no table when 'n' is 0). */
static void table_head(struct strbuf *out, const struct report_input *in, const char *id,
		       const char *title, size_t n, const char *explain)
{
	strbuf_addf(out, "<h3 id=\"%s\">", id);
	html_text(out, title);
	strbuf_addf(out, " (%zu)</h3><p class=\"explain\">", n);
	html_text(out, explain);
	strbuf_addstr(out, "</p>");
	if (!n)
		return;
	strbuf_addstr(out, "<table class=\"questions\"><thead><tr><th>id</th><th>question</th>"
			   "<th>origin</th>");
	if (in->base)
		strbuf_addstr(out, "<th>rank before</th>");
	strbuf_addstr(out, in->base ? "<th>rank after</th>" : "<th>rank</th>");
	strbuf_addstr(out, "<th>top retrieved chunk (candidate)</th></tr></thead><tbody>\n");
}

/* Append the lost, gained and never-found tables. */
void report_questions_section(struct strbuf *out, const struct report_input *in, int k)
{
	char explain[200];
	size_t never = 0;

	strbuf_addstr(out, "<section id=\"questions\"><h2>Questions</h2>\n");
	if (in->cmp) {
		snprintf(explain, sizeof(explain), "A relevant chunk was in the baseline's top %d "
			 "and is not in the candidate's.", in->cmp->k);
		table_head(out, in, "lost", "Lost", in->cmp->nr_lost, explain);
		for (size_t i = 0; i < in->cmp->nr_lost; i++)
			question_row(out, in, in->cmp->lost[i].id, in->cmp->lost[i].rank_before,
				     in->cmp->lost[i].rank_after);
		if (in->cmp->nr_lost)
			strbuf_addstr(out, "</tbody></table>\n");
		snprintf(explain, sizeof(explain), "A relevant chunk is in the candidate's top %d "
			 "and was not in the baseline's.", in->cmp->k);
		table_head(out, in, "gained", "Gained", in->cmp->nr_gained, explain);
		for (size_t i = 0; i < in->cmp->nr_gained; i++)
			question_row(out, in, in->cmp->gained[i].id, in->cmp->gained[i].rank_before,
				     in->cmp->gained[i].rank_after);
		if (in->cmp->nr_gained)
			strbuf_addstr(out, "</tbody></table>\n");
	}
	for (size_t i = 0; i < in->cand->nr; i++) {
		const struct question_result *q = &in->cand->q[i];
		const struct question_result *bq = in->base ? results_find(in->base, q->id) : NULL;
		long a = report_first_rel(q), b = report_first_rel(bq);
		if (q->answerable && !(a > 0 && a <= k) && !(b > 0 && b <= k))
			never++;
	}
	snprintf(explain, sizeof(explain), in->base ? "No relevant chunk in the top %d of either run."
						    : "No relevant chunk in the top %d.", k);
	table_head(out, in, "never", "Never found", never, explain);
	for (size_t i = 0; i < in->cand->nr; i++) {
		const struct question_result *q = &in->cand->q[i];
		const struct question_result *bq = in->base ? results_find(in->base, q->id) : NULL;
		long a = report_first_rel(q), b = report_first_rel(bq);
		if (q->answerable && !(a > 0 && a <= k) && !(b > 0 && b <= k))
			question_row(out, in, q->id, b, a);
	}
	if (never)
		strbuf_addstr(out, "</tbody></table>\n");
	strbuf_addstr(out, "</section>\n");
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
		const struct question *sq = set_find(in->set, q->id);
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
			   "<table class=\"num\"><thead><tr><th>run</th><th>Decline</th>"
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
	strbuf_addf(out, "</tbody></table><p class=\"explain\">Decline: share of the %ld unanswerable "
		    "questions the run declined on (abstained or returned nothing). FalseDecline: "
		    "share of the %ld answerable questions it declined on. Judged@%d: share of the top "
		    "%d positions holding a labelled chunk; unjudged chunks count as not relevant, so a "
		    "low Judged@k means the set may under-rate this run.</p></section>\n",
		    in->cand->nr_unanswerable, in->cand->nr_answerable, jk, jk);
}
