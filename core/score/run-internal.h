/*
 * run-internal: the readers' entry points that the driver core/score/run.c
 * (struct run, format detection) calls: the TREC scanner in
 * core/score/run-trec.c and the JSONL and JSON readers in
 * core/score/run-json.c. Calls go one way, driver to readers; what both
 * need is in run-build.h. The public contract is run.h.
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

/* Parse the JSONL run in the 'len' bytes at 'buf' into 'r'. Return 0 or -1. */
int run_parse_jsonl(struct run *r, char *buf, size_t len);
/*
 * Parse line 'line' of a JSONL run, the 'n' bytes at 'p' (no '\n'), into
 * 'r': blank lines are skipped; a \u0000 escape in a string, a key given
 * twice in an object, invalid JSON or a wrong shape is refused. Return 0 or
 * -1 (reported as FILE:LINE).
 */
int run_parse_jsonl_line(struct run *r, const char *p, size_t n, long line);
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
