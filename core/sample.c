/*
 * sample: prefix-filtered near-duplicate search and stratified sampling.
 *
 * Content words and their hashes are computed exactly as text_similarity()
 * does (text_tokenize, minus text_is_stopword, strhash), so the verified
 * Jaccard here is the same number. Texts with no content word only match by
 * comparing every word; they are few and are compared one by one.
 */
#include "sample.h"

#include "strmap.h"
#include "text.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const stratum_names[NR_STRATA] = { "head", "torso", "tail" };

const char *stratum_name(enum stratum s)
{
	return s < NR_STRATA ? stratum_names[s] : "?";
}

void strata_assign(const unsigned long *counts, size_t n, enum stratum *out)
{
	double total = 0, before = 0;

	for (size_t i = 0; i < n; i++)
		total += (double)counts[i];
	for (size_t i = 0; i < n; i++) {
		if (i && counts[i] == counts[i - 1])
			out[i] = out[i - 1];  /* equal counts share a stratum */
		else if (before * 3 < total)
			out[i] = STRATUM_HEAD;
		else if (before * 3 < 2 * total)
			out[i] = STRATUM_TORSO;
		else
			out[i] = STRATUM_TAIL;
		before += (double)counts[i];
	}
}

static uint64_t next_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

size_t sample_stratified(const enum stratum *strata, size_t n, size_t want, uint64_t seed,
			 bool *chosen)
{
	size_t have[NR_STRATA] = { 0 }, quota[NR_STRATA], picked = 0;
	uint64_t state = seed;
	size_t *idx = xcalloc(n ? n : 1, sizeof(size_t));

	for (size_t i = 0; i < n; i++) {
		chosen[i] = false;
		have[strata[i]]++;
	}
	if (want > n)
		want = n;
	for (int s = 0; s < NR_STRATA; s++)
		quota[s] = want / NR_STRATA;
	for (size_t r = want % NR_STRATA, s = NR_STRATA - 1; r > 0; r--, s--)
		quota[s]++;
	/* move what a stratum cannot fill to the others, rarest first */
	for (int round = 0; round < NR_STRATA; round++) {
		size_t spare = 0;
		for (int s = 0; s < NR_STRATA; s++)
			if (quota[s] > have[s]) {
				spare += quota[s] - have[s];
				quota[s] = have[s];
			}
		for (int s = NR_STRATA - 1; s >= 0 && spare; s--) {
			size_t room = have[s] - quota[s], add = room < spare ? room : spare;
			quota[s] += add;
			spare -= add;
		}
	}
	for (int s = 0; s < NR_STRATA; s++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (strata[i] == (enum stratum)s)
				idx[m++] = i;
		/* partial Fisher-Yates: the first quota[s] of a shuffle */
		for (size_t k = 0; k < quota[s] && k < m; k++) {
			size_t j = k + (size_t)(next_rand(&state) % (m - k));
			size_t t = idx[k];
			idx[k] = idx[j];
			idx[j] = t;
			chosen[idx[k]] = true;
			picked++;
		}
	}
	free(idx);
	return picked;
}

/* ---- near-duplicates ---- */

struct dd_item {
	uint64_t *h;  /* sorted distinct content-word hashes */
	size_t nr;
	long id;
};

struct dedup {
	double t;
	struct strmap exact;    /* text_normalize form -> item index + 1 */
	uint64_t *post_key;     /* token hash -> posting: open addressing, 0 = empty */
	struct posting **post_val;
	size_t post_cap, post_nr;
	struct dd_item *items;
	size_t nr, alloc;
	char **empties;         /* texts without content words */
	long *empty_ids;
	size_t nr_empty, alloc_empty, alloc_empty_ids;
	unsigned *stamp;        /* per item, for candidate de-duplication */
	size_t alloc_stamp;
	unsigned now;
};

struct posting {
	size_t *items;
	size_t nr, alloc;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static size_t content_hashes(const char *text, uint64_t **out)
{
	struct tokens t = TOKENS_INIT;
	size_t n = 0, m = 0;
	uint64_t *h;

	text_tokenize(text, strlen(text), &t);
	h = xcalloc(t.nr + 1, sizeof(uint64_t));
	for (size_t i = 0; i < t.nr; i++)
		if (!text_is_stopword(t.items[i]))
			h[n++] = strhash(t.items[i], strlen(t.items[i]));
	qsort(h, n, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!m || h[m - 1] != h[i])
			h[m++] = h[i];
	tokens_release(&t);
	*out = h;
	return m;
}

static size_t prefix_len(size_t nr, double t)
{
	size_t need = (size_t)ceil(t * (double)nr - 1e-9);
	return need > nr ? 1 : nr - need + 1;
}

struct dedup *dedup_new(double threshold)
{
	struct dedup *d = xcalloc(1, sizeof(*d));
	d->t = threshold;
	return d;
}

void dedup_free(struct dedup *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->post_cap; i++)
		if (d->post_val[i]) {
			free(d->post_val[i]->items);
			free(d->post_val[i]);
		}
	free(d->post_key);
	free(d->post_val);
	strmap_clear(&d->exact, 0);
	for (size_t i = 0; i < d->nr; i++)
		free(d->items[i].h);
	free(d->items);
	for (size_t i = 0; i < d->nr_empty; i++)
		free(d->empties[i]);
	free(d->empties);
	free(d->empty_ids);
	free(d->stamp);
	free(d);
}

/* Return the slot of token hash 'h' in the posting table (its own or the empty one). */
static size_t post_slot(const struct dedup *d, uint64_t h)
{
	size_t mask = d->post_cap - 1, i = (size_t)(h ^ (h >> 29)) & mask;
	uint64_t key = h | 1;  /* 0 marks an empty slot */
	while (d->post_key[i] && d->post_key[i] != key)
		i = (i + 1) & mask;
	return i;
}

static struct posting *post_get(const struct dedup *d, uint64_t h)
{
	return d->post_cap ? d->post_val[post_slot(d, h)] : NULL;
}

static struct posting *post_intern(struct dedup *d, uint64_t h)
{
	size_t i;

	if (2 * (d->post_nr + 1) > d->post_cap) {
		uint64_t *ok = d->post_key;
		struct posting **ov = d->post_val;
		size_t oc = d->post_cap;
		d->post_cap = oc ? 2 * oc : 1024;
		d->post_key = xcalloc(d->post_cap, sizeof(uint64_t));
		d->post_val = xcalloc(d->post_cap, sizeof(struct posting *));
		for (size_t k = 0; k < oc; k++)
			if (ok[k]) {
				i = post_slot(d, ok[k]);
				d->post_key[i] = ok[k];
				d->post_val[i] = ov[k];
			}
		free(ok);
		free(ov);
	}
	i = post_slot(d, h);
	if (!d->post_key[i]) {
		d->post_key[i] = h | 1;
		d->post_val[i] = xcalloc(1, sizeof(struct posting));
		d->post_nr++;
	}
	return d->post_val[i];
}

void dedup_text_prepare(const char *text, size_t len, struct dd_text *t)
{
	char *copy = xstrndup(text, len);
	t->norm = text_normalize(copy, len);
	t->nr = content_hashes(copy, &t->h);
	free(copy);
}

void dedup_text_release(struct dd_text *t)
{
	free(t->norm);
	free(t->h);
	t->norm = NULL;
	t->h = NULL;
	t->nr = 0;
}

static long find_prepared(struct dedup *d, const char *text, const struct dd_text *t)
{
	struct strmap_entry *e = strmap_find(&d->exact, t->norm, strlen(t->norm));
	const uint64_t *h = t->h;
	size_t nr = t->nr;
	long found = -1;

	if (e)
		return (long)(uintptr_t)e->value - 1;
	if (!nr) {
		for (size_t i = 0; i < d->nr_empty && found < 0; i++)
			if (text_near_duplicate(text, d->empties[i], d->t))
				found = d->empty_ids[i];
		return found;
	}
	if (++d->now == 0) {
		memset(d->stamp, 0, d->alloc_stamp * sizeof(unsigned));
		d->now = 1;
	}
	for (size_t k = 0, p = prefix_len(nr, d->t); k < p && found < 0; k++) {
		struct posting *post = post_get(d, h[k]);
		for (size_t j = 0; post && j < post->nr && found < 0; j++) {
			size_t it = post->items[j];
			const struct dd_item *x = &d->items[it];
			size_t inter = 0, a = 0, b = 0;

			if (d->stamp[it] == d->now)
				continue;
			d->stamp[it] = d->now;
			/* size filter: J <= min/max of the sizes */
			if ((double)(x->nr < nr ? x->nr : nr) < d->t * (double)(x->nr < nr ? nr : x->nr) - 1e-9)
				continue;
			while (a < nr && b < x->nr) {
				if (h[a] == x->h[b])
					inter++, a++, b++;
				else if (h[a] < x->h[b])
					a++;
				else
					b++;
			}
			if ((double)inter / (double)(nr + x->nr - inter) >= d->t)
				found = x->id;
		}
	}
	return found;
}

/* Hold the prepared text 't' (taking its hashes) under 'id'. */
static void add_prepared(struct dedup *d, const char *text, struct dd_text *t, long id)
{
	struct strmap_entry *e;
	struct dd_item *x;
	int added;

	e = strmap_intern(&d->exact, t->norm, strlen(t->norm), &added);
	if (added)
		e->value = (void *)(uintptr_t)(id + 1);
	if (!t->nr) {
		ALLOC_GROW(d->empties, d->nr_empty + 1, d->alloc_empty);
		ALLOC_GROW(d->empty_ids, d->nr_empty + 1, d->alloc_empty_ids);
		d->empties[d->nr_empty] = xstrdup(text);
		d->empty_ids[d->nr_empty++] = id;
		return;
	}
	ALLOC_GROW(d->items, d->nr + 1, d->alloc);
	x = &d->items[d->nr];
	x->id = id;
	x->h = t->h;
	x->nr = t->nr;
	t->h = NULL;
	ALLOC_GROW(d->stamp, d->nr + 1, d->alloc_stamp);
	d->stamp[d->nr] = 0;
	for (size_t k = 0, p = prefix_len(x->nr, d->t); k < p; k++) {
		struct posting *post = post_intern(d, x->h[k]);

		ALLOC_GROW(post->items, post->nr + 1, post->alloc);
		post->items[post->nr++] = d->nr;
	}
	d->nr++;
}

long dedup_find(struct dedup *d, const char *text)
{
	struct dd_text t;
	long found;

	dedup_text_prepare(text, strlen(text), &t);
	found = find_prepared(d, text, &t);
	free(t.norm);
	free(t.h);
	return found;
}

void dedup_add(struct dedup *d, const char *text, long id)
{
	struct dd_text t;

	dedup_text_prepare(text, strlen(text), &t);
	add_prepared(d, text, &t, id);
	free(t.norm);
	free(t.h);
}

long dedup_check(struct dedup *d, const char *text, long id)
{
	struct dd_text t;
	long found;

	dedup_text_prepare(text, strlen(text), &t);
	found = find_prepared(d, text, &t);
	if (found < 0)
		add_prepared(d, text, &t, id);
	free(t.norm);
	free(t.h);
	return found;
}

long dedup_check_prepared(struct dedup *d, const char *text, struct dd_text *t, long id)
{
	long found = find_prepared(d, text, t);
	if (found < 0)
		add_prepared(d, text, t, id);
	return found;
}
