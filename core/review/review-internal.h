/*
 * review-internal: what the files of the review wing share below review.h.
 */
#ifndef EVALSET_REVIEW_INTERNAL_H
#define EVALSET_REVIEW_INTERNAL_H

#include "review/review.h"

/*
 * Make the corpus held the one the set 's' (as now on disk) names, as it
 * is now on disk: read again when the set names another file, or when the
 * file changed (`chunk -o ... --force` re-chunked it), so that a label on a
 * chunk that is gone is refused. A corpus that was there and is gone
 * refuses (-1, reported): labels could not be checked.
 */
int review_refresh_corpus(struct review *r, const struct set *s);

/*
 * Return what a write changed in question 'q' (as on disk now), for the
 * write's reply: {"id", "question" (as api/state has it, with its BM25
 * top), "chunks" (the texts it shows)}; NULL when the page must load the
 * whole state again (a stale question). Caller frees (cJSON_Delete).
 */
/*
 * Read the pool worksheet r->file as it is on disk now into 'bytes' and its
 * SHA-256 ("sha256:HEX") into 'digest'. Return 0 or -1 (reported).
 */
int review_pool_read(const struct review *r, struct strbuf *bytes, char digest[72]);
/*
 * Make r->pool the worksheet in 'bytes' (read by review_pool_read, with
 * 'digest'): kept as it is when the pool held has that digest (the same
 * bytes), else parsed from 'bytes'. Return 0 or -1 (reported; nothing is
 * held then).
 */
int review_pool_hold(struct review *r, const struct strbuf *bytes, const char *digest);
/*
 * Save r->pool, in which only question 'qi' changed since it was held or
 * saved, to r->file (atomically, as pool_save): only that question's YAML
 * is emitted again. Put the SHA-256 of the bytes written in 'digest', the
 * pool held's new digest. Return 0 or -1 (reported; the pool held is then
 * dropped, and the next write reads the file again).
 */
int review_pool_save(struct review *r, size_t qi, char digest[72]);
/* Forget the pool held. */
void review_pool_drop(struct review *r);

struct cJSON *review_question_change(struct review *r, const struct question *q);
struct pool;
struct pool_pair;
/*
 * Return what a grade changed in pool 'p' (as saved): {"id" (the
 * question), "pair" (as api/state has it), "agreement" (over the whole
 * pool, as api/state has it)}, for the write's reply. Caller frees.
 */
struct cJSON *review_pair_change(const struct pool *p, const char *id, const struct pool_pair *pp);
/* Add "undo" and "redo" (what each would do next, or null) to 'root'. */
void review_history_json(const struct review *r, struct cJSON *root);

#endif
