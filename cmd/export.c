/*
 * export: write a set version as TREC qrels, a BEIR folder or JSONL, for
 * ranx, ir_measures, pytrec_eval and trec_eval (the formats are described in
 * docs/formats/). The set is opened like every other command does (rules
 * enforced, frozen versions digest-checked); nothing is written when a
 * target exists unless --force is given.
 */
#include "builtin.h"
#include "interop/interop.h"
#include "set/set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const export_usage[] = {
	"evalset export <set>[@<tag>] --format trec-qrels|beir|jsonl -o <path> [--split <name>] [--meta] [--force]",
	NULL,
};

int cmd_export(int argc, const char **argv)
{
	const char *format = NULL, *output = NULL, *split = "test";
	int force = 0, meta = 0;
	struct option opts[] = {
		OPT_STRING(0, "format", &format, "fmt", "trec-qrels, beir or jsonl"),
		OPT_STRING('o', "output", &output, "path", "the file to write (beir: the folder)"),
		OPT_STRING(0, "split", &split, "name", "BEIR qrels split (default test)"),
		OPT_BOOL(0, "meta", &meta, "trec-qrels: also write <path>.meta.json, what the qrels cannot hold (BEIR and JSONL always carry it)"),
		OPT_BOOL(0, "force", &force, "replace files that exist"),
		OPT_END(),
	};
	struct interop_export ex = { INTEROP_JSONL, NULL, NULL, NULL, NULL, false, false };
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	char **targets = NULL;
	size_t nr = 0;
	int ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, export_usage);
	if (argc != 1 || !format || !output)
		usage_with_options(export_usage, opts);
	if (interop_format_parse(format, &ex.format) < 0) {
		error("unknown format '%s' (trec-qrels, beir or jsonl)", format);
		goto out;
	}
	if (!strcmp(output, "-")) {
		error("export writes files (TREC and BEIR write several): give -o a path");
		goto out;
	}
	if (!*split || strpbrk(split, "/\\") != NULL) {
		error("bad --split '%s': a plain name like test or dev", split);
		goto out;
	}
	if (set_open(&s, &ref, argv[0]) < 0)
		goto out;
	ex.path = output;
	ex.split = split;
	ex.name = ref.name;
	ex.version = ref.tag;
	ex.force = force;
	ex.meta = meta;
	if (interop_export(&s, &ex) < 0)
		goto out;
	targets = interop_export_targets(&ex, &nr);
	for (size_t i = 0; i < nr; i++)
		printf("wrote %s\n", targets[i]);
	ret = EXIT_OK;
out:
	for (size_t i = 0; i < nr; i++)
		free(targets[i]);
	free(targets);
	set_release(&s);
	set_ref_release(&ref);
	return ret;
}
