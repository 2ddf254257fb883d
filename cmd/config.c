/*
 * config: print the effective defaults and where each one came from
 * (flag, env VAR, config FILE:LINE or built-in), so that a user can see
 * why a command used the model, k or gate it used. The flags of
 * the other commands that read the config are accepted here too, to show
 * the precedence flag > environment > config > built-in. The API key
 * itself is never printed: only whether its variable is set.
 */
#include "builtin.h"
#include "base/config.h"
#include "base/fsutil.h"
#include "base/redact.h"
#include "base/table.h"
#include "llm/prompt.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const config_usage[] = {
	"evalset config [--config <file>] [--model <m>] [--base-url <url>] [--api-key-env <var>]\n"
	"               [--concurrency <n>] [--deadline <duration>] [--request-deadline <duration>]\n"
	"               [--stall-timeout <duration>] [-k <n>] [-m <measure>]... [--gate <file>] [--prompt-dir <dir>]",
	NULL,
};

/* Add the row of setting 'key' to 't': its value (NULL: "(none)") and where it came from. */
static void row(struct table *t, const char *key, const char *value, const struct config_origin *from)
{
	char *src = config_origin_describe(from);
	struct strbuf shown = STRBUF_INIT;

	/* a URL's credentials and secret parameters are never shown */
	if (value && strstr(value, "://"))
		redact_url(value, &shown);
	else
		strbuf_addstr(&shown, value ? value : "");
	table_add(t, key);
	table_add(t, shown.len ? shown.buf : "(none)");
	table_add(t, src);
	strbuf_release(&shown);
	free(src);
}

static const struct config_origin flag_origin = { CONFIG_FROM_FLAG, NULL, NULL, 0 };

/* Add the row of 'key' from the flag 'flag', else from the config lookups. */
static void string_row(struct table *t, struct config *cfg, const char *key, const char *flag,
		       const char *env, const char *builtin)
{
	struct config_origin from;
	const char *v;

	if (flag) {
		row(t, key, flag, &flag_origin);
		return;
	}
	v = config_get_string(cfg, key, env, builtin, &from);
	row(t, key, v, &from);
}

static int long_row(struct table *t, struct config *cfg, const char *key, long flag, const char *env,
		    long builtin, long min, long max)
{
	struct config_origin from;
	char buf[32];
	long v;

	if (flag >= 0) {
		if (flag < min || flag > max)
			return error("--%s must be in %ld..%ld", key, min, max);
		snprintf(buf, sizeof(buf), "%ld", flag);
		row(t, key, buf, &flag_origin);
		return 0;
	}
	if (config_get_long(cfg, key, env, builtin, min, max, &v, &from) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%ld", v);
	row(t, key, buf, &from);
	return 0;
}

/* Add the row of the duration 'key' from the flag 'flag', else from the config lookups. */
static int duration_row(struct table *t, struct config *cfg, const char *key, const char *option,
			const char *flag, const char *env, bool above_zero)
{
	struct config_origin from;
	const char *v;
	long ms;

	if (flag) {
		if (parse_duration_ms(flag, LONG_CAP(30LL * 86400 * 1000), &ms) < 0 || (above_zero && !ms))
			return error("bad duration --%s '%s': seconds, or a number with ms, s, m or h (up to 30 days%s)",
				     option, flag, above_zero ? ", above 0" : "");
		row(t, key, flag, &flag_origin);
		return 0;
	}
	if (config_get_duration(cfg, key, env, &v, &ms, &from) < 0)
		return -1;
	row(t, key, v, &from);
	return 0;
}

int cmd_config(int argc, const char **argv)
{
	const char *path = NULL, *model = NULL, *base_url = NULL, *key_env = NULL, *gate = NULL;
	const char *prompt_dir = NULL, *provider = NULL, *deadline = NULL, *request_deadline = NULL;
	const char *stall_timeout = NULL;
	long concurrency = -1, k = -1;
	bool anthropic;
	struct string_list measures = STRING_LIST_INIT;
	struct option opts[] = {
		OPT_STRING(0, "config", &path, "file", "the config file (default: search, see below)"),
		OPT_STRING(0, "provider", &provider, "p", "as generate --provider"),
		OPT_STRING(0, "model", &model, "m", "as generate --model"),
		OPT_STRING(0, "base-url", &base_url, "url", "as generate --base-url"),
		OPT_STRING(0, "api-key-env", &key_env, "var", "as generate --api-key-env"),
		OPT_INT(0, "concurrency", &concurrency, "n", "as generate --concurrency"),
		OPT_STRING(0, "deadline", &deadline, "duration", "as generate --deadline"),
		OPT_STRING(0, "request-deadline", &request_deadline, "duration", "as generate --request-deadline"),
		OPT_STRING(0, "stall-timeout", &stall_timeout, "duration", "as generate --stall-timeout"),
		OPT_INT('k', "k", &k, "n", "as score/compare --k"),
		OPT_STRING_LIST('m', "measure", &measures, "measure", "as score/compare -m (repeatable)"),
		OPT_STRING(0, "gate", &gate, "file", "as compare --gate"),
		OPT_STRING(0, "prompt-dir", &prompt_dir, "dir", "as generate --prompt-dir"),
		OPT_END(),
	};
	struct config *cfg;
	struct config_origin from;
	const char *const *items;
	const char *key_var, *key_value, *v;
	char *builtin_prompts = NULL;
	struct strbuf list = STRBUF_INIT, out = STRBUF_INIT;
	struct table t;
	size_t n;
	long n_check;
	int ret = EXIT_BAD_INPUT;

	/* the settings: name, value, where it came from; no header, as the lines read */
	table_init(&t, TABLE_TEXT);
	t.header = false;
	t.sep = " ";
	table_add_column(&t, "setting", 0, 18, 0);
	table_add_column(&t, "value", 0, 40, 0);
	table_add_column(&t, "from", 0, 0, 0);

	argc = parse_options(argc, argv, opts, config_usage);
	if (argc != 0)
		usage_with_options(config_usage, opts);
	if (path)
		config_set_path(path);
	if (config_use(&cfg) < 0)
		goto out;
	/* refuse a bad number before printing anything */
	if ((concurrency < 0 &&
	     config_get_long(cfg, "concurrency", "EVALSET_CONCURRENCY", 16, 1, 1024, &n_check, NULL) < 0) ||
	    (k < 0 && config_get_long(cfg, "k", "EVALSET_K", 5, 1, 100000, &n_check, NULL) < 0))
		goto out;
	{
		const char *text;
		long ms;
		if ((!deadline && config_get_duration(cfg, "deadline", "EVALSET_DEADLINE", &text, &ms, NULL) < 0) ||
		    (!request_deadline &&
		     config_get_duration(cfg, "request_deadline", "EVALSET_REQUEST_DEADLINE", &text, &ms, NULL) < 0) ||
		    (!stall_timeout &&
		     config_get_duration(cfg, "stall_timeout", "EVALSET_STALL_TIMEOUT", &text, &ms, NULL) < 0))
			goto out;
	}
	{
		long bytes;
		v = config_get_string(cfg, "cache_max_size", "EVALSET_CACHE_MAX_SIZE", "100M", NULL);
		if (parse_size(v, LONG_CAP(1LL << 40), &bytes) < 0) {
			error("bad $EVALSET_CACHE_MAX_SIZE '%s': bytes, or a number with K, M, G or T (up to 1T)", v);
			goto out;
		}
	}
	if (cfg->file)
		strbuf_addf(&out, "config file: %s\n", cfg->file);
	else
		strbuf_addstr(&out, "config file: none (looked for --config, $EVALSET_CONFIG, ./evalset.yaml and "
			      "evalset.yaml up to the repository root)\n");
	string_row(&t, cfg, "provider", provider, "EVALSET_PROVIDER", "openai");
	if (!provider)
		provider = config_get_string(cfg, "provider", "EVALSET_PROVIDER", "openai", NULL);
	anthropic = !strcmp(provider, "anthropic");
	string_row(&t, cfg, "model", model, "EVALSET_MODEL", NULL);
	string_row(&t, cfg, "base_url", base_url, anthropic ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL",
		   anthropic ? "https://api.anthropic.com/v1" : "https://api.openai.com/v1");
	string_row(&t, cfg, "api_key_env", key_env, NULL, anthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
	if (long_row(&t, cfg, "concurrency", concurrency, "EVALSET_CONCURRENCY", 16, 1, 1024) < 0 ||
	    duration_row(&t, cfg, "deadline", "deadline", deadline, "EVALSET_DEADLINE", true) < 0 ||
	    duration_row(&t, cfg, "request_deadline", "request-deadline", request_deadline, "EVALSET_REQUEST_DEADLINE",
			 false) < 0 ||
	    duration_row(&t, cfg, "stall_timeout", "stall-timeout", stall_timeout, "EVALSET_STALL_TIMEOUT", false) < 0 ||
	    long_row(&t, cfg, "k", k, "EVALSET_K", 5, 1, 100000) < 0)
		goto out;
	if (measures.nr) {
		for (size_t i = 0; i < measures.nr; i++)
			strbuf_addf(&list, "%s%s", i ? "," : "", measures.items[i]);
		row(&t, "measures", list.buf, &flag_origin);
	} else {
		n = config_get_list(cfg, "measures", "EVALSET_MEASURES", &items, &from);
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&list, "%s%s", i ? "," : "", items[i]);
		row(&t, "measures", n ? list.buf : "(the command's defaults)", &from);
	}
	string_row(&t, cfg, "gate", gate, "EVALSET_GATE", NULL);
	if (!prompt_dir && !getenv("EVALSET_PROMPT_DIR"))
		builtin_prompts = prompt_default_dir(NULL, "generate-factoid.md");
	string_row(&t, cfg, "prompt_dir", prompt_dir, "EVALSET_PROMPT_DIR", builtin_prompts);
	if (long_row(&t, cfg, "run_k", -1, NULL, 100, 1, 100000) < 0 ||
	    long_row(&t, cfg, "pool_depth", -1, NULL, 10, 1, 10000) < 0)
		goto out;
	{
		/* the cache of frozen versions: how large, and where (environment only) */
		const char *dir = getenv("EVALSET_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
		struct config_origin env_origin = { CONFIG_FROM_ENV, "EVALSET_CACHE_DIR", NULL, 0 };
		struct config_origin builtin_origin = { CONFIG_FROM_BUILTIN, NULL, NULL, 0 };
		char *where;
		string_row(&t, cfg, "cache_max_size", NULL, "EVALSET_CACHE_MAX_SIZE", "100M");
		if (dir && *dir) {
			row(&t, "cache_dir", dir, &env_origin);
		} else {
			where = xdg && *xdg == '/' ? path_join(xdg, "evalset")
				: xstrfmt("%s/.cache/evalset", getenv("HOME") ? getenv("HOME") : "~");
			row(&t, "cache_dir", where, &builtin_origin);
			free(where);
		}
	}
	for (size_t i = 0; i < cfg->nr; i++)
		if (starts_with(cfg->v[i].key, "corpus.")) {
			struct config_origin o = { CONFIG_FROM_FILE, NULL, cfg->file, cfg->v[i].line };
			row(&t, cfg->v[i].key, cfg->v[i].value, &o);
		}
	/* the key: only whether it is set, never its value */
	key_var = key_env ? key_env : config_get_string(cfg, "api_key_env", NULL,
							anthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY", NULL);
	key_value = getenv(key_var);
	table_add(&t, "api key");
	table_addf(&t, "$%s is %s", key_var, key_value && *key_value ? "set" : "not set");
	table_add(&t, "(the value is never shown)");
	table_render(&t, &out);
	if (write_stdout(out.buf, out.len) < 0)
		goto out;
	ret = EXIT_OK;
out:
	table_release(&t);
	free(builtin_prompts);
	strbuf_release(&list);
	strbuf_release(&out);
	string_list_clear(&measures);
	return ret;
}
