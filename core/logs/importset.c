/*
 * importset: the decisions that turn labelled query groups into questions
 * of a set, and the provenance they carry.
 *
 * Provenance of a mined question (a JSON object kept in the set's YAML):
 * source "log", count, sessions (distinct; an estimate past 1024), first_seen
 * and last_seen (when the log has times), stratum, signals (per document:
 * positive, sessions, clicks, cites, ratings, negative, short_clicks; the 20
 * documents with most positive events), logs (the digests of the log files).
 */
#include "logs/importset.h"

#include "set/corpus.h"
#include "base/strmap.h"
#include "text/text.h"
#include "base/jsonstr.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIGNAL_DOCS 20

static int by_positive(const void *a, const void *b)
{
	const struct import_doc *x = *(const struct import_doc *const *)a;
	const struct import_doc *y = *(const struct import_doc *const *)b;
	if (x->positive != y->positive)
		return x->positive > y->positive ? -1 : 1;
	if (x->negative != y->negative)
		return x->negative > y->negative ? -1 : 1;
	return strcmp(import_doc_id(x), import_doc_id(y));
}

/* Return the documents of 'q' with any signal, most positive first (caller
 * frees); ids too long for a set are left out. */
static size_t ranked_docs(const struct import_query *q, const struct import_doc ***out)
{
	const struct import_doc **d = xcalloc(q->t.nr_docs + 1, sizeof(*d));
	size_t n = 0;

	for (size_t k = 0; k < q->t.nr_docs; k++)
		if (strlen(import_doc_id(&q->t.docs[k])) <= SET_MAX_SCALAR_BYTES)
			d[n++] = &q->t.docs[k];
	qsort(d, n, sizeof(*d), by_positive);
	*out = d;
	return n;
}

static cJSON *signals_json(const struct import_query *q)
{
	const struct import_doc **docs;
	size_t n = ranked_docs(q, &docs);
	cJSON *sig = cJSON_CreateObject();

	for (size_t k = 0; k < n && k < MAX_SIGNAL_DOCS; k++) {
		const struct import_doc *d = docs[k];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "positive", (double)d->positive);
		cJSON_AddNumberToObject(o, "sessions",
					(double)(long)sketch_count(&d->sessions, IMPORT_DOC_SKETCH));
		if (d->clicks)
			cJSON_AddNumberToObject(o, "clicks", (double)d->clicks);
		if (d->cites)
			cJSON_AddNumberToObject(o, "cites", (double)d->cites);
		if (d->ratings)
			cJSON_AddNumberToObject(o, "ratings", (double)d->ratings);
		if (d->negative)
			cJSON_AddNumberToObject(o, "negative", (double)d->negative);
		if (d->short_clicks)
			cJSON_AddNumberToObject(o, "short_clicks", (double)d->short_clicks);
		cJSON_AddItemToObject(sig, import_doc_id(d), o);
	}
	free(docs);
	return sig;
}

static void add_times(cJSON *o, const struct import_query *q)
{
	char t[32];
	if (!q->t.dated)
		return;
	import_format_time(q->t.first, t);
	cJSON_AddStringToObject(o, "first_seen", t);
	import_format_time(q->t.last, t);
	cJSON_AddStringToObject(o, "last_seen", t);
}

static cJSON *provenance_json(const struct import *im, const struct import_query *q, enum stratum st)
{
	cJSON *p = cJSON_CreateObject(), *logs;

	cJSON_AddStringToObject(p, "source", "log");
	cJSON_AddNumberToObject(p, "count", (double)q->t.count);
	cJSON_AddNumberToObject(p, "sessions",
				(double)(long)sketch_count(&q->t.sessions, IMPORT_SESSION_SKETCH));
	add_times(p, q);
	cJSON_AddStringToObject(p, "stratum", stratum_name(st));
	cJSON_AddItemToObject(p, "signals", signals_json(q));
	logs = cJSON_AddArrayToObject(p, "logs");
	for (size_t k = 0; k < im->nr_logs; k++)
		cJSON_AddItemToArray(logs, cJSON_CreateString(im->logs[k].digest));
	return p;
}

/* Drop labels on chunks 'corpus' lacks (counted in the return) and on ids too long
 * for a set (counted in '*too_long'). */
static unsigned long prune_labels(struct import_query *q, const struct corpus *corpus,
				  unsigned long *too_long)
{
	unsigned long dropped = 0;
	for (size_t k = 0; k < q->t.nr_docs; k++)
		if (q->t.docs[k].grade && strlen(import_doc_id(&q->t.docs[k])) > SET_MAX_SCALAR_BYTES) {
			q->t.docs[k].grade = 0;
			q->nr_labels--;
			(*too_long)++;
		} else if (q->t.docs[k].grade && corpus &&
			   !corpus_get(corpus, import_doc_id(&q->t.docs[k]))) {
			q->t.docs[k].grade = 0;
			q->nr_labels--;
			dropped++;
		}
	return dropped;
}

static void retire_synthetic(struct set *s, struct import_outcome *out)
{
	struct strmap covered = STRMAP_INIT;  /* chunk -> id of a mined question */

	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		if (q->origin != ORIGIN_MINED)
			continue;
		for (size_t k = 0; k < q->nr_relevant; k++)
			if (!strmap_get(&covered, q->relevant[k].chunk))
				strmap_put(&covered, q->relevant[k].chunk, q->id);
	}
	for (size_t i = s->nr; i-- > 0;) {
		struct question *q = &s->q[i];
		struct strbuf by = STRBUF_INIT;
		bool all = q->origin == ORIGIN_SYNTHETIC && q->nr_relevant > 0;

		for (size_t k = 0; all && k < q->nr_relevant; k++) {
			const char *id = strmap_get(&covered, q->relevant[k].chunk);
			if (!id) {
				all = false;
				break;
			}
			/* list each covering question once */
			bool seen = false;
			for (const char *p = by.buf; *p && !seen;) {
				size_t n = strcspn(p, ",");
				seen = n == strlen(id) && !strncmp(p, id, n);
				p += n + (p[n] == ',');
			}
			if (!seen) {
				if (by.len)
					strbuf_addch(&by, ',');
				strbuf_addstr(&by, id);
			}
		}
		if (!all) {
			strbuf_release(&by);
			continue;
		}
		ALLOC_GROW(out->retired, out->nr_retired + 1, out->alloc_retired);
		out->retired[out->nr_retired].id = xstrdup(q->id);
		out->retired[out->nr_retired].text = xstrdup(q->text);
		out->retired[out->nr_retired].covered_by = strbuf_detach(&by, NULL);
		out->nr_retired++;
	}
	/* covered points at ids of questions that stay; remove after listing */
	for (size_t r = 0; r < out->nr_retired; r++) {
		long idx = set_index(s, out->retired[r].id);
		if (idx >= 0)
			set_remove(s, (size_t)idx);
	}
	strmap_clear(&covered, 0);
	/* list in set order */
	for (size_t a = 0, b = out->nr_retired; b > 1 && a < --b; a++) {
		struct import_retired t = out->retired[a];
		out->retired[a] = out->retired[b];
		out->retired[b] = t;
	}
}

int import_apply(struct import *im, struct set *s, const struct import_apply_options *o,
		 struct import_outcome *out)
{
	struct dedup *dd = dedup_new(TEXT_NEAR_DUP_THRESHOLD);
	unsigned long *counts = xcalloc(im->nr + 1, sizeof(unsigned long));
	size_t nr_set = s->nr, *cand = xcalloc(im->nr + 1, sizeof(size_t)), nr_cand = 0;
	long floor = o->floor;
	struct set no_questions = SET_INIT;

	memset(out, 0, sizeof(*out));
	out->nr = im->nr;
	out->status = xcalloc(im->nr + 1, sizeof(*out->status));
	out->stratum = xcalloc(im->nr + 1, sizeof(*out->stratum));
	out->dup_of = xcalloc(im->nr + 1, sizeof(char *));
	out->ids = xcalloc(im->nr + 1, sizeof(char *));

	for (size_t i = 0; i < im->nr; i++)
		counts[i] = im->q[i].t.count;
	strata_assign(counts, im->nr, out->stratum);
	/* rarest words first in the filter's prefixes: short candidate lists */
	for (size_t i = 0; i < im->nr; i++)
		if (im->q[i].dd.norm)
			dedup_hint(dd, &im->q[i].dd);
	for (size_t i = 0; i < nr_set; i++)
		if (s->q[i].text)
			dedup_add(dd, s->q[i].text, (long)i);
	for (size_t i = 0; i < s->nr; i++) {
		long n = question_id_number(s->q[i].id);
		if (n > floor)
			floor = n;
	}

	for (size_t i = 0; i < im->nr; i++) {
		struct import_query *q = &im->q[i];
		long dup = q->dd.norm ? dedup_check_prepared(dd, q->text, &q->dd, (long)(nr_set + i))
				      : dedup_check(dd, q->text, (long)(nr_set + i));

		if (dup >= 0) {
			out->status[i] = IMPORT_DUPLICATE;
			out->dup_of[i] = xstrdup((size_t)dup < nr_set ? s->q[dup].id
							       : im->q[dup - (long)nr_set].text);
			out->duplicates++;
			continue;
		}
		out->dropped_labels += prune_labels(q, o->corpus, &out->long_labels);
		if (!q->nr_labels) {
			out->status[i] = IMPORT_UNLABELLED;
			out->unlabelled++;
			continue;
		}
		out->status[i] = IMPORT_ADDED;
		cand[nr_cand++] = i;
	}
	out->candidates = nr_cand;
	if (o->have_sample && (size_t)o->sample < nr_cand) {
		enum stratum *st = xcalloc(nr_cand, sizeof(*st));
		bool *chosen = xcalloc(nr_cand, sizeof(bool));
		for (size_t k = 0; k < nr_cand; k++)
			st[k] = out->stratum[cand[k]];
		sample_stratified(st, nr_cand, (size_t)o->sample, o->seed, chosen);
		for (size_t k = 0; k < nr_cand; k++)
			if (!chosen[k]) {
				out->status[cand[k]] = IMPORT_NOT_SAMPLED;
				out->not_sampled++;
			}
		free(st);
		free(chosen);
	}
	for (size_t k = 0; k < nr_cand; k++) {
		size_t i = cand[k];
		struct import_query *q = &im->q[i];
		struct question *nq;

		if (out->status[i] != IMPORT_ADDED)
			continue;
		nq = set_append(s);
		/* 'floor' already covers every id of 's': ask with an empty set (O(1)) */
		nq->id = set_next_id(&no_questions, floor);
		if (question_id_number(nq->id) > floor)
			floor = question_id_number(nq->id);
		nq->text = xstrdup(q->text);
		nq->origin = ORIGIN_MINED;
		nq->answerable = true;
		for (size_t d = 0; d < q->t.nr_docs; d++) {
			const char *id = import_doc_id(&q->t.docs[d]);
			const struct chunk *ch;

			if (!q->t.docs[d].grade)
				continue;
			/* a new question; a query's documents are distinct */
			question_append_label(nq, id, q->t.docs[d].grade);
			/* the clicked chunk's place in its document, so the label
			 * survives a re-chunking (remap) without the old corpus */
			ch = o->corpus ? corpus_get(o->corpus, id) : NULL;
			if (ch && ch->doc && ch->start >= 0) {
				struct evidence e = { (char *)id, ch->doc, ch->start, ch->end, NULL, 0, 0 };
				question_add_evidence(nq, &e);
			}
		}
		nq->provenance = provenance_json(im, q, out->stratum[i]);
		out->ids[i] = xstrdup(nq->id);
		out->added++;
		out->added_by_stratum[out->stratum[i]]++;
	}
	if (o->replace_synthetic)
		retire_synthetic(s, out);
	out->floor = floor;
	free(counts);
	free(cand);
	dedup_free(dd);
	return 0;
}

void import_outcome_release(struct import_outcome *out)
{
	for (size_t i = 0; i < out->nr; i++) {
		free(out->dup_of[i]);
		free(out->ids[i]);
	}
	for (size_t r = 0; r < out->nr_retired; r++) {
		free(out->retired[r].id);
		free(out->retired[r].text);
		free(out->retired[r].covered_by);
	}
	free(out->retired);
	free(out->status);
	free(out->stratum);
	free(out->dup_of);
	free(out->ids);
	memset(out, 0, sizeof(*out));
}

/*
 * The lines of --unlabelled are written directly, not through cJSON: a
 * large log leaves tens of thousands of them. The bytes are those
 * cJSON_PrintUnformatted gives for the same object (t-logimport checks).
 */
/* Append the decimal digits of 'v' to 'sb' (strbuf_addf costs more than the line it writes). */
static void add_uint(struct strbuf *sb, unsigned long v)
{
	char tmp[24];
	size_t n = sizeof(tmp);

	do
		tmp[--n] = (char)('0' + v % 10);
	while ((v /= 10));
	strbuf_add(sb, tmp + n, sizeof(tmp) - n);
}

/* Append ",\"KEY\":" and 'v' to 'sb'. */
static void add_field(struct strbuf *sb, const char *key, unsigned long v)
{
	strbuf_addstr(sb, ",\"");
	strbuf_addstr(sb, key);
	strbuf_addstr(sb, "\":");
	add_uint(sb, v);
}

void import_unlabelled_jsonl(const struct import *im, const struct import_outcome *out,
			     struct strbuf *sb)
{
	for (size_t i = 0; i < im->nr && i < out->nr; i++) {
		const struct import_query *q = &im->q[i];
		const struct import_doc **docs;
		size_t n;
		char t[32];

		if (out->status[i] != IMPORT_UNLABELLED)
			continue;
		strbuf_addstr(sb, "{\"query\":");
		json_add_string(sb, q->text, JSON_CJSON);
		add_field(sb, "count", q->t.count);
		add_field(sb, "sessions", (unsigned long)sketch_count(&q->t.sessions, IMPORT_SESSION_SKETCH));
		if (q->t.dated) {
			import_format_time(q->t.first, t);
			strbuf_addstr(sb, ",\"first_seen\":\"");
			strbuf_addstr(sb, t);
			import_format_time(q->t.last, t);
			strbuf_addstr(sb, "\",\"last_seen\":\"");
			strbuf_addstr(sb, t);
			strbuf_addch(sb, '"');
		}
		strbuf_addstr(sb, ",\"stratum\":\"");
		strbuf_addstr(sb, stratum_name(out->stratum[i]));
		strbuf_addstr(sb, "\",\"docs\":{");
		n = ranked_docs(q, &docs);
		for (size_t k = 0; k < n && k < MAX_SIGNAL_DOCS; k++) {
			const struct import_doc *d = docs[k];
			if (k)
				strbuf_addch(sb, ',');
			json_add_string(sb, import_doc_id(d), JSON_CJSON);
			strbuf_addstr(sb, ":{\"positive\":");
			add_uint(sb, d->positive);
			add_field(sb, "sessions", (unsigned long)sketch_count(&d->sessions, IMPORT_DOC_SKETCH));
			if (d->clicks)
				add_field(sb, "clicks", d->clicks);
			if (d->cites)
				add_field(sb, "cites", d->cites);
			if (d->ratings)
				add_field(sb, "ratings", d->ratings);
			if (d->negative)
				add_field(sb, "negative", d->negative);
			if (d->short_clicks)
				add_field(sb, "short_clicks", d->short_clicks);
			strbuf_addch(sb, '}');
		}
		free(docs);
		strbuf_addstr(sb, "}}\n");
	}
}
