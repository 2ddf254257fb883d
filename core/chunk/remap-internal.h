/*
 * remap-internal: what the two files of the remap module share. The finding
 * of places, core/chunk/remap-find.c, indexes the new corpus by document
 * and locates a piece of evidence there (at its span, else by its quote:
 * exactly, with white space folded, then allowing edits), and serves
 * remap_find_quote and remap_quote_in_chunk. The choosing and writing,
 * core/chunk/remap.c, turns a located place into the new chunks that cover
 * it, grades and evidence, provenance and the report. Calls go one way,
 * remap.c to remap-find.c; the public contract is remap.h.
 */
#ifndef EVALSET_REMAP_INTERNAL_H
#define EVALSET_REMAP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "chunk/remap.h"
#include "base/strmap.h"
#include "set/corpus.h"
#include "set/set.h"

/* The chunks of one document of the new corpus that have a span. */
struct doc_index {
	size_t *idx;   /* chunks of one document with a span, by start */
	size_t nr, alloc;
};

struct remapper {
	const struct corpus *old, *new;
	struct strmap docs;   /* doc -> struct doc_index * */
};

/* A place evidence was located at in the new corpus. */
struct place {
	const char *doc;      /* borrowed from the new corpus */
	long start, end;      /* code points; -1 when the chunk has no span */
	size_t chunk;         /* a chunk holding it (for chunks without spans) */
	char *quote;          /* the text there (owned), or NULL */
	bool moved;
};

static inline bool remap_has_span(const struct chunk *c)
{
	return c->doc && c->start >= 0 && c->end >= c->start;
}

/* Index the chunks of 'r->new' by document, each document's by start. */
void remap_index_docs(struct remapper *r);
/* Free what remap_index_docs built. */
void remap_index_release(struct remapper *r);

/*
 * Locate evidence 'e' (of old chunk 'oc', may be NULL) in the new corpus.
 * Return 0 with 'p' filled (p->quote owned by the caller), or -1 with
 * '*why' set (stale: the documents no longer hold it).
 */
int remap_locate(const struct remapper *r, const struct evidence *e, const struct chunk *oc,
		 struct place *p, char **why);

#endif
