/*
 * llmbatch: submit, resume, poll, download and retry batches (see
 * llmbatch.h).
 *
 * Invariants: a batch's "created" record (with every custom id it carries)
 * is in the batch journal, fsync'ed, before the batch is polled; its
 * "ended" record is written only after all its result lines were handed to
 * the caller (who journals them first), so a crash between the two hands
 * them over again on the next run (the caller skips what it already has).
 * A request is in at most one pending batch of a job. Nothing here prints
 * but error(), warning() and note(); server text is scrubbed of the key.
 */
#include "llm/llmbatch.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/http.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"
#include "llm/journal.h"
#include "llm/llm.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* A batch an earlier run was about to create: its tag and what it carries. */
struct intent {
	char *tag;
	int round;
	double at;                    /* when it was journaled (seconds since the epoch) */
	char **keys;
	size_t nr_keys;
};

/* One batch this run waits for. */
struct pending {
	char *id;
	int round;
	char **keys;
	size_t nr_keys;
	bool ended;
};

struct run {
	struct llm *l;
	const struct llmbatch_options *o;
	struct llmbatch_stats *st;
	enum llm_provider provider;
	bool azure;
	char endpoint[24];            /* digest of the base URL: which endpoint a journal record is for */
	struct strbuf root;           /* where /files and /batches are (OpenAI, Azure) */
	const char *query;            /* the base URL's "?..." (Azure's api-version), or "" */
	struct journal journal;
	struct pending *p;
	size_t nr_p, alloc_p;
	struct strmap carried;        /* custom id -> 1: in a pending batch */
	struct strmap done;           /* batch id -> 1: ended in the journal */
	struct strmap body_of;        /* custom id -> request index + 1 */
	struct strmap longer;         /* custom id -> its body with twice the max_tokens (a truncated reply) */
	struct strmap known;          /* batch id -> 1: named by any record of the batch journal */
	struct strmap settled;        /* tag -> 1: its intent has a "created" or "abandoned" record */
	struct intent *in;
	size_t nr_in, alloc_in;
	unsigned tag_serial;          /* makes this run's tags distinct */
	const struct llmbatch_request *reqs;
	size_t nr_reqs;
};

/* ---- HTTP, one request at a time ---- */

struct reply {
	long status;
	struct strbuf body;
	char error[256];
};

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

/*
 * Send one request (retried by core/http on 408, 409, 429 and 5xx); fill
 * 'r'. Return 0 (whatever the status), or ERR_INTERRUPTED.
 */
static int call(struct run *b, const char *method, const char *url, const char *const *headers,
		const char *body, size_t len, struct reply *r)
{
	struct http_options ho = HTTP_OPTIONS_INIT;
	struct http_client *c;
	int rc;

	ho.concurrency = 1;
	ho.done = reply_done;
	ho.stop = b->o->stop;
	ho.ctx = b->o->ctx;
	ho.timeout_ms = 600000;
	r->status = 0;
	r->error[0] = 0;
	c = http_client_new(&ho);
	http_submit(c, method, url, headers, body, len, r);
	rc = http_run(c);
	http_client_free(c);
	return rc == ERR_INTERRUPTED ? ERR_INTERRUPTED : 0;
}

/* Report a refused call: "WHAT: HTTP N: server message" (scrubbed). Return ERR_REMOTE. */
static int refused(struct run *b, const char *what, const struct reply *r)
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

static bool ok_status(const struct reply *r)
{
	return r->status >= 200 && r->status < 300;
}

/* Append the URL of 'path' under the batch root, with the base URL's query. */
static void url_of(struct run *b, const char *path, struct strbuf *out)
{
	strbuf_add(out, b->root.buf, b->root.len);
	strbuf_addstr(out, path);
	strbuf_addstr(out, b->query);
}

/* ---- the journal ---- */

static const char *jstr(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static struct pending *add_pending(struct run *b, const char *id, int round)
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
	return jstr(rec, "job") && !strcmp(jstr(rec, "job"), b->o->job) &&
	       jstr(rec, "provider") && !strcmp(jstr(rec, "provider"), llm_provider_name(b->provider)) &&
	       jstr(rec, "endpoint") && !strcmp(jstr(rec, "endpoint"), b->endpoint);
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

static int read_record(const cJSON *rec, long line, void *data)
{
	struct run *b = data;
	const char *event = jstr(rec, "event"), *id = jstr(rec, "batch");
	struct pending *p;

	(void)line;
	if (event && jstr(rec, "tag") && (!strcmp(event, "created") || !strcmp(event, "abandoned")))
		strmap_put(&b->settled, jstr(rec, "tag"), (void *)1);
	if (event && !strcmp(event, "intent") && jstr(rec, "tag") && same_job(b, rec)) {
		struct intent *in;
		ALLOC_GROW(b->in, b->nr_in + 1, b->alloc_in);
		in = &b->in[b->nr_in++];
		memset(in, 0, sizeof(*in));
		in->tag = xstrdup(jstr(rec, "tag"));
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
	p = add_pending(b, id, (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rec, "round")));
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

static int journal_created(struct run *b, const struct pending *p, const char *file_id, const char *tag,
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
static int journal_intent(struct run *b, const char *tag, const size_t *idx, size_t n, int round)
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
static int journal_abandoned(struct run *b, const char *tag)
{
	cJSON *rec = new_record(b, "abandoned", tag);
	int rc = journal_append(&b->journal, rec);

	cJSON_Delete(rec);
	return rc;
}

static int journal_ended(struct run *b, const struct pending *p, const char *status, size_t ok, size_t failed)
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

/* ---- submitting ---- */

/* True for Azure OpenAI: a deployment URL or a host under .azure.com. */
static bool is_azure(const char *base)
{
	return strstr(base, "/openai/deployments/") || strstr(base, ".azure.com");
}

static void line_of(enum llm_provider provider, bool azure, const char *custom_id, const char *body,
		    struct strbuf *out)
{
	if (provider == LLM_ANTHROPIC)
		strbuf_addf(out, "{\"custom_id\":\"%s\",\"params\":%s}", custom_id, body);
	else
		strbuf_addf(out, "{\"custom_id\":\"%s\",\"method\":\"POST\",\"url\":\"%s\",\"body\":%s}",
			    custom_id, azure ? "/chat/completions" : "/v1/chat/completions", body);
}

void llmbatch_input_line(const struct llm *l, const char *custom_id, const char *body, struct strbuf *out)
{
	line_of(llm_get_provider(l), is_azure(llm_get_base_url(l)), custom_id, body, out);
	strbuf_addch(out, '\n');
}

/* Append the input line of request 'r' in the provider's batch format. */
/* The body to send for request 'r': its own, or the one asking for a longer reply. */
static const char *body_of(struct run *b, const struct llmbatch_request *r)
{
	const char *longer = strmap_get(&b->longer, r->custom_id);

	return longer ? longer : r->body;
}

/* Remember the body of 'custom_id' with its max_tokens (or max_completion_tokens) doubled. */
static void ask_longer(struct run *b, const char *custom_id)
{
	uintptr_t at = (uintptr_t)strmap_get(&b->body_of, custom_id);
	const char *body;
	cJSON *j;

	if (!at)
		return;
	body = body_of(b, &b->reqs[at - 1]);
	j = cJSON_Parse(body);
	for (int i = 0; j && i < 2; i++) {
		cJSON *t = cJSON_GetObjectItemCaseSensitive(j, i ? "max_completion_tokens" : "max_tokens");
		if (cJSON_IsNumber(t) && t->valuedouble > 0 && t->valuedouble < 1e7)
			cJSON_SetNumberValue(t, t->valuedouble * 2);
	}
	if (j)
		free(strmap_put(&b->longer, custom_id, cJSON_PrintUnformatted(j)));
	cJSON_Delete(j);
}

static void input_line(struct run *b, const struct llmbatch_request *r, struct strbuf *out)
{
	line_of(b->provider, b->azure, r->custom_id, body_of(b, r), out);
	if (b->provider != LLM_ANTHROPIC)
		strbuf_addch(out, '\n');
}

/* The JSON value of string member 'key' of the object in 'r', or NULL. */
static char *reply_str(const struct reply *r, const char *key)
{
	cJSON *j = cJSON_ParseWithLength(r->body.buf, r->body.len);
	char *v = xstrdup(jstr(j, key));

	cJSON_Delete(j);
	return v;
}

/* Upload 'content' as a batch input file (OpenAI, Azure); set '*file_id'. */
static int upload(struct run *b, const struct strbuf *content, int part, char **file_id)
{
	struct strbuf url = STRBUF_INIT, body = STRBUF_INIT, ctype = STRBUF_INIT;
	const char *const *lh = llm_get_headers(b->l);
	const char *headers[8];
	char boundary[72], d[72];
	struct reply r = { 0, STRBUF_INIT, "" };
	size_t n = 0;
	int rc;

	sha256_hex(content->buf, content->len, d);
	snprintf(boundary, sizeof(boundary), "evalset-%.32s", d + 7);
	strbuf_addf(&ctype, "Content-Type: multipart/form-data; boundary=%s", boundary);
	headers[n++] = ctype.buf;
	for (size_t i = 0; lh[i] && n < ARRAY_SIZE(headers) - 1; i++)
		if (!starts_with(lh[i], "Content-Type:"))
			headers[n++] = lh[i];
	headers[n] = NULL;
	strbuf_addf(&body, "--%s\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n", boundary);
	strbuf_addf(&body, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"evalset-%s-%d.jsonl\"\r\n"
		    "Content-Type: application/jsonl\r\n\r\n", boundary, b->o->job, part);
	strbuf_add(&body, content->buf, content->len);
	strbuf_addf(&body, "\r\n--%s--\r\n", boundary);
	url_of(b, "/files", &url);
	rc = call(b, "POST", url.buf, headers, body.buf, body.len, &r);
	if (!rc && !ok_status(&r))
		rc = refused(b, "uploading the batch input file was refused", &r);
	if (!rc && !(*file_id = reply_str(&r, "id"))) {
		error("uploading the batch input file: the reply has no file id");
		rc = ERR_REMOTE;
	}
	if (!rc)
		b->st->files++;
	strbuf_release(&url);
	strbuf_release(&body);
	strbuf_release(&ctype);
	strbuf_release(&r.body);
	return rc;
}

/* Set 'tag' to a new tag, unique to this batch: "evalset-" and 24 hex digits. */
static void new_tag(struct run *b, char tag[40])
{
	struct strbuf seed = STRBUF_INIT;
	unsigned char rnd[16] = { 0 };
	struct timespec ts;
	char d[72];

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		memset(rnd, 0, sizeof(rnd));   /* the time and pid below still make it unique */
	clock_gettime(CLOCK_REALTIME, &ts);
	strbuf_add(&seed, rnd, sizeof(rnd));
	strbuf_addf(&seed, "%s %s %ld.%09ld %ld %u", b->endpoint, b->o->job, (long)ts.tv_sec, ts.tv_nsec,
		    (long)getpid(), b->tag_serial++);
	sha256_hex(seed.buf, seed.len, d);
	snprintf(tag, 40, "evalset-%.24s", d + 7);
	strbuf_release(&seed);
}

/*
 * Create one batch of the requests 'idx[0..n)' (indexes into b->reqs) in
 * round 'round', and journal it: first its intent with a new tag (which the
 * batch carries as metadata "evalset_tag" where the provider keeps
 * metadata), then, once the provider answered, its id. Return 0,
 * ERR_REMOTE, ERR_INPUT or ERR_INTERRUPTED.
 */
static int create(struct run *b, const size_t *idx, size_t n, int round)
{
	struct strbuf content = STRBUF_INIT, url = STRBUF_INIT, body = STRBUF_INIT;
	struct reply r = { 0, STRBUF_INIT, "" };
	char *file_id = NULL, *id = NULL;
	char tag[40];
	struct pending *p;
	int rc = 0;

	new_tag(b, tag);
	if (journal_intent(b, tag, idx, n, round))
		return ERR_INPUT;
	if (b->provider == LLM_ANTHROPIC) {
		/* message batches keep no metadata: a rerun matches by time, size and custom ids */
		strbuf_addstr(&body, "{\"requests\":[");
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_addch(&body, ',');
			input_line(b, &b->reqs[idx[i]], &body);
		}
		strbuf_addstr(&body, "]}");
		llm_url(llm_get_base_url(b->l), "/messages/batches", &url);
		rc = call(b, "POST", url.buf, llm_get_headers(b->l), body.buf, body.len, &r);
	} else {
		for (size_t i = 0; i < n; i++)
			input_line(b, &b->reqs[idx[i]], &content);
		rc = upload(b, &content, (int)b->st->created + 1, &file_id);
		if (!rc) {
			strbuf_addf(&body, "{\"input_file_id\":\"%s\",\"endpoint\":\"%s\",\"completion_window\":\"24h\","
				    "\"metadata\":{\"evalset_tag\":\"%s\"}}",
				    file_id, b->azure ? "/chat/completions" : "/v1/chat/completions", tag);
			url_of(b, "/batches", &url);
			rc = call(b, "POST", url.buf, llm_get_headers(b->l), body.buf, body.len, &r);
		}
	}
	if (!rc && !ok_status(&r))
		rc = refused(b, "creating the batch was refused", &r);
	if (!rc && !(id = reply_str(&r, "id"))) {
		error("creating the batch: the reply has no batch id");
		rc = ERR_REMOTE;
	}
	if (!rc) {
		p = add_pending(b, id, round);
		p->keys = xcalloc(n + 1, sizeof(*p->keys));
		for (size_t i = 0; i < n; i++) {
			p->keys[p->nr_keys++] = xstrdup(b->reqs[idx[i]].custom_id);
			strmap_put(&b->carried, b->reqs[idx[i]].custom_id, (void *)1);
		}
		if (journal_created(b, p, file_id, tag, false))
			rc = ERR_INPUT;
		b->st->created++;
		b->st->submitted += n;
	} else if (rc == ERR_REMOTE && r.status >= 400 && r.status < 500) {
		/* refused outright: no batch exists, the next run need not look for it */
		journal_abandoned(b, tag);
	}
	free(id);
	free(file_id);
	strbuf_release(&content);
	strbuf_release(&url);
	strbuf_release(&body);
	strbuf_release(&r.body);
	return rc;
}

/* ---- finding the batch of an interrupted run ---- */

/* Seconds since the epoch of the RFC 3339 time 'text' (UTC or with an offset), or -1. */
static double rfc3339_time(const char *text)
{
	struct tm tm;
	int y, mo, d, h, mi, off_h = 0, off_m = 0, used = 0;
	double sec;
	const char *z;

	if (!text || sscanf(text, "%d-%d-%dT%d:%d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6)
		return -1;
	z = text + used;
	if ((*z == '+' || *z == '-') && sscanf(z + 1, "%d:%d", &off_h, &off_m) == 2) {
		if (*z == '-')
			off_h = -off_h, off_m = -off_m;
	} else if (*z != 'Z' && *z != 'z') {
		return -1;
	}
	if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || !(sec >= 0 && sec < 61))
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	return (double)timegm(&tm) + sec - (off_h * 3600 + off_m * 60);
}

/* The time a listed batch was created: OpenAI's seconds, Anthropic's RFC 3339. */
static double created_time(const cJSON *batch)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(batch, "created_at");

	if (cJSON_IsNumber(c))
		return c->valuedouble;
	return rfc3339_time(cJSON_GetStringValue(c));
}

/* True when the results of the ended message batch 'batch' answer the requests of 'in'. */
static bool results_match(struct run *b, const cJSON *batch, const struct intent *in)
{
	const char *results = jstr(batch, "results_url");
	struct reply f = { 0, STRBUF_INIT, "" };
	struct strmap keys = STRMAP_INIT;
	bool match = false;

	if (!results || call(b, "GET", results, llm_get_headers(b->l), NULL, 0, &f) || !ok_status(&f))
		goto out;
	for (size_t i = 0; i < in->nr_keys; i++)
		strmap_put(&keys, in->keys[i], (void *)1);
	match = true;
	for (const char *s = f.body.buf, *end = f.body.buf + f.body.len; s < end && match;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		cJSON *j = len ? cJSON_ParseWithLength(s, len) : NULL;
		if (j && !strmap_get(&keys, jstr(j, "custom_id") ? jstr(j, "custom_id") : ""))
			match = false;
		cJSON_Delete(j);
		s += len + 1;
	}
out:
	strmap_clear(&keys, 0);
	strbuf_release(&f.body);
	return match;
}

#define LOOKUP_PAGES 10           /* at most this many pages of 100 batches */
#define LOOKUP_SKEW 900.0         /* seconds of clock difference allowed with the provider */

/*
 * Look up the batch the intent 'in' may have created: OpenAI and Azure list
 * batches newest first and the one whose metadata carries the tag is it;
 * Anthropic keeps no metadata, so a message batch is it when it was created
 * within LOOKUP_SKEW of the intent, holds as many requests, no journal
 * record names it, and, when it has ended, its results are for the
 * intent's requests. Set '*found' (a new string) or leave it NULL. Return
 * 0, ERR_REMOTE (several message batches match: reported) or
 * ERR_INTERRUPTED.
 */
static int lookup(struct run *b, const struct intent *in, char **found)
{
	struct strbuf url = STRBUF_INIT, after = STRBUF_INIT, candidates = STRBUF_INIT, first = STRBUF_INIT;
	struct reply r = { 0, STRBUF_INIT, "" };
	bool anthropic = b->provider == LLM_ANTHROPIC;
	size_t nr_candidates = 0;
	int rc = 0;

	*found = NULL;
	for (int page = 0; page < LOOKUP_PAGES && !*found; page++) {
		const cJSON *item, *data;
		cJSON *j;
		bool older = false, more;
		strbuf_reset(&url);
		if (anthropic)
			llm_url(llm_get_base_url(b->l), "/messages/batches", &url);
		else
			url_of(b, "/batches", &url);
		strbuf_addf(&url, "%climit=100", strchr(url.buf, '?') ? '&' : '?');
		if (after.len)
			strbuf_addf(&url, "&%s=%s", anthropic ? "after_id" : "after", after.buf);
		if ((rc = call(b, "GET", url.buf, llm_get_headers(b->l), NULL, 0, &r)))
			break;
		if (!ok_status(&r)) {
			rc = refused(b, "listing the batches to find the one an interrupted run created was refused", &r);
			break;
		}
		j = cJSON_ParseWithLength(r.body.buf, r.body.len);
		data = cJSON_GetObjectItemCaseSensitive(j, "data");
		cJSON_ArrayForEach(item, data) {
			const char *id = jstr(item, "id");
			double t = created_time(item);
			if (!id)
				continue;
			if (t >= 0 && t < in->at - LOOKUP_SKEW)
				older = true;   /* newest first: the rest is older still */
			if (!anthropic) {
				const char *tag = jstr(cJSON_GetObjectItemCaseSensitive(item, "metadata"), "evalset_tag");
				if (tag && !strcmp(tag, in->tag)) {
					*found = xstrdup(id);
					break;
				}
				continue;
			}
			if (strmap_get(&b->known, id) || t < in->at - LOOKUP_SKEW || t > in->at + LOOKUP_SKEW)
				continue;
			{
				const cJSON *c = cJSON_GetObjectItemCaseSensitive(item, "request_counts"), *k;
				double total = 0;
				cJSON_ArrayForEach(k, c)
					total += cJSON_IsNumber(k) ? k->valuedouble : 0;
				if (total != (double)in->nr_keys)
					continue;
			}
			if (jstr(item, "processing_status") && !strcmp(jstr(item, "processing_status"), "ended") &&
			    !results_match(b, item, in))
				continue;
			if (!nr_candidates++)
				strbuf_addstr(&first, id);
			strbuf_addf(&candidates, "%s'%s'", candidates.len ? ", " : "", id);
		}
		more = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "has_more"));
		strbuf_reset(&after);
		if (jstr(j, "last_id"))
			strbuf_addstr(&after, jstr(j, "last_id"));
		else if (cJSON_GetArraySize(data) > 0 && jstr(cJSON_GetArrayItem(data, cJSON_GetArraySize(data) - 1), "id"))
			strbuf_addstr(&after, jstr(cJSON_GetArrayItem(data, cJSON_GetArraySize(data) - 1), "id"));
		cJSON_Delete(j);
		if (older || !more || !after.len)
			break;
	}
	if (!rc && anthropic && nr_candidates == 1)
		*found = xstrdup(first.buf);
	if (!rc && anthropic && nr_candidates > 1) {
		error("an interrupted run was creating a message batch of %zu requests, and %zu batches created at "
		      "that time match it: %s; cancel the ones that are not this job's (or let them end: their "
		      "results then tell), then run the command again", in->nr_keys, nr_candidates, candidates.buf);
		rc = ERR_REMOTE;
	}
	strbuf_release(&url);
	strbuf_release(&after);
	strbuf_release(&candidates);
	strbuf_release(&first);
	strbuf_release(&r.body);
	return rc;
}

/*
 * Settle every intent of an earlier run without a "created" or
 * "abandoned" record: a batch found at the provider is journaled as
 * created and waited for; otherwise the intent is abandoned and its
 * requests are submitted as usual. Return 0 or an ERR_* code.
 */
static int settle_intents(struct run *b)
{
	for (size_t i = 0; i < b->nr_in; i++) {
		struct intent *in = &b->in[i];
		struct pending *p;
		char *id;
		int rc;

		if (strmap_get(&b->settled, in->tag))
			continue;
		if ((rc = lookup(b, in, &id)))
			return rc;
		if (!id) {
			if (journal_abandoned(b, in->tag))
				return ERR_INPUT;
			strmap_put(&b->settled, in->tag, (void *)1);
			continue;
		}
		note("found batch '%s', which an interrupted run created (%zu requests): waiting for it instead of "
		     "submitting its requests again", id, in->nr_keys);
		p = add_pending(b, id, in->round);
		p->keys = in->keys;
		p->nr_keys = in->nr_keys;
		in->keys = NULL;
		in->nr_keys = 0;
		strmap_put(&b->known, id, (void *)1);
		strmap_put(&b->settled, in->tag, (void *)1);
		free(id);
		b->st->found++;
		if (journal_created(b, p, NULL, in->tag, true))
			return ERR_INPUT;
	}
	return 0;
}

/* Cut the requests 'idx[0..n)' into batches at the limits and create each. */
static int submit(struct run *b, const size_t *idx, size_t n, int round)
{
	long max_req = b->o->max_requests > 0 ? b->o->max_requests : LLMBATCH_DEFAULT_REQUESTS;
	long max_bytes = b->o->max_bytes > 0 ? b->o->max_bytes : LLMBATCH_DEFAULT_BYTES;
	long cap_req = b->provider == LLM_ANTHROPIC ? LLMBATCH_ANTHROPIC_MAX_REQUESTS
		       : b->azure ? LLMBATCH_AZURE_MAX_REQUESTS : LLMBATCH_OPENAI_MAX_REQUESTS;
	long cap_bytes = b->provider == LLM_ANTHROPIC ? LLMBATCH_ANTHROPIC_MAX_BYTES : LLMBATCH_OPENAI_MAX_BYTES;
	size_t start = 0;

	if (max_req > cap_req)
		max_req = cap_req;
	if (max_bytes > cap_bytes)
		max_bytes = cap_bytes;
	while (start < n) {
		size_t end = start;
		long bytes = 0;
		int rc;
		while (end < n && (long)(end - start) < max_req) {
			long line = (long)strlen(body_of(b, &b->reqs[idx[end]])) +
				    (long)strlen(b->reqs[idx[end]].custom_id) + 96;
			if (end > start && bytes + line > max_bytes)
				break;
			if (line > max_bytes)
				return error("request '%s' alone is larger than the %ld bytes a batch file may hold",
					     b->reqs[idx[end]].custom_id, max_bytes), ERR_INPUT;
			bytes += line;
			end++;
		}
		rc = create(b, idx + start, end - start, round);
		if (rc)
			return rc;
		start = end;
	}
	return 0;
}

/* ---- results ---- */

int llmbatch_parse_line(const cJSON *line, const char **custom_id, char **body, char **why)
{
	const cJSON *resp, *res, *e;
	const char *t;

	*body = *why = NULL;
	*custom_id = jstr(line, "custom_id");
	if (!*custom_id)
		return -1;
	if ((res = cJSON_GetObjectItemCaseSensitive(line, "result"))) {
		/* Anthropic: succeeded | errored | canceled | expired */
		t = jstr(res, "type");
		if (t && !strcmp(t, "succeeded") && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(res, "message"))) {
			*body = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(res, "message"));
			return 0;
		}
		e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "error"), "error");
		if (jstr(e, "message"))
			*why = xstrfmt("%s: %s", t ? t : "failed", jstr(e, "message"));
		else
			*why = xstrfmt("%s in the batch", t ? t : "failed");
		return 0;
	}
	resp = cJSON_GetObjectItemCaseSensitive(line, "response");
	e = cJSON_GetObjectItemCaseSensitive(line, "error");
	if (cJSON_IsObject(resp) && cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(resp, "status_code")) == 200 &&
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(resp, "body")) && !cJSON_IsObject(e)) {
		*body = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(resp, "body"));
		return 0;
	}
	if (cJSON_IsObject(e) && jstr(e, "message"))
		*why = xstrfmt("%s: %s", jstr(e, "code") ? jstr(e, "code") : "error", jstr(e, "message"));
	else if (cJSON_IsObject(resp)) {
		struct strbuf m = STRBUF_INIT;
		char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(resp, "body"));
		if (text)
			llm_error_message(text, strlen(text), &m, NULL);
		*why = xstrfmt("HTTP %g: %s", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(resp, "status_code")),
			       m.len ? m.buf : "no message");
		free(text);
		strbuf_release(&m);
	} else {
		*why = xstrdup("failed in the batch");
	}
	return 0;
}

int llmbatch_read_file(const char *path, llmbatch_result_fn fn, void *ctx)
{
	FILE *fp = fopen_regular(path);
	struct strbuf line = STRBUF_INIT;
	long nr = 0;
	int got, rc = 0;

	if (!fp)
		return -1;
	line.limit = JOURNAL_MAX_LINE;
	while ((got = strbuf_getline(&line, fp)) != EOF) {
		cJSON *j;
		const char *cid;
		char *body = NULL, *why = NULL;
		int stop;

		nr++;
		if (got == -2) {
			rc = error_at(path, nr, 0, "line too long");
			break;
		}
		strbuf_trim(&line);
		if (!line.len)
			continue;
		j = cJSON_ParseWithLength(line.buf, line.len);
		if (!j || llmbatch_parse_line(j, &cid, &body, &why)) {
			cJSON_Delete(j);
			rc = error_at(path, nr, 0, "not a batch output line (no custom_id)");
			break;
		}
		stop = fn(cid, body, body ? strlen(body) : 0, why, true, ctx);
		free(body);
		free(why);
		cJSON_Delete(j);
		if (stop < 0)
			break;
	}
	fclose(fp);
	strbuf_release(&line);
	return rc;
}

/*
 * Hand the result lines of 'text' to the caller; mark each custom id seen
 * in 'seen'; add failures that a follow-up may ask again to 'retry'.
 */
static void deliver(struct run *b, const struct pending *p, const char *text, size_t len, struct strmap *seen,
		    struct strmap *retry, size_t *ok, size_t *failed)
{
	const char *s = text, *end = text + len;
	struct strmap mine = STRMAP_INIT;

	/* a line for a request this batch does not carry is not this job's: left alone */
	for (size_t i = 0; i < p->nr_keys; i++)
		strmap_put(&mine, p->keys[i], (void *)1);

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		cJSON *j = n ? cJSON_ParseWithLength(s, n) : NULL;
		const char *cid = NULL;
		char *body = NULL, *why = NULL;
		s += n + 1;
		if (!j || llmbatch_parse_line(j, &cid, &body, &why) || !strmap_get(&mine, cid)) {
			free(body);
			free(why);
			cJSON_Delete(j);
			continue;
		}
		strmap_put(seen, cid, (void *)1);
		if (body) {
			bool again = p->round < b->o->rounds && strmap_get(&b->body_of, cid);
			(*ok)++;
			b->st->succeeded++;
			int use = b->o->result(cid, body, strlen(body), NULL, !again, b->o->ctx);
			if (use && again) {
				/* a reply the caller could not use: asked again, bounded by the rounds */
				b->st->unusable++;
				strmap_put(retry, cid, (void *)1);
				if (use == LLMBATCH_LONGER)
					ask_longer(b, cid);
			}
		} else {
			bool again = p->round < b->o->rounds && strmap_get(&b->body_of, cid);
			(*failed)++;
			b->st->failed++;
			b->o->result(cid, NULL, 0, why, !again, b->o->ctx);
			if (again)
				strmap_put(retry, cid, (void *)1);
		}
		free(body);
		free(why);
		cJSON_Delete(j);
	}
	strmap_clear(&mine, 0);
}

/* GET a results file into 'r'. */
static int download(struct run *b, const char *url, struct reply *r, const char *what)
{
	int rc = call(b, "GET", url, llm_get_headers(b->l), NULL, 0, r);

	if (!rc && !ok_status(r))
		rc = refused(b, what, r);
	return rc;
}

/*
 * Poll batch 'p' once. When it ended, download and deliver its results,
 * journal its end and set p->ended. Return 0, ERR_REMOTE or ERR_INTERRUPTED.
 */
static int poll_one(struct run *b, struct pending *p, struct strmap *retry)
{
	struct strbuf url = STRBUF_INIT;
	struct reply r = { 0, STRBUF_INIT, "" }, f = { 0, STRBUF_INIT, "" };
	struct strmap seen = STRMAP_INIT;
	cJSON *j = NULL;
	const char *status;
	size_t ok = 0, failed = 0;
	int rc;

	if (b->provider == LLM_ANTHROPIC) {
		struct strbuf path = STRBUF_INIT;
		strbuf_addf(&path, "/messages/batches/%s", p->id);
		llm_url(llm_get_base_url(b->l), path.buf, &url);
		strbuf_release(&path);
	} else {
		strbuf_addf(&url, "%s/batches/%s%s", b->root.buf, p->id, b->query);
	}
	rc = call(b, "GET", url.buf, llm_get_headers(b->l), NULL, 0, &r);
	b->st->polls++;
	if (!rc && !ok_status(&r))
		rc = refused(b, "polling the batch was refused", &r);
	if (rc)
		goto out;
	j = cJSON_ParseWithLength(r.body.buf, r.body.len);
	status = jstr(j, b->provider == LLM_ANTHROPIC ? "processing_status" : "status");
	if (!status) {
		error("polling batch '%s': the reply has no status", p->id);
		rc = ERR_REMOTE;
		goto out;
	}
	if (b->provider == LLM_ANTHROPIC ? strcmp(status, "ended")
	    : !strcmp(status, "validating") || !strcmp(status, "in_progress") || !strcmp(status, "finalizing") ||
	      !strcmp(status, "cancelling"))
		goto out;   /* still running */
	if (b->provider == LLM_ANTHROPIC) {
		const char *results = jstr(j, "results_url");
		if (results) {
			rc = download(b, results, &f, "downloading the batch results was refused");
			if (rc)
				goto out;
			deliver(b, p, f.body.buf, f.body.len, &seen, retry, &ok, &failed);
		}
	} else {
		const char *files[2] = { jstr(j, "output_file_id"), jstr(j, "error_file_id") };
		for (int i = 0; i < 2; i++) {
			if (!files[i])
				continue;
			strbuf_reset(&url);
			strbuf_addf(&url, "%s/files/%s/content%s", b->root.buf, files[i], b->query);
			rc = download(b, url.buf, &f, "downloading a batch file was refused");
			if (rc)
				goto out;
			deliver(b, p, f.body.buf, f.body.len, &seen, retry, &ok, &failed);
		}
		if (!strcmp(status, "failed")) {
			const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(j, "errors"), "data"), 0);
			struct strbuf m = STRBUF_INIT;
			strbuf_addstr(&m, jstr(e, "message") ? jstr(e, "message") : "no reason given");
			llm_scrub_job(b->l, &m);
			warning("batch '%s' failed: %s", p->id, m.buf);
			strbuf_release(&m);
		}
	}
	/* requests the batch ended without a line for (failed, expired before starting) */
	for (size_t i = 0; i < p->nr_keys; i++) {
		const char *cid = p->keys[i];
		bool again;
		if (strmap_get(&seen, cid))
			continue;
		again = p->round < b->o->rounds && strmap_get(&b->body_of, cid);
		failed++;
		b->st->failed++;
		b->o->result(cid, NULL, 0, "no result in the batch", !again, b->o->ctx);
		if (again)
			strmap_put(retry, cid, (void *)1);
	}
	if (failed && b->provider != LLM_ANTHROPIC && strcmp(status, "completed"))
		note("batch '%s' ended %s: %zu requests without a reply", p->id, status, failed);
	if (journal_ended(b, p, status, ok, failed)) {
		rc = ERR_INPUT;
		goto out;
	}
	p->ended = true;
out:
	cJSON_Delete(j);
	strmap_clear(&seen, 0);
	strbuf_release(&url);
	strbuf_release(&r.body);
	strbuf_release(&f.body);
	return rc;
}

/* Sleep 'seconds', waking to check the stop callback. Return 0 or ERR_INTERRUPTED. */
static int wait_for(struct run *b, double seconds)
{
	int64_t left = (int64_t)(seconds * 1000);

	while (left > 0) {
		struct timespec ts = { 0, 50 * 1000000L };
		if (left < 50)
			ts.tv_nsec = (long)left * 1000000L;
		if (b->o->stop && b->o->stop(b->o->ctx))
			return ERR_INTERRUPTED;
		nanosleep(&ts, NULL);
		left -= 50;
	}
	return b->o->stop && b->o->stop(b->o->ctx) ? ERR_INTERRUPTED : 0;
}

/* ---- the run ---- */

static void set_endpoint(struct run *b)
{
	const char *base = llm_get_base_url(b->l);
	const char *q = strchr(base, '?');
	const char *dep = strstr(base, "/openai/deployments/");
	char d[72];

	sha256_hex(base, strlen(base), d);
	snprintf(b->endpoint, sizeof(b->endpoint), "%.16s", d + 7);
	b->query = q ? q : "";
	b->azure = is_azure(base);
	if (dep) {
		/* Azure's deployment URL: files and batches are under /openai */
		strbuf_add(&b->root, base, (size_t)(dep - base) + strlen("/openai"));
	} else {
		size_t len = q ? (size_t)(q - base) : strlen(base);
		while (len && base[len - 1] == '/')
			len--;
		strbuf_add(&b->root, base, len);
	}
}

int llmbatch_run(struct llm *l, const struct llmbatch_options *o, const struct llmbatch_request *reqs,
		 size_t nr, struct llmbatch_stats *st)
{
	struct run b;
	struct strmap retry = STRMAP_INIT;
	size_t *idx = xcalloc(nr + 1, sizeof(*idx)), n = 0;
	size_t unsettled = 0;
	double wait;
	int rc = 0, round = 0;

	memset(&b, 0, sizeof(b));
	memset(st, 0, sizeof(*st));
	b.l = l;
	b.o = o;
	b.st = st;
	b.reqs = reqs;
	b.nr_reqs = nr;
	b.provider = llm_get_provider(l);
	b.journal.fd = -1;
	strbuf_init(&b.root, 0);
	set_endpoint(&b);
	for (size_t i = 0; i < nr; i++)
		strmap_put(&b.body_of, reqs[i].custom_id, (void *)(uintptr_t)(i + 1));
	if (journal_read(o->journal_path, read_record, &b) < 0) {
		rc = ERR_INPUT;
		goto out;
	}
	for (size_t i = 0; i < b.nr_in; i++)
		unsettled += !strmap_get(&b.settled, b.in[i].tag);
	if (unsettled && o->estimate_only)
		note("%zu batches an interrupted run was creating are not looked up by an estimate: their requests "
		     "are counted as to submit", unsettled);
	/* a crash between creating a batch and journaling it: find it by its tag before paying again */
	if (unsettled && !o->estimate_only &&
	    (journal_open(&b.journal, o->journal_path) ? (rc = ERR_INPUT) : (rc = settle_intents(&b))))
		goto out;
	/* the batches of an earlier run that never ended: resumed, their requests not sent again */
	for (size_t i = 0; i < b.nr_p; i++) {
		struct pending *p = &b.p[i];
		if (strmap_get(&b.done, p->id)) {
			p->ended = true;
			continue;
		}
		st->resumed++;
		if (p->round > round)
			round = p->round;
		for (size_t k = 0; k < p->nr_keys; k++)
			strmap_put(&b.carried, p->keys[k], (void *)1);
	}
	for (size_t i = 0; i < nr; i++) {
		if (strmap_get(&b.carried, reqs[i].custom_id)) {
			st->skipped++;
			continue;
		}
		idx[n++] = i;
		st->est_prompt_tokens += (long)(strlen(reqs[i].body) / 4);
		st->est_completion_tokens += llm_get_max_tokens(l);
	}
	st->to_submit = n;
	if (o->price_in > 0 || o->price_out > 0)
		st->est_cost = ((double)st->est_prompt_tokens * o->price_in +
				(double)st->est_completion_tokens * o->price_out) / 1e6;
	if (o->max_cost > 0 && n && st->est_cost > o->max_cost) {
		error("the batch would cost about $%.2f (%ld prompt tokens, at most %ld completion tokens), "
		      "more than --max-cost %.2f: nothing submitted", st->est_cost, st->est_prompt_tokens,
		      st->est_completion_tokens, o->max_cost);
		rc = ERR_INPUT;
		goto out;
	}
	if (o->estimate_only)
		goto out;
	if (b.journal.fd < 0 && journal_open(&b.journal, o->journal_path)) {
		rc = ERR_INPUT;
		goto out;
	}
	if (n && (rc = submit(&b, idx, n, round)))
		goto out;
	wait = o->poll_s > 0 ? o->poll_s : 30;
	for (;;) {
		size_t left = 0;
		for (size_t i = 0; i < b.nr_p; i++) {
			if (b.p[i].ended)
				continue;
			if ((rc = poll_one(&b, &b.p[i], &retry)))
				goto out;
			left += !b.p[i].ended;
		}
		if (o->progress)
			o->progress(st, o->ctx);
		if (!left && retry.size) {
			/* the failures of this round, in a follow-up batch */
			struct strmap_entry *e;
			n = 0;
			strmap_for_each(&retry, e)
				idx[n++] = (uintptr_t)strmap_get(&b.body_of, e->key) - 1;
			strmap_clear(&retry, 0);
			st->retried += n;
			note("%zu requests failed in the batch or came back unusable; sending them again in a "
			     "follow-up batch", n);
			round++;
			if ((rc = submit(&b, idx, n, round)))
				goto out;
			wait = o->poll_s > 0 ? o->poll_s : 30;
			continue;
		}
		if (!left)
			break;
		if ((rc = wait_for(&b, wait)))
			goto out;
		wait *= 1.5;
		if (wait > (o->poll_max_s > 0 ? o->poll_max_s : 600))
			wait = o->poll_max_s > 0 ? o->poll_max_s : 600;
	}
out:
	for (size_t i = 0; i < b.nr_p; i++) {
		st->pending += !b.p[i].ended;
		for (size_t k = 0; k < b.p[i].nr_keys; k++)
			free(b.p[i].keys[k]);
		free(b.p[i].keys);
		free(b.p[i].id);
	}
	free(b.p);
	for (size_t i = 0; i < b.nr_in; i++) {
		for (size_t k = 0; k < b.in[i].nr_keys; k++)
			free(b.in[i].keys[k]);
		free(b.in[i].keys);
		free(b.in[i].tag);
	}
	free(b.in);
	strmap_clear(&b.known, 0);
	strmap_clear(&b.settled, 0);
	if (b.journal.fd >= 0)
		journal_close(&b.journal);
	strmap_clear(&b.carried, 0);
	strmap_clear(&b.done, 0);
	strmap_clear(&b.body_of, 0);
	strmap_clear(&b.longer, 1);
	strmap_clear(&retry, 0);
	strbuf_release(&b.root);
	free(idx);
	return rc;
}
