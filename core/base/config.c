/*
 * config: find, load and query evalset.yaml (the contract is in config.h).
 *
 * The file is read whole, checked as UTF-8 and parsed with libyaml's
 * document loader; each top-level key is checked against the table below
 * before anything is stored, so a loaded config never holds a key the tool
 * does not know. Values are kept as text (lists also as items) with the
 * line they were read at, which is what `evalset config` shows.
 */
#include "base/config.h"

#include "base/error.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "base/utf8.h"
#include "base/yamlguard.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

/* The longest duration a config key takes: 30 days (24.8 on 32 bits), as the flags. */
#define CONFIG_MAX_DURATION_MS LONG_CAP(30LL * 86400 * 1000)

enum key_kind { KIND_STRING, KIND_PATH, KIND_INT, KIND_LIST, KIND_CORPUS, KIND_DURATION, KIND_SIZE };

struct key_spec {
	struct config_key pub;
	enum key_kind kind;
	long min, max;
};

static const struct key_spec specs[] = {
	{ { "model", "EVALSET_MODEL", NULL, "model for generate and judge" }, KIND_STRING, 0, 0 },
	{ { "base_url", "OPENAI_BASE_URL", "https://api.openai.com/v1", "OpenAI-compatible endpoint" },
	  KIND_STRING, 0, 0 },
	{ { "api_key_env", NULL, "OPENAI_API_KEY", "name of the variable holding the API key" },
	  KIND_STRING, 0, 0 },
	{ { "provider", "EVALSET_PROVIDER", "openai", "LLM protocol: openai (and compatible) or anthropic" },
	  KIND_STRING, 0, 0 },
	{ { "concurrency", "EVALSET_CONCURRENCY", "16", "LLM requests in flight (generate, judge)" },
	  KIND_INT, 1, 1024 },
	{ { "deadline", "EVALSET_DEADLINE", NULL, "time limit of a whole generate or judge job (e.g. 2h)" },
	  KIND_DURATION, 1, CONFIG_MAX_DURATION_MS },
	{ { "request_deadline", "EVALSET_REQUEST_DEADLINE", "10m", "time limit of one LLM request, retries "
	    "included (0: none)" }, KIND_DURATION, 0, CONFIG_MAX_DURATION_MS },
	{ { "stall_timeout", "EVALSET_STALL_TIMEOUT", "2m", "abort an LLM attempt that receives nothing this "
	    "long (0: never)" }, KIND_DURATION, 0, CONFIG_MAX_DURATION_MS },
	{ { "k", "EVALSET_K", "5", "context size k (score, compare, report)" }, KIND_INT, 1, 100000 },
	{ { "measures", "EVALSET_MEASURES", NULL, "measures score and compare report" }, KIND_LIST, 0, 0 },
	{ { "gate", "EVALSET_GATE", NULL, "gate file for compare" }, KIND_PATH, 0, 0 },
	{ { "prompt_dir", "EVALSET_PROMPT_DIR", NULL, "prompt templates for generate" }, KIND_PATH, 0, 0 },
	{ { "run_k", NULL, "100", "results per question asked by run (-k)" }, KIND_INT, 1, 100000 },
	{ { "pool_depth", NULL, "10", "documents pool takes from the top of each run (--depth)" },
	  KIND_INT, 1, 10000 },
	{ { "cache_max_size", "EVALSET_CACHE_MAX_SIZE", "100M", "most the cache of frozen versions may hold "
	    "(least recently used dropped first; 0: no cache)" }, KIND_SIZE, 0, LONG_CAP(1LL << 40) },
	{ { "corpus", NULL, NULL, "corpus path per set (a map: set name -> path)" }, KIND_CORPUS, 0, 0 },
};

const struct config_key *config_keys(void)
{
	static struct config_key keys[ARRAY_SIZE(specs) + 1];

	if (!keys[0].key)
		for (size_t i = 0; i < ARRAY_SIZE(specs); i++)
			keys[i] = specs[i].pub;
	return keys;
}

static const struct key_spec *spec_find(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++)
		if (!strcmp(specs[i].pub.key, key))
			return &specs[i];
	return NULL;
}

void config_release(struct config *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		free(c->v[i].key);
		free(c->v[i].value);
		for (size_t k = 0; k < c->v[i].nr_list; k++)
			free(c->v[i].list[k]);
		free(c->v[i].list);
	}
	free(c->v);
	for (size_t i = 0; i < c->nr_env_lists; i++)
		free(c->env_lists[i]);
	free(c->env_lists);
	free(c->file);
	memset(c, 0, sizeof(*c));
}

static struct config_value *value_find(const struct config *c, const char *key)
{
	for (size_t i = 0; c && i < c->nr; i++)
		if (!strcmp(c->v[i].key, key))
			return &c->v[i];
	return NULL;
}

/* ---- loading ---- */

struct loader {
	yaml_document_t doc;
	const char *name;
	char *dir;   /* directory of the file, for relative paths */
	struct config *c;
};

static long line_of(const yaml_node_t *n)
{
	return (long)n->start_mark.line + 1;
}

static long col_of(const yaml_node_t *n)
{
	return (long)n->start_mark.column + 1;
}

static int bad(struct loader *ld, const yaml_node_t *n, const char *fmt, const char *key)
{
	return error_at(ld->name, line_of(n), col_of(n), fmt, key);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static char *resolve_path(const struct loader *ld, const char *p)
{
	if (p[0] == '/' || !strcmp(ld->dir, "."))
		return xstrdup(p);
	return path_join(ld->dir, p);
}

static struct config_value *add_value(struct loader *ld, const char *key, const yaml_node_t *at)
{
	struct config_value *v;

	ALLOC_GROW(ld->c->v, ld->c->nr + 1, ld->c->alloc);
	v = &ld->c->v[ld->c->nr++];
	memset(v, 0, sizeof(*v));
	v->key = xstrdup(key);
	v->line = line_of(at);
	v->col = col_of(at);
	return v;
}

static void list_add(struct config_value *v, const char *item, size_t *alloc)
{
	ALLOC_GROW(v->list, v->nr_list + 1, *alloc);
	v->list[v->nr_list++] = xstrdup(item);
}

/* Split "a, b,c" into the items of 'v'. */
static void list_split(struct config_value *v, const char *s, size_t *alloc)
{
	char *copy = xstrdup(s), *p = copy;

	while (p) {
		char *comma = strchr(p, ','), *e;
		if (comma)
			*comma = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		e = p + strlen(p);
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (*p)
			list_add(v, p, alloc);
		p = comma ? comma + 1 : NULL;
	}
	free(copy);
}

static void list_join(struct config_value *v)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < v->nr_list; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", v->list[i]);
	v->value = strbuf_detach(&sb, NULL);
}

static int load_corpus(struct loader *ld, const yaml_node_t *n)
{
	if (n->type != YAML_MAPPING_NODE)
		return bad(ld, n, "'%s' must be a map of set name to corpus path", "corpus");
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(&ld->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(&ld->doc, pr->value);
		const char *name = scalar(k), *path = scalar(v);
		char *key;
		struct config_value *cv;

		if (!name || !*name)
			return bad(ld, k, "a key of '%s' must be a set name", "corpus");
		if (!path || !*path)
			return bad(ld, v, "the corpus of set '%s' must be a path", name);
		key = xstrfmt("corpus.%s", name);
		if (value_find(ld->c, key)) {
			bad(ld, k, "duplicate key '%s'", key);
			free(key);
			return -1;
		}
		cv = add_value(ld, key, v);
		free(key);
		cv->value = resolve_path(ld, path);
	}
	return 0;
}

static int load_key(struct loader *ld, const yaml_node_t *k, const yaml_node_t *v)
{
	const char *key = scalar(k), *s;
	const struct key_spec *spec;
	struct config_value *cv;
	size_t alloc = 0;
	long n;

	if (!key)
		return bad(ld, k, "%s", "a config key must be a plain name");
	if (!(spec = spec_find(key))) {
		struct strbuf known = STRBUF_INIT;
		int ret;

		for (size_t i = 0; i < ARRAY_SIZE(specs); i++)
			strbuf_addf(&known, "%s%s", i ? ", " : "", specs[i].pub.key);
		ret = error_at(ld->name, line_of(k), col_of(k), "unknown config key '%s' (known: %s)",
			       key, known.buf);
		strbuf_release(&known);
		return ret;
	}
	if (value_find(ld->c, key))
		return bad(ld, k, "duplicate key '%s'", key);
	if (spec->kind == KIND_CORPUS)
		return load_corpus(ld, v);
	s = scalar(v);
	switch (spec->kind) {
	case KIND_STRING:
	case KIND_PATH:
		if (!s || !*s)
			return bad(ld, v, "'%s' must be a non-empty string", key);
		cv = add_value(ld, key, v);
		cv->value = spec->kind == KIND_PATH ? resolve_path(ld, s) : xstrdup(s);
		break;
	case KIND_INT:
		if (!s || parse_long(s, spec->min, spec->max, &n) < 0) {
			error_at(ld->name, line_of(v), col_of(v), "'%s' must be a whole number in %ld..%ld",
				 key, spec->min, spec->max);
			return -1;
		}
		cv = add_value(ld, key, v);
		cv->value = xstrfmt("%ld", n);
		break;
	case KIND_SIZE:
		if (!s || parse_size(s, spec->max, &n) < 0) {
			error_at(ld->name, line_of(v), col_of(v), "'%s' must be a size: bytes, or a number with K, M, "
				 "G or T (up to 1T)", key);
			return -1;
		}
		cv = add_value(ld, key, v);
		cv->value = xstrdup(s);
		break;
	case KIND_DURATION:
		if (!s || parse_duration_ms(s, spec->max, &n) < 0 || n < spec->min) {
			error_at(ld->name, line_of(v), col_of(v), "'%s' must be a duration: seconds, or a number "
				 "with ms, s, m or h (up to 30 days%s)", key, spec->min ? ", above 0" : "");
			return -1;
		}
		cv = add_value(ld, key, v);
		cv->value = xstrdup(s);
		break;
	case KIND_LIST:
		cv = add_value(ld, key, v);
		if (s) {
			list_split(cv, s, &alloc);
		} else if (v->type == YAML_SEQUENCE_NODE) {
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++) {
				yaml_node_t *item = yaml_document_get_node(&ld->doc, *it);
				if (!scalar(item) || !*scalar(item))
					return bad(ld, item, "an item of '%s' must be a non-empty string", key);
				list_add(cv, scalar(item), &alloc);
			}
		} else {
			return bad(ld, v, "'%s' must be a list", key);
		}
		if (!cv->nr_list)
			return bad(ld, v, "'%s' is empty", key);
		list_join(cv);
		break;
	case KIND_CORPUS:
		break;
	}
	return 0;
}

int config_load_buf(struct config *c, const char *buf, size_t len, const char *name)
{
	yaml_parser_t parser;
	struct loader ld = { .name = name, .c = c };
	yaml_node_t *root;
	size_t bad_at;
	int ret = -1, have_doc = 0;

	free(c->file);
	c->file = xstrdup(name);
	ld.dir = dir_name(name);
	if (!utf8_valid(buf, len, &bad_at)) {
		error("config '%s' is not valid UTF-8 text (byte %zu)", name, bad_at);
		free(ld.dir);
		return -1;
	}
	if (yaml_guard_depth(buf, len, name, YAML_GUARD_DEPTH) < 0) {
		free(ld.dir);
		return -1;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &ld.doc)) {
		error_at(name, (long)parser.problem_mark.line + 1, (long)parser.problem_mark.column + 1,
			 "%s", parser.problem ? parser.problem : "YAML syntax error");
		goto out;
	}
	have_doc = 1;
	root = yaml_document_get_root_node(&ld.doc);
	if (!root || (root->type == YAML_SCALAR_NODE && !root->data.scalar.length)) {
		ret = 0;  /* an empty file: no settings */
		goto out;
	}
	if (root->type != YAML_MAPPING_NODE) {
		bad(&ld, root, "%s", "a config file must be a map of keys to values");
		goto out;
	}
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++)
		if (load_key(&ld, yaml_document_get_node(&ld.doc, pr->key),
			     yaml_document_get_node(&ld.doc, pr->value)) < 0)
			goto out;
	ret = 0;
out:
	if (have_doc)
		yaml_document_delete(&ld.doc);
	yaml_parser_delete(&parser);
	free(ld.dir);
	if (ret < 0) {
		config_release(c);
	}
	return ret;
}

int config_load(struct config *c, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	if (read_file(path, &sb, CONFIG_MAX_BYTES) == 0)
		ret = config_load_buf(c, sb.buf, sb.len, path);
	strbuf_release(&sb);
	return ret;
}

/* ---- finding ---- */

int config_find(const char *given, char **path)
{
	const char *env = getenv("EVALSET_CONFIG");
	char cwd[PATH_MAX];
	char *dir;

	*path = NULL;
	if (given) {
		if (!path_exists(given))
			return error("config file '%s' (--config) does not exist", given);
		*path = xstrdup(given);
		return 1;
	}
	if (env && *env) {
		if (!path_exists(env))
			return error("config file '%s' ($EVALSET_CONFIG) does not exist", env);
		*path = xstrdup(env);
		return 1;
	}
	if (path_exists("evalset.yaml")) {
		*path = xstrdup("evalset.yaml");
		return 1;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return 0;
	dir = xstrdup(cwd);
	for (;;) {
		char *git = path_join(dir, ".git"), *slash;
		bool root = path_exists(git);

		free(git);
		if (root || !strcmp(dir, "/"))
			break;
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		{
			char *cand = path_join(dir, "evalset.yaml");
			if (path_exists(cand)) {
				*path = cand;
				free(dir);
				return 1;
			}
			free(cand);
		}
	}
	free(dir);
	return 0;
}

static const char *given_path;
static struct config process_config = CONFIG_INIT;
static int process_state;  /* 0 not loaded, 1 loaded, -1 failed */

void config_set_path(const char *path)
{
	given_path = path;
}

int config_use(struct config **out)
{
	char *path = NULL;
	int found;

	*out = &process_config;
	if (process_state)
		return process_state < 0 ? -1 : 0;
	process_state = -1;
	found = config_find(given_path, &path);
	if (found < 0)
		return -1;
	if (found && config_load(&process_config, path) < 0) {
		free(path);
		return -1;
	}
	free(path);
	process_state = 1;
	return 0;
}

static void ignore_report(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

char *config_get_quietly(const char *key, const char *env)
{
	const char *e = env ? getenv(env) : NULL;
	const struct config_value *v;
	struct config c = CONFIG_INIT;
	report_fn old;
	char *path = NULL, *out = NULL;

	if (e && *e)
		return xstrdup(e);
	if (process_state > 0) {
		v = value_find(&process_config, key);
		return v ? xstrdup(v->value) : NULL;
	}
	/* a load of its own, whose errors are the config-reading commands' to report */
	old = get_error_routine();
	set_error_routine(ignore_report);
	if (config_find(given_path, &path) > 0 && config_load(&c, path) == 0 && (v = value_find(&c, key)))
		out = xstrdup(v->value);
	set_error_routine(old);
	config_release(&c);
	free(path);
	return out;
}

/* ---- lookups ---- */

static void set_from(struct config_origin *from, enum config_source src, const char *env,
		     const struct config *c, const struct config_value *v)
{
	if (!from)
		return;
	from->source = src;
	from->env = env;
	from->file = v ? c->file : NULL;
	from->line = v ? v->line : 0;
}

const char *config_get_string(const struct config *c, const char *key, const char *env,
			      const char *builtin, struct config_origin *from)
{
	const char *e = env ? getenv(env) : NULL;
	const struct config_value *v;

	if (e && *e) {
		set_from(from, CONFIG_FROM_ENV, env, c, NULL);
		return e;
	}
	if ((v = value_find(c, key))) {
		set_from(from, CONFIG_FROM_FILE, NULL, c, v);
		return v->value;
	}
	set_from(from, CONFIG_FROM_BUILTIN, NULL, c, NULL);
	return builtin;
}

int config_get_long(const struct config *c, const char *key, const char *env, long builtin,
		    long min, long max, long *out, struct config_origin *from)
{
	struct config_origin o;
	const char *s = config_get_string(c, key, env, NULL, &o);
	long n;

	if (from)
		*from = o;
	if (!s) {
		*out = builtin;
		return 0;
	}
	if (parse_long(s, min, max, &n) < 0) {
		if (o.source == CONFIG_FROM_ENV)
			return error("bad $%s '%s': a whole number in %ld..%ld is needed", env, s, min, max);
		return error_at(o.file, o.line, 0, "'%s' must be a whole number in %ld..%ld", key, min, max);
	}
	*out = n;
	return 0;
}

int config_get_duration(const struct config *c, const char *key, const char *env, const char **text,
			long *ms, struct config_origin *from)
{
	const struct key_spec *spec = spec_find(key);
	struct config_origin o;
	const char *s = config_get_string(c, key, env, spec ? spec->pub.builtin : NULL, &o);

	if (from)
		*from = o;
	*text = s;
	*ms = 0;
	if (!s)
		return 0;
	if (!spec || parse_duration_ms(s, spec->max, ms) < 0 || *ms < spec->min) {
		if (o.source == CONFIG_FROM_ENV)
			return error("bad $%s '%s': a duration is needed (seconds, or a number with ms, s, m or h, "
				     "up to 30 days%s)", env, s, spec && spec->min ? ", above 0" : "");
		return error("bad built-in duration '%s' for '%s'", s, key);
	}
	return 0;
}

size_t config_get_list(struct config *c, const char *key, const char *env,
		       const char *const **items, struct config_origin *from)
{
	const char *e = env ? getenv(env) : NULL;
	const struct config_value *v;

	*items = NULL;
	if (e && *e) {
		struct config_value tmp = { 0 };
		size_t alloc = 0;

		list_split(&tmp, e, &alloc);
		/* keep the items alive with the config */
		for (size_t i = 0; i < tmp.nr_list; i++) {
			ALLOC_GROW(c->env_lists, c->nr_env_lists + 1, c->alloc_env_lists);
			c->env_lists[c->nr_env_lists++] = tmp.list[i];
		}
		free(tmp.list);
		set_from(from, CONFIG_FROM_ENV, env, c, NULL);
		*items = (const char *const *)(c->env_lists + c->nr_env_lists - tmp.nr_list);
		return tmp.nr_list;
	}
	if ((v = value_find(c, key))) {
		set_from(from, CONFIG_FROM_FILE, NULL, c, v);
		*items = (const char *const *)v->list;
		return v->nr_list;
	}
	set_from(from, CONFIG_FROM_BUILTIN, NULL, c, NULL);
	return 0;
}

const char *config_corpus(const struct config *c, const char *name, struct config_origin *from)
{
	char *key = xstrfmt("corpus.%s", name);
	const char *p = config_get_string(c, key, NULL, NULL, from);

	free(key);
	return p;
}

char *config_origin_describe(const struct config_origin *from)
{
	switch (from->source) {
	case CONFIG_FROM_FLAG:
		return xstrdup("flag");
	case CONFIG_FROM_ENV:
		return xstrfmt("env %s", from->env);
	case CONFIG_FROM_FILE:
		return xstrfmt("config %s:%ld", from->file, from->line);
	case CONFIG_FROM_BUILTIN:
		break;
	}
	return xstrdup("built-in");
}
