/*
 * compare-out: the renderers of a comparison (contract in compare-out.h).
 * Numbers show four decimals in tables; JSON carries full precision.
 */
#include "compare/compare-out.h"
#include "score/results.h"
#include "compare/compare.h"
#include "compare/gate.h"
#include "base/html.h"
#include "base/jsontree.h"
#include "base/table.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_WIDTH 72    /* characters of question text shown in the terminal */

#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"
#define C_OFF "\033[0m"

static const char *col(const struct compare_view *v, const char *code)
{
	return v->color ? code : "";
}

char *compare_set_change_note(const struct compare_view *v)
{
	const struct compare *c = v->c;
	struct strbuf sb = STRBUF_INIT;

	if (!c->set_changed && !v->set_note)
		return NULL;
	if (c->set_changed && c->base_digest && c->cand_digest &&
	    !strcmp(c->base_digest, c->cand_digest)) {
		/* one set version: questions left out for the runs' corpora (unjudged) */
		strbuf_addf(&sb, "questions left out: both sides scored on %s (%.19s); comparing %zu "
			    "questions, %zu left out", compare_version_name(c->base_version),
			    c->base_digest, c->nr_questions, c->nr_left_out);
		for (size_t i = 0; i < c->nr_left_out; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : ": ", c->left_out[i]);
	} else if (c->set_changed) {
		strbuf_addf(&sb, "set changed: baseline scored on %s (%s), candidate on %s (%s); "
			    "comparing the %zu questions whose text and answerability are unchanged; "
			    "%zu left out",
			    compare_version_name(c->base_version), c->base_digest ? c->base_digest : "no digest",
			    compare_version_name(c->cand_version), c->cand_digest ? c->cand_digest : "no digest",
			    c->nr_questions, c->nr_left_out);
		for (size_t i = 0; i < c->nr_left_out; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : ": ", c->left_out[i]);
	}
	if (v->set_note)
		strbuf_addf(&sb, "%s%s", sb.len ? "; " : "", v->set_note);
	return strbuf_detach(&sb, NULL);
}

static void add_fixed(struct strbuf *sb, double x, bool sign, int width)
{
	if (isnan(x))
		strbuf_addf(sb, "%*s", width, "-");
	else if (sign)
		strbuf_addf(sb, "%+*.4f", width, x);
	else
		strbuf_addf(sb, "%*.4f", width, x);
}

static void add_p(struct strbuf *sb, double p, int width)
{
	if (isnan(p))
		strbuf_addf(sb, "%*s", width, "-");
	else if (p < 0.0001)
		strbuf_addf(sb, "%*s", width, "<0.0001");
	else
		strbuf_addf(sb, "%*.4f", width, p);
}

static double alpha_of(const struct compare_view *v)
{
	return v->gate ? v->gate->alpha : 0.05;
}

/* ---- text ---- */

/* Return the status word of outcome 'o' ("pass", "FAIL"). */
static const char *status(const struct gate_outcome *o)
{
	return o->pass ? "pass" : "FAIL";
}

static size_t nr_outcomes(const struct compare_view *v)
{
	return v->gate ? GATE_OUTCOMES(v->gate) : 0;
}

/* Add where the verdict's settings came from: the gate, k and alpha. */
static void add_verdict_sources(const struct compare_view *v, struct strbuf *sb)
{
	const struct gate *g = v->gate;

	if (g->file)
		strbuf_addf(sb, "gate file '%s'%s%s", g->file, v->gate_source ? " from " : "",
			    v->gate_source ? v->gate_source : "");
	else
		strbuf_addf(sb, "default gate on R@%d", v->c->k);
	strbuf_addf(sb, "; k %d%s%s; alpha %g", v->c->k, v->k_source ? " from " : "",
		    v->k_source ? v->k_source : "", g->alpha);
}

char *compare_verdict(const struct compare_view *v)
{
	struct strbuf sb = STRBUF_INIT;

	if (!v->gate)
		return xstrdup("no gate");
	if (v->nr_failed)
		strbuf_addf(&sb, "gate FAILED: %d of %zu rules (", v->nr_failed, nr_outcomes(v));
	else
		strbuf_addf(&sb, "gate passed: %zu rules (", nr_outcomes(v));
	add_verdict_sources(v, &sb);
	strbuf_addch(&sb, ')');
	return strbuf_detach(&sb, NULL);
}

static void add_spread(struct strbuf *out, double spread)
{
	if (!isnan(spread))
		strbuf_addf(out, "±%.4f", spread);
}

/* Add the interval's column, named by its level ("95% CI"). */
static void add_ci_column(struct table *t, double level)
{
	char *name = xstrfmt("%g%% CI", level * 100);

	table_add_column(t, name, 0, 0, 0);
	free(name);
}

bool compare_short_measure(const struct compare_view *v, const char *measure)
{
	char rk[32], sk[32];

	if (v->all_measures)
		return true;
	snprintf(rk, sizeof(rk), "R@%d", v->c->k);
	snprintf(sk, sizeof(sk), "Success@%d", v->c->k);
	if (!strcmp(measure, rk) || !strcmp(measure, sk) || !strcmp(measure, "nDCG@10") ||
	    !strcmp(measure, "RR") || !strcmp(measure, COMPARE_DECLINE) ||
	    !strcmp(measure, COMPARE_FALSE_DECLINE))
		return true;
	/* a rule's measure as written, or as compared (Hit@k held as Success@k) */
	for (size_t i = 0; i < v->gate->nr; i++)
		if (!strcmp(measure, v->gate->rules[i].measure) ||
		    (i < v->c->nr_rules && !strcmp(measure, v->c->rules[i].measure)))
			return true;
	return false;
}

/* Return how many of the comparison's measures the short table leaves out. */
static size_t measures_hidden(const struct compare_view *v)
{
	size_t n = 0;

	for (size_t j = 0; j < v->c->nr_measures; j++)
		n += !compare_short_measure(v, v->c->measures[j]);
	return n;
}

/* Fill 't' with the rows of subset 's': the cells text and Markdown share
 * (text: a leading empty cell indents the row, spreads follow the means;
 * Markdown: the row's n, a delta with p < alpha in bold). */
static void subset_rows(const struct compare_view *v, const struct subset_cmp *s,
			struct table *t, bool markdown)
{
	const struct compare *c = v->c;

	for (size_t j = 0; j < c->nr_measures; j++) {
		const struct measure_cmp *m = &s->m[j];
		bool sig = markdown && m->p < alpha_of(v);
		struct strbuf sb = STRBUF_INIT;

		if (!m->n || !compare_short_measure(v, c->measures[j]))
			continue;
		if (!markdown)
			table_add(t, "");
		table_add(t, c->measures[j]);
		if (markdown)
			table_addf(t, "%zu", m->n);
		add_fixed(&sb, m->baseline, false, 0);
		if (!markdown)
			add_spread(&sb, m->base_spread);
		table_add(t, sb.buf);
		strbuf_reset(&sb);
		add_fixed(&sb, m->candidate, false, 0);
		if (!markdown)
			add_spread(&sb, m->cand_spread);
		table_add(t, sb.buf);
		strbuf_reset(&sb);
		strbuf_addstr(&sb, sig ? "**" : "");
		add_fixed(&sb, m->delta, true, 0);
		strbuf_addstr(&sb, sig ? "**" : "");
		table_add(t, sb.buf);
		table_addf(t, "[%+.4f, %+.4f]", m->ci_lo, m->ci_hi);
		strbuf_reset(&sb);
		add_p(&sb, m->p, 0);
		table_add(t, sb.buf);
		if (isnan(m->effect))
			table_add(t, "-");
		else
			table_addf(t, "%+.2f", m->effect);
		table_addf(t, "%zu/%zu/%zu", m->win, m->tie, m->loss);
		strbuf_release(&sb);
	}
}

static void text_subset(const struct compare_view *v, const struct subset_cmp *s, struct strbuf *out)
{
	struct table t;

	table_init(&t, TABLE_TEXT);
	table_add_column(&t, "", 0, 0, 0);
	table_add_column(&t, "measure", 0, 9, 0);
	table_add_column(&t, "baseline", TABLE_RIGHT, 9, 0);
	table_add_column(&t, "candidate", TABLE_RIGHT, 9, 0);
	table_add_column(&t, "delta", TABLE_RIGHT, 8, 0);
	add_ci_column(&t, v->c->level);
	table_add_column(&t, "p unadj.", TABLE_RIGHT, 8, 0);
	table_add_column(&t, "effect", TABLE_RIGHT, 6, 0);
	table_add_column(&t, "win/tie/loss", 0, 0, 0);
	subset_rows(v, s, &t, false);
	strbuf_addf(out, "\n%s%s%s: %zu questions\n", col(v, C_BOLD), s->label, col(v, C_OFF),
		    s->nr_questions);
	table_render(&t, out);
	table_release(&t);
}

/* Add the rank 'r' to 't' ("-" when nothing relevant was retrieved). */
static void table_add_rank(struct table *t, long r)
{
	if (r > 0)
		table_addf(t, "%ld", r);
	else
		table_add(t, "-");
}

static void text_changes(const struct compare_view *v, const char *what,
			 const struct question_change *q, size_t nr, struct strbuf *out)
{
	size_t shown = v->show < 0 ? nr : ((size_t)v->show < nr ? (size_t)v->show : nr);
	struct table t;

	strbuf_addf(out, "\n%s%s the top %d: %zu%s", col(v, C_BOLD), what, v->c->k, nr, col(v, C_OFF));
	if (shown < nr)
		strbuf_addf(out, " (showing %zu; --show N for more)", shown);
	strbuf_addch(out, '\n');
	if (!shown)
		return;
	/* the first relevant rank before and after; "-": none retrieved */
	table_init(&t, TABLE_TEXT);
	table_add_column(&t, "", 0, 0, 0);
	table_add_column(&t, "question", 0, 0, 0);
	table_add_column(&t, "rank before", TABLE_RIGHT, 0, 0);
	table_add_column(&t, "after", TABLE_RIGHT, 0, 0);
	table_add_column(&t, "text", 0, 0, TEXT_WIDTH);
	for (size_t i = 0; i < shown; i++) {
		table_add(&t, "");
		table_add(&t, q[i].id);
		table_add_rank(&t, q[i].rank_before);
		table_add_rank(&t, q[i].rank_after);
		table_add(&t, q[i].text ? q[i].text : "");
	}
	table_render(&t, out);
	table_release(&t);
}

/* Append the method line: how the table's and the gate's numbers came. */
static void add_method(const struct compare_view *v, struct strbuf *out)
{
	const struct compare *c = v->c;

	strbuf_addf(out, "%zu questions (%zu answerable, %zu unanswerable); missing: baseline %zu, "
		    "candidate %zu; runs: baseline %zu, candidate %zu (± run-to-run sd)\n",
		    c->nr_questions, c->nr_answerable, c->nr_unanswerable, c->missing_base,
		    c->missing_cand, c->nr_base_runs, c->nr_cand_runs);
	strbuf_addf(out, "table: %g%% CI from %ld bootstrap resamples (seed %" PRIu64 "); p two-sided "
		    "from %ld sign-flip permutations (seed %" PRIu64 "), per measure, unadjusted, "
		    "informational; effect = mean delta / sd of the deltas\n",
		    c->level * 100, c->resamples, c->boot_seed, c->permutations, c->perm_seed);
	if (v->gate)
		strbuf_addf(out, "gate: one-sided exact tests against each margin on losses rounded "
			    "to -1, 0 or +1 (seed %" PRIu64 "); Holm over the %zu drop rule%s; "
			    "valid at any n, no symmetry assumed\n", c->gate_seed, c->rules_family,
			    c->rules_family == 1 ? "" : "s");
}

void compare_render_text(const struct compare_view *v, struct strbuf *out)
{
	const struct compare *c = v->c;
	char *note = compare_set_change_note(v);
	char *verdict = compare_verdict(v);
	size_t hidden = 0;

	strbuf_addf(out, "%s%s%s\n", col(v, v->nr_failed ? C_RED : C_GREEN), verdict, col(v, C_OFF));
	for (size_t i = 0; i < nr_outcomes(v); i++) {
		const struct gate_outcome *o = &v->outcomes[i];

		/* headline first: what, the change and the verdict; then the test */
		strbuf_addf(out, "  %s ", o->what);
		gate_outcome_change(o, "->", out);
		strbuf_addf(out, " %s%s%s  %s\n", col(v, o->pass ? C_GREEN : C_RED), status(o),
			    col(v, C_OFF), o->why);
	}
	if (note)
		strbuf_addf(out, "%sWARNING: %s%s\n", col(v, C_RED), note, col(v, C_OFF));
	strbuf_addf(out, "\n%scompare %s%s (%s)\n", col(v, C_BOLD), v->set_label, col(v, C_OFF),
		    c->cand_digest ? c->cand_digest : "no digest");
	strbuf_addf(out, "baseline:  %s\ncandidate: %s\n", c->base_label, c->cand_label);
	add_method(v, out);
	for (size_t i = 0; i < c->nr_subsets; i++) {
		/* first turns and follow-ups are always shown: a retriever that
		 * loses follow-ups must be seen (docs/conversations.md) */
		if (i && !v->all_subsets && c->subsets[i].kind != SUBSET_TURN) {
			hidden++;
			continue;
		}
		text_subset(v, &c->subsets[i], out);
	}
	if (measures_hidden(v))
		strbuf_addf(out, "\n%zu more measures not shown (--all-measures or -m shows them; "
			    "--format json has every one)\n", measures_hidden(v));
	if (hidden)
		strbuf_addf(out, "%s%zu subsets not shown (--subsets shows them)\n",
			    measures_hidden(v) ? "" : "\n", hidden);
	text_changes(v, "lost from", c->lost, c->nr_lost, out);
	text_changes(v, "gained in", c->gained, c->nr_gained, out);
	if (note)
		strbuf_addf(out, "WARNING: %s\n", note);
	strbuf_addf(out, "%s%s%s\n", col(v, v->nr_failed ? C_RED : C_GREEN), verdict, col(v, C_OFF));
	free(verdict);
	free(note);
}

/* ---- JSON ---- */

static cJSON *json_changes(const struct question_change *q, size_t nr)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < nr; i++) {
		cJSON *o = cJSON_CreateObject();

		json_add_str_or_null(o, "id", q[i].id);
		json_add_str_or_null(o, "text", q[i].text);
		json_add_num_or_null(o, "rank_before", q[i].rank_before > 0 ? (double)q[i].rank_before : NAN);
		json_add_num_or_null(o, "rank_after", q[i].rank_after > 0 ? (double)q[i].rank_after : NAN);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* Add the leak rule's count and its leaking questions to 'ro'. */
static void json_leak_rule(const struct compare_view *v, cJSON *ro)
{
	const struct compare *c = v->c;
	cJSON *a;

	json_add_str_or_null(ro, "measure", "leak");
	json_add_str_or_null(ro, "method", "exact count");
	cJSON_AddNumberToObject(ro, "max_leak", (double)v->gate->max_leak);
	cJSON_AddNumberToObject(ro, "k", (double)c->leak_k);
	cJSON_AddNumberToObject(ro, "questions", (double)c->leak_forbidding);
	cJSON_AddNumberToObject(ro, "leaking", (double)c->nr_leaks);
	if (c->base_leaks_absent)
		cJSON_AddNullToObject(ro, "baseline_leaking");
	else
		cJSON_AddNumberToObject(ro, "baseline_leaking", (double)c->base_leaking);
	a = cJSON_AddArrayToObject(ro, "leaks");
	for (size_t i = 0; i < c->nr_leaks; i++) {
		cJSON *q = cJSON_CreateObject(), *h;

		cJSON_AddStringToObject(q, "id", c->leaks[i].id);
		if (c->base_leaks_absent)
			cJSON_AddNullToObject(q, "in_baseline");
		else
			cJSON_AddBoolToObject(q, "in_baseline", c->leaks[i].in_baseline);
		h = cJSON_AddArrayToObject(q, "leaked");
		for (size_t j = 0; j < c->leaks[i].nr; j++) {
			cJSON *x = cJSON_CreateObject();

			cJSON_AddNumberToObject(x, "rank", (double)c->leaks[i].hits[j].rank);
			cJSON_AddStringToObject(x, "chunk", c->leaks[i].hits[j].chunk);
			cJSON_AddStringToObject(x, "forbidden", c->leaks[i].hits[j].entry);
			cJSON_AddItemToArray(h, x);
		}
		cJSON_AddItemToArray(a, q);
	}
}

/* Add the verdict and every rule's test to 'root' as "gate". */
static void json_gate(const struct compare_view *v, cJSON *root)
{
	const struct compare *c = v->c;
	cJSON *g = cJSON_AddObjectToObject(root, "gate"), *rules;
	char *verdict = compare_verdict(v);

	json_add_str_or_null(g, "verdict", verdict);
	cJSON_AddBoolToObject(g, "passed", v->nr_failed == 0);
	cJSON_AddNumberToObject(g, "failed", v->nr_failed);
	json_add_str_or_null(g, "file", v->gate->file);
	cJSON_AddNumberToObject(g, "alpha", v->gate->alpha);
	cJSON_AddNumberToObject(g, "allow_missing", (double)v->gate->allow_missing);
	json_add_str_or_null(g, "source", v->gate_source);
	cJSON_AddNumberToObject(g, "k", c->k);
	json_add_str_or_null(g, "k_source", v->k_source);
	cJSON_AddNumberToObject(g, "drop_rules", (double)c->rules_family);
	rules = cJSON_AddArrayToObject(g, "rules");
	for (size_t i = 0; i < GATE_OUTCOMES(v->gate); i++) {
		const struct gate_outcome *o = &v->outcomes[i];
		cJSON *ro = cJSON_CreateObject();
		char *line;

		if (i < v->gate->nr) {
			const struct gate_rule *r = &v->gate->rules[i];
			const struct rule_cmp *rc = o->rc;

			json_add_str_or_null(ro, "measure", r->measure);
			json_add_str_or_null(ro, "subset", rc->subset_label);
			json_add_str_or_null(ro, "test", gate_test_name(r->test));
			json_add_str_or_null(ro, "method", r->test == TEST_NONE ? "threshold"
						    : rc->rounded ? "exact-rounded" : "exact");
			cJSON_AddNumberToObject(ro, r->rise ? "max_rise" : "max_drop", r->max_drop);
			cJSON_AddNumberToObject(ro, "n", (double)rc->n);
			json_add_num_or_null(ro, "baseline", rc->baseline);
			json_add_num_or_null(ro, "candidate", rc->candidate);
			json_add_num_or_null(ro, r->rise ? "rise" : "drop", rc->loss);
			json_add_num_or_null(ro, "p", rc->p);
			json_add_num_or_null(ro, "p_adj", rc->p_adj);
			json_add_num_or_null(ro, "level", rc->level);
			json_add_num_or_null(ro, r->test == TEST_NONINF ? "upper_bound" : "lower_bound", rc->bound);
			cJSON_AddNumberToObject(ro, "rounded", (double)rc->rounded);
			json_add_num_or_null(ro, "effect", rc->effect);
			cJSON_AddNumberToObject(ro, "win", (double)rc->win);
			cJSON_AddNumberToObject(ro, "tie", (double)rc->tie);
			cJSON_AddNumberToObject(ro, "loss", (double)rc->loss_n);
		} else if (i == GATE_COVERAGE(v->gate)) {
			json_add_str_or_null(ro, "measure", "coverage");
			cJSON_AddNumberToObject(ro, "allow_missing", (double)v->gate->allow_missing);
			cJSON_AddNumberToObject(ro, "missing", (double)c->missing_new);
		} else {
			json_leak_rule(v, ro);
		}
		cJSON_AddBoolToObject(ro, "pass", o->pass);
		json_add_str_or_null(ro, "why", o->why);
		line = gate_outcome_line(o);
		json_add_str_or_null(ro, "line", line);
		free(line);
		cJSON_AddItemToArray(rules, ro);
	}
	free(verdict);
}

void compare_render_json(const struct compare_view *v, struct strbuf *out)
{
	const struct compare *c = v->c;
	cJSON *root = cJSON_CreateObject(), *set, *subs, *a, *g;
	char *note = compare_set_change_note(v);

	cJSON_AddNumberToObject(root, "evalset_compare", 2);
	if (v->gate)
		json_gate(v, root);
	set = cJSON_AddObjectToObject(root, "set");
	json_add_str_or_null(set, "label", v->set_label);
	json_add_str_or_null(set, "name", c->set_name);
	json_add_str_or_null(set, "baseline_version", c->base_version);
	json_add_str_or_null(set, "candidate_version", c->cand_version);
	json_add_str_or_null(set, "baseline_digest", c->base_digest);
	json_add_str_or_null(set, "candidate_digest", c->cand_digest);
	cJSON_AddBoolToObject(set, "changed", note != NULL);
	json_add_str_or_null(set, "note", note);
	cJSON_AddNumberToObject(set, "questions", (double)c->nr_questions);
	cJSON_AddNumberToObject(set, "answerable", (double)c->nr_answerable);
	cJSON_AddNumberToObject(set, "unanswerable", (double)c->nr_unanswerable);
	cJSON_AddNumberToObject(set, "only_baseline", (double)c->nr_only_base);
	cJSON_AddNumberToObject(set, "only_candidate", (double)c->nr_only_cand);
	a = cJSON_AddArrayToObject(set, "left_out");
	for (size_t i = 0; i < c->nr_left_out; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(c->left_out[i]));
	g = cJSON_AddObjectToObject(root, "missing");
	cJSON_AddNumberToObject(g, "baseline", (double)c->missing_base);
	cJSON_AddNumberToObject(g, "candidate", (double)c->missing_cand);
	cJSON_AddNumberToObject(g, "candidate_only", (double)c->missing_new);
	cJSON_AddNumberToObject(root, "baseline_runs", (double)c->nr_base_runs);
	cJSON_AddNumberToObject(root, "candidate_runs", (double)c->nr_cand_runs);
	json_add_str_or_null(root, "baseline", c->base_label);
	json_add_str_or_null(root, "candidate", c->cand_label);
	cJSON_AddNumberToObject(root, "k", c->k);
	cJSON_AddNumberToObject(root, "level", c->level);
	cJSON_AddNumberToObject(root, "resamples", (double)c->resamples);
	cJSON_AddNumberToObject(root, "permutations", (double)c->permutations);
	cJSON_AddNumberToObject(root, "bootstrap_seed", (double)c->boot_seed);
	cJSON_AddNumberToObject(root, "permutation_seed", (double)c->perm_seed);
	cJSON_AddNumberToObject(root, "gate_seed", (double)c->gate_seed);
	cJSON_AddStringToObject(root, "p", "two-sided, per measure, unadjusted (informational)");
	a = cJSON_AddArrayToObject(root, "measures");
	for (size_t j = 0; j < c->nr_measures; j++)
		cJSON_AddItemToArray(a, cJSON_CreateString(c->measures[j]));
	subs = cJSON_AddArrayToObject(root, "subsets");
	for (size_t i = 0; i < c->nr_subsets; i++) {
		const struct subset_cmp *s = &c->subsets[i];
		cJSON *so = cJSON_CreateObject(), *ms;

		json_add_str_or_null(so, "subset", s->label);
		cJSON_AddNumberToObject(so, "questions", (double)s->nr_questions);
		ms = cJSON_AddObjectToObject(so, "measures");
		for (size_t j = 0; j < c->nr_measures; j++) {
			const struct measure_cmp *m = &s->m[j];
			cJSON *mo, *ci;

			if (!m->n)
				continue;
			mo = cJSON_AddObjectToObject(ms, c->measures[j]);
			cJSON_AddNumberToObject(mo, "n", (double)m->n);
			json_add_num_or_null(mo, "baseline", m->baseline);
			json_add_num_or_null(mo, "candidate", m->candidate);
			json_add_num_or_null(mo, "delta", m->delta);
			ci = cJSON_AddArrayToObject(mo, "ci");
			cJSON_AddItemToArray(ci, isnan(m->ci_lo) ? cJSON_CreateNull() : cJSON_CreateNumber(m->ci_lo));
			cJSON_AddItemToArray(ci, isnan(m->ci_hi) ? cJSON_CreateNull() : cJSON_CreateNumber(m->ci_hi));
			json_add_num_or_null(mo, "p", m->p);
			json_add_num_or_null(mo, "effect", m->effect);
			cJSON_AddNumberToObject(mo, "win", (double)m->win);
			cJSON_AddNumberToObject(mo, "tie", (double)m->tie);
			cJSON_AddNumberToObject(mo, "loss", (double)m->loss);
			json_add_num_or_null(mo, "baseline_spread", m->base_spread);
			json_add_num_or_null(mo, "candidate_spread", m->cand_spread);
		}
		cJSON_AddItemToArray(subs, so);
	}
	cJSON_AddItemToObject(root, "lost", json_changes(c->lost, c->nr_lost));
	cJSON_AddItemToObject(root, "gained", json_changes(c->gained, c->nr_gained));
	json_add_tree(out, root, true);
	free(note);
}

/* ---- Markdown ---- */

/* Append 's' fit for Markdown outside a table cell of base/table. */
static void md_cell(struct strbuf *sb, const char *s)
{
	table_md_text(sb, s, false);
}

static void md_subset(const struct compare_view *v, const struct subset_cmp *s, struct strbuf *out)
{
	static const char *const names[] = { "Measure", "n", "Baseline", "Candidate", "Δ", NULL,
					     "p (unadjusted)", "Effect", "Win/tie/loss" };
	struct table t;

	table_init(&t, TABLE_MARKDOWN);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i])
			table_add_column(&t, names[i], i == 0 ? 0 : TABLE_RIGHT, 0, 0);
		else
			add_ci_column(&t, v->c->level);
	subset_rows(v, s, &t, true);
	table_render(&t, out);
	table_release(&t);
}

/* Add 's' to 't' escaped for Markdown, through the scratch buffer 'sb'. */
static void add_md(struct table *t, struct strbuf *sb, const char *s)
{
	strbuf_reset(sb);
	table_md_text(sb, s, true);
	table_add(t, sb->buf);
}

static void md_changes(const struct compare_view *v, const char *what,
		       const struct question_change *q, size_t nr, struct strbuf *out)
{
	size_t shown = v->show < 0 ? nr : ((size_t)v->show < nr ? (size_t)v->show : nr);

	strbuf_addf(out, "\n<details><summary>%s the top %d: %zu</summary>\n\n", what, v->c->k, nr);
	if (nr) {
		struct strbuf sb = STRBUF_INIT;
		struct table t;

		table_init(&t, TABLE_MARKDOWN);
		table_add_column(&t, "Question", 0, 0, 0);
		table_add_column(&t, "Rank before", TABLE_RIGHT, 0, 0);
		table_add_column(&t, "Rank after", TABLE_RIGHT, 0, 0);
		table_add_column(&t, "Text", 0, 0, 0);
		for (size_t i = 0; i < shown; i++) {
			add_md(&t, &sb, q[i].id);
			table_add_rank(&t, q[i].rank_before);
			table_add_rank(&t, q[i].rank_after);
			add_md(&t, &sb, q[i].text);
		}
		table_render(&t, out);
		table_release(&t);
		strbuf_release(&sb);
		if (shown < nr)
			strbuf_addf(out, "\n%zu more not shown.\n", nr - shown);
	}
	strbuf_addstr(out, "\n</details>\n");
}

/* List the candidate's leaking questions, one row per forbidden id. */
static void md_leaks(const struct compare_view *v, struct strbuf *out)
{
	const struct compare *c = v->c;
	struct strbuf sb = STRBUF_INIT;
	struct table t;

	if (!c->nr_leaks)
		return;
	strbuf_addf(out, "**Leaks**: %zu question%s retrieved a forbidden id in the top %ld "
		    "(a leak fails the gate whatever else improved):\n\n", c->nr_leaks,
		    c->nr_leaks == 1 ? "" : "s", c->leak_k);
	table_init(&t, TABLE_MARKDOWN);
	table_add_column(&t, "Question", 0, 0, 0);
	table_add_column(&t, "Rank", TABLE_RIGHT, 0, 0);
	table_add_column(&t, "Chunk", 0, 0, 0);
	table_add_column(&t, "Forbidden by", 0, 0, 0);
	table_add_column(&t, "Baseline", 0, 0, 0);
	for (size_t i = 0; i < c->nr_leaks; i++)
		for (size_t h = 0; h < c->leaks[i].nr; h++) {
			add_md(&t, &sb, c->leaks[i].id);
			table_addf(&t, "%ld", c->leaks[i].hits[h].rank);
			add_md(&t, &sb, c->leaks[i].hits[h].chunk);
			add_md(&t, &sb, c->leaks[i].hits[h].entry);
			table_add(&t, c->base_leaks_absent ? "unknown" : c->leaks[i].in_baseline
				  ? "also in baseline" : "new");
		}
	table_render(&t, out);
	table_release(&t);
	strbuf_release(&sb);
	strbuf_addch(out, '\n');
}

void compare_render_markdown(const struct compare_view *v, struct strbuf *out)
{
	const struct compare *c = v->c;
	char *note = compare_set_change_note(v);

	char *verdict = compare_verdict(v);

	strbuf_addstr(out, "### evalset compare: ");
	md_cell(out, v->set_label);
	strbuf_addstr(out, " — ");
	if (v->nr_failed)
		strbuf_addstr(out, "**");
	md_cell(out, verdict);
	strbuf_addstr(out, v->nr_failed ? "**\n\n" : "\n\n");
	free(verdict);
	if (note) {
		strbuf_addstr(out, "> **Warning:** ");
		md_cell(out, note);
		strbuf_addstr(out, "\n\n");
	}
	if (v->form_note) {
		strbuf_addstr(out, "> **Warning:** ");
		md_cell(out, v->form_note);
		strbuf_addstr(out, "\n\n");
	}
	strbuf_addstr(out, "Baseline ");
	md_cell(out, c->base_label);
	strbuf_addstr(out, ", candidate ");
	md_cell(out, c->cand_label);
	strbuf_addf(out, ". %zu questions (%zu answerable, %zu unanswerable); missing: baseline %zu, "
		    "candidate %zu; %ld bootstrap resamples (seed %" PRIu64 "), %ld permutations "
		    "(seed %" PRIu64 "); table p two-sided, per measure, unadjusted (informational); "
		    "bold: p < %g.\n\n",
		    c->nr_questions, c->nr_answerable, c->nr_unanswerable, c->missing_base,
		    c->missing_cand, c->resamples, c->boot_seed, c->permutations, c->perm_seed,
		    alpha_of(v));
	if (v->gate) {
		struct strbuf sb = STRBUF_INIT;
		struct table t;

		/* headline first (what, the change, the verdict), the test after */
		table_init(&t, TABLE_MARKDOWN);
		table_add_column(&t, "Gate rule", 0, 0, 0);
		table_add_column(&t, "Baseline → candidate (Δ)", 0, 0, 0);
		table_add_column(&t, "Result", 0, 0, 0);
		table_add_column(&t, "Test", 0, 0, 0);
		for (size_t i = 0; i < nr_outcomes(v); i++) {
			const struct gate_outcome *o = &v->outcomes[i];
			struct strbuf change = STRBUF_INIT;

			add_md(&t, &sb, o->what);
			gate_outcome_change(o, "→", &change);
			add_md(&t, &sb, change.buf);
			strbuf_release(&change);
			table_add(&t, o->pass ? "pass" : "**FAIL**");
			add_md(&t, &sb, o->why);
		}
		table_render(&t, out);
		table_release(&t);
		strbuf_release(&sb);
		strbuf_addch(out, '\n');
		md_leaks(v, out);
	}
	md_subset(v, &c->subsets[0], out);
	if (measures_hidden(v))
		strbuf_addf(out, "\n%zu more measures not shown (`--all-measures` shows them)\n",
			    measures_hidden(v));
	if (c->nr_subsets > 1) {
		strbuf_addstr(out, "\n<details><summary>Subsets</summary>\n");
		for (size_t i = 1; i < c->nr_subsets; i++) {
			strbuf_addstr(out, "\n**");
			md_cell(out, c->subsets[i].label);
			strbuf_addf(out, "** (%zu questions)\n\n", c->subsets[i].nr_questions);
			md_subset(v, &c->subsets[i], out);
		}
		strbuf_addstr(out, "\n</details>\n");
	}
	md_changes(v, "Lost from", c->lost, c->nr_lost, out);
	md_changes(v, "Gained in", c->gained, c->nr_gained, out);
	free(note);
}

/* ---- JUnit ---- */

/* Append a <property> line of the JUnit file, 'value' escaped. */
static void junit_property(struct strbuf *out, const char *name, const char *value)
{
	strbuf_addstr(out, "      <property");
	xml_attr(out, "name", name);
	xml_attr(out, "value", value);
	strbuf_addstr(out, "/>\n");
}

void compare_render_junit(const struct compare_view *v, struct strbuf *out)
{
	const struct compare *c = v->c;
	char *note = compare_set_change_note(v);
	size_t nr = nr_outcomes(v), skipped = 0;
	char seed[24];

	strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	strbuf_addf(out, "<testsuites name=\"evalset compare\" tests=\"%zu\" failures=\"%d\">\n", nr, v->nr_failed);
	strbuf_addstr(out, "  <testsuite name=\"evalset gate ");
	xml_text(out, v->set_label);
	strbuf_addf(out, "\" tests=\"%zu\" failures=\"%d\" errors=\"0\" skipped=\"%zu\">\n", nr, v->nr_failed, skipped);
	strbuf_addstr(out, "    <properties>\n");
	junit_property(out, "baseline", c->base_label);
	junit_property(out, "candidate", c->cand_label);
	junit_property(out, "set_changed", note ? "true" : "false");
	snprintf(seed, sizeof(seed), "%" PRIu64, c->boot_seed);
	junit_property(out, "bootstrap_seed", seed);
	snprintf(seed, sizeof(seed), "%" PRIu64, c->perm_seed);
	junit_property(out, "permutation_seed", seed);
	strbuf_addstr(out, "    </properties>\n");
	for (size_t i = 0; i < nr; i++) {
		const struct gate_outcome *o = &v->outcomes[i];
		char *d = i < v->gate->nr ? gate_rule_describe(&v->gate->rules[i])
			: i == GATE_COVERAGE(v->gate) ? xstrfmt("coverage allow_missing %ld",
								 v->gate->allow_missing)
			: gate_leak_describe(v->gate, c->leak_k);

		char *line = gate_outcome_line(o);

		strbuf_addstr(out, "    <testcase classname=\"evalset.gate\"");
		xml_attr(out, "name", d);
		strbuf_addstr(out, ">\n");
		if (!o->pass) {
			strbuf_addstr(out, "      <failure type=\"regression\"");
			xml_attr(out, "message", line);
			strbuf_addch(out, '>');
			xml_text(out, line);
			strbuf_addstr(out, "</failure>\n");
		}
		strbuf_addstr(out, "      <system-out>");
		xml_text(out, line);
		free(line);
		if (note) {
			strbuf_addch(out, '\n');
			xml_text(out, note);
		}
		strbuf_addstr(out, "</system-out>\n    </testcase>\n");
		free(d);
	}
	if (note) {
		strbuf_addstr(out, "    <system-out>");
		xml_text(out, note);
		strbuf_addstr(out, "</system-out>\n");
	}
	strbuf_addstr(out, "  </testsuite>\n</testsuites>\n");
	free(note);
}

/* ---- GitHub Actions workflow commands ---- */

static void gh_escape(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '%')
			strbuf_addstr(sb, "%25");
		else if (*s == '\r')
			strbuf_addstr(sb, "%0D");
		else if (*s == '\n')
			strbuf_addstr(sb, "%0A");
		else
			strbuf_addch(sb, *s);
	}
}

void compare_render_annotations(const struct compare_view *v, struct strbuf *out)
{
	char *note = compare_set_change_note(v);

	if (note) {
		strbuf_addstr(out, "::warning title=evalset compare::");
		gh_escape(out, note);
		strbuf_addch(out, '\n');
	}
	for (size_t i = 0; i < nr_outcomes(v); i++) {
		char *line;

		if (v->outcomes[i].pass)
			continue;
		line = gate_outcome_line(&v->outcomes[i]);
		strbuf_addstr(out, "::error title=evalset gate::");
		gh_escape(out, line);
		strbuf_addch(out, '\n');
		free(line);
	}
	free(note);
}
