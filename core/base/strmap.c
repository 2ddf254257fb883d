/*
 * strmap: linear-probing hash map with string keys (see strmap.h).
 * The load factor stays under 1/2, so probes stay short.
 */
#include "base/strmap.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

uint64_t strhash(const char *s, size_t len)
{
	/* FNV-1a, 64 bits, with a final avalanche so low bits mix well. */
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static struct strmap_entry *probe(const struct strmap *m, const char *key,
				  size_t len, uint64_t h)
{
	size_t mask = m->cap - 1, i = (size_t)h & mask;

	for (;;) {
		struct strmap_entry *e = &m->slots[i];
		if (!e->key)
			return e;
		if (e->hash == h && !strncmp(e->key, key, len) && e->key[len] == '\0')
			return e;
		i = (i + 1) & mask;
	}
}

static void rehash(struct strmap *m, size_t cap)
{
	struct strmap_entry *old = m->slots;
	size_t oldcap = m->cap;

	m->slots = xcalloc_written(cap, sizeof(*m->slots));
	m->cap = cap;
	for (size_t i = 0; i < oldcap; i++) {
		if (old[i].key) {
			struct strmap_entry *e = probe(m, old[i].key, strlen(old[i].key), old[i].hash);
			*e = old[i];
		}
	}
	free(old);
}

struct strmap_entry *strmap_find(const struct strmap *m, const char *key, size_t len)
{
	struct strmap_entry *e;

	if (!m->cap)
		return NULL;
	e = probe(m, key, len, strhash(key, len));
	return e->key ? e : NULL;
}

void *strmap_get(const struct strmap *m, const char *key)
{
	struct strmap_entry *e = strmap_find(m, key, strlen(key));
	return e ? e->value : NULL;
}

struct strmap_entry *strmap_intern(struct strmap *m, const char *key, size_t len, int *added)
{
	return strmap_intern_hashed(m, key, len, strhash(key, len), added);
}

struct strmap_entry *strmap_find_hashed(const struct strmap *m, const char *key, size_t len,
					 uint64_t h)
{
	struct strmap_entry *e;

	if (!m->cap)
		return NULL;
	e = probe(m, key, len, h);
	return e->key ? e : NULL;
}

void strmap_reserve(struct strmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 16;

	while ((m->size + n) * 2 > cap)
		cap *= 2;
	if (cap != m->cap)
		rehash(m, cap);
}

struct strmap_entry *strmap_intern_hashed(struct strmap *m, const char *key, size_t len, uint64_t h,
					  int *added)
{
	struct strmap_entry *e;

	if ((m->size + 1) * 2 > m->cap)
		rehash(m, m->cap ? m->cap * 2 : 16);
	e = probe(m, key, len, h);
	if (added)
		*added = !e->key;
	if (!e->key) {
		e->key = m->borrowed ? (char *)key : xstrndup(key, len);
		e->hash = h;
		e->value = NULL;
		m->size++;
	}
	return e;
}

void *strmap_put(struct strmap *m, const char *key, void *value)
{
	struct strmap_entry *e = strmap_intern(m, key, strlen(key), NULL);
	void *old = e->value;

	e->value = value;
	return old;
}

void strmap_reset(struct strmap *m)
{
	if (m->size)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->size = 0;
}

void strmap_clear(struct strmap *m, int free_values)
{
	for (size_t i = 0; i < m->cap; i++) {
		if (m->slots[i].key) {
			if (!m->borrowed)
				free(m->slots[i].key);
			if (free_values)
				free(m->slots[i].value);
		}
	}
	free(m->slots);
	m->slots = NULL;
	m->cap = m->size = 0;
}
