/*
 * versions: list the frozen versions of a set in tag order, and say whether
 * the working copy changed since the latest one.
 *
 * Every frozen file is loaded and its digest recomputed: a file whose
 * content no longer matches its recorded digest, or that does not name its
 * own tag, is listed with "TAMPERED" in place of its digest and reported;
 * so is a missing parent and a parent whose digest is not the one its child
 * recorded (exit 2, like every command that meets a tampered version). The working-copy line compares the working
 * copy's questions (content digest, through set_diff) and header (name,
 * description, corpus path) with the latest version's and, when they differ,
 * gives the one-line diff summary: "unchanged" means tag would refuse it.
 */
#include "builtin.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "set/set.h"
#include "set/setdiff.h"
#include "base/strbuf.h"
#include "base/table.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const versions_usage[] = {
	"evalset versions <set> [--format text|json]",
	NULL
};

struct row {
	const struct set_version *v;
	bool tampered;
};

/*
 * Describe the working copy relative to the latest version 'last' (NULL:
 * none) into 'state' ("unchanged", "changed", "none" or "unreadable") and,
 * when changed, the diff summary into 'summary'. Return the number of
 * questions in the working copy.
 */
static size_t working_copy_state(const struct set_ref *ref, const struct set_version *last,
				 const char **state, struct strbuf *summary)
{
	char *wc = path_join(ref->dir, "set.yaml");
	struct set s = SET_INIT, frozen = SET_INIT;
	size_t nr = 0;

	*state = "none";
	if (!path_exists(wc))
		goto out;
	if (set_load(&s, wc) < 0) {
		*state = "unreadable";
		goto out;
	}
	nr = s.nr;
	if (!last) {
		*state = "untagged";
		goto out;
	}
	*state = "changed";
	if (set_load(&frozen, last->file) == 0) {
		struct set_diff d = SET_DIFF_INIT;

		set_diff_compute(&frozen, &s, &d);
		if (set_diff_empty(&d) && !d.header)
			*state = "unchanged";
		else
			set_diff_summary(&d, summary);
		set_diff_release(&d);
		set_release(&frozen);
	}
out:
	set_release(&s);
	free(wc);
	return nr;
}

static void print_text(const struct set_ref *ref, const struct row *rows, size_t nr,
		       const char *state, size_t wc_nr, const char *summary)
{
	const struct set_version *last = nr ? rows[nr - 1].v : NULL;
	struct strbuf out = STRBUF_INIT;
	struct table t;

	table_init(&t, TABLE_TEXT);
	table_add_column(&t, "tag", 0, 0, 0);
	table_add_column(&t, "tagged_at", 0, 20, 0);
	table_add_column(&t, "questions", TABLE_RIGHT, 0, 0);
	table_add_column(&t, "digest", TABLE_CUT_PLAIN, 19, 19);  /* enough to tell versions apart */
	table_add_column(&t, "note", 0, 0, 0);
	for (size_t i = 0; i < nr; i++) {
		const struct set_version *v = rows[i].v;

		table_add(&t, v->tag);
		table_add(&t, v->summary.tagged_at);
		table_addf(&t, "%zu", v->summary.nr_questions);
		table_add(&t, rows[i].tampered ? "TAMPERED" : v->summary.digest);
		table_add(&t, v->summary.note ? v->summary.note : "");
	}
	if (nr)
		table_render(&t, &out);
	table_release(&t);
	fputs(out.buf, stdout);
	strbuf_release(&out);
	if (!strcmp(state, "none"))
		printf("working copy: none (no %s/set.yaml)\n", ref->dir);
	else if (!strcmp(state, "unreadable"))
		printf("working copy: cannot be read (see the error above)\n");
	else if (!strcmp(state, "untagged"))
		printf("no versions yet; working copy: %zu questions ('evalset tag %s <tag>' "
		       "freezes it)\n", wc_nr, ref->name);
	else if (!strcmp(state, "unchanged"))
		printf("working copy: unchanged since %s\n", last->tag);
	else
		printf("working copy: changed since %s: %s\n", last->tag, summary);
}

/* Return 0, or -1 (reported) when standard output does not take it. */
static int print_json(const struct row *rows, size_t nr, const char *state, size_t wc_nr,
		      const char *summary)
{
	cJSON *o = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(o, "versions"), *wc;

	for (size_t i = 0; i < nr; i++) {
		const struct set_version *v = rows[i].v;
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "tag", v->tag);
		json_add_str_or_null(e, "tagged_at", v->summary.tagged_at);
		cJSON_AddNumberToObject(e, "questions", (double)v->summary.nr_questions);
		json_add_str_or_null(e, "digest", v->summary.digest);
		json_add_str_or_null(e, "parent", v->summary.parent);
		json_add_str_or_null(e, "note", v->summary.note);
		cJSON_AddBoolToObject(e, "intact", !rows[i].tampered);
		cJSON_AddItemToArray(arr, e);
	}
	wc = cJSON_AddObjectToObject(o, "working_copy");
	cJSON_AddStringToObject(wc, "state", state);
	cJSON_AddNumberToObject(wc, "questions", (double)wc_nr);
	if (nr)
		cJSON_AddStringToObject(wc, "since", rows[nr - 1].v->tag);
	if (*summary)
		cJSON_AddStringToObject(wc, "changes", summary);
	return json_print_tree(o, true);
}

int cmd_versions(int argc, const char **argv)
{
	const char *format = "text", *state;
	struct option opts[] = {
		OPT_STRING(0, "format", &format, "text|json", "output format (default text)"),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set_versions v = SET_VERSIONS_INIT;
	struct strbuf summary = STRBUF_INIT;
	struct row *rows = NULL;
	size_t tampered = 0, wc_nr;
	enum table_format fmt;
	int ret = EXIT_OK;

	argc = parse_options(argc, argv, opts, versions_usage);
	if (argc != 1)
		usage_with_options(versions_usage, opts);
	if (table_format_parse(format, "text|json", &fmt) < 0)
		return EXIT_BAD_INPUT;
	if (strchr(argv[0], '@'))
		die(EXIT_BAD_INPUT, "'%s' names a version; versions takes a set", argv[0]);
	if (set_ref_resolve(&ref, argv[0], false) < 0)
		die(EXIT_BAD_INPUT, "cannot read set '%s'", argv[0]);
	if (!is_dir(ref.dir))
		die(EXIT_BAD_INPUT, "no set at '%s'", ref.dir);
	if (set_versions_list(&ref, &v) < 0)
		die(EXIT_BAD_INPUT, "cannot read the versions of set '%s'", ref.name);

	rows = xcalloc(v.nr ? v.nr : 1, sizeof(*rows));
	for (size_t i = 0; i < v.nr; i++) {
		rows[i].v = &v.items[i];
		rows[i].tampered = v.items[i].problem != NULL;
	}
	/* each version, its link to its parent, loops */
	tampered = set_versions_verify(&ref, &v, NULL);
	wc_nr = working_copy_state(&ref, v.nr ? &v.items[v.nr - 1] : NULL, &state, &summary);
	if (fmt == TABLE_JSON) {
		if (print_json(rows, v.nr, state, wc_nr, summary.buf) < 0)
			ret = EXIT_BAD_INPUT;
	} else {
		print_text(&ref, rows, v.nr, state, wc_nr, summary.buf);
	}
	if (tampered || !strcmp(state, "unreadable"))
		ret = EXIT_BAD_INPUT;

	free(rows);
	strbuf_release(&summary);
	set_versions_release(&v);
	set_ref_release(&ref);
	return ret;
}
