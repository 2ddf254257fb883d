/*
 * trec-eval: `evalset trec-eval [-q] [-c] [-J] [-l <n>] [-M <n>] [-m <measure>]... <qrels> <run>`,
 * a drop-in for trec_eval v10.0 (docs/measures.md).
 */
#include "builtin.h"

#include "score/qrels.h"
#include "score/treceval.h"

#include <stdio.h>

static const char *const trec_eval_usage[] = {
	"evalset trec-eval [-q] [-c] [-J] [-l <n>] [-M <n>] [-m <measure>[.<k>,<k>...]]... <qrels> <run>",
	NULL,
};

int cmd_trec_eval(int argc, const char **argv)
{
	int per_query = 0, complete = 0, judged = 0;
	long level = 1, max_docs = 0;
	struct string_list measures = STRING_LIST_INIT;
	struct option opts[] = {
		OPT_BOOL('q', NULL, &per_query, "print every query's values, then the averages"),
		OPT_BOOL('c', NULL, &complete, "average over every qrels query (missing ones count as zero)"),
		OPT_BOOL('J', NULL, &judged, "score judged documents only"),
		OPT_INT('l', NULL, &level, "n", "lowest grade counted as relevant (default 1)"),
		OPT_INT('M', NULL, &max_docs, "n", "evaluate only the first n documents of each query"),
		OPT_STRING_LIST('m', NULL, &measures, "measure", "measure, as P.5,10 or ndcg_cut.10 (default: official)"),
		OPT_END(),
	};
	struct te_options o;
	struct qrels qr;
	struct te_output out = { 0 };
	int ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, trec_eval_usage);
	if (argc != 2) {
		string_list_clear(&measures);
		usage_with_options(trec_eval_usage, opts);
	}
	if (max_docs < 0 || level < -1000 || level > 1000) {
		string_list_clear(&measures);
		die(EXIT_BAD_INPUT, "-M must be >= 0 and -l within -1000..1000");
	}
	te_selection_init(&o.sel);
	o.per_query = per_query;
	o.complete = complete;
	o.judged_only = judged;
	o.rel_level = (int)level;
	o.max_docs = max_docs;
	for (size_t i = 0; i < measures.nr; i++) {
		if (te_select(&o.sel, measures.items[i]) < 0) {
			string_list_clear(&measures);
			return EXIT_BAD_INPUT;
		}
	}
	if (!measures.nr)
		te_select(&o.sel, "official");
	string_list_clear(&measures);

	qrels_init(&qr);
	if (qrels_load(&qr, argv[0]) < 0)
		return EXIT_BAD_INPUT;
	if (te_evaluate(&qr, argv[1], &o, &out) < 0)
		goto out;
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
}
