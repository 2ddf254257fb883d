/*
 * sketch: count distinct 64-bit hashes (sessions) in little memory.
 *
 * A sketch starts with up to SKETCH_INLINE hashes inside the struct (most
 * documents of a log get a session or two: no allocation), then an exact
 * open-addressing set, and once it holds 'cap' hashes it keeps only the
 * 'cap' smallest in order (k minimum values): counts are exact below 'cap'
 * and estimated above it with a standard error of about 1/sqrt(cap - 2).
 * Hash 0 marks an empty slot, so every hash has its low bit set.
 */
#include "text/sketch.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>

void sketch_release(struct sketch *s, struct mempool *mp)
{
	mempool_free(mp, s->h, (size_t)s->alloc * sizeof(uint64_t));
	s->h = NULL;
	s->nr = s->alloc = 0;
	s->kmv = false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Add 'h' to the exact hash set of 's' (0 marks an empty slot). Return 1 when new. */
static int set_add(struct sketch *s, uint64_t h, struct mempool *mp)
{
	uint32_t mask, i;

	if (!s->alloc) {
		/* the first few live in the struct: most documents get few sessions */
		for (i = 0; i < s->nr; i++)
			if (s->inl[i] == h)
				return 0;
		if (s->nr < SKETCH_INLINE) {
			s->inl[s->nr++] = h;
			return 1;
		}
		s->alloc = 16;  /* a power of two above 2 * SKETCH_INLINE */
		s->h = mempool_calloc(mp, s->alloc, sizeof(uint64_t));
		s->nr = 0;
		for (i = 0; i < SKETCH_INLINE; i++)
			set_add(s, s->inl[i], mp);
	}
	if (2 * (s->nr + 1) > s->alloc) {
		uint64_t *old = s->h;
		uint32_t oldn = s->alloc;
		s->alloc *= 2;
		s->h = mempool_calloc(mp, s->alloc, sizeof(uint64_t));
		s->nr = 0;
		for (uint32_t k = 0; k < oldn; k++)
			if (old[k])
				set_add(s, old[k], mp);
		mempool_free(mp, old, (size_t)oldn * sizeof(uint64_t));
	}
	mask = s->alloc - 1;
	for (i = (uint32_t)h & mask; s->h[i]; i = (i + 1) & mask)
		if (s->h[i] == h)
			return 0;
	s->h[i] = h;
	s->nr++;
	return 1;
}

/* Add 'h' to 's': exactly while it holds fewer than 'cap' hashes, then
 * keeping the 'cap' smallest in order. */
void sketch_add(struct sketch *s, uint64_t h, uint32_t cap, struct mempool *mp)
{
	uint32_t lo = 0, n;

	h |= 1;  /* 0 marks an empty slot; one bit of 64 is not missed */
	if (!s->kmv) {
		if (!set_add(s, h, mp) || s->nr < cap)
			return;
		/* full: keep the smallest 'cap' (all of them) in order */
		n = 0;
		for (uint32_t k = 0; k < s->alloc; k++)
			if (s->h[k])
				s->h[n++] = s->h[k];
		qsort(s->h, n, sizeof(uint64_t), cmp_u64);
		s->nr = n;
		s->kmv = true;
		return;
	}
	if (h >= s->h[s->nr - 1])
		return;
	/* branch-light lower bound */
	for (n = s->nr; n > 1;) {
		uint32_t half = n / 2;
		lo = s->h[lo + half - 1] < h ? lo + half : lo;
		n -= half;
	}
	if (s->h[lo] < h)
		lo++;
	if (s->h[lo] == h)
		return;
	memmove(s->h + lo + 1, s->h + lo, (s->nr - 1 - lo) * sizeof(uint64_t));
	s->h[lo] = h;
}

double sketch_count(const struct sketch *s, uint32_t cap)
{
	if (!s->kmv)
		return s->nr;
	/* k-minimum-values estimate */
	return (double)(cap - 1) / ((double)s->h[cap - 1] / 18446744073709551616.0);
}

void sketch_merge(struct sketch *into, const struct sketch *from, uint32_t cap, struct mempool *mp)
{
	if (!from->kmv && !from->alloc) {
		for (uint32_t k = 0; k < from->nr; k++)
			sketch_add(into, from->inl[k], cap, mp);
	} else if (!from->kmv) {
		for (uint32_t k = 0; k < from->alloc; k++)
			if (from->h[k])
				sketch_add(into, from->h[k], cap, mp);
	} else {
		for (uint32_t k = 0; k < from->nr; k++)
			sketch_add(into, from->h[k], cap, mp);
	}
}

