/*
 * generate-result: one reply of `evalset generate`, live or from a Batch API
 * file: journal it, run each proposed question through the filters (empty,
 * too long, wrong language, refers to its source, near-duplicate, copied,
 * overlap, difficulty band), add the kept
 * ones to the set with their provenance, and save the set at checkpoints.
 *
 * Invariants: a journal record is written (to the kernel: it survives kill -9)
 * before its questions reach the set in memory, and fsync'ed (about once a
 * second, and always before the set file is saved) before they can reach the
 * file; the set file is only ever replaced atomically (set_save) and a
 * checkpoint record follows each save, so the records after the last
 * checkpoint are exactly those whose questions may be missing from the file.
 *
 * Duplicates are found through text/dupindex.h (text_near_duplicate's
 * definition, without re-tokenising the whole set for every question).
 *
 * Called by generate.c and generate-batch.c; calls only generate-plan.c
 * among the generate files.
 */
#include "llm/generate-internal.h"
#include "chunk/remap.h"
#include "set/corpus.h"
#include "text/dupindex.h"
#include "base/error.h"
#include "llm/journal.h"
#include "llm/llmjob.h"
#include "set/set.h"
#include "base/jsontree.h"
#include "base/strmap.h"
#include "text/lang.h"
#include "text/selfref.h"
#include "text/text.h"
#include "base/util.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int gen_save(struct gen *g)
{
	cJSON *rec;
	int rc;

	if (!g->dirty && !g->records_since_save)
		return 0;
	/* the set file never holds questions whose journal record could be lost */
	if (g->journal_open && journal_sync(&g->journal))
		return -1;
	g->last_save = llmjob_now_ms();
	if (g->dirty) {
		if (set_save(g->set, g->o->set_file) || set_id_floor_write(g->o->ref, g->floor))
			return -1;
		g->dirty = false;
	}
	g->records_since_save = 0;
	if (!g->journal_open)
		return 0;
	rec = cJSON_CreateObject();
	cJSON_AddBoolToObject(rec, "checkpoint", 1);
	rc = journal_append(&g->journal, rec);
	cJSON_Delete(rec);
	return rc;
}

/*
 * Record on 'q' the evidence of its label: the model's 'quote' where chunk
 * 'ch' (or 'nb') holds it, as that chunk's own text with its span in the
 * document; otherwise the span of 'ch' when the corpus has spans. Return
 * false when a quote was given but is in neither chunk.
 */
static bool record_evidence(struct question *q, const char *quote, const struct chunk *ch,
			    const struct chunk *nb)
{
	const struct chunk *in[2] = { ch, nb };
	struct evidence e;

	memset(&e, 0, sizeof(e));
	for (size_t i = 0; i < 2 && quote && *quote; i++) {
		long start, end;
		char *found = in[i] ? remap_quote_in_chunk(in[i], quote, &start, &end) : NULL;

		if (!found)
			continue;
		e.chunk = in[i]->id;
		e.doc = start >= 0 ? in[i]->doc : NULL;
		e.start = start;
		e.end = end;
		e.quote = found;
		question_add_evidence(q, &e);
		free(found);
		return true;
	}
	if (ch->doc && ch->start >= 0) {
		e.chunk = ch->id;
		e.doc = ch->doc;
		e.start = ch->start;
		e.end = ch->end;
		question_add_evidence(q, &e);
	}
	return !quote || !*quote;
}

/* Return true when no question of 's' but 'self' is in conversation 'id' at turn 'from' or later. */
static bool conversation_free(const struct set *s, const char *id, long from, const struct question *self)
{
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *p = &s->q[i];
		if (p != self && p->conversation && !strcmp(p->conversation, id) && p->turn >= from)
			return false;
	}
	return true;
}

/*
 * Make 'q' (appended to the set) the follow-up of the question at set index
 * 'at': its history is the earlier question's history, then its text said
 * by the user, then its answer said by the assistant (when the set has one:
 * the model is not asked to invent one), and its turn the next. It continues
 * the earlier question's conversation when no question holds that turn or a
 * later one; otherwise (and when the earlier question has no conversation)
 * it starts one named after the earlier question ("q-0007", then "q-0007.2",
 * ...), unused in the set. The earlier question is never edited: its digest,
 * and the runs made on it, stay as they are.
 */
static void make_follow_up(struct gen *g, size_t at, struct question *q)
{
	const struct question *e = &g->set->q[at];
	size_t users = 0;
	long turn;
	char *id = NULL;

	for (size_t i = 0; i < e->nr_history; i++) {
		question_add_turn(q, e->history[i].role, e->history[i].text);
		users += e->history[i].role && !strcmp(e->history[i].role, TURN_USER);
	}
	question_add_turn(q, TURN_USER, e->text);
	if (e->answer && *e->answer)
		question_add_turn(q, TURN_ASSISTANT, e->answer);
	turn = e->conversation && e->turn > 0 ? e->turn + 1 : (long)users + 2;
	if (e->conversation && conversation_free(g->set, e->conversation, turn, q))
		id = xstrdup(e->conversation);
	for (int n = 1; !id; n++) {
		char *try = n == 1 ? xstrdup(e->id) : xstrfmt("%s.%d", e->id, n);
		if (conversation_free(g->set, try, 1, q))
			id = try;
		else
			free(try);
	}
	q->conversation = id;
	q->turn = turn;
}

/* Run one question through the filters and append it when kept; a
 * follow-up continues the question at set index 'earlier'. */
static void consider(struct gen *g, const cJSON *rec, const cJSON *qj, long sample,
		     const struct chunk *ch, const struct chunk *nb, enum gen_kind kind, size_t earlier)
{
	struct strbuf text = STRBUF_INIT, both = STRBUF_INIT;
	const char *answer = json_get_str(qj, "answer");
	struct gen_stats *st = g->st;
	struct question *q;
	double overlap, copied;
	long rank = 0;
	enum gen_band band = GEN_NR_BANDS;
	bool quote_found;
	const struct dup_entry *dup;
	char *id;
	cJSON *prov;

	st->proposed++;
	strbuf_addstr(&text, json_get_str(qj, "question") ? json_get_str(qj, "question") : "");
	/* one line of text: newlines in a question are noise */
	for (size_t i = 0; i < text.len; i++)
		if (text.buf[i] == '\n' || text.buf[i] == '\r' || text.buf[i] == '\t')
			text.buf[i] = ' ';
	strbuf_trim(&text);
	if (!text.len) {
		st->drop_empty++;
		goto out;
	}
	if ((long)utf8_chars(text.buf, text.len) > g->o->max_chars || !utf8_valid(text.buf, text.len, NULL)) {
		st->drop_long++;
		goto out;
	}
	if (!lang_text_fits(text.buf, text.len, gen_question_lang(g, ch))) {
		st->drop_language++;
		goto out;
	}
	if (text_source_reference(text.buf, text.len, NULL)) {
		st->drop_reference++;
		goto out;
	}
	dup = dup_index_find(&g->dups, text.buf, TEXT_NEAR_DUP_THRESHOLD);
	if (dup) {
		if (dup->tag == DUP_REJECTED)
			st->drop_rejected++;
		else if (dup->tag)
			st->drop_dup_run++;
		else
			st->drop_dup_set++;
		goto out;
	}
	copied = text_copied_share(text.buf, ch->text);
	if (nb) {
		double c2 = text_copied_share(text.buf, nb->text);
		if (c2 > copied)
			copied = c2;
	}
	if (g->o->max_copied <= 1 && copied >= g->o->max_copied && kind != GEN_UNANSWERABLE) {
		st->drop_copied++;
		goto out;
	}
	strbuf_addstr(&both, ch->text);
	if (nb) {
		strbuf_addch(&both, '\n');
		strbuf_addstr(&both, nb->text);
	}
	overlap = text_overlap(text.buf, both.buf);
	if (g->o->max_overlap <= 1 && overlap > g->o->max_overlap) {
		st->drop_overlap++;
		goto out;
	}
	if (kind != GEN_UNANSWERABLE) {
		const struct chunk *base = g->o->corpus->chunks;
		rank = gen_rank(g, text.buf, (size_t)(ch - base), nb ? (size_t)(nb - base) : SIZE_MAX);
		band = gen_band_of(rank);
		if (g->o->difficulty && !(g->o->difficulty & (1u << band))) {
			st->drop_difficulty++;
			goto out;
		}
	}
	id = set_next_id(g->set, g->floor);
	if (question_id_number(id) > g->floor)
		g->floor = question_id_number(id);
	q = set_append(g->set);
	q->id = id;
	q->text = strbuf_detach(&text, NULL);
	q->origin = ORIGIN_SYNTHETIC;
	/* recorded where it is not the set's own: a cross-lingual question */
	if (g->o->question_language && (!g->set->language || strcmp(g->set->language, g->o->question_language)))
		q->language = xstrdup(g->o->question_language);
	if (kind == GEN_UNANSWERABLE) {
		q->answerable = false;
	} else {
		question_set_label(q, ch->id, 1);
		if (nb)
			question_set_label(q, nb->id, 1);
		q->relevant_as_list = true;
	}
	if (answer && *answer && kind != GEN_UNANSWERABLE)
		q->answer = xstrdup(answer);
	if (kind == GEN_FOLLOWUP)
		make_follow_up(g, earlier, q);
	quote_found = kind == GEN_UNANSWERABLE ||
		      record_evidence(q, json_get_str(qj, "quote"), ch, nb);
	prov = cJSON_CreateObject();
	cJSON_AddStringToObject(prov, "chunk", ch->id);
	if (nb)
		cJSON_AddStringToObject(prov, "neighbour", nb->id);
	cJSON_AddStringToObject(prov, "kind", gen_kind_name(kind));
	if (kind == GEN_FOLLOWUP)
		cJSON_AddStringToObject(prov, "earlier", g->set->q[earlier].id);
	if (json_get_str(rec, "model"))
		cJSON_AddStringToObject(prov, "model", json_get_str(rec, "model"));
	if (json_get_str(rec, "prompt"))
		cJSON_AddStringToObject(prov, "prompt", json_get_str(rec, "prompt"));
	{
		const cJSON *seed = cJSON_GetObjectItemCaseSensitive(rec, "seed");
		if (cJSON_IsNumber(seed))
			cJSON_AddNumberToObject(prov, "seed", seed->valuedouble);
	}
	cJSON_AddNumberToObject(prov, "sample", (double)sample);
	cJSON_AddNumberToObject(prov, "overlap", round(overlap * 100) / 100);
	{
		const char *persona = gen_persona(g, (size_t)(ch - g->o->corpus->chunks));
		if (persona)
			cJSON_AddStringToObject(prov, "persona", persona);
	}
	if (band != GEN_NR_BANDS) {
		if (rank)
			cJSON_AddNumberToObject(prov, "bm25_rank", (double)rank);
		cJSON_AddStringToObject(prov, "difficulty", gen_band_name(band));
	}
	if (!quote_found)
		cJSON_AddStringToObject(prov, "quote", "not in the chunk: dropped");
	q->provenance = prov;
	{
		/* a long answer or chunk id: the set could not read it back */
		struct strbuf why = STRBUF_INIT;
		bool bad = question_writable(q, &why) < 0;

		strbuf_release(&why);
		if (bad) {
			question_release(q);
			g->set->nr--;
			st->drop_long++;
			goto out;
		}
	}
	dup_index_add(&g->dups, q->text, DUP_RUN);
	ALLOC_GROW(st->overlaps, st->nr_overlaps + 1, st->alloc_overlaps);
	st->overlaps[st->nr_overlaps++] = overlap;
	if (band != GEN_NR_BANDS)
		st->bands[band]++;
	st->kept++;
	g->dirty = true;
out:
	strbuf_release(&text);
	strbuf_release(&both);
}

/* Apply the questions of journal record 'rec' to the set. */
void gen_apply_record(struct gen *g, const cJSON *rec)
{
	const struct corpus *c = g->o->corpus;
	const char *cid = json_get_str(rec, "chunk"), *nid = json_get_str(rec, "neighbour");
	const char *status = json_get_str(rec, "status"), *kname = json_get_str(rec, "kind");
	const char *eid = json_get_str(rec, "earlier");
	const struct chunk *ch, *nb = NULL;
	const cJSON *qs, *q;
	int kind;
	long sample = 0, earlier = -1;

	if (!status || strcmp(status, "ok") || !cid || !kname)
		return;
	kind = gen_kind_parse(kname, strlen(kname));
	ch = corpus_get(c, cid);
	if (nid)
		nb = corpus_get(c, nid);
	if (kind < 0 || !ch || (nid && !nb)) {
		warning("journal record for chunk '%s' does not match the corpus; skipped", cid);
		return;
	}
	if (kind == GEN_FOLLOWUP && (!eid || (earlier = set_index(g->set, eid)) < 0)) {
		warning("journal record of a follow-up to question '%s' (chunk '%s'): no such question "
			"in the set; skipped", eid ? eid : "", cid);
		return;
	}
	qs = cJSON_GetObjectItemCaseSensitive(rec, "questions");
	cJSON_ArrayForEach(q, qs) {
		if (sample >= g->o->per_chunk && g->o->per_chunk > 0)
			break;
		consider(g, rec, q, sample++, ch, nb, (enum gen_kind)kind, (size_t)earlier);
	}
}

/* Save the set every 'checkpoint_every' seconds of records (default 5). */
void gen_maybe_checkpoint(struct gen *g)
{
	long every = g->o->checkpoint_every > 0 ? g->o->checkpoint_every : 5;

	if (!g->records_since_save || llmjob_now_ms() - g->last_save < every * 1000)
		return;
	if (gen_save(g)) {
		g->abort = true;
		g->abort_code = ERR_INPUT;
	}
}

/* Build the journal record of item 'it' (caller frees). */
static cJSON *new_record(struct gen *g, const struct item *it, const char *status)
{
	const struct corpus *c = g->o->corpus;
	cJSON *rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "key", it->key);
	cJSON_AddStringToObject(rec, "status", status);
	cJSON_AddStringToObject(rec, "chunk", c->chunks[it->chunk].id);
	if (it->neighbour != SIZE_MAX)
		cJSON_AddStringToObject(rec, "neighbour", c->chunks[it->neighbour].id);
	cJSON_AddStringToObject(rec, "kind", gen_kind_name(it->kind));
	if (it->earlier != SIZE_MAX)
		cJSON_AddStringToObject(rec, "earlier", g->set->q[it->earlier].id);
	cJSON_AddStringToObject(rec, "model", g->o->llm.model ? g->o->llm.model : "");
	cJSON_AddStringToObject(rec, "prompt", g->prompt_ids[it->kind]);
	cJSON_AddNumberToObject(rec, "seed", (double)g->o->seed);
	cJSON_AddNumberToObject(rec, "sample", 0);
	return rec;
}

void gen_record_result(struct gen *g, struct item *it, const struct llm_result *res)
{
	cJSON *rec;

	if (res->status == LLM_CANCELLED) {
		g->st->cancelled++;
		return;
	}
	if (res->status == LLM_FAILED && !res->answered) {
		g->st->lost++;
		return;
	}
	rec = new_record(g, it, res->status == LLM_OK ? "ok" : "unusable");
	if (res->status == LLM_OK) {
		cJSON *out = cJSON_AddArrayToObject(rec, "questions"), *q;
		cJSON_ArrayForEach(q, cJSON_GetObjectItemCaseSensitive(res->json, "questions")) {
			cJSON *o = cJSON_CreateObject();
			const char *a = json_get_str(q, "answer"), *quote = json_get_str(q, "quote");
			cJSON_AddStringToObject(o, "question", json_get_str(q, "question"));
			if (a && *a)
				cJSON_AddStringToObject(o, "answer", a);
			if (quote && *quote)
				cJSON_AddStringToObject(o, "quote", quote);
			cJSON_AddItemToArray(out, o);
		}
		g->st->answered++;
	} else {
		cJSON_AddStringToObject(rec, "why", res->why ? res->why : "unusable reply");
		g->st->unusable++;
	}
	llmjob_add_usage(rec, res);
	g->records_since_save++;
	if (g->journal_open && journal_write(&g->journal, rec)) {
		g->abort = true;
		g->abort_code = ERR_INPUT;
		cJSON_Delete(rec);
		return;
	}
	it->done = true;
	if (res->status == LLM_OK || !strmap_get(&g->done, it->key))
		strmap_put(&g->done, it->key, (void *)(uintptr_t)(res->status == LLM_OK ? 1 : 2));
	gen_apply_record(g, rec);
	cJSON_Delete(rec);
	gen_maybe_checkpoint(g);
}
