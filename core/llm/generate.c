/*
 * generate: the driver of one `evalset generate` (see generate.h for the
 * contract: journal keys, checkpoints, filters): load the prompts, plan,
 * replay the journal, then ask live or through the Batch API files, and save.
 *
 * Calls go one way, from the driver down (shared state: generate-internal.h):
 *
 *   generate.c         the driver: prompts, journal replay, the live job loop
 *     generate-batch.c   Batch API files out and in
 *       generate-result.c  one reply: journal it, filter its questions, add
 *                          them to the set, checkpoint
 *         generate-plan.c    kinds, chunk selection, journal keys, rendering
 *
 * No stage calls back into a stage above it.
 */
#include "llm/generate.h"
#include "llm/generate-internal.h"
#include "set/corpus.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "llm/journal.h"
#include "llm/llmjob.h"
#include "llm/prompt.h"
#include "set/rejected.h"
#include "set/set.h"
#include "base/jsontree.h"
#include "base/strmap.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const prompt_vars[] = {
	"chunk.text", "chunk.title", "chunk.id", "n", "kind", "neighbour.text",
	"neighbour.title", "neighbour.id", "language", "steering", "earlier.text", "earlier.answer", NULL,
};

#define REPLY_SCHEMA \
	"{\"type\":\"object\",\"properties\":{\"questions\":{\"type\":\"array\",\"items\":" \
	"{\"type\":\"object\",\"properties\":{\"question\":{\"type\":\"string\"}," \
	"\"answer\":{\"type\":\"string\"},\"quote\":{\"type\":\"string\"}}," \
	"\"required\":[\"question\",\"answer\",\"quote\"]," \
	"\"additionalProperties\":false}}},\"required\":[\"questions\"]," \
	"\"additionalProperties\":false}"
#define REPLY_HINT "{\"questions\": [{\"question\": \"...\", \"answer\": \"a short answer, or empty\", " \
	"\"quote\": \"the passage's words that answer it, or empty\"}]}"

void gen_stats_release(struct gen_stats *st)
{
	realism_release(&st->real);
	realism_release(&st->before);
	realism_release(&st->after);
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
		const cJSON *quote = cJSON_GetObjectItemCaseSensitive(q, "quote");
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(q, "question"))) {
			strbuf_addstr(why, "reply has a question without a 'question' string");
			return -1;
		}
		if (a && !cJSON_IsString(a) && !cJSON_IsNull(a)) {
			strbuf_addstr(why, "reply has an 'answer' that is not a string");
			return -1;
		}
		if (quote && !cJSON_IsString(quote) && !cJSON_IsNull(quote)) {
			strbuf_addstr(why, "reply has a 'quote' that is not a string");
			return -1;
		}
	}
	return 0;
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
	gen_maybe_checkpoint(g);
	llmjob_sample(g->llm, g->started_ms, &g->st->usage, &g->st->elapsed);
	if (g->o->progress)
		g->o->progress(g->st, g->o->ctx);
}

static int read_record(const cJSON *rec, long line, void *data)
{
	struct gen *g = data;
	const char *key = json_get_str(rec, "key"), *status;

	(void)line;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "checkpoint"))) {
		for (size_t i = 0; i < g->nr_replay; i++)
			cJSON_Delete(g->replay[i]);
		g->nr_replay = 0;
		return 0;
	}
	if (!key)
		return 0;
	status = json_get_str(rec, "status");
	if ((status && !strcmp(status, "ok")) || !strmap_get(&g->done, key))
		strmap_put(&g->done, key, (void *)(uintptr_t)(status && !strcmp(status, "ok") ? 1 : 2));
	ALLOC_GROW(g->replay, g->nr_replay + 1, g->alloc_replay);
	g->replay[g->nr_replay++] = cJSON_Duplicate(rec, 1);
	return 0;
}

/* Return the prompt tokens of one pass request on 'passages_len' bytes of
 * passages with template 'p' (4 bytes a token, as the generation estimate;
 * a question taken as 100 bytes). */
static long pass_tokens(const struct prompt *p, size_t passages_len)
{
	return (long)(strlen(p->system ? p->system : "") + strlen(p->user ? p->user : "") +
		      passages_len + 100 + 3) / 4 + 8;
}

/*
 * For a dry run: count into g->st the critique and verification requests
 * the passes after generation would send at most, and their prompt tokens:
 * one per question each generation request may add (per_chunk), and one
 * per question of the plan already in the set and not yet rated or
 * verified. Return 0 or ERR_INPUT (a pass prompt that cannot be read).
 */
static int estimate_passes(struct gen *g)
{
	const struct gen_options *o = g->o;
	const struct corpus *c = o->corpus;
	struct prompt pc = PROMPT_INIT, pv = PROMPT_INIT;
	struct strbuf passages = STRBUF_INIT;
	size_t per = o->per_chunk > 0 ? (size_t)o->per_chunk : 1, mean = 0, shown, bytes = 0;
	unsigned crit_kinds = o->kinds & ~((1u << GEN_UNANSWERABLE) | (1u << GEN_FOLLOWUP));
	unsigned ver_kinds = o->kinds & GEN_VERIFIED_KINDS;
	bool critique = o->critique && crit_kinds, verify = o->verify && ver_kinds;
	int rc = ERR_INPUT;

	if ((critique && gen_pass_prompt(g, "critique.md", "--no-critique", &pc)) ||
	    (verify && gen_pass_prompt(g, (o->kinds & ~(1u << GEN_FOLLOWUP) & ver_kinds) ?
					  "verify.md" : "verify-follow-up.md", "--no-verify", &pv)))
		goto out;
	/* an unanswerable question is shown with the BM25 top k: chunks of the
	 * corpus's mean length */
	for (size_t i = 0; i < c->nr; i++)
		bytes += strlen(c->chunks[i].text) + (c->chunks[i].title ? strlen(c->chunks[i].title) : 0) + 24;
	mean = c->nr ? bytes / c->nr : 0;
	shown = mean * (size_t)(o->verify_k > 0 ? o->verify_k : 5);
	for (size_t i = 0; i < g->nr_items; i++) {
		const struct item *it = &g->items[i];

		if (it->done)
			continue;
		strbuf_reset(&passages);
		gen_passages(g, it->chunk, it->neighbour, &passages);
		if (critique && it->kind != GEN_UNANSWERABLE) {
			g->st->est_critique_requests += per;
			g->st->est_critique_tokens += (long)per * pass_tokens(&pc, passages.len);
		}
		if (verify && it->kind == GEN_FOLLOWUP) {
			/* asked twice: alone, then with its history (taken as 200 bytes) */
			g->st->est_verify_requests += 2 * per;
			g->st->est_verify_tokens += (long)(2 * per) * pass_tokens(&pv, passages.len + 100);
		} else if (verify && (it->kind == GEN_UNANSWERABLE || it->kind == GEN_MULTIHOP)) {
			g->st->est_verify_requests += per;
			g->st->est_verify_tokens += (long)per *
				pass_tokens(&pv, it->kind == GEN_MULTIHOP ? passages.len : shown);
		}
	}
	/* questions of the plan a killed run left without their pass */
	for (size_t i = 0; i < g->set->nr; i++) {
		const struct question *q = &g->set->q[i];
		enum gen_kind kind;

		if (critique && gen_in_scope(g, q, crit_kinds, &kind) &&
		    !cJSON_GetObjectItemCaseSensitive(q->provenance, "critique")) {
			g->st->est_critique_requests++;
			g->st->est_critique_tokens += pass_tokens(&pc, mean);
		}
		if (verify && gen_in_scope(g, q, ver_kinds, &kind) &&
		    !cJSON_GetObjectItemCaseSensitive(q->provenance, "verification")) {
			size_t asks = kind == GEN_FOLLOWUP ? 2 : 1;
			g->st->est_verify_requests += asks;
			g->st->est_verify_tokens += (long)asks * pass_tokens(&pv, kind == GEN_FOLLOWUP ? mean + 200 : shown);
		}
	}
	rc = 0;
out:
	strbuf_release(&passages);
	prompt_release(&pc);
	prompt_release(&pv);
	return rc;
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
	/* the passes' prompts are checked before anything is asked */
	{
		struct prompt pc = PROMPT_INIT, pv = PROMPT_INIT;
		struct prompt pf = PROMPT_INIT;
		unsigned ver_kinds = o->kinds & GEN_VERIFIED_KINDS;
		bool bad = (o->critique && (o->kinds & ~((1u << GEN_UNANSWERABLE) | (1u << GEN_FOLLOWUP))) &&
			    gen_pass_prompt(&g, "critique.md", "--no-critique", &pc)) ||
			   (o->verify && (ver_kinds & ~(1u << GEN_FOLLOWUP)) &&
			    gen_pass_prompt(&g, "verify.md", "--no-verify", &pv)) ||
			   (o->verify && (ver_kinds & (1u << GEN_FOLLOWUP)) &&
			    gen_pass_prompt(&g, "verify-follow-up.md", "--no-verify", &pf));
		prompt_release(&pc);
		prompt_release(&pv);
		prompt_release(&pf);
		if (bad)
			goto out;
	}
	if (gen_steer_load(&g))
		goto out;
	gen_realism_mark(&g);
	if (gen_plan(&g))
		goto out;
	if (journal_read(o->journal_path, read_record, &g))
		goto out;
	for (size_t i = 0; i < g.nr_items; i++) {
		uintptr_t done = (uintptr_t)strmap_get(&g.done, g.items[i].key);
		if (done == 2)
			st->failed_before++;
		if (done == 1 || (done == 2 && !o->retry_failed)) {
			g.items[i].done = true;
			st->done_before++;
		} else {
			st->to_send++;
		}
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

	if (o->dry_run && o->batch) {
		/* the batch estimate: what would be submitted, after the batches already pending */
		struct llmbatch_options bo = o->batch_opts;
		bo.estimate_only = true;
		rc = gen_batch_run(&g, &bo);
		goto out;
	}
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
		if (estimate_passes(&g))
			goto out;
		gen_realism(&g);
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
		gen_apply_record(&g, g.replay[i]);
		st->replayed++;
	}
	g.records_since_save = (long)g.nr_replay;
	if (gen_save(&g))
		goto out;
	if (o->batch) {
		rc = gen_batch_run(&g, &o->batch_opts);
		goto out_save;
	}
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
	llmjob_sample(g.llm, g.started_ms, &st->usage, &st->elapsed);
	/* the passes after generation: only after a complete generation */
	if (!rc && o->critique)
		rc = gen_critique(&g);
	if (!rc && o->verify)
		rc = gen_verify(&g);
	if (g.abort && !rc)
		rc = g.abort_code;
	gen_realism(&g);
out_save:
	if (gen_save(&g) && !rc)
		rc = ERR_INPUT;
out:
	llmjob_end(g.llm, g.started_ms, &st->usage, &st->elapsed, &st->mode);
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
	if (g.bm25_built)
		bm25_release(&g.bm25);
	free(g.selected);
	gen_steer_release(&g);
	strmap_clear(&g.before, 0);
	set_release(&rejected);
	strmap_clear(&g.plan, 0);
	strmap_clear(&g.done, 0);
	free(g.items);
	return rc;
}
