/*
 * corpusdiff: what changed between two corpora (the documents added,
 * removed and edited) and which labels of a set point at chunks a corpus
 * does not hold: what a command says when a run, a set version and a
 * corpus do not agree (docs/runs.md).
 *
 * Documents are the chunks' "doc" (corpus.h). A document is unchanged
 * when its chunks on both sides show the same text wherever they overlap
 * (spans in code points of the document) and no chunk of either side falls
 * where the other has none, unless that chunk is negligible (the caller's
 * test: markup, or text without a token). Two chunkings of the same
 * documents therefore compare as unchanged. Chunks without a span are
 * compared by their texts: the document is unchanged when both sides hold
 * the same texts.
 *
 * Ownership: both structs own their strings (their _release functions).
 */
#ifndef EVALSET_CORPUSDIFF_H
#define EVALSET_CORPUSDIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

struct corpus;
struct set;

/* True when chunk text 'text' ('len' bytes) of document 'doc' holds nothing
 * a reader or a quote needs. */
typedef bool (*corpus_negligible_fn)(const char *doc, const char *text, size_t len);

struct corpus_change {
	char **added, **removed, **edited;  /* document names, sorted */
	size_t nr_added, nr_removed, nr_edited, nr_same;
	size_t alloc_added, alloc_removed, alloc_edited;
	size_t chunks_without_doc;          /* chunks of either side naming no document */
};
#define CORPUS_CHANGE_INIT { NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0 }

/*
 * Compare the documents of 'old' and 'new' into 'out' (CORPUS_CHANGE_INIT).
 * 'negligible' may be NULL: then a chunk without a token (text/text.h) is
 * negligible.
 */
void corpus_change_compute(const struct corpus *old, const struct corpus *new,
			   corpus_negligible_fn negligible, struct corpus_change *out);
void corpus_change_release(struct corpus_change *c);
/* True when no document was added, removed or edited. */
bool corpus_change_none(const struct corpus_change *c);
/* Append "documents: 1 edited (cors.md), 0 added, 0 removed" (at most three
 * names per kind, then "..."). */
void corpus_change_describe(const struct corpus_change *c, struct strbuf *out);

/* A relevant label of a set whose chunk a corpus does not hold. */
struct absent_label {
	char *question, *chunk;
};

struct absent_labels {
	struct absent_label *items;
	size_t nr, alloc;
	size_t labels;          /* relevant labels of the set, in all */
	size_t questions;       /* questions with at least one absent label */
	size_t questions_all;   /* ... with every label absent */
};
#define ABSENT_LABELS_INIT { NULL, 0, 0, 0, 0, 0 }

/* Fill 'out' (ABSENT_LABELS_INIT) with the relevant labels of 's' that
 * point at chunks 'c' does not hold, in set order. */
void corpus_absent_labels(const struct set *s, const struct corpus *c, struct absent_labels *out);
void absent_labels_release(struct absent_labels *a);
/* Append "2 of 130 labels (2 questions) point at chunks not in it:
 * q-0001 cors.md#0123abcd4567, ..." (at most 'max' listed). */
void absent_labels_describe(const struct absent_labels *a, size_t max, struct strbuf *out);

#endif
