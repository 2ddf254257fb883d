/*
 * report: write the self-contained HTML report of a candidate run, with an
 * optional baseline and gate (docs/report.md). Arguments in compare's order:
 * <set> [<baseline>] <candidate>, or --baseline / --candidate. With a
 * baseline the comparison is judged by --gate or the default gate, the
 * verdict is printed and the exit code is compare's.
 *
 * Inputs are runs or saved results: a run is scored through
 * the same path as compare's, with score's default measures (so the page shows what
 * `evalset score --format json` prints) and is also kept for its top 20
 * ids, which the k slider needs; saved results give the slider their top
 * ids and relevant ranks only. With a baseline the two are compared
 * as `evalset compare` does, and with --gate judged by the gate file.
 *
 * Exit: 0 written (and gate passed), 1 written and the gate failed, 2 bad
 * input (nothing written).
 */
#include "builtin.h"
#include "base/progress.h"
#include "base/config.h"
#include "resample.h"
#include "compare/compare-input.h"
#include "compare/compare.h"
#include "compare/compare-out.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
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
#include <unistd.h>

static const char *const report_usage[] = {
	"evalset report <set>[@<tag>] [<baseline>] <candidate> [--gate <file>] [-k <k>] [-o <file>]",
	"evalset report <set>[@<tag>] [--baseline <file>] --candidate <file> [<options>]",
	"                     [--resamples <n>] [--permutations <n>] [--seed <s>] [--allow-set-change]\n"
	"                     [--allow-corpus-change] [--allow-unrecorded] [--rank-by order|score] [--quiet]",
	NULL,
};

/* One input: its results and, when it was a run, the run for the slider. */
struct input {
	struct results r;
	struct run run;
	bool is_run;
};

/* Load 'path' as saved results of this very set, or as a run bound to it
 * and scored against it (with the 'nr' measures 'measures' beside score's
 * defaults), keeping the run. Return 0 or -1 (reported). */
static int load_input(struct input *in, const struct set *set, const struct set_ref *ref,
		      const char *set_arg, const char *path, const char *what, int k, bool allow,
		      bool allow_corpus, bool unrecorded, enum run_rank rank,
		      const char *const *measures, size_t nr, struct strbuf *note)
{
	struct compare_input_opts io = { .allow_set_change = allow, .allow_unrecorded = unrecorded,
					 .k = k, .rank = rank, .allow_corpus_change = allow_corpus,
					 .measures = measures, .nr_measures = nr };
	int got = compare_input_load(&in->r, set, ref, set_arg, path, what, &io, note, &in->run);

	if (got < 0)
		return -1;
	in->is_run = got == 1;
	return 0;
}

/* True when 'path' (NULL: none) is a run, not saved results, whose
 * questions give an agent's calls (docs/agents.md). Problems are left to
 * load_input to report. */
static bool run_has_calls(const char *path)
{
	report_fn was = get_error_routine();
	struct run r;
	bool yes;

	/* standard input cannot be read twice */
	if (!path || !strcmp(path, "-") || results_is_file(path))
		return false;
	run_init(&r);
	set_error_routine(report_nothing);
	yes = run_load(&r, path) == 0 && r.has_calls;
	set_error_routine(was);
	run_release(&r);
	return yes;
}

int cmd_report(int argc, const char **argv)
{
	const char *gate_file = NULL, *output = NULL;
	const char *base_file = NULL, *cand_file = NULL;
	long k = LONG_MIN;  /* not given: the config's k, capped at REPORT_SLIDER_MAX */
	struct resample_opts ro = RESAMPLE_OPTS_INIT;
	int allow = 0, allow_corpus = 0, unrecorded = 0, quiet = 0;
	const char *rank_by = NULL;
	enum run_rank rank;
	struct option opts[] = {
		OPT_STRING(0, "baseline", &base_file, "file", "the baseline run or results"),
		OPT_STRING(0, "candidate", &cand_file, "file", "the candidate run or results"),
		OPT_STRING('o', "output", &output, "file", "write the report here (default: standard output, unless a terminal)"),
		OPT_INT('k', "k", &k, "k", "context size: marked on the curves, the slider's start (1-20, default 5)"),
		OPT_STRING(0, "gate", &gate_file, "file", "judge the comparison by this gate file (needs a baseline)"),
		OPT_RESAMPLE(&ro),
		OPT_BOOL(0, "allow-set-change", &allow, "compare the unchanged questions of different set versions"),
		OPT_BOOL(0, "allow-corpus-change", &allow_corpus,
			 "accept runs made over another corpus than the set's (docs/runs.md)"),
		OPT_BOOL(0, "allow-unrecorded", &unrecorded, "take a run that records no set (another tool's) even when the set's versions ask different questions"),
		OPT_RANK_BY(&rank_by),
		OPT_PROGRESS_QUIET(&quiet),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set set = SET_INIT;
	struct input cand, base;
	struct compare cmp;
	struct gate gate;
	struct gate_outcome *outcomes = NULL;
	struct compare_opts co = COMPARE_OPTS_INIT;
	struct progress prog = { 0 };
	struct corpus corpus = CORPUS_INIT;
	struct report_ranking *rankings = NULL;
	const char **rank_ids = NULL;
	struct report_input ri;
	struct strbuf out = STRBUF_INIT, note = STRBUF_INIT;
	struct gate_settings gs = { 0, NULL, NULL, NULL };
	struct string_list measures = STRING_LIST_INIT;  /* borrowed names */
	char doc_r[32], doc_success[32], first_r[32];
	const struct results *bp[1], *cp[1];
	char now[21], *corpus_path = NULL;
	bool have_base, have_corpus = false;
	int failed = 0, ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, report_usage);
	rank = apply_rank_by(rank_by, report_usage, opts);
	if (base_file || cand_file) {
		if (argc != 1 || !cand_file)
			die(EXIT_BAD_INPUT, "with --candidate (and --baseline), give only the set as an "
			    "argument: evalset report <set> [--baseline <file>] --candidate <file>");
	} else if (argc == 2) {
		cand_file = argv[1];
	} else if (argc == 3) {
		/* the order of compare: baseline, then candidate */
		base_file = argv[1];
		cand_file = argv[2];
	} else {
		usage_with_options(report_usage, opts);
	}
	if (!output && isatty(STDOUT_FILENO))
		die(EXIT_BAD_INPUT, "the report is an HTML page: give -o <file.html> "
		    "(or redirect standard output, or -o - to print it here anyway)");
	have_base = base_file != NULL;
	/* options first (so -h works whatever the config), then the project config:
	 * its k (capped where the slider stops) and, with a baseline, its gate */
	{
		bool k_given = k != LONG_MIN;

		if (gate_settings_resolve(k, gate_file, have_base, &gs) < 0) {
			gate_settings_release(&gs);
			return EXIT_BAD_INPUT;
		}
		k = gs.k;
		if (!k_given && k > REPORT_SLIDER_MAX)
			k = REPORT_SLIDER_MAX;
		gate_file = gs.gate_file;
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
	if (!gate_file && have_base)
		gate_default(&gate, (int)k);
	if (set_open(&set, &ref, argv[0]) < 0)
		goto out;
	if (have_base)
		gate_default_leak(&gate, set_nr_forbidding(&set));
	if ((corpus_path = set_corpus_path(&set, ref.dir))) {
		if (path_exists(corpus_path)) {
			if (corpus_load(&corpus, corpus_path) < 0)
				goto out;
			have_corpus = true;
		}
	}
	/* a run is scored with the gate's measures too, and, when the corpus
	 * has documents, the document-level ones (docs/report.md) */
	for (size_t i = 0; i < gate.nr; i++)
		string_list_append(&measures, gate.rules[i].measure);
	if (have_corpus && corpus_has_documents(&corpus)) {
		snprintf(doc_r, sizeof(doc_r), "DocR@%ld", k);
		snprintf(doc_success, sizeof(doc_success), "DocSuccess@%ld", k);
		string_list_append(&measures, doc_r);
		string_list_append(&measures, doc_success);
		string_list_append(&measures, "DocnDCG@10");
	}
	/* an agent's run: first-call recall and the calls made beside the final recall */
	if (run_has_calls(cand_file) || (have_base && run_has_calls(base_file))) {
		snprintf(first_r, sizeof(first_r), "FirstR@%ld", k);
		string_list_append(&measures, first_r);
		string_list_append(&measures, "CallSuccess@1");
		string_list_append(&measures, "Calls");
	}
	if (have_base && load_input(&base, &set, &ref, argv[0], base_file, "baseline", (int)k,
				    allow, allow_corpus, unrecorded, rank,
				    (const char *const *)measures.items, measures.nr, &note) < 0)
		goto out;
	if (load_input(&cand, &set, &ref, argv[0], cand_file, "candidate", (int)k, allow,
		       allow_corpus, unrecorded, rank, (const char *const *)measures.items,
		       measures.nr, &note) < 0)
		goto out;
	if (have_base && compare_inputs_distinct(&base.r, &base_file, 1, &cand.r, &cand_file, 1,
						 &note) < 0)
		goto out;

	if (have_base) {
		bp[0] = &base.r;
		cp[0] = &cand.r;
		co.gate = &gate;
		co.k = (int)k;
		co.allow_set_change = allow;
		resample_opts_apply(&ro, &co);
		if (quiet)
			progress_silence();
		progress_begin(&prog, "report", PROGRESS_COUNT, "", 0);
		co.progress = &prog;
		failed = compare_run(&cmp, bp, 1, cp, 1, &co);
		progress_end(&prog);
		if (failed < 0)
			goto out;
		outcomes = xcalloc(GATE_OUTCOMES(&gate), sizeof(*outcomes));
		failed = gate_evaluate(&gate, &cmp, outcomes);
		if (failed < 0)
			goto out;
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
	ri.gate = have_base ? &gate : NULL;
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
	} else if (write_stdout(out.buf, out.len) < 0) {
		goto out;
	}
	if (have_base) {
		/* the verdict, as compare prints it: on stdout when the page went
		 * to a file, else on stderr so stdout stays HTML */
		struct compare_view view;
		char *verdict;

		memset(&view, 0, sizeof(view));
		view.c = &cmp;
		view.gate = &gate;
		view.gate_source = gs.gate_source;
		view.k_source = gs.k_source;
		view.outcomes = outcomes;
		view.nr_failed = failed;
		verdict = compare_verdict(&view);
		fprintf(output && strcmp(output, "-") ? stdout : stderr, "%s\n", verdict);
		for (size_t i = 0; i < GATE_OUTCOMES(&gate); i++) {
			char *line;

			if (outcomes[i].pass)
				continue;
			line = gate_outcome_line(&outcomes[i]);
			fprintf(output && strcmp(output, "-") ? stdout : stderr, "  %s\n", line);
			free(line);
		}
		if (note.len)
			warning("%s", note.buf);
		free(verdict);
	}
	ret = failed ? EXIT_FAILED : EXIT_OK;
out:
	gate_settings_release(&gs);
	string_list_clear(&measures);
	if (outcomes)
		gate_outcomes_release(outcomes, GATE_OUTCOMES(&gate));
	free(outcomes);
	strbuf_release(&note);
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
