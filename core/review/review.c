/*
 * review: the page's data and the reviewer's writes (see review.h for the
 * order every write follows).
 *
 * Invariants: the file is only ever replaced by set_save/pool_save (atomic)
 * after the digest of what is on disk matched the page's, under the lock
 * the CLI takes, so a write never overwrites a change the page did not
 * show; a set is saved only when set_check_errors finds nothing; messages
 * reported through error() while an action runs are returned to the page
 * instead of printed.
 */
#include "review/review.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/util.h"
#include "pool/agreement.h"
#include "pool/pool.h"
#include "set/corpuscheck.h"
#include "set/corpusstore.h"
#include "set/rejected.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- opening ---- */

/* Return true when the file 'path' starts as a pool worksheet. */
static bool looks_like_pool(const char *path)
{
	char head[4096];
	size_t n;
	FILE *fp;

	if (is_dir(path) || !(fp = fopen(path, "rb")))
		return false;
	n = fread(head, 1, sizeof(head) - 1, fp);
	fclose(fp);
	head[n] = '\0';
	for (char *p = head; (p = strstr(p, "evalset_pool:")); p++)
		if (p == head || p[-1] == '\n')
			return true;
	return false;
}

/* Return true when the folder 'dir' lies in the project (project_root) of
 * the worksheet 'pool_file' or of the working directory. */
static bool in_project(const char *dir, const char *pool_file)
{
	char *real = realpath(dir, NULL), *pool_dir = dir_name(pool_file);
	char *roots[2] = { project_root(pool_dir), project_root(".") };
	bool inside = false;

	for (int i = 0; i < 2; i++) {
		inside = inside || (real && roots[i] && path_inside(real, roots[i]));
		free(roots[i]);
	}
	free(real);
	free(pool_dir);
	return inside;
}

static int open_pool(struct review *r, const char *arg)
{
	struct pool p = POOL_INIT;
	char *dir = NULL;
	int rc = -1;

	if (pool_load(&p, arg) < 0)
		return -1;
	r->kind = REVIEW_POOL;
	r->file = xstrdup(arg);
	if (p.set_path)
		dir = pool_resolve_path(p.set_path, arg);
	if (dir && is_dir(dir)) {
		char *ev;
		int mk;

		if (!in_project(dir, arg)) {
			error("refusing the set.path '%s' of '%s': the folder '%s' is outside the project of the "
			      "worksheet and of the working directory, and review would make its .evalset/ and "
			      "take its judge lock", p.set_path, arg, dir);
			goto out;
		}
		if (set_ref_resolve(&r->ref, dir, true) < 0)
			goto out;
		r->have_ref = true;
		r->lock_path = path_join(r->ref.dir, ".evalset/judge.lock");
		ev = path_join(r->ref.dir, ".evalset");
		mk = mkdir_private(ev);
		free(ev);
		if (mk < 0)
			goto out;
	}
	rc = 0;
out:
	free(dir);
	pool_release(&p);
	return rc;
}

/* True when 'a' and 'b' are the same version of a file: same inode, size and time. */
static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Load the corpus the set 's' names (replacing the one held) and index it
 * with BM25; remember what was read. Return 0 or -1 (reported). */
static int load_corpus(struct review *r, const struct set *s)
{
	struct corpus c = CORPUS_INIT;
	struct bm25_params bp = BM25_PARAMS_INIT;
	int got = set_corpus_load(s, r->ref.dir, &c);

	if (got < 0) {
		corpus_release(&c);
		return -1;
	}
	if (r->have_bm25)
		bm25_release(&r->bm25);
	r->have_bm25 = false;
	corpus_release(&r->corpus);
	r->corpus = c;   /* the index below points into r->corpus, so it is built there */
	r->have_corpus = got > 0;
	if (r->have_corpus && bm25_build(&r->bm25, &r->corpus, &bp) < 0)
		return -1;
	r->have_bm25 = r->have_corpus;
	free(r->corpus_named);
	r->corpus_named = s->has_corpus && s->corpus.path ? xstrdup(s->corpus.path) : NULL;
	if (r->have_corpus && stat(r->corpus.path, &r->corpus_st) < 0)
		memset(&r->corpus_st, 0, sizeof(r->corpus_st));
	return 0;
}

/*
 * Make the corpus held the one the set 's' (as now on disk) names, as it
 * is now on disk: read again when the set names another file, or when the
 * file changed (`chunk -o ... --force` re-chunked it), so that a label on a
 * chunk that is gone is refused. A corpus that was there and is gone
 * refuses (-1, reported): labels could not be checked.
 */
static int refresh_corpus(struct review *r, const struct set *s)
{
	const char *named = s->has_corpus ? s->corpus.path : NULL;
	bool same_name = named && r->corpus_named ? !strcmp(named, r->corpus_named) : named == r->corpus_named;
	struct stat st;

	if (same_name && !r->have_corpus && !r->corpus_lost)
		return 0;   /* none from the start: reviewed without one, as review_open said */
	if (same_name && r->have_corpus && stat(r->corpus.path, &st) == 0 && same_file(&st, &r->corpus_st))
		return 0;
	if (load_corpus(r, s) < 0)
		return -1;
	r->corpus_lost = named && !r->have_corpus;
	if (r->corpus_lost)
		return error("the corpus '%s' the set names is gone; labels cannot be checked against it", named);
	if (r->have_corpus)
		note("the corpus '%s' changed on disk: read again (%zu chunks)", r->corpus.path, r->corpus.nr);
	return 0;
}

static int open_set(struct review *r, const char *arg)
{
	struct set s = SET_INIT;
	int rc = -1;

	if (set_ref_resolve(&r->ref, arg, true) < 0)
		return -1;
	r->have_ref = true;
	if (r->ref.tag)
		return error("cannot review frozen version '%s'; versions are never rewritten "
			     "(review the working copy, then tag)", arg);
	r->kind = REVIEW_SET;
	r->file = xstrdup(r->ref.file);
	if (set_open_ref(&s, &r->ref, true) < 0)
		goto out;
	if (!(r->lock_path = set_lock_path(&r->ref, true)))
		goto out;
	if (load_corpus(r, &s) < 0)
		goto out;
	rc = 0;
out:
	set_release(&s);
	return rc;
}

int review_open(struct review *r, const char *arg, const char *reviewer)
{
	r->reviewer = xstrdup(reviewer && *reviewer ? reviewer : "unknown");
	if (looks_like_pool(arg))
		return open_pool(r, arg);
	return open_set(r, arg);
}

void review_release(struct review *r)
{
	if (r->have_bm25)
		bm25_release(&r->bm25);
	corpus_release(&r->corpus);
	free(r->corpus_named);
	set_ref_release(&r->ref);
	free(r->file);
	free(r->lock_path);
	free(r->reviewer);
	memset(r, 0, sizeof(*r));
}

/* ---- the page's data ---- */

/* Add the title and text of chunk 'id' to 'chunks' once. */
static void add_chunk(const struct review *r, cJSON *chunks, const char *id)
{
	const struct chunk *ch;
	cJSON *o;

	if (!r->have_corpus || cJSON_GetObjectItemCaseSensitive(chunks, id) || !(ch = corpus_get(&r->corpus, id)))
		return;
	o = cJSON_AddObjectToObject(chunks, id);
	if (ch->title)
		cJSON_AddStringToObject(o, "title", ch->title);
	cJSON_AddStringToObject(o, "text", ch->text ? ch->text : "");
}

/* Append to 'out' the BM25 top 'k' for 'query' ({chunk, score}) and their
 * texts to 'chunks'; nothing without BM25. */
static void add_bm25_hits(const struct review *r, const char *query, size_t k, cJSON *out,
			  cJSON *chunks)
{
	struct bm25_hit hits[REVIEW_BM25_TOP];
	size_t n;

	if (!r->have_bm25)
		return;
	n = bm25_search(&r->bm25, query, k < REVIEW_BM25_TOP ? k : REVIEW_BM25_TOP, hits);
	for (size_t i = 0; i < n; i++) {
		const char *id = r->corpus.chunks[hits[i].doc].id;
		cJSON *h = cJSON_CreateObject();

		cJSON_AddStringToObject(h, "chunk", id);
		cJSON_AddNumberToObject(h, "score", hits[i].score);
		cJSON_AddItemToArray(out, h);
		add_chunk(r, chunks, id);
	}
}

static bool is_stale(const struct question *q)
{
	return question_has_tag(q, "stale") || question_has_tag(q, "unmapped");
}

/*
 * Add to 'j' (question 'q', tagged stale or unmapped) what remap lost:
 * "stale": {"evidence": [{chunk, doc, start, end, quote, text}], "nearest":
 * [{chunk, score}]}: the evidence of its old labels (provenance
 * remapped_from.stale_evidence), with the old chunk's text from the copy of
 * the corpus it was labelled on when one is kept ('old', may be NULL), and
 * the chunks of the corpus BM25 finds nearest to that evidence.
 */
static void state_stale(const struct review *r, const struct question *q, const struct corpus *old,
			cJSON *chunks, cJSON *j)
{
	const cJSON *from = q->provenance ? cJSON_GetObjectItemCaseSensitive(q->provenance, "remapped_from") : NULL;
	const cJSON *ev = cJSON_IsObject(from) ? cJSON_GetObjectItemCaseSensitive(from, "stale_evidence") : NULL;
	cJSON *o = cJSON_AddObjectToObject(j, "stale"), *list = cJSON_AddArrayToObject(o, "evidence");
	cJSON *near = cJSON_AddArrayToObject(o, "nearest");
	struct strbuf query = STRBUF_INIT;
	const cJSON *it;

	cJSON_ArrayForEach(it, ev) {
		const char *chunk = json_get_str(it, "chunk"), *quote = json_get_str(it, "quote");
		const struct chunk *oc = old && chunk ? corpus_get(old, chunk) : NULL;
		cJSON *e = cJSON_Duplicate(it, 1);

		if (!cJSON_IsObject(it))
			continue;
		if (oc)
			cJSON_AddStringToObject(e, "text", oc->text);
		cJSON_AddItemToArray(list, e);
		strbuf_addf(&query, "%s ", quote ? quote : oc ? oc->text : "");
	}
	if (query.len)
		add_bm25_hits(r, query.buf, 3, near, chunks);
	strbuf_release(&query);
}

static void state_set(const struct review *r, const struct set *s, size_t rejected, cJSON *root)
{
	cJSON *qs = cJSON_AddArrayToObject(root, "questions");
	cJSON *chunks = cJSON_AddObjectToObject(root, "chunks");
	struct corpus old = CORPUS_INIT;
	const char *old_fp = NULL;
	bool have_old = false;

	cJSON_AddStringToObject(root, "name", s->name ? s->name : r->ref.name);
	cJSON_AddBoolToObject(root, "bm25", r->have_bm25);
	cJSON_AddNumberToObject(root, "rejected", (double)rejected);
	/* the corpus stale questions were labelled on, when a copy is kept */
	for (size_t i = 0; i < s->nr && !old_fp; i++) {
		const cJSON *from = s->q[i].provenance ?
			cJSON_GetObjectItemCaseSensitive(s->q[i].provenance, "remapped_from") : NULL;
		if (is_stale(&s->q[i]) && cJSON_IsObject(from))
			old_fp = json_get_str(from, "corpus");
	}
	if (old_fp && r->have_ref)
		have_old = corpus_store_get(r->ref.dir, old_fp, &old) == 1;
	/* stale questions first: they need a person before the set is tagged */
	for (size_t at = 0; at < 2 * s->nr; at++) {
		size_t pass = at / s->nr, i = at % s->nr;
		const struct question *q = &s->q[i];
		cJSON *j;

		if (is_stale(q) != (pass == 0))
			continue;
		j = question_to_json(q);
		if (pass == 0)
			state_stale(r, q, have_old ? &old : NULL, chunks, j);
		for (size_t k = 0; k < q->nr_relevant; k++)
			add_chunk(r, chunks, q->relevant[k].chunk);
		for (size_t k = 0; k < q->nr_irrelevant; k++)
			add_chunk(r, chunks, q->irrelevant[k]);
		if (r->have_bm25 && q->text)
			add_bm25_hits(r, q->text, REVIEW_BM25_TOP, cJSON_AddArrayToObject(j, "bm25"), chunks);
		cJSON_AddItemToArray(qs, j);
	}
	corpus_release(&old);
}


/* Add the agreement of the people's grades with the judge's (pool/agreement.h)
 * over the pairs that have both, as `evalset judge --against` measures it. */
static void state_agreement(const struct agreement *a, cJSON *root)
{
	cJSON *o = cJSON_AddObjectToObject(root, "agreement"), *t;
	long bin[2][2];

	cJSON_AddNumberToObject(o, "pairs", (double)a->n);
	json_add_num_or_null(o, "exact", observed_agreement(&a->table[0][0], AGREEMENT_LEVELS));
	json_add_num_or_null(o, "kappa", agreement_kappa(a));
	agreement_binary(a, 1, bin);
	json_add_num_or_null(o, "binary_exact", observed_agreement(&bin[0][0], 2));
	json_add_num_or_null(o, "binary_kappa", agreement_kappa_binary(a, 1));
	t = cJSON_AddArrayToObject(o, "table");
	for (int i = 0; i < AGREEMENT_LEVELS; i++) {
		cJSON *row = cJSON_CreateArray();
		for (int j = 0; j < AGREEMENT_LEVELS; j++)
			cJSON_AddItemToArray(row, cJSON_CreateNumber((double)a->table[i][j]));
		cJSON_AddItemToArray(t, row);
	}
}

static void state_pool(const struct pool *p, cJSON *root)
{
	cJSON *qs = cJSON_AddArrayToObject(root, "questions");
	struct agreement agr = AGREEMENT_INIT;

	cJSON_AddStringToObject(root, "name", p->set_name ? p->set_name : "");
	json_add_str_or_null(root, "version", p->set_version);
	for (size_t i = 0; i < p->nr; i++) {
		const struct pool_question *pq = &p->q[i];
		cJSON *q = cJSON_CreateObject(), *pairs;

		cJSON_AddStringToObject(q, "id", pq->id);
		json_add_str_or_null(q, "text", pq->text);
		pairs = cJSON_AddArrayToObject(q, "pairs");
		for (size_t j = 0; j < pq->nr; j++) {
			const struct pool_pair *pp = &pq->pairs[j];
			cJSON *o = cJSON_CreateObject();
			bool llm = pp->grade >= 0 && starts_with(pool_pair_judge(pp), "llm:");

			cJSON_AddStringToObject(o, "chunk", pp->chunk);
			json_add_str_or_null(o, "title", pp->title);
			json_add_str_or_null(o, "text", pp->text);
			/* the person's grade, and the judge's apart, whichever order they came in */
			cJSON_AddNumberToObject(o, "grade", llm ? -1 : pp->grade);
			if (llm) {
				cJSON_AddNumberToObject(o, "llm_grade", pp->grade);
				cJSON_AddStringToObject(o, "llm_judge", pp->judge);
			} else if (pp->llm_grade >= 0) {
				cJSON_AddNumberToObject(o, "llm_grade", pp->llm_grade);
				json_add_str_or_null(o, "llm_judge", pp->llm_judge);
			}
			if (llm || pp->llm_grade >= 0)
				json_add_str_or_null(o, "llm_reason", pp->reason);
			if (!llm && pp->grade >= 0 && pp->llm_grade >= 0)
				agreement_add(&agr, pp->grade, pp->llm_grade);
			json_add_str_or_null(o, "reviewed_by", pp->reviewed_by);
			json_add_str_or_null(o, "reviewed_at", pp->reviewed_at);
			cJSON_AddItemToArray(pairs, o);
		}
		cJSON_AddItemToArray(qs, q);
	}
	state_agreement(&agr, root);
}

int review_state(struct review *r, struct strbuf *out)
{
	struct set s = SET_INIT, rejected = SET_INIT;
	struct pool p = POOL_INIT;
	char digest[72];
	cJSON *root = NULL;
	char *json;
	int rc = -1;

	if (file_sha256(r->file, digest) < 0)
		return -1;
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "kind", r->kind == REVIEW_SET ? "set" : "pool");
	cJSON_AddStringToObject(root, "file", r->file);
	cJSON_AddStringToObject(root, "digest", digest);
	cJSON_AddStringToObject(root, "reviewer", r->reviewer);
	if (r->kind == REVIEW_SET) {
		if (set_load(&s, r->file) < 0 || rejected_load(&r->ref, &rejected) < 0 || refresh_corpus(r, &s) < 0)
			goto out;
		state_set(r, &s, rejected.nr, root);
	} else {
		if (pool_load(&p, r->file) < 0)
			goto out;
		state_pool(&p, root);
	}
	json = cJSON_PrintUnformatted(root);
	strbuf_addstr(out, json);
	free(json);
	rc = 0;
out:
	cJSON_Delete(root);
	pool_release(&p);
	set_release(&s);
	set_release(&rejected);
	return rc;
}

/* ---- writes ---- */

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
		if (req_int(a, "grade", -1, 9, &grade))
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
			/* an unanswerable question has no relevant chunk: they become judged irrelevant */
			while (q->nr_relevant) {
				char *c = xstrdup(q->relevant[0].chunk);
				question_set_label(q, c, 0);
				free(c);
			}
			drop_stale_evidence(q);
		} else if (chunk && *chunk) {
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
	if (set_open_ref(&s, &r->ref, true) < 0 || refresh_corpus(r, &s) < 0) {
		a->status = 422;
		goto out;
	}
	if ((idx = set_index(&s, a->id)) < 0) {
		fail(a, 404, "no question '%s' in '%s'", a->id, r->file);
		goto out;
	}
	q = &s.q[idx];
	if ((applied = apply_question(r, a, q)) < 0)
		goto out;
	a->status = 422;
	if (applied == 1) {
		/* rejected: out of the set, but kept to be written to the list */
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
	rc = 0;
out:
	question_release(&rejected);
	findings_release(&f);
	set_release(&s);
	return rc;
}

static int write_pool(struct review *r, struct action *a)
{
	struct pool p = POOL_INIT;
	struct pool_question *pq;
	struct pool_pair *pp = NULL;
	const char *chunk = req_str(a, "chunk");
	const char *reviewer = req_str(a, "reviewer");
	int grade, rc = -1;

	if (strcmp(a->op, "grade"))
		return fail(a, 400, "unknown action '%s' for a pool (only 'grade')", a->op);
	if (!chunk || req_int(a, "grade", 0, POOL_MAX_GRADE, &grade))
		return chunk ? -1 : fail(a, 400, "a grade needs 'chunk'");
	if (pool_load(&p, r->file) < 0) {
		a->status = 422;
		goto out;
	}
	if ((pq = pool_find(&p, a->id)))
		for (size_t j = 0; j < pq->nr && !pp; j++)
			if (!strcmp(pq->pairs[j].chunk, chunk))
				pp = &pq->pairs[j];
	if (!pp) {
		fail(a, 404, "no pair ('%s', '%s') in '%s'", a->id, chunk, r->file);
		goto out;
	}
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
	a->status = 422;
	if (pool_save(&p, r->file) < 0)
		goto out;
	rc = 0;
out:
	pool_release(&p);
	return rc;
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
	struct action a = { NULL, NULL, NULL, "", 400 };
	char disk[72];
	const char *digest;
	cJSON *req = NULL, *reply = cJSON_CreateObject(), *rv;
	char *json;
	bool stale = false;
	int rc = -1;

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
	if (!a.op || !a.id || !digest) {
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
	if (file_sha256(r->file, disk) < 0) {
		a.status = 409;
		goto out;
	}
	if (strcmp(disk, digest)) {
		stale = true;
		fail(&a, 409, "'%s' changed on disk since this page loaded it; nothing written, reloading", r->file);
		goto out;
	}
	if ((r->kind == REVIEW_SET ? write_set(r, &a) : write_pool(r, &a)) < 0)
		goto out;
	if (file_sha256(r->file, disk) < 0)
		goto out;
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
		a.status = 200;
	}
	rv = reply;
	json = cJSON_PrintUnformatted(rv);
	strbuf_addstr(out, json);
	free(json);
	cJSON_Delete(reply);
	cJSON_Delete(req);
	strbuf_reset(&captured);
	return a.status;
}
