/*
 * genstage: a journaled pass of LLM calls (see genstage.h).
 *
 * Invariants: every task ends in exactly one 'apply' (an outcome) or is
 * counted lost or cancelled; a record reaches the journal before 'apply'
 * sees it; a key with a record is never sent again.
 */
#include "llm/genstage.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/strmap.h"
#include "base/util.h"
#include "llm/journal.h"
#include "llm/llmjob.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct call;

struct stage {
	const struct stage_options *o;
	struct stage_task *tasks;
	size_t nr;
	struct stage_stats *st;
	struct strmap done;        /* key -> journal record (owned) */
	struct strmap first;       /* key -> first task index + 1 */
	struct journal journal;
	bool journal_open;
	bool abort;
	int abort_code;
	struct llm *llm;
	struct call *calls;        /* per task (only first tasks of a key are sent) */
};

/* What one request carries through the client. */
struct call {
	struct stage *s;
	size_t first;
};

void stage_key(char key[40], const char *prefix, const char *what, size_t len)
{
	char d[72];

	sha256_hex(what, len, d);
	snprintf(key, 40, "%s%.32s", prefix, d + 7);
}

static int read_record(const cJSON *rec, long line, void *data)
{
	struct stage *s = data;
	const cJSON *key = cJSON_GetObjectItemCaseSensitive(rec, "key");
	cJSON *old;

	(void)line;
	if (!cJSON_IsString(key) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(rec, "status")))
		return 0;
	old = strmap_put(&s->done, key->valuestring, cJSON_Duplicate(rec, 1));
	cJSON_Delete(old);
	return 0;
}

/* Hand 'rec' to every task with the key of task 'first'. */
static void deliver(struct stage *s, size_t first, const cJSON *rec, bool from_journal)
{
	for (size_t i = first; i < s->nr; i++)
		if (i == first || !strcmp(s->tasks[i].key, s->tasks[first].key))
			s->o->apply(s->o->ctx, s->tasks[i].index, rec, from_journal);
}

static void on_done(const struct llm_result *res, void *data)
{
	struct call *c = data;
	struct stage *s = c->s;
	const struct stage_options *o = s->o;
	cJSON *rec;

	if (res->status == LLM_CANCELLED) {
		s->st->cancelled++;
		return;
	}
	if (res->status == LLM_FAILED && !res->answered) {
		s->st->lost++;
		return;
	}
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "key", s->tasks[c->first].key);
	cJSON_AddStringToObject(rec, "status", res->status == LLM_OK ? "ok" : "unusable");
	if (res->status == LLM_OK) {
		cJSON_AddItemToObject(rec, "reply", cJSON_Duplicate(res->json, 1));
		s->st->answered++;
	} else {
		cJSON_AddStringToObject(rec, "why", res->why ? res->why : "unusable reply");
		s->st->unusable++;
	}
	cJSON_AddStringToObject(rec, "model", o->llm.model ? o->llm.model : "");
	if (o->prompt_id)
		cJSON_AddStringToObject(rec, "prompt", o->prompt_id);
	llmjob_add_usage(rec, res);
	if (s->journal_open && journal_write(&s->journal, rec)) {
		s->abort = true;
		s->abort_code = ERR_INPUT;
		cJSON_Delete(rec);
		return;
	}
	deliver(s, c->first, rec, false);
	cJSON_Delete(rec);
}

static int stop_stage(void *ctx)
{
	struct stage *s = ctx;

	if (s->abort)
		return 1;
	if (s->o->stop && s->o->stop(s->o->ctx))
		return 1;
	return s->o->llm.http.stop ? s->o->llm.http.stop(s->o->llm.http.ctx) : 0;
}

static void tick(void *ctx)
{
	struct stage *s = ctx;

	if (s->journal_open && journal_sync(&s->journal)) {
		s->abort = true;
		s->abort_code = ERR_INPUT;
	}
	if (s->llm)
		llm_get_usage(s->llm, &s->st->usage);
	if (s->o->tick)
		s->o->tick(s->o->ctx);
}

int stage_run(const struct stage_options *o, struct stage_task *tasks, size_t nr,
	      struct stage_stats *st)
{
	struct stage s;
	struct llm_options lo;
	size_t to_send = 0;
	int rc = ERR_INPUT;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.tasks = tasks;
	s.nr = nr;
	s.st = st;
	s.journal.fd = -1;
	st->planned += nr;
	if (journal_read(o->journal_path, read_record, &s))
		goto out;
	s.calls = xcalloc(nr + 1, sizeof(*s.calls));
	/* outcomes already journaled, and the first task of each key to send */
	for (size_t i = 0; i < nr; i++) {
		const cJSON *rec = strmap_get(&s.done, tasks[i].key);
		int added;
		struct strmap_entry *e;

		if (rec) {
			st->done_before++;
			o->apply(o->ctx, tasks[i].index, rec, true);
			continue;
		}
		e = strmap_intern(&s.first, tasks[i].key, strlen(tasks[i].key), &added);
		if (added) {
			e->value = (void *)(uintptr_t)(i + 1);
			to_send++;
		}
	}
	if (!to_send) {
		rc = 0;
		goto out;
	}
	if (o->llm.http.max_requests < 0) {
		st->cancelled += to_send;
		rc = HTTP_BUDGET_SPENT;
		goto out;
	}
	if (journal_open(&s.journal, o->journal_path))
		goto out;
	s.journal_open = true;
	llmjob_options(&lo, &o->llm, stop_stage, tick, &s);
	lo.schema_name = o->schema_name;
	lo.schema = o->schema;
	lo.shape_hint = o->shape_hint;
	lo.validate = o->validate;
	lo.done = on_done;
	s.llm = llm_new(&lo);
	if (!s.llm)
		goto out;
	for (size_t i = 0; i < nr; i++) {
		if ((uintptr_t)strmap_get(&s.first, tasks[i].key) != i + 1)
			continue;
		s.calls[i].s = &s;
		s.calls[i].first = i;
		llm_submit(s.llm, tasks[i].system ? tasks[i].system : "", tasks[i].user ? tasks[i].user : "",
			   &s.calls[i]);
		free(tasks[i].system);
		free(tasks[i].user);
		tasks[i].system = tasks[i].user = NULL;
	}
	rc = llm_run(s.llm);
	if (s.abort)
		rc = s.abort_code;
out:
	if (s.llm) {
		llm_get_usage(s.llm, &st->usage);
		llm_free(s.llm);
	}
	if (s.journal_open) {
		if (journal_sync(&s.journal) && !rc)
			rc = ERR_INPUT;
		journal_close(&s.journal);
	}
	if (o->tick)
		o->tick(o->ctx);
	for (size_t i = 0; i < nr; i++) {
		free(tasks[i].system);
		free(tasks[i].user);
		tasks[i].system = tasks[i].user = NULL;
	}
	{
		struct strmap_entry *e;
		strmap_for_each(&s.done, e)
			cJSON_Delete(e->value);
	}
	strmap_clear(&s.done, 0);
	strmap_clear(&s.first, 0);
	free(s.calls);
	return rc;
}
