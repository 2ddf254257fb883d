/*
 * dupindex: find near-duplicate texts among many, fast, with the definition
 * of core/text/text.h (text_near_duplicate: the same normalised text, or
 * content-word Jaccard similarity at or above a threshold).
 *
 * Each text added keeps its normalised form (exact matches through a hash
 * map) and the sorted hashes of its content words, so a lookup merges small
 * arrays instead of re-tokenising every known text; a candidate that comes
 * close is confirmed with text_near_duplicate itself, which stays the
 * definition.
 *
 * Ownership: the index copies the texts it is given; dup_index_release frees
 * everything.
 */
#ifndef EVALSET_DUPINDEX_H
#define EVALSET_DUPINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "base/strmap.h"

struct dup_entry {
	char *text;
	uint64_t *words;   /* sorted unique content-word hashes */
	size_t nr;
	int tag;           /* the caller's */
};

struct dup_index {
	struct dup_entry *items;
	size_t nr, alloc;
	struct strmap exact;   /* normalised text -> entry index + 1 */
};
#define DUP_INDEX_INIT { NULL, 0, 0, STRMAP_INIT }

/* Add 'text' with the caller's 'tag'. */
void dup_index_add(struct dup_index *d, const char *text, int tag);
/* Return the entry 'text' is a near duplicate of at 'threshold' (the first
 * added, for an exact match), or NULL. */
const struct dup_entry *dup_index_find(const struct dup_index *d, const char *text, double threshold);
void dup_index_release(struct dup_index *d);

#endif
