/*
 * config: the project config file, evalset.yaml (docs/formats/config.md).
 *
 * A config file gives project defaults:
 *
 *     model: gpt-4o-mini
 *     base_url: http://localhost:11434/v1
 *     concurrency: 8
 *     k: 10
 *     measures: [R@5, nDCG@10]
 *     gate: ci/gate.yaml
 *     prompt_dir: prompts
 *     corpus:
 *       support-docs: data/chunks.jsonl
 *
 * Precedence, for every value: flag > environment > config > built-in.
 * Commands ask for a value after parsing their flags and only when the flag
 * was not given; config_get_* then looks at the environment variable, the
 * file, and the built-in default, in that order, and says which one answered.
 *
 * Where the file is: --config FILE (config_set_path), else $EVALSET_CONFIG,
 * else ./evalset.yaml, else evalset.yaml in each parent directory up to the
 * first one holding .git (the repository root). No file is not an error.
 *
 * Invariants: a loaded config holds only known keys with values of the right
 * type (unknown keys, wrong types, duplicates and YAML errors are refused at
 * FILE:LINE:COL); relative paths (gate, prompt_dir, corpus) are resolved
 * against the directory of the file, so a config works from any working
 * directory. The API key is never a config value: only the name of the
 * variable that holds it ('api_key_env').
 *
 * Ownership: a struct config owns its strings; config_release frees them.
 * Strings returned by config_get_* are borrowed from the config, the
 * environment or the caller's built-in, valid while the config lives.
 */
#ifndef EVALSET_CONFIG_H
#define EVALSET_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define CONFIG_MAX_BYTES (1u << 20)

enum config_source {
	CONFIG_FROM_BUILTIN,
	CONFIG_FROM_FLAG,
	CONFIG_FROM_ENV,
	CONFIG_FROM_FILE,
};

/* Where a value came from, for `evalset config`. */
struct config_origin {
	enum config_source source;
	const char *env;    /* CONFIG_FROM_ENV: the variable */
	const char *file;   /* CONFIG_FROM_FILE: the config file */
	long line;          /* CONFIG_FROM_FILE: its line */
};

struct config_value {
	char *key;          /* "model", or "corpus.<set>" for a corpus path */
	char *value;        /* scalar (paths already resolved); lists joined with "," */
	char **list;        /* list values (measures), else NULL */
	size_t nr_list;
	long line, col;
};

struct config {
	char *file;         /* NULL: no config file */
	struct config_value *v;
	size_t nr, alloc;
	char **env_lists;   /* lists split from environment values, kept for borrowing */
	size_t nr_env_lists, alloc_env_lists;
};
#define CONFIG_INIT { NULL, NULL, 0, 0, NULL, 0, 0 }

/* A key the config file may hold. */
struct config_key {
	const char *key;
	const char *env;       /* environment variable, or NULL */
	const char *builtin;   /* built-in default as text, or NULL (none) */
	const char *help;
};
/* Return the known keys, ending with a NULL 'key'. */
const struct config_key *config_keys(void);

/*
 * Find the config file: 'given' (must exist), $EVALSET_CONFIG (must exist),
 * ./evalset.yaml, then evalset.yaml in parent directories up to the one
 * holding .git. Return 1 with '*path' set (caller frees), 0 when there is
 * none, or -1 (reported) when a named file does not exist.
 */
int config_find(const char *given, char **path);

/* Load 'path' into 'c' (CONFIG_INIT). Return 0, or -1 after an error naming FILE:LINE:COL. */
int config_load(struct config *c, const char *path);
/* Load 'len' bytes of 'buf' as if read from 'name' (relative paths resolve against its directory). */
int config_load_buf(struct config *c, const char *buf, size_t len, const char *name);
void config_release(struct config *c);

/* Remember the --config given before the command (borrowed: argv). */
void config_set_path(const char *path);
/*
 * Find and load the process's config once (config_set_path, then the search
 * of config_find) and set '*out' to it (an empty config when there is no
 * file). Return 0, or -1 (reported) on a bad or missing named file.
 */
int config_use(struct config **out);

/*
 * Return the value of 'key': $'env' when set and non-empty ('env' may be
 * NULL), else the config's value ('c' may be NULL), else 'builtin' (may be
 * NULL). '*from' (may be NULL) says which.
 */
const char *config_get_string(const struct config *c, const char *key, const char *env,
			      const char *builtin, struct config_origin *from);
/*
 * Like config_get_string for a whole number in [min, max]. Return 0 with
 * '*out' set, or -1 (reported, naming the variable or FILE:LINE) when the
 * value found is not such a number.
 */
int config_get_long(const struct config *c, const char *key, const char *env, long builtin,
		    long min, long max, long *out, struct config_origin *from);
/*
 * For library code that must not fail on a bad config (the cache of frozen
 * versions): return a copy of the value of 'key' from $'env' (may be NULL)
 * or the config file (the process's, else found and loaded quietly), or
 * NULL when neither gives one or the config cannot be read. Nothing is
 * reported and the process's config is left for config_use to load and
 * report. The caller frees.
 */
char *config_get_quietly(const char *key, const char *env);
/*
 * Like config_get_string for a duration key (deadline, request_deadline,
 * stall_timeout): set '*text' to the value as written (borrowed; the key's
 * built-in, or NULL when it has none) and '*ms' to it in milliseconds (0
 * when NULL). Return 0, or -1 (reported, naming the variable) when the
 * environment gives something that is not a duration; the file's values
 * were checked when it was loaded.
 */
int config_get_duration(const struct config *c, const char *key, const char *env, const char **text,
			long *ms, struct config_origin *from);
/*
 * Like config_get_string for a list (a YAML list in the file, a
 * comma-separated value in the environment). Return the number of items and
 * set '*items' (borrowed); 0 when no source gives the key.
 */
size_t config_get_list(struct config *c, const char *key, const char *env,
		       const char *const **items, struct config_origin *from);
/* Return the corpus path the config gives for the set 'name' (resolved), or NULL. */
const char *config_corpus(const struct config *c, const char *name, struct config_origin *from);

/* Write a description of 'from' ("built-in", "env EVALSET_K", "config FILE:LINE",
 * "flag") into a new string; caller frees. */
char *config_origin_describe(const struct config_origin *from);

#endif
