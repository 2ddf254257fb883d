/*
 * mempool: memory for very many small blocks that die together (the tallies
 * of an import: session sets, document lists). Blocks are carved from large
 * chunks; a freed block is kept on a free list of its size class (powers of
 * two from 16 bytes to MEMPOOL_MAX_CLASS) for the next allocation of that
 * class; mempool_clear gives everything back at once.
 *
 * Invariants: a pool is used by one thread at a time. A block may be freed
 * into another pool than the one it came from (it is then reused there), so
 * pools that exchange blocks are cleared together, after their last use.
 * Every function accepts a NULL pool and then uses malloc and free.
 */
#ifndef EVALSET_MEMPOOL_H
#define EVALSET_MEMPOOL_H

#include <stddef.h>

#define MEMPOOL_CLASSES 17                     /* 16 bytes .. 1 MiB */
#define MEMPOOL_MAX_CLASS ((size_t)16 << (MEMPOOL_CLASSES - 1))

struct mempool_chunk;

struct mempool {
	struct mempool_chunk *chunks;
	char *next;                 /* unused room of the newest chunk */
	size_t left;
	void *free[MEMPOOL_CLASSES];   /* freed blocks by size class, linked through their first word */
	char *bump;                 /* unused room of the newest mempool_bump chunk */
	size_t bump_left;
	size_t held;                /* bytes of all chunks */
};
#define MEMPOOL_INIT { NULL, NULL, 0, { NULL }, NULL, 0, 0 }

/* Return a block of at least 'size' bytes (uninitialised). Never fails (dies on no memory). */
void *mempool_alloc(struct mempool *p, size_t size);
/* Return a zeroed block of 'n' elements of 'size' bytes. */
void *mempool_calloc(struct mempool *p, size_t n, size_t size);
/* Return a block of 'size' bytes holding the first 'old_size' bytes of 'old'
 * (may be NULL), freeing 'old'. */
void *mempool_realloc(struct mempool *p, void *old, size_t old_size, size_t size);
/*
 * Return a block of exactly 'size' bytes aligned to 'align' (a power of two
 * up to sizeof(max_align_t); 1 for strings), carved in turn from chunks of
 * its own: no size class, no rounding up. Such a block is never given back
 * on its own (not to mempool_free or mempool_realloc), only by mempool_clear:
 * for what is made once and read until the pool dies (a run's document
 * ids and ranked lists, a parsed YAML tree). 'size' 0 gives a valid pointer.
 */
void *mempool_bump(struct mempool *p, size_t size, size_t align);
/* Return a copy of the 'len' bytes at 's' and a NUL, from mempool_bump. */
char *mempool_strndup(struct mempool *p, const char *s, size_t len);
/* Give back 'block' of 'size' bytes (the size it was asked with); NULL is ignored. */
void mempool_free(struct mempool *p, void *block, size_t size);
/* Free every block of 'p' at once and leave it empty (reusable). */
void mempool_clear(struct mempool *p);

#endif
