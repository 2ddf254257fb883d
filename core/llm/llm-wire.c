/*
 * llm-wire: the two protocols an llm job speaks, OpenAI's Chat Completions
 * and Anthropic's Messages API: names and URLs, the request body of each
 * structured-output mode, reading a reply (content, tool input, usage,
 * truncation, refusal) and validating it, and reading error bodies (see
 * llm.h for the contract, llm-internal.h for the split).
 *
 * Invariants: nothing here sends, retries or reports; a reply's JSON and
 * text live in the job's buffers until the next llm_accept; messages built
 * from server text are scrubbed of the key by the caller's llm_scrub.
 */
#include "llm/llm-internal.h"
#include "base/redact.h"
#include "base/url.h"
#include "base/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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
	url_join(base, path, out);
}

char *llm_auth_header(const char *base_url, const char *key)
{
	if (url_host_in(base_url, "azure.com"))
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

bool llm_not_a_completion(const struct http_response *res, enum llm_provider provider, const char *key,
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

bool llm_is_quota_error(const struct http_response *res)
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

/* Append the system prompt, with the reply's shape described when 'mode' is not json_schema. */
static void system_text(const struct llm *l, const char *system, enum llm_mode mode, struct strbuf *sys)
{
	strbuf_addstr(sys, system ? system : "");
	if (mode != LLM_JSON_SCHEMA && l->shape_hint) {
		strbuf_addstr(sys, "\n\nReply with only a JSON object, no other text, of this shape:\n");
		strbuf_addstr(sys, l->shape_hint);
	}
}

/* Append the message {"role", "content"} to the array 'msgs'. */
static void add_message(cJSON *msgs, const char *role, const char *content)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddStringToObject(m, "content", content);
	cJSON_AddItemToArray(msgs, m);
}

/* Append the request body 'b' to 'out' on one line, and free it. */
static void add_body(struct strbuf *out, cJSON *b)
{
	char *text = cJSON_PrintUnformatted(b);

	strbuf_addstr(out, text);
	free(text);
	cJSON_Delete(b);
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
	struct strbuf sys = STRBUF_INIT;
	const char *tool = l->schema_name ? l->schema_name : "reply";

	system_text(l, system, mode, &sys);
	cJSON_AddStringToObject(b, "model", l->model);
	cJSON_AddNumberToObject(b, "max_tokens", (double)(max_tokens > 0 ? max_tokens : l->o.max_tokens));
	if (sys.len)
		cJSON_AddStringToObject(b, "system", sys.buf);
	add_message(cJSON_AddArrayToObject(b, "messages"), "user", user);
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
	add_body(out, b);
	strbuf_release(&sys);
}

void llm_request_body(const struct llm *l, const char *system, const char *user,
		      enum llm_mode mode, long max_tokens, struct strbuf *out)
{
	cJSON *b, *msgs;
	struct strbuf sys = STRBUF_INIT;

	if (l->o.provider == LLM_ANTHROPIC) {
		anthropic_body(l, system, user, mode, max_tokens, out);
		return;
	}
	b = cJSON_CreateObject();
	system_text(l, system, mode, &sys);
	cJSON_AddStringToObject(b, "model", l->model);
	msgs = cJSON_AddArrayToObject(b, "messages");
	if (sys.len)
		add_message(msgs, "system", sys.buf);
	add_message(msgs, "user", user);
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
	add_body(out, b);
	strbuf_release(&sys);
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

bool llm_mentions_response_format(const struct http_response *res)
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

bool llm_refuses_max_tokens(const struct http_response *res)
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
