/*
 * interop-tools: the test sets of the Python evaluation tools, read into
 * cases for `add` (see interop.h, "Test sets of other tools").
 *
 *   ragas       RAGAS Testset as JSONL (to_jsonl) or a JSON list: objects
 *               with user_input, reference_contexts (list of texts),
 *               reference, synthesizer_name
 *   deepeval    DeepEval goldens as a JSON list (save_as json) or JSONL:
 *               input, expected_output, context (list of texts), source_file
 *   llamaindex  LlamaIndex EmbeddingQAFinetuneDataset JSON: {"queries":
 *               {qid: text}, "corpus": {node id: text}, "relevant_docs":
 *               {qid: [node id, ...]}}
 *
 * Each item becomes a question with its text, the reference as its answer,
 * and each context text as an evidence quote without a chunk, which `add`
 * looks for in the set's corpus exactly as `add --evidence` does. What the
 * source says of the item's origin is kept as provenance (source, the
 * synthesizer or source file, LlamaIndex's query and node ids). Every item
 * is read or the file is refused: a missing or mistyped field is named with
 * FILE:LINE (JSONL) or FILE and the item's index.
 */
#include "interop/interop.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define TOOL_MAX_FILE (256u << 20)

static const char *const tool_names[] = { "ragas", "deepeval", "llamaindex" };

const char *interop_tool_name(enum interop_tool t)
{
	return tool_names[t];
}

/* Where an item was read, for messages: "FILE:LINE" or "FILE item N". */
struct where {
	const char *file;
	long line;   /* JSONL: its line; 0 for an item of a JSON list */
	long item;   /* from 1 */
};

static int bad(const struct where *w, const char *fmt, const char *field)
{
	struct strbuf m = STRBUF_INIT;

	strbuf_addf(&m, fmt, field);
	if (w->line)
		error_at(w->file, w->line, 0, "%s", m.buf);
	else
		error("%s: item %ld: %s", w->file, w->item, m.buf);
	strbuf_release(&m);
	return -1;
}

/* Return the string 'key' of 'o' (NULL when absent or null and 'optional'). */
static int get_string(const cJSON *o, const char *key, bool optional, const struct where *w,
		      const char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = NULL;
	if ((!v || cJSON_IsNull(v)) && optional)
		return 0;
	if (!cJSON_IsString(v) || (!optional && !*v->valuestring))
		return bad(w, "\"%s\" is not a non-empty string", key);
	*out = v->valuestring;
	return 0;
}

static void add_quote(struct question *q, const char *text)
{
	struct evidence e;

	memset(&e, 0, sizeof(e));
	e.start = e.end = -1;
	e.quote = (char *)text;
	question_add_evidence(q, &e);
}

/* Add the list of context texts 'key' of 'o' to 'q' as quotes. */
static int add_contexts(struct question *q, const cJSON *o, const char *key,
			const struct where *w)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, key), *c;

	if (!list || cJSON_IsNull(list))
		return 0;
	if (!cJSON_IsArray(list))
		return bad(w, "\"%s\" is not a list of texts", key);
	cJSON_ArrayForEach(c, list) {
		if (!cJSON_IsString(c))
			return bad(w, "\"%s\" holds something other than a text", key);
		if (*c->valuestring)
			add_quote(q, c->valuestring);
	}
	return 0;
}

/* Read one RAGAS or DeepEval item 'o' into a new question of 'out'. */
static int read_item(struct set *out, enum interop_tool t, const cJSON *o, const struct where *w)
{
	const char *text, *reference, *extra;
	struct question *q;

	if (!cJSON_IsObject(o))
		return bad(w, "%s", "not a JSON object");
	if (get_string(o, t == INTEROP_RAGAS ? "user_input" : "input", false, w, &text) < 0 ||
	    get_string(o, t == INTEROP_RAGAS ? "reference" : "expected_output", true, w, &reference) < 0 ||
	    get_string(o, t == INTEROP_RAGAS ? "synthesizer_name" : "source_file", true, w, &extra) < 0)
		return -1;
	q = set_append(out);
	q->text = xstrdup(text);
	q->answer = reference && *reference ? xstrdup(reference) : NULL;
	q->answerable = true;
	q->line = w->line;
	q->provenance = cJSON_CreateObject();
	cJSON_AddStringToObject(q->provenance, "source", tool_names[t]);
	if (extra)
		cJSON_AddStringToObject(q->provenance,
					t == INTEROP_RAGAS ? "synthesizer" : "source_file", extra);
	return add_contexts(q, o, t == INTEROP_RAGAS ? "reference_contexts" : "context", w);
}

/* A JSON list of items, or JSON lines of items. */
static int read_items(struct set *out, enum interop_tool t, const char *path, struct strbuf *sb)
{
	struct where w = { path, 0, 0 };
	size_t skip = strspn(sb->buf, " \t\r\n\xef\xbb\xbf");
	const char *p, *end;

	if (sb->buf[skip] == '[') {
		cJSON *all = cJSON_ParseWithLength(sb->buf, sb->len), *o;
		int ret = 0;

		if (!cJSON_IsArray(all)) {
			cJSON_Delete(all);
			return error("'%s' is not a JSON list of %s items", path, tool_names[t]);
		}
		cJSON_ArrayForEach(o, all) {
			w.item++;
			if ((ret = read_item(out, t, o, &w)) < 0)
				break;
		}
		cJSON_Delete(all);
		return ret;
	}
	for (p = sb->buf; p < sb->buf + sb->len; p = end + 1) {
		cJSON *o;
		int ret;

		end = memchr(p, '\n', (size_t)(sb->buf + sb->len - p));
		if (!end)
			end = sb->buf + sb->len;
		w.line++;
		w.item++;
		if (strspn(p, " \t\r") >= (size_t)(end - p))
			continue;
		o = cJSON_ParseWithLength(p, (size_t)(end - p));
		if (!o)
			return error_at(path, w.line, 0, "not a JSON object");
		ret = read_item(out, t, o, &w);
		cJSON_Delete(o);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/* LlamaIndex's EmbeddingQAFinetuneDataset. */
static int read_llamaindex(struct set *out, const char *path, struct strbuf *sb)
{
	cJSON *all = cJSON_ParseWithLength(sb->buf, sb->len);
	const cJSON *queries = cJSON_GetObjectItemCaseSensitive(all, "queries");
	const cJSON *corpus = cJSON_GetObjectItemCaseSensitive(all, "corpus");
	const cJSON *rel = cJSON_GetObjectItemCaseSensitive(all, "relevant_docs"), *qv;
	int ret = -1;

	if (!cJSON_IsObject(queries) || !cJSON_IsObject(corpus) || !cJSON_IsObject(rel)) {
		error("'%s' is not an EmbeddingQAFinetuneDataset: a JSON object with the objects "
		      "\"queries\", \"corpus\" and \"relevant_docs\"", path);
		goto out;
	}
	cJSON_ArrayForEach(qv, queries) {
		const cJSON *docs = cJSON_GetObjectItemCaseSensitive(rel, qv->string), *d;
		struct question *q;
		cJSON *nodes;

		if (!cJSON_IsString(qv) || !*qv->valuestring) {
			error("%s: query '%s' is not a non-empty text", path, qv->string);
			goto out;
		}
		if (!cJSON_IsArray(docs)) {
			error("%s: query '%s' has no list in \"relevant_docs\"", path, qv->string);
			goto out;
		}
		q = set_append(out);
		q->text = xstrdup(qv->valuestring);
		q->answerable = true;
		q->provenance = cJSON_CreateObject();
		cJSON_AddStringToObject(q->provenance, "source", "llamaindex");
		cJSON_AddStringToObject(q->provenance, "query_id", qv->string);
		nodes = cJSON_AddArrayToObject(q->provenance, "nodes");
		cJSON_ArrayForEach(d, docs) {
			const cJSON *t = cJSON_IsString(d) ?
				cJSON_GetObjectItemCaseSensitive(corpus, d->valuestring) : NULL;

			if (!cJSON_IsString(t)) {
				error("%s: query '%s' names node %s%s%s, which \"corpus\" lacks", path,
				      qv->string, cJSON_IsString(d) ? "'" : "",
				      cJSON_IsString(d) ? d->valuestring : "(not a string)",
				      cJSON_IsString(d) ? "'" : "");
				goto out;
			}
			cJSON_AddItemToArray(nodes, cJSON_CreateString(d->valuestring));
			add_quote(q, t->valuestring);
		}
	}
	ret = 0;
out:
	cJSON_Delete(all);
	return ret;
}

int interop_import_tool(struct set *out, enum interop_tool t, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	if (read_file(path, &sb, TOOL_MAX_FILE) < 0)
		goto out;
	out->file = xstrdup(path);
	ret = t == INTEROP_LLAMAINDEX ? read_llamaindex(out, path, &sb) : read_items(out, t, path, &sb);
out:
	strbuf_release(&sb);
	return ret;
}
