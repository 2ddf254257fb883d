/*
 * judge: plan, journal, ask, record (see judge.h for the contract).
 *
 * Invariants: a pair whose key has an "ok" record in the journal is never
 * sent again (nor one with an "unusable" record, unless 'retry_failed'); a
 * record reaches the journal (the kernel: it survives kill -9) before its
 * grade reaches the item, and the journal is fsync'ed about once a second
 * and at the end. Items that share a key are asked once and all receive the
 * result.
 */
#include "llm/judge.h"
#include "text/lang.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "llm/journal.h"
#include "llm/llmjob.h"
#include "llm/prompt.h"
#include "base/jsontree.h"
#include "base/strmap.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const prompt_vars[] = {
	"question.id", "question.text", "chunk.id", "chunk.title", "chunk.text",
	"question.language", "chunk.language", NULL,
};

#define REPLY_SCHEMA \
	"{\"type\":\"object\",\"properties\":{\"grade\":{\"type\":\"integer\",\"enum\":[0,1,2,3]}," \
	"\"reason\":{\"type\":\"string\"}},\"required\":[\"grade\",\"reason\"]," \
	"\"additionalProperties\":false}"
#define REPLY_HINT "{\"grade\": 0, \"reason\": \"one short sentence\"}"

int judge_prompt_load(struct prompt *p, const char *path)
{
	if (prompt_load(p, path) || prompt_check_vars(p, prompt_vars))
		return -1;
	return 0;
}

void judge_items_release(struct judge_item *items, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(items[i].reason);
		free(items[i].why);
		items[i].reason = items[i].why = NULL;
	}
}

int judge_validate_reply(const cJSON *json, struct strbuf *why)
{
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(json, "grade");
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(json, "reason");

	if (!cJSON_IsObject(json)) {
		strbuf_addstr(why, "reply is not a JSON object");
		return -1;
	}
	if (!cJSON_IsNumber(g)) {
		strbuf_addstr(why, "reply has no numeric 'grade'");
		return -1;
	}
	if (g->valuedouble != floor(g->valuedouble) || g->valuedouble < 0 || g->valuedouble > 3) {
		strbuf_addf(why, "reply grade %g is not an integer in 0..3", g->valuedouble);
		return -1;
	}
	if (r && !cJSON_IsString(r) && !cJSON_IsNull(r)) {
		strbuf_addstr(why, "reply has a 'reason' that is not a string");
		return -1;
	}
	return 0;
}

static int validate(const cJSON *json, void *data, struct strbuf *why)
{
	(void)data;
	return judge_validate_reply(json, why);
}

struct job;

/* What one request carries through the client. */
struct call {
	struct job *j;
	size_t first;           /* the first item with the key */
};

struct job {
	const struct judge_options *o;
	struct judge_stats *st;
	struct judge_item *items;
	size_t nr;
	size_t *first;          /* per item: index of the first item with its key */
	struct call *calls;     /* per item (only first items are used) */
	struct strmap plan;     /* key -> first item + 1 */
	struct strmap done;     /* key -> journal record (owned) */
	struct journal journal;
	bool journal_open;
	bool abort;
	struct llm *llm;
	int64_t started_ms;
};

static void make_key(const struct judge_options *o, struct judge_item *it)
{
	struct strbuf sb = STRBUF_INIT;
	char td[72], d[72];

	sha256_hex(it->text ? it->text : "", it->text ? strlen(it->text) : 0, td);
	strbuf_addf(&sb, "%s\n%s\n%s\n%s\n%s\n%s", it->qid, it->question ? it->question : "", it->chunk,
		    td, o->llm.model ? o->llm.model : "", o->prompt->digest);
	sha256_hex(sb.buf, sb.len, d);
	snprintf(it->key, sizeof(it->key), "j-%.32s", d + 7);
	strbuf_release(&sb);
}

/* Give item 'it' the outcome in journal record 'rec'. */
static void apply(struct judge_item *it, const cJSON *rec, bool from_journal)
{
	const char *status = json_get_str(rec, "status");
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(rec, "grade");

	free(it->reason);
	free(it->why);
	it->reason = xstrdup(json_get_str(rec, "reason"));
	it->why = xstrdup(json_get_str(rec, "why"));
	it->from_journal = from_journal;
	if (status && !strcmp(status, "ok") && cJSON_IsNumber(g) && g->valuedouble >= 0 && g->valuedouble <= 3) {
		it->status = JUDGE_GRADED;
		it->grade = (int)g->valuedouble;
	} else {
		it->status = JUDGE_FAILED;
		it->grade = -1;
	}
}

bool judge_in_shard(const char *qid, const char *chunk, long i, long n)
{
	struct strbuf sb = STRBUF_INIT;
	char d[72];
	uint64_t h = 0;

	if (n <= 1)
		return true;
	strbuf_addf(&sb, "%s\n%s", qid, chunk);
	sha256_hex(sb.buf, sb.len, d);
	strbuf_release(&sb);
	for (int k = 7; k < 7 + 16; k++)   /* after "sha256:" */
		h = h << 4 | (uint64_t)(d[k] <= '9' ? d[k] - '0' : d[k] - 'a' + 10);
	return h % (uint64_t)n == (uint64_t)(i - 1);
}

static int read_record(const cJSON *rec, long line, void *data)
{
	struct job *j = data;
	const char *key = json_get_str(rec, "key");
	cJSON *old;

	(void)line;
	if (!key || !json_get_str(rec, "status"))
		return 0;
	/* a later record wins: an ok after a retried failure */
	old = strmap_put(&j->done, key, cJSON_Duplicate(rec, 1));
	cJSON_Delete(old);
	return 0;
}

static void deliver(struct job *j, size_t first, const cJSON *rec)
{
	for (size_t i = first; i < j->nr; i++)
		if (j->first[i] == first)
			apply(&j->items[i], rec, false);
}

static void on_done(const struct llm_result *res, void *data)
{
	struct call *c = data;
	struct job *j = c->j;
	struct judge_item *it = &j->items[c->first];
	cJSON *rec;

	if (res->status == LLM_CANCELLED) {
		j->st->cancelled++;
		return;
	}
	if (res->status == LLM_FAILED && !res->answered) {
		j->st->lost++;
		for (size_t i = c->first; i < j->nr; i++)
			if (j->first[i] == c->first)
				j->items[i].status = JUDGE_LOST;
		return;
	}
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "key", it->key);
	cJSON_AddStringToObject(rec, "status", res->status == LLM_OK ? "ok" : "unusable");
	cJSON_AddStringToObject(rec, "question", it->qid);
	cJSON_AddStringToObject(rec, "chunk", it->chunk);
	cJSON_AddStringToObject(rec, "model", j->o->llm.model ? j->o->llm.model : "");
	cJSON_AddStringToObject(rec, "prompt", j->o->prompt->digest);
	if (res->status == LLM_OK) {
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(res->json, "grade");
		const char *reason = json_get_str(res->json, "reason");
		cJSON_AddNumberToObject(rec, "grade", g->valuedouble);
		if (reason && *reason)
			cJSON_AddStringToObject(rec, "reason", reason);
		j->st->graded++;
	} else {
		struct strbuf why = STRBUF_INIT;
		strbuf_addstr(&why, res->why ? res->why : "unusable reply");
		if (res->content && *res->content) {
			strbuf_addstr(&why, ": ");
			strbuf_add(&why, res->content, strlen(res->content) > 200 ? 200 : strlen(res->content));
		}
		cJSON_AddStringToObject(rec, "why", why.buf);
		strbuf_release(&why);
		j->st->failed++;
	}
	llmjob_add_usage(rec, res);
	if (j->journal_open && journal_write(&j->journal, rec))
		j->abort = true;
	else
		deliver(j, c->first, rec);
	cJSON_Delete(rec);
}

/*
 * A result of --batch: the same journal-and-deliver path as a live reply. A
 * reply that cannot be used is not recorded while a follow-up batch can ask
 * it again (return 1).
 */
static int on_batch_result(const char *custom_id, const char *body, size_t len, const char *why,
			   bool final, void *ctx)
{
	struct job *j = ctx;
	uintptr_t at = (uintptr_t)strmap_get(&j->plan, custom_id);
	struct llm_result res;
	size_t i;

	if (!at || j->abort)
		return 0;
	i = at - 1;
	if (j->items[i].status == JUDGE_GRADED || (j->items[i].status == JUDGE_FAILED && j->items[i].from_journal &&
						   !j->o->retry_failed))
		return 0;
	if (!j->calls[i].j)
		return 0;   /* not asked by this run */
	if (body) {
		int rc = llm_accept(j->llm, body, len, &j->calls[i], &res);
		if (rc && !final)
			return rc == 1 ? LLMBATCH_LONGER : LLMBATCH_AGAIN;
		on_done(&res, &j->calls[i]);
	} else if (final) {
		memset(&res, 0, sizeof(res));
		res.status = LLM_FAILED;
		res.why = why;
		on_done(&res, &j->calls[i]);
	}
	return 0;
}

/*
 * One line of a --batch-in file: counted, matched on custom_id, then the
 * live reply's path. A failed line is left for a new --batch-out.
 */
static int on_batch_in(const char *custom_id, const char *body, size_t len, const char *why, bool final,
		       void *ctx)
{
	struct job *j = ctx;
	uintptr_t at = (uintptr_t)strmap_get(&j->plan, custom_id);

	if (!at) {
		j->st->batch_unmatched++;
		return 0;
	}
	j->st->batch_matched++;
	if (!body && j->calls[at - 1].j)
		j->st->batch_errors++;
	else
		on_batch_result(custom_id, body, len, why, final, ctx);
	return j->abort ? -1 : 0;
}

/* --batch-out: the batch input lines of 'reqs' into the file. Return 0 or ERR_INPUT. */
static int write_batch_out(struct job *j, const struct llmbatch_request *reqs, size_t n)
{
	struct strbuf out = STRBUF_INIT;
	int rc;

	for (size_t i = 0; i < n; i++)
		llmbatch_input_line(j->llm, reqs[i].custom_id, reqs[i].body, &out);
	rc = write_file_atomic(j->o->batch_out, out.buf, out.len) ? ERR_INPUT : 0;
	if (!rc)
		j->st->batch_written = n;
	strbuf_release(&out);
	return rc;
}

static int stop_job(void *ctx);

static void batch_progress(const struct llmbatch_stats *bst, void *ctx)
{
	struct job *j = ctx;

	j->st->batch = *bst;
	if (j->journal_open && journal_sync(&j->journal))
		j->abort = true;
	if (j->o->progress)
		j->o->progress(j->st, j->o->ctx);
}

/* Send the planned requests 'reqs' through the batch API. Return 0 or an ERR_* code. */
static int run_batch(struct job *j, const struct llmbatch_request *reqs, size_t n, bool estimate_only)
{
	struct llmbatch_options bo = j->o->batch_opts;

	bo.result = on_batch_result;
	bo.stop = stop_job;
	bo.progress = batch_progress;
	bo.ctx = j;
	bo.deadline_ms = j->o->llm.http.deadline_ms;   /* --deadline: polling included */
	bo.estimate_only = estimate_only;
	return llmbatch_run(j->llm, &bo, reqs, n, &j->st->batch);
}

static int stop_job(void *ctx)
{
	struct job *j = ctx;

	return llmjob_stop(j->abort, &j->o->llm.http);
}

static void tick(void *ctx)
{
	struct job *j = ctx;

	if (j->journal_open && journal_sync(&j->journal))
		j->abort = true;
	llmjob_sample(j->llm, j->started_ms, &j->st->usage, &j->st->elapsed);
	if (j->o->progress)
		j->o->progress(j->st, j->o->ctx);
}

/* Return the name of the language 'tag' names, else of the one 'text' is in. */
static const char *language_name(const char *tag, const char *text)
{
	const struct lang *l = tag ? lang_get(tag) : lang_detect(text, strlen(text));

	return l == lang_und() ? "the language of the text" : lang_name(l);
}

int judge_render(const struct prompt *p, const struct judge_item *it, struct strbuf *sys,
		 struct strbuf *user)
{
	const char *question = it->question ? it->question : "", *text = it->text ? it->text : "";
	struct prompt_var vars[] = {
		{ "question.id", it->qid }, { "question.text", question },
		{ "chunk.id", it->chunk }, { "chunk.title", it->title ? it->title : "" },
		{ "chunk.text", text },
		{ "question.language", language_name(it->question_language, question) },
		{ "chunk.language", language_name(it->chunk_language, text) },
	};

	if (prompt_render(p->system, vars, ARRAY_SIZE(vars), sys) ||
	    prompt_render(p->user, vars, ARRAY_SIZE(vars), user))
		return -1;
	return 0;
}

static int render(const struct job *j, const struct judge_item *it, struct strbuf *sys, struct strbuf *user)
{
	return judge_render(j->o->prompt, it, sys, user);
}

int judge_run(const struct judge_options *o, struct judge_item *items, size_t nr,
	      struct judge_stats *st)
{
	struct job j;
	struct llm_options lo;
	struct strmap_entry *e;
	struct llmbatch_request *reqs = NULL;
	size_t nr_reqs = 0;
	int rc = ERR_INPUT;

	memset(&j, 0, sizeof(j));
	memset(st, 0, sizeof(*st));
	j.o = o;
	j.st = st;
	j.items = items;
	j.nr = nr;
	j.journal.fd = -1;
	j.started_ms = llmjob_now_ms();
	j.first = xcalloc(nr + 1, sizeof(*j.first));
	j.calls = xcalloc(nr + 1, sizeof(*j.calls));
	for (size_t i = 0; i < nr; i++) {
		uintptr_t at;
		items[i].status = JUDGE_PENDING;
		items[i].grade = -1;
		make_key(o, &items[i]);
		at = (uintptr_t)strmap_get(&j.plan, items[i].key);
		if (!at) {
			strmap_put(&j.plan, items[i].key, (void *)(uintptr_t)(i + 1));
			j.first[i] = i;
			st->planned++;
		} else {
			j.first[i] = at - 1;
		}
	}
	if (journal_read(o->journal_path, read_record, &j))
		goto out;
	for (size_t i = 0; i < o->nr_more_journals; i++)
		if (journal_read(o->more_journals[i], read_record, &j))
			goto out;
	for (size_t i = 0; i < nr; i++) {
		const cJSON *rec = strmap_get(&j.done, items[i].key);
		const char *status = rec ? json_get_str(rec, "status") : NULL;
		bool ok = status && !strcmp(status, "ok");
		if (rec && (ok || !o->retry_failed))
			apply(&items[i], rec, true);
		if (j.first[i] != i)
			continue;
		if (rec && ok)
			st->done_before++;
		else if (rec && !o->retry_failed)
			st->failed_before++;
		else
			st->to_send++;
	}

	llmjob_options(&lo, &o->llm, stop_job, tick, &j);
	lo.schema_name = "grade";
	lo.schema = REPLY_SCHEMA;
	lo.shape_hint = REPLY_HINT;
	lo.validate = validate;
	lo.done = on_done;
	if ((o->dry_run && !o->batch) || !st->to_send) {
		rc = 0;
		goto out;
	}
	j.llm = llm_new(&lo);
	if (!j.llm)
		goto out;
	if (!o->dry_run && !o->batch_out) {
		if (journal_open(&j.journal, o->journal_path))
			goto out;
		j.journal_open = true;
	}
	if (o->batch || o->batch_out)
		reqs = xcalloc(nr + 1, sizeof(*reqs));
	for (size_t i = 0; i < nr; i++) {
		struct strbuf sys = STRBUF_INIT, user = STRBUF_INIT;
		if (j.first[i] != i || items[i].status == JUDGE_GRADED ||
		    (items[i].status == JUDGE_FAILED && !o->retry_failed))
			continue;
		if (render(&j, &items[i], &sys, &user)) {
			strbuf_release(&sys);
			strbuf_release(&user);
			goto out;
		}
		j.calls[i].j = &j;
		j.calls[i].first = i;
		if (reqs) {
			struct strbuf body = STRBUF_INIT;
			llm_request_body(j.llm, sys.buf, user.buf, LLM_JSON_SCHEMA, 0, &body);
			reqs[nr_reqs].custom_id = items[i].key;
			reqs[nr_reqs++].body = strbuf_detach(&body, NULL);
		} else if (!o->nr_batch_in) {
			llm_submit(j.llm, sys.buf, user.buf, &j.calls[i]);
		}
		strbuf_release(&sys);
		strbuf_release(&user);
	}
	if (o->batch_out) {
		rc = write_batch_out(&j, reqs, nr_reqs);
		goto out;
	} else if (o->nr_batch_in) {
		rc = 0;
		for (size_t f = 0; f < o->nr_batch_in && !j.abort && !rc; f++)
			if (llmbatch_read_file(o->batch_in[f], on_batch_in, &j))
				rc = ERR_INPUT;
	} else if (o->batch) {
		rc = run_batch(&j, reqs, nr_reqs, o->dry_run);
		if (o->dry_run)
			goto out;
	} else {
		rc = llm_run(j.llm);
	}
	if (j.abort && !rc)
		rc = ERR_INPUT;
	if (journal_sync(&j.journal) && !rc)
		rc = ERR_INPUT;
out:
	for (size_t i = 0; i < nr_reqs; i++)
		free((char *)reqs[i].body);
	free(reqs);
	llmjob_end(j.llm, j.started_ms, &st->usage, &st->elapsed, &st->mode);
	if (j.journal_open)
		journal_close(&j.journal);
	strmap_for_each(&j.done, e)
		cJSON_Delete(e->value);
	strmap_clear(&j.done, 0);
	strmap_clear(&j.plan, 0);
	free(j.first);
	free(j.calls);
	return rc;
}
