/*
 * llm: the driver of a job of Chat Completions or Messages API calls: each
 * call sent through base/http, every attempt classified, the fallback ladder
 * walked, job-stopping failures reported once, usage counted (see llm.h;
 * the wire formats are in llm-wire.c).
 *
 * Invariants: every llm_submit() ends in exactly one 'done' callback; the
 * job's mode only moves down the ladder (json_schema -> json_object ->
 * plain), and its completion budget parameter only from max_tokens to
 * max_completion_tokens; a job-stopping failure is reported once; the API key lives only in
 * the header list handed to core/http and is scrubbed from every message.
 */
#include "llm/llm-internal.h"
#include "base/error.h"
#include "base/redact.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LLM_UNREACHABLE_ATTEMPTS 3  /* connect failures that stop a job that reached nothing */

struct llm_call {
	struct llm *l;
	char *system, *user;
	void *data;
	enum llm_mode mode;
	long max_tokens;
	bool completion_tokens;       /* this attempt sent max_completion_tokens */
	int length_retries, invalid_retries;
};

/*
 * Classify one attempt: quota errors are final; the first
 * LLM_UNREACHABLE_ATTEMPTS attempts of a job all failing to connect (refused,
 * name not resolved) end that request at once and mark the job unreachable.
 * Once any attempt got further, connection failures are retried as usual.
 */
static enum http_verdict classify(const struct http_response *res, void *data)
{
	struct llm_call *c = data;
	struct llm *l = c->l;

	if (!l->reached) {
		if (!http_unreachable(res)) {
			l->reached = true;
		} else if (++l->connect_failures >= LLM_UNREACHABLE_ATTEMPTS) {
			l->unreachable = true;
			return HTTP_DELIVER;
		}
	}
	if (llm_is_quota_error(res))
		return HTTP_DELIVER;
	if (res->status >= 200 && res->status < 300)
		return llm_not_a_completion(res, l->o.provider, NULL, NULL) ? HTTP_RETRY : HTTP_DELIVER;
	return http_classify_default(res, data);
}

static void send_call(struct llm *l, struct llm_call *c)
{
	struct strbuf body = STRBUF_INIT;

	c->completion_tokens = l->completion_tokens;
	llm_request_body(l, c->system, c->user, c->mode, c->max_tokens, &body);
	http_submit(l->http, "POST", l->url.buf, (const char *const *)l->headers,
		    body.buf, body.len, c);
	strbuf_release(&body);
}

static void call_free(struct llm_call *c)
{
	free(c->system);
	free(c->user);
	free(c);
}

static void finish(struct llm *l, struct llm_call *c, struct llm_result *res)
{
	res->mode = c->mode;
	switch (res->status) {
	case LLM_OK: l->usage.ok++; break;
	case LLM_FAILED: l->usage.failed++; break;
	default: l->usage.cancelled++; break;
	}
	l->o.done(res, c->data);
	call_free(c);
}

static int fatal(struct llm_call *c, const struct http_response *res, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Report a job-stopping failure once, with the server's message scrubbed,
 * hand call 'c' back as failed, and return the stop code for core/http.
 */
static int fatal(struct llm_call *c, const struct http_response *res, const char *fmt, ...)
{
	struct llm *l = c->l;
	struct strbuf msg = STRBUF_INIT, server = STRBUF_INIT;
	struct llm_result r;
	va_list ap;

	memset(&r, 0, sizeof(r));
	r.status = LLM_FAILED;
	r.why = "the job stopped";
	finish(l, c, &r);
	if (l->fatal)
		return ERR_REMOTE;
	l->fatal = true;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (res && res->status) {
		llm_error_message(res->body, res->body_len, &server, NULL);
		llm_scrub(&server, l->api_key);
		strbuf_addf(&msg, " (server said: %s)", server.buf);
	}
	error("%s", msg.buf);
	strbuf_release(&msg);
	strbuf_release(&server);
	return ERR_REMOTE;
}

static int on_http_done(const struct http_response *res, void *data)
{
	struct llm_call *c = data;
	struct llm *l = c->l;
	struct llm_result r;
	const char *key_var = l->api_key_env ? l->api_key_env
					     : l->o.provider == LLM_ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
	const char *api = l->o.provider == LLM_ANTHROPIC ? "messages" : "chat completions";
	char why[256];

	memset(&r, 0, sizeof(r));
	if (res->cancelled || l->fatal) {
		r.status = LLM_CANCELLED;
		finish(l, c, &r);
		return l->fatal ? ERR_REMOTE : 0;
	}
	if (res->status >= 200 && res->status < 300 && llm_not_a_completion(res, l->o.provider, NULL, NULL)) {
		struct strbuf m = STRBUF_INIT;
		int stop = 0;
		llm_not_a_completion(res, l->o.provider, l->api_key, &m);
		if (!l->any_ok)
			stop = fatal(c, NULL, "the endpoint '%s' answered HTTP %ld with a body that is not a %s "
				     "(%s) %d times; check --base-url and any proxy or gateway in between",
				     l->base_url, res->status,
				     l->o.provider == LLM_ANTHROPIC ? "message" : "chat completion", m.buf, res->attempts);
		else {
			snprintf(why, sizeof(why), "HTTP %ld but %.160s (after %d attempts%s)", res->status, m.buf,
				 res->attempts, res->past_deadline ? ", request deadline passed" : "");
			r.status = LLM_FAILED;
			r.why = why;
			finish(l, c, &r);
		}
		strbuf_release(&m);
		return stop;
	}
	if (res->status >= 200 && res->status < 300) {
		int rc = llm_accept(l, res->body, res->body_len, c->data, &r);
		if (rc == 0) {
			l->any_ok = true;
		} else if (rc == 1 && c->length_retries < 1) {
			c->length_retries++;
			c->max_tokens = (c->max_tokens > 0 ? c->max_tokens : l->o.max_tokens) * 2;
			l->usage.retries++;
			send_call(l, c);
			return 0;
		} else if (rc < 0 && c->invalid_retries < 1) {
			c->invalid_retries++;
			l->usage.retries++;
			send_call(l, c);
			return 0;
		}
		finish(l, c, &r);
		return 0;
	}
	if (res->status == 400 && !c->completion_tokens && llm_refuses_max_tokens(res)) {
		if (!l->completion_tokens) {
			l->completion_tokens = true;
			note("the server does not take max_tokens; asking with max_completion_tokens instead");
		}
		l->usage.retries++;
		send_call(l, c);
		return 0;
	}
	if (res->status == 400 && c->mode != LLM_PLAIN && llm_mentions_response_format(res)) {
		if (l->mode <= c->mode) {
			/* the Messages API has no json_object: from tools straight to plain */
			l->mode = l->o.provider == LLM_ANTHROPIC ? LLM_PLAIN : c->mode + 1;
			note("the server does not take response_format %s; asking with %s instead",
			     llm_mode_name(c->mode), llm_mode_name(l->mode));
		}
		c->mode = l->mode;
		l->usage.retries++;
		send_call(l, c);
		return 0;
	}
	if (res->status == 401)
		return fatal(c, res, "the endpoint '%s' refused the API key (HTTP 401): set %s to a valid key",
			     l->base_url, key_var);
	if (res->status == 403)
		return fatal(c, res, "the endpoint '%s' refused access (HTTP 403): check that the key in %s "
			     "may use model '%s' (project, organisation, region)", l->base_url, key_var, l->model);
	if (res->status == 404)
		return fatal(c, res, "the endpoint '%s' has no %s for model '%s' (HTTP 404): "
			     "check --base-url (most servers want it to end in /v1) and --model",
			     l->url.buf, api, l->model);
	if (llm_is_quota_error(res))
		return fatal(c, res, "the account behind %s has no quota or credit left (HTTP %ld): "
			     "check its plan and billing, or use another key", key_var, res->status);
	if (res->status == 0 && l->unreachable)
		return fatal(c, NULL, "cannot reach the endpoint '%s': %s (the first %d attempts failed to "
			     "connect); check --base-url (or OPENAI_BASE_URL), that the server is running and "
			     "listening there, and any proxy settings", l->base_url, res->error,
			     l->connect_failures);
	if (res->status == 0 && !l->any_ok)
		return fatal(c, NULL, "cannot reach '%s': %s (after %d attempts)", l->url.buf,
			     res->error, res->attempts);
	r.status = LLM_FAILED;
	r.answered = false;
	if (res->status == 0) {
		snprintf(why, sizeof(why), "%s (after %d attempts%s)", res->error, res->attempts,
			 res->past_deadline ? ", request deadline passed" : "");
	} else {
		struct strbuf m = STRBUF_INIT;
		llm_error_message(res->body, res->body_len, &m, NULL);
		llm_scrub(&m, l->api_key);
		snprintf(why, sizeof(why), "HTTP %ld%s: %.180s", res->status,
			 res->gave_up ? " after retries" : "", m.buf);
		strbuf_release(&m);
		if (res->status == 400 && !l->warned_400) {
			l->warned_400 = true;
			warning("the server refused a request: %s", why);
		}
	}
	r.why = why;
	finish(l, c, &r);
	return 0;
}

struct llm *llm_new(const struct llm_options *o)
{
	struct llm *l;
	struct http_options ho;

	if (!o->base_url || !*o->base_url || !o->model || !*o->model) {
		error("no %s for the LLM endpoint", !o->model || !*o->model ? "model" : "base URL");
		return NULL;
	}
	l = xcalloc(1, sizeof(*l));
	strbuf_init(&l->url, 0);
	strbuf_init(&l->content, 0);
	strbuf_init(&l->why, 0);
	l->o = *o;
	l->base_url = xstrdup(o->base_url);
	l->api_key = o->api_key && *o->api_key ? xstrdup(o->api_key) : NULL;
	redact_add_secret(l->api_key);
	l->api_key_env = xstrdup(o->api_key_env);
	l->model = xstrdup(o->model);
	l->schema_name = xstrdup(o->schema_name);
	l->schema = xstrdup(o->schema);
	l->shape_hint = xstrdup(o->shape_hint);
	if (l->o.max_tokens <= 0)
		l->o.max_tokens = 1024;
	l->schema_json = o->schema ? cJSON_Parse(o->schema) : NULL;
	if (!l->schema_json) {
		error("the reply schema is not valid JSON");
		llm_free(l);
		return NULL;
	}
	l->headers[0] = xstrdup("Content-Type: application/json");
	if (o->provider == LLM_ANTHROPIC) {
		llm_url(l->base_url, "/messages", &l->url);
		l->headers[1] = xstrdup("anthropic-version: " LLM_ANTHROPIC_VERSION);
		if (l->api_key)
			l->headers[2] = xstrfmt("x-api-key: %s", l->api_key);
	} else {
		llm_endpoint_url(l->base_url, &l->url);
		if (l->api_key)
			l->headers[1] = llm_auth_header(l->base_url, l->api_key);
	}
	l->mode = o->start_mode;
	ho = o->http;
	ho.classify = classify;
	ho.done = on_http_done;
	l->http = http_client_new(&ho);
	return l;
}

void llm_free(struct llm *l)
{
	if (!l)
		return;
	if (l->http)
		http_client_free(l->http);
	free(l->base_url);
	if (l->api_key) {
		memset(l->api_key, 0, strlen(l->api_key));
		free(l->api_key);
	}
	free(l->api_key_env);
	free(l->model);
	free(l->schema_name);
	free(l->schema);
	free(l->shape_hint);
	cJSON_Delete(l->schema_json);
	cJSON_Delete(l->last_json);
	strbuf_release(&l->url);
	strbuf_release(&l->content);
	strbuf_release(&l->why);
	for (size_t i = 0; i < ARRAY_SIZE(l->headers); i++) {
		if (l->headers[i])
			memset(l->headers[i], 0, strlen(l->headers[i]));
		free(l->headers[i]);
	}
	free(l);
}

void llm_submit(struct llm *l, const char *system, const char *user, void *data)
{
	struct llm_call *c = xcalloc(1, sizeof(*c));

	c->l = l;
	c->system = xstrdup(system);
	c->user = xstrdup(user);
	c->data = data;
	c->mode = l->mode;
	l->usage.calls++;
	send_call(l, c);
}

int llm_run(struct llm *l)
{
	int rc = http_run(l->http);

	if (l->fatal)
		return ERR_REMOTE;
	return rc;
}

void llm_get_usage(const struct llm *l, struct llm_usage *out)
{
	struct http_stats st;

	*out = l->usage;
	http_get_stats(l->http, &st);
	out->requests = st.attempts;
	out->retries = l->usage.retries + st.retries;
	out->timed_out = st.timed_out;
	out->past_deadline = st.past_deadline;
}

enum llm_mode llm_current_mode(const struct llm *l)
{
	return l->mode;
}

enum llm_provider llm_get_provider(const struct llm *l)
{
	return l->o.provider;
}

const char *llm_get_base_url(const struct llm *l)
{
	return l->base_url;
}

long llm_get_max_tokens(const struct llm *l)
{
	return l->o.max_tokens;
}

const char *const *llm_get_headers(const struct llm *l)
{
	return (const char *const *)l->headers;
}

void llm_scrub_job(const struct llm *l, struct strbuf *sb)
{
	llm_scrub(sb, l->api_key);
}
