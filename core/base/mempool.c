/*
 * mempool: size-class free lists over large chunks (see mempool.h). A block's
 * class is the smallest power of two from 16 bytes holding it; a block above
 * MEMPOOL_MAX_CLASS gets a chunk of its own and is only given back by
 * mempool_clear.
 */
#include "base/mempool.h"

#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE ((size_t)1 << 20)

struct mempool_chunk {
	struct mempool_chunk *prev;
	max_align_t align[];        /* the blocks */
};

/* Return the size class of 'size' bytes, or MEMPOOL_CLASSES when it has none. */
static int size_class(size_t size)
{
	int c = 0;

	if (size > MEMPOOL_MAX_CLASS)
		return MEMPOOL_CLASSES;
	while (((size_t)16 << c) < size)
		c++;
	return c;
}

/* Return a new chunk of 'size' bytes of blocks, linked into 'p'. */
static char *new_chunk(struct mempool *p, size_t size)
{
	struct mempool_chunk *c = xmalloc(sizeof(*c) + size);

	c->prev = p->chunks;
	p->chunks = c;
	return (char *)c->align;
}

void *mempool_alloc(struct mempool *p, size_t size)
{
	int c;
	size_t bytes;
	void *b;

	if (!p)
		return xmalloc(size);
	c = size_class(size);
	if (c == MEMPOOL_CLASSES)
		return new_chunk(p, size);
	if ((b = p->free[c])) {
		p->free[c] = *(void **)b;
		return b;
	}
	bytes = (size_t)16 << c;
	if (p->left < bytes) {
		/* the rest of the old chunk is left unused: at most a block's worth */
		p->next = new_chunk(p, CHUNK_SIZE);
		p->left = CHUNK_SIZE;
	}
	b = p->next;
	p->next += bytes;
	p->left -= bytes;
	return b;
}

void *mempool_calloc(struct mempool *p, size_t n, size_t size)
{
	void *b;

	if (size && n > SIZE_MAX / size)
		return xcalloc(SIZE_MAX, 2);  /* dies with the size in the message */
	b = mempool_alloc(p, n * size);
	memset(b, 0, n * size);
	return b;
}

void *mempool_realloc(struct mempool *p, void *old, size_t old_size, size_t size)
{
	void *b;

	if (!p)
		return xrealloc(old, size);
	if (old && size_class(old_size) == size_class(size) && size_class(size) < MEMPOOL_CLASSES)
		return old;  /* the block already has room */
	b = mempool_alloc(p, size);
	if (old) {
		memcpy(b, old, old_size < size ? old_size : size);
		mempool_free(p, old, old_size);
	}
	return b;
}

void mempool_free(struct mempool *p, void *block, size_t size)
{
	int c;

	if (!p) {
		free(block);
		return;
	}
	if (!block || (c = size_class(size)) == MEMPOOL_CLASSES)
		return;
	*(void **)block = p->free[c];
	p->free[c] = block;
}

void mempool_clear(struct mempool *p)
{
	while (p->chunks) {
		struct mempool_chunk *prev = p->chunks->prev;
		free(p->chunks);
		p->chunks = prev;
	}
	memset(p, 0, sizeof(*p));
}
