/*
 * sketch: a distinct counter of 64-bit hashes (see sketch.c): exact until
 * it holds 'cap' hashes, a k-minimum-values estimate past that. The caller
 * passes the same 'cap' to every call on one sketch. A zeroed struct is an
 * empty sketch. Memory comes from the pool passed to each call (NULL:
 * malloc; core/base/mempool.h); sketch_release gives it back there.
 */
#ifndef EVALSET_SKETCH_H
#define EVALSET_SKETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "base/mempool.h"

#define SKETCH_INLINE 3
struct sketch {
	uint64_t *h;             /* NULL while the hashes fit in 'inl' */
	uint32_t nr, alloc;
	bool kmv;
	uint64_t inl[SKETCH_INLINE];
};

/* Add the (well mixed) hash 'h' to 's'. */
void sketch_add(struct sketch *s, uint64_t h, uint32_t cap, struct mempool *mp);
/* Return the number of distinct hashes added (an estimate past 'cap'). */
double sketch_count(const struct sketch *s, uint32_t cap);
/* Add every hash 'from' holds to 'into' (the union of the two streams). */
void sketch_merge(struct sketch *into, const struct sketch *from, uint32_t cap, struct mempool *mp);
void sketch_release(struct sketch *s, struct mempool *mp);

#endif
