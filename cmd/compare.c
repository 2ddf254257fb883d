/*
 * compare: the regression gate. Loads a set version, a
 * baseline and a candidate (saved results or run files), compares them
 * (core/compare/compare.h), judges the comparison by a gate file or the default gate
 * (core/compare/gate.h) and renders it (core/compare/compare-out.h).
 *
 * The baseline and the candidate come as two arguments after the set, or as
 * --baseline and --candidate (repeatable: runs of one system, averaged).
 *
 * Exit: 0 gate passed, 1 a rule failed, 2 bad input (nothing written then:
 * every check runs before the first file is written).
 */
#include "builtin.h"
#include "base/progress.h"
#include "resample.h"
#include "base/config.h"
#include "compare/compare-input.h"
#include "compare/compare-out.h"
#include "compare/compare.h"
#include "base/fsutil.h"
#include "compare/gate.h"
#include "compare/gatepower.h"
#include "score/results.h"
#include "set/set.h"
#include "base/util.h"
#include "base/table.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const compare_usage[] = {
	"evalset compare <set>@<tag> <baseline> <candidate> [--gate <file>] [-m <measure>]... [--k <k>]",
	"evalset compare <set>@<tag> --baseline <file>... --candidate <file>... [<options>]",
	"                      [--resamples <n>] [--permutations <n>] [--seed <s>] [--allow-set-change] [--allow-unrecorded]\n"
	"                      [--format text|json] [--markdown <file>] [--junit <file>] [--show <n>] [--subsets]\n"
	"                      [--baseline-corpus <file>] [--candidate-corpus <file>] [--allow-corpus-change]\n"
	"                      [--rank-by order|score] [--quiet]",
	NULL,
};

/* Refuse a gate rule whose measure 'r' (loaded from 'path') does not hold,
 * at the rule's place in the gate file. */
static int check_gate_measures(const struct gate *g, const struct results *r,
			       const char *path, const char *what)
{
	for (size_t i = 0; i < g->nr; i++) {
		char buf[64];
		const char *name = compare_input_measure(r, g->rules[i].measure, buf);
		struct strbuf has = STRBUF_INIT;

		if (!strcmp(name, COMPARE_DECLINE) || !strcmp(name, COMPARE_FALSE_DECLINE) ||
		    results_measure(r, name) >= 0)
			continue;
		for (size_t j = 0; j < r->nr_measures; j++)
			strbuf_addf(&has, "%s%s", j ? ", " : "", r->measures[j]);
		if (g->file)
			error_at(g->file, g->rules[i].line, g->rules[i].col,
				 "measure '%s' is not in the %s '%s' (it has: %s)",
				 g->rules[i].measure, what, path, has.buf);
		else
			error("measure '%s' of the default gate is not in the %s '%s' (it has: %s); "
			      "pass --k or --gate", g->rules[i].measure, what, path, has.buf);
		strbuf_release(&has);
		return -1;
	}
	return 0;
}

/* Warn, at each rule's place, about the rules of 'g' that fail at random
 * (gate_random_warning, from the baseline 'base'). */
static void warn_random_rules(const struct gate *g, const struct results *base)
{
	for (size_t i = 0; i < g->nr; i++) {
		char *w = gate_random_warning(g, i, base, 0);

		if (!w)
			continue;
		if (g->file)
			warning_at(g->file, g->rules[i].line, g->rules[i].col, "%s", w);
		else
			warning("%s", w);
		free(w);
	}
}

/* Load every file of 'files' as a run or results of one side into 'r'. */
static int load_side(struct results *r, const struct string_list *files, const struct set *set,
		     const struct set_ref *ref, const char *set_arg, const char *what,
		     const struct compare_input_opts *io, const struct gate *gate, struct strbuf *note)
{
	for (size_t i = 0; i < files->nr; i++) {
		results_init(&r[i]);
		if (compare_input_load(&r[i], set, ref, set_arg, files->items[i], what, io, note,
				       NULL) < 0 ||
		    check_gate_measures(gate, &r[i], files->items[i], what) < 0)
			return -1;
	}
	return 0;
}

static bool use_color(void)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(STDOUT_FILENO) && !(nc && *nc);
}

/* Return a warning when the runs of the baseline 'b' (nb) and candidate 'c'
 * (nc) record different query forms (docs/conversations.md), or NULL;
 * a run that records none is not compared. Caller frees. */
static char *query_form_note(const struct results *b, size_t nb, const struct results *c,
			     size_t nc)
{
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < nc; j++) {
			const char *fb = b[i].run_query_form, *fc = c[j].run_query_form;

			if (fb && fc && strcmp(fb, fc))
				return xstrfmt("the baseline '%s' was asked in query form '%s', the "
					       "candidate '%s' in '%s': the difference is the form's as "
					       "much as the retriever's (run both with one --query-form)",
					       b[i].file ? b[i].file : b[i].run_path, fb,
					       c[j].file ? c[j].file : c[j].run_path, fc);
		}
	return NULL;
}

int cmd_compare(int argc, const char **argv)
{
	const char *gate_file = NULL, *format = "text", *md_file = NULL, *junit_file = NULL;
	enum table_format fmt;
	const char *bcorpus = NULL, *ccorpus = NULL;
	struct string_list measures = STRING_LIST_INIT;
	struct string_list bfiles = STRING_LIST_INIT, cfiles = STRING_LIST_INIT;
	long k = LONG_MIN, show = 10;  /* LONG_MIN: no --k, the config says */
	struct resample_opts ro = RESAMPLE_OPTS_INIT;
	int allow = 0, allow_corpus = 0, subsets = 0, all_measures = 0, unrecorded = 0, quiet = 0;
	const char *rank_by = NULL;
	struct option opts[] = {
		OPT_STRING_LIST(0, "baseline", &bfiles, "file", "a baseline run or results (repeatable: runs of one system, averaged)"),
		OPT_STRING_LIST(0, "candidate", &cfiles, "file", "a candidate run or results (repeatable, averaged)"),
		OPT_STRING(0, "baseline-corpus", &bcorpus, "file", "the baseline runs were made on this chunking of the set's documents: judge them on it"),
		OPT_STRING(0, "candidate-corpus", &ccorpus, "file", "the candidate runs were made on this chunking: judge them on it"),
		OPT_STRING(0, "gate", &gate_file, "file", "gate file (default: R@k, Decline, FalseDecline, coverage, and no leak when the set forbids ids)"),
		OPT_STRING_LIST('m', "measure", &measures, "measure", "show this measure (repeatable; default the short table); the gate is the same whatever is shown"),
		OPT_INT(0, "k", &k, "k", "context size for lost/gained and the default gate (default 5)"),
		OPT_RESAMPLE(&ro),
		OPT_BOOL(0, "allow-set-change", &allow, "compare the unchanged questions of different set versions"),
		OPT_BOOL(0, "allow-corpus-change", &allow_corpus,
			 "accept runs made over another corpus than the set's, undeclared (docs/runs.md)"),
		OPT_BOOL(0, "allow-unrecorded", &unrecorded, "take a run that records no set (another tool's) even when the set's versions ask different questions"),
		OPT_RANK_BY(&rank_by),
		OPT_STRING(0, "format", &format, "text|json", "what stdout shows (default text)"),
		OPT_STRING(0, "markdown", &md_file, "file", "also write a Markdown summary (PR comment, step summary)"),
		OPT_STRING(0, "junit", &junit_file, "file", "also write JUnit XML, one testcase per gate rule"),
		OPT_INT(0, "show", &show, "n", "lost/gained questions listed (default 10)"),
		OPT_BOOL(0, "subsets", &subsets, "show every subset's table, not only all questions"),
		OPT_BOOL(0, "all-measures", &all_measures, "show every measure in the table, not the short one (R@k, Success@k, nDCG@10, RR, declines, the gate's)"),
		OPT_PROGRESS_QUIET(&quiet),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set set = SET_INIT;
	struct results *base = NULL, *cand = NULL;
	const struct results **bp = NULL, **cp = NULL;
	struct compare c;
	struct gate gate;
	struct gate_outcome *outcomes = NULL;
	struct compare_opts co = COMPARE_OPTS_INIT;
	struct progress prog = { 0 };
	const char **wanted = NULL;
	char **shown = NULL;
	char *form_note = NULL;
	size_t nr_wanted = 0;
	struct compare_input_opts io, bio, cio;
	struct strbuf out = STRBUF_INIT, note = STRBUF_INIT;
	struct compare_view view;
	int failed, ret = EXIT_BAD_INPUT;
	const char *gha;
	struct config *cfg;
	const char *const *cfg_measures;
	size_t nr_cfg_measures;
	struct gate_settings gs = { 0, NULL, NULL, NULL };

	/* options first (so -h works whatever the config), then project config defaults */
	argc = parse_options(argc, argv, opts, compare_usage);
	io.rank = apply_rank_by(rank_by, compare_usage, opts);
	if (config_use(&cfg) < 0 || gate_settings_resolve(k, gate_file, true, &gs) < 0) {
		gate_settings_release(&gs);
		string_list_clear(&measures);
		return EXIT_BAD_INPUT;
	}
	k = gs.k;
	gate_file = gs.gate_file;
	if (!measures.nr) {
		nr_cfg_measures = config_get_list(cfg, "measures", "EVALSET_MEASURES", &cfg_measures, NULL);
		for (size_t i = 0; i < nr_cfg_measures; i++)
			string_list_append(&measures, cfg_measures[i]);
	}
	if (bfiles.nr || cfiles.nr) {
		if (argc != 1 || !bfiles.nr || !cfiles.nr)
			die(EXIT_BAD_INPUT, "with --baseline and --candidate, give both and only the set "
			    "as an argument: evalset compare <set>@<tag> --baseline <file> --candidate <file>");
	} else if (argc == 3) {
		string_list_append(&bfiles, argv[1]);
		string_list_append(&cfiles, argv[2]);
	} else {
		usage_with_options(compare_usage, opts);
	}
	if (table_format_parse(format, "text|json", &fmt) < 0)
		exit(EXIT_BAD_INPUT);
	if (k < 1 || k > 100000)
		die(EXIT_BAD_INPUT, "--k must be between 1 and 100000, not '%ld'", k);
	resample_opts_check(&ro, 1000000);
	if (show < 0)
		die(EXIT_BAD_INPUT, "--show must be 0 or more, not '%ld'", show);

	compare_init(&c);
	gate_init(&gate);
	base = xcalloc(bfiles.nr, sizeof(*base));
	cand = xcalloc(cfiles.nr, sizeof(*cand));
	for (size_t i = 0; i < bfiles.nr; i++)
		results_init(&base[i]);
	for (size_t i = 0; i < cfiles.nr; i++)
		results_init(&cand[i]);
	if (gate_file) {
		if (gate_load(&gate, gate_file) < 0)
			goto out;
	} else {
		gate_default(&gate, (int)k);
	}
	if (set_open(&set, &ref, argv[0]) < 0)
		goto out;
	gate_default_leak(&gate, set_nr_forbidding(&set));
	/* -m takes the names gate files take: Recall@5, ndcg@10, MRR, ... */
	if (!(shown = gate_measures_canonical(measures.items, measures.nr)))
		goto out;
	wanted = xcalloc(measures.nr + gate.nr + 1, sizeof(*wanted));
	for (size_t i = 0; i < measures.nr; i++)
		wanted[nr_wanted++] = shown[i];
	for (size_t i = 0; i < gate.nr; i++)
		wanted[nr_wanted++] = gate.rules[i].measure;
	io.allow_set_change = allow;
	io.allow_unrecorded = unrecorded;
	io.k = (int)k;
	io.measures = wanted;
	io.nr_measures = nr_wanted;
	io.corpus = NULL;
	io.allow_corpus_change = allow_corpus;
	bio = cio = io;
	bio.corpus = bcorpus;
	cio.corpus = ccorpus;
	bio.corpus_option = "--baseline-corpus";
	cio.corpus_option = "--candidate-corpus";
	if (load_side(base, &bfiles, &set, &ref, argv[0], "baseline", &bio, &gate, &note) < 0 ||
	    load_side(cand, &cfiles, &set, &ref, argv[0], "candidate", &cio, &gate, &note) < 0 ||
	    compare_inputs_distinct(base, (const char *const *)bfiles.items, bfiles.nr, cand,
				    (const char *const *)cfiles.items, cfiles.nr, &note) < 0)
		goto out;

	warn_random_rules(&gate, &base[0]);
	bp = xcalloc(bfiles.nr, sizeof(*bp));
	cp = xcalloc(cfiles.nr, sizeof(*cp));
	for (size_t i = 0; i < bfiles.nr; i++)
		bp[i] = &base[i];
	for (size_t i = 0; i < cfiles.nr; i++)
		cp[i] = &cand[i];
	co.measures = (const char *const *)shown;
	co.nr_measures = measures.nr;
	co.gate = &gate;
	co.k = (int)k;
	resample_opts_apply(&ro, &co);
	co.allow_set_change = allow;
	if (quiet)
		progress_silence();
	progress_begin(&prog, "compare", PROGRESS_COUNT, "", 0);
	co.progress = &prog;
	ret = compare_run(&c, bp, bfiles.nr, cp, cfiles.nr, &co);
	progress_end(&prog);
	if (ret < 0) {
		ret = EXIT_BAD_INPUT;
		goto out;
	}
	ret = EXIT_BAD_INPUT;
	outcomes = xcalloc(GATE_OUTCOMES(&gate), sizeof(*outcomes));
	failed = gate_evaluate(&gate, &c, outcomes);
	if (failed < 0)
		goto out;

	/* runs asked in different query forms compare the forms, not only the retrievers */
	form_note = query_form_note(base, bfiles.nr, cand, cfiles.nr);
	if (form_note)
		warning("%s", form_note);

	memset(&view, 0, sizeof(view));
	view.form_note = form_note;
	view.c = &c;
	view.set_label = argv[0];
	view.set_note = note.len ? note.buf : NULL;
	view.gate = &gate;
	view.gate_source = gs.gate_source;
	view.k_source = gs.k_source;
	view.outcomes = outcomes;
	view.nr_failed = failed;
	view.show = show;
	view.all_subsets = subsets;
	view.all_measures = all_measures || measures.nr;
	view.color = fmt == TABLE_TEXT && use_color();

	if (md_file) {
		compare_render_markdown(&view, &out);
		if (write_file_atomic(md_file, out.buf, out.len) < 0)
			goto out;
		strbuf_reset(&out);
	}
	if (junit_file) {
		compare_render_junit(&view, &out);
		if (write_file_atomic(junit_file, out.buf, out.len) < 0)
			goto out;
		strbuf_reset(&out);
	}
	if (fmt == TABLE_JSON)
		compare_render_json(&view, &out);
	else
		compare_render_text(&view, &out);
	gha = getenv("GITHUB_ACTIONS");
	if (gha && !strcmp(gha, "true")) {
		/* Workflow commands go to stdout, where the runner reads them;
		 * with --format json they go to stderr so stdout stays JSON. */
		struct strbuf ann = STRBUF_INIT;

		compare_render_annotations(&view, &ann);
		if (fmt == TABLE_JSON)
			fputs(ann.buf, stderr);
		else
			strbuf_addstr(&out, ann.buf);
		strbuf_release(&ann);
	}
	if (write_stdout(out.buf, out.len) < 0)
		goto out;
	ret = failed ? EXIT_FAILED : EXIT_OK;
out:
	free(form_note);
	if (outcomes)
		gate_outcomes_release(outcomes, GATE_OUTCOMES(&gate));
	free(wanted);
	gate_measures_free(shown);
	free(outcomes);
	free(bp);
	free(cp);
	strbuf_release(&out);
	strbuf_release(&note);
	compare_release(&c);
	gate_release(&gate);
	for (size_t i = 0; i < bfiles.nr; i++)
		results_release(&base[i]);
	for (size_t i = 0; i < cfiles.nr; i++)
		results_release(&cand[i]);
	free(base);
	free(cand);
	set_release(&set);
	set_ref_release(&ref);
	string_list_clear(&measures);
	string_list_clear(&bfiles);
	string_list_clear(&cfiles);
	gate_settings_release(&gs);
	return ret;
}
