/*
 * logtally: the memory and the small structures both stages of an import use
 * (logs/logimport.c has the design): arenas for raw forms and document ids,
 * the open-addressing hash table of raw forms, the hot path's hash, tallies
 * and their per-document tables, interned document keys, the names of the
 * fields, the first places of skipped records, and running work in two
 * halves.
 *
 * The lowest of the import's files: it calls none of the others.
 */
#include "logs/logimport-internal.h"

#include "base/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK (1u << 20)

static const char *const field_names[IMPORT_NR_FIELDS] = {
	"query", "doc", "signal", "session", "time", "dwell", "end", "count", "sessions", "last", "event",
};

const char *import_field_name(enum import_field f)
{
	return f < IMPORT_NR_FIELDS ? field_names[f] : "?";
}

int import_field_parse(const char *name)
{
	for (int f = 0; f < IMPORT_NR_FIELDS; f++)
		if (!strcmp(name, field_names[f]))
			return f;
	return -1;
}

/* Return 'len' bytes of the arena '*ap', aligned for any record. */
void *import_arena_alloc(struct import_arena **ap, size_t len)
{
	struct import_arena *a = *ap;

	len = (len + 15) & ~(size_t)15;
	if (!a || a->cap - a->used < len) {
		size_t cap = len > ARENA_CHUNK ? len : ARENA_CHUNK;
		a = xmalloc(sizeof(*a) + cap);
		a->prev = *ap;
		a->used = 0;
		a->cap = cap;
		*ap = a;
	}
	a->used += len;
	return a->mem + a->used - len;
}

void import_arena_free(struct import_arena **ap)
{
	while (*ap) {
		struct import_arena *prev = (*ap)->prev;
		free(*ap);
		*ap = prev;
	}
}

/*
 * Return which of two halves (0 or 1) hash 'h' belongs to: its top bit, as
 * hash tables take their slots from the low bits (a half of a table by a
 * low bit would leave every other slot to collisions).
 */
int import_half_of(uint64_t h)
{
	return (int)(h >> 63);
}

/*
 * Return a 64-bit hash of 'len' bytes of 's', eight bytes at a time with one
 * multiplication each and a full mix at the end: the hot path hashes every
 * query, document id and session of the log. Sessions are counted by their
 * hashes (core/text/sketch.h), so two ids collide with a chance of about 2^-56.
 */
uint64_t import_fast_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;

	while (len >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	/* the last 0..7 bytes, in fixed-size loads (a memcpy of 'len' bytes is a call) */
	if (len >= 4) {
		uint32_t a, b;
		memcpy(&a, s, 4);
		memcpy(&b, s + len - 4, 4);
		w = (uint64_t)a | (uint64_t)b << 32;
	} else {
		w = len ? (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 |
			  (uint64_t)(unsigned char)s[len - 1] << 16 : 0;
	}
	h = (h ^ w ^ ((uint64_t)len << 56)) * 0xc4ceb9fe1a85ec53ULL;
	return splitmix64_mix(h);
}

void import_htab_insert(struct import_htab *t, uint64_t h, void *p)
{
	size_t mask, i;

	if (2 * (t->nr + 1) > t->cap)
		import_htab_reserve(t, t->nr ? t->nr : 512);
	mask = t->cap - 1;
	for (i = (size_t)h & mask; t->slot[i].p; i = (i + 1) & mask)
		;
	t->slot[i].hash = h;
	t->slot[i].p = p;
	t->nr++;
}

void import_htab_reserve(struct import_htab *t, size_t n)
{
	struct import_hslot *old = t->slot;
	size_t oldcap = t->cap, cap = t->cap ? t->cap : 1024;

	while (2 * (t->nr + n) > cap)
		cap *= 2;
	if (cap == oldcap)
		return;
	t->slot = xcalloc_written(cap, sizeof(*t->slot));
	t->cap = cap;
	t->nr = 0;
	for (size_t k = 0; k < oldcap; k++)
		if (old[k].p)
			import_htab_insert(t, old[k].hash, old[k].p);
	free(old);
}

void import_tally_dates(struct import_tally *t, double first, double last)
{
	if (!t->dated || first < t->first)
		t->first = first;
	if (!t->dated || last > t->last)
		t->last = last;
	t->dated = true;
}

/* Give the memory of tally 't' back to pool 'mp' (for reuse) and empty it. */
void import_tally_release(struct import_tally *t, struct mempool *mp)
{
	for (size_t d = 0; d < t->nr_docs; d++)
		sketch_release(&t->docs[d].sessions, mp);
	mempool_free(mp, t->docs, t->alloc_docs * sizeof(*t->docs));
	mempool_free(mp, t->dkeys, t->alloc_docs * sizeof(*t->dkeys));
	mempool_free(mp, t->dtab, t->dcap * sizeof(*t->dtab));
	sketch_release(&t->sessions, mp);
	memset(t, 0, sizeof(*t));
}

void import_docs_release(struct import_docs *dk)
{
	free(dk->names);
	free(dk->tab);
	memset(dk, 0, sizeof(*dk));
}

/* ---- document keys and a query's documents ---- */

/* Insert key 'key' (of id hash 'h') into the id table of 'dk', growing it. */
static void docs_insert(struct import_docs *dk, uint64_t h, uint32_t key)
{
	size_t mask, i;

	if (2 * (size_t)(key + 1) > dk->cap) {
		free(dk->tab);
		dk->cap = dk->cap ? 2 * dk->cap : 256;
		dk->tab = xcalloc_written(dk->cap, sizeof(*dk->tab));
		for (uint32_t k = 0; k < key; k++)
			docs_insert(dk, dk->names[k].hash, k);
	}
	mask = dk->cap - 1;
	for (i = (size_t)h & mask; dk->tab[i]; i = (i + 1) & mask)
		;
	dk->tab[i] = key + 1;
}

/* Return the key of id 'id' of 'len' bytes and hash 'h' in 'dk', interning it (in '*ap'). */
uint32_t import_docs_intern(struct import_docs *dk, struct import_arena **ap, const char *id,
			    size_t len, uint64_t h)
{
	struct import_doc_name *n;
	uint32_t key;
	char *copy;

	if (dk->cap) {
		size_t mask = dk->cap - 1;
		for (size_t i = (size_t)h & mask; dk->tab[i]; i = (i + 1) & mask) {
			n = &dk->names[dk->tab[i] - 1];
			if (n->hash == h && n->len == len &&
			    !memcmp(len < sizeof(n->inl) ? n->inl : n->id, id, len))
				return dk->tab[i] - 1;
		}
	}
	key = (uint32_t)dk->nr;
	copy = import_arena_alloc(ap, len + 1);
	memcpy(copy, id, len);
	copy[len] = '\0';
	ALLOC_GROW(dk->names, dk->nr + 1, dk->alloc);
	n = &dk->names[dk->nr++];
	n->id = copy;
	n->hash = h;
	n->len = len;
	if (len < sizeof(n->inl))
		memcpy(n->inl, copy, len + 1);
	docs_insert(dk, h, key);
	return key;
}

/* Return the slot of a tally's document table where 'key' is or belongs. */
static size_t doc_slot(const struct import_tally *t, uint32_t key)
{
	size_t mask = t->dcap - 1, i = (size_t)splitmix64_mix(key) & mask;

	while (t->dtab[i] && t->dkeys[t->dtab[i] - 1] != key)
		i = (i + 1) & mask;
	return i;
}

/* Rebuild the document table of 't' with room for twice its documents. */
void import_doc_table_grow(struct import_tally *t, struct mempool *mp)
{
	size_t cap = 16;
	while (cap < 2 * (t->nr_docs + 1))
		cap *= 2;
	mempool_free(mp, t->dtab, t->dcap * sizeof(*t->dtab));
	t->dtab = mempool_calloc(mp, cap, sizeof(uint32_t));
	t->dcap = cap;
	for (size_t k = 0; k < t->nr_docs; k++)
		t->dtab[doc_slot(t, t->dkeys[k])] = (uint32_t)(k + 1);
}

/*
 * Return the statistics of the document of key 'key' (named in 'dk') in
 * 't', creating them. A tally's documents are found by key: a scan of the
 * keys while there are few, a small hash table once there are many.
 */
struct import_doc *import_doc_of(const struct import_docs *dk, struct import_tally *t, uint32_t key,
				  struct mempool *mp)
{
	struct import_doc *d;
	size_t slot = 0;

	if (!t->dtab) {
		for (size_t k = 0; k < t->nr_docs; k++)
			if (t->dkeys[k] == key)
				return &t->docs[k];
	} else {
		slot = doc_slot(t, key);
		if (t->dtab[slot])
			return &t->docs[t->dtab[slot] - 1];
	}
	if (t->nr_docs == t->alloc_docs) {
		/* most queries lead to a document or two: start small */
		size_t n = t->alloc_docs ? 2 * t->alloc_docs : 2;
		t->docs = mempool_realloc(mp, t->docs, t->alloc_docs * sizeof(*t->docs), n * sizeof(*t->docs));
		t->dkeys = mempool_realloc(mp, t->dkeys, t->alloc_docs * sizeof(*t->dkeys),
					   n * sizeof(*t->dkeys));
		t->alloc_docs = n;
	}
	t->dkeys[t->nr_docs] = key;
	d = &t->docs[t->nr_docs++];
	memset(d, 0, sizeof(*d));
	d->key = key;
	d->id = dk->names[key].id;
	if (t->nr_docs > 8 && (!t->dtab || 2 * t->nr_docs > t->dcap))
		import_doc_table_grow(t, mp);
	else if (t->dtab)
		t->dtab[slot] = (uint32_t)t->nr_docs;
	return d;
}

/*
 * Run fn(ctx, 0) and fn(ctx, 1) (each does its half of some work), on two
 * threads when 'big', else one after the other.
 */
struct halves {
	void (*fn)(void *ctx, int half);
	void *ctx;
};

static void *half_main(void *arg)
{
	struct halves *h = arg;
	h->fn(h->ctx, 1);
	return NULL;
}

void import_run_halves(void (*fn)(void *ctx, int half), void *ctx, bool big)
{
	struct halves h = { fn, ctx };
	pthread_t thread;
	bool threaded = big && !pthread_create(&thread, NULL, half_main, &h);

	fn(ctx, 0);
	if (threaded)
		pthread_join(thread, NULL);
	else
		fn(ctx, 1);
}

static bool place_before(int half, long line, const struct place *p)
{
	return half != p->half ? half < p->half : line < p->line;
}

/*
 * Keep the place ('half', 'line') if it is among the IMPORT_KEEP_LINES
 * first (records are not met in order).
 */
void import_keep_place(struct places *p, int half, long line, const char *why)
{
	size_t k = p->nr;

	if (k == IMPORT_KEEP_LINES) {
		if (!place_before(half, line, &p->at[k - 1]))
			return;
		k--;
	} else {
		p->nr++;
	}
	for (; k > 0 && place_before(half, line, &p->at[k - 1]); k--)
		p->at[k] = p->at[k - 1];
	p->at[k].half = half;
	p->at[k].line = line;
	p->at[k].why = why;
}
