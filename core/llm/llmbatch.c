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
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __APPLE__
#include <sys/random.h>  /* getentropy */
#endif
#include <time.h>
#include <unistd.h>

/* ---- submitting ---- */

/* True for Azure OpenAI: a deployment URL or a host under .azure.com. */
static bool is_azure(const char *base)
{
	return strstr(base, "/openai/deployments/") || url_host_in(base, "azure.com");
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
	char *v = xstrdup(batch_jstr(j, key));

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
	batch_url_of(b, "/files", &url);
	rc = batch_call(b, "POST", url.buf, headers, body.buf, body.len, &r);
	if (!rc && !batch_ok_status(&r))
		rc = batch_refused(b, "uploading the batch input file was refused", &r);
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

	if (getentropy(rnd, sizeof(rnd)) < 0)
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
	if (batch_journal_intent(b, tag, idx, n, round))
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
		rc = batch_call(b, "POST", url.buf, llm_get_headers(b->l), body.buf, body.len, &r);
	} else {
		for (size_t i = 0; i < n; i++)
			input_line(b, &b->reqs[idx[i]], &content);
		rc = upload(b, &content, (int)b->st->created + 1, &file_id);
		if (!rc) {
			strbuf_addf(&body, "{\"input_file_id\":\"%s\",\"endpoint\":\"%s\",\"completion_window\":\"24h\","
				    "\"metadata\":{\"evalset_tag\":\"%s\"}}",
				    file_id, b->azure ? "/chat/completions" : "/v1/chat/completions", tag);
			batch_url_of(b, "/batches", &url);
			rc = batch_call(b, "POST", url.buf, llm_get_headers(b->l), body.buf, body.len, &r);
		}
	}
	if (!rc && !batch_ok_status(&r))
		rc = batch_refused(b, "creating the batch was refused", &r);
	if (!rc && !(id = reply_str(&r, "id"))) {
		error("creating the batch: the reply has no batch id");
		rc = ERR_REMOTE;
	}
	if (!rc) {
		p = batch_add_pending(b, id, round);
		p->keys = xcalloc(n + 1, sizeof(*p->keys));
		for (size_t i = 0; i < n; i++) {
			p->keys[p->nr_keys++] = xstrdup(b->reqs[idx[i]].custom_id);
			strmap_put(&b->carried, b->reqs[idx[i]].custom_id, (void *)1);
		}
		if (batch_journal_created(b, p, file_id, tag, false))
			rc = ERR_INPUT;
		b->st->created++;
		b->st->submitted += n;
	} else if (rc == ERR_REMOTE && r.status >= 400 && r.status < 500) {
		/* refused outright: no batch exists, the next run need not look for it */
		batch_journal_abandoned(b, tag);
	}
	free(id);
	free(file_id);
	strbuf_release(&content);
	strbuf_release(&url);
	strbuf_release(&body);
	strbuf_release(&r.body);
	return rc;
}

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

/*
 * Hand the result lines of 'text' to the caller; mark each custom id seen
 * in 'seen'; add failures that a follow-up may ask again to 'retry'. A
 * custom id the batch gives twice with the same result is handed over
 * once; one it gives two different results (a provider's fault, or a
 * hostile one: which is right cannot be told) gets neither: it counts as
 * failed in the batch, asked again while rounds are left, and is reported.
 */
static void deliver(struct run *b, const struct pending *p, const char *text, size_t len, struct strmap *seen,
		    struct strmap *retry, size_t *ok, size_t *failed)
{
	const char *s = text, *end = text + len;
	struct strmap mine = STRMAP_INIT, digests = STRMAP_INIT, twice = STRMAP_INIT;
	const char *example = NULL;

	/* a line for a request this batch does not carry is not this job's: left alone */
	for (size_t i = 0; i < p->nr_keys; i++)
		strmap_put(&mine, p->keys[i], (void *)1);
	/* first, which custom ids have two different results */
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *cid;
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		cJSON *j = n ? cJSON_ParseWithLength(s, n) : NULL;
		s += n + 1;
		if (j && batch_note_result(j, &mine, &digests, &cid) && !strmap_get(&twice, cid)) {
			strmap_put(&twice, cid, (void *)1);
			if (!example)
				example = strmap_find(&twice, cid, strlen(cid))->key;
		}
		cJSON_Delete(j);
	}
	if (twice.size)
		warning("batch '%s': %zu request%s given two different results (e.g. '%s'): neither is used, "
			"each counts as failed", p->id, twice.size, twice.size == 1 ? " is" : "s are", example);

	for (s = text; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		cJSON *j = n ? cJSON_ParseWithLength(s, n) : NULL;
		const char *cid = NULL;
		char *body = NULL, *why = NULL;
		s += n + 1;
		if (!j || llmbatch_parse_line(j, &cid, &body, &why) || !strmap_get(&mine, cid) ||
		    strmap_get(seen, cid)) {
			/* not this job's, or handed over already (the same result again) */
			free(body);
			free(why);
			cJSON_Delete(j);
			continue;
		}
		strmap_put(seen, cid, (void *)1);
		if (strmap_get(&twice, cid)) {
			free(body);
			body = NULL;
			free(why);
			why = xstrdup("two different results in the batch");
		}
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
	strmap_clear(&digests, 1);
	strmap_clear(&twice, 0);
}

/* GET a results file into 'r'. */
static int download(struct run *b, const char *url, struct reply *r, const char *what)
{
	int rc = batch_call(b, "GET", url, llm_get_headers(b->l), NULL, 0, r);

	if (!rc && !batch_ok_status(r))
		rc = batch_refused(b, what, r);
	return rc;
}

/*
 * The requests of a running batch the provider counts as finished, from
 * the "request_counts" of its poll reply 'j' (OpenAI: completed and
 * failed; Anthropic: succeeded, errored, canceled and expired), at most
 * 'nr'; 0 when the reply has none.
 */
static size_t finished_so_far(const struct run *b, const cJSON *j, size_t nr)
{
	static const char *const openai[] = { "completed", "failed", NULL };
	static const char *const anthropic[] = { "succeeded", "errored", "canceled", "expired", NULL };
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(j, "request_counts");
	double n = 0;

	for (const char *const *k = b->provider == LLM_ANTHROPIC ? anthropic : openai; *k; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(counts, *k);
		if (cJSON_IsNumber(v) && v->valuedouble > 0)
			n += v->valuedouble;
	}
	return n < (double)nr ? (size_t)n : nr;
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
		strbuf_addf(&url, "%s/batches/%s%s", b->root.buf, p->id, b->query.buf);
	}
	rc = batch_call(b, "GET", url.buf, llm_get_headers(b->l), NULL, 0, &r);
	b->st->polls++;
	if (!rc && !batch_ok_status(&r))
		rc = batch_refused(b, "polling the batch was refused", &r);
	if (rc)
		goto out;
	j = cJSON_ParseWithLength(r.body.buf, r.body.len);
	status = batch_jstr(j, b->provider == LLM_ANTHROPIC ? "processing_status" : "status");
	if (!status) {
		error("polling batch '%s': the reply has no status", p->id);
		rc = ERR_REMOTE;
		goto out;
	}
	if (b->provider == LLM_ANTHROPIC ? strcmp(status, "ended")
	    : !strcmp(status, "validating") || !strcmp(status, "in_progress") || !strcmp(status, "finalizing") ||
	      !strcmp(status, "cancelling")) {
		p->finished = finished_so_far(b, j, p->nr_keys);
		goto out;   /* still running */
	}
	if (b->provider == LLM_ANTHROPIC) {
		const char *results = batch_jstr(j, "results_url");
		if (results) {
			rc = batch_get_results(b, results, &f);
			if (!rc && !batch_ok_status(&f))
				rc = batch_refused(b, "downloading the batch results was refused", &f);
			if (rc)
				goto out;
			deliver(b, p, f.body.buf, f.body.len, &seen, retry, &ok, &failed);
		}
	} else {
		const char *files[2] = { batch_jstr(j, "output_file_id"), batch_jstr(j, "error_file_id") };
		struct strbuf both = STRBUF_INIT;
		/* the output and error files read as one: a request in both is given twice */
		for (int i = 0; i < 2 && !rc; i++) {
			if (!files[i])
				continue;
			strbuf_reset(&url);
			strbuf_addf(&url, "%s/files/%s/content%s", b->root.buf, files[i], b->query.buf);
			rc = download(b, url.buf, &f, "downloading a batch file was refused");
			strbuf_add(&both, f.body.buf, f.body.len);
			strbuf_addch(&both, '\n');
		}
		if (!rc)
			deliver(b, p, both.buf, both.len, &seen, retry, &ok, &failed);
		strbuf_release(&both);
		if (rc)
			goto out;
		if (!strcmp(status, "failed")) {
			const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(j, "errors"), "data"), 0);
			struct strbuf m = STRBUF_INIT;
			strbuf_addstr(&m, batch_jstr(e, "message") ? batch_jstr(e, "message") : "no reason given");
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
	if (batch_journal_ended(b, p, status, ok, failed)) {
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

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Fill the progress fields of the stats from the batches waited on, 'next'
 * seconds before the next poll, and call the progress callback. */
static void show_wait(struct run *b, double next)
{
	struct llmbatch_stats *st = b->st;

	if (!b->o->progress)
		return;
	st->waiting_for = st->finished = 0;
	for (size_t i = 0; i < b->nr_p; i++) {
		st->waiting_for += b->p[i].nr_keys;
		st->finished += b->p[i].ended ? b->p[i].nr_keys : b->p[i].finished;
	}
	st->waited = b->wait_start ? (double)(now_ms() - b->wait_start) / 1000 : 0;
	st->next_poll = next;
	b->o->progress(st, b->o->ctx);
}

/* Sleep 'seconds', waking to check the stop callback, and no later than
 * the job's deadline. Return 0, ERR_INTERRUPTED or HTTP_DEADLINE_PASSED. */
static int wait_for(struct run *b, double seconds)
{
	int64_t left = (int64_t)(seconds * 1000);

	if (batch_time_left(b) <= left) {
		/* the deadline comes first: wait for it, then stop */
		left = batch_time_left(b);
		while (left > 0) {
			struct timespec ts = { 0, (left < 50 ? left : 50) * 1000000L };
			if (b->o->stop && b->o->stop(b->o->ctx))
				return ERR_INTERRUPTED;
			nanosleep(&ts, NULL);
			left = batch_time_left(b);
		}
		return HTTP_DEADLINE_PASSED;
	}
	while (left > 0) {
		struct timespec ts = { 0, 50 * 1000000L };
		if (left < 50)
			ts.tv_nsec = (long)left * 1000000L;
		if (b->o->stop && b->o->stop(b->o->ctx))
			return ERR_INTERRUPTED;
		nanosleep(&ts, NULL);
		left -= 50;
		if (left > 0 && left % 1000 < 50)
			show_wait(b, (double)left / 1000);  /* about once a second */
	}
	return b->o->stop && b->o->stop(b->o->ctx) ? ERR_INTERRUPTED : 0;
}

/* ---- the run ---- */

static void set_endpoint(struct run *b)
{
	const char *base = llm_get_base_url(b->l);
	const char *dep;
	char d[72];

	sha256_hex(base, strlen(base), d);
	snprintf(b->endpoint, sizeof(b->endpoint), "%.16s", d + 7);
	url_query(base, &b->query);
	b->azure = is_azure(base);
	/* the base without its query or fragment (url_join puts the query last) */
	url_join(base, "", &b->root);
	strbuf_setlen(&b->root, b->root.len - b->query.len);
	if ((dep = strstr(b->root.buf, "/openai/deployments/")))
		/* Azure's deployment URL: files and batches are under /openai */
		strbuf_setlen(&b->root, (size_t)(dep - b->root.buf) + strlen("/openai"));
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
	if (o->deadline_ms > 0) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		b.deadline_at = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + o->deadline_ms;
	}
	strbuf_init(&b.root, 0);
	strbuf_init(&b.query, 0);
	set_endpoint(&b);
	for (size_t i = 0; i < nr; i++)
		strmap_put(&b.body_of, reqs[i].custom_id, (void *)(uintptr_t)(i + 1));
	if (journal_read(o->journal_path, batch_read_record, &b) < 0) {
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
	    (journal_open(&b.journal, o->journal_path) ? (rc = ERR_INPUT) : (rc = batch_settle_intents(&b))))
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
		if (!b.wait_start)
			b.wait_start = now_ms();
		for (size_t i = 0; i < b.nr_p; i++) {
			if (b.p[i].ended)
				continue;
			if ((rc = poll_one(&b, &b.p[i], &retry)))
				goto out;
			left += !b.p[i].ended;
		}
		show_wait(&b, 0);
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
	strbuf_release(&b.query);
	free(idx);
	return rc;
}
