/*
 * llm: OpenAI-compatible Chat Completions and Anthropic's Messages API on
 * top of core/base/http.h, for jobs that ask many questions of one reply
 * shape (the driver is llm.c, the wire formats llm-wire.c).
 *
 * One struct llm runs one job: every call shares the reply shape (a JSON
 * schema plus a validator), the model and the endpoint. Per call:
 *  - structured output is asked through response_format json_schema; when
 *    the server rejects that (HTTP 400 naming response_format), the call and
 *    every later one fall back to json_object, then to plain instructions
 *    (the JSON is then cut out of the text). The reply is always validated.
 *  - the completion budget is sent as max_tokens (what OpenAI-compatible
 *    servers take); when the server refuses it with a 400 asking for
 *    max_completion_tokens (newer OpenAI models), the call and every later
 *    one are sent with max_completion_tokens instead.
 *  - finish_reason "length" is retried once with twice the token budget, an
 *    invalid reply once; then the call fails (LLM_FAILED, with the reason).
 *  - a 2xx reply whose body is not a chat completion (not JSON, an error
 *    object, no choices: what proxies and gateways send) is a failed attempt,
 *    retried like a 5xx; when the attempts run out the call fails as not
 *    answered ('answered' false: the caller does not record it as a reply,
 *    a rerun asks again), and the job stops with ERR_REMOTE when no call had
 *    succeeded yet.
 *  - 401, 403, 404 and 429 insufficient_quota stop the job: llm_run returns
 *    ERR_REMOTE after one message saying what to fix. So does a transport
 *    failure (after the HTTP retries) before any call has succeeded, and,
 *    without waiting for retries, an endpoint whose first 3 attempts all
 *    failed to connect (refused, host or proxy not resolved); after any
 *    attempt got further, connection failures are retried as transient.
 *  - messages never contain the API key: server text is scrubbed of it (in
 *    any case, and of any piece of it) and of anything that looks like a key
 *    (base/redact.h); the key is registered with redact_add_secret() so no
 *    message of any module can show it.
 *
 * Ownership: llm_new copies the options' strings. A result's strings and
 * 'json' belong to the llm and are valid only during the 'done' callback.
 */
#ifndef EVALSET_LLM_H
#define EVALSET_LLM_H

#include <stdbool.h>
#include <stddef.h>

#include "base/http.h"
#include "base/strbuf.h"

struct cJSON;

enum llm_mode { LLM_JSON_SCHEMA = 0, LLM_JSON_OBJECT, LLM_PLAIN };

/*
 * The protocol spoken: OpenAI's Chat Completions (OpenAI, Azure OpenAI and
 * every compatible server) or Anthropic's Messages API (POST {base}/messages,
 * x-api-key and anthropic-version headers, structured output as a forced
 * tool call whose input is the reply, usage input_tokens/output_tokens).
 */
enum llm_provider { LLM_OPENAI = 0, LLM_ANTHROPIC };
const char *llm_provider_name(enum llm_provider p);
/* Parse "openai" or "anthropic". Return 0 or -1 (nothing printed). */
int llm_provider_parse(const char *s, enum llm_provider *out);
#define LLM_ANTHROPIC_VERSION "2023-06-01"
const char *llm_mode_name(enum llm_mode m);

enum llm_status { LLM_OK = 0, LLM_FAILED, LLM_CANCELLED };

struct llm_result {
	enum llm_status status;
	const char *content;        /* the assistant's text (OK, or FAILED with a reply) */
	struct cJSON *json;         /* the validated JSON (OK only) */
	const char *why;            /* FAILED: the reason, e.g. "truncated reply" */
	bool answered;              /* the server did answer (FAILED on content, not transport) */
	long prompt_tokens, completion_tokens;
	enum llm_mode mode;
};

/*
 * Check the parsed reply 'json' has the expected shape. Return 0, or -1 with
 * the reason in 'why' (not printed).
 */
typedef int (*llm_validate_fn)(const struct cJSON *json, void *data, struct strbuf *why);
typedef void (*llm_done_fn)(const struct llm_result *res, void *data);

struct llm_options {
	enum llm_provider provider;
	const char *base_url;       /* e.g. https://api.openai.com/v1 (required) */
	const char *api_key;        /* NULL or "": no key sent (local servers) */
	const char *api_key_env;    /* name of the key's variable, for messages */
	const char *model;          /* required */
	double temperature;         /* < 0: not sent */
	long max_tokens;            /* first budget of completion tokens; 0: 1024 */
	long seed;                  /* < 0: not sent */
	const char *schema_name;    /* json_schema name */
	const char *schema;         /* JSON Schema text of the reply (required) */
	const char *shape_hint;     /* plain-mode instruction: an example reply */
	enum llm_mode start_mode;
	llm_validate_fn validate;   /* required */
	llm_done_fn done;           /* required */
	struct http_options http;   /* concurrency, timeouts, budget, stop, tick */
};

struct llm_usage {
	unsigned long calls;        /* llm_submit calls */
	unsigned long ok, failed, cancelled;
	unsigned long requests;     /* HTTP attempts */
	unsigned long retries;      /* HTTP retries plus fallback/length/invalid re-asks */
	unsigned long prompt_tokens, completion_tokens;
	unsigned long timed_out;    /* attempts that timed out or stalled */
	unsigned long past_deadline; /* calls given up at their request deadline */
};

struct llm;

/* Return a new job, or NULL after an error (bad schema, missing option). */
struct llm *llm_new(const struct llm_options *o);
void llm_free(struct llm *l);

/* Queue one call; 'data' comes back in the callbacks. */
void llm_submit(struct llm *l, const char *system, const char *user, void *data);

/*
 * Run every queued call. Return 0; ERR_REMOTE after a job-stopping failure
 * (reported); ERR_INTERRUPTED; or HTTP_BUDGET_SPENT when the request budget
 * ran out. Unfinished calls are delivered as LLM_CANCELLED.
 */
int llm_run(struct llm *l);

void llm_get_usage(const struct llm *l, struct llm_usage *out);

/* For the batch APIs (llm/llmbatch.h): the job's provider, base URL, first
 * completion budget, and its request headers (content type and key; a
 * NULL-terminated list owned by the llm, never to be printed). */
enum llm_provider llm_get_provider(const struct llm *l);
const char *llm_get_base_url(const struct llm *l);
long llm_get_max_tokens(const struct llm *l);
const char *const *llm_get_headers(const struct llm *l);
/* Scrub the job's key (and anything shaped like a key) from 'sb'. */
void llm_scrub_job(const struct llm *l, struct strbuf *sb);
/* Current structured-output mode (after any fallback). */
enum llm_mode llm_current_mode(const struct llm *l);

/* Append "{base}/chat/completions" (before any "?query") to 'out'. */
void llm_endpoint_url(const char *base, struct strbuf *out);
/*
 * Return the key header of an OpenAI-protocol endpoint: "api-key: KEY" for
 * Azure (a host ending in .azure.com), else "Authorization: Bearer KEY".
 * The caller wipes and frees it.
 */
char *llm_auth_header(const char *base_url, const char *key);
/* Append "{base}{path}" to 'out', 'path' going before any "?query" of 'base'. */
void llm_url(const char *base, const char *path, struct strbuf *out);
/* Append the request body for 'mode' and 'max_tokens' (0: the job's) to 'out'. */
void llm_request_body(const struct llm *l, const char *system, const char *user,
		      enum llm_mode mode, long max_tokens, struct strbuf *out);

/*
 * Interpret a response body of the job's provider (a Chat Completions
 * object, or an Anthropic message; as from a batch's results too): fill
 * 'res' (status LLM_OK or LLM_FAILED with 'why'), validating the reply.
 * Tokens are added to the job's usage. 'res->json' is owned by the llm until
 * the next call of llm_accept or llm_free. Return 0 on OK, 1 when truncated,
 * -1 otherwise.
 */
int llm_accept(struct llm *l, const char *body, size_t len, void *data, struct llm_result *res);

/*
 * Append the message of an error body to 'out': flat {"error": "msg"},
 * nested {"error": {"message", "type", "code"}}, {"message"} or {"detail"},
 * else the start of the raw text. Sets '*code' (caller frees, may be NULL)
 * to the error's code or type when there is one.
 */
void llm_error_message(const char *body, size_t len, struct strbuf *out, char **code);

/* Replace 'key' (any case, any piece of 8 or more characters), "sk-..." words
 * and every other secret base/redact.h knows of in 'sb' by "***". */
void llm_scrub(struct strbuf *sb, const char *key);

/* Return a copy of the first JSON object in 'text' (code fences and prose around it ignored), or NULL. */
struct cJSON *llm_extract_json(const char *text);

#endif
