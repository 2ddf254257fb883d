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
#include "set/set.h"
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
	job->history_weight = QUERY_HISTORY_WEIGHT;
	job->qid = xcalloc(nr ? nr : 1, sizeof(*job->qid));
	job->query = xcalloc(nr ? nr : 1, sizeof(*job->query));
	job->question = xcalloc(nr ? nr : 1, sizeof(*job->question));
	job->ans = xcalloc(nr ? nr : 1, sizeof(*job->ans));
}

static void answer_clear(struct answer *a)
{
	for (size_t i = 0; i < a->nr; i++)
		free(a->hits[i].id);
	free(a->hits);
	cJSON_Delete(a->calls);
	memset(a, 0, sizeof(*a));
}

void job_release(struct job *job)
{
	for (size_t i = 0; i < job->nr; i++)
		answer_clear(&job->ans[i]);
	free(job->ans);
	free(job->qid);
	free(job->query);
	free(job->question);
	memset(job, 0, sizeof(*job));
}

const char *job_query_form(const struct job *job)
{
	return job->with_history ? "turn+history" : "turn";
}

struct cJSON *job_history_json(const struct job *job, size_t i)
{
	if (!job->with_history || !job->question || !job->question[i])
		return cJSON_CreateArray();
	return history_to_json(job->question[i]);
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

/* Check the results list 'results' and append its first k to 'a'. Return
 * 0, or -1 with the reason appended to 'why'. */
static int check_results(const struct job *job, const cJSON *results, struct answer *a,
			 struct strbuf *why)
{
	struct strmap seen = STRMAP_INIT;
	const cJSON *item;
	long pos = 0;
	int rc = -1;

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
		if ((long)a->nr >= job->k)
			continue; /* beyond k: checked, not kept */
		ALLOC_GROW(a->hits, a->nr + 1, a->alloc);
		a->hits[a->nr].id = xstrdup(id->valuestring);
		a->hits[a->nr].score = score ? score->valuedouble : NAN;
		a->nr++;
	}
	rc = 0;
out:
	strmap_clear(&seen, 0);
	return rc;
}

/* Read a reply's "abstained" (absent, true or false) into 'a'. Return 0,
 * or -1 with the reason in 'why'. */
static int read_abstained(const cJSON *abstained, struct answer *a, struct strbuf *why)
{
	if (abstained && !cJSON_IsBool(abstained)) {
		strbuf_addstr(why, "\"abstained\" is not true or false");
		return -1;
	}
	a->abstained = cJSON_IsTrue(abstained);
	return 0;
}

/* Make the checked answer 'a' question i's, keeping the latency measured
 * for it; 'a' is left empty. */
static void answer_install(struct job *job, size_t i, struct answer *a)
{
	a->answered = true;
	a->latency_ms = job->ans[i].latency_ms;
	answer_clear(&job->ans[i]);
	job->ans[i] = *a;
	memset(a, 0, sizeof(*a));
}

int job_accept(struct job *job, size_t i, const cJSON *results, const cJSON *abstained,
	       struct strbuf *why)
{
	struct answer a = { NULL, 0, 0, false, false, 0, NULL };
	int rc = -1;

	if (read_abstained(abstained, &a, why) < 0)
		goto out;
	if (!results && !a.abstained) {
		strbuf_addstr(why, "no \"results\" list");
		goto out;
	}
	if (results && !cJSON_IsArray(results)) {
		strbuf_addstr(why, "\"results\" is not a list");
		goto out;
	}
	if (check_results(job, results, &a, why) < 0)
		goto out;
	answer_install(job, i, &a);
	rc = 0;
out:
	answer_clear(&a);
	return rc;
}

/* Return the result 'r' of a call as the run records it: {"id", "score"}
 * or a bare id. */
static cJSON *hit_json(const struct hit *h)
{
	cJSON *o;

	if (isnan(h->score))
		return cJSON_CreateString(h->id);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", h->id);
	cJSON_AddNumberToObject(o, "score", h->score);
	return o;
}

/*
 * Accept the calls 'calls' of question 'i' (docs/agents.md): each call's
 * results are checked and cut to k as job_accept does a plain list; the
 * answer's hits are their union in call order, an id brought again
 * counted once where it first came. Return 0, or -1 with the reason in 'why'.
 */
static int accept_calls(struct job *job, size_t i, const cJSON *calls, const cJSON *abstained,
			struct strbuf *why)
{
	struct answer a = { NULL, 0, 0, false, false, 0, NULL };
	struct strmap seen = STRMAP_INIT;
	const cJSON *call;
	int n = 0, rc = -1;

	if (!cJSON_IsArray(calls) || !cJSON_GetArraySize(calls)) {
		strbuf_addstr(why, "\"calls\" is not a list of one call or more");
		goto out;
	}
	if (read_abstained(abstained, &a, why) < 0)
		goto out;
	a.calls = cJSON_CreateArray();
	cJSON_ArrayForEach(call, calls) {
		const cJSON *query = cJSON_GetObjectItemCaseSensitive(call, "query");
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(call, "results");
		struct answer one = { NULL, 0, 0, false, false, 0, NULL };
		struct strbuf sub = STRBUF_INIT;
		cJSON *out, *list;

		n++;
		if (!cJSON_IsObject(call) || !cJSON_IsArray(res) ||
		    (query && !cJSON_IsString(query) && !cJSON_IsNull(query))) {
			strbuf_addf(why, "call %d is not {\"query\": \"...\", \"results\": [...]}", n);
			goto out;
		}
		/* one call is checked as a plain reply is, in an answer of its own */
		if (check_results(job, res, &one, &sub) < 0) {
			strbuf_addf(why, "call %d: %s", n, sub.buf);
			strbuf_release(&sub);
			answer_clear(&one);
			goto out;
		}
		strbuf_release(&sub);
		out = cJSON_CreateObject();
		if (cJSON_IsString(query))
			cJSON_AddStringToObject(out, "query", query->valuestring);
		list = cJSON_AddArrayToObject(out, "results");
		for (size_t h = 0; h < one.nr; h++) {
			int added;

			cJSON_AddItemToArray(list, hit_json(&one.hits[h]));
			strmap_intern(&seen, one.hits[h].id, strlen(one.hits[h].id), &added);
			if (!added)
				continue;
			ALLOC_GROW(a.hits, a.nr + 1, a.alloc);
			a.hits[a.nr].id = xstrdup(one.hits[h].id);
			a.hits[a.nr].score = one.hits[h].score;
			a.nr++;
		}
		cJSON_AddItemToArray(a.calls, out);
		answer_clear(&one);
	}
	answer_install(job, i, &a);
	rc = 0;
out:
	answer_clear(&a);
	strmap_clear(&seen, 0);
	return rc;
}

int job_accept_reply(struct job *job, size_t i, const cJSON *reply, struct strbuf *why)
{
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(reply, "results");
	const cJSON *calls = cJSON_GetObjectItemCaseSensitive(reply, "calls");
	const cJSON *abstained = cJSON_GetObjectItemCaseSensitive(reply, "abstained");

	if (calls && results) {
		strbuf_addstr(why, "both \"results\" and \"calls\" (an agent gives its calls alone)");
		return -1;
	}
	if (calls)
		return accept_calls(job, i, calls, abstained, why);
	return job_accept(job, i, results, abstained, why);
}

/* ---- BM25 ---- */

/*
 * Search for question 'i' of 'job': its text at weight 1 and, in the
 * "turn+history" form, each earlier user turn at job->history_weight
 * (assistant turns are left out: their words are the corpus's, not the
 * user's need). 'parts' is scratch space kept between calls.
 */
static size_t search_one(const struct bm25 *ix, const struct job *job, size_t i,
			 struct bm25_hit *hits, struct bm25_part **parts)
{
	const struct question *q = job->with_history && job->question ? job->question[i] : NULL;
	size_t n = 0;

	if (!q || !q->nr_history)
		return bm25_search(ix, job->query[i], (size_t)job->k, hits);
	*parts = xrealloc(*parts, (q->nr_history + 1) * sizeof(**parts));
	(*parts)[n].text = job->query[i];
	(*parts)[n++].weight = 1.0;
	for (size_t t = 0; t < q->nr_history; t++)
		if (q->history[t].role && !strcmp(q->history[t].role, TURN_USER)) {
			(*parts)[n].text = q->history[t].text;
			(*parts)[n++].weight = job->history_weight;
		}
	return bm25_search_parts(ix, *parts, n, (size_t)job->k, hits);
}

int retrieve_bm25(const struct bm25 *ix, struct job *job)
{
	struct bm25_hit *hits = xmalloc((size_t)job->k * sizeof(*hits));
	struct bm25_part *parts = NULL;
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
		n = search_one(ix, job, i, hits, &parts);
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
	free(parts);
	free(hits);
	return rc;
}

/* ---- the run file ---- */

/* Return answer 'a's hits as a run's results list: {"id", "score"} each
 * when every hit has a score, else bare ids. */
static cJSON *hits_json(const struct answer *a)
{
	cJSON *list = cJSON_CreateArray();
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
	return list;
}

static cJSON *answer_line(const struct job *job, size_t i, bool with_latency)
{
	const struct answer *a = &job->ans[i];
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "qid", job->qid[i]);
	/* an agent's line keeps its calls: their union is what is scored */
	if (a->calls)
		cJSON_AddItemToObject(o, "calls", cJSON_Duplicate(a->calls, 1));
	else
		cJSON_AddItemToObject(o, "results", hits_json(a));
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
	if (meta->query_form)
		cJSON_AddStringToObject(m, "query_form", meta->query_form);
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
			char *k = meta_value(m, "k"), *form = meta_value(m, "query_form");
			bool same = cJSON_IsObject(m) && !strcmp(digest, meta->digest) &&
				    !strcmp(ret, meta->retriever) && !strcmp(k, k_want) &&
				    !strcmp(form, meta->query_form ? meta->query_form : "");

			free(form);
			free(digest);
			free(ret);
			free(k);
			cJSON_Delete(o);  /* 'm' points into 'o': not used below */
			if (!same) {
				error_at(path, 1, 0, "not a run of this set with this retriever, query "
					 "form and k to resume: remove it or drop --resume");
				goto out;
			}
			continue;
		}
		qid = cJSON_GetObjectItemCaseSensitive(o, "qid");
		i = cJSON_IsString(qid) ? (uintptr_t)strmap_get(&index, qid->valuestring) : 0;
		strbuf_reset(&why);
		if (!i || job_accept_reply(job, i - 1, o, &why)) {
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
