/*
 * generate-critique: the critique pass of `evalset generate` (on by
 * default; docs/generate.md). After generation, every question generate
 * wrote for a chunk of the plan that carries no critique yet (unanswerable
 * and follow-up ones excepted: the verification checks them, and a
 * follow-up read without its history is unclear by design) is shown to a model with its
 * chunk(s) and rated 1..5 on clarity, realism, answerability and
 * specificity (prompts/critique.md). A question with a score under the
 * threshold leaves the set; the others keep their scores in
 * provenance.critique, the map the review page filters on.
 *
 * Journal: sets/NAME/.evalset/critique.jsonl (core/llm/genstage.h), keyed
 * "c-" + SHA-256 of (question text, kind, chunk digests, prompt digest,
 * model): a rerun asks nothing already rated, and applies the journaled
 * ratings to questions that a killed run left unrated in the set file.
 */
#include "llm/generate-internal.h"
#include "llm/genstage.h"
#include "llm/llmjob.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/util.h"
#include "set/corpus.h"
#include "set/set.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CRITIQUE_SCHEMA \
	"{\"type\":\"object\",\"properties\":{" \
	"\"clarity\":{\"type\":\"integer\",\"enum\":[1,2,3,4,5]}," \
	"\"realism\":{\"type\":\"integer\",\"enum\":[1,2,3,4,5]}," \
	"\"answerability\":{\"type\":\"integer\",\"enum\":[1,2,3,4,5]}," \
	"\"specificity\":{\"type\":\"integer\",\"enum\":[1,2,3,4,5]}," \
	"\"reason\":{\"type\":\"string\"}}," \
	"\"required\":[\"clarity\",\"realism\",\"answerability\",\"specificity\",\"reason\"]," \
	"\"additionalProperties\":false}"
#define CRITIQUE_HINT \
	"{\"clarity\": 1, \"realism\": 1, \"answerability\": 1, \"specificity\": 1, \"reason\": \"one short sentence\"}"

/* first member: the job (gen_pass_tick, gen_pass_stop) */
struct crit {
	struct gen *g;
	char **ids;              /* per task: the question's id */
	const char *model;
	char *prompt_id;
	bool stop;
};

/* Return the score 1..5 of 'c' in reply 'r', or 0. */
static int score_of(const cJSON *r, enum gen_criterion c)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, gen_criterion_name(c));

	if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < 1 ||
	    v->valuedouble > 5)
		return 0;
	return (int)v->valuedouble;
}

static int validate(const cJSON *json, void *data, struct strbuf *why)
{
	(void)data;
	for (int c = 0; c < GEN_NR_CRITERIA; c++)
		if (!score_of(json, (enum gen_criterion)c)) {
			strbuf_addf(why, "reply has no integer '%s' in 1..5", gen_criterion_name((enum gen_criterion)c));
			return -1;
		}
	return 0;
}

static void apply(void *ctx, size_t index, const cJSON *rec, bool from_journal)
{
	struct crit *cr = ctx;
	struct gen *g = cr->g;
	struct gen_stats *st = g->st;
	const cJSON *reply = cJSON_GetObjectItemCaseSensitive(rec, "reply");
	long at = set_index(g->set, cr->ids[index]);
	struct question *q;
	int scores[GEN_NR_CRITERIA];
	bool drop = false;
	cJSON *map;

	(void)from_journal;
	if (at < 0)
		return;
	q = &g->set->q[at];
	if (!gen_pass_ok(rec))
		return;  /* unusable twice: the question stays, unrated */
	{
		struct strbuf why = STRBUF_INIT;
		int bad = validate(reply, NULL, &why);
		strbuf_release(&why);
		if (bad)
			return;
	}
	st->critiqued++;
	for (int c = 0; c < GEN_NR_CRITERIA; c++) {
		scores[c] = score_of(reply, (enum gen_criterion)c);
		st->scores[c][scores[c]]++;
		if (scores[c] < g->o->critique_min) {
			st->drop_criterion[c]++;
			drop = true;
		}
	}
	if (drop) {
		st->drop_critique++;
		set_remove(g->set, (size_t)at);
	} else {
		cJSON_DeleteItemFromObjectCaseSensitive(q->provenance, "critique");
		map = cJSON_AddObjectToObject(q->provenance, "critique");
		for (int c = 0; c < GEN_NR_CRITERIA; c++)
			cJSON_AddNumberToObject(map, gen_criterion_name((enum gen_criterion)c), scores[c]);
		cJSON_DeleteItemFromObjectCaseSensitive(q->provenance, "critique_by");
		cJSON_AddStringToObject(q->provenance, "critique_by",
					json_get_str(rec, "prompt") ? json_get_str(rec, "prompt") : cr->prompt_id);
	}
	g->dirty = true;
	g->records_since_save++;
}

int gen_critique(struct gen *g)
{
	const struct gen_options *o = g->o;
	const struct corpus *c = o->corpus;
	struct prompt p = PROMPT_INIT;
	struct stage_task *tasks = NULL;
	size_t nr = 0, alloc = 0, alloc_ids = 0;
	struct crit cr;
	struct stage_options so;
	unsigned kinds = o->kinds & ~((1u << GEN_UNANSWERABLE) | (1u << GEN_FOLLOWUP));
	int rc = ERR_INPUT;

	memset(&cr, 0, sizeof(cr));
	cr.g = g;
	cr.model = gen_pass_model(g);
	if (!kinds)
		return 0;
	if (gen_pass_prompt(g, "critique.md", "--no-critique", &p))
		goto out;
	cr.prompt_id = prompt_id(&p);
	for (size_t i = 0; i < g->set->nr; i++) {
		struct question *q = &g->set->q[i];
		struct strbuf passages = STRBUF_INIT;
		enum gen_kind kind;
		const struct chunk *ch, *nb = NULL;
		const char *nid;
		struct stage_task *t;
		int bad;

		if (!gen_in_scope(g, q, kinds, &kind) ||
		    cJSON_GetObjectItemCaseSensitive(q->provenance, "critique"))
			continue;
		ch = corpus_get(c, json_get_str(q->provenance, "chunk"));
		nid = json_get_str(q->provenance, "neighbour");
		if (nid && !(nb = corpus_get(c, nid)))
			continue;
		gen_passages(g, (size_t)(ch - c->chunks), nb ? (size_t)(nb - c->chunks) : SIZE_MAX, &passages);
		ALLOC_GROW(tasks, nr + 1, alloc);
		ALLOC_GROW(cr.ids, nr + 1, alloc_ids);
		t = &tasks[nr];
		memset(t, 0, sizeof(*t));
		t->index = nr;
		cr.ids[nr] = xstrdup(q->id);
		nr++;
		bad = gen_pass_task(&p, q, kind, passages.buf, NULL, cr.model, "c-", t);
		strbuf_release(&passages);
		if (bad)
			goto out;
	}
	memset(&so, 0, sizeof(so));
	so.journal_path = o->critique_journal;
	so.prompt_id = cr.prompt_id;
	so.schema_name = "critique";
	so.schema = CRITIQUE_SCHEMA;
	so.shape_hint = CRITIQUE_HINT;
	so.validate = validate;
	so.apply = apply;
	rc = gen_pass_run(g, &so, cr.model, 200, &cr, tasks, nr, &g->st->critique);
out:
	for (size_t i = 0; i < nr; i++) {
		free(tasks[i].system);
		free(tasks[i].user);
		free(cr.ids[i]);
	}
	free(tasks);
	free(cr.ids);
	free(cr.prompt_id);
	prompt_release(&p);
	return rc;
}
