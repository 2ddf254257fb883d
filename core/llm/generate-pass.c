/*
 * generate-pass: what the passes after generation (generate-critique.c,
 * generate-verify.c) share: which questions they look at, the passages they
 * show, their model, prompts, tasks and journal keys, how a pass runs and
 * the budget left to it. Shared state in generate-internal.h.
 */
#include "llm/generate-internal.h"
#include "llm/genstage.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/util.h"
#include "set/corpus.h"
#include "set/set.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool gen_in_scope(struct gen *g, const struct question *q, unsigned kinds, enum gen_kind *kind)
{
	const cJSON *prov = q->provenance;
	const char *k = json_get_str(prov, "kind"), *cid = json_get_str(prov, "chunk");
	const struct chunk *ch;
	int i;

	if (!k || !cid || q->origin != ORIGIN_SYNTHETIC)
		return false;
	for (i = 0; i < GEN_NR_KINDS; i++)
		if (!strcmp(k, gen_kind_name((enum gen_kind)i)))
			break;
	if (i == GEN_NR_KINDS || !(kinds & (1u << i)))
		return false;
	if (!g->selected) {
		g->selected = xcalloc(g->o->corpus->nr + 1, sizeof(bool));
		for (size_t j = 0; j < g->nr_items; j++)
			g->selected[g->items[j].chunk] = true;
	}
	ch = corpus_get(g->o->corpus, cid);
	if (!ch || !g->selected || !g->selected[ch - g->o->corpus->chunks])
		return false;
	*kind = (enum gen_kind)i;
	return true;
}

void gen_passages(struct gen *g, size_t chunk, size_t neighbour, struct strbuf *out)
{
	const struct corpus *c = g->o->corpus;
	size_t which[2] = { chunk, neighbour };

	for (int i = 0; i < 2; i++) {
		const struct chunk *ch;
		if (which[i] == SIZE_MAX)
			continue;
		ch = &c->chunks[which[i]];
		if (out->len)
			strbuf_addch(out, '\n');
		strbuf_addf(out, "Title: %s\n<chunk>\n%s\n</chunk>\n", ch->title ? ch->title : "", ch->text);
	}
}

long gen_budget_left(struct gen *g)
{
	long max = g->o->llm.http.max_requests, used = 0;

	if (max <= 0)
		return 0;
	used = (long)g->st->usage.requests + (long)g->st->critique.usage.requests +
	       (long)g->st->verify.usage.requests;
	return used >= max ? -1 : max - used;
}

static const char *const pass_vars[] = { "question.text", "question.kind", "passages", "history", NULL };

int gen_pass_prompt(struct gen *g, const char *file, const char *off, struct prompt *p)
{
	char *path = path_join(g->o->prompt_dir, file);
	int rc = -1;

	if (!path_exists(path))
		error("no prompt '%s' (see --prompt-dir, or %s)", path, off);
	else if (!prompt_load(p, path) && !prompt_check_vars(p, pass_vars))
		rc = 0;
	free(path);
	return rc;
}

const char *gen_pass_model(const struct gen *g)
{
	const struct gen_options *o = g->o;

	if (o->critique_model && *o->critique_model)
		return o->critique_model;
	return o->llm.model ? o->llm.model : "";
}

int gen_pass_task(const struct prompt *p, const struct question *q, enum gen_kind kind,
		  const char *passages, const char *history, const char *model, const char *prefix,
		  struct stage_task *t)
{
	struct prompt_var vars[] = {
		{ "question.text", q->text }, { "question.kind", gen_kind_name(kind) },
		{ "passages", passages }, { "history", history ? history : "" },
	};
	struct strbuf sys = STRBUF_INIT, user = STRBUF_INIT, keytext = STRBUF_INIT;
	char d[72];

	if (prompt_render(p->system, vars, ARRAY_SIZE(vars), &sys) ||
	    prompt_render(p->user, vars, ARRAY_SIZE(vars), &user)) {
		strbuf_release(&sys);
		strbuf_release(&user);
		return -1;
	}
	t->system = strbuf_detach(&sys, NULL);
	t->user = strbuf_detach(&user, NULL);
	sha256_hex(passages, strlen(passages), d);
	strbuf_addf(&keytext, "%s\n%s\n%s\n%s\n%s", q->text, gen_kind_name(kind), d, p->digest, model);
	if (history) {
		/* the same follow-up asked alone and with its history: two questions */
		sha256_hex(history, strlen(history), d);
		strbuf_addf(&keytext, "\nhistory %s", d);
	}
	stage_key(t->key, prefix, keytext.buf, keytext.len);
	strbuf_release(&keytext);
	return 0;
}

static void pass_tick(void *ctx)
{
	struct gen *g = *(struct gen **)ctx;

	gen_maybe_checkpoint(g);
	if (g->o->progress)
		g->o->progress(g->st, g->o->ctx);
}

static int pass_stop(void *ctx)
{
	return (*(struct gen **)ctx)->abort;
}

int gen_pass_run(struct gen *g, struct stage_options *so, const char *model, long max_tokens,
		 void *ctx, struct stage_task *tasks, size_t nr, struct gen_pass_stats *dst)
{
	struct stage_stats ss;
	int rc;

	memset(&ss, 0, sizeof(ss));
	so->llm = g->o->llm;
	so->llm.model = model;
	so->llm.max_tokens = max_tokens;
	so->llm.http.max_requests = gen_budget_left(g);
	so->tick = pass_tick;
	so->stop = pass_stop;
	so->ctx = ctx;
	rc = stage_run(so, tasks, nr, &ss);
	dst->planned = ss.planned;
	dst->done_before = ss.done_before;
	dst->answered = ss.answered;
	dst->unusable = ss.unusable;
	dst->lost = ss.lost;
	dst->cancelled = ss.cancelled;
	dst->usage = ss.usage;
	return rc;
}

bool gen_pass_ok(const cJSON *rec)
{
	const char *status = json_get_str(rec, "status");

	return status && !strcmp(status, "ok");
}
