/*
 * score: `evalset score <set>[@<tag>] <run>` and `evalset score --qrels <qrels> <run>`:
 * score a run (TREC, JSONL or JSON; plain or gzip) against a set version or
 * TREC qrels, print the measures (docs/measures.md) and optionally save the
 * per-question results for compare and report.
 *
 * With --corpus, the run was made on another chunking of the set's documents:
 * the set's labels are carried to that corpus by their evidence (exactly as
 * `evalset remap` does, docs/chunking.md) and the run is judged on the
 * result; what is printed and saved still names the set version scored, and
 * records the corpus fingerprint the run was judged on.
 *
 * With --judged-only the run is scored twice: as it is and condensed to its
 * judged documents (trec_eval -J). Both columns are printed side by side;
 * find-vs-rank, breakdowns, --per-query and --save use the condensed values,
 * except Judged@k, which always describes the run's real list.
 */
#include "builtin.h"
#include "base/config.h"

#include "chunk/chunker.h"
#include "chunk/remap.h"
#include "score/qrels.h"
#include "score/bind.h"
#include "score/leak.h"
#include "score/results.h"
#include "score/run.h"
#include "score/score.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "set/set.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/strbuf.h"
#include "base/table.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MEASURES 64
#define MAX_LEAK_KS 8

static const char *const score_usage[] = {
	"evalset score <set>[@<tag>] <run> [-m <measure>]... [--k <k>] [--depth <n>] [--per-query]\n"
	"                    [--by origin,tag,turn] [--decline-below <t>] [--judged-only]\n"
	"                    [--rank-by order|score] [--format table|json|csv|markdown] [--save <file>]\n"
	"                    [--corpus <other.jsonl>]",
	"evalset score --qrels <qrels> <run> [<options>]",
	NULL,
};

struct out_ctx {
	enum table_format fmt;
	struct strbuf *sb;
};

/* Add the row of one measure to 't': its value 'v', or with 'full'
 * (--judged-only) the value of the full run 'all' and the condensed 'v'
 * (NAN: no value); 'note' may be NULL. */
static void value_row(struct table *t, const char *name, double v, const struct results *full,
		      double all, const char *note)
{
	table_add(t, name);
	if (full)
		table_addf(t, "%.4f", all);
	if (isnan(v))
		table_add(t, NULL);
	else
		table_addf(t, "%.4f", v);
	table_add(t, note ? note : "");
}

/* Parse "Leak@K" into '*k'; return 1 when 'name' is a Leak measure (0: not
 * one; -1: one with a bad cutoff, reported). */
static int parse_leak(const char *name, long *k)
{
	char *end;

	if (strncmp(name, "Leak@", 5))
		return 0;
	*k = strtol(name + 5, &end, 10);
	if (end == name + 5 || *end || *k < 1 || *k > 100000) {
		error("measure '%s': Leak@k takes a cutoff k in 1..100000, as in Leak@5", name);
		return -1;
	}
	return 1;
}

/* Print the leak reports (docs/access.md): Leak@k with the number of
 * questions behind it, then every leaking question with what it retrieved. */
static void print_leaks(struct out_ctx *o, const struct leak_report *lr, size_t nr)
{
	struct table t;
	char note[160];

	table_init(&t, o->fmt);
	t.sep = " ";
	table_add_column(&t, "measure", 0, 14, 0);
	table_add_column(&t, "value", TABLE_RIGHT | TABLE_NUMBER, 8, 0);
	table_add_column(&t, o->fmt == TABLE_TEXT ? "" : "note", TABLE_NOTE, 0, 0)->sep = "   ";
	for (size_t i = 0; i < nr; i++) {
		table_addf(&t, "Leak@%ld", lr[i].k);
		table_addf(&t, "%.4f", leak_value(&lr[i]));
		snprintf(note, sizeof(note), "%zu of %zu questions with forbidden ids retrieved one "
			 "in the top %ld", lr[i].nr, lr[i].nr_forbidding, lr[i].k);
		table_add(&t, note);
	}
	if (o->fmt == TABLE_TEXT)
		strbuf_addch(o->sb, '\n');
	table_render(&t, o->sb);
	table_release(&t);
	for (size_t i = 0; i < nr; i++) {
		if (!lr[i].nr)
			continue;
		if (o->fmt == TABLE_TEXT)
			strbuf_addf(o->sb, "\nleaks (forbidden ids in the top %ld):\n", lr[i].k);
		table_init(&t, o->fmt);
		if (o->fmt == TABLE_TEXT)
			t.indent = "  ";
		table_add_column(&t, "qid", 0, 0, 0);
		table_add_column(&t, "cutoff", TABLE_RIGHT | TABLE_NUMBER, 0, 0);
		table_add_column(&t, "rank", TABLE_RIGHT | TABLE_NUMBER, 0, 0);
		table_add_column(&t, "chunk", 0, 0, 0);
		table_add_column(&t, "forbidden", 0, 0, 0);
		for (size_t q = 0; q < lr[i].nr; q++)
			for (size_t h = 0; h < lr[i].q[q].nr; h++) {
				const struct leak_hit *hit = &lr[i].q[q].hits[h];

				table_add(&t, lr[i].q[q].id);
				table_addf(&t, "%ld", lr[i].k);
				table_addf(&t, "%ld", hit->rank);
				table_add(&t, hit->chunk);
				table_add(&t, hit->entry);
			}
		if (o->fmt != TABLE_TEXT)
			strbuf_addch(o->sb, '\n');
		table_render(&t, o->sb);
		table_release(&t);
	}
}

/* Add "leak": {"Leak@5": {"value", "questions", "leaking": [{id, leaked:
 * [{rank, chunk, forbidden}]}]}} to the JSON output. */
static void add_json_leaks(cJSON *tree, const struct leak_report *lr, size_t nr)
{
	cJSON *all = cJSON_AddObjectToObject(tree, "leak");

	for (size_t i = 0; i < nr; i++) {
		char name[32];
		cJSON *m, *qs;

		snprintf(name, sizeof(name), "Leak@%ld", lr[i].k);
		m = cJSON_AddObjectToObject(all, name);
		cJSON_AddNumberToObject(m, "value", leak_value(&lr[i]));
		cJSON_AddNumberToObject(m, "questions", (double)lr[i].nr_forbidding);
		qs = cJSON_AddArrayToObject(m, "leaking");
		for (size_t q = 0; q < lr[i].nr; q++) {
			cJSON *jq = cJSON_CreateObject(), *hits;

			cJSON_AddStringToObject(jq, "id", lr[i].q[q].id);
			hits = cJSON_AddArrayToObject(jq, "leaked");
			for (size_t h = 0; h < lr[i].q[q].nr; h++) {
				cJSON *jh = cJSON_CreateObject();

				cJSON_AddNumberToObject(jh, "rank", (double)lr[i].q[q].hits[h].rank);
				cJSON_AddStringToObject(jh, "chunk", lr[i].q[q].hits[h].chunk);
				cJSON_AddStringToObject(jh, "forbidden", lr[i].q[q].hits[h].entry);
				cJSON_AddItemToArray(hits, jh);
			}
			cJSON_AddItemToArray(qs, jq);
		}
	}
}

/* Add "calls_to_relevant": {"mean", "reached", "none", "questions"} (mean
 * null when no question reaches a relevant chunk). */
static void add_json_calls(cJSON *tree, const struct results *r)
{
	struct calls_to_rel ctr;
	cJSON *o = cJSON_AddObjectToObject(tree, "calls_to_relevant");

	score_calls_to_rel(r, &ctr);
	if (ctr.reached)
		cJSON_AddNumberToObject(o, "mean", ctr.mean);
	else
		cJSON_AddNullToObject(o, "mean");
	cJSON_AddNumberToObject(o, "reached", (double)ctr.reached);
	cJSON_AddNumberToObject(o, "none", (double)(ctr.questions - ctr.reached));
	cJSON_AddNumberToObject(o, "questions", (double)ctr.questions);
}

/* True when one of the 'nr' measures 'ms' is document-level. */
static bool wants_documents(const struct measure *ms, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (measure_is_doc(&ms[i]))
			return true;
	return false;
}

static const char *pct(double part, double whole, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
	return buf;
}

static void print_header(struct out_ctx *o, const struct results *r, const struct run *run,
			 const struct score_summary *sum, bool qrels_mode, const char *corpus_note)
{
	struct strbuf *sb = o->sb;
	const char *lead = o->fmt == TABLE_MARKDOWN ? "- " : "";

	if (o->fmt == TABLE_CSV)
		return; /* plain CSV: rows only, so that any CSV reader takes it */

	if (qrels_mode)
		strbuf_addf(sb, "%sqrels     %s (%s)\n", lead, r->set_name, r->set_digest ? r->set_digest : "?");
	else
		strbuf_addf(sb, "%sset       %s@%s (%s)\n", lead, r->set_name ? r->set_name : "?",
			    r->set_version ? r->set_version : "working-copy",
			    r->set_digest ? r->set_digest : "?");
	if (r->judged_on)
		strbuf_addf(sb, "%sjudged on %s (labels carried by their evidence)\n", lead, r->judged_on);
	if (corpus_note)
		strbuf_addf(sb, "%scorpus    %s\n", lead, corpus_note);
	strbuf_addf(sb, "%srun       %s (%s%s%s%s, %zu questions)%s%s\n", lead, r->run_path,
		    run_format_name(run->format), run->reranked ? " ranked by score" : "", r->run_name ? ", " : "", r->run_name ? r->run_name : "",
		    run->nr, r->run_sha256 ? " " : "", r->run_sha256 ? r->run_sha256 : "");
	if (run->meta) {
		/* which form the retriever was asked in (docs/conversations.md) */
		cJSON *meta = cJSON_Parse(run->meta);
		const cJSON *form = cJSON_GetObjectItemCaseSensitive(meta, "query_form");

		if (cJSON_IsString(form))
			strbuf_addf(sb, "%sasked     %s (query form)\n", lead, form->valuestring);
		cJSON_Delete(meta);
	}
	strbuf_addf(sb, "%squestions %ld answerable, %ld unanswerable; %ld missing from the run; "
		    "%ld unknown in the run", lead, r->nr_answerable, r->nr_unanswerable,
		    sum->missing, sum->unknown);
	for (size_t i = 0; i < sum->nr_unknown_ids; i++)
		strbuf_addf(sb, "%s'%s'", i ? ", " : " (", sum->unknown_ids[i]);
	if (sum->nr_unknown_ids)
		strbuf_addstr(sb, sum->unknown > (long)sum->nr_unknown_ids ? ", ...)" : ")");
	if (sum->unjudged)
		strbuf_addf(sb, "; %ld unjudged (every label left out)", sum->unjudged);
	strbuf_addstr(sb, "\n\n");
}

static void print_find_vs_rank(struct out_ctx *o, const struct results *r,
			       const struct score_summary *s)
{
	struct strbuf *sb = o->sb;
	double n = (double)r->nr_answerable;
	char a[16], b[16], c[16], depth[32];
	struct table t;

	if (r->depth > 0)
		snprintf(depth, sizeof(depth), "%d", r->depth);
	else
		snprintf(depth, sizeof(depth), "the list depth");
	table_init(&t, o->fmt);
	if (o->fmt == TABLE_CSV) {
		/* key,value lines: found@k, found_low@k+1-K, not_found@K */
		t.header = false;
		table_add_column(&t, "bucket", 0, 0, 0);
		table_add_column(&t, "questions", TABLE_NUMBER, 0, 0);
		table_addf(&t, "found@%d", r->k);
		table_addf(&t, "%ld", s->found_top_k);
		table_addf(&t, "found_low@%d-%s", r->k + 1, depth);
		table_addf(&t, "%ld", s->found_low);
		table_addf(&t, "not_found@%s", depth);
		table_addf(&t, "%ld", s->not_found);
		table_render(&t, sb);
		table_release(&t);
		return;
	}
	strbuf_addf(sb, "\n%sfind vs rank at k=%d, K=%s (answerable questions)%s\n",
		    o->fmt == TABLE_MARKDOWN ? "**" : "", r->k, depth, o->fmt == TABLE_MARKDOWN ? "**\n" : "");
	/* text: indented rows without a header; Markdown: a pipe table */
	t.header = o->fmt == TABLE_MARKDOWN;
	t.indent = "  ";
	t.sep = " ";
	table_add_column(&t, "answerable questions", 0, 34, 0);
	table_add_column(&t, "count", TABLE_RIGHT | TABLE_NUMBER, 5, 0);
	table_add_column(&t, "share", TABLE_RIGHT, 6, 0)->sep = "  ";
	table_add_column(&t, "what it means", TABLE_NOTE, 0, 0)->sep = "   ";
	table_addf(&t, "found in the top %d", r->k);
	table_addf(&t, "%ld", s->found_top_k);
	table_add(&t, pct((double)s->found_top_k, n, a, sizeof(a)));
	table_add(&t, "");
	table_addf(&t, "found only at ranks %d..%s", r->k + 1, depth);
	table_addf(&t, "%ld", s->found_low);
	table_add(&t, pct((double)s->found_low, n, b, sizeof(b)));
	table_add(&t, "found but ranked low: a ranking problem");
	table_addf(&t, "not found in the top %s", depth);
	table_addf(&t, "%ld", s->not_found);
	table_add(&t, pct((double)s->not_found, n, c, sizeof(c)));
	table_add(&t, "not found: a chunking/embedding/recall problem");
	table_render(&t, sb);
	table_release(&t);
	strbuf_addf(sb, "%sdiagnosis: ", o->fmt == TABLE_MARKDOWN ? "\n" : "");
	if (!s->found_low && !s->not_found)
		strbuf_addf(sb, "every answerable question has a relevant chunk in the top %d\n", r->k);
	else if (s->found_low > s->not_found)
		strbuf_addf(sb, "most misses are found but ranked low (%ld vs %ld not found): "
			    "improve ranking (a reranker, better scoring) before recall\n",
			    s->found_low, s->not_found);
	else if (s->not_found > s->found_low)
		strbuf_addf(sb, "most misses are not found in the top %s (%ld vs %ld ranked low): "
			    "improve recall (chunking, embeddings, hybrid search) before reranking\n",
			    depth, s->not_found, s->found_low);
	else
		strbuf_addf(sb, "misses split evenly between ranked low and not found (%ld each): "
			    "both ranking and recall need work\n", s->found_low);
}

/*
 * Print the measures of 'r'. With 'full' (--judged-only: 'r' is condensed,
 * 'full' the run as it is), two columns; Judged@k is the full run's only.
 */
static void print_measures(struct out_ctx *o, const struct results *r, const struct results *full,
			   const struct score_summary *s, const struct score_options *so)
{
	const char *judged_note = "share of the top positions that are judged";
	char note[128];
	struct table t;

	table_init(&t, o->fmt);
	t.sep = " ";
	table_add_column(&t, "measure", 0, 14, 0);
	if (full)
		table_add_column(&t, "value", TABLE_RIGHT | TABLE_NUMBER, 8, 0);
	table_add_column(&t, !full ? "value" : o->fmt == TABLE_CSV ? "judged_only" : "judged-only",
			 TABLE_RIGHT | TABLE_NUMBER, full ? 11 : 8, 0);
	snprintf(note, sizeof(note), "(over %ld answerable questions)", r->nr_answerable);
	table_add_column(&t, o->fmt == TABLE_TEXT ? note : "note", TABLE_NOTE, 0, 0)->sep = "   ";
	for (size_t i = 0; i < r->nr_measures; i++)
		if (strncmp(r->measures[i], "Judged@", 7))
			value_row(&t, r->measures[i], r->aggregate[i], full,
				  full ? full->aggregate[i] : 0, NULL);
	snprintf(note, sizeof(note), "%ld of %ld unanswerable questions declined%s",
		 s->declined_unanswerable, r->nr_unanswerable,
		 so->has_decline_below ? " (or top score below the threshold)" : "");
	value_row(&t, "Decline", r->decline, full, full ? full->decline : 0, note);
	snprintf(note, sizeof(note), "%ld of %ld answerable questions declined",
		 s->declined_answerable, r->nr_answerable);
	value_row(&t, "FalseDecline", r->false_decline, full, full ? full->false_decline : 0, note);
	if (r->has_calls) {
		struct calls_to_rel ctr, all;

		/* a mean over the questions that reach one: those that never do apart */
		score_calls_to_rel(r, &ctr);
		score_calls_to_rel(full ? full : r, &all);
		snprintf(note, sizeof(note), "mean over the %ld questions reaching a relevant chunk; "
			 "%ld of %ld reach none", ctr.reached, ctr.questions - ctr.reached, ctr.questions);
		value_row(&t, "CallsToRel", ctr.reached ? ctr.mean : NAN, full, all.mean, note);
	}
	/* Judged@k describes the run's real list: with --judged-only, the full run's value only */
	for (size_t i = 0; i < r->nr_measures; i++)
		if (!strncmp(r->measures[i], "Judged@", 7))
			value_row(&t, r->measures[i], full ? NAN : r->aggregate[i], full,
				  full ? full->aggregate[i] : 0, judged_note);
	table_render(&t, o->sb);
	table_release(&t);
}

/*
 * For --judged-only: give the condensed results 'r' the Judged@k values of
 * the full run 'full' (aggregate and per question), since Judged@k of a
 * list holding only judged documents says nothing.
 */
static void keep_real_judged(struct results *r, const struct results *full)
{
	for (size_t m = 0; m < r->nr_measures; m++) {
		if (strncmp(r->measures[m], "Judged@", 7))
			continue;
		r->aggregate[m] = full->aggregate[m];
		for (size_t i = 0; i < r->nr; i++) {
			const struct question_result *fq = results_find(full, r->q[i].id);
			if (fq)
				r->q[i].values[m] = fq->values[m];
		}
	}
}

/* For --judged-only --format json: return the results tree with the full
 * run's values beside the condensed ones: "judged_only": true,
 * "all_documents": {"aggregate": {...}, "Decline": x, "FalseDecline": y}. */
static cJSON *json_with_full(const struct results *r, const struct results *full)
{
	cJSON *j = results_to_tree(r), *all, *agg;

	cJSON_AddBoolToObject(j, "judged_only", 1);
	all = cJSON_AddObjectToObject(j, "all_documents");
	agg = cJSON_AddObjectToObject(all, "aggregate");
	for (size_t m = 0; m < full->nr_measures; m++)
		cJSON_AddNumberToObject(agg, full->measures[m], full->aggregate[m]);
	cJSON_AddNumberToObject(all, "Decline", full->decline);
	cJSON_AddNumberToObject(all, "FalseDecline", full->false_decline);
	return j;
}

/* Start a table of 'first', 'second' (unless NULL) and the measures of 'r'
 * in the layout of the per-question and breakdown listings. */
static void start_listing(struct table *t, const struct out_ctx *o, const struct results *r,
			  const char *first, const char *second)
{
	table_init(t, o->fmt);
	t->pad = false;
	t->sep = "\t";
	table_add_column(t, first, 0, 0, 0);
	if (second)
		table_add_column(t, second, TABLE_NUMBER, 0, 0);
	for (size_t m = 0; m < r->nr_measures; m++)
		table_add_column(t, r->measures[m], TABLE_NUMBER, 0, 0);
}

/* Print every question's values, then Leak@k (1, 0, or - for a question
 * without a forbidden list) for each cutoff of 'leak_ks', with the
 * forbidden ids retrieved within the largest in the note. */
static void print_per_query(struct out_ctx *o, const struct results *r, const long *leak_ks,
			    size_t nr_leak_ks)
{
	struct table t;
	struct strbuf note = STRBUF_INIT;
	long kmax = 0;

	start_listing(&t, o, r, "qid", NULL);
	for (size_t i = 0; i < nr_leak_ks; i++) {
		char name[32];

		snprintf(name, sizeof(name), "Leak@%ld", leak_ks[i]);
		table_add_column(&t, name, TABLE_NUMBER, 0, 0);
		if (leak_ks[i] > kmax)
			kmax = leak_ks[i];
	}
	table_add_column(&t, "note", 0, 0, 0);
	for (size_t i = 0; i < r->nr; i++) {
		const struct question_result *q = &r->q[i];
		size_t shown = results_leaks_at(q, kmax);

		table_add(&t, q->id);
		for (size_t m = 0; m < r->nr_measures; m++) {
			if (q->answerable)
				table_addf(&t, "%.4f", q->values[m]);
			else
				table_add(&t, "-");
		}
		for (size_t l = 0; l < nr_leak_ks; l++)
			table_add(&t, !q->forbids ? "-" : results_leaks_at(q, leak_ks[l]) ? "1" : "0");
		strbuf_reset(&note);
		strbuf_addf(&note, "%s%s%s", q->answerable ? "" : "unanswerable ",
			    q->missing ? "missing " : "", q->declined ? "declined" : "");
		for (size_t h = 0; h < shown; h++)
			strbuf_addf(&note, "%s%s at %ld (%s)", h ? ", " : note.len && note.buf[note.len - 1] != ' ' ? " leaked " : "leaked ",
				    q->leaks[h].chunk, q->leaks[h].rank, q->leaks[h].entry);
		table_add(&t, note.buf);
	}
	strbuf_addch(o->sb, '\n');
	table_render(&t, o->sb);
	table_release(&t);
	strbuf_release(&note);
}

static bool match_origin(const struct question_result *q, const void *arg)
{
	const char *o = arg;

	return !strcmp(q->origin ? q->origin : "none", o);
}

static bool match_turn(const struct question_result *q, const void *arg)
{
	return q->turn && !strcmp(q->turn, (const char *)arg);
}

static bool match_tag(const struct question_result *q, const void *arg)
{
	for (size_t i = 0; i < q->nr_tags; i++)
		if (!strcmp(q->tags[i], (const char *)arg))
			return true;
	return false;
}

/* One group of a breakdown: its label ("squad"), what it matches, and the
 * means over its answerable questions, for a table row or a JSON object. */
typedef void group_fn(const struct results *r, const char *key, const char *label,
		      bool (*match)(const struct question_result *, const void *),
		      const void *arg, void *ctx);

/*
 * Call 'fn' for every group of the breakdown 'key' ("origin", "tag" or
 * "turn") that has answerable questions: origins and turn positions in a
 * fixed order, tags in order of first appearance.
 */
static void for_each_group(const struct results *r, const char *key, group_fn *fn, void *ctx)
{
	if (!strcmp(key, "turn")) {
		static const char *const turns[] = { TURN_FIRST, TURN_FOLLOW_UP };

		for (size_t i = 0; i < ARRAY_SIZE(turns); i++) {
			long n;

			score_mean(r, 0, match_turn, turns[i], &n);
			if (n)
				fn(r, key, turns[i], match_turn, turns[i], ctx);
		}
		return;
	}
	if (!strcmp(key, "origin")) {
		static const char *const origins[] = { "synthetic", "mined", "hand", "none" };

		for (size_t i = 0; i < ARRAY_SIZE(origins); i++) {
			long n;

			score_mean(r, 0, match_origin, origins[i], &n);
			if (n)
				fn(r, key, origins[i], match_origin, origins[i], ctx);
		}
		return;
	}
	struct strmap seen = STRMAP_INIT;

	for (size_t i = 0; i < r->nr; i++) {
		for (size_t t = 0; t < r->q[i].nr_tags; t++) {
			int added;
			long n;

			strmap_intern(&seen, r->q[i].tags[t], strlen(r->q[i].tags[t]), &added);
			if (!added)
				continue;
			score_mean(r, 0, match_tag, r->q[i].tags[t], &n);
			if (n)
				fn(r, key, r->q[i].tags[t], match_tag, r->q[i].tags[t], ctx);
		}
	}
	strmap_clear(&seen, 0);
}

static void breakdown_row(const struct results *r, const char *key, const char *label,
			  bool (*match)(const struct question_result *, const void *),
			  const void *arg, void *ctx)
{
	struct table *t = ctx;
	long n = 0;

	(void)key;
	score_mean(r, 0, match, arg, &n);
	table_add(t, label);
	table_addf(t, "%ld", n);
	for (size_t m = 0; m < r->nr_measures; m++)
		table_addf(t, "%.4f", score_mean(r, m, match, arg, NULL));
}

static void breakdown_json(const struct results *r, const char *key, const char *label,
			   bool (*match)(const struct question_result *, const void *),
			   const void *arg, void *ctx)
{
	cJSON *g = cJSON_CreateObject();
	char *name = xstrfmt("%s=%s", key, label);
	long n = 0;

	score_mean(r, 0, match, arg, &n);
	cJSON_AddNumberToObject(g, "n", (double)n);
	for (size_t m = 0; m < r->nr_measures; m++)
		cJSON_AddNumberToObject(g, r->measures[m], score_mean(r, m, match, arg, NULL));
	cJSON_AddItemToObject(ctx, name, g);
	free(name);
}

/* Return true when the comma-separated 'by' (may be NULL) names 'key'. */
static bool by_has(const char *by, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = by; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, key, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Return 0 when every key of the comma-separated 'by' is origin, tag or
 * turn, else -1 (reported). */
static int check_by(const char *by)
{
	char *copy = xstrdup(by), *key = copy, *comma;
	int ret = 0;

	for (; key && !ret; key = comma) {
		comma = strchr(key, ',');
		if (comma)
			*comma++ = '\0';
		if (strcmp(key, "origin") && strcmp(key, "tag") && strcmp(key, "turn"))
			ret = error("unknown breakdown '%s'; use origin, tag, turn", key);
	}
	free(copy);
	return ret;
}

static void print_breakdowns(struct out_ctx *o, const struct results *r, const char *by)
{
	char *copy = xstrdup(by), *key = copy, *comma;
	struct strbuf title = STRBUF_INIT;
	struct table tab;

	for (; key; key = comma) {
		comma = strchr(key, ',');
		if (comma)
			*comma++ = '\0';
		strbuf_reset(&title);
		strbuf_addstr(&title, "by ");
		strbuf_addstr(&title, key);
		start_listing(&tab, o, r, title.buf, "n");
		for_each_group(r, key, breakdown_row, &tab);
		strbuf_addch(o->sb, '\n');
		table_render(&tab, o->sb);
		table_release(&tab);
	}
	strbuf_release(&title);
	free(copy);
}

/* Add to the JSON results 'tree' the means of every group of 'by' as
 * "subsets": {"tag=hard": {"n": 23, "R@5": ...}, ...}. */
static void add_json_breakdowns(cJSON *tree, const struct results *r, const char *by)
{
	char *copy = xstrdup(by), *key = copy, *comma;
	cJSON *subsets = cJSON_AddObjectToObject(tree, "subsets");

	for (; key; key = comma) {
		comma = strchr(key, ',');
		if (comma)
			*comma++ = '\0';
		for_each_group(r, key, breakdown_json, subsets);
	}
	free(copy);
}

/* Return true when 's' holds at least one of the questions of 'run' (when
 * it holds none, scoring refuses the run with its own message). */
static bool knows_some(const struct run *run, const struct set *s)
{
	struct set_lookup lk;
	bool some = false;

	set_lookup_init(&lk, s);
	for (size_t i = 0; i < run->nr && !some; i++)
		some = set_lookup_find(&lk, run->q[i].qid) != NULL;
	set_lookup_release(&lk);
	return some;
}

/*
 * Check that 'run' belongs to the set 's' it is scored on (core/score/bind.h:
 * names and questions digests, labels apart, so a relabelled set keeps its
 * runs). A run recorded for another set or other questions, or recording
 * none while holding ids the set does not know, is refused with --save
 * ('save'), since the saved file would then pass as a result of this set
 * (compare refuses such a run); otherwise a recorded one is a warning and
 * an unrecorded one has its unknown ids counted. Return 0, or -1 (reported).
 */
static int check_binding(const struct run *run, const struct set *s, const char *set_arg,
			 const char *save)
{
	struct strbuf why = STRBUF_INIT;
	struct bind_record rec;
	int ret = 0;

	if (bind_run(run, s, set_arg, &why, &rec) == BIND_OTHER &&
	    (rec.set_name || (save && knows_some(run, s)))) {
		if (save)
			ret = error("%s; refusing to save '%s' as a result of %s: produce the run again "
				    "on %s", why.buf, save, set_arg, set_arg);
		else
			warning("%s", why.buf);
	}
	bind_record_release(&rec);
	strbuf_release(&why);
	return ret;
}

/*
 * Check that 'run' was made over the corpus 's' was labelled on (bind.h),
 * or, with --corpus 'declared', over that one. A run over another corpus is
 * a warning naming both and what changed; the labels pointing at chunks
 * its corpus lacks are then left out of 's' (a question left with none is
 * unjudged), after writing the digest of 's' into 'digest' and setting
 * '*dropped'. Fill 'note' with the header's corpus line (empty when the
 * corpora agree). Return 0 or -1 (reported).
 */
static int check_corpus(const struct run *run, struct set *s, const struct set_ref *ref,
			const char *set_arg, const char *declared, const char *declared_fp,
			struct results *res, char digest[72], size_t *dropped, struct strbuf *note)
{
	struct corpus_bind cb = CORPUS_BIND_INIT;
	struct strbuf why = STRBUF_INIT;
	char *who = xstrfmt("run '%s'", run->path);
	int ret = 0;

	*dropped = 0;
	bind_corpus(run, s, ref->dir, chunk_text_negligible, &cb);
	if (cb.run_fp)
		res->run_corpus = xstrdup(cb.run_fp);
	if (declared) {
		if (cb.run_fp && strcmp(cb.run_fp, declared_fp)) {
			warning("%s was made over corpus %s ('%s'), not over '%s' (%s) given with --corpus: "
				"its chunk ids may not be that corpus's", who, cb.run_fp,
				cb.run_path ? cb.run_path : "?", declared, declared_fp);
			strbuf_addf(note, "run made over %.19s, not the --corpus given (%.19s)", cb.run_fp,
				    declared_fp);
		}
		goto out;
	}
	if (cb.verdict != CORPUS_OTHER)
		goto out;
	corpus_bind_describe(&cb, who, set_arg, &why);
	warning("%s; %s", why.buf, cb.absent.nr ? "those labels are left out of the measures (not "
		"counted as misses); give --corpus with the corpus the run was made over to judge it "
		"by the labels' evidence" : "give --corpus with the corpus the run was made over to "
		"judge it by the labels' evidence");
	strbuf_addf(note, "run made over %.19s, not the corpus the set was labelled on (%.19s)",
		    cb.run_fp, cb.set_fp);
	if (cb.have_run_corpus && cb.absent.nr) {
		struct set judged = SET_INIT;

		strbuf_addf(note, "; %zu labels point at chunks not in it: left out", cb.absent.nr);
		set_digest(s, digest);
		bind_drop_absent(s, &cb.absent, &judged);
		set_release(s);
		*s = judged;
		*dropped = cb.absent.nr;
	} else if (!cb.have_run_corpus) {
		strbuf_addstr(note, "; not found, so labels pointing at chunks it lacks count as misses");
	}
out:
	free(who);
	strbuf_release(&why);
	corpus_bind_release(&cb);
	return ret;
}

/*
 * Replace 's' by the set with its labels carried to the corpus 'path'
 * (remap_set, from the corpus the set names), after writing the digest of
 * 's' as loaded into 'digest'; set '*fingerprint' to the new corpus's
 * fingerprint (caller frees). Labels that cannot be carried are a warning.
 * Return 0 or -1 (reported).
 */
static int judge_on_corpus(struct set *s, const struct set_ref *ref, const char *path,
			   char digest[72], char **fingerprint)
{
	struct set judged = SET_INIT;
	char *from = ref->tag ? xstrfmt("%s@%s", ref->name, ref->tag) : xstrdup(ref->name);
	int rc;

	set_digest(s, digest);
	rc = remap_judge_set(s, ref->dir, from, path, &judged, fingerprint);
	free(from);
	if (rc < 0) {
		set_release(&judged);
		return -1;
	}
	set_release(s);
	*s = judged;
	return 0;
}

int cmd_score(int argc, const char **argv)
{
	struct string_list mlist = STRING_LIST_INIT;
	const char *format = "table", *save = NULL, *qrels_path = NULL, *by = NULL;
	char *by_auto = NULL;
	const char *corpus_path = NULL, *rank_by = NULL;
	long k = LONG_MIN, depth = 50;  /* LONG_MIN: no --k, the config says */
	double decline_below = NAN;
	int per_query = 0, judged_only = 0;
	enum run_rank rank;
	struct option opts[] = {
		OPT_STRING_LIST('m', "measure", &mlist, "measure", "measure to report, as R@5, P(rel=2)@5, DocR@5, FirstR@5 or Leak@5 (repeatable)"),
		OPT_INT(0, "k", &k, "k", "context size for find-vs-rank (default 5)"),
		OPT_INT(0, "depth", &depth, "n", "depth for find-vs-rank (default 50; 0: the list depth)"),
		OPT_BOOL(0, "per-query", &per_query, "print every question's values"),
		OPT_STRING(0, "by", &by, "origin,tag,turn", "break the measures down by origin, tag and/or "
			   "turn (first turns and follow-ups: always, for a set with conversations)"),
		OPT_DOUBLE(0, "decline-below", &decline_below, "t", "count a question as declined when its top score is below t"),
		OPT_BOOL(0, "judged-only", &judged_only, "drop unjudged documents before scoring (like trec_eval -J)"),
		OPT_RANK_BY(&rank_by),
		OPT_STRING(0, "format", &format, "table|json|csv|markdown", "what stdout shows (default table)"),
		OPT_STRING(0, "save", &save, "file", "write per-question results as JSON for compare"),
		OPT_STRING(0, "qrels", &qrels_path, "qrels", "score against TREC qrels instead of a set"),
		OPT_STRING(0, "corpus", &corpus_path, "file",
			   "the run is on this other chunking: judge it by the labels' evidence"),
		OPT_END(),
	};
	struct measure measures[MAX_MEASURES];
	long leak_ks[MAX_LEAK_KS];
	size_t nr_leak_ks = 0;
	struct leak_report leaks[MAX_LEAK_KS];
	struct score_early early = { .s = NULL };
	struct corpus corpus = CORPUS_INIT, other = CORPUS_INIT;
	bool corpus_read = false;
	struct score_options so;
	struct score_summary sum;
	struct set s = SET_INIT;
	struct set_ref ref = SET_REF_INIT;
	char orig_digest[72], absent_digest[72], *judged_on = NULL;
	struct strbuf corpus_note = STRBUF_INIT;
	size_t dropped = 0;
	struct qrels qr;
	struct run run;
	struct results res, full;
	struct strbuf out = STRBUF_INIT;
	struct out_ctx oc;
	size_t nr_measures = 0;
	bool mlist_given;
	const char *run_path;
	int ret = EXIT_BAD_INPUT;
	struct config *cfg;
	const char *const *cfg_measures;
	size_t nr_cfg_measures;

	/* options first (so -h works whatever the config), then project config defaults */
	argc = parse_options(argc, argv, opts, score_usage);
	rank = apply_rank_by(rank_by, score_usage, opts);
	if (config_use(&cfg) < 0 ||
	    (k == LONG_MIN && config_get_long(cfg, "k", "EVALSET_K", 5, 1, 100000, &k, NULL) < 0)) {
		string_list_clear(&mlist);
		return EXIT_BAD_INPUT;
	}
	if (argc != (qrels_path ? 1 : 2)) {
		error("%s", qrels_path ? "expected <run> after --qrels <qrels>" : "expected <set>[@<tag>] <run>");
		string_list_clear(&mlist);
		usage_with_options(score_usage, opts);
	}
	memset(&oc, 0, sizeof(oc));
	oc.sb = &out;
	if (table_format_parse(format, "table|json|csv|markdown", &oc.fmt) < 0 ||
	    (by && check_by(by) < 0)) {
		string_list_clear(&mlist);
		return EXIT_BAD_INPUT;
	}
	if (k < 1 || k > 100000 || depth < 0 || depth > 100000000) {
		string_list_clear(&mlist);
		die(EXIT_BAD_INPUT, "--k must be in 1..100000 and --depth >= 0");
	}
	if (depth && depth < k) {
		string_list_clear(&mlist);
		die(EXIT_BAD_INPUT, "--depth %ld is smaller than --k %ld", depth, k);
	}
	if (!mlist.nr) {
		nr_cfg_measures = config_get_list(cfg, "measures", "EVALSET_MEASURES", &cfg_measures, NULL);
		for (size_t i = 0; i < nr_cfg_measures; i++)
			string_list_append(&mlist, cfg_measures[i]);
	}
	for (size_t i = 0; i < mlist.nr; i++) {
		if (nr_measures == MAX_MEASURES) {
			string_list_clear(&mlist);
			die(EXIT_BAD_INPUT, "too many measures (at most %d)", MAX_MEASURES);
		}
		switch (parse_leak(mlist.items[i], &leak_ks[nr_leak_ks])) {
		case 1:
			if (nr_leak_ks == MAX_LEAK_KS) {
				string_list_clear(&mlist);
				die(EXIT_BAD_INPUT, "too many Leak measures (at most %d)", MAX_LEAK_KS);
			}
			nr_leak_ks++;
			continue;
		case -1:
			string_list_clear(&mlist);
			return EXIT_BAD_INPUT;
		}
		if (measure_parse(mlist.items[i], &measures[nr_measures]) < 0) {
			string_list_clear(&mlist);
			return EXIT_BAD_INPUT;
		}
		nr_measures++;
	}
	mlist_given = mlist.nr > 0;
	if (!mlist.nr)
		nr_measures = score_default_measures(measures, MAX_MEASURES);
	string_list_clear(&mlist);

	memset(leaks, 0, sizeof(leaks));
	memset(&so, 0, sizeof(so));
	so.measures = measures;
	so.nr_measures = nr_measures;
	so.k = (int)k;
	so.depth = depth;
	so.judged_only = judged_only;
	so.has_decline_below = !isnan(decline_below);
	so.decline_below = decline_below;
	memset(&sum, 0, sizeof(sum));
	qrels_init(&qr);
	run_init(&run);
	results_init(&res);
	results_init(&full);

	run_path = qrels_path ? argv[0] : argv[1];
	if (qrels_path) {
		if (qrels_load(&qr, qrels_path) < 0)
			goto out;
	} else if (set_open(&s, &ref, argv[0]) < 0) {
		goto out;
	}
	if (qrels_path && corpus_path) {
		error("--corpus carries a set's labels by their evidence; TREC qrels have none");
		goto out;
	}
	/* each question scored as the run is read, unless something reads the
	 * run's lists after the load (the leak checks, --corpus's set) */
	if (!qrels_path && !corpus_path && !nr_leak_ks && !set_nr_forbidding(&s))
		score_early_start(&early, &s, &so);
	if (early.on ? run_load_each(&run, run_path, rank, score_early_question, &early) < 0
		     : run_load_ranked(&run, run_path, rank) < 0)
		goto out;
	/* an agent's run: first-call recall and calls beside the defaults */
	if (!mlist_given && run.has_calls) {
		char first[32];
		const char *const names[] = { first, "CallSuccess@1", "Calls" };

		snprintf(first, sizeof(first), "FirstR@%ld", k);
		for (size_t i = 0; i < ARRAY_SIZE(names) && nr_measures < MAX_MEASURES; i++)
			if (!measure_parse(names[i], &measures[nr_measures]))
				nr_measures++;
		so.nr_measures = nr_measures;
	}
	if (!qrels_path && check_binding(&run, &s, argv[0], save) < 0)
		goto out;
	/* bound to the set as it is; then judged on the other chunking */
	if (corpus_path && judge_on_corpus(&s, &ref, corpus_path, orig_digest, &judged_on) < 0)
		goto out;
	if (!qrels_path && check_corpus(&run, &s, &ref, argv[0], corpus_path, judged_on, &res,
					absent_digest, &dropped, &corpus_note) < 0)
		goto out;
	/* the chunks' documents: those of the corpus the run is judged on */
	if (!qrels_path && wants_documents(measures, nr_measures)) {
		if (corpus_path ? corpus_load(&other, corpus_path) < 0
				: set_corpus_load(&s, ref.dir, &corpus) < 0)
			goto out;
		corpus_read = !corpus_path;
		so.corpus = other.nr ? &other : corpus.nr ? &corpus : NULL;
	}
	/* a frozen version's digest, verified by set_open, unless 's' was replaced since */
	if (!qrels_path && ref.tag && !judged_on && !dropped)
		so.set_digest = s.digest;
	if (early.nr_done && dropped) {
		/* a bug: only a TREC run's questions are scored early, and a TREC
		 * run records no corpus, so no label can have been left out */
		fprintf(stderr, "fatal: score: labels left out after questions were scored\n");
		abort();
	}
	if (qrels_path ? score_qrels(&qr, &run, run_path, &so, &res, &sum) < 0
		       : score_set_early(&s, s.version, &run, run_path, &so, early.s ? &early : NULL,
					 &res, &sum) < 0)
		goto out;
	if (judged_only) {
		struct score_options all = so;
		struct score_summary all_sum;

		all.judged_only = false;
		memset(&all_sum, 0, sizeof(all_sum));
		if (qrels_path ? score_qrels(&qr, &run, run_path, &all, &full, &all_sum) < 0
			       : score_set(&s, s.version, &run, run_path, &all, &full, &all_sum) < 0) {
			score_summary_release(&all_sum);
			goto out;
		}
		score_summary_release(&all_sum);
		keep_real_judged(&res, &full);
	}
	if (dropped) {
		/* the results are of the set version scored, some labels left out */
		free(res.set_digest);
		res.set_digest = xstrdup(absent_digest);
		res.labels_absent = (long)dropped;
		if (judged_only) {
			free(full.set_digest);
			full.set_digest = xstrdup(absent_digest);
		}
	}
	if (judged_on) {
		/* the results are of the set version scored, judged on another corpus */
		free(res.set_digest);
		res.set_digest = xstrdup(orig_digest);
		res.judged_on = xstrdup(judged_on);
		if (judged_only) {
			free(full.set_digest);
			full.set_digest = xstrdup(orig_digest);
		}
	}

	/* Leak@k: asked for, or by default at --k when a question forbids ids */
	if (!qrels_path && !mlist_given && set_nr_forbidding(&s))
		leak_ks[nr_leak_ks++] = k;
	if (qrels_path && nr_leak_ks) {
		error("Leak@k needs a set's forbidden ids; TREC qrels have none");
		goto out;
	}
	if (!qrels_path && set_nr_forbidding(&s)) {
		/* results carry every question's leaks, whatever is shown */
		if (leak_needs_corpus(&s) && !corpus_read &&
		    set_corpus_load(&s, ref.dir, &corpus) < 0)
			goto out;
		if (set_forbid_ready(&s, &corpus) < 0)
			goto out;
		leak_record(&s, corpus.nr ? &corpus : NULL, &run, &res);
	}
	for (size_t i = 0; i < nr_leak_ks; i++)
		leak_find(&s, corpus.nr ? &corpus : NULL, &run, leak_ks[i], &leaks[i]);

	/* first turns and follow-ups apart, whenever the set has conversations */
	if (!qrels_path && set_has_conversations(&s) && !by_has(by, "turn")) {
		by_auto = by ? xstrfmt("%s,turn", by) : xstrdup("turn");
		by = by_auto;
	}
	if (oc.fmt == TABLE_JSON) {
		cJSON *tree = judged_only ? json_with_full(&res, &full) : results_to_tree(&res);

		if (by)
			add_json_breakdowns(tree, &res, by);
		if (nr_leak_ks)
			add_json_leaks(tree, leaks, nr_leak_ks);
		if (res.has_calls)
			add_json_calls(tree, &res);
		json_add_tree(&out, tree, true);
	} else {
		print_header(&oc, &res, &run, &sum, qrels_path != NULL,
			     corpus_note.len ? corpus_note.buf : NULL);
		print_measures(&oc, &res, judged_only ? &full : NULL, &sum, &so);
		if (nr_leak_ks)
			print_leaks(&oc, leaks, nr_leak_ks);
		print_find_vs_rank(&oc, &res, &sum);
		if (by)
			print_breakdowns(&oc, &res, by);
		if (per_query)
			print_per_query(&oc, &res, leak_ks, nr_leak_ks);
	}
	if (save && results_save(&res, save) < 0)
		goto out;
	if (write_stdout(out.buf, out.len) < 0)
		goto out;
	ret = EXIT_OK;
out:
	free(by_auto);
	strbuf_release(&out);
	strbuf_release(&corpus_note);
	results_release(&res);
	results_release(&full);
	run_release(&run);
	qrels_release(&qr);
	score_summary_release(&sum);
	for (size_t i = 0; i < nr_leak_ks; i++)
		leak_report_release(&leaks[i]);
	corpus_release(&corpus);
	corpus_release(&other);
	score_early_release(&early);
	set_release(&s);
	set_ref_release(&ref);
	free(judged_on);
	return ret;
}
