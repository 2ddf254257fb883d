/*
 * trec-eval: `evalset trec-eval [options] <qrels> <run>`, a drop-in for
 * trec_eval v10.0 (docs/trec-eval.md). trec_eval's options, short and
 * long, are accepted; the few it has that evalset does not do (-D, -Z, -R and
 * -T other than the default formats) are refused with a message naming them.
 */
#include "builtin.h"

#include "base/progress.h"
#include "score/qrels.h"
#include "score/run.h"
#include "score/treceval.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const trec_eval_usage[] = {
	"evalset trec-eval [-q] [-c] [-n] [-J] [-l <n>] [-M <n>] [-N <n>] [-m <measure>[.<params>]]... [--quiet] <qrels> <run>",
	NULL,
};

/* Return the size of the run 'path' ("-": standard input) when it is a regular file, else 0. */
static double run_size(const char *path)
{
	struct stat st;

	if (strcmp(path, "-") ? stat(path, &st) : fstat(STDIN_FILENO, &st))
		return 0;
	return S_ISREG(st.st_mode) ? (double)st.st_size : 0;
}

int cmd_trec_eval(int argc, const char **argv)
{
	int per_query = 0, complete = 0, judged = 0, no_summary = 0, version = 0, old_format = 0, quiet = 0;
	long level = 1, max_docs = LONG_MAX, num_docs = 0;
	const char *debug = NULL, *zscore = NULL, *rel_format = "qrels", *res_format = "trec_results";
	struct string_list measures = STRING_LIST_INIT;
	struct option opts[] = {
		OPT_BOOL('q', "query_eval_wanted", &per_query, "print every query's values, then the averages"),
		OPT_STRING_LIST('m', "measure", &measures, "measure",
				"measure or set (official, all_trec, set), as P.5,10 or ndcg.1=3,2=9 (default: official)"),
		OPT_BOOL('c', "complete_rel_info_wanted", &complete,
			 "average over every qrels query (a missing one is scored as trec_eval -c does)"),
		OPT_INT('l', "level_for_rel", &level, "n", "lowest grade counted as relevant (default 1, >= 0)"),
		OPT_BOOL('n', "nosummary", &no_summary, "print no 'all' lines"),
		OPT_BOOL('J', "Judged_docs_only", &judged, "score judged documents only"),
		OPT_INT('M', "Max_retrieved_per_topic", &max_docs, "n", "evaluate only the first n documents of each query"),
		OPT_INT('N', "Number_docs_in_coll", &num_docs, "n", "number of documents in the collection (utility)"),
		OPT_STRING('R', "Rel_info_format", &rel_format, "format", "judgments format: qrels only"),
		OPT_STRING('T', "Results_format", &res_format, "format", "run format: trec_results only"),
		OPT_BOOL('o', "Output_old_results_format", &old_format, "accepted and ignored, as in trec_eval"),
		OPT_STRING('D', "Debug_level", &debug, "n", "refused: trec_eval's debug output is not reproduced"),
		OPT_STRING('Z', "Zscore", &zscore, "file", "refused: Z scores are not supported"),
		OPT_BOOL('v', "version", &version, "print the trec_eval version this command follows"),
		OPT_BOOL(0, "quiet", &quiet, "no progress line (it is only drawn on a terminal; -q is trec_eval's)"),
		OPT_END(),
	};
	const char *threads = getenv("EVALSET_TREC_EVAL_THREADS");
	const char *simd = getenv("EVALSET_TREC_EVAL_SIMD");
	struct te_options o;
	struct qrels qr;
	struct te_output out = { 0 };
	struct progress prog = { 0 };
	int ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, trec_eval_usage);
	if (version) {
		string_list_clear(&measures);
		fprintf(stderr, "trec_eval version 10.0 (evalset trec-eval)\n");
		return EXIT_OK;
	}
	if (argc != 2) {
		string_list_clear(&measures);
		usage_with_options(trec_eval_usage, opts);
	}
	if (debug && strcmp(debug, "0")) {
		error("-D (--Debug_level) is not supported: evalset does not reproduce trec_eval's debug output");
		goto out_measures;
	}
	if (zscore) {
		error("-Z (--Zscore) is not supported: evalset does not compute trec_eval's Z scores");
		goto out_measures;
	}
	if (strcmp(rel_format, "qrels")) {
		error("-R (--Rel_info_format) '%s' is not supported: only 'qrels'", rel_format);
		goto out_measures;
	}
	if (strcmp(res_format, "trec_results")) {
		error("-T (--Results_format) '%s' is not supported: only 'trec_results'", res_format);
		goto out_measures;
	}
	if (level < 0 || level > 1000) {
		error("-l %ld: the relevance level must be within 0..1000 (trec_eval would count "
		      "unjudged documents as relevant below 0)", level);
		goto out_measures;
	}
	if (threads && *threads && strcmp(threads, "1") && strcmp(threads, "2")) {
		error("EVALSET_TREC_EVAL_THREADS='%.20s': the number of threads must be 1 or 2", threads);
		goto out_measures;
	}
	if (simd && *simd && strcmp(simd, "0") && strcmp(simd, "1")) {
		error("EVALSET_TREC_EVAL_SIMD='%.20s': must be 0 (SSE2 only) or 1 (AVX2 where the "
		      "processor has it)", simd);
		goto out_measures;
	}
	run_trec_set_simd(!simd || strcmp(simd, "0"));
	if (max_docs < 0) {
		error("-M %ld: the number of documents must be >= 0", max_docs);
		goto out_measures;
	}
	te_selection_init(&o.sel);
	o.per_query = per_query;
	o.complete = complete;
	o.judged_only = judged;
	o.no_summary = no_summary;
	o.rel_level = (int)level;
	o.max_docs = max_docs;
	o.num_docs = num_docs;
	o.threads = threads && *threads ? atoi(threads) : 0;
	for (size_t i = 0; i < measures.nr; i++)
		if (te_select(&o.sel, measures.items[i]) < 0)
			goto out_measures;
	if (!measures.nr)
		te_select(&o.sel, "official");
	string_list_clear(&measures);

	qrels_init(&qr);
	if (qrels_load(&qr, argv[0]) < 0)
		return EXIT_BAD_INPUT;
	/* the bytes of the run read (compressed ones for a gzip file): its size is the total */
	if (quiet)
		progress_silence();
	progress_begin(&prog, "trec-eval", PROGRESS_BYTES, NULL, run_size(argv[1]));
	o.progress = &prog;
	if (te_evaluate(&qr, argv[1], &o, &out) < 0) {
		progress_end(&prog);
		goto out;
	}
	progress_end(&prog);
	te_print(&out, &o, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		error("cannot write the output");
		goto out;
	}
	ret = EXIT_OK;
out:
	te_output_release(&out);
	qrels_release(&qr);
	return ret;
out_measures:
	string_list_clear(&measures);
	return EXIT_BAD_INPUT;
}
