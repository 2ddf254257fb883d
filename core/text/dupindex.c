/*
 * dupindex: near-duplicate lookup over many texts (see dupindex.h).
 *
 * The Jaccard pre-check can only skip an entry that text_near_duplicate
 * would also reject: two sets whose sizes differ by more than the threshold
 * ratio cannot reach it, and an entry is confirmed with text_near_duplicate
 * whenever the hash-based Jaccard comes within 0.05 of the threshold (the
 * hashes are the same strhash of the same tokens text.c uses, so the two
 * only differ when a text has no content words, which always confirms).
 */
#include "text/dupindex.h"
#include "text/text.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Return the sorted unique content-word hashes of 'text' (caller frees). */
static uint64_t *content_words(const char *text, size_t *nr)
{
	return text_word_hashes(text, strlen(text), false, nr);
}

static double jaccard(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t i = 0, j = 0, inter = 0;

	while (i < na && j < nb) {
		if (a[i] == b[j]) {
			inter++;
			i++;
			j++;
		} else if (a[i] < b[j]) {
			i++;
		} else {
			j++;
		}
	}
	return na + nb - inter ? (double)inter / (double)(na + nb - inter) : 1.0;
}

void dup_index_add(struct dup_index *d, const char *text, int tag)
{
	char *norm = text_normalize(text, strlen(text));
	struct dup_entry *e;

	ALLOC_GROW(d->items, d->nr + 1, d->alloc);
	e = &d->items[d->nr];
	e->text = xstrdup(text);
	e->words = content_words(text, &e->nr);
	e->tag = tag;
	if (!strmap_get(&d->exact, norm))
		strmap_put(&d->exact, norm, (void *)(uintptr_t)(d->nr + 1));
	d->nr++;
	free(norm);
}

const struct dup_entry *dup_index_find(const struct dup_index *d, const char *text, double threshold)
{
	char *norm = text_normalize(text, strlen(text));
	uintptr_t hit = (uintptr_t)strmap_get(&d->exact, norm);
	const struct dup_entry *found = NULL;
	uint64_t *w;
	size_t nr;

	free(norm);
	if (hit)
		return &d->items[hit - 1];
	w = content_words(text, &nr);
	for (size_t i = 0; i < d->nr && !found; i++) {
		const struct dup_entry *e = &d->items[i];
		if (nr && e->nr) {
			double ratio = nr < e->nr ? (double)nr / (double)e->nr : (double)e->nr / (double)nr;
			if (ratio < threshold - 1e-9)
				continue;
			if (jaccard(w, nr, e->words, e->nr) < threshold - 0.05)
				continue;
		}
		if (text_near_duplicate(text, e->text, threshold))
			found = e;
	}
	free(w);
	return found;
}

void dup_index_release(struct dup_index *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		free(d->items[i].text);
		free(d->items[i].words);
	}
	free(d->items);
	d->items = NULL;
	d->nr = d->alloc = 0;
	strmap_clear(&d->exact, 0);
}
