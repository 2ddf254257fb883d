/*
 * t-llm: Chat Completions calls against the fake server: the response_format
 * ladder, truncated and invalid replies, job-stopping errors with messages
 * that say what to fix and never show the key, error-body parsing.
 */
#include "test-lib.h"
#include "fake-llm.h"
#include "llm/llm.h"
#include "base/error.h"
#include "base/util.h"

#include <cjson/cJSON.h>

#define SCHEMA "{\"type\":\"object\",\"properties\":{\"questions\":{\"type\":\"array\"," \
	"\"items\":{\"type\":\"object\",\"properties\":{\"question\":{\"type\":\"string\"}," \
	"\"answer\":{\"type\":\"string\"}},\"required\":[\"question\",\"answer\"]," \
	"\"additionalProperties\":false}}},\"required\":[\"questions\"],\"additionalProperties\":false}"

struct tally {
	int ok, failed, cancelled;
	int questions;
	char why[256];
};

static int validate(const cJSON *json, void *data, struct strbuf *why)
{
	const cJSON *qs = cJSON_GetObjectItemCaseSensitive(json, "questions"), *q;

	(void)data;
	if (!cJSON_IsArray(qs)) {
		strbuf_addstr(why, "no 'questions' array");
		return -1;
	}
	cJSON_ArrayForEach(q, qs)
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(q, "question"))) {
			strbuf_addstr(why, "a question without text");
			return -1;
		}
	return 0;
}

static void on_done(const struct llm_result *res, void *data)
{
	struct tally *t = data;

	if (res->status == LLM_OK) {
		t->ok++;
		t->questions += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(res->json, "questions"));
	} else if (res->status == LLM_FAILED) {
		t->failed++;
		snprintf(t->why, sizeof(t->why), "%s", res->why);
	} else {
		t->cancelled++;
	}
}

static enum llm_provider run_provider;  /* the protocol of run() */

static int run(const char *const *fake_args, const char *key, int n, struct tally *t,
	       struct llm_usage *u, enum llm_mode *mode)
{
	struct fake f;
	struct llm_options o = { 0 };
	struct llm *l;
	int rc;

	memset(t, 0, sizeof(*t));
	if (fake_start(&f, fake_args))
		return -99;
	o.provider = run_provider;
	o.base_url = f.base;
	o.api_key = key;
	o.api_key_env = "OPENAI_API_KEY";
	o.model = "fake-model";
	o.temperature = 0.7;
	o.seed = 7;
	o.schema_name = "questions";
	o.schema = SCHEMA;
	o.shape_hint = "{\"questions\": [{\"question\": \"...\", \"answer\": \"...\"}]}";
	o.validate = validate;
	o.done = on_done;
	o.http = (struct http_options)HTTP_OPTIONS_INIT;
	o.http.backoff_base_ms = 10;
	o.http.max_attempts = 3;
	l = llm_new(&o);
	for (int i = 0; i < n; i++) {
		char *user = xstrfmt("kind: factoid\nWrite 2 questions.\n<chunk>Rotating keys number %d "
				     "requires the admin console and a fresh token</chunk>", i);
		llm_submit(l, "You write questions.", user, t);
		free(user);
	}
	rc = llm_run(l);
	llm_get_usage(l, u);
	*mode = llm_current_mode(l);
	llm_free(l);
	fake_stop(&f);
	return rc;
}

int main(void)
{
	struct tally t;
	struct llm_usage u;
	enum llm_mode mode;
	int rc;

	test_capture_errors();
	{
		const char *args[] = { "--expect-key", "k-good-key-123", NULL };
		rc = run(args, "k-good-key-123", 6, &t, &u, &mode);
		is_int(rc, 0, "plain run succeeds");
		is_int(t.ok, 6, "every call answered");
		is_int(t.questions, 12, "two questions per reply, as asked");
		is_int(mode, LLM_JSON_SCHEMA, "json_schema kept");
		ok(u.prompt_tokens > 0 && u.completion_tokens > 0, "usage summed");
		is_int(u.requests, 6, "one request per call");
	}
	{
		const char *args[] = { "--reject-schema", NULL };
		rc = run(args, NULL, 5, &t, &u, &mode);
		is_int(t.ok, 5, "json_schema refused: every call still answered");
		is_int(mode, LLM_JSON_OBJECT, "fell back to json_object");
	}
	{
		const char *args[] = { "--reject-schema", "--reject-json-object", NULL };
		rc = run(args, NULL, 5, &t, &u, &mode);
		is_int(t.ok, 5, "json refused: answered from plain text");
		is_int(mode, LLM_PLAIN, "fell back to plain instructions");
	}
	{
		const char *args[] = { "--fault", "length", "--first-only", NULL };
		rc = run(args, NULL, 4, &t, &u, &mode);
		is_int(t.ok, 4, "truncated once: answered with a larger budget");
		ok(u.retries >= 4, "re-asks counted as retries (%lu)", u.retries);
	}
	{
		const char *args[] = { "--fault", "length", NULL };
		rc = run(args, NULL, 3, &t, &u, &mode);
		is_int(t.failed, 3, "always truncated: recorded as failures");
		is_int(u.requests, 6, "one retry each, no more");
		ok(strstr(t.why, "truncated") != NULL, "failure says truncated: %s", t.why);
	}
	{
		const char *args[] = { "--fault", "malformed", "--first-only", NULL };
		rc = run(args, NULL, 4, &t, &u, &mode);
		is_int(t.ok, 4, "malformed body once: answered on the re-ask");
	}
	{
		const char *args[] = { "--fault", "invalid", NULL };
		rc = run(args, NULL, 2, &t, &u, &mode);
		is_int(t.failed, 2, "wrong shape every time: failures");
		ok(strstr(t.why, "questions") != NULL, "failure names the shape problem: %s", t.why);
	}
	{
		const char *args[] = { "--fault", "503:0.5", "--fault", "429", "--first-only",
				       "--retry-after-ms", "20", NULL };
		rc = run(args, NULL, 10, &t, &u, &mode);
		is_int(t.ok, 10, "429 and 503 once: nothing lost");
	}
	{
		const char *args[] = { "--expect-key", "right", NULL };
		const char *msg;
		test_captured();
		rc = run(args, "sk-SENTINEL-secret-42", 4, &t, &u, &mode);
		msg = test_captured();
		is_int(rc, ERR_REMOTE, "401 stops the job");
		is_int(t.ok, 0, "nothing answered");
		is_int(t.ok + t.failed + t.cancelled, 4, "every call handed back");
		if (!ok(strstr(msg, "OPENAI_API_KEY") != NULL, "message says which variable to fix"))
			test_diag("message: %.300s", msg ? msg : "");
		ok(!strstr(msg, "SENTINEL"), "message does not show the key");
	}
	{
		const char *args[] = { "--fault", "quota", "--error-style", "flat", NULL };
		const char *msg;
		test_captured();
		rc = run(args, NULL, 3, &t, &u, &mode);
		msg = test_captured();
		is_int(rc, ERR_REMOTE, "insufficient_quota stops the job");
		ok(u.requests <= 3, "quota errors are not retried (%lu requests)", u.requests);
		if (!ok(strstr(msg, "quota") != NULL, "message says quota"))
			test_diag("message: %.300s", msg ? msg : "");
	}
	{
		const char *args[] = { "--fault", "404", NULL };
		rc = run(args, NULL, 2, &t, &u, &mode);
		ok(rc == ERR_REMOTE && strstr(test_captured(), "--base-url"), "404 stops and points at --base-url");
	}
	{
		struct strbuf m = STRBUF_INIT;
		char *code = NULL;
		const char *nested = "{\"error\":{\"message\":\"Bad thing\",\"type\":\"invalid_request_error\",\"code\":\"bad_code\"}}";
		llm_error_message("{\"error\":\"flat message\"}", 24, &m, &code);
		is_str(m.buf, "flat message", "flat error body");
		ok(code == NULL, "flat body has no code");
		strbuf_reset(&m);
		llm_error_message(nested, strlen(nested), &m, &code);
		is_str(m.buf, "Bad thing", "nested error message");
		is_str(code, "bad_code", "nested error code");
		free(code);
		strbuf_reset(&m);
		llm_error_message("{\"detail\":\"Not Found\"}", 22, &m, NULL);
		is_str(m.buf, "Not Found", "FastAPI detail body");
		strbuf_reset(&m);
		llm_error_message("<html>bad gateway</html>", 24, &m, NULL);
		is_str(m.buf, "<html>bad gateway</html>", "non-JSON body shown raw");
		strbuf_reset(&m);
		strbuf_addstr(&m, "Incorrect API key provided: sk-proj-abc123XYZ. Key MYKEY99 too");
		llm_scrub(&m, "MYKEY99");
		is_str(m.buf, "Incorrect API key provided: sk-***. Key *** too", "keys scrubbed");
		strbuf_release(&m);
	}
	{
		/* the Messages API: the same calls, the same results */
		const char *args[] = { "--expect-key", "k-good-key-123", NULL };
		const char *args2[] = { "--fault", "529", "--first-only", "--retry-after", "0", NULL };
		struct llm_usage u0;
		run_provider = LLM_OPENAI;
		run(args, "k-good-key-123", 6, &t, &u0, &mode);
		run_provider = LLM_ANTHROPIC;
		rc = run(args, "k-good-key-123", 6, &t, &u, &mode);
		is_int(rc, 0, "anthropic: run succeeds with x-api-key");
		is_int(t.ok, 6, "anthropic: every call answered from the tool's input");
		is_int(t.questions, 12, "anthropic: two questions per reply");
		is_int(mode, LLM_JSON_SCHEMA, "anthropic: structured output through the tool kept");
		ok(u.prompt_tokens == u0.prompt_tokens && u.completion_tokens == u0.completion_tokens,
		   "anthropic: input + cache tokens count as prompt tokens, as the same reply over Chat Completions");
		rc = run(args2, NULL, 4, &t, &u, &mode);
		is_int(t.ok, 4, "anthropic: 529 overloaded is retried");
		is_int(u.requests, 8, "anthropic: once each");
		run_provider = LLM_OPENAI;
	}
	{
		struct llm_options o = { 0 };
		struct llm *l;
		struct strbuf b = STRBUF_INIT;
		struct llm_result r;
		cJSON *j, *tc;
		const char *tool_reply = "{\"type\":\"message\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\","
			"\"name\":\"questions\",\"input\":{\"questions\":[{\"question\":\"Why?\",\"answer\":\"So.\"}]}}],"
			"\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":10,\"cache_read_input_tokens\":5,"
			"\"cache_creation_input_tokens\":2,\"output_tokens\":7}}";
		const char *cut = "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"{\\\"quest\"}],"
			"\"stop_reason\":\"max_tokens\",\"usage\":{\"input_tokens\":3,\"output_tokens\":9}}";
		o.provider = LLM_ANTHROPIC;
		o.base_url = "http://127.0.0.1:9/v1";
		o.model = "claude-x";
		o.temperature = -1;
		o.seed = 7;
		o.schema_name = "questions";
		o.schema = SCHEMA;
		o.validate = validate;
		o.done = on_done;
		o.http = (struct http_options)HTTP_OPTIONS_INIT;
		l = llm_new(&o);
		llm_request_body(l, "Sys.", "User.", LLM_JSON_SCHEMA, 0, &b);
		j = cJSON_Parse(b.buf);
		tc = cJSON_GetObjectItemCaseSensitive(j, "tool_choice");
		is_str(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tc, "name")), "questions",
		       "anthropic body: tool_choice forces the reply tool");
		ok(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(
			   cJSON_GetObjectItemCaseSensitive(j, "tools"), 0), "input_schema")), "anthropic body: the schema as input_schema");
		is_str(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "system")), "Sys.", "anthropic body: system on top");
		ok(!cJSON_HasObjectItem(j, "seed") && !cJSON_HasObjectItem(j, "response_format"),
		   "anthropic body: no seed, no response_format");
		ok(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, "max_tokens")) == 1024, "anthropic body: max_tokens");
		cJSON_Delete(j);
		is_int(llm_accept(l, tool_reply, strlen(tool_reply), NULL, &r), 0, "anthropic reply: the tool's input accepted");
		ok(r.prompt_tokens == 17 && r.completion_tokens == 7, "anthropic reply: input+cache tokens, output tokens");
		is_int(llm_accept(l, cut, strlen(cut), NULL, &r), 1, "anthropic reply: stop_reason max_tokens is truncated");
		llm_free(l);
		strbuf_release(&b);
	}
	{
		cJSON *j = llm_extract_json("Sure!\n```json\n{\"a\": [1, 2]}\n```\nDone.");
		ok(j && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "a")) == 2, "JSON cut out of prose and fences");
		cJSON_Delete(j);
		ok(llm_extract_json("no json here") == NULL, "no object: NULL");
	}
	{
		struct strbuf u2 = STRBUF_INIT;
		llm_endpoint_url("https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21", &u2);
		is_str(u2.buf, "https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21",
		       "path inserted before the query");
		strbuf_reset(&u2);
		llm_endpoint_url("http://localhost:11434/v1/", &u2);
		is_str(u2.buf, "http://localhost:11434/v1/chat/completions", "trailing slash dropped");
		strbuf_reset(&u2);
		llm_endpoint_url("http://[::1]:8080/v1#docs", &u2);
		is_str(u2.buf, "http://[::1]:8080/v1/chat/completions", "a fragment of the base dropped, not swallowing the path");
		{
			char *h = llm_auth_header("http://localhost:8080/v1?deployment=x.azure.com", "k");
			is_str(h, "Authorization: Bearer k", "Azure's key header only for a host under azure.com");
			free(h);
			h = llm_auth_header("https://r.openai.azure.com/openai/deployments/d", "k");
			is_str(h, "api-key: k", "and for that host");
			free(h);
		}
		strbuf_release(&u2);
	}
	return test_done();
}
