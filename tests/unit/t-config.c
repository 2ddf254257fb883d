/*
 * t-config: evalset.yaml is found where the docs say, refuses unknown keys
 * and wrong types at FILE:LINE:COL, resolves paths against its own
 * directory, and loses to the environment (flags are the caller's).
 */
#include "test-lib.h"
#include "base/config.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char good[] =
	"# project defaults\n"
	"model: gpt-4o-mini\n"
	"k: 10\n"
	"measures: [R@5, nDCG@10]\n"
	"gate: ci/gate.yaml\n"
	"prompt_dir: /opt/prompts\n"
	"corpus:\n"
	"  support-docs: data/chunks.jsonl\n";

static int load(struct config *c, const char *text, const char *name)
{
	config_release(c);
	return config_load_buf(c, text, strlen(text), name);
}

int main(void)
{
	struct config c = CONFIG_INIT;
	struct config_origin from;
	const char *const *items;
	char *desc, *found;
	long n;
	char tmpl[] = "/tmp/t-config-XXXXXX", cwd[PATH_MAX];

	test_capture_errors();
	unsetenv("EVALSET_MODEL");
	unsetenv("EVALSET_K");
	unsetenv("EVALSET_MEASURES");
	unsetenv("EVALSET_CONFIG");

	is_int(load(&c, good, "proj/evalset.yaml"), 0, "a good config loads");
	is_str(config_get_string(&c, "model", "EVALSET_MODEL", NULL, &from), "gpt-4o-mini", "model from the file");
	is_int(from.source, CONFIG_FROM_FILE, "source: config");
	is_int(from.line, 2, "with the line it was read at");
	desc = config_origin_describe(&from);
	is_str(desc, "config proj/evalset.yaml:2", "described as config FILE:LINE");
	free(desc);
	is_str(config_get_string(&c, "gate", "EVALSET_GATE", NULL, NULL), "proj/ci/gate.yaml",
	       "a relative path resolves against the config's directory");
	is_str(config_get_string(&c, "prompt_dir", NULL, NULL, NULL), "/opt/prompts", "an absolute path is kept");
	is_str(config_corpus(&c, "support-docs", NULL), "proj/data/chunks.jsonl", "corpus per set, resolved");
	ok(config_corpus(&c, "other", NULL) == NULL, "no corpus for a set the config does not name");
	is_int(config_get_list(&c, "measures", "EVALSET_MEASURES", &items, NULL), 2, "measures list");
	ok(items && !strcmp(items[0], "R@5") && !strcmp(items[1], "nDCG@10"), "in order");

	/* precedence: environment over config over built-in */
	setenv("EVALSET_MODEL", "llama3", 1);
	is_str(config_get_string(&c, "model", "EVALSET_MODEL", NULL, &from), "llama3", "env beats config");
	desc = config_origin_describe(&from);
	is_str(desc, "env EVALSET_MODEL", "described as env VAR");
	free(desc);
	setenv("EVALSET_MODEL", "", 1);
	is_str(config_get_string(&c, "model", "EVALSET_MODEL", NULL, NULL), "gpt-4o-mini", "an empty variable is unset");
	unsetenv("EVALSET_MODEL");
	is_int(config_get_long(&c, "k", "EVALSET_K", 5, 1, 100000, &n, NULL), 0, "k from the file");
	is_int(n, 10, "k = 10");
	is_int(config_get_long(&c, "concurrency", "EVALSET_CONCURRENCY", 16, 1, 1024, &n, &from), 0, "built-in");
	ok(n == 16 && from.source == CONFIG_FROM_BUILTIN, "concurrency falls back to the built-in 16");
	setenv("EVALSET_K", "x7", 1);
	is_int(config_get_long(&c, "k", "EVALSET_K", 5, 1, 100000, &n, NULL), -1, "a bad number in the env is refused");
	ok(strstr(test_captured(), "EVALSET_K") != NULL, "naming the variable");
	unsetenv("EVALSET_K");
	setenv("EVALSET_MEASURES", "P@5, RR", 1);
	is_int(config_get_list(&c, "measures", "EVALSET_MEASURES", &items, &from), 2, "env list, comma separated");
	ok(!strcmp(items[1], "RR") && from.source == CONFIG_FROM_ENV, "trimmed, from env");
	unsetenv("EVALSET_MEASURES");

	/* durations: the time limits of generate and judge */
	{
		const char *t;
		long ms;
		is_int(load(&c, "deadline: 2h\nstall_timeout: 0\n", "d.yaml"), 0, "duration keys load");
		is_int(config_get_duration(&c, "deadline", "EVALSET_DEADLINE", &t, &ms, &from), 0, "deadline from the file");
		ok(!strcmp(t, "2h") && ms == 7200000 && from.source == CONFIG_FROM_FILE && from.line == 1,
		   "2h = 7,200,000 ms, at d.yaml:1");
		is_int(config_get_duration(&c, "stall_timeout", "EVALSET_STALL_TIMEOUT", &t, &ms, NULL), 0, "stall 0");
		ok(!strcmp(t, "0") && ms == 0, "0: never");
		is_int(config_get_duration(&c, "request_deadline", "EVALSET_REQUEST_DEADLINE", &t, &ms, &from), 0,
		       "request_deadline built-in");
		ok(!strcmp(t, "10m") && ms == 600000 && from.source == CONFIG_FROM_BUILTIN, "built-in 10m");
		setenv("EVALSET_DEADLINE", "90", 1);
		is_int(config_get_duration(&c, "deadline", "EVALSET_DEADLINE", &t, &ms, &from), 0, "deadline from env");
		ok(ms == 90000 && from.source == CONFIG_FROM_ENV, "env beats config: 90 s");
		setenv("EVALSET_DEADLINE", "soon", 1);
		is_int(config_get_duration(&c, "deadline", "EVALSET_DEADLINE", &t, &ms, NULL), -1, "a bad env duration");
		ok(strstr(test_captured(), "EVALSET_DEADLINE") != NULL, "naming the variable");
		unsetenv("EVALSET_DEADLINE");
		is_int(load(&c, "\n", "d.yaml"), 0, "an empty config");
		is_int(config_get_duration(&c, "deadline", "EVALSET_DEADLINE", &t, &ms, NULL), 0, "no deadline");
		ok(t == NULL && ms == 0, "deadline: none built in");
		is_int(load(&c, "model: m\ndeadline: 0\n", "d.yaml"), -1, "deadline 0 is refused");
		ok(strstr(test_captured(), "d.yaml:2:11: 'deadline' must be a duration") != NULL, "at FILE:LINE:COL");
		is_int(load(&c, "stall_timeout: 2 minutes\n", "d.yaml"), -1, "a duration that does not parse");
		is_int(load(&c, "request_deadline: 31d\n", "d.yaml"), -1, "beyond 30 days / an unknown unit");
		is_int(load(&c, "request_deadline: 1000h\n", "d.yaml"), -1, "beyond 30 days");
	}

	/* refusals */
	is_int(load(&c, "model: x\nmodle: y\n", "evalset.yaml"), -1, "an unknown key is refused");
	ok(strstr(test_captured(), "evalset.yaml:2:1: unknown config key 'modle'") != NULL,
	   "naming the key and FILE:LINE:COL");
	is_int(load(&c, "k: ten\n", "e.yaml"), -1, "k must be a number");
	ok(strstr(test_captured(), "e.yaml:1:4:") != NULL, "at the value");
	is_int(load(&c, "concurrency: 0\n", "e.yaml"), -1, "concurrency out of range is refused");
	is_int(load(&c, "k: 5\nk: 6\n", "e.yaml"), -1, "a duplicate key is refused");
	is_int(load(&c, "measures: {a: 1}\n", "e.yaml"), -1, "measures must be a list");
	is_int(load(&c, "corpus: data.jsonl\n", "e.yaml"), -1, "corpus must be a map");
	is_int(load(&c, "model: [unclosed\n", "e.yaml"), -1, "a YAML error is refused");
	ok(strstr(test_captured(), "e.yaml:2:1: did not find expected") != NULL, "with libyaml's problem and place");
	is_int(load(&c, "- a\n- b\n", "e.yaml"), -1, "a list is not a config");
	is_int(load(&c, "", "empty.yaml"), 0, "an empty file is an empty config");
	is_str(config_get_string(&c, "base_url", "NO_SUCH_VAR_T_CONFIG", "https://api.openai.com/v1", &from),
	       "https://api.openai.com/v1", "built-in default");
	is_int(from.source, CONFIG_FROM_BUILTIN, "source: built-in");

	/* search: ./evalset.yaml, then parents up to the directory holding .git */
	if (!getcwd(cwd, sizeof(cwd)) || !mkdtemp(tmpl))
		return 1;
	{
		char *repo = path_join(tmpl, "repo"), *deep = path_join(repo, "a/b");
		char *git = path_join(repo, ".git"), *above = path_join(tmpl, "evalset.yaml");
		char *inrepo = path_join(repo, "evalset.yaml");

		mkdir_p(deep);
		mkdir_p(git);
		write_file_atomic(above, "k: 3\n", 5);
		if (chdir(deep) == 0) {
			is_int(config_find(NULL, &found), 0, "a config above the repository root is not used");
			write_file_atomic(inrepo, "k: 4\n", 5);
			is_int(config_find(NULL, &found), 1, "the repository root's evalset.yaml is found from a subdirectory");
			ok(found && ends_with(found, "/repo/evalset.yaml"), "found %s", found ? found : "(null)");
			free(found);
			setenv("EVALSET_CONFIG", "nope.yaml", 1);
			is_int(config_find(NULL, &found), -1, "a missing $EVALSET_CONFIG is an error");
			is_int(config_find(inrepo, &found), 1, "--config wins over $EVALSET_CONFIG");
			free(found);
			unsetenv("EVALSET_CONFIG");
			is_int(config_find("missing.yaml", &found), -1, "a missing --config is an error");
			if (chdir(cwd) != 0)
				return 1;
		}
		test_remove_tree(tmpl);
		free(repo);
		free(deep);
		free(git);
		free(above);
		free(inrepo);
	}
	config_release(&c);
	return test_done();
}
