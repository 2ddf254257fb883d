/*
 * results: per-question scores saved by `score --save` (format in results.h).
 *
 * Written and read with cJSON. Doubles are printed by cJSON with enough
 * digits to round-trip exactly, so compare sees the values score computed.
 * A value that was not scored (NAN) is written as null and read back as NAN.
 * Loading checks every field's type and names the file and the field on
 * error; unknown keys are ignored so the format can grow.
 */
#include "score/results.h"

#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsonstr.h"
#include "base/jsontree.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RESULTS_MAX_BYTES (512u << 20)

void results_init(struct results *r)
{
	memset(r, 0, sizeof(*r));
	r->format = RESULTS_FORMAT;
}

static void free_strings(char **s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

#define RESULTS_SCAN_MAX 16  /* up to this many questions, a lookup scans them */

struct results_lookup {
	const struct question_result *q;  /* what the index was built on */
	size_t nr;
	struct strmap ids;                /* id -> index + 1 (the first with that id) */
};

static void lookup_free(struct results_lookup *l)
{
	if (!l)
		return;
	strmap_clear(&l->ids, 0);
	free(l);
}

void question_result_release(struct question_result *q)
{
	free(q->id);
	free(q->text);
	free(q->origin);
	free(q->turn);
	free_strings(q->tags, q->nr_tags);
	free(q->rel_ranks);
	free_strings(q->top, q->nr_top);
	for (size_t j = 0; j < q->nr_judged; j++)
		free(q->judged[j].id);
	free(q->judged);
	free(q->levels);
	for (size_t j = 0; j < q->nr_docs; j++)
		free(q->docs[j].doc);
	free(q->docs);
	free(q->doc_levels);
	free(q->call_end);
	free(q->values);
	for (size_t j = 0; j < q->nr_leaks; j++) {
		free(q->leaks[j].chunk);
		free(q->leaks[j].entry);
	}
	free(q->leaks);
}

void results_release(struct results *r)
{
	for (size_t i = 0; i < r->nr; i++)
		question_result_release(&r->q[i]);
	free(r->q);
	free(r->set_name);
	free(r->set_version);
	free(r->set_digest);
	free(r->judged_on);
	free(r->run_corpus);
	free(r->run_path);
	free(r->run_sha256);
	free(r->run_name);
	free(r->run_ranked_by);
	free(r->run_query_form);
	free_strings(r->measures, r->nr_measures);
	free(r->aggregate);
	free(r->file);
	lookup_free(r->lookup);
	memset(r, 0, sizeof(*r));
}

long results_measure(const struct results *r, const char *measure)
{
	for (size_t i = 0; i < r->nr_measures; i++)
		if (!strcmp(r->measures[i], measure))
			return (long)i;
	return -1;
}

struct question_result *results_find(const struct results *r, const char *id)
{
	struct results_lookup *l = r->lookup;
	struct strmap_entry *e;

	if (r->nr <= RESULTS_SCAN_MAX) {
		for (size_t i = 0; i < r->nr; i++)
			if (!strcmp(r->q[i].id, id))
				return &r->q[i];
		return NULL;
	}
	if (!l || l->q != r->q || l->nr != r->nr) {
		lookup_free(l);
		l = xcalloc(1, sizeof(*l));
		l->q = r->q;
		l->nr = r->nr;
		l->ids.borrowed = 1;  /* the ids are the questions' own */
		strmap_reserve(&l->ids, r->nr);
		for (size_t i = 0; i < r->nr; i++) {
			int added;

			size_t len = strlen(r->q[i].id);

			e = strmap_intern_hashed(&l->ids, r->q[i].id, len, strhash(r->q[i].id, len),
						 &added);
			if (added)
				e->value = (void *)(uintptr_t)(i + 1);
		}
		/* the cache is not the results' content: 'r' is const to callers,
		 * and every struct results is a modifiable object */
		((struct results *)r)->lookup = l;
	}
	e = strmap_find(&l->ids, id, strlen(id));
	return e ? &r->q[(uintptr_t)e->value - 1] : NULL;
}

size_t results_leaks_at(const struct question_result *q, long k)
{
	size_t n = 0;

	while (n < q->nr_leaks && q->leaks[n].rank <= k)
		n++;
	return n;
}

/*
 * Return 'v' as a JSON number written with the fewest digits that read back
 * as exactly 'v' (cJSON's own printer rounds to 15 digits when they are
 * "close enough", which would make compare see other values than score).
 */
static const char *exact_text(double v, char buf[40])
{
	if (!isfinite(v))
		return "null";
	/* most values are whole (0 and 1 of R@k, Success@k): "%.15g" writes a
	 * whole number below 1e15 as its digits, which this does without printf */
	if (v == trunc(v) && fabs(v) < 1e15) {
		char *p = buf + 39;
		unsigned long long u = (unsigned long long)fabs(v);

		*p = '\0';
		do {
			*--p = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		if (signbit(v))
			*--p = '-';  /* "%.15g" writes -0.0 as "-0" */
		return p;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, 40, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

static cJSON *num_or_null(double v)
{
	char buf[40];

	return isfinite(v) ? cJSON_CreateRaw(exact_text(v, buf)) : cJSON_CreateNull();
}

cJSON *results_to_tree(const struct results *r)
{
	cJSON *root = cJSON_CreateObject(), *o, *a;

	cJSON_AddNumberToObject(root, "evalset_results", RESULTS_FORMAT);
	o = cJSON_AddObjectToObject(root, "set");
	json_add_str_or_null(o, "name", r->set_name);
	json_add_str_or_null(o, "version", r->set_version);
	json_add_str_or_null(o, "digest", r->set_digest);
	if (r->judged_on)
		cJSON_AddStringToObject(o, "judged_on", r->judged_on);
	o = cJSON_AddObjectToObject(root, "run");
	json_add_str_or_null(o, "path", r->run_path);
	json_add_str_or_null(o, "sha256", r->run_sha256);
	json_add_str_or_null(o, "name", r->run_name);
	if (r->run_ranked_by)
		cJSON_AddStringToObject(o, "ranked_by", r->run_ranked_by);
	if (r->run_query_form)
		cJSON_AddStringToObject(o, "query_form", r->run_query_form);
	if (r->run_corpus)
		cJSON_AddStringToObject(o, "corpus", r->run_corpus);
	if (r->labels_absent)
		cJSON_AddNumberToObject(o, "labels_absent", (double)r->labels_absent);
	cJSON_AddNumberToObject(root, "k", r->k);
	cJSON_AddNumberToObject(root, "depth", r->depth);
	a = cJSON_AddArrayToObject(root, "measures");
	for (size_t i = 0; i < r->nr_measures; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(r->measures[i]));
	o = cJSON_AddObjectToObject(root, "aggregate");
	for (size_t i = 0; i < r->nr_measures; i++)
		cJSON_AddItemToObject(o, r->measures[i], num_or_null(r->aggregate[i]));
	o = cJSON_AddObjectToObject(root, "decline");
	cJSON_AddItemToObject(o, "Decline", num_or_null(r->decline));
	cJSON_AddItemToObject(o, "FalseDecline", num_or_null(r->false_decline));
	cJSON_AddNumberToObject(o, "unanswerable", (double)r->nr_unanswerable);
	cJSON_AddNumberToObject(o, "answerable", (double)r->nr_answerable);
	a = cJSON_AddArrayToObject(root, "questions");
	for (size_t i = 0; i < r->nr; i++) {
		const struct question_result *q = &r->q[i];
		cJSON *qo = cJSON_CreateObject(), *x;

		json_add_str_or_null(qo, "id", q->id);
		json_add_str_or_null(qo, "text", q->text);
		json_add_str_or_null(qo, "origin", q->origin);
		cJSON_AddBoolToObject(qo, "answerable", q->answerable);
		x = cJSON_AddArrayToObject(qo, "tags");
		for (size_t t = 0; t < q->nr_tags; t++)
			cJSON_AddItemToArray(x, cJSON_CreateString(q->tags[t]));
		if (q->turn)
			cJSON_AddStringToObject(qo, "turn", q->turn);
		cJSON_AddBoolToObject(qo, "missing", q->missing);
		cJSON_AddBoolToObject(qo, "declined", q->declined);
		if (q->unjudged)
			cJSON_AddBoolToObject(qo, "unjudged", 1);
		cJSON_AddNumberToObject(qo, "num_ret", (double)q->num_ret);
		cJSON_AddNumberToObject(qo, "num_rel", (double)q->num_rel);
		x = cJSON_AddArrayToObject(qo, "rel_ranks");
		for (size_t t = 0; t < q->nr_rel_ranks; t++)
			cJSON_AddItemToArray(x, cJSON_CreateNumber((double)q->rel_ranks[t]));
		x = cJSON_AddArrayToObject(qo, "top");
		for (size_t t = 0; t < q->nr_top; t++)
			cJSON_AddItemToArray(x, cJSON_CreateString(q->top[t]));
		x = cJSON_AddArrayToObject(qo, "judged");
		for (size_t t = 0; t < q->nr_judged; t++) {
			cJSON *e = cJSON_CreateArray();

			cJSON_AddItemToArray(e, cJSON_CreateNumber((double)q->judged[t].rank));
			cJSON_AddItemToArray(e, cJSON_CreateString(q->judged[t].id));
			cJSON_AddItemToArray(e, cJSON_CreateNumber(q->judged[t].grade));
			cJSON_AddItemToArray(x, e);
		}
		x = cJSON_AddArrayToObject(qo, "levels");
		for (int g = 0; g < q->nr_levels; g++)
			cJSON_AddItemToArray(x, cJSON_CreateNumber((double)q->levels[g]));
		if (r->has_docs) {
			x = cJSON_AddArrayToObject(qo, "docs");
			for (size_t t = 0; t < q->nr_docs; t++) {
				cJSON *e = cJSON_CreateArray();

				cJSON_AddItemToArray(e, cJSON_CreateNumber((double)q->docs[t].rank));
				cJSON_AddItemToArray(e, cJSON_CreateNumber((double)q->docs[t].pos));
				cJSON_AddItemToArray(e, cJSON_CreateString(q->docs[t].doc));
				cJSON_AddItemToArray(e, cJSON_CreateNumber(q->docs[t].grade));
				cJSON_AddItemToArray(x, e);
			}
			x = cJSON_AddArrayToObject(qo, "doc_levels");
			for (int g = 0; g < q->nr_doc_levels; g++)
				cJSON_AddItemToArray(x, cJSON_CreateNumber((double)q->doc_levels[g]));
		}
		if (r->has_calls) {
			x = cJSON_AddArrayToObject(qo, "calls");
			for (size_t t = 0; t < q->nr_calls; t++)
				cJSON_AddItemToArray(x, cJSON_CreateNumber((double)q->call_end[t]));
		}
		x = cJSON_AddObjectToObject(qo, "values");
		if (q->answerable && !q->unjudged && q->values)
			for (size_t m = 0; m < r->nr_measures; m++)
				cJSON_AddItemToObject(x, r->measures[m], num_or_null(q->values[m]));
		if (q->forbids) {
			x = cJSON_AddArrayToObject(qo, "leaks");
			for (size_t t = 0; t < q->nr_leaks; t++) {
				cJSON *e = cJSON_CreateArray();

				cJSON_AddItemToArray(e, cJSON_CreateNumber((double)q->leaks[t].rank));
				cJSON_AddItemToArray(e, cJSON_CreateString(q->leaks[t].chunk));
				cJSON_AddItemToArray(e, cJSON_CreateString(q->leaks[t].entry));
				cJSON_AddItemToArray(x, e);
			}
		}
		cJSON_AddItemToArray(a, qo);
	}
	return root;
}

/* The members of the question 'q' of 'r', as results_to_tree adds them. */
static void write_question(struct json_pretty *w, const struct results *r, const struct question_result *q)
{
	char buf[40];

	json_pretty_string(w, "id", q->id);
	json_pretty_string(w, "text", q->text);
	json_pretty_string(w, "origin", q->origin);
	json_pretty_bool(w, "answerable", q->answerable);
	json_pretty_open(w, "tags", '[');
	for (size_t t = 0; t < q->nr_tags; t++)
		json_pretty_string(w, NULL, q->tags[t]);
	json_pretty_close(w);
	if (q->turn)
		json_pretty_string(w, "turn", q->turn);
	json_pretty_bool(w, "missing", q->missing);
	json_pretty_bool(w, "declined", q->declined);
	if (q->unjudged)
		json_pretty_bool(w, "unjudged", true);
	json_pretty_long(w, "num_ret", q->num_ret);
	json_pretty_long(w, "num_rel", q->num_rel);
	json_pretty_open(w, "rel_ranks", '[');
	for (size_t t = 0; t < q->nr_rel_ranks; t++)
		json_pretty_long(w, NULL, q->rel_ranks[t]);
	json_pretty_close(w);
	json_pretty_open(w, "top", '[');
	for (size_t t = 0; t < q->nr_top; t++)
		json_pretty_string(w, NULL, q->top[t]);
	json_pretty_close(w);
	json_pretty_open(w, "judged", '[');
	for (size_t t = 0; t < q->nr_judged; t++) {
		json_pretty_open(w, NULL, '[');
		json_pretty_long(w, NULL, q->judged[t].rank);
		json_pretty_string(w, NULL, q->judged[t].id);
		json_pretty_long(w, NULL, q->judged[t].grade);
		json_pretty_close(w);
	}
	json_pretty_close(w);
	json_pretty_open(w, "levels", '[');
	for (int g = 0; g < q->nr_levels; g++)
		json_pretty_long(w, NULL, q->levels[g]);
	json_pretty_close(w);
	if (r->has_docs) {
		json_pretty_open(w, "docs", '[');
		for (size_t t = 0; t < q->nr_docs; t++) {
			json_pretty_open(w, NULL, '[');
			json_pretty_long(w, NULL, q->docs[t].rank);
			json_pretty_long(w, NULL, q->docs[t].pos);
			json_pretty_string(w, NULL, q->docs[t].doc);
			json_pretty_long(w, NULL, q->docs[t].grade);
			json_pretty_close(w);
		}
		json_pretty_close(w);
		json_pretty_open(w, "doc_levels", '[');
		for (int g = 0; g < q->nr_doc_levels; g++)
			json_pretty_long(w, NULL, q->doc_levels[g]);
		json_pretty_close(w);
	}
	if (r->has_calls) {
		json_pretty_open(w, "calls", '[');
		for (size_t t = 0; t < q->nr_calls; t++)
			json_pretty_long(w, NULL, q->call_end[t]);
		json_pretty_close(w);
	}
	json_pretty_open(w, "values", '{');
	if (q->answerable && !q->unjudged && q->values)
		for (size_t m = 0; m < r->nr_measures; m++)
			json_pretty_raw(w, r->measures[m], exact_text(q->values[m], buf));
	json_pretty_close(w);
	if (q->forbids) {
		json_pretty_open(w, "leaks", '[');
		for (size_t t = 0; t < q->nr_leaks; t++) {
			json_pretty_open(w, NULL, '[');
			json_pretty_long(w, NULL, q->leaks[t].rank);
			json_pretty_string(w, NULL, q->leaks[t].chunk);
			json_pretty_string(w, NULL, q->leaks[t].entry);
			json_pretty_close(w);
		}
		json_pretty_close(w);
	}
}

#define RESULTS_PIECE ((size_t)1 << 20)  /* results_save writes the text in pieces of this size */

/* Write 'r' into 'out'; with 'f', hand 'out' to 'f' whenever it holds a
 * piece, so that a results file of many questions never sits in memory
 * whole (growing one buffer to tens of MiB touched every page twice). */
static void write_results(const struct results *r, struct strbuf *out, struct atomic_file *f)
{
	struct json_pretty w;
	char buf[40];

	json_pretty_init(&w, out);
	json_pretty_open(&w, NULL, '{');
	json_pretty_long(&w, "evalset_results", RESULTS_FORMAT);
	json_pretty_open(&w, "set", '{');
	json_pretty_string(&w, "name", r->set_name);
	json_pretty_string(&w, "version", r->set_version);
	json_pretty_string(&w, "digest", r->set_digest);
	if (r->judged_on)
		json_pretty_string(&w, "judged_on", r->judged_on);
	json_pretty_close(&w);
	json_pretty_open(&w, "run", '{');
	json_pretty_string(&w, "path", r->run_path);
	json_pretty_string(&w, "sha256", r->run_sha256);
	json_pretty_string(&w, "name", r->run_name);
	if (r->run_ranked_by)
		json_pretty_string(&w, "ranked_by", r->run_ranked_by);
	if (r->run_query_form)
		json_pretty_string(&w, "query_form", r->run_query_form);
	if (r->run_corpus)
		json_pretty_string(&w, "corpus", r->run_corpus);
	if (r->labels_absent)
		json_pretty_long(&w, "labels_absent", r->labels_absent);
	json_pretty_close(&w);
	json_pretty_long(&w, "k", r->k);
	json_pretty_long(&w, "depth", r->depth);
	json_pretty_open(&w, "measures", '[');
	for (size_t i = 0; i < r->nr_measures; i++)
		json_pretty_string(&w, NULL, r->measures[i]);
	json_pretty_close(&w);
	json_pretty_open(&w, "aggregate", '{');
	for (size_t i = 0; i < r->nr_measures; i++)
		json_pretty_raw(&w, r->measures[i], exact_text(r->aggregate[i], buf));
	json_pretty_close(&w);
	json_pretty_open(&w, "decline", '{');
	json_pretty_raw(&w, "Decline", exact_text(r->decline, buf));
	json_pretty_raw(&w, "FalseDecline", exact_text(r->false_decline, buf));
	json_pretty_long(&w, "unanswerable", r->nr_unanswerable);
	json_pretty_long(&w, "answerable", r->nr_answerable);
	json_pretty_close(&w);
	json_pretty_open(&w, "questions", '[');
	for (size_t i = 0; i < r->nr; i++) {
		json_pretty_open(&w, NULL, '{');
		write_question(&w, r, &r->q[i]);
		json_pretty_close(&w);
		if (f && out->len >= RESULTS_PIECE) {
			atomic_file_write(f, out->buf, out->len);  /* a failure is kept in 'f' */
			strbuf_reset(out);
		}
	}
	json_pretty_close(&w);
	json_pretty_close(&w);
	strbuf_addch(out, '\n');
}

void results_write(const struct results *r, struct strbuf *out)
{
	write_results(r, out, NULL);
}

int results_save(const struct results *r, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct atomic_file f;
	int rc;

	if (atomic_file_open(&f, path) < 0)
		return -1;
	write_results(r, &sb, &f);
	atomic_file_write(&f, sb.buf, sb.len);
	rc = atomic_file_commit(&f);  /* refuses, and removes the temporary file, after a failed write */
	strbuf_release(&sb);
	return rc;
}

/* ---- loading ---- */

struct loader {
	const char *file;
	int failed;
};

static int bad(struct loader *l, const char *field, const char *want)
{
	if (!l->failed)
		error("%s: field '%s' is not %s", l->file, field, want);
	l->failed = 1;
	return -1;
}

static char *get_str(struct loader *l, const cJSON *o, const char *key, const char *field, bool null_ok)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsString(v))
		return xstrdup(v->valuestring);
	if ((!v || cJSON_IsNull(v)) && null_ok)
		return NULL;
	bad(l, field, null_ok ? "a string or null" : "a string");
	return NULL;
}

static double get_num(struct loader *l, const cJSON *o, const char *key, const char *field, bool null_ok)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsNumber(v))
		return v->valuedouble;
	if ((!v || cJSON_IsNull(v)) && null_ok)
		return NAN;
	bad(l, field, "a number");
	return NAN;
}

static bool get_bool(struct loader *l, const cJSON *o, const char *key, const char *field)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		return false;
	if (!cJSON_IsBool(v))
		bad(l, field, "true or false");
	return cJSON_IsTrue(v);
}

static char **get_str_list(struct loader *l, const cJSON *o, const char *key, const char *field,
			   size_t *nr)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key), *it;
	char **out;
	size_t n = 0;

	*nr = 0;
	if (!v)
		return NULL;
	if (!cJSON_IsArray(v)) {
		bad(l, field, "a list of strings");
		return NULL;
	}
	out = xcalloc((size_t)cJSON_GetArraySize(v) + 1, sizeof(char *));
	cJSON_ArrayForEach(it, v) {
		if (!cJSON_IsString(it)) {
			bad(l, field, "a list of strings");
			break;
		}
		out[n++] = xstrdup(it->valuestring);
	}
	*nr = n;
	return out;
}

/* Read "judged" ([rank, id, grade] triples) and "levels" (counts). */
static void load_judged(struct loader *l, const cJSON *qo, struct question_result *q)
{
	const cJSON *jd = cJSON_GetObjectItemCaseSensitive(qo, "judged");
	const cJSON *lv = cJSON_GetObjectItemCaseSensitive(qo, "levels"), *it;

	if (!cJSON_IsArray(jd)) {
		bad(l, "questions[].judged", "a list of [rank, id, grade]");
		return;
	}
	q->judged = xcalloc((size_t)cJSON_GetArraySize(jd) + 1, sizeof(*q->judged));
	cJSON_ArrayForEach(it, jd) {
		const cJSON *rank = cJSON_GetArrayItem(it, 0), *id = cJSON_GetArrayItem(it, 1);
		const cJSON *grade = cJSON_GetArrayItem(it, 2);
		struct results_judged *j = &q->judged[q->nr_judged];
		long g;

		if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 3 || !cJSON_IsNumber(rank) ||
		    double_to_long(rank->valuedouble, 1, LONG_MAX, &j->rank) < 0 ||
		    !cJSON_IsString(id) || !cJSON_IsNumber(grade) ||
		    double_to_long(grade->valuedouble, -1000000, 1000000, &g) < 0) {
			bad(l, "questions[].judged", "a list of [rank, id, grade] (whole ranks from 1, whole grades)");
			return;
		}
		j->grade = (int)g;
		j->id = xstrdup(id->valuestring);
		q->nr_judged++;
	}
	if (!cJSON_IsArray(lv) || cJSON_GetArraySize(lv) > 1000) {
		bad(l, "questions[].levels", "a list of counts");
		return;
	}
	q->levels = xcalloc((size_t)cJSON_GetArraySize(lv) + 1, sizeof(long));
	cJSON_ArrayForEach(it, lv) {
		if (!cJSON_IsNumber(it) ||
		    double_to_long(it->valuedouble, 0, LONG_MAX, &q->levels[q->nr_levels]) < 0) {
			bad(l, "questions[].levels", "a list of counts (whole numbers from 0)");
			return;
		}
		q->nr_levels++;
	}
}

/* Read "leaks" ([rank, id, entry] triples), present for a question with a
 * forbidden list. */
static void load_leaks(struct loader *l, const cJSON *qo, struct question_result *q)
{
	const cJSON *lk = cJSON_GetObjectItemCaseSensitive(qo, "leaks"), *it;

	if (!lk)
		return;
	if (!cJSON_IsArray(lk)) {
		bad(l, "questions[].leaks", "a list of [rank, id, forbidden entry]");
		return;
	}
	q->forbids = true;
	q->leaks = xcalloc((size_t)cJSON_GetArraySize(lk) + 1, sizeof(*q->leaks));
	cJSON_ArrayForEach(it, lk) {
		const cJSON *rank = cJSON_GetArrayItem(it, 0), *id = cJSON_GetArrayItem(it, 1);
		const cJSON *entry = cJSON_GetArrayItem(it, 2);
		struct results_leak *x = &q->leaks[q->nr_leaks];

		if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 3 || !cJSON_IsNumber(rank) ||
		    double_to_long(rank->valuedouble, 1, LONG_MAX, &x->rank) < 0 ||
		    !cJSON_IsString(id) || !cJSON_IsString(entry)) {
			bad(l, "questions[].leaks", "a list of [rank, id, forbidden entry] (whole ranks from 1)");
			return;
		}
		x->chunk = xstrdup(id->valuestring);
		x->entry = xstrdup(entry->valuestring);
		q->nr_leaks++;
	}
}

/* Read "docs" ([rank, position, name, grade]) and "doc_levels" (counts);
 * return whether the question has them. */
static bool load_docs(struct loader *l, const cJSON *qo, struct question_result *q)
{
	const cJSON *ds = cJSON_GetObjectItemCaseSensitive(qo, "docs");
	const cJSON *lv = cJSON_GetObjectItemCaseSensitive(qo, "doc_levels"), *it;

	if (!ds && !lv)
		return false;
	if (!cJSON_IsArray(ds)) {
		bad(l, "questions[].docs", "a list of [rank, position, name, grade]");
		return false;
	}
	q->docs = xcalloc((size_t)cJSON_GetArraySize(ds) + 1, sizeof(*q->docs));
	cJSON_ArrayForEach(it, ds) {
		const cJSON *rank = cJSON_GetArrayItem(it, 0), *pos = cJSON_GetArrayItem(it, 1);
		const cJSON *name = cJSON_GetArrayItem(it, 2), *grade = cJSON_GetArrayItem(it, 3);
		struct results_doc *d = &q->docs[q->nr_docs];
		long g;

		if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 4 || !cJSON_IsNumber(rank) ||
		    double_to_long(rank->valuedouble, 1, LONG_MAX, &d->rank) < 0 ||
		    !cJSON_IsNumber(pos) || double_to_long(pos->valuedouble, 1, LONG_MAX, &d->pos) < 0 ||
		    !cJSON_IsString(name) || !cJSON_IsNumber(grade) ||
		    double_to_long(grade->valuedouble, 1, 1000, &g) < 0) {
			bad(l, "questions[].docs", "a list of [rank, position, name, grade] (whole ranks "
			    "and positions from 1, whole grades from 1)");
			return false;
		}
		d->grade = (int)g;
		d->doc = xstrdup(name->valuestring);
		q->nr_docs++;
	}
	if (!cJSON_IsArray(lv) || cJSON_GetArraySize(lv) > 1000) {
		bad(l, "questions[].doc_levels", "a list of counts");
		return false;
	}
	q->doc_levels = xcalloc((size_t)cJSON_GetArraySize(lv) + 1, sizeof(long));
	cJSON_ArrayForEach(it, lv) {
		if (!cJSON_IsNumber(it) ||
		    double_to_long(it->valuedouble, 0, LONG_MAX, &q->doc_levels[q->nr_doc_levels]) < 0) {
			bad(l, "questions[].doc_levels", "a list of counts (whole numbers from 0)");
			return false;
		}
		q->nr_doc_levels++;
	}
	return true;
}

/* Read "calls" (where each call ends); return whether the question has it. */
static bool load_calls(struct loader *l, const cJSON *qo, struct question_result *q)
{
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(qo, "calls"), *it;

	if (!cs)
		return false;
	if (!cJSON_IsArray(cs)) {
		bad(l, "questions[].calls", "a list of ranks");
		return false;
	}
	q->call_end = xcalloc((size_t)cJSON_GetArraySize(cs) + 1, sizeof(long));
	cJSON_ArrayForEach(it, cs) {
		if (!cJSON_IsNumber(it) ||
		    double_to_long(it->valuedouble, 0, LONG_MAX, &q->call_end[q->nr_calls]) < 0) {
			bad(l, "questions[].calls", "a list of ranks (whole numbers from 0)");
			return false;
		}
		q->nr_calls++;
	}
	return true;
}

static void load_question(struct loader *l, struct results *r, const cJSON *qo,
			  struct question_result *q)
{
	const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(qo, "rel_ranks");
	const cJSON *values = cJSON_GetObjectItemCaseSensitive(qo, "values"), *it;

	if (!cJSON_IsObject(qo)) {
		bad(l, "questions[]", "an object");
		return;
	}
	q->id = get_str(l, qo, "id", "questions[].id", false);
	q->text = get_str(l, qo, "text", "questions[].text", true);
	q->origin = get_str(l, qo, "origin", "questions[].origin", true);
	q->answerable = cJSON_GetObjectItemCaseSensitive(qo, "answerable") ?
		get_bool(l, qo, "answerable", "questions[].answerable") : true;
	q->tags = get_str_list(l, qo, "tags", "questions[].tags", &q->nr_tags);
	q->turn = get_str(l, qo, "turn", "questions[].turn", true);
	q->missing = get_bool(l, qo, "missing", "questions[].missing");
	q->declined = get_bool(l, qo, "declined", "questions[].declined");
	q->unjudged = cJSON_GetObjectItemCaseSensitive(qo, "unjudged") &&
		      get_bool(l, qo, "unjudged", "questions[].unjudged");
	q->num_ret = double_clamp_long(get_num(l, qo, "num_ret", "questions[].num_ret", true), 0, LONG_MAX);
	q->num_rel = double_clamp_long(get_num(l, qo, "num_rel", "questions[].num_rel", true), 0, LONG_MAX);
	if (ranks && !cJSON_IsArray(ranks)) {
		bad(l, "questions[].rel_ranks", "a list of numbers");
	} else if (ranks) {
		q->rel_ranks = xcalloc((size_t)cJSON_GetArraySize(ranks) + 1, sizeof(long));
		cJSON_ArrayForEach(it, ranks) {
			long rank;
			if (!cJSON_IsNumber(it) || double_to_long(it->valuedouble, 1, LONG_MAX, &rank) < 0) {
				bad(l, "questions[].rel_ranks", "a list of ranks (whole numbers from 1)");
				break;
			}
			q->rel_ranks[q->nr_rel_ranks++] = rank;
		}
	}
	q->top = get_str_list(l, qo, "top", "questions[].top", &q->nr_top);
	if (r->format >= 2)
		load_judged(l, qo, q);
	if (load_docs(l, qo, q))
		r->has_docs = true;
	if (load_calls(l, qo, q))
		r->has_calls = true;
	load_leaks(l, qo, q);
	q->values = xcalloc(r->nr_measures + 1, sizeof(double));
	for (size_t m = 0; m < r->nr_measures; m++)
		q->values[m] = NAN;
	if (values && !cJSON_IsObject(values)) {
		bad(l, "questions[].values", "an object");
		return;
	}
	for (size_t m = 0; m < r->nr_measures && values; m++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(values, r->measures[m]);

		if (cJSON_IsNumber(v))
			q->values[m] = v->valuedouble;
		else if (v && !cJSON_IsNull(v))
			bad(l, "questions[].values", "an object of numbers");
	}
}

int results_load(struct results *r, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct loader l = { path, 0 };
	cJSON *root = NULL;
	const cJSON *o, *it;

	if (read_file(path, &sb, RESULTS_MAX_BYTES) < 0) {
		strbuf_release(&sb);  /* read_file leaves what it read */
		return -1;
	}
	root = cJSON_ParseWithLength(sb.buf, sb.len);
	strbuf_release(&sb);
	if (!root || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return error("%s: not a results file (not a JSON object)", path);
	}
	o = cJSON_GetObjectItemCaseSensitive(root, "evalset_results");
	if (!cJSON_IsNumber(o) || (o->valuedouble != 1 && o->valuedouble != 2)) {
		cJSON_Delete(root);
		return error("%s: not a results file of version 1 or 2 (no \"evalset_results\": 1 or 2)",
			     path);
	}
	r->format = (int)o->valuedouble;
	r->file = xstrdup(path);
	o = cJSON_GetObjectItemCaseSensitive(root, "set");
	if (!cJSON_IsObject(o)) {
		bad(&l, "set", "an object");
	} else {
		r->set_name = get_str(&l, o, "name", "set.name", true);
		r->set_version = get_str(&l, o, "version", "set.version", true);
		r->set_digest = get_str(&l, o, "digest", "set.digest", true);
		r->judged_on = get_str(&l, o, "judged_on", "set.judged_on", true);
	}
	o = cJSON_GetObjectItemCaseSensitive(root, "run");
	if (o && !cJSON_IsObject(o)) {
		bad(&l, "run", "an object");
	} else if (o) {
		r->run_path = get_str(&l, o, "path", "run.path", true);
		r->run_sha256 = get_str(&l, o, "sha256", "run.sha256", true);
		r->run_name = get_str(&l, o, "name", "run.name", true);
		r->run_ranked_by = get_str(&l, o, "ranked_by", "run.ranked_by", true);
		r->run_query_form = get_str(&l, o, "query_form", "run.query_form", true);
		r->run_corpus = get_str(&l, o, "corpus", "run.corpus", true);
		if (cJSON_GetObjectItemCaseSensitive(o, "labels_absent"))
			r->labels_absent = double_clamp_long(get_num(&l, o, "labels_absent",
								     "run.labels_absent", false), 0, LONG_MAX);
	}
	r->k = (int)get_num(&l, root, "k", "k", false);
	r->depth = (int)get_num(&l, root, "depth", "depth", false);
	r->measures = get_str_list(&l, root, "measures", "measures", &r->nr_measures);
	r->aggregate = xcalloc(r->nr_measures + 1, sizeof(double));
	o = cJSON_GetObjectItemCaseSensitive(root, "aggregate");
	for (size_t m = 0; m < r->nr_measures; m++)
		r->aggregate[m] = cJSON_IsObject(o) ?
			get_num(&l, o, r->measures[m], "aggregate", true) : NAN;
	o = cJSON_GetObjectItemCaseSensitive(root, "decline");
	if (cJSON_IsObject(o)) {
		r->decline = get_num(&l, o, "Decline", "decline.Decline", true);
		r->false_decline = get_num(&l, o, "FalseDecline", "decline.FalseDecline", true);
		r->nr_unanswerable = (long)get_num(&l, o, "unanswerable", "decline.unanswerable", false);
		r->nr_answerable = (long)get_num(&l, o, "answerable", "decline.answerable", false);
	}
	o = cJSON_GetObjectItemCaseSensitive(root, "questions");
	if (!cJSON_IsArray(o)) {
		bad(&l, "questions", "a list");
	} else {
		r->q = xcalloc((size_t)cJSON_GetArraySize(o) + 1, sizeof(*r->q));
		cJSON_ArrayForEach(it, o) {
			load_question(&l, r, it, &r->q[r->nr++]);
			if (l.failed)
				break;
		}
	}
	cJSON_Delete(root);
	if (l.failed) {
		results_release(r);
		return -1;
	}
	return 0;
}

bool results_is_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char buf[4096];
	ssize_t got;
	size_t n, i = 0;

	if (fd < 0)
		return false;
	/* a sniff: anything but a regular file is left to the run reader to refuse */
	got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof(buf) - 1) : -1;
	close(fd);
	if (got <= 0)
		return false;
	n = (size_t)got;
	buf[n] = '\0';
	while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
		i++;
	return i < n && buf[i] == '{' && strstr(buf + i, "\"evalset_results\"") != NULL;
}
