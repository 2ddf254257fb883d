/*
 * pool: write the judging worksheet (docs/pool.md): for each
 * question of a set version, the union of the top-depth documents of several
 * runs that the set has not labelled yet, with their text and which runs
 * found them at which rank, to be graded 0-3 by people or `evalset judge`.
 *
 * An existing worksheet may hold hours of grading: it is never replaced
 * without --force. Bad input (a set, a run or the corpus that cannot be
 * read) writes nothing.
 */
#include "builtin.h"
#include "base/config.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "base/fsutil.h"
#include "pool/pool.h"
#include "score/run.h"
#include "set/set.h"
#include "base/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pool_usage[] = {
	"evalset pool <set>[@<tag>] <run>... -o <pool.yaml> [--depth <n>] [--corpus <chunks.jsonl>] [--force]\n"
	"                   [--rank-by order|score]",
	NULL,
};

int cmd_pool(int argc, const char **argv)
{
	const char *out_path = NULL, *corpus_path = NULL;
	long depth = LONG_MIN, not_in_corpus = 0;  /* depth LONG_MIN: not given */
	int force = 0;
	const char *rank_by = NULL;
	enum run_rank rank;
	struct option opts[] = {
		OPT_STRING('o', "output", &out_path, "file", "the worksheet to write (required)"),
		OPT_INT(0, "depth", &depth, "n", "documents taken from the top of each run (default 10)"),
		OPT_STRING(0, "corpus", &corpus_path, "file", "chunks for the text of each pair (default: the set's corpus)"),
		OPT_BOOL(0, "force", &force, "replace an existing worksheet (its grades are lost)"),
		OPT_RANK_BY(&rank_by),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct pool p = POOL_INIT;
	struct pool_counts pc;
	struct run *runs = NULL;
	const char **paths = NULL;
	char *set_path = NULL;
	size_t nr_runs = 0;
	bool have_corpus = false;
	int rc, ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, pool_usage);
	rank = apply_rank_by(rank_by, pool_usage, opts);
	if (argc < 2) {
		error("expected a set and at least one run");
		usage_with_options(pool_usage, opts);
	}
	if (!out_path) {
		error("no output: give -o <pool.yaml>");
		usage_with_options(pool_usage, opts);
	}
	if (depth == LONG_MIN) {
		/* the project config's pool_depth (core/base/config.h), else 10 */
		struct config *cfg;
		if (config_use(&cfg) < 0 ||
		    config_get_long(cfg, "pool_depth", NULL, 10, 1, 10000, &depth, NULL) < 0)
			return EXIT_BAD_INPUT;
	}
	if (depth < 1 || depth > 10000) {
		error("--depth must be in 1..10000");
		usage_with_options(pool_usage, opts);
	}
	if (!force && path_exists(out_path)) {
		error("'%s' exists and may hold grades; give --force to replace it", out_path);
		goto out;
	}
	if (set_open(&s, &ref, argv[0]) < 0)
		goto out;
	if ((rc = set_corpus_open(&s, ref.dir, corpus_path, &corpus)) < 0)
		goto out;
	have_corpus = rc > 0;
	if (!have_corpus)
		warning("no corpus (give --corpus): the worksheet has chunk ids but no text to read");
	nr_runs = (size_t)argc - 1;
	runs = xcalloc(nr_runs, sizeof(*runs));
	paths = xcalloc(nr_runs, sizeof(*paths));
	for (size_t i = 0; i < nr_runs; i++) {
		run_init(&runs[i]);
		paths[i] = argv[i + 1];
	}
	for (size_t i = 0; i < nr_runs; i++)
		if (run_load_ranked(&runs[i], paths[i], rank) < 0)
			goto out;
	/* recorded relative to the worksheet, so judge finds it from anywhere */
	set_path = pool_path_for_file(ref.dir, out_path);
	if (pool_build(&p, &s, set_path, ref.tag, runs, paths, nr_runs, depth,
		       have_corpus ? &corpus : NULL, &not_in_corpus) < 0)
		goto out;
	if (not_in_corpus)
		warning("%ld document%s of the runs %s not in corpus '%s'; left out of the pool",
			not_in_corpus, not_in_corpus == 1 ? "" : "s", not_in_corpus == 1 ? "is" : "are", corpus.path);
	if (pool_save(&p, out_path) < 0)
		goto out;
	pool_count(&p, &pc);
	printf("pool: %zu pairs to grade for %zu questions, from %zu runs at depth %ld, against %s%s%s (%s)\n",
	       pc.pairs, pc.questions, nr_runs, depth, s.name, ref.tag ? "@" : "", ref.tag ? ref.tag : "",
	       p.set_digest);
	printf("wrote %s: fill in grade 0-3 per pair, or run `evalset judge %s`, then `evalset label %s --from %s`\n",
	       out_path, out_path, ref.dir, out_path);
	ret = EXIT_OK;
out:
	for (size_t i = 0; runs && i < nr_runs; i++)
		run_release(&runs[i]);
	free(runs);
	free(paths);
	free(set_path);
	pool_release(&p);
	corpus_release(&corpus);
	set_release(&s);
	set_ref_release(&ref);
	return ret;
}
