/*
 * llm: Chat Completions calls with a structured-output fallback ladder,
 * reply validation, usage accounting and error-body parsing (see llm.h).
 *
 * Invariants: every llm_submit() ends in exactly one 'done' callback; the
 * job's mode only moves down the ladder (json_schema -> json_object ->
 * plain), and its completion budget parameter only from max_tokens to
 * max_completion_tokens; a job-stopping failure is reported once; the API key lives only in
 * the header list handed to core/http and is scrubbed from every message.
 */
#include "llm/llm.h"
#include "base/error.h"
#include "base/redact.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct llm {
	struct llm_options o;         /* strings below are our copies */
	char *base_url, *api_key, *api_key_env, *model, *schema_name, *schema, *shape_hint;
	cJSON *schema_json;
	struct strbuf url;
	char *headers[4];
	struct http_client *http;
	enum llm_mode mode;
	bool any_ok;
	bool fatal;
	bool warned_400;
	bool completion_tokens;       /* send max_completion_tokens, not max_tokens */
	int connect_failures;         /* attempts that never reached a server, before any did */
	bool reached;                 /* some attempt got an answer or failed otherwise */
	bool unreachable;             /* the first attempts all failed to connect: stop */
	struct llm_usage usage;
	cJSON *last_json;
	struct strbuf content, why;   /* of the last llm_accept */
};

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

const char *llm_mode_name(enum llm_mode m)
{
	switch (m) {
	case LLM_JSON_SCHEMA: return "json_schema";
	case LLM_JSON_OBJECT: return "json_object";
	default: return "plain";
	}
}

const char *llm_provider_name(enum llm_provider p)
{
	return p == LLM_ANTHROPIC ? "anthropic" : "openai";
}

int llm_provider_parse(const char *s, enum llm_provider *out)
{
	if (!strcmp(s, "openai"))
		*out = LLM_OPENAI;
	else if (!strcmp(s, "anthropic"))
		*out = LLM_ANTHROPIC;
	else
		return -1;
	return 0;
}

void llm_url(const char *base, const char *path, struct strbuf *out)
{
	const char *q = strchr(base, '?');
	size_t len = q ? (size_t)(q - base) : strlen(base);

	while (len && base[len - 1] == '/')
		len--;
	strbuf_add(out, base, len);
	strbuf_addstr(out, path);
	if (q)
		strbuf_addstr(out, q);
}

char *llm_auth_header(const char *base_url, const char *key)
{
	if (strstr(base_url, ".azure.com"))
		return xstrfmt("api-key: %s", key);
	return xstrfmt("Authorization: Bearer %s", key);
}

void llm_endpoint_url(const char *base, struct strbuf *out)
{
	llm_url(base, "/chat/completions", out);
}

void llm_scrub(struct strbuf *sb, const char *key)
{
	redact_value(sb, key);
	redact_text(sb);
}

void llm_error_message(const char *body, size_t len, struct strbuf *out, char **code)
{
	cJSON *j = cJSON_ParseWithLength(body, len);
	cJSON *e, *v;
	size_t start = out->len;

	if (code)
		*code = NULL;
	e = cJSON_GetObjectItemCaseSensitive(j, "error");
	if (cJSON_IsString(e)) {
		strbuf_addstr(out, e->valuestring);
	} else if (cJSON_IsObject(e)) {
		v = cJSON_GetObjectItemCaseSensitive(e, "message");
		if (cJSON_IsString(v))
			strbuf_addstr(out, v->valuestring);
		if (code) {
			cJSON *c = cJSON_GetObjectItemCaseSensitive(e, "code");
			cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "type");
			if (cJSON_IsString(c))
				*code = xstrdup(c->valuestring);
			else if (cJSON_IsString(t))
				*code = xstrdup(t->valuestring);
		}
	} else if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(j, "message")) ||
		   cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(j, "detail"))) {
		strbuf_addstr(out, v->valuestring);
	}
	if (out->len == start) {
		size_t n = len < 200 ? len : 200;
		for (size_t i = 0; i < n; i++)
			strbuf_addch(out, isprint((unsigned char)body[i]) ? body[i] : ' ');
		strbuf_trim(out);
		if (out->len == start)
			strbuf_addstr(out, "no message");
	}
	cJSON_Delete(j);
}

cJSON *llm_extract_json(const char *text)
{
	const char *open = strchr(text, '{');
	const char *close = strrchr(text, '}');
	cJSON *j;

	if (!open || !close || close < open)
		return NULL;
	j = cJSON_ParseWithLength(open, (size_t)(close - open + 1));
	if (j && !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		j = NULL;
	}
	return j;
}

/*
 * Return true when the body of a 2xx reply is not a chat completion (for
 * Anthropic: not a message): not a JSON object, an object with an "error",
 * or one without choices (content blocks). Append what it is to 'why' when
 * given (the server's text scrubbed of 'key').
 */
static bool not_a_completion(const struct http_response *res, enum llm_provider provider, const char *key,
			     struct strbuf *why)
{
	cJSON *j = cJSON_ParseWithLength(res->body, res->body_len);
	cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
	cJSON *ch = cJSON_GetObjectItemCaseSensitive(j, provider == LLM_ANTHROPIC ? "content" : "choices");
	bool bad = true;

	if (!cJSON_IsObject(j)) {
		if (why)
			strbuf_addstr(why, res->body_len ? "not a JSON object" : "empty");
	} else if (e && !cJSON_IsNull(e)) {
		if (why) {
			struct strbuf m = STRBUF_INIT;
			llm_error_message(res->body, res->body_len, &m, NULL);
			llm_scrub(&m, key);
			strbuf_addf(why, "an error object: %.160s", m.buf);
			strbuf_release(&m);
		}
	} else if (!cJSON_IsArray(ch) || (provider != LLM_ANTHROPIC && !cJSON_GetArraySize(ch))) {
		if (why)
			strbuf_addstr(why, provider == LLM_ANTHROPIC ? "a JSON object without content blocks"
								    : "a JSON object without choices");
	} else {
		bad = false;
	}
	cJSON_Delete(j);
	return bad;
}

/*
 * True for an error that waiting does not cure: the account has no quota or
 * credit left (OpenAI's 429 insufficient_quota; Anthropic's 429 with
 * enforced_spend_limit_reached, 402 billing_error, or the 400 about a credit
 * balance too low).
 */
static bool is_quota_error(const struct http_response *res)
{
	if (!res->body_len)
		return false;
	if (res->status == 429)
		return strstr(res->body, "insufficient_quota") || strstr(res->body, "exceeded your current quota") ||
		       strstr(res->body, "enforced_spend_limit_reached");
	if (res->status == 402)
		return true;
	return res->status == 400 && strstr(res->body, "credit balance is too low");
}

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
	if (is_quota_error(res))
		return HTTP_DELIVER;
	if (res->status >= 200 && res->status < 300)
		return not_a_completion(res, l->o.provider, NULL, NULL) ? HTTP_RETRY : HTTP_DELIVER;
	return http_classify_default(res, data);
}

/* Append the system prompt, with the reply's shape described when 'mode' is not json_schema. */
static void system_text(const struct llm *l, const char *system, enum llm_mode mode, struct strbuf *sys)
{
	strbuf_addstr(sys, system ? system : "");
	if (mode != LLM_JSON_SCHEMA && l->shape_hint) {
		strbuf_addstr(sys, "\n\nReply with only a JSON object, no other text, of this shape:\n");
		strbuf_addstr(sys, l->shape_hint);
	}
}

/*
 * The Messages API body: the system prompt as "system", structured output as
 * one tool named after the schema whose input_schema is the reply's schema,
 * forced with tool_choice (the tool's input is the reply); no seed (the API
 * has none). Plain mode describes the shape in the system prompt instead.
 */
static void anthropic_body(const struct llm *l, const char *system, const char *user,
			   enum llm_mode mode, long max_tokens, struct strbuf *out)
{
	cJSON *b = cJSON_CreateObject();
	cJSON *msgs, *m;
	struct strbuf sys = STRBUF_INIT;
	const char *tool = l->schema_name ? l->schema_name : "reply";
	char *text;

	system_text(l, system, mode, &sys);
	cJSON_AddStringToObject(b, "model", l->model);
	cJSON_AddNumberToObject(b, "max_tokens", (double)(max_tokens > 0 ? max_tokens : l->o.max_tokens));
	if (sys.len)
		cJSON_AddStringToObject(b, "system", sys.buf);
	msgs = cJSON_AddArrayToObject(b, "messages");
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "user");
	cJSON_AddStringToObject(m, "content", user);
	cJSON_AddItemToArray(msgs, m);
	if (l->o.temperature >= 0)
		cJSON_AddNumberToObject(b, "temperature", l->o.temperature);
	if (mode == LLM_JSON_SCHEMA) {
		cJSON *tools = cJSON_AddArrayToObject(b, "tools");
		cJSON *t = cJSON_CreateObject();
		cJSON *choice = cJSON_AddObjectToObject(b, "tool_choice");
		cJSON_AddStringToObject(t, "name", tool);
		cJSON_AddStringToObject(t, "description", "Record the reply. Its input is the whole answer.");
		cJSON_AddItemToObject(t, "input_schema", cJSON_Duplicate(l->schema_json, 1));
		cJSON_AddItemToArray(tools, t);
		cJSON_AddStringToObject(choice, "type", "tool");
		cJSON_AddStringToObject(choice, "name", tool);
	}
	text = cJSON_PrintUnformatted(b);
	strbuf_addstr(out, text);
	free(text);
	cJSON_Delete(b);
	strbuf_release(&sys);
}

void llm_request_body(const struct llm *l, const char *system, const char *user,
		      enum llm_mode mode, long max_tokens, struct strbuf *out)
{
	cJSON *b, *msgs, *m;
	struct strbuf sys = STRBUF_INIT;
	char *text;

	if (l->o.provider == LLM_ANTHROPIC) {
		anthropic_body(l, system, user, mode, max_tokens, out);
		return;
	}
	b = cJSON_CreateObject();
	system_text(l, system, mode, &sys);
	cJSON_AddStringToObject(b, "model", l->model);
	msgs = cJSON_AddArrayToObject(b, "messages");
	if (sys.len) {
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role", "system");
		cJSON_AddStringToObject(m, "content", sys.buf);
		cJSON_AddItemToArray(msgs, m);
	}
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "user");
	cJSON_AddStringToObject(m, "content", user);
	cJSON_AddItemToArray(msgs, m);
	if (l->o.temperature >= 0)
		cJSON_AddNumberToObject(b, "temperature", l->o.temperature);
	cJSON_AddNumberToObject(b, l->completion_tokens ? "max_completion_tokens" : "max_tokens",
				(double)(max_tokens > 0 ? max_tokens : l->o.max_tokens));
	if (l->o.seed >= 0)
		cJSON_AddNumberToObject(b, "seed", (double)l->o.seed);
	if (mode == LLM_JSON_SCHEMA) {
		cJSON *rf = cJSON_AddObjectToObject(b, "response_format");
		cJSON *js;
		cJSON_AddStringToObject(rf, "type", "json_schema");
		js = cJSON_AddObjectToObject(rf, "json_schema");
		cJSON_AddStringToObject(js, "name", l->schema_name ? l->schema_name : "reply");
		cJSON_AddBoolToObject(js, "strict", 1);
		cJSON_AddItemToObject(js, "schema", cJSON_Duplicate(l->schema_json, 1));
	} else if (mode == LLM_JSON_OBJECT) {
		cJSON *rf = cJSON_AddObjectToObject(b, "response_format");
		cJSON_AddStringToObject(rf, "type", "json_object");
	}
	text = cJSON_PrintUnformatted(b);
	strbuf_addstr(out, text);
	free(text);
	cJSON_Delete(b);
	strbuf_release(&sys);
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

/* Return the token count 'v' of a reply's usage: 0 unless a number in [0, 1e15]. */
static long token_count(const cJSON *v)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1e15))
		return 0;
	return (long)v->valuedouble;
}

/*
 * Read the reply of an Anthropic message 'j' into the llm's content and,
 * when it called the tool, its input into 'l->last_json'. Return 1 when it
 * was cut short (stop_reason max_tokens), 0 otherwise; set '*why' when
 * there is nothing to read.
 */
static int anthropic_reply(struct llm *l, const cJSON *j, struct llm_result *res, const char **why)
{
	const cJSON *blocks = cJSON_GetObjectItemCaseSensitive(j, "content"), *b;
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(j, "usage");
	const char *stop = NULL;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "stop_reason");
	bool any = false;

	/* cache writes and reads are input tokens too */
	res->prompt_tokens = token_count(cJSON_GetObjectItemCaseSensitive(usage, "input_tokens")) +
			     token_count(cJSON_GetObjectItemCaseSensitive(usage, "cache_creation_input_tokens")) +
			     token_count(cJSON_GetObjectItemCaseSensitive(usage, "cache_read_input_tokens"));
	res->completion_tokens = token_count(cJSON_GetObjectItemCaseSensitive(usage, "output_tokens"));
	if (cJSON_IsString(v))
		stop = v->valuestring;
	cJSON_ArrayForEach(b, blocks) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(b, "input");
		const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "text"));
		if (type && !strcmp(type, "tool_use") && cJSON_IsObject(in) && !l->last_json) {
			char *t = cJSON_PrintUnformatted(in);
			strbuf_reset(&l->content);
			strbuf_addstr(&l->content, t);
			free(t);
			l->last_json = cJSON_Duplicate(in, 1);
			any = true;
		} else if (type && !strcmp(type, "text") && text && !l->last_json) {
			strbuf_addstr(&l->content, text);
			any = true;
		}
	}
	if (any)
		res->content = l->content.buf;
	if (stop && !strcmp(stop, "max_tokens")) {
		*why = "truncated reply (stop_reason max_tokens)";
		return 1;
	}
	if (!any)
		*why = stop && !strcmp(stop, "refusal") ? "the model refused" : "reply has no message content";
	return 0;
}

int llm_accept(struct llm *l, const char *body, size_t len, void *data, struct llm_result *res)
{
	cJSON *j = cJSON_ParseWithLength(body, len);
	cJSON *choice, *msg, *content, *fin, *usage, *v;
	const char *why = NULL;
	int rc = -1;

	memset(res, 0, sizeof(res[0]));
	res->status = LLM_FAILED;
	res->answered = true;
	cJSON_Delete(l->last_json);
	l->last_json = NULL;
	strbuf_reset(&l->why);
	strbuf_reset(&l->content);
	if (!j) {
		res->why = "reply is not JSON";
		return -1;
	}
	if (l->o.provider == LLM_ANTHROPIC) {
		rc = anthropic_reply(l, j, res, &why);
		l->usage.prompt_tokens += (unsigned long)res->prompt_tokens;
		l->usage.completion_tokens += (unsigned long)res->completion_tokens;
		if (rc == 1 || why) {
			res->why = why;
			goto out;
		}
		rc = -1;
	} else {
		usage = cJSON_GetObjectItemCaseSensitive(j, "usage");
		if ((v = cJSON_GetObjectItemCaseSensitive(usage, "prompt_tokens")))
			res->prompt_tokens = token_count(v);
		if ((v = cJSON_GetObjectItemCaseSensitive(usage, "completion_tokens")))
			res->completion_tokens = token_count(v);
		l->usage.prompt_tokens += (unsigned long)res->prompt_tokens;
		l->usage.completion_tokens += (unsigned long)res->completion_tokens;
		choice = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "choices"), 0);
		msg = cJSON_GetObjectItemCaseSensitive(choice, "message");
		content = cJSON_GetObjectItemCaseSensitive(msg, "content");
		fin = cJSON_GetObjectItemCaseSensitive(choice, "finish_reason");
		if (cJSON_IsString(content)) {
			strbuf_addstr(&l->content, content->valuestring);
			res->content = l->content.buf;
		}
		if (cJSON_IsString(fin) && !strcmp(fin->valuestring, "length")) {
			res->why = "truncated reply (finish_reason length)";
			rc = 1;
			goto out;
		}
		if (!cJSON_IsString(content)) {
			cJSON *refusal = cJSON_GetObjectItemCaseSensitive(msg, "refusal");
			res->why = cJSON_IsString(refusal) ? "the model refused" : "reply has no message content";
			goto out;
		}
	}
	if (!l->last_json)
		l->last_json = llm_extract_json(l->content.buf);
	if (!l->last_json) {
		res->why = "reply holds no JSON object";
		goto out;
	}
	if (l->o.validate(l->last_json, data, &l->why)) {
		res->why = l->why.len ? l->why.buf : "reply has the wrong shape";
		goto out;
	}
	res->json = l->last_json;
	res->status = LLM_OK;
	rc = 0;
out:
	cJSON_Delete(j);
	return rc;
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

static bool mentions_response_format(const struct http_response *res)
{
	struct strbuf m = STRBUF_INIT;
	bool yes;

	llm_error_message(res->body, res->body_len, &m, NULL);
	for (size_t i = 0; i < m.len; i++)
		m.buf[i] = (char)tolower((unsigned char)m.buf[i]);
	yes = strstr(m.buf, "response_format") || strstr(m.buf, "json_schema") ||
	      strstr(m.buf, "json_object") || strstr(m.buf, "response format") ||
	      strstr(m.buf, "structured output") || strstr(m.buf, "tool_choice") || strstr(m.buf, "tools");
	strbuf_release(&m);
	return yes;
}

/* Return true when a 400 says max_tokens is unsupported and
 * max_completion_tokens is wanted (newer OpenAI models). */
static bool refuses_max_tokens(const struct http_response *res)
{
	struct strbuf m = STRBUF_INIT;
	bool yes;

	llm_error_message(res->body, res->body_len, &m, NULL);
	yes = strstr(m.buf, "max_completion_tokens") &&
	      (strstr(m.buf, "'max_tokens'") || strstr(m.buf, "\"max_tokens\"") ||
	       strstr(m.buf, " max_tokens"));
	strbuf_release(&m);
	return yes;
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
	if (res->status >= 200 && res->status < 300 && not_a_completion(res, l->o.provider, NULL, NULL)) {
		struct strbuf m = STRBUF_INIT;
		int stop = 0;
		not_a_completion(res, l->o.provider, l->api_key, &m);
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
	if (res->status == 400 && !c->completion_tokens && refuses_max_tokens(res)) {
		if (!l->completion_tokens) {
			l->completion_tokens = true;
			note("the server does not take max_tokens; asking with max_completion_tokens instead");
		}
		l->usage.retries++;
		send_call(l, c);
		return 0;
	}
	if (res->status == 400 && c->mode != LLM_PLAIN && mentions_response_format(res)) {
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
	if (is_quota_error(res))
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
