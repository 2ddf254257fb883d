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
#include "score/results.h"
#include "set/set.h"
#include "base/utf8.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
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

/* Append the chosen question's ranked list, relevant positions marked, below k greyed. */
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

/* Append the k slider, its two rows of numbers, the chosen question and the
 * data block, for the 'nr' questions 'qs' with 'chosen' shown first. */
static void render(struct strbuf *out, const char *label, int k,
		   const struct slider_q *qs, size_t nr, size_t chosen)
{
	double sum[5] = { 0 }, v[5];
	cJSON *data = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(data, "questions");
	char *json;
	bool assumed = false;

	for (size_t i = 0; i < nr; i++) {
		const struct slider_q *sq = &qs[i];
		cJSON *o = cJSON_CreateObject(), *list = cJSON_CreateArray();
		report_cutoff_measures(sq->grades, sq->nr, sq->ideal, sq->nr_ideal, sq->num_rel,
				       sq->first_rel, k, v);
		for (size_t m = 0; m < 5; m++)
			sum[m] += v[m];
		cJSON_AddStringToObject(o, "id", sq->qr->id);
		cJSON_AddNumberToObject(o, "num_rel", (double)sq->num_rel);
		cJSON_AddNumberToObject(o, "first_rel", (double)sq->first_rel);
		cJSON_AddItemToObject(o, "ideal", cJSON_CreateIntArray(sq->ideal, (int)sq->nr_ideal));
		cJSON_AddItemToObject(o, "grades", cJSON_CreateIntArray(sq->grades, (int)sq->nr));
		for (size_t j = 0; j < sq->nr; j++)
			cJSON_AddItemToArray(list, sq->ids[j] ? cJSON_CreateString(sq->ids[j])
							      : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "ids", list);
		cJSON_AddItemToArray(arr, o);
		assumed |= sq->assumed;
	}
	cJSON_AddNumberToObject(data, "k", k);

	strbuf_addstr(out, "<section id=\"cutoff\"><h2>Move the cutoff</h2>\n");
	strbuf_addf(out, "<p class=\"explain\">Drag k to see what each measure rewards: precision "
		    "falls as k grows while recall rises; RR only looks at the first relevant chunk, "
		    "wherever it is, so it ignores k and everything after that first hit. ");
	strbuf_addstr(out, 		    "Numbers are for ");
	html_text(out, label);
	strbuf_addf(out, " over its %zu answerable questions.</p>\n", nr);
	strbuf_addf(out, "<p class=\"slider\"><label for=\"k\">k = <output id=\"k-value\">%d</output>"
		    "</label> <input type=\"range\" id=\"k\" min=\"1\" max=\"%d\" step=\"1\" value=\"%d\">"
		    "</p>\n", k, REPORT_SLIDER_MAX, k);
	strbuf_addstr(out, "<table class=\"num cutoff\"><thead><tr><th></th>");
	for (size_t m = 0; m < 5; m++) {
		strbuf_addstr(out, "<th>");
		html_text(out, cutoff_names[m]);
		strbuf_addstr(out, "</th>");
	}
	strbuf_addf(out, "</tr></thead><tbody><tr><th>whole set (%zu answerable)</th>", nr);
	for (size_t m = 0; m < 5; m++)
		v[m] = nr ? sum[m] / (double)nr : 0;
	cutoff_row(out, "set", v);
	strbuf_addstr(out, "</tr>\n<tr><th><label for=\"q\">question</label> <select id=\"q\">");
	for (size_t i = 0; i < nr; i++) {
		const char *text = qs[i].qr->text ? qs[i].qr->text : "";
		size_t len = strlen(text), cut = len > 70 ? utf8_floor(text, 70) : len;
		strbuf_addf(out, "<option value=\"%zu\"%s>", i, i == chosen ? " selected" : "");
		html_text(out, qs[i].qr->id);
		strbuf_addstr(out, ": ");
		html_text_len(out, text, cut);
		if (cut < len)
			strbuf_addstr(out, "&hellip;");
		strbuf_addstr(out, "</option>");
	}
	strbuf_addstr(out, "</select></th>");
	if (nr) {
		const struct slider_q *sq = &qs[chosen];
		report_cutoff_measures(sq->grades, sq->nr, sq->ideal, sq->nr_ideal, sq->num_rel,
				       sq->first_rel, k, v);
	}
	cutoff_row(out, "q", v);
	strbuf_addstr(out, "</tr></tbody></table>\n<div class=\"qdetail\"><p id=\"q-text\" class=\"qtext\">");
	if (nr)
		html_text(out, qs[chosen].qr->text);
	strbuf_addstr(out, "</p><p id=\"q-facts\" class=\"explain\">");
	if (nr)
		strbuf_addf(out, "%ld relevant; first relevant at rank %ld", qs[chosen].num_rel,
			    qs[chosen].first_rel);
	strbuf_addstr(out, "</p>");
	if (nr)
		ranked_list(out, &qs[chosen], k);
	strbuf_addstr(out, "</div>\n");
	if (assumed)
		strbuf_addstr(out, "<p class=\"warn\">Some relevant chunks below the kept top ids were "
				   "given grade 1; nDCG may differ from score for graded questions.</p>\n");
	strbuf_addstr(out, "<script type=\"application/json\" id=\"slider-data\">");
	json = cJSON_PrintUnformatted(data);
	html_script_json(out, json);
	free(json);
	cJSON_Delete(data);
	strbuf_addstr(out, "</script>\n</section>\n");
}

/* The slider: recompute the five measures with the arithmetic of
 * report_cutoff_measures, write with textContent only. */
const char report_slider_js[] =
	"(function(){'use strict';\n"
	"var D=JSON.parse(document.getElementById('slider-data').textContent);\n"
	"var Q=D.questions,K=['P','R','S','RR','nDCG'];\n"
	"function m(q,k){var rel=0,dcg=0,idcg=0,i;\n"
	" for(i=0;i<q.grades.length&&i<k;i++){if(q.grades[i]>=1){rel++;dcg+=q.grades[i]/Math.log2(i+2);}}\n"
	" for(i=0;i<q.ideal.length&&i<k;i++)idcg+=q.ideal[i]/Math.log2(i+2);\n"
	" return [rel/k,q.num_rel>0?rel/q.num_rel:0,rel>0?1:0,q.first_rel>0?1/q.first_rel:0,idcg>0?dcg/idcg:0];}\n"
	"function put(row,v){for(var j=0;j<5;j++){var e=document.getElementById(row+'-'+K[j]);\n"
	" e.textContent=v[j].toFixed(4);e.setAttribute('data-value',String(v[j]));}}\n"
	"function list(q,k){var ol=document.getElementById('ranked');if(!ol)return;\n"
	" while(ol.firstChild)ol.removeChild(ol.firstChild);\n"
	" for(var i=0;i<q.ids.length;i++){var li=document.createElement('li');var g=q.grades[i];\n"
	"  li.className=(g>=1?'rel':'')+(i>=k?' cut':'');\n"
	"  li.appendChild(document.createTextNode(q.ids[i]===null?'(id not kept)':q.ids[i]));\n"
	"  if(g>=1){var b=document.createElement('b');b.textContent=' relevant, grade '+g;li.appendChild(b);}\n"
	"  else if(g<0){var it=document.createElement('i');it.textContent=' unjudged';li.appendChild(it);}\n"
	"  ol.appendChild(li);}\n"
	" if(!q.ids.length){var e=document.createElement('li');e.className='cut';e.textContent='(nothing retrieved)';ol.appendChild(e);}}\n"
	"var slider=document.getElementById('k'),sel=document.getElementById('q');\n"
	"function update(){var k=parseInt(slider.value,10),s=[0,0,0,0,0],i,j,v;\n"
	" document.getElementById('k-value').textContent=String(k);\n"
	" for(i=0;i<Q.length;i++){v=m(Q[i],k);for(j=0;j<5;j++)s[j]+=v[j];}\n"
	" for(j=0;j<5;j++)s[j]=Q.length?s[j]/Q.length:0;put('set',s);\n"
	" if(Q.length){var q=Q[parseInt(sel.value,10)];put('q',m(q,k));list(q,k);\n"
	"  document.getElementById('q-text').textContent=sel.options[sel.selectedIndex].text.replace(/^[^:]*: /,'');\n"
	"  document.getElementById('q-facts').textContent=q.num_rel+' relevant; first relevant at rank '+q.first_rel;}}\n"
	"slider.addEventListener('input',update);sel.addEventListener('change',update);\n"
	"})();\n";

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
		slider_fill(&qs[nr], set_find(in->set, qr->id), qr,
			    in->cand_rankings ? &in->cand_rankings[i] : NULL);
		/* show first a question where k matters: first hit below rank 1 */
		if (!have_chosen && qs[nr].first_rel > 1 && qs[nr].first_rel <= REPORT_SLIDER_MAX) {
			chosen = nr;
			have_chosen = true;
		}
		nr++;
	}
	render(out, label, k, qs, nr, chosen);
	free(qs);
}
