/*
 * sample: choosing which mined queries to keep: a near-duplicate filter
 * that scales to many thousands of queries, and sampling stratified by
 * query frequency.
 *
 * Near-duplicates are exactly text_near_duplicate() at a threshold: same
 * text_normalize() form, or Jaccard similarity of content words at or above
 * the threshold. Candidates are found by prefix filtering (two sets with
 * Jaccard >= t share one of their first |x| - ceil(t|x|) + 1 tokens in any
 * fixed token order; the order used is the token hash), then verified, so
 * the answer is the same as comparing every pair.
 *
 * Strata: with items sorted by count (most frequent first), the head is the
 * shortest prefix holding a third of all occurrences, the torso the items
 * up to two thirds, the tail the rest: many rare queries share the tail.
 * Queries with the same count share the stratum of the first of them, so
 * when every query has the same count (no frequency information) all are
 * head.
 */
#ifndef EVALSET_SAMPLE_H
#define EVALSET_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum stratum { STRATUM_HEAD, STRATUM_TORSO, STRATUM_TAIL, NR_STRATA };
const char *stratum_name(enum stratum s);

/* Write the stratum of each of 'n' items into 'out'; 'counts' is sorted descending. */
void strata_assign(const unsigned long *counts, size_t n, enum stratum *out);

/*
 * Choose 'want' of the 'n' items at random (seeded by 'seed', the same
 * choice for the same input): an equal share per stratum (the remainder to
 * the tail first, then the torso), a share a stratum cannot fill going to
 * the others. Set 'chosen[i]' for the chosen items; return how many.
 */
size_t sample_stratified(const enum stratum *strata, size_t n, size_t want, uint64_t seed,
			 bool *chosen);

struct dedup;

/* A text prepared for the filter: its text_normalize form and the sorted
 * hashes of its content words. Texts that differ only in case, Unicode
 * compatibility forms, whitespace and punctuation prepare the same. */
struct dd_text {
	char *norm;
	uint64_t *h;
	size_t nr;
};
/* Prepare 'len' bytes of 'text' into 't' (release with dedup_text_release). */
void dedup_text_prepare(const char *text, size_t len, struct dd_text *t);
void dedup_text_release(struct dd_text *t);

/* Return a new empty filter at 'threshold' (e.g. TEXT_NEAR_DUP_THRESHOLD). */
struct dedup *dedup_new(double threshold);
void dedup_free(struct dedup *d);
/* Return the number given to dedup_add of a near-duplicate of 'text' held, or -1. */
long dedup_find(struct dedup *d, const char *text);
/* Hold 'text' under the number 'id' (returned by later dedup_find calls). */
void dedup_add(struct dedup *d, const char *text, long id);
/* Return the number of a near-duplicate of 'text' held, or -1 after holding
 * 'text' under 'id' (dedup_find then dedup_add, preparing the text once). */
long dedup_check(struct dedup *d, const char *text, long id);
/* Like dedup_check with 't' prepared from 'text' (or a text that prepares the
 * same); holding it takes its hashes (t->h becomes NULL). */
long dedup_check_prepared(struct dedup *d, const char *text, struct dd_text *t, long id);

#endif
