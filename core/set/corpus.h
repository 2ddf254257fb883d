/*
 * corpus: chunks a set's labels refer to, from JSONL (the format users
 * read in docs/formats/corpus.md).
 *
 * One JSON object per line: {"id": "...", "text": "...", "title": "...",
 * "doc": "...", "start": N, "end": N} (docs/formats/corpus.md; BEIR's "_id"
 * accepted for "id"; "title", "doc" and the span optional, the span only
 * with a "doc"; other keys ignored; gzip-compressed files read directly). Ids are unique; order is the file's.
 *
 * Fingerprint (docs/formats/corpus.md): SHA-256 over the lines "<id>\t<sha256 of
 * text>\n" of every chunk, sorted by id in strcmp order, so re-ordering the
 * file does not change it and re-chunking does.
 */
#ifndef EVALSET_CORPUS_H
#define EVALSET_CORPUS_H

#include <stddef.h>

#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/suggest.h"

#define CORPUS_MAX_LINE (16u << 20)

struct chunk {
	char *id;
	char *title;   /* may be NULL */
	char *text;
	char *doc;     /* document the chunk belongs to: "doc" key, else title, else NULL */
	long start, end;  /* its span in the document's text ("start", "end": Unicode
	                   * characters, end exclusive), or -1 when not given */
};

struct corpus {
	struct chunk *chunks;
	size_t nr, alloc;
	struct strmap index;  /* id -> (chunk index + 1) as uintptr_t */
	char *path;
	long *lines;          /* each chunk's line in the file (for messages) */
	size_t alloc_lines;
	struct suggest_index *ids;  /* the ids for "did you mean": allocated by
	                             * corpus_load, filled by the first corpus_did_you_mean */
};

#define CORPUS_INIT { NULL, 0, 0, STRMAP_INIT, NULL, NULL, 0, NULL }

/* Load 'path' into 'c' (zeroed by CORPUS_INIT). Return 0, or -1 after an error
 * naming FILE:LINE and the problem (bad JSON, missing id or text, a duplicate id). */
int corpus_load(struct corpus *c, const char *path);
void corpus_release(struct corpus *c);
/* Return the chunk with 'id', or NULL. */
const struct chunk *corpus_get(const struct corpus *c, const char *id);
/*
 * Append "; did you mean 'a', 'b'?" to 'out': the ids of 'c' closest to 'id',
 * a chunk id it does not have (at most three, in sorted order; within a
 * third of the id's length in edits, at least 1 and at most 8, case
 * differences counting nothing), or nothing when none is that close. Return
 * the number of ids written. The first call indexes the ids (sorting them);
 * later calls reuse the index, so one call costs far less than reading the
 * corpus. Not for concurrent use from several threads.
 */
size_t corpus_did_you_mean(const struct corpus *c, const char *id, struct strbuf *out);
/* Write the fingerprint of 'c' into 'out' ("sha256:<hex>"). */
void corpus_fingerprint(const struct corpus *c, char out[72]);

#endif
