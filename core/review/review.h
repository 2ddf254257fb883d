/*
 * review: what the review page reads and writes (docs/review.md), without
 * any HTTP: the page's data as JSON, and each reviewer action applied to
 * the file through the same code the CLI uses.
 *
 * A review is of a set's working copy (questions) or of a pool worksheet
 * (pairs to grade 0..3). Frozen versions are refused when the review opens.
 *
 * Every write, in this order: take the lock the CLI takes (the set's
 * .evalset/lock; for a pool, its set's .evalset/judge.lock when that set
 * exists), compare the SHA-256 of the file on disk with the digest the page
 * was served ('digest' in the request) and refuse a stale page, load the
 * file afresh, apply the action, check the set rules (set_check_errors with
 * the corpus), save atomically (set_save, pool_save), release the lock. A
 * pool is not parsed again when the bytes on disk are the ones this server
 * last read or wrote (same SHA-256): it is kept in memory, and only the
 * graded question's YAML is emitted again (struct pool_yaml); any other
 * bytes on disk are read afresh.
 * Each changed question or pair records provenance: reviewed_by,
 * reviewed_at (UTC), and for questions review (edited, accepted) and, for a
 * rejection, reason; a rejected question leaves set.yaml for the rejected
 * list (set/rejected.h) after the id floor is recorded.
 *
 * Ownership: a struct review owns everything it points to (review_release).
 * Strings passed in are copied.
 */
#ifndef EVALSET_REVIEW_H
#define EVALSET_REVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "base/strbuf.h"
#include "base/strmap.h"
#include "pool/pool.h"
#include "retrieve/bm25.h"
#include "set/corpus.h"
#include "set/set.h"

enum review_kind { REVIEW_SET, REVIEW_POOL };

/* What a grade changes in a pool pair, as undo puts it back. */
struct review_pair_state {
	int grade, llm_grade;
	char *judge, *llm_judge, *reviewed_by, *reviewed_at;
};

/*
 * One write of the session, as undo and redo replay it: the question (or
 * pair) as it was before and after. Undo writes 'before' back, redo
 * 'after', each through review_apply's lock and digest check, and only
 * while the file is as that write (or its last replay) left it: 'digest'.
 */
struct review_change {
	char *what;                 /* "accept q-0001", for the page */
	char *id;
	char *chunk;                /* pools: the pair's chunk */
	size_t index;               /* sets: the question's place before the write */
	struct question before, after;
	bool rejected;              /* sets: 'after' went to the rejected list */
	struct review_pair_state pair_before, pair_after;
	char digest[72];
};

#define REVIEW_MAX_GRADE 3             /* the page's scale: 0 irrelevant .. 3 */
#define REVIEW_BM25_TOP 5              /* BM25 hits shown per question */
#define REVIEW_BM25_KEPT 100000        /* query texts whose top hits are kept, at most */

/* BM25's top hits for one query text, on the corpus held */
struct review_top {
	size_t nr;
	struct bm25_hit hit[REVIEW_BM25_TOP];
};
#define REVIEW_MAX_BODY (1u << 20)     /* largest request body accepted */
#define REVIEW_SEARCH_HITS 20          /* corpus search: hits shown at most */
#define REVIEW_SEARCH_MAX_QUERY 1000   /* corpus search: longest query, in bytes */

struct review {
	enum review_kind kind;
	struct set_ref ref;       /* the set (of the pool, when it can be found) */
	bool have_ref;
	char *file;               /* the file the page writes: set.yaml or the pool */
	char *lock_path;          /* NULL: no lock besides the digest check */
	char *reviewer;
	struct corpus corpus;     /* as on disk now: read again when it changes */
	bool have_corpus;
	char *corpus_named;       /* the path the set named for it */
	struct stat corpus_st;    /* the file read (inode, size, time) */
	bool corpus_lost;         /* it was read, and is gone: writes are refused */
	struct bm25 bm25;
	bool have_bm25;
	/* query text -> struct review_top *: each question's top hits worked
	 * out once, again only for a text not seen (an edit); emptied when
	 * the corpus is read again */
	struct strmap top;
	/* the session's writes, newest last; 'redo' holds what undo took back
	 * and is emptied by any other write */
	struct review_change *undo, *redo;
	size_t nr_undo, alloc_undo, nr_redo, alloc_redo;
	/* pools: the worksheet as this server last read or wrote it, parsed and
	 * as YAML in parts, used only while the file on disk has the SHA-256
	 * 'pool_digest' (byte for byte that file): a grade then neither parses
	 * the file again nor emits more than its question */
	struct pool pool;
	struct pool_yaml pool_yaml;
	bool have_pool;
	char pool_digest[72];
};
#define REVIEW_INIT { REVIEW_SET, SET_REF_INIT, false, NULL, NULL, NULL, CORPUS_INIT, false, NULL, { 0 }, \
		      false, BM25_INIT, false, STRMAP_INIT, NULL, NULL, 0, 0, 0, 0, POOL_INIT, POOL_YAML_INIT, \
		      false, "" }

/*
 * Open 'arg' for review by 'reviewer': a pool worksheet when 'arg' is a
 * file that starts as one (an "evalset_pool" key), else a set argument as
 * every command takes it. A frozen version is refused. The file is loaded
 * and checked once here so that bad input is refused before a server
 * starts; for a set, its corpus is loaded and indexed with BM25 when it
 * names one. Return 0 or -1 (reported).
 */
int review_open(struct review *r, const char *arg, const char *reviewer);
void review_release(struct review *r);
void review_change_release(struct review_change *ch);

/*
 * Append the page's data as JSON to 'out': the file as it is on disk now,
 * with its "digest" (SHA-256 of the bytes) that writes must quote. Return
 * 0, or -1 (reported) when the file cannot be read any more.
 */
int review_state(struct review *r, struct strbuf *out);

/*
 * Apply the action in the JSON request 'body' ('len' bytes) and append the
 * JSON reply to 'out': {"ok": true, "digest": NEW} or {"error": MESSAGE,
 * "stale": BOOL}. Return the HTTP status: 200 done, 400 a malformed
 * request, 404 an unknown question or pair, 409 the file changed since
 * the page loaded it (or another evalset holds the lock), 422 the change
 * would break the set's rules or cannot be saved.
 *
 *   {"digest": D, "op": "accept", "id": Q}
 *   {"digest": D, "op": "edit", "id": Q, "text": T}
 *   {"digest": D, "op": "label", "id": Q, "chunk": C, "grade": -1..3}  (-1 removes)
 *   {"digest": D, "op": "answerable", "id": Q, "answerable": B [, "chunk": C]}
 *   {"digest": D, "op": "tag" | "untag", "id": Q, "tag": T}
 *   {"digest": D, "op": "reject", "id": Q, "reason": R}
 *   {"digest": D, "op": "grade", "id": Q, "chunk": C, "grade": 0..3}      (pools)
 *   {"digest": D, "op": "undo" | "redo"}
 *
 * A label's grade is on the page's scale, 0..3 (a set may hold grades up
 * to 9 written elsewhere: shown, never written here). Marking a question
 * unanswerable makes its relevant chunks irrelevant and keeps their grades
 * and evidence in its provenance ("before_unanswerable"); answerable again
 * puts them back, or, when nothing was kept, makes 'chunk' relevant (1).
 *
 * Undo takes back the session's last write (a rejection too: the question
 * leaves the rejected list for its old place in the set), redo writes it
 * again; each is refused as stale (409) when the file is no longer as
 * that write left it, and with 409 when there is nothing to take back.
 */
int review_apply(struct review *r, const char *body, size_t len, struct strbuf *out);

/*
 * Search the whole corpus of a set's review for 'query' (review-search.c):
 * a chunk id, a document's name (with or without "doc:"), words (BM25).
 * Append the JSON reply to 'out': {"query", "hits": [{chunk, doc, title,
 * text, how: "id" | "document" | "words", score (words)}], "more"} or
 * {"error"}. Return the HTTP status: 200, 400 an empty or too long query,
 * 422 no corpus to search.
 */
int review_search(struct review *r, const char *query, struct strbuf *out);

#endif
