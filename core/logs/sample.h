/*
 * sample: choosing which mined queries to keep: sampling stratified by
 * query frequency (the near-duplicate filter that runs first is
 * text/neardup.h).
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

#endif
