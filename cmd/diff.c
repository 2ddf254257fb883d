/*
 * diff: what changed between two versions of a set, or between a version
 * and the working copy (docs/versions.md).
 *
 * "diff SET@A SET@B" compares two frozen versions, "diff SET@A" (or
 * "diff SET@A SET") compares a version with the working copy, and "diff SET"
 * compares the latest version with the working copy. Frozen versions are
 * digest-checked on load, so a tampered file is refused (exit 2) rather than
 * diffed. Questions are compared through their content (set_content_digest
 * covers the same fields); a change of name, description or corpus is shown
 * in the summary. Exit 0 whatever the differences, unless --exit-code (then
 * 1 when there are any, header changes included), like git diff.
 */
#include "builtin.h"
#include "set/set.h"
#include "set/setdiff.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "base/table.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const diff_usage[] = {
	"evalset diff <set>@<tag> [<set>[@<tag>]] [--format text|json] [--exit-code]",
	"evalset diff <set> [--format text|json] [--exit-code]",
	NULL
};

/* Open the set 'arg' names into 's' and 'ref', or die 2. */
static void open_or_die(struct set *s, struct set_ref *ref, const char *arg)
{
	if (set_open(s, ref, arg) < 0)
		die(EXIT_BAD_INPUT, "cannot read set '%s'", arg);
}

/* Replace the name of 'side' by the directory name the user's argument resolved to. */
static void name_side(struct diff_side *side, const struct set_ref *ref)
{
	free(side->name);
	side->name = xstrdup(ref->name);
	free(side->version);
	side->version = xstrdup(ref->tag);
}

int cmd_diff(int argc, const char **argv)
{
	const char *format = "text";
	enum table_format fmt;
	int exit_code = 0;
	struct option opts[] = {
		OPT_STRING(0, "format", &format, "text|json", "output format (default text)"),
		OPT_BOOL(0, "exit-code", &exit_code, "exit 1 when the versions differ"),
		OPT_END(),
	};
	struct set a = SET_INIT, b = SET_INIT;
	struct set_ref ra = SET_REF_INIT, rb = SET_REF_INIT;
	struct set_diff d = SET_DIFF_INIT;
	struct strbuf out = STRBUF_INIT;
	char *latest = NULL, *arg_a = NULL, *arg_b = NULL;
	int ret;

	argc = parse_options(argc, argv, opts, diff_usage);
	if (argc < 1 || argc > 2)
		usage_with_options(diff_usage, opts);
	if (table_format_parse(format, "text|json", &fmt) < 0)
		exit(EXIT_BAD_INPUT);

	if (set_ref_resolve(&ra, argv[0], true) < 0)
		die(EXIT_BAD_INPUT, "cannot read set '%s'", argv[0]);
	if (!ra.tag) {
		char digest[72];

		if (argc == 2)
			die(EXIT_BAD_INPUT, "'%s' names a working copy; the first set of a diff is "
			    "a version (<set>@<tag>)", argv[0]);
		ret = set_latest_digest(&ra, digest, &latest);
		if (ret < 0)
			die(EXIT_BAD_INPUT, "cannot read the versions of set '%s'", ra.name);
		if (!ret)
			die(EXIT_BAD_INPUT, "set '%s' has no versions yet: nothing to compare the "
			    "working copy with ('evalset tag %s <tag>' makes one)", ra.name, argv[0]);
		arg_a = xstrfmt("%s@%s", ra.dir, latest);
	} else {
		arg_a = xstrdup(argv[0]);
	}
	/* the working copy of the same set unless a second set is named */
	arg_b = argc == 2 ? xstrdup(argv[1]) : xstrdup(ra.dir);
	open_or_die(&a, &ra, arg_a);
	open_or_die(&b, &rb, arg_b);

	set_diff_compute(&a, &b, &d);
	name_side(&d.from, &ra);
	name_side(&d.to, &rb);
	if (fmt == TABLE_JSON) {
		json_add_tree(&out, set_diff_to_json(&d), true);
	} else {
		set_diff_format_text(&d, &out);
	}
	if (write_stdout(out.buf, out.len) < 0)
		ret = EXIT_BAD_INPUT;
	else
		ret = exit_code && (!set_diff_empty(&d) || d.header) ? EXIT_FAILED : EXIT_OK;

	strbuf_release(&out);
	set_diff_release(&d);
	set_release(&a);
	set_release(&b);
	set_ref_release(&ra);
	set_ref_release(&rb);
	free(latest);
	free(arg_a);
	free(arg_b);
	return ret;
}
