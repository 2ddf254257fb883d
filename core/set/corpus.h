/*
 * corpus: chunks a set's labels refer to, from JSONL (the format users
 * read in docs/formats/corpus.md).
 *
 * One JSON object per line: {"id": "...", "text": "...", "title": "...",
 * "doc": "...", "start": N, "end": N, "tags": [...]} (docs/formats/corpus.md;
 * BEIR's "_id" accepted for "id"; "title", "doc", "tags" and the span
 * optional, the span only with a "doc"; "tags" a string or a list whose
 * strings are kept, read from "metadata" when the line has none; other keys ignored; gzip-compressed files read directly). Ids are unique; order is the file's.
 *
 * Fingerprint (docs/formats/corpus.md): SHA-256 over the lines "<id>\t<sha256 of
 * text>\n" of every chunk, sorted by id in strcmp order, so re-ordering the
 * file does not change it and re-chunking does.
 */
#ifndef EVALSET_CORPUS_H
#define EVALSET_CORPUS_H

#include <stdbool.h>
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
	char **tags;      /* the line's "tags" (else "metadata"'s): what set-wide
	                   * forbidden rules select on; NULL when none */
	size_t nr_tags;
};

struct corpus_docs;

struct corpus {
	struct chunk *chunks;
	size_t nr, alloc;
	struct strmap index;  /* id -> (chunk index + 1) as uintptr_t */
	char *path;
	long *lines;          /* each chunk's line in the file (for messages) */
	size_t alloc_lines;
	struct suggest_index *ids;  /* the ids for "did you mean": allocated by
	                             * corpus_load, filled by the first corpus_did_you_mean */
	struct corpus_docs *docs;   /* each document's chunks, for the same hint: likewise */
};

#define CORPUS_INIT { NULL, 0, 0, STRMAP_INIT, NULL, NULL, 0, NULL, NULL }

/* Load 'path' into 'c' (zeroed by CORPUS_INIT). Return 0, or -1 after an error
 * naming FILE:LINE and the problem (bad JSON, missing id or text, a duplicate id). */
int corpus_load(struct corpus *c, const char *path);
void corpus_release(struct corpus *c);
/* Return true when chunk 'ch' carries tag 'tag'. */
bool chunk_has_tag(const struct chunk *ch, const char *tag);
/* Return the chunk with 'id', or NULL. */
const struct chunk *corpus_get(const struct corpus *c, const char *id);
/*
 * Append a hint for 'id', a chunk id 'c' does not have, to 'out'. When 'id'
 * names a document of 'c' (a chunk's "doc", else the name in the chunker's
 * id form, as chunk_doc in set.h), its chunks in file order, at most
 * CORPUS_HINT_DOC_CHUNKS of them: "; 'guide.md' is a document, not a chunk:
 * its 14 chunks are 'a', 'b', ... and 4 more". Else "; did you mean 'a',
 * 'b'?": the ids of 'c' closest to 'id' (at most three, in sorted order;
 * within a third of the id's length in edits, at least 1 and at most 8, case
 * differences counting nothing), or nothing when none is that close. Return
 * the number of ids written. The first call indexes the ids and the
 * documents (sorting them); later calls reuse the indexes, so one call costs
 * far less than reading the corpus. Not for concurrent use from several
 * threads.
 */
#define CORPUS_HINT_DOC_CHUNKS 10
size_t corpus_did_you_mean(const struct corpus *c, const char *id, struct strbuf *out);
/* Write the fingerprint of 'c' into 'out' ("sha256:<hex>"). */
void corpus_fingerprint(const struct corpus *c, char out[72]);

/*
 * Return the length of the document name in chunk id 'id' when the id has
 * the chunker's form (NAME#<12 hex digits>, optionally -N: docs/formats/
 * corpus.md), else 0.
 */
size_t chunk_id_doc_len(const char *id);
/* Return the document of chunk 'chunk': the corpus's 'doc' field when the
 * corpus (may be NULL) has the chunk and one, else the name in the
 * chunker's id form (copied into 'buf'), else NULL. */
const char *chunk_doc(const struct corpus *corpus, const char *chunk, struct strbuf *buf);
/* True when some chunk of 'corpus' belongs to a document (chunk_doc). */
bool corpus_has_documents(const struct corpus *corpus);

#endif
