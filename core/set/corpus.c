/*
 * corpus: JSONL chunk files and their fingerprint (see corpus.h).
 */
#include "set/corpus.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/jsontree.h"
#include "base/lineio.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Read the optional "start" and "end" of chunk 'id' into '*start' and '*end'
 * (-1 when absent). Return 0, or -1 (reported) for a span that is not two
 * whole numbers with end >= start, or that has no "doc". */
static int get_span(const cJSON *obj, const char *path, long lineno, const char *id,
		    const char *doc, long *start, long *end)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(obj, "start");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(obj, "end");

	if (!s && !e)
		return 0;
	if (!cJSON_IsNumber(s) || !cJSON_IsNumber(e) || s->valuedouble < 0 ||
	    e->valuedouble < s->valuedouble || e->valuedouble > ((double)LONG_MAX < 1e15 ? (double)LONG_MAX : 1e15) ||
	    s->valuedouble != (double)(long)s->valuedouble ||
	    e->valuedouble != (double)(long)e->valuedouble)
		return error_at(path, lineno, 0,
				"chunk '%s': \"start\" and \"end\" must be whole numbers with "
				"end >= start", id);
	if (!doc || !*doc)
		return error_at(path, lineno, 0, "chunk '%s' has a span but no \"doc\"", id);
	*start = (long)s->valuedouble;
	*end = (long)e->valuedouble;
	return 0;
}

/* Parse one corpus line into a new chunk of 'c'. Return 0, 1 for a blank line, or -1 (reported). */
static int parse_line(struct corpus *c, const char *path, long lineno, const struct strbuf *line)
{
	cJSON *obj;
	const cJSON *idv;
	const char *text, *title, *doc;
	char *id = NULL;
	struct strmap_entry *e;
	int added, rc = -1;
	size_t bad;
	long start = -1, end = -1;

	if (!line->len || strspn(line->buf, " \t") == line->len)
		return 1;
	if (!utf8_valid(line->buf, line->len, &bad))
		return error_at(path, lineno, (long)bad + 1, "invalid UTF-8");
	obj = cJSON_ParseWithLength(line->buf, line->len);
	if (!obj)
		return error_at(path, lineno, 0, "not valid JSON");
	if (!cJSON_IsObject(obj)) {
		error_at(path, lineno, 0, "a corpus line must be a JSON object");
		goto out;
	}
	idv = cJSON_GetObjectItemCaseSensitive(obj, "id");
	if (!idv)
		idv = cJSON_GetObjectItemCaseSensitive(obj, "_id");
	if (cJSON_IsString(idv) && *idv->valuestring)
		id = xstrdup(idv->valuestring);
	else if (cJSON_IsNumber(idv))
		id = xstrfmt("%.17g", idv->valuedouble);
	if (!id) {
		error_at(path, lineno, 0, "chunk without an \"id\" (or \"_id\") string");
		goto out;
	}
	text = json_get_str(obj, "text");
	if (!text) {
		error_at(path, lineno, 0, "chunk '%s' has no \"text\" string", id);
		goto out;
	}
	title = json_get_str(obj, "title");
	doc = json_get_str(obj, "doc");
	if (get_span(obj, path, lineno, id, doc, &start, &end) < 0)
		goto out;
	e = strmap_intern(&c->index, id, strlen(id), &added);
	if (!added) {
		error_at(path, lineno, 0, "duplicate chunk id '%s' (first on line %ld)", id,
			 c->lines[(uintptr_t)e->value - 1]);
		goto out;
	}
	ALLOC_GROW(c->chunks, c->nr + 1, c->alloc);
	c->chunks[c->nr].id = id;
	c->chunks[c->nr].text = xstrdup(text);
	c->chunks[c->nr].title = title && *title ? xstrdup(title) : NULL;
	c->chunks[c->nr].start = start;
	c->chunks[c->nr].end = end;
	c->chunks[c->nr].doc = doc && *doc ? xstrdup(doc) : title && *title ? xstrdup(title) : NULL;
	ALLOC_GROW(c->lines, c->nr + 1, c->alloc_lines);
	c->lines[c->nr] = lineno;
	e->value = (void *)(uintptr_t)(c->nr + 1);
	c->nr++;
	id = NULL;
	rc = 0;
out:
	free(id);
	cJSON_Delete(obj);
	return rc;
}

int corpus_load(struct corpus *c, const char *path)
{
	struct line_reader lr;
	struct strbuf line = STRBUF_INIT;
	int r, rc = 0;

	if (line_reader_open(&lr, path, CORPUS_MAX_LINE) < 0)
		return -1;
	while ((r = line_reader_next(&lr, &line)) > 0) {
		if (parse_line(c, path, lr.lineno, &line) < 0) {
			rc = -1;
			break;
		}
	}
	if (r < 0)
		rc = -1;
	line_reader_close(&lr);
	strbuf_release(&line);
	if (rc < 0) {
		corpus_release(c);
		return -1;
	}
	free(c->path);
	c->path = xstrdup(path);
	if (!c->ids)
		c->ids = xcalloc(1, sizeof(*c->ids));
	return 0;
}

void corpus_release(struct corpus *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		free(c->chunks[i].id);
		free(c->chunks[i].title);
		free(c->chunks[i].text);
		free(c->chunks[i].doc);
	}
	free(c->chunks);
	free(c->lines);
	c->lines = NULL;
	c->alloc_lines = 0;
	strmap_clear(&c->index, 0);
	free(c->path);
	c->chunks = NULL;
	c->nr = c->alloc = 0;
	c->path = NULL;
	if (c->ids) {
		suggest_index_release(c->ids);
		free(c->ids);
		c->ids = NULL;
	}
}

size_t corpus_did_you_mean(const struct corpus *c, const char *id, struct strbuf *out)
{
	struct suggest_index tmp = SUGGEST_INDEX_INIT, *ix = c->ids ? c->ids : &tmp;
	size_t len = strlen(id), max = suggest_max_for(len), n;
	struct suggest sg;

	if (ix->nr != c->nr) {  /* not built yet, or chunks were added since */
		const char **ids = xcalloc(c->nr ? c->nr : 1, sizeof(*ids));

		for (size_t i = 0; i < c->nr; i++)
			ids[i] = c->chunks[i].id;
		suggest_index_release(ix);
		suggest_index_build(ix, ids, c->nr);
		free(ids);
	}
	suggest_init(&sg, id, len, max < 1 ? 1 : max > 8 ? 8 : max, true);
	suggest_offer_index(&sg, ix);
	n = suggest_did_you_mean(&sg, 3, NULL, out);
	suggest_release(&sg);
	suggest_index_release(&tmp);
	return n;
}

const struct chunk *corpus_get(const struct corpus *c, const char *id)
{
	uintptr_t idx = (uintptr_t)strmap_get(&c->index, id);

	return idx ? &c->chunks[idx - 1] : NULL;
}

static int cmp_chunk_ptr(const void *a, const void *b)
{
	const struct chunk *x = *(const struct chunk *const *)a;
	const struct chunk *y = *(const struct chunk *const *)b;
	return strcmp(x->id, y->id);
}

void corpus_fingerprint(const struct corpus *c, char out[72])
{
	const struct chunk **order = xcalloc(c->nr + 1, sizeof(*order));
	struct sha256_ctx *ctx = sha256_new();
	char text_digest[72];

	for (size_t i = 0; i < c->nr; i++)
		order[i] = &c->chunks[i];
	qsort(order, c->nr, sizeof(*order), cmp_chunk_ptr);
	for (size_t i = 0; i < c->nr; i++) {
		sha256_hex(order[i]->text, strlen(order[i]->text), text_digest);
		sha256_update(ctx, order[i]->id, strlen(order[i]->id));
		sha256_update(ctx, "\t", 1);
		sha256_update(ctx, text_digest, strlen(text_digest));
		sha256_update(ctx, "\n", 1);
	}
	sha256_final(ctx, out);
	free(order);
}
