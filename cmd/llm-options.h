/*
 * llm-options: the LLM endpoint options that generate and judge share
 * (--model, --base-url, --api-key-env, --concurrency, --max-requests,
 * --max-attempts, --temperature), their project-config defaults and the key
 * lookup.
 *
 * Usage: put OPT_LLM_ENDPOINT(&lo) in the option table, parse the options,
 * then call llm_cli_finish() (config and environment fill what no flag set,
 * ranges are checked) and llm_cli_apply() to fill a struct llm_options.
 * Precedence, as everywhere: flag > environment > config > built-in. The
 * config is read only after option parsing, so -h works with a broken
 * evalset.yaml.
 *
 * Ownership: strings are borrowed (argv, the environment, the config), valid
 * for the life of the command.
 */
#ifndef EVALSET_LLM_OPTIONS_H
#define EVALSET_LLM_OPTIONS_H

#include <limits.h>
#include <stdbool.h>

#include "parse-options.h"

struct llm_options;

#define LLM_CLI_UNSET LONG_MIN   /* a long option no flag gave */

struct llm_cli {
	const char *model, *base_url, *key_env;
	long concurrency, max_requests, max_attempts;
	double temperature;      /* < 0: not sent */
	const char *key;         /* after llm_cli_finish: $key_env, or NULL */
};
#define LLM_CLI_INIT { NULL, NULL, NULL, LLM_CLI_UNSET, 0, 6, -1, NULL }

#define OPT_LLM_ENDPOINT(o) \
	OPT_STRING(0, "model", &(o)->model, "m", "the model (default $EVALSET_MODEL, else config 'model')"), \
	OPT_STRING(0, "base-url", &(o)->base_url, "url", \
		   "the endpoint (default $OPENAI_BASE_URL, else config 'base_url', else https://api.openai.com/v1)"), \
	OPT_STRING(0, "api-key-env", &(o)->key_env, "var", \
		   "the variable holding the key (default config 'api_key_env', else OPENAI_API_KEY)"), \
	OPT_DOUBLE(0, "temperature", &(o)->temperature, "t", "sampling temperature 0..2 (default: not sent)"), \
	OPT_INT(0, "concurrency", &(o)->concurrency, "n", "requests in flight (default 16)"), \
	OPT_INT(0, "max-requests", &(o)->max_requests, "n", "send at most n HTTP requests (retries count)"), \
	OPT_INT(0, "max-attempts", &(o)->max_attempts, "n", "attempts per request before giving up (default 6)")

/*
 * Fill what no flag gave from the environment, the project config and the
 * built-ins; check the ranges (a bad one prints the usage and exits 2); look
 * up the key. With 'need_key' (requests will be sent), a missing key for
 * api.openai.com is an error. Return 0, or -1 (reported: no model, a bad
 * base URL, a missing key, a broken config).
 */
int llm_cli_finish(struct llm_cli *o, bool need_key, const char *const *usage,
		   const struct option *opts);

/* Copy the endpoint, key, model, temperature and HTTP limits of 'o' into 'lo'
 * (whose http options are reset to HTTP_OPTIONS_INIT first, with 'stop'
 * polling interrupted(): the caller calls handle_interrupts()). */
void llm_cli_apply(const struct llm_cli *o, struct llm_options *lo);

#endif
