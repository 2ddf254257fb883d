/*
 * review: opening a set or a pool worksheet for review, and keeping the
 * corpus held in step with the one on disk. The page's data is built in
 * review-state.c and the reviewer's writes are applied in review-apply.c,
 * both above this file (see review.h for the order every write follows).
 */
#include "review/review.h"
#include "review/review-internal.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "pool/pool.h"
#include "set/corpuscheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	strmap_clear(&r->top, 1);
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

int review_refresh_corpus(struct review *r, const struct set *s)
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

int review_pool_read(const struct review *r, struct strbuf *bytes, char digest[72])
{
	strbuf_reset(bytes);
	if (read_file(r->file, bytes, POOL_MAX_FILE_BYTES) < 0)
		return -1;
	sha256_hex(bytes->buf, bytes->len, digest);
	return 0;
}

void review_pool_drop(struct review *r)
{
	pool_release(&r->pool);
	pool_yaml_release(&r->pool_yaml);
	r->have_pool = false;
	r->pool_digest[0] = '\0';
}

int review_pool_hold(struct review *r, const struct strbuf *bytes, const char *digest)
{
	/* the digest names the bytes: the same digest, the same file, the same pool */
	if (r->have_pool && !strcmp(r->pool_digest, digest))
		return 0;
	review_pool_drop(r);
	if (pool_load_buf(&r->pool, bytes->buf, bytes->len, r->file) < 0)
		return -1;
	r->have_pool = true;
	snprintf(r->pool_digest, sizeof(r->pool_digest), "%s", digest);
	return 0;
}

int review_pool_save(struct review *r, size_t qi, char digest[72])
{
	struct strbuf yaml = STRBUF_INIT;
	int rc = -1;

	/* every part emitted for a pool just read (its head is never empty),
	 * then one question a write */
	if (r->pool_yaml.head.len ? pool_yaml_update(&r->pool_yaml, &r->pool, qi) < 0 :
	    pool_yaml_build(&r->pool_yaml, &r->pool) < 0)
		goto out;
	pool_yaml_join(&r->pool_yaml, &yaml);
	if (write_file_atomic(r->file, yaml.buf, yaml.len) < 0)
		goto out;
	/* the bytes written, not the file read back: a change made on disk
	 * since the rename must not take the page's digest */
	sha256_hex(yaml.buf, yaml.len, digest);
	snprintf(r->pool_digest, sizeof(r->pool_digest), "%s", digest);
	rc = 0;
out:
	if (rc)
		review_pool_drop(r);
	strbuf_release(&yaml);
	return rc;
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

static void pair_state_release(struct review_pair_state *st)
{
	free(st->judge);
	free(st->llm_judge);
	free(st->reviewed_by);
	free(st->reviewed_at);
	memset(st, 0, sizeof(*st));
}

/* (here, not beside the writes in review-apply.c: review_release frees
 * the history, and calls go from review-apply.c to this file only) */
void review_change_release(struct review_change *ch)
{
	free(ch->what);
	free(ch->id);
	free(ch->chunk);
	question_release(&ch->before);
	question_release(&ch->after);
	pair_state_release(&ch->pair_before);
	pair_state_release(&ch->pair_after);
	memset(ch, 0, sizeof(*ch));
}

void review_release(struct review *r)
{
	if (r->have_bm25)
		bm25_release(&r->bm25);
	strmap_clear(&r->top, 1);
	corpus_release(&r->corpus);
	free(r->corpus_named);
	set_ref_release(&r->ref);
	free(r->file);
	free(r->lock_path);
	free(r->reviewer);
	for (size_t i = 0; i < r->nr_undo; i++)
		review_change_release(&r->undo[i]);
	for (size_t i = 0; i < r->nr_redo; i++)
		review_change_release(&r->redo[i]);
	free(r->undo);
	free(r->redo);
	review_pool_drop(r);
	memset(r, 0, sizeof(*r));
}
