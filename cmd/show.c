/*
 * show: print one question of a set in full, as YAML in the set's own
 * schema (so it can be pasted into a --from file) or as JSON.
 */
#include "builtin.h"
#include "../core/set.h"
#include "../core/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const show_usage[] = {
	"evalset show <set> <id> [--format yaml|json]",
	NULL,
};

int cmd_show(int argc, const char **argv)
{
	const char *format = "yaml";
	struct option opts[] = {
		OPT_STRING(0, "format", &format, "format", "yaml (default) or json"),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct strbuf out = STRBUF_INIT;
	const struct question *q;
	int ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, show_usage);
	if (argc != 2)
		usage_with_options(show_usage, opts);
	if (strcmp(format, "yaml") && strcmp(format, "json")) {
		error("unknown format '%s' (yaml or json)", format);
		usage_with_options(show_usage, opts);
	}
	if (set_open(&s, &ref, argv[0]) < 0)
		goto out;
	if (!(q = set_find(&s, argv[1]))) {
		error("no question '%s' in '%s'", argv[1], ref.file);
		goto out;
	}
	if (!strcmp(format, "json")) {
		cJSON *j = question_to_json(q);
		char *text = cJSON_PrintUnformatted(j);
		printf("%s\n", text);
		free(text);
		cJSON_Delete(j);
	} else {
		if (question_to_yaml(q, &out) < 0)
			goto out;
		fputs(out.buf, stdout);
	}
	ret = EXIT_OK;
out:
	strbuf_release(&out);
	set_release(&s);
	set_ref_release(&ref);
	return ret;
}
