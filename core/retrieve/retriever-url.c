/*
 * retriever-url: a retriever behind HTTP, one POST per question through
 * core/base/http.h (see retriever.h). Answers arrive in any order; each is
 * checked like a command's reply and stored at its question's index, and
 * the first failure stops the run (requests still in flight are cancelled).
 */
#include "retrieve/retriever.h"
#include "base/error.h"
#include "base/redact.h"
#include "base/http.h"
#include "base/jsonstr.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool url_body_has_history(const char *tmpl)
{
	return strstr(tmpl, "{{history}}") != NULL;
}

int url_render_body(const char *tmpl, const char *qid, const char *query, long k,
		    const char *history, struct strbuf *out)
{
	const char *p = tmpl;
	cJSON *check;

	strbuf_reset(out);
	while (*p) {
		const char *open = strstr(p, "{{"), *close;
		if (!open) {
			strbuf_addstr(out, p);
			break;
		}
		strbuf_add(out, p, (size_t)(open - p));
		close = strstr(open + 2, "}}");
		if (!close)
			return error("unclosed '{{' in the body template");
		if (close - open == 7 && !strncmp(open, "{{query}}", 9))
			json_add_escaped(out, query, strlen(query), JSON_CJSON);
		else if (close - open == 5 && !strncmp(open, "{{qid}}", 7))
			json_add_escaped(out, qid, strlen(qid), JSON_CJSON);
		else if (close - open == 3 && !strncmp(open, "{{k}}", 5))
			strbuf_addf(out, "%ld", k);
		else if (close - open == 9 && !strncmp(open, "{{history}}", 11))
			strbuf_addstr(out, history ? history : "[]");
		else
			return error("unknown placeholder '%.*s' in the body template "
				     "(known: {{query}}, {{qid}}, {{k}}, {{history}})",
				     (int)(close + 2 - open), open);
		p = close + 2;
	}
	check = cJSON_ParseWithLength(out->buf, out->len);
	if (!check)
		return error("the body template does not give valid JSON (put {{query}} "
			     "inside quotes): '%s'", out->buf);
	cJSON_Delete(check);
	return 0;
}

char *url_redact(const char *url)
{
	struct strbuf sb = STRBUF_INIT;

	char *at;

	redact_url(url, &sb);
	/* the query and fragment are left out altogether: a key may hide under any name */
	strbuf_setlen(&sb, strcspn(sb.buf, "?#"));
	/* and so is the user info, not only its value */
	if ((at = strstr(sb.buf, "://***@")))
		memmove(at + 3, at + 7, strlen(at + 7) + 1);
	sb.len = strlen(sb.buf);
	return strbuf_detach(&sb, NULL);
}

/* Follow the dotted 'path' ("data.hits", "results.0.docs") from 'root'; NULL when absent. */
static const cJSON *follow_path(const cJSON *root, const char *path)
{
	const cJSON *cur = root;
	struct strbuf seg = STRBUF_INIT;

	while (cur && *path) {
		size_t n = strcspn(path, ".");
		long idx;

		strbuf_reset(&seg);
		strbuf_add(&seg, path, n);
		if (cJSON_IsArray(cur) && !parse_long(seg.buf, 0, INT32_MAX, &idx))
			cur = cJSON_GetArrayItem(cur, (int)idx);
		else if (cJSON_IsObject(cur))
			cur = cJSON_GetObjectItemCaseSensitive(cur, seg.buf);
		else
			cur = NULL;
		path += n;
		if (*path == '.')
			path++;
	}
	strbuf_release(&seg);
	return cur;
}

struct url_ctx {
	const struct url_retriever *u;
	struct job *job;
};

struct url_req {
	struct url_ctx *ctx;
	size_t i;   /* the question it asks */
};

static int url_done(const struct http_response *res, void *data)
{
	struct url_req *r = data;
	struct job *job = r->ctx->job;
	const char *qid = job->qid[r->i];
	const char *path = r->ctx->u->results_path;
	struct strbuf why = STRBUF_INIT;
	cJSON *reply = NULL;
	const cJSON *results;
	int rc = 1;

	if (res->cancelled)
		return 0;
	if (!res->status) {
		error("endpoint unreachable for question '%s' after %d attempt%s: %s", qid,
		      res->attempts, res->attempts == 1 ? "" : "s", res->error);
		goto out;
	}
	if (res->status < 200 || res->status > 299) {
		retriever_excerpt(&why, res->body, res->body_len);
		error("endpoint answered HTTP %ld for question '%s' after %d attempt%s: '%s'",
		      res->status, qid, res->attempts, res->attempts == 1 ? "" : "s", why.buf);
		goto out;
	}
	reply = cJSON_ParseWithLength(res->body, res->body_len);
	if (!reply) {
		retriever_excerpt(&why, res->body, res->body_len);
		error("endpoint's reply to question '%s' is not JSON: '%s'", qid, why.buf);
		goto out;
	}
	results = *path ? follow_path(reply, path) : reply;
	if (!results) {
		error("endpoint's reply to question '%s' has no '%s' (set the path with --results)",
		      qid, path);
		goto out;
	}
	if (!cJSON_IsArray(results)) {
		error("endpoint's reply to question '%s' has a '%s' that is not a list", qid, path);
		goto out;
	}
	job->ans[r->i].latency_ms = res->elapsed * 1000.0;
	if (job_accept(job, r->i, results,
		       cJSON_IsObject(reply) ? cJSON_GetObjectItemCaseSensitive(reply, "abstained") : NULL,
		       &why)) {
		error("endpoint's reply to question '%s' is wrong: %s", qid, why.buf);
		goto out;
	}
	rc = 0;
out:
	cJSON_Delete(reply);
	strbuf_release(&why);
	return rc;
}

static int url_stop(void *data)
{
	struct url_ctx *ctx = data;
	return ctx->job->stop && ctx->job->stop();
}

/* True when 'headers' sets 'name' (case-insensitive). */
static bool has_header(const char *const *headers, const char *name)
{
	size_t n = strlen(name);

	for (; headers && *headers; headers++)
		if (!strncasecmp(*headers, name, n) && (*headers)[n] == ':')
			return true;
	return false;
}

int retrieve_url(const struct url_retriever *u, struct job *job)
{
	struct http_options o = HTTP_OPTIONS_INIT;
	struct url_ctx ctx = { u, job };
	struct url_req *reqs = xcalloc(job->nr ? job->nr : 1, sizeof(*reqs));
	struct strbuf body = STRBUF_INIT;
	const char **headers;
	size_t nh = 0;
	struct http_client *c = NULL;
	int rc = 0;

	for (const char *const *h = u->headers; h && *h; h++)
		nh++;
	headers = xcalloc(nh + 3, sizeof(*headers));
	nh = 0;
	for (const char *const *h = u->headers; h && *h; h++)
		headers[nh++] = *h;
	if (!has_header(u->headers, "Content-Type"))
		headers[nh++] = "Content-Type: application/json";
	if (!has_header(u->headers, "Accept"))
		headers[nh++] = "Accept: application/json";

	o.concurrency = u->concurrency > 0 ? u->concurrency : 4;
	if (u->timeout_ms > 0)
		o.timeout_ms = u->timeout_ms;
	if (u->max_attempts > 0)
		o.max_attempts = u->max_attempts;
	o.done = url_done;
	o.stop = url_stop;
	o.ctx = &ctx;
	c = http_client_new(&o);
	for (size_t i = 0; i < job->nr; i++) {
		if (job->ans[i].answered)
			continue; /* kept from an earlier run (--resume) */
		cJSON *hist = job_history_json(job, i);
		char *hs = cJSON_PrintUnformatted(hist);
		int bad = url_render_body(u->body, job->qid[i], job->query[i], job->k, hs, &body);

		cJSON_free(hs);
		cJSON_Delete(hist);
		if (bad) {
			rc = ERR_INPUT;
			goto out;
		}
		reqs[i].ctx = &ctx;
		reqs[i].i = i;
		http_submit(c, "POST", u->url, headers, body.buf, body.len, &reqs[i]);
	}
	rc = http_run(c);
	if (rc && rc != ERR_INTERRUPTED)
		rc = ERR_REMOTE;
out:
	if (c)
		http_client_free(c);
	free(headers);
	free(reqs);
	strbuf_release(&body);
	return rc;
}

