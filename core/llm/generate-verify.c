/*
 * generate-verify: the verification pass of `evalset generate`
 * (docs/generate.md). An unanswerable question is shown to a judge with the
 * chunks a retriever finds for it (the built-in BM25, or --retriever-cmd),
 * and kept only when none of them answers it; the chunk the judge found
 * closest is recorded as its near miss. A multi-hop question is shown with
 * each of its two chunks, and kept only when neither answers it alone. A
 * follow-up is shown with its chunk twice (prompts/verify-follow-up.md):
 * asked alone, the chunk must not answer it (it needs its history), and
 * asked with its history, it must; failing either drops it. Its
 * verification is recorded once both answers are in (a run cut between
 * them asks again only the one missing).
 *
 * Journal: sets/NAME/.evalset/verify.jsonl (core/llm/genstage.h), keyed
 * "v-" + SHA-256 of (question text, kind, the chunks shown, prompt digest,
 * model[, the history shown]).
 */
#include "llm/generate-internal.h"
#include "llm/genstage.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/util.h"
#include "retrieve/retriever.h"
#include "set/corpus.h"
#include "set/set.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VERIFY_SCHEMA \
	"{\"type\":\"object\",\"properties\":{" \
	"\"answering\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}," \
	"\"closest\":{\"type\":\"string\"}," \
	"\"reason\":{\"type\":\"string\"}}," \
	"\"required\":[\"answering\",\"closest\",\"reason\"]," \
	"\"additionalProperties\":false}"
#define VERIFY_HINT \
	"{\"answering\": [\"id of each passage that alone answers\"], \"closest\": \"id\", \"reason\": \"one short sentence\"}"

/* how a follow-up is asked: once alone, once with the turns before it */
enum fu_form { FU_NONE, FU_ALONE, FU_WITH_HISTORY };

struct vtask {
	char *id;                /* the question's */
	enum gen_kind kind;
	size_t *shown;           /* corpus indexes */
	size_t nr_shown;
	enum fu_form form;
	size_t sibling;          /* a follow-up: the index of its other form */
	bool passed;             /* a follow-up: this form was answered as it must be */
};

/* first member: the job (gen_pass_tick, gen_pass_stop) */
struct ver {
	struct gen *g;
	struct vtask *vt;
	const char *by;          /* "bm25" or the command */
};

static int validate(const cJSON *json, void *data, struct strbuf *why)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(json, "answering"), *e;
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(json, "closest");

	(void)data;
	if (!cJSON_IsArray(a)) {
		strbuf_addstr(why, "reply has no 'answering' array");
		return -1;
	}
	cJSON_ArrayForEach(e, a)
		if (!cJSON_IsString(e)) {
			strbuf_addstr(why, "reply has an 'answering' entry that is not a string");
			return -1;
		}
	if (c && !cJSON_IsString(c) && !cJSON_IsNull(c)) {
		strbuf_addstr(why, "reply has a 'closest' that is not a string");
		return -1;
	}
	return 0;
}

/* Return true when chunk id 'id' is one of the chunks shown in 'v'. */
static bool shown(const struct gen *g, const struct vtask *v, const char *id)
{
	for (size_t i = 0; i < v->nr_shown; i++)
		if (!strcmp(g->o->corpus->chunks[v->shown[i]].id, id))
			return true;
	return false;
}

/*
 * Apply one form of a follow-up's check to the question at set index 'at':
 * 'answered' alone drops it as standalone, not 'answered' with its history
 * drops it as unsupported; when both forms passed, record the verification.
 */
static void apply_follow_up(struct ver *vr, struct vtask *v, long at, bool answered, const cJSON *rec)
{
	struct gen *g = vr->g;
	struct question *q = &g->set->q[at];
	bool drop = v->form == FU_ALONE ? answered : !answered;
	cJSON *ver;

	if (drop) {
		g->st->verified++;
		if (v->form == FU_ALONE)
			g->st->drop_standalone++;
		else
			g->st->drop_unsupported++;
		set_remove(g->set, (size_t)at);
		g->dirty = true;
		g->records_since_save++;
		return;
	}
	v->passed = true;
	if (!vr->vt[v->sibling].passed)
		return;
	g->st->verified++;
	cJSON_DeleteItemFromObjectCaseSensitive(q->provenance, "verification");
	ver = cJSON_AddObjectToObject(q->provenance, "verification");
	cJSON_AddNumberToObject(ver, "checked", (double)v->nr_shown);
	cJSON_AddStringToObject(ver, "alone", "unanswered");
	cJSON_AddStringToObject(ver, "with_history", "answered");
	if (json_get_str(rec, "model") && *json_get_str(rec, "model"))
		cJSON_AddStringToObject(ver, "by", json_get_str(rec, "model"));
	g->dirty = true;
	g->records_since_save++;
}

static void apply(void *ctx, size_t index, const cJSON *rec, bool from_journal)
{
	struct ver *vr = ctx;
	struct gen *g = vr->g;
	struct vtask *v = &vr->vt[index];
	const cJSON *reply = cJSON_GetObjectItemCaseSensitive(rec, "reply"), *e;
	const char *closest = json_get_str(reply, "closest");
	long at = set_index(g->set, v->id);
	bool answered = false;
	cJSON *ver;

	(void)from_journal;
	if (at < 0 || !gen_pass_ok(rec))
		return;  /* unusable twice: the question stays, unverified */
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(reply, "answering"))
		if (cJSON_IsString(e) && shown(g, v, e->valuestring))
			answered = true;
	if (v->form != FU_NONE) {
		apply_follow_up(vr, v, at, answered, rec);
		return;
	}
	g->st->verified++;
	if (answered) {
		if (v->kind == GEN_UNANSWERABLE)
			g->st->drop_answered++;
		else
			g->st->drop_one_chunk++;
		set_remove(g->set, (size_t)at);
	} else {
		struct question *q = &g->set->q[at];
		cJSON_DeleteItemFromObjectCaseSensitive(q->provenance, "verification");
		ver = cJSON_AddObjectToObject(q->provenance, "verification");
		cJSON_AddNumberToObject(ver, "checked", (double)v->nr_shown);
		if (v->kind == GEN_UNANSWERABLE) {
			cJSON_AddStringToObject(ver, "retriever", vr->by);
			if (!closest || !shown(g, v, closest))
				closest = v->nr_shown ? g->o->corpus->chunks[v->shown[0]].id : NULL;
			if (closest)
				cJSON_AddStringToObject(ver, "near_miss", closest);
		}
		if (json_get_str(rec, "model") && *json_get_str(rec, "model"))
			cJSON_AddStringToObject(ver, "by", json_get_str(rec, "model"));
	}
	g->dirty = true;
	g->records_since_save++;
}

/* Fill the candidates of the unanswerable tasks through --retriever-cmd. Return 0 or an error code. */
static int candidates_cmd(struct gen *g, struct vtask *vt, size_t nr)
{
	const struct corpus *c = g->o->corpus;
	size_t n = 0, *which = xcalloc(nr + 1, sizeof(size_t));
	struct job job;
	int rc;

	for (size_t i = 0; i < nr; i++)
		if (vt[i].kind == GEN_UNANSWERABLE)
			which[n++] = i;
	if (!n) {
		free(which);
		return 0;
	}
	job_init(&job, n, g->o->verify_k);
	for (size_t j = 0; j < n; j++) {
		struct question *q = set_find(g->set, vt[which[j]].id);
		job.qid[j] = vt[which[j]].id;
		job.query[j] = q ? q->text : "";
	}
	{
		/* the command gets the minimal environment of `evalset run --cmd`: no API key */
		char **env = retrieve_cmd_env(NULL, 0);
		rc = retrieve_cmd(g->o->retriever_cmd, env, 30000, &job);
		free(env);
	}
	for (size_t j = 0; !rc && j < n; j++) {
		struct vtask *v = &vt[which[j]];
		v->shown = xcalloc((size_t)g->o->verify_k + 1, sizeof(size_t));
		for (size_t h = 0; h < job.ans[j].nr && v->nr_shown < (size_t)g->o->verify_k; h++) {
			const struct chunk *ch = corpus_get(c, job.ans[j].hits[h].id);
			if (ch)
				v->shown[v->nr_shown++] = (size_t)(ch - c->chunks);
		}
	}
	job_release(&job);
	free(which);
	return rc;
}

int gen_verify(struct gen *g)
{
	const struct gen_options *o = g->o;
	const struct corpus *c = o->corpus;
	struct prompt p = PROMPT_INIT, pf = PROMPT_INIT;
	struct stage_task *tasks = NULL;
	struct vtask *vt = NULL;
	size_t nr = 0, nr_tasks = 0, alloc = 0, alloc_vt = 0;
	struct ver vr;
	struct stage_options so;
	char *prompt_ident = NULL;
	unsigned kinds = o->kinds & GEN_VERIFIED_KINDS;
	const char *model = gen_pass_model(g);
	int rc = ERR_INPUT;

	memset(&vr, 0, sizeof(vr));
	vr.g = g;
	vr.by = o->retriever_cmd ? "command" : "bm25";
	if (!kinds)
		return 0;
	/* the questions to check, and the chunks each is checked against */
	for (size_t i = 0; i < g->set->nr; i++) {
		struct question *q = &g->set->q[i];
		enum gen_kind kind;
		struct vtask *v;

		if (!gen_in_scope(g, q, kinds, &kind) ||
		    cJSON_GetObjectItemCaseSensitive(q->provenance, "verification"))
			continue;
		ALLOC_GROW(vt, nr + 1, alloc_vt);
		v = &vt[nr++];
		memset(v, 0, sizeof(*v));
		v->id = xstrdup(q->id);
		v->kind = kind;
		if (kind == GEN_FOLLOWUP) {
			/* its chunk, asked alone and then with the history */
			const struct chunk *ch = corpus_get(c, json_get_str(q->provenance, "chunk"));
			struct vtask *w;

			v->shown = xcalloc(2, sizeof(size_t));
			v->shown[v->nr_shown++] = (size_t)(ch - c->chunks);
			v->form = FU_ALONE;
			v->sibling = nr;
			ALLOC_GROW(vt, nr + 1, alloc_vt);
			v = &vt[nr - 1];
			w = &vt[nr++];
			memset(w, 0, sizeof(*w));
			w->id = xstrdup(q->id);
			w->kind = kind;
			w->shown = xcalloc(2, sizeof(size_t));
			w->shown[w->nr_shown++] = v->shown[0];
			w->form = FU_WITH_HISTORY;
			w->sibling = nr - 2;
			g->st->verify_follow_ups++;
		} else if (kind == GEN_MULTIHOP) {
			const struct chunk *ch = corpus_get(c, json_get_str(q->provenance, "chunk"));
			const struct chunk *nb = corpus_get(c, json_get_str(q->provenance, "neighbour"));
			v->shown = xcalloc(3, sizeof(size_t));
			v->shown[v->nr_shown++] = (size_t)(ch - c->chunks);
			if (nb)
				v->shown[v->nr_shown++] = (size_t)(nb - c->chunks);
		} else if (!o->retriever_cmd) {
			const struct bm25 *ix = gen_bm25(g);
			struct bm25_hit *hits;
			if (!ix)
				goto out;
			hits = xcalloc((size_t)o->verify_k + 1, sizeof(*hits));
			v->shown = xcalloc((size_t)o->verify_k + 1, sizeof(size_t));
			v->nr_shown = bm25_search(ix, q->text, (size_t)o->verify_k, hits);
			for (size_t h = 0; h < v->nr_shown; h++)
				v->shown[h] = hits[h].doc;
			free(hits);
		}
	}
	if (!nr) {
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		if (vt[i].form == FU_NONE && !p.system && gen_pass_prompt(g, "verify.md", "--no-verify", &p))
			goto out;
		if (vt[i].form != FU_NONE && !pf.system &&
		    gen_pass_prompt(g, "verify-follow-up.md", "--no-verify", &pf))
			goto out;
	}
	/* records name the prompt of the other questions when both are asked */
	prompt_ident = prompt_id(p.system ? &p : &pf);
	if (o->retriever_cmd && (rc = candidates_cmd(g, vt, nr)) != 0)
		goto out;
	rc = ERR_INPUT;
	for (size_t i = 0; i < nr; i++) {
		struct vtask *v = &vt[i];
		struct question *q = set_find(g->set, v->id);
		struct strbuf passages = STRBUF_INIT;
		struct stage_task *t;
		int bad;

		if (!v->nr_shown) {
			/* no chunk shares a term with it: nothing to ask, nothing answers it */
			cJSON *rec = cJSON_Parse("{\"status\":\"ok\",\"reply\":{\"answering\":[]}}");
			vr.vt = vt;
			apply(&vr, i, rec, false);
			cJSON_Delete(rec);
			continue;
		}

		for (size_t h = 0; h < v->nr_shown; h++) {
			const struct chunk *ch = &c->chunks[v->shown[h]];
			strbuf_addf(&passages, "<passage id=\"%s\">\nTitle: %s\n%s\n</passage>\n\n", ch->id,
				    ch->title ? ch->title : "", ch->text);
		}
		ALLOC_GROW(tasks, nr_tasks + 1, alloc);
		t = &tasks[nr_tasks++];
		memset(t, 0, sizeof(*t));
		t->index = i;
		if (v->form == FU_NONE) {
			bad = gen_pass_task(&p, q, v->kind, passages.buf, NULL, model, "v-", t);
		} else {
			struct strbuf history = STRBUF_INIT;
			if (v->form == FU_WITH_HISTORY)
				gen_history_text(q, &history);
			bad = gen_pass_task(&pf, q, v->kind, passages.buf, history.buf, model, "v-", t);
			strbuf_release(&history);
		}
		strbuf_release(&passages);
		if (bad)
			goto out;
	}
	memset(&so, 0, sizeof(so));
	so.journal_path = o->verify_journal;
	so.prompt_id = prompt_ident;
	so.schema_name = "verification";
	so.schema = VERIFY_SCHEMA;
	so.shape_hint = VERIFY_HINT;
	so.validate = validate;
	so.apply = apply;
	vr.vt = vt;
	rc = gen_pass_run(g, &so, model, 300, &vr, tasks, nr_tasks, &g->st->verify);
	g->st->verify.planned = nr;  /* with those no chunk matched: nothing to ask */
out:
	for (size_t i = 0; i < nr_tasks; i++) {
		free(tasks[i].system);
		free(tasks[i].user);
	}
	for (size_t i = 0; i < nr; i++) {
		free(vt[i].id);
		free(vt[i].shown);
	}
	free(tasks);
	free(vt);
	free(prompt_ident);
	prompt_release(&p);
	prompt_release(&pf);
	return rc;
}
