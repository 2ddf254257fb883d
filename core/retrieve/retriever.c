/*
 * retriever: jobs and their answers, the checks every reply goes through,
 * the built-in BM25 retriever and the JSONL run file (see retriever.h).
 * The command and HTTP retrievers live in retriever-cmd.c and
 * retriever-url.c.
 *
 * Invariants: an answer is either untouched (answered false, no hits) or
 * complete and valid (answered true: ids non-empty and unique, at most k);
 * a reply that fails a check never leaves a half-filled answer behind, so
 * whatever stops a job, the answers kept are exactly the accepted ones.
 */
#include "retrieve/retriever.h"
#include "retrieve/bm25.h"
#include "set/corpus.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/strmap.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXCERPT_BYTES 60

double retriever_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

void retriever_excerpt(struct strbuf *out, const char *s, size_t len)
{
	size_t n = len < EXCERPT_BYTES ? len : EXCERPT_BYTES;

	for (size_t i = 0; i < n; i++)
		strbuf_addch(out, (unsigned char)s[i] < 0x20 ? '?' : s[i]);
	if (n < len)
		strbuf_addstr(out, "...");
}

/* ---- jobs and answers ---- */

void job_init(struct job *job, size_t nr, long k)
{
	memset(job, 0, sizeof(*job));
	job->nr = nr;
	job->k = k;
	job->qid = xcalloc(nr ? nr : 1, sizeof(*job->qid));
	job->query = xcalloc(nr ? nr : 1, sizeof(*job->query));
	job->ans = xcalloc(nr ? nr : 1, sizeof(*job->ans));
}

static void answer_clear(struct answer *a)
{
	for (size_t i = 0; i < a->nr; i++)
		free(a->hits[i].id);
	free(a->hits);
	memset(a, 0, sizeof(*a));
}

void job_release(struct job *job)
{
	for (size_t i = 0; i < job->nr; i++)
		answer_clear(&job->ans[i]);
	free(job->ans);
	free(job->qid);
	free(job->query);
	memset(job, 0, sizeof(*job));
}

size_t job_answered(const struct job *job)
{
	size_t n = 0;

	for (size_t i = 0; i < job->nr; i++)
		n += job->ans[i].answered;
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double job_latency(const struct job *job, double p)
{
	double *v = xmalloc((job->nr ? job->nr : 1) * sizeof(*v)), r;
	size_t n = 0, rank;

	for (size_t i = 0; i < job->nr; i++)
		if (job->ans[i].answered)
			v[n++] = job->ans[i].latency_ms;
	if (!n) {
		free(v);
		return -1;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	rank = (size_t)ceil(p * (double)n);
	r = v[rank ? rank - 1 : 0];
	free(v);
	return r;
}

int job_accept(struct job *job, size_t i, const cJSON *results, const cJSON *abstained,
	       struct strbuf *why)
{
	struct answer a = { NULL, 0, 0, false, false, 0 };
	struct strmap seen = STRMAP_INIT;
	const cJSON *item;
	long pos = 0;
	int rc = -1;

	if (abstained && !cJSON_IsBool(abstained)) {
		strbuf_addstr(why, "\"abstained\" is not true or false");
		goto out;
	}
	a.abstained = cJSON_IsTrue(abstained);
	if (!results && !a.abstained) {
		strbuf_addstr(why, "no \"results\" list");
		goto out;
	}
	if (results && !cJSON_IsArray(results)) {
		strbuf_addstr(why, "\"results\" is not a list");
		goto out;
	}
	cJSON_ArrayForEach(item, results) {
		const cJSON *id = item, *score = NULL;
		int added;

		pos++;
		if (cJSON_IsObject(item)) {
			id = cJSON_GetObjectItemCaseSensitive(item, "id");
			score = cJSON_GetObjectItemCaseSensitive(item, "score");
		}
		if (!cJSON_IsString(id) || !*id->valuestring) {
			strbuf_addf(why, "result %ld is neither an id string nor an object with an \"id\" string", pos);
			goto out;
		}
		if (score && !cJSON_IsNumber(score)) {
			strbuf_addf(why, "result %ld ('%s') has a \"score\" that is not a number", pos,
				    id->valuestring);
			goto out;
		}
		strmap_intern(&seen, id->valuestring, strlen(id->valuestring), &added);
		if (!added) {
			strbuf_addf(why, "document '%s' is listed twice", id->valuestring);
			goto out;
		}
		if ((long)a.nr >= job->k)
			continue; /* beyond k: checked, not kept */
		ALLOC_GROW(a.hits, a.nr + 1, a.alloc);
		a.hits[a.nr].id = xstrdup(id->valuestring);
		a.hits[a.nr].score = score ? score->valuedouble : NAN;
		a.nr++;
	}
	a.answered = true;
	a.latency_ms = job->ans[i].latency_ms;
	answer_clear(&job->ans[i]);
	job->ans[i] = a;
	memset(&a, 0, sizeof(a));
	rc = 0;
out:
	answer_clear(&a);
	strmap_clear(&seen, 0);
	return rc;
}

/* ---- BM25 ---- */

int retrieve_bm25(const struct bm25 *ix, struct job *job)
{
	struct bm25_hit *hits = xmalloc((size_t)job->k * sizeof(*hits));
	int rc = 0;

	for (size_t i = 0; i < job->nr; i++) {
		struct answer *a = &job->ans[i];
		double t0 = retriever_now_ms();
		size_t n;

		if (a->answered)
			continue;
		if (job->stop && job->stop()) {
			rc = ERR_INTERRUPTED;
			break;
		}
		n = bm25_search(ix, job->query[i], (size_t)job->k, hits);
		answer_clear(a);
		a->hits = xcalloc(n ? n : 1, sizeof(*a->hits));
		a->alloc = n ? n : 1;
		for (size_t h = 0; h < n; h++) {
			a->hits[h].id = xstrdup(ix->corpus->chunks[hits[h].doc].id);
			a->hits[h].score = hits[h].score;
		}
		a->nr = n;
		a->answered = true;
		a->latency_ms = retriever_now_ms() - t0;
	}
	free(hits);
	return rc;
}

/* ---- the run file ---- */

static cJSON *answer_line(const struct job *job, size_t i, bool with_latency)
{
	const struct answer *a = &job->ans[i];
	cJSON *o = cJSON_CreateObject(), *list = cJSON_CreateArray();
	bool scored = true;

	for (size_t h = 0; h < a->nr; h++)
		if (isnan(a->hits[h].score))
			scored = false;
	for (size_t h = 0; h < a->nr; h++) {
		if (scored) {
			cJSON *r = cJSON_CreateObject();
			cJSON_AddStringToObject(r, "id", a->hits[h].id);
			cJSON_AddNumberToObject(r, "score", a->hits[h].score);
			cJSON_AddItemToArray(list, r);
		} else {
			cJSON_AddItemToArray(list, cJSON_CreateString(a->hits[h].id));
		}
	}
	cJSON_AddStringToObject(o, "qid", job->qid[i]);
	cJSON_AddItemToObject(o, "results", list);
	cJSON_AddBoolToObject(o, "abstained", a->abstained);
	if (with_latency)
		cJSON_AddNumberToObject(o, "latency_ms", round(a->latency_ms * 100) / 100);
	return o;
}

void run_format(const struct run_meta *meta, const struct job *job, bool with_latency,
		struct strbuf *out)
{
	cJSON *line = cJSON_CreateObject(), *m = cJSON_CreateObject();
	size_t answered = job_answered(job);
	char now[21];

	utc_now_iso8601(now);
	cJSON_AddNumberToObject(m, "evalset_run", 1);
	cJSON_AddStringToObject(m, "set", meta->set_name);
	json_add_str_or_null(m, "version", meta->version);
	cJSON_AddStringToObject(m, "digest", meta->digest);
	if (meta->content_digest)
		cJSON_AddStringToObject(m, "content_digest", meta->content_digest);
	if (meta->questions_digest)
		cJSON_AddStringToObject(m, "questions_digest", meta->questions_digest);
	cJSON_AddStringToObject(m, "retriever", meta->retriever);
	if (meta->params)
		cJSON_AddItemToObject(m, "params", cJSON_Duplicate(meta->params, 1));
	if (meta->corpus)
		cJSON_AddItemToObject(m, "corpus", cJSON_Duplicate(meta->corpus, 1));
	cJSON_AddNumberToObject(m, "k", (double)job->k);
	cJSON_AddNumberToObject(m, "questions", (double)job->nr);
	cJSON_AddNumberToObject(m, "answered", (double)answered);
	cJSON_AddBoolToObject(m, "complete", answered == job->nr);
	cJSON_AddStringToObject(m, "created_at", now);
	if (with_latency && answered) {
		cJSON *l = cJSON_CreateObject();
		cJSON_AddNumberToObject(l, "p50", round(job_latency(job, 0.5) * 100) / 100);
		cJSON_AddNumberToObject(l, "p95", round(job_latency(job, 0.95) * 100) / 100);
		cJSON_AddItemToObject(m, "latency_ms", l);
	}
	cJSON_AddItemToObject(line, "meta", m);
	json_add_tree(out, line, false);
	for (size_t i = 0; i < job->nr; i++)
		if (job->ans[i].answered)
			json_add_tree(out, answer_line(job, i, with_latency), false);
}


/* Return the number or string 'key' of 'meta' as a string for comparing; caller frees. */
static char *meta_value(const cJSON *meta, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, key);

	if (cJSON_IsString(v))
		return xstrdup(v->valuestring);
	if (cJSON_IsNumber(v))
		return xstrfmt("%.17g", v->valuedouble);
	return xstrdup("");
}

long run_resume(struct job *job, const struct run_meta *meta, const char *path)
{
	struct strbuf file = STRBUF_INIT, why = STRBUF_INIT;
	struct strmap index = STRMAP_INIT;
	const char *p, *end;
	long lineno = 0, loaded = 0, rc = -1;
	char *k_want = xstrfmt("%.17g", (double)job->k);

	if (read_file(path, &file, 0) < 0)
		goto out;
	for (size_t i = 0; i < job->nr; i++)
		strmap_put(&index, job->qid[i], (void *)(uintptr_t)(i + 1));
	for (p = file.buf; p < file.buf + file.len; p = end + 1) {
		cJSON *o;
		const cJSON *qid;
		size_t i;

		end = memchr(p, '\n', (size_t)(file.buf + file.len - p));
		if (!end)
			end = file.buf + file.len;
		lineno++;
		o = cJSON_ParseWithLength(p, (size_t)(end - p));
		if (lineno == 1) {
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "meta");
			char *digest = meta_value(m, "digest"), *ret = meta_value(m, "retriever");
			char *k = meta_value(m, "k");
			bool same = cJSON_IsObject(m) && !strcmp(digest, meta->digest) &&
				    !strcmp(ret, meta->retriever) && !strcmp(k, k_want);

			free(digest);
			free(ret);
			free(k);
			cJSON_Delete(o);  /* 'm' points into 'o': not used below */
			if (!same) {
				error_at(path, 1, 0, "not a run of this set with this retriever and k "
					 "to resume: remove it or drop --resume");
				goto out;
			}
			continue;
		}
		qid = cJSON_GetObjectItemCaseSensitive(o, "qid");
		i = cJSON_IsString(qid) ? (uintptr_t)strmap_get(&index, qid->valuestring) : 0;
		strbuf_reset(&why);
		if (!i || job_accept(job, i - 1, cJSON_GetObjectItemCaseSensitive(o, "results"),
				     cJSON_GetObjectItemCaseSensitive(o, "abstained"), &why)) {
			error_at(path, lineno, 0, "cannot resume from this line%s%s",
				 why.len ? ": " : "", why.buf);
			cJSON_Delete(o);
			goto out;
		}
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "latency_ms")))
			job->ans[i - 1].latency_ms =
				cJSON_GetObjectItemCaseSensitive(o, "latency_ms")->valuedouble;
		loaded++;
		cJSON_Delete(o);
		if (end == file.buf + file.len)
			break;
	}
	rc = loaded;
out:
	free(k_want);
	strmap_clear(&index, 0);
	strbuf_release(&file);
	strbuf_release(&why);
	return rc;
}
