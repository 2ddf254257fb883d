/*
 * power: how small a change a set can detect (docs/compare.md). From one
 * result, the per-question spread of each measure; from two, the spread of
 * their paired deltas. Prints the minimum
 * detectable effect at alpha 0.05 and power 0.8 for the set's size, and the
 * set size needed to detect --effect.
 */
#include "builtin.h"
#include "compare/compare-input.h"
#include "compare/compare.h"
#include "compare/gate.h"
#include "compare/gatepower.h"
#include "base/jsontree.h"
#include "base/progress.h"
#include "score/results.h"
#include "set/set.h"
#include "base/table.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const power_usage[] = {
	"evalset power <set>@<tag> <results> [<results>] [-m <measure>]... [--effect <e>] [--allow-set-change]\n"
	"                    [--allow-corpus-change] [--rank-by order|score] [--format text|json]",
	"evalset power <set>@<tag> <baseline> --gate <file> [--simulations <n>] [--churn <c>]\n"
	"                    [--permutations <n>] [--seed <s>] [--rank-by order|score] [--format text|json] [--quiet]",
	NULL,
};

static const double gate_drops[] = { 0.01, 0.02, 0.03, 0.05, 0.10 };
static const char *const gate_drop_names[] = { "1 pt", "2 pts", "3 pts", "5 pts", "10 pts" };

/* Add the share of simulations in which the rule (or, with 'gate', the
 * gate) fails, ± its standard error; no value when it was not simulated. */
static void add_rate(struct table *t, const struct gate_power_cell *c, bool gate)
{
	if (isnan(c->rate))
		table_add(t, NULL);
	else
		table_addf(t, "%.2f±%.2f", gate ? c->gate_rate : c->rate, gate ? c->gate_se : c->se);
}

/* Print the simulated power of every rule of 'gate' from the baseline 'path',
 * and the questions each rule needs (gate_rule_size) at each drop. */
static int power_gate(const struct set *set, const struct set_ref *ref, const char *set_arg,
		      const char *path, const char *gate_file, long sims, double churn, long perms,
		      long seed, bool json, enum run_rank rank, bool unrecorded)
{
	enum { D = ARRAY_SIZE(gate_drops) };
	struct gate g;
	struct results base, scratch;
	struct compare_input_opts io = { .k = 5, .rank = rank, .allow_unrecorded = unrecorded };
	struct strbuf note = STRBUF_INIT;
	struct gate_power_opts po = { gate_drops, D, sims, perms, churn, (uint64_t)seed, NULL };
	struct gate_power_cell *cells = NULL;
	struct progress prog;
	struct gate_size *sizes = NULL;
	const char **wanted = NULL;
	struct table t;
	int ret = EXIT_BAD_INPUT;

	gate_init(&g);
	results_init(&base);
	results_init(&scratch);
	if (gate_load(&g, gate_file) < 0)
		goto out;
	wanted = xcalloc(g.nr + 1, sizeof(*wanted));
	for (size_t i = 0; i < g.nr; i++)
		wanted[i] = g.rules[i].measure;
	io.measures = wanted;
	io.nr_measures = g.nr;
	if (compare_input_load(&base, set, ref, set_arg, path, "baseline", &io, &note, NULL) < 0 ||
	    compare_input_load(&scratch, set, ref, set_arg, path, "baseline", &io, &note, NULL) < 0)
		goto out;
	cells = xcalloc(g.nr * D + 1, sizeof(*cells));
	sizes = xcalloc(g.nr * D + 1, sizeof(*sizes));
	for (size_t r = 0; r < g.nr; r++)
		for (size_t k = 0; k < D; k++)
			if (gate_rule_size(&g, r, &base, churn, gate_drops[k], 0.8, &sizes[r * D + k]) < 0)
				goto out;
	progress_begin(&prog, "power", PROGRESS_COUNT, "draws", (double)(g.nr * D) * (double)sims);
	po.progress = &prog;
	if (gate_power(&g, &base, &scratch, &po, cells) < 0) {
		progress_end(&prog);
		goto out;
	}
	progress_end(&prog);
	if (json) {
		cJSON *root = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(root, "rules");

		cJSON_AddStringToObject(root, "set", set_arg);
		cJSON_AddStringToObject(root, "gate", gate_file);
		cJSON_AddNumberToObject(root, "simulations", (double)sims);
		cJSON_AddNumberToObject(root, "churn", churn);
		cJSON_AddStringToObject(root, "model", churn > 0 ? "two-way" : "one-way");
		cJSON_AddNumberToObject(root, "power", 0.8);
		for (size_t r = 0; r < g.nr; r++) {
			cJSON *o = cJSON_CreateObject(), *d = cJSON_AddArrayToObject(o, "detection");
			char *desc = gate_rule_describe(&g.rules[r]);

			cJSON_AddStringToObject(o, "rule", desc);
			cJSON_AddNumberToObject(o, "n", (double)sizes[r * D].n);
			for (size_t k = 0; k < D; k++) {
				const struct gate_power_cell *c = &cells[r * D + k];
				const struct gate_size *z = &sizes[r * D + k];
				cJSON *e = cJSON_CreateObject();

				cJSON_AddNumberToObject(e, "drop", gate_drops[k]);
				if (isnan(c->rate)) {
					cJSON_AddNullToObject(e, "rate");
				} else {
					cJSON_AddNumberToObject(e, "rate", c->rate);
					cJSON_AddNumberToObject(e, "se", c->se);
					cJSON_AddNumberToObject(e, "gate_rate", c->gate_rate);
					cJSON_AddNumberToObject(e, "gate_se", c->gate_se);
				}
				json_add_num_or_null(e, "predicted", z->power_now);
				if (z->needed > 0)
					cJSON_AddNumberToObject(e, "needed", (double)z->needed);
				else
					cJSON_AddNullToObject(e, "needed");
				cJSON_AddItemToArray(d, e);
			}
			cJSON_AddItemToArray(a, o);
			free(desc);
		}
		if (json_print_tree(root, true) < 0)
			goto out;
	} else {
		if (note.len)
			printf("WARNING: %s\n", note.buf);
		char *model = churn > 0
			? xstrfmt("two-way (churn %g: besides the drop, that much of the value moves,\n"
				  "half up and half down; --churn 0 for a candidate that only loses)", churn)
			: xstrdup("one-way (the candidate only loses; --churn 0.05 for two-way changes)");

		printf("power of %s from %s: for each rule, %ld simulated candidates at a true drop of\n"
		       "1, 2, 3, 5 and 10 points in the rule's measure, whole questions moving, %s;\n"
		       "the share in which the rule fails, then the gate (any rule), ± one standard error;\n"
		       "then the questions the rule needs to fail 80%% of the time (see docs/compare.md)\n\n",
		       gate_file, path, sims, model);
		free(model);
		table_init(&t, TABLE_TEXT);
		t.indent = "  ";
		t.sep = " ";
		table_add_column(&t, "rule", 0, 44, 0);
		for (size_t k = 0; k < D; k++)
			table_add_column(&t, gate_drop_names[k], TABLE_RIGHT, 10, 0);
		table_add_column(&t, "", 0, 0, 0)->sep = "   ";
		for (size_t r = 0; r < g.nr; r++) {
			char *desc = gate_rule_describe(&g.rules[r]);
			const struct gate_power_cell *c = &cells[r * D];
			const struct gate_size *z = &sizes[r * D];

			/* three lines a rule: the rule fails, the gate fails, the questions needed */
			table_add(&t, desc);
			for (size_t k = 0; k < D; k++)
				add_rate(&t, &c[k], false);
			table_add(&t, "");
			table_add(&t, "  the gate fails");
			for (size_t k = 0; k < D; k++)
				add_rate(&t, &c[k], true);
			table_add(&t, "");
			table_add(&t, g.rules[r].test == TEST_NONINF
				  ? "  questions to pass at no drop, 80%" : "  questions for 80%");
			for (size_t k = 0; k < D; k++)
				if (z[k].needed > 0)
					table_addf(&t, "%ld", z[k].needed);
				else
					table_add(&t, NULL);
			table_addf(&t, "(has %zu)", z[0].n);
			free(desc);
		}
		print_table(&t);
	}
	ret = EXIT_OK;
out:
	free(cells);
	free(sizes);
	free(wanted);
	strbuf_release(&note);
	results_release(&base);
	results_release(&scratch);
	gate_release(&g);
	return ret;
}

int cmd_power(int argc, const char **argv)
{
	struct string_list measures = STRING_LIST_INIT;
	char **canon = NULL;
	double effect = 0.02;
	const char *format = "text", *gate_file = NULL;
	enum table_format fmt;
	long sims = 200, perms = 1000, seed = 1;
	double churn = 0.05;
	int allow = 0, allow_corpus = 0, unrecorded = 0, quiet = 0;
	const char *rank_by = NULL;
	enum run_rank rank;
	struct option opts[] = {
		OPT_STRING(0, "gate", &gate_file, "file", "simulate the detection rate of each rule of this gate"),
		OPT_INT(0, "simulations", &sims, "n", "with --gate: candidates per rule and drop (default 200)"),
		OPT_DOUBLE(0, "churn", &churn, "c", "with --gate: share of value moving either way (default 0.05)"),
		OPT_INT(0, "permutations", &perms, "n", "with --gate: sign flips per test when not exact (default 1000)"),
		OPT_INT(0, "seed", &seed, "s", "with --gate: simulation seed (default 1)"),
		OPT_STRING_LIST('m', "measure", &measures, "measure", "measure to estimate (repeatable; default all)"),
		OPT_DOUBLE(0, "effect", &effect, "e", "effect to size the set for (default 0.02)"),
		OPT_BOOL(0, "allow-set-change", &allow, "accept results scored on another set version"),
		OPT_BOOL(0, "allow-corpus-change", &allow_corpus,
			 "accept runs made over another corpus than the set's (docs/runs.md)"),
		OPT_BOOL(0, "allow-unrecorded", &unrecorded, "take a run that records no set (another tool's) even when the set's versions ask different questions"),
		OPT_RANK_BY(&rank_by),
		OPT_STRING(0, "format", &format, "text|json", "output format (default text)"),
		OPT_PROGRESS_QUIET(&quiet),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set set = SET_INIT;
	struct results r[2];
	struct strbuf note = STRBUF_INIT;
	struct compare_input_opts io;
	struct power_estimate *pe = NULL;
	const char **names = NULL;
	size_t nr = 0;
	struct table t;
	bool two;
	int ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, power_usage);
	rank = apply_rank_by(rank_by, power_usage, opts);
	if (quiet)
		progress_silence();
	if (argc < 2 || argc > 3)
		usage_with_options(power_usage, opts);
	if (!(effect > 0 && effect <= 1))
		die(EXIT_BAD_INPUT, "--effect must be above 0 and at most 1, not '%g'", effect);
	if (table_format_parse(format, "text|json", &fmt) < 0)
		exit(EXIT_BAD_INPUT);
	two = argc == 3;
	results_init(&r[0]);
	results_init(&r[1]);
	if (gate_file && (two || sims < 1 || sims > 100000 || perms < 1 || perms > 1000000 ||
			  seed < 0 || !(churn >= 0 && churn <= 1)))
		die(EXIT_BAD_INPUT, "--gate takes one baseline; --simulations 1..100000, --permutations "
		    "1..1000000, --seed 0 or more, --churn in [0, 1]");
	if (set_open(&set, &ref, argv[0]) < 0)
		goto out;
	if (gate_file) {
		ret = power_gate(&set, &ref, argv[0], argv[1], gate_file, sims, churn, perms, seed,
				 fmt == TABLE_JSON, rank, unrecorded);
		goto out;
	}
	io.allow_set_change = allow;
	io.allow_unrecorded = unrecorded;
	io.k = 5;
	/* -m takes the names gate files take: Recall@5, ndcg@10, MRR, ... */
	if (!(canon = gate_measures_canonical(measures.items, measures.nr)))
		goto out;
	io.measures = (const char *const *)canon;
	io.nr_measures = measures.nr;
	io.corpus = NULL;
	io.rank = rank;
	io.allow_corpus_change = allow_corpus;
	io.corpus_option = NULL;
	if (compare_input_load(&r[0], &set, &ref, argv[0], argv[1], two ? "baseline" : "results", &io, &note, NULL) < 0)
		goto out;
	if (two && compare_input_load(&r[1], &set, &ref, argv[0], argv[2], "candidate", &io, &note, NULL) < 0)
		goto out;

	names = xcalloc(r[0].nr_measures + measures.nr + 2, sizeof(*names));
	if (measures.nr) {
		for (size_t i = 0; i < measures.nr; i++)
			names[nr++] = canon[i];
	} else {
		for (size_t i = 0; i < r[0].nr_measures; i++)
			names[nr++] = r[0].measures[i];
		if (r[0].nr_unanswerable > 0)
			names[nr++] = COMPARE_DECLINE;
	}
	pe = xcalloc(nr + 1, sizeof(*pe));
	for (size_t i = 0; i < nr; i++)
		if (power_estimate(&r[0], two ? &r[1] : NULL, names[i], effect, &pe[i]) < 0)
			goto out;

	if (fmt == TABLE_JSON) {
		cJSON *root = cJSON_CreateObject(), *a;

		cJSON_AddStringToObject(root, "set", argv[0]);
		cJSON_AddBoolToObject(root, "paired", two);
		cJSON_AddNumberToObject(root, "alpha", 0.05);
		cJSON_AddNumberToObject(root, "power", 0.8);
		cJSON_AddNumberToObject(root, "effect", effect);
		if (note.len)
			cJSON_AddStringToObject(root, "set_note", note.buf);
		a = cJSON_AddArrayToObject(root, "measures");
		for (size_t i = 0; i < nr; i++) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "measure", names[i]);
			cJSON_AddNumberToObject(o, "n", (double)pe[i].n);
			cJSON_AddNumberToObject(o, "sd", pe[i].sd);
			cJSON_AddNumberToObject(o, "mde", pe[i].mde);
			if (pe[i].needed > 0)
				cJSON_AddNumberToObject(o, "needed", (double)pe[i].needed);
			else
				cJSON_AddNullToObject(o, "needed");
			cJSON_AddItemToArray(a, o);
		}
		if (json_print_tree(root, true) < 0)
			goto out;
	} else {
		if (note.len)
			printf("WARNING: %s\n", note.buf);
		if (two)
			printf("power of %s from the paired deltas %s -> %s\n", argv[0], argv[1], argv[2]);
		else
			printf("power of %s from the per-question spread of %s\n"
			       "(assumes two systems' scores correlate at 0.5, so the sd of their deltas equals this sd;\n"
			       " give two results for the measured spread of a real change)\n",
			       argv[0], argv[1]);
		printf("alpha 0.05 two-sided, power 0.8; MDE: smallest mean change detected 80%% of the time\n\n");
		table_init(&t, TABLE_TEXT);
		t.indent = "  ";
		t.sep = " ";
		table_add_column(&t, "measure", 0, 12, 0);
		table_add_column(&t, "n", TABLE_RIGHT, 6, 0);
		table_add_column(&t, "sd", TABLE_RIGHT, 8, 0);
		table_add_column(&t, "MDE", TABLE_RIGHT, 8, 0);
		table_add_column(&t, "set size for --effect", 0, 0, 0)->sep = "  ";
		for (size_t i = 0; i < nr; i++) {
			table_add(&t, names[i]);
			table_addf(&t, "%zu", pe[i].n);
			table_addf(&t, "%.4f", pe[i].sd);
			table_addf(&t, "%.4f", pe[i].mde);
			if (pe[i].needed > 0)
				table_addf(&t, "%ld questions to detect %g%s", pe[i].needed, effect,
					   (size_t)pe[i].needed <= pe[i].n ? " (the set is large enough)" : "");
			else
				table_add(&t, "no spread: any change is a real one");
		}
		print_table(&t);
	}
	ret = EXIT_OK;
out:
	free(pe);
	free(names);
	strbuf_release(&note);
	results_release(&r[0]);
	results_release(&r[1]);
	set_release(&set);
	set_ref_release(&ref);
	string_list_clear(&measures);
	gate_measures_free(canon);
	return ret;
}
