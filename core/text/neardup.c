/*
 * neardup: prefix-filtered near-duplicate search (see neardup.h).
 *
 * Words and their hashes are computed exactly as text_similarity() does
 * (the terms of text_each_word, content words in the text's own language,
 * stemmed, strhash), so the verified Jaccard here is the same number. A
 * text with content words only matches a text with content words (and the
 * reverse); texts without one are matched on all their words, in a second
 * index of their own; texts without any word all match each other.
 *
 * An index numbers its items in the order held and every posting list
 * (the items holding a token in their prefix) grows in that order. While
 * ids are held in non-decreasing order ('ordered'), the first verified
 * candidate of a list is the smallest id that list can give, so a lookup
 * stops scanning a list there, and skips what follows the best so far.
 */
#include "text/neardup.h"

#include "base/strbuf.h"
#include "base/strmap.h"
#include "text/text.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct dd_item {
	uint64_t *h;  /* sorted distinct hashes */
	size_t nr;
	long id;
};

struct dd_post {        /* an entry of a posting list */
	size_t item;    /* index in the items of the index */
	size_t nr;      /* that item's number of hashes, for the size filter */
	uint64_t sig;   /* bit (hash & 63) set for each of its hashes */
};

/* A token of an index. Open addressing on 'key' (token hash | 1; 0 marks an
 * empty slot): two hashes differing only in bit 0 share a slot, which costs
 * a few candidates, never an answer, since candidates are verified. */
struct dd_slot {
	uint64_t key;
	size_t df;              /* hinted texts holding the token */
	struct dd_post *post;
	size_t nr, alloc;
};

struct dd_index {
	struct dd_slot *slot;
	size_t cap, used;       /* cap: power of two or 0; at most half used */
	struct dd_item *items;
	size_t nr, alloc;
	unsigned *stamp;        /* per item: the last lookup that verified it */
	size_t alloc_stamp;
	unsigned now;
	bool hinted;
};

/* A token and its place in the order: fewest hints first, then by hash. */
struct dd_rank {
	size_t df;
	uint64_t h;
};

struct dedup {
	double t;
	struct dd_index ix[2];  /* [0]: content words, [1]: texts of stop words only */
	bool have_none;         /* a text without any word is held ... */
	long none_id;           /* ... and the smallest id of those */
	bool sealed;            /* a text was held or looked up: no more hints */
	bool ordered;           /* the ids held never decreased */
	long last_id;
	size_t nr_held;
	struct dd_rank *rank;   /* scratch for the order of one text's tokens */
	size_t alloc_rank;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort the 'n' hashes 'h' ascending (most texts have a handful). */
static void sort_u64(uint64_t *h, size_t n)
{
	if (n > 16) {
		qsort(h, n, sizeof(*h), cmp_u64);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		uint64_t v = h[i];
		size_t j = i;
		for (; j > 0 && h[j - 1] > v; j--)
			h[j] = h[j - 1];
		h[j] = v;
	}
}

static bool rank_before(const struct dd_rank *a, const struct dd_rank *b)
{
	return a->df != b->df ? a->df < b->df : a->h < b->h;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct dd_rank *x = a, *y = b;
	return rank_before(x, y) ? -1 : rank_before(y, x);
}

static size_t prefix_len(size_t nr, double t)
{
	size_t need = (size_t)ceil(t * (double)nr - 1e-9);  /* shared tokens a match needs */

	if (!need)
		return nr;
	return need > nr ? 1 : nr - need + 1;
}

struct dedup *dedup_new(double threshold)
{
	struct dedup *d = xcalloc(1, sizeof(*d));
	d->t = threshold;
	d->ordered = true;
	return d;
}

static void index_release(struct dd_index *ix)
{
	for (size_t i = 0; i < ix->cap; i++)
		free(ix->slot[i].post);
	free(ix->slot);
	for (size_t i = 0; i < ix->nr; i++)
		free(ix->items[i].h);
	free(ix->items);
	free(ix->stamp);
}

void dedup_free(struct dedup *d)
{
	if (!d)
		return;
	index_release(&d->ix[0]);
	index_release(&d->ix[1]);
	free(d->rank);
	free(d);
}

/* Return the slot of token hash 'h' in 'ix' (its own or the empty one); 'ix->cap' > 0. */
static size_t slot_at(const struct dd_index *ix, uint64_t h)
{
	uint64_t key = h | 1;  /* the place depends on the key only: a rehash moves keys */
	size_t mask = ix->cap - 1, i = (size_t)(key ^ (key >> 29)) & mask;

	while (ix->slot[i].key && ix->slot[i].key != key)
		i = (i + 1) & mask;
	return i;
}

static const struct dd_slot *slot_get(const struct dd_index *ix, uint64_t h)
{
	const struct dd_slot *s;

	if (!ix->cap)
		return NULL;
	s = &ix->slot[slot_at(ix, h)];
	return s->key ? s : NULL;
}

static struct dd_slot *slot_intern(struct dd_index *ix, uint64_t h)
{
	size_t i;

	if (2 * (ix->used + 1) > ix->cap) {
		struct dd_slot *old = ix->slot;
		size_t oldcap = ix->cap;
		ix->cap = oldcap ? 2 * oldcap : 1024;
		ix->slot = xcalloc(ix->cap, sizeof(*ix->slot));
		for (size_t k = 0; k < oldcap; k++)
			if (old[k].key)
				ix->slot[slot_at(ix, old[k].key)] = old[k];
		free(old);
	}
	i = slot_at(ix, h);
	if (!ix->slot[i].key) {
		ix->slot[i].key = h | 1;
		ix->used++;
	}
	return &ix->slot[i];
}

struct prep {
	struct strbuf norm;
	uint64_t *h;            /* every word's hash; the content words' first */
	size_t nr, nr_content, alloc;
};

static void prep_word(const char *w, size_t len, const char *term, size_t term_len, bool content,
		      void *data)
{
	struct prep *p = data;
	uint64_t h = strhash(term, term_len);

	if (p->norm.len)
		strbuf_addch(&p->norm, ' ');
	strbuf_add(&p->norm, w, len);
	ALLOC_GROW(p->h, p->nr + 1, p->alloc);
	p->h[p->nr++] = h;
	if (content) {
		p->h[p->nr - 1] = p->h[p->nr_content];
		p->h[p->nr_content++] = h;
	}
}

void dedup_text_prepare(const char *text, size_t len, struct dd_text *t)
{
	struct prep p = { STRBUF_INIT, NULL, 0, 0, 0 };
	size_t n, m = 0;

	/* one pass gives both the text_normalize form (the words joined by spaces) and the hashes */
	strbuf_grow(&p.norm, len);
	text_each_word(text, len, NULL, prep_word, &p);
	ALLOC_GROW(p.h, 1, p.alloc);  /* never NULL */
	t->stop_only = !p.nr_content;
	n = t->stop_only ? p.nr : p.nr_content;
	sort_u64(p.h, n);
	for (size_t i = 0; i < n; i++)
		if (!m || p.h[m - 1] != p.h[i])
			p.h[m++] = p.h[i];
	t->norm = strbuf_detach(&p.norm, NULL);
	t->h = p.h;
	t->nr = m;
}

void dedup_text_release(struct dd_text *t)
{
	free(t->norm);
	free(t->h);
	t->norm = NULL;
	t->h = NULL;
	t->nr = 0;
}

void dedup_hint(struct dedup *d, const struct dd_text *t)
{
	struct dd_index *ix = &d->ix[t->stop_only];

	if (d->sealed || !t->nr)
		return;
	ix->hinted = true;
	for (size_t i = 0; i < t->nr; i++)
		slot_intern(ix, t->h[i])->df++;
}

/* Return the first 'p' tokens of the 'nr' sorted hashes 'h' in the order of 'ix'. */
static const struct dd_rank *prefix_of(struct dedup *d, const struct dd_index *ix,
				       const uint64_t *h, size_t nr, size_t p)
{
	struct dd_rank *r;

	ALLOC_GROW(d->rank, nr, d->alloc_rank);
	r = d->rank;
	for (size_t i = 0; i < nr; i++) {
		const struct dd_slot *s = ix->hinted ? slot_get(ix, h[i]) : NULL;
		r[i].df = s ? s->df : 0;
		r[i].h = h[i];
	}
	if (!ix->hinted || p == nr)
		return r;  /* hash order, or the whole set */
	if (nr > 16) {
		qsort(r, nr, sizeof(*r), cmp_rank);
		return r;
	}
	for (size_t i = 1; i < nr; i++) {
		struct dd_rank v = r[i];
		size_t j = i;
		for (; j > 0 && rank_before(&v, &r[j - 1]); j--)
			r[j] = r[j - 1];
		r[j] = v;
	}
	return r;
}

/* Return whether sets of 'a' and 'b' elements can reach Jaccard 't' (J <= min/max). */
static bool sizes_allow(size_t a, size_t b, double t)
{
	size_t lo = a < b ? a : b, hi = a < b ? b : a;
	return (double)lo >= t * (double)hi - 1e-9;
}

static uint64_t signature(const uint64_t *h, size_t nr)
{
	uint64_t sig = 0;

	for (size_t i = 0; i < nr; i++)
		sig |= 1ULL << (h[i] & 63);
	return sig;
}

/*
 * Return whether the 'nr' hashes 'h' may reach Jaccard 't' with a set of
 * 'nr_y' hashes of signature 'sig_y', without reading that set: a shared
 * hash has its bit in 'sig_y', so the hashes of 'h' whose bit is there bound
 * the intersection from above, and Jaccard grows with the intersection.
 */
static bool signature_allows(const uint64_t *h, size_t nr, size_t nr_y, uint64_t sig_y, double t)
{
	size_t most = 0;

	for (size_t i = 0; i < nr; i++)
		most += (sig_y >> (h[i] & 63)) & 1;
	return (double)most / (double)(nr + nr_y - most) >= t;
}

/* Return whether the Jaccard similarity of the sorted sets 'h' and 'x' reaches 't'. */
static bool similar(const uint64_t *h, size_t nr, const struct dd_item *x, double t)
{
	size_t inter = 0, a = 0, b = 0;

	while (a < nr && b < x->nr) {
		if (h[a] == x->h[b])
			inter++, a++, b++;
		else if (h[a] < x->h[b])
			a++;
		else
			b++;
	}
	/* the expression of text_similarity, for the same verdict at the boundary */
	return (double)inter / (double)(nr + x->nr - inter) >= t;
}

/* Return the index in 'ix' of the held item similar to 'h' with the
 * smallest id, or SIZE_MAX; 'pre' holds the first 'p' tokens of 'h'. */
static size_t index_find(struct dedup *d, struct dd_index *ix, const uint64_t *h, size_t nr,
			 const struct dd_rank *pre, size_t p)
{
	size_t best = SIZE_MAX;

	if (!ix->nr)
		return best;
	if (++ix->now == 0) {
		memset(ix->stamp, 0, ix->nr * sizeof(*ix->stamp));
		ix->now = 1;
	}
	for (size_t k = 0; k < p; k++) {
		const struct dd_slot *s = slot_get(ix, pre[k].h);

		for (size_t j = 0; s && j < s->nr; j++) {
			const struct dd_post *e = &s->post[j];

			if (d->ordered && e->item >= best)
				break;  /* lists ascend: nothing smaller follows */
			if (!sizes_allow(nr, e->nr, d->t) || !signature_allows(h, nr, e->nr, e->sig, d->t) ||
			    ix->stamp[e->item] == ix->now)
				continue;
			ix->stamp[e->item] = ix->now;
			if (!similar(h, nr, &ix->items[e->item], d->t))
				continue;
			if (best == SIZE_MAX || ix->items[e->item].id < ix->items[best].id)
				best = e->item;
			if (d->ordered)
				break;
		}
	}
	return best;
}

/* Hold 't' (taking its hashes) in 'ix' under 'id'; 'pre' holds its first 'p' tokens. */
static void index_add(struct dd_index *ix, struct dd_text *t, const struct dd_rank *pre, size_t p,
		      long id)
{
	struct dd_item *x;
	uint64_t sig = signature(t->h, t->nr);

	ALLOC_GROW(ix->items, ix->nr + 1, ix->alloc);
	x = &ix->items[ix->nr];
	x->id = id;
	x->h = t->h;
	x->nr = t->nr;
	t->h = NULL;
	t->nr = 0;
	ALLOC_GROW(ix->stamp, ix->nr + 1, ix->alloc_stamp);
	ix->stamp[ix->nr] = 0;
	for (size_t k = 0; k < p; k++) {
		struct dd_slot *s = slot_intern(ix, pre[k].h);

		ALLOC_GROW(s->post, s->nr + 1, s->alloc);
		s->post[s->nr].item = ix->nr;
		s->post[s->nr].nr = x->nr;
		s->post[s->nr++].sig = sig;
	}
	ix->nr++;
}

enum dd_mode { DD_FIND, DD_ADD, DD_CHECK, DD_FIND_ADD };

/* Look 't' up unless 'mode' is DD_ADD; hold it under 'id' for DD_ADD and
 * DD_FIND_ADD, and for DD_CHECK when nothing was found (taking its hashes
 * then). Return the smallest id of a held near-duplicate, or -1. */
static long lookup(struct dedup *d, struct dd_text *t, long id, enum dd_mode mode)
{
	struct dd_index *ix = &d->ix[t->stop_only];
	long found = -1;
	bool hold;

	d->sealed = true;
	if (!t->nr) {
		/* no word at all: like every other such text, unlike any text with words */
		found = mode != DD_ADD && d->have_none ? d->none_id : -1;
		hold = mode == DD_ADD || mode == DD_FIND_ADD || (mode == DD_CHECK && found < 0);
		if (hold && (!d->have_none || id < d->none_id))
			d->none_id = id;
		d->have_none = d->have_none || hold;
	} else {
		size_t p = prefix_len(t->nr, d->t), best = SIZE_MAX;
		const struct dd_rank *pre = prefix_of(d, ix, t->h, t->nr, p);

		if (mode != DD_ADD)
			best = index_find(d, ix, t->h, t->nr, pre, p);
		found = best == SIZE_MAX ? -1 : ix->items[best].id;
		hold = mode == DD_ADD || mode == DD_FIND_ADD || (mode == DD_CHECK && found < 0);
		if (hold)
			index_add(ix, t, pre, p, id);
	}
	if (hold) {
		if (d->nr_held++ && id < d->last_id)
			d->ordered = false;
		d->last_id = id;
	}
	return found;
}

long dedup_find(struct dedup *d, const char *text)
{
	struct dd_text t;
	long found;

	dedup_text_prepare(text, strlen(text), &t);
	found = lookup(d, &t, -1, DD_FIND);
	dedup_text_release(&t);
	return found;
}

void dedup_add(struct dedup *d, const char *text, long id)
{
	struct dd_text t;

	dedup_text_prepare(text, strlen(text), &t);
	lookup(d, &t, id, DD_ADD);
	dedup_text_release(&t);
}

long dedup_check(struct dedup *d, const char *text, long id)
{
	struct dd_text t;
	long found;

	dedup_text_prepare(text, strlen(text), &t);
	found = lookup(d, &t, id, DD_CHECK);
	dedup_text_release(&t);
	return found;
}

long dedup_check_prepared(struct dedup *d, const char *text, struct dd_text *t, long id)
{
	(void)text;  /* 't' says all; kept for callers holding both */
	return lookup(d, t, id, DD_CHECK);
}

long dedup_find_add_prepared(struct dedup *d, struct dd_text *t, long id)
{
	return lookup(d, t, id, DD_FIND_ADD);
}
