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

/* Add the title and text of chunk 'id' to 'chunks' once ('seen': the ids
 * added, a hash: the object's own look-up is a scan). */
static void add_chunk(const struct review *r, cJSON *chunks, struct strmap *seen, const char *id)
{
	const struct chunk *ch;
	cJSON *o;
	int added;

	if (!r->have_corpus || !(ch = corpus_get(&r->corpus, id)))
		return;
	strmap_intern(seen, id, strlen(id), &added);
	if (!added)
		return;
	o = cJSON_AddObjectToObject(chunks, id);
	if (ch->title)
		cJSON_AddStringToObject(o, "title", ch->title);
	cJSON_AddStringToObject(o, "text", ch->text ? ch->text : "");
}

/* Return BM25's top hits for 'query', worked out once per text for the
 * corpus held (review.h, 'top'). */
static const struct review_top *top_hits(struct review *r, const char *query)
{
	struct review_top *t = strmap_get(&r->top, query);

	if (t)
		return t;
	if (r->top.size >= REVIEW_BM25_KEPT)
		strmap_clear(&r->top, 1);
	t = xcalloc(1, sizeof(*t));
	t->nr = bm25_search(&r->bm25, query, REVIEW_BM25_TOP, t->hit);
	strmap_put(&r->top, query, t);
	return t;
}

/* Append to 'out' the BM25 top 'k' for 'query' ({chunk, score}) and their
 * texts to 'chunks'; nothing without BM25. */
static void add_bm25_hits(struct review *r, const char *query, size_t k, cJSON *out,
			  cJSON *chunks, struct strmap *seen)
{
	const struct review_top *t;

	if (!r->have_bm25)
		return;
	t = top_hits(r, query);
	for (size_t i = 0; i < t->nr && i < k; i++) {
		const char *id = r->corpus.chunks[t->hit[i].doc].id;
		cJSON *h = cJSON_CreateObject();

		cJSON_AddStringToObject(h, "chunk", id);
		cJSON_AddNumberToObject(h, "score", t->hit[i].score);
		cJSON_AddItemToArray(out, h);
		add_chunk(r, chunks, seen, id);
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
static void state_stale(struct review *r, const struct question *q, const struct corpus *old,
			cJSON *chunks, struct strmap *seen, cJSON *j)
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
		add_bm25_hits(r, query.buf, 3, near, chunks, seen);
	strbuf_release(&query);
}

/* Return 'q' (not stale) as the page reads it: its fields, its BM25 top
 * ("bm25"), and the texts of its chunks added to 'chunks'. */
static cJSON *question_json(struct review *r, const struct question *q, cJSON *chunks, struct strmap *seen)
{
	cJSON *j = question_to_json(q);

	for (size_t k = 0; k < q->nr_relevant; k++)
		add_chunk(r, chunks, seen, q->relevant[k].chunk);
	for (size_t k = 0; k < q->nr_irrelevant; k++)
		add_chunk(r, chunks, seen, q->irrelevant[k]);
	if (r->have_bm25 && q->text)
		add_bm25_hits(r, q->text, REVIEW_BM25_TOP, cJSON_AddArrayToObject(j, "bm25"), chunks, seen);
	return j;
}

cJSON *review_question_change(struct review *r, const struct question *q)
{
	struct strmap seen = STRMAP_INIT;
	cJSON *o, *chunks;

	if (is_stale(q))
		return NULL;   /* what remap lost is worked out with the whole set: the page reloads */
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", q->id);
	chunks = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "question", question_json(r, q, chunks, &seen));
	cJSON_AddItemToObject(o, "chunks", chunks);
	strmap_clear(&seen, 0);
	return o;
}

void review_history_json(const struct review *r, cJSON *root)
{
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
}

static void state_set(struct review *r, const struct set *s, size_t rejected, cJSON *root)
{
	struct strmap seen = STRMAP_INIT;
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
		if (pass == 0) {
			/* the stale first: what remap lost, then as any other */
			cJSON *tmp = cJSON_CreateObject();
			state_stale(r, q, have_old ? &old : NULL, chunks, &seen, tmp);
			j = question_json(r, q, chunks, &seen);
			cJSON_AddItemToObject(j, "stale", cJSON_DetachItemFromObjectCaseSensitive(tmp, "stale"));
			cJSON_Delete(tmp);
		} else {
			j = question_json(r, q, chunks, &seen);
		}
		cJSON_AddItemToArray(qs, j);
	}
	strmap_clear(&seen, 0);
	corpus_release(&old);
}


/* Add the agreement of the people's grades with the judge's (pool/agreement.h)
 * over the pairs that have both, as `evalset judge --against` measures it. */
static void state_agreement(const struct agreement *a, cJSON *root)
{
	cJSON *o = cJSON_AddObjectToObject(root, "agreement"), *t;
	long bin[2][2];
	double lo, hi;

	cJSON_AddNumberToObject(o, "pairs", (double)a->n);
	json_add_num_or_null(o, "exact", observed_agreement(&a->table[0][0], AGREEMENT_LEVELS));
	json_add_num_or_null(o, "kappa", agreement_kappa(a));
	kappa_interval(&a->table[0][0], AGREEMENT_LEVELS, 1, &lo, &hi);
	json_add_num_or_null(o, "kappa_lo", lo);
	json_add_num_or_null(o, "kappa_hi", hi);
	agreement_binary(a, 1, bin);
	json_add_num_or_null(o, "binary_exact", observed_agreement(&bin[0][0], 2));
	json_add_num_or_null(o, "binary_kappa", agreement_kappa_binary(a, 1));
	kappa_interval(&bin[0][0], 2, 1, &lo, &hi);
	json_add_num_or_null(o, "binary_kappa_lo", lo);
	json_add_num_or_null(o, "binary_kappa_hi", hi);
	cJSON_AddNumberToObject(o, "few_pairs", KAPPA_FEW_PAIRS);
	t = cJSON_AddArrayToObject(o, "table");
	for (int i = 0; i < AGREEMENT_LEVELS; i++) {
		cJSON *row = cJSON_CreateArray();
		for (int j = 0; j < AGREEMENT_LEVELS; j++)
			cJSON_AddItemToArray(row, cJSON_CreateNumber((double)a->table[i][j]));
		cJSON_AddItemToArray(t, row);
	}
}

/* Return true when the grade of 'pp' is the judge's (an LLM's), not a person's. */
static bool judge_graded(const struct pool_pair *pp)
{
	return pp->grade >= 0 && starts_with(pool_pair_judge(pp), "llm:");
}

/* Count 'pp' in 'agr' when a person and the judge both graded it. */
static void pair_agreement(const struct pool_pair *pp, struct agreement *agr)
{
	if (!judge_graded(pp) && pp->grade >= 0 && pp->llm_grade >= 0)
		agreement_add(agr, pp->grade, pp->llm_grade);
}

/* Return the pair 'pp' as the page reads it. */
static cJSON *pair_json(const struct pool_pair *pp)
{
	cJSON *o = cJSON_CreateObject();
	bool llm = judge_graded(pp);

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
	json_add_str_or_null(o, "reviewed_by", pp->reviewed_by);
	json_add_str_or_null(o, "reviewed_at", pp->reviewed_at);
	return o;
}

cJSON *review_pair_change(const struct pool *p, const char *id, const struct pool_pair *pp)
{
	struct agreement agr = AGREEMENT_INIT;
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < p->nr; i++)
		for (size_t j = 0; j < p->q[i].nr; j++)
			pair_agreement(&p->q[i].pairs[j], &agr);
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddItemToObject(o, "pair", pair_json(pp));
	state_agreement(&agr, o);
	return o;
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
			pair_agreement(&pq->pairs[j], &agr);
			cJSON_AddItemToArray(pairs, pair_json(&pq->pairs[j]));
		}
		cJSON_AddItemToArray(qs, q);
	}
	state_agreement(&agr, root);
}

int review_state(struct review *r, struct strbuf *out)
{
	struct set s = SET_INIT, rejected = SET_INIT;
	struct strbuf bytes = STRBUF_INIT;
	char digest[72];
	cJSON *root = NULL;
	char *json;
	int rc = -1;

	/* a pool: the digest of the very bytes shown, parsed unless held */
	if (r->kind == REVIEW_POOL ? review_pool_read(r, &bytes, digest) < 0 : file_sha256(r->file, digest) < 0)
		goto out;
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "kind", r->kind == REVIEW_SET ? "set" : "pool");
	cJSON_AddStringToObject(root, "file", r->file);
	cJSON_AddStringToObject(root, "digest", digest);
	cJSON_AddStringToObject(root, "reviewer", r->reviewer);
	review_history_json(r, root);
	if (r->kind == REVIEW_SET) {
		if (set_load(&s, r->file) < 0 || rejected_load(&r->ref, &rejected) < 0 || review_refresh_corpus(r, &s) < 0)
			goto out;
		state_set(r, &s, rejected.nr, root);
	} else {
		if (review_pool_hold(r, &bytes, digest) < 0)
			goto out;
		state_pool(&r->pool, root);
	}
	json = cJSON_PrintUnformatted(root);
	strbuf_addstr(out, json);
	free(json);
	rc = 0;
out:
	cJSON_Delete(root);
	strbuf_release(&bytes);
	set_release(&s);
	set_release(&rejected);
	return rc;
}
