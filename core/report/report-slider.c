/*
 * report-slider: the "Move the cutoff" section of the HTML report (see
 * report.h for the measures' definitions and report-slider.h for the
 * contract).
 *
 * Each answerable question of the candidate becomes a struct slider_q: its
 * ranking to depth REPORT_SLIDER_MAX with the grade of every position (from
 * the set's labels), its ideal gains, its number of relevant documents and
 * the rank of its first relevant one at any depth. The server-side numbers
 * at the starting k come from report_cutoff_measures; the page's script
 * repeats exactly that arithmetic in JavaScript when the slider moves, and
 * writes to the page through textContent only.
 */
#include "report/report-slider.h"
#include "report/report.h"
#include "report/report-cells.h"
#include "base/html.h"
#include "base/strmap.h"
#include "set/corpus.h"
#include "score/results.h"
#include "set/set.h"
#include "base/utf8.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One question of the slider: its ranking to depth REPORT_SLIDER_MAX with grades. */
struct slider_q {
	const struct question_result *qr;
	const char *ids[REPORT_SLIDER_MAX];   /* NULL: an id the results did not keep */
	int grades[REPORT_SLIDER_MAX];        /* >= 1 relevant, 0 judged not, -1 unjudged */
	size_t nr;
	int ideal[REPORT_SLIDER_MAX];
	size_t nr_ideal;
	long num_rel, first_rel;
	bool assumed;                         /* a grade beyond the kept ids was assumed */
};

void report_cutoff_measures(const int *grades, size_t nr, const int *ideal, size_t nr_ideal,
			    long num_rel, long first_rel, int k, double out[5])
{
	long rel = 0;
	double dcg = 0, idcg = 0;

	for (size_t i = 0; i < nr && i < (size_t)k; i++) {
		if (grades[i] >= 1) {
			rel++;
			dcg += grades[i] / log2((double)i + 2);
		}
	}
	for (size_t i = 0; i < nr_ideal && i < (size_t)k; i++)
		idcg += ideal[i] / log2((double)i + 2);
	out[0] = (double)rel / k;
	out[1] = num_rel > 0 ? (double)rel / (double)num_rel : 0;
	out[2] = rel > 0 ? 1 : 0;
	out[3] = first_rel > 0 ? 1.0 / (double)first_rel : 0;
	out[4] = idcg > 0 ? dcg / idcg : 0;
}

static const char *const cutoff_names[5] = { "P@k", "R@k", "Success@k", "RR", "nDCG@k" };
static const char *const cutoff_keys[5] = { "P", "R", "S", "RR", "nDCG" };

/* Order ints from largest to smallest (qsort). */
static int cmp_int_desc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x < y) - (x > y);
}

/* Fill 'sq' for the set question 'q' from 'qr' and, when given, 'ranking'. */
static void slider_fill(struct slider_q *sq, const struct question *q,
			const struct question_result *qr, const struct report_ranking *ranking)
{
	int common = -1;

	memset(sq, 0, sizeof(*sq));
	sq->qr = qr;
	sq->num_rel = q ? (long)q->nr_relevant : qr->num_rel;
	sq->first_rel = report_first_rel(qr);
	if (q) {
		for (size_t i = 0; i < q->nr_relevant; i++) {
			int g = q->relevant[i].grade;
			if (i == 0)
				common = g;
			else if (g != common)
				common = 0;
		}
		for (size_t i = 0; i < q->nr_relevant && sq->nr_ideal < REPORT_SLIDER_MAX; i++)
			sq->ideal[sq->nr_ideal++] = q->relevant[i].grade;
		/* every relevant grade must enter the sort, not only the first 20 */
		if (q->nr_relevant > REPORT_SLIDER_MAX) {
			int *all = xcalloc(q->nr_relevant, sizeof(*all));
			for (size_t i = 0; i < q->nr_relevant; i++)
				all[i] = q->relevant[i].grade;
			qsort(all, q->nr_relevant, sizeof(*all), cmp_int_desc);
			memcpy(sq->ideal, all, sizeof(sq->ideal));
			free(all);
		} else {
			qsort(sq->ideal, sq->nr_ideal, sizeof(*sq->ideal), cmp_int_desc);
		}
	}
	if (ranking) {
		for (size_t i = 0; i < ranking->nr && i < REPORT_SLIDER_MAX; i++) {
			sq->ids[i] = ranking->ids[i];
			sq->grades[i] = q ? question_grade(q, ranking->ids[i]) : -1;
		}
		sq->nr = ranking->nr < REPORT_SLIDER_MAX ? ranking->nr : REPORT_SLIDER_MAX;
		return;
	}
	/* from the results: the kept top ids, then the relevant ranks below them */
	sq->nr = qr->num_ret < REPORT_SLIDER_MAX ? (size_t)qr->num_ret : REPORT_SLIDER_MAX;
	for (size_t i = 0; i < sq->nr; i++) {
		sq->ids[i] = i < qr->nr_top ? qr->top[i] : NULL;
		sq->grades[i] = sq->ids[i] && q ? question_grade(q, sq->ids[i]) : -1;
	}
	for (size_t i = 0; i < qr->nr_rel_ranks; i++) {
		long r = qr->rel_ranks[i];
		if (r < 1 || r > (long)sq->nr || sq->ids[r - 1])
			continue;
		sq->grades[r - 1] = common > 0 ? common : 1;
		if (common <= 0)
			sq->assumed = true;
	}
}

/* Append the chosen question's ranked list, relevant positions marked,
 * below k in the muted colour and marked "below k". */
static void ranked_list(struct strbuf *out, const struct slider_q *sq, int k)
{
	strbuf_addstr(out, "<ol id=\"ranked\" class=\"ranked\">");
	for (size_t i = 0; i < sq->nr; i++) {
		strbuf_addf(out, "<li class=\"%s%s\">", sq->grades[i] >= 1 ? "rel" : "",
			    (int)i >= k ? " cut" : "");
		html_text(out, sq->ids[i] ? sq->ids[i] : "(id not kept)");
		if (sq->grades[i] >= 1)
			strbuf_addf(out, " <b>relevant, grade %d</b>", sq->grades[i]);
		else if (sq->grades[i] < 0)
			strbuf_addstr(out, " <i>unjudged</i>");
		if ((int)i >= k)
			strbuf_addstr(out, " <small>(below k)</small>");
		strbuf_addstr(out, "</li>");
	}
	if (!sq->nr)
		strbuf_addstr(out, "<li class=\"cut\">(nothing retrieved)</li>");
	strbuf_addstr(out, "</ol>\n");
}

/* Append the five slider outputs of one row ('set' or 'q'). */
static void cutoff_row(struct strbuf *out, const char *row, const double v[5])
{
	for (size_t m = 0; m < 5; m++)
		strbuf_addf(out, "<td class=\"n\"><output id=\"%s-%s\" data-value=\"%.17g\">%.4f"
			    "</output></td>", row, cutoff_keys[m], v[m], v[m]);
}

/* The page's tables of strings: chunk ids (each once, with the start of
 * its text when a row shows it) and subset names, so a question's row
 * holds small numbers instead of repeated strings. */
struct page_strings {
	struct strmap chunk_at;      /* id -> index + 1 */
	cJSON *chunks, *snips;
	int nr_chunks;
	bool *snipped;               /* per chunk index: its text is in 'snips' */
	size_t alloc_snipped;
	const struct corpus *corpus;
	const char *subsets[REPORT_MAX_SUBSETS];
	size_t nr_subsets;
};

/* Return the index of chunk 'id' in the page's table, adding it (-1 for NULL). */
static int chunk_index(struct page_strings *ps, const char *id, bool snippet)
{
	void *v;
	int i;

	if (!id)
		return -1;
	v = strmap_get(&ps->chunk_at, id);
	if (v) {
		i = (int)((uintptr_t)v - 1);
	} else {
		i = ps->nr_chunks++;
		cJSON_AddItemToArray(ps->chunks, cJSON_CreateString(id));
		strmap_put(&ps->chunk_at, id, (void *)(uintptr_t)(i + 1));
		ALLOC_GROW(ps->snipped, (size_t)ps->nr_chunks, ps->alloc_snipped);
		ps->snipped[i] = false;
	}
	if (snippet && ps->corpus && !ps->snipped[i]) {
		const struct chunk *ch = corpus_get(ps->corpus, id);
		char key[16];
		ps->snipped[i] = true;
		if (ch && ch->text) {
			size_t len = strlen(ch->text), cut = len;
			char *s;
			if (len > REPORT_SNIPPET_BYTES)
				cut = utf8_floor(ch->text, REPORT_SNIPPET_BYTES);
			s = xstrfmt("%.*s%s", (int)cut, ch->text, cut < len ? "\xE2\x80\xA6" : "");
			snprintf(key, sizeof(key), "%d", i);
			cJSON_AddStringToObject(ps->snips, key, s);
			free(s);
		}
	}
	return i;
}

/* Return the index of subset 'name' (origin=..., tag=...), adding it; -1
 * past REPORT_MAX_SUBSETS. */
static int subset_index(struct page_strings *ps, const char *name)
{
	for (size_t i = 0; i < ps->nr_subsets; i++)
		if (!strcmp(ps->subsets[i], name))
			return (int)i;
	if (ps->nr_subsets == REPORT_MAX_SUBSETS)
		return -1;
	ps->subsets[ps->nr_subsets] = name;
	return (int)ps->nr_subsets++;
}

/* Return what became of question 'sq' at 'k': lost, gained, never (found
 * in neither top k), both (found in both); without a baseline found or
 * never. 'before' is the baseline's first relevant rank (0: none). */
static const char *question_status(const struct slider_q *sq, long before, bool base, int k)
{
	bool a = sq->first_rel > 0 && sq->first_rel <= k, b = before > 0 && before <= k;

	if (!base)
		return a ? "found" : "never";
	if (a && b)
		return "both";
	return a ? "gained" : b ? "lost" : "never";
}

/* Return a string of one character per grade: '-' unjudged, else the digit. */
static char *grade_string(const int *g, size_t n)
{
	char *s = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		s[i] = g[i] < 0 ? '-' : (char)('0' + (g[i] > 9 ? 9 : g[i]));
	s[n] = '\0';
	return s;
}

/*
 * Return one question's row of the page's data: [id, text, [subsets],
 * status, the first relevant rank before (the baseline's; null without a
 * baseline) and after (the candidate's; 0: none), num_rel, ideal grades, grades, [chunk of each rank], first relevant
 * chunk, the baseline's top chunk, the candidate's top chunk, relevant
 * labels beyond the first]. Chunks are indexes into the page's chunk table
 * (-1: none); grades are strings of digits ('-': unjudged).
 */
static cJSON *question_json(struct page_strings *ps, const struct report_input *in,
			    const struct slider_q *sq, int k)
{
	const struct question_result *qr = sq->qr;
	const struct question *q = report_question(in, qr->id);
	const struct question_result *bq = in->base ? results_find(in->base, qr->id) : NULL;
	long before = report_first_rel(bq);
	const char *status = question_status(sq, before, in->base != NULL, k);
	bool show = strcmp(status, "both") && strcmp(status, "found");
	cJSON *row = cJSON_CreateArray(), *subs = cJSON_CreateArray(), *ids = cJSON_CreateArray();
	char *origin = xstrfmt("origin=%s", qr->origin && *qr->origin ? qr->origin : "hand");
	char *g;
	int at;

	cJSON_AddItemToArray(row, cJSON_CreateString(qr->id));
	cJSON_AddItemToArray(row, cJSON_CreateString(qr->text ? qr->text : ""));
	at = subset_index(ps, origin);
	if (at < 0 || ps->subsets[at] != origin)
		free(origin);
	if (at >= 0)
		cJSON_AddItemToArray(subs, cJSON_CreateNumber(at));
	for (size_t t = 0; t < qr->nr_tags; t++) {
		char *name = xstrfmt("tag=%s", qr->tags[t]);
		at = subset_index(ps, name);
		if (at < 0 || ps->subsets[at] != name)
			free(name);
		if (at >= 0)
			cJSON_AddItemToArray(subs, cJSON_CreateNumber(at));
	}
	cJSON_AddItemToArray(row, subs);
	cJSON_AddItemToArray(row, cJSON_CreateString(status));
	cJSON_AddItemToArray(row, in->base ? cJSON_CreateNumber((double)before) : cJSON_CreateNull());
	cJSON_AddItemToArray(row, cJSON_CreateNumber((double)sq->first_rel));
	cJSON_AddItemToArray(row, cJSON_CreateNumber((double)sq->num_rel));
	g = grade_string(sq->ideal, sq->nr_ideal);
	cJSON_AddItemToArray(row, cJSON_CreateString(g));
	free(g);
	g = grade_string(sq->grades, sq->nr);
	cJSON_AddItemToArray(row, cJSON_CreateString(g));
	free(g);
	for (size_t j = 0; j < sq->nr; j++)
		cJSON_AddItemToArray(ids, cJSON_CreateNumber(chunk_index(ps, sq->ids[j], false)));
	cJSON_AddItemToArray(row, ids);
	cJSON_AddItemToArray(row, cJSON_CreateNumber(
		chunk_index(ps, q && q->nr_relevant ? q->relevant[0].chunk : NULL, show)));
	cJSON_AddItemToArray(row, cJSON_CreateNumber(
		chunk_index(ps, bq && bq->nr_top ? bq->top[0] : NULL, show)));
	cJSON_AddItemToArray(row, cJSON_CreateNumber(
		chunk_index(ps, qr->nr_top ? qr->top[0] : NULL, show)));
	cJSON_AddItemToArray(row, cJSON_CreateNumber(q && q->nr_relevant ? (double)q->nr_relevant - 1 : 0));
	return row;
}

/* Append the page's data block: every answerable question's row (as
 * question_json), the chunk and subset tables, k and the depth. */
static void page_data(struct strbuf *out, const struct report_input *in, int k,
		      const struct slider_q *qs, size_t nr, size_t chosen)
{
	struct page_strings ps = { .chunk_at = STRMAP_INIT, .corpus = in->corpus };
	cJSON *data = cJSON_CreateObject(), *arr = cJSON_CreateArray(), *subs;
	char *json;

	ps.chunks = cJSON_CreateArray();
	ps.snips = cJSON_CreateObject();
	for (size_t i = 0; i < nr; i++)
		cJSON_AddItemToArray(arr, question_json(&ps, in, &qs[i], k));
	cJSON_AddNumberToObject(data, "k", k);
	cJSON_AddNumberToObject(data, "depth", in->cand->depth > 0 ? in->cand->depth : 1000);
	cJSON_AddBoolToObject(data, "base", in->base != NULL);
	cJSON_AddNumberToObject(data, "chosen", (double)chosen);
	subs = cJSON_AddArrayToObject(data, "subsets");
	for (size_t i = 0; i < ps.nr_subsets; i++)
		cJSON_AddItemToArray(subs, cJSON_CreateString(ps.subsets[i]));
	cJSON_AddItemToObject(data, "chunks", ps.chunks);
	cJSON_AddItemToObject(data, "snips", ps.snips);
	cJSON_AddItemToObject(data, "q", arr);
	strbuf_addstr(out, "<script type=\"application/json\" id=\"report-data\">");
	json = cJSON_PrintUnformatted(data);
	html_script_json(out, json);
	free(json);
	cJSON_Delete(data);
	for (size_t i = 0; i < ps.nr_subsets; i++)
		free((char *)ps.subsets[i]);
	strmap_clear(&ps.chunk_at, 0);
	free(ps.snipped);
	strbuf_addstr(out, "</script>\n");
}

/* Append the k slider, its two rows of numbers and the chosen question, for
 * the 'nr' questions 'qs' with 'chosen' shown first. */
static void render(struct strbuf *out, const char *label, int k,
		   const struct slider_q *qs, size_t nr, size_t chosen)
{
	double sum[5] = { 0 }, v[5];
	bool assumed = false;

	for (size_t i = 0; i < nr; i++) {
		const struct slider_q *sq = &qs[i];
		report_cutoff_measures(sq->grades, sq->nr, sq->ideal, sq->nr_ideal, sq->num_rel,
				       sq->first_rel, k, v);
		for (size_t m = 0; m < 5; m++)
			sum[m] += v[m];
		assumed |= sq->assumed;
	}

	strbuf_addstr(out, "<section id=\"cutoff\"><h2>Move the cutoff</h2>\n");
	strbuf_addstr(out, "<p class=\"explain\">Precision falls as k grows while recall rises; "
			   "RR only looks at the first relevant chunk, wherever it is, so it ignores k "
			   "and everything after that first hit. Numbers are for ");
	html_text(out, label);
	strbuf_addf(out, " over its %zu answerable questions.</p>\n", nr);
	strbuf_addf(out, "<p class=\"slider\"><label for=\"k\">Move k: k = <output id=\"k-value\">%d</output>"
		    "</label> <input type=\"range\" id=\"k\" min=\"1\" max=\"%d\" step=\"1\" value=\"%d\">"
		    "</p>\n", k, REPORT_SLIDER_MAX, k);
	strbuf_addf(out, "<p class=\"at-k\">At k = <span id=\"k-print\">%d</span>:</p>\n", k);
	strbuf_addstr(out, "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"measures at k\">"
			   "<table class=\"num cutoff\"><thead><tr><th scope=\"col\">questions</th>");
	for (size_t m = 0; m < 5; m++) {
		strbuf_addstr(out, "<th scope=\"col\">");
		html_text(out, cutoff_names[m]);
		strbuf_addstr(out, "</th>");
	}
	strbuf_addf(out, "</tr></thead><tbody><tr><th scope=\"row\">whole set (%zu answerable)</th>", nr);
	for (size_t m = 0; m < 5; m++)
		v[m] = nr ? sum[m] / (double)nr : 0;
	cutoff_row(out, "set", v);
	strbuf_addstr(out, "</tr>\n<tr><th scope=\"row\">question <span id=\"q-id\">");
	if (nr) {
		const struct slider_q *sq = &qs[chosen];
		html_text(out, sq->qr->id);
		report_cutoff_measures(sq->grades, sq->nr, sq->ideal, sq->nr_ideal, sq->num_rel,
				       sq->first_rel, k, v);
	}
	strbuf_addstr(out, "</span></th>");
	cutoff_row(out, "q", v);
	strbuf_addstr(out, "</tr></tbody></table></div>\n<div class=\"qdetail\">"
			   "<p id=\"q-text\" class=\"qtext\" tabindex=\"-1\">");
	if (nr)
		html_text(out, qs[chosen].qr->text);
	strbuf_addstr(out, "</p><p id=\"q-facts\" class=\"explain\">");
	if (nr)
		strbuf_addf(out, "%ld relevant; first relevant at rank %ld", qs[chosen].num_rel,
			    qs[chosen].first_rel);
	strbuf_addstr(out, "</p><p class=\"nav\"><button type=\"button\" id=\"q-prev\">Previous question"
			   "</button> <button type=\"button\" id=\"q-next\">Next question</button> "
			   "<span class=\"explain\">in the order of the <a href=\"#questions\">question "
			   "table</a>, where a question's id shows it here</span></p>");
	if (nr)
		ranked_list(out, &qs[chosen], k);
	strbuf_addstr(out, "</div>\n");
	if (assumed)
		strbuf_addstr(out, "<p class=\"warn\">Some relevant chunks below the kept top ids were "
				   "given grade 1; nDCG may differ from score for graded questions.</p>\n");
	strbuf_addstr(out, "</section>\n");
}

void report_slider_section(struct strbuf *out, const struct report_input *in, int k,
			   const char *label)
{
	struct slider_q *qs = xcalloc(in->cand->nr ? in->cand->nr : 1, sizeof(*qs));
	size_t nr = 0, chosen = 0;
	bool have_chosen = false;

	for (size_t i = 0; i < in->cand->nr; i++) {
		const struct question_result *qr = &in->cand->q[i];
		if (!qr->answerable)
			continue;
		slider_fill(&qs[nr], report_question(in, qr->id), qr,
			    in->cand_rankings ? &in->cand_rankings[i] : NULL);
		/* show first a question where k matters: first hit below rank 1 */
		if (!have_chosen && qs[nr].first_rel > 1 && qs[nr].first_rel <= REPORT_SLIDER_MAX) {
			chosen = nr;
			have_chosen = true;
		}
		nr++;
	}
	render(out, label, k, qs, nr, chosen);
	page_data(out, in, k, qs, nr, chosen);
	free(qs);
}
