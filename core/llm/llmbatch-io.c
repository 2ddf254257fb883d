/*
 * llmbatch-io: the requests batch jobs make to the provider (one at a time)
 * and the records of the batch journal (see llmbatch-internal.h).
 */
#include "llm/llmbatch-internal.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/http.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/url.h"
#include "base/util.h"
#include "llm/journal.h"
#include "llm/llm.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- HTTP, one request at a time ---- */


static int reply_done(const struct http_response *res, void *data)
{
	struct reply *r = data;

	r->status = res->status;
	strbuf_reset(&r->body);
	if (res->body_len)
		strbuf_add(&r->body, res->body, res->body_len);
	snprintf(r->error, sizeof(r->error), "%s", res->cancelled ? "cancelled" : res->error ? res->error : "");
	return 0;
}

int64_t batch_time_left(const struct run *b)
{
	struct timespec ts;

	if (!b->deadline_at)
		return INT64_MAX;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return b->deadline_at - ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/*
 * Send one request (retried by core/http on 408, 409, 429 and 5xx), within
 * what is left of the job's deadline; fill 'r'. Return 0 (whatever the
 * status), ERR_INTERRUPTED or HTTP_DEADLINE_PASSED.
 */
int batch_call(struct run *b, const char *method, const char *url, const char *const *headers,
		const char *body, size_t len, struct reply *r)
{
	struct http_options ho = HTTP_OPTIONS_INIT;
	struct http_client *c;
	int64_t left = batch_time_left(b);
	int rc;

	r->status = 0;
	r->error[0] = 0;
	if (left <= 0)
		return HTTP_DEADLINE_PASSED;
	ho.concurrency = 1;
	ho.done = reply_done;
	ho.stop = b->o->stop;
	ho.ctx = b->o->ctx;
	ho.timeout_ms = 600000;
	if (left < INT64_MAX)
		ho.deadline_ms = left < LONG_MAX ? (long)left : LONG_MAX;
	c = http_client_new(&ho);
	http_submit(c, method, url, headers, body, len, r);
	rc = http_run(c);
	http_client_free(c);
	return rc == ERR_INTERRUPTED || rc == HTTP_DEADLINE_PASSED ? rc : 0;
}

int batch_get_results(struct run *b, const char *url, struct reply *r)
{
	const char *base = llm_get_base_url(b->l);

	if (!url_same_origin(url, base)) {
		error("the provider named the batch results at '%s', not on the endpoint '%s' (scheme, host "
		      "and port): not fetched, since the API key goes to that endpoint only", url, base);
		return ERR_REMOTE;
	}
	return batch_call(b, "GET", url, llm_get_headers(b->l), NULL, 0, r);
}

/* Report a refused call: "WHAT: HTTP N: server message" (scrubbed). Return ERR_REMOTE. */
int batch_refused(struct run *b, const char *what, const struct reply *r)
{
	struct strbuf m = STRBUF_INIT;

	if (r->status)
		llm_error_message(r->body.buf, r->body.len, &m, NULL);
	else
		strbuf_addstr(&m, r->error[0] ? r->error : "no reply");
	llm_scrub_job(b->l, &m);
	if (r->status)
		error("%s: HTTP %ld: %s", what, r->status, m.buf);
	else
		error("%s: %s", what, m.buf);
	strbuf_release(&m);
	return ERR_REMOTE;
}

bool batch_ok_status(const struct reply *r)
{
	return r->status >= 200 && r->status < 300;
}

/* Append the URL of 'path' under the batch root, with the base URL's query. */
void batch_url_of(struct run *b, const char *path, struct strbuf *out)
{
	strbuf_add(out, b->root.buf, b->root.len);
	strbuf_addstr(out, path);
	strbuf_add(out, b->query.buf, b->query.len);
}

/* ---- the journal ---- */

const char *batch_jstr(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

struct pending *batch_add_pending(struct run *b, const char *id, int round)
{
	struct pending *p;

	ALLOC_GROW(b->p, b->nr_p + 1, b->alloc_p);
	p = &b->p[b->nr_p++];
	memset(p, 0, sizeof(*p));
	p->id = xstrdup(id);
	p->round = round;
	return p;
}

/* True when the record 'rec' is of this run's job, provider and endpoint. */
static bool same_job(const struct run *b, const cJSON *rec)
{
	return batch_jstr(rec, "job") && !strcmp(batch_jstr(rec, "job"), b->o->job) &&
	       batch_jstr(rec, "provider") && !strcmp(batch_jstr(rec, "provider"), llm_provider_name(b->provider)) &&
	       batch_jstr(rec, "endpoint") && !strcmp(batch_jstr(rec, "endpoint"), b->endpoint);
}

/* The strings of the JSON array 'keys', as a new NULL-terminated array; their number in '*nr'. */
static char **json_keys(const cJSON *keys, size_t *nr)
{
	char **out = xcalloc((size_t)cJSON_GetArraySize(keys) + 1, sizeof(*out));
	const cJSON *k;

	*nr = 0;
	cJSON_ArrayForEach(k, keys)
		if (cJSON_IsString(k))
			out[(*nr)++] = xstrdup(k->valuestring);
	return out;
}

int batch_read_record(const cJSON *rec, long line, void *data)
{
	struct run *b = data;
	const char *event = batch_jstr(rec, "event"), *id = batch_jstr(rec, "batch");
	struct pending *p;

	(void)line;
	if (event && batch_jstr(rec, "tag") && (!strcmp(event, "created") || !strcmp(event, "abandoned")))
		strmap_put(&b->settled, batch_jstr(rec, "tag"), (void *)1);
	if (event && !strcmp(event, "intent") && batch_jstr(rec, "tag") && same_job(b, rec)) {
		struct intent *in;
		ALLOC_GROW(b->in, b->nr_in + 1, b->alloc_in);
		in = &b->in[b->nr_in++];
		memset(in, 0, sizeof(*in));
		in->tag = xstrdup(batch_jstr(rec, "tag"));
		in->round = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rec, "round"));
		in->at = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rec, "at"));
		in->keys = json_keys(cJSON_GetObjectItemCaseSensitive(rec, "keys"), &in->nr_keys);
		return 0;
	}
	if (!event || !id)
		return 0;
	strmap_put(&b->known, id, (void *)1);
	if (!strcmp(event, "ended")) {
		strmap_put(&b->done, id, (void *)1);
		return 0;
	}
	if (strcmp(event, "created") || !same_job(b, rec))
		return 0;
	p = batch_add_pending(b, id, (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rec, "round")));
	p->keys = json_keys(cJSON_GetObjectItemCaseSensitive(rec, "keys"), &p->nr_keys);
	return 0;
}

/* A new record of 'event' for this run's job, provider and endpoint. */
static cJSON *new_record(const struct run *b, const char *event, const char *tag)
{
	cJSON *rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "event", event);
	cJSON_AddStringToObject(rec, "job", b->o->job);
	cJSON_AddStringToObject(rec, "provider", llm_provider_name(b->provider));
	cJSON_AddStringToObject(rec, "endpoint", b->endpoint);
	if (tag)
		cJSON_AddStringToObject(rec, "tag", tag);
	return rec;
}

static void add_keys(cJSON *rec, char *const *keys, size_t n)
{
	cJSON *arr = cJSON_AddArrayToObject(rec, "keys");

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(keys[i]));
}

int batch_journal_created(struct run *b, const struct pending *p, const char *file_id, const char *tag,
			   bool found)
{
	cJSON *rec = new_record(b, "created", tag);
	int rc;

	cJSON_AddStringToObject(rec, "batch", p->id);
	if (file_id)
		cJSON_AddStringToObject(rec, "file", file_id);
	if (found)
		cJSON_AddTrueToObject(rec, "found");
	cJSON_AddNumberToObject(rec, "round", p->round);
	cJSON_AddNumberToObject(rec, "created_at", (double)time(NULL));
	add_keys(rec, p->keys, p->nr_keys);
	rc = journal_append(&b->journal, rec);
	cJSON_Delete(rec);
	return rc;
}

/*
 * Journal (fsync'ed) the intent to create a batch tagged 'tag' carrying the
 * requests 'idx[0..n)' in round 'round', before anything is sent: a crash
 * between the provider accepting the batch and its "created" record leaves
 * this, and the next run looks the batch up by its tag.
 */
int batch_journal_intent(struct run *b, const char *tag, const size_t *idx, size_t n, int round)
{
	cJSON *rec = new_record(b, "intent", tag);
	cJSON *arr;
	struct timespec ts;
	int rc;

	clock_gettime(CLOCK_REALTIME, &ts);
	cJSON_AddNumberToObject(rec, "round", round);
	cJSON_AddNumberToObject(rec, "at", (double)ts.tv_sec + ts.tv_nsec / 1e9);
	arr = cJSON_AddArrayToObject(rec, "keys");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(b->reqs[idx[i]].custom_id));
	rc = journal_append(&b->journal, rec);
	cJSON_Delete(rec);
	return rc;
}

/* Journal that the intent 'tag' created no batch at the provider: its requests go out again. */
int batch_journal_abandoned(struct run *b, const char *tag)
{
	cJSON *rec = new_record(b, "abandoned", tag);
	int rc = journal_append(&b->journal, rec);

	cJSON_Delete(rec);
	return rc;
}

int batch_journal_ended(struct run *b, const struct pending *p, const char *status, size_t ok, size_t failed)
{
	cJSON *rec = cJSON_CreateObject();
	int rc;

	cJSON_AddStringToObject(rec, "event", "ended");
	cJSON_AddStringToObject(rec, "job", b->o->job);
	cJSON_AddStringToObject(rec, "batch", p->id);
	cJSON_AddStringToObject(rec, "status", status);
	cJSON_AddNumberToObject(rec, "succeeded", (double)ok);
	cJSON_AddNumberToObject(rec, "failed", (double)failed);
	rc = journal_append(&b->journal, rec);
	cJSON_Delete(rec);
	return rc;
}
