/*
 * mempool: size-class free lists over large chunks (see mempool.h). A block's
 * class is the smallest power of two from 16 bytes holding it; a block above
 * MEMPOOL_MAX_CLASS gets a chunk of its own and is only given back by
 * mempool_clear.
 */
#include "base/mempool.h"

#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK_SIZE ((size_t)1 << 20)
#define HUGE_PAGE ((size_t)2 << 20)        /* x86-64's and arm64's transparent huge page */
#define BIG_CHUNK ((size_t)8 << 20)        /* the chunks of a pool past BIG_AFTER */
#define BIG_AFTER ((size_t)4 << 20)

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
	p->held += size;
	return (char *)c->align;
}

/*
 * Return a new chunk for carving, its size in '*size'. A pool that already
 * holds BIG_AFTER bytes (a run's ids and lists, a large set's YAML tree) gets
 * chunks of BIG_CHUNK, aligned to a huge page and marked for the kernel's
 * transparent huge pages where it has them (madvise mode): one page fault
 * per 2 MiB instead of per 4 KiB, which on a virtual machine was a third of
 * loading a run of two million lines. Small pools keep small chunks, so
 * that they never hold a huge page for a few blocks.
 */
static char *carve_chunk(struct mempool *p, size_t *size)
{
#ifdef MADV_HUGEPAGE
	if (p->held >= BIG_AFTER) {
		void *mem;
		struct mempool_chunk *c;

		if (posix_memalign(&mem, HUGE_PAGE, BIG_CHUNK))
			return xcalloc(SIZE_MAX, 2);  /* dies with the size in the message */
		(void)madvise(mem, BIG_CHUNK, MADV_HUGEPAGE);  /* a hint: without it, small pages */
		c = mem;
		c->prev = p->chunks;
		p->chunks = c;
		p->held += BIG_CHUNK;
		*size = BIG_CHUNK - sizeof(*c);
		return (char *)c->align;
	}
#endif
	*size = CHUNK_SIZE;
	return new_chunk(p, CHUNK_SIZE);
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
		p->next = carve_chunk(p, &p->left);
	}
	b = p->next;
	p->next += bytes;
	p->left -= bytes;
	return b;
}

void *mempool_bump(struct mempool *p, size_t size, size_t align)
{
	size_t pad;

	if (!p)
		return xmalloc(size ? size : 1);
	if (!align || (align & (align - 1)) || align > sizeof(max_align_t)) {
		fprintf(stderr, "fatal: mempool_bump: alignment %zu\n", align);
		abort();
	}
	if (size > CHUNK_SIZE / 4)
		return new_chunk(p, size);  /* the current chunk stays for the small ones */
	pad = (align - ((uintptr_t)p->bump & (align - 1))) & (align - 1);
	if (!p->bump || p->bump_left < pad + size) {
		p->bump = carve_chunk(p, &p->bump_left);
		pad = 0;  /* a chunk starts aligned for anything */
	}
	p->bump += pad;
	p->bump_left -= pad;
	{
		void *b = p->bump;
		p->bump += size;
		p->bump_left -= size;
		return b;
	}
}

char *mempool_strndup(struct mempool *p, const char *s, size_t len)
{
	char *copy;

	if (len == SIZE_MAX)
		return xcalloc(SIZE_MAX, 2);  /* dies with the size in the message */
	copy = mempool_bump(p, len + 1, 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	return copy;
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
