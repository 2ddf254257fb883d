/*
 * llm-internal: what the two files of the llm module share. The driver,
 * core/llm/llm.c, runs a job: it sends each call through base/http,
 * classifies every attempt, walks the fallbacks (structured-output mode,
 * max_completion_tokens, a doubled budget, one re-ask of an invalid reply)
 * and stops the job on errors that waiting does not cure. The wire formats,
 * core/llm/llm-wire.c, know the two protocols: request bodies for Chat
 * Completions and the Messages API, reading their replies and error bodies.
 * Calls go one way, driver to wire; the public contract is llm.h.
 */
#ifndef EVALSET_LLM_INTERNAL_H
#define EVALSET_LLM_INTERNAL_H

#include <stdbool.h>

#include "llm/llm.h"
#include "base/http.h"
#include "base/strbuf.h"

#include <cjson/cJSON.h>

/* One job. The driver owns it; the wire functions read its options and
 * fill its reply buffers ('content', 'why', 'last_json') and usage. */
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

/*
 * Return true when the body of a 2xx reply is not a chat completion (for
 * Anthropic: not a message): not a JSON object, an object with an "error",
 * or one without choices (content blocks). Append what it is to 'why' when
 * given (the server's text scrubbed of 'key').
 */
bool llm_not_a_completion(const struct http_response *res, enum llm_provider provider, const char *key,
			  struct strbuf *why);
/*
 * True for an error that waiting does not cure: the account has no quota or
 * credit left (OpenAI's 429 insufficient_quota; Anthropic's 429 with
 * enforced_spend_limit_reached, 402 billing_error, or the 400 about a credit
 * balance too low).
 */
bool llm_is_quota_error(const struct http_response *res);
/* True when a 400's message is about structured output (response_format,
 * json_schema, json_object, tools, tool_choice). */
bool llm_mentions_response_format(const struct http_response *res);
/* True when a 400 says max_tokens is unsupported and max_completion_tokens
 * is wanted (newer OpenAI models). */
bool llm_refuses_max_tokens(const struct http_response *res);

#endif
