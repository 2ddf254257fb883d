/*
 * generate: plan, journal, ask, filter, save (see generate.h for the
 * contract: journal keys, checkpoints, filters).
 *
 * Invariants: a request whose key is in the journal is never sent again; a
 * journal record is written (to the kernel: it survives kill -9) before its
 * questions reach the set in memory, and fsync'ed (about once a second, and
 * always before the set file is saved) before they can reach the file; the set
 * file is only ever replaced atomically (set_save) and a checkpoint record
 * follows each save, so the records after the last checkpoint are exactly
 * those whose questions may be missing from the file.
 *
 * Duplicates are found through core/text/dupindex.h (text_near_duplicate's
 * definition, without re-tokenising the whole set for every question).
 *
 * This file is the job loop; the plan and its journal keys are in
 * generate-plan.c, the Batch API files in generate-batch.c (shared state:
 * generate-internal.h).
 */
#include "llm/generate.h"
#include "llm/generate-internal.h"
#include "set/corpus.h"
#include "base/digest.h"
#include "text/dupindex.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "llm/journal.h"
#include "llm/llmjob.h"
#include "llm/prompt.h"
#include "set/rejected.h"
#include "set/set.h"
#include "base/strmap.h"
#include "text/lang.h"
#include "text/text.h"
#include "base/util.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the dup index tags: who holds a text a proposal may repeat */
enum { DUP_SET, DUP_RUN, DUP_REJECTED };

static const char *const kind_names[GEN_NR_KINDS] = {
	"factoid", "paraphrase", "multi-hop", "unanswerable",
};

static const char *const prompt_vars[] = {
	"chunk.text", "chunk.title", "chunk.id", "n", "kind", "neighbour.text",
	"neighbour.title", "neighbour.id", "language", NULL,
};

#define REPLY_SCHEMA \
	"{\"type\":\"object\",\"properties\":{\"questions\":{\"type\":\"array\",\"items\":" \
	"{\"type\":\"object\",\"properties\":{\"question\":{\"type\":\"string\"}," \
	"\"answer\":{\"type\":\"string\"}},\"required\":[\"question\",\"answer\"]," \
	"\"additionalProperties\":false}}},\"required\":[\"questions\"]," \
	"\"additionalProperties\":false}"
#define REPLY_HINT "{\"questions\": [{\"question\": \"...\", \"answer\": \"a short answer, or empty\"}]}"

const char *gen_kind_name(enum gen_kind k)
{
	return k < GEN_NR_KINDS ? kind_names[k] : "?";
}

static int kind_parse(const char *s, size_t len)
{
	for (int k = 0; k < GEN_NR_KINDS; k++)
		if (strlen(kind_names[k]) == len && !memcmp(kind_names[k], s, len))
			return k;
	if (len == 8 && !memcmp(s, "multihop", 8))
		return GEN_MULTIHOP;
	return -1;
}

int gen_kinds_parse(const char *list, unsigned *mask)
{
	const char *s = list;

	*mask = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		int k = kind_parse(s, len);
		if (k < 0)
			return error("unknown kind '%.*s' (known: factoid, paraphrase, multi-hop, unanswerable)",
				     (int)len, s);
		*mask |= 1u << k;
		s += len;
		if (*s == ',')
			s++;
	}
	if (!*mask)
		return error("no kinds given");
	return 0;
}

void gen_stats_release(struct gen_stats *st)
{
	free(st->overlaps);
	st->overlaps = NULL;
	st->nr_overlaps = st->alloc_overlaps = 0;
}

static int load_prompts(struct gen *g)
{
	for (int k = 0; k < GEN_NR_KINDS; k++) {
		char *file, *path;
		if (!(g->o->kinds & (1u << k)))
			continue;
		file = xstrfmt("generate-%s.md", gen_kind_name(k));
		path = path_join(g->o->prompt_dir, file);
		free(file);
		if (!path_exists(path)) {
			error("no prompt for kind '%s': '%s' does not exist (see --prompt-dir)",
			      gen_kind_name(k), path);
			free(path);
			return -1;
		}
		if (prompt_load(&g->prompts[k], path) || prompt_check_vars(&g->prompts[k], prompt_vars)) {
			free(path);
			return -1;
		}
		g->prompt_ids[k] = prompt_id(&g->prompts[k]);
		free(path);
	}
	return 0;
}

/*
 * Return the language questions about 'ch' are written in: --question-language,
 * else the corpus's language from the set, else the one the chunk's text is in.
 */
static const struct lang *question_lang(const struct gen *g, const struct chunk *ch)
{
	if (g->o->question_language)
		return lang_get(g->o->question_language);
	if (g->o->set->corpus.language)
		return lang_get(g->o->set->corpus.language);
	return lang_detect(ch->text, strlen(ch->text));
}

int gen_render(struct gen *g, const struct item *it, struct strbuf *sys, struct strbuf *user)
{
	const struct corpus *c = g->o->corpus;
	const struct chunk *ch = &c->chunks[it->chunk];
	const struct chunk *nb = it->neighbour != SIZE_MAX ? &c->chunks[it->neighbour] : NULL;
	char n[32];
	struct prompt_var vars[] = {
		{ "chunk.text", ch->text }, { "chunk.title", ch->title ? ch->title : "" },
		{ "chunk.id", ch->id }, { "n", n }, { "kind", gen_kind_name(it->kind) },
		{ "neighbour.text", nb ? nb->text : "" },
		{ "neighbour.title", nb && nb->title ? nb->title : "" },
		{ "neighbour.id", nb ? nb->id : "" },
		{ "language", NULL },
	};
	const struct prompt *p = &g->prompts[it->kind];
	const struct lang *l = question_lang(g, ch);

	vars[ARRAY_SIZE(vars) - 1].value = l == lang_und() ? "the language of the passage" : lang_name(l);

	snprintf(n, sizeof(n), "%ld", g->o->per_chunk);
	if (prompt_render(p->system, vars, ARRAY_SIZE(vars), sys) ||
	    prompt_render(p->user, vars, ARRAY_SIZE(vars), user))
		return -1;
	return 0;
}

static int validate(const cJSON *json, void *data, struct strbuf *why)
{
	const cJSON *qs = cJSON_GetObjectItemCaseSensitive(json, "questions"), *q;

	(void)data;
	if (!cJSON_IsArray(qs)) {
		strbuf_addstr(why, "reply has no 'questions' array");
		return -1;
	}
	cJSON_ArrayForEach(q, qs) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(q, "answer");
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(q, "question"))) {
			strbuf_addstr(why, "reply has a question without a 'question' string");
			return -1;
		}
		if (a && !cJSON_IsString(a) && !cJSON_IsNull(a)) {
			strbuf_addstr(why, "reply has an 'answer' that is not a string");
			return -1;
		}
	}
	return 0;
}

static int save(struct gen *g)
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

const char *gen_json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Run one question through the filters and append it when kept. */
static void consider(struct gen *g, const cJSON *rec, const cJSON *qj, long sample,
		     const struct chunk *ch, const struct chunk *nb, enum gen_kind kind)
{
	struct strbuf text = STRBUF_INIT, both = STRBUF_INIT;
	const char *answer = gen_json_str(qj, "answer");
	struct gen_stats *st = g->st;
	struct question *q;
	double overlap, copied;
	const struct dup_entry *dup;
	char *id;
	cJSON *prov;

	st->proposed++;
	strbuf_addstr(&text, gen_json_str(qj, "question") ? gen_json_str(qj, "question") : "");
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
	if (!lang_text_fits(text.buf, text.len, question_lang(g, ch))) {
		st->drop_language++;
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
	prov = cJSON_CreateObject();
	cJSON_AddStringToObject(prov, "chunk", ch->id);
	if (nb)
		cJSON_AddStringToObject(prov, "neighbour", nb->id);
	cJSON_AddStringToObject(prov, "kind", gen_kind_name(kind));
	if (gen_json_str(rec, "model"))
		cJSON_AddStringToObject(prov, "model", gen_json_str(rec, "model"));
	if (gen_json_str(rec, "prompt"))
		cJSON_AddStringToObject(prov, "prompt", gen_json_str(rec, "prompt"));
	{
		const cJSON *seed = cJSON_GetObjectItemCaseSensitive(rec, "seed");
		if (cJSON_IsNumber(seed))
			cJSON_AddNumberToObject(prov, "seed", seed->valuedouble);
	}
	cJSON_AddNumberToObject(prov, "sample", (double)sample);
	cJSON_AddNumberToObject(prov, "overlap", round(overlap * 100) / 100);
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
	st->kept++;
	g->dirty = true;
out:
	strbuf_release(&text);
	strbuf_release(&both);
}

/* Apply the questions of journal record 'rec' to the set. */
static void apply_record(struct gen *g, const cJSON *rec)
{
	const struct corpus *c = g->o->corpus;
	const char *cid = gen_json_str(rec, "chunk"), *nid = gen_json_str(rec, "neighbour");
	const char *status = gen_json_str(rec, "status"), *kname = gen_json_str(rec, "kind");
	const struct chunk *ch, *nb = NULL;
	const cJSON *qs, *q;
	int kind;
	long sample = 0;

	if (!status || strcmp(status, "ok") || !cid || !kname)
		return;
	kind = kind_parse(kname, strlen(kname));
	ch = corpus_get(c, cid);
	if (nid)
		nb = corpus_get(c, nid);
	if (kind < 0 || !ch || (nid && !nb)) {
		warning("journal record for chunk '%s' does not match the corpus; skipped", cid);
		return;
	}
	qs = cJSON_GetObjectItemCaseSensitive(rec, "questions");
	cJSON_ArrayForEach(q, qs) {
		if (sample >= g->o->per_chunk && g->o->per_chunk > 0)
			break;
		consider(g, rec, q, sample++, ch, nb, (enum gen_kind)kind);
	}
}

/* Save the set every 'checkpoint_every' seconds of records (default 5). */
static void maybe_checkpoint(struct gen *g)
{
	long every = g->o->checkpoint_every > 0 ? g->o->checkpoint_every : 5;

	if (!g->records_since_save || llmjob_now_ms() - g->last_save < every * 1000)
		return;
	if (save(g)) {
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
			const char *a = gen_json_str(q, "answer");
			cJSON_AddStringToObject(o, "question", gen_json_str(q, "question"));
			if (a && *a)
				cJSON_AddStringToObject(o, "answer", a);
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
	strmap_put(&g->done, it->key, (void *)1);
	apply_record(g, rec);
	cJSON_Delete(rec);
	maybe_checkpoint(g);
}

static void on_llm_done(const struct llm_result *res, void *data)
{
	struct item *it = data;

	gen_record_result(it->g, it, res);
}

static int stop_job(void *ctx)
{
	struct gen *g = ctx;

	return llmjob_stop(g->abort, &g->o->llm.http);
}

static void tick(void *ctx)
{
	struct gen *g = ctx;

	if (g->journal_open && journal_sync(&g->journal)) {
		g->abort = true;
		g->abort_code = ERR_INPUT;
	}
	maybe_checkpoint(g);
	llmjob_sample(g->llm, g->started_ms, &g->st->usage, &g->st->elapsed);
	if (g->o->progress)
		g->o->progress(g->st, g->o->ctx);
}

static int read_record(const cJSON *rec, long line, void *data)
{
	struct gen *g = data;
	const char *key = gen_json_str(rec, "key");

	(void)line;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "checkpoint"))) {
		for (size_t i = 0; i < g->nr_replay; i++)
			cJSON_Delete(g->replay[i]);
		g->nr_replay = 0;
		return 0;
	}
	if (!key)
		return 0;
	strmap_put(&g->done, key, (void *)1);
	ALLOC_GROW(g->replay, g->nr_replay + 1, g->alloc_replay);
	g->replay[g->nr_replay++] = cJSON_Duplicate(rec, 1);
	return 0;
}

int gen_run(const struct gen_options *o, struct gen_stats *st)
{
	struct gen g;
	struct set rejected = SET_INIT;
	int rc = ERR_INPUT;
	struct llm_options lo;

	memset(&g, 0, sizeof(g));
	g.o = o;
	g.st = st;
	g.set = o->set;
	g.journal.fd = -1;
	g.started_ms = g.last_save = llmjob_now_ms();
	if (load_prompts(&g))
		goto out;
	if (gen_plan(&g))
		goto out;
	if (journal_read(o->journal_path, read_record, &g))
		goto out;
	for (size_t i = 0; i < g.nr_items; i++)
		if (strmap_get(&g.done, g.items[i].key)) {
			g.items[i].done = true;
			st->done_before++;
		} else {
			st->to_send++;
		}
	for (size_t i = 0; i < g.set->nr; i++)
		dup_index_add(&g.dups, g.set->q[i].text ? g.set->q[i].text : "", DUP_SET);
	/* what a reviewer rejected never comes back */
	if (rejected_load(o->ref, &rejected) < 0)
		goto out;
	for (size_t i = 0; i < rejected.nr; i++)
		dup_index_add(&g.dups, rejected.q[i].text ? rejected.q[i].text : "", DUP_REJECTED);
	g.floor = set_id_floor(o->ref);

	llmjob_options(&lo, &o->llm, stop_job, tick, &g);
	lo.schema_name = "questions";
	lo.schema = REPLY_SCHEMA;
	lo.shape_hint = REPLY_HINT;
	lo.validate = validate;
	lo.done = on_llm_done;
	g.llm = llm_new(&lo);
	if (!g.llm)
		goto out;

	if (o->dry_run) {
		struct strbuf sys = STRBUF_INIT, user = STRBUF_INIT;
		for (size_t i = 0; i < g.nr_items; i++) {
			if (g.items[i].done)
				continue;
			strbuf_reset(&sys);
			strbuf_reset(&user);
			gen_render(&g, &g.items[i], &sys, &user);
			st->est_prompt_tokens += (long)(sys.len + user.len + 3) / 4 + 8;
		}
		strbuf_release(&sys);
		strbuf_release(&user);
		rc = 0;
		goto out;
	}
	if (o->batch_out) {
		rc = gen_batch_out(&g) ? ERR_INPUT : 0;
		goto out;
	}
	if (journal_open(&g.journal, o->journal_path))
		goto out;
	g.journal_open = true;
	/* records after the last checkpoint may be missing from the set file */
	for (size_t i = 0; i < g.nr_replay; i++) {
		apply_record(&g, g.replay[i]);
		st->replayed++;
	}
	g.records_since_save = (long)g.nr_replay;
	if (save(&g))
		goto out;
	if (o->nr_batch_in) {
		rc = gen_batch_in(&g);
		if (!rc && g.abort)
			rc = g.abort_code;
		goto out_save;
	}
	for (size_t i = 0; i < g.nr_items; i++) {
		struct strbuf sys = STRBUF_INIT, user = STRBUF_INIT;
		if (g.items[i].done)
			continue;
		if (gen_render(&g, &g.items[i], &sys, &user)) {
			strbuf_release(&sys);
			strbuf_release(&user);
			goto out;
		}
		llm_submit(g.llm, sys.buf, user.buf, &g.items[i]);
		strbuf_release(&sys);
		strbuf_release(&user);
	}
	rc = llm_run(g.llm);
	if (g.abort)
		rc = g.abort_code;
out_save:
	if (save(&g) && !rc)
		rc = ERR_INPUT;
out:
	llmjob_sample(g.llm, g.started_ms, &st->usage, &st->elapsed);
	if (g.llm) {
		st->mode = llm_current_mode(g.llm);
		llm_free(g.llm);
	}
	if (g.journal_open)
		journal_close(&g.journal);
	for (int k = 0; k < GEN_NR_KINDS; k++) {
		prompt_release(&g.prompts[k]);
		free(g.prompt_ids[k]);
	}
	for (size_t i = 0; g.chunk_digests && i < o->corpus->nr; i++)
		free(g.chunk_digests[i]);
	free(g.chunk_digests);
	for (size_t i = 0; i < g.nr_replay; i++)
		cJSON_Delete(g.replay[i]);
	free(g.replay);
	dup_index_release(&g.dups);
	set_release(&rejected);
	strmap_clear(&g.plan, 0);
	strmap_clear(&g.done, 0);
	free(g.items);
	return rc;
}
