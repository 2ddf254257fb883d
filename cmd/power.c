/*
 * power: how small a change a set can detect (SPEC section 5). From one
 * result, the per-question spread of each measure; from two, the spread of
 * their paired deltas (core/compare/compare.h, power_estimate). Prints the minimum
 * detectable effect at alpha 0.05 and power 0.8 for the set's size, and the
 * set size needed to detect --effect.
 */
#include "builtin.h"
#include "compare/compare-input.h"
#include "compare/compare.h"
#include "score/results.h"
#include "set/set.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const power_usage[] = {
	"evalset power <set>@<tag> <results> [<results>] [-m <measure>]... [--effect <e>] [--allow-set-change]\n"
	"                    [--format text|json]",
	NULL,
};

int cmd_power(int argc, const char **argv)
{
	struct string_list measures = STRING_LIST_INIT;
	double effect = 0.02;
	const char *format = "text";
	int allow = 0;
	struct option opts[] = {
		OPT_STRING_LIST('m', "measure", &measures, "measure", "measure to estimate (repeatable; default all)"),
		OPT_DOUBLE(0, "effect", &effect, "e", "effect to size the set for (default 0.02)"),
		OPT_BOOL(0, "allow-set-change", &allow, "accept results scored on another set version"),
		OPT_STRING(0, "format", &format, "text|json", "output format (default text)"),
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
	bool two;
	int ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, power_usage);
	if (argc < 2 || argc > 3)
		usage_with_options(power_usage, opts);
	if (!(effect > 0 && effect <= 1))
		die(EXIT_BAD_INPUT, "--effect must be above 0 and at most 1, not '%g'", effect);
	if (strcmp(format, "text") && strcmp(format, "json"))
		die(EXIT_BAD_INPUT, "unknown format '%s' (text or json)", format);
	two = argc == 3;
	results_init(&r[0]);
	results_init(&r[1]);
	if (set_open(&set, &ref, argv[0]) < 0)
		goto out;
	io.allow_set_change = allow;
	io.k = 5;
	io.measures = measures.items;
	io.nr_measures = measures.nr;
	if (compare_input_load(&r[0], &set, &ref, argv[0], argv[1], two ? "baseline" : "results", &io, &note, NULL) < 0)
		goto out;
	if (two && compare_input_load(&r[1], &set, &ref, argv[0], argv[2], "candidate", &io, &note, NULL) < 0)
		goto out;

	names = xcalloc(r[0].nr_measures + measures.nr + 2, sizeof(*names));
	if (measures.nr) {
		for (size_t i = 0; i < measures.nr; i++)
			names[nr++] = measures.items[i];
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

	if (!strcmp(format, "json")) {
		cJSON *root = cJSON_CreateObject(), *a;
		char *text;

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
		text = cJSON_Print(root);
		printf("%s\n", text);
		cJSON_free(text);
		cJSON_Delete(root);
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
		printf("  %-12s %6s %8s %8s  %s\n", "measure", "n", "sd", "MDE", "set size for --effect");
		for (size_t i = 0; i < nr; i++) {
			printf("  %-12s %6zu %8.4f %8.4f  ", names[i], pe[i].n, pe[i].sd, pe[i].mde);
			if (pe[i].needed > 0)
				printf("%ld questions to detect %g%s\n", pe[i].needed, effect,
				       (size_t)pe[i].needed <= pe[i].n ? " (the set is large enough)" : "");
			else
				printf("no spread: any change is a real one\n");
		}
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
	return ret;
}
