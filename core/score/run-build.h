/*
 * run-build: what the run readers (run-trec.c, run-json.c) and the driver
 * (run.c) share, below all three: opening and reading a possibly compressed
 * file, refusing binary input, and building a struct run. Nothing here calls
 * a reader or the driver.
 *
 * Errors are reported through error()/error_at() with the run's path (and
 * line where known) before -1 (or NULL) is returned.
 */
#ifndef EVALSET_RUN_BUILD_H
#define EVALSET_RUN_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <zlib.h>

#include "score/run.h"

/* Open 'path' ("-": a duplicate of stdin) for reading through zlib, which
 * passes plain files through. Return NULL after reporting the problem. */
gzFile run_open_gz(const char *path);
/* Read up to 'want' bytes of 'gz' into 'dst'; return the count (short only
 * at the end), or -1 (reported). */
long run_gz_read_block(gzFile gz, const char *path, char *dst, size_t want);
/* Refuse a NUL byte in the 'len' bytes at 'buf' (the start of 'path') as a
 * binary file, naming its line. Return 0 or -1. */
int run_check_binary(const char *path, const char *buf, size_t len);

/* Add question 'qid' first seen at 'line' (0: unknown) to 'r'; refuse one
 * seen before. Return the new question, or NULL (reported). */
struct run_query *run_add_query(struct run *r, const char *qid, long line);
/* Append a copy of document 'id' (kept in the ids of 'r') to 'q' of 'r'. */
void run_add_doc(struct run *r, struct run_query *q, const char *id, double score, long line);
/* Refuse a docid listed twice in 'q' of 'r'. Return 0 or -1. */
int run_check_dups(struct run *r, const struct run_query *q);
/* Sort the documents of 'q' in ranking order (run_rank_cmp). */
void run_sort_docs(struct run_query *q);

#endif
