/*
 * show: print one question of a set in full, as YAML in the set's own
 * schema (so it can be pasted into a --from file) or as JSON, followed by
 * the text of each relevant chunk when the set's corpus is available.
 *
 * The chunk texts come after the question as YAML comments, so the output
 * stays a valid --from file; in JSON they are a "chunks" array next to the
 * question's fields. A text is cut to SHOW_TEXT_CHARS characters (never
 * inside a UTF-8 sequence) unless --full. A relevant chunk the corpus does
 * not hold is shown as such; a set without a corpus, or whose corpus file
 * is missing (a warning), is shown without texts. The set-wide forbidden
 * rules every question inherits (docs/access.md) follow, as a comment line
 * in YAML and a "set_forbidden" array of their entries in JSON.
 */
#include "builtin.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "set/set.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/utf8.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOW_TEXT_CHARS 300

static const char *const show_usage[] = {
	"evalset show <set> <id> [--format yaml|json] [--full]",
	NULL,
};

/* Return the byte length of the first 'max' characters of 's' (all of it
 * when shorter), and the number of characters left out in '*rest'. */
static size_t shown_prefix(const char *s, size_t max, size_t *rest)
{
	size_t len = strlen(s), cut = utf8_prefix(s, len, max);

	*rest = utf8_chars(s + cut, len - cut);
	return cut;
}

/* Append the first 'len' bytes of 'text' to 'out' as comment lines "#   ...". */
static void comment_text(struct strbuf *out, const char *text, size_t len)
{
	strbuf_addstr(out, "#   ");
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\r')
			continue;
		strbuf_addch(out, text[i]);
		if (text[i] == '\n' && i + 1 < len)
			strbuf_addstr(out, "#   ");
	}
	if (!len || text[len - 1] != '\n')
		strbuf_addch(out, '\n');
}

static void chunks_yaml(const struct question *q, const struct corpus *corpus, bool full,
			struct strbuf *out)
{
	if (!q->nr_relevant)
		return;
	strbuf_addf(out, "# relevant chunks (from %s):\n", corpus->path ? corpus->path : "the corpus");
	for (size_t i = 0; i < q->nr_relevant; i++) {
		const struct label *l = &q->relevant[i];
		const struct chunk *c = corpus_get(corpus, l->chunk);
		size_t rest = 0, len;

		if (!c) {
			strbuf_addf(out, "# %s (grade %d): not in the corpus\n", l->chunk, l->grade);
			continue;
		}
		strbuf_addf(out, "# %s (grade %d)", l->chunk, l->grade);
		if (c->title)
			strbuf_addf(out, ", %s", c->title);
		strbuf_addstr(out, ":\n");
		len = full ? strlen(c->text) : shown_prefix(c->text, SHOW_TEXT_CHARS, &rest);
		comment_text(out, c->text, len);
		if (rest)
			strbuf_addf(out, "#   [... %zu more characters; --full shows all]\n", rest);
	}
}

static void chunks_json(cJSON *j, const struct question *q, const struct corpus *corpus,
			bool full)
{
	cJSON *arr = cJSON_AddArrayToObject(j, "chunks");

	for (size_t i = 0; i < q->nr_relevant; i++) {
		const struct label *l = &q->relevant[i];
		const struct chunk *c = corpus_get(corpus, l->chunk);
		cJSON *o = cJSON_CreateObject();
		size_t rest = 0, len;
		char *text;

		cJSON_AddStringToObject(o, "id", l->chunk);
		cJSON_AddNumberToObject(o, "grade", l->grade);
		if (!c) {
			cJSON_AddNullToObject(o, "text");
		} else {
			if (c->title)
				cJSON_AddStringToObject(o, "title", c->title);
			len = full ? strlen(c->text) : shown_prefix(c->text, SHOW_TEXT_CHARS, &rest);
			text = xstrndup(c->text, len);
			cJSON_AddStringToObject(o, "text", text);
			free(text);
			cJSON_AddNumberToObject(o, "omitted_chars", (double)rest);
		}
		cJSON_AddItemToArray(arr, o);
	}
}

int cmd_show(int argc, const char **argv)
{
	const char *format = "yaml";
	int full = 0;
	struct option opts[] = {
		OPT_STRING(0, "format", &format, "format", "yaml (default) or json"),
		OPT_BOOL(0, "full", &full, "print the whole text of each relevant chunk "
			 "(default: the first 300 characters)"),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct strbuf out = STRBUF_INIT;
	const struct question *q;
	int has_corpus = 0, ret = EXIT_BAD_INPUT;

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
	if ((has_corpus = set_corpus_load(&s, ref.dir, &corpus)) < 0)
		goto out;
	if (!strcmp(format, "json")) {
		cJSON *j = question_to_json(q);

		if (has_corpus)
			chunks_json(j, q, &corpus, full);
		if (s.nr_forbid) {
			cJSON *arr = cJSON_AddArrayToObject(j, "set_forbidden");

			for (size_t i = 0; i < s.nr_forbid; i++)
				cJSON_AddItemToArray(arr, cJSON_CreateString(s.forbid[i].entry));
		}
		if (json_print_tree(j, false) < 0)
			goto out;
	} else {
		if (question_to_yaml(q, &out) < 0)
			goto out;
		for (size_t i = 0; i < s.nr_forbid; i++)
			strbuf_addf(&out, "%s%s", i ? ", " : "# also forbidden, by the set-wide rules: ",
				    s.forbid[i].entry);
		if (s.nr_forbid)
			strbuf_addch(&out, '\n');
		if (has_corpus)
			chunks_yaml(q, &corpus, full, &out);
		if (write_stdout(out.buf, out.len) < 0)
			goto out;
	}
	ret = EXIT_OK;
out:
	strbuf_release(&out);
	corpus_release(&corpus);
	set_release(&s);
	set_ref_release(&ref);
	return ret;
}
