/*
 * strmap: an open-addressing hash map from NUL-terminated strings to a
 * pointer-sized value. Keys are copied into the map (the map owns its key
 * copies); values are the caller's. Insertion order is not kept: callers
 * that need an order keep their own array and map keys to indexes.
 */
#ifndef EVALSET_STRMAP_H
#define EVALSET_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_entry {
	char *key;       /* NULL: empty slot */
	uint64_t hash;
	void *value;
};

struct strmap {
	struct strmap_entry *slots;
	size_t cap;  /* power of two, or 0 */
	size_t size;
	/*
	 * Keys are the caller's: strmap_intern_hashed stores the (NUL-terminated,
	 * lasting) key it is given, and strmap_clear frees none. Set before the
	 * first key; the other calls that add keys must not be used.
	 */
	int borrowed;
};

#define STRMAP_INIT { NULL, 0, 0, 0 }

uint64_t strhash(const char *s, size_t len);

/* Return the value for 'key', or NULL when absent. */
void *strmap_get(const struct strmap *m, const char *key);
/* Return the entry for 'key' of 'len' bytes (need not be NUL-terminated), or NULL. */
struct strmap_entry *strmap_find(const struct strmap *m, const char *key, size_t len);
/* Set 'key' to 'value'; return the previous value or NULL. */
void *strmap_put(struct strmap *m, const char *key, void *value);
/* Return the entry for 'key' of 'len' bytes, inserting it with value NULL
 * when absent ('*added' set to 1 then, else 0). */
struct strmap_entry *strmap_intern(struct strmap *m, const char *key, size_t len, int *added);
/* strmap_intern with 'h' = strhash(key, len) computed by the caller (perhaps on another thread). */
/* Return the entry for 'key' of 'len' bytes and strhash 'h', or NULL. */
struct strmap_entry *strmap_find_hashed(const struct strmap *m, const char *key, size_t len, uint64_t h);
struct strmap_entry *strmap_intern_hashed(struct strmap *m, const char *key, size_t len, uint64_t h,
					  int *added);
/* Make room for 'n' more keys at once (no rehash while they are added). */
void strmap_reserve(struct strmap *m, size_t n);
/* Empty the map and keep its table for the next keys (a borrowed map only:
 * copied keys would be lost). */
void strmap_reset(struct strmap *m);
/* Free the map and its key copies; values are untouched unless 'free_values'. */
void strmap_clear(struct strmap *m, int free_values);

#define strmap_for_each(m, e) \
	for ((e) = (m)->slots; (m)->slots && (e) < (m)->slots + (m)->cap; (e)++) \
		if ((e)->key)

#endif
