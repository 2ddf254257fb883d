/*
 * ls: list the questions of a set (working copy or NAME@TAG), optionally
 * filtered by origin, tag or answerability.
 *
 * The table shows id, origin, answerable, number of relevant chunks, tags,
 * the conversation and turn (only when the set has conversations:
 * "TURN ID", the turn first so that a long id cut to fit keeps it;
 * "(history)" for a question with a history and no conversation,
 * "-" for one with neither) and the text cut to fit: the terminal's width when stdout is a terminal,
 * else 60 characters (so piped output is stable). --format json prints the
 * full questions as a JSON array, one question per line.
 */
#include "builtin.h"
#include "set/set.h"
#include "base/fsutil.h"
#include "base/table.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *const ls_usage[] = {
	"evalset ls <set> [--origin <origin>] [--tag <tag>] [--unanswerable] [--format table|json]",
	NULL,
};

#define LS_TEXT_WIDTH 60

static bool wanted(const struct question *q, int filter_origin, enum origin origin,
		   const char *tag, int unanswerable)
{
	if (filter_origin && q->origin != origin)
		return false;
	if (tag && !question_has_tag(q, tag))
		return false;
	if (unanswerable && q->answerable)
		return false;
	return true;
}

int cmd_ls(int argc, const char **argv)
{
	const char *origin_arg = NULL, *tag = NULL, *format = "table";
	int unanswerable = 0;
	struct option opts[] = {
		OPT_STRING(0, "origin", &origin_arg, "origin", "only synthetic, mined or hand questions"),
		OPT_STRING(0, "tag", &tag, "tag", "only questions with this tag"),
		OPT_BOOL(0, "unanswerable", &unanswerable, "only unanswerable questions"),
		OPT_STRING(0, "format", &format, "format", "table (default) or json"),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct strbuf out = STRBUF_INIT;
	enum origin origin = ORIGIN_NONE;
	enum table_format fmt;
	int ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, ls_usage);
	if (argc != 1)
		usage_with_options(ls_usage, opts);
	if (table_format_parse(format, "table|json", &fmt) < 0)
		usage_with_options(ls_usage, opts);
	if (origin_arg && origin_parse(origin_arg, &origin) < 0) {
		error("unknown origin '%s' (synthetic, mined or hand)", origin_arg);
		usage_with_options(ls_usage, opts);
	}
	if (set_open(&s, &ref, argv[0]) < 0)
		goto out;
	if (fmt == TABLE_JSON) {
		/* one question per line, so the array is easy to grep */
		const char *sep = "";
		printf("[");
		for (size_t i = 0; i < s.nr; i++) {
			cJSON *j;
			char *text;
			if (!wanted(&s.q[i], origin_arg != NULL, origin, tag, unanswerable))
				continue;
			j = question_to_json(&s.q[i]);
			text = cJSON_PrintUnformatted(j);
			printf("%s\n%s", sep, text);
			sep = ",";
			free(text);
			cJSON_Delete(j);
		}
		printf("\n]\n");
	} else {
		size_t idw = 2, width = LS_TEXT_WIDTH, convw = 0;
		bool conv = set_has_conversations(&s);
		struct winsize ws;
		struct table t;

		/* the id column fits every id of the set, so filters keep it in place */
		for (size_t i = 0; i < s.nr; i++)
			if (s.q[i].id && strlen(s.q[i].id) > idw)
				idw = strlen(s.q[i].id);
		if (conv)
			convw = 16;
		if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
		    ws.ws_col > 0) {
			size_t used = idw + 2 + 11 + 5 + 5 + 22 + (conv ? convw + 2 : 0);
			width = ws.ws_col > used + 20 ? ws.ws_col - used : 20;
		}
		table_init(&t, TABLE_TEXT);
		table_add_column(&t, "ID", 0, idw, 0);
		table_add_column(&t, "ORIGIN", 0, 9, 0);
		table_add_column(&t, "ANS", 0, 3, 0);
		table_add_column(&t, "REL", TABLE_RIGHT, 3, 0);
		table_add_column(&t, "TAGS", 0, 20, 20);
		if (conv)
			table_add_column(&t, "TURN", 0, 0, convw);
		table_add_column(&t, "TEXT", 0, 0, width);
		for (size_t i = 0; i < s.nr; i++) {
			const struct question *q = &s.q[i];
			struct strbuf tags = STRBUF_INIT;

			if (!wanted(q, origin_arg != NULL, origin, tag, unanswerable))
				continue;
			for (size_t k = 0; k < q->nr_tags; k++)
				strbuf_addf(&tags, "%s%s", k ? "," : "", q->tags[k]);
			table_add(&t, q->id);
			table_add(&t, q->origin == ORIGIN_NONE ? "-" : origin_name(q->origin));
			table_add(&t, q->answerable ? "yes" : "no");
			table_addf(&t, "%zu", q->nr_relevant);
			table_add(&t, tags.len ? tags.buf : "-");
			if (conv && q->conversation)
				table_addf(&t, "%ld %s", q->turn, q->conversation);
			else if (conv)
				table_add(&t, q->nr_history ? "(history)" : "-");
			table_add(&t, q->text);
			strbuf_release(&tags);
		}
		table_render(&t, &out);
		table_release(&t);
		if (write_stdout(out.buf, out.len) < 0)
			goto out;
	}
	ret = EXIT_OK;
out:
	strbuf_release(&out);
	set_release(&s);
	set_ref_release(&ref);
	return ret;
}
