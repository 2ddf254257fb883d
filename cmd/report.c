/*
 * report: write the self-contained HTML report of a candidate run, with an
 * optional baseline and gate (issue 10, docs/report.md).
 *
 * Inputs are runs or saved results: a run is scored through
 * core/compare/compare-input.h with score's default measures (so the page shows what
 * `evalset score --format json` prints) and is also kept for its top 20
 * ids, which the k slider needs; saved results give the slider their top
 * ids and relevant ranks only. With a baseline the two are compared
 * through core/compare/compare.h, and with --gate judged through core/compare/gate.h.
 *
 * Exit: 0 written (and gate passed), 1 written and the gate failed, 2 bad
 * input (nothing written).
 */
#include "builtin.h"
#include "base/config.h"
#include "resample.h"
#include "compare/compare-input.h"
#include "compare/compare.h"
#include "set/corpus.h"
#include "base/fsutil.h"
#include "compare/gate.h"
#include "report/report.h"
#include "score/results.h"
#include "score/run.h"
#include "set/set.h"
#include "base/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const report_usage[] = {
	"evalset report <set>[@<tag>] <run> [<baseline>] [--gate <file>] [-k <k>] [-o <file>]\n"
	"                     [--resamples <n>] [--permutations <n>] [--seed <s>]",
	NULL,
};

/* One input: its results and, when it was a run, the run for the slider. */
struct input {
	struct results r;
	struct run run;
	bool is_run;
};

/* Load 'path' as saved results of this very set, or score it as a run
 * against 'set', keeping the run. Return 0 or -1 (reported). */
static int load_input(struct input *in, const struct set *set, const char *path,
		      const char *what, int k)
{
	struct compare_input_opts io = { false, k, NULL, 0 };
	char digest[72];
	int got = compare_input_read(&in->r, set, path, what, &io, &in->run);

	if (got < 0)
		return -1;
	in->is_run = got == 1;
	if (in->is_run)
		return 0;
	set_digest(set, digest);
	if (!in->r.set_digest || strcmp(in->r.set_digest, digest))
		return error("%s '%s' was scored against %s (%s), not this set (%s); "
			     "rescore it", what, path, compare_version_name(in->r.set_version),
			     in->r.set_digest ? in->r.set_digest : "no digest", digest);
	return 0;
}

int cmd_report(int argc, const char **argv)
{
	const char *gate_file = NULL, *output = NULL;
	long k = LONG_MIN;  /* not given: the config's k, capped at REPORT_SLIDER_MAX */
	struct resample_opts ro = RESAMPLE_OPTS_INIT;
	struct option opts[] = {
		OPT_STRING('o', "output", &output, "file", "write the report here (default: standard output)"),
		OPT_INT('k', "k", &k, "k", "context size: marked on the curves, the slider's start (1-20, default 5)"),
		OPT_STRING(0, "gate", &gate_file, "file", "judge the comparison by this gate file (needs a baseline)"),
		OPT_RESAMPLE(&ro),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set set = SET_INIT;
	struct input cand, base;
	struct compare cmp;
	struct gate gate;
	struct gate_outcome *outcomes = NULL;
	struct compare_opts co = COMPARE_OPTS_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct report_ranking *rankings = NULL;
	const char **rank_ids = NULL;
	const char **extra = NULL;
	char (*extra_buf)[64] = NULL;
	struct report_input ri;
	struct strbuf out = STRBUF_INIT;
	char now[21], *corpus_path = NULL;
	bool have_base, have_corpus = false;
	int failed = 0, ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, report_usage);
	if (argc < 2 || argc > 3)
		usage_with_options(report_usage, opts);
	have_base = argc == 3;
	/* options first (so -h works whatever the config), then the project config:
	 * its k (capped where the slider stops) and, with a baseline, its gate */
	{
		struct config *cfg;
		if (config_use(&cfg) < 0)
			return EXIT_BAD_INPUT;
		if (k == LONG_MIN) {
			if (config_get_long(cfg, "k", "EVALSET_K", 5, 1, 100000, &k, NULL) < 0)
				return EXIT_BAD_INPUT;
			if (k > REPORT_SLIDER_MAX)
				k = REPORT_SLIDER_MAX;
		}
		if (!gate_file && have_base)
			gate_file = config_get_string(cfg, "gate", "EVALSET_GATE", NULL, NULL);
	}
	if (k < 1 || k > REPORT_SLIDER_MAX)
		die(EXIT_BAD_INPUT, "-k must be between 1 and %d, not '%ld'", REPORT_SLIDER_MAX, k);
	resample_opts_check(&ro, 10000000);
	if (gate_file && !have_base)
		die(EXIT_BAD_INPUT, "--gate needs a baseline to compare against");

	memset(&cand, 0, sizeof(cand));
	memset(&base, 0, sizeof(base));
	results_init(&cand.r);
	results_init(&base.r);
	run_init(&cand.run);
	run_init(&base.run);
	compare_init(&cmp);
	gate_init(&gate);
	if (gate_file && gate_load(&gate, gate_file) < 0)
		goto out;
	if (set_open(&set, &ref, argv[0]) < 0)
		goto out;
	if (load_input(&cand, &set, argv[1], "candidate", (int)k) < 0)
		goto out;
	if (have_base && load_input(&base, &set, argv[2], "baseline", (int)k) < 0)
		goto out;

	if (have_base) {
		extra = xcalloc(gate.nr + 1, sizeof(*extra));
		extra_buf = xcalloc(gate.nr + 1, sizeof(*extra_buf));
		for (size_t i = 0; i < gate.nr; i++)
			extra[i] = compare_input_measure(&base.r, gate.rules[i].measure, extra_buf[i]);
		co.extra = extra;
		co.nr_extra = gate.nr;
		co.k = (int)k;
		resample_opts_apply(&ro, &co);
		if (compare_run(&cmp, &base.r, &cand.r, &co) < 0)
			goto out;
		if (gate_file) {
			outcomes = xcalloc(gate.nr + 1, sizeof(*outcomes));
			failed = gate_evaluate(&gate, &cmp, outcomes);
			if (failed < 0)
				goto out;
		}
	}

	if (set.has_corpus && set.corpus.path) {
		corpus_path = set.corpus.path[0] == '/' ? xstrdup(set.corpus.path)
							: path_join(ref.dir, set.corpus.path);
		if (path_exists(corpus_path)) {
			if (corpus_load(&corpus, corpus_path) < 0)
				goto out;
			have_corpus = true;
		}
	}

	if (cand.is_run) {
		rankings = xcalloc(cand.r.nr + 1, sizeof(*rankings));
		rank_ids = xcalloc(cand.r.nr * REPORT_SLIDER_MAX + 1, sizeof(*rank_ids));
		for (size_t i = 0; i < cand.r.nr; i++) {
			const struct run_query *rq = run_find(&cand.run, cand.r.q[i].id);
			const char **ids = rank_ids + i * REPORT_SLIDER_MAX;
			size_t n = rq ? (rq->nr < REPORT_SLIDER_MAX ? rq->nr : REPORT_SLIDER_MAX) : 0;
			for (size_t j = 0; j < n; j++)
				ids[j] = rq->docs[j].id;
			rankings[i] = (struct report_ranking){ ids, n };
		}
	}

	utc_now_iso8601(now);
	memset(&ri, 0, sizeof(ri));
	ri.set = &set;
	ri.set_label = argv[0];
	ri.cand = &cand.r;
	ri.base = have_base ? &base.r : NULL;
	ri.cmp = have_base ? &cmp : NULL;
	ri.gate = gate_file ? &gate : NULL;
	ri.outcomes = outcomes;
	ri.nr_failed = failed;
	ri.cand_rankings = rankings;
	ri.corpus = have_corpus ? &corpus : NULL;
	ri.k = (int)k;
	ri.generated_at = now;
	if (report_render(&ri, &out) < 0)
		goto out;
	if (output && strcmp(output, "-")) {
		if (write_file_atomic(output, out.buf, out.len) < 0)
			goto out;
	} else if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		error("cannot write the report to standard output");
		goto out;
	}
	ret = failed ? EXIT_FAILED : EXIT_OK;
out:
	if (outcomes)
		gate_outcomes_release(outcomes, gate.nr);
	free(outcomes);
	free(extra);
	free(extra_buf);
	free(rankings);
	free(rank_ids);
	free(corpus_path);
	strbuf_release(&out);
	corpus_release(&corpus);
	compare_release(&cmp);
	gate_release(&gate);
	run_release(&cand.run);
	run_release(&base.run);
	results_release(&cand.r);
	results_release(&base.r);
	set_release(&set);
	set_ref_release(&ref);
	return ret;
}
