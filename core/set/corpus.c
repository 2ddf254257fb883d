/*
 * corpus: JSONL chunk files and their fingerprint (see corpus.h).
 */
#include "set/corpus.h"
#include "set/set.h"
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

/* A chunk under its document's name (a NUL-less span: the chunker's id form
 * holds the name as the id's start). */
struct doc_chunk {
	const char *name;
	size_t len;
	size_t chunk;   /* index in the corpus */
};

struct corpus_docs {
	struct doc_chunk *items;   /* by name, then file order */
	size_t nr;
	size_t chunks;             /* the corpus's number of chunks when built */
	bool built;
};

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
/* Keep the strings of 'v' (a string, or a list: other items skipped) as the tags of 'ch'. */
static void get_tags(struct chunk *ch, const cJSON *v)
{
	const cJSON *it;

	if (cJSON_IsString(v)) {
		if (!*v->valuestring)
			return;
		ch->tags = xcalloc(1, sizeof(*ch->tags));
		ch->tags[ch->nr_tags++] = xstrdup(v->valuestring);
		return;
	}
	if (!cJSON_IsArray(v))
		return;
	cJSON_ArrayForEach(it, v) {
		if (!cJSON_IsString(it) || !*it->valuestring)
			continue;
		if (!ch->tags)
			ch->tags = xcalloc((size_t)cJSON_GetArraySize(v), sizeof(*ch->tags));
		ch->tags[ch->nr_tags++] = xstrdup(it->valuestring);
	}
}

bool chunk_has_tag(const struct chunk *ch, const char *tag)
{
	for (size_t i = 0; i < ch->nr_tags; i++)
		if (!strcmp(ch->tags[i], tag))
			return true;
	return false;
}

static int parse_line(struct corpus *c, const char *path, long lineno, const struct strbuf *line)
{
	cJSON *obj;
	const cJSON *idv, *tags, *meta;
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
	c->chunks[c->nr].tags = NULL;
	c->chunks[c->nr].nr_tags = 0;
	tags = cJSON_GetObjectItemCaseSensitive(obj, "tags");
	meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
	if (!tags && cJSON_IsObject(meta))
		tags = cJSON_GetObjectItemCaseSensitive(meta, "tags");
	get_tags(&c->chunks[c->nr], tags);
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
	if (!c->docs)
		c->docs = xcalloc(1, sizeof(*c->docs));
	return 0;
}

static void corpus_docs_release(struct corpus_docs *d)
{
	free(d->items);
	d->items = NULL;
	d->nr = 0;
	d->built = false;
}

void corpus_release(struct corpus *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		free(c->chunks[i].id);
		free(c->chunks[i].title);
		free(c->chunks[i].text);
		free(c->chunks[i].doc);
		for (size_t t = 0; t < c->chunks[i].nr_tags; t++)
			free(c->chunks[i].tags[t]);
		free(c->chunks[i].tags);
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
	if (c->docs) {
		corpus_docs_release(c->docs);
		free(c->docs);
		c->docs = NULL;
	}
}

/* Return the document of 'ch' and its length in '*len': its "doc", else the
 * name in the chunker's id form, else NULL (chunk_doc in set.h). */
static const char *doc_of(const struct chunk *ch, size_t *len)
{
	if (ch->doc) {
		*len = strlen(ch->doc);
		return ch->doc;
	}
	*len = chunk_id_doc_len(ch->id);
	return *len ? ch->id : NULL;
}

/* Compare 'len' bytes of 'a' with the NUL-less name 'b' of 'blen' bytes, as strcmp would. */
static int name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int r = memcmp(a, b, alen < blen ? alen : blen);

	return r ? r : alen < blen ? -1 : alen > blen;
}

static int cmp_doc_chunk(const void *x, const void *y)
{
	const struct doc_chunk *a = x, *b = y;
	int r = name_cmp(a->name, a->len, b->name, b->len);

	return r ? r : a->chunk < b->chunk ? -1 : a->chunk > b->chunk;
}

/* Fill 'd' with every chunk of 'c' that has a document, by document name, then file order. */
static void corpus_docs_build(struct corpus_docs *d, const struct corpus *c)
{
	corpus_docs_release(d);
	d->items = xcalloc(c->nr ? c->nr : 1, sizeof(*d->items));
	for (size_t i = 0; i < c->nr; i++) {
		struct doc_chunk *e = &d->items[d->nr];

		if ((e->name = doc_of(&c->chunks[i], &e->len))) {
			e->chunk = i;
			d->nr++;
		}
	}
	qsort(d->items, d->nr, sizeof(*d->items), cmp_doc_chunk);
	d->built = true;
	d->chunks = c->nr;
}

/* Append the hint naming the chunks of document 'id' to 'out' and return how
 * many were named, or 0 when 'c' has no document 'id'. */
static size_t add_doc_chunks(const struct corpus *c, const char *id, struct strbuf *out)
{
	struct corpus_docs tmp = { NULL, 0, 0, false }, *d = c->docs ? c->docs : &tmp;
	size_t len = strlen(id), lo = 0, hi, n, shown;

	if (!d->built || d->chunks != c->nr)  /* not built yet, or chunks were added since */
		corpus_docs_build(d, c);
	/* the first chunk of the document, if any */
	hi = d->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (name_cmp(d->items[mid].name, d->items[mid].len, id, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (n = 0; lo + n < d->nr && !name_cmp(d->items[lo + n].name, d->items[lo + n].len, id, len); n++)
		;
	shown = n < CORPUS_HINT_DOC_CHUNKS ? n : CORPUS_HINT_DOC_CHUNKS;
	if (n == 1)
		strbuf_addf(out, "; '%s' is a document, not a chunk: its one chunk is", id);
	else if (n)
		strbuf_addf(out, "; '%s' is a document, not a chunk: its %zu chunks are", id, n);
	for (size_t i = 0; i < shown; i++)
		strbuf_addf(out, "%s '%s'", i ? "," : "", c->chunks[d->items[lo + i].chunk].id);
	if (n > shown)
		strbuf_addf(out, " and %zu more", n - shown);
	corpus_docs_release(&tmp);
	return shown;
}

size_t corpus_did_you_mean(const struct corpus *c, const char *id, struct strbuf *out)
{
	struct suggest_index tmp = SUGGEST_INDEX_INIT, *ix = c->ids ? c->ids : &tmp;
	size_t len = strlen(id), max = suggest_max_for(len), n;
	struct suggest sg;

	if ((n = add_doc_chunks(c, id, out)))
		return n;
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

size_t chunk_id_doc_len(const char *id)
{
	const char *hash = strrchr(id, '#'), *p;

	if (!hash || hash == id)
		return 0;
	p = hash + 1;
	for (int i = 0; i < 12; i++, p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	if (*p == '-') {
		if (!p[1])
			return 0;
		for (p++; *p; p++)
			if (*p < '0' || *p > '9')
				return 0;
	}
	return *p ? 0 : (size_t)(hash - id);
}

const char *chunk_doc(const struct corpus *corpus, const char *chunk, struct strbuf *buf)
{
	const struct chunk *c = corpus ? corpus_get(corpus, chunk) : NULL;
	size_t n;

	if (c && c->doc)
		return c->doc;
	if (!(n = chunk_id_doc_len(chunk)))
		return NULL;
	strbuf_reset(buf);
	strbuf_add(buf, chunk, n);
	return buf->buf;
}

bool corpus_has_documents(const struct corpus *corpus)
{
	for (size_t i = 0; i < corpus->nr; i++)
		if (corpus->chunks[i].doc || chunk_id_doc_len(corpus->chunks[i].id))
			return true;
	return false;
}
