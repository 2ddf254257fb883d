/*
 * report: render the HTML report (see report.h for the contract and the
 * definitions of every number computed here).
 *
 * The page is built top to bottom into one strbuf; each section is one
 * function, called in page order by report_render: the sections about
 * averages are here, the per-question ones in report-questions.c, the k
 * slider in report-slider.c; what they share is in report-cells.c. None of
 * them calls back into this file. Text from the
 * set, the runs and the corpus only ever reaches the page through
 * html_text/html_attr (markup) or html_script_json (the slider's data
 * block); the script writes to the page with textContent only.
 */
#include "report/report.h"
#include "report/report-cells.h"
#include "report/report-questions.h"
#include "report/report-slider.h"
#include "compare/compare.h"
#include "base/error.h"
#include "compare/gate.h"
#include "base/digest.h"
#include "base/html.h"
#include "score/results.h"
#include "set/set.h"
#include "report/svg.h"
#include "base/util.h"

#include "report-script-data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TAG_GROUPS 12

/* Add the definition-list row 'what' naming the run of 'r' and its digest. */
static void add_run_row(struct strbuf *out, const char *what, const struct results *r)
{
	strbuf_addf(out, "<dt>%s</dt><dd>", what);
	html_text(out, report_run_label(r));
	if (r->run_ranked_by) {
		strbuf_addstr(out, ", ranked by ");
		html_text(out, r->run_ranked_by);
	}
	if (r->run_sha256) {
		strbuf_addstr(out, " <code class=\"small\">");
		html_text(out, r->run_sha256);
		strbuf_addstr(out, "</code>");
	}
	strbuf_addstr(out, "</dd>");
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

/* Order tags by question count, most used first, then by name. */
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

/* Append the header: set, digest, size, composition, runs and the gate verdict. */
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
	html_text(out, report_run_label(in->cand));
	if (in->base) {
		strbuf_addstr(out, " vs ");
		html_text(out, report_run_label(in->base));
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
	strbuf_addstr(out, "</dd>");
	add_run_row(out, "Candidate", in->cand);
	if (in->base)
		add_run_row(out, "Baseline", in->base);
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
		strbuf_addf(out, " (%zu rules, %d failed, alpha %g", GATE_OUTCOMES(in->gate),
			    in->nr_failed, in->gate->alpha);
		if (in->gate->file) {
			strbuf_addstr(out, ", ");
			html_text(out, in->gate->file);
		}
		strbuf_addstr(out, ")<ul>");
		for (size_t i = 0; i < GATE_OUTCOMES(in->gate); i++) {
			const struct gate_outcome *o = &in->outcomes[i];
			struct strbuf change = STRBUF_INIT;

			/* headline first, as compare prints it: what, the change, the verdict */
			strbuf_addf(out, "<li class=\"%s\">", o->pass ? "pass" : "fail");
			html_text(out, o->what);
			gate_outcome_change(o, "→", &change);
			strbuf_addch(out, ' ');
			html_text(out, change.buf);
			strbuf_addf(out, " <b>%s</b> ", o->pass ? "pass" : "FAIL");
			html_text(out, o->why);
			strbuf_addstr(out, "</li>");
			strbuf_release(&change);
		}
		strbuf_addstr(out, "</ul></div>\n");
	}
}

/* Append the table of every measure, with deltas when compared. */
static void section_measures(struct strbuf *out, const struct report_input *in)
{
	const struct results *c = in->cand, *b = in->base;
	const struct subset_cmp *all = in->cmp && in->cmp->nr_subsets ? &in->cmp->subsets[0] : NULL;

	strbuf_addstr(out, "<section id=\"measures\"><h2>Measures</h2>\n"
			   "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"measures\">"
			   "<table class=\"num\"><thead><tr><th>measure</th>");
	if (b)
		strbuf_addstr(out, "<th>baseline</th>");
	strbuf_addstr(out, "<th>candidate</th>");
	if (all)
		strbuf_addstr(out, "<th>delta</th><th>95% CI</th><th>p (unadjusted)</th>");
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
			report_td_num(out, bj >= 0 ? b->aggregate[bj] : NAN);
		report_td_num(out, c->aggregate[j]);
		if (all) {
			const struct measure_cmp *m = cj >= 0 ? &all->m[cj] : NULL;
			strbuf_addstr(out, "<td class=\"n\">");
			report_signed_num(out, m ? m->delta : NAN);
			strbuf_addstr(out, "</td><td class=\"n\">");
			if (m) {
				strbuf_addstr(out, "[");
				report_signed_num(out, m->ci_lo);
				strbuf_addstr(out, ", ");
				report_signed_num(out, m->ci_hi);
				strbuf_addstr(out, "]");
			}
			strbuf_addstr(out, "</td><td class=\"n\">");
			if (m && !isnan(m->p))
				strbuf_addf(out, "%.4f", m->p);
			strbuf_addstr(out, "</td>");
		}
		strbuf_addstr(out, "</tr>\n");
	}
	strbuf_addstr(out, "</tbody></table></div></section>\n");
}

/* Return R@k of one answerable question from its relevant ranks. */
static double question_recall(const struct question_result *q, int k)
{
	size_t hit = 0;

	if (q->num_rel <= 0)
		return 0;
	while (hit < q->nr_rel_ranks && q->rel_ranks[hit] <= k)
		hit++;
	return (double)hit / (double)q->num_rel;
}

/* Fill 'y[0..REPORT_CURVE_MAX)' with the mean R@k, k = 1.., over the
 * answerable questions of 'r'. */
static void recall_curve(const struct results *r, double *y)
{
	size_t n = count_answerable(r);

	for (int k = 1; k <= REPORT_CURVE_MAX; k++) {
		double sum = 0;
		for (size_t i = 0; i < r->nr; i++)
			if (r->q[i].answerable)
				sum += question_recall(&r->q[i], k);
		y[k - 1] = n ? sum / (double)n : NAN;
	}
}

/* Append the R@k curves, k = 1..100 on a log axis, with k marked. */
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
	s[n++] = (struct svg_series){ "candidate", x, yc, REPORT_CURVE_MAX, 0, false };
	if (in->base) {
		recall_curve(in->base, yb);
		s[n++] = (struct svg_series){ "baseline", x, yb, REPORT_CURVE_MAX, 1, true };
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

/* Append the forest plot of the deltas and their CIs (comparison only). */
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
		bool sig = !isnan(m->p) && m->p < 0.05;
		int better = compare_lower_is_better(cmp->measures[j]) ? -1 : 1;
		notes[j] = isnan(m->p) ? NULL : xstrfmt("p=%.3f", m->p);
		rows[j] = (struct svg_forest_row){ cmp->measures[j], m->delta, m->ci_lo, m->ci_hi,
						   sig ? (m->delta * better > 0 ? 1 : -1) : 0, notes[j] };
	}
	snprintf(title, sizeof(title), "Candidate minus baseline, %.0f%% bootstrap CI (%ld resamples)",
		 cmp->level * 100, cmp->resamples);
	f = (struct svg_forest){ "chart-forest", title, "delta (candidate - baseline)", rows,
				 cmp->nr_measures, 0 };
	strbuf_addstr(out, "<section id=\"deltas\"><h2>Deltas</h2>\n<figure>");
	svg_forest(out, &f);
	strbuf_addstr(out, "<figcaption>Green: significantly better, red: significantly worse "
			   "(two-sided randomisation p &lt; 0.05 per measure, unadjusted: informational; the "
			   "gate's verdict comes from its own tests). Decline is over the "
			   "unanswerable questions, every other measure over the answerable ones."
			   "</figcaption></figure></section>\n");
	for (size_t j = 0; j < cmp->nr_measures; j++)
		free(notes[j]);
	free(notes);
	free(rows);
}

/* Return the mean R@k over the answerable questions of 'r' that 'match'
 * accepts (NAN when there are none); their number into '*count' when not NULL. */
static double subset_mean(const struct results *r, int k,
			  bool (*match)(const struct question_result *, const char *), const char *arg,
			  size_t *count)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < r->nr; i++) {
		const struct question_result *q = &r->q[i];
		if (!q->answerable || !match(q, arg))
			continue;
		sum += question_recall(q, k);
		n++;
	}
	if (count)
		*count = n;
	return n ? sum / (double)n : NAN;
}

/* Accept every question (the "all answerable" subset). */
static bool match_all(const struct question_result *q, const char *arg)
{
	(void)q; (void)arg;
	return true;
}

/* Accept questions of origin 'arg' (no origin counts as hand). */
static bool match_origin(const struct question_result *q, const char *arg)
{
	const char *o = q->origin && *q->origin ? q->origin : "hand";
	return !strcmp(o, arg);
}

/* Accept questions tagged 'arg'. */
static bool match_tag(const struct question_result *q, const char *arg)
{
	for (size_t i = 0; i < q->nr_tags; i++)
		if (!strcmp(q->tags[i], arg))
			return true;
	return false;
}

/* Return the share of unanswerable questions declined (NAN when none);
 * their number into '*count' when not NULL. */
static double decline_share(const struct results *r, size_t *count)
{
	size_t n = 0, d = 0;
	for (size_t i = 0; i < r->nr; i++) {
		if (r->q[i].answerable)
			continue;
		n++;
		d += r->q[i].declined;
	}
	if (count)
		*count = n;
	return n ? (double)d / (double)n : NAN;
}

struct groups {
	struct svg_bar_group *groups;
	double *values;       /* two per group: baseline, candidate (or candidate alone) */
	char **labels;
	bool baseline;
};

/* Add a group 'label' (taken) of 'count' questions at index 'n' unless the
 * candidate has no value there ('label' is then freed). Return the new
 * number of groups. */
static size_t add_group(struct groups *g, size_t n, char *label, double cand, double base,
			size_t count)
{
	if (isnan(cand)) {
		free(label);
		return n;
	}
	g->labels[n] = label;
	g->values[n * 2 + (g->baseline ? 1 : 0)] = cand;
	if (g->baseline)
		g->values[n * 2] = base;
	g->groups[n] = (struct svg_bar_group){ label, g->values + n * 2, (long)count };
	return n + 1;
}

/* Append the per-subset bars: R@k per origin and tag, Decline. */
static void section_subsets(struct strbuf *out, const struct report_input *in, int k)
{
	static const char *const origins[] = { "synthetic", "mined", "hand" };
	const struct results *c = in->cand, *b = in->base;
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
	size_t count = 0;
	double value;

	if (nr_tags > MAX_TAG_GROUPS)
		nr_tags = MAX_TAG_GROUPS;
	max = 1 + ARRAY_SIZE(origins) + nr_tags + 1;
	groups = xcalloc(max, sizeof(*groups));
	values = xcalloc(max * 2, sizeof(*values));
	labels = xcalloc(max, sizeof(*labels));
#define ADD_GROUP(label, fn, arg) do { \
		double cv = subset_mean(c, k, fn, arg, &count); \
		n = add_group(&g, n, (label), cv, b ? subset_mean(b, k, fn, arg, NULL) : NAN, count); \
	} while (0)
	g = (struct groups){ groups, values, labels, b != NULL };
	if (b) {
		series[0] = "baseline"; colors[0] = 1;
		series[1] = "candidate"; colors[1] = 0;
	} else {
		series[0] = "candidate"; colors[0] = 0;
	}
	ADD_GROUP(xstrdup("all answerable"), match_all, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(origins); i++)
		ADD_GROUP(xstrfmt("origin=%s", origins[i]), match_origin, origins[i]);
	for (size_t i = 0; i < nr_tags; i++)
		ADD_GROUP(xstrfmt("tag=%s", tags[i].tag), match_tag, tags[i].tag);
#undef ADD_GROUP
	value = decline_share(c, &count);
	n = add_group(&g, n, xstrdup("unanswerable: Decline"), value, b ? decline_share(b, NULL) : NAN,
		      count);
	snprintf(title, sizeof(title), "R@%d by subset (Decline for the unanswerable)", k);
	bars = (struct svg_bars){ "chart-subsets", title, "mean over the subset's n questions (the candidate's)",
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
}

static const char page_css[] =
	":root{--fg:#222;--bg:#fff;--muted:#555;--line:#e3e3e3;--head:#f3f3f3;--link:#005a8c;"
	"--warn:#fff4d6;--pass:#e6f4ea;--fail:#fdecea;--failtext:#b3400a;--btn:#f3f3f3;--focus:#1a5fb4}"
	"@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--bg:#161616;--muted:#b8b8b8;"
	"--line:#3a3a3a;--head:#262626;--link:#8cc8ff;--warn:#3d3418;--pass:#143323;--fail:#3d1d16;"
	"--failtext:#ffab8a;--btn:#2c2c2c;--focus:#8cc8ff}}"
	"html{color-scheme:light dark}"
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);"
	"max-width:1000px;margin:0 auto;padding:1em 1.5em;background:var(--bg);overflow-wrap:break-word}"
	"a{color:var(--link)}"
	"h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;border-bottom:1px solid var(--line);"
	"padding-bottom:.2em;margin-top:1.6em}h3{font-size:1.05em;margin-bottom:.2em}"
	"dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.15em 1em;margin:.5em 0}"
	"dl.facts dt{font-weight:600;color:var(--muted)}dl.facts dd{margin:0;min-width:0}dl.facts code{word-break:break-all}"
	"code{font-size:.9em}code.small{font-size:.75em;color:var(--muted);word-break:break-all}"
	"table{border-collapse:collapse;margin:.5em 0;width:100%}"
	".scroll{overflow-x:auto;max-width:100%}"
	"th,td{border-bottom:1px solid var(--line);padding:.25em .5em;text-align:left;vertical-align:top}"
	"td.n,table.num td{text-align:right;font-variant-numeric:tabular-nums}"
	"thead th{background:var(--head)}td.qtext{max-width:28em}td.chunk{font-size:.85em;max-width:22em}"
	".snippet,.subs{color:var(--muted)}.subs{font-size:.85em}"
	".explain{color:var(--muted);font-size:.9em;margin:.2em 0 .6em}"
	"figure{margin:.5em 0}figure svg{width:100%;height:auto;max-width:760px;display:block;"
	"background:#fff;color:#222;border-radius:4px}"
	"figcaption{font-size:.9em;color:var(--muted)}"
	".verdict{padding:.6em 1em;border-radius:4px;margin:1em 0}.verdict ul{margin:.3em 0 0}"
	".verdict.pass{background:var(--pass);border:1px solid #009E73}"
	".verdict.fail{background:var(--fail);border:1px solid #D55E00}"
	"li.fail b{color:var(--failtext)}.warn{background:var(--warn);padding:.4em .8em}"
	".slider input{width:min(420px,70%);vertical-align:middle}#k-value{font-weight:700}"
	".at-k{display:none}"
	"ol.ranked{columns:2;font-size:.9em;padding-left:2.2em}ol.ranked li.rel{color:var(--link)}"
	"ol.ranked li.cut{color:var(--muted);font-style:italic}"
	"button{font:inherit;color:var(--fg);background:var(--btn);border:1px solid var(--muted);"
	"border-radius:4px;padding:.15em .6em;cursor:pointer}button:disabled{cursor:default;opacity:.6}"
	"button.pick{font-family:ui-monospace,monospace;font-size:.9em;white-space:nowrap}"
	":focus-visible{outline:3px solid var(--focus);outline-offset:2px}"
	"input,select{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--muted);"
	"border-radius:4px;max-width:100%}"
	".controls{display:flex;flex-wrap:wrap;gap:.5em 1em;align-items:center;margin:.5em 0}"
	".controls input[type=search]{width:16em}.count{font-weight:600;margin:.3em 0}"
	"tr.lost td:nth-child(3){color:var(--failtext);font-weight:600}"
	".vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}"
	"footer{margin-top:2em;color:var(--muted);font-size:.85em}"
	/* narrow screens and 200% zoom: the question table's rows as blocks, no sideways scroll */
	"@media (max-width:760px){body{padding:.5em .8em}ol.ranked{columns:1}"
	"table.qt,table.qt tbody,table.qt tr,table.qt td{display:block;width:auto;max-width:none}"
	"table.qt thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}"
	"table.qt tr{border-bottom:2px solid var(--line);padding:.4em 0}"
	"table.qt td{border:0;padding:.1em 0;text-align:left}"
	"table.qt td[data-label]::before{content:attr(data-label) \": \";font-weight:600;color:var(--muted)}}"
	"@media print{body{max-width:none;font-size:11pt;color:#000;background:#fff}"
	".slider,.controls,.pager,p.nav{display:none}.at-k{display:block}"
	"button.pick{border:0;padding:0;background:none;color:#000}"
	"section,figure,tr{break-inside:avoid}a{color:inherit}}\n";

static int render(const struct report_input *in, struct strbuf *out)
{
	int k = in->k > 0 ? in->k : in->cand->k;
	char script_hash[45];

	if (k < 1 || k > REPORT_SLIDER_MAX)
		return error("context size k = %d out of range for the report (1 to %d)",
			     k, REPORT_SLIDER_MAX);
	if (!count_answerable(in->cand))
		return error("no answerable question in the results of '%s'", report_run_label(in->cand));

	/* the page's one script runs by its hash: an injected one cannot, whatever escaping missed */
	sha256_base64(report_script, strlen(report_script), script_hash);
	strbuf_addf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			   "style-src 'unsafe-inline'; script-src 'sha256-%s'; img-src data:\">\n", script_hash);
	strbuf_addstr(out, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			   "<link rel=\"icon\" href=\"data:,\">\n<title>evalset report: ");
	html_text(out, in->set_label ? in->set_label : in->set->name);
	strbuf_addstr(out, "</title>\n<style>");
	strbuf_addstr(out, page_css);
	strbuf_addstr(out, "</style></head>\n<body>\n");
	section_headline(out, in, k);
	strbuf_addstr(out, "<main>\n");
	report_leaks_section(out, in, k);
	section_measures(out, in);
	section_curves(out, in, k);
	section_forest(out, in);
	section_subsets(out, in, k);
	report_find_rank_section(out, in, k);
	report_slider_section(out, in, k, report_run_label(in->cand));
	report_questions_section(out, in, k);
	report_decline_section(out, in, k);
	strbuf_addstr(out, "</main>\n<footer>Made by evalset");
	if (in->generated_at) {
		strbuf_addstr(out, " at ");
		html_text(out, in->generated_at);
	}
	strbuf_addstr(out, ". Self-contained: no network, no external scripts or fonts.</footer>\n"
			   "<script>");
	strbuf_addstr(out, report_script);
	strbuf_addstr(out, "</script>\n</body></html>\n");
	return 0;
}

int report_render(const struct report_input *in, struct strbuf *out)
{
	struct report_input page = *in;
	struct set_lookup lk;
	int rc;

	if (in->by_id)
		return render(in, out);
	set_lookup_init(&lk, in->set);
	page.by_id = &lk;
	rc = render(&page, out);
	set_lookup_release(&lk);
	return rc;
}
