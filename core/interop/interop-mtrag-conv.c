/*
 * interop-mtrag-conv: MTRAG's conversations read as conversational
 * questions (docs/conversations.md, "MTRAG's conversations").
 *
 * Two shapes of the same data are read, each a JSON list or one object a
 * line (JSONL), told apart per object:
 *
 *   a conversation  {"conversation_id", "author", "editor", "messages":
 *                    [{"speaker": "user"|"agent", "text", "enrichments",
 *                      "contexts": [{"document_id", "feedback": {"relevant":
 *                      {ANNOTATOR: {"value": "yes"|"no", "timestamp"}}}}]}]}
 *   a task          {"task_id", "conversation_id", "turn", "contexts",
 *                    "input": [messages, the question last], "answerability"}
 *
 * Each user message of a conversation (each task) is one question: its text,
 * the messages before it as its history, its conversation and turn (user
 * turns counted from 1), id CONVERSATION<::>TURN as MTRAG's retrieval tasks
 * name it. The contexts of the agent message answering it (a task's own
 * contexts) are its labels: judged "yes", relevant (grade 1); judged "no",
 * irrelevant. Whose judgment counts: the conversation's editor's when the
 * editor judged the context, else its author's (the rule of MTRAG's own
 * conversion script), else the latest judgment by timestamp; a context
 * nobody judged is no label. The user message's answerability enrichment
 * decides the rest: CONVERSATIONAL turns ("thanks") are no questions;
 * UNANSWERABLE ones are unanswerable questions (a "yes" on them is left
 * out); an answerable or partial turn with no context judged relevant is
 * left out, as MTRAG's retrieval tasks leave it out. What was left out is
 * counted in one note.
 */
#include "interop/interop.h"

#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONV_MAX_FILE (512u << 20)

struct conv_reader {
	const struct interop_import *o;
	struct set *out;
	const char *file;
	long line;          /* the JSONL line, or 0 for a JSON list */
	size_t item;        /* the object's place in the file, from 1 */
	size_t conversational, unlabelled, yes_on_unanswerable;
};

/* Report a problem with the object being read: FILE:LINE, or FILE and its
 * place in the list. Return -1. */
static int conv_error(const struct conv_reader *r, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (r->line)
		error_at(r->file, r->line, 0, "%s", msg.buf);
	else
		error("%s: item %zu of the list: %s", r->file, r->item, msg.buf);
	strbuf_release(&msg);
	return -1;
}

/* The answerability enrichment of a message or task ("UNANSWERABLE", ...),
 * a string or the first of a list, or NULL. */
static const char *answerability_of(const cJSON *obj)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(obj, "enrichments");
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(e ? e : obj, "answerability");

	if (!a)
		a = cJSON_GetObjectItemCaseSensitive(e ? e : obj, "Answerability");
	if (cJSON_IsArray(a))
		a = cJSON_GetArrayItem(a, 0);
	return cJSON_IsString(a) ? a->valuestring : NULL;
}

/* The judgment of context 'ctx' that counts: the editor's, else the
 * author's, else the latest by timestamp. Return "yes", "no" or NULL. */
static const char *judgment_of(const cJSON *ctx, const char *editor, const char *author)
{
	const cJSON *rel = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(ctx, "feedback"), "relevant");
	const cJSON *pick = NULL, *j;
	double latest = -1;

	if (!cJSON_IsObject(rel))
		return NULL;
	if (editor)
		pick = cJSON_GetObjectItemCaseSensitive(rel, editor);
	if (!pick && author)
		pick = cJSON_GetObjectItemCaseSensitive(rel, author);
	if (!pick) {
		cJSON_ArrayForEach(j, rel) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "timestamp");
			double when = cJSON_IsNumber(t) ? t->valuedouble : 0;
			if (when >= latest) {
				latest = when;
				pick = j;
			}
		}
	}
	return json_get_str(pick, "value");
}

/* Map a message's speaker to a history role, or NULL. */
static const char *role_of(const char *speaker)
{
	if (!speaker)
		return NULL;
	if (!strcmp(speaker, "user"))
		return TURN_USER;
	if (!strcmp(speaker, "agent") || !strcmp(speaker, "assistant"))
		return TURN_ASSISTANT;
	return NULL;
}

/*
 * Add the question asked by message 'ask' of 'msgs' (the messages before
 * it its history), turn 'turn' of conversation 'conv', labelled by
 * 'contexts'. Return 0 (added or left out, counted) or -1 (reported).
 */
static int add_question(struct conv_reader *r, const char *conv, long turn, const cJSON *msgs,
			int ask, const cJSON *contexts, const char *editor, const char *author,
			const char *answerability)
{
	const cJSON *m = cJSON_GetArrayItem(msgs, ask), *ctx;
	struct question q;
	char *id;
	bool unanswerable = answerability && !strcmp(answerability, "UNANSWERABLE");
	int ret = -1;

	if (answerability && !strcmp(answerability, "CONVERSATIONAL")) {
		r->conversational++;
		return 0;
	}
	if (contexts && !cJSON_IsArray(contexts))
		return conv_error(r, "the contexts of turn %ld of conversation '%s' are not a list", turn, conv);
	id = xstrfmt("%s%s%ld", conv, MTRAG_ID_SEP, turn);
	if (set_find(r->out, id)) {
		conv_error(r, "question '%s' read twice (conversation '%s', turn %ld)", id, conv, turn);
		free(id);
		return -1;
	}
	memset(&q, 0, sizeof(q));
	q.id = id;
	q.text = xstrdup(json_get_str(m, "text"));
	q.conversation = xstrdup(conv);
	q.turn = turn;
	q.origin = r->o->origin;
	q.answerable = !unanswerable;
	q.relevant_as_list = true;
	for (int i = 0; i < ask; i++) {
		const cJSON *h = cJSON_GetArrayItem(msgs, i);
		question_add_turn(&q, role_of(json_get_str(h, "speaker")), json_get_str(h, "text"));
	}
	cJSON_ArrayForEach(ctx, contexts) {
		const char *doc = json_get_str(ctx, "document_id");
		const char *v = judgment_of(ctx, editor, author);

		if (!doc || !*doc) {
			conv_error(r, "a context of turn %ld of conversation '%s' has no document_id", turn, conv);
			goto out;
		}
		if (!v || (strcmp(v, "yes") && strcmp(v, "no")))
			continue;
		if (question_grade(&q, doc) >= 0)
			continue;  /* shown twice: the first judgment stands */
		if (!strcmp(v, "yes") && unanswerable) {
			r->yes_on_unanswerable++;
			continue;
		}
		question_set_label(&q, doc, !strcmp(v, "yes"));
	}
	if (!unanswerable && !q.nr_relevant) {
		r->unlabelled++;
		ret = 0;
		goto out;
	}
	question_copy(set_append(r->out), &q);
	ret = 0;
out:
	question_release(&q);
	return ret;
}

/* Check that every message of 'msgs' has a known speaker and a text. */
static int check_messages(struct conv_reader *r, const cJSON *msgs, const char *conv)
{
	const cJSON *m;
	int i = 0;

	if (!cJSON_IsArray(msgs) || !cJSON_GetArraySize(msgs))
		return conv_error(r, "conversation '%s' has no messages", conv);
	cJSON_ArrayForEach(m, msgs) {
		const char *text = json_get_str(m, "text");
		i++;
		if (!role_of(json_get_str(m, "speaker")))
			return conv_error(r, "message %d of conversation '%s': speaker '%s' is not user or agent",
					  i, conv, json_get_str(m, "speaker") ? json_get_str(m, "speaker") : "(none)");
		if (!text || !*text)
			return conv_error(r, "message %d of conversation '%s' has no text", i, conv);
	}
	return 0;
}

static int read_conversation(struct conv_reader *r, const cJSON *c)
{
	const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(c, "messages");
	const char *conv = json_get_str(c, "conversation_id");
	const char *author = json_get_str(c, "author"), *editor = json_get_str(c, "editor");
	long turn = 0;
	int n;

	if (!conv)
		conv = json_get_str(c, "id");
	if (!conv || !*conv)
		return conv_error(r, "a conversation needs a conversation_id");
	if (check_messages(r, msgs, conv) < 0)
		return -1;
	n = cJSON_GetArraySize(msgs);
	for (int i = 0; i < n; i++) {
		const cJSON *m = cJSON_GetArrayItem(msgs, i), *contexts = NULL;

		if (strcmp(role_of(json_get_str(m, "speaker")), TURN_USER))
			continue;
		turn++;
		/* the agent message answering it: the next one before another user's */
		for (int k = i + 1; k < n; k++) {
			const cJSON *a = cJSON_GetArrayItem(msgs, k);
			if (!strcmp(role_of(json_get_str(a, "speaker")), TURN_USER))
				break;
			contexts = cJSON_GetObjectItemCaseSensitive(a, "contexts");
			break;
		}
		if (add_question(r, conv, turn, msgs, i, contexts, editor, author, answerability_of(m)) < 0)
			return -1;
	}
	return 0;
}

static int read_task(struct conv_reader *r, const cJSON *t)
{
	const cJSON *input = cJSON_GetObjectItemCaseSensitive(t, "input");
	const cJSON *turn_j = cJSON_GetObjectItemCaseSensitive(t, "turn");
	const char *conv = json_get_str(t, "conversation_id");
	const cJSON *last, *m;
	const char *answerability;
	long users = 0, turn;
	int n;

	if (!conv || !*conv)
		return conv_error(r, "a task needs a conversation_id");
	if (check_messages(r, input, conv) < 0)
		return -1;
	n = cJSON_GetArraySize(input);
	last = cJSON_GetArrayItem(input, n - 1);
	if (strcmp(role_of(json_get_str(last, "speaker")), TURN_USER))
		return conv_error(r, "task of conversation '%s': its last input message is not the "
				  "user's: it is the question asked", conv);
	cJSON_ArrayForEach(m, input)
		users += !strcmp(role_of(json_get_str(m, "speaker")), TURN_USER);
	if (turn_j && (!cJSON_IsNumber(turn_j) || double_to_long(turn_j->valuedouble, 1, users, &turn) < 0 ||
		       turn != users))
		return conv_error(r, "task of conversation '%s' says turn %s but its input holds %ld user "
				  "message%s", conv, cJSON_IsNumber(turn_j) ? "" : "(not a number)",
				  users, users == 1 ? "" : "s");
	answerability = answerability_of(t);
	if (!answerability)
		answerability = answerability_of(last);
	return add_question(r, conv, users, input, n - 1, cJSON_GetObjectItemCaseSensitive(t, "contexts"),
			    NULL, NULL, answerability);
}

static int read_object(struct conv_reader *r, const cJSON *j)
{
	if (!cJSON_IsObject(j))
		return conv_error(r, "expected an object (a conversation or a task)");
	if (cJSON_GetObjectItemCaseSensitive(j, "messages"))
		return read_conversation(r, j);
	if (cJSON_GetObjectItemCaseSensitive(j, "input"))
		return read_task(r, j);
	if (cJSON_GetObjectItemCaseSensitive(j, "_id"))
		return conv_error(r, "this is a retrieval task (BEIR query): give it with its qrels, "
				  "--from-mtrag QUERIES QRELS");
	return conv_error(r, "neither a conversation ('messages') nor a task ('input')");
}

int mtrag_conversations_import(struct set *out, const struct interop_import *o)
{
	struct conv_reader r = { o, out, o->mtrag, 0, 0, 0, 0, 0 };
	struct strbuf buf = STRBUF_INIT;
	const char *p;
	cJSON *j = NULL;
	int ret = -1;

	if (read_file(o->mtrag, &buf, CONV_MAX_FILE) < 0)
		goto out;
	for (p = buf.buf; *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'; p++)
		;
	if (*p == '[') {
		const cJSON *c;
		if (!(j = cJSON_ParseWithLength(buf.buf, buf.len))) {
			error("%s: not valid JSON", o->mtrag);
			goto out;
		}
		cJSON_ArrayForEach(c, j) {
			r.item++;
			if (read_object(&r, c) < 0)
				goto out;
		}
	} else {
		char *line = buf.buf, *next;
		for (; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			r.line++;
			r.item++;
			if (strspn(line, " \t\r") == strlen(line))
				continue;
			if (!(j = cJSON_Parse(line))) {
				error_at(o->mtrag, r.line, 0, "not valid JSON");
				goto out;
			}
			if (read_object(&r, j) < 0)
				goto out;
			cJSON_Delete(j);
			j = NULL;
		}
	}
	if (r.conversational || r.unlabelled || r.yes_on_unanswerable) {
		struct strbuf what = STRBUF_INIT;
		if (r.conversational)
			strbuf_addf(&what, "%zu conversational turn%s (no question)", r.conversational,
				    r.conversational == 1 ? "" : "s");
		if (r.unlabelled)
			strbuf_addf(&what, "%s%zu answerable turn%s with no context judged relevant",
				    what.len ? ", " : "", r.unlabelled, r.unlabelled == 1 ? "" : "s");
		if (r.yes_on_unanswerable)
			strbuf_addf(&what, "%s%zu relevance judgment%s on turns marked unanswerable",
				    what.len ? ", " : "", r.yes_on_unanswerable,
				    r.yes_on_unanswerable == 1 ? "" : "s");
		note("%s: left out %s", o->mtrag, what.buf);
		strbuf_release(&what);
	}
	if (!out->nr) {
		error("%s: no question read (no conversation turn with a judged context or marked unanswerable)",
		      o->mtrag);
		goto out;
	}
	free(out->file);
	out->file = xstrdup(o->mtrag);
	ret = 0;
out:
	cJSON_Delete(j);
	strbuf_release(&buf);
	return ret;
}
