/*
 * report: render the HTML report (see report.h for the contract and the
 * definitions of every number computed here).
 *
 * The page is built top to bottom into one strbuf; each section is one
 * static function. Text from the set, the runs and the corpus only ever
 * reaches the page through html_text/html_attr (markup) or
 * html_script_json (the slider's data block); the script writes to the
 * page with textContent only.
 */
#include "report.h"
#include "compare.h"
#include "corpus.h"
#include "error.h"
#include "gate.h"
#include "html.h"
#include "results.h"
#include "set.h"
#include "svg.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SNIPPET_BYTES 200
#define MAX_TAG_GROUPS 12

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

static int cmp_int_desc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x < y) - (x > y);
}

/* Return the rank of the first relevant document of 'qr' (0: none). */
static long first_rel(const struct question_result *qr)
{
	return qr && qr->nr_rel_ranks ? qr->rel_ranks[0] : 0;
}

/* Fill 'sq' for the set question 'q' from 'qr' and, when given, 'ranking'. */
static void slider_fill(struct slider_q *sq, const struct question *q,
			const struct question_result *qr, const struct report_ranking *ranking)
{
	int common = -1;

	memset(sq, 0, sizeof(*sq));
	sq->qr = qr;
	sq->num_rel = q ? (long)q->nr_relevant : qr->num_rel;
	sq->first_rel = first_rel(qr);
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

/* ---- small formatting helpers ---- */

static void num(struct strbuf *out, double v)
{
	if (isnan(v))
		strbuf_addstr(out, "&ndash;");
	else
		strbuf_addf(out, "%.4f", v);
}

static void signed_num(struct strbuf *out, double v)
{
	if (isnan(v))
		strbuf_addstr(out, "&ndash;");
	else
		strbuf_addf(out, "%+.4f", v);
}

static void td_num(struct strbuf *out, double v)
{
	strbuf_addf(out, "<td class=\"n\" data-value=\"%.17g\">", v);
	num(out, v);
	strbuf_addstr(out, "</td>");
}

static void rank_cell(struct strbuf *out, long rank)
{
	if (rank > 0)
		strbuf_addf(out, "<td class=\"n\">%ld</td>", rank);
	else
		strbuf_addstr(out, "<td class=\"n\" title=\"no relevant chunk retrieved\">&ndash;</td>");
}

static const char *run_label(const struct results *r)
{
	if (r->run_name && *r->run_name)
		return r->run_name;
	if (r->run_path && *r->run_path)
		return r->run_path;
	return r->file ? r->file : "run";
}

/* Return the number of answerable questions in 'r'. */
static size_t count_answerable(const struct results *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nr; i++)
		n += r->q[i].answerable;
	return n;
}

/* ---- sections ---- */

static void add_count(struct strbuf *out, const char *what, size_t n, bool *first)
{
	if (!n)
		return;
	strbuf_addstr(out, *first ? "" : ", ");
	strbuf_addf(out, "%zu ", n);
	html_text(out, what);
	*first = false;
}

struct tag_count {
	const char *tag;
	size_t n;
};

static int cmp_tag_count(const void *a, const void *b)
{
	const struct tag_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->tag, y->tag);
}

/* Collect the tags of 's' with their question counts, most used first. */
static struct tag_count *set_tags(const struct set *s, size_t *nr)
{
	struct tag_count *t = NULL;
	size_t n = 0, alloc = 0;

	for (size_t i = 0; i < s->nr; i++) {
		for (size_t j = 0; j < s->q[i].nr_tags; j++) {
			const char *tag = s->q[i].tags[j];
			size_t k;
			for (k = 0; k < n && strcmp(t[k].tag, tag); k++)
				;
			if (k == n) {
				ALLOC_GROW(t, n + 1, alloc);
				t[n].tag = tag;
				t[n].n = 0;
				n++;
			}
			t[k].n++;
		}
	}
	if (n)
		qsort(t, n, sizeof(*t), cmp_tag_count);
	*nr = n;
	return t;
}

static void section_headline(struct strbuf *out, const struct report_input *in, int k)
{
	const struct set *s = in->set;
	size_t origin[4] = { 0 }, answerable = 0, nr_tags;
	struct tag_count *tags = set_tags(s, &nr_tags);
	bool first = true;

	for (size_t i = 0; i < s->nr; i++) {
		origin[s->q[i].origin]++;
		answerable += s->q[i].answerable;
	}
	strbuf_addstr(out, "<header id=\"headline\"><h1>");
	html_text(out, in->set_label ? in->set_label : s->name);
	strbuf_addstr(out, ": ");
	html_text(out, run_label(in->cand));
	if (in->base) {
		strbuf_addstr(out, " vs ");
		html_text(out, run_label(in->base));
	}
	strbuf_addstr(out, "</h1>\n<dl class=\"facts\">");
	strbuf_addstr(out, "<dt>Set</dt><dd>");
	html_text(out, s->name);
	strbuf_addstr(out, s->version ? " @ " : " (working copy)");
	html_text(out, s->version);
	strbuf_addstr(out, "</dd><dt>Digest</dt><dd><code>");
	html_text(out, in->cand->set_digest);
	strbuf_addf(out, "</code></dd><dt>Size</dt><dd>%zu questions: %zu answerable, %zu unanswerable</dd>",
		    s->nr, answerable, s->nr - answerable);
	strbuf_addstr(out, "<dt>Origin</dt><dd>");
	add_count(out, "synthetic", origin[ORIGIN_SYNTHETIC], &first);
	add_count(out, "mined", origin[ORIGIN_MINED], &first);
	add_count(out, "hand", origin[ORIGIN_HAND] + origin[ORIGIN_NONE], &first);
	strbuf_addstr(out, "</dd><dt>Tags</dt><dd>");
	first = true;
	for (size_t i = 0; i < nr_tags; i++)
		add_count(out, tags[i].tag, tags[i].n, &first);
	if (!nr_tags)
		strbuf_addstr(out, "none");
	strbuf_addstr(out, "</dd><dt>Candidate</dt><dd>");
	html_text(out, run_label(in->cand));
	if (in->cand->run_sha256) {
		strbuf_addstr(out, " <code class=\"small\">");
		html_text(out, in->cand->run_sha256);
		strbuf_addstr(out, "</code>");
	}
	strbuf_addstr(out, "</dd>");
	if (in->base) {
		strbuf_addstr(out, "<dt>Baseline</dt><dd>");
		html_text(out, run_label(in->base));
		if (in->base->run_sha256) {
			strbuf_addstr(out, " <code class=\"small\">");
			html_text(out, in->base->run_sha256);
			strbuf_addstr(out, "</code>");
		}
		strbuf_addstr(out, "</dd>");
	}
	strbuf_addf(out, "<dt>Context size</dt><dd>k = %d, depth K = %d</dd></dl>\n", k,
		    in->cand->depth);
	free(tags);

	if (in->cmp && in->cmp->set_changed)
		strbuf_addstr(out, "<p class=\"warn\">The two results were scored against different "
				   "versions of the set; only the questions common to both are compared.</p>\n");
	if (in->gate) {
		bool pass = in->nr_failed == 0;
		strbuf_addf(out, "<div id=\"verdict\" class=\"verdict %s\"><strong>Gate: %s</strong>",
			    pass ? "pass" : "fail", pass ? "PASS" : "FAIL");
		strbuf_addf(out, " (%zu rule%s, %d failed, alpha %g", in->gate->nr,
			    in->gate->nr == 1 ? "" : "s", in->nr_failed, in->gate->alpha);
		if (in->gate->file) {
			strbuf_addstr(out, ", ");
			html_text(out, in->gate->file);
		}
		strbuf_addstr(out, ")<ul>");
		for (size_t i = 0; i < in->gate->nr; i++) {
			char *d = gate_rule_describe(&in->gate->rules[i]);
			const struct gate_outcome *o = &in->outcomes[i];
			strbuf_addf(out, "<li class=\"%s\"><b>%s</b> ", o->pass ? "pass" : "fail",
				    o->pass ? (o->judged ? "pass" : "pass (too small to judge)") : "FAIL");
			html_text(out, o->why ? o->why : d);
			strbuf_addstr(out, "</li>");
			free(d);
		}
		strbuf_addstr(out, "</ul></div>\n");
	}
}

static void section_measures(struct strbuf *out, const struct report_input *in)
{
	const struct results *c = in->cand, *b = in->base;
	const struct subset_cmp *all = in->cmp && in->cmp->nr_subsets ? &in->cmp->subsets[0] : NULL;

	strbuf_addstr(out, "<section id=\"measures\"><h2>Measures</h2>\n"
			   "<table class=\"num\"><thead><tr><th>measure</th>");
	if (b)
		strbuf_addstr(out, "<th>baseline</th>");
	strbuf_addstr(out, "<th>candidate</th>");
	if (all)
		strbuf_addstr(out, "<th>delta</th><th>95% CI</th><th>p (Holm)</th>");
	strbuf_addstr(out, "</tr></thead><tbody>\n");
	for (size_t j = 0; j < c->nr_measures; j++) {
		long bj = b ? results_measure(b, c->measures[j]) : -1;
		long cj = in->cmp ? compare_measure(in->cmp, c->measures[j]) : -1;

		strbuf_addstr(out, "<tr");
		html_attr(out, "data-measure", c->measures[j]);
		strbuf_addstr(out, "><th>");
		html_text(out, c->measures[j]);
		strbuf_addstr(out, "</th>");
		if (b)
			td_num(out, bj >= 0 ? b->aggregate[bj] : NAN);
		td_num(out, c->aggregate[j]);
		if (all) {
			const struct measure_cmp *m = cj >= 0 ? &all->m[cj] : NULL;
			strbuf_addstr(out, "<td class=\"n\">");
			signed_num(out, m ? m->delta : NAN);
			strbuf_addstr(out, "</td><td class=\"n\">");
			if (m) {
				strbuf_addstr(out, "[");
				signed_num(out, m->ci_lo);
				strbuf_addstr(out, ", ");
				signed_num(out, m->ci_hi);
				strbuf_addstr(out, "]");
			}
			strbuf_addstr(out, "</td><td class=\"n\">");
			if (m && !isnan(m->p_adj))
				strbuf_addf(out, "%.4f", m->p_adj);
			strbuf_addstr(out, "</td>");
		}
		strbuf_addstr(out, "</tr>\n");
	}
	strbuf_addstr(out, "</tbody></table></section>\n");
}

/* Fill 'y[0..REPORT_CURVE_MAX)' with the mean R@k, k = 1.., over the
 * answerable questions of 'r'. */
static void recall_curve(const struct results *r, double *y)
{
	size_t n = count_answerable(r);

	for (int k = 1; k <= REPORT_CURVE_MAX; k++) {
		double sum = 0;
		for (size_t i = 0; i < r->nr; i++) {
			const struct question_result *q = &r->q[i];
			size_t hit = 0;
			if (!q->answerable || q->num_rel <= 0)
				continue;
			while (hit < q->nr_rel_ranks && q->rel_ranks[hit] <= k)
				hit++;
			sum += (double)hit / (double)q->num_rel;
		}
		y[k - 1] = n ? sum / (double)n : NAN;
	}
}

static void section_curves(struct strbuf *out, const struct report_input *in, int k)
{
	double x[REPORT_CURVE_MAX], yc[REPORT_CURVE_MAX], yb[REPORT_CURVE_MAX];
	struct svg_series s[2];
	size_t n = 0;
	char mark[32];
	struct svg_line_chart c = { "chart-recall", "Recall at k (R@k), k = 1 to 100",
				    "k (log scale)", "mean R@k over answerable questions",
				    true, 1, REPORT_CURVE_MAX, 0, 1, s, 0, k, mark, 0, 0 };

	for (int i = 0; i < REPORT_CURVE_MAX; i++)
		x[i] = i + 1;
	recall_curve(in->cand, yc);
	s[n++] = (struct svg_series){ run_label(in->cand), x, yc, REPORT_CURVE_MAX, 0, false };
	if (in->base) {
		recall_curve(in->base, yb);
		s[n++] = (struct svg_series){ run_label(in->base), x, yb, REPORT_CURVE_MAX, 1, true };
	}
	c.nr_series = n;
	snprintf(mark, sizeof(mark), "context size k = %d", k);
	strbuf_addstr(out, "<section id=\"curves\"><h2>Recall by depth</h2>\n<figure>");
	svg_line_chart(out, &c);
	strbuf_addf(out, "<figcaption>Candidate R@%d = %.4f", k, yc[k - 1]);
	if (in->base)
		strbuf_addf(out, ", baseline R@%d = %.4f", k, yb[k - 1]);
	strbuf_addstr(out, ". Questions with fewer results than k keep their recall.</figcaption>"
			   "</figure></section>\n");
}

static void section_forest(struct strbuf *out, const struct report_input *in)
{
	const struct compare *cmp = in->cmp;
	const struct subset_cmp *all;
	struct svg_forest_row *rows;
	char **notes;
	char title[160];
	struct svg_forest f;

	if (!cmp || !cmp->nr_subsets)
		return;
	all = &cmp->subsets[0];
	rows = xcalloc(cmp->nr_measures, sizeof(*rows));
	notes = xcalloc(cmp->nr_measures, sizeof(*notes));
	for (size_t j = 0; j < cmp->nr_measures; j++) {
		const struct measure_cmp *m = &all->m[j];
		bool sig = !isnan(m->p_adj) && m->p_adj < 0.05 && !m->too_small;
		notes[j] = isnan(m->p_adj) ? NULL
			 : m->too_small ? xstrfmt("p=%.3f, n<%d", m->p_adj, COMPARE_MIN_N)
			 : xstrfmt("p=%.3f", m->p_adj);
		rows[j] = (struct svg_forest_row){ cmp->measures[j], m->delta, m->ci_lo, m->ci_hi,
						   sig ? (m->delta > 0 ? 1 : -1) : 0, notes[j] };
	}
	snprintf(title, sizeof(title), "Candidate minus baseline, %.0f%% bootstrap CI (%ld resamples)",
		 cmp->level * 100, cmp->resamples);
	f = (struct svg_forest){ "chart-forest", title, "delta (candidate - baseline)", rows,
				 cmp->nr_measures, 0 };
	strbuf_addstr(out, "<section id=\"deltas\"><h2>Deltas</h2>\n<figure>");
	svg_forest(out, &f);
	strbuf_addstr(out, "<figcaption>Green: significantly better, red: significantly worse "
			   "(Holm-adjusted randomisation p &lt; 0.05). Decline is over the "
			   "unanswerable questions, every other measure over the answerable ones."
			   "</figcaption></figure></section>\n");
	for (size_t j = 0; j < cmp->nr_measures; j++)
		free(notes[j]);
	free(notes);
	free(rows);
}

/* Return the mean of measure 'measure' over the answerable questions of 'r'
 * that 'match' accepts (NAN when none or the measure is missing). */
static double subset_mean(const struct results *r, const char *measure,
			  bool (*match)(const struct question_result *, const char *), const char *arg)
{
	long j = results_measure(r, measure);
	double sum = 0;
	size_t n = 0;

	if (j < 0)
		return NAN;
	for (size_t i = 0; i < r->nr; i++) {
		const struct question_result *q = &r->q[i];
		if (!q->answerable || !match(q, arg) || isnan(q->values[j]))
			continue;
		sum += q->values[j];
		n++;
	}
	return n ? sum / (double)n : NAN;
}

static bool match_all(const struct question_result *q, const char *arg)
{
	(void)q; (void)arg;
	return true;
}

static bool match_origin(const struct question_result *q, const char *arg)
{
	const char *o = q->origin && *q->origin ? q->origin : "hand";
	return !strcmp(o, arg);
}

static bool match_tag(const struct question_result *q, const char *arg)
{
	for (size_t i = 0; i < q->nr_tags; i++)
		if (!strcmp(q->tags[i], arg))
			return true;
	return false;
}

static double decline_share(const struct results *r)
{
	size_t n = 0, d = 0;
	for (size_t i = 0; i < r->nr; i++) {
		if (r->q[i].answerable)
			continue;
		n++;
		d += r->q[i].declined;
	}
	return n ? (double)d / (double)n : NAN;
}

struct groups {
	struct svg_bar_group *groups;
	double *values;       /* two per group: baseline, candidate (or candidate alone) */
	char **labels;
	bool baseline;
};

/* Add a group 'label' (taken) at index 'n' unless the candidate has no value
 * there ('label' is then freed). Return the new number of groups. */
static size_t add_group(struct groups *g, size_t n, char *label, double cand, double base)
{
	if (isnan(cand)) {
		free(label);
		return n;
	}
	g->labels[n] = label;
	g->values[n * 2 + (g->baseline ? 1 : 0)] = cand;
	if (g->baseline)
		g->values[n * 2] = base;
	g->groups[n] = (struct svg_bar_group){ label, g->values + n * 2 };
	return n + 1;
}

static void section_subsets(struct strbuf *out, const struct report_input *in, int k)
{
	static const char *const origins[] = { "synthetic", "mined", "hand" };
	const struct results *c = in->cand, *b = in->base;
	char *measure = xstrfmt("R@%d", k);
	struct svg_bar_group *groups;
	double *values;
	char **labels;
	size_t nr_tags, n = 0, max, ns = b ? 2 : 1;
	struct tag_count *tags = set_tags(in->set, &nr_tags);
	const char *series[2];
	size_t colors[2];
	char title[96];
	struct svg_bars bars;
	struct groups g;

	if (results_measure(c, measure) < 0) {
		free(measure);
		measure = xstrdup(c->nr_measures ? c->measures[0] : "R@5");
	}
	if (nr_tags > MAX_TAG_GROUPS)
		nr_tags = MAX_TAG_GROUPS;
	max = 1 + ARRAY_SIZE(origins) + nr_tags + 1;
	groups = xcalloc(max, sizeof(*groups));
	values = xcalloc(max * 2, sizeof(*values));
	labels = xcalloc(max, sizeof(*labels));
#define ADD_GROUP(label, fn, arg) \
	n = add_group(&g, n, (label), subset_mean(c, measure, fn, arg), \
		      b ? subset_mean(b, measure, fn, arg) : NAN)
	g = (struct groups){ groups, values, labels, b != NULL };
	if (b) {
		series[0] = run_label(b); colors[0] = 1;
		series[1] = run_label(c); colors[1] = 0;
	} else {
		series[0] = run_label(c); colors[0] = 0;
	}
	ADD_GROUP(xstrdup("all answerable"), match_all, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(origins); i++)
		ADD_GROUP(xstrfmt("origin=%s", origins[i]), match_origin, origins[i]);
	for (size_t i = 0; i < nr_tags; i++)
		ADD_GROUP(xstrfmt("tag=%s", tags[i].tag), match_tag, tags[i].tag);
#undef ADD_GROUP
	n = add_group(&g, n, xstrdup("unanswerable: Decline"), decline_share(c),
		      b ? decline_share(b) : NAN);
	snprintf(title, sizeof(title), "%s by subset (Decline for the unanswerable)", measure);
	bars = (struct svg_bars){ "chart-subsets", title, "mean over the subset's questions",
				  series, ns, colors, groups, n, 1, 0 };
	strbuf_addstr(out, "<section id=\"subsets\"><h2>Subsets</h2>\n<figure>");
	svg_bars(out, &bars);
	strbuf_addstr(out, "</figure></section>\n");
	for (size_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(values);
	free(groups);
	free(tags);
	free(measure);
}

/* Count 'r''s answerable questions found in the top k, found only in
 * (k, K], and not found in the top K. */
static void find_rank(const struct results *r, int k, size_t out[3])
{
	long depth = r->depth > 0 ? r->depth : 50;

	out[0] = out[1] = out[2] = 0;
	for (size_t i = 0; i < r->nr; i++) {
		long f = first_rel(&r->q[i]);
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

static void section_find_rank(struct strbuf *out, const struct report_input *in, int k)
{
	const struct results *runs[2] = { in->base, in->cand };
	const char *rows[2];
	double values[6];
	size_t nr_rows = 0, cnt[3], total;
	char p1[48], p2[48];
	const char *parts[3] = { "found in the top k", p1, p2 };
	size_t colors[3] = { 2, 1, 3 };
	struct svg_stacked st;
	long depth = in->cand->depth > 0 ? in->cand->depth : 50;

	snprintf(p1, sizeof(p1), "found at ranks %d to %ld", k + 1, depth);
	snprintf(p2, sizeof(p2), "not found in the top %ld", depth);
	for (size_t i = 0; i < 2; i++) {
		if (!runs[i])
			continue;
		find_rank(runs[i], k, cnt);
		total = cnt[0] + cnt[1] + cnt[2];
		for (size_t j = 0; j < 3; j++)
			values[nr_rows * 3 + j] = total ? (double)cnt[j] / (double)total : NAN;
		rows[nr_rows++] = run_label(runs[i]);
	}
	st = (struct svg_stacked){ "chart-findrank", "Find versus rank", parts, colors, 3,
				   rows, values, nr_rows, 1, 0 };
	strbuf_addstr(out, "<section id=\"findrank\"><h2>Find versus rank</h2>\n<figure>");
	svg_stacked(out, &st);
	find_rank(in->cand, k, cnt);
	strbuf_addstr(out, "<figcaption id=\"diagnosis\">");
	if (!cnt[1] && !cnt[2])
		strbuf_addf(out, "Every answerable question has a relevant chunk in the top %d.", k);
	else if (cnt[1] > cnt[2])
		strbuf_addf(out, "Most misses (%zu of %zu) are found but ranked low (ranks %d to %ld): "
			    "a reranking problem.", cnt[1], cnt[1] + cnt[2], k + 1, depth);
	else
		strbuf_addf(out, "Most misses (%zu of %zu) are not found in the top %ld: a chunking, "
			    "embedding or recall problem.", cnt[2], cnt[1] + cnt[2], depth);
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
			if (len > SNIPPET_BYTES) {
				cut = SNIPPET_BYTES;
				while (cut > 0 && ((unsigned char)ch->text[cut] & 0xC0) == 0x80)
					cut--;
			}
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

static void section_questions(struct strbuf *out, const struct report_input *in, int k)
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
		long a = first_rel(q), b = first_rel(bq);
		if (q->answerable && !(a > 0 && a <= k) && !(b > 0 && b <= k))
			never++;
	}
	snprintf(explain, sizeof(explain), in->base ? "No relevant chunk in the top %d of either run."
						    : "No relevant chunk in the top %d.", k);
	table_head(out, in, "never", "Never found", never, explain);
	for (size_t i = 0; i < in->cand->nr; i++) {
		const struct question_result *q = &in->cand->q[i];
		const struct question_result *bq = in->base ? results_find(in->base, q->id) : NULL;
		long a = first_rel(q), b = first_rel(bq);
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

static void section_decline(struct strbuf *out, const struct report_input *in, int k)
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
		strbuf_addstr(out, "<tr><th>");
		html_text(out, run_label(runs[i]));
		strbuf_addstr(out, "</th>");
		td_num(out, runs[i]->decline);
		td_num(out, runs[i]->false_decline);
		td_num(out, share);
		strbuf_addf(out, "<td class=\"n\">%zu</td></tr>\n", unj);
	}
	strbuf_addf(out, "</tbody></table><p class=\"explain\">Decline: share of the %ld unanswerable "
		    "questions the run declined on (abstained or returned nothing). FalseDecline: "
		    "share of the %ld answerable questions it declined on. Judged@%d: share of the top "
		    "%d positions holding a labelled chunk; unjudged chunks count as not relevant, so a "
		    "low Judged@k means the set may under-rate this run.</p></section>\n",
		    in->cand->nr_unanswerable, in->cand->nr_answerable, jk, jk);
}

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

static void cutoff_row(struct strbuf *out, const char *row, const double v[5])
{
	for (size_t m = 0; m < 5; m++)
		strbuf_addf(out, "<td class=\"n\"><output id=\"%s-%s\" data-value=\"%.17g\">%.4f"
			    "</output></td>", row, cutoff_keys[m], v[m], v[m]);
}

static void section_slider(struct strbuf *out, const struct report_input *in, int k,
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
	html_text(out, run_label(in->cand));
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
		size_t len = strlen(text), cut = len > 70 ? 70 : len;
		while (cut < len && cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80)
			cut--;
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

static const char page_css[] =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;"
	"max-width:1000px;margin:0 auto;padding:1em 1.5em;background:#fff}"
	"h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;border-bottom:1px solid #ccc;"
	"padding-bottom:.2em;margin-top:1.6em}h3{font-size:1.05em;margin-bottom:.2em}"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1em;margin:.5em 0}"
	"dl.facts dt{font-weight:600;color:#555}dl.facts dd{margin:0}"
	"code{font-size:.9em}code.small{font-size:.75em;color:#666;word-break:break-all}"
	"table{border-collapse:collapse;margin:.5em 0;width:100%}"
	"th,td{border-bottom:1px solid #e3e3e3;padding:.25em .5em;text-align:left;vertical-align:top}"
	"td.n,table.num td{text-align:right;font-variant-numeric:tabular-nums}"
	"thead th{background:#f3f3f3}td:first-child code{white-space:nowrap}td.qtext{max-width:28em}td.chunk{font-size:.85em;max-width:24em}"
	".snippet{color:#555}.explain{color:#555;font-size:.9em;margin:.2em 0 .6em}"
	"figure{margin:.5em 0}figure svg{width:100%;height:auto;max-width:760px;display:block}"
	"figcaption{font-size:.9em;color:#444}"
	".verdict{padding:.6em 1em;border-radius:4px;margin:1em 0}.verdict ul{margin:.3em 0 0}"
	".verdict.pass{background:#e6f4ea;border:1px solid #009E73}"
	".verdict.fail{background:#fdecea;border:1px solid #D55E00}"
	"li.fail b{color:#b3400a}.warn{background:#fff4d6;padding:.4em .8em}"
	".slider input{width:min(420px,70%);vertical-align:middle}#k-value{font-weight:700}"
	"ol.ranked{columns:2;font-size:.9em;padding-left:2.2em}ol.ranked li.rel{color:#005a8c}"
	"ol.ranked li.cut{opacity:.4}select{max-width:30em}"
	"footer{margin-top:2em;color:#777;font-size:.85em}"
	"@media print{body{max-width:none;font-size:11pt}.slider input,select{display:none}"
	"section,figure,tr{break-inside:avoid}a{color:inherit}}\n";

/* The slider: recompute the five measures with the arithmetic of
 * report_cutoff_measures, write with textContent only. */
static const char page_js[] =
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

int report_render(const struct report_input *in, struct strbuf *out)
{
	int k = in->k > 0 ? in->k : in->cand->k;
	struct slider_q *qs = NULL;
	size_t nr = 0, chosen = 0;
	bool have_chosen = false;

	if (k < 1 || k > REPORT_SLIDER_MAX)
		return error("context size k = %d out of range for the report (1 to %d)",
			     k, REPORT_SLIDER_MAX);
	qs = xcalloc(in->cand->nr ? in->cand->nr : 1, sizeof(*qs));
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
	if (!nr) {
		free(qs);
		return error("no answerable question in the results of '%s'", run_label(in->cand));
	}

	strbuf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			   "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
			   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			   "<link rel=\"icon\" href=\"data:,\">\n<title>evalset report: ");
	html_text(out, in->set_label ? in->set_label : in->set->name);
	strbuf_addstr(out, "</title>\n<style>");
	strbuf_addstr(out, page_css);
	strbuf_addstr(out, "</style></head>\n<body>\n");
	section_headline(out, in, k);
	section_measures(out, in);
	section_curves(out, in, k);
	section_forest(out, in);
	section_subsets(out, in, k);
	section_find_rank(out, in, k);
	section_slider(out, in, k, qs, nr, chosen);
	section_questions(out, in, k);
	section_decline(out, in, k);
	strbuf_addstr(out, "<footer>Made by evalset");
	if (in->generated_at) {
		strbuf_addstr(out, " at ");
		html_text(out, in->generated_at);
	}
	strbuf_addstr(out, ". Self-contained: no network, no external scripts or fonts.</footer>\n"
			   "<script>");
	strbuf_addstr(out, page_js);
	strbuf_addstr(out, "</script>\n</body></html>\n");
	free(qs);
	return 0;
}
