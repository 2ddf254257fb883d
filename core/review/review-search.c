/*
 * review-search: the whole corpus searched from the page (review_search),
 * so that a relevant chunk outside the labelled ones and the BM25 top 5
 * can be found and labelled. Read only: labelling a hit is a write like
 * any other (review_apply's "label", stale-checked).
 *
 * A query is tried, in this order, as a chunk id (exactly), as a
 * document's name (exactly, with or without "doc:": its chunks in corpus
 * order) and as words (the BM25 index the review holds); the hits of each
 * follow those of the one before, each chunk once, REVIEW_SEARCH_HITS at
 * most.
 */
#include "review/review.h"
#include "base/jsontree.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

struct hits {
	cJSON *list;
	size_t got[REVIEW_SEARCH_HITS], nr;
	bool more;   /* some left out for the cap */
};

/* Add chunk 'i' of the corpus to 'h' once, found 'how' (BM25: with 'score'). */
static void add_hit(const struct review *r, struct hits *h, size_t i, const char *how, double score)
{
	const struct chunk *ch = &r->corpus.chunks[i];
	struct strbuf buf = STRBUF_INIT;
	cJSON *o;

	for (size_t k = 0; k < h->nr; k++)
		if (h->got[k] == i)
			return;
	if (h->nr == REVIEW_SEARCH_HITS) {
		h->more = true;
		return;
	}
	h->got[h->nr++] = i;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "chunk", ch->id);
	json_add_str_or_null(o, "doc", chunk_doc(&r->corpus, ch->id, &buf));
	json_add_str_or_null(o, "title", ch->title);
	cJSON_AddStringToObject(o, "text", ch->text ? ch->text : "");
	cJSON_AddStringToObject(o, "how", how);
	if (score >= 0)
		cJSON_AddNumberToObject(o, "score", score);
	cJSON_AddItemToArray(h->list, o);
	strbuf_release(&buf);
}

int review_search(struct review *r, const char *query, struct strbuf *out)
{
	struct bm25_hit found[REVIEW_SEARCH_HITS];
	struct strbuf q = STRBUF_INIT, buf = STRBUF_INIT;
	struct hits h = { NULL, { 0 }, 0, false };
	const struct chunk *ch;
	const char *name;
	cJSON *root = cJSON_CreateObject();
	char *json;
	int status = 200;

	strbuf_addstr(&q, query ? query : "");
	strbuf_trim(&q);
	if (r->kind != REVIEW_SET || !r->have_corpus) {
		cJSON_AddStringToObject(root, "error", "no corpus to search: the set names none");
		status = 422;
		goto out;
	}
	if (!q.len || q.len > REVIEW_SEARCH_MAX_QUERY) {
		cJSON_AddStringToObject(root, "error", "a search needs words, a chunk id or a document's name");
		status = 400;
		goto out;
	}
	cJSON_AddStringToObject(root, "query", q.buf);
	h.list = cJSON_AddArrayToObject(root, "hits");
	if ((ch = corpus_get(&r->corpus, q.buf)))
		add_hit(r, &h, (size_t)(ch - r->corpus.chunks), "id", -1);
	name = starts_with(q.buf, "doc:") ? q.buf + 4 : q.buf;
	for (size_t i = 0; i < r->corpus.nr; i++) {
		const char *doc = chunk_doc(&r->corpus, r->corpus.chunks[i].id, &buf);
		if (doc && !strcmp(doc, name))
			add_hit(r, &h, i, "document", -1);
	}
	if (r->have_bm25) {
		size_t n = bm25_search(&r->bm25, q.buf, REVIEW_SEARCH_HITS, found);
		for (size_t i = 0; i < n; i++)
			add_hit(r, &h, found[i].doc, "words", found[i].score);
	}
	cJSON_AddBoolToObject(root, "more", h.more);
out:
	json = cJSON_PrintUnformatted(root);
	strbuf_addstr(out, json);
	free(json);
	cJSON_Delete(root);
	strbuf_release(&q);
	strbuf_release(&buf);
	return status;
}
