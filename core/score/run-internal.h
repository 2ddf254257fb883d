/*
 * run-internal: what the three parts of the run reader share; not for use
 * outside core/score/run.c (struct run, reading, format detection),
 * core/score/run-trec.c (the TREC scanner) and core/score/run-json.c (JSONL and JSON).
 * The public contract is run.h.
 *
 * Errors are reported through error()/error_at() with the run's path (and
 * line where known) before -1 is returned.
 */
#ifndef EVALSET_RUN_INTERNAL_H
#define EVALSET_RUN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <zlib.h>

#include "score/run.h"
#include "base/strbuf.h"

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
/* Append a copy of document 'id' to 'q'. */
void run_add_doc(struct run_query *q, const char *id, double score, long line);
/* Refuse a docid listed twice in 'q' of 'r'. Return 0 or -1. */
int run_check_dups(const struct run *r, const struct run_query *q);
/* Sort the documents of 'q' in ranking order (run_rank_cmp). */
void run_sort_docs(struct run_query *q);

/* Parse the JSONL run in the 'len' bytes at 'buf' into 'r'. Return 0 or -1. */
int run_parse_jsonl(struct run *r, char *buf, size_t len);
/* Parse the JSON run {qid: {docid: score}} in the 'len' bytes at 'buf'
 * into 'r'. Return 0 or -1. */
int run_parse_json_dict(struct run *r, const char *buf, size_t len);
/* Decide whether the content starting at 'p' (first byte '{') is JSONL:
 * its first line is an object with "qid", "meta" or "results". */
bool run_looks_jsonl(const char *p, size_t len);

/*
 * Scan the TREC run already read into 'sb' (from 'path') in collect mode,
 * calling 'fn' per question like run_trec_scan. 'sb' is taken over and
 * left empty. 'runid' receives the tag of the last line, if any. Return 0
 * or -1 (reported).
 */
int run_trec_scan_buffer(struct strbuf *sb, const char *path, trec_group_fn fn,
			 void *data, struct strbuf *runid);

#endif
