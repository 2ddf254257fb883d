/*
 * review-state: the page's data as JSON (review_state): the set's questions
 * with the chunks they show (labelled ones, BM25's top hits, what a remap
 * lost) or a pool's pairs with the agreement so far, read from the file as
 * it is on disk now, with the digest that writes must quote.
 */
#include "review/review.h"
#include "review/review-internal.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/util.h"
#include "pool/agreement.h"
#include "pool/pool.h"
#include "set/corpusstore.h"
#include "set/rejected.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* Add the title and text of chunk 'id' to 'chunks' once. */
static void add_chunk(const struct review *r, cJSON *chunks, const char *id)
{
	const struct chunk *ch;
	cJSON *o;

	if (!r->have_corpus || cJSON_GetObjectItemCaseSensitive(chunks, id) || !(ch = corpus_get(&r->corpus, id)))
		return;
	o = cJSON_AddObjectToObject(chunks, id);
	if (ch->title)
		cJSON_AddStringToObject(o, "title", ch->title);
	cJSON_AddStringToObject(o, "text", ch->text ? ch->text : "");
}

/* Append to 'out' the BM25 top 'k' for 'query' ({chunk, score}) and their
 * texts to 'chunks'; nothing without BM25. */
static void add_bm25_hits(const struct review *r, const char *query, size_t k, cJSON *out,
			  cJSON *chunks)
{
	struct bm25_hit hits[REVIEW_BM25_TOP];
	size_t n;

	if (!r->have_bm25)
		return;
	n = bm25_search(&r->bm25, query, k < REVIEW_BM25_TOP ? k : REVIEW_BM25_TOP, hits);
	for (size_t i = 0; i < n; i++) {
		const char *id = r->corpus.chunks[hits[i].doc].id;
		cJSON *h = cJSON_CreateObject();

		cJSON_AddStringToObject(h, "chunk", id);
		cJSON_AddNumberToObject(h, "score", hits[i].score);
		cJSON_AddItemToArray(out, h);
		add_chunk(r, chunks, id);
	}
}

static bool is_stale(const struct question *q)
{
	return question_has_tag(q, "stale") || question_has_tag(q, "unmapped");
}

/*
 * Add to 'j' (question 'q', tagged stale or unmapped) what remap lost:
 * "stale": {"evidence": [{chunk, doc, start, end, quote, text}], "nearest":
 * [{chunk, score}]}: the evidence of its old labels (provenance
 * remapped_from.stale_evidence), with the old chunk's text from the copy of
 * the corpus it was labelled on when one is kept ('old', may be NULL), and
 * the chunks of the corpus BM25 finds nearest to that evidence.
 */
static void state_stale(const struct review *r, const struct question *q, const struct corpus *old,
			cJSON *chunks, cJSON *j)
{
	const cJSON *from = q->provenance ? cJSON_GetObjectItemCaseSensitive(q->provenance, "remapped_from") : NULL;
	const cJSON *ev = cJSON_IsObject(from) ? cJSON_GetObjectItemCaseSensitive(from, "stale_evidence") : NULL;
	cJSON *o = cJSON_AddObjectToObject(j, "stale"), *list = cJSON_AddArrayToObject(o, "evidence");
	cJSON *near = cJSON_AddArrayToObject(o, "nearest");
	struct strbuf query = STRBUF_INIT;
	const cJSON *it;

	cJSON_ArrayForEach(it, ev) {
		const char *chunk = json_get_str(it, "chunk"), *quote = json_get_str(it, "quote");
		const struct chunk *oc = old && chunk ? corpus_get(old, chunk) : NULL;
		cJSON *e = cJSON_Duplicate(it, 1);

		if (!cJSON_IsObject(it))
			continue;
		if (oc)
			cJSON_AddStringToObject(e, "text", oc->text);
		cJSON_AddItemToArray(list, e);
		strbuf_addf(&query, "%s ", quote ? quote : oc ? oc->text : "");
	}
	if (query.len)
		add_bm25_hits(r, query.buf, 3, near, chunks);
	strbuf_release(&query);
}

static void state_set(const struct review *r, const struct set *s, size_t rejected, cJSON *root)
{
	cJSON *qs = cJSON_AddArrayToObject(root, "questions");
	cJSON *chunks = cJSON_AddObjectToObject(root, "chunks");
	struct corpus old = CORPUS_INIT;
	const char *old_fp = NULL;
	bool have_old = false;

	cJSON_AddStringToObject(root, "name", s->name ? s->name : r->ref.name);
	cJSON_AddBoolToObject(root, "bm25", r->have_bm25);
	cJSON_AddNumberToObject(root, "rejected", (double)rejected);
	/* the corpus stale questions were labelled on, when a copy is kept */
	for (size_t i = 0; i < s->nr && !old_fp; i++) {
		const cJSON *from = s->q[i].provenance ?
			cJSON_GetObjectItemCaseSensitive(s->q[i].provenance, "remapped_from") : NULL;
		if (is_stale(&s->q[i]) && cJSON_IsObject(from))
			old_fp = json_get_str(from, "corpus");
	}
	if (old_fp && r->have_ref)
		have_old = corpus_store_get(r->ref.dir, old_fp, &old) == 1;
	/* stale questions first: they need a person before the set is tagged */
	for (size_t at = 0; at < 2 * s->nr; at++) {
		size_t pass = at / s->nr, i = at % s->nr;
		const struct question *q = &s->q[i];
		cJSON *j;

		if (is_stale(q) != (pass == 0))
			continue;
		j = question_to_json(q);
		if (pass == 0)
			state_stale(r, q, have_old ? &old : NULL, chunks, j);
		for (size_t k = 0; k < q->nr_relevant; k++)
			add_chunk(r, chunks, q->relevant[k].chunk);
		for (size_t k = 0; k < q->nr_irrelevant; k++)
			add_chunk(r, chunks, q->irrelevant[k]);
		if (r->have_bm25 && q->text)
			add_bm25_hits(r, q->text, REVIEW_BM25_TOP, cJSON_AddArrayToObject(j, "bm25"), chunks);
		cJSON_AddItemToArray(qs, j);
	}
	corpus_release(&old);
}


/* Add the agreement of the people's grades with the judge's (pool/agreement.h)
 * over the pairs that have both, as `evalset judge --against` measures it. */
static void state_agreement(const struct agreement *a, cJSON *root)
{
	cJSON *o = cJSON_AddObjectToObject(root, "agreement"), *t;
	long bin[2][2];

	cJSON_AddNumberToObject(o, "pairs", (double)a->n);
	json_add_num_or_null(o, "exact", observed_agreement(&a->table[0][0], AGREEMENT_LEVELS));
	json_add_num_or_null(o, "kappa", agreement_kappa(a));
	agreement_binary(a, 1, bin);
	json_add_num_or_null(o, "binary_exact", observed_agreement(&bin[0][0], 2));
	json_add_num_or_null(o, "binary_kappa", agreement_kappa_binary(a, 1));
	t = cJSON_AddArrayToObject(o, "table");
	for (int i = 0; i < AGREEMENT_LEVELS; i++) {
		cJSON *row = cJSON_CreateArray();
		for (int j = 0; j < AGREEMENT_LEVELS; j++)
			cJSON_AddItemToArray(row, cJSON_CreateNumber((double)a->table[i][j]));
		cJSON_AddItemToArray(t, row);
	}
}

static void state_pool(const struct pool *p, cJSON *root)
{
	cJSON *qs = cJSON_AddArrayToObject(root, "questions");
	struct agreement agr = AGREEMENT_INIT;

	cJSON_AddStringToObject(root, "name", p->set_name ? p->set_name : "");
	json_add_str_or_null(root, "version", p->set_version);
	for (size_t i = 0; i < p->nr; i++) {
		const struct pool_question *pq = &p->q[i];
		cJSON *q = cJSON_CreateObject(), *pairs;

		cJSON_AddStringToObject(q, "id", pq->id);
		json_add_str_or_null(q, "text", pq->text);
		pairs = cJSON_AddArrayToObject(q, "pairs");
		for (size_t j = 0; j < pq->nr; j++) {
			const struct pool_pair *pp = &pq->pairs[j];
			cJSON *o = cJSON_CreateObject();
			bool llm = pp->grade >= 0 && starts_with(pool_pair_judge(pp), "llm:");

			cJSON_AddStringToObject(o, "chunk", pp->chunk);
			json_add_str_or_null(o, "title", pp->title);
			json_add_str_or_null(o, "text", pp->text);
			/* the person's grade, and the judge's apart, whichever order they came in */
			cJSON_AddNumberToObject(o, "grade", llm ? -1 : pp->grade);
			if (llm) {
				cJSON_AddNumberToObject(o, "llm_grade", pp->grade);
				cJSON_AddStringToObject(o, "llm_judge", pp->judge);
			} else if (pp->llm_grade >= 0) {
				cJSON_AddNumberToObject(o, "llm_grade", pp->llm_grade);
				json_add_str_or_null(o, "llm_judge", pp->llm_judge);
			}
			if (llm || pp->llm_grade >= 0)
				json_add_str_or_null(o, "llm_reason", pp->reason);
			if (!llm && pp->grade >= 0 && pp->llm_grade >= 0)
				agreement_add(&agr, pp->grade, pp->llm_grade);
			json_add_str_or_null(o, "reviewed_by", pp->reviewed_by);
			json_add_str_or_null(o, "reviewed_at", pp->reviewed_at);
			cJSON_AddItemToArray(pairs, o);
		}
		cJSON_AddItemToArray(qs, q);
	}
	state_agreement(&agr, root);
}

int review_state(struct review *r, struct strbuf *out)
{
	struct set s = SET_INIT, rejected = SET_INIT;
	struct pool p = POOL_INIT;
	char digest[72];
	cJSON *root = NULL;
	char *json;
	int rc = -1;

	if (file_sha256(r->file, digest) < 0)
		return -1;
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "kind", r->kind == REVIEW_SET ? "set" : "pool");
	cJSON_AddStringToObject(root, "file", r->file);
	cJSON_AddStringToObject(root, "digest", digest);
	cJSON_AddStringToObject(root, "reviewer", r->reviewer);
	/* what undo and redo would take back or write again (null: nothing) */
	for (int redo = 0; redo < 2; redo++) {
		size_t nr = redo ? r->nr_redo : r->nr_undo;
		const struct review_change *ch = nr ? &(redo ? r->redo : r->undo)[nr - 1] : NULL;
		cJSON *o;

		if (!ch) {
			cJSON_AddNullToObject(root, redo ? "redo" : "undo");
			continue;
		}
		o = cJSON_AddObjectToObject(root, redo ? "redo" : "undo");
		cJSON_AddStringToObject(o, "what", ch->what);
		cJSON_AddStringToObject(o, "id", ch->id);
		if (ch->chunk)
			cJSON_AddStringToObject(o, "chunk", ch->chunk);
		cJSON_AddNumberToObject(o, "count", (double)nr);
	}
	if (r->kind == REVIEW_SET) {
		if (set_load(&s, r->file) < 0 || rejected_load(&r->ref, &rejected) < 0 || review_refresh_corpus(r, &s) < 0)
			goto out;
		state_set(r, &s, rejected.nr, root);
	} else {
		if (pool_load(&p, r->file) < 0)
			goto out;
		state_pool(&p, root);
	}
	json = cJSON_PrintUnformatted(root);
	strbuf_addstr(out, json);
	free(json);
	rc = 0;
out:
	cJSON_Delete(root);
	pool_release(&p);
	set_release(&s);
	set_release(&rejected);
	return rc;
}
