/*
 * review-apply: a reviewer's action applied to the file (review_apply), in
 * the order review.h gives: lock, digest check, load afresh, apply, check
 * the set's rules, save atomically.
 *
 * Invariants: the file is only ever replaced atomically (set_save, or
 * review_pool_save for a pool) after the digest of what is on disk matched
 * the page's, under the lock the CLI takes, so a write never overwrites a
 * change the page did not show; a pool is changed in memory only when it
 * is the one those bytes hold (review_pool_hold: kept when its digest is
 * theirs, else parsed from them), and the digest the page gets back is of
 * the bytes written; a set is saved only when set_check_errors finds nothing; messages
 * reported through error() while an action runs are returned to the page
 * instead of printed.
 */
#include "review/review.h"
#include "review/review-internal.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/util.h"
#include "pool/pool.h"
#include "set/rejected.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* error() messages of the action under way, for the page */
static struct strbuf captured = STRBUF_INIT;

static void capture(const char *prefix, const char *msg)
{
	(void)prefix;
	if (captured.len)
		strbuf_addstr(&captured, "; ");
	strbuf_addstr(&captured, msg);
}

struct action {
	const cJSON *req;
	const char *op, *id;
	char now[21];
	int status;   /* HTTP status of a failure */
	struct review_change *ch;  /* filled in by a write, for undo */
	cJSON *change;             /* the question as written, for the reply (NULL: reload) */
	const struct strbuf *bytes;  /* pools: the file as read for the digest check */
	const char *disk;            /* pools: its digest */
	char written[72];            /* pools: the digest of the bytes written, or "" */
};

static const char *req_str(const struct action *a, const char *key)
{
	return json_get_str(a->req, key);
}

/* Fail the action 'a' with HTTP 'status' and the message 'fmt'. */
__attribute__((format(printf, 3, 4)))
static int fail(struct action *a, int status, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	a->status = status;
	error("%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* Read the integer 'key' of the request into '*out' within min..max. */
static int req_int(struct action *a, const char *key, int min, int max, int *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(a->req, key);

	if (!cJSON_IsNumber(v) || v->valuedouble != (double)(int)v->valuedouble ||
	    v->valueint < min || v->valueint > max)
		return fail(a, 400, "'%s' must be an integer in %d..%d", key, min, max);
	*out = v->valueint;
	return 0;
}

/* Record who changed 'q' and when, and its review status. */
static void stamp(struct question *q, const struct action *a, const char *status)
{
	const cJSON *old;

	if (!q->provenance)
		q->provenance = cJSON_CreateObject();
	old = cJSON_GetObjectItemCaseSensitive(q->provenance, "review");
	/* a change after acceptance keeps the acceptance: the reviewer made it */
	if (!(cJSON_IsString(old) && !strcmp(old->valuestring, "accepted") && !strcmp(status, "edited"))) {
		cJSON_DeleteItemFromObjectCaseSensitive(q->provenance, "review");
		cJSON_AddStringToObject(q->provenance, "review", status);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(q->provenance, "reviewed_by");
	cJSON_AddStringToObject(q->provenance, "reviewed_by", req_str(a, "reviewer") ? req_str(a, "reviewer") : "");
	cJSON_DeleteItemFromObjectCaseSensitive(q->provenance, "reviewed_at");
	cJSON_AddStringToObject(q->provenance, "reviewed_at", a->now);
}

static void remove_tag(struct question *q, const char *tag)
{
	for (size_t i = 0; i < q->nr_tags; i++)
		if (!strcmp(q->tags[i], tag)) {
			free(q->tags[i]);
			memmove(&q->tags[i], &q->tags[i + 1], (q->nr_tags - i - 1) * sizeof(*q->tags));
			q->nr_tags--;
			return;
		}
}

/* Drop the evidence of 'q' for chunks that are no longer relevant: the
 * set's rules keep evidence for relevant chunks only, and the reviewer who
 * took the label away took its evidence with it. */
static void drop_stale_evidence(struct question *q)
{
	struct question keep;

	memset(&keep, 0, sizeof(keep));
	for (size_t i = 0; i < q->nr_evidence; i++)
		if (question_grade(q, q->evidence[i].chunk) >= 1)
			question_add_evidence(&keep, &q->evidence[i]);
	question_clear_evidence(q);
	for (size_t i = 0; i < keep.nr_evidence; i++)
		question_add_evidence(q, &keep.evidence[i]);
	question_clear_evidence(&keep);
	free(keep.evidence);
}

/*
 * What marking a question unanswerable takes, kept in its provenance (the
 * key below: {"relevant": {CHUNK: GRADE}, "evidence": [...]}) so that
 * marking it answerable again puts the same grades and evidence back, in
 * this session or a later one.
 */
#define KEPT_LABELS "before_unanswerable"

/* Keep the relevant chunks of 'q' and their evidence in its provenance. */
static void keep_relevant(struct question *q)
{
	cJSON *o, *rel, *ev;

	if (!q->nr_relevant)
		return;
	if (!q->provenance)
		q->provenance = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(q->provenance, KEPT_LABELS);
	o = cJSON_AddObjectToObject(q->provenance, KEPT_LABELS);
	rel = cJSON_AddObjectToObject(o, "relevant");
	for (size_t i = 0; i < q->nr_relevant; i++)
		cJSON_AddNumberToObject(rel, q->relevant[i].chunk, q->relevant[i].grade);
	if (q->nr_evidence) {
		ev = cJSON_AddArrayToObject(o, "evidence");
		for (size_t i = 0; i < q->nr_evidence; i++)
			cJSON_AddItemToArray(ev, evidence_to_json(&q->evidence[i]));
	}
}

static long json_long(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
}

/* Put back what keep_relevant kept for 'q' (chunks the corpus no longer
 * holds left out) and forget it. Return the number of grades put back. */
static size_t restore_relevant(const struct review *r, struct question *q)
{
	const cJSON *o = q->provenance ? cJSON_GetObjectItemCaseSensitive(q->provenance, KEPT_LABELS) : NULL;
	const cJSON *it;
	size_t n = 0;

	if (!cJSON_IsObject(o))
		return 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "relevant")) {
		if (!cJSON_IsNumber(it) || it->valuedouble < 1 || it->valuedouble > 9 ||
		    (r->have_corpus && !corpus_get(&r->corpus, it->string)))
			continue;
		question_set_label(q, it->string, (int)it->valuedouble);
		n++;
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "evidence")) {
		struct evidence e = { (char *)json_get_str(it, "chunk"), (char *)json_get_str(it, "doc"),
				      json_long(it, "start"), json_long(it, "end"), (char *)json_get_str(it, "quote"), 0, 0 };

		if (e.chunk && question_grade(q, e.chunk) >= 1)
			question_add_evidence(q, &e);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(q->provenance, KEPT_LABELS);
	return n;
}

/* Return true when 's' is a usable tag: non-empty, no spaces or control characters. */
static bool valid_tag(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == ',' || *s == '[' || *s == ']')
			return false;
	return true;
}

/* Apply the question action 'a' to 'q' of 's'. Return 0, 1 when 'q' was
 * rejected (the caller removes it), or -1 (a->status set). */
static int apply_question(struct review *r, struct action *a, struct question *q)
{
	const char *op = a->op;
	int grade;

	if (!strcmp(op, "accept")) {
		stamp(q, a, "accepted");
	} else if (!strcmp(op, "edit")) {
		const char *text = req_str(a, "text");
		struct strbuf t = STRBUF_INIT;
		if (!text)
			return fail(a, 400, "an edit needs 'text'");
		strbuf_addstr(&t, text);
		for (size_t i = 0; i < t.len; i++)
			if (t.buf[i] == '\n' || t.buf[i] == '\r' || t.buf[i] == '\t')
				t.buf[i] = ' ';
		strbuf_trim(&t);
		if (!t.len || !utf8_valid(t.buf, t.len, NULL)) {
			strbuf_release(&t);
			return fail(a, 422, "the question's text must be non-empty UTF-8");
		}
		if (strcmp(t.buf, q->text ? q->text : "")) {
			if (!q->provenance)
				q->provenance = cJSON_CreateObject();
			if (q->text && !cJSON_GetObjectItemCaseSensitive(q->provenance, "original_text"))
				cJSON_AddStringToObject(q->provenance, "original_text", q->text);
			free(q->text);
			q->text = strbuf_detach(&t, NULL);
		}
		strbuf_release(&t);
		stamp(q, a, "edited");
	} else if (!strcmp(op, "label")) {
		const char *chunk = req_str(a, "chunk");
		if (!chunk || !*chunk)
			return fail(a, 400, "a label needs 'chunk'");
		if (req_int(a, "grade", -1, REVIEW_MAX_GRADE, &grade))
			return -1;
		if (r->have_corpus && grade >= 0 && !corpus_get(&r->corpus, chunk)) {
			struct strbuf mean = STRBUF_INIT;
			int rc;

			corpus_did_you_mean(&r->corpus, chunk, &mean);
			rc = fail(a, 422, "unknown chunk '%s' (not in '%s')%s", chunk, r->corpus.path, mean.buf);
			strbuf_release(&mean);
			return rc;
		}
		question_set_label(q, chunk, grade);
		drop_stale_evidence(q);
		stamp(q, a, "edited");
	} else if (!strcmp(op, "answerable")) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(a->req, "answerable");
		const char *chunk = req_str(a, "chunk");
		if (!cJSON_IsBool(v))
			return fail(a, 400, "'answerable' must be true or false");
		q->answerable = cJSON_IsTrue(v);
		if (!q->answerable) {
			/* an unanswerable question has no relevant chunk: they become
			 * judged irrelevant, their grades kept for the way back */
			keep_relevant(q);
			while (q->nr_relevant) {
				char *c = xstrdup(q->relevant[0].chunk);
				question_set_label(q, c, 0);
				free(c);
			}
			drop_stale_evidence(q);
		} else if (!restore_relevant(r, q) && chunk && *chunk) {
			/* nothing kept (never labelled): the chunk the reviewer points at */
			question_set_label(q, chunk, 1);
		}
		stamp(q, a, "edited");
	} else if (!strcmp(op, "tag") || !strcmp(op, "untag")) {
		const char *tag = req_str(a, "tag");
		if (!tag || !valid_tag(tag))
			return fail(a, 422, "a tag is one word without spaces, commas or brackets");
		remove_tag(q, tag);
		if (!strcmp(op, "tag")) {
			ALLOC_GROW(q->tags, q->nr_tags + 1, q->alloc_tags);
			q->tags[q->nr_tags++] = xstrdup(tag);
		}
		stamp(q, a, "edited");
	} else if (!strcmp(op, "reject")) {
		const char *reason = req_str(a, "reason");
		if (!reason || !*reason)
			return fail(a, 422, "a rejection needs a reason");
		stamp(q, a, "rejected");
		cJSON_DeleteItemFromObjectCaseSensitive(q->provenance, "reason");
		cJSON_AddStringToObject(q->provenance, "reason", reason);
		return 1;
	} else {
		return fail(a, 400, "unknown action '%s'", op);
	}
	return 0;
}

/*
 * Move the rejected question 'q' (a copy) to the rejected list, then save
 * 's' (which no longer holds it): both written or neither. The list is
 * written first, so that a crash between the two leaves the question in
 * both places, never in neither; a set that cannot be saved puts the list
 * back as it was. Return 0 or -1 (reported).
 */
static int save_rejection(struct review *r, struct set *s, const struct question *q)
{
	char *path = rejected_path(&r->ref);
	struct strbuf old = STRBUF_INIT;
	bool existed = path_exists(path);
	int rc = -1;

	if ((existed && read_file(path, &old, SET_MAX_FILE_BYTES) < 0) ||
	    set_id_floor_write(&r->ref, set_id_floor(&r->ref)) < 0 || rejected_add(&r->ref, q) < 0)
		goto out;
	if (set_save(s, r->file) < 0) {
		if (existed ? write_file_atomic(path, old.buf, old.len) < 0 : unlink(path) < 0)
			error("'%s' could not be put back: question '%s' is in it and still in '%s'", path,
			      q->id, r->file);
		goto out;
	}
	rc = 0;
out:
	strbuf_release(&old);
	free(path);
	return rc;
}

static int write_set(struct review *r, struct action *a)
{
	struct set s = SET_INIT;
	struct findings f = FINDINGS_INIT;
	struct question *q, rejected;
	long idx;
	int rc = -1, applied;

	memset(&rejected, 0, sizeof(rejected));
	if (set_open_ref(&s, &r->ref, true) < 0 || review_refresh_corpus(r, &s) < 0) {
		a->status = 422;
		goto out;
	}
	if ((idx = set_index(&s, a->id)) < 0) {
		fail(a, 404, "no question '%s' in '%s'", a->id, r->file);
		goto out;
	}
	q = &s.q[idx];
	a->ch->index = (size_t)idx;
	question_copy(&a->ch->before, q);
	if ((applied = apply_question(r, a, q)) < 0)
		goto out;
	a->status = 422;
	question_copy(&a->ch->after, q);
	if (applied == 1) {
		/* rejected: out of the set, but kept to be written to the list */
		a->ch->rejected = true;
		question_copy(&rejected, q);
		set_remove(&s, (size_t)idx);
	}
	/* the rules first: a change that breaks them writes nothing, not even the list */
	set_check_errors(&s, r->have_corpus ? &r->corpus : NULL, &f);
	if (f.nr_errors) {
		findings_report_errors(&f, r->file);
		error("the change would break the set's rules; nothing written");
		goto out;
	}
	if (applied == 1 ? save_rejection(r, &s, &rejected) < 0 : set_save(&s, r->file) < 0)
		goto out;
	if (applied != 1)
		a->change = review_question_change(r, &s.q[idx]);
	rc = 0;
out:
	question_release(&rejected);
	findings_release(&f);
	set_release(&s);
	return rc;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void pair_state_get(struct review_pair_state *st, const struct pool_pair *pp)
{
	st->grade = pp->grade;
	st->llm_grade = pp->llm_grade;
	st->judge = dup_or_null(pp->judge);
	st->llm_judge = dup_or_null(pp->llm_judge);
	st->reviewed_by = dup_or_null(pp->reviewed_by);
	st->reviewed_at = dup_or_null(pp->reviewed_at);
}

static void pair_state_put(struct pool_pair *pp, const struct review_pair_state *st)
{
	pp->grade = st->grade;
	pp->llm_grade = st->llm_grade;
	free(pp->judge);
	pp->judge = dup_or_null(st->judge);
	free(pp->llm_judge);
	pp->llm_judge = dup_or_null(st->llm_judge);
	free(pp->reviewed_by);
	pp->reviewed_by = dup_or_null(st->reviewed_by);
	free(pp->reviewed_at);
	pp->reviewed_at = dup_or_null(st->reviewed_at);
}

/*
 * Write the question of 'ch' back as it was before the change ('undo') or
 * after it: in place; for a rejection, out of the rejected list into its
 * old place in the set (undo) or out of the set into the list again
 * (redo). An undone rejection is written to the set first and then taken
 * off the list, so that a failure leaves it in both, never in neither.
 * Return 0 or -1 (a->status set, reported).
 */
static int replay_set(struct review *r, struct action *a, const struct review_change *ch, bool undo)
{
	struct set s = SET_INIT;
	struct findings f = FINDINGS_INIT;
	const struct question *to = undo ? &ch->before : &ch->after;
	bool back_from_list = undo && ch->rejected, to_list = !undo && ch->rejected;
	long idx;
	int rc = -1;

	a->status = 422;
	if (set_open_ref(&s, &r->ref, true) < 0 || review_refresh_corpus(r, &s) < 0)
		goto out;
	idx = set_index(&s, ch->id);
	if (back_from_list ? idx >= 0 : idx < 0) {
		fail(a, 409, "question '%s' is %s '%s'; nothing written", ch->id,
		     idx >= 0 ? "already back in" : "no longer in", r->file);
		goto out;
	}
	if (back_from_list) {
		size_t at = ch->index < s.nr ? ch->index : s.nr;
		set_append(&s);
		memmove(&s.q[at + 1], &s.q[at], (s.nr - 1 - at) * sizeof(*s.q));
		question_copy(&s.q[at], to);
	} else if (to_list) {
		set_remove(&s, (size_t)idx);
	} else {
		question_release(&s.q[idx]);
		question_copy(&s.q[idx], to);
	}
	set_check_errors(&s, r->have_corpus ? &r->corpus : NULL, &f);
	if (f.nr_errors) {
		findings_report_errors(&f, r->file);
		error("the change would break the set's rules; nothing written");
		goto out;
	}
	if (to_list ? save_rejection(r, &s, to) < 0 : set_save(&s, r->file) < 0)
		goto out;
	if (back_from_list && rejected_remove(&r->ref, ch->id) < 0) {
		error("question '%s' is back in '%s' but still in the rejected list", ch->id, r->file);
		goto out;
	}
	if (!back_from_list && !to_list)
		a->change = review_question_change(r, &s.q[idx]);
	rc = 0;
out:
	findings_release(&f);
	set_release(&s);
	return rc;
}

/* Put the pair of 'ch' back as it was before the change ('undo') or after it. */
static int replay_pool(struct review *r, struct action *a, const struct review_change *ch, bool undo)
{
	struct pool_question *pq;
	struct pool_pair *pp = NULL;

	a->status = 422;
	if (review_pool_hold(r, a->bytes, a->disk) < 0)
		return -1;
	if ((pq = pool_find(&r->pool, ch->id)))
		for (size_t j = 0; j < pq->nr && !pp; j++)
			if (!strcmp(pq->pairs[j].chunk, ch->chunk))
				pp = &pq->pairs[j];
	if (!pp)
		return fail(a, 409, "no pair ('%s', '%s') in '%s' any more; nothing written", ch->id, ch->chunk, r->file);
	pair_state_put(pp, undo ? &ch->pair_before : &ch->pair_after);
	if (review_pool_save(r, (size_t)(pq - r->pool.q), a->written) < 0)
		return -1;
	a->change = review_pair_change(&r->pool, ch->id, pp);
	return 0;
}

static void push_change(struct review_change **stack, size_t *nr, size_t *alloc, struct review_change *ch)
{
	ALLOC_GROW(*stack, *nr + 1, *alloc);
	(*stack)[(*nr)++] = *ch;
	memset(ch, 0, sizeof(*ch));
}

static void clear_changes(struct review_change *stack, size_t *nr)
{
	while (*nr)
		review_change_release(&stack[--*nr]);
}

/*
 * Undo (or redo) the last write of the session, the file being as the page
 * saw it ('disk'): refused as stale unless it is also as that write left
 * it. On success the change moves to the other stack with the new digest
 * (filled in by the caller). Return 0 or -1 (a->status set, reported).
 */
static int replay(struct review *r, struct action *a, bool undo, const char *disk, bool *stale)
{
	struct review_change *from = undo ? r->undo : r->redo;
	size_t *nr = undo ? &r->nr_undo : &r->nr_redo;
	struct review_change *ch;

	if (!*nr)
		return fail(a, 409, "nothing to %s in this session", undo ? "undo" : "redo");
	ch = &from[*nr - 1];
	if (strcmp(ch->digest, disk)) {
		*stale = true;
		return fail(a, 409, "'%s' changed on disk since this page loaded it; nothing written, reloading", r->file);
	}
	if ((r->kind == REVIEW_SET ? replay_set(r, a, ch, undo) : replay_pool(r, a, ch, undo)) < 0)
		return -1;
	(*nr)--;
	if (undo)
		push_change(&r->redo, &r->nr_redo, &r->alloc_redo, ch);
	else
		push_change(&r->undo, &r->nr_undo, &r->alloc_undo, ch);
	return 0;
}

/* Grade a pair of the pool held (the file as on disk now, review_pool_hold). */
static int write_pool(struct review *r, struct action *a)
{
	struct pool_question *pq;
	struct pool_pair *pp = NULL;
	const char *chunk = req_str(a, "chunk");
	const char *reviewer = req_str(a, "reviewer");
	int grade;

	if (strcmp(a->op, "grade"))
		return fail(a, 400, "unknown action '%s' for a pool (only 'grade')", a->op);
	if (!chunk || req_int(a, "grade", 0, POOL_MAX_GRADE, &grade))
		return chunk ? -1 : fail(a, 400, "a grade needs 'chunk'");
	if (review_pool_hold(r, a->bytes, a->disk) < 0) {
		a->status = 422;
		return -1;
	}
	if ((pq = pool_find(&r->pool, a->id)))
		for (size_t j = 0; j < pq->nr && !pp; j++)
			if (!strcmp(pq->pairs[j].chunk, chunk))
				pp = &pq->pairs[j];
	if (!pp)
		return fail(a, 404, "no pair ('%s', '%s') in '%s'", a->id, chunk, r->file);
	pair_state_get(&a->ch->pair_before, pp);
	if (pp->grade >= 0 && starts_with(pool_pair_judge(pp), "llm:") && pp->llm_grade < 0) {
		/* keep the judge's grade beside the person's, for agreement */
		pp->llm_grade = pp->grade;
		free(pp->llm_judge);
		pp->llm_judge = xstrdup(pp->judge);
	}
	pp->grade = grade;
	free(pp->judge);
	pp->judge = xstrdup("human");
	free(pp->reviewed_by);
	pp->reviewed_by = xstrdup(reviewer ? reviewer : "");
	free(pp->reviewed_at);
	pp->reviewed_at = xstrdup(a->now);
	pair_state_get(&a->ch->pair_after, pp);
	a->status = 422;
	/* the pair is changed in the pool held: saved, or the pool is dropped */
	if (review_pool_save(r, (size_t)(pq - r->pool.q), a->written) < 0)
		return -1;
	a->change = review_pair_change(&r->pool, a->id, pp);
	return 0;
}

/* Return true when the JSON text 's' holds a NUL: a raw byte, or the
 * escape \u0000 inside a string (not a backslash escaped before "u0000"). */
static bool holds_nul(const char *s, size_t len)
{
	bool in_string = false;

	for (size_t i = 0; i < len; i++) {
		if (!s[i])
			return true;
		if (!in_string) {
			in_string = s[i] == '"';
		} else if (s[i] == '"') {
			in_string = false;
		} else if (s[i] == '\\' && i + 1 < len) {
			if (s[i + 1] == 'u' && i + 5 < len && !memcmp(s + i + 2, "0000", 4))
				return true;
			i++;
		}
	}
	return false;
}

int review_apply(struct review *r, const char *body, size_t len, struct strbuf *out)
{
	report_fn saved = get_error_routine();
	struct lock_file lock = LOCK_FILE_INIT;
	struct review_change ch;
	struct strbuf bytes = STRBUF_INIT;
	char disk[72];
	struct action a = { NULL, NULL, NULL, "", 400, &ch, NULL, &bytes, disk, "" };
	const char *digest;
	cJSON *req = NULL, *reply = cJSON_CreateObject(), *rv;
	char *json;
	bool stale = false, undo, redo;
	int rc = -1;

	memset(&ch, 0, sizeof(ch));
	strbuf_reset(&captured);
	set_error_routine(capture);
	if (holds_nul(body, len)) {
		/* cJSON would end the string there, and the rest would be lost in silence */
		fail(&a, 400, "the request holds a NUL character (\\u0000), which no text of a set may hold");
		goto out;
	}
	if (len > REVIEW_MAX_BODY || !(req = cJSON_ParseWithLength(body, len)) || !cJSON_IsObject(req)) {
		fail(&a, 400, "the request is not a JSON object");
		goto out;
	}
	a.req = req;
	a.op = req_str(&a, "op");
	a.id = req_str(&a, "id");
	digest = req_str(&a, "digest");
	undo = a.op && !strcmp(a.op, "undo");
	redo = a.op && !strcmp(a.op, "redo");
	if (!a.op || (!a.id && !undo && !redo) || !digest) {
		fail(&a, 400, "the request needs 'op', 'id' and 'digest'");
		goto out;
	}
	/* who: the reviewer the server was started for */
	cJSON_DeleteItemFromObjectCaseSensitive(req, "reviewer");
	cJSON_AddStringToObject(req, "reviewer", r->reviewer);
	utc_now_iso8601(a.now);
	/* the set's lock named as every command names it; the pool's judge lock */
	if (r->lock_path && (r->kind == REVIEW_SET ? set_lock_take(&lock, &r->ref) :
			     lock_take(&lock, r->lock_path, "the pool's judge")) < 0) {
		a.status = 409;
		goto out;
	}
	/* a pool's bytes are kept: the digest checked is of the very bytes parsed */
	if (r->kind == REVIEW_POOL ? review_pool_read(r, &bytes, disk) < 0 : file_sha256(r->file, disk) < 0) {
		a.status = 409;
		goto out;
	}
	if (strcmp(disk, digest)) {
		stale = true;
		fail(&a, 409, "'%s' changed on disk since this page loaded it; nothing written, reloading", r->file);
		goto out;
	}
	if (undo || redo) {
		if (replay(r, &a, undo, disk, &stale) < 0)
			goto out;
	} else {
		if ((r->kind == REVIEW_SET ? write_set(r, &a) : write_pool(r, &a)) < 0)
			goto out;
		ch.id = xstrdup(a.id);
		ch.chunk = req_str(&a, "chunk") ? xstrdup(req_str(&a, "chunk")) : NULL;
		ch.what = xstrfmt("%s %s%s%s", a.op, a.id, ch.chunk ? " / " : "", ch.chunk ? ch.chunk : "");
	}
	if (a.written[0])
		memcpy(disk, a.written, sizeof(disk));
	else if (file_sha256(r->file, disk) < 0)
		goto out;
	/* the digest the next undo or redo must find on disk */
	if (undo || redo) {
		struct review_change *to = undo ? r->redo : r->undo;
		memcpy(to[(undo ? r->nr_redo : r->nr_undo) - 1].digest, disk, sizeof(disk));
	} else {
		memcpy(ch.digest, disk, sizeof(disk));
		push_change(&r->undo, &r->nr_undo, &r->alloc_undo, &ch);
		clear_changes(r->redo, &r->nr_redo);
	}
	rc = 0;
out:
	lock_release(&lock);
	set_error_routine(saved);
	if (rc) {
		cJSON_AddStringToObject(reply, "error", captured.len ? captured.buf : "the change failed");
		cJSON_AddBoolToObject(reply, "stale", stale);
	} else {
		cJSON_AddBoolToObject(reply, "ok", true);
		cJSON_AddStringToObject(reply, "digest", disk);
		/* what changed, so that the page need not load everything again */
		if (a.change) {
			cJSON_AddItemToObject(reply, "change", a.change);
			a.change = NULL;
			review_history_json(r, reply);
		}
		a.status = 200;
	}
	rv = reply;
	json = cJSON_PrintUnformatted(rv);
	strbuf_addstr(out, json);
	free(json);
	cJSON_Delete(reply);
	cJSON_Delete(a.change);
	cJSON_Delete(req);
	review_change_release(&ch);
	strbuf_release(&bytes);
	strbuf_reset(&captured);
	return a.status;
}
