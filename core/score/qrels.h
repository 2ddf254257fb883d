/*
 * qrels: relevance judgments per question, from a TREC qrels file
 * (`qid iter docno rel`, whitespace separated, plain or gzip) or built from
 * the labels of a set.
 *
 * Invariants after qrels_query_finish(): the judgments of one question are
 * sorted by docno (strcmp) without duplicates; levels[g] counts the
 * judgments of grade g >= 0 (negative grades, trec_eval's "in the pool but
 * unjudged", are kept in 'j' but counted nowhere); a small hash table maps a
 * docno to its judgment in O(1).
 *
 * Ownership: a struct qrels owns its queries, their strings and tables;
 * qrels_release() frees all of it.
 */
#ifndef EVALSET_QRELS_H
#define EVALSET_QRELS_H

#include <stddef.h>
#include <stdint.h>

#include "base/strmap.h"

struct qrel {
	char *doc;
	size_t len;
	uint64_t hash;   /* qrels_hash(doc, len) */
	int rel;
};

struct qrels_query {
	char *qid;
	struct qrel *j;
	size_t nr, alloc;
	long *levels;    /* levels[g], g in 0..nr_levels-1 */
	int nr_levels;
	uint32_t *slots; /* hash table: index + 1 into j, 0 empty */
	size_t cap;      /* power of two */
	long line;       /* first line in its file (0: not from a file) */
};

struct qrels {
	struct qrels_query *q;
	size_t nr, alloc;
	struct strmap index;  /* qid -> index + 1 */
	char *file;
};

void qrels_init(struct qrels *qr);
void qrels_release(struct qrels *qr);

/*
 * Load the TREC qrels file 'path' into 'qr' (initialised). Queries keep the
 * order of first appearance. Return 0, or -1 after reporting FILE:LINE and
 * the problem (fewer than 4 fields, a grade that is not an integer, a docno
 * judged twice for one query, a binary file).
 */
int qrels_load(struct qrels *qr, const char *path);

/* Return the query 'qid' ('len' bytes), or NULL. */
struct qrels_query *qrels_find(const struct qrels *qr, const char *qid, size_t len);
/* Append a new empty query 'qid' and return it (the qid must be new). */
struct qrels_query *qrels_add_query(struct qrels *qr, const char *qid);
/* Add a judgment to 'q' (before qrels_query_finish). */
void qrels_query_add(struct qrels_query *q, const char *doc, int rel);
/*
 * Sort, count levels and index the judgments of 'q'. Return 0, or -1 with an
 * error naming 'file' when a docno is judged twice.
 */
int qrels_query_finish(struct qrels_query *q, const char *file);
/* Like qrels_query_finish, reporting nothing: -1 when a docno is judged twice. */
int qrels_query_finish_quiet(struct qrels_query *q);
void qrels_query_release(struct qrels_query *q);

/* Return the index in q->j of the docno 'doc' of 'len' bytes with hash 'h', or -1. */
long qrels_query_lookup(const struct qrels_query *q, const char *doc, size_t len, uint64_t h);

/* Hash 'len' bytes of 's' (a fast word-at-a-time hash for short ids). */
uint64_t qrels_hash(const char *s, size_t len);
/* The same value as qrels_hash, faster: may read (never use) up to 7 bytes
 * past the end of 's', so those must be readable (ids inside a run buffer). */
uint64_t qrels_hash_padded(const char *s, size_t len);

#endif
