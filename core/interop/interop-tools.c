/*
 * interop-tools: the test sets of the Python evaluation tools, read into
 * cases for `add` (see interop.h, "Test sets of other tools").
 *
 *   ragas       RAGAS Testset as JSONL (to_jsonl) or a JSON list: objects
 *               with user_input, reference_contexts (list of texts),
 *               reference, synthesizer_name; or as CSV (to_pandas().to_csv):
 *               the same columns, reference_contexts a Python list literal
 *               ("['text', \"it's\"]"), quoted as RFC 4180 says
 *   deepeval    DeepEval goldens as a JSON list (save_as json) or JSONL:
 *               input, expected_output, context (list of texts), source_file
 *   llamaindex  LlamaIndex EmbeddingQAFinetuneDataset JSON: {"queries":
 *               {qid: text}, "corpus": {node id: text}, "relevant_docs":
 *               {qid: [node id, ...]}}
 *   jsonl       JSON lines with columns named by the caller (a Hugging Face
 *               dataset's to_json): the question, its contexts (texts),
 *               its relevant chunk ids, its answer, its id
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
#include "base/utf8.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define TOOL_MAX_FILE (256u << 20)

static const char *const tool_names[] = { "ragas", "deepeval", "llamaindex", "jsonl" };

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

/*
 * RAGAS as CSV. A record is read from 'p' (RFC 4180: fields split by
 * commas, a field in double quotes may hold commas, newlines and "" for a
 * quote); the line it ends on is counted into '*line'.
 */
struct csv {
	const char *path;
	const char *p, *end;
	long line;         /* lines read so far */
	struct strbuf *f;  /* the fields of the record read */
	size_t nr, alloc;
};

static void csv_release(struct csv *c)
{
	size_t i;

	for (i = 0; i < c->alloc; i++)
		strbuf_release(&c->f[i]);
	free(c->f);
}

/* Read the next record into c->f; return 1, 0 at the end, -1 (reported). */
static int csv_record(struct csv *c)
{
	long first = c->line + 1;
	bool in_quotes = false, quoted = false;
	struct strbuf *f;

	if (c->p >= c->end)
		return 0;
	c->nr = 0;
	for (;;) {
		if (c->nr == c->alloc) {
			size_t i, n = c->alloc + 8;

			c->f = xrealloc(c->f, n * sizeof(*c->f));
			for (i = c->alloc; i < n; i++)
				strbuf_init(&c->f[i], 0);
			c->alloc = n;
		}
		f = &c->f[c->nr++];
		strbuf_reset(f);
		quoted = false;
		for (;;) {
			int ch;

			if (c->p >= c->end) {
				if (in_quotes)
					return error_at(c->path, first, 0,
							"a quoted field is not closed before the end of the file");
				c->line++;
				return 1;
			}
			ch = (unsigned char)*c->p++;
			if (in_quotes) {
				if (ch == '"' && c->p < c->end && *c->p == '"') {
					strbuf_addch(f, '"');
					c->p++;
				} else if (ch == '"') {
					in_quotes = false;
				} else {
					if (ch == '\n')
						c->line++;
					strbuf_addch(f, ch);
				}
			} else if (ch == '"' && !f->len && !quoted) {
				in_quotes = quoted = true;
			} else if (ch == ',') {
				break;
			} else if (ch == '\n' || (ch == '\r' && (c->p >= c->end || *c->p == '\n'))) {
				if (ch == '\r')
					c->p++;
				c->line++;
				return 1;
			} else if (quoted) {
				return error_at(c->path, c->line + 1, 0,
						"text after the closing quote of field %zu", c->nr);
			} else {
				strbuf_addch(f, ch);
			}
		}
	}
}

/* Read the hex digits of an escape; return the value or -1. */
static long hex_escape(const char **p, const char *end, int digits)
{
	long v = 0;

	for (; digits > 0; digits--, (*p)++) {
		int ch = *p < end ? (unsigned char)**p : 0;

		if (ch >= '0' && ch <= '9')
			v = v * 16 + ch - '0';
		else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')
			v = v * 16 + (ch | 0x20) - 'a' + 10;
		else
			return -1;
	}
	return v;
}

/*
 * Read the list of texts 's' as Python writes one (str of a list: texts in
 * single or double quotes with backslash escapes; JSON's form reads too)
 * into the array 'list'. Return NULL, or what is wrong.
 */
static const char *read_list_literal(const char *s, cJSON *list)
{
	const char *p = s + strspn(s, " \t\r\n"), *end = s + strlen(s);
	struct strbuf t = STRBUF_INIT;
	const char *why = NULL;

	if (*p++ != '[')
		return "is not a list of texts such as ['first text', 'second text']";
	for (;;) {
		int q;

		p += strspn(p, " \t\r\n");
		if (*p == ']')
			break;
		q = *p++;
		if (q != '\'' && q != '"') {
			why = "holds something other than a quoted text";
			goto out;
		}
		strbuf_reset(&t);
		while (p < end && *p != q) {
			char u8[4];
			long cp;

			if (*p != '\\') {
				strbuf_addch(&t, *p++);
				continue;
			}
			p++;
			switch (p < end ? *p++ : 0) {
			case '\\': strbuf_addch(&t, '\\'); break;
			case '\'': strbuf_addch(&t, '\''); break;
			case '"': strbuf_addch(&t, '"'); break;
			case '/': strbuf_addch(&t, '/'); break;
			case 'n': strbuf_addch(&t, '\n'); break;
			case 't': strbuf_addch(&t, '\t'); break;
			case 'r': strbuf_addch(&t, '\r'); break;
			case 'f': strbuf_addch(&t, '\f'); break;
			case 'v': strbuf_addch(&t, '\v'); break;
			case 'b': strbuf_addch(&t, '\b'); break;
			case 'a': strbuf_addch(&t, '\a'); break;
			case 'x': case 'u': case 'U':
				cp = hex_escape(&p, end, p[-1] == 'x' ? 2 : p[-1] == 'u' ? 4 : 8);
				if (cp <= 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
					why = "holds an escape that is not a character";
					goto out;
				}
				strbuf_add(&t, u8, utf8_encode((uint32_t)cp, u8));
				break;
			default:
				why = "holds an escape Python does not write";
				goto out;
			}
		}
		if (p >= end) {
			why = "has a text whose quote is not closed";
			goto out;
		}
		p++;
		cJSON_AddItemToArray(list, cJSON_CreateString(t.buf));
		p += strspn(p, " \t\r\n");
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p != ']') {
			why = "has no comma between two texts";
			goto out;
		}
		break;
	}
	p++;
	if (p[strspn(p, " \t\r\n")])
		why = "has something after the closing ]";
out:
	strbuf_release(&t);
	return why;
}

static const char *const ragas_columns[] = {
	"user_input", "reference_contexts", "reference", "synthesizer_name",
};

/* A RAGAS testset written as CSV, read as the JSON items it stands for. */
static int read_ragas_csv(struct set *out, const char *path, struct strbuf *sb)
{
	struct csv c = { .path = path, .p = sb->buf, .end = sb->buf + sb->len };
	int col[ARRAY_SIZE(ragas_columns)];
	size_t i, k;
	long items = 0;
	int rc, ret = -1;

	if (starts_with(c.p, "\xef\xbb\xbf"))
		c.p += 3;
	if ((rc = csv_record(&c)) <= 0) {
		if (!rc)
			error("'%s' is empty: a RAGAS CSV starts with a header naming user_input", path);
		goto out;
	}
	for (k = 0; k < ARRAY_SIZE(ragas_columns); k++) {
		col[k] = -1;
		for (i = 0; i < c.nr; i++)
			if (!strcmp(c.f[i].buf, ragas_columns[k]))
				col[k] = (int)i;
	}
	if (col[0] < 0) {
		error_at(path, 1, 0, "the header has no user_input column (a RAGAS testset's CSV "
			 "has user_input, reference_contexts, reference, synthesizer_name)");
		goto out;
	}
	for (;;) {
		struct where w = { path, c.line + 1, 0 };
		cJSON *o;
		const char *why = NULL;

		if ((rc = csv_record(&c)) <= 0) {
			ret = rc;
			break;
		}
		if (c.nr == 1 && !c.f[0].len)
			continue;  /* an empty line */
		w.item = ++items;
		o = cJSON_CreateObject();
		for (k = 0; k < ARRAY_SIZE(ragas_columns); k++) {
			const char *v = col[k] >= 0 && (size_t)col[k] < c.nr ? c.f[col[k]].buf : NULL;

			if (!v || (!*v && k))
				continue;  /* pandas writes nothing for None */
			if (k == 1) {
				cJSON *list = cJSON_AddArrayToObject(o, ragas_columns[k]);

				why = read_list_literal(v, list);
			} else {
				cJSON_AddStringToObject(o, ragas_columns[k], v);
			}
		}
		if (why) {
			error_at(path, w.line, 0, "\"reference_contexts\" %s", why);
			cJSON_Delete(o);
			break;
		}
		rc = read_item(out, INTEROP_RAGAS, o, &w);
		cJSON_Delete(o);
		if (rc < 0)
			break;
	}
out:
	csv_release(&c);
	return ret;
}

/* Whether 'path' holding 'sb' is CSV: named so, or not starting with JSON. */
static bool is_csv(const char *path, const struct strbuf *sb)
{
	size_t skip = strspn(sb->buf, " \t\r\n\xef\xbb\xbf");

	return ends_with(path, ".csv") || (sb->buf[skip] != '{' && sb->buf[skip] != '[' &&
					   sb->buf[skip]);
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

/* A text or a list of texts at 'key' of 'o' into 'add' (NULL key: none). */
static int each_text(struct question *q, const cJSON *o, const char *key, const struct where *w,
		     void (*add)(struct question *, const char *))
{
	const cJSON *v = key ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL, *c;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsString(v)) {
		if (*v->valuestring)
			add(q, v->valuestring);
		return 0;
	}
	if (!cJSON_IsArray(v))
		return bad(w, "\"%s\" is neither a text nor a list of texts", key);
	cJSON_ArrayForEach(c, v) {
		if (!cJSON_IsString(c))
			return bad(w, "\"%s\" holds something other than a text", key);
		if (*c->valuestring)
			add(q, c->valuestring);
	}
	return 0;
}

static void add_quote_text(struct question *q, const char *text)
{
	add_quote(q, text);
}

static void add_chunk(struct question *q, const char *id)
{
	if (question_grade(q, id) < 1)
		question_set_label(q, id, 1);
}

int interop_import_fields(struct set *out, const char *path, const struct interop_fields *f)
{
	struct strbuf sb = STRBUF_INIT;
	struct where w = { path, 0, 0 };
	const char *p, *end;
	int ret = -1;

	if (read_file(path, &sb, TOOL_MAX_FILE) < 0)
		goto out;
	out->file = xstrdup(path);
	for (p = sb.buf; p < sb.buf + sb.len; p = end + 1) {
		const char *text, *answer, *id = NULL;
		const cJSON *idv;
		struct question *q;
		cJSON *o;
		int rc;

		end = memchr(p, '\n', (size_t)(sb.buf + sb.len - p));
		if (!end)
			end = sb.buf + sb.len;
		w.line++;
		if (strspn(p, " \t\r") >= (size_t)(end - p))
			continue;
		o = cJSON_ParseWithLength(p, (size_t)(end - p));
		if (!cJSON_IsObject(o)) {
			cJSON_Delete(o);
			error_at(path, w.line, 0, "not a JSON object");
			goto out;
		}
		idv = f->id ? cJSON_GetObjectItemCaseSensitive(o, f->id) : NULL;
		rc = get_string(o, f->question, false, &w, &text);
		if (!rc && f->answer)
			rc = get_string(o, f->answer, true, &w, &answer);
		else
			answer = NULL;
		if (!rc && idv && !cJSON_IsString(idv) && !cJSON_IsNumber(idv))
			rc = bad(&w, "\"%s\" is not a text or a number", f->id);
		if (rc < 0) {
			cJSON_Delete(o);
			goto out;
		}
		q = set_append(out);
		q->text = xstrdup(text);
		q->answer = answer && *answer ? xstrdup(answer) : NULL;
		q->answerable = true;
		q->line = w.line;
		q->provenance = cJSON_CreateObject();
		cJSON_AddStringToObject(q->provenance, "source", "jsonl");
		if (cJSON_IsString(idv))
			id = idv->valuestring;
		if (id)
			cJSON_AddStringToObject(q->provenance, "source_id", id);
		else if (cJSON_IsNumber(idv))
			cJSON_AddNumberToObject(q->provenance, "source_id", idv->valuedouble);
		rc = each_text(q, o, f->chunks, &w, add_chunk);
		if (!rc)
			rc = each_text(q, o, f->contexts, &w, add_quote_text);
		cJSON_Delete(o);
		if (rc < 0)
			goto out;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

int interop_import_tool(struct set *out, enum interop_tool t, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	if (read_file(path, &sb, TOOL_MAX_FILE) < 0)
		goto out;
	out->file = xstrdup(path);
	if (t == INTEROP_LLAMAINDEX)
		ret = read_llamaindex(out, path, &sb);
	else if (t == INTEROP_RAGAS && is_csv(path, &sb))
		ret = read_ragas_csv(out, path, &sb);
	else
		ret = read_items(out, t, path, &sb);
out:
	strbuf_release(&sb);
	return ret;
}
